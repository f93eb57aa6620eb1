/* The small-matrix kernels (src/cpu/matmul_small.c) of every CPU path this
 * machine has, called directly, and the small products through nd_matmul
 * (part of suite "linalg", added by suite_linalg; `make test-isa` reruns
 * the suite with ND_CPU_ISA=avx2 and baseline, so nd_matmul's dispatch is
 * covered on each path as well). */
#include <math.h>
#include <stdint.h>

#include "cpu/isa.h"
#include "cpu/matmul_small.h"
#include "linalg_util.h"

#define SHP(...) ((const int64_t[]){__VA_ARGS__})

/* A quiet NaN with a payload: the poison of every byte the kernel must
 * not touch (outputs outside M x N, operand padding it must not read). */
static void poison(void *p, size_t n, bool f64)
{
    for (size_t i = 0; i < n; i++) {
        if (f64) {
            uint64_t u = UINT64_C(0x7ff80000dead0000) | i;
            memcpy((char *)p + 8 * i, &u, 8);
        } else {
            uint32_t u = 0x7fc0de00u | (uint32_t)(i & 0xff);
            memcpy((char *)p + 4 * i, &u, 4);
        }
    }
}

static double ld(const void *p, int64_t i, bool f64)
{
    return f64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

typedef struct {
    int64_t M, N, K;
    bool f64, at; /* at: A is a transposed view (unit row stride) */
} small_case;

/* C = A @ B with kernel fn on padded, NaN-poisoned buffers; returns the C
 * buffer (M * crs elements, caller frees). Every element of C is checked
 * against the double-precision product with the bound of a K-term FMA
 * chain, (K + 1) u sum |a b| (u = 2^-24 / 2^-53); every padding element
 * must still hold its poison. */
static void *run_small(nd_small_mm_fn fn, const small_case *c, const char *what)
{
    const int64_t M = c->M, N = c->N, K = c->K;
    const bool f64 = c->f64;
    const size_t es = f64 ? 8 : 4;
    /* A: M x K, row-major with 3 padding columns, or the transpose of a
     * K x M row-major matrix with 2 padding columns */
    int64_t ars = c->at ? 1 : K + 3, acs = c->at ? M + 2 : 1;
    int64_t alen = c->at ? (K - 1) * acs + M : (M - 1) * ars + K;
    int64_t brs = N + 5, blen = (K - 1) * brs + N; /* exact size: no over-read */
    int64_t crs = N + 7, clen = M * crs;
    void *A = malloc((size_t)alen * es), *B = malloc((size_t)blen * es), *C = malloc((size_t)clen * es);
    double *va = malloc((size_t)(M * K) * sizeof(double)), *vb = malloc((size_t)(K * N) * sizeof(double));
    lu_fill(va, M * K, f64 ? ND_FLOAT64 : ND_FLOAT32, (uint32_t)(M * 131 + N * 17 + K));
    lu_fill(vb, K * N, f64 ? ND_FLOAT64 : ND_FLOAT32, (uint32_t)(M + N * 7 + K * 29));
    poison(A, (size_t)alen, f64);
    poison(B, (size_t)blen, f64);
    poison(C, (size_t)clen, f64);
    void *C0 = malloc((size_t)clen * es);
    memcpy(C0, C, (size_t)clen * es);
    for (int64_t i = 0; i < M; i++)
        for (int64_t k = 0; k < K; k++) {
            int64_t o = i * ars + k * acs;
            if (f64) ((double *)A)[o] = va[i * K + k];
            else ((float *)A)[o] = (float)va[i * K + k];
        }
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++) {
            if (f64) ((double *)B)[k * brs + j] = vb[k * N + j];
            else ((float *)B)[k * brs + j] = (float)vb[k * N + j];
        }
    fn(M, N, K, A, ars, acs, B, brs, C, crs);
    const double u = f64 ? 0x1p-53 : 0x1p-24;
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < N; j++) {
            double s = 0, sabs = 0;
            for (int64_t k = 0; k < K; k++) {
                double x = ld(A, i * ars + k * acs, f64), y = ld(B, k * brs + j, f64);
                s += x * y, sabs += fabs(x * y);
            }
            double got = ld(C, i * crs + j, f64);
            ck_assert_msg(fabs(got - s) <= (double)(K + 1) * u * sabs, "%s %s %lldx%lldx%lld%s [%lld,%lld]: got %.17g want %.17g",
                          what, f64 ? "float64" : "float32", (long long)M, (long long)N, (long long)K,
                          c->at ? " (A transposed)" : "", (long long)i, (long long)j, got, s);
        }
        ck_assert_msg(memcmp((char *)C + (size_t)(i * crs + N) * es, (char *)C0 + (size_t)(i * crs + N) * es,
                             (size_t)(crs - N) * es) == 0,
                      "%s %lldx%lldx%lld: wrote past column N in row %lld", what, (long long)M, (long long)N,
                      (long long)K, (long long)i);
    }
    free(A), free(B), free(C0), free(va), free(vb);
    return C;
}

