/* numpy.linalg's functions built on the SVD: nd_linalg_lstsq,
 * pinv, matrix_rank, cond. The factorisations come from the slot through
 * the shared stacks of src/linalg/la.c; everything else is nd_* ops, so
 * these run unchanged on every device. The decisions taken where NumPy had
 * to be interpreted are listed at the top of src/linalg/decomp.c (lstsq's
 * default rcond in the computing precision, pinv's hermitian path through
 * eigh, matrix_rank's float64 comparison with a given tol, cond's inf for
 * singular matrices and NaN results). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/la.h"
#include "core/prof.h"

/* out = mask ? 1 / x : 0 (mask bool, x real; never divides by zero). */
static nd_status masked_recip(nd_array **out, const nd_array *x, const nd_array *mask)
{
    nd_array *one = NULL, *den = NULL;
    nd_status st = nd_full(&one, x->dtype, 0, NULL, nd_scalar_float(1.0), x->device);
    if (!st) st = nd_where(&den, mask, x, one);
    if (!st) st = nd_divide(out, mask, den);
    nd_release(one), nd_release(den);
    return st;
}

/* The last axis of x (a real (bs..., K) stack) at index i, as (bs...). */
static nd_status take_last(nd_array **v, const nd_array *x, int64_t i)
{
    return nd__view(v, x, x->dtype, x->ndim - 1, x->shape, x->strides,
                    x->offset + i * x->strides[x->ndim - 1] * (int64_t)nd__itemsize(x->dtype));
}

/* x (bs..., K) viewed as (bs..., K, 1) (keepdims == false) or the first
 * element of its last axis as (bs..., 1) (keepdims == true). */
static nd_status col_view(nd_array **v, const nd_array *x, bool first)
{
    int64_t shape[ND_MAX_DIMS], str[ND_MAX_DIMS];
    const int n = x->ndim;
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)n);
    memcpy(str, x->strides, sizeof(int64_t) * (size_t)n);
    if (first) {
        shape[n - 1] = 1;
        return nd__view(v, x, x->dtype, n, shape, str, x->offset);
    }
    shape[n] = 1, str[n] = 1;
    return nd__view(v, x, x->dtype, n + 1, shape, str, x->offset);
}

/* sum(|r|^2) over axis 0 of the 2-D r: real (cols,). */
static nd_status col_sq_norms(nd_array **out, const nd_array *r)
{
    nd_array *ab = NULL, *sq = NULL;
    static const int ax0[1] = {0};
    nd_status st = nd_abs(&ab, r);
    if (!st) st = nd_square(&sq, ab);
    if (!st) st = nd_reduce(out, ND_REDUCE_SUM, sq, 1, ax0, false);
    nd_release(ab), nd_release(sq);
    return st;
}

