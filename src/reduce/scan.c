/*
 * Scans: nd_cumsum, nd_cumprod (with an explicit accumulation dtype:
 * nd_cumsum_dtype, nd_cumprod_dtype), nd_cummax, nd_cummin (NumPy's
 * np.maximum.accumulate / np.minimum.accumulate) and nd_diff.
 *
 * The core validates, computes the result shape and dtype, applies the out
 * rule and hands the backend (nd_backend.scan, contract in src/shared/scan_slots.h) a
 * C-contiguous input of the ACCUMULATION dtype seen as (outer, n, inner):
 *   bool, signed ints         -> int64 (sums and products wrap as NumPy's)
 *   unsigned ints             -> uint64
 *   float16, bfloat16, float32 -> float32
 *   float64                   -> float64
 * (max/min use the same types: they hold every input value exactly, so
 * the result converts back without rounding). A contiguous input that
 * already has the accumulation dtype is read in place; anything else is
 * converted into one temporary first (a copy in C order: no axis is moved).
 * The scanned axis is the middle one: outer = product of the extents
 * before it, inner = product after it; ND_AXIS_NONE scans the flattened
 * array (outer = inner = 1).
 *
 * float16/bfloat16 sums and products accumulate in float32 and each
 * output element is rounded to float16/bfloat16 once; NumPy's loops round
 * every partial sum to float16, so long float16 cumsums differ from
 * NumPy's (ours are the more accurate ones: the error stays at one
 * rounding of the float32 running value).
 *
 * complex64/complex128: cumsum and cumprod are compositions
 * (scan_cpx below), cummax/cummin refuse complex.
 *
 * nd_diff is a composition: slices + nd_subtract (nd_not_equal for bool),
 * n times, with prepend/append joined by nd_concatenate.
 */
#include <string.h>

#include "elementwise/elementwise.h"
#include "core/internal.h"
#include "core/out.h"
#include "shared/scan_slots.h"
#include "core/prof.h"

/* The accumulation dtype of a scan over values of dtype t. */
static nd_dtype scan_acc(nd_dtype t)
{
    switch (nd__kind(t)) {
    case ND_KIND_BOOL:
    case ND_KIND_INT: return ND_INT64;
    case ND_KIND_UINT: return ND_UINT64;
    default: return t == ND_FLOAT64 ? ND_FLOAT64 : ND_FLOAT32;
    }
}

/* NumPy's result dtype of cumsum/cumprod (max/min keep the dtype). */
static nd_dtype scan_result(int op, nd_dtype t)
{
    if (op == ND_SC_MAX || op == ND_SC_MIN) return t;
    switch (nd__kind(t)) {
    case ND_KIND_BOOL:
    case ND_KIND_INT: return ND_INT64;
    case ND_KIND_UINT: return ND_UINT64;
    default: return t;
    }
}

static const char *const scan_names[4] = {"cumsum", "cumprod", "cummax", "cummin"}; /* profiler names */

/* A view of z with axis ax restricted to [lo, hi). */
static nd_status axis_range(nd_array **v, const nd_array *z, int ax, int64_t lo, int64_t hi)
{
    nd_range r[ND_MAX_DIMS];
    for (int k = 0; k < ax; k++) r[k] = ND_ALL;
    r[ax] = (nd_range){lo, hi, 1};
    return nd_slice(v, z, ax + 1, r);
}

/* cumsum / cumprod of complex, composed so that every backend
 * has it: cumsum scans the real and imaginary parts (views) into the
 * parts of the result; cumprod is a Hillis-Steele scan of complex
 * multiplies (log2(n) passes, each r[d:] *= r[:-d] through a temporary),
 * its rounding that of a product tree rather than NumPy's left-to-right
 * loop. x is the input already in the complex result dtype rdt, at least
 * 1-d; ax is valid. */
