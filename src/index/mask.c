/*
 * nd_nonzero, nd_flatnonzero, nd_argwhere, nd_count_nonzero,
 * nd_mask_select, nd_mask_assign, nd_compress and the ufunc.at scatters
 * (NumPy semantics; include/ndgpu/index.h).
 *
 * Compositions: a mask is x != 0 (the elementwise op; a bool x is used as
 * is), counts are sums of the bool mask (the reduction, int64), the flat
 * indices of a mask come from the backend's compress slot, coordinates
 * from floor_divide/remainder of the flat indices, a[mask] is one
 * compress of the rows of a viewed as (M, R), a[mask] = v one scatter
 * along axis 0 of that view, compress a take of the condition's indices,
 * add.at one scatter with op add/max/min along axis 0.
 */
#include <string.h>

#include "core/internal.h"
#include "index/index.h"
#include "manip/manip.h" /* mp__finish_list: the out rule of a list of results */
#include "core/out.h"
#include "core/prof.h"

nd_status nd__ix_mask_flat(const char *fn, const nd_array *x, nd_array **m, int64_t *count)
{
    const nd_backend *be;
    nd_status st = nd__ix_backend(fn, x->device, &be);
    if (st) return st;
    nd_array *b = NULL, *f = NULL, *c = NULL;
    st = x->dtype == ND_BOOL ? (b = nd_retain((nd_array *)x), ND_OK)
                             : nd_binary_scalar(&b, ND_BINARY_NOT_EQUAL, x, nd_scalar_int(0));
    if (!st) st = nd_reshape(&f, b, 1, (const int64_t[]){x->size});
    if (!st) st = nd_contiguous(&c, f);
    nd_release(b);
    nd_release(f);
    if (!st) {
        st = be->mask_count(c, count);
        if (st) {
            nd_release(c);
            return st;
        }
    }
    if (st) {
        nd_release(c);
        return nd__err_prefix(st, fn);
    }
    *m = c;
    return ND_OK;
}

