/* Exact elementwise cases with expected values taken from NumPy 2.4
 * (pasted as constants): NEP 50 scalar promotion, result dtypes of the
 * op rules, Python-style integer and float division, shifts, power,
 * rounding and the NaN rules of maximum/minimum/fmax/fmin. */
#include "harness.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* 1-D array of dtype t from doubles / int64s */
static nd_array *arr_f(nd_dtype t, int n, const double *v)
{
    unsigned char buf[64 * 8];
    ck_assert_int_le(n, 64);
    for (int i = 0; i < n; i++) {
        ew_val x;
        x.f = v[i];
        ew_store(buf + nd_dtype_size(t) * (size_t)i, t, x);
    }
    int64_t shape[1] = {n};
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, buf, t, 1, shape, nd_cpu()));
    return a;
}

static nd_array *arr_i(nd_dtype t, int n, const int64_t *v)
{
    unsigned char buf[64 * 8];
    ck_assert_int_le(n, 64);
    for (int i = 0; i < n; i++) {
        ew_val x;
        if (nd_dtype_size(t) && (t == ND_FLOAT16 || t == ND_BFLOAT16 || t == ND_FLOAT32 || t == ND_FLOAT64))
            x.f = (double)v[i];
        else
            x.i = v[i];
        ew_store(buf + nd_dtype_size(t) * (size_t)i, t, x);
    }
    int64_t shape[1] = {n};
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, buf, t, 1, shape, nd_cpu()));
    return a;
}

/* o has dtype t, n elements equal (as integers; uint64 through the bits) to want */
static void expect_i(const nd_array *o, nd_dtype t, int n, const int64_t *want)
{
    ck_assert_ptr_nonnull(o);
    ck_assert_msg(nd_dtype_of(o) == t, "dtype %s, want %s", nd_dtype_name(nd_dtype_of(o)), nd_dtype_name(t));
    ck_assert_int_eq(nd_size(o), n);
    unsigned char buf[64 * 8];
    ND_OK_OR_FAIL(nd_copy_to_host(buf, o, nd_nbytes(o)));
    for (int i = 0; i < n; i++) {
        ew_val g = ew_load(buf + nd_dtype_size(t) * (size_t)i, t);
        ck_assert_msg(g.i == want[i], "%s element %d: got %lld, want %lld", nd_dtype_name(t), i, (long long)g.i,
                      (long long)want[i]);
    }
}

/* floats: exact values, NaN positions and (when signs != NULL) sign bits */
static void expect_f(const nd_array *o, nd_dtype t, int n, const double *want, const bool *signs)
{
    ck_assert_ptr_nonnull(o);
    ck_assert_msg(nd_dtype_of(o) == t, "dtype %s, want %s", nd_dtype_name(nd_dtype_of(o)), nd_dtype_name(t));
    ck_assert_int_eq(nd_size(o), n);
    unsigned char buf[64 * 8];
    ND_OK_OR_FAIL(nd_copy_to_host(buf, o, nd_nbytes(o)));
    for (int i = 0; i < n; i++) {
        double g = ew_load(buf + nd_dtype_size(t) * (size_t)i, t).f;
        if (isnan(want[i])) ck_assert_msg(isnan(g), "%s element %d: got %g, want nan", nd_dtype_name(t), i, g);
        else ck_assert_msg(g == want[i], "%s element %d: got %.17g, want %.17g", nd_dtype_name(t), i, g, want[i]);
        if (signs && !isnan(want[i])) ck_assert_msg((signbit(g) != 0) == signs[i], "%s element %d: sign of %g", nd_dtype_name(t), i, g);
    }
}

