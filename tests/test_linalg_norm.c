/* Norms and products of numpy.linalg (src/linalg/norm.c, src/linalg/products.c):
 * nd_linalg_norm, nd_linalg_vector_norm, nd_linalg_matrix_norm,
 * nd_linalg_matrix_power, nd_linalg_multi_dot, nd_linalg_cross,
 * nd_linalg_vecdot, nd_kron, on nd_default_device() (ND_DEVICE=cuda:0
 * runs them on the emulated or real GPU).
 *
 * References are computed here in double from the values the arrays hold
 * (read back after rounding to their dtype): norms by their definitions
 * (vector p-norms, max/min of column/row sums, singular values by a
 * one-sided Jacobi SVD of the real 2m x 2n embedding of a complex matrix),
 * products by plain loops. Tolerances: relative, per result dtype (float16
 * 2e-3, bfloat16 1.6e-2, float32 2e-5, float64 1e-12) with an absolute
 * floor of the same size times the data's scale.
 *
 * Coverage: every vector ord (2, 1, inf, -inf, 0, 3, 0.5, -1, -2.5) over
 * all axes, one axis, negative axes and axis pairs, keepdims, for float32,
 * float64, complex64, complex128, int32, float16 and bool; every matrix
 * ord (fro, None, 1, -1, inf, -inf, 2, -2, nuc) over every axis pair of a
 * 3-D array (the singular-value ords need nd_linalg_svdvals: their test is
 * separate, svd_ords); norm's dispatch on axes=None; result dtypes; no
 * overflow/underflow of float32 and float16 2-norms; empty arrays
 * (NumPy's zeros and its "zero-size array ... minimum" errors); errors
 * with exact codes and messages; an out given (wider dtype, wrong shape,
 * wrong kind); matrix_power n = 0..6, 13 for float64, complex128, int32
 * (exact), bool and batches, n < 0 through nd_linalg_inv (separate test,
 * inv_powers); multi_dot of 2..5 arrays with 1-D ends; cross with
 * broadcasting and axes; vecdot with conjugation, integer wrap, bool;
 * kron of different ndims, 0-d and empty operands. No test uses all-zero
 * data. */
#include "linalg_util.h"

static nd_device DEV;

/* ------------------------------------------------------------------ */
/* host arrays                                                         */
/* ------------------------------------------------------------------ */
typedef struct H {
    nd_dtype t;
    int ndim;
    int64_t shape[8];
    int64_t n;
    double *re, *im;
} H;

static bool is_cpx(nd_dtype t) { return t == ND_COMPLEX64 || t == ND_COMPLEX128; }
static bool is_uint(nd_dtype t) { return t == ND_UINT8 || t == ND_UINT16 || t == ND_UINT32 || t == ND_UINT64; }
static bool is_int(nd_dtype t) { return (t >= ND_INT8 && t <= ND_INT64) || is_uint(t); }

static void h_free(H *h)
{
    free(h->re);
    free(h->im);
    h->re = h->im = NULL;
}

/* element i of raw host bytes of dtype t */
static void raw_load(const unsigned char *p, nd_dtype t, int64_t i, double *re, double *im)
{
    *im = 0;
    if (t == ND_COMPLEX64) {
        float f[2];
        memcpy(f, p + 8 * i, 8);
        *re = f[0], *im = f[1];
    } else if (t == ND_COMPLEX128) {
        double d[2];
        memcpy(d, p + 16 * i, 16);
        *re = d[0], *im = d[1];
    } else {
        *re = lu_load(p + lu_isz(t) * (size_t)i, t);
    }
}

static void raw_store(unsigned char *p, nd_dtype t, int64_t i, double re, double im)
{
    if (t == ND_COMPLEX64) {
        float f[2] = {(float)re, (float)im};
        memcpy(p + 8 * i, f, 8);
    } else if (t == ND_COMPLEX128) {
        double d[2] = {re, im};
        memcpy(p + 16 * i, d, 16);
    } else {
        lu_store(p + lu_isz(t) * (size_t)i, t, re);
    }
}

/* Read a back (any layout, any device) into a host H. */
static H get(const nd_array *a)
{
    H h;
    memset(&h, 0, sizeof h);
    h.t = nd_dtype_of(a);
    h.ndim = nd_ndim(a);
    ck_assert_int_le(h.ndim, 8);
    for (int i = 0; i < h.ndim; i++) h.shape[i] = nd_shape(a)[i];
    h.n = nd_size(a);
    size_t nb = nd_nbytes(a);
    unsigned char *buf = malloc(nb + 16);
    ND_OK_OR_FAIL(nd_copy_to_host(buf, a, nb));
    h.re = calloc((size_t)h.n + 1, sizeof(double));
    h.im = calloc((size_t)h.n + 1, sizeof(double));
    for (int64_t i = 0; i < h.n; i++) raw_load(buf, h.t, i, &h.re[i], &h.im[i]);
    free(buf);
    return h;
}

/* An array of dtype t and shape on DEV with deterministic nonzero data
 * (values in about [-4, 4]; ints small), and its host copy *h. */
static nd_array *mk(nd_dtype t, int ndim, const int64_t *shape, uint32_t seed, H *h)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    double *v = malloc(sizeof(double) * (size_t)(2 * n + 2));
    lu_fill(v, 2 * n + 2, ND_FLOAT64, seed);
    unsigned char *buf = calloc((size_t)n + 1, 16);
    for (int64_t i = 0; i < n; i++) {
        double re = v[2 * i], im = v[2 * i + 1];
        if (re == 0) re = 0.625;
        if (t == ND_BOOL) {
            re = (i % 3) != 1;
        } else if (is_int(t)) {
            re = (double)(int)(re * 2.0);
            if (re == 0) re = -2;
            if (is_uint(t) && re < 0) re = -re;
        }
        raw_store(buf, t, i, re, im);
    }
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, buf, t, ndim, shape, DEV));
    free(v);
    free(buf);
    if (h) *h = get(a);
    return a;
}

static nd_array *from_vals(nd_dtype t, int ndim, const int64_t *shape, const double *re, const double *im)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    unsigned char *buf = calloc((size_t)n + 1, 16);
    for (int64_t i = 0; i < n; i++) raw_store(buf, t, i, re[i], im ? im[i] : 0);
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, buf, t, ndim, shape, DEV));
    free(buf);
    return a;
}

static double rtol_of(nd_dtype t)
{
    switch (t) {
    case ND_FLOAT16: return 2e-3;
    case ND_BFLOAT16: return 1.6e-2;
    case ND_FLOAT32: case ND_COMPLEX64: return 2e-5;
    default: return 1e-12;
    }
}

static bool close_to(double g, double r, double tol, double scale)
{
    if (isnan(r)) return isnan(g);
    if (isinf(r)) return g == r;
    return fabs(g - r) <= tol * (fabs(r) + scale);
}

/* r must have dtype t, the given shape, and values ref (im NULL: real). */
static void expect(const char *what, const nd_array *r, nd_dtype t, int ndim, const int64_t *shape, const double *ref_re,
                   const double *ref_im, double tol, double scale)
{
    ck_assert_msg(nd_dtype_of(r) == t, "%s: dtype %s, want %s", what, nd_dtype_name(nd_dtype_of(r)), nd_dtype_name(t));
    ck_assert_msg(nd_ndim(r) == ndim, "%s: ndim %d, want %d", what, nd_ndim(r), ndim);
    for (int i = 0; i < ndim; i++)
        ck_assert_msg(nd_shape(r)[i] == shape[i], "%s: shape[%d] %lld, want %lld", what, i, (long long)nd_shape(r)[i],
                      (long long)shape[i]);
    H g = get(r);
    for (int64_t i = 0; i < g.n; i++) {
        ck_assert_msg(close_to(g.re[i], ref_re[i], tol, scale), "%s: [%lld] = %.17g, want %.17g", what, (long long)i,
                      g.re[i], ref_re[i]);
        double wi = ref_im ? ref_im[i] : 0;
        ck_assert_msg(close_to(g.im[i], wi, tol, scale), "%s: imag [%lld] = %.17g, want %.17g", what, (long long)i,
                      g.im[i], wi);
    }
    h_free(&g);
}

static void unravel(const H *x, int64_t flat, int64_t *idx)
{
    for (int k = x->ndim - 1; k >= 0; k--) {
        idx[k] = x->shape[k] ? flat % x->shape[k] : 0;
        flat = x->shape[k] ? flat / x->shape[k] : 0;
    }
}

/* linear index over the axes not in red (C order) */
static int64_t out_index(const H *x, const bool *red, const int64_t *idx)
{
    int64_t o = 0;
    for (int k = 0; k < x->ndim; k++)
        if (!red[k]) o = o * x->shape[k] + idx[k];
    return o;
}

static int out_shape(const H *x, const bool *red, bool keepdims, int64_t *shape, int64_t *n)
{
    int m = 0;
    *n = 1;
    for (int k = 0; k < x->ndim; k++) {
        if (!red[k]) shape[m++] = x->shape[k], *n *= x->shape[k];
        else if (keepdims) shape[m++] = 1;
    }
    return m;
}

static nd_dtype norm_dtype(nd_dtype t)
{
    if (t == ND_FLOAT16 || t == ND_BFLOAT16 || t == ND_FLOAT32 || t == ND_FLOAT64) return t;
    if (t == ND_COMPLEX64) return ND_FLOAT32;
    return ND_FLOAT64;
}

