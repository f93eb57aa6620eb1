/* The numpy.linalg decompositions (src/linalg/decomp.c,
 * src/linalg/lstsq.c): solve, inv, det, slogdet, cholesky, qr, svd,
 * svdvals, eigh, eigvalsh, eig, eigvals, lstsq, pinv, matrix_rank, cond.
 *
 * Everything runs on nd_default_device(), so ND_DEVICE=cuda:0 runs the
 * suite on the (emulated or real) GPU. Inputs come from a deterministic
 * generator (well-conditioned: random + a dominant diagonal; ill-
 * conditioned: the same with rows graded over several decades; Hermitian
 * positive definite: B B^H + n I), in every dtype (float32, float64,
 * complex64, complex128, and int32 / float16 for the promotion rules).
 * Results are checked by identities evaluated on the host in double
 * complex (A X = B, A inv(A) = I, Q R = A, U S Vh = A, A V = V diag(w),
 * L L^H = A, the Penrose conditions), with tolerances of the form
 * C * n * eps(computing dtype) (times the condition number where the
 * quantity is not backward stable), and det/slogdet against an LU with
 * partial pivoting computed here. Then every error, the empty cases, 1x1
 * matrices and the out-pointer rule. */
#include <complex.h>
#include <float.h>

#include "test_util.h"

typedef double complex cplx;

static nd_device DEV;
static uint64_t g_rs = 0x9e3779b97f4a7c15ull;
static double urand(void)
{
    g_rs ^= g_rs << 13, g_rs ^= g_rs >> 7, g_rs ^= g_rs << 17;
    return -1.0 + 2.0 * (double)(g_rs >> 11) / 9007199254740992.0;
}
static void setup(void) { DEV = nd_default_device(); }

static bool is_cpx(nd_dtype t) { return t == ND_COMPLEX64 || t == ND_COMPLEX128; }
static bool is_int(nd_dtype t) { return t <= ND_UINT64; }
/* the computing dtype and its eps */
static nd_dtype ctype(nd_dtype t)
{
    if (t == ND_FLOAT16 || t == ND_BFLOAT16) return ND_FLOAT32;
    if (t == ND_FLOAT32 || t == ND_FLOAT64 || is_cpx(t)) return t;
    return ND_FLOAT64;
}
static nd_dtype rtype(nd_dtype ct) { return ct == ND_FLOAT32 || ct == ND_COMPLEX64 ? ND_FLOAT32 : ND_FLOAT64; }
static double eps(nd_dtype t) { return rtype(ctype(t)) == ND_FLOAT32 ? FLT_EPSILON : DBL_EPSILON; }
static int64_t prod(int nd, const int64_t *s)
{
    int64_t p = 1;
    for (int i = 0; i < nd; i++) p *= s[i];
    return p;
}

/* An array of dtype t from complex values (real dtypes take the real
 * part, integer dtypes its rounding). */
static nd_array *arr(nd_dtype t, int nd, const int64_t *shape, const cplx *v)
{
    const int64_t n = prod(nd, shape);
    nd_array *x = NULL, *r = NULL;
    if (is_cpx(t)) {
        ND_OK_OR_FAIL(nd_from_host(&x, v, ND_COMPLEX128, nd, shape, DEV));
    } else {
        double *h = malloc(sizeof(double) * (size_t)(n ? n : 1));
        for (int64_t i = 0; i < n; i++) h[i] = is_int(t) ? round(creal(v[i])) : creal(v[i]);
        ND_OK_OR_FAIL(nd_from_host(&x, h, ND_FLOAT64, nd, shape, DEV));
        free(h);
    }
    ND_OK_OR_FAIL(nd_astype(&r, x, t));
    nd_release(x);
    return r;
}

/* Every element of a (any dtype) as double complex, C order (malloc'ed). */
static cplx *vals(const nd_array *a)
{
    const int64_t n = nd_size(a);
    nd_array *c = NULL;
    ND_OK_OR_FAIL(nd_astype(&c, a, ND_COMPLEX128));
    cplx *h = malloc(sizeof(cplx) * (size_t)(n ? n : 1));
    ND_OK_OR_FAIL(nd_copy_to_host(h, c, sizeof(cplx) * (size_t)n));
    nd_release(c);
    return h;
}

enum { G_RAND, G_WELL, G_ILL, G_HPD };
/* batch matrices r x c of kind g (square for WELL/ILL/HPD); complex parts when cpx */
static cplx *gen(int64_t batch, int64_t r, int64_t c, bool cpx, int g)
{
    cplx *v = malloc(sizeof(cplx) * (size_t)(batch * r * c > 0 ? batch * r * c : 1));
    for (int64_t b = 0; b < batch; b++) {
        cplx *m = v + b * r * c;
        if (g == G_HPD) {
            cplx *B = malloc(sizeof(cplx) * (size_t)(r * r));
            for (int64_t i = 0; i < r * r; i++) B[i] = urand() + (cpx ? urand() * I : 0);
            for (int64_t i = 0; i < r; i++)
                for (int64_t j = 0; j < r; j++) {
                    cplx s = i == j ? (double)r : 0;
                    for (int64_t k = 0; k < r; k++) s += B[i * r + k] * conj(B[j * r + k]);
                    m[i * r + j] = s;
                }
            free(B);
            continue;
        }
        for (int64_t i = 0; i < r * c; i++) m[i] = urand() + (cpx ? urand() * I : 0);
        if (g == G_WELL || g == G_ILL)
            for (int64_t i = 0; i < r; i++) m[i * c + i] += 2.0 * (double)r;
        if (g == G_ILL && r > 1) /* rows graded over 5 decades */
            for (int64_t i = 0; i < r; i++)
                for (int64_t j = 0; j < c; j++) m[i * c + j] *= pow(10.0, -5.0 * (double)i / (double)(r - 1));
    }
    return v;
}
static nd_array *gen_arr(nd_dtype t, int nd, const int64_t *shape, int g)
{
    const int64_t r = nd >= 2 ? shape[nd - 2] : 1, c = nd >= 1 ? shape[nd - 1] : 1,
                  batch = nd >= 2 ? prod(nd - 2, shape) : 1;
    if (is_int(t) && g == G_ILL) g = G_WELL; /* graded rows would round to zero */
    cplx *v = gen(batch, r, c, is_cpx(t), g);
    if (is_int(t))
        for (int64_t i = 0; i < batch * r * c; i++) v[i] = round(4 * creal(v[i]));
    nd_array *a = arr(t, nd, shape, v);
    free(v);
    return a;
}

/* host algebra (row-major, double complex) */
static void hmm(const cplx *A, const cplx *B, cplx *C, int64_t m, int64_t k, int64_t n)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            cplx s = 0;
            for (int64_t l = 0; l < k; l++) s += A[i * k + l] * B[l * n + j];
            C[i * n + j] = s;
        }
}
static void hH(const cplx *A, cplx *T, int64_t m, int64_t n) /* T = A^H (n x m) */
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) T[j * m + i] = conj(A[i * n + j]);
}
static double nrm(const cplx *A, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += creal(A[i] * conj(A[i]));
    return sqrt(s);
}
static double dnrm(const cplx *A, const cplx *B, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += creal((A[i] - B[i]) * conj(A[i] - B[i]));
    return sqrt(s);
}
/* |A B - C|_F / (|A|_F |B|_F + |C|_F) */
static double rel_prod(const cplx *A, const cplx *B, const cplx *C, int64_t m, int64_t k, int64_t n)
{
    cplx *P = malloc(sizeof(cplx) * (size_t)(m * n > 0 ? m * n : 1));
    hmm(A, B, P, m, k, n);
    double r = dnrm(P, C, m * n) / (nrm(A, m * k) * nrm(B, k * n) + nrm(C, m * n) + 1e-300);
    free(P);
    return r;
}
/* |A^H A - I| for A (m x n): orthonormal columns */
static double orth_err(const cplx *A, int64_t m, int64_t n)
{
    double e = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            cplx s = 0;
            for (int64_t l = 0; l < m; l++) s += conj(A[l * n + i]) * A[l * n + j];
            e = fmax(e, cabs(s - (i == j ? 1.0 : 0.0)));
        }
    return e;
}
/* LU with partial pivoting: det of the n x n A */
static cplx ref_det(const cplx *A0, int64_t n)
{
    cplx *A = malloc(sizeof(cplx) * (size_t)(n * n > 0 ? n * n : 1));
    memcpy(A, A0, sizeof(cplx) * (size_t)(n * n));
    cplx d = 1;
    for (int64_t k = 0; k < n; k++) {
        int64_t p = k;
        for (int64_t i = k + 1; i < n; i++)
            if (cabs(A[i * n + k]) > cabs(A[p * n + k])) p = i;
        if (p != k) {
            for (int64_t j = 0; j < n; j++) {
                cplx t = A[k * n + j];
                A[k * n + j] = A[p * n + j], A[p * n + j] = t;
            }
            d = -d;
        }
        d *= A[k * n + k];
        if (A[k * n + k] == 0) continue;
        for (int64_t i = k + 1; i < n; i++) {
            cplx l = A[i * n + k] / A[k * n + k];
            for (int64_t j = k; j < n; j++) A[i * n + j] -= l * A[k * n + j];
        }
    }
    free(A);
    return d;
}

