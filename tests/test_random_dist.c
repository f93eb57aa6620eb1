/* The random distributions (nd_random_gamma ... nd_random_shuffle;
 * src/shared/philox_dist.h).
 *
 * - The library's own transcendentals (exp, atan, log1p, expm1, loggam)
 *   against long double references: worst ulp recorded below.
 * - Every distribution at fixed seeds in several parameter regimes, 10^5
 *   draws: Kolmogorov-Smirnov against the exact CDF (computed here in long
 *   double: incomplete gamma and beta by their series / continued
 *   fractions, von Mises by integrating its density) or chi-square against
 *   the pmf for the discrete ones, plus the mean within 5 standard errors.
 *   With a GPU (the emulated cuda:0 too) the same draws on cuda:0 must
 *   equal the CPU's bit for bit.
 * - The array form equals the scalar form element by element, float32
 *   outs are the float64 values rounded, the offset advances by n.
 * - Bad input: exact status and message, offset unchanged, *out untouched.
 */
#include <float.h>
#include <stdio.h>

#include "shared/philox_dist.h"
#include "test_util.h"

Suite *suite_random_dist(void);

#define N 100000

/* ------------------------------------------------------------------ */
/* Transcendentals                                                     */
/* ------------------------------------------------------------------ */

static double ulps(double got, long double want)
{
    if (isnan(got) && isnan((double)want)) return 0;
    double w = (double)want;
    if (got == w) return 0;
    double u = nextafter(fabs(w), INFINITY) - fabs(w);
    if (w == 0 || !isfinite(u)) return INFINITY;
    return (double)(fabsl((long double)got - want) / (long double)u);
}

/* Worst ulp measured (x86-64 gcc, long double reference):
 *   exp   0.50 over [-745, 709.7]      atan  0.50 over +-[2^-30, 2^70]
 *   log1p 1.0  over [-0.999, 1e6]      expm1 1.5  over [-40, 700]
 *   loggam 4e-16 relative (absolute below 1) over [1, 1e6] */
START_TEST(transcendentals)
{
    double we = 0, wa = 0, wl = 0, wm = 0, wg = 0;
    for (int i = 0; i <= 200000; i++) {
        double x = -745.0 + (709.7 + 745.0) * i / 200000.0 + 1e-7 * (i % 7);
        we = fmax(we, ulps(nd_rd_exp(x), expl((long double)x)));
        double y = ldexp(1.0 + (i % 1000) / 1000.0, -30 + (i % 100)) * (i % 2 ? -1 : 1);
        wa = fmax(wa, ulps(nd_rd_atan(y), atanl((long double)y)));
        double z = -0.999 + 1.999 * i / 200000.0;
        if (i % 4 == 0) z = ldexp(1.0 + (i % 997) / 997.0, -40 + (i % 60));
        wl = fmax(wl, ulps(nd_rd_log1p(z), log1pl((long double)z)));
        double m = -40.0 + 740.0 * i / 200000.0;
        if (i % 4 == 0) m = ldexp(1.0 + (i % 991) / 991.0, -40 + (i % 40)) * (i % 8 ? 1 : -1);
        wm = fmax(wm, ulps(nd_rd_expm1(m), expm1l((long double)m)));
        double g = 1.0 + (i % 2 ? 1e6 * i / 200000.0 : 12.0 * i / 200000.0);
        long double lg = lgammal((long double)g);
        wg = fmax(wg, (double)(fabsl((long double)nd_rd_loggam(g) - lg) / fmaxl(1.0L, fabsl(lg))));
    }
    printf("random_dist: worst exp %.2f ulp, atan %.2f, log1p %.2f, expm1 %.2f, loggam rel %.1e\n", we, wa, wl, wm, wg);
    ck_assert_msg(we <= 1.0, "exp %.2f ulp", we);
    ck_assert_msg(wa <= 1.0, "atan %.2f ulp", wa);
    ck_assert_msg(wl <= 3.0, "log1p %.2f ulp", wl);
    ck_assert_msg(wm <= 3.0, "expm1 %.2f ulp", wm);
    ck_assert_msg(wg <= 1e-13, "loggam rel %.2e", wg);
    ck_assert(nd_rd_exp(INFINITY) == INFINITY && nd_rd_exp(-INFINITY) == 0.0 && nd_rd_exp(0.0) == 1.0);
    ck_assert(nd_rd_log(0.0) == -INFINITY && isnan(nd_rd_log(-1.0)) && nd_rd_log(INFINITY) == INFINITY);
    ck_assert(fabsl((long double)nd_rd_log(0x1p-1060) - logl(0x1p-1060L)) < 1e-13L);
    ck_assert(fabs(nd_rd_acos(-1.0) - M_PI) == 0 && nd_rd_acos(1.0) == 0.0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Reference distributions (long double)                               */
/* ------------------------------------------------------------------ */

/* regularised lower incomplete gamma P(a, x) */
static long double gammp(long double a, long double x)
{
    if (x <= 0) return 0;
    long double gln = lgammal(a);
    if (x < a + 1) {
        long double ap = a, sum = 1 / a, del = sum;
        for (int n = 0; n < 100000; n++) {
            ap += 1;
            del *= x / ap;
            sum += del;
            if (fabsl(del) < fabsl(sum) * 1e-19L) break;
        }
        return sum * expl(-x + a * logl(x) - gln);
    }
    long double b = x + 1 - a, c = 1 / LDBL_MIN, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        long double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabsl(d) < LDBL_MIN) d = LDBL_MIN;
        c = b + an / c;
        if (fabsl(c) < LDBL_MIN) c = LDBL_MIN;
        d = 1 / d;
        long double del = d * c;
        h *= del;
        if (fabsl(del - 1) < 1e-19L) break;
    }
    return 1 - expl(-x + a * logl(x) - gln) * h;
}

static long double betacf(long double a, long double b, long double x)
{
    long double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
    if (fabsl(d) < LDBL_MIN) d = LDBL_MIN;
    d = 1 / d;
    long double h = d;
    for (int m = 1; m < 100000; m++) {
        int m2 = 2 * m;
        long double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        if (fabsl(d) < LDBL_MIN) d = LDBL_MIN;
        c = 1 + aa / c;
        if (fabsl(c) < LDBL_MIN) c = LDBL_MIN;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        if (fabsl(d) < LDBL_MIN) d = LDBL_MIN;
        c = 1 + aa / c;
        if (fabsl(c) < LDBL_MIN) c = LDBL_MIN;
        d = 1 / d;
        long double del = d * c;
        h *= del;
        if (fabsl(del - 1) < 1e-19L) break;
    }
    return h;
}

/* regularised incomplete beta I_x(a, b) */
static long double betai(long double a, long double b, long double x)
{
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    long double bt = expl(lgammal(a + b) - lgammal(a) - lgammal(b) + a * logl(x) + b * log1pl(-x));
    if (x < (a + 1) / (a + b + 2)) return bt * betacf(a, b, x) / a;
    return 1 - bt * betacf(b, a, 1 - x) / b;
}

static long double phi_c(long double z) { return 0.5L * erfcl(z / sqrtl(2.0L)); } /* upper tail */

