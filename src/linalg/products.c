/* numpy.linalg's products beside matmul (src/linalg/linalg.c), einsum
 * (src/linalg/einsum.c) and outer/tensordot (src/linalg/matrix.c):
 * nd_linalg_multi_dot, nd_linalg_cross, nd_linalg_vecdot and nd_kron.
 * Backend-neutral compositions of public ops (matmul, multiply, sums,
 * views, concatenate), as the norms are; NumPy 2 semantics. */
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "core/out.h"
#include "core/prof.h"
#include "linalg/la.h"

/* ------------------------------------------------------------------ */
/* multi_dot                                                           */
/* ------------------------------------------------------------------ */

/* The product of arrays[i..j] in the order s (s[i*n + j] = split). */
static nd_status chain(nd_array **res, nd_array *const *arr, const int *s, int n, int i, int j)
{
    if (i == j) {
        *res = nd_retain(arr[i]);
        return ND_OK;
    }
    int k = s[i * n + j];
    nd_array *l = NULL, *r = NULL;
    nd_status st = chain(&l, arr, s, n, i, k);
    if (!st) st = chain(&r, arr, s, n, k + 1, j);
    if (!st) st = nd_dot(res, l, r);
    nd_release(l);
    nd_release(r);
    return st;
}

nd_status nd_linalg_multi_dot(nd_array **out, int n, const nd_array *const *arrays)
{
    ND_PROF_OP_N("linalg_multi_dot", out, n > 0 && arrays ? n : 0, arrays);
    static const char *fn = "nd_linalg_multi_dot";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, arrays, "arrays");
    if (n < 2) return nd__err(ND_ERR_INVALID, fn, "Expecting at least two arrays.");
    for (int i = 0; i < n; i++)
        if (arrays[i] == NULL) return nd__err(ND_ERR_INVALID, fn, "arrays[%d] is NULL", i);
    for (int i = 1; i < n; i++) {
        nd_status st = nd__la_same_device(fn, arrays[0], arrays[i]);
        if (st) return st;
    }
    nd_status st;
    nd_array *r = NULL;
    if (n == 2) {
        if ((st = nd_dot(&r, arrays[0], arrays[1]))) return nd__err_prefix(st, fn);
        return nd__out_deliver(fn, out, &r, r->dtype, ND_OUT_CONTIGUOUS);
    }
    int nd0 = arrays[0]->ndim, ndl = arrays[n - 1]->ndim;
    for (int i = 0; i < n; i++) {
        int nd = arrays[i]->ndim;
        bool vec_ok = (i == 0 || i == n - 1) && nd == 1;
        if (nd != 2 && !vec_ok)
            return nd__err(ND_ERR_SHAPE, fn, "%d-dimensional array given. Array must be two-dimensional", nd);
    }
    nd_array **arr = nd__calloc((size_t)n, sizeof *arr);
    int *s = nd__calloc((size_t)n * (size_t)n, sizeof *s);
    double *cost = nd__calloc((size_t)n * (size_t)n, sizeof *cost);
    double *p = nd__calloc((size_t)n + 1, sizeof *p);
    if (!arr || !s || !cost || !p) {
        st = nd__err(ND_ERR_NOMEM, fn, "out of host memory for %d arrays", n);
        goto done;
    }
    st = ND_OK;
    for (int i = 0; i < n && !st; i++) {
        const nd_array *x = arrays[i];
        if (x->ndim == 1) {
            int64_t sh[2] = {1, x->shape[0]};
            if (i == n - 1) sh[0] = x->shape[0], sh[1] = 1;
            st = nd_reshape(&arr[i], x, 2, sh);
        } else {
            arr[i] = nd_retain((nd_array *)x);
        }
    }
    if (st) goto done;
    for (int i = 0; i < n; i++) p[i] = (double)arr[i]->shape[0];
    p[n] = (double)arr[n - 1]->shape[1];
    { /* the product's shape must exist before any intermediate is computed */
        nd_dtype rt = arr[0]->dtype;
        for (int i = 1; i < n && !st; i++) st = nd_result_type(&rt, rt, arr[i]->dtype);
        if (!st) st = nd__check_shape(fn, 2, (const int64_t[]){arr[0]->shape[0], arr[n - 1]->shape[1]}, rt, NULL);
        if (st) goto done;
    }
    if (n == 3) { /* NumPy's _multi_dot_three */
        double c1 = p[0] * p[2] * (p[1] + p[3]); /* (AB)C */
        double c2 = p[1] * p[3] * (p[0] + p[2]); /* A(BC) */
        s[0 * n + 2] = c1 < c2 ? 1 : 0;
        s[1 * n + 2] = 1;
        s[0 * n + 1] = 0;
    } else { /* NumPy's _multi_dot_matrix_chain_order */
        for (int l = 1; l < n; l++)
            for (int i = 0; i < n - l; i++) {
                int j = i + l;
                cost[i * n + j] = INFINITY;
                for (int k = i; k < j; k++) {
                    double q = cost[i * n + k] + cost[(k + 1) * n + j] + p[i] * p[k + 1] * p[j + 1];
                    if (q < cost[i * n + j]) {
                        cost[i * n + j] = q;
                        s[i * n + j] = k;
                    }
                }
            }
    }
    if ((st = chain(&r, arr, s, n, 0, n - 1))) goto done;
    if (nd0 == 1 || ndl == 1) { /* back to 0-d or 1-d */
        int64_t sh[1] = {nd0 == 1 ? r->shape[1] : r->shape[0]};
        nd_array *v = NULL;
        st = nd_reshape(&v, r, nd0 == 1 && ndl == 1 ? 0 : 1, sh);
        nd_release(r);
        r = st ? NULL : v;
    }
