/* Philox4x32-10 and nd_random_uniform / nd_random_normal. Expected stream
 * values were computed with an independent Python implementation of
 * Random123's Philox4x32-10 and the transforms documented in src/philox.h. */
#include <stdio.h>

#include "half.h"
#include "philox.h"
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
    suite_add_tcase(s, tc);
    return s;
}
