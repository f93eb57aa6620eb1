/* Suite "sort": nd_sort, nd_argsort, nd_partition, nd_argpartition,
 * nd_topk on every dtype, axis, layout and device (cpu, and cuda:0 when
 * there is one: the emulated device under make emu-test), against a
 * reference in the test: a qsort of (long double value, index) pairs with
 * NaNs last (either sign) and ties by index, so the stable order is exact;
 * sorted values are compared BIT FOR BIT with the input element the
 * reference index names (this checks -0.0 and NaN payloads too). */
#include "test_util.h"

#include "sort_ref.h"

/* ------------------------------------------------------------------ */
/* The checks                                                          */
/* ------------------------------------------------------------------ */
/* Check sort/argsort of x (on dev) along axis (normalised) against the
 * reference; desc for ND_SORT_DESCENDING. */
static void check_sort(nd_array *x, int axis, bool desc, const char *what)
{
    unsigned fl = ND_SORT_STABLE | (desc ? ND_SORT_DESCENDING : 0);
    nd_array *v = NULL, *ix = NULL;
    ND_OK_OR_FAIL(nd_sort(&v, x, axis, fl));
    ND_OK_OR_FAIL(nd_argsort(&ix, x, axis, fl));
    sr_host hx, hv, hi;
    sr_load(&hx, x);
    sr_load(&hv, v);
    sr_load(&hi, ix);
    ck_assert_int_eq(nd_dtype_of(v), nd_dtype_of(x));
    ck_assert_int_eq(nd_dtype_of(ix), ND_INT64);
    int nd = nd_ndim(x);
    const int64_t *sh = nd_shape(x);
    if (axis < 0) axis += nd; /* nd_sort got the negative axis */
    int64_t n = sh[axis], inner = 1;
    for (int d = axis + 1; d < nd; d++) inner *= sh[d];
    int64_t outer = n ? hx.n / n / (inner ? inner : 1) : 0;
    if (inner == 0) outer = 0;
    int64_t *ref = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    long double *vals = malloc(sizeof(long double) * (size_t)(n ? n : 1));
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            int64_t base = o * n * inner + in;
            for (int64_t j = 0; j < n; j++) vals[j] = hx.v[base + j * inner];
            sr_ref_order(vals, n, desc, ref);
            for (int64_t j = 0; j < n; j++) {
                int64_t p = base + j * inner;
                ck_assert_msg(hi.i[p] == ref[j], "%s: argsort slice (%lld,%lld) pos %lld: %lld, want %lld", what,
                              (long long)o, (long long)in, (long long)j, (long long)hi.i[p], (long long)ref[j]);
                ck_assert_msg(sr_bits_eq(&hv, p, &hx, base + ref[j] * inner), "%s: sort slice (%lld,%lld) pos %lld: bits differ (%Lg vs %Lg)",
                              what, (long long)o, (long long)in, (long long)j, hv.v[p], hx.v[base + ref[j] * inner]);
            }
        }
    free(ref);
    free(vals);
    sr_free(&hx);
    sr_free(&hv);
    sr_free(&hi);
    nd_release(v);
    nd_release(ix);
}

/* partition property: element kth in sorted position, none before larger,
 * none after smaller (values and argpartition). */
static void check_partition(nd_array *x, int axis, int64_t kth)
{
    nd_array *p = NULL, *pi = NULL;
    ND_OK_OR_FAIL(nd_partition(&p, x, kth, axis));
    ND_OK_OR_FAIL(nd_argpartition(&pi, x, kth, axis));
    sr_host hx, hp, hpi;
    sr_load(&hx, x);
    sr_load(&hp, p);
    sr_load(&hpi, pi);
    int nd = nd_ndim(x);
    const int64_t *sh = nd_shape(x);
    int64_t n = sh[axis], inner = 1;
    for (int d = axis + 1; d < nd; d++) inner *= sh[d];
    int64_t outer = hx.n / n / inner;
    int64_t k = kth < 0 ? kth + n : kth;
    int64_t *ref = malloc(sizeof(int64_t) * (size_t)n);
    long double *vals = malloc(sizeof(long double) * (size_t)n);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            int64_t base = o * n * inner + in;
            for (int64_t j = 0; j < n; j++) vals[j] = hx.v[base + j * inner];
            sr_ref_order(vals, n, false, ref);
            long double kv = vals[ref[k]];
            for (int64_t j = 0; j < n; j++) {
                long double a = hp.v[base + j * inner];
                int64_t ij = hpi.i[base + j * inner];
                ck_assert(ij >= 0 && ij < n);
                long double b = vals[ij];
                int c1 = sr_cmp_ld(a, kv), c2 = sr_cmp_ld(b, kv);
                if (j < k) ck_assert_msg(c1 <= 0 && c2 <= 0, "partition: before kth larger");
                else if (j > k) ck_assert_msg(c1 >= 0 && c2 >= 0, "partition: after kth smaller");
                else ck_assert_msg(c1 == 0 && c2 == 0, "partition: kth not in place");
            }
        }
    free(ref);
    free(vals);
    sr_free(&hx);
    sr_free(&hp);
    sr_free(&hpi);
    nd_release(p);
    nd_release(pi);
}

