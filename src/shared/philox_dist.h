/*
 * The random distributions beyond uniform and normal (nd_random_gamma,
 * nd_random_binomial, ...; include/ndgpu/random.h), computed per element
 * by the one function nd_rdist_element, which the CPU loop and the CUDA
 * kernel both call, so both give the same values bit for bit.
 *
 * THE STREAM OF AN ELEMENT
 *
 *   A call of n elements (n rows for the row distributions: multinomial,
 *   dirichlet, multivariate normal) at stream position `offset` gives
 *   element i (C order of the result shape without the row axis) its own
 *   sub-stream of Philox blocks:
 *
 *       j       = offset + i                              (mod 2^64)
 *       block k = Philox4x32-10(counter = { j & 0xffffffff, j >> 32,
 *                                           k & 0xffffffff, k >> 32 }, key)
 *
 *   for k = 0, 1, 2, ... with the key of src/shared/philox.h (block 0 is
 *   block j of the ordinary stream). The element reads the words of its
 *   blocks in order (w[0..3] of block 0, then of block 1, ...), as many as
 *   its algorithm needs: rejection loops simply read further, so no
 *   element depends on another's rejections, and the call advances the
 *   offset by n blocks. From the words:
 *
 *     u     = ((w_a << 32 | w_b) >> 11) * 2^-53   in [0, 1)  (two words)
 *     u_pos = u + 2^-53                           in (0, 1]
 *     N     = Box-Muller from u1 = u_pos, u2 = u (four words): r cos t,
 *             and r sin t is kept for the element's next normal
 *     integer in [0, m) = floor((w_a << 32 | w_b) * m / 2^64)  (two words)
 *     E     = -ln u_pos                           (standard exponential)
 *
 *   and each distribution below states its draws in order. Every step is
 *   one IEEE double operation (+ - * / sqrt, exact floor/fabs/fmod) in the
 *   written order, and ln, exp, sin, cos, atan are the library's own
 *   (nd_philox_log, nd_rd_exp, nd_philox_sincos, nd_rd_atan: fdlibm's
 *   algorithms with + - * / only), never the platform's libm or CUDA's
 *   libdevice. The files that include this header are compiled without
 *   contraction into fused multiply-adds (ISO C mode on the host,
 *   -ffp-contract=off for the emulated device, -fmad=false for nvcc: see
 *   the Makefile and the rules of src/shared/philox.h), so the plain
 *   operators below round every step.
 *
 * THE ALGORITHMS (NumPy's Generator where it has the distribution, in
 * NumPy's parameter conventions; the words they read are this library's)
 *
 *   exponential(scale)      scale E
 *   gamma(shape, scale)     scale G(shape): shape == 1: E; shape > 1:
 *                           Marsaglia-Tsang (loop: N until 1 + cN > 0,
 *                           then u_pos; squeeze, then ln); shape < 1:
 *                           G(shape + 1), then u_pos: G u^(1 / shape)
 *   beta(a, b)              a, b <= 1: Johnk (loop: u_pos, u_pos; in
 *                           logarithms when both powers underflow); else
 *                           G(a) / (G(a) + G(b)), G(a) first
 *   chisquare(df)           2 G(df / 2)
 *   standard_t(df)          N, then G(df / 2): sqrt(df / 2) N / sqrt(G)
 *   f(dfnum, dfden)         (2 G(dfnum / 2) dfden) / (2 G(dfden / 2) dfnum)
 *   lognormal(mean, sigma)  exp(mean + sigma N)
 *   laplace(loc, scale)     u (again while u == 0): u >= 1/2: loc - scale
 *                           ln(2 - 2u), else loc + scale ln(2u)
 *   logistic(loc, scale)    u (again while 0): loc + scale ln(u / (1 - u))
 *   gumbel(loc, scale)      v = 1 - u (again while v == 1): loc - scale
 *                           ln(-ln v)
 *   weibull(a)              a == 0: 0; else exp(ln(E) / a)
 *   pareto(a)               expm1(E / a)
 *   rayleigh(scale)         scale sqrt(2 E)
 *   cauchy(loc, scale)      loc + scale N1 / N2 (both halves of one
 *                           Box-Muller pair)
 *   vonmises(mu, kappa)     kappa < 1e-8: pi (2u - 1); kappa > 1e6: mu +
 *                           N / sqrt(kappa) wrapped to [-pi, pi]; else
 *                           Best-Fisher (loop: u, u_pos), then u for the
 *                           sign, result wrapped to [-pi, pi]
 *   truncated_normal(mean, std, low, high)
 *                           z in [a, b] = [(low - mean)/std, (high -
 *                           mean)/std] by Robert's (1995) rejection:
 *                           normal proposals (loop: N) when a < 0 < b and
 *                           b - a >= sqrt(2 pi); else, mirrored so that
 *                           b > 0, uniform proposals z = a + (b - a) u
 *                           accepted when u_pos <= exp((m^2 - z^2) / 2)
 *                           (m the point of [a, b] nearest 0) or, when the
 *                           interval reaches far into the tail,
 *                           translated-exponential proposals (Robert's
 *                           choice rule); the value is mean + std z
 *   binomial(n, p)          p' = min(p, 1 - p); n p' <= 30: inversion
 *                           (u, restarting with a new u past the bound);
 *                           else BTPE (Kachitvichyanukul-Schmeiser; loop:
 *                           u, u); p > 1/2 gives n minus the count
 *   poisson(lam)            lam < 10: inversion (one u; ends where the
 *                           partial sums stop growing); else PTRS
 *                           (Hormann; loop: u, u_pos)
 *   geometric(p)            ceil(ln(u_pos) / log1p(-p)), at least 1
 *   negative_binomial(n, p) poisson(G(n) (1 - p) / p)
 *   hypergeometric(ngood, nbad, nsample)
 *                           10 <= nsample <= total - 10: HRUA (Stadlober;
 *                           loop: u_pos, u); else the urn drawn ball by
 *                           ball (integers) from the smaller side
 *   multinomial(n, pvals)   binomial(n_left, p_c / p_left) for c in order
 *   dirichlet(alpha)        max(alpha) < 0.1: stick breaking with beta;
 *                           else G(alpha_c) for c in order, divided by
 *                           their sum (added in order)
 *   multivariate_normal     N_0 .. N_{d-1}, x_r = mean_r + sum_{c <= r}
 *                           L[r][c] N_c in order (L the Cholesky factor)
 *
 * Element results are doubles (continuous) or int64 (discrete), written to
 * a contiguous float64 / int64 array that the core casts to the requested
 * dtype. NaN parameters of the continuous distributions give NaN.
 *
 * WORK DONE ONCE, NOT PER ELEMENT (none of it changes a value): with scalar
 * parameters the core plans binomial, Poisson and gamma once per call
 * (nd_rdist_plan: BTPE's and PTRS's constants, the inversions' probability
 * tables, BTPE's table of f(y)/f(m), Marsaglia-Tsang's b and c), computed
 * by the same operations an element would run; and the CPU computes the
 * first Philox blocks, and for the distributions that start with a normal
 * the first Box-Muller pair, of 64 elements at once in vector code
 * (src/cpu/random.c), which the elements then read instead of computing;
 * with scalar parameters it also computes the first try of exponential,
 * Marsaglia-Tsang, PTRS, BTPE and the binomial and Poisson inversions
 * there for the 64 elements (the operations
 * of the bodies below, in their order), and only the elements whose first
 * try rejects run nd_rdist_element_pre. The tests compare both ways (array
 * parameters plan per element and run every element's whole body; the GPU
 * computes every block itself) bit for bit.
 */
