/* Manipulation (suite "manip"): nd_flip, nd_swapaxes, nd_moveaxis,
 * nd_diagonal, nd_broadcast_arrays, nd_unstack, nd_split, nd_array_split,
 * nd_split_at, nd_roll, nd_tile, nd_repeat, nd_pad, nd_diag, nd_tril,
 * nd_triu, nd_trace, nd_meshgrid, nd_outer, nd_tensordot, each on random
 * shapes (zero-size included), dtypes, axes and layouts against a
 * reference computed here from the input's values (index maps in C,
 * exact integers / doubles rounded once to the result dtype), on the CPU
 * and, when the runner found one, on cuda:0; outputs are fresh or a
 * poisoned user out. Error statuses and messages in test_manip_errors.c. */
#include "manip_util.h"

TCase *mp_tcase_errors(void); /* tests/test_manip_errors.c */

#define CASES 120

/* d rounded to dtype t as a store would (ints wrap two's complement) */
static double mp_round(nd_dtype t, double d)
{
    unsigned char b[16];
    if (t == ND_BOOL) return d != 0;
    if (nd_dtype_size(t) && t != ND_FLOAT16 && t != ND_BFLOAT16 && t != ND_FLOAT32 && t != ND_FLOAT64) {
        int64_t i = (int64_t)d;
        switch (t) {
        case ND_INT8: return (int8_t)i;
        case ND_INT16: return (int16_t)i;
        case ND_INT32: return (int32_t)i;
        case ND_UINT8: return (uint8_t)i;
        case ND_UINT16: return (uint16_t)i;
        case ND_UINT32: return (uint32_t)i;
        case ND_UINT64: return (double)(uint64_t)i;
        default: return (double)i;
        }
    }
    cv_elem_store(b, t, d);
    return cv_elem_f64(b, t);
}

/* Run one result through the out rule: *out fresh or a poisoned given out */
typedef struct {
    mp_rng *r;
    nd_device dev;
    nd_array *given;
} mp_out;

static nd_array *out_for(mp_out *o, nd_dtype t, const mp_t *ref)
{
    o->given = mp_maybe_out(o->r, t, ref->ndim, ref->shape, o->dev);
    return o->given;
}

static void check(nd_array *res, nd_dtype t, const mp_t *ref, const char *what, mp_out *o)
{
    if (o->given) ck_assert_msg(res == o->given, "%s: out replaced", what);
    mp_expect(res, t, ref, what);
    nd_release(res);
    o->given = NULL;
}

/* a random logical shape and a random layout of it */
static nd_array *rand_input(mp_rng *r, nd_device dev, int minnd, int maxnd, int maxext, nd_dtype t, mp_t *ref,
                            char *what, size_t cap, const char *fn)
{
    int nd;
    int64_t shape[ND_MAX_DIMS];
    mp_random_shape(r, minnd, maxnd, maxext, &nd, shape);
    int layout = (int)mp_int(r, 0, MP_NLAYOUTS - 1);
    char sb[200];
    snprintf(what, cap, "%s %s %s %s on %s", fn, nd_dtype_name(t), mp_fmt_shape(sb, sizeof sb, nd, shape), mp_layout_names[layout],
             dev.type == ND_DEVICE_CPU ? "cpu" : "cuda");
    return mp_input(r, t, nd, shape, layout, 20, dev, ref);
}

static void copy_idx(int64_t *d, const int64_t *s, int n) { memcpy(d, s, sizeof(int64_t) * (size_t)n); }

/* ------------------------------------------------------------------ */
static void case_flip(mp_rng *r, nd_device dev)
{
    nd_dtype t = mp_dtype(r);
    mp_t ar;
    char what[400];
    nd_array *a = rand_input(r, dev, 0, 4, 5, t, &ar, what, sizeof what, "flip");
    bool all = mp_int(r, 0, 3) == 0 || ar.ndim == 0;
    int axes[4], nax = 0;
    bool fl[ND_MAX_DIMS] = {false};
    if (!all)
        for (int d = 0; d < ar.ndim; d++)
            if (mp_int(r, 0, 1)) axes[nax++] = mp_int(r, 0, 1) ? d : d - ar.ndim, fl[d] = true;
    if (all)
        for (int d = 0; d < ar.ndim; d++) fl[d] = true;
    mp_t ref = mp_new(ar.ndim, ar.shape);
    int64_t idx[ND_MAX_DIMS];
    for (int64_t f = 0; f < ref.size; f++) {
        mp_unravel(&ref, f, idx);
        for (int d = 0; d < ar.ndim; d++)
            if (fl[d]) idx[d] = ar.shape[d] - 1 - idx[d];
        ref.v[f] = ar.v[mp_ravel(&ar, idx)];
    }
    mp_out o = {r, dev, NULL};
    nd_array *res = out_for(&o, t, &ref);
    ND_OK_OR_FAIL(nd_flip(&res, a, nax, all ? NULL : axes));
    if (!o.given)
        for (int d = 0; d < ar.ndim; d++)
            if (fl[d] && ar.shape[d] > 1 && nd_strides(a)[d] != 0 && ar.size > 0)
                ck_assert_msg(nd_strides(res)[d] == -nd_strides(a)[d], "%s: axis %d not a negative-stride view", what, d);
    check(res, t, &ref, what, &o);
    free(ref.v), free(ar.v), nd_release(a);
}

