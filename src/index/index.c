/*
 * nd_take, nd_take_along_axis, nd_put_along_axis, nd_put (NumPy
 * semantics; include/ndgpu/index.h) and the helpers the mask functions share
 * (src/index/index.h).
 *
 * Every function reduces to one backend call: gather (out[p] = a[p with
 * axis -> idx[p]]) or scatter (a[p with axis -> idx[p]] op= values[p]),
 * with idx an int64 array already broadcast (stride-0 views) to the
 * shape the kernel walks. Raise-mode indices are validated here with two
 * reductions (min and max) before any kernel runs, so a kernel never
 * sees an out-of-range index; wrap and clip are applied per element by
 * the kernels (nd_ix_norm, src/shared/index_ops.h).
 */
#include <string.h>

#include "core/internal.h"
#include "index/index.h"
#include "core/out.h"
#include "core/prof.h"

nd_status nd__ix_backend(const char *fn, nd_device dev, const nd_backend **be)
{
    *be = nd__backend(dev);
    if (!*be || !(*be)->gather || !(*be)->scatter || !(*be)->compress || !(*be)->mask_count)
        return nd__err(ND_ERR_UNSUPPORTED, fn, "no indexing kernels for this device");
    return ND_OK;
}

static nd_status same_device(const char *fn, const nd_array *x, const char *name, nd_device dev)
{
    if (nd__same_device(x->device, dev)) return ND_OK;
    char d1[32], d2[32];
    return nd__err(ND_ERR_DEVICE, fn, "'%s' is on %s, but the array is on %s", name,
                   nd__device_name(x->device, d1, sizeof d1), nd__device_name(dev, d2, sizeof d2));
}

