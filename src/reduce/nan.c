/*
 * nan-aware reductions (nd_nansum, nd_nanprod, nd_nanmean, nd_nanmax,
 * nd_nanmin, nd_nanargmax, nd_nanargmin, nd_nanvar, nd_nanstd), nd_ptp and
 * nd_reduce_dtype (NumPy's dtype= of sum/prod/mean/var/std).
 *
 * All are COMPOSITIONS of existing ops (isnan, where, the reductions,
 * divide), written the way NumPy's own nanfunctions are (numpy/lib/
 * _nanfunctions_impl.py): NaNs are replaced by the identity (0 for sums, 1
 * for products, -inf/+inf for max/min and argmax/argmin), the counts of
 * non-NaN elements come from sum(~isnan), and all-NaN slices are patched
 * afterwards. So they run on every backend with the reductions' kernels,
 * and they round as NumPy's do (nanmean = sum / count divided in float64
 * and rounded to the input's dtype, nanvar with the mean rounded to the
 * input's dtype first). The price is a few passes over the data and a
 * temporary of the input's size; a fused reduce op (one pass) is left for
 * when speed matters. Integer and bool inputs have no NaN: they go to the
 * plain reductions.
 */
#include <math.h>
#include <string.h>

#include "elementwise/elementwise.h"
#include "core/internal.h"
#include "core/out.h"
#include "shared/scan_slots.h"
#include "core/prof.h"
#include "reduce/complex.h"

/* nansum / nanprod / nanmean / nanvar / nanstd (op SUM, PROD, MEAN, VAR,
 * STD) of complex a: an element is NaN when either part is. Sum and prod
 * put the identity in place of each NaN and reduce the complex array; the
 * others give both parts NaN where either is and take the real
 * nan-reductions of the parts. */
static nd_status reduce_cpx_nan(const char *fn, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes,
                                const int *axes, bool keepdims, double ddof)
{
    nd_rplan p;
    nd_status st = nd__reduce_plan(fn, op, a, naxes, axes, keepdims, &p);
    if (st) return st;
    const nd_dtype ct = a->dtype, rt = nd__real_of(ct);
    nd_array *m = NULL, *fill = NULL, *x = NULL, *re = NULL, *im = NULL, *xr = NULL, *xi = NULL, *rr = NULL,
             *ri = NULL, *v = NULL;
    if ((st = nd_isnan(&m, a))) goto fail_;
    if (op == ND_REDUCE_SUM || op == ND_REDUCE_PROD) {
        /* NaN -> the identity, then the complex reduction (its out rule) */
        double id = op == ND_REDUCE_SUM ? 0.0 : 1.0;
        if ((st = nd__scalar_array(&fill, nd_scalar_complex(id, 0.0), ct, a->device)) ||
            (st = nd_where(&x, m, fill, a)))
            goto fail_;
        st = nd__reduce_run(fn, out, op, x, naxes, axes, keepdims, 0);
        goto done;
    }
    /* both parts NaN where either is, then the real nan-reductions */
    if ((st = nd__cpx_part(&re, a, 0)) || (st = nd__cpx_part(&im, a, 1)) ||
        (st = nd__scalar_array(&fill, nd_scalar_float(NAN), rt, a->device)) || (st = nd_where(&xr, m, fill, re)) ||
        (st = nd_where(&xi, m, fill, im)))
        goto fail_;
    if (op == ND_REDUCE_MEAN) {
        if ((st = nd_nanmean(&rr, xr, naxes, axes, keepdims)) || (st = nd_nanmean(&ri, xi, naxes, axes, keepdims)))
            goto fail_;
    } else if ((st = nd_nanvar(&rr, xr, naxes, axes, keepdims, ddof)) ||
               (st = nd_nanvar(&ri, xi, naxes, axes, keepdims, ddof))) {
        goto fail_;
    }
    {
        const nd_dtype rdt = op == ND_REDUCE_MEAN ? ct : rt;
        nd_out t;
        if ((st = nd__out_begin(&t, fn, out, rdt, rr->ndim, rr->shape, a->device))) goto done;
        if (!(st = nd__out_target(&t, rdt, ND_OUT_EXACT_DTYPE, 0, NULL))) {
            nd_array *d = t.dst;
            if (op == ND_REDUCE_MEAN) st = nd__cpx_into_parts(d, rr, ri);
            else if (op == ND_REDUCE_VAR) st = nd_add(&d, rr, ri);
            else if (!(st = nd_add(&v, rr, ri))) st = nd_sqrt(&d, v);
            st = nd__reduce_step_fail(fn, st);
        }
        st = nd__out_end(&t, st);
        goto done;
    }
fail_:
    st = nd__reduce_step_fail(fn, st);
done:
    nd_release(m), nd_release(fill), nd_release(x), nd_release(re), nd_release(im), nd_release(xr), nd_release(xi);
    nd_release(rr), nd_release(ri), nd_release(v);
    return st;
}

