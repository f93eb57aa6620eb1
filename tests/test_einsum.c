/* nd_einsum (suite "einsum"): many random valid subscripts strings (1 to
 * 4 operands, repeated labels = diagonals, '...' broadcasting, size-1
 * extents broadcasting, implicit and explicit outputs, spaces) on random
 * dtypes and layouts, against a brute-force reference that loops over
 * every value of every label (exact integers; 16-bit floats within a
 * bound of their rounding), on the CPU and cuda:0 when present; NumPy 2.4
 * values pasted for tricky strings; malformed strings with NumPy's
 * messages and exact statuses. */
#include "manip_util.h"

typedef struct {
    char subs[256];
    int n;
    nd_array *ops[4];
    mp_t ref[4];
    int nd[4];
    int lab[4][8];  /* label of each operand axis (0..51 letters, 52+ broadcast dims) */
    int olab[16], no;
    int64_t ext[64];
} ecase;

static char letter(int l) { return l < 26 ? (char)('a' + l) : (char)('A' + l - 26); }

/* A random valid einsum problem. */
static void make_case(mp_rng *r, nd_device dev, ecase *c, nd_dtype *dts)
{
    memset(c, 0, sizeof *c);
    int nl = (int)mp_int(r, 1, 5), pool[5];
    for (int i = 0; i < nl; i++) {
        bool dup;
        do {
            pool[i] = (int)mp_int(r, 0, 51);
            dup = false;
            for (int j = 0; j < i; j++) dup = dup || pool[j] == pool[i];
        } while (dup);
        c->ext[pool[i]] = mp_int(r, 0, 12) == 0 ? 0 : mp_int(r, 1, 3);
    }
    int nbc = mp_int(r, 0, 2) == 0 ? (int)mp_int(r, 1, 2) : 0; /* broadcast dims of '...' */
    for (int b = 0; b < nbc; b++) c->ext[52 + b] = mp_int(r, 1, 3);
    c->n = (int)mp_int(r, 1, 4);
    int count[64] = {0};
    size_t k = 0;
    bool any_ell = false;
    for (int i = 0; i < c->n; i++) {
        int nlab = (int)mp_int(r, 0, 3), labs[4];
        for (int j = 0; j < nlab; j++) labs[j] = pool[mp_int(r, 0, nl - 1)];
        bool ell = nbc > 0 && mp_int(r, 0, 1);
        int nb = ell ? (int)mp_int(r, 0, nbc) : 0, epos = (int)mp_int(r, 0, nlab);
        any_ell = any_ell || ell;
        int64_t shape[8];
        int d = 0;
        for (int j = 0; j <= nlab; j++) {
            if (ell && j == epos) {
                c->subs[k++] = '.', c->subs[k++] = '.', c->subs[k++] = '.';
                for (int b = 0; b < nb; b++) c->lab[i][d++] = 52 + nbc - nb + b;
            }
            if (j == nlab) break;
            if (mp_int(r, 0, 5) == 0) c->subs[k++] = ' ';
            c->subs[k++] = letter(labs[j]);
            c->lab[i][d++] = labs[j];
        }
        c->nd[i] = d;
        for (int j = 0; j < d; j++) {
            int l = c->lab[i][j];
            count[l]++;
            bool rep = false;
            for (int e = 0; e < d; e++) rep = rep || (e != j && c->lab[i][e] == l);
            shape[j] = (!rep && mp_int(r, 0, 5) == 0) ? 1 : c->ext[l]; /* size-1 broadcasting */
        }
        c->ops[i] = mp_input(r, dts[i], d, shape, (int)mp_int(r, 0, MP_NLAYOUTS - 1), 3, dev, &c->ref[i]);
        if (i < c->n - 1) c->subs[k++] = ',';
    }
    /* broadcast dims only some operand has: extents as the operands give them */
    if (mp_int(r, 0, 2) == 0) {
        /* implicit output: broadcast dims first, then the labels used once, in ASCII order */
        int maxnb = 0;
        for (int i = 0; i < c->n; i++) {
            int nb = 0;
            for (int j = 0; j < c->nd[i]; j++) nb += c->lab[i][j] >= 52;
            if (nb > maxnb) maxnb = nb;
        }
        for (int b = 0; b < maxnb; b++) c->olab[c->no++] = 52 + nbc - maxnb + b;
        for (int l = 26; l < 52; l++) /* 'A'..'Z' first */
            if (count[l] == 1) c->olab[c->no++] = l;
        for (int l = 0; l < 26; l++)
            if (count[l] == 1) c->olab[c->no++] = l;
    } else {
        c->subs[k++] = '-', c->subs[k++] = '>';
        int maxnb = 0;
        for (int i = 0; i < c->n; i++) {
            int nb = 0;
            for (int j = 0; j < c->nd[i]; j++) nb += c->lab[i][j] >= 52;
            if (nb > maxnb) maxnb = nb;
        }
        bool used[64] = {false};
        int nout = (int)mp_int(r, 0, 4);
        bool put_ell = maxnb > 0 || (any_ell && mp_int(r, 0, 1));
        int epos = (int)mp_int(r, 0, nout);
        for (int j = 0; j <= nout; j++) {
            if (put_ell && j == epos) {
                c->subs[k++] = '.', c->subs[k++] = '.', c->subs[k++] = '.';
                for (int b = 0; b < maxnb; b++) c->olab[c->no++] = 52 + nbc - maxnb + b;
            }
            if (j == nout) break;
            int l = pool[mp_int(r, 0, nl - 1)];
            if (count[l] == 0 || used[l]) continue;
            used[l] = true;
            c->subs[k++] = letter(l);
            c->olab[c->no++] = l;
        }
    }
    c->subs[k] = '\0';
}