nd_status nd__ix_mask_indices(const char *fn, const nd_array *m, int64_t count, nd_array **idx)
{
    const nd_backend *be;
    nd_status st = nd__ix_backend(fn, m->device, &be);
    if (st) return st;
    nd_array *r = NULL;
    if ((st = nd__alloc(&r, ND_INT64, 1, (const int64_t[]){count}, m->device))) return nd__err_prefix(st, fn);
    if (count > 0 && (st = be->compress(r, NULL, m))) {
        nd_release(r);
        return st;
    }
    *idx = r;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* nonzero family                                                      */
/* ------------------------------------------------------------------ */
static nd_status flat_indices_of(const char *fn, const nd_array *a, nd_array **idx)
{
    nd_array *m = NULL;
    int64_t count;
    nd_status st = nd__ix_mask_flat(fn, a, &m, &count);
    if (!st) st = nd__ix_mask_indices(fn, m, count, idx);
    nd_release(m);
    return st;
}

nd_status nd_flatnonzero(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("flatnonzero", out, a);
    static const char *fn = "nd_flatnonzero";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    const nd_backend *be;
    nd_status st = nd__ix_backend(fn, a->device, &be);
    if (st) return st;
    nd_array *m = NULL;
    int64_t count;
    if ((st = nd__ix_mask_flat(fn, a, &m, &count))) return st;
    nd_out t;
    /* the indices go straight into the result when it is int64 and C-contiguous */
    if (!(st = nd__out_begin(&t, fn, out, ND_INT64, 1, (const int64_t[]){count}, a->device))) {
        st = nd__out_target(&t, ND_INT64, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 1, &a);
        if (!st && count > 0) st = be->compress(t.dst, NULL, m);
        st = nd__out_end(&t, st);
    }
    nd_release(m);
    return st;
}

/* The coordinates of flat indices f (int64 (count,)) of shape (nd, shape). */
static nd_status unravel(const char *fn, const nd_array *f, int nd, const int64_t *shape, nd_array **coords)
{
    nd_status st = ND_OK;
    int64_t stride = 1;
    for (int d = nd - 1; d >= 0 && !st; d--) {
        nd_array *q = NULL;
        if (d == nd - 1) q = nd_retain((nd_array *)f);
        else st = nd_binary_scalar(&q, ND_BINARY_FLOOR_DIVIDE, f, nd_scalar_int(stride));
        if (!st && d > 0) st = nd_binary_scalar(&coords[d], ND_BINARY_REMAINDER, q, nd_scalar_int(shape[d]));
        else if (!st) coords[d] = nd_retain(q);
        nd_release(q);
        stride *= shape[d] > 0 ? shape[d] : 1;
    }
    if (st) {
        for (int d = 0; d < nd; d++) nd_release(coords[d]), coords[d] = NULL;
        return nd__err_prefix(st, fn);
    }
    return ND_OK;
}

nd_status nd_nonzero(nd_array **outs, int cap, int *n, const nd_array *a)
{
    ND_PROF_OP("nonzero", NULL, a);
    static const char *fn = "nd_nonzero";
    ND_CHECK_PTR(fn, outs, "outs");
    ND_CHECK_PTR(fn, n, "n");
    ND_CHECK_PTR(fn, a, "a");
    if (a->ndim == 0)
        return nd__err(ND_ERR_INVALID, fn, "Calling nonzero on 0d arrays is not allowed. Use "
                       "np.atleast_1d(scalar).nonzero() instead.");
    if (cap < a->ndim)
        return nd__err(ND_ERR_INVALID, fn, "cap = %d is smaller than the %d arrays of a %d-d input", cap, a->ndim,
                       a->ndim);
    nd_array *f = NULL, *coords[ND_MAX_DIMS] = {0};
    nd_status st = flat_indices_of(fn, a, &f);
    if (!st) st = unravel(fn, f, a->ndim, a->shape, coords);
    nd_release(f);
    if (st) return st;
    /* every given outs[d] is checked before anything is written */
    if ((st = mp__finish_list(fn, outs, a->ndim, coords))) return st;
    *n = a->ndim;
    return ND_OK;
}

nd_status nd_argwhere(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("argwhere", out, a);
    static const char *fn = "nd_argwhere";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    nd_array *f = NULL, *coords[ND_MAX_DIMS] = {0}, *r = NULL;
    nd_status st = flat_indices_of(fn, a, &f);
    if (st) return st;
    if (a->ndim == 0) {
        st = nd_empty(&r, ND_INT64, 2, (const int64_t[]){f->size, 0}, a->device);
        nd_release(f);
        if (st) return nd__err_prefix(st, fn);
        return nd__out_deliver(fn, out, &r, ND_INT64, 0);
    }
    st = unravel(fn, f, a->ndim, a->shape, coords);
    nd_release(f);
    if (st) return st;
    st = nd_stack(out, a->ndim, (const nd_array *const *)coords, 1);
    for (int d = 0; d < a->ndim; d++) nd_release(coords[d]);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd_count_nonzero(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("count_nonzero", out, a);
    static const char *fn = "nd_count_nonzero";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (axes) {
        if (naxes < 0) return nd__err(ND_ERR_INVALID, fn, "naxes = %d is negative", naxes);
        bool seen[ND_MAX_DIMS] = {0};
        for (int i = 0; i < naxes; i++) {
            int ax;
            nd_status st = nd__ix_axis(fn, axes[i], a->ndim, &ax);
            if (st) return st;
            if (seen[ax]) return nd__err(ND_ERR_INVALID, fn, "duplicate value in 'axis'");
            seen[ax] = true;
        }
    }
    nd_array *b = NULL;
    nd_status st = a->dtype == ND_BOOL ? (b = nd_retain((nd_array *)a), ND_OK)
                                       : nd_binary_scalar(&b, ND_BINARY_NOT_EQUAL, a, nd_scalar_int(0));
    if (!st) st = nd_reduce(out, ND_REDUCE_SUM, b, naxes, axes, keepdims);
    nd_release(b);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

/* ------------------------------------------------------------------ */
/* boolean masks                                                       */
/* ------------------------------------------------------------------ */
/* Check mask against a; M = mask size, R = size of a.shape[mask.ndim:]. */
static nd_status mask_geometry(const char *fn, const nd_array *a, const nd_array *mask, int64_t *M, int64_t *R)
{
    ND_CHECK_PTR(fn, a, "a");
    ND_CHECK_PTR(fn, mask, "mask");
    if (!nd__same_device(mask->device, a->device)) {
        char d1[32], d2[32];
        return nd__err(ND_ERR_DEVICE, fn, "'mask' is on %s, but the array is on %s",
                       nd__device_name(mask->device, d1, sizeof d1), nd__device_name(a->device, d2, sizeof d2));
    }
    if (mask->dtype != ND_BOOL)
        return nd__err(ND_ERR_DTYPE, fn, "'mask' must be bool, got %s (integer indices go to nd_take)",
                       nd_dtype_name(mask->dtype));
    if (mask->ndim > a->ndim)
        return nd__err(ND_ERR_SHAPE, fn, "too many indices for array: array is %d-dimensional, but %d were indexed",
                       a->ndim, mask->ndim);
    for (int d = 0; d < mask->ndim; d++)
        if (mask->shape[d] != a->shape[d])
            return nd__err(ND_ERR_SHAPE, fn, "boolean index did not match indexed array along axis %d; size of axis "
                           "is %lld but size of corresponding boolean axis is %lld", d, (long long)a->shape[d],
                           (long long)mask->shape[d]);
    *M = mask->size;
    *R = 1;
    for (int d = mask->ndim; d < a->ndim; d++) *R *= a->shape[d];
    return ND_OK;
}

nd_status nd_mask_select(nd_array **out, const nd_array *a, const nd_array *mask)
{
    ND_PROF_OP("mask_select", out, a, mask);
    static const char *fn = "nd_mask_select";
    ND_CHECK_PTR(fn, out, "out");
    int64_t M, R, count;
    nd_status st = mask_geometry(fn, a, mask, &M, &R);
    if (st) return st;
    const nd_backend *be;
    if ((st = nd__ix_backend(fn, a->device, &be))) return st;
    int rnd = 1 + a->ndim - mask->ndim;
    if (rnd > ND_MAX_DIMS)
        return nd__err(ND_ERR_SHAPE, fn, "the result would have %d dimensions (maximum %d)", rnd, ND_MAX_DIMS);
    nd_array *m = NULL, *a2 = NULL, *ov = NULL;
    if ((st = nd__ix_mask_flat(fn, mask, &m, &count))) return st;
    int64_t rshape[ND_MAX_DIMS];
    rshape[0] = count;
    for (int d = mask->ndim; d < a->ndim; d++) rshape[1 + d - mask->ndim] = a->shape[d];
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, a->dtype, rnd, rshape, a->device))) goto fail;
    const nd_array *ins[2] = {a, mask};
    if ((st = nd__out_target(&t, a->dtype, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 2, ins))) goto done;
    if (t.dst->size == 0) goto done;
    if ((st = nd_reshape(&a2, a, 2, (const int64_t[]){M, R}))) {
        st = nd__err_prefix(st, fn);
        goto done;
    }
    if ((st = nd__view(&ov, t.dst, a->dtype, 2, (const int64_t[]){count, R}, (const int64_t[]){R, 1}, t.dst->offset)))
        goto done;
    st = be->compress(ov, a2, m);
done:
    st = nd__out_end(&t, st);
fail:
    nd_release(ov);
    nd_release(a2);
    nd_release(m);
    return st;
}

