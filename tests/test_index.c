/* nd_take, nd_take_along_axis, nd_put_along_axis, nd_put, nd_add_at /
 * maximum_at / minimum_at (suite "index"): random shapes, dtypes, axes,
 * index dtypes, modes and layouts against a host reference, the same
 * cases on the CPU and on cuda:0 when present; outputs poisoned; error
 * statuses and messages (NumPy 2.4's words). */
#include "index_util.h"

Suite *suite_index(void);

static const int64_t POISON = 77;

static nd_dtype rand_dtype(uint64_t *s) { return cv_all_dtypes[ix_rand(s) % ND_NUM_DTYPES]; }

static int rand_shape(uint64_t *s, int maxnd, int64_t *shape, bool allow_zero)
{
    int nd = (int)ix_range(s, 1, maxnd);
    for (int d = 0; d < nd; d++) shape[d] = ix_range(s, allow_zero && ix_rand(s) % 8 == 0 ? 0 : 1, 5);
    return nd;
}

static int64_t norm_index(int64_t j, int64_t n, int mode)
{
    if (mode == ND_TAKE_WRAP) return ((j % n) + n) % n;
    if (mode == ND_TAKE_CLIP) return j < 0 ? 0 : (j >= n ? n - 1 : j);
    return j < 0 ? j + n : j;
}

static void rand_indices(uint64_t *s, int64_t *iv, int64_t k, int64_t n, int mode)
{
    for (int64_t i = 0; i < k; i++)
        iv[i] = mode == ND_TAKE_RAISE ? ix_range(s, -n, n - 1) : ix_range(s, -3 * n - 2, 3 * n + 2);
}

START_TEST(test_take_random)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    uint64_t s = 0x1234567u + (uint64_t)_i;
    for (int c = 0; c < 80; c++) {
        int64_t ashape[ND_MAX_DIMS], ishape[ND_MAX_DIMS];
        int and_ = rand_shape(&s, 3, ashape, true);
        if (c % 10 == 0) and_ = 0;
        nd_dtype t = rand_dtype(&s);
        int mode = (int)(ix_rand(&s) % 3);
        bool none = and_ == 0 || ix_rand(&s) % 5 == 0;
        int ax = none ? 0 : (int)ix_range(&s, 0, and_ - 1);
        int axis_arg = none ? ND_AXIS_NONE : (ix_rand(&s) % 2 ? ax - and_ : ax);
        int64_t asz = ix_prod(and_, ashape);
        /* the gathered view: flattened for ND_AXIS_NONE */
        int gnd = none ? 1 : and_;
        int64_t gshape[ND_MAX_DIMS];
        if (none) gshape[0] = asz;
        else memcpy(gshape, ashape, sizeof(int64_t) * (size_t)and_);
        int64_t n = gshape[ax];
        int ind = (int)ix_range(&s, 0, 2);
        for (int d = 0; d < ind; d++) ishape[d] = ix_range(&s, n == 0 ? 0 : 1, 4);
        int64_t k = ix_prod(ind, ishape);
        if (n == 0 && k > 0) continue;
        int64_t *iv = malloc(((size_t)k + 1) * sizeof *iv);
        rand_indices(&s, iv, k, n, mode);
        int64_t lo = 0, hi = 0;
        for (int64_t i = 0; i < k; i++) lo = iv[i] < lo ? iv[i] : lo, hi = iv[i] > hi ? iv[i] : hi;
        nd_dtype it = ix_index_dtype(&s, lo, hi);
        double *av = ix_values(&s, t, asz);
        /* reference */
        int rnd = gnd - 1 + ind;
        int64_t rshape[ND_MAX_DIMS];
        int r = 0;
        for (int d = 0; d < ax; d++) rshape[r++] = gshape[d];
        for (int d = 0; d < ind; d++) rshape[r++] = ishape[d];
        for (int d = ax + 1; d < gnd; d++) rshape[r++] = gshape[d];
        int64_t rsz = ix_prod(rnd, rshape);
        double *want = malloc(((size_t)rsz + 1) * sizeof *want);
        int64_t pre = ix_prod(ax, gshape), post = ix_prod(gnd - ax - 1, gshape + ax + 1);
        for (int64_t p = 0; p < pre; p++)
            for (int64_t q = 0; q < k; q++)
                for (int64_t u = 0; u < post; u++)
                    want[(p * k + q) * post + u] = av[(p * n + norm_index(iv[q], n, mode)) * post + u];
        int layout = (int)(ix_rand(&s) % 4), ilayout = (int)(ix_rand(&s) % 4);
        bool user_out = ix_rand(&s) % 2;
        for (int dv = 0; dv < ndev; dv++) {
            nd_array *a = ix_layout(t, and_, ashape, av, devs[dv], layout);
            nd_array *idx = ix_index_array(it, ind, ishape, iv, devs[dv], ind ? ilayout : 0);
            nd_array *o = NULL;
            if (user_out) {
                ND_OK_OR_FAIL(nd_empty(&o, t, rnd, rshape, devs[dv]));
                cv_poison(o, (double)POISON);
            }
            nd_array *o0 = o;
            ND_OK_OR_FAIL(nd_take(&o, a, idx, axis_arg, (nd_take_mode)mode));
            if (user_out) ck_assert_ptr_eq(o, o0);
            char what[160];
            snprintf(what, sizeof what, "case %d dev %d: take %s axis %d mode %d idx %s layout %d", c, dv,
                     nd_dtype_name(t), axis_arg, mode, nd_dtype_name(it), layout);
            ix_expect(o, rnd, rshape, want, what);
            nd_release(o);
            nd_release(a);
            nd_release(idx);
        }
        free(want);
        free(av);
        free(iv);
    }
}
END_TEST

