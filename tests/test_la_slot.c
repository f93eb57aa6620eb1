/* The backend slot `la` (contract in src/shared/la_slots.h), called directly
 * through nd__backend(dev)->la on every compiled-in backend with a device:
 * the CPU always, cuda:0 when there is one (in the CUDA_EMU=1 build the
 * emulated GPU, where the cuSOLVER stand-in answers). Same cases on both.
 *
 * Every op in every dtype (float32, float64, complex64, complex128) on
 * deterministic random data (never all zero; complex with both parts
 * random), outputs poisoned with NaN before the call, inputs' unread
 * triangles filled with NaN (POTRF, SYEVD: a backend that reads them
 * shows). Checks are identities against a double-precision reference made
 * here from the values the arrays really hold:
 *   GETRF  P L U = A, |L| <= 1 (sqrt 2 complex), pivots in range; on the
 *          CPU the pivots equal LAPACK's own (dgetrf_ & co called here)
 *   GESV   A X = B residual
 *   POTRF  L L^H = A, strictly upper triangle exactly 0
 *   GEQRF + ORGQR  Q R = A, Q^H Q = I (reduced and complete Q)
 *   GESVD  U diag(S) Vt = A, S descending >= 0, U, Vt orthonormal, jobs
 *          N (S against job S's), S and A
 *   SYEVD  A V = V diag(w), V^H V = I, w ascending, lower and upper,
 *          job N against job V
 *   GEEV   A v = lambda v, |v| = 1 with its largest component real; real
 *          a: conjugate pairs adjacent, positive imaginary part first,
 *          vectors conjugate; job N's eigenvalues against job V's
 *   info   singular matrix (exact zero column) -> j at its batch index,
 *          other matrices 0; non positive definite -> the minor's order
 * Sizes 1, 2, 3, 5, 16, 17 (either side of the CPU's small LU path),
 * 64; 256 and 301 for GETRF and GESV (the CPU's blocked LU); batches > 1
 * of different matrices, and large batches (threads).
 * Bound: ||residual||_F <= C n eps(dtype) * the norms involved. */
#include <complex.h>

#include "cpu/lapack.h"
#include "core/internal.h"
#include "shared/la_slots.h"
#include "test_util.h"

typedef double _Complex cd;
#define C_TOL 30.0
#define CHECK(cond, ...)                        \
    do {                                        \
        if (!(cond)) ck_abort_msg(__VA_ARGS__); \
    } while (0)

static const nd_dtype LT[4] = {ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128};
static const int64_t SIZES[] = {1, 2, 3, 5, 16, 17, 64};
#define NSIZES ((int)(sizeof SIZES / sizeof SIZES[0]))

typedef struct {
    nd_device dev;
    nd_dtype t;
    bool cpx, f32;
    double eps;
    char name[48];
} env;

/* loop index: device (0 CPU, 1 cuda:0) * 4 + dtype */
static env env_of(int i)
{
    env e;
    e.dev = i / 4 ? nd_cuda(0) : nd_cpu();
    e.t = LT[i % 4];
    e.cpx = e.t == ND_COMPLEX64 || e.t == ND_COMPLEX128;
    e.f32 = e.t == ND_FLOAT32 || e.t == ND_COMPLEX64;
    e.eps = e.f32 ? 1.1920929e-7 : 2.220446049250313e-16;
    snprintf(e.name, sizeof e.name, "%s %s", i / 4 ? "cuda:0" : "cpu", nd_dtype_name(e.t));
    return e;
}

static uint32_t rng = 12345u;
static double urand(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (double)(rng >> 8) / 8388608.0 - 1.0; /* [-1, 1) */
}
/* value rounded to e's precision */
static cd rnd_to(const env *e, cd v)
{
    if (e->f32) return (double)(float)creal(v) + I * (double)(float)cimag(v);
    return v;
}
static void fill(const env *e, cd *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) v[i] = rnd_to(e, urand() + (e->cpx ? I * urand() : 0));
}

/* ------------------------------------------------------------------ */
/* Arrays                                                              */
/* ------------------------------------------------------------------ */
static size_t ptsz(nd_dtype t) { return t == ND_FLOAT32 || t == ND_COMPLEX64 ? 4 : 8; }
static bool tcpx(nd_dtype t) { return t == ND_COMPLEX64 || t == ND_COMPLEX128; }

/* shape (b, d1, d2) (d2 == 0: 2-D (b, d1)) of dtype t from values v (NULL: NaN) */
static nd_array *up(const env *e, nd_dtype t, const cd *v, int64_t b, int64_t d1, int64_t d2)
{
    int64_t cnt = b * d1 * (d2 ? d2 : 1);
    int nparts = tcpx(t) ? 2 : 1;
    size_t ps = ptsz(t);
    unsigned char *raw = malloc((size_t)cnt * nparts * ps + 1);
    ck_assert(raw != NULL);
    for (int64_t i = 0; i < cnt; i++)
        for (int p = 0; p < nparts; p++) {
            double x = v ? (p ? cimag(v[i]) : creal(v[i])) : NAN;
            if (ps == 4) {
                float f = (float)x;
                memcpy(raw + ((size_t)i * nparts + p) * 4, &f, 4);
            } else {
                memcpy(raw + ((size_t)i * nparts + p) * 8, &x, 8);
            }
        }
    /* as the core allocates stacks (src/shared/la_slots.h): 4 KiB of slack after the
     * data, a view of the front of a longer buffer */
    nd_array *flat = NULL, *front = NULL, *a = NULL;
    const int64_t total = cnt + (int64_t)(4096 / nd_dtype_size(t));
    ND_OK_OR_FAIL(nd_empty(&flat, t, 1, &total, e->dev));
    nd_range r = {0, cnt, 1};
    ND_OK_OR_FAIL(nd_slice(&front, flat, 1, &r));
    ND_OK_OR_FAIL(nd_copy_from_host(front, raw, (size_t)cnt * nd_dtype_size(t)));
    int64_t sh[3] = {b, d1, d2};
    ND_OK_OR_FAIL(nd_reshape(&a, front, d2 ? 3 : 2, sh));
    ck_assert(nd_data(a) == nd_data(flat)); /* a view, not a copy */
    nd_release(flat), nd_release(front);
    free(raw);
    return a;
}

