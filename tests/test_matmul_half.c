/* Half-precision matmul: float16/bfloat16 products accumulate in
 * float32, and a float32 out (nd_matmul) or c (nd_gemm) from half operands
 * receives the float32 result itself, never a value rounded to half in
 * between (src/linalg/linalg.c passes the float32 destination to the backend:
 * src/cpu/matmul.c widens the operands and writes float32; the CUDA
 * backend calls cublasGemmEx with a 32F C, tests/emu/cublas_emu.cpp on the
 * emulated device).
 *
 * References in double from the half operands' values. Bounds: with a
 * float32 accumulator |C - ref| <= 2 K eps32 sum_k |a_ik b_kj| (+ the
 * output's rounding, 1 eps_out |ref|, for a half out). A result rounded to
 * bfloat16 on its way to a float32 out would be off by up to 2^-9 |ref|,
 * far beyond that bound for the operands used (a few units, K <= 300), so
 * the float32 bound itself proves the absence of the intermediate
 * rounding; one exact case makes it explicit: (1 + 2^-7)^2 = 1 + 2^-6 +
 * 2^-14 is exact in float32 and 1.015625 in bfloat16. Sizes below and
 * above the small-matrix kernels' threshold (ND_SMALL_DIM), transposed and
 * batched (broadcast) operands, poisoned outs; on nd_cpu() and cuda:0. */
#include "creation_util.h"
#include "harness.h"
#include "test_util.h"

static uint64_t rng_s = 0x7c3a9e1f5b2d4c68ull;
static uint64_t rnd(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return rng_s;
}

/* (rows, cols) of dtype t with values k/8, k in [-24, 24] (exact in every
 * half dtype; products need more bits than a half has) */
static nd_array *mk(nd_device dev, nd_dtype t, int nd, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++) n *= shape[i];
    double *h = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++) h[i] = ((double)(int)(rnd() % 49) - 24) / 8.0 + ((rnd() % 3 == 0) ? 1.0 / 128 : 0);
    nd_array *d = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&d, h, ND_FLOAT64, nd, shape, dev));
    ND_OK_OR_FAIL(nd_astype(&r, d, t));
    nd_release(d);
    free(h);
    return r;
}

static double eps_of(nd_dtype t) { return t == ND_FLOAT16 ? 0x1p-11 : t == ND_BFLOAT16 ? 0x1p-8 : 0x1p-24; }

/* C (M, N) of a (M, K) @ b (K, N) from values av, bv (C order, or b's
 * transposed order when bt), checked against got */
static void check_mm(const char *what, const double *av, const double *bv, const double *got, int64_t M, int64_t N,
                     int64_t K, nd_dtype out)
{
    /* b's columns as rows, so that the reference's inner loop reads both
     * operands in order (the panelled product's K is 45000) */
    double *bt = malloc((size_t)(N * K) * sizeof *bt);
    ck_assert_ptr_nonnull(bt);
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++) bt[j * K + k] = bv[k * N + j];
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            /* four partial sums (a double reference for half products) */
            double r4[4] = {0, 0, 0, 0}, m4[4] = {0, 0, 0, 0};
            const double *ar = av + i * K, *br = bt + j * K;
            int64_t k = 0;
            for (; k + 4 <= K; k += 4)
                for (int l = 0; l < 4; l++) {
                    r4[l] += ar[k + l] * br[k + l];
                    m4[l] += fabs(ar[k + l] * br[k + l]);
                }
            for (; k < K; k++) {
                r4[0] += ar[k] * br[k];
                m4[0] += fabs(ar[k] * br[k]);
            }
            const double ref = (r4[0] + r4[1]) + (r4[2] + r4[3]), mag = (m4[0] + m4[1]) + (m4[2] + m4[3]);
            const double tol = 2 * (double)K * 0x1p-24 * mag + (out == ND_FLOAT32 ? 0 : eps_of(out) * fabs(ref)) + 1e-30;
            ck_assert_msg(fabs(got[i * N + j] - ref) <= tol, "%s: C[%lld, %lld] = %.9g, want %.9g (tol %.3g)", what,
                          (long long)i, (long long)j, got[i * N + j], ref, tol);
        }
    free(bt);
}

