/*
 * The scalar body of every elementwise op, written once and shared by the
 * CPU loops (gcc, C11) and the CUDA kernels (nvcc, C++): plain functions,
 * no _Generic, no compound literals, only math.h functions that CUDA
 * device code also has (expf, exp, tanhf, ...).
 *
 * Naming: nd_op_<name>_<sfx>(x) / nd_op_<name>_<sfx>(a, b), where <name> is
 * the op's name in ND_UNARY_OPS / ND_BINARY_OPS (include/ndgpu/elementwise.h) and <sfx>
 * the compute type:
 *      b    bool            (storage uint8_t, values 0/1)
 *      i8 i16 i32 i64       int8_t ... int64_t
 *      u8 u16 u32 u64       uint8_t ... uint64_t
 *      f32 f64              float, double
 *      c64 c128             nd_c64_t, nd_c128_t (src/shared/convert.h; src/shared/ops_cpx.h)
 * float16 and bfloat16 are loaded as float32 (src/shared/half.h), computed with
 * the _f32 body and rounded back to nearest even.
 *
 * Which bodies exist follows the op's kinds and rule columns (a backend
 * generates its loops from the X-macro with ND_OP_LOOPS(kinds, rule),
 * below): SAME and BOOL ops have a body for each compute type of their
 * kinds (b, i*, u*, f*; a lower-case b in kinds means no bool body: bool
 * is computed as int8), FLOAT and DIV ops f32 and f64 only (the core casts
 * inputs to a float). Return type: BOOL ops return bool, all others the
 * compute type.
 *
 * Semantics are NumPy's:
 *  - signed overflow wraps (computed in unsigned, no UB);
 *  - integer floor_divide/remainder follow Python's sign rules, division
 *    by zero gives 0, INT_MIN // -1 wraps to INT_MIN, INT_MIN % -1 == 0;
 *  - float floor_divide/remainder are NumPy's npy_divmod;
 *  - maximum/minimum propagate NaN, fmax/fmin ignore it; on ties (+0 vs
 *    -0) the first operand wins (NumPy's scalar loops; its SIMD loops
 *    are inconsistent there, so the sign of such a zero is unspecified);
 *  - shifts by a count >= the bit width (or negative) give 0, and -1 for a
 *    right shift of a negative value;
 *  - integer power by squaring with wrap-around. A negative exponent is an
 *    error in NumPy ("Integers to negative integer powers are not
 *    allowed."): nd_op_power_<int> returns 0 for it and the LOOP must
 *    report it (nd_op_power_bad_<sfx>(b) tells whether b is such an
 *    exponent);
 *  - integer reciprocal is 1/x truncated: 1 -> 1, -1 -> -1, anything else
 *    (including 0) -> 0 (NumPy gives INT_MIN for 0 with a warning; we
 *    define it as 0 like every other integer division by zero);
 *  - sigmoid(x) = 1/(1+exp(-x)) evaluated without overflow; relu(x) =
 *    max(x, 0) with NaN propagated (relu(-0.0) = +0.0);
 *  - sign(NaN) = NaN, sign(+-0) = 0; rint rounds half to even.
 */
#ifndef ND_OPS_MATH_H
#define ND_OPS_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#include "shared/half.h"
#include "shared/hostdev.h"

#define ND_PI 3.141592653589793238462643383279502884
#define ND_LOGE2 0.693147180559945309417232121458176568
#define ND_LOG2E 1.442695040888963407359924681001892137
#define ND_LDEXP_CLAMP 100000

/* ------------------------------------------------------------------ */
/* Classification helpers (portable: no reliance on math.h macros)     */
/* ------------------------------------------------------------------ */
ND_HOSTDEV static inline bool nd_isnan_f32(float x) { return x != x; }
ND_HOSTDEV static inline bool nd_isnan_f64(double x) { return x != x; }
ND_HOSTDEV static inline bool nd_isinf_f32(float x) { return x == (float)INFINITY || x == -(float)INFINITY; }
ND_HOSTDEV static inline bool nd_isinf_f64(double x) { return x == (double)INFINITY || x == -(double)INFINITY; }
ND_HOSTDEV static inline bool nd_signbit_bits_f32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (u >> 31) != 0;
}
ND_HOSTDEV static inline bool nd_signbit_bits_f64(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u >> 63) != 0;
}

