/* numpy.linalg's decompositions and what is built on them:
 * nd_linalg_solve, inv, det, slogdet, cholesky, qr, svd, svdvals, eigh,
 * eigvalsh, eig, eigvals, lstsq, pinv, matrix_rank, cond.
 *
 * The core does the work; a backend only factorises (the slot `la`,
 * src/shared/la_slots.h). This file validates, picks the computing dtype, answers the
 * empty cases itself, packs the column-major stacks, calls the slot, turns
 * info into LinAlgError messages and composes the rest with nd_* ops, so
 * it runs unchanged on every device. Shared machinery (validation,
 * packing, slot calls, the multi-output out-transaction, the SVD / eigh /
 * inverse stacks): src/linalg/la.c; lstsq, pinv, matrix_rank and cond:
 * src/linalg/lstsq.c.
 *
 * Decisions (NumPy 2.4 is the reference):
 * - dtypes: float16/bfloat16 compute in float32, bool/integers in float64
 *   (NumPy refuses float16; CuPy computes it in float32). Two operands
 *   (solve, lstsq) compute in NumPy's _commonType of the two.
 * - solve: b is a vector only when b.ndim == 1 (NumPy 2), else (..., n, k);
 *   the leading axes broadcast. inv is GESV against identities.
 * - det = prod(diag U) * (-1)^(pivots moved), slogdet's sign = prod(d/|d|)
 *   times that parity, logabsdet = sum(log|d|) (an exactly zero pivot
 *   gives sign 0 and -inf without a special case). det is the direct
 *   product (NumPy goes through exp(logdet): the two differ only in the
 *   last bits, or where the product overflows in between). det and
 *   slogdet of a singular matrix are 0 / (0, -inf), not errors. The LU is
 *   that of a^T (no transposed copy needed: det(a^T) = det(a)).
 * - cholesky(upper): a's upper triangle is read (NumPy 2's cholesky_up):
 *   the slot factorises conj(a) stored as is (column-major that is a^H,
 *   whose lower triangle is the Hermitian matrix's), and U = L^H is then
 *   conj of the slot's buffer read row-major.
 * - qr: R = triu of the first K (complete: M) rows of GEQRF's result; Q
 *   by ORGQR on the first K reflectors (complete with M > N: an M x M
 *   buffer, zeros beyond the reflectors). Empty matrices: complete Q is
 *   the identity, as NumPy.
 * - svd with K == 0 and full_matrices: U and Vh are identities (NumPy).
 * - eigh takes 'L'/'U' in either case (NumPy upper-cases UPLO); anything
 *   else is ND_ERR_INVALID "UPLO argument must be 'L' or 'U'".
 * - lstsq through the SVD: x = V diag(1/s_i, s_i > rcond s_max) U^H b;
 *   rank = the count kept; residuals = |b - a x|^2 per column when
 *   rank == N and M > N (also N == 0 < M: |b|^2, as NumPy), else (0,);
 *   M == 0 gives x = 0. The default rcond is eps of the COMPUTING dtype
 *   times max(M, N) (NumPy computes everything in double and uses
 *   eps(double); we compute float32 in float32, where eps(double) would
 *   keep noise singular values). The singular values go to the host to
 *   count the rank (min(M, N) numbers).
 * - pinv: default rcond 1e-15 (rcond < 0); hermitian uses eigh (lower
 *   triangle) and |w| as the singular values, as NumPy.
 * - matrix_rank: tol < 0 is S.max * max(M, N) * eps(S.dtype); the
 *   comparison S > tol is made in float64 for a given tol (NumPy's 0-d
 *   float64 tol); ndim < 2: int(not all(a == 0)).
 * - cond: ord DEFAULT/2/-2 from the singular values (any shape), other
 *   ords norm(a) * norm(inv(a)) with nd_linalg_matrix_norm (square only);
 *   a singular matrix (GESV's info) gives inf, and, as NumPy, a NaN result
 *   becomes inf unless the matrix has a NaN. Empty matrices:
 *   ND_ERR_INVALID "cond is not defined on empty arrays" (an empty batch
 *   of non-empty matrices gives an empty result).
 * - Errors carry the flat batch index: "nd_linalg_inv: singular matrix
 *   (batch 2)". Results that NumPy gives real are real. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/la.h"
#include "core/prof.h"




/* ------------------------------------------------------------------ */
/* solve, inv                                                          */
/* ------------------------------------------------------------------ */
static nd_status solve_impl(const char *fn, nd_array **out, const nd_array *a, const nd_array *b)
{
    ND_CHECK_PTR(fn, out, "out");
    nd_dtype ta, tb;
    nd_status st = nd__la_check(fn, a, "a", true, &ta);
    if (st) return st;
    ND_CHECK_PTR(fn, b, "b");
    if (b->ndim < 1) return nd__err(ND_ERR_SHAPE, fn, "'b' is 0-dimensional; it must be (..., n) or (..., n, k)");
    if ((st = nd__la_ctype(fn, b, "b", &tb)) || (st = nd__la_same_device(fn, a, b))) return st;
    const nd_dtype ct = nd__la_join(ta, tb);
    const int64_t n = a->shape[a->ndim - 1];
    const bool vec = b->ndim == 1;
    const int64_t bn = vec ? b->shape[0] : b->shape[b->ndim - 2], k = vec ? 1 : b->shape[b->ndim - 1];
    if (bn != n)
        return nd__err(ND_ERR_SHAPE, fn,
                       "Input operand 1 has a mismatch in its core dimension 0, with gufunc signature %s "
                       "(size %lld is different from %lld)",
                       vec ? "(m,m),(m)->(m)" : "(m,m),(m,n)->(m,n)", (long long)bn, (long long)n);
    int nb;
    int64_t bs[ND_MAX_DIMS], rs[ND_MAX_DIMS];
    if ((st = nd__broadcast_shapes(fn, a->ndim - 2, a->shape, vec ? 0 : b->ndim - 2, b->shape, &nb, bs))) return st;
    if (nb + 2 > ND_MAX_DIMS) return nd__err(ND_ERR_SHAPE, fn, "the result would have more than %d dimensions", ND_MAX_DIMS);
    memcpy(rs, bs, sizeof(int64_t) * (size_t)nb);
    rs[nb] = n, rs[nb + 1] = k;
    const int64_t batch = nd__la_prod(nb, bs);
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *A = NULL, *B = NULL, *bv = NULL, *xv = NULL;
    int32_t *info = NULL;
    if ((st = nd__la_out(&o, out, ct, nb + (vec ? 1 : 2), rs, a->device))) goto done;
    if (batch == 0 || n == 0 || k == 0) goto done; /* an empty result */
    if ((st = nd__la_ready(fn, a->device))) goto done;
    if (vec) { /* b as an (n, 1) matrix */
        const int64_t sh[2] = {n, 1}, str[2] = {b->strides[0], 1};
        if ((st = nd__view(&bv, b, b->dtype, 2, sh, str, b->offset))) goto done;
    }
    if ((st = nd__la_pack(&A, a, nb, bs, ct, true)) || (st = nd__la_pack(&B, vec ? bv : b, nb, bs, ct, true)))
        goto done;
    if ((st = nd__la_gesv(fn, A, B, batch, n, k, &info)) || (st = nd__la_info(fn, info, batch, "singular matrix")))
        goto done;
    /* B (bs, k, n) holds x column-major */
    if (vec) st = nd__la_reshaped(&xv, B, nb + 1, rs);
    else st = nd__la_swap(&xv, B);
    if (!st) st = nd__la_put(&o, 0, xv);
done:
    nd__free(info);
    nd_release(A), nd_release(B), nd_release(bv), nd_release(xv);
    return nd__la_outs_end(&o, st);
}

