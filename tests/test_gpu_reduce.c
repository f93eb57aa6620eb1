/* CUDA reductions against the CPU backend (the reference): every op x 13
 * dtypes x axis sets x layouts (contiguous, transposed, negative steps,
 * broadcast stride 0), odd and large shapes, empty reductions and 0-size
 * results, NaN placements, arg ties, determinism. Outputs are poisoned
 * and followed by sentinels. These tests need a GPU: without one the
 * suite adds none of them (reported as SKIPPED). The CPU-side tests of the
 * kernels' logic (operators, geometry, partition, an emulation of the
 * kernels) are in tests/test_gpu_reduce_emu.c and always run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_reduce_util.h"
#include "test_reduce.h"

const char *const gr_layout_names[GR_NUM_LAYOUTS] = {"contiguous", "transposed", "negative steps", "broadcast"};

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

double gr_value(nd_dtype t, int kind, uint64_t i, unsigned seed)
{
    uint64_t h = mix64(i * 0x2545F4914F6CDD1Dull + seed);
    bool fl = t >= ND_FLOAT16, sig = t >= ND_INT8 && t <= ND_INT64;
    if (t == ND_BOOL) return kind == GR_EQUAL || kind == GR_POS ? 1.0 : (double)((h >> 7) % 3 != 0);
    switch (kind) {
    case GR_EQUAL: return 3.0;
    case GR_POS: return fl ? 0.5 + (double)(h % 384) / 256.0 : (double)(h % 7 + 1);
    case GR_NEAR1:
        if (fl) return 1.0 + ((double)(h % 65) - 32.0) / 1024.0;
        return h % 5 == 0 ? 2.0 : (sig && h % 5 == 1) ? -1.0 : 1.0;
    case GR_NANS:
        if (fl && h % 13 == 0) return NAN;
        /* fall through */
    default:
        if (fl) return ((double)(h % 4096) - 2048.0) / 256.0; /* exact in every float dtype */
        return 0.0; /* integers: raw bits, see put() */
    }
}

/* integers of kind GR_RANDOM / GR_NANS take the generator's raw bits
 * (the whole range: sums wrap); everything else goes through doubles */
static void put(void *buf, nd_dtype t, int kind, uint64_t i, unsigned seed)
{
    bool rawint = t != ND_BOOL && t < ND_FLOAT16 && (kind == GR_RANDOM || kind == GR_NANS);
    if (!rawint) {
        rt_put(buf, t, (int64_t)i, gr_value(t, kind, i, seed));
        return;
    }
    uint64_t h = mix64(i * 0x2545F4914F6CDD1Dull + seed) | 1; /* never zero */
    size_t sz = nd_dtype_size(t);
    memcpy((char *)buf + i * sz, &h, sz); /* little endian: the low bytes */
}

nd_array *gr_make(int layout, nd_dtype t, int kind, unsigned seed, int ndim, const int64_t *shape, nd_device dev)
{
    int64_t bs[ND_MAX_DIMS];
    if (ndim == 0) layout = GR_CONTIG;
    for (int d = 0; d < ndim; d++) bs[d] = layout == GR_TRANSPOSED ? shape[ndim - 1 - d] : shape[d];
    if (layout == GR_NEGSTEP) bs[0] = 2 * shape[0];
    if (layout == GR_BROADCAST) bs[0] = 1;
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= bs[d];
    size_t sz = nd_dtype_size(t);
    char *buf = malloc((size_t)n * sz + 8);
    for (int64_t i = 0; i < n; i++) put(buf, t, kind, (uint64_t)i, seed);
    nd_array *b = NULL, *v = NULL;
    ND_OK_OR_FAIL(nd_from_host(&b, buf, t, ndim, bs, dev));
    free(buf);
    switch (layout) {
    case GR_TRANSPOSED: ND_OK_OR_FAIL(nd_transpose(&v, b, NULL)); break;
    case GR_NEGSTEP: {
        nd_range r[ND_MAX_DIMS];
        for (int d = 0; d < ndim; d++) r[d] = (nd_range){ND_NONE, ND_NONE, d == 0 ? -2 : -1};
        ND_OK_OR_FAIL(nd_slice(&v, b, ndim, r));
        break;
    }
    case GR_BROADCAST: ND_OK_OR_FAIL(nd_broadcast_to(&v, b, ndim, shape)); break;
    default: return b;
    }
    nd_release(b);
    return v;
}