/* ------------------------------------------------------------------ */
/* Floats: one block instantiated for float (F = f) and double (F = )  */
/* ------------------------------------------------------------------ */
#define ND_OPS_FLOAT(sfx, T, F)                                                                           \
    /* NumPy's npy_divmod: Python-style floor division and modulus */                                    \
    ND_HOSTDEV static inline T nd_divmod_##sfx(T a, T b, T *modulus)                                     \
    {                                                                                                    \
        T mod = fmod##F(a, b);                                                                           \
        if (b == 0) {                                                                                    \
            *modulus = mod;                                                                              \
            return a / b;                                                                                \
        }                                                                                                \
        T div = (a - mod) / b;                                                                           \
        if (mod != 0) {                                                                                  \
            if ((b < 0) != (mod < 0)) {                                                                  \
                mod += b;                                                                                \
                div -= (T)1;                                                                             \
            }                                                                                            \
        } else {                                                                                         \
            mod = copysign##F((T)0, b);                                                                  \
        }                                                                                                \
        T floordiv;                                                                                      \
        if (div != 0) {                                                                                  \
            floordiv = floor##F(div);                                                                    \
            if (div - floordiv > (T)0.5) floordiv += (T)1;                                               \
        } else {                                                                                         \
            floordiv = copysign##F((T)0, a / b);                                                         \
        }                                                                                                \
        *modulus = mod;                                                                                  \
        return floordiv;                                                                                 \
    }                                                                                                    \
    /* unary */                                                                                          \
    ND_HOSTDEV static inline T nd_op_negative_##sfx(T x) { return -x; }                                  \
    ND_HOSTDEV static inline T nd_op_positive_##sfx(T x) { return x; }                                  \
    ND_HOSTDEV static inline T nd_op_abs_##sfx(T x) { return fabs##F(x); }                               \
    ND_HOSTDEV static inline T nd_op_sign_##sfx(T x)                                                     \
    {                                                                                                    \
        return x > 0 ? (T)1 : (x < 0 ? (T)-1 : (x == 0 ? (T)0 : x));                                    \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_sqrt_##sfx(T x) { return sqrt##F(x); }                              \
    ND_HOSTDEV static inline T nd_op_cbrt_##sfx(T x) { return cbrt##F(x); }                              \
    ND_HOSTDEV static inline T nd_op_square_##sfx(T x) { return x * x; }                                 \
    ND_HOSTDEV static inline T nd_op_reciprocal_##sfx(T x) { return (T)1 / x; }                          \
    ND_HOSTDEV static inline T nd_op_exp_##sfx(T x) { return exp##F(x); }                                \
    ND_HOSTDEV static inline T nd_op_exp2_##sfx(T x) { return exp2##F(x); }                              \
    ND_HOSTDEV static inline T nd_op_expm1_##sfx(T x) { return expm1##F(x); }                            \
    ND_HOSTDEV static inline T nd_op_log_##sfx(T x) { return log##F(x); }                                \
    ND_HOSTDEV static inline T nd_op_log2_##sfx(T x) { return log2##F(x); }                              \
    ND_HOSTDEV static inline T nd_op_log10_##sfx(T x) { return log10##F(x); }                            \
    ND_HOSTDEV static inline T nd_op_log1p_##sfx(T x) { return log1p##F(x); }                            \
    ND_HOSTDEV static inline T nd_op_sin_##sfx(T x) { return sin##F(x); }                                \
    ND_HOSTDEV static inline T nd_op_cos_##sfx(T x) { return cos##F(x); }                                \
    ND_HOSTDEV static inline T nd_op_tan_##sfx(T x) { return tan##F(x); }                                \
    ND_HOSTDEV static inline T nd_op_arcsin_##sfx(T x) { return asin##F(x); }                            \
    ND_HOSTDEV static inline T nd_op_arccos_##sfx(T x) { return acos##F(x); }                            \
    ND_HOSTDEV static inline T nd_op_arctan_##sfx(T x) { return atan##F(x); }                            \
    ND_HOSTDEV static inline T nd_op_sinh_##sfx(T x) { return sinh##F(x); }                              \
    ND_HOSTDEV static inline T nd_op_cosh_##sfx(T x) { return cosh##F(x); }                              \
    ND_HOSTDEV static inline T nd_op_tanh_##sfx(T x) { return tanh##F(x); }                              \
    ND_HOSTDEV static inline T nd_op_arcsinh_##sfx(T x) { return asinh##F(x); }                         \
    ND_HOSTDEV static inline T nd_op_arccosh_##sfx(T x) { return acosh##F(x); }                          \
    ND_HOSTDEV static inline T nd_op_arctanh_##sfx(T x) { return atanh##F(x); }                          \
    ND_HOSTDEV static inline T nd_op_sigmoid_##sfx(T x)                                                  \
    {                                                                                                    \
        if (x >= 0) return (T)1 / ((T)1 + exp##F(-x));                                                   \
        T e = exp##F(x); /* x < 0 or NaN: never overflows */                                             \
        return e / ((T)1 + e);                                                                           \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_relu_##sfx(T x) { return x > 0 ? x : (nd_isnan_##sfx(x) ? x : (T)0); } \
    ND_HOSTDEV static inline T nd_op_floor_##sfx(T x) { return floor##F(x); }                            \
    ND_HOSTDEV static inline T nd_op_ceil_##sfx(T x) { return ceil##F(x); }                              \
    ND_HOSTDEV static inline T nd_op_trunc_##sfx(T x) { return trunc##F(x); }                            \
    ND_HOSTDEV static inline T nd_op_rint_##sfx(T x) { return rint##F(x); }                              \
    ND_HOSTDEV static inline bool nd_op_logical_not_##sfx(T x) { return x == 0; }                        \
    ND_HOSTDEV static inline bool nd_op_isnan_##sfx(T x) { return nd_isnan_##sfx(x); }                   \
    ND_HOSTDEV static inline bool nd_op_isinf_##sfx(T x) { return nd_isinf_##sfx(x); }                   \
    ND_HOSTDEV static inline bool nd_op_isfinite_##sfx(T x) { return !nd_isnan_##sfx(x) && !nd_isinf_##sfx(x); } \
    ND_HOSTDEV static inline bool nd_op_signbit_##sfx(T x) { return nd_signbit_bits_##sfx(x); }          \
    /* binary */                                                                                         \
    ND_HOSTDEV static inline T nd_op_add_##sfx(T a, T b) { return a + b; }                               \
    ND_HOSTDEV static inline T nd_op_subtract_##sfx(T a, T b) { return a - b; }                          \
    ND_HOSTDEV static inline T nd_op_multiply_##sfx(T a, T b) { return a * b; }                          \
    ND_HOSTDEV static inline T nd_op_divide_##sfx(T a, T b) { return a / b; }                            \
    ND_HOSTDEV static inline T nd_op_floor_divide_##sfx(T a, T b)                                        \
    {                                                                                                    \
        T mod;                                                                                           \
        if (b == 0) return a / b;                                                                        \
        return nd_divmod_##sfx(a, b, &mod);                                                              \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_remainder_##sfx(T a, T b)                                           \
    {                                                                                                    \
        T mod;                                                                                           \
        if (b == 0) return fmod##F(a, b);                                                                \
        (void)nd_divmod_##sfx(a, b, &mod);                                                               \
        return mod;                                                                                      \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_power_##sfx(T a, T b) { return pow##F(a, b); }                      \
    ND_HOSTDEV static inline T nd_op_maximum_##sfx(T a, T b) { return (a >= b || nd_isnan_##sfx(a)) ? a : b; } \
    ND_HOSTDEV static inline T nd_op_minimum_##sfx(T a, T b) { return (a <= b || nd_isnan_##sfx(a)) ? a : b; } \
    ND_HOSTDEV static inline T nd_op_fmax_##sfx(T a, T b) { return (a >= b || nd_isnan_##sfx(b)) ? a : b; } \
    ND_HOSTDEV static inline T nd_op_fmin_##sfx(T a, T b) { return (a <= b || nd_isnan_##sfx(b)) ? a : b; } \
    ND_HOSTDEV static inline T nd_op_arctan2_##sfx(T a, T b) { return atan2##F(a, b); }                  \
    ND_HOSTDEV static inline T nd_op_hypot_##sfx(T a, T b) { return hypot##F(a, b); }                    \
    ND_HOSTDEV static inline T nd_op_copysign_##sfx(T a, T b) { return copysign##F(a, b); }              \
    ND_HOSTDEV static inline bool nd_op_equal_##sfx(T a, T b) { return a == b; }                         \
    ND_HOSTDEV static inline bool nd_op_not_equal_##sfx(T a, T b) { return a != b; }                     \
    ND_HOSTDEV static inline bool nd_op_less_##sfx(T a, T b) { return a < b; }                           \
    ND_HOSTDEV static inline bool nd_op_less_equal_##sfx(T a, T b) { return a <= b; }                    \
    ND_HOSTDEV static inline bool nd_op_greater_##sfx(T a, T b) { return a > b; }                        \
    ND_HOSTDEV static inline bool nd_op_greater_equal_##sfx(T a, T b) { return a >= b; }                 \
    ND_HOSTDEV static inline bool nd_op_logical_and_##sfx(T a, T b) { return (a != 0) && (b != 0); }     \
    ND_HOSTDEV static inline bool nd_op_logical_or_##sfx(T a, T b) { return (a != 0) || (b != 0); }      \
    ND_HOSTDEV static inline bool nd_op_logical_xor_##sfx(T a, T b) { return (a != 0) != (b != 0); }     \
    /* fmod ... ldexp */                                                                                \
    ND_HOSTDEV static inline T nd_op_fmod_##sfx(T a, T b) { return fmod##F(a, b); }                      \
    /* NumPy's npy_logaddexp / npy_logaddexp2 */                                                         \
    ND_HOSTDEV static inline T nd_op_logaddexp_##sfx(T a, T b)                                           \
    {                                                                                                    \
        if (a == b) return a + (T)ND_LOGE2; /* equal infinities too */                                   \
        T d = a - b;                                                                                     \
        if (d > 0) return a + log1p##F(exp##F(-d));                                                      \
        if (d <= 0) return b + log1p##F(exp##F(d));                                                      \
        return d; /* NaN */                                                                              \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_logaddexp2_##sfx(T a, T b)                                          \
    {                                                                                                    \
        if (a == b) return a + (T)1;                                                                     \
        T d = a - b;                                                                                     \
        if (d > 0) return a + (T)ND_LOG2E * log1p##F(exp2##F(-d));                                       \
        if (d <= 0) return b + (T)ND_LOG2E * log1p##F(exp2##F(d));                                       \
        return d;                                                                                        \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_heaviside_##sfx(T x, T h0)                                          \
    {                                                                                                    \
        if (nd_isnan_##sfx(x)) return (T)NAN;                                                            \
        if (x == 0) return h0;                                                                           \
        return x < 0 ? (T)0 : (T)1;                                                                      \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_nextafter_##sfx(T a, T b) { return nextafter##F(a, b); }            \
    ND_HOSTDEV static inline T nd_op_float_power_##sfx(T a, T b) { return pow##F(a, b); }                \
    /* b holds an integer exponent (the core casts it to the loop dtype);    \
     * beyond +-ND_LDEXP_CLAMP every finite result is 0 or inf anyway */                                 \
    ND_HOSTDEV static inline T nd_op_ldexp_##sfx(T a, T b)                                               \
    {                                                                                                    \
        int e = b > (T)ND_LDEXP_CLAMP ? ND_LDEXP_CLAMP : (b < -(T)ND_LDEXP_CLAMP ? -ND_LDEXP_CLAMP : (int)b); \
        return ldexp##F(a, e);                                                                           \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_deg2rad_##sfx(T x) { return x * (T)(ND_PI / 180.0); }               \
    ND_HOSTDEV static inline T nd_op_rad2deg_##sfx(T x) { return x * (T)(180.0 / ND_PI); }               \
    ND_HOSTDEV static inline T nd_op_conjugate_##sfx(T x) { return x; }

ND_OPS_FLOAT(f32, float, f)
ND_OPS_FLOAT(f64, double, )

/* spacing(x) as NumPy's npy_spacing: the step to the next value of larger
 * magnitude, signed like x (spacing(-1) < 0); +-0 give the smallest
 * positive subnormal, +-inf NaN, the largest finite value +-inf. */
#define ND_OPS_SPACING(sfx, T, U)                                                     \
    ND_HOSTDEV static inline T nd_op_spacing_##sfx(T x)                               \
    {                                                                                 \
        if (nd_isnan_##sfx(x)) return x;                                              \
        if (nd_isinf_##sfx(x)) return (T)NAN;                                         \
        U u;                                                                          \
        memcpy(&u, &x, sizeof u);                                                     \
        if (x == 0) u = 0;                                                            \
        u += 1u;                                                                      \
        T n;                                                                          \
        memcpy(&n, &u, sizeof n);                                                     \
        return x == 0 ? n : n - x;                                                    \
    }
ND_OPS_SPACING(f32, float, uint32_t)
ND_OPS_SPACING(f64, double, uint64_t)

/* float16 and bfloat16 bodies on the raw bits (h16, b16) for the ops whose
 * result depends on the 16-bit format itself (kinds token BIUFh). float16
 * is NumPy's npy_half_nextafter / npy_half_spacing exactly (its spacing is
 * always positive: the step towards +inf); bfloat16 (ml_dtypes) steps as
 * float32 does: nextafter as C's, spacing signed like x. */
ND_HOSTDEV static inline uint16_t nd_op_nextafter_h16(uint16_t x, uint16_t y)
{
    bool xn = (x & 0x7c00u) == 0x7c00u && (x & 0x03ffu) != 0, yn = (y & 0x7c00u) == 0x7c00u && (y & 0x03ffu) != 0;
    if (xn || yn) return 0x7e00u;
    if (x == y || ((x | y) & 0x7fffu) == 0) return x;
    if ((x & 0x7fffu) == 0) return (uint16_t)((y & 0x8000u) + 1u);
    if (!(x & 0x8000u)) return (int16_t)x > (int16_t)y ? (uint16_t)(x - 1u) : (uint16_t)(x + 1u);
    if (!(y & 0x8000u) || (x & 0x7fffu) > (y & 0x7fffu)) return (uint16_t)(x - 1u);
    return (uint16_t)(x + 1u);
}
ND_HOSTDEV static inline uint16_t nd_op_spacing_h16(uint16_t h)
{
    uint16_t e = h & 0x7c00u, sig = h & 0x03ffu;
    if (e == 0x7c00u) return 0x7e00u;
    if (h == 0x7bffu) return 0x7c00u;
    if ((h & 0x8000u) && sig == 0) {
        if (e > 0x2c00u) return (uint16_t)(e - 0x2c00u);
        if (e > 0x0400u) return (uint16_t)(1u << ((e >> 10) - 2));
        return 1u;
    }
    if (e > 0x2800u) return (uint16_t)(e - 0x2800u);
    if (e > 0x0400u) return (uint16_t)(1u << ((e >> 10) - 1));
    return 1u;
}
ND_HOSTDEV static inline uint16_t nd_op_nextafter_b16(uint16_t x, uint16_t y)
{
    float fx = nd_bf16_to_float(x), fy = nd_bf16_to_float(y);
    if (fx != fx || fy != fy) return 0x7fc0u;
    if (fx == fy) return y; /* C: y (nextafter(-0, +0) = +0) */
    if ((x & 0x7fffu) == 0) return (uint16_t)((y & 0x8000u) | 1u);
    return (fx < fy) == !(x & 0x8000u) ? (uint16_t)(x + 1u) : (uint16_t)(x - 1u);
}
ND_HOSTDEV static inline uint16_t nd_op_spacing_b16(uint16_t h)
{
    if ((h & 0x7f80u) == 0x7f80u) return (h & 0x7fu) ? h : 0x7fc0u;
    if ((h & 0x7fffu) == 0) return 1u;
    return nd_float_to_bf16(nd_bf16_to_float((uint16_t)(h + 1u)) - nd_bf16_to_float(h));
}

/* ------------------------------------------------------------------ */
/* Integers. T the type, UT the unsigned type arithmetic wraps in      */
/* (at least unsigned int, so nothing promotes to a signed int), BITS   */
/* the width. The common block, then signed-only and unsigned-only.    */
/* ------------------------------------------------------------------ */
#define ND_OPS_INT(sfx, T, UT, BITS)                                                                      \
    ND_HOSTDEV static inline T nd_op_negative_##sfx(T x) { return (T)(0u - (UT)x); }                     \
    ND_HOSTDEV static inline T nd_op_positive_##sfx(T x) { return x; }                                   \
    ND_HOSTDEV static inline T nd_op_abs_##sfx(T x) { return nd_isneg_##sfx(x) ? (T)(0u - (UT)x) : x; } \
    ND_HOSTDEV static inline T nd_op_sign_##sfx(T x) { return (T)(x > 0 ? 1 : (nd_isneg_##sfx(x) ? -1 : 0)); } \
    ND_HOSTDEV static inline T nd_op_square_##sfx(T x) { return (T)((UT)x * (UT)x); }                    \
    ND_HOSTDEV static inline T nd_op_relu_##sfx(T x) { return nd_isneg_##sfx(x) ? (T)0 : x; }            \
    ND_HOSTDEV static inline T nd_op_floor_##sfx(T x) { return x; }                                      \
    ND_HOSTDEV static inline T nd_op_ceil_##sfx(T x) { return x; }                                       \
    ND_HOSTDEV static inline T nd_op_trunc_##sfx(T x) { return x; }                                      \
    ND_HOSTDEV static inline bool nd_op_logical_not_##sfx(T x) { return x == 0; }                        \
    ND_HOSTDEV static inline T nd_op_bitwise_not_##sfx(T x) { return (T)(~(UT)x); }                      \
    ND_HOSTDEV static inline bool nd_op_isnan_##sfx(T x) { (void)x; return false; }                      \
    ND_HOSTDEV static inline bool nd_op_isinf_##sfx(T x) { (void)x; return false; }                      \
    ND_HOSTDEV static inline bool nd_op_isfinite_##sfx(T x) { (void)x; return true; }                    \
    ND_HOSTDEV static inline bool nd_op_signbit_##sfx(T x) { return nd_isneg_##sfx(x); }                 \
    ND_HOSTDEV static inline T nd_op_add_##sfx(T a, T b) { return (T)((UT)a + (UT)b); }                  \
    ND_HOSTDEV static inline T nd_op_subtract_##sfx(T a, T b) { return (T)((UT)a - (UT)b); }             \
    ND_HOSTDEV static inline T nd_op_multiply_##sfx(T a, T b) { return (T)((UT)a * (UT)b); }             \
    ND_HOSTDEV static inline T nd_op_power_##sfx(T a, T b)                                               \
    {                                                                                                    \
        if (nd_isneg_##sfx(b)) return 0; /* an error: the loop reports it */                             \
        UT r = 1u, base = (UT)a;                                                                         \
        UT e = (UT)b;                                                                                    \
        while (e != 0u) {                                                                                \
            if (e & 1u) r *= base;                                                                       \
            base *= base;                                                                                \
            e >>= 1;                                                                                     \
        }                                                                                                \
        return (T)r;                                                                                     \
    }                                                                                                    \
    ND_HOSTDEV static inline bool nd_op_power_bad_##sfx(T b) { return nd_isneg_##sfx(b); }               \
    ND_HOSTDEV static inline T nd_op_maximum_##sfx(T a, T b) { return a >= b ? a : b; }                  \
    ND_HOSTDEV static inline T nd_op_minimum_##sfx(T a, T b) { return a <= b ? a : b; }                  \
    ND_HOSTDEV static inline T nd_op_fmax_##sfx(T a, T b) { return a >= b ? a : b; }                     \
    ND_HOSTDEV static inline T nd_op_fmin_##sfx(T a, T b) { return a <= b ? a : b; }                     \
    ND_HOSTDEV static inline bool nd_op_equal_##sfx(T a, T b) { return a == b; }                         \
    ND_HOSTDEV static inline bool nd_op_not_equal_##sfx(T a, T b) { return a != b; }                     \
    ND_HOSTDEV static inline bool nd_op_less_##sfx(T a, T b) { return a < b; }                           \
    ND_HOSTDEV static inline bool nd_op_less_equal_##sfx(T a, T b) { return a <= b; }                    \
    ND_HOSTDEV static inline bool nd_op_greater_##sfx(T a, T b) { return a > b; }                        \
    ND_HOSTDEV static inline bool nd_op_greater_equal_##sfx(T a, T b) { return a >= b; }                 \
    ND_HOSTDEV static inline bool nd_op_logical_and_##sfx(T a, T b) { return (a != 0) && (b != 0); }     \
    ND_HOSTDEV static inline bool nd_op_logical_or_##sfx(T a, T b) { return (a != 0) || (b != 0); }      \
    ND_HOSTDEV static inline bool nd_op_logical_xor_##sfx(T a, T b) { return (a != 0) != (b != 0); }     \
    ND_HOSTDEV static inline T nd_op_conjugate_##sfx(T x) { return x; }                                  \
    /* gcd/lcm as NumPy: Euclid on the magnitudes (|INT_MIN| wraps to     \
     * INT_MIN); int8/int16 lcm is the exact product truncated (NumPy      \
     * computes it in C int), wider ones wrap and then take abs */                                       \
    ND_HOSTDEV static inline UT nd_gcd_u_##sfx(T a, T b)                                                 \
    {                                                                                                    \
        UT x = nd_isneg_##sfx(a) ? (UT)(0u - (UT)a) : (UT)a, y = nd_isneg_##sfx(b) ? (UT)(0u - (UT)b) : (UT)b; \
        while (y != 0u) {                                                                                \
            UT t = x % y;                                                                                \
            x = y;                                                                                       \
            y = t;                                                                                       \
        }                                                                                                \
        return x;                                                                                        \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_gcd_##sfx(T a, T b) { return (T)nd_gcd_u_##sfx(a, b); }             \
    ND_HOSTDEV static inline T nd_op_lcm_##sfx(T a, T b)                                                 \
    {                                                                                                    \
        UT g = nd_gcd_u_##sfx(a, b);                                                                     \
        if (g == 0u) return 0;                                                                           \
        UT x = nd_isneg_##sfx(a) ? (UT)(0u - (UT)a) : (UT)a, y = nd_isneg_##sfx(b) ? (UT)(0u - (UT)b) : (UT)b; \
        UT v = (UT)((x / g) * y);                                                                        \
        if (BITS < 32 || !nd_isneg_##sfx((T)v)) return (T)v;                                             \
        return (T)(0u - v);                                                                              \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_bitwise_and_##sfx(T a, T b) { return (T)((UT)a & (UT)b); }          \
    ND_HOSTDEV static inline T nd_op_bitwise_or_##sfx(T a, T b) { return (T)((UT)a | (UT)b); }           \
    ND_HOSTDEV static inline T nd_op_bitwise_xor_##sfx(T a, T b) { return (T)((UT)a ^ (UT)b); }          \
    /* a negative count converts to a huge unsigned one, as in NumPy */                                  \
    ND_HOSTDEV static inline T nd_op_left_shift_##sfx(T a, T b)                                          \
    {                                                                                                    \
        return (UT)b < (UT)(BITS) ? (T)((UT)a << (UT)b) : (T)0;                                          \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_right_shift_##sfx(T a, T b)                                         \
    {                                                                                                    \
        /* (~a >> b) on the non-negative ~a keeps the shift well defined */                              \
        if (nd_isneg_##sfx(a))                                                                           \
            return (UT)b < (UT)(BITS) ? (T)(~((UT)~a >> (UT)b)) : (T)~(UT)0;                             \
        return (UT)b < (UT)(BITS) ? (T)((UT)a >> (UT)b) : (T)0;                                          \
    }

#define ND_OPS_SINT(sfx, T, UT, BITS)                                                                     \
    ND_HOSTDEV static inline bool nd_isneg_##sfx(T x) { return x < 0; }                                  \
    ND_HOSTDEV static inline T nd_op_reciprocal_##sfx(T x) { return (x == 1 || x == -1) ? x : (T)0; }    \
    ND_HOSTDEV static inline T nd_op_floor_divide_##sfx(T a, T b)                                        \
    {                                                                                                    \
        if (b == 0) return 0;                                                                            \
        if (b == -1) return (T)(0u - (UT)a); /* INT_MIN // -1 wraps */                                   \
        T q = (T)(a / b);                                                                                \
        if ((T)(a % b) != 0 && ((a < 0) != (b < 0))) q = (T)(q - 1);                                     \
        return q;                                                                                        \
    }                                                                                                    \
    ND_HOSTDEV static inline T nd_op_fmod_##sfx(T a, T b) { return (b == 0 || b == -1) ? (T)0 : (T)(a % b); } \
    ND_HOSTDEV static inline T nd_op_remainder_##sfx(T a, T b)                                           \
    {                                                                                                    \
        if (b == 0 || b == -1) return 0;                                                                 \
        T r = (T)(a % b);                                                                                \
        if (r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b);                                              \
        return r;                                                                                        \
    }                                                                                                    \
    ND_OPS_INT(sfx, T, UT, BITS)

#define ND_OPS_UINT(sfx, T, UT, BITS)                                                                     \
    ND_HOSTDEV static inline bool nd_isneg_##sfx(T x) { (void)x; return false; }                         \
    ND_HOSTDEV static inline T nd_op_reciprocal_##sfx(T x) { return x <= 1u ? x : (T)0; }                \
    ND_HOSTDEV static inline T nd_op_floor_divide_##sfx(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); } \
    ND_HOSTDEV static inline T nd_op_remainder_##sfx(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }    \
    ND_HOSTDEV static inline T nd_op_fmod_##sfx(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }         \
    ND_OPS_INT(sfx, T, UT, BITS)

ND_OPS_SINT(i8, int8_t, uint32_t, 8)
ND_OPS_SINT(i16, int16_t, uint32_t, 16)
ND_OPS_SINT(i32, int32_t, uint32_t, 32)
ND_OPS_SINT(i64, int64_t, uint64_t, 64)
ND_OPS_UINT(u8, uint8_t, uint32_t, 8)
ND_OPS_UINT(u16, uint16_t, uint32_t, 16)
ND_OPS_UINT(u32, uint32_t, uint32_t, 32)
ND_OPS_UINT(u64, uint64_t, uint64_t, 64)

/* ------------------------------------------------------------------ */
/* bool                                                                */
/* ------------------------------------------------------------------ */
/* unary */
ND_HOSTDEV static inline bool nd_op_abs_b(bool x) { return x; }
ND_HOSTDEV static inline bool nd_op_floor_b(bool x) { return x; }
ND_HOSTDEV static inline bool nd_op_ceil_b(bool x) { return x; }
ND_HOSTDEV static inline bool nd_op_trunc_b(bool x) { return x; }
ND_HOSTDEV static inline bool nd_op_logical_not_b(bool x) { return !x; }
ND_HOSTDEV static inline bool nd_op_bitwise_not_b(bool x) { return !x; }
ND_HOSTDEV static inline bool nd_op_isnan_b(bool x) { (void)x; return false; }
ND_HOSTDEV static inline bool nd_op_isinf_b(bool x) { (void)x; return false; }
ND_HOSTDEV static inline bool nd_op_isfinite_b(bool x) { (void)x; return true; }
ND_HOSTDEV static inline bool nd_op_signbit_b(bool x) { (void)x; return false; }
/* binary */
ND_HOSTDEV static inline bool nd_op_add_b(bool a, bool b) { return a || b; }
ND_HOSTDEV static inline bool nd_op_multiply_b(bool a, bool b) { return a && b; }
ND_HOSTDEV static inline bool nd_op_maximum_b(bool a, bool b) { return a || b; }
ND_HOSTDEV static inline bool nd_op_minimum_b(bool a, bool b) { return a && b; }
ND_HOSTDEV static inline bool nd_op_fmax_b(bool a, bool b) { return a || b; }
ND_HOSTDEV static inline bool nd_op_fmin_b(bool a, bool b) { return a && b; }
ND_HOSTDEV static inline bool nd_op_equal_b(bool a, bool b) { return a == b; }
ND_HOSTDEV static inline bool nd_op_not_equal_b(bool a, bool b) { return a != b; }
ND_HOSTDEV static inline bool nd_op_less_b(bool a, bool b) { return !a && b; }
ND_HOSTDEV static inline bool nd_op_less_equal_b(bool a, bool b) { return !a || b; }
ND_HOSTDEV static inline bool nd_op_greater_b(bool a, bool b) { return a && !b; }
ND_HOSTDEV static inline bool nd_op_greater_equal_b(bool a, bool b) { return a || !b; }
ND_HOSTDEV static inline bool nd_op_logical_and_b(bool a, bool b) { return a && b; }
ND_HOSTDEV static inline bool nd_op_logical_or_b(bool a, bool b) { return a || b; }
ND_HOSTDEV static inline bool nd_op_logical_xor_b(bool a, bool b) { return a != b; }
ND_HOSTDEV static inline bool nd_op_bitwise_and_b(bool a, bool b) { return a && b; }
ND_HOSTDEV static inline bool nd_op_bitwise_or_b(bool a, bool b) { return a || b; }
ND_HOSTDEV static inline bool nd_op_bitwise_xor_b(bool a, bool b) { return a != b; }

/* ------------------------------------------------------------------ */
/* Loop dtypes per op, for generating loops from the X-macro:          */
/*   ND_OP_LOOPS(kinds, rule, X, args...) calls                         */
/*   X(DTYPE, lsfx, bsfx, storage type, compute type, load, store, args...) */
/*   for each loop (input) dtype of an op with those kinds and rule     */
/*   columns. lsfx names the loop (f16 and bf16 are distinct), bsfx the */
/*   body to call.                                                      */
/* ------------------------------------------------------------------ */
#define ND_LD_ID(x) (x)
#define ND_ST_ID(x) (x)
#define ND_LD_BOOL(x) ((x) != 0)
#define ND_ST_BOOL(x) ((uint8_t)((x) ? 1 : 0))
#define ND_LD_F16(x) nd_half_to_float(x)
#define ND_ST_F16(x) nd_float_to_half(x)
#define ND_LD_BF16(x) nd_bf16_to_float(x)
#define ND_ST_BF16(x) nd_float_to_bf16(x)

#define ND_OP_TYPES_FLOAT(X, ...)                                                       \
    X(ND_FLOAT16, f16, f32, uint16_t, float, ND_LD_F16, ND_ST_F16, __VA_ARGS__)         \
    X(ND_BFLOAT16, bf16, f32, uint16_t, float, ND_LD_BF16, ND_ST_BF16, __VA_ARGS__)     \
    X(ND_FLOAT32, f32, f32, float, float, ND_LD_ID, ND_ST_ID, __VA_ARGS__)              \
    X(ND_FLOAT64, f64, f64, double, double, ND_LD_ID, ND_ST_ID, __VA_ARGS__)
/* float16/bfloat16 on their raw bits with their own bodies (h16, b16) */
#define ND_OP_TYPES_FLOAT_OWN16(X, ...)                                                 \
    X(ND_FLOAT16, f16, h16, uint16_t, uint16_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)        \
    X(ND_BFLOAT16, bf16, b16, uint16_t, uint16_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)      \
    X(ND_FLOAT32, f32, f32, float, float, ND_LD_ID, ND_ST_ID, __VA_ARGS__)              \
    X(ND_FLOAT64, f64, f64, double, double, ND_LD_ID, ND_ST_ID, __VA_ARGS__)
#define ND_OP_TYPES_F64(X, ...) X(ND_FLOAT64, f64, f64, double, double, ND_LD_ID, ND_ST_ID, __VA_ARGS__)
#define ND_OP_TYPES_BOOL(X, ...) X(ND_BOOL, b, b, uint8_t, bool, ND_LD_BOOL, ND_ST_BOOL, __VA_ARGS__)
/* the signed and unsigned integers */
#define ND_OP_TYPES_IU(X, ...)                                                          \
    X(ND_INT8, i8, i8, int8_t, int8_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)                 \
    X(ND_INT16, i16, i16, int16_t, int16_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)            \
    X(ND_INT32, i32, i32, int32_t, int32_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)            \
    X(ND_INT64, i64, i64, int64_t, int64_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)            \
    X(ND_UINT8, u8, u8, uint8_t, uint8_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)              \
    X(ND_UINT16, u16, u16, uint16_t, uint16_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)         \
    X(ND_UINT32, u32, u32, uint32_t, uint32_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)         \
    X(ND_UINT64, u64, u64, uint64_t, uint64_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)
#define ND_OP_TYPES_INT(X, ...) ND_OP_TYPES_BOOL(X, __VA_ARGS__) ND_OP_TYPES_IU(X, __VA_ARGS__)

/* The loop dtypes are exactly those the core's resolution
 * (src/elementwise/elementwise.c, resolve()) can pick, so that no loop is generated
 * that is never dispatched (tests/test_coverage.c checks both ways):
 *   SAME, BOOL   the input dtypes of the kinds column (B, I, U, F; a
 *                lower-case b computes bool as int8: no bool loop)
 *   FLOAT, DIV   the floats (integer and bool inputs are cast to one)
 *   C            complex64 and complex128 (FLOAT keeps a complex input;
 *                F64 computes complex in complex128)
 * in three parts, bool/integers, floats and complex (ND_OP_LOOPS_INT/_FLT/
 * _CPX), so that the CUDA backend can compile them in separate files. A kinds value
 * without its two ND_OP_KINDS_ lines below fails to compile. */
#define ND_OP_KINDS_INT_BIUF(X, ...) ND_OP_TYPES_INT(X, __VA_ARGS__)
#define ND_OP_KINDS_FLT_BIUF(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_OP_KINDS_INT_bIUF(X, ...) ND_OP_TYPES_IU(X, __VA_ARGS__)
#define ND_OP_KINDS_FLT_bIUF(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_OP_KINDS_INT_IUF(X, ...) ND_OP_TYPES_IU(X, __VA_ARGS__)
#define ND_OP_KINDS_FLT_IUF(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_OP_KINDS_INT_BIU(X, ...) ND_OP_TYPES_INT(X, __VA_ARGS__)
#define ND_OP_KINDS_FLT_BIU(X, ...)
#define ND_OP_KINDS_INT_bIU(X, ...) ND_OP_TYPES_IU(X, __VA_ARGS__)
#define ND_OP_KINDS_FLT_bIU(X, ...)
#define ND_OP_KINDS_INT_IU(X, ...) ND_OP_TYPES_IU(X, __VA_ARGS__)
#define ND_OP_KINDS_FLT_IU(X, ...)
#define ND_OP_KINDS_INT_BIUFh(X, ...) ND_OP_TYPES_INT(X, __VA_ARGS__)
#define ND_OP_KINDS_FLT_BIUFh(X, ...) ND_OP_TYPES_FLOAT_OWN16(X, __VA_ARGS__)
/* ... C: also complex64/complex128 */
#define ND_OP_KINDS_INT_BIUFC(X, ...) ND_OP_TYPES_INT(X, __VA_ARGS__)
#define ND_OP_KINDS_FLT_BIUFC(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_OP_KINDS_INT_bIUFC(X, ...) ND_OP_TYPES_IU(X, __VA_ARGS__)
#define ND_OP_KINDS_FLT_bIUFC(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_OP_KINDS_INT_IUFC(X, ...) ND_OP_TYPES_IU(X, __VA_ARGS__)
#define ND_OP_KINDS_FLT_IUFC(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
/* ... a: complex too, with a real result (abs; SAME rule, storage types
 * whose ND_OP_OUT_SAME is the real part's type) */
#define ND_OP_KINDS_INT_BIUFa(X, ...) ND_OP_TYPES_INT(X, __VA_ARGS__)
#define ND_OP_KINDS_FLT_BIUFa(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_OP_KINDS_CPX_BIUFa(X, ...)                                                   \
    X(ND_COMPLEX64, c64, c64, nd_c64abs_t, nd_c64_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)    \
    X(ND_COMPLEX128, c128, c128, nd_c128abs_t, nd_c128_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)
/* the complex part: the two complex dtypes where kinds has a C */
#define ND_OP_TYPES_CPX(X, ...)                                                         \
    X(ND_COMPLEX64, c64, c64, nd_c64_t, nd_c64_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)       \
    X(ND_COMPLEX128, c128, c128, nd_c128_t, nd_c128_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)
#define ND_OP_KINDS_CPX_BIUF(X, ...)
#define ND_OP_KINDS_CPX_bIUF(X, ...)
#define ND_OP_KINDS_CPX_IUF(X, ...)
#define ND_OP_KINDS_CPX_BIU(X, ...)
#define ND_OP_KINDS_CPX_bIU(X, ...)
#define ND_OP_KINDS_CPX_IU(X, ...)
#define ND_OP_KINDS_CPX_BIUFh(X, ...)
#define ND_OP_KINDS_CPX_BIUFw(X, ...)
#define ND_OP_KINDS_CPX_BIUFC(X, ...) ND_OP_TYPES_CPX(X, __VA_ARGS__)
#define ND_OP_KINDS_CPX_bIUFC(X, ...) ND_OP_TYPES_CPX(X, __VA_ARGS__)
#define ND_OP_KINDS_CPX_IUFC(X, ...) ND_OP_TYPES_CPX(X, __VA_ARGS__)
/* F64 (float_power): complex computes in complex128 only */
#define ND_OP_KINDS_CPX64_BIUF(X, ...)
#define ND_OP_KINDS_CPX64_BIUFC(X, ...)                                                 \
    X(ND_COMPLEX128, c128, c128, nd_c128_t, nd_c128_t, ND_LD_ID, ND_ST_ID, __VA_ARGS__)
#define ND_OP_CPX_SAME(K, X, ...) ND_OP_KINDS_CPX_##K(X, __VA_ARGS__)
#define ND_OP_CPX_BOOL(K, X, ...) ND_OP_KINDS_CPX_##K(X, __VA_ARGS__)
#define ND_OP_CPX_FLOAT(K, X, ...) ND_OP_KINDS_CPX_##K(X, __VA_ARGS__)
#define ND_OP_CPX_DIV(K, X, ...) ND_OP_KINDS_CPX_##K(X, __VA_ARGS__)
#define ND_OP_CPX_F64(K, X, ...) ND_OP_KINDS_CPX64_##K(X, __VA_ARGS__)
#define ND_OP_INT_SAME(K, X, ...) ND_OP_KINDS_INT_##K(X, __VA_ARGS__)
#define ND_OP_INT_BOOL(K, X, ...) ND_OP_KINDS_INT_##K(X, __VA_ARGS__)
#define ND_OP_INT_FLOAT(K, X, ...)
#define ND_OP_INT_DIV(K, X, ...)
#define ND_OP_INT_F64(K, X, ...)
#define ND_OP_FLT_SAME(K, X, ...) ND_OP_KINDS_FLT_##K(X, __VA_ARGS__)
#define ND_OP_FLT_BOOL(K, X, ...) ND_OP_KINDS_FLT_##K(X, __VA_ARGS__)
#define ND_OP_FLT_FLOAT(K, X, ...) ND_OP_FLOATS_##K(X, __VA_ARGS__)
#define ND_OP_FLT_DIV(K, X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_OP_FLT_F64(K, X, ...) ND_OP_TYPES_F64(X, __VA_ARGS__)
/* the float loops of a FLOAT op: BIUFh gives float16/bfloat16 their own
 * bit-level bodies (nextafter, spacing), BIUF computes them in float32 */
#define ND_OP_FLOATS_BIUF(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_OP_FLOATS_BIUFh(X, ...) ND_OP_TYPES_FLOAT_OWN16(X, __VA_ARGS__)
#define ND_OP_FLOATS_BIUFC(X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
/* BIUFw: no bfloat16 loop (the core widens bfloat16 to float32: ldexp) */
#define ND_OP_FLOATS_BIUFw(X, ...)                                                      \
    X(ND_FLOAT16, f16, f32, uint16_t, float, ND_LD_F16, ND_ST_F16, __VA_ARGS__)         \
    X(ND_FLOAT32, f32, f32, float, float, ND_LD_ID, ND_ST_ID, __VA_ARGS__)              \
    X(ND_FLOAT64, f64, f64, double, double, ND_LD_ID, ND_ST_ID, __VA_ARGS__)
#define ND_OP_LOOPS_INT(K, R, X, ...) ND_OP_INT_##R(K, X, __VA_ARGS__)
#define ND_OP_LOOPS_FLT(K, R, X, ...) ND_OP_FLT_##R(K, X, __VA_ARGS__)
#define ND_OP_LOOPS_CPX(K, R, X, ...) ND_OP_CPX_##R(K, X, __VA_ARGS__)
#define ND_OP_LOOPS(K, R, X, ...)                                                       \
    ND_OP_LOOPS_INT(K, R, X, __VA_ARGS__) ND_OP_LOOPS_FLT(K, R, X, __VA_ARGS__) ND_OP_LOOPS_CPX(K, R, X, __VA_ARGS__)

/* Result storage type of an op of a rule, given the loop's storage type,
 * and how a computed value is stored (BOOL ops store 0/1 bytes). */
/* SAME: the storage type itself, but for the complex abs loops, whose
 * input storage types (nd_c64abs_t, nd_c128abs_t: src/shared/ops_cpx.h) name
 * their real results (|z| is real, NumPy's absolute) */
#define ND_OP_OUT_SAME(ST) ND_OP_OUTS_##ST
#define ND_OP_OUTS_uint8_t uint8_t
#define ND_OP_OUTS_int8_t int8_t
#define ND_OP_OUTS_int16_t int16_t
#define ND_OP_OUTS_int32_t int32_t
#define ND_OP_OUTS_int64_t int64_t
#define ND_OP_OUTS_uint16_t uint16_t
#define ND_OP_OUTS_uint32_t uint32_t
#define ND_OP_OUTS_uint64_t uint64_t
#define ND_OP_OUTS_float float
#define ND_OP_OUTS_double double
#define ND_OP_OUTS_nd_c64_t nd_c64_t
#define ND_OP_OUTS_nd_c128_t nd_c128_t
#define ND_OP_OUTS_nd_c64abs_t float
#define ND_OP_OUTS_nd_c128abs_t double
#define ND_OP_OUT_FLOAT(ST) ST
#define ND_OP_OUT_DIV(ST) ST
#define ND_OP_OUT_BOOL(ST) uint8_t
#define ND_OP_OUT_F64(ST) ST
#define ND_OP_STORE_SAME(store, v) store(v)
#define ND_OP_STORE_FLOAT(store, v) store(v)
#define ND_OP_STORE_DIV(store, v) store(v)
#define ND_OP_STORE_BOOL(store, v) ND_ST_BOOL(v)
#define ND_OP_STORE_F64(store, v) store(v)

/* The complex bodies (nd_op_<name>_c64 / _c128). */
#include "shared/ops_cpx.h"
/* The special functions and activations (erf ... elu). */
#include "shared/ops_special.h"
/* The gamma, zeta and Bessel functions (nd_op_gamma_f64, ...). */
#include "shared/ops_gamma.h"
/* The Bessel functions (nd_op_i0_f64, nd_op_j0_f64, ...). */
#include "shared/ops_bessel.h"

#endif /* ND_OPS_MATH_H */