static nd_status scan_cpx(const char *fn, nd_array **out, int op, const nd_array *x, int ax, nd_dtype rdt)
{
    nd_out t;
    nd_status st = nd__out_begin(&t, fn, out, rdt, x->ndim, x->shape, x->device);
    if (st) return st;
    nd__out_keep_order(&t, 1, &x);
    nd_array *xr = NULL, *xi = NULL, *dr = NULL, *di = NULL, *lo = NULL, *hi = NULL, *tmp = NULL;
    if ((st = nd__out_target(&t, rdt, ND_OUT_EXACT_DTYPE, 1, &x))) goto done;
    if (x->size == 0) goto done;
    nd_array *d = t.dst;
    if (op == ND_SC_SUM) {
        if ((st = nd__cpx_part(&xr, x, 0)) || (st = nd__cpx_part(&xi, x, 1)) || (st = nd__cpx_part(&dr, d, 0)) ||
            (st = nd__cpx_part(&di, d, 1)))
            goto done;
        nd_array *r0 = dr, *r1 = di;
        if ((st = nd_cumsum(&r0, xr, ax)) || (st = nd_cumsum(&r1, xi, ax))) st = nd__err_prefix(st, fn);
        goto done;
    }
    if ((st = nd__copy_into(d, x))) goto done;
    const int64_t n = x->shape[ax];
    for (int64_t s = 1; s < n; s *= 2) {
        if ((st = axis_range(&hi, d, ax, s, n)) || (st = axis_range(&lo, d, ax, 0, n - s))) goto done;
        if ((st = nd_multiply(&tmp, hi, lo))) {
            st = nd__err_prefix(st, fn);
            goto done;
        }
        if ((st = nd__copy_into(hi, tmp))) goto done;
        nd_release(hi), nd_release(lo), nd_release(tmp);
        hi = lo = tmp = NULL;
    }
done:
    nd_release(xr), nd_release(xi), nd_release(dr), nd_release(di), nd_release(hi), nd_release(lo), nd_release(tmp);
    return nd__out_end(&t, st);
}

static nd_status scan_impl(const char *fn, nd_array **out, int op, const nd_array *a, int axis, bool has_dtype,
                           nd_dtype dtype);

/* Complex input or a complex dtype: cumsum/cumprod through scan_cpx (the
 * input cast to the complex dtype, flattened for ND_AXIS_NONE, a 0-d one
 * seen as 1-d as NumPy does); a real dtype takes the real parts (NumPy's
 * cast, which warns) and scans them as reals; cummax/cummin refuse it
 * (no ordering of complex numbers here). */
static nd_status scan_complex_entry(const char *fn, nd_array **out, int op, const nd_array *a, int axis,
                                    bool has_dtype, nd_dtype dtype)
{
    if (op == ND_SC_MAX || op == ND_SC_MIN)
        return nd__err(ND_ERR_DTYPE, fn, "'a' is %s: complex numbers have no order here (see nd_real/nd_abs)",
                       nd_dtype_name(a->dtype));
    nd_array *x = NULL, *c = NULL;
    nd_status st;
    if (has_dtype && !nd__is_complex(dtype)) { /* the real parts, then a real scan */
        if ((st = nd__as_dtype(&c, a, dtype))) return nd__err_prefix(st, fn);
        st = scan_impl(fn, out, op, c, axis, true, dtype); /* the result has dtype (bool: or / and) */
        nd_release(c);
        return st;
    }
    const nd_dtype rdt = has_dtype ? dtype : a->dtype;
    int ax = axis;
    if (axis == ND_AXIS_NONE || a->ndim == 0) {
        if (a->ndim == 0 && axis != ND_AXIS_NONE && axis != 0 && axis != -1)
            return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension 1", axis);
        const int64_t n = a->size;
        if ((st = nd_reshape(&x, a, 1, &n))) return nd__err_prefix(st, fn);
        ax = 0;
    } else {
        if (axis < -a->ndim || axis >= a->ndim)
            return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", axis, a->ndim);
        ax = axis < 0 ? axis + a->ndim : axis;
        x = nd_retain((nd_array *)a);
    }
    if (x->dtype != rdt) {
        st = nd__as_dtype(&c, x, rdt);
        nd_release(x);
        if (st) return nd__err_prefix(st, fn);
        x = c;
    }
    st = scan_cpx(fn, out, op, x, ax, rdt);
    nd_release(x);
    return st;
}