/* the von Mises CDF on a grid (trapezoid over the density) */
#define VM_GRID 20000
static long double vm_cdf_tab[VM_GRID + 1];
static void vm_prepare(double mu, double kappa)
{
    long double h = 2 * M_PI / VM_GRID, acc = 0, prev = expl(kappa * cosl(-M_PI - mu));
    vm_cdf_tab[0] = 0;
    for (int i = 1; i <= VM_GRID; i++) {
        long double t = -M_PI + i * h, f = expl(kappa * (cosl(t - mu) - 1));
        if (i == 1) prev = expl(kappa * (cosl(-M_PI - mu) - 1));
        acc += (prev + f) * h / 2;
        vm_cdf_tab[i] = acc;
        prev = f;
    }
    for (int i = 0; i <= VM_GRID; i++) vm_cdf_tab[i] /= acc;
}
static long double vm_cdf(double x)
{
    double pos = (x + M_PI) / (2 * M_PI) * VM_GRID;
    if (pos <= 0) return 0;
    if (pos >= VM_GRID) return 1;
    int i = (int)pos;
    double fr = pos - i;
    return vm_cdf_tab[i] * (1 - fr) + vm_cdf_tab[i + 1] * fr;
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

typedef struct tcase {
    int dist;
    double p[4];
    double mean, var; /* var < 0: no moment check (infinite) */
} tcase;

static long double cdf(const tcase *c, double x)
{
    const double *p = c->p;
    switch (c->dist) {
    case ND_RANDOM_EXPONENTIAL: return x <= 0 ? 0 : -expm1l(-(long double)x / p[0]);
    case ND_RANDOM_GAMMA: return gammp(p[0], (long double)x / p[1]);
    case ND_RANDOM_BETA: return betai(p[0], p[1], x);
    case ND_RANDOM_CHISQUARE: return gammp(p[0] / 2, (long double)x / 2);
    case ND_RANDOM_STANDARD_T: {
        long double df = p[0], t = 0.5L * betai(df / 2, 0.5L, df / (df + (long double)x * x));
        return x > 0 ? 1 - t : t;
    }
    case ND_RANDOM_F: return x <= 0 ? 0 : betai(p[0] / 2, p[1] / 2, p[0] * (long double)x / (p[0] * (long double)x + p[1]));
    case ND_RANDOM_LOGNORMAL: return x <= 0 ? 0 : 1 - phi_c((logl(x) - p[0]) / p[1]);
    case ND_RANDOM_LAPLACE: {
        long double z = ((long double)x - p[0]) / p[1];
        return z < 0 ? 0.5L * expl(z) : 1 - 0.5L * expl(-z);
    }
    case ND_RANDOM_LOGISTIC: return 1 / (1 + expl(-((long double)x - p[0]) / p[1]));
    case ND_RANDOM_GUMBEL: return expl(-expl(-((long double)x - p[0]) / p[1]));
    case ND_RANDOM_WEIBULL: return x <= 0 ? 0 : -expm1l(-powl(x, p[0]));
    case ND_RANDOM_PARETO: return x <= 0 ? 0 : 1 - powl(1 + (long double)x, -p[0]);
    case ND_RANDOM_RAYLEIGH: return x <= 0 ? 0 : -expm1l(-(long double)x * x / (2.0L * p[0] * p[0]));
    case ND_RANDOM_CAUCHY: return 0.5L + atanl(((long double)x - p[0]) / p[1]) / M_PI;
    case ND_RANDOM_VONMISES: return vm_cdf(x);
    default: { /* truncated normal */
        long double a = (p[2] - p[0]) / p[1], b = (p[3] - p[0]) / p[1], z = ((long double)x - p[0]) / p[1];
        if (z <= a) return 0;
        if (z >= b) return 1;
        return (phi_c(a) - phi_c(z)) / (phi_c(a) - phi_c(b));
    }
    }
}

static long double lchoose(long double n, long double k) { return lgammal(n + 1) - lgammal(k + 1) - lgammal(n - k + 1); }

static long double pmf(const tcase *c, int64_t k)
{
    const double *p = c->p;
    switch (c->dist) {
    case ND_RANDOM_BINOMIAL:
        if (k < 0 || k > (int64_t)p[0]) return 0;
        return expl(lchoose(p[0], k) + k * logl(p[1]) + (p[0] - k) * log1pl(-(long double)p[1]));
    case ND_RANDOM_POISSON: return k < 0 ? 0 : expl(-p[0] + k * logl(p[0]) - lgammal(k + 1.0L));
    case ND_RANDOM_GEOMETRIC: return k < 1 ? 0 : expl((k - 1) * log1pl(-(long double)p[0])) * p[0];
    case ND_RANDOM_NEGATIVE_BINOMIAL:
        return k < 0 ? 0
                     : expl(lgammal(k + (long double)p[0]) - lgammal(p[0]) - lgammal(k + 1.0L) + p[0] * logl(p[1]) +
                            k * log1pl(-(long double)p[1]));
    default: { /* hypergeometric */
        long double g = p[0], b = p[1], s = p[2];
        if (k < 0 || k > g || k > s || s - k > b) return 0;
        return expl(lchoose(g, k) + lchoose(b, s - k) - lchoose(g + b, s));
    }
    }
}

static nd_status draw(nd_array **out, nd_rng *r, const tcase *c, nd_dtype t, int64_t n, nd_device d)
{
    const double *p = c->p;
    const int64_t *s = &n;
    switch (c->dist) {
    case ND_RANDOM_EXPONENTIAL: return nd_random_exponential(out, r, t, 1, s, p[0], d);
    case ND_RANDOM_GAMMA: return nd_random_gamma(out, r, t, 1, s, p[0], p[1], d);
    case ND_RANDOM_BETA: return nd_random_beta(out, r, t, 1, s, p[0], p[1], d);
    case ND_RANDOM_CHISQUARE: return nd_random_chisquare(out, r, t, 1, s, p[0], d);
    case ND_RANDOM_STANDARD_T: return nd_random_standard_t(out, r, t, 1, s, p[0], d);
    case ND_RANDOM_F: return nd_random_f(out, r, t, 1, s, p[0], p[1], d);
    case ND_RANDOM_LOGNORMAL: return nd_random_lognormal(out, r, t, 1, s, p[0], p[1], d);
    case ND_RANDOM_LAPLACE: return nd_random_laplace(out, r, t, 1, s, p[0], p[1], d);
    case ND_RANDOM_LOGISTIC: return nd_random_logistic(out, r, t, 1, s, p[0], p[1], d);
    case ND_RANDOM_GUMBEL: return nd_random_gumbel(out, r, t, 1, s, p[0], p[1], d);
    case ND_RANDOM_WEIBULL: return nd_random_weibull(out, r, t, 1, s, p[0], d);
    case ND_RANDOM_PARETO: return nd_random_pareto(out, r, t, 1, s, p[0], d);
    case ND_RANDOM_RAYLEIGH: return nd_random_rayleigh(out, r, t, 1, s, p[0], d);
    case ND_RANDOM_CAUCHY: return nd_random_cauchy(out, r, t, 1, s, p[0], p[1], d);
    case ND_RANDOM_VONMISES: return nd_random_vonmises(out, r, t, 1, s, p[0], p[1], d);
    case ND_RANDOM_TRUNCATED_NORMAL: return nd_random_truncated_normal(out, r, t, 1, s, p[0], p[1], p[2], p[3], d);
    case ND_RANDOM_BINOMIAL: return nd_random_binomial(out, r, t, 1, s, (int64_t)p[0], p[1], d);
    case ND_RANDOM_POISSON: return nd_random_poisson(out, r, t, 1, s, p[0], d);
    case ND_RANDOM_GEOMETRIC: return nd_random_geometric(out, r, t, 1, s, p[0], d);
    case ND_RANDOM_NEGATIVE_BINOMIAL: return nd_random_negative_binomial(out, r, t, 1, s, p[0], p[1], d);
    default: return nd_random_hypergeometric(out, r, t, 1, s, (int64_t)p[0], (int64_t)p[1], (int64_t)p[2], d);
    }
}

#define PI_ M_PI
static const tcase CASES[] = {
    {ND_RANDOM_EXPONENTIAL, {2.5}, 2.5, 6.25},
    {ND_RANDOM_GAMMA, {0.3, 2.0}, 0.6, 1.2},      /* shape < 1 */
    {ND_RANDOM_GAMMA, {1.0, 1.0}, 1.0, 1.0},
    {ND_RANDOM_GAMMA, {2.5, 0.5}, 1.25, 0.625},
    {ND_RANDOM_GAMMA, {1000.0, 1.0}, 1000.0, 1000.0},
    {ND_RANDOM_GAMMA, {0.01, 1.0}, 0.01, 0.01},   /* tiny shape: mass near 0 */
    {ND_RANDOM_BETA, {0.5, 0.5}, 0.5, 0.125},     /* Johnk */
    {ND_RANDOM_BETA, {2.0, 5.0}, 2.0 / 7, 10.0 / 392},
    {ND_RANDOM_BETA, {0.2, 3.0}, 0.2 / 3.2, 0.6 / (3.2 * 3.2 * 4.2)},
    {ND_RANDOM_CHISQUARE, {3.0}, 3.0, 6.0},
    {ND_RANDOM_CHISQUARE, {0.5}, 0.5, 1.0},
    {ND_RANDOM_STANDARD_T, {5.0}, 0.0, 5.0 / 3},
    {ND_RANDOM_STANDARD_T, {1.5}, 0.0, -1},
    {ND_RANDOM_F, {5.0, 10.0}, 10.0 / 8, 2 * 100.0 * 13 / (5 * 64.0 * 6)},
    {ND_RANDOM_LOGNORMAL, {0.5, 0.75}, 2.1837785516, 3.6183047},
    {ND_RANDOM_LAPLACE, {1.0, 2.0}, 1.0, 8.0},
    {ND_RANDOM_LOGISTIC, {-1.0, 0.5}, -1.0, 0.25 * PI_ * PI_ / 3},
    {ND_RANDOM_GUMBEL, {0.5, 2.0}, 0.5 + 2.0 * 0.5772156649015329, PI_ * PI_ / 6 * 4},
    {ND_RANDOM_WEIBULL, {1.5}, 0.9027452929509336, 0.37569028},
    {ND_RANDOM_WEIBULL, {0.5}, 2.0, 20.0},
    {ND_RANDOM_PARETO, {3.0}, 0.5, 0.75},
    {ND_RANDOM_PARETO, {0.8}, 0, -1},
    {ND_RANDOM_RAYLEIGH, {2.0}, 2.0 * 1.2533141373155003, (4 - PI_) / 2 * 4},
    {ND_RANDOM_CAUCHY, {1.0, 0.5}, 0, -1},
    {ND_RANDOM_VONMISES, {1.0, 4.0}, 1.0, -1},
    {ND_RANDOM_VONMISES, {-2.5, 0.3}, 0, -1},
    {ND_RANDOM_VONMISES, {0.0, 1e-6}, 0.0, -1},
    {ND_RANDOM_TRUNCATED_NORMAL, {0.0, 1.0, -1.0, 2.0}, 0, -1},
    {ND_RANDOM_TRUNCATED_NORMAL, {1.0, 2.0, -INFINITY, 0.5}, 0, -1},
    {ND_RANDOM_TRUNCATED_NORMAL, {0.0, 1.0, 5.0, INFINITY}, 0, -1}, /* far tail: exponential proposals */
    {ND_RANDOM_TRUNCATED_NORMAL, {0.0, 1.0, 3.0, 3.2}, 0, -1},      /* narrow: uniform proposals */
    {ND_RANDOM_TRUNCATED_NORMAL, {0.0, 1.0, -8.0, -6.0}, 0, -1},    /* mirrored tail */
    {ND_RANDOM_BINOMIAL, {20, 0.3}, 6.0, 4.2},            /* inversion */
    {ND_RANDOM_BINOMIAL, {1000, 0.4}, 400.0, 240.0},       /* BTPE */
    {ND_RANDOM_BINOMIAL, {1000, 0.999}, 999.0, 0.999},     /* p near 1: n - inversion */
    {ND_RANDOM_BINOMIAL, {100000, 0.7}, 70000.0, 21000.0}, /* n - BTPE */
    {ND_RANDOM_BINOMIAL, {1000000, 1e-5}, 10.0, 10.0 * (1 - 1e-5)},
    {ND_RANDOM_POISSON, {0.05}, 0.05, 0.05},
    {ND_RANDOM_POISSON, {3.5}, 3.5, 3.5},
    {ND_RANDOM_POISSON, {10.0}, 10.0, 10.0}, /* PTRS from 10 */
    {ND_RANDOM_POISSON, {1234.5}, 1234.5, 1234.5},
    {ND_RANDOM_GEOMETRIC, {0.3}, 1 / 0.3, 0.7 / 0.09},
    {ND_RANDOM_GEOMETRIC, {0.001}, 1000.0, 0.999 / 1e-6},
    {ND_RANDOM_GEOMETRIC, {0.95}, 1 / 0.95, 0.05 / (0.95 * 0.95)},
    {ND_RANDOM_NEGATIVE_BINOMIAL, {3.0, 0.4}, 4.5, 11.25},
    {ND_RANDOM_NEGATIVE_BINOMIAL, {0.5, 0.05}, 9.5, 190.0},
    {ND_RANDOM_HYPERGEOMETRIC, {15, 30, 8}, 8.0 / 3, 8 * (1.0 / 3) * (2.0 / 3) * 37 / 44}, /* urn */
    {ND_RANDOM_HYPERGEOMETRIC, {500, 800, 300}, 300 * 5.0 / 13, 300 * (5.0 / 13) * (8.0 / 13) * 1000 / 1299},
    {ND_RANDOM_HYPERGEOMETRIC, {900, 50, 945}, 945 * 900.0 / 950, 945 * (900.0 / 950) * (50.0 / 950) * 5 / 949},
};
#define NCASES ((int)(sizeof CASES / sizeof *CASES))

static double *host_values(const nd_array *a, int64_t n)
{
    double *v = malloc(sizeof(double) * (size_t)n);
    nd_array *c = NULL;
    ND_OK_OR_FAIL(nd_astype(&c, a, ND_FLOAT64));
    ND_OK_OR_FAIL(nd_copy_to_host(v, c, sizeof(double) * (size_t)n));
    nd_release(c);
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* KS distance * sqrt(n); chi-square over pooled bins (*df out) */
static double ks_stat(const tcase *c, double *v, int64_t n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    long double d = 0;
    for (int64_t i = 0; i < n; i++) {
        long double f = cdf(c, v[i]);
        d = fmaxl(d, fmaxl(f - (long double)i / n, (long double)(i + 1) / n - f));
    }
    return (double)(d * sqrtl((long double)n));
}

static double chi2_stat(const tcase *c, const double *v, int64_t n, int *df)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int64_t nonint = 0;
    for (int64_t i = 0; i < n; i++) {
        nonint += v[i] != floor(v[i]);
        lo = (int64_t)fmin((double)lo, v[i]);
        hi = (int64_t)fmax((double)hi, v[i]);
    }
    ck_assert_msg(nonint == 0, "%lld non-integer values", (long long)nonint);
    int64_t span = hi - lo + 1;
    ck_assert_msg(span < 10000000, "span %lld", (long long)span);
    int64_t *cnt = calloc((size_t)span, sizeof *cnt);
    for (int64_t i = 0; i < n; i++) cnt[(int64_t)v[i] - lo]++;
    /* bins from the mode outwards are merged until each expects >= 5;
     * everything below/above the seen range goes into the end bins */
    double chi = 0, acc_o = 0, acc_e = 0;
    long double below = 0;
    for (int64_t k = lo - 1; k >= lo - 100000 && k >= -1; k--) {
        long double pk = pmf(c, k);
        below += pk;
        if (pk < 1e-30L && k < lo - 10) break;
    }
    acc_e = (double)(below * n);
    int bins = 0;
    long double seen = below;
    for (int64_t k = lo; k <= hi; k++) {
        long double pk = pmf(c, k);
        seen += pk;
        acc_o += (double)cnt[k - lo];
        acc_e += (double)(pk * n);
        if (acc_e >= 5 && k < hi) {
            chi += (acc_o - acc_e) * (acc_o - acc_e) / acc_e;
            bins++;
            acc_o = acc_e = 0;
        }
    }
    acc_e += (double)((1 - seen) * n > 0 ? (1 - seen) * n : 0);
    if (acc_e > 0) {
        chi += (acc_o - acc_e) * (acc_o - acc_e) / acc_e;
        bins++;
    }
    free(cnt);
    *df = bins - 1;
    return chi;
}

static bool gpu_on(void) { return nd_test_gpu_count() > 0; }

/* The GPU's draws (same seed and offset) must be the CPU's, bit for bit. */
static void gpu_same(const tcase *c, nd_dtype t, uint64_t seed, uint64_t off, const nd_array *cpu, int64_t n)
{
    if (!gpu_on()) return;
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, seed));
    ND_OK_OR_FAIL(nd_rng_set_offset(r, off));
    nd_array *g = NULL;
    ND_OK_OR_FAIL(draw(&g, r, c, t, n, nd_cuda(0)));
    ck_assert_uint_eq(nd_rng_offset(r), off + (uint64_t)n);
    size_t bytes = (size_t)n * nd_dtype_size(t);
    void *hg = malloc(bytes), *hc = malloc(bytes);
    ND_OK_OR_FAIL(nd_copy_to_host(hg, g, bytes));
    ND_OK_OR_FAIL(nd_copy_to_host(hc, cpu, bytes));
    ck_assert_msg(memcmp(hg, hc, bytes) == 0, "dist %d (%g, %g, %g, %g): cuda:0 differs from the CPU", c->dist, c->p[0],
                  c->p[1], c->p[2], c->p[3]);
    free(hg), free(hc);
    nd_release(g);
    nd_rng_destroy(r);
}