START_TEST(int_floor_divide_remainder_python_signs)
{
    static const int64_t a[] = {-7, 7, -7, 7, 0, -128, -128, 127, 5, -5};
    static const int64_t b[] = {2, -2, -2, 2, 3, -1, 0, 0, -3, 3};
    static const int64_t fd[] = {-4, -4, 3, 3, 0, -128, 0, 0, -2, -2}; /* NumPy, int8 */
    static const int64_t rem[] = {1, -1, -1, 1, 0, 0, 0, 0, -1, 1};
    nd_array *x = arr_i(ND_INT8, N_OF(a), a), *y = arr_i(ND_INT8, N_OF(b), b), *q = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_floor_divide(&q, x, y));
    ND_OK_OR_FAIL(nd_remainder(&r, x, y));
    expect_i(q, ND_INT8, N_OF(fd), fd);
    expect_i(r, ND_INT8, N_OF(rem), rem);
    nd_release(x), nd_release(y), nd_release(q), nd_release(r);

    /* the same signs in every signed width (-128 // -1 no longer wraps) */
    static const nd_dtype wide[] = {ND_INT16, ND_INT32, ND_INT64};
    for (int k = 0; k < 3; k++) {
        x = arr_i(wide[k], N_OF(a), a), y = arr_i(wide[k], N_OF(b), b), q = NULL, r = NULL;
        ND_OK_OR_FAIL(nd_floor_divide(&q, x, y));
        ND_OK_OR_FAIL(nd_remainder(&r, x, y));
        int64_t fdw[N_OF(fd)];
        memcpy(fdw, fd, sizeof fd);
        fdw[5] = 128;
        expect_i(q, wide[k], N_OF(fdw), fdw);
        expect_i(r, wide[k], N_OF(rem), rem);
        nd_release(x), nd_release(y), nd_release(q), nd_release(r);
    }
    /* INT64_MIN // -1 wraps, % -1 is 0; unsigned // 0 is 0 */
    static const int64_t m[] = {INT64_MIN, INT64_MIN, 9};
    static const int64_t d[] = {-1, 0, -4};
    static const int64_t mq[] = {INT64_MIN, 0, -3}, mr[] = {0, 0, -3};
    x = arr_i(ND_INT64, 3, m), y = arr_i(ND_INT64, 3, d), q = NULL, r = NULL;
    ND_OK_OR_FAIL(nd_floor_divide(&q, x, y));
    ND_OK_OR_FAIL(nd_remainder(&r, x, y));
    expect_i(q, ND_INT64, 3, mq);
    expect_i(r, ND_INT64, 3, mr);
    nd_release(x), nd_release(y), nd_release(q), nd_release(r);
    static const int64_t ua[] = {200, 7, 0}, ub[] = {0, 2, 0}, uq[] = {0, 3, 0}, ur[] = {0, 1, 0};
    x = arr_i(ND_UINT8, 3, ua), y = arr_i(ND_UINT8, 3, ub), q = NULL, r = NULL;
    ND_OK_OR_FAIL(nd_floor_divide(&q, x, y));
    ND_OK_OR_FAIL(nd_remainder(&r, x, y));
    expect_i(q, ND_UINT8, 3, uq);
    expect_i(r, ND_UINT8, 3, ur);
    nd_release(x), nd_release(y), nd_release(q), nd_release(r);
}
END_TEST

START_TEST(float_floor_divide_remainder)
{
    static const double a[] = {-7, 7, -7, 7, 0, -0.0, 5.5, -5.5, 1, -1, INFINITY, -INFINITY, 5, -5, 5, NAN, 6, -6};
    static const double b[] = {2, -2, -2, 2, 3, 3, -2, 2, 0, 0, 2, 3, INFINITY, INFINITY, -INFINITY, 1, 3, 3};
    /* NumPy 2.4 floor_divide / remainder and their sign bits */
    static const double fd[] = {-4, -4, 3, 3, 0, -0.0, -3, -3, INFINITY, -INFINITY, NAN, NAN, 0, -1, -1, NAN, 2, -2};
    static const double rem[] = {1, -1, -1, 1, 0, 0, -0.5, 0.5, NAN, NAN, NAN, NAN, 5, INFINITY, -INFINITY, NAN, 0, 0};
    static const bool fds[] = {1, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1};
    static const bool rems[] = {0, 1, 1, 0, 0, 0, 1, 0, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0};
    static const nd_dtype ft[] = {ND_FLOAT64, ND_FLOAT32, ND_FLOAT16, ND_BFLOAT16};
    for (int k = 0; k < 4; k++) {
        nd_array *x = arr_f(ft[k], N_OF(a), a), *y = arr_f(ft[k], N_OF(b), b), *q = NULL, *r = NULL;
        ND_OK_OR_FAIL(nd_floor_divide(&q, x, y));
        ND_OK_OR_FAIL(nd_remainder(&r, x, y));
        expect_f(q, ft[k], N_OF(fd), fd, fds); /* NaN signs unspecified */
        expect_f(r, ft[k], N_OF(rem), rem, rems);
        nd_release(x), nd_release(y), nd_release(q), nd_release(r);
    }
}
END_TEST

