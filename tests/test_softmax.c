/* The softmax family and cross-entropy (src/reduce/softmax.c, both backends'
 * softmax / cross_entropy slots): nd_softmax, nd_log_softmax,
 * nd_logsumexp, nd_cross_entropy.
 *
 * References are computed here in double from the input's values as the
 * array holds them (read back, so a float16 input is compared with its
 * rounded values): SciPy's formulas, softmax exp(x - m) / sum, log_softmax
 * (x - m) - log(sum), logsumexp m + log(sum), cross-entropy logsumexp -
 * x[label] with PyTorch's reductions and ignore_index. Every float dtype
 * (and int32, computed in float64), axes first / middle / last / negative,
 * four layouts (contiguous, transposed, a stepped slice, a stride-0
 * broadcast axis), rows longer than the CPU's 1024-element chunks and
 * leading axes wider than its column blocks, a poisoned out of the same
 * and of another dtype, in place (out == x), 0-d and zero-size arrays.
 * Stability: rows of +-1e4 (no overflow), rows of -inf only (softmax NaN,
 * log_softmax NaN, logsumexp -inf: NumPy's / SciPy's answers), a +inf
 * (logsumexp +inf), a NaN (NaN for the whole row). Bad inputs: the status
 * and the message. The same cases on nd_cpu() and on cuda:0 (the emulated
 * device in the emu build; skipped without one).
 *
 * Tolerance: |got - ref| <= 4 eps_out |ref| + 16 eps_acc (1 + max|x|) (|ref|
 * for softmax, 1 for the log forms), eps_out the result dtype's and
 * eps_acc the accumulator's (float32 for half inputs). */
#include "creation_util.h"
#include "harness.h"
#include "test_util.h"

static uint64_t rng_s = 0x51afd6c3b1a2e4f7ull;
static uint64_t rnd(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return rng_s;
}
static double unif(double lo, double hi) { return lo + (hi - lo) * (double)(rnd() >> 11) / 9007199254740992.0; }

enum { L_CONTIG, L_TRANS, L_STEP, L_BCAST, L_N };
static const char *lname[L_N] = {"contiguous", "transposed", "stepped", "broadcast"};
static const nd_dtype DTS[5] = {ND_FLOAT16, ND_BFLOAT16, ND_FLOAT32, ND_FLOAT64, ND_INT32};

static double eps_of(nd_dtype t)
{
    switch (t) {
    case ND_FLOAT16: return 0x1p-11;
    case ND_BFLOAT16: return 0x1p-8;
    case ND_FLOAT32: return 0x1p-24;
    default: return 0x1p-53;
    }
}

/* Every element of a as double (any layout, device, dtype). */
/* An array of dtype t, logical shape (nd, shape), layout l on dev, with
 * values from gen (random in [-lo, hi] by default). */
static nd_array *make(nd_device dev, nd_dtype t, int nd, const int64_t *shape, int l, double scale)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++) n *= shape[i];
    double *h = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) h[i] = t == ND_INT32 ? (double)((int)(rnd() % 13) - 6) : unif(-scale, scale);
    nd_array *c64 = NULL, *c = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&c64, h, ND_FLOAT64, nd, shape, dev));
    free(h);
    ND_OK_OR_FAIL(nd_astype(&c, c64, t));
    nd_release(c64);
    if (l == L_CONTIG || nd < 2) return c;
    if (l == L_TRANS) { /* the same values, stored transposed */
        nd_array *ct = NULL, *tc = NULL;
        ND_OK_OR_FAIL(nd_transpose(&ct, c, NULL));
        ND_OK_OR_FAIL(nd_contiguous(&tc, ct));
        ND_OK_OR_FAIL(nd_transpose(&r, tc, NULL));
        nd_release(ct), nd_release(tc), nd_release(c);
        return r;
    }
    if (l == L_STEP) { /* every other element of a buffer twice as wide, the rest poison */
        int64_t bs[ND_MAX_DIMS];
        memcpy(bs, shape, sizeof(int64_t) * (size_t)nd);
        bs[nd - 1] *= 2;
        nd_array *buf = NULL, *v = NULL;
        ND_OK_OR_FAIL(nd_full(&buf, t, nd, bs, nd_scalar_float(t == ND_INT32 ? 77 : NAN), dev));
        nd_range sp[ND_MAX_DIMS];
        for (int i = 0; i < nd; i++) sp[i] = (nd_range){0, bs[i], i == nd - 1 ? 2 : 1};
        ND_OK_OR_FAIL(nd_slice(&v, buf, nd, sp));
        ND_OK_OR_FAIL(nd_copy(&v, c));
        nd_release(buf), nd_release(c);
        return v;
    }
    /* broadcast: the first row repeated along axis 0 (stride 0) */
    int64_t s1[ND_MAX_DIMS];
    memcpy(s1, shape, sizeof(int64_t) * (size_t)nd);
    s1[0] = 1;
    nd_range sp[ND_MAX_DIMS];
    for (int i = 0; i < nd; i++) sp[i] = (nd_range){0, i == 0 ? 1 : shape[i], 1};
    nd_array *row = NULL;
    ND_OK_OR_FAIL(nd_slice(&row, c, nd, sp));
    ND_OK_OR_FAIL(nd_broadcast_to(&r, row, nd, shape));
    nd_release(row), nd_release(c);
    return r;
}

