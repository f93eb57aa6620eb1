/*
 * The complex bodies with NumPy's own formulas: divide (Smith's
 * algorithm as NumPy's loop, run in an unbounded exponent where NumPy's
 * intermediates would overflow), reciprocal, sign, exp2, expm1, log1p,
 * log2, log10 and power (npy_cpow: its small-integer loop, 0 ** b, C99's
 * product for exp(b log a)). Part of src/shared/ops_cpx_math.h, which includes it
 * after its helpers and the C99 functions it builds on; see that file's
 * header for the semantics. Not to be included on its own.
 */
#ifndef ND_OPS_CPX_NUMPY_H
#define ND_OPS_CPX_NUMPY_H
#ifndef ND_OPS_CPX_MATH_BODY
#error "src/shared/ops_cpx_numpy.h is part of src/shared/ops_cpx_math.h: include that"
#endif

/* ------------------------------------------------------------------ */
/* NumPy's own formulas                                                */
/* ------------------------------------------------------------------ */
/* Doubles with an unbounded exponent: v = m 2^e, m = 0 (e = 0) or
 * 0.5 <= |m| < 1. Each operation rounds m exactly as the double operation
 * rounds a normal result, so NumPy's formulas evaluated in it give NumPy's
 * double results wherever those neither overflow nor underflow, and the
 * values NumPy's would have with an unbounded exponent elsewhere. Finite
 * values only (a zero divisor cannot reach it). */
typedef struct nd_cx_ext {
    double m;
    int e;
} nd_cx_ext;
ND_HOSTDEV static inline nd_cx_ext nd_cx_norm(double v, int e)
{
    nd_cx_ext r;
    int k = 0;
    r.m = v == 0 ? v : frexp(v, &k);
    r.e = v == 0 ? 0 : e + k;
    return r;
}
ND_HOSTDEV static inline nd_cx_ext nd_cx_x(double v) { return nd_cx_norm(v, 0); }
ND_HOSTDEV static inline double nd_cx_xd(nd_cx_ext a) { return ldexp(a.m, a.e); }
ND_HOSTDEV static inline nd_cx_ext nd_cx_xmul(nd_cx_ext a, nd_cx_ext b) { return nd_cx_norm(a.m * b.m, a.e + b.e); }
ND_HOSTDEV static inline nd_cx_ext nd_cx_xdiv(nd_cx_ext a, nd_cx_ext b) { return nd_cx_norm(a.m / b.m, a.e - b.e); }
ND_HOSTDEV static inline nd_cx_ext nd_cx_xadd(nd_cx_ext a, nd_cx_ext b)
{
    if (a.m == 0 || b.m == 0) return a.m != 0 ? a : (b.m != 0 ? b : nd_cx_x(a.m + b.m)); /* IEEE zero signs */
    if (a.e < b.e) {
        nd_cx_ext t = a;
        a = b;
        b = t;
    }
    /* |b| below 2^-60 |a|: a + b rounds to a */
    if (b.e - a.e < -60) return a;
    return nd_cx_norm(a.m + ldexp(b.m, b.e - a.e), a.e);
}
ND_HOSTDEV static inline nd_cx_ext nd_cx_xneg(nd_cx_ext a)
{
    a.m = -a.m;
    return a;
}
ND_HOSTDEV static inline nd_cx_ext nd_cx_xsub(nd_cx_ext a, nd_cx_ext b) { return nd_cx_xadd(a, nd_cx_xneg(b)); }
/* |a| >= |b| */
ND_HOSTDEV static inline bool nd_cx_xge(nd_cx_ext a, nd_cx_ext b)
{
    if (b.m == 0) return true;
    if (a.m == 0) return false;
    return a.e != b.e ? a.e > b.e : fabs(a.m) >= fabs(b.m);
}

