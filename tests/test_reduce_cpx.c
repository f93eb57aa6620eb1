/* Complex reductions and complex random numbers: sum, prod,
 * mean, var, std, any, all of complex64/complex128 over every axis
 * combination of a 3-D array (keepdims, transposed and strided inputs,
 * ddof, empty axes, NaN/inf in either part) against a long double reference
 * computed here; the nan-aware forms; result dtypes (var/std real),
 * nd_reduce_dtype with complex dtypes, out=; prod of long vectors (the
 * pairwise tree); max/min/argmax/argmin refused. Complex nd_random_normal /
 * nd_random_uniform: the moments of each part for 10^5 draws, the stream
 * layout (a complex call = a real call of 2n of the part dtype),
 * reproducibility, and the same bits on the CPU and on cuda:0. Every case
 * runs on the CPU and on cuda:0 when there is one (the emulated GPU in
 * `make emu-test`). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "creation_util.h"
#include "ndgpu.h"
#include "test_util.h"
#include "complex_util.h"

Suite *suite_reduce_cpx(void);

static const nd_dtype CT[2] = {ND_COMPLEX64, ND_COMPLEX128};

static double xs_u01(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) * 0x1p-53;
}

static double part_eps(nd_dtype t) { return t == ND_COMPLEX64 || t == ND_FLOAT32 ? FLT_EPSILON : DBL_EPSILON; }
/* v as stored in a part of dtype t */
static double rp(nd_dtype t, double v) { return t == ND_COMPLEX64 ? (double)(float)v : v; }


/* L (shape s, C order) as an array on dev of layout lay: 0 C-contiguous,
 * 1 a transposed view of a (s2, s1, s0) array, 2 a strided slice of a
 * larger array with steps 2, -1, 2 (the other elements hold 7 + 7i). */
static nd_array *make_layout(nd_dtype t, const int64_t s[3], const double *re, const double *im, int lay, nd_device dev)
{
    if (lay == 0) return cx_make(t, 3, s, re, im, dev);
    nd_array *base = NULL, *v = NULL;
    if (lay == 1) {
        const int64_t bs[3] = {s[2], s[1], s[0]};
        int64_t n = s[0] * s[1] * s[2];
        double *br = malloc(sizeof(double) * (size_t)(n + 1)), *bi = malloc(sizeof(double) * (size_t)(n + 1));
        for (int64_t i = 0; i < s[0]; i++)
            for (int64_t j = 0; j < s[1]; j++)
                for (int64_t k = 0; k < s[2]; k++) {
                    int64_t src = (i * s[1] + j) * s[2] + k, dst = (k * s[1] + j) * s[0] + i;
                    br[dst] = re[src], bi[dst] = im[src];
                }
        base = cx_make(t, 3, bs, br, bi, dev);
        free(br), free(bi);
        ND_OK_OR_FAIL(nd_transpose(&v, base, NULL));
    } else {
        const int64_t bs[3] = {2 * s[0], s[1], 2 * s[2] + 1};
        int64_t n = bs[0] * bs[1] * bs[2];
        double *br = malloc(sizeof(double) * (size_t)(n + 1)), *bi = malloc(sizeof(double) * (size_t)(n + 1));
        for (int64_t i = 0; i < n; i++) br[i] = bi[i] = 7.0;
        for (int64_t i = 0; i < s[0]; i++)
            for (int64_t j = 0; j < s[1]; j++)
                for (int64_t k = 0; k < s[2]; k++) {
                    int64_t src = (i * s[1] + j) * s[2] + k, dst = ((2 * i) * bs[1] + (s[1] - 1 - j)) * bs[2] + 1 + 2 * k;
                    br[dst] = re[src], bi[dst] = im[src];
                }
        base = cx_make(t, 3, bs, br, bi, dev);
        free(br), free(bi);
        const nd_range r[3] = {{0, bs[0], 2}, {ND_NONE, ND_NONE, -1}, {1, bs[2], 2}};
        ND_OK_OR_FAIL(nd_slice(&v, base, 3, r));
    }
    nd_release(base);
    ck_assert(!nd_is_contiguous(v));
    for (int d = 0; d < 3; d++) ck_assert_int_eq(nd_shape(v)[d], s[d]);
    return v;
}

/* The long double reference of op (SUM, PROD, MEAN, VAR, STD) over the axes
 * in mask (bit d: axis d) of the 3-D L (shape s), C order of the kept axes:
 * rr/ri the result parts (var/std: ri = 0), scale the magnitude the error
 * bound scales with (sum/mean: sum |re| + |im|; var/std: sum |z|^2; prod:
 * prod |z|), *nred the reduced block size. nan: skip elements with a NaN
 * part (the nan-functions; prod/sum identities, mean/var NaN when none is
 * left). */
static void ref_reduce(nd_reduce_op op, bool nan, double ddof, const int64_t s[3], unsigned mask, const double *re,
                       const double *im, long double *rr, long double *ri, long double *scale, int64_t *nred)
{
    int64_t ks[3], nout = 1, n = 1;
    for (int d = 0; d < 3; d++) {
        ks[d] = (mask >> d) & 1 ? 1 : s[d];
        nout *= ks[d];
        if ((mask >> d) & 1) n *= s[d];
    }
    *nred = n;
    long double *sr = calloc((size_t)nout + 1, sizeof *sr), *si = calloc((size_t)nout + 1, sizeof *si),
                *cnt = calloc((size_t)nout + 1, sizeof *cnt);
    for (int64_t o = 0; o < nout; o++) {
        rr[o] = op == ND_REDUCE_PROD ? 1.0L : 0.0L, ri[o] = 0.0L;
        scale[o] = op == ND_REDUCE_PROD ? 1.0L : 0.0L;
    }
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = 0; i < s[0]; i++)
            for (int64_t j = 0; j < s[1]; j++)
                for (int64_t k = 0; k < s[2]; k++) {
                    int64_t e = (i * s[1] + j) * s[2] + k;
                    int64_t o = ((((mask & 1) ? 0 : i) * ks[1]) + ((mask & 2) ? 0 : j)) * ks[2] + ((mask & 4) ? 0 : k);
                    long double x = re[e], y = im[e];
                    if (nan && (isnan(re[e]) || isnan(im[e]))) continue;
                    if (pass == 0) {
                        sr[o] += x, si[o] += y, cnt[o] += 1;
                        if (op == ND_REDUCE_PROD) {
                            long double pr = rr[o] * x - ri[o] * y, pi = rr[o] * y + ri[o] * x;
                            rr[o] = pr, ri[o] = pi;
                            scale[o] *= sqrtl(x * x + y * y);
                        } else if (op == ND_REDUCE_SUM || op == ND_REDUCE_MEAN) {
                            scale[o] += (isfinite(re[e]) ? fabsl(x) : 0) + (isfinite(im[e]) ? fabsl(y) : 0);
                        } else {
                            scale[o] += (isfinite(re[e]) ? x * x : 0) + (isfinite(im[e]) ? y * y : 0);
                        }
                    } else if (op == ND_REDUCE_VAR || op == ND_REDUCE_STD) {
                        long double mr = sr[o] / cnt[o], mi = si[o] / cnt[o];
                        rr[o] += (x - mr) * (x - mr) + (y - mi) * (y - mi);
                    }
                }
    for (int64_t o = 0; o < nout; o++) {
        long double c = cnt[o];
        if (op == ND_REDUCE_SUM) rr[o] = sr[o], ri[o] = si[o];
        if (op == ND_REDUCE_MEAN) rr[o] = sr[o] / c, ri[o] = si[o] / c; /* 0/0: NaN */
        if (op == ND_REDUCE_VAR || op == ND_REDUCE_STD) {
            long double dof = c - ddof;
            if (nan && dof <= 0) rr[o] = NAN;
            else rr[o] = rr[o] / (dof > 0 ? dof : 0.0L);
            if (c == 0) rr[o] = NAN;
            if (op == ND_REDUCE_STD) rr[o] = sqrtl(rr[o]);
            ri[o] = 0;
        }
    }
    free(sr), free(si), free(cnt);
}

