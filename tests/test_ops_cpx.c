/* The complex math bodies of src/shared/ops_cpx_math.h, on the CPU,
 * for complex128 (_c128) and complex64 (_c64):
 *
 *  - the special-value grid: every pair (re, im) of {0, -0, smallest
 *    subnormal, 1e-300 (1e-30), 0.5, 1, -1, 2, 1e300 (1e30), DBL_MAX
 *    (FLT_MAX), inf, -inf, NaN}: each part must be of the reference's
 *    class (NaN / infinite / finite) with the sign of its zeros and
 *    infinities, except where Annex G leaves that sign unspecified (us_*
 *    below), and finite parts within the tolerance. The class reference
 *    is glibc's function of the same precision (csqrt / csqrtf, ...; NumPy
 *    calls these) for the C99 functions, NumPy's formula for the others
 *    (ref_* below, long double, rounded);
 *  - a few thousand random values per function and precision, parts of
 *    log-uniform magnitude over the whole range (and over [1/16, 16]),
 *    random signs, against long double references (glibc's csqrtl, ...,
 *    or NumPy's formula in long double / binary128), in ulps of each part
 *    (COMP) or of |result| (NORM: divide, power, expm1, whose NumPy
 *    formulas cancel within a part);
 *  - both sides of every branch cut (parts exactly +-0 on the cut, and
 *    just off it): the signs of all parts must be glibc's;
 *  - NumPy's own cases spelled out (division by zero, 0**b, small integer
 *    powers, sign of infinities, the places we differ from NumPy).
 *
 * Where the class reference is a rounded long double value, the sign of
 * a zero is only required where that value is exactly zero: the sign of
 * an underflowed part belongs to the formula that NumPy rounds in.
 * complex64 references: glibc's float functions for the C99 ones, but
 * power's exp(b log a) against glibc's double cpow rounded to float
 * (complex64 is computed in double; cpowf's float intermediates overflow
 * or underflow in ~1500 grid cases where the double ones do not).
 *
 * Tolerances (ulp), with the worst errors measured over the random values
 * (x86-64, glibc 2.36; the grid's finite results are all within 1.9):
 *                     c128 tol / measured     c64 tol / measured
 *   sign                    3 / 1.37               1 / 0.50
 *   sqrt                    3 / 1.85               1 / 0.50
 *   reciprocal              3 / 1.71               1 / 0.50
 *   exp                     3 / 1.68               1 / 0.50
 *   exp2                    4 / 2.18               1 / 0.50
 *   expm1 (NORM)            3 / 1.76               1 / 0.50
 *   log                     3 / 1.48               1 / 0.50
 *   log2, log10             4 / 1.83, 2.24         1 / 0.50
 *   log1p                   3 / 1.57               1 / 0.50
 *   sin, cos                4 / 2.59, 2.64         1 / 0.50
 *   tan                     6 / 4.26               1 / 0.50
 *   arcsin, arccos          4 / 2.27, 2.81         1 / 0.50
 *   arctan                  4 / 2.13               1 / 0.50
 *   sinh, cosh              4 / 2.57, 2.39         1 / 0.50
 *   tanh                    6 / 3.87               1 / 0.50
 *   arcsinh, arccosh        4 / 2.19, 2.54         1 / 0.50
 *   arctanh                 4 / 2.17               1 / 0.50
 *   divide (NORM)           3 / 2.11               1 / 0.50
 *   power (NORM)    3 (1 + c) / 1.70 (1 + c)       1 / 0.50
 * where power's condition c = |b| (1 + |log |a|| + pi) for exp(b log a)
 * (its rounding of b log a is amplified by exp, in any double evaluation,
 * NumPy's and glibc's too; values with c >= 2^30 are not checked), |b|
 * for the small-integer loop. complex64 is computed in double and rounded
 * once: correctly rounded but for near-halfway cases. ND_CPX_ULPS=1 prints
 * the measured maxima. Under valgrind (x87 long double computed in double)
 * the references are only double-accurate: complex128 tolerances x64. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared/ops_math.h"
#include "shared/ops_cpx_math.h"
#include "test_util.h"

/* after the library's headers: complex.h's macro I would break convert.h */
#include <complex.h>

typedef long double complex ldc;
#if defined(__SIZEOF_FLOAT128__)
typedef __float128 qreal; /* for references that need more than long double */
#else
typedef long double qreal;
#endif

#define LD_LOG2E 1.442695040888963407359924681001892137L
#define LD_LOG10E 0.434294481903251827651128918916605082L
#define LD_LN2 0.693147180559945309417232121458176568L

enum { COMP = 0, NORM = 1 };

/* ------------------------------------------------------------------ */
/* Failure bookkeeping                                                 */
/* ------------------------------------------------------------------ */
static int n_fail;
static double worst[2]; /* max ulp error seen: [0] c128, [1] c64 */
static void note_bad(const char *fn, int single, double x, double y, double bx, double by, const char *what, double re,
                     double im, double rre, double rim, double err)
{
    char b[80] = "";
    if (strcmp(fn, "divide") == 0 || strcmp(fn, "power") == 0) snprintf(b, sizeof b, ", %.17g%+.17gj", bx, by);
    if (n_fail++ < 25)
        fprintf(stderr, "%s_%s(%a%+aj%s): %s: got %a%+aj, ref %a%+aj (err %.2f ulp)\n", fn, single ? "c64" : "c128", x,
                y, b, what, re, im, rre, rim, err);
}

static int cls(double v) { return isnan(v) ? 0 : (isinf(v) ? 1 : 2); }

static bool ld_extended(void)
{
    volatile long double one = 1, tiny = 0x1p-60L;
    return one + tiny != one;
}