/* Products take factors near 1. var/std of a broadcast (stride-0) axis of
 * full-range 64-bit integers is 0 exactly but both backends see rounding
 * noise of the double means (ulp(9e18) = 2048): small values there. */
int gr_kind_for(nd_reduce_op op, nd_dtype t, int layout)
{
    if (op == ND_REDUCE_PROD) return GR_NEAR1;
    if ((op == ND_REDUCE_VAR || op == ND_REDUCE_STD) && layout == GR_BROADCAST && (t == ND_INT64 || t == ND_UINT64))
        return GR_POS;
    return GR_RANDOM;
}

double gr_tol(nd_reduce_op op, nd_dtype rdt)
{
    bool stat = op == ND_REDUCE_VAR || op == ND_REDUCE_STD;
    switch (rdt) {
    case ND_FLOAT16: return 4e-3;
    case ND_BFLOAT16: return 3e-2;
    /* float32 products round once per factor in both backends (the CPU's
     * row path multiplies thousands of factors in sequence) */
    case ND_FLOAT32: return stat ? 2e-4 : op == ND_REDUCE_PROD ? 5e-4 : 3e-5;
    case ND_FLOAT64: return stat ? 1e-10 : 1e-11;
    default: return 0;
    }
}

int64_t gr_compare(const nd_array *got, const nd_array *want, double tol, const char *what)
{
    ck_assert_int_eq(nd_dtype_of(got), nd_dtype_of(want));
    ck_assert_int_eq(nd_size(got), nd_size(want));
    nd_dtype t = nd_dtype_of(want);
    int64_t n = nd_size(want), bad = 0;
    size_t sz = nd_dtype_size(t), nb = nd_nbytes(want);
    char *g = malloc(nb + 8), *w = malloc(nb + 8);
    ND_OK_OR_FAIL(nd_copy_to_host(g, got, nb));
    ND_OK_OR_FAIL(nd_copy_to_host(w, want, nb));
    for (int64_t i = 0; i < n; i++) {
        bool ok;
        double gv = rt_get(g, t, i), wv = rt_get(w, t, i);
        if (t < ND_FLOAT16) ok = memcmp(g + (size_t)i * sz, w + (size_t)i * sz, sz) == 0;
        else if (isnan(wv) || isnan(gv)) ok = isnan(wv) && isnan(gv);
        else if (isinf(wv) || isinf(gv)) ok = gv == wv;
        else ok = fabs(gv - wv) <= tol * (fabs(wv) > 1 ? fabs(wv) : 1);
        if (!ok && bad++ < 4) printf("%s: element %lld: got %.17g, want %.17g\n", what, (long long)i, gv, wv);
    }
    free(g);
    free(w);
    return bad;
}

/* ------------------------------------------------------------------ */
/* GPU cases                                                           */
/* ------------------------------------------------------------------ */
#define SENTINEL 64
static nd_device gpu(void) { return nd_cuda(0); }

/* Reduce on the GPU into a poisoned output followed by SENTINEL poisoned
 * elements, compare with the CPU; returns the GPU result (for the
 * determinism tests) when keep is set. */
