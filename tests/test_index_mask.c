/* nd_nonzero, nd_flatnonzero, nd_argwhere, nd_count_nonzero,
 * nd_mask_select, nd_mask_assign, nd_compress (suite "index_mask"):
 * random shapes, dtypes and layouts against a host reference on the CPU
 * and cuda:0 when present; empty and 0-d inputs; errors in NumPy's words. */
#include "index_util.h"

Suite *suite_index_mask(void);

/* the real dtypes: nonzero and masks of complex arrays need complex
 * not_equal, which comes with complex elementwise ops */
static nd_dtype rand_dtype(uint64_t *s) { return cv_all_dtypes[ix_rand(s) % NT_NREAL]; }

static int rand_shape(uint64_t *s, int maxnd, int64_t *shape)
{
    int nd = (int)ix_range(s, 0, maxnd);
    for (int d = 0; d < nd; d++) shape[d] = ix_range(s, ix_rand(s) % 8 == 0 ? 0 : 1, 5);
    return nd;
}

START_TEST(test_nonzero_random)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    uint64_t s = 0x4242u + (uint64_t)_i;
    for (int c = 0; c < 60; c++) {
        int64_t shape[ND_MAX_DIMS];
        int nd = rand_shape(&s, 3, shape);
        nd_dtype t = rand_dtype(&s);
        int64_t n = ix_prod(nd, shape);
        double *av = ix_values(&s, t, n);
        if ((t == ND_FLOAT16 || t == ND_BFLOAT16 || t == ND_FLOAT32 || t == ND_FLOAT64) && n > 1) av[0] = NAN, av[n - 1] = -0.0; /* NaN is nonzero, -0.0 is zero */
        int64_t cnt = 0;
        int64_t *flat = malloc(((size_t)n + 1) * sizeof *flat);
        for (int64_t i = 0; i < n; i++)
            if (av[i] != 0) flat[cnt++] = i; /* NaN != 0 */
        double *fw = malloc(((size_t)cnt + 1) * sizeof *fw), *aw = malloc(((size_t)cnt * (nd ? nd : 1) + 1) * sizeof *aw);
        for (int64_t q = 0; q < cnt; q++) {
            int64_t co[ND_MAX_DIMS];
            ix_unravel(flat[q], nd, shape, co);
            fw[q] = (double)flat[q];
            for (int d = 0; d < nd; d++) aw[q * nd + d] = (double)co[d];
        }
        int layout = (int)(ix_rand(&s) % 4);
        for (int dv = 0; dv < ndev; dv++) {
            nd_array *a = ix_layout(t, nd, shape, av, devs[dv], layout), *r = NULL;
            char what[120];
            snprintf(what, sizeof what, "case %d dev %d: %s nd %d layout %d", c, dv, nd_dtype_name(t), nd, layout);
            ND_OK_OR_FAIL(nd_flatnonzero(&r, a));
            ck_assert_int_eq(nd_dtype_of(r), ND_INT64);
            ix_expect(r, 1, &cnt, fw, what);
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_argwhere(&r, a));
            ck_assert_int_eq(nd_dtype_of(r), ND_INT64);
            ix_expect(r, 2, (const int64_t[]){cnt, nd}, aw, what);
            nd_release(r), r = NULL;
            if (nd > 0) {
                nd_array *outs[4] = {0};
                int k = -1;
                ND_OK_OR_FAIL(nd_nonzero(outs, 4, &k, a));
                ck_assert_int_eq(k, nd);
                for (int d = 0; d < nd; d++) {
                    double *cw = malloc(((size_t)cnt + 1) * sizeof *cw);
                    for (int64_t q = 0; q < cnt; q++) cw[q] = aw[q * nd + d];
                    ix_expect(outs[d], 1, &cnt, cw, what);
                    free(cw);
                    nd_release(outs[d]);
                }
            }
            /* count_nonzero over all axes and over one axis with keepdims */
            ND_OK_OR_FAIL(nd_count_nonzero(&r, a, 0, NULL, false));
            ix_expect(r, 0, NULL, (const double[]){(double)cnt}, what);
            nd_release(r), r = NULL;
            if (nd > 0) {
                int ax = (int)ix_range(&s, 0, nd - 1);
                int64_t kshape[ND_MAX_DIMS];
                memcpy(kshape, shape, sizeof kshape);
                kshape[ax] = 1;
                int64_t ksz = ix_prod(nd, kshape);
                double *kw = calloc((size_t)ksz + 1, sizeof *kw);
                for (int64_t i = 0; i < n; i++) {
                    int64_t co[ND_MAX_DIMS];
                    ix_unravel(i, nd, shape, co);
                    co[ax] = 0;
                    kw[ix_ravel(nd, kshape, co)] += av[i] != 0;
                }
                ND_OK_OR_FAIL(nd_count_nonzero(&r, a, 1, (const int[]){ax - nd}, true));
                ix_expect(r, nd, kshape, kw, what);
                nd_release(r), r = NULL;
                free(kw);
            }
            nd_release(a);
        }
        free(aw);
        free(fw);
        free(flat);
        free(av);
    }
}
END_TEST