/* got within tol + rel |ref| of ref (NaN where ref is NaN, equal
 * infinities). */
static void expect_near(double got, long double ref, long double tol, long double rel, const char *what, int64_t o)
{
    /* beyond DBL_MAX the double result is an infinity (and valgrind, whose
     * long double is a double, shows such a reference as LDBL_MAX) */
    if (!isnan(ref) && fabsl(ref) > (long double)DBL_MAX) ref = ref > 0 ? (long double)INFINITY : -(long double)INFINITY;
    if (isfinite(ref)) tol += rel * fabsl(ref);
    if (isnan(ref)) {
        ck_assert_msg(isnan(got), "%s [%lld]: got %.17g, want NaN", what, (long long)o, got);
    } else if (isinf(ref)) {
        ck_assert_msg((long double)got == ref, "%s [%lld]: got %.17g, want %Lg", what, (long long)o, got, ref);
    } else {
        ck_assert_msg(fabsl((long double)got - ref) <= tol, "%s [%lld]: got %.17g, want %.17Lg (|err| %Lg > tol %Lg)",
                      what, (long long)o, got, ref, fabsl((long double)got - ref), tol);
    }
}

/* Check result r of op against the reference (tolerances ~ n eps). */
static void check_against_ref(const nd_array *r, nd_dtype t, nd_reduce_op op, bool nan, double ddof, const int64_t s[3],
                              unsigned mask, const double *re, const double *im, const char *what)
{
    int64_t nout = nd_size(r), n;
    long double *rr = malloc(sizeof(long double) * (size_t)(nout + 1)), *ri = malloc(sizeof(long double) * (size_t)(nout + 1)),
                *sc = malloc(sizeof(long double) * (size_t)(nout + 1));
    double *gr = malloc(sizeof(double) * (size_t)(nout + 1)), *gi = malloc(sizeof(double) * (size_t)(nout + 1));
    ref_reduce(op, nan, ddof, s, mask, re, im, rr, ri, sc, &n);
    cx_read(r, gr, gi);
    const long double eps = part_eps(t);
    for (int64_t o = 0; o < nout; o++) {
        long double tol;
        switch (op) {
        case ND_REDUCE_SUM: tol = 4.0L * (n + 1) * eps * sc[o]; break;
        case ND_REDUCE_MEAN: tol = (4.0L * (n + 1) * eps * sc[o]) / (n ? n : 1); break;
        case ND_REDUCE_VAR: {
            long double dof = (long double)n - ddof;
            tol = 8.0L * (n + 4) * eps * sc[o] / (dof > 1 ? dof : 1);
            break;
        }
        case ND_REDUCE_STD: {
            long double dof = (long double)n - ddof;
            long double tv = 8.0L * (n + 4) * eps * sc[o] / (dof > 1 ? dof : 1);
            tol = rr[o] > 0 ? tv / rr[o] : sqrtl(tv);
            break;
        }
        default: tol = 8.0L * (n + 1) * eps * sc[o]; break; /* prod, normwise */
        }
        if (op == ND_REDUCE_PROD && isfinite(rr[o]) && isfinite(ri[o])) {
            long double dr = gr[o] - rr[o], di = gi[o] - ri[o];
            ck_assert_msg(sqrtl(dr * dr + di * di) <= tol, "%s prod [%lld]: got (%.9g, %.9g), want (%.9Lg, %.9Lg), tol %Lg",
                          what, (long long)o, gr[o], gi[o], rr[o], ri[o], tol);
        } else {
            expect_near(gr[o], rr[o], tol, 2 * eps, what, o);
            expect_near(gi[o], ri[o], tol, 2 * eps, what, o);
        }
    }
    free(rr), free(ri), free(sc), free(gr), free(gi);
}

/* 3-D complex data with |z| in [0.5, 2] and nonzero imaginary parts,
 * rounded to t's parts. */
static void fill_data(nd_dtype t, int64_t n, double *re, double *im, uint64_t seed)
{
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        double r = 0.5 + 1.5 * xs_u01(&s), th = 6.283185307179586 * xs_u01(&s);
        re[i] = rp(t, r * cos(th) + 0.25), im[i] = rp(t, r * sin(th));
        if (im[i] == 0) im[i] = 0.5;
    }
}

/* every op over every axis combination (and axes == NULL), keepdims both,
 * three layouts, ddof 0, 1, 2.5 for var/std */
