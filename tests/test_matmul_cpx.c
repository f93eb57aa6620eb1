/* complex64 / complex128 matrix products: nd_matmul, nd_dot,
 * nd_gemm (and nd_tensordot / nd_outer, built on them) against a reference
 * computed here in long double from the values the arrays really hold - on
 * the CPU and on cuda:0 when there is one (the emulated GPU in `make
 * emu-test`). The data is random with nonzero imaginary parts everywhere,
 * so a dropped or conjugated imaginary part, a swapped operand order or a
 * conjugate transpose where a plain one belongs shows. Outputs are
 * poisoned with NaN before the call (gemm with beta != 0: random c).
 * Layouts: C-contiguous, transposed views (BLAS flags), stepped slices
 * (packed), negative strides, stride-0 broadcast batches, outputs that are
 * transposed / stepped / batch-permuted views. Tolerance: NumPy's
 * assert_allclose style bound c * (sqrt(K) + 1) * eps * sum_k |a_k| |b_k|
 * per element and part, with eps the result dtype's part epsilon. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "creation_util.h"
#include "ndgpu.h"
#include "test_util.h"

#define SHP(...) ((const int64_t[]){__VA_ARGS__})

/* ------------------------------------------------------------------ */
/* Values                                                              */
/* ------------------------------------------------------------------ */

/* The logical values of an array in C order (imaginary parts 0 for a real one). */
typedef struct {
    int nd;
    int64_t sh[ND_MAX_DIMS];
    int64_t n;
    double *re, *im;
} mc_vals;

static bool mc_is_cpx(nd_dtype t) { return t == ND_COMPLEX64 || t == ND_COMPLEX128; }

static uint32_t mc_next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A value in [-1, 1) (24 random bits). */
static double mc_unit(uint32_t *s) { return (double)mc_next(s) / 8388608.0 - 1.0; }

/* A new array of dtype t, shape sh on dev with random values: complex ones
 * with both parts random and the imaginary part never near 0; real ones
 * within what every dtype holds exactly (ints in [-3, 3], bool 0/1). */
static nd_array *mc_rand(nd_dtype t, int nd, const int64_t *sh, uint32_t seed, nd_device dev)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++) n *= sh[d];
    size_t isz = nd_dtype_size(t);
    unsigned char *raw = malloc((size_t)n * isz + 1);
    ck_assert(raw != NULL);
    uint32_t s = seed * 2654435761u + 977u;
    for (int64_t i = 0; i < n; i++) {
        unsigned char *p = raw + (size_t)i * isz;
        double re = mc_unit(&s), im = mc_unit(&s);
        if (fabs(im) < 0.125) im += im < 0 ? -0.5 : 0.5;
        if (t == ND_COMPLEX64) {
            float v[2] = {(float)re, (float)im};
            memcpy(p, v, 8);
        } else if (t == ND_COMPLEX128) {
            double v[2] = {re, im};
            memcpy(p, v, 16);
        } else if (t == ND_BOOL) {
            cv_elem_store(p, t, (mc_next(&s) >> 4) & 1);
        } else if (t >= ND_FLOAT16) {
            cv_elem_store(p, t, re);
        } else {
            cv_elem_store(p, t, (double)((int)(mc_next(&s) % 7) - (t >= ND_UINT8 && t <= ND_UINT64 ? 0 : 3)));
        }
    }
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, raw, t, nd, sh, dev));
    free(raw);
    return a;
}

/* An array of dtype t, shape sh on dev, every part NaN (the poison). */
static nd_array *mc_nan(nd_dtype t, int nd, const int64_t *sh, nd_device dev)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++) n *= sh[d];
    size_t isz = nd_dtype_size(t);
    unsigned char *raw = malloc((size_t)n * isz + 1);
    ck_assert(raw != NULL);
    for (int64_t i = 0; i < n; i++) {
        unsigned char *p = raw + (size_t)i * isz;
        if (t == ND_COMPLEX64) {
            float v[2] = {NAN, NAN};
            memcpy(p, v, 8);
        } else if (t == ND_COMPLEX128) {
            double v[2] = {NAN, NAN};
            memcpy(p, v, 16);
        } else {
            cv_elem_store(p, t, NAN);
        }
    }
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, raw, t, nd, sh, dev));
    free(raw);
    return a;
}

static mc_vals mc_get(const nd_array *a)
{
    mc_vals v;
    v.nd = nd_ndim(a);
    for (int d = 0; d < v.nd; d++) v.sh[d] = nd_shape(a)[d];
    v.n = nd_size(a);
    v.re = calloc((size_t)v.n + 1, sizeof(double));
    v.im = calloc((size_t)v.n + 1, sizeof(double));
    ck_assert(v.re && v.im);
    nd_dtype t = nd_dtype_of(a);
    size_t isz = nd_dtype_size(t);
    nd_array *c = NULL;
    ND_OK_OR_FAIL(nd_contiguous(&c, a));
    unsigned char *raw = malloc((size_t)v.n * isz + 1);
    ck_assert(raw != NULL);
    ND_OK_OR_FAIL(nd_copy_to_host(raw, c, nd_nbytes(c)));
    nd_release(c);
    for (int64_t i = 0; i < v.n; i++) {
        const unsigned char *p = raw + (size_t)i * isz;
        if (t == ND_COMPLEX64) {
            float f[2];
            memcpy(f, p, 8);
            v.re[i] = f[0], v.im[i] = f[1];
        } else if (t == ND_COMPLEX128) {
            double f[2];
            memcpy(f, p, 16);
            v.re[i] = f[0], v.im[i] = f[1];
        } else {
            v.re[i] = cv_elem_f64(p, t), v.im[i] = 0.0;
        }
    }
    free(raw);
    return v;
}

static void mc_free(mc_vals *v)
{
    free(v->re);
    free(v->im);
    v->re = v->im = NULL;
}

/* The reference result: values, and per element sum_k |a_k| |b_k| (for the
 * tolerance). */
typedef struct {
    mc_vals v;
    double *mag;
    int64_t K;
} mc_ref;

static void mc_ref_free(mc_ref *r)
{
    mc_free(&r->v);
    free(r->mag);
}

/* NumPy's matmul of the logical values a @ b: 1-D operands promoted and
 * the added axis removed, batch dimensions broadcast. */
