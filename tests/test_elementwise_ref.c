/* The elementwise suite's host-side values and its reference of every op:
 * plain C math in double precision for float loops, exact 64-bit integer
 * arithmetic (reduced to the dtype's width) for integer loops. Written
 * independently of src/shared/ops_math.h. */
#include <stdio.h>

#include "harness.h"
#include "special_gamma_ldref.h"

/* ------------------------------------------------------------------ */
/* Values                                                              */
/* ------------------------------------------------------------------ */
bool ew_is_signed(nd_dtype t) { return t == ND_INT8 || t == ND_INT16 || t == ND_INT32 || t == ND_INT64; }
int ew_bits(nd_dtype t) { return (int)nd_dtype_size(t) * 8; }

ew_val ew_wrap(nd_dtype t, uint64_t bits)
{
    ew_val r;
    int nb = ew_bits(t);
    uint64_t mask = nb == 64 ? ~(uint64_t)0 : (((uint64_t)1 << nb) - 1);
    uint64_t v = bits & mask;
    if (ew_is_signed(t)) {
        if (nb < 64 && (v >> (nb - 1)) & 1) v |= ~mask;
        r.i = (int64_t)v;
    } else {
        r.u = v;
    }
    return r;
}

double ew_round(nd_dtype t, double d)
{
    switch (t) {
    case ND_FLOAT16: return nd_half_to_float(nd_double_to_half(d));
    case ND_BFLOAT16: return nd_bf16_to_float(nd_double_to_bf16(d));
    case ND_FLOAT32: return (double)(float)d;
    default: return d;
    }
}

ew_val ew_load(const void *p, nd_dtype t)
{
    ew_val r;
    r.u = 0;
    switch (t) {
    case ND_BOOL: r.i = *(const uint8_t *)p != 0; break;
    case ND_INT8: r.i = *(const int8_t *)p; break;
    case ND_INT16: { int16_t v; memcpy(&v, p, 2); r.i = v; break; }
    case ND_INT32: { int32_t v; memcpy(&v, p, 4); r.i = v; break; }
    case ND_INT64: memcpy(&r.i, p, 8); break;
    case ND_UINT8: r.u = *(const uint8_t *)p; break;
    case ND_UINT16: { uint16_t v; memcpy(&v, p, 2); r.u = v; break; }
    case ND_UINT32: { uint32_t v; memcpy(&v, p, 4); r.u = v; break; }
    case ND_UINT64: memcpy(&r.u, p, 8); break;
    case ND_FLOAT16: { uint16_t h; memcpy(&h, p, 2); r.f = nd_half_to_float(h); break; }
    case ND_BFLOAT16: { uint16_t h; memcpy(&h, p, 2); r.f = nd_bf16_to_float(h); break; }
    case ND_FLOAT32: { float v; memcpy(&v, p, 4); r.f = v; break; }
    default: memcpy(&r.f, p, 8); break;
    }
    return r;
}

void ew_store(void *p, nd_dtype t, ew_val v)
{
    if (nd__is_float(t)) {
        uint16_t h;
        float f;
        switch (t) {
        case ND_FLOAT16: h = nd_double_to_half(v.f); memcpy(p, &h, 2); break;
        case ND_BFLOAT16: h = nd_double_to_bf16(v.f); memcpy(p, &h, 2); break;
        case ND_FLOAT32: f = (float)v.f; memcpy(p, &f, 4); break;
        default: memcpy(p, &v.f, 8); break;
        }
        return;
    }
    if (t == ND_BOOL) {
        *(uint8_t *)p = v.i != 0;
        return;
    }
    uint64_t bits = v.u; /* the same bits for i and u */
    switch (nd_dtype_size(t)) {
    case 1: { uint8_t x = (uint8_t)bits; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)bits; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)bits; memcpy(p, &x, 4); break; }
    default: memcpy(p, &bits, 8); break;
    }
}

double ew_as_double(ew_val v, nd_dtype t)
{
    if (nd__is_float(t)) return v.f;
    if (t == ND_BOOL || ew_is_signed(t)) return (double)v.i;
    return (double)v.u;
}

ew_val ew_convert(ew_val v, nd_dtype from, nd_dtype to)
{
    ew_val r;
    if (to == ND_BOOL) {
        r.i = nd__is_float(from) ? (v.f != 0) : (v.u != 0);
    } else if (nd__is_float(to)) {
        r.f = ew_round(to, ew_as_double(v, from));
    } else {
        /* integer targets only ever come from bool or integers here */
        r = ew_wrap(to, v.u);
    }
    return r;
}

