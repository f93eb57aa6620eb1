/* The compositions: nd_unique (NumPy's unique_all),
 * nd_repeat_array and the sampling functions nd_random_permutation[_of] /
 * nd_random_choice: references computed here
 * on the host (a sort of (value, index) pairs), the same cases on the CPU
 * and on cuda:0 when there is one (the emulated GPU in make emu-test), bit
 * for bit between the two, and the error statuses. Expected values of the
 * small cases come from NumPy 2.4 (np.unique(..., return_index=True,
 * return_inverse=True, return_counts=True)). */
#include <stdio.h>

#include "test_util.h"

static void *fetch(const nd_array *a)
{
    size_t nb = (size_t)nd_nbytes(a);
    void *h = malloc(nb + 8);
    ND_OK_OR_FAIL(nd_copy_to_host(h, a, nb));
    return h;
}

/* NumPy 2.4: np.unique([3, 1, 2, 3, 1, 5, 2, 2], return_index, return_inverse, return_counts) */
static void numpy_small(nd_device dev)
{
    const int64_t x[8] = {3, 1, 2, 3, 1, 5, 2, 2};
    nd_array *a = NULL, *v = NULL, *ix = NULL, *inv = NULL, *c = NULL;
    const int64_t shape[2] = {2, 4};
    ND_OK_OR_FAIL(nd_from_host(&a, x, ND_INT64, 2, shape, dev));
    ND_OK_OR_FAIL(nd_unique(&v, &ix, &inv, &c, a));
    static const int64_t wv[4] = {1, 2, 3, 5}, wi[4] = {1, 2, 0, 5}, winv[8] = {2, 0, 1, 2, 0, 3, 1, 1},
                         wc[4] = {2, 3, 2, 1};
    ck_assert_int_eq(nd_size(v), 4);
    ck_assert_int_eq(nd_ndim(inv), 2); /* NumPy 2: inverse has a's shape */
    int64_t *hv = fetch(v), *hi = fetch(ix), *hinv = fetch(inv), *hc = fetch(c);
    for (int k = 0; k < 4; k++) {
        ck_assert_int_eq(hv[k], wv[k]);
        ck_assert_int_eq(hi[k], wi[k]);
        ck_assert_int_eq(hc[k], wc[k]);
    }
    for (int k = 0; k < 8; k++) ck_assert_int_eq(hinv[k], winv[k]);
    free(hv), free(hi), free(hinv), free(hc);
    nd_release(a), nd_release(v), nd_release(ix), nd_release(inv), nd_release(c);
    a = v = ix = inv = c = NULL;

    /* floats: NaNs collapse into one (equal_nan=True), sorted last; -0.0 == 0.0
     * NumPy 2.4: np.unique([nan, 1.0, -0.0, nan, 0.0, 1.0], return_index=True, return_counts=True)
     *   -> values [-0., 1., nan], index [2, 1, 0], counts [2, 2, 2] */
    const double f[6] = {NAN, 1.0, -0.0, NAN, 0.0, 1.0};
    const int64_t six = 6;
    ND_OK_OR_FAIL(nd_from_host(&a, f, ND_FLOAT64, 1, &six, dev));
    ND_OK_OR_FAIL(nd_unique(&v, &ix, NULL, &c, a));
    ck_assert_int_eq(nd_size(v), 3);
    double *fv = fetch(v);
    int64_t *fi = fetch(ix), *fc = fetch(c);
    ck_assert(fv[0] == 0.0 && signbit(fv[0]) && fv[1] == 1.0 && isnan(fv[2]));
    ck_assert(fi[0] == 2 && fi[1] == 1 && fi[2] == 0);
    ck_assert(fc[0] == 2 && fc[1] == 2 && fc[2] == 2);
    free(fv), free(fi), free(fc);
    nd_release(a), nd_release(v), nd_release(ix), nd_release(c);
}

typedef struct {
    double v;
    int64_t i;
} vi;