/* out axis i = a axis perm[i] */
static mp_t permute_ref(const mp_t *ar, const int *perm)
{
    int64_t shape[ND_MAX_DIMS], idx[ND_MAX_DIMS], src[ND_MAX_DIMS];
    for (int i = 0; i < ar->ndim; i++) shape[i] = ar->shape[perm[i]];
    mp_t ref = mp_new(ar->ndim, shape);
    for (int64_t f = 0; f < ref.size; f++) {
        mp_unravel(&ref, f, idx);
        for (int i = 0; i < ar->ndim; i++) src[perm[i]] = idx[i];
        ref.v[f] = ar->v[mp_ravel(ar, src)];
    }
    return ref;
}

static void case_swap_move(mp_rng *r, nd_device dev)
{
    nd_dtype t = mp_dtype(r);
    mp_t ar;
    char what[400];
    nd_array *a = rand_input(r, dev, 1, 5, 4, t, &ar, what, sizeof what, "swapaxes/moveaxis");
    int nd = ar.ndim, perm[ND_MAX_DIMS];
    mp_out o = {r, dev, NULL};
    /* swapaxes */
    int x1 = (int)mp_int(r, -nd, nd - 1), x2 = (int)mp_int(r, -nd, nd - 1);
    for (int i = 0; i < nd; i++) perm[i] = i;
    perm[(x1 + nd) % nd] = (x2 + nd) % nd;
    perm[(x2 + nd) % nd] = (x1 + nd) % nd;
    mp_t ref = permute_ref(&ar, perm);
    nd_array *res = out_for(&o, t, &ref);
    ND_OK_OR_FAIL(nd_swapaxes(&res, a, x1, x2));
    check(res, t, &ref, what, &o);
    free(ref.v);
    /* moveaxis: NumPy's reference algorithm (insert in sorted destination order) */
    int n = (int)mp_int(r, 0, nd), src[ND_MAX_DIMS], dst[ND_MAX_DIMS];
    bool us[ND_MAX_DIMS] = {false}, ud[ND_MAX_DIMS] = {false};
    for (int i = 0; i < n; i++) {
        int s, d;
        do s = (int)mp_int(r, 0, nd - 1); while (us[s]);
        do d = (int)mp_int(r, 0, nd - 1); while (ud[d]);
        us[s] = ud[d] = true;
        src[i] = mp_int(r, 0, 1) ? s : s - nd;
        dst[i] = mp_int(r, 0, 1) ? d : d - nd;
    }
    int order[ND_MAX_DIMS], no = 0;
    for (int i = 0; i < nd; i++)
        if (!us[i]) order[no++] = i;
    for (int d = 0; d < nd; d++) /* sorted by destination */
        for (int i = 0; i < n; i++)
            if ((dst[i] + nd) % nd == d) {
                memmove(order + d + 1, order + d, sizeof(int) * (size_t)(no - d));
                order[d] = (src[i] + nd) % nd;
                no++;
            }
    ref = permute_ref(&ar, order);
    res = out_for(&o, t, &ref);
    ND_OK_OR_FAIL(nd_moveaxis(&res, a, n, src, dst));
    check(res, t, &ref, what, &o);
    free(ref.v), free(ar.v), nd_release(a);
}

static void case_diagonal_trace(mp_rng *r, nd_device dev)
{
    nd_dtype t = mp_dtype(r);
    mp_t ar;
    char what[400];
    nd_array *a = rand_input(r, dev, 2, 4, 5, t, &ar, what, sizeof what, "diagonal/trace");
    int nd = ar.ndim, x1 = (int)mp_int(r, 0, nd - 1), x2;
    do x2 = (int)mp_int(r, 0, nd - 1); while (x2 == x1);
    int64_t n1 = ar.shape[x1], n2 = ar.shape[x2], off = mp_int(r, -n1 - 1, n2 + 1);
    int64_t r0 = off < 0 ? -off : 0, c0 = off > 0 ? off : 0, len = 0;
    while (r0 + len < n1 && c0 + len < n2) len++;
    int64_t shape[ND_MAX_DIMS], idx[ND_MAX_DIMS], src[ND_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < nd; d++)
        if (d != x1 && d != x2) shape[k++] = ar.shape[d];
    shape[k++] = len;
    mp_t ref = mp_new(k, shape);
    mp_t tr = mp_new(k - 1, shape);
    for (int64_t f = 0; f < ref.size; f++) {
        mp_unravel(&ref, f, idx);
        for (int d = 0, j = 0; d < nd; d++)
            if (d != x1 && d != x2) src[d] = idx[j++];
        src[x1] = r0 + idx[k - 1];
        src[x2] = c0 + idx[k - 1];
        ref.v[f] = ar.v[mp_ravel(&ar, src)];
        tr.v[f / (len ? len : 1)] += ref.v[f];
    }
    mp_out o = {r, dev, NULL};
    nd_array *res = out_for(&o, t, &ref);
    int ax1 = mp_int(r, 0, 1) ? x1 : x1 - nd, ax2 = mp_int(r, 0, 1) ? x2 : x2 - nd;
    ND_OK_OR_FAIL(nd_diagonal(&res, a, off, ax1, ax2));
    if (!o.given) { /* a read-only view, as NumPy's */
        nd_array *w = res, *zl = NULL;
        ND_OK_OR_FAIL(nd_zeros_like(&zl, res));
        ND_EXPECT_ERR(nd_copy(&w, zl), ND_ERR_INVALID, "read-only");
        nd_release(zl);
    }
    check(res, t, &ref, what, &o);
    nd_dtype st = t == ND_BOOL || t == ND_INT8 || t == ND_INT16 || t == ND_INT32 || t == ND_INT64 ? ND_INT64
                  : (t == ND_UINT8 || t == ND_UINT16 || t == ND_UINT32 || t == ND_UINT64)  ? ND_UINT64
                                                                                            : t;
    for (int64_t f = 0; f < tr.size; f++) tr.v[f] = mp_round(st, tr.v[f]);
    res = out_for(&o, st, &tr);
    ND_OK_OR_FAIL(nd_trace(&res, a, off, ax1, ax2));
    check(res, st, &tr, what, &o);
    free(tr.v), free(ref.v), free(ar.v), nd_release(a);
}

