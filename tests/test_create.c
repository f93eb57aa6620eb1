/* Creation: zeros, ones, full, arange, linspace, eye, *_like. Expected
 * values come from NumPy 2.4 (pasted as constants). */
#include "creation_util.h"

#define NELEMS(x) ((int64_t)(sizeof(x) / sizeof((x)[0])))

/* ------------------------------------------------------------------ */
/* zeros / ones / full: every dtype, every device                       */
/* ------------------------------------------------------------------ */
START_TEST(test_zeros_ones_every_dtype)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    int64_t shape[3] = {2, 3, 4};
    for (int d = 0; d < nd; d++) {
        for (int k = 0; k < ND_NUM_DTYPES; k++) {
            nd_dtype t = cv_all_dtypes[k];
            nd_array *z = NULL, *o = NULL;
            ND_OK_OR_FAIL(nd_zeros(&z, t, 3, shape, devs[d]));
            ND_OK_OR_FAIL(nd_ones(&o, t, 3, shape, devs[d]));
            ck_assert_int_eq(nd_dtype_of(z), t);
            ck_assert_int_eq(nd_dtype_of(o), t);
            ck_assert(nd_is_contiguous(z) && nd_is_contiguous(o));
            cv_expect_shape(z, 3, shape);
            ck_assert_int_eq(nd_device_of(o).type, devs[d].type);
            double *vz = cv_values(z), *vo = cv_values(o);
            for (int i = 0; i < 24; i++) {
                ck_assert_msg(vz[i] == 0.0, "%s zeros[%d] = %g", nd_dtype_name(t), i, vz[i]);
                ck_assert_msg(vo[i] == 1.0, "%s ones[%d] = %g", nd_dtype_name(t), i, vo[i]);
            }
            free(vz);
            free(vo);
            nd_release(z);
            nd_release(o);
        }
    }
}
END_TEST

START_TEST(test_full_every_dtype)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    int64_t shape[2] = {3, 5};
    /* np.full((3,5), v, dtype) for a value exact in every dtype */
    for (int d = 0; d < nd; d++) {
        for (int k = 0; k < ND_NUM_DTYPES; k++) {
            nd_dtype t = cv_all_dtypes[k];
            nd_array *a = NULL, *b = NULL, *c = NULL;
            ND_OK_OR_FAIL(nd_full(&a, t, 2, shape, nd_scalar_int(5), devs[d]));
            ND_OK_OR_FAIL(nd_full(&b, t, 2, shape, nd_scalar_float(7.0), devs[d]));
            ND_OK_OR_FAIL(nd_full(&c, t, 2, shape, nd_scalar_bool(true), devs[d]));
            double want_a = t == ND_BOOL ? 1.0 : 5.0, want_b = t == ND_BOOL ? 1.0 : 7.0;
            double *va = cv_values(a), *vb = cv_values(b), *vc = cv_values(c);
            for (int i = 0; i < 15; i++) {
                ck_assert_msg(va[i] == want_a, "%s: full(5)[%d] = %g", nd_dtype_name(t), i, va[i]);
                ck_assert_msg(vb[i] == want_b, "%s: full(7.0)[%d] = %g", nd_dtype_name(t), i, vb[i]);
                ck_assert_msg(vc[i] == 1.0, "%s: full(True)[%d] = %g", nd_dtype_name(t), i, vc[i]);
            }
            free(va);
            free(vb);
            free(vc);
            nd_release(a);
            nd_release(b);
            nd_release(c);
        }
    }
}
END_TEST

/* Read the single raw element of a 0-d / 1-element array. */
static void one_raw(const nd_array *a, void *dst) { ND_OK_OR_FAIL(nd_copy_to_host(dst, a, nd_nbytes(a))); }