static int vi_cmp(const void *x, const void *y)
{
    const vi *a = x, *b = y;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* random arrays of several dtypes (few distinct values) against a host reference */
static void random_cases(nd_device dev)
{
    static const nd_dtype dts[] = {ND_INT8, ND_UINT16, ND_INT32, ND_INT64, ND_FLOAT32, ND_FLOAT64, ND_BOOL, ND_FLOAT16};
    static const int64_t sizes[] = {0, 1, 2, 17, 1000, 5000};
    uint64_t s = 12345;
    for (int d = 0; d < 8; d++)
        for (int k = 0; k < 6; k++) {
            int64_t n = sizes[k];
            nd_array *h = NULL, *a = NULL, *af = NULL;
            ND_OK_OR_FAIL(nd_empty(&h, ND_FLOAT64, 1, &n, nd_cpu()));
            double *hv = (double *)nd_data(h);
            int range = 3 + k * 7;
            for (int64_t i = 0; i < n; i++) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                hv[i] = (double)((int)(s >> 40) % range) - (dts[d] == ND_UINT16 || dts[d] == ND_BOOL ? 0 : range / 2);
                if (dts[d] == ND_BOOL) hv[i] = hv[i] > range / 2;
                if (dts[d] == ND_UINT16 && hv[i] < 0) hv[i] = -hv[i];
            }
            ND_OK_OR_FAIL(nd_astype(&af, h, dts[d]));
            ND_OK_OR_FAIL(nd_to_device(&a, af, dev));
            nd_array *v = NULL, *ix = NULL, *inv = NULL, *c = NULL;
            ND_OK_OR_FAIL(nd_unique(&v, &ix, &inv, &c, a));
            ck_assert_int_eq(nd_dtype_of(v), dts[d]);
            ck_assert_int_eq(nd_dtype_of(ix), ND_INT64);
            /* reference */
            vi *r = malloc((size_t)(n + 1) * sizeof *r);
            for (int64_t i = 0; i < n; i++) r[i].v = hv[i], r[i].i = i;
            qsort(r, (size_t)n, sizeof *r, vi_cmp);
            int64_t nu = 0;
            for (int64_t i = 0; i < n; i++) nu += i == 0 || r[i].v != r[i - 1].v;
            ck_assert_int_eq(nd_size(v), nu);
            nd_array *v64 = NULL;
            ND_OK_OR_FAIL(nd_astype(&v64, v, ND_FLOAT64));
            double *gv = fetch(v64);
            int64_t *gi = fetch(ix), *gc = fetch(c), *ginv = fetch(inv);
            int64_t u = -1;
            for (int64_t i = 0; i < n; i++) {
                if (i == 0 || r[i].v != r[i - 1].v) {
                    u++;
                    ck_assert_msg(gv[u] == r[i].v, "%s n %lld value %lld", nd_dtype_name(dts[d]), (long long)n, (long long)u);
                    ck_assert_int_eq(gi[u], r[i].i);
                    int64_t cnt = 0;
                    while (i + cnt < n && r[i + cnt].v == r[i].v) cnt++;
                    ck_assert_int_eq(gc[u], cnt);
                }
                ck_assert_int_eq(ginv[r[i].i], u);
            }
            free(r), free(gv), free(gi), free(gc), free(ginv);
            nd_release(v64), nd_release(v), nd_release(ix), nd_release(inv), nd_release(c);
            nd_release(h), nd_release(af), nd_release(a);
        }
}

static void unique_errors(nd_device dev)
{
    nd_array *a = NULL, *v = NULL;
    const int64_t n = 4;
    ND_OK_OR_FAIL(nd_zeros(&a, ND_INT32, 1, &n, dev));
    ND_EXPECT_ERR(nd_unique(NULL, NULL, NULL, NULL, a), ND_ERR_INVALID, "no output requested");
    ND_EXPECT_ERR(nd_unique(&v, NULL, NULL, NULL, NULL), ND_ERR_INVALID, "a");
    /* a given values out of the wrong shape is refused and left alone */
    nd_array *w = NULL;
    const int64_t three = 3;
    ND_OK_OR_FAIL(nd_zeros(&w, ND_INT32, 1, &three, dev));
    nd_array *w0 = w;
    ck_assert_int_eq(nd_unique(&w, NULL, NULL, NULL, a), ND_ERR_SHAPE);
    ck_assert_ptr_eq(w, w0);
    nd_release(w), nd_release(a);
}

START_TEST(unique_cpu) { numpy_small(nd_cpu()); random_cases(nd_cpu()); unique_errors(nd_cpu()); }
END_TEST
START_TEST(unique_cuda) { numpy_small(nd_cuda(0)); random_cases(nd_cuda(0)); unique_errors(nd_cuda(0)); }
END_TEST

/* ---------------- permutation and choice ---------------- */

static void check_perm(const int64_t *p, int64_t n)
{
    char *seen = calloc((size_t)n + 1, 1);
    for (int64_t i = 0; i < n; i++) {
        ck_assert(p[i] >= 0 && p[i] < n);
        ck_assert_msg(!seen[p[i]], "index %lld twice", (long long)p[i]);
        seen[p[i]] = 1;
    }
    free(seen);
}