/* NumPy's complex division loop, verbatim */
ND_HOSTDEV static inline nd_c128_t nd_cx_div_numpy(double ar, double ai, double br, double bi)
{
    double abr = fabs(br), abi = fabs(bi);
    if (abr >= abi) {
        if (abr == 0 && abi == 0) return nd_mk_c128(ar / abr, ai / abi);
        double rat = bi / br, scl = 1.0 / (br + bi * rat);
        return nd_mk_c128((ar + ai * rat) * scl, (ai - ar * rat) * scl);
    }
    double rat = br / bi, scl = 1.0 / (bi + br * rat);
    return nd_mk_c128((ar * rat + ai) * scl, (ai * rat - ar) * scl);
}

/* the same in the unbounded exponent (b != 0) */
ND_HOSTDEV static inline void nd_cx_div_ext(nd_cx_ext ar, nd_cx_ext ai, nd_cx_ext br, nd_cx_ext bi, nd_cx_ext *qr,
                                            nd_cx_ext *qi)
{
    nd_cx_ext one = nd_cx_x(1.0);
    if (nd_cx_xge(br, bi)) {
        nd_cx_ext rat = nd_cx_xdiv(bi, br), scl = nd_cx_xdiv(one, nd_cx_xadd(br, nd_cx_xmul(bi, rat)));
        *qr = nd_cx_xmul(nd_cx_xadd(ar, nd_cx_xmul(ai, rat)), scl);
        *qi = nd_cx_xmul(nd_cx_xsub(ai, nd_cx_xmul(ar, rat)), scl);
    } else {
        nd_cx_ext rat = nd_cx_xdiv(br, bi), scl = nd_cx_xdiv(one, nd_cx_xadd(bi, nd_cx_xmul(br, rat)));
        *qr = nd_cx_xmul(nd_cx_xadd(nd_cx_xmul(ar, rat), ai), scl);
        *qi = nd_cx_xmul(nd_cx_xsub(nd_cx_xmul(ai, rat), ar), scl);
    }
}

/* whether finite v is 0 or in [2^-250, 2^250]: Smith's formula on such
 * parts neither overflows nor underflows before its last rounding */
ND_HOSTDEV static inline bool nd_cx_tame(double v) { return v == 0 || (fabs(v) >= 0x1p-250 && fabs(v) <= 0x1p250); }

ND_HOSTDEV static inline nd_c128_t nd_op_divide_c128(nd_c128_t a, nd_c128_t b)
{
    double ar = a.re, ai = a.im, br = b.re, bi = b.im;
    if (nd_cx_finite(ar) && nd_cx_finite(ai) && nd_cx_finite(br) && nd_cx_finite(bi) && (br != 0 || bi != 0) &&
        !(nd_cx_tame(ar) && nd_cx_tame(ai) && nd_cx_tame(br) && nd_cx_tame(bi))) {
        nd_cx_ext qr, qi;
        nd_cx_div_ext(nd_cx_x(ar), nd_cx_x(ai), nd_cx_x(br), nd_cx_x(bi), &qr, &qi);
        return nd_mk_c128(nd_cx_xd(qr), nd_cx_xd(qi));
    }
    return nd_cx_div_numpy(ar, ai, br, bi);
}

/* NumPy's reciprocal loop, verbatim */
ND_HOSTDEV static inline nd_c128_t nd_cx_recip_numpy(double re, double im)
{
    if (fabs(im) <= fabs(re)) {
        double r = im / re, d = re + im * r;
        return nd_mk_c128(1.0 / d, -r / d);
    }
    double r = re / im, d = re * r + im;
    return nd_mk_c128(r / d, -1.0 / d);
}