START_TEST(test_full_conversions)
{
    int64_t one = 1;
    nd_array *a = NULL;
    /* np.full(3, 2.7, int) -> 2; -2.7 -> -2 (truncation) */
    ND_OK_OR_FAIL(nd_full(&a, ND_INT64, 1, &one, nd_scalar_float(2.7), nd_cpu()));
    int64_t i64;
    one_raw(a, &i64);
    ck_assert_int_eq(i64, 2);
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, ND_INT8, 1, &one, nd_scalar_float(-2.7), nd_cpu()));
    int8_t i8;
    one_raw(a, &i8);
    ck_assert_int_eq(i8, -2);
    nd_release(a), a = NULL;
    /* np.full(3, 0.5, bool) -> True; NaN -> True; 0.0 -> False; 5 -> True */
    const double fb[3] = {0.5, NAN, 0.0};
    const uint8_t wb[3] = {1, 1, 0};
    for (int i = 0; i < 3; i++) {
        uint8_t b;
        ND_OK_OR_FAIL(nd_full(&a, ND_BOOL, 1, &one, nd_scalar_float(fb[i]), nd_cpu()));
        one_raw(a, &b);
        ck_assert_int_eq(b, wb[i]);
        nd_release(a), a = NULL;
    }
    ND_OK_OR_FAIL(nd_full(&a, ND_BOOL, 1, &one, nd_scalar_int(-5), nd_cpu()));
    uint8_t b;
    one_raw(a, &b);
    ck_assert_int_eq(b, 1);
    nd_release(a), a = NULL;
    /* float16(0.1) = 0x2e66, bfloat16(0.1) = 0x3dcd, float16(1e5) = inf (0x7c00) */
    uint16_t h;
    ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT16, 1, &one, nd_scalar_float(0.1), nd_cpu()));
    one_raw(a, &h);
    ck_assert_uint_eq(h, 0x2e66);
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, ND_BFLOAT16, 1, &one, nd_scalar_float(0.1), nd_cpu()));
    one_raw(a, &h);
    ck_assert_uint_eq(h, 0x3dcd);
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT16, 1, &one, nd_scalar_int(100000), nd_cpu()));
    one_raw(a, &h);
    ck_assert_uint_eq(h, 0x7c00);
    nd_release(a), a = NULL;
    /* bfloat16(257) ties to even -> 256 (0x4380); an int scalar goes to
     * float32 through float64 as in NumPy: np.full(1, 2**62 + 2**38 + 1,
     * np.float32) is 2**62 (the int64 -> float32 cast would round up) */
    ND_OK_OR_FAIL(nd_full(&a, ND_BFLOAT16, 1, &one, nd_scalar_int(257), nd_cpu()));
    one_raw(a, &h);
    ck_assert_uint_eq(h, 0x4380);
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT32, 1, &one, nd_scalar_int(((int64_t)1 << 62) + ((int64_t)1 << 38) + 1), nd_cpu()));
    float f;
    one_raw(a, &f);
    ck_assert(f == 4611686018427387904.0f);
    nd_release(a), a = NULL;
    /* extremes: int64 min, uint64 from a float above 2^63, NaN in float32 */
    ND_OK_OR_FAIL(nd_full(&a, ND_INT64, 1, &one, nd_scalar_int(INT64_MIN), nd_cpu()));
    one_raw(a, &i64);
    ck_assert(i64 == INT64_MIN);
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, ND_UINT64, 1, &one, nd_scalar_float(1.8e19), nd_cpu()));
    uint64_t u64;
    one_raw(a, &u64);
    ck_assert(u64 == UINT64_C(18000000000000000000));
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT32, 1, &one, nd_scalar_float(NAN), nd_cpu()));
    one_raw(a, &f);
    ck_assert(isnan(f));
    nd_release(a), a = NULL;
    /* 0-d and zero-size */
    ND_OK_OR_FAIL(nd_full(&a, ND_UINT8, 0, NULL, nd_scalar_int(255), nd_cpu()));
    ck_assert_int_eq(nd_ndim(a), 0);
    ck_assert_int_eq(nd_size(a), 1);
    uint8_t u8;
    one_raw(a, &u8);
    ck_assert_int_eq(u8, 255);
    nd_release(a), a = NULL;
    int64_t zs[2] = {0, 3};
    ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT32, 2, zs, nd_scalar_float(1.5), nd_cpu()));
    cv_expect_shape(a, 2, zs);
    ck_assert_int_eq(nd_size(a), 0);
    nd_release(a);
}
END_TEST

START_TEST(test_full_bad_values)
{
    int64_t one = 1;
    nd_array *a = NULL;
    /* NumPy: OverflowError "Python integer 300 out of bounds for uint8" */
    ND_EXPECT_ERR(nd_full(&a, ND_UINT8, 1, &one, nd_scalar_int(300), nd_cpu()), ND_ERR_INVALID, "out of bounds for uint8");
    ND_EXPECT_ERR(nd_full(&a, ND_UINT8, 1, &one, nd_scalar_int(-1), nd_cpu()), ND_ERR_INVALID, "-1 is out of bounds");
    ND_EXPECT_ERR(nd_full(&a, ND_INT8, 1, &one, nd_scalar_int(128), nd_cpu()), ND_ERR_INVALID, "out of bounds for int8");
    ND_EXPECT_ERR(nd_full(&a, ND_UINT64, 1, &one, nd_scalar_int(-1), nd_cpu()), ND_ERR_INVALID, "out of bounds for uint64");
    /* NaN / inf / out of range floats into integers are cast as astype
     * casts (np.full is copyto with casting='unsafe'): tests/test_findings.c */
    /* no value / a bad kind */
    ND_EXPECT_ERR(nd_full(&a, ND_FLOAT32, 1, &one, nd_scalar_none(), nd_cpu()), ND_ERR_INVALID, "ND_SCALAR_NONE");
    nd_scalar bad = nd_scalar_int(1);
    bad.kind = (nd_scalar_kind)42;
    ND_EXPECT_ERR(nd_full(&a, ND_FLOAT32, 1, &one, bad, nd_cpu()), ND_ERR_INVALID, "invalid scalar kind 42");
    ck_assert_ptr_null(a);
    /* -0.5 truncates to 0, which fits an unsigned type */
    ND_OK_OR_FAIL(nd_full(&a, ND_UINT8, 1, &one, nd_scalar_float(-0.5), nd_cpu()));
    uint8_t u8 = 99;
    one_raw(a, &u8);
    ck_assert_int_eq(u8, 0);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* arange                                                              */
/* ------------------------------------------------------------------ */
static void expect_arange(nd_dtype t, double start, double stop, double step, int64_t n, const double *want)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int d = 0; d < nd; d++) {
        nd_array *a = NULL;
        ND_OK_OR_FAIL(nd_arange(&a, t, start, stop, step, devs[d]));
        ck_assert_int_eq(nd_ndim(a), 1);
        ck_assert_int_eq(nd_dtype_of(a), t);
        cv_expect_values(a, n, want);
        nd_release(a);
    }
}