static const int64_t SIZES[][3] = {{4, 5, 3}, {7, 16, 9}, {70, 300, 50}, {130, 65, 97}};

static void run_matmul(nd_device dev)
{
    const nd_dtype halves[2] = {ND_FLOAT16, ND_BFLOAT16};
    for (int hi = 0; hi < 2; hi++) {
        const nd_dtype t = halves[hi];
        for (size_t si = 0; si < sizeof SIZES / sizeof *SIZES; si++) {
            const int64_t M = SIZES[si][0], K = SIZES[si][1], N = SIZES[si][2];
            for (int lay = 0; lay < 2; lay++) {
                nd_array *a = NULL, *b = mk(dev, t, 2, (const int64_t[]){K, N});
                if (lay == 0) {
                    a = mk(dev, t, 2, (const int64_t[]){M, K});
                } else { /* a transposed view: a.T of a (K, M) array */
                    nd_array *at = mk(dev, t, 2, (const int64_t[]){K, M});
                    ND_OK_OR_FAIL(nd_transpose(&a, at, NULL));
                    nd_release(at);
                }
                double *av = cv_values(a), *bv = cv_values(b);
                for (int od = 0; od < 3; od++) {
                    const nd_dtype out = od == 0 ? ND_FLOAT32 : od == 1 ? t : ND_FLOAT64;
                    nd_array *c = NULL;
                    ND_OK_OR_FAIL(nd_full(&c, out, 2, (const int64_t[]){M, N}, nd_scalar_float(NAN), dev));
                    ND_OK_OR_FAIL(nd_matmul(&c, a, b));
                    double *g = cv_values(c);
                    char what[128];
                    snprintf(what, sizeof what, "%s matmul %lldx%lldx%lld %s into %s on %s", nd_dtype_name(t),
                             (long long)M, (long long)K, (long long)N, lay ? "a transposed" : "contiguous",
                             nd_dtype_name(out), dev.type == ND_DEVICE_CPU ? "cpu" : "cuda");
                    /* a float64 out gets the half result, cast once (NumPy: the result dtype is half) */
                    check_mm(what, av, bv, g, M, N, K, out == ND_FLOAT64 ? t : out);
                    free(g);
                    nd_release(c);
                }
                free(av), free(bv);
                nd_release(a), nd_release(b);
            }
        }
        /* batched: (3, M, K) @ (K, N) broadcast, into a float32 out */
        const int64_t M = 20, K = 40, N = 12;
        nd_array *a = mk(dev, t, 3, (const int64_t[]){3, M, K}), *b = mk(dev, t, 2, (const int64_t[]){K, N}), *c = NULL;
        ND_OK_OR_FAIL(nd_full(&c, ND_FLOAT32, 3, (const int64_t[]){3, M, N}, nd_scalar_float(NAN), dev));
        ND_OK_OR_FAIL(nd_matmul(&c, a, b));
        double *av = cv_values(a), *bv = cv_values(b), *g = cv_values(c);
        for (int i = 0; i < 3; i++) check_mm("batched into float32", av + i * M * K, bv, g + i * M * N, M, N, K, ND_FLOAT32);
        free(av), free(bv), free(g);
        nd_release(a), nd_release(b), nd_release(c);
    }
}