START_TEST(shifts_edge_cases)
{
    static const int64_t x[] = {-8, -8, -8, 1, 1, 1, -1, 100}, s[] = {1, 7, 8, 7, 8, -1, 9, 2};
    static const int64_t ls[] = {-16, 0, 0, -128, 0, 0, 0, -112}, rs[] = {-4, -1, -1, 0, 0, 0, -1, 25};
    nd_array *a = arr_i(ND_INT8, 8, x), *b = arr_i(ND_INT8, 8, s), *o = NULL, *p = NULL;
    ND_OK_OR_FAIL(nd_left_shift(&o, a, b));
    ND_OK_OR_FAIL(nd_right_shift(&p, a, b));
    expect_i(o, ND_INT8, 8, ls);
    expect_i(p, ND_INT8, 8, rs);
    nd_release(a), nd_release(b), nd_release(o), nd_release(p);

    static const int64_t ux[] = {1, 255, 128, 1}, us[] = {7, 1, 8, 200}, uls[] = {128, 254, 0, 0}, urs[] = {0, 127, 0, 0};
    a = arr_i(ND_UINT8, 4, ux), b = arr_i(ND_UINT8, 4, us), o = NULL, p = NULL;
    ND_OK_OR_FAIL(nd_left_shift(&o, a, b));
    ND_OK_OR_FAIL(nd_right_shift(&p, a, b));
    expect_i(o, ND_UINT8, 4, uls);
    expect_i(p, ND_UINT8, 4, urs);
    nd_release(a), nd_release(b), nd_release(o), nd_release(p);

    static const int64_t lx[] = {INT64_MIN, -1, (int64_t)1 << 62}, lsft[] = {63, 64, 1};
    static const int64_t lls[] = {0, 0, INT64_MIN}, lrs[] = {-1, -1, (int64_t)1 << 61};
    a = arr_i(ND_INT64, 3, lx), b = arr_i(ND_INT64, 3, lsft), o = NULL, p = NULL;
    ND_OK_OR_FAIL(nd_left_shift(&o, a, b));
    ND_OK_OR_FAIL(nd_right_shift(&p, a, b));
    expect_i(o, ND_INT64, 3, lls);
    expect_i(p, ND_INT64, 3, lrs);
    nd_release(a), nd_release(b), nd_release(o), nd_release(p);
}
END_TEST

START_TEST(integer_power)
{
    static const int64_t x[] = {2, 3, -2, 0, 7}, e[] = {7, 5, 7, 0, 3}, want[] = {-128, -13, -128, 1, 87};
    nd_array *a = arr_i(ND_INT8, 5, x), *b = arr_i(ND_INT8, 5, e), *o = NULL;
    ND_OK_OR_FAIL(nd_power(&o, a, b));
    expect_i(o, ND_INT8, 5, want);
    nd_release(a), nd_release(b), nd_release(o);
    /* 3 ** 41 wraps in uint64: 18026252303461234787 */
    static const int64_t ux[] = {3}, ue[] = {41};
    const int64_t uw[] = {(int64_t)18026252303461234787ULL};
    a = arr_i(ND_UINT64, 1, ux), b = arr_i(ND_UINT64, 1, ue), o = NULL;
    ND_OK_OR_FAIL(nd_power(&o, a, b));
    expect_i(o, ND_UINT64, 1, uw);
    nd_release(a), nd_release(b), nd_release(o);

    /* negative integer exponents are an error; the given out is untouched */
    static const int64_t nx[] = {2, 2, 2}, ne[] = {1, -1, 2}, poison[] = {55, 55, 55};
    a = arr_i(ND_INT32, 3, nx), b = arr_i(ND_INT32, 3, ne);
    nd_array *out = arr_i(ND_INT32, 3, poison), *keep = out;
    ND_EXPECT_ERR(nd_power(&out, a, b), ND_ERR_INVALID, "Integers to negative integer powers are not allowed.");
    ck_assert_ptr_eq(out, keep);
    expect_i(out, ND_INT32, 3, poison);
    nd_array *fresh = NULL;
    ND_EXPECT_ERR(nd_power(&fresh, a, b), ND_ERR_INVALID, "nd_power: Integers to negative");
    ck_assert_ptr_null(fresh);
    ND_EXPECT_ERR(nd_binary_scalar(&fresh, ND_BINARY_POWER, a, nd_scalar_int(-2)), ND_ERR_INVALID,
                  "Integers to negative integer powers");
    ck_assert_ptr_null(fresh);
    /* float exponents are fine: int32 ** -1.0 -> float64 0.5 */
    ND_OK_OR_FAIL(nd_binary_scalar(&fresh, ND_BINARY_POWER, a, nd_scalar_float(-1.0)));
    static const double half[] = {0.5, 0.5, 0.5};
    expect_f(fresh, ND_FLOAT64, 3, half, NULL);
    nd_release(a), nd_release(b), nd_release(out), nd_release(fresh);
}
END_TEST