static mc_ref mc_ref_matmul(const mc_vals *a, const mc_vals *b)
{
    mc_ref r;
    int an = a->nd, bn = b->nd;
    int64_t M = an >= 2 ? a->sh[an - 2] : 1, K = a->sh[an - 1], N = bn >= 2 ? b->sh[bn - 1] : 1;
    int abd = an > 2 ? an - 2 : 0, bbd = bn > 2 ? bn - 2 : 0, nbd = abd > bbd ? abd : bbd;
    int64_t bsh[ND_MAX_DIMS], nbatch = 1;
    for (int d = 0; d < nbd; d++) {
        int ia = d - (nbd - abd), ib = d - (nbd - bbd);
        int64_t da = ia >= 0 ? a->sh[ia] : 1, db = ib >= 0 ? b->sh[ib] : 1;
        ck_assert(da == db || da == 1 || db == 1);
        bsh[d] = da == 1 ? db : da;
        nbatch *= bsh[d];
    }
    r.v.nd = 0;
    for (int d = 0; d < nbd; d++) r.v.sh[r.v.nd++] = bsh[d];
    if (an >= 2) r.v.sh[r.v.nd++] = M;
    if (bn >= 2) r.v.sh[r.v.nd++] = N;
    r.v.n = nbatch * M * N;
    r.K = K;
    r.v.re = calloc((size_t)r.v.n + 1, sizeof(double));
    r.v.im = calloc((size_t)r.v.n + 1, sizeof(double));
    r.mag = calloc((size_t)r.v.n + 1, sizeof(double));
    ck_assert(r.v.re && r.v.im && r.mag);
    for (int64_t bi = 0; bi < nbatch; bi++) {
        /* unravel bi; a's and b's batch offsets (broadcast dims: index 0) */
        int64_t rem = bi, ao = 0, bo = 0, astr = 1, bstr = 1;
        for (int d = nbd - 1; d >= 0; d--) {
            int64_t idx = rem % bsh[d];
            rem /= bsh[d];
            int ia = d - (nbd - abd), ib = d - (nbd - bbd);
            if (ia >= 0) {
                ao += (a->sh[ia] == 1 ? 0 : idx) * astr;
                astr *= a->sh[ia];
            }
            if (ib >= 0) {
                bo += (b->sh[ib] == 1 ? 0 : idx) * bstr;
                bstr *= b->sh[ib];
            }
        }
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                long double sr = 0, si = 0, sm = 0;
                for (int64_t k = 0; k < K; k++) {
                    int64_t pa = ao * M * K + i * K + k, pb = bo * K * N + k * N + j;
                    long double xr = a->re[pa], xi = a->im[pa], yr = b->re[pb], yi = b->im[pb];
                    sr += xr * yr - xi * yi;
                    si += xr * yi + xi * yr;
                    sm += hypotl(xr, xi) * hypotl(yr, yi);
                }
                int64_t o = bi * M * N + i * N + j;
                r.v.re[o] = (double)sr, r.v.im[o] = (double)si, r.mag[o] = (double)sm;
            }
    }
    return r;
}

/* The epsilon of a result dtype's parts. */
static double mc_eps(nd_dtype t) { return t == ND_COMPLEX64 ? 0x1p-23 : 0x1p-52; }

/* got's values match the reference (shape too) within the tolerance;
 * extra (may be NULL) adds an absolute slack per element (gemm's |beta c|). */
static void mc_expect(const nd_array *got, const mc_ref *ref, const double *extra, const char *what)
{
    ck_assert_msg(nd_ndim(got) == ref->v.nd, "%s: ndim %d, want %d", what, nd_ndim(got), ref->v.nd);
    for (int d = 0; d < ref->v.nd; d++)
        ck_assert_msg(nd_shape(got)[d] == ref->v.sh[d], "%s: axis %d has extent %lld, want %lld", what, d,
                      (long long)nd_shape(got)[d], (long long)ref->v.sh[d]);
    nd_dtype t = nd_dtype_of(got);
    ck_assert_msg(mc_is_cpx(t), "%s: result dtype %s is not complex", what, nd_dtype_name(t));
    mc_vals g = mc_get(got);
    const double c = 4.0 * (sqrt((double)ref->K) + 1.0) * mc_eps(t);
    for (int64_t i = 0; i < g.n; i++) {
        double tol = c * (ref->mag[i] + (extra ? extra[i] : 0.0));
        double er = fabs(g.re[i] - ref->v.re[i]), ei = fabs(g.im[i] - ref->v.im[i]);
        ck_assert_msg(er <= tol && ei <= tol, "%s (%s): element %lld is (%.9g, %.9g), want (%.9g, %.9g) (tolerance %.3g)",
                      what, nd_dtype_name(t), (long long)i, g.re[i], g.im[i], ref->v.re[i], ref->v.im[i], tol);
    }
    mc_free(&g);
}

/* The elements of a NaN-poisoned base outside a view of nin elements
 * (whose values were just checked finite) are still NaN: exactly
 * size - nin elements of base are NaN. */
static void mc_expect_poison_outside(const nd_array *base, int64_t nin, const char *what)
{
    mc_vals b = mc_get(base);
    int64_t nan_count = 0;
    for (int64_t i = 0; i < b.n; i++) nan_count += isnan(b.re[i]) && isnan(b.im[i]);
    ck_assert_msg(nan_count == b.n - nin, "%s: %lld of %lld base elements are still NaN, want %lld (the view has %lld)",
                  what, (long long)nan_count, (long long)b.n, (long long)(b.n - nin), (long long)nin);
    mc_free(&b);
}

/* ------------------------------------------------------------------ */
/* Layouts of a logical (.., rows, cols) operand                        */
/* ------------------------------------------------------------------ */
enum {
    L_C,  /* C-contiguous */
    L_T,  /* a transposed view of a (.., cols, rows) array (unit row stride) */
    L_S,  /* every other row and column of a larger array (no unit stride: packed) */
    L_N,  /* rows reversed (a negative row stride) */
    L_B,  /* leading batch dimension broadcast (stride 0) from extent 1 */
    L_NB, /* leading batch dimension reversed (a negative batch stride) */
};

/* A view of logical shape sh (nd >= 1) with layout lay; *base gets the
 * array that owns the memory (the view itself for L_C). With poison the
 * data is NaN, else random from seed. */
