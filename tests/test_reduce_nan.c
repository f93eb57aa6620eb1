/* nan-aware reductions, nd_ptp and nd_reduce_dtype (src/reduce/nan.c) on the
 * CPU and, when there is one, cuda:0: random float arrays with NaNs in
 * random places (and whole NaN slices), random axes, keepdims, three
 * layouts, poisoned user outs, against references computed here in double
 * (nanmax/nanmin/nanargmax/nanargmin exactly; sums, means and variances
 * within a few roundings of the result dtype); integer/bool inputs must
 * equal the plain reductions; and edge cases whose expected values were
 * printed by NumPy 2.4.6 (python3) and pasted here. */
#include "harness.h"
#include "test_util.h"

static uint64_t rs = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

enum { N_SUM, N_PROD, N_MEAN, N_MAX, N_MIN, N_ARGMAX, N_ARGMIN, N_VAR, N_STD, N_NOPS };
static const char *nname[N_NOPS] = {"nansum", "nanprod", "nanmean", "nanmax", "nanmin", "nanargmax", "nanargmin", "nanvar", "nanstd"};

static nd_status call(int op, nd_array **out, const nd_array *a, int naxes, const int *axes, bool kd, double ddof)
{
    switch (op) {
    case N_SUM: return nd_nansum(out, a, naxes, axes, kd);
    case N_PROD: return nd_nanprod(out, a, naxes, axes, kd);
    case N_MEAN: return nd_nanmean(out, a, naxes, axes, kd);
    case N_MAX: return nd_nanmax(out, a, naxes, axes, kd);
    case N_MIN: return nd_nanmin(out, a, naxes, axes, kd);
    case N_ARGMAX: return nd_nanargmax(out, a, naxes, axes, kd);
    case N_ARGMIN: return nd_nanargmin(out, a, naxes, axes, kd);
    case N_VAR: return nd_nanvar(out, a, naxes, axes, kd, ddof);
    default: return nd_nanstd(out, a, naxes, axes, kd, ddof);
    }
}
static const nd_reduce_op plain[N_NOPS] = {ND_REDUCE_SUM, ND_REDUCE_PROD, ND_REDUCE_MEAN, ND_REDUCE_MAX, ND_REDUCE_MIN,
                                           ND_REDUCE_ARGMAX, ND_REDUCE_ARGMIN, ND_REDUCE_VAR, ND_REDUCE_STD};

static double epsof(nd_dtype t)
{
    return t == ND_FLOAT16 ? 9.77e-4 : t == ND_BFLOAT16 ? 7.82e-3 : t == ND_FLOAT32 ? 1.2e-7 : 2.3e-16;
}

/* host values of an array (any device/layout) as doubles, C order */
static double *fetch(const nd_array *a)
{
    nd_array *c = NULL, *d = NULL;
    ND_OK_OR_FAIL(nd_contiguous(&c, a));
    ND_OK_OR_FAIL(nd_astype(&d, c, ND_FLOAT64));
    int64_t n = nd_size(d);
    double *h = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    ND_OK_OR_FAIL(nd_copy_to_host(h, d, sizeof(double) * (size_t)n));
    nd_release(c);
    nd_release(d);
    return h;
}

