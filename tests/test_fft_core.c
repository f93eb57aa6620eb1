/* The CPU FFT engine (src/cpu/fft_core.h): c2c, r2c and c2r
 * transforms of many lengths in single and double precision, strided and
 * batched layouts, in place, scale, the plan cache, threads sharing one
 * plan, and every allocation failing in turn.
 *
 * References: a direct O(n^2) DFT in long double (exact for our purpose)
 * of data that is exactly representable in float32 (multiples of 2^-9 in
 * [-2, 2], never all zero), so one reference serves both precisions. For
 * the large lengths (65537 and 1000003 Bluestein, 2^20) the reference is
 * the direct sum at sampled frequencies (O(n) each), plus the inverse
 * roundtrip and Parseval.
 *
 * The bound (a good FFT's error, measured against an exact reference):
 *     max_k |y_k - ref_k| <= C (log2 n + 1) eps rms(x) sqrt(n),  C = 2,
 * eps = 2^-24 (float32) or 2^-53 (float64); rms(x) sqrt(n) = rms(ref)
 * (Parseval). Measured on this engine the worst ratio to
 * (log2 n + 1) eps rms(x) sqrt(n) is about 1.2 (Bluestein lengths),
 * 0.7 for smooth lengths. Roundtrips c2r(r2c(x)) / n and
 * backward(forward(x)) / n: |z - x| <= C (log2 n + 1) eps rms(x) (twice:
 * two transforms). Parseval: |sum |y|^2 - n sum |x|^2| <= 2 C (log2 n + 1)
 * eps n sum |x|^2. */
#include <pthread.h>

#include "core/alloc.h"
#include "cpu/fft_core.h"
#include "test_util.h"

#define C_BOUND 2.0
/* ck_assert_msg records its location on every pass (a write per call):
 * element loops check with this instead */
#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond)) ck_abort_msg(__VA_ARGS__);           \
    } while (0)
static const long double PI_L = 3.141592653589793238462643383279502884L;

static uint64_t rng_s = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return rng_s;
}
/* k / 512, k in [-1024, 1024]: exact in float32; count values, not all 0 */
static void fill(double *x, int64_t count)
{
    for (int64_t i = 0; i < count; i++) x[i] = (double)((int)(rnd() % 2049) - 1024) / 512.0;
    x[0] = 1.5;
}

/* Whether long double is wider than double: not under valgrind, which
 * computes x87 arithmetic in double precision. There the reference sums
 * are compensated and the library's twiddles (long double tables) are
 * only double-accurate, so the float64 bound is 4x looser. */
static bool ld_extended(void)
{
    volatile long double one = 1, tiny = 0x1p-60L;
    return one + tiny != one;
}
static double eps_of(bool dbl)
{
    static int ext = -1;
    if (ext < 0) {
        ext = ld_extended();
        if (!ext) fprintf(stderr, "fft_core: long double is double here (valgrind?): float64 bound 4x looser\n");
    }
    return dbl ? (ext ? 0x1p-53 : 0x1p-51) : 0x1p-24;
}
static double lg(int64_t n) { return log2((double)n) + 1; }

/* exp(-2 pi i e / n), e < n, in long double (2n values) */
static long double *roots(int64_t n)
{
    long double *w = malloc(sizeof(long double) * 2 * (size_t)n);
    for (int64_t e = 0; e < n; e++) {
        long double a = -2 * PI_L * (long double)e / (long double)n;
        w[2 * e] = cosl(a);
        w[2 * e + 1] = sinl(a);
    }
    return w;
}

/* forward DFT of n complex values x (interleaved) at frequency k
 * (compensated sums when long double is no wider than double) */
static void dft_at(const double *x, int64_t n, int64_t k, const long double *w, long double *yr, long double *yi)
{
    long double sr = 0, si = 0, cr = 0, ci = 0;
    int64_t e = 0;
#define TERM                                                                                  \
    const long double c = w[2 * e], s = w[2 * e + 1];                                         \
    const long double tr = x[2 * j] * c - x[2 * j + 1] * s, ti = x[2 * j] * s + x[2 * j + 1] * c; \
    e += k;                                                                                   \
    if (e >= n) e -= n
    if (ld_extended())
        for (int64_t j = 0; j < n; j++) {
            TERM;
            sr += tr;
            si += ti;
        }
    else
        for (int64_t j = 0; j < n; j++) {
            TERM;
            const long double ur = tr - cr, ui = ti - ci, vr = sr + ur, vi = si + ui;
            cr = (vr - sr) - ur;
            ci = (vi - si) - ui;
            sr = vr;
            si = vi;
        }
#undef TERM
    *yr = sr;
    *yi = si;
}

static void dft(const double *x, int64_t n, long double *y)
{
    long double *w = roots(n);
    for (int64_t k = 0; k < n; k++) dft_at(x, n, k, w, &y[2 * k], &y[2 * k + 1]);
    free(w);
}

