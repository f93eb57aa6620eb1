/*
 * The gamma, zeta and Bessel family of elementwise ops, written once for
 * the CPU loops (gcc, C11) and the CUDA kernels (nvcc, C++): gamma,
 * lgamma (SciPy's gammaln), digamma (psi) (unary) and polygamma(n, x),
 * beta, betaln, gammainc, gammaincc and the Hurwitz zeta(x, q) (binary),
 * with SciPy's special values. Part of
 * src/shared/ops_math.h (which includes it); names as there
 * (nd_op_<name>_f64 / _f32).
 *
 * Every function is computed in float64 by our own algorithms (no libm or
 * CUDA special function is called, so the CPU and the GPU compute the
 * same values from the same code); float32 rounds the float64 value once
 * (float16/bfloat16 go through float32 as every FLOAT op). The Bessel
 * functions i0, i0e, i1, i1e, j0, j1, y0, y1 live in
 * src/shared/ops_bessel.h (described here too). The building
 * blocks are exp, log, log1p, pow, sin, cos, sqrt, fma.
 *  - lgamma: the Taylor series of lgamma(1 + e) and lgamma(2 + e) (the
 *    coefficients are (-1)^k zeta(k)/k and (-1)^k (zeta(k) - 1)/k) on
 *    [0.5, 2.75], the recurrence with a double-double product below 13,
 *    Stirling's series above, reflection below -13;
 *  - gamma: exp of the same series near 1 and 2, the recurrence with a
 *    double-double product up to 20, Stirling above (split power so that
 *    x^(x - 1/2) does not overflow early), the recurrence (negative x above
 *    -20) or reflection (below);
 *  - digamma: the Taylor series around its positive root 1.4616...
 *    (argument reduced in two parts), recurrences with double-double sums
 *    of reciprocals, the asymptotic series from 10 on, reflection below -10;
 *  - zeta(x, q): Euler-Maclaurin summation (direct terms until q + N >= 10,
 *    then 12 Bernoulli terms); polygamma(n, x) = SciPy's formula
 *    (-1)^(n+1) gamma(n+1) zeta(n+1, x), digamma for n == 0;
 *  - beta/betaln: gamma ratios (lgamma beyond the gamma range, an
 *    asymptotic form when one argument is 1e6 times the other), SciPy's
 *    rules for non-positive integer arguments;
 *  - gammainc/gammaincc: the power series of P, the continued fraction of
 *    Q (modified Lentz), with the prefactor x^a e^-x / gamma(a) through
 *    Stirling's series and log1p for a >= 10;
 *  - i0, i1, i0e, i1e, j0, j1, y0, y1: fitted polynomial pieces (j0, j1,
 *    y0, y1 centred on their zeros below 8 pi, Hankel's form beyond):
 *    see src/shared/ops_bessel.h.
 * Accuracy: the worst error measured by tests/gen_special_gamma.py
 * --measure against mpmath (300 - 600 points per function over its whole
 * range, tests/special_gamma_ref.h), in ulp; every path (the CPU loops,
 * the CUDA kernels, the run-time kernels) runs this one scalar code, so one
 * column per dtype (float32: correctly rounded but for double rounding;
 * float16/bfloat16: the float32 value rounded once more), and SciPy
 * 1.17.1's float64 worst on the same inputs:
 *
 *   max ulp     f64     f32    SciPy f64
 *   gamma       3.4     0.50   4.2
 *   lgamma      1.9     0.50   2.3e9  (SciPy: near the roots 1 and 2)
 *   digamma     27      0.50   353    (near the negative roots)
 *   i0          2.0     0.50   2.6
 *   i0e         1.6     0.50   5.6
 *   i1          2.7     0.50   5.0
 *   i1e         1.7     0.50   3.8
 *   j0          2.1     0.50   1.6e16 (j, y: relative below 8 pi, zeros too;
 *   j1          2.1     0.50   1.7e16  beyond, ulps of the amplitude
 *   y0          2.2     0.50   8.7e15  sqrt(2/(pi x)): SciPy absolute
 *   y1          1.7     0.50   3.0e17  at the zeros)
 *   polygamma   4.8     0.50   4.8
 *   beta        3.3     0.50   240
 *   betaln      985     0.50   1.7e6  (betaln near 0: its log terms cancel)
 *   gammainc    1.2e3   0.50   1.0e4  (large a, far tails)
 *   gammaincc   1.2e3   0.50   7.6e4
 *   zeta        3.8     0.50   12.4
 * tests/test_special_gamma.c holds float32 to 2 ulp and float64 to
 * max(4, SciPy's worst) on the CPU and on cuda:0.
 */
#ifndef ND_OPS_GAMMA_H
#define ND_OPS_GAMMA_H

#ifndef ND_OPS_MATH_H
#error "src/shared/ops_gamma.h is part of src/shared/ops_math.h: include that"
#endif

#define ND_EULER 0.577215664901532860606512090082402431
#define ND_LN_SQRT_2PI 0.918938533204672741780329736405617639
#define ND_SQRT_2PI 2.50662827463100050241576528481104525