static nd_array *gpu_case(nd_reduce_op op, nd_dtype t, int layout, int kind, unsigned seed, int ndim,
                          const int64_t *shape, int naxes, const int *axes, bool keepdims, double ddof, bool keep)
{
    char what[256];
    snprintf(what, sizeof what, "%s %s %s ndim %d shape0 %lld naxes %d%s ddof %g", nd_reduce_op_name(op),
             nd_dtype_name(t), gr_layout_names[layout], ndim, ndim ? (long long)shape[0] : 0LL, axes ? naxes : -1,
             keepdims ? " keepdims" : "", ddof);
    nd_array *h = gr_make(layout, t, kind, seed, ndim, shape, nd_cpu());
    nd_array *d = gr_make(layout, t, kind, seed, ndim, shape, gpu());
    nd_array *want = NULL;
    ND_OK_OR_FAIL(nd_reduce_ddof(&want, op, h, naxes, axes, keepdims, ddof));
    nd_dtype rdt = nd_dtype_of(want);
    int64_t n = nd_size(want), tot = n + SENTINEL;
    size_t sz = nd_dtype_size(rdt);
    unsigned char *poison = malloc((size_t)tot * sz);
    memset(poison, 0xA5, (size_t)tot * sz);
    nd_array *big = NULL, *sl = NULL, *got = NULL;
    ND_OK_OR_FAIL(nd_from_host(&big, poison, rdt, 1, &tot, gpu()));
    nd_range r = {0, n, 1};
    ND_OK_OR_FAIL(nd_slice(&sl, big, 1, &r));
    ND_OK_OR_FAIL(nd_reshape(&got, sl, nd_ndim(want), nd_shape(want)));
    ND_OK_OR_FAIL(nd_reduce_ddof(&got, op, d, naxes, axes, keepdims, ddof));
    int64_t bad = gr_compare(got, want, gr_tol(op, rdt), what);
    ck_assert_msg(bad == 0, "%s: %lld of %lld elements differ from the CPU", what, (long long)bad, (long long)n);
    unsigned char *back = malloc((size_t)tot * sz);
    ND_OK_OR_FAIL(nd_copy_to_host(back, big, (size_t)tot * sz));
    ck_assert_msg(memcmp(back + (size_t)n * sz, poison, SENTINEL * sz) == 0, "%s: wrote past the output", what);
    free(back);
    free(poison);
    nd_release(sl);
    nd_release(big);
    nd_release(want);
    nd_release(h);
    nd_release(d);
    if (keep) return got;
    nd_release(got);
    return NULL;
}

static bool is_arg(nd_reduce_op op) { return op == ND_REDUCE_ARGMAX || op == ND_REDUCE_ARGMIN; }

/* axis sets of a 3-D input: none, all, singles, pairs */
static const int AX[][3] = {{0}, {0}, {0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {-1, 0}};
static const int NAX[] = {0, -1, 1, 1, 1, 2, 2, 2, 2};
#define NSETS 9

START_TEST(gpu_every_op_dtype_layout_axes)
{
    const int64_t shape[3] = {7, 33, 65};
    nd_reduce_op op = (nd_reduce_op)_i;
    int64_t cases = 0;
    for (int t = 0; t < NT_NREAL; t++)
        for (int l = 0; l < GR_NUM_LAYOUTS; l++)
            for (int s = 0; s < NSETS; s++) {
                if (is_arg(op) && NAX[s] != 1 && NAX[s] != -1) continue;
                bool kd = (s + l) % 2 == 1;
                double ddof = (s % 3 == 2) ? 1.5 : (s == 3) ? 1 : 0; /* real ddof as NumPy's */
                gpu_case(op, (nd_dtype)t, l, gr_kind_for(op, (nd_dtype)t, l), 11u + (unsigned)t, 3, shape, NAX[s] < 0 ? 0 : NAX[s],
                         NAX[s] < 0 ? NULL : AX[s], kd, ddof, false);
                cases++;
            }
    printf("gpu_reduce: %s: %lld cases match the CPU\n", nd_reduce_op_name(op), (long long)cases);
}
END_TEST

/* Odd sizes around warp/block/chunk boundaries, both paths. */
START_TEST(gpu_odd_shapes)
{
    static const nd_dtype dts[] = {ND_FLOAT32, ND_FLOAT64, ND_INT32, ND_UINT8, ND_FLOAT16, ND_BOOL, ND_INT64, ND_BFLOAT16};
    static const int64_t sizes[] = {1, 31, 32, 33, 1025, 4097, 1000007};
    for (int op = 0; op < ND_NUM_REDUCE_OPS; op++)
        for (size_t di = 0; di < sizeof dts / sizeof *dts; di++) {
            nd_dtype t = dts[di];
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
                gpu_case((nd_reduce_op)op, t, GR_CONTIG, gr_kind_for((nd_reduce_op)op, t, GR_CONTIG), 5u, 1, &sizes[si], 0,
                         NULL, false, 0, false);
            const int64_t s1[2] = {1025, 3}, s2[2] = {3, 1025}, s3[2] = {4097, 40};
            const int a0 = 0, a1 = 1;
            const int64_t *shp[3] = {s1, s2, s3};
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < GR_NUM_LAYOUTS; l++) {
                    int kind = gr_kind_for((nd_reduce_op)op, t, l);
                    gpu_case((nd_reduce_op)op, t, l, kind, 7u, 2, shp[k], 1, &a0, false, 0, false);
                    gpu_case((nd_reduce_op)op, t, l, kind, 7u, 2, shp[k], 1, &a1, true, 0, false);
                    gpu_case((nd_reduce_op)op, t, l, kind, 7u, 2, shp[k], 0, NULL, false, 0, false);
                }
        }
}
END_TEST