START_TEST(test_take_numpy)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    for (int dv = 0; dv < ndev; dv++) {
        /* a = np.arange(12).reshape(3, 4) + 1 */
        nd_array *a = cv_iota(ND_INT32, 2, (const int64_t[]){3, 4}, devs[dv]), *r = NULL;
        nd_array *i = cv_make(ND_INT16, 2, (const int64_t[]){2, 2}, (const double[]){0, 2, 1, -1}, devs[dv]);
        /* np.take(a, [[0, 2], [1, -1]], axis=1) (NumPy 2.4) */
        ND_OK_OR_FAIL(nd_take(&r, a, i, 1, ND_TAKE_RAISE));
        cv_expect_shape(r, 3, (const int64_t[]){3, 2, 2});
        cv_expect_values(r, 12, (const double[]){1, 3, 2, 4, 5, 7, 6, 8, 9, 11, 10, 12});
        nd_release(r), r = NULL;
        /* np.take(a, [13, -14, 5], mode='wrap') -> [2, 11, 6]; mode='clip' -> [12, 1, 6] */
        nd_array *j = cv_make(ND_INT64, 1, (const int64_t[]){3}, (const double[]){13, -14, 5}, devs[dv]);
        ND_OK_OR_FAIL(nd_take(&r, a, j, ND_AXIS_NONE, ND_TAKE_WRAP));
        cv_expect_values(r, 3, (const double[]){2, 11, 6});
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_take(&r, a, j, ND_AXIS_NONE, ND_TAKE_CLIP));
        cv_expect_values(r, 3, (const double[]){12, 1, 6});
        nd_release(r), r = NULL;
        /* a 0-d index: np.take(a, 2, axis=0) -> a[2] */
        nd_array *z = cv_make(ND_UINT8, 0, NULL, (const double[]){2}, devs[dv]);
        ND_OK_OR_FAIL(nd_take(&r, a, z, 0, ND_TAKE_RAISE));
        cv_expect_shape(r, 1, (const int64_t[]){4});
        cv_expect_values(r, 4, (const double[]){9, 10, 11, 12});
        nd_release(r), r = NULL;
        /* 0-d a: np.take(np.array(5.), [0, 0]) -> [5., 5.] */
        nd_array *a0 = cv_make(ND_FLOAT64, 0, NULL, (const double[]){5}, devs[dv]);
        nd_array *i0 = cv_make(ND_INT64, 1, (const int64_t[]){2}, (const double[]){0, -1}, devs[dv]);
        ND_OK_OR_FAIL(nd_take(&r, a0, i0, 0, ND_TAKE_RAISE));
        cv_expect_values(r, 2, (const double[]){5, 5});
        nd_release(r), r = NULL;
        /* uint64 2^64-1 is -1 after NumPy's same_kind cast to intp */
        uint64_t big = UINT64_MAX;
        nd_array *ib = NULL;
        ND_OK_OR_FAIL(nd_from_host(&ib, &big, ND_UINT64, 1, (const int64_t[]){1}, devs[dv]));
        ND_OK_OR_FAIL(nd_take(&r, a, ib, 0, ND_TAKE_RAISE));
        cv_expect_values(r, 4, (const double[]){9, 10, 11, 12});
        nd_release(r), r = NULL;
        /* errors */
        nd_array *a10 = cv_iota(ND_FLOAT32, 1, (const int64_t[]){10}, devs[dv]);
        nd_array *bad = cv_make(ND_INT64, 1, (const int64_t[]){2}, (const double[]){3, 12}, devs[dv]);
        ND_EXPECT_ERR(nd_take(&r, a10, bad, 0, ND_TAKE_RAISE), ND_ERR_INVALID,
                      "index 12 is out of bounds for axis 0 with size 10");
        ck_assert_ptr_null(r);
        nd_array *neg = cv_make(ND_INT8, 1, (const int64_t[]){1}, (const double[]){-11}, devs[dv]);
        ND_EXPECT_ERR(nd_take(&r, a10, neg, 0, ND_TAKE_RAISE), ND_ERR_INVALID,
                      "index -11 is out of bounds for axis 0 with size 10");
        nd_array *fl = cv_make(ND_FLOAT64, 1, (const int64_t[]){1}, (const double[]){1}, devs[dv]);
        ND_EXPECT_ERR(nd_take(&r, a10, fl, 0, ND_TAKE_RAISE), ND_ERR_DTYPE, "integer dtype, got float64");
        nd_array *bl = cv_make(ND_BOOL, 1, (const int64_t[]){1}, (const double[]){1}, devs[dv]);
        ND_EXPECT_ERR(nd_take(&r, a10, bl, 0, ND_TAKE_RAISE), ND_ERR_DTYPE, "got bool");
        ND_EXPECT_ERR(nd_take(&r, a, i, 2, ND_TAKE_RAISE), ND_ERR_SHAPE,
                      "axis 2 is out of bounds for array of dimension 2");
        ND_EXPECT_ERR(nd_take(&r, a, i, -3, ND_TAKE_RAISE), ND_ERR_SHAPE, "axis -3 is out of bounds");
        ND_EXPECT_ERR(nd_take(&r, a0, i0, 1, ND_TAKE_RAISE), ND_ERR_SHAPE, "axis 1 is out of bounds");
        ND_EXPECT_ERR(nd_take(&r, a10, i0, 0, (nd_take_mode)7), ND_ERR_INVALID, "invalid mode 7");
        ND_EXPECT_ERR(nd_take(NULL, a10, i0, 0, ND_TAKE_RAISE), ND_ERR_INVALID, "'out' is NULL");
        ND_EXPECT_ERR(nd_take(&r, a10, NULL, 0, ND_TAKE_RAISE), ND_ERR_INVALID, "'indices' is NULL");
        nd_array *e = NULL;
        ND_OK_OR_FAIL(nd_empty(&e, ND_FLOAT32, 2, (const int64_t[]){3, 0}, devs[dv]));
        ND_EXPECT_ERR(nd_take(&r, e, z, 1, ND_TAKE_WRAP), ND_ERR_INVALID, "cannot do a non-empty take from an empty axes");
        /* a user out of the wrong shape; of a kind that cannot take the result */
        nd_array *wo = NULL;
        ND_OK_OR_FAIL(nd_empty(&wo, ND_FLOAT32, 1, (const int64_t[]){3}, devs[dv]));
        ND_EXPECT_ERR(nd_take(&wo, a10, bad, 0, ND_TAKE_CLIP), ND_ERR_SHAPE, "'out' has shape (3,)");
        nd_array *io = NULL;
        ND_OK_OR_FAIL(nd_empty(&io, ND_INT32, 1, (const int64_t[]){2}, devs[dv]));
        ND_EXPECT_ERR(nd_take(&io, a10, bad, 0, ND_TAKE_CLIP), ND_ERR_DTYPE, "");
        nd_release(io);
        nd_release(wo);
        nd_release(e);
        nd_release(bl);
        nd_release(fl);
        nd_release(neg);
        nd_release(bad);
        nd_release(a10);
        nd_release(ib);
        nd_release(i0);
        nd_release(a0);
        nd_release(z);
        nd_release(j);
        nd_release(i);
        nd_release(a);
    }
}
END_TEST

