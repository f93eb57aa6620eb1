/*
 * Selection ops: nd_where (cond ? x : y) and nd_clip / nd_clip_scalar
 * (minimum(maximum(a, lo), hi), NumPy's clip).
 */
#include <string.h>

#include "elementwise/elementwise.h"
#include "core/prof.h"

/* ------------------------------------------------------------------ */
/* where                                                               */
/* ------------------------------------------------------------------ */
nd_status nd_where(nd_array **out, const nd_array *cond, const nd_array *x, const nd_array *y)
{
    ND_PROF_OP("where", out, cond, x, y);
    static const char *func = "nd_where";
    ND_CHECK_PTR(func, out, "out");
    ND_CHECK_PTR(func, cond, "cond");
    ND_CHECK_PTR(func, x, "x");
    ND_CHECK_PTR(func, y, "y");
    nd_status st;
    if ((st = nd__ew_same_device(func, cond, "cond", x, "x"))) return st;
    if ((st = nd__ew_same_device(func, x, "x", y, "y"))) return st;
    const nd_backend *be = NULL;
    if ((st = nd__ew_backend(func, x->device, &be))) return st;
    nd_dtype dt;
    if ((st = nd_result_type(&dt, x->dtype, y->dtype))) return nd__err_prefix(st, func);
    int nd1, ndim;
    int64_t s1[ND_MAX_DIMS], shape[ND_MAX_DIMS];
    if ((st = nd__broadcast_shapes(func, cond->ndim, cond->shape, x->ndim, x->shape, &nd1, s1))) return st;
    if ((st = nd__broadcast_shapes(func, nd1, s1, y->ndim, y->shape, &ndim, shape))) return st;
    nd_out t;
    if ((st = nd__out_begin(&t, func, out, dt, ndim, shape, x->device))) return st;
    nd__out_keep_order(&t, 3, (const nd_array *const[]){cond, x, y});
    nd_array *cc = NULL, *cx = NULL, *cy = NULL;
    const nd_array *v[3];
    if ((st = nd__ew_input(func, cond, ND_BOOL, ndim, shape, &cc, &v[0]))) goto done;
    if ((st = nd__ew_input(func, x, dt, ndim, shape, &cx, &v[1]))) goto done;
    if ((st = nd__ew_input(func, y, dt, ndim, shape, &cy, &v[2]))) goto done;
    if ((st = nd__out_target(&t, dt, ND_OUT_EXACT_DTYPE | ND_OUT_ELEMENTWISE, 3, v))) goto done;
    st = be->where(t.dst, v[0], v[1], v[2]);
done:
    nd_release(cy);
    nd_release(cx);
    nd_release(cc);
    return nd__out_end(&t, st);
}

/* ------------------------------------------------------------------ */
/* clip                                                                */
/* ------------------------------------------------------------------ */
/* Check a user 'out' against the final result before anything runs, so
 * that a failure leaves it untouched. */
static nd_status check_out(const char *func, nd_array **out, nd_dtype dt, int ndim, const int64_t *shape, nd_device dev)
{
    return *out == NULL ? ND_OK : nd__out_check(func, *out, dt, ndim, shape, dev);
}

nd_status nd_clip(nd_array **out, const nd_array *a, const nd_array *lo, const nd_array *hi)
{
    if (nd__no_complex("nd_clip", a, "a")) return ND_ERR_DTYPE; /* no complex loops yet */
    ND_PROF_OP("clip", out, a, lo, hi);
    static const char *func = "nd_clip";
    ND_CHECK_PTR(func, out, "out");
    ND_CHECK_PTR(func, a, "a");
    if (lo == NULL && hi == NULL) return nd__err(ND_ERR_INVALID, func, "at least one of 'lo' and 'hi' must be given");
    nd_status st;
    if (lo && (st = nd__ew_same_device(func, a, "a", lo, "lo"))) return st;
    if (hi && (st = nd__ew_same_device(func, a, "a", hi, "hi"))) return st;
    nd_dtype t1 = a->dtype, dt;
    if (lo && (st = nd_result_type(&t1, a->dtype, lo->dtype))) return nd__err_prefix(st, func);
    dt = t1;
    if (hi && (st = nd_result_type(&dt, t1, hi->dtype))) return nd__err_prefix(st, func);
    /* the broadcast shape of a, lo and hi; nd__broadcast_shapes writes its
     * result right-aligned, so its input must not be the same buffer (a
     * bound with more dimensions than a was mis-broadcast: (3,2) with a
     * (4,3,2) bound gave "shapes (4,2) and (4,3,2)") */
    int ndim = a->ndim, nd2;
    int64_t shape[ND_MAX_DIMS], s2[ND_MAX_DIMS];
    for (int i = 0; i < a->ndim; i++) shape[i] = a->shape[i];
    if (lo) {
        if ((st = nd__broadcast_shapes(func, ndim, shape, lo->ndim, lo->shape, &nd2, s2))) return st;
        ndim = nd2, memcpy(shape, s2, sizeof(int64_t) * (size_t)ndim);
    }
    if (hi) {
        if ((st = nd__broadcast_shapes(func, ndim, shape, hi->ndim, hi->shape, &nd2, s2))) return st;
        ndim = nd2, memcpy(shape, s2, sizeof(int64_t) * (size_t)ndim);
    }
    if ((st = check_out(func, out, dt, ndim, shape, a->device))) return st;

    if (!hi) return nd__ew_binary(func, false, out, ND_BINARY_MAXIMUM, a, lo, t1);
    if (!lo) return nd__ew_binary(func, false, out, ND_BINARY_MINIMUM, a, hi, dt);
    nd_array *tmp = NULL;
    if ((st = nd__ew_binary(func, false, &tmp, ND_BINARY_MAXIMUM, a, lo, t1))) return st;
    st = nd__ew_binary(func, false, out, ND_BINARY_MINIMUM, tmp, hi, dt);
    nd_release(tmp);
    return st;
}