START_TEST(statistics)
{
    const tcase *c = &CASES[_i];
    const bool discrete = nd_rdist_is_discrete(c->dist);
    const nd_dtype t = discrete ? ND_INT64 : ND_FLOAT64;
    const uint64_t seed = 0x5eed0000u + (uint64_t)_i, off = 1000u * (uint64_t)_i;
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, seed));
    ND_OK_OR_FAIL(nd_rng_set_offset(r, off));
    nd_array *a = NULL;
    ND_OK_OR_FAIL(draw(&a, r, c, t, N, nd_cpu()));
    ck_assert_uint_eq(nd_rng_offset(r), off + N);
    ck_assert(nd_dtype_of(a) == t);
    double *v = host_values(a, N);
    /* moments */
    long double s = 0;
    for (int i = 0; i < N; i++) s += v[i];
    double mean = (double)(s / N);
    if (c->var >= 0)
        ck_assert_msg(fabs(mean - c->mean) <= 5 * sqrt(c->var / N) + 1e-12, "dist %d (%g, %g): mean %.6g, want %.6g",
                      c->dist, c->p[0], c->p[1], mean, c->mean);
    /* (no ck_assert inside loops over the draws: Check logs each one) */
    int outside = 0;
    for (int i = 0; i < N; i++) {
        if (c->dist == ND_RANDOM_VONMISES) outside += !(v[i] >= -M_PI && v[i] <= M_PI);
        if (c->dist == ND_RANDOM_TRUNCATED_NORMAL) outside += !(v[i] >= c->p[2] && v[i] <= c->p[3]);
    }
    ck_assert_msg(outside == 0, "%d values outside the support", outside);
    if (discrete) {
        int df;
        double chi = chi2_stat(c, v, N, &df);
        double lim = df + 5 * sqrt(2.0 * df) + 10;
        printf("random_dist: dist %d (%g, %g, %g) chi2 %.1f on %d df (limit %.1f)\n", c->dist, c->p[0], c->p[1], c->p[2],
               chi, df, lim);
        ck_assert_msg(df >= 1 && chi < lim, "dist %d (%g, %g, %g): chi2 %.1f on %d df", c->dist, c->p[0], c->p[1],
                      c->p[2], chi, df);
    } else {
        if (c->dist == ND_RANDOM_VONMISES) vm_prepare(c->p[0], c->p[1]);
        double d = ks_stat(c, v, N);
        printf("random_dist: dist %d (%g, %g, %g, %g) KS sqrt(n) D = %.3f\n", c->dist, c->p[0], c->p[1], c->p[2], c->p[3],
               d);
        ck_assert_msg(d < 1.95, "dist %d (%g, %g, %g, %g): KS sqrt(n) D = %.3f (p < 0.001)", c->dist, c->p[0], c->p[1],
                      c->p[2], c->p[3], d);
    }
    free(v);
    gpu_same(c, t, seed, off, a, N);
    nd_release(a);
    nd_rng_destroy(r);
}
END_TEST