START_TEST(rounding_sign_abs_reciprocal)
{
    static const double x[] = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7};
    static const double want[] = {0, 2, 2, -0.0, -2, -2, 4};
    static const bool signs[] = {0, 0, 0, 1, 1, 1, 0};
    nd_array *a = arr_f(ND_FLOAT64, 7, x), *o = NULL;
    ND_OK_OR_FAIL(nd_rint(&o, a));
    expect_f(o, ND_FLOAT64, 7, want, signs);
    nd_release(a), nd_release(o), o = NULL;
    a = arr_f(ND_FLOAT16, 7, x);
    ND_OK_OR_FAIL(nd_rint(&o, a));
    expect_f(o, ND_FLOAT16, 7, want, signs);
    nd_release(a), nd_release(o), o = NULL;

    static const double sx[] = {-3, -0.0, 0.0, 5, NAN}, sw[] = {-1, 0, 0, 1, NAN};
    a = arr_f(ND_FLOAT32, 5, sx);
    ND_OK_OR_FAIL(nd_sign(&o, a));
    expect_f(o, ND_FLOAT32, 5, sw, NULL);
    nd_release(a), nd_release(o), o = NULL;

    static const int64_t m[] = {-128, 127, -1}, absw[] = {-128, 127, 1}, negw[] = {-128, -127, 1};
    nd_array *p = NULL;
    a = arr_i(ND_INT8, 3, m);
    ND_OK_OR_FAIL(nd_abs(&o, a));
    ND_OK_OR_FAIL(nd_negative(&p, a));
    expect_i(o, ND_INT8, 3, absw);
    expect_i(p, ND_INT8, 3, negw);
    nd_release(a), nd_release(o), nd_release(p), o = NULL;

    /* 1/x truncated; 1/0 is 0 here (NumPy gives INT_MIN with a warning) */
    static const int64_t r[] = {1, -1, 2, -2, 127, 0}, rw[] = {1, -1, 0, 0, 0, 0};
    a = arr_i(ND_INT8, 6, r);
    ND_OK_OR_FAIL(nd_reciprocal(&o, a));
    expect_i(o, ND_INT8, 6, rw);
    nd_release(a), nd_release(o);
}
END_TEST

START_TEST(nan_rules_sigmoid_relu)
{
    static const double a[] = {NAN, 1, NAN, 2}, b[] = {1, NAN, NAN, -1};
    static const double mx[] = {NAN, NAN, NAN, 2}, mn[] = {NAN, NAN, NAN, -1}, fmx[] = {1, 1, NAN, 2},
                        fmn[] = {1, 1, NAN, -1};
    nd_array *x = arr_f(ND_FLOAT32, 4, a), *y = arr_f(ND_FLOAT32, 4, b), *o[4] = {NULL, NULL, NULL, NULL};
    ND_OK_OR_FAIL(nd_maximum(&o[0], x, y));
    ND_OK_OR_FAIL(nd_minimum(&o[1], x, y));
    ND_OK_OR_FAIL(nd_fmax(&o[2], x, y));
    ND_OK_OR_FAIL(nd_fmin(&o[3], x, y));
    expect_f(o[0], ND_FLOAT32, 4, mx, NULL);
    expect_f(o[1], ND_FLOAT32, 4, mn, NULL);
    expect_f(o[2], ND_FLOAT32, 4, fmx, NULL);
    expect_f(o[3], ND_FLOAT32, 4, fmn, NULL);
    for (int i = 0; i < 4; i++) nd_release(o[i]);
    nd_release(x), nd_release(y);

    /* stable sigmoid: no NaN or overflow at the extremes */
    static const double s[] = {-1000, 1000, 0, -INFINITY, INFINITY, NAN};
    static const nd_dtype ft[] = {ND_FLOAT64, ND_FLOAT32, ND_FLOAT16, ND_BFLOAT16};
    for (int k = 0; k < 4; k++) {
        nd_array *in = arr_f(ft[k], 6, s), *out = NULL;
        ND_OK_OR_FAIL(nd_sigmoid(&out, in));
        double v[6];
        unsigned char buf[64];
        ND_OK_OR_FAIL(nd_copy_to_host(buf, out, nd_nbytes(out)));
        for (int i = 0; i < 6; i++) v[i] = ew_load(buf + nd_dtype_size(ft[k]) * (size_t)i, ft[k]).f;
        ck_assert(v[0] >= 0 && v[0] < 1e-30);
        ck_assert(v[1] == 1.0 && v[2] == 0.5 && v[3] == 0.0 && v[4] == 1.0 && isnan(v[5]));
        nd_release(in), nd_release(out);
    }
    static const double r[] = {-2, -0.0, 3, NAN, -INFINITY}, rw[] = {0, 0, 3, NAN, 0};
    static const bool rs[] = {0, 0, 0, 0, 0};
    x = arr_f(ND_FLOAT64, 5, r), y = NULL;
    ND_OK_OR_FAIL(nd_relu(&y, x));
    expect_f(y, ND_FLOAT64, 5, rw, rs);
    nd_release(x), nd_release(y);
}
END_TEST