/* Sizes 1..33 in M and N (every ragged edge of the 8-row / 4-row blocks
 * and of the 8/16-lane vectors, and the 2-vector panels), K cycling over
 * 1, 2, 16, 17, 33; some up to ND_SMALL_DIM and some medium ones up to
 * ND_MEDIUM_DIM (the AVX-512 path's range; the AVX2 kernel takes them
 * too, so both are compared there as well). The kernels of all paths
 * compute each element as the same k-ordered FMA chain: their results
 * must be bitwise equal. */
START_TEST(test_small_kernels_every_path)
{
    static const int64_t Ks[] = {1, 2, 16, 17, 33};
    static const int64_t big[][3] = {{64, 64, 8},    {64, 8, 64},   {8, 64, 64},     {32, 32, 32},  {40, 48, 17},
                                     {1, 64, 64},    {65, 65, 65},  {128, 128, 128}, {127, 65, 128}, {65, 127, 127},
                                     {128, 1, 128},  {1, 128, 128}, {7, 128, 128},   {128, 63, 128}};
    enum { NBIG = sizeof big / sizeof big[0] };
    nd_cpu_isa top = nd__cpu_isa_detected();
    int npaths = 0;
    for (int f = 0; f < 2; f++)
        for (int at = 0; at < 2; at++)
            for (int64_t idx = 0; idx < 33 * 33 + NBIG; idx++) {
                small_case c = {.f64 = f == 1, .at = at == 1};
                if (idx < 33 * 33) c.M = idx / 33 + 1, c.N = idx % 33 + 1, c.K = Ks[(c.M * 7 + c.N) % 5];
                else c.M = big[idx - 33 * 33][0], c.N = big[idx - 33 * 33][1], c.K = big[idx - 33 * 33][2];
                void *first = NULL;
                npaths = 0;
                for (int isa = ND_ISA_BASELINE; isa <= (int)top; isa++) {
                    nd_small_mm_fn fn = nd__small_mm_kernel((nd_cpu_isa)isa, c.f64);
                    if (!fn) continue;
                    npaths++;
                    void *C = run_small(fn, &c, nd__cpu_isa_name((nd_cpu_isa)isa));
                    if (!first) {
                        first = C;
                        continue;
                    }
                    size_t bytes = (size_t)(c.M * (c.N + 7)) * (c.f64 ? 8 : 4);
                    ck_assert_msg(memcmp(first, C, bytes) == 0, "%s %lldx%lldx%lld: path %s differs from the lower one",
                                  c.f64 ? "float64" : "float32", (long long)c.M, (long long)c.N, (long long)c.K,
                                  nd__cpu_isa_name((nd_cpu_isa)isa));
                    free(C);
                }
                free(first);
            }
#if ND_ISA_X86
    /* an x86 CPU without AVX2 runs no kernel: nothing to check there */
    if (top >= ND_ISA_AVX2) ck_assert_int_eq(npaths, top >= ND_ISA_AVX512 ? 2 : 1);
#else
    ck_assert_int_eq(npaths, 0);
#endif
    ck_assert_ptr_null(nd__small_mm_kernel(ND_ISA_BASELINE, false));
}
END_TEST

/* nd_matmul on the small path (whichever this process runs): M, N, K of 0
 * and 1 into NaN-poisoned outs (K = 0 writes zeros), batch broadcasting
 * of both operands, float64 and float32. */