static void sampling(nd_device dev)
{
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 2024));
    /* permutation: a permutation, the offset advances by n blocks, not the identity */
    const int64_t n = 3001;
    nd_array *p = NULL;
    ND_OK_OR_FAIL(nd_random_permutation(&p, r, n, dev));
    ck_assert_uint_eq(nd_rng_offset(r), (uint64_t)n);
    int64_t *hp = fetch(p);
    check_perm(hp, n);
    int64_t fixed = 0;
    for (int64_t i = 0; i < n; i++) fixed += hp[i] == i;
    ck_assert_int_lt(fixed, 10); /* expected 1 */
    free(hp);
    nd_release(p);
    /* permutation_of: rows of a 2-D array */
    nd_array *m = NULL, *pm = NULL;
    ND_OK_OR_FAIL(nd_arange(&m, ND_INT32, 0, 40, 1, dev));
    nd_array *m2 = NULL;
    const int64_t s2[2] = {10, 4};
    ND_OK_OR_FAIL(nd_reshape(&m2, m, 2, s2));
    ND_OK_OR_FAIL(nd_random_permutation_of(&pm, r, m2));
    int32_t *hm = fetch(pm);
    int64_t rows[10];
    for (int i = 0; i < 10; i++) {
        ck_assert(hm[4 * i] % 4 == 0);
        for (int j = 1; j < 4; j++) ck_assert_int_eq(hm[4 * i + j], hm[4 * i] + j);
        rows[i] = hm[4 * i] / 4;
    }
    check_perm(rows, 10);
    free(hm);
    nd_release(m), nd_release(m2), nd_release(pm);

    /* choice with replacement, uniform: in range */
    const int64_t k = 20000;
    nd_array *c = NULL;
    ND_OK_OR_FAIL(nd_random_choice(&c, r, NULL, 7, 1, &k, true, NULL, dev));
    int64_t *hc = fetch(c);
    for (int64_t i = 0; i < k; i++) ck_assert(hc[i] >= 0 && hc[i] < 7);
    free(hc);
    nd_release(c);
    /* with probabilities: zero entries never picked, frequencies close */
    const double pv[5] = {0.1, 0.0, 0.6, 0.3, 0.0};
    const int64_t five = 5;
    nd_array *pa = NULL;
    ND_OK_OR_FAIL(nd_from_host(&pa, pv, ND_FLOAT64, 1, &five, dev));
    c = NULL;
    ND_OK_OR_FAIL(nd_random_choice(&c, r, NULL, 5, 1, &k, true, pa, dev));
    hc = fetch(c);
    int64_t cnt[5] = {0};
    for (int64_t i = 0; i < k; i++) {
        ck_assert(hc[i] >= 0 && hc[i] < 5);
        cnt[hc[i]]++;
    }
    ck_assert_int_eq(cnt[1], 0);
    ck_assert_int_eq(cnt[4], 0);
    for (int j = 0; j < 5; j++) /* 5 sigma */
        ck_assert_msg(fabs((double)cnt[j] - pv[j] * k) <= 5 * sqrt(pv[j] * (1 - pv[j]) * k) + 1, "bin %d: %lld", j,
                      (long long)cnt[j]);
    free(hc);
    nd_release(c);
    /* without replacement: distinct; with p: only nonzero entries */
    const int64_t three = 3;
    c = NULL;
    ND_OK_OR_FAIL(nd_random_choice(&c, r, NULL, 50, 1, &three, false, NULL, dev));
    hc = fetch(c);
    ck_assert(hc[0] != hc[1] && hc[1] != hc[2] && hc[0] != hc[2]);
    free(hc);
    nd_release(c);
    c = NULL;
    ND_OK_OR_FAIL(nd_random_choice(&c, r, NULL, 5, 1, &three, false, pa, dev));
    hc = fetch(c);
    for (int j = 0; j < 3; j++) ck_assert(hc[j] == 0 || hc[j] == 2 || hc[j] == 3);
    ck_assert(hc[0] != hc[1] && hc[1] != hc[2] && hc[0] != hc[2]);
    free(hc);
    nd_release(c);
    /* elements of an array */
    nd_array *pop = NULL;
    const double popv[4] = {1.5, 2.5, 3.5, 4.5};
    const int64_t four = 4, two = 2;
    ND_OK_OR_FAIL(nd_from_host(&pop, popv, ND_FLOAT64, 1, &four, dev));
    c = NULL;
    ND_OK_OR_FAIL(nd_random_choice(&c, r, pop, 0, 1, &two, true, NULL, dev));
    ck_assert_int_eq(nd_dtype_of(c), ND_FLOAT64);
    double *hd = fetch(c);
    for (int j = 0; j < 2; j++) ck_assert(hd[j] == 1.5 || hd[j] == 2.5 || hd[j] == 3.5 || hd[j] == 4.5);
    free(hd);
    nd_release(c);
    /* errors: the offset does not move */
    uint64_t off = nd_rng_offset(r);
    c = NULL;
    ND_EXPECT_ERR(nd_random_choice(&c, r, NULL, 5, 1, &k, false, NULL, dev), ND_ERR_INVALID,
                  "Cannot take a larger sample");
    ND_EXPECT_ERR(nd_random_choice(&c, r, NULL, 5, 1, &five, false, pa, dev), ND_ERR_INVALID,
                  "Fewer non-zero entries in p");
    const double bad[5] = {0.5, 0.5, 0.5, 0.0, 0.0};
    nd_array *pb = NULL;
    ND_OK_OR_FAIL(nd_from_host(&pb, bad, ND_FLOAT64, 1, &five, dev));
    ND_EXPECT_ERR(nd_random_choice(&c, r, NULL, 5, 1, &two, true, pb, dev), ND_ERR_INVALID, "do not sum to 1");
    ND_EXPECT_ERR(nd_random_choice(&c, r, NULL, 4, 1, &two, true, pa, dev), ND_ERR_SHAPE, "same size");
    ND_EXPECT_ERR(nd_random_permutation(&c, r, -1, dev), ND_ERR_INVALID, "non-negative");
    ck_assert_ptr_null(c);
    ck_assert_uint_eq(nd_rng_offset(r), off);
    nd_release(pb), nd_release(pa), nd_release(pop);
    nd_rng_destroy(r);
}

