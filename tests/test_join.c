/* Joins: concatenate and stack (a TCase of the "views" suite). Expected
 * values and dtypes are NumPy's (pasted as constants). */
#include "creation_util.h"

TCase *tcase_join(void);

START_TEST(test_concatenate)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int d = 0; d < nd; d++) {
        /* x = np.arange(1,7,dtype=np.float32).reshape(2,3); y = np.arange(1,4).reshape(1,3) (int64) */
        nd_array *x = cv_iota(ND_FLOAT32, 2, (const int64_t[]){2, 3}, devs[d]);
        nd_array *y = cv_make(ND_INT64, 2, (const int64_t[]){1, 3}, (const double[]){-1, -2, -3}, devs[d]);
        const nd_array *xy[2] = {x, y};
        nd_array *r = NULL;
        ND_OK_OR_FAIL(nd_concatenate(&r, 2, xy, 0));
        ck_assert_int_eq(nd_dtype_of(r), ND_FLOAT64); /* float32 + int64 -> float64 */
        cv_expect_shape(r, 2, (const int64_t[]){3, 3});
        ck_assert(nd_is_contiguous(r));
        ck_assert_int_eq(nd_device_of(r).type, devs[d].type);
        cv_expect_values(r, 9, (const double[]){1, 2, 3, 4, 5, 6, -1, -2, -3});
        nd_release(r), r = NULL;
        /* along the last axis (-1) with a transposed piece: np.concatenate([x, y.T.T...]) */
        nd_array *c = cv_iota(ND_INT8, 2, (const int64_t[]){3, 2}, devs[d]), *ct = NULL;
        ND_OK_OR_FAIL(nd_transpose(&ct, c, NULL)); /* (2, 3): [[1,3,5],[2,4,6]] */
        const nd_array *xc[3] = {x, ct, x};
        ND_OK_OR_FAIL(nd_concatenate(&r, 3, xc, -1));
        ck_assert_int_eq(nd_dtype_of(r), ND_FLOAT32); /* float32 + int8 */
        cv_expect_shape(r, 2, (const int64_t[]){2, 9});
        cv_expect_values(r, 18, (const double[]){1, 2, 3, 1, 3, 5, 1, 2, 3, 4, 5, 6, 2, 4, 6, 4, 5, 6});
        nd_release(r), r = NULL;
        nd_release(c);
        nd_release(ct);
        nd_release(x);
        nd_release(y);
    }
}
END_TEST