static nd_status scan_impl(const char *fn, nd_array **out, int op, const nd_array *a, int axis, bool has_dtype,
                           nd_dtype dtype)
{
    ND_PROF_OP(scan_names[op & 3], out, a);
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (!nd__dtype_valid(a->dtype)) return nd__err(ND_ERR_DTYPE, fn, "array 'a' has an invalid dtype %d", (int)a->dtype);
    if (has_dtype && !nd__dtype_valid(dtype)) return nd__err(ND_ERR_DTYPE, fn, "invalid dtype %d", (int)dtype);
    if (nd__is_complex(a->dtype) || (has_dtype && nd__is_complex(dtype)))
        return scan_complex_entry(fn, out, op, a, axis, has_dtype, dtype);

    /* geometry */
    int rnd;
    int64_t rshape[ND_MAX_DIMS], outer = 1, n, inner = 1;
    if (axis == ND_AXIS_NONE) {
        rnd = 1;
        rshape[0] = n = a->size;
    } else if (a->ndim == 0) {
        /* NumPy's cumsum sees a 0-d array as 1-d; ufunc.accumulate refuses it */
        if (op == ND_SC_MAX || op == ND_SC_MIN)
            return nd__err(ND_ERR_INVALID, fn, "cannot accumulate on a scalar (pass axis = ND_AXIS_NONE)");
        if (axis != 0 && axis != -1)
            return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension 1", axis);
        rnd = 1;
        rshape[0] = n = 1;
    } else {
        if (axis < -a->ndim || axis >= a->ndim)
            return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", axis, a->ndim);
        int ax = axis < 0 ? axis + a->ndim : axis;
        rnd = a->ndim;
        memcpy(rshape, a->shape, sizeof(int64_t) * (size_t)rnd);
        for (int i = 0; i < ax; i++) outer *= a->shape[i];
        n = a->shape[ax];
        for (int i = ax + 1; i < a->ndim; i++) inner *= a->shape[i];
    }

    const nd_dtype src = has_dtype ? dtype : a->dtype; /* the values scanned */
    const nd_dtype rdt = has_dtype ? dtype : scan_result(op, a->dtype);
    const nd_dtype acc = scan_acc(src);
    const nd_backend *be = nd__backend(a->device);
    if (!be || !be->scan) return nd__err(ND_ERR_UNSUPPORTED, fn, "no scan backend for this device");

    nd_out t;
    nd_status st = nd__out_begin(&t, fn, out, rdt, rnd, rshape, a->device);
    if (st) return st;
    nd_array *x = NULL, *in = NULL;
    if (a->size == 0) goto done;
    /* the input in the accumulation dtype, C-contiguous: through the
     * requested dtype first when it is neither (np.cumsum(f, dtype=int32)
     * truncates every element before summing) */
    if (src != a->dtype && src != acc) {
        if ((st = nd__as_dtype(&x, a, src))) goto done;
    } else {
        x = nd_retain((nd_array *)a);
    }
    if (x->dtype == acc && nd_is_contiguous(x)) {
        in = nd_retain(x);
    } else {
        if ((st = nd__alloc(&in, acc, x->ndim, x->shape, x->device))) goto done;
        if ((st = nd__copy_into(in, x))) goto done;
    }
    /* The scan may run in place (out exactly its input: every element is
     * read before it is written), which ND_OUT_ELEMENTWISE allows; any
     * other overlap takes a temporary. */
    if ((st = nd__out_target(&t, acc, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS | ND_OUT_ELEMENTWISE, 1,
                             (const nd_array *const *)&in)))
        goto done;
    st = be->scan(op, t.dst, in, outer, n, inner);
done:
    nd_release(in);
    nd_release(x);
    return nd__out_end(&t, st);
}