static void case_broadcast_arrays(mp_rng *r, nd_device dev)
{
    int nd;
    int64_t shape[ND_MAX_DIMS];
    mp_random_shape(r, 0, 4, 4, &nd, shape);
    int n = (int)mp_int(r, 1, 3);
    nd_array *in[3], *outs[3] = {NULL, NULL, NULL};
    mp_t ref[3];
    nd_dtype t[3];
    for (int i = 0; i < n; i++) {
        int k = (int)mp_int(r, 0, nd);
        int64_t s[ND_MAX_DIMS];
        for (int d = 0; d < k; d++) s[d] = mp_int(r, 0, 1) ? 1 : shape[nd - k + d];
        t[i] = mp_dtype(r);
        in[i] = mp_input(r, t[i], k, s, (int)mp_int(r, 0, MP_NLAYOUTS - 1), 20, dev, &ref[i]);
    }
    /* the common shape: the largest extent per trailing position */
    int cn = 0;
    int64_t cs[ND_MAX_DIMS];
    for (int i = 0; i < n; i++) cn = ref[i].ndim > cn ? ref[i].ndim : cn;
    for (int d = 0; d < cn; d++) {
        cs[d] = 1;
        for (int i = 0; i < n; i++) {
            int j = d - (cn - ref[i].ndim);
            if (j >= 0 && ref[i].shape[j] != 1) cs[d] = ref[i].shape[j];
        }
    }
    ND_OK_OR_FAIL(nd_broadcast_arrays(outs, n, (const nd_array *const *)in));
    for (int i = 0; i < n; i++) {
        mp_t e = mp_new(cn, cs);
        int64_t idx[ND_MAX_DIMS], src[ND_MAX_DIMS];
        for (int64_t f = 0; f < e.size; f++) {
            mp_unravel(&e, f, idx);
            for (int j = 0; j < ref[i].ndim; j++) {
                int d = j + cn - ref[i].ndim;
                src[j] = ref[i].shape[j] == 1 ? 0 : idx[d];
            }
            e.v[f] = ref[i].v[mp_ravel(&ref[i], src)];
        }
        mp_expect(outs[i], t[i], &e, "broadcast_arrays");
        free(e.v), free(ref[i].v);
        nd_release(outs[i]);
        nd_release(in[i]);
    }
}

/* split family and unstack: pieces [b[i], b[i+1]) along ax */
static void expect_pieces(nd_array **outs, int64_t count, const mp_t *ar, nd_dtype t, int ax, const int64_t *starts,
                          const int64_t *stops, bool drop, const char *what)
{
    for (int64_t p = 0; p < count; p++) {
        int64_t s = starts[p], e = stops[p], ext = ar->shape[ax];
        if (s < 0) s = s + ext < 0 ? 0 : s + ext;
        if (s > ext) s = ext;
        if (e < 0) e = e + ext < 0 ? 0 : e + ext;
        if (e > ext) e = ext;
        int64_t len = e > s ? e - s : 0, shape[ND_MAX_DIMS], idx[ND_MAX_DIMS], src[ND_MAX_DIMS];
        int k = 0;
        for (int d = 0; d < ar->ndim; d++)
            if (!(drop && d == ax)) shape[k++] = d == ax ? len : ar->shape[d];
        mp_t ref = mp_new(k, shape);
        for (int64_t f = 0; f < ref.size; f++) {
            mp_unravel(&ref, f, idx);
            for (int d = 0, j = 0; d < ar->ndim; d++) src[d] = (drop && d == ax) ? s : idx[j++];
            if (!drop) src[ax] = s + idx[ax];
            ref.v[f] = ar->v[mp_ravel(ar, src)];
        }
        mp_expect(outs[p], t, &ref, what);
        free(ref.v);
        nd_release(outs[p]);
    }
}

