/* Views: reshape, transpose, slice, squeeze, expand_dims, broadcast_to.
 * Joins (concatenate, stack) are in test_join.c and added to this suite.
 * Expected element sequences are NumPy's (pasted as constants). */
#include <pthread.h>

#include "core/alloc.h"
#include "creation_util.h"

TCase *tcase_join(void); /* tests/test_join.c */

#define NELEMS(x) ((int64_t)(sizeof(x) / sizeof((x)[0])))

static void expect_strides(const nd_array *a, const int64_t *want)
{
    for (int i = 0; i < nd_ndim(a); i++)
        ck_assert_msg(nd_strides(a)[i] == want[i], "stride %d: %lld, want %lld", i, (long long)nd_strides(a)[i],
                      (long long)want[i]);
}

/* ------------------------------------------------------------------ */
/* reshape                                                             */
/* ------------------------------------------------------------------ */
START_TEST(test_reshape_view)
{
    const int64_t s234[3] = {2, 3, 4};
    for (int k = 0; k < ND_NUM_DTYPES; k++) {
        nd_dtype t = cv_all_dtypes[k];
        if (t == ND_BOOL) continue;
        nd_array *a = cv_iota(t, 3, s234, nd_cpu()), *r = NULL;
        ND_OK_OR_FAIL(nd_reshape(&r, a, 2, (const int64_t[]){6, -1}));
        cv_expect_shape(r, 2, (const int64_t[]){6, 4});
        expect_strides(r, (const int64_t[]){4, 1});
        ck_assert_ptr_eq(nd_data(r), nd_data(a));
        ck_assert_int_eq(nd_dtype_of(r), t);
        double *v = cv_values(r);
        for (int i = 0; i < 24; i++) ck_assert(v[i] == i + 1);
        free(v);
        nd_release(r);
        nd_release(a);
    }
    /* writes through the view reach the base */
    nd_array *a = cv_iota(ND_INT32, 3, s234, nd_cpu()), *r = NULL;
    ND_OK_OR_FAIL(nd_reshape(&r, a, 1, (const int64_t[]){-1}));
    cv_expect_shape(r, 1, (const int64_t[]){24});
    int32_t buf[24];
    for (int i = 0; i < 24; i++) buf[i] = 100 - i;
    ND_OK_OR_FAIL(nd_copy_from_host(r, buf, sizeof buf));
    double *v = cv_values(a);
    for (int i = 0; i < 24; i++) ck_assert(v[i] == 100 - i);
    free(v);
    nd_release(r), r = NULL;
    /* 1-element -> 0-d -> (1,1,1) */
    nd_array *one = cv_iota(ND_FLOAT32, 1, (const int64_t[]){1}, nd_cpu()), *s = NULL, *s3 = NULL;
    ND_OK_OR_FAIL(nd_reshape(&s, one, 0, NULL));
    ck_assert_int_eq(nd_ndim(s), 0);
    ck_assert_int_eq(nd_size(s), 1);
    ND_OK_OR_FAIL(nd_reshape(&s3, s, 3, (const int64_t[]){1, -1, 1}));
    cv_expect_shape(s3, 3, (const int64_t[]){1, 1, 1});
    ck_assert_ptr_eq(nd_data(s3), nd_data(one));
    nd_release(one);
    nd_release(s);
    nd_release(s3);
    /* zero-size arrays reshape to any zero-size shape */
    nd_array *z = NULL, *zr = NULL;
    ND_OK_OR_FAIL(nd_zeros(&z, ND_FLOAT64, 2, (const int64_t[]){0, 6}, nd_cpu()));
    ND_OK_OR_FAIL(nd_reshape(&zr, z, 3, (const int64_t[]){3, 0, 5}));
    cv_expect_shape(zr, 3, (const int64_t[]){3, 0, 5});
    nd_release(zr), zr = NULL;
    ND_OK_OR_FAIL(nd_reshape(&zr, z, 2, (const int64_t[]){-1, 4}));
    cv_expect_shape(zr, 2, (const int64_t[]){0, 4});
    nd_release(zr);
    nd_release(z);
    nd_release(a);
}
END_TEST

