/* Matrix-shaped manipulation: nd_diag, nd_tril, nd_triu, nd_trace,
 * nd_meshgrid, nd_outer, nd_tensordot - compositions of views, copies,
 * nd_where, nd_sum, nd_multiply and nd_matmul, as NumPy writes them. */
#include <string.h>

#include "manip/manip.h"
#include "core/prof.h"

static nd_status same_device(const char *fn, const nd_array *a, const nd_array *b)
{
    if (nd__same_device(a->device, b->device)) return ND_OK;
    char d1[32], d2[32];
    return nd__err(ND_ERR_DEVICE, fn, "operands are on different devices (%s and %s)",
                   nd__device_name(a->device, d1, sizeof d1), nd__device_name(b->device, d2, sizeof d2));
}

nd_status nd_diag(nd_array **out, const nd_array *a, int64_t k)
{
    ND_PROF_OP("diag", out, a);
    static const char *fn = "nd_diag";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    nd_status st;
    if (a->ndim == 2) {
        nd_array *d = NULL;
        if ((st = nd_diagonal(&d, a, k, 0, 1))) return nd__err_prefix(st, fn);
        /* a copy (np.diag gives a read-only view) */
        return nd__out_deliver(fn, out, &d, d->dtype, ND_OUT_COPY);
    }
    if (a->ndim != 1) return nd__err(ND_ERR_INVALID, fn, "Input must be 1- or 2-d.");
    int64_t n;
    if (k == INT64_MIN || __builtin_add_overflow(a->shape[0], k < 0 ? -k : k, &n))
        return nd__err(ND_ERR_INVALID, fn, "offset %lld is too large", (long long)k);
    const int64_t ak = k < 0 ? -k : k;
    int64_t shape[2] = {n, n};
    if ((st = nd__check_shape(fn, 2, shape, a->dtype, NULL))) return st;
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, a->dtype, 2, shape, a->device))) return st;
    if ((st = nd__out_target(&t, a->dtype, 0, 1, &a))) return nd__out_end(&t, st);
    nd_array *dst = t.dst, *zero = NULL, *dv = NULL;
    if (dst->size > 0) {
        st = nd__scalar_array(&zero, nd_scalar_int(0), a->dtype, a->device);
        if (!st) st = nd__copy_into(dst, zero);
        int64_t len = a->shape[0], str = dst->strides[0] + dst->strides[1];
        int64_t off = dst->offset + (k >= 0 ? k * dst->strides[1] : ak * dst->strides[0]) * (int64_t)nd__itemsize(a->dtype);
        if (!st && len > 0 && !(st = mp__view(&dv, dst, 1, &len, &str, off))) st = nd__copy_into(dv, a);
    }
    nd_release(zero);
    nd_release(dv);
    return nd__out_end(&t, st);
}

/* where(col - row <= k (tril) / >= k (triu), a, 0) over the last two axes */
static nd_status tri(const char *fn, nd_array **out, const nd_array *a, int64_t k, bool lower)
{
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (a->ndim == 0) return nd__err(ND_ERR_INVALID, fn, "the input must be at least 1-d (got a 0-d array)");
    int64_t n = a->shape[a->ndim - 1], m = a->ndim >= 2 ? a->shape[a->ndim - 2] : n;
    nd_array *rows = NULL, *cols = NULL, *rv = NULL, *diff = NULL, *mask = NULL, *zero = NULL;
    nd_status st = nd_arange(&rows, ND_INT64, 0, (double)m, 1, a->device);
    if (!st) st = nd_arange(&cols, ND_INT64, 0, (double)n, 1, a->device);
    if (!st) st = nd_reshape(&rv, rows, 2, (const int64_t[]){m, 1});
    if (!st) st = nd_subtract(&diff, cols, rv);
    if (!st) st = nd_binary_scalar(&mask, lower ? ND_BINARY_LESS_EQUAL : ND_BINARY_GREATER_EQUAL, diff, nd_scalar_int(k));
    if (!st) st = nd__scalar_array(&zero, nd_scalar_int(0), a->dtype, a->device);
    if (!st) st = nd_where(out, mask, a, zero);
    if (st) nd__err_prefix(st, fn); /* also for where's refusal of out */
    nd_release(rows);
    nd_release(cols);
    nd_release(rv);
    nd_release(diff);
    nd_release(mask);
    nd_release(zero);
    return st;
}