/* Reference of mode (0 softmax, 1 log_softmax, 2 logsumexp) along axis
 * ax of x (C order values, shape): into ref (x's size, or the reduced size
 * for logsumexp); also the max |x| of each element's row in amax. */
static void reference(int mode, const double *x, int nd, const int64_t *shape, int ax, double *ref, double *amax)
{
    int64_t outer = 1, n = nd ? shape[ax] : 1, inner = 1;
    for (int i = 0; i < ax; i++) outer *= shape[i];
    for (int i = ax + 1; i < nd; i++) inner *= shape[i];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < inner; j++) {
            double m = -INFINITY, a = 0;
            bool nan = false;
            for (int64_t k = 0; k < n; k++) {
                double v = x[(o * n + k) * inner + j];
                if (v > m) m = v;
                if (v != v) nan = true;
                if (fabs(v) > a && isfinite(v)) a = fabs(v);
            }
            if (nan) m = NAN;
            else if (mode != 0 && !isfinite(m)) m = 0;
            double s = 0;
            for (int64_t k = 0; k < n; k++) s += exp(x[(o * n + k) * inner + j] - m);
            if (mode == 2) {
                ref[o * inner + j] = m + log(s);
                amax[o * inner + j] = a;
                continue;
            }
            for (int64_t k = 0; k < n; k++) {
                const int64_t i = (o * n + k) * inner + j;
                ref[i] = mode == 0 ? exp(x[i] - m) / s : (x[i] - m) - log(s);
                amax[i] = a;
            }
        }
}

static bool close_to(double got, double ref, double tol)
{
    if (isnan(ref)) return isnan(got);
    if (isinf(ref)) return got == ref;
    return fabs(got - ref) <= tol;
}

static void check_vals(const char *what, const double *got, const double *ref, const double *amax, int64_t n,
                       nd_dtype res, nd_dtype in, bool rel)
{
    const double eo = eps_of(res), ea = in == ND_FLOAT64 || in == ND_INT32 ? 0x1p-53 : 0x1p-24;
    for (int64_t i = 0; i < n; i++) {
        /* + the spacing of the output's subnormals (float16's reach 6e-5) */
        const double sub = res == ND_FLOAT16 ? 0x1p-24 : res == ND_FLOAT32 || res == ND_BFLOAT16 ? 0x1p-149 : 1e-300;
        const double tol = 4 * eo * fabs(ref[i]) + 16 * ea * (1 + amax[i]) * (rel ? fabs(ref[i]) : 1.0) + sub;
        ck_assert_msg(close_to(got[i], ref[i], tol), "%s: element %lld = %.9g, want %.9g (tol %.3g)", what,
                      (long long)i, got[i], ref[i], tol);
    }
}

