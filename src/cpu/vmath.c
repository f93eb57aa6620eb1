/*
 * Vectorised float32 exp, tanh and sigmoid (see src/cpu/vmath.h).
 *
 * The bodies are branch-free scalar functions (selects only, every value
 * computed unconditionally) inside `omp simd` loops, so gcc vectorises
 * them; each loop is compiled twice, for AVX2 and for the baseline ISA,
 * and the AVX2 one is used when the CPU has it. The code never relies on
 * FMA contraction (the build uses -std=c11, i.e. -ffp-contract=off), so
 * both versions round identically.
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

#define ND_VM_LOOP(name, attr, sfx)                                                 \
    attr static void nd_vm_##name##_loop_##sfx(float *o, const float *a, int64_t n) \
    {                                                                               \
        _Pragma("omp simd") for (int64_t i = 0; i < n; i++) o[i] = nd_vm_##name##_body(a[i]); \
    }

#if defined(__x86_64__) || defined(__i386__)
#define ND_VM_X86 1
#define ND_VM_AVX2 ND_ISA_TARGET_AVX2
#else
#define ND_VM_X86 0
#endif

#define ND_VM_FUNC(name)                                                   \
    ND_VM_LOOP(name, , base)                                               \
    ND_VM_FUNC_X86(name)                                                   \
    void nd__v##name##_f32(float *o, const float *a, int64_t n)            \
    {                                                                      \
        ND_VM_CALL_X86(name)                                               \
        nd_vm_##name##_loop_base(o, a, n);                                 \
    }

#if ND_VM_X86
#define ND_VM_FUNC_X86(name) ND_VM_LOOP(name, ND_VM_AVX2, avx2)
#define ND_VM_CALL_X86(name)                   \
    if (nd__cpu_isa() >= ND_ISA_AVX2) {       \
        nd_vm_##name##_loop_avx2(o, a, n);     \
        return;                                \
    }
#else
#define ND_VM_FUNC_X86(name)
#define ND_VM_CALL_X86(name)
#endif

ND_VM_FUNC(exp)
ND_VM_FUNC(tanh)
ND_VM_FUNC(sigmoid)
