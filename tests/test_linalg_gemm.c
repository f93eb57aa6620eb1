/* nd_dot and nd_gemm (part of suite "linalg", added by suite_linalg). */
#include "linalg_util.h"

#define SHP(...) ((const int64_t[]){__VA_ARGS__})

/* Reference dot for a (an-D) and b (bn >= 2): result[p, q, n] =
 * sum_k a[p, k] * b[q, k, n] over C-order data. */
static void check_dot_nd(const nd_array *a, const nd_array *b, const nd_array *r, double tol)
{
    int an = nd_ndim(a), bn = nd_ndim(b);
    const int64_t *as = nd_shape(a), *bs = nd_shape(b);
    int64_t K = as[an - 1], N = bs[bn - 1], P = lu_size(an - 1, as), Q = lu_size(bn - 2, bs);
    ck_assert_int_eq(nd_ndim(r), an + bn - 2);
    for (int i = 0; i < an - 1; i++) ck_assert_int_eq(nd_shape(r)[i], as[i]);
    for (int i = 0; i < bn - 2; i++) ck_assert_int_eq(nd_shape(r)[an - 1 + i], bs[i]);
    ck_assert_int_eq(nd_shape(r)[an + bn - 3], N);
    char *A = lu_bytes(a), *B = lu_bytes(b), *R = lu_bytes(r);
    nd_dtype ta = nd_dtype_of(a), tb = nd_dtype_of(b), rt = nd_dtype_of(r);
    for (int64_t p = 0; p < P; p++)
        for (int64_t q = 0; q < Q; q++)
            for (int64_t n = 0; n < N; n++) {
                double s = 0, sabs = 0;
                for (int64_t k = 0; k < K; k++) {
                    double x = lu_load(A + (p * K + k) * (int64_t)lu_isz(ta), ta);
                    double y = lu_load(B + ((q * K + k) * N + n) * (int64_t)lu_isz(tb), tb);
                    s += x * y, sabs += fabs(x * y);
                }
                double got = lu_load(R + ((p * Q + q) * N + n) * (int64_t)lu_isz(rt), rt);
                ck_assert_msg(fabs(got - s) <= tol * sabs, "[%lld,%lld,%lld] got %g want %g", (long long)p,
                              (long long)q, (long long)n, got, s);
            }
    free(A);
    free(B);
    free(R);
}

START_TEST(test_dot_nd)
{
    const int64_t *as[] = {SHP(2, 3, 4), SHP(2, 3), SHP(5, 4), SHP(2, 1, 3)};
    const int64_t *bs[] = {SHP(5, 4, 6), SHP(4, 3, 2), SHP(2, 3, 4, 7), SHP(3, 3, 2)};
    const int an[] = {3, 2, 2, 3}, bn[] = {3, 3, 4, 3};
    const nd_dtype ts[] = {ND_FLOAT64, ND_FLOAT32, ND_INT32};
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < 4; i++) {
            nd_array *a = lu_rand(ts[t] == ND_INT32 ? ND_INT16 : ts[t], an[i], as[i], 1 + i);
            nd_array *b = lu_rand(ts[t], bn[i], bs[i], 9 + i), *r = NULL;
            if (ts[t] == ND_INT32) { /* keep the int products exact in double */
                nd_release(a);
                nd_release(b);
                int64_t na = lu_size(an[i], as[i]), nb = lu_size(bn[i], bs[i]);
                double *va = malloc((size_t)na * 8), *vb = malloc((size_t)nb * 8);
                for (int64_t k = 0; k < na; k++) va[k] = (double)((k * 7) % 11) - 5;
                for (int64_t k = 0; k < nb; k++) vb[k] = (double)((k * 5) % 13) - 6;
                a = lu_make(ND_INT16, an[i], as[i], va);
                b = lu_make(ND_INT32, bn[i], bs[i], vb);
                free(va);
                free(vb);
            }
            ND_OK_OR_FAIL(nd_dot(&r, a, b));
            ck_assert_int_eq(nd_dtype_of(r), ts[t]);
            check_dot_nd(a, b, r, lu_tol(ts[t]));
            nd_release(r);
            /* non-contiguous a (reversed last axis), out of another dtype */
            nd_array *ar = NULL, *o = NULL;
            nd_range rr[ND_MAX_DIMS];
            for (int d = 0; d < an[i]; d++) rr[d] = ND_ALL;
            rr[an[i] - 1].step = -1;
            ND_OK_OR_FAIL(nd_slice(&ar, a, an[i], rr));
            int rnd = an[i] + bn[i] - 2;
            int64_t rs[ND_MAX_DIMS];
            for (int d = 0; d < an[i] - 1; d++) rs[d] = as[i][d];
            for (int d = 0; d < bn[i] - 2; d++) rs[an[i] - 1 + d] = bs[i][d];
            rs[rnd - 1] = bs[i][bn[i] - 1];
            ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT64, rnd, rs, nd_scalar_float(NAN), nd_cpu()));
            nd_array *keep = o;
            ND_OK_OR_FAIL(nd_dot(&o, ar, b));
            ck_assert_ptr_eq(o, keep);
            check_dot_nd(ar, b, o, lu_tol(ts[t]));
            nd_release(o);
            nd_release(ar);
            nd_release(a);
            nd_release(b);
        }
}
END_TEST