/* one ulp of |v| in the format (53 or 24 bits), subnormals included */
static long double ulp_of(long double v, int single)
{
    int prec = single ? 24 : 53, emin = single ? -149 : -1074, e;
    long double a = fabsl(v);
    if (a == 0 || !isfinite(a)) return ldexpl(1, emin);
    (void)frexpl(a, &e);
    return ldexpl(1, e - prec < emin ? emin : e - prec);
}

static double round_to(long double v, int single) { return single ? (double)(float)v : (double)v; }

/* The check of one result: (re, im) ours, (cre, cim) the class
 * reference, aref the accuracy reference (acc: whether to use it),
 * tol in ulps; us(x, y, part): that part's sign is unspecified. */
typedef int (*unspec_t)(double, double, int);
static double err_scale = 1; /* worst[] records err / err_scale (power: / (1 + c)) */
static int us_all(double x, double y, int p)
{
    (void)x, (void)y, (void)p;
    return 1;
}
/* exact0: the class reference is a rounded long double value; the sign of
 * a zero is then only checked where that value is exactly zero (an
 * underflowed result's sign belongs to the formula NumPy rounds in). */
static void check_one(const char *fn, int single, double x, double y, double bx, double by, double re, double im,
                      double cre, double cim, ldc aref, bool acc, int mode, double tol, unspec_t us, bool exact0)
{
    double got[2] = {re, im}, want[2] = {cre, cim};
    long double a[2] = {creall(aref), cimagl(aref)};
    for (int p = 0; p < 2; p++) {
        if (cls(got[p]) != cls(want[p])) {
            note_bad(fn, single, x, y, bx, by, p ? "imag class" : "real class", re, im, cre, cim, 0);
            return;
        }
        bool zero_or_inf = cls(got[p]) == 1 || (got[p] == 0 && want[p] == 0 && (!exact0 || a[p] == 0));
        if (zero_or_inf && signbit(got[p]) != signbit(want[p]) && !(us && us(x, y, p))) {
            note_bad(fn, single, x, y, bx, by, p ? "imag sign" : "real sign", re, im, cre, cim, 0);
            return;
        }
    }
    if (!acc) return;
    if (!isfinite(round_to(a[0], single)) || !isfinite(round_to(a[1], single))) return;
    long double unit_n = ulp_of(hypotl(a[0], a[1]), single);
    for (int p = 0; p < 2; p++) {
        if (!isfinite(got[p])) continue; /* a class question, settled above */
        long double unit = mode == NORM ? unit_n : ulp_of(a[p], single);
        double err = (double)(fabsl((long double)got[p] - a[p]) / unit);
        if (err / err_scale > worst[single]) worst[single] = err / err_scale;
        if (err > tol) {
            note_bad(fn, single, x, y, bx, by, p ? "imag inaccurate" : "real inaccurate", re, im, (double)a[0],
                 (double)a[1], err);
            return;
        }
    }
}

/* ------------------------------------------------------------------ */
/* Annex G's unspecified signs (part 0 real, 1 imaginary), per input    */
/* class; the trigonometric ones through sin(z) = -i sinh(iz) etc.      */
/* ------------------------------------------------------------------ */
static bool nan_or_inf(double v) { return isnan(v) || isinf(v); }
static int us_csinh(double x, double y, int p) { return p == 0 && (x == 0 || isinf(x)) && nan_or_inf(y); }
static int us_ccosh(double x, double y, int p)
{
    return (p == 1 && x == 0 && nan_or_inf(y)) || (p == 0 && isinf(x) && isinf(y)) || (p == 1 && isnan(x) && y == 0);
}
static int us_ctanh(double x, double y, int p) { return p == 1 && isinf(x) && nan_or_inf(y); }
static int us_cexp(double x, double y, int p) { return isinf(x) && nan_or_inf(y) && (x < 0 || p == 0); }
static int us_csqrt(double x, double y, int p) { return p == 1 && isinf(x) && x < 0 && isnan(y); }
static int us_cacos(double x, double y, int p) { return p == 1 && isinf(x) && isnan(y); }
static int us_casinh(double x, double y, int p) { return p == 0 && isnan(x) && isinf(y); }
static int us_cacosh(double x, double y, int p) { return p == 1 && x == 0 && isnan(y); }
static int us_catanh(double x, double y, int p) { return p == 0 && isnan(x) && isinf(y); }
static int us_csin(double x, double y, int p) { return us_csinh(-y, x, 1 - p); }
static int us_ccos(double x, double y, int p) { return us_ccosh(-y, x, p); }
static int us_ctan(double x, double y, int p) { return us_ctanh(-y, x, 1 - p); }
static int us_casin(double x, double y, int p) { return us_casinh(-y, x, 1 - p); }
static int us_catan(double x, double y, int p) { return us_catanh(-y, x, 1 - p); }

/* ------------------------------------------------------------------ */
/* References for NumPy's own formulas (long double, or binary128)     */
/* ------------------------------------------------------------------ */
static qreal Q_LN2, Q_2PI;
static qreal q_atan_inv(int n)
{
    qreal x = (qreal)1 / n, x2 = x * x, t = x, s = 0;
    for (int k = 0; k < 60; k++, t *= x2) s += ((k & 1) ? -t : t) / (2 * k + 1);
    return s;
}
static void q_init(void)
{
    qreal s = 0, p = 1;
    for (int k = 1; k < 140; k++) { /* ln2 = sum 1/(k 2^k) */
        p /= 2;
        s += p / k;
    }
    Q_LN2 = s;
    Q_2PI = 2 * (16 * q_atan_inv(5) - 4 * q_atan_inv(239)); /* Machin */
}
/* cis(y ln2) for |y| < 2^60, the angle reduced to [-pi/4, pi/4] (plus
 * quadrant) in binary128, so that a small result keeps its digits */