static nd_array *mc_layout(nd_dtype t, int lay, int nd, const int64_t *sh, uint32_t seed, bool poison, nd_device dev,
                           nd_array **base)
{
    int64_t bs[ND_MAX_DIMS];
    for (int d = 0; d < nd; d++) bs[d] = sh[d];
    int r = nd - 2 >= 0 ? nd - 2 : 0, c = nd - 1; /* 1-D: only the last axis */
    if (lay == L_T && nd >= 2) bs[r] = sh[c], bs[c] = sh[r];
    if (lay == L_S) {
        bs[c] = 2 * sh[c] + 1;
        if (nd >= 2) bs[r] = 2 * sh[r] + 1;
    }
    if (lay == L_B) bs[0] = 1;
    nd_array *b = poison ? mc_nan(t, nd, bs, dev) : mc_rand(t, nd, bs, seed, dev), *v = NULL;
    *base = b;
    switch (lay) {
    case L_T: {
        int ax[ND_MAX_DIMS];
        for (int d = 0; d < nd; d++) ax[d] = d;
        if (nd >= 2) ax[r] = c, ax[c] = r;
        ND_OK_OR_FAIL(nd_transpose(&v, b, ax));
        break;
    }
    case L_S: {
        nd_range rg[ND_MAX_DIMS];
        for (int d = 0; d < nd; d++) rg[d] = ND_ALL;
        rg[c] = (nd_range){1, ND_NONE, 2};
        if (nd >= 2) rg[r] = (nd_range){1, ND_NONE, 2};
        ND_OK_OR_FAIL(nd_slice(&v, b, nd, rg));
        break;
    }
    case L_N: {
        nd_range rg[ND_MAX_DIMS];
        for (int d = 0; d < nd; d++) rg[d] = ND_ALL;
        rg[r] = (nd_range){ND_NONE, ND_NONE, -1};
        ND_OK_OR_FAIL(nd_slice(&v, b, nd, rg));
        break;
    }
    case L_B: ND_OK_OR_FAIL(nd_broadcast_to(&v, b, nd, sh)); break;
    case L_NB: {
        nd_range rg[ND_MAX_DIMS];
        for (int d = 0; d < nd; d++) rg[d] = ND_ALL;
        rg[0] = (nd_range){ND_NONE, ND_NONE, -1};
        ND_OK_OR_FAIL(nd_slice(&v, b, nd, rg));
        break;
    }
    default: nd_retain(b), v = b; break;
    }
    for (int d = 0; d < nd; d++) ck_assert_int_eq(nd_shape(v)[d], sh[d]);
    return v;
}

static const nd_dtype mc_types[2] = {ND_COMPLEX64, ND_COMPLEX128};

/* a @ b into out (NULL: a new array; else a poisoned view of out_base) and
 * check against the reference; the poison outside the view stays. */
static void mc_run_matmul(const nd_array *a, const nd_array *b, nd_array *out, const nd_array *out_base, const char *what)
{
    nd_array *r = out;
    ND_OK_OR_FAIL(nd_matmul(&r, a, b));
    if (out) ck_assert_ptr_eq(r, out);
    nd_dtype want;
    ND_OK_OR_FAIL(nd_result_type(&want, nd_dtype_of(a), nd_dtype_of(b)));
    if (!out) ck_assert_msg(nd_dtype_of(r) == want, "%s: dtype %s, want %s", what, nd_dtype_name(nd_dtype_of(r)),
                            nd_dtype_name(want));
    mc_vals va = mc_get(a), vb = mc_get(b);
    mc_ref ref = mc_ref_matmul(&va, &vb);
    mc_expect(r, &ref, NULL, what);
    if (out_base && out_base != out) mc_expect_poison_outside(out_base, nd_size(out), what);
    mc_ref_free(&ref);
    mc_free(&va);
    mc_free(&vb);
    if (!out) nd_release(r);
}

static const char *mc_lay_name(int l)
{
    static const char *const n[] = {"C", "T", "S", "N", "B", "NB"};
    return n[l];
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

/* Exact small products: no conjugation anywhere, the operand order kept
 * (a @ b, not b @ a), the imaginary parts of both operands used. */
START_TEST(matmul_exact_no_conjugation)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    /* a = [[1+2i, 3-1i], [0.5i, -2]], b = [[2-1i, 1], [0.5+4i, -1i]] */
    static const double ar[4] = {1, 3, 0, -2}, ai[4] = {2, -1, 0.5, 0}, br[4] = {2, 1, 0.5, 0}, bi[4] = {-1, 0, 4, -1};
    double wr[4], wi[4];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double sr = 0, si = 0;
            for (int k = 0; k < 2; k++) {
                double xr = ar[i * 2 + k], xi = ai[i * 2 + k], yr = br[k * 2 + j], yi = bi[k * 2 + j];
                sr += xr * yr - xi * yi, si += xr * yi + xi * yr;
            }
            wr[i * 2 + j] = sr, wi[i * 2 + j] = si;
        }
    /* a[0] @ b[:, 0] = (1+2i)(2-i) + (3-i)(0.5+4i) = (4+3i) + (5.5+11.5i) */
    ck_assert(wr[0] == 9.5 && wi[0] == 14.5);
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = mc_types[ti];
            size_t isz = nd_dtype_size(t);
            unsigned char ra[64], rb[64];
            for (int i = 0; i < 4; i++) {
                if (t == ND_COMPLEX64) {
                    float va[2] = {(float)ar[i], (float)ai[i]}, vb[2] = {(float)br[i], (float)bi[i]};
                    memcpy(ra + i * isz, va, 8), memcpy(rb + i * isz, vb, 8);
                } else {
                    double va[2] = {ar[i], ai[i]}, vb[2] = {br[i], bi[i]};
                    memcpy(ra + i * isz, va, 16), memcpy(rb + i * isz, vb, 16);
                }
            }
            nd_array *a = NULL, *b = NULL, *r = NULL, *d = NULL, *g = NULL;
            ND_OK_OR_FAIL(nd_from_host(&a, ra, t, 2, SHP(2, 2), devs[di]));
            ND_OK_OR_FAIL(nd_from_host(&b, rb, t, 2, SHP(2, 2), devs[di]));
            ND_OK_OR_FAIL(nd_matmul(&r, a, b));
            ND_OK_OR_FAIL(nd_dot(&d, a, b));
            ND_OK_OR_FAIL(nd_gemm(&g, false, false, 1.0, a, b, 0.0));
            nd_array *res[3] = {r, d, g};
            for (int k = 0; k < 3; k++) {
                ck_assert_int_eq(nd_dtype_of(res[k]), t);
                mc_vals v = mc_get(res[k]);
                for (int i = 0; i < 4; i++)
                    ck_assert_msg(v.re[i] == wr[i] && v.im[i] == wi[i], "%s %s on device %d: [%d] = (%g, %g), want (%g, %g)",
                                  k == 0 ? "matmul" : k == 1 ? "dot" : "gemm", nd_dtype_name(t), di, i, v.re[i],
                                  v.im[i], wr[i], wi[i]);
                mc_free(&v);
            }
            /* the 1-D inner product: sum a_k b_k, not sum conj(a_k) b_k (that is vdot) */
            nd_array *x = NULL, *y = NULL, *s = NULL;
            ND_OK_OR_FAIL(nd_from_host(&x, ra, t, 1, SHP(2), devs[di]));
            ND_OK_OR_FAIL(nd_from_host(&y, rb, t, 1, SHP(2), devs[di]));
            ND_OK_OR_FAIL(nd_dot(&s, x, y));
            ck_assert_int_eq(nd_ndim(s), 0);
            mc_vals v = mc_get(s);
            /* (1+2i)(2-i) + (3-i)(1) = (4+3i) + (3-i) */
            ck_assert_msg(v.re[0] == 7.0 && v.im[0] == 2.0, "dot of 1-D: (%g, %g), want (7, 2)", v.re[0], v.im[0]);
            mc_free(&v);
            nd_release(x), nd_release(y), nd_release(s);
            nd_release(a), nd_release(b), nd_release(r), nd_release(d), nd_release(g);
        }
}
END_TEST