START_TEST(test_nonzero_numpy)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    for (int dv = 0; dv < ndev; dv++) {
        /* np.nonzero([[0, 3], [4, 0], [0, 0.5]]) -> ([0, 1, 2], [1, 0, 1]) */
        nd_array *a = cv_make(ND_FLOAT32, 2, (const int64_t[]){3, 2}, (const double[]){0, 3, 4, 0, 0, 0.5}, devs[dv]);
        nd_array *outs[2] = {0};
        int k = 0;
        ND_OK_OR_FAIL(nd_nonzero(outs, 2, &k, a));
        cv_expect_values(outs[0], 3, (const double[]){0, 1, 2});
        cv_expect_values(outs[1], 3, (const double[]){1, 0, 1});
        nd_release(outs[0]);
        nd_release(outs[1]);
        /* 0-d: np.argwhere(np.array(1)).shape == (1, 0); np.flatnonzero(np.array(3)) == [0] */
        nd_array *z = cv_make(ND_INT16, 0, NULL, (const double[]){3}, devs[dv]), *r = NULL;
        ND_OK_OR_FAIL(nd_argwhere(&r, z));
        cv_expect_shape(r, 2, (const int64_t[]){1, 0});
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_flatnonzero(&r, z));
        cv_expect_values(r, 1, (const double[]){0});
        nd_release(r), r = NULL;
        ND_EXPECT_ERR(nd_nonzero(outs, 2, &k, z), ND_ERR_INVALID, "Calling nonzero on 0d arrays is not allowed");
        ND_EXPECT_ERR(nd_nonzero(outs, 1, &k, a), ND_ERR_INVALID, "cap = 1");
        ND_EXPECT_ERR(nd_count_nonzero(&r, a, 1, (const int[]){2}, false), ND_ERR_SHAPE,
                      "axis 2 is out of bounds for array of dimension 2");
        ND_EXPECT_ERR(nd_count_nonzero(&r, a, 2, (const int[]){0, -2}, false), ND_ERR_INVALID, "duplicate value");
        /* a user out for flatnonzero (float64 takes int64 under same_kind? no: int64 -> float64 is safe) */
        nd_array *o = NULL;
        ND_OK_OR_FAIL(nd_empty(&o, ND_FLOAT64, 1, (const int64_t[]){3}, devs[dv]));
        cv_poison(o, 77);
        nd_array *o0 = o;
        ND_OK_OR_FAIL(nd_flatnonzero(&o, a));
        ck_assert_ptr_eq(o, o0);
        cv_expect_values(o, 3, (const double[]){1, 2, 5});
        nd_release(o);
        nd_release(z);
        nd_release(a);
    }
}
END_TEST