static void q_cis_ln2(double y, long double *c, long double *s)
{
    qreal th = (qreal)y * Q_LN2, k = th / (Q_2PI / 4);
    long long kk = (long long)(k + (k >= 0 ? 0.5 : -0.5));
    long double r = (long double)(th - (qreal)kk * (Q_2PI / 4)), cr = cosl(r), sr = sinl(r);
    switch (kk & 3) {
    case 0: *c = cr, *s = sr; break;
    case 1: *c = -sr, *s = cr; break;
    case 2: *c = -cr, *s = -sr; break;
    default: *c = sr, *s = -cr; break;
    }
}

static ldc ref_sign(ldc z)
{
    long double x = creall(z), y = cimagl(z), h = hypotl(x, y);
    if (isnan(h)) return CMPLXL(NAN, NAN);
    if (isinf(h)) {
        if (isinf(x)) return isinf(y) ? CMPLXL(NAN, NAN) : CMPLXL(x > 0 ? 1 : -1, 0);
        return CMPLXL(0, y > 0 ? 1 : -1);
    }
    if (h == 0) return CMPLXL(0, 0);
    return CMPLXL(x / h, y / h);
}
/* NumPy's reciprocal loop in long double (special values), 1/z exactly otherwise */
static ldc ref_recip(ldc z)
{
    long double x = creall(z), y = cimagl(z);
    if (isfinite(x) && isfinite(y) && (x != 0 || y != 0)) {
        long double d = x * x + y * y;
        return CMPLXL(x / d, -y / d);
    }
    if (fabsl(y) <= fabsl(x)) {
        long double r = y / x, d = x + y * r;
        return CMPLXL(1 / d, -r / d);
    }
    long double r = x / y, d = x * r + y;
    return CMPLXL(r / d, -1 / d);
}
static ldc ref_exp2(ldc z)
{
    long double x = creall(z), y = cimagl(z);
    if (!isfinite(x) || !isfinite(y)) return cexpl(CMPLXL(x * LD_LN2, y * LD_LN2));
    if (y == 0) return CMPLXL(exp2l(x), y);
    long double c, s, e = exp2l(x);
    if (fabsl(y) < 0x1p60L) {
        q_cis_ln2((double)y, &c, &s);
    } else { /* unchecked (the angle is not a double): any finite value */
        c = cosl(y * LD_LN2);
        s = sinl(y * LD_LN2);
    }
    return CMPLXL(e * c, e * s);
}
static ldc ref_expm1(ldc z)
{
    long double x = creall(z), y = cimagl(z);
    if (isfinite(x) && isfinite(y) && y == 0) return CMPLXL(expm1l(x), y);
    long double h = sinl(y / 2);
    return CMPLXL(expm1l(x) * cosl(y) - 2 * h * h, expl(x) * sinl(y));
}
static ldc ref_log2(ldc z)
{
    ldc w = clogl(z);
    return CMPLXL(creall(w) * LD_LOG2E, cimagl(w) * LD_LOG2E);
}
static ldc ref_log10(ldc z)
{
    ldc w = clogl(z);
    return CMPLXL(creall(w) * LD_LOG10E, cimagl(w) * LD_LOG10E);
}
static ldc ref_log1p(ldc z)
{
    long double x = creall(z), y = cimagl(z);
    if (!isfinite(x) || !isfinite(y)) return CMPLXL(logl(hypotl(x + 1, y)), atan2l(y, x + 1));
    if (x == 0 && y == 0) return CMPLXL(0, y);
    qreal qx = x, qy = y, u = qx + 1, n2 = u * u + qy * qy;
    long double im = atan2l(y, (long double)u);
    if (n2 < 0.5 || n2 > 2) return CMPLXL(logl(hypotl((long double)u, y)), im);
    qreal d = 2 * qx + qx * qx + qy * qy; /* |1 + z|^2 - 1 */
    return CMPLXL(0.5L * log1pl((long double)d), im);
}
/* NumPy's division loop, in type T */
#define SMITH(T, ar, ai, br, bi)                                                \
    do {                                                                        \
        T abr = fabsl(br), abi = fabsl(bi);                                     \
        if (abr >= abi) {                                                       \
            if (abr == 0 && abi == 0) return CMPLXL(ar / abr, ai / abi);        \
            T rat = bi / br, scl = 1 / (br + bi * rat);                         \
            return CMPLXL((ar + ai * rat) * scl, (ai - ar * rat) * scl);        \
        }                                                                       \
        T rat = br / bi, scl = 1 / (bi + br * rat);                             \
        return CMPLXL((ar * rat + ai) * scl, (ai * rat - ar) * scl);            \
    } while (0)
static ldc smith_d(double ar, double ai, double br, double bi) { SMITH(double, ar, ai, br, bi); }
static ldc smith_l(long double ar, long double ai, long double br, long double bi) { SMITH(long double, ar, ai, br, bi); }
/* a/b: for non-finite operands or a zero divisor NumPy's loop itself (in
 * double: which part becomes NaN depends on its underflows); else exactly
 * (binary128), or (numpy) NumPy's loop in long double, whose exact zeros
 * are NumPy's */