nd_status nd_linalg_solve(nd_array **out, const nd_array *a, const nd_array *b)
{
    ND_PROF_OP("linalg_solve", out, a, b);
    return solve_impl("nd_linalg_solve", out, a, b);
}

nd_status nd_linalg_inv(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("linalg_inv", out, a);
    static const char fn[] = "nd_linalg_inv";
    ND_CHECK_PTR(fn, out, "out");
    nd_dtype ct;
    nd_status st = nd__la_check(fn, a, "a", true, &ct);
    if (st) return st;
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *X = NULL;
    int32_t *info = NULL;
    const int64_t batch = nd__la_batch(a);
    if ((st = nd__la_out(&o, out, ct, a->ndim, a->shape, a->device))) goto done;
    if (a->size == 0) goto done;
    if ((st = nd__la_ready(fn, a->device))) goto done;
    if ((st = nd__la_inv_stack(fn, &X, a, ct, &info)) || (st = nd__la_info(fn, info, batch, "singular matrix"))) goto done;
    st = nd__la_put(&o, 0, X);
done:
    nd__free(info);
    nd_release(X);
    return nd__la_outs_end(&o, st);
}

/* ------------------------------------------------------------------ */
/* det, slogdet                                                        */
/* ------------------------------------------------------------------ */
/* LU of the non-empty square stack a: d = the diagonal of U (batch, n) in
 * ct, parity (batch,) in ct (+1 / -1). */