/* the extent of label l as the operands give it (size 1 broadcasts) */
static int64_t label_ext(const ecase *c, int l)
{
    int64_t e = 1;
    for (int i = 0; i < c->n; i++)
        for (int j = 0; j < c->nd[i]; j++)
            if (c->lab[i][j] == l && c->ref[i].shape[j] != 1) e = c->ref[i].shape[j];
    return e;
}

/* brute force over every label value; also the sum of |products| */
static mp_t reference(const ecase *c, mp_t *absref)
{
    int labs[64], nlab = 0;
    int64_t ext[64];
    bool seen[64] = {false};
    for (int i = 0; i < c->n; i++)
        for (int j = 0; j < c->nd[i]; j++)
            if (!seen[c->lab[i][j]]) seen[c->lab[i][j]] = true, labs[nlab++] = c->lab[i][j];
    int64_t total = 1, oshape[16];
    for (int i = 0; i < nlab; i++) ext[labs[i]] = label_ext(c, labs[i]), total *= ext[labs[i]];
    for (int i = 0; i < c->no; i++) oshape[i] = label_ext(c, c->olab[i]);
    mp_t out = mp_new(c->no, oshape);
    *absref = mp_new(c->no, oshape);
    int64_t val[64], idx[8], oidx[16];
    for (int64_t f = 0; f < total; f++) {
        int64_t q = f;
        for (int i = nlab - 1; i >= 0; i--) val[labs[i]] = q % ext[labs[i]], q /= ext[labs[i]];
        double p = 1;
        for (int i = 0; i < c->n; i++) {
            for (int j = 0; j < c->nd[i]; j++) idx[j] = c->ref[i].shape[j] == 1 ? 0 : val[c->lab[i][j]];
            p *= c->ref[i].v[mp_ravel(&c->ref[i], idx)];
        }
        for (int i = 0; i < c->no; i++) oidx[i] = val[c->olab[i]];
        int64_t o = mp_ravel(&out, oidx);
        out.v[o] += p;
        absref->v[o] += fabs(p);
    }
    return out;
}