START_TEST(all_axes_layouts)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    const int64_t s[3] = {3, 4, 5};
    const int64_t n = 60;
    double re[60], im[60];
    static const nd_reduce_op ops[5] = {ND_REDUCE_SUM, ND_REDUCE_PROD, ND_REDUCE_MEAN, ND_REDUCE_VAR, ND_REDUCE_STD};
    static const double ddofs[3] = {0, 1, 2.5};
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = CT[ti];
            fill_data(t, n, re, im, 0x1234567u + (uint64_t)ti);
            for (int lay = 0; lay < 3; lay++) {
                nd_array *a = make_layout(t, s, re, im, lay, devs[di]);
                for (unsigned m = 0; m <= 8; m++) {
                    int axes[3], na = 0;
                    for (int d = 0; d < 3; d++)
                        if ((m >> d) & 1) axes[na++] = d;
                    const unsigned mask = m == 8 ? 7u : m;
                    for (int kd = 0; kd < 2; kd++)
                        for (int oi = 0; oi < 5; oi++)
                            for (int dd = 0; dd < (oi >= 3 ? 3 : 1); dd++) {
                                nd_array *r = NULL;
                                char what[160];
                                snprintf(what, sizeof what, "%s %s lay %d mask %u keepdims %d %s ddof %g",
                                         di ? "cuda" : "cpu", nd_dtype_name(t), lay, m, kd, nd_reduce_op_name(ops[oi]),
                                         ddofs[dd]);
                                ND_OK_OR_FAIL(nd_reduce_ddof(&r, ops[oi], a, na, m == 8 ? NULL : axes, kd, ddofs[dd]));
                                nd_dtype want = oi >= 3 ? (ti ? ND_FLOAT64 : ND_FLOAT32) : t;
                                ck_assert_msg(nd_dtype_of(r) == want, "%s: dtype %s", what, nd_dtype_name(nd_dtype_of(r)));
                                /* shape */
                                int64_t ws[3];
                                int wn = 0;
                                for (int d = 0; d < 3; d++)
                                    if (!((mask >> d) & 1)) ws[wn++] = s[d];
                                    else if (kd) ws[wn++] = 1;
                                cv_expect_shape(r, wn, ws);
                                check_against_ref(r, t, ops[oi], false, ddofs[dd], s, mask, re, im, what);
                                nd_release(r);
                            }
                }
                nd_release(a);
            }
        }
}
END_TEST

/* the named wrappers and nd_reduce agree with nd_reduce_ddof; any/all */
START_TEST(wrappers_any_all)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = CT[ti];
            /* rows: all zero; zero real parts only; NaN imaginary; all nonzero */
            const double re[8] = {0, 0, 0, 0, 0, 0, 1, -2}, im[8] = {0, 0, 1, 0, NAN, 0, 3, 1};
            const double *rp0 = re;
            nd_array *a = cx_make(t, 2, (const int64_t[]){4, 2}, rp0, im, devs[di]), *r = NULL;
            const int ax1 = 1, ax0 = 0;
            double g[4], gi[4];
            ND_OK_OR_FAIL(nd_any(&r, a, 1, &ax1, false));
            ck_assert_int_eq(nd_dtype_of(r), ND_BOOL);
            cx_read(r, g, gi);
            ck_assert(g[0] == 0 && g[1] == 1 && g[2] == 1 && g[3] == 1);
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_all(&r, a, 1, &ax1, false));
            cx_read(r, g, gi);
            ck_assert(g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 1);
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_all(&r, a, 1, &ax0, true));
            cv_expect_shape(r, 2, (const int64_t[]){1, 2});
            cx_read(r, g, gi);
            ck_assert(g[0] == 0 && g[1] == 0);
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_any(&r, a, 0, NULL, false));
            cx_read(r, g, gi);
            ck_assert(g[0] == 1);
            nd_release(r), r = NULL;
            /* the wrappers */
            ND_OK_OR_FAIL(nd_sum(&r, a, 1, &ax0, false));
            cx_read(r, g, gi);
            ck_assert(g[0] == 1 && g[1] == -2);
            ck_assert(isnan(gi[0]) && gi[1] == 1);
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_prod(&r, a, 1, &ax1, false)); /* (0)(0), (0)(i), (0)(NaN i), (1+3i)(-2+i) */
            cx_read(r, g, gi);
            ck_assert(g[0] == 0 && gi[0] == 0 && g[1] == 0 && gi[1] == 0 && isnan(g[2]) && isnan(gi[2]));
            ck_assert(g[3] == -5 && gi[3] == -5);
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_mean(&r, a, 1, &ax1, false));
            cx_read(r, g, gi);
            ck_assert(g[3] == -0.5 && gi[3] == 2);
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_var(&r, a, 1, &ax1, false)); /* |z - m|^2: (1.5^2 + 1) each */
            cx_read(r, g, gi);
            ck_assert(g[0] == 0 && g[1] == 0.25 && isnan(g[2]) && g[3] == 3.25);
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_std(&r, a, 1, &ax1, true));
            cv_expect_shape(r, 2, (const int64_t[]){4, 1});
            cx_read(r, g, gi);
            ck_assert(g[1] == 0.5 && fabs(g[3] - sqrt(3.25)) <= 2 * part_eps(t) * 2);
            nd_release(r), r = NULL;
            /* exact: (1+i)^8 = 16 over a tree with odd levels (n = 9 with a 1) */
            double pr[9], pi[9];
            for (int i = 0; i < 9; i++) pr[i] = 1, pi[i] = i == 4 ? 0 : 1;
            nd_array *b = cx_make(t, 1, (const int64_t[]){9}, pr, pi, devs[di]);
            ND_OK_OR_FAIL(nd_prod(&r, b, 0, NULL, false));
            cx_read(r, g, gi);
            ck_assert(g[0] == 16 && gi[0] == 0);
            nd_release(r), r = NULL;
            nd_release(b), nd_release(a);
        }
}
END_TEST

/* empty reductions: sum 0, prod 1, mean NaN+NaNj, var/std NaN, any false,
 * all true; an empty result */