/* ------------------------------------------------------------------ */
/* Double-double helpers                                               */
/* ------------------------------------------------------------------ */
typedef struct nd_dd {
    double hi, lo;
} nd_dd;
ND_HOSTDEV static inline nd_dd nd_dd_make(double hi, double lo)
{
    nd_dd r;
    r.hi = hi;
    r.lo = lo;
    return r;
}
/* hi + lo, |hi| + |lo| normalised */
ND_HOSTDEV static inline nd_dd nd_dd_add(nd_dd a, nd_dd b)
{
    const double s = a.hi + b.hi, bb = s - a.hi;
    const double e = (a.hi - (s - bb)) + (b.hi - bb) + a.lo + b.lo;
    const double h = s + e;
    return nd_dd_make(h, e - (h - s));
}
ND_HOSTDEV static inline nd_dd nd_dd_mul(nd_dd a, nd_dd b)
{
    const double p = a.hi * b.hi;
    const double e = fma(a.hi, b.hi, -p) + (a.hi * b.lo + a.lo * b.hi);
    const double h = p + e;
    return nd_dd_make(h, e - (h - p));
}
ND_HOSTDEV static inline nd_dd nd_dd_mul_d(nd_dd a, double b)
{
    const double p = a.hi * b;
    const double e = fma(a.hi, b, -p) + a.lo * b;
    const double h = p + e;
    return nd_dd_make(h, e - (h - p));
}
ND_HOSTDEV static inline nd_dd nd_dd_div_d(nd_dd a, double b)
{
    const double q = a.hi / b;
    const double r = fma(-q, b, a.hi) + a.lo; /* a - q b, exact first part */
    const double q2 = r / b;
    const double h = q + q2;
    return nd_dd_make(h, q2 - (h - q));
}
/* 1/b in double-double */
ND_HOSTDEV static inline nd_dd nd_dd_recip(double b) { return nd_dd_div_d(nd_dd_make(1.0, 0.0), b); }

/* log(x) in double-double for finite x > 0: x = 2^k m, m in [sqrt(1/2),
 * sqrt(2)), log m = 2 atanh(s), s = (m - 1)/(m + 1), |s| <= 0.172 */
ND_HOSTDEV static inline nd_dd nd_dd_log(double x)
{
    int k = 0;
    double m = frexp(x, &k); /* [0.5, 1) */
    if (m < 0.70710678118654752) {
        m *= 2.0;
        k--;
    }
    const double p = m + 1.0, pl = (m - (p - 1.0)) + (1.0 - (p - (p - 1.0))); /* m + 1 = p + pl */
    nd_dd sd = nd_dd_div_d(nd_dd_make(m - 1.0, 0.0), p);                     /* m - 1 is exact */
    const double c = sd.hi * (pl / p);
    sd = nd_dd_add(sd, nd_dd_make(-c, 0.0));
    const nd_dd s2 = nd_dd_mul(sd, sd);
    nd_dd acc = nd_dd_recip(45.0);
    for (int j = 21; j >= 0; j--) acc = nd_dd_add(nd_dd_mul(acc, s2), nd_dd_recip(2.0 * j + 1.0));
    const nd_dd lm = nd_dd_mul_d(nd_dd_mul(acc, sd), 2.0);
    const nd_dd kl = nd_dd_mul_d(nd_dd_make(0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56), (double)k);
    return nd_dd_add(kl, lm);
}

/* sin(pi x) and cos(pi x) with an exact reduction of x (finite x) */
ND_HOSTDEV static inline double nd_sinpi_f64(double x)
{
    double r = x - 2.0 * rint(0.5 * x); /* [-1, 1], exact */
    if (r > 0.5) r = 1.0 - r;
    else if (r < -0.5) r = -1.0 - r;
    return r == 0 ? 0.0 * x : sin(ND_PI * r);
}
ND_HOSTDEV static inline double nd_cospi_f64(double x)
{
    double r = fabs(x - 2.0 * rint(0.5 * x)); /* [0, 1], exact */
    return r <= 0.5 ? sin(ND_PI * (0.5 - r)) : -sin(ND_PI * (r - 0.5));
}
ND_HOSTDEV static inline bool nd_is_int_f64(double x) { return x == floor(x); }
ND_HOSTDEV static inline bool nd_isfinite_f64(double x) { return !nd_isnan_f64(x) && !nd_isinf_f64(x); }