START_TEST(test_take_devices)
{
    if (nd_test_gpu_count() == 0) return;
    nd_array *a = cv_iota(ND_FLOAT32, 1, (const int64_t[]){4}, nd_cpu()), *r = NULL;
    nd_array *i = cv_make(ND_INT64, 1, (const int64_t[]){1}, (const double[]){1}, nd_cuda(0));
    ND_EXPECT_ERR(nd_take(&r, a, i, 0, ND_TAKE_RAISE), ND_ERR_DEVICE, "'indices' is on cuda:0");
    ND_EXPECT_ERR(nd_put(a, i, a, ND_TAKE_RAISE), ND_ERR_DEVICE, "");
    nd_release(a);
    nd_release(i);
}
END_TEST

/* take_along_axis / put_along_axis, random, with broadcasting */
START_TEST(test_along_axis_random)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    uint64_t s = 0xabcdefu + (uint64_t)_i;
    for (int c = 0; c < 60; c++) {
        int64_t ashape[ND_MAX_DIMS], ishape[ND_MAX_DIMS], bshape[ND_MAX_DIMS];
        int nd = rand_shape(&s, 3, ashape, false);
        nd_dtype t = rand_dtype(&s);
        bool none = ix_rand(&s) % 6 == 0;
        int64_t asz = ix_prod(nd, ashape);
        int gnd = none ? 1 : nd;
        int64_t gshape[ND_MAX_DIMS];
        if (none) gshape[0] = asz;
        else memcpy(gshape, ashape, sizeof(int64_t) * (size_t)nd);
        int ax = none ? 0 : (int)ix_range(&s, 0, nd - 1);
        int axis_arg = none ? ND_AXIS_NONE : (ix_rand(&s) % 2 ? ax - nd : ax);
        for (int d = 0; d < gnd; d++) {
            ishape[d] = d == ax ? ix_range(&s, 0, 4) : (ix_rand(&s) % 3 == 0 ? 1 : gshape[d]);
            bshape[d] = d == ax ? ishape[d] : gshape[d];
        }
        int64_t isz = ix_prod(gnd, ishape), bsz = ix_prod(gnd, bshape), n = gshape[ax];
        int64_t *iv = malloc(((size_t)isz + 1) * sizeof *iv);
        rand_indices(&s, iv, isz, n, ND_TAKE_RAISE);
        nd_dtype it = ix_index_dtype(&s, -n, n);
        double *av = ix_values(&s, t, asz);
        double *want = malloc(((size_t)bsz + 1) * sizeof *want);
        double *put_want = malloc(((size_t)asz + 1) * sizeof *put_want);
        memcpy(put_want, av, sizeof(double) * (size_t)asz);
        /* values of put: shape bshape */
        double *vv = ix_values(&s, t, bsz);
        for (int64_t p = 0; p < bsz; p++) {
            int64_t cb[ND_MAX_DIMS], ci[ND_MAX_DIMS], ca[ND_MAX_DIMS];
            ix_unravel(p, gnd, bshape, cb);
            for (int d = 0; d < gnd; d++) ci[d] = ishape[d] == 1 ? 0 : cb[d];
            int64_t j = norm_index(iv[ix_ravel(gnd, ishape, ci)], n, ND_TAKE_RAISE);
            memcpy(ca, cb, sizeof ca);
            ca[ax] = j;
            int64_t f = ix_ravel(gnd, gshape, ca);
            want[p] = av[f];
            put_want[f] = vv[p]; /* C order: the last one wins */
        }
        int layout = (int)(ix_rand(&s) % 4);
        for (int dv = 0; dv < ndev; dv++) {
            nd_array *a = ix_layout(t, nd, ashape, av, devs[dv], layout);
            nd_array *idx = ix_index_array(it, gnd, ishape, iv, devs[dv], (int)(ix_rand(&s) % 4));
            nd_array *o = NULL;
            char what[160];
            snprintf(what, sizeof what, "case %d dev %d: along %s axis %d", c, dv, nd_dtype_name(t), axis_arg);
            ND_OK_OR_FAIL(nd_take_along_axis(&o, a, idx, axis_arg));
            ix_expect(o, gnd, bshape, want, what);
            nd_release(o);
            /* put: values given as float64 (cast unsafe, exact here) or of a's dtype */
            nd_array *v = ix_layout(ix_rand(&s) % 2 ? ND_FLOAT64 : t, gnd, bshape, vv, devs[dv], (int)(ix_rand(&s) % 4));
            ND_OK_OR_FAIL(nd_put_along_axis(a, idx, v, axis_arg));
            ix_expect(a, nd, ashape, put_want, what);
            nd_release(v);
            nd_release(a);
            nd_release(idx);
        }
        free(vv);
        free(put_want);
        free(want);
        free(av);
        free(iv);
    }
}
END_TEST