done:
    if (arr)
        for (int i = 0; i < n; i++) nd_release(arr[i]);
    nd__free(arr);
    nd__free(s);
    nd__free(cost);
    nd__free(p);
    if (st) {
        nd_release(r);
        return nd__err_prefix(st, fn);
    }
    return nd__out_deliver(fn, out, &r, r->dtype, ND_OUT_CONTIGUOUS);
}

/* ------------------------------------------------------------------ */
/* cross, vecdot, kron                                                 */
/* ------------------------------------------------------------------ */

/* a with axis ax moved last (a view). */
static nd_status axis_last(nd_array **res, const nd_array *a, int ax)
{
    return nd_moveaxis(res, a, 1, &ax, (const int[]){-1});
}

/* x[..., k:k+1] (a view). */
static nd_status comp(nd_array **res, const nd_array *x, int64_t k)
{
    nd_range rg[ND_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++) rg[i] = ND_ALL;
    rg[x->ndim - 1] = (nd_range){k, k + 1, 1};
    return nd_slice(res, x, x->ndim, rg);
}

/* c = x*y - z*w */
static nd_status msub(nd_array **c, const nd_array *x, const nd_array *y, const nd_array *z, const nd_array *w)
{
    nd_array *p = NULL, *q = NULL;
    nd_status st = nd_multiply(&p, x, y);
    if (!st) st = nd_multiply(&q, z, w);
    if (!st) st = nd_subtract(c, p, q);
    nd_release(p);
    nd_release(q);
    return st;
}

