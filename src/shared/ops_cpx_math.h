/*
 * The scalar bodies of the complex elementwise ops that need real math,
 * shared by the CPU loops (C11) and the CUDA kernels (nvcc,
 * C++) like the rest of src/shared/ops_math.h (which includes this file at its
 * end; this file includes it too, the include guards sort it out):
 *
 *   unary   nd_op_<name>_<sfx>(Z x)   sign sqrt reciprocal exp exp2 expm1
 *           log log2 log10 log1p sin cos tan arcsin arccos arctan sinh
 *           cosh tanh arcsinh arccosh arctanh
 *   binary  nd_op_<name>_<sfx>(Z a, Z b)   divide power, and
 *           nd_op_float_power_c128 (= power on complex128)
 *
 * for sfx c64 (nd_c64_t) and c128 (nd_c128_t). Plain functions only: no
 * <complex.h>, no long double, no static arrays, no _Generic, no compound
 * literals, no recursion, only math.h functions CUDA device code has.
 *
 * complex64 is computed in double and rounded to float once at the end
 * (every function, nd_cx_narrow(nd_op_<name>_c128(widened))): float inputs
 * hardly ever overflow or underflow a double intermediate, so the float
 * results are the correctly rounded values of nearly exact ones (0.5 ulp
 * measured), with no spurious overflow.
 * complex128 is computed in double, each function written to be accurate
 * to a few ulp on finite inputs of every magnitude (tests/test_ops_cpx.c
 * measures it against long double references and lists the worst cases).
 *
 * Semantics are NumPy 2's:
 *
 * 1. The C99 functions NumPy takes from the C library (csqrt cexp clog
 *    csin ccos ctan casin cacos catan csinh ccosh ctanh casinh cacosh
 *    catanh) follow C99/C11 Annex G (G.6) for infinities, NaNs, signed
 *    zeros and branch cuts, as glibc (NumPy's libm on Linux) does: e.g.
 *    sqrt(-4 - 0j) = 0 - 2j, log(-0 + 0j) = -inf + pi j, exp(-inf + nanj)
 *    = 0 + 0j, cosh(inf + 0j) = inf + 0j, arctanh(1 + 0j) = inf + 0j,
 *    tanh(0 + inf j) = 0 + nanj (C2x/glibc), arccosh(0 + nanj) = nan +
 *    pi/2 j (glibc). Where Annex G leaves a sign unspecified our choice is
 *    FreeBSD's. The sin/cos/tan family and arcsin/arctan are defined from
 *    the hyperbolic ones as Annex G does: sin(z) = -i sinh(iz), cos(z) =
 *    cosh(iz), tan(z) = -i tanh(iz), arcsin(z) = -i arcsinh(iz),
 *    arctan(z) = -i arctanh(iz).
 *    Algorithms (our code, after the published methods): sqrt with
 *    hypot and power-of-2 scaling near overflow and in the subnormals;
 *    exp/sinh/cosh with exp(x) = 2^k exp(r) scaling so exp(x) cis(y)
 *    does not overflow before the product does; tanh by Kahan's formula
 *    (and 4 sin y cos y e^-2|x| for |x| >= 22); log with
 *    log1p(x^2 + y^2 - 1) from exact products (fma) and a double-double
 *    sum near |z| = 1, log|x| + log1p((y/x)^2)/2 elsewhere (no overflow);
 *    arcsinh/arcsin/arccos/arccosh by Hull, Fairgrieve and Tang (ACM
 *    TOMS 23, 1997); arctanh/arctan from log1p(4x / ((1-x)^2 + y^2)) / 4
 *    and atan2 (as FreeBSD's catrig.c).
 *
 * 2. NumPy's own formulas for the others (numpy/_core/src/umath/
 *    funcs.inc.src, loops.c.src, npymath/npy_math_complex.c.src):
 *    - divide: Smith's algorithm exactly as NumPy's loop (for |br| >= |bi|:
 *      rat = bi/br, scl = 1/(br + bi rat), ((ar + ai rat) scl, (ai - ar
 *      rat) scl), and the mirror case); a zero divisor gives (ar/|br|,
 *      ai/|bi|), e.g. (1+1j)/0 = inf+infj, (1+0j)/0 = inf+nanj; infinite
 *      or NaN operands go through the formula as in NumPy ((1+1j)/inf =
 *      0+0j, (1+1j)/(inf+infj) = nan+nanj). For finite operands with a
 *      part outside [2^-250, 2^250] the same formula is evaluated with an
 *      unbounded exponent (nd_cx_ext below): the same roundings, but no
 *      intermediate overflow or underflow (NumPy: 0/(5e-324+0j) = nan,
 *      (1e308+1e308j)/(1e308+1e308j) = nan+nanj; here 0 and 1);
 *    - reciprocal: NumPy's loop (r = im/re, d = re + im r, (1/d, -r/d),
 *      and the mirror case); reciprocal(0) = nan+nanj as in NumPy (not
 *      divide's inf), finite extreme inputs as for divide;
 *    - sign (NumPy 2): z/|z|; 0 for +-0; nan+nanj if |z| = hypot(re, im)
 *      is NaN; for an infinite |z|: both parts infinite -> nan+nanj, only
 *      re infinite -> (+-1, 0) (even if im is NaN), only im infinite ->
 *      (0, +-1). Finite inputs are scaled by a power of 2 first, so |z|
 *      does not overflow (NumPy: sign(1e308+1e308j) = 1j, here
 *      0.7071+0.7071j);
 *    - exp2(z) = exp(z ln2) (NumPy): special values exactly as exp of
 *      (re ln2, im ln2); finite inputs as 2^re cis(im ln2) with the angle
 *      in double-double (NumPy rounds re ln2 and im ln2 and loses up to
 *      ~|z| ulp);
 *    - expm1: NumPy's (expm1(x) cos y - 2 sin^2(y/2), exp(x) sin y), its
 *      special values included (expm1(inf+0j) = inf+nanj), with
 *      exp(x) cos y - 1 for x < -1 and exp(x) scaled for x > 709 (NumPy:
 *      expm1(710+0j) = inf+nanj, here inf+0j);
 *    - log1p: NumPy's (log hypot(x+1, y), atan2(y, x+1)) for non-finite
 *      input; finite input gets the same value computed accurately
 *      (log1p(2x + x^2 + y^2)/2 near |1+z| = 1; NumPy's loses everything
 *      for tiny z: log1p(1e-20+0j) is 0 there, 1e-20 here);
 *    - log2, log10: log(z) * log2(e), log(z) * log10(e) (NumPy);
 *    - power (NumPy's npy_cpow): b == 0 -> 1+0j (even for a NaN); a == 0 ->
 *      0+0j if Re b > 0, else nan+nanj; b real integer with |b| < 100 ->
 *      repeated squaring with the schoolbook product (b = 1: a itself;
 *      b = 2, 3 unrolled; b < 0: 1 / a^|b| by NumPy's Smith division),
 *      for finite a with an unbounded exponent ((1e300+1e300j)**2 = 0+infj
 *      here, nan+infj in NumPy); otherwise exp(b * log(a)) with C99's
 *      complex product (Annex G recovery of infinities) = glibc's cpow.
 *      Its error is ~(1 + |b| |log a|) ulp, as NumPy's/glibc's (the
 *      rounding of b log a is amplified by exp).
 *
 * complex64 (NumPy computes it in float) differs from NumPy only where
 * NumPy's float intermediates overflow or underflow: power's
 * exp(b log a) as glibc's cpow in double (cpowf can differ in the class
 * of such results), divide's Smith formula without float overflow, etc.
 *
 * Helpers here are named nd_cx_*. Exact products use fma(); the CPU build
 * compiles C11 (no contraction) and nvcc runs with -fmad=false, so the
 * error-free sums below are not broken by contraction.
 */