START_TEST(test_arange_float)
{
    /* np.arange(0, 1, 0.1).tolist() */
    const double w1[] = {0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001, 0.7000000000000001, 0.8, 0.9};
    expect_arange(ND_FLOAT64, 0, 1, 0.1, 10, w1);
    /* np.arange(0, 1, 0.1, dtype=np.float32).tolist() */
    const double w2[] = {0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896, 0.4000000059604645, 0.5,
                         0.6000000238418579, 0.699999988079071, 0.800000011920929, 0.9000000357627869};
    expect_arange(ND_FLOAT32, 0, 1, 0.1, 10, w2);
    /* np.arange(0.1, 1.0, 0.2).tolist() */
    const double w3[] = {0.1, 0.30000000000000004, 0.5000000000000001, 0.7000000000000001, 0.9000000000000001};
    expect_arange(ND_FLOAT64, 0.1, 1.0, 0.2, 5, w3);
    /* np.arange(3, -7, -2.5, dtype=np.float32) */
    const double w4[] = {3.0, 0.5, -2.0, -4.5};
    expect_arange(ND_FLOAT32, 3, -7, -2.5, 4, w4);
    /* np.arange(0, 10, 3) in float16 and bfloat16 (exact) */
    const double w5[] = {0, 3, 6, 9};
    expect_arange(ND_FLOAT16, 0, 10, 3, 4, w5);
    expect_arange(ND_BFLOAT16, 0, 10, 3, 4, w5);
    /* empty results: wrong direction, start == stop */
    expect_arange(ND_FLOAT64, 10, 0, 3, 0, w5);
    expect_arange(ND_FLOAT32, 0, 10, -1, 0, w5);
    expect_arange(ND_FLOAT64, 2, 2, 1, 0, w5);
    /* one element: step larger than the range */
    const double w6[] = {0.25};
    expect_arange(ND_FLOAT64, 0.25, 1, 100, 1, w6);
}
END_TEST

START_TEST(test_arange_float16_bits)
{
    /* np.arange(0, 1, 0.1, dtype=np.float16).view(np.uint16) and
     * np.arange(0, 2, 0.3, dtype=np.float16): NumPy's fill computes
     * start + i*delta in float32 with delta = e1 - e0 */
    const uint16_t w1[] = {0x0, 0x2e66, 0x3266, 0x34cc, 0x3666, 0x3800, 0x38cc, 0x3999, 0x3a66, 0x3b33};
    const uint16_t w2[] = {0x0, 0x34cd, 0x38cd, 0x3b34, 0x3ccd, 0x3e00, 0x3f34};
    nd_array *a = NULL;
    uint16_t got[10];
    ND_OK_OR_FAIL(nd_arange(&a, ND_FLOAT16, 0, 1, 0.1, nd_cpu()));
    ck_assert_int_eq(nd_size(a), 10);
    ND_OK_OR_FAIL(nd_copy_to_host(got, a, sizeof(uint16_t) * 10));
    for (int i = 0; i < 10; i++) ck_assert_msg(got[i] == w1[i], "[%d] 0x%x != 0x%x", i, got[i], w1[i]);
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_arange(&a, ND_FLOAT16, 0, 2, 0.3, nd_cpu()));
    ck_assert_int_eq(nd_size(a), 7);
    ND_OK_OR_FAIL(nd_copy_to_host(got, a, sizeof(uint16_t) * 7));
    for (int i = 0; i < 7; i++) ck_assert_msg(got[i] == w2[i], "[%d] 0x%x != 0x%x", i, got[i], w2[i]);
    nd_release(a);
}
END_TEST

START_TEST(test_arange_int)
{
    const double w1[] = {10, 7, 4, 1}; /* np.arange(10, 0, -3) */
    expect_arange(ND_INT64, 10, 0, -3, 4, w1);
    expect_arange(ND_INT16, 10, 0, -3, 4, w1);
    const double w2[] = {0, 2, 4}; /* np.arange(0.5, 5, 1.5, dtype=int): delta = int(2.0) - int(0.5) */
    expect_arange(ND_INT64, 0.5, 5, 1.5, 3, w2);
    const double w3[] = {1, 1, 1, 1}; /* np.arange(1, 2, 0.3, dtype=int) */
    expect_arange(ND_INT32, 1, 2, 0.3, 4, w3);
    const double w4[] = {-2, -1, 0, 1, 2}; /* np.arange(-2.5, 2, 1.0, dtype=int) */
    expect_arange(ND_INT64, -2.5, 2, 1.0, 5, w4);
    const double w5[] = {250, 251, 252, 253, 254, 255, 0, 1, 2, 3}; /* np.arange(250, 260, dtype=np.uint8) */
    expect_arange(ND_UINT8, 250, 260, 1, 10, w5);
    const double w6[] = {120, 121, 122, 123, 124, 125, 126, 127, -128, -127}; /* np.arange(120, 130, dtype=np.int8) */
    expect_arange(ND_INT8, 120, 130, 1, 10, w6);
    const double w7[] = {5, 2, 255, 252}; /* np.arange(5, -5, -3, dtype=np.uint8) */
    expect_arange(ND_UINT8, 5, -5, -3, 4, w7);
    const double w8[] = {0, 1}; /* np.arange(0, 2, dtype=bool) */
    expect_arange(ND_BOOL, 0, 2, 1, 2, w8);
    expect_arange(ND_UINT64, 7, 3, 1, 0, w8); /* empty */
    /* np.arange(2**53, 2**53 + 4, dtype=np.int64): exact in integers */
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_arange(&a, ND_INT64, 9007199254740992.0, 9007199254740996.0, 1, nd_cpu()));
    int64_t got[4];
    ND_OK_OR_FAIL(nd_copy_to_host(got, a, sizeof got));
    for (int i = 0; i < 4; i++) ck_assert(got[i] == 9007199254740992LL + i);
    nd_release(a);
}
END_TEST