/* topk: the first k of the stable descending (largest) / ascending sort. */
static void check_topk(nd_array *x, int axis, int64_t k, bool largest)
{
    nd_array *v = NULL, *ix = NULL;
    ND_OK_OR_FAIL(nd_topk(&v, &ix, x, k, axis, largest, true));
    sr_host hx, hv, hi;
    sr_load(&hx, x);
    sr_load(&hv, v);
    sr_load(&hi, ix);
    int nd = nd_ndim(x);
    const int64_t *sh = nd_shape(x);
    ck_assert_int_eq(nd_shape(v)[axis], k);
    int64_t n = sh[axis], inner = 1;
    for (int d = axis + 1; d < nd; d++) inner *= sh[d];
    int64_t outer = hx.n / n / inner;
    int64_t *ref = malloc(sizeof(int64_t) * (size_t)n);
    long double *vals = malloc(sizeof(long double) * (size_t)n);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            int64_t base = o * n * inner + in, rbase = o * k * inner + in;
            for (int64_t j = 0; j < n; j++) vals[j] = hx.v[base + j * inner];
            sr_ref_order(vals, n, largest, ref);
            for (int64_t j = 0; j < k; j++) {
                int64_t p = rbase + j * inner;
                ck_assert_msg(hi.i[p] == ref[j], "topk k=%lld largest=%d pos %lld: index %lld, want %lld", (long long)k,
                              largest, (long long)j, (long long)hi.i[p], (long long)ref[j]);
                ck_assert(sr_bits_eq(&hv, p, &hx, base + ref[j] * inner));
            }
        }
    free(ref);
    free(vals);
    sr_free(&hx);
    sr_free(&hv);
    sr_free(&hi);
    nd_release(v);
    nd_release(ix);
}

/* ------------------------------------------------------------------ */
/* The cases                                                           */
/* ------------------------------------------------------------------ */
static const struct {
    int ndim;
    int64_t shape[3];
} shapes[] = {{1, {1}}, {1, {2}}, {1, {17}}, {1, {300}}, {2, {3, 50}}, {2, {40, 7}}, {3, {2, 3, 33}}, {2, {5, 1}}};

static void sort_dtype(nd_device dev, nd_dtype t)
{
    uint64_t seed = 1234 + (uint64_t)t;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int nd = shapes[s].ndim;
        for (int lay = 0; lay < SR_NLAYOUTS; lay++) {
            nd_array *x = sr_make(t, nd, shapes[s].shape, lay, &seed, dev);
            for (int ax = -nd; ax < nd; ax++) {
                int a = ax < 0 ? ax + nd : ax;
                char what[96];
                snprintf(what, sizeof what, "%s shape#%zu layout %d axis %d", nd_dtype_name(t), s, lay, ax);
                check_sort(x, ax < 0 ? ax : a, false, what);
                if (lay == 0 || t == ND_FLOAT32) check_sort(x, a, true, what);
                int64_t n = nd_shape(x)[a];
                if (lay == 0 || lay == 1) {
                    check_partition(x, a, n / 2);
                    check_partition(x, a, -1);
                    check_topk(x, a, n < 3 ? n : 3, true);
                    check_topk(x, a, n, false);
                }
            }
            nd_release(x);
        }
    }
}