nd_status nd_linalg_cross(nd_array **out, const nd_array *a, const nd_array *b, int axis)
{
    ND_PROF_OP("linalg_cross", out, a, b);
    static const char *fn = "nd_linalg_cross";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    ND_CHECK_PTR(fn, b, "b");
    nd_status st;
    if ((st = nd__la_same_device(fn, a, b))) return st;
    if (a->ndim < 1 || b->ndim < 1) return nd__err(ND_ERR_SHAPE, fn, "At least one array has zero dimension");
    int axa = 0, axb = 0;
    if ((st = nd__la_norm_axis(fn, axis, a->ndim, &axa)) || (st = nd__la_norm_axis(fn, axis, b->ndim, &axb))) return st;
    if (a->shape[axa] != 3 || b->shape[axb] != 3)
        return nd__err(ND_ERR_SHAPE, fn,
                       "Both input arrays must be (arrays of) 3-dimensional vectors, but they are %lld and %lld "
                       "dimensional instead.",
                       (long long)a->shape[axa], (long long)b->shape[axb]);
    nd_dtype t;
    if ((st = nd_result_type(&t, a->dtype, b->dtype))) return nd__err_prefix(st, fn);
    if (t == ND_BOOL)
        return nd__err(ND_ERR_DTYPE, fn,
                       "numpy boolean subtract, the `-` operator, is not supported (cross of two bool arrays)");
    nd_array *A = NULL, *B = NULL, *ac[3] = {NULL}, *bc[3] = {NULL}, *c[3] = {NULL}, *cat = NULL;
    if ((st = axis_last(&A, a, axa)) || (st = axis_last(&B, b, axb))) goto done;
    for (int k = 0; k < 3 && !st; k++)
        if (!(st = comp(&ac[k], A, k))) st = comp(&bc[k], B, k);
    if (st) goto done;
    if ((st = msub(&c[0], ac[1], bc[2], ac[2], bc[1]))) goto done;
    if ((st = msub(&c[1], ac[2], bc[0], ac[0], bc[2]))) goto done;
    if ((st = msub(&c[2], ac[0], bc[1], ac[1], bc[0]))) goto done;
    if ((st = nd_concatenate(&cat, 3, (const nd_array *const *)c, -1))) goto done;
    {
        int axc;
        if ((st = nd__la_norm_axis(fn, axis, cat->ndim, &axc))) goto done;
        nd_array *v = NULL;
        st = nd_moveaxis(&v, cat, 1, (const int[]){-1}, &axc);
        nd_release(cat);
        cat = st ? NULL : v;
    }
done:
    nd_release(A);
    nd_release(B);
    for (int k = 0; k < 3; k++) {
        nd_release(ac[k]);
        nd_release(bc[k]);
        nd_release(c[k]);
    }
    if (st) {
        nd_release(cat);
        return nd__err_prefix(st, fn);
    }
    return nd__out_deliver(fn, out, &cat, t, ND_OUT_CONTIGUOUS | ND_OUT_ROUND);
}

nd_status nd_linalg_vecdot(nd_array **out, const nd_array *a, const nd_array *b, int axis)
{
    ND_PROF_OP("linalg_vecdot", out, a, b);
    static const char *fn = "nd_linalg_vecdot";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    ND_CHECK_PTR(fn, b, "b");
    nd_status st;
    if ((st = nd__la_same_device(fn, a, b))) return st;
    for (int i = 0; i < 2; i++)
        if ((i ? b : a)->ndim < 1)
            return nd__err(ND_ERR_SHAPE, fn,
                           "Input operand %d does not have enough dimensions (has 0, gufunc core with signature "
                           "(n),(n)->() requires 1)",
                           i);
    int axa = 0, axb = 0;
    if ((st = nd__la_norm_axis(fn, axis, a->ndim, &axa)) || (st = nd__la_norm_axis(fn, axis, b->ndim, &axb))) return st;
    if (a->shape[axa] != b->shape[axb])
        return nd__err(ND_ERR_SHAPE, fn,
                       "Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n),(n)->() "
                       "(size %lld is different from %lld)",
                       (long long)b->shape[axb], (long long)a->shape[axa]);
    nd_dtype t;
    if ((st = nd_result_type(&t, a->dtype, b->dtype))) return nd__err_prefix(st, fn);
    nd_array *A = NULL, *B = NULL, *p = NULL;
    if ((st = axis_last(&A, a, axa)) || (st = axis_last(&B, b, axb))) goto done;
    if (nd__is_complex(A->dtype)) {
        nd_array *c = NULL;
        st = nd_conj(&c, A);
        nd_release(A);
        A = c;
        if (st) goto done;
    }
    if ((st = nd_multiply(&p, A, B))) goto done;
    {
        const int last[1] = {-1};
        nd_array *r = NULL;
        st = nd_reduce(&r, ND_REDUCE_SUM, p, 1, last, false);
        nd_release(p);
        p = r;
    }
done:
    nd_release(A);
    nd_release(B);
    if (st) {
        nd_release(p);
        return nd__err_prefix(st, fn);
    }
    return nd__out_deliver(fn, out, &p, t, ND_OUT_CONTIGUOUS | ND_OUT_ROUND);
}