static void case_split(mp_rng *r, nd_device dev)
{
    nd_dtype t = mp_dtype(r);
    mp_t ar;
    char what[400];
    nd_array *a = rand_input(r, dev, 1, 3, 7, t, &ar, what, sizeof what, "split");
    int ax = (int)mp_int(r, 0, ar.ndim - 1), axa = mp_int(r, 0, 1) ? ax : ax - ar.ndim;
    int64_t n = ar.shape[ax], cnt = -1;
    nd_array *outs[16] = {NULL};
    int64_t st[16], en[16];
    /* array_split */
    int64_t sec = mp_int(r, 1, 9), each = n / sec, extra = n % sec, pos = 0;
    for (int64_t i = 0; i < sec; i++) st[i] = pos, pos += each + (i < extra), en[i] = pos;
    ND_EXPECT_ERR(nd_array_split(outs, sec - 1, &cnt, a, sec, axa), ND_ERR_INVALID, "capacity");
    ck_assert_int_eq(cnt, sec);
    for (int i = 0; i < 16; i++) ck_assert_ptr_null(outs[i]);
    ND_OK_OR_FAIL(nd_array_split(outs, 16, &cnt, a, sec, axa));
    ck_assert_int_eq(cnt, sec);
    expect_pieces(outs, cnt, &ar, t, ax, st, en, false, what);
    memset(outs, 0, sizeof outs);
    /* split: equal division or the error */
    if (n % sec == 0) {
        ND_OK_OR_FAIL(nd_split(outs, 16, &cnt, a, sec, axa));
        expect_pieces(outs, cnt, &ar, t, ax, st, en, false, what);
        memset(outs, 0, sizeof outs);
    } else {
        ND_EXPECT_ERR(nd_split(outs, 16, &cnt, a, sec, axa), ND_ERR_INVALID, "equal division");
    }
    /* split_at: random points, negative and past the end included */
    int ni = (int)mp_int(r, 0, 5);
    int64_t pts[6];
    st[0] = 0;
    for (int i = 0; i < ni; i++) pts[i] = mp_int(r, -n - 2, n + 2), st[i + 1] = en[i] = pts[i];
    en[ni] = n;
    ND_OK_OR_FAIL(nd_split_at(outs, 16, &cnt, a, ni, pts, axa));
    ck_assert_int_eq(cnt, ni + 1);
    expect_pieces(outs, cnt, &ar, t, ax, st, en, false, what);
    memset(outs, 0, sizeof outs);
    /* unstack (with a poisoned given entry when there is one) */
    if (n <= 16) {
        for (int64_t i = 0; i < n; i++) st[i] = i, en[i] = i + 1;
        nd_status q = nd_unstack(NULL, 0, &cnt, a, axa); /* a query */
        ck_assert_int_eq(q, n == 0 ? ND_OK : ND_ERR_INVALID);
        ck_assert_int_eq(cnt, n);
        ND_OK_OR_FAIL(nd_unstack(outs, 16, &cnt, a, axa));
        expect_pieces(outs, cnt, &ar, t, ax, st, en, true, what);
        memset(outs, 0, sizeof outs);
    }
    free(ar.v), nd_release(a);
}

static void case_roll(mp_rng *r, nd_device dev)
{
    nd_dtype t = mp_dtype(r);
    mp_t ar;
    char what[400];
    nd_array *a = rand_input(r, dev, 0, 4, 5, t, &ar, what, sizeof what, "roll");
    mp_t ref = mp_new(ar.ndim, ar.shape);
    int64_t idx[ND_MAX_DIMS], shift[4];
    int axes[4], nax = 0, nsh = 1;
    bool flat = ar.ndim == 0 || mp_int(r, 0, 3) == 0;
    if (flat) {
        shift[0] = mp_int(r, -12, 12);
        for (int64_t f = 0; f < ar.size; f++) {
            int64_t g = ((f + shift[0]) % ar.size + ar.size) % ar.size;
            ref.v[g] = ar.v[f];
        }
    } else {
        nax = (int)mp_int(r, 1, 4);
        nsh = mp_int(r, 0, 2) == 0 ? 1 : nax;
        for (int i = 0; i < nax; i++) axes[i] = (int)mp_int(r, -ar.ndim, ar.ndim - 1);
        for (int i = 0; i < nsh; i++) shift[i] = mp_int(r, -12, 12);
        if (mp_int(r, 0, 3) == 0) nax = 1; /* one axis, several shifts */
        int64_t tot[ND_MAX_DIMS] = {0};
        int cnt = nax > nsh ? nax : nsh;
        for (int i = 0; i < cnt; i++) tot[(axes[nax == 1 ? 0 : i] + ar.ndim) % ar.ndim] += shift[nsh == 1 ? 0 : i];
        for (int64_t f = 0; f < ar.size; f++) {
            mp_unravel(&ar, f, idx);
            for (int d = 0; d < ar.ndim; d++) idx[d] = ((idx[d] + tot[d]) % ar.shape[d] + ar.shape[d]) % ar.shape[d];
            ref.v[mp_ravel(&ref, idx)] = ar.v[f];
        }
    }
    mp_out o = {r, dev, NULL};
    nd_array *res = out_for(&o, t, &ref);
    ND_OK_OR_FAIL(nd_roll(&res, a, nsh, shift, nax, flat ? NULL : axes));
    check(res, t, &ref, what, &o);
    free(ref.v), free(ar.v), nd_release(a);
}