START_TEST(empty_axes)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = CT[ti];
            nd_array *a = NULL, *r = NULL;
            ND_OK_OR_FAIL(nd_zeros(&a, t, 3, (const int64_t[]){2, 0, 3}, devs[di]));
            const int ax1 = 1, ax0 = 0;
            double g[6], gi[6];
            static const nd_reduce_op ops[7] = {ND_REDUCE_SUM, ND_REDUCE_PROD, ND_REDUCE_MEAN, ND_REDUCE_VAR,
                                                ND_REDUCE_STD, ND_REDUCE_ANY, ND_REDUCE_ALL};
            for (int oi = 0; oi < 7; oi++) {
                for (int all = 0; all < 2; all++) {
                    ND_OK_OR_FAIL(nd_reduce(&r, ops[oi], a, 1, all ? NULL : &ax1, false));
                    int64_t nr = nd_size(r);
                    ck_assert_int_eq(nr, all ? 1 : 6);
                    cx_read(r, g, gi);
                    for (int64_t i = 0; i < nr; i++) {
                        switch (ops[oi]) {
                        case ND_REDUCE_SUM: ck_assert(g[i] == 0 && gi[i] == 0); break;
                        case ND_REDUCE_PROD: ck_assert(g[i] == 1 && gi[i] == 0); break;
                        case ND_REDUCE_MEAN: ck_assert(isnan(g[i]) && isnan(gi[i])); break;
                        case ND_REDUCE_VAR:
                        case ND_REDUCE_STD: ck_assert(isnan(g[i])); break;
                        case ND_REDUCE_ANY: ck_assert(g[i] == 0); break;
                        default: ck_assert(g[i] == 1); break;
                        }
                    }
                    nd_release(r), r = NULL;
                }
                /* an empty result */
                ND_OK_OR_FAIL(nd_reduce(&r, ops[oi], a, 1, &ax0, false));
                cv_expect_shape(r, 2, (const int64_t[]){0, 3});
                nd_release(r), r = NULL;
            }
            /* nan-functions of an empty block */
            ND_OK_OR_FAIL(nd_nanmean(&r, a, 1, &ax1, false));
            cx_read(r, g, gi);
            ck_assert(isnan(g[0]) && isnan(gi[0]));
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_nanprod(&r, a, 1, &ax1, false));
            cx_read(r, g, gi);
            ck_assert(g[0] == 1 && gi[0] == 0);
            nd_release(r), r = NULL;
            ND_EXPECT_ERR(nd_max(&r, a, 1, &ax1, false), ND_ERR_DTYPE, "complex");
            nd_release(a);
        }
}
END_TEST

/* NaN and inf in either part: sum/mean per part, var/std, prod NaN */
START_TEST(nan_inf_parts)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    const int64_t s[3] = {4, 3, 2};
    double re[24], im[24];
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = CT[ti];
            fill_data(t, 24, re, im, 99);
            re[1] = NAN;       /* [0,0,1] */
            im[8] = INFINITY;  /* [1,1,0] */
            im[9] = -INFINITY; /* [1,1,1]: inf - inf in the sum over axis 2 */
            re[14] = INFINITY; /* [2,1,0] */
            im[21] = NAN;      /* [3,1,1] */
            nd_array *a = cx_make(t, 3, s, re, im, devs[di]);
            static const nd_reduce_op ops[4] = {ND_REDUCE_SUM, ND_REDUCE_MEAN, ND_REDUCE_VAR, ND_REDUCE_STD};
            for (unsigned m = 1; m < 8; m++) {
                int axes[3], na = 0;
                for (int d = 0; d < 3; d++)
                    if ((m >> d) & 1) axes[na++] = d;
                for (int oi = 0; oi < 4; oi++) {
                    nd_array *r = NULL;
                    char what[128];
                    snprintf(what, sizeof what, "%s %s nan/inf mask %u %s", di ? "cuda" : "cpu", nd_dtype_name(t), m,
                             nd_reduce_op_name(ops[oi]));
                    ND_OK_OR_FAIL(nd_reduce(&r, ops[oi], a, na, axes, false));
                    check_against_ref(r, t, ops[oi], false, 0, s, m, re, im, what);
                    nd_release(r);
                }
                /* prod: a NaN part anywhere in a block makes both parts NaN;
                 * finite blocks match the reference */
                nd_array *r = NULL;
                ND_OK_OR_FAIL(nd_prod(&r, a, na, axes, false));
                int64_t nout = nd_size(r), nred;
                double gr[24], gi[24];
                long double rr[24], ri[24], sc[24];
                cx_read(r, gr, gi);
                ref_reduce(ND_REDUCE_PROD, false, 0, s, m, re, im, rr, ri, sc, &nred);
                /* which blocks hold a NaN part, which an infinite one */
                bool hasnan[24] = {false}, hasinf[24] = {false};
                for (int64_t e = 0; e < 24; e++) {
                    int64_t i = e / 6, j = e / 2 % 3, k = e % 2;
                    int64_t o = ((((m & 1) ? 0 : i) * ((m & 2) ? 1 : 3)) + ((m & 2) ? 0 : j)) * ((m & 4) ? 1 : 2) +
                                ((m & 4) ? 0 : k);
                    hasnan[o] |= isnan(re[e]) || isnan(im[e]);
                    hasinf[o] |= isinf(re[e]) || isinf(im[e]);
                }
                for (int64_t o = 0; o < nout; o++) {
                    if (hasnan[o] && !hasinf[o]) /* the multiply's formula spreads a NaN to both parts */
                        ck_assert_msg(isnan(gr[o]) && isnan(gi[o]), "prod mask %u [%lld] not NaN", m, (long long)o);
                    else if (!hasnan[o] && !hasinf[o])
                        ck_assert(sqrtl((gr[o] - rr[o]) * (gr[o] - rr[o]) + (gi[o] - ri[o]) * (gi[o] - ri[o])) <=
                                  8.0L * (nred + 1) * part_eps(t) * sc[o]);
                }
                nd_release(r);
            }
            nd_release(a);
        }
}
END_TEST

/* nansum / nanmean / nanvar / nanstd / nanprod: NaN in either part skips
 * the element; all-NaN rows */