#ifndef ND_OPS_CPX_MATH_H
#define ND_OPS_CPX_MATH_H

#include <float.h>
#include <math.h>

#include "shared/convert.h"
#include "shared/hostdev.h"
#include "shared/ops_math.h" /* nd_isnan_f64, nd_isinf_f64, nd_signbit_bits_f64 */

#define ND_CX_PI_2 1.570796326794896558
#define ND_CX_PI_2_LO 6.123233995736766036e-17 /* pi/2 - ND_CX_PI_2 */
#define ND_CX_LN2 0.6931471805599452862
#define ND_CX_LN2_LO 2.319046813846299558e-17 /* ln2 - ND_CX_LN2 */
#define ND_CX_LN2_HI32 6.93147180369123816490e-01 /* 32 bits: k * it is exact for |k| < 2^21 */
#define ND_CX_LN2_LO32 1.90821492927058770002e-10 /* ln2 - ND_CX_LN2_HI32 */
#define ND_CX_LOG2E 1.442695040888963387
#define ND_CX_LOG10E 0.4342944819032518167
#define ND_CX_EPS DBL_EPSILON

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */
ND_HOSTDEV static inline bool nd_cx_finite(double x) { return !nd_isnan_f64(x) && !nd_isinf_f64(x); }
ND_HOSTDEV static inline double nd_cx_nan(void) { return (double)NAN; }
ND_HOSTDEV static inline double nd_cx_inf(void) { return (double)INFINITY; }
ND_HOSTDEV static inline double nd_cx_max(double a, double b) { return a > b ? a : b; }