static double rms(const double *x, int64_t count) /* over count reals, as complex values: count / 2 */
{
    double s = 0;
    for (int64_t i = 0; i < count; i++) s += x[i] * x[i];
    return sqrt(s / (double)(count / 2 > 0 ? count / 2 : 1));
}

/* T buffers */
static void *tbuf(int64_t count, bool dbl) { return malloc((size_t)(count > 0 ? count : 1) * (dbl ? 8 : 4)); }
static void poison(void *b, int64_t count, bool dbl)
{
    for (int64_t i = 0; i < count; i++) {
        if (dbl) ((double *)b)[i] = NAN;
        else ((float *)b)[i] = NAN;
    }
}
static void to_t(void *dst, const double *src, int64_t count, bool dbl)
{
    for (int64_t i = 0; i < count; i++) {
        if (dbl) ((double *)dst)[i] = src[i];
        else ((float *)dst)[i] = (float)src[i];
    }
}
static double get_t(const void *b, int64_t i, bool dbl) { return dbl ? ((const double *)b)[i] : ((const float *)b)[i]; }

/* |got - ref| over the n complex values of transform output got (T, element
 * k at 2 * k * stride), against ref (k-th value at ref[2 * map(k)]) */
static void check_c(const char *what, int64_t n, bool dbl, const void *got, int64_t stride, const long double *ref,
                    int sign, double tol)
{
    for (int64_t k = 0; k < n; k++) {
        const int64_t kr = sign < 0 ? k : (n - k) % n; /* backward = forward at -k */
        const double gr = get_t(got, 2 * k * stride, dbl), gi = get_t(got, 2 * k * stride + 1, dbl);
        const double d = hypot(gr - (double)ref[2 * kr], gi - (double)ref[2 * kr + 1]);
        CHECK(d <= tol, "%s n=%lld %s sign %d: y[%lld] = (%.9g, %.9g), want (%.9g, %.9g), |err| %.3g > %.3g",
                      what, (long long)n, dbl ? "f64" : "f32", sign, (long long)k, gr, gi, (double)ref[2 * kr],
                      (double)ref[2 * kr + 1], d, tol);
    }
}

/* one c2c of the contiguous x (n complex) in T; returns a T buffer */
static void *c2c_contig(int64_t n, bool dbl, int sign, const double *x, double scale)
{
    nd_fft_plan *p = nd__fft_plan_get(n, dbl);
    ck_assert_ptr_nonnull(p);
    void *in = tbuf(2 * n, dbl), *out = tbuf(2 * n, dbl);
    to_t(in, x, 2 * n, dbl);
    poison(out, 2 * n, dbl);
    ck_assert(nd__fft_c2c(p, sign, 1, in, 1, n, out, 1, n, scale));
    nd__fft_plan_release(p);
    free(in);
    return out;
}

static void c2c_vs_dft(int64_t n)
{
    double *x = malloc(sizeof(double) * 2 * (size_t)n);
    long double *ref = malloc(sizeof(long double) * 2 * (size_t)n);
    fill(x, 2 * n);
    dft(x, n, ref);
    const double r = rms(x, 2 * n);
    for (int dbl = 0; dbl < 2; dbl++)
        for (int sign = -1; sign <= 1; sign += 2) {
            void *y = c2c_contig(n, dbl, sign, x, 1.0);
            check_c("c2c", n, dbl, y, 1, ref, sign, C_BOUND * lg(n) * eps_of(dbl) * r * sqrt((double)n));
            free(y);
        }
    free(x);
    free(ref);
}

START_TEST(c2c_small)
{
    for (int64_t n = 1; n <= 64; n++) c2c_vs_dft(n);
}
END_TEST

START_TEST(c2c_medium)
{
    /* 1031: Bluestein with m = 2160, the single path (four-step inside) */
    static const int64_t ns[] = {96, 100, 121, 125, 127, 128, 243, 256, 343, 360, 1000, 1009, 1024, 1031, 2048};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) c2c_vs_dft(ns[i]);
    if (nd_test_large()) {
        c2c_vs_dft(4096);     /* four-step */
        c2c_vs_dft(2048 * 3); /* four-step, mixed radix */
    } else {
        fprintf(stderr, "fft_core: c2c of 4096, 6144 vs the O(n^2) DFT SKIPPED (ND_TEST_LARGE=0)\n");
    }
}
END_TEST

