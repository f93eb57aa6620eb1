/*
 * The Bessel functions i0, i0e, i1, i1e, j0, j1, y0, y1 (unary elementwise
 * ops), written once for the CPU loops (gcc, C11) and the CUDA kernels
 * (nvcc, C++), with SciPy's special values. Part of src/shared/ops_math.h
 * (which includes it after src/shared/ops_gamma.h, whose double-double
 * helpers it uses); names as there (nd_op_<name>_f64 / _f32). Methods and
 * accuracy: see src/shared/ops_gamma.h.
 */
#ifndef ND_OPS_BESSEL_H
#define ND_OPS_BESSEL_H

#ifndef ND_OPS_GAMMA_H
#error "src/shared/ops_bessel.h is part of src/shared/ops_math.h: include that"
#endif

/* ------------------------------------------------------------------ */
/* Modified Bessel functions I0, I1 and their scaled forms             */
/* ------------------------------------------------------------------ */
/* sum_k (x^2/4)^k / (k! (k+nu)!), nu = 0 or 1, |x| <= 20 (positive terms,
 * summed in double-double) */
ND_HOSTDEV static inline double nd_bessel_i_series(double x, int nu)
{
    const nd_dd q = nd_dd_mul_d(nd_dd_make(0.5 * x, 0.0), 0.5 * x);
    nd_dd t = nd_dd_make(1.0, 0.0), s = t;
    for (int k = 1; k < 80; k++) {
        t = nd_dd_div_d(nd_dd_mul(t, q), (double)k * (double)(k + nu));
        s = nd_dd_add(s, t);
        if (t.hi < 1e-17 * s.hi) break;
    }
    return s.hi + s.lo;
}
/* sqrt(2 pi x) e^-x I_nu(x), x > 20: the asymptotic series
 * sum_k (-1)^k prod_j (4nu^2 - (2j-1)^2) / (k! (8x)^k) */
ND_HOSTDEV static inline double nd_bessel_i_asym(double x, int nu)
{
    const double mu = 4.0 * nu * nu;
    double t = 1.0, s = 1.0;
    for (int k = 1; k < 60; k++) {
        const double m = 2.0 * k - 1.0;
        t *= -(mu - m * m) / (k * 8.0 * x);
        s += t;
        if (fabs(t) < 1e-17 * s) break;
    }
    return s;
}
/* I_nu(|x|) (scaled: times e^-|x|) */
ND_HOSTDEV static inline double nd_bessel_i(double ax, int nu, bool scaled)
{
    if (ax <= 20.0) {
        const double v = nu ? 0.5 * ax * nd_bessel_i_series(ax, 1) : nd_bessel_i_series(ax, 0);
        return scaled ? v * exp(-ax) : v;
    }
    const double v = nd_bessel_i_asym(ax, nu) / sqrt(2 * ND_PI * ax);
    if (scaled) return v;
    if (ax < 709.0) return v * exp(ax);
    const double e = exp(0.5 * ax); /* e^x in two halves: no early overflow */
    return (v * e) * e;
}
ND_HOSTDEV static inline double nd_op_i0_f64(double x)
{
    if (nd_isnan_f64(x) || nd_isinf_f64(x)) return (double)NAN; /* SciPy's i0(+-inf) */
    return nd_bessel_i(fabs(x), 0, false);
}
ND_HOSTDEV static inline double nd_op_i0e_f64(double x)
{
    if (nd_isnan_f64(x)) return x;
    if (nd_isinf_f64(x)) return 0.0;
    return nd_bessel_i(fabs(x), 0, true);
}
ND_HOSTDEV static inline double nd_op_i1_f64(double x)
{
    if (nd_isnan_f64(x) || nd_isinf_f64(x)) return (double)NAN;
    const double v = nd_bessel_i(fabs(x), 1, false);
    return x < 0 ? -v : v;
}
ND_HOSTDEV static inline double nd_op_i1e_f64(double x)
{
    if (nd_isnan_f64(x)) return x;
    if (nd_isinf_f64(x)) return x > 0 ? 0.0 : -0.0;
    const double v = nd_bessel_i(fabs(x), 1, true);
    return x < 0 ? -v : v;
}
ND_HOSTDEV static inline float nd_op_i0_f32(float x) { return (float)nd_op_i0_f64((double)x); }
ND_HOSTDEV static inline float nd_op_i0e_f32(float x) { return (float)nd_op_i0e_f64((double)x); }
ND_HOSTDEV static inline float nd_op_i1_f32(float x) { return (float)nd_op_i1_f64((double)x); }
ND_HOSTDEV static inline float nd_op_i1e_f32(float x) { return (float)nd_op_i1e_f64((double)x); }