typedef struct {
    int nd;
    int64_t shape[4];
} shp;
static const shp SHAPES[] = {{1, {7}}, {2, {5, 33}}, {3, {3, 4, 5}}, {2, {2, 1500}}, {2, {3, 1100}}};

static void run_axis_cases(nd_device dev)
{
    for (size_t si = 0; si < sizeof SHAPES / sizeof *SHAPES; si++) {
        const shp *S = &SHAPES[si];
        for (int di = 0; di < 5; di++) {
            const nd_dtype t = DTS[di], rt = t == ND_INT32 ? ND_FLOAT64 : t;
            for (int l = 0; l < L_N; l++) {
                if (S->nd < 2 && l != L_CONTIG) continue;
                nd_array *x = make(dev, t, S->nd, S->shape, l, 8.0);
                double *xv = cv_values(x);
                const int64_t n = nd_size(x);
                double *ref = malloc(sizeof(double) * (size_t)n), *am = malloc(sizeof(double) * (size_t)n);
                for (int ax = -1; ax < S->nd; ax++) {
                    const int axn = ax < 0 ? ax + S->nd : ax;
                    for (int mode = 0; mode < 3; mode++) {
                        char what[160];
                        snprintf(what, sizeof what, "%s %s shape %d-d #%zu %s axis %d on %s",
                                 mode == 0 ? "softmax" : mode == 1 ? "log_softmax" : "logsumexp", nd_dtype_name(t),
                                 S->nd, si, lname[l], ax, dev.type == ND_DEVICE_CPU ? "cpu" : "cuda");
                        reference(mode, xv, S->nd, S->shape, axn, ref, am);
                        nd_array *o = NULL;
                        if (mode == 2) {
                            ND_OK_OR_FAIL(nd_logsumexp(&o, x, 1, (const int[]){ax}, false));
                            ck_assert_int_eq(nd_ndim(o), S->nd - 1);
                        } else {
                            /* a poisoned out of the result dtype */
                            ND_OK_OR_FAIL(nd_full(&o, rt, S->nd, S->shape, nd_scalar_float(NAN), dev));
                            ND_OK_OR_FAIL((mode == 0 ? nd_softmax : nd_log_softmax)(&o, x, ax));
                        }
                        ck_assert_int_eq(nd_dtype_of(o), rt);
                        double *g = cv_values(o);
                        check_vals(what, g, ref, am, nd_size(o), rt, t, mode == 0);
                        free(g);
                        nd_release(o);
                    }
                }
                free(ref), free(am), free(xv);
                nd_release(x);
            }
        }
    }
}