static void case_tile_repeat(mp_rng *r, nd_device dev)
{
    nd_dtype t = mp_dtype(r);
    mp_t ar;
    char what[400];
    nd_array *a = rand_input(r, dev, 0, 3, 4, t, &ar, what, sizeof what, "tile/repeat");
    /* tile */
    int nreps = (int)mp_int(r, 0, 4), nd = ar.ndim > nreps ? ar.ndim : nreps;
    int64_t reps[4], rep[ND_MAX_DIMS], ash[ND_MAX_DIMS], shape[ND_MAX_DIMS], idx[ND_MAX_DIMS], src[ND_MAX_DIMS];
    for (int i = 0; i < nreps; i++) reps[i] = mp_int(r, 0, 3);
    for (int d = 0; d < nd; d++) {
        int i = d - (nd - nreps), j = d - (nd - ar.ndim);
        rep[d] = i >= 0 ? reps[i] : 1;
        ash[d] = j >= 0 ? ar.shape[j] : 1;
        shape[d] = rep[d] * ash[d];
    }
    mp_t ref = mp_new(nd, shape);
    for (int64_t f = 0; f < ref.size; f++) {
        mp_unravel(&ref, f, idx);
        for (int d = 0; d < nd; d++) {
            int j = d - (nd - ar.ndim);
            if (j >= 0) src[j] = idx[d] % ash[d];
        }
        ref.v[f] = ar.v[mp_ravel(&ar, src)];
    }
    mp_out o = {r, dev, NULL};
    nd_array *res = out_for(&o, t, &ref);
    ND_OK_OR_FAIL(nd_tile(&res, a, nreps, reps));
    check(res, t, &ref, what, &o);
    free(ref.v);
    /* repeat */
    int64_t rp = mp_int(r, 0, 3);
    bool flat = ar.ndim == 0 || mp_int(r, 0, 2) == 0;
    int ax = flat ? 0 : (int)mp_int(r, 0, ar.ndim - 1), axa = mp_int(r, 0, 1) ? ax : ax - ar.ndim;
    if (flat) {
        int64_t n = ar.size * rp;
        ref = mp_new(1, &n);
        for (int64_t f = 0; f < n; f++) ref.v[f] = ar.v[f / rp];
    } else {
        copy_idx(shape, ar.shape, ar.ndim);
        shape[ax] *= rp;
        ref = mp_new(ar.ndim, shape);
        for (int64_t f = 0; f < ref.size; f++) {
            mp_unravel(&ref, f, idx);
            idx[ax] /= rp;
            ref.v[f] = ar.v[mp_ravel(&ar, idx)];
        }
    }
    res = out_for(&o, t, &ref);
    ND_OK_OR_FAIL(nd_repeat(&res, a, rp, flat ? ND_AXIS_NONE : axa));
    check(res, t, &ref, what, &o);
    free(ref.v), free(ar.v), nd_release(a);
}

/* closed forms of NumPy's pad modes along one axis (index i of the result,
 * extent n, before-width l); -1 = the constant */
static int64_t pad_src(nd_pad_mode m, int64_t i, int64_t n, int64_t l)
{
    int64_t j = i - l;
    if (j >= 0 && j < n) return j;
    switch (m) {
    case ND_PAD_CONSTANT: return -1;
    case ND_PAD_EDGE: return j < 0 ? 0 : n - 1;
    case ND_PAD_WRAP: return ((j % n) + n) % n;
    case ND_PAD_SYMMETRIC: {
        int64_t p = 2 * n, q = ((j % p) + p) % p;
        return q < n ? q : p - 1 - q;
    }
    default: {
        if (n == 1) return 0;
        int64_t p = 2 * (n - 1), q = ((j % p) + p) % p;
        return q < n ? q : p - q;
    }
    }
}

static void case_pad(mp_rng *r, nd_device dev)
{
    nd_dtype t = mp_dtype(r);
    mp_t ar;
    char what[400];
    nd_array *a = rand_input(r, dev, 0, 3, 4, t, &ar, what, sizeof what, "pad");
    nd_pad_mode m = (nd_pad_mode)mp_int(r, 0, 4);
    int npairs = ar.ndim == 0 || mp_int(r, 0, 3) == 0 ? 1 : ar.ndim;
    int64_t w[2 * ND_MAX_DIMS], lo[ND_MAX_DIMS], hi[ND_MAX_DIMS], shape[ND_MAX_DIMS], idx[ND_MAX_DIMS];
    for (int i = 0; i < 2 * npairs; i++) w[i] = mp_int(r, 0, 3) == 0 ? mp_int(r, 0, 11) : mp_int(r, 0, 3);
    for (int d = 0; d < ar.ndim; d++) {
        int p = npairs == 1 ? 0 : d;
        lo[d] = w[2 * p], hi[d] = w[2 * p + 1];
        if (m != ND_PAD_CONSTANT && ar.shape[d] == 0) w[2 * p] = w[2 * p + 1] = 0; /* NumPy refuses: see the errors */
    }
    for (int d = 0; d < ar.ndim; d++) {
        int p = npairs == 1 ? 0 : d;
        lo[d] = w[2 * p], hi[d] = w[2 * p + 1];
        shape[d] = ar.shape[d] + lo[d] + hi[d];
    }
    double cval = mp_value(r, t, 20);
    mp_t ref = mp_new(ar.ndim, shape);
    for (int64_t f = 0; f < ref.size; f++) {
        mp_unravel(&ref, f, idx);
        bool c = false;
        for (int d = 0; d < ar.ndim; d++) {
            idx[d] = pad_src(m, idx[d], ar.shape[d], lo[d]);
            c = c || idx[d] < 0;
        }
        ref.v[f] = c ? cval : ar.v[mp_ravel(&ar, idx)];
    }
    nd_scalar sv = mp_is_float(t) ? nd_scalar_float(cval) : t == ND_BOOL ? nd_scalar_bool(cval != 0) : nd_scalar_int((int64_t)cval);
    mp_out o = {r, dev, NULL};
    nd_array *res = out_for(&o, t, &ref);
    ND_OK_OR_FAIL(nd_pad(&res, a, npairs, w, m, sv));
    snprintf(what + strlen(what), sizeof what - strlen(what), " mode %d", (int)m);
    check(res, t, &ref, what, &o);
    free(ref.v), free(ar.v), nd_release(a);
}