/* ------------------------------------------------------------------ */
/* references                                                          */
/* ------------------------------------------------------------------ */
static void ref_vec(const H *x, const bool *red, double p, double *out, int64_t nout)
{
    for (int64_t o = 0; o < nout; o++) out[o] = p == -INFINITY ? INFINITY : 0;
    int64_t idx[8];
    for (int64_t f = 0; f < x->n; f++) {
        unravel(x, f, idx);
        int64_t o = out_index(x, red, idx);
        double a = hypot(x->re[f], x->im[f]);
        if (p == INFINITY) out[o] = fmax(out[o], a);
        else if (p == -INFINITY) out[o] = fmin(out[o], a);
        else if (p == 0) out[o] += a != 0;
        else if (p == 1) out[o] += a;
        else out[o] += pow(a, p);
    }
    if (!(p == INFINITY || p == -INFINITY || p == 0 || p == 1))
        for (int64_t o = 0; o < nout; o++) out[o] = p == 2 ? sqrt(out[o]) : pow(out[o], 1.0 / p);
}

/* singular values (descending, min(m, n) of them) of the m x n real matrix b (row-major) */
static void jacobi_sv(const double *b, int m, int n, double *sv)
{
    bool tr = m < n;
    int R = tr ? n : m, C = tr ? m : n;
    double *a = malloc(sizeof(double) * (size_t)(R * C + 1));
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) a[i * C + j] = tr ? b[j * n + i] : b[i * n + j];
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0;
        for (int p = 0; p < C - 1; p++)
            for (int q = p + 1; q < C; q++) {
                double al = 0, be = 0, ga = 0;
                for (int i = 0; i < R; i++) {
                    al += a[i * C + p] * a[i * C + p];
                    be += a[i * C + q] * a[i * C + q];
                    ga += a[i * C + p] * a[i * C + q];
                }
                if (ga == 0 || fabs(ga) <= 1e-17 * sqrt(al * be)) continue;
                off = fmax(off, fabs(ga) / sqrt(al * be));
                double zeta = (be - al) / (2 * ga);
                double t = (zeta >= 0 ? 1 : -1) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double c = 1 / sqrt(1 + t * t), s = c * t;
                for (int i = 0; i < R; i++) {
                    double x = a[i * C + p], y = a[i * C + q];
                    a[i * C + p] = c * x - s * y;
                    a[i * C + q] = s * x + c * y;
                }
            }
        if (off < 1e-16) break;
    }
    for (int j = 0; j < C; j++) {
        double s = 0;
        for (int i = 0; i < R; i++) s += a[i * C + j] * a[i * C + j];
        sv[j] = sqrt(s);
    }
    for (int i = 0; i < C; i++) /* sort descending */
        for (int j = i + 1; j < C; j++)
            if (sv[j] > sv[i]) {
                double t = sv[i];
                sv[i] = sv[j];
                sv[j] = t;
            }
    free(a);
}

/* singular values of the complex m x n matrix (re, im row-major): those of
 * the real embedding [[Re, -Im], [Im, Re]], each twice */
static void cpx_sv(const double *re, const double *im, int m, int n, double *sv)
{
    double *b = calloc((size_t)(4 * m * n + 1), sizeof(double));
    double *s2 = calloc((size_t)(2 * (m > n ? m : n) + 1), sizeof(double));
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double r = re[i * n + j], c = im[i * n + j];
            b[i * 2 * n + j] = r;
            b[i * 2 * n + n + j] = -c;
            b[(m + i) * 2 * n + j] = c;
            b[(m + i) * 2 * n + n + j] = r;
        }
    jacobi_sv(b, 2 * m, 2 * n, s2);
    int k = m < n ? m : n;
    for (int i = 0; i < k; i++) sv[i] = s2[2 * i];
    free(b);
    free(s2);
}

/* matrix norm over rows r, columns c; out has nout entries */
static void ref_mat(const H *x, int r, int c, nd_norm_ord ord, double *out, int64_t nout)
{
    bool red[8] = {false};
    red[r] = red[c] = true;
    int M = (int)x->shape[r], N = (int)x->shape[c];
    double *mr = calloc((size_t)(M * N + 1), sizeof(double)), *mi = calloc((size_t)(M * N + 1), sizeof(double));
    double *sv = calloc((size_t)(M + N + 1), sizeof(double));
    int64_t idx[8];
    for (int64_t o = 0; o < nout; o++) {
        for (int64_t f = 0; f < x->n; f++) {
            unravel(x, f, idx);
            if (out_index(x, red, idx) != o) continue;
            mr[idx[r] * N + idx[c]] = x->re[f];
            mi[idx[r] * N + idx[c]] = x->im[f];
        }
        double v = 0;
        if (ord.kind == ND_NORM_DEFAULT || ord.kind == ND_NORM_FRO) {
            for (int i = 0; i < M * N; i++) v += mr[i] * mr[i] + mi[i] * mi[i];
            v = sqrt(v);
        } else if (ord.kind == ND_NORM_NUC || ord.p == 2 || ord.p == -2) {
            cpx_sv(mr, mi, M, N, sv);
            int k = M < N ? M : N;
            v = ord.kind == ND_NORM_NUC ? 0 : ord.p > 0 ? 0 : INFINITY;
            for (int i = 0; i < k; i++)
                v = ord.kind == ND_NORM_NUC ? v + sv[i] : ord.p > 0 ? fmax(v, sv[i]) : fmin(v, sv[i]);
        } else {
            bool cols = ord.p == 1 || ord.p == -1, mx = ord.p > 0;
            int outer = cols ? N : M, inner = cols ? M : N;
            v = mx ? 0 : INFINITY;
            for (int u = 0; u < outer; u++) {
                double s = 0;
                for (int w = 0; w < inner; w++) {
                    int i = cols ? w : u, j = cols ? u : w;
                    s += hypot(mr[i * N + j], mi[i * N + j]);
                }
                v = mx ? fmax(v, s) : fmin(v, s);
            }
        }
        out[o] = v;
    }
    free(mr);
    free(mi);
    free(sv);
}

/* ------------------------------------------------------------------ */
/* vector norms                                                        */
/* ------------------------------------------------------------------ */
static const nd_dtype VDT[] = {ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128, ND_INT32, ND_FLOAT16, ND_BOOL};
static const double VORD[] = {2, 1, INFINITY, -INFINITY, 0, 3, 0.5, -1, -2.5};

static void check_vec(const char *tag, const nd_array *a, const H *x, double p, int naxes, const int *axes, bool kd,
                      bool via_norm)
{
    bool red[8] = {false};
    for (int k = 0; k < x->ndim; k++) red[k] = axes == NULL;
    for (int i = 0; axes && i < naxes; i++) red[axes[i] < 0 ? axes[i] + x->ndim : axes[i]] = true;
    int64_t shape[8], nout;
    int nd = out_shape(x, red, kd, shape, &nout);
    double *ref = calloc((size_t)nout + 1, sizeof(double));
    ref_vec(x, red, p, ref, nout);
    nd_array *r = NULL;
    if (via_norm) ND_OK_OR_FAIL(nd_linalg_norm(&r, a, nd_norm_p(p), naxes, axes, kd));
    else ND_OK_OR_FAIL(nd_linalg_vector_norm(&r, a, p, naxes, axes, kd));
    char what[160];
    snprintf(what, sizeof what, "%s %s ord %g naxes %d kd %d", tag, nd_dtype_name(x->t), p, axes ? naxes : -1, kd);
    nd_dtype rt = norm_dtype(x->t);
    expect(what, r, rt, nd, shape, ref, NULL, rtol_of(rt), p == 0 ? 0 : 1e-300);
    nd_release(r);
    free(ref);
}

START_TEST(vector_ords)
{
    static const int64_t sh[3] = {3, 4, 5};
    static const int ax1[1] = {1}, axm1[1] = {-1}, ax02[2] = {0, 2}, ax20[2] = {2, 0};
    for (size_t d = 0; d < sizeof VDT / sizeof *VDT; d++) {
        H x;
        nd_array *a = mk(VDT[d], 3, sh, 11 + (uint32_t)d, &x);
        for (size_t o = 0; o < sizeof VORD / sizeof *VORD; o++)
            for (int kd = 0; kd < 2; kd++) {
                double p = VORD[o];
                check_vec("vector_norm all", a, &x, p, -1, NULL, kd, false);
                check_vec("vector_norm ax1", a, &x, p, 1, ax1, kd, false);
                check_vec("vector_norm ax-1", a, &x, p, 1, axm1, kd, false);
                check_vec("vector_norm ax02", a, &x, p, 2, ax02, kd, false);
                check_vec("vector_norm ax20", a, &x, p, 2, ax20, kd, false);
                check_vec("norm ax1", a, &x, p, 1, ax1, kd, true);
                check_vec("norm ax-1", a, &x, p, 1, axm1, kd, true);
            }
        /* a transposed (non-contiguous) view */
        nd_array *t = NULL;
        ND_OK_OR_FAIL(nd_transpose(&t, a, NULL));
        H xt = get(t);
        static const int ax0[1] = {0};
        check_vec("transposed", t, &xt, 2, 1, ax0, false, false);
        check_vec("transposed", t, &xt, 1, 1, ax0, true, true);
        check_vec("transposed", t, &xt, -INFINITY, 1, ax0, false, true);
        h_free(&xt);
        nd_release(t);
        /* axes given but none (NumPy's axis=()): elementwise |x| */
        check_vec("no axes", a, &x, 2, 0, ax1, false, false);
        h_free(&x);
        nd_release(a);
    }
}
END_TEST

