/* Correctness findings (found against NumPy 2.4 and with
 * hostile input), one test each; expected values are NumPy's. Device cases
 * run on nd_default_device(): the CPU in `make test`, the (emulated) GPU in
 * `make emu-test`. */
#include "test_util.h"

static nd_array *from_f64(const double *v, int64_t n, nd_dtype t, nd_device dev)
{
    nd_array *h = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&h, v, ND_FLOAT64, 1, &n, dev));
    ND_OK_OR_FAIL(nd_astype(&r, h, t));
    nd_release(h);
    return r;
}

/* a's n values converted to dtype t (8-byte float64 or int64) on the host. */
static void fetch(const nd_array *a, nd_dtype t, void *v, int64_t n)
{
    nd_array *f = NULL, *h = NULL;
    ND_OK_OR_FAIL(nd_astype(&f, a, t));
    ND_OK_OR_FAIL(nd_to_device(&h, f, nd_cpu()));
    ND_OK_OR_FAIL(nd_copy_to_host(v, h, (size_t)n * 8));
    nd_release(f);
    nd_release(h);
}
static void get_f64(const nd_array *a, double *v, int64_t n) { fetch(a, ND_FLOAT64, v, n); }
static void get_i64(const nd_array *a, int64_t *v, int64_t n) { fetch(a, ND_INT64, v, n); }

/* hypot, arctan2, copysign on mixed signed/unsigned integers: the smallest
 * float both inputs convert to safely. */
START_TEST(test_float_ops_mixed_sign_ints)
{
    nd_device dev = nd_default_device();
    static const struct {
        nd_dtype a, b, want;
    } cases[] = {
        {ND_INT8, ND_UINT8, ND_FLOAT16},   {ND_UINT8, ND_INT8, ND_FLOAT16},   {ND_INT8, ND_UINT16, ND_FLOAT32},
        {ND_INT16, ND_UINT16, ND_FLOAT32}, {ND_INT32, ND_UINT32, ND_FLOAT64}, {ND_INT64, ND_UINT64, ND_FLOAT64},
        {ND_BOOL, ND_UINT8, ND_FLOAT16},   {ND_INT8, ND_INT16, ND_FLOAT32},   {ND_UINT8, ND_UINT8, ND_FLOAT16},
    };
    const nd_binary_op ops[3] = {ND_BINARY_HYPOT, ND_BINARY_ARCTAN2, ND_BINARY_COPYSIGN};
    const double av[2] = {3, 1}, bv[2] = {4, 1};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nd_array *a = from_f64(av, 2, cases[i].a, dev), *b = from_f64(bv, 2, cases[i].b, dev);
        for (int k = 0; k < 3; k++) {
            nd_array *r = NULL;
            ND_OK_OR_FAIL(nd_binary(&r, ops[k], a, b));
            ck_assert_msg(nd_dtype_of(r) == cases[i].want, "op %d on %s, %s gives %s, NumPy %s", (int)ops[k],
                          nd_dtype_name(cases[i].a), nd_dtype_name(cases[i].b), nd_dtype_name(nd_dtype_of(r)),
                          nd_dtype_name(cases[i].want));
            double got[2];
            get_f64(r, got, 2);
            double x = cases[i].a == ND_BOOL ? 1 : 3, want = k == 0 ? hypot(x, 4) : k == 1 ? atan2(x, 4) : x;
            double tol = cases[i].want == ND_FLOAT16 ? 2e-3 : 1e-6;
            ck_assert_msg(fabs(got[0] - want) <= tol * fabs(want), "op %d: %g, want %g", (int)ops[k], got[0], want);
            nd_release(r);
        }
        nd_release(a);
        nd_release(b);
    }
}
END_TEST

/* Finding (the array API suite through python/ndgpu): nd_clip
 * mis-broadcast a bound with more dimensions than a ((3,2) clipped by a
 * (4,3,2) bound failed with "shapes (4,2) and (4,3,2) do not broadcast"):
 * the broadcast shape was computed in place. NumPy: np.clip(a, lo, hi)
 * broadcasts all three. */