/* s + e = a + b exactly (Knuth's TwoSum: any order of magnitudes) */
ND_HOSTDEV static inline void nd_cx_two_sum(double a, double b, double *s, double *e)
{
    double t = a + b, bb = t - a;
    *e = (a - (t - bb)) + (b - bb);
    *s = t;
}

/* a + hx + lx + hy + ly, where hx + lx = x^2 and hy + ly = y^2 exactly,
 * to about one rounding of the result even under heavy cancellation
 * (the terms are at most 16 in magnitude). */
ND_HOSTDEV static inline double nd_cx_sum_sq(double a, double x, double y)
{
    double hx = x * x, lx = fma(x, x, -hx);
    double hy = y * y, ly = fma(y, y, -hy);
    double s, e1, e2, t, f1, f2, f3;
    nd_cx_two_sum(a, hx, &s, &e1);
    nd_cx_two_sum(s, hy, &s, &e2);
    /* s + e1 + e2 + lx + ly exactly; the small ones summed error-free */
    nd_cx_two_sum(e1, lx, &t, &f1);
    nd_cx_two_sum(t, ly, &t, &f2);
    nd_cx_two_sum(t, e2, &t, &f3);
    double hi, lo;
    nd_cx_two_sum(s, t, &hi, &lo);
    return hi + (lo + (f1 + f2 + f3));
}

/* 2^e scaling exponent of the larger magnitude m > 0 (m = f 2^e, f in [0.5, 1)) */
ND_HOSTDEV static inline int nd_cx_expo(double m)
{
    int e;
    (void)frexp(m, &e);
    return e;
}

/* exp(x) (c, s) 2^scale for x > 709 (where exp(x) alone overflows):
 * exp(x) = 2^k exp(r), k = round(x / ln2), r = x - k ln2 computed with a
 * 32-bit ln2 (k ln2_hi exact, the difference exact by Sterbenz). c and s
 * are nonzero (callers handle im == 0 first). */
ND_HOSTDEV static inline nd_c128_t nd_cx_exp_scaled(double x, double c, double s, int scale)
{
    double kd = floor(x * ND_CX_LOG2E + 0.5);
    if (kd > 3000.0) kd = 3000.0; /* exp(r) overflows then, as the result must */
    double r = (x - kd * ND_CX_LN2_HI32) - kd * ND_CX_LN2_LO32;
    double e = exp(r);
    int k = (int)kd + scale;
    return nd_mk_c128(ldexp(e * c, k), ldexp(e * s, k));
}

/* log|z| for finite z != 0, accurate near |z| = 1 and without overflow */
ND_HOSTDEV static inline double nd_cx_log_abs(double x, double y)
{
    double ax = fabs(x), ay = fabs(y);
    if (ax < ay) {
        double t = ax;
        ax = ay;
        ay = t;
    }
    if (ax >= 0.5 && ax <= 2.0) return 0.5 * log1p(nd_cx_sum_sq(-1.0, ax, ay));
    /* |z| = ax sqrt(1 + q): no cancellation beyond a factor ~2 here */
    double q = ay / ax;
    return log(ax) + 0.5 * log1p(q * q);
}

/* ------------------------------------------------------------------ */
/* exp, log, sqrt                                                      */
/* ------------------------------------------------------------------ */
ND_HOSTDEV static inline nd_c128_t nd_op_exp_c128(nd_c128_t z)
{
    double x = z.re, y = z.im;
    if (y == 0) return nd_mk_c128(exp(x), y); /* any x, NaN too: exp(x) + i y */
    if (!nd_cx_finite(y)) {
        if (nd_isinf_f64(x)) return x > 0 ? nd_mk_c128(x, y - y) : nd_mk_c128(0.0, 0.0);
        return nd_mk_c128(y - y, y - y);
    }
    if (nd_isnan_f64(x)) return nd_mk_c128(x, x);
    double c = cos(y), s = sin(y);
    if (x > 709.0) {
        if (nd_isinf_f64(x)) return nd_mk_c128(x * c, x * s);
        return nd_cx_exp_scaled(x, c, s, 0);
    }
    double e = exp(x); /* -inf: +0 cis(y) */
    return nd_mk_c128(e * c, e * s);
}