/* One random float case: reference by walking every output's slice. */
static void float_case(nd_device dev, int op, nd_dtype t)
{
    int nd = 1 + (int)(rnd() % 3);
    int64_t shape[3], bshape[3];
    for (int i = 0; i < nd; i++) shape[i] = 1 + (int64_t)(rnd() % 6);
    int layout = (int)(rnd() % 3); /* contiguous, transposed, stepped */
    for (int i = 0; i < nd; i++) bshape[i] = layout == 1 ? shape[nd - 1 - i] : shape[i];
    if (layout == 2) bshape[nd - 1] = 2 * shape[nd - 1];
    int64_t bsize = 1;
    for (int i = 0; i < nd; i++) bsize *= bshape[i];
    size_t isz = nd_dtype_size(t);
    char *h = malloc((size_t)bsize * isz);
    int nanmode = (int)(rnd() % 3); /* none, some, many */
    for (int64_t i = 0; i < bsize; i++) {
        ew_val v;
        v.f = ew_round(t, op == N_PROD ? 0.6 + (double)(rnd() % 1000) / 1000 : (double)((int64_t)(rnd() % 2001) - 1000) / 256);
        if (nanmode == 1 && rnd() % 4 == 0) v.f = NAN;
        if (nanmode == 2 && rnd() % 4 != 0) v.f = NAN;
        ew_store(h + i * isz, t, v);
    }
    nd_array *b = NULL, *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&b, h, t, nd, bshape, dev));
    free(h);
    if (layout == 1) ND_OK_OR_FAIL(nd_transpose(&a, b, NULL));
    else if (layout == 2) {
        nd_range r[3] = {ND_ALL, ND_ALL, ND_ALL};
        r[nd - 1] = (nd_range){ND_NONE, ND_NONE, 2};
        ND_OK_OR_FAIL(nd_slice(&a, b, nd, r));
    } else a = nd_retain(b);
    nd_release(b);
    double *x = fetch(a);
    /* the axes: all (NULL) or a random subset (arg ops: one) */
    bool red[3] = {false, false, false};
    int axes[3], naxes = 0;
    bool all = rnd() % 3 == 0;
    if (op == N_ARGMAX || op == N_ARGMIN) {
        if (!all) {
            int ax = (int)(rnd() % (unsigned)nd);
            red[ax] = true;
            axes[naxes++] = rnd() % 2 ? ax : ax - nd;
        }
    } else if (!all) {
        for (int i = 0; i < nd; i++)
            if (rnd() % 2) {
                red[i] = true;
                axes[naxes++] = rnd() % 2 ? i : i - nd;
            }
    }
    if (all)
        for (int i = 0; i < nd; i++) red[i] = true;
    bool kd = rnd() % 2;
    double ddof = (double)(rnd() % 3) / 2;
    nd_array *r = NULL;
    nd_status st = call(op, &r, a, naxes, all ? NULL : axes, kd, ddof);
    /* kept/reduced geometry */
    int64_t kshape[3], rshape[3], nk = 1, nr = 1;
    int kn = 0, rn = 0, kdn = 0;
    int64_t kdshape[3];
    for (int i = 0; i < nd; i++) {
        if (red[i]) rshape[rn++] = shape[i], nr *= shape[i];
        else kshape[kn++] = shape[i], nk *= shape[i];
        if (!red[i]) kdshape[kdn++] = shape[i];
        else if (kd) kdshape[kdn++] = 1;
    }
    double *want = malloc(sizeof(double) * (size_t)nk), *tol = malloc(sizeof(double) * (size_t)nk);
    bool any_allnan = false;
    for (int64_t o = 0; o < nk; o++) {
        int64_t ki[3], t0 = o;
        for (int i = kn - 1; i >= 0; i--) ki[i] = t0 % kshape[i], t0 /= kshape[i];
        double s = 0, sa = 0, p = 1, mx = -INFINITY, mn = INFINITY, s2 = 0;
        int64_t cnt = 0, amx = -1, amn = -1;
        for (int64_t q = 0; q < nr; q++) {
            int64_t ri[3], t1 = q, idx[3];
            for (int i = rn - 1; i >= 0; i--) ri[i] = t1 % rshape[i], t1 /= rshape[i];
            for (int i = 0, kk = 0, rr = 0; i < nd; i++) idx[i] = red[i] ? ri[rr++] : ki[kk++];
            int64_t flat = 0;
            for (int i = 0; i < nd; i++) flat = flat * shape[i] + idx[i];
            double v = x[flat];
            if (isnan(v)) continue;
            cnt++, s += v, sa += fabs(v), p *= v;
            if (v > mx || amx < 0) mx = v, amx = q;
            if (v < mn || amn < 0) mn = v, amn = q;
        }
        double mean = s / (double)cnt;
        for (int64_t q = 0; q < nr; q++) {
            int64_t ri[3], t1 = q, idx[3];
            for (int i = rn - 1; i >= 0; i--) ri[i] = t1 % rshape[i], t1 /= rshape[i];
            for (int i = 0, kk = 0, rr = 0; i < nd; i++) idx[i] = red[i] ? ri[rr++] : ki[kk++];
            int64_t flat = 0;
            for (int i = 0; i < nd; i++) flat = flat * shape[i] + idx[i];
            if (!isnan(x[flat])) s2 += (x[flat] - mean) * (x[flat] - mean);
        }
        double e = epsof(t), w, tl = 0;
        if (cnt == 0) any_allnan = true;
        switch (op) {
        case N_SUM: w = s, tl = 4 * e * sa + 1e-300; break;
        case N_PROD: w = p, tl = 4 * (double)nr * e * fabs(p) + 1e-300; break;
        case N_MEAN: w = cnt ? mean : NAN, tl = cnt ? 4 * e * sa / (double)cnt : 0; break;
        case N_MAX: w = cnt ? mx : NAN; break;
        case N_MIN: w = cnt ? mn : NAN; break;
        case N_ARGMAX: w = (double)amx; break;
        case N_ARGMIN: w = (double)amn; break;
        default: {
            double dof = (double)cnt - ddof;
            w = dof <= 0 ? NAN : s2 / dof;
            /* the mean rounded to t, every square rounded: errors ~ e (|x| + |mean|)^2 */
            double bound = 0;
            for (int64_t q = 0; q < nr; q++) (void)q;
            bound = 16 * e * (s2 + (double)cnt * (fabs(mean) + sa / (cnt ? cnt : 1)) * (sa / (cnt ? cnt : 1))) / (dof > 0 ? dof : 1);
            if (op == N_STD) {
                w = sqrt(w);
                tl = w > 0 ? bound / (2 * w) + 2 * e * w : sqrt(bound);
            } else tl = bound;
        }
        }
        want[o] = w, tol[o] = tl + (op <= N_MEAN || op >= N_VAR ? e * fabs(w) : 0);
    }
    if ((op == N_ARGMAX || op == N_ARGMIN) && any_allnan) {
        ck_assert_msg(st == ND_ERR_INVALID && strstr(nd_last_error(), "All-NaN slice encountered"), "%s: %s %s",
                      nname[op], nd_status_name(st), nd_last_error());
    } else {
        ck_assert_msg(st == ND_OK, "%s %s: %s", nname[op], nd_dtype_name(t), nd_last_error());
        nd_dtype rdt = (op == N_ARGMAX || op == N_ARGMIN) ? ND_INT64 : t;
        ck_assert_int_eq(nd_dtype_of(r), rdt);
        ck_assert_int_eq(nd_ndim(r), kdn);
        for (int i = 0; i < kdn; i++) ck_assert_int_eq(nd_shape(r)[i], kdshape[i]);
        /* again into a poisoned user out */
        nd_array *o = NULL;
        ND_OK_OR_FAIL(nd_full(&o, rdt, kdn, kdshape, rdt == ND_INT64 ? nd_scalar_int(-7) : nd_scalar_float(NAN), dev));
        nd_array *o2 = o;
        ND_OK_OR_FAIL(call(op, &o2, a, naxes, all ? NULL : axes, kd, ddof));
        ck_assert_ptr_eq(o2, o);
        for (int pass = 0; pass < 2; pass++) {
            double *g = fetch(pass ? o : r);
            for (int64_t i = 0; i < nk; i++) {
                bool ok = isnan(want[i]) ? isnan(g[i]) : fabs(g[i] - want[i]) <= tol[i];
                ck_assert_msg(ok, "%s %s layout %d kd %d ddof %g out %d: [%lld] = %.9g, want %.9g (tol %g)", nname[op],
                              nd_dtype_name(t), layout, (int)kd, ddof, pass, (long long)i, g[i], want[i], tol[i]);
            }
            free(g);
        }
        nd_release(o);
    }
    free(want), free(tol), free(x);
    nd_release(r);
    nd_release(a);
}