START_TEST(test_along_axis_errors)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    for (int dv = 0; dv < ndev; dv++) {
        nd_array *a = cv_iota(ND_FLOAT32, 2, (const int64_t[]){2, 3}, devs[dv]), *r = NULL;
        nd_array *i1 = cv_make(ND_INT64, 1, (const int64_t[]){2}, (const double[]){0, 1}, devs[dv]);
        nd_array *i2 = cv_make(ND_INT64, 2, (const int64_t[]){2, 1}, (const double[]){2, -4}, devs[dv]);
        nd_array *i3 = cv_make(ND_INT64, 2, (const int64_t[]){3, 1}, (const double[]){0, 0, 0}, devs[dv]);
        ND_EXPECT_ERR(nd_take_along_axis(&r, a, i1, 1), ND_ERR_SHAPE, "same number of dimensions");
        ND_EXPECT_ERR(nd_take_along_axis(&r, a, i2, 1), ND_ERR_INVALID, "index -4 is out of bounds for axis 1 with size 3");
        ND_EXPECT_ERR(nd_take_along_axis(&r, a, i3, 1), ND_ERR_SHAPE, "do not broadcast");
        ND_EXPECT_ERR(nd_take_along_axis(&r, a, i2, ND_AXIS_NONE), ND_ERR_SHAPE, "single dimension");
        ND_EXPECT_ERR(nd_put_along_axis(a, i2, a, 1), ND_ERR_INVALID, "index -4 is out of bounds");
        nd_array *ok = cv_make(ND_INT64, 2, (const int64_t[]){2, 1}, (const double[]){2, 0}, devs[dv]);
        nd_array *v3 = cv_iota(ND_FLOAT32, 1, (const int64_t[]){3}, devs[dv]);
        ND_EXPECT_ERR(nd_put_along_axis(a, ok, v3, 1), ND_ERR_SHAPE, "could not be broadcast to indexing result of shape (2,1)");
        /* np.take_along_axis(a, [[2], [0]], 1) -> [[3], [4]] (a = arange(1, 7).reshape(2, 3)) */
        ND_OK_OR_FAIL(nd_take_along_axis(&r, a, ok, -1));
        cv_expect_values(r, 2, (const double[]){3, 4});
        nd_release(r), r = NULL;
        /* a broadcast view cannot be written */
        nd_array *bc = NULL;
        ND_OK_OR_FAIL(nd_broadcast_to(&bc, v3, 2, (const int64_t[]){2, 3}));
        ND_EXPECT_ERR(nd_put_along_axis(bc, ok, v3, 1), ND_ERR_INVALID, "broadcast view");
        nd_release(bc);
        nd_release(v3);
        nd_release(ok);
        nd_release(i3);
        nd_release(i2);
        nd_release(i1);
        nd_release(a);
    }
}
END_TEST

/* put: flat indices, cyclic values, modes, repeated indices (last wins),
 * a non-contiguous a (written through a copy and back). */