START_TEST(test_concatenate_more)
{
    /* bool + int8 -> int8; uint8 + int8 -> int16; negative-stride pieces */
    nd_array *b = cv_make(ND_BOOL, 1, (const int64_t[]){3}, (const double[]){1, 0, 1}, nd_cpu());
    nd_array *i8 = cv_make(ND_INT8, 1, (const int64_t[]){2}, (const double[]){-5, 7}, nd_cpu());
    nd_array *u8 = cv_make(ND_UINT8, 1, (const int64_t[]){2}, (const double[]){200, 9}, nd_cpu());
    nd_array *r = NULL, *rev = NULL;
    ND_OK_OR_FAIL(nd_concatenate(&r, 2, (const nd_array *[]){b, i8}, 0));
    ck_assert_int_eq(nd_dtype_of(r), ND_INT8);
    cv_expect_values(r, 5, (const double[]){1, 0, 1, -5, 7});
    nd_release(r), r = NULL;
    ND_OK_OR_FAIL(nd_slice(&rev, u8, 1, &(nd_range){ND_NONE, ND_NONE, -1}));
    ND_OK_OR_FAIL(nd_concatenate(&r, 3, (const nd_array *[]){u8, i8, rev}, 0));
    ck_assert_int_eq(nd_dtype_of(r), ND_INT16);
    cv_expect_values(r, 6, (const double[]){200, 9, -5, 7, 9, 200});
    nd_release(r), r = NULL;
    /* a single array: a copy */
    ND_OK_OR_FAIL(nd_concatenate(&r, 1, (const nd_array *[]){rev}, 0));
    ck_assert_ptr_ne(nd_data(r), nd_data(u8));
    cv_expect_values(r, 2, (const double[]){9, 200});
    nd_release(r), r = NULL;
    /* zero-size pieces: np.concatenate([zeros((0,2)), ones((2,2)), zeros((0,2))]) */
    nd_array *z = NULL, *o = NULL;
    ND_OK_OR_FAIL(nd_zeros(&z, ND_FLOAT64, 2, (const int64_t[]){0, 2}, nd_cpu()));
    ND_OK_OR_FAIL(nd_ones(&o, ND_FLOAT64, 2, (const int64_t[]){2, 2}, nd_cpu()));
    ND_OK_OR_FAIL(nd_concatenate(&r, 3, (const nd_array *[]){z, o, z}, 0));
    cv_expect_shape(r, 2, (const int64_t[]){2, 2});
    cv_expect_values(r, 4, (const double[]){1, 1, 1, 1});
    nd_release(r), r = NULL;
    ND_OK_OR_FAIL(nd_concatenate(&r, 2, (const nd_array *[]){z, z}, 1));
    cv_expect_shape(r, 2, (const int64_t[]){0, 4});
    nd_release(r), r = NULL;
    /* broadcast (stride 0) piece */
    nd_array *bc = NULL;
    ND_OK_OR_FAIL(nd_broadcast_to(&bc, i8, 2, (const int64_t[]){2, 2}));
    ND_OK_OR_FAIL(nd_concatenate(&r, 2, (const nd_array *[]){o, bc}, 1));
    cv_expect_values(r, 8, (const double[]){1, 1, -5, 7, 1, 1, -5, 7});
    nd_release(r), r = NULL;
    nd_release(bc);
    nd_release(z);
    nd_release(o);
    nd_release(rev);
    nd_release(b);
    nd_release(i8);
    nd_release(u8);
}
END_TEST

START_TEST(test_concatenate_out)
{
    nd_array *x = cv_iota(ND_INT32, 1, (const int64_t[]){3}, nd_cpu());
    nd_array *y = cv_make(ND_INT32, 1, (const int64_t[]){2}, (const double[]){-1, -2}, nd_cpu());
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_empty(&o, ND_FLOAT32, 1, (const int64_t[]){5}, nd_cpu()));
    nd_array *keep = o;
    cv_poison(o, 99);
    ND_OK_OR_FAIL(nd_concatenate(&o, 2, (const nd_array *[]){y, x}, 0));
    ck_assert_ptr_eq(o, keep);
    cv_expect_values(o, 5, (const double[]){-1, -2, 1, 2, 3});
    /* a strided out (every other element of a (10,) array) */
    nd_array *base = NULL, *sv = NULL;
    ND_OK_OR_FAIL(nd_zeros(&base, ND_INT64, 1, (const int64_t[]){10}, nd_cpu()));
    cv_poison(base, 55);
    ND_OK_OR_FAIL(nd_slice(&sv, base, 1, &(nd_range){1, ND_NONE, 2}));
    ND_OK_OR_FAIL(nd_concatenate(&sv, 2, (const nd_array *[]){x, y}, 0));
    cv_expect_values(base, 10, (const double[]){55, 1, 55, 2, 55, 3, 55, -1, 55, -2});
    nd_release(sv);
    /* an out overlapping the inputs: base4 = [1,2,3,4]; concatenate([base4[2:], base4[:2]]) into base4 */
    nd_array *b4 = cv_iota(ND_INT16, 1, (const int64_t[]){4}, nd_cpu()), *lo = NULL, *hi = NULL, *b4k = b4;
    ND_OK_OR_FAIL(nd_slice(&lo, b4, 1, &(nd_range){ND_NONE, 2, 1}));
    ND_OK_OR_FAIL(nd_slice(&hi, b4, 1, &(nd_range){2, ND_NONE, 1}));
    ND_OK_OR_FAIL(nd_concatenate(&b4, 2, (const nd_array *[]){hi, lo}, 0));
    ck_assert_ptr_eq(b4, b4k);
    cv_expect_values(b4, 4, (const double[]){3, 4, 1, 2});
    nd_release(lo);
    nd_release(hi);
    nd_release(b4);
    /* wrong shape / dtype: out untouched */
    nd_array *oi = NULL, *oik;
    ND_OK_OR_FAIL(nd_zeros(&oi, ND_INT8, 1, (const int64_t[]){5}, nd_cpu()));
    oik = oi;
    ND_EXPECT_ERR(nd_concatenate(&o, 1, (const nd_array *[]){x}, 0), ND_ERR_SHAPE,
                  "nd_concatenate: 'out' has shape (5,), but the result has shape (3,)");
    ND_EXPECT_ERR(nd_concatenate(&oi, 2, (const nd_array *[]){o, o}, 0), ND_ERR_SHAPE, "result has shape (10,)");
    nd_array *f2 = cv_iota(ND_FLOAT16, 1, (const int64_t[]){2}, nd_cpu());
    ND_EXPECT_ERR(nd_concatenate(&oi, 2, (const nd_array *[]){x, f2}, 0), ND_ERR_DTYPE,
                  "cannot cast the result from float64 to 'out' dtype int8"); /* int32 + float16 -> float64 */
    nd_release(f2);
    ND_EXPECT_ERR(nd_stack(&oi, 2, (const nd_array *[]){y, y}, 0), ND_ERR_SHAPE, "nd_stack: 'out' has shape (5,)");
    ck_assert_ptr_eq(oi, oik);
    cv_expect_values(oi, 5, (const double[]){0, 0, 0, 0, 0});
    cv_expect_values(o, 5, (const double[]){-1, -2, 1, 2, 3});
    nd_release(oi);
    nd_release(base);
    nd_release(o);
    nd_release(x);
    nd_release(y);
}
END_TEST