nd_status nd__ix_indices(const char *fn, const char *name, const nd_array *indices, nd_device dev, nd_array **idx)
{
    ND_CHECK_PTR(fn, indices, name);
    nd_status st = same_device(fn, indices, name, dev);
    if (st) return st;
    if (!nd__is_integer(indices->dtype))
        return nd__err(ND_ERR_DTYPE, fn, "'%s' must have an integer dtype, got %s (a bool mask goes to nd_mask_select "
                       "or nd_compress)", name, nd_dtype_name(indices->dtype));
    st = nd__as_dtype(idx, indices, ND_INT64);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

static nd_status scalar_i64(const char *fn, nd_reduce_op op, const nd_array *x, int64_t *v)
{
    nd_array *r = NULL;
    nd_status st = nd_reduce(&r, op, x, 0, NULL, false);
    if (!st) st = nd_copy_to_host(v, r, sizeof *v);
    nd_release(r);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd__ix_check_range(const char *fn, const nd_array *idx, int64_t n, int axis)
{
    if (idx->size == 0) return ND_OK;
    int64_t hi, lo;
    nd_status st = scalar_i64(fn, ND_REDUCE_MAX, idx, &hi);
    if (!st) st = scalar_i64(fn, ND_REDUCE_MIN, idx, &lo);
    if (st) return st;
    if (hi >= n || lo < -n)
        return nd__err(ND_ERR_INVALID, fn, "index %lld is out of bounds for axis %d with size %lld",
                       (long long)(hi >= n ? hi : lo), axis, (long long)n);
    return ND_OK;
}

nd_status nd__ix_view(nd_array **v, const nd_array *a, int ndim, const int64_t *shape, const int64_t *strides)
{
    return nd__view(v, a, a->dtype, ndim, shape, strides, a->offset);
}

nd_status nd__ix_axis(const char *fn, int axis, int ndim, int *ax)
{
    if (axis < -ndim || axis >= ndim)
        return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", axis, ndim);
    *ax = axis < 0 ? axis + ndim : axis;
    return ND_OK;
}

nd_status nd__ix_reshape_for_write(const char *fn, nd_array *a, int ndim, const int64_t *shape, nd_array **w,
                                   bool *copied)
{
    nd_status st = nd_reshape(w, a, ndim, shape);
    if (st) return nd__err_prefix(st, fn);
    *copied = (*w)->buf != a->buf;
    return ND_OK;
}

nd_status nd__ix_writeback(const char *fn, nd_array *a, nd_array *w, bool copied)
{
    if (!copied) return ND_OK;
    nd_array *v = NULL;
    nd_status st = nd_reshape(&v, w, a->ndim, a->shape);
    if (!st) st = nd__copy_into(a, v);
    nd_release(v);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd__ix_private(const nd_array *x, const nd_array *a, nd_array **out)
{
    if (nd__may_overlap(x, a)) return nd_copy(out, x);
    *out = nd_retain((nd_array *)x);
    return ND_OK;
}

/* Common checks of the functions that write a. */
static nd_status check_target(const char *fn, const nd_array *a)
{
    ND_CHECK_PTR(fn, a, "a");
    return nd__out_check_writable(fn, a, "a");
}

/* a flattened (a view when possible, else a copy): ND_AXIS_NONE. */
static nd_status flat_of(const char *fn, const nd_array *a, nd_array **f)
{
    nd_status st = nd_reshape(f, a, 1, (const int64_t[]){a->size});
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

/* ------------------------------------------------------------------ */
/* take                                                                */
/* ------------------------------------------------------------------ */
nd_status nd_take(nd_array **out, const nd_array *a, const nd_array *indices, int axis, nd_take_mode mode)
{
    ND_PROF_OP("take", out, a, indices);
    static const char *fn = "nd_take";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if ((unsigned)mode > (unsigned)ND_TAKE_CLIP) return nd__err(ND_ERR_INVALID, fn, "invalid mode %d", (int)mode);
    const nd_backend *be;
    nd_status st = nd__ix_backend(fn, a->device, &be);
    if (st) return st;
    nd_array *idx = NULL, *av = NULL, *iflat = NULL, *iv = NULL, *ov = NULL;
    if ((st = nd__ix_indices(fn, "indices", indices, a->device, &idx))) return st;
    int ax = 0;
    if (axis == ND_AXIS_NONE || a->ndim == 0) {
        if (axis != ND_AXIS_NONE && (st = nd__ix_axis(fn, axis, 1, &ax))) goto fail;
        if ((st = flat_of(fn, a, &av))) goto fail;
    } else {
        if ((st = nd__ix_axis(fn, axis, a->ndim, &ax))) goto fail;
        av = nd_retain((nd_array *)a);
    }
    const int64_t n = av->shape[ax], K = idx->size;
    if (n == 0 && K > 0) {
        st = nd__err(ND_ERR_INVALID, fn, "cannot do a non-empty take from an empty axes.");
        goto fail;
    }
    int rnd = av->ndim - 1 + idx->ndim;
    if (rnd > ND_MAX_DIMS) {
        st = nd__err(ND_ERR_SHAPE, fn, "the result would have %d dimensions (maximum %d)", rnd, ND_MAX_DIMS);
        goto fail;
    }
    int64_t rshape[ND_MAX_DIMS];
    int r = 0;
    for (int d = 0; d < ax; d++) rshape[r++] = av->shape[d];
    for (int d = 0; d < idx->ndim; d++) rshape[r++] = idx->shape[d];
    for (int d = ax + 1; d < av->ndim; d++) rshape[r++] = av->shape[d];

    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, a->dtype, rnd, rshape, a->device))) goto fail;
    /* the indices are checked once the result exists: a result that cannot
     * be allocated fails at once, before a pass over every index */
    if (mode == ND_TAKE_RAISE && (st = nd__ix_check_range(fn, idx, n, ax))) goto done;
    const nd_array *ins[2] = {a, indices};
    if ((st = nd__out_target(&t, a->dtype, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 2, ins))) goto done;
    if (t.dst->size == 0) goto done;
    /* the kernel's view: (pre, K, post) for out and the indices */
    int64_t gshape[ND_MAX_DIMS], ostr[ND_MAX_DIMS], istr[ND_MAX_DIMS];
    for (int d = 0; d < av->ndim; d++) gshape[d] = d == ax ? K : av->shape[d];
    nd__contiguous_strides(av->ndim, gshape, ostr);
    if ((st = flat_of(fn, idx, &iflat))) goto done;
    for (int d = 0; d < av->ndim; d++) istr[d] = d == ax ? iflat->strides[0] : 0;
    if ((st = nd__view(&ov, t.dst, t.dst->dtype, av->ndim, gshape, ostr, t.dst->offset))) goto done;
    if ((st = nd__ix_view(&iv, iflat, av->ndim, gshape, istr))) goto done;
    st = be->gather(ov, av, iv, ax, (int)mode);
done:
    st = nd__out_end(&t, st);
fail:
    nd_release(ov);
    nd_release(iv);
    nd_release(iflat);
    nd_release(av);
    nd_release(idx);
    return st;
}

/* ------------------------------------------------------------------ */
/* along an axis                                                       */
/* ------------------------------------------------------------------ */
/* The index shape of take/put_along_axis: a and idx broadcast on every
 * axis but ax, where it is idx's extent. */
static nd_status along_shape(const char *fn, const nd_array *a, const nd_array *idx, int ax, int64_t *bshape)
{
    for (int d = 0; d < a->ndim; d++) {
        int64_t x = a->shape[d], y = idx->shape[d];
        if (d == ax) bshape[d] = y;
        else if (x == y || y == 1) bshape[d] = x;
        else if (x == 1) bshape[d] = y;
        else {
            char b1[400], b2[400];
            return nd__err(ND_ERR_SHAPE, fn, "shape mismatch: 'indices' of shape %s and 'a' of shape %s do not "
                           "broadcast on axis %d", nd__fmt_shape(b1, sizeof b1, idx->ndim, idx->shape),
                           nd__fmt_shape(b2, sizeof b2, a->ndim, a->shape), d);
        }
    }
    return ND_OK;
}

/* a (flattened for ND_AXIS_NONE) and the normalised axis; indices must
 * have a's ndim (1-D for ND_AXIS_NONE). */
static nd_status along_prepare(const char *fn, const nd_array *a, const nd_array *idx, int axis, nd_array **av,
                               int *ax)
{
    nd_status st;
    if (axis == ND_AXIS_NONE) {
        if (idx->ndim != 1)
            return nd__err(ND_ERR_SHAPE, fn, "when axis is ND_AXIS_NONE, 'indices' must have a single dimension "
                           "(it has %d)", idx->ndim);
        *ax = 0;
        return flat_of(fn, a, av);
    }
    if ((st = nd__ix_axis(fn, axis, a->ndim, ax))) return st;
    if (idx->ndim != a->ndim)
        return nd__err(ND_ERR_SHAPE, fn, "'indices' and 'a' must have the same number of dimensions (%d and %d)",
                       idx->ndim, a->ndim);
    *av = nd_retain((nd_array *)a);
    return ND_OK;
}

nd_status nd_take_along_axis(nd_array **out, const nd_array *a, const nd_array *indices, int axis)
{
    ND_PROF_OP("take_along_axis", out, a, indices);
    static const char *fn = "nd_take_along_axis";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    const nd_backend *be;
    nd_status st = nd__ix_backend(fn, a->device, &be);
    if (st) return st;
    nd_array *idx = NULL, *av = NULL, *ab = NULL, *ib = NULL;
    if ((st = nd__ix_indices(fn, "indices", indices, a->device, &idx))) return st;
    int ax;
    int64_t bshape[ND_MAX_DIMS], ashape[ND_MAX_DIMS];
    if ((st = along_prepare(fn, a, idx, axis, &av, &ax))) goto fail;
    if ((st = along_shape(fn, av, idx, ax, bshape))) goto fail;
    const int nd = av->ndim;
    if (av->shape[ax] == 0 && idx->size > 0) {
        st = nd__err(ND_ERR_INVALID, fn, "cannot do a non-empty take from an empty axes.");
        goto fail;
    }
    if ((st = nd__ix_check_range(fn, idx, av->shape[ax], ax))) goto fail;
    memcpy(ashape, bshape, sizeof ashape);
    ashape[ax] = av->shape[ax];
    if ((st = nd__broadcast_view(&ab, av, nd, ashape)) || (st = nd__broadcast_view(&ib, idx, nd, bshape))) {
        st = nd__err_prefix(st, fn);
        goto fail;
    }
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, a->dtype, nd, bshape, a->device))) goto fail;
    const nd_array *ins[2] = {a, indices};
    if (!(st = nd__out_target(&t, a->dtype, ND_OUT_EXACT_DTYPE, 2, ins)) && t.dst->size > 0)
        st = be->gather(t.dst, ab, ib, ax, ND_TAKE_RAISE);
    st = nd__out_end(&t, st);
