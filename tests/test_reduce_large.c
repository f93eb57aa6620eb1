/* Reductions on large arrays: accuracy of float sums (pairwise), stable
 * variance, determinism across thread counts, and the work splits of
 * the CPU kernel (long runs, many rows, outer-axis tiles). */
#include <float.h>
#include <stdio.h>

#include "shared/half.h"
#include "test_reduce.h"

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}

static double sum_f32_all(const nd_array *a)
{
    nd_array *r = NULL;
    ND_OK_OR_FAIL(nd_sum(&r, a, 0, NULL, false));
    ck_assert_int_eq(nd_dtype_of(r), ND_FLOAT32);
    float v;
    ND_OK_OR_FAIL(nd_copy_to_host(&v, r, sizeof v));
    nd_release(r);
    return v;
}

/* Allowed error: a few float32 ulps of the result times log2(n). */
static double tol_f32(double ref, int64_t n)
{
    float f = (float)fabs(ref);
    double ulp = (double)nextafterf(f, INFINITY) - (double)f;
    return 2.0 * ulp * log2((double)n);
}

static double naive_f32(const float *x, int64_t n, int64_t stride)
{
    float s = 0;
    for (int64_t i = 0; i < n; i++) s += x[i * stride];
    return s;
}

START_TEST(test_accuracy)
{
    const int64_t n = 10000000;
    /* 0.1f repeated: contiguous, whole array */
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT32, 1, &n, nd_scalar_float(0.1), nd_cpu()));
    float *host = nd_data(a);
    double ref = (double)n * (double)0.1f, tol = tol_f32(ref, n);
    double got = sum_f32_all(a);
    ck_assert_msg(fabs(got - ref) <= tol, "sum(0.1f x 1e7) = %.9g, want %.9g +- %g", got, ref, tol);
    ck_assert_msg(fabs(naive_f32(host, n, 1) - ref) > tol, "the test cannot tell naive summation apart");
    /* mean in float32 as well */
    nd_array *m = NULL;
    ND_OK_OR_FAIL(nd_mean(&m, a, 0, NULL, false));
    float mv;
    ND_OK_OR_FAIL(nd_copy_to_host(&mv, m, 4));
    ck_assert_msg(fabs(mv - 0.1f) <= 4 * FLT_EPSILON, "mean = %.9g", mv);
    nd_release(m);
    nd_release(a);
    a = NULL;

    /* random values in [-0.5, 1): contiguous and every other element
     * (the strided, converted path) */
    const int64_t n2 = 2 * n;
    float *x = malloc(sizeof(float) * (size_t)n2);
    uint64_t s = 42;
    for (int64_t i = 0; i < n2; i++) x[i] = (float)((double)(lcg(&s) & 0xffffff) / 16777216.0 * 1.5 - 0.5);
    ND_OK_OR_FAIL(nd_from_host(&a, x, ND_FLOAT32, 1, &n2, nd_cpu()));
    ref = 0;
    for (int64_t i = 0; i < n2; i++) ref += x[i];
    got = sum_f32_all(a);
    ck_assert_msg(fabs(got - ref) <= tol_f32(ref, n2), "random sum %.9g want %.9g", got, ref);
    ck_assert(fabs(naive_f32(x, n2, 1) - ref) > tol_f32(ref, n2));
    nd_array *v = NULL;
    nd_range r2 = {ND_NONE, ND_NONE, 2};
    ND_OK_OR_FAIL(nd_slice(&v, a, 1, &r2));
    ref = 0;
    for (int64_t i = 0; i < n2; i += 2) ref += x[i];
    got = sum_f32_all(v);
    ck_assert_msg(fabs(got - ref) <= tol_f32(ref, n), "strided sum %.9g want %.9g", got, ref);
    nd_release(v);
    nd_release(a);
    a = NULL;
    free(x);

    /* outer-axis sum: (2e6, 5) over axis 0, rows accumulated pairwise */
    const int64_t sh[2] = {2000000, 5};
    ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT32, 2, sh, nd_scalar_float(0.1), nd_cpu()));
    int ax0 = 0;
    nd_array *r = NULL;
    ND_OK_OR_FAIL(nd_sum(&r, a, 1, &ax0, false));
    float col[5];
    ND_OK_OR_FAIL(nd_copy_to_host(col, r, sizeof col));
    ref = (double)sh[0] * (double)0.1f;
    for (int j = 0; j < 5; j++)
        ck_assert_msg(fabs(col[j] - ref) <= tol_f32(ref, sh[0]), "column %d: %.9g want %.9g", j, col[j], ref);
    ck_assert(fabs(naive_f32(nd_data(a), sh[0], 5) - ref) > tol_f32(ref, sh[0]));
    nd_release(r);
    nd_release(a);
    a = NULL;
}
END_TEST