/* outs of another dtype, in place, keepdims and several axes, 0-d, empty */
static void run_misc(nd_device dev)
{
    const int64_t s[3] = {4, 6, 5};
    nd_array *x = make(dev, ND_FLOAT32, 3, s, L_CONTIG, 5.0);
    double *xv = cv_values(x);
    double ref[120], am[120];
    /* float64 out from float32 input: the float32 kernel, cast once */
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT64, 3, s, nd_scalar_float(NAN), dev));
    ND_OK_OR_FAIL(nd_softmax(&o, x, 1));
    reference(0, xv, 3, s, 1, ref, am);
    double *g = cv_values(o);
    check_vals("softmax into a float64 out", g, ref, am, 120, ND_FLOAT32, ND_FLOAT32, true);
    free(g), nd_release(o), o = NULL;
    /* in place */
    nd_array *y = NULL;
    ND_OK_OR_FAIL(nd_copy(&y, x));
    ND_OK_OR_FAIL(nd_log_softmax(&y, y, -1));
    reference(1, xv, 3, s, 2, ref, am);
    g = cv_values(y);
    check_vals("log_softmax in place", g, ref, am, 120, ND_FLOAT32, ND_FLOAT32, false);
    free(g), nd_release(y);
    /* logsumexp over axes (0, 2), keepdims, against a direct double sum */
    ND_OK_OR_FAIL(nd_logsumexp(&o, x, 2, (const int[]){2, 0}, true));
    ck_assert_int_eq(nd_ndim(o), 3);
    ck_assert(nd_shape(o)[0] == 1 && nd_shape(o)[1] == 6 && nd_shape(o)[2] == 1);
    g = cv_values(o);
    for (int j = 0; j < 6; j++) {
        double m = -INFINITY, sum = 0;
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 5; k++) m = fmax(m, xv[(i * 6 + j) * 5 + k]);
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 5; k++) sum += exp(xv[(i * 6 + j) * 5 + k] - m);
        ck_assert_msg(fabs(g[j] - (m + log(sum))) <= 1e-5 * (1 + fabs(m)), "logsumexp axes (2, 0): %g vs %g", g[j],
                      m + log(sum));
    }
    free(g), nd_release(o), o = NULL;
    /* all axes */
    ND_OK_OR_FAIL(nd_logsumexp(&o, x, 0, NULL, false));
    ck_assert_int_eq(nd_ndim(o), 0);
    g = cv_values(o);
    double m = -INFINITY, sum = 0;
    for (int i = 0; i < 120; i++) m = fmax(m, xv[i]);
    for (int i = 0; i < 120; i++) sum += exp(xv[i] - m);
    ck_assert(fabs(g[0] - (m + log(sum))) <= 1e-5 * (1 + fabs(m)));
    free(g), nd_release(o), o = NULL;
    /* 0-d: softmax 1, log_softmax 0, logsumexp x */
    nd_array *z = NULL;
    ND_OK_OR_FAIL(nd_full(&z, ND_FLOAT32, 0, NULL, nd_scalar_float(3.5), dev));
    ND_OK_OR_FAIL(nd_softmax(&o, z, 0));
    g = cv_values(o);
    ck_assert(g[0] == 1.0);
    free(g), nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_logsumexp(&o, z, 0, NULL, false));
    g = cv_values(o);
    ck_assert(g[0] == 3.5);
    free(g), nd_release(o), o = NULL;
    nd_release(z);
    /* zero-size: (0, 5) softmax is (0, 5); logsumexp over an empty axis -inf */
    nd_array *e = NULL;
    ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT32, 2, (const int64_t[]){0, 5}, dev));
    ND_OK_OR_FAIL(nd_softmax(&o, e, 1));
    ck_assert_int_eq(nd_size(o), 0);
    nd_release(o), o = NULL, nd_release(e), e = NULL;
    ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT32, 2, (const int64_t[]){3, 0}, dev));
    ND_OK_OR_FAIL(nd_logsumexp(&o, e, 1, (const int[]){1}, false));
    g = cv_values(o);
    for (int i = 0; i < 3; i++) ck_assert(isinf(g[i]) && g[i] < 0);
    free(g), nd_release(o), o = NULL, nd_release(e);
    free(xv);
    nd_release(x);
}

/* +-1e4, all -inf, a +inf, a NaN: rows of 6 */
static void run_stability(nd_device dev)
{
    const double ninf = -INFINITY;
    const double rows[5][6] = {{1e4, -1e4, 0, 1e4 - 1, -5e3, 1e4 - 3},
                               {-1e4, -1e4 + 2, -1e4 + 1, -1e4, -1e4 + 0.5, -1e4 - 7},
                               {ninf, ninf, ninf, ninf, ninf, ninf},
                               {INFINITY, 1, 2, 3, 4, 5},
                               {1, 2, NAN, 3, 4, 5}};
    for (int di = 0; di < 4; di++) {
        const nd_dtype t = DTS[di];
        nd_array *x64 = NULL, *x = NULL;
        ND_OK_OR_FAIL(nd_from_host(&x64, rows, ND_FLOAT64, 2, (const int64_t[]){5, 6}, dev));
        ND_OK_OR_FAIL(nd_astype(&x, x64, t));
        double *xv = cv_values(x);
        double ref[30], am[30];
        for (int mode = 0; mode < 3; mode++) {
            nd_array *o = NULL;
            if (mode == 0) ND_OK_OR_FAIL(nd_softmax(&o, x, 1));
            else if (mode == 1) ND_OK_OR_FAIL(nd_log_softmax(&o, x, 1));
            else ND_OK_OR_FAIL(nd_logsumexp(&o, x, 1, (const int[]){1}, false));
            reference(mode, xv, 2, (const int64_t[]){5, 6}, 1, ref, am);
            double *g = cv_values(o);
            char what[96];
            snprintf(what, sizeof what, "stability mode %d %s on %s", mode, nd_dtype_name(t),
                     dev.type == ND_DEVICE_CPU ? "cpu" : "cuda");
            check_vals(what, g, ref, am, nd_size(o), t, t, mode == 0);
            if (mode == 0) {
                for (int k = 0; k < 6; k++) ck_assert_msg(isnan(g[12 + k]), "%s: all -inf row not NaN", what);
                for (int k = 0; k < 6; k++) ck_assert_msg(isnan(g[24 + k]), "%s: NaN row not NaN", what);
                double s = 0;
                for (int k = 0; k < 6; k++) s += g[k];
                ck_assert_msg(fabs(s - 1) < 8 * eps_of(t) + 1e-6, "%s: the +-1e4 row sums to %g", what, s);
            }
            if (mode == 2) {
                ck_assert(isinf(g[2]) && g[2] < 0); /* all -inf: -inf */
                ck_assert(isinf(g[3]) && g[3] > 0); /* a +inf: +inf */
                ck_assert(isnan(g[4]));
                ck_assert(isfinite(g[0]) && isfinite(g[1]));
            }
            free(g), nd_release(o);
        }
        free(xv), nd_release(x), nd_release(x64);
    }
}