bool ew_close(ew_val got, ew_val want, nd_dtype t, nd_dtype res)
{
    if (!nd__is_float(t)) return got.u == want.u;
    double g = got.f, w = want.f;
    if (isnan(w)) return isnan(g);
    if (isinf(w) || isnan(g) || isinf(g)) return g == w;
    if (w == 0 && g == 0) return (signbit(g) != 0) == (signbit(w) != 0); /* signed zeros */
    double rtol, atol;
    switch (res) {
    case ND_FLOAT16: rtol = 1e-3; atol = 1e-7; break;
    case ND_BFLOAT16: rtol = 8e-3; atol = 1e-37; break;
    case ND_FLOAT32: rtol = 2e-6; atol = 1e-37; break;
    case ND_FLOAT64: rtol = 1e-13; atol = 1e-300; break;
    default: rtol = 0; atol = 0; break; /* integer results in a float out */
    }
    return fabs(g - w) <= atol + rtol * fabs(w);
}

void ew_fmt(char *buf, size_t cap, ew_val v, nd_dtype t)
{
    if (nd__is_float(t)) snprintf(buf, cap, "%.17g", v.f);
    else if (t == ND_BOOL || ew_is_signed(t)) snprintf(buf, cap, "%lld", (long long)v.i);
    else snprintf(buf, cap, "%llu", (unsigned long long)v.u);
}

/* ------------------------------------------------------------------ */
/* Loop and result dtypes, from the X-macro's kinds and rule columns   */
/* ------------------------------------------------------------------ */
enum { EW_SAME, EW_FLOAT, EW_DIV, EW_BOOL, EW_F64 };
#define EW_RULE_SAME EW_SAME
#define EW_RULE_FLOAT EW_FLOAT
#define EW_RULE_DIV EW_DIV
#define EW_RULE_BOOL EW_BOOL
#define EW_RULE_F64 EW_F64
#define EW_UK(E, n, k, r) [ND_UNARY_##E] = #k,
#define EW_BK(E, n, k, r) [ND_BINARY_##E] = #k,
#define EW_UR(E, n, k, r) [ND_UNARY_##E] = EW_RULE_##r,
#define EW_BR(E, n, k, r) [ND_BINARY_##E] = EW_RULE_##r,
static const char *const ukinds[] = {ND_UNARY_OPS(EW_UK)};
static const char *const bkinds[] = {ND_BINARY_OPS(EW_BK)};
static const int urules[] = {ND_UNARY_OPS(EW_UR)};
static const int brules[] = {ND_BINARY_OPS(EW_BR)};

static char kind_char(nd_dtype t)
{
    if (t == ND_BOOL) return 'B';
    if (ew_is_signed(t)) return 'I';
    return nd__is_float(t) ? 'F' : 'U';
}

static bool admits(const char *kinds, nd_dtype t)
{
    char c = kind_char(t);
    return strchr(kinds, c) != NULL || (c == 'B' && strchr(kinds, 'b') != NULL);
}

static nd_dtype smallest_float(nd_dtype t)
{
    if (nd__is_float(t)) return t;
    switch (nd_dtype_size(t)) {
    case 1: return ND_FLOAT16;
    case 2: return ND_FLOAT32;
    default: return ND_FLOAT64;
    }
}

static bool types(const char *kinds, int rule, nd_dtype in, nd_dtype *loop, nd_dtype *res)
{
    if (!admits(kinds, in)) return false;
    nd_dtype l = (in == ND_BOOL && strchr(kinds, 'b')) ? ND_INT8 : in;
    switch (rule) {
    case EW_SAME: *res = l; break;
    case EW_FLOAT: l = smallest_float(l); *res = l; break;
    case EW_DIV: if (!nd__is_float(l)) l = ND_FLOAT64; *res = l; break;
    case EW_F64: l = ND_FLOAT64; *res = l; break;
    default: *res = ND_BOOL; break;
    }
    *loop = l;
    return true;
}

bool ew_unary_types(nd_unary_op op, nd_dtype in, nd_dtype *loop, nd_dtype *res)
{
    return types(ukinds[op], urules[op], in, loop, res);
}
bool ew_binary_types(nd_binary_op op, nd_dtype in, nd_dtype *loop, nd_dtype *res)
{
    return types(bkinds[op], brules[op], in, loop, res);
}
bool ew_unary_admits(nd_unary_op op, nd_dtype t) { return admits(ukinds[op], t); }
bool ew_binary_admits(nd_binary_op op, nd_dtype t) { return admits(bkinds[op], t); }