#ifndef ND_PHILOX_DIST_H
#define ND_PHILOX_DIST_H

#include "shared/philox.h"

/* The distributions (the dist argument of nd_backend.random). */
#define ND_RANDOM_EXPONENTIAL 8
#define ND_RANDOM_GAMMA 9
#define ND_RANDOM_BETA 10
#define ND_RANDOM_CHISQUARE 11
#define ND_RANDOM_STANDARD_T 12
#define ND_RANDOM_F 13
#define ND_RANDOM_LOGNORMAL 14
#define ND_RANDOM_LAPLACE 15
#define ND_RANDOM_LOGISTIC 16
#define ND_RANDOM_GUMBEL 17
#define ND_RANDOM_WEIBULL 18
#define ND_RANDOM_PARETO 19
#define ND_RANDOM_RAYLEIGH 20
#define ND_RANDOM_CAUCHY 21
#define ND_RANDOM_VONMISES 22
#define ND_RANDOM_TRUNCATED_NORMAL 23
#define ND_RANDOM_BINOMIAL 24 /* first discrete: int64 results */
#define ND_RANDOM_POISSON 25
#define ND_RANDOM_GEOMETRIC 26
#define ND_RANDOM_NEGATIVE_BINOMIAL 27
#define ND_RANDOM_HYPERGEOMETRIC 28
#define ND_RANDOM_MULTINOMIAL 29 /* rows of k int64 */
#define ND_RANDOM_DIRICHLET 30   /* rows of k doubles */
#define ND_RANDOM_MVNORMAL 31    /* rows of k doubles */
#define ND_RANDOM_DIST_FIRST ND_RANDOM_EXPONENTIAL
#define ND_RANDOM_DIST_END 32

/* Whether a distribution's values are integers (int64), and whether it
 * writes rows of c->k values. */
ND_HOSTDEV static inline int nd_rdist_is_discrete(int dist)
{
    return (dist >= ND_RANDOM_BINOMIAL && dist <= ND_RANDOM_HYPERGEOMETRIC) || dist == ND_RANDOM_MULTINOMIAL;
}
ND_HOSTDEV static inline int nd_rdist_is_row(int dist) { return dist >= ND_RANDOM_MULTINOMIAL; }

#define ND_RD_PI 0x1.921fb54442d18p+1

/* ------------------------------------------------------------------ */
/* exp, log anywhere, log1p, expm1, atan (same bits on every backend)   */
/* ------------------------------------------------------------------ */

/* ln x for every double: NaN and negatives NaN, 0 -inf, +inf +inf,
 * subnormals through 2^54 x. */
ND_HOSTDEV static inline double nd_rd_log(double x)
{
    if (!(x > 0.0)) return x == 0.0 ? -INFINITY : NAN;
    if (x == INFINITY) return x;
    if (x < 0x1p-1022) return nd_philox_log(x * 0x1p54) - 54.0 * ND_PHILOX_LN2_HI - 54.0 * ND_PHILOX_LN2_LO;
    return nd_philox_log(x);
}

/* e^x (fdlibm e_exp.c): x = k ln2 + r, |r| <= ln2 / 2, r = hi - lo,
 * e^r = 1 + r + r c / (2 - c) with c = r - r^2 P(r^2), then scaled by
 * 2^k exactly (or rounded once into the subnormals). < 1 ulp. */
ND_HOSTDEV static inline double nd_rd_exp(double x)
{
    if (x != x) return x;
    if (x > 7.09782712893383973096e+02) return INFINITY;
    if (x < -7.45133219101941108420e+02) return 0.0;
    double ax = fabs(x), hi = x, lo = 0.0;
    int k = 0;
    if (ax > 0.34657359027997264) { /* ln 2 / 2 */
        k = (int)(x * 1.44269504088896338700e+00 + (x < 0 ? -0.5 : 0.5));
        double t = (double)k;
        hi = x - t * ND_PHILOX_LN2_HI;
        lo = t * ND_PHILOX_LN2_LO;
        x = hi - lo;
    } else if (ax < 0x1p-28) {
        return 1.0 + x;
    }
    double t = x * x;
    double c = x - t * (1.66666666666666019037e-01 +
                        t * (-2.77777777770155933842e-03 +
                             t * (6.61375632143793436117e-05 +
                                  t * (-1.65339022054652515390e-06 + t * 4.13813679705723846039e-08))));
    if (k == 0) return 1.0 - ((x * c) / (c - 2.0) - x);
    double y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi);
    if (k >= -1021) {
        if (k == 1024) return y * 2.0 * 0x1p1023;
        return y * nd_philox_bitsd((uint64_t)(0x3ff + k) << 52);
    }
    return y * nd_philox_bitsd((uint64_t)(0x3ff + k + 1000) << 52) * 0x1p-1000;
}

/* ln(1 + x) (Goldberg: u = 1 + x rounded, ln u * x / (u - 1) corrects
 * the rounding of u; a few ulp). */
ND_HOSTDEV static inline double nd_rd_log1p(double x)
{
    double u = 1.0 + x;
    if (u == 1.0) return x;
    if (u == INFINITY) return u;
    return nd_rd_log(u) * (x / (u - 1.0));
}

/* e^x - 1 (Kahan: u = e^x, (u - 1) x / ln u; a few ulp). */
ND_HOSTDEV static inline double nd_rd_expm1(double x)
{
    double u = nd_rd_exp(x);
    if (u == 1.0) return x;
    double um1 = u - 1.0;
    if (um1 == -1.0 || u == INFINITY) return um1;
    return um1 * (x / nd_rd_log(u));
}

/* atan x (fdlibm s_atan.c: reduction to |x| < 7/16 around atan(1/2),
 * atan(1), atan(3/2), atan(inf), then an odd polynomial). < 1 ulp. */