START_TEST(test_dot_small)
{
    /* 0-d operand: multiply */
    nd_array *s = NULL, *v = lu_rand(ND_FLOAT32, 2, SHP(2, 3), 1), *r = NULL;
    ND_OK_OR_FAIL(nd_full(&s, ND_FLOAT32, 0, NULL, nd_scalar_float(2.5), nd_cpu()));
    ND_OK_OR_FAIL(nd_dot(&r, s, v));
    float x[6], y[6];
    ND_OK_OR_FAIL(nd_copy_to_host(x, v, sizeof x));
    ND_OK_OR_FAIL(nd_copy_to_host(y, r, sizeof y));
    ck_assert_int_eq(nd_ndim(r), 2);
    for (int i = 0; i < 6; i++) ck_assert(y[i] == 2.5f * x[i]);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_dot(&r, v, s));
    ND_OK_OR_FAIL(nd_copy_to_host(y, r, sizeof y));
    for (int i = 0; i < 6; i++) ck_assert(y[i] == 2.5f * x[i]);
    nd_release(r);
    /* 1-D . 1-D, 2-D . 1-D, 1-D . 3-D (same as matmul) */
    const int64_t *as[] = {SHP(5), SHP(3, 5), SHP(5), SHP(2, 3, 5)};
    const int64_t *bs[] = {SHP(5), SHP(5), SHP(2, 5, 4), SHP(5)};
    const int an[] = {1, 2, 1, 3}, bn[] = {1, 1, 3, 1};
    for (int i = 0; i < 4; i++) {
        nd_array *a = lu_rand(ND_FLOAT64, an[i], as[i], 3), *b = lu_rand(ND_FLOAT64, bn[i], bs[i], 4);
        r = NULL;
        ND_OK_OR_FAIL(nd_dot(&r, a, b));
        lu_verify(a, b, r);
        nd_release(a);
        nd_release(b);
        nd_release(r);
    }
    nd_release(s);
    nd_release(v);
}
END_TEST

/* Long contiguous float vectors (the dot of 2^18 elements and more runs in
 * units on the library's threads, summed pairwise; shorter and strided ones
 * in the BLAS): the value against a long double sum, the same bits for 1
 * thread and the default count, and a strided view of the same data. */
