/* Sorting, searching and order statistics: the
 * core's shared helpers (src/sort/sort.c). The backends' entry points behind
 * nd_backend.sort_rows / topk_rows / searchsorted (src/core/backend.h says
 * what each must do) are declared in src/cpu/sort_cpu.h and
 * src/cuda/sort_cuda.h. */
#ifndef ND_SORT_H
#define ND_SORT_H
#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* src/sort/sort.c: sort a along axis (validated, in [0, ndim)) into fresh
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
