/* Philox4x32-10 and nd_random_uniform / nd_random_normal. Expected stream
 * values were computed with an independent Python implementation of
 * Random123's Philox4x32-10 and the transforms documented in src/shared/philox.h. */
#include <stdio.h>

#include "shared/half.h"
#include "shared/philox.h"
#include "test_util.h"

#define SHP(...) ((const int64_t[]){__VA_ARGS__})

START_TEST(test_philox_kat)
{
    /* Random123 kat_vectors, philox4x32 10: counter, key -> output */
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6,
         0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
         0x24126ea1},
    };
    for (int i = 0; i < 3; i++) {
        uint32_t out[4];
        nd_philox4x32_10(kat[i], kat[i] + 4, out);
        for (int k = 0; k < 4; k++) ck_assert_msg(out[k] == kat[i][6 + k], "kat %d word %d: %08x", i, k, out[k]);
    }
    /* the stream's block: key = (seed lo, seed hi), counter = (j lo, j hi, 0, 0) */
    uint32_t w[4];
    nd_philox_block(0x0123456789abcdefull, 0x100000002ull, w);
    ck_assert(w[0] == 0x4743d04b && w[1] == 0xa665e43b && w[2] == 0x28a9f5ab && w[3] == 0x3d9aab44);
    nd_philox_block(0, 0, w);
    ck_assert(w[0] == 0x6627e8d5 && w[3] == 0x9b00dbd8);
}
END_TEST

static nd_array *gen(nd_rng *r, int dist, nd_dtype t, int64_t n, double p0, double p1)
{
    nd_array *a = NULL;
    if (dist == 0) ND_OK_OR_FAIL(nd_random_uniform(&a, r, t, 1, &n, p0, p1, nd_cpu()));
    else ND_OK_OR_FAIL(nd_random_normal(&a, r, t, 1, &n, p0, p1, nd_cpu()));
    return a;
}

/* Contents as doubles (caller frees). */
static double *values(const nd_array *a)
{
    int64_t n = nd_size(a);
    size_t is = nd_dtype_size(nd_dtype_of(a));
    char *raw = malloc((size_t)n * is + 1);
    double *v = malloc((size_t)n * sizeof *v + 1);
    ND_OK_OR_FAIL(nd_copy_to_host(raw, a, (size_t)n * is));
    for (int64_t i = 0; i < n; i++) {
        const char *p = raw + i * (int64_t)is;
        uint16_t h;
        float f;
        switch (nd_dtype_of(a)) {
        case ND_FLOAT16: memcpy(&h, p, 2); v[i] = nd_half_to_float(h); break;
        case ND_BFLOAT16: memcpy(&h, p, 2); v[i] = nd_bf16_to_float(h); break;
        case ND_FLOAT32: memcpy(&f, p, 4); v[i] = f; break;
        default: memcpy(&v[i], p, 8); break;
        }
    }
    free(raw);
    return v;
}

