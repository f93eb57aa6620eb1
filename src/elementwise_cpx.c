/* Complex elementwise ops (issue 17), composed from the real ops on views
 * of the parts, so that they run unchanged on every backend:
 *
 *   the pair view   a complex array of shape S as a real array of shape
 *                   S + (2,) (the parts, interleaved as stored): negation,
 *                   addition and subtraction are the real ops on it;
 *   the part views  re(z), im(z): shape S, twice the strides, the imaginary
 *                   part one float further (NumPy's .real / .imag).
 *
 * What is here: negative, positive, conjugate, absolute (hypot of the
 * parts, the real dtype), square, isnan / isinf / isfinite (NumPy: either
 * part / both parts), add, subtract, multiply (the schoolbook formula
 * (ar br - ai bi, ar bi + ai br), each product rounded once, as NumPy's
 * scalar loop), equal and not_equal (both parts). Every other op refuses
 * complex with ND_ERR_DTYPE (the message names the op and the dtype).
 *
 * This is the correctness layer: each op is several passes over memory
 * (multiply: six). Native complex loops in the op table ('C' in its kinds
 * column, shared ND_HOSTDEV bodies) are what makes them fast, and the
 * special values of C99 Annex G for the transcendental functions come with
 * those; both are still to do (issue 17). */
#include <string.h>

#include "elementwise.h"
#include "out.h"

/* The parts of complex z: which = 0 real, 1 imaginary (a view of z). */
nd_status nd__cpx_part(nd_array **v, const nd_array *z, int which)
{
    int64_t st[ND_MAX_DIMS];
    for (int d = 0; d < z->ndim; d++) st[d] = 2 * z->strides[d];
    nd_dtype rt = nd__real_of(z->dtype);
    return nd__view(v, z, rt, z->ndim, z->shape, st, z->offset + (which ? (int64_t)nd__itemsize(rt) : 0));
}

/* z (complex, shape S) as a real array of shape S + (2,). */
static nd_status pair_view(const char *func, nd_array **v, const nd_array *z)
{
    if (z->ndim + 1 > ND_MAX_DIMS)
        return nd__err(ND_ERR_UNSUPPORTED, func, "complex ops on %d-dimensional arrays (at most %d dimensions here)",
                       z->ndim, ND_MAX_DIMS - 1);
    int64_t sh[ND_MAX_DIMS], st[ND_MAX_DIMS];
    for (int d = 0; d < z->ndim; d++) sh[d] = z->shape[d], st[d] = 2 * z->strides[d];
    sh[z->ndim] = 2, st[z->ndim] = 1;
    return nd__view(v, z, nd__real_of(z->dtype), z->ndim + 1, sh, st, z->offset);
}

static bool unary_supported(nd_unary_op op)
{
    switch (op) {
    case ND_UNARY_NEG:
    case ND_UNARY_POSITIVE:
    case ND_UNARY_CONJUGATE:
    case ND_UNARY_ABS:
    case ND_UNARY_SQUARE:
    case ND_UNARY_ISNAN:
    case ND_UNARY_ISINF:
    case ND_UNARY_ISFINITE: return true;
    default: return false;
    }
}

static bool binary_supported(nd_binary_op op)
{
    switch (op) {
    case ND_BINARY_ADD:
    case ND_BINARY_SUBTRACT:
    case ND_BINARY_MULTIPLY:
    case ND_BINARY_EQUAL:
    case ND_BINARY_NOT_EQUAL: return true;
    default: return false;
    }
}

static nd_status refuse(const char *func, const char *opname, nd_dtype t)
{
    return nd__err(ND_ERR_DTYPE, func, "op '%s' has no loop for dtype %s (complex: not yet, issue 17)", opname,
                   nd_dtype_name(t));
}

/* dst (real, shape S) = op(x, y) with x, y real arrays broadcasting to S;
 * a failure's message is prefixed by func. */
static nd_status into(const char *func, nd_array *dst, nd_binary_op op, const nd_array *x, const nd_array *y)
{
    nd_array *d = dst;
    nd_status st = nd_binary(&d, op, x, y);
    return st ? nd__err_prefix(st, func) : ND_OK;
}

/* dst = x * y (complex, dst shaped like the broadcast of x and y), every
 * array already of dst's dtype. */
static nd_status cmul(const char *func, nd_array *dst, const nd_array *x, const nd_array *y)
{
    nd_array *xr = NULL, *xi = NULL, *yr = NULL, *yi = NULL, *dr = NULL, *di = NULL, *p = NULL, *q = NULL;
    nd_status st;
    if ((st = nd__cpx_part(&xr, x, 0)) || (st = nd__cpx_part(&xi, x, 1)) || (st = nd__cpx_part(&yr, y, 0)) ||
        (st = nd__cpx_part(&yi, y, 1)) || (st = nd__cpx_part(&dr, dst, 0)) || (st = nd__cpx_part(&di, dst, 1)))
        goto done;
    /* the imaginary part needs the inputs' real parts after the real part
     * is written: both products first (dst may be x or y) */
    if ((st = nd_multiply(&p, xr, yr)) || (st = nd_multiply(&q, xi, yi))) goto done;
    nd_array *p2 = NULL, *q2 = NULL;
    if ((st = nd_multiply(&p2, xr, yi)) || (st = nd_multiply(&q2, xi, yr))) {
        nd_release(p2);
        goto done;
    }
    if ((st = into(func, dr, ND_BINARY_SUBTRACT, p, q)) == ND_OK) st = into(func, di, ND_BINARY_ADD, p2, q2);
    nd_release(p2);
    nd_release(q2);
done:
    if (st && st != ND_ERR_NOMEM) st = nd__err_prefix(st, func);
    nd_release(xr), nd_release(xi), nd_release(yr), nd_release(yi), nd_release(dr), nd_release(di);
    nd_release(p), nd_release(q);
    return st;
}