START_TEST(vector_zeros_counted)
{
    static const double v[6] = {0, 1.5, 0, -2, 0, 0.25};
    static const int64_t sh[1] = {6};
    nd_array *a = from_vals(ND_FLOAT64, 1, sh, v, NULL), *r = NULL;
    ND_OK_OR_FAIL(nd_linalg_vector_norm(&r, a, 0, -1, NULL, false));
    double three = 3, ninf = 0.25, inv = 1.0 / (1 / 1.5 + 1 / 2.0 + 1 / 0.25);
    expect("ord 0", r, ND_FLOAT64, 0, NULL, &three, NULL, 0, 0);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_linalg_vector_norm(&r, a, -INFINITY, -1, NULL, false));
    double zero = 0;
    expect("ord -inf with zeros", r, ND_FLOAT64, 0, NULL, &zero, NULL, 0, 0);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_linalg_vector_norm(&r, a, -1, -1, NULL, false)); /* 1/sum(1/|x|) with 1/0 = inf: 0 */
    expect("ord -1 with zeros", r, ND_FLOAT64, 0, NULL, &zero, NULL, 0, 0);
    nd_release(r);
    (void)ninf;
    (void)inv;
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* matrix norms                                                        */
/* ------------------------------------------------------------------ */
static void check_mat(const char *tag, const nd_array *a, const H *x, nd_norm_ord ord, int r, int c, bool kd, int how)
{
    int rr = r < 0 ? r + x->ndim : r, cc = c < 0 ? c + x->ndim : c;
    bool red[8] = {false};
    red[rr] = red[cc] = true;
    int64_t shape[8], nout;
    int nd = out_shape(x, red, kd, shape, &nout);
    double *ref = calloc((size_t)nout + 1, sizeof(double));
    ref_mat(x, rr, cc, ord, ref, nout);
    nd_array *res = NULL;
    nd_status st;
    if (how == 0) st = nd_linalg_norm(&res, a, ord, 2, (const int[]){r, c}, kd);
    else if (how == 1) st = nd_linalg_matrix_norm(&res, a, ord, kd);
    else st = nd_linalg_norm(&res, a, ord, -1, NULL, kd);
    char what[160];
    snprintf(what, sizeof what, "%s %s ord kind %d p %g axes (%d,%d) kd %d", tag, nd_dtype_name(x->t), (int)ord.kind,
             ord.p, r, c, kd);
    ck_assert_msg(st == ND_OK, "%s -> %s: %s", what, nd_status_name(st), nd_last_error());
    nd_dtype rt = norm_dtype(x->t);
    bool svd = ord.kind == ND_NORM_NUC || (ord.kind == ND_NORM_P && fabs(ord.p) == 2);
    double tol = rtol_of(rt) * (svd ? 50 : 1);
    expect(what, res, rt, nd, shape, ref, NULL, tol, svd ? 1 : 1e-300);
    nd_release(res);
    free(ref);
}

static const nd_dtype MDT[] = {ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128, ND_INT32, ND_FLOAT16};
static const int PAIRS[][2] = {{1, 2}, {2, 1}, {0, 2}, {-1, -3}, {0, 1}};

static void mat_ords(const nd_norm_ord *ords, int nords, const nd_dtype *dts, int ndt)
{
    static const int64_t sh[3] = {2, 3, 4};
    for (int d = 0; d < ndt; d++) {
        H x;
        nd_array *a = mk(dts[d], 3, sh, 31 + (uint32_t)d, &x);
        for (int o = 0; o < nords; o++)
            for (int kd = 0; kd < 2; kd++) {
                for (size_t pi = 0; pi < sizeof PAIRS / sizeof *PAIRS; pi++)
                    check_mat("norm", a, &x, ords[o], PAIRS[pi][0], PAIRS[pi][1], kd, 0);
                check_mat("matrix_norm", a, &x, ords[o], -2, -1, kd, 1);
            }
        /* 2-D with axes NULL */
        nd_array *m = NULL;
        ND_OK_OR_FAIL(nd_slice(&m, a, 1, (nd_range[]){{1, 2, 1}}));
        nd_array *m2 = NULL;
        ND_OK_OR_FAIL(nd_squeeze(&m2, m, 1, (const int[]){0}));
        H x2 = get(m2);
        for (int o = 0; o < nords; o++) check_mat("norm 2-D axes None", m2, &x2, ords[o], 0, 1, o % 2, 2);
        h_free(&x2);
        nd_release(m);
        nd_release(m2);
        h_free(&x);
        nd_release(a);
    }
}

START_TEST(matrix_ords)
{
    const nd_norm_ord ords[] = {nd_norm_named(ND_NORM_FRO), nd_norm_named(ND_NORM_DEFAULT), nd_norm_p(1), nd_norm_p(-1),
                                nd_norm_p(INFINITY), nd_norm_p(-INFINITY)};
    mat_ords(ords, 6, MDT, 6);
}
END_TEST

/* ord 2, -2, 'nuc': the singular values (nd_linalg_svdvals) */
START_TEST(svd_ords)
{
    const nd_norm_ord ords[] = {nd_norm_p(2), nd_norm_p(-2), nd_norm_named(ND_NORM_NUC)};
    static const nd_dtype dts[] = {ND_FLOAT64, ND_COMPLEX128, ND_FLOAT32, ND_COMPLEX64, ND_INT32};
    mat_ords(ords, 3, dts, 5);
}
END_TEST

START_TEST(norm_dispatch)
{
    /* axes NULL, ord None: the 2-norm of the flattened array, any ndim */
    static const int64_t s3[3] = {2, 3, 4}, s1[1] = {7};
    H x;
    nd_array *a = mk(ND_FLOAT64, 3, s3, 5, &x), *r = NULL;
    double ref = 0;
    for (int64_t i = 0; i < x.n; i++) ref += x.re[i] * x.re[i];
    ref = sqrt(ref);
    ND_OK_OR_FAIL(nd_linalg_norm(&r, a, nd_norm_named(ND_NORM_DEFAULT), -1, NULL, false));
    expect("norm None 3-D", r, ND_FLOAT64, 0, NULL, &ref, NULL, 1e-13, 0);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_linalg_norm(&r, a, nd_norm_named(ND_NORM_DEFAULT), 5 /* ignored */, NULL, true));
    expect("norm None 3-D keepdims", r, ND_FLOAT64, 3, (const int64_t[]){1, 1, 1}, &ref, NULL, 1e-13, 0);
    nd_release(r);
    r = NULL;
    /* ord given on a 3-D array with axes None */
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, nd_norm_p(2), -1, NULL, false), ND_ERR_SHAPE,
                  "Improper number of dimensions to norm.");
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, nd_norm_named(ND_NORM_FRO), -1, NULL, false), ND_ERR_SHAPE,
                  "Improper number of dimensions to norm.");
    ck_assert_ptr_null(r);
    h_free(&x);
    nd_release(a);
    /* 1-D with ord p, axes None: the vector norm */
    a = mk(ND_COMPLEX128, 1, s1, 6, &x);
    bool red[1] = {true};
    const double ps[] = {3, INFINITY, -INFINITY, 1, 0, 2, -1};
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
        double v;
        ref_vec(&x, red, ps[i], &v, 1);
        ND_OK_OR_FAIL(nd_linalg_norm(&r, a, nd_norm_p(ps[i]), -1, NULL, i % 2));
        expect("norm 1-D", r, ND_FLOAT64, i % 2, (const int64_t[]){1}, &v, NULL, 1e-13, 0);
        nd_release(r);
        r = NULL;
    }
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, nd_norm_named(ND_NORM_FRO), -1, NULL, false), ND_ERR_INVALID,
                  "Invalid norm order 'fro' for vectors");
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, nd_norm_named(ND_NORM_NUC), 1, (const int[]){0}, false), ND_ERR_INVALID,
                  "Invalid norm order 'nuc' for vectors");
    h_free(&x);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* dtypes, range, empty arrays, errors, out                            */
/* ------------------------------------------------------------------ */
static void norm1(const char *what, nd_dtype t, int n, const double *re, const double *im, nd_dtype want, double ref,
                  double tol)
{
    int64_t sh[1] = {n};
    nd_array *a = from_vals(t, 1, sh, re, im), *r = NULL;
    ND_OK_OR_FAIL(nd_linalg_norm(&r, a, nd_norm_named(ND_NORM_DEFAULT), -1, NULL, false));
    expect(what, r, want, 0, NULL, &ref, NULL, tol, 0);
    nd_release(r);
    nd_release(a);
}

