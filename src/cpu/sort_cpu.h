/* The CPU backend's sorting entry points (src/cpu/sort.c) behind
 * nd_backend.sort_rows / topk_rows / searchsorted (src/backend.h). */
#ifndef ND_CPU_SORT_CPU_H
#define ND_CPU_SORT_CPU_H
#include "internal.h"

ND_INTERNAL nd_status nd__cpu_sort_rows(nd_array *vals, nd_array *idx, const nd_array *a, bool descending);
ND_INTERNAL nd_status nd__cpu_topk_rows(nd_array *vals, nd_array *idx, const nd_array *a, int64_t k, bool largest);
ND_INTERNAL nd_status nd__cpu_searchsorted(nd_array *out, const nd_array *a, const nd_array *v, bool right);
#endif