static void run_random(uint64_t seed, int ncases)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    for (int dv = 0; dv < ndev; dv++) {
        mp_rng r = {seed};
        for (int it = 0; it < ncases; it++) {
            nd_dtype dts[4], R;
            int mode = (int)mp_int(r.s ? &r : &r, 0, 2);
            dts[0] = mp_dtype(&r);
            for (int i = 1; i < 4; i++) dts[i] = mode == 0 ? mp_dtype(&r) : dts[0];
            ecase c;
            make_case(&r, devs[dv], &c, dts);
            R = dts[0];
            for (int i = 1; i < c.n; i++) ND_OK_OR_FAIL(nd_result_type(&R, R, dts[i]));
            mp_t absr, ref = reference(&c, &absr);
            nd_array *res = mp_int(&r, 0, 2) ? NULL : NULL;
            if (mp_int(&r, 0, 2) == 0) {
                ND_OK_OR_FAIL(nd_empty(&res, R, ref.ndim, ref.shape, devs[dv]));
                cv_poison(res, 77);
            }
            nd_array *given = res;
            if (getenv("MP_EINSUM_DEBUG")) fprintf(stderr, "%s  %s\n", c.subs, nd_dtype_name(R));
            nd_status st = nd_einsum(&res, c.subs, c.n, (const nd_array *const *)c.ops);
            ck_assert_msg(st == ND_OK, "case %d '%s' (%s): %s", it, c.subs, nd_dtype_name(R), nd_last_error());
            if (given) ck_assert_ptr_eq(res, given);
            ck_assert_msg(nd_dtype_of(res) == R, "'%s': dtype %s, want %s", c.subs, nd_dtype_name(nd_dtype_of(res)), nd_dtype_name(R));
            ck_assert_msg(nd_ndim(res) == ref.ndim, "'%s': ndim %d, want %d", c.subs, nd_ndim(res), ref.ndim);
            for (int i = 0; i < ref.ndim; i++) ck_assert_msg(nd_shape(res)[i] == ref.shape[i], "'%s': axis %d", c.subs, i);
            double *v = cv_values(res);
            bool half = R == ND_FLOAT16 || R == ND_BFLOAT16;
            for (int64_t i = 0; i < ref.size; i++) {
                double want = cv_round(R, ref.v[i]);
                bool ok = half ? fabs(v[i] - ref.v[i]) <= (R == ND_BFLOAT16 ? 0.02 : 0.004) * absr.v[i] : v[i] == want;
                ck_assert_msg(ok, "case %d '%s' %s on %s: element %lld got %.17g want %.17g", it, c.subs, nd_dtype_name(R),
                              dv ? "cuda" : "cpu", (long long)i, v[i], want);
            }
            free(v), free(ref.v), free(absr.v);
            nd_release(res);
            for (int i = 0; i < c.n; i++) nd_release(c.ops[i]), free(c.ref[i].v);
        }
    }
}

START_TEST(test_einsum_random) { run_random(101 + (uint64_t)_i, 250); }
END_TEST