/* cross-entropy against a float64 reference */
static void ce_reference(const double *x, const int64_t *lab, int64_t outer, int64_t C, int64_t inner,
                         int64_t ignore, double *per, double *sum, double *mean)
{
    double s = 0;
    int64_t cnt = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < inner; j++) {
            const int64_t L = lab[o * inner + j];
            double v = 0;
            if (L != ignore) {
                double m = -INFINITY, e = 0;
                for (int64_t k = 0; k < C; k++) m = fmax(m, x[(o * C + k) * inner + j]);
                if (!isfinite(m)) m = 0;
                for (int64_t k = 0; k < C; k++) e += exp(x[(o * C + k) * inner + j] - m);
                v = m + log(e) - x[(o * C + L) * inner + j];
                cnt++;
            }
            per[o * inner + j] = v;
            s += v;
        }
    *sum = s;
    *mean = s / (double)cnt;
}

static void run_ce(nd_device dev)
{
    const struct {
        int nd;
        int64_t shape[3];
        int ax;
    } cs[] = {{2, {6, 10}, -1}, {3, {4, 5, 3}, 1}, {2, {3, 1500}, 1}, {1, {9}, 0}};
    for (size_t ci = 0; ci < sizeof cs / sizeof *cs; ci++) {
        const int nd = cs[ci].nd, ax = cs[ci].ax < 0 ? cs[ci].ax + nd : cs[ci].ax;
        const int64_t *sh = cs[ci].shape, C = sh[ax];
        int64_t outer = 1, inner = 1, ls[3];
        int ln = 0;
        for (int i = 0; i < nd; i++) {
            if (i < ax) outer *= sh[i];
            if (i > ax) inner *= sh[i];
            if (i != ax) ls[ln++] = sh[i];
        }
        int64_t ns = outer * inner;
        int64_t *lab = malloc(sizeof(int64_t) * (size_t)ns);
        for (int64_t i = 0; i < ns; i++) lab[i] = (i % 4 == 3) ? -100 : (int64_t)(rnd() % (uint64_t)C);
        if (ns == 1) lab[0] = 2;
        for (int di = 0; di < 4; di++) {
            const nd_dtype t = DTS[di];
            for (int l = 0; l < 2; l++) {
                nd_array *x = make(dev, t, nd, sh, l == 0 ? L_CONTIG : L_TRANS, 6.0), *lb = NULL, *lb32 = NULL;
                double *xv = cv_values(x);
                ND_OK_OR_FAIL(nd_from_host(&lb, lab, ND_INT64, ln, ls, dev));
                ND_OK_OR_FAIL(nd_astype(&lb32, lb, ND_INT32));
                double *per = malloc(sizeof(double) * (size_t)ns), sum, mean;
                ce_reference(xv, lab, outer, C, inner, -100, per, &sum, &mean);
                double amax = 0;
                for (int64_t i = 0; i < nd_size(x); i++) amax = fmax(amax, fabs(xv[i]));
                const double eo = eps_of(t), ea = t == ND_FLOAT64 ? 0x1p-53 : 0x1p-24;
                for (int red = 0; red < 3; red++) {
                    nd_array *o = NULL;
                    ND_OK_OR_FAIL(nd_cross_entropy(&o, x, red == 1 ? lb32 : lb, cs[ci].ax, (nd_reduction)red, -100));
                    ck_assert_int_eq(nd_dtype_of(o), t);
                    double *g = cv_values(o);
                    char what[128];
                    snprintf(what, sizeof what, "cross_entropy #%zu %s layout %d reduction %d on %s", ci,
                             nd_dtype_name(t), l, red, dev.type == ND_DEVICE_CPU ? "cpu" : "cuda");
                    if (red == ND_REDUCTION_NONE) {
                        ck_assert_int_eq(nd_size(o), ns);
                        for (int64_t i = 0; i < ns; i++)
                            ck_assert_msg(fabs(g[i] - per[i]) <= 4 * eo * fabs(per[i]) + 32 * ea * (1 + amax),
                                          "%s: sample %lld %.9g vs %.9g", what, (long long)i, g[i], per[i]);
                    } else {
                        ck_assert_int_eq(nd_ndim(o), 0);
                        const double want = red == ND_REDUCTION_SUM ? sum : mean;
                        const double tol = 4 * eo * fabs(want) + (double)ns * (4 * eo + 32 * ea) * (1 + amax);
                        ck_assert_msg(fabs(g[0] - want) <= tol, "%s: %.9g vs %.9g", what, g[0], want);
                    }
                    free(g), nd_release(o);
                }
                free(per), free(xv), nd_release(x), nd_release(lb), nd_release(lb32);
            }
        }
        free(lab);
    }
    /* every label ignored: the mean is NaN, the sum 0 */
    nd_array *x = make(dev, ND_FLOAT32, 2, (const int64_t[]){3, 4}, L_CONTIG, 1.0), *lb = NULL, *o = NULL;
    ND_OK_OR_FAIL(nd_full(&lb, ND_INT64, 1, (const int64_t[]){3}, nd_scalar_int(-100), dev));
    ND_OK_OR_FAIL(nd_cross_entropy(&o, x, lb, 1, ND_REDUCTION_MEAN, -100));
    double *g = cv_values(o);
    ck_assert(isnan(g[0]));
    free(g), nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_cross_entropy(&o, x, lb, 1, ND_REDUCTION_SUM, -100));
    g = cv_values(o);
    ck_assert(g[0] == 0);
    free(g), nd_release(o), o = NULL;
    /* errors: bad label (status and PyTorch's message), shapes, dtypes */
    const int64_t bad[3] = {0, 4, 1};
    nd_array *lbad = NULL, *lf = NULL, *l2 = NULL;
    ND_OK_OR_FAIL(nd_from_host(&lbad, bad, ND_INT64, 1, (const int64_t[]){3}, dev));
    ND_EXPECT_ERR(nd_cross_entropy(&o, x, lbad, 1, ND_REDUCTION_MEAN, -100), ND_ERR_INVALID, "Target 4 is out of bounds.");
    ck_assert_ptr_null(o);
    const int64_t neg[3] = {0, -3, 1};
    nd_release(lbad), lbad = NULL;
    ND_OK_OR_FAIL(nd_from_host(&lbad, neg, ND_INT64, 1, (const int64_t[]){3}, dev));
    ND_EXPECT_ERR(nd_cross_entropy(&o, x, lbad, 1, ND_REDUCTION_NONE, -100), ND_ERR_INVALID, "Target -3 is out of bounds.");
    ND_OK_OR_FAIL(nd_zeros(&lf, ND_FLOAT32, 1, (const int64_t[]){3}, dev));
    ND_EXPECT_ERR(nd_cross_entropy(&o, x, lf, 1, ND_REDUCTION_MEAN, -100), ND_ERR_DTYPE, "integer dtype");
    ND_OK_OR_FAIL(nd_zeros(&l2, ND_INT64, 1, (const int64_t[]){4}, dev));
    ND_EXPECT_ERR(nd_cross_entropy(&o, x, l2, 1, ND_REDUCTION_MEAN, -100), ND_ERR_SHAPE, "Expected target size [3], got [4]");
    ND_EXPECT_ERR(nd_cross_entropy(&o, x, lb, 2, ND_REDUCTION_MEAN, -100), ND_ERR_SHAPE, "axis 2 is out of bounds");
    ND_EXPECT_ERR(nd_cross_entropy(&o, x, lb, 1, (nd_reduction)7, -100), ND_ERR_INVALID, "reduction");
    ND_EXPECT_ERR(nd_cross_entropy(&o, NULL, lb, 1, ND_REDUCTION_MEAN, -100), ND_ERR_INVALID, "logits");
    nd_release(lbad), nd_release(lf), nd_release(l2), nd_release(lb), nd_release(x);
}