START_TEST(test_dot_long)
{
    const int64_t ks[] = {(int64_t)1 << 18, ((int64_t)1 << 18) + 12345, 5 * ((int64_t)1 << 16) + 1};
    const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64};
    int nt0 = nd_get_num_threads();
    for (int ti = 0; ti < 2; ti++)
        for (int ki = 0; ki < 3; ki++) {
            nd_dtype t = ts[ti];
            int64_t K = ks[ki];
            nd_array *a = lu_rand(t, 1, SHP(2 * K), 40 + ki), *b = lu_rand(t, 1, SHP(2 * K), 50 + ki);
            nd_array *ah = NULL, *bh = NULL, *r = NULL, *r1 = NULL;
            nd_range lo = {0, K, 1}, ev = {0, 2 * K, 2};
            ND_OK_OR_FAIL(nd_slice(&ah, a, 1, &lo));
            ND_OK_OR_FAIL(nd_slice(&bh, b, 1, &lo));
            double got[2];
            for (int strided = 0; strided < 2; strided++) {
                nd_array *x = ah, *y = bh, *xs = NULL, *ys = NULL;
                if (strided) {
                    ND_OK_OR_FAIL(nd_slice(&xs, a, 1, &ev));
                    ND_OK_OR_FAIL(nd_slice(&ys, b, 1, &ev));
                    x = xs, y = ys;
                }
                char *X = lu_bytes(x), *Y = lu_bytes(y);
                long double s = 0, sabs = 0;
                for (int64_t k = 0; k < K; k++) {
                    long double p = (long double)lu_load(X + k * (int64_t)lu_isz(t), t) * lu_load(Y + k * (int64_t)lu_isz(t), t);
                    s += p, sabs += fabsl(p);
                }
                free(X);
                free(Y);
                r = NULL;
                ND_OK_OR_FAIL(nd_dot(&r, x, y));
                ck_assert_int_eq(nd_ndim(r), 0);
                ck_assert_int_eq(nd_dtype_of(r), t);
                char *R = lu_bytes(r);
                got[strided] = lu_load(R, t);
                free(R);
                ck_assert_msg(fabsl(got[strided] - s) <= (long double)lu_tol(t) * sabs,
                              "dot of %lld %s (strided %d): got %.17g want %.17Lg", (long long)K,
                              nd_dtype_name(t), strided, got[strided], s);
                if (!strided) { /* the same bits on one thread */
                    ND_OK_OR_FAIL(nd_set_num_threads(1));
                    r1 = NULL;
                    ND_OK_OR_FAIL(nd_dot(&r1, x, y));
                    ND_OK_OR_FAIL(nd_set_num_threads(nt0));
                    ck_assert_msg(memcmp(nd_data(r), nd_data(r1), lu_isz(t)) == 0,
                                  "dot of %lld %s differs between thread counts", (long long)K, nd_dtype_name(t));
                    nd_release(r1);
                }
                nd_release(r);
                nd_release(xs);
                nd_release(ys);
            }
            nd_release(ah);
            nd_release(bh);
            nd_release(a);
            nd_release(b);
        }
}
END_TEST

START_TEST(test_dot_errors)
{
    nd_array *a = lu_rand(ND_FLOAT32, 2, SHP(2, 3), 1), *b = lu_rand(ND_FLOAT32, 2, SHP(4, 5), 2), *r = NULL;
    nd_array *c = lu_rand(ND_FLOAT32, 3, SHP(2, 3, 4), 3), *d = lu_rand(ND_FLOAT32, 2, SHP(5, 6), 4);
    nd_array *u = lu_rand(ND_FLOAT32, 1, SHP(3), 5), *w = lu_rand(ND_FLOAT32, 1, SHP(4), 6);
    ND_EXPECT_ERR(nd_dot(NULL, a, b), ND_ERR_INVALID, "nd_dot: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_dot(&r, NULL, b), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_dot(&r, a, NULL), ND_ERR_INVALID, "argument 'b' is NULL");
    ND_EXPECT_ERR(nd_dot(&r, a, b), ND_ERR_SHAPE, "nd_dot: shapes (2,3) and (4,5) not aligned: 3 (dim 1) != 4 (dim 0)");
    ND_EXPECT_ERR(nd_dot(&r, c, d), ND_ERR_SHAPE, "shapes (2,3,4) and (5,6) not aligned: 4 (dim 2) != 5 (dim 0)");
    ND_EXPECT_ERR(nd_dot(&r, u, w), ND_ERR_SHAPE, "shapes (3,) and (4,) not aligned: 3 (dim 0) != 4 (dim 0)");
    ck_assert_ptr_null(r);
    nd_array *o = NULL, *keep;
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT32, 2, SHP(2, 2), nd_scalar_float(1), nd_cpu()));
    keep = o;
    nd_array *e = lu_rand(ND_FLOAT32, 3, SHP(2, 3, 5), 7);
    ND_EXPECT_ERR(nd_dot(&o, a, e), ND_ERR_SHAPE, "'out' has shape (2,2), but the result has shape (2,2,5)");
    ck_assert_ptr_eq(o, keep);
    nd_array *all[] = {a, b, c, d, u, w, o, e};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
}
END_TEST