/* ------------------------------------------------------------------ */
/* lgamma and gamma                                                    */
/* ------------------------------------------------------------------ */
/* lgamma(1 + e), |e| <= 0.5 (e exact): the Taylor series at 1 */
ND_HOSTDEV static inline double nd_lgamma1p_series(double e)
{
    const double s1[55] = {-0x1.2788cfc6fb619p-1, 0x1.a51a6625307d3p-1, -0x1.9a4d55beab2d7p-2, 0x1.151322ac7d848p-2,
        -0x1.a8b9c17aa6149p-3, 0x1.5b40cb100c306p-3, -0x1.2703a1dcea3aep-3, 0x1.010b36af86397p-3,
        -0x1.c806706d57db4p-4, 0x1.9a01e385d5f8fp-4, -0x1.748c33114c6d6p-4, 0x1.556ad63243bc4p-4,
        -0x1.3b1d971fc5985p-4, 0x1.2496df8320c5fp-4, -0x1.11133476e7fe0p-4, 0x1.00010064cdeb2p-4,
        -0x1.e1e2d311e8abdp-5, 0x1.c71ce3a20b419p-5, -0x1.af28a1b5688a0p-5, 0x1.9999b3352d5bap-5,
        -0x1.86186db77bfbfp-5, 0x1.745d1d1778df9p-5, -0x1.642c88591b66dp-5, 0x1.555556aaafdcdp-5,
        -0x1.47ae151eb9fb7p-5, 0x1.3b13b189d925ep-5, -0x1.2f684c00002bcp-5, 0x1.24924936db7bcp-5,
        -0x1.1a7b961a7b9aap-5, 0x1.111111155556dp-5, -0x1.08421086318cep-5, 0x1.0000000100002p-5,
        -0x1.f07c1f08ba2eap-6, 0x1.e1e1e1e25a5a6p-6, -0x1.d41d41d457c58p-6, 0x1.c71c71c738e39p-6,
        -0x1.bacf914c29837p-6, 0x1.af286bca21af3p-6, -0x1.a41a41a41d89ep-6, 0x1.999999999b333p-6,
        -0x1.8f9c18f9c2577p-6, 0x1.8618618618c31p-6, -0x1.7d05f417d08eep-6, 0x1.745d1745d18bap-6,
        -0x1.6c16c16c16ccdp-6, 0x1.642c8590b21bdp-6, -0x1.5c9882b931083p-6, 0x1.555555555556bp-6,
        -0x1.4e5e0a72f0544p-6, 0x1.47ae147ae1480p-6, -0x1.4141414141417p-6, 0x1.3b13b13b13b15p-6,
        -0x1.3521cfb2b78c2p-6, 0x1.2f684bda12f69p-6, -0x1.29e4129e4129ep-6};
    double s = s1[54];
    for (int k = 53; k >= 0; k--) s = fma(s, e, s1[k]);
    return s * e + 0.0; /* lgamma(1) = +0 */
}
/* lgamma(2 + e), |e| <= 0.75 (e exact): the Taylor series at 2 */
ND_HOSTDEV static inline double nd_lgamma2p_series(double e)
{
    const double s2[45] = {0x1.b0ee6072093cep-2, 0x1.4a34cc4a60fa6p-2, -0x1.13e001a557607p-4, 0x1.51322ac7d8483p-6,
        -0x1.e404fc218f5f2p-8, 0x1.7add6eadb6c30p-9, -0x1.38ac5c2bf8e08p-10, 0x1.0b36af86396e9p-11,
        -0x1.d3fd4c76d2fc8p-13, 0x1.a127b0f17d65ap-14, -0x1.78de5bd7c81efp-15, 0x1.580dcee66eb02p-16,
        -0x1.3cbc963ce2243p-17, 0x1.2597a39f34aacp-18, -0x1.11b2eb7679541p-19, 0x1.0064cdeb22f0fp-20,
        -0x1.e2600d93cfd2fp-22, 0x1.c76bbb3f07a4dp-23, -0x1.af5a6cbbf8a97p-24, 0x1.99b93c2070b0fp-25,
        -0x1.862c734df3eacp-26, 0x1.7469daccfadcdp-27, -0x1.6434a8447aeadp-28, 0x1.555a877ffd2c3p-29,
        -0x1.47b1679258d0ep-30, 0x1.3b15d2b2fc10cp-31, -0x1.2f69a9fabe3e0p-32, 0x1.24932a337434cp-33,
        -0x1.1a7c26ec2523cp-34, 0x1.11116e693ed98p-35, -0x1.08424cbc543d8p-36, 0x1.000026e3f644fp-37,
        -0x1.f07c514fc9f0ap-39, 0x1.e1e2026aafcd8p-40, -0x1.d41d56e5ee2e2p-41, 0x1.c71c7f6f10e37p-42,
        -0x1.bacf9a27bc89bp-43, 0x1.af28718a10d6ep-44, -0x1.a41a45603e5b6p-45, 0x1.99999c0716ee9p-46,
        -0x1.8f9c1a8df9d78p-47, 0x1.8618628d28905p-48, -0x1.7d05f4c31c560p-49, 0x1.745d17b56ba4ap-50,
        -0x1.6c16c1b4d6456p-51};
    double s = s2[44];
    for (int k = 43; k >= 0; k--) s = fma(s, e, s2[k]);
    return s * e;
}
/* Stirling's series sum B_2k / (2k (2k-1) x^(2k-1)), x >= 10 */
ND_HOSTDEV static inline double nd_stirling_tail(double x)
{
    const double z = 1.0 / (x * x);
    const double c[8] = {1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188, -691.0 / 360360, 1.0 / 156,
                         -3617.0 / 122400};
    double s = c[7];
    for (int k = 6; k >= 0; k--) s = fma(s, z, c[k]);
    return s / x;
}
/* lgamma for x in (0, 13) (x exact): the series and the recurrence */
ND_HOSTDEV static inline double nd_lgamma_mid(double x)
{
    if (x < 0.5) return nd_lgamma2p_series(x) - log1p(x) - log(x);
    if (x < 1.25) return nd_lgamma1p_series(x - 1.0);
    if (x <= 2.75) return nd_lgamma2p_series(x - 2.0);
    nd_dd p = nd_dd_make(1.0, 0.0);
    double y = x;
    while (y > 2.75) {
        y -= 1.0; /* exact */
        p = nd_dd_mul_d(p, y);
    }
    return nd_lgamma2p_series(y - 2.0) + (log(p.hi) + p.lo / p.hi);
}
/* lgamma(x) for x >= 13: Stirling */
ND_HOSTDEV static inline double nd_lgamma_big(double x)
{
    const double l = log(x);
    return (x - 0.5) * (l - 1.0) + (ND_LN_SQRT_2PI - 0.5 + nd_stirling_tail(x));
}
/* log|gamma(x)| and the sign of gamma(x) (SciPy's gammaln and its sign:
 * +inf at the poles, where the sign is +1, and -inf at -inf as SciPy) */