/* NumPy 2.4 values (pasted) for tricky strings */
START_TEST(test_einsum_numpy)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    for (int d = 0; d < ndev; d++) {
        nd_device dev = devs[d];
        nd_array *x = cv_iota(ND_INT64, 2, (const int64_t[]){3, 4}, dev), *y0 = cv_iota(ND_INT64, 2, (const int64_t[]){4, 3}, dev);
        nd_array *y = NULL, *z = cv_iota(ND_INT32, 3, (const int64_t[]){3, 3, 3}, dev), *r = NULL;
        ND_OK_OR_FAIL(nd_binary_scalar(&y, ND_BINARY_SUBTRACT, y0, nd_scalar_int(5))); /* np.arange(1, 13).reshape(4, 3) - 5 */
        ND_OK_OR_FAIL(nd_einsum(&r, "ij,jk,kl->il", 3, (const nd_array *[]){x, y, x}));
        cv_expect_values(r, 12, (const double[]){530, 620, 710, 800, 1018, 1180, 1342, 1504, 1506, 1740, 1974, 2208});
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_einsum(&r, "...ii->...i", 1, (const nd_array *[]){z}));
        cv_expect_values(r, 9, (const double[]){1, 5, 9, 10, 14, 18, 19, 23, 27});
        nd_release(r), r = NULL;
        nd_array *z0 = NULL, *z1 = NULL;
        ND_OK_OR_FAIL(nd_slice(&z0, z, 1, (const nd_range[]){{0, 1, 1}}));
        ND_OK_OR_FAIL(nd_slice(&z1, z, 1, (const nd_range[]){{1, 2, 1}}));
        nd_array *z0s = NULL, *z1s = NULL;
        ND_OK_OR_FAIL(nd_squeeze(&z0s, z0, 1, (const int[]){0}));
        ND_OK_OR_FAIL(nd_squeeze(&z1s, z1, 1, (const int[]){0}));
        ND_OK_OR_FAIL(nd_einsum(&r, "i...,...i->...", 2, (const nd_array *[]){z0s, z1s}));
        cv_expect_values(r, 3, (const double[]){138, 216, 312});
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_einsum(&r, "iij->j", 1, (const nd_array *[]){z}));
        cv_expect_values(r, 3, (const double[]){39, 42, 45});
        ck_assert_int_eq(nd_dtype_of(r), ND_INT32);
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_einsum(&r, "iii", 1, (const nd_array *[]){z}));
        cv_expect_shape(r, 0, NULL);
        cv_expect_values(r, 1, (const double[]){42});
        nd_release(r), r = NULL;
        const double xyT[9] = {20, 28, 36, 30, 54, 78, 40, 80, 120};
        ND_OK_OR_FAIL(nd_einsum(&r, "Ba,aA", 2, (const nd_array *[]){x, y})); /* implicit: 'AB' (ASCII order) */
        cv_expect_values(r, 9, xyT);
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_einsum(&r, " i j , j k -> k i ", 2, (const nd_array *[]){x, y}));
        cv_expect_values(r, 9, xyT);
        nd_release(r), r = NULL;
        /* int8 wraps in int8 as NumPy's: np.einsum('i,j->ji', [1, 2], [100, 3]) (int8) and 'i->' of [100, 100] */
        nd_array *p = cv_make(ND_INT8, 1, (const int64_t[]){2}, (const double[]){1, 2}, dev);
        nd_array *q = cv_make(ND_INT8, 1, (const int64_t[]){2}, (const double[]){100, 3}, dev);
        nd_array *h = cv_make(ND_INT8, 1, (const int64_t[]){2}, (const double[]){100, 100}, dev);
        ND_OK_OR_FAIL(nd_einsum(&r, "i,j->ji", 2, (const nd_array *[]){p, q}));
        ck_assert_int_eq(nd_dtype_of(r), ND_INT8);
        cv_expect_values(r, 4, (const double[]){100, -56, 3, 6});
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_einsum(&r, "i->", 1, (const nd_array *[]){h}));
        ck_assert_int_eq(nd_dtype_of(r), ND_INT8);
        cv_expect_values(r, 1, (const double[]){-56});
        nd_release(r), r = NULL;
        /* bool: or of ands */
        nd_array *b1 = cv_make(ND_BOOL, 2, (const int64_t[]){2, 2}, (const double[]){1, 0, 0, 0}, dev);
        nd_array *b2 = cv_make(ND_BOOL, 2, (const int64_t[]){2, 2}, (const double[]){1, 1, 0, 1}, dev);
        ND_OK_OR_FAIL(nd_einsum(&r, "ij,jk->ik", 2, (const nd_array *[]){b1, b2}));
        ck_assert_int_eq(nd_dtype_of(r), ND_BOOL);
        cv_expect_values(r, 4, (const double[]){1, 1, 0, 0});
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_einsum(&r, "ij->", 1, (const nd_array *[]){b2}));
        ck_assert_int_eq(nd_dtype_of(r), ND_BOOL);
        cv_expect_values(r, 1, (const double[]){1});
        nd_release(r), r = NULL;
        /* uint8 wraps: np.einsum('ij,j->i', x.astype(np.uint8), np.array([200, 100, 50, 25], np.uint8)) */
        nd_array *xu = NULL, *w = cv_make(ND_UINT8, 1, (const int64_t[]){4}, (const double[]){200, 100, 50, 25}, dev);
        ND_OK_OR_FAIL(nd_astype(&xu, x, ND_UINT8));
        ND_OK_OR_FAIL(nd_einsum(&r, "ij,j->i", 2, (const nd_array *[]){xu, w}));
        cv_expect_values(r, 3, (const double[]){138, 102, 66});
        nd_release(r), r = NULL;
        nd_release(xu), nd_release(w), nd_release(b1), nd_release(b2), nd_release(p), nd_release(q), nd_release(h);
        nd_release(z0), nd_release(z1), nd_release(z0s), nd_release(z1s);
        nd_release(x), nd_release(y0), nd_release(y), nd_release(z);
    }
}
END_TEST