/* ------------------------------------------------------------------ */
/* References                                                          */
/* ------------------------------------------------------------------ */
static ew_val B(bool v) { ew_val r; r.i = v ? 1 : 0; return r; }
static ew_val F(double v) { ew_val r; r.f = v; return r; }

/* NumPy's divmod for floats (npy_divmod), in double */
static double py_divmod(double a, double b, double *mod)
{
    double m = fmod(a, b);
    if (b == 0) {
        *mod = m;
        return a / b;
    }
    double div = (a - m) / b;
    if (m != 0) {
        if ((b < 0) != (m < 0)) {
            m += b;
            div -= 1.0;
        }
    } else {
        m = copysign(0.0, b);
    }
    double fl;
    if (div != 0) {
        fl = floor(div);
        if (div - fl > 0.5) fl += 1.0;
    } else {
        fl = copysign(0.0, a / b);
    }
    *mod = m;
    return fl;
}

/* The special functions from libm's erf/erfc (independent of
 * src/shared/ops_special.h); the inverses by bisection on them. */
static double ref_ndtr(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }
static double ref_bisect(double (*f)(double), double y, double lo, double hi) /* f increasing */
{
    for (int it = 0; it < 200 && nextafter(lo, hi) < hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (f(mid) < y) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}
static double ref_nerfc(double x) { return -erfc(x); }
static double ref_erfcinv(double q)
{
    if (isnan(q) || q < 0 || q > 2) return NAN;
    if (q == 0) return INFINITY;
    if (q == 2) return -INFINITY;
    if (q == 1) return -0.0; /* SciPy's sign */
    if (q < 0.5) return ref_bisect(ref_nerfc, -q, 0, 30);
    if (q > 1.5) return -ref_bisect(ref_nerfc, -(2 - q), 0, 30);
    return ref_bisect(erf, 1 - q, -2, 2); /* 1 - q exact */
}
static double ref_erfinv(double y)
{
    if (isnan(y) || fabs(y) > 1) return NAN;
    if (fabs(y) > 0.5) return y > 0 ? ref_erfcinv(1 - y) : -ref_erfcinv(1 + y);
    return y == 0 ? 0.0 : ref_bisect(erf, y, -1, 1); /* erfinv(-0) = +0 (SciPy) */
}
static double ref_softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }
static double ref_special(nd_unary_op op, double x)
{
    const double pi = 3.14159265358979323846;
    /* the activations' limit at -inf (where their formulas give NaN) */
    if (x == -INFINITY && (op == ND_UNARY_GELU || op == ND_UNARY_GELU_TANH || op == ND_UNARY_SILU ||
                           op == ND_UNARY_MISH || op == ND_UNARY_HARDSWISH))
        return -0.0;
    switch (op) {
    case ND_UNARY_ERF: return erf(x);
    case ND_UNARY_ERFC: return erfc(x);
    case ND_UNARY_ERFINV: return ref_erfinv(x);
    case ND_UNARY_ERFCINV: return ref_erfcinv(x);
    case ND_UNARY_ERFCX: return x < 25 ? exp(x * x) * erfc(x) : (1 - 0.5 / (x * x) + 0.75 / (x * x * x * x)) / (x * sqrt(pi));
    case ND_UNARY_NDTR: return ref_ndtr(x);
    case ND_UNARY_NDTRI: return -sqrt(2.0) * ref_erfcinv(2 * x);
    case ND_UNARY_LOG_NDTR: return x > 0 ? log1p(-ref_ndtr(-x)) : log(ref_ndtr(x));
    case ND_UNARY_LOGIT: return log1p((2 * x - 1) / (1 - x)); /* 2x - 1 exact: no cancellation near 1/2 */
    case ND_UNARY_LOG_EXPIT: return -ref_softplus(-x);
    case ND_UNARY_SOFTPLUS: return ref_softplus(x);
    case ND_UNARY_ENTR: return isnan(x) ? x : x > 0 ? -x * log(x) : x == 0 ? 0.0 : -INFINITY;
    case ND_UNARY_SINC: { /* sin(pi x) = (-1)^n sin(pi (x - n)), n = rint(x), x - n exact */
        if (isinf(x)) return NAN;
        if (x == 0) return 1.0;
        double n = rint(x), s = sin(pi * (x - n));
        return (fmod(n, 2) != 0 ? -s : s) / (pi * x) + 0.0;
    }
    case ND_UNARY_GELU: return x * ref_ndtr(x);
    case ND_UNARY_GELU_TANH: /* 0.5 x (1 + tanh(u)) = x sigmoid(2u), without the cancellation */
        return x / (1 + exp(-2 * sqrt(2 / pi) * (x + 0.044715 * x * x * x)));
    case ND_UNARY_SILU: return x / (1 + exp(-x));
    case ND_UNARY_MISH: return x * tanh(ref_softplus(x));
    case ND_UNARY_RELU6: return isnan(x) ? x : x > 6 ? 6.0 : x > 0 ? x : 0.0;
    case ND_UNARY_HARDSWISH: return x * fmin(fmax(x + 3, 0), 6) / 6;
    case ND_UNARY_SELU: return 1.0507009873554805 * (x > 0 ? x : 1.6732632423543772 * expm1(x));
    default: return NAN;
    }
}