START_TEST(test_small_matmul_edges)
{
    static const int64_t dims[][3] = {{0, 3, 4}, {3, 0, 4}, {3, 4, 0}, {1, 1, 1}, {1, 5, 1}, {5, 1, 1},
                                      {1, 1, 7}, {16, 16, 1}, {1, 16, 16}, {16, 1, 16}, {0, 0, 0}};
    const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64};
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++) {
            nd_dtype t = ts[ti];
            int64_t M = dims[di][0], N = dims[di][1], K = dims[di][2];
            uint32_t seed = (uint32_t)(300 + 10 * di + ti);
            /* a (3, 1, M, K) @ b (4, K, N) -> (3, 4, M, N) */
            nd_array *a = lu_rand(t, 4, SHP(3, 1, M, K), seed), *b = lu_rand(t, 3, SHP(4, K, N), seed + 1);
            nd_array *o = NULL, *keep;
            ND_OK_OR_FAIL(nd_full(&o, t, 4, SHP(3, 4, M, N), nd_scalar_float(NAN), nd_cpu()));
            keep = o;
            ND_OK_OR_FAIL(nd_matmul(&o, a, b));
            ck_assert_ptr_eq(o, keep);
            lu_verify(a, b, o);
            nd_release(a), nd_release(b), nd_release(o);
        }
    /* a batch-broadcast B (stride 0 over 50 matrices) and a transposed A */
    for (size_t ti = 0; ti < 2; ti++) {
        nd_dtype t = ts[ti];
        nd_array *a0 = lu_rand(t, 3, SHP(50, 17, 13), 11), *a = NULL, *b0 = lu_rand(t, 2, SHP(17, 19), 12), *b = NULL;
        ND_OK_OR_FAIL(nd_transpose(&a, a0, (const int[]){0, 2, 1})); /* (50, 13, 17) */
        ND_OK_OR_FAIL(nd_broadcast_to(&b, b0, 3, SHP(50, 17, 19)));
        nd_array *o = NULL;
        ND_OK_OR_FAIL(nd_full(&o, t, 3, SHP(50, 13, 19), nd_scalar_float(NAN), nd_cpu()));
        ND_OK_OR_FAIL(nd_matmul(&o, a, b));
        lu_verify(a, b, o);
        nd_array *all[] = {a0, a, b0, b, o};
        for (size_t k = 0; k < 5; k++) nd_release(all[k]);
    }
}
END_TEST

/* An (nb, M, K) or (nb, K, N) operand in one of four layouts: contiguous;
 * the transpose of a contiguous (nb, cols, rows) array (unit row stride);
 * every other matrix of a (2 nb, rows, cols) array (batch stride twice the
 * matrix); the [:, :, ::2] columns of a (nb, rows, 2 cols) array. */
static nd_array *medium_operand(nd_dtype t, int64_t nb, int64_t rows, int64_t cols, int layout, uint32_t seed)
{
    nd_array *base = NULL, *v = NULL;
    switch (layout) {
    case 0: return lu_rand(t, 3, SHP(nb, rows, cols), seed);
    case 1:
        base = lu_rand(t, 3, SHP(nb, cols, rows), seed);
        ND_OK_OR_FAIL(nd_transpose(&v, base, (const int[]){0, 2, 1}));
        break;
    case 2:
        base = lu_rand(t, 3, SHP(2 * nb, rows, cols), seed);
        ND_OK_OR_FAIL(nd_slice(&v, base, 1, (const nd_range[]){{0, ND_NONE, 2}}));
        break;
    default:
        base = lu_rand(t, 3, SHP(nb, rows, 2 * cols), seed);
        ND_OK_OR_FAIL(nd_slice(&v, base, 3, (const nd_range[]){ND_ALL, ND_ALL, {0, ND_NONE, 2}}));
        break;
    }
    nd_release(base);
    return v;
}

/* Medium products (the AVX-512 path's own kernel where B and C have unit
 * column strides, OpenBLAS elsewhere and on the other paths; `make
 * test-isa` reruns this under avx2 and baseline): odd sizes on both sides
 * of every bound (64^3, dimensions 128/129, batches of fewer than two
 * matrices per thread), each operand in each layout,
 * into a NaN-poisoned out, against the double-precision reference, on the
 * library's threads and on one (the own kernel's bits the same on both),
 * and into an out with a non-unit column stride (the BLAS path; once per
 * size). */