static nd_status lu_diag(const char *fn, const nd_array *a, nd_dtype ct, nd_array **d, nd_array **parity)
{
    const int nb = a->ndim - 2;
    const int64_t n = a->shape[a->ndim - 1], batch = nd__la_batch(a);
    nd_array *A = NULL, *A3 = NULL, *ip = NULL, *ar = NULL, *ne = NULL, *cnt = NULL, *t1 = NULL, *t2 = NULL,
             *t3 = NULL;
    int32_t *info = NULL;
    const int64_t ipshape[2] = {batch, n};
    nd_status st = nd__la_pack(&A, a, nb, a->shape, ct, false);
    if (!st) st = nd__alloc(&ip, ND_INT32, 2, ipshape, a->device);
    if (st) goto done;
    nd_la_args x = {.op = ND_LA_GETRF, .m = n, .n = n, .a = A, .ipiv = ip};
    if ((st = nd__la_run(fn, &x, batch, &info))) goto done;
    if ((st = nd__la_flat(&A3, A, false)) || (st = nd_diagonal(d, A3, 0, -2, -1))) goto done;
    /* parity: (-1)^(number of i with ipiv[i] != i + 1) */
    if ((st = nd_arange(&ar, ND_INT32, 1, (double)n + 1, 1, a->device)) || (st = nd_not_equal(&ne, ip, ar)) ||
        (st = nd_count_nonzero(&cnt, ne, 1, ND_LA_LAST, false)) ||
        (st = nd_binary_scalar(&t1, ND_BINARY_BITWISE_AND, cnt, nd_scalar_int(1))) ||
        (st = nd_binary_scalar(&t2, ND_BINARY_MULTIPLY, t1, nd_scalar_int(-2))) ||
        (st = nd_binary_scalar(&t3, ND_BINARY_ADD, t2, nd_scalar_int(1))) || (st = nd_astype(parity, t3, ct)))
        goto done;
done:
    if (st) ND_LA_REL(*d);
    nd__free(info);
    nd_release(A), nd_release(A3), nd_release(ip), nd_release(ar), nd_release(ne), nd_release(cnt);
    nd_release(t1), nd_release(t2), nd_release(t3);
    return st;
}

nd_status nd_linalg_det(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("linalg_det", out, a);
    static const char fn[] = "nd_linalg_det";
    ND_CHECK_PTR(fn, out, "out");
    nd_dtype ct;
    nd_status st = nd__la_check(fn, a, "a", true, &ct);
    if (st) return st;
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *d = NULL, *par = NULL, *p = NULL, *r = NULL, *rv = NULL;
    if ((st = nd__la_out(&o, out, ct, a->ndim - 2, a->shape, a->device))) goto done;
    if (nd__la_batch(a) == 0) goto done;
    if (a->shape[a->ndim - 1] == 0) { /* det of 0x0 is 1 */
        st = nd__la_put_value(&o, 0, 1.0);
        goto done;
    }
    if ((st = nd__la_ready(fn, a->device))) goto done;
    if ((st = lu_diag(fn, a, ct, &d, &par)) || (st = nd_reduce(&p, ND_REDUCE_PROD, d, 1, ND_LA_LAST, false)) ||
        (st = nd_multiply(&r, p, par)) || (st = nd__la_reshaped(&rv, r, a->ndim - 2, a->shape)))
        goto done;
    st = nd__la_put(&o, 0, rv);
done:
    nd_release(d), nd_release(par), nd_release(p), nd_release(r), nd_release(rv);
    return nd__la_outs_end(&o, st);
}