static void case_diag_tri(mp_rng *r, nd_device dev)
{
    nd_dtype t = mp_dtype(r);
    mp_t ar;
    char what[400];
    nd_array *a = rand_input(r, dev, 1, 2, 5, t, &ar, what, sizeof what, "diag");
    int64_t k = mp_int(r, -4, 4), idx[ND_MAX_DIMS];
    mp_t ref;
    if (ar.ndim == 1) {
        int64_t n = ar.shape[0] + (k < 0 ? -k : k), sh[2] = {n, n};
        ref = mp_new(2, sh);
        for (int64_t i = 0; i < ar.shape[0]; i++) ref.v[(i + (k < 0 ? -k : 0)) * n + i + (k > 0 ? k : 0)] = ar.v[i];
    } else {
        int64_t len = 0, r0 = k < 0 ? -k : 0, c0 = k > 0 ? k : 0;
        while (r0 + len < ar.shape[0] && c0 + len < ar.shape[1]) len++;
        ref = mp_new(1, &len);
        for (int64_t i = 0; i < len; i++) ref.v[i] = ar.v[(r0 + i) * ar.shape[1] + c0 + i];
    }
    mp_out o = {r, dev, NULL};
    nd_array *res = out_for(&o, t, &ref);
    ND_OK_OR_FAIL(nd_diag(&res, a, k));
    check(res, t, &ref, what, &o);
    free(ref.v), free(ar.v), nd_release(a);
    /* tril / triu on N-D (1-D broadcast to (n, n) as NumPy) */
    a = rand_input(r, dev, 1, 4, 5, t, &ar, what, sizeof what, "tril/triu");
    for (int lower = 0; lower < 2; lower++) {
        int64_t shape[ND_MAX_DIMS];
        int nd = ar.ndim == 1 ? 2 : ar.ndim;
        if (ar.ndim == 1) shape[0] = shape[1] = ar.shape[0];
        else copy_idx(shape, ar.shape, nd);
        ref = mp_new(nd, shape);
        for (int64_t f = 0; f < ref.size; f++) {
            mp_unravel(&ref, f, idx);
            int64_t i = idx[nd - 2], j = idx[nd - 1];
            bool keep = lower ? j - i <= k : j - i >= k;
            ref.v[f] = keep ? ar.v[ar.ndim == 1 ? j : f] : 0;
        }
        res = out_for(&o, t, &ref);
        ND_OK_OR_FAIL(lower ? nd_tril(&res, a, k) : nd_triu(&res, a, k));
        check(res, t, &ref, what, &o);
        free(ref.v);
    }
    free(ar.v), nd_release(a);
}

static void case_meshgrid(mp_rng *r, nd_device dev)
{
    int n = (int)mp_int(r, 1, 3);
    nd_array *in[3], *outs[3] = {NULL, NULL, NULL};
    mp_t ref[3];
    nd_dtype t[3];
    int64_t shape[3];
    for (int i = 0; i < n; i++) {
        int nd;
        int64_t s[ND_MAX_DIMS];
        mp_random_shape(r, 0, 2, 3, &nd, s);
        t[i] = mp_dtype(r);
        in[i] = mp_input(r, t[i], nd, s, (int)mp_int(r, 0, MP_NLAYOUTS - 1), 20, dev, &ref[i]);
        shape[i] = ref[i].size;
    }
    bool ij = mp_int(r, 0, 1), copy = mp_int(r, 0, 1);
    if (!ij && n > 1) {
        int64_t x = shape[0];
        shape[0] = shape[1], shape[1] = x;
    }
    ND_OK_OR_FAIL(nd_meshgrid(outs, n, (const nd_array *const *)in, ij ? ND_MESHGRID_IJ : ND_MESHGRID_XY, copy));
    for (int i = 0; i < n; i++) {
        mp_t e = mp_new(n, shape);
        int64_t idx[ND_MAX_DIMS];
        int pos = !ij && n > 1 && i < 2 ? 1 - i : i;
        for (int64_t f = 0; f < e.size; f++) {
            mp_unravel(&e, f, idx);
            e.v[f] = ref[i].v[idx[pos]];
        }
        mp_expect(outs[i], t[i], &e, "meshgrid");
        if (copy) ck_assert(nd_is_contiguous(outs[i]));
        free(e.v), free(ref[i].v);
        nd_release(outs[i]);
        nd_release(in[i]);
    }
}