/* integer and bool inputs: exactly the plain reduction */
static void int_case(nd_device dev, int op, nd_dtype t)
{
    int64_t shape[2] = {1 + (int64_t)(rnd() % 5), 1 + (int64_t)(rnd() % 5)};
    size_t isz = nd_dtype_size(t);
    char h[64 * 8];
    for (int i = 0; i < shape[0] * shape[1]; i++) ew_store(h + i * isz, t, ew_wrap(t, rnd() % 200));
    nd_array *a = NULL, *r1 = NULL, *r2 = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, h, t, 2, shape, dev));
    int ax = (int)(rnd() % 2);
    ND_OK_OR_FAIL(call(op, &r1, a, 1, &ax, false, 0));
    ND_OK_OR_FAIL(nd_reduce(&r2, plain[op], a, 1, &ax, false));
    ck_assert_int_eq(nd_dtype_of(r1), nd_dtype_of(r2));
    double *g1 = fetch(r1), *g2 = fetch(r2);
    for (int64_t i = 0; i < nd_size(r1); i++)
        ck_assert_msg(g1[i] == g2[i] || (isnan(g1[i]) && isnan(g2[i])), "%s %s [%lld]: %g vs %g", nname[op],
                      nd_dtype_name(t), (long long)i, g1[i], g2[i]);
    free(g1), free(g2);
    nd_release(a), nd_release(r1), nd_release(r2);
}