ND_HOSTDEV static inline double nd_rd_atan(double x)
{
    if (x != x) return x;
    const int neg = x < 0;
    double ax = fabs(x), h, l;
    int id;
    if (ax >= 0x1p66) return neg ? -(1.57079632679489655800e+00 + 6.12323399573676603587e-17)
                                 : 1.57079632679489655800e+00 + 6.12323399573676603587e-17;
    if (ax < 0.4375) {
        if (ax < 0x1p-29) return x;
        id = -1;
    } else if (ax < 1.1875) {
        if (ax < 0.6875) id = 0, ax = (2.0 * ax - 1.0) / (2.0 + ax);
        else id = 1, ax = (ax - 1.0) / (ax + 1.0);
    } else if (ax < 2.4375) {
        id = 2, ax = (ax - 1.5) / (1.0 + 1.5 * ax);
    } else {
        id = 3, ax = -1.0 / ax;
    }
    double z = ax * ax, w = z * z;
    double s1 = z * (3.33333333333329318027e-01 +
                     w * (1.42857142725034663711e-01 +
                          w * (9.09088713343650656196e-02 +
                               w * (6.66107313738753120669e-02 +
                                    w * (4.97687799461593236017e-02 + w * 1.62858201153657823623e-02)))));
    double s2 = w * (-1.99999999998764832476e-01 +
                     w * (-1.11111104054623557880e-01 +
                          w * (-7.69187620504482999495e-02 +
                               w * (-5.83357013379057348645e-02 + w * -3.65315727442169155270e-02))));
    if (id < 0) return x - x * (s1 + s2);
    switch (id) {
    case 0: h = 4.63647609000806093515e-01, l = 2.26987774529616870924e-17; break;
    case 1: h = 7.85398163397448278999e-01, l = 3.06161699786838301793e-17; break;
    case 2: h = 9.82793723247329054082e-01, l = 1.39033110312309984516e-17; break;
    default: h = 1.57079632679489655800e+00, l = 6.12323399573676603587e-17; break;
    }
    double r = h - ((ax * (s1 + s2) - l) - ax);
    return neg ? -r : r;
}

/* acos w for w in [-1, 1]: 2 atan(sqrt((1 - w) / (1 + w))). */
ND_HOSTDEV static inline double nd_rd_acos(double w)
{
    if (w <= -1.0) return ND_RD_PI;
    return 2.0 * nd_rd_atan(sqrt((1.0 - w) / (1.0 + w)));
}

/* ln Gamma(x) for x >= 1 as NumPy's random_loggam (Stirling's series
 * with ten terms after shifting x up to 7; exact 0 at 1 and 2). */
ND_HOSTDEV static inline double nd_rd_loggam(double x)
{
    if (x == 1.0 || x == 2.0) return 0.0;
    int n = x < 7.0 ? (int)(7.0 - x) : 0;
    double x0 = x + n, x2 = (1.0 / x0) * (1.0 / x0);
    double gl0 = -1.39243221690590e+00;
    gl0 = gl0 * x2 + 1.796443723688307e-01;
    gl0 = gl0 * x2 + -2.955065359477124e-02;
    gl0 = gl0 * x2 + 6.410256410256410e-03;
    gl0 = gl0 * x2 + -1.917526917526918e-03;
    gl0 = gl0 * x2 + 8.417508417508418e-04;
    gl0 = gl0 * x2 + -5.952380952380952e-04;
    gl0 = gl0 * x2 + 7.936507936507937e-04;
    gl0 = gl0 * x2 + -2.777777777777778e-03;
    gl0 = gl0 * x2 + 8.333333333333333e-02;
    double gl = gl0 / x0 + 0.5 * 1.8378770664093453e+00 + (x0 - 0.5) * nd_rd_log(x0) - x0;
    for (int k = 1; k <= n; k++) {
        gl -= nd_rd_log(x0 - 1.0);
        x0 -= 1.0;
    }
    return gl;
}

/* ------------------------------------------------------------------ */
/* The sub-stream of one element                                       */
/* ------------------------------------------------------------------ */

typedef struct nd_rstream {
    uint32_t key[2];
    uint32_t ctr[4]; /* j lo, j hi, k lo, k hi: the next block */
    uint32_t w[4];
    int pos;         /* next word of w; 4: read the next block */
    int has_spare;
    double spare;    /* r sin t of the last Box-Muller pair */
    const uint32_t *pre; /* precomputed first blocks (nd_rs_init_pre) */
    int npre, ipre;      /* their words, the next one */
    const double *bm0;   /* NULL, or the Box-Muller pair of block 0's words */
} nd_rstream;

ND_HOSTDEV static inline void nd_rs_init(nd_rstream *s, uint64_t seed, uint64_t j)
{
    s->key[0] = (uint32_t)seed, s->key[1] = (uint32_t)(seed >> 32);
    s->ctr[0] = (uint32_t)j, s->ctr[1] = (uint32_t)(j >> 32), s->ctr[2] = 0u, s->ctr[3] = 0u;
    s->pos = 4;
    s->has_spare = 0;
    s->spare = 0.0;
    s->pre = 0;
    s->npre = s->ipre = 0;
    s->bm0 = 0;
}

/* The same stream with its first `nb` blocks (k = 0 .. nb-1) already
 * computed, words w[4 k .. 4 k + 3] (the CPU computes them for many
 * elements at once, in vector registers): the element reads them first. */
ND_HOSTDEV static inline void nd_rs_init_pre(nd_rstream *s, uint64_t seed, uint64_t j, const uint32_t *w, int nb)
{
    nd_rs_init(s, seed, j);
    s->pre = w;
    s->npre = 4 * nb;
    s->ctr[2] = (uint32_t)nb;
}

ND_HOSTDEV static inline uint32_t nd_rs_word(nd_rstream *s)
{
    if (s->ipre < s->npre) return s->pre[s->ipre++];
    if (s->pos == 4) {
        nd_philox4x32_10(s->ctr, s->key, s->w);
        if (++s->ctr[2] == 0u) ++s->ctr[3];
        s->pos = 0;
    }
    return s->w[s->pos++];
}
ND_HOSTDEV static inline uint64_t nd_rs_u64(nd_rstream *s)
{
    uint64_t h = nd_rs_word(s);
    return h << 32 | nd_rs_word(s);
}
/* u in [0, 1), u_pos in (0, 1] */
ND_HOSTDEV static inline double nd_rs_u(nd_rstream *s) { return (double)(nd_rs_u64(s) >> 11) * 0x1p-53; }
ND_HOSTDEV static inline double nd_rs_upos(nd_rstream *s) { return nd_rs_u(s) + 0x1p-53; }
/* integer in [0, m), m >= 1 */
ND_HOSTDEV static inline uint64_t nd_rs_below(nd_rstream *s, uint64_t m) { return nd_philox_mulhi64(nd_rs_u64(s), m); }
ND_HOSTDEV static inline double nd_rs_exp(nd_rstream *s) { return -nd_philox_log(nd_rs_upos(s)); }
ND_HOSTDEV static inline double nd_rs_normal(nd_rstream *s)
{
    if (s->has_spare) {
        s->has_spare = 0;
        return s->spare;
    }
    if (s->bm0 && s->ipre == 0 && s->npre >= 4) { /* the pair of words 0..3, computed beforehand */
        s->ipre = 4;
        s->spare = s->bm0[1];
        s->has_spare = 1;
        return s->bm0[0];
    }
    double u1 = nd_rs_upos(s), u2 = nd_rs_u(s), z0, z1;
    nd_philox_box_muller(u1, u2, &z0, &z1);
    s->spare = z1;
    s->has_spare = 1;
    return z0;
}

