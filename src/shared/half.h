/* float16 (IEEE binary16) and bfloat16 <-> float32, round to nearest even,
 * NaN kept quiet, subnormals exact. Shared by the CPU and CUDA backends. */
#ifndef ND_HALF_H
#define ND_HALF_H
#include <stdint.h>
#include <string.h>
#include "shared/hostdev.h"

ND_HOSTDEV static inline uint32_t nd_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
ND_HOSTDEV static inline float nd_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

ND_HOSTDEV static inline float nd_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) /* inf / nan */
        return nd_bits_f32(sign | 0x7f800000u | (man << 13) | (man ? 0x00400000u : 0u));
    if (exp == 0) {
        /* zero or subnormal: man * 2^-24, exact in float */
        float v = (float)man * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return nd_bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

ND_HOSTDEV static inline uint16_t nd_float_to_half(float f)
{
    uint32_t u = nd_f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t au = u & 0x7fffffffu;
    if (au >= 0x7f800000u) /* inf or nan */
        return (uint16_t)(sign | 0x7c00u | (au > 0x7f800000u ? 0x200u | ((au >> 13) & 0x3ffu) : 0u));
    if (au >= 0x477ff000u) /* rounds to >= 65520 -> inf */
        return (uint16_t)(sign | 0x7c00u);
    if (au < 0x38800000u) { /* below the smallest normal half (2^-14) */
        if (au < 0x33000000u) return sign; /* < 2^-25: rounds to zero */
        uint32_t e = au >> 23;
        uint32_t m = (au & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e; /* 14..24 */
        uint32_t half_m = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1u);
        if (rem > halfway || (rem == halfway && (half_m & 1u))) half_m++;
        return (uint16_t)(sign | half_m);
    }
    uint32_t r = au + 0xfffu + ((au >> 13) & 1u); /* round to nearest even */
    r -= 0x38000000u;                              /* rebias 127 -> 15 */
    return (uint16_t)(sign | (r >> 13));
}

ND_HOSTDEV static inline float nd_bf16_to_float(uint16_t b) { return nd_bits_f32((uint32_t)b << 16); }

ND_HOSTDEV static inline uint16_t nd_float_to_bf16(float f)
{
    uint32_t u = nd_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet nan */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}
/* double -> float rounded to odd (inexact results get their last bit set),
 * so that a second rounding to a narrower format is correctly rounded. */
ND_HOSTDEV static inline float nd_double_to_float_odd(double d)
{
    float f = (float)d;
    if (!(d == d) || (double)f == d) return f;
    uint32_t u = nd_f32_bits(f);
    double af = f < 0 ? -(double)f : (double)f, ad = d < 0 ? -d : d;
    if (af > ad) u -= 1u; /* rounded away from zero: step back toward zero */
    return nd_bits_f32(u | 1u);
}
ND_HOSTDEV static inline uint16_t nd_double_to_half(double d) { return nd_float_to_half(nd_double_to_float_odd(d)); }
ND_HOSTDEV static inline uint16_t nd_double_to_bf16(double d) { return nd_float_to_bf16(nd_double_to_float_odd(d)); }
#endif
