/* nd_where, nd_clip and nd_clip_scalar: broadcasting, promotion, NaN,
 * in-place and NumPy 2.4's handling of out-of-range Python integer bounds
 * (expected values from NumPy, pasted as constants). */
#include "harness.h"

static nd_array *mk(nd_dtype t, int ndim, const int64_t *shape, const double *v)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    unsigned char buf[64 * 8];
    ck_assert_int_le(n, 64);
    for (int64_t i = 0; i < n; i++) {
        ew_val x;
        if (nd__is_float(t)) x.f = v[i];
        else x = ew_wrap(t, (uint64_t)(int64_t)v[i]);
        if (t == ND_BOOL) x.i = v[i] != 0;
        ew_store(buf + nd_dtype_size(t) * (size_t)i, t, x);
    }
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, buf, t, ndim, shape, nd_cpu()));
    return a;
}

/* o has dtype t and shape (ndim, shape) and values v (NaN matches NaN) */
static void expect(const nd_array *o, nd_dtype t, int ndim, const int64_t *shape, const double *v)
{
    ck_assert_ptr_nonnull(o);
    ck_assert_msg(nd_dtype_of(o) == t, "dtype %s, want %s", nd_dtype_name(nd_dtype_of(o)), nd_dtype_name(t));
    ck_assert_int_eq(nd_ndim(o), ndim);
    for (int i = 0; i < ndim; i++) ck_assert_int_eq(nd_shape(o)[i], shape[i]);
    unsigned char buf[64 * 8];
    ND_OK_OR_FAIL(nd_copy_to_host(buf, o, nd_nbytes(o)));
    for (int64_t i = 0; i < nd_size(o); i++) {
        double g = ew_as_double(ew_load(buf + nd_dtype_size(t) * (size_t)i, t), t);
        if (isnan(v[i])) ck_assert_msg(isnan(g), "element %lld: got %g, want nan", (long long)i, g);
        else ck_assert_msg(g == v[i], "element %lld: got %.17g, want %.17g", (long long)i, g, v[i]);
    }
}

START_TEST(where_broadcast_and_promotion)
{
    /* np.where(cond[3,1], x[1,4] int8, y[] float32) -> float32 (3,4) */
    int64_t sc[2] = {3, 1}, sx[2] = {1, 4}, so[2] = {3, 4};
    static const double c[] = {1, 0, 1}, x[] = {1, -2, 3, -4}, y[] = {2.5};
    nd_array *C = mk(ND_BOOL, 2, sc, c), *X = mk(ND_INT8, 2, sx, x), *Y = mk(ND_FLOAT32, 0, NULL, y), *o = NULL;
    ND_OK_OR_FAIL(nd_where(&o, C, X, Y));
    static const double w[] = {1, -2, 3, -4, 2.5, 2.5, 2.5, 2.5, 1, -2, 3, -4};
    expect(o, ND_FLOAT32, 2, so, w);
    nd_release(o), o = NULL;
    /* a non-bool condition is cast to bool (NaN and -0.0: NaN is true) */
    int64_t s4[1] = {4};
    static const double cf[] = {NAN, -0.0, 2, 0}, a[] = {1, 2, 3, 4}, b[] = {-1, -2, -3, -4}, wf[] = {1, -2, 3, -4};
    nd_array *CF = mk(ND_FLOAT64, 1, s4, cf), *A = mk(ND_INT32, 1, s4, a), *B = mk(ND_INT32, 1, s4, b);
    ND_OK_OR_FAIL(nd_where(&o, CF, A, B));
    expect(o, ND_INT32, 1, s4, wf);
    nd_release(o), o = NULL;
    /* NaN values pass through; in place into x */
    static const double xn[] = {NAN, 1, 2, NAN}, yn[] = {5, NAN, 6, 7}, wn[] = {NAN, NAN, 2, 7};
    static const double cb[] = {1, 0, 1, 0};
    nd_array *CB = mk(ND_BOOL, 1, s4, cb), *XN = mk(ND_FLOAT16, 1, s4, xn), *YN = mk(ND_FLOAT16, 1, s4, yn);
    o = XN;
    ND_OK_OR_FAIL(nd_where(&o, CB, XN, YN));
    ck_assert_ptr_eq(o, XN);
    expect(XN, ND_FLOAT16, 1, s4, wn);
    /* where into a wider out */
    nd_array *wide = mk(ND_FLOAT64, 1, s4, a);
    o = wide;
    ND_OK_OR_FAIL(nd_where(&o, CB, YN, A));
    static const double ww[] = {5, 2, 6, 4};
    ck_assert_ptr_eq(o, wide);
    /* float16 with int32 promotes to float64 */
    expect(wide, ND_FLOAT64, 1, s4, ww);
    nd_release(C), nd_release(X), nd_release(Y), nd_release(CF), nd_release(A), nd_release(B);
    nd_release(CB), nd_release(XN), nd_release(YN), nd_release(wide);
}
END_TEST

/* The contiguous select of every item size (its loop is compiled per CPU
 * path: make test-isa runs this on each), at lengths around the vector
 * widths, against a scalar reference, fresh and in place into x. */