/* Half types accumulate in float32; variance is two-pass (stable). */
START_TEST(test_accuracy_half_var)
{
    int64_t n = 10000;
    nd_array *a = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_ones(&a, ND_FLOAT16, 1, &n, nd_cpu()));
    ND_OK_OR_FAIL(nd_sum(&r, a, 0, NULL, false));
    uint16_t h;
    ND_OK_OR_FAIL(nd_copy_to_host(&h, r, 2));
    ck_assert_float_eq(nd_half_to_float(h), 10000.0f); /* float16 accumulation stops at 2048 */
    nd_release(r);
    nd_release(a);
    a = NULL;
    n = 1000000;
    a = NULL;
    r = NULL;
    ND_OK_OR_FAIL(nd_ones(&a, ND_BFLOAT16, 1, &n, nd_cpu()));
    ND_OK_OR_FAIL(nd_sum(&r, a, 0, NULL, false));
    ND_OK_OR_FAIL(nd_copy_to_host(&h, r, 2));
    ck_assert_float_eq(nd_bf16_to_float(h), nd_bf16_to_float(nd_float_to_bf16(1e6f)));
    nd_release(r);
    nd_release(a);
    a = NULL;

    /* 1e4 +- 0.5: var 0.25 exactly; E[x^2] - E[x]^2 in float32 is useless */
    n = 1000000;
    float *x = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) x[i] = 10000.0f + ((i & 1) ? 0.5f : -0.5f);
    a = NULL;
    r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, x, ND_FLOAT32, 1, &n, nd_cpu()));
    ND_OK_OR_FAIL(nd_var(&r, a, 0, NULL, false));
    float vv;
    ND_OK_OR_FAIL(nd_copy_to_host(&vv, r, 4));
    ck_assert_msg(fabsf(vv - 0.25f) < 1e-4f, "var = %.9g", vv);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_reduce_ddof(&r, ND_REDUCE_STD, a, 0, NULL, false, 1));
    ND_OK_OR_FAIL(nd_copy_to_host(&vv, r, 4));
    ck_assert_msg(fabs(vv - sqrt(0.25 * (double)n / (double)(n - 1))) < 1e-4, "std = %.9g", vv);
    nd_release(r);
    nd_release(a);
    a = NULL;
    free(x);
}
END_TEST

/* Same bits for any thread count. */
START_TEST(test_determinism)
{
    const int64_t sh[2] = {3000, 1000};
    const int64_t n = sh[0] * sh[1];
    float *x = malloc(sizeof(float) * (size_t)n);
    uint64_t s = 7;
    for (int64_t i = 0; i < n; i++) x[i] = (float)((double)(lcg(&s) % 100000) / 997.0 - 40.0);
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, x, ND_FLOAT32, 2, sh, nd_cpu()));
    static const int threads[] = {1, 2, 3, 4, 7};
    static const nd_reduce_op ops[] = {ND_REDUCE_SUM, ND_REDUCE_SUM, ND_REDUCE_SUM, ND_REDUCE_VAR, ND_REDUCE_ARGMAX,
                                       ND_REDUCE_MEAN};
    static const int axes[] = {-9, 0, 1, 0, 0, 1}; /* -9: all */
    void *first[6] = {0};
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        ND_OK_OR_FAIL(nd_set_num_threads(threads[t]));
        for (int k = 0; k < 6; k++) {
            nd_array *r = NULL;
            ND_OK_OR_FAIL(nd_reduce(&r, ops[k], a, 1, axes[k] == -9 ? NULL : &axes[k], false));
            size_t nb = nd_nbytes(r);
            void *buf = malloc(nb);
            ND_OK_OR_FAIL(nd_copy_to_host(buf, r, nb));
            if (t == 0) {
                first[k] = buf;
                if (k == 0) { /* and it is accurate */
                    double ref = 0;
                    for (int64_t i = 0; i < n; i++) ref += x[i];
                    ck_assert(fabs(*(float *)buf - ref) <= tol_f32(ref, n) + 1e-3);
                }
            } else {
                ck_assert_msg(memcmp(buf, first[k], nb) == 0, "case %d differs with %d threads", k, threads[t]);
                free(buf);
            }
            nd_release(r);
        }
    }
    for (int k = 0; k < 6; k++) free(first[k]);
    ND_OK_OR_FAIL(nd_set_num_threads(0));
    nd_release(a);
    a = NULL;
    free(x);
}
END_TEST

/* Work splits: many row groups per output, long runs cut in chunks,
 * outer-axis tiles with several row groups; against the reference. */
START_TEST(test_splits)
{
    static const nd_dtype dts[] = {ND_FLOAT32, ND_FLOAT64, ND_INT32, ND_FLOAT16, ND_UINT8, ND_BFLOAT16};
    static const int64_t s3[3] = {2000, 3, 100}, sl[2] = {3, 200000}, sr[2] = {100000, 3}, sw[2] = {20, 9000};
    static const int a02[2] = {0, 2}, a0[1] = {0}, a1[1] = {1};
    ND_OK_OR_FAIL(nd_set_num_threads(3));
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (int op = 0; op < ND_NUM_REDUCE_OPS; op++) {
            if (op == ND_REDUCE_PROD) continue; /* overflows at these sizes */
            bool is_arg = op == ND_REDUCE_ARGMAX || op == ND_REDUCE_ARGMIN;
            for (int layout = 0; layout < 3; layout++) {
                if (!is_arg) rt_case((nd_reduce_op)op, dts[d], layout, 3, s3, 2, a02, false, 0, false);
                rt_case((nd_reduce_op)op, dts[d], layout, 2, sl, 1, a1, false, 0, false);
                rt_case((nd_reduce_op)op, dts[d], layout, 2, sr, 1, a0, layout == 1, 0, false);
                rt_case((nd_reduce_op)op, dts[d], layout, 2, sw, 1, a0, false, 0, layout == 0); /* 3 tiles */
            }
            rt_case((nd_reduce_op)op, dts[d], RT_CONTIG, 2, sl, -1, NULL, false, 0, false);
        }
    ND_OK_OR_FAIL(nd_set_num_threads(0));
}
END_TEST

TCase *tcase_reduce_large(void)
{
    TCase *tc = tcase_create("large");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_accuracy);
    tcase_add_test(tc, test_accuracy_half_var);
    tcase_add_test(tc, test_determinism);
    tcase_add_test(tc, test_splits);
    return tc;
}
