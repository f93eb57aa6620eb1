/*
 * Our vectorised float32 exp, tanh and sigmoid, and the table of every
 * vector kernel per path (see src/cpu/vmath.h).
 *
 * The bodies are branch-free scalar functions (selects only, every value
 * computed unconditionally) inside `omp simd` loops, so gcc vectorises
 * them (SSE2 on the baseline x86-64 path). The code never relies on FMA
 * contraction (the build uses -std=c11, i.e. -ffp-contract=off), so the
 * vector lanes and the loop's scalar epilogue compute the same bits.
 *
 * no-trapping-math lets gcc if-convert the selects (an ordered compare
 * may raise FE_INVALID on NaN, which the library never observes); it
 * changes no result.
 */
#pragma GCC optimize("no-trapping-math")
#include <string.h>

#include "cpu/isa.h"
#include "cpu/vmath.h"

static inline float nd_vm_asf(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint32_t nd_vm_asu(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* exp(x) for finite or infinite x; NaN gives a meaningless finite value
 * (callers select NaN themselves). Cody-Waite reduction x = n ln2 + r,
 * |r| <= ln2/2, Cephes' degree-6 polynomial for e^r, and 2^n applied as
 * two factors 2^n1 * 2^n2 so that results in the subnormal range round
 * only once and n = 128 overflows to +inf exactly when it should. */
static inline float nd_vm_exp(float x)
{
    const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    float xs = x < -104.0f ? -104.0f : x; /* exp(-104) < 2^-150: rounds to +0 */
    xs = xs > 89.0f ? 89.0f : xs;         /* exp(89) > FLT_MAX: +inf */
    xs = (x == x) ? xs : 0.0f;
    float t = xs * 1.44269504088896341f + magic;
    int32_t n = (int32_t)(nd_vm_asu(t) - nd_vm_asu(magic)); /* in [-150, 128] */
    float nf = t - magic;
    float r = xs - nf * 0.693359375f; /* exact: ln2_hi has 9 bits, |n| < 2^8 */
    r = r - nf * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    float y = p * (r * r) + r + 1.0f;
    int32_t n1 = n / 2, n2 = n - n1; /* both in [-75, 64] */
    y = y * nd_vm_asf((uint32_t)(n1 + 127) << 23);
    y = y * nd_vm_asf((uint32_t)(n2 + 127) << 23);
    return y;
}

static inline float nd_vm_exp_body(float x)
{
    float y = nd_vm_exp(x), xn = x + x;
    return (x == x) ? y : xn;
}

/* tanh: Cephes' odd polynomial for |x| < 0.625, else
 * sign(x) (1 - 2 / (exp(2|x|) + 1)). */
static inline float nd_vm_tanh_body(float x)
{
    float ax = nd_vm_asf(nd_vm_asu(x) & 0x7fffffffu);
    float z = x * x;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    float small = p * z * x + x;
    small = ax < 0x1p-12f ? x : small; /* tanh(x) rounds to x; keeps -0 */
    float e = nd_vm_exp(ax + ax);
    float t = 1.0f - 2.0f / (e + 1.0f);
    float big = nd_vm_asf(nd_vm_asu(t) | (nd_vm_asu(x) & 0x80000000u));
    float xn = x + x;
    float y = ax < 0.625f ? small : big;
    return (x == x) ? y : xn;
}

/* sigmoid: with e = exp(-|x|) (never overflows), 1/(1+e) for x >= 0 and
 * e/(1+e) for x < 0, as the scalar body in src/ops_math.h. */
static inline float nd_vm_sigmoid_body(float x)
{
    float ax = nd_vm_asf(nd_vm_asu(x) & 0x7fffffffu);
    float e = nd_vm_exp(-ax);
    float d = 1.0f + e;
    float pos = 1.0f / d, neg = e / d;
    float xn = x + x;
    float y = x >= 0.0f ? pos : neg;
    return (x == x) ? y : xn;
}

#define ND_VM_LOOP(name, attr, isa)                                                      \
    attr static void nd_vm_##name##_loop_##isa(void *o_, const void *a_, int64_t n)      \
    {                                                                                    \
        float *o = (float *)o_;                                                          \
        const float *a = (const float *)a_;                                              \
        _Pragma("omp simd") for (int64_t i = 0; i < n; i++) o[i] = nd_vm_##name##_body(a[i]); \
    }                                                                                    \
    static const nd_vmath_kernel nd_vk_##name##_##isa = {nd_vm_##name##_loop_##isa, "nd"};

/* Only the baseline path uses these: on AVX2 and AVX-512 libmvec's expf,
 * tanhf and (composed) sigmoid were faster at <= 4 ulp (AMD Zen 5, 4096
 * elements in L1, ns per element, ours / libmvec: AVX-512 exp 0.55 / 0.30,
 * tanh 0.86 / 0.39, sigmoid 0.74 / 0.49; AVX2 exp 0.78 / 0.41, tanh
 * 1.31 / 0.74, sigmoid 1.09 / 0.57). */
ND_VM_LOOP(exp, , base)
ND_VM_LOOP(tanh, , base)
ND_VM_LOOP(sigmoid, , base)

const nd_vmath_kernel *nd__vmath(nd_cpu_isa isa, nd_unary_op op, nd_dtype t)
{
    if ((unsigned)isa >= ND_ISA_N || (t != ND_FLOAT32 && t != ND_FLOAT64)) return NULL;
    const nd_vmath_kernel *k = isa != ND_ISA_BASELINE ? nd__vmath_mvec(isa, op, t) : NULL;
    if (k || t != ND_FLOAT32) return k;
    switch (op) { /* the baseline path, or a build without libmvec */
    case ND_UNARY_EXP: return &nd_vk_exp_base;
    case ND_UNARY_TANH: return &nd_vk_tanh_base;
    case ND_UNARY_SIGMOID: return &nd_vk_sigmoid_base;
    default: return NULL;
    }
}