START_TEST(test_sort_dtypes)
{
    nd_device dev = sr_dev(_i / NT_NREAL);
    sort_dtype(dev, (nd_dtype)(_i % NT_NREAL));
}
END_TEST

/* Long rows: the threaded (chunked) CPU path, many ties, NaNs, flattening. */
START_TEST(test_sort_long)
{
    nd_device dev = sr_dev(_i);
    uint64_t seed = 99;
    static const nd_dtype ts[] = {ND_FLOAT32, ND_INT16, ND_UINT64, ND_FLOAT64, ND_BFLOAT16};
    for (size_t q = 0; q < sizeof ts / sizeof ts[0]; q++) {
        int64_t shape[1] = {70001 + (int64_t)q * 3000};
        nd_array *x = sr_make(ts[q], 1, shape, 0, &seed, dev);
        check_sort(x, 0, false, "long");
        if (q < 2) check_sort(x, 0, true, "long desc");
        check_topk(x, 0, 10, true);
        check_topk(x, 0, 100, false);
        nd_release(x);
    }
    /* a few long rows: the 2-D paths */
    int64_t s2[2] = {3, 70000};
    nd_array *y = sr_make(ND_FLOAT32, 2, s2, 0, &seed, dev);
    check_sort(y, 1, false, "3 long rows");
    check_sort(y, 0, false, "3 long rows, axis 0");
    nd_release(y);
}
END_TEST

/* The row shapes on each side of the CUDA backend's choice between one
 * device-wide sort per row (n >= 2^16 and rows * 2^13 <= n) and one
 * segmented sort of all rows, and the CPU's between threaded chunks of one
 * long row and a row per thread: every dtype width (8-bit keys are sorted
 * on their low 8 bits), ascending and descending, with the argsort indices
 * checked for stability (the inputs are full of ties, +-0.0 and NaNs of
 * both signs). */
START_TEST(test_sort_paths)
{
    nd_device dev = sr_dev(_i);
    uint64_t seed = 4242;
    static const struct {
        nd_dtype t;
        int64_t rows, n;
    } cs[] = {
        {ND_FLOAT32, 8, 65536},  /* device-wide, at the crossover */
        {ND_FLOAT32, 9, 65536},  /* segmented: one row too many */
        {ND_INT8, 2, 70000},     /* device-wide, 8-bit keys */
        {ND_BOOL, 1, 65536},     /* device-wide, the smallest long row */
        {ND_FLOAT64, 1, 65535},  /* segmented: one element short */
        {ND_INT16, 3000, 3},     /* many short rows */
        {ND_FLOAT16, 600, 33},
        {ND_UINT32, 257, 300},
        {ND_FLOAT64, 5000, 1},
    };
    for (size_t q = 0; q < sizeof cs / sizeof cs[0]; q++) {
        int64_t shape[2] = {cs[q].rows, cs[q].n};
        nd_array *x = sr_make(cs[q].t, 2, shape, 0, &seed, dev);
        char what[96];
        snprintf(what, sizeof what, "paths %s %lldx%lld", nd_dtype_name(cs[q].t), (long long)cs[q].rows,
                 (long long)cs[q].n);
        check_sort(x, 1, false, what);
        check_sort(x, 1, true, what);
        nd_release(x);
    }
}
END_TEST

