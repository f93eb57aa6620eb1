/* Element conversions between all 13 dtypes, written once for the C
 * compiler and nvcc (ND_HOSTDEV): the CPU cast loops and the CUDA cast
 * kernels call the same functions, nd_cvt_<src>_<dst>(x).
 *
 * Rules (NumPy's where NumPy defines them):
 *  - to bool: x != 0 (NaN is true);
 *  - integer -> integer: wraps modulo 2^bits;
 *  - float -> integer: truncates toward zero, then wraps modulo 2^bits.
 *    Values no conversion can represent (NaN, +-inf, beyond the
 *    intermediate range) give the x86 "integer indefinite" value, as
 *    NumPy does on x86: targets up to 16 bits and int32 convert through
 *    int32 (INT32_MIN for such values), int64/uint32 through int64
 *    (INT64_MIN), uint64 exactly in [0, 2^64) and via int64 otherwise.
 *    Never undefined behaviour;
 *  - to float16/bfloat16: round to nearest even (from float64 directly,
 *    without double rounding);
 *  - real -> complex: (x, 0), the real part converted as to the part's
 *    float type (int64 -> complex64 rounds once, as NumPy's (float)x);
 *  - complex -> real: the real part, converted as that float would be
 *    (NumPy's ComplexWarning cast: the imaginary part is dropped);
 *    complex -> bool: re != 0 or im != 0.
 *
 * Type suffixes: b1 i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 c64
 * c128 (f16/bf16 are stored as uint16_t bits; c64/c128 as a struct of
 * two float/double parts, the layout of C99's float/double _Complex,
 * NumPy's, DLPack's and cuComplex's). */
#ifndef ND_CONVERT_H
#define ND_CONVERT_H
#include <stdint.h>

#include "shared/half.h"
#include "shared/dtype_table.h"
#include "shared/hostdev.h"

typedef uint8_t nd_b1_t;
typedef int8_t nd_i8_t;
typedef int16_t nd_i16_t;
typedef int32_t nd_i32_t;
typedef int64_t nd_i64_t;
typedef uint8_t nd_u8_t;
typedef uint16_t nd_u16_t;
typedef uint32_t nd_u32_t;
typedef uint64_t nd_u64_t;
typedef uint16_t nd_f16_t;
typedef uint16_t nd_bf16_t;
typedef float nd_f32_t;
typedef double nd_f64_t;
typedef struct nd_c64_t {
    float re, im;
} nd_c64_t;
typedef struct nd_c128_t {
    double re, im;
} nd_c128_t;
ND_HOSTDEV static inline nd_c64_t nd_mk_c64(float re, float im)
{
    nd_c64_t z;
    z.re = re;
    z.im = im;
    return z;
}
ND_HOSTDEV static inline nd_c128_t nd_mk_c128(double re, double im)
{
    nd_c128_t z;
    z.re = re;
    z.im = im;
    return z;
}

/* ND_DTYPE_SUFFIXES(X) / ND_DTYPE_PAIRS(M, S): src/shared/dtype_table.h */

/* loads: each dtype to its intermediate class I (int64), U (uint64),
 * F (float), D (double) or Z (complex: a pair of doubles, exact for
 * complex64 too) */
#define ND_LC_b1 U
#define ND_LC_i8 I
#define ND_LC_i16 I
#define ND_LC_i32 I
#define ND_LC_i64 I
#define ND_LC_u8 U
#define ND_LC_u16 U
#define ND_LC_u32 U
#define ND_LC_u64 U
#define ND_LC_f16 F
#define ND_LC_bf16 F
#define ND_LC_f32 F
#define ND_LC_f64 D
#define ND_LC_c64 Z
#define ND_LC_c128 Z
ND_HOSTDEV static inline uint64_t nd_ld_b1(nd_b1_t x) { return x != 0; }
ND_HOSTDEV static inline int64_t nd_ld_i8(nd_i8_t x) { return x; }
ND_HOSTDEV static inline int64_t nd_ld_i16(nd_i16_t x) { return x; }
ND_HOSTDEV static inline int64_t nd_ld_i32(nd_i32_t x) { return x; }
ND_HOSTDEV static inline int64_t nd_ld_i64(nd_i64_t x) { return x; }
ND_HOSTDEV static inline uint64_t nd_ld_u8(nd_u8_t x) { return x; }
ND_HOSTDEV static inline uint64_t nd_ld_u16(nd_u16_t x) { return x; }
ND_HOSTDEV static inline uint64_t nd_ld_u32(nd_u32_t x) { return x; }
ND_HOSTDEV static inline uint64_t nd_ld_u64(nd_u64_t x) { return x; }
ND_HOSTDEV static inline float nd_ld_f16(nd_f16_t x) { return nd_half_to_float(x); }
ND_HOSTDEV static inline float nd_ld_bf16(nd_bf16_t x) { return nd_bf16_to_float(x); }
ND_HOSTDEV static inline float nd_ld_f32(nd_f32_t x) { return x; }
ND_HOSTDEV static inline double nd_ld_f64(nd_f64_t x) { return x; }
ND_HOSTDEV static inline nd_c128_t nd_ld_c64(nd_c64_t x) { return nd_mk_c128(x.re, x.im); }
ND_HOSTDEV static inline nd_c128_t nd_ld_c128(nd_c128_t x) { return x; }