/* 2-D products over operand and output layouts (BLAS flags, packing,
 * computing C^T, unpacking a stepped output). */
START_TEST(matmul_2d_layouts)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    static const int64_t sizes[][3] = {{1, 1, 1}, {3, 5, 2}, {17, 33, 65}, {70, 90, 80}};
    /* a layout, b layout, out: -1 = new, else a poisoned view of that layout */
    static const int combos[][3] = {{L_C, L_C, -1}, {L_T, L_C, L_C}, {L_C, L_T, L_T}, {L_T, L_T, L_S},
                                    {L_S, L_C, L_C}, {L_C, L_S, L_T}, {L_N, L_T, -1}, {L_S, L_S, L_S},
                                    {L_C, L_N, L_T}, {L_T, L_N, L_N}};
    uint32_t seed = 1;
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++)
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
                for (size_t ci = 0; ci < sizeof combos / sizeof *combos; ci++) {
                    nd_dtype t = mc_types[ti];
                    int64_t M = sizes[si][0], K = sizes[si][1], N = sizes[si][2];
                    nd_array *ab, *bb, *ob = NULL, *o = NULL;
                    nd_array *a = mc_layout(t, combos[ci][0], 2, SHP(M, K), seed++, false, devs[di], &ab);
                    nd_array *b = mc_layout(t, combos[ci][1], 2, SHP(K, N), seed++, false, devs[di], &bb);
                    if (combos[ci][2] >= 0) o = mc_layout(t, combos[ci][2], 2, SHP(M, N), 0, true, devs[di], &ob);
                    char what[160];
                    snprintf(what, sizeof what, "device %d, (%lld,%lld)@(%lld,%lld), a %s, b %s, out %s", di,
                             (long long)M, (long long)K, (long long)K, (long long)N, mc_lay_name(combos[ci][0]),
                             mc_lay_name(combos[ci][1]), combos[ci][2] < 0 ? "new" : mc_lay_name(combos[ci][2]));
                    mc_run_matmul(a, b, o, ob, what);
                    nd_release(a), nd_release(ab), nd_release(b), nd_release(bb), nd_release(o), nd_release(ob);
                }
}
END_TEST

/* Batched products: broadcast batch dimensions (size 1 and stride 0),
 * negative batch strides, 2-D with 3-D, outputs whose batch dimensions
 * cannot be merged (the core's odometer). */
START_TEST(matmul_batched_broadcast)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    uint32_t seed = 100;
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = mc_types[ti];
            nd_device dev = devs[di];
            nd_array *ab, *bb, *ob, *a, *b, *o;
            char what[128];
            /* (2,3,M,K) @ (3,K,N) */
            a = mc_layout(t, L_C, 4, SHP(2, 3, 4, 5), seed++, false, dev, &ab);
            b = mc_layout(t, L_T, 3, SHP(3, 5, 6), seed++, false, dev, &bb);
            snprintf(what, sizeof what, "device %d: (2,3,4,5) @ (3,5,6)T", di);
            mc_run_matmul(a, b, NULL, NULL, what);
            nd_release(a), nd_release(ab), nd_release(b), nd_release(bb);
            /* a broadcast by stride 0 over the batch, b transposed */
            a = mc_layout(t, L_B, 3, SHP(4, 7, 9), seed++, false, dev, &ab);
            ck_assert_int_eq(nd_strides(a)[0], 0);
            b = mc_layout(t, L_T, 3, SHP(4, 9, 3), seed++, false, dev, &bb);
            o = mc_layout(t, L_C, 3, SHP(4, 7, 3), 0, true, dev, &ob);
            snprintf(what, sizeof what, "device %d: stride-0 a (4,7,9) @ (4,9,3)T", di);
            mc_run_matmul(a, b, o, ob, what);
            nd_release(a), nd_release(ab), nd_release(b), nd_release(bb), nd_release(o), nd_release(ob);
            /* negative batch strides for a and out, b 2-D */
            a = mc_layout(t, L_NB, 3, SHP(5, 6, 8), seed++, false, dev, &ab);
            b = mc_layout(t, L_C, 2, SHP(8, 4), seed++, false, dev, &bb);
            o = mc_layout(t, L_NB, 3, SHP(5, 6, 4), 0, true, dev, &ob);
            snprintf(what, sizeof what, "device %d: reversed batch (5,6,8) @ (8,4) into a reversed out", di);
            mc_run_matmul(a, b, o, ob, what);
            nd_release(a), nd_release(ab), nd_release(b), nd_release(bb), nd_release(o), nd_release(ob);
            /* size-1 batch dimensions on both sides: (3,1,M,K) @ (1,4,K,N) */
            a = mc_layout(t, L_S, 4, SHP(3, 1, 5, 4), seed++, false, dev, &ab);
            b = mc_layout(t, L_C, 4, SHP(1, 4, 4, 6), seed++, false, dev, &bb);
            snprintf(what, sizeof what, "device %d: (3,1,5,4)S @ (1,4,4,6)", di);
            mc_run_matmul(a, b, NULL, NULL, what);
            nd_release(a), nd_release(ab), nd_release(b), nd_release(bb);
            /* an out with permuted batch dimensions (not mergeable into one stride) */
            a = mc_layout(t, L_C, 4, SHP(2, 3, 4, 5), seed++, false, dev, &ab);
            b = mc_layout(t, L_C, 4, SHP(2, 3, 5, 2), seed++, false, dev, &bb);
            ob = mc_nan(t, 4, SHP(3, 2, 4, 2), dev);
            o = NULL;
            ND_OK_OR_FAIL(nd_transpose(&o, ob, (const int[]){1, 0, 2, 3}));
            snprintf(what, sizeof what, "device %d: (2,3,4,5) @ (2,3,5,2) into a batch-permuted out", di);
            mc_run_matmul(a, b, o, ob, what);
            nd_release(a), nd_release(ab), nd_release(b), nd_release(bb), nd_release(o), nd_release(ob);
            /* many small products (the CPU spreads them over threads) */
            a = mc_layout(t, L_C, 3, SHP(64, 8, 8), seed++, false, dev, &ab);
            b = mc_layout(t, L_T, 3, SHP(64, 8, 8), seed++, false, dev, &bb);
            snprintf(what, sizeof what, "device %d: 64 x (8,8) @ (8,8)T", di);
            mc_run_matmul(a, b, NULL, NULL, what);
            nd_release(a), nd_release(ab), nd_release(b), nd_release(bb);
        }
}
END_TEST