/* Element i drawn with parameters x equals the scalar form's element i
 * at the same offset; float32 outs are the float64 values rounded. */
START_TEST(array_form_and_dtypes)
{
    nd_device devs[2] = {nd_cpu(), nd_cuda(0)};
    for (int di = 0; di < (gpu_on() ? 2 : 1); di++) {
        nd_device d = devs[di];
        const double ks[6] = {0.4, 1.0, 2.0, 7.5, 0.05, 30.0};
        const double sc[1] = {3.0};
        nd_array *k = NULL, *s = NULL, *g = NULL, *g32 = NULL, *one = NULL;
        ND_OK_OR_FAIL(nd_from_host(&k, ks, ND_FLOAT64, 2, (const int64_t[]){2, 3}, d));
        ND_OK_OR_FAIL(nd_from_host(&s, sc, ND_FLOAT64, 0, NULL, d));
        nd_rng *r = NULL;
        ND_OK_OR_FAIL(nd_rng_create(&r, 99));
        ND_OK_OR_FAIL(nd_rng_set_offset(r, 7));
        ND_OK_OR_FAIL(nd_random_gamma_array(&g, r, ND_FLOAT64, k, s));
        ck_assert_int_eq(nd_ndim(g), 2);
        ck_assert_uint_eq(nd_rng_offset(r), 13);
        ND_OK_OR_FAIL(nd_rng_set_offset(r, 7));
        ND_OK_OR_FAIL(nd_random_gamma_array(&g32, r, ND_FLOAT32, k, s));
        double gv[6];
        float fv[6];
        ND_OK_OR_FAIL(nd_copy_to_host(gv, g, sizeof gv));
        ND_OK_OR_FAIL(nd_copy_to_host(fv, g32, sizeof fv));
        for (int i = 0; i < 6; i++) {
            ck_assert(fv[i] == (float)gv[i]);
            ND_OK_OR_FAIL(nd_rng_set_offset(r, 7 + (uint64_t)i));
            int64_t n1 = 1;
            double x;
            ND_OK_OR_FAIL(nd_random_gamma(&one, r, ND_FLOAT64, 1, &n1, ks[i], 3.0, d));
            ND_OK_OR_FAIL(nd_copy_to_host(&x, one, sizeof x));
            ck_assert_msg(memcmp(&x, &gv[i], sizeof x) == 0, "element %d: %.17g vs %.17g", i, gv[i], x);
            nd_release(one);
            one = NULL;
        }
        /* integer parameters: binomial n as int64 array, p broadcast */
        const int64_t ns[3] = {5, 100, 100000}; /* inversion (table), BTPE, BTPE */
        const double ps[1] = {0.25};
        nd_array *na = NULL, *pa = NULL, *b = NULL;
        ND_OK_OR_FAIL(nd_from_host(&na, ns, ND_INT64, 1, (const int64_t[]){3}, d));
        ND_OK_OR_FAIL(nd_from_host(&pa, ps, ND_FLOAT64, 1, (const int64_t[]){1}, d));
        ND_OK_OR_FAIL(nd_rng_set_offset(r, 0));
        ND_OK_OR_FAIL(nd_random_binomial_array(&b, r, ND_INT32, na, pa));
        int32_t bv[3];
        ND_OK_OR_FAIL(nd_copy_to_host(bv, b, sizeof bv));
        for (int i = 0; i < 3; i++) {
            ND_OK_OR_FAIL(nd_rng_set_offset(r, (uint64_t)i));
            int64_t n1 = 1, x;
            ND_OK_OR_FAIL(nd_random_binomial(&one, r, ND_INT64, 1, &n1, ns[i], 0.25, d));
            ND_OK_OR_FAIL(nd_copy_to_host(&x, one, sizeof x));
            ck_assert_int_eq(x, bv[i]);
            ck_assert(x >= 0 && x <= ns[i]);
            nd_release(one);
            one = NULL;
        }
        /* Poisson: the call's plan (scalar lam: a table of the CDF) and the
         * element's own (array) give the same values */
        const double lams[4] = {0.7, 4.0, 9.99, 10.0};
        nd_array *la = NULL, *pk = NULL;
        ND_OK_OR_FAIL(nd_from_host(&la, lams, ND_FLOAT64, 1, (const int64_t[]){4}, d));
        for (int rep = 0; rep < 50; rep++) {
            ND_OK_OR_FAIL(nd_rng_set_offset(r, 1000 + 4 * (uint64_t)rep));
            ND_OK_OR_FAIL(nd_random_poisson_array(&pk, r, ND_INT64, la));
            int64_t kv[4];
            ND_OK_OR_FAIL(nd_copy_to_host(kv, pk, sizeof kv));
            for (int i = 0; i < 4; i++) {
                ND_OK_OR_FAIL(nd_rng_set_offset(r, 1000 + 4 * (uint64_t)rep + (uint64_t)i));
                int64_t n1 = 1, x;
                ND_OK_OR_FAIL(nd_random_poisson(&one, r, ND_INT64, 1, &n1, lams[i], d));
                ND_OK_OR_FAIL(nd_copy_to_host(&x, one, sizeof x));
                ck_assert_msg(x == kv[i], "poisson(%g): %lld vs %lld", lams[i], (long long)x, (long long)kv[i]);
                nd_release(one);
                one = NULL;
            }
        }
        nd_release(la), nd_release(pk);
        /* binomial: the call's plan (inversion table, BTPE constants and its
         * table of f(y) / f(m)) and the element's own give the same values */
        const int64_t bn[4] = {20, 1000, 100000, 1000};
        const double bp[4] = {0.3, 0.3, 0.7, 0.9};
        nd_array *bna = NULL, *bpa = NULL, *bk = NULL;
        ND_OK_OR_FAIL(nd_from_host(&bna, bn, ND_INT64, 1, (const int64_t[]){4}, d));
        ND_OK_OR_FAIL(nd_from_host(&bpa, bp, ND_FLOAT64, 1, (const int64_t[]){4}, d));
        for (int rep = 0; rep < 50; rep++) {
            ND_OK_OR_FAIL(nd_rng_set_offset(r, 5000 + 4 * (uint64_t)rep));
            ND_OK_OR_FAIL(nd_random_binomial_array(&bk, r, ND_INT64, bna, bpa));
            int64_t kv[4];
            ND_OK_OR_FAIL(nd_copy_to_host(kv, bk, sizeof kv));
            for (int i = 0; i < 4; i++) {
                ND_OK_OR_FAIL(nd_rng_set_offset(r, 5000 + 4 * (uint64_t)rep + (uint64_t)i));
                int64_t n1 = 1, x;
                ND_OK_OR_FAIL(nd_random_binomial(&one, r, ND_INT64, 1, &n1, bn[i], bp[i], d));
                ND_OK_OR_FAIL(nd_copy_to_host(&x, one, sizeof x));
                ck_assert_msg(x == kv[i], "binomial(%lld, %g): %lld vs %lld", (long long)bn[i], bp[i], (long long)x,
                              (long long)kv[i]);
                nd_release(one);
                one = NULL;
            }
        }
        nd_release(bna), nd_release(bpa), nd_release(bk);
        /* a parameter array of float dtype for an integer parameter */
        ND_EXPECT_ERR(nd_random_binomial_array(&one, r, ND_INT64, pa, pa), ND_ERR_DTYPE, "integer dtype");
        ck_assert_ptr_null(one);
        nd_release(na), nd_release(pa), nd_release(b);
        nd_release(k), nd_release(s), nd_release(g), nd_release(g32);
        nd_rng_destroy(r);
    }
}
END_TEST