START_TEST(test_known_values)
{
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 42));
    nd_array *a = gen(r, 0, ND_FLOAT32, 8, 0.0, 1.0);
    static const float u32[8] = {0x1.39d5ep-1f, 0x1.dfd524p-2f, 0x1.2bf5p-4f,   0x1.5d0accp-2f,
                                 0x1.f9b642p-1f, 0x1.4ee9bp-2f,  0x1.071eb4p-1f, 0x1.d13818p-2f};
    float got[8];
    ND_OK_OR_FAIL(nd_copy_to_host(got, a, sizeof got));
    for (int i = 0; i < 8; i++) ck_assert_msg(got[i] == u32[i], "u32[%d] = %a", i, (double)got[i]);
    ck_assert_uint_eq(nd_rng_offset(r), 2);
    nd_release(a);
    ND_OK_OR_FAIL(nd_rng_set_offset(r, 0));
    a = gen(r, 0, ND_FLOAT64, 4, 0.0, 1.0);
    static const double u64[4] = {0x1.39d5e0a6efea9p-1, 0x1.2bf50ad5742b0p-4, 0x1.f9b6424ea774dp-1,
                                  0x1.071eb4dce89c0p-1};
    double gd[4];
    ND_OK_OR_FAIL(nd_copy_to_host(gd, a, sizeof gd));
    for (int i = 0; i < 4; i++) ck_assert_msg(gd[i] == u64[i], "u64[%d] = %a", i, gd[i]);
    ck_assert_uint_eq(nd_rng_offset(r), 2);
    nd_release(a);
    nd_rng_destroy(r);
    /* normal, seed 7: float64 mean 1 stddev 2, float32 standard */
    ND_OK_OR_FAIL(nd_rng_create(&r, 7));
    a = gen(r, 1, ND_FLOAT64, 4, 1.0, 2.0);
    static const double n64[4] = {1.4594163338591986, 1.4008287808645936, 2.2653491174734457, 3.364573257140047};
    ND_OK_OR_FAIL(nd_copy_to_host(gd, a, sizeof gd));
    for (int i = 0; i < 4; i++) ck_assert_msg(fabs(gd[i] - n64[i]) <= 1e-14, "n64[%d] = %.17g", i, gd[i]);
    nd_release(a);
    ND_OK_OR_FAIL(nd_rng_set_offset(r, 0));
    a = gen(r, 1, ND_FLOAT32, 4, 0.0, 1.0);
    static const double n32[4] = {0.0002915674171952905, -0.3048469857372204, 1.7887573496909983, 1.067872469954239};
    ND_OK_OR_FAIL(nd_copy_to_host(got, a, 4 * sizeof(float)));
    for (int i = 0; i < 4; i++) ck_assert_msg(got[i] == (float)n32[i], "n32[%d] = %.9g", i, (double)got[i]);
    nd_release(a);
    nd_rng_destroy(r);
}
END_TEST

START_TEST(test_reproducible)
{
    const nd_dtype ts[] = {ND_FLOAT16, ND_BFLOAT16, ND_FLOAT32, ND_FLOAT64};
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 4; k++) {
            nd_dtype t = ts[k];
            uint64_t epb = t == ND_FLOAT64 ? 2 : 4;
            size_t is = nd_dtype_size(t);
            nd_rng *r1 = NULL, *r2 = NULL, *r3 = NULL;
            ND_OK_OR_FAIL(nd_rng_create(&r1, 0xdeadbeefcafeull));
            ND_OK_OR_FAIL(nd_rng_create(&r2, 0xdeadbeefcafeull));
            ND_OK_OR_FAIL(nd_rng_create(&r3, 0xdeadbeefcaffull));
            /* one call of 2n == two calls of n (n a multiple of the block) */
            nd_array *whole = gen(r1, d, t, 200, 0.0, 1.0);
            ck_assert_uint_eq(nd_rng_offset(r1), 200 / epb);
            nd_array *h1 = gen(r2, d, t, 100, 0.0, 1.0), *h2 = gen(r2, d, t, 100, 0.0, 1.0);
            char *w = malloc(200 * is), *p = malloc(200 * is);
            ND_OK_OR_FAIL(nd_copy_to_host(w, whole, 200 * is));
            ND_OK_OR_FAIL(nd_copy_to_host(p, h1, 100 * is));
            ND_OK_OR_FAIL(nd_copy_to_host(p + 100 * is, h2, 100 * is));
            ck_assert(memcmp(w, p, 200 * is) == 0);
            /* a different seed gives different numbers */
            nd_array *o = gen(r3, d, t, 200, 0.0, 1.0);
            ND_OK_OR_FAIL(nd_copy_to_host(p, o, 200 * is));
            int same = 0;
            for (int i = 0; i < 200; i++) same += memcmp(w + i * is, p + i * is, is) == 0;
            ck_assert_int_lt(same, 20);
            /* n not a multiple: the next call starts at the next block */
            ND_OK_OR_FAIL(nd_rng_set_offset(r2, 0));
            nd_array *x = gen(r2, d, t, 7, 0.0, 1.0);
            ck_assert_uint_eq(nd_rng_offset(r2), (7 + epb - 1) / epb);
            nd_array *y = gen(r2, d, t, 5, 0.0, 1.0);
            ND_OK_OR_FAIL(nd_copy_to_host(p, x, 7 * is));
            ck_assert(memcmp(w, p, 7 * is) == 0);
            ND_OK_OR_FAIL(nd_copy_to_host(p, y, 5 * is));
            ck_assert(memcmp(w + ((7 + epb - 1) / epb) * epb * is, p, 5 * is) == 0);
            /* set_offset jumps into the stream */
            ND_OK_OR_FAIL(nd_rng_set_offset(r3, 0));
            ND_OK_OR_FAIL(nd_rng_set_offset(r3, 5));
            ck_assert_uint_eq(nd_rng_offset(r3), 5);
            nd_release(o);
            nd_rng_destroy(r3);
            ND_OK_OR_FAIL(nd_rng_create(&r3, 0xdeadbeefcafeull));
            ND_OK_OR_FAIL(nd_rng_set_offset(r3, 5));
            o = gen(r3, d, t, 10, 0.0, 1.0);
            ND_OK_OR_FAIL(nd_copy_to_host(p, o, 10 * is));
            ck_assert(memcmp(w + 5 * epb * is, p, 10 * is) == 0);
            free(w);
            free(p);
            nd_array *all[] = {whole, h1, h2, o, x, y};
            for (int i = 0; i < 6; i++) nd_release(all[i]);
            nd_rng_destroy(r1);
            nd_rng_destroy(r2);
            nd_rng_destroy(r3);
        }
}
END_TEST

