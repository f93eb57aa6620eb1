/* The CUDA backend's indexing kernels (src/cuda/kernels_index.cu; contracts:
 * the ix slots of nd_backend, src/core/backend.h). */
#ifndef ND_CUDA_INDEX_H
#define ND_CUDA_INDEX_H
#include "core/internal.h"
#ifdef __cplusplus
extern "C" {
#endif
ND_INTERNAL nd_status nd__cuda_gather(nd_array *out, const nd_array *a, const nd_array *idx, int axis, int mode);
ND_INTERNAL nd_status nd__cuda_scatter(nd_array *a, const nd_array *idx, const nd_array *values, int axis, int mode,
                                       int op);
ND_INTERNAL nd_status nd__cuda_compress(nd_array *out, const nd_array *a, const nd_array *mask);
ND_INTERNAL nd_status nd__cuda_mask_count(const nd_array *mask, int64_t *count);
ND_INTERNAL bool nd__cuda_ix_supports(nd_kernel_kind kind, int op, nd_dtype t);
#ifdef __cplusplus
}
#endif
#endif