START_TEST(test_put_random)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    uint64_t s = 0x5151u + (uint64_t)_i;
    for (int c = 0; c < 60; c++) {
        int64_t ashape[ND_MAX_DIMS];
        int nd = rand_shape(&s, 3, ashape, false);
        nd_dtype t = rand_dtype(&s);
        int mode = (int)(ix_rand(&s) % 3);
        int64_t n = ix_prod(nd, ashape), k = ix_range(&s, 0, 12), nv = ix_range(&s, 1, 5);
        int64_t *iv = malloc(((size_t)k + 1) * sizeof *iv);
        rand_indices(&s, iv, k, n, mode);
        nd_dtype it = ix_index_dtype(&s, -3 * n - 2, 3 * n + 2);
        double *av = ix_values(&s, t, n), *vv = ix_values(&s, t, nv);
        double *want = malloc(((size_t)n + 1) * sizeof *want);
        memcpy(want, av, sizeof(double) * (size_t)n);
        for (int64_t q = 0; q < k; q++) want[norm_index(iv[q], n, mode)] = vv[q % nv];
        int layout = (int)(ix_rand(&s) % 4);
        for (int dv = 0; dv < ndev; dv++) {
            nd_array *a = ix_layout(t, nd, ashape, av, devs[dv], layout);
            nd_array *idx = ix_index_array(it, 1, &k, iv, devs[dv], (int)(ix_rand(&s) % 4));
            nd_array *v = ix_layout(t, 1, &nv, vv, devs[dv], 0);
            ND_OK_OR_FAIL(nd_put(a, idx, v, (nd_take_mode)mode));
            char what[120];
            snprintf(what, sizeof what, "case %d dev %d: put %s mode %d layout %d", c, dv, nd_dtype_name(t), mode, layout);
            ix_expect(a, nd, ashape, want, what);
            nd_release(v);
            nd_release(idx);
            nd_release(a);
        }
        free(want);
        free(vv);
        free(av);
        free(iv);
    }
}
END_TEST

START_TEST(test_put_numpy)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    for (int dv = 0; dv < ndev; dv++) {
        /* b = np.zeros(5, np.int32); np.put(b, [0, 1, 2, 3], [7, 8]) -> [7, 8, 7, 8, 0] */
        nd_array *b = NULL;
        ND_OK_OR_FAIL(nd_zeros(&b, ND_INT32, 1, (const int64_t[]){5}, devs[dv]));
        nd_array *i4 = cv_make(ND_INT64, 1, (const int64_t[]){4}, (const double[]){0, 1, 2, 3}, devs[dv]);
        nd_array *v2 = cv_make(ND_INT32, 1, (const int64_t[]){2}, (const double[]){7, 8}, devs[dv]);
        ND_OK_OR_FAIL(nd_put(b, i4, v2, ND_TAKE_RAISE));
        cv_expect_values(b, 5, (const double[]){7, 8, 7, 8, 0});
        /* np.put(b, [0, 0], [7, 8]) -> b[0] == 8 (last wins) */
        nd_array *i00 = cv_make(ND_INT64, 1, (const int64_t[]){2}, (const double[]){0, 0}, devs[dv]);
        nd_array *v78 = cv_make(ND_INT32, 1, (const int64_t[]){2}, (const double[]){3, 9}, devs[dv]);
        ND_OK_OR_FAIL(nd_put(b, i00, v78, ND_TAKE_RAISE));
        cv_expect_values(b, 5, (const double[]){9, 8, 7, 8, 0});
        /* np.put(b, [0, 1, 2], [1.7, 2.5, -3.2]) -> unsafe cast: [1, 2, -3, 8, 0] */
        nd_array *i3 = cv_make(ND_INT8, 1, (const int64_t[]){3}, (const double[]){0, 1, 2}, devs[dv]);
        nd_array *vf = cv_make(ND_FLOAT64, 1, (const int64_t[]){3}, (const double[]){1.7, 2.5, -3.2}, devs[dv]);
        ND_OK_OR_FAIL(nd_put(b, i3, vf, ND_TAKE_RAISE));
        cv_expect_values(b, 5, (const double[]){1, 2, -3, 8, 0});
        /* errors; an empty values is a no-op (NumPy) */
        nd_array *i7 = cv_make(ND_INT64, 1, (const int64_t[]){1}, (const double[]){7}, devs[dv]);
        ND_EXPECT_ERR(nd_put(b, i7, v2, ND_TAKE_RAISE), ND_ERR_INVALID, "index 7 is out of bounds for axis 0 with size 5");
        cv_expect_values(b, 5, (const double[]){1, 2, -3, 8, 0});
        nd_array *ve = NULL;
        ND_OK_OR_FAIL(nd_empty(&ve, ND_INT32, 1, (const int64_t[]){0}, devs[dv]));
        ND_OK_OR_FAIL(nd_put(b, i3, ve, ND_TAKE_RAISE));
        cv_expect_values(b, 5, (const double[]){1, 2, -3, 8, 0});
        nd_array *e = NULL;
        ND_OK_OR_FAIL(nd_empty(&e, ND_INT32, 1, (const int64_t[]){0}, devs[dv]));
        ND_EXPECT_ERR(nd_put(e, i3, v2, ND_TAKE_WRAP), ND_ERR_INVALID, "cannot replace elements of an empty array");
        ND_EXPECT_ERR(nd_put(NULL, i3, v2, ND_TAKE_WRAP), ND_ERR_INVALID, "'a' is NULL");
        nd_release(e);
        nd_release(ve);
        nd_release(i7);
        nd_release(vf);
        nd_release(i3);
        nd_release(v78);
        nd_release(i00);
        nd_release(v2);
        nd_release(i4);
        nd_release(b);
    }
}
END_TEST