nd_status nd_linalg_slogdet(nd_array **sign, nd_array **logabsdet, const nd_array *a)
{
    ND_PROF_OP("linalg_slogdet", sign, a);
    static const char fn[] = "nd_linalg_slogdet";
    ND_CHECK_PTR(fn, sign, "sign");
    ND_CHECK_PTR(fn, logabsdet, "logabsdet");
    nd_dtype ct;
    nd_status st = nd__la_check(fn, a, "a", true, &ct);
    if (st) return st;
    const int nb = a->ndim - 2;
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *d = NULL, *par = NULL, *ad = NULL, *z = NULL, *den = NULL, *u = NULL, *pu = NULL, *s = NULL,
             *sv = NULL, *lg = NULL, *l = NULL, *lv = NULL;
    if ((st = nd__la_out(&o, sign, ct, nb, a->shape, a->device)) ||
        (st = nd__la_out(&o, logabsdet, nd__la_real(ct), nb, a->shape, a->device)))
        goto done;
    if (nd__la_batch(a) == 0) goto done;
    if (a->shape[a->ndim - 1] == 0) {
        if (!(st = nd__la_put_value(&o, 0, 1.0))) st = nd__la_put_value(&o, 1, 0.0);
        goto done;
    }
    if ((st = nd__la_ready(fn, a->device))) goto done;
    /* sign = parity * prod(d / |d|) (0 for a zero pivot: d / (|d| + 1) = 0) */
    if ((st = lu_diag(fn, a, ct, &d, &par)) || (st = nd_abs(&ad, d)) ||
        (st = nd_binary_scalar(&z, ND_BINARY_EQUAL, ad, nd_scalar_float(0.0))) || (st = nd_add(&den, ad, z)) ||
        (st = nd_divide(&u, d, den)) || (st = nd_reduce(&pu, ND_REDUCE_PROD, u, 1, ND_LA_LAST, false)) ||
        (st = nd_multiply(&s, pu, par)) || (st = nd__la_reshaped(&sv, s, nb, a->shape)))
        goto done;
    if ((st = nd_log(&lg, ad)) || (st = nd_reduce(&l, ND_REDUCE_SUM, lg, 1, ND_LA_LAST, false)) ||
        (st = nd__la_reshaped(&lv, l, nb, a->shape)))
        goto done;
    if (!(st = nd__la_put(&o, 0, sv))) st = nd__la_put(&o, 1, lv);
done:
    nd_release(d), nd_release(par), nd_release(ad), nd_release(z), nd_release(den), nd_release(u);
    nd_release(pu), nd_release(s), nd_release(sv), nd_release(lg), nd_release(l), nd_release(lv);
    return nd__la_outs_end(&o, st);
}

/* ------------------------------------------------------------------ */
/* cholesky, qr                                                        */
/* ------------------------------------------------------------------ */
nd_status nd_linalg_cholesky(nd_array **out, const nd_array *a, bool upper)
{
    ND_PROF_OP("linalg_cholesky", out, a);
    static const char fn[] = "nd_linalg_cholesky";
    ND_CHECK_PTR(fn, out, "out");
    nd_dtype ct;
    nd_status st = nd__la_check(fn, a, "a", true, &ct);
    if (st) return st;
    const int64_t n = a->shape[a->ndim - 1], batch = nd__la_batch(a);
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *A = NULL, *lv = NULL;
    int32_t *info = NULL;
    const bool cpx = nd__is_complex(ct);
    if ((st = nd__la_out(&o, out, ct, a->ndim, a->shape, a->device))) goto done;
    if (a->size == 0) goto done;
    if ((st = nd__la_ready(fn, a->device))) goto done;
    /* lower: the column-major stack of a; upper: conj(a) as is (= a^H
     * column-major, whose lower triangle is a's upper one conjugated) */
    if ((st = nd__la_pack(&A, a, a->ndim - 2, a->shape, ct, !upper))) goto done;
    if (upper && cpx && (st = nd_conj(&A, A))) goto done;
    nd_la_args x = {.op = ND_LA_POTRF, .m = n, .n = n, .a = A};
    if ((st = nd__la_run(fn, &x, batch, &info)) || (st = nd__la_info(fn, info, batch, "matrix is not positive definite")))
        goto done;
    if (upper) { /* U = L^H = conj of the buffer read row-major */
        if (cpx && (st = nd_conj(&A, A))) goto done;
        st = nd__la_put(&o, 0, A);
    } else if (!(st = nd__la_swap(&lv, A)))
        st = nd__la_put(&o, 0, lv);
done:
    nd__free(info);
    nd_release(A), nd_release(lv);
    return nd__la_outs_end(&o, st);
}