/* The common checks; *isf: a has a float dtype (NaNs possible). */
static nd_status nan_check(const char *fn, nd_array **out, const nd_array *a, bool *isf)
{
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (!nd__dtype_valid(a->dtype)) return nd__err(ND_ERR_DTYPE, fn, "array 'a' has an invalid dtype %d", (int)a->dtype);
    *isf = nd__is_float(a->dtype);
    return ND_OK;
}

/* where(isnan(a), fill, a) in a's dtype; *mask (optional) gets isnan(a). */
static nd_status nan_fill(nd_array **res, nd_array **mask, const nd_array *a, double fill)
{
    nd_array *m = NULL, *f = NULL;
    nd_status st = nd_isnan(&m, a);
    if (!st) st = nd__scalar_array(&f, nd_scalar_float(fill), a->dtype, a->device);
    if (!st) st = nd_where(res, m, f, a);
    nd_release(f);
    if (mask && !st) *mask = m;
    else nd_release(m);
    return st;
}

/* The number of elements reduced over (NumPy's rules for axes, checked by
 * a plain reduction afterwards; here only the count of a valid request). */
static int64_t nreduced(const nd_array *a, int naxes, const int *axes)
{
    if (axes == NULL) return a->size;
    int64_t n = 1;
    for (int i = 0; i < naxes; i++) {
        int ax = axes[i] < 0 ? axes[i] + a->ndim : axes[i];
        if (ax >= 0 && ax < a->ndim) n *= a->shape[ax];
    }
    return n;
}