/* add.at / maximum.at / minimum.at: repeated indices accumulate; index
 * arrays of any shape; values broadcast; reference in C order. */
START_TEST(test_ufunc_at_random)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    uint64_t s = 0x77aa11u + (uint64_t)_i;
    for (int c = 0; c < 60; c++) {
        int64_t ashape[ND_MAX_DIMS], ishape[ND_MAX_DIMS];
        int nd = rand_shape(&s, 3, ashape, false);
        nd_dtype t = rand_dtype(&s);
        int op = (int)(ix_rand(&s) % 3);
        int64_t n = ashape[0], asz = ix_prod(nd, ashape), R = asz / n;
        int ind = (int)ix_range(&s, 0, 2);
        for (int d = 0; d < ind; d++) ishape[d] = ix_range(&s, 0, 4);
        int64_t k = ix_prod(ind, ishape);
        int64_t *iv = malloc(((size_t)k + 1) * sizeof *iv);
        for (int64_t q = 0; q < k; q++) iv[q] = ix_range(&s, -n, n - 1) % 2 ? ix_range(&s, -n, n - 1) : 0; /* repeats */
        nd_dtype it = ix_index_dtype(&s, -n, n);
        double *av = ix_values(&s, t, asz);
        /* values: full (k, rest) or just the rest (broadcast) */
        bool full = ix_rand(&s) % 2;
        int vnd = full ? ind + nd - 1 : nd - 1;
        int64_t vshape[ND_MAX_DIMS];
        int r = 0;
        if (full)
            for (int d = 0; d < ind; d++) vshape[r++] = ishape[d];
        for (int d = 1; d < nd; d++) vshape[r++] = ashape[d];
        int64_t vsz = ix_prod(vnd, vshape);
        double *vv = ix_values(&s, t, vsz);
        if (t == ND_UINT8 || t == ND_UINT16 || t == ND_UINT32 || t == ND_UINT64 || t == ND_INT8)
            for (int64_t i = 0; i < vsz; i++) vv[i] = fmod(fabs(vv[i]), 6); /* no wrap-around in the reference */
        if (t == ND_INT8)
            for (int64_t i = 0; i < asz; i++) av[i] = fmod(av[i], 20);
        double *want = malloc(((size_t)asz + 1) * sizeof *want);
        memcpy(want, av, sizeof(double) * (size_t)asz);
        for (int64_t q = 0; q < k; q++)
            for (int64_t u = 0; u < R; u++) {
                double *d = &want[norm_index(iv[q], n, 0) * R + u], x = vv[full ? q * R + u : u];
                if (t == ND_BOOL) *d = op == 0 ? (*d || x) : op == 1 ? (*d || x) : (*d && x);
                else *d = op == 0 ? *d + x : op == 1 ? fmax(*d, x) : fmin(*d, x);
            }
        int layout = (int)(ix_rand(&s) % 4);
        for (int dv = 0; dv < ndev; dv++) {
            nd_array *a = ix_layout(t, nd, ashape, av, devs[dv], layout);
            nd_array *idx = ix_index_array(it, ind, ishape, iv, devs[dv], ind ? (int)(ix_rand(&s) % 4) : 0);
            nd_array *v = ix_layout(t, vnd, vshape, vv, devs[dv], vnd ? (int)(ix_rand(&s) % 4) : 0);
            nd_status st = op == 0 ? nd_add_at(a, idx, v) : op == 1 ? nd_maximum_at(a, idx, v) : nd_minimum_at(a, idx, v);
            if (op != 0 && (t == ND_COMPLEX64 || t == ND_COMPLEX128)) { /* complex numbers have no order */
                ck_assert_msg(st == ND_ERR_DTYPE && strstr(nd_last_error(), "complex"), "%s", nd_last_error());
                nd_release(a), nd_release(idx), nd_release(v);
                continue;
            }
            ck_assert_msg(st == ND_OK, "%s", nd_last_error());
            char what[120];
            snprintf(what, sizeof what, "case %d dev %d: ufunc.at op %d %s", c, dv, op, nd_dtype_name(t));
            ix_expect(a, nd, ashape, want, what);
            nd_release(v);
            nd_release(idx);
            nd_release(a);
        }
        free(want);
        free(vv);
        free(av);
        free(iv);
    }
}
END_TEST