static void expect_shape(const nd_array *a, int nd, const int64_t *shape, nd_dtype t)
{
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(nd_ndim(a), nd);
    for (int i = 0; i < nd; i++) ck_assert_int_eq(nd_shape(a)[i], shape[i]);
    ck_assert_msg(nd_dtype_of(a) == t, "dtype %s, want %s", nd_dtype_name(nd_dtype_of(a)), nd_dtype_name(t));
}

static const nd_dtype DTYPES[] = {ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128, ND_INT32, ND_FLOAT16};
#define NDT ((int)(sizeof DTYPES / sizeof *DTYPES))

/* ------------------------------------------------------------------ */
/* solve, inv                                                          */
/* ------------------------------------------------------------------ */
START_TEST(solve_broadcast)
{
    const int64_t n = 5, k = 3;
    for (int g = G_WELL; g <= G_ILL; g++)
        for (int di = 0; di < NDT; di++) {
            const nd_dtype t = DTYPES[di];
            const int64_t sa[4] = {2, 1, n, n}, sb[3] = {3, n, k}, sx[4] = {2, 3, n, k};
            nd_array *a = gen_arr(t, 4, sa, g), *b = gen_arr(t, 3, sb, G_RAND), *x = NULL;
            ND_OK_OR_FAIL(nd_linalg_solve(&x, a, b));
            expect_shape(x, 4, sx, ctype(t));
            cplx *A = vals(a), *B = vals(b), *X = vals(x);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 3; j++) {
                    double r = rel_prod(A + i * n * n, X + (i * 3 + j) * n * k, B + j * n * k, n, n, k);
                    ck_assert_msg(r < 20 * n * eps(t), "%s g%d: residual %g", nd_dtype_name(t), g, r);
                }
            free(A), free(B), free(X);
            nd_release(x), nd_release(b);
            /* NumPy 2: a 1-D b is one vector against every matrix */
            const int64_t sv[1] = {n}, sxv[3] = {2, 1, n};
            b = gen_arr(t, 1, sv, G_RAND), x = NULL;
            ND_OK_OR_FAIL(nd_linalg_solve(&x, a, b));
            expect_shape(x, 3, sxv, ctype(t));
            A = vals(a), B = vals(b), X = vals(x);
            for (int i = 0; i < 2; i++) ck_assert(rel_prod(A + i * n * n, X + i * n, B, n, n, 1) < 20 * n * eps(t));
            free(A), free(B), free(X);
            nd_release(a), nd_release(b), nd_release(x);
        }
}
END_TEST

START_TEST(solve_mixed_and_transposed)
{
    /* float32 a with float64 b computes in float64; a transposed view */
    const int64_t n = 4, sa[2] = {n, n}, sb[2] = {n, 2};
    nd_array *a = gen_arr(ND_FLOAT32, 2, sa, G_WELL), *b = gen_arr(ND_COMPLEX64, 2, sb, G_RAND), *at = NULL,
             *x = NULL;
    ND_OK_OR_FAIL(nd_transpose(&at, a, NULL));
    ND_OK_OR_FAIL(nd_linalg_solve(&x, at, b));
    expect_shape(x, 2, sb, ND_COMPLEX64);
    cplx *A = vals(at), *B = vals(b), *X = vals(x);
    ck_assert(rel_prod(A, X, B, n, n, 2) < 20 * n * FLT_EPSILON);
    free(A), free(B), free(X);
    nd_release(x), nd_release(b);
    b = gen_arr(ND_FLOAT64, 2, sb, G_RAND), x = NULL;
    ND_OK_OR_FAIL(nd_linalg_solve(&x, a, b));
    ck_assert_int_eq(nd_dtype_of(x), ND_FLOAT64);
    nd_release(a), nd_release(at), nd_release(b), nd_release(x);
}
END_TEST

START_TEST(inv_dtypes)
{
    const int64_t n = 6;
    for (int g = G_WELL; g <= G_ILL; g++)
        for (int di = 0; di < NDT; di++) {
            const nd_dtype t = DTYPES[di];
            const int64_t sa[3] = {3, n, n};
            nd_array *a = gen_arr(t, 3, sa, g), *x = NULL;
            ND_OK_OR_FAIL(nd_linalg_inv(&x, a));
            expect_shape(x, 3, sa, ctype(t));
            cplx *A = vals(a), *X = vals(x), *P = malloc(sizeof(cplx) * (size_t)(n * n));
            for (int i = 0; i < 3; i++) {
                hmm(A + i * n * n, X + i * n * n, P, n, n, n);
                const double cond = nrm(A + i * n * n, n * n) * nrm(X + i * n * n, n * n);
                for (int64_t r = 0; r < n; r++)
                    for (int64_t c = 0; c < n; c++) {
                        double e = cabs(P[r * n + c] - (r == c ? 1.0 : 0.0));
                        ck_assert_msg(e < 20 * n * eps(t) * cond, "%s g%d: |A inv(A) - I| = %g (cond %g)",
                                      nd_dtype_name(t), g, e, cond);
                    }
            }
            free(A), free(X), free(P);
            nd_release(a), nd_release(x);
        }
}
END_TEST

/* Batches on both sides of the CUDA backend's switch from cuSOLVER per
 * matrix to cuBLAS's batched routines (LU: batch > 1 and n <= 256; QR:
 * m <= 256 and batch >= max(2, m / 16)), on whatever device the suite runs:
 * the same identities, and singular matrices inside a batch give the same
 * error (the first singular matrix's index) and det 0. */
static void check_inv(const nd_array *a, const nd_array *x, int64_t batch, int64_t n, nd_dtype t, const char *what)
{
    cplx *A = vals(a), *X = vals(x), *P = malloc(sizeof(cplx) * (size_t)(n * n));
    for (int64_t i = 0; i < batch; i++) {
        hmm(A + i * n * n, X + i * n * n, P, n, n, n);
        const double cond = nrm(A + i * n * n, n * n) * nrm(X + i * n * n, n * n);
        double e = 0;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < n; c++) e = fmax(e, cabs(P[r * n + c] - (r == c ? 1.0 : 0.0)));
        ck_assert_msg(e < 20 * n * eps(t) * cond, "%s: matrix %lld: |A inv(A) - I| = %g (cond %g)", what,
                      (long long)i, e, cond);
    }
    free(A), free(X), free(P);
}

START_TEST(batched_paths)
{
    /* inv of many 4x4 in every dtype; a batch of 1 and 2 */
    static const int64_t batches[] = {1, 2, 300};
    for (int di = 0; di < NDT; di++)
        for (int bi = 0; bi < 3; bi++) {
            const nd_dtype t = DTYPES[di];
            const int64_t nb = batches[bi], sa[3] = {nb, 4, 4};
            nd_array *a = gen_arr(t, 3, sa, G_ILL), *x = NULL;
            ND_OK_OR_FAIL(nd_linalg_inv(&x, a));
            expect_shape(x, 3, sa, ctype(t));
            char what[64];
            snprintf(what, sizeof what, "inv %s batch %lld", nd_dtype_name(t), (long long)nb);
            check_inv(a, x, nb, 4, t, what);
            nd_release(a), nd_release(x);
        }
    /* solve at the size limit and one past it */
    for (int64_t n = 256; n <= 257; n++) {
        const int64_t sa[3] = {2, n, n}, sb[3] = {2, n, 3};
        for (int di = 0; di < 2; di++) {
            const nd_dtype t = di ? ND_COMPLEX64 : ND_FLOAT64;
            nd_array *a = gen_arr(t, 3, sa, G_WELL), *b = gen_arr(t, 3, sb, G_RAND), *x = NULL;
            ND_OK_OR_FAIL(nd_linalg_solve(&x, a, b));
            cplx *A = vals(a), *B = vals(b), *X = vals(x);
            for (int i = 0; i < 2; i++) {
                double r = rel_prod(A + i * n * n, X + i * n * 3, B + i * n * 3, n, n, 3);
                ck_assert_msg(r < 20 * n * eps(t), "solve %s n %lld: residual %g", nd_dtype_name(t), (long long)n, r);
            }
            free(A), free(B), free(X);
            nd_release(a), nd_release(b), nd_release(x);
        }
    }
    /* singular matrices inside batches of 4x4: the first one's index; det 0 */
    for (int64_t nb = 2; nb <= 40; nb += 38) {
        const int64_t sa[3] = {nb, 4, 4}, sb[1] = {4};
        cplx *h = gen(nb, 4, 4, false, G_WELL);
        for (int i = 0; i < 16; i++) h[(nb - 1) * 16 + i] = i % 4 + 1; /* last: equal rows */
        for (int i = 0; i < 16; i++) h[(nb / 2) * 16 + i] = i % 4 == 2 ? 0 : h[(nb / 2) * 16 + i]; /* a zero column */
        nd_array *a = arr(ND_FLOAT32, 3, sa, h), *b = gen_arr(ND_FLOAT32, 1, sb, G_RAND), *o = NULL, *d = NULL;
        char msg[64];
        snprintf(msg, sizeof msg, "singular matrix (batch %lld)", (long long)(nb / 2));
        ND_EXPECT_ERR(nd_linalg_inv(&o, a), ND_ERR_INVALID, msg);
        ND_EXPECT_ERR(nd_linalg_solve(&o, a, b), ND_ERR_INVALID, msg);
        ck_assert_ptr_null(o);
        ND_OK_OR_FAIL(nd_linalg_det(&d, a));
        cplx *D = vals(d);
        ck_assert_msg(creal(D[nb / 2]) == 0 && creal(D[nb - 1]) == 0, "det of singular: %g, %g", creal(D[nb / 2]),
                      creal(D[nb - 1]));
        for (int64_t i = 0; i < nb - 1; i++)
            if (i != nb / 2) {
                cplx ref = ref_det(h + i * 16, 4);
                ck_assert_msg(cabs(D[i] - ref) <= 1e3 * 4 * FLT_EPSILON * cabs(ref), "det %lld: %g, ref %g",
                              (long long)i, creal(D[i]), creal(ref));
            }
        free(D), free(h);
        nd_release(a), nd_release(b), nd_release(d);
    }
    /* qr: m = 48 takes the batched routine from a batch of 3 on; m = 257 never */
    static const int64_t qs[][3] = {{48, 20, 2}, {48, 20, 3}, {20, 48, 2}, {257, 4, 2}, {5, 3, 1}};
    for (int qi = 0; qi < 5; qi++)
        for (int di = 0; di < 4; di++) {
            const nd_dtype t = DTYPES[di];
            const int64_t M = qs[qi][0], N = qs[qi][1], nb = qs[qi][2], K = M < N ? M : N, sa[3] = {nb, M, N};
            nd_array *a = gen_arr(t, 3, sa, G_RAND), *q = NULL, *r = NULL;
            ND_OK_OR_FAIL(nd_linalg_qr(&q, &r, a, ND_QR_REDUCED));
            cplx *A = vals(a), *Q = vals(q), *R = vals(r);
            for (int64_t b = 0; b < nb; b++) {
                ck_assert(orth_err(Q + b * M * K, M, K) < 20 * M * eps(t));
                for (int64_t i = 0; i < K; i++)
                    for (int64_t j = 0; j < i; j++) ck_assert(R[(b * K + i) * N + j] == 0);
                double e = rel_prod(Q + b * M * K, R + b * K * N, A + b * M * N, M, K, N);
                ck_assert_msg(e < 20 * M * eps(t), "qr %s %lldx%lld batch %lld: %g", nd_dtype_name(t), (long long)M,
                              (long long)N, (long long)nb, e);
            }
            free(A), free(Q), free(R);
            nd_release(a), nd_release(q), nd_release(r);
        }
}
END_TEST