/* axis none, 0-d, empty arrays, stride-0 input, poisoned user outputs */
START_TEST(test_sort_shapes)
{
    nd_device dev = sr_dev(_i);
    uint64_t seed = 7;
    int64_t s23[2] = {4, 6};
    nd_array *x = sr_make(ND_FLOAT64, 2, s23, 1, &seed, dev), *f = NULL, *flat = NULL, *ref = NULL;
    ND_OK_OR_FAIL(nd_sort(&f, x, ND_AXIS_NONE, 0));
    ck_assert_int_eq(nd_ndim(f), 1);
    ck_assert_int_eq(nd_shape(f)[0], 24);
    int64_t n24 = 24;
    ND_OK_OR_FAIL(nd_reshape(&flat, x, 1, &n24));
    ND_OK_OR_FAIL(nd_sort(&ref, flat, 0, 0));
    sr_assert_same(f, ref);
    nd_release(f);
    nd_release(ref);
    nd_release(flat);
    /* poisoned out: a user array of the right shape filled with 0x7f */
    nd_array *o = NULL, *oi = NULL, *want = NULL;
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT64, 2, s23, (nd_scalar){.kind = ND_SCALAR_FLOAT, .v.f = 1e300}, dev));
    ND_OK_OR_FAIL(nd_full(&oi, ND_INT64, 2, s23, (nd_scalar){.kind = ND_SCALAR_INT, .v.i = 0x7f7f7f7f7f7f7f7f}, dev));
    nd_array *o0 = o, *oi0 = oi;
    ND_OK_OR_FAIL(nd_sort(&o, x, 0, 0));
    ND_OK_OR_FAIL(nd_argsort(&oi, x, 1, 0));
    ck_assert_ptr_eq(o, o0);
    ck_assert_ptr_eq(oi, oi0);
    ND_OK_OR_FAIL(nd_sort(&want, x, 0, 0));
    sr_assert_same(o, want);
    nd_release(want);
    want = NULL;
    ND_OK_OR_FAIL(nd_argsort(&want, x, 1, 0));
    sr_assert_same(oi, want);
    nd_release(want);
    want = NULL;
    /* a float32 out takes the float64 sort (same_kind) */
    nd_array *o32 = NULL;
    ND_OK_OR_FAIL(nd_zeros(&o32, ND_FLOAT32, 2, s23, dev));
    ND_OK_OR_FAIL(nd_sort(&o32, x, -1, 0));
    /* in place: out is the input */
    nd_array *xc = NULL;
    ND_OK_OR_FAIL(nd_copy(&xc, x));
    nd_array *xc0 = xc;
    ND_OK_OR_FAIL(nd_sort(&xc, xc, 1, 0));
    ck_assert_ptr_eq(xc, xc0);
    ND_OK_OR_FAIL(nd_sort(&want, x, 1, 0));
    sr_assert_same(xc, want);
    nd_release(want);
    want = NULL;
    /* topk into poisoned user outputs (values float32 from float64: same_kind) */
    int64_t s43[2] = {4, 3};
    nd_array *tv = NULL, *ti = NULL, *fv = NULL, *fi = NULL;
    ND_OK_OR_FAIL(nd_full(&tv, ND_FLOAT64, 2, s43, (nd_scalar){.kind = ND_SCALAR_FLOAT, .v.f = NAN}, dev));
    ND_OK_OR_FAIL(nd_full(&ti, ND_INT64, 2, s43, (nd_scalar){.kind = ND_SCALAR_INT, .v.i = -99}, dev));
    nd_array *tv0 = tv, *ti0 = ti;
    ND_OK_OR_FAIL(nd_topk(&tv, &ti, x, 3, 1, false, true));
    ck_assert_ptr_eq(tv, tv0);
    ck_assert_ptr_eq(ti, ti0);
    ND_OK_OR_FAIL(nd_topk(&fv, &fi, x, 3, -1, false, true));
    sr_assert_same(tv, fv);
    sr_assert_same(ti, fi);
    nd_release(tv);
    nd_release(ti);
    nd_release(fv);
    nd_release(fi);
    /* partition into a poisoned out */
    nd_array *po = NULL, *po0 = NULL;
    ND_OK_OR_FAIL(nd_full(&po, ND_FLOAT64, 2, s23, (nd_scalar){.kind = ND_SCALAR_FLOAT, .v.f = -7}, dev));
    po0 = po;
    ND_OK_OR_FAIL(nd_partition(&po, x, 2, 0));
    ck_assert_ptr_eq(po, po0);
    ND_OK_OR_FAIL(nd_sort(&want, x, 0, 0));
    sr_assert_same(po, want); /* this implementation's partition is the sort */
    nd_release(po);
    nd_release(want);
    nd_release(xc);
    nd_release(o32);
    nd_release(o);
    nd_release(oi);
    nd_release(x);
    /* empty arrays and empty axes */
    int64_t se[2] = {0, 5}, se2[2] = {3, 0};
    nd_array *e = NULL, *r = NULL, *ri = NULL;
    ND_OK_OR_FAIL(nd_zeros(&e, ND_INT32, 2, se, dev));
    ND_OK_OR_FAIL(nd_sort(&r, e, 1, 0));
    ck_assert_int_eq(nd_size(r), 0);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_topk(&r, &ri, e, 5, 1, true, true));
    ck_assert_int_eq(nd_shape(r)[1], 5);
    nd_release(r);
    nd_release(ri);
    r = ri = NULL;
    nd_release(e);
    e = NULL;
    ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT16, 2, se2, dev));
    ND_OK_OR_FAIL(nd_argsort(&r, e, 1, 0));
    ck_assert_int_eq(nd_size(r), 0);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_topk(&r, &ri, e, 0, 1, false, true));
    ck_assert_int_eq(nd_size(r), 0);
    nd_release(r);
    nd_release(ri);
    r = ri = NULL;
    /* k == 0 on a non-empty axis */
    ND_OK_OR_FAIL(nd_topk(&r, &ri, e, 0, 0, true, false));
    ck_assert_int_eq(nd_shape(r)[0], 0);
    nd_release(r);
    nd_release(ri);
    nd_release(e);
    /* 0-d: sort needs axis none, topk takes one element */
    nd_array *z = NULL, *zv = NULL, *zi = NULL;
    ND_OK_OR_FAIL(nd_full(&z, ND_INT8, 0, NULL, (nd_scalar){.kind = ND_SCALAR_INT, .v.i = -3}, dev));
    ND_EXPECT_ERR(nd_sort(&zv, z, 0, 0), ND_ERR_SHAPE, "axis 0 is out of bounds for array of dimension 0");
    ND_OK_OR_FAIL(nd_sort(&zv, z, ND_AXIS_NONE, 0));
    ck_assert_int_eq(nd_ndim(zv), 1);
    nd_release(zv);
    zv = NULL;
    ND_OK_OR_FAIL(nd_topk(&zv, &zi, z, 1, -1, true, true));
    ck_assert_int_eq(nd_ndim(zv), 0);
    int8_t zval = 0;
    int64_t zidx = 5;
    ND_OK_OR_FAIL(nd_copy_to_host(&zval, zv, 1));
    ND_OK_OR_FAIL(nd_copy_to_host(&zidx, zi, 8));
    ck_assert_int_eq(zval, -3);
    ck_assert_int_eq(zidx, 0);
    nd_release(zv);
    nd_release(zi);
    nd_release(z);
}
END_TEST

