/* nd_random_integers and nd_random_bernoulli: the values against the
 * definition in src/shared/philox.h recomputed here from the raw Philox blocks
 * (nd_philox_block, checked against Random123's known answers in
 * tests/test_random.c) with 128-bit arithmetic written independently of
 * the library's (a 192-bit product by 32-bit limbs), the same cases on the
 * CPU and on cuda:0 when there is one (the emulated GPU in make emu-test),
 * bit for bit, ranges, a chi-square check, the offset and the errors. */
#include <stdio.h>

#include "shared/philox.h"
#include "test_util.h"

/* floor(x * span / 2^bits) for x of 64 (bits 64) or 128 bits (hi:lo, bits 128), by 32-bit limbs */
static uint64_t ref_scale(uint64_t hi, uint64_t lo, uint64_t span, int wide)
{
    uint32_t x[4] = {(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi, (uint32_t)(hi >> 32)};
    uint32_t s[2] = {(uint32_t)span, (uint32_t)(span >> 32)};
    uint32_t p[6] = {0};
    int nx = wide ? 4 : 2;
    if (!wide) x[0] = (uint32_t)hi, x[1] = (uint32_t)(hi >> 32); /* narrow: the one 64-bit draw is hi */
    for (int i = 0; i < nx; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 2; j++) {
            uint64_t t = (uint64_t)x[i] * s[j] + p[i + j] + carry;
            p[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        for (int k = i + 2; carry && k < 6; k++) {
            uint64_t t = (uint64_t)p[k] + carry;
            p[k] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    int sh = wide ? 4 : 2; /* limbs dropped: 128 or 64 bits */
    return (uint64_t)p[sh] | (uint64_t)p[sh + 1] << 32;
}

/* Element i of an integers call as the definition says (as uint64 before truncation). */
static uint64_t ref_int(uint64_t seed, uint64_t offset, int64_t i, int64_t low, uint64_t span)
{
    int wide = span > ((uint64_t)1 << 32);
    int epb = wide ? 1 : 2;
    uint32_t w[4];
    nd_philox_block(seed, offset + (uint64_t)(i / epb), w);
    uint64_t k;
    if (wide) k = ref_scale((uint64_t)w[0] << 32 | w[1], (uint64_t)w[2] << 32 | w[3], span, 1);
    else if (i % 2 == 0) k = ref_scale((uint64_t)w[0] << 32 | w[1], 0, span, 0);
    else k = ref_scale((uint64_t)w[2] << 32 | w[3], 0, span, 0);
    return (uint64_t)low + k;
}

static uint64_t load_bits(const unsigned char *p, size_t is)
{
    uint64_t v = 0;
    memcpy(&v, p, is); /* little endian */
    return v;
}

static unsigned char *fetch(const nd_array *a)
{
    size_t nb = (size_t)nd_nbytes(a);
    unsigned char *h = malloc(nb + 1);
    ND_OK_OR_FAIL(nd_copy_to_host(h, a, nb));
    return h;
}

typedef struct {
    nd_dtype t;
    int64_t low, high;
} int_case;

static const int_case CASES[] = {
    {ND_BOOL, 0, 2},           {ND_INT8, -128, 128},       {ND_INT8, -5, 7},          {ND_UINT8, 0, 256},
    {ND_UINT8, 3, 4},          {ND_INT16, -1000, 30000},   {ND_UINT16, 0, 65536},     {ND_INT32, INT32_MIN, INT32_MAX},
    {ND_UINT32, 0, 4294967296LL}, {ND_INT64, -3, 3},       {ND_INT64, 0, 4294967296LL}, /* span 2^32: narrow */
    {ND_INT64, 0, 4294967297LL},  /* 2^32 + 1: wide */     {ND_INT64, INT64_MIN, INT64_MAX},
    {ND_UINT64, 0, INT64_MAX}, {ND_INT64, -1000000000000LL, 1000000000000LL},
};
#define NCASES (int)(sizeof CASES / sizeof *CASES)

static void run_integers_definition(nd_device dev)
{
    static const int64_t sizes[] = {1, 2, 3, 7, 1000, 4099};
    static const uint64_t seeds[] = {0, 42, 0xdeadbeefcafebabeull};
    static const uint64_t offsets[] = {0, 5, UINT64_MAX - 1};
    for (int c = 0; c < NCASES; c++)
        for (int si = 0; si < 6; si++) {
            const int_case *k = &CASES[c];
            int64_t n = sizes[si];
            uint64_t seed = seeds[(c + si) % 3], off = offsets[(c * 7 + si) % 3];
            nd_rng *r = NULL;
            ND_OK_OR_FAIL(nd_rng_create(&r, seed));
            ND_OK_OR_FAIL(nd_rng_set_offset(r, off));
            nd_array *a = NULL;
            ND_OK_OR_FAIL(nd_random_integers(&a, r, k->t, 1, &n, k->low, k->high, dev));
            ck_assert_int_eq(nd_dtype_of(a), k->t);
            uint64_t span = (uint64_t)k->high - (uint64_t)k->low;
            int64_t epb = span > ((uint64_t)1 << 32) ? 1 : 2;
            ck_assert_uint_eq(nd_rng_offset(r), off + (uint64_t)((n + epb - 1) / epb));
            unsigned char *h = fetch(a);
            size_t is = nd_dtype_size(k->t);
            uint64_t mask = is == 8 ? UINT64_MAX : (((uint64_t)1 << (8 * is)) - 1);
            for (int64_t i = 0; i < n; i++) {
                uint64_t want = ref_int(seed, off, i, k->low, span);
                uint64_t got = load_bits(h + i * (int64_t)is, is);
                ck_assert_msg(got == (want & mask), "%s [%lld, %lld) n %lld element %lld: got %llu want %llu",
                              nd_dtype_name(k->t), (long long)k->low, (long long)k->high, (long long)n, (long long)i,
                              (unsigned long long)got, (unsigned long long)(want & mask));
                /* in range: as a signed or unsigned value of the dtype */
                ck_assert(want - (uint64_t)k->low < span);
            }
            free(h);
            nd_release(a);
            nd_rng_destroy(r);
        }
}

START_TEST(integers_follow_the_definition_cpu) { run_integers_definition(nd_cpu()); }
END_TEST
START_TEST(integers_follow_the_definition_cuda) { run_integers_definition(nd_cuda(0)); }
END_TEST

/* chi-square over 10 and 7 bins; and the top bin of a full uint8 range is reached */
START_TEST(integers_statistics)
{
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 1234));
    const int64_t n = 200000;
    static const int64_t bins[] = {10, 7};
    for (int b = 0; b < 2; b++) {
        nd_array *a = NULL;
        ND_OK_OR_FAIL(nd_random_integers(&a, r, ND_INT32, 1, &n, -3, -3 + bins[b], nd_default_device()));
        int32_t *v = (int32_t *)fetch(a);
        int64_t cnt[16] = {0};
        for (int64_t i = 0; i < n; i++) {
            ck_assert(v[i] >= -3 && v[i] < -3 + bins[b]);
            cnt[v[i] + 3]++;
        }
        double e = (double)n / (double)bins[b], chi = 0;
        for (int k = 0; k < bins[b]; k++) chi += (cnt[k] - e) * (cnt[k] - e) / e;
        /* 9 or 6 degrees of freedom: P(chi2 > 35) < 1e-4 */
        ck_assert_msg(chi < 35.0, "chi-square %g over %lld bins", chi, (long long)bins[b]);
        free(v);
        nd_release(a);
    }
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_random_integers(&a, r, ND_UINT8, 1, &n, 0, 256, nd_default_device()));
    unsigned char *u = fetch(a);
    int seen0 = 0, seen255 = 0;
    for (int64_t i = 0; i < n; i++) seen0 |= u[i] == 0, seen255 |= u[i] == 255;
    ck_assert(seen0 && seen255);
    free(u);
    nd_release(a);
    nd_rng_destroy(r);
}
END_TEST

/* the GPU gives the CPU's integers, bit for bit, for every dtype, and a
 * fresh result equals a given out of another dtype after the cast */
START_TEST(integers_cpu_equals_cuda)
{
    const int64_t shape[2] = {37, 53};
    for (int c = 0; c < NCASES; c++) {
        nd_rng *r1 = NULL, *r2 = NULL;
        ND_OK_OR_FAIL(nd_rng_create(&r1, 99 + (uint64_t)c));
        ND_OK_OR_FAIL(nd_rng_create(&r2, 99 + (uint64_t)c));
        nd_array *a = NULL, *g = NULL;
        ND_OK_OR_FAIL(nd_random_integers(&a, r1, CASES[c].t, 2, shape, CASES[c].low, CASES[c].high, nd_cpu()));
        ND_OK_OR_FAIL(nd_random_integers(&g, r2, CASES[c].t, 2, shape, CASES[c].low, CASES[c].high, nd_cuda(0)));
        unsigned char *ha = fetch(a), *hg = fetch(g);
        ck_assert_msg(memcmp(ha, hg, (size_t)nd_nbytes(a)) == 0, "case %d (%s): cuda:0 differs from the CPU", c,
                      nd_dtype_name(CASES[c].t));
        ck_assert_uint_eq(nd_rng_offset(r1), nd_rng_offset(r2));
        free(ha);
        free(hg);
        nd_release(a);
        nd_release(g);
        nd_rng_destroy(r1);
        nd_rng_destroy(r2);
    }
}
END_TEST

START_TEST(integers_out_and_errors)
{
    nd_device dev = nd_default_device();
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 7));
    const int64_t n = 64;
    nd_array *a = NULL;
    ND_EXPECT_ERR(nd_random_integers(&a, r, ND_FLOAT32, 1, &n, 0, 10, dev), ND_ERR_DTYPE, "not an integer dtype");
    ND_EXPECT_ERR(nd_random_integers(&a, r, ND_INT32, 1, &n, 5, 5, dev), ND_ERR_INVALID, "high <= low");
    ND_EXPECT_ERR(nd_random_integers(&a, r, ND_UINT8, 1, &n, -1, 10, dev), ND_ERR_INVALID, "low -1 is out of bounds for uint8");
    ND_EXPECT_ERR(nd_random_integers(&a, r, ND_INT8, 1, &n, 0, 129, dev), ND_ERR_INVALID, "high 129 is out of bounds for int8");
    ND_EXPECT_ERR(nd_random_integers(&a, r, ND_BOOL, 1, &n, 0, 3, dev), ND_ERR_INVALID, "out of bounds for bool");
    ND_EXPECT_ERR(nd_random_integers(NULL, r, ND_INT32, 1, &n, 0, 3, dev), ND_ERR_INVALID, "out");
    ND_EXPECT_ERR(nd_random_integers(&a, NULL, ND_INT32, 1, &n, 0, 3, dev), ND_ERR_INVALID, "rng");
    ck_assert_ptr_null(a);
    ck_assert_uint_eq(nd_rng_offset(r), 0); /* failures do not advance */
    /* a given out of a wider dtype, strided: values generated as int8, then cast */
    nd_array *big = NULL, *view = NULL;
    const int64_t two_n = 2 * n;
    ND_OK_OR_FAIL(nd_full(&big, ND_INT64, 1, &two_n, nd_scalar_int(0x7f7f7f7f), dev));
    nd_range rg = {1, two_n, 2};
    ND_OK_OR_FAIL(nd_slice(&view, big, 1, &rg));
    nd_array *keep = view;
    ND_OK_OR_FAIL(nd_random_integers(&view, r, ND_INT8, 1, &n, -100, 100, dev));
    ck_assert_ptr_eq(view, keep);
    int64_t *h = (int64_t *)fetch(big);
    for (int64_t i = 0; i < n; i++) {
        ck_assert_int_eq(h[2 * i], 0x7f7f7f7f); /* untouched */
        uint64_t want = ref_int(7, 0, i, -100, 200);
        ck_assert_int_eq(h[2 * i + 1], (int64_t)(int8_t)(uint8_t)want);
    }
    free(h);
    nd_release(view);
    nd_release(big);
    /* empty */
    const int64_t zero = 0;
    ND_OK_OR_FAIL(nd_random_integers(&a, r, ND_INT16, 1, &zero, 0, 3, dev));
    ck_assert_int_eq(nd_size(a), 0);
    nd_release(a);
    nd_rng_destroy(r);
}
END_TEST