static bool ref_unary_float(nd_unary_op op, double x, ew_val *r)
{
    switch (op) {
    case ND_UNARY_NEG: *r = F(-x); break;
    case ND_UNARY_POSITIVE: *r = F(x); break;
    case ND_UNARY_ABS: *r = F(fabs(x)); break;
    case ND_UNARY_SIGN: *r = F(isnan(x) ? x : (x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0))); break;
    case ND_UNARY_SQRT: *r = F(sqrt(x)); break;
    case ND_UNARY_CBRT: *r = F(cbrt(x)); break;
    case ND_UNARY_SQUARE: *r = F(x * x); break;
    case ND_UNARY_RECIPROCAL: *r = F(1.0 / x); break;
    case ND_UNARY_EXP: *r = F(exp(x)); break;
    case ND_UNARY_EXP2: *r = F(pow(2.0, x)); break;
    case ND_UNARY_EXPM1: *r = F(expm1(x)); break;
    case ND_UNARY_LOG: *r = F(log(x)); break;
    case ND_UNARY_LOG2: *r = F(log2(x)); break;
    case ND_UNARY_LOG10: *r = F(log10(x)); break;
    case ND_UNARY_LOG1P: *r = F(log1p(x)); break;
    case ND_UNARY_SIN: *r = F(sin(x)); break;
    case ND_UNARY_COS: *r = F(cos(x)); break;
    case ND_UNARY_TAN: *r = F(tan(x)); break;
    case ND_UNARY_ARCSIN: *r = F(asin(x)); break;
    case ND_UNARY_ARCCOS: *r = F(acos(x)); break;
    case ND_UNARY_ARCTAN: *r = F(atan(x)); break;
    case ND_UNARY_SINH: *r = F(sinh(x)); break;
    case ND_UNARY_COSH: *r = F(cosh(x)); break;
    case ND_UNARY_TANH: *r = F(tanh(x)); break;
    case ND_UNARY_ARCSINH: *r = F(asinh(x)); break;
    case ND_UNARY_ARCCOSH: *r = F(acosh(x)); break;
    case ND_UNARY_ARCTANH: *r = F(atanh(x)); break;
    case ND_UNARY_SIGMOID: *r = F(1.0 / (1.0 + exp(-x))); break;
    case ND_UNARY_RELU: *r = F(isnan(x) ? x : (x > 0 ? x : 0.0)); break;
    case ND_UNARY_FLOOR: *r = F(floor(x)); break;
    case ND_UNARY_CEIL: *r = F(ceil(x)); break;
    case ND_UNARY_TRUNC: *r = F(trunc(x)); break;
    case ND_UNARY_RINT: *r = F(nearbyint(x)); break;
    case ND_UNARY_LOGICAL_NOT: *r = B(x == 0); break;
    case ND_UNARY_ISNAN: *r = B(isnan(x)); break;
    case ND_UNARY_ISINF: *r = B(isinf(x)); break;
    case ND_UNARY_ISFINITE: *r = B(isfinite(x)); break;
    case ND_UNARY_SIGNBIT: *r = B(signbit(x) != 0); break;
    case ND_UNARY_DEG2RAD: *r = F(x * (3.14159265358979323846 / 180.0)); break;
    case ND_UNARY_RAD2DEG: *r = F(x * (180.0 / 3.14159265358979323846)); break;
    case ND_UNARY_CONJUGATE: *r = F(x); break;
    case ND_UNARY_ERF:
    case ND_UNARY_ERFC:
    case ND_UNARY_ERFINV:
    case ND_UNARY_ERFCINV:
    case ND_UNARY_ERFCX:
    case ND_UNARY_NDTR:
    case ND_UNARY_NDTRI:
    case ND_UNARY_LOG_NDTR:
    case ND_UNARY_LOGIT:
    case ND_UNARY_LOG_EXPIT:
    case ND_UNARY_SOFTPLUS:
    case ND_UNARY_ENTR:
    case ND_UNARY_SINC:
    case ND_UNARY_GELU:
    case ND_UNARY_GELU_TANH:
    case ND_UNARY_SILU:
    case ND_UNARY_MISH:
    case ND_UNARY_RELU6:
    case ND_UNARY_HARDSWISH:
    case ND_UNARY_SELU: *r = F(ref_special(op, x)); break;
    default: {
        double v;
        if (!sg_ref_unary(op, x, &v)) return false;
        *r = F(v);
        break;
    }
    }
    return true;
}