START_TEST(test_thread_independent)
{
    int saved = nd_get_num_threads();
    nd_array *a[2];
    for (int i = 0; i < 2; i++) {
        ND_OK_OR_FAIL(nd_set_num_threads(i == 0 ? 1 : 4));
        nd_rng *r = NULL;
        ND_OK_OR_FAIL(nd_rng_create(&r, 99));
        a[i] = gen(r, 1, ND_FLOAT32, 300001, 0.0, 1.0);
        nd_rng_destroy(r);
    }
    ND_OK_OR_FAIL(nd_set_num_threads(saved));
    char *x = malloc(300001 * 4), *y = malloc(300001 * 4);
    ND_OK_OR_FAIL(nd_copy_to_host(x, a[0], 300001 * 4));
    ND_OK_OR_FAIL(nd_copy_to_host(y, a[1], 300001 * 4));
    ck_assert(memcmp(x, y, 300001 * 4) == 0);
    free(x);
    free(y);
    nd_release(a[0]);
    nd_release(a[1]);
}
END_TEST

static int cmp_double(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return (x > y) - (x < y);
}

/* Mean/variance within 5 sigma, a 50-bin chi-square histogram and the
 * Kolmogorov-Smirnov distance against the CDF. */
static void check_stats(const double *v0, int64_t n, int dist, double p0, double p1, double ks_extra)
{
    double *v = malloc((size_t)n * sizeof *v);
    memcpy(v, v0, (size_t)n * sizeof *v);
    double mean_t = dist == 0 ? (p0 + p1) / 2 : p0;
    double var_t = dist == 0 ? (p1 - p0) * (p1 - p0) / 12 : p1 * p1;
    double s = 0, ss = 0;
    for (int64_t i = 0; i < n; i++) s += v[i];
    double mean = s / (double)n;
    for (int64_t i = 0; i < n; i++) ss += (v[i] - mean) * (v[i] - mean);
    double var = ss / (double)(n - 1);
    ck_assert_msg(fabs(mean - mean_t) < 5 * sqrt(var_t / (double)n), "mean %g want %g", mean, mean_t);
    double m4 = dist == 0 ? 1.8 : 3.0; /* kurtosis: var of the variance */
    ck_assert_msg(fabs(var - var_t) < 5 * var_t * sqrt((m4 - 1) / (double)n), "var %g want %g", var, var_t);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double dmax = 0;
    int64_t bins[50] = {0};
    for (int64_t i = 0; i < n; i++) {
        double F = dist == 0 ? (v[i] - p0) / (p1 - p0) : 0.5 * erfc(-(v[i] - p0) / (p1 * sqrt(2.0)));
        double d1 = fabs(F - (double)i / (double)n), d2 = fabs(F - (double)(i + 1) / (double)n);
        dmax = fmax(dmax, fmax(d1, d2));
        int b = (int)(F * 50);
        bins[b < 0 ? 0 : b > 49 ? 49 : b]++;
    }
    /* KS: 1.95 / sqrt(n) is the 0.1% critical value */
    ck_assert_msg(dmax < 1.95 / sqrt((double)n) + ks_extra, "KS distance %g", dmax);
    double chi = 0, e = (double)n / 50;
    for (int b = 0; b < 50; b++) chi += ((double)bins[b] - e) * ((double)bins[b] - e) / e;
    /* 49 degrees of freedom: 99.9% quantile is about 85.4 */
    if (ks_extra == 0) ck_assert_msg(chi < 85.4, "chi-square %g", chi);
    free(v);
}