/* multinomial, dirichlet, multivariate normal: rows, marginals, moments */
START_TEST(rows)
{
    const int64_t R = 40000;
    nd_device devs[2] = {nd_cpu(), nd_cuda(0)};
    void *ref[3] = {NULL, NULL, NULL};
    for (int di = 0; di < (gpu_on() ? 2 : 1); di++) {
        nd_device d = devs[di];
        nd_rng *r = NULL;
        ND_OK_OR_FAIL(nd_rng_create(&r, 2024));
        /* multinomial(50, [0.2, 0.5, 0.3]) */
        const double pv[3] = {0.2, 0.5, 0.3};
        nd_array *p = NULL, *m = NULL;
        ND_OK_OR_FAIL(nd_from_host(&p, pv, ND_FLOAT64, 1, (const int64_t[]){3}, d));
        ND_OK_OR_FAIL(nd_random_multinomial(&m, r, ND_INT64, 1, &R, 50, p));
        ck_assert_int_eq(nd_ndim(m), 2);
        ck_assert_int_eq(nd_shape(m)[1], 3);
        ck_assert_uint_eq(nd_rng_offset(r), (uint64_t)R);
        int64_t *mv = malloc(sizeof(int64_t) * 3 * (size_t)R);
        ND_OK_OR_FAIL(nd_copy_to_host(mv, m, sizeof(int64_t) * 3 * (size_t)R));
        double col0 = 0, col1 = 0;
        int64_t badsum = 0;
        for (int64_t i = 0; i < R; i++) {
            badsum += mv[3 * i] + mv[3 * i + 1] + mv[3 * i + 2] != 50 || mv[3 * i] < 0 || mv[3 * i + 1] < 0 || mv[3 * i + 2] < 0;
            col0 += (double)mv[3 * i], col1 += (double)mv[3 * i + 1];
        }
        ck_assert_msg(badsum == 0, "%lld multinomial rows do not sum to n", (long long)badsum);
        ck_assert_msg(fabs(col0 / R - 10.0) < 5 * sqrt(8.0 / R), "multinomial col0 mean %g", col0 / R);
        ck_assert_msg(fabs(col1 / R - 25.0) < 5 * sqrt(12.5 / R), "multinomial col1 mean %g", col1 / R);
        /* dirichlet([0.5, 2, 3]): component 0 ~ Beta(0.5, 5), KS */
        const double av[3] = {0.5, 2.0, 3.0};
        nd_array *al = NULL, *dr = NULL;
        ND_OK_OR_FAIL(nd_from_host(&al, av, ND_FLOAT64, 1, (const int64_t[]){3}, d));
        ND_OK_OR_FAIL(nd_random_dirichlet(&dr, r, ND_FLOAT64, 1, &R, al));
        double *dv = malloc(sizeof(double) * 3 * (size_t)R), *c0 = malloc(sizeof(double) * (size_t)R);
        ND_OK_OR_FAIL(nd_copy_to_host(dv, dr, sizeof(double) * 3 * (size_t)R));
        int64_t badrow = 0;
        for (int64_t i = 0; i < R; i++) {
            badrow += !(fabs(dv[3 * i] + dv[3 * i + 1] + dv[3 * i + 2] - 1.0) < 1e-14);
            c0[i] = dv[3 * i];
        }
        ck_assert_msg(badrow == 0, "%lld dirichlet rows do not sum to 1", (long long)badrow);
        tcase bc = {ND_RANDOM_BETA, {0.5, 5.0}, 0, -1};
        double ks = ks_stat(&bc, c0, R);
        ck_assert_msg(ks < 1.95, "dirichlet marginal KS %.3f", ks);
        /* tiny alpha: stick breaking, rows still sum to 1 */
        const double tv[2] = {0.01, 0.05};
        nd_array *ta = NULL, *td = NULL;
        ND_OK_OR_FAIL(nd_from_host(&ta, tv, ND_FLOAT64, 1, (const int64_t[]){2}, d));
        ND_OK_OR_FAIL(nd_random_dirichlet(&td, r, ND_FLOAT64, 1, (const int64_t[]){1000}, ta));
        double tdv[2000], frac0 = 0;
        ND_OK_OR_FAIL(nd_copy_to_host(tdv, td, sizeof tdv));
        for (int i = 0; i < 1000; i++) {
            badrow += !(fabs(tdv[2 * i] + tdv[2 * i + 1] - 1.0) < 1e-12 && tdv[2 * i] >= 0);
            frac0 += tdv[2 * i];
        }
        ck_assert_msg(badrow == 0, "tiny-alpha dirichlet rows do not sum to 1");
        ck_assert_msg(fabs(frac0 / 1000 - 1.0 / 6) < 0.08, "tiny dirichlet mean %g", frac0 / 1000);
        /* multivariate normal: mean and covariance */
        const double mu[2] = {1.0, -2.0}, cv[4] = {4.0, 1.2, 1.2, 1.0};
        nd_array *me = NULL, *co = NULL, *x = NULL;
        ND_OK_OR_FAIL(nd_from_host(&me, mu, ND_FLOAT64, 1, (const int64_t[]){2}, d));
        ND_OK_OR_FAIL(nd_from_host(&co, cv, ND_FLOAT64, 2, (const int64_t[]){2, 2}, d));
        ND_OK_OR_FAIL(nd_random_multivariate_normal(&x, r, ND_FLOAT64, 1, &R, me, co));
        double *xv = malloc(sizeof(double) * 2 * (size_t)R);
        ND_OK_OR_FAIL(nd_copy_to_host(xv, x, sizeof(double) * 2 * (size_t)R));
        double s0 = 0, s1 = 0, s00 = 0, s11 = 0, s01 = 0;
        for (int64_t i = 0; i < R; i++) s0 += xv[2 * i], s1 += xv[2 * i + 1];
        s0 /= R, s1 /= R;
        for (int64_t i = 0; i < R; i++) {
            double a = xv[2 * i] - s0, b = xv[2 * i + 1] - s1;
            s00 += a * a, s11 += b * b, s01 += a * b;
        }
        s00 /= R, s11 /= R, s01 /= R;
        ck_assert_msg(fabs(s0 - 1.0) < 5 * sqrt(4.0 / R) && fabs(s1 + 2.0) < 5 * sqrt(1.0 / R), "mvn mean %g %g", s0, s1);
        ck_assert_msg(fabs(s00 - 4.0) < 0.15 && fabs(s11 - 1.0) < 0.04 && fabs(s01 - 1.2) < 0.06, "mvn cov %g %g %g", s00,
                      s11, s01);
        /* the GPU rows are the CPU's */
        nd_array *arrs[3] = {m, dr, x};
        size_t bytes[3] = {sizeof(int64_t) * 3 * (size_t)R, sizeof(double) * 3 * (size_t)R, sizeof(double) * 2 * (size_t)R};
        void *hv[3] = {mv, dv, xv};
        for (int j = 0; j < 3; j++) {
            (void)arrs[j];
            if (di == 0) ref[j] = hv[j];
            else {
                ck_assert_msg(memcmp(ref[j], hv[j], bytes[j]) == 0, "row distribution %d: cuda:0 differs", j);
                free(hv[j]);
            }
        }
        free(c0);
        nd_release(p), nd_release(m), nd_release(al), nd_release(dr), nd_release(ta), nd_release(td);
        nd_release(me), nd_release(co), nd_release(x);
        nd_rng_destroy(r);
    }
    for (int j = 0; j < 3; j++) free(ref[j]);
}
END_TEST