ND_HOSTDEV static inline nd_c128_t nd_op_log_c128(nd_c128_t z)
{
    double x = z.re, y = z.im;
    double im = atan2(y, x);
    if (nd_isinf_f64(x) || nd_isinf_f64(y)) return nd_mk_c128(nd_cx_inf(), im);
    if (nd_isnan_f64(x) || nd_isnan_f64(y)) return nd_mk_c128(nd_cx_nan(), nd_cx_nan());
    if (x == 0 && y == 0) return nd_mk_c128(-nd_cx_inf(), im);
    return nd_mk_c128(nd_cx_log_abs(x, y), im);
}

ND_HOSTDEV static inline nd_c128_t nd_op_log2_c128(nd_c128_t z)
{
    nd_c128_t r = nd_op_log_c128(z);
    return nd_mk_c128(r.re * ND_CX_LOG2E, r.im * ND_CX_LOG2E);
}

ND_HOSTDEV static inline nd_c128_t nd_op_log10_c128(nd_c128_t z)
{
    nd_c128_t r = nd_op_log_c128(z);
    return nd_mk_c128(r.re * ND_CX_LOG10E, r.im * ND_CX_LOG10E);
}

ND_HOSTDEV static inline nd_c128_t nd_op_sqrt_c128(nd_c128_t z)
{
    double a = z.re, b = z.im;
    if (a == 0 && b == 0) return nd_mk_c128(0.0, b);
    if (nd_isinf_f64(b)) return nd_mk_c128(nd_cx_inf(), b);
    if (nd_isnan_f64(a)) return nd_mk_c128(a, a);
    if (nd_isinf_f64(a)) {
        if (a > 0) return nd_mk_c128(a, nd_isnan_f64(b) ? b : copysign(0.0, b));
        return nd_mk_c128(nd_isnan_f64(b) ? b : 0.0, copysign(nd_cx_inf(), b));
    }
    if (nd_isnan_f64(b)) return nd_mk_c128(b, b);
    /* finite, not both zero. Scale by 4 (result by 2) near overflow, by
     * 2^54 (result 2^-27) when both are subnormal; a part that is tiny
     * beside a huge one is left alone (it is negligible either way). */
    double scale = 1.0;
    if (fabs(a) >= 0x1p1020 || fabs(b) >= 0x1p1020) {
        if (fabs(a) >= 0x1p-1020) a *= 0.25;
        if (fabs(b) >= 0x1p-1020) b *= 0.25;
        scale = 2.0;
    } else if (fabs(a) < 0x1p-1022 && fabs(b) < 0x1p-1022) {
        a *= 0x1p54;
        b *= 0x1p54;
        scale = 0x1p-27;
    }
    double h = hypot(a, b);
    if (a >= 0) {
        double t = sqrt((a + h) * 0.5);
        return nd_mk_c128(t * scale, b / (2.0 * t) * scale);
    }
    double t = sqrt((h - a) * 0.5);
    return nd_mk_c128(fabs(b) / (2.0 * t) * scale, copysign(t, b) * scale);
}

/* ------------------------------------------------------------------ */
/* Hyperbolic functions (and through Annex G's identities, the         */
/* trigonometric ones)                                                 */
/* ------------------------------------------------------------------ */
ND_HOSTDEV static inline nd_c128_t nd_op_sinh_c128(nd_c128_t z)
{
    double x = z.re, y = z.im, ax = fabs(x);
    bool xf = nd_cx_finite(x), yf = nd_cx_finite(y);
    if (xf && yf) {
        if (y == 0) return nd_mk_c128(sinh(x), y);
        double c = cos(y), s = sin(y);
        if (ax < 22.0) return nd_mk_c128(sinh(x) * c, cosh(x) * s);
        if (ax < 709.0) { /* cosh ~ sinh ~ exp(|x|)/2 */
            double h = 0.5 * exp(ax);
            return nd_mk_c128(copysign(h, x) * c, h * s);
        }
        nd_c128_t w = nd_cx_exp_scaled(ax, c, s, -1);
        return nd_mk_c128(w.re * copysign(1.0, x), w.im);
    }
    if (x == 0) return nd_mk_c128(x, y - y);   /* +-0 + i inf/NaN: +-0 + i NaN */
    if (y == 0) return nd_mk_c128(x, y);       /* +-inf/NaN + i0 */
    if (xf) return nd_mk_c128(y - y, y - y);   /* finite x != 0, y inf/NaN */
    if (nd_isinf_f64(x)) {
        if (!yf) return nd_mk_c128(x, y - y);  /* inf + i inf/NaN: +-inf + i NaN */
        return nd_mk_c128(x * cos(y), nd_cx_inf() * sin(y));
    }
    return nd_mk_c128(nd_cx_nan(), nd_cx_nan()); /* NaN + i y, y != 0 */
}