/* ------------------------------------------------------------------ */
/* Continuous                                                          */
/* ------------------------------------------------------------------ */

/* Marsaglia-Tsang for shape > 1, b = shape - 1/3, c = 1 / sqrt(9 b) (the
 * call's plan holds them for a scalar shape); NumPy's
 * random_standard_gamma for shape > 1. */
ND_HOSTDEV static inline double nd_rd_std_gamma_mt(nd_rstream *s, double b, double c)
{
    for (;;) {
        double x, v;
        do {
            x = nd_rs_normal(s);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        double u = nd_rs_upos(s), x2 = x * x;
        if (u < 1.0 - 0.0331 * (x2 * x2)) return b * v;
        if (nd_philox_log(u) < 0.5 * x2 + b * (1.0 - v + nd_philox_log(v))) return b * v;
    }
}

/* G(shape), shape >= 0 (NumPy's random_standard_gamma). */
ND_HOSTDEV static inline double nd_rd_std_gamma(nd_rstream *s, double shape)
{
    if (shape == 1.0) return nd_rs_exp(s);
    if (shape == 0.0) return 0.0;
    /* shape < 1: G(shape) = G(shape + 1) u^(1 / shape) (Marsaglia-Tsang's
     * boost; u read after the draw of G(shape + 1)) */
    const double k = shape < 1.0 ? shape + 1.0 : shape;
    const double b = k - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * b);
    const double g = nd_rd_std_gamma_mt(s, b, c);
    if (shape >= 1.0) return g;
    return g * nd_rd_exp(nd_philox_log(nd_rs_upos(s)) / shape);
}
/* Beta(a, b), a, b > 0 (NumPy's random_beta). */
ND_HOSTDEV static inline double nd_rd_beta(nd_rstream *s, double a, double b)
{
    if (a <= 1.0 && b <= 1.0) {
        for (;;) {
            double u = nd_rs_upos(s), v = nd_rs_upos(s);
            double lu = nd_philox_log(u), lv = nd_philox_log(v);
            double x = nd_rd_exp(lu / a), y = nd_rd_exp(lv / b), xy = x + y;
            if (xy <= 1.0) {
                if (xy > 0.0) return x / xy;
                double lx = lu / a, ly = lv / b, lm = lx > ly ? lx : ly;
                lx -= lm, ly -= lm;
                return nd_rd_exp(lx - nd_rd_log(nd_rd_exp(lx) + nd_rd_exp(ly)));
            }
        }
    }
    double ga = nd_rd_std_gamma(s, a), gb = nd_rd_std_gamma(s, b);
    return ga / (ga + gb);
}

/* x wrapped to [-pi, pi] as NumPy's vonmises does. */
ND_HOSTDEV static inline double nd_rd_wrap_pi(double x)
{
    int neg = x < 0;
    double m = fmod(fabs(x) + ND_RD_PI, 2.0 * ND_RD_PI) - ND_RD_PI;
    return neg ? -m : m;
}

ND_HOSTDEV static inline double nd_rd_vonmises(nd_rstream *s, double mu, double kappa)
{
    if (kappa < 1e-8) return ND_RD_PI * (2.0 * nd_rs_u(s) - 1.0);
    double sv;
    if (kappa < 1e-5) {
        sv = 1.0 / kappa + kappa;
    } else if (kappa <= 1e6) {
        double r = 1.0 + sqrt(1.0 + 4.0 * kappa * kappa);
        double rho = (r - sqrt(2.0 * r)) / (2.0 * kappa);
        sv = (1.0 + rho * rho) / (2.0 * rho);
    } else {
        double x = mu + sqrt(1.0 / kappa) * nd_rs_normal(s);
        if (x < -ND_RD_PI) x += 2.0 * ND_RD_PI;
        if (x > ND_RD_PI) x -= 2.0 * ND_RD_PI;
        return x;
    }
    double w;
    for (;;) {
        double u = nd_rs_u(s), sn, cs;
        nd_philox_sincos(ND_RD_PI * u, &sn, &cs);
        w = (1.0 + sv * cs) / (sv + cs);
        double y = kappa * (sv - w), v = nd_rs_upos(s);
        if (y * (2.0 - y) - v >= 0.0 || nd_rd_log(y / v) + 1.0 - y >= 0.0) break;
    }
    double x = nd_rd_acos(w);
    if (nd_rs_u(s) < 0.5) x = -x;
    return nd_rd_wrap_pi(x + mu);
}

/* Standard normal restricted to [a, b] (a < b, either may be infinite). */
ND_HOSTDEV static inline double nd_rd_trunc_std(nd_rstream *s, double a, double b)
{
    if (a < 0.0 && b > 0.0 && b - a >= 2.5066282746310002) { /* sqrt(2 pi) */
        for (;;) {
            double z = nd_rs_normal(s);
            if (z >= a && z <= b) return z;
        }
    }
    int flip = b <= 0.0; /* mirror so that b > 0 */
    if (flip) {
        double t = a;
        a = -b, b = -t;
    }
    double m = a > 0.0 ? a : 0.0;
    int expo = 0;
    double alpha = 0.0;
    if (a > 0.0) {
        alpha = (a + sqrt(a * a + 4.0)) / 2.0;
        /* Robert's rule: translated exponential when [a, b] is wider than
         * 2 sqrt(e) / (a + sqrt(a^2 + 4)) exp((a^2 - a sqrt(a^2 + 4)) / 4) */
        double lim = 2.0 * 1.6487212707001282 / (a + sqrt(a * a + 4.0)) * nd_rd_exp((a * a - a * sqrt(a * a + 4.0)) / 4.0);
        expo = b - a > lim;
    }
    double z;
    for (;;) {
        if (expo) {
            z = a + nd_rs_exp(s) / alpha;
            double d = z - alpha;
            if (z <= b && nd_rs_upos(s) <= nd_rd_exp(-0.5 * d * d)) break;
        } else {
            z = a + (b - a) * nd_rs_u(s);
            if (nd_rs_upos(s) <= nd_rd_exp(0.5 * (m * m - z * z))) break;
        }
    }
    return flip ? -z : z;
}

