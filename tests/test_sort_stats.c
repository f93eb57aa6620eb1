/* Suite "sort_stats": nd_searchsorted, nd_isin, nd_median, nd_quantile,
 * nd_percentile on cpu and cuda:0 (when present), against references in
 * the test (counting in NumPy's NaN-last order; quantiles in long double
 * from a qsort of each slice) and values pasted from NumPy 2.4. */
#include "test_util.h"

#include "sort_ref.h"

static nd_array *dev_f64(const double *x, int nd, const int64_t *shape, nd_dtype t, nd_device dev)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++) n *= shape[d];
    nd_array *h = NULL, *c = NULL, *r = NULL, *s = NULL;
    ND_OK_OR_FAIL(nd_from_host(&h, x, ND_FLOAT64, 1, &n, nd_cpu()));
    ND_OK_OR_FAIL(nd_astype(&c, h, t));
    ND_OK_OR_FAIL(nd_reshape(&s, c, nd, shape));
    ND_OK_OR_FAIL(nd_to_device(&r, s, dev));
    nd_release(h);
    nd_release(c);
    nd_release(s);
    return r;
}

START_TEST(test_searchsorted)
{
    nd_device dev = sr_dev(_i / NT_NREAL);
    nd_dtype t = (nd_dtype)(_i % NT_NREAL);
    uint64_t seed = 5 + (uint64_t)t;
    int64_t na = 257, vs[2] = {6, 9};
    nd_array *raw = sr_make(t, 1, &na, 0, &seed, dev), *a = NULL, *v = sr_make(t, 2, vs, 1, &seed, dev);
    ND_OK_OR_FAIL(nd_sort(&a, raw, 0, 0));
    sr_host ha, hv;
    sr_load(&ha, a);
    sr_load(&hv, v);
    for (int side = 0; side < 2; side++) {
        nd_array *o = NULL;
        ND_OK_OR_FAIL(nd_searchsorted(&o, a, v, side ? ND_SIDE_RIGHT : ND_SIDE_LEFT));
        ck_assert_int_eq(nd_ndim(o), 2);
        sr_host ho;
        sr_load(&ho, o);
        for (int64_t k = 0; k < hv.n; k++) {
            int64_t want = 0;
            for (int64_t j = 0; j < ha.n; j++) {
                int c = sr_cmp_ld(ha.v[j], hv.v[k]);
                want += side ? c <= 0 : c < 0;
            }
            ck_assert_msg(ho.i[k] == want, "%s side %d v[%lld]=%Lg: %lld, want %lld", nd_dtype_name(t), side,
                          (long long)k, hv.v[k], (long long)ho.i[k], (long long)want);
        }
        sr_free(&ho);
        nd_release(o);
    }
    /* isin against the unsorted raw values, inverted too */
    for (int inv = 0; inv < 2; inv++) {
        nd_array *o = NULL;
        ND_OK_OR_FAIL(nd_isin(&o, v, raw, inv));
        ck_assert_int_eq(nd_dtype_of(o), ND_BOOL);
        sr_host ho;
        sr_load(&ho, o);
        for (int64_t k = 0; k < hv.n; k++) {
            bool f = false;
            for (int64_t j = 0; j < ha.n && !f; j++) f = ha.v[j] == hv.v[k];
            ck_assert_msg((ho.b[k] != 0) == (f != inv), "isin %s v[%lld]=%Lg", nd_dtype_name(t), (long long)k, hv.v[k]);
        }
        sr_free(&ho);
        nd_release(o);
    }
    sr_free(&ha);
    sr_free(&hv);
    nd_release(raw);
    nd_release(a);
    nd_release(v);
}
END_TEST