/* NEP 50: weak Python scalars */
START_TEST(nep50_scalar_promotion)
{
    static const int64_t v127[] = {127};
    nd_array *i8 = arr_i(ND_INT8, 1, v127), *o = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_ADD, i8, nd_scalar_int(1)));
    static const int64_t w1[] = {-128};
    expect_i(o, ND_INT8, 1, w1);
    nd_release(o), o = NULL;
    ND_EXPECT_ERR(nd_binary_scalar(&o, ND_BINARY_ADD, i8, nd_scalar_int(300)), ND_ERR_INVALID,
                  "Python integer 300 out of bounds for int8");
    ck_assert_ptr_null(o);
    ND_EXPECT_ERR(nd_scalar_binary(&o, ND_BINARY_MULTIPLY, nd_scalar_int(-129), i8), ND_ERR_INVALID,
                  "Python integer -129 out of bounds for int8");
    /* comparisons with out-of-range Python integers are exact */
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_LESS, i8, nd_scalar_int(300)));
    static const int64_t t1[] = {1}, f1[] = {0};
    expect_i(o, ND_BOOL, 1, t1);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_EQUAL, i8, nd_scalar_int(383)));
    expect_i(o, ND_BOOL, 1, f1);
    nd_release(o), o = NULL;

    static const int64_t one[] = {1};
    nd_array *i32 = arr_i(ND_INT32, 1, one), *f32 = arr_i(ND_FLOAT32, 1, one), *f16 = arr_i(ND_FLOAT16, 1, one);
    nd_array *u8 = arr_i(ND_UINT8, 1, one), *bl = arr_i(ND_BOOL, 1, one), *u64 = NULL;
    static const double d25[] = {2.5};
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_ADD, i32, nd_scalar_float(1.5)));
    expect_f(o, ND_FLOAT64, 1, d25, NULL);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_ADD, f32, nd_scalar_float(1.5)));
    expect_f(o, ND_FLOAT32, 1, d25, NULL);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_ADD, f16, nd_scalar_float(1.5)));
    expect_f(o, ND_FLOAT16, 1, d25, NULL);
    nd_release(o), o = NULL;
    static const int64_t two[] = {2};
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_ADD, u8, nd_scalar_bool(true)));
    expect_i(o, ND_UINT8, 1, two);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_ADD, bl, nd_scalar_int(1)));
    expect_i(o, ND_INT64, 1, two);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_ADD, bl, nd_scalar_float(1.5)));
    expect_f(o, ND_FLOAT64, 1, d25, NULL);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_MULTIPLY, bl, nd_scalar_bool(true)));
    expect_i(o, ND_BOOL, 1, one);
    nd_release(o), o = NULL;
    ND_EXPECT_ERR(nd_binary_scalar(&o, ND_BINARY_ADD, u8, nd_scalar_int(-1)), ND_ERR_INVALID,
                  "Python integer -1 out of bounds for uint8");
    ck_assert_ptr_null(o);
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_GREATER, u8, nd_scalar_int(-1)));
    expect_i(o, ND_BOOL, 1, t1);
    nd_release(o), o = NULL;
    static const int64_t umax[] = {-1}; /* 2**64 - 1 */
    u64 = arr_i(ND_UINT64, 1, umax);
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_EQUAL, u64, nd_scalar_int(-1)));
    expect_i(o, ND_BOOL, 1, f1);
    nd_release(o), o = NULL;
    /* scalar on the left: 2 - uint8 [3] wraps to 255; 2 / int8 -> float64; 7 // int16 [-2] -> -4 */
    static const int64_t three[] = {3}, w255[] = {255};
    nd_array *u8b = arr_i(ND_UINT8, 1, three);
    ND_OK_OR_FAIL(nd_scalar_binary(&o, ND_BINARY_SUBTRACT, nd_scalar_int(2), u8b));
    expect_i(o, ND_UINT8, 1, w255);
    nd_release(o), o = NULL;
    static const int64_t four[] = {4}, m2[] = {-2}, m4[] = {-4};
    nd_array *i8b = arr_i(ND_INT8, 1, four), *i16 = arr_i(ND_INT16, 1, m2);
    static const double d05[] = {0.5};
    ND_OK_OR_FAIL(nd_scalar_binary(&o, ND_BINARY_DIVIDE, nd_scalar_int(2), i8b));
    expect_f(o, ND_FLOAT64, 1, d05, NULL);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_scalar_binary(&o, ND_BINARY_FLOOR_DIVIDE, nd_scalar_int(7), i16));
    expect_i(o, ND_INT16, 1, m4);
    nd_release(o), o = NULL;
    /* the scalar has to fit the loop's dtype, not the array's: int8 / 300
     * loops in float64, arctan2(uint8, -1) in float16, logical ops are exact */
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_DIVIDE, i8b, nd_scalar_int(300)));
    static const double d4_300[] = {4.0 / 300.0};
    expect_f(o, ND_FLOAT64, 1, d4_300, NULL);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&o, ND_BINARY_ARCTAN2, u8, nd_scalar_int(-1)));
    static const double at[] = {2.35546875}; /* float16(arctan2(1, -1)) */
    expect_f(o, ND_FLOAT16, 1, at, NULL);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_scalar_binary(&o, ND_BINARY_LOGICAL_AND, nd_scalar_int(300), i8b));
    expect_i(o, ND_BOOL, 1, t1);
    nd_release(o), o = NULL;
    ND_EXPECT_ERR(nd_binary_scalar(&o, ND_BINARY_FLOOR_DIVIDE, i8b, nd_scalar_int(300)), ND_ERR_INVALID,
                  "Python integer 300 out of bounds for int8");
    ck_assert_ptr_null(o);
    nd_release(i8), nd_release(i32), nd_release(f32), nd_release(f16), nd_release(u8), nd_release(bl);
    nd_release(u64), nd_release(u8b), nd_release(i8b), nd_release(i16);
}
END_TEST