START_TEST(shuffle)
{
    nd_device devs[2] = {nd_cpu(), nd_cuda(0)};
    int32_t ref[24];
    for (int di = 0; di < (gpu_on() ? 2 : 1); di++) {
        nd_array *a = NULL, *perm = NULL;
        ND_OK_OR_FAIL(nd_arange(&a, ND_INT32, 0, 24, 1, devs[di]));
        nd_array *a2 = NULL;
        ND_OK_OR_FAIL(nd_reshape(&a2, a, 2, (const int64_t[]){4, 6}));
        nd_rng *r = NULL;
        ND_OK_OR_FAIL(nd_rng_create(&r, 5));
        ND_OK_OR_FAIL(nd_random_shuffle(r, a2, -1));
        ck_assert_uint_eq(nd_rng_offset(r), 6);
        ND_OK_OR_FAIL(nd_rng_set_offset(r, 0));
        ND_OK_OR_FAIL(nd_random_permutation(&perm, r, 6, nd_cpu()));
        int64_t pv[6];
        int32_t v[24];
        ND_OK_OR_FAIL(nd_copy_to_host(pv, perm, sizeof pv));
        ND_OK_OR_FAIL(nd_copy_to_host(v, a2, sizeof v));
        int moved = 0;
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 6; j++) {
                ck_assert_int_eq(v[6 * i + j], 6 * i + (int)pv[j]);
                moved += pv[j] != j;
            }
        ck_assert(moved > 0);
        if (di == 0) memcpy(ref, v, sizeof v);
        else ck_assert(memcmp(ref, v, sizeof v) == 0);
        /* bad input: 0-d, axis, broadcast (stride 0) */
        nd_array *z = NULL, *bc = NULL;
        ND_OK_OR_FAIL(nd_zeros(&z, ND_FLOAT32, 0, NULL, devs[di]));
        uint64_t at = nd_rng_offset(r);
        ND_EXPECT_ERR(nd_random_shuffle(r, z, 0), ND_ERR_INVALID, "at least one dimension");
        ND_EXPECT_ERR(nd_random_shuffle(r, a2, 2), ND_ERR_SHAPE, "axis 2 is out of bounds");
        ND_OK_OR_FAIL(nd_broadcast_to(&bc, a, 2, (const int64_t[]){3, 24}));
        ck_assert(nd_random_shuffle(r, bc, 0) != ND_OK);
        ck_assert_uint_eq(nd_rng_offset(r), at);
        nd_release(z), nd_release(bc), nd_release(a), nd_release(a2), nd_release(perm);
        nd_rng_destroy(r);
    }
}
END_TEST

/* exact status + message, offset unchanged, *out untouched */
#define BAD(call, code, msg)                                      \
    do {                                                          \
        nd_array *o = NULL;                                       \
        nd_array **out = &o;                                      \
        uint64_t at_ = nd_rng_offset(r);                          \
        ND_EXPECT_ERR(call, code, msg);                           \
        ck_assert_ptr_null(o);                                    \
        ck_assert_uint_eq(nd_rng_offset(r), at_);                 \
    } while (0)