ND_HOSTDEV static inline nd_c128_t nd_op_cosh_c128(nd_c128_t z)
{
    double x = z.re, y = z.im, ax = fabs(x);
    bool xf = nd_cx_finite(x), yf = nd_cx_finite(y);
    if (xf && yf) {
        if (y == 0) return nd_mk_c128(cosh(x), x * y);
        double c = cos(y), s = sin(y);
        if (ax < 22.0) return nd_mk_c128(cosh(x) * c, sinh(x) * s);
        if (ax < 709.0) {
            double h = 0.5 * exp(ax);
            return nd_mk_c128(h * c, copysign(h, x) * s);
        }
        nd_c128_t w = nd_cx_exp_scaled(ax, c, s, -1);
        return nd_mk_c128(w.re, w.im * copysign(1.0, x));
    }
    if (x == 0) return nd_mk_c128(y - y, x * copysign(0.0, y)); /* NaN +- i0 */
    if (y == 0) return nd_mk_c128(x * x, copysign(0.0, x) * y); /* inf/NaN + i0 */
    if (xf) return nd_mk_c128(y - y, y - y);
    if (nd_isinf_f64(x)) {
        if (!yf) return nd_mk_c128(nd_cx_inf(), y - y);
        return nd_mk_c128(nd_cx_inf() * cos(y), x * sin(y));
    }
    return nd_mk_c128(nd_cx_nan(), nd_cx_nan());
}

ND_HOSTDEV static inline nd_c128_t nd_op_tanh_c128(nd_c128_t z)
{
    double x = z.re, y = z.im;
    if (!nd_cx_finite(x)) {
        if (nd_isnan_f64(x)) return nd_mk_c128(x, y == 0 ? y : nd_cx_nan());
        /* +-inf + i y: +-1 + i 0 sin(2y) */
        return nd_mk_c128(copysign(1.0, x), copysign(0.0, nd_cx_finite(y) ? sin(y) * cos(y) : y));
    }
    if (!nd_cx_finite(y)) return nd_mk_c128(x != 0 ? y - y : x, y - y);
    if (fabs(x) >= 22.0) { /* tanh = +-1 to double precision; im = 2 sin 2y / e^2|x| */
        double e = exp(-fabs(x));
        return nd_mk_c128(copysign(1.0, x), 4.0 * sin(y) * cos(y) * e * e);
    }
    /* Kahan: t = tan y, beta = 1 + t^2, s = sinh x, rho = cosh x:
     * tanh z = (beta rho s + i t) / (1 + beta s^2) */
    double t = tan(y), beta = 1.0 + t * t, s = sinh(x), rho = sqrt(1.0 + s * s);
    double den = 1.0 + beta * s * s;
    return nd_mk_c128((beta * rho * s) / den, t / den);
}

/* sin(z) = -i sinh(iz), cos(z) = cosh(iz), tan(z) = -i tanh(iz) (Annex G):
 * iz = (-y, x), -i (a + ib) = (b, -a) */
ND_HOSTDEV static inline nd_c128_t nd_op_sin_c128(nd_c128_t z)
{
    nd_c128_t w = nd_op_sinh_c128(nd_mk_c128(-z.im, z.re));
    return nd_mk_c128(w.im, -w.re);
}

ND_HOSTDEV static inline nd_c128_t nd_op_cos_c128(nd_c128_t z) { return nd_op_cosh_c128(nd_mk_c128(-z.im, z.re)); }

ND_HOSTDEV static inline nd_c128_t nd_op_tan_c128(nd_c128_t z)
{
    nd_c128_t w = nd_op_tanh_c128(nd_mk_c128(-z.im, z.re));
    return nd_mk_c128(w.im, -w.re);
}

/* ------------------------------------------------------------------ */
/* Inverse functions                                                   */
/* ------------------------------------------------------------------ */
/* (hypot(a, b) - b) / 2 without cancellation; h = hypot(a, b) */
ND_HOSTDEV static inline double nd_cx_half_gap(double a, double b, double h)
{
    if (b < 0) return 0.5 * (h - b);
    if (b == 0) return 0.5 * a;
    return a * a / (h + b) * 0.5;
}

/* Hull, Fairgrieve and Tang's kernel of arcsinh for x, y >= 0, finite,
 * below 2^52 and not both tiny. With R = |z + i|, S = |z - i|,
 * A = (R + S)/2 >= 1 and B = y/A:
 *   Re arcsinh(z) = log(A + sqrt(A^2 - 1))        -> *re
 *   Im arcsinh(z) = asin(B) = atan2(y, sqrt(A^2 - y^2)).
 * *b_ok says B is well conditioned (B <= 0.6417: use asin(*b) or
 * acos(*b)); otherwise the atan2 pair (*num, *den) is returned, where
 * *num = y up to a common power-of-2 factor of both. A - 1 and A - y are
 * formed as sums of half_gap terms, which do not cancel. */