/* Result dtypes of the rules and of array-array promotion (NumPy 2.4) */
START_TEST(result_dtypes)
{
    static const int64_t v[] = {1, 0, 3};
    nd_array *b = arr_i(ND_BOOL, 3, v), *i8 = arr_i(ND_INT8, 3, v), *u8 = arr_i(ND_UINT8, 3, v);
    nd_array *i16 = arr_i(ND_INT16, 3, v), *i64 = arr_i(ND_INT64, 3, v), *u64 = arr_i(ND_UINT64, 3, v);
    nd_array *f16 = arr_i(ND_FLOAT16, 3, v), *bf = arr_i(ND_BFLOAT16, 3, v), *o = NULL;
#define EXPECT_DT(call, dt)                                                                                  \
    do {                                                                                                     \
        ND_OK_OR_FAIL(call);                                                                                 \
        ck_assert_msg(nd_dtype_of(o) == (dt), "%s -> %s, want %s", #call, nd_dtype_name(nd_dtype_of(o)),     \
                      nd_dtype_name(dt));                                                                    \
        nd_release(o);                                                                                       \
        o = NULL;                                                                                            \
    } while (0)
    EXPECT_DT(nd_square(&o, b), ND_INT8);
    EXPECT_DT(nd_floor_divide(&o, b, b), ND_INT8);
    EXPECT_DT(nd_left_shift(&o, b, b), ND_INT8);
    EXPECT_DT(nd_add(&o, b, b), ND_BOOL);
    EXPECT_DT(nd_abs(&o, b), ND_BOOL);
    EXPECT_DT(nd_floor(&o, b), ND_BOOL);
    EXPECT_DT(nd_sqrt(&o, b), ND_FLOAT16);
    EXPECT_DT(nd_sqrt(&o, i8), ND_FLOAT16);
    EXPECT_DT(nd_sqrt(&o, u8), ND_FLOAT16);
    EXPECT_DT(nd_sqrt(&o, i16), ND_FLOAT32);
    EXPECT_DT(nd_sqrt(&o, i64), ND_FLOAT64);
    EXPECT_DT(nd_rint(&o, i8), ND_FLOAT16);
    EXPECT_DT(nd_trunc(&o, u8), ND_UINT8);
    EXPECT_DT(nd_divide(&o, b, b), ND_FLOAT64);
    EXPECT_DT(nd_divide(&o, i8, i8), ND_FLOAT64);
    EXPECT_DT(nd_divide(&o, f16, f16), ND_FLOAT16);
    EXPECT_DT(nd_divide(&o, bf, i8), ND_BFLOAT16);
    EXPECT_DT(nd_add(&o, f16, bf), ND_FLOAT32);
    EXPECT_DT(nd_add(&o, i8, u8), ND_INT16);
    EXPECT_DT(nd_add(&o, i64, u64), ND_FLOAT64);
    EXPECT_DT(nd_arctan2(&o, i8, i8), ND_FLOAT16);
    EXPECT_DT(nd_copysign(&o, i16, i8), ND_FLOAT32);
    EXPECT_DT(nd_isnan(&o, i8), ND_BOOL);
    EXPECT_DT(nd_less(&o, f16, i64), ND_BOOL);
    EXPECT_DT(nd_logical_xor(&o, u64, f16), ND_BOOL);
#undef EXPECT_DT
    /* uint8 + int8 in int16: 255 + (-1) == 254 */
    static const int64_t a255[] = {255}, am1[] = {-1}, w254[] = {254};
    nd_array *x = arr_i(ND_UINT8, 1, a255), *y = arr_i(ND_INT8, 1, am1);
    ND_OK_OR_FAIL(nd_add(&o, x, y));
    expect_i(o, ND_INT16, 1, w254);
    nd_release(o), nd_release(x), nd_release(y);
    nd_release(b), nd_release(i8), nd_release(u8), nd_release(i16), nd_release(i64), nd_release(u64);
    nd_release(f16), nd_release(bf);
}
END_TEST

