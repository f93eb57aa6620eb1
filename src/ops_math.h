/*
 * The scalar body of every elementwise op, written once and shared by the
 * CPU loops (gcc, C11) and the CUDA kernels (nvcc, C++): plain functions,
 * no _Generic, no compound literals, only math.h functions that CUDA
 * device code also has (expf, exp, tanhf, ...).
 *
 * Naming: nd_op_<name>_<sfx>(x) / nd_op_<name>_<sfx>(a, b), where <name> is
 * the op's name in ND_UNARY_OPS / ND_BINARY_OPS (include/ndgpu.h) and <sfx>
 * the compute type:
 *      b    bool            (storage uint8_t, values 0/1)
 *      i8 i16 i32 i64       int8_t ... int64_t
 *      u8 u16 u32 u64       uint8_t ... uint64_t
 *      f32 f64              float, double
 * float16 and bfloat16 are loaded as float32 (src/half.h), computed with
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

#include "half.h"
#include "hostdev.h"

/* Marks a body that is never dispatched (see above). */

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
    ND_HOSTDEV static inline bool nd_op_logical_xor_##sfx(T a, T b) { return (a != 0) != (b != 0); }

ND_OPS_FLOAT(f32, float, f)
ND_OPS_FLOAT(f64, double, )

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
 * (src/elementwise.c, resolve()) can pick, so that no loop is generated
 * that is never dispatched (tests/test_coverage.c checks both ways):
 *   SAME, BOOL   the input dtypes of the kinds column (B, I, U, F; a
 *                lower-case b computes bool as int8: no bool loop)
 *   FLOAT, DIV   the floats (integer and bool inputs are cast to one)
 * in two parts, bool/integers and floats (ND_OP_LOOPS_INT/_FLT), so that
 * the CUDA backend can compile them in separate files. A kinds value
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
#define ND_OP_INT_SAME(K, X, ...) ND_OP_KINDS_INT_##K(X, __VA_ARGS__)
#define ND_OP_INT_BOOL(K, X, ...) ND_OP_KINDS_INT_##K(X, __VA_ARGS__)
#define ND_OP_INT_FLOAT(K, X, ...)
#define ND_OP_INT_DIV(K, X, ...)
#define ND_OP_FLT_SAME(K, X, ...) ND_OP_KINDS_FLT_##K(X, __VA_ARGS__)
#define ND_OP_FLT_BOOL(K, X, ...) ND_OP_KINDS_FLT_##K(X, __VA_ARGS__)
#define ND_OP_FLT_FLOAT(K, X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_OP_FLT_DIV(K, X, ...) ND_OP_TYPES_FLOAT(X, __VA_ARGS__)
#define ND_OP_LOOPS_INT(K, R, X, ...) ND_OP_INT_##R(K, X, __VA_ARGS__)
#define ND_OP_LOOPS_FLT(K, R, X, ...) ND_OP_FLT_##R(K, X, __VA_ARGS__)
#define ND_OP_LOOPS(K, R, X, ...) ND_OP_LOOPS_INT(K, R, X, __VA_ARGS__) ND_OP_LOOPS_FLT(K, R, X, __VA_ARGS__)

/* Result storage type of an op of a rule, given the loop's storage type,
 * and how a computed value is stored (BOOL ops store 0/1 bytes). */
#define ND_OP_OUT_SAME(ST) ST
#define ND_OP_OUT_FLOAT(ST) ST
#define ND_OP_OUT_DIV(ST) ST
#define ND_OP_OUT_BOOL(ST) uint8_t
#define ND_OP_STORE_SAME(store, v) store(v)
#define ND_OP_STORE_FLOAT(store, v) store(v)
#define ND_OP_STORE_DIV(store, v) store(v)
#define ND_OP_STORE_BOOL(store, v) ND_ST_BOOL(v)

#endif /* ND_OPS_MATH_H */