static cd *down(const nd_array *a)
{
    int64_t cnt = nd_size(a);
    nd_dtype t = nd_dtype_of(a);
    int nparts = tcpx(t) ? 2 : 1;
    size_t ps = ptsz(t);
    unsigned char *raw = malloc((size_t)cnt * nparts * ps + 1);
    cd *v = malloc(sizeof(cd) * (size_t)(cnt + 1));
    ck_assert(raw && v);
    ND_OK_OR_FAIL(nd_copy_to_host(raw, a, (size_t)cnt * nparts * ps));
    for (int64_t i = 0; i < cnt; i++) {
        double p[2] = {0, 0};
        for (int q = 0; q < nparts; q++) {
            if (ps == 4) {
                float f;
                memcpy(&f, raw + ((size_t)i * nparts + q) * 4, 4);
                p[q] = f;
            } else {
                memcpy(&p[q], raw + ((size_t)i * nparts + q) * 8, 8);
            }
        }
        v[i] = p[0] + I * p[1];
    }
    free(raw);
    return v;
}

static nd_array *up_i32(const env *e, int64_t b, int64_t n)
{
    int32_t *raw = malloc(sizeof(int32_t) * (size_t)(b * n));
    for (int64_t i = 0; i < b * n; i++) raw[i] = -777;
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, raw, ND_INT32, 2, (int64_t[]){b, n}, e->dev));
    free(raw);
    return a;
}

static nd_status run_la(const env *e, nd_la_call *c)
{
    const nd_backend *be = nd__backend(e->dev);
    ck_assert_msg(be != NULL && be->la != NULL, "%s: the backend has no la slot", e->name);
    for (int64_t i = 0; i < c->batch; i++) c->info[i] = -12345;
    nd_status st = be->la(c);
    ck_assert_msg(st == ND_OK, "%s op %d: %s: %s", e->name, c->op, nd_status_name(st), nd_last_error());
    for (int64_t i = 0; i < c->batch; i++)
        ck_assert_msg(c->info[i] >= 0, "%s op %d: info[%lld] = %d not written", e->name, c->op, (long long)i,
                      (int)c->info[i]);
    return st;
}

static nd_la_call mk_call(int op, int64_t batch, int64_t m, int64_t n, int32_t *info)
{
    nd_la_call c;
    memset(&c, 0, sizeof c);
    c.op = op, c.batch = batch, c.m = m, c.n = n, c.info = info;
    return c;
}

/* ------------------------------------------------------------------ */
/* Reference helpers (column-major, leading dimension = rows)         */
/* ------------------------------------------------------------------ */
#define AT(p, r, c, rows) ((p)[(size_t)(c) * (rows) + (r)])

static double fro(const cd *a, int64_t cnt)
{
    double s = 0;
    for (int64_t i = 0; i < cnt; i++) s += creal(a[i] * conj(a[i]));
    return sqrt(s);
}
/* ||A B - C||_F, A m x k, B k x n, C m x n (hb: use B^H of a n x k B) */
static double resid_mul(const cd *a, const cd *b, const cd *c, int64_t m, int64_t k, int64_t n)
{
    double s = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t r = 0; r < m; r++) {
            cd acc = 0;
            for (int64_t q = 0; q < k; q++) acc += AT(a, r, q, m) * AT(b, q, j, k);
            cd d = acc - (c ? AT(c, r, j, m) : 0);
            s += creal(d * conj(d));
        }
    return sqrt(s);
}
/* ||Q^H Q - I||_F for Q m x n (cols orthonormal) */
static double orth_cols(const cd *q, int64_t m, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            cd acc = 0;
            for (int64_t r = 0; r < m; r++) acc += conj(AT(q, r, i, m)) * AT(q, r, j, m);
            cd d = acc - (i == j);
            s += creal(d * conj(d));
        }
    return sqrt(s);
}
/* ||V V^H - I||_F for V k x n (rows orthonormal) */
static double orth_rows(const cd *v, int64_t k, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < k; j++) {
            cd acc = 0;
            for (int64_t c = 0; c < n; c++) acc += AT(v, i, c, k) * conj(AT(v, j, c, k));
            cd d = acc - (i == j);
            s += creal(d * conj(d));
        }
    return sqrt(s);
}

static double tol(const env *e, int64_t n, double scale) { return C_TOL * (double)(n + 1) * e->eps * (scale + 1e-300); }

/* ------------------------------------------------------------------ */
/* GETRF                                                               */
/* ------------------------------------------------------------------ */
/* LAPACK's own pivots on host data of e's dtype (CPU reference) */
static void lapack_getrf(const env *e, const cd *a, int n, int32_t *ipiv)
{
    nd_array *tmp = up(e, e->t, a, 1, n, n);
    void *p = malloc((size_t)n * n * nd_dtype_size(e->t) + 8);
    ND_OK_OR_FAIL(nd_copy_to_host(p, tmp, (size_t)n * n * nd_dtype_size(e->t)));
    int info = 0;
    switch (e->t) {
    case ND_FLOAT32: sgetrf_(&n, &n, p, &n, ipiv, &info); break;
    case ND_FLOAT64: dgetrf_(&n, &n, p, &n, ipiv, &info); break;
    case ND_COMPLEX64: cgetrf_(&n, &n, p, &n, ipiv, &info); break;
    default: zgetrf_(&n, &n, p, &n, ipiv, &info); break;
    }
    free(p);
    nd_release(tmp);
}