START_TEST(nan_functions)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    const int64_t s[3] = {4, 5, 1};
    double re[20], im[20];
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = CT[ti];
            fill_data(t, 20, re, im, 7);
            re[2] = NAN, im[7] = NAN, re[11] = NAN, im[11] = NAN;
            for (int j = 0; j < 5; j++) (j & 1 ? re : im)[15 + j] = NAN; /* row 3: all NaN */
            nd_array *a = cx_make(t, 3, s, re, im, devs[di]);
            for (unsigned m = 1; m < 8; m++) {
                int axes[3], na = 0;
                for (int d = 0; d < 3; d++)
                    if ((m >> d) & 1) axes[na++] = d;
                for (int k = 0; k < 6; k++) {
                    nd_array *r = NULL;
                    nd_reduce_op op;
                    double ddof = k == 5 ? 1 : 0;
                    switch (k) {
                    case 0: op = ND_REDUCE_SUM; ND_OK_OR_FAIL(nd_nansum(&r, a, na, axes, false)); break;
                    case 1: op = ND_REDUCE_MEAN; ND_OK_OR_FAIL(nd_nanmean(&r, a, na, axes, false)); break;
                    case 2: op = ND_REDUCE_VAR; ND_OK_OR_FAIL(nd_nanvar(&r, a, na, axes, false, 0)); break;
                    case 3: op = ND_REDUCE_STD; ND_OK_OR_FAIL(nd_nanstd(&r, a, na, axes, false, 0)); break;
                    case 4: op = ND_REDUCE_PROD; ND_OK_OR_FAIL(nd_nanprod(&r, a, na, axes, false)); break;
                    default: op = ND_REDUCE_VAR; ND_OK_OR_FAIL(nd_nanvar(&r, a, na, axes, false, 1)); break;
                    }
                    nd_dtype want = op == ND_REDUCE_VAR || op == ND_REDUCE_STD ? (ti ? ND_FLOAT64 : ND_FLOAT32) : t;
                    ck_assert_int_eq(nd_dtype_of(r), want);
                    char what[128];
                    snprintf(what, sizeof what, "%s %s nan-fn %d mask %u", di ? "cuda" : "cpu", nd_dtype_name(t), k, m);
                    check_against_ref(r, t, op, true, ddof, s, m, re, im, what);
                    nd_release(r);
                }
            }
            /* order functions refuse complex, the nan forms too */
            nd_array *r = NULL;
            ND_EXPECT_ERR(nd_nanmax(&r, a, 0, NULL, false), ND_ERR_DTYPE, "complex");
            ND_EXPECT_ERR(nd_nanargmin(&r, a, 0, NULL, false), ND_ERR_DTYPE, "complex");
            ck_assert_ptr_null(r);
            nd_release(a);
        }
}
END_TEST

/* result dtypes, nd_reduce_dtype, out=, in place, refusals */
START_TEST(dtypes_out_refusals)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    for (int di = 0; di < ndev; di++) {
        nd_device dev = devs[di];
        const double re[4] = {1, 2, 3, 4}, im[4] = {1, -1, 2, 0};
        nd_array *a = cx_make(ND_COMPLEX64, 1, (const int64_t[]){4}, re, im, dev), *r = NULL, *o = NULL;
        double g[4], gi[4];
        const int ax0 = 0;
        /* max/min/argmax/argmin: ND_ERR_DTYPE naming the dtype */
        static const nd_reduce_op ord[4] = {ND_REDUCE_MAX, ND_REDUCE_MIN, ND_REDUCE_ARGMAX, ND_REDUCE_ARGMIN};
        for (int i = 0; i < 4; i++) ND_EXPECT_ERR(nd_reduce(&r, ord[i], a, 0, NULL, false), ND_ERR_DTYPE, "complex64");
        ND_EXPECT_ERR(nd_ptp(&r, a, 0, NULL, false), ND_ERR_DTYPE, "complex64");
        ck_assert_ptr_null(r);
        /* bad axes: the real messages, naming the function */
        const int bad = 3;
        ND_EXPECT_ERR(nd_sum(&r, a, 1, &bad, false), ND_ERR_SHAPE, "nd_sum: axis 3 is out of bounds");
        ND_EXPECT_ERR(nd_nanvar(&r, a, 1, &bad, false, 0), ND_ERR_SHAPE, "axis 3 is out of bounds");
        /* nd_reduce_dtype: int32 -> complex64 */
        nd_array *ia = cv_make(ND_INT32, 1, (const int64_t[]){3}, (const double[]){1, 2, 3}, dev);
        ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_SUM, ia, 0, NULL, false, ND_COMPLEX64));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX64);
        cx_read(r, g, gi);
        ck_assert(g[0] == 6 && gi[0] == 0);
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_MEAN, ia, 0, NULL, false, ND_COMPLEX128));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX128);
        cx_read(r, g, gi);
        ck_assert(g[0] == 2 && gi[0] == 0);
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_PROD, ia, 0, NULL, false, ND_COMPLEX64));
        cx_read(r, g, gi);
        ck_assert(g[0] == 6 && gi[0] == 0);
        nd_release(r), r = NULL;
        /* var with a complex dtype: complex with a zero imaginary part (NumPy) */
        ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_VAR, ia, 0, NULL, false, ND_COMPLEX128));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX128);
        cx_read(r, g, gi);
        ck_assert(fabs(g[0] - 2.0 / 3.0) < 1e-15 && gi[0] == 0);
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_STD, a, 0, NULL, false, ND_COMPLEX128));
        cx_read(r, g, gi); /* var = 1.25 + 1.25 */
        ck_assert(fabs(g[0] - sqrt(2.5)) < 1e-15 && gi[0] == 0);
        nd_release(r), r = NULL;
        /* complex64 -> complex128 sum; complex input with a real dtype:
         * the real parts (NumPy, with its ComplexWarning); var refused */
        ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_SUM, a, 0, NULL, false, ND_COMPLEX128));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX128);
        cx_read(r, g, gi);
        ck_assert(g[0] == 10 && gi[0] == 2);
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_reduce_dtype(&r, ND_REDUCE_SUM, a, 0, NULL, false, ND_FLOAT64));
        cx_read(r, g, gi);
        ck_assert(g[0] == 10);
        nd_release(r), r = NULL;
        ND_EXPECT_ERR(nd_reduce_dtype(&r, ND_REDUCE_VAR, a, 0, NULL, false, ND_FLOAT64), ND_ERR_DTYPE, "complex dtype");
        /* n - ddof <= 0: (S(re) + S(im)) / 0, NumPy's inf even where one part
         * has no spread (not inf + NaN) */
        {
            nd_array *c = cx_make(ND_COMPLEX64, 1, (const int64_t[]){2}, (const double[]){1, 2}, (const double[]){1, 1}, dev);
            for (int k = 0; k < 3; k++) {
                ND_OK_OR_FAIL(nd_reduce_ddof(&r, k == 2 ? ND_REDUCE_STD : ND_REDUCE_VAR, c, 0, NULL, false, k ? 3 : 2));
                cx_read(r, g, gi);
                ck_assert_msg(isinf(g[0]) && g[0] > 0, "var ddof >= n: %g", g[0]);
                nd_release(r), r = NULL;
            }
            nd_release(c);
        }
        ND_EXPECT_ERR(nd_reduce_dtype(&r, ND_REDUCE_VAR, ia, 0, NULL, false, ND_INT64), ND_ERR_DTYPE, "float dtype");
        ND_EXPECT_ERR(nd_reduce_dtype(&r, ND_REDUCE_MAX, a, 0, NULL, false, ND_COMPLEX64), ND_ERR_INVALID, "no dtype");
        nd_release(ia);
        /* out=: complex128 out of a complex64 sum (cast); float32 out refused */
        ND_OK_OR_FAIL(nd_zeros(&o, ND_COMPLEX128, 0, NULL, dev));
        nd_array *keep = o;
        ND_OK_OR_FAIL(nd_sum(&o, a, 0, NULL, false));
        ck_assert_ptr_eq(o, keep);
        cx_read(o, g, gi);
        ck_assert(g[0] == 10 && gi[0] == 2);
        nd_release(o), o = NULL;
        ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT32, 0, NULL, dev));
        keep = o;
        ND_EXPECT_ERR(nd_sum(&o, a, 0, NULL, false), ND_ERR_DTYPE, "same_kind");
        ND_EXPECT_ERR(nd_prod(&o, a, 0, NULL, false), ND_ERR_DTYPE, "same_kind");
        ck_assert_ptr_eq(o, keep);
        /* var into float32 and complex64 outs; a wrong shape */
        ND_OK_OR_FAIL(nd_var(&o, a, 1, &ax0, false));
        cx_read(o, g, gi);
        ck_assert(g[0] == 2.5);
        nd_release(o), o = NULL;
        ND_OK_OR_FAIL(nd_zeros(&o, ND_COMPLEX64, 1, (const int64_t[]){1}, dev));
        ND_OK_OR_FAIL(nd_std(&o, a, 1, &ax0, true));
        cx_read(o, g, gi);
        ck_assert(fabs(g[0] - sqrt(2.5)) < 1e-6 && gi[0] == 0);
        ND_EXPECT_ERR(nd_mean(&o, a, 1, &ax0, false), ND_ERR_SHAPE, "shape");
        nd_release(o), o = NULL;
        /* in place: reducing nothing into a itself */
        nd_array *b = cx_make(ND_COMPLEX64, 1, (const int64_t[]){4}, re, im, dev);
        keep = b;
        ND_OK_OR_FAIL(nd_prod(&b, b, 0, &ax0, false));
        ND_OK_OR_FAIL(nd_sum(&b, b, 0, &ax0, false));
        ck_assert_ptr_eq(b, keep);
        cx_read(b, g, gi);
        for (int i = 0; i < 4; i++) ck_assert(g[i] == re[i] && gi[i] == im[i]);
        /* a result written into a view of the input that it overlaps */
        nd_array *v = NULL;
        ND_OK_OR_FAIL(nd_slice(&v, b, 1, (const nd_range[]){{0, 1, 1}}));
        ND_OK_OR_FAIL(nd_sum(&v, b, 1, &ax0, true));
        cx_read(b, g, gi);
        ck_assert(g[0] == 10 && gi[0] == 2 && g[1] == 2 && gi[1] == -1);
        nd_release(v), nd_release(b);
        /* the trace of a complex matrix (nd_sum underneath) */
        nd_array *mtx = cx_make(ND_COMPLEX128, 2, (const int64_t[]){2, 2}, re, im, dev);
        ND_OK_OR_FAIL(nd_trace(&r, mtx, 0, 0, 1));
        cx_read(r, g, gi);
        ck_assert(g[0] == 5 && gi[0] == 1);
        nd_release(r), r = NULL;
        nd_release(mtx), nd_release(a);
    }
}
END_TEST