START_TEST(test_mask_random)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    uint64_t s = 0x9911u + (uint64_t)_i;
    for (int c = 0; c < 60; c++) {
        int64_t shape[ND_MAX_DIMS];
        int nd = rand_shape(&s, 3, shape);
        nd_dtype t = rand_dtype(&s);
        int mnd = (int)ix_range(&s, 0, nd);
        int64_t n = ix_prod(nd, shape), M = ix_prod(mnd, shape), R = n / (M ? M : 1);
        if (M == 0) R = ix_prod(nd - mnd, shape + mnd);
        double *av = ix_values(&s, t, n), *mv = malloc(((size_t)M + 1) * sizeof *mv);
        int64_t cnt = 0;
        for (int64_t i = 0; i < M; i++) cnt += (mv[i] = (double)(ix_rand(&s) % 2));
        int rnd = 1 + nd - mnd;
        int64_t rshape[ND_MAX_DIMS];
        rshape[0] = cnt;
        for (int d = mnd; d < nd; d++) rshape[1 + d - mnd] = shape[d];
        double *want = malloc(((size_t)(cnt * R) + 1) * sizeof *want);
        int64_t q = 0;
        for (int64_t i = 0; i < M; i++)
            if (mv[i]) memcpy(want + (q++) * R, av + i * R, sizeof(double) * (size_t)R);
        /* assignment values: full, one row (broadcast) or a scalar */
        int vk = (int)(ix_rand(&s) % 3);
        int vnd = vk == 0 ? rnd : vk == 1 ? rnd - 1 : 0;
        int64_t vsz = vk == 0 ? cnt * R : vk == 1 ? R : 1;
        double *vv = ix_values(&s, t, vsz);
        double *aw = malloc(((size_t)n + 1) * sizeof *aw);
        memcpy(aw, av, sizeof(double) * (size_t)n);
        q = 0;
        for (int64_t i = 0; i < M; i++)
            if (mv[i]) {
                for (int64_t u = 0; u < R; u++) aw[i * R + u] = vk == 0 ? vv[q * R + u] : vk == 1 ? vv[u] : vv[0];
                q++;
            }
        int layout = (int)(ix_rand(&s) % 4), mlayout = (int)(ix_rand(&s) % 4);
        for (int dv = 0; dv < ndev; dv++) {
            nd_array *a = ix_layout(t, nd, shape, av, devs[dv], layout), *r = NULL;
            nd_array *m = ix_layout(ND_BOOL, mnd, shape, mv, devs[dv], mlayout);
            char what[120];
            snprintf(what, sizeof what, "case %d dev %d: mask %s nd %d mnd %d", c, dv, nd_dtype_name(t), nd, mnd);
            bool user = ix_rand(&s) % 2;
            if (user) {
                ND_OK_OR_FAIL(nd_empty(&r, t, rnd, rshape, devs[dv]));
                cv_poison(r, 77);
            }
            ND_OK_OR_FAIL(nd_mask_select(&r, a, m));
            ix_expect(r, rnd, rshape, want, what);
            nd_release(r), r = NULL;
            nd_array *v = ix_layout(t, vnd, rshape + (rnd - vnd), vv, devs[dv], (int)(ix_rand(&s) % 4));
            ND_OK_OR_FAIL(nd_mask_assign(a, m, v));
            ix_expect(a, nd, shape, aw, what);
            nd_release(v);
            /* compress along a random axis with a 1-D condition of any dtype */
            if (nd > 0) {
                int ax = (int)ix_range(&s, 0, nd - 1);
                int64_t L = ix_range(&s, 0, shape[ax]);
                nd_dtype ct = rand_dtype(&s);
                double *cv = ix_values(&s, ct, L);
                int64_t cshape[ND_MAX_DIMS], kept = 0;
                for (int64_t i = 0; i < L; i++) kept += cv[i] != 0;
                memcpy(cshape, shape, sizeof cshape);
                cshape[ax] = kept;
                int64_t csz = ix_prod(nd, cshape);
                double *cw = malloc(((size_t)csz + 1) * sizeof *cw);
                for (int64_t p = 0; p < csz; p++) {
                    int64_t co[ND_MAX_DIMS];
                    ix_unravel(p, nd, cshape, co);
                    int64_t j = -1;
                    for (int64_t i = 0, seen = 0; i < L; i++)
                        if (cv[i] != 0 && seen++ == co[ax]) { j = i; break; }
                    co[ax] = j;
                    cw[p] = aw[ix_ravel(nd, shape, co)];
                }
                nd_array *cond = ix_layout(ct, 1, &L, cv, devs[dv], (int)(ix_rand(&s) % 4));
                ND_OK_OR_FAIL(nd_compress(&r, cond, a, ax));
                ix_expect(r, nd, cshape, cw, what);
                nd_release(r), r = NULL;
                nd_release(cond);
                free(cw);
                free(cv);
            }
            nd_release(m);
            nd_release(a);
        }
        free(aw);
        free(vv);
        free(want);
        free(mv);
        free(av);
    }
}
END_TEST