/* (1 + 2^-7)^2: exact in float32, 1.015625 once rounded to bfloat16 */
static void run_exact(nd_device dev)
{
    for (int small = 0; small < 2; small++) {
        const int64_t n = small ? 2 : 80; /* the small kernels and BLAS */
        nd_array *a = NULL, *b = NULL, *c = NULL;
        ND_OK_OR_FAIL(nd_zeros(&a, ND_BFLOAT16, 2, (const int64_t[]){n, n}, dev));
        ND_OK_OR_FAIL(nd_zeros(&b, ND_BFLOAT16, 2, (const int64_t[]){n, n}, dev));
        nd_array *a0 = NULL, *b0 = NULL, *v = NULL;
        ND_OK_OR_FAIL(nd_slice(&a0, a, 2, (const nd_range[]){{0, 1, 1}, {0, 1, 1}}));
        ND_OK_OR_FAIL(nd_slice(&b0, b, 2, (const nd_range[]){{0, 1, 1}, {0, 1, 1}}));
        ND_OK_OR_FAIL(nd_full(&v, ND_BFLOAT16, 2, (const int64_t[]){1, 1}, nd_scalar_float(1.0 + 0x1p-7), dev));
        ND_OK_OR_FAIL(nd_copy(&a0, v));
        ND_OK_OR_FAIL(nd_copy(&b0, v));
        ND_OK_OR_FAIL(nd_full(&c, ND_FLOAT32, 2, (const int64_t[]){n, n}, nd_scalar_float(NAN), dev));
        ND_OK_OR_FAIL(nd_matmul(&c, a, b));
        double *g = cv_values(c);
        ck_assert_msg(g[0] == 1.0 + 0x1p-6 + 0x1p-14, "bf16 -> float32 matmul (n %lld): %.17g, want %.17g (rounded to "
                      "bfloat16 on the way?)", (long long)n, g[0], 1.0 + 0x1p-6 + 0x1p-14);
        ck_assert(g[1] == 0.0);
        free(g);
        /* nd_gemm into float32 c: 0.5 * a @ b + 2 * c */
        nd_array *cg = NULL;
        ND_OK_OR_FAIL(nd_full(&cg, ND_FLOAT32, 2, (const int64_t[]){n, n}, nd_scalar_float(0x1p-20), dev));
        ND_OK_OR_FAIL(nd_gemm(&cg, false, false, 0.5, a, b, 2.0));
        g = cv_values(cg);
        ck_assert_msg(g[0] == 0.5 * (1.0 + 0x1p-6 + 0x1p-14) + 0x1p-19, "gemm into float32: %.17g", g[0]);
        ck_assert(g[1] == 0x1p-19);
        free(g);
        /* beta = 0: a NaN in c vanishes (BLAS) */
        ND_OK_OR_FAIL(nd_full(&cg, ND_FLOAT32, 2, (const int64_t[]){n, n}, nd_scalar_float(NAN), dev));
        ND_OK_OR_FAIL(nd_gemm(&cg, true, false, 1.0, a, b, 0.0));
        g = cv_values(cg);
        ck_assert(g[0] == 1.0 + 0x1p-6 + 0x1p-14 && g[1] == 0.0);
        free(g);
        /* a float16 c from bfloat16 operands stays refused (c is updated in place, never cast) */
        nd_array *ch = NULL;
        ND_OK_OR_FAIL(nd_zeros(&ch, ND_FLOAT16, 2, (const int64_t[]){n, n}, dev));
        ND_EXPECT_ERR(nd_gemm(&ch, false, false, 1.0, a, b, 0.0), ND_ERR_DTYPE, "c has dtype float16");
        nd_release(ch), nd_release(cg), nd_release(a0), nd_release(b0), nd_release(v);
        nd_release(a), nd_release(b), nd_release(c);
    }
}

/* nd_gemm float32 c from half a, b, random values, transposes */
static void run_gemm(nd_device dev)
{
    const nd_dtype halves[2] = {ND_FLOAT16, ND_BFLOAT16};
    for (int hi = 0; hi < 2; hi++)
        for (int tr = 0; tr < 4; tr++) {
            const int64_t M = 33, K = 70, N = 21;
            const bool ta = tr & 1, tb = tr & 2;
            nd_array *a = mk(dev, halves[hi], 2, ta ? (const int64_t[]){K, M} : (const int64_t[]){M, K});
            nd_array *b = mk(dev, halves[hi], 2, tb ? (const int64_t[]){N, K} : (const int64_t[]){K, N});
            nd_array *c = mk(dev, ND_FLOAT32, 2, (const int64_t[]){M, N});
            double *a0 = cv_values(a), *b0 = cv_values(b), *c0 = cv_values(c);
            ND_OK_OR_FAIL(nd_gemm(&c, ta, tb, 0.75, a, b, -1.5));
            double *g = cv_values(c);
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    double ref = 0, mag = 0;
                    for (int64_t k = 0; k < K; k++) {
                        const double x = ta ? a0[k * M + i] : a0[i * K + k], y = tb ? b0[j * K + k] : b0[k * N + j];
                        ref += x * y, mag += fabs(x * y);
                    }
                    ref = 0.75 * ref - 1.5 * c0[i * N + j];
                    const double tol = 2 * (double)K * 0x1p-24 * (mag + fabs(c0[i * N + j])) + 1e-30;
                    ck_assert_msg(fabs(g[i * N + j] - ref) <= tol, "gemm %s ta %d tb %d: %.9g vs %.9g",
                                  nd_dtype_name(halves[hi]), ta, tb, g[i * N + j], ref);
                }
            free(a0), free(b0), free(c0), free(g);
            nd_release(a), nd_release(b), nd_release(c);
        }
}