/* nansum / nanprod: the identity in place of NaN, then the reduction. */
static nd_status nan_sp(const char *fn, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes,
                        const int *axes, bool keepdims)
{
    bool isf;
    nd_status st = nan_check(fn, out, a, &isf);
    if (st) return st;
    if (nd__is_complex(a->dtype)) return reduce_cpx_nan(fn, out, op, a, naxes, axes, keepdims, 0);
    if (!isf) st = nd_reduce(out, op, a, naxes, axes, keepdims);
    else {
        nd_array *x = NULL;
        st = nan_fill(&x, NULL, a, op == ND_REDUCE_SUM ? 0.0 : 1.0);
        if (!st) st = nd_reduce(out, op, x, naxes, axes, keepdims);
        nd_release(x);
    }
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd_nansum(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("nansum", out, a);
    return nan_sp("nd_nansum", out, ND_REDUCE_SUM, a, naxes, axes, keepdims);
}
nd_status nd_nanprod(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("nanprod", out, a);
    return nan_sp("nd_nanprod", out, ND_REDUCE_PROD, a, naxes, axes, keepdims);
}

/* nanmax / nanmin (NumPy's fmax.reduce / fmin.reduce): NaN -> -inf / +inf,
 * the reduction, then NaN where the whole slice was NaN. */
static nd_status nan_mm(const char *fn, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes,
                        const int *axes, bool keepdims)
{
    bool isf;
    nd_status st = nan_check(fn, out, a, &isf);
    if (st) return st;
    if (!isf) return (st = nd_reduce(out, op, a, naxes, axes, keepdims)) ? nd__err_prefix(st, fn) : ND_OK;
    if (nreduced(a, naxes, axes) == 0)
        return nd__err(ND_ERR_INVALID, fn, "zero-size array to reduction operation %s which has no identity",
                       op == ND_REDUCE_MAX ? "fmax" : "fmin");
    nd_array *x = NULL, *m = NULL, *r = NULL, *all = NULL, *nan = NULL;
    st = nan_fill(&x, &m, a, op == ND_REDUCE_MAX ? -INFINITY : INFINITY);
    if (!st) st = nd_reduce(&r, op, x, naxes, axes, keepdims);
    if (!st) st = nd_reduce(&all, ND_REDUCE_ALL, m, naxes, axes, keepdims);
    if (!st) st = nd__scalar_array(&nan, nd_scalar_float(NAN), a->dtype, a->device);
    if (!st) st = nd_where(out, all, nan, r);
    nd_release(x), nd_release(m), nd_release(r), nd_release(all), nd_release(nan);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd_nanmax(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("nanmax", out, a);
    return nan_mm("nd_nanmax", out, ND_REDUCE_MAX, a, naxes, axes, keepdims);
}
nd_status nd_nanmin(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("nanmin", out, a);
    return nan_mm("nd_nanmin", out, ND_REDUCE_MIN, a, naxes, axes, keepdims);
}

/* nanargmax / nanargmin: ND_ERR_INVALID when a slice is all NaN, else the
 * plain arg-reduction of a with NaN -> -inf / +inf. */
static nd_status nan_arg(const char *fn, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes,
                         const int *axes, bool keepdims)
{
    bool isf;
    nd_status st = nan_check(fn, out, a, &isf);
    if (st) return st;
    if (!isf || a->size == 0) return (st = nd_reduce(out, op, a, naxes, axes, keepdims)) ? nd__err_prefix(st, fn) : ND_OK;
    nd_array *x = NULL, *m = NULL, *all = NULL, *any = NULL, *res = NULL;
    st = nan_fill(&x, &m, a, op == ND_REDUCE_ARGMAX ? -INFINITY : INFINITY);
    /* the arg-reduction first: its checks of the axes (one or all) */
    if (!st) st = nd_reduce(&res, op, x, naxes, axes, keepdims);
    if (!st) st = nd_reduce(&all, ND_REDUCE_ALL, m, axes ? naxes : 0, axes, false);
    if (!st) st = nd_reduce(&any, ND_REDUCE_ANY, all, 0, NULL, false);
    uint8_t hit = 0;
    if (!st) st = nd_copy_to_host(&hit, any, 1);
    if (st) nd__err_prefix(st, fn);
    else if (hit) st = nd__err(ND_ERR_INVALID, fn, "All-NaN slice encountered");
    else st = nd__out_deliver(fn, out, &res, ND_INT64, 0);
    nd_release(x), nd_release(m), nd_release(all), nd_release(any), nd_release(res);
    return st;
}

nd_status nd_nanargmax(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("nanargmax", out, a);
    return nan_arg("nd_nanargmax", out, ND_REDUCE_ARGMAX, a, naxes, axes, keepdims);
}
nd_status nd_nanargmin(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("nanargmin", out, a);
    return nan_arg("nd_nanargmin", out, ND_REDUCE_ARGMIN, a, naxes, axes, keepdims);
}

/* nanmean: sum(NaN -> 0) / count(non-NaN), the division in float64 and the
 * result in a's dtype (NumPy's _divide_by_count); an empty or all-NaN slice
 * is 0/0 = NaN. */
nd_status nd_nanmean(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("nanmean", out, a);
    static const char *fn = "nd_nanmean";
    bool isf;
    nd_status st = nan_check(fn, out, a, &isf);
    if (st) return st;
    if (nd__is_complex(a->dtype)) return reduce_cpx_nan(fn, out, ND_REDUCE_MEAN, a, naxes, axes, keepdims, 0);
    if (!isf) return (st = nd_mean(out, a, naxes, axes, keepdims)) ? nd__err_prefix(st, fn) : ND_OK;
    nd_array *x = NULL, *m = NULL, *nm = NULL, *cnt = NULL, *tot = NULL, *q = NULL;
    st = nan_fill(&x, &m, a, 0.0);
    if (!st) st = nd_logical_not(&nm, m);
    if (!st) st = nd_sum(&cnt, nm, naxes, axes, keepdims);
    if (!st) st = nd_sum(&tot, x, naxes, axes, keepdims);
    if (!st) st = nd_divide(&q, tot, cnt);
    if (st) nd__err_prefix(st, fn);
    else st = nd__out_deliver(fn, out, &q, a->dtype, 0);
    nd_release(x), nd_release(m), nd_release(nm), nd_release(cnt), nd_release(tot), nd_release(q);
    return st;
}

/* nanvar in a's dtype as NumPy computes it (see the file comment); *res is
 * a new array of a's dtype. */
static nd_status nanvar_impl(const char *fn, nd_array **res, const nd_array *a, int naxes, const int *axes,
                             bool keepdims, double ddof)
{
    nd_array *x = NULL, *m = NULL, *nm = NULL, *cnt = NULL, *s = NULL, *avg = NULL, *avgd = NULL, *d = NULL,
             *zero = NULL, *d0 = NULL, *sq = NULL, *v = NULL, *cnt2 = NULL, *dof = NULL, *q = NULL, *bad = NULL,
             *nan = NULL, *r = NULL;
    nd_status st = nan_fill(&x, &m, a, 0.0);
    if (!st) st = nd_logical_not(&nm, m);
    if (!st) st = nd_sum(&cnt, nm, naxes, axes, true);
    if (!st) st = nd_sum(&s, x, naxes, axes, true);
    if (!st) st = nd_divide(&avgd, s, cnt);
    if (!st) st = nd__as_dtype(&avg, avgd, a->dtype);
    if (!st) st = nd_subtract(&d, x, avg);
    if (!st) st = nd__scalar_array(&zero, nd_scalar_float(0), a->dtype, a->device);
    if (!st) st = nd_where(&d0, m, zero, d);
    if (!st) st = nd_multiply(&sq, d0, d0);
    if (!st) st = nd_sum(&v, sq, naxes, axes, keepdims);
    if (!st) st = nd_reshape(&cnt2, cnt, nd_ndim(v), nd_shape(v));
    if (!st) st = nd_binary_scalar(&dof, ND_BINARY_SUBTRACT, cnt2, nd_scalar_float(ddof));
    if (!st) st = nd_divide(&q, v, dof);
    if (!st) st = nd_binary_scalar(&bad, ND_BINARY_LESS_EQUAL, dof, nd_scalar_float(0));
    if (!st) st = nd__scalar_array(&nan, nd_scalar_float(NAN), ND_FLOAT64, a->device);
    if (!st) st = nd_where(&r, bad, nan, q);
    if (!st) st = nd__as_dtype(res, r, a->dtype);
    if (st) nd__err_prefix(st, fn);
    nd_array *all[] = {x, m, nm, cnt, s, avg, avgd, d, zero, d0, sq, v, cnt2, dof, q, bad, nan, r};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
    return st;
}

static nd_status nan_vs(const char *fn, nd_array **out, bool is_std, const nd_array *a, int naxes, const int *axes,
                        bool keepdims, double ddof)
{
    bool isf;
    nd_status st = nan_check(fn, out, a, &isf);
    if (st) return st;
    if (nd__is_complex(a->dtype))
        return reduce_cpx_nan(fn, out, is_std ? ND_REDUCE_STD : ND_REDUCE_VAR, a, naxes, axes, keepdims, ddof);
    if (!isf) {
        st = nd_reduce_ddof(out, is_std ? ND_REDUCE_STD : ND_REDUCE_VAR, a, naxes, axes, keepdims, ddof);
        return st ? nd__err_prefix(st, fn) : ND_OK;
    }
    nd_array *v = NULL;
    /* the axes are validated by a plain reduction first (NumPy's messages) */
    nd_array *probe = NULL;
    st = nd_reduce(&probe, ND_REDUCE_ANY, a, naxes, axes, keepdims);
    nd_release(probe);
    if (st) return nd__err_prefix(st, fn);
    if ((st = nanvar_impl(fn, &v, a, naxes, axes, keepdims, ddof))) return st;
    if (is_std) {
        st = nd_sqrt(out, v);
        if (st) nd__err_prefix(st, fn);
    } else {
        st = nd__out_deliver(fn, out, &v, a->dtype, 0);
    }
    nd_release(v);
    return st;
}

nd_status nd_nanvar(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims, double ddof)
{
    ND_PROF_OP("nanvar", out, a);
    return nan_vs("nd_nanvar", out, false, a, naxes, axes, keepdims, ddof);
}
nd_status nd_nanstd(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims, double ddof)
{
    ND_PROF_OP("nanstd", out, a);
    return nan_vs("nd_nanstd", out, true, a, naxes, axes, keepdims, ddof);
}

/* ptp = max - min (NumPy's np.ptp), in a's dtype (integers wrap). */
nd_status nd_ptp(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("ptp", out, a);
    static const char *fn = "nd_ptp";
    bool isf;
    nd_status st = nan_check(fn, out, a, &isf);
    if (st) return st;
    (void)isf;
    if (a->dtype == ND_BOOL)
        return nd__err(ND_ERR_DTYPE, fn,
                       "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` "
                       "operator, or the logical_xor function instead.");
    nd_array *hi = NULL, *lo = NULL;
    st = nd_max(&hi, a, naxes, axes, keepdims);
    if (!st) st = nd_min(&lo, a, naxes, axes, keepdims);
    if (!st) st = nd_subtract(out, hi, lo);
    if (st) nd__err_prefix(st, fn);
    nd_release(hi), nd_release(lo);
    return st;
}

/* NumPy's np.sum(a, dtype=d) and friends: the elements are cast to d, the
 * reduction runs on them, the result has dtype d. */
nd_status nd_reduce_dtype(nd_array **out, nd_reduce_op op, const nd_array *a, int naxes, const int *axes,
                          bool keepdims, nd_dtype dtype)
{
    ND_PROF_OP(nd_reduce_op_name(op) ? nd_reduce_op_name(op) : "reduce", out, a);
    static const char *fn = "nd_reduce_dtype";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (!nd__dtype_valid(dtype)) return nd__err(ND_ERR_DTYPE, fn, "invalid dtype %d", (int)dtype);
    if (op != ND_REDUCE_SUM && op != ND_REDUCE_PROD && op != ND_REDUCE_MEAN && op != ND_REDUCE_VAR &&
        op != ND_REDUCE_STD) {
        const char *name = nd_reduce_op_name(op);
        if (!name) return nd__err(ND_ERR_INVALID, fn, "invalid reduce op %d", (int)op);
        return nd__err(ND_ERR_INVALID, fn, "%s takes no dtype (only sum, prod, mean, var and std do)", name);
    }
    if ((op == ND_REDUCE_VAR || op == ND_REDUCE_STD) && !nd__is_float(dtype) && !nd__is_complex(dtype))
        return nd__err(ND_ERR_DTYPE, fn, "%s with dtype=%s is not supported (a float dtype is, or a complex one)",
                       nd_reduce_op_name(op), nd_dtype_name(dtype));
    /* NumPy's var(z, dtype=float64) of complex z mixes the real mean with
     * |z - mean|^2 (neither the var of the real parts nor of z): refused */
    if ((op == ND_REDUCE_VAR || op == ND_REDUCE_STD) && nd__is_complex(a->dtype) && !nd__is_complex(dtype))
        return nd__err(ND_ERR_DTYPE, fn, "%s of %s with dtype=%s is not supported (a complex dtype is)",
                       nd_reduce_op_name(op), nd_dtype_name(a->dtype), nd_dtype_name(dtype));
    nd_array *x = NULL, *r = NULL, *s = NULL, *q = NULL;
    nd_status st = nd__as_dtype(&x, a, dtype);
    if (st) return nd__err_prefix(st, fn);
    if (op == ND_REDUCE_MEAN && !nd__is_float(dtype) && !nd__is_complex(dtype)) {
        /* an integer mean: the sum wraps in dtype, the quotient is
         * truncated to dtype (NumPy: true_divide(..., casting='unsafe')) */
        int64_t n = nreduced(a, naxes, axes);
        st = nd_sum(&s, x, naxes, axes, keepdims);
        if (!st) st = nd__as_dtype(&q, s, dtype);
        if (!st) st = nd_binary_scalar(&r, ND_BINARY_DIVIDE, q, nd_scalar_float((double)n));
    } else {
        /* complex dtype: sum/prod/mean complex; var/std real (the complex
         * reductions), returned as dtype with zero imaginary parts (NumPy) */
        st = nd_reduce(&r, op, x, naxes, axes, keepdims);
    }
    if (st) nd__err_prefix(st, fn);
    else st = nd__out_deliver(fn, out, &r, dtype, 0);
    nd_release(x), nd_release(r), nd_release(s), nd_release(q);
    return st;
}
