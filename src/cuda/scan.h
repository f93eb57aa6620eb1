/* The CUDA scan kernels (src/cuda/kernels_scan.cu): nd_backend.scan,
 * contract in src/shared/scan_slots.h. */
#ifndef ND_CUDA_SCAN_H
#define ND_CUDA_SCAN_H
#include "shared/scan_slots.h"
#ifdef __cplusplus
extern "C" {
#endif
ND_INTERNAL nd_status nd__cuda_scan(int op, nd_array *out, const nd_array *a, int64_t outer, int64_t n, int64_t inner);
#ifdef __cplusplus
}
#endif
#endif