/* ------------------------------------------------------------------ */
/* Discrete                                                            */
/* ------------------------------------------------------------------ */

/* Binomial and Poisson in two steps: a plan of the parameters (the
 * constants of the algorithm and, for the inversions, the table of the
 * probabilities the per-element loop would compute, in the same order of
 * the same operations), then the draw. The core makes the plan once per
 * call for scalar parameters (nd_rdist_plan, on the host: the same
 * function, so the same bits); with parameter arrays each element makes its
 * own without the table. Either way the values are the same. */
#define ND_RD_TAB 64 /* table entries (nd_philox_call.plan holds 16 + ND_RD_TAB) */
/* plan layout: q[0] kind, q[1] n (binomial), q[2] p' = min(p, 1 - p) or
 * lam, q[3] flip (p > 1/2), q[4] table length (0: none), q[5 .. 17] the
 * constants, q[16 ..] the inversion tables, q[18 .. 58] BTPE's table */
#define ND_RD_TRIVIAL 0.0 /* binomial: n = 0 or p in {0, 1}; Poisson: lam = 0 */
#define ND_RD_INVERSION 1.0
#define ND_RD_REJECTION 2.0 /* BTPE, PTRS */

/* BTPE's explicit f(y) / f(m) = prod over i between m and y of
 * (aa / i - sr), aa = (n + 1) r / q, sr = r / q (the plan tabulates it). */
ND_HOSTDEV static inline double nd_rd_btpe_ratio(double m, double y, double aa, double sr)
{
    double f = 1.0;
    if (m < y) {
        for (double i = m + 1.0; i <= y; i += 1.0) f *= aa / i - sr;
    } else if (m > y) {
        for (double i = y + 1.0; i <= m; i += 1.0) f /= aa / i - sr;
    }
    return f;
}

ND_HOSTDEV static inline void nd_rd_binomial_plan(int64_t n, double p, double *q, int table)
{
    const double dn = (double)n;
    q[1] = dn;
    q[3] = p > 0.5;
    const double r = p > 0.5 ? 1.0 - p : p;
    q[2] = r;
    q[4] = 0.0;
    if (n == 0 || p == 0.0 || p == 1.0) {
        q[0] = ND_RD_TRIVIAL;
        return;
    }
    const double qq = 1.0 - r;
    if (r * dn <= 30.0) {
        q[0] = ND_RD_INVERSION;
        const double qn = nd_rd_exp(dn * nd_rd_log1p(-r)), np = dn * r;
        double bound = np + 10.0 * sqrt(np * qq + 1.0);
        if (bound > dn) bound = dn;
        q[5] = qq, q[6] = qn, q[7] = bound;
        if (table) {
            double px = qn;
            int x = 0;
            q[16] = px;
            while (x + 1 < ND_RD_TAB && (double)(x + 1) <= bound) {
                x++;
                px = ((double)(n - x + 1) * r * px) / ((double)x * qq);
                q[16 + x] = px;
            }
            q[4] = (double)(x + 1);
        }
        return;
    }
    q[0] = ND_RD_REJECTION;
    const double fm = dn * r + r, m = floor(fm);
    const double p1 = floor(2.195 * sqrt(dn * r * qq) - 4.6 * qq) + 0.5;
    const double xm = m + 0.5, xl = xm - p1, xr = xm + p1, c = 0.134 + 20.5 / (15.3 + m);
    double a = (fm - xl) / (fm - xl * r);
    const double laml = a * (1.0 + a / 2.0);
    a = (xr - fm) / (xr * qq);
    const double lamr = a * (1.0 + a / 2.0);
    const double p2 = p1 * (1.0 + 2.0 * c), p3 = p2 + c / laml, p4 = p3 + c / lamr;
    q[5] = qq, q[6] = m, q[7] = p1, q[8] = xm, q[9] = xl, q[10] = xr, q[11] = c;
    q[12] = laml, q[13] = lamr, q[14] = p2, q[15] = p3;
    q[16] = p4, q[17] = dn * r * qq;
    if (table) {
        /* f(y) / f(m) of the draw's explicit evaluation for |y - m| <= 20,
         * each by the same loop the draw runs: q[38 + y - m] */
        const double sr = r / qq, aa = sr * (dn + 1.0);
        for (int d = -20; d <= 20; d++) q[38 + d] = nd_rd_btpe_ratio(m, m + (double)d, aa, sr);
        q[4] = 1.0;
    }
}

/* inversion (NumPy's random_binomial_inversion): u against the
 * probabilities, restarting with a new u past the bound */
ND_HOSTDEV static inline int64_t nd_rd_binomial_inversion(nd_rstream *s, const double *q)
{
    const int64_t n = (int64_t)q[1];
    const double r = q[2], qq = q[5], qn = q[6], bound = q[7];
    const int ntab = (int)q[4];
    int64_t x = 0;
    double px = qn, u = nd_rs_u(s);
    while (u > px) {
        x++;
        if ((double)x > bound) {
            x = 0;
            px = qn;
            u = nd_rs_u(s);
        } else {
            u -= px;
            px = x < ntab ? q[16 + x] : ((double)(n - x + 1) * r * px) / ((double)x * qq);
        }
    }
    return x;
}

/* BTPE (Kachitvichyanukul and Schmeiser 1988) for n min(p, 1-p) > 30,
 * as NumPy's random_binomial_btpe. */