START_TEST(dtypes_and_range)
{
    static const double v34[2] = {3, 4}, z[2] = {0, 0};
    norm1("int32", ND_INT32, 2, v34, NULL, ND_FLOAT64, 5, 0);
    norm1("uint8", ND_UINT8, 2, v34, NULL, ND_FLOAT64, 5, 0);
    norm1("int64", ND_INT64, 2, v34, NULL, ND_FLOAT64, 5, 0);
    norm1("bool", ND_BOOL, 2, v34, NULL, ND_FLOAT64, sqrt(2.0), 1e-15);
    norm1("bfloat16", ND_BFLOAT16, 2, v34, NULL, ND_BFLOAT16, 5, 0);
    norm1("complex64", ND_COMPLEX64, 1, (const double[]){3}, (const double[]){4}, ND_FLOAT32, 5, 1e-7);
    norm1("complex128", ND_COMPLEX128, 2, v34, v34, ND_FLOAT64, sqrt(50.0), 1e-15);
    /* no needless overflow or underflow in the low precisions */
    norm1("float16 [300, 400]", ND_FLOAT16, 2, (const double[]){300, 400}, NULL, ND_FLOAT16, 500, 0);
    norm1("float32 huge", ND_FLOAT32, 2, (const double[]){3e30, 4e30}, NULL, ND_FLOAT32, 5e30, 1e-7);
    norm1("float32 tiny", ND_FLOAT32, 2, (const double[]){3e-30, 4e-30}, NULL, ND_FLOAT32, 5e-30, 1e-7);
    norm1("float32 subnormal", ND_FLOAT32, 2, (const double[]){3e-40, 4e-40}, NULL, ND_FLOAT32, 5e-40, 1e-4);
    norm1("complex64 huge", ND_COMPLEX64, 1, (const double[]){3e30}, (const double[]){4e30}, ND_FLOAT32, 5e30, 1e-7);
    norm1("complex64 zero imag", ND_COMPLEX64, 2, v34, z, ND_FLOAT32, 5, 1e-7);
    /* long vectors (the dot of 2^18 elements and more is summed on the
     * library's threads): against a long double sum; all 1e25 overflows
     * float32's dot and takes the float64 path */
    {
        enum { NL = 360007 };
        double *v = malloc(sizeof(double) * NL);
        ck_assert(v != NULL);
        long double ss = 0;
        for (int i = 0; i < NL; i++) {
            v[i] = (double)(float)(0.5 + ((i * 2654435761u) >> 8) * 0x1p-24);
            ss += (long double)v[i] * v[i];
        }
        norm1("float32 long", ND_FLOAT32, NL, v, NULL, ND_FLOAT32, (double)sqrtl(ss), 5e-7);
        /* (a device's dot may sum in another order: ~sqrt(n) eps, not the pool's log(n) eps) */
        norm1("float64 long", ND_FLOAT64, NL, v, NULL, ND_FLOAT64, (double)sqrtl(ss), 1e-12);
        for (int i = 0; i < NL; i++) v[i] = 1e25;
        norm1("float32 long huge", ND_FLOAT32, NL, v, NULL, ND_FLOAT32, 1e25 * sqrt((double)NL), 2e-7);
        free(v);
    }
    /* a p-norm of large float32 values */
    {
        int64_t sh[1] = {2};
        nd_array *a = from_vals(ND_FLOAT32, 1, sh, (const double[]){3e20, 4e20}, NULL), *r = NULL;
        ND_OK_OR_FAIL(nd_linalg_vector_norm(&r, a, 3, -1, NULL, false));
        double ref = cbrt(27.0 + 64.0) * 1e20;
        expect("float32 p=3 huge", r, ND_FLOAT32, 0, NULL, &ref, NULL, 2e-7, 0);
        nd_release(r);
        r = NULL;
        ND_EXPECT_ERR(nd_linalg_matrix_norm(&r, a, nd_norm_named(ND_NORM_FRO), false), ND_ERR_SHAPE, "out of bounds");
        nd_release(a);
        /* fro of a float32 matrix of huge values */
        int64_t s22[2] = {2, 2};
        a = from_vals(ND_FLOAT32, 2, s22, (const double[]){1e30, 1e30, 1e30, 1e30}, NULL);
        ND_OK_OR_FAIL(nd_linalg_matrix_norm(&r, a, nd_norm_named(ND_NORM_FRO), false));
        ref = 2e30;
        expect("float32 fro huge", r, ND_FLOAT32, 0, NULL, &ref, NULL, 2e-7, 0);
        nd_release(r);
        nd_release(a);
    }
}
END_TEST

START_TEST(empty_arrays)
{
    nd_array *r = NULL;
    const double zero = 0, inf = INFINITY;
    /* (0,) */
    nd_array *e = NULL;
    ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT32, 1, (const int64_t[]){0}, DEV));
    const double ok_ps[] = {2, 1, INFINITY, 0, 3, 0.5};
    for (size_t i = 0; i < sizeof ok_ps / sizeof *ok_ps; i++) {
        ND_OK_OR_FAIL(nd_linalg_vector_norm(&r, e, ok_ps[i], -1, NULL, false));
        expect("empty vector", r, ND_FLOAT32, 0, NULL, &zero, NULL, 0, 0);
        nd_release(r);
        r = NULL;
        ND_OK_OR_FAIL(nd_linalg_norm(&r, e, nd_norm_p(ok_ps[i]), -1, NULL, true));
        expect("empty vector via norm", r, ND_FLOAT32, 1, (const int64_t[]){1}, &zero, NULL, 0, 0);
        nd_release(r);
        r = NULL;
    }
    ND_OK_OR_FAIL(nd_linalg_vector_norm(&r, e, -1, -1, NULL, false));
    expect("empty vector ord -1", r, ND_FLOAT32, 0, NULL, &inf, NULL, 0, 0);
    nd_release(r);
    r = NULL;
    ND_EXPECT_ERR(nd_linalg_vector_norm(&r, e, -INFINITY, -1, NULL, false), ND_ERR_INVALID,
                  "zero-size array to reduction operation minimum which has no identity");
    ck_assert_ptr_null(r);
    nd_release(e);
    e = NULL;
    /* (2, 0) over axis 1, and over axis 0 (an empty result) */
    ND_OK_OR_FAIL(nd_zeros(&e, ND_INT32, 2, (const int64_t[]){2, 0}, DEV));
    const double z2[2] = {0, 0};
    ND_OK_OR_FAIL(nd_linalg_vector_norm(&r, e, INFINITY, 1, (const int[]){1}, false));
    expect("(2,0) inf", r, ND_FLOAT64, 1, (const int64_t[]){2}, z2, NULL, 0, 0);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_linalg_norm(&r, e, nd_norm_p(2), 1, (const int[]){1}, true));
    expect("(2,0) 2", r, ND_FLOAT64, 2, (const int64_t[]){2, 1}, z2, NULL, 0, 0);
    nd_release(r);
    r = NULL;
    ND_EXPECT_ERR(nd_linalg_norm(&r, e, nd_norm_p(-INFINITY), 1, (const int[]){1}, false), ND_ERR_INVALID,
                  "zero-size array");
    ND_OK_OR_FAIL(nd_linalg_vector_norm(&r, e, -INFINITY, 1, (const int[]){0}, false));
    expect("(2,0) -inf over axis 0", r, ND_FLOAT64, 1, (const int64_t[]){0}, z2, NULL, 0, 0);
    nd_release(r);
    r = NULL;
    nd_release(e);
    e = NULL;
    /* matrices (0, 3) */
    ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT64, 2, (const int64_t[]){0, 3}, DEV));
    const nd_norm_ord zero_ords[] = {nd_norm_p(1), nd_norm_p(INFINITY), nd_norm_p(-1), nd_norm_named(ND_NORM_FRO),
                                     nd_norm_named(ND_NORM_DEFAULT), nd_norm_p(2), nd_norm_named(ND_NORM_NUC)};
    for (size_t i = 0; i < sizeof zero_ords / sizeof *zero_ords; i++) {
        ND_OK_OR_FAIL(nd_linalg_matrix_norm(&r, e, zero_ords[i], i % 2));
        expect("empty matrix", r, ND_FLOAT64, i % 2 ? 2 : 0, (const int64_t[]){1, 1}, &zero, NULL, 0, 0);
        nd_release(r);
        r = NULL;
    }
    ND_EXPECT_ERR(nd_linalg_matrix_norm(&r, e, nd_norm_p(-INFINITY), false), ND_ERR_INVALID, "zero-size array");
    ND_EXPECT_ERR(nd_linalg_matrix_norm(&r, e, nd_norm_p(-2), false), ND_ERR_INVALID, "zero-size array");
    ND_EXPECT_ERR(nd_linalg_norm(&r, e, nd_norm_p(-2), -1, NULL, false), ND_ERR_INVALID, "zero-size array");
    nd_release(e);
    e = NULL;
    /* an empty batch of matrices */
    ND_OK_OR_FAIL(nd_zeros(&e, ND_COMPLEX64, 3, (const int64_t[]){0, 3, 3}, DEV));
    const nd_norm_ord all[] = {nd_norm_p(1), nd_norm_p(-1), nd_norm_p(INFINITY), nd_norm_p(-INFINITY),
                               nd_norm_p(2), nd_norm_p(-2), nd_norm_named(ND_NORM_NUC), nd_norm_named(ND_NORM_FRO)};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        ND_OK_OR_FAIL(nd_linalg_matrix_norm(&r, e, all[i], i % 2));
        expect("empty batch", r, ND_FLOAT32, i % 2 ? 3 : 1, (const int64_t[]){0, 1, 1}, &zero, NULL, 0, 0);
        nd_release(r);
        r = NULL;
    }
    nd_release(e);
}
END_TEST