/* large n: sampled exact frequencies, roundtrip, Parseval */
static void c2c_large(int64_t n, bool dbl)
{
    double *x = malloc(sizeof(double) * 2 * (size_t)n), *z = malloc(sizeof(double) * 2 * (size_t)n);
    fill(x, 2 * n);
    const double r = rms(x, 2 * n), eps = eps_of(dbl), tol = C_BOUND * lg(n) * eps * r * sqrt((double)n);
    void *y = c2c_contig(n, dbl, -1, x, 1.0);
    long double *w = roots(n);
    const int samples = n > 100000 ? 10 : 24;
    for (int s = 0; s < samples; s++) {
        const int64_t k = s < 4 ? (int64_t[]){0, 1, n / 2, n - 1}[s] : (int64_t)(rnd() % (uint64_t)n);
        long double yr, yi;
        dft_at(x, n, k, w, &yr, &yi);
        const double d = hypot(get_t(y, 2 * k, dbl) - (double)yr, get_t(y, 2 * k + 1, dbl) - (double)yi);
        CHECK(d <= tol, "c2c n=%lld %s: y[%lld] off by %.3g > %.3g", (long long)n, dbl ? "f64" : "f32",
                      (long long)k, d, tol);
    }
    free(w);
    long double sx = 0, sy = 0;
    for (int64_t i = 0; i < 2 * n; i++) {
        sx += (long double)x[i] * x[i];
        sy += (long double)get_t(y, i, dbl) * get_t(y, i, dbl);
    }
    const double prel = fabs((double)(sy / (sx * n)) - 1);
    CHECK(prel <= 2 * C_BOUND * lg(n) * eps, "Parseval n=%lld %s: relative %.3g", (long long)n,
                  dbl ? "f64" : "f32", prel);
    /* roundtrip in place */
    nd_fft_plan *p = nd__fft_plan_get(n, dbl);
    ck_assert(nd__fft_c2c(p, 1, 1, y, 1, n, y, 1, n, 1.0 / (double)n));
    nd__fft_plan_release(p);
    for (int64_t i = 0; i < 2 * n; i++) z[i] = get_t(y, i, dbl);
    double worst = 0;
    for (int64_t i = 0; i < n; i++) worst = fmax(worst, hypot(z[2 * i] - x[2 * i], z[2 * i + 1] - x[2 * i + 1]));
    CHECK(worst <= 2 * C_BOUND * lg(n) * eps * r, "roundtrip n=%lld %s: %.3g", (long long)n,
                  dbl ? "f64" : "f32", worst);
    free(y);
    free(x);
    free(z);
}

START_TEST(c2c_big)
{
    c2c_large(65537, false); /* prime: Bluestein */
    c2c_large(65537, true);
    if (nd_test_large()) {
        c2c_large(1 << 20, false); /* four-step */
        c2c_large(1 << 20, true);
        c2c_large(1000003, true); /* prime */
    } else {
        fprintf(stderr, "fft_core: c2c of 2^20 and 1000003 SKIPPED (ND_TEST_LARGE=0)\n");
    }
}
END_TEST

/* r2c and c2r against the DFT of (x, 0); DC and Nyquist imaginary parts
 * of the c2r input set to garbage (ignored) */
static void real_case(int64_t n)
{
    const int64_t nh = n / 2 + 1;
    double *x = malloc(sizeof(double) * (size_t)n), *xc = calloc((size_t)(2 * n), sizeof(double));
    long double *ref = malloc(sizeof(long double) * 2 * (size_t)n);
    fill(x, n);
    for (int64_t j = 0; j < n; j++) xc[2 * j] = x[j];
    dft(xc, n, ref);
    double rr = 0;
    for (int64_t j = 0; j < n; j++) rr += x[j] * x[j];
    rr = sqrt(rr / (double)n);
    for (int dbl = 0; dbl < 2; dbl++) {
        const double eps = eps_of(dbl);
        nd_fft_plan *p = nd__fft_plan_get(n, dbl);
        void *in = tbuf(n, dbl), *X = tbuf(2 * nh, dbl), *back = tbuf(n, dbl);
        to_t(in, x, n, dbl);
        poison(X, 2 * nh, dbl);
        ck_assert(nd__fft_r2c(p, 1, in, 1, n, X, 1, nh, 1.0));
        check_c("r2c", nh, dbl, X, 1, ref, -1, C_BOUND * lg(n) * eps * rr * sqrt((double)n));
        /* roundtrip, 1/n through scale; garbage imaginary parts where ignored */
        if (dbl) {
            ((double *)X)[1] = 3.5;
            if (n % 2 == 0) ((double *)X)[2 * (nh - 1) + 1] = -2.25;
        } else {
            ((float *)X)[1] = 3.5f;
            if (n % 2 == 0) ((float *)X)[2 * (nh - 1) + 1] = -2.25f;
        }
        poison(back, n, dbl);
        ck_assert(nd__fft_c2r(p, 1, X, 1, nh, back, 1, n, 1.0 / (double)n));
        for (int64_t j = 0; j < n; j++) {
            const double d = fabs(get_t(back, j, dbl) - x[j]);
            CHECK(d <= 2 * C_BOUND * lg(n) * eps * rr, "c2r(r2c(x))/n n=%lld %s: x[%lld] = %.9g, want %.9g",
                          (long long)n, dbl ? "f64" : "f32", (long long)j, get_t(back, j, dbl), x[j]);
        }
        /* c2r of the exact spectrum (rounded to T), unnormalised: n x */
        for (int64_t k = 0; k < nh; k++) {
            const double v[2] = {(double)ref[2 * k], (double)ref[2 * k + 1] + (k == 0 ? 7.0 : 0)};
            to_t((char *)X + 2 * k * (dbl ? 8 : 4), v, 2, dbl);
        }
        if (n % 2 == 0) to_t((char *)X + 2 * (nh - 1) * (dbl ? 8 : 4) + (dbl ? 8 : 4), (double[]){-5.0}, 1, dbl);
        poison(back, n, dbl);
        ck_assert(nd__fft_c2r(p, 1, X, 1, nh, back, 1, n, 1.0));
        for (int64_t j = 0; j < n; j++) {
            const double d = fabs(get_t(back, j, dbl) / (double)n - x[j]);
            CHECK(d <= C_BOUND * lg(n) * eps * rr + eps * fabs(x[j]),
                          "c2r(X) n=%lld %s: x[%lld] = %.9g, want %.9g", (long long)n, dbl ? "f64" : "f32",
                          (long long)j, get_t(back, j, dbl) / (double)n, x[j]);
        }
        nd__fft_plan_release(p);
        free(in);
        free(X);
        free(back);
    }
    free(x);
    free(xc);
    free(ref);
}

