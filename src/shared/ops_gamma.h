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
 * blocks are exp, log, log1p, pow, sin, cos, sqrt, fma (the last in the
 * double-double products only: the polynomials are evaluated without it,
 * so that the CPU's vector lanes compute the scalar body's bits).
 *  - lgamma, gamma, digamma on [0.625, 10.125): fitted polynomials on 38
 *    pieces of width 1/4 (tools/gen_gamma_coeffs.py: f = a + t Q(t), Q of
 *    degree 15 in t = x - centre, exact; centred at the roots 1 and 2 of
 *    lgamma and 1.4616... of digamma where a piece holds one, so that the
 *    results keep their relative accuracy there), evaluated by Horner
 *    from a table; below 0.625 the piece of x + 1 (with t exact) and
 *    lgamma(x) = lgamma(x + 1) - log x, gamma(x) = gamma(x + 1)/x,
 *    psi(x) = psi(x + 1) - 1/x;
 *  - lgamma from 10.125: Stirling's series (8 terms, one division);
 *    negative x: the pieces (x > -0.375), the recurrence with a
 *    double-double product (x > -13), reflection below; the CPU's AVX2
 *    and AVX-512 kernels (src/cpu/vmath_special.c) compute the same
 *    formulas on libmvec's log;
 *  - gamma from 10.125: sqrt(2 pi) exp(Stirling's tail) x^(x-1/2) e^-x
 *    (one pow below 143, split in two above so that it does not overflow
 *    early), the recurrence with a double-double product (negative x above
 *    -20) or reflection (below);
 *  - digamma from 10.125: the asymptotic series (9 terms; the CPU's AVX2
 *    and AVX-512 kernels compute it on libmvec's log); negative x:
 *    recurrences with double-double sums of reciprocals into the pieces,
 *    reflection below -10;
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
 * 1.17.1's float64 worst on the same inputs. lgamma and digamma on the
 * CPU's AVX2 and AVX-512 paths run their vector kernels instead: float64
 * lgamma within 3.2 ulp, digamma within 2.0 ulp of the scalar body
 * (tests/test_vmath.c, src/cpu/vmath.h's table), float32 0.50.
 *
 *   max ulp     f64     f32    SciPy f64
 *   gamma       4.0     0.50   4.2
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
 *   beta        3.7     0.50   240
 *   betaln      985     0.50   1.7e6  (betaln near 0: its log terms cancel)
 *   gammainc    1.2e3   0.50   1.0e4  (large a, far tails)
 *   gammaincc   1.2e3   0.50   7.6e4
 *   zeta        3.8     0.50   12.4
 * (gamma: 3.98 at x = -148.2, reflection of the Stirling range; positive
 * x within 4.) tests/test_special_gamma.c holds float32 to 2 ulp and
 * float64 to max(4, SciPy's worst) - or ours where that is tighter; the
 * Bessel functions to 1 and 3.5 ulp - on the CPU and on cuda:0.
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
/* The fitted pieces of lgamma, gamma and digamma on [0.625, 10.125)   */
/* ------------------------------------------------------------------ */
/* The vector kernels of src/cpu/vmath_special.c inline these pieces into
 * their loops (a call would keep a loop scalar). */
#if defined(__GNUC__) && !defined(__CUDACC__)
#define ND_GAM_INL ND_HOSTDEV static inline __attribute__((always_inline))
#else
#define ND_GAM_INL ND_HOSTDEV static inline
#endif

/* pasted from the output of `python3 tools/gen_gamma_coeffs.py` */
/* generated by tools/gen_gamma_coeffs.py: a row of ND_GAM_NC + 4 a piece: chi, clo, a, Q highest degree first */
#define ND_GAM_NPIECE 38
#define ND_GAM_NC 16
/* lgamma: worst error of the double evaluation 1.39 ulp (301 points a piece) */
#define ND_GAM_TAB_LGAMMA \
    { \
        0x1.8000000000000p-1, 0.0, 0x1.a051c372609eep-3, -0x1.3f4a305209ee2p-58, 0x1.b8f83b12775d6p+2, -0x1.6084a54f3f12fp+2, 0x1.fef63a16288a1p+1, -0x1.9cbbecd427dc4p+1, 0x1.50c7f1f8cd978p+1, -0x1.138fc8072b1d0p+1, 0x1.c6b188b2ce474p+0, -0x1.7b04f2b2531bdp+0, 0x1.40037d45fa452p+0, -0x1.12bd3751150b4p+0, 0x1.e2ab46749a2b3p-1, -0x1.b69daccfae755p-1, 0x1.a59e099b26a38p-1, -0x1.c47dca479e2dbp-1, 0x1.455c4ff28f0bfp+0, -0x1.15fafa86b04dbp+0, \
        0x1.0000000000000p+0, 0.0, 0.0, 0.0, 0x1.0eb6c284a4bc2p-4, -0x1.20a5b41c181d3p-4, 0x1.2436348069975p-4, -0x1.3ab7432a77d4cp-4, 0x1.556c1f1ecdd21p-4, -0x1.748d8f3d4ecfcp-4, 0x1.9a01e11b3e3b8p-4, -0x1.c8066dde902b0p-4, 0x1.010b36b0c1b80p-3, -0x1.2703a1de382d6p-3, 0x1.5b40cb100b927p-3, -0x1.a8b9c17aa56d7p-3, 0x1.151322ac7d849p-2, -0x1.9a4d55beab2d8p-2, 0x1.a51a6625307d3p-1, -0x1.2788cfc6fb619p-1, \
        0x1.4000000000000p+0, 0.0, -0x1.92857d38caf41p-4, -0x1.d1f2d031dc189p-58, 0x1.ddf5ed6a7dadfp-10, -0x1.3e93d7260ff7dp-9, 0x1.9ba76c682c321p-9, -0x1.15231a1b5d265p-8, 0x1.77a14216ecab1p-8, -0x1.004af5d68ab85p-7, 0x1.60db2477e4f3dp-7, -0x1.eb3c28e810576p-7, 0x1.5ae76b3d0772dp-6, -0x1.f39b6d9e9930fp-6, 0x1.71ef365f268a2p-5, -0x1.1de1433c2974bp-4, 0x1.dad1b9fd7bfc9p-4, -0x1.c533afa1c090bp-3, 0x1.328429d927c67p-1, -0x1.d1d32879af85dp-3, \
        0x1.8000000000000p+0, 0.0, -0x1.eeb95b094c191p-4, -0x1.346863f58b075p-58, 0x1.9936f028e5b99p-14, -0x1.475f90485b879p-13, 0x1.00b3c66895d1ap-12, -0x1.9ee52bf59a876p-12, 0x1.517c75cada7c6p-11, -0x1.148a479f8c45ep-10, 0x1.c9735acfd8393p-10, -0x1.7edb811abc88ep-9, 0x1.456f1ad66d441p-8, -0x1.1a8ba4f0ef9c8p-7, 0x1.f9ca39daa9281p-7, -0x1.da59d5374a52ep-6, 0x1.e0f840dad61dap-5, -0x1.1ae55b180726cp-3, 0x1.de9e64df22ef3p-2, 0x1.2aed059bd608ap-5, \
        0x1.c000000000000p+0, 0.0, -0x1.59b4fd6875a6ep-4, -0x1.8611cf72ebf19p-59, 0x1.1433b60457f6cp-17, -0x1.01dc66e1b1704p-16, 0x1.db1a1077f2b3dp-16, -0x1.c0296c53a60e9p-15, 0x1.a994d2dcb071ep-14, -0x1.974f6d48da401p-13, 0x1.89b15e19bfb23p-12, -0x1.815ca058c8667p-11, 0x1.7f89d0ae7d289p-10, -0x1.8689d06705279p-9, 0x1.9aef3265ad3b7p-8, -0x1.c69a305c523acp-7, 0x1.112f9cdb80001p-5, -0x1.7f95d3d17c5a9p-4, 0x1.87385c3c034c4p-2, 0x1.fad2d675283d3p-3, \
        0x1.0000000000000p+1, 0.0, 0.0, 0.0, 0x1.03fb4c5ea8397p-20, -0x1.157fb9e8843e6p-19, 0x1.2591cafa6ffb4p-18, -0x1.3cb6651ee3bb7p-17, 0x1.580dd3da80ecfp-16, -0x1.78de6116cdc5dp-15, 0x1.a127b0ef2a8a8p-14, -0x1.d3fd4c745cf93p-13, 0x1.0b36af8639ba5p-11, -0x1.38ac5c2bf930bp-10, 0x1.7add6eadb6c2fp-9, -0x1.e404fc218f5f1p-8, 0x1.51322ac7d8483p-6, -0x1.13e001a557607p-4, 0x1.4a34cc4a60fa6p-2, 0x1.b0ee6072093cep-2, \
        0x1.0000000000000p+1, 0.0, 0.0, 0.0, 0x1.603bd402a2ffap-23, -0x1.0eda34b2af7dcp-20, 0x1.c7c09bc7e3a4ap-19, -0x1.257d32f658275p-17, 0x1.51cbfb9594827p-16, -0x1.7790b2df53c24p-15, 0x1.a0f14be428054p-14, -0x1.d3f651a439948p-13, 0x1.0b3655423587bp-11, -0x1.38ac5507445aep-10, 0x1.7add6e3db29b6p-9, -0x1.e404fc1c5bba3p-8, 0x1.51322ac7c1a33p-6, -0x1.13e001a5571c6p-4, 0x1.4a34cc4a60f9ep-2, 0x1.b0ee6072093cep-2, \
        0x1.4000000000000p+1, 0.0, 0x1.2383e809a67e8p-2, -0x1.823fe323a5c09p-56, 0x1.d374e8cebe372p-26, -0x1.3834d1115f03ep-24, 0x1.9f913992e9506p-23, -0x1.18c598eed1554p-21, 0x1.7e47397b8a442p-20, -0x1.06a7f6aebe05ap-18, 0x1.6d28afc006bf2p-17, -0x1.01a8f9b0a3b08p-15, 0x1.72e00847c2a24p-14, -0x1.123653d59f5b5p-12, 0x1.a54d1cabdc3cbp-11, -0x1.56b48947b3c37p-9, 0x1.31b4c4359dfe5p-7, -0x1.427f4cc53f5f0p-5, 0x1.f62057f7296c9p-3, 0x1.680425af12b5ep-1, \
        0x1.6000000000000p+1, 0.0, 0x1.e69eac73eab05p-2, -0x1.057db2faf97ffp-58, 0x1.974dd5a0e0388p-28, -0x1.2b765825aa27ep-26, 0x1.b791b804c6c26p-25, -0x1.47180570f2dd0p-23, 0x1.eaa87a9045526p-22, -0x1.7396f8965c65cp-20, 0x1.1cde8d900f6ecp-18, -0x1.bbab5d0ca590ap-17, 0x1.60b2b1f2d848ep-15, -0x1.20595481ee038p-13, 0x1.ea8360b790b08p-12, -0x1.ba7d3b200ea5ep-10, 0x1.b696cf9da0419p-8, -0x1.01a88b861cc80p-5, 0x1.c012ae051644fp-3, 0x1.a346fec1dc587p-1, \
        0x1.8000000000000p+1, 0.0, 0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56, 0x1.95b4531afb11ap-30, -0x1.45af5601504d6p-28, 0x1.055977ae4b167p-26, -0x1.a8e365be3d166p-25, 0x1.5c3cc8fa4c8ddp-23, -0x1.205124d4e27f5p-21, 0x1.e385d5f8d94efp-20, -0x1.9c1b55f6bce3dp-18, 0x1.66d5f0c72dd32p-16, -0x1.41a130766976dp-14, 0x1.2c40cac30b6d4p-12, -0x1.29ad8a1fd7160p-10, 0x1.44c8ab1f6120ep-8, -0x1.a4d55beab2d6fp-6, 0x1.94699894c1f4dp-3, 0x1.d8773039049e7p-1, \
        0x1.a000000000000p+1, 0.0, 0x1.df216e434a8ecp-1, 0x1.798367e4e8fbep-56, 0x1.c432e17912430p-32, -0x1.89a282e6acc9ap-30, 0x1.56e9f3c890c0ep-28, -0x1.2e68ee734150fp-26, 0x1.0cfbbe67270bcp-24, -0x1.e39013dc3449cp-23, 0x1.b86eb696d85c8p-21, -0x1.97f89dd71969dp-19, 0x1.82568cae4f9e1p-17, -0x1.78e71bff7120fp-15, 0x1.7f549c31e0e3bp-13, -0x1.9e80723be7d0dp-11, 0x1.ede2fea1dad45p-9, -0x1.5df43307a7ccdp-6, 0x1.706ef688253b6p-3, 0x1.0459842f5df88p+0, \
        0x1.c000000000000p+1, 0.0, 0x1.3373018970a36p+0, -0x1.1f8a93cc89ef5p-54, 0x1.1559c0740606cp-33, -0x1.0444e353b9c8ap-31, 0x1.e94e7c6194466p-30, -0x1.d1669654fa8d1p-28, 0x1.be9b530636750p-26, -0x1.b14399c9bedb0p-24, 0x1.aa163518b72a8p-22, -0x1.aa5f60812286dp-20, 0x1.b471a24b9d3cap-18, -0x1.cc91773747f4ap-16, 0x1.fb1924e598dcep-14, -0x1.29143cf153aa7p-11, 0x1.7ff6b372ef93bp-9, -0x1.27781d4bb093ap-6, 0x1.52494db9b8c8cp-3, 0x1.1a68793defc15p+0, \
        0x1.e000000000000p+1, 0.0, 0x1.7c9ff21d3df69p+0, 0x1.d7a618f4e9a57p-54, 0x1.71864957c81d5p-35, -0x1.73ef943c9d4fcp-33, 0x1.774b2ec8847eap-31, -0x1.7f0a94119d1c8p-29, 0x1.8a8bc2bc69f9ap-27, -0x1.9afc680aff84fp-25, 0x1.b227f2ddf8867p-23, -0x1.d2e25ec7a17e9p-21, 0x1.00eeca7ea14d0p-18, -0x1.23b55257e87dfp-16, 0x1.59c9bea86362bp-14, -0x1.b489d106fbe8cp-12, 0x1.3039996d27941p-9, -0x1.f96d28c6319a5p-7, 0x1.38ab02a5e1608p-3, 0x1.2ebac53262895p+0, \
        0x1.0000000000000p+2, 0.0, 0x1.cab0bfa2a2002p+0, 0x1.9136fea076849p-55, 0x1.088a68689b733p-36, -0x1.1c55d1cb4d4ebp-34, 0x1.3293e9e22001ep-32, -0x1.4e48aef62553cp-30, 0x1.6ff2427b5b832p-28, -0x1.99b35aa4b51c2p-26, 0x1.ceccc6e98694dp-24, -0x1.0a33c57183c8dp-21, 0x1.3992b08f31c19p-19, -0x1.7d39f12160b5ap-17, 0x1.e430b5d8add23p-15, -0x1.47afa062b4a07p-12, 0x1.ea0c8ce2a7476p-10, -0x1.b51fa807f70fep-7, 0x1.22a27c22fad85p-3, 0x1.4190ed71d7a49p+0, \
        0x1.1000000000000p+2, 0.0, 0x1.0ea6864c19994p+1, 0x1.be57eb4b99ae7p-53, 0x1.938285486c995p-38, -0x1.cd55f3e015799p-36, 0x1.08b679c59388ap-33, -0x1.33265c3273674p-31, 0x1.67dae8b7a763bp-29, -0x1.aa9ee80c0e6a6p-27, 0x1.00a1c5b0700edp-24, -0x1.3a8cb6ef8386ap-22, 0x1.8aef027435407p-20, -0x1.0000cb2c47cdbp-17, 0x1.5ae6e7364559fp-15, -0x1.f53f5602029cbp-13, 0x1.905b3ee70c1c1p-10, -0x1.7db93ef273c2dp-7, 0x1.0f7c989d5a3ffp-3, 0x1.531e707e22e4dp+0, \
        0x1.2000000000000p+2, 0.0, 0x1.3a140a3a623cbp+1, -0x1.1c5fb3c9de136p-53, 0x1.457c537816a46p-39, -0x1.8a79c7c43bbfep-37, 0x1.e01fdbe2d7ab5p-35, -0x1.2762ac37d3337p-32, 0x1.6f1362bd507adp-30, -0x1.cdb66fad12d49p-28, 0x1.26c289765af2cp-25, -0x1.7f8b6cb4cb74cp-23, 0x1.ff6b3965c3d2fp-21, -0x1.6034f0618cc98p-18, 0x1.fb48a22d92b13p-16, -0x1.85bbe1d4addd6p-13, 0x1.4b33e11647379p-10, -0x1.502eac88f330bp-7, 0x1.fd639639f967bp-4, 0x1.638d0b871453ap+0, \
        0x1.3000000000000p+2, 0.0, 0x1.677f44aba1adcp+1, 0x1.0b620b67b866ap-54, 0x1.14029cdea0eecp-40, -0x1.6181e1d789e8dp-38, 0x1.c6e4d4d9bbbf2p-36, -0x1.27dba92aa095dp-33, 0x1.84c2059d6e713p-31, -0x1.0294c9f332c6ap-28, 0x1.5d46add8b5164p-26, -0x1.e0efae1a5ac54p-24, 0x1.5369b8eaaf937p-21, -0x1.ef0ac80f99791p-19, 0x1.79a797c97c528p-16, -0x1.337bfa746e21fp-13, 0x1.150c56a6587b3p-10, -0x1.2a4cdf25b76e4p-7, 0x1.dfb35186ecda0p-4, 0x1.72ff0976a6cd9p+0, \
        0x1.4000000000000p+2, 0.0, 0x1.96ca77c922cf9p+1, -0x1.30bfc76afc5dep-53, 0x1.e99818c8c61a9p-42, -0x1.4a69f27c56214p-39, 0x1.c03fae21a86c2p-37, -0x1.3355fe2214a07p-34, 0x1.a9ced12686384p-32, -0x1.2ab21a50f47fcp-29, 0x1.a9996a7f7a3e5p-27, -0x1.352c646fb63c6p-24, 0x1.cc9584798e0bcp-22, -0x1.629e9ff339b18p-19, 0x1.1db6c106b0f9bp-16, -0x1.eb8b4e579f4e7p-14, 0x1.d41919c54e8ecp-11, -0x1.0a74fd5d4c654p-7, 0x1.c544f845f5b0bp-4, 0x1.8190ed71d7a49p+0, \
        0x1.5000000000000p+2, 0.0, 0x1.c7db2a73efc17p+1, -0x1.709dcf306961ep-53, 0x1.c42b73e626d67p-43, -0x1.40c8613e9dce7p-40, 0x1.c9a033eeb4c86p-38, -0x1.49ee7acca85e0p-35, 0x1.e0c0348fbf9e8p-33, -0x1.62be93d632ea0p-30, 0x1.09e8428e65e7ep-27, -0x1.9691d77015669p-25, 0x1.3ec868e9a0c95p-22, -0x1.026f41db9aefep-19, 0x1.b69c41c069703p-17, -0x1.8d8248577dfebp-14, 0x1.8ef6e39d866b3p-11, -0x1.dee01b57d5946p-8, 0x1.ad96ddf67f59cp-4, 0x1.8f5aacba5f211p+0, \
        0x1.6000000000000p+2, 0.0, 0x1.fa99a5e94985ap+1, -0x1.f42fe9dcfbd29p-53, 0x1.b13922491d0b8p-44, -0x1.4257714517deep-41, 0x1.e2715820cc944p-39, -0x1.6ce6e37a0f9c0p-36, 0x1.16f3b48d8e0b9p-33, -0x1.b008fa4aacaf7p-31, 0x1.53ec64630a9e5p-28, -0x1.10d4c2414d971p-25, 0x1.c148551e6c2c5p-23, -0x1.7e931b81ca48cp-20, 0x1.5516d76840913p-17, -0x1.44deba1f01472p-14, 0x1.56c4277746d5ep-11, -0x1.b0a2a509f0ae7p-8, 0x1.9840d2469dc03p-4, 0x1.9c7099bff7e1ep+0, \
        0x1.7000000000000p+2, 0.0, 0x1.1778468a0d888p+2, 0x1.f1603b91a1fe5p-52, 0x1.ad2f758a70fc0p-45, -0x1.4e397df041b7bp-42, 0x1.05d8cb8737149p-39, -0x1.9ead1d72d26bep-37, 0x1.4bea7c6ed0d34p-34, -0x1.0d2afd49f0e88p-31, 0x1.bba2bea2bfbebp-29, -0x1.75050ee09bf69p-26, 0x1.41d0df6c5a8dep-23, -0x1.1f320d3e018b7p-20, 0x1.0c69963efa6c9p-17, -0x1.0c0df7a9d0bb9p-14, 0x1.289f0357e6675p-11, -0x1.88c417bef92b4p-8, 0x1.84ee2d5c60710p-4, 0x1.a8e416efea2bep+0, \
        0x1.8000000000000p+2, 0.0, 0x1.326643c4479c9p+2, 0x1.a53c2789a6631p-53, 0x1.b663aedee10c4p-46, -0x1.649fdee9ff0a1p-43, 0x1.23ef617d00feep-40, -0x1.e311d733fecdfp-38, 0x1.941032e867315p-35, -0x1.567997b1f647cp-32, 0x1.2705b19f9126ep-29, -0x1.0359970b8db0bp-26, 0x1.d3f2595a15209p-24, -0x1.b4c58e443b729p-21, 0x1.ab0713fc71a48p-18, -0x1.be37a89880eb3p-15, 0x1.0262026c6c756p-11, -0x1.6626bc9b31b55p-8, 0x1.735973273d5ecp-4, 0x1.b4c420a50ad7cp+0, \
        0x1.9000000000000p+2, 0.0, 0x1.4e0dfde18c6e8p+2, -0x1.ee792c656eb66p-60, 0x1.cc8a2fe048840p-47, -0x1.86abbb745a31dp-44, 0x1.4d8fe03d4923ep-41, -0x1.1fd85b097b47ap-38, 0x1.f64f32583f44fp-36, -0x1.bc2c244017095p-33, 0x1.8f3ef5bc15e29p-30, -0x1.6e45175ad3127p-27, 0x1.58e3f5ad91367p-24, -0x1.500ec4f3b64c8p-21, 0x1.570f189adff45p-18, -0x1.765d8c804cb05p-15, 0x1.c4dcc5ccc1091p-12, -0x1.47e8aab7946aap-8, 0x1.634914879f473p-4, 0x1.c01db8eb222d4p+0, \
        0x1.a000000000000p+2, 0.0, 0x1.6a676ab2aa095p+2, -0x1.255bd9aa1e19bp-52, 0x1.f07b9a8ab1eb0p-48, -0x1.b676ddeab7fdbp-45, 0x1.85d451962af8cp-42, -0x1.5e4b192ce4e63p-39, 0x1.3e4d36879c5dap-36, -0x1.252796bf6f85cp-33, 0x1.127c59a731c7fp-30, -0x1.06589ac486977p-27, 0x1.0166f8f6d021ep-24, -0x1.0560e295b2af9p-21, 0x1.161cbdc3094a8p-18, -0x1.3c62ad5fb2e2ap-15, 0x1.8f0e4c0781343p-12, -0x1.2d5563b5604d0p-8, 0x1.548cfc97034dfp-4, 0x1.cafc3ca8b2106p+0, \
        0x1.b000000000000p+2, 0.0, 0x1.876b2a7cb2405p+2, -0x1.31edf4e2ec4c4p-52, 0x1.1216294460c73p-48, -0x1.f73ebe7cb98e9p-46, 0x1.d1310f24598cbp-43, -0x1.b29d08a31dee2p-40, 0x1.9aa5d3d4b88e9p-37, -0x1.894f6f82732e2p-34, 0x1.7f044649a3da7p-31, -0x1.7cca6f1c77101p-28, 0x1.84aed16af5c88p-25, -0x1.9aa982e2b8d29p-22, 0x1.c6b49ba76229ep-19, -0x1.0d307c13fa379p-15, 0x1.616e7d249c8b7p-12, -0x1.15db50819cb5bp-8, 0x1.46fcb1f54c99bp-4, 0x1.d569a7a2006ebp+0, \
        0x1.c000000000000p+2, 0.0, 0x1.a51273acf01cap+2, -0x1.f67618ce3bfbdp-53, 0x1.3565d14b7f24ap-49, -0x1.26d9e15fa5002p-46, 0x1.1afa4022ae260p-43, -0x1.127cdddef8d5dp-40, 0x1.0d4bf1b50a639p-37, -0x1.0bd8381db9b45p-34, 0x1.0ee4b3698fe72p-31, -0x1.17bca19cf57fcp-28, 0x1.289d7d499b0e8p-25, -0x1.459737e3fc278p-22, 0x1.7698bfe8f7e30p-19, -0x1.ccec0d22adfaap-16, 0x1.3a7e7cf2219bbp-12, -0x1.0103f8a7d60ddp-8, 0x1.3a75e4ee59d09p-4, 0x1.df6ecb4fb5827p+0, \
        0x1.d000000000000p+2, 0.0, 0x1.c35701a50ff06p+2, -0x1.85af1ab8d6b92p-54, 0x1.6484a69bc206bp-50, -0x1.603a941470878p-47, 0x1.5e8221fcd9928p-44, -0x1.6087edd90e717p-41, 0x1.66a696224bce8p-38, -0x1.71f08e0e00482p-35, 0x1.840ed46cb0e72p-32, -0x1.9faa2ecacba17p-29, 0x1.c93983bb33a24p-26, -0x1.045b9292c4e95p-22, 0x1.36d16671ec674p-19, -0x1.8ce31ae903175p-16, 0x1.19104ebb3ca74p-12, -0x1.dcdc59679444ap-9, 0x1.2edb4eb166c0dp-4, 0x1.e9137b7a7e563p+0, \
        0x1.e000000000000p+2, 0.0, 0x1.e233060e41f7fp+2, 0x1.3cf483b899ae1p-52, 0x1.a2c3b8bd32f1fp-51, -0x1.ac6487e0858ebp-48, 0x1.b979691d9e63cp-45, -0x1.cbd4c87c8a2e2p-42, 0x1.e4827cc7b172cp-39, -0x1.02d210f586540p-35, 0x1.193c6adb1a54bp-32, -0x1.38145d1fb3b3cp-29, 0x1.63aa8b1bae9d0p-26, -0x1.a3b5b7ee0c64ap-23, 0x1.039e9921c307dp-19, -0x1.5794be03fe9b9p-16, 0x1.f86738e0ada21p-13, -0x1.bb9333dc52ae9p-9, 0x1.2413cda19dd03p-4, 0x1.f25eb2d014869p+0, \
        0x1.f000000000000p+2, 0.0, 0x1.00d08e2072be8p+3, 0x1.af6bc9b890522p-51, 0x1.f4c2cd10734ffp-52, -0x1.08ea49ec2a547p-48, 0x1.1a65aaaa48ac3p-45, -0x1.30431f7ea24c8p-42, 0x1.4ba6503fa4ad7p-39, -0x1.6e94479dff004p-36, 0x1.9c22374067b73p-33, -0x1.d939c8aa1707cp-30, 0x1.170e40a29b6c6p-26, -0x1.54cf9def645d3p-23, 0x1.b467dd180f410p-20, -0x1.2aeb7c15dbf73p-16, 0x1.c64f116e23486p-13, -0x1.9da6ce07fd275p-9, 0x1.1a09b033ce882p-4, 0x1.fb56b11d42cd8p+0, \
        0x1.0000000000000p+3, 0.0, 0x1.10ce1f32dcc30p+3, -0x1.a6cba31db10b8p-52, 0x1.30768604f336dp-52, -0x1.4cd248e0d3088p-49, 0x1.6e9848a32c61ap-46, -0x1.9821c5127e151p-43, 0x1.cbb71b14a1d24p-40, -0x1.06907b3c188bap-36, 0x1.311705d25b55ep-33, -0x1.6a16a09eb80f1p-30, 0x1.b96d7ee8a2b63p-27, -0x1.16aa34a9138d2p-23, 0x1.70ea8377bb956p-20, -0x1.0546c8a685c79p-16, 0x1.9aa036fc773f8p-13, -0x1.82a72a4875205p-9, 0x1.10aa239ffbc61p-4, 0x1.02008a3a23e5dp+1, \
        0x1.0800000000000p+3, 0.0, 0x1.210fde03cb7cdp+3, -0x1.0e0be0f363fd3p-51, 0x1.78167e43fe819p-53, -0x1.a853b34b9cd83p-50, 0x1.e274aa040523fp-47, -0x1.1538eef6134fep-43, 0x1.425a4fb5641bfp-40, -0x1.7c25d266ab878p-37, 0x1.c80e9c349ae01p-34, -0x1.176fa2352f31ep-30, 0x1.5fc6d46d1d24ap-27, -0x1.caa9a7b850043p-24, 0x1.398ed99ced635p-20, -0x1.cabd5074e62a0p-17, 0x1.745c938cba2bfp-13, -0x1.6a35e8bfb0ca7p-9, 0x1.07e4be6858724p-4, 0x1.0631771e59a6bp+1, \
        0x1.1000000000000p+3, 0.0, 0x1.319398ed5be28p+3, 0x1.d2500f48436f5p-51, 0x1.d777f988159b3p-54, -0x1.1241e6641d577p-50, 0x1.4193583d38f3bp-47, -0x1.7d1d945cb7448p-44, 0x1.c90b6a0fef8e1p-41, -0x1.15f4a67a2d778p-37, 0x1.57f371269e394p-34, -0x1.b2c8a2761b3e9p-31, 0x1.1a51ef74c6851p-27, -0x1.7bc37d302e2bep-24, 0x1.0bdd598d81c1ap-20, -0x1.945da83b385f5p-17, 0x1.52b3cac6b24bap-13, -0x1.54030f0c15988p-9, 0x1.ff564160d0acep-5, 0x1.0a406a791b545p+1, \
        0x1.1800000000000p+3, 0.0, 0x1.42574144c2f81p+3, 0x1.719687e3cfc75p-57, 0x1.2ba7346826e5dp-54, -0x1.6729c68a96bb5p-51, 0x1.b1e78b4f299d7p-48, -0x1.08ec64dbbcea6p-44, 0x1.475cd0950283ep-41, -0x1.9a4e56370099ap-38, 0x1.059c8c9b943b5p-34, -0x1.54d0a382c5730p-31, 0x1.c82c715b34aa6p-28, -0x1.3c3cd936edbb1p-24, 0x1.cbd9dd5a68541p-21, -0x1.65ce7635e60a1p-17, 0x1.34f9eabe4d332p-13, -0x1.3fca7a6118399p-9, 0x1.efe14ba05abb8p-5, 0x1.0e2f7996e3774p+1, \
        0x1.2000000000000p+3, 0.0, 0x1.5358e82fcb70dp+3, -0x1.6b4ae43602456p-51, 0x1.81ecd6e24b4c8p-55, -0x1.dc279c958294dp-52, 0x1.2818151af4495p-48, -0x1.743867da73608p-45, 0x1.d98716fbf8d20p-42, -0x1.3187be64197f7p-38, 0x1.9128e4163a28fp-35, -0x1.0d10cf7653aedp-31, 0x1.72dafdd1456c6p-28, -0x1.08c2202d94d12p-24, 0x1.8c7fb19a21d57p-21, -0x1.3dc0c4803ec25p-17, 0x1.1aa036fc773f8p-13, -0x1.2d51d4f31fcafp-9, 0x1.e154473ff78c3p-5, 0x1.12008a3a23e5dp+1, \
        0x1.2800000000000p+3, 0.0, 0x1.6496bbd92dec3p+3, 0x1.6aa3f976674aap-53, 0x1.f738db32d6180p-56, -0x1.3f4d383800b5bp-52, 0x1.987b953503729p-49, -0x1.081b61bde7a4dp-45, 0x1.59a159f4d5121p-42, -0x1.cad6681de1492p-39, 0x1.35e69eeb42a15p-35, -0x1.abb54e49c0deap-32, 0x1.2f474e649b270p-28, -0x1.bd92adf8490ddp-25, 0x1.5753d2177673ep-21, -0x1.1b25338e04e3ap-17, 0x1.032f88ebeaf99p-13, -0x1.1c66f1712257dp-9, 0x1.d39b6989eeb7ep-5, 0x1.15b5581697b63p+1, \
        0x1.3000000000000p+3, 0.0, 0x1.760f04f64ba68p+3, -0x1.607881c904a54p-54, 0x1.4bf25339574e4p-56, -0x1.b0f36e90d93c4p-53, 0x1.1ca696f07614ep-49, -0x1.7a5778c3c841ap-46, 0x1.fcf212b8ebfd7p-43, -0x1.5b446ee35111bp-39, 0x1.e23acf1fe88a7p-36, -0x1.561c4ce9330ecp-32, 0x1.f2cded5f7ff81p-29, -0x1.78bd04f59a348p-25, 0x1.2a7adc54d8855p-21, -0x1.fa3d1ea02d214p-18, 0x1.dc87c8751bb0dp-14, -0x1.0cde7668d11c4p-9, 0x1.c6a517beb619ep-5, 0x1.194f79882a636p+1, \
        0x1.3800000000000p+3, 0.0, 0x1.87c024930e534p+3, 0x1.cac06c4634e85p-51, 0x1.bad040d771c67p-57, -0x1.2895da12f6558p-53, 0x1.909050e1ff000p-50, -0x1.116c7d2ad864cp-46, 0x1.79cd594bcff5ap-43, -0x1.08cc9a21d5175p-39, 0x1.79bbdc6b02cd1p-36, -0x1.134b5f3388c26p-32, 0x1.9c5d2e7700b19p-29, -0x1.3ffc61c63a102p-25, 0x1.0479e93a1f5a5p-21, -0x1.c5eefc016c4c6p-18, 0x1.b711ee23e2eccp-14, -0x1.fd259166d5553p-10, 0x1.ba619bdfe25c4p-5, 0x1.1cd063a584615p+1, \
        0x1.4000000000000p+3, 0.0, 0x1.99a8921a7f7cfp+3, 0x1.2c1f5d62d30afp-51, 0x1.2a7a04dd75b3cp-57, -0x1.9a5b91d0ca094p-54, 0x1.1c6e20da833a4p-50, -0x1.8e8fe0b609b87p-47, 0x1.1aa455b33ba19p-43, -0x1.96b458defdb13p-40, 0x1.29c7ce587ffaap-36, -0x1.bd96c5905d4e3p-33, 0x1.569cd7846210fp-29, -0x1.10f416da0f6afp-25, 0x1.c8422cbad1424p-22, -0x1.9835043b504acp-18, 0x1.956ea09e4ab25p-14, -0x1.e2c64fe244bc7p-10, 0x1.aec2e54649b87p-5, 0x1.20396dc85cc95p+1, \
    }
/* gamma: worst error of the double evaluation 1.04 ulp (301 points a piece) */
#define ND_GAM_TAB_GAMMA \
    { \
        0x1.8000000000000p-1, 0.0, 0x1.39b4e8b50f62cp+0, 0x1.3d7a9256698c6p-59, 0x1.29aece79a97fcp+7, -0x1.be8621f661ff7p+6, 0x1.29ae9d1bb5d16p+6, -0x1.be85753d15f19p+5, 0x1.50c704e531a76p+5, -0x1.f927b2f095ee4p+4, 0x1.7acc0b195d4e4p+4, -0x1.1c10624e91ae6p+4, 0x1.a9fae2bc34158p+3, -0x1.3f46ca76efe90p+3, 0x1.de3e5b94e55d5p+2, -0x1.654d2d198de23p+2, 0x1.0a7dec1710cc6p+2, -0x1.848f9b1ed92fap+1, 0x1.23d2d49d04347p+1, -0x1.54a44d76e2751p+0, \
        0x1.0000000000000p+0, 0.0, 0x1.0000000000000p+0, 0.0, 0x1.109bfa5971bf9p+0, -0x1.109b787598adcp+0, 0x1.ff216a5b2a981p-1, -0x1.ff1d6c9b6a1ccp-1, 0x1.fff2f3ac79468p-1, -0x1.ffe300fa15ef8p-1, 0x1.ffc07ea5468b2p-1, -0x1.ff8037f08f959p-1, 0x1.ff07b5a714609p-1, -0x1.fdf3f15d4c0ccp-1, 0x1.fc7e0a6eb045ap-1, -0x1.f6c80ec3889c9p-1, 0x1.f6a51055096bep-1, -0x1.d0a118f324b6bp-1, 0x1.fa658c23b1578p-1, -0x1.2788cfc6fb619p-1, \
        0x1.4000000000000p+0, 0.0, 0x1.d013fc47eeeeap-1, 0x1.e6ce29429451bp-56, 0x1.800841c6e3240p-6, -0x1.e005f44e3d0f6p-6, 0x1.1ffe8eef4ef47p-5, -0x1.67f349673b64bp-5, 0x1.c225c61e25fe1p-5, -0x1.193bc33b01ac4p-4, 0x1.5f4ef801d4c37p-4, -0x1.b68be88f594abp-4, 0x1.119fc512d4ae2p-3, -0x1.540b7ef7c038cp-3, 0x1.a8fe0bd448bb8p-3, -0x1.0073e4afb4d75p-2, 0x1.4f1d1274008a3p-2, -0x1.4d98f557aa446p-2, 0x1.21d4e80718127p-1, -0x1.a6398b8ba7ab9p-3, \
        0x1.8000000000000p+0, 0.0, 0x1.c5bf891b4ef6bp-1, -0x1.618f13eb7ca89p-55, 0x1.1188c44364e7cp-10, -0x1.9a4185ad54407p-10, 0x1.2b167373767c4p-9, -0x1.c07d5df866896p-9, 0x1.504edaac8cae6p-8, -0x1.f7fc94cb4b24dp-8, 0x1.7991dd3c78efbp-7, -0x1.1a2c295e285c1p-6, 0x1.a752c6af1432cp-6, -0x1.374fd5cca122dp-5, 0x1.e022b7434f007p-5, -0x1.3d88cfe506032p-4, 0x1.283bd374eb2a9p-3, -0x1.b77ac1ca2eba5p-4, 0x1.a8c4dba620d57p-2, 0x1.08ea88ee561b1p-5, \
        0x1.c000000000000p+0, 0.0, 0x1.d68f5d0f97142p-1, 0x1.dc37db819e529p-60, 0x1.3c01c402f80e4p-14, -0x1.146ef3f205175p-13, 0x1.d9b1eb21d7cdfp-13, -0x1.9e3049026e508p-12, 0x1.6a339a466dd5ap-11, -0x1.3c260cfa88316p-10, 0x1.14c08e898aa99p-9, -0x1.de0b111352a84p-9, 0x1.aafcb1b938d58p-8, -0x1.57a777aa48e2fp-7, 0x1.6197961e23d45p-6, -0x1.7bf5bc4a73e58p-6, 0x1.65a8e078005e8p-4, 0x1.9c8117858d309p-9, 0x1.845fc5d28f665p-2, 0x1.d1cd74df2c579p-3, \
        0x1.0000000000000p+1, 0.0, 0x1.0000000000000p+0, 0.0, 0x1.03c7b22397a91p-17, -0x1.03a26c45c3b24p-16, 0x1.fedfe03da6f53p-16, -0x1.fdea9660ab875p-15, 0x1.fe564c6ae0badp-14, -0x1.f94a7deee6ae1p-13, 0x1.011ad2dbd6395p-11, -0x1.e21f1c7ddf824p-11, 0x1.13c449c853ce5p-9, -0x1.75e6e904943b3p-9, 0x1.6d7eeac9ea419p-7, -0x1.17f3740fe2a1cp-12, 0x1.301fbb0f25a92p-4, 0x1.4e239984650acp-4, 0x1.a5b978b96bebfp-2, 0x1.b0ee6072093cep-2, \
        0x1.2000000000000p+1, 0.0, 0x1.220c7dacf5552p+0, 0x1.98206ce4ce598p-54, 0x1.177a97b766719p-20, -0x1.39ecd80705c80p-19, 0x1.5d287ce99a92ep-18, -0x1.8575040a5e801p-17, 0x1.bd897d6128d90p-16, -0x1.d9c028b5bc3a6p-15, 0x1.2d9ae5e153271p-13, -0x1.deb30a1726feap-13, 0x1.fc375fc9a0ee8p-11, -0x1.052e0e988bb3dp-15, 0x1.255c569f13bb1p-7, 0x1.d186930bcbb0dp-7, 0x1.552d86e559a16p-4, 0x1.45553ac1369edp-3, 0x1.00bbbf25f42c2p-1, 0x1.4c2200ac4a891p-1, \
        0x1.4000000000000p+1, 0.0, 0x1.544fa6d47b390p+0, -0x1.2569de13afcdbp-59, 0x1.7416f86366680p-23, -0x1.cd558db19a7ddp-22, 0x1.2279a65987ce6p-20, -0x1.579d8d7887882p-19, 0x1.e6ccde1f82c0cp-18, -0x1.ad8d61f6c1537p-17, 0x1.013c8f3257b7dp-14, 0x1.08875c45f0309p-18, 0x1.8b8fcdab80cecp-11, 0x1.a55ed20e778cdp-10, 0x1.5489cc6ba9e97p-7, 0x1.d0a9bc49352b9p-6, 0x1.c138b89492c57p-4, 0x1.03f6d2fa4f4f9p-2, 0x1.4f224d4b7e01cp-1, 0x1.de9585f1a7093p-1, \
        0x1.6000000000000p+1, 0.0, 0x1.9bbd716da431ap+0, -0x1.e5f4f1fee9578p-55, 0x1.2979093f531b6p-25, -0x1.818d2ccad325dp-24, 0x1.2d92ecba0ea67p-22, -0x1.1ac6ca9b5d942p-21, 0x1.8e34062fd333cp-19, 0x1.f50c266ea8289p-21, 0x1.917a1758001d2p-15, 0x1.16605772b6025p-13, 0x1.df5a3d7c8d7e9p-11, 0x1.a7286b493a5a3p-9, 0x1.dda714d4959c2p-7, 0x1.7edabc2edb537p-5, 0x1.3f65c8c716877p-3, 0x1.8a0389a4e2d47p-2, 0x1.c8472a50088f6p-1, 0x1.512ca0189d3d3p+0, \
        0x1.8000000000000p+1, 0.0, 0x1.0000000000000p+1, 0.0, 0x1.2a2eee9fb6430p-27, -0x1.1aeaf30ec851cp-26, 0x1.ea93b9f6dbc4ep-24, 0x1.7a1398a5931f1p-24, 0x1.42f39efe832cep-19, 0x1.1d665e4b4d807p-17, 0x1.00b449ce67828p-14, 0x1.15a5dc363272cp-12, 0x1.6343551826c2fp-10, 0x1.6516ec8f419cfp-8, 0x1.691f1cf9aab71p-6, 0x1.2defd42705e3dp-4, 0x1.d73187d1582e8p-3, 0x1.2665a2bdcf38bp-1, 0x1.3f18547938453p+0, 0x1.d8773039049e7p+0, \
        0x1.a000000000000p+1, 0.0, 0x1.464e0d6293ffdp+1, -0x1.34db857e97db5p-53, 0x1.f44a9d35df015p-29, 0x1.6fd10246aeb45p-28, 0x1.ac443e37b2957p-24, 0x1.d7b00e291834cp-22, 0x1.b7a845791b9c0p-19, 0x1.18f68fdd533bbp-16, 0x1.8fd2f647a832ap-14, 0x1.dde5543665768p-12, 0x1.19ca6da708576p-9, 0x1.2310aefe3c97ap-7, 0x1.1965957c6e057p-5, 0x1.d81b6040aaeb2p-4, 0x1.629439419dba3p-2, 0x1.b7bbb032a2e58p-1, 0x1.c6e43760d7f63p+0, 0x1.4bd95f376497bp+1, \
        0x1.c000000000000p+1, 0.0, 0x1.a96390899a074p+1, -0x1.6ec455989bc11p-58, 0x1.e3946552c21b1p-29, 0x1.4316eed383243p-26, 0x1.37a82776239e0p-23, 0x1.ca199ff1909cbp-21, 0x1.65e56761443b0p-18, 0x1.ec0186542c622p-16, 0x1.49cfede11d275p-13, 0x1.90ba7278a28b0p-11, 0x1.c9e949926c47ap-9, 0x1.d8376e102f494p-7, 0x1.bd2afde7e4c7bp-5, 0x1.71d167212a005p-3, 0x1.0e5d232b95858p-1, 0x1.4a0b6a8230929p+0, 0x1.491ad1cb98836p+1, 0x1.d545472146024p+1, \
        0x1.e000000000000p+1, 0.0, 0x1.1b123dfb60e22p+2, -0x1.270c332fa0361p-52, 0x1.7793fec3f1fd5p-28, 0x1.36a68008e1156p-25, 0x1.07c675c8ed217p-22, 0x1.9792ef00a7ae0p-20, 0x1.311486a7cbb62p-17, 0x1.a7019d6502f21p-15, 0x1.153223bf9b0b2p-12, 0x1.4f5e3ccdaf523p-10, 0x1.785b3ac76dd0ap-8, 0x1.80496f4b76dd7p-6, 0x1.639ecd4081176p-4, 0x1.234e1513a6a87p-2, 0x1.a097bedb50e76p-1, 0x1.f30603c96039cp+0, 0x1.e2473d2354813p+1, 0x1.4ebe0a6c55268p+2, \
        0x1.0000000000000p+2, 0.0, 0x1.8000000000000p+2, 0.0, 0x1.48b6e5c192258p-27, 0x1.18b7e18904f42p-24, 0x1.ce73b1a2899b7p-22, 0x1.6664fc2af806ep-19, 0x1.07ce8ac517f11p-16, 0x1.6bbaad377496fp-14, 0x1.d62d13910014ap-12, 0x1.19bfdd20658c5p-9, 0x1.37c4b630af579p-7, 0x1.3a7827328df67p-5, 0x1.1e6394f122f69p-3, 0x1.ce0ca305f0822p-2, 0x1.43e5644d68adcp+0, 0x1.7c58644af78d1p+1, 0x1.65700b692b5b8p+2, 0x1.e259642ac376dp+2, \
        0x1.1000000000000p+2, 0.0, 0x1.091f6ae0183fdp+3, 0x1.450da389249ddp-51, 0x1.2732906f8e45ap-26, 0x1.f7f4d7fca9019p-24, 0x1.99d3c05b2ca71p-21, 0x1.3ba3cc351cbd0p-18, 0x1.cb92ec1686732p-16, 0x1.3a0da5986dd03p-13, 0x1.91605e284f0fdp-11, 0x1.dbef97dd213eep-9, 0x1.0402940af9af5p-6, 0x1.02f191d57fa05p-4, 0x1.d0b039956ed9fp-3, 0x1.71153bbb144cap-1, 0x1.fbf6469ea19a0p+0, 0x1.245d4d6cc82acp+2, 0x1.0bc30e4d30e1fp+3, 0x1.5f3420b5a6bb3p+3, \
        0x1.2000000000000p+2, 0.0, 0x1.74371e7866c65p+3, 0x1.f5f8a1a8d3bdcp-51, 0x1.0b53ed93dc080p-25, 0x1.c57b150c01ae5p-23, 0x1.6d66613c77e37p-20, 0x1.17284266352d3p-17, 0x1.92952064a40aep-15, 0x1.10884c5444bf2p-12, 0x1.58a8314ece06bp-10, 0x1.944636ddfd19ap-8, 0x1.b471c73827040p-6, 0x1.ad2dbf1b0713fp-4, 0x1.7bab82a609178p-2, 0x1.28fa2eb44d22ep+0, 0x1.919734073b1e1p+1, 0x1.c5576617b6c1fp+2, 0x1.9548c95a76f39p+3, 0x1.027ac12fc1e1ep+4, \
        0x1.3000000000000p+2, 0.0, 0x1.09611a1baad40p+4, -0x1.949b6ffca632bp-50, 0x1.e6b3df74ba842p-25, 0x1.99c266ccc79ffp-22, 0x1.476e7eb682feap-19, 0x1.f021539d965fbp-17, 0x1.62826dd128f66p-14, 0x1.db7ae588f8d82p-12, 0x1.299e9f28a8565p-9, 0x1.5961c9e420f89p-7, 0x1.708f7b3336e88p-5, 0x1.65f1d2cba0438p-3, 0x1.38597ac00fd73p-1, 0x1.e165133014b19p+0, 0x1.4008a26925faep+2, 0x1.627ca10f3a3b6p+3, 0x1.35c0e743a4e63p+4, 0x1.8096b944680cap+4, \
        0x1.4000000000000p+2, 0.0, 0x1.8000000000000p+4, 0.0, 0x1.bd135469ce06ep-24, 0x1.73e7f74f37ac5p-21, 0x1.26cf6a7e1e6a5p-18, 0x1.bb00f8294a49bp-16, 0x1.39c49bfe46440p-13, 0x1.a0f3e065fe514p-11, 0x1.026b337472cb5p-8, 0x1.28c249a88a577p-6, 0x1.391e6eb19ea70p-4, 0x1.2c6dde11d8768p-2, 0x1.02b4f33a0d9bdp+0, 0x1.88f903a9ac97fp+1, 0x1.0108cb39723a3p+3, 0x1.178834ffc69d7p+4, 0x1.de066473dc393p+4, 0x1.212cb21561bb7p+5, \
        0x1.5000000000000p+2, 0.0, 0x1.19b1618e19c3dp+5, 0x1.32bcfb836dcf6p-50, 0x1.98cd48b99815cp-23, 0x1.5310b630cf1b8p-20, 0x1.0aae2532c63aep-17, 0x1.8d786b89e9285p-15, 0x1.1719d982329eap-12, 0x1.6f876f0eb7c40p-10, 0x1.c332fdf3fa9fdp-8, 0x1.006cee5c39949p-5, 0x1.0b9a279094755p-3, 0x1.fb78c7bd8f075p-2, 0x1.af683c74ed0a1p+0, 0x1.4310d9630b2f3p+2, 0x1.a0097c3aa9ef3p+3, 0x1.bc84a96a2d1e6p+4, 0x1.744c475f6d9edp+5, 0x1.b76f3d790736dp+5, \
        0x1.6000000000000p+2, 0.0, 0x1.a2be0247739f2p+5, 0x1.696f6bbbdc6aep-50, 0x1.791cc0292c9bbp-22, 0x1.3680a3850161cp-19, 0x1.e4b1d918389d2p-17, 0x1.665127f88cde5p-14, 0x1.f2fc2e8ce1054p-12, 0x1.45a0c3983d424p-9, 0x1.8c01b72b52709p-7, 0x1.bda06278f1b56p-5, 0x1.cc16df9d197c3p-3, 0x1.af3f7cd238870p-1, 0x1.6a0d90d78baebp+1, 0x1.0b7287473a2b2p+3, 0x1.533ae6c9fef17p+4, 0x1.64535bc3f48a0p+5, 0x1.2497a18ed3617p+6, 0x1.5150fd24c6f6fp+6, \
        0x1.7000000000000p+2, 0.0, 0x1.3b234f00dadbcp+6, -0x1.e07894fc055c3p-48, 0x1.5d5e99bd0b2f3p-21, 0x1.1d99cc5bfb5a2p-18, 0x1.ba7a450b28f71p-16, 0x1.448b0f5fcbf32p-13, 0x1.c03ae3f8acbe6p-11, 0x1.21f7cbba4ca70p-8, 0x1.5d671372346f9p-6, 0x1.8559cd790ee0ap-4, 0x1.8dce1a8c38bbdp-2, 0x1.70b45288ef13bp+0, 0x1.31ce65ae0e942p+2, 0x1.bdd854991f46ep+3, 0x1.16a448b23d1bdp+5, 0x1.1fea3971f3ccdp+6, 0x1.cffac0f16dd48p+6, 0x1.0585a14413220p+7, \
        0x1.8000000000000p+2, 0.0, 0x1.e000000000000p+6, 0.0, 0x1.450a0608ac385p-20, 0x1.07d7d4f25dd4cp-17, 0x1.95c21ea378274p-15, 0x1.2752903f0cb45p-12, 0x1.9494d1b1eb132p-10, 0x1.0381cfdb4adc5p-7, 0x1.35e424fd0ceadp-5, 0x1.5608a56225a65p-3, 0x1.59e9f437ef63ap-1, 0x1.3d1f24682e180p+1, 0x1.03ef58eeb3a76p+3, 0x1.762007e6c4fc1p+4, 0x1.cd0f1887b2177p+5, 0x1.d4ebdb5caf531p+6, 0x1.730f2b4dc212ap+7, 0x1.9977de9aba2a4p+7, \
        0x1.9000000000000p+2, 0.0, 0x1.71b8d00a81d10p+7, 0x1.094c050e40102p-47, 0x1.2fabb6f54d74ep-19, 0x1.e9975014fc8afp-17, 0x1.75be7e2e46aacp-14, 0x1.0df865a92377dp-11, 0x1.6eecae44cd1a2p-9, 0x1.d2ca5fddd802dp-7, 0x1.144332822b06cp-4, 0x1.2e149034cfe33p-2, 0x1.2e7b5be6452edp+0, 0x1.125db0a76e30fp+2, 0x1.bca4d45e41264p+3, 0x1.3c056db7a9d2cp+5, 0x1.802763e10acc9p+6, 0x1.80ca21058903bp+7, 0x1.2b3ff685c0d71p+8, 0x1.43972c892ff47p+8, \
        0x1.a000000000000p+2, 0.0, 0x1.1fe2a1911f7d6p+8, 0x1.fc3e4d0893c4cp-46, 0x1.1ce233d0a8066p-18, 0x1.c82fa427978cfp-16, 0x1.59c5b69c99e53p-13, 0x1.efd5cf9adb996p-11, 0x1.4e5711cc8bfafp-8, 0x1.a5df621059dd6p-6, 0x1.ef115f2a41881p-4, 0x1.0c34d9c0d9570p-1, 0x1.09f7bc128ee47p+1, 0x1.dd826e3c4cb42p+2, 0x1.7ea29737cd1dbp+4, 0x1.0cad76b377ba0p+6, 0x1.424d559bdc687p+7, 0x1.3e1f377a6cf74p+8, 0x1.e6a4bd6d9463cp+8, 0x1.02138e2dc003bp+9, \
        0x1.b000000000000p+2, 0.0, 0x1.c502c1913a9bep+8, -0x1.b2ad562a47b49p-46, 0x1.0c5ae56dedb20p-17, 0x1.aadb050e20672p-15, 0x1.4149787fe8b26p-12, 0x1.c961534b63275p-10, 0x1.32110fca8467ep-7, 0x1.7f1da428e1b1ep-5, 0x1.bdcefcb69d208p-3, 0x1.debf98f51ed71p-1, 0x1.d6464c594050dp+1, 0x1.a1e8ce2973204p+3, 0x1.4b426e3b624c3p+5, 0x1.cbc5a1272d08dp+6, 0x1.1040a29c98df3p+8, 0x1.08efb16814f5cp+9, 0x1.8edda2fe8bb94p+9, 0x1.9f5481b1f6dc5p+9, \
        0x1.c000000000000p+2, 0.0, 0x1.6800000000000p+9, 0.0, 0x1.fb9f5978deff0p-17, 0x1.91143189049e4p-14, 0x1.2bd2139cd368ep-11, 0x1.a7c84486bcc26p-9, 0x1.1978b6905d955p-6, 0x1.5d936e64bd887p-4, 0x1.936f6e6edc834p-2, 0x1.ad7b762593ba3p+0, 0x1.a1ff095e0a96bp+2, 0x1.6fcf07c57c65bp+4, 0x1.207b84acb7fc9p+6, 0x1.8bdbcc0f0042ep+7, 0x1.cf06493cf1665p+8, 0x1.bc74af58f402fp+9, 0x1.497a5c4da8d34p+10, 0x1.5119e6f40b9fbp+10, \
        0x1.d000000000000p+2, 0.0, 0x1.20d86288356b5p+10, -0x1.30bc9c0cddf37p-44, 0x1.e209cefa22c8dp-16, 0x1.7a6a454d134f0p-13, 0x1.18fa9c1ea556ap-10, 0x1.8a605722d1f84p-8, 0x1.04070c0a561efp-5, 0x1.4078a6b55f709p-3, 0x1.6edec790198eep-1, 0x1.833dbe9c64d00p+1, 0x1.757f381f9d251p+3, 0x1.4582671a5e5fdp+5, 0x1.f9637cc577cf4p+6, 0x1.56ee16afbf5fdp+8, 0x1.8c514e4932b0cp+9, 0x1.776de76dc340ap+10, 0x1.123cde29a4a6ap+11, 0x1.13e9a7cbd5941p+11, \
        0x1.e000000000000p+2, 0.0, 0x1.d3d0468bd32bdp+10, -0x1.c61ac2d20fe05p-44, 0x1.cb8f9c2d544bap-15, 0x1.667d6e8b56addp-12, 0x1.086dc616556b7p-9, 0x1.709a56c5b2923p-7, 0x1.e2966f7e5eaa9p-5, 0x1.272717a2bc9b0p-2, 0x1.4f397b89974adp+0, 0x1.5ee6cef5f7db0p+2, 0x1.4f79e45e2746ap+4, 0x1.21a5a2967270ap+6, 0x1.bd3ad63712852p+7, 0x1.2ae045d8c8614p+9, 0x1.5566a36d3e52bp+10, 0x1.3f4df4c12b155p+11, 0x1.cbeabd747891fp+11, 0x1.c75c1b3c7bf5bp+11, \
        0x1.f000000000000p+2, 0.0, 0x1.7e3a535289738p+11, -0x1.7612059d6402ap-46, 0x1.b7da341bd0c1cp-14, 0x1.54fc391b45802p-11, 0x1.f3c6a7519dea2p-9, 0x1.59fd89687261fp-6, 0x1.c1cd37675090ap-4, 0x1.11144070577c2p-1, 0x1.33c338da51ff8p+1, 0x1.3f8a679db8ebbp+3, 0x1.2edfdbc003ea2p+5, 0x1.031ed2885524ap+7, 0x1.8a71754be6328p+8, 0x1.060788a3ad378p+10, 0x1.27f2758e2639cp+11, 0x1.1165f20fa3268p+12, 0x1.847591bd04bfdp+12, 0x1.7abf79873bf3ap+12, \
        0x1.0000000000000p+3, 0.0, 0x1.3b00000000000p+12, 0.0, 0x1.a69fcfe963debp-13, 0x1.45a153658ad59p-10, 0x1.da3bf36c975cfp-8, 0x1.4623ec5f959a2p-5, 0x1.a51356f0b0a6ep-3, 0x1.fb98b7d24e142p-1, 0x1.1bdf9dd9e567fp+2, 0x1.2465c607f31e4p+4, 0x1.12d3560a83bb6p+6, 0x1.d212e92328d74p+7, 0x1.5f63071ae10dbp+9, 0x1.ce21e4dc5c942p+10, 0x1.022155f5c81d2p+12, 0x1.d744b0813fb76p+12, 0x1.4a6e4da2752cdp+13, 0x1.3d76aa158a2bcp+13, \
        0x1.0800000000000p+3, 0.0, 0x1.05c4194b70694p+13, -0x1.e855dad752493p-42, 0x1.97a1946fe16a8p-12, 0x1.3831b6b01eaf8p-9, 0x1.c3d3490d2ed2ap-7, 0x1.34b72143b2729p-4, 0x1.8be2b6440dc45p-2, 0x1.d9dcbadf0212fp+0, 0x1.070c621464c8cp+3, 0x1.0cd7c866c4d0bp+5, 0x1.f53c7e69d5997p+6, 0x1.a5570ca1437aap+8, 0x1.3abc9a356a21ep+10, 0x1.99dc1821921b0p+11, 0x1.c50528cdc6c05p+12, 0x1.98cad145e21c4p+13, 0x1.1b045e4f37e98p+14, 0x1.0c1946393ce4ep+14, \
        0x1.1000000000000p+3, 0.0, 0x1.b693422315f91p+13, -0x1.d3722d49ddc49p-42, 0x1.8aaa087aeada6p-11, 0x1.2c7b20d00101cp-8, 0x1.b0341517c95ddp-6, 0x1.256de8e11de80p-3, 0x1.75ca10149aad7p-1, 0x1.bc5163efd45c2p+1, 0x1.e9b94b4bf9c3ap+3, 0x1.f0b55435abb69p+5, 0x1.cb5517637e0a9p+7, 0x1.7ed9fdfacfeaep+9, 0x1.1b6ba5e002c6bp+11, 0x1.6d8bea568b6fep+12, 0x1.8fe3b666b532ep+13, 0x1.64d66d23a7764p+14, 0x1.e8179504c0879p+14, 0x1.c8235df171691p+14, \
        0x1.1800000000000p+3, 0.0, 0x1.724880b7f527ep+14, 0x1.a567a2a3e1c76p-41, 0x1.7f8bcdcb1bddep-10, 0x1.2252d0c4209ebp-7, 0x1.9f12fdbfc1ae6p-5, 0x1.180a113d6138ep-2, 0x1.6269870e36c42p+0, 0x1.a26d3adc5a8c1p+2, 0x1.c9ea52e25be55p+4, 0x1.ccfe0240ccd29p+6, 0x1.a6f846262e5d3p+8, 0x1.5da239470c082p+10, 0x1.0090d6f9aece6p+12, 0x1.47d3e9c2195c4p+13, 0x1.630c5e659dd19p+14, 0x1.396974b6c6a55p+15, 0x1.a7a9d46004184p+15, 0x1.86cd22f02aab4p+15, \
        0x1.2000000000000p+3, 0.0, 0x1.3b00000000000p+15, 0.0, 0x1.762091a7775a2p-9, 0x1.19947a87e86e8p-6, 0x1.902fefe6167b9p-4, 0x1.0c56c130e82f6p-1, 0x1.516fd96cebd88p+1, 0x1.8bbc2ad85ed9cp+3, 0x1.ae1280dddef71p+5, 0x1.adcf710d34b7dp+7, 0x1.875810534df13p+9, 0x1.40e236584caf1p+11, 0x1.d2eb8051f832cp+12, 0x1.279947eba0515p+14, 0x1.3d09ec05f0141p+15, 0x1.14f021f4ee815p+16, 0x1.721d22e526724p+16, 0x1.5126aa158a2bcp+16, \
        0x1.2800000000000p+3, 0.0, 0x1.0df23a15cbec8p+16, 0x1.8433bb28f9924p-38, 0x1.6e482be1bf92ap-8, 0x1.122168a8a9835p-5, 0x1.8354824ca55dep-3, 0x1.0227105e512f5p+0, 0x1.429814b2d79dfp+2, 0x1.77dc01675ff45p+4, 0x1.95b0a9586a575p+6, 0x1.928da644701bep+8, 0x1.6bc8f456e301dp+10, 0x1.27f009108153cp+12, 0x1.ab09850f79f9bp+13, 0x1.0bf6218b082e0p+15, 0x1.1cb00332d6bebp+16, 0x1.ec523f63df278p+16, 0x1.455faa08d9456p+17, 0x1.24d651ffbdd2ap+17, \
        0x1.3000000000000p+3, 0.0, 0x1.d1fc76454758ap+16, -0x1.70a9501e7ba0ep-39, 0x1.67e7e4e94d44ep-7, 0x1.0bdfc3f5823dcp-4, 0x1.78529fa531edep-2, 0x1.f2a9bb6edaaf0p+0, 0x1.35a7b186e7433p+3, 0x1.66798fec85ebap+5, 0x1.8057c50dc79d9p+7, 0x1.7ab59a95627c1p+9, 0x1.53bbb3eb8ef05p+11, 0x1.123eb8653f267p+13, 0x1.88855ad3a5cf1p+14, 0x1.e85d9695a1739p+15, 0x1.010bc68b0531dp+17, 0x1.b826c69679fe9p+17, 0x1.1fcebd099d5e9p+18, 0x1.000763f95cefap+18, \
        0x1.3800000000000p+3, 0.0, 0x1.94ff4cc93423ap+17, 0x1.33a5678cfbc84p-40, 0x1.62e9dced238cbp-6, 0x1.06b9fb14eba5ep-3, 0x1.6f036b638e87dp-1, 0x1.e37fb2e824450p+1, 0x1.2a6d0492dc964p+4, 0x1.574e50eb27de2p+6, 0x1.6daba5e3fd761p+8, 0x1.65d8fac4fb5cap+10, 0x1.3eb854aea45d0p+12, 0x1.feb1da228c902p+13, 0x1.6a9365919d88cp+15, 0x1.bf52df45b3314p+16, 0x1.d2afe46cd6469p+17, 0x1.8bc09233e9c7dp+18, 0x1.001db25384e80p+19, 0x1.c294e6422dfddp+18, \
        0x1.4000000000000p+3, 0.0, 0x1.6260000000000p+18, 0.0, 0x1.5f3c8f322759fp-5, 0x1.029e44f82d4bfp-2, 0x1.67465789e0bd3p+0, 0x1.d699730dd3bc0p+2, 0x1.20bdf5035c603p+5, 0x1.4a1e78532f851p+7, 0x1.5d5e44c01a98fp+9, 0x1.539ab3ac40e76p+11, 0x1.2c5a16c4ef037p+13, 0x1.ddb95d37d451bp+14, 0x1.508aca2903b0ep+16, 0x1.9bceebea90608p+17, 0x1.a9e73203e9b6ep+18, 0x1.65d1ca90311fcp+19, 0x1.ca859c847c860p+19, 0x1.8efb7f583b713p+19, \
    }
/* digamma: worst error of the double evaluation 1.85 ulp (301 points a piece) */
#define ND_GAM_TAB_DIGAMMA \
    { \
        0x1.8000000000000p-1, 0.0, -0x1.15fafa86b04dbp+0, -0x1.f52ee4a9905bap-59, -0x1.29aee23ca4f74p+7, 0x1.be86672200d18p+6, -0x1.29af13b2e8b4dp+6, 0x1.be871460cb1e6p+5, -0x1.50c9dbb314e92p+5, 0x1.f931a40645e0dp+4, -0x1.7add7327114bap+4, 0x1.1c2ee7238bb58p+4, -0x1.aa65aa4ec80c2p+3, 0x1.40037d6a57aa1p+3, -0x1.e0cb20a5eed38p+2, 0x1.6a0074d748082p+2, -0x1.12228c01db477p+2, 0x1.a59e099b26b6dp+1, -0x1.535e57b5b69f0p+1, 0x1.455c4ff28f0bfp+1, \
        0x1.0000000000000p+0, 0.0, -0x1.2788cfc6fb619p-1, 0x1.6cb90701fbfabp-58, -0x1.109cfe7401dc1p+0, 0x1.109d80bc8c7bbp+0, -0x1.ff296b55e1b55p-1, 0x1.ff2d70020f555p-1, -0x1.00097ee51edcep+0, 0x1.001194c12dc56p+0, -0x1.0020605fdafc3p+0, 0x1.00412b779bd8dp+0, -0x1.00839f404ba0fp+0, 0x1.010b36b2506f5p+0, -0x1.02232da14b8e0p+0, 0x1.0470984c07becp+0, -0x1.097418eca7cd2p+0, 0x1.151322ac7d84cp+0, -0x1.33ba004f00621p+0, 0x1.a51a6625307d3p+0, \
        0x1.4000000000000p+0, 0.0, -0x1.d1d32879af85dp-3, 0x1.dc8e13c13fe24p-57, -0x1.80110294d53a1p-6, 0x1.e019a7732a4a0p-6, -0x1.2014738af8043p-5, 0x1.6824974076a5cp-5, -0x1.c294a7b88f0e0p-5, 0x1.19b914db474fdp-4, -0x1.6066bcb34a7b7p-4, 0x1.b911ed3daa643p-4, -0x1.1451d743f38e5p-3, 0x1.5ae76b3d3f8fap-3, -0x1.b527ffea92454p-3, 0x1.157368c75cd6cp-2, -0x1.6559940b33db2p-2, 0x1.dad1b9fd7bfcap-2, -0x1.53e6c3b9506c8p-1, 0x1.328429d927c67p+0, \
        0x1.762d86356be3fp+0, 0x1.b86a722197829p-54, 0.0, 0.0, -0x1.18ceb64fb6dc4p-10, 0x1.236f07636033bp-9, -0x1.ba115a16d0060p-9, 0x1.43061382470f4p-8, -0x1.d82a2b668d82dp-8, 0x1.5955a36487ce6p-7, -0x1.f9704c72eb7e0p-7, 0x1.723d6818807e3p-6, -0x1.0fa7ec3822aa2p-5, 0x1.8fce02b2386ecp-5, -0x1.27baba261c444p-4, 0x1.b9a5b6370f3a0p-4, -0x1.4fc1317257da9p-3, 0x1.08b4294d50381p-2, -0x1.c563b54aa1a35p-2, 0x1.ef72bc8ee38acp-1, \
        0x1.c000000000000p+0, 0.0, 0x1.fad2d675283d3p-3, -0x1.d2a10e7fb96c4p-57, -0x1.3c4b6656ee82fp-14, 0x1.14d491553335cp-13, -0x1.dac4f78207730p-13, 0x1.9fb2b8ef18005p-12, -0x1.6c2def341f53cp-11, 0x1.3f2fa354548afp-10, -0x1.1806925826162p-9, 0x1.ec1db599b54e4p-9, -0x1.b188346a9ecbcp-8, 0x1.7f89d0ae7f382p-7, -0x1.55b8965a232d2p-6, 0x1.343365cc41ec4p-5, -0x1.1c205e39b364dp-4, 0x1.112f9cdb80001p-3, -0x1.1fb05edd1d43fp-2, 0x1.87385c3c034c4p-1, \
        0x1.0000000000000p+1, 0.0, 0x1.b0ee6072093cep-2, 0x1.6cb90701fbfabp-58, -0x1.044d10121e0a0p-17, 0x1.046f12a8b37c2p-16, -0x1.009127526b8fdp-15, 0x1.00de195d371dep-14, -0x1.01593fa5b2ec0p-13, 0x1.020a60c160b3ap-12, -0x1.0318df21bb8a2p-11, 0x1.04b8ce94502dbp-10, -0x1.073e7b02d758bp-9, 0x1.0b36af863a194p-8, -0x1.1196d0a679c45p-7, 0x1.1c26130249123p-6, -0x1.2e831d94f99b7p-5, 0x1.51322ac7d8483p-4, -0x1.9dd002780310ap-3, 0x1.4a34cc4a60fa6p-1, \
        0x1.2000000000000p+1, 0.0, 0x1.2524cf7b2db82p-1, 0x1.dd89eb56b65efp-55, -0x1.1882004c65709p-20, 0x1.3bd86427ec6c3p-19, -0x1.5f642b1fb9aabp-18, 0x1.8c0bc6fddc84bp-17, -0x1.bec8174fc7d79p-16, 0x1.f89d4e0115748p-15, -0x1.1d7e737166d7dp-13, 0x1.43f065b42a356p-12, -0x1.7118c135985a0p-11, 0x1.a73e8ce90e136p-10, -0x1.ea358fb1de405p-9, 0x1.207dd77fc2e3dp-7, -0x1.5ce3b7cfd4c0ep-6, 0x1.bb1c5a5dbe4e6p-5, -0x1.37079a28d7331p-3, 0x1.1d5a3f376e453p-1, \
        0x1.4000000000000p+1, 0.0, 0x1.680425af12b5ep-1, -0x1.46eb6bf0197a4p-58, -0x1.75e1425d43f18p-23, 0x1.d3f9cf391326dp-22, -0x1.221dc851d7ac5p-20, 0x1.6b9e3a6c83d15p-19, -0x1.c844b98d19a0ep-18, 0x1.1eb56ba5b206bp-16, -0x1.6926f1e3b9520p-15, 0x1.c872dbafb2c9cp-14, -0x1.21de18e6f7e97p-12, 0x1.72e00847c2afep-11, -0x1.dfdf12b5d6d34p-10, 0x1.3bf9d580e52d8p-8, -0x1.ac61ab99a0b45p-7, 0x1.31b4c4359dfe5p-5, -0x1.e3bef327df0e7p-4, 0x1.f62057f7296c9p-2, \
        0x1.6000000000000p+1, 0.0, 0x1.a346fec1dc587p-1, -0x1.4057e9ed7047bp-57, -0x1.27ecb603e7320p-25, 0x1.97ad685783bf8p-24, -0x1.16b4c384d3ea2p-22, 0x1.809ee5b730d3ap-21, -0x1.09c4f418b6794p-19, 0x1.6ffe5c4ec1561p-18, -0x1.feef94c785fd4p-17, 0x1.641630f3f47eap-15, -0x1.f320c8ae6cbb2p-14, 0x1.60b2b1f2d84ddp-12, -0x1.f89c53e360813p-11, 0x1.6fe28889ac846p-9, -0x1.148e44f40927bp-7, 0x1.b696cf9da0419p-6, -0x1.827cd1492b2c1p-4, 0x1.c012ae051644fp-2, \
        0x1.8000000000000p+1, 0.0, 0x1.d8773039049e7p-1, 0x1.6cb90701fbfabp-58, -0x1.0df9d929349b9p-27, 0x1.9604337efd422p-26, -0x1.2f77fa0e43d87p-24, 0x1.c95c0fa56012ap-23, -0x1.593a121c093c9p-21, 0x1.052d96e4e86e8p-19, -0x1.8c6f922ca41ccp-18, 0x1.2e33a5bb7af2cp-16, -0x1.cf9ec0b5ab866p-15, 0x1.66d5f0c72dd53p-13, -0x1.196d0a679c46dp-11, 0x1.c26130249123ep-10, -0x1.7418eca7ccdb8p-8, 0x1.44c8ab1f6120ep-6, -0x1.3ba004f006214p-4, 0x1.94699894c1f4dp-2, \
        0x1.a000000000000p+1, 0.0, 0x1.0459842f5df88p+0, 0x1.608c121d224bfp-54, -0x1.158634c917877p-29, 0x1.c47e9f56d58b5p-28, -0x1.6f1ea1388cb3ep-26, 0x1.2c0c77c5a1761p-24, -0x1.eb6bdc4f544c7p-23, 0x1.93799dc1c7ea6p-21, -0x1.4c730d69ac17ep-19, 0x1.1345321e411fdp-17, -0x1.caf7b192086cap-16, 0x1.82568cae4f9f0p-14, -0x1.49ca387f82fc4p-12, 0x1.1f7f752568aacp-10, -0x1.0310476570e28p-8, 0x1.ede2fea1dad45p-7, -0x1.06772645bdd9ap-4, 0x1.706ef688253b6p-2, \
        0x1.c000000000000p+1, 0.0, 0x1.1a68793defc15p+0, 0x1.852ae2da9801fp-54, -0x1.3bd29236dc577p-31, 0x1.1581bda166294p-29, -0x1.e5d3dacb8df4fp-28, 0x1.ac246bda55aa3p-26, -0x1.7a241e5ad75d9p-24, 0x1.4ef47e594722cp-22, -0x1.29de799794e22p-20, 0x1.0a4de12f6f41ep-18, -0x1.dfab4c914d938p-17, 0x1.b471a24b9d3d3p-15, -0x1.92ff48505ef5cp-13, 0x1.7c52dbac32a5bp-11, -0x1.73594c2da8951p-9, 0x1.7ff6b372ef93bp-7, -0x1.bb342bf188dd7p-5, 0x1.52494db9b8c8cp-2, \
        0x1.e000000000000p+1, 0.0, 0x1.2ebac53262895p+0, -0x1.5a5a8099a0de0p-56, -0x1.885992a09540cp-33, 0x1.71b49de153f8ap-31, -0x1.5b566d50db978p-29, 0x1.4861a34af361dp-27, -0x1.3739122f3341cp-25, 0x1.27e8d21941264p-23, -0x1.1a8d8771bf2b3p-21, 0x1.0f58f7cab9764p-19, -0x1.069f55504ceeap-17, 0x1.00eeca7ea14d3p-15, -0x1.fe7d5019d6dc2p-14, 0x1.03574efe4a8a0p-11, -0x1.10d622a45d717p-9, 0x1.3039996d27941p-7, -0x1.7b11de94a533cp-5, 0x1.38ab02a5e1608p-2, \
        0x1.0000000000000p+2, 0.0, 0x1.4190ed71d7a49p+0, -0x1.27be347515d60p-55, -0x1.071016e485f09p-34, 0x1.08a78176faa7ap-32, -0x1.09a859586b7b9p-30, 0x1.0c4155019a5a6p-28, -0x1.0f9b5fdfc6856p-26, 0x1.13f5b1e405062p-24, -0x1.19ab4e429c282p-22, 0x1.213ffc51f2f0fp-20, -0x1.2b7a3e1fb5a8fp-18, 0x1.3992b08f31c1ap-16, -0x1.4d92b2fd349edp-14, 0x1.6b248862825dap-12, -0x1.999b887b61c88p-10, 0x1.ea0c8ce2a7476p-8, -0x1.47d7be05f94bfp-5, 0x1.22a27c22fad85p-2, \
        0x1.1000000000000p+2, 0.0, 0x1.531e707e22e4dp+0, 0x1.11c725ce5d5fap-54, -0x1.7944264c7d4d9p-36, 0x1.93a9c321f99b4p-34, -0x1.af33b549a6c30p-32, 0x1.cf3f3537a0784p-30, -0x1.f31ecb03e6aa6p-28, 0x1.0de42e8ecc793p-25, -0x1.254d3f7dccee1p-23, 0x1.40ca371c8b483p-21, -0x1.61de4dcd74f8ep-19, 0x1.8aef027435408p-17, -0x1.c001638d7da7ep-15, 0x1.042d2d68b4037p-12, -0x1.394795c141a1fp-10, 0x1.905b3ee70c1c1p-8, -0x1.1e4aef35d6d21p-5, 0x1.0f7c989d5a3ffp-2, \
        0x1.2000000000000p+2, 0.0, 0x1.638d0b871453ap+0, -0x1.8d8456e21b5e0p-57, -0x1.1f1caa8a7bcf1p-37, 0x1.4598819283868p-35, -0x1.70d4d766c5464p-33, 0x1.a41bc9811b192p-31, -0x1.e000b10b50822p-29, 0x1.134e8a119e46bp-26, -0x1.3d6d6cbf0190ap-24, 0x1.70732bd3f11e2p-22, -0x1.af7cda4b65a74p-20, 0x1.ff6b3965c3d30p-18, -0x1.342e52555b305p-15, 0x1.7c7679a22e04ep-13, -0x1.e72ada49d954cp-11, 0x1.4b33e11647379p-8, -0x1.f84602cd6cc91p-6, 0x1.fd639639f967bp-3, \
        0x1.3000000000000p+2, 0.0, 0x1.72ff0976a6cd9p+0, 0x1.74f4e1d551b32p-55, -0x1.ccd431db9bc64p-39, 0x1.141804b7f281bp-36, -0x1.4a9e765b34013p-34, 0x1.8e0828da3139ap-32, -0x1.e0c53a7918e1bp-30, 0x1.23918438d5334p-27, -0x1.638c95a7fdf03p-25, 0x1.b498594ee1ed7p-23, -0x1.0e86d1eed35d9p-20, 0x1.5369b8eaaf937p-18, -0x1.b1296f0da649fp-16, 0x1.1b3db1d71d3dep-13, -0x1.805af91189aa6p-11, 0x1.150c56a6587b3p-8, -0x1.bf734eb893256p-6, 0x1.dfb35186ecda0p-3, \
        0x1.4000000000000p+2, 0.0, 0x1.8190ed71d7a49p+0, -0x1.27be347515d60p-55, -0x1.83dfa79a8eaabp-40, 0x1.e9ba4c37bc6fep-38, -0x1.35183552bc2bbp-35, 0x1.8837aa789805ep-33, -0x1.f36bf93661d68p-31, 0x1.3f5b1cdf18f78p-28, -0x1.9ab4e429ebe92p-26, 0x1.09ffe28fac3aep-23, -0x1.5bd1f0fdad461p-21, 0x1.cc9584798e0bcp-19, -0x1.364acbf4d27b5p-16, 0x1.ac92218a09768p-14, -0x1.333710f6c3910p-11, 0x1.d41919c54e8ecp-9, -0x1.8faf7c0bf297dp-6, 0x1.c544f845f5b0bp-3, \
        0x1.5000000000000p+2, 0.0, 0x1.8f5aacba5f211p+0, 0x1.06b1a6eb63756p-57, -0x1.54cfc1c705a9fp-41, 0x1.c4480bfa05200p-39, -0x1.2c2580398feb8p-36, 0x1.906c21d31d7b8p-34, -0x1.0c11de3e26342p-31, 0x1.6890276da781ap-29, -0x1.e7c60b41c9327p-27, 0x1.4c625331ff3d0p-24, -0x1.c964125e184d9p-22, 0x1.3ec868e9a0c95p-19, -0x1.c442b3404f23dp-17, 0x1.48f531504f143p-14, -0x1.f0e2da6d5d7e6p-12, 0x1.8ef6e39d866b3p-9, -0x1.67281481e02f5p-6, 0x1.ad96ddf67f59cp-3, \
        0x1.6000000000000p+2, 0.0, 0x1.9c7099bff7e1ep+0, -0x1.f8ccfca35fdd8p-54, -0x1.375e12f0933a2p-42, 0x1.b1520c25ad542p-40, -0x1.2da89c9375e13p-37, 0x1.a62322fdb73e6p-35, -0x1.287bb101aaeccp-32, 0x1.a26d8ed5f0220p-30, -0x1.29062c112cb3fp-27, 0x1.a8e77d7bcd25cp-25, -0x1.32ef5a8977648p-22, 0x1.c148551e6c2c5p-20, -0x1.4ec0b81190ffap-17, 0x1.ffa2431c60d9cp-15, -0x1.961668a6c198fp-12, 0x1.56c4277746d5ep-9, -0x1.4479fbc77482dp-6, 0x1.9840d2469dc03p-3, \
        0x1.7000000000000p+2, 0.0, 0x1.a8e416efea2bep+0, 0x1.e0befcc7d86fcp-55, -0x1.26c0eedfdbb5bp-43, 0x1.ad45ff5b9567ap-41, -0x1.38d3dcc20e185p-38, 0x1.ca3b5b04a840fp-36, -0x1.50ecbed17e8e6p-33, 0x1.f1dfbaa7ad1d2p-31, -0x1.721b1c439ec9fp-28, 0x1.1545b725b7c8ap-25, -0x1.a3a5b0bcaf8e9p-23, 0x1.41d0df6c5a8dep-20, -0x1.f697972c82b40p-18, 0x1.929e615e77a2ep-15, -0x1.4f11759444ea8p-12, 0x1.289f0357e6675p-9, -0x1.269311cf3ae07p-6, 0x1.84ee2d5c60710p-3, \
        0x1.8000000000000p+2, 0.0, 0x1.b4c420a50ad7cp+0, 0x1.c76d94920f0e7p-57, -0x1.203db1793cc85p-44, 0x1.b678c9402da2bp-42, -0x1.4dd6b72a9ab8ap-39, 0x1.fee2e2080e5c0p-37, -0x1.887e953cfb1d9p-34, 0x1.2f0c262efb7dfp-31, -0x1.d6e73092b1c2ep-29, 0x1.70c71e0775630p-26, -0x1.23c4c9ecff731p-23, 0x1.d3f2595a15209p-21, -0x1.7e2cdc7bb4044p-18, 0x1.40454efd553b6p-15, -0x1.16e2c95f50930p-12, 0x1.0262026c6c756p-9, -0x1.0c9d0d7465480p-6, 0x1.735973273d5ecp-3, \
        0x1.9000000000000p+2, 0.0, 0x1.c01db8eb222d4p+0, 0x1.46650438bdeb7p-56, -0x1.22682c5802c9cp-45, 0x1.cc9e94805eb77p-43, -0x1.6dc0e144133c4p-40, 0x1.23dde0113152ap-37, -0x1.d3bfaa7d380b1p-35, 0x1.78bb65c2d7b14p-32, -0x1.315e58eb0d78fp-29, 0x1.f30eb32b1b4e1p-27, -0x1.9c0dba462d813p-24, 0x1.58e3f5ad91367p-21, -0x1.260cec553f82fp-18, 0x1.014b527427f74p-15, -0x1.d3f4efa05fdc6p-13, 0x1.c4dcc5ccc1091p-10, -0x1.ebdd00135e9fep-7, 0x1.634914879f473p-3, \
        0x1.a000000000000p+2, 0.0, 0x1.cafc3ca8b2106p+0, 0x1.dfda63d086166p-55, -0x1.2cbda4eef3326p-46, 0x1.f08fe476bca86p-44, -0x1.9a8ac26f9a4a0p-41, 0x1.5519c3446358cp-38, -0x1.1c9d10221dd85p-35, 0x1.dd73d1cc11edbp-33, -0x1.93166f462dc8ap-30, 0x1.571b7010fe336p-27, -0x1.2723ae1d1770dp-24, 0x1.0166f8f6d021ep-21, -0x1.c9698c85f8b34p-19, 0x1.a12b1ca48defcp-16, -0x1.8b7b58b79f9b4p-13, 0x1.8f0e4c0781343p-10, -0x1.c400159010738p-7, 0x1.548cfc97034dfp-3, \
        0x1.b000000000000p+2, 0.0, 0x1.d569a7a2006ebp+0, -0x1.f2bb7286114d7p-55, -0x1.3f73ddfe2c977p-47, 0x1.1220875cfca03p-44, -0x1.d73de3a1564a5p-42, 0x1.970ae90995f5dp-39, -0x1.611fa36c30f66p-36, 0x1.33fc5edfdff2fp-33, -0x1.0e669ca921152p-30, 0x1.dec557dc0cca6p-28, -0x1.ac63bd0005f8ep-25, 0x1.84aed16af5c88p-22, -0x1.6754528661b84p-19, 0x1.550774bd899f7p-16, -0x1.507c9b18f8c57p-13, 0x1.616e7d249c8b7p-10, -0x1.a0c8f8c26b109p-7, 0x1.46fcb1f54c99bp-3, \
        0x1.c000000000000p+2, 0.0, 0x1.df6ecb4fb5827p+0, -0x1.1c67a2c313738p-54, -0x1.5b68f28fc6e4cp-48, 0x1.3570ae3e68dd0p-45, -0x1.141fa10bd39bfp-42, 0x1.ef35ebd2efa28p-40, -0x1.be0af607ea9d0p-37, 0x1.93f1ea8fe933fp-34, -0x1.70494d2844cd8p-31, 0x1.529de043f3dd7p-28, -0x1.3ab435d094337p-25, 0x1.289d7d499b0e8p-22, -0x1.1ce450e77ca29p-19, 0x1.18f28feeb9ea4p-16, -0x1.20138835acbcbp-13, 0x1.3a7e7cf2219bbp-10, -0x1.8185f4fbc114bp-7, 0x1.3a75e4ee59d09p-3, \
        0x1.d000000000000p+2, 0.0, 0x1.e9137b7a7e563p+0, 0x1.c23d18186ceb8p-54, -0x1.822b4b96a89fep-49, 0x1.64904cc4869e2p-46, -0x1.49e1bbd64d747p-43, 0x1.32b1db5f7edf5p-40, -0x1.1e6e78bfce6dcp-37, 0x1.0cfcf099e8e83p-34, -0x1.fcaac352949acp-32, 0x1.e5128987dd1d3p-29, -0x1.d39f74a42519cp-26, 0x1.c93983bb33a24p-23, -0x1.c7a04080d8985p-20, 0x1.d23a19aae29aep-17, -0x1.f01be1a343dd2p-14, 0x1.19104ebb3ca74p-10, -0x1.65a5430daf338p-7, 0x1.2edb4eb166c0dp-3, \
        0x1.e000000000000p+2, 0.0, 0x1.f25eb2d014869p+0, -0x1.3775443f1f6afp-54, -0x1.b6170aec655a6p-50, 0x1.a2d07c739e0d3p-47, -0x1.913d9c67f927cp-44, 0x1.824a39622a552p-41, -0x1.759ceb66b62ccp-38, 0x1.6b61dd95f9bd4p-35, -0x1.63e0d7513742ep-32, 0x1.5f8b8591e0e7dp-29, -0x1.5f16e8c3aa2c9p-26, 0x1.63aa8b1bae9d0p-23, -0x1.6f3f00f04ad81p-20, 0x1.856de5b2a48bcp-17, -0x1.ad79ed84fe427p-14, 0x1.f86738e0ada21p-11, -0x1.4cae66e53e02fp-7, 0x1.2413cda19dd03p-3, \
        0x1.f000000000000p+2, 0.0, 0x1.fb56b11d42cd8p+0, -0x1.a6e15f8f8c8fdp-55, -0x1.fa8a73c803601p-51, 0x1.f4d1129932df7p-48, -0x1.f0478e2fa97e9p-45, 0x1.ee31e7c3e03b8p-42, -0x1.ee6d1d038a6b5p-39, 0x1.f179785fb1e2ep-36, -0x1.f80be278cdf63p-33, 0x1.0195628840d15p-29, -0x1.0a3080dfacf5bp-26, 0x1.170e40a29b6c6p-23, -0x1.2a35aa3177d19p-20, 0x1.474de5d20b70cp-17, -0x1.75a65b1b52f50p-14, 0x1.c64f116e23486p-11, -0x1.363d1a85fddd8p-7, 0x1.1a09b033ce882p-3, \
        0x1.0000000000000p+3, 0.0, 0x1.02008a3a23e5dp+1, -0x1.fbeaaccf40953p-53, -0x1.2a1b3f4728525p-51, 0x1.307ea76319ef7p-48, -0x1.37c36235c349bp-45, 0x1.40c53de800270p-42, -0x1.4b9b75e8c3b3ap-39, 0x1.58c9544f9ae74p-36, -0x1.6906a9725f71fp-33, 0x1.7d5cc746f22a1p-30, -0x1.975974b28f129p-27, 0x1.b96d7ee8a2b63p-24, -0x1.e7a9dc27e2370p-21, 0x1.14afe299ccb01p-17, -0x1.46987ad027397p-14, 0x1.9aa036fc773f8p-11, -0x1.21fd5fb657d84p-7, 0x1.10aa239ffbc61p-3, \
        0x1.0800000000000p+3, 0.0, 0x1.0631771e59a6bp+1, 0x1.9621e991f4529p-55, -0x1.64ca634053576p-52, 0x1.781fec1239f38p-49, -0x1.8d7fc4107d69ep-46, 0x1.a62612d937168p-43, -0x1.c27c8b3d4db1ap-40, 0x1.e38777903d0ecp-37, -0x1.055a00a66e3f6p-33, 0x1.1d0921a0e0cb5p-30, -0x1.3a5d967bd5191p-27, 0x1.5fc6d46d1d24ap-24, -0x1.915472c14603bp-21, 0x1.d656466b6414fp-18, -0x1.1eb652490fda4p-14, 0x1.745c938cba2bfp-11, -0x1.0fa86e8fc497dp-7, 0x1.07e4be6858724p-3, \
        0x1.1000000000000p+3, 0.0, 0x1.0a406a791b545p+1, 0x1.a889a224b48edp-53, -0x1.b1c88f15c292cp-53, 0x1.d78317d45eab6p-50, -0x1.00edf012e9fadp-46, 0x1.1960ec147e5abp-43, -0x1.35a80cc1651dap-40, 0x1.56c88f8c0a990p-37, -0x1.7e3064e7ce469p-34, 0x1.adf04d7045c6bp-31, -0x1.e921b6c4dea79p-28, 0x1.1a51ef74c6851p-24, -0x1.4c4b0d8a28667p-21, 0x1.91cc065442a27p-18, -0x1.f975124a06772p-15, 0x1.52b3cac6b24bap-11, -0x1.fe0496922064dp-8, 0x1.ff564160d0acep-4, \
        0x1.1800000000000p+3, 0.0, 0x1.0e2f7996e3774p+1, 0x1.3d1371407bc8ap-54, -0x1.0b9f0baa3fdefp-53, 0x1.2baddd0aac4f3p-50, -0x1.507c218035389p-47, 0x1.7baa988b03b25p-44, -0x1.ae8029174a651p-41, 0x1.eb0b38df9f3d6p-38, -0x1.1a15db45b2a67p-34, 0x1.4703afc27949ap-31, -0x1.7f6ab7f31e222p-28, 0x1.c82c715b34aa6p-25, -0x1.14b53e101003bp-21, 0x1.58e36603ce3f1p-18, -0x1.bf4213c35f8c9p-15, 0x1.34f9eabe4d332p-11, -0x1.dfafb791a4566p-8, 0x1.efe14ba05abb8p-4, \
        0x1.2000000000000p+3, 0.0, 0x1.12008a3a23e5dp+1, -0x1.fbeaaccf40953p-53, -0x1.4ed9ae3081b53p-54, 0x1.81f4ef100e9e3p-51, -0x1.be1b45b85ba01p-48, 0x1.031511a521455p-44, -0x1.2e6dd7a1ae80dp-41, 0x1.6325513d0b4f5p-38, -0x1.a41aa5c97dd20p-35, 0x1.f5731d1bc8b28p-32, -0x1.2eb2e9651e252p-28, 0x1.72dafdd1456c6p-25, -0x1.cf53b84fc46e0p-22, 0x1.295fc53399601p-18, -0x1.8d30f5a04e72ep-15, 0x1.1aa036fc773f8p-11, -0x1.c3fabf6cafb07p-8, 0x1.e154473ff78c3p-4, \
        0x1.2800000000000p+3, 0.0, 0x1.15b5581697b63p+1, 0x1.5dc689e85e0cep-53, -0x1.a884ffd097488p-55, 0x1.f742d58e3c060p-52, -0x1.2b29925763ce9p-48, 0x1.656c218af5f27p-45, -0x1.ad2c82f3a3568p-42, 0x1.03390377aa17cp-38, -0x1.3b73679473474p-35, 0x1.836046a613494p-32, -0x1.e12bf812f8fb0p-29, 0x1.2f474e649b270p-25, -0x1.85e058393fec1p-22, 0x1.017edd9198d6ep-18, -0x1.61ee8071861c8p-15, 0x1.032f88ebeaf99p-11, -0x1.aa9a6a29b383bp-8, 0x1.d39b6989eeb7ep-4, \
        0x1.3000000000000p+3, 0.0, 0x1.194f79882a636p+1, 0x1.6c4d65e878529p-53, -0x1.1078ff59e5f21p-55, 0x1.4bf88e8484073p-52, -0x1.95a81d0cc90e9p-49, 0x1.f22386e0c3a18p-46, -0x1.336714c43d5cbp-42, 0x1.7db58e0abdd86p-39, -0x1.dd7e1878712b1p-36, 0x1.2d64c173f1564p-32, -0x1.80dfd6865970fp-29, 0x1.f2cded5f7ff81p-26, -0x1.49a56456e6edfp-22, 0x1.bfb84a7f44c80p-19, -0x1.3c6633241c34dp-15, 0x1.dc87c8751bb0dp-12, -0x1.934db19d39aa6p-8, 0x1.c6a517beb619ep-4, \
        0x1.3800000000000p+3, 0.0, 0x1.1cd063a584615p+1, 0x1.1b10f121e19fdp-55, -0x1.61eadbb310acap-56, 0x1.bad8228f8da99p-53, -0x1.15e57388d85e7p-49, 0x1.5e7e45f8d298ep-46, -0x1.bc504ed533da3p-43, 0x1.1b5a02f8e4190p-39, -0x1.6c1953ee71520p-36, 0x1.d82ad385c3800p-33, -0x1.35b4cb19f9dafp-29, 0x1.9c5d2e7700b19p-26, -0x1.17fcd58d72ce2p-22, 0x1.86b6ddd72f077p-19, -0x1.1bb55d80e3afbp-15, 0x1.b711ee23e2eccp-12, -0x1.7ddc2d0d1fffep-8, 0x1.ba619bdfe25c4p-4, \
        0x1.4000000000000p+3, 0.0, 0x1.20396dc85cc95p+1, 0x1.924e36bef84e6p-53, -0x1.d0e194d486ae0p-57, 0x1.2a7f101d7e632p-53, -0x1.808292b5f0d8dp-50, 0x1.f1c0b8781cce8p-47, -0x1.43d4e8d59538cp-43, 0x1.a7f6808ce3d98p-40, -0x1.179bfd19417d0p-36, 0x1.7439c1ee9ff91p-33, -0x1.f5499e4268f85p-30, 0x1.569cd7846210fp-26, -0x1.ddab27fd9afb2p-23, 0x1.5631a18c1cf1bp-19, -0x1.fe42454a245d8p-16, 0x1.956ea09e4ab25p-12, -0x1.6a14bbe9b38d5p-8, 0x1.aec2e54649b87p-4, \
    }
#define ND_GAM_ROW (ND_GAM_NC + 4)

/* Horner on the piece's 16 coefficients (no FMA: every path, the vector
 * lanes included, computes the same bits) */
#define ND_GAM_H16(C, v) \
    (((((((((((((((C(0) * (v) + C(1)) * (v) + C(2)) * (v) + C(3)) * (v) + C(4)) * (v) + C(5)) * (v) + C(6)) * (v) \
    + C(7)) * (v) + C(8)) * (v) + C(9)) * (v) + C(10)) * (v) + C(11)) * (v) + C(12)) * (v) + C(13)) * (v)      \
    + C(14)) * (v) + C(15))

/* f(x + k) from the table tab of f (ND_GAM_TAB_*), k a small integer and
 * x + k in [0.625, 10.125) (clamped into the table elsewhere, so that any
 * input is safe): the piece of x + k (rounded: it only picks the piece),
 * t = x + k - centre computed exactly as x - (chi - k) - clo (chi - k and
 * the difference are exact: Sterbenz), f = a + (alo + t Q(t)). The table
 * is flat, a row of ND_GAM_ROW a piece. */
ND_GAM_INL double nd_gam_piece(const double *tab, double x, double k)
{
    const double y = x + k;
    const double yc = y < 0.625 ? 0.625 : (y < 10.0 ? y : 10.0);
    const int o = (int)((yc - 0.625) * 4.0) * ND_GAM_ROW;
    const double t = (x - (tab[o] - k)) - tab[o + 1];
#define ND_GAM_C(j) tab[o + 4 + (j)]
    const double q = ND_GAM_H16(ND_GAM_C, t);
#undef ND_GAM_C
    return tab[o + 2] + (tab[o + 3] + t * q);
}
ND_GAM_INL double nd_gam_lgamma_tab(double x, double k)
{
    static const double tab[ND_GAM_NPIECE * ND_GAM_ROW] = ND_GAM_TAB_LGAMMA;
    return nd_gam_piece(tab, x, k);
}
ND_GAM_INL double nd_gam_gamma_tab(double x, double k)
{
    static const double tab[ND_GAM_NPIECE * ND_GAM_ROW] = ND_GAM_TAB_GAMMA;
    return nd_gam_piece(tab, x, k);
}
ND_GAM_INL double nd_gam_digamma_tab(double x, double k)
{
    static const double tab[ND_GAM_NPIECE * ND_GAM_ROW] = ND_GAM_TAB_DIGAMMA;
    return nd_gam_piece(tab, x, k);
}

/* ------------------------------------------------------------------ */
/* lgamma and gamma                                                    */
/* ------------------------------------------------------------------ */
/* Stirling's series sum B_2k / (2k (2k-1) x^(2k-1)), x >= 10 (one
 * division) */
ND_GAM_INL double nd_stirling_tail(double x)
{
    const double w = 1.0 / x, z = w * w;
    const double s = 1.0 / 12 + z * (-1.0 / 360 + z * (1.0 / 1260 + z * (-1.0 / 1680 + z * (1.0 / 1188 + z * (-691.0 / 360360
                     + z * (1.0 / 156 + z * (-3617.0 / 122400)))))));
    return s * w;
}
/* lgamma(x) for x >= 10 given l = log(x): Stirling */
ND_GAM_INL double nd_lgamma_stirling(double x, double l)
{
    return (x - 0.5) * (l - 1.0) + ((ND_LN_SQRT_2PI - 0.5) + nd_stirling_tail(x));
}
#define ND_GAM_TOP 10.125 /* the table's end */
/* lgamma(x) for 0 < x < 10.125 given l = log(x) (used below 0.625 only):
 * lgamma(x + 1) - l below the table (t exact), the table */
ND_GAM_INL double nd_lgamma_pos_tab(double x, double l)
{
    return x < 0.625 ? nd_gam_lgamma_tab(x, 1.0) - l : nd_gam_lgamma_tab(x, 0.0);
}
/* lgamma(x) for x > 0 (+inf included): the pieces, Stirling from 10.125
 * (the vector kernels of src/cpu/vmath_special.c compute the same
 * formulas on another log) */
ND_HOSTDEV static inline double nd_lgamma_pos(double x)
{
    if (x < ND_GAM_TOP) return nd_lgamma_pos_tab(x, x < 0.625 ? log(x) : 0.0);
    return nd_lgamma_stirling(x, log(x));
}
/* log|gamma(x)| and the sign of gamma(x) (SciPy's gammaln and its sign:
 * +inf at the poles, where the sign is +1, and -inf at -inf as SciPy) */
ND_HOSTDEV static inline double nd_lgamma_sgn_f64(double x, int *sgn)
{
    *sgn = 1;
    if (x > 0) return nd_lgamma_pos(x); /* +inf included */
    if (nd_isnan_f64(x)) return x;
    if (nd_isinf_f64(x)) return x;
    if (x == 0 || nd_is_int_f64(x)) return (double)INFINITY;
    /* negative non-integer: the sign of gamma is (-1)^ceil(-x) */
    const double fl = floor(x);
    if (fmod(fl, 2.0) != 0) *sgn = -1;
    if (x > -0.375) return nd_gam_lgamma_tab(x, 1.0) - log(-x); /* x + 1 would round: t exact */
    if (x > -13.0) {
        /* gamma(x) = gamma(x + n) / (x (x+1) ... (x+n-1)), x + n in (0, 1) */
        nd_dd p = nd_dd_make(1.0, 0.0);
        double y = x;
        while (y < 0) {
            p = nd_dd_mul_d(p, y);
            y += 1.0; /* exact: |y| shrinks */
        }
        const double ph = fabs(p.hi), pl = p.hi < 0 ? -p.lo : p.lo;
        return nd_lgamma_pos(y) - (log(ph) + pl / ph);
    }
    /* reflection: gamma(x) gamma(-x) = -pi / (x sin(pi x)) */
    const double s = fabs(nd_sinpi_f64(x));
    return log(ND_PI / (s * -x)) - nd_lgamma_stirling(-x, log(-x));
}
ND_HOSTDEV static inline double nd_op_lgamma_f64(double x)
{
    int sg;
    return nd_lgamma_sgn_f64(x, &sg);
}
ND_HOSTDEV static inline float nd_op_lgamma_f32(float x) { return (float)nd_op_lgamma_f64((double)x); }

/* gamma(x) for x >= 10: sqrt(2 pi) exp(Stirling's tail) x^(x-1/2) e^-x,
 * the first two factors as one series in the tail (< 0.0083; the exp's
 * Taylor series), x^(x-1/2) by one pow while it cannot overflow (x < 143),
 * as (x^(x/2-1/4))^2 above */
ND_HOSTDEV static inline double nd_gamma_big(double x)
{
    if (x > 171.625) return (double)INFINITY;
    const double s = nd_stirling_tail(x), c = ND_SQRT_2PI;
    const double es = c + s * (c + s * (c / 2 + s * (c / 6 + s * (c / 24 + s * (c / 120 + s * (c / 720))))));
    if (x < 143.0) return es * (pow(x, x - 0.5) * exp(-x));
    const double h = pow(x, 0.5 * x - 0.25);
    return es * (h * (h * exp(-x)));
}
/* gamma(x) for x > 0 */
ND_HOSTDEV static inline double nd_gamma_pos(double x)
{
    if (x < 0.625) return nd_gam_gamma_tab(x, 1.0) / x;
    if (x < ND_GAM_TOP) return nd_gam_gamma_tab(x, 0.0);
    return nd_gamma_big(x);
}
ND_HOSTDEV static inline double nd_op_gamma_f64(double x)
{
    if (x > 0) return nd_gamma_pos(x); /* +inf included */
    if (nd_isnan_f64(x)) return x;
    if (x == 0) return nd_signbit_bits_f64(x) ? -(double)INFINITY : (double)INFINITY;
    if (nd_is_int_f64(x)) return (double)NAN; /* the poles and -inf */
    if (x > -0.375) return nd_gam_gamma_tab(x, 1.0) / x; /* x + 1 would round: t exact */
    if (x > -20.0) {
        nd_dd p = nd_dd_make(1.0, 0.0);
        double y = x;
        if (x > -0.5) { /* x + 1 would round: gamma(x + 2) / (x (x + 1)) */
            p = nd_dd_mul(nd_dd_make(x, 0.0), nd_dd_add(nd_dd_make(x, 0.0), nd_dd_make(1.0, 0.0)));
            return nd_gam_gamma_tab(x, 2.0) / p.hi * (1.0 - p.lo / p.hi);
        }
        while (y < 0) {
            p = nd_dd_mul_d(p, y);
            y += 1.0;
        }
        const double g = nd_gamma_pos(y);
        return g / p.hi * (1.0 - p.lo / p.hi);
    }
    /* reflection: gamma(x) = -pi / (x sin(pi x) gamma(-x)) */
    const double t = -ND_PI / (x * nd_sinpi_f64(x));
    if (-x <= 171.6) return t / nd_gamma_pos(-x);
    return t * exp(-nd_lgamma_stirling(-x, log(-x))); /* subnormal or zero results */
}
ND_HOSTDEV static inline float nd_op_gamma_f32(float x) { return (float)nd_op_gamma_f64((double)x); }

/* ------------------------------------------------------------------ */
/* digamma                                                             */
/* ------------------------------------------------------------------ */
/* psi(x) for x >= 10 given l = log(x): the asymptotic series (the CPU's
 * vector kernels compute it on libmvec's log) */
ND_GAM_INL double nd_digamma_asym(double x, double l)
{
    const double w = 1.0 / x, z = w * w;
    const double s = 1.0 / 12 + z * (-1.0 / 120 + z * (1.0 / 252 + z * (-1.0 / 240 + z * (1.0 / 132 + z * (-691.0 / 32760
                     + z * (1.0 / 12 + z * (-3617.0 / 8160 + z * (43867.0 / 14364))))))));
    return l - (0.5 * w + s * z);
}
ND_HOSTDEV static inline double nd_digamma_big(double x) { return nd_digamma_asym(x, log(x)); }
ND_HOSTDEV static inline double nd_op_digamma_f64(double x)
{
    if (x >= ND_GAM_TOP) return nd_digamma_big(x); /* +inf included */
    if (x >= 0.625) return nd_gam_digamma_tab(x, 0.0);
    if (nd_isnan_f64(x)) return x;
    if (x == 0) return nd_signbit_bits_f64(x) ? (double)INFINITY : -(double)INFINITY;
    if (x < 0 && nd_is_int_f64(x)) return (double)NAN; /* the poles and -inf */
    if (fabs(x) < 0x1p-60) return -1.0 / x - ND_EULER; /* psi(x) = -1/x - gamma + O(x) */
    if (x > 0) return nd_gam_digamma_tab(x, 1.0) - 1.0 / x;
    if (x <= -10.0) {
        /* psi(x) = psi(-x) - 1/x - pi cot(pi x) */
        return nd_digamma_big(-x) - 1.0 / x - ND_PI * nd_cospi_f64(x) / nd_sinpi_f64(x);
    }
    /* bring x into (1, 2]: psi(x) = psi(y) - sum of 1/(...), in double-double */
    if (x > -1.0) { /* y = x + 2 (t exact) */
        const nd_dd acc = nd_dd_add(nd_dd_recip(-x), nd_dd_recip(-(x + 1.0)));
        return nd_gam_digamma_tab(x, 2.0) + acc.lo + acc.hi;
    }
    nd_dd acc = nd_dd_make(0.0, 0.0);
    double y = x; /* y = x + n exact */
    while (y <= 1.0) {
        acc = nd_dd_add(acc, nd_dd_recip(-y));
        y += 1.0;
    }
    return nd_gam_digamma_tab(y, 0.0) + acc.lo + acc.hi;
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
/* lgamma(1 + a) for a in [0, 1.5] (relative to its value near 0 and 1:
 * the table's t is exact) */
ND_HOSTDEV static inline double nd_lgamma1p_small(double a) { return nd_gam_lgamma_tab(a, 1.0); }
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