fail:
    nd_release(ab);
    nd_release(ib);
    nd_release(av);
    nd_release(idx);
    return st;
}

/* values cast to a's dtype (unsafe, as NumPy's setitem), broadcast to
 * (ndim, shape), private from w (the written array). */
static nd_status values_for(const char *fn, const nd_array *values, const nd_array *w, nd_dtype dt, int ndim,
                            const int64_t *shape, nd_array **vb)
{
    nd_array *vc = NULL, *vp = NULL;
    nd_status st = nd__as_dtype(&vc, values, dt);
    if (!st) st = nd__ix_private(vc, w, &vp);
    if (st) {
        nd_release(vc);
        return nd__err_prefix(st, fn);
    }
    int ond;
    int64_t osh[ND_MAX_DIMS];
    st = nd__broadcast_shapes(fn, vp->ndim, vp->shape, ndim, shape, &ond, osh);
    bool ok = !st && ond == ndim;
    for (int d = 0; ok && d < ndim; d++) ok = osh[d] == shape[d];
    if (!ok) {
        char b1[400], b2[400];
        st = nd__err(ND_ERR_SHAPE, fn, "shape mismatch: value array of shape %s could not be broadcast to indexing "
                     "result of shape %s", nd__fmt_shape(b1, sizeof b1, vp->ndim, vp->shape),
                     nd__fmt_shape(b2, sizeof b2, ndim, shape));
    } else {
        st = nd__broadcast_view(vb, vp, ndim, shape);
        if (st) st = nd__err_prefix(st, fn);
    }
    nd_release(vc);
    nd_release(vp);
    return st;
}