ND_HOSTDEV static inline int64_t nd_rd_binomial_btpe(nd_rstream *s, const double *q)
{
    const double dn = q[1], r = q[2], qq = q[5], m = q[6], p1 = q[7], xm = q[8], xl = q[9], xr = q[10], c = q[11];
    const double laml = q[12], lamr = q[13], p2 = q[14], p3 = q[15], p4 = q[16], nrq = q[17];
    for (;;) {
        double u = nd_rs_u(s) * p4, v = nd_rs_u(s), y;
        if (u <= p1) return (int64_t)floor(xm - p1 * v + u);
        if (u <= p2) {
            double x = xl + (u - p1) / c;
            v = v * c + 1.0 - fabs(m - x + 0.5) / p1;
            if (v > 1.0) continue;
            y = floor(x);
        } else if (u <= p3) {
            if (v == 0.0) continue;
            y = floor(xl + nd_philox_log(v) / laml);
            if (y < 0.0) continue;
            v = v * (u - p2) * laml;
        } else {
            if (v == 0.0) continue;
            y = floor(xr - nd_philox_log(v) / lamr);
            if (y > dn) continue;
            v = v * (u - p3) * lamr;
        }
        double k = fabs(y - m);
        if (!(k > 20.0 && k < nrq / 2.0 - 1.0)) {
            /* explicit evaluation of f(y) / f(m) (from the plan's table
             * when it has one) */
            const double f = q[4] != 0.0 && k <= 20.0 ? q[38 + (int)(y - m)]
                                                       : nd_rd_btpe_ratio(m, y, (r / qq) * (dn + 1.0), r / qq);
            if (v > f) continue;
            return (int64_t)y;
        }
        /* squeeze on ln f(y) / f(m), then the bound with Stirling's terms */
        double rho = (k / nrq) * ((k * (k / 3.0 + 0.625) + 0.16666666666666666) / nrq + 0.5);
        double t = -k * k / (2.0 * nrq);
        double al = nd_rd_log(v);
        if (al < t - rho) return (int64_t)y;
        if (al > t + rho) continue;
        double x1 = y + 1.0, f1 = m + 1.0, z = dn + 1.0 - m, w = dn - y + 1.0;
        double x2 = x1 * x1, f2 = f1 * f1, z2 = z * z, w2 = w * w;
        double bound = xm * nd_philox_log(f1 / x1) + (dn - m + 0.5) * nd_philox_log(z / w) +
                       (y - m) * nd_philox_log(w * r / (x1 * qq)) +
                       (13680. - (462. - (132. - (99. - 140. / f2) / f2) / f2) / f2) / f1 / 166320. +
                       (13680. - (462. - (132. - (99. - 140. / z2) / z2) / z2) / z2) / z / 166320. +
                       (13680. - (462. - (132. - (99. - 140. / x2) / x2) / x2) / x2) / x1 / 166320. +
                       (13680. - (462. - (132. - (99. - 140. / w2) / w2) / w2) / w2) / w / 166320.;
        if (al > bound) continue;
        return (int64_t)y;
    }
}

ND_HOSTDEV static inline int64_t nd_rd_binomial_planned(nd_rstream *s, const double *q)
{
    const int64_t n = (int64_t)q[1];
    if (q[0] == ND_RD_TRIVIAL) return n != 0 && q[3] != 0.0 ? n : 0; /* n = 0, p = 0: 0; p = 1: n */
    const int64_t y = q[0] == ND_RD_INVERSION ? nd_rd_binomial_inversion(s, q) : nd_rd_binomial_btpe(s, q);
    return q[3] != 0.0 ? n - y : y;
}

ND_HOSTDEV static inline int64_t nd_rd_binomial(nd_rstream *s, int64_t n, double p)
{
    double q[18];
    nd_rd_binomial_plan(n, p, q, 0);
    return nd_rd_binomial_planned(s, q);
}

/* The largest mean poisson accepts (NumPy's POISSON_LAM_MAX, int64's
 * maximum less ten standard deviations). */
#define ND_RD_POISSON_LAM_MAX 9.223372006484771e+18

ND_HOSTDEV static inline void nd_rd_poisson_plan(double lam, double *q, int table)
{
    q[2] = lam;
    q[4] = 0.0;
    if (!(lam > 0.0)) {
        q[0] = ND_RD_TRIVIAL;
        return;
    }
    if (lam < 10.0) {
        q[0] = ND_RD_INVERSION;
        q[5] = nd_rd_exp(-lam);
        if (table) {
            /* the partial sums F(x) while they grow (as the draw's loop) */
            double p = q[5], f = p;
            int x = 0;
            q[16] = f;
            for (;;) {
                x++;
                p = p * lam / (double)x;
                double g = f + p;
                if (g == f) {
                    q[4] = (double)x; /* F(0 .. x-1); the draw stops at x */
                    break;
                }
                if (x >= ND_RD_TAB) break; /* (never for lam < 10) no table */
                q[16 + x] = f = g;
            }
        }
        return;
    }
    q[0] = ND_RD_REJECTION;
    const double slam = sqrt(lam), b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
    q[5] = nd_philox_log(lam), q[6] = b, q[7] = a, q[8] = nd_philox_log(invalpha), q[9] = 0.9277 - 3.6224 / (b - 2.0);
}

ND_HOSTDEV static inline int64_t nd_rd_poisson_planned(nd_rstream *s, const double *q)
{
    if (q[0] == ND_RD_TRIVIAL) return 0;
    const double lam = q[2];
    if (q[0] == ND_RD_INVERSION) {
        /* inversion: the first x with u < F(x); the partial sums stop
         * growing once the terms fall below their ulp */
        const double u = nd_rs_u(s);
        const int ntab = (int)q[4];
        if (ntab > 0) {
            int x = 0;
            while (x < ntab && u >= q[16 + x]) x++;
            return x;
        }
        double p = q[5], f = p;
        int64_t x = 0;
        while (u >= f) {
            x++;
            p = p * lam / (double)x;
            double g = f + p;
            if (g == f) break;
            f = g;
        }
        return x;
    }
    /* PTRS (Hormann 1993), as NumPy's random_poisson_ptrs */
    const double loglam = q[5], b = q[6], a = q[7], linvalpha = q[8], vr = q[9];
    for (;;) {
        double u = nd_rs_u(s) - 0.5, v = nd_rs_upos(s), us = 0.5 - fabs(u);
        double k = floor((2.0 * a / us + b) * u + lam + 0.43);
        if (us >= 0.07 && v <= vr) return (int64_t)k;
        if (k < 0.0 || (us < 0.013 && v > us)) continue;
        if (nd_philox_log(v) + linvalpha - nd_philox_log(a / (us * us) + b) <= -lam + k * loglam - nd_rd_loggam(k + 1.0))
            return (int64_t)k;
    }
}

ND_HOSTDEV static inline int64_t nd_rd_poisson(nd_rstream *s, double lam)
{
    double q[10];
    nd_rd_poisson_plan(lam, q, 0);
    return nd_rd_poisson_planned(s, q);
}

ND_HOSTDEV static inline int64_t nd_rd_geometric(nd_rstream *s, double p)
{
    if (p >= 1.0) return 1;
    double z = ceil(nd_philox_log(nd_rs_upos(s)) / nd_rd_log1p(-p));
    if (z < 1.0) return 1;
    if (z >= 9.2233720368547758e18) return INT64_MAX;
    return (int64_t)z;
}

/* ln k! */
ND_HOSTDEV static inline double nd_rd_logfact(int64_t k) { return nd_rd_loggam((double)k + 1.0); }

