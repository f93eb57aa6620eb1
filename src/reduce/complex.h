/* The reductions' core pieces shared by src/reduce/reduce.c (the real
 * reductions), src/reduce/complex.c (complex ones, composed from the real
 * reductions of the parts), src/reduce/api.c (the entry points, which
 * choose between the two) and src/reduce/nan.c (the nan-aware ones). */
#ifndef ND_REDUCE_CPX_H
#define ND_REDUCE_CPX_H
#include "core/internal.h"

/* A validated reduction request: the reduced block size (0 for an empty
 * one), the result's shape (rnd, rshape: keepdims applied), the kept axes'
 * extents (knd, kshape) and the axis order perm (kept axes first, reduced
 * axes after them, both in increasing axis order). */
typedef struct nd_rplan {
    int64_t nreduce;
    int rnd, knd;
    int64_t rshape[ND_MAX_DIMS], kshape[ND_MAX_DIMS];
    int perm[ND_MAX_DIMS];
} nd_rplan;

/* NumPy's checks of the axes (bounds, duplicates, argmax's one axis, the
 * empty max/min/argmax/argmin) and the geometry, messages naming fn. */
ND_INTERNAL nd_status nd__reduce_plan(const char *fn, nd_reduce_op op, const nd_array *a, int naxes, const int *axes,
                                      bool keepdims, nd_rplan *p);
/* a's view with p's axis order (no copy). */
ND_INTERNAL nd_status nd__reduce_perm_view(nd_array **v, const nd_array *a, const nd_rplan *p);
/* src/reduce/api.c: nd_reduce_ddof with messages naming fn (no profiler
 * event), for every dtype. */
ND_INTERNAL nd_status nd__reduce_run(const char *fn, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes,
                                     const int *axes, bool keepdims, double ddof);
/* src/reduce/reduce.c: the same for a real dtype (ND_ERR_INTERNAL for complex). */
ND_INTERNAL nd_status nd__reduce_real(const char *fn, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes,
                                      const int *axes, bool keepdims, double ddof);
/* src/reduce/complex.c: the reduction of complex a (called by nd__reduce_run
 * after the pointer, op and dtype checks). */
ND_INTERNAL nd_status nd__reduce_cpx(const char *fn, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes,
                                     const int *axes, bool keepdims, double ddof);
/* src/reduce/complex.c, for the nan-reductions of complex input (src/reduce/nan.c):
 * dst's real and imaginary parts from the real arrays rr and ri; and a
 * failure of a step inside a reduction, its message prefixed with fn. */
ND_INTERNAL nd_status nd__cpx_into_parts(nd_array *dst, const nd_array *rr, const nd_array *ri);
ND_INTERNAL nd_status nd__reduce_step_fail(const char *fn, nd_status st);
#endif
