/*
 * Order-preserving sort keys, shared by the CPU backend (src/cpu/sort.c)
 * and the CUDA kernels (src/cuda/kernels_sort.cu): the one definition of
 * the order that nd_sort, nd_argsort, nd_topk, nd_partition and
 * nd_searchsorted use.
 *
 * Each dtype maps its raw bits (an unsigned integer of the dtype's width)
 * to an unsigned key of the same width whose unsigned order is NumPy's
 * sort order:
 *   bool: 0 < 1 (any nonzero byte is true);
 *   signed integers: the sign bit flipped;
 *   unsigned integers: themselves;
 *   floats: -inf < negatives < -0.0 == +0.0 < positives < +inf < NaN, every
 *     NaN (either sign, any payload) the largest key (NumPy puts NaNs
 *     last), -0.0 the key of +0.0 (they compare equal, so a stable sort
 *     keeps their order).
 * The key -> bits inverse (nd_unkey_*) is exact except for -0.0 (gives
 * +0.0) and NaNs (give the positive quiet NaN of all-ones payload): the
 * CPU sort restores those from the input (src/cpu/sort.c), the CUDA sort
 * gathers values by index.
 * A descending sort flips every key (key ^ ~0): the order reverses, ties
 * stay in input order, and NaNs come first.
 */
#ifndef ND_SORT_KEYS_H
#define ND_SORT_KEYS_H
#include <stdint.h>

#include "shared/hostdev.h"

/* X(ENUM, sfx, U): the dtype, its suffix, its bits/key type */
#define ND_SORT_DTYPES(X)        \
    X(ND_BOOL, b1, uint8_t)      \
    X(ND_INT8, i8, uint8_t)      \
    X(ND_INT16, i16, uint16_t)   \
    X(ND_INT32, i32, uint32_t)   \
    X(ND_INT64, i64, uint64_t)   \
    X(ND_UINT8, u8, uint8_t)     \
    X(ND_UINT16, u16, uint16_t)  \
    X(ND_UINT32, u32, uint32_t)  \
    X(ND_UINT64, u64, uint64_t)  \
    X(ND_FLOAT16, f16, uint16_t) \
    X(ND_BFLOAT16, bf16, uint16_t) \
    X(ND_FLOAT32, f32, uint32_t) \
    X(ND_FLOAT64, f64, uint64_t)

static inline ND_HOSTDEV uint8_t nd_key_b1(uint8_t b) { return (uint8_t)(b != 0); }
static inline ND_HOSTDEV uint8_t nd_unkey_b1(uint8_t k) { return k; }
#define ND__KEY_INT(s, U, SIGN)                                                  \
    static inline ND_HOSTDEV U nd_key_##s(U b) { return (U)(b ^ (U)(SIGN)); }   \
    static inline ND_HOSTDEV U nd_unkey_##s(U k) { return (U)(k ^ (U)(SIGN)); }
ND__KEY_INT(i8, uint8_t, 0x80u)
ND__KEY_INT(i16, uint16_t, 0x8000u)
ND__KEY_INT(i32, uint32_t, 0x80000000u)
ND__KEY_INT(i64, uint64_t, 0x8000000000000000ull)
ND__KEY_INT(u8, uint8_t, 0)
ND__KEY_INT(u16, uint16_t, 0)
ND__KEY_INT(u32, uint32_t, 0)
ND__KEY_INT(u64, uint64_t, 0)
#undef ND__KEY_INT

/* floats: INF is the bits of +inf, SIGN the sign bit */
#define ND__KEY_FLOAT(s, U, SIGN, INF)                                                          \
    static inline ND_HOSTDEV U nd_key_##s(U b)                                                 \
    {                                                                                          \
        U a = (U)(b & (U)~(U)(SIGN));                                                          \
        U k = (b & (U)(SIGN)) ? (U)~b : (U)(b | (U)(SIGN));                                    \
        k = a == 0 ? (U)(SIGN) : k;                                                            \
        return a > (U)(INF) ? (U)~(U)0 : k;                                                    \
    }                                                                                          \
    static inline ND_HOSTDEV U nd_unkey_##s(U k) { return (k & (U)(SIGN)) ? (U)(k & (U)~(U)(SIGN)) : (U)~k; } \
    /* whether the bits are a NaN or -0.0 (the keys the inverse does not restore) */           \
    static inline ND_HOSTDEV int nd_keyloss_##s(U b) { return ((U)(b & (U)~(U)(SIGN)) > (U)(INF)) | (b == (U)(SIGN)); }
ND__KEY_FLOAT(f16, uint16_t, 0x8000u, 0x7c00u)
ND__KEY_FLOAT(bf16, uint16_t, 0x8000u, 0x7f80u)
ND__KEY_FLOAT(f32, uint32_t, 0x80000000u, 0x7f800000u)
ND__KEY_FLOAT(f64, uint64_t, 0x8000000000000000ull, 0x7ff0000000000000ull)
#undef ND__KEY_FLOAT
#define ND__KEYLOSS_NONE(s, U) \
    static inline ND_HOSTDEV int nd_keyloss_##s(U b) { (void)b; return 0; }
ND__KEYLOSS_NONE(b1, uint8_t)
ND__KEYLOSS_NONE(i8, uint8_t)
ND__KEYLOSS_NONE(i16, uint16_t)
ND__KEYLOSS_NONE(i32, uint32_t)
ND__KEYLOSS_NONE(i64, uint64_t)
ND__KEYLOSS_NONE(u8, uint8_t)
ND__KEYLOSS_NONE(u16, uint16_t)
ND__KEYLOSS_NONE(u32, uint32_t)
ND__KEYLOSS_NONE(u64, uint64_t)
#undef ND__KEYLOSS_NONE

/* Key of element i of a contiguous array of dtype t (an nd_dtype value),
 * widened to 64 bits (the order is kept): for searchsorted. */
static inline ND_HOSTDEV uint64_t nd_sort_key64(int t, const void *p, int64_t i)
{
    switch (t) {
#define ND__K64(E, s, U) \
    case E: return (uint64_t)nd_key_##s(((const U *)p)[i]);
        ND_SORT_DTYPES(ND__K64)
#undef ND__K64
    default: return 0;
    }
}

/* First position j in [0, n) of the sorted keys of a (dtype t) with
 * key(a[j]) >= kv (right == 0) or > kv (right != 0); n when none. */
static inline ND_HOSTDEV int64_t nd_sort_bsearch(int t, const void *a, int64_t n, uint64_t kv, int right)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + ((hi - lo) >> 1);
        uint64_t km = nd_sort_key64(t, a, mid);
        if (right ? km <= kv : km < kv) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
#endif