/* ------------------------------------------------------------------ */
/* det, slogdet                                                        */
/* ------------------------------------------------------------------ */
START_TEST(det_slogdet)
{
    const int64_t n = 5, sa[3] = {4, n, n};
    for (int di = 0; di < NDT; di++) {
        const nd_dtype t = DTYPES[di];
        nd_array *a = gen_arr(t, 3, sa, G_RAND), *d = NULL, *s = NULL, *l = NULL;
        ND_OK_OR_FAIL(nd_linalg_det(&d, a));
        ND_OK_OR_FAIL(nd_linalg_slogdet(&s, &l, a));
        expect_shape(d, 1, sa, ctype(t));
        expect_shape(s, 1, sa, ctype(t));
        expect_shape(l, 1, sa, rtype(ctype(t)));
        cplx *A = vals(a), *D = vals(d), *S = vals(s), *L = vals(l);
        for (int i = 0; i < 4; i++) {
            cplx ref = ref_det(A + i * n * n, n);
            /* random matrices: tolerate a condition number up to ~1e3 */
            const double tol = 1e3 * n * eps(t);
            ck_assert_msg(cabs(D[i] - ref) <= tol * cabs(ref) + 1e-300, "%s det %g%+gi, ref %g%+gi", nd_dtype_name(t),
                          creal(D[i]), cimag(D[i]), creal(ref), cimag(ref));
            ck_assert(fabs(creal(L[i]) - log(cabs(ref))) < tol);
            ck_assert(cabs(S[i] - ref / cabs(ref)) < tol);
            if (!is_cpx(t)) ck_assert(creal(S[i]) == 1.0 || creal(S[i]) == -1.0);
        }
        free(A), free(D), free(S), free(L);
        nd_release(a), nd_release(d), nd_release(s), nd_release(l);
    }
    /* exact cases: a permutation (det -1), a singular matrix (0; sign 0, -inf) */
    const int64_t s33[3] = {2, 3, 3};
    const cplx v[18] = {0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 2, 3, 2, 4, 6, 1, 0, 1};
    nd_array *a = arr(ND_FLOAT64, 3, s33, v), *d = NULL, *s = NULL, *l = NULL;
    ND_OK_OR_FAIL(nd_linalg_det(&d, a));
    ND_OK_OR_FAIL(nd_linalg_slogdet(&s, &l, a));
    cplx *D = vals(d), *S = vals(s), *L = vals(l);
    ck_assert(creal(D[0]) == -1.0 && creal(S[0]) == -1.0 && creal(L[0]) == 0.0);
    ck_assert(creal(D[1]) == 0.0 && creal(S[1]) == 0.0 && isinf(creal(L[1])) && creal(L[1]) < 0);
    free(D), free(S), free(L);
    nd_release(a), nd_release(d), nd_release(s), nd_release(l);
}
END_TEST