static bool ref_unary_int(nd_unary_op op, nd_dtype t, ew_val x, ew_val *r)
{
    bool s = ew_is_signed(t);
    bool neg = s && x.i < 0;
    uint64_t v = x.u; /* the bits */
    switch (op) {
    case ND_UNARY_NEG: *r = ew_wrap(t, 0 - v); break;
    case ND_UNARY_POSITIVE: *r = x; break;
    case ND_UNARY_ABS: *r = neg ? ew_wrap(t, 0 - v) : x; break;
    case ND_UNARY_SIGN: *r = ew_wrap(t, neg ? ~(uint64_t)0 : (v != 0 ? 1 : 0)); break;
    case ND_UNARY_SQUARE: *r = ew_wrap(t, v * v); break;
    case ND_UNARY_RECIPROCAL:
        if (v == 0) *r = x;
        else if (s) *r = ew_wrap(t, (uint64_t)(1 / x.i));
        else *r = ew_wrap(t, 1 / x.u);
        break;
    case ND_UNARY_RELU: *r = neg ? ew_wrap(t, 0) : x; break;
    case ND_UNARY_FLOOR:
    case ND_UNARY_CEIL:
    case ND_UNARY_TRUNC: *r = x; break;
    case ND_UNARY_BITWISE_NOT: *r = ew_wrap(t, ~v); break;
    case ND_UNARY_LOGICAL_NOT: *r = B(v == 0); break;
    case ND_UNARY_ISNAN: *r = B(false); break;
    case ND_UNARY_ISINF: *r = B(false); break;
    case ND_UNARY_ISFINITE: *r = B(true); break;
    case ND_UNARY_SIGNBIT: *r = B(neg); break;
    case ND_UNARY_CONJUGATE: *r = x; break;
    default: return false;
    }
    return true;
}

static bool ref_unary_bool(nd_unary_op op, bool x, ew_val *r)
{
    switch (op) {
    case ND_UNARY_ABS:
    case ND_UNARY_FLOOR:
    case ND_UNARY_CEIL:
    case ND_UNARY_TRUNC: *r = B(x); break;
    case ND_UNARY_LOGICAL_NOT:
    case ND_UNARY_BITWISE_NOT: *r = B(!x); break;
    case ND_UNARY_ISNAN:
    case ND_UNARY_ISINF:
    case ND_UNARY_SIGNBIT: *r = B(false); break;
    case ND_UNARY_ISFINITE: *r = B(true); break;
    default: return false;
    }
    return true;
}

/* The float dtypes' neighbours, by value (independent of src/shared/ops_math.h):
 * the representable values of t next to x upwards / downwards. */
static double bits_to(nd_dtype t, uint64_t u)
{
    switch (t) {
    case ND_FLOAT16: return nd_half_to_float((uint16_t)u);
    case ND_BFLOAT16: return nd_bf16_to_float((uint16_t)u);
    case ND_FLOAT32: { uint32_t v = (uint32_t)u; float f; memcpy(&f, &v, 4); return f; }
    default: { double d; memcpy(&d, &u, 8); return d; }
    }
}
static uint64_t to_bits(nd_dtype t, double x)
{
    switch (t) {
    case ND_FLOAT16: return nd_double_to_half(x);
    case ND_BFLOAT16: return nd_double_to_bf16(x);
    case ND_FLOAT32: { float f = (float)x; uint32_t v; memcpy(&v, &f, 4); return v; }
    default: { uint64_t v; memcpy(&v, &x, 8); return v; }
    }
}
/* the next value of t after finite or infinite x (not NaN) towards +inf
 * (up) or -inf */