static void case_outer_tensordot(mp_rng *r, nd_device dev)
{
    nd_dtype ta = mp_dtype(r), tb = mp_int(r, 0, 1) ? ta : mp_dtype(r), rt;
    ND_OK_OR_FAIL(nd_result_type(&rt, ta, tb));
    mp_t ar, br;
    int nd;
    int64_t s[ND_MAX_DIMS];
    mp_random_shape(r, 0, 2, 4, &nd, s);
    nd_array *a = mp_input(r, ta, nd, s, (int)mp_int(r, 0, MP_NLAYOUTS - 1), 8, dev, &ar);
    mp_random_shape(r, 0, 2, 4, &nd, s);
    nd_array *b = mp_input(r, tb, nd, s, (int)mp_int(r, 0, MP_NLAYOUTS - 1), 8, dev, &br);
    int64_t sh[2] = {ar.size, br.size};
    mp_t ref = mp_new(2, sh);
    for (int64_t i = 0; i < ar.size; i++)
        for (int64_t j = 0; j < br.size; j++) ref.v[i * br.size + j] = mp_round(rt, ar.v[i] * br.v[j]);
    mp_out o = {r, dev, NULL};
    nd_array *res = out_for(&o, rt, &ref);
    ND_OK_OR_FAIL(nd_outer(&res, a, b));
    check(res, rt, &ref, "outer", &o);
    free(ref.v), free(ar.v), free(br.v), nd_release(a), nd_release(b);

    /* tensordot: a (free_a..., summed...) in a random axis order */
    int nfa = (int)mp_int(r, 0, 2), nfb = (int)mp_int(r, 0, 2), ns = (int)mp_int(r, 0, 2);
    int64_t fa[2], fb[2], ss[2], ash[ND_MAX_DIMS], bsh[ND_MAX_DIMS];
    for (int i = 0; i < nfa; i++) fa[i] = mp_int(r, 0, 8) ? mp_int(r, 1, 3) : 0;
    for (int i = 0; i < nfb; i++) fb[i] = mp_int(r, 0, 8) ? mp_int(r, 1, 3) : 0;
    for (int i = 0; i < ns; i++) ss[i] = mp_int(r, 0, 8) ? mp_int(r, 1, 4) : 0;
    bool byint = mp_int(r, 0, 1);
    /* positions: with byint a = (fa, ss), b = (ss, fb); else shuffled */
    int pa[4], pb[4], na = nfa + ns, nb = nfb + ns; /* pa[d] = which logical axis: 0..nfa-1 free, nfa.. summed */
    for (int i = 0; i < na; i++) pa[i] = i;
    for (int i = 0; i < nb; i++) pb[i] = i < ns ? nfb + i : i - ns; /* summed first */
    if (!byint) {
        for (int i = na - 1; i > 0; i--) { int j = (int)mp_int(r, 0, i), x = pa[i]; pa[i] = pa[j], pa[j] = x; }
        for (int i = nb - 1; i > 0; i--) { int j = (int)mp_int(r, 0, i), x = pb[i]; pb[i] = pb[j], pb[j] = x; }
    }
    int axes_a[2], axes_b[2];
    for (int d = 0; d < na; d++) {
        ash[d] = pa[d] < nfa ? fa[pa[d]] : ss[pa[d] - nfa];
        if (pa[d] >= nfa) axes_a[pa[d] - nfa] = mp_int(r, 0, 1) ? d : d - na;
    }
    for (int d = 0; d < nb; d++) {
        bsh[d] = pb[d] < nfb ? fb[pb[d]] : ss[pb[d] - nfb];
        if (pb[d] >= nfb) axes_b[pb[d] - nfb] = d;
    }
    a = mp_input(r, ta, na, ash, (int)mp_int(r, 0, MP_NLAYOUTS - 1), 3, dev, &ar);
    b = mp_input(r, tb, nb, bsh, (int)mp_int(r, 0, MP_NLAYOUTS - 1), 3, dev, &br);
    /* the result: a's free axes in a's order, then b's in b's order */
    int64_t rs[4], idx[4], ia[4], ib[4], kidx[2], lidx[4];
    int posa[2], posb[2], nr = 0; /* output axis of each logical free axis */
    for (int d = 0; d < na; d++)
        if (pa[d] < nfa) posa[pa[d]] = nr, rs[nr++] = fa[pa[d]];
    for (int d = 0; d < nb; d++)
        if (pb[d] < nfb) posb[pb[d]] = nr, rs[nr++] = fb[pb[d]];
    ref = mp_new(nr, rs);
    int64_t K = 1;
    for (int i = 0; i < ns; i++) K *= ss[i];
    for (int64_t f = 0; f < ref.size; f++) {
        mp_unravel(&ref, f, idx);
        for (int i = 0; i < nfa; i++) lidx[i] = idx[posa[i]];
        for (int i = 0; i < nfb; i++) lidx[nfa + i] = idx[posb[i]];
        double acc = 0;
        for (int64_t kk = 0; kk < K; kk++) {
            int64_t q = kk;
            for (int i = ns - 1; i >= 0; i--) kidx[i] = q % ss[i], q /= ss[i];
            for (int d = 0; d < na; d++) ia[d] = pa[d] < nfa ? lidx[pa[d]] : kidx[pa[d] - nfa];
            for (int d = 0; d < nb; d++) ib[d] = pb[d] < nfb ? lidx[nfa + pb[d]] : kidx[pb[d] - nfb];
            acc += ar.v[mp_ravel(&ar, ia)] * br.v[mp_ravel(&br, ib)];
        }
        ref.v[f] = mp_round(rt, acc);
    }
    res = out_for(&o, rt, &ref);
    if (byint) ND_OK_OR_FAIL(nd_tensordot(&res, a, b, ns, NULL, NULL));
    else ND_OK_OR_FAIL(nd_tensordot(&res, a, b, ns, axes_a, axes_b));
    check(res, rt, &ref, "tensordot", &o);
    free(ref.v), free(ar.v), free(br.v), nd_release(a), nd_release(b);
}