START_TEST(test_ufunc_at_numpy)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    for (int dv = 0; dv < ndev; dv++) {
        /* x = np.zeros(4, np.float16); np.add.at(x, [0, 0, 0, 3], np.float16(0.1)) -> float16 rounding
         * each step: [0.2998046875, 0, 0, 0.0999755859375] (NumPy 2.4; 0.30004882 if every step rounded
         * only at the end, or with float64 values, which NumPy adds unrounded) */
        nd_array *x = NULL;
        ND_OK_OR_FAIL(nd_zeros(&x, ND_FLOAT16, 1, (const int64_t[]){4}, devs[dv]));
        nd_array *i = cv_make(ND_INT64, 1, (const int64_t[]){4}, (const double[]){0, 0, 0, 3}, devs[dv]);
        nd_array *v = cv_make(ND_FLOAT16, 0, NULL, (const double[]){0.1}, devs[dv]);
        ND_OK_OR_FAIL(nd_add_at(x, i, v));
        cv_expect_values(x, 4, (const double[]){0.2998046875, 0, 0, 0.0999755859375});
        /* np.maximum.at(f, [1, 1], [nan, 2]) on f = [1, 1, 1] float32 -> [1, nan, 1] */
        nd_array *f = NULL;
        ND_OK_OR_FAIL(nd_ones(&f, ND_FLOAT32, 1, (const int64_t[]){3}, devs[dv]));
        nd_array *i11 = cv_make(ND_UINT16, 1, (const int64_t[]){2}, (const double[]){1, 1}, devs[dv]);
        nd_array *vn = cv_make(ND_FLOAT32, 1, (const int64_t[]){2}, (const double[]){NAN, 2}, devs[dv]);
        ND_OK_OR_FAIL(nd_maximum_at(f, i11, vn));
        cv_expect_values(f, 3, (const double[]){1, NAN, 1});
        ND_OK_OR_FAIL(nd_minimum_at(f, i11, vn));
        cv_expect_values(f, 3, (const double[]){1, NAN, 1});
        /* int8 wraps: np.add.at(np.array([100], np.int8), [0, 0], 100) -> [44] */
        nd_array *b = cv_make(ND_INT8, 1, (const int64_t[]){1}, (const double[]){100}, devs[dv]);
        nd_array *i0 = cv_make(ND_INT32, 1, (const int64_t[]){2}, (const double[]){0, -1}, devs[dv]);
        nd_array *h = cv_make(ND_INT64, 0, NULL, (const double[]){100}, devs[dv]);
        ND_OK_OR_FAIL(nd_add_at(b, i0, h));
        cv_expect_values(b, 1, (const double[]){44});
        /* errors */
        nd_array *x2 = NULL;
        ND_OK_OR_FAIL(nd_zeros(&x2, ND_FLOAT64, 2, (const int64_t[]){3, 4}, devs[dv]));
        nd_array *i5 = cv_make(ND_INT64, 1, (const int64_t[]){1}, (const double[]){5}, devs[dv]);
        ND_EXPECT_ERR(nd_add_at(x2, i5, v), ND_ERR_INVALID, "index 5 is out of bounds for axis 0 with size 3");
        nd_array *v3 = cv_iota(ND_FLOAT64, 1, (const int64_t[]){3}, devs[dv]);
        ND_EXPECT_ERR(nd_add_at(x2, i0, v3), ND_ERR_SHAPE, "could not be broadcast");
        ND_EXPECT_ERR(nd_add_at(h, i0, v3), ND_ERR_INVALID, "0-dimensional");
        nd_release(v3);
        nd_release(i5);
        nd_release(x2);
        nd_release(h);
        nd_release(i0);
        nd_release(b);
        nd_release(vn);
        nd_release(i11);
        nd_release(f);
        nd_release(v);
        nd_release(i);
        nd_release(x);
    }
}
END_TEST

/* add.at / maximum.at / minimum.at on 1- and 2-byte elements at the very
 * end of an allocation of every small size: the device updates such an
 * element with a 32-bit compare-and-swap, which must stay inside the
 * allocation (with ND_POOL=0 under emu-asan every array is an exact
 * allocation, so a read past its end is reported). */
START_TEST(test_ufunc_at_small_elements_at_the_end)
{
    static const nd_dtype types[] = {ND_UINT8, ND_INT8, ND_INT16, ND_UINT16, ND_FLOAT16, ND_BFLOAT16};
    nd_device devs[2];
    int ndev = ix_devices(devs);
    for (int dv = 0; dv < ndev; dv++)
        for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
            for (int64_t n = 1; n <= 9; n++)
                for (int op = 0; op < 3; op++) {
                    nd_dtype t = types[ti];
                    double av[9], want[9];
                    for (int64_t i = 0; i < n; i++) av[i] = want[i] = (double)(i % 5 + 1);
                    nd_array *a = cv_make(t, 1, &n, av, devs[dv]);
                    double iv[3] = {(double)(n - 1), (double)(n - 1), 0}, vv[3] = {2, 7, 3};
                    nd_array *idx = cv_make(ND_INT64, 1, (const int64_t[]){3}, iv, devs[dv]);
                    nd_array *v = cv_make(t, 1, (const int64_t[]){3}, vv, devs[dv]);
                    for (int q = 0; q < 3; q++) {
                        int64_t j = (int64_t)iv[q];
                        want[j] = op == 0 ? want[j] + vv[q] : op == 1 ? fmax(want[j], vv[q]) : fmin(want[j], vv[q]);
                    }
                    nd_status st = op == 0 ? nd_add_at(a, idx, v) : op == 1 ? nd_maximum_at(a, idx, v) : nd_minimum_at(a, idx, v);
                    ck_assert_msg(st == ND_OK, "dtype %d n %lld op %d: %s", (int)t, (long long)n, op, nd_last_error());
                    cv_expect_values(a, n, want);
                    nd_release(v), nd_release(idx), nd_release(a);
                }
}
END_TEST