/* ------------------------------------------------------------------ */
/* lstsq                                                               */
/* ------------------------------------------------------------------ */
nd_status nd_linalg_lstsq(nd_array **x, nd_array **residuals, int64_t *rank, nd_array **s, const nd_array *a,
                          const nd_array *b, double rcond)
{
    ND_PROF_OP("linalg_lstsq", x, a, b);
    static const char fn[] = "nd_linalg_lstsq";
    ND_CHECK_PTR(fn, x, "x");
    ND_CHECK_PTR(fn, a, "a");
    ND_CHECK_PTR(fn, b, "b");
    if (a->ndim != 2)
        return nd__err(ND_ERR_SHAPE, fn, "'a': %d-dimensional array given. Array must be two-dimensional", a->ndim);
    if (b->ndim != 1 && b->ndim != 2)
        return nd__err(ND_ERR_SHAPE, fn, "'b': %d-dimensional array given. Array must be one- or two-dimensional",
                       b->ndim);
    nd_dtype ta, tb;
    nd_status st;
    if ((st = nd__la_ctype(fn, a, "a", &ta)) || (st = nd__la_ctype(fn, b, "b", &tb)) ||
        (st = nd__la_same_device(fn, a, b)))
        return st;
    const nd_dtype ct = nd__la_join(ta, tb), rt = nd__la_real(ct);
    const bool cpx = nd__is_complex(ct), vec = b->ndim == 1;
    const int64_t M = a->shape[0], N = a->shape[1], K = M < N ? M : N, nr = vec ? 1 : b->shape[1];
    if (b->shape[0] != M)
        return nd__err(ND_ERR_SHAPE, fn, "Incompatible dimensions: 'a' has %lld rows, 'b' %lld", (long long)M,
                       (long long)b->shape[0]);
    const nd_device dev = a->device;
    const double rc = rcond < 0 ? nd__la_eps(rt) * (double)(M > N ? M : N) : rcond;
    const int64_t xs[2] = {N, nr}, ks[1] = {K};
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *bm = NULL, *Bc = NULL, *U = NULL, *S = NULL, *VT = NULL, *SI = NULL, *t1 = NULL, *t2 = NULL,
             *Uh = NULL, *Vc = NULL, *X = NULL, *xv = NULL, *Ac = NULL, *AX = NULL, *R = NULL, *res = NULL;
    double *hs = NULL;
    void *hsi = NULL;
    int64_t rk = 0;
    if ((st = nd__la_out(&o, x, ct, vec ? 1 : 2, xs, dev)) || (st = nd__la_out(&o, s, rt, 1, ks, dev))) goto done;
    { /* b as an (M, nr) matrix in ct */
        const int64_t sh[2] = {M, nr}, str[2] = {b->strides[0], vec ? 1 : b->strides[1]};
        if ((st = nd__view(&bm, b, b->dtype, 2, sh, str, b->offset)) || (st = nd__la_pack(&Bc, bm, 0, NULL, ct, false)))
            goto done;
    }
    if (K == 0) { /* rank 0, x = 0; N == 0 < M: the residuals are |b|^2 */
        if ((st = nd__la_put_value(&o, 0, 0.0))) goto done;
        if (N == 0 && M > 0 && (st = col_sq_norms(&res, Bc))) goto done;
    } else {
        if ((st = nd__la_ready(fn, dev))) goto done;
        if ((st = nd__la_svd_stack(fn, a, ct, ND_LA_JOB_S, &U, &S, &VT))) goto done;
        /* the K singular values on the host: rank and 1/s */
        nd_array *s64 = NULL;
        hs = nd__malloc(sizeof(double) * (size_t)K);
        hsi = nd__malloc(sizeof(double) * (size_t)K);
        if (!hs || !hsi) {
            st = nd__err(ND_ERR_NOMEM, fn, "cannot allocate %lld singular values on the host", (long long)K);
            goto done;
        }
        if ((st = nd_astype(&s64, S, ND_FLOAT64))) goto done;
        st = nd_copy_to_host(hs, s64, sizeof(double) * (size_t)K);
        nd_release(s64);
        if (st) goto done;
        const double cut = rc * hs[0];
        for (int64_t i = 0; i < K; i++) {
            const bool keep = hs[i] > cut;
            rk += keep;
            if (rt == ND_FLOAT32) ((float *)hsi)[i] = keep ? (float)(1.0 / hs[i]) : 0.0f;
            else ((double *)hsi)[i] = keep ? 1.0 / hs[i] : 0.0;
        }
        /* x = V diag(sinv) U^H b; U holds u^T, VT holds vt^T (row-major) */
        const int64_t sis[2] = {K, 1};
        if ((st = nd_from_host(&SI, hsi, rt, 2, sis, dev))) goto done;
        if (cpx && ((st = nd_conj(&Uh, U)) || (st = nd_conj(&Vc, VT)))) goto done;
        if ((st = nd_matmul(&t1, cpx ? Uh : U, Bc)) || (st = nd_multiply(&t2, SI, t1)) ||
            (st = nd_matmul(&X, cpx ? Vc : VT, t2)))
            goto done;
        if (vec) st = nd__la_reshaped(&xv, X, 1, xs);
        if (st || (st = nd__la_put(&o, 0, vec ? xv : X))) goto done;
        if (rk == N && M > N) {
            if ((st = nd__la_pack(&Ac, a, 0, NULL, ct, false)) || (st = nd_matmul(&AX, Ac, X)) ||
                (st = nd_subtract(&R, Bc, AX)) || (st = col_sq_norms(&res, R)))
                goto done;
        }
        if ((st = nd__la_put(&o, 1, S))) goto done;
    }
    {
        const int64_t rs[1] = {res ? nr : 0};
        if ((st = nd__la_out(&o, residuals, rt, 1, rs, dev))) goto done;
        if (res) st = nd__la_put(&o, 2, res);
    }
done:
    nd__free(hs), nd__free(hsi);
    nd_release(bm), nd_release(Bc), nd_release(U), nd_release(S), nd_release(VT), nd_release(SI), nd_release(t1);
    nd_release(t2), nd_release(Uh), nd_release(Vc), nd_release(X), nd_release(xv), nd_release(Ac), nd_release(AX);
    nd_release(R), nd_release(res);
    st = nd__la_outs_end(&o, st);
    if (!st && rank) *rank = rk;
    return st;
}