static void run_errors(nd_device dev)
{
    nd_array *x = make(dev, ND_FLOAT32, 2, (const int64_t[]){3, 4}, L_CONTIG, 1.0), *o = NULL;
    ND_EXPECT_ERR(nd_softmax(&o, x, 2), ND_ERR_SHAPE, "axis 2 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_log_softmax(&o, x, -3), ND_ERR_SHAPE, "axis -3 is out of bounds");
    ND_EXPECT_ERR(nd_logsumexp(&o, x, 2, (const int[]){1, -1}, false), ND_ERR_INVALID, "duplicate value in 'axis'");
    ND_EXPECT_ERR(nd_logsumexp(&o, x, 1, (const int[]){5}, false), ND_ERR_SHAPE, "axis 5 is out of bounds");
    ND_EXPECT_ERR(nd_softmax(NULL, x, 0), ND_ERR_INVALID, "out");
    ND_EXPECT_ERR(nd_softmax(&o, NULL, 0), ND_ERR_INVALID, "x");
    /* an out of the wrong shape */
    ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT32, 2, (const int64_t[]){4, 3}, dev));
    ck_assert_int_eq(nd_softmax(&o, x, 1), ND_ERR_SHAPE);
    nd_release(o);
    nd_release(x);
}

static nd_device cuda0(void) { return (nd_device){ND_DEVICE_CUDA, 0}; }