START_TEST(test_arange_bad)
{
    nd_array *a = NULL;
    ND_EXPECT_ERR(nd_arange(NULL, ND_FLOAT64, 0, 1, 1, nd_cpu()), ND_ERR_INVALID, "'out' is NULL");
    ND_EXPECT_ERR(nd_arange(&a, ND_FLOAT64, 0, 1, 0, nd_cpu()), ND_ERR_INVALID, "step must be finite and non-zero");
    ND_EXPECT_ERR(nd_arange(&a, ND_FLOAT64, 0, 1, NAN, nd_cpu()), ND_ERR_INVALID, "non-zero");
    ND_EXPECT_ERR(nd_arange(&a, ND_FLOAT64, 0, 1, INFINITY, nd_cpu()), ND_ERR_INVALID, "step must be finite");
    ND_EXPECT_ERR(nd_arange(&a, ND_FLOAT64, NAN, 1, 1, nd_cpu()), ND_ERR_INVALID, "cannot compute length");
    ND_EXPECT_ERR(nd_arange(&a, ND_FLOAT64, 0, INFINITY, 1, nd_cpu()), ND_ERR_INVALID, "cannot compute length");
    ND_EXPECT_ERR(nd_arange(&a, ND_FLOAT64, -1e308, 1e308, 1e-300, nd_cpu()), ND_ERR_INVALID, "overflows");
    ND_EXPECT_ERR(nd_arange(&a, ND_FLOAT64, 0, 1e19, 1, nd_cpu()), ND_ERR_INVALID, "maximum allowed size");
    ND_EXPECT_ERR(nd_arange(&a, ND_FLOAT64, 0, 4e18, 1, nd_cpu()), ND_ERR_INVALID, "too big");
    ND_EXPECT_ERR(nd_arange(&a, (nd_dtype)99, 0, 1, 1, nd_cpu()), ND_ERR_INVALID, "invalid dtype");
    ND_EXPECT_ERR(nd_arange(&a, (nd_dtype)-1, 0, 1, 1, nd_cpu()), ND_ERR_INVALID, "invalid dtype");
    /* NumPy: OverflowError "Python integer -3 out of bounds for uint8" */
    ND_EXPECT_ERR(nd_arange(&a, ND_UINT8, -3, 3, 1, nd_cpu()), ND_ERR_INVALID, "start -3 is out of bounds for uint8");
    ND_EXPECT_ERR(nd_arange(&a, ND_INT8, 126, 130, 2, nd_cpu()), ND_ERR_INVALID, "start + step 128 is out of bounds");
    /* NumPy: TypeError for bool results longer than 2 */
    ND_EXPECT_ERR(nd_arange(&a, ND_BOOL, 0, 3, 1, nd_cpu()), ND_ERR_DTYPE, "at most length 2");
    nd_status st = nd_arange(&a, ND_FLOAT32, 0, 3, 1, nd_cuda(99));
    ck_assert_msg(st == ND_ERR_DEVICE || st == ND_ERR_UNSUPPORTED, "%s", nd_status_name(st));
    ck_assert_msg(strstr(nd_last_error(), "nd_arange: device cuda:99") != NULL, "%s", nd_last_error());
    ND_EXPECT_ERR(nd_arange(&a, ND_FLOAT32, 0, 3, 1, (nd_device){ND_DEVICE_CPU, 3}), ND_ERR_DEVICE, "invalid CPU device id 3");
    ck_assert_ptr_null(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* linspace                                                            */
/* ------------------------------------------------------------------ */
static void expect_linspace(nd_dtype t, double start, double stop, int64_t num, bool endpoint, const double *want)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int d = 0; d < nd; d++) {
        nd_array *a = NULL;
        ND_OK_OR_FAIL(nd_linspace(&a, t, start, stop, num, endpoint, devs[d]));
        ck_assert_int_eq(nd_ndim(a), 1);
        ck_assert_int_eq(nd_dtype_of(a), t);
        cv_expect_values(a, num, want);
        nd_release(a);
    }
}

START_TEST(test_linspace_values)
{
    /* np.linspace(0, 1, 7).tolist() */
    const double w1[] = {0.0, 0.16666666666666666, 0.3333333333333333, 0.5, 0.6666666666666666, 0.8333333333333333, 1.0};
    expect_linspace(ND_FLOAT64, 0, 1, 7, true, w1);
    /* np.linspace(0, 1, 7, endpoint=False).tolist() */
    const double w2[] = {0.0, 0.14285714285714285, 0.2857142857142857, 0.42857142857142855, 0.5714285714285714,
                         0.7142857142857142, 0.8571428571428571};
    expect_linspace(ND_FLOAT64, 0, 1, 7, false, w2);
    /* np.linspace(-2.5, 7.25, 9).tolist() */
    const double w3[] = {-2.5, -1.28125, -0.0625, 1.15625, 2.375, 3.59375, 4.8125, 6.03125, 7.25};
    expect_linspace(ND_FLOAT64, -2.5, 7.25, 9, true, w3);
    /* num = 1 (with and without endpoint) -> [start]; num = 0 -> [] */
    const double w4[] = {2.0};
    expect_linspace(ND_FLOAT64, 2, 3, 1, true, w4);
    expect_linspace(ND_FLOAT64, 2, 3, 1, false, w4);
    expect_linspace(ND_FLOAT32, 2, 3, 0, true, w4);
    /* np.linspace(1, 0, 5, dtype=np.float32) */
    const double w5[] = {1.0, 0.75, 0.5, 0.25, 0.0};
    expect_linspace(ND_FLOAT32, 1, 0, 5, true, w5);
    expect_linspace(ND_FLOAT16, 1, 0, 5, true, w5);
    expect_linspace(ND_BFLOAT16, 1, 0, 5, true, w5);
    /* denormal step (step == 0 path): np.linspace(0, 1e-320, 3) */
    const double w6[] = {0.0, 5e-321, 1e-320};
    expect_linspace(ND_FLOAT64, 0, 1e-320, 3, true, w6);
    /* start == stop */
    const double w7[] = {3, 3, 3, 3};
    expect_linspace(ND_FLOAT64, 3, 3, 4, true, w7);
    /* np.linspace(0, np.inf, 1) -> [nan] (0 * inf) */
    const double w8[] = {NAN};
    expect_linspace(ND_FLOAT64, 0, INFINITY, 1, true, w8);
}
END_TEST

