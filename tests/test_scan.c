/* Scans (src/reduce/scan.c, both backends' nd_backend.scan): nd_cumsum, nd_cumprod,
 * nd_cumsum_dtype, nd_cumprod_dtype, nd_cummax, nd_cummin, nd_diff.
 *
 * Every dtype, random shapes and axes (negative and ND_AXIS_NONE), four
 * layouts (contiguous, transposed, sliced with a step, broadcast with a
 * stride-0 axis), zero-size arrays, NaN placement, and a user out
 * poisoned beforehand; the same cases on nd_cpu() and, when there is one,
 * cuda:0. References are computed here: a sequential scan in double
 * (floats) or exact wrapping integers (int64/uint64, the accumulation
 * dtypes), then converted to the result dtype. Float sums are compared
 * within a tolerance that grows with the scan length (the backends combine
 * blocks in their own order): |got - ref| <= 4 n eps_acc S + eps_res |ref|
 * with S the running sum of |x|; products likewise relative to |ref|;
 * max/min and integers exactly. Expected values marked "NumPy 2.4" were
 * printed by NumPy 2.4.6 (python3) and pasted here. */
#include "creation_util.h"
#include "harness.h"
#include "test_util.h"

static uint64_t rng_s = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return rng_s;
}
static double unif(double lo, double hi) { return lo + (hi - lo) * (double)(rnd() >> 11) / 9007199254740992.0; }

enum { L_CONTIG, L_TRANS, L_STEP, L_BCAST, L_N };
static const char *lname[L_N] = {"contiguous", "transposed", "stepped", "broadcast"};
enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN };

/* A random value of dtype t suited to op (products stay near 1). */
static ew_val rand_val(nd_dtype t, int op, bool nans)
{
    ew_val v;
    v.u = 0;
    if (nd__is_float(t)) {
        if (nans && rnd() % 7 == 0) v.f = NAN;
        else if (op == OP_PROD) v.f = ew_round(t, (rnd() % 9 == 0 ? -1 : 1) * unif(0.75, 1.3));
        else if (op == OP_SUM) v.f = ew_round(t, unif(-1, 1));
        else v.f = ew_round(t, (double)((int)(rnd() % 41) - 20) / 4);
    } else if (t == ND_BOOL) {
        v.i = rnd() % 3 != 0;
    } else if (op == OP_PROD && ew_bits(t) == 64) {
        v = ew_wrap(t, rnd() % 7); /* wraps after a few dozen factors */
        if (ew_is_signed(t) && rnd() % 2) v.i = -v.i;
    } else {
        v = ew_wrap(t, rnd()); /* the full range: int64 sums wrap */
    }
    return v;
}

/* An array of dtype t and shape (nd, shape) in layout l on dev, filled with
 * values for op; the logical (C-order) values come back in *vals. */
static nd_array *make_input(nd_device dev, nd_dtype t, int nd, const int64_t *shape, int l, int op, bool nans,
                            ew_val **vals)
{
    int64_t bshape[8], size = 1;
    int nb = nd;
    for (int i = 0; i < nd; i++) {
        bshape[i] = shape[i];
        size *= shape[i];
    }
    if (l == L_TRANS)
        for (int i = 0; i < nd; i++) bshape[i] = shape[nd - 1 - i];
    if (l == L_STEP && nd > 0) bshape[nd - 1] = shape[nd - 1] * 2 + 1;
    if (l == L_BCAST && nd > 0) bshape[0] = 1;
    int64_t bsize = 1;
    for (int i = 0; i < nb; i++) bsize *= bshape[i];
    size_t isz = nd_dtype_size(t);
    char *h = malloc((size_t)(bsize > 0 ? bsize : 1) * isz);
    for (int64_t i = 0; i < bsize; i++) ew_store(h + i * isz, t, rand_val(t, op, nans));
    nd_array *b = NULL, *v = NULL;
    ND_OK_OR_FAIL(nd_from_host(&b, h, t, nb, bshape, dev));
    free(h);
    if (l == L_TRANS) {
        ND_OK_OR_FAIL(nd_transpose(&v, b, NULL));
    } else if (l == L_STEP && nd > 0) {
        nd_range r[8];
        for (int i = 0; i < nd; i++) r[i] = ND_ALL;
        r[nd - 1] = (nd_range){1, ND_NONE, 2};
        ND_OK_OR_FAIL(nd_slice(&v, b, nd, r));
    } else if (l == L_BCAST && nd > 0) {
        ND_OK_OR_FAIL(nd_broadcast_to(&v, b, nd, shape));
    } else {
        v = nd_retain(b);
    }
    nd_release(b);
    ck_assert_int_eq(nd_size(v), size);
    nd_array *c = NULL;
    ND_OK_OR_FAIL(nd_contiguous(&c, v));
    char *hc = malloc((size_t)(size > 0 ? size : 1) * isz);
    ND_OK_OR_FAIL(nd_copy_to_host(hc, c, (size_t)size * isz));
    *vals = malloc(sizeof(ew_val) * (size_t)(size > 0 ? size : 1));
    for (int64_t i = 0; i < size; i++) (*vals)[i] = ew_load(hc + i * isz, t);
    free(hc);
    nd_release(c);
    return v;
}