START_TEST(test_clip_bound_with_more_dims)
{
    const int64_t sa[2] = {3, 2}, sl[3] = {4, 3, 2}, sh[1] = {2};
    double av[6], lv[24], hv[2] = {2.5, 4.0};
    for (int i = 0; i < 6; i++) av[i] = i;
    for (int i = 0; i < 24; i++) lv[i] = (i % 5) * 0.75;
    nd_array *a = NULL, *lo = NULL, *hi = NULL, *o = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, av, ND_FLOAT64, 2, sa, nd_cpu()));
    ND_OK_OR_FAIL(nd_from_host(&lo, lv, ND_FLOAT64, 3, sl, nd_cpu()));
    ND_OK_OR_FAIL(nd_from_host(&hi, hv, ND_FLOAT64, 1, sh, nd_cpu()));
    ND_OK_OR_FAIL(nd_clip(&o, a, lo, hi));
    ck_assert_int_eq(nd_ndim(o), 3);
    ck_assert(nd_shape(o)[0] == 4 && nd_shape(o)[1] == 3 && nd_shape(o)[2] == 2);
    double r[24];
    ND_OK_OR_FAIL(nd_copy_to_host(r, o, sizeof r));
    for (int i = 0; i < 24; i++) {
        double want = fmin(fmax(av[i % 6], lv[i]), hv[i % 2]);
        ck_assert_msg(r[i] == want, "element %d: %g, want %g", i, r[i], want);
    }
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_clip(&o, a, NULL, lo)); /* hi only, with more dims */
    ck_assert_int_eq(nd_ndim(o), 3);
    nd_release(a), nd_release(lo), nd_release(hi), nd_release(o);
}
END_TEST

/* clip with int and float bounds on uint8: both bounds decide the dtype. */
START_TEST(test_clip_scalar_bounds_promote_together)
{
    nd_device dev = nd_default_device();
    const double v[2] = {7, 200};
    nd_array *a = from_f64(v, 2, ND_UINT8, dev), *r = NULL;
    ND_OK_OR_FAIL(nd_clip_scalar(&r, a, nd_scalar_int(-1), nd_scalar_float(100.5)));
    ck_assert_int_eq(nd_dtype_of(r), ND_FLOAT64);
    double got[2];
    get_f64(r, got, 2);
    ck_assert(got[0] == 7.0 && got[1] == 100.5);
    nd_release(r);
    r = NULL;
    /* integer bounds keep uint8; -1 clips nothing (NumPy 2) */
    ND_OK_OR_FAIL(nd_clip_scalar(&r, a, nd_scalar_int(-1), nd_scalar_int(100)));
    ck_assert_int_eq(nd_dtype_of(r), ND_UINT8);
    get_f64(r, got, 2);
    ck_assert(got[0] == 7.0 && got[1] == 100.0);
    nd_release(r);
    nd_release(a);
}
END_TEST

/* np.full casts a float fill value unsafely, as astype does. */
START_TEST(test_full_float_value_casts)
{
    nd_device dev = nd_default_device();
    static const struct {
        double v;
        nd_dtype t;
        int64_t want;
    } cases[] = {
        {-166.0, ND_UINT32, 4294967130LL}, {65504.0, ND_INT16, -32},      {NAN, ND_INT32, INT32_MIN},
        {INFINITY, ND_INT64, INT64_MIN},   {300.7, ND_UINT8, 44},         {-1.5, ND_UINT8, 255},
        {3e9, ND_INT32, INT32_MIN},        {-1e30, ND_INT8, 0},
    };
    const int64_t shape[1] = {2};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nd_array *a = NULL;
        ND_OK_OR_FAIL(nd_full(&a, cases[i].t, 1, shape, nd_scalar_float(cases[i].v), dev));
        int64_t got[2];
        get_i64(a, got, 2);
        ck_assert_msg(got[0] == cases[i].want && got[1] == cases[i].want, "full(%g, %s) = %lld, NumPy %lld", cases[i].v,
                      nd_dtype_name(cases[i].t), (long long)got[0], (long long)cases[i].want);
        nd_release(a);
    }
    /* a Python int must fit, as in NumPy 2 */
    nd_array *a = NULL;
    ND_EXPECT_ERR(nd_full(&a, ND_UINT8, 1, shape, nd_scalar_int(300), dev), ND_ERR_INVALID, "300");
    ck_assert_ptr_null(a);
}
END_TEST