/* NumPy 2.4 on a hand-made case (values pasted from
 * np.argsort(x, kind='stable') and np.sort(x)). */
START_TEST(test_sort_numpy)
{
    nd_device dev = sr_dev(_i);
    const double xs[] = {3.0, NAN, -0.0, 1.0, -NAN, 0.0, -INFINITY, 1.0, INFINITY, -2.5};
    /* np.argsort(x, kind='stable') -> [6 9 2 5 3 7 0 8 1 4] */
    const int64_t want[] = {6, 9, 2, 5, 3, 7, 0, 8, 1, 4};
    int64_t n = 10;
    nd_array *h = NULL, *x = NULL, *ix = NULL, *v = NULL;
    ND_OK_OR_FAIL(nd_from_host(&h, xs, ND_FLOAT64, 1, &n, nd_cpu()));
    ND_OK_OR_FAIL(nd_to_device(&x, h, dev));
    ND_OK_OR_FAIL(nd_argsort(&ix, x, 0, ND_SORT_STABLE));
    ND_OK_OR_FAIL(nd_sort(&v, x, 0, ND_SORT_STABLE));
    int64_t got[10];
    double gv[10];
    ND_OK_OR_FAIL(nd_copy_to_host(got, ix, sizeof got));
    ND_OK_OR_FAIL(nd_copy_to_host(gv, v, sizeof gv));
    for (int i = 0; i < 10; i++) ck_assert_int_eq(got[i], want[i]);
    ck_assert(signbit(gv[2]) && !signbit(gv[3]) && gv[2] == 0.0 && gv[3] == 0.0); /* -0.0 then 0.0, as given */
    ck_assert(isnan(gv[8]) && !signbit(gv[8]) && isnan(gv[9]) && signbit(gv[9]));
    nd_release(ix);
    nd_release(v);
    v = ix = NULL;
    /* topk: torch.topk(x, 3) -> values [nan, nan, inf], indices [1, 4, 8] */
    ND_OK_OR_FAIL(nd_topk(&v, &ix, x, 3, 0, true, true));
    ND_OK_OR_FAIL(nd_copy_to_host(got, ix, 3 * 8));
    ck_assert(got[0] == 1 && got[1] == 4 && got[2] == 8);
    nd_release(v);
    nd_release(ix);
    v = ix = NULL;
    /* smallest 3 -> [-inf, -2.5, -0.0] at [6, 9, 2] */
    ND_OK_OR_FAIL(nd_topk(&v, NULL, x, 3, 0, false, false));
    ND_OK_OR_FAIL(nd_copy_to_host(gv, v, 3 * 8));
    ck_assert(gv[0] == -INFINITY && gv[1] == -2.5 && gv[2] == 0.0 && signbit(gv[2]));
    nd_release(v);
    nd_release(x);
    nd_release(h);
}
END_TEST