ND_HOSTDEV static inline double nd_lgamma_sgn_f64(double x, int *sgn)
{
    *sgn = 1;
    if (nd_isnan_f64(x)) return x;
    if (nd_isinf_f64(x)) return x;
    if (x > 0) {
        if (x < 13.0) return nd_lgamma_mid(x);
        return nd_lgamma_big(x);
    }
    if (x == 0 || nd_is_int_f64(x)) return (double)INFINITY;
    /* negative non-integer: the sign of gamma is (-1)^ceil(-x) */
    const double fl = floor(x);
    if (fmod(fl, 2.0) != 0) *sgn = -1;
    if (x > -0.5) return nd_lgamma1p_series(x) - log(-x); /* x + 1 would round */
    if (x > -13.0) {
        /* gamma(x) = gamma(x + n) / (x (x+1) ... (x+n-1)), x + n in (0, 1) */
        nd_dd p = nd_dd_make(1.0, 0.0);
        double y = x;
        while (y < 0) {
            p = nd_dd_mul_d(p, y);
            y += 1.0; /* exact: |y| shrinks */
        }
        const double ph = fabs(p.hi), pl = p.hi < 0 ? -p.lo : p.lo;
        return nd_lgamma_mid(y) - (log(ph) + pl / ph);
    }
    /* reflection: gamma(x) gamma(-x) = -pi / (x sin(pi x)) */
    const double s = fabs(nd_sinpi_f64(x));
    return log(ND_PI / (s * -x)) - nd_lgamma_big(-x);
}
ND_HOSTDEV static inline double nd_op_lgamma_f64(double x)
{
    int sg;
    return nd_lgamma_sgn_f64(x, &sg);
}
ND_HOSTDEV static inline float nd_op_lgamma_f32(float x) { return (float)nd_op_lgamma_f64((double)x); }

/* gamma(x) for x in (0, 50] */
ND_HOSTDEV static inline double nd_gamma_pos(double x)
{
    if (x < 0.5) return exp(nd_lgamma1p_series(x)) / x;
    if (x < 1.25) return exp(nd_lgamma1p_series(x - 1.0));
    if (x <= 2.75) return exp(nd_lgamma2p_series(x - 2.0));
    nd_dd p = nd_dd_make(1.0, 0.0);
    double y = x;
    while (y > 2.75) {
        y -= 1.0;
        p = nd_dd_mul_d(p, y);
    }
    const double g = exp(nd_lgamma2p_series(y - 2.0));
    return fma(g, p.hi, g * p.lo);
}
/* gamma(x) for x > 20: Stirling, x^(x-1/2) e^-x as (x^(x/2-1/4))^2 e^-x */
ND_HOSTDEV static inline double nd_gamma_big(double x)
{
    if (x > 171.625) return (double)INFINITY;
    const double c[9] = {1.0, 1.0 / 12, 1.0 / 288, -139.0 / 51840, -571.0 / 2488320, 163879.0 / 209018880,
                         5246819.0 / 75246796800.0, -534703531.0 / 902961561600.0, -4483131259.0 / 86684309913600.0};
    const double w = 1.0 / x;
    double s = c[8];
    for (int k = 7; k >= 0; k--) s = fma(s, w, c[k]);
    const double h = pow(x, 0.5 * x - 0.25);
    return ND_SQRT_2PI * s * (h * (h * exp(-x)));
}
ND_HOSTDEV static inline double nd_op_gamma_f64(double x)
{
    if (nd_isnan_f64(x)) return x;
    if (x == (double)INFINITY) return x;
    if (x == 0) return nd_signbit_bits_f64(x) ? -(double)INFINITY : (double)INFINITY;
    if (x > 0) return x <= 50.0 ? nd_gamma_pos(x) : nd_gamma_big(x);
    if (nd_is_int_f64(x)) return (double)NAN; /* the poles and -inf */
    if (x > -0.5) return exp(nd_lgamma1p_series(x)) / x; /* x + 1 would round */
    if (x > -20.0) {
        nd_dd p = nd_dd_make(1.0, 0.0);
        double y = x;
        while (y < 0) {
            p = nd_dd_mul_d(p, y);
            y += 1.0;
        }
        const double g = nd_gamma_pos(y);
        return g / p.hi * (1.0 - p.lo / p.hi);
    }
    /* reflection: gamma(x) = -pi / (x sin(pi x) gamma(-x)) */
    const double t = -ND_PI / (x * nd_sinpi_f64(x));
    if (-x <= 50.0) return t / nd_gamma_pos(-x);
    if (-x <= 171.6) return t / nd_gamma_big(-x);
    return t * exp(-nd_lgamma_big(-x)); /* subnormal or zero results */
}
ND_HOSTDEV static inline float nd_op_gamma_f32(float x) { return (float)nd_op_gamma_f64((double)x); }