/* Reference gemm over C-order data of a, b (before op) and c0 (old c). */
static void check_gemm(const nd_array *a, const nd_array *b, bool ta, bool tb, double alpha, double beta,
                       const double *c0, const nd_array *c)
{
    int64_t M = nd_shape(c)[0], N = nd_shape(c)[1];
    int64_t K = ta ? nd_shape(a)[0] : nd_shape(a)[1];
    int64_t ac = nd_shape(a)[1], bc = nd_shape(b)[1];
    char *A = lu_bytes(a), *B = lu_bytes(b), *C = lu_bytes(c);
    nd_dtype t = nd_dtype_of(c);
    size_t is = lu_isz(t);
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = 0, sabs = 0;
            for (int64_t k = 0; k < K; k++) {
                double x = lu_load(A + (ta ? k * ac + i : i * ac + k) * (int64_t)is, t);
                double y = lu_load(B + (tb ? j * bc + k : k * bc + j) * (int64_t)is, t);
                s += x * y, sabs += fabs(x * y);
            }
            double old = c0 ? c0[i * N + j] : 0.0;
            double want = alpha * s + (beta != 0.0 ? beta * old : 0.0);
            double got = lu_load(C + (i * N + j) * (int64_t)is, t);
            double scale = fabs(alpha) * sabs + fabs(beta * old);
            ck_assert_msg(fabs(got - want) <= 2 * lu_tol(t) * scale + 1e-300, "%s [%lld,%lld] got %g want %g",
                          nd_dtype_name(t), (long long)i, (long long)j, got, want);
        }
    free(A);
    free(B);
    free(C);
}

static void gemm_case(nd_dtype t, int64_t M, int64_t K, int64_t N)
{
    for (int f = 0; f < 4; f++) {
        bool ta = f & 1, tb = f & 2;
        nd_array *a = lu_rand(t, 2, ta ? SHP(K, M) : SHP(M, K), 1 + f);
        nd_array *b = lu_rand(t, 2, tb ? SHP(N, K) : SHP(K, N), 5 + f);
        /* fresh c: beta ignored */
        nd_array *c = NULL;
        ND_OK_OR_FAIL(nd_gemm(&c, ta, tb, 1.5, a, b, 3.0));
        ck_assert_int_eq(nd_shape(c)[0], M);
        ck_assert_int_eq(nd_shape(c)[1], N);
        check_gemm(a, b, ta, tb, 1.5, 0.0, NULL, c);
        nd_release(c);
        /* existing c, alpha and beta */
        c = lu_rand(t, 2, SHP(M, N), 9 + f);
        char *cb = lu_bytes(c);
        double *c0 = malloc((size_t)(M * N) * 8);
        for (int64_t i = 0; i < M * N; i++) c0[i] = lu_load(cb + i * (int64_t)lu_isz(t), t);
        nd_array *keep = c;
        ND_OK_OR_FAIL(nd_gemm(&c, ta, tb, -0.5, a, b, 2.0));
        ck_assert_ptr_eq(c, keep);
        check_gemm(a, b, ta, tb, -0.5, 2.0, c0, c);
        /* transposed c (unit row stride) and strided c, with beta */
        nd_array *cbase = lu_rand(t, 2, SHP(N, M), 13), *ct = NULL;
        ND_OK_OR_FAIL(nd_transpose(&ct, cbase, NULL));
        char *ctb = lu_bytes(ct);
        for (int64_t i = 0; i < M * N; i++) c0[i] = lu_load(ctb + i * (int64_t)lu_isz(t), t);
        ND_OK_OR_FAIL(nd_gemm(&ct, ta, tb, 0.75, a, b, -1.0));
        check_gemm(a, b, ta, tb, 0.75, -1.0, c0, ct);
        nd_array *big = lu_rand(t, 2, SHP(2 * M, 3 * N), 17), *cs = NULL;
        const nd_range rr[2] = {{ND_NONE, ND_NONE, -2}, {ND_NONE, ND_NONE, 3}};
        ND_OK_OR_FAIL(nd_slice(&cs, big, 2, rr));
        char *csb = lu_bytes(cs);
        for (int64_t i = 0; i < M * N; i++) c0[i] = lu_load(csb + i * (int64_t)lu_isz(t), t);
        ND_OK_OR_FAIL(nd_gemm(&cs, ta, tb, 1.0, a, b, 0.5));
        check_gemm(a, b, ta, tb, 1.0, 0.5, c0, cs);
        free(cb);
        free(ctb);
        free(csb);
        free(c0);
        nd_array *all[] = {a, b, c, cbase, ct, big, cs};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
    }
}