/* 1-D operands: promoted, the added axis removed (NumPy), with steps and
 * reversed strides. */
START_TEST(matmul_1d)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    uint32_t seed = 200;
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = mc_types[ti];
            nd_device dev = devs[di];
            struct {
                int an, bn, la, lb;
                int64_t as[3], bs[3];
            } cs[] = {
                {1, 2, L_C, L_C, {7}, {7, 5}},         {1, 2, L_S, L_T, {7}, {7, 5}},
                {2, 1, L_C, L_C, {4, 9}, {9}},         {2, 1, L_T, L_N, {4, 9}, {9}},
                {1, 1, L_C, L_C, {11}, {11}},          {1, 1, L_S, L_N, {11}, {11}},
                {1, 3, L_C, L_C, {6}, {3, 6, 2}},      {3, 1, L_NB, L_S, {3, 4, 6}, {6}},
                {1, 2, L_C, L_C, {300}, {300, 2}},     {2, 1, L_T, L_C, {3, 300}, {300}},
            };
            for (size_t ci = 0; ci < sizeof cs / sizeof *cs; ci++) {
                nd_array *ab, *bb;
                nd_array *a = mc_layout(t, cs[ci].la, cs[ci].an, cs[ci].as, seed++, false, dev, &ab);
                nd_array *b = mc_layout(t, cs[ci].lb, cs[ci].bn, cs[ci].bs, seed++, false, dev, &bb);
                char what[96];
                snprintf(what, sizeof what, "device %d: 1-D case %zu", di, ci);
                mc_run_matmul(a, b, NULL, NULL, what);
                /* dot agrees where it is matmul (a 1-D operand) */
                nd_array *d = NULL;
                if (cs[ci].an == 1 || cs[ci].bn == 1) {
                    mc_vals va = mc_get(a), vb = mc_get(b);
                    if (cs[ci].an <= 2 && cs[ci].bn <= 2) {
                        ND_OK_OR_FAIL(nd_dot(&d, a, b));
                        mc_ref ref = mc_ref_matmul(&va, &vb);
                        mc_expect(d, &ref, NULL, what);
                        mc_ref_free(&ref);
                    }
                    mc_free(&va), mc_free(&vb);
                }
                nd_release(d);
                nd_release(a), nd_release(ab), nd_release(b), nd_release(bb);
            }
        }
}
END_TEST

/* complex with a real dtype: the result dtype is NumPy's, the values the
 * product of the promoted operands. */
START_TEST(matmul_mixed_promotion)
{
    static const struct {
        nd_dtype a, b, want;
    } cs[] = {
        {ND_COMPLEX64, ND_FLOAT32, ND_COMPLEX64},   {ND_COMPLEX64, ND_FLOAT64, ND_COMPLEX128},
        {ND_COMPLEX64, ND_INT32, ND_COMPLEX128},    {ND_COMPLEX64, ND_INT8, ND_COMPLEX64},
        {ND_COMPLEX64, ND_BOOL, ND_COMPLEX64},      {ND_FLOAT16, ND_COMPLEX64, ND_COMPLEX64},
        {ND_COMPLEX128, ND_FLOAT32, ND_COMPLEX128}, {ND_INT64, ND_COMPLEX128, ND_COMPLEX128},
        {ND_UINT16, ND_COMPLEX64, ND_COMPLEX64},    {ND_COMPLEX64, ND_COMPLEX128, ND_COMPLEX128},
    };
    nd_device devs[2];
    int ndev = cv_devices(devs);
    uint32_t seed = 300;
    for (int di = 0; di < ndev; di++)
        for (size_t ci = 0; ci < sizeof cs / sizeof *cs; ci++) {
            nd_dtype rt;
            ND_OK_OR_FAIL(nd_result_type(&rt, cs[ci].a, cs[ci].b));
            ck_assert_msg(rt == cs[ci].want, "result_type(%s, %s) = %s, want %s", nd_dtype_name(cs[ci].a),
                          nd_dtype_name(cs[ci].b), nd_dtype_name(rt), nd_dtype_name(cs[ci].want));
            nd_array *ab, *bb;
            nd_array *a = mc_layout(cs[ci].a, ci % 2 ? L_T : L_C, 2, SHP(6, 13), seed++, false, devs[di], &ab);
            nd_array *b = mc_layout(cs[ci].b, ci % 3 ? L_C : L_T, 3, SHP(2, 13, 5), seed++, false, devs[di], &bb);
            char what[128];
            snprintf(what, sizeof what, "device %d: %s @ %s", di, nd_dtype_name(cs[ci].a), nd_dtype_name(cs[ci].b));
            mc_run_matmul(a, b, NULL, NULL, what);
            /* gemm promotes the same way */
            nd_array *b2 = NULL, *g = NULL;
            ND_OK_OR_FAIL(nd_slice(&b2, b, 1, (const nd_range[]){{0, 1, 1}}));
            nd_array *b2d = NULL;
            ND_OK_OR_FAIL(nd_squeeze(&b2d, b2, 1, (const int[]){0}));
            ND_OK_OR_FAIL(nd_gemm(&g, false, false, 1.0, a, b2d, 0.0));
            ck_assert_int_eq(nd_dtype_of(g), cs[ci].want);
            mc_vals va = mc_get(a), vb = mc_get(b2d);
            mc_ref ref = mc_ref_matmul(&va, &vb);
            mc_expect(g, &ref, NULL, what);
            mc_ref_free(&ref), mc_free(&va), mc_free(&vb);
            nd_release(g), nd_release(b2), nd_release(b2d);
            nd_release(a), nd_release(ab), nd_release(b), nd_release(bb);
        }
}
END_TEST