/* ------------------------------------------------------------------ */
/* digamma                                                             */
/* ------------------------------------------------------------------ */
/* psi(x0 + t), x0 = 1.4616... its positive root, |t| <= 0.55 */
ND_HOSTDEV static inline double nd_digamma_root_series(double t)
{
    const double p[43] = {0x1.ef72bc8ee38acp-1, -0x1.c563b54aa1a35p-2, 0x1.08b4294d50381p-2, -0x1.4fc1317257da8p-3,
        0x1.b9a5b6370f3abp-4, -0x1.27baba261cc2cp-4, 0x1.8fce02b239ca7p-5, -0x1.0fa7ec36a7d8fp-5,
        0x1.723d6807edcc0p-6, -0x1.f970508e1b6a2p-7, 0x1.5955caaa962f3p-7, -0x1.d828079282eb8p-8,
        0x1.42e1acf81d8dcp-8, -0x1.b9afc7cee8a14p-9, 0x1.2e23345f79aafp-9, -0x1.9d626f71d1f7ap-10,
        0x1.1acebbd761089p-10, -0x1.82f6345c65b35p-11, 0x1.08bdae1a261d4p-11, -0x1.6a3fddea11304p-12,
        0x1.efacab6fb8985p-13, -0x1.531f5dc5eb563p-13, 0x1.d0080f810fab5p-14, -0x1.3d7972688af67p-14,
        0x1.b2691182c5c34p-15, -0x1.29357f7d6cb86p-15, 0x1.96ae4a8e32b49p-16, -0x1.163cc7373be8bp-16,
        0x1.7cb8b3916fd29p-17, -0x1.047a1894e0fdep-17, 0x1.646b54f410bdfp-18, -0x1.e7b34a5b78a3cp-19,
        0x1.4dab173747443p-19, -0x1.c891c9fca61dep-20, 0x1.385e9fcb1c6a8p-20, -0x1.ab6cff79188aap-21,
        0x1.246e3329dab55p-21, -0x1.902471b2c8ebdp-22, 0x1.11c399dbd8e73p-22, -0x1.7699ba6292b3ep-23,
        0x1.004a0788ae67ap-23, -0x1.5eb06413f882fp-24, 0x1.dfdc07776740ap-25};
    double s = p[42];
    for (int k = 41; k >= 0; k--) s = fma(s, t, p[k]);
    return s * t;
}
/* psi(x) for x >= 10: the asymptotic series */
ND_HOSTDEV static inline double nd_digamma_big(double x)
{
    const double z = 1.0 / (x * x);
    const double c[9] = {1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12,
                         -3617.0 / 8160, 43867.0 / 14364};
    double s = c[8];
    for (int k = 7; k >= 0; k--) s = fma(s, z, c[k]);
    return log(x) - (0.5 / x + s * z);
}
#define ND_PSI_X0_HI 0x1.762d86356be3fp+0
#define ND_PSI_X0_LO 0x1.b86a722197829p-54
#define ND_PSI_X0M1_HI 0x1.d8b618d5af8fep-2
#define ND_PSI_X0M1_LO -0x1.1e563779a1f5bp-56
#define ND_PSI_X0M2_HI -0x1.13a4f39528381p-1
#define ND_PSI_X0M2_LO -0x1.1e563779a1f5bp-56
ND_HOSTDEV static inline double nd_op_digamma_f64(double x)
{
    if (nd_isnan_f64(x)) return x;
    if (x == (double)INFINITY) return x;
    if (x == 0) return nd_signbit_bits_f64(x) ? (double)INFINITY : -(double)INFINITY;
    if (x >= 10.0) return nd_digamma_big(x);
    if (x < 0 && nd_is_int_f64(x)) return (double)NAN; /* the poles and -inf */
    if (fabs(x) < 0x1p-60) return -1.0 / x - ND_EULER; /* psi(x) = -1/x - gamma + O(x) */
    if (x <= -10.0) {
        /* psi(x) = psi(-x) - 1/x - pi cot(pi x) */
        return nd_digamma_big(-x) - 1.0 / x - ND_PI * nd_cospi_f64(x) / nd_sinpi_f64(x);
    }
    /* bring x into (1, 2]: psi(x) = psi(y) + sum of +-1/(...), in double-double */
    nd_dd acc = nd_dd_make(0.0, 0.0);
    double t;
    if (x > 2.0) {
        double y = x;
        while (y > 2.0) {
            y -= 1.0;
            acc = nd_dd_add(acc, nd_dd_recip(y));
        }
        t = (y - ND_PSI_X0_HI) - ND_PSI_X0_LO;
    } else if (x > 1.0) {
        t = (x - ND_PSI_X0_HI) - ND_PSI_X0_LO;
    } else if (x > 0.0) { /* y = x + 1 */
        acc = nd_dd_recip(-x);
        t = (x - ND_PSI_X0M1_HI) - ND_PSI_X0M1_LO;
    } else if (x > -1.0) { /* y = x + 2 */
        acc = nd_dd_add(nd_dd_recip(-x), nd_dd_recip(-(x + 1.0)));
        t = (x - ND_PSI_X0M2_HI) - ND_PSI_X0M2_LO;
    } else { /* y = x + n exact */
        double y = x;
        while (y <= 1.0) {
            acc = nd_dd_add(acc, nd_dd_recip(-y));
            y += 1.0;
        }
        t = (y - ND_PSI_X0_HI) - ND_PSI_X0_LO;
    }
    return nd_digamma_root_series(t) + acc.lo + acc.hi;
}
ND_HOSTDEV static inline float nd_op_digamma_f32(float x) { return (float)nd_op_digamma_f64((double)x); }