START_TEST(test_statistics)
{
    const int64_t n = 1000000;
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 12345));
    const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64};
    for (int k = 0; k < 2; k++) {
        nd_array *a = gen(r, 0, ts[k], n, -2.0, 3.0);
        double *v = values(a);
        check_stats(v, n, 0, -2.0, 3.0, 0);
        free(v);
        nd_release(a);
        a = gen(r, 1, ts[k], n, 1.5, 2.5);
        v = values(a);
        check_stats(v, n, 1, 1.5, 2.5, 0);
        free(v);
        nd_release(a);
    }
    /* half types: quantisation adds up to half an ulp to the KS distance */
    nd_array *a = gen(r, 1, ND_FLOAT16, n, 0.0, 1.0);
    double *v = values(a);
    check_stats(v, n, 1, 0.0, 1.0, 2e-3);
    free(v);
    nd_release(a);
    a = gen(r, 0, ND_BFLOAT16, n, 0.0, 1.0);
    v = values(a);
    check_stats(v, n, 0, 0.0, 1.0, 4e-3);
    free(v);
    nd_release(a);
    nd_rng_destroy(r);
}
END_TEST

START_TEST(test_range)
{
    const nd_dtype ts[] = {ND_FLOAT16, ND_BFLOAT16, ND_FLOAT32, ND_FLOAT64};
    const double bounds[][2] = {{0.0, 1.0}, {-2.0, 3.0}, {1000.0, 1001.0}, {-1e-3, 0.0}, {5.0, 5.0}};
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 3));
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 5; b++) {
            double lo = bounds[b][0], hi = bounds[b][1];
            nd_array *a = gen(r, 0, ts[k], 200000, lo, hi);
            double *v = values(a), mn = INFINITY, mx = -INFINITY;
            for (int64_t i = 0; i < 200000; i++) mn = fmin(mn, v[i]), mx = fmax(mx, v[i]);
            if (lo == hi) {
                ck_assert(mn == lo && mx == lo);
            } else {
                ck_assert_msg(mn >= lo && mx < hi, "%s [%g, %g): min %.10g max %.10g", nd_dtype_name(ts[k]), lo, hi,
                              mn, mx);
                const double eps[] = {0x1p-10, 0x1p-7, 0x1p-23, 0x1p-52};
                ck_assert(mx > lo + (hi - lo) * 0.9 - fabs(hi) * eps[k]); /* the range is filled */
            }
            free(v);
            nd_release(a);
        }
    /* normal with stddev 0 is the mean */
    nd_array *a = gen(r, 1, ND_FLOAT32, 100, -3.25, 0.0);
    double *v = values(a);
    for (int i = 0; i < 100; i++) ck_assert(v[i] == -3.25);
    free(v);
    nd_release(a);
    nd_rng_destroy(r);
}
END_TEST