START_TEST(errors)
{
    static const int64_t s2[2] = {3, 4}, s1[1] = {4};
    nd_array *a = mk(ND_FLOAT64, 2, s2, 3, NULL), *v = mk(ND_FLOAT32, 1, s1, 4, NULL), *r = NULL;
    nd_norm_ord none = nd_norm_named(ND_NORM_DEFAULT);
    ND_EXPECT_ERR(nd_linalg_norm(NULL, a, none, -1, NULL, false), ND_ERR_INVALID, "'out'");
    ND_EXPECT_ERR(nd_linalg_norm(&r, NULL, none, -1, NULL, false), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_linalg_vector_norm(&r, NULL, 2, -1, NULL, false), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_linalg_matrix_norm(&r, NULL, none, false), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, (nd_norm_ord){(nd_norm_kind)99, 0}, -1, NULL, false), ND_ERR_INVALID,
                  "norm kind");
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, nd_norm_p(3), -1, NULL, false), ND_ERR_INVALID,
                  "nd_linalg_norm: Invalid norm order for matrices.");
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, nd_norm_p(NAN), 2, (const int[]){0, 1}, false), ND_ERR_INVALID,
                  "Invalid norm order for matrices.");
    ND_EXPECT_ERR(nd_linalg_matrix_norm(&r, a, nd_norm_p(0), false), ND_ERR_INVALID, "Invalid norm order for matrices.");
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, none, 2, (const int[]){0, -2}, false), ND_ERR_INVALID, "Duplicate axes given.");
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, none, 3, (const int[]){0, 1, 1}, false), ND_ERR_INVALID,
                  "Improper number of dimensions to norm.");
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, none, 0, (const int[]){0}, false), ND_ERR_INVALID,
                  "Improper number of dimensions to norm.");
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, none, 1, (const int[]){2}, false), ND_ERR_SHAPE,
                  "axis 2 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_linalg_norm(&r, a, none, 2, (const int[]){0, -3}, false), ND_ERR_SHAPE,
                  "axis -3 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_linalg_vector_norm(&r, a, 2, 2, (const int[]){1, -1}, false), ND_ERR_INVALID, "repeated axis");
    ND_EXPECT_ERR(nd_linalg_vector_norm(&r, a, 2, 1, (const int[]){5}, false), ND_ERR_SHAPE, "out of bounds");
    ND_EXPECT_ERR(nd_linalg_vector_norm(&r, a, 2, -3, (const int[]){0}, false), ND_ERR_INVALID, "naxes");
    ND_EXPECT_ERR(nd_linalg_matrix_norm(&r, v, none, false), ND_ERR_SHAPE,
                  "axis -2 is out of bounds for array of dimension 1");
    ck_assert_ptr_null(r);
    /* out: wrong shape, wrong kind, then a wider dtype that works */
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT64, 1, (const int64_t[]){3}, nd_scalar_float(-7), DEV));
    ND_EXPECT_ERR(nd_linalg_norm(&o, a, none, -1, NULL, false), ND_ERR_SHAPE, "'out' has shape");
    nd_array *oi = NULL;
    ND_OK_OR_FAIL(nd_zeros(&oi, ND_INT32, 0, NULL, DEV));
    nd_array *keep = oi;
    ND_EXPECT_ERR(nd_linalg_norm(&oi, a, none, -1, NULL, false), ND_ERR_DTYPE, "same_kind");
    ck_assert_ptr_eq(oi, keep);
    nd_release(oi);
    /* float32 matrix -> its row norms into a float64 out */
    nd_array *f = mk(ND_FLOAT32, 2, s2, 9, NULL);
    H x = get(f);
    nd_array *given = o;
    ND_OK_OR_FAIL(nd_linalg_vector_norm(&o, f, 2, 1, (const int[]){1}, false));
    ck_assert_ptr_eq(o, given);
    bool red[2] = {false, true};
    double ref[3];
    ref_vec(&x, red, 2, ref, 3);
    expect("out float64", o, ND_FLOAT64, 1, (const int64_t[]){3}, ref, NULL, 2e-7, 0);
    /* the same through norm and matrix_norm-shaped outs */
    ND_OK_OR_FAIL(nd_linalg_norm(&o, f, nd_norm_p(1), 1, (const int[]){-1}, false));
    ref_vec(&x, red, 1, ref, 3);
    expect("out float64 ord 1", o, ND_FLOAT64, 1, (const int64_t[]){3}, ref, NULL, 2e-6, 0);
    nd_array *o0 = NULL;
    ND_OK_OR_FAIL(nd_zeros(&o0, ND_FLOAT32, 2, (const int64_t[]){1, 1}, DEV));
    ND_OK_OR_FAIL(nd_linalg_matrix_norm(&o0, f, nd_norm_p(INFINITY), true));
    double rinf;
    ref_mat(&x, 0, 1, nd_norm_p(INFINITY), &rinf, 1);
    expect("out keepdims", o0, ND_FLOAT32, 2, (const int64_t[]){1, 1}, &rinf, NULL, 2e-6, 0);
    nd_release(o0);
    h_free(&x);
    nd_release(f);
    nd_release(o);
    nd_release(a);
    nd_release(v);
}
END_TEST

/* ------------------------------------------------------------------ */
/* matrix_power                                                        */
/* ------------------------------------------------------------------ */
static void cmm(const double *ar, const double *ai, const double *br, const double *bi, int m, int k, int n, double *cr,
                double *ci)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double sr = 0, si = 0;
            for (int l = 0; l < k; l++) {
                sr += ar[i * k + l] * br[l * n + j] - ai[i * k + l] * bi[l * n + j];
                si += ar[i * k + l] * bi[l * n + j] + ai[i * k + l] * br[l * n + j];
            }
            cr[i * n + j] = sr;
            ci[i * n + j] = si;
        }
}

static void umm(const uint64_t *a, const uint64_t *b, int m, int k, int n, uint64_t *c, bool boolean)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            uint64_t s = 0;
            for (int l = 0; l < k; l++) s = boolean ? (s | (a[i * k + l] & b[l * n + j])) : s + a[i * k + l] * b[l * n + j];
            c[i * n + j] = s;
        }
}

/* the reference power of every m x m matrix of x (batch nb) */
static void ref_power(const H *x, int nb, int m, int64_t n, double *rr, double *ri)
{
    int mm = m * m;
    bool ints = is_int(x->t) || x->t == ND_BOOL;
    for (int b = 0; b < nb; b++) {
        double *pr = rr + b * mm, *pi = ri + b * mm;
        uint64_t *u = calloc((size_t)mm + 1, 8), *a = calloc((size_t)mm + 1, 8), *t = calloc((size_t)mm + 1, 8);
        double *tr = calloc((size_t)mm + 1, 8), *ti = calloc((size_t)mm + 1, 8);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < m; j++) {
                pr[i * m + j] = i == j, pi[i * m + j] = 0, u[i * m + j] = i == j;
                a[i * m + j] = (uint64_t)(int64_t)x->re[b * mm + i * m + j];
            }
        for (int64_t s = 0; s < n; s++) {
            if (ints) {
                umm(u, a, m, m, m, t, x->t == ND_BOOL);
                memcpy(u, t, sizeof(uint64_t) * (size_t)mm);
            } else {
                cmm(pr, pi, x->re + b * mm, x->im + b * mm, m, m, m, tr, ti);
                memcpy(pr, tr, sizeof(double) * (size_t)mm);
                memcpy(pi, ti, sizeof(double) * (size_t)mm);
            }
        }
        if (ints)
            for (int i = 0; i < mm; i++) {
                pi[i] = 0;
                if (x->t == ND_BOOL) pr[i] = u[i] != 0;
                else pr[i] = (double)(int32_t)(uint32_t)u[i]; /* int32 wraps */
            }
        free(u);
        free(a);
        free(t);
        free(tr);
        free(ti);
    }
}

START_TEST(matrix_power)
{
    static const nd_dtype dts[] = {ND_FLOAT64, ND_COMPLEX128, ND_INT32, ND_BOOL, ND_FLOAT32};
    static const int64_t ns[] = {0, 1, 2, 3, 4, 5, 6, 13};
    static const int64_t s33[3] = {2, 3, 3};
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
        H x;
        nd_array *a = mk(dts[d], 3, s33, 41 + (uint32_t)d, &x);
        if (dts[d] == ND_FLOAT64 || dts[d] == ND_COMPLEX128 || dts[d] == ND_FLOAT32) { /* scale to keep powers tame */
            nd_array *sc = NULL;
            ND_OK_OR_FAIL(nd_binary_scalar(&sc, ND_BINARY_MULTIPLY, a, nd_scalar_float(0.25)));
            nd_release(a);
            a = sc;
            h_free(&x);
            x = get(a);
        }
        double *rr = calloc(19, sizeof(double)), *ri = calloc(19, sizeof(double));
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
            nd_array *r = NULL;
            ND_OK_OR_FAIL(nd_linalg_matrix_power(&r, a, ns[k]));
            ck_assert_ptr_ne(r, a);
            ref_power(&x, 2, 3, ns[k], rr, ri);
            char what[96];
            snprintf(what, sizeof what, "matrix_power %s n %lld", nd_dtype_name(dts[d]), (long long)ns[k]);
            double tol = dts[d] == ND_FLOAT32 ? 1e-5 : nd_dtype_of(a) == ND_INT32 || dts[d] == ND_BOOL ? 0 : 1e-12;
            expect(what, r, dts[d], 3, s33, rr, is_cpx(dts[d]) ? ri : NULL, tol, 1);
            nd_release(r);
        }
        free(rr);
        free(ri);
        h_free(&x);
        nd_release(a);
    }
    /* errors, empty, out */
    nd_array *v = mk(ND_FLOAT64, 1, (const int64_t[]){3}, 1, NULL), *w = mk(ND_FLOAT64, 2, (const int64_t[]){2, 3}, 2, NULL);
    nd_array *r = NULL;
    ND_EXPECT_ERR(nd_linalg_matrix_power(&r, v, 2), ND_ERR_SHAPE,
                  "1-dimensional array given. Array must be at least two-dimensional");
    ND_EXPECT_ERR(nd_linalg_matrix_power(&r, w, 0), ND_ERR_SHAPE, "Last 2 dimensions of the array must be square");
    ND_EXPECT_ERR(nd_linalg_matrix_power(&r, NULL, 0), ND_ERR_INVALID, "'a'");
    nd_release(v);
    nd_release(w);
    nd_array *e = NULL;
    ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT32, 2, (const int64_t[]){0, 0}, DEV));
    ND_OK_OR_FAIL(nd_linalg_matrix_power(&r, e, 5));
    ck_assert_int_eq(nd_ndim(r), 2);
    ck_assert_int_eq(nd_size(r), 0);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_linalg_matrix_power(&r, e, 0));
    ck_assert_int_eq(nd_size(r), 0);
    nd_release(r);
    r = NULL;
    nd_release(e);
    H x;
    nd_array *a = mk(ND_INT32, 2, (const int64_t[]){3, 3}, 7, &x), *o = NULL;
    ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT64, 2, (const int64_t[]){3, 3}, DEV));
    nd_array *given = o;
    ND_OK_OR_FAIL(nd_linalg_matrix_power(&o, a, 3));
    ck_assert_ptr_eq(o, given);
    double rr[9], ri[9];
    ref_power(&x, 1, 3, 3, rr, ri);
    expect("matrix_power into float64 out", o, ND_FLOAT64, 2, (const int64_t[]){3, 3}, rr, NULL, 0, 0);
    nd_array *bad = NULL;
    ND_OK_OR_FAIL(nd_zeros(&bad, ND_INT32, 2, (const int64_t[]){3, 2}, DEV));
    ND_EXPECT_ERR(nd_linalg_matrix_power(&bad, a, 2), ND_ERR_SHAPE, "'out' has shape");
    nd_release(bad);
    nd_release(o);
    h_free(&x);
    nd_release(a);
}
END_TEST