/* ------------------------------------------------------------------ */
/* Hurwitz zeta and polygamma                                          */
/* ------------------------------------------------------------------ */
/* SciPy's zeta(x, q) = sum_k (q + k)^-x */
ND_HOSTDEV static inline double nd_op_zeta_f64(double x, double q)
{
    if (x == 1.0) return (double)INFINITY;
    if (x < 1.0) return (double)NAN;
    if (q <= 0) {
        if (nd_is_int_f64(q)) return (double)INFINITY; /* a pole (and -inf), even for x NaN */
        if (!nd_is_int_f64(x)) return (double)NAN;      /* (q + k)^-x not real */
    }
    if (nd_isnan_f64(x) || nd_isnan_f64(q)) return x + q;
    /* x = inf: SciPy's values (NaN for 1 < q <= 1e8, where its sum meets inf * 0) */
    if (x == (double)INFINITY) return q < 1.0 ? (double)INFINITY : q == 1.0 ? 1.0 : q > 1e8 ? 0.0 : (double)NAN;
    if (q == (double)INFINITY) return 0.0;
    if (q > 1e8) return (1.0 / (x - 1.0) + 0.5 / q) * pow(q, 1.0 - x); /* DLMF 25.11.43 */
    /* Euler-Maclaurin: direct terms while q + N < 10 (at least 9), then
     * w^(1-x)/(x-1) + w^-x/2 + sum_j B_2j/(2j)! x(x+1)...(x+2j-2) w^(-x-2j+1) */
    double s = pow(q, -x), w = q, wl = 0, b = 0;
    int n = 0;
    while (n < 9 || w <= 9.0) {
        /* w + wl = q + n exactly: the rounding of q + n would cost x ulp */
        n++;
        const double w1 = w + 1.0, bb = w1 - w;
        wl += (w - (w1 - bb)) + (1.0 - bb);
        w = w1;
        b = pow(w, -x) * (1.0 - x * (wl / w));
        s += b;
        if (fabs(b) < 1e-17 * fabs(s)) return s;
    }
    /* B_2j / (2j)! */
    const double c[12] = {1.0 / 12, -1.0 / 720, 1.0 / 30240, -1.0 / 1209600, 1.0 / 47900160,
                          -691.0 / 1307674368000.0, 1.0 / 74724249600.0, -3617.0 / 10670622842880000.0,
                          43867.0 / 5109094217170944000.0, -174611.0 / 802857662698291200000.0,
                          77683.0 / 14101100039391805440000.0, -236364091.0 / 1693824136731743669452800000.0};
    s += b * w / (x - 1.0) - 0.5 * b;
    double a = 1.0, k = 0.0, bw = b;
    for (int j = 0; j < 12; j++) {
        a *= x + k;
        bw /= w;
        const double t = a * bw * c[j];
        s += t;
        if (fabs(t) < 1e-17 * fabs(s)) break;
        k += 1.0;
        a *= x + k;
        bw /= w;
        k += 1.0;
    }
    return s;
}
ND_HOSTDEV static inline float nd_op_zeta_f32(float x, float q) { return (float)nd_op_zeta_f64((double)x, (double)q); }
/* SciPy's polygamma(n, x): digamma for n == 0, else
 * (-1)^(n+1) gamma(n+1) zeta(n+1, x) (NaN for a non-integer n) */
ND_HOSTDEV static inline double nd_op_polygamma_f64(double n, double x)
{
    if (n == 0) return nd_op_digamma_f64(x);
    return pow(-1.0, n + 1.0) * nd_op_gamma_f64(n + 1.0) * nd_op_zeta_f64(n + 1.0, x);
}
ND_HOSTDEV static inline float nd_op_polygamma_f32(float n, float x)
{
    return (float)nd_op_polygamma_f64((double)n, (double)x);
}