nd_status nd_tril(nd_array **out, const nd_array *a, int64_t k) 
{
    ND_PROF_OP("tril", out, a);
    return tri("nd_tril", out, a, k, true);
}
nd_status nd_triu(nd_array **out, const nd_array *a, int64_t k) 
{
    ND_PROF_OP("triu", out, a);
    return tri("nd_triu", out, a, k, false);
}

nd_status nd_trace(nd_array **out, const nd_array *a, int64_t offset, int axis1, int axis2)
{
    ND_PROF_OP("trace", out, a);
    static const char *fn = "nd_trace";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    nd_array *d = NULL;
    nd_status st = nd_diagonal(&d, a, offset, axis1, axis2);
    if (st) return nd__err_prefix(st, fn);
    int last = d->ndim - 1;
    st = nd_sum(out, d, 1, &last, false);
    nd_release(d);
    return st ? nd__err_prefix(st, fn) : ND_OK; /* also for the sum's refusal of out */
}

nd_status nd_meshgrid(nd_array **outs, int n, const nd_array *const *arrays, nd_meshgrid_indexing indexing, bool copy)
{
    ND_PROF_OP_N("meshgrid", NULL, arrays && n > 0 ? n : 0, arrays);
    if (!copy) ND_PROF_BYTES(0); /* views */
    static const char *fn = "nd_meshgrid";
    ND_CHECK_PTR(fn, outs, "outs");
    if (n < 0 || n > ND_MAX_DIMS) return nd__err(ND_ERR_INVALID, fn, "n %d is out of range [0, %d]", n, ND_MAX_DIMS);
    if (indexing != ND_MESHGRID_XY && indexing != ND_MESHGRID_IJ)
        return nd__err(ND_ERR_INVALID, fn, "Valid values for `indexing` are 'xy' and 'ij'.");
    if (n == 0) return ND_OK;
    ND_CHECK_PTR(fn, arrays, "arrays");
    int64_t shape[ND_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        if (!arrays[i]) return nd__err(ND_ERR_INVALID, fn, "arrays[%d] is NULL", i);
        nd_status st = same_device(fn, arrays[0], arrays[i]);
        if (st) return st;
        shape[i] = arrays[i]->size;
    }
    bool xy = indexing == ND_MESHGRID_XY && n > 1;
    if (xy) {
        int64_t s = shape[0];
        shape[0] = shape[1];
        shape[1] = s;
    }
    nd_status st = nd__check_shape(fn, n, shape, ND_FLOAT64, NULL);
    if (st) return st;
    nd_array *views[ND_MAX_DIMS] = {NULL};
    for (int i = 0; i < n && !st; i++) {
        nd_array *flat = NULL;
        st = mp__ravel(&flat, arrays[i]);
        int pos = xy && i < 2 ? 1 - i : i;
        int64_t str[ND_MAX_DIMS] = {0};
        if (!st) {
            str[pos] = flat->strides[0];
            st = mp__view(&views[i], flat, n, shape, str, flat->offset);
        }
        nd_release(flat);
        if (!st && copy) {
            nd_array *c = NULL;
            st = nd_copy(&c, views[i]);
            nd_release(views[i]);
            views[i] = c;
        }
    }
    if (st) {
        for (int i = 0; i < n; i++) nd_release(views[i]);
        return nd__err_prefix(st, fn);
    }
    return mp__finish_list(fn, outs, n, views);
}

nd_status nd_outer(nd_array **out, const nd_array *a, const nd_array *b)
{
    ND_PROF_OP("outer", out, a, b);
    static const char *fn = "nd_outer";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    ND_CHECK_PTR(fn, b, "b");
    nd_status st = same_device(fn, a, b);
    if (st) return st;
    ND_PROF_FLOPS((double)a->size * (double)b->size); /* one multiply per element */
    nd_array *fa = NULL, *fb = NULL, *col = NULL;
    st = mp__ravel(&fa, a);
    if (!st) st = mp__ravel(&fb, b);
    if (!st) st = mp__view(&col, fa, 2, (const int64_t[]){fa->size, 1}, (const int64_t[]){fa->strides[0], 0}, fa->offset);
    if (!st) st = nd_multiply(out, col, fb);
    if (st) st = nd__err_prefix(st, fn); /* the failure is nd_outer's, whichever step it was */
    nd_release(fa);
    nd_release(fb);
    nd_release(col);
    return st;
}