static nd_dtype acc_of(nd_dtype t)
{
    if (t == ND_BOOL || ew_is_signed(t)) return ND_INT64;
    if (!nd__is_float(t)) return ND_UINT64;
    return t == ND_FLOAT64 ? ND_FLOAT64 : ND_FLOAT32;
}
static nd_dtype res_of(int op, nd_dtype t)
{
    if (op >= OP_MAX || nd__is_float(t)) return t;
    return acc_of(t);
}
static double eps_of(nd_dtype t)
{
    switch (t) {
    case ND_FLOAT16: return 9.77e-4;
    case ND_BFLOAT16: return 7.82e-3;
    case ND_FLOAT32: return 1.2e-7;
    default: return 2.3e-16;
    }
}

static ew_val step(int op, nd_dtype acc, ew_val c, ew_val x)
{
    ew_val r = c;
    if (nd__is_float(acc)) {
        double a = c.f, b = x.f;
        switch (op) {
        case OP_SUM: r.f = a + b; break;
        case OP_PROD: r.f = a * b; break;
        case OP_MAX: r.f = (isnan(a) || a > b) ? a : b; break;
        default: r.f = (isnan(a) || a < b) ? a : b; break;
        }
    } else if (acc == ND_INT64) {
        switch (op) {
        case OP_SUM: r.u = c.u + x.u; break;
        case OP_PROD: r.u = c.u * x.u; break;
        case OP_MAX: r.i = c.i > x.i ? c.i : x.i; break;
        default: r.i = c.i < x.i ? c.i : x.i; break;
        }
    } else {
        switch (op) {
        case OP_SUM: r.u = c.u + x.u; break;
        case OP_PROD: r.u = c.u * x.u; break;
        case OP_MAX: r.u = c.u > x.u ? c.u : x.u; break;
        default: r.u = c.u < x.u ? c.u : x.u; break;
        }
    }
    return r;
}

typedef nd_status (*scan_fn)(nd_array **, const nd_array *, int);
static const scan_fn fns[4] = {nd_cumsum, nd_cumprod, nd_cummax, nd_cummin};
static const char *fnames[4] = {"cumsum", "cumprod", "cummax", "cummin"};

/* Compare got (host bytes of dtype rdt, C order of shape) with the reference
 * scan of vals (dtype t) along axis (ND_AXIS_NONE: flattened). dt_req: the
 * explicit dtype (or -1). */
static void check_scan(const char *what, int op, nd_dtype t, int nd, const int64_t *shape, int axis, const ew_val *vals,
                       const char *got, nd_dtype rdt, int dt_req)
{
    int64_t outer = 1, n = 1, inner = 1, size = 1;
    for (int i = 0; i < nd; i++) size *= shape[i];
    if (axis == ND_AXIS_NONE) {
        n = size;
    } else if (nd > 0) {
        int ax = axis < 0 ? axis + nd : axis;
        for (int i = 0; i < ax; i++) outer *= shape[i];
        n = shape[ax];
        for (int i = ax + 1; i < nd; i++) inner *= shape[i];
    }
    const nd_dtype src = dt_req >= 0 ? (nd_dtype)dt_req : t;
    const nd_dtype acc = acc_of(src);
    const size_t isz = nd_dtype_size(rdt);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < inner; j++) {
            ew_val c = {0}, s = {0};
            bool gone = false;
            for (int64_t i = 0; i < n; i++) {
                int64_t k = (o * n + i) * inner + j;
                ew_val x = vals[k];
                if (src != t) { /* the explicit dtype: cast first (float -> int truncates) */
                    if (nd__is_float(t) && !nd__is_float(src) && src != ND_BOOL) {
                        ew_val w;
                        w.i = (int64_t)x.f;
                        x = ew_wrap(src, w.u);
                    } else {
                        x = ew_convert(x, t, src);
                    }
                }
                x = ew_convert(x, src, acc);
                if (nd__is_float(acc)) x.f = ew_as_double(x, acc);
                c = i == 0 ? x : step(op, acc, c, x);
                if (nd__is_float(acc)) s.f = (i == 0 ? 0 : s.f) + fabs(x.f);
                ew_val want = ew_convert(c, acc, rdt), g = ew_load(got + k * isz, rdt);
                bool ok;
                /* a product beyond the accumulator's range: its overflow
                 * point is not the double reference's */
                if (op == OP_PROD && nd__is_float(acc) && !isnan(c.f) &&
                    (fabs(c.f) > (acc == ND_FLOAT32 ? 1e37 : 1e300) || fabs(c.f) < (acc == ND_FLOAT32 ? 1e-37 : 1e-300)))
                    gone = true; /* ... nor, once it overflowed, any later element */
                if (gone) continue;
                if (!nd__is_float(rdt)) {
                    ok = rdt == ND_BOOL ? (g.i != 0) == (want.i != 0) : g.u == want.u;
                } else if (isnan(c.f) || isinf(want.f)) { /* NaN, or beyond the result dtype's range */
                    ok = isnan(c.f) ? isnan(g.f) : g.f == want.f;
                } else {
                    double tol = eps_of(rdt) * fabs(c.f) * 1.01;
                    if (op == OP_SUM) tol += 4.0 * (double)(i + 1) * eps_of(acc) * s.f;
                    if (op == OP_PROD) tol += 4.0 * (double)(i + 1) * eps_of(acc) * fabs(c.f) + 1e-300;
                    ok = fabs(g.f - c.f) <= tol;
                }
                if (!ok) {
                    char gb[64], wb[64];
                    ew_fmt(gb, sizeof gb, g, rdt);
                    ew_fmt(wb, sizeof wb, want, rdt);
                    ck_abort_msg("%s: %s %s (dtype=%d) axis %d: element %lld (o %lld i %lld j %lld) = %s, want %s", what, fnames[op],
                                 nd_dtype_name(t), dt_req, axis, (long long)k, (long long)o, (long long)i, (long long)j, gb, wb);
                }
            }
        }
}