static ldc ref_div(double ar, double ai, double br, double bi, bool numpy)
{
    if (!(isfinite(ar) && isfinite(ai) && isfinite(br) && isfinite(bi) && (br != 0 || bi != 0)))
        return smith_d(ar, ai, br, bi);
    if (numpy) return smith_l(ar, ai, br, bi);
    qreal d = (qreal)br * br + (qreal)bi * bi;
    return CMPLXL((long double)(((qreal)ar * br + (qreal)ai * bi) / d),
                  (long double)(((qreal)ai * br - (qreal)ar * bi) / d));
}

/* ------------------------------------------------------------------ */
/* The unary functions                                                 */
/* ------------------------------------------------------------------ */
typedef struct {
    const char *name;
    nd_c128_t (*f128)(nd_c128_t);
    nd_c64_t (*f64)(nd_c64_t);
    ldc (*ref)(ldc);                      /* accuracy reference */
    double complex (*gd)(double complex); /* glibc (class reference); NULL: ref rounded */
    float complex (*gf)(float complex);
    int mode;
    double tol128, tol64;
    unspec_t us;
} ufn;

#define U_C99(n, c, t128, us) {#n, nd_op_##n##_c128, nd_op_##n##_c64, c##l, c, c##f, COMP, t128, 1, us}
#define U_NPY(n, r, mode, t128, us) {#n, nd_op_##n##_c128, nd_op_##n##_c64, r, NULL, NULL, mode, t128, 1, us}
static const ufn UFNS[] = {
    U_NPY(sign, ref_sign, COMP, 3, NULL),
    U_C99(sqrt, csqrt, 3, us_csqrt),
    U_NPY(reciprocal, ref_recip, COMP, 3, NULL),
    U_C99(exp, cexp, 3, us_cexp),
    U_NPY(exp2, ref_exp2, COMP, 4, us_cexp),
    U_NPY(expm1, ref_expm1, NORM, 3, NULL),
    U_C99(log, clog, 3, NULL),
    U_NPY(log2, ref_log2, COMP, 4, NULL),
    U_NPY(log10, ref_log10, COMP, 4, NULL),
    U_NPY(log1p, ref_log1p, COMP, 3, NULL),
    U_C99(sin, csin, 4, us_csin),
    U_C99(cos, ccos, 4, us_ccos),
    U_C99(tan, ctan, 6, us_ctan),
    U_C99(arcsin, casin, 4, us_casin),
    U_C99(arccos, cacos, 4, us_cacos),
    U_C99(arctan, catan, 4, us_catan),
    U_C99(sinh, csinh, 4, us_csinh),
    U_C99(cosh, ccosh, 4, us_ccosh),
    U_C99(tanh, ctanh, 6, us_ctanh),
    U_C99(arcsinh, casinh, 4, us_casinh),
    U_C99(arccosh, cacosh, 4, us_cacosh),
    U_C99(arctanh, catanh, 4, us_catanh),
};
#define N_UFNS ((int)(sizeof UFNS / sizeof UFNS[0]))

static double tol_scale(int single) { return single || ld_extended() ? 1.0 : 64.0; }

static void eval_u(const ufn *f, int single, double x, double y, double *re, double *im)
{
    if (single) {
        nd_c64_t r = f->f64(nd_mk_c64((float)x, (float)y));
        *re = r.re, *im = r.im;
    } else {
        nd_c128_t r = f->f128(nd_mk_c128(x, y));
        *re = r.re, *im = r.im;
    }
}

/* x, y (representable in the precision) through f, checked */
static void run_u(const ufn *f, int single, double x, double y, bool grid)
{
    double re, im, cre, cim;
    eval_u(f, single, x, y, &re, &im);
    ldc aref = f->ref(CMPLXL(x, y));
    if (grid && f->gd && single) {
        float complex c = f->gf(CMPLXF((float)x, (float)y));
        cre = crealf(c), cim = cimagf(c);
    } else if (grid && f->gd) {
        double complex c = f->gd(CMPLX(x, y));
        cre = creal(c), cim = cimag(c);
    } else {
        cre = round_to(creall(aref), single), cim = round_to(cimagl(aref), single);
    }
    /* exp2 of a huge imaginary part: the angle im ln2 is not a double,
     * NumPy's and the reference's differ (so the signs of cis(angle)) */
    bool acc = !(strcmp(f->name, "exp2") == 0 && fabs(y) > 0x1p40);
    double tol = single ? f->tol64 : f->tol128 * tol_scale(0);
    check_one(f->name, single, x, y, NAN, NAN, re, im, cre, cim, aref, acc, f->mode, tol, acc ? f->us : us_all,
              !(grid && f->gd));
}

#define NGRID 13
static void grid_values(int single, double *v)
{
    double d[NGRID] = {0.0, -0.0, DBL_TRUE_MIN, 1e-300, 0.5, 1, -1, 2, 1e300, DBL_MAX, INFINITY, -INFINITY, NAN};
    double f[NGRID] = {0.0, -0.0, FLT_TRUE_MIN, 1e-30f, 0.5, 1, -1, 2, 1e30f, FLT_MAX, INFINITY, -INFINITY, NAN};
    memcpy(v, single ? f : d, sizeof d);
}

static uint64_t rng_s;
static uint64_t rnd64(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return rng_s;
}
static double rnd_unit(void) { return (double)(rnd64() >> 11) * 0x1p-53; }
/* random sign, magnitude 2^u (u uniform in [lo, hi)), rounded to the precision */
static double rnd_val(int single, double lo, double hi)
{
    double u = lo + (hi - lo) * rnd_unit();
    int e = (int)floor(u);
    double v = ldexp(exp2(u - e), e);
    if (rnd64() & 1) v = -v;
    return single ? (double)(float)v : v;
}
static double rnd_part(int single, int wide)
{
    if (rnd64() % 20 == 0) return (rnd64() & 1) ? -0.0 : 0.0;
    if (!wide) return rnd_val(single, -4, 4);
    return single ? rnd_val(1, -150, 128) : rnd_val(0, -1075, 1024);
}