/* ------------------------------------------------------------------ */
/* cholesky                                                            */
/* ------------------------------------------------------------------ */
START_TEST(cholesky_lower_upper)
{
    const int64_t n = 5, sa[3] = {2, n, n};
    for (int di = 0; di < NDT; di++) {
        const nd_dtype t = DTYPES[di];
        for (int up = 0; up < 2; up++) {
            cplx *h = gen(2, n, n, is_cpx(t), G_HPD);
            if (is_int(t))
                for (int64_t i = 0; i < 2 * n * n; i++) h[i] = round(creal(h[i]) * 4);
            nd_array *ref = arr(t, 3, sa, h);
            cplx *A = vals(ref);
            /* garbage in the triangle that must not be read */
            for (int b = 0; b < 2; b++)
                for (int64_t r = 0; r < n; r++)
                    for (int64_t c = 0; c < n; c++)
                        if (up ? r > c : r < c) h[(b * n + r) * n + c] = 99.0 - 7.0 * I;
            nd_array *a = arr(t, 3, sa, h), *L = NULL;
            ND_OK_OR_FAIL(nd_linalg_cholesky(&L, a, up));
            expect_shape(L, 3, sa, ctype(t));
            cplx *F = vals(L), *FH = malloc(sizeof(cplx) * (size_t)(n * n));
            for (int b = 0; b < 2; b++) {
                cplx *f = F + b * n * n;
                for (int64_t r = 0; r < n; r++)
                    for (int64_t c = 0; c < n; c++)
                        if (up ? r > c : r < c) ck_assert(f[r * n + c] == 0);
                hH(f, FH, n, n);
                double e = up ? rel_prod(FH, f, A + b * n * n, n, n, n) : rel_prod(f, FH, A + b * n * n, n, n, n);
                ck_assert_msg(e < 20 * n * eps(t), "%s upper=%d: %g", nd_dtype_name(t), up, e);
            }
            free(h), free(A), free(F), free(FH);
            nd_release(ref), nd_release(a), nd_release(L);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* qr                                                                  */
/* ------------------------------------------------------------------ */
START_TEST(qr_modes)
{
    const int64_t shapes[4][2] = {{6, 3}, {3, 6}, {4, 4}, {1, 1}};
    for (int di = 0; di < NDT; di++)
        for (int si = 0; si < 4; si++)
            for (int mode = 0; mode < 3; mode++) {
                const nd_dtype t = DTYPES[di];
                const int64_t M = shapes[si][0], N = shapes[si][1], K = M < N ? M : N;
                const int64_t sa[3] = {2, M, N};
                nd_array *a = gen_arr(t, 3, sa, G_RAND), *q = NULL, *r = NULL;
                ND_OK_OR_FAIL(nd_linalg_qr(mode == ND_QR_R ? NULL : &q, &r, a, (nd_linalg_qr_mode)mode));
                const int64_t nq = mode == ND_QR_COMPLETE ? M : K, sr[3] = {2, nq, N}, sq[3] = {2, M, nq};
                expect_shape(r, 3, sr, ctype(t));
                cplx *A = vals(a), *R = vals(r);
                for (int b = 0; b < 2; b++)
                    for (int64_t i = 0; i < nq; i++)
                        for (int64_t j = 0; j < i && j < N; j++) ck_assert(R[(b * nq + i) * N + j] == 0);
                if (mode != ND_QR_R) {
                    expect_shape(q, 3, sq, ctype(t));
                    cplx *Q = vals(q);
                    for (int b = 0; b < 2; b++) {
                        ck_assert(orth_err(Q + b * M * nq, M, nq) < 20 * M * eps(t));
                        double e = rel_prod(Q + b * M * nq, R + b * nq * N, A + b * M * N, M, nq, N);
                        ck_assert_msg(e < 20 * M * eps(t), "%s %lldx%lld mode %d: %g", nd_dtype_name(t),
                                      (long long)M, (long long)N, mode, e);
                    }
                    free(Q);
                } else {
                    ck_assert_ptr_null(q);
                }
                free(A), free(R);
                nd_release(a), nd_release(q), nd_release(r);
            }
}
END_TEST

/* ------------------------------------------------------------------ */
/* svd, svdvals                                                        */
/* ------------------------------------------------------------------ */
START_TEST(svd_shapes)
{
    const int64_t shapes[4][2] = {{6, 3}, {3, 6}, {4, 4}, {1, 1}};
    for (int di = 0; di < NDT; di++)
        for (int si = 0; si < 4; si++)
            for (int full = 0; full < 2; full++) {
                const nd_dtype t = DTYPES[di];
                const int64_t M = shapes[si][0], N = shapes[si][1], K = M < N ? M : N;
                const int64_t sa[3] = {2, M, N}, ucol = full ? M : K, vrow = full ? N : K;
                const int64_t su[3] = {2, M, ucol}, ss[2] = {2, K}, sv[3] = {2, vrow, N};
                nd_array *a = gen_arr(t, 3, sa, G_RAND), *u = NULL, *s = NULL, *vh = NULL, *s2 = NULL;
                ND_OK_OR_FAIL(nd_linalg_svd(&u, &s, &vh, a, full));
                ND_OK_OR_FAIL(nd_linalg_svdvals(&s2, a));
                expect_shape(u, 3, su, ctype(t));
                expect_shape(s, 2, ss, rtype(ctype(t)));
                expect_shape(vh, 3, sv, ctype(t));
                expect_shape(s2, 2, ss, rtype(ctype(t)));
                cplx *A = vals(a), *U = vals(u), *S = vals(s), *V = vals(vh), *S2 = vals(s2);
                cplx *US = malloc(sizeof(cplx) * (size_t)(M * K)), *Vk = malloc(sizeof(cplx) * (size_t)(K * N));
                for (int b = 0; b < 2; b++) {
                    for (int64_t i = 0; i < K; i++) {
                        ck_assert(creal(S[b * K + i]) >= 0);
                        if (i) ck_assert(creal(S[b * K + i]) <= creal(S[b * K + i - 1]));
                        ck_assert(fabs(creal(S2[b * K + i] - S[b * K + i])) <= 20 * K * eps(t) * creal(S[b * K]));
                    }
                    for (int64_t r = 0; r < M; r++)
                        for (int64_t c = 0; c < K; c++) US[r * K + c] = U[(b * M + r) * ucol + c] * S[b * K + c];
                    memcpy(Vk, V + b * vrow * N, sizeof(cplx) * (size_t)(K * N));
                    double e = rel_prod(US, Vk, A + b * M * N, M, K, N);
                    ck_assert_msg(e < 20 * M * N * eps(t), "%s %lldx%lld full=%d: %g", nd_dtype_name(t), (long long)M,
                                  (long long)N, full, e);
                    ck_assert(orth_err(U + b * M * ucol, M, ucol) < 20 * M * eps(t));
                    cplx *VH = malloc(sizeof(cplx) * (size_t)(vrow * N));
                    hH(V + b * vrow * N, VH, vrow, N);
                    ck_assert(orth_err(VH, N, vrow) < 20 * N * eps(t));
                    free(VH);
                }
                free(A), free(U), free(S), free(V), free(S2), free(US), free(Vk);
                nd_release(a), nd_release(u), nd_release(s), nd_release(vh), nd_release(s2);
            }
}
END_TEST

/* ------------------------------------------------------------------ */
/* eigh, eigvalsh, eig, eigvals                                        */
/* ------------------------------------------------------------------ */
START_TEST(eigh_uplo)
{
    const int64_t n = 5, sa[3] = {2, n, n}, sw[2] = {2, n};
    for (int di = 0; di < NDT; di++)
        for (int up = 0; up < 2; up++) {
            const nd_dtype t = DTYPES[di];
            cplx *h = gen(2, n, n, is_cpx(t), G_HPD);
            for (int64_t i = 0; i < 2 * n; i++) h[i * n + i % n] -= (double)n * 1.5; /* indefinite */
            if (is_int(t))
                for (int64_t i = 0; i < 2 * n * n; i++) h[i] = round(creal(h[i]) * 4);
            nd_array *ref = arr(t, 3, sa, h);
            cplx *A = vals(ref);
            for (int b = 0; b < 2; b++)
                for (int64_t r = 0; r < n; r++)
                    for (int64_t c = 0; c < n; c++)
                        if (up ? r > c : r < c) h[(b * n + r) * n + c] = -55.0 + 3.0 * I;
            nd_array *a = arr(t, 3, sa, h), *w = NULL, *v = NULL, *w2 = NULL;
            ND_OK_OR_FAIL(nd_linalg_eigh(&w, &v, a, up ? 'U' : 'L'));
            ND_OK_OR_FAIL(nd_linalg_eigvalsh(&w2, a, up ? 'u' : 'l'));
            expect_shape(w, 2, sw, rtype(ctype(t)));
            expect_shape(v, 3, sa, ctype(t));
            expect_shape(w2, 2, sw, rtype(ctype(t)));
            cplx *W = vals(w), *V = vals(v), *W2 = vals(w2), *AV = malloc(sizeof(cplx) * (size_t)(n * n)),
                 *VW = malloc(sizeof(cplx) * (size_t)(n * n));
            for (int b = 0; b < 2; b++) {
                const double an = nrm(A + b * n * n, n * n);
                for (int64_t i = 0; i < n; i++) {
                    if (i) ck_assert(creal(W[b * n + i]) >= creal(W[b * n + i - 1]));
                    ck_assert(fabs(creal(W2[b * n + i] - W[b * n + i])) < 20 * n * eps(t) * an);
                }
                hmm(A + b * n * n, V + b * n * n, AV, n, n, n);
                for (int64_t r = 0; r < n; r++)
                    for (int64_t c = 0; c < n; c++) VW[r * n + c] = V[(b * n + r) * n + c] * W[b * n + c];
                ck_assert_msg(dnrm(AV, VW, n * n) < 20 * n * eps(t) * an, "%s up=%d: %g", nd_dtype_name(t), up,
                              dnrm(AV, VW, n * n));
                ck_assert(orth_err(V + b * n * n, n, n) < 20 * n * eps(t));
            }
            free(h), free(A), free(W), free(V), free(W2), free(AV), free(VW);
            nd_release(ref), nd_release(a), nd_release(w), nd_release(v), nd_release(w2);
        }
}
END_TEST

START_TEST(eig_general)
{
    const int64_t n = 6, sa[3] = {2, n, n}, sw[2] = {2, n};
    for (int di = 0; di < NDT; di++) {
        const nd_dtype t = DTYPES[di], cx = rtype(ctype(t)) == ND_FLOAT32 ? ND_COMPLEX64 : ND_COMPLEX128;
        nd_array *a = gen_arr(t, 3, sa, G_RAND), *w = NULL, *v = NULL, *w2 = NULL;
        ND_OK_OR_FAIL(nd_linalg_eig(&w, &v, a));
        ND_OK_OR_FAIL(nd_linalg_eigvals(&w2, a));
        expect_shape(w, 2, sw, cx);
        expect_shape(v, 3, sa, cx);
        expect_shape(w2, 2, sw, cx);
        cplx *A = vals(a), *W = vals(w), *V = vals(v), *W2 = vals(w2), *AV = malloc(sizeof(cplx) * (size_t)(n * n)),
             *VW = malloc(sizeof(cplx) * (size_t)(n * n));
        for (int b = 0; b < 2; b++) {
            const double an = nrm(A + b * n * n, n * n);
            hmm(A + b * n * n, V + b * n * n, AV, n, n, n);
            for (int64_t r = 0; r < n; r++)
                for (int64_t c = 0; c < n; c++) VW[r * n + c] = V[(b * n + r) * n + c] * W[b * n + c];
            ck_assert_msg(dnrm(AV, VW, n * n) < 100 * n * eps(t) * an, "%s: %g", nd_dtype_name(t),
                          dnrm(AV, VW, n * n));
            for (int64_t c = 0; c < n; c++) { /* unit columns; eigvals = eig's w (same order) */
                double s = 0;
                for (int64_t r = 0; r < n; r++) s += creal(V[(b * n + r) * n + c] * conj(V[(b * n + r) * n + c]));
                ck_assert(fabs(s - 1) < 20 * n * eps(t));
                double best = INFINITY; /* eigvals: eig's values (the order may differ) */
                for (int64_t j = 0; j < n; j++) best = fmin(best, cabs(W2[b * n + c] - W[b * n + j]));
                ck_assert(best < 100 * n * eps(t) * an);
            }
        }
        free(A), free(W), free(V), free(W2), free(AV), free(VW);
        nd_release(a), nd_release(w), nd_release(v), nd_release(w2);
    }
    /* a rotation: eigenvalues +-i from real input */
    const int64_t s22[2] = {2, 2};
    const cplx rv[4] = {0, -1, 1, 0};
    nd_array *a = arr(ND_FLOAT64, 2, s22, rv), *w = NULL;
    ND_OK_OR_FAIL(nd_linalg_eigvals(&w, a));
    cplx *W = vals(w);
    ck_assert(cabs(W[0] * W[1] - 1) < 1e-14 && fabs(cimag(W[0])) > 0.99 && cimag(W[0]) == -cimag(W[1]));
    free(W);
    nd_release(a), nd_release(w);
}
END_TEST

/* ------------------------------------------------------------------ */
/* lstsq, pinv, matrix_rank, cond                                      */
/* ------------------------------------------------------------------ */
START_TEST(lstsq_cases)
{
    for (int di = 0; di < NDT; di++) {
        const nd_dtype t = DTYPES[di], rt = rtype(ctype(t));
        /* overdetermined, full rank: the normal equations; residuals */
        const int64_t M = 7, N = 3, sa[2] = {M, N}, sb[2] = {M, 2}, sx[2] = {N, 2}, sres[1] = {2}, ss[1] = {N};
        nd_array *a = gen_arr(t, 2, sa, G_RAND), *b = gen_arr(t, 2, sb, G_RAND), *x = NULL, *res = NULL, *s = NULL,
                 *s2 = NULL;
        int64_t rank = -1;
        ND_OK_OR_FAIL(nd_linalg_lstsq(&x, &res, &rank, &s, a, b, -1));
        expect_shape(x, 2, sx, ctype(t));
        expect_shape(res, 1, sres, rt);
        expect_shape(s, 1, ss, rt);
        ck_assert_int_eq(rank, N);
        ND_OK_OR_FAIL(nd_linalg_svdvals(&s2, a));
        cplx *A = vals(a), *B = vals(b), *X = vals(x), *R = vals(res), *S = vals(s), *S2 = vals(s2);
        cplx *AX = malloc(sizeof(cplx) * (size_t)(M * 2)), *AH = malloc(sizeof(cplx) * (size_t)(M * N)),
             *G = malloc(sizeof(cplx) * (size_t)(N * 2));
        hmm(A, X, AX, M, N, 2);
        for (int64_t i = 0; i < M * 2; i++) AX[i] -= B[i];
        hH(A, AH, M, N);
        hmm(AH, AX, G, N, M, 2);
        ck_assert_msg(nrm(G, N * 2) < 100 * M * eps(t) * nrm(A, M * N) * nrm(B, M * 2), "%s: normal eq %g",
                      nd_dtype_name(t), nrm(G, N * 2));
        for (int c = 0; c < 2; c++) {
            double r2 = 0;
            for (int64_t i = 0; i < M; i++) r2 += creal(AX[i * 2 + c] * conj(AX[i * 2 + c]));
            ck_assert(fabs(creal(R[c]) - r2) < 100 * M * eps(t) * (r2 + nrm(B, M * 2)));
        }
        for (int64_t i = 0; i < N; i++) ck_assert(fabs(creal(S[i] - S2[i])) < 20 * N * eps(t) * creal(S[0]));
        free(A), free(B), free(X), free(R), free(S), free(S2), free(AX), free(AH), free(G);
        nd_release(x), nd_release(res), nd_release(s), nd_release(s2), nd_release(b);
        /* 1-D b: x (N,), residuals (1,) */
        const int64_t sbv[1] = {M}, sxv[1] = {N}, s1[1] = {1};
        b = gen_arr(t, 1, sbv, G_RAND), x = NULL, res = NULL;
        ND_OK_OR_FAIL(nd_linalg_lstsq(&x, &res, NULL, NULL, a, b, -1));
        expect_shape(x, 1, sxv, ctype(t));
        expect_shape(res, 1, s1, rt);
        nd_release(x), nd_release(res), nd_release(b), nd_release(a);
        /* underdetermined: an exact, minimum-norm solution (= pinv(a) b) */
        const int64_t su[2] = {3, 6}, sbu[2] = {3, 2}, s0[1] = {0}, sxu[2] = {6, 2};
        a = gen_arr(t, 2, su, G_RAND), b = gen_arr(t, 2, sbu, G_RAND), x = NULL, res = NULL;
        nd_array *p = NULL, *px = NULL;
        ND_OK_OR_FAIL(nd_linalg_lstsq(&x, &res, &rank, NULL, a, b, -1));
        expect_shape(x, 2, sxu, ctype(t));
        expect_shape(res, 1, s0, rt);
        ck_assert_int_eq(rank, 3);
        ND_OK_OR_FAIL(nd_linalg_pinv(&p, a, -1, false));
        ND_OK_OR_FAIL(nd_matmul(&px, p, b));
        A = vals(a), B = vals(b), X = vals(x);
        cplx *PX = vals(px);
        ck_assert(rel_prod(A, X, B, 3, 6, 2) < 100 * 6 * eps(t));
        ck_assert(dnrm(X, PX, 12) < 1e3 * eps(t) * nrm(X, 12));
        free(A), free(B), free(X), free(PX);
        nd_release(a), nd_release(b), nd_release(x), nd_release(res), nd_release(p), nd_release(px);
    }
    /* rank deficient (col 2 = col 0 + col 1): rank 2, no residuals */
    const int64_t sa[2] = {5, 3}, sb[1] = {5}, s0[1] = {0};
    cplx v[15];
    for (int i = 0; i < 5; i++) v[i * 3] = i + 1, v[i * 3 + 1] = (i * i) % 3, v[i * 3 + 2] = v[i * 3] + v[i * 3 + 1];
    const cplx bv[5] = {1, 2, 3, 4, 6};
    nd_array *a = arr(ND_FLOAT64, 2, sa, v), *b = arr(ND_FLOAT64, 1, sb, bv), *x = NULL, *res = NULL;
    int64_t rank = -1;
    ND_OK_OR_FAIL(nd_linalg_lstsq(&x, &res, &rank, NULL, a, b, -1));
    ck_assert_int_eq(rank, 2);
    expect_shape(res, 1, s0, ND_FLOAT64);
    nd_release(a), nd_release(b), nd_release(x), nd_release(res);
}
END_TEST

START_TEST(pinv_penrose)
{
    const int64_t shapes[3][2] = {{5, 3}, {3, 5}, {4, 4}};
    for (int di = 0; di < NDT; di++)
        for (int si = 0; si < 3; si++) {
            const nd_dtype t = DTYPES[di];
            const int64_t M = shapes[si][0], N = shapes[si][1], sa[3] = {2, M, N}, sp[3] = {2, N, M};
            nd_array *a = gen_arr(t, 3, sa, G_RAND), *p = NULL;
            ND_OK_OR_FAIL(nd_linalg_pinv(&p, a, -1, false));
            expect_shape(p, 3, sp, ctype(t));
            cplx *A = vals(a), *P = vals(p), *AP = malloc(sizeof(cplx) * (size_t)(M * M)),
                 *APH = malloc(sizeof(cplx) * (size_t)(M * M));
            for (int b = 0; b < 2; b++) {
                const cplx *Ab = A + b * M * N, *Pb = P + b * N * M;
                hmm(Ab, Pb, AP, M, N, M);
                hH(AP, APH, M, M);
                const double tol = 1e3 * M * N * eps(t);
                ck_assert_msg(rel_prod(AP, Ab, Ab, M, M, N) < tol, "%s: A P A", nd_dtype_name(t)); /* A P A = A */
                ck_assert(dnrm(AP, APH, M * M) < tol * nrm(AP, M * M));                           /* (A P)^H */
                cplx *PA = malloc(sizeof(cplx) * (size_t)(N * N));
                hmm(Pb, Ab, PA, N, M, N);
                ck_assert(rel_prod(PA, Pb, Pb, N, N, M) < tol); /* P A P = P */
                free(PA);
            }
            free(A), free(P), free(AP), free(APH);
            nd_release(a), nd_release(p);
        }
    /* hermitian: the eigh path agrees with the SVD path on a Hermitian matrix */
    for (int di = 0; di < 4; di++) {
        const nd_dtype t = DTYPES[di];
        const int64_t n = 4, sa[2] = {n, n};
        cplx *h = gen(1, n, n, is_cpx(t), G_HPD);
        for (int64_t i = 0; i < n; i++) h[i * n + i] -= (double)n * 1.7;
        nd_array *a = arr(t, 2, sa, h), *p1 = NULL, *p2 = NULL;
        ND_OK_OR_FAIL(nd_linalg_pinv(&p1, a, -1, true));
        ND_OK_OR_FAIL(nd_linalg_pinv(&p2, a, -1, false));
        cplx *P1 = vals(p1), *P2 = vals(p2);
        ck_assert_msg(dnrm(P1, P2, n * n) < 1e3 * n * eps(t) * nrm(P2, n * n), "%s: hermitian pinv",
                      nd_dtype_name(t));
        free(h), free(P1), free(P2);
        nd_release(a), nd_release(p1), nd_release(p2);
    }
}
END_TEST

static int64_t rank_of(const nd_array *a, double tol, bool herm)
{
    nd_array *r = NULL;
    ND_OK_OR_FAIL(nd_linalg_matrix_rank(&r, a, tol, herm));
    ck_assert_int_eq(nd_dtype_of(r), ND_INT64);
    int64_t v = -1;
    ND_OK_OR_FAIL(nd_copy_to_host(&v, r, 8));
    nd_release(r);
    return v;
}

START_TEST(matrix_rank_cases)
{
    for (int di = 0; di < NDT; di++) {
        const nd_dtype t = DTYPES[di];
        const int64_t sa[2] = {5, 4}, sq[2] = {4, 4};
        nd_array *a = gen_arr(t, 2, sa, G_RAND);
        ck_assert_int_eq(rank_of(a, -1, false), 4);
        nd_release(a);
        cplx v[16];
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) v[i * 4 + j] = (double)((i + 1) * (j + 1) % 5) + (i == j ? 0 : 0);
        for (int j = 0; j < 4; j++) v[12 + j] = v[j] + v[4 + j]; /* row 3 = row 0 + row 1 */
        a = arr(t, 2, sq, v);
        ck_assert_int_eq(rank_of(a, -1, false), 3);
        ck_assert_int_eq(rank_of(a, 1e6, false), 0);
        nd_release(a);
    }
    /* hermitian, batched: ranks (3, 2) */
    const int64_t s3[3] = {2, 3, 3};
    const cplx h[18] = {2, 0, 0, 0, -1, 0, 0, 0, 5, 1, 1, 0, 1, 1, 0, 0, 0, 1};
    nd_array *a = arr(ND_FLOAT64, 3, s3, h), *r = NULL;
    ND_OK_OR_FAIL(nd_linalg_matrix_rank(&r, a, -1, true));
    int64_t rv[2];
    ND_OK_OR_FAIL(nd_copy_to_host(rv, r, sizeof rv));
    ck_assert(rv[0] == 3 && rv[1] == 2);
    nd_release(a), nd_release(r);
    /* 1-D and 0-d: 1 unless all zero */
    const int64_t s4[1] = {4};
    const cplx z[4] = {0, 0, 0, 0}, nz[4] = {0, 0, 3, 0};
    a = arr(ND_INT32, 1, s4, z);
    ck_assert_int_eq(rank_of(a, -1, false), 0);
    nd_release(a);
    a = arr(ND_FLOAT32, 1, s4, nz);
    ck_assert_int_eq(rank_of(a, -1, false), 1);
    nd_release(a);
    a = arr(ND_FLOAT64, 0, NULL, nz + 2);
    ck_assert_int_eq(rank_of(a, -1, false), 1);
    nd_release(a);
}
END_TEST

/* host matrix norms of the n x n A for cond: 1, inf, fro */
static double hnorm(const cplx *A, int64_t n, nd_norm_ord o)
{
    if (o.kind == ND_NORM_FRO) return nrm(A, n * n);
    double best = 0;
    for (int64_t i = 0; i < n; i++) {
        double s = 0;
        for (int64_t j = 0; j < n; j++) s += cabs(o.p == 1 ? A[j * n + i] : A[i * n + j]);
        best = fmax(best, s);
    }
    return best;
}

START_TEST(cond_ords)
{
    for (int di = 0; di < NDT; di++) {
        const nd_dtype t = DTYPES[di];
        const int64_t n = 4, sa[3] = {2, n, n}, sr[1] = {2};
        nd_array *a = gen_arr(t, 3, sa, G_ILL), *inv = NULL;
        ND_OK_OR_FAIL(nd_linalg_inv(&inv, a));
        cplx *A = vals(a), *X = vals(inv);
        const nd_norm_ord ords[5] = {nd_norm_p(1), nd_norm_p(INFINITY), nd_norm_named(ND_NORM_FRO),
                                     nd_norm_named(ND_NORM_DEFAULT), nd_norm_p(-2)};
        for (int k = 0; k < 5; k++) {
            nd_array *c = NULL;
            ND_OK_OR_FAIL(nd_linalg_cond(&c, a, ords[k]));
            expect_shape(c, 1, sr, rtype(ctype(t)));
            cplx *C = vals(c);
            for (int b = 0; b < 2; b++) {
                double ref;
                if (k < 3) ref = hnorm(A + b * n * n, n, ords[k]) * hnorm(X + b * n * n, n, ords[k]);
                else {
                    nd_array *s = NULL;
                    ND_OK_OR_FAIL(nd_linalg_svdvals(&s, a));
                    cplx *S = vals(s);
                    ref = k == 3 ? creal(S[b * n]) / creal(S[b * n + n - 1]) : creal(S[b * n + n - 1]) / creal(S[b * n]);
                    free(S);
                    nd_release(s);
                }
                ck_assert_msg(fabs(creal(C[b]) - ref) <= 1e-3 * ref + 1e3 * n * eps(t) * ref * ref * 0,
                              "%s ord %d: %g vs %g", nd_dtype_name(t), k, creal(C[b]), ref);
            }
            free(C);
            nd_release(c);
        }
        free(A), free(X);
        nd_release(a), nd_release(inv);
    }
    /* singular: inf for every ord */
    const int64_t s33[2] = {3, 3};
    const cplx v[9] = {1, 2, 3, 2, 4, 6, 1, 0, 1};
    nd_array *a = arr(ND_FLOAT64, 2, s33, v);
    const nd_norm_ord ords[4] = {nd_norm_p(1), nd_norm_named(ND_NORM_DEFAULT), nd_norm_p(-2),
                                 nd_norm_named(ND_NORM_FRO)};
    for (int k = 0; k < 4; k++) {
        nd_array *c = NULL;
        ND_OK_OR_FAIL(nd_linalg_cond(&c, a, ords[k]));
        double cv = 0;
        ND_OK_OR_FAIL(nd_copy_to_host(&cv, c, 8));
        if (k == 2) ck_assert_msg(cv < 1e-15, "ord -2: %g", cv);
        else ck_assert_msg(isinf(cv) || cv > 1e15, "ord %d: %g", k, cv);
        nd_release(c);
    }
    nd_release(a);
    /* all zeros: inf (0/0 becomes inf, as NumPy) */
    const cplx zv[9] = {0};
    a = arr(ND_FLOAT32, 2, s33, zv);
    for (int k = 0; k < 4; k++) {
        nd_array *c = NULL;
        ND_OK_OR_FAIL(nd_linalg_cond(&c, a, ords[k]));
        float cv = 0;
        ND_OK_OR_FAIL(nd_copy_to_host(&cv, c, 4));
        ck_assert_msg(isinf(cv), "ord %d: %g", k, (double)cv);
        nd_release(c);
    }
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* errors, empties, 1x1, out                                           */
/* ------------------------------------------------------------------ */
START_TEST(errors)
{
    const int64_t s23[2] = {2, 3}, s3[1] = {3}, s33[3] = {4, 3, 3}, s4[2] = {4, 2};
    nd_array *ns = gen_arr(ND_FLOAT64, 2, s23, G_RAND), *v = gen_arr(ND_FLOAT64, 1, s3, G_RAND), *o = NULL,
             *o2 = NULL, *o3 = NULL;
    ND_EXPECT_ERR(nd_linalg_inv(&o, ns), ND_ERR_SHAPE, "nd_linalg_inv: 'a' has shape (2,3): last 2 dimensions");
    ND_EXPECT_ERR(nd_linalg_det(&o, ns), ND_ERR_SHAPE, "must be square");
    ND_EXPECT_ERR(nd_linalg_slogdet(&o, &o2, ns), ND_ERR_SHAPE, "must be square");
    ND_EXPECT_ERR(nd_linalg_cholesky(&o, ns, false), ND_ERR_SHAPE, "must be square");
    ND_EXPECT_ERR(nd_linalg_eigh(&o, &o2, ns, 'L'), ND_ERR_SHAPE, "must be square");
    ND_EXPECT_ERR(nd_linalg_eigvals(&o, ns), ND_ERR_SHAPE, "must be square");
    ND_EXPECT_ERR(nd_linalg_solve(&o, ns, v), ND_ERR_SHAPE, "must be square");
    ND_EXPECT_ERR(nd_linalg_pinv(&o, ns, -1, true), ND_ERR_SHAPE, "must be square");
    ND_EXPECT_ERR(nd_linalg_cond(&o, ns, nd_norm_p(1)), ND_ERR_SHAPE, "must be square");
    ND_EXPECT_ERR(nd_linalg_inv(&o, v), ND_ERR_SHAPE, "1-dimensional array given");
    ND_EXPECT_ERR(nd_linalg_svd(&o, &o2, &o3, v, false), ND_ERR_SHAPE, "at least two-dimensional");
    ND_EXPECT_ERR(nd_linalg_qr(&o, &o2, v, ND_QR_REDUCED), ND_ERR_SHAPE, "at least two-dimensional");
    ND_EXPECT_ERR(nd_linalg_cond(&o, v, nd_norm_named(ND_NORM_DEFAULT)), ND_ERR_SHAPE, "two-dimensional");
    ND_EXPECT_ERR(nd_linalg_lstsq(&o, NULL, NULL, NULL, v, v, -1), ND_ERR_SHAPE, "Array must be two-dimensional");
    ND_EXPECT_ERR(nd_linalg_lstsq(&o, NULL, NULL, NULL, ns, v, -1), ND_ERR_SHAPE, "Incompatible dimensions");
    /* singular and non-PD with the batch index */
    cplx *h = gen(4, 3, 3, false, G_HPD);
    for (int i = 0; i < 9; i++) h[2 * 9 + i] = i % 3; /* batch 2: rank 1 (rows equal), not PD */
    nd_array *a = arr(ND_FLOAT64, 3, s33, h);
    ND_EXPECT_ERR(nd_linalg_inv(&o, a), ND_ERR_INVALID, "nd_linalg_inv: singular matrix (batch 2)");
    nd_array *b = gen_arr(ND_FLOAT64, 1, s3, G_RAND);
    ND_EXPECT_ERR(nd_linalg_solve(&o, a, b), ND_ERR_INVALID, "nd_linalg_solve: singular matrix (batch 2)");
    ND_EXPECT_ERR(nd_linalg_cholesky(&o, a, false), ND_ERR_INVALID,
                  "nd_linalg_cholesky: matrix is not positive definite (batch 2)");
    ND_EXPECT_ERR(nd_linalg_cholesky(&o, a, true), ND_ERR_INVALID, "not positive definite (batch 2)");
    ck_assert_ptr_null(o);
    /* det of it is fine */
    ND_OK_OR_FAIL(nd_linalg_det(&o, a));
    nd_release(o), o = NULL;
    ND_EXPECT_ERR(nd_linalg_eigh(&o, &o2, a, 'X'), ND_ERR_INVALID, "UPLO argument must be 'L' or 'U'");
    ND_EXPECT_ERR(nd_linalg_eigvalsh(&o, a, 0), ND_ERR_INVALID, "UPLO");
    ND_EXPECT_ERR(nd_linalg_qr(&o, &o2, a, (nd_linalg_qr_mode)7), ND_ERR_INVALID, "mode");
    ND_EXPECT_ERR(nd_linalg_cond(&o, a, nd_norm_p(3)), ND_ERR_INVALID, "Invalid norm order");
    /* solve: b's core dimension */
    nd_array *b4 = gen_arr(ND_FLOAT64, 2, s4, G_RAND);
    ND_EXPECT_ERR(nd_linalg_solve(&o, a, b4), ND_ERR_SHAPE, "mismatch in its core dimension 0");
    /* NULL pointers */
    ND_EXPECT_ERR(nd_linalg_inv(NULL, a), ND_ERR_INVALID, "nd_linalg_inv");
    ND_EXPECT_ERR(nd_linalg_inv(&o, NULL), ND_ERR_INVALID, "nd_linalg_inv");
    ND_EXPECT_ERR(nd_linalg_svd(NULL, &o2, &o3, a, true), ND_ERR_INVALID, "nd_linalg_svd");
    ND_EXPECT_ERR(nd_linalg_qr(NULL, &o2, a, ND_QR_REDUCED), ND_ERR_INVALID, "nd_linalg_qr");
    ck_assert_ptr_null(o);
    ck_assert_ptr_null(o2);
    ck_assert_ptr_null(o3);
    /* different devices, when there is a second one */
    if (nd_cuda_device_count() > 0) {
        nd_device other = DEV.type == ND_DEVICE_CPU ? nd_cuda(0) : nd_cpu();
        nd_array *bo = NULL;
        ND_OK_OR_FAIL(nd_to_device(&bo, b, other));
        ND_EXPECT_ERR(nd_linalg_solve(&o, a, bo), ND_ERR_DEVICE, "different devices");
        nd_release(bo);
    }
    free(h);
    nd_release(ns), nd_release(v), nd_release(a), nd_release(b), nd_release(b4);
}
END_TEST

/* Non-finite input (LAPACK's gesdd calls NaN an illegal argument, geev's
 * balancing prints through xerbla): NaN in an SVD-based function is
 * NumPy's LinAlgError "SVD did not converge", NaN or inf in eig/eigvals
 * its "Array must not contain infs or NaNs"; an infinity in the SVD is not
 * an error (NaN results, as NumPy); nothing is printed either way. */
START_TEST(nonfinite_input)
{
    const int64_t s233[3] = {2, 3, 3};
    for (int k = 0; k < 2; k++) {
        cplx *h = gen(2, 3, 3, false, G_RAND);
        h[9 + 4] = k == 0 ? NAN : INFINITY; /* batch 1 only */
        nd_array *a = arr(ND_FLOAT64, 3, s233, h), *ac = arr(ND_COMPLEX64, 3, s233, h), *o = NULL, *o2 = NULL,
                 *o3 = NULL;
        ND_EXPECT_ERR(nd_linalg_eig(&o, &o2, a), ND_ERR_INVALID, "nd_linalg_eig: Array must not contain infs or NaNs");
        ND_EXPECT_ERR(nd_linalg_eigvals(&o, ac), ND_ERR_INVALID, "Array must not contain infs or NaNs");
        if (k == 0) {
            ND_EXPECT_ERR(nd_linalg_svd(&o, &o2, &o3, a, false), ND_ERR_INVALID, "nd_linalg_svd: SVD did not converge");
            ND_EXPECT_ERR(nd_linalg_svdvals(&o, ac), ND_ERR_INVALID, "SVD did not converge");
            ND_EXPECT_ERR(nd_linalg_pinv(&o, a, -1, false), ND_ERR_INVALID, "SVD did not converge");
            ND_EXPECT_ERR(nd_linalg_matrix_rank(&o, a, -1, false), ND_ERR_INVALID, "SVD did not converge");
        } else {
            ND_OK_OR_FAIL(nd_linalg_svdvals(&o, a));
            nd_release(o), o = NULL;
        }
        ck_assert_ptr_null(o);
        ck_assert_ptr_null(o2);
        ck_assert_ptr_null(o3);
        free(h);
        nd_release(a), nd_release(ac);
    }
}
END_TEST

START_TEST(empties)
{
    const int64_t e33[3] = {0, 3, 3}, z00[2] = {0, 0}, z30[2] = {3, 0}, z03[2] = {0, 3}, s0[1] = {0};
    nd_array *eb = gen_arr(ND_FLOAT32, 3, e33, G_RAND), *o = NULL, *o2 = NULL, *o3 = NULL;
    ND_OK_OR_FAIL(nd_linalg_inv(&o, eb));
    expect_shape(o, 3, e33, ND_FLOAT32);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_linalg_det(&o, eb));
    expect_shape(o, 1, s0, ND_FLOAT32);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_linalg_cond(&o, eb, nd_norm_p(1)));
    expect_shape(o, 1, s0, ND_FLOAT32);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_linalg_svd(&o, &o2, &o3, eb, true));
    nd_release(o), nd_release(o2), nd_release(o3), o = o2 = o3 = NULL;
    nd_release(eb);
    /* 0x0: det 1, slogdet (1, 0), inv 0x0, cholesky, eigh, eig */
    nd_array *z = gen_arr(ND_FLOAT64, 2, z00, G_RAND);
    ND_OK_OR_FAIL(nd_linalg_det(&o, z));
    double d = 0;
    ND_OK_OR_FAIL(nd_copy_to_host(&d, o, 8));
    ck_assert(d == 1.0);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_linalg_slogdet(&o, &o2, z));
    ND_OK_OR_FAIL(nd_copy_to_host(&d, o, 8));
    ck_assert(d == 1.0);
    ND_OK_OR_FAIL(nd_copy_to_host(&d, o2, 8));
    ck_assert(d == 0.0);
    nd_release(o), nd_release(o2), o = o2 = NULL;
    ND_OK_OR_FAIL(nd_linalg_inv(&o, z));
    expect_shape(o, 2, z00, ND_FLOAT64);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_linalg_cholesky(&o, z, false));
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_linalg_eigh(&o, &o2, z, 'L'));
    expect_shape(o, 1, s0, ND_FLOAT64);
    nd_release(o), nd_release(o2), o = o2 = NULL;
    ND_OK_OR_FAIL(nd_linalg_eig(&o, &o2, z));
    expect_shape(o, 1, s0, ND_COMPLEX128);
    nd_release(o), nd_release(o2), o = o2 = NULL;
    ND_EXPECT_ERR(nd_linalg_cond(&o, z, nd_norm_named(ND_NORM_DEFAULT)), ND_ERR_INVALID, "not defined on empty");
    nd_release(z);
    /* (3, 0): complete qr Q = I3, full svd U = I3; pinv (0, 3); rank 0 */
    nd_array *t = gen_arr(ND_FLOAT64, 2, z30, G_RAND);
    const int64_t s33[2] = {3, 3};
    ND_OK_OR_FAIL(nd_linalg_qr(&o, &o2, t, ND_QR_COMPLETE));
    expect_shape(o, 2, s33, ND_FLOAT64);
    expect_shape(o2, 2, z30, ND_FLOAT64);
    double q[9];
    ND_OK_OR_FAIL(nd_copy_to_host(q, o, sizeof q));
    for (int i = 0; i < 9; i++) ck_assert(q[i] == (i % 4 == 0 ? 1.0 : 0.0));
    nd_release(o), nd_release(o2), o = o2 = NULL;
    ND_OK_OR_FAIL(nd_linalg_svd(&o, &o2, &o3, t, true));
    expect_shape(o, 2, s33, ND_FLOAT64);
    ND_OK_OR_FAIL(nd_copy_to_host(q, o, sizeof q));
    for (int i = 0; i < 9; i++) ck_assert(q[i] == (i % 4 == 0 ? 1.0 : 0.0));
    nd_release(o), nd_release(o2), nd_release(o3), o = o2 = o3 = NULL;
    ND_OK_OR_FAIL(nd_linalg_pinv(&o, t, -1, false));
    expect_shape(o, 2, z03, ND_FLOAT64);
    nd_release(o), o = NULL;
    ck_assert_int_eq(rank_of(t, -1, false), 0);
    /* lstsq with N == 0 < M: x (0, 2), residuals |b|^2, rank 0 */
    const int64_t sb[2] = {3, 2}, sx[2] = {0, 2}, s2[1] = {2};
    const cplx bv[6] = {0, 1, 2, 3, 4, 5};
    nd_array *b = arr(ND_FLOAT64, 2, sb, bv);
    int64_t rank = -1;
    ND_OK_OR_FAIL(nd_linalg_lstsq(&o, &o2, &rank, &o3, t, b, -1));
    expect_shape(o, 2, sx, ND_FLOAT64);
    expect_shape(o2, 1, s2, ND_FLOAT64);
    expect_shape(o3, 1, s0, ND_FLOAT64);
    ck_assert_int_eq(rank, 0);
    double r[2];
    ND_OK_OR_FAIL(nd_copy_to_host(r, o2, sizeof r));
    ck_assert(r[0] == 20.0 && r[1] == 35.0);
    nd_release(o), nd_release(o2), nd_release(o3), o = o2 = o3 = NULL;
    nd_release(t), nd_release(b);
    /* lstsq with M == 0: x = 0 */
    const int64_t a02[2] = {0, 2}, b02[2] = {0, 2}, x22[2] = {2, 2};
    nd_array *a0 = gen_arr(ND_FLOAT64, 2, a02, G_RAND), *b0 = gen_arr(ND_FLOAT64, 2, b02, G_RAND);
    ND_OK_OR_FAIL(nd_linalg_lstsq(&o, NULL, NULL, NULL, a0, b0, -1));
    expect_shape(o, 2, x22, ND_FLOAT64);
    double xz[4] = {1, 1, 1, 1};
    ND_OK_OR_FAIL(nd_copy_to_host(xz, o, sizeof xz));
    for (int i = 0; i < 4; i++) ck_assert(xz[i] == 0);
    nd_release(o), o = NULL;
    nd_release(a0), nd_release(b0);
    /* solve with k == 0 */
    const int64_t s22[2] = {2, 2}, s20[2] = {2, 0};
    nd_array *a2 = gen_arr(ND_FLOAT64, 2, s22, G_WELL), *b20 = gen_arr(ND_FLOAT64, 2, s20, G_RAND);
    ND_OK_OR_FAIL(nd_linalg_solve(&o, a2, b20));
    expect_shape(o, 2, s20, ND_FLOAT64);
    nd_release(o), nd_release(a2), nd_release(b20);
}
END_TEST

