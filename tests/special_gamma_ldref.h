/* The elementwise harness's reference of the gamma, zeta and Bessel ops
 * (tests/test_elementwise_ref.c): long double, written independently of
 * src/shared/ops_gamma.h (glibc's tgammal, lgammal, j0l, j1l, y0l, y1l;
 * plain series, recurrences and Euler-Maclaurin sums elsewhere), with
 * SciPy's special values. Good to ~1e-16 relative on the harness's domains
 * (arguments within [0, 12] plus the special values); the accuracy over
 * the whole range is tests/test_special_gamma.c's, against mpmath. */
#ifndef ND_SPECIAL_GAMMA_LDREF_H
#define ND_SPECIAL_GAMMA_LDREF_H
#include <math.h>
#include <stdbool.h>

static bool sgr_isint(long double x) { return x == floorl(x); }

static long double sgr_digamma(long double x)
{
    if (isnan(x)) return x;
    if (x == INFINITY) return x;
    if (x == 0) return signbit(x) ? INFINITY : -INFINITY;
    if (x < 0 && sgr_isint(x)) return NAN;
    if (x < 0) return sgr_digamma(1 - x) - 3.14159265358979323846264338327950288L / tanl(3.14159265358979323846264338327950288L * x);
    long double acc = 0;
    while (x < 20) {
        acc -= 1 / x;
        x += 1;
    }
    const long double z = 1 / (x * x);
    return acc + logl(x) - 0.5L / x - z * (1.0L / 12 - z * (1.0L / 120 - z * (1.0L / 252 - z * (1.0L / 240 - z / 132))));
}

/* I_nu(|x|) by its power series (scaled: times e^-|x|) */
static long double sgr_bessel_i(long double x, int nu, bool scaled)
{
    const long double ax = fabsl(x), q = ax * ax / 4;
    long double t = nu ? ax / 2 : 1, s = t;
    for (int k = 1; k < 4000 && t > 1e-22L * s; k++) {
        t *= q / ((long double)k * (k + nu));
        s += t;
    }
    if (scaled) s *= expl(-ax);
    return (nu && x < 0) ? -s : s; /* SciPy: i1(-0) = +0 */
}

/* Hurwitz zeta, SciPy's rules; Euler-Maclaurin from w = q + N, N >= 50 */
static long double sgr_zeta(long double x, long double q)
{
    if (x == 1) return INFINITY;
    if (x < 1) return NAN;
    if (q <= 0) {
        if (sgr_isint(q)) return INFINITY;
        if (!sgr_isint(x)) return NAN;
    }
    if (isnan(x) || isnan(q)) return NAN;
    if (x == INFINITY) return q < 1 ? INFINITY : q == 1 ? 1 : q > 1e8L ? 0 : NAN;
    if (q == INFINITY) return 0;
    long double s = 0, w = q;
    int n = 0;
    while (n < 50 || w < 50) {
        s += powl(w, -x);
        w += 1;
        n++;
    }
    s += powl(w, 1 - x) / (x - 1) + powl(w, -x) / 2;
    s += x * powl(w, -x - 1) / 12;
    s -= x * (x + 1) * (x + 2) * powl(w, -x - 3) / 720;
    s += x * (x + 1) * (x + 2) * (x + 3) * (x + 4) * powl(w, -x - 5) / 30240;
    return s;
}

static long double sgr_gamma(long double x)
{
    if (x == 0) return signbit(x) ? -INFINITY : INFINITY;
    if (x < 0 && sgr_isint(x)) return NAN; /* and -inf */
    return tgammal(x);
}

/* beta (or log|beta|), SciPy's rules at the non-positive integers */
static long double sgr_beta(long double a, long double b, bool lg)
{
    for (int pass = 0; pass < 2; pass++) {
        if (a <= 0 && sgr_isint(a)) {
            if (!isinf(a) && !isinf(b) && sgr_isint(b) && 1 - a - b > 0) {
                const long double r = sgr_beta(1 - a - b, b, lg);
                return lg ? r : (fmodl(b, 2) == 0 ? r : -r);
            }
            return INFINITY;
        }
        const long double t = a;
        a = b;
        b = t;
    }
    if (isnan(a) || isnan(b)) return NAN;
    if (isinf(a) || isinf(b)) {
        if (isinf(a) && isinf(b)) return NAN;
        const long double s = isinf(a) ? b : a; /* finite, not a non-positive integer */
        if (s > 0) return lg ? -INFINITY : 0;
        if (lg) return INFINITY;
        return (fmodl(floorl(s), 2) != 0) ? -INFINITY : INFINITY; /* the sign of gamma(s) */
    }
    const long double y = a + b;
    long double g = tgammal(a) * tgammal(b);
    g = (y <= 0 && sgr_isint(y)) ? g * 0 : g / tgammal(y);
    return lg ? logl(fabsl(g)) : g;
}