nd_status nd__cpx_unary(const char *func, nd_array **out, nd_unary_op op, const char *opname, const nd_array *a)
{
    if (!unary_supported(op)) return refuse(func, opname, a->dtype);
    const nd_dtype rt = nd__real_of(a->dtype);
    const bool to_bool = op == ND_UNARY_ISNAN || op == ND_UNARY_ISINF || op == ND_UNARY_ISFINITE;
    const nd_dtype res = to_bool ? ND_BOOL : op == ND_UNARY_ABS ? rt : a->dtype;
    nd_out t;
    nd_status st = nd__out_begin(&t, func, out, res, a->ndim, a->shape, a->device);
    if (st) return st;
    nd__out_keep_order(&t, 1, &a);
    nd_array *re = NULL, *im = NULL, *x = NULL, *y = NULL, *pd = NULL, *pa = NULL;
    if ((st = nd__out_target(&t, res, ND_OUT_EXACT_DTYPE, 1, &a))) goto done;
    nd_array *d = t.dst;
    switch (op) {
    case ND_UNARY_NEG:
        if (!(st = pair_view(func, &pd, d)) && !(st = pair_view(func, &pa, a)) && (st = nd_negative(&pd, pa)))
            st = nd__err_prefix(st, func);
        break;
    case ND_UNARY_POSITIVE:
    case ND_UNARY_CONJUGATE:
        if ((st = nd__copy_into(d, a))) break;
        if (op == ND_UNARY_CONJUGATE && !(st = nd__cpx_part(&im, d, 1)) && (st = nd_negative(&im, im)))
            st = nd__err_prefix(st, func);
        break;
    case ND_UNARY_ABS:
        if (!(st = nd__cpx_part(&re, a, 0)) && !(st = nd__cpx_part(&im, a, 1))) st = into(func, d, ND_BINARY_HYPOT, re, im);
        break;
    case ND_UNARY_SQUARE: st = cmul(func, d, a, a); break;
    default: { /* isnan, isinf: either part; isfinite: both parts */
        if ((st = nd__cpx_part(&re, a, 0)) || (st = nd__cpx_part(&im, a, 1))) break;
        if ((st = nd_unary(&x, op, re)) || (st = nd_unary(&y, op, im))) {
            st = nd__err_prefix(st, func);
            break;
        }
        st = into(func, d, op == ND_UNARY_ISFINITE ? ND_BINARY_LOGICAL_AND : ND_BINARY_LOGICAL_OR, x, y);
        break;
    }
    }
done:
    nd_release(re), nd_release(im), nd_release(x), nd_release(y), nd_release(pd), nd_release(pa);
    return nd__out_end(&t, st);
}

nd_status nd__cpx_binary(const char *func, nd_array **out, nd_binary_op op, const char *opname, const nd_array *a,
                         const nd_array *b, nd_dtype in)
{
    if (!binary_supported(op)) return refuse(func, opname, in);
    nd_status st = nd__ew_same_device(func, a, "a", b, "b");
    if (st) return st;
    int ndim;
    int64_t shape[ND_MAX_DIMS];
    if ((st = nd__broadcast_shapes(func, a->ndim, a->shape, b->ndim, b->shape, &ndim, shape))) return st;
    const bool to_bool = op == ND_BINARY_EQUAL || op == ND_BINARY_NOT_EQUAL;
    const nd_dtype res = to_bool ? ND_BOOL : in;
    nd_out t;
    if ((st = nd__out_begin(&t, func, out, res, ndim, shape, a->device))) return st;
    const nd_array *ins[2] = {a, b};
    nd__out_keep_order(&t, 2, ins);
    nd_array *ca = NULL, *cb = NULL, *pd = NULL, *pa = NULL, *pb = NULL, *x = NULL, *y = NULL;
    nd_array *ar = NULL, *ai = NULL, *br = NULL, *bi = NULL;
    const nd_array *va, *vb;
    if ((st = nd__ew_input(func, a, in, ndim, shape, &ca, &va)) || (st = nd__ew_input(func, b, in, ndim, shape, &cb, &vb)))
        goto done;
    if ((st = nd__out_target(&t, res, ND_OUT_EXACT_DTYPE, 2, ins))) goto done;
    nd_array *d = t.dst;
    switch (op) {
    case ND_BINARY_ADD:
    case ND_BINARY_SUBTRACT:
        if (!(st = pair_view(func, &pd, d)) && !(st = pair_view(func, &pa, va)) && !(st = pair_view(func, &pb, vb)))
            st = into(func, pd, op, pa, pb);
        break;
    case ND_BINARY_MULTIPLY: st = cmul(func, d, va, vb); break;
    default: /* equal: both parts equal; not_equal: either differs */
        if ((st = nd__cpx_part(&ar, va, 0)) || (st = nd__cpx_part(&ai, va, 1)) || (st = nd__cpx_part(&br, vb, 0)) ||
            (st = nd__cpx_part(&bi, vb, 1)))
            break;
        if ((st = nd_binary(&x, op, ar, br)) || (st = nd_binary(&y, op, ai, bi))) {
            st = nd__err_prefix(st, func);
            break;
        }
        st = into(func, d, op == ND_BINARY_EQUAL ? ND_BINARY_LOGICAL_AND : ND_BINARY_LOGICAL_OR, x, y);
        break;
    }
done:
    nd_release(ca), nd_release(cb), nd_release(pd), nd_release(pa), nd_release(pb), nd_release(x), nd_release(y);
    nd_release(ar), nd_release(ai), nd_release(br), nd_release(bi);
    return nd__out_end(&t, st);
}