START_TEST(one_by_one)
{
    const int64_t s11[2] = {1, 1};
    const cplx v[1] = {-4};
    nd_array *a = arr(ND_FLOAT64, 2, s11, v), *o = NULL, *o2 = NULL, *o3 = NULL;
    double x;
    ND_OK_OR_FAIL(nd_linalg_inv(&o, a));
    ND_OK_OR_FAIL(nd_copy_to_host(&x, o, 8));
    ck_assert(x == -0.25);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_linalg_det(&o, a));
    ND_OK_OR_FAIL(nd_copy_to_host(&x, o, 8));
    ck_assert(x == -4);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_linalg_svd(&o, &o2, &o3, a, true));
    ND_OK_OR_FAIL(nd_copy_to_host(&x, o2, 8));
    ck_assert(x == 4);
    nd_release(o), nd_release(o2), nd_release(o3), o = o2 = o3 = NULL;
    ND_OK_OR_FAIL(nd_linalg_eigvalsh(&o, a, 'L'));
    ND_OK_OR_FAIL(nd_copy_to_host(&x, o, 8));
    ck_assert(x == -4);
    nd_release(o), o = NULL;
    ND_EXPECT_ERR(nd_linalg_cholesky(&o, a, false), ND_ERR_INVALID, "not positive definite (batch 0)");
    ND_OK_OR_FAIL(nd_linalg_pinv(&o, a, -1, false));
    ND_OK_OR_FAIL(nd_copy_to_host(&x, o, 8));
    ck_assert(fabs(x + 0.25) < 1e-16);
    nd_release(o), o = NULL;
    ck_assert_int_eq(rank_of(a, -1, false), 1);
    nd_release(a);
}
END_TEST