START_TEST(real_transforms)
{
    /* 2062: half 1031 (Bluestein, single path); 2063: odd Bluestein, single path */
    static const int64_t ns[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 100, 101, 254, 1024, 1025, 2062, 2063};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) real_case(ns[i]);
}
END_TEST

/* real transforms of large n: roundtrip and sampled frequencies */
static void real_large(int64_t n, bool dbl)
{
    const int64_t nh = n / 2 + 1;
    double *x = malloc(sizeof(double) * (size_t)n), *xc = calloc((size_t)(2 * n), sizeof(double));
    fill(x, n);
    for (int64_t j = 0; j < n; j++) xc[2 * j] = x[j];
    const double r = rms(xc, 2 * n), eps = eps_of(dbl);
    nd_fft_plan *p = nd__fft_plan_get(n, dbl);
    void *in = tbuf(n, dbl), *X = tbuf(2 * nh, dbl), *back = tbuf(n, dbl);
    to_t(in, x, n, dbl);
    poison(X, 2 * nh, dbl);
    ck_assert(nd__fft_r2c(p, 1, in, 1, n, X, 1, nh, 1.0));
    long double *w = roots(n);
    const int samples = n > 100000 ? 6 : 12;
    for (int s = 0; s < samples; s++) {
        const int64_t k = s < 3 ? (int64_t[]){0, 1, nh - 1}[s] : (int64_t)(rnd() % (uint64_t)nh);
        long double yr, yi;
        dft_at(xc, n, k, w, &yr, &yi);
        const double d = hypot(get_t(X, 2 * k, dbl) - (double)yr, get_t(X, 2 * k + 1, dbl) - (double)yi);
        CHECK(d <= C_BOUND * lg(n) * eps * r * sqrt((double)n), "r2c n=%lld: X[%lld] off by %.3g",
                      (long long)n, (long long)k, d);
    }
    free(w);
    poison(back, n, dbl);
    ck_assert(nd__fft_c2r(p, 1, X, 1, nh, back, 1, n, 1.0 / (double)n));
    for (int64_t j = 0; j < n; j++)
        CHECK(fabs(get_t(back, j, dbl) - x[j]) <= 2 * C_BOUND * lg(n) * eps * r,
                      "c2r(r2c(x))/n n=%lld: x[%lld] = %.9g, want %.9g", (long long)n, (long long)j,
                      get_t(back, j, dbl), x[j]);
    nd__fft_plan_release(p);
    free(in);
    free(X);
    free(back);
    free(x);
    free(xc);
}

START_TEST(real_big)
{
    real_large(4096, false); /* half 2048: four-step single path */
    real_large(4097, true);  /* 17 * 241: Bluestein single path */
    real_large(65537, false); /* odd, Bluestein */
    real_large(2 * 65537, true); /* even, half Bluestein */
    if (nd_test_large()) {
        real_large(1 << 20, false); /* half 2^19: four-step */
        real_large(1 << 20, true);
    } else {
        fprintf(stderr, "fft_core: r2c/c2r of 2^20 SKIPPED (ND_TEST_LARGE=0)\n");
    }
}
END_TEST

/* Batched, strided c2c: transform t, element j at base + t * dist + j *
 * stride (complex units, any sign), compared with the reference of its
 * own data. The buffer spans [lo, hi] element offsets. */
