/*
 * The real reductions, NumPy 2 semantics: the engine behind nd_reduce,
 * nd_reduce_ddof and the named wrappers (nd_sum, nd_mean, ...), whose
 * entry points are in src/reduce/api.c.
 *
 * The core validates the arguments, normalises the axes, computes the
 * result shape and dtype, applies the out rule and calls the backend's
 * reduce with a VIEW of the input whose reduced axes are moved to the end
 * (kept axes first, in their order; reduced axes after them, in
 * increasing axis order, so a C-order flat index over the trailing axes is
 * the flat index NumPy's argmax returns). No data is copied or cast here.
 * Complex input never reaches a backend: src/reduce/complex.c composes its
 * reductions from the real ones here on the part views (nd__reduce_cpx,
 * called from nd__reduce_run in src/reduce/api.c), so this file calls
 * neither of them.
 *
 * Backend contract (nd_backend.reduce, implemented by src/cpu/reduce*.c
 * and to be implemented by the CUDA backend):
 *  - a has its ORIGINAL dtype (any of the 13 real dtypes); a's last naxes
 *    axes are reduced (naxes may be 0: every output reduces one element);
 *  - out is C-contiguous, has a's leading ndim - naxes extents and the
 *    RESULT dtype of nd_reduce_result_dtype() below;
 *  - accumulation: sum/prod of bool and signed ints in int64 (wrapping),
 *    of unsigned ints in uint64, of float16/bfloat16/float32 in float32,
 *    of float64 in float64; mean/var/std of bool and ints in float64, of
 *    float16/bfloat16/float32 in float32, of float64 in float64; max/min
 *    and argmax/argmin compare exactly in the input's own domain;
 *  - float sums are pairwise (O(log n) error) and deterministic;
 *  - the reduced block may be empty only for sum, prod, mean, var, std,
 *    any and all (the core rejects the others): the backend writes 0, 1,
 *    NaN, S/max(0 - ddof, 0), false and true respectively;
 *  - var = sum((x - mean)^2) / max(n - ddof, 0) (two-pass), std = sqrt(var);
 *  - max/min propagate NaN; argmax/argmin return the first occurrence and
 *    a NaN wins at its first index; any/all test x != 0 (NaN is true).
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "core/out.h"
#include "core/prof_hooks.h"
#include "reduce/complex.h"

static const char *const reduce_names[ND_NUM_REDUCE_OPS] = {
#define X(E, n) #n,
    ND_REDUCE_OPS(X)
#undef X
};

const char *nd_reduce_op_name(nd_reduce_op op)
{
    return (unsigned)op < (unsigned)ND_NUM_REDUCE_OPS ? reduce_names[op] : NULL;
}

/* NumPy's result dtype of op applied to an input of dtype t. */
static nd_dtype reduce_result_dtype(nd_reduce_op op, nd_dtype t)
{
    nd_kind k = nd__kind(t);
    switch (op) {
    case ND_REDUCE_SUM:
    case ND_REDUCE_PROD:
        if (k == ND_KIND_BOOL || k == ND_KIND_INT) return ND_INT64;
        if (k == ND_KIND_UINT) return ND_UINT64;
        return t;
    case ND_REDUCE_MEAN:
    case ND_REDUCE_VAR:
    case ND_REDUCE_STD:
        return k == ND_KIND_FLOAT ? t : ND_FLOAT64;
    case ND_REDUCE_MAX:
    case ND_REDUCE_MIN:
        return t;
    case ND_REDUCE_ARGMAX:
    case ND_REDUCE_ARGMIN:
        return ND_INT64;
    default: /* any, all */
        return ND_BOOL;
    }
}

/* Normalise the axes into a mask. Returns ND_OK or an error naming fn. */
static nd_status normalise_axes(const char *fn, int ndim, int naxes, const int *axes, bool *mask, int *nred)
{
    for (int i = 0; i < ndim; i++) mask[i] = axes == NULL;
    if (axes == NULL) {
        *nred = ndim;
        return ND_OK;
    }
    if (naxes < 0) return nd__err(ND_ERR_INVALID, fn, "naxes = %d is negative", naxes);
    /* NumPy's normalize_axis_tuple: every axis is range-checked first,
     * then duplicates are rejected. */
    for (int i = 0; i < naxes; i++) {
        int ax = axes[i];
        if (ax < -ndim || ax >= ndim)
            return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", ax, ndim);
    }
    int n = 0;
    for (int i = 0; i < naxes; i++) {
        int ax = axes[i] < 0 ? axes[i] + ndim : axes[i];
        if (mask[ax]) return nd__err(ND_ERR_INVALID, fn, "duplicate value in 'axis'");
        mask[ax] = true;
        n++;
    }
    *nred = n;
    return ND_OK;
}

