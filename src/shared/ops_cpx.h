/*
 * The scalar bodies of the complex elementwise ops, shared by
 * the CPU loops and the CUDA kernels like the real bodies of
 * src/shared/ops_math.h (which includes this file at its end): nd_op_<name>_c64
 * on nd_c64_t (computed in float, as NumPy's complex64 loops) and
 * nd_op_<name>_c128 on nd_c128_t.
 *
 * Here: the arithmetic, comparisons and classification, with NumPy's
 * formulas (its complex loops, numpy/_core/src/umath/loops.c.src):
 *  - multiply and square are the schoolbook products with one product of
 *    each part fused: re = fma(ar, br, -(ai bi)), im = fma(ar, bi, ai br),
 *    which is what NumPy 2's SIMD complex loops compute on FMA hardware
 *    (_mm512_fmaddsub_ps & co.), on every layout: the same bits on every
 *    layout and backend here (an explicit fma, not the compiler's
 *    contraction, which both builds turn off), and NumPy's value where an
 *    unfused formula would give inf - inf = NaN ((1e308 + 1e308j)**2 is
 *    -inf + infj). No Annex G recovery of infinities otherwise (NumPy has
 *    none either: (inf + 0j) * (inf + 0j) is inf + nanj there too);
 *  - equal: both parts equal; not_equal: either part differs;
 *  - logical ops and logical_not on the truth value (re != 0 || im != 0);
 *  - isnan: either part NaN; isinf: either part infinite; isfinite: both
 *    parts finite;
 *  - conjugate negates the imaginary part (-0.0 for +0.0);
 *  - rint rounds each part half to even (NumPy's complex rint).
 * The functions with real math (divide, power, sqrt, exp, log, the
 * trigonometric and hyperbolic functions and their inverses, sign,
 * reciprocal) are in src/shared/ops_cpx_math.h, with C99 Annex G's special
 * values.
 *
 * Ordering comparisons, maximum/minimum, floor/ceil and the other ops
 * NumPy 2 refuses on complex have no body: the op table's kinds column has
 * no C for them, so the core refuses complex there with ND_ERR_DTYPE.
 */
#ifndef ND_OPS_CPX_H
#define ND_OPS_CPX_H

#include <string.h>

#include "shared/convert.h"

#define ND_OPS_CPX_SIMPLE(sfx, Z, T, MK, ISNAN, ISINF, RSFX, FMA)                                             \
    ND_HOSTDEV static inline Z nd_op_rint_##sfx(Z x) { return MK(nd_op_rint_##RSFX(x.re), nd_op_rint_##RSFX(x.im)); } \
    ND_HOSTDEV static inline Z nd_op_negative_##sfx(Z x) { return MK(-x.re, -x.im); }                       \
    ND_HOSTDEV static inline Z nd_op_positive_##sfx(Z x) { return x; }                                      \
    ND_HOSTDEV static inline Z nd_op_conjugate_##sfx(Z x) { return MK(x.re, -x.im); }                       \
    ND_HOSTDEV static inline Z nd_op_square_##sfx(Z x)                                                      \
    {                                                                                                       \
        return MK(FMA(x.re, x.re, -(x.im * x.im)), FMA(x.re, x.im, x.im * x.re));                          \
    }                                                                                                       \
    ND_HOSTDEV static inline Z nd_op_add_##sfx(Z a, Z b) { return MK(a.re + b.re, a.im + b.im); }           \
    ND_HOSTDEV static inline Z nd_op_subtract_##sfx(Z a, Z b) { return MK(a.re - b.re, a.im - b.im); }      \
    ND_HOSTDEV static inline Z nd_op_multiply_##sfx(Z a, Z b)                                               \
    {                                                                                                       \
        return MK(FMA(a.re, b.re, -(a.im * b.im)), FMA(a.re, b.im, a.im * b.re));                          \
    }                                                                                                       \
    ND_HOSTDEV static inline bool nd_truth_##sfx(Z x) { return x.re != (T)0 || x.im != (T)0; }              \
    ND_HOSTDEV static inline bool nd_op_equal_##sfx(Z a, Z b) { return a.re == b.re && a.im == b.im; }      \
    ND_HOSTDEV static inline bool nd_op_not_equal_##sfx(Z a, Z b) { return a.re != b.re || a.im != b.im; }  \
    ND_HOSTDEV static inline bool nd_op_logical_not_##sfx(Z x) { return !nd_truth_##sfx(x); }               \
    ND_HOSTDEV static inline bool nd_op_logical_and_##sfx(Z a, Z b) { return nd_truth_##sfx(a) && nd_truth_##sfx(b); } \
    ND_HOSTDEV static inline bool nd_op_logical_or_##sfx(Z a, Z b) { return nd_truth_##sfx(a) || nd_truth_##sfx(b); } \
    ND_HOSTDEV static inline bool nd_op_logical_xor_##sfx(Z a, Z b) { return nd_truth_##sfx(a) != nd_truth_##sfx(b); } \
    ND_HOSTDEV static inline bool nd_op_isnan_##sfx(Z x) { return ISNAN(x.re) || ISNAN(x.im); }             \
    ND_HOSTDEV static inline bool nd_op_isinf_##sfx(Z x) { return ISINF(x.re) || ISINF(x.im); }             \
    ND_HOSTDEV static inline bool nd_op_isfinite_##sfx(Z x)                                                 \
    {                                                                                                       \
        return !ISNAN(x.re) && !ISNAN(x.im) && !ISINF(x.re) && !ISINF(x.im);                                \
    }

/* abs: |z| in the real dtype, NumPy's absolute (hypot: inf when either
 * part is inf, even with a NaN in the other). complex64 in double: the
 * squares of floats neither overflow nor underflow there and the sum is
 * one rounding, so sqrt and the final rounding give the correctly rounded
 * float but for rare double-rounding ties, with no scaling and no branch
 * (it vectorises); complex128 is hypot itself. The loops' input storage
 * types nd_c64abs_t / nd_c128abs_t are the complex types under another
 * name, which ND_OP_OUT_SAME maps to the real result (src/shared/ops_math.h). */
typedef nd_c64_t nd_c64abs_t;
typedef nd_c128_t nd_c128abs_t;
ND_HOSTDEV static inline float nd_op_abs_c64(nd_c64_t x)
{
    const double r = x.re, i = x.im;
    const float v = (float)sqrt(r * r + i * i);
    /* an infinite part gives inf, NaN in the other or not: a bit blend, not
     * a branch or an FP compare (either keeps gcc from vectorising) */
    uint32_t a, b, vb;
    memcpy(&a, &x.re, 4);
    memcpy(&b, &x.im, 4);
    memcpy(&vb, &v, 4);
    const uint32_t m = 0u - (uint32_t)(((a & 0x7fffffffu) == 0x7f800000u) | ((b & 0x7fffffffu) == 0x7f800000u));
    vb = (vb & ~m) | (0x7f800000u & m);
    float out;
    memcpy(&out, &vb, 4);
    return out;
}
ND_HOSTDEV static inline double nd_op_abs_c128(nd_c128_t x) { return hypot(x.re, x.im); }

ND_OPS_CPX_SIMPLE(c64, nd_c64_t, float, nd_mk_c64, nd_isnan_f32, nd_isinf_f32, f32, fmaf)
ND_OPS_CPX_SIMPLE(c128, nd_c128_t, double, nd_mk_c128, nd_isnan_f64, nd_isinf_f64, f64, fma)

/* divide, power, sqrt, exp, log, trigonometric, hyperbolic, sign, reciprocal */
#include "shared/ops_cpx_math.h"

#endif /* ND_OPS_CPX_H */