static void c2c_layout(int64_t n, int64_t howmany, int64_t is, int64_t id, int64_t os, int64_t od, bool inplace,
                       bool dbl, int sign)
{
    /* extent of a layout: offsets t * d + j * s */
    int64_t ilo = 0, ihi = 0, olo = 0, ohi = 0;
    const int64_t ic[4] = {0, (howmany - 1) * id, (n - 1) * is, (howmany - 1) * id + (n - 1) * is};
    const int64_t oc[4] = {0, (howmany - 1) * od, (n - 1) * os, (howmany - 1) * od + (n - 1) * os};
    for (int i = 0; i < 4; i++) {
        ilo = ic[i] < ilo ? ic[i] : ilo;
        ihi = ic[i] > ihi ? ic[i] : ihi;
        olo = oc[i] < olo ? oc[i] : olo;
        ohi = oc[i] > ohi ? oc[i] : ohi;
    }
    const int64_t icount = ihi - ilo + 1, ocount = ohi - olo + 1;
    double *x = malloc(sizeof(double) * 2 * (size_t)(n * howmany)), *all = malloc(sizeof(double) * 2 * (size_t)icount);
    fill(x, 2 * n * howmany);
    fill(all, 2 * icount);
    for (int64_t t = 0; t < howmany; t++)
        for (int64_t j = 0; j < n; j++) {
            const int64_t o = t * id + j * is - ilo;
            all[2 * o] = x[2 * (t * n + j)];
            all[2 * o + 1] = x[2 * (t * n + j) + 1];
        }
    void *ib = tbuf(2 * icount, dbl), *ob = inplace ? ib : tbuf(2 * ocount, dbl);
    to_t(ib, all, 2 * icount, dbl);
    if (!inplace) poison(ob, 2 * ocount, dbl);
    const size_t csz = 2 * (dbl ? 8 : 4);
    char *in = (char *)ib - ilo * (ptrdiff_t)csz, *out = inplace ? in : (char *)ob - olo * (ptrdiff_t)csz;
    nd_fft_plan *p = nd__fft_plan_get(n, dbl);
    ck_assert(nd__fft_c2c(p, sign, howmany, in, is, id, out, os, od, 1.0));
    nd__fft_plan_release(p);
    if (!inplace) { /* nothing outside the output layout written */
        char *mark = calloc((size_t)ocount, 1);
        for (int64_t t = 0; t < howmany; t++)
            for (int64_t j = 0; j < n; j++) mark[t * od + j * os - olo] = 1;
        for (int64_t o = 0; o < ocount; o++)
            if (!mark[o]) CHECK(isnan(get_t(ob, 2 * o, dbl)) && isnan(get_t(ob, 2 * o + 1, dbl)),
                                        "c2c layout n=%lld: element %lld outside the output written", (long long)n,
                                        (long long)o);
        free(mark);
    }
    /* reference: the contiguous double transform (itself checked against
     * the exact DFT above); the bound covers both transforms' errors */
    long double *ref = malloc(sizeof(long double) * 2 * (size_t)n);
    char what[160];
    snprintf(what, sizeof what, "c2c layout howmany %lld is %lld id %lld os %lld od %lld%s", (long long)howmany,
             (long long)is, (long long)id, (long long)os, (long long)od, inplace ? " in place" : "");
    for (int64_t t = 0; t < howmany; t++) {
        double *yd = c2c_contig(n, true, -1, x + 2 * t * n, 1.0);
        for (int64_t i = 0; i < 2 * n; i++) ref[i] = yd[i];
        free(yd);
        const double r = rms(x + 2 * t * n, 2 * n);
        check_c(what, n, dbl, out + t * od * (ptrdiff_t)csz, os, ref, sign,
                2 * C_BOUND * lg(n) * eps_of(dbl) * r * sqrt((double)n));
    }
    free(ref);
    free(x);
    free(all);
    free(ib);
    if (!inplace) free(ob);
}

START_TEST(c2c_strides)
{
    for (int dbl = 0; dbl < 2; dbl++) {
        /* a column pass: 3 transforms of 100 interleaved (stride 3, dist 1) */
        c2c_layout(100, 3, 3, 1, 1, 100, false, dbl, -1);
        c2c_layout(100, 3, 3, 1, 3, 1, true, dbl, 1);
        /* negative strides and distances */
        c2c_layout(64, 5, -1, -70, 2, 130, false, dbl, -1);
        c2c_layout(60, 4, -4, 1, -1, -60, false, dbl, 1);
        /* a Bluestein length, batched, in place */
        c2c_layout(127, 20, 1, 127, 1, 127, true, dbl, -1);
        /* many short transforms (threads) */
        c2c_layout(256, 300, 1, 256, 300, 1, false, dbl, -1);
        /* columns of a long length (lane path above the four-step size) */
        c2c_layout(2048, 16, 16, 1, 16, 1, true, dbl, -1);
        /* two long transforms: the four-step path with strides, in place and not */
        c2c_layout(2048, 2, 2, 1, 1, 2048, false, dbl, 1);
        c2c_layout(2048, 2, -2, 1, -2, 1, true, dbl, -1);
        /* n = 1 */
        c2c_layout(1, 7, 1, 3, 1, -2, false, dbl, -1);
    }
}
END_TEST