/* ------------------------------------------------------------------ */
/* beta and betaln                                                     */
/* ------------------------------------------------------------------ */
#define ND_GAMMA_MAX 171.624376956302725
/* log|B(a, b)| for a > 1e6 |b|, a > 1e6: lgamma(b) - b log a + O(1/a) */
ND_HOSTDEV static inline double nd_lbeta_asym(double a, double b, int *sgn)
{
    double r = nd_lgamma_sgn_f64(b, sgn);
    r -= b * log(a);
    r += b * (1 - b) / (2 * a);
    r += b * (1 - b) * (1 - 2 * b) / (12 * a * a);
    r += -b * b * (1 - b) * (1 - b) / (12 * a * a * a);
    return r;
}
/* log|B(a, b)| (want_log) or B(a, b), SciPy's rules: a non-positive
 * integer argument gives +-B(1 - a - b, b) where that is finite (and b an
 * integer), else +inf */
ND_HOSTDEV static inline double nd_beta_impl(double a, double b, bool want_log, int depth)
{
    for (int pass = 0; pass < 2; pass++) {
        if (a <= 0 && nd_is_int_f64(a)) {
            /* SciPy's beta_negint: b an integer with 1 - a - b > 0 */
            if (!nd_isinf_f64(a) && nd_is_int_f64(b) && !nd_isinf_f64(b) && 1 - a - b > 0 && depth < 2) {
                const double r = nd_beta_impl(1 - a - b, b, want_log, depth + 1);
                if (want_log) return r;
                return fmod(b, 2.0) == 0 ? r : -r;
            }
            return (double)INFINITY;
        }
        const double t = a;
        a = b;
        b = t;
    }
    if (nd_isnan_f64(a) || nd_isnan_f64(b)) return a + b;
    if (fabs(a) < fabs(b)) {
        const double t = a;
        a = b;
        b = t;
    }
    int sgn = 1, s;
    if (fabs(a) > 1e6 * fabs(b) && a > 1e6) {
        const double y = nd_lbeta_asym(a, b, &s);
        if (want_log) return y;
        return s * exp(y);
    }
    const double y = a + b;
    if (a >= 13.0 && b > 0 && (want_log || y > ND_GAMMA_MAX)) {
        /* lgamma(a) - lgamma(a + b) by Stirling, without cancelling:
         * -b log(a + b) + b - (a - 1/2) log1p(b/a) + tail(a) - tail(a + b) */
        const double ye = (a - y) + b; /* a + b = y + ye exactly */
        const double d = (b - (a - 0.5) * log1p(b / a)) + (nd_stirling_tail(a) - nd_stirling_tail(y));
        const double r = nd_lgamma_sgn_f64(b, &s) + (d - b * (log(y) + ye / y));
        if (want_log) return r;
        return s * exp(r);
    }
    /* a + b = y + ye exactly (|a| >= |b|): gamma(a + b) = gamma(y) (1 + psi(y) ye),
     * as the rounding of a + b alone would cost psi(y) y ulp */
    const double ye = (a - y) + b;
    const double dl = ye != 0 && nd_isfinite_f64(y) ? nd_op_digamma_f64(y) * ye : 0.0;
    if (want_log || fabs(y) > ND_GAMMA_MAX || fabs(a) > ND_GAMMA_MAX || fabs(b) > ND_GAMMA_MAX) {
        double r = nd_lgamma_sgn_f64(a, &s);
        sgn *= s;
        r += nd_lgamma_sgn_f64(b, &s);
        sgn *= s;
        r -= nd_lgamma_sgn_f64(y, &s) + (nd_isnan_f64(dl) ? 0.0 : dl);
        sgn *= s;
        if (want_log) return r;
        return sgn * exp(r);
    }
    /* gamma at a pole is +inf here (the result is a signed zero) */
    const double gy = (y <= 0 && nd_is_int_f64(y)) ? (double)INFINITY : nd_op_gamma_f64(y), ga = nd_op_gamma_f64(a), gb = nd_op_gamma_f64(b);
    if (gy == 0) return (double)INFINITY;
    const double c = nd_isnan_f64(dl) ? 1.0 : 1.0 - dl;
    if (fabs(fabs(ga) - fabs(gy)) > fabs(fabs(gb) - fabs(gy))) return gb / gy * ga * c;
    return ga / gy * gb * c;
}
ND_HOSTDEV static inline double nd_op_beta_f64(double a, double b) { return nd_beta_impl(a, b, false, 0); }
ND_HOSTDEV static inline double nd_op_betaln_f64(double a, double b) { return nd_beta_impl(a, b, true, 0); }
ND_HOSTDEV static inline float nd_op_beta_f32(float a, float b) { return (float)nd_op_beta_f64((double)a, (double)b); }
ND_HOSTDEV static inline float nd_op_betaln_f32(float a, float b) { return (float)nd_op_betaln_f64((double)a, (double)b); }