/* the pairwise prod of long vectors and of many short rows, against a long
 * double sequential product */
START_TEST(prod_long)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    const int64_t n = 100003; /* odd leftovers on the way */
    double *re = malloc(sizeof(double) * (size_t)n), *im = malloc(sizeof(double) * (size_t)n);
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = CT[ti];
            uint64_t s = 42 + (uint64_t)ti;
            for (int64_t i = 0; i < n; i++) {
                double r = 1.0 + 4e-3 * (xs_u01(&s) - 0.5), th = 6.283185307179586 * xs_u01(&s);
                re[i] = rp(t, r * cos(th)), im[i] = rp(t, r * sin(th));
            }
            long double pr = 1, pi = 0, mag = 1;
            for (int64_t i = 0; i < n; i++) {
                long double x = re[i], y = im[i], a = pr * x - pi * y, b = pr * y + pi * x;
                pr = a, pi = b, mag *= sqrtl(x * x + y * y);
            }
            nd_array *a = cx_make(t, 1, &n, re, im, devs[di]), *r = NULL;
            ND_OK_OR_FAIL(nd_prod(&r, a, 0, NULL, false));
            double g, gi;
            cx_read(r, &g, &gi);
            long double err = sqrtl((g - pr) * (g - pr) + (gi - pi) * (gi - pi)) / mag;
            /* the bound of n - 1 multiplies is ~ 4 n eps; the tree's error
             * grows far slower in practice: ask for 4 sqrt(n) eps (measured: 0.12 sqrt(n) eps) */
            long double lim = 4.0L * sqrtl((long double)n) * part_eps(t);
            ck_assert_msg(err <= lim, "%s prod of %lld: relative error %Lg > %Lg", nd_dtype_name(t), (long long)n, err, lim);
            nd_release(r), r = NULL;
            /* sum and mean of the whole contiguous vector (the one-pass path, with n % 32 leftovers) */
            long double sr = 0, si = 0, sa = 0;
            for (int64_t i = 0; i < n; i++) sr += re[i], si += im[i], sa += fabsl((long double)re[i]) + fabsl((long double)im[i]);
            for (int mean = 0; mean < 2; mean++) {
                ND_OK_OR_FAIL(mean ? nd_mean(&r, a, 0, NULL, false) : nd_sum(&r, a, 0, NULL, false));
                ck_assert_int_eq(nd_dtype_of(r), t);
                cx_read(r, &g, &gi);
                const long double d = mean ? (long double)n : 1.0L, tol = 8 * log2((double)n) * part_eps(t) * sa / d;
                ck_assert_msg(fabsl(g - sr / d) <= tol && fabsl(gi - si / d) <= tol, "%s %s of %lld: (%g, %g), want (%Lg, %Lg)",
                              nd_dtype_name(t), mean ? "mean" : "sum", (long long)n, g, gi, sr / d, si / d);
                nd_release(r), r = NULL;
            }
            nd_release(a);
            /* rows: (7, 1001) over axis 1 and its transpose over axis 0 */
            const int64_t rs[3] = {7, 1001, 1};
            nd_array *m = cx_make(t, 3, rs, re, im, devs[di]), *mt = NULL;
            const int ax1 = 1;
            ND_OK_OR_FAIL(nd_prod(&r, m, 1, &ax1, false));
            check_against_ref(r, t, ND_REDUCE_PROD, false, 0, rs, 2u, re, im, "prod rows");
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_transpose(&mt, m, (const int[]){1, 0, 2}));
            const int ax0 = 0;
            ND_OK_OR_FAIL(nd_prod(&r, mt, 1, &ax0, true));
            cv_expect_shape(r, 3, (const int64_t[]){1, 7, 1});
            check_against_ref(r, t, ND_REDUCE_PROD, false, 0, rs, 2u, re, im, "prod transposed rows");
            nd_release(r), nd_release(mt), nd_release(m);
        }
    free(re), free(im);
}
END_TEST

