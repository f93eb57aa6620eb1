/*
 * Order statistics: nd_median, nd_quantile, nd_percentile, composed from
 * nd_sort. The reduced axes are moved last and merged into one axis of
 * extent n (a copy), the rows are sorted, and since the quantile position
 * is the same for every row the two neighbours are plain slices of the
 * sorted array; the interpolation is elementwise ops with scalars, exactly
 * as NumPy's _lerp (including its quirk at q == 1, where NumPy's gamma is
 * n and inf - inf gives NaN). A row whose last sorted element is NaN had a
 * NaN and gives NaN (NumPy's check).
 */
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "core/out.h"
#include "sort/sort.h"
#include "core/prof.h"

/* a's reduced axes merged last and sorted: *s is (outer..., n) in the
 * order of a's kept axes; oshape/ondim the result shape (keepdims
 * applied). */
static nd_status sorted_rows(const char *fn, nd_array **s, const nd_array *a, int naxes, const int *axes, bool keepdims,
                             int *ondim, int64_t *oshape, int64_t *n)
{
    int ndim = a->ndim;
    bool red[ND_MAX_DIMS] = {false};
    if (!axes) {
        for (int d = 0; d < ndim; d++) red[d] = true;
    } else {
        if (naxes < 0) return nd__err(ND_ERR_INVALID, fn, "naxes must be >= 0 (got %d)", naxes);
        for (int i = 0; i < naxes; i++) {
            int ax = axes[i];
            if (ax < -ndim || ax >= ndim)
                return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", ax, ndim);
            if (ax < 0) ax += ndim;
            if (red[ax]) return nd__err(ND_ERR_INVALID, fn, "repeated axis");
            red[ax] = true;
        }
    }
    int perm[ND_MAX_DIMS], np_ = 0, nk = 0;
    int64_t mshape[ND_MAX_DIMS + 1], cnt = 1;
    *ondim = 0;
    for (int d = 0; d < ndim; d++)
        if (!red[d]) {
            perm[np_++] = d;
            mshape[nk++] = a->shape[d];
            oshape[(*ondim)++] = a->shape[d];
        } else if (keepdims) {
            oshape[(*ondim)++] = 1;
        }
    for (int d = 0; d < ndim; d++)
        if (red[d]) {
            perm[np_++] = d;
            cnt *= a->shape[d];
        }
    mshape[nk] = cnt;
    *n = cnt;
    if (cnt == 0) return nd__err(ND_ERR_INVALID, fn, "cannot compute an order statistic of an empty slice");
    nd_array *tv = NULL, *m = NULL;
    nd_status st = ndim ? nd_transpose(&tv, a, perm) : nd_reshape(&tv, a, 0, NULL);
    if (!st) st = nd_reshape(&m, tv, nk + 1, mshape);
    if (!st) st = nd__sort_axis(fn, s, NULL, m, nk, false);
    nd_release(tv);
    nd_release(m);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

/* s[..., i0:i1] cast to ft */
static nd_status column(nd_array **out, const nd_array *s, int64_t i0, int64_t i1, nd_dtype ft)
{
    nd_range rg[ND_MAX_DIMS];
    for (int d = 0; d < s->ndim; d++) rg[d] = ND_ALL;
    rg[s->ndim - 1] = (nd_range){i0, i1, 1};
    nd_array *v = NULL;
    nd_status st = nd_slice(&v, s, s->ndim, rg);
    if (!st) st = nd__as_dtype(out, v, ft);
    nd_release(v);
    return st;
}

/* q < 0: median; else the quantile q in [0, 1]. */
static nd_status order_stat(const char *fn, nd_array **out, const nd_array *a, double q, int naxes, const int *axes,
                            bool keepdims)
{
    if (nd__no_complex(fn, a, "a")) return ND_ERR_DTYPE; /* no complex loops yet */
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (q >= 0 && a->dtype == ND_BOOL) /* NumPy: TypeError from the interpolation's subtract */
        return nd__err(ND_ERR_DTYPE, fn, "'a' is bool: the interpolation subtracts, which bool has no loop for (NumPy: "
                       "TypeError); cast a to an integer dtype, or use nd_median");
    nd_dtype ft = nd__is_float(a->dtype) ? a->dtype : ND_FLOAT64;
    int ondim = 0;
    int64_t oshape[ND_MAX_DIMS], n = 0;
    nd_array *s = NULL;
    nd_status st = sorted_rows(fn, &s, a, naxes, axes, keepdims, &ondim, oshape, &n);
    if (st) return st;
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, ft, ondim, oshape, a->device))) {
        nd_release(s);
        return st;
    }
    nd_array *lo = NULL, *hi = NULL, *r = NULL, *x = NULL, *y = NULL, *last = NULL, *nan = NULL;
    int last_ax = s->ndim - 1;
    if (q < 0) {
        /* the mean of the middle one or two (np.mean's dtype rules) */
        st = column(&lo, s, (n - 1) / 2, n / 2 + 1, s->dtype);
        if (!st) st = nd_reduce(&r, ND_REDUCE_MEAN, lo, 1, &last_ax, false);
    } else {
        double v = (double)(n - 1) * q;
        double prev = floor(v);
        int64_t ip = (int64_t)prev, in = ip + 1;
        if (v >= (double)(n - 1)) {
            ip = in = n - 1;
            prev = -1.0; /* NumPy's index -1 */
        }
        double g = v - prev;
        st = column(&lo, s, ip, ip + 1, ft);
        if (!st) st = column(&hi, s, in, in + 1, ft);
        if (!st) st = nd_binary(&x, ND_BINARY_SUBTRACT, hi, lo);
        nd_scalar sc = {.kind = ND_SCALAR_FLOAT};
        if (g >= 0.5) {
            sc.v.f = 1.0 - g;
            if (!st) st = nd_binary_scalar(&y, ND_BINARY_MULTIPLY, x, sc);
            if (!st) st = nd_binary(&r, ND_BINARY_SUBTRACT, hi, y);
        } else {
            sc.v.f = g;
            if (!st) st = nd_binary_scalar(&y, ND_BINARY_MULTIPLY, x, sc);
            if (!st) st = nd_binary(&r, ND_BINARY_ADD, lo, y);
        }
        if (!st) {
            nd_array *sq = NULL;
            st = nd_squeeze(&sq, r, 1, &last_ax);
            nd_release(r);
            r = sq;
        }
    }
    if (!st && nd__is_float(a->dtype)) {
        /* a NaN sorts last: rows whose last element is NaN give NaN */
        nd_array *l1 = NULL;
        st = column(&l1, s, n - 1, n, ft);
        if (!st) st = nd_squeeze(&last, l1, 1, &last_ax);
        nd_release(l1);
        if (!st) st = nd_unary(&nan, ND_UNARY_ISNAN, last);
        if (!st) {
            nd_array *w = NULL;
            st = nd_where(&w, nan, last, r);
            nd_release(r);
            r = w;
        }
    }
    const nd_array *ins[1] = {a};
    if (!st) st = nd__out_target(&t, ft, 0, 1, ins);
    if (!st) {
        nd_array *rv = NULL;
        st = nd_reshape(&rv, r, ondim, oshape);
        if (!st) st = nd__copy_into(t.dst, rv);
        nd_release(rv);
    }
    if (st) st = nd__err_prefix(st, fn);
    nd_release(s);
    nd_release(lo);
    nd_release(hi);
    nd_release(r);
    nd_release(x);
    nd_release(y);
    nd_release(last);
    nd_release(nan);
    return nd__out_end(&t, st);
}

nd_status nd_median(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("median", out, a);
    return order_stat("nd_median", out, a, -1.0, naxes, axes, keepdims);
}

nd_status nd_quantile(nd_array **out, const nd_array *a, double q, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("quantile", out, a);
    if (!(q >= 0.0 && q <= 1.0)) return nd__err(ND_ERR_INVALID, "nd_quantile", "Quantiles must be in the range [0, 1] (got %g)", q);
    return order_stat("nd_quantile", out, a, q, naxes, axes, keepdims);
}

nd_status nd_percentile(nd_array **out, const nd_array *a, double q, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("percentile", out, a);
    if (!(q >= 0.0 && q <= 100.0))
        return nd__err(ND_ERR_INVALID, "nd_percentile", "Percentiles must be in the range [0, 100] (got %g)", q);
    return order_stat("nd_percentile", out, a, q / 100.0, naxes, axes, keepdims);
}