START_TEST(bad_input)
{
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 1));
    ND_OK_OR_FAIL(nd_rng_set_offset(r, 77));
    const int64_t s[1] = {4};
    const nd_device c = nd_cpu();
    const nd_dtype F = ND_FLOAT64, I = ND_INT64;
    BAD(nd_random_exponential(out, r, F, 1, s, -1.0, c), ND_ERR_INVALID, "nd_random_exponential: scale < 0");
    BAD(nd_random_exponential(out, r, F, 1, s, -0.0, c), ND_ERR_INVALID, "scale < 0");
    BAD(nd_random_exponential(out, r, I, 1, s, 1.0, c), ND_ERR_DTYPE, "not a real floating dtype");
    BAD(nd_random_gamma(out, r, F, 1, s, -0.5, 1.0, c), ND_ERR_INVALID, "nd_random_gamma: shape < 0");
    BAD(nd_random_gamma(out, r, F, 1, s, 1.0, -2.0, c), ND_ERR_INVALID, "nd_random_gamma: scale < 0");
    BAD(nd_random_beta(out, r, F, 1, s, 0.0, 1.0, c), ND_ERR_INVALID, "a <= 0");
    BAD(nd_random_beta(out, r, F, 1, s, 1.0, -1.0, c), ND_ERR_INVALID, "b <= 0");
    BAD(nd_random_chisquare(out, r, F, 1, s, 0.0, c), ND_ERR_INVALID, "df <= 0");
    BAD(nd_random_standard_t(out, r, F, 1, s, -3.0, c), ND_ERR_INVALID, "df <= 0");
    BAD(nd_random_f(out, r, F, 1, s, 0.0, 1.0, c), ND_ERR_INVALID, "dfnum <= 0");
    BAD(nd_random_f(out, r, F, 1, s, 1.0, 0.0, c), ND_ERR_INVALID, "dfden <= 0");
    BAD(nd_random_lognormal(out, r, F, 1, s, 0.0, -1.0, c), ND_ERR_INVALID, "sigma < 0");
    BAD(nd_random_laplace(out, r, F, 1, s, 0.0, -1.0, c), ND_ERR_INVALID, "scale < 0");
    BAD(nd_random_logistic(out, r, F, 1, s, 0.0, -1.0, c), ND_ERR_INVALID, "scale < 0");
    BAD(nd_random_gumbel(out, r, F, 1, s, 0.0, -1.0, c), ND_ERR_INVALID, "scale < 0");
    BAD(nd_random_weibull(out, r, F, 1, s, -1.0, c), ND_ERR_INVALID, "a < 0");
    BAD(nd_random_pareto(out, r, F, 1, s, 0.0, c), ND_ERR_INVALID, "a <= 0");
    BAD(nd_random_rayleigh(out, r, F, 1, s, -1.0, c), ND_ERR_INVALID, "scale < 0");
    BAD(nd_random_cauchy(out, r, F, 1, s, 0.0, -1.0, c), ND_ERR_INVALID, "scale < 0");
    BAD(nd_random_vonmises(out, r, F, 1, s, 0.0, -1.0, c), ND_ERR_INVALID, "kappa < 0");
    BAD(nd_random_truncated_normal(out, r, F, 1, s, 0.0, 0.0, -1.0, 1.0, c), ND_ERR_INVALID, "std <= 0");
    BAD(nd_random_truncated_normal(out, r, F, 1, s, 0.0, 1.0, 1.0, 1.0, c), ND_ERR_INVALID, "low >= high");
    BAD(nd_random_truncated_normal(out, r, F, 1, s, NAN, 1.0, 0.0, 1.0, c), ND_ERR_INVALID, "must be finite");
    BAD(nd_random_binomial(out, r, I, 1, s, -1, 0.5, c), ND_ERR_INVALID, "nd_random_binomial: n < 0");
    BAD(nd_random_binomial(out, r, I, 1, s, 10, 1.5, c), ND_ERR_INVALID, "p < 0, p > 1 or p is NaN");
    BAD(nd_random_binomial(out, r, I, 1, s, 10, NAN, c), ND_ERR_INVALID, "p < 0, p > 1 or p is NaN");
    BAD(nd_random_binomial(out, r, F, 1, s, 10, 0.5, c), ND_ERR_DTYPE, "not an integer dtype");
    BAD(nd_random_poisson(out, r, I, 1, s, -1.0, c), ND_ERR_INVALID, "lam < 0");
    BAD(nd_random_poisson(out, r, I, 1, s, 1e19, c), ND_ERR_INVALID, "lam value too large");
    BAD(nd_random_poisson(out, r, I, 1, s, NAN, c), ND_ERR_INVALID, "lam is NaN");
    BAD(nd_random_geometric(out, r, I, 1, s, 0.0, c), ND_ERR_INVALID, "p <= 0, p > 1 or p contains NaNs");
    BAD(nd_random_negative_binomial(out, r, I, 1, s, 0.0, 0.5, c), ND_ERR_INVALID, "n <= 0");
    BAD(nd_random_negative_binomial(out, r, I, 1, s, 1.0, 0.0, c), ND_ERR_INVALID, "p <= 0, p > 1");
    BAD(nd_random_hypergeometric(out, r, I, 1, s, -1, 2, 1, c), ND_ERR_INVALID, "ngood < 0");
    BAD(nd_random_hypergeometric(out, r, I, 1, s, 1, -2, 1, c), ND_ERR_INVALID, "nbad < 0");
    BAD(nd_random_hypergeometric(out, r, I, 1, s, 1, 2, -1, c), ND_ERR_INVALID, "nsample < 0");
    BAD(nd_random_hypergeometric(out, r, I, 1, s, 1, 2, 4, c), ND_ERR_INVALID, "ngood + nbad < nsample");
    BAD(nd_random_gamma(out, NULL, F, 1, s, 1.0, 1.0, c), ND_ERR_INVALID, "'rng' is NULL");
    /* arrays: a bad element, shapes that do not broadcast, NULL */
    const double kv[3] = {1.0, -1.0, 2.0};
    nd_array *k = NULL, *s2 = NULL, *pv = NULL, *bad = NULL, *mean = NULL, *cov = NULL;
    ND_OK_OR_FAIL(nd_from_host(&k, kv, ND_FLOAT64, 1, (const int64_t[]){3}, c));
    ND_OK_OR_FAIL(nd_ones(&s2, ND_FLOAT64, 1, (const int64_t[]){2}, c));
    BAD(nd_random_gamma_array(out, r, F, k, k), ND_ERR_INVALID, "nd_random_gamma_array: shape < 0");
    BAD(nd_random_gamma_array(out, r, F, s2, k), ND_ERR_SHAPE, "nd_random_gamma_array");
    BAD(nd_random_gamma_array(out, r, F, NULL, k), ND_ERR_INVALID, "'shape' is NULL");
    /* row distributions */
    const double p3[3] = {0.6, 0.6, 0.1}, pn[2] = {-0.1, 1.0}, a0[2] = {1.0, 0.0};
    ND_OK_OR_FAIL(nd_from_host(&pv, p3, ND_FLOAT64, 1, (const int64_t[]){3}, c));
    BAD(nd_random_multinomial(out, r, I, 1, s, 10, pv), ND_ERR_INVALID, "sum(pvals[:-1]) > 1.0");
    BAD(nd_random_multinomial(out, r, I, 1, s, -1, pv), ND_ERR_INVALID, "n < 0");
    ND_OK_OR_FAIL(nd_from_host(&bad, pn, ND_FLOAT64, 1, (const int64_t[]){2}, c));
    BAD(nd_random_multinomial(out, r, I, 1, s, 10, bad), ND_ERR_INVALID, "pvals < 0, pvals > 1 or pvals contains NaNs");
    BAD(nd_random_dirichlet(out, r, F, 1, s, bad), ND_ERR_INVALID, "alpha <= 0");
    nd_release(bad);
    bad = NULL;
    ND_OK_OR_FAIL(nd_from_host(&bad, a0, ND_FLOAT64, 2, (const int64_t[]){1, 2}, c));
    BAD(nd_random_dirichlet(out, r, F, 1, s, bad), ND_ERR_SHAPE, "1-dimensional");
    const double m2[2] = {0, 0}, cbad[4] = {1.0, 2.0, 2.0, 1.0};
    ND_OK_OR_FAIL(nd_from_host(&mean, m2, ND_FLOAT64, 1, (const int64_t[]){2}, c));
    ND_OK_OR_FAIL(nd_from_host(&cov, cbad, ND_FLOAT64, 2, (const int64_t[]){2, 2}, c));
    BAD(nd_random_multivariate_normal(out, r, F, 1, s, mean, cov), ND_ERR_INVALID, "cov is not positive definite");
    BAD(nd_random_multivariate_normal(out, r, F, 1, s, k, cov), ND_ERR_SHAPE, "mean and cov must have same length");
    BAD(nd_random_multivariate_normal(out, r, F, 1, s, mean, k), ND_ERR_SHAPE, "2 dimensional and square");
    ck_assert_uint_eq(nd_rng_offset(r), 77);
    /* a given out of the wrong shape: refused, not written */
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT64, 1, (const int64_t[]){3}, nd_scalar_float(7.0), c));
    ND_EXPECT_ERR(nd_random_gamma(&o, r, F, 1, s, 1.0, 1.0, c), ND_ERR_SHAPE, "nd_random_gamma");
    double ov[3];
    ND_OK_OR_FAIL(nd_copy_to_host(ov, o, sizeof ov));
    ck_assert(ov[0] == 7.0 && ov[2] == 7.0);
    ck_assert_uint_eq(nd_rng_offset(r), 77);
    nd_release(o), nd_release(k), nd_release(s2), nd_release(pv), nd_release(bad), nd_release(mean), nd_release(cov);
    nd_rng_destroy(r);
}
END_TEST

/* NaN parameters of the continuous distributions give NaN; zero-size calls
 * do not move the offset; edge parameters (p = 1, n = 0, lam = 0, a = 0). */