/* a[mask] and a[mask] = v over many blocks (threads, the two-pass compaction). */
START_TEST(test_mask_large)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    const int64_t N = 300001;
    float *av = malloc(sizeof(float) * (size_t)N);
    uint8_t *mv = malloc((size_t)N);
    uint64_t s = 5;
    int64_t cnt = 0;
    for (int64_t i = 0; i < N; i++) av[i] = (float)(i + 1), cnt += (mv[i] = (uint8_t)(ix_rand(&s) % 3 != 0));
    for (int dv = 0; dv < ndev; dv++) {
        nd_array *a = NULL, *m = NULL, *r = NULL, *f = NULL;
        ND_OK_OR_FAIL(nd_from_host(&a, av, ND_FLOAT32, 1, &N, devs[dv]));
        ND_OK_OR_FAIL(nd_from_host(&m, mv, ND_BOOL, 1, &N, devs[dv]));
        ND_OK_OR_FAIL(nd_mask_select(&r, a, m));
        ND_OK_OR_FAIL(nd_flatnonzero(&f, m));
        ck_assert_int_eq(nd_size(r), cnt);
        ck_assert_int_eq(nd_size(f), cnt);
        float *got = malloc(sizeof(float) * (size_t)cnt);
        int64_t *fi = malloc(sizeof(int64_t) * (size_t)cnt);
        ND_OK_OR_FAIL(nd_copy_to_host(got, r, nd_nbytes(r)));
        ND_OK_OR_FAIL(nd_copy_to_host(fi, f, nd_nbytes(f)));
        for (int64_t i = 0, q = 0; i < N; i++)
            if (mv[i]) {
                ck_assert_msg(got[q] == av[i] && fi[q] == i, "selected %lld", (long long)q);
                q++;
            }
        free(fi);
        free(got);
        nd_release(f);
        nd_release(r);
        nd_release(m);
        nd_release(a);
    }
    free(mv);
    free(av);
}
END_TEST

START_TEST(test_mask_errors)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    for (int dv = 0; dv < ndev; dv++) {
        nd_array *a = cv_iota(ND_FLOAT64, 2, (const int64_t[]){2, 3}, devs[dv]), *r = NULL;
        nd_array *m3 = cv_make(ND_BOOL, 1, (const int64_t[]){3}, (const double[]){1, 1, 1}, devs[dv]);
        ND_EXPECT_ERR(nd_mask_select(&r, a, m3), ND_ERR_SHAPE,
                      "boolean index did not match indexed array along axis 0; size of axis is 2 but size of "
                      "corresponding boolean axis is 3");
        nd_array *mi = cv_make(ND_INT8, 1, (const int64_t[]){2}, (const double[]){1, 0}, devs[dv]);
        ND_EXPECT_ERR(nd_mask_select(&r, a, mi), ND_ERR_DTYPE, "'mask' must be bool, got int8");
        nd_array *m2 = cv_make(ND_BOOL, 2, (const int64_t[]){2, 3}, (const double[]){1, 0, 1, 0, 0, 1}, devs[dv]);
        nd_array *v2 = cv_iota(ND_FLOAT64, 1, (const int64_t[]){2}, devs[dv]);
        ND_EXPECT_ERR(nd_mask_assign(a, m2, v2), ND_ERR_SHAPE,
                      "NumPy boolean array indexing assignment cannot assign 2 input values to the 3 output values "
                      "where the mask is true");
        nd_array *m1 = cv_make(ND_BOOL, 1, (const int64_t[]){2}, (const double[]){1, 0}, devs[dv]);
        ND_EXPECT_ERR(nd_mask_assign(a, m1, v2), ND_ERR_SHAPE,
                      "shape mismatch: value array of shape (2,) could not be broadcast to indexing result of shape (1,3)");
        /* a 0-d mask: np.zeros((2, 3))[np.array(True)].shape == (1, 2, 3) */
        nd_array *mt = cv_make(ND_BOOL, 0, NULL, (const double[]){1}, devs[dv]);
        ND_OK_OR_FAIL(nd_mask_select(&r, a, mt));
        cv_expect_shape(r, 3, (const int64_t[]){1, 2, 3});
        cv_expect_values(r, 6, (const double[]){1, 2, 3, 4, 5, 6});
        nd_release(r), r = NULL;
        /* compress: np.compress([1, 0, 1, 1], np.arange(3)) -> IndexError index 3 ... size 3 */
        nd_array *c4 = cv_make(ND_INT32, 1, (const int64_t[]){4}, (const double[]){1, 0, 1, 1}, devs[dv]);
        nd_array *c2 = cv_make(ND_INT32, 2, (const int64_t[]){2, 2}, (const double[]){1, 0, 1, 1}, devs[dv]);
        ND_EXPECT_ERR(nd_compress(&r, c4, a, 1), ND_ERR_INVALID, "index 3 is out of bounds for axis 1 with size 3");
        ND_EXPECT_ERR(nd_compress(&r, c2, a, 1), ND_ERR_SHAPE, "condition must be a 1-d array");
        ND_EXPECT_ERR(nd_compress(&r, c4, a, 5), ND_ERR_SHAPE, "axis 5 is out of bounds");
        /* np.compress([0, 1, 1, 1], a) over the flattened a -> [2, 3, 4] */
        nd_array *c5 = cv_make(ND_FLOAT32, 1, (const int64_t[]){4}, (const double[]){0, 1, 0.5, NAN}, devs[dv]);
        ND_OK_OR_FAIL(nd_compress(&r, c5, a, ND_AXIS_NONE));
        cv_expect_values(r, 3, (const double[]){2, 3, 4});
        nd_release(r), r = NULL;
        /* empty a and empty mask */
        nd_array *e = NULL, *me = NULL;
        ND_OK_OR_FAIL(nd_empty(&e, ND_INT8, 2, (const int64_t[]){0, 4}, devs[dv]));
        ND_OK_OR_FAIL(nd_empty(&me, ND_BOOL, 1, (const int64_t[]){0}, devs[dv]));
        ND_OK_OR_FAIL(nd_mask_select(&r, e, me));
        cv_expect_shape(r, 2, (const int64_t[]){0, 4});
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_mask_assign(e, me, mt));
        nd_release(me);
        nd_release(e);
        nd_release(c5);
        nd_release(c2);
        nd_release(c4);
        nd_release(mt);
        nd_release(m1);
        nd_release(v2);
        nd_release(m2);
        nd_release(mi);
        nd_release(m3);
        nd_release(a);
    }
}
END_TEST