/* One case: the fresh result and a poisoned user out must both match. */
static void run_case(nd_device dev, int op, nd_dtype t, int nd, const int64_t *shape, int axis, int l, int dt_req)
{
    bool nans = op >= OP_MAX && rnd() % 2;
    ew_val *vals = NULL;
    nd_array *a = make_input(dev, t, nd, shape, l, op, nans, &vals);
    nd_dtype rdt = dt_req >= 0 ? (nd_dtype)dt_req : res_of(op, t);
    nd_array *r = NULL;
    if (dt_req >= 0)
        ND_OK_OR_FAIL((op == OP_SUM ? nd_cumsum_dtype : nd_cumprod_dtype)(&r, a, axis, (nd_dtype)dt_req));
    else
        ND_OK_OR_FAIL(fns[op](&r, a, axis));
    ck_assert_int_eq(nd_dtype_of(r), rdt);
    int64_t size = nd_size(a);
    if (axis == ND_AXIS_NONE || nd == 0) {
        ck_assert_int_eq(nd_ndim(r), 1);
        ck_assert_int_eq(nd_shape(r)[0], size);
    } else {
        ck_assert_int_eq(nd_ndim(r), nd);
        for (int i = 0; i < nd; i++) ck_assert_int_eq(nd_shape(r)[i], shape[i]);
    }
    size_t isz = nd_dtype_size(rdt);
    char *h = malloc((size_t)(size > 0 ? size : 1) * isz);
    ND_OK_OR_FAIL(nd_copy_to_host(h, r, (size_t)size * isz));
    char what[160];
    snprintf(what, sizeof what, "%s fresh %s", nd_device_of(a).type == ND_DEVICE_CPU ? "cpu" : "cuda", lname[l]);
    check_scan(what, op, t, nd, shape, axis, vals, h, rdt, dt_req);
    /* a user out, poisoned with 0x7f bytes (NaN-like for floats) */
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_empty(&o, rdt, nd_ndim(r), nd_shape(r), nd_device_of(a)));
    memset(h, 0x7f, (size_t)(size > 0 ? size : 1) * isz);
    ND_OK_OR_FAIL(nd_copy_from_host(o, h, (size_t)size * isz));
    nd_array *o2 = o;
    if (dt_req >= 0)
        ND_OK_OR_FAIL((op == OP_SUM ? nd_cumsum_dtype : nd_cumprod_dtype)(&o2, a, axis, (nd_dtype)dt_req));
    else
        ND_OK_OR_FAIL(fns[op](&o2, a, axis));
    ck_assert_ptr_eq(o2, o);
    ND_OK_OR_FAIL(nd_copy_to_host(h, o, (size_t)size * isz));
    snprintf(what, sizeof what, "%s out %s", nd_device_of(a).type == ND_DEVICE_CPU ? "cpu" : "cuda", lname[l]);
    check_scan(what, op, t, nd, shape, axis, vals, h, rdt, dt_req);
    free(h);
    free(vals);
    nd_release(o);
    nd_release(r);
    nd_release(a);
}

static void random_cases(nd_device dev, int count)
{
    for (int c = 0; c < count; c++) {
        nd_dtype t = (nd_dtype)(rnd() % NT_NREAL);
        int op = (int)(rnd() % 4);
        int nd = (int)(rnd() % 4);
        int64_t shape[3];
        for (int i = 0; i < nd; i++) shape[i] = (int64_t)(rnd() % (rnd() % 8 == 0 ? 2 : 13)) + (rnd() % 10 ? 1 : 0);
        int axis;
        int k = (int)(rnd() % 5);
        if (nd == 0) axis = k == 0 ? 0 : (k == 1 ? -1 : ND_AXIS_NONE);
        else if (k == 4) axis = ND_AXIS_NONE;
        else axis = (int)(rnd() % (unsigned)(2 * nd)) - nd;
        if (nd == 0 && op >= OP_MAX) axis = ND_AXIS_NONE;
        int l = nd == 0 ? L_CONTIG : (int)(rnd() % L_N);
        int dt_req = -1;
        if (op <= OP_PROD && rnd() % 6 == 0) dt_req = (int)(rnd() % NT_NREAL);
        run_case(dev, op, t, nd, shape, axis, l, dt_req);
    }
}