ND_HOSTDEV static inline int64_t nd_f64_to_i32ish(double x)
{
    return (x > -2147483649.0 && x < 2147483648.0) ? (int64_t)(int32_t)x : (int64_t)INT32_MIN;
}
ND_HOSTDEV static inline int64_t nd_f64_to_i64(double x)
{
    return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}
ND_HOSTDEV static inline uint64_t nd_f64_to_u64(double x)
{
    if (x >= 9223372036854775808.0 && x < 18446744073709551616.0) return (uint64_t)x;
    return (uint64_t)nd_f64_to_i64(x);
}

/* stores: nd_st_<dst>_from_<class> */
#define ND_DEF_ST_INT(D, NARROW)                                                                                     \
    ND_HOSTDEV static inline nd_##D##_t nd_st_##D##_from_I(int64_t x) { return (nd_##D##_t)(uint64_t)x; }           \
    ND_HOSTDEV static inline nd_##D##_t nd_st_##D##_from_U(uint64_t x) { return (nd_##D##_t)x; }                    \
    ND_HOSTDEV static inline nd_##D##_t nd_st_##D##_from_D(double x)                                                \
    {                                                                                                               \
        return (nd_##D##_t)(uint64_t)(NARROW ? nd_f64_to_i32ish(x) : nd_f64_to_i64(x));                            \
    }                                                                                                               \
    ND_HOSTDEV static inline nd_##D##_t nd_st_##D##_from_F(float x) { return nd_st_##D##_from_D((double)x); }
ND_DEF_ST_INT(i8, 1)
ND_DEF_ST_INT(i16, 1)
ND_DEF_ST_INT(i32, 1)
ND_DEF_ST_INT(i64, 0)
ND_DEF_ST_INT(u8, 1)
ND_DEF_ST_INT(u16, 1)
ND_DEF_ST_INT(u32, 0)
ND_HOSTDEV static inline nd_u64_t nd_st_u64_from_I(int64_t x) { return (uint64_t)x; }
ND_HOSTDEV static inline nd_u64_t nd_st_u64_from_U(uint64_t x) { return x; }
ND_HOSTDEV static inline nd_u64_t nd_st_u64_from_D(double x) { return nd_f64_to_u64(x); }
ND_HOSTDEV static inline nd_u64_t nd_st_u64_from_F(float x) { return nd_f64_to_u64((double)x); }

ND_HOSTDEV static inline nd_b1_t nd_st_b1_from_I(int64_t x) { return x != 0; }
ND_HOSTDEV static inline nd_b1_t nd_st_b1_from_U(uint64_t x) { return x != 0; }
ND_HOSTDEV static inline nd_b1_t nd_st_b1_from_F(float x) { return x != 0.0f; }
ND_HOSTDEV static inline nd_b1_t nd_st_b1_from_D(double x) { return x != 0.0; }

ND_HOSTDEV static inline nd_f16_t nd_st_f16_from_I(int64_t x) { return nd_double_to_half((double)x); }
ND_HOSTDEV static inline nd_f16_t nd_st_f16_from_U(uint64_t x) { return nd_double_to_half((double)x); }
ND_HOSTDEV static inline nd_f16_t nd_st_f16_from_F(float x) { return nd_float_to_half(x); }
ND_HOSTDEV static inline nd_f16_t nd_st_f16_from_D(double x) { return nd_double_to_half(x); }
ND_HOSTDEV static inline nd_bf16_t nd_st_bf16_from_I(int64_t x) { return nd_double_to_bf16((double)x); }
ND_HOSTDEV static inline nd_bf16_t nd_st_bf16_from_U(uint64_t x) { return nd_double_to_bf16((double)x); }
ND_HOSTDEV static inline nd_bf16_t nd_st_bf16_from_F(float x) { return nd_float_to_bf16(x); }
ND_HOSTDEV static inline nd_bf16_t nd_st_bf16_from_D(double x) { return nd_double_to_bf16(x); }
ND_HOSTDEV static inline nd_f32_t nd_st_f32_from_I(int64_t x) { return (float)x; }
ND_HOSTDEV static inline nd_f32_t nd_st_f32_from_U(uint64_t x) { return (float)x; }
ND_HOSTDEV static inline nd_f32_t nd_st_f32_from_F(float x) { return x; }
ND_HOSTDEV static inline nd_f32_t nd_st_f32_from_D(double x) { return (float)x; }
ND_HOSTDEV static inline nd_f64_t nd_st_f64_from_I(int64_t x) { return (double)x; }
ND_HOSTDEV static inline nd_f64_t nd_st_f64_from_U(uint64_t x) { return (double)x; }
ND_HOSTDEV static inline nd_f64_t nd_st_f64_from_F(float x) { return (double)x; }
ND_HOSTDEV static inline nd_f64_t nd_st_f64_from_D(double x) { return x; }

/* complex stores: a real class gives (x, 0), the parts rounded as the
 * part's float type would round x; complex to real takes the real part */
#define ND_DEF_ST_CPX(D, P, PT)                                                                                   \
    ND_HOSTDEV static inline nd_##D##_t nd_st_##D##_from_I(int64_t x) { return nd_mk_##D(nd_st_##P##_from_I(x), (PT)0); } \
    ND_HOSTDEV static inline nd_##D##_t nd_st_##D##_from_U(uint64_t x) { return nd_mk_##D(nd_st_##P##_from_U(x), (PT)0); } \
    ND_HOSTDEV static inline nd_##D##_t nd_st_##D##_from_F(float x) { return nd_mk_##D(nd_st_##P##_from_F(x), (PT)0); }   \
    ND_HOSTDEV static inline nd_##D##_t nd_st_##D##_from_D(double x) { return nd_mk_##D(nd_st_##P##_from_D(x), (PT)0); }  \
    ND_HOSTDEV static inline nd_##D##_t nd_st_##D##_from_Z(nd_c128_t z)                                          \
    {                                                                                                             \
        return nd_mk_##D(nd_st_##P##_from_D(z.re), nd_st_##P##_from_D(z.im));                                   \
    }
ND_DEF_ST_CPX(c64, f32, float)
ND_DEF_ST_CPX(c128, f64, double)
#define ND_DEF_ST_REAL_FROM_Z(D) \
    ND_HOSTDEV static inline nd_##D##_t nd_st_##D##_from_Z(nd_c128_t z) { return nd_st_##D##_from_D(z.re); }
ND_DEF_ST_REAL_FROM_Z(i8)
ND_DEF_ST_REAL_FROM_Z(i16)
ND_DEF_ST_REAL_FROM_Z(i32)
ND_DEF_ST_REAL_FROM_Z(i64)
ND_DEF_ST_REAL_FROM_Z(u8)
ND_DEF_ST_REAL_FROM_Z(u16)
ND_DEF_ST_REAL_FROM_Z(u32)
ND_DEF_ST_REAL_FROM_Z(u64)
ND_DEF_ST_REAL_FROM_Z(f16)
ND_DEF_ST_REAL_FROM_Z(bf16)
ND_DEF_ST_REAL_FROM_Z(f32)
ND_DEF_ST_REAL_FROM_Z(f64)
ND_HOSTDEV static inline nd_b1_t nd_st_b1_from_Z(nd_c128_t z) { return z.re != 0.0 || z.im != 0.0; }

/* nd_cvt_<S>_<D>(x): one element of dtype S to dtype D */
#define ND_CAT4_(a, b, c, d) a##b##c##d
#define ND_CAT4(a, b, c, d) ND_CAT4_(a, b, c, d)
#define ND_DEF_CVT(S, D) \
    ND_HOSTDEV static inline nd_##D##_t nd_cvt_##S##_##D(nd_##S##_t x) { return ND_CAT4(nd_st_, D, _from_, ND_LC_##S)(nd_ld_##S(x)); }
#define ND_DEF_CVT_FROM(S) ND_DTYPE_PAIRS(ND_DEF_CVT, S)
ND_DTYPE_SUFFIXES(ND_DEF_CVT_FROM)

#endif