ND_HOSTDEV static inline nd_c128_t nd_op_reciprocal_c128(nd_c128_t z)
{
    double x = z.re, y = z.im;
    if (nd_cx_finite(x) && nd_cx_finite(y) && (x != 0 || y != 0) && !(nd_cx_tame(x) && nd_cx_tame(y))) {
        nd_cx_ext re = nd_cx_x(x), im = nd_cx_x(y), one = nd_cx_x(1.0), r, d;
        if (nd_cx_xge(re, im)) {
            r = nd_cx_xdiv(im, re);
            d = nd_cx_xadd(re, nd_cx_xmul(im, r));
            return nd_mk_c128(nd_cx_xd(nd_cx_xdiv(one, d)), nd_cx_xd(nd_cx_xneg(nd_cx_xdiv(r, d))));
        }
        r = nd_cx_xdiv(re, im);
        d = nd_cx_xadd(nd_cx_xmul(re, r), im);
        return nd_mk_c128(nd_cx_xd(nd_cx_xdiv(r, d)), nd_cx_xd(nd_cx_xneg(nd_cx_xdiv(one, d))));
    }
    return nd_cx_recip_numpy(x, y);
}

ND_HOSTDEV static inline nd_c128_t nd_op_sign_c128(nd_c128_t z)
{
    double x = z.re, y = z.im;
    bool xi = nd_isinf_f64(x), yi = nd_isinf_f64(y);
    if (xi || yi) { /* |z| = hypot(x, y) = inf, even with a NaN part */
        if (xi && yi) return nd_mk_c128(nd_cx_nan(), nd_cx_nan());
        if (xi) return nd_mk_c128(x > 0 ? 1.0 : -1.0, 0.0);
        return nd_mk_c128(0.0, y > 0 ? 1.0 : -1.0);
    }
    if (nd_isnan_f64(x) || nd_isnan_f64(y)) return nd_mk_c128(nd_cx_nan(), nd_cx_nan());
    if (x == 0 && y == 0) return nd_mk_c128(0.0, 0.0);
    double m = nd_cx_max(fabs(x), fabs(y));
    if (m > 0x1p1000 || m < 0x1p-1000) {
        int e = nd_cx_expo(m);
        x = ldexp(x, -e);
        y = ldexp(y, -e);
    }
    double h = hypot(x, y);
    return nd_mk_c128(x / h, y / h);
}

ND_HOSTDEV static inline nd_c128_t nd_op_exp2_c128(nd_c128_t z)
{
    double x = z.re, y = z.im;
    if (!nd_cx_finite(x) || !nd_cx_finite(y)) return nd_op_exp_c128(nd_mk_c128(x * ND_CX_LN2, y * ND_CX_LN2));
    if (y == 0) return nd_mk_c128(exp2(x), y);
    /* the angle y ln2 = th + tl in double-double */
    double th = y * ND_CX_LN2;
    double tl = fma(y, ND_CX_LN2, -th) + y * ND_CX_LN2_LO;
    double c = cos(th), s = sin(th);
    if (fabs(tl) < 0x1p-30) { /* cos(tl) = 1, sin(tl) = tl to double precision */
        double c2 = c - s * tl;
        s = s + c * tl;
        c = c2;
    } else {
        double ct = cos(tl), st = sin(tl);
        double c2 = c * ct - s * st;
        s = s * ct + c * st;
        c = c2;
    }
    if (x > 1000.0) { /* 2^x overflows before the product does */
        double k = floor(x < 3000.0 ? x : 3000.0), e = exp2(x - k);
        return nd_mk_c128(ldexp(e * c, (int)k), ldexp(e * s, (int)k));
    }
    double e = exp2(x);
    return nd_mk_c128(e * c, e * s);
}

ND_HOSTDEV static inline nd_c128_t nd_op_expm1_c128(nd_c128_t z)
{
    double x = z.re, y = z.im;
    if (nd_cx_finite(x) && nd_cx_finite(y)) {
        if (y == 0) return nd_mk_c128(expm1(x), y);
        if (x > 709.0) {
            nd_c128_t w = nd_cx_exp_scaled(x, cos(y), sin(y), 0);
            return nd_mk_c128(w.re - 1.0, w.im);
        }
        if (x < -1.0) { /* e^x cos y - 1 does not cancel; NumPy's sum of two ~1 terms loses 2 ulp */
            double e = exp(x);
            return nd_mk_c128(e * cos(y) - 1.0, e * sin(y));
        }
    }
    double h = sin(0.5 * y); /* NumPy: sin(y/2) */
    return nd_mk_c128(expm1(x) * cos(y) - 2.0 * h * h, exp(x) * sin(y));
}