/* The long-row paths: the CPU's two-pass scan (n >= 65536, fewer rows than
 * threads; also at 3 and 5 threads for uneven blocks and pieces), CUB on a
 * GPU (n >= 65536, up to 8 rows), the column path (inner > 1). */
static void long_cases(nd_device dev)
{
    static const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64, ND_INT64, ND_UINT8, ND_FLOAT16, ND_INT32};
    for (int ti = 0; ti < 6; ti++)
        for (int op = 0; op < 4; op++) {
            int64_t s1[1] = {100003 + ti}, s2[2] = {3, 70001}, s3[2] = {257, 1100};
            run_case(dev, op, ts[ti], 1, s1, 0, L_CONTIG, -1);
            run_case(dev, op, ts[ti], 2, s2, -1, ti % 2 ? L_STEP : L_CONTIG, -1);
            run_case(dev, op, ts[ti], 2, s3, 0, ti % 2 ? L_TRANS : L_CONTIG, -1);
        }
}

static void device_cases(nd_device dev)
{
    random_cases(dev, 400);
    long_cases(dev);
    if (dev.type == ND_DEVICE_CPU) {
        int nt = nd_get_num_threads();
        for (int k = 3; k <= 5; k += 2) {
            ND_OK_OR_FAIL(nd_set_num_threads(k));
            int64_t s1[1] = {200001};
            for (int op = 0; op < 4; op++) {
                run_case(dev, op, ND_FLOAT64, 1, s1, 0, L_CONTIG, -1);
                run_case(dev, op, ND_INT64, 1, s1, -1, L_CONTIG, -1);
                run_case(dev, op, ND_FLOAT32, 1, s1, ND_AXIS_NONE, L_STEP, -1);
            }
            int64_t s2[2] = {2, 150000};
            run_case(dev, OP_SUM, ND_FLOAT32, 2, s2, 1, L_CONTIG, -1);
        }
        ND_OK_OR_FAIL(nd_set_num_threads(nt));
    }
}

START_TEST(scan_cpu) { device_cases(nd_cpu()); }
END_TEST
START_TEST(scan_cuda) { device_cases(nd_cuda(0)); }
END_TEST