/* n < 0: powers of nd_linalg_inv(a) */
START_TEST(inv_powers)
{
    static const double m[9] = {4, 1, 0.5, -1, 5, 2, 0.25, -2, 6};
    static const int64_t s33[2] = {3, 3};
    nd_array *a = from_vals(ND_FLOAT64, 2, s33, m, NULL);
    for (int k = 1; k <= 5; k++) {
        nd_array *p = NULL, *q = NULL, *prod = NULL;
        ND_OK_OR_FAIL(nd_linalg_matrix_power(&p, a, -k));
        ND_OK_OR_FAIL(nd_linalg_matrix_power(&q, a, k));
        ND_OK_OR_FAIL(nd_matmul(&prod, p, q));
        double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        expect("A^-k A^k", prod, ND_FLOAT64, 2, s33, eye, NULL, 1e-12, 1);
        nd_release(p);
        nd_release(q);
        nd_release(prod);
    }
    nd_release(a);
    /* an integer matrix gives float64, as NumPy */
    static const double mi[4] = {2, 0, 0, 4};
    a = from_vals(ND_INT32, 2, (const int64_t[]){2, 2}, mi, NULL);
    nd_array *r = NULL;
    ND_OK_OR_FAIL(nd_linalg_matrix_power(&r, a, -1));
    expect("int inverse", r, ND_FLOAT64, 2, (const int64_t[]){2, 2}, (const double[]){0.5, 0, 0, 0.25}, NULL, 1e-15, 0);
    nd_release(r);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* multi_dot                                                           */
/* ------------------------------------------------------------------ */
START_TEST(multi_dot)
{
    static const int64_t p[6] = {10, 3, 12, 5, 7, 2};
    for (int ti = 0; ti < 3; ti++) {
        nd_dtype t = ti == 0 ? ND_FLOAT64 : ti == 1 ? ND_COMPLEX128 : ND_INT32;
        nd_array *mats[5];
        H hx[5];
        for (int i = 0; i < 5; i++) mats[i] = mk(t, 2, (const int64_t[]){p[i], p[i + 1]}, 60 + (uint32_t)i, &hx[i]);
        for (int n = 2; n <= 5; n++)
            for (int ends = 0; ends < 4; ends++) { /* bit 0: first 1-D, bit 1: last 1-D */
                const nd_array *args[5];
                nd_array *vecs[2] = {NULL, NULL};
                for (int i = 0; i < n; i++) args[i] = mats[i];
                if (ends & 1) { /* row 0 of the first matrix */
                    nd_array *row = NULL;
                    ND_OK_OR_FAIL(nd_slice(&row, mats[0], 2, (nd_range[]){{2, 3, 1}, ND_ALL}));
                    ND_OK_OR_FAIL(nd_reshape(&vecs[0], row, 1, (const int64_t[]){p[1]}));
                    nd_release(row);
                    args[0] = vecs[0];
                }
                if (ends & 2) { /* column 1 of the last */
                    nd_array *col = NULL;
                    ND_OK_OR_FAIL(nd_slice(&col, mats[n - 1], 2, (nd_range[]){ND_ALL, {1, 2, 1}}));
                    ND_OK_OR_FAIL(nd_reshape(&vecs[1], col, 1, (const int64_t[]){p[n - 1]}));
                    nd_release(col);
                    args[n - 1] = vecs[1];
                }
                nd_array *r = NULL;
                nd_status st = nd_linalg_multi_dot(&r, n, args);
                ck_assert_msg(st == ND_OK, "multi_dot n %d ends %d: %s", n, ends, nd_last_error());
                {
                    /* reference: left to right in double / wrapping uint64 */
                    int rows = (ends & 1) ? 1 : (int)p[0], cols = (int)p[1];
                    double *cr = calloc((size_t)(rows * cols), 8), *ci = calloc((size_t)(rows * cols), 8);
                    uint64_t *cu = calloc((size_t)(rows * cols), 8);
                    int r0 = (ends & 1) ? 2 : 0;
                    for (int i = 0; i < rows; i++)
                        for (int j = 0; j < cols; j++) {
                            cr[i * cols + j] = hx[0].re[(r0 + i) * cols + j];
                            ci[i * cols + j] = hx[0].im[(r0 + i) * cols + j];
                            cu[i * cols + j] = (uint64_t)(int64_t)hx[0].re[(r0 + i) * cols + j];
                        }
                    for (int k = 1; k < n; k++) {
                        int nc = (k == n - 1 && (ends & 2)) ? 1 : (int)p[k + 1];
                        double *br = calloc((size_t)(cols * nc), 8), *bi = calloc((size_t)(cols * nc), 8);
                        uint64_t *bu = calloc((size_t)(cols * nc), 8);
                        int c0 = nc == 1 && (ends & 2) && k == n - 1 ? 1 : 0;
                        for (int i = 0; i < cols; i++)
                            for (int j = 0; j < nc; j++) {
                                int64_t src = i * p[k + 1] + c0 + j;
                                br[i * nc + j] = hx[k].re[src];
                                bi[i * nc + j] = hx[k].im[src];
                                bu[i * nc + j] = (uint64_t)(int64_t)hx[k].re[src];
                            }
                        double *dr = calloc((size_t)(rows * nc), 8), *di = calloc((size_t)(rows * nc), 8);
                        uint64_t *du = calloc((size_t)(rows * nc), 8);
                        cmm(cr, ci, br, bi, rows, cols, nc, dr, di);
                        umm(cu, bu, rows, cols, nc, du, false);
                        free(cr);
                        free(ci);
                        free(cu);
                        free(br);
                        free(bi);
                        free(bu);
                        cr = dr, ci = di, cu = du, cols = nc;
                    }
                    if (t == ND_INT32)
                        for (int i = 0; i < rows * cols; i++) cr[i] = (double)(int32_t)(uint32_t)cu[i];
                    int64_t shape[2];
                    int nd = 0;
                    if (!(ends & 1)) shape[nd++] = rows;
                    if (!(ends & 2)) shape[nd++] = cols;
                    char what[64];
                    snprintf(what, sizeof what, "multi_dot %s n %d ends %d", nd_dtype_name(t), n, ends);
                    expect(what, r, t, nd, shape, cr, t == ND_COMPLEX128 ? ci : NULL, t == ND_INT32 ? 0 : 1e-12, 10);
                    free(cr);
                    free(ci);
                    free(cu);
                }
                nd_release(r);
                nd_release(vecs[0]);
                nd_release(vecs[1]);
            }
        for (int i = 0; i < 5; i++) {
            nd_release(mats[i]);
            h_free(&hx[i]);
        }
    }
    /* errors */
    nd_array *a = mk(ND_FLOAT64, 2, (const int64_t[]){3, 4}, 1, NULL), *b3 = mk(ND_FLOAT64, 3, (const int64_t[]){2, 4, 4}, 2, NULL);
    nd_array *c = mk(ND_FLOAT64, 2, (const int64_t[]){5, 2}, 3, NULL), *r = NULL;
    ND_EXPECT_ERR(nd_linalg_multi_dot(&r, 1, (const nd_array *const[]){a}), ND_ERR_INVALID, "Expecting at least two arrays.");
    ND_EXPECT_ERR(nd_linalg_multi_dot(&r, 3, NULL), ND_ERR_INVALID, "arrays");
    ND_EXPECT_ERR(nd_linalg_multi_dot(&r, 3, (const nd_array *const[]){a, NULL, c}), ND_ERR_INVALID, "NULL");
    ND_EXPECT_ERR(nd_linalg_multi_dot(&r, 3, (const nd_array *const[]){a, b3, c}), ND_ERR_SHAPE,
                  "3-dimensional array given. Array must be two-dimensional");
    ND_EXPECT_ERR(nd_linalg_multi_dot(&r, 3, (const nd_array *const[]){a, c, c}), ND_ERR_SHAPE, "not aligned");
    ck_assert_ptr_null(r);
    /* two arrays: exactly nd_dot (3-D allowed) */
    ND_OK_OR_FAIL(nd_linalg_multi_dot(&r, 2, (const nd_array *const[]){a, b3}));
    nd_array *d = NULL;
    ND_OK_OR_FAIL(nd_dot(&d, a, b3));
    bool eq = false;
    ND_OK_OR_FAIL(nd_array_equal(&eq, r, d, false));
    ck_assert(eq);
    nd_release(d);
    nd_release(r);
    r = NULL;
    nd_release(a);
    nd_release(b3);
    nd_release(c);
}
END_TEST

/* ------------------------------------------------------------------ */
/* cross, vecdot, kron                                                 */
/* ------------------------------------------------------------------ */
/* flat index of x at multi-index idx of the broadcast result (x's shape
 * right-aligned against nd axes; extent-1 axes repeat) */
static int64_t bidx(const H *x, int nd, const int64_t *idx)
{
    int64_t f = 0;
    for (int k = 0; k < x->ndim; k++) {
        int64_t i = idx[nd - x->ndim + k];
        f = f * x->shape[k] + (x->shape[k] == 1 ? 0 : i);
    }
    return f;
}

static void unravel_shape(int nd, const int64_t *shape, int64_t flat, int64_t *idx)
{
    for (int k = nd - 1; k >= 0; k--) {
        idx[k] = flat % shape[k];
        flat /= shape[k];
    }
}

/* a, b with the vector axis already last in their H (moved by the caller's
 * choice of shapes); result (bshape..., 3) */
static void check_cross(const char *what, nd_dtype t, int nda, const int64_t *sa, int ndb, const int64_t *sb, int axis,
                        int ndr, const int64_t *sr)
{
    H xa, xb;
    nd_array *a = mk(t, nda, sa, 71, &xa), *b = mk(t, ndb, sb, 72, &xb), *r = NULL;
    ND_OK_OR_FAIL(nd_linalg_cross(&r, a, b, axis));
    /* reference on moved-axis copies */
    nd_array *am = NULL, *bm = NULL;
    int axa = axis < 0 ? axis + nda : axis, axb = axis < 0 ? axis + ndb : axis, axc = axis < 0 ? axis + ndr : axis;
    ND_OK_OR_FAIL(nd_moveaxis(&am, a, 1, &axa, (const int[]){-1}));
    ND_OK_OR_FAIL(nd_moveaxis(&bm, b, 1, &axb, (const int[]){-1}));
    H ha = get(am), hb = get(bm);
    int64_t n = 1, bsh[8];
    for (int k = 0; k < ndr; k++) n *= sr[k];
    /* the broadcast batch shape: sr with the vector axis removed */
    int nb = 0;
    for (int k = 0; k < ndr; k++)
        if (k != axc) bsh[nb++] = sr[k];
    double *rr = calloc((size_t)n + 1, 8), *ri = calloc((size_t)n + 1, 8);
    int64_t nbatch = n / 3, idx[9], ridx[9];
    for (int64_t q = 0; q < nbatch; q++) {
        unravel_shape(nb, bsh, q, idx);
        double ar[3], aim[3], br[3], bi[3];
        for (int c = 0; c < 3; c++) {
            idx[nb] = c;
            int64_t fa = bidx(&ha, nb + 1, idx), fb = bidx(&hb, nb + 1, idx);
            ar[c] = ha.re[fa], aim[c] = ha.im[fa], br[c] = hb.re[fb], bi[c] = hb.im[fb];
        }
        for (int c = 0; c < 3; c++) {
            int i1 = (c + 1) % 3, i2 = (c + 2) % 3;
            double re = ar[i1] * br[i2] - aim[i1] * bi[i2] - (ar[i2] * br[i1] - aim[i2] * bi[i1]);
            double im = ar[i1] * bi[i2] + aim[i1] * br[i2] - (ar[i2] * bi[i1] + aim[i2] * br[i1]);
            /* position in the result: batch axes with the vector axis at axc */
            int m = 0;
            for (int k = 0; k < ndr; k++) ridx[k] = k == axc ? c : idx[m++];
            int64_t f = 0;
            for (int k = 0; k < ndr; k++) f = f * sr[k] + ridx[k];
            rr[f] = re, ri[f] = im;
        }
    }
    expect(what, r, t, ndr, sr, rr, is_cpx(t) ? ri : NULL, is_int(t) ? 0 : rtol_of(t), 1);
    free(rr);
    free(ri);
    h_free(&xa);
    h_free(&xb);
    h_free(&ha);
    h_free(&hb);
    nd_release(am);
    nd_release(bm);
    nd_release(a);
    nd_release(b);
    nd_release(r);
}

START_TEST(cross)
{
    check_cross("cross (4,3)x(3,)", ND_FLOAT64, 2, (const int64_t[]){4, 3}, 1, (const int64_t[]){3}, -1, 2,
                (const int64_t[]){4, 3});
    check_cross("cross (3,2)x(3,2) axis 0", ND_INT32, 2, (const int64_t[]){3, 2}, 2, (const int64_t[]){3, 2}, 0, 2,
                (const int64_t[]){3, 2});
    check_cross("cross (2,3,4)x(3,4) axis -2", ND_COMPLEX128, 3, (const int64_t[]){2, 3, 4}, 2, (const int64_t[]){3, 4},
                -2, 3, (const int64_t[]){2, 3, 4});
    check_cross("cross (5,1,3)x(2,3) float32", ND_FLOAT32, 3, (const int64_t[]){5, 1, 3}, 2, (const int64_t[]){2, 3}, -1,
                3, (const int64_t[]){5, 2, 3});
    check_cross("cross empty batch", ND_FLOAT64, 2, (const int64_t[]){0, 3}, 1, (const int64_t[]){3}, -1, 2,
                (const int64_t[]){0, 3});
    nd_array *a = mk(ND_FLOAT64, 2, (const int64_t[]){4, 3}, 1, NULL), *b = mk(ND_FLOAT64, 1, (const int64_t[]){2}, 2, NULL);
    nd_array *bb = mk(ND_BOOL, 1, (const int64_t[]){3}, 3, NULL), *s = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_full(&s, ND_FLOAT64, 0, NULL, nd_scalar_float(2), DEV));
    ND_EXPECT_ERR(nd_linalg_cross(&r, a, b, -1), ND_ERR_SHAPE,
                  "Both input arrays must be (arrays of) 3-dimensional vectors, but they are 3 and 2 dimensional instead.");
    ND_EXPECT_ERR(nd_linalg_cross(&r, a, a, 0), ND_ERR_SHAPE, "but they are 4 and 4");
    ND_EXPECT_ERR(nd_linalg_cross(&r, bb, bb, -1), ND_ERR_DTYPE, "boolean subtract");
    ND_EXPECT_ERR(nd_linalg_cross(&r, s, a, -1), ND_ERR_SHAPE, "zero dimension");
    ND_EXPECT_ERR(nd_linalg_cross(&r, a, a, 2), ND_ERR_SHAPE, "axis 2 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_linalg_cross(&r, a, NULL, -1), ND_ERR_INVALID, "'b'");
    ck_assert_ptr_null(r);
    /* out given, wider */
    nd_array *a3 = mk(ND_INT32, 1, (const int64_t[]){3}, 5, NULL), *o = NULL;
    ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT64, 1, (const int64_t[]){3}, DEV));
    ND_OK_OR_FAIL(nd_linalg_cross(&o, a3, a3, 0));
    expect("cross of itself", o, ND_FLOAT64, 1, (const int64_t[]){3}, (const double[]){0, 0, 0}, NULL, 0, 0);
    nd_release(o);
    nd_release(a3);
    nd_release(a);
    nd_release(b);
    nd_release(bb);
    nd_release(s);
}
END_TEST