static void random_cases(nd_device dev)
{
    static const nd_dtype fl[4] = {ND_FLOAT16, ND_BFLOAT16, ND_FLOAT32, ND_FLOAT64};
    for (int k = 0; k < 300; k++) float_case(dev, (int)(rnd() % N_NOPS), fl[rnd() % 4]);
    static const nd_dtype in[6] = {ND_BOOL, ND_INT8, ND_UINT16, ND_INT32, ND_INT64, ND_UINT64};
    for (int k = 0; k < 60; k++) {
        int op = (int)(rnd() % N_NOPS);
        nd_dtype t = in[rnd() % 6];
        int_case(dev, op, t);
    }
}
START_TEST(nan_random_cpu) { random_cases(nd_cpu()); }
END_TEST
START_TEST(nan_random_cuda) { random_cases(nd_cuda(0)); }
END_TEST

static nd_array *arr_f64(nd_device dev, int nd, const int64_t *shape, const double *v)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, v, ND_FLOAT64, nd, shape, dev));
    return a;
}
static void expect(nd_array *r, int n, const double *w, double tol)
{
    double *g = fetch(r);
    ck_assert_int_eq(nd_size(r), n);
    for (int i = 0; i < n; i++)
        ck_assert_msg(isnan(w[i]) ? isnan(g[i]) : isinf(w[i]) ? g[i] == w[i] : fabs(g[i] - w[i]) <= tol * (1 + fabs(w[i])), "[%d] = %.9g, want %.9g", i,
                      g[i], w[i]);
    free(g);
    nd_release(r);
}