/* Empty reductions (the contract's values) and 0-size results. */
START_TEST(gpu_empty_and_zero_size)
{
    static const nd_reduce_op ops[] = {ND_REDUCE_SUM, ND_REDUCE_PROD, ND_REDUCE_MEAN, ND_REDUCE_ANY,
                                       ND_REDUCE_ALL, ND_REDUCE_VAR, ND_REDUCE_STD};
    const int64_t s1[2] = {0, 5}, s2[3] = {4, 0, 3};
    const int a0 = 0, a1 = 1, a01[2] = {0, 1};
    for (int t = 0; t < NT_NREAL; t++)
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
            nd_reduce_op op = ops[i];
            gpu_case(op, (nd_dtype)t, GR_CONTIG, GR_RANDOM, 1u, 2, s1, 1, &a0, false, 0, false); /* empty */
            gpu_case(op, (nd_dtype)t, GR_CONTIG, GR_RANDOM, 1u, 2, s1, 1, &a1, false, 0, false); /* 0-size out */
            gpu_case(op, (nd_dtype)t, GR_CONTIG, GR_RANDOM, 1u, 2, s1, 0, NULL, true, 0, false);
            gpu_case(op, (nd_dtype)t, GR_TRANSPOSED, GR_RANDOM, 1u, 3, s2, 1, &a1, true, 0, false);
            gpu_case(op, (nd_dtype)t, GR_CONTIG, GR_RANDOM, 1u, 3, s2, 2, a01, false, -1, false);
        }
}
END_TEST

/* NaN placements (max, min, argmax, argmin and sums propagate them as on
 * the CPU) and ties (all-equal values: first index). */
START_TEST(gpu_nans_and_ties)
{
    static const nd_reduce_op ops[] = {ND_REDUCE_MAX, ND_REDUCE_MIN,  ND_REDUCE_ARGMAX, ND_REDUCE_ARGMIN,
                                       ND_REDUCE_SUM, ND_REDUCE_MEAN, ND_REDUCE_VAR,    ND_REDUCE_ANY};
    const int64_t shape[2] = {257, 1031};
    const int a0 = 0, a1 = 1;
    for (int t = 0; t < NT_NREAL; t++)
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
            for (int l = 0; l < GR_NUM_LAYOUTS; l += 2) {
                for (int kind = GR_EQUAL; kind <= GR_NANS; kind++) {
                    gpu_case(ops[i], (nd_dtype)t, l, kind, 3u, 2, shape, 1, &a0, false, 0, false);
                    gpu_case(ops[i], (nd_dtype)t, l, kind, 3u, 2, shape, 1, &a1, false, 0, false);
                    gpu_case(ops[i], (nd_dtype)t, l, kind, 3u, 2, shape, 0, NULL, false, 0, false);
                }
            }
}
END_TEST

/* Large: 4096 x 4096 (all, axis 0, axis 1) and 3e7 elements. */
START_TEST(gpu_large)
{
    const int64_t sq[2] = {4096, 4096}, flat = 30000000;
    const int a0 = 0, a1 = 1;
    static const nd_reduce_op ops[] = {ND_REDUCE_SUM, ND_REDUCE_MEAN, ND_REDUCE_MAX, ND_REDUCE_ARGMAX, ND_REDUCE_VAR};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        gpu_case(ops[i], ND_FLOAT32, GR_CONTIG, GR_POS, 9u, 2, sq, 0, NULL, false, 0, false);
        gpu_case(ops[i], ND_FLOAT32, GR_CONTIG, GR_POS, 9u, 2, sq, 1, &a0, false, 0, false);
        gpu_case(ops[i], ND_FLOAT32, GR_CONTIG, GR_POS, 9u, 2, sq, 1, &a1, false, 0, false);
        gpu_case(ops[i], ND_FLOAT32, GR_CONTIG, GR_POS, 9u, 1, &flat, 0, NULL, false, 0, false);
    }
    gpu_case(ND_REDUCE_SUM, ND_INT32, GR_CONTIG, GR_RANDOM, 9u, 2, sq, 0, NULL, false, 0, false);
    gpu_case(ND_REDUCE_SUM, ND_INT32, GR_CONTIG, GR_RANDOM, 9u, 2, sq, 1, &a0, false, 0, false);
    gpu_case(ND_REDUCE_SUM, ND_INT64, GR_TRANSPOSED, GR_RANDOM, 9u, 2, sq, 1, &a1, false, 0, false);
    gpu_case(ND_REDUCE_SUM, ND_FLOAT16, GR_CONTIG, GR_POS, 9u, 2, sq, 1, &a1, false, 0, false);
    gpu_case(ND_REDUCE_MEAN, ND_BFLOAT16, GR_CONTIG, GR_POS, 9u, 2, sq, 1, &a0, false, 0, false);
    gpu_case(ND_REDUCE_ARGMIN, ND_FLOAT32, GR_CONTIG, GR_POS, 9u, 1, &flat, 0, NULL, false, 0, false);
    gpu_case(ND_REDUCE_STD, ND_FLOAT64, GR_CONTIG, GR_POS, 9u, 1, &flat, 0, NULL, false, 0, false);
    gpu_case(ND_REDUCE_MIN, ND_UINT8, GR_CONTIG, GR_RANDOM, 9u, 1, &flat, 0, NULL, false, 0, false);
}
END_TEST