/* bernoulli = float64 uniform < p, element by element, offset as the uniform's */
START_TEST(bernoulli_definition)
{
    nd_device dev = nd_default_device();
    static const double ps[] = {0.0, 1e-3, 0.3, 0.5, 0.999, 1.0};
    const int64_t shape[2] = {31, 29};
    const int64_t n = shape[0] * shape[1];
    for (int k = 0; k < 6; k++) {
        nd_rng *r = NULL, *ru = NULL;
        ND_OK_OR_FAIL(nd_rng_create(&r, 5 + (uint64_t)k));
        ND_OK_OR_FAIL(nd_rng_create(&ru, 5 + (uint64_t)k));
        nd_array *b = NULL, *u = NULL, *f = NULL;
        ND_OK_OR_FAIL(nd_random_bernoulli(&b, r, ND_BOOL, 2, shape, ps[k], dev));
        ND_OK_OR_FAIL(nd_random_uniform(&u, ru, ND_FLOAT64, 2, shape, 0.0, 1.0, nd_cpu()));
        ck_assert_uint_eq(nd_rng_offset(r), nd_rng_offset(ru));
        ND_OK_OR_FAIL(nd_rng_set_offset(r, 0));
        ND_OK_OR_FAIL(nd_random_bernoulli(&f, r, ND_FLOAT32, 2, shape, ps[k], dev));
        ck_assert_int_eq(nd_dtype_of(f), ND_FLOAT32);
        unsigned char *hb = fetch(b);
        double *hu = (double *)fetch(u);
        float *hf = (float *)fetch(f);
        int64_t ones = 0;
        for (int64_t i = 0; i < n; i++) {
            ck_assert_int_eq(hb[i], hu[i] < ps[k]);
            ck_assert(hf[i] == (float)(hu[i] < ps[k]));
            ones += hb[i];
        }
        if (ps[k] == 0.0) ck_assert_int_eq(ones, 0);
        if (ps[k] == 1.0) ck_assert_int_eq(ones, n);
        if (ps[k] == 0.5) ck_assert(ones > n / 2 - 5 * 15 && ones < n / 2 + 5 * 15); /* sd ~ 15 */
        free(hb);
        free(hu);
        free(hf);
        nd_release(b);
        nd_release(u);
        nd_release(f);
        nd_rng_destroy(r);
        nd_rng_destroy(ru);
    }
}
END_TEST