START_TEST(test_search_numpy)
{
    nd_device dev = sr_dev(_i);
    /* np.searchsorted([1,2,2,nan,nan], [2,nan,-inf,3]) -> [1 3 0 3], right -> [3 5 0 3] */
    const double a[] = {1, 2, 2, NAN, NAN}, v[] = {2, NAN, -INFINITY, 3};
    int64_t na = 5, nv = 4, got[4];
    nd_array *A = dev_f64(a, 1, &na, ND_FLOAT64, dev), *V = dev_f64(v, 1, &nv, ND_FLOAT64, dev), *o = NULL;
    ND_OK_OR_FAIL(nd_searchsorted(&o, A, V, ND_SIDE_LEFT));
    ND_OK_OR_FAIL(nd_copy_to_host(got, o, sizeof got));
    ck_assert(got[0] == 1 && got[1] == 3 && got[2] == 0 && got[3] == 3);
    nd_release(o);
    o = NULL;
    ND_OK_OR_FAIL(nd_searchsorted(&o, A, V, ND_SIDE_RIGHT));
    ND_OK_OR_FAIL(nd_copy_to_host(got, o, sizeof got));
    ck_assert(got[0] == 3 && got[1] == 5 && got[2] == 0 && got[3] == 3);
    nd_release(o);
    o = NULL;
    /* 0-d v gives a 0-d result; an int32 v promotes with the float64 a */
    nd_array *z = NULL;
    ND_OK_OR_FAIL(nd_full(&z, ND_INT32, 0, NULL, (nd_scalar){.kind = ND_SCALAR_INT, .v.i = 2}, dev));
    ND_OK_OR_FAIL(nd_searchsorted(&o, A, z, ND_SIDE_RIGHT));
    ck_assert_int_eq(nd_ndim(o), 0);
    ND_OK_OR_FAIL(nd_copy_to_host(got, o, 8));
    ck_assert_int_eq(got[0], 3);
    nd_release(o);
    o = NULL;
    /* np.isin([1., nan, -0., 5.], [0., nan, 1.]) -> [True False True False] */
    const double e[] = {1, NAN, -0.0, 5}, te[] = {0, NAN, 1};
    int64_t ne = 4, nt = 3;
    nd_array *E = dev_f64(e, 1, &ne, ND_FLOAT32, dev), *T = dev_f64(te, 1, &nt, ND_FLOAT64, dev);
    ND_OK_OR_FAIL(nd_isin(&o, E, T, false));
    bool b[4];
    ND_OK_OR_FAIL(nd_copy_to_host(b, o, 4));
    ck_assert(b[0] && !b[1] && b[2] && !b[3]);
    nd_release(o);
    o = NULL;
    /* empty test_elements: nothing found */
    int64_t n0 = 0;
    nd_array *T0 = NULL;
    ND_OK_OR_FAIL(nd_zeros(&T0, ND_INT8, 1, &n0, dev));
    ND_OK_OR_FAIL(nd_isin(&o, E, T0, true));
    ND_OK_OR_FAIL(nd_copy_to_host(b, o, 4));
    ck_assert(b[0] && b[1] && b[2] && b[3]);
    nd_release(o);
    o = NULL;
    /* errors */
    int64_t s2[2] = {2, 2};
    nd_array *A2 = NULL;
    ND_OK_OR_FAIL(nd_zeros(&A2, ND_FLOAT64, 2, s2, dev));
    ND_EXPECT_ERR(nd_searchsorted(&o, A2, V, ND_SIDE_LEFT), ND_ERR_SHAPE, "a must be 1-dimensional");
    ND_EXPECT_ERR(nd_searchsorted(&o, A, V, (nd_side)7), ND_ERR_INVALID, "side");
    ND_EXPECT_ERR(nd_isin(&o, NULL, V, false), ND_ERR_INVALID, "element");
    if (_i) {
        nd_array *hc = NULL;
        ND_OK_OR_FAIL(nd_zeros(&hc, ND_FLOAT64, 1, &na, nd_cpu()));
        ND_EXPECT_ERR(nd_searchsorted(&o, hc, V, ND_SIDE_LEFT), ND_ERR_DEVICE, "is on");
        ND_EXPECT_ERR(nd_isin(&o, V, hc, false), ND_ERR_DEVICE, "is on");
        nd_release(hc);
    }
    ck_assert_ptr_null(o);
    nd_release(A2);
    nd_release(T0);
    nd_release(E);
    nd_release(T);
    nd_release(z);
    nd_release(A);
    nd_release(V);
}
END_TEST