ND_HOSTDEV static inline void nd_cx_asinh_kernel(double x, double y, double *re, bool *b_ok, double *b, double *num,
                                                 double *den)
{
    const double eps = ND_CX_EPS;
    double R = hypot(x, y + 1.0), S = hypot(x, y - 1.0);
    double A = 0.5 * (R + S);
    if (A < 1.0) A = 1.0;
    if (A < 10.0) {
        if (y == 1.0 && x < eps * eps / 128.0) {
            *re = sqrt(x); /* A - 1 ~ x/2 */
        } else if (x >= eps * fabs(y - 1.0)) {
            double am1 = nd_cx_half_gap(x, 1.0 + y, R) + nd_cx_half_gap(x, 1.0 - y, S);
            *re = log1p(am1 + sqrt(am1 * (A + 1.0)));
        } else if (y < 1.0) {
            *re = x / sqrt((1.0 - y) * (1.0 + y)); /* A - 1 ~ x^2 / (2 (1 - y^2)) */
        } else {
            *re = log1p((y - 1.0) + sqrt((y - 1.0) * (y + 1.0))); /* A ~ y */
        }
    } else {
        *re = log(A + sqrt(A * A - 1.0));
    }
    *num = y;
    *den = A;
    *b = 0;
    if (y < 0x1p-509) { /* y/A may underflow: atan2 on scaled values */
        *b_ok = false;
        *den = A * (2.0 / eps);
        *num = y * (2.0 / eps);
        return;
    }
    *b = y / A;
    *b_ok = *b <= 0.6417;
    if (*b_ok) return;
    if (y == 1.0 && x < eps / 128.0) {
        *den = sqrt(x) * sqrt(0.5 * (A + y));
    } else if (x >= eps * fabs(y - 1.0)) {
        double amy = nd_cx_half_gap(x, y + 1.0, R) + nd_cx_half_gap(x, y - 1.0, S);
        *den = sqrt(amy * (A + y));
    } else if (y > 1.0) { /* A - y ~ x^2 y / (2 (y^2 - 1)): scale against underflow */
        const double sc = 4.0 / eps / eps;
        *den = x * sc * y / sqrt((y + 1.0) * (y - 1.0));
        *num = y * sc;
    } else {
        *den = sqrt((1.0 - y) * (1.0 + y));
    }
}

ND_HOSTDEV static inline nd_c128_t nd_op_arcsinh_c128(nd_c128_t z)
{
    double x = z.re, y = z.im, ax = fabs(x), ay = fabs(y);
    if (nd_isnan_f64(x) || nd_isnan_f64(y)) {
        if (nd_isinf_f64(x)) return nd_mk_c128(x, y + y); /* +-inf + i NaN */
        if (nd_isinf_f64(y)) return nd_mk_c128(y, x + x); /* NaN +- i inf: +-inf (unspecified) + i NaN */
        if (y == 0) return nd_mk_c128(x + x, y);          /* NaN +- i0 */
        return nd_mk_c128(nd_cx_nan(), nd_cx_nan());
    }
    if (ax > 0x1p52 || ay > 0x1p52) { /* arcsinh z = sign(x) (log(2|z|) + i arg(sign(x) z)) + O(1/z^2) */
        nd_c128_t w = nd_op_log_c128(nd_mk_c128(ax, ay));
        return nd_mk_c128(copysign(w.re + ND_CX_LN2, x), copysign(w.im, y));
    }
    if (ax < 9.1e-9 && ay < 9.1e-9) return z; /* z - z^3/6: the cube is below half an ulp */
    double rx, ry, b, num, den;
    bool b_ok;
    nd_cx_asinh_kernel(ax, ay, &rx, &b_ok, &b, &num, &den);
    ry = b_ok ? asin(b) : atan2(num, den);
    return nd_mk_c128(copysign(rx, x), copysign(ry, y));
}

ND_HOSTDEV static inline nd_c128_t nd_op_arcsin_c128(nd_c128_t z)
{
    nd_c128_t w = nd_op_arcsinh_c128(nd_mk_c128(-z.im, z.re));
    return nd_mk_c128(w.im, -w.re);
}

/* arccos(z) = pi/2 - arcsin(z), computed from the same kernel applied
 * to (|y|, |x|) so that it stays accurate near z = 1. */