/* A product large enough for the CPU's float32 panels (src/cpu/matmul.c:
 * NB = 8 MiB / (4 K) = 46, raised to 64 columns, MB = 64 rows: 2 x 2
 * panels here, the second ones partial),
 * a transposed a, into float32 and into the half dtype. Left out with
 * ND_TEST_LARGE=0 (valgrind): the double reference takes 4e8 multiply-adds. */
static void run_panels(nd_device dev)
{
    if (!nd_test_large()) {
        fprintf(stderr, "matmul_half: the panelled product SKIPPED (ND_TEST_LARGE=0)\n");
        return;
    }
    const int64_t M = 96, K = 45000, N = 96;
    const nd_dtype halves[2] = {ND_BFLOAT16, ND_FLOAT16};
    for (int hi = 0; hi < 2; hi++) {
        const nd_dtype t = halves[hi];
        nd_array *at = mk(dev, t, 2, (const int64_t[]){K, M}), *a = NULL, *b = mk(dev, t, 2, (const int64_t[]){K, N});
        ND_OK_OR_FAIL(nd_transpose(&a, at, NULL));
        double *av = cv_values(a), *bv = cv_values(b);
        for (int od = 0; od < 2; od++) {
            const nd_dtype out = od ? t : ND_FLOAT32;
            nd_array *c = NULL;
            ND_OK_OR_FAIL(nd_full(&c, out, 2, (const int64_t[]){M, N}, nd_scalar_float(NAN), dev));
            ND_OK_OR_FAIL(nd_matmul(&c, a, b));
            double *g = cv_values(c);
            check_mm(out == ND_FLOAT32 ? "panelled product into float32" : "panelled product into half", av, bv, g, M,
                     N, K, out);
            free(g);
            nd_release(c);
        }
        free(av), free(bv);
        nd_release(a), nd_release(at), nd_release(b);
    }
}

/* The bfloat16 kernels' edges (src/cpu/matmul_bf16.c: 32-row chunks of A,
 * NB-column VNNI blocks of B, K padded to 32, passes of at most 8 MiB of
 * packed A or B): M, N, K at 1 and either side of 32 and of a block, K
 * odd, a transposed and a flipped a (negative strides), a transposed and
 * a column-strided b, a transposed out view; into float32 and bfloat16.
 * The same cases on every device; `make test-isa` runs them again with
 * ND_CPU_BF16=avx512_bf16 and sgemm. The product with more than one pass
 * over A and over B (K = 16000: 8 chunks and 8 blocks per pass) runs on
 * the CPU alone, and not with ND_TEST_LARGE=0. */