/* The validated geometry of a reduction (src/reduce/complex.h). */
nd_status nd__reduce_plan(const char *fn, nd_reduce_op op, const nd_array *a, int naxes, const int *axes, bool keepdims,
                          nd_rplan *p)
{
    const int nd = a->ndim;
    const bool is_arg = op == ND_REDUCE_ARGMAX || op == ND_REDUCE_ARGMIN;
    /* NumPy's argmax/argmin see a 0-d array as one element (as if 1-d):
     * axis 0 or -1 reduces it to 0; other axes are out of bounds for
     * "dimension 1". */
    if (is_arg && nd == 0 && axes != NULL && naxes == 1) {
        if (axes[0] != 0 && axes[0] != -1)
            return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension 1", axes[0]);
        axes = NULL;
    }
    bool mask[ND_MAX_DIMS];
    int nred = 0;
    nd_status st = normalise_axes(fn, nd, naxes, axes, mask, &nred);
    if (st) return st;

    if (is_arg && axes != NULL && naxes != 1)
        return nd__err(ND_ERR_INVALID, fn, "%s takes one axis (naxes == 1) or all axes (axes == NULL), got naxes = %d",
                       reduce_names[op], naxes);

    /* Reduced block size (empty product = 1) and result geometry. */
    p->nreduce = 1;
    p->rnd = 0, p->knd = 0;
    for (int i = 0; i < nd; i++) {
        if (mask[i]) {
            p->nreduce *= a->shape[i]; /* cannot overflow: a's size fits */
            if (a->shape[i] == 0) p->nreduce = 0;
            if (keepdims) p->rshape[p->rnd++] = 1;
        } else {
            p->rshape[p->rnd++] = a->shape[i];
            p->kshape[p->knd] = a->shape[i];
            p->perm[p->knd++] = i;
        }
    }
    for (int i = 0, j = p->knd; i < nd; i++)
        if (mask[i]) p->perm[j++] = i;

    if (p->nreduce == 0) {
        if (op == ND_REDUCE_MAX || op == ND_REDUCE_MIN)
            return nd__err(ND_ERR_INVALID, fn, "zero-size array to reduction operation %s which has no identity",
                           op == ND_REDUCE_MAX ? "maximum" : "minimum");
        if (is_arg) return nd__err(ND_ERR_INVALID, fn, "attempt to get %s of an empty sequence", reduce_names[op]);
    }
    return ND_OK;
}

/* a's view with the plan's axis order (kept axes first, reduced last). */
nd_status nd__reduce_perm_view(nd_array **v, const nd_array *a, const nd_rplan *p)
{
    int64_t vshape[ND_MAX_DIMS], vstrides[ND_MAX_DIMS];
    for (int i = 0; i < a->ndim; i++) {
        vshape[i] = a->shape[p->perm[i]];
        vstrides[i] = a->strides[p->perm[i]];
    }
    return nd__view(v, a, a->dtype, a->ndim, vshape, vstrides, a->offset);
}

nd_status nd__reduce_real(const char *fn, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes,
                          const int *axes, bool keepdims, double ddof)
{
    ND_CHECK_PTR(fn, out, "out");
    if ((unsigned)op >= (unsigned)ND_NUM_REDUCE_OPS)
        return nd__err(ND_ERR_INVALID, fn, "invalid reduce op %d", (int)op);
    ND_CHECK_PTR(fn, a, "a");
    if (!nd__dtype_valid(a->dtype)) return nd__err(ND_ERR_DTYPE, fn, "array 'a' has an invalid dtype %d", (int)a->dtype);
    if (nd__is_complex(a->dtype)) /* nd__reduce_run sends complex input to src/reduce/complex.c */
        return nd__err(ND_ERR_INTERNAL, fn, "a complex array reached the real reduction");

    nd_rplan p;
    nd_status st = nd__reduce_plan(fn, op, a, naxes, axes, keepdims, &p);
    if (st) return st;
    const int nd = a->ndim, knd = p.knd;

    const nd_backend *be = nd__backend(a->device);
    if (!be || !be->reduce) return nd__err(ND_ERR_UNSUPPORTED, fn, "no reduce backend for this device");

    const nd_dtype rdt = reduce_result_dtype(op, a->dtype);
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, rdt, p.rnd, p.rshape, a->device))) return st;
    /* The backend writes a C-contiguous array of the result dtype that
     * does not overlap a; otherwise the transaction gives a temporary. */
    nd_array *av = NULL, *ov = NULL;
    if ((st = nd__out_target(&t, rdt, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 1, &a))) goto done;
    nd_array *dst = t.dst;

    int64_t ostrides[ND_MAX_DIMS];
    st = nd__reduce_perm_view(&av, a, &p);
    if (st) goto done;
    nd__contiguous_strides(knd, p.kshape, ostrides);
    st = nd__view(&ov, dst, rdt, knd, p.kshape, ostrides, dst->offset);
    if (st) goto done;
    if (dst->size > 0) st = be->reduce(op, ov, av, nd - knd, ddof);
done:
    nd_release(ov);
    nd_release(av);
    return nd__out_end(&t, st);
}