/* Fixed values from NumPy 2.4 (np.cumsum / np.cumprod / maximum.accumulate). */
static void numpy_values(nd_device dev)
{
    /* np.cumsum(np.array([[1, 2, 3], [4, 5, 6]], np.int8), axis=None) */
    int8_t a8[6] = {1, 2, 3, 4, 5, 6};
    int64_t s23[2] = {2, 3};
    nd_array *a = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, a8, ND_INT8, 2, s23, dev));
    ND_OK_OR_FAIL(nd_cumsum(&r, a, ND_AXIS_NONE));
    int64_t got[6], w1[6] = {1, 3, 6, 10, 15, 21};
    ck_assert_int_eq(nd_dtype_of(r), ND_INT64);
    ND_OK_OR_FAIL(nd_copy_to_host(got, r, sizeof got));
    for (int i = 0; i < 6; i++) ck_assert_int_eq(got[i], w1[i]);
    nd_release(r);
    r = NULL;
    /* np.cumprod(..., axis=0) -> [[1, 2, 3], [4, 10, 18]] */
    ND_OK_OR_FAIL(nd_cumprod(&r, a, 0));
    int64_t w2[6] = {1, 2, 3, 4, 10, 18};
    ND_OK_OR_FAIL(nd_copy_to_host(got, r, sizeof got));
    for (int i = 0; i < 6; i++) ck_assert_int_eq(got[i], w2[i]);
    nd_release(r);
    r = NULL;
    /* np.cumsum(np.array([100, 100], np.int64), dtype=np.int8) -> [100, -56] */
    int64_t h2[2] = {100, 100};
    int64_t s2[1] = {2};
    nd_array *b = NULL;
    ND_OK_OR_FAIL(nd_from_host(&b, h2, ND_INT64, 1, s2, dev));
    ND_OK_OR_FAIL(nd_cumsum_dtype(&r, b, 0, ND_INT8));
    int8_t g8[2];
    ck_assert_int_eq(nd_dtype_of(r), ND_INT8);
    ND_OK_OR_FAIL(nd_copy_to_host(g8, r, 2));
    ck_assert_int_eq(g8[0], 100);
    ck_assert_int_eq(g8[1], -56);
    nd_release(r);
    r = NULL;
    /* np.cumsum(np.array([1.5, 2.5]), dtype=np.int32) -> [1, 3] */
    double hd[2] = {1.5, 2.5};
    nd_array *c = NULL;
    ND_OK_OR_FAIL(nd_from_host(&c, hd, ND_FLOAT64, 1, s2, dev));
    ND_OK_OR_FAIL(nd_cumsum_dtype(&r, c, 0, ND_INT32));
    int32_t g32[2];
    ND_OK_OR_FAIL(nd_copy_to_host(g32, r, 8));
    ck_assert_int_eq(g32[0], 1);
    ck_assert_int_eq(g32[1], 3);
    nd_release(r);
    r = NULL;
    /* np.maximum.accumulate([1., nan, 3.]) -> [1., nan, nan]; minimum: the same */
    double hn[3] = {1, NAN, 3};
    int64_t s3[1] = {3};
    nd_array *d = NULL;
    ND_OK_OR_FAIL(nd_from_host(&d, hn, ND_FLOAT64, 1, s3, dev));
    for (int k = 0; k < 2; k++) {
        ND_OK_OR_FAIL((k ? nd_cummin : nd_cummax)(&r, d, 0));
        double gd[3];
        ND_OK_OR_FAIL(nd_copy_to_host(gd, r, sizeof gd));
        ck_assert(gd[0] == 1 && isnan(gd[1]) && isnan(gd[2]));
        nd_release(r);
        r = NULL;
    }
    /* np.cumsum(np.array(5)) -> [5] (0-d as 1-d) */
    nd_array *z = NULL;
    int64_t five = 5;
    ND_OK_OR_FAIL(nd_from_host(&z, &five, ND_INT64, 0, NULL, dev));
    ND_OK_OR_FAIL(nd_cumsum(&r, z, 0));
    ck_assert_int_eq(nd_ndim(r), 1);
    ND_OK_OR_FAIL(nd_copy_to_host(got, r, 8));
    ck_assert_int_eq(got[0], 5);
    nd_release(r);
    r = NULL;
    /* in place: nd_cumsum(&a, a) for float64 */
    nd_array *ip = d;
    double h4[3] = {1, 2, 3};
    ND_OK_OR_FAIL(nd_copy_from_host(d, h4, sizeof h4));
    ND_OK_OR_FAIL(nd_cumsum(&ip, d, 0));
    ck_assert_ptr_eq(ip, d);
    double gd[3];
    ND_OK_OR_FAIL(nd_copy_to_host(gd, d, sizeof gd));
    ck_assert(gd[0] == 1 && gd[1] == 3 && gd[2] == 6);

    /* errors */
    ND_EXPECT_ERR(nd_cumsum(&r, a, 2), ND_ERR_SHAPE, "axis 2 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_cumsum(&r, a, -3), ND_ERR_SHAPE, "axis -3 is out of bounds");
    ND_EXPECT_ERR(nd_cumsum(&r, z, 1), ND_ERR_SHAPE, "axis 1 is out of bounds for array of dimension 1");
    ND_EXPECT_ERR(nd_cummax(&r, z, 0), ND_ERR_INVALID, "cannot accumulate on a scalar");
    ND_EXPECT_ERR(nd_cumsum(NULL, a, 0), ND_ERR_INVALID, "'out'");
    ND_EXPECT_ERR(nd_cumsum(&r, NULL, 0), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_cumsum_dtype(&r, a, 0, (nd_dtype)99), ND_ERR_DTYPE, "invalid dtype");
    nd_array *bad = NULL;
    ND_OK_OR_FAIL(nd_empty(&bad, ND_INT64, 2, (int64_t[]){3, 2}, dev));
    nd_array *bad2 = bad;
    ND_EXPECT_ERR(nd_cumsum(&bad2, a, 0), ND_ERR_SHAPE, "nd_cumsum");
    ck_assert_ptr_eq(bad2, bad);
    nd_release(bad);
    bad = NULL;
    ND_OK_OR_FAIL(nd_empty(&bad, ND_BOOL, 2, s23, dev));
    bad2 = bad;
    ND_EXPECT_ERR(nd_cumsum(&bad2, a, 0), ND_ERR_DTYPE, "nd_cumsum"); /* int64 result into bool */
    nd_release(bad);
    ck_assert_ptr_null(r);
    nd_release(a);
    nd_release(b);
    nd_release(c);
    nd_release(d);
    nd_release(z);
}
START_TEST(scan_numpy_cpu) { numpy_values(nd_cpu()); }
END_TEST
START_TEST(scan_numpy_cuda) { numpy_values(nd_cuda(0)); }
END_TEST