START_TEST(sampling_cpu) { sampling(nd_cpu()); }
END_TEST
START_TEST(sampling_cuda) { sampling(nd_cuda(0)); }
END_TEST

/* the same seed gives the same samples on the CPU and the GPU */
START_TEST(sampling_cpu_equals_cuda)
{
    const double pv[6] = {0.05, 0.25, 0.0, 0.3, 0.15, 0.25};
    const int64_t six = 6, k = 999, three = 3;
    for (int mode = 0; mode < 5; mode++) {
        nd_array *res[2] = {NULL, NULL};
        for (int d = 0; d < 2; d++) {
            nd_device dev = d ? nd_cuda(0) : nd_cpu();
            nd_rng *r = NULL;
            ND_OK_OR_FAIL(nd_rng_create(&r, 31337));
            nd_array *pa = NULL;
            ND_OK_OR_FAIL(nd_from_host(&pa, pv, ND_FLOAT64, 1, &six, dev));
            switch (mode) {
            case 0: ND_OK_OR_FAIL(nd_random_permutation(&res[d], r, 5000, dev)); break;
            case 1: ND_OK_OR_FAIL(nd_random_choice(&res[d], r, NULL, 6, 1, &k, true, NULL, dev)); break;
            case 2: ND_OK_OR_FAIL(nd_random_choice(&res[d], r, NULL, 6, 1, &k, true, pa, dev)); break;
            case 3: ND_OK_OR_FAIL(nd_random_choice(&res[d], r, NULL, 600, 1, &three, false, NULL, dev)); break;
            default: ND_OK_OR_FAIL(nd_random_choice(&res[d], r, NULL, 6, 1, &three, false, pa, dev)); break;
            }
            nd_release(pa);
            nd_rng_destroy(r);
        }
        int64_t *a = fetch(res[0]), *b = fetch(res[1]);
        ck_assert_int_eq(nd_size(res[0]), nd_size(res[1]));
        ck_assert_msg(memcmp(a, b, (size_t)nd_nbytes(res[0])) == 0, "mode %d: cuda:0 differs from the CPU", mode);
        free(a), free(b);
        nd_release(res[0]), nd_release(res[1]);
    }
}
END_TEST

/* nd_repeat_array: NumPy 2.4 np.repeat([[1, 2], [3, 4]], [2, 0], axis=0) -> [[1, 2], [1, 2]];
 * np.repeat([[1, 2], [3, 4]], [1, 3], axis=1) -> [[1, 2, 2, 2], [3, 4, 4, 4]];
 * np.repeat([[1, 2], [3, 4]], [0, 1, 2, 1]) -> [2, 3, 3, 4] (axis=None) */