/* nd_nonzero's outs follow the list rule: a given entry (the right shape,
 * a dtype int64 casts to under same_kind) receives the coordinates and
 * stays the caller's array; a wrong one is refused before anything is
 * written. */
START_TEST(test_nonzero_given_outs)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    for (int dv = 0; dv < ndev; dv++) {
        nd_array *a = cv_make(ND_FLOAT32, 2, (const int64_t[]){3, 2}, (const double[]){0, 3, 4, 0, 0, 0.5}, devs[dv]);
        nd_array *o0 = NULL, *o1 = NULL, *bad = NULL;
        ND_OK_OR_FAIL(nd_empty(&o0, ND_FLOAT64, 1, (const int64_t[]){3}, devs[dv]));
        cv_poison(o0, 77);
        nd_array *outs[2] = {o0, NULL};
        int k = -1;
        ND_OK_OR_FAIL(nd_nonzero(outs, 2, &k, a));
        ck_assert_int_eq(k, 2);
        ck_assert_ptr_eq(outs[0], o0);
        cv_expect_values(o0, 3, (const double[]){0, 1, 2});
        ck_assert_ptr_nonnull(outs[1]);
        ck_assert_int_eq(nd_dtype_of(outs[1]), ND_INT64);
        cv_expect_values(outs[1], 3, (const double[]){1, 0, 1});
        o1 = outs[1];
        /* a wrong shape (NumPy would need (3,)) or dtype: refused, nothing written */
        ND_OK_OR_FAIL(nd_zeros(&bad, ND_INT64, 1, (const int64_t[]){2}, devs[dv]));
        cv_poison(o0, 77);
        nd_array *outs2[2] = {o0, bad};
        k = -1;
        ND_EXPECT_ERR(nd_nonzero(outs2, 2, &k, a), ND_ERR_SHAPE, "nd_nonzero");
        ck_assert_int_eq(k, -1);
        ck_assert_ptr_eq(outs2[0], o0);
        ck_assert_ptr_eq(outs2[1], bad);
        cv_expect_values(o0, 3, (const double[]){77, 77, 77});
        nd_release(bad), bad = NULL;
        ND_OK_OR_FAIL(nd_zeros(&bad, ND_BOOL, 1, (const int64_t[]){3}, devs[dv]));
        nd_array *outs3[2] = {NULL, bad};
        ND_EXPECT_ERR(nd_nonzero(outs3, 2, &k, a), ND_ERR_DTYPE, "same_kind");
        ck_assert_ptr_null(outs3[0]);
        ck_assert_ptr_eq(outs3[1], bad);
        nd_release(bad), nd_release(o0), nd_release(o1), nd_release(a);
    }
}
END_TEST

Suite *suite_index_mask(void)
{
    Suite *s = suite_create("index_mask");
    TCase *tc = tcase_create("index_mask");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_nonzero_random, 0, 3);
    tcase_add_test(tc, test_nonzero_numpy);
    tcase_add_test(tc, test_nonzero_given_outs);
    tcase_add_loop_test(tc, test_mask_random, 0, 3);
    tcase_add_test(tc, test_mask_large);
    tcase_add_test(tc, test_mask_errors);
    suite_add_tcase(s, tc);
    return s;
}