/* nd_diff against a reference and NumPy 2.4 values. */
static void diff_cases(nd_device dev)
{
    /* np.diff(np.array([1, 2, 4, 7, 0], np.uint8)) -> [1, 2, 3, 249]; n=2 -> [1, 1, 246] */
    uint8_t u[5] = {1, 2, 4, 7, 0};
    int64_t s5[1] = {5};
    nd_array *a = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, u, ND_UINT8, 1, s5, dev));
    ND_OK_OR_FAIL(nd_diff(&r, a, 1, 0, NULL, NULL));
    uint8_t g[5];
    ck_assert_int_eq(nd_dtype_of(r), ND_UINT8);
    ck_assert_int_eq(nd_shape(r)[0], 4);
    ND_OK_OR_FAIL(nd_copy_to_host(g, r, 4));
    ck_assert(g[0] == 1 && g[1] == 2 && g[2] == 3 && g[3] == 249);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_diff(&r, a, 2, -1, NULL, NULL));
    ND_OK_OR_FAIL(nd_copy_to_host(g, r, 3));
    ck_assert(g[0] == 1 && g[1] == 1 && g[2] == 246);
    nd_release(r);
    r = NULL;
    /* n >= length: empty; n == 0: the input */
    ND_OK_OR_FAIL(nd_diff(&r, a, 7, 0, NULL, NULL));
    ck_assert_int_eq(nd_shape(r)[0], 0);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_diff(&r, a, 0, 0, NULL, NULL));
    ck_assert_int_eq(nd_shape(r)[0], 5);
    nd_release(r);
    r = NULL;
    /* bool: not_equal. np.diff([True, False, False]) -> [True, False] */
    uint8_t bb[3] = {1, 0, 0};
    int64_t s3[1] = {3};
    nd_array *b = NULL;
    ND_OK_OR_FAIL(nd_from_host(&b, bb, ND_BOOL, 1, s3, dev));
    ND_OK_OR_FAIL(nd_diff(&r, b, 1, 0, NULL, NULL));
    ck_assert_int_eq(nd_dtype_of(r), ND_BOOL);
    ND_OK_OR_FAIL(nd_copy_to_host(g, r, 2));
    ck_assert(g[0] == 1 && g[1] == 0);
    nd_release(r);
    r = NULL;
    /* np.diff(np.array([1, 2]), prepend=0, append=np.array([9, 9])) -> [1, 1, 7, 0] */
    int64_t i2[2] = {1, 2}, zero = 0, nine[2] = {9, 9};
    int64_t s2[1] = {2};
    nd_array *c = NULL, *p = NULL, *q = NULL;
    ND_OK_OR_FAIL(nd_from_host(&c, i2, ND_INT64, 1, s2, dev));
    ND_OK_OR_FAIL(nd_from_host(&p, &zero, ND_INT64, 0, NULL, dev));
    ND_OK_OR_FAIL(nd_from_host(&q, nine, ND_INT64, 1, s2, dev));
    ND_OK_OR_FAIL(nd_diff(&r, c, 1, 0, p, q));
    int64_t gi[4];
    ck_assert_int_eq(nd_shape(r)[0], 4);
    ND_OK_OR_FAIL(nd_copy_to_host(gi, r, sizeof gi));
    ck_assert(gi[0] == 1 && gi[1] == 1 && gi[2] == 7 && gi[3] == 0);
    nd_release(r);
    r = NULL;
    /* random 2-D float64 along each axis, transposed input, poisoned out */
    for (int k = 0; k < 20; k++) {
        int64_t sh[2] = {(int64_t)(rnd() % 6) + 1, (int64_t)(rnd() % 7) + 1};
        ew_val *vals = NULL;
        int l = (int)(rnd() % 3);
        nd_array *x = make_input(dev, ND_FLOAT64, 2, sh, l, OP_SUM, false, &vals);
        int ax = (int)(rnd() % 4) - 2, n = (int)(rnd() % 3) + 1;
        int axn = ax < 0 ? ax + 2 : ax;
        int64_t osh[2] = {sh[0], sh[1]};
        osh[axn] = sh[axn] > n ? sh[axn] - n : 0;
        nd_array *o = NULL;
        ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT64, 2, osh, nd_scalar_float(NAN), dev));
        nd_array *o2 = o;
        ND_OK_OR_FAIL(nd_diff(&o2, x, n, ax, NULL, NULL));
        double got[64];
        ND_OK_OR_FAIL(nd_copy_to_host(got, o, sizeof(double) * (size_t)(osh[0] * osh[1])));
        for (int64_t i = 0; i < osh[0]; i++)
            for (int64_t j = 0; j < osh[1]; j++) {
                /* the n-th difference: sum_k (-1)^(n-k) C(n,k) x[i+k] */
                double w = 0, cb = 1;
                for (int kk = 0; kk <= n; kk++) {
                    int64_t ii = axn == 0 ? i + kk : i, jj = axn == 1 ? j + kk : j;
                    w += ((n - kk) % 2 ? -cb : cb) * vals[ii * sh[1] + jj].f;
                    cb = cb * (n - kk) / (kk + 1);
                }
                ck_assert_msg(fabs(got[i * osh[1] + j] - w) <= 1e-12, "diff n=%d axis %d [%lld,%lld] = %g, want %g", n,
                              ax, (long long)i, (long long)j, got[i * osh[1] + j], w);
            }
        nd_release(o);
        nd_release(x);
        free(vals);
    }
    ND_EXPECT_ERR(nd_diff(&r, a, -1, 0, NULL, NULL), ND_ERR_INVALID, "order must be non-negative but got -1");
    ND_EXPECT_ERR(nd_diff(&r, p, 1, 0, NULL, NULL), ND_ERR_INVALID, "at least one dimensional");
    ND_EXPECT_ERR(nd_diff(&r, a, 1, 1, NULL, NULL), ND_ERR_SHAPE, "axis 1 is out of bounds for array of dimension 1");
    nd_array *m = NULL;
    ND_OK_OR_FAIL(nd_zeros(&m, ND_INT64, 2, (int64_t[]){2, 2}, dev));
    ND_EXPECT_ERR(nd_diff(&r, c, 1, 0, m, NULL), ND_ERR_SHAPE, "nd_diff");
    ck_assert_ptr_null(r);
    nd_release(m);
    nd_release(a);
    nd_release(b);
    nd_release(c);
    nd_release(p);
    nd_release(q);
}
START_TEST(diff_cpu) { diff_cases(nd_cpu()); }
END_TEST
START_TEST(diff_cuda) { diff_cases(nd_cuda(0)); }
END_TEST