ND_HOSTDEV static inline nd_c128_t nd_op_arccos_c128(nd_c128_t z)
{
    double x = z.re, y = z.im, ax = fabs(x), ay = fabs(y);
    bool sx = nd_signbit_bits_f64(x), sy = nd_signbit_bits_f64(y);
    if (nd_isnan_f64(x) || nd_isnan_f64(y)) {
        if (nd_isinf_f64(x)) return nd_mk_c128(y + y, -nd_cx_inf()); /* NaN +- i inf (unspecified) */
        if (nd_isinf_f64(y)) return nd_mk_c128(x + x, -y);           /* NaN -+ i inf */
        if (x == 0) return nd_mk_c128(ND_CX_PI_2, y + y);            /* pi/2 + i NaN */
        return nd_mk_c128(nd_cx_nan(), nd_cx_nan());
    }
    if (ax > 0x1p52 || ay > 0x1p52) { /* arccos z = arg-ish - i sign(y) log(2|z|) */
        double rx = atan2(ay, x);
        double ry = nd_op_log_c128(nd_mk_c128(ax, ay)).re + ND_CX_LN2;
        return nd_mk_c128(rx, sy ? ry : -ry);
    }
    if (x == 1 && y == 0) return nd_mk_c128(0.0, -y);
    if (ax < 9.1e-9 && ay < 9.1e-9) return nd_mk_c128(ND_CX_PI_2 - (x - ND_CX_PI_2_LO), -y);
    double rx, ry, b, num, den;
    bool b_ok;
    nd_cx_asinh_kernel(ay, ax, &ry, &b_ok, &b, &num, &den);
    if (b_ok) rx = acos(sx ? -b : b);
    else rx = atan2(den, sx ? -num : num);
    return nd_mk_c128(rx, sy ? ry : -ry);
}

/* arccosh(z) = +-i arccos(z), the sign making Re >= 0 */
ND_HOSTDEV static inline nd_c128_t nd_op_arccosh_c128(nd_c128_t z)
{
    nd_c128_t w = nd_op_arccos_c128(z);
    double rx = w.re, ry = w.im;
    if (nd_isnan_f64(rx) && nd_isnan_f64(ry)) return nd_mk_c128(ry, rx);
    if (nd_isnan_f64(rx)) return nd_mk_c128(fabs(ry), rx); /* +inf + i NaN */
    if (nd_isnan_f64(ry)) return nd_mk_c128(ry, rx);       /* +-0 + i NaN: NaN + i pi/2 (glibc) */
    return nd_mk_c128(fabs(ry), copysign(rx, z.im));
}

/* Re(1/z) = x / (x^2 + y^2) for |z| > 2^52, without overflow */
ND_HOSTDEV static inline double nd_cx_re_recip(double x, double y)
{
    if (nd_isinf_f64(x) || nd_isinf_f64(y)) return copysign(0.0, x);
    int e = nd_cx_expo(nd_cx_max(fabs(x), fabs(y)));
    double xs = ldexp(x, -e), ys = ldexp(y, -e);
    return ldexp(xs / (xs * xs + ys * ys), -e);
}

/* arctanh(z) = log((1+z)/(1-z))/2:
 *   Re = log1p(4|x| / ((|x|-1)^2 + y^2)) / 4
 *   Im = atan2(2|y|, (1-|x|)(1+|x|) - y^2) / 2, signs from x and y. */
ND_HOSTDEV static inline nd_c128_t nd_op_arctanh_c128(nd_c128_t z)
{
    double x = z.re, y = z.im, ax = fabs(x), ay = fabs(y);
    if (y == 0 && ax <= 1) return nd_mk_c128(atanh(x), y);
    if (x == 0) return nd_mk_c128(x, atan(y));
    if (nd_isnan_f64(x) || nd_isnan_f64(y)) {
        if (nd_isinf_f64(x)) return nd_mk_c128(copysign(0.0, x), y + y);
        if (nd_isinf_f64(y)) return nd_mk_c128(copysign(0.0, x), copysign(ND_CX_PI_2, y));
        return nd_mk_c128(nd_cx_nan(), nd_cx_nan());
    }
    if (ax > 0x1p52 || ay > 0x1p52) return nd_mk_c128(nd_cx_re_recip(x, y), copysign(ND_CX_PI_2, y));
    if (ax < 1.29e-8 && ay < 1.29e-8) return z; /* z + z^3/3 */
    double rx, ry;
    if (ax == 1 && ay < ND_CX_EPS) {
        rx = 0.5 * (ND_CX_LN2 - log(ay));
    } else {
        double d = ax - 1.0;
        double ss = d * d + (ay < 0x1p-511 ? 0.0 : ay * ay);
        rx = 0.25 * log1p(4.0 * ax / ss);
    }
    if (ax == 1) ry = 0.5 * atan2(2.0, -ay);
    else if (ay < ND_CX_EPS) ry = 0.5 * atan2(2.0 * ay, (1.0 - ax) * (1.0 + ax));
    else ry = 0.5 * atan2(2.0 * ay, (1.0 - ax) * (1.0 + ax) - ay * ay);
    return nd_mk_c128(copysign(rx, x), copysign(ry, y));
}