/* Empty results touch nothing; K == 0 gives zeros (NaN poison replaced);
 * gemm with K == 0 or alpha == 0 gives beta * c without reading a and b. */
START_TEST(matmul_empty_and_k0)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = mc_types[ti];
            nd_device dev = devs[di];
            struct {
                int an, bn;
                int64_t as[3], bs[3];
            } cs[] = {
                {2, 2, {0, 4}, {4, 3}}, {2, 2, {3, 4}, {4, 0}}, {3, 2, {0, 2, 4}, {4, 3}},
                {2, 2, {3, 0}, {0, 5}}, {1, 1, {0}, {0}},       {3, 3, {2, 3, 0}, {2, 0, 4}},
                {1, 2, {0}, {0, 3}},
            };
            for (size_t ci = 0; ci < sizeof cs / sizeof *cs; ci++) {
                nd_array *a = mc_rand(t, cs[ci].an, cs[ci].as, 7, dev), *b = mc_rand(t, cs[ci].bn, cs[ci].bs, 8, dev);
                nd_array *r = NULL;
                ND_OK_OR_FAIL(nd_matmul(&r, a, b));
                mc_vals va = mc_get(a), vb = mc_get(b);
                mc_ref ref = mc_ref_matmul(&va, &vb);
                char what[64];
                snprintf(what, sizeof what, "device %d: empty/K=0 case %zu", di, ci);
                mc_expect(r, &ref, NULL, what);
                /* into a NaN-poisoned out: K == 0 overwrites it with exact zeros */
                nd_array *o = mc_nan(t, ref.v.nd, ref.v.sh, dev), *o2 = o;
                ND_OK_OR_FAIL(nd_matmul(&o2, a, b));
                mc_vals g = mc_get(o);
                for (int64_t i = 0; i < g.n; i++)
                    ck_assert_msg(g.re[i] == 0.0 && g.im[i] == 0.0, "%s: out element %lld is (%g, %g)", what,
                                  (long long)i, g.re[i], g.im[i]);
                mc_free(&g);
                mc_ref_free(&ref), mc_free(&va), mc_free(&vb);
                nd_release(o), nd_release(r), nd_release(a), nd_release(b);
            }
            /* gemm, K == 0 and alpha == 0 (a holds NaN: not read), beta 0.5 */
            for (int k = 0; k < 2; k++) {
                int64_t K = k == 0 ? 0 : 3;
                nd_array *a = mc_nan(t, 2, SHP(4, K), dev), *b = mc_nan(t, 2, SHP(K, 5), dev);
                nd_array *c = mc_rand(t, 2, SHP(4, 5), 9, dev), *c0 = c;
                mc_vals old = mc_get(c);
                ND_OK_OR_FAIL(nd_gemm(&c, false, false, k == 0 ? 2.0 : 0.0, a, b, 0.5));
                ck_assert_ptr_eq(c, c0);
                mc_vals g = mc_get(c);
                for (int64_t i = 0; i < g.n; i++) /* halving is exact */
                    ck_assert_msg(g.re[i] == 0.5 * old.re[i] && g.im[i] == 0.5 * old.im[i],
                                  "gemm %s: c[%lld] = (%g, %g), want 0.5 * (%g, %g)", k == 0 ? "K=0" : "alpha=0",
                                  (long long)i, g.re[i], g.im[i], old.re[i], old.im[i]);
                mc_free(&g), mc_free(&old);
                /* beta 0: zeros even over NaN */
                nd_array *p = mc_nan(t, 2, SHP(4, 5), dev), *p0 = p;
                ND_OK_OR_FAIL(nd_gemm(&p, false, false, k == 0 ? 2.0 : 0.0, a, b, 0.0));
                ck_assert_ptr_eq(p, p0);
                g = mc_get(p);
                for (int64_t i = 0; i < g.n; i++) ck_assert(g.re[i] == 0.0 && g.im[i] == 0.0);
                mc_free(&g);
                nd_release(p), nd_release(c), nd_release(a), nd_release(b);
            }
        }
}
END_TEST

/* The out rule with complex results: a complex64 out of a complex128
 * product is cast once; a float out cannot take a complex result
 * (same_kind); an out that is an input is computed through a temporary. */
START_TEST(matmul_out_rules)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    for (int di = 0; di < ndev; di++) {
        nd_device dev = devs[di];
        nd_array *a = mc_rand(ND_COMPLEX128, 2, SHP(9, 9), 41, dev), *b = mc_rand(ND_COMPLEX64, 2, SHP(9, 9), 42, dev);
        mc_vals va = mc_get(a), vb = mc_get(b);
        mc_ref ref = mc_ref_matmul(&va, &vb);
        nd_array *o = mc_nan(ND_COMPLEX64, 2, SHP(9, 9), dev), *o2 = o;
        ND_OK_OR_FAIL(nd_matmul(&o2, a, b));
        ck_assert_ptr_eq(o2, o);
        mc_expect(o, &ref, NULL, "complex128 product into a complex64 out");
        nd_array *f = mc_nan(ND_FLOAT64, 2, SHP(9, 9), dev), *f2 = f;
        ND_EXPECT_ERR(nd_matmul(&f2, a, b), ND_ERR_DTYPE, "complex128");
        ck_assert_ptr_eq(f2, f);
        /* in place: b = b @ b */
        mc_ref ref2 = mc_ref_matmul(&vb, &vb);
        nd_array *bb = b;
        ND_OK_OR_FAIL(nd_matmul(&bb, b, b));
        ck_assert_ptr_eq(bb, b);
        mc_expect(b, &ref2, NULL, "b = b @ b in place");
        mc_ref_free(&ref2);
        mc_ref_free(&ref), mc_free(&va), mc_free(&vb);
        nd_release(o), nd_release(f), nd_release(a), nd_release(b);
    }
}
END_TEST