START_TEST(c2c_inplace_single)
{
    /* one long transform in place: four-step and Bluestein (its buffer) */
    static const int64_t ns[] = {2048, 1009, 4096 * 3, 65537};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        const int64_t n = ns[i];
        if (n > 5000 && !nd_test_large()) continue;
        for (int dbl = 0; dbl < 2; dbl++) {
            double *x = malloc(sizeof(double) * 2 * (size_t)n);
            fill(x, 2 * n);
            void *a = c2c_contig(n, dbl, -1, x, 1.0), *b = tbuf(2 * n, dbl);
            to_t(b, x, 2 * n, dbl);
            nd_fft_plan *p = nd__fft_plan_get(n, dbl);
            ck_assert(nd__fft_c2c(p, -1, 1, b, 1, n, b, 1, n, 1.0));
            nd__fft_plan_release(p);
            CHECK(memcmp(a, b, (size_t)(2 * n) * (dbl ? 8 : 4)) == 0, "in place n=%lld differs",
                          (long long)n);
            free(a);
            free(b);
            free(x);
        }
    }
}
END_TEST

/* Batched, strided real transforms, compared with the contiguous ones
 * (the same arithmetic: bit for bit). */
static void real_layout(int64_t n, int64_t howmany, int64_t is, int64_t id, int64_t os, int64_t od, bool dbl)
{
    const int64_t nh = n / 2 + 1;
    const int64_t span_r = 2 * (howmany * llabs(id) + n * llabs(is)) + 8, span_c = 2 * (howmany * llabs(od) + nh * llabs(os)) + 8;
    double *x = malloc(sizeof(double) * (size_t)(n * howmany));
    fill(x, n * howmany);
    const size_t tsz = dbl ? 8 : 4;
    /* strided real input centred in its buffer, complex output likewise */
    void *rb = tbuf(span_r, dbl), *cb = tbuf(2 * span_c, dbl), *rb2 = tbuf(span_r, dbl);
    poison(rb, span_r, dbl);
    char *rin = (char *)rb + (span_r / 2) * tsz, *cout = (char *)cb + (span_c / 2) * 2 * tsz;
    for (int64_t t = 0; t < howmany; t++)
        for (int64_t j = 0; j < n; j++) to_t(rin + (t * id + j * is) * (ptrdiff_t)tsz, &x[t * n + j], 1, dbl);
    poison(cb, 2 * span_c, dbl);
    nd_fft_plan *p = nd__fft_plan_get(n, dbl);
    ck_assert(nd__fft_r2c(p, howmany, rin, is, id, cout, os, od, 0.5));
    void *in1 = tbuf(n, dbl), *X1 = tbuf(2 * nh, dbl), *x1 = tbuf(n, dbl);
    for (int64_t t = 0; t < howmany; t++) {
        to_t(in1, x + t * n, n, dbl);
        ck_assert(nd__fft_r2c(p, 1, in1, 1, n, X1, 1, nh, 0.5));
        for (int64_t k = 0; k < nh; k++) {
            const char *g = cout + (t * od + k * os) * (ptrdiff_t)(2 * tsz);
            CHECK(memcmp(g, (char *)X1 + k * 2 * tsz, 2 * tsz) == 0,
                          "r2c n=%lld layout (%lld,%lld,%lld,%lld) t=%lld k=%lld differs", (long long)n,
                          (long long)is, (long long)id, (long long)os, (long long)od, (long long)t, (long long)k);
        }
    }
    /* and back: the complex layout as input (strides os/od), real output
     * with the input's layout */
    poison(rb2, span_r, dbl);
    char *rout = (char *)rb2 + (span_r / 2) * tsz;
    ck_assert(nd__fft_c2r(p, howmany, cout, os, od, rout, is, id, 1.0 / (double)n));
    for (int64_t t = 0; t < howmany; t++) {
        for (int64_t k = 0; k < nh; k++)
            memcpy((char *)X1 + k * 2 * tsz, cout + (t * od + k * os) * (ptrdiff_t)(2 * tsz), 2 * tsz);
        ck_assert(nd__fft_c2r(p, 1, X1, 1, nh, x1, 1, n, 1.0 / (double)n));
        for (int64_t j = 0; j < n; j++) {
            CHECK(memcmp(rout + (t * id + j * is) * (ptrdiff_t)tsz, (char *)x1 + j * tsz, tsz) == 0,
                          "c2r n=%lld t=%lld j=%lld differs", (long long)n, (long long)t, (long long)j);
            CHECK(fabs(get_t(x1, j, dbl) * 2 - x[t * n + j]) <= 1e-3, "c2r value");
        }
    }
    nd__fft_plan_release(p);
    free(in1);
    free(X1);
    free(x1);
    free(rb);
    free(rb2);
    free(cb);
    free(x);
}

START_TEST(real_strides)
{
    for (int dbl = 0; dbl < 2; dbl++) {
        real_layout(16, 3, 3, 1, 3, 1, dbl);        /* interleaved, like a column pass */
        real_layout(15, 3, -2, 40, 1, -9, dbl);     /* negative strides */
        real_layout(100, 2, 1, 100, -1, 51, dbl);
        real_layout(101, 9, 1, -101, -9, 1, dbl);   /* odd, Bluestein lanes */
        real_layout(254, 40, 40, 1, 40, 1, dbl);    /* many (threads), half 127: Bluestein lanes */
        real_layout(1, 3, 1, 1, 1, 1, dbl);
    }
}
END_TEST