START_TEST(test_linspace_int)
{
    const double w1[] = {0, 3, 6, 10}; /* np.linspace(0, 10, 4, dtype=int) */
    expect_linspace(ND_INT64, 0, 10, 4, true, w1);
    const double w2[] = {-1, 2, 6, 10}; /* np.linspace(-1, 10, 4, dtype=int) */
    expect_linspace(ND_INT32, -1, 10, 4, true, w2);
    const double w3[] = {10, 7, 4, 2, -1, -3}; /* np.linspace(10, -3, 6, dtype=np.int16) */
    expect_linspace(ND_INT16, 10, -3, 6, true, w3);
    const double w4[] = {0, 42, 85, 127, 170, 212, 255}; /* np.linspace(0, 255, 7, dtype=np.uint8) */
    expect_linspace(ND_UINT8, 0, 255, 7, true, w4);
    const double w5[] = {-10, -7, -4, 0}; /* np.linspace(-10, 0, 4, dtype=int): floor, not truncation */
    expect_linspace(ND_INT8, -10, 0, 4, true, w5);
    const double w6[] = {0, 0, 0, 0, 0}; /* np.linspace(0, 1, 5, endpoint=False, dtype=np.int32) */
    expect_linspace(ND_INT32, 0, 1, 5, false, w6);
    const double w7[] = {0, 1, 1}; /* np.linspace(0, 1, 3, dtype=bool) */
    expect_linspace(ND_BOOL, 0, 1, 3, true, w7);
}
END_TEST