/* nd_dot beyond matmul: N-D operands (sum over a's last and b's
 * second-to-last axis) and a 0-d operand (a scalar product). */
START_TEST(dot_nd_and_scalar)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = mc_types[ti];
            nd_device dev = devs[di];
            nd_array *a = mc_rand(t, 3, SHP(2, 3, 7), 51, dev), *b = mc_rand(ND_FLOAT32, 3, SHP(4, 7, 5), 52, dev);
            nd_array *r = NULL;
            ND_OK_OR_FAIL(nd_dot(&r, a, b));
            ck_assert_int_eq(nd_dtype_of(r), t);
            mc_vals va = mc_get(a), vb = mc_get(b), g = mc_get(r);
            ck_assert_int_eq(g.nd, 4);
            ck_assert(g.sh[0] == 2 && g.sh[1] == 3 && g.sh[2] == 4 && g.sh[3] == 5);
            for (int64_t p = 0; p < 6; p++)
                for (int64_t q = 0; q < 4; q++)
                    for (int64_t n = 0; n < 5; n++) {
                        long double sr = 0, si = 0, sm = 0;
                        for (int64_t k = 0; k < 7; k++) {
                            long double xr = va.re[p * 7 + k], xi = va.im[p * 7 + k], y = vb.re[(q * 7 + k) * 5 + n];
                            sr += xr * y, si += xi * y, sm += hypotl(xr, xi) * fabsl(y);
                        }
                        int64_t o = (p * 4 + q) * 5 + n;
                        double tol = 4.0 * (sqrt(7.0) + 1.0) * mc_eps(t) * (double)sm;
                        ck_assert_msg(fabs(g.re[o] - (double)sr) <= tol && fabs(g.im[o] - (double)si) <= tol,
                                      "dot N-D [%lld]: (%g, %g), want (%g, %g)", (long long)o, g.re[o], g.im[o],
                                      (double)sr, (double)si);
                    }
            mc_free(&va), mc_free(&vb), mc_free(&g);
            nd_release(r);
            /* a 0-d complex times an array */
            nd_array *z = NULL, *s = NULL;
            ND_OK_OR_FAIL(nd_slice(&z, a, 3, (const nd_range[]){{1, 2, 1}, {2, 3, 1}, {4, 5, 1}}));
            nd_array *z0 = NULL;
            ND_OK_OR_FAIL(nd_squeeze(&z0, z, 0, NULL));
            ND_OK_OR_FAIL(nd_dot(&s, z0, b));
            mc_vals vz = mc_get(z0), vs = mc_get(s);
            vb = mc_get(b);
            ck_assert_int_eq(vs.n, vb.n);
            for (int64_t i = 0; i < vs.n; i++) {
                double wr = vz.re[0] * vb.re[i], wi = vz.im[0] * vb.re[i];
                double tol = 2 * mc_eps(t) * hypot(vz.re[0], vz.im[0]) * fabs(vb.re[i]);
                ck_assert(fabs(vs.re[i] - wr) <= tol && fabs(vs.im[i] - wi) <= tol);
            }
            mc_free(&vz), mc_free(&vs), mc_free(&vb);
            nd_release(z), nd_release(z0), nd_release(s), nd_release(a), nd_release(b);
        }
}
END_TEST

/* nd_gemm: transpose flags, alpha/beta (beta 0 over NaN; beta != 0 with a
 * random c), c as a transposed or stepped view, and its dtype rules. */
START_TEST(gemm_flags_alpha_beta_views)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    uint32_t seed = 600;
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = mc_types[ti];
            nd_device dev = devs[di];
            const int64_t M = 19, K = 23, N = 11;
            /* c: new; C with beta -0.75; T with beta 0 over NaN; S with beta
             * 0.5; S with beta 0 over NaN (the poison outside it stays) */
            static const int c_lay[5] = {-1, L_C, L_T, L_S, L_S};
            static const double c_beta[5] = {0.0, -0.75, 0.0, 0.5, 0.0};
            for (int f = 0; f < 4; f++)
                for (int cl = 0; cl < 5; cl++) {
                    const bool ta = f & 1, tb = f & 2;
                    const double alpha = 1.5, beta = c_beta[cl];
                    /* a stored as op(a)'s transpose when ta; sometimes itself a view */
                    nd_array *ab, *bb, *cb = NULL, *c = NULL;
                    nd_array *a = mc_layout(t, f == 3 ? L_S : L_C, 2, ta ? SHP(K, M) : SHP(M, K), seed++, false, dev, &ab);
                    nd_array *b = mc_layout(t, f == 0 ? L_T : L_C, 2, tb ? SHP(N, K) : SHP(K, N), seed++, false, dev, &bb);
                    if (cl > 0) c = mc_layout(t, c_lay[cl], 2, SHP(M, N), seed++, beta == 0.0, dev, &cb);
                    /* the reference: alpha * op(a) @ op(b) + beta * c_old */
                    nd_array *oa = NULL, *ob = NULL;
                    if (ta) ND_OK_OR_FAIL(nd_transpose(&oa, a, NULL));
                    else nd_retain(a), oa = a;
                    if (tb) ND_OK_OR_FAIL(nd_transpose(&ob, b, NULL));
                    else nd_retain(b), ob = b;
                    mc_vals va = mc_get(oa), vb = mc_get(ob);
                    mc_ref ref = mc_ref_matmul(&va, &vb);
                    double *extra = calloc((size_t)(M * N), sizeof(double));
                    ck_assert(extra != NULL);
                    if (c && beta != 0.0) {
                        mc_vals vc = mc_get(c);
                        for (int64_t i = 0; i < M * N; i++) {
                            ref.v.re[i] = alpha * ref.v.re[i] + beta * vc.re[i];
                            ref.v.im[i] = alpha * ref.v.im[i] + beta * vc.im[i];
                            ref.mag[i] *= alpha;
                            extra[i] = fabs(beta) * hypot(vc.re[i], vc.im[i]);
                        }
                        mc_free(&vc);
                    } else {
                        for (int64_t i = 0; i < M * N; i++)
                            ref.v.re[i] *= alpha, ref.v.im[i] *= alpha, ref.mag[i] *= alpha;
                    }
                    nd_array *c0 = c;
                    ND_OK_OR_FAIL(nd_gemm(&c, ta, tb, alpha, a, b, beta));
                    if (c0) ck_assert_ptr_eq(c, c0);
                    ck_assert_int_eq(nd_dtype_of(c), t);
                    char what[128];
                    snprintf(what, sizeof what, "device %d: gemm ta=%d tb=%d, c %s, beta %g", di, ta, tb,
                             cl == 0 ? "new" : mc_lay_name(c_lay[cl]), beta);
                    mc_expect(c, &ref, extra, what);
                    if (cl == 4) mc_expect_poison_outside(cb, M * N, what);
                    free(extra);
                    mc_ref_free(&ref), mc_free(&va), mc_free(&vb);
                    nd_release(oa), nd_release(ob), nd_release(a), nd_release(ab), nd_release(b), nd_release(bb);
                    nd_release(c), nd_release(cb);
                }
            /* c must have exactly the promoted dtype; integer gemm stays refused */
            nd_array *a = mc_rand(ND_COMPLEX64, 2, SHP(3, 4), 1, dev), *b = mc_rand(ND_FLOAT32, 2, SHP(4, 2), 2, dev);
            nd_array *c = mc_nan(ND_COMPLEX128, 2, SHP(3, 2), dev), *c0 = c;
            ND_EXPECT_ERR(nd_gemm(&c, false, false, 1.0, a, b, 0.0), ND_ERR_DTYPE, "c has dtype complex128");
            ck_assert_ptr_eq(c, c0);
            nd_array *ia = mc_rand(ND_INT32, 2, SHP(3, 4), 3, dev), *ib = mc_rand(ND_INT32, 2, SHP(4, 2), 4, dev), *ic = NULL;
            ND_EXPECT_ERR(nd_gemm(&ic, false, false, 1.0, ia, ib, 0.0), ND_ERR_DTYPE, "gemm needs a float dtype");
            ck_assert_ptr_null(ic);
            nd_release(a), nd_release(b), nd_release(c), nd_release(ia), nd_release(ib);
        }
}
END_TEST