/* Outputs of 16 MiB and more go out with streaming stores, block by block
 * (src/cpu/elementwise.c, nd_cpu_flat_stream): the result must be the
 * bits the ordinary path gives, computed here in slices of 2^18 elements
 * (small enough not to stream), for unary and binary ops, a view starting
 * off a 64-byte boundary, and in place (out == a). */
static void stream_fill(nd_array *a, uint64_t seed)
{
    size_t nb = nd_nbytes(a);
    float *h = malloc(nb);
    ck_assert_ptr_nonnull(h);
    uint64_t x = seed;
    for (size_t i = 0; i < nb / 4; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        h[i] = 0.25f + (float)(x >> 40) / (float)(1 << 24); /* (0.25, 1.25): never zero */
    }
    ND_OK_OR_FAIL(nd_copy_from_host(a, h, nb));
    free(h);
}

/* out = op(a[, b]) by slices, as a new host buffer */
static void *stream_ref(int unary, int op, const nd_array *a, const nd_array *b, int64_t n)
{
    const int64_t step = (int64_t)1 << 18;
    size_t isz = nd_dtype_size(nd_dtype_of(a));
    char *h = malloc((size_t)n * isz);
    ck_assert_ptr_nonnull(h);
    for (int64_t i = 0; i < n; i += step) {
        int64_t e = i + step < n ? i + step : n;
        nd_range r = {i, e, 1};
        nd_array *sa = NULL, *sb = NULL, *o = NULL;
        ND_OK_OR_FAIL(nd_slice(&sa, a, 1, &r));
        if (b) ND_OK_OR_FAIL(nd_slice(&sb, b, 1, &r));
        ND_OK_OR_FAIL(unary ? nd_unary(&o, (nd_unary_op)op, sa) : nd_binary(&o, (nd_binary_op)op, sa, sb));
        ND_OK_OR_FAIL(nd_copy_to_host(h + i * (int64_t)isz, o, (size_t)(e - i) * isz));
        nd_release(sa), nd_release(sb), nd_release(o);
    }
    return h;
}