ND_HOSTDEV static inline int64_t nd_rd_hypergeometric(nd_rstream *s, int64_t good, int64_t bad, int64_t sample)
{
    const int64_t total = good + bad;
    if (sample >= 10 && sample <= total - 10) {
        /* HRUA (Stadlober 1989), as NumPy's hypergeometric_hrua */
        const int64_t cs = sample < total - sample ? sample : total - sample;
        const int64_t mingb = good < bad ? good : bad, maxgb = good < bad ? bad : good;
        const double p = (double)mingb / (double)total, q = (double)maxgb / (double)total;
        const double mu = (double)cs * p, a = mu + 0.5;
        const double var = (double)(total - cs) * (double)cs * p * q / (double)(total - 1);
        const double c = sqrt(var + 0.5), h = 1.7155277699214135 * c + 0.8989161620588988;
        const int64_t m = (int64_t)floor((double)(cs + 1) * (double)(mingb + 1) / (double)(total + 2));
        const double g = nd_rd_logfact(m) + nd_rd_logfact(mingb - m) + nd_rd_logfact(cs - m) +
                         nd_rd_logfact(maxgb - cs + m);
        double b = (double)((cs < mingb ? cs : mingb) + 1), b2 = floor(a + 16.0 * c);
        if (b2 < b) b = b2;
        int64_t k;
        for (;;) {
            double u = nd_rs_upos(s), v = nd_rs_u(s);
            double x = a + h * (v - 0.5) / u;
            if (x < 0.0 || x >= b) continue;
            k = (int64_t)floor(x);
            double t = g - (nd_rd_logfact(k) + nd_rd_logfact(mingb - k) + nd_rd_logfact(cs - k) +
                            nd_rd_logfact(maxgb - cs + k));
            if (u * (4.0 - u) - 3.0 <= t) break;
            if (u * (u - t) >= 1.0) continue;
            if (2.0 * nd_philox_log(u) <= t) break;
        }
        if (good > bad) k = cs - k;
        if (cs < sample) k = good - k;
        return k;
    }
    /* the urn, ball by ball, drawing the smaller of sample and its complement */
    const int64_t half = sample > total / 2;
    int64_t left = half ? total - sample : sample, rt = total, rg = good;
    while (left > 0 && rg > 0 && rt > rg) {
        if ((int64_t)nd_rs_below(s, (uint64_t)rt) < rg) --rg;
        --rt;
        --left;
    }
    if (rt == rg) rg -= left;
    return half ? rg : good - rg;
}

/* ------------------------------------------------------------------ */
/* The element                                                         */
/* ------------------------------------------------------------------ */

/* The value of a scalar continuous distribution, parameters p[0..3]. */
ND_HOSTDEV static inline double nd_rd_continuous(nd_rstream *s, int dist, const double *p, const double *plan)
{
    switch (dist) {
    case ND_RANDOM_EXPONENTIAL: return p[0] * nd_rs_exp(s);
    case ND_RANDOM_GAMMA:
        if (plan && plan[0] != 0.0) {
            const double g = nd_rd_std_gamma_mt(s, plan[1], plan[2]);
            return p[1] * (p[0] >= 1.0 ? g : g * nd_rd_exp(nd_philox_log(nd_rs_upos(s)) / p[0]));
        }
        return p[1] * nd_rd_std_gamma(s, p[0]);
    case ND_RANDOM_BETA: return nd_rd_beta(s, p[0], p[1]);
    case ND_RANDOM_CHISQUARE: return 2.0 * nd_rd_std_gamma(s, p[0] / 2.0);
    case ND_RANDOM_STANDARD_T: {
        double num = nd_rs_normal(s), den = nd_rd_std_gamma(s, p[0] / 2.0);
        return sqrt(p[0] / 2.0) * num / sqrt(den);
    }
    case ND_RANDOM_F: {
        double x = 2.0 * nd_rd_std_gamma(s, p[0] / 2.0), y = 2.0 * nd_rd_std_gamma(s, p[1] / 2.0);
        return (x * p[1]) / (y * p[0]);
    }
    case ND_RANDOM_LOGNORMAL: return nd_rd_exp(p[0] + p[1] * nd_rs_normal(s));
    case ND_RANDOM_LAPLACE: {
        double u;
        do u = nd_rs_u(s);
        while (u == 0.0);
        return u >= 0.5 ? p[0] - p[1] * nd_philox_log(2.0 - 2.0 * u) : p[0] + p[1] * nd_philox_log(2.0 * u);
    }
    case ND_RANDOM_LOGISTIC: {
        double u;
        do u = nd_rs_u(s);
        while (u == 0.0);
        return p[0] + p[1] * nd_philox_log(u / (1.0 - u));
    }
    case ND_RANDOM_GUMBEL: {
        double v;
        do v = 1.0 - nd_rs_u(s);
        while (v == 1.0);
        return p[0] - p[1] * nd_rd_log(-nd_philox_log(v));
    }
    case ND_RANDOM_WEIBULL: return p[0] == 0.0 ? 0.0 : nd_rd_exp(nd_rd_log(nd_rs_exp(s)) / p[0]);
    case ND_RANDOM_PARETO: return nd_rd_expm1(nd_rs_exp(s) / p[0]);
    case ND_RANDOM_RAYLEIGH: return p[0] * sqrt(2.0 * nd_rs_exp(s));
    case ND_RANDOM_CAUCHY: {
        double n1 = nd_rs_normal(s), n2 = nd_rs_normal(s);
        return p[0] + p[1] * (n1 / n2);
    }
    case ND_RANDOM_VONMISES: return nd_rd_vonmises(s, p[0], p[1]);
    default: /* ND_RANDOM_TRUNCATED_NORMAL: mean, std, low, high */
        return p[0] + p[1] * nd_rd_trunc_std(s, (p[2] - p[0]) / p[1], (p[3] - p[0]) / p[1]);
    }
}

ND_HOSTDEV static inline int64_t nd_rd_discrete(nd_rstream *s, int dist, const double *p, const double *plan)
{
    switch (dist) {
    case ND_RANDOM_BINOMIAL: return plan ? nd_rd_binomial_planned(s, plan) : nd_rd_binomial(s, (int64_t)p[0], p[1]);
    case ND_RANDOM_POISSON: return plan ? nd_rd_poisson_planned(s, plan) : nd_rd_poisson(s, p[0]);
    case ND_RANDOM_GEOMETRIC: return nd_rd_geometric(s, p[0]);
    case ND_RANDOM_NEGATIVE_BINOMIAL: {
        if (p[1] == 1.0) return 0;
        double y = nd_rd_std_gamma(s, p[0]) * ((1.0 - p[1]) / p[1]);
        return nd_rd_poisson(s, y < ND_RD_POISSON_LAM_MAX ? y : ND_RD_POISSON_LAM_MAX);
    }
    default: /* ND_RANDOM_HYPERGEOMETRIC */
        return nd_rd_hypergeometric(s, (int64_t)p[0], (int64_t)p[1], (int64_t)p[2]);
    }
}