/* Compositions over matmul / multiply: tensordot and outer. */
START_TEST(tensordot_and_outer)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    for (int di = 0; di < ndev; di++) {
        nd_device dev = devs[di];
        nd_array *a = mc_rand(ND_COMPLEX128, 3, SHP(3, 4, 5), 71, dev), *b = mc_rand(ND_COMPLEX64, 3, SHP(4, 5, 2), 72, dev);
        nd_array *r = NULL;
        ND_OK_OR_FAIL(nd_tensordot(&r, a, b, 2, NULL, NULL));
        nd_array *a2 = NULL, *b2 = NULL;
        ND_OK_OR_FAIL(nd_reshape(&a2, a, 2, SHP(3, 20)));
        ND_OK_OR_FAIL(nd_reshape(&b2, b, 2, SHP(20, 2)));
        mc_vals va = mc_get(a2), vb = mc_get(b2);
        mc_ref ref = mc_ref_matmul(&va, &vb);
        mc_expect(r, &ref, NULL, "tensordot axes=2");
        mc_ref_free(&ref), mc_free(&va), mc_free(&vb);
        nd_release(r), nd_release(a2), nd_release(b2), nd_release(a), nd_release(b);
        /* outer: out[i, j] = x[i] * y[j], complex64 x float64 -> complex128 */
        nd_array *x = mc_rand(ND_COMPLEX64, 1, SHP(3), 73, dev), *y = mc_rand(ND_FLOAT64, 1, SHP(4), 74, dev), *o = NULL;
        ND_OK_OR_FAIL(nd_outer(&o, x, y));
        ck_assert_int_eq(nd_dtype_of(o), ND_COMPLEX128);
        nd_array *xc = NULL, *yr = NULL;
        ND_OK_OR_FAIL(nd_reshape(&xc, x, 2, SHP(3, 1)));
        ND_OK_OR_FAIL(nd_reshape(&yr, y, 2, SHP(1, 4)));
        va = mc_get(xc), vb = mc_get(yr);
        ref = mc_ref_matmul(&va, &vb);
        mc_expect(o, &ref, NULL, "outer");
        mc_ref_free(&ref), mc_free(&va), mc_free(&vb);
        nd_release(xc), nd_release(yr), nd_release(x), nd_release(y), nd_release(o);
    }
}
END_TEST

/* Long inner dimensions: the complex64 error grows like sqrt(K) eps, and
 * an accumulation in float with a wrong part (or in the wrong order of
 * magnitude) would exceed it. */
START_TEST(matmul_long_k)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_array *ab, *bb;
            nd_array *a = mc_layout(mc_types[ti], L_C, 2, SHP(5, 4099), 81, false, devs[di], &ab);
            nd_array *b = mc_layout(mc_types[ti], L_T, 2, SHP(4099, 6), 82, false, devs[di], &bb);
            mc_run_matmul(a, b, NULL, NULL, "K = 4099");
            nd_release(a), nd_release(ab), nd_release(b), nd_release(bb);
            a = mc_layout(mc_types[ti], L_C, 2, SHP(96, 300), 83, false, devs[di], &ab);
            b = mc_layout(mc_types[ti], L_C, 2, SHP(300, 130), 84, false, devs[di], &bb);
            mc_run_matmul(a, b, NULL, NULL, "(96,300) @ (300,130)");
            nd_release(a), nd_release(ab), nd_release(b), nd_release(bb);
        }
}
END_TEST

Suite *suite_matmul_cpx(void)
{
    Suite *s = suite_create("matmul_cpx");
    TCase *tc = tcase_create("matmul_cpx");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, matmul_exact_no_conjugation);
    tcase_add_test(tc, matmul_2d_layouts);
    tcase_add_test(tc, matmul_batched_broadcast);
    tcase_add_test(tc, matmul_1d);
    tcase_add_test(tc, matmul_mixed_promotion);
    tcase_add_test(tc, matmul_empty_and_k0);
    tcase_add_test(tc, matmul_out_rules);
    tcase_add_test(tc, dot_nd_and_scalar);
    tcase_add_test(tc, gemm_flags_alpha_beta_views);
    tcase_add_test(tc, tensordot_and_outer);
    tcase_add_test(tc, matmul_long_k);
    suite_add_tcase(s, tc);
    if (nd_test_gpu_count() == 0) printf("matmul_cpx: no CUDA device: the cuda:0 cases are SKIPPED\n");
    return s;
}