START_TEST(test_gemm_values)
{
    const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64, ND_FLOAT16, ND_BFLOAT16};
    for (int i = 0; i < 4; i++) {
        gemm_case(ts[i], 3, 4, 5);
        gemm_case(ts[i], 31, 47, 23);
    }
}
END_TEST

START_TEST(test_gemm_special)
{
    /* beta == 0 does not read c: NaNs in c disappear (BLAS semantics) */
    nd_array *a = lu_rand(ND_FLOAT64, 2, SHP(3, 4), 1), *b = lu_rand(ND_FLOAT64, 2, SHP(4, 2), 2), *c = NULL;
    ND_OK_OR_FAIL(nd_full(&c, ND_FLOAT64, 2, SHP(3, 2), nd_scalar_float(NAN), nd_cpu()));
    ND_OK_OR_FAIL(nd_gemm(&c, false, false, 1.0, a, b, 0.0));
    check_gemm(a, b, false, false, 1.0, 0.0, NULL, c);
    /* K == 0: c = beta * c */
    nd_array *a0 = lu_rand(ND_FLOAT64, 2, SHP(3, 0), 3), *b0 = lu_rand(ND_FLOAT64, 2, SHP(0, 2), 4), *c2 = NULL;
    ND_OK_OR_FAIL(nd_full(&c2, ND_FLOAT64, 2, SHP(3, 2), nd_scalar_float(4.0), nd_cpu()));
    ND_OK_OR_FAIL(nd_gemm(&c2, false, false, 1.0, a0, b0, 0.5));
    double v[6];
    ND_OK_OR_FAIL(nd_copy_to_host(v, c2, sizeof v));
    for (int i = 0; i < 6; i++) ck_assert(v[i] == 2.0);
    /* mixed input dtypes promote (int32 with float32 -> float64) */
    nd_array *ai = lu_rand(ND_INT32, 2, SHP(3, 4), 5), *bf = lu_rand(ND_FLOAT32, 2, SHP(4, 2), 6), *c3 = NULL;
    ND_OK_OR_FAIL(nd_gemm(&c3, false, false, 1.0, ai, bf, 0.0));
    ck_assert_int_eq(nd_dtype_of(c3), ND_FLOAT64);
    lu_verify(ai, bf, c3);
    /* c aliasing an input: c = 2 * c @ b2 + c with square c */
    nd_array *sq = lu_rand(ND_FLOAT64, 2, SHP(4, 4), 7), *b2 = lu_rand(ND_FLOAT64, 2, SHP(4, 4), 8), *old = NULL;
    ND_OK_OR_FAIL(nd_copy(&old, sq));
    double c0[16];
    ND_OK_OR_FAIL(nd_copy_to_host(c0, sq, sizeof c0));
    nd_array *cc = sq;
    ND_OK_OR_FAIL(nd_gemm(&cc, false, false, 2.0, sq, b2, 1.0));
    check_gemm(old, b2, false, false, 2.0, 1.0, c0, sq);
    nd_array *all[] = {a, b, c, a0, b0, c2, ai, bf, c3, sq, b2, old};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
}
END_TEST