START_TEST(out_pointer)
{
    const int64_t n = 4, sa[2] = {n, n}, s5[2] = {5, 5}, sn[1] = {n};
    nd_array *a = gen_arr(ND_FLOAT32, 2, sa, G_WELL), *o = NULL, *ref = NULL;
    ND_OK_OR_FAIL(nd_linalg_inv(&ref, a));
    /* right shape, wider dtype: written in place */
    ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT64, 2, sa, DEV));
    nd_array *keep = o;
    ND_OK_OR_FAIL(nd_linalg_inv(&o, a));
    ck_assert_ptr_eq(o, keep);
    cplx *R = vals(ref), *O = vals(o);
    ck_assert(dnrm(R, O, n * n) == 0);
    free(R), free(O);
    nd_release(o), o = NULL;
    /* wrong shape / dtype: refused, untouched */
    ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT32, 2, s5, DEV));
    keep = o;
    ND_EXPECT_ERR(nd_linalg_inv(&o, a), ND_ERR_SHAPE, "nd_linalg_inv: 'out' has shape (5,5)");
    ck_assert_ptr_eq(o, keep);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_zeros(&o, ND_INT32, 2, sa, DEV));
    ND_EXPECT_ERR(nd_linalg_inv(&o, a), ND_ERR_DTYPE, "same_kind");
    nd_release(o), o = NULL;
    /* in place: out is the input */
    nd_array *a2 = NULL;
    ND_OK_OR_FAIL(nd_copy(&a2, a));
    o = a2;
    ND_OK_OR_FAIL(nd_linalg_inv(&o, a2));
    R = vals(ref), O = vals(a2);
    ck_assert(dnrm(R, O, n * n) == 0);
    free(R), free(O);
    nd_release(a2), o = NULL;
    /* several results: a wrong s leaves u and vh unallocated and untouched */
    nd_array *u = NULL, *s = NULL, *vh = NULL;
    ND_OK_OR_FAIL(nd_zeros(&s, ND_FLOAT32, 1, s5, DEV));
    keep = s;
    ND_EXPECT_ERR(nd_linalg_svd(&u, &s, &vh, a, false), ND_ERR_SHAPE, "nd_linalg_svd: 'out' has shape (5,)");
    ck_assert_ptr_null(u);
    ck_assert_ptr_null(vh);
    ck_assert_ptr_eq(s, keep);
    nd_release(s), s = NULL;
    /* a right s is filled, u and vh allocated */
    ND_OK_OR_FAIL(nd_zeros(&s, ND_FLOAT64, 1, sn, DEV));
    keep = s;
    ND_OK_OR_FAIL(nd_linalg_svd(&u, &s, &vh, a, false));
    ck_assert_ptr_eq(s, keep);
    ck_assert_ptr_nonnull(u);
    ck_assert_ptr_nonnull(vh);
    double sv[4];
    ND_OK_OR_FAIL(nd_copy_to_host(sv, s, sizeof sv));
    ck_assert(sv[0] >= sv[1] && sv[3] > 0);
    nd_release(u), nd_release(s), nd_release(vh);
    /* a failing computation (singular) leaves a given out untouched */
    const cplx z[16] = {0};
    nd_array *zs = arr(ND_FLOAT32, 2, sa, z);
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT32, 2, sa, nd_scalar_float(7), DEV));
    ND_EXPECT_ERR(nd_linalg_inv(&o, zs), ND_ERR_INVALID, "singular matrix (batch 0)");
    O = vals(o);
    for (int i = 0; i < 16; i++) ck_assert(creal(O[i]) == 7);
    free(O);
    nd_release(o), nd_release(zs), nd_release(a), nd_release(ref);
}
END_TEST

Suite *suite_linalg_decomp(void);
Suite *suite_linalg_decomp(void)
{
    Suite *s = suite_create("linalg_decomp");
    TCase *tc = tcase_create("linalg_decomp");
    tcase_set_timeout(tc, 600);
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, solve_broadcast);
    tcase_add_test(tc, solve_mixed_and_transposed);
    tcase_add_test(tc, inv_dtypes);
    tcase_add_test(tc, batched_paths);
    tcase_add_test(tc, det_slogdet);
    tcase_add_test(tc, cholesky_lower_upper);
    tcase_add_test(tc, qr_modes);
    tcase_add_test(tc, svd_shapes);
    tcase_add_test(tc, eigh_uplo);
    tcase_add_test(tc, eig_general);
    tcase_add_test(tc, lstsq_cases);
    tcase_add_test(tc, pinv_penrose);
    tcase_add_test(tc, matrix_rank_cases);
    tcase_add_test(tc, cond_ords);
    tcase_add_test(tc, nonfinite_input);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, empties);
    tcase_add_test(tc, one_by_one);
    tcase_add_test(tc, out_pointer);
    suite_add_tcase(s, tc);
    return s;
}