nd_status nd_linalg_qr(nd_array **q, nd_array **r, const nd_array *a, nd_linalg_qr_mode mode)
{
    ND_PROF_OP("linalg_qr", r, a);
    static const char fn[] = "nd_linalg_qr";
    if (mode != ND_QR_REDUCED && mode != ND_QR_COMPLETE && mode != ND_QR_R)
        return nd__err(ND_ERR_INVALID, fn, "Unrecognized mode %d (ND_QR_REDUCED, ND_QR_COMPLETE or ND_QR_R)",
                       (int)mode);
    if (mode != ND_QR_R) ND_CHECK_PTR(fn, q, "q");
    ND_CHECK_PTR(fn, r, "r");
    nd_dtype ct;
    nd_status st = nd__la_check(fn, a, "a", false, &ct);
    if (st) return st;
    const int nb = a->ndim - 2;
    const int64_t M = a->shape[nb], N = a->shape[nb + 1], K = M < N ? M : N, batch = nd__la_batch(a);
    const int64_t rrows = mode == ND_QR_COMPLETE ? M : K, nq = mode == ND_QR_COMPLETE ? M : K;
    const int64_t qtail[2] = {M, nq}, rtail[2] = {rrows, N};
    int64_t qs[ND_MAX_DIMS], rs[ND_MAX_DIMS];
    memcpy(qs, a->shape, sizeof(int64_t) * (size_t)nb), memcpy(qs + nb, qtail, sizeof qtail);
    memcpy(rs, a->shape, sizeof(int64_t) * (size_t)nb), memcpy(rs + nb, rtail, sizeof rtail);
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *A = NULL, *tau = NULL, *rv = NULL, *rs_v = NULL, *R = NULL, *Q = NULL, *qsrc = NULL, *qdst = NULL,
             *qv = NULL;
    int32_t *info = NULL;
    if ((st = nd__la_out(&o, mode == ND_QR_R ? NULL : q, ct, nb + 2, qs, a->device)) ||
        (st = nd__la_out(&o, r, ct, nb + 2, rs, a->device)))
        goto done;
    if (batch == 0) goto done;
    if (K == 0) { /* R is empty; Q is empty or (complete) the identity */
        st = nd__la_put_eye(&o, 0);
        goto done;
    }
    if ((st = nd__la_ready(fn, a->device))) goto done;
    const int64_t ktail[1] = {K};
    if ((st = nd__la_pack(&A, a, nb, a->shape, ct, true)) || (st = nd__la_alloc_bt(&tau, ct, nb, a->shape, 1, ktail, a->device)))
        goto done;
    nd_la_args x = {.op = ND_LA_GEQRF, .m = M, .n = N, .a = A, .tau = tau};
    if ((st = nd__la_run(fn, &x, batch, &info))) goto done;
    /* R: triu of the first rrows rows of the row-major view */
    if ((st = nd__la_swap(&rv, A)) || (st = nd__view(&rs_v, rv, ct, nb + 2, rs, rv->strides, rv->offset)) ||
        (st = nd_triu(&R, rs_v, 0)))
        goto done;
    if (mode != ND_QR_R) {
        /* Q's column-major buffer (bs, nq, M): its first K columns the reflectors */
        const int64_t qct[2] = {nq, M};
        if (nq == N) Q = nd_retain(A);
        else {
            const int64_t c = N < nq ? N : nq;
            int64_t cs[ND_MAX_DIMS];
            memcpy(cs, a->shape, sizeof(int64_t) * (size_t)nb);
            cs[nb] = c, cs[nb + 1] = M;
            if ((st = nd__la_alloc_bt(&Q, ct, nb, a->shape, 2, qct, a->device))) goto done;
            static const unsigned char zero[16] = {0};
            if ((st = nd__backend(a->device)->fill(Q, zero))) goto done;
            if ((st = nd__view(&qsrc, A, ct, nb + 2, cs, A->strides, A->offset)) ||
                (st = nd__view(&qdst, Q, ct, nb + 2, cs, Q->strides, Q->offset)) || (st = nd__copy_into(qdst, qsrc)))
                goto done;
        }
        nd__free(info);
        info = NULL;
        nd_la_args y = {.op = ND_LA_ORGQR, .m = M, .n = nq, .k = K, .a = Q, .tau = tau};
        if ((st = nd__la_run(fn, &y, batch, &info)) || (st = nd__la_swap(&qv, Q)) || (st = nd__la_put(&o, 0, qv)))
            goto done;
    }
    st = nd__la_put(&o, 1, R);
done:
    nd__free(info);
    nd_release(A), nd_release(tau), nd_release(rv), nd_release(rs_v), nd_release(R), nd_release(Q);
    nd_release(qsrc), nd_release(qdst), nd_release(qv);
    return nd__la_outs_end(&o, st);
}