START_TEST(test_out_and_shapes)
{
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 5));
    nd_array *ref = NULL;
    ND_OK_OR_FAIL(nd_random_uniform(&ref, r, ND_FLOAT32, 2, SHP(3, 4), 0.0, 1.0, nd_cpu()));
    ck_assert_int_eq(nd_ndim(ref), 2);
    ck_assert_int_eq(nd_shape(ref)[1], 4);
    float want[12];
    ND_OK_OR_FAIL(nd_copy_to_host(want, ref, sizeof want));
    /* out of another dtype: generated as float32, then cast */
    nd_array *o = NULL, *keep;
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT64, 2, SHP(3, 4), nd_scalar_float(NAN), nd_cpu()));
    keep = o;
    ND_OK_OR_FAIL(nd_rng_set_offset(r, 0));
    ND_OK_OR_FAIL(nd_random_uniform(&o, r, ND_FLOAT32, 2, SHP(3, 4), 0.0, 1.0, nd_cpu()));
    ck_assert_ptr_eq(o, keep);
    double gd[12];
    ND_OK_OR_FAIL(nd_copy_to_host(gd, o, sizeof gd));
    for (int i = 0; i < 12; i++) ck_assert(gd[i] == (double)want[i]);
    nd_release(o);
    /* a transposed out gets the values in its logical C order */
    nd_array *base = NULL, *ot = NULL;
    ND_OK_OR_FAIL(nd_full(&base, ND_FLOAT32, 2, SHP(4, 3), nd_scalar_float(NAN), nd_cpu()));
    ND_OK_OR_FAIL(nd_transpose(&ot, base, NULL));
    ND_OK_OR_FAIL(nd_rng_set_offset(r, 0));
    ND_OK_OR_FAIL(nd_random_uniform(&ot, r, ND_FLOAT32, 2, SHP(3, 4), 0.0, 1.0, nd_cpu()));
    float gf[12];
    ND_OK_OR_FAIL(nd_copy_to_host(gf, ot, sizeof gf));
    ck_assert(memcmp(gf, want, sizeof gf) == 0);
    nd_release(ot);
    nd_release(base);
    /* 0-d and empty */
    nd_array *z = NULL;
    ND_OK_OR_FAIL(nd_rng_set_offset(r, 0));
    ND_OK_OR_FAIL(nd_random_normal(&z, r, ND_FLOAT64, 0, NULL, 0.0, 1.0, nd_cpu()));
    ck_assert_int_eq(nd_ndim(z), 0);
    ck_assert_uint_eq(nd_rng_offset(r), 1);
    nd_release(z);
    z = NULL;
    ND_OK_OR_FAIL(nd_random_normal(&z, r, ND_FLOAT64, 2, SHP(3, 0), 0.0, 1.0, nd_cpu()));
    ck_assert_int_eq(nd_size(z), 0);
    ck_assert_uint_eq(nd_rng_offset(r), 1);
    nd_release(z);
    nd_release(ref);
    nd_rng_destroy(r);
}
END_TEST