START_TEST(where_contiguous_every_itemsize_and_length)
{
    static const nd_dtype types[5] = {ND_UINT8, ND_INT16, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX128};
    static const int64_t lens[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129, 1000, 4099};
    enum { MAXN = 4099 };
    static uint8_t c[MAXN], x[MAXN * 16], y[MAXN * 16], got[MAXN * 16];
    uint32_t r = 12345;
    for (int i = 0; i < MAXN * 16; i++) {
        r = r * 1664525u + 1013904223u;
        x[i] = (uint8_t)(r >> 24);
        y[i] = (uint8_t)(r >> 16) ^ 0x5a;
    }
    for (int i = 0; i < MAXN; i++) {
        r = r * 1664525u + 1013904223u;
        c[i] = (r >> 28) & 1;
    }
    for (int t = 0; t < 5; t++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            int64_t n = lens[k];
            size_t sz = nd_dtype_size(types[t]);
            nd_array *C = NULL, *X = NULL, *Y = NULL, *o = NULL;
            ND_OK_OR_FAIL(nd_from_host(&C, c, ND_BOOL, 1, &n, nd_cpu()));
            ND_OK_OR_FAIL(nd_from_host(&X, x, types[t], 1, &n, nd_cpu()));
            ND_OK_OR_FAIL(nd_from_host(&Y, y, types[t], 1, &n, nd_cpu()));
            for (int inplace = 0; inplace < 2; inplace++) {
                o = inplace ? X : NULL;
                ND_OK_OR_FAIL(nd_where(&o, C, X, Y));
                ND_OK_OR_FAIL(nd_copy_to_host(got, o, (size_t)n * sz));
                for (int64_t i = 0; i < n; i++)
                    ck_assert_msg(!memcmp(got + i * sz, (c[i] ? x : y) + i * sz, sz), "%s n=%lld%s: element %lld",
                                  nd_dtype_name(types[t]), (long long)n, inplace ? " in place" : "", (long long)i);
                if (!inplace) nd_release(o);
            }
            nd_release(C), nd_release(X), nd_release(Y);
        }
}
END_TEST

START_TEST(clip_arrays)
{
    int64_t s5[1] = {5};
    static const double a[] = {-3, 0.5, NAN, 7, 2}, lo[] = {0}, hi[] = {4};
    nd_array *A = mk(ND_FLOAT64, 1, s5, a), *L = mk(ND_FLOAT64, 0, NULL, lo), *H = mk(ND_FLOAT64, 0, NULL, hi);
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_clip(&o, A, L, H));
    static const double w[] = {0, 0.5, NAN, 4, 2};
    expect(o, ND_FLOAT64, 1, s5, w);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_clip(&o, A, NULL, H));
    static const double wh[] = {-3, 0.5, NAN, 4, 2};
    expect(o, ND_FLOAT64, 1, s5, wh);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_clip(&o, A, L, NULL));
    static const double wl[] = {0, 0.5, NAN, 7, 2};
    expect(o, ND_FLOAT64, 1, s5, wl);
    nd_release(o), o = NULL;
    /* lo > hi gives hi (NumPy); a NaN bound propagates */
    ND_OK_OR_FAIL(nd_clip(&o, A, H, L));
    static const double wx[] = {0, 0, NAN, 0, 0};
    expect(o, ND_FLOAT64, 1, s5, wx);
    nd_release(o), o = NULL;
    static const double nan1[] = {NAN}, wn[] = {NAN, NAN, NAN, NAN, NAN};
    nd_array *N = mk(ND_FLOAT64, 0, NULL, nan1);
    ND_OK_OR_FAIL(nd_clip(&o, A, N, H));
    expect(o, ND_FLOAT64, 1, s5, wn);
    nd_release(o), o = NULL;
    /* broadcasting: a (2,3) int8, lo (2,1) int16, hi (3,) float32 -> float32 (2,3) */
    int64_t sa[2] = {2, 3}, sl[2] = {2, 1}, sh[1] = {3};
    static const double ai[] = {-5, 0, 5, 10, 20, 30}, li[] = {-1, 15}, hf[] = {2.5, 25, 100};
    nd_array *AI = mk(ND_INT8, 2, sa, ai), *LI = mk(ND_INT16, 2, sl, li), *HF = mk(ND_FLOAT32, 1, sh, hf);
    ND_OK_OR_FAIL(nd_clip(&o, AI, LI, HF));
    static const double wb[] = {-1, 0, 5, 2.5, 20, 30};
    expect(o, ND_FLOAT32, 2, sa, wb);
    nd_release(o), o = NULL;
    /* in place */
    o = A;
    ND_OK_OR_FAIL(nd_clip(&o, A, L, H));
    ck_assert_ptr_eq(o, A);
    expect(A, ND_FLOAT64, 1, s5, w);
    nd_release(A), nd_release(L), nd_release(H), nd_release(N), nd_release(AI), nd_release(LI), nd_release(HF);
}
END_TEST