/* ------------------------------------------------------------------ */
/* Bessel functions J0, J1, Y0, Y1                                     */
/* ------------------------------------------------------------------ */
/* The power series in double-double, x in (0, 20]:
 *   sum_k (-1)^k q^k / (k! (k+nu)!)            (J: the sum s)
 *   sum_k (-1)^k c_k q^k / (k! (k+nu)!)        (Y: the sum h)
 * q = x^2/4, c_k = H_k (nu = 0) or H_k + H_(k+1) (nu = 1) */
ND_HOSTDEV static inline void nd_bessel_jy_series(double x, int nu, nd_dd *s, nd_dd *h)
{
    const nd_dd q = nd_dd_mul_d(nd_dd_make(0.5 * x, 0.0), 0.5 * x);
    nd_dd t = nd_dd_make(1.0, 0.0), js = t, ys = nd_dd_make(nu ? 1.0 : 0.0, 0.0);
    nd_dd hk = nd_dd_make(0.0, 0.0), hk1 = nd_dd_make(1.0, 0.0); /* H_k, H_(k+1) */
    for (int k = 1; k < 90; k++) {
        t = nd_dd_div_d(nd_dd_mul(t, q), -(double)k * (double)(k + nu));
        hk = nd_dd_add(hk, nd_dd_recip((double)k));
        hk1 = nd_dd_add(hk1, nd_dd_recip((double)(k + 1)));
        js = nd_dd_add(js, t);
        ys = nd_dd_add(ys, nd_dd_mul(t, nu ? nd_dd_add(hk, hk1) : hk));
        if (fabs(t.hi) * (double)k < 1e-34 && k > 4) break;
    }
    *s = js;
    *h = ys;
}
/* Hankel's asymptotic P and Q of order nu, x > 20 */
ND_HOSTDEV static inline void nd_bessel_pq(double x, int nu, double *P, double *Q)
{
    const double mu = 4.0 * nu * nu, z = 8.0 * x;
    double p = 1.0, qq = 0.0, t = 1.0;
    for (int k = 1; k < 60; k++) {
        const double m = 2.0 * k - 1.0;
        t *= (mu - m * m) / (k * z);
        if (k % 2) qq += (k % 4 == 1 ? t : -t);
        else p += (k % 4 == 0 ? t : -t);
        if (fabs(t) < 1e-18) break;
    }
    *P = p;
    *Q = qq;
}
/* gamma - log 2 in double-double: log(x/2) + gamma = log(x) + this */
#define ND_EULER_M_LN2_HI -0x1.dadb014541eb2p-4
#define ND_EULER_M_LN2_LO -0x1.be095d05c0a81p-62
/* J_nu (want_y false) or Y_nu of x > 20 */
ND_HOSTDEV static inline double nd_bessel_jy_asym(double x, int nu, bool want_y)
{
    double P, Q;
    nd_bessel_pq(x, nu, &P, &Q);
    const double sn = sin(x), cs = cos(x);
    /* chi = x - pi/4 (nu 0), x - 3pi/4 (nu 1); cos chi, sin chi times sqrt 2 */
    const double c = nu ? sn - cs : cs + sn, s = nu ? -sn - cs : sn - cs;
    const double amp = sqrt(1.0 / (ND_PI * x)); /* sqrt(2/(pi x)) / sqrt 2 */
    return want_y ? amp * (P * s + Q * c) : amp * (P * c - Q * s);
}
ND_HOSTDEV static inline double nd_op_j0_f64(double x)
{
    if (nd_isnan_f64(x) || nd_isinf_f64(x)) return (double)NAN; /* SciPy's j0(+-inf) */
    const double ax = fabs(x);
    if (ax > 20.0) return nd_bessel_jy_asym(ax, 0, false);
    nd_dd s, h;
    nd_bessel_jy_series(ax, 0, &s, &h);
    return s.hi + s.lo;
}
ND_HOSTDEV static inline double nd_op_j1_f64(double x)
{
    if (nd_isnan_f64(x) || nd_isinf_f64(x)) return (double)NAN;
    const double ax = fabs(x);
    double v;
    if (ax > 20.0) {
        v = nd_bessel_jy_asym(ax, 1, false);
    } else {
        nd_dd s, h;
        nd_bessel_jy_series(ax, 1, &s, &h);
        const nd_dd r = nd_dd_mul_d(s, 0.5 * ax);
        v = r.hi + r.lo;
    }
    return nd_signbit_bits_f64(x) ? -v : v; /* j1(-0) = -0 */
}
/* Y0 = (2/pi) [(log(x/2) + gamma) J0 - sum_k (-1)^k H_k q^k/(k!)^2] */
ND_HOSTDEV static inline double nd_op_y0_f64(double x)
{
    if (nd_isnan_f64(x) || x < 0 || nd_isinf_f64(x)) return (double)NAN;
    if (x == 0) return -(double)INFINITY;
    if (x > 20.0) return nd_bessel_jy_asym(x, 0, true);
    nd_dd s, h;
    nd_bessel_jy_series(x, 0, &s, &h);
    const nd_dd l = nd_dd_add(nd_dd_log(x), nd_dd_make(ND_EULER_M_LN2_HI, ND_EULER_M_LN2_LO));
    const nd_dd r = nd_dd_add(nd_dd_mul(l, s), nd_dd_make(-h.hi, -h.lo));
    return (2.0 / ND_PI) * (r.hi + r.lo);
}
/* Y1 = (2/pi) log(x/2) J1 - 2/(pi x) - (x/(2 pi)) sum_k (-1)^k (psi(k+1) + psi(k+2)) q^k/(k!(k+1)!),
 * psi(k+1) + psi(k+2) = H_k + H_(k+1) - 2 gamma */
