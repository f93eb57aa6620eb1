// The CUDA backend's sorting entry points (src/cuda/kernels_sort.cu) behind
// nd_backend.sort_rows / searchsorted (src/core/backend.h).
#ifndef ND_CUDA_SORT_CUDA_H
#define ND_CUDA_SORT_CUDA_H
#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif
ND_INTERNAL nd_status nd__cuda_sort_rows(nd_array *vals, nd_array *idx, const nd_array *a, bool descending);
ND_INTERNAL nd_status nd__cuda_searchsorted(nd_array *out, const nd_array *a, const nd_array *v, bool right);
#ifdef __cplusplus
}
#endif
#endif