ND_HOSTDEV static inline nd_c128_t nd_op_log1p_c128(nd_c128_t z)
{
    double x = z.re, y = z.im;
    if (!nd_cx_finite(x) || !nd_cx_finite(y)) /* NumPy's formula */
        return nd_mk_c128(log(hypot(x + 1.0, y)), atan2(y, x + 1.0));
    if (x == 0 && y == 0) return nd_mk_c128(0.0, y);
    double u = x + 1.0, im = atan2(y, u);
    if (u == 0 && y == 0) return nd_mk_c128(-nd_cx_inf(), im);
    double au = fabs(u), ay = fabs(y);
    double m = nd_cx_max(au, ay);
    if (m >= 0.5 && m <= 2.0) /* |1 + z|^2 - 1 = 2x + x^2 + y^2 (|x| <= 3 here) */
        return nd_mk_c128(0.5 * log1p(nd_cx_sum_sq(2.0 * x, x, y)), im);
    /* u is exact when it is below 0.5 (Sterbenz); a rounded large one is harmless */
    return nd_mk_c128(nd_cx_log_abs(u, y), im);
}

/* the schoolbook product (NumPy's cmul) */
ND_HOSTDEV static inline nd_c128_t nd_cx_mul(nd_c128_t a, nd_c128_t b)
{
    return nd_mk_c128(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

/* C99's complex product (Annex G.5.1, as libgcc's __muldc3): the
 * schoolbook product, and when that gives NaN + i NaN, infinities
 * recovered from infinite factors or overflowed products. */
ND_HOSTDEV static inline nd_c128_t nd_cx_mul_annexg(nd_c128_t z, nd_c128_t w)
{
    double a = z.re, b = z.im, c = w.re, d = w.im;
    double ac = a * c, bd = b * d, ad = a * d, bc = b * c;
    double x = ac - bd, y = ad + bc;
    if (nd_isnan_f64(x) && nd_isnan_f64(y)) {
        bool recalc = false;
        if (nd_isinf_f64(a) || nd_isinf_f64(b)) {
            a = copysign(nd_isinf_f64(a) ? 1.0 : 0.0, a);
            b = copysign(nd_isinf_f64(b) ? 1.0 : 0.0, b);
            if (nd_isnan_f64(c)) c = copysign(0.0, c);
            if (nd_isnan_f64(d)) d = copysign(0.0, d);
            recalc = true;
        }
        if (nd_isinf_f64(c) || nd_isinf_f64(d)) {
            c = copysign(nd_isinf_f64(c) ? 1.0 : 0.0, c);
            d = copysign(nd_isinf_f64(d) ? 1.0 : 0.0, d);
            if (nd_isnan_f64(a)) a = copysign(0.0, a);
            if (nd_isnan_f64(b)) b = copysign(0.0, b);
            recalc = true;
        }
        if (!recalc && (nd_isinf_f64(ac) || nd_isinf_f64(bd) || nd_isinf_f64(ad) || nd_isinf_f64(bc))) {
            if (nd_isnan_f64(a)) a = copysign(0.0, a);
            if (nd_isnan_f64(b)) b = copysign(0.0, b);
            if (nd_isnan_f64(c)) c = copysign(0.0, c);
            if (nd_isnan_f64(d)) d = copysign(0.0, d);
            recalc = true;
        }
        if (recalc) {
            x = nd_cx_inf() * (a * c - b * d);
            y = nd_cx_inf() * (a * d + b * c);
        }
    }
    return nd_mk_c128(x, y);
}

/* NumPy's small-integer power loop: a^n for 2 <= |n| < 100 and n = -1
 * by repeated squaring from 1 (n = 2, 3 unrolled as NumPy does), then
 * 1 / a^|n| by NumPy's division for n < 0. Verbatim in double (for a with
 * an infinite or NaN part), and in the unbounded exponent for finite a. */
ND_HOSTDEV static inline nd_c128_t nd_cx_powi_numpy(nd_c128_t a, int n)
{
    if (n == 2) return nd_cx_mul(a, a);
    if (n == 3) return nd_cx_mul(a, nd_cx_mul(a, a));
    int m = n < 0 ? -n : n;
    nd_c128_t acc = nd_mk_c128(1.0, 0.0), p = a;
    for (int mask = 1;; mask <<= 1) {
        if (m & mask) acc = nd_cx_mul(acc, p);
        if (m < (mask << 1)) break;
        p = nd_cx_mul(p, p);
    }
    if (n < 0) acc = nd_cx_div_numpy(1.0, 0.0, acc.re, acc.im);
    return acc;
}

ND_HOSTDEV static inline void nd_cx_xcmul(nd_cx_ext *re, nd_cx_ext *im, nd_cx_ext br, nd_cx_ext bi)
{
    nd_cx_ext r = nd_cx_xsub(nd_cx_xmul(*re, br), nd_cx_xmul(*im, bi));
    *im = nd_cx_xadd(nd_cx_xmul(*re, bi), nd_cx_xmul(*im, br));
    *re = r;
}

ND_HOSTDEV static inline nd_c128_t nd_cx_powi_ext(double ar, double ai, int n)
{
    nd_cx_ext pr = nd_cx_x(ar), pi = nd_cx_x(ai), cr, ci;
    if (n == 2 || n == 3) {
        cr = pr, ci = pi;
        nd_cx_xcmul(&cr, &ci, pr, pi);
        if (n == 3) { /* NumPy: a * (a * a) */
            nd_cx_ext sr = pr, si = pi;
            nd_cx_xcmul(&sr, &si, cr, ci);
            cr = sr, ci = si;
        }
    } else {
        int m = n < 0 ? -n : n;
        cr = nd_cx_x(1.0), ci = nd_cx_x(0.0);
        for (int mask = 1;; mask <<= 1) {
            if (m & mask) nd_cx_xcmul(&cr, &ci, pr, pi);
            if (m < (mask << 1)) break;
            nd_cx_ext qr = pr, qi = pi;
            nd_cx_xcmul(&pr, &pi, qr, qi);
        }
        if (n < 0) {
            nd_cx_ext qr, qi;
            nd_cx_div_ext(nd_cx_x(1.0), nd_cx_x(0.0), cr, ci, &qr, &qi);
            cr = qr, ci = qi;
        }
    }
    return nd_mk_c128(nd_cx_xd(cr), nd_cx_xd(ci));
}

ND_HOSTDEV static inline nd_c128_t nd_op_power_c128(nd_c128_t a, nd_c128_t b)
{
    double ar = a.re, ai = a.im, br = b.re, bi = b.im;
    if (br == 0 && bi == 0) return nd_mk_c128(1.0, 0.0);
    if (ar == 0 && ai == 0) {
        if (br > 0) return nd_mk_c128(0.0, 0.0);
        return nd_mk_c128(nd_cx_nan(), nd_cx_nan());
    }
    if (bi == 0 && br > -100 && br < 100 && br == (double)(int)br) {
        int n = (int)br;
        if (n == 1) return a;
        if (nd_cx_finite(ar) && nd_cx_finite(ai)) return nd_cx_powi_ext(ar, ai, n);
        return nd_cx_powi_numpy(a, n);
    }
    return nd_op_exp_c128(nd_cx_mul_annexg(b, nd_op_log_c128(a)));
}

ND_HOSTDEV static inline nd_c128_t nd_op_float_power_c128(nd_c128_t a, nd_c128_t b) { return nd_op_power_c128(a, b); }

#endif /* ND_OPS_CPX_NUMPY_H */