START_TEST(test_einsum_errors)
{
    nd_array *a = cv_iota(ND_FLOAT32, 2, (const int64_t[]){2, 3}, nd_cpu()), *b = cv_iota(ND_FLOAT32, 2, (const int64_t[]){4, 4}, nd_cpu());
    nd_array *v = cv_iota(ND_FLOAT32, 1, (const int64_t[]){2}, nd_cpu()), *r = NULL;
    const nd_array *A[1] = {a}, *AB[2] = {a, b}, *V[1] = {v};
    ND_EXPECT_ERR(nd_einsum(&r, "ij,jk->ik", 1, A), ND_ERR_INVALID, "more operands provided to einstein sum function than specified in the subscripts string");
    ND_EXPECT_ERR(nd_einsum(&r, "ij->ij", 2, AB), ND_ERR_INVALID, "fewer operands provided to einstein sum function than specified in the subscripts string");
    ND_EXPECT_ERR(nd_einsum(&r, "ijk", 1, A), ND_ERR_INVALID, "einstein sum subscripts string contains too many subscripts for operand 0");
    ND_EXPECT_ERR(nd_einsum(&r, "ij,ijk", 2, AB), ND_ERR_INVALID, "too many subscripts for operand 1");
    ND_EXPECT_ERR(nd_einsum(&r, "i", 1, A), ND_ERR_INVALID, "operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions.");
    ND_EXPECT_ERR(nd_einsum(&r, "i.j", 1, A), ND_ERR_INVALID, "contains a '.' that is not part of an ellipsis ('...') in operand 0");
    ND_EXPECT_ERR(nd_einsum(&r, "i->ii", 1, V), ND_ERR_INVALID, "includes output subscript 'i' multiple times");
    ND_EXPECT_ERR(nd_einsum(&r, "i->j", 1, V), ND_ERR_INVALID, "included output subscript 'j' which never appeared in an input");
    ND_EXPECT_ERR(nd_einsum(&r, "i1", 1, A), ND_ERR_INVALID, "invalid subscript '1' in einstein sum subscripts string, subscripts must be letters");
    ND_EXPECT_ERR(nd_einsum(&r, "i-i", 1, V), ND_ERR_INVALID, "einstein sum subscript string does not contain proper '->' output specified");
    ND_EXPECT_ERR(nd_einsum(&r, "i>i", 1, V), ND_ERR_INVALID, "invalid subscript '>'");
    ND_EXPECT_ERR(nd_einsum(&r, "...i->i", 1, A), ND_ERR_INVALID, "output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis");
    ND_EXPECT_ERR(nd_einsum(&r, "i->..", 1, V), ND_ERR_INVALID, "not part of an ellipsis ('...') in the output");
    ND_EXPECT_ERR(nd_einsum(&r, "ii", 1, A), ND_ERR_SHAPE, "dimensions in operand 0 for collapsing index 'i' don't match (2 != 3)");
    ND_EXPECT_ERR(nd_einsum(&r, "ij,jk", 2, AB), ND_ERR_SHAPE, "operands could not be broadcast together");
    ND_EXPECT_ERR(nd_einsum(&r, "i", 0, V), ND_ERR_INVALID, "No input operands");
    ND_EXPECT_ERR(nd_einsum(&r, NULL, 1, V), ND_ERR_INVALID, "'subscripts'");
    /* a given out of the wrong shape / a narrower kind: untouched */
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_zeros(&o, ND_INT32, 1, (const int64_t[]){3}, nd_cpu()));
    nd_array *keep = o;
    ND_EXPECT_ERR(nd_einsum(&o, "ij->j", 1, A), ND_ERR_DTYPE, "same_kind");
    ND_EXPECT_ERR(nd_einsum(&o, "ij->i", 1, A), ND_ERR_SHAPE, "'out' has shape (3,)");
    ck_assert_ptr_eq(o, keep);
    ck_assert_ptr_null(r);
    if (nd_test_gpu_count() > 0) {
        nd_array *g = cv_iota(ND_FLOAT32, 1, (const int64_t[]){2}, nd_cuda(0));
        ND_EXPECT_ERR(nd_einsum(&r, "i,i", 2, (const nd_array *[]){v, g}), ND_ERR_DEVICE, "different devices");
        nd_release(g);
    }
    nd_release(o), nd_release(a), nd_release(b), nd_release(v);
}
END_TEST

Suite *suite_einsum(void);
Suite *suite_einsum(void)
{
    Suite *s = suite_create("einsum");
    TCase *tc = tcase_create("einsum");
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, test_einsum_random, 0, 4);
    tcase_add_test(tc, test_einsum_numpy);
    tcase_add_test(tc, test_einsum_errors);
    suite_add_tcase(s, tc);
    return s;
}