nd_status nd_tensordot(nd_array **out, const nd_array *a, const nd_array *b, int naxes, const int *axes_a,
                       const int *axes_b)
{
    ND_PROF_OP("tensordot", out, a, b);
    static const char *fn = "nd_tensordot";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    ND_CHECK_PTR(fn, b, "b");
    nd_status st = same_device(fn, a, b);
    if (st) return st;
    if ((axes_a == NULL) != (axes_b == NULL))
        return nd__err(ND_ERR_INVALID, fn, "axes_a and axes_b must both be given or both be NULL");
    if (naxes < 0) return nd__err(ND_ERR_INVALID, fn, "naxes %d is negative", naxes);
    int xa[ND_MAX_DIMS], xb[ND_MAX_DIMS];
    if (axes_a == NULL) {
        if (naxes > a->ndim || naxes > b->ndim) return nd__err(ND_ERR_SHAPE, fn, "shape-mismatch for sum");
        for (int i = 0; i < naxes; i++) xa[i] = a->ndim - naxes + i, xb[i] = i;
    } else {
        if (naxes > a->ndim || naxes > b->ndim) return nd__err(ND_ERR_SHAPE, fn, "shape-mismatch for sum");
        for (int i = 0; i < naxes; i++) {
            if ((st = mp__axis(fn, axes_a[i], a->ndim, &xa[i])) || (st = mp__axis(fn, axes_b[i], b->ndim, &xb[i])))
                return st;
        }
    }
    bool ma[ND_MAX_DIMS] = {false}, mb[ND_MAX_DIMS] = {false};
    int64_t K = 1;
    for (int i = 0; i < naxes; i++) {
        if (ma[xa[i]] || mb[xb[i]]) return nd__err(ND_ERR_INVALID, fn, "repeated axis in the axes lists");
        ma[xa[i]] = mb[xb[i]] = true;
        if (a->shape[xa[i]] != b->shape[xb[i]]) return nd__err(ND_ERR_SHAPE, fn, "shape-mismatch for sum");
        K *= a->shape[xa[i]];
    }
    int pa[ND_MAX_DIMS], pb[ND_MAX_DIMS], na = 0, nb = 0, rnd = 0;
    int64_t rshape[ND_MAX_DIMS], M = 1, N = 1;
    for (int i = 0; i < a->ndim; i++)
        if (!ma[i]) pa[na++] = i, rshape[rnd++] = a->shape[i], M *= a->shape[i];
    for (int i = 0; i < naxes; i++) pa[na++] = xa[i], pb[nb++] = xb[i];
    for (int i = 0; i < b->ndim; i++)
        if (!mb[i]) pb[nb++] = i, N *= b->shape[i];
    for (int i = 0; i < b->ndim; i++)
        if (!mb[i]) {
            if (rnd >= ND_MAX_DIMS) return nd__err(ND_ERR_SHAPE, fn, "the result would have more than %d dimensions", ND_MAX_DIMS);
            rshape[rnd++] = b->shape[i];
        }
    ND_PROF_FLOPS(2.0 * (double)M * (double)N * (double)K);
    nd_array *ta = NULL, *tb = NULL, *a2 = NULL, *b2 = NULL, *r = NULL, *rv = NULL;
    st = nd_transpose(&ta, a, pa);
    if (!st) st = nd_transpose(&tb, b, pb);
    if (!st) st = nd_reshape(&a2, ta, 2, (const int64_t[]){M, K});
    if (!st) st = nd_reshape(&b2, tb, 2, (const int64_t[]){K, N});
    if (!st) st = nd_matmul(&r, a2, b2);
    if (!st) st = nd_reshape(&rv, r, rnd, rshape);
    nd_release(ta);
    nd_release(tb);
    nd_release(a2);
    nd_release(b2);
    nd_release(r);
    if (st) return nd__err_prefix(st, fn);
    return nd__out_deliver(fn, out, &rv, rv->dtype, 0);
}