/* cumsum/cumprod of complex with a real dtype= give that dtype (NumPy
 * casts first: the real parts for numbers, z != 0 for bool); diff with
 * n == 0 is a itself, for any ndim (NumPy returns a before looking at
 * axis, prepend and append). Values from NumPy 2.4. */
static void cpx_dtype_and_diff0(nd_device dev)
{
    /* c = np.array([0+1j, 0, 0, 2-1j]); np.cumsum(c, dtype=bool) -> [T T T T],
     * np.cumprod(c, dtype=bool) -> [T F F F], np.cumsum(c, dtype=np.int32) -> [0 0 0 2] */
    double cv[8] = {0, 1, 0, 0, 0, 0, 2, -1};
    int64_t s4[1] = {4};
    nd_array *c = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&c, cv, ND_COMPLEX128, 1, s4, dev));
    static const struct {
        bool prod;
        nd_dtype dt;
        double want[4];
    } cases[] = {
        {false, ND_BOOL, {1, 1, 1, 1}},     {true, ND_BOOL, {1, 0, 0, 0}},  {false, ND_INT32, {0, 0, 0, 2}},
        {false, ND_UINT8, {0, 0, 0, 2}},     {true, ND_INT16, {0, 0, 0, 0}}, {false, ND_FLOAT16, {0, 0, 0, 2}},
        {false, ND_FLOAT64, {0, 0, 0, 2}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ND_OK_OR_FAIL((cases[k].prod ? nd_cumprod_dtype : nd_cumsum_dtype)(&r, c, 0, cases[k].dt));
        ck_assert_msg(nd_dtype_of(r) == cases[k].dt, "case %zu: dtype %s, want %s", k, nd_dtype_name(nd_dtype_of(r)),
                      nd_dtype_name(cases[k].dt));
        double *got = cv_values(r);
        for (int i = 0; i < 4; i++)
            ck_assert_msg(got[i] == cases[k].want[i], "case %zu [%d] = %g, want %g", k, i, got[i], cases[k].want[i]);
        free(got);
        nd_release(r), r = NULL;
    }
    /* np.cumprod(np.array([1+2j, 3+4j, 5.5-1j]), dtype=np.int16) -> [1 3 15] (5.5 truncates first) */
    double pv[6] = {1, 2, 3, 4, 5.5, -1};
    int64_t s3[1] = {3};
    nd_array *p = NULL, *o = NULL;
    ND_OK_OR_FAIL(nd_from_host(&p, pv, ND_COMPLEX128, 1, s3, dev));
    ND_OK_OR_FAIL(nd_zeros(&o, ND_INT16, 1, s3, dev));
    nd_array *o0 = o;
    ND_OK_OR_FAIL(nd_cumprod_dtype(&o, p, 0, ND_INT16));
    ck_assert_ptr_eq(o, o0);
    cv_expect_values(o, 3, (const double[]){1, 3, 15});

    /* diff with n == 0: a itself (a new reference) whatever its ndim, axis,
     * prepend or append; a given out receives a copy */
    nd_array *z = NULL, *m = NULL;
    ND_OK_OR_FAIL(nd_full(&z, ND_FLOAT32, 0, NULL, nd_scalar_float(2.5), dev));
    ND_OK_OR_FAIL(nd_diff(&r, z, 0, 0, NULL, NULL));
    ck_assert_ptr_eq(r, z);
    nd_release(r), r = NULL;
    ND_EXPECT_ERR(nd_diff(&r, z, 1, 0, NULL, NULL), ND_ERR_INVALID, "at least one dimensional");
    ND_OK_OR_FAIL(nd_zeros(&m, ND_INT64, 2, (int64_t[]){2, 2}, dev));
    ND_OK_OR_FAIL(nd_diff(&r, p, 0, 5, m, z)); /* np.diff(p, 0, axis=5, prepend=m, append=z) is p */
    ck_assert_ptr_eq(r, p);
    nd_release(r), r = NULL;
    ND_OK_OR_FAIL(nd_diff(&r, p, 0, 0, z, NULL));
    ck_assert_ptr_eq(r, p);
    nd_release(r), r = NULL;
    nd_array *f = NULL;
    ND_OK_OR_FAIL(nd_full(&f, ND_FLOAT64, 0, NULL, nd_scalar_float(-1), dev));
    nd_array *f0 = f;
    ND_OK_OR_FAIL(nd_diff(&f, z, 0, 0, NULL, NULL));
    ck_assert_ptr_eq(f, f0);
    cv_expect_values(f, 1, (const double[]){2.5});
    ND_EXPECT_ERR(nd_diff(&f, p, 0, 0, NULL, NULL), ND_ERR_SHAPE, "nd_diff");
    ck_assert_ptr_eq(f, f0);
    ND_EXPECT_ERR(nd_diff(&r, p, -1, 0, NULL, NULL), ND_ERR_INVALID, "order must be non-negative but got -1");
    nd_release(f), nd_release(m), nd_release(z), nd_release(o), nd_release(p), nd_release(c);
}
START_TEST(cpx_dtype_diff0_cpu) { cpx_dtype_and_diff0(nd_cpu()); }
END_TEST
START_TEST(cpx_dtype_diff0_cuda) { cpx_dtype_and_diff0(nd_cuda(0)); }
END_TEST