/* the regularised incomplete gamma functions, SciPy's special values */
static long double sgr_gammainc(long double a, long double x, bool upper)
{
    if (isnan(a) || isnan(x) || a < 0 || x < 0) return NAN;
    if (a == 0) return x > 0 ? (upper ? 0 : 1) : NAN;
    if (x == 0) return upper ? 1 : 0;
    if (isinf(a)) return isinf(x) ? NAN : (upper ? 1 : 0);
    if (isinf(x)) return upper ? 0 : 1;
    const long double f = expl(a * logl(x) - x - lgammal(a));
    if (x < a + 1) { /* P by its series */
        long double t = 1 / a, s = t;
        for (int k = 1; k < 10000 && fabsl(t) > 1e-22L * s; k++) {
            t *= x / (a + k);
            s += t;
        }
        const long double p = s * f;
        return upper ? 1 - p : p;
    }
    /* Q by its continued fraction (Lentz) */
    long double b = x + 1 - a, c = 1e4000L, d = 1 / b, h = d;
    for (int i = 1; i < 10000; i++) {
        const long double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        c = b + an / c;
        d = 1 / d;
        h *= d * c;
        if (fabsl(d * c - 1) < 1e-21L) break;
    }
    const long double qv = f * h;
    return upper ? qv : 1 - qv;
}

/* false where op is not one of these */
static bool sg_ref_unary(nd_unary_op op, double xd, double *r)
{
    const long double x = xd;
    long double v;
    switch (op) {
    case ND_UNARY_GAMMA: v = sgr_gamma(x); break;
    case ND_UNARY_LGAMMA: v = isnan(x) ? x : isinf(x) ? x : lgammal(x); break; /* SciPy: -inf at -inf */
    case ND_UNARY_DIGAMMA: v = sgr_digamma(x); break;
    case ND_UNARY_I0: v = (isnan(x) || isinf(x)) ? NAN : sgr_bessel_i(x, 0, false); break;
    case ND_UNARY_I1: v = (isnan(x) || isinf(x)) ? NAN : sgr_bessel_i(x, 1, false); break;
    case ND_UNARY_I0E: v = isnan(x) ? x : isinf(x) ? 0 : sgr_bessel_i(x, 0, true); break;
    case ND_UNARY_I1E: v = isnan(x) ? x : isinf(x) ? copysignl(0, x) : sgr_bessel_i(x, 1, true); break;
    case ND_UNARY_J0: v = (isnan(x) || isinf(x)) ? NAN : j0l(x); break;
    case ND_UNARY_J1: v = (isnan(x) || isinf(x)) ? NAN : j1l(x); break;
    case ND_UNARY_Y0: v = (isnan(x) || isinf(x) || x < 0) ? NAN : x == 0 ? -INFINITY : y0l(x); break;
    case ND_UNARY_Y1: v = (isnan(x) || isinf(x) || x < 0) ? NAN : x == 0 ? -INFINITY : y1l(x); break;
    default: return false;
    }
    *r = (double)v;
    return true;
}

static bool sg_ref_binary(nd_binary_op op, double ad, double bd, double *r)
{
    const long double a = ad, b = bd;
    long double v;
    switch (op) {
    case ND_BINARY_POLYGAMMA:
        v = a == 0 ? sgr_digamma(b) : powl(-1, a + 1) * tgammal(a + 1) * sgr_zeta(a + 1, b);
        break;
    case ND_BINARY_BETA: v = sgr_beta(a, b, false); break;
    case ND_BINARY_BETALN: v = sgr_beta(a, b, true); break;
    case ND_BINARY_GAMMAINC: v = sgr_gammainc(a, b, false); break;
    case ND_BINARY_GAMMAINCC: v = sgr_gammainc(a, b, true); break;
    case ND_BINARY_ZETA: v = sgr_zeta(a, b); break;
    default: return false;
    }
    *r = (double)v;
    return true;
}
#endif