/* Logical ops with a weak float scalar test the scalar's own truth. */
START_TEST(test_logical_weak_scalar_truth)
{
    nd_device dev = nd_default_device();
    const double v[1] = {969.0}, z[1] = {0.0};
    nd_array *a = from_f64(v, 1, ND_FLOAT16, dev), *b = from_f64(z, 1, ND_FLOAT16, dev), *r = NULL;
    double got;
    ND_OK_OR_FAIL(nd_scalar_binary(&r, ND_BINARY_LOGICAL_XOR, nd_scalar_float(1e-40), a));
    ck_assert_int_eq(nd_dtype_of(r), ND_BOOL);
    get_f64(r, &got, 1);
    ck_assert_msg(got == 0.0, "logical_xor(1e-40, float16 969) is True; NumPy False");
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_LOGICAL_OR, b, nd_scalar_float(1e-40)));
    get_f64(r, &got, 1);
    ck_assert(got == 1.0);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_LOGICAL_AND, a, nd_scalar_float(NAN)));
    get_f64(r, &got, 1);
    ck_assert(got == 1.0);
    nd_release(r);
    nd_release(a);
    nd_release(b);
}
END_TEST

/* A slice step of INT64_MIN + 1 on a length-0 axis: its stride is
 * normalised, so nothing multiplies it by the item size. */
START_TEST(test_huge_stride_on_empty_axis)
{
    nd_device dev = nd_default_device();
    for (int nd = 1; nd <= 2; nd++) {
        nd_array *a = NULL, *v = NULL, *s = NULL;
        const int64_t shape[2] = {0, 3};
        ND_OK_OR_FAIL(nd_zeros(&a, ND_FLOAT64, nd, shape, dev));
        const nd_range r[1] = {{ND_NONE, ND_NONE, INT64_MIN + 1}};
        nd_array *t = NULL; /* axis 0 with stride 1: the slice's stride is then -(2^63 - 1) */
        if (nd == 2) ND_OK_OR_FAIL(nd_transpose(&t, a, NULL));
        ND_OK_OR_FAIL(nd_slice(&v, t ? t : a, 1, r));
        ck_assert_int_eq(nd_shape(v)[0], (nd == 1 ? 0 : 1)); /* 2-D: 1 of the 3 rows, the 0-length axis last */
        for (int i = 0; i < nd; i++)
            ck_assert_msg(nd_strides(v)[i] > -(INT64_MAX / 8) && nd_strides(v)[i] < INT64_MAX / 8, "stride %lld kept",
                          (long long)nd_strides(v)[i]);
        ND_OK_OR_FAIL(nd_reduce(&s, ND_REDUCE_SUM, v, 0, NULL, false));
        double got = 1;
        get_f64(s, &got, 1);
        ck_assert(got == 0);
        nd_release(s);
        nd_release(v);
        nd_release(t);
        nd_release(a);
    }
}
END_TEST

static void noop_deleter(DLManagedTensorVersioned *t) { (void)t; }

static DLManagedTensorVersioned host_tensor(void *data, int ndim, int64_t *shape, int64_t *strides, uint64_t flags)
{
    DLManagedTensorVersioned t;
    memset(&t, 0, sizeof t);
    t.version.major = 1;
    t.deleter = noop_deleter;
    t.flags = flags;
    t.dl_tensor.data = data;
    t.dl_tensor.device.device_type = kDLCPU;
    t.dl_tensor.ndim = ndim;
    t.dl_tensor.dtype.code = kDLFloat;
    t.dl_tensor.dtype.bits = 64;
    t.dl_tensor.dtype.lanes = 1;
    t.dl_tensor.shape = shape;
    t.dl_tensor.strides = strides;
    return t;
}