START_TEST(test_concatenate_bad)
{
    nd_array *a = cv_iota(ND_FLOAT32, 2, (const int64_t[]){2, 2}, nd_cpu());
    nd_array *b = cv_iota(ND_FLOAT32, 1, (const int64_t[]){2}, nd_cpu());
    nd_array *c = cv_iota(ND_FLOAT32, 2, (const int64_t[]){3, 3}, nd_cpu());
    nd_array *s = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_full(&s, ND_FLOAT32, 0, NULL, nd_scalar_float(1), nd_cpu()));
    ND_EXPECT_ERR(nd_concatenate(&r, 2, (const nd_array *[]){s, s}, 0), ND_ERR_SHAPE,
                  "zero-dimensional arrays cannot be concatenated");
    ND_EXPECT_ERR(nd_concatenate(&r, 2, (const nd_array *[]){a, b}, 0), ND_ERR_SHAPE,
                  "the array at index 0 has 2 dimension(s) and the array at index 1 has 1 dimension(s)");
    ND_EXPECT_ERR(nd_concatenate(&r, 2, (const nd_array *[]){a, c}, 0), ND_ERR_SHAPE,
                  "along dimension 1, the array at index 0 has size 2 and the array at index 1 has size 3");
    ND_EXPECT_ERR(nd_concatenate(&r, 2, (const nd_array *[]){a, c}, 2), ND_ERR_SHAPE,
                  "axis 2 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_concatenate(&r, 2, (const nd_array *[]){a, a}, -3), ND_ERR_SHAPE, "axis -3 is out of bounds");
    ND_EXPECT_ERR(nd_concatenate(&r, 0, (const nd_array *[]){a}, 0), ND_ERR_INVALID, "need at least one array to concatenate");
    ND_EXPECT_ERR(nd_concatenate(&r, -2, (const nd_array *[]){a}, 0), ND_ERR_INVALID, "need at least one array");
    ND_EXPECT_ERR(nd_concatenate(&r, 2, NULL, 0), ND_ERR_INVALID, "argument 'arrays' is NULL");
    ND_EXPECT_ERR(nd_concatenate(&r, 2, (const nd_array *[]){a, NULL}, 0), ND_ERR_INVALID, "argument 'arrays[1]' is NULL");
    ND_EXPECT_ERR(nd_concatenate(NULL, 1, (const nd_array *[]){a}, 0), ND_ERR_INVALID, "nd_concatenate: argument 'out' is NULL");
    ck_assert_ptr_null(r);
    nd_release(s);
    nd_release(a);
    nd_release(b);
    nd_release(c);
}
END_TEST