START_TEST(scale_applied)
{
    static const int64_t ns[] = {8, 12, 67, 1000, 2048};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        const int64_t n = ns[i];
        double *x = malloc(sizeof(double) * 2 * (size_t)n);
        fill(x, 2 * n);
        for (int dbl = 0; dbl < 2; dbl++) {
            const double scales[2] = {1.0 / (double)n, 1.0 / sqrt((double)n)};
            void *y1 = c2c_contig(n, dbl, 1, x, 1.0);
            for (int s = 0; s < 2; s++) {
                void *ys = c2c_contig(n, dbl, 1, x, scales[s]);
                for (int64_t k = 0; k < 2 * n; k++) {
                    const double want = get_t(y1, k, dbl) * (dbl ? scales[s] : (double)(float)scales[s]);
                    CHECK(fabs(get_t(ys, k, dbl) - want) <= 2 * eps_of(dbl) * fabs(want),
                                  "scale n=%lld: %.9g vs %.9g", (long long)n, get_t(ys, k, dbl), want);
                }
                free(ys);
            }
            free(y1);
        }
        free(x);
    }
}
END_TEST

START_TEST(plan_cache)
{
    nd__fft_cache_clear();
    const long live0 = nd__alloc_live();
    nd_fft_plan *a = nd__fft_plan_get(360, false), *b = nd__fft_plan_get(360, false), *c = nd__fft_plan_get(360, true);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_eq(a, b);
    ck_assert_ptr_ne(a, c);
    ck_assert_int_eq(nd__fft_plan_n(a), 360);
    ck_assert(!nd__fft_plan_dbl(a) && nd__fft_plan_dbl(c));
    ck_assert_ptr_null(nd__fft_plan_get(0, false));
    nd__fft_plan_release(b);
    /* fill the cache past its capacity while holding all: the extra plans
     * are uncached but work, and die with their release */
    nd_fft_plan *held[ND_FFT_CACHE + 8];
    for (int i = 0; i < ND_FFT_CACHE + 8; i++) {
        held[i] = nd__fft_plan_get(1000 + i, i & 1);
        ck_assert_ptr_nonnull(held[i]);
    }
    double x[2 * 1040];
    fill(x, 2 * 1040);
    for (int i = 0; i < ND_FFT_CACHE + 8; i++) {
        const int64_t n = 1000 + i;
        void *in = tbuf(2 * n, i & 1), *out = tbuf(2 * n, i & 1);
        to_t(in, x, 2 * n, i & 1);
        ck_assert(nd__fft_c2c(held[i], -1, 1, in, 1, n, out, 1, n, 1.0));
        ck_assert(nd__fft_r2c(held[i], 1, in, 1, n, out, 1, n, 1.0));
        free(in);
        free(out);
    }
    /* a is still held: still the same plan */
    ck_assert_ptr_eq(nd__fft_plan_get(360, false), a);
    nd__fft_plan_release(a);
    for (int i = 0; i < ND_FFT_CACHE + 8; i++) nd__fft_plan_release(held[i]);
    nd__fft_plan_release(a);
    nd__fft_plan_release(c);
    nd__fft_plan_release(NULL);
    /* now nothing is held: a new length evicts the least recently used */
    nd_fft_plan *d = nd__fft_plan_get(77, false);
    ck_assert_ptr_nonnull(d);
    nd__fft_plan_release(d);
    nd__fft_cache_clear();
    ck_assert_int_eq(nd__alloc_live(), live0);
}
END_TEST

/* several threads executing one plan (fresh: its tables are built by the
 * first callers, concurrently) give the bits of one thread */
typedef struct {
    nd_fft_plan *p;
    int kind; /* 0 c2c, 1 r2c, 2 c2r */
    int64_t n, howmany;
    const void *in;
    void *out;
    bool ok;
} th_arg;

static void th_exec(th_arg *a)
{
    const int64_t n = a->n, nh = n / 2 + 1;
    if (a->kind == 0) a->ok = nd__fft_c2c(a->p, -1, a->howmany, a->in, 1, n, a->out, 1, n, 1.0);
    else if (a->kind == 1) a->ok = nd__fft_r2c(a->p, a->howmany, a->in, 1, n, a->out, 1, nh, 1.0);
    else a->ok = nd__fft_c2r(a->p, a->howmany, a->in, 1, nh, a->out, 1, n, 1.0);
}
static void *th_main(void *v)
{
    th_exec(v);
    return NULL;
}