static void run_bf16_edges(nd_device dev)
{
    static const int64_t cases[][4] = {
        /* M, K, N, layout: 0 plain, 1 a.T, 2 flipped a, 3 b.T, 4 b[:, ::2], 5 out.T */
        {1, 200, 70, 0}, {33, 31, 65, 1}, {65, 257, 1, 2}, {100, 1, 300, 3},
        {97, 333, 1030, 4}, {31, 96, 33, 5}, {64, 65, 96, 0}, {270, 16000, 260, 1}};
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        const int64_t M = cases[ci][0], K = cases[ci][1], N = cases[ci][2], lay = cases[ci][3];
        if (K > 10000 && (dev.type != ND_DEVICE_CPU || !nd_test_large())) continue;
        nd_array *a = NULL, *b = NULL, *x = NULL;
        if (lay == 1) {
            x = mk(dev, ND_BFLOAT16, 2, (const int64_t[]){K, M});
            ND_OK_OR_FAIL(nd_transpose(&a, x, NULL));
        } else if (lay == 2) {
            x = mk(dev, ND_BFLOAT16, 2, (const int64_t[]){M, K});
            ND_OK_OR_FAIL(nd_flip(&a, x, 2, (const int[]){0, 1}));
        } else {
            a = mk(dev, ND_BFLOAT16, 2, (const int64_t[]){M, K});
        }
        nd_release(x), x = NULL;
        if (lay == 3) {
            x = mk(dev, ND_BFLOAT16, 2, (const int64_t[]){N, K});
            ND_OK_OR_FAIL(nd_transpose(&b, x, NULL));
        } else if (lay == 4) {
            x = mk(dev, ND_BFLOAT16, 2, (const int64_t[]){K, 2 * N});
            ND_OK_OR_FAIL(nd_slice(&b, x, 2, (const nd_range[]){{0, K, 1}, {0, 2 * N, 2}}));
        } else {
            b = mk(dev, ND_BFLOAT16, 2, (const int64_t[]){K, N});
        }
        nd_release(x), x = NULL;
        double *av = cv_values(a), *bv = cv_values(b);
        for (int od = 0; od < 2; od++) {
            const nd_dtype out = od ? ND_BFLOAT16 : ND_FLOAT32;
            nd_array *c = NULL, *ct = NULL;
            if (lay == 5) { /* out is a transposed view of an (N, M) array */
                ND_OK_OR_FAIL(nd_full(&ct, out, 2, (const int64_t[]){N, M}, nd_scalar_float(NAN), dev));
                ND_OK_OR_FAIL(nd_transpose(&c, ct, NULL));
            } else {
                ND_OK_OR_FAIL(nd_full(&c, out, 2, (const int64_t[]){M, N}, nd_scalar_float(NAN), dev));
            }
            ND_OK_OR_FAIL(nd_matmul(&c, a, b));
            double *g = cv_values(c);
            char what[128];
            snprintf(what, sizeof what, "bfloat16 edges %lldx%lldx%lld layout %lld into %s on %s", (long long)M,
                     (long long)K, (long long)N, (long long)lay, nd_dtype_name(out),
                     dev.type == ND_DEVICE_CPU ? "cpu" : "cuda");
            check_mm(what, av, bv, g, M, N, K, out);
            free(g);
            nd_release(c), nd_release(ct);
        }
        free(av), free(bv);
        nd_release(a), nd_release(b);
    }
}

/* A float16 result is the float32 product rounded once to float16, bit
 * for bit as nd_astype rounds it: products chosen to land on float16
 * subnormals, exact halfway ties between two float16 values, beyond the
 * largest float16 (to inf), on signed zeros, and NaN from a NaN operand.
 * (a, b): (M, 1) @ (1, N), so each product is one float32 multiplication
 * of two float16 values, exact in float32. */