START_TEST(test_stack)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int d = 0; d < nd; d++) {
        nd_array *x = cv_iota(ND_UINT8, 1, (const int64_t[]){2}, devs[d]);
        nd_array *y = cv_make(ND_INT8, 1, (const int64_t[]){2}, (const double[]){-1, -2}, devs[d]);
        nd_array *z = cv_make(ND_UINT8, 1, (const int64_t[]){2}, (const double[]){7, 8}, devs[d]);
        const nd_array *xyz[3] = {x, y, z};
        nd_array *r = NULL;
        /* np.stack([x, y, z]) -> int16 (3, 2) */
        ND_OK_OR_FAIL(nd_stack(&r, 3, xyz, 0));
        ck_assert_int_eq(nd_dtype_of(r), ND_INT16);
        cv_expect_shape(r, 2, (const int64_t[]){3, 2});
        cv_expect_values(r, 6, (const double[]){1, 2, -1, -2, 7, 8});
        nd_release(r), r = NULL;
        /* axis 1 and -1 -> (2, 3) */
        const int axes[2] = {1, -1};
        for (int i = 0; i < 2; i++) {
            ND_OK_OR_FAIL(nd_stack(&r, 3, xyz, axes[i]));
            cv_expect_shape(r, 2, (const int64_t[]){2, 3});
            cv_expect_values(r, 6, (const double[]){1, -1, 7, 2, -2, 8});
            nd_release(r), r = NULL;
        }
        /* -2 is the front for 1-D inputs */
        ND_OK_OR_FAIL(nd_stack(&r, 3, xyz, -2));
        cv_expect_shape(r, 2, (const int64_t[]){3, 2});
        nd_release(r), r = NULL;
        nd_release(x);
        nd_release(y);
        nd_release(z);
    }
    /* 2-D inputs on the middle axis, one transposed:
     * np.stack([A, B.T], axis=1) with A = arange(1,7).reshape(2,3), B = arange(1,7).reshape(3,2) */
    nd_array *A = cv_iota(ND_FLOAT64, 2, (const int64_t[]){2, 3}, nd_cpu());
    nd_array *B = cv_iota(ND_FLOAT64, 2, (const int64_t[]){3, 2}, nd_cpu()), *BT = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_transpose(&BT, B, NULL));
    ND_OK_OR_FAIL(nd_stack(&r, 2, (const nd_array *[]){A, BT}, 1));
    cv_expect_shape(r, 3, (const int64_t[]){2, 2, 3});
    cv_expect_values(r, 12, (const double[]){1, 2, 3, 1, 3, 5, 4, 5, 6, 2, 4, 6});
    nd_release(r), r = NULL;
    /* 0-d inputs -> 1-D */
    nd_array *s1 = NULL, *s2 = NULL;
    ND_OK_OR_FAIL(nd_full(&s1, ND_INT32, 0, NULL, nd_scalar_int(4), nd_cpu()));
    ND_OK_OR_FAIL(nd_full(&s2, ND_BOOL, 0, NULL, nd_scalar_bool(true), nd_cpu()));
    ND_OK_OR_FAIL(nd_stack(&r, 2, (const nd_array *[]){s1, s2}, 0));
    ck_assert_int_eq(nd_dtype_of(r), ND_INT32);
    cv_expect_shape(r, 1, (const int64_t[]){2});
    cv_expect_values(r, 2, (const double[]){4, 1});
    nd_release(r), r = NULL;
    ND_OK_OR_FAIL(nd_stack(&r, 1, (const nd_array *[]){s1}, -1));
    cv_expect_values(r, 1, (const double[]){4});
    nd_release(r), r = NULL;
    /* zero-size inputs */
    nd_array *e = NULL;
    ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT32, 2, (const int64_t[]){0, 3}, nd_cpu()));
    ND_OK_OR_FAIL(nd_stack(&r, 2, (const nd_array *[]){e, e}, 2));
    cv_expect_shape(r, 3, (const int64_t[]){0, 3, 2});
    nd_release(r), r = NULL;
    /* into an existing out */
    nd_array *o = NULL, *ok;
    ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT32, 2, (const int64_t[]){2, 2}, nd_cpu()));
    ok = o;
    cv_poison(o, 3.5);
    ND_EXPECT_ERR(nd_stack(&o, 2, (const nd_array *[]){s1, s2}, 0), ND_ERR_SHAPE,
                  "'out' has shape (2,2), but the result has shape (2,)");
    nd_array *v1 = cv_make(ND_INT16, 1, (const int64_t[]){2}, (const double[]){-3, 6}, nd_cpu());
    ND_OK_OR_FAIL(nd_stack(&o, 2, (const nd_array *[]){v1, v1}, 1));
    ck_assert_ptr_eq(o, ok);
    cv_expect_values(o, 4, (const double[]){-3, -3, 6, 6});
    /* bad input */
    ND_EXPECT_ERR(nd_stack(&r, 2, (const nd_array *[]){A, B}, 0), ND_ERR_SHAPE,
                  "all input arrays must have the same shape, but the array at index 0 has shape (2,3) and the array "
                  "at index 1 has shape (3,2)");
    ND_EXPECT_ERR(nd_stack(&r, 2, (const nd_array *[]){A, s1}, 0), ND_ERR_SHAPE, "same shape");
    ND_EXPECT_ERR(nd_stack(&r, 2, (const nd_array *[]){A, A}, 3), ND_ERR_SHAPE, "axis 3 is out of bounds for array of dimension 3");
    ND_EXPECT_ERR(nd_stack(&r, 2, (const nd_array *[]){A, A}, -4), ND_ERR_SHAPE, "axis -4 is out of bounds");
    ND_EXPECT_ERR(nd_stack(&r, 0, (const nd_array *[]){A}, 0), ND_ERR_INVALID, "need at least one array to stack");
    ND_EXPECT_ERR(nd_stack(&r, 1, NULL, 0), ND_ERR_INVALID, "argument 'arrays' is NULL");
    ND_EXPECT_ERR(nd_stack(&r, 2, (const nd_array *[]){NULL, A}, 0), ND_ERR_INVALID, "argument 'arrays[0]' is NULL");
    ND_EXPECT_ERR(nd_stack(NULL, 1, (const nd_array *[]){A}, 0), ND_ERR_INVALID, "nd_stack: argument 'out' is NULL");
    int64_t ones[ND_MAX_DIMS];
    for (int i = 0; i < ND_MAX_DIMS; i++) ones[i] = 1;
    nd_array *big = NULL;
    ND_OK_OR_FAIL(nd_zeros(&big, ND_INT8, ND_MAX_DIMS, ones, nd_cpu()));
    ND_EXPECT_ERR(nd_stack(&r, 1, (const nd_array *[]){big}, 0), ND_ERR_SHAPE, "33 dimensions (maximum 32)");
    ck_assert_ptr_null(r);
    nd_release(big);
    nd_release(v1);
    nd_release(o);
    nd_release(e);
    nd_release(s1);
    nd_release(s2);
    nd_release(A);
    nd_release(B);
    nd_release(BT);
}
END_TEST

TCase *tcase_join(void)
{
    TCase *tc = tcase_create("join");
    tcase_add_test(tc, test_concatenate);
    tcase_add_test(tc, test_concatenate_more);
    tcase_add_test(tc, test_concatenate_out);
    tcase_add_test(tc, test_concatenate_bad);
    tcase_add_test(tc, test_stack);
    return tc;
}