/* ------------------------------------------------------------------ */
/* pinv                                                                */
/* ------------------------------------------------------------------ */
nd_status nd_linalg_pinv(nd_array **out, const nd_array *a, double rcond, bool hermitian)
{
    ND_PROF_OP("linalg_pinv", out, a);
    static const char fn[] = "nd_linalg_pinv";
    ND_CHECK_PTR(fn, out, "out");
    nd_dtype ct;
    nd_status st = nd__la_check(fn, a, "a", hermitian, &ct);
    if (st) return st;
    const int nb = a->ndim - 2;
    const bool cpx = nd__is_complex(ct);
    const double rc = rcond < 0 ? 1e-15 : rcond;
    int64_t rs[ND_MAX_DIMS];
    memcpy(rs, a->shape, sizeof(int64_t) * (size_t)nb);
    rs[nb] = a->shape[nb + 1], rs[nb + 1] = a->shape[nb];
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *U = NULL, *S = NULL, *VT = NULL, *sm = NULL, *cut = NULL, *large = NULL, *si = NULL, *si3 = NULL,
             *W = NULL, *P = NULL, *aw = NULL, *Vc = NULL, *Vt = NULL;
    if ((st = nd__la_out(&o, out, ct, nb + 2, rs, a->device))) goto done;
    if (a->size == 0) goto done; /* the result is empty too */
    if ((st = nd__la_ready(fn, a->device))) goto done;
    if (!hermitian) {
        /* pinv = conj(vt^T) diag(sinv) conj(u^T) = conj(VT @ (sinv * U)) */
        if ((st = nd__la_svd_stack(fn, a, ct, ND_LA_JOB_S, &U, &S, &VT)) || (st = col_view(&sm, S, true)) ||
            (st = nd_binary_scalar(&cut, ND_BINARY_MULTIPLY, sm, nd_scalar_float(rc))) ||
            (st = nd_greater(&large, S, cut)) || (st = masked_recip(&si, S, large)) ||
            (st = col_view(&si3, si, false)) || (st = nd_multiply(&W, si3, U)) || (st = nd_matmul(&P, VT, W)))
            goto done;
        if (cpx && (st = nd_conj(&P, P))) goto done;
    } else {
        /* pinv = V diag(winv) V^H with V (its transpose in U) from eigh */
        const int axl[1] = {-1};
        if ((st = nd__la_eigh_stack(fn, a, ct, true, true, &S, &U)) || (st = nd_abs(&aw, S)) ||
            (st = nd_reduce(&sm, ND_REDUCE_MAX, aw, 1, axl, true)) ||
            (st = nd_binary_scalar(&cut, ND_BINARY_MULTIPLY, sm, nd_scalar_float(rc))) ||
            (st = nd_greater(&large, aw, cut)) || (st = masked_recip(&si, S, large)) ||
            (st = col_view(&si3, si, false)))
            goto done;
        if (cpx && (st = nd_conj(&Vc, U))) goto done;
        if ((st = nd_multiply(&W, si3, cpx ? Vc : U)) || (st = nd__la_swap(&Vt, U)) || (st = nd_matmul(&P, Vt, W)))
            goto done;
    }
    st = nd__la_put(&o, 0, P);
done:
    nd_release(U), nd_release(S), nd_release(VT), nd_release(sm), nd_release(cut), nd_release(large);
    nd_release(si), nd_release(si3), nd_release(W), nd_release(P), nd_release(aw), nd_release(Vc), nd_release(Vt);
    return nd__la_outs_end(&o, st);
}