START_TEST(clip_scalar_numpy_rules)
{
    int64_t s3[1] = {3};
    static const double a[] = {1, -5, 100};
    nd_array *A = mk(ND_INT8, 1, s3, a), *o = NULL;
    /* np.clip(int8 [1,-5,100], 0, 300) -> int8 [1, 0, 100] */
    ND_OK_OR_FAIL(nd_clip_scalar(&o, A, nd_scalar_int(0), nd_scalar_int(300)));
    static const double w1[] = {1, 0, 100};
    expect(o, ND_INT8, 1, s3, w1);
    nd_release(o), o = NULL;
    /* np.clip(a, -200, 50) -> int8 [1, -5, 50] */
    ND_OK_OR_FAIL(nd_clip_scalar(&o, A, nd_scalar_int(-200), nd_scalar_int(50)));
    static const double w2[] = {1, -5, 50};
    expect(o, ND_INT8, 1, s3, w2);
    nd_release(o), o = NULL;
    /* np.clip(a, -300, 300): nothing to clip, a copy */
    ND_OK_OR_FAIL(nd_clip_scalar(&o, A, nd_scalar_int(-300), nd_scalar_int(300)));
    expect(o, ND_INT8, 1, s3, a);
    ck_assert_ptr_ne(o, A);
    nd_release(o), o = NULL;
    /* np.clip(a, 300, 400) / (None, -200): OverflowError */
    ND_EXPECT_ERR(nd_clip_scalar(&o, A, nd_scalar_int(300), nd_scalar_int(400)), ND_ERR_INVALID,
                  "Python integer 300 out of bounds for int8");
    ND_EXPECT_ERR(nd_clip_scalar(&o, A, nd_scalar_none(), nd_scalar_int(-200)), ND_ERR_INVALID,
                  "Python integer -200 out of bounds for int8");
    ck_assert_ptr_null(o);
    /* int8 with a float bound -> float64: np.clip(a, 0.5, 2) */
    ND_OK_OR_FAIL(nd_clip_scalar(&o, A, nd_scalar_float(0.5), nd_scalar_int(2)));
    static const double w3[] = {1, 0.5, 2};
    expect(o, ND_FLOAT64, 1, s3, w3);
    nd_release(o), o = NULL;
    /* uint64 with -5 as lo: unchanged */
    static const double u[] = {1, 5, 200};
    nd_array *U = mk(ND_UINT64, 1, s3, u);
    ND_OK_OR_FAIL(nd_clip_scalar(&o, U, nd_scalar_int(-5), nd_scalar_none()));
    expect(o, ND_UINT64, 1, s3, u);
    nd_release(o), o = NULL;
    /* bool with int bounds -> int64; with bool bounds -> bool */
    int64_t s2[1] = {2};
    static const double bv[] = {1, 0};
    nd_array *Bo = mk(ND_BOOL, 1, s2, bv);
    ND_OK_OR_FAIL(nd_clip_scalar(&o, Bo, nd_scalar_int(0), nd_scalar_int(1)));
    expect(o, ND_INT64, 1, s2, bv);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_clip_scalar(&o, Bo, nd_scalar_bool(false), nd_scalar_bool(true)));
    expect(o, ND_BOOL, 1, s2, bv);
    nd_release(o), o = NULL;
    /* float16 stays float16 with a large float bound; NaN bound propagates */
    static const double h[] = {1.5, -3, NAN};
    nd_array *Hf = mk(ND_FLOAT16, 1, s3, h);
    ND_OK_OR_FAIL(nd_clip_scalar(&o, Hf, nd_scalar_int(0), nd_scalar_float(1e6)));
    static const double wh[] = {1.5, 0, NAN};
    expect(o, ND_FLOAT16, 1, s3, wh);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_clip_scalar(&o, Hf, nd_scalar_float(NAN), nd_scalar_none()));
    static const double wn[] = {NAN, NAN, NAN};
    expect(o, ND_FLOAT16, 1, s3, wn);
    nd_release(o), o = NULL;
    /* in place, and into a wider out */
    nd_array *wide = mk(ND_INT32, 1, s3, u);
    o = wide;
    ND_OK_OR_FAIL(nd_clip_scalar(&o, A, nd_scalar_int(0), nd_scalar_int(50)));
    static const double w4[] = {1, 0, 50};
    expect(wide, ND_INT32, 1, s3, w4);
    o = A;
    ND_OK_OR_FAIL(nd_clip_scalar(&o, A, nd_scalar_int(0), nd_scalar_int(50)));
    expect(A, ND_INT8, 1, s3, w4);
    nd_release(A), nd_release(U), nd_release(Bo), nd_release(Hf), nd_release(wide);
}
END_TEST

TCase *ew_tcase_select(void)
{
    TCase *tc = tcase_create("where_clip");
    tcase_add_test(tc, where_broadcast_and_promotion);
    tcase_add_test(tc, where_contiguous_every_itemsize_and_length);
    tcase_add_test(tc, clip_arrays);
    tcase_add_test(tc, clip_scalar_numpy_rules);
    return tc;
}