START_TEST(test_reshape_strided)
{
    /* b = np.arange(1, 25).reshape(4, 6)[:, :3]: shape (4,3), strides (6,1) */
    nd_array *a = cv_iota(ND_INT64, 2, (const int64_t[]){4, 6}, nd_cpu()), *b = NULL, *r = NULL;
    nd_range rg[2] = {ND_ALL, {ND_NONE, 3, 1}};
    ND_OK_OR_FAIL(nd_slice(&b, a, 2, rg));
    /* (2, 2, 3) splits the first axis: a view (NumPy strides (12, 6, 1)) */
    ND_OK_OR_FAIL(nd_reshape(&r, b, 3, (const int64_t[]){2, 2, 3}));
    expect_strides(r, (const int64_t[]){12, 6, 1});
    ck_assert_ptr_eq(nd_data(r), nd_data(a));
    const double w1[12] = {1, 2, 3, 7, 8, 9, 13, 14, 15, 19, 20, 21};
    cv_expect_values(r, 12, w1);
    nd_release(r), r = NULL;
    /* (12,) needs a copy */
    ND_OK_OR_FAIL(nd_reshape(&r, b, 1, (const int64_t[]){12}));
    ck_assert_ptr_ne(nd_data(r), nd_data(a));
    ck_assert(nd_is_contiguous(r));
    cv_expect_values(r, 12, w1);
    nd_release(r), r = NULL;
    /* transposed (3, 4) -> (12,) is a copy in C order of the transpose */
    nd_array *c = cv_iota(ND_FLOAT32, 2, (const int64_t[]){4, 3}, nd_cpu()), *ct = NULL;
    ND_OK_OR_FAIL(nd_transpose(&ct, c, NULL));
    ND_OK_OR_FAIL(nd_reshape(&r, ct, 1, (const int64_t[]){-1}));
    ck_assert_ptr_ne(nd_data(r), nd_data(c));
    const double w2[12] = {1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12}; /* np.arange(1,13).reshape(4,3).T.ravel() */
    cv_expect_values(r, 12, w2);
    nd_release(r), r = NULL;
    /* ... same shape: a view with the same strides */
    ND_OK_OR_FAIL(nd_reshape(&r, ct, 2, (const int64_t[]){3, 4}));
    ck_assert_ptr_eq(nd_data(r), nd_data(c));
    expect_strides(r, (const int64_t[]){1, 3});
    nd_release(r), r = NULL;
    /* ... splitting the last axis of the transpose keeps a view:
     * (3, 4) strides (1, 3) -> (3, 2, 2) strides (1, 6, 3) */
    ND_OK_OR_FAIL(nd_reshape(&r, ct, 3, (const int64_t[]){3, 2, 2}));
    ck_assert_ptr_eq(nd_data(r), nd_data(c));
    expect_strides(r, (const int64_t[]){1, 6, 3});
    cv_expect_values(r, 12, w2);
    nd_release(r), r = NULL;
    /* ... with size-1 axes inserted: (1, 3, 1, 4, 1) */
    ND_OK_OR_FAIL(nd_reshape(&r, ct, 5, (const int64_t[]){1, 3, 1, 4, 1}));
    ck_assert_ptr_eq(nd_data(r), nd_data(c));
    cv_expect_values(r, 12, w2);
    nd_release(r), r = NULL;
    /* a negative-stride slice [::-1] of (12,) -> (3, 4): view, strides (-4, -1) */
    nd_array *d = cv_iota(ND_INT16, 1, (const int64_t[]){12}, nd_cpu()), *dr = NULL;
    nd_range rev = {ND_NONE, ND_NONE, -1};
    ND_OK_OR_FAIL(nd_slice(&dr, d, 1, &rev));
    ND_OK_OR_FAIL(nd_reshape(&r, dr, 2, (const int64_t[]){3, 4}));
    expect_strides(r, (const int64_t[]){-4, -1});
    const double w3[12] = {12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    cv_expect_values(r, 12, w3);
    nd_release(r), r = NULL;
    /* a broadcast (stride 0) input cannot be merged: copy */
    nd_array *bc = NULL;
    ND_OK_OR_FAIL(nd_broadcast_to(&bc, d, 2, (const int64_t[]){2, 12}));
    ND_OK_OR_FAIL(nd_reshape(&r, bc, 1, (const int64_t[]){24}));
    ck_assert_ptr_ne(nd_data(r), nd_data(d));
    double *v = cv_values(r);
    for (int i = 0; i < 24; i++) ck_assert(v[i] == i % 12 + 1);
    free(v);
    nd_release(r);
    nd_release(bc);
    nd_release(d);
    nd_release(dr);
    nd_release(c);
    nd_release(ct);
    nd_release(b);
    nd_release(a);
}
END_TEST

START_TEST(test_reshape_bad)
{
    nd_array *a = cv_iota(ND_FLOAT32, 2, (const int64_t[]){3, 4}, nd_cpu()), *r = NULL;
    ND_EXPECT_ERR(nd_reshape(&r, a, 1, (const int64_t[]){5}), ND_ERR_SHAPE,
                  "cannot reshape array of size 12 into shape (5,)");
    ND_EXPECT_ERR(nd_reshape(&r, a, 2, (const int64_t[]){5, -1}), ND_ERR_SHAPE,
                  "cannot reshape array of size 12 into shape (5,-1)");
    ND_EXPECT_ERR(nd_reshape(&r, a, 2, (const int64_t[]){-1, -1}), ND_ERR_INVALID, "can only specify one unknown dimension");
    ND_EXPECT_ERR(nd_reshape(&r, a, 2, (const int64_t[]){-2, -6}), ND_ERR_INVALID, "negative dimensions are not allowed");
    ND_EXPECT_ERR(nd_reshape(&r, a, 2, (const int64_t[]){(int64_t)1 << 40, (int64_t)1 << 40}), ND_ERR_SHAPE,
                  "cannot reshape array of size 12");
    ND_EXPECT_ERR(nd_reshape(&r, a, 3, (const int64_t[]){(int64_t)1 << 40, (int64_t)1 << 40, -1}), ND_ERR_SHAPE,
                  "cannot reshape");
    ND_EXPECT_ERR(nd_reshape(&r, a, 2, (const int64_t[]){0, -1}), ND_ERR_SHAPE, "cannot reshape");
    ND_EXPECT_ERR(nd_reshape(&r, a, 0, NULL), ND_ERR_SHAPE, "into shape ()");
    ND_EXPECT_ERR(nd_reshape(&r, a, -1, (const int64_t[]){12}), ND_ERR_INVALID, "ndim -1 is out of range");
    ND_EXPECT_ERR(nd_reshape(&r, a, 33, (const int64_t[]){12}), ND_ERR_INVALID, "ndim 33 is out of range");
    ND_EXPECT_ERR(nd_reshape(&r, a, 2, NULL), ND_ERR_INVALID, "'shape' is NULL");
    ND_EXPECT_ERR(nd_reshape(&r, NULL, 1, (const int64_t[]){12}), ND_ERR_INVALID, "nd_reshape: argument 'a' is NULL");
    ND_EXPECT_ERR(nd_reshape(NULL, a, 1, (const int64_t[]){12}), ND_ERR_INVALID, "argument 'out' is NULL");
    nd_array *z = NULL;
    ND_OK_OR_FAIL(nd_zeros(&z, ND_INT8, 1, (const int64_t[]){0}, nd_cpu()));
    /* NumPy: "cannot reshape array of size 0 into shape (0,newaxis)" */
    ND_EXPECT_ERR(nd_reshape(&r, z, 2, (const int64_t[]){0, -1}), ND_ERR_SHAPE, "array of size 0 into shape (0,-1)");
    ck_assert_ptr_null(r);
    nd_release(z);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* transpose                                                           */
/* ------------------------------------------------------------------ */
START_TEST(test_transpose)
{
    nd_array *a = cv_iota(ND_FLOAT64, 3, (const int64_t[]){2, 3, 4}, nd_cpu()), *t = NULL;
    ND_OK_OR_FAIL(nd_transpose(&t, a, NULL));
    cv_expect_shape(t, 3, (const int64_t[]){4, 3, 2});
    expect_strides(t, (const int64_t[]){1, 4, 12});
    ck_assert_ptr_eq(nd_data(t), nd_data(a));
    ck_assert(!nd_is_contiguous(t));
    /* np.arange(1, 25).reshape(2,3,4).T.ravel()[:8] */
    double *v = cv_values(t);
    const double w[8] = {1, 13, 5, 17, 9, 21, 2, 14};
    for (int i = 0; i < 8; i++) ck_assert(v[i] == w[i]);
    free(v);
    nd_release(t), t = NULL;
    /* axes with negatives: (-1, 0, 1) -> shape (4, 2, 3) */
    ND_OK_OR_FAIL(nd_transpose(&t, a, (const int[]){-1, 0, 1}));
    cv_expect_shape(t, 3, (const int64_t[]){4, 2, 3});
    expect_strides(t, (const int64_t[]){1, 12, 4});
    /* np.arange(1,25).reshape(2,3,4).transpose(2,0,1).ravel()[:6] */
    v = cv_values(t);
    const double w2[6] = {1, 5, 9, 13, 17, 21};
    for (int i = 0; i < 6; i++) ck_assert(v[i] == w2[i]);
    free(v);
    /* write through the transposed view */
    double buf[24];
    for (int i = 0; i < 24; i++) buf[i] = -(double)i;
    ND_OK_OR_FAIL(nd_copy_from_host(t, buf, sizeof buf));
    v = cv_values(a);
    /* a[0,0,1] = t[1,0,0] = -6 */
    ck_assert(v[1] == -6.0);
    ck_assert(v[0] == 0.0);
    free(v);
    nd_release(t), t = NULL;
    /* identity permutation: same strides */
    ND_OK_OR_FAIL(nd_transpose(&t, a, (const int[]){0, 1, 2}));
    expect_strides(t, (const int64_t[]){12, 4, 1});
    nd_release(t), t = NULL;
    /* 0-d and zero-size */
    nd_array *s = NULL, *z = NULL;
    ND_OK_OR_FAIL(nd_full(&s, ND_INT8, 0, NULL, nd_scalar_int(9), nd_cpu()));
    ND_OK_OR_FAIL(nd_transpose(&t, s, NULL));
    ck_assert_int_eq(nd_ndim(t), 0);
    cv_expect_values(t, 1, (const double[]){9});
    nd_release(t), t = NULL;
    ND_OK_OR_FAIL(nd_zeros(&z, ND_INT8, 2, (const int64_t[]){0, 5}, nd_cpu()));
    ND_OK_OR_FAIL(nd_transpose(&t, z, NULL));
    cv_expect_shape(t, 2, (const int64_t[]){5, 0});
    nd_release(t), t = NULL;
    /* bad axes */
    ND_EXPECT_ERR(nd_transpose(&t, a, (const int[]){0, 0, 1}), ND_ERR_SHAPE, "repeated axis in transpose");
    ND_EXPECT_ERR(nd_transpose(&t, a, (const int[]){0, -3, 2}), ND_ERR_SHAPE, "repeated axis");
    ND_EXPECT_ERR(nd_transpose(&t, a, (const int[]){0, 3, 1}), ND_ERR_SHAPE, "axis 3 is out of bounds for array of dimension 3");
    ND_EXPECT_ERR(nd_transpose(&t, a, (const int[]){-4, 0, 1}), ND_ERR_SHAPE, "axis -4 is out of bounds");
    ND_EXPECT_ERR(nd_transpose(&t, NULL, NULL), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_transpose(NULL, a, NULL), ND_ERR_INVALID, "argument 'out' is NULL");
    ck_assert_ptr_null(t);
    nd_release(s);
    nd_release(z);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* slice                                                               */
/* ------------------------------------------------------------------ */
static void expect_slice1(const nd_array *a, nd_range r, int64_t n, const double *want)
{
    nd_array *v = NULL;
    ND_OK_OR_FAIL(nd_slice(&v, a, 1, &r));
    ck_assert_int_eq(nd_ndim(v), 1);
    cv_expect_values(v, n, want);
    nd_release(v);
}

START_TEST(test_slice_1d)
{
    /* a = np.arange(10) */
    const double all[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    nd_array *a = cv_make(ND_INT32, 1, (const int64_t[]){10}, all, nd_cpu());
    expect_slice1(a, (nd_range){ND_NONE, ND_NONE, -1}, 10, (const double[]){9, 8, 7, 6, 5, 4, 3, 2, 1, 0}); /* a[::-1] */
    expect_slice1(a, (nd_range){8, 2, -2}, 3, (const double[]){8, 6, 4});                                   /* a[8:2:-2] */
    expect_slice1(a, (nd_range){-3, ND_NONE, 1}, 3, (const double[]){7, 8, 9});                             /* a[-3:] */
    expect_slice1(a, (nd_range){ND_NONE, ND_NONE, -3}, 4, (const double[]){9, 6, 3, 0});                    /* a[::-3] */
    expect_slice1(a, (nd_range){100, 200, 1}, 0, all);                                                      /* a[100:200] */
    expect_slice1(a, (nd_range){-100, 3, 1}, 3, (const double[]){0, 1, 2});                                 /* a[-100:3] */
    expect_slice1(a, (nd_range){5, 1, 1}, 0, all);                                                          /* a[5:1] */
    expect_slice1(a, (nd_range){3, -100, -1}, 4, (const double[]){3, 2, 1, 0});                             /* a[3:-100:-1] */
    expect_slice1(a, (nd_range){100, 6, -2}, 2, (const double[]){9, 7});                                    /* a[100:6:-2] */
    expect_slice1(a, (nd_range){-1, -11, -4}, 3, (const double[]){9, 5, 1});                                /* a[-1:-11:-4] */
    expect_slice1(a, (nd_range){1, ND_NONE, 3}, 3, (const double[]){1, 4, 7});                              /* a[1::3] */
    expect_slice1(a, (nd_range){-20, -15, -1}, 0, all);                                                     /* a[-20:-15:-1] */
    /* extreme values: no overflow, Python's clamping */
    expect_slice1(a, (nd_range){2, INT64_MAX, INT64_MAX}, 1, (const double[]){2});
    expect_slice1(a, (nd_range){INT64_MAX, INT64_MIN + 1, -INT64_MAX}, 1, (const double[]){9});
    expect_slice1(a, (nd_range){4, 5, ND_NONE}, 1, (const double[]){4}); /* a None step is 1 */
    /* write through a stepped slice */
    nd_array *v = NULL;
    ND_OK_OR_FAIL(nd_slice(&v, a, 1, &(nd_range){ND_NONE, ND_NONE, -2}));
    ck_assert_int_eq(nd_strides(v)[0], -2);
    int32_t buf[5] = {-1, -2, -3, -4, -5};
    ND_OK_OR_FAIL(nd_copy_from_host(v, buf, sizeof buf));
    cv_expect_values(a, 10, (const double[]){0, -5, 2, -4, 4, -3, 6, -2, 8, -1});
    nd_release(v);
    nd_release(a);
}
END_TEST

START_TEST(test_slice_nd)
{
    /* a = np.arange(1, 21).reshape(4, 5) */
    nd_array *a = cv_iota(ND_FLOAT32, 2, (const int64_t[]){4, 5}, nd_cpu()), *v = NULL, *w = NULL;
    /* a[1:3, ::-2] */
    ND_OK_OR_FAIL(nd_slice(&v, a, 2, (const nd_range[]){{1, 3, 1}, {ND_NONE, ND_NONE, -2}}));
    cv_expect_shape(v, 2, (const int64_t[]){2, 3});
    expect_strides(v, (const int64_t[]){5, -2});
    cv_expect_values(v, 6, (const double[]){10, 8, 6, 15, 13, 11});
    /* a slice of the slice: v[::-1, 1:] == a[1:3, ::-2][::-1, 1:] */
    ND_OK_OR_FAIL(nd_slice(&w, v, 2, (const nd_range[]){{ND_NONE, ND_NONE, -1}, {1, ND_NONE, 1}}));
    cv_expect_values(w, 4, (const double[]){13, 11, 8, 6});
    nd_release(w), w = NULL;
    nd_release(v), v = NULL;
    /* fewer ranges than axes: a[::3] keeps the last axis whole */
    ND_OK_OR_FAIL(nd_slice(&v, a, 1, (const nd_range[]){{ND_NONE, ND_NONE, 3}}));
    cv_expect_shape(v, 2, (const int64_t[]){2, 5});
    cv_expect_values(v, 10, (const double[]){1, 2, 3, 4, 5, 16, 17, 18, 19, 20});
    nd_release(v), v = NULL;
    /* nranges 0: the whole array */
    ND_OK_OR_FAIL(nd_slice(&v, a, 0, NULL));
    cv_expect_shape(v, 2, (const int64_t[]){4, 5});
    ck_assert_ptr_eq(nd_data(v), nd_data(a));
    nd_release(v), v = NULL;
    /* an empty selection on one axis: shape (0, 5), still usable */
    ND_OK_OR_FAIL(nd_slice(&v, a, 2, (const nd_range[]){{3, 3, 1}, ND_ALL}));
    cv_expect_shape(v, 2, (const int64_t[]){0, 5});
    ck_assert_int_eq(nd_size(v), 0);
    ND_OK_OR_FAIL(nd_slice(&w, v, 2, (const nd_range[]){{ND_NONE, ND_NONE, -1}, {1, 2, 1}}));
    cv_expect_shape(w, 2, (const int64_t[]){0, 1});
    nd_release(w), w = NULL;
    nd_release(v), v = NULL;
    /* 0-d: nranges 0 is fine, 1 is too many */
    nd_array *s = NULL;
    ND_OK_OR_FAIL(nd_full(&s, ND_INT64, 0, NULL, nd_scalar_int(-3), nd_cpu()));
    ND_OK_OR_FAIL(nd_slice(&v, s, 0, NULL));
    cv_expect_values(v, 1, (const double[]){-3});
    nd_release(v), v = NULL;
    ND_EXPECT_ERR(nd_slice(&v, s, 1, &ND_ALL), ND_ERR_SHAPE, "array is 0-dimensional, but 1 were indexed");
    /* bad input */
    ND_EXPECT_ERR(nd_slice(&v, a, 3, (const nd_range[]){ND_ALL, ND_ALL, ND_ALL}), ND_ERR_SHAPE,
                  "too many indices for array: array is 2-dimensional, but 3 were indexed");
    ND_EXPECT_ERR(nd_slice(&v, a, 2, (const nd_range[]){ND_ALL, {0, 5, 0}}), ND_ERR_INVALID,
                  "slice step cannot be zero (ranges[1])");
    ND_EXPECT_ERR(nd_slice(&v, a, -1, NULL), ND_ERR_INVALID, "nranges -1 is negative");
    ND_EXPECT_ERR(nd_slice(&v, a, 1, NULL), ND_ERR_INVALID, "'ranges' is NULL");
    ND_EXPECT_ERR(nd_slice(&v, NULL, 0, NULL), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_slice(NULL, a, 0, NULL), ND_ERR_INVALID, "argument 'out' is NULL");
    ck_assert_ptr_null(v);
    nd_release(s);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* basic indexing (nd_basic_index): the cases of nd_slice's tests plus    */
/* integers, new axes and Ellipsis, on the CPU and on cuda:0              */
/* ------------------------------------------------------------------ */
#define IX_INT(i) ((nd_index_item){ND_INDEX_INT, (i), 0, 0})
#define IX_SL(a, b, c) ((nd_index_item){ND_INDEX_SLICE, (a), (b), (c)})
#define IX_ALL IX_SL(ND_NONE, ND_NONE, ND_NONE)
#define IX_NEW ((nd_index_item){ND_INDEX_NEWAXIS, 0, 0, 0})
#define IX_ELL ((nd_index_item){ND_INDEX_ELLIPSIS, 0, 0, 0})

/* a[items] has the shape and the values (NumPy's, C order) given */
static void expect_index(const nd_array *a, int n, const nd_index_item *items, int ndim, const int64_t *shape,
                         int64_t size, const double *want)
{
    nd_array *v = NULL;
    ND_OK_OR_FAIL(nd_basic_index(&v, a, n, items));
    cv_expect_shape(v, ndim, shape);
    ck_assert(nd_device_of(v).type == nd_device_of(a).type);
    cv_expect_values(v, size, want);
    nd_release(v);
}

START_TEST(test_basic_index_1d)
{
    const double all[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    nd_device devs[2];
    for (int d = 0, nd = cv_devices(devs); d < nd; d++) {
        /* a = np.arange(10) */
        nd_array *a = cv_make(ND_INT32, 1, (const int64_t[]){10}, all, devs[d]);
        /* integers: 0-d views, negatives from the end */
        expect_index(a, 1, &IX_INT(3), 0, NULL, 1, (const double[]){3});
        expect_index(a, 1, &IX_INT(-1), 0, NULL, 1, (const double[]){9});
        expect_index(a, 1, &IX_INT(-10), 0, NULL, 1, (const double[]){0});
        /* nd_slice's 1-D cases */
        static const struct {
            nd_range r;
            int64_t n;
            double want[10];
        } sl[] = {{{ND_NONE, ND_NONE, -1}, 10, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}}, /* a[::-1] */
                  {{8, 2, -2}, 3, {8, 6, 4}},
                  {{-3, ND_NONE, 1}, 3, {7, 8, 9}},
                  {{ND_NONE, ND_NONE, -3}, 4, {9, 6, 3, 0}},
                  {{100, 200, 1}, 0, {0}},
                  {{-100, 3, 1}, 3, {0, 1, 2}},
                  {{5, 1, 1}, 0, {0}},
                  {{3, -100, -1}, 4, {3, 2, 1, 0}},
                  {{100, 6, -2}, 2, {9, 7}},
                  {{-1, -11, -4}, 3, {9, 5, 1}},
                  {{1, ND_NONE, 3}, 3, {1, 4, 7}},
                  {{-20, -15, -1}, 0, {0}},
                  {{2, INT64_MAX, INT64_MAX}, 1, {2}},
                  {{INT64_MAX, INT64_MIN + 1, -INT64_MAX}, 1, {9}},
                  {{4, 5, ND_NONE}, 1, {4}}};
        for (size_t k = 0; k < sizeof sl / sizeof sl[0]; k++) {
            const nd_index_item it = IX_SL(sl[k].r.start, sl[k].r.stop, sl[k].r.step);
            expect_index(a, 1, &it, 1, &sl[k].n, sl[k].n, sl[k].want);
        }
        /* new axes around a slice: a[None, 1::3, None] */
        expect_index(a, 3, (const nd_index_item[]){IX_NEW, IX_SL(1, ND_NONE, 3), IX_NEW}, 3, (const int64_t[]){1, 3, 1},
                     3, (const double[]){1, 4, 7});
        /* out of range: the exact status, the words of NumPy's IndexError */
        nd_array *v = NULL;
        ND_EXPECT_ERR(nd_basic_index(&v, a, 1, &IX_INT(10)), ND_ERR_INVALID,
                      "nd_basic_index: index 10 is out of bounds for axis 0 with size 10");
        ND_EXPECT_ERR(nd_basic_index(&v, a, 1, &IX_INT(-11)), ND_ERR_INVALID,
                      "index -11 is out of bounds for axis 0 with size 10");
        ck_assert_ptr_null(v);
        /* writes through a 0-d view and a stepped one reach a */
        ND_OK_OR_FAIL(nd_basic_index(&v, a, 1, &IX_INT(-4)));
        ck_assert_int_eq(nd_ndim(v), 0);
        const int32_t x = -77;
        ND_OK_OR_FAIL(nd_copy_from_host(v, &x, sizeof x));
        nd_release(v), v = NULL;
        ND_OK_OR_FAIL(nd_basic_index(&v, a, 1, &IX_SL(ND_NONE, ND_NONE, -2)));
        ck_assert_int_eq(nd_strides(v)[0], -2);
        const int32_t buf[5] = {-1, -2, -3, -4, -5};
        ND_OK_OR_FAIL(nd_copy_from_host(v, buf, sizeof buf));
        nd_release(v), v = NULL;
        cv_expect_values(a, 10, (const double[]){0, -5, 2, -4, 4, -3, -77, -2, 8, -1});
        nd_release(a);
    }
}
END_TEST

START_TEST(test_basic_index_nd)
{
    nd_device devs[2];
    for (int d = 0, nd = cv_devices(devs); d < nd; d++) {
        /* a = np.arange(1, 21).reshape(4, 5) */
        nd_array *a = cv_iota(ND_FLOAT32, 2, (const int64_t[]){4, 5}, devs[d]), *v = NULL, *w = NULL;
        /* a[1:3, ::-2], as nd_slice gives it */
        ND_OK_OR_FAIL(nd_basic_index(&v, a, 2, (const nd_index_item[]){IX_SL(1, 3, 1), IX_SL(ND_NONE, ND_NONE, -2)}));
        cv_expect_shape(v, 2, (const int64_t[]){2, 3});
        expect_strides(v, (const int64_t[]){5, -2});
        cv_expect_values(v, 6, (const double[]){10, 8, 6, 15, 13, 11});
        /* of the view: v[::-1, 1] == a[1:3, ::-2][::-1, 1] */
        expect_index(v, 2, (const nd_index_item[]){IX_SL(ND_NONE, ND_NONE, -1), IX_INT(1)}, 1, (const int64_t[]){2}, 2,
                     (const double[]){13, 8});
        nd_release(v), v = NULL;
        /* ints drop axes: a[2, 3], a[-1], a[1, ::-2], a[:, -2] */
        expect_index(a, 2, (const nd_index_item[]){IX_INT(2), IX_INT(3)}, 0, NULL, 1, (const double[]){14});
        expect_index(a, 1, &IX_INT(-1), 1, (const int64_t[]){5}, 5, (const double[]){16, 17, 18, 19, 20});
        expect_index(a, 2, (const nd_index_item[]){IX_INT(1), IX_SL(ND_NONE, ND_NONE, -2)}, 1, (const int64_t[]){3}, 3,
                     (const double[]){10, 8, 6});
        expect_index(a, 2, (const nd_index_item[]){IX_ALL, IX_INT(-2)}, 1, (const int64_t[]){4}, 4,
                     (const double[]){4, 9, 14, 19});
        /* Ellipsis: a[..., 2], a[1, ...], a[...], a[..., None], a[None, ..., 0, None] */
        expect_index(a, 2, (const nd_index_item[]){IX_ELL, IX_INT(2)}, 1, (const int64_t[]){4}, 4,
                     (const double[]){3, 8, 13, 18});
        expect_index(a, 2, (const nd_index_item[]){IX_INT(1), IX_ELL}, 1, (const int64_t[]){5}, 5,
                     (const double[]){6, 7, 8, 9, 10});
        ND_OK_OR_FAIL(nd_basic_index(&v, a, 1, &IX_ELL));
        cv_expect_shape(v, 2, (const int64_t[]){4, 5});
        ck_assert_ptr_eq(nd_data(v), nd_data(a));
        nd_release(v), v = NULL;
        ND_OK_OR_FAIL(nd_basic_index(&v, a, 2, (const nd_index_item[]){IX_ELL, IX_NEW}));
        cv_expect_shape(v, 3, (const int64_t[]){4, 5, 1});
        ck_assert(nd_is_contiguous(v));
        nd_release(v), v = NULL;
        expect_index(a, 4, (const nd_index_item[]){IX_NEW, IX_ELL, IX_INT(0), IX_NEW}, 3, (const int64_t[]){1, 4, 1}, 4,
                     (const double[]){1, 6, 11, 16});
        /* new axes keep contiguity (as nd_expand_dims): a[None, 2, None, :, None] */
        ND_OK_OR_FAIL(nd_basic_index(&v, a, 5, (const nd_index_item[]){IX_NEW, IX_INT(2), IX_NEW, IX_ALL, IX_NEW}));
        cv_expect_shape(v, 4, (const int64_t[]){1, 1, 5, 1});
        expect_strides(v, (const int64_t[]){5, 5, 1, 1});
        cv_expect_values(v, 5, (const double[]){11, 12, 13, 14, 15});
        nd_release(v), v = NULL;
        /* nitems 0: the whole array; fewer items than axes: a[::3] */
        expect_index(a, 0, NULL, 2, (const int64_t[]){4, 5}, 20,
                     (const double[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20});
        expect_index(a, 1, &IX_SL(ND_NONE, ND_NONE, 3), 2, (const int64_t[]){2, 5}, 10,
                     (const double[]){1, 2, 3, 4, 5, 16, 17, 18, 19, 20});
        /* zero-size: a[3:3], a[3:3, 1], and of the empty view */
        ND_OK_OR_FAIL(nd_basic_index(&v, a, 1, &IX_SL(3, 3, 1)));
        cv_expect_shape(v, 2, (const int64_t[]){0, 5});
        ND_OK_OR_FAIL(nd_basic_index(&w, v, 2, (const nd_index_item[]){IX_SL(ND_NONE, ND_NONE, -1), IX_INT(-1)}));
        cv_expect_shape(w, 1, (const int64_t[]){0});
        nd_release(w), w = NULL;
        ND_EXPECT_ERR(nd_basic_index(&w, v, 1, &IX_INT(0)), ND_ERR_INVALID, "index 0 is out of bounds for axis 0 with size 0");
        nd_release(v), v = NULL;
        expect_index(a, 2, (const nd_index_item[]){IX_SL(3, 3, 1), IX_INT(1)}, 1, (const int64_t[]){0}, 0, NULL);
        /* writes through a[1:, 3] reach a (a strided 1-D view) */
        ND_OK_OR_FAIL(nd_basic_index(&v, a, 2, (const nd_index_item[]){IX_SL(1, ND_NONE, ND_NONE), IX_INT(3)}));
        const float x3[3] = {-1, -2, -3};
        ND_OK_OR_FAIL(nd_copy_from_host(v, x3, sizeof x3));
        nd_release(v), v = NULL;
        expect_index(a, 2, (const nd_index_item[]){IX_ALL, IX_INT(3)}, 1, (const int64_t[]){4}, 4,
                     (const double[]){4, -1, -2, -3});
        /* 0-d: nitems 0, None and ... are fine, an int is too many */
        nd_array *s = NULL;
        ND_OK_OR_FAIL(nd_full(&s, ND_INT64, 0, NULL, nd_scalar_int(-3), devs[d]));
        expect_index(s, 0, NULL, 0, NULL, 1, (const double[]){-3});
        expect_index(s, 1, &IX_ELL, 0, NULL, 1, (const double[]){-3});
        expect_index(s, 2, (const nd_index_item[]){IX_NEW, IX_ELL}, 1, (const int64_t[]){1}, 1, (const double[]){-3});
        ND_EXPECT_ERR(nd_basic_index(&v, s, 1, &IX_INT(0)), ND_ERR_SHAPE,
                      "too many indices for array: array is 0-dimensional, but 1 were indexed");
        /* bad input: exact statuses, *out untouched */
        ND_EXPECT_ERR(nd_basic_index(&v, a, 3, (const nd_index_item[]){IX_INT(0), IX_ALL, IX_ALL}), ND_ERR_SHAPE,
                      "too many indices for array: array is 2-dimensional, but 3 were indexed");
        ND_EXPECT_ERR(nd_basic_index(&v, a, 2, (const nd_index_item[]){IX_ALL, IX_SL(0, 5, 0)}), ND_ERR_INVALID,
                      "slice step cannot be zero (items[1])");
        ND_EXPECT_ERR(nd_basic_index(&v, a, 3, (const nd_index_item[]){IX_ELL, IX_INT(0), IX_ELL}), ND_ERR_INVALID,
                      "an index can only have a single ellipsis");
        ND_EXPECT_ERR(nd_basic_index(&v, a, 1, (const nd_index_item[]){{(nd_index_kind)7, 0, 0, 0}}), ND_ERR_INVALID,
                      "items[0] has an unknown kind 7");
        nd_index_item many[ND_MAX_DIMS];
        for (int i = 0; i < ND_MAX_DIMS; i++) many[i] = IX_NEW;
        ND_EXPECT_ERR(nd_basic_index(&v, a, ND_MAX_DIMS, many), ND_ERR_SHAPE, "the result would have 34 dimensions");
        many[0] = IX_INT(0), many[1] = IX_INT(0); /* 30 new axes: 30 dimensions */
        ND_OK_OR_FAIL(nd_basic_index(&v, a, ND_MAX_DIMS, many));
        ck_assert_int_eq(nd_ndim(v), ND_MAX_DIMS - 2);
        cv_expect_values(v, 1, (const double[]){1});
        nd_release(v), v = NULL;
        ND_EXPECT_ERR(nd_basic_index(&v, a, -1, NULL), ND_ERR_INVALID, "nitems -1 is negative");
        ND_EXPECT_ERR(nd_basic_index(&v, a, 1, NULL), ND_ERR_INVALID, "'items' is NULL");
        ND_EXPECT_ERR(nd_basic_index(&v, NULL, 0, NULL), ND_ERR_INVALID, "argument 'a' is NULL");
        ND_EXPECT_ERR(nd_basic_index(NULL, a, 0, NULL), ND_ERR_INVALID, "argument 'out' is NULL");
        ck_assert_ptr_null(v);
        /* the out rule: a[1:3, 0] copied (and cast) into a given out */
        nd_array *o = NULL;
        ND_OK_OR_FAIL(nd_empty(&o, ND_FLOAT64, 1, (const int64_t[]){2}, devs[d]));
        nd_array *keep = o;
        cv_poison(o, -9);
        ND_OK_OR_FAIL(nd_basic_index(&o, a, 2, (const nd_index_item[]){IX_SL(1, 3, 1), IX_INT(0)}));
        ck_assert_ptr_eq(o, keep);
        cv_expect_values(o, 2, (const double[]){6, 11});
        ND_EXPECT_ERR(nd_basic_index(&o, a, 1, &IX_INT(0)), ND_ERR_SHAPE, "'out' has shape (2,), but the result has shape (5,)");
        nd_release(o);
        nd_release(s);
        nd_release(a);
    }
}
END_TEST

/* The headers of views come from a per-thread cache of released ones:
 * taking one still passes the allocation fault gate, and neither the cache
 * nor a thread's exit changes the count of live allocations. */
static void *views_in_thread(void *arg)
{
    const nd_array *a = arg;
    for (int i = 0; i < 20; i++) {
        nd_array *v = NULL;
        ND_OK_OR_FAIL(nd_basic_index(&v, a, 1, &IX_INT(i % 4)));
        nd_release(v);
    }
    return NULL;
}

START_TEST(test_view_headers)
{
    nd_array *a = cv_iota(ND_INT16, 2, (const int64_t[]){4, 3}, nd_cpu()), *v = NULL;
    nd_array *held[20] = {NULL};
    for (int i = 0; i < 3; i++) { /* released headers to keep */
        ND_OK_OR_FAIL(nd_basic_index(&v, a, 1, &IX_INT(i)));
        nd_release(v), v = NULL;
    }
    const long live0 = nd__alloc_live();
    nd__alloc_fail_after(1);
    ck_assert_int_eq(nd_basic_index(&v, a, 1, &IX_INT(1)), ND_ERR_NOMEM);
    ck_assert(nd__alloc_fault_reset());
    ck_assert_ptr_null(v);
    ck_assert_int_eq(nd__alloc_live(), live0);
    /* more views at once than the cache keeps, then all released */
    for (int i = 0; i < 20; i++) ND_OK_OR_FAIL(nd_basic_index(&held[i], a, 2, (const nd_index_item[]){IX_INT(i % 4), IX_NEW}));
    cv_expect_values(held[19], 3, (const double[]){10, 11, 12});
    for (int i = 0; i < 20; i++) nd_release(held[i]);
    ck_assert_int_eq(nd__alloc_live(), live0);
    /* a thread that made and released views, then exited */
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, views_in_thread, a), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_int_eq(nd__alloc_live(), live0);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* squeeze / expand_dims                                               */
/* ------------------------------------------------------------------ */
START_TEST(test_squeeze)
{
    nd_array *a = cv_iota(ND_UINT16, 4, (const int64_t[]){1, 3, 1, 2}, nd_cpu()), *v = NULL;
    ND_OK_OR_FAIL(nd_squeeze(&v, a, 0, NULL));
    cv_expect_shape(v, 2, (const int64_t[]){3, 2});
    ck_assert_ptr_eq(nd_data(v), nd_data(a));
    cv_expect_values(v, 6, (const double[]){1, 2, 3, 4, 5, 6});
    nd_release(v), v = NULL;
    ND_OK_OR_FAIL(nd_squeeze(&v, a, 1, (const int[]){-2}));
    cv_expect_shape(v, 3, (const int64_t[]){1, 3, 2});
    nd_release(v), v = NULL;
    ND_OK_OR_FAIL(nd_squeeze(&v, a, 2, (const int[]){2, 0}));
    cv_expect_shape(v, 2, (const int64_t[]){3, 2});
    nd_release(v), v = NULL;
    ND_OK_OR_FAIL(nd_squeeze(&v, a, 0, (const int[]){0})); /* naxes 0: nothing removed */
    cv_expect_shape(v, 4, (const int64_t[]){1, 3, 1, 2});
    nd_release(v), v = NULL;
    /* (1, 1) -> 0-d; 0-d -> 0-d */
    nd_array *o = cv_iota(ND_INT8, 2, (const int64_t[]){1, 1}, nd_cpu()), *s = NULL, *s2 = NULL;
    ND_OK_OR_FAIL(nd_squeeze(&s, o, 0, NULL));
    ck_assert_int_eq(nd_ndim(s), 0);
    cv_expect_values(s, 1, (const double[]){1});
    ND_OK_OR_FAIL(nd_squeeze(&s2, s, 0, NULL));
    ck_assert_int_eq(nd_ndim(s2), 0);
    nd_release(s2), s2 = NULL;
    /* zero-size axes are not squeezed */
    nd_array *z = NULL;
    ND_OK_OR_FAIL(nd_zeros(&z, ND_FLOAT32, 3, (const int64_t[]){1, 0, 1}, nd_cpu()));
    ND_OK_OR_FAIL(nd_squeeze(&s2, z, 0, NULL));
    cv_expect_shape(s2, 1, (const int64_t[]){0});
    nd_release(s2), s2 = NULL;
    /* bad axes */
    ND_EXPECT_ERR(nd_squeeze(&v, a, 1, (const int[]){1}), ND_ERR_SHAPE,
                  "cannot select an axis to squeeze out which has size not equal to one");
    ND_EXPECT_ERR(nd_squeeze(&v, z, 1, (const int[]){1}), ND_ERR_SHAPE, "size not equal to one");
    ND_EXPECT_ERR(nd_squeeze(&v, a, 2, (const int[]){0, -4}), ND_ERR_SHAPE, "duplicate value in 'axes'");
    ND_EXPECT_ERR(nd_squeeze(&v, a, 1, (const int[]){4}), ND_ERR_SHAPE, "axis 4 is out of bounds for array of dimension 4");
    ND_EXPECT_ERR(nd_squeeze(&v, a, 1, (const int[]){-5}), ND_ERR_SHAPE, "axis -5 is out of bounds");
    ND_EXPECT_ERR(nd_squeeze(&v, a, -1, (const int[]){0}), ND_ERR_INVALID, "naxes -1 is out of range");
    ND_EXPECT_ERR(nd_squeeze(&v, a, 5, (const int[]){0, 1, 2, 3, 0}), ND_ERR_INVALID, "naxes 5 is out of range");
    ND_EXPECT_ERR(nd_squeeze(&v, s, 1, (const int[]){0}), ND_ERR_INVALID, "naxes 1 is out of range [0, 0]");
    ND_EXPECT_ERR(nd_squeeze(&v, NULL, 0, NULL), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_squeeze(NULL, a, 0, NULL), ND_ERR_INVALID, "argument 'out' is NULL");
    ck_assert_ptr_null(v);
    nd_release(z);
    nd_release(s);
    nd_release(o);
    nd_release(a);
}
END_TEST

START_TEST(test_expand_dims)
{
    nd_array *a = cv_iota(ND_FLOAT16, 2, (const int64_t[]){3, 4}, nd_cpu()), *v = NULL;
    const struct {
        int axis;
        int64_t shape[3];
    } cases[] = {{0, {1, 3, 4}}, {1, {3, 1, 4}}, {2, {3, 4, 1}}, {-1, {3, 4, 1}}, {-3, {1, 3, 4}}, {-2, {3, 1, 4}}};
    for (int i = 0; i < NELEMS(cases); i++) {
        ND_OK_OR_FAIL(nd_expand_dims(&v, a, cases[i].axis));
        cv_expect_shape(v, 3, cases[i].shape);
        ck_assert_ptr_eq(nd_data(v), nd_data(a));
        ck_assert(nd_is_contiguous(v));
        double *x = cv_values(v);
        for (int j = 0; j < 12; j++) ck_assert(x[j] == j + 1);
        free(x);
        nd_release(v), v = NULL;
    }
    /* 0-d -> (1,) */
    nd_array *s = NULL;
    ND_OK_OR_FAIL(nd_full(&s, ND_BOOL, 0, NULL, nd_scalar_bool(true), nd_cpu()));
    ND_OK_OR_FAIL(nd_expand_dims(&v, s, -1));
    cv_expect_shape(v, 1, (const int64_t[]){1});
    cv_expect_values(v, 1, (const double[]){1});
    nd_release(v), v = NULL;
    /* bad axes and too many dimensions */
    ND_EXPECT_ERR(nd_expand_dims(&v, a, 3), ND_ERR_SHAPE, "axis 3 is out of bounds for array of dimension 3");
    ND_EXPECT_ERR(nd_expand_dims(&v, a, -4), ND_ERR_SHAPE, "axis -4 is out of bounds");
    ND_EXPECT_ERR(nd_expand_dims(&v, s, 1), ND_ERR_SHAPE, "axis 1 is out of bounds for array of dimension 1");
    int64_t ones[ND_MAX_DIMS];
    for (int i = 0; i < ND_MAX_DIMS; i++) ones[i] = 1;
    nd_array *big = NULL;
    ND_OK_OR_FAIL(nd_zeros(&big, ND_INT8, ND_MAX_DIMS, ones, nd_cpu()));
    ND_EXPECT_ERR(nd_expand_dims(&v, big, 0), ND_ERR_SHAPE, "33 dimensions (maximum 32)");
    ND_EXPECT_ERR(nd_expand_dims(&v, NULL, 0), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_expand_dims(NULL, a, 0), ND_ERR_INVALID, "argument 'out' is NULL");
    ck_assert_ptr_null(v);
    nd_release(big);
    nd_release(s);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* broadcast_to                                                        */
/* ------------------------------------------------------------------ */
START_TEST(test_broadcast_to)
{
    nd_array *a = cv_iota(ND_INT32, 1, (const int64_t[]){3}, nd_cpu()), *v = NULL;
    ND_OK_OR_FAIL(nd_broadcast_to(&v, a, 2, (const int64_t[]){4, 3}));
    cv_expect_shape(v, 2, (const int64_t[]){4, 3});
    ck_assert_int_eq(nd_strides(v)[0], 0);
    ck_assert_int_eq(nd_strides(v)[1], 1);
    ck_assert_ptr_eq(nd_data(v), nd_data(a));
    cv_expect_values(v, 12, (const double[]){1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3});
    ck_assert(nd_is_writable(a));
    ck_assert(!nd_is_writable(v)); /* stride 0 on an axis of extent 4 */
    ck_assert(!nd_is_writable(NULL));
    nd_release(v), v = NULL;
    /* (3, 1) -> (2, 3, 4) */
    nd_array *c = cv_iota(ND_FLOAT64, 2, (const int64_t[]){3, 1}, nd_cpu());
    ND_OK_OR_FAIL(nd_broadcast_to(&v, c, 3, (const int64_t[]){2, 3, 4}));
    expect_strides(v, (const int64_t[]){0, 1, 0});
    double *x = cv_values(v);
    for (int i = 0; i < 24; i++) ck_assert(x[i] == (i / 4) % 3 + 1);
    free(x);
    nd_release(v), v = NULL;
    /* 0-d -> (2, 2); (1, 3) -> (0, 3); same shape -> same strides */
    nd_array *s = NULL;
    ND_OK_OR_FAIL(nd_full(&s, ND_UINT8, 0, NULL, nd_scalar_int(7), nd_cpu()));
    ND_OK_OR_FAIL(nd_broadcast_to(&v, s, 2, (const int64_t[]){2, 2}));
    expect_strides(v, (const int64_t[]){0, 0});
    cv_expect_values(v, 4, (const double[]){7, 7, 7, 7});
    nd_release(v), v = NULL;
    nd_array *r = cv_iota(ND_INT8, 2, (const int64_t[]){1, 3}, nd_cpu());
    ND_OK_OR_FAIL(nd_broadcast_to(&v, r, 2, (const int64_t[]){0, 3}));
    cv_expect_shape(v, 2, (const int64_t[]){0, 3});
    nd_release(v), v = NULL;
    ND_OK_OR_FAIL(nd_broadcast_to(&v, r, 2, (const int64_t[]){1, 3}));
    cv_expect_values(v, 3, (const double[]){1, 2, 3});
    ck_assert(nd_is_writable(v)); /* (1, 3) -> (1, 3): no stride-0 axis of extent > 1 */
    nd_release(v), v = NULL;
    /* errors (NumPy's rules) */
    ND_EXPECT_ERR(nd_broadcast_to(&v, a, 1, (const int64_t[]){4}), ND_ERR_SHAPE,
                  "array of shape (3,) cannot be broadcast to the requested shape (4,)");
    ND_EXPECT_ERR(nd_broadcast_to(&v, c, 1, (const int64_t[]){3}), ND_ERR_SHAPE,
                  "input operand has more dimensions than allowed");
    nd_array *z = NULL;
    ND_OK_OR_FAIL(nd_zeros(&z, ND_FLOAT32, 1, (const int64_t[]){0}, nd_cpu()));
    ND_EXPECT_ERR(nd_broadcast_to(&v, z, 1, (const int64_t[]){1}), ND_ERR_SHAPE, "(0,) cannot be broadcast");
    ND_EXPECT_ERR(nd_broadcast_to(&v, a, 2, (const int64_t[]){-1, 3}), ND_ERR_INVALID, "negative dimensions");
    ND_EXPECT_ERR(nd_broadcast_to(&v, a, 3, (const int64_t[]){(int64_t)1 << 40, (int64_t)1 << 40, 3}), ND_ERR_INVALID,
                  "overflow");
    ND_EXPECT_ERR(nd_broadcast_to(&v, a, 2, NULL), ND_ERR_INVALID, "'shape' is NULL");
    ND_EXPECT_ERR(nd_broadcast_to(&v, a, 33, (const int64_t[33]){0}), ND_ERR_INVALID, "ndim 33 is out of range");
    ND_EXPECT_ERR(nd_broadcast_to(&v, NULL, 1, (const int64_t[]){3}), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_broadcast_to(NULL, a, 1, (const int64_t[]){3}), ND_ERR_INVALID, "argument 'out' is NULL");
    ck_assert_ptr_null(v);
    nd_release(z);
    nd_release(r);
    nd_release(s);
    nd_release(c);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The out rule for views                                              */
/* ------------------------------------------------------------------ */
START_TEST(test_views_out_rule)
{
    nd_array *a = cv_iota(ND_INT32, 2, (const int64_t[]){2, 3}, nd_cpu());
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_empty(&o, ND_FLOAT64, 2, (const int64_t[]){3, 2}, nd_cpu()));
    nd_array *keep = o;
    cv_poison(o, -9);
    /* transpose copied (and cast int32 -> float64) into o */
    ND_OK_OR_FAIL(nd_transpose(&o, a, NULL));
    ck_assert_ptr_eq(o, keep);
    ck_assert_ptr_ne(nd_data(o), nd_data(a));
    cv_expect_values(o, 6, (const double[]){1, 4, 2, 5, 3, 6});
    /* reshape (needs no copy) into o */
    cv_poison(o, -9);
    ND_OK_OR_FAIL(nd_reshape(&o, a, 2, (const int64_t[]){3, -1}));
    cv_expect_values(o, 6, (const double[]){1, 2, 3, 4, 5, 6});
    /* slice / broadcast into o */
    cv_poison(o, -9);
    nd_array *row = cv_iota(ND_INT8, 1, (const int64_t[]){2}, nd_cpu());
    ND_OK_OR_FAIL(nd_broadcast_to(&o, row, 2, (const int64_t[]){3, 2}));
    cv_expect_values(o, 6, (const double[]){1, 2, 1, 2, 1, 2});
    nd_array *big = cv_iota(ND_FLOAT32, 2, (const int64_t[]){6, 4}, nd_cpu());
    ND_OK_OR_FAIL(nd_slice(&o, big, 2, (const nd_range[]){{ND_NONE, ND_NONE, -2}, {1, 3, 1}}));
    /* np.arange(1,25).reshape(6,4)[::-2, 1:3] */
    cv_expect_values(o, 6, (const double[]){22, 23, 14, 15, 6, 7});
    /* squeeze / expand_dims into an out of their shape */
    nd_array *o1 = NULL, *col = cv_iota(ND_INT16, 2, (const int64_t[]){3, 1}, nd_cpu());
    ND_OK_OR_FAIL(nd_zeros(&o1, ND_INT64, 1, (const int64_t[]){3}, nd_cpu()));
    ND_OK_OR_FAIL(nd_squeeze(&o1, col, 0, NULL));
    cv_expect_values(o1, 3, (const double[]){1, 2, 3});
    ND_EXPECT_ERR(nd_expand_dims(&o1, row, 0), ND_ERR_SHAPE, "nd_expand_dims: 'out' has shape (3,), but the result has shape (1,2)");
    /* an out that aliases the input (in place transpose of a square) */
    nd_array *sq = cv_iota(ND_FLOAT64, 2, (const int64_t[]){3, 3}, nd_cpu()), *sqk = sq;
    ND_OK_OR_FAIL(nd_transpose(&sq, sq, NULL));
    ck_assert_ptr_eq(sq, sqk);
    cv_expect_values(sq, 9, (const double[]){1, 4, 7, 2, 5, 8, 3, 6, 9});
    /* wrong shape / dtype: out untouched */
    cv_poison(o, -9);
    ND_EXPECT_ERR(nd_transpose(&o, o, NULL), ND_ERR_SHAPE, "nd_transpose: 'out' has shape (3,2), but the result has shape (2,3)");
    nd_array *oi = NULL, *oik;
    ND_OK_OR_FAIL(nd_zeros(&oi, ND_INT8, 2, (const int64_t[]){3, 2}, nd_cpu()));
    oik = oi;
    ND_EXPECT_ERR(nd_reshape(&oi, big, 2, (const int64_t[]){3, 8}), ND_ERR_SHAPE, "nd_reshape: 'out' has shape (3,2)");
    nd_array *af = cv_iota(ND_FLOAT32, 2, (const int64_t[]){2, 3}, nd_cpu());
    ND_EXPECT_ERR(nd_transpose(&oi, af, NULL), ND_ERR_DTYPE, "nd_transpose: cannot cast the result from float32 to 'out' dtype int8");
    nd_release(af);
    ND_EXPECT_ERR(nd_slice(&oi, big, 2, (const nd_range[]){{0, 3, 1}, {0, 2, 1}}), ND_ERR_DTYPE, "same_kind");
    ck_assert_ptr_eq(oi, oik);
    cv_expect_values(oi, 6, (const double[]){0, 0, 0, 0, 0, 0});
    double *x = cv_values(o);
    for (int i = 0; i < 6; i++) ck_assert(x[i] == -9);
    free(x);
    nd_release(oi);
    nd_release(sq);
    nd_release(col);
    nd_release(o1);
    nd_release(big);
    nd_release(row);
    nd_release(o);
    nd_release(a);
}
END_TEST

Suite *suite_views(void)
{
    Suite *s = suite_create("views");
    TCase *tc = tcase_create("views");
    tcase_add_test(tc, test_reshape_view);
    tcase_add_test(tc, test_reshape_strided);
    tcase_add_test(tc, test_reshape_bad);
    tcase_add_test(tc, test_transpose);
    tcase_add_test(tc, test_slice_1d);
    tcase_add_test(tc, test_slice_nd);
    tcase_add_test(tc, test_basic_index_1d);
    tcase_add_test(tc, test_basic_index_nd);
    tcase_add_test(tc, test_view_headers);
    tcase_add_test(tc, test_squeeze);
    tcase_add_test(tc, test_expand_dims);
    tcase_add_test(tc, test_broadcast_to);
    tcase_add_test(tc, test_views_out_rule);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tcase_join());
    return s;
}