START_TEST(threads_share_plan)
{
    static const struct { int64_t n, howmany; int kind; } cases[] = {
        {1024, 1, 0}, {1024, 37, 0}, {4096, 1, 0}, {1009, 3, 0}, {65537, 1, 0}, {1000, 5, 1}, {8192, 1, 1},
        {1001, 4, 2}, {8192, 1, 2},
    };
    enum { NT = 4 };
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        const int64_t n = cases[ci].n, hm = cases[ci].howmany, nh = n / 2 + 1;
        if (n > 5000 && !nd_test_large()) continue;
        const int kind = cases[ci].kind;
        const int64_t icount = hm * (kind == 0 ? 2 * n : kind == 1 ? n : 2 * nh);
        const int64_t ocount = hm * (kind == 0 ? 2 * n : kind == 1 ? 2 * nh : n);
        for (int dbl = 0; dbl < 2; dbl++) {
            double *x = malloc(sizeof(double) * (size_t)icount);
            fill(x, icount);
            void *in = tbuf(icount, dbl), *ref = tbuf(ocount, dbl), *outs[NT];
            to_t(in, x, icount, dbl);
            nd__fft_cache_clear();
            nd_fft_plan *p = nd__fft_plan_get(n, dbl);
            pthread_t th[NT];
            th_arg args[NT];
            for (int t = 0; t < NT; t++) {
                outs[t] = tbuf(ocount, dbl);
                poison(outs[t], ocount, dbl);
                args[t] = (th_arg){p, kind, n, hm, in, outs[t], false};
                ck_assert_int_eq(pthread_create(&th[t], NULL, th_main, &args[t]), 0);
            }
            for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
            th_arg one = {p, kind, n, hm, in, ref, false};
            th_exec(&one);
            ck_assert(one.ok);
            for (int t = 0; t < NT; t++) {
                ck_assert(args[t].ok);
                CHECK(memcmp(outs[t], ref, (size_t)ocount * (dbl ? 8 : 4)) == 0,
                              "thread %d: n=%lld kind %d differs from one thread", t, (long long)n, kind);
                free(outs[t]);
            }
            nd__fft_plan_release(p);
            free(in);
            free(ref);
            free(x);
        }
    }
}
END_TEST

/* Every allocation failing in turn: the call that meets it reports false
 * (plan_get: NULL), nothing leaks, and a clean run is right. */
START_TEST(alloc_failures)
{
    static const struct { int64_t n, howmany; int kind; } cases[] = {
        {64, 3, 0}, {4096, 1, 0}, {1009, 1, 0}, {1009, 8, 0}, {10007, 1, 0}, {1000, 2, 1}, {4096, 1, 1},
        {4097, 1, 1}, {1000, 2, 2}, {4096, 1, 2}, {4097, 1, 2},
    };
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        const int64_t n = cases[ci].n, hm = cases[ci].howmany, nh = n / 2 + 1;
        const int kind = cases[ci].kind;
        const int64_t icount = hm * (kind == 0 ? 2 * n : kind == 1 ? n : 2 * nh);
        const int64_t ocount = hm * (kind == 0 ? 2 * n : kind == 1 ? 2 * nh : n);
        double *x = malloc(sizeof(double) * (size_t)icount);
        fill(x, icount);
        void *in = tbuf(icount, true), *ref = tbuf(ocount, true), *out = tbuf(ocount, true);
        to_t(in, x, icount, true);
        nd__fft_cache_clear();
        nd_fft_plan *p = nd__fft_plan_get(n, true);
        th_arg good = {p, kind, n, hm, in, ref, false};
        th_exec(&good);
        ck_assert(good.ok);
        nd__fft_plan_release(p);
        for (long k = 1;; k++) {
            nd__fft_cache_clear();
            const long live0 = nd__alloc_live();
            nd__alloc_fail_after(k);
            bool ok = false;
            p = nd__fft_plan_get(n, true);
            if (p) {
                th_arg a = {p, kind, n, hm, in, out, false};
                poison(out, ocount, true);
                th_exec(&a);
                ok = a.ok;
                nd__fft_plan_release(p);
            }
            const bool fired = nd__alloc_fault_reset();
            nd__fft_cache_clear();
            CHECK(nd__alloc_live() == live0, "n=%lld kind %d: failure %ld leaks %ld allocations",
                          (long long)n, kind, k, nd__alloc_live() - live0);
            if (!fired) {
                ck_assert(ok);
                ck_assert(memcmp(out, ref, (size_t)ocount * 8) == 0);
                break;
            }
            CHECK(!ok, "n=%lld kind %d: allocation %ld failed, yet the call reported success",
                          (long long)n, kind, k);
            CHECK(k < 200, "no end to the allocations");
        }
        free(in);
        free(ref);
        free(out);
        free(x);
    }
}
END_TEST

Suite *suite_fft_core(void)
{
    Suite *s = suite_create("fft_core");
    TCase *tc = tcase_create("fft_core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, c2c_small);
    tcase_add_test(tc, c2c_medium);
    tcase_add_test(tc, c2c_big);
    tcase_add_test(tc, real_transforms);
    tcase_add_test(tc, real_big);
    tcase_add_test(tc, c2c_strides);
    tcase_add_test(tc, c2c_inplace_single);
    tcase_add_test(tc, real_strides);
    tcase_add_test(tc, scale_applied);
    tcase_add_test(tc, plan_cache);
    tcase_add_test(tc, threads_share_plan);
    tcase_add_test(tc, alloc_failures);
    suite_add_tcase(s, tc);
    return s;
}