/* a point near one where functions are delicate: +-1, +-i, +-pi/2,
 * +-i pi/2, 0, the unit circle (and the circle |1 + z| = 1), at a
 * distance 2^u, u in [-55, -3] ([-26, -3] for complex64) */
static void rnd_near(int single, double *x, double *y)
{
    double t = 2 * M_PI * rnd_unit(), cx = cos(t), cy = sin(t), s = (rnd64() & 1) ? 1 : -1;
    switch (rnd64() % 10) {
    case 0: cx = s, cy = 0; break;
    case 1: cx = 0, cy = s; break;
    case 2: cx = s * M_PI_2, cy = 0; break;
    case 3: cx = 0, cy = s * M_PI_2; break;
    case 4: cx = 0, cy = 0; break;
    case 5: cx -= 1; break;
    default: break;
    }
    double r = exp2((single ? -26 : -55) + (single ? 23 : 52) * rnd_unit()), phi = 2 * M_PI * rnd_unit();
    *x = round_to(cx + r * cos(phi), single);
    *y = round_to(cy + r * sin(phi), single);
}

static void report(const char *what)
{
    if (getenv("ND_CPX_ULPS")) fprintf(stderr, "%-12s max err: c128 %.2f ulp, c64 %.2f ulp\n", what, worst[0], worst[1]);
}

START_TEST(unary_special_grid)
{
    q_init();
    n_fail = 0;
    double v[NGRID];
    for (int i = 0; i < N_UFNS; i++)
        for (int single = 0; single < 2; single++) {
            grid_values(single, v);
            for (int a = 0; a < NGRID; a++)
                for (int b = 0; b < NGRID; b++) run_u(&UFNS[i], single, v[a], v[b], true);
            if (single) report(UFNS[i].name);
            if (single) worst[0] = worst[1] = 0;
        }
    ck_assert_msg(n_fail == 0, "%d special-value results wrong (first ones above)", n_fail);
}
END_TEST

START_TEST(unary_random)
{
    q_init();
    n_fail = 0;
    for (int i = 0; i < N_UFNS; i++) {
        worst[0] = worst[1] = 0;
        rng_s = 0x9e3779b97f4a7c15ull + (uint64_t)i;
        for (int single = 0; single < 2; single++)
            for (int k = 0; k < 6000; k++) {
                int wide = k < 2000;
                double x = rnd_part(single, wide), y = rnd_part(single, wide);
                if (k >= 4000) rnd_near(single, &x, &y);
                run_u(&UFNS[i], single, x, y, false);
            }
        report(UFNS[i].name);
    }
    ck_assert_msg(n_fail == 0, "%d random results inaccurate (first ones above)", n_fail);
}
END_TEST

/* Both sides of each branch cut: +-0 on the cut, +-tiny just off it;
 * every part's sign (and value) as glibc's. */