/* The linear quantile of a sorted slice as NumPy computes it, in long
 * double; median when q < 0. */
static long double ref_q(const long double *s, int64_t n, double q)
{
    if (isnan(s[n - 1])) return NAN;
    if (q < 0) return (s[(n - 1) / 2] + s[n / 2]) / 2;
    double v = (double)(n - 1) * q, prev = floor(v);
    int64_t ip = (int64_t)prev, in = ip + 1;
    if (v >= (double)(n - 1)) ip = in = n - 1, prev = -1;
    long double g = v - prev, a = s[ip], b = s[in], d = b - a;
    return g >= 0.5 ? b - d * (1 - g) : a + d * g;
}

static int cmp_ld(const void *x, const void *y) { return sr_cmp_ld(*(const long double *)x, *(const long double *)y); }

static void check_stat(nd_array *x, double q, int naxes, const int *axes, bool keepdims)
{
    nd_array *r = NULL;
    if (q >= 0 && nd_dtype_of(x) == ND_BOOL) {
        /* NumPy 2.4: TypeError (quantile interpolates with subtract, which bool lacks); median takes bool */
        if (q > 1) ND_EXPECT_ERR(nd_percentile(&r, x, q, naxes, axes, keepdims), ND_ERR_DTYPE, "nd_percentile: 'a' is bool");
        else ND_EXPECT_ERR(nd_quantile(&r, x, q, naxes, axes, keepdims), ND_ERR_DTYPE, "nd_quantile: 'a' is bool");
        ck_assert_ptr_null(r);
        return;
    }
    if (q < 0) ND_OK_OR_FAIL(nd_median(&r, x, naxes, axes, keepdims));
    else if (q > 1) ND_OK_OR_FAIL(nd_percentile(&r, x, q, naxes, axes, keepdims));
    else ND_OK_OR_FAIL(nd_quantile(&r, x, q, naxes, axes, keepdims));
    double qq = q > 1 ? q / 100 : q;
    nd_dtype t = nd_dtype_of(x);
    bool fl = t == ND_FLOAT16 || t == ND_BFLOAT16 || t == ND_FLOAT32 || t == ND_FLOAT64;
    ck_assert_int_eq(nd_dtype_of(r), fl ? t : ND_FLOAT64);
    /* reference: slices over the reduced axes of a 2-D x */
    sr_host hx, hr;
    sr_load(&hx, x);
    sr_load(&hr, r);
    const int64_t *sh = nd_shape(x);
    bool red[2] = {axes == NULL, axes == NULL};
    for (int k = 0; axes && k < naxes; k++) red[axes[k] < 0 ? axes[k] + 2 : axes[k]] = true;
    int64_t n0 = red[0] ? 1 : sh[0], n1 = red[1] ? 1 : sh[1];
    ck_assert_int_eq(hr.n, n0 * n1);
    ck_assert_int_eq(nd_ndim(r), keepdims ? 2 : (int)!red[0] + (int)!red[1]);
    long double *sl = malloc(sizeof(long double) * (size_t)hx.n);
    double tol = t == ND_FLOAT16 || t == ND_BFLOAT16 ? 2e-2 : t == ND_FLOAT32 ? 1e-5 : 1e-12;
    for (int64_t i = 0; i < n0; i++)
        for (int64_t j = 0; j < n1; j++) {
            int64_t m = 0;
            for (int64_t a = 0; a < sh[0]; a++)
                for (int64_t b = 0; b < sh[1]; b++)
                    if ((red[0] || a == i) && (red[1] || b == j)) sl[m++] = hx.v[a * sh[1] + b];
            qsort(sl, (size_t)m, sizeof *sl, cmp_ld);
            long double want = ref_q(sl, m, q < 0 ? -1 : qq), got = hr.v[i * n1 + j];
            if (isnan(want)) ck_assert_msg(isnan(got), "want NaN, got %Lg", got);
            else
                ck_assert_msg(fabsl(got - want) <= tol * (1 + fabsl(want)) || (isinf(want) && got == want),
                              "%s q=%g slice (%lld,%lld): %Lg, want %Lg", nd_dtype_name(t), q, (long long)i,
                              (long long)j, got, want);
        }
    free(sl);
    sr_free(&hx);
    sr_free(&hr);
    nd_release(r);
}

