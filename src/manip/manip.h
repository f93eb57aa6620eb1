/* Internal helpers of the manipulation family (src/manip/): the out rule
 * for views and for lists of results, axis normalisation. Everything in
 * src/manip/ is a composition of the core's views, copies, elementwise ops,
 * reductions and nd_matmul, so it runs on every backend. */
#ifndef ND_MP_H
#define ND_MP_H
#include "core/internal.h"
#include "core/out.h"

/* The status of a bad axis: the library's (nd_transpose, nd_reduce,
 * nd_concatenate: "shapes / bad axis" in ndgpu/core.h's status list). */
#define MP_ERR_AXIS ND_ERR_SHAPE

/* axis (negatives from the end) into [0, ndim), NumPy's AxisError text. */
ND_INTERNAL nd_status mp__axis(const char *fn, int axis, int ndim, int *res);
/* The out rule for a list of n results: every non-NULL outs[i] is checked
 * first (nothing is written when one is refused); then each entry gets its
 * view through nd__out_deliver (NULL entries take the view itself, the
 * others get its elements copied). Consumes views[0..n). */
ND_INTERNAL nd_status mp__finish_list(const char *fn, nd_array **outs, int64_t n, nd_array **views);
/* 1-D view (or C-contiguous copy) of a's elements in C order. */
ND_INTERNAL nd_status mp__ravel(nd_array **out, const nd_array *a);
/* A view of a with new geometry (a wrapper of nd__view). */
ND_INTERNAL nd_status mp__view(nd_array **out, const nd_array *a, int ndim, const int64_t *shape,
                               const int64_t *strides, int64_t offset);
/* A view of a restricted to [start, start + len) along axis ax (step 1 or -1
 * from start when step < 0: start, start - 1, ...). */
ND_INTERNAL nd_status mp__sub(nd_array **out, const nd_array *a, int ax, int64_t start, int64_t len, int step);
#endif