static void run_f16_rounding(nd_device dev)
{
    const int64_t M = 8, N = 37; /* N: a vector loop of 8 plus a tail */
    static const float av[8] = {0x1p-14f, -0x1p-20f, 1.0f, 0x1.002p+0f, 300.0f, -0.0f, NAN, 0x1.ffcp-15f};
    float bv[37];
    for (int64_t j = 0; j < N; j++) bv[j] = (float)(j % 7 - 3) * 0x1.0008p+0f * (j % 5 == 0 ? 0x1p-3f : 1.0f);
    bv[11] = 0x1p-11f, bv[12] = 3.0f * 0x1p-12f, bv[13] = 250.0f, bv[14] = -0.0f, bv[15] = 0x1p-10f;
    nd_array *a32 = NULL, *b32 = NULL, *a = NULL, *b = NULL, *c = NULL, *c32 = NULL, *ref = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a32, av, ND_FLOAT32, 2, (const int64_t[]){M, 1}, dev));
    ND_OK_OR_FAIL(nd_from_host(&b32, bv, ND_FLOAT32, 2, (const int64_t[]){1, N}, dev));
    /* the reference multiplies the float16 operands' own values, widened */
    ND_OK_OR_FAIL(nd_astype(&a, a32, ND_FLOAT16));
    ND_OK_OR_FAIL(nd_astype(&b, b32, ND_FLOAT16));
    nd_release(a32), nd_release(b32), a32 = b32 = NULL;
    ND_OK_OR_FAIL(nd_astype(&a32, a, ND_FLOAT32));
    ND_OK_OR_FAIL(nd_astype(&b32, b, ND_FLOAT32));
    ND_OK_OR_FAIL(nd_full(&c, ND_FLOAT16, 2, (const int64_t[]){M, N}, nd_scalar_float(1234.0), dev));
    ND_OK_OR_FAIL(nd_matmul(&c, a, b));
    ND_OK_OR_FAIL(nd_matmul(&c32, a32, b32));
    ND_OK_OR_FAIL(nd_astype(&ref, c32, ND_FLOAT16));
    uint16_t got[8 * 37], want[8 * 37];
    ND_OK_OR_FAIL(nd_copy_to_host(got, c, sizeof got));
    ND_OK_OR_FAIL(nd_copy_to_host(want, ref, sizeof want));
    int subnormal = 0, inf = 0, nan = 0;
    for (int64_t i = 0; i < M * N; i++) {
        ck_assert_msg(got[i] == want[i], "float16 matmul element %lld: 0x%04x, rounding the float32 product gives 0x%04x",
                      (long long)i, got[i], want[i]);
        subnormal += (want[i] & 0x7c00) == 0 && (want[i] & 0x3ff) != 0;
        inf += (want[i] & 0x7fff) == 0x7c00;
        nan += (want[i] & 0x7c00) == 0x7c00 && (want[i] & 0x3ff) != 0;
    }
    ck_assert_msg(subnormal > 0 && inf > 0 && nan > 0, "the cases reach subnormals (%d), inf (%d) and NaN (%d)", subnormal,
                  inf, nan);
    nd_release(a32), nd_release(b32), nd_release(a), nd_release(b), nd_release(c), nd_release(c32), nd_release(ref);
}

static nd_device cuda0(void) { return (nd_device){ND_DEVICE_CUDA, 0}; }
START_TEST(f16_rounding_cpu) { run_f16_rounding(nd_cpu()); }
END_TEST
START_TEST(f16_rounding_cuda) { run_f16_rounding(cuda0()); }
END_TEST
START_TEST(panels_cpu) { run_panels(nd_cpu()); }
END_TEST
START_TEST(panels_cuda) { run_panels(cuda0()); }
END_TEST
START_TEST(matmul_cpu) { run_matmul(nd_cpu()); }
END_TEST
START_TEST(exact_cpu) { run_exact(nd_cpu()); }
END_TEST
START_TEST(gemm_cpu) { run_gemm(nd_cpu()); }
END_TEST
START_TEST(matmul_cuda) { run_matmul(cuda0()); }
END_TEST
START_TEST(exact_cuda) { run_exact(cuda0()); }
END_TEST
START_TEST(gemm_cuda) { run_gemm(cuda0()); }
END_TEST
START_TEST(bf16_edges_cpu) { run_bf16_edges(nd_cpu()); }
END_TEST
START_TEST(bf16_edges_cuda) { run_bf16_edges(cuda0()); }
END_TEST

Suite *suite_matmul_half(void)
{
    Suite *s = suite_create("matmul_half");
    TCase *tc = tcase_create("matmul_half");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, matmul_cpu);
    tcase_add_test(tc, exact_cpu);
    tcase_add_test(tc, gemm_cpu);
    tcase_add_test(tc, panels_cpu);
    tcase_add_test(tc, bf16_edges_cpu);
    tcase_add_test(tc, f16_rounding_cpu);
    if (nd_test_gpu_count() > 0) {
        tcase_add_test(tc, matmul_cuda);
        tcase_add_test(tc, exact_cuda);
        tcase_add_test(tc, gemm_cuda);
        tcase_add_test(tc, panels_cuda);
        tcase_add_test(tc, bf16_edges_cuda);
        tcase_add_test(tc, f16_rounding_cuda);
    } else {
        fprintf(stderr, "matmul_half: the cuda:0 cases SKIPPED (no CUDA device)\n");
    }
    suite_add_tcase(s, tc);
    return s;
}