START_TEST(test_errors)
{
    nd_rng *r = NULL;
    ND_EXPECT_ERR(nd_rng_create(NULL, 1), ND_ERR_INVALID, "nd_rng_create: argument 'rng' is NULL");
    ND_EXPECT_ERR(nd_rng_set_offset(NULL, 1), ND_ERR_INVALID, "nd_rng_set_offset: argument 'rng' is NULL");
    ck_assert_uint_eq(nd_rng_offset(NULL), 0);
    nd_rng_destroy(NULL);
    ND_OK_OR_FAIL(nd_rng_create(&r, 1));
    nd_array *a = NULL;
    const int64_t n = 4;
    ND_EXPECT_ERR(nd_random_uniform(NULL, r, ND_FLOAT32, 1, &n, 0, 1, nd_cpu()), ND_ERR_INVALID,
                  "nd_random_uniform: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_random_uniform(&a, NULL, ND_FLOAT32, 1, &n, 0, 1, nd_cpu()), ND_ERR_INVALID,
                  "nd_random_uniform: argument 'rng' is NULL");
    ND_EXPECT_ERR(nd_random_normal(&a, NULL, ND_FLOAT32, 1, &n, 0, 1, nd_cpu()), ND_ERR_INVALID,
                  "nd_random_normal: argument 'rng' is NULL");
    ND_EXPECT_ERR(nd_random_uniform(&a, r, ND_INT32, 1, &n, 0, 1, nd_cpu()), ND_ERR_DTYPE,
                  "nd_random_uniform: dtype int32 is not a floating dtype");
    ND_EXPECT_ERR(nd_random_normal(&a, r, ND_BOOL, 1, &n, 0, 1, nd_cpu()), ND_ERR_DTYPE,
                  "nd_random_normal: dtype bool is not a floating dtype");
    ND_EXPECT_ERR(nd_random_normal(&a, r, (nd_dtype)99, 1, &n, 0, 1, nd_cpu()), ND_ERR_DTYPE, "invalid dtype");
    ND_EXPECT_ERR(nd_random_uniform(&a, r, ND_FLOAT32, 1, &n, 2, 1, nd_cpu()), ND_ERR_INVALID,
                  "low (2) is greater than high (1)");
    ND_EXPECT_ERR(nd_random_uniform(&a, r, ND_FLOAT32, 1, &n, NAN, 1, nd_cpu()), ND_ERR_INVALID, "must be finite");
    ND_EXPECT_ERR(nd_random_uniform(&a, r, ND_FLOAT64, 1, &n, 0, INFINITY, nd_cpu()), ND_ERR_INVALID,
                  "must be finite");
    ND_EXPECT_ERR(nd_random_uniform(&a, r, ND_FLOAT64, 1, &n, -1e308, 1e308, nd_cpu()), ND_ERR_INVALID,
                  "range exceeds valid bounds");
    ND_EXPECT_ERR(nd_random_uniform(&a, r, ND_FLOAT16, 1, &n, 0, 70000, nd_cpu()), ND_ERR_INVALID,
                  "out of range for float16");
    ND_EXPECT_ERR(nd_random_normal(&a, r, ND_FLOAT32, 1, &n, 0, -1, nd_cpu()), ND_ERR_INVALID,
                  "nd_random_normal: stddev (-1) must be non-negative");
    ND_EXPECT_ERR(nd_random_normal(&a, r, ND_FLOAT32, 1, &n, INFINITY, 1, nd_cpu()), ND_ERR_INVALID,
                  "must be finite");
    const int64_t neg = -3;
    ND_EXPECT_ERR(nd_random_uniform(&a, r, ND_FLOAT32, 1, &neg, 0, 1, nd_cpu()), ND_ERR_INVALID, "nd_random_uniform");
    ND_EXPECT_ERR(nd_random_uniform(&a, r, ND_FLOAT32, 1, NULL, 0, 1, nd_cpu()), ND_ERR_INVALID, "nd_random_uniform");
    ck_assert_ptr_null(a);
    /* bad out: wrong shape / non-float dtype; untouched, offset unchanged */
    nd_array *o = NULL, *keep;
    ND_OK_OR_FAIL(nd_full(&o, ND_INT32, 1, SHP(4), nd_scalar_int(7), nd_cpu()));
    keep = o;
    ND_EXPECT_ERR(nd_random_uniform(&o, r, ND_FLOAT32, 1, &n, 0, 1, nd_cpu()), ND_ERR_DTYPE,
                  "cannot cast the result from float32 to 'out' dtype int32");
    const int64_t five = 5;
    ND_EXPECT_ERR(nd_random_normal(&o, r, ND_FLOAT32, 1, &five, 0, 1, nd_cpu()), ND_ERR_SHAPE,
                  "'out' has shape (4,), but the result has shape (5,)");
    ck_assert_ptr_eq(o, keep);
    int32_t iv[4];
    ND_OK_OR_FAIL(nd_copy_to_host(iv, o, sizeof iv));
    for (int i = 0; i < 4; i++) ck_assert_int_eq(iv[i], 7);
    ck_assert_uint_eq(nd_rng_offset(r), 0);
    nd_release(o);
    nd_rng_destroy(r);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The transforms' own ln / sin / cos (src/shared/philox.h)                  */
/* ------------------------------------------------------------------ */

/* Error of got in units of the last place of the double nearest ref. */
static double ulp_error(double got, long double ref)
{
    double r = (double)ref;
    if (r == 0) return got == 0 ? 0 : INFINITY;
    int e;
    frexp(r, &e);
    return (double)(fabsl((long double)got - ref) / ldexpl(1.0L, e - 53));
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The long double references need x87's 64-bit mantissa (valgrind, for
 * one, emulates long double as double: then the test says so and passes
 * without measuring). */
static int long_double_is_extended(void)
{
    volatile long double one = 1.0L, tiny = 0x1p-60L;
    return one + tiny != one;
}

/* 10^6 points each, over the generator's domains: log on u1 in (0, 1]
 * (the 53- and 32-bit grids of the generator and every binade down to
 * 2^-53), sin/cos on t = 2 pi u2 in [0, 2 pi) plus the doubles next to
 * k pi/2, where reduction cancels most. At most 2 ulp required (fdlibm's
 * algorithms are below 1 ulp). */
START_TEST(test_transcendental_accuracy)
{
    if (!long_double_is_extended()) {
        printf("random: ln/sin/cos accuracy not measured (long double is not x87 extended here)\n");
        return;
    }
    const int N = 1000000;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    double worst[3] = {0, 0, 0}, at[3] = {0, 0, 0};
    for (int i = 0; i < N; i++) {
        uint64_t r = xorshift(&s);
        double u1;
        switch (i % 3) {
        case 0: u1 = nd_philox_add(nd_philox_u53((uint32_t)(r >> 32), (uint32_t)r), 0x1p-53); break;
        case 1: u1 = ((double)(uint32_t)r + 1.0) * 0x1p-32; break;
        default: u1 = ldexp(1.0 + (double)(r >> 12) * 0x1p-52, -(int)(1 + r % 53)); break;
        }
        double e = ulp_error(nd_philox_log(u1), logl((long double)u1));
        if (e > worst[0]) worst[0] = e, at[0] = u1;
        double t;
        if (i % 4 == 3) { /* within 1000 ulp of k pi / 2, k = 1..4 */
            double k = (double)(1 + (r >> 40) % 4) * (M_PI / 2);
            t = nd_philox_bitsd(nd_philox_dbits(k) + (uint64_t)((int64_t)((r >> 8) % 2001) - 1000));
        } else {
            t = nd_philox_mul(ND_PHILOX_2PI, nd_philox_u53((uint32_t)(r >> 32), (uint32_t)r));
        }
        double sn, cs;
        nd_philox_sincos(t, &sn, &cs);
        e = ulp_error(sn, sinl((long double)t));
        if (e > worst[1]) worst[1] = e, at[1] = t;
        e = ulp_error(cs, cosl((long double)t));
        if (e > worst[2]) worst[2] = e, at[2] = t;
    }
    printf("random: max error over %d points: log %.3f ulp (at %a), sin %.3f ulp (at %a), cos %.3f ulp (at %a)\n", N,
           worst[0], at[0], worst[1], at[1], worst[2], at[2]);
    ck_assert_msg(worst[0] <= 2.0, "log: %.3f ulp at %a", worst[0], at[0]);
    ck_assert_msg(worst[1] <= 2.0, "sin: %.3f ulp at %a", worst[1], at[1]);
    ck_assert_msg(worst[2] <= 2.0, "cos: %.3f ulp at %a", worst[2], at[2]);
    /* exact points: ln 1 = 0, ln 2^-k = -k ln 2 rounded, sin 0 = 0, cos 0 = 1 */
    ck_assert(nd_philox_log(1.0) == 0.0);
    ck_assert(nd_philox_log(0x1p-53) == (double)(-53.0L * 0.693147180559945309417232121458176568L));
    double sn, cs;
    nd_philox_sincos(0.0, &sn, &cs);
    ck_assert(sn == 0.0 && cs == 1.0);
    nd_philox_sincos(M_PI, &sn, &cs); /* sin of the double nearest pi, all digits */
    ck_assert_msg(sn == 0x1.1a62633145c07p-53 && cs == -1.0, "sin(pi) %a cos(pi) %a", sn, cs);
}
END_TEST

/* The arithmetic helpers round every operation: a*b + c through them is
 * not fused (with an FMA the result would be 2^-60), so the host build
 * does not contract (see "NO FUSED MULTIPLY-ADD" in src/shared/philox.h). */
START_TEST(test_helpers_do_not_fuse)
{
    volatile double a = 1.0 + 0x1p-30, c = -(1.0 + 0x1p-29);
    ck_assert(nd_philox_add(nd_philox_mul(a, a), c) == 0.0);
    ck_assert(nd_philox_sub(nd_philox_mul(a, a), -c) == 0.0);
    ck_assert(nd_philox_div(1.0, 3.0) == 1.0 / 3.0 && nd_philox_sqrt(2.0) == 0x1.6a09e667f3bcdp+0);
}
END_TEST

/* Moments and tails of 10^6 standard normals per float dtype after the
 * switch to the header's ln/sin/cos: mean, variance, skewness, kurtosis
 * and P(|z| > 1, 2, 3) within 5 sigma of the normal's values. */
START_TEST(test_normal_moments)
{
    const int64_t n = 1000000;
    const nd_dtype ts[] = {ND_FLOAT64, ND_FLOAT32, ND_BFLOAT16, ND_FLOAT16};
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 0x5eed));
    for (int k = 0; k < 4; k++) {
        nd_array *a = gen(r, 1, ts[k], n, 0.0, 1.0);
        double *v = values(a);
        double m1 = 0, m2 = 0, m3 = 0, m4 = 0, mx = 0;
        int64_t tail[3] = {0, 0, 0};
        for (int64_t i = 0; i < n; i++) m1 += v[i];
        m1 /= (double)n;
        for (int64_t i = 0; i < n; i++) {
            double d = v[i] - m1, d2 = d * d;
            m2 += d2, m3 += d2 * d, m4 += d2 * d2;
            for (int q = 0; q < 3; q++) tail[q] += fabs(v[i]) > q + 1;
            mx = fmax(mx, fabs(v[i]));
        }
        m2 /= (double)n, m3 /= (double)n, m4 /= (double)n;
        double skew = m3 / pow(m2, 1.5), kurt = m4 / (m2 * m2), sn = sqrt((double)n);
        const char *name = nd_dtype_name(ts[k]);
        /* the 16-bit grids add a variance of about ulp^2/12 (< 1e-5 at 1) */
        ck_assert_msg(fabs(m1) < 5 / sn, "%s mean %g", name, m1);
        ck_assert_msg(fabs(m2 - 1) < 5 * sqrt(2.0) / sn + 1e-4, "%s variance %g", name, m2);
        ck_assert_msg(fabs(skew) < 5 * sqrt(6.0) / sn, "%s skewness %g", name, skew);
        ck_assert_msg(fabs(kurt - 3) < 5 * sqrt(96.0) / sn, "%s kurtosis %g", name, kurt);
        /* a value above the grid point q rounds from z > q + half a grid
         * step (mantissa bits 52, 23, 7, 10) */
        const int mant[4] = {52, 23, 7, 10};
        for (int q = 1; q <= 3; q++) {
            double half_step = ldexp(1.0, (q >= 2) - mant[k] - 1);
            double p = erfc((q + half_step) / sqrt(2.0)), f = (double)tail[q - 1] / (double)n;
            ck_assert_msg(fabs(f - p) < 5 * sqrt(p * (1 - p) / (double)n), "%s P(|z| > %d) = %g, want %g", name, q, f,
                          p);
        }
        /* u1 >= 2^-53 (2^-32 for 16/32-bit dtypes) bounds |z| */
        ck_assert_msg(mx <= (k == 0 ? 8.58 : 6.69), "%s max |z| %g", name, mx);
        free(v);
        nd_release(a);
    }
    nd_rng_destroy(r);
}
END_TEST

TCase *random_tcase_integers(void); /* tests/test_random_int.c */

Suite *suite_random(void)
{
    Suite *s = suite_create("random");
    TCase *tc = tcase_create("philox");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_philox_kat);
    tcase_add_test(tc, test_known_values);
    tcase_add_test(tc, test_reproducible);
    tcase_add_test(tc, test_thread_independent);
    tcase_add_test(tc, test_statistics);
    tcase_add_test(tc, test_range);
    tcase_add_test(tc, test_out_and_shapes);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_transcendental_accuracy);
    tcase_add_test(tc, test_helpers_do_not_fuse);
    tcase_add_test(tc, test_normal_moments);
    suite_add_tcase(s, random_tcase_integers());
    suite_add_tcase(s, tc);
    return s;
}
