/*
 * Indexing and selection: what the core
 * (src/index/index.c, src/index/mask.c) and both backends (src/cpu/index.c,
 * src/cuda/kernels_index.cu) share: the scatter ops, the index normalisation
 * of the three take modes and the scalar combine bodies of
 * np.add.at / maximum.at / minimum.at, written once (ND_HOSTDEV) so that
 * the CPU loops and the CUDA kernels compute the same thing.
 */
#ifndef ND_IX_OPS_H
#define ND_IX_OPS_H
#include <stdint.h>

#include "shared/convert.h"
#include "shared/half.h"
#include "shared/hostdev.h"

/* nd_backend.scatter's op (also ND_KERNEL_SCATTER's op). */
typedef enum nd_scatter_op { ND_SCATTER_ASSIGN = 0, ND_SCATTER_ADD, ND_SCATTER_MAX, ND_SCATTER_MIN, ND_NUM_SCATTER_OPS } nd_scatter_op;

/* Index j of an axis of extent n >= 1 under mode (nd_take_mode values:
 * 0 raise, 1 wrap, 2 clip). In raise mode the core has checked
 * -n <= j < n; negative counts from the end. */
ND_HOSTDEV static inline int64_t nd_ix_norm(int64_t j, int64_t n, int mode)
{
    if (mode == 1) {
        j %= n;
        return j < 0 ? j + n : j;
    }
    if (mode == 2) return j < 0 ? 0 : (j >= n ? n - 1 : j);
    return j < 0 ? j + n : j;
}

/* old op= v in dtype sfx's own domain, NumPy's ufunc semantics: integers
 * wrap, bool add is logical or (max: or, min: and), maximum/minimum
 * propagate NaN (the first NaN seen: old's when both), float16/bfloat16
 * add in float32 and round once (as NumPy's half loops). */
#define ND_IX_COMB_INT(sfx, U)                                                                   \
    ND_HOSTDEV static inline nd_##sfx##_t nd_ix_comb_##sfx(int op, nd_##sfx##_t old, nd_##sfx##_t v) \
    {                                                                                            \
        switch (op) {                                                                            \
        case ND_SCATTER_ADD: return (nd_##sfx##_t)(U)((U)old + (U)v);                            \
        case ND_SCATTER_MAX: return v > old ? v : old;                                           \
        case ND_SCATTER_MIN: return v < old ? v : old;                                           \
        default: return v;                                                                       \
        }                                                                                        \
    }
ND_IX_COMB_INT(i8, uint8_t)
ND_IX_COMB_INT(i16, uint16_t)
ND_IX_COMB_INT(i32, uint32_t)
ND_IX_COMB_INT(i64, uint64_t)
ND_IX_COMB_INT(u8, uint8_t)
ND_IX_COMB_INT(u16, uint16_t)
ND_IX_COMB_INT(u32, uint32_t)
ND_IX_COMB_INT(u64, uint64_t)

ND_HOSTDEV static inline nd_b1_t nd_ix_comb_b1(int op, nd_b1_t old, nd_b1_t v)
{
    bool o = old != 0, x = v != 0;
    switch (op) {
    case ND_SCATTER_ADD:
    case ND_SCATTER_MAX: return (nd_b1_t)(o || x);
    case ND_SCATTER_MIN: return (nd_b1_t)(o && x);
    default: return (nd_b1_t)x;
    }
}

#define ND_IX_COMB_FLT(sfx)                                                                      \
    ND_HOSTDEV static inline nd_##sfx##_t nd_ix_comb_##sfx(int op, nd_##sfx##_t old, nd_##sfx##_t v) \
    {                                                                                            \
        switch (op) {                                                                            \
        case ND_SCATTER_ADD: return old + v;                                                     \
        case ND_SCATTER_MAX: return old != old ? old : (v != v ? v : (v > old ? v : old));      \
        case ND_SCATTER_MIN: return old != old ? old : (v != v ? v : (v < old ? v : old));      \
        default: return v;                                                                       \
        }                                                                                        \
    }
ND_IX_COMB_FLT(f32)
ND_IX_COMB_FLT(f64)

#define ND_IX_COMB_HALF(sfx, TOF, FROMF)                                                         \
    ND_HOSTDEV static inline nd_##sfx##_t nd_ix_comb_##sfx(int op, nd_##sfx##_t old, nd_##sfx##_t v) \
    {                                                                                            \
        float a = TOF(old), b = TOF(v);                                                          \
        switch (op) {                                                                            \
        case ND_SCATTER_ADD: return FROMF(a + b);                                                \
        case ND_SCATTER_MAX: return a != a ? old : (b != b ? v : (b > a ? v : old));            \
        case ND_SCATTER_MIN: return a != a ? old : (b != b ? v : (b < a ? v : old));            \
        default: return v;                                                                       \
        }                                                                                        \
    }
ND_IX_COMB_HALF(f16, nd_half_to_float, nd_float_to_half)
ND_IX_COMB_HALF(bf16, nd_bf16_to_float, nd_float_to_bf16)

/* complex: add adds the parts; maximum/minimum are refused by the core
 * (src/index/index.c: complex has no order here) and assign here */
#define ND_IX_COMB_CPX(sfx)                                                                      \
    ND_HOSTDEV static inline nd_##sfx##_t nd_ix_comb_##sfx(int op, nd_##sfx##_t old, nd_##sfx##_t v) \
    {                                                                                            \
        if (op == ND_SCATTER_ADD) {                                                              \
            old.re += v.re;                                                                      \
            old.im += v.im;                                                                      \
            return old;                                                                          \
        }                                                                                        \
        return v;                                                                                \
    }
ND_IX_COMB_CPX(c64)
ND_IX_COMB_CPX(c128)

#endif