START_TEST(streaming_stores_give_the_same_bits)
{
    static const struct {
        nd_dtype t;
        int unary, op;
        int64_t n;
    } cases[] = {
        {ND_FLOAT32, 0, ND_BINARY_ADD, 4200003},
        {ND_COMPLEX64, 0, ND_BINARY_MULTIPLY, 2100001},
        {ND_FLOAT64, 1, ND_UNARY_SQRT, 2100005},
        {ND_COMPLEX128, 1, ND_UNARY_EXP, 1050003},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int mode = 0; mode < 3; mode++) { /* 0: new out, 1: views at element 1, 2: in place */
            const int64_t n = cases[c].n, off = mode == 1 ? 1 : 0;
            int64_t shape[1] = {n + off};
            nd_array *ba = NULL, *bb = NULL, *a = NULL, *b = NULL, *out = NULL;
            ND_OK_OR_FAIL(nd_empty(&ba, cases[c].t, 1, shape, nd_cpu()));
            ND_OK_OR_FAIL(nd_empty(&bb, cases[c].t, 1, shape, nd_cpu()));
            stream_fill(ba, 11 + c), stream_fill(bb, 23 + c);
            nd_range r = {off, n + off, 1};
            ND_OK_OR_FAIL(nd_slice(&a, ba, 1, &r));
            ND_OK_OR_FAIL(nd_slice(&b, bb, 1, &r));
            void *want = stream_ref(cases[c].unary, cases[c].op, a, cases[c].unary ? NULL : b, n);
            if (mode == 1) { /* an existing output view off the 64-byte grid */
                nd_array *bo = NULL;
                ND_OK_OR_FAIL(nd_empty(&bo, cases[c].t, 1, shape, nd_cpu()));
                ND_OK_OR_FAIL(nd_slice(&out, bo, 1, &r));
                nd_release(bo);
            } else if (mode == 2)
                out = nd_retain(a);
            nd_status s = cases[c].unary ? nd_unary(&out, (nd_unary_op)cases[c].op, a)
                                         : nd_binary(&out, (nd_binary_op)cases[c].op, a, b);
            ck_assert_int_eq(s, ND_OK);
            size_t nb = (size_t)n * nd_dtype_size(cases[c].t);
            char *got = malloc(nb);
            ck_assert_ptr_nonnull(got);
            ND_OK_OR_FAIL(nd_copy_to_host(got, out, nb));
            ck_assert_msg(memcmp(got, want, nb) == 0, "case %zu (%s) mode %d: the streamed output differs", c,
                          nd_dtype_name(cases[c].t), mode);
            free(got), free(want);
            nd_release(out), nd_release(a), nd_release(b), nd_release(ba), nd_release(bb);
        }
}
END_TEST

START_TEST(op_names_follow_the_table)
{
#define CHECK_U(E, n, k, r) ck_assert_str_eq(nd_unary_op_name(ND_UNARY_##E), #n);
#define CHECK_B(E, n, k, r) ck_assert_str_eq(nd_binary_op_name(ND_BINARY_##E), #n);
    ND_UNARY_OPS(CHECK_U)
    ND_BINARY_OPS(CHECK_B)
#undef CHECK_U
#undef CHECK_B
    ck_assert_ptr_null(nd_unary_op_name(ND_NUM_UNARY_OPS));
    ck_assert_ptr_null(nd_unary_op_name((nd_unary_op)-1));
    ck_assert_ptr_null(nd_binary_op_name(ND_NUM_BINARY_OPS));
    ck_assert_ptr_null(nd_binary_op_name((nd_binary_op)-1));
    ck_assert_str_eq(nd_unary_op_name(ND_UNARY_NEG), "negative");
    ck_assert_str_eq(nd_binary_op_name(ND_BINARY_ADD), "add");
}
END_TEST

TCase *ew_tcase_exact(void)
{
    TCase *tc = tcase_create("exact");
    tcase_add_test(tc, int_floor_divide_remainder_python_signs);
    tcase_add_test(tc, float_floor_divide_remainder);
    tcase_add_test(tc, shifts_edge_cases);
    tcase_add_test(tc, integer_power);
    tcase_add_test(tc, rounding_sign_abs_reciprocal);
    tcase_add_test(tc, nan_rules_sigmoid_relu);
    tcase_add_test(tc, nep50_scalar_promotion);
    tcase_add_test(tc, result_dtypes);
    tcase_add_test(tc, op_names_follow_the_table);
    tcase_add_test(tc, streaming_stores_give_the_same_bits);
    return tc;
}