/* ------------------------------------------------------------------ */
/* svd, svdvals                                                        */
/* ------------------------------------------------------------------ */
static nd_status svd_impl(const char *fn, nd_array **u, nd_array **s, nd_array **vh, const nd_array *a, bool full)
{
    nd_dtype ct;
    nd_status st = nd__la_check(fn, a, "a", false, &ct);
    if (st) return st;
    const int nb = a->ndim - 2;
    const int64_t M = a->shape[nb], N = a->shape[nb + 1], K = M < N ? M : N;
    const bool uv = u != NULL;
    int64_t us[ND_MAX_DIMS], ss[ND_MAX_DIMS], vs[ND_MAX_DIMS];
    memcpy(us, a->shape, sizeof(int64_t) * (size_t)nb);
    memcpy(ss, us, sizeof(int64_t) * (size_t)nb), memcpy(vs, us, sizeof(int64_t) * (size_t)nb);
    us[nb] = M, us[nb + 1] = full ? M : K;
    ss[nb] = K;
    vs[nb] = full ? N : K, vs[nb + 1] = N;
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *U = NULL, *S = NULL, *VT = NULL, *uv_ = NULL, *vv = NULL;
    if ((st = nd__la_out(&o, u, ct, nb + 2, us, a->device)) ||
        (st = nd__la_out(&o, s, nd__la_real(ct), nb + 1, ss, a->device)) ||
        (st = nd__la_out(&o, vh, ct, nb + 2, vs, a->device)))
        goto done;
    if (nd__la_batch(a) == 0) goto done;
    if (K == 0) {
        if (!(st = nd__la_put_eye(&o, 0))) st = nd__la_put_eye(&o, 2);
        goto done;
    }
    if ((st = nd__la_ready(fn, a->device))) goto done;
    if ((st = nd__la_svd_stack(fn, a, ct, uv ? (full ? ND_LA_JOB_A : ND_LA_JOB_S) : ND_LA_JOB_N, &U, &S, &VT))) goto done;
    if (uv && ((st = nd__la_swap(&uv_, U)) || (st = nd__la_swap(&vv, VT)) || (st = nd__la_put(&o, 0, uv_)) ||
               (st = nd__la_put(&o, 2, vv))))
        goto done;
    st = nd__la_put(&o, 1, S);
done:
    nd_release(U), nd_release(S), nd_release(VT), nd_release(uv_), nd_release(vv);
    return nd__la_outs_end(&o, st);
}

nd_status nd_linalg_svd(nd_array **u, nd_array **s, nd_array **vh, const nd_array *a, bool full_matrices)
{
    ND_PROF_OP("linalg_svd", s, a);
    static const char fn[] = "nd_linalg_svd";
    ND_CHECK_PTR(fn, u, "u");
    ND_CHECK_PTR(fn, s, "s");
    ND_CHECK_PTR(fn, vh, "vh");
    return svd_impl(fn, u, s, vh, a, full_matrices);
}

nd_status nd_linalg_svdvals(nd_array **s, const nd_array *a)
{
    ND_PROF_OP("linalg_svdvals", s, a);
    static const char fn[] = "nd_linalg_svdvals";
    ND_CHECK_PTR(fn, s, "s");
    return svd_impl(fn, NULL, s, NULL, a, false);
}

/* ------------------------------------------------------------------ */
/* eigh, eigvalsh, eig, eigvals                                        */
/* ------------------------------------------------------------------ */
static nd_status eigh_impl(const char *fn, nd_array **w, nd_array **v, const nd_array *a, char uplo)
{
    if (uplo != 'L' && uplo != 'U' && uplo != 'l' && uplo != 'u')
        return nd__err(ND_ERR_INVALID, fn, "UPLO argument must be 'L' or 'U' (got %d)", (int)(unsigned char)uplo);
    nd_dtype ct;
    nd_status st = nd__la_check(fn, a, "a", true, &ct);
    if (st) return st;
    const int nb = a->ndim - 2;
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *W = NULL, *V = NULL, *vv = NULL;
    if ((st = nd__la_out(&o, w, nd__la_real(ct), nb + 1, a->shape, a->device)) ||
        (st = nd__la_out(&o, v, ct, nb + 2, a->shape, a->device)))
        goto done;
    if (a->size == 0) goto done;
    if ((st = nd__la_ready(fn, a->device))) goto done;
    if ((st = nd__la_eigh_stack(fn, a, ct, uplo == 'L' || uplo == 'l', v != NULL, &W, &V))) goto done;
    if (v && ((st = nd__la_swap(&vv, V)) || (st = nd__la_put(&o, 1, vv)))) goto done;
    st = nd__la_put(&o, 0, W);
done:
    nd_release(W), nd_release(V), nd_release(vv);
    return nd__la_outs_end(&o, st);
}