/* A large take (threads, row copies) against the reference. */
START_TEST(test_take_large)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    const int64_t N = 20000, C = 16, K = 30000;
    float *av = malloc(sizeof(float) * (size_t)(N * C));
    int64_t *iv = malloc(sizeof(int64_t) * (size_t)K);
    uint64_t s = 99;
    for (int64_t i = 0; i < N * C; i++) av[i] = (float)(i % 1000 + 1);
    for (int64_t i = 0; i < K; i++) iv[i] = ix_range(&s, -N, N - 1);
    for (int dv = 0; dv < ndev; dv++) {
        nd_array *a = NULL, *idx = NULL, *r = NULL;
        ND_OK_OR_FAIL(nd_from_host(&a, av, ND_FLOAT32, 2, (const int64_t[]){N, C}, devs[dv]));
        ND_OK_OR_FAIL(nd_from_host(&idx, iv, ND_INT64, 1, &K, devs[dv]));
        ND_OK_OR_FAIL(nd_take(&r, a, idx, 0, ND_TAKE_RAISE));
        float *got = malloc(sizeof(float) * (size_t)(K * C));
        ND_OK_OR_FAIL(nd_copy_to_host(got, r, nd_nbytes(r)));
        for (int64_t q = 0; q < K; q++) {
            int64_t j = iv[q] < 0 ? iv[q] + N : iv[q];
            ck_assert_msg(memcmp(got + q * C, av + j * C, sizeof(float) * (size_t)C) == 0, "row %lld", (long long)q);
        }
        free(got);
        nd_release(r);
        nd_release(idx);
        nd_release(a);
    }
    free(iv);
    free(av);
}
END_TEST

/* The result is allocated before the indices are checked: a take whose
 * result cannot exist (here past a memory limit; 2^34 indices of a
 * stride-0 view) is ND_ERR_NOMEM at once, even with an index out of range,
 * instead of first reducing every index. */
START_TEST(test_take_allocates_first)
{
    nd_device devs[2];
    int ndev = ix_devices(devs);
    for (int dv = 0; dv < ndev; dv++) {
        nd_array *a = NULL, *one = NULL, *idx = NULL, *r = NULL;
        ND_OK_OR_FAIL(nd_zeros(&a, ND_FLOAT32, 2, (const int64_t[]){4, 5}, devs[dv]));
        ND_OK_OR_FAIL(nd_full(&one, ND_INT64, 1, (const int64_t[]){1}, nd_scalar_int(7), devs[dv]));
        ND_OK_OR_FAIL(nd_broadcast_to(&idx, one, 1, (const int64_t[]){INT64_C(1) << 34}));
        nd_memory_stats ms;
        ND_OK_OR_FAIL(nd_memory_get_stats(&ms, devs[dv]));
        ND_OK_OR_FAIL(nd_memory_set_limit(devs[dv], ms.in_use + (1u << 20)));
        nd_status st = nd_take(&r, a, idx, 1, ND_TAKE_RAISE);
        ND_OK_OR_FAIL(nd_memory_set_limit(devs[dv], 0));
        ck_assert_msg(st == ND_ERR_NOMEM, "take -> %s: %s", nd_status_name(st), nd_last_error());
        ck_assert_ptr_null(r);
        /* within memory the index is still checked */
        nd_array *few = NULL;
        ND_OK_OR_FAIL(nd_broadcast_to(&few, one, 1, (const int64_t[]){3}));
        ND_EXPECT_ERR(nd_take(&r, a, few, 1, ND_TAKE_RAISE), ND_ERR_INVALID, "index 7 is out of bounds for axis 1 with size 5");
        ck_assert_ptr_null(r);
        nd_array *o = NULL;
        ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT32, 2, (const int64_t[]){4, 3}, devs[dv]));
        nd_array *o0 = o;
        ND_EXPECT_ERR(nd_take(&o, a, few, 1, ND_TAKE_RAISE), ND_ERR_INVALID, "index 7 is out of bounds");
        ck_assert_ptr_eq(o, o0);
        nd_release(o), nd_release(few), nd_release(idx), nd_release(one), nd_release(a);
    }
}
END_TEST

Suite *suite_index(void)
{
    Suite *s = suite_create("index");
    TCase *tc = tcase_create("index");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_take_random, 0, 3);
    tcase_add_test(tc, test_take_numpy);
    tcase_add_test(tc, test_take_devices);
    tcase_add_loop_test(tc, test_along_axis_random, 0, 3);
    tcase_add_test(tc, test_along_axis_errors);
    tcase_add_loop_test(tc, test_put_random, 0, 3);
    tcase_add_test(tc, test_put_numpy);
    tcase_add_loop_test(tc, test_ufunc_at_random, 0, 3);
    tcase_add_test(tc, test_ufunc_at_numpy);
    tcase_add_test(tc, test_ufunc_at_small_elements_at_the_end);
    tcase_add_test(tc, test_take_large);
    tcase_add_test(tc, test_take_allocates_first);
    suite_add_tcase(s, tc);
    return s;
}
