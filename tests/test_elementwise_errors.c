/* Bad input for every elementwise entry point: exact status, a message
 * naming the function and the problem, *out untouched, nothing leaked
 * (the ASan build checks leaks). */
#include <stdio.h>

#include "harness.h"

static nd_array *filled(nd_dtype t, int ndim, const int64_t *shape, double v)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, t, ndim, shape, nd_scalar_float(v), nd_cpu()));
    return a;
}

START_TEST(null_pointers_and_bad_ops)
{
    int64_t s[1] = {3};
    nd_array *a = filled(ND_FLOAT32, 1, s, 1.5), *o = NULL;
    ND_EXPECT_ERR(nd_unary(NULL, ND_UNARY_EXP, a), ND_ERR_INVALID, "nd_unary: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_unary(&o, ND_UNARY_EXP, NULL), ND_ERR_INVALID, "nd_unary: argument 'a' is NULL");
    ND_EXPECT_ERR(nd_unary(&o, ND_NUM_UNARY_OPS, a), ND_ERR_INVALID, "nd_unary: invalid unary op");
    ND_EXPECT_ERR(nd_unary(&o, (nd_unary_op)-1, a), ND_ERR_INVALID, "invalid unary op -1");
    ND_EXPECT_ERR(nd_exp(NULL, a), ND_ERR_INVALID, "nd_exp: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_exp(&o, NULL), ND_ERR_INVALID, "nd_exp: argument 'a' is NULL");
    ND_EXPECT_ERR(nd_binary(NULL, ND_BINARY_ADD, a, a), ND_ERR_INVALID, "nd_binary: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_binary(&o, ND_BINARY_ADD, NULL, a), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_binary(&o, ND_BINARY_ADD, a, NULL), ND_ERR_INVALID, "argument 'b' is NULL");
    ND_EXPECT_ERR(nd_binary(&o, ND_NUM_BINARY_OPS, a, a), ND_ERR_INVALID, "nd_binary: invalid binary op");
    ND_EXPECT_ERR(nd_binary(&o, (nd_binary_op)-3, a, a), ND_ERR_INVALID, "invalid binary op -3");
    ND_EXPECT_ERR(nd_add(&o, a, NULL), ND_ERR_INVALID, "nd_add: argument 'b' is NULL");
    ND_EXPECT_ERR(nd_less(NULL, a, a), ND_ERR_INVALID, "nd_less: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_binary_scalar(NULL, ND_BINARY_ADD, a, nd_scalar_int(1)), ND_ERR_INVALID,
                  "nd_binary_scalar: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_binary_scalar(&o, ND_BINARY_ADD, NULL, nd_scalar_int(1)), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_binary_scalar(&o, ND_NUM_BINARY_OPS, a, nd_scalar_int(1)), ND_ERR_INVALID, "invalid binary op");
    ND_EXPECT_ERR(nd_scalar_binary(&o, ND_BINARY_ADD, nd_scalar_int(1), NULL), ND_ERR_INVALID,
                  "nd_scalar_binary: argument 'a' is NULL");
    ND_EXPECT_ERR(nd_scalar_binary(&o, (nd_binary_op)99, nd_scalar_int(1), a), ND_ERR_INVALID, "invalid binary op 99");
    /* scalars without a value or with a bad kind */
    ND_EXPECT_ERR(nd_binary_scalar(&o, ND_BINARY_ADD, a, nd_scalar_none()), ND_ERR_INVALID, "has no value");
    nd_scalar bad = nd_scalar_int(1);
    bad.kind = (nd_scalar_kind)42;
    ND_EXPECT_ERR(nd_scalar_binary(&o, ND_BINARY_ADD, bad, a), ND_ERR_INVALID, "invalid kind 42");
    ND_EXPECT_ERR(nd_where(NULL, a, a, a), ND_ERR_INVALID, "nd_where: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_where(&o, NULL, a, a), ND_ERR_INVALID, "argument 'cond' is NULL");
    ND_EXPECT_ERR(nd_where(&o, a, NULL, a), ND_ERR_INVALID, "argument 'x' is NULL");
    ND_EXPECT_ERR(nd_where(&o, a, a, NULL), ND_ERR_INVALID, "argument 'y' is NULL");
    ND_EXPECT_ERR(nd_clip(NULL, a, a, a), ND_ERR_INVALID, "nd_clip: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_clip(&o, NULL, a, a), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_clip(&o, a, NULL, NULL), ND_ERR_INVALID, "at least one of 'lo' and 'hi'");
    ND_EXPECT_ERR(nd_clip_scalar(NULL, a, nd_scalar_int(0), nd_scalar_int(1)), ND_ERR_INVALID,
                  "nd_clip_scalar: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_clip_scalar(&o, NULL, nd_scalar_int(0), nd_scalar_int(1)), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_clip_scalar(&o, a, nd_scalar_none(), nd_scalar_none()), ND_ERR_INVALID,
                  "at least one of 'lo' and 'hi'");
    ND_EXPECT_ERR(nd_clip_scalar(&o, a, bad, nd_scalar_none()), ND_ERR_INVALID, "scalar 'lo' has an invalid kind");
    ck_assert_ptr_null(o);
    nd_release(a);
}
END_TEST

/* every named wrapper validates its pointers and names itself */
START_TEST(named_wrappers_validate)
{
    int64_t s[1] = {2};
    nd_array *a = filled(ND_INT32, 1, s, 1), *o = NULL;
    char want[128];
#define EW_CHECK_U(E, n, k, r)                                                       \
    snprintf(want, sizeof want, "nd_%s: argument 'out' is NULL", #n);               \
    ND_EXPECT_ERR(nd_##n(NULL, a), ND_ERR_INVALID, want);                            \
    snprintf(want, sizeof want, "nd_%s: argument 'a' is NULL", #n);                 \
    ND_EXPECT_ERR(nd_##n(&o, NULL), ND_ERR_INVALID, want);
#define EW_CHECK_B(E, n, k, r)                                                       \
    snprintf(want, sizeof want, "nd_%s: argument 'out' is NULL", #n);               \
    ND_EXPECT_ERR(nd_##n(NULL, a, a), ND_ERR_INVALID, want);                         \
    snprintf(want, sizeof want, "nd_%s: argument 'a' is NULL", #n);                 \
    ND_EXPECT_ERR(nd_##n(&o, NULL, a), ND_ERR_INVALID, want);                        \
    snprintf(want, sizeof want, "nd_%s: argument 'b' is NULL", #n);                 \
    ND_EXPECT_ERR(nd_##n(&o, a, NULL), ND_ERR_INVALID, want);
    ND_UNARY_OPS(EW_CHECK_U)
    ND_BINARY_OPS(EW_CHECK_B)
#undef EW_CHECK_U
#undef EW_CHECK_B
    ck_assert_ptr_null(o);
    nd_release(a);
}
END_TEST

START_TEST(unsupported_dtypes)
{
    int64_t s[1] = {2};
    nd_array *b = filled(ND_BOOL, 1, s, 1), *f = filled(ND_FLOAT64, 1, s, 2), *o = NULL;
    ND_EXPECT_ERR(nd_negative(&o, b), ND_ERR_DTYPE, "nd_negative: no loop for dtype bool");
    ND_EXPECT_ERR(nd_unary(&o, ND_UNARY_NEG, b), ND_ERR_DTYPE, "nd_unary: op 'negative' has no loop for dtype bool");
    ND_EXPECT_ERR(nd_sign(&o, b), ND_ERR_DTYPE, "nd_sign: no loop for dtype bool");
    ND_EXPECT_ERR(nd_bitwise_not(&o, f), ND_ERR_DTYPE, "nd_bitwise_not: no loop for dtype float64");
    ND_EXPECT_ERR(nd_subtract(&o, b, b), ND_ERR_DTYPE, "nd_subtract: no loop for dtype bool");
    ND_EXPECT_ERR(nd_bitwise_and(&o, f, b), ND_ERR_DTYPE, "no loop for dtype float64");
    ND_EXPECT_ERR(nd_left_shift(&o, f, f), ND_ERR_DTYPE, "nd_left_shift: no loop for dtype float64");
    ND_EXPECT_ERR(nd_binary_scalar(&o, ND_BINARY_BITWISE_OR, f, nd_scalar_int(1)), ND_ERR_DTYPE,
                  "op 'bitwise_or' has no loop for dtype float64");
    /* int array with a float scalar promotes to float64, which has no shift */
    nd_array *i = filled(ND_INT32, 1, s, 3);
    ND_EXPECT_ERR(nd_scalar_binary(&o, ND_BINARY_RIGHT_SHIFT, nd_scalar_float(1.0), i), ND_ERR_DTYPE,
                  "no loop for dtype float64");
    ck_assert_ptr_null(o);
    nd_release(b), nd_release(f), nd_release(i);
}
END_TEST

START_TEST(shapes_that_do_not_broadcast)
{
    int64_t s34[2] = {3, 4}, s5[1] = {5}, s31[2] = {3, 1}, s24[2] = {2, 4};
    nd_array *a = filled(ND_FLOAT32, 2, s34, 1), *b = filled(ND_FLOAT32, 1, s5, 2), *o = NULL;
    ND_EXPECT_ERR(nd_add(&o, a, b), ND_ERR_SHAPE, "nd_add: shapes (3,4) and (5,) do not broadcast");
    ND_EXPECT_ERR(nd_binary(&o, ND_BINARY_HYPOT, b, a), ND_ERR_SHAPE, "nd_binary: shapes (5,) and (3,4) do not broadcast");
    nd_array *c = filled(ND_BOOL, 2, s31, 1), *y = filled(ND_FLOAT32, 2, s24, 0);
    ND_EXPECT_ERR(nd_where(&o, c, a, y), ND_ERR_SHAPE, "nd_where: shapes");
    ND_EXPECT_ERR(nd_where(&o, b, a, a), ND_ERR_SHAPE, "do not broadcast");
    ND_EXPECT_ERR(nd_clip(&o, a, b, NULL), ND_ERR_SHAPE, "nd_clip: shapes (3,4) and (5,) do not broadcast");
    ND_EXPECT_ERR(nd_clip(&o, a, NULL, y), ND_ERR_SHAPE, "nd_clip: shapes (3,4) and (2,4) do not broadcast");
    ck_assert_ptr_null(o);
    nd_release(a), nd_release(b), nd_release(c), nd_release(y);
}
END_TEST

/* A user out with the wrong shape or dtype or a read-only (broadcast)
 * layout fails before anything is written. */
START_TEST(bad_out_arrays_are_untouched)
{
    int64_t s3[1] = {3}, s4[1] = {4};
    nd_array *a = filled(ND_FLOAT32, 1, s3, 2.0), *ia = filled(ND_INT32, 1, s3, 7);
    nd_array *oi = filled(ND_INT32, 1, s3, 99), *keep = oi;
    /* float result into an int out: not same_kind */
    ND_EXPECT_ERR(nd_sqrt(&oi, a), ND_ERR_DTYPE, "nd_sqrt: cannot cast the result from float32 to 'out' dtype int32");
    ND_EXPECT_ERR(nd_divide(&oi, ia, ia), ND_ERR_DTYPE, "from float64 to 'out' dtype int32");
    ND_EXPECT_ERR(nd_binary_scalar(&oi, ND_BINARY_ADD, ia, nd_scalar_float(0.5)), ND_ERR_DTYPE, "same_kind");
    ND_EXPECT_ERR(nd_where(&oi, ia, a, a), ND_ERR_DTYPE, "nd_where: cannot cast");
    ND_EXPECT_ERR(nd_clip_scalar(&oi, ia, nd_scalar_float(0.5), nd_scalar_none()), ND_ERR_DTYPE, "nd_clip_scalar");
    ND_EXPECT_ERR(nd_clip(&oi, a, a, NULL), ND_ERR_DTYPE, "nd_clip: cannot cast");
    /* a bool result accepts any out; an int result does not fit a bool out */
    nd_array *ob = filled(ND_BOOL, 1, s3, 0);
    ND_EXPECT_ERR(nd_add(&ob, ia, ia), ND_ERR_DTYPE, "from int32 to 'out' dtype bool");
    /* wrong shape */
    nd_array *o4 = filled(ND_FLOAT32, 1, s4, 5);
    ND_EXPECT_ERR(nd_exp(&o4, a), ND_ERR_SHAPE, "nd_exp: 'out' has shape (4,), but the result has shape (3,)");
    ND_EXPECT_ERR(nd_multiply(&o4, a, a), ND_ERR_SHAPE, "'out' has shape (4,)");
    ND_EXPECT_ERR(nd_clip_scalar(&o4, a, nd_scalar_int(0), nd_scalar_int(1)), ND_ERR_SHAPE, "'out' has shape (4,)");
    /* a broadcast view cannot be written */
    nd_array *one = filled(ND_FLOAT32, 0, NULL, 1), *bv = NULL;
    ND_OK_OR_FAIL(nd_broadcast_to(&bv, one, 1, s3));
    nd_array *bkeep = bv;
    ND_EXPECT_ERR(nd_add(&bv, a, a), ND_ERR_INVALID, "'out' is a broadcast view");
    ND_EXPECT_ERR(nd_negative(&bv, a), ND_ERR_INVALID, "nd_negative: 'out' is a broadcast view");
    ck_assert_ptr_eq(bv, bkeep);
    /* the outs kept their pointers and their contents */
    ck_assert_ptr_eq(oi, keep);
    int32_t vi[3];
    ND_OK_OR_FAIL(nd_copy_to_host(vi, oi, sizeof vi));
    ck_assert(vi[0] == 99 && vi[1] == 99 && vi[2] == 99);
    float v4[4];
    ND_OK_OR_FAIL(nd_copy_to_host(v4, o4, sizeof v4));
    ck_assert(v4[0] == 5 && v4[3] == 5);
    float v1;
    ND_OK_OR_FAIL(nd_copy_to_host(&v1, one, sizeof v1));
    ck_assert(v1 == 1);
    nd_release(a), nd_release(ia), nd_release(oi), nd_release(ob), nd_release(o4), nd_release(one), nd_release(bv);
}
END_TEST

/* out of a wider dtype or with partial overlap goes through a temporary
 * and still gives NumPy's result */
START_TEST(partial_overlap_and_cast_out)
{
    int64_t s6[1] = {6}, s5[1] = {5};
    int32_t v[6] = {1, 2, 3, 4, 5, 6};
    nd_array *base = NULL, *x = NULL, *y = NULL;
    ND_OK_OR_FAIL(nd_from_host(&base, v, ND_INT32, 1, s6, nd_cpu()));
    nd_range r0 = {0, 5, 1}, r1 = {1, 6, 1};
    ND_OK_OR_FAIL(nd_slice(&x, base, 1, &r0));
    ND_OK_OR_FAIL(nd_slice(&y, base, 1, &r1));
    /* y = x + x, where y starts one element after x: NumPy gives 2*[1..5] */
    ND_OK_OR_FAIL(nd_add(&y, x, x));
    int32_t got[6];
    ND_OK_OR_FAIL(nd_copy_to_host(got, base, sizeof got));
    static const int32_t want[6] = {1, 2, 4, 6, 8, 10};
    for (int i = 0; i < 6; i++) ck_assert_int_eq(got[i], want[i]);
    /* x = negative(y) the other way round */
    ND_OK_OR_FAIL(nd_negative(&x, y));
    ND_OK_OR_FAIL(nd_copy_to_host(got, base, sizeof got));
    static const int32_t want2[6] = {-2, -4, -6, -8, -10, 10};
    for (int i = 0; i < 6; i++) ck_assert_int_eq(got[i], want2[i]);
    /* an isnan result (bool) written into the float input itself */
    double d[5] = {NAN, 1, NAN, 2, 3};
    nd_array *f = NULL;
    ND_OK_OR_FAIL(nd_from_host(&f, d, ND_FLOAT64, 1, s5, nd_cpu()));
    nd_array *fo = f;
    ND_OK_OR_FAIL(nd_isnan(&fo, f));
    ck_assert_ptr_eq(fo, f);
    ND_OK_OR_FAIL(nd_copy_to_host(d, f, sizeof d));
    ck_assert(d[0] == 1 && d[1] == 0 && d[2] == 1 && d[3] == 0 && d[4] == 0);
    nd_release(base), nd_release(x), nd_release(y), nd_release(f);
}
END_TEST

/* registered only where a GPU is usable */
START_TEST(device_mismatch)
{
    int64_t s[1] = {3};
    nd_array *c = filled(ND_FLOAT32, 1, s, 1), *g = NULL, *o = NULL;
    ND_OK_OR_FAIL(nd_full(&g, ND_FLOAT32, 1, s, nd_scalar_float(2), nd_cuda(0)));
    ND_EXPECT_ERR(nd_add(&o, c, g), ND_ERR_DEVICE, "nd_add: 'a' is on cpu:0 but 'b' is on cuda:0");
    ND_EXPECT_ERR(nd_binary(&o, ND_BINARY_LESS, g, c), ND_ERR_DEVICE, "'a' is on cuda:0 but 'b' is on cpu:0");
    ND_EXPECT_ERR(nd_where(&o, c, c, g), ND_ERR_DEVICE, "nd_where: 'x' is on cpu:0 but 'y' is on cuda:0");
    ND_EXPECT_ERR(nd_where(&o, g, c, c), ND_ERR_DEVICE, "nd_where: 'cond' is on cuda:0");
    ND_EXPECT_ERR(nd_clip(&o, c, g, NULL), ND_ERR_DEVICE, "nd_clip: 'a' is on cpu:0 but 'lo' is on cuda:0");
    ND_EXPECT_ERR(nd_clip(&o, c, NULL, g), ND_ERR_DEVICE, "'hi' is on cuda:0");
    ck_assert_ptr_null(o);
    nd_release(c), nd_release(g);
}
END_TEST

TCase *ew_tcase_errors(void)
{
    TCase *tc = tcase_create("errors");
    tcase_add_test(tc, null_pointers_and_bad_ops);
    tcase_add_test(tc, named_wrappers_validate);
    tcase_add_test(tc, unsupported_dtypes);
    tcase_add_test(tc, shapes_that_do_not_broadcast);
    tcase_add_test(tc, bad_out_arrays_are_untouched);
    tcase_add_test(tc, partial_overlap_and_cast_out);
    if (nd_test_gpu_count() > 0) tcase_add_test(tc, device_mismatch);
    return tc;
}