/* float16 logits with a reduction: the per-sample losses stay in float32
 * (the header's accumulation) and the reduced value is rounded once, so a
 * mean that fits float16 is finite even where a sample's loss does not
 * fit. x = [[60000, -60000], [0, 0]], labels [1, 0]: losses 120000 and
 * ln 2, mean 60000.35 (float16 60000), sum inf, none [inf, 0.6934]. Also
 * log_softmax with a +inf in the row, as SciPy 1.17's log_softmax: NaN at
 * the +inf, -inf elsewhere (softmax: NaN throughout). */
static void run_half_reductions(nd_device dev)
{
    const double xv[4] = {60000, -60000, 0, 0};
    const int64_t lv[2] = {1, 0};
    nd_array *x64 = NULL, *x = NULL, *lb = NULL, *o = NULL;
    ND_OK_OR_FAIL(nd_from_host(&x64, xv, ND_FLOAT64, 2, (const int64_t[]){2, 2}, dev));
    ND_OK_OR_FAIL(nd_astype(&x, x64, ND_FLOAT16));
    ND_OK_OR_FAIL(nd_from_host(&lb, lv, ND_INT64, 1, (const int64_t[]){2}, dev));
    ND_OK_OR_FAIL(nd_cross_entropy(&o, x, lb, 1, ND_REDUCTION_MEAN, -100));
    ck_assert_int_eq(nd_dtype_of(o), ND_FLOAT16);
    double *g = cv_values(o);
    ck_assert_msg(g[0] == 60000.0, "float16 mean cross-entropy = %g, want 60000", g[0]);
    free(g), nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_cross_entropy(&o, x, lb, 1, ND_REDUCTION_SUM, -100));
    g = cv_values(o);
    ck_assert_msg(isinf(g[0]) && g[0] > 0, "float16 sum cross-entropy = %g, want inf", g[0]);
    free(g), nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_cross_entropy(&o, x, lb, 1, ND_REDUCTION_NONE, -100));
    g = cv_values(o);
    ck_assert_msg(isinf(g[0]) && g[1] == 0.693359375, "float16 losses = [%g, %.10g]", g[0], g[1]);
    free(g), nd_release(o), o = NULL;
    nd_release(lb), nd_release(x), nd_release(x64);
    x = x64 = NULL;

    const double row[3] = {INFINITY, 1, 2};
    for (int di = 0; di < 4; di++) {
        const nd_dtype t = DTS[di];
        ND_OK_OR_FAIL(nd_from_host(&x64, row, ND_FLOAT64, 1, (const int64_t[]){3}, dev));
        ND_OK_OR_FAIL(nd_astype(&x, x64, t));
        ND_OK_OR_FAIL(nd_log_softmax(&o, x, 0));
        g = cv_values(o);
        ck_assert_msg(isnan(g[0]) && isinf(g[1]) && g[1] < 0 && isinf(g[2]) && g[2] < 0,
                      "log_softmax([inf, 1, 2]) %s = [%g, %g, %g], want [nan, -inf, -inf]", nd_dtype_name(t), g[0], g[1],
                      g[2]);
        free(g), nd_release(o), o = NULL;
        ND_OK_OR_FAIL(nd_softmax(&o, x, 0));
        g = cv_values(o);
        ck_assert_msg(isnan(g[0]) && isnan(g[1]) && isnan(g[2]), "softmax([inf, 1, 2]) %s = [%g, %g, %g]",
                      nd_dtype_name(t), g[0], g[1], g[2]);
        free(g), nd_release(o), o = NULL;
        nd_release(x), nd_release(x64);
        x = x64 = NULL;
    }
}