/* a[sel] op= values with sel an int64 (K,) index array of axis 0 of the
 * written (M, rest...) array w and values already broadcast to (K, rest...). */
static nd_status scatter_rows(const char *fn, nd_array *w, const nd_array *sel, const nd_array *vals, int op)
{
    const nd_backend *be;
    nd_status st = nd__ix_backend(fn, w->device, &be);
    if (st) return st;
    int64_t shape[ND_MAX_DIMS], str[ND_MAX_DIMS];
    shape[0] = sel->shape[0];
    str[0] = sel->strides[0];
    for (int d = 1; d < w->ndim; d++) shape[d] = w->shape[d], str[d] = 0;
    nd_array *iv = NULL;
    if ((st = nd__ix_view(&iv, sel, w->ndim, shape, str))) return st;
    if (iv->size > 0) st = be->scatter(w, iv, vals, 0, ND_TAKE_RAISE, op);
    nd_release(iv);
    return st;
}

/* values cast (unsafe) to dt, private from a, broadcast to (ndim, shape),
 * then reshaped to (K, R) (a copy where the broadcast view cannot be). */
static nd_status rows_of_values(const char *fn, const nd_array *values, const nd_array *a, int ndim,
                                const int64_t *shape, int64_t K, int64_t R, bool one_d_msg, nd_array **v2)
{
    nd_array *vc = NULL, *vp = NULL, *vb = NULL;
    nd_status st = nd__as_dtype(&vc, values, a->dtype);
    if (!st) st = nd__ix_private(vc, a, &vp);
    nd_release(vc);
    if (st) return nd__err_prefix(st, fn);
    int ond;
    int64_t osh[ND_MAX_DIMS];
    st = nd__broadcast_shapes(fn, vp->ndim, vp->shape, ndim, shape, &ond, osh);
    bool ok = !st && ond == ndim;
    for (int d = 0; ok && d < ndim; d++) ok = osh[d] == shape[d];
    if (!ok) {
        char b1[400], b2[400];
        if (one_d_msg && vp->ndim == 1)
            st = nd__err(ND_ERR_SHAPE, fn, "NumPy boolean array indexing assignment cannot assign %lld input values to "
                         "the %lld output values where the mask is true", (long long)vp->size, (long long)K);
        else
            st = nd__err(ND_ERR_SHAPE, fn, "shape mismatch: value array of shape %s could not be broadcast to indexing "
                         "result of shape %s", nd__fmt_shape(b1, sizeof b1, vp->ndim, vp->shape),
                         nd__fmt_shape(b2, sizeof b2, ndim, shape));
        nd_release(vp);
        return st;
    }
    st = nd__broadcast_view(&vb, vp, ndim, shape);
    if (!st) st = nd_reshape(v2, vb, 2, (const int64_t[]){K, R});
    nd_release(vp);
    nd_release(vb);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd_mask_assign(nd_array *a, const nd_array *mask, const nd_array *values)
{
    ND_PROF_OP("mask_assign", NULL, a, mask, values);
    static const char *fn = "nd_mask_assign";
    int64_t M, R, count;
    nd_status st = mask_geometry(fn, a, mask, &M, &R);
    if (st) return st;
    if ((st = nd__out_check_writable(fn, a, "a"))) return st;
    ND_CHECK_PTR(fn, values, "values");
    if (!nd__same_device(values->device, a->device)) return nd__err(ND_ERR_DEVICE, fn, "'values' is on another device");
    nd_array *m = NULL, *sel = NULL, *v2 = NULL, *w = NULL;
    bool copied = false;
    if ((st = nd__ix_mask_flat(fn, mask, &m, &count))) return st;
    int64_t sshape[ND_MAX_DIMS];
    int snd = 1 + a->ndim - mask->ndim;
    sshape[0] = count;
    for (int d = mask->ndim; d < a->ndim; d++) sshape[1 + d - mask->ndim] = a->shape[d];
    if ((st = rows_of_values(fn, values, a, snd, sshape, count, R, snd == 1, &v2))) goto fail;
    if (count == 0 || R == 0) goto fail;
    if ((st = nd__ix_mask_indices(fn, m, count, &sel))) goto fail;
    if ((st = nd__ix_reshape_for_write(fn, a, 2, (const int64_t[]){M, R}, &w, &copied))) goto fail;
    if ((st = scatter_rows(fn, w, sel, v2, ND_SCATTER_ASSIGN))) goto fail;
    st = nd__ix_writeback(fn, a, w, copied);
fail:
    nd_release(w);
    nd_release(v2);
    nd_release(sel);
    nd_release(m);
    return st;
}

nd_status nd_compress(nd_array **out, const nd_array *condition, const nd_array *a, int axis)
{
    ND_PROF_OP("compress", out, condition, a);
    static const char *fn = "nd_compress";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, condition, "condition");
    ND_CHECK_PTR(fn, a, "a");
    if (!nd__same_device(condition->device, a->device))
        return nd__err(ND_ERR_DEVICE, fn, "'condition' is on another device than 'a'");
    if (condition->ndim != 1) return nd__err(ND_ERR_SHAPE, fn, "condition must be a 1-d array (it has %d dimensions)",
                                             condition->ndim);
    if (axis != ND_AXIS_NONE) {
        int ax;
        nd_status st = nd__ix_axis(fn, axis, a->ndim, &ax);
        if (st) return st;
    }
    nd_array *idx = NULL;
    nd_status st = flat_indices_of(fn, condition, &idx);
    if (st) return st;
    st = nd_take(out, a, idx, axis, ND_TAKE_RAISE);
    nd_release(idx);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

/* ------------------------------------------------------------------ */
/* ufunc.at                                                            */
/* ------------------------------------------------------------------ */
static nd_status ufunc_at(const char *fn, nd_array *a, const nd_array *indices, const nd_array *values, int op)
{
    ND_CHECK_PTR(fn, a, "a");
    ND_CHECK_PTR(fn, values, "values");
    nd_status st = nd__out_check_writable(fn, a, "a");
    if (st) return st;
    if (a->ndim == 0) return nd__err(ND_ERR_INVALID, fn, "too many indices for array: array is 0-dimensional, but 1 were indexed");
    if (!nd__same_device(values->device, a->device)) return nd__err(ND_ERR_DEVICE, fn, "'values' is on another device");
    /* complex numbers have no order: maximum/minimum are add's only */
    if (op != ND_SCATTER_ADD && (st = nd__no_complex(fn, a, "a"))) return st;
    nd_array *idx = NULL, *flat = NULL, *sel = NULL, *v2 = NULL;
    if ((st = nd__ix_indices(fn, "indices", indices, a->device, &idx))) return st;
    const int64_t K = idx->size;
    int64_t R = 1, sshape[ND_MAX_DIMS];
    int snd = idx->ndim + a->ndim - 1;
    if (snd > ND_MAX_DIMS) {
        st = nd__err(ND_ERR_SHAPE, fn, "the indexing result would have %d dimensions (maximum %d)", snd, ND_MAX_DIMS);
        goto fail;
    }
    for (int d = 0; d < idx->ndim; d++) sshape[d] = idx->shape[d];
    for (int d = 1; d < a->ndim; d++) sshape[idx->ndim + d - 1] = a->shape[d], R *= a->shape[d];
    if ((st = nd__ix_check_range(fn, idx, a->shape[0], 0))) goto fail;
    if ((st = rows_of_values(fn, values, a, snd, sshape, K, R, false, &v2))) goto fail;
    if (K == 0 || R == 0) goto fail;
    if ((st = nd_reshape(&flat, idx, 1, (const int64_t[]){K})) || (st = nd__ix_private(flat, a, &sel))) {
        st = nd__err_prefix(st, fn);
        goto fail;
    }
    /* the values as (K, a.shape[1:]) */
    nd_array *vr = NULL;
    int64_t vshape[ND_MAX_DIMS];
    vshape[0] = K;
    for (int d = 1; d < a->ndim; d++) vshape[d] = a->shape[d];
    if ((st = nd_reshape(&vr, v2, a->ndim, vshape))) {
        st = nd__err_prefix(st, fn);
        goto fail;
    }
    st = scatter_rows(fn, a, sel, vr, op);
    nd_release(vr);
fail:
    nd_release(v2);
    nd_release(sel);
    nd_release(flat);
    nd_release(idx);
    return st;
}

nd_status nd_add_at(nd_array *a, const nd_array *indices, const nd_array *values)
{
    ND_PROF_OP("add_at", NULL, a, indices, values);
    return ufunc_at("nd_add_at", a, indices, values, ND_SCATTER_ADD);
}
nd_status nd_maximum_at(nd_array *a, const nd_array *indices, const nd_array *values)
{
    ND_PROF_OP("maximum_at", NULL, a, indices, values);
    return ufunc_at("nd_maximum_at", a, indices, values, ND_SCATTER_MAX);
}
nd_status nd_minimum_at(nd_array *a, const nd_array *indices, const nd_array *values)
{
    ND_PROF_OP("minimum_at", NULL, a, indices, values);
    return ufunc_at("nd_minimum_at", a, indices, values, ND_SCATTER_MIN);
}