/* NumPy 2 accepts an out-of-range Python integer bound that clips nothing
 * (lo below the dtype's minimum, hi above its maximum) and rejects one that
 * would need a value the dtype cannot hold. */
static nd_status fit_bound(const char *func, nd_scalar *s, nd_dtype t, bool is_lo)
{
    if (s->kind != ND_SCALAR_INT || !nd__is_integer(t) || nd__scalar_fits(*s, t)) return ND_OK;
    if (is_lo ? s->v.i < 0 : s->v.i > 0) {
        *s = nd_scalar_none();
        return ND_OK;
    }
    return nd__ew_out_of_bounds(func, *s, t);
}

nd_status nd_clip_scalar(nd_array **out, const nd_array *a, nd_scalar lo, nd_scalar hi)
{
    if (nd__no_complex("nd_clip_scalar", a, "a")) return ND_ERR_DTYPE; /* no complex loops yet */
    ND_PROF_OP("clip", out, a);
    static const char *func = "nd_clip_scalar";
    ND_CHECK_PTR(func, out, "out");
    ND_CHECK_PTR(func, a, "a");
    nd_status st;
    if (lo.kind == ND_SCALAR_COMPLEX || hi.kind == ND_SCALAR_COMPLEX)
        return nd__err(ND_ERR_DTYPE, func, "complex bounds: complex numbers have no order");
    if (lo.kind != ND_SCALAR_NONE && (st = nd__ew_check_scalar(func, lo, "lo"))) return st;
    if (hi.kind != ND_SCALAR_NONE && (st = nd__ew_check_scalar(func, hi, "hi"))) return st;
    if (lo.kind == ND_SCALAR_NONE && hi.kind == ND_SCALAR_NONE)
        return nd__err(ND_ERR_INVALID, func, "at least one of 'lo' and 'hi' must be given");
    nd_dtype dt = nd__promote_weak(nd__promote_weak(a->dtype, lo.kind), hi.kind);
    if ((st = fit_bound(func, &hi, dt, false))) return st;
    if ((st = fit_bound(func, &lo, dt, true))) return st;
    if ((st = check_out(func, out, dt, a->ndim, a->shape, a->device))) return st;

    /* The result dtype depends on both bounds (uint8 with -1 and 100.5 is
     * float64): compute in it from the start, so that neither step sees a
     * bound that only the other one's promotion makes representable. */
    nd_array *ac = NULL, *tmp = NULL;
    if (dt != a->dtype && (st = nd__as_dtype(&ac, a, dt))) return nd__err_prefix(st, func);
    const nd_array *src = ac ? ac : a;
    if (lo.kind == ND_SCALAR_NONE && hi.kind == ND_SCALAR_NONE) /* integer bounds that clip nothing: a copy; */
        st = nd__ew_binary(func, false, out, ND_BINARY_MAXIMUM, src, src, dt); /* max(a, a) == a for integers */
    else if (hi.kind == ND_SCALAR_NONE)
        st = nd__ew_scalar(func, out, ND_BINARY_MAXIMUM, src, lo, false);
    else if (lo.kind == ND_SCALAR_NONE)
        st = nd__ew_scalar(func, out, ND_BINARY_MINIMUM, src, hi, false);
    else if ((st = nd__ew_scalar(func, &tmp, ND_BINARY_MAXIMUM, src, lo, false)) == ND_OK)
        st = nd__ew_scalar(func, out, ND_BINARY_MINIMUM, tmp, hi, false);
    nd_release(tmp);
    nd_release(ac);
    return st;
}