nd_status nd_put_along_axis(nd_array *a, const nd_array *indices, const nd_array *values, int axis)
{
    ND_PROF_OP("put_along_axis", NULL, a, indices, values);
    static const char *fn = "nd_put_along_axis";
    nd_status st = check_target(fn, a);
    if (st) return st;
    ND_CHECK_PTR(fn, values, "values");
    if ((st = same_device(fn, values, "values", a->device))) return st;
    const nd_backend *be;
    if ((st = nd__ix_backend(fn, a->device, &be))) return st;
    nd_array *idx = NULL, *ip = NULL, *w = NULL, *ab = NULL, *ib = NULL, *vb = NULL;
    bool copied = false;
    if ((st = nd__ix_indices(fn, "indices", indices, a->device, &idx))) return st;
    int ax;
    int64_t bshape[ND_MAX_DIMS], ashape[ND_MAX_DIMS];
    if (axis == ND_AXIS_NONE) {
        if (idx->ndim != 1) {
            st = nd__err(ND_ERR_SHAPE, fn, "when axis is ND_AXIS_NONE, 'indices' must have a single dimension (it "
                         "has %d)", idx->ndim);
            goto fail;
        }
        ax = 0;
        if ((st = nd__ix_reshape_for_write(fn, a, 1, (const int64_t[]){a->size}, &w, &copied))) goto fail;
    } else {
        if ((st = along_prepare(fn, a, idx, axis, &w, &ax))) goto fail;
    }
    if ((st = along_shape(fn, w, idx, ax, bshape))) goto fail;
    const int nd = w->ndim;
    if ((st = nd__ix_check_range(fn, idx, w->shape[ax], ax))) goto fail;
    if ((st = values_for(fn, values, a, a->dtype, nd, bshape, &vb))) goto fail;
    if ((st = nd__ix_private(idx, a, &ip))) goto fail;
    memcpy(ashape, bshape, sizeof ashape);
    ashape[ax] = w->shape[ax];
    if ((st = nd__broadcast_view(&ab, w, nd, ashape)) || (st = nd__broadcast_view(&ib, ip, nd, bshape))) {
        st = nd__err_prefix(st, fn);
        goto fail;
    }
    if (ib->size > 0 && (st = be->scatter(ab, ib, vb, ax, ND_TAKE_RAISE, ND_SCATTER_ASSIGN))) goto fail;
    st = nd__ix_writeback(fn, a, w, copied);
fail:
    nd_release(ab);
    nd_release(ib);
    nd_release(vb);
    nd_release(ip);
    nd_release(w);
    nd_release(idx);
    return st;
}