static void repeat_counts(nd_device dev)
{
    const int32_t x[4] = {1, 2, 3, 4};
    const int64_t s22[2] = {2, 2}, two = 2, four = 4;
    nd_array *a = NULL, *r = NULL, *c = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, x, ND_INT32, 2, s22, dev));
    const int64_t c0[2] = {2, 0};
    ND_OK_OR_FAIL(nd_from_host(&c, c0, ND_INT64, 1, &two, dev));
    ND_OK_OR_FAIL(nd_repeat_array(&r, a, c, 0));
    ck_assert_int_eq(nd_shape(r)[0], 2);
    int32_t *h = fetch(r);
    ck_assert(h[0] == 1 && h[1] == 2 && h[2] == 1 && h[3] == 2);
    free(h);
    nd_release(r), nd_release(c);
    r = c = NULL;
    const uint8_t c1[2] = {1, 3};
    ND_OK_OR_FAIL(nd_from_host(&c, c1, ND_UINT8, 1, &two, dev));
    ND_OK_OR_FAIL(nd_repeat_array(&r, a, c, -1));
    ck_assert(nd_shape(r)[0] == 2 && nd_shape(r)[1] == 4);
    h = fetch(r);
    static const int32_t w1[8] = {1, 2, 2, 2, 3, 4, 4, 4};
    for (int i = 0; i < 8; i++) ck_assert_int_eq(h[i], w1[i]);
    free(h);
    nd_release(r), nd_release(c);
    r = c = NULL;
    const int16_t c2[4] = {0, 1, 2, 1};
    ND_OK_OR_FAIL(nd_from_host(&c, c2, ND_INT16, 1, &four, dev));
    ND_OK_OR_FAIL(nd_repeat_array(&r, a, c, ND_AXIS_NONE));
    ck_assert_int_eq(nd_ndim(r), 1);
    h = fetch(r);
    ck_assert(nd_size(r) == 4 && h[0] == 2 && h[1] == 3 && h[2] == 3 && h[3] == 4);
    free(h);
    nd_release(r), nd_release(c);
    r = c = NULL;
    /* one count = the scalar form; errors */
    const int64_t one = 1, c3 = 3;
    ND_OK_OR_FAIL(nd_from_host(&c, &c3, ND_INT64, 1, &one, dev));
    ND_OK_OR_FAIL(nd_repeat_array(&r, a, c, 1));
    ck_assert(nd_shape(r)[1] == 6);
    nd_release(r), nd_release(c);
    r = c = NULL;
    const int64_t neg[2] = {1, -1};
    ND_OK_OR_FAIL(nd_from_host(&c, neg, ND_INT64, 1, &two, dev));
    ND_EXPECT_ERR(nd_repeat_array(&r, a, c, 0), ND_ERR_INVALID, "negative values");
    ND_EXPECT_ERR(nd_repeat_array(&r, a, c, 2), ND_ERR_SHAPE, "axis 2 is out of bounds");
    nd_release(c);
    c = NULL;
    ND_OK_OR_FAIL(nd_from_host(&c, c2, ND_INT16, 1, &four, dev));
    ND_EXPECT_ERR(nd_repeat_array(&r, a, c, 0), ND_ERR_SHAPE, "could not be broadcast");
    nd_release(c);
    c = NULL;
    const double f2[2] = {1, 2};
    ND_OK_OR_FAIL(nd_from_host(&c, f2, ND_FLOAT64, 1, &two, dev));
    ND_EXPECT_ERR(nd_repeat_array(&r, a, c, 0), ND_ERR_DTYPE, "Cannot cast");
    ck_assert_ptr_null(r);
    nd_release(c), nd_release(a);
}

START_TEST(repeat_counts_cpu) { repeat_counts(nd_cpu()); }
END_TEST
START_TEST(repeat_counts_cuda) { repeat_counts(nd_cuda(0)); }
END_TEST

Suite *suite_unique(void)
{
    Suite *s = suite_create("unique");
    TCase *tc = tcase_create("unique_sampling");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, unique_cpu);
    tcase_add_test(tc, sampling_cpu);
    tcase_add_test(tc, repeat_counts_cpu);
    if (nd_test_gpu_count() > 0) {
        tcase_add_test(tc, repeat_counts_cuda);
        tcase_add_test(tc, unique_cuda);
        tcase_add_test(tc, sampling_cuda);
        tcase_add_test(tc, sampling_cpu_equals_cuda);
    } else {
        printf("unique: cuda backend SKIPPED (no GPU)\n");
    }
    suite_add_tcase(s, tc);
    return s;
}