ND_HOSTDEV static inline double nd_op_y1_f64(double x)
{
    if (nd_isnan_f64(x) || x < 0 || nd_isinf_f64(x)) return (double)NAN;
    if (x == 0) return -(double)INFINITY;
    if (x > 20.0) return nd_bessel_jy_asym(x, 1, true);
    nd_dd s, h;
    nd_bessel_jy_series(x, 1, &s, &h);
    /* (x/2) [2 (log(x/2) + gamma) s - h] / pi ... - 2/(pi x) */
    const double m = -2.0 / x;
    if (nd_isinf_f64(m)) return m;
    const nd_dd l = nd_dd_add(nd_dd_log(x), nd_dd_make(ND_EULER_M_LN2_HI, ND_EULER_M_LN2_LO));
    nd_dd r = nd_dd_add(nd_dd_mul_d(nd_dd_mul(l, s), 2.0), nd_dd_make(-h.hi, -h.lo));
    r = nd_dd_mul_d(r, 0.5 * x);
    r = nd_dd_add(r, nd_dd_mul_d(nd_dd_recip(x), -2.0)); /* m in double-double */
    return (r.hi + r.lo) / ND_PI;
}
ND_HOSTDEV static inline float nd_op_j0_f32(float x) { return (float)nd_op_j0_f64((double)x); }
ND_HOSTDEV static inline float nd_op_j1_f32(float x) { return (float)nd_op_j1_f64((double)x); }
ND_HOSTDEV static inline float nd_op_y0_f32(float x) { return (float)nd_op_y0_f64((double)x); }
ND_HOSTDEV static inline float nd_op_y1_f32(float x) { return (float)nd_op_y1_f64((double)x); }

#endif /* ND_OPS_BESSEL_H */