static void check_vecdot(const char *what, nd_dtype ta, nd_dtype tb, int nda, const int64_t *sa, int ndb,
                         const int64_t *sb, int axis)
{
    H xa, xb;
    nd_array *a = mk(ta, nda, sa, 81, &xa), *b = mk(tb, ndb, sb, 82, &xb), *r = NULL;
    ND_OK_OR_FAIL(nd_linalg_vecdot(&r, a, b, axis));
    nd_dtype t;
    ND_OK_OR_FAIL(nd_result_type(&t, ta, tb));
    nd_array *am = NULL, *bm = NULL;
    int axa = axis < 0 ? axis + nda : axis, axb = axis < 0 ? axis + ndb : axis;
    ND_OK_OR_FAIL(nd_moveaxis(&am, a, 1, &axa, (const int[]){-1}));
    ND_OK_OR_FAIL(nd_moveaxis(&bm, b, 1, &axb, (const int[]){-1}));
    H ha = get(am), hb = get(bm);
    int64_t len = sa[axa];
    /* batch shape: broadcast of the shapes without the axis */
    int nb = (nda > ndb ? nda : ndb) - 1;
    int64_t bsh[8], idx[9];
    for (int k = 0; k < nb; k++) {
        int ka = k - (nb - (ha.ndim - 1)), kb = k - (nb - (hb.ndim - 1));
        int64_t ea = ka >= 0 ? ha.shape[ka] : 1, eb = kb >= 0 ? hb.shape[kb] : 1;
        bsh[k] = ea == 1 ? eb : ea;
    }
    int64_t n = 1;
    for (int k = 0; k < nb; k++) n *= bsh[k];
    double *rr = calloc((size_t)n + 1, 8), *ri = calloc((size_t)n + 1, 8);
    for (int64_t q = 0; q < n; q++) {
        unravel_shape(nb, bsh, q, idx);
        double sr = 0, si = 0;
        uint64_t su = 0;
        bool any = false;
        for (int64_t c = 0; c < len; c++) {
            idx[nb] = c;
            int64_t fa = bidx(&ha, nb + 1, idx), fb = bidx(&hb, nb + 1, idx);
            double ar = ha.re[fa], ai = -ha.im[fa], br = hb.re[fb], bi = hb.im[fb];
            sr += ar * br - ai * bi;
            si += ar * bi + ai * br;
            su += (uint64_t)(int64_t)ar * (uint64_t)(int64_t)br;
            any = any || (ar != 0 && br != 0);
        }
        rr[q] = t == ND_BOOL ? any : is_int(t) ? (double)(int32_t)(uint32_t)su : sr;
        ri[q] = si;
    }
    expect(what, r, t, nb, bsh, rr, is_cpx(t) ? ri : NULL, is_int(t) || t == ND_BOOL ? 0 : rtol_of(t) * 4, 10);
    free(rr);
    free(ri);
    h_free(&xa);
    h_free(&xb);
    h_free(&ha);
    h_free(&hb);
    nd_release(am);
    nd_release(bm);
    nd_release(a);
    nd_release(b);
    nd_release(r);
}