START_TEST(branch_cuts)
{
    q_init();
    n_fail = 0;
    static const char *names[] = {"sqrt", "log", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"};
    for (int single = 0; single < 2; single++) {
        double big = single ? FLT_MAX : DBL_MAX, huge = single ? 1e30 : 1e300;
        double tiny = single ? FLT_TRUE_MIN : DBL_TRUE_MIN, small = single ? 1e-30 : 1e-300;
        double onep = single ? 1 + 0x1p-23 : 1 + 0x1p-52;
        double along[] = {1, onep, 1.5, 2, 1e10, huge, big};      /* |t| on the cut (and t = 1) */
        double below[] = {tiny, small, 0.25, 0.5, 1};             /* arccosh: x < 1 too */
        double offs[] = {0.0, -0.0, tiny, -tiny, small, -small}; /* the other part */
        for (int fi = 0; fi < 8; fi++) {
            const ufn *f = NULL;
            for (int i = 0; i < N_UFNS; i++)
                if (strcmp(UFNS[i].name, names[fi]) == 0) f = &UFNS[i];
            ck_assert(f != NULL);
            for (int k = 0; k < 7 + 5; k++)
                for (int o = 0; o < 6; o++)
                    for (int sg = -1; sg <= 1; sg += 2) {
                        double t = k < 7 ? along[k] : below[k - 7], x, y;
                        if (fi <= 1) x = -t, y = offs[o];                                   /* (-inf, 0] */
                        else if (fi == 4 || fi == 5) x = offs[o], y = sg * t;              /* i(-inf,-1], i[1,inf) */
                        else if (fi == 6) x = k < 7 ? -t : sg * t, y = offs[o];           /* (-inf, 1] */
                        else x = sg * t, y = offs[o];                                        /* (-inf,-1], [1,inf) */
                        double re, im;
                        eval_u(f, single, x, y, &re, &im);
                        double complex g = f->gd(CMPLX(x, y));
                        float complex gf = f->gf(CMPLXF((float)x, (float)y));
                        double gre = single ? crealf(gf) : creal(g), gim = single ? cimagf(gf) : cimag(g);
                        if (signbit(re) != signbit(gre) || signbit(im) != signbit(gim))
                            note_bad(f->name, single, x, y, NAN, NAN, "side of the cut", re, im, gre, gim, 0);
                        run_u(f, single, x, y, true);
                    }
        }
    }
    ck_assert_msg(n_fail == 0, "%d results on the wrong side of a branch cut", n_fail);
}
END_TEST

/* ------------------------------------------------------------------ */
/* divide and power                                                    */
/* ------------------------------------------------------------------ */
static void eval_b(int power, int single, double ar, double ai, double br, double bi, double *re, double *im)
{
    if (single) {
        nd_c64_t a = nd_mk_c64((float)ar, (float)ai), b = nd_mk_c64((float)br, (float)bi);
        nd_c64_t r = power ? nd_op_power_c64(a, b) : nd_op_divide_c64(a, b);
        *re = r.re, *im = r.im;
    } else {
        nd_c128_t a = nd_mk_c128(ar, ai), b = nd_mk_c128(br, bi);
        nd_c128_t r = power ? nd_op_power_c128(a, b) : nd_op_divide_c128(a, b);
        *re = r.re, *im = r.im;
    }
}

static void run_div(int single, double ar, double ai, double br, double bi)
{
    double re, im;
    eval_b(0, single, ar, ai, br, bi, &re, &im);
    ldc r = ref_div(ar, ai, br, bi, false), c = ref_div(ar, ai, br, bi, true);
    double tol = single ? 1 : 3 * tol_scale(0);
    check_one("divide", single, ar, ai, br, bi, re, im, round_to(creall(c), single), round_to(cimagl(c), single), r,
              true, NORM, tol, NULL, true);
}

/* NumPy's small-integer power loop (schoolbook products, Smith's 1/x) in
 * long double, on a scaled by 2^-e (finite a) so nothing overflows */
static ldc lmul(ldc a, ldc b)
{
    long double ar = creall(a), ai = cimagl(a), br = creall(b), bi = cimagl(b);
    return CMPLXL(ar * br - ai * bi, ar * bi + ai * br);
}
static ldc ref_powi(ldc a, int n)
{
    int e = 0;
    if (n == 1) return a;
    (void)frexpl(fmaxl(fabsl(creall(a)), fabsl(cimagl(a))), &e);
    ldc s = CMPLXL(ldexpl(creall(a), -e), ldexpl(cimagl(a), -e)), acc = CMPLXL(1, 0), p = s;
    int m = n < 0 ? -n : n;
    if (n == 2) acc = lmul(s, s);
    else if (n == 3) acc = lmul(s, lmul(s, s));
    else
        for (int mask = 1;; mask <<= 1) {
            if (m & mask) acc = lmul(acc, p);
            if (m < (mask << 1)) break;
            p = lmul(p, p);
        }
    if (n < 0) acc = smith_l(1, 0, creall(acc), cimagl(acc));
    return CMPLXL(ldexpl(creall(acc), e * n), ldexpl(cimagl(acc), e * n));
}

/* the same loop in double, unscaled: NumPy's npy_cpow for a with an
 * infinite or NaN part */
static ldc ref_powi_d(double ar, double ai, int n)
{
    double cr = 1, ci = 0, pr = ar, pi = ai, t;
    int m = n < 0 ? -n : n;
    if (n == 1) return CMPLXL(ar, ai);
    if (n == 2 || n == 3) {
        cr = ar * ar - ai * ai, ci = ar * ai + ai * ar;
        if (n == 3) t = ar * cr - ai * ci, ci = ar * ci + ai * cr, cr = t;
        return CMPLXL(cr, ci);
    }
    for (int mask = 1;; mask <<= 1) {
        if (m & mask) t = cr * pr - ci * pi, ci = cr * pi + ci * pr, cr = t;
        if (m < (mask << 1)) break;
        t = pr * pr - pi * pi, pi = pr * pi + pi * pr, pr = t;
    }
    return n < 0 ? smith_d(1, 0, cr, ci) : CMPLXL(cr, ci);
}

/* The expectation for a ** b: NumPy's cases (b == 0, a == 0, the
 * small-integer loop), then exp(b log a) as glibc's cpow (the class; in
 * double for complex64 too, which is computed in double) and cpowl (the
 * value, checked where the condition c = |b| (1 + |log a|) < 2^30).
 * The signs Annex G leaves open are those of cexp(w), w = b clog(a). */
static double g_wx, g_wy;
static int us_pow(double x, double y, int p)
{
    (void)x, (void)y;
    return us_cexp(g_wx, g_wy, p);
}
static void run_pow(int single, double ar, double ai, double br, double bi, bool grid)
{
    double re, im, cre, cim, cond = 0;
    eval_b(1, single, ar, ai, br, bi, &re, &im);
    ldc r;
    bool acc = true;
    unspec_t us = NULL;
    bool integer = bi == 0 && br > -100 && br < 100 && br == (int)br;
    if (br == 0 && bi == 0) {
        r = CMPLXL(1, 0);
    } else if (ar == 0 && ai == 0) {
        r = br > 0 ? CMPLXL(0, 0) : CMPLXL(NAN, NAN);
    } else if (integer && isfinite(ar) && isfinite(ai)) {
        r = ref_powi(CMPLXL(ar, ai), (int)br);
        cond = fabs(br);
    } else if (integer) { /* non-finite a: NumPy's loop verbatim (in double) */
        r = ref_powi_d(ar, ai, (int)br);
        acc = false;
    } else {
        double complex lg = clog(CMPLX(ar, ai)), w = CMPLX(br, bi) * lg;
        g_wx = creal(w), g_wy = cimag(w);
        us = us_pow;
        cond = hypot(br, bi) * (1 + fabs(creal(lg)) + M_PI);
        acc = cond < 0x1p30;
        if (!grid && !acc) return; /* ill-conditioned: even the class is chance */
        if (!acc) us = us_all;       /* the signs of cis(w) are */
        r = cpowl(CMPLXL(ar, ai), CMPLXL(br, bi));
        /* the class: glibc's double cpow (a part of log a that underflows
         * there is lost to exp(b log a) in NumPy as here) */
        double complex g = cpow(CMPLX(ar, ai), CMPLX(br, bi));
        cre = round_to(creal(g), single), cim = round_to(cimag(g), single);
        goto check;
    }
    cre = round_to(creall(r), single), cim = round_to(cimagl(r), single);
check:;
    double tol = (single ? 1 : 3 * tol_scale(0)) * (1 + (single ? 0 : cond));
    err_scale = single ? 1 : 1 + cond;
    check_one("power", single, ar, ai, br, bi, re, im, cre, cim, r, acc, NORM, tol, us, us == NULL);
    err_scale = 1;
}

START_TEST(binary_special_grid)
{
    q_init();
    n_fail = 0;
    double v[NGRID];
    for (int single = 0; single < 2; single++) {
        grid_values(single, v);
        for (int a = 0; a < NGRID * NGRID; a++)
            for (int b = 0; b < NGRID * NGRID; b++) {
                run_div(single, v[a / NGRID], v[a % NGRID], v[b / NGRID], v[b % NGRID]);
                run_pow(single, v[a / NGRID], v[a % NGRID], v[b / NGRID], v[b % NGRID], true);
            }
    }
    report("div+pow grid");
    ck_assert_msg(n_fail == 0, "%d special-value results wrong (first ones above)", n_fail);
}
END_TEST

START_TEST(binary_random)
{
    q_init();
    n_fail = 0;
    for (int op = 0; op < 2; op++) {
        rng_s = 0x2545f4914f6cdd1dull;
        worst[0] = worst[1] = 0;
        for (int single = 0; single < 2; single++)
            for (int k = 0; k < 6000; k++) {
                int wide = k < 3000;
                double ar = rnd_part(single, wide), ai = rnd_part(single, wide);
                if (op == 0) run_div(single, ar, ai, rnd_part(single, wide), rnd_part(single, wide));
                /* exponents: small integers (NumPy's loop), and general ones */
                else if (k % 2) run_pow(single, ar, ai, (double)((int)(rnd64() % 199) - 99), 0.0, false);
                else run_pow(single, ar, ai, rnd_val(single, -10, 6), k % 10 ? rnd_val(single, -10, 6) : 0.0, false);
            }
        report(op ? "power/(1+c)" : "divide");
    }
    ck_assert_msg(n_fail == 0, "%d random results inaccurate (first ones above)", n_fail);
}
END_TEST

/* ------------------------------------------------------------------ */
/* NumPy's cases spelled out, and where we differ from NumPy            */
/* ------------------------------------------------------------------ */
#define EXPECT(expr, wre, wim)                                                                          \
    do {                                                                                                \
        nd_c128_t r_ = (expr);                                                                          \
        double wr_ = (wre), wi_ = (wim);                                                                \
        bool ok_ = ((isnan(r_.re) && isnan(wr_)) || (r_.re == wr_ && signbit(r_.re) == signbit(wr_))) && \
                   ((isnan(r_.im) && isnan(wi_)) || (r_.im == wi_ && signbit(r_.im) == signbit(wi_)));   \
        ck_assert_msg(ok_, "%s = %a%+aj, want %a%+aj", #expr, r_.re, r_.im, wr_, wi_);                    \
    } while (0)
#define Z(a, b) nd_mk_c128((a), (b))

START_TEST(numpy_cases)
{
    double inf = INFINITY, nan = NAN;
    /* divide: NumPy's zero divisor, its Smith formula with infinities */
    EXPECT(nd_op_divide_c128(Z(1, 1), Z(0, 0)), inf, inf);
    EXPECT(nd_op_divide_c128(Z(1, 0), Z(-0.0, 0)), inf, nan);
    EXPECT(nd_op_divide_c128(Z(-1, 1), Z(0, -0.0)), -inf, inf);
    EXPECT(nd_op_divide_c128(Z(1, 1), Z(inf, 0)), 0, 0);
    EXPECT(nd_op_divide_c128(Z(1, 1), Z(inf, inf)), nan, nan);
    EXPECT(nd_op_divide_c128(Z(6, 8), Z(3, 4)), 2, 0);
    /* ... and where NumPy's intermediates overflow, the quotient */
    EXPECT(nd_op_divide_c128(Z(0, 0), Z(DBL_TRUE_MIN, 0)), 0, 0);
    EXPECT(nd_op_divide_c128(Z(DBL_MAX, DBL_MAX), Z(DBL_MAX, DBL_MAX)), 1, 0);
    EXPECT(nd_cx_widen(nd_op_divide_c64(nd_mk_c64(FLT_MAX, FLT_MAX), nd_mk_c64(FLT_MAX, FLT_MAX))), 1, 0);
    EXPECT(nd_op_divide_c128(Z(1e308, 1e308), Z(1e308, 1e308)), 1, 0);
    /* reciprocal: NumPy's loop, 1/0 = nan+nanj (not divide's inf) */
    EXPECT(nd_op_reciprocal_c128(Z(0, 0)), nan, nan);
    EXPECT(nd_op_reciprocal_c128(Z(inf, 0)), 0, -0.0);
    EXPECT(nd_op_reciprocal_c128(Z(0, 2)), 0, -0.5);
    EXPECT(nd_op_reciprocal_c128(Z(DBL_TRUE_MIN, 0)), inf, -0.0);
    EXPECT(nd_op_reciprocal_c128(Z(0x1p1023, 0x1p1023)), 0x1p-1024, -0x1p-1024);
    /* sign (NumPy 2): z/|z|; infinities and NaN as NumPy's loop */
    EXPECT(nd_op_sign_c128(Z(-0.0, -0.0)), 0, 0);
    EXPECT(nd_op_sign_c128(Z(3, -4)), 0.6, -0.8);
    EXPECT(nd_op_sign_c128(Z(-inf, nan)), -1, 0);
    EXPECT(nd_op_sign_c128(Z(nan, -inf)), 0, -1);
    EXPECT(nd_op_sign_c128(Z(inf, inf)), nan, nan);
    EXPECT(nd_op_sign_c128(Z(nan, 0)), nan, nan);
    nd_c128_t sg = nd_op_sign_c128(Z(DBL_MAX, -DBL_MAX)); /* NumPy: 0-1j (|z| overflows) */
    ck_assert(fabs(sg.re - M_SQRT1_2) < 3e-16 && fabs(sg.im + M_SQRT1_2) < 3e-16);
    /* power: b == 0, 0 ** b, small integers, 1 */
    EXPECT(nd_op_power_c128(Z(nan, nan), Z(0, -0.0)), 1, 0);
    EXPECT(nd_op_power_c128(Z(0, -0.0), Z(2.5, -1)), 0, 0);
    EXPECT(nd_op_power_c128(Z(-0.0, 0), Z(-1, 0)), nan, nan);
    EXPECT(nd_op_power_c128(Z(0, 0), Z(0, 1)), nan, nan);
    EXPECT(nd_op_power_c128(Z(inf, nan), Z(1, 0)), inf, nan);
    EXPECT(nd_op_power_c128(Z(1, 1), Z(2, 0)), 0, 2);
    EXPECT(nd_op_power_c128(Z(1, 1), Z(-2, 0)), 0, -0.5);
    EXPECT(nd_op_power_c128(Z(0, 1), Z(3, 0)), -0.0, -1); /* NumPy: a * (a * a) = (-0 - 0) - 1j */
    EXPECT(nd_op_power_c128(Z(0, 1), Z(4, 0)), 1, 0);
    EXPECT(nd_op_power_c128(Z(2, 0), Z(10, 0)), 1024, 0);
    EXPECT(nd_op_power_c128(Z(2, 0), Z(-99, 0)), 0x1p-99, 0);
    EXPECT(nd_op_power_c128(Z(1e300, 1e300), Z(2, 0)), 0, inf); /* NumPy: nan+infj */
    EXPECT(nd_op_float_power_c128(Z(-8, 0), Z(1, 0)), -8, 0);
    nd_c128_t p = nd_op_power_c128(Z(-1, 0), Z(0.5, 0)); /* exp(0.5 log(-1)) = 6e-17 + 1j */
    ck_assert(fabs(p.re) < 1e-16 && p.im == 1.0);
    p = nd_op_power_c128(Z(2, 0), Z(100, 0)); /* not the integer loop: exp(100 log 2) */
    ck_assert(fabs(p.re / 0x1p100 - 1) < 1e-13 && p.im == 0);
    /* exp2, expm1, log1p: NumPy's special values; finite ones accurate */
    EXPECT(nd_op_exp2_c128(Z(10, 0)), 1024, 0);
    EXPECT(nd_op_exp2_c128(Z(-inf, 1)), 0, 0);
    EXPECT(nd_op_exp2_c128(Z(nan, -0.0)), nan, -0.0);
    EXPECT(nd_op_expm1_c128(Z(inf, 0)), inf, nan); /* NumPy's formula: inf * sin(0) */
    EXPECT(nd_op_expm1_c128(Z(-inf, 0)), -1, 0);
    EXPECT(nd_op_expm1_c128(Z(nan, 0)), nan, nan);
    EXPECT(nd_op_expm1_c128(Z(-0.0, -0.0)), -0.0, -0.0);
    EXPECT(nd_op_expm1_c128(Z(710, 0)), inf, 0); /* NumPy: inf+nanj */
    EXPECT(nd_op_log1p_c128(Z(1e-20, 0)), 1e-20, 0); /* NumPy: 0 */
    EXPECT(nd_op_log1p_c128(Z(-0.0, -0.0)), 0, -0.0);
    EXPECT(nd_op_log1p_c128(Z(-1, 0)), -inf, 0);
    EXPECT(nd_op_log1p_c128(Z(-inf, 1)), inf, M_PI);
    EXPECT(nd_op_log1p_c128(Z(nan, inf)), inf, nan);
    /* C99/glibc special values NumPy inherits */
    EXPECT(nd_op_sqrt_c128(Z(-4, -0.0)), 0, -2);
    EXPECT(nd_op_log_c128(Z(-0.0, 0)), -inf, M_PI);
    EXPECT(nd_op_exp_c128(Z(-inf, nan)), 0, 0);
    EXPECT(nd_op_tanh_c128(Z(0, inf)), 0, nan);
    EXPECT(nd_op_arccosh_c128(Z(0, nan)), nan, M_PI_2);
    EXPECT(nd_op_arctanh_c128(Z(1, 0)), inf, 0);
    EXPECT(nd_op_arctanh_c128(Z(-2, -0.0)), -0.54930614433405489, -M_PI_2);
    EXPECT(nd_op_cos_c128(Z(0, 0)), 1, -0.0);
}
END_TEST

Suite *suite_ops_cpx(void)
{
    Suite *s = suite_create("ops_cpx");
    TCase *tc = tcase_create("ops_cpx");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, unary_special_grid);
    tcase_add_test(tc, unary_random);
    tcase_add_test(tc, branch_cuts);
    tcase_add_test(tc, binary_special_grid);
    tcase_add_test(tc, binary_random);
    tcase_add_test(tc, numpy_cases);
    suite_add_tcase(s, tc);
    return s;
}