static void check_lu(const env *e, const cd *a0, const cd *lu, const int32_t *ipiv, int64_t n, const char *what)
{
    cd *pa = malloc(sizeof(cd) * (size_t)(n * n));
    memcpy(pa, a0, sizeof(cd) * (size_t)(n * n));
    for (int64_t k = 0; k < n; k++) {
        int p = ipiv[k] - 1;
        CHECK(p >= k && p < n, "%s %s: ipiv[%lld] = %d out of range", e->name, what, (long long)k, ipiv[k]);
        for (int64_t c = 0; c < n; c++) {
            cd t = AT(pa, k, c, n);
            AT(pa, k, c, n) = AT(pa, p, c, n);
            AT(pa, p, c, n) = t;
        }
    }
    double s = 0;
    for (int64_t r = 0; r < n; r++)
        for (int64_t c = 0; c < n; c++) {
            cd acc = 0;
            for (int64_t q = 0; q <= (r < c ? r : c); q++) {
                cd l = q == r ? 1 : AT(lu, r, q, n);
                acc += l * AT(lu, q, c, n);
            }
            cd d = acc - AT(pa, r, c, n);
            s += creal(d * conj(d));
            if (r > c)
                CHECK(cabs(AT(lu, r, c, n)) <= (e->cpx ? 1.4143 : 1.0 + 1e-6), "%s %s: |L[%lld,%lld]| = %g > 1",
                      e->name, what, (long long)r, (long long)c, cabs(AT(lu, r, c, n)));
        }
    CHECK(sqrt(s) <= tol(e, n, fro(a0, n * n)), "%s %s: ||P L U - A|| = %g", e->name, what, sqrt(s));
    free(pa);
}