/* ------------------------------------------------------------------ */
/* Regularised incomplete gamma functions                              */
/* ------------------------------------------------------------------ */
/* log1p(t) - t, accurate for small |t| */
ND_HOSTDEV static inline double nd_log1pmx(double t)
{
    if (fabs(t) > 0.25) return log1p(t) - t;
    /* -t^2/2 + t^3/3 - ... */
    double s = 0, p = -t * t;
    for (int k = 2; k < 60; k++) {
        const double term = p / k;
        s += term;
        if (fabs(term) < 1e-17 * fabs(s)) break;
        p *= -t;
    }
    return s;
}
/* x^a e^-x / gamma(a) */
ND_HOSTDEV static inline double nd_igam_fac(double a, double x)
{
    if (a < 10.0) {
        int s;
        return exp(a * log(x) - x - nd_lgamma_sgn_f64(a, &s));
    }
    /* sqrt(a / 2pi) exp(a (log(x/a) - x/a + 1)) / exp(Stirling's tail(a)):
     * log1p(t) - t (t = (x - a)/a) near a, else log(x/a) with x/a in
     * double-double */
    double e;
    if (x > 0.5 * a && x < 1.5 * a) {
        e = a * nd_log1pmx((x - a) / a);
    } else {
        const double q = x / a, r = fma(-q, a, x) / a;
        e = a * (q > 0x1p-1000 ? log(q) + r / q : log(x) - log(a)) - (x - a);
    }
    return sqrt(a / (2 * ND_PI)) * exp(e - nd_stirling_tail(a));
}
/* P(a, x) by its power series (x <= max(1, a)) */
ND_HOSTDEV static inline double nd_igam_series(double a, double x)
{
    const double f = nd_igam_fac(a, x);
    if (f == 0) return 0.0;
    double r = a, c = 1.0, s = 1.0;
    for (int k = 0; k < 100000; k++) {
        r += 1.0;
        c *= x / r;
        s += c;
        if (c <= 1.1e-16 * s) break;
    }
    return s * f / a;
}
/* Q(a, x) by its continued fraction (x > 1, x > a), modified Lentz */
ND_HOSTDEV static inline double nd_igamc_cf(double a, double x)
{
    const double f = nd_igam_fac(a, x);
    if (f == 0) return 0.0;
    const double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        const double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        const double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < 1.1e-16) break;
    }
    return f * h;
}
/* lgamma(1 + a) for a in [0, 1.5] */
ND_HOSTDEV static inline double nd_lgamma1p_small(double a)
{
    return a <= 0.5 ? nd_lgamma1p_series(a) : nd_lgamma2p_series(a - 1.0);
}
/* Q(a, x) for x <= 1.1 and a small, without cancelling against 1:
 * Q = -expm1(a log x - lgamma(1+a)) - x^a/gamma(a) sum_n>=1 (-x)^n/(n! (a+n)) */
ND_HOSTDEV static inline double nd_igamc_series(double a, double x)
{
    double s = 0, fac = 1;
    for (int n = 1; n < 200; n++) {
        fac *= -x / n;
        const double term = fac / (a + n);
        s += term;
        if (fabs(term) <= 1.1e-16 * fabs(s)) break;
    }
    const double lx = log(x);
    int sg;
    const double head = -expm1(a * lx - nd_lgamma1p_small(a));
    return head - exp(a * lx - nd_lgamma_sgn_f64(a, &sg)) * s;
}
/* Which form computes P and Q: 0 the series of P (Q = 1 - P), 1 the
 * continued fraction of Q (P = 1 - Q), 2 the series of Q for small x
 * (P = 1 - Q) */
ND_HOSTDEV static inline int nd_igam_form(double a, double x)
{
    if (x > 1.1) return x < a ? 0 : 1;
    if (x <= 0.5) return -0.4 / log(x) < a ? 0 : 2;
    return x * 1.1 < a ? 0 : 2;
}
/* SciPy's special values; 0 for "compute", else the result in *r */
ND_HOSTDEV static inline bool nd_igam_special(double a, double x, bool upper, double *r)
{
    if (nd_isnan_f64(a) || nd_isnan_f64(x) || a < 0 || x < 0) {
        *r = (double)NAN;
        return true;
    }
    if (a == 0) {
        *r = x > 0 ? (upper ? 0.0 : 1.0) : (double)NAN;
        return true;
    }
    if (x == 0) {
        *r = upper ? 1.0 : 0.0;
        return true;
    }
    if (nd_isinf_f64(a)) {
        *r = nd_isinf_f64(x) ? (double)NAN : (upper ? 1.0 : 0.0);
        return true;
    }
    if (nd_isinf_f64(x)) {
        *r = upper ? 0.0 : 1.0;
        return true;
    }
    return false;
}
ND_HOSTDEV static inline double nd_op_gammainc_f64(double a, double x)
{
    double r;
    if (nd_igam_special(a, x, false, &r)) return r;
    switch (nd_igam_form(a, x)) {
    case 0: return nd_igam_series(a, x);
    case 1: return 1.0 - nd_igamc_cf(a, x);
    default: return 1.0 - nd_igamc_series(a, x);
    }
}
ND_HOSTDEV static inline double nd_op_gammaincc_f64(double a, double x)
{
    double r;
    if (nd_igam_special(a, x, true, &r)) return r;
    switch (nd_igam_form(a, x)) {
    case 0: return 1.0 - nd_igam_series(a, x);
    case 1: return nd_igamc_cf(a, x);
    default: return nd_igamc_series(a, x);
    }
}
ND_HOSTDEV static inline float nd_op_gammainc_f32(float a, float x)
{
    return (float)nd_op_gammainc_f64((double)a, (double)x);
}
ND_HOSTDEV static inline float nd_op_gammaincc_f32(float a, float x)
{
    return (float)nd_op_gammaincc_f64((double)a, (double)x);
}

#endif /* ND_OPS_GAMMA_H */