typedef void (*case_fn)(mp_rng *, nd_device);
static void run_cases(case_fn f, uint64_t seed, int n)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int d = 0; d < nd; d++) {
        mp_rng r = {seed};
        for (int i = 0; i < n; i++) f(&r, devs[d]);
    }
}

START_TEST(test_flip) { run_cases(case_flip, 11, CASES); }
END_TEST
START_TEST(test_swap_move) { run_cases(case_swap_move, 12, CASES); }
END_TEST
START_TEST(test_diagonal_trace) { run_cases(case_diagonal_trace, 13, CASES); }
END_TEST
START_TEST(test_broadcast_arrays) { run_cases(case_broadcast_arrays, 14, CASES); }
END_TEST
START_TEST(test_split) { run_cases(case_split, 15, CASES); }
END_TEST
START_TEST(test_roll) { run_cases(case_roll, 16, CASES); }
END_TEST
START_TEST(test_tile_repeat) { run_cases(case_tile_repeat, 17, CASES); }
END_TEST
START_TEST(test_pad) { run_cases(case_pad, 18, 2 * CASES); }
END_TEST
START_TEST(test_diag_tri) { run_cases(case_diag_tri, 19, CASES); }
END_TEST
START_TEST(test_meshgrid) { run_cases(case_meshgrid, 20, CASES); }
END_TEST
START_TEST(test_outer_tensordot) { run_cases(case_outer_tensordot, 21, CASES); }
END_TEST

/* NumPy 2.4 values (pasted): np.pad(np.arange(1, 4), (8, 5), mode=...) and
 * a 2-D reflect wider than both axes, checking the closed forms above */
START_TEST(test_pad_numpy)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int d = 0; d < nd; d++) {
        nd_array *a = cv_iota(ND_INT32, 1, (const int64_t[]){3}, devs[d]), *r = NULL;
        const int64_t w[2] = {8, 5};
        ND_OK_OR_FAIL(nd_pad(&r, a, 1, w, ND_PAD_REFLECT, nd_scalar_none()));
        cv_expect_values(r, 16, (const double[]){1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2});
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_pad(&r, a, 1, w, ND_PAD_SYMMETRIC, nd_scalar_none()));
        cv_expect_values(r, 16, (const double[]){2, 1, 1, 2, 3, 3, 2, 1, 1, 2, 3, 3, 2, 1, 1, 2});
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_pad(&r, a, 1, w, ND_PAD_WRAP, nd_scalar_none()));
        cv_expect_values(r, 16, (const double[]){2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2});
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_pad(&r, a, 1, w, ND_PAD_CONSTANT, nd_scalar_int(-7)));
        cv_expect_values(r, 16, (const double[]){-7, -7, -7, -7, -7, -7, -7, -7, 1, 2, 3, -7, -7, -7, -7, -7});
        nd_release(r), r = NULL;
        nd_release(a);
        /* np.pad(np.arange(1, 5).reshape(2, 2), ((3, 1), (1, 4)), mode='reflect') */
        a = cv_iota(ND_FLOAT32, 2, (const int64_t[]){2, 2}, devs[d]);
        ND_OK_OR_FAIL(nd_pad(&r, a, 2, (const int64_t[]){3, 1, 1, 4}, ND_PAD_REFLECT, nd_scalar_none()));
        cv_expect_shape(r, 2, (const int64_t[]){6, 7});
        cv_expect_values(r, 42, (const double[]){4, 3, 4, 3, 4, 3, 4, 2, 1, 2, 1, 2, 1, 2, 4, 3, 4, 3, 4, 3, 4,
                                                 2, 1, 2, 1, 2, 1, 2, 4, 3, 4, 3, 4, 3, 4, 2, 1, 2, 1, 2, 1, 2});
        nd_release(r), r = NULL;
        /* constant casts as NumPy's setitem: np.pad(np.arange(3, dtype=np.uint8), 1, constant_values=-1.5) */
        nd_array *u = cv_make(ND_UINT8, 1, (const int64_t[]){3}, (const double[]){0, 1, 2}, devs[d]);
        ND_OK_OR_FAIL(nd_pad(&r, u, 1, (const int64_t[]){1, 1}, ND_PAD_CONSTANT, nd_scalar_float(-1.5)));
        cv_expect_values(r, 5, (const double[]){255, 0, 1, 2, 255});
        nd_release(r), r = NULL;
        nd_release(u);
        nd_release(a);
    }
}
END_TEST

Suite *suite_manip(void);
Suite *suite_manip(void)
{
    Suite *s = suite_create("manip");
    TCase *tc = tcase_create("manip");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_flip);
    tcase_add_test(tc, test_swap_move);
    tcase_add_test(tc, test_diagonal_trace);
    tcase_add_test(tc, test_broadcast_arrays);
    tcase_add_test(tc, test_split);
    tcase_add_test(tc, test_roll);
    tcase_add_test(tc, test_tile_repeat);
    tcase_add_test(tc, test_pad);
    tcase_add_test(tc, test_pad_numpy);
    tcase_add_test(tc, test_diag_tri);
    tcase_add_test(tc, test_meshgrid);
    tcase_add_test(tc, test_outer_tensordot);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, mp_tcase_errors());
    return s;
}