START_TEST(test_medium_matmul)
{
    static const int64_t dims[][4] = {/* nb, M, K, N */
                                      {5, 65, 65, 65},    {4, 128, 128, 128}, {5, 127, 65, 128}, {4, 65, 128, 127},
                                      {4, 100, 100, 100}, {4, 64, 65, 64},    {4, 64, 64, 64},   {2, 129, 128, 128},
                                      {4, 128, 17, 128},  {5, 128, 128, 1},   {4, 1, 128, 128},  {2, 7, 128, 128},
                                      {1, 128, 128, 128}, {3, 65, 100, 65},   {1, 97, 128, 33}};
    const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64};
    const int nth = nd_get_num_threads();
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++)
            for (int la = 0; la < 4; la++) {
                nd_dtype t = ts[ti];
                const int64_t nb = dims[di][0], M = dims[di][1], K = dims[di][2], N = dims[di][3];
                const int lb = (la + (int)di) % 4; /* every pair of layouts over the sizes */
                uint32_t seed = (uint32_t)(700 + 40 * di + 10 * ti + la);
                nd_array *a = medium_operand(t, nb, M, K, la, seed), *b = medium_operand(t, nb, K, N, lb, seed + 1);
                nd_array *o = NULL, *keep;
                ND_OK_OR_FAIL(nd_full(&o, t, 3, SHP(nb, M, N), nd_scalar_float(NAN), nd_cpu()));
                keep = o;
                ND_OK_OR_FAIL(nd_matmul(&o, a, b));
                ck_assert_ptr_eq(o, keep);
                lu_verify(a, b, o);
                /* the own kernel (not OpenBLAS, whose threaded calls may
                 * round differently): the same bits on one thread */
                const bool own = nd__cpu_isa() >= ND_ISA_AVX512 && (lb % 2 == 0 || N == 1) && M <= ND_MEDIUM_DIM &&
                                 N <= ND_MEDIUM_DIM && K <= ND_MEDIUM_DIM &&
                                 (double)M * (double)N * (double)K > ND_MEDIUM_MNK_MIN && (nb >= 2 * nth || nth == 1);
                nd_array *o1 = NULL;
                ND_OK_OR_FAIL(nd_set_num_threads(1));
                nd_status st = nd_matmul(&o1, a, b);
                ND_OK_OR_FAIL(nd_set_num_threads(nth));
                ND_OK_OR_FAIL(st);
                if (!own) lu_verify(a, b, o1);
                char *x = lu_bytes(o), *y = lu_bytes(o1);
                ck_assert_msg(!own || memcmp(x, y, nd_nbytes(o)) == 0,
                              "%s %lldx%lldx%lldx%lld layouts %d/%d: 1 thread differs", nd_dtype_name(t), (long long)nb,
                              (long long)M, (long long)K, (long long)N, la, lb);
                free(x), free(y);
                /* out with a non-unit column stride (the transpose of
                 * (nb, N, M)), once per size */
                nd_array *ob = NULL, *ot = NULL;
                if (la == 0) {
                    ND_OK_OR_FAIL(nd_full(&ob, t, 3, SHP(nb, N, M), nd_scalar_float(NAN), nd_cpu()));
                    ND_OK_OR_FAIL(nd_transpose(&ot, ob, (const int[]){0, 2, 1}));
                    keep = ot;
                    ND_OK_OR_FAIL(nd_matmul(&ot, a, b));
                    ck_assert_ptr_eq(ot, keep);
                    lu_verify(a, b, ot);
                }
                nd_array *all[] = {a, b, o, o1, ob, ot};
                for (size_t k = 0; k < 6; k++) nd_release(all[k]);
            }
}
END_TEST

void linalg_add_small(Suite *s)
{
    TCase *tc = tcase_create("small");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_small_kernels_every_path);
    tcase_add_test(tc, test_small_matmul_edges);
    tcase_add_test(tc, test_medium_matmul);
    suite_add_tcase(s, tc);
}