START_TEST(edges)
{
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 3));
    nd_array *a = NULL;
    int64_t n = 8;
    double v[8];
    int64_t iv[8];
    ND_OK_OR_FAIL(nd_random_gamma(&a, r, ND_FLOAT64, 1, &n, NAN, 1.0, nd_cpu()));
    ND_OK_OR_FAIL(nd_copy_to_host(v, a, sizeof v));
    for (int i = 0; i < 8; i++) ck_assert(isnan(v[i]));
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_random_weibull(&a, r, ND_FLOAT64, 1, &n, 0.0, nd_cpu()));
    ND_OK_OR_FAIL(nd_copy_to_host(v, a, sizeof v));
    for (int i = 0; i < 8; i++) ck_assert(v[i] == 0.0);
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_random_binomial(&a, r, ND_INT64, 1, &n, 17, 1.0, nd_cpu()));
    ND_OK_OR_FAIL(nd_copy_to_host(iv, a, sizeof iv));
    for (int i = 0; i < 8; i++) ck_assert_int_eq(iv[i], 17);
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_random_poisson(&a, r, ND_INT64, 1, &n, 0.0, nd_cpu()));
    ND_OK_OR_FAIL(nd_copy_to_host(iv, a, sizeof iv));
    for (int i = 0; i < 8; i++) ck_assert_int_eq(iv[i], 0);
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_random_geometric(&a, r, ND_INT64, 1, &n, 1.0, nd_cpu()));
    ND_OK_OR_FAIL(nd_copy_to_host(iv, a, sizeof iv));
    for (int i = 0; i < 8; i++) ck_assert_int_eq(iv[i], 1);
    nd_release(a), a = NULL;
    ND_OK_OR_FAIL(nd_random_hypergeometric(&a, r, ND_INT64, 1, &n, 5, 0, 3, nd_cpu()));
    ND_OK_OR_FAIL(nd_copy_to_host(iv, a, sizeof iv));
    for (int i = 0; i < 8; i++) ck_assert_int_eq(iv[i], 3);
    nd_release(a), a = NULL;
    uint64_t at = nd_rng_offset(r);
    ck_assert_uint_eq(at, 48);
    int64_t z = 0;
    ND_OK_OR_FAIL(nd_random_poisson(&a, r, ND_INT64, 1, &z, 3.0, nd_cpu()));
    ck_assert_uint_eq(nd_rng_offset(r), at);
    nd_release(a);
    nd_rng_destroy(r);
}
END_TEST

/* The scalar form of a call (on the CPU: the first tries of exponential,
 * Marsaglia-Tsang, PTRS, BTPE and the binomial and Poisson inversions
 * computed for 64 elements at once in vector code, the whole element body
 * only for rejected tries) equals the
 * array form (every element through its whole body) byte for byte, over
 * enough elements that every kind of rejection occurs, on each CPU path
 * (mk/isa.mk runs the suite under each) and on the GPU. */
START_TEST(scalar_form_is_element_body)
{
    static const struct {
        int dist;
        double a, b;
    } cs[] = {
        {ND_RANDOM_EXPONENTIAL, 1.5, 0.0}, {ND_RANDOM_GAMMA, 2.5, 1.5},  {ND_RANDOM_GAMMA, 0.5, 2.0},
        {ND_RANDOM_GAMMA, 1.0001, 1.0},     {ND_RANDOM_GAMMA, 1e6, 1.0},  {ND_RANDOM_POISSON, 10.0, 0.0},
        {ND_RANDOM_POISSON, 100.0, 0.0},    {ND_RANDOM_POISSON, 1e7, 0.0}, {ND_RANDOM_BINOMIAL, 1000.0, 0.3},
        {ND_RANDOM_BINOMIAL, 200.0, 0.8},   {ND_RANDOM_BINOMIAL, 1e9, 0.4},  {ND_RANDOM_POISSON, 5.0, 0.0},
        {ND_RANDOM_POISSON, 0.3, 0.0},      {ND_RANDOM_POISSON, 9.99, 0.0}, {ND_RANDOM_BINOMIAL, 20.0, 0.3},
        {ND_RANDOM_BINOMIAL, 30.0, 0.95},   {ND_RANDOM_BINOMIAL, 100.0, 0.29},
    };
    enum { M = 3001 };
    nd_device devs[2] = {nd_cpu(), nd_cuda(0)};
    for (int di = 0; di < (gpu_on() ? 2 : 1); di++) {
        const nd_device d = devs[di];
        nd_rng *r = NULL;
        ND_OK_OR_FAIL(nd_rng_create(&r, 4242));
        for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
            const int64_t n = M;
            nd_array *sa = NULL, *aa = NULL, *pa = NULL, *pb = NULL;
            ND_OK_OR_FAIL(nd_full(&pa, ND_FLOAT64, 1, &n, nd_scalar_float(cs[c].a), d));
            ND_OK_OR_FAIL(nd_full(&pb, ND_FLOAT64, 1, &n, nd_scalar_float(cs[c].b), d));
            ND_OK_OR_FAIL(nd_rng_set_offset(r, 100 + 7 * c));
            switch (cs[c].dist) {
            case ND_RANDOM_EXPONENTIAL:
                ND_OK_OR_FAIL(nd_random_exponential(&sa, r, ND_FLOAT64, 1, &n, cs[c].a, d));
                ND_OK_OR_FAIL(nd_rng_set_offset(r, 100 + 7 * c));
                ND_OK_OR_FAIL(nd_random_exponential_array(&aa, r, ND_FLOAT64, pa));
                break;
            case ND_RANDOM_GAMMA:
                ND_OK_OR_FAIL(nd_random_gamma(&sa, r, ND_FLOAT64, 1, &n, cs[c].a, cs[c].b, d));
                ND_OK_OR_FAIL(nd_rng_set_offset(r, 100 + 7 * c));
                ND_OK_OR_FAIL(nd_random_gamma_array(&aa, r, ND_FLOAT64, pa, pb));
                break;
            case ND_RANDOM_POISSON:
                ND_OK_OR_FAIL(nd_random_poisson(&sa, r, ND_INT64, 1, &n, cs[c].a, d));
                ND_OK_OR_FAIL(nd_rng_set_offset(r, 100 + 7 * c));
                ND_OK_OR_FAIL(nd_random_poisson_array(&aa, r, ND_INT64, pa));
                break;
            default: {
                nd_array *na = NULL;
                ND_OK_OR_FAIL(nd_full(&na, ND_INT64, 1, &n, nd_scalar_int((int64_t)cs[c].a), d));
                ND_OK_OR_FAIL(nd_random_binomial(&sa, r, ND_INT64, 1, &n, (int64_t)cs[c].a, cs[c].b, d));
                ND_OK_OR_FAIL(nd_rng_set_offset(r, 100 + 7 * c));
                ND_OK_OR_FAIL(nd_random_binomial_array(&aa, r, ND_INT64, na, pb));
                nd_release(na);
            }
            }
            static uint64_t sv[M], av[M];
            ND_OK_OR_FAIL(nd_copy_to_host(sv, sa, sizeof sv));
            ND_OK_OR_FAIL(nd_copy_to_host(av, aa, sizeof av));
            for (int i = 0; i < M; i++)
                ck_assert_msg(sv[i] == av[i], "case %zu (dist %d, %g, %g) element %d: %016llx vs %016llx", c,
                              cs[c].dist, cs[c].a, cs[c].b, i, (unsigned long long)sv[i], (unsigned long long)av[i]);
            nd_release(sa), nd_release(aa), nd_release(pa), nd_release(pb);
        }
        nd_rng_destroy(r);
    }
}
END_TEST

Suite *suite_random_dist(void)
{
    Suite *s = suite_create("random_dist");
    TCase *tc = tcase_create("dist");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, transcendentals);
    tcase_add_loop_test(tc, statistics, 0, NCASES);
    tcase_add_test(tc, array_form_and_dtypes);
    tcase_add_test(tc, scalar_form_is_element_body);
    tcase_add_test(tc, rows);
    tcase_add_test(tc, shuffle);
    tcase_add_test(tc, bad_input);
    tcase_add_test(tc, edges);
    suite_add_tcase(s, tc);
    return s;
}