static double step(nd_dtype t, double x, bool up)
{
    uint64_t sign = (uint64_t)1 << (ew_bits(t) - 1);
    if (x == 0) return bits_to(t, up ? 1 : sign | 1);
    uint64_t u = to_bits(t, x);
    bool away = (x > 0) == up;
    return bits_to(t, away ? u + 1 : u - 1);
}

static bool ref_float_typed(bool binary, int op, nd_dtype t, double a, double b, ew_val *r)
{
    if (binary && op == ND_BINARY_NEXTAFTER) {
        if (isnan(a) || isnan(b)) *r = F(NAN);
        else if (a == b) *r = F(t == ND_FLOAT16 ? a : b); /* NumPy's half returns x, C returns y */
        else *r = F(step(t, a, b > a));
        return true;
    }
    if (!binary && op == ND_UNARY_SPACING) {
        if (isnan(a) || isinf(a)) *r = F(NAN);
        else if (t == ND_FLOAT16) *r = F(step(t, a, true) - a); /* NumPy's half spacing: towards +inf */
        else if (a == 0) *r = F(bits_to(t, 1));
        else *r = F(step(t, a, a > 0) - a);
        return true;
    }
    return false;
}

bool ew_ref_unary(nd_unary_op op, nd_dtype loop, ew_val x, ew_val *r)
{
    if (nd__is_float(loop) && ref_float_typed(false, (int)op, loop, x.f, 0, r)) return true;
    if (nd__is_float(loop)) return ref_unary_float(op, x.f, r);
    if (loop == ND_BOOL) return ref_unary_bool(op, x.i != 0, r);
    return ref_unary_int(op, loop, x, r);
}

static bool ref_binary_float(nd_binary_op op, double a, double b, ew_val *r)
{
    double m;
    switch (op) {
    case ND_BINARY_ADD: *r = F(a + b); break;
    case ND_BINARY_SUBTRACT: *r = F(a - b); break;
    case ND_BINARY_MULTIPLY: *r = F(a * b); break;
    case ND_BINARY_DIVIDE: *r = F(a / b); break;
    case ND_BINARY_FLOOR_DIVIDE: *r = F(py_divmod(a, b, &m)); break;
    case ND_BINARY_REMAINDER: py_divmod(a, b, &m); *r = F(m); break;
    case ND_BINARY_POWER: *r = F(pow(a, b)); break;
    case ND_BINARY_MAXIMUM: *r = F(isnan(a) || isnan(b) ? NAN : (a >= b ? a : b)); break;
    case ND_BINARY_MINIMUM: *r = F(isnan(a) || isnan(b) ? NAN : (a <= b ? a : b)); break;
    case ND_BINARY_FMAX: *r = F(isnan(a) ? b : isnan(b) ? a : (a >= b ? a : b)); break;
    case ND_BINARY_FMIN: *r = F(isnan(a) ? b : isnan(b) ? a : (a <= b ? a : b)); break;
    case ND_BINARY_ARCTAN2: *r = F(atan2(a, b)); break;
    case ND_BINARY_HYPOT: *r = F(hypot(a, b)); break;
    case ND_BINARY_COPYSIGN: *r = F(copysign(a, b)); break;
    case ND_BINARY_EQUAL: *r = B(a == b); break;
    case ND_BINARY_NOT_EQUAL: *r = B(a != b); break;
    case ND_BINARY_LESS: *r = B(a < b); break;
    case ND_BINARY_LESS_EQUAL: *r = B(a <= b); break;
    case ND_BINARY_GREATER: *r = B(a > b); break;
    case ND_BINARY_GREATER_EQUAL: *r = B(a >= b); break;
    case ND_BINARY_LOGICAL_AND: *r = B(a != 0 && b != 0); break;
    case ND_BINARY_LOGICAL_OR: *r = B(a != 0 || b != 0); break;
    case ND_BINARY_LOGICAL_XOR: *r = B((a != 0) != (b != 0)); break;
    case ND_BINARY_FMOD: *r = F(fmod(a, b)); break;
    case ND_BINARY_LOGADDEXP:
        if (isnan(a) || isnan(b)) *r = F(NAN);
        else if (a == b) *r = F(a + log(2.0));
        else *r = F(fmax(a, b) + log1p(exp(-fabs(a - b))));
        break;
    case ND_BINARY_LOGADDEXP2:
        if (isnan(a) || isnan(b)) *r = F(NAN);
        else if (a == b) *r = F(a + 1.0);
        else *r = F(fmax(a, b) + log1p(exp2(-fabs(a - b))) / log(2.0));
        break;
    case ND_BINARY_HEAVISIDE: *r = F(isnan(a) ? NAN : a < 0 ? 0.0 : a > 0 ? 1.0 : b); break;
    case ND_BINARY_FLOAT_POWER: *r = F(pow(a, b)); break;
    case ND_BINARY_LDEXP: *r = F(ldexp(a, (int)b)); break;
    case ND_BINARY_XLOGY: *r = F(a == 0 && !isnan(b) ? 0.0 : a * log(b)); break;
    case ND_BINARY_XLOG1PY: *r = F(a == 0 && !isnan(b) ? 0.0 : a * log1p(b)); break;
    case ND_BINARY_LEAKY_RELU: *r = F(a > 0 ? a : a * b); break;
    case ND_BINARY_ELU: *r = F(a > 0 ? a : b * expm1(a)); break;
    default: {
        double v;
        if (!sg_ref_binary(op, a, b, &v)) return false;
        *r = F(v);
        break;
    }
    }
    return true;
}

