/* Sorting, searching and order statistics (issue 13, area "so"): the
 * backends' entry points behind nd_backend.sort_rows / topk_rows /
 * searchsorted (src/backend.h says what each must do) and the core's
 * shared helpers (src/sort.c). */
#ifndef ND_SORT_H
#define ND_SORT_H
#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* src/cpu/sort.c */
ND_INTERNAL nd_status nd__cpu_sort_rows(nd_array *vals, nd_array *idx, const nd_array *a, bool descending);
ND_INTERNAL nd_status nd__cpu_topk_rows(nd_array *vals, nd_array *idx, const nd_array *a, int64_t k, bool largest);
ND_INTERNAL nd_status nd__cpu_searchsorted(nd_array *out, const nd_array *a, const nd_array *v, bool right);
/* src/cuda/kernels_sort.cu */
ND_INTERNAL nd_status nd__cuda_sort_rows(nd_array *vals, nd_array *idx, const nd_array *a, bool descending);
ND_INTERNAL nd_status nd__cuda_searchsorted(nd_array *out, const nd_array *a, const nd_array *v, bool right);

/* src/sort.c: sort a along axis (validated, in [0, ndim)) into fresh
 * C-contiguous arrays *vals (a's dtype) and/or *idx (int64) of a's shape
 * (either pointer may be NULL); a may have any layout. func names the
 * caller in messages. */
ND_INTERNAL nd_status nd__sort_axis(const char *func, nd_array **vals, nd_array **idx, const nd_array *a, int axis,
                                    bool descending);
/* Normalise axis for an array of ndim dimensions (NumPy's message). */
ND_INTERNAL nd_status nd__sort_norm_axis(const char *func, int *axis, int ndim);

#ifdef __cplusplus
}
#endif
#endif