/* ------------------------------------------------------------------ */
/* random                                                              */
/* ------------------------------------------------------------------ */

/* the parts' sample means, variances and covariance of a (complex) */
static void moments(const nd_array *a, double *mr, double *mi, double *vr, double *vi, double *cov, double *lo, double *hi)
{
    int64_t n = nd_size(a);
    double *re = malloc(sizeof(double) * (size_t)n), *im = malloc(sizeof(double) * (size_t)n);
    cx_read(a, re, im);
    long double sr = 0, si = 0;
    *lo = INFINITY, *hi = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
        sr += re[i], si += im[i];
        *lo = fmin(*lo, fmin(re[i], im[i])), *hi = fmax(*hi, fmax(re[i], im[i]));
    }
    *mr = (double)(sr / n), *mi = (double)(si / n);
    long double qr = 0, qi = 0, c = 0;
    for (int64_t i = 0; i < n; i++) {
        qr += (re[i] - *mr) * (re[i] - *mr), qi += (im[i] - *mi) * (im[i] - *mi), c += (re[i] - *mr) * (im[i] - *mi);
    }
    *vr = (double)(qr / n), *vi = (double)(qi / n), *cov = (double)(c / n);
    free(re), free(im);
}

START_TEST(random_moments)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    const int64_t n = 100000;
    for (int di = 0; di < ndev; di++)
        for (int ti = 0; ti < 2; ti++) {
            nd_dtype t = CT[ti];
            nd_rng *g = NULL;
            ND_OK_OR_FAIL(nd_rng_create(&g, 2024 + (uint64_t)ti));
            nd_array *z = NULL, *v = NULL;
            double mr, mi, vr, vi, cov, lo, hi;
            /* normal(0.5, 2): each part variance 2, the mean on the real part */
            ND_OK_OR_FAIL(nd_random_normal(&z, g, t, 2, (const int64_t[]){250, 400}, 0.5, 2.0, devs[di]));
            ck_assert_int_eq(nd_dtype_of(z), t);
            moments(z, &mr, &mi, &vr, &vi, &cov, &lo, &hi);
            const double sm = 5 * sqrt(2.0 / n), sv = 5 * sqrt(2.0 * 4.0 / n), sc = 5 * sqrt(4.0 / n);
            ck_assert_msg(fabs(mr - 0.5) < sm && fabs(mi) < sm, "normal means %g %g", mr, mi);
            ck_assert_msg(fabs(vr - 2) < sv && fabs(vi - 2) < sv, "normal part variances %g %g", vr, vi);
            ck_assert_msg(fabs(cov) < sc, "normal covariance %g", cov);
            /* E|z - mean|^2 = stddev^2, by the complex var itself */
            ND_OK_OR_FAIL(nd_var(&v, z, 0, NULL, false));
            double gv, gvi;
            cx_read(v, &gv, &gvi);
            ck_assert_msg(fabs(gv - 4.0) < 5 * 4.0 / sqrt((double)n), "E|z - m|^2 = %g", gv);
            nd_release(v), v = NULL, nd_release(z), z = NULL;
            /* uniform [-1, 3) per part */
            ND_OK_OR_FAIL(nd_random_uniform(&z, g, t, 1, &n, -1.0, 3.0, devs[di]));
            moments(z, &mr, &mi, &vr, &vi, &cov, &lo, &hi);
            const double uv = 16.0 / 12.0, um = 5 * sqrt(uv / n), uvv = 5 * sqrt((256.0 / 80.0 - uv * uv) / n);
            ck_assert(lo >= -1.0 && hi < 3.0);
            ck_assert_msg(fabs(mr - 1) < um && fabs(mi - 1) < um, "uniform means %g %g", mr, mi);
            ck_assert_msg(fabs(vr - uv) < uvv && fabs(vi - uv) < uvv, "uniform variances %g %g", vr, vi);
            ck_assert_msg(fabs(cov) < 5 * uv / sqrt((double)n), "uniform covariance %g", cov);
            nd_release(z);
            nd_rng_destroy(g);
        }
}
END_TEST

/* bits of a (any dtype) into a fresh host buffer */
static unsigned char *host_bits(const nd_array *a)
{
    unsigned char *b = malloc(nd_nbytes(a) + 1);
    ND_OK_OR_FAIL(nd_copy_to_host(b, a, nd_nbytes(a)));
    return b;
}