/* Python's floor division / modulus on int64, Python-exact (|a|, |b| small
 * enough or b != -1 for INT64_MIN). */
static int64_t py_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (q * b != a && ((a < 0) != (b < 0))) q -= 1;
    return q;
}

static bool ref_binary_int(nd_binary_op op, nd_dtype t, ew_val a, ew_val b, ew_val *r)
{
    bool s = ew_is_signed(t);
    int nb = ew_bits(t);
    switch (op) {
    case ND_BINARY_ADD: *r = ew_wrap(t, a.u + b.u); break;
    case ND_BINARY_SUBTRACT: *r = ew_wrap(t, a.u - b.u); break;
    case ND_BINARY_MULTIPLY: *r = ew_wrap(t, a.u * b.u); break;
    case ND_BINARY_FLOOR_DIVIDE:
        if (b.u == 0) *r = ew_wrap(t, 0);
        else if (!s) *r = ew_wrap(t, a.u / b.u);
        else if (b.i == -1) *r = ew_wrap(t, 0 - a.u); /* MIN // -1 wraps */
        else *r = ew_wrap(t, (uint64_t)py_floordiv(a.i, b.i));
        break;
    case ND_BINARY_REMAINDER:
        if (b.u == 0) *r = ew_wrap(t, 0);
        else if (!s) *r = ew_wrap(t, a.u % b.u);
        else if (b.i == -1) *r = ew_wrap(t, 0);
        else *r = ew_wrap(t, a.u - (uint64_t)py_floordiv(a.i, b.i) * b.u); /* a - q*b, wrap-safe */
        break;
    case ND_BINARY_POWER: {
        if (s && b.i < 0) return false; /* an error case, never generated */
        uint64_t p = 1;
        for (uint64_t k = 0; k < b.u; k++) p *= a.u;
        *r = ew_wrap(t, p);
        break;
    }
    case ND_BINARY_MAXIMUM:
    case ND_BINARY_FMAX: *r = (s ? a.i >= b.i : a.u >= b.u) ? a : b; break;
    case ND_BINARY_MINIMUM:
    case ND_BINARY_FMIN: *r = (s ? a.i <= b.i : a.u <= b.u) ? a : b; break;
    case ND_BINARY_EQUAL: *r = B(a.u == b.u); break;
    case ND_BINARY_NOT_EQUAL: *r = B(a.u != b.u); break;
    case ND_BINARY_LESS: *r = B(s ? a.i < b.i : a.u < b.u); break;
    case ND_BINARY_LESS_EQUAL: *r = B(s ? a.i <= b.i : a.u <= b.u); break;
    case ND_BINARY_GREATER: *r = B(s ? a.i > b.i : a.u > b.u); break;
    case ND_BINARY_GREATER_EQUAL: *r = B(s ? a.i >= b.i : a.u >= b.u); break;
    case ND_BINARY_LOGICAL_AND: *r = B(a.u != 0 && b.u != 0); break;
    case ND_BINARY_LOGICAL_OR: *r = B(a.u != 0 || b.u != 0); break;
    case ND_BINARY_LOGICAL_XOR: *r = B((a.u != 0) != (b.u != 0)); break;
    case ND_BINARY_FMOD:
        if (b.u == 0 || (s && b.i == -1)) *r = ew_wrap(t, 0);
        else *r = s ? ew_wrap(t, (uint64_t)(a.i % b.i)) : ew_wrap(t, a.u % b.u);
        break;
    case ND_BINARY_GCD:
    case ND_BINARY_LCM: {
        /* magnitudes as exact 64-bit unsigned values */
        uint64_t x = s && a.i < 0 ? 0 - a.u : a.u, y = s && b.i < 0 ? 0 - b.u : b.u, g = x, h = y;
        while (h) {
            uint64_t k = g % h;
            g = h;
            h = k;
        }
        if (op == ND_BINARY_GCD) {
            *r = ew_wrap(t, g);
        } else if (g == 0) {
            *r = ew_wrap(t, 0);
        } else {
            uint64_t v = x / g * y; /* exact below 64 bits */
            ew_val w = ew_wrap(t, v);
            /* NumPy: int8/int16 truncate the exact product, wider ones take
             * abs of the wrapped product */
            if (s && nb >= 32 && w.i < 0) w = ew_wrap(t, 0 - w.u);
            *r = w;
        }
        break;
    }
    case ND_BINARY_BITWISE_AND: *r = ew_wrap(t, a.u & b.u); break;
    case ND_BINARY_BITWISE_OR: *r = ew_wrap(t, a.u | b.u); break;
    case ND_BINARY_BITWISE_XOR: *r = ew_wrap(t, a.u ^ b.u); break;
    case ND_BINARY_LEFT_SHIFT:
    case ND_BINARY_RIGHT_SHIFT: {
        bool out_of_range = s ? (b.i < 0 || b.i >= nb) : (b.u >= (uint64_t)nb);
        bool aneg = s && a.i < 0;
        if (op == ND_BINARY_LEFT_SHIFT) *r = out_of_range ? ew_wrap(t, 0) : ew_wrap(t, a.u << b.u);
        else if (out_of_range) *r = ew_wrap(t, aneg ? ~(uint64_t)0 : 0);
        else if (aneg) *r = ew_wrap(t, (uint64_t)(-1 - ((-1 - a.i) >> b.u))); /* floor(a / 2^b) */
        else *r = ew_wrap(t, a.u >> b.u);
        break;
    }
    default: return false;
    }
    return true;
}