/* Values printed by NumPy 2.4.6. */
static void numpy_values(nd_device dev)
{
    const double N = NAN;
    int64_t s23[2] = {2, 3};
    nd_array *a = arr_f64(dev, 2, s23, (double[]){1, N, 3, N, N, N}), *r = NULL;
    int ax1 = 1, ax0 = 0;
    /* np.nanmax(a, axis=1) etc. with a = [[1, nan, 3], [nan, nan, nan]] */
    ND_OK_OR_FAIL(nd_nanmax(&r, a, 1, &ax1, false)); expect(r, 2, (double[]){3, N}, 0); r = NULL;
    ND_OK_OR_FAIL(nd_nanmin(&r, a, 1, &ax1, false)); expect(r, 2, (double[]){1, N}, 0); r = NULL;
    ND_OK_OR_FAIL(nd_nanmean(&r, a, 1, &ax1, false)); expect(r, 2, (double[]){2, N}, 0); r = NULL;
    ND_OK_OR_FAIL(nd_nanvar(&r, a, 1, &ax1, false, 0)); expect(r, 2, (double[]){1, N}, 1e-15); r = NULL;
    ND_OK_OR_FAIL(nd_nanstd(&r, a, 1, &ax1, false, 1)); expect(r, 2, (double[]){1.41421356237, N}, 1e-10); r = NULL;
    ND_OK_OR_FAIL(nd_nansum(&r, a, 1, &ax1, false)); expect(r, 2, (double[]){4, 0}, 0); r = NULL;
    ND_OK_OR_FAIL(nd_nanprod(&r, a, 1, &ax1, false)); expect(r, 2, (double[]){3, 1}, 0); r = NULL;
    ND_OK_OR_FAIL(nd_nanmax(&r, a, 1, &ax1, true));
    ck_assert_int_eq(nd_ndim(r), 2);
    ck_assert_int_eq(nd_shape(r)[0], 2);
    ck_assert_int_eq(nd_shape(r)[1], 1);
    nd_release(r), r = NULL;
    ND_EXPECT_ERR(nd_nanargmax(&r, a, 1, &ax1, false), ND_ERR_INVALID, "All-NaN slice encountered");
    /* np.nanargmin(a) (all axes: the whole array is one slice, not all NaN) -> 0 */
    ND_OK_OR_FAIL(nd_nanargmin(&r, a, 0, NULL, false));
    expect(r, 1, (double[]){0}, 0);
    r = NULL;
    ND_EXPECT_ERR(nd_nansum(&r, a, 1, (int[]){2}, false), ND_ERR_SHAPE, "axis 2 is out of bounds");
    ND_EXPECT_ERR(nd_nanvar(&r, a, 1, (int[]){-3}, false, 0), ND_ERR_SHAPE, "axis -3 is out of bounds");
    ND_EXPECT_ERR(nd_nanargmax(&r, a, 2, (int[]){0, 1}, false), ND_ERR_INVALID, "takes one axis");
    ND_EXPECT_ERR(nd_nanmax(NULL, a, 0, NULL, false), ND_ERR_INVALID, "'out'");
    ck_assert_ptr_null(r);
    /* np.nanargmax([[1, nan, 3], [nan, 2, nan]], axis=0) -> [0 1 0]; nanargmin axis=1 -> [0 1] */
    nd_array *b = arr_f64(dev, 2, s23, (double[]){1, N, 3, N, 2, N});
    ND_OK_OR_FAIL(nd_nanargmax(&r, b, 1, &ax0, false)); expect(r, 3, (double[]){0, 1, 0}, 0); r = NULL;
    ND_OK_OR_FAIL(nd_nanargmin(&r, b, 1, &ax1, false)); expect(r, 2, (double[]){0, 1}, 0); r = NULL;
    /* np.nanargmax([-inf, nan, -inf]) -> 0 */
    int64_t s3[1] = {3};
    nd_array *c = arr_f64(dev, 1, s3, (double[]){-INFINITY, N, -INFINITY});
    ND_OK_OR_FAIL(nd_nanargmax(&r, c, 0, NULL, false)); expect(r, 1, (double[]){0}, 0); r = NULL;
    /* np.nanvar([1, nan, 3], ddof=2) -> nan; ddof=1.5 -> 4.0 */
    nd_array *d = arr_f64(dev, 1, s3, (double[]){1, N, 3});
    ND_OK_OR_FAIL(nd_nanvar(&r, d, 0, NULL, false, 2)); expect(r, 1, (double[]){N}, 0); r = NULL;
    ND_OK_OR_FAIL(nd_nanvar(&r, d, 0, NULL, false, 1.5)); expect(r, 1, (double[]){4}, 1e-15); r = NULL;
    /* empty: np.nansum(zeros((0, 3)), axis=0) -> [0 0 0], nanprod [1 1 1], nanmean/nanvar [nan nan nan] */
    nd_array *e = NULL;
    ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT64, 2, (int64_t[]){0, 3}, dev));
    ND_OK_OR_FAIL(nd_nansum(&r, e, 1, &ax0, false)); expect(r, 3, (double[]){0, 0, 0}, 0); r = NULL;
    ND_OK_OR_FAIL(nd_nanprod(&r, e, 1, &ax0, false)); expect(r, 3, (double[]){1, 1, 1}, 0); r = NULL;
    ND_OK_OR_FAIL(nd_nanmean(&r, e, 1, &ax0, false)); expect(r, 3, (double[]){N, N, N}, 0); r = NULL;
    ND_OK_OR_FAIL(nd_nanvar(&r, e, 1, &ax0, false, 0)); expect(r, 3, (double[]){N, N, N}, 0); r = NULL;
    ND_EXPECT_ERR(nd_nanmax(&r, e, 0, NULL, false), ND_ERR_INVALID,
                  "zero-size array to reduction operation fmax which has no identity");
    ND_EXPECT_ERR(nd_nanargmax(&r, e, 0, NULL, false), ND_ERR_INVALID, "attempt to get argmax of an empty sequence");
    /* dtypes: nanmean(float16) float16, nanmean(int8) float64, nansum(bool) int64 */
    uint16_t hx[4];
    const double xv[4] = {0.1, 0.2, N, 0.7};
    for (int i = 0; i < 4; i++) ew_store(&hx[i], ND_FLOAT16, (ew_val){.f = xv[i]});
    nd_array *f = NULL;
    ND_OK_OR_FAIL(nd_from_host(&f, hx, ND_FLOAT16, 1, (int64_t[]){4}, dev));
    /* np.nanmean(x) -> float16(0.3333), nanvar 0.0689, nanstd 0.2625, nansum 1.0 */
    const double fw[4] = {0.3333, 0.0689, 0.2625, 1.0};
    for (int k = 0; k < 4; k++) {
        nd_status st = k == 0 ? nd_nanmean(&r, f, 0, NULL, false)
                       : k == 1 ? nd_nanvar(&r, f, 0, NULL, false, 0)
                       : k == 2 ? nd_nanstd(&r, f, 0, NULL, false, 0)
                                : nd_nansum(&r, f, 0, NULL, false);
        ND_OK_OR_FAIL(st);
        ck_assert_int_eq(nd_dtype_of(r), ND_FLOAT16);
        double *g = fetch(r);
        ck_assert_msg(g[0] == ew_round(ND_FLOAT16, fw[k]), "float16 case %d: %.6g, want %.6g", k, g[0],
                      ew_round(ND_FLOAT16, fw[k]));
        free(g);
        nd_release(r), r = NULL;
    }
    /* float32 [0.1, 0.2, nan, 0.7, 1e-3]: nanmean 0.25025, nanvar 0.072375186, nanstd(ddof=1) 0.3106449 */
    float yv[5] = {0.1f, 0.2f, NAN, 0.7f, 1e-3f};
    nd_array *y = NULL;
    ND_OK_OR_FAIL(nd_from_host(&y, yv, ND_FLOAT32, 1, (int64_t[]){5}, dev));
    ND_OK_OR_FAIL(nd_nanmean(&r, y, 0, NULL, false)); expect(r, 1, (double[]){0.25025}, 2e-7); r = NULL;
    ND_OK_OR_FAIL(nd_nanvar(&r, y, 0, NULL, false, 0)); expect(r, 1, (double[]){0.072375186}, 3e-7); r = NULL;
    ND_OK_OR_FAIL(nd_nanstd(&r, y, 0, NULL, false, 1)); expect(r, 1, (double[]){0.3106449}, 3e-7); r = NULL;
    /* np.nanvar(int [1, 2, 4], ddof=3) -> inf (the plain var) */
    int64_t iv[3] = {1, 2, 4};
    nd_array *ia = NULL;
    ND_OK_OR_FAIL(nd_from_host(&ia, iv, ND_INT64, 1, s3, dev));
    ND_OK_OR_FAIL(nd_nanvar(&r, ia, 0, NULL, false, 3));
    ck_assert_int_eq(nd_dtype_of(r), ND_FLOAT64);
    expect(r, 1, (double[]){INFINITY}, 0); r = NULL;
    /* ptp: np.ptp(int8 [-128, 127]) -> -1; np.ptp([[1, 5], [2, 9]], axis=0) -> [1 4]; bool: TypeError */
    int8_t i8[2] = {-128, 127};
    nd_array *p = NULL;
    ND_OK_OR_FAIL(nd_from_host(&p, i8, ND_INT8, 1, (int64_t[]){2}, dev));
    ND_OK_OR_FAIL(nd_ptp(&r, p, 0, NULL, false));
    ck_assert_int_eq(nd_dtype_of(r), ND_INT8);
    expect(r, 1, (double[]){-1}, 0); r = NULL;
    nd_release(p), p = NULL;
    int64_t m4[4] = {1, 5, 2, 9};
    ND_OK_OR_FAIL(nd_from_host(&p, m4, ND_INT64, 2, (int64_t[]){2, 2}, dev));
    ND_OK_OR_FAIL(nd_ptp(&r, p, 1, &ax0, false)); expect(r, 2, (double[]){1, 4}, 0); r = NULL;
    nd_release(p), p = NULL;
    uint8_t tb[1] = {1};
    ND_OK_OR_FAIL(nd_from_host(&p, tb, ND_BOOL, 1, (int64_t[]){1}, dev));
    ND_EXPECT_ERR(nd_ptp(&r, p, 0, NULL, false), ND_ERR_DTYPE, "numpy boolean subtract");
    nd_release(p), p = NULL;
    /* dtype=: np.sum(int64 [100, 100, 100], dtype=int8) -> 44; np.mean([1, 2, 4], dtype=int32) -> 2;
     * np.sum([1.5, 2.5], dtype=int32) -> 3; np.prod([1, 0], dtype=bool) -> False */
    int64_t h100[3] = {100, 100, 100};
    ND_OK_OR_FAIL(nd_from_host(&p, h100, ND_INT64, 1, s3, dev));
    ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_SUM, p, 0, NULL, false, ND_INT8));
    ck_assert_int_eq(nd_dtype_of(r), ND_INT8);
    expect(r, 1, (double[]){44}, 0); r = NULL;
    ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_MEAN, ia, 0, NULL, false, ND_INT32));
    ck_assert_int_eq(nd_dtype_of(r), ND_INT32);
    expect(r, 1, (double[]){2}, 0); r = NULL;
    nd_array *q = arr_f64(dev, 1, (int64_t[]){2}, (double[]){1.5, 2.5});
    ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_SUM, q, 0, NULL, false, ND_INT32)); expect(r, 1, (double[]){3}, 0); r = NULL;
    nd_array *z = arr_f64(dev, 1, (int64_t[]){2}, (double[]){1, 0});
    ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_PROD, z, 0, NULL, false, ND_BOOL));
    ck_assert_int_eq(nd_dtype_of(r), ND_BOOL);
    expect(r, 1, (double[]){0}, 0); r = NULL;
    /* float32 accumulation of float64 values: np.sum(a, dtype=float32) rounds each element first */
    nd_array *w = arr_f64(dev, 2, s23, (double[]){0.1, 0.2, 0.3, 0.4, 0.5, 0.6});
    ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_MEAN, w, 1, &ax1, true, ND_FLOAT32));
    ck_assert_int_eq(nd_dtype_of(r), ND_FLOAT32);
    ck_assert_int_eq(nd_ndim(r), 2);
    expect(r, 2, (double[]){0.2, 0.5}, 1e-7); r = NULL;
    ND_EXPECT_ERR(nd_reduce_dtype(&r, ND_REDUCE_MAX, w, 0, NULL, false, ND_FLOAT32), ND_ERR_INVALID, "max takes no dtype");
    ND_EXPECT_ERR(nd_reduce_dtype(&r, ND_REDUCE_VAR, w, 0, NULL, false, ND_INT32), ND_ERR_DTYPE, "float dtype");
    ND_EXPECT_ERR(nd_reduce_dtype(&r, ND_REDUCE_SUM, w, 0, NULL, false, (nd_dtype)77), ND_ERR_DTYPE, "invalid dtype");
    /* a user out of the wrong shape is refused and left alone */
    nd_array *bad = NULL;
    ND_OK_OR_FAIL(nd_zeros(&bad, ND_FLOAT64, 1, (int64_t[]){5}, dev));
    nd_array *bad2 = bad;
    ND_EXPECT_ERR(nd_nanmean(&bad2, a, 1, &ax1, false), ND_ERR_SHAPE, "nd_nanmean");
    ck_assert_ptr_eq(bad2, bad);
    nd_array *all[] = {a, b, c, d, e, f, y, ia, p, q, z, w, bad};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
}
START_TEST(nan_numpy_cpu) { numpy_values(nd_cpu()); }
END_TEST
START_TEST(nan_numpy_cuda) { numpy_values(nd_cuda(0)); }
END_TEST

Suite *suite_reduce_nan(void)
{
    Suite *s = suite_create("reduce_nan");
    TCase *tc = tcase_create("reduce_nan");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, nan_random_cpu);
    tcase_add_test(tc, nan_numpy_cpu);
    if (nd_test_gpu_count() > 0) {
        tcase_add_test(tc, nan_random_cuda);
        tcase_add_test(tc, nan_numpy_cuda);
    } else {
        printf("reduce_nan: cuda backend SKIPPED (no GPU)\n");
        fflush(stdout);
    }
    suite_add_tcase(s, tc);
    return s;
}