START_TEST(random_stream_layout)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    const int64_t n = 1001, n2 = 2 * n;
    for (int ti = 0; ti < 2; ti++) {
        nd_dtype t = CT[ti], pt = ti ? ND_FLOAT64 : ND_FLOAT32;
        const uint64_t per_block = ti ? 2 : 4;
        unsigned char *first[2][2] = {{NULL, NULL}, {NULL, NULL}};
        for (int di = 0; di < ndev; di++)
            for (int dist = 0; dist < 2; dist++) {
                nd_rng *g = NULL, *h = NULL;
                ND_OK_OR_FAIL(nd_rng_create(&g, 77));
                ND_OK_OR_FAIL(nd_rng_create(&h, 77));
                nd_array *z = NULL, *z2 = NULL, *x = NULL;
                if (dist == 0) {
                    ND_OK_OR_FAIL(nd_random_uniform(&z, g, t, 1, &n, -2.0, 5.0, devs[di]));
                    ND_OK_OR_FAIL(nd_random_uniform(&x, h, pt, 1, &n2, -2.0, 5.0, devs[di]));
                } else {
                    ND_OK_OR_FAIL(nd_random_normal(&z, g, t, 1, &n, 0.0, 3.0, devs[di]));
                    ND_OK_OR_FAIL(nd_random_normal(&x, h, pt, 1, &n2, 0.0, 3.0 / sqrt(2.0), devs[di]));
                }
                /* a complex call of n is the real call of 2n of the part dtype */
                ck_assert_uint_eq(nd_rng_offset(g), (uint64_t)(n2 + per_block - 1) / per_block);
                ck_assert_uint_eq(nd_rng_offset(g), nd_rng_offset(h));
                unsigned char *bz = host_bits(z), *bx = host_bits(x);
                ck_assert_msg(memcmp(bz, bx, nd_nbytes(z)) == 0, "%s dist %d: not the real stream", nd_dtype_name(t), dist);
                /* the same seed again: the same bits; the CPU's bits on cuda:0 */
                ND_OK_OR_FAIL(nd_rng_set_offset(g, 0));
                if (dist == 0) ND_OK_OR_FAIL(nd_random_uniform(&z2, g, t, 1, &n, -2.0, 5.0, devs[di]));
                else ND_OK_OR_FAIL(nd_random_normal(&z2, g, t, 1, &n, 0.0, 3.0, devs[di]));
                unsigned char *bz2 = host_bits(z2);
                ck_assert(memcmp(bz, bz2, nd_nbytes(z)) == 0);
                if (di == 0) first[dist][0] = bz, bz = NULL;
                else ck_assert_msg(memcmp(first[dist][0], bz, nd_nbytes(z)) == 0, "%s dist %d: cuda:0 != cpu",
                                   nd_dtype_name(t), dist);
                free(bz), free(bx), free(bz2);
                nd_release(z), nd_release(z2), nd_release(x);
                nd_rng_destroy(g), nd_rng_destroy(h);
            }
        /* a nonzero mean on the real parts only; the same bits on every device */
        for (int di = 0; di < ndev; di++) {
            nd_rng *g = NULL;
            ND_OK_OR_FAIL(nd_rng_create(&g, 5));
            nd_array *z = NULL;
            ND_OK_OR_FAIL(nd_random_normal(&z, g, t, 3, (const int64_t[]){3, 7, 11}, -4.0, 0.0, devs[di]));
            double re[231], im[231];
            cx_read(z, re, im);
            for (int i = 0; i < 231; i++) ck_assert(re[i] == -4.0 && im[i] == 0.0);
            nd_release(z), z = NULL;
            ND_OK_OR_FAIL(nd_random_normal(&z, g, t, 3, (const int64_t[]){3, 7, 11}, 10.0, 1.0, devs[di]));
            unsigned char *bz = host_bits(z);
            if (di == 0) first[0][1] = bz;
            else {
                ck_assert(memcmp(first[0][1], bz, nd_nbytes(z)) == 0);
                free(bz);
            }
            nd_release(z);
            nd_rng_destroy(g);
        }
        free(first[0][0]), free(first[1][0]), free(first[0][1]);
    }
}
END_TEST

START_TEST(random_out_and_errors)
{
    nd_device devs[2];
    int ndev = cv_devices(devs);
    for (int di = 0; di < ndev; di++) {
        nd_rng *g = NULL;
        ND_OK_OR_FAIL(nd_rng_create(&g, 9));
        const int64_t n = 6;
        nd_array *o = NULL, *ref = NULL, *keep;
        /* a complex128 out of complex64 numbers: cast, the same values */
        ND_OK_OR_FAIL(nd_random_uniform(&ref, g, ND_COMPLEX64, 1, &n, 0.0, 1.0, devs[di]));
        ND_OK_OR_FAIL(nd_rng_set_offset(g, 0));
        ND_OK_OR_FAIL(nd_zeros(&o, ND_COMPLEX128, 1, &n, devs[di]));
        keep = o;
        ND_OK_OR_FAIL(nd_random_uniform(&o, g, ND_COMPLEX64, 1, &n, 0.0, 1.0, devs[di]));
        ck_assert_ptr_eq(o, keep);
        double a[6], ai[6], b[6], bi[6];
        cx_read(ref, a, ai), cx_read(o, b, bi);
        for (int i = 0; i < 6; i++) ck_assert(a[i] == b[i] && ai[i] == bi[i] && ai[i] != 0);
        nd_release(o), o = NULL;
        /* a float out cannot take complex numbers; the offset stays */
        uint64_t off = nd_rng_offset(g);
        ND_OK_OR_FAIL(nd_zeros(&o, ND_FLOAT64, 1, &n, devs[di]));
        keep = o;
        ND_EXPECT_ERR(nd_random_normal(&o, g, ND_COMPLEX128, 1, &n, 0.0, 1.0, devs[di]), ND_ERR_DTYPE, "same_kind");
        ck_assert_ptr_eq(o, keep);
        ck_assert_uint_eq(nd_rng_offset(g), off);
        nd_release(o), o = NULL;
        ND_EXPECT_ERR(nd_random_uniform(&o, g, ND_COMPLEX64, 1, &n, 0.0, 1e39, devs[di]), ND_ERR_INVALID, "out of range");
        ND_EXPECT_ERR(nd_random_normal(&o, g, ND_COMPLEX64, 1, &n, 0.0, -1.0, devs[di]), ND_ERR_INVALID, "non-negative");
        ND_EXPECT_ERR(nd_random_normal(&o, g, ND_INT16, 1, &n, 0.0, 1.0, devs[di]), ND_ERR_DTYPE, "not a floating dtype");
        ck_assert_ptr_null(o);
        /* empty and 0-d */
        const int64_t zero = 0;
        ND_OK_OR_FAIL(nd_random_normal(&o, g, ND_COMPLEX64, 1, &zero, 0.0, 1.0, devs[di]));
        ck_assert_int_eq(nd_size(o), 0);
        nd_release(o), o = NULL;
        ND_OK_OR_FAIL(nd_random_uniform(&o, g, ND_COMPLEX128, 0, NULL, 2.0, 2.0, devs[di]));
        cx_read(o, a, ai);
        ck_assert(a[0] == 2.0 && ai[0] == 2.0);
        nd_release(o), nd_release(ref);
        nd_rng_destroy(g);
    }
}
END_TEST

Suite *suite_reduce_cpx(void)
{
    Suite *s = suite_create("reduce_cpx");
    TCase *tc = tcase_create("reduce_cpx");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, all_axes_layouts);
    tcase_add_test(tc, wrappers_any_all);
    tcase_add_test(tc, empty_axes);
    tcase_add_test(tc, nan_inf_parts);
    tcase_add_test(tc, nan_functions);
    tcase_add_test(tc, dtypes_out_refusals);
    tcase_add_test(tc, prod_long);
    tcase_add_test(tc, random_moments);
    tcase_add_test(tc, random_stream_layout);
    tcase_add_test(tc, random_out_and_errors);
    suite_add_tcase(s, tc);
    return s;
}