nd_status nd_linalg_eigh(nd_array **w, nd_array **v, const nd_array *a, char uplo)
{
    ND_PROF_OP("linalg_eigh", w, a);
    static const char fn[] = "nd_linalg_eigh";
    ND_CHECK_PTR(fn, w, "w");
    ND_CHECK_PTR(fn, v, "v");
    return eigh_impl(fn, w, v, a, uplo);
}

nd_status nd_linalg_eigvalsh(nd_array **w, const nd_array *a, char uplo)
{
    ND_PROF_OP("linalg_eigvalsh", w, a);
    static const char fn[] = "nd_linalg_eigvalsh";
    ND_CHECK_PTR(fn, w, "w");
    return eigh_impl(fn, w, NULL, a, uplo);
}

static nd_status eig_impl(const char *fn, nd_array **w, nd_array **v, const nd_array *a)
{
    nd_dtype ct;
    nd_status st = nd__la_check(fn, a, "a", true, &ct);
    if (st) return st;
    const int nb = a->ndim - 2;
    const nd_dtype cx = nd__la_cpx(ct);
    const int64_t n = a->shape[nb], batch = nd__la_batch(a), wt[1] = {n};
    nd_la_outs o;
    nd__la_outs_init(&o, fn);
    nd_array *A = NULL, *W = NULL, *V = NULL, *vv = NULL;
    int32_t *info = NULL;
    if ((st = nd__la_out(&o, w, cx, nb + 1, a->shape, a->device)) ||
        (st = nd__la_out(&o, v, cx, nb + 2, a->shape, a->device)))
        goto done;
    if (a->size == 0) goto done;
    if ((st = nd__la_ready(fn, a->device))) goto done;
    bool bad = false;
    if ((st = nd__la_pack(&A, a, nb, a->shape, ct, true)) || (st = nd__la_nonfinite(A, false, &bad))) goto done;
    if (bad) { /* NumPy's _assert_finite; LAPACK's geev would print through xerbla */
        st = nd__err(ND_ERR_INVALID, fn, "Array must not contain infs or NaNs");
        goto done;
    }
    if ((st = nd__la_alloc_bt(&W, cx, nb, a->shape, 1, wt, a->device)) ||
        (v && (st = nd__alloc(&V, cx, a->ndim, a->shape, a->device))))
        goto done;
    nd_la_args x = {.op = ND_LA_GEEV, .job = v ? ND_LA_JOB_V : ND_LA_JOB_N, .m = n, .n = n, .a = A, .w = W, .u = V};
    if ((st = nd__la_run(fn, &x, batch, &info)) || (st = nd__la_info(fn, info, batch, "eigenvalues did not converge")))
        goto done;
    if (v && ((st = nd__la_swap(&vv, V)) || (st = nd__la_put(&o, 1, vv)))) goto done;
    st = nd__la_put(&o, 0, W);
done:
    nd__free(info);
    nd_release(A), nd_release(W), nd_release(V), nd_release(vv);
    return nd__la_outs_end(&o, st);
}

nd_status nd_linalg_eig(nd_array **w, nd_array **v, const nd_array *a)
{
    ND_PROF_OP("linalg_eig", w, a);
    static const char fn[] = "nd_linalg_eig";
    ND_CHECK_PTR(fn, w, "w");
    ND_CHECK_PTR(fn, v, "v");
    return eig_impl(fn, w, v, a);
}

nd_status nd_linalg_eigvals(nd_array **w, const nd_array *a)
{
    ND_PROF_OP("linalg_eigvals", w, a);
    static const char fn[] = "nd_linalg_eigvals";
    ND_CHECK_PTR(fn, w, "w");
    return eig_impl(fn, w, NULL, a);
}

/* The functions built on the SVD (lstsq, pinv, matrix_rank, cond):
 * src/linalg_pinv.c. */