START_TEST(vecdot)
{
    check_vecdot("vecdot c128 (2,3,4).(4,)", ND_COMPLEX128, ND_COMPLEX128, 3, (const int64_t[]){2, 3, 4}, 1,
                 (const int64_t[]){4}, -1);
    check_vecdot("vecdot c64 x f32 (5,6).(5,1) axis 0", ND_COMPLEX64, ND_FLOAT32, 2, (const int64_t[]){5, 6}, 2,
                 (const int64_t[]){5, 1}, 0);
    check_vecdot("vecdot f64 (4,3).(4,) axis 0", ND_FLOAT64, ND_FLOAT64, 2, (const int64_t[]){4, 3}, 1,
                 (const int64_t[]){4}, 0);
    check_vecdot("vecdot int32", ND_INT32, ND_INT32, 2, (const int64_t[]){3, 7}, 2, (const int64_t[]){1, 7}, -1);
    check_vecdot("vecdot bool", ND_BOOL, ND_BOOL, 2, (const int64_t[]){4, 5}, 2, (const int64_t[]){4, 5}, 1);
    check_vecdot("vecdot float32 (2,1,8).(3,8)", ND_FLOAT32, ND_FLOAT32, 3, (const int64_t[]){2, 1, 8}, 2,
                 (const int64_t[]){3, 8}, -1);
    /* empty vectors: zeros */
    nd_array *e = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_zeros(&e, ND_FLOAT64, 2, (const int64_t[]){2, 0}, DEV));
    ND_OK_OR_FAIL(nd_linalg_vecdot(&r, e, e, -1));
    expect("vecdot empty", r, ND_FLOAT64, 1, (const int64_t[]){2}, (const double[]){0, 0}, NULL, 0, 0);
    nd_release(r);
    r = NULL;
    nd_array *a = mk(ND_FLOAT64, 2, (const int64_t[]){2, 3}, 1, NULL), *b = mk(ND_FLOAT64, 1, (const int64_t[]){2}, 2, NULL);
    ND_EXPECT_ERR(nd_linalg_vecdot(&r, a, b, -1), ND_ERR_SHAPE,
                  "Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n),(n)->() (size 2 is "
                  "different from 3)");
    nd_array *s = NULL;
    ND_OK_OR_FAIL(nd_full(&s, ND_FLOAT64, 0, NULL, nd_scalar_float(2), DEV));
    ND_EXPECT_ERR(nd_linalg_vecdot(&r, s, a, -1), ND_ERR_SHAPE, "Input operand 0 does not have enough dimensions");
    ND_EXPECT_ERR(nd_linalg_vecdot(&r, a, a, -3), ND_ERR_SHAPE, "out of bounds");
    ck_assert_ptr_null(r);
    nd_release(s);
    nd_release(a);
    nd_release(b);
    nd_release(e);
}
END_TEST

static void check_kron(const char *what, nd_dtype t, int nda, const int64_t *sa, int ndb, const int64_t *sb)
{
    H xa, xb;
    nd_array *a = mk(t, nda, sa, 91, &xa), *b = mk(t, ndb, sb, 92, &xb), *r = NULL;
    ND_OK_OR_FAIL(nd_kron(&r, a, b));
    int nd = nda > ndb ? nda : ndb;
    int64_t as[8], bs[8], rs[8], n = 1;
    for (int k = 0; k < nd; k++) {
        as[k] = k - (nd - nda) >= 0 ? sa[k - (nd - nda)] : 1;
        bs[k] = k - (nd - ndb) >= 0 ? sb[k - (nd - ndb)] : 1;
        rs[k] = as[k] * bs[k];
        n *= rs[k];
    }
    double *rr = calloc((size_t)n + 1, 8), *ri = calloc((size_t)n + 1, 8);
    int64_t idx[8];
    for (int64_t f = 0; f < n; f++) {
        unravel_shape(nd, rs, f, idx);
        int64_t fa = 0, fb = 0;
        for (int k = 0; k < nd; k++) {
            fa = fa * as[k] + idx[k] / bs[k];
            fb = fb * bs[k] + idx[k] % bs[k];
        }
        double ar = xa.re[fa], ai = xa.im[fa], br = xb.re[fb], bi = xb.im[fb];
        rr[f] = ar * br - ai * bi;
        ri[f] = ar * bi + ai * br;
        if (t == ND_INT32) rr[f] = (double)(int32_t)(uint32_t)((uint64_t)(int64_t)ar * (uint64_t)(int64_t)br);
    }
    expect(what, r, t, nd, rs, rr, is_cpx(t) ? ri : NULL, t == ND_INT32 ? 0 : rtol_of(t), 0);
    free(rr);
    free(ri);
    h_free(&xa);
    h_free(&xb);
    nd_release(a);
    nd_release(b);
    nd_release(r);
}

START_TEST(kron)
{
    check_kron("kron (2,3)x(4,5)", ND_FLOAT64, 2, (const int64_t[]){2, 3}, 2, (const int64_t[]){4, 5});
    check_kron("kron (3,)x(2,2)", ND_INT32, 1, (const int64_t[]){3}, 2, (const int64_t[]){2, 2});
    check_kron("kron (2,2)x(3,)", ND_COMPLEX128, 2, (const int64_t[]){2, 2}, 1, (const int64_t[]){3});
    check_kron("kron ()x(2,2)", ND_FLOAT32, 0, NULL, 2, (const int64_t[]){2, 2});
    check_kron("kron (2,2)x()", ND_FLOAT32, 2, (const int64_t[]){2, 2}, 0, NULL);
    check_kron("kron ()x()", ND_FLOAT64, 0, NULL, 0, NULL);
    check_kron("kron (0,2)x(3,3)", ND_FLOAT64, 2, (const int64_t[]){0, 2}, 2, (const int64_t[]){3, 3});
    check_kron("kron (2,1,3)x(1,4,2)", ND_FLOAT64, 3, (const int64_t[]){2, 1, 3}, 3, (const int64_t[]){1, 4, 2});
    check_kron("kron 5-D", ND_FLOAT64, 5, (const int64_t[]){2, 1, 2, 1, 2}, 4, (const int64_t[]){2, 2, 1, 3});
    /* mixed dtypes promote; out given */
    nd_array *a = mk(ND_INT32, 1, (const int64_t[]){2}, 1, NULL), *b = mk(ND_FLOAT32, 1, (const int64_t[]){3}, 2, NULL);
    nd_array *r = NULL;
    ND_OK_OR_FAIL(nd_kron(&r, a, b));
    ck_assert_int_eq(nd_dtype_of(r), ND_FLOAT64);
    ck_assert_int_eq(nd_shape(r)[0], 6);
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_zeros(&o, ND_COMPLEX128, 1, (const int64_t[]){6}, DEV));
    nd_array *given = o;
    ND_OK_OR_FAIL(nd_kron(&o, a, b));
    ck_assert_ptr_eq(o, given);
    bool eq = false;
    nd_array *ore = NULL;
    ND_OK_OR_FAIL(nd_real(&ore, o));
    ND_OK_OR_FAIL(nd_allclose(&eq, ore, r, 0, 0, false));
    ck_assert(eq);
    nd_release(ore);
    nd_array *bad = NULL;
    ND_OK_OR_FAIL(nd_zeros(&bad, ND_INT32, 1, (const int64_t[]){6}, DEV));
    ND_EXPECT_ERR(nd_kron(&bad, a, b), ND_ERR_DTYPE, "same_kind");
    ND_EXPECT_ERR(nd_kron(&r, NULL, b), ND_ERR_INVALID, "'a'");
    nd_release(bad);
    nd_release(o);
    nd_release(r);
    nd_release(a);
    nd_release(b);
}
END_TEST

/* In the test's (forked) process: a CUDA context made in the parent is
 * unusable in its children (tests/test_util.h). */
static void pick_device(void) { DEV = nd_default_device(); }

Suite *suite_linalg_norm(void)
{
    Suite *s = suite_create("linalg_norm");
    TCase *tc = tcase_create("norms");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, pick_device, NULL);
    tcase_add_test(tc, vector_ords);
    tcase_add_test(tc, vector_zeros_counted);
    tcase_add_test(tc, matrix_ords);
    tcase_add_test(tc, norm_dispatch);
    tcase_add_test(tc, dtypes_and_range);
    tcase_add_test(tc, empty_arrays);
    tcase_add_test(tc, errors);
    suite_add_tcase(s, tc);
    /* the ords that need the decompositions (nd_linalg_svdvals, nd_linalg_inv) */
    TCase *td = tcase_create("decomposition_based");
    tcase_set_timeout(td, 120);
    tcase_add_checked_fixture(td, pick_device, NULL);
    tcase_add_test(td, svd_ords);
    tcase_add_test(td, inv_powers);
    suite_add_tcase(s, td);
    TCase *tp = tcase_create("products");
    tcase_set_timeout(tp, 120);
    tcase_add_checked_fixture(tp, pick_device, NULL);
    tcase_add_test(tp, matrix_power);
    tcase_add_test(tp, multi_dot);
    tcase_add_test(tp, cross);
    tcase_add_test(tp, vecdot);
    tcase_add_test(tp, kron);
    suite_add_tcase(s, tp);
    return s;
}