START_TEST(test_quantile)
{
    nd_device dev = sr_dev(_i / NT_NREAL);
    nd_dtype t = (nd_dtype)(_i % NT_NREAL);
    uint64_t seed = 77 + (uint64_t)t;
    int64_t shapes[3][2] = {{5, 8}, {1, 7}, {6, 1}};
    const int ax0[1] = {0}, ax1[1] = {-1}, ax01[2] = {1, 0};
    for (int s = 0; s < 3; s++)
        for (int lay = 0; lay < 3; lay++) {
            nd_array *x = sr_make(t, 2, shapes[s], lay, &seed, dev);
            static const double qs[] = {-1, 0, 0.25, 0.5, 0.7, 1, 37.5};
            for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
                check_stat(x, qs[k], 0, NULL, false);
                check_stat(x, qs[k], 1, ax0, false);
                check_stat(x, qs[k], 1, ax1, true);
                check_stat(x, qs[k], 2, ax01, k & 1);
            }
            nd_release(x);
        }
}
END_TEST

START_TEST(test_quantile_numpy)
{
    nd_device dev = sr_dev(_i);
    nd_array *x = NULL, *r = NULL;
    /* np.quantile(np.array([0.1, 0.7], np.float32), 0.3) -> 0.28 (float32) */
    const double a1[] = {0.1, 0.7};
    int64_t n2 = 2;
    x = dev_f64(a1, 1, &n2, ND_FLOAT32, dev);
    ND_OK_OR_FAIL(nd_quantile(&r, x, 0.3, 0, NULL, false));
    float f;
    ND_OK_OR_FAIL(nd_copy_to_host(&f, r, 4));
    ck_assert(f == 0.28f);
    nd_release(x);
    nd_release(r);
    r = NULL;
    /* np.quantile(np.array([1,2,3,4], np.float16), 0.1).view(np.uint16) -> 15667;
     * np.quantile(np.array([1,2,3,4], np.float32), 0.9).view(np.uint32) -> 1080872141 */
    const double a4[] = {1, 2, 3, 4};
    int64_t n4 = 4;
    x = dev_f64(a4, 1, &n4, ND_FLOAT16, dev);
    ND_OK_OR_FAIL(nd_quantile(&r, x, 0.1, 0, NULL, false));
    uint16_t h;
    ND_OK_OR_FAIL(nd_copy_to_host(&h, r, 2));
    ck_assert_int_eq(h, 15667);
    nd_release(x);
    nd_release(r);
    r = NULL;
    x = dev_f64(a4, 1, &n4, ND_FLOAT32, dev);
    ND_OK_OR_FAIL(nd_quantile(&r, x, 0.9, 0, NULL, false));
    uint32_t u;
    ND_OK_OR_FAIL(nd_copy_to_host(&u, r, 4));
    ck_assert_uint_eq(u, 1080872141u);
    nd_release(x);
    nd_release(r);
    r = NULL;
    /* np.median([[1,2,3],[4,5,nan]], axis=1) -> [2, nan];
     * np.quantile([1, inf], 1.0) -> nan (NumPy's gamma quirk) */
    const double m[] = {1, 2, 3, 4, 5, NAN};
    int64_t s23[2] = {2, 3};
    x = dev_f64(m, 2, s23, ND_FLOAT64, dev);
    int ax = 1;
    ND_OK_OR_FAIL(nd_median(&r, x, 1, &ax, false));
    double d[2];
    ND_OK_OR_FAIL(nd_copy_to_host(d, r, 16));
    ck_assert(d[0] == 2 && isnan(d[1]));
    nd_release(x);
    nd_release(r);
    r = NULL;
    const double ai[] = {1, INFINITY};
    x = dev_f64(ai, 1, &n2, ND_FLOAT64, dev);
    ND_OK_OR_FAIL(nd_quantile(&r, x, 1.0, 0, NULL, false));
    ND_OK_OR_FAIL(nd_copy_to_host(d, r, 8));
    ck_assert(isnan(d[0]));
    nd_release(r);
    r = NULL;
    /* np.percentile(np.array([3,1,4,1,5,9,2,6], np.int32), 37.5) -> 2.625;
     * np.quantile(np.array([[1,7],[3,2]], np.uint8), 0.25, axis=0) -> [1.5, 3.25] */
    const double p8[] = {3, 1, 4, 1, 5, 9, 2, 6}, u4[] = {1, 7, 3, 2};
    int64_t n8 = 8, s22[2] = {2, 2};
    nd_array *y = dev_f64(p8, 1, &n8, ND_INT32, dev);
    ND_OK_OR_FAIL(nd_percentile(&r, y, 37.5, 0, NULL, false));
    ck_assert_int_eq(nd_dtype_of(r), ND_FLOAT64);
    ND_OK_OR_FAIL(nd_copy_to_host(d, r, 8));
    ck_assert(d[0] == 2.625);
    nd_release(y);
    nd_release(r);
    r = NULL;
    y = dev_f64(u4, 2, s22, ND_UINT8, dev);
    ax = 0;
    ND_OK_OR_FAIL(nd_quantile(&r, y, 0.25, 1, &ax, false));
    ND_OK_OR_FAIL(nd_copy_to_host(d, r, 16));
    ck_assert(d[0] == 1.5 && d[1] == 3.25);
    nd_release(r);
    r = NULL;
    /* errors */
    ND_EXPECT_ERR(nd_quantile(&r, x, 1.5, 0, NULL, false), ND_ERR_INVALID, "Quantiles must be in the range [0, 1]");
    ND_EXPECT_ERR(nd_quantile(&r, x, NAN, 0, NULL, false), ND_ERR_INVALID, "Quantiles must be");
    ND_EXPECT_ERR(nd_percentile(&r, x, -1, 0, NULL, false), ND_ERR_INVALID, "Percentiles must be in the range [0, 100]");
    ax = 2;
    ND_EXPECT_ERR(nd_median(&r, y, 1, &ax, false), ND_ERR_SHAPE, "axis 2 is out of bounds for array of dimension 2");
    int rep[2] = {0, -2};
    ND_EXPECT_ERR(nd_median(&r, y, 2, rep, false), ND_ERR_INVALID, "repeated axis");
    int64_t n0 = 0;
    nd_array *e = NULL;
    ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT32, 1, &n0, dev));
    ND_EXPECT_ERR(nd_median(&r, e, 0, NULL, false), ND_ERR_INVALID, "empty");
    ck_assert_ptr_null(r);
    /* a poisoned float32 out takes a float64 median */
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT32, 1, &n2, (nd_scalar){.kind = ND_SCALAR_FLOAT, .v.f = NAN}, dev));
    nd_array *o0 = o;
    ax = 0;
    ND_OK_OR_FAIL(nd_median(&o, y, 1, &ax, false));
    ck_assert_ptr_eq(o, o0);
    float fo[2];
    ND_OK_OR_FAIL(nd_copy_to_host(fo, o, 8));
    ck_assert(fo[0] == 2.0f && fo[1] == 4.5f);
    nd_release(o);
    nd_release(e);
    nd_release(x);
    nd_release(y);
}
END_TEST

Suite *suite_sort_stats(void)
{
    Suite *s = suite_create("sort_stats");
    int ndev = 1 + (nd_test_gpu_count() > 0);
    TCase *tc = tcase_create("sort_stats");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_searchsorted, 0, NT_NREAL * ndev);
    tcase_add_loop_test(tc, test_search_numpy, 0, ndev);
    tcase_add_loop_test(tc, test_quantile, 0, NT_NREAL * ndev);
    tcase_add_loop_test(tc, test_quantile_numpy, 0, ndev);
    suite_add_tcase(s, tc);
    return s;
}