START_TEST(test_linspace_bad)
{
    nd_array *a = NULL;
    ND_EXPECT_ERR(nd_linspace(NULL, ND_FLOAT64, 0, 1, 3, true, nd_cpu()), ND_ERR_INVALID, "'out' is NULL");
    ND_EXPECT_ERR(nd_linspace(&a, ND_FLOAT64, 0, 1, -1, true, nd_cpu()), ND_ERR_INVALID, "-1, must be non-negative");
    ND_EXPECT_ERR(nd_linspace(&a, (nd_dtype)99, 0, 1, 3, true, nd_cpu()), ND_ERR_INVALID, "invalid dtype");
    ND_EXPECT_ERR(nd_linspace(&a, ND_FLOAT64, 0, 1, INT64_MAX, true, nd_cpu()), ND_ERR_INVALID, "too big");
    ND_EXPECT_ERR(nd_linspace(&a, ND_INT32, 0, NAN, 3, true, nd_cpu()), ND_ERR_INVALID, "cannot convert");
    ND_EXPECT_ERR(nd_linspace(&a, ND_UINT8, 0, 300, 3, true, nd_cpu()), ND_ERR_INVALID, "out of bounds for uint8");
    ND_EXPECT_ERR(nd_linspace(&a, ND_UINT8, -1, 1, 3, true, nd_cpu()), ND_ERR_INVALID, "out of bounds for uint8");
    ND_EXPECT_ERR(nd_linspace(&a, ND_FLOAT64, 0, 1, 3, true, (nd_device){(nd_device_type)7, 0}), ND_ERR_INVALID,
                  "invalid device type 7");
    ck_assert_ptr_null(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* eye                                                                 */
/* ------------------------------------------------------------------ */
START_TEST(test_eye)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int d = 0; d < nd; d++) {
        nd_array *a = NULL;
        /* np.eye(3, 4, k=1, dtype=int) */
        const double w1[] = {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        ND_OK_OR_FAIL(nd_eye(&a, ND_INT64, 3, 4, 1, devs[d]));
        cv_expect_shape(a, 2, (const int64_t[]){3, 4});
        cv_expect_values(a, 12, w1);
        nd_release(a), a = NULL;
        /* np.eye(3, 2, k=-1) */
        const double w2[] = {0, 0, 1, 0, 0, 1};
        ND_OK_OR_FAIL(nd_eye(&a, ND_FLOAT64, 3, 2, -1, devs[d]));
        cv_expect_shape(a, 2, (const int64_t[]){3, 2});
        cv_expect_values(a, 6, w2);
        nd_release(a), a = NULL;
        /* k beyond the matrix (also the int64 extremes): all zeros */
        const double zeros[12] = {0};
        const int64_t ks[] = {4, -3, 100, -100, INT64_MAX, INT64_MIN};
        for (int i = 0; i < NELEMS(ks); i++) {
            ND_OK_OR_FAIL(nd_eye(&a, ND_FLOAT32, 3, 4, ks[i], devs[d]));
            cv_expect_values(a, 12, zeros);
            nd_release(a), a = NULL;
        }
        /* k = 3 = m - 1: a single one at (0, 3); k = -2 = -(n - 1): (2, 0) */
        const double w3[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
        ND_OK_OR_FAIL(nd_eye(&a, ND_UINT8, 3, 4, 3, devs[d]));
        cv_expect_values(a, 12, w3);
        nd_release(a), a = NULL;
        const double w4[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0};
        ND_OK_OR_FAIL(nd_eye(&a, ND_INT16, 3, 4, -2, devs[d]));
        cv_expect_values(a, 12, w4);
        nd_release(a), a = NULL;
        /* m < 0 -> square; n = 0 -> (0, 0) */
        ND_OK_OR_FAIL(nd_eye(&a, ND_BOOL, 0, -1, 0, devs[d]));
        cv_expect_shape(a, 2, (const int64_t[]){0, 0});
        nd_release(a), a = NULL;
        /* identity of every dtype */
        for (int k = 0; k < ND_NUM_DTYPES; k++) {
            ND_OK_OR_FAIL(nd_eye(&a, cv_all_dtypes[k], 4, -1, 0, devs[d]));
            ck_assert_int_eq(nd_dtype_of(a), cv_all_dtypes[k]);
            cv_expect_shape(a, 2, (const int64_t[]){4, 4});
            double *v = cv_values(a);
            for (int i = 0; i < 16; i++) ck_assert_msg(v[i] == (i % 5 == 0), "%s [%d]", nd_dtype_name(cv_all_dtypes[k]), i);
            free(v);
            nd_release(a), a = NULL;
        }
    }
}
END_TEST

START_TEST(test_eye_bad)
{
    nd_array *a = NULL;
    ND_EXPECT_ERR(nd_eye(NULL, ND_FLOAT64, 3, 3, 0, nd_cpu()), ND_ERR_INVALID, "'out' is NULL");
    ND_EXPECT_ERR(nd_eye(&a, ND_FLOAT64, -2, 3, 0, nd_cpu()), ND_ERR_INVALID, "negative dimensions");
    ND_EXPECT_ERR(nd_eye(&a, ND_FLOAT64, -2, -1, 0, nd_cpu()), ND_ERR_INVALID, "negative dimensions");
    ND_EXPECT_ERR(nd_eye(&a, ND_FLOAT64, (int64_t)1 << 40, (int64_t)1 << 40, 0, nd_cpu()), ND_ERR_INVALID, "overflow");
    ND_EXPECT_ERR(nd_eye(&a, (nd_dtype)ND_NUM_DTYPES, 3, 3, 0, nd_cpu()), ND_ERR_INVALID, "invalid dtype");
    ND_EXPECT_ERR(nd_eye(&a, ND_FLOAT32, 3, 3, 0, (nd_device){ND_DEVICE_CPU, -1}), ND_ERR_DEVICE, "invalid CPU device id -1");
    ck_assert_ptr_null(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* *_like                                                              */
/* ------------------------------------------------------------------ */
START_TEST(test_like)
{
    int64_t shape[2] = {3, 4};
    for (int k = 0; k < ND_NUM_DTYPES; k++) {
        nd_dtype t = cv_all_dtypes[k];
        nd_array *base = cv_iota(t, 2, shape, nd_cpu()), *tr = NULL, *z = NULL, *o = NULL, *e = NULL;
        ND_OK_OR_FAIL(nd_transpose(&tr, base, NULL)); /* a non-contiguous model */
        ND_OK_OR_FAIL(nd_zeros_like(&z, tr));
        ND_OK_OR_FAIL(nd_ones_like(&o, tr));
        ND_OK_OR_FAIL(nd_empty_like(&e, tr));
        const int64_t want_shape[2] = {4, 3};
        nd_array *all[3] = {z, o, e};
        for (int i = 0; i < 3; i++) {
            cv_expect_shape(all[i], 2, want_shape);
            ck_assert_int_eq(nd_dtype_of(all[i]), t);
            ck_assert(nd_data(all[i]) != nd_data(base));
        }
        double *vz = cv_values(z), *vo = cv_values(o);
        for (int i = 0; i < 12; i++) ck_assert(vz[i] == 0.0 && vo[i] == 1.0);
        free(vz);
        free(vo);
        /* the model is untouched */
        double *vb = cv_values(base);
        for (int i = 0; i < 12; i++) ck_assert(vb[i] == (t == ND_BOOL ? 1.0 : i + 1.0));
        free(vb);
        nd_release(base);
        nd_release(tr);
        nd_release(z);
        nd_release(o);
        nd_release(e);
    }
    /* 0-d and zero-size models */
    nd_array *s = NULL, *zs = NULL, *r1 = NULL, *r2 = NULL;
    ND_OK_OR_FAIL(nd_full(&s, ND_INT16, 0, NULL, nd_scalar_int(-4), nd_cpu()));
    ND_OK_OR_FAIL(nd_ones_like(&r1, s));
    ck_assert_int_eq(nd_ndim(r1), 0);
    int16_t v = 0;
    one_raw(r1, &v);
    ck_assert_int_eq(v, 1);
    ND_OK_OR_FAIL(nd_zeros(&zs, ND_FLOAT32, 2, (const int64_t[]){5, 0}, nd_cpu()));
    ND_OK_OR_FAIL(nd_zeros_like(&r2, zs));
    cv_expect_shape(r2, 2, (const int64_t[]){5, 0});
    nd_release(s);
    nd_release(zs);
    nd_release(r1);
    nd_release(r2);
}
END_TEST

START_TEST(test_like_bad)
{
    nd_array *a = NULL, *m = NULL;
    ND_OK_OR_FAIL(nd_zeros(&m, ND_FLOAT32, 1, (const int64_t[]){3}, nd_cpu()));
    ND_EXPECT_ERR(nd_empty_like(&a, NULL), ND_ERR_INVALID, "nd_empty_like: argument 'a' is NULL");
    ND_EXPECT_ERR(nd_zeros_like(&a, NULL), ND_ERR_INVALID, "nd_zeros_like: argument 'a' is NULL");
    ND_EXPECT_ERR(nd_ones_like(&a, NULL), ND_ERR_INVALID, "nd_ones_like: argument 'a' is NULL");
    ND_EXPECT_ERR(nd_empty_like(NULL, m), ND_ERR_INVALID, "'out' is NULL");
    ND_EXPECT_ERR(nd_zeros_like(NULL, m), ND_ERR_INVALID, "'out' is NULL");
    ND_EXPECT_ERR(nd_ones_like(NULL, m), ND_ERR_INVALID, "'out' is NULL");
    ck_assert_ptr_null(a);
    /* out rule: a wrong-shape out */
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT32, 1, (const int64_t[]){4}, nd_cpu()));
    nd_array *keep = o;
    ND_EXPECT_ERR(nd_ones_like(&o, m), ND_ERR_SHAPE, "'out' has shape (4,)");
    ND_EXPECT_ERR(nd_empty_like(&o, m), ND_ERR_SHAPE, "but the result has shape (3,)");
    ck_assert_ptr_eq(o, keep);
    nd_release(o);
    nd_release(m);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Bad shapes / dtypes / devices for the shape-taking creators          */
/* ------------------------------------------------------------------ */
typedef nd_status (*shape_creator)(nd_array **out, nd_dtype t, int ndim, const int64_t *shape, nd_device dev);
static nd_status full3(nd_array **out, nd_dtype t, int ndim, const int64_t *shape, nd_device dev)
{
    return nd_full(out, t, ndim, shape, nd_scalar_int(3), dev);
}

START_TEST(test_creators_bad_input)
{
    const shape_creator fns[3] = {nd_zeros, nd_ones, full3};
    const char *names[3] = {"nd_zeros", "nd_ones", "nd_full"};
    int64_t shape[2] = {2, 3}, neg[2] = {2, -3}, huge[2] = {(int64_t)1 << 40, (int64_t)1 << 40},
            big_bytes[1] = {(int64_t)1 << 62}, zero_huge[3] = {0, (int64_t)1 << 62, (int64_t)1 << 62};
    int64_t dims33[33];
    for (int i = 0; i < 33; i++) dims33[i] = 1;
    for (int f = 0; f < 3; f++) {
        nd_array *a = NULL;
        ND_EXPECT_ERR(fns[f](NULL, ND_FLOAT32, 2, shape, nd_cpu()), ND_ERR_INVALID, "argument 'out' is NULL");
        ck_assert_msg(strncmp(nd_last_error(), names[f], strlen(names[f])) == 0, "%s", nd_last_error());
        ND_EXPECT_ERR(fns[f](&a, ND_FLOAT32, 2, NULL, nd_cpu()), ND_ERR_INVALID, "'shape' is NULL");
        ND_EXPECT_ERR(fns[f](&a, ND_FLOAT32, -1, shape, nd_cpu()), ND_ERR_INVALID, "ndim -1 is out of range");
        ND_EXPECT_ERR(fns[f](&a, ND_FLOAT32, 33, dims33, nd_cpu()), ND_ERR_INVALID, "ndim 33 is out of range");
        ND_EXPECT_ERR(fns[f](&a, ND_FLOAT32, 2, neg, nd_cpu()), ND_ERR_INVALID, "negative dimensions are not allowed");
        ND_EXPECT_ERR(fns[f](&a, ND_FLOAT32, 2, huge, nd_cpu()), ND_ERR_INVALID, "overflow");
        ND_EXPECT_ERR(fns[f](&a, ND_FLOAT64, 1, big_bytes, nd_cpu()), ND_ERR_INVALID, "too big");
        ND_EXPECT_ERR(fns[f](&a, ND_FLOAT64, 3, zero_huge, nd_cpu()), ND_ERR_INVALID, "overflow");
        ND_EXPECT_ERR(fns[f](&a, (nd_dtype)99, 2, shape, nd_cpu()), ND_ERR_INVALID, "invalid dtype value 99");
        ND_EXPECT_ERR(fns[f](&a, ND_FLOAT32, 2, shape, (nd_device){ND_DEVICE_CPU, 1}), ND_ERR_DEVICE, "cpu:0");
        ND_EXPECT_ERR(fns[f](&a, ND_FLOAT32, 2, shape, (nd_device){(nd_device_type)5, 0}), ND_ERR_INVALID,
                      "invalid device type 5");
        /* a CUDA device that cannot be used: ND_ERR_UNSUPPORTED in a
         * CPU-only build, ND_ERR_DEVICE in a CUDA build */
        nd_status st = fns[f](&a, ND_FLOAT32, 2, shape, nd_cuda(-1));
        ck_assert_msg(st == ND_ERR_UNSUPPORTED || st == ND_ERR_DEVICE, "%s", nd_status_name(st));
        ck_assert_msg(strstr(nd_last_error(), "cuda:-1") != NULL, "%s", nd_last_error());
        if (nd_cuda_device_count() == 0) {
            st = fns[f](&a, ND_FLOAT32, 2, shape, nd_cuda(0));
            ck_assert_msg(st == ND_ERR_UNSUPPORTED || st == ND_ERR_DEVICE, "%s", nd_status_name(st));
            ck_assert_msg(strstr(nd_last_error(), "cuda:0") != NULL, "%s", nd_last_error());
        }
        ck_assert_ptr_null(a);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* The out rule                                                        */
/* ------------------------------------------------------------------ */
START_TEST(test_out_rule)
{
    int64_t shape[2] = {3, 4};
    nd_array *o = cv_iota(ND_FLOAT64, 2, shape, nd_cpu()), *keep = o;
    /* full int32 2.7 -> 2 (in int32), then cast into the float64 out */
    ND_OK_OR_FAIL(nd_full(&o, ND_INT32, 2, shape, nd_scalar_float(2.7), nd_cpu()));
    ck_assert_ptr_eq(o, keep);
    double *v = cv_values(o);
    for (int i = 0; i < 12; i++) ck_assert(v[i] == 2.0);
    free(v);
    /* zeros / ones / eye / arange / linspace into it */
    cv_poison(o, -7);
    ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT32, 2, shape, nd_cpu()));
    const double z[12] = {0};
    cv_expect_values(o, 12, z);
    ND_OK_OR_FAIL(nd_ones(&o, ND_INT8, 2, shape, nd_cpu()));
    const double ones[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    cv_expect_values(o, 12, ones);
    cv_poison(o, -7);
    ND_OK_OR_FAIL(nd_eye(&o, ND_FLOAT64, 3, 4, 0, nd_cpu()));
    const double eye[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    cv_expect_values(o, 12, eye);
    ck_assert_ptr_eq(o, keep);

    /* a strided out: t is the transposed (4, 3) view of o */
    nd_array *t = NULL;
    ND_OK_OR_FAIL(nd_transpose(&t, o, NULL));
    nd_array *tk = t;
    ND_EXPECT_ERR(nd_arange(&t, ND_INT64, 0, 12, 1, nd_cpu()), ND_ERR_SHAPE, "nd_arange: 'out' has shape (4,3)");
    ck_assert_ptr_eq(t, tk);
    /* np.eye(4, 3, k=1, dtype=np.int32) written through t: o = its transpose */
    cv_poison(o, -7);
    ND_OK_OR_FAIL(nd_eye(&t, ND_INT32, 4, 3, 1, nd_cpu()));
    ck_assert_ptr_eq(t, tk);
    const double eyet[12] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    cv_expect_values(o, 12, eyet);
    cv_poison(o, -7);
    ND_OK_OR_FAIL(nd_ones(&t, ND_FLOAT64, 2, (const int64_t[]){4, 3}, nd_cpu()));
    cv_expect_values(o, 12, ones);
    nd_release(t);
    /* 1-D outs of another dtype */
    nd_array *o1 = NULL;
    ND_OK_OR_FAIL(nd_zeros(&o1, ND_FLOAT32, 1, (const int64_t[]){6}, nd_cpu()));
    cv_poison(o1, -7);
    ND_OK_OR_FAIL(nd_linspace(&o1, ND_FLOAT64, 0, 1, 6, false, nd_cpu()));
    const double lw[6] = {0.0, (float)(1.0 / 6), (float)(2.0 / 6), 0.5, (float)(4.0 / 6), (float)(5.0 / 6)};
    cv_expect_values(o1, 6, lw);
    cv_poison(o1, -7);
    ND_OK_OR_FAIL(nd_arange(&o1, ND_INT16, 10, -2, -2, nd_cpu()));
    const double aw[6] = {10, 8, 6, 4, 2, 0};
    cv_expect_values(o1, 6, aw);
    ND_OK_OR_FAIL(nd_linspace(&o1, ND_FLOAT64, 0, 1, 6, false, nd_cpu()));

    /* same_kind: float64 result into an int32 out is ND_ERR_DTYPE, and
     * the out keeps its values */
    nd_array *oi = cv_iota(ND_INT32, 2, shape, nd_cpu()), *ok = oi;
    ND_EXPECT_ERR(nd_zeros(&oi, ND_FLOAT64, 2, shape, nd_cpu()), ND_ERR_DTYPE, "same_kind");
    nd_array *oi1 = NULL;
    ND_OK_OR_FAIL(nd_reshape(&oi1, oi, 1, (const int64_t[]){12}));
    ND_EXPECT_ERR(nd_linspace(&oi1, ND_FLOAT32, 0, 1, 12, true, nd_cpu()), ND_ERR_DTYPE, "to 'out' dtype int32");
    nd_release(oi1);
    ND_EXPECT_ERR(nd_eye(&oi, ND_FLOAT16, 3, 4, 0, nd_cpu()), ND_ERR_DTYPE, "float16");
    ND_EXPECT_ERR(nd_full(&oi, ND_INT32, 2, (const int64_t[]){4, 3}, nd_scalar_int(1), nd_cpu()), ND_ERR_SHAPE,
                  "'out' has shape (3,4)");
    ck_assert_ptr_eq(oi, ok);
    const double iota[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    cv_expect_values(oi, 12, iota);
    /* a failing value check leaves a given out untouched, too */
    ND_EXPECT_ERR(nd_full(&oi, ND_INT8, 2, shape, nd_scalar_int(1000), nd_cpu()), ND_ERR_INVALID, "out of bounds");
    ND_EXPECT_ERR(nd_linspace(&o1, ND_UINT8, 0, 1000, 6, true, nd_cpu()), ND_ERR_INVALID, "out of bounds");
    cv_expect_values(oi, 12, iota);
    cv_expect_values(o1, 6, lw);
    nd_release(oi);
    nd_release(o1);
    nd_release(o);
}
END_TEST

Suite *suite_creation(void)
{
    Suite *s = suite_create("creation");
    TCase *tc = tcase_create("values");
    tcase_add_test(tc, test_zeros_ones_every_dtype);
    tcase_add_test(tc, test_full_every_dtype);
    tcase_add_test(tc, test_full_conversions);
    tcase_add_test(tc, test_arange_float);
    tcase_add_test(tc, test_arange_float16_bits);
    tcase_add_test(tc, test_arange_int);
    tcase_add_test(tc, test_linspace_values);
    tcase_add_test(tc, test_linspace_int);
    tcase_add_test(tc, test_eye);
    tcase_add_test(tc, test_like);
    tcase_add_test(tc, test_out_rule);
    suite_add_tcase(s, tc);
    TCase *bad = tcase_create("bad_input");
    tcase_add_test(bad, test_full_bad_values);
    tcase_add_test(bad, test_arange_bad);
    tcase_add_test(bad, test_linspace_bad);
    tcase_add_test(bad, test_eye_bad);
    tcase_add_test(bad, test_like_bad);
    tcase_add_test(bad, test_creators_bad_input);
    suite_add_tcase(s, bad);
    return s;
}