/* ------------------------------------------------------------------ */
/* matrix_rank                                                         */
/* ------------------------------------------------------------------ */
nd_status nd_linalg_matrix_rank(nd_array **out, const nd_array *a, double tol, bool hermitian)
{
    ND_PROF_OP("linalg_matrix_rank", out, a);
    static const char fn[] = "nd_linalg_matrix_rank";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    nd_dtype ct;
    nd_status st = nd__la_ctype(fn, a, "a", &ct);
    if (st) return st;
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *any = NULL, *S = NULL, *sm = NULL, *thr = NULL, *gt = NULL, *cnt = NULL;
    if (a->ndim < 2) { /* NumPy: int(not all(a == 0)) */
        if ((st = nd__la_out(&o, out, ND_INT64, 0, NULL, a->device)) ||
            (st = nd_reduce(&any, ND_REDUCE_ANY, a, -1, NULL, false)))
            goto done;
        st = nd__la_put(&o, 0, any);
        goto done;
    }
    if (hermitian && (st = nd__la_check(fn, a, "a", true, NULL))) return st;
    const int nb = a->ndim - 2;
    const int64_t M = a->shape[nb], N = a->shape[nb + 1];
    if ((st = nd__la_out(&o, out, ND_INT64, nb, a->shape, a->device))) goto done;
    if (nd__la_batch(a) == 0) goto done;
    if (M == 0 || N == 0) {
        st = nd__la_put_value(&o, 0, 0.0);
        goto done;
    }
    if ((st = nd__la_ready(fn, a->device)) || (st = nd__la_svals(fn, a, ct, hermitian, &S))) goto done;
    if (tol < 0) {
        const int axl[1] = {-1};
        const double f = (double)(M > N ? M : N) * nd__la_eps(S->dtype);
        if ((st = nd_reduce(&sm, ND_REDUCE_MAX, S, 1, axl, true)) ||
            (st = nd_binary_scalar(&thr, ND_BINARY_MULTIPLY, sm, nd_scalar_float(f))))
            goto done;
    } else if ((st = nd_full(&thr, ND_FLOAT64, 0, NULL, nd_scalar_float(tol), a->device))) {
        goto done;
    }
    if ((st = nd_greater(&gt, S, thr)) || (st = nd_count_nonzero(&cnt, gt, 1, ND_LA_LAST, false))) goto done;
    st = nd__la_put(&o, 0, cnt);
done:
    nd_release(any), nd_release(S), nd_release(sm), nd_release(thr), nd_release(gt), nd_release(cnt);
    return nd__la_outs_end(&o, st);
}