static bool ref_binary_bool(nd_binary_op op, bool a, bool b, ew_val *r)
{
    switch (op) {
    case ND_BINARY_ADD:
    case ND_BINARY_MAXIMUM:
    case ND_BINARY_FMAX:
    case ND_BINARY_LOGICAL_OR:
    case ND_BINARY_BITWISE_OR: *r = B(a || b); break;
    case ND_BINARY_MULTIPLY:
    case ND_BINARY_MINIMUM:
    case ND_BINARY_FMIN:
    case ND_BINARY_LOGICAL_AND:
    case ND_BINARY_BITWISE_AND: *r = B(a && b); break;
    case ND_BINARY_EQUAL: *r = B(a == b); break;
    case ND_BINARY_NOT_EQUAL:
    case ND_BINARY_LOGICAL_XOR:
    case ND_BINARY_BITWISE_XOR: *r = B(a != b); break;
    case ND_BINARY_LESS: *r = B((int)a < (int)b); break;
    case ND_BINARY_LESS_EQUAL: *r = B((int)a <= (int)b); break;
    case ND_BINARY_GREATER: *r = B((int)a > (int)b); break;
    case ND_BINARY_GREATER_EQUAL: *r = B((int)a >= (int)b); break;
    default: return false;
    }
    return true;
}

bool ew_ref_binary(nd_binary_op op, nd_dtype loop, ew_val a, ew_val b, ew_val *r)
{
    if (nd__is_float(loop) && ref_float_typed(true, (int)op, loop, a.f, b.f, r)) return true;
    if (nd__is_float(loop)) return ref_binary_float(op, a.f, b.f, r);
    if (loop == ND_BOOL) return ref_binary_bool(op, a.i != 0, b.i != 0, r);
    return ref_binary_int(op, loop, a, b, r);
}
