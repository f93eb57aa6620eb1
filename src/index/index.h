/* Core helpers of the indexing functions (src/index/index.c, src/index/mask.c);
 * never seen by a backend. */
#ifndef ND_IX_CORE_H
#define ND_IX_CORE_H
#include "core/internal.h"
#include "shared/index_ops.h"

/* The backend of dev with the three ix slots, or ND_ERR_UNSUPPORTED. */
ND_INTERNAL nd_status nd__ix_backend(const char *fn, nd_device dev, const nd_backend **be);
/* Validate an index array (not NULL, on dev, an integer dtype: bool and
 * float give ND_ERR_DTYPE) and give it as int64 (*idx: a new reference). */
ND_INTERNAL nd_status nd__ix_indices(const char *fn, const char *name, const nd_array *indices, nd_device dev,
                                     nd_array **idx);
/* Raise mode: every index in [-n, n), else ND_ERR_INVALID "index 12 is out
 * of bounds for axis 0 with size 10" (the max, or the min, offender). */
ND_INTERNAL nd_status nd__ix_check_range(const char *fn, const nd_array *idx, int64_t n, int axis);
/* A view of a with shape (ndim, shape) and the given strides (elements). */
ND_INTERNAL nd_status nd__ix_view(nd_array **v, const nd_array *a, int ndim, const int64_t *shape,
                                  const int64_t *strides);
/* a written through a reshaped (ndim, shape) stand-in: *w is a view of a
 * when the strides allow (*copied = false), else a C-contiguous copy of a
 * (*copied = true) that nd__ix_writeback copies back into a. */
ND_INTERNAL nd_status nd__ix_reshape_for_write(const char *fn, nd_array *a, int ndim, const int64_t *shape,
                                               nd_array **w, bool *copied);
ND_INTERNAL nd_status nd__ix_writeback(const char *fn, nd_array *a, nd_array *w, bool copied);
/* An input that may overlap the written array a: a private copy (new ref
 * either way). */
ND_INTERNAL nd_status nd__ix_private(const nd_array *x, const nd_array *a, nd_array **out);
/* The flattened C-contiguous bool mask of x != 0 (x bool: x itself
 * flattened) as (N,), and the number of true elements. */
ND_INTERNAL nd_status nd__ix_mask_flat(const char *fn, const nd_array *x, nd_array **m, int64_t *count);
/* The int64 (count,) flat indices of the true elements of the flat mask m. */
ND_INTERNAL nd_status nd__ix_mask_indices(const char *fn, const nd_array *m, int64_t count, nd_array **idx);
/* Normalise axis for ndim (ND_ERR_INVALID in NumPy's words). */
ND_INTERNAL nd_status nd__ix_axis(const char *fn, int axis, int ndim, int *ax);
#endif