nd_status nd_kron(nd_array **out, const nd_array *a, const nd_array *b)
{
    ND_PROF_OP("kron", out, a, b);
    static const char *fn = "nd_kron";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    ND_CHECK_PTR(fn, b, "b");
    nd_status st;
    if ((st = nd__la_same_device(fn, a, b))) return st;
    nd_dtype t;
    if ((st = nd_result_type(&t, a->dtype, b->dtype))) return nd__err_prefix(st, fn);
    nd_array *r = NULL;
    int nda = a->ndim > b->ndim ? a->ndim : b->ndim; /* a padded to at least b's ndim */
    if (nda == 0 || b->ndim == 0) {
        if ((st = nd_multiply(&r, a, b))) return nd__err_prefix(st, fn);
        return nd__out_deliver(fn, out, &r, t, ND_OUT_CONTIGUOUS | ND_OUT_ROUND);
    }
    int nd = nda;
    int64_t as[ND_MAX_DIMS], bs[ND_MAX_DIMS], rs[ND_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        int ia = i - (nd - a->ndim), ib = i - (nd - b->ndim);
        as[i] = ia >= 0 ? a->shape[ia] : 1;
        bs[i] = ib >= 0 ? b->shape[ib] : 1;
        if (__builtin_mul_overflow(as[i], bs[i], &rs[i]))
            return nd__err(ND_ERR_INVALID, fn, "array is too big: the result's extent %lld x %lld overflows", (long long)as[i],
                           (long long)bs[i]);
    }
    /* interleaved shapes: an axis where neither extent is 1 becomes
     * (as_i, 1) in a and (1, bs_i) in b; the others stay one axis */
    int64_t ia_sh[ND_MAX_DIMS], ib_sh[ND_MAX_DIMS];
    int m = 0;
    for (int i = 0; i < nd; i++) {
        if (as[i] != 1 && bs[i] != 1) {
            if (m + 2 > ND_MAX_DIMS) goto too_many;
            ia_sh[m] = as[i], ib_sh[m] = 1, m++;
            ia_sh[m] = 1, ib_sh[m] = bs[i], m++;
        } else {
            if (m + 1 > ND_MAX_DIMS) goto too_many;
            ia_sh[m] = as[i], ib_sh[m] = bs[i], m++;
        }
    }
    if ((st = nd__check_shape(fn, nd, rs, t, NULL))) return st;
    {
        nd_array *av = NULL, *bv = NULL, *p = NULL;
        st = nd_reshape(&av, a, m, ia_sh);
        if (!st) st = nd_reshape(&bv, b, m, ib_sh);
        if (!st) st = nd_multiply(&p, av, bv);
        if (!st) st = nd_reshape(&r, p, nd, rs);
        nd_release(av);
        nd_release(bv);
        nd_release(p);
        if (st) return nd__err_prefix(st, fn);
    }
    return nd__out_deliver(fn, out, &r, t, ND_OUT_CONTIGUOUS | ND_OUT_ROUND);
too_many:
    return nd__err(ND_ERR_UNSUPPORTED, fn,
                   "the interleaved product needs more than %d dimensions (ndim %d, extents other than 1 on both sides)",
                   ND_MAX_DIMS, nd);
}