START_TEST(test_sort_errors)
{
    nd_device dev = sr_dev(_i);
    int64_t s[2] = {3, 4};
    nd_array *x = NULL, *o = NULL, *o2 = NULL;
    ND_OK_OR_FAIL(nd_zeros(&x, ND_FLOAT32, 2, s, dev));
    ND_EXPECT_ERR(nd_sort(&o, x, 2, 0), ND_ERR_SHAPE, "axis 2 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_argsort(&o, x, -3, 0), ND_ERR_SHAPE, "axis -3 is out of bounds");
    ND_EXPECT_ERR(nd_sort(&o, x, 0, 0x10), ND_ERR_INVALID, "unknown flags");
    ND_EXPECT_ERR(nd_sort(NULL, x, 0, 0), ND_ERR_INVALID, "out");
    ND_EXPECT_ERR(nd_sort(&o, NULL, 0, 0), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_partition(&o, x, 4, 1), ND_ERR_INVALID, "kth(=4) out of bounds (4)");
    ND_EXPECT_ERR(nd_argpartition(&o, x, -5, 1), ND_ERR_INVALID, "kth(=-5) out of bounds (4)");
    ND_EXPECT_ERR(nd_partition(&o, x, 0, 5), ND_ERR_SHAPE, "axis 5 is out of bounds");
    /* kth is not checked on an empty array (NumPy 2.4: np.partition(np.zeros((0, 3)), 5) is the empty array) */
    const int64_t es[3][2] = {{0, 3}, {3, 0}, {0, 0}};
    for (int k = 0; k < 3; k++) {
        nd_array *e = NULL;
        ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT32, 2, es[k], dev));
        ND_OK_OR_FAIL(nd_partition(&o, e, 0, -1));
        ck_assert(nd_size(o) == 0 && nd_shape(o)[0] == es[k][0] && nd_shape(o)[1] == es[k][1]);
        nd_release(o), o = NULL;
        ND_OK_OR_FAIL(nd_argpartition(&o, e, 5, 0));
        ck_assert(nd_size(o) == 0 && nd_dtype_of(o) == ND_INT64);
        nd_release(o), o = NULL;
        ND_OK_OR_FAIL(nd_partition(&o, e, -7, ND_AXIS_NONE));
        ck_assert(nd_ndim(o) == 1 && nd_size(o) == 0);
        nd_release(o), o = NULL;
        ND_EXPECT_ERR(nd_partition(&o, e, 0, 2), ND_ERR_SHAPE, "axis 2 is out of bounds");
        nd_release(e);
    }
    ND_EXPECT_ERR(nd_topk(&o, &o2, x, 5, 1, true, true), ND_ERR_INVALID, "k (5) is out of range");
    ND_EXPECT_ERR(nd_topk(&o, &o2, x, -1, 1, true, true), ND_ERR_INVALID, "k (-1)");
    ND_EXPECT_ERR(nd_topk(&o, &o2, x, 1, 2, true, true), ND_ERR_SHAPE, "axis 2 is out of bounds");
    ND_EXPECT_ERR(nd_topk(NULL, NULL, x, 1, 1, true, true), ND_ERR_INVALID, "both NULL");
    /* wrong out shape / dtype kind */
    nd_array *bad = NULL;
    int64_t s3[1] = {12};
    ND_OK_OR_FAIL(nd_zeros(&bad, ND_FLOAT32, 1, s3, dev));
    nd_array *keep = bad;
    ck_assert_int_eq(nd_sort(&bad, x, 0, 0), ND_ERR_SHAPE);
    ck_assert_ptr_eq(bad, keep);
    nd_release(bad);
    bad = NULL;
    ND_OK_OR_FAIL(nd_zeros(&bad, ND_BOOL, 2, s, dev));
    ck_assert_int_eq(nd_argsort(&bad, x, 0, 0), ND_ERR_DTYPE); /* int64 -> bool is not same_kind */
    nd_release(bad);
    ck_assert_ptr_null(o);
    ck_assert_ptr_null(o2);
    nd_release(x);
}
END_TEST