/* DLPack: a byte span of exactly INT64_MIN is refused; a length-0 axis
 * with an extreme stride imports with a normalised stride. */
START_TEST(test_dlpack_hostile_strides)
{
    double buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int64_t shape[2] = {2, 3}, strides[2] = {-((int64_t)1 << 60), 1};
    DLManagedTensorVersioned t = host_tensor(buf, 2, shape, strides, 0);
    nd_array *a = NULL;
    ND_EXPECT_ERR(nd_from_dlpack(&a, &t), ND_ERR_INVALID, "overflow");
    ck_assert_ptr_null(a);

    int64_t shape0[2] = {0, 3};
    for (int k = 0; k < 2; k++) {
        int64_t st0[2] = {k ? INT64_MIN : INT64_MAX, 1};
        DLManagedTensorVersioned t0 = host_tensor(buf, 2, shape0, st0, 0);
        nd_array *b = NULL, *s = NULL;
        ND_OK_OR_FAIL(nd_from_dlpack(&b, &t0));
        ck_assert(nd_strides(b)[0] > -(INT64_MAX / 8) && nd_strides(b)[0] < INT64_MAX / 8);
        const int ax[1] = {0};
        ND_OK_OR_FAIL(nd_reduce(&s, ND_REDUCE_SUM, b, 1, ax, false));
        ck_assert_int_eq(nd_size(s), 3);
        nd_release(s);
        nd_release(b);
    }
}
END_TEST

/* A read-only DLPack import is refused as a destination. */
START_TEST(test_dlpack_read_only_not_written)
{
    double buf[3] = {1, 2, 3}, src[3] = {9, 9, 9};
    int64_t shape[1] = {3};
    DLManagedTensorVersioned t = host_tensor(buf, 1, shape, NULL, DLPACK_FLAG_BITMASK_READ_ONLY);
    nd_array *ro = NULL, *x = NULL, *v = NULL;
    ND_OK_OR_FAIL(nd_from_dlpack(&ro, &t));
    ND_OK_OR_FAIL(nd_from_host(&x, src, ND_FLOAT64, 1, shape, nd_cpu()));
    nd_array *keep = ro;
    ND_EXPECT_ERR(nd_add(&ro, x, x), ND_ERR_INVALID, "read-only");
    ND_EXPECT_ERR(nd_copy(&ro, x), ND_ERR_INVALID, "read-only");
    ND_EXPECT_ERR(nd_copy_from_host(ro, src, sizeof src), ND_ERR_INVALID, "read-only");
    const nd_range r = {0, 2, 1};
    ND_OK_OR_FAIL(nd_slice(&v, ro, 1, &r)); /* views stay read-only */
    ND_EXPECT_ERR(nd_add(&v, v, v), ND_ERR_INVALID, "read-only");
    ck_assert(ro == keep && buf[0] == 1 && buf[1] == 2 && buf[2] == 3);
    nd_release(v);
    nd_release(x);
    nd_release(ro);
}
END_TEST

