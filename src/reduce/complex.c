/*
 * Reductions of complex arrays, NumPy 2 semantics, COMPOSED in
 * the core from the real reductions of the part views re(z), im(z) (and
 * the complex elementwise multiply for prod), so that they run on every
 * backend with no complex reduction kernels:
 *
 *   sum, mean   sum(re) + i sum(im), mean(re) + i mean(im): the real
 *               pairwise sums of the parts (NumPy's complex sum is the
 *               pairwise sum of each part too), written into the part views
 *               of the complex result; a whole contiguous array in one pass
 *               (sum_all_contig). Empty: 0, NaN+NaNj.
 *   var, std    REAL (float32 for complex64, float64 for complex128):
 *               var(z) = mean(|z - mean z|^2) = var(re) + var(im) with
 *               ddof: S(re)/max(n - ddof, 0) + S(im)/max(n - ddof, 0);
 *               when n - ddof <= 0 (and n > 0) the sums of squares S are
 *               taken (var with ddof n - 1 divides by 1, exactly) and
 *               (S(re) + S(im)) / 0 gives NumPy's inf (or NaN for 0/0),
 *               not inf + NaN. std = sqrt(var). Empty: NaN.
 *   prod        a pairwise tree of complex multiplies: the reduced axes are
 *               moved to the end and flattened to one axis of n; while
 *               n > 1 the first half times the second half (nd_multiply,
 *               one dispatch per level, an odd leftover carried to the next
 *               level): n - 1 multiplies in all, log2(n) dispatches, depth
 *               log2(n). No logarithms (exact for Gaussian integers that
 *               fit, NaN/inf as the multiplies give them). Empty: 1+0j.
 *   any, all    the nonzero test z != 0, true when either part is nonzero
 *               (NaN counts as nonzero): any = any(re) | any(im), all =
 *               all(re | im).
 *   max, min, argmax, argmin
 *               ND_ERR_DTYPE. NumPy 2 orders complex values
 *               lexicographically (real part first) for these; this library
 *               deliberately does not (the array API standard leaves complex
 *               ordering unspecified and PyTorch refuses it): reduce
 *               nd_real, nd_imag or nd_abs of the array instead.
 *
 * The nan-aware forms (nd__reduce_cpx_nan, called by src/reduce/nan.c): an
 * element is NaN when either part is (np.isnan). nansum/nanprod replace it
 * by 0 / 1 (complex where) and reduce; nanmean/nanvar/nanstd make BOTH parts
 * NaN where either is and take the real nan-reductions of the parts (same
 * counts for both), as above.
 *
 * Every function validates the axes first (nd__reduce_plan: NumPy's
 * messages naming the public function), applies the out rule once for the
 * complex (or real, for var/std) result, and computes into fresh
 * temporaries or into the part views of the destination.
 */
#include <math.h>
#include <string.h>

#include "elementwise/elementwise.h"
#include "core/out.h"
#include "reduce/complex.h"

static bool is_order_op(nd_reduce_op op)
{
    return op == ND_REDUCE_MAX || op == ND_REDUCE_MIN || op == ND_REDUCE_ARGMAX || op == ND_REDUCE_ARGMIN;
}

/* The result dtype of op on complex dtype t. */
static nd_dtype cpx_result_dtype(nd_reduce_op op, nd_dtype t)
{
    switch (op) {
    case ND_REDUCE_VAR:
    case ND_REDUCE_STD: return nd__real_of(t);
    case ND_REDUCE_ANY:
    case ND_REDUCE_ALL: return ND_BOOL;
    default: return t;
    }
}

/* An inner step's failure: its message gets fn's prefix (an out-of-memory
 * message already names the allocation). */
nd_status nd__reduce_step_fail(const char *fn, nd_status st)
{
    return st && st != ND_ERR_NOMEM ? nd__err_prefix(st, fn) : st;
}