START_TEST(la_getrf)
{
    env e = env_of(_i);
    for (int si = 0; si < NSIZES; si++) {
        int64_t n = SIZES[si], b = 3;
        cd *a0 = malloc(sizeof(cd) * (size_t)(b * n * n));
        fill(&e, a0, b * n * n);
        nd_array *a = up(&e, e.t, a0, b, n, n), *ip = up_i32(&e, b, n);
        int32_t info[3];
        nd_la_call c = mk_call(ND_LA_GETRF, b, n, n, info);
        c.a = a, c.ipiv = ip;
        run_la(&e, &c);
        cd *lu = down(a);
        int32_t *piv = malloc(sizeof(int32_t) * (size_t)(b * n));
        ND_OK_OR_FAIL(nd_copy_to_host(piv, ip, sizeof(int32_t) * (size_t)(b * n)));
        char what[64];
        for (int64_t i = 0; i < b; i++) {
            snprintf(what, sizeof what, "getrf n=%lld [%lld]", (long long)n, (long long)i);
            ck_assert_msg(info[i] == 0, "%s: info %d", what, info[i]);
            check_lu(&e, a0 + i * n * n, lu + i * n * n, piv + i * n, n, what);
            if (e.dev.type == ND_DEVICE_CPU) { /* LAPACK's pivots */
                int32_t ref[64];
                lapack_getrf(&e, a0 + i * n * n, (int)n, ref);
                for (int64_t k = 0; k < n; k++)
                    CHECK(ref[k] == piv[i * n + k], "%s %s: ipiv[%lld] = %d, LAPACK %d", e.name, what, (long long)k,
                          piv[i * n + k], ref[k]);
            }
        }
        free(a0), free(lu), free(piv);
        nd_release(a), nd_release(ip);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* GESV, singular matrices, the big batch                              */
/* ------------------------------------------------------------------ */
static void gesv_case(const env *e, int64_t b, int64_t n, int64_t nrhs, int64_t sing)
{
    cd *a0 = malloc(sizeof(cd) * (size_t)(b * n * n)), *b0 = malloc(sizeof(cd) * (size_t)(b * n * nrhs));
    fill(e, a0, b * n * n);
    fill(e, b0, b * n * nrhs);
    const int64_t zc = n > 1 ? 1 : 0; /* the zero column of the singular matrix */
    if (sing >= 0)
        for (int64_t r = 0; r < n; r++) AT(a0 + sing * n * n, r, zc, n) = 0;
    nd_array *a = up(e, e->t, a0, b, n, n), *bb = up(e, e->t, b0, b, nrhs, n);
    int32_t *info = malloc(sizeof(int32_t) * (size_t)b);
    nd_la_call c = mk_call(ND_LA_GESV, b, n, n, info);
    c.a = a, c.b = bb, c.nrhs = nrhs;
    run_la(e, &c);
    cd *x = down(bb);
    for (int64_t i = 0; i < b; i++) {
        if (i == sing) {
            CHECK(info[i] == zc + 1, "%s gesv n=%lld: singular matrix %lld: info %d, want %lld", e->name, (long long)n,
                  (long long)i, info[i], (long long)(zc + 1));
            continue;
        }
        CHECK(info[i] == 0, "%s gesv n=%lld [%lld]: info %d", e->name, (long long)n, (long long)i, info[i]);
        const cd *ai = a0 + i * n * n, *xi = x + i * n * nrhs, *bi = b0 + i * n * nrhs;
        double r = resid_mul(ai, xi, bi, n, n, nrhs);
        double sc = fro(ai, n * n) * fro(xi, n * nrhs) + fro(bi, n * nrhs);
        CHECK(r <= tol(e, n, sc), "%s gesv n=%lld nrhs=%lld [%lld]: ||A X - B|| = %g (scale %g)", e->name,
              (long long)n, (long long)nrhs, (long long)i, r, sc);
    }
    free(a0), free(b0), free(x), free(info);
    nd_release(a), nd_release(bb);
}

START_TEST(la_gesv)
{
    env e = env_of(_i);
    for (int si = 0; si < NSIZES; si++) {
        gesv_case(&e, 3, SIZES[si], 1, -1);
        gesv_case(&e, 2, SIZES[si], 3, -1);
        gesv_case(&e, 4, SIZES[si], 2, 2); /* matrix 2 singular */
    }
    gesv_case(&e, 10000, 4, 4, 7777); /* inv's shape; threads over the batch */
    gesv_case(&e, 200, 24, 3, 150);   /* LAPACK per matrix, in parallel */
}
END_TEST

/* b random n x n matrices of e's dtype with matrix 1's column zc zeroed,
 * factored by the slot: their values in *a0 (malloc'd), the factors in
 * *a, the pivots in *ip, info[0, b) */
static void getrf_zero_col(const env *e, int64_t n, int64_t b, int64_t zc, cd **a0, nd_array **a, nd_array **ip,
                           int32_t *info)
{
    *a0 = malloc(sizeof(cd) * (size_t)(b * n * n));
    fill(e, *a0, b * n * n);
    for (int64_t r = 0; r < n; r++) AT(*a0 + n * n, r, zc, n) = 0;
    *a = up(e, e->t, *a0, b, n, n), *ip = up_i32(e, b, n);
    nd_la_call c = mk_call(ND_LA_GETRF, b, n, n, info);
    c.a = *a, c.ipiv = *ip;
    run_la(e, &c);
}

START_TEST(la_getrf_singular)
{
    env e = env_of(_i);
    const int64_t ns[] = {1, 4, 17, 40};
    for (int q = 0; q < 4; q++) {
        int64_t n = ns[q], b = 3, zc = n / 2;
        cd *a0;
        nd_array *a, *ip;
        int32_t info[3];
        getrf_zero_col(&e, n, b, zc, &a0, &a, &ip, info);
        ck_assert_msg(info[0] == 0 && info[2] == 0 && info[1] == zc + 1, "%s getrf n=%lld: info %d %d %d, want 0 %lld 0",
                      e.name, (long long)n, info[0], info[1], info[2], (long long)(zc + 1));
        /* the factorisation is complete all the same */
        cd *lu = down(a);
        int32_t *piv = malloc(sizeof(int32_t) * (size_t)(b * n));
        ND_OK_OR_FAIL(nd_copy_to_host(piv, ip, sizeof(int32_t) * (size_t)(b * n)));
        check_lu(&e, a0 + n * n, lu + n * n, piv + n, n, "getrf singular");
        free(a0), free(lu), free(piv);
        nd_release(a), nd_release(ip);
    }
}
END_TEST

/* The CPU's own blocked LU (src/cpu/lapack.c, from 256 x 256 with
 * scipy-openblas32): two full panels, a ragged last panel, a zero column
 * in a later panel (info counts from the whole matrix, the factorization
 * completes), and the solve after it. The double dtypes' pivots equal
 * LAPACK's getrf's; the single ones are checked by the identities only (a
 * near tie between two candidates for a pivot may go either way at that
 * precision when the sums run in another order). */
START_TEST(la_getrf_blocked)
{
    env e = env_of(_i);
    const int64_t ns[] = {256, 301};
    for (int q = 0; q < 2; q++) {
        const int64_t n = ns[q], b = 2, zc = 200; /* matrix 1: column 200 zero, in the second panel */
        cd *a0;
        nd_array *a, *ip;
        int32_t info[2];
        getrf_zero_col(&e, n, b, zc, &a0, &a, &ip, info);
        ck_assert_msg(info[0] == 0 && info[1] == zc + 1, "%s getrf n=%lld: info %d %d, want 0 %lld", e.name,
                      (long long)n, info[0], info[1], (long long)(zc + 1));
        cd *lu = down(a);
        int32_t *piv = malloc(sizeof(int32_t) * (size_t)(b * n)), *ref = malloc(sizeof(int32_t) * (size_t)n);
        ND_OK_OR_FAIL(nd_copy_to_host(piv, ip, sizeof(int32_t) * (size_t)(b * n)));
        for (int64_t i = 0; i < b; i++) {
            char what[64];
            snprintf(what, sizeof what, "blocked getrf n=%lld [%lld]", (long long)n, (long long)i);
            check_lu(&e, a0 + i * n * n, lu + i * n * n, piv + i * n, n, what);
            if (e.dev.type == ND_DEVICE_CPU && !e.f32) {
                lapack_getrf(&e, a0 + i * n * n, (int)n, ref);
                for (int64_t k = 0; k < n; k++)
                    CHECK(ref[k] == piv[i * n + k], "%s %s: ipiv[%lld] = %d, LAPACK %d", e.name, what, (long long)k,
                          piv[i * n + k], ref[k]);
            }
        }
        free(a0), free(lu), free(piv), free(ref);
        nd_release(a), nd_release(ip);
        gesv_case(&e, 2, n, 3, 1); /* matrix 1 singular (a zero column 1: the first panel) */
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* POTRF                                                               */
/* ------------------------------------------------------------------ */
/* Hermitian positive definite M M^H + n I in a (n x n), lower and upper both set */
static void make_hpd(const env *e, cd *a, int64_t n)
{
    cd *m = malloc(sizeof(cd) * (size_t)(n * n));
    fill(e, m, n * n);
    for (int64_t r = 0; r < n; r++)
        for (int64_t c = 0; c <= r; c++) {
            cd acc = r == c ? (double)n : 0;
            for (int64_t q = 0; q < n; q++) acc += AT(m, r, q, n) * conj(AT(m, c, q, n));
            acc = rnd_to(e, acc);
            if (r == c) acc = creal(acc);
            AT(a, r, c, n) = acc;
            AT(a, c, r, n) = conj(acc);
        }
    free(m);
}

START_TEST(la_potrf)
{
    env e = env_of(_i);
    for (int si = 0; si < NSIZES; si++) {
        int64_t n = SIZES[si], b = 3;
        cd *a0 = malloc(sizeof(cd) * (size_t)(b * n * n)), *in = malloc(sizeof(cd) * (size_t)(b * n * n));
        for (int64_t i = 0; i < b; i++) make_hpd(&e, a0 + i * n * n, n);
        memcpy(in, a0, sizeof(cd) * (size_t)(b * n * n));
        for (int64_t i = 0; i < b; i++) /* the upper triangle is never read */
            for (int64_t c = 1; c < n; c++)
                for (int64_t r = 0; r < c; r++) AT(in + i * n * n, r, c, n) = NAN;
        if (n >= 3) { /* matrix 1: the leading minor of order 3 is not positive definite */
            cd *m1 = a0 + n * n, *i1 = in + n * n;
            for (int64_t c = 0; c < n; c++)
                for (int64_t r = c; r < n; r++) AT(i1, r, c, n) = AT(m1, r, c, n) = (r == c ? 2.0 : 0.0) + (r != c ? 0.05 * (r + c) / (double)n : 0);
            AT(i1, 2, 2, n) = -1;
            for (int64_t c = 0; c < n; c++)
                for (int64_t r = 0; r < c; r++) AT(m1, r, c, n) = conj(AT(m1, c, r, n));
        }
        nd_array *a = up(&e, e.t, in, b, n, n);
        int32_t info[3];
        nd_la_call c = mk_call(ND_LA_POTRF, b, n, n, info);
        c.a = a;
        run_la(&e, &c);
        cd *l = down(a);
        for (int64_t i = 0; i < b; i++) {
            if (i == 1 && n >= 3) {
                CHECK(info[i] == 3, "%s potrf n=%lld: non PD matrix: info %d, want 3", e.name, (long long)n, info[i]);
                continue;
            }
            CHECK(info[i] == 0, "%s potrf n=%lld [%lld]: info %d", e.name, (long long)n, (long long)i, info[i]);
            const cd *li = l + i * n * n, *ai = a0 + i * n * n;
            double s = 0;
            for (int64_t c2 = 0; c2 < n; c2++)
                for (int64_t r = 0; r < n; r++) {
                    if (r < c2)
                        CHECK(AT(li, r, c2, n) == 0, "%s potrf n=%lld: upper (%lld,%lld) = %g not zeroed", e.name,
                              (long long)n, (long long)r, (long long)c2, cabs(AT(li, r, c2, n)));
                    cd acc = 0;
                    for (int64_t q = 0; q <= (r < c2 ? r : c2); q++) acc += AT(li, r, q, n) * conj(AT(li, c2, q, n));
                    cd d = acc - AT(ai, r, c2, n);
                    s += creal(d * conj(d));
                }
            CHECK(sqrt(s) <= tol(&e, n, fro(ai, n * n)), "%s potrf n=%lld [%lld]: ||L L^H - A|| = %g", e.name,
                  (long long)n, (long long)i, sqrt(s));
        }
        free(a0), free(in), free(l);
        nd_release(a);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* GEQRF + ORGQR                                                       */
/* ------------------------------------------------------------------ */
static const int64_t SHAPES[][2] = {{1, 1}, {3, 2}, {2, 3}, {5, 5}, {17, 5}, {5, 17}, {64, 64}, {40, 33}};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

START_TEST(la_qr)
{
    env e = env_of(_i);
    for (int si = 0; si < NSHAPES; si++)
        for (int complete = 0; complete < 2; complete++) {
            const int64_t m = SHAPES[si][0], n = SHAPES[si][1], k = m < n ? m : n, b = 2;
            const int64_t nq = complete ? m : k;
            cd *a0 = malloc(sizeof(cd) * (size_t)(b * m * n));
            fill(&e, a0, b * m * n);
            nd_array *a = up(&e, e.t, a0, b, n, m), *tau = up(&e, e.t, NULL, b, k, 0);
            int32_t info[2];
            nd_la_call c = mk_call(ND_LA_GEQRF, b, m, n, info);
            c.a = a, c.tau = tau;
            run_la(&e, &c);
            cd *qr = down(a);
            /* Q's input: the first k columns of the reflectors, the rest NaN */
            cd *qin = malloc(sizeof(cd) * (size_t)(b * m * nq));
            for (int64_t i = 0; i < b * m * nq; i++) qin[i] = NAN;
            for (int64_t i = 0; i < b; i++) memcpy(qin + i * m * nq, qr + i * m * n, sizeof(cd) * (size_t)(m * k));
            nd_array *q = up(&e, e.t, qin, b, nq, m);
            c = mk_call(ND_LA_ORGQR, b, m, nq, info);
            c.a = q, c.tau = tau, c.k = k;
            run_la(&e, &c);
            cd *qv = down(q);
            for (int64_t i = 0; i < b; i++) {
                const cd *qi = qv + i * m * nq, *ri = qr + i * m * n, *ai = a0 + i * m * n;
                cd *r = calloc((size_t)(k * n), sizeof(cd));
                for (int64_t cc = 0; cc < n; cc++)
                    for (int64_t rr = 0; rr <= cc && rr < k; rr++) AT(r, rr, cc, k) = AT(ri, rr, cc, m);
                double res = resid_mul(qi, r, ai, m, k, n), orth = orth_cols(qi, m, nq);
                CHECK(res <= tol(&e, m + n, fro(ai, m * n)), "%s qr %lldx%lld [%lld]: ||Q R - A|| = %g", e.name,
                      (long long)m, (long long)n, (long long)i, res);
                CHECK(orth <= tol(&e, m + n, sqrt((double)nq)), "%s qr %lldx%lld nq=%lld: ||Q^H Q - I|| = %g", e.name,
                      (long long)m, (long long)n, (long long)nq, orth);
                free(r);
            }
            free(a0), free(qr), free(qin), free(qv);
            nd_release(a), nd_release(tau), nd_release(q);
        }
}
END_TEST

/* ------------------------------------------------------------------ */
/* GESVD                                                               */
/* ------------------------------------------------------------------ */
START_TEST(la_gesvd)
{
    env e = env_of(_i);
    for (int si = 0; si < NSHAPES; si++) {
        const int64_t m = SHAPES[si][0], n = SHAPES[si][1], k = m < n ? m : n, b = 2;
        cd *a0 = malloc(sizeof(cd) * (size_t)(b * m * n));
        fill(&e, a0, b * m * n);
        double *wref = NULL;
        const int jobs[3] = {ND_LA_JOB_S, ND_LA_JOB_A, ND_LA_JOB_N};
        for (int ji = 0; ji < 3; ji++) {
            const int job = jobs[ji];
            const int64_t uc = job == ND_LA_JOB_A ? m : k, vr = job == ND_LA_JOB_A ? n : k;
            nd_array *a = up(&e, e.t, a0, b, n, m), *w = up(&e, nd__la_real(e.t), NULL, b, k, 0);
            nd_array *u = job == ND_LA_JOB_N ? NULL : up(&e, e.t, NULL, b, uc, m);
            nd_array *vt = job == ND_LA_JOB_N ? NULL : up(&e, e.t, NULL, b, n, vr);
            int32_t info[2];
            nd_la_call c = mk_call(ND_LA_GESVD, b, m, n, info);
            c.a = a, c.w = w, c.u = u, c.vt = vt, c.job = job;
            run_la(&e, &c);
            cd *wv = down(w), *uv = u ? down(u) : NULL, *vv = vt ? down(vt) : NULL;
            for (int64_t i = 0; i < b; i++) {
                const cd *ai = a0 + i * m * n;
                const double an = fro(ai, m * n);
                CHECK(info[i] == 0, "%s gesvd %lldx%lld job %d: info %d", e.name, (long long)m, (long long)n, job,
                      info[i]);
                for (int64_t q = 0; q < k; q++) {
                    CHECK(creal(wv[i * k + q]) >= 0 && (q == 0 || creal(wv[i * k + q]) <= creal(wv[i * k + q - 1])),
                          "%s gesvd: s not descending / negative at %lld", e.name, (long long)q);
                    if (wref)
                        CHECK(fabs(creal(wv[i * k + q]) - wref[i * k + q]) <= tol(&e, m + n, an),
                              "%s gesvd job N: s[%lld] = %.9g, job S %.9g", e.name, (long long)q,
                              creal(wv[i * k + q]), wref[i * k + q]);
                }
                if (job == ND_LA_JOB_N) continue;
                const cd *ui = uv + i * m * uc, *vi = vv + i * vr * n;
                /* U[:, :k] diag(s) Vt[:k, :] */
                cd *us = malloc(sizeof(cd) * (size_t)(m * k)), *v = malloc(sizeof(cd) * (size_t)(k * n));
                for (int64_t q = 0; q < k; q++)
                    for (int64_t r = 0; r < m; r++) AT(us, r, q, m) = AT(ui, r, q, m) * creal(wv[i * k + q]);
                for (int64_t cc = 0; cc < n; cc++)
                    for (int64_t q = 0; q < k; q++) AT(v, q, cc, k) = AT(vi, q, cc, vr);
                double res = resid_mul(us, v, ai, m, k, n);
                CHECK(res <= tol(&e, m + n, an), "%s gesvd %lldx%lld job %d [%lld]: ||U S Vt - A|| = %g", e.name,
                      (long long)m, (long long)n, job, (long long)i, res);
                double ou = orth_cols(ui, m, uc), ov = orth_rows(vi, vr, n);
                CHECK(ou <= tol(&e, m + n, sqrt((double)m)) && ov <= tol(&e, m + n, sqrt((double)n)),
                      "%s gesvd %lldx%lld job %d: orthonormality U %g Vt %g", e.name, (long long)m, (long long)n, job,
                      ou, ov);
                free(us), free(v);
            }
            if (job == ND_LA_JOB_S) {
                wref = malloc(sizeof(double) * (size_t)(b * k));
                for (int64_t q = 0; q < b * k; q++) wref[q] = creal(wv[q]);
            }
            free(wv), free(uv), free(vv);
            nd_release(a), nd_release(w), nd_release(u), nd_release(vt);
        }
        free(wref), free(a0);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* SYEVD                                                               */
/* ------------------------------------------------------------------ */
START_TEST(la_syevd)
{
    env e = env_of(_i);
    for (int si = 0; si < NSIZES; si++)
        for (int lower = 0; lower < 2; lower++) {
            const int64_t n = SIZES[si], b = 2;
            cd *a0 = malloc(sizeof(cd) * (size_t)(b * n * n)), *in = malloc(sizeof(cd) * (size_t)(b * n * n));
            fill(&e, a0, b * n * n);
            for (int64_t i = 0; i < b; i++) { /* Hermitian */
                cd *ai = a0 + i * n * n;
                for (int64_t c = 0; c < n; c++) {
                    AT(ai, c, c, n) = creal(AT(ai, c, c, n));
                    for (int64_t r = c + 1; r < n; r++) AT(ai, c, r, n) = conj(AT(ai, r, c, n));
                }
            }
            memcpy(in, a0, sizeof(cd) * (size_t)(b * n * n));
            for (int64_t i = 0; i < b; i++) /* the triangle not read: NaN */
                for (int64_t c = 0; c < n; c++)
                    for (int64_t r = 0; r < n; r++)
                        if (lower ? r < c : r > c) AT(in + i * n * n, r, c, n) = NAN;
            double *wref = malloc(sizeof(double) * (size_t)(b * n));
            for (int jv = 1; jv >= 0; jv--) {
                nd_array *a = up(&e, e.t, in, b, n, n), *w = up(&e, nd__la_real(e.t), NULL, b, n, 0);
                int32_t info[2];
                nd_la_call c = mk_call(ND_LA_SYEVD, b, n, n, info);
                c.a = a, c.w = w, c.job = jv ? ND_LA_JOB_V : ND_LA_JOB_N, c.lower = lower;
                run_la(&e, &c);
                cd *wv = down(w), *vv = down(a);
                for (int64_t i = 0; i < b; i++) {
                    const cd *ai = a0 + i * n * n, *vi = vv + i * n * n;
                    const double an = fro(ai, n * n);
                    CHECK(info[i] == 0, "%s syevd n=%lld: info %d", e.name, (long long)n, info[i]);
                    for (int64_t q = 0; q < n; q++) {
                        double wq = creal(wv[i * n + q]);
                        CHECK(q == 0 || wq >= creal(wv[i * n + q - 1]), "%s syevd: w not ascending", e.name);
                        if (jv) wref[i * n + q] = wq;
                        else
                            CHECK(fabs(wq - wref[i * n + q]) <= tol(&e, n, an),
                                  "%s syevd n=%lld job N: w[%lld] = %.9g, job V %.9g", e.name, (long long)n,
                                  (long long)q, wq, wref[i * n + q]);
                    }
                    if (!jv) continue;
                    cd *vw = malloc(sizeof(cd) * (size_t)(n * n));
                    for (int64_t q = 0; q < n; q++)
                        for (int64_t r = 0; r < n; r++) AT(vw, r, q, n) = AT(vi, r, q, n) * creal(wv[i * n + q]);
                    double res = resid_mul(ai, vi, vw, n, n, n), orth = orth_cols(vi, n, n);
                    CHECK(res <= tol(&e, n, an), "%s syevd n=%lld lower=%d [%lld]: ||A V - V W|| = %g", e.name,
                          (long long)n, lower, (long long)i, res);
                    CHECK(orth <= tol(&e, n, sqrt((double)n)), "%s syevd n=%lld: ||V^H V - I|| = %g", e.name,
                          (long long)n, orth);
                    free(vw);
                }
                free(wv), free(vv);
                nd_release(a), nd_release(w);
            }
            free(a0), free(in), free(wref);
        }
}
END_TEST

/* ------------------------------------------------------------------ */
/* GEEV                                                                */
/* ------------------------------------------------------------------ */
START_TEST(la_geev)
{
    env e = env_of(_i);
    const nd_dtype ct = nd__la_cpx(e.t);
    for (int si = 0; si < NSIZES; si++) {
        const int64_t n = SIZES[si], b = 2;
        cd *a0 = malloc(sizeof(cd) * (size_t)(b * n * n));
        fill(&e, a0, b * n * n);
        cd *wref = malloc(sizeof(cd) * (size_t)(b * n));
        int npairs = 0;
        for (int jv = 1; jv >= 0; jv--) {
            nd_array *a = up(&e, e.t, a0, b, n, n), *w = up(&e, ct, NULL, b, n, 0);
            nd_array *u = jv ? up(&e, ct, NULL, b, n, n) : NULL;
            int32_t info[2];
            nd_la_call c = mk_call(ND_LA_GEEV, b, n, n, info);
            c.a = a, c.w = w, c.u = u, c.job = jv ? ND_LA_JOB_V : ND_LA_JOB_N;
            run_la(&e, &c);
            cd *wv = down(w), *uv = u ? down(u) : NULL;
            for (int64_t i = 0; i < b; i++) {
                const cd *ai = a0 + i * n * n;
                const double an = fro(ai, n * n);
                CHECK(info[i] == 0, "%s geev n=%lld: info %d", e.name, (long long)n, info[i]);
                for (int64_t q = 0; q < n; q++) {
                    cd lq = wv[i * n + q];
                    if (!e.cpx && cimag(lq) < 0) /* the second of a pair */
                        CHECK(q > 0 && wv[i * n + q - 1] == conj(lq), "%s geev n=%lld: eigenvalue %lld (%g%+gi) "
                              "does not follow its conjugate", e.name, (long long)n, (long long)q, creal(lq), cimag(lq));
                    if (!e.cpx && cimag(lq) > 0) { /* conjugate pairs, positive first */
                        CHECK(q + 1 < n && wv[i * n + q + 1] == conj(lq),
                              "%s geev n=%lld: eigenvalue %lld (%g%+gi) not a conjugate pair led by +", e.name,
                              (long long)n, (long long)q, creal(lq), cimag(lq));
                        if (jv) npairs++;
                    }
                    if (jv) {
                        wref[i * n + q] = lq;
                    } else { /* job N: the same spectrum (order may differ) */
                        double best = INFINITY;
                        for (int64_t p = 0; p < n; p++) best = fmin(best, cabs(lq - wref[i * n + p]));
                        CHECK(best <= tol(&e, n, an) * 10, "%s geev n=%lld job N: eigenvalue %g%+gi not in job V's",
                              e.name, (long long)n, creal(lq), cimag(lq));
                    }
                    if (!jv) continue;
                    const cd *v = uv + i * n * n + q * n;
                    double nv = fro(v, n), vmax = 0;
                    for (int64_t r = 0; r < n; r++) vmax = fmax(vmax, cabs(v[r]));
                    bool real_big = false;
                    for (int64_t r = 0; r < n; r++)
                        if (cabs(v[r]) >= vmax * (1 - 1e-3) && fabs(cimag(v[r])) <= tol(&e, n, 1)) real_big = true;
                    CHECK(fabs(nv - 1) <= tol(&e, n, 1) && real_big,
                          "%s geev n=%lld: vector %lld: norm %.9g, largest component real: %d", e.name, (long long)n,
                          (long long)q, nv, real_big);
                    double s = 0;
                    for (int64_t r = 0; r < n; r++) {
                        cd acc = 0;
                        for (int64_t p = 0; p < n; p++) acc += AT(ai, r, p, n) * v[p];
                        cd d = acc - lq * v[r];
                        s += creal(d * conj(d));
                    }
                    CHECK(sqrt(s) <= tol(&e, n, an), "%s geev n=%lld [%lld]: ||A v - l v|| = %g for l = %g%+gi",
                          e.name, (long long)n, (long long)i, sqrt(s), creal(lq), cimag(lq));
                    if (!e.cpx && cimag(lq) > 0) /* the pair's vectors are conjugate */
                        for (int64_t r = 0; r < n; r++)
                            CHECK(v[n + r] == conj(v[r]), "%s geev: vectors of a pair not conjugate", e.name);
                }
            }
            free(wv), free(uv);
            nd_release(a), nd_release(w), nd_release(u);
        }
        if (!e.cpx && n >= 5)
            ck_assert_msg(npairs > 0, "%s geev n=%lld: no complex pair in random real data", e.name, (long long)n);
        free(a0), free(wref);
    }
}
END_TEST

/* The CPU's small LU path against LAPACK per matrix (same data): factors
 * within a few ulps, pivots equal, on ties too (integer-valued data). */
START_TEST(la_small_vs_lapack)
{
    env e = env_of(_i);
    for (int64_t n = 1; n <= ND_LA_SMALL_N + 1; n++) {
        const int64_t b = 8;
        cd *a0 = malloc(sizeof(cd) * (size_t)(b * n * n));
        fill(&e, a0, b * n * n);
        /* exact ties and exact zeros, where the pivot choice and info are
         * LAPACK's by rule rather than by rounding: matrix 7: column 0 all
         * of modulus 1 (ties: the first wins); matrix 6: twice a
         * permutation (zeros tie); matrix 5: u v^T with u in +-{1, 2, 4}
         * (exact multipliers: U(2, 2) exactly 0, info 2) */
        cd *m7 = a0 + 7 * n * n, *m6 = a0 + 6 * n * n, *m5 = a0 + 5 * n * n;
        for (int64_t r = 0; r < n; r++) AT(m7, r, 0, n) = (r % 3 == 1 ? -1.0 : 1.0) * (e.cpx && r % 2 ? I : 1);
        for (int64_t q = 0; q < n * n; q++) m6[q] = 0;
        for (int64_t r = 0; r < n; r++) AT(m6, r, (r * 5 + 2) % n, n) = (n % 5 == 0) ? 2.0 : (r % 2 ? -2.0 : 2.0);
        if (n % 5 == 0) /* (r * 5 + 2) % n is no permutation: use the reversal */
            for (int64_t r = 0; r < n; r++) {
                for (int64_t c2 = 0; c2 < n; c2++) AT(m6, r, c2, n) = 0;
                AT(m6, r, n - 1 - r, n) = 2.0;
            }
        for (int64_t r = 0; r < n; r++)
            for (int64_t c2 = 0; c2 < n; c2++)
                AT(m5, r, c2, n) = (double)((1 << (r % 3)) * (r % 2 ? -1 : 1)) * (double)((c2 * 7 + 3) % 5 - 2 + (c2 == 0 ? 3 : 0));
        nd_array *a = up(&e, e.t, a0, b, n, n), *ip = up_i32(&e, b, n);
        int32_t info[8];
        nd_la_call c = mk_call(ND_LA_GETRF, b, n, n, info);
        c.a = a, c.ipiv = ip;
        run_la(&e, &c);
        cd *lu = down(a);
        int32_t *piv = malloc(sizeof(int32_t) * (size_t)(b * n));
        ND_OK_OR_FAIL(nd_copy_to_host(piv, ip, sizeof(int32_t) * (size_t)(b * n)));
        for (int64_t i = 0; i < b; i++) {
            int32_t ref[64];
            int nn = (int)n, inf = 0;
            nd_array *t = up(&e, e.t, a0 + i * n * n, 1, n, n);
            cd *rv;
            {
                size_t bytes = (size_t)(n * n) * nd_dtype_size(e.t);
                void *p = malloc(bytes);
                ND_OK_OR_FAIL(nd_copy_to_host(p, t, bytes));
                switch (e.t) {
                case ND_FLOAT32: sgetrf_(&nn, &nn, p, &nn, ref, &inf); break;
                case ND_FLOAT64: dgetrf_(&nn, &nn, p, &nn, ref, &inf); break;
                case ND_COMPLEX64: cgetrf_(&nn, &nn, p, &nn, ref, &inf); break;
                default: zgetrf_(&nn, &nn, p, &nn, ref, &inf); break;
                }
                nd_array *r = NULL;
                ND_OK_OR_FAIL(nd_from_host(&r, p, e.t, 3, (int64_t[]){1, n, n}, nd_cpu()));
                rv = down(r);
                nd_release(r);
                free(p);
            }
            CHECK(inf == info[i], "%s n=%lld [%lld]: info %d, LAPACK %d", e.name, (long long)n, (long long)i, info[i],
                  inf);
            if (i == 5 && n >= 2) CHECK(info[i] == 2, "%s n=%lld: rank-1 matrix: info %d, want 2", e.name, (long long)n, info[i]);
            for (int64_t k = 0; k < n; k++)
                CHECK(ref[k] == piv[i * n + k], "%s n=%lld [%lld]: ipiv[%lld] = %d, LAPACK %d", e.name, (long long)n,
                      (long long)i, (long long)k, piv[i * n + k], ref[k]);
            double d = 0, s = 0;
            for (int64_t q = 0; q < n * n; q++) d = fmax(d, cabs(lu[i * n * n + q] - rv[q])), s = fmax(s, cabs(rv[q]));
            CHECK(d <= 64 * n * e.eps * (s + 1), "%s n=%lld [%lld]: LU differs from LAPACK's by %g", e.name,
                  (long long)n, (long long)i, d);
            free(rv);
            nd_release(t);
        }
        free(a0), free(lu), free(piv);
        nd_release(a), nd_release(ip);
    }
}
END_TEST

Suite *suite_la_slot(void)
{
    Suite *s = suite_create("la_slot");
    TCase *tc = tcase_create("la_slot");
    tcase_set_timeout(tc, 300);
    const int nend = nd_test_gpu_count() > 0 ? 8 : 4;
    tcase_add_loop_test(tc, la_getrf, 0, nend);
    tcase_add_loop_test(tc, la_getrf_singular, 0, nend);
    tcase_add_loop_test(tc, la_getrf_blocked, 0, nend);
    tcase_add_loop_test(tc, la_gesv, 0, nend);
    tcase_add_loop_test(tc, la_potrf, 0, nend);
    tcase_add_loop_test(tc, la_qr, 0, nend);
    tcase_add_loop_test(tc, la_gesvd, 0, nend);
    tcase_add_loop_test(tc, la_syevd, 0, nend);
    tcase_add_loop_test(tc, la_geev, 0, nend);
    tcase_add_loop_test(tc, la_small_vs_lapack, 0, 4); /* the CPU's own kernel */
    suite_add_tcase(s, tc);
    if (nend == 4) printf("la_slot: no CUDA device: the cuda:0 cases are SKIPPED\n");
    return s;
}