START_TEST(bernoulli_array_and_errors)
{
    nd_device dev = nd_default_device();
    const int64_t n = 1000;
    double *pv = malloc(n * sizeof *pv);
    for (int64_t i = 0; i < n; i++) pv[i] = (double)(i % 11) / 10.0; /* 0, 0.1, ..., 1.0 */
    nd_array *p = NULL, *b = NULL, *u = NULL;
    ND_OK_OR_FAIL(nd_from_host(&p, pv, ND_FLOAT64, 1, &n, dev));
    nd_rng *r = NULL, *ru = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 77));
    ND_OK_OR_FAIL(nd_rng_create(&ru, 77));
    ND_OK_OR_FAIL(nd_random_bernoulli_array(&b, r, p, ND_INT32));
    ck_assert_int_eq(nd_dtype_of(b), ND_INT32);
    ND_OK_OR_FAIL(nd_random_uniform(&u, ru, ND_FLOAT64, 1, &n, 0.0, 1.0, nd_cpu()));
    int32_t *hb = (int32_t *)fetch(b);
    double *hu = (double *)fetch(u);
    for (int64_t i = 0; i < n; i++) ck_assert_int_eq(hb[i], hu[i] < pv[i]);
    free(hb);
    free(hu);
    nd_release(b);
    b = NULL;
    ND_EXPECT_ERR(nd_random_bernoulli(&b, r, ND_BOOL, 1, &n, 1.5, dev), ND_ERR_INVALID, "must be in [0, 1]");
    ND_EXPECT_ERR(nd_random_bernoulli(&b, r, ND_BOOL, 1, &n, NAN, dev), ND_ERR_INVALID, "must be in [0, 1]");
    nd_array *pi = NULL;
    ND_OK_OR_FAIL(nd_zeros(&pi, ND_INT32, 1, &n, dev));
    ND_EXPECT_ERR(nd_random_bernoulli_array(&b, r, pi, ND_BOOL), ND_ERR_DTYPE, "float dtype");
    /* a given out of the wrong shape: refused, offset unchanged */
    uint64_t off = nd_rng_offset(r);
    nd_array *wrong = NULL;
    const int64_t m = 7;
    ND_OK_OR_FAIL(nd_zeros(&wrong, ND_BOOL, 1, &m, dev));
    nd_array *w0 = wrong;
    ck_assert_int_ne(nd_random_bernoulli(&wrong, r, ND_BOOL, 1, &n, 0.5, dev), ND_OK);
    ck_assert_ptr_eq(wrong, w0);
    ck_assert_uint_eq(nd_rng_offset(r), off);
    ck_assert_ptr_null(b);
    nd_release(wrong);
    nd_release(pi);
    nd_release(p);
    nd_release(u);
    free(pv);
    nd_rng_destroy(r);
    nd_rng_destroy(ru);
}
END_TEST

TCase *random_tcase_integers(void)
{
    TCase *tc = tcase_create("integers_bernoulli");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, integers_follow_the_definition_cpu);
    if (nd_test_gpu_count() > 0) {
        tcase_add_test(tc, integers_follow_the_definition_cuda);
        tcase_add_test(tc, integers_cpu_equals_cuda);
    } else {
        printf("random integers: cuda backend SKIPPED (no GPU)\n");
    }
    tcase_add_test(tc, integers_statistics);
    tcase_add_test(tc, integers_out_and_errors);
    tcase_add_test(tc, bernoulli_definition);
    tcase_add_test(tc, bernoulli_array_and_errors);
    return tc;
}