/* A view of x's last axis [start, start + len). */
static nd_status last_slice(nd_array **v, const nd_array *x, int64_t start, int64_t len)
{
    int64_t sh[ND_MAX_DIMS];
    const int l = x->ndim - 1;
    memcpy(sh, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    sh[l] = len;
    return nd__view(v, x, x->dtype, x->ndim, sh, x->strides,
                    x->offset + start * x->strides[l] * (int64_t)nd__itemsize(x->dtype));
}

/* dst (complex, the result's shape) = the product over p's reduced axes
 * of a: the pairwise tree described at the top of the file. */
static nd_status prod_tree(const char *fn, nd_array *dst, const nd_array *a, const nd_rplan *p)
{
    const nd_dtype ct = a->dtype;
    int64_t n = p->nreduce;
    nd_status st;
    if (n == 0) {
        nd_array *one = NULL;
        if (!(st = nd__scalar_array(&one, nd_scalar_complex(1.0, 0.0), ct, a->device))) st = nd__copy_into(dst, one);
        nd_release(one);
        return nd__reduce_step_fail(fn, st);
    }
    nd_array *pv = NULL, *x = NULL, *res = NULL;
    if ((st = nd__reduce_perm_view(&pv, a, p))) goto done;
    const int knd = p->knd;
    int64_t sh[ND_MAX_DIMS];
    memcpy(sh, p->kshape, sizeof(int64_t) * (size_t)knd);
    if (n == 1) {
        x = nd_retain(pv);
    } else {
        /* at least one reduced axis, so knd + 1 <= ndim */
        sh[knd] = n;
        if ((st = nd_reshape(&x, pv, knd + 1, sh))) goto done;
    }
    while (n > 1) {
        const int64_t h = n / 2, odd = n & 1;
        nd_array *y = NULL, *lo = NULL, *hi = NULL, *yv = NULL, *xl = NULL, *yl = NULL;
        sh[knd] = h + odd;
        if (!(st = nd__alloc(&y, ct, knd + 1, sh, a->device)) && !(st = last_slice(&lo, x, 0, h)) &&
            !(st = last_slice(&hi, x, h, h)) && !(st = last_slice(&yv, y, 0, h)))
            st = nd_multiply(&yv, lo, hi);
        if (!st && odd && !(st = last_slice(&xl, x, 2 * h, 1)) && !(st = last_slice(&yl, y, h, 1)))
            st = nd__copy_into(yl, xl);
        nd_release(lo), nd_release(hi), nd_release(yv), nd_release(xl), nd_release(yl);
        nd_release(x);
        x = y;
        if (st) goto done;
        n = h + odd;
    }
    if (!(st = nd_reshape(&res, x, p->rnd, p->rshape))) st = nd__copy_into(dst, res);
done:
    nd_release(pv), nd_release(x), nd_release(res);
    return nd__reduce_step_fail(fn, st);
}

/* dst (real) = var or std of complex a = var(re) + var(im) (see the top). */
static nd_status var_std(const char *fn, nd_array *dst, nd_reduce_op op, const nd_array *re, const nd_array *im,
                         int naxes, const int *axes, bool keepdims, double ddof, int64_t n)
{
    nd_array *vr = NULL, *vi = NULL, *v = NULL, *d = dst;
    const double dof = (double)n - ddof;
    const bool is_var = op == ND_REDUCE_VAR;
    nd_status st;
    if (n > 0 && !(dof > 0)) {
        /* the sums of squared deviations (var with ddof n - 1 divides by
         * 1), then their sum divided by max(n - ddof, 0) */
        nd_array *s = NULL;
        const double sd = (double)(n - 1);
        if (!(st = nd__reduce_real(fn, &vr, ND_REDUCE_VAR, re, naxes, axes, keepdims, sd)) &&
            !(st = nd__reduce_real(fn, &vi, ND_REDUCE_VAR, im, naxes, axes, keepdims, sd)) && !(st = nd_add(&s, vr, vi)))
            st = nd_binary_scalar(is_var ? &d : &v, ND_BINARY_DIVIDE, s, nd_scalar_float(isnan(dof) ? dof : 0.0));
        nd_release(s);
    } else if (!(st = nd__reduce_real(fn, &vr, ND_REDUCE_VAR, re, naxes, axes, keepdims, ddof)) &&
               !(st = nd__reduce_real(fn, &vi, ND_REDUCE_VAR, im, naxes, axes, keepdims, ddof))) {
        st = nd_add(is_var ? &d : &v, vr, vi);
    }
    if (!st && !is_var) st = nd_sqrt(&d, v);
    nd_release(vr), nd_release(vi), nd_release(v);
    return nd__reduce_step_fail(fn, st);
}

/* sum/mean of a whole C-contiguous complex array in ONE pass over memory
 * (the part views read every cache line twice, once per part): the parts
 * as a real (n/32, 64) matrix summed over its rows (the rows path of the
 * real reduction: a tile of 64 columns, rows combined pairwise) to 32
 * (re, im) pairs, those summed to one pair, plus the n % 32 leftover
 * pairs; mean divides the pair by n. dst holds one element. */
#define CPX_ROW 32
static nd_status sum_all_contig(const char *fn, nd_array *dst, nd_reduce_op op, const nd_array *a)
{
    const nd_dtype rt = nd__real_of(a->dtype);
    const int64_t isz = (int64_t)nd__itemsize(rt), n = a->size, m = n / CPX_ROW, rem = n % CPX_ROW;
    const int ax0 = 0;
    nd_array *head = NULL, *cols = NULL, *pairs = NULL, *s1 = NULL, *tail = NULL, *s2 = NULL, *dv = NULL, *tot = NULL;
    nd_status st;
    const int64_t hs[2] = {m, 2 * CPX_ROW}, hst[2] = {2 * CPX_ROW, 1}, ps[2] = {CPX_ROW, 2}, pst[2] = {2, 1};
    if ((st = nd__view(&head, a, rt, 2, hs, hst, a->offset)) ||
        (st = nd__reduce_real(fn, &cols, ND_REDUCE_SUM, head, 1, &ax0, false, 0)) ||
        (st = nd__view(&pairs, cols, rt, 2, ps, pst, cols->offset)) ||
        (st = nd__reduce_real(fn, &s1, ND_REDUCE_SUM, pairs, 1, &ax0, false, 0)))
        goto done;
    if (rem > 0) {
        const int64_t ts[2] = {rem, 2};
        if ((st = nd__view(&tail, a, rt, 2, ts, pst, a->offset + m * 2 * CPX_ROW * isz)) ||
            (st = nd__reduce_real(fn, &s2, ND_REDUCE_SUM, tail, 1, &ax0, false, 0)) ||
            (st = nd__reduce_step_fail(fn, nd_add(&tot, s1, s2))))
            goto done;
    } else {
        tot = nd_retain(s1);
    }
    if (op == ND_REDUCE_MEAN && (st = nd__reduce_step_fail(fn, nd_binary_scalar(&tot, ND_BINARY_DIVIDE, tot, nd_scalar_float((double)n)))))
        goto done;
    const int64_t two = 2, one = 1;
    if (!(st = nd__view(&dv, dst, rt, 1, &two, &one, dst->offset))) st = nd__copy_into(dv, tot);
done:
    nd_release(head), nd_release(cols), nd_release(pairs), nd_release(s1), nd_release(tail), nd_release(s2);
    nd_release(dv), nd_release(tot);
    return st;
}

/* The complex result's parts rr, ri (real arrays of dst's shape) into dst. */
nd_status nd__cpx_into_parts(nd_array *dst, const nd_array *rr, const nd_array *ri)
{
    nd_array *dr = NULL, *di = NULL;
    nd_status st;
    if (!(st = nd__cpx_part(&dr, dst, 0)) && !(st = nd__cpx_part(&di, dst, 1)) && !(st = nd__copy_into(dr, rr)))
        st = nd__copy_into(di, ri);
    nd_release(dr), nd_release(di);
    return st;
}

nd_status nd__reduce_cpx(const char *fn, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes,
                         const int *axes, bool keepdims, double ddof)
{
    if (is_order_op(op))
        return nd__err(ND_ERR_DTYPE, fn,
                       "%s of %s: complex values have no order here (NumPy's lexicographic complex ordering is not "
                       "implemented); reduce nd_real, nd_imag or nd_abs of the array instead",
                       nd_reduce_op_name(op), nd_dtype_name(a->dtype));
    nd_rplan p;
    nd_status st = nd__reduce_plan(fn, op, a, naxes, axes, keepdims, &p);
    if (st) return st;
    const nd_dtype rdt = cpx_result_dtype(op, a->dtype);
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, rdt, p.rnd, p.rshape, a->device))) return st;
    nd_array *re = NULL, *im = NULL, *r1 = NULL, *r2 = NULL, *m = NULL;
    /* a temporary when the result overlaps a: the parts are written one
     * after the other, and prod reads a in several passes */
    if ((st = nd__out_target(&t, rdt, ND_OUT_EXACT_DTYPE, 1, &a))) goto done;
    nd_array *dst = t.dst;
    if (dst->size == 0) goto done;
    if ((st = nd__cpx_part(&re, a, 0)) || (st = nd__cpx_part(&im, a, 1))) goto done;
    switch (op) {
    case ND_REDUCE_SUM:
    case ND_REDUCE_MEAN: {
        if (dst->size == 1 && a->size >= 2 * CPX_ROW && nd_is_contiguous(a)) {
            st = sum_all_contig(fn, dst, op, a);
            break;
        }
        nd_array *dr = NULL, *di = NULL;
        if (!(st = nd__cpx_part(&dr, dst, 0)) && !(st = nd__cpx_part(&di, dst, 1)) &&
            !(st = nd__reduce_real(fn, &dr, op, re, naxes, axes, keepdims, 0)))
            st = nd__reduce_real(fn, &di, op, im, naxes, axes, keepdims, 0);
        nd_release(dr), nd_release(di);
        break;
    }
    case ND_REDUCE_PROD: st = prod_tree(fn, dst, a, &p); break;
    case ND_REDUCE_VAR:
    case ND_REDUCE_STD: st = var_std(fn, dst, op, re, im, naxes, axes, keepdims, ddof, p.nreduce); break;
    case ND_REDUCE_ANY:
        if (!(st = nd__reduce_real(fn, &r1, ND_REDUCE_ANY, re, naxes, axes, keepdims, 0)) &&
            !(st = nd__reduce_real(fn, &r2, ND_REDUCE_ANY, im, naxes, axes, keepdims, 0)))
            st = nd__reduce_step_fail(fn, nd_logical_or(&dst, r1, r2));
        break;
    case ND_REDUCE_ALL:
        if (!(st = nd__reduce_step_fail(fn, nd_logical_or(&m, re, im))))
            st = nd__reduce_real(fn, &dst, ND_REDUCE_ALL, m, naxes, axes, keepdims, 0);
        break;
    default: st = nd__err(ND_ERR_INTERNAL, fn, "complex reduction %d", (int)op); break;
    }
done:
    nd_release(re), nd_release(im), nd_release(r1), nd_release(r2), nd_release(m);
    return nd__out_end(&t, st);
}