/* Rows: k values at o (doubles) or oi (int64). */
ND_HOSTDEV static inline void nd_rd_row(nd_rstream *s, int dist, const nd_philox_call *c, const double *p, double *o,
                                        int64_t *oi)
{
    const int64_t k = c->k;
    const double *v = c->vec;
    if (dist == ND_RANDOM_MULTINOMIAL) {
        int64_t left = (int64_t)p[0];
        double pleft = 1.0;
        for (int64_t j = 0; j < k; j++) oi[j] = 0;
        for (int64_t j = 0; j + 1 < k; j++) {
            double pj = pleft > 0.0 ? v[j] / pleft : 1.0;
            if (pj > 1.0) pj = 1.0;
            if (pj < 0.0) pj = 0.0;
            oi[j] = nd_rd_binomial(s, left, pj);
            left -= oi[j];
            if (left <= 0) break;
            pleft -= v[j];
        }
        if (left > 0) oi[k - 1] = left;
        return;
    }
    if (dist == ND_RANDOM_DIRICHLET) {
        double amax = 0.0, sum = 0.0;
        for (int64_t j = 0; j < k; j++) {
            amax = v[j] > amax ? v[j] : amax;
            sum += v[j];
        }
        if (amax < 0.1) { /* stick breaking: the gammas would underflow */
            double acc = 1.0, rest = sum;
            for (int64_t j = 0; j + 1 < k; j++) {
                rest -= v[j];
                double b = rest > 0.0 ? nd_rd_beta(s, v[j], rest) : 1.0;
                o[j] = acc * b;
                acc *= 1.0 - b;
            }
            o[k - 1] = acc;
            return;
        }
        double t = 0.0;
        for (int64_t j = 0; j < k; j++) t += (o[j] = nd_rd_std_gamma(s, v[j]));
        for (int64_t j = 0; j < k; j++) o[j] = o[j] / t;
        return;
    }
    /* ND_RANDOM_MVNORMAL: vec = mean[k], then L[k][k] row-major; o holds
     * the normals first, then is overwritten from the last row up */
    for (int64_t j = 0; j < k; j++) o[j] = nd_rs_normal(s);
    for (int64_t r = k - 1; r >= 0; r--) {
        const double *l = v + k + r * k;
        double acc = v[r];
        for (int64_t j = 0; j <= r; j++) acc += l[j] * o[j];
        o[r] = acc;
    }
    (void)p;
}

/* How many blocks of its sub-stream an element of dist usually reads (the
 * CPU precomputes that many for a run of elements at once). */
ND_HOSTDEV static inline int nd_rdist_blocks_hint(int dist)
{
    switch (dist) {
    case ND_RANDOM_EXPONENTIAL:
    case ND_RANDOM_LAPLACE:
    case ND_RANDOM_LOGISTIC:
    case ND_RANDOM_GUMBEL:
    case ND_RANDOM_WEIBULL:
    case ND_RANDOM_PARETO:
    case ND_RANDOM_RAYLEIGH:
    case ND_RANDOM_LOGNORMAL:
    case ND_RANDOM_CAUCHY:
    case ND_RANDOM_BINOMIAL:
    case ND_RANDOM_POISSON:
    case ND_RANDOM_GEOMETRIC: return 1;
    default: return 2;
    }
}

/* Whether an element of dist usually starts with a normal (the CPU then
 * computes the Box-Muller pair of block 0 for a run of elements at once). */
ND_HOSTDEV static inline int nd_rdist_normal_first(int dist)
{
    switch (dist) {
    case ND_RANDOM_GAMMA:
    case ND_RANDOM_BETA:
    case ND_RANDOM_CHISQUARE:
    case ND_RANDOM_STANDARD_T:
    case ND_RANDOM_F:
    case ND_RANDOM_LOGNORMAL:
    case ND_RANDOM_CAUCHY:
    case ND_RANDOM_NEGATIVE_BINOMIAL:
    case ND_RANDOM_MVNORMAL: return 1;
    default: return 0;
    }
}

/* THE PER-ELEMENT WORK, shared by the CPU loop and the CUDA kernel: element
 * (or row) i of call c into the contiguous float64 / int64 array data.
 * pre: NULL, or the first npre blocks of the element's sub-stream (the
 * same words it would compute; the value does not depend on which). */
ND_HOSTDEV static inline void nd_rdist_element_pre(const nd_philox_call *c, int dist, void *data, int64_t i,
                                                   const uint32_t *pre, int npre, const double *bm0)
{
    double p[4];
    for (int m = 0; m < 4; m++) p[m] = c->pa[m] ? c->pa[m][i] : c->ps[m];
    nd_rstream s;
    if (pre) nd_rs_init_pre(&s, c->seed, c->offset + (uint64_t)i, pre, npre);
    else nd_rs_init(&s, c->seed, c->offset + (uint64_t)i);
    s.bm0 = bm0;
    if (nd_rdist_is_row(dist)) {
        nd_rd_row(&s, dist, c, p, (double *)data + i * c->k, (int64_t *)data + i * c->k);
    } else if (nd_rdist_is_discrete(dist)) {
        ((int64_t *)data)[i] = nd_rd_discrete(&s, dist, p, c->nplan ? c->plan : 0);
    } else {
        double *o = (double *)data + i;
        if (p[0] != p[0] || p[1] != p[1] || p[2] != p[2] || p[3] != p[3]) *o = NAN;
        else *o = nd_rd_continuous(&s, dist, p, c->nplan ? c->plan : 0);
    }
}

/* The plan of a call whose parameters are scalars (the core calls it on
 * the host; the kernel and the CPU loop read c->plan). */
ND_HOSTDEV static inline void nd_rdist_plan(nd_philox_call *c, int dist)
{
    c->nplan = 0;
    if (dist == ND_RANDOM_BINOMIAL) nd_rd_binomial_plan((int64_t)c->ps[0], c->ps[1], c->plan, 1), c->nplan = 1;
    if (dist == ND_RANDOM_POISSON) nd_rd_poisson_plan(c->ps[0], c->plan, 1), c->nplan = 1;
    if (dist == ND_RANDOM_GAMMA) { /* Marsaglia-Tsang's constants (plan[0] = 1) for shape > 1 */
        const double shape = c->ps[0], k = shape < 1.0 ? shape + 1.0 : shape;
        c->plan[0] = shape != 1.0 && shape > 0.0; /* Marsaglia-Tsang runs (with the boost below 1) */
        c->plan[1] = k - 1.0 / 3.0;
        c->plan[2] = 1.0 / sqrt(9.0 * c->plan[1]);
        c->nplan = 1;
    }
}

ND_HOSTDEV static inline void nd_rdist_element(const nd_philox_call *c, int dist, void *data, int64_t i)
{
    nd_rdist_element_pre(c, dist, data, i, 0, 0, 0);
}

#endif /* ND_PHILOX_DIST_H */