/* arange over integers is exact beyond 2^53 (tagged scalars). */
START_TEST(test_arange_exact_integers)
{
    nd_device dev = nd_default_device();
    const int64_t p53 = (int64_t)1 << 53, p62 = (int64_t)1 << 62;
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_arange_scalar(&a, ND_INT64, nd_scalar_int(p53 + 1), nd_scalar_int(p53 + 5), nd_scalar_int(1), dev));
    ck_assert_int_eq(nd_size(a), 4);
    int64_t got[4];
    get_i64(a, got, 4);
    for (int i = 0; i < 4; i++) ck_assert_int_eq(got[i], p53 + 1 + i);
    nd_release(a);
    a = NULL;
    ND_OK_OR_FAIL(nd_arange_scalar(&a, ND_INT64, nd_scalar_int(p62), nd_scalar_int(p62 + 3), nd_scalar_int(1), dev));
    ck_assert_int_eq(nd_size(a), 3);
    get_i64(a, got, 3);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(got[i], p62 + i);
    nd_release(a);
    a = NULL;
    ND_OK_OR_FAIL(nd_arange_scalar(&a, ND_INT64, nd_scalar_int(INT64_MAX - 2), nd_scalar_int(INT64_MAX), nd_scalar_int(1), dev));
    get_i64(a, got, 2);
    ck_assert(nd_size(a) == 2 && got[0] == INT64_MAX - 2 && got[1] == INT64_MAX - 1);
    nd_release(a);
    a = NULL;
    /* NumPy: np.arange(250, 260, 3, dtype=np.uint8) wraps after start */
    ND_OK_OR_FAIL(nd_arange_scalar(&a, ND_UINT8, nd_scalar_int(250), nd_scalar_int(260), nd_scalar_int(3), dev));
    get_i64(a, got, 4);
    ck_assert(nd_size(a) == 4 && got[0] == 250 && got[1] == 253 && got[2] == 0 && got[3] == 3);
    nd_release(a);
    a = NULL;
    ND_OK_OR_FAIL(nd_arange_scalar(&a, ND_INT8, nd_scalar_int(10), nd_scalar_int(0), nd_scalar_int(-3), dev));
    get_i64(a, got, 4);
    ck_assert(nd_size(a) == 4 && got[0] == 10 && got[3] == 1);
    nd_release(a);
    a = NULL;
    ND_EXPECT_ERR(nd_arange_scalar(&a, ND_UINT8, nd_scalar_int(-3), nd_scalar_int(3), nd_scalar_int(2), dev),
                  ND_ERR_INVALID, "out of bounds for uint8");
    ND_EXPECT_ERR(nd_arange_scalar(&a, ND_INT64, nd_scalar_int(0), nd_scalar_int(3), nd_scalar_int(0), dev),
                  ND_ERR_INVALID, "step");
    ND_EXPECT_ERR(nd_arange_scalar(&a, ND_INT64, nd_scalar_int(0), nd_scalar_none(), nd_scalar_int(1), dev),
                  ND_ERR_INVALID, "stop");
    ND_EXPECT_ERR(nd_arange_scalar(&a, ND_INT64, nd_scalar_int(INT64_MIN), nd_scalar_int(INT64_MAX), nd_scalar_int(1), dev),
                  ND_ERR_INVALID, "maximum allowed size");
    ck_assert_ptr_null(a);
    /* a float scalar computes as nd_arange does: NumPy's [1, 3, 5, 7] */
    ND_OK_OR_FAIL(nd_arange_scalar(&a, ND_INT32, nd_scalar_int(1), nd_scalar_int(10), nd_scalar_float(2.5), dev));
    get_i64(a, got, 4);
    ck_assert(nd_size(a) == 4 && got[0] == 1 && got[1] == 3 && got[2] == 5 && got[3] == 7);
    nd_release(a);
}
END_TEST

Suite *suite_findings(void)
{
    Suite *s = suite_create("findings");
    TCase *tc = tcase_create("findings");
    tcase_add_test(tc, test_float_ops_mixed_sign_ints);
    tcase_add_test(tc, test_clip_scalar_bounds_promote_together);
    tcase_add_test(tc, test_clip_bound_with_more_dims);
    tcase_add_test(tc, test_full_float_value_casts);
    tcase_add_test(tc, test_logical_weak_scalar_truth);
    tcase_add_test(tc, test_huge_stride_on_empty_axis);
    tcase_add_test(tc, test_dlpack_hostile_strides);
    tcase_add_test(tc, test_dlpack_read_only_not_written);
    tcase_add_test(tc, test_arange_exact_integers);
    suite_add_tcase(s, tc);
    return s;
}