/* Float sums and products of long rows give the same bits every run (the
 * GPU's long-row path combines in an order fixed by its tiles; a scan that
 * combines in whatever order its blocks finish would not), and stay close
 * to a sequential long double reference. */
static void repeat_cases(nd_device dev)
{
    static const int64_t shapes[3][2] = {{1, 200003}, {3, 70001}, {8, 65536}};
    for (int ti = 0; ti < 2; ti++)
        for (int op = 0; op < 2; op++)
            for (int si = 0; si < 3; si++) {
                const nd_dtype t = ti ? ND_FLOAT64 : ND_FLOAT32;
                const int64_t rows = shapes[si][0], n = shapes[si][1], total = rows * n;
                double *h = malloc((size_t)total * sizeof(double));
                for (int64_t i = 0; i < total; i++)
                    h[i] = op == 0 ? unif(-1.0, 1.0) : 1.0 + unif(-1.0, 1.0) * 1e-4; /* products stay finite */
                nd_array *hd = NULL, *a = NULL, *r[3] = {NULL, NULL, NULL};
                ND_OK_OR_FAIL(nd_from_host(&hd, h, ND_FLOAT64, 2, shapes[si], nd_cpu()));
                ND_OK_OR_FAIL(nd_astype(&a, hd, t));
                nd_array *ad = NULL;
                ND_OK_OR_FAIL(nd_to_device(&ad, a, dev));
                unsigned char *got[3];
                const size_t isz = nd_dtype_size(t), nb = (size_t)total * isz;
                for (int k = 0; k < 3; k++) {
                    ND_OK_OR_FAIL((op == 0 ? nd_cumsum : nd_cumprod)(&r[k], ad, 1));
                    got[k] = malloc(nb);
                    ND_OK_OR_FAIL(nd_copy_to_host(got[k], r[k], nb));
                }
                for (int k = 1; k < 3; k++)
                    ck_assert_msg(memcmp(got[0], got[k], nb) == 0, "%s %s (%lld, %lld): run %d differs from run 0",
                                  op ? "cumprod" : "cumsum", nd_dtype_name(t), (long long)rows, (long long)n, k);
                /* against a long double sequential scan of the rounded inputs */
                double *x = malloc((size_t)total * sizeof(double));
                nd_array *ac = NULL;
                ND_OK_OR_FAIL(nd_astype(&ac, a, ND_FLOAT64));
                ND_OK_OR_FAIL(nd_copy_to_host(x, ac, (size_t)total * sizeof(double)));
                const double eps = t == ND_FLOAT32 ? 0x1p-24 : 0x1p-53;
                for (int64_t row = 0; row < rows; row++) {
                    long double acc = op == 0 ? 0.0L : 1.0L, absacc = 0.0L;
                    for (int64_t i = 0; i < n; i++) {
                        const double xi = x[row * n + i];
                        acc = op == 0 ? acc + xi : acc * xi;
                        absacc = op == 0 ? absacc + fabsl((long double)xi) : fabsl(acc);
                        double g;
                        if (t == ND_FLOAT32) {
                            float f;
                            memcpy(&f, got[0] + (size_t)(row * n + i) * isz, 4);
                            g = f;
                        } else {
                            memcpy(&g, got[0] + (size_t)(row * n + i) * isz, 8);
                        }
                        /* a sum of i terms in any grouping errs by at most (i - 1) eps sum |x| */
                        const long double bound = 1.01L * (long double)(i + 1) * eps * (absacc + fabsl(acc));
                        ck_assert_msg(fabsl((long double)g - acc) <= bound, "%s %s row %lld element %lld: %.17g vs %.17Lg",
                                      op ? "cumprod" : "cumsum", nd_dtype_name(t), (long long)row, (long long)i, g, acc);
                    }
                }
                for (int k = 0; k < 3; k++) free(got[k]), nd_release(r[k]);
                free(x), free(h);
                nd_release(ac), nd_release(ad), nd_release(a), nd_release(hd);
            }
}

START_TEST(repeat_cpu) { repeat_cases(nd_cpu()); }
END_TEST
START_TEST(repeat_cuda) { repeat_cases(nd_cuda(0)); }
END_TEST

Suite *suite_scan(void)
{
    Suite *s = suite_create("scan");
    TCase *tc = tcase_create("scan");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, scan_cpu);
    tcase_add_test(tc, repeat_cpu);
    tcase_add_test(tc, scan_numpy_cpu);
    tcase_add_test(tc, diff_cpu);
    tcase_add_test(tc, cpx_dtype_diff0_cpu);
    if (nd_test_gpu_count() > 0) {
        tcase_add_test(tc, scan_cuda);
        tcase_add_test(tc, repeat_cuda);
        tcase_add_test(tc, scan_numpy_cuda);
        tcase_add_test(tc, diff_cuda);
        tcase_add_test(tc, cpx_dtype_diff0_cuda);
    } else {
        printf("scan: cuda backend SKIPPED (no GPU)\n");
        fflush(stdout);
    }
    suite_add_tcase(s, tc);
    return s;
}