START_TEST(axes_cpu) { run_axis_cases(nd_cpu()); }
END_TEST
START_TEST(misc_cpu) { run_misc(nd_cpu()); }
END_TEST
START_TEST(stability_cpu) { run_stability(nd_cpu()); }
END_TEST
START_TEST(ce_cpu) { run_ce(nd_cpu()); }
END_TEST
START_TEST(errors_cpu) { run_errors(nd_cpu()); }
END_TEST
START_TEST(axes_cuda) { run_axis_cases(cuda0()); }
END_TEST
START_TEST(misc_cuda) { run_misc(cuda0()); }
END_TEST
START_TEST(stability_cuda) { run_stability(cuda0()); }
END_TEST
START_TEST(ce_cuda) { run_ce(cuda0()); }
END_TEST
START_TEST(errors_cuda) { run_errors(cuda0()); }
END_TEST
START_TEST(half_reductions_cpu) { run_half_reductions(nd_cpu()); }
END_TEST
START_TEST(half_reductions_cuda) { run_half_reductions(cuda0()); }
END_TEST

Suite *suite_softmax(void)
{
    Suite *s = suite_create("softmax");
    TCase *tc = tcase_create("softmax");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, axes_cpu);
    tcase_add_test(tc, misc_cpu);
    tcase_add_test(tc, stability_cpu);
    tcase_add_test(tc, ce_cpu);
    tcase_add_test(tc, errors_cpu);
    tcase_add_test(tc, half_reductions_cpu);
    if (nd_test_gpu_count() > 0) {
        tcase_add_test(tc, axes_cuda);
        tcase_add_test(tc, misc_cuda);
        tcase_add_test(tc, stability_cuda);
        tcase_add_test(tc, ce_cuda);
        tcase_add_test(tc, errors_cuda);
        tcase_add_test(tc, half_reductions_cuda);
    } else {
        fprintf(stderr, "softmax: the cuda:0 cases SKIPPED (no CUDA device)\n");
    }
    suite_add_tcase(s, tc);
    return s;
}
