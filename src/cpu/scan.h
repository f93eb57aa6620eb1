/* The CPU scan kernel (src/cpu/scan.c): nd_backend.scan, contract in src/shared/scan_slots.h. */
#ifndef ND_CPU_SCAN_H
#define ND_CPU_SCAN_H
#include "shared/scan_slots.h"
ND_INTERNAL nd_status nd__cpu_scan(int op, nd_array *out, const nd_array *a, int64_t outer, int64_t n, int64_t inner);
#endif