/* ------------------------------------------------------------------ */
/* put                                                                 */
/* ------------------------------------------------------------------ */
/* values (flattened, cast) repeated cyclically to K elements (NumPy's put). */
static nd_status cycled(const char *fn, const nd_array *values, const nd_array *a, int64_t K, nd_array **vk)
{
    nd_array *vc = NULL, *vf = NULL, *vb = NULL, *vr = NULL, *vp = NULL;
    nd_status st = nd__as_dtype(&vc, values, a->dtype);
    if (!st) st = nd_reshape(&vp, vc, 1, (const int64_t[]){vc->size});
    if (!st) st = nd__ix_private(vp, a, &vf);
    nd_release(vp);
    int64_t V = vf ? vf->size : 0;
    if (!st && V == K) *vk = nd_retain(vf);
    else if (!st && V == 1) st = nd__broadcast_view(vk, vf, 1, (const int64_t[]){K});
    else if (!st) {
        int64_t reps = (K + V - 1) / V;
        nd_array *v2 = NULL;
        st = nd_reshape(&v2, vf, 2, (const int64_t[]){1, V});
        if (!st) st = nd_broadcast_to(&vb, v2, 2, (const int64_t[]){reps, V});
        nd_release(v2);
        if (!st) st = nd_reshape(&vr, vb, 1, (const int64_t[]){reps * V}); /* a copy */
        if (!st) st = nd_slice(vk, vr, 1, &(nd_range){0, K, 1});
    }
    nd_release(vc);
    nd_release(vf);
    nd_release(vb);
    nd_release(vr);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd_put(nd_array *a, const nd_array *indices, const nd_array *values, nd_take_mode mode)
{
    ND_PROF_OP("put", NULL, a, indices, values);
    static const char *fn = "nd_put";
    nd_status st = check_target(fn, a);
    if (st) return st;
    ND_CHECK_PTR(fn, values, "values");
    if ((st = same_device(fn, values, "values", a->device))) return st;
    if ((unsigned)mode > (unsigned)ND_TAKE_CLIP) return nd__err(ND_ERR_INVALID, fn, "invalid mode %d", (int)mode);
    const nd_backend *be;
    if ((st = nd__ix_backend(fn, a->device, &be))) return st;
    nd_array *idx = NULL, *iflat = NULL, *ip = NULL, *w = NULL, *vk = NULL;
    bool copied = false;
    if ((st = nd__ix_indices(fn, "indices", indices, a->device, &idx))) return st;
    const int64_t N = a->size, K = idx->size;
    if (K == 0 || values->size == 0) goto fail; /* NumPy: nothing to do */
    if (mode == ND_TAKE_RAISE && (st = nd__ix_check_range(fn, idx, N, 0))) goto fail;
    if (N == 0) {
        st = nd__err(ND_ERR_INVALID, fn, "cannot replace elements of an empty array");
        goto fail;
    }
    if ((st = flat_of(fn, idx, &iflat)) || (st = nd__ix_private(iflat, a, &ip))) goto fail;
    if ((st = cycled(fn, values, a, K, &vk))) goto fail;
    if ((st = nd__ix_reshape_for_write(fn, a, 1, (const int64_t[]){N}, &w, &copied))) goto fail;
    if ((st = be->scatter(w, ip, vk, 0, (int)mode, ND_SCATTER_ASSIGN))) goto fail;
    st = nd__ix_writeback(fn, a, w, copied);
fail:
    nd_release(vk);
    nd_release(w);
    nd_release(ip);
    nd_release(iflat);
    nd_release(idx);
    return st;
}