nd_status nd_cumsum(nd_array **out, const nd_array *a, int axis)
{
    return scan_impl("nd_cumsum", out, ND_SC_SUM, a, axis, false, ND_BOOL);
}
nd_status nd_cumprod(nd_array **out, const nd_array *a, int axis)
{
    return scan_impl("nd_cumprod", out, ND_SC_PROD, a, axis, false, ND_BOOL);
}
nd_status nd_cumsum_dtype(nd_array **out, const nd_array *a, int axis, nd_dtype dtype)
{
    return scan_impl("nd_cumsum_dtype", out, ND_SC_SUM, a, axis, true, dtype);
}
nd_status nd_cumprod_dtype(nd_array **out, const nd_array *a, int axis, nd_dtype dtype)
{
    return scan_impl("nd_cumprod_dtype", out, ND_SC_PROD, a, axis, true, dtype);
}
nd_status nd_cummax(nd_array **out, const nd_array *a, int axis)
{
    return scan_impl("nd_cummax", out, ND_SC_MAX, a, axis, false, ND_BOOL);
}
nd_status nd_cummin(nd_array **out, const nd_array *a, int axis)
{
    return scan_impl("nd_cummin", out, ND_SC_MIN, a, axis, false, ND_BOOL);
}

/* ------------------------------------------------------------------ */
/* diff                                                                */
/* ------------------------------------------------------------------ */
/* a 0-d prepend/append broadcast to a's shape with extent 1 along ax (NumPy) */
static nd_status diff_edge(nd_array **res, const nd_array *e, const nd_array *a, int ax)
{
    if (e->ndim > 0) {
        *res = nd_retain((nd_array *)e);
        return ND_OK;
    }
    int64_t shape[ND_MAX_DIMS];
    memcpy(shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
    shape[ax] = 1;
    return nd__broadcast_view(res, e, a->ndim, shape);
}

nd_status nd_diff(nd_array **out, const nd_array *a, int n, int axis, const nd_array *prepend, const nd_array *append)
{
    ND_PROF_OP("diff", out, a, prepend, append);
    static const char *fn = "nd_diff";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (n < 0) return nd__err(ND_ERR_INVALID, fn, "order must be non-negative but got %d", n);
    if (n == 0) { /* NumPy returns a itself before it looks at ndim, axis, prepend or append */
        nd_array *r = nd_retain((nd_array *)a);
        return nd__out_deliver(fn, out, &r, a->dtype, 0);
    }
    if (a->ndim == 0) return nd__err(ND_ERR_INVALID, fn, "diff requires input that is at least one dimensional");
    if (axis < -a->ndim || axis >= a->ndim)
        return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", axis, a->ndim);
    const int ax = axis < 0 ? axis + a->ndim : axis;

    nd_status st = ND_OK;
    nd_array *x = NULL, *parts[3] = {NULL, NULL, NULL};
    if (prepend || append) {
        int np = 0;
        if (prepend && (st = diff_edge(&parts[np++], prepend, a, ax))) goto fail;
        parts[np++] = nd_retain((nd_array *)a);
        if (append && (st = diff_edge(&parts[np++], append, a, ax))) goto fail;
        if ((st = nd_concatenate(&x, np, (const nd_array *const *)parts, ax))) {
            nd__err_prefix(st, fn);
            goto fail;
        }
    } else {
        x = nd_retain((nd_array *)a);
    }
    for (int k = 0; k < n; k++) {
        nd_range r[ND_MAX_DIMS];
        for (int i = 0; i < x->ndim; i++) r[i] = ND_ALL;
        nd_array *hi = NULL, *lo = NULL, *y = NULL;
        r[ax] = (nd_range){1, ND_NONE, 1};
        st = nd_slice(&hi, x, x->ndim, r);
        r[ax] = (nd_range){ND_NONE, -1, 1};
        if (!st) st = nd_slice(&lo, x, x->ndim, r);
        /* the last step writes the result (the out rule of nd_binary) */
        nd_array **dst = k == n - 1 ? out : &y;
        if (!st) st = (x->dtype == ND_BOOL ? nd_not_equal : nd_subtract)(dst, hi, lo);
        nd_release(hi);
        nd_release(lo);
        if (st) {
            nd__err_prefix(st, fn);
            goto fail;
        }
        nd_release(x);
        x = y;
        if (x == NULL) break;
    }
fail:
    nd_release(x);
    for (int i = 0; i < 3; i++) nd_release(parts[i]);
    return st;
}