/* The CPU's SIMD sort (32/64-bit integers and floats on the AVX-512 and
 * AVX2 paths; `make test-isa` runs this suite on each path, and the
 * baseline path's radix sort) under several thread counts: the long-row
 * path (partition steps into segments sorted in parallel, the packed
 * 32-bit argsort, the (key, index) 64-bit argsort and its tie runs), the
 * many-rows path, rows too short to split, and the inputs that do not
 * split (one value), split once (two values) or arrive in order. */
START_TEST(test_sort_simd_paths)
{
    static const nd_dtype ts[] = {ND_INT32, ND_UINT32, ND_FLOAT32, ND_INT64, ND_UINT64, ND_FLOAT64};
    static const int threads[] = {1, 2, 3, 7};
    static const int64_t shapes[][2] = {{1, 70001}, {2, 66000}, {5, 300}, {3, 17}, {1, 4100}};
    int nt0 = nd_get_num_threads();
    uint64_t seed = 4242;
    nd_dtype t = ts[_i];
    for (size_t q = 0; q < sizeof threads / sizeof threads[0]; q++) {
        ND_OK_OR_FAIL(nd_set_num_threads(threads[q]));
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            nd_array *x = sr_make(t, 2, shapes[s], 0, &seed, nd_cpu());
            char what[96];
            snprintf(what, sizeof what, "simd %s threads %d shape %lldx%lld", nd_dtype_name(t), threads[q],
                     (long long)shapes[s][0], (long long)shapes[s][1]);
            check_sort(x, 1, false, what);
            check_sort(x, 1, true, what);
            nd_release(x);
        }
        /* one value; two values; ascending and descending runs */
        int64_t n = 70001;
        nd_array *one = NULL, *ar = NULL, *two = NULL, *rev = NULL, *neg = NULL;
        ND_OK_OR_FAIL(nd_full(&one, t, 1, &n, (nd_scalar){.kind = ND_SCALAR_INT, .v.i = 7}, nd_cpu()));
        ND_OK_OR_FAIL(nd_arange(&ar, t, 0, (double)n, 1, nd_cpu()));
        ND_OK_OR_FAIL(nd_binary_scalar(&two, ND_BINARY_REMAINDER, ar, (nd_scalar){.kind = ND_SCALAR_INT, .v.i = 2}));
        ND_OK_OR_FAIL(nd_arange(&rev, ND_FLOAT64, (double)n, 0, -1, nd_cpu()));
        ND_OK_OR_FAIL(nd_astype(&neg, rev, t));
        check_sort(one, 0, false, "simd one value");
        check_sort(two, 0, true, "simd two values");
        check_sort(ar, 0, false, "simd ascending");
        check_sort(neg, 0, false, "simd descending");
        nd_release(one);
        nd_release(ar);
        nd_release(two);
        nd_release(rev);
        nd_release(neg);
    }
    ND_OK_OR_FAIL(nd_set_num_threads(nt0));
}
END_TEST

Suite *suite_sort(void)
{
    Suite *s = suite_create("sort");
    int ndev = 1 + (nd_test_gpu_count() > 0);
    TCase *tc = tcase_create("sort");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_sort_dtypes, 0, NT_NREAL * ndev);
    tcase_add_loop_test(tc, test_sort_long, 0, ndev);
    tcase_add_loop_test(tc, test_sort_paths, 0, ndev);
    tcase_add_loop_test(tc, test_sort_shapes, 0, ndev);
    tcase_add_loop_test(tc, test_sort_numpy, 0, ndev);
    tcase_add_loop_test(tc, test_sort_errors, 0, ndev);
    tcase_add_loop_test(tc, test_sort_simd_paths, 0, 6);
    suite_add_tcase(s, tc);
    return s;
}