START_TEST(test_gemm_errors)
{
    nd_array *a = lu_rand(ND_FLOAT32, 2, SHP(3, 4), 1), *b = lu_rand(ND_FLOAT32, 2, SHP(4, 2), 2), *c = NULL;
    nd_array *v = lu_rand(ND_FLOAT32, 1, SHP(4), 3), *ia = lu_rand(ND_INT32, 2, SHP(3, 4), 4);
    nd_array *ib = lu_rand(ND_INT32, 2, SHP(4, 2), 5);
    ND_EXPECT_ERR(nd_gemm(NULL, false, false, 1, a, b, 0), ND_ERR_INVALID, "nd_gemm: argument 'c' is NULL");
    ND_EXPECT_ERR(nd_gemm(&c, false, false, 1, NULL, b, 0), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_gemm(&c, false, false, 1, a, NULL, 0), ND_ERR_INVALID, "argument 'b' is NULL");
    ND_EXPECT_ERR(nd_gemm(&c, false, false, 1, v, b, 0), ND_ERR_SHAPE, "nd_gemm: a must be 2-D, but it has 1");
    ND_EXPECT_ERR(nd_gemm(&c, false, false, 1, a, v, 0), ND_ERR_SHAPE, "b must be 2-D");
    ND_EXPECT_ERR(nd_gemm(&c, true, false, 1, a, b, 0), ND_ERR_SHAPE,
                  "op(a) has shape (4,3) and op(b) has shape (4,2): 3 != 4");
    ND_EXPECT_ERR(nd_gemm(&c, false, true, 1, a, b, 0), ND_ERR_SHAPE, "op(b) has shape (2,4)");
    ND_EXPECT_ERR(nd_gemm(&c, false, false, 1, ia, ib, 0), ND_ERR_DTYPE, "is int32; gemm needs a float dtype");
    ck_assert_ptr_null(c);
    /* existing c: wrong shape, wrong dtype; untouched */
    nd_array *cw = NULL, *keep;
    ND_OK_OR_FAIL(nd_full(&cw, ND_FLOAT32, 2, SHP(2, 3), nd_scalar_float(9), nd_cpu()));
    keep = cw;
    ND_EXPECT_ERR(nd_gemm(&cw, false, false, 1, a, b, 1), ND_ERR_SHAPE,
                  "c has shape (2,3), but op(a) @ op(b) has shape (3,2)");
    ck_assert_ptr_eq(cw, keep);
    nd_array *cd = NULL;
    ND_OK_OR_FAIL(nd_full(&cd, ND_FLOAT64, 2, SHP(3, 2), nd_scalar_float(9), nd_cpu()));
    ND_EXPECT_ERR(nd_gemm(&cd, false, false, 1, a, b, 1), ND_ERR_DTYPE,
                  "c has dtype float64, but the result dtype of a (float32) and b (float32) is float32");
    double dv[6];
    ND_OK_OR_FAIL(nd_copy_to_host(dv, cd, sizeof dv));
    for (int i = 0; i < 6; i++) ck_assert(dv[i] == 9.0);
    nd_array *all[] = {a, b, v, ia, ib, cw, cd};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
}
END_TEST

/* The TF32 switch: off by default (exact float32), settable, and without
 * effect on the CPU backend (a float32 matmul gives the same bits). */
START_TEST(test_tf32_switch)
{
    ck_assert(!nd_get_matmul_tf32());
    int64_t s2[2] = {33, 47};
    nd_array *a = NULL, *b = NULL, *bt = NULL, *c0 = NULL, *c1 = NULL;
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 5));
    ND_OK_OR_FAIL(nd_random_normal(&a, r, ND_FLOAT32, 2, s2, 0, 1, nd_cpu()));
    ND_OK_OR_FAIL(nd_random_normal(&b, r, ND_FLOAT32, 2, s2, 0, 1, nd_cpu()));
    ND_OK_OR_FAIL(nd_transpose(&bt, b, NULL));
    ND_OK_OR_FAIL(nd_matmul(&c0, a, bt));
    nd_set_matmul_tf32(true);
    ck_assert(nd_get_matmul_tf32());
    ND_OK_OR_FAIL(nd_matmul(&c1, a, bt));
    nd_set_matmul_tf32(false);
    ck_assert(!nd_get_matmul_tf32());
    ck_assert_int_eq(nd_size(c0), 33 * 33);
    float h0[33 * 33], h1[33 * 33];
    ND_OK_OR_FAIL(nd_copy_to_host(h0, c0, sizeof h0));
    ND_OK_OR_FAIL(nd_copy_to_host(h1, c1, sizeof h1));
    ck_assert(memcmp(h0, h1, sizeof h0) == 0);
    nd_array *all[] = {a, b, bt, c0, c1};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
    nd_rng_destroy(r);
}
END_TEST

void linalg_add_dot_gemm(Suite *s);
void linalg_add_dot_gemm(Suite *s)
{
    TCase *tc = tcase_create("dot_gemm");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_dot_nd);
    tcase_add_test(tc, test_dot_small);
    tcase_add_test(tc, test_dot_long);
    tcase_add_test(tc, test_dot_errors);
    tcase_add_test(tc, test_gemm_values);
    tcase_add_test(tc, test_gemm_special);
    tcase_add_test(tc, test_gemm_errors);
    tcase_add_test(tc, test_tf32_switch);
    suite_add_tcase(s, tc);
}