/* ------------------------------------------------------------------ */
/* cond                                                                */
/* ------------------------------------------------------------------ */
nd_status nd_linalg_cond(nd_array **out, const nd_array *a, nd_norm_ord ord)
{
    ND_PROF_OP("linalg_cond", out, a);
    static const char fn[] = "nd_linalg_cond";
    ND_CHECK_PTR(fn, out, "out");
    nd_dtype ct;
    nd_status st = nd__la_check(fn, a, "a", false, &ct);
    if (st) return st;
    const double p = ord.p;
    if (ord.kind != ND_NORM_DEFAULT && ord.kind != ND_NORM_P && ord.kind != ND_NORM_FRO && ord.kind != ND_NORM_NUC)
        return nd__err(ND_ERR_INVALID, fn, "Invalid norm order for matrices (kind %d).", (int)ord.kind);
    if (ord.kind == ND_NORM_P && !(fabs(p) == 1 || fabs(p) == 2 || isinf(p)))
        return nd__err(ND_ERR_INVALID, fn, "Invalid norm order for matrices (%g).", p);
    const bool two = ord.kind == ND_NORM_DEFAULT || (ord.kind == ND_NORM_P && fabs(p) == 2);
    if (!two && (st = nd__la_check(fn, a, "a", true, NULL))) return st;
    const int nb = a->ndim - 2;
    const int64_t M = a->shape[nb], N = a->shape[nb + 1], K = M < N ? M : N, batch = nd__la_batch(a);
    if (a->size == 0 && M * N == 0) return nd__err(ND_ERR_INVALID, fn, "cond is not defined on empty arrays");
    const nd_dtype rt = nd__la_real(ct);
    const nd_device dev = a->device;
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *S = NULL, *s0 = NULL, *sl = NULL, *r = NULL, *Ar = NULL, *X = NULL, *nA = NULL, *nX = NULL,
             *inf = NULL, *sing = NULL, *r1 = NULL, *nr = NULL, *xn = NULL, *xa = NULL, *nx = NULL, *m = NULL,
             *r2 = NULL;
    int32_t *info = NULL;
    uint8_t *hsing = NULL;
    if ((st = nd__la_out(&o, out, rt, nb, a->shape, dev))) goto done;
    if (batch == 0) goto done;
    if ((st = nd__la_ready(fn, dev)) || (st = nd_full(&inf, rt, 0, NULL, nd_scalar_float(INFINITY), dev))) goto done;
    if (two) {
        if ((st = nd__la_svals(fn, a, ct, false, &S)) || (st = take_last(&s0, S, 0)) ||
            (st = take_last(&sl, S, K - 1)) || (st = p == -2 ? nd_divide(&r, sl, s0) : nd_divide(&r, s0, sl)))
            goto done;
    } else {
        /* norm(a) * norm(inv(a)); singular matrices give inf */
        if ((st = nd__la_pack(&Ar, a, nb, a->shape, ct, false)) || (st = nd__la_inv_stack(fn, &X, a, ct, &info)) ||
            (st = nd_linalg_matrix_norm(&nA, Ar, ord, false)) || (st = nd_linalg_matrix_norm(&nX, X, ord, false)) || (st = nd_multiply(&r1, nA, nX)))
            goto done;
        if (!(hsing = nd__malloc((size_t)batch))) {
            st = nd__err(ND_ERR_NOMEM, fn, "cannot allocate %lld flags", (long long)batch);
            goto done;
        }
        for (int64_t i = 0; i < batch; i++) hsing[i] = info[i] > 0;
        if ((st = nd_from_host(&sing, hsing, ND_BOOL, nb, a->shape, dev)) || (st = nd_where(&r, sing, inf, r1)))
            goto done;
    }
    /* NumPy: a NaN result is inf unless the matrix has a NaN */
    {
        const int ax2[2] = {-2, -1};
        if ((st = nd_isnan(&nr, r)) || (st = nd_isnan(&xn, a)) || (st = nd_reduce(&xa, ND_REDUCE_ANY, xn, 2, ax2, false)) ||
            (st = nd_logical_not(&nx, xa)) || (st = nd_logical_and(&m, nr, nx)) || (st = nd_where(&r2, m, inf, r)))
            goto done;
    }
    st = nd__la_put(&o, 0, r2);
done:
    nd__free(info), nd__free(hsing);
    nd_release(S), nd_release(s0), nd_release(sl), nd_release(r), nd_release(Ar), nd_release(X);
    nd_release(nA), nd_release(nX), nd_release(inf), nd_release(sing), nd_release(r1), nd_release(nr);
    nd_release(xn), nd_release(xa), nd_release(nx), nd_release(m), nd_release(r2);
    return nd__la_outs_end(&o, st);
}