ND_HOSTDEV static inline nd_c128_t nd_op_arctan_c128(nd_c128_t z)
{
    nd_c128_t w = nd_op_arctanh_c128(nd_mk_c128(-z.im, z.re));
    return nd_mk_c128(w.im, -w.re);
}

#define ND_OPS_CPX_MATH_BODY
#include "shared/ops_cpx_numpy.h"
#undef ND_OPS_CPX_MATH_BODY

/* ------------------------------------------------------------------ */
/* complex64: the complex128 body on the widened value, rounded once   */
/* ------------------------------------------------------------------ */
ND_HOSTDEV static inline nd_c64_t nd_cx_narrow(nd_c128_t r) { return nd_mk_c64((float)r.re, (float)r.im); }
ND_HOSTDEV static inline nd_c128_t nd_cx_widen(nd_c64_t z) { return nd_mk_c128((double)z.re, (double)z.im); }

#define ND_CX_C64_UNARY(name)                                                                 \
    ND_HOSTDEV static inline nd_c64_t nd_op_##name##_c64(nd_c64_t x)                          \
    {                                                                                         \
        return nd_cx_narrow(nd_op_##name##_c128(nd_cx_widen(x)));                             \
    }
#define ND_CX_C64_BINARY(name)                                                                \
    ND_HOSTDEV static inline nd_c64_t nd_op_##name##_c64(nd_c64_t a, nd_c64_t b)              \
    {                                                                                         \
        return nd_cx_narrow(nd_op_##name##_c128(nd_cx_widen(a), nd_cx_widen(b)));             \
    }
ND_CX_C64_UNARY(sign)
ND_CX_C64_UNARY(sqrt)
ND_CX_C64_UNARY(reciprocal)
ND_CX_C64_UNARY(exp)
ND_CX_C64_UNARY(exp2)
ND_CX_C64_UNARY(expm1)
ND_CX_C64_UNARY(log)
ND_CX_C64_UNARY(log2)
ND_CX_C64_UNARY(log10)
ND_CX_C64_UNARY(log1p)
ND_CX_C64_UNARY(sin)
ND_CX_C64_UNARY(cos)
ND_CX_C64_UNARY(tan)
ND_CX_C64_UNARY(arcsin)
ND_CX_C64_UNARY(arccos)
ND_CX_C64_UNARY(arctan)
ND_CX_C64_UNARY(sinh)
ND_CX_C64_UNARY(cosh)
ND_CX_C64_UNARY(tanh)
ND_CX_C64_UNARY(arcsinh)
ND_CX_C64_UNARY(arccosh)
ND_CX_C64_UNARY(arctanh)
ND_CX_C64_BINARY(power)
#undef ND_CX_C64_UNARY
#undef ND_CX_C64_BINARY

/* complex64 divide, the common case first: finite float operands and a
 * nonzero divisor in double, where the float products are exact (24 + 24
 * bits), |b|^2 lies in [2^-298, 2^257] (no overflow, no underflow), and
 * each part is one rounded sum and one rounded division before the final
 * rounding to float: the correctly rounded quotient but for rare double
 * rounding, with no scaling (about 5x faster than the general body, which
 * handles the rest: zero divisors, inf, NaN, and results with a zero part,
 * whose sign NumPy's Smith formula decides). */
ND_HOSTDEV static inline nd_c64_t nd_op_divide_c64(nd_c64_t a, nd_c64_t b)
{
    const double ar = a.re, ai = a.im, br = b.re, bi = b.im;
    const double d = br * br + bi * bi;
    if (d > 0 && d <= 0x1p260 && nd_cx_finite(ar) && nd_cx_finite(ai)) {
        const float re = (float)((ar * br + ai * bi) / d), im = (float)((ai * br - ar * bi) / d);
        if (re != 0 && im != 0) return nd_mk_c64(re, im);
    }
    /* the rest, and a zero part, whose sign Smith's formula decides */
    return nd_cx_narrow(nd_op_divide_c128(nd_cx_widen(a), nd_cx_widen(b)));
}

#endif /* ND_OPS_CPX_MATH_H */