/* Two runs give the same bits. ND_TEST_LARGE=0 (the sanitizer runs) takes
 * 1024 x 1031 and 3e6 elements: still many blocks and the multi-pass path
 * (past gpu_odd_shapes' 1000007), at a tenth of the work. */
START_TEST(gpu_determinism)
{
    const int large = nd_test_large();
    const int64_t sq[2] = {large ? 4096 : 1024, large ? 4096 : 1031}, flat = large ? 30000000 : 3000017;
    const int a0 = 0;
    static const nd_reduce_op ops[] = {ND_REDUCE_SUM, ND_REDUCE_VAR, ND_REDUCE_ARGMAX};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        for (int k = 0; k < 3; k++) {
            const int64_t *shape = k == 2 ? &flat : sq;
            int ndim = k == 2 ? 1 : 2, naxes = k == 1 ? 1 : 0;
            const int *axes = k == 1 ? &a0 : NULL;
            nd_array *r1 = gpu_case(ops[i], ND_FLOAT32, GR_CONTIG, GR_RANDOM, 4u, ndim, shape, naxes, axes, false, 0, true);
            nd_array *r2 = gpu_case(ops[i], ND_FLOAT32, GR_CONTIG, GR_RANDOM, 4u, ndim, shape, naxes, axes, false, 0, true);
            size_t nb = nd_nbytes(r1);
            char *b1 = malloc(nb + 1), *b2 = malloc(nb + 1);
            ND_OK_OR_FAIL(nd_copy_to_host(b1, r1, nb));
            ND_OK_OR_FAIL(nd_copy_to_host(b2, r2, nb));
            ck_assert_msg(memcmp(b1, b2, nb) == 0, "%s case %d: two runs differ", nd_reduce_op_name(ops[i]), k);
            free(b1);
            free(b2);
            nd_release(r1);
            nd_release(r2);
        }
}
END_TEST

/* The NumPy-computed values of the CPU suite (float32 overflow, real
 * ddof, the 0-d argmax rule; tests/test_reduce_edge.c), on the GPU. */
START_TEST(gpu_known_values)
{
    rt_known_values(gpu());
    rt_arg_0d(gpu());
}
END_TEST

Suite *suite_gpu_reduce(void)
{
    Suite *s = suite_create("gpu_reduce");
    suite_add_tcase(s, tcase_gpu_reduce_units());
    suite_add_tcase(s, tcase_gpu_reduce_emu());
    if (nd_test_gpu_count() == 0) {
        printf("gpu_reduce suite: GPU tests SKIPPED (no GPU); the CPU emulation of the kernels runs\n");
        return s;
    }
    TCase *tc = tcase_create("gpu");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, gpu_every_op_dtype_layout_axes, 0, ND_NUM_REDUCE_OPS);
    tcase_add_test(tc, gpu_odd_shapes);
    tcase_add_test(tc, gpu_empty_and_zero_size);
    tcase_add_test(tc, gpu_nans_and_ties);
    if (nd_test_large()) tcase_add_test(tc, gpu_large);
    else printf("gpu_reduce: gpu_large SKIPPED (ND_TEST_LARGE=0)\n");
    tcase_add_test(tc, gpu_determinism);
    tcase_add_test(tc, gpu_known_values);
    suite_add_tcase(s, tc);
    return s;
}
