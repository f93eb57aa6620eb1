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
 * e/(1+e) for x < 0, as the scalar body in src/shared/ops_math.h. */
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

/* Only the baseline path uses these: on AVX2 and AVX-512 libmvec's expf
 * and (composed) sigmoid were faster at <= 4 ulp, and so was its tanhf
 * (AMD Zen 5, 4096 elements in L1, ns per element, these bodies / libmvec:
 * AVX-512 exp 0.55 / 0.30, tanh 0.86 / 0.39, sigmoid 0.74 / 0.49; AVX2 exp
 * 0.78 / 0.41, tanh 1.31 / 0.74, sigmoid 1.09 / 0.57); the intrinsics
 * kernels below replace libmvec's for tanh and sigmoid (AVX-512 / AVX2:
 * tanh 0.25 / 0.36, sigmoid 0.26 / 0.46, AMD EPYC Zen 4). */
ND_VM_LOOP(exp, , base)
ND_VM_LOOP(tanh, , base)
ND_VM_LOOP(sigmoid, , base)

#if ND_ISA_X86
#include <immintrin.h>

/* sqrt of 8 doubles s >= 0 (or NaN) by Newton steps from vrsqrt14pd: one
 * coupled iteration of r -> sqrt(s), h -> 1 / (2 sqrt(s)) (relative errors
 * 2^-14 -> ~2^-27 each), then one residual correction r + (s - r^2) h,
 * whose error is about the product of the two (~2^-53) plus its own
 * rounding: within a few ulps of the correctly rounded root, which is all
 * a float result needs away from a float rounding tie (nd_vm_near_tie
 * sends the lanes near one to vsqrtpd). A second iteration (56 bits) cost
 * 15% more time per element (AMD Zen 4, data in L1) and decided no more
 * results. 0 for s = 0 (where r = s * inf is NaN). */
ND_ISA_TARGET_AVX512 static inline __m512d nd_vm_sqrt_newton_pd(__m512d s)
{
    const __m512d half = _mm512_set1_pd(0.5);
    __m512d y = _mm512_rsqrt14_pd(s), r = _mm512_mul_pd(s, y), h = _mm512_mul_pd(half, y);
    const __m512d e = _mm512_fnmadd_pd(r, h, half);
    r = _mm512_fmadd_pd(r, e, r);
    h = _mm512_fmadd_pd(h, e, h);
    r = _mm512_fmadd_pd(_mm512_fnmadd_pd(r, r, s), h, r);
    return _mm512_mask_mov_pd(r, _mm512_cmp_pd_mask(s, _mm512_setzero_pd(), _CMP_EQ_OQ), _mm512_setzero_pd());
}

/* Lanes of r whose rounding to float could depend on its last bits: within
 * 64 ulp of a float rounding tie (the 29 bits below float's precision near
 * 0x10000000; 64 ulp is many times nd_vm_sqrt_newton_pd's error bound);
 * about 2^-22 of random inputs. */
ND_ISA_TARGET_AVX512 static inline __mmask8 nd_vm_near_tie(__m512d r)
{
    const __m512i low = _mm512_and_si512(_mm512_castpd_si512(r), _mm512_set1_epi64((INT64_C(1) << 29) - 1));
    return _mm512_cmple_epu64_mask(_mm512_sub_epi64(low, _mm512_set1_epi64((INT64_C(1) << 28) - 64)),
                                   _mm512_set1_epi64(128));
}

/* 16 complex64 values (the pairs in v0, v1) to their 16 |z| */
ND_ISA_TARGET_AVX512 static inline __m512 nd_vm_abs16_c64(__m512 v0, __m512 v1)
{
    const __m512i ire = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i iim = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512 re = _mm512_permutex2var_ps(v0, ire, v1), im = _mm512_permutex2var_ps(v0, iim, v1);
    const __m512d rl = _mm512_cvtps_pd(_mm512_castps512_ps256(re)), rh = _mm512_cvtps_pd(_mm512_extractf32x8_ps(re, 1));
    const __m512d il = _mm512_cvtps_pd(_mm512_castps512_ps256(im)), ih = _mm512_cvtps_pd(_mm512_extractf32x8_ps(im, 1));
    /* exact squares (48 bits), one rounding of their sum: as nd_op_abs_c64 */
    const __m512d sl = _mm512_fmadd_pd(rl, rl, _mm512_mul_pd(il, il));
    const __m512d sh = _mm512_fmadd_pd(rh, rh, _mm512_mul_pd(ih, ih));
    __m512d ql = nd_vm_sqrt_newton_pd(sl), qh = nd_vm_sqrt_newton_pd(sh);
    if (__builtin_expect((nd_vm_near_tie(ql) | nd_vm_near_tie(qh)) != 0, 0)) {
        ql = _mm512_sqrt_pd(sl); /* the correctly rounded root decides */
        qh = _mm512_sqrt_pd(sh);
    }
    const __m512 q = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(ql)), _mm512_cvtpd_ps(qh), 1);
    /* an infinite part gives inf, a NaN in the other or not (fpclass 0x18: +-inf) */
    const __mmask16 inf = _mm512_fpclass_ps_mask(re, 0x18) | _mm512_fpclass_ps_mask(im, 0x18);
    return _mm512_mask_mov_ps(q, inf, _mm512_set1_ps(__builtin_inff()));
}

ND_ISA_TARGET_AVX512 static void nd_vm_abs_c64_avx512(float *o, const void *a_, int64_t n)
{
    const float *a = (const float *)a_;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(o + i, nd_vm_abs16_c64(_mm512_loadu_ps(a + 2 * i), _mm512_loadu_ps(a + 2 * i + 16)));
    if (i < n) { /* the tail: masked loads (zeros beyond it) and store */
        const int64_t m = n - i;
        const __mmask16 k0 = m >= 8 ? (__mmask16)0xffff : (__mmask16)((1u << (2 * m)) - 1u);
        const __mmask16 k1 = m > 8 ? (__mmask16)((1u << (2 * (m - 8))) - 1u) : (__mmask16)0;
        const __m512 q = nd_vm_abs16_c64(_mm512_maskz_loadu_ps(k0, a + 2 * i), _mm512_maskz_loadu_ps(k1, a + 2 * i + 16));
        _mm512_mask_storeu_ps(o + i, (__mmask16)((1u << m) - 1u), q);
    }
}

/* ------------------------------------------------------------------ */
/* float64 exp, tanh and sigmoid on the AVX-512 path                    */
/* ------------------------------------------------------------------ */
/* exp of 8 doubles: x = n ln2 + r with n = round(x / ln2) and |r| <= ln2/2
 * (Cody-Waite: ln2_hi has 11 trailing zero bits, so n ln2_hi is exact for
 * |n| < 2^11), e^r by its Taylor series to degree 12 (Horner with FMAs:
 * truncation below 0.8 ulp at |r| = ln2/2), and 2^n applied by vscalefpd,
 * which rounds the product once, subnormal results included. x is clamped
 * to [-746, 710] first (beyond, the result is 0 or inf either way); a NaN
 * passes the clamps (vmaxpd/vminpd return their second operand then) and
 * gives a NaN. 0.82 ns per element against libmvec's 1.22 on an AMD EPYC
 * (Zen 4), one thread, data in L1: the hot loop is its 18 vector
 * operations, libmvec's takes a table path and more. */
ND_ISA_TARGET_AVX512 static inline __m512d nd_vm_exp8(__m512d x)
{
    const __m512d xc = _mm512_min_pd(_mm512_set1_pd(710.0), _mm512_max_pd(_mm512_set1_pd(-746.0), x));
    const __m512d n = _mm512_roundscale_pd(_mm512_mul_pd(xc, _mm512_set1_pd(1.4426950408889634)),
                                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512d r = _mm512_fnmadd_pd(n, _mm512_set1_pd(0x1.62e42fefa3800p-1), xc);
    r = _mm512_fnmadd_pd(n, _mm512_set1_pd(0x1.ef35793c7673p-45), r);
    __m512d p = _mm512_set1_pd(1.0 / 479001600.0);
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 39916800.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 3628800.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 362880.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 40320.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 5040.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 720.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 120.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 24.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0 / 6.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0.5));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.0));
    return _mm512_scalef_pd(p, n);
}

/* tanh of 8 doubles, Cephes' method as the libmvec-based kernel
 * (vmath_mvec.c) with the exp above inlined: for |x| <= 0.625, x + x z
 * P(z) / Q(z) with z = x^2; above, 1 - 2 / (exp(2|x|) + 1) with x's sign,
 * |x| clamped at 22; one division serves both. +-0 and subnormals give
 * themselves, a NaN the input's NaN, quietened. */
ND_ISA_TARGET_AVX512 static inline __m512d nd_vm_tanh8(__m512d x)
{
    const __m512d t = _mm512_abs_pd(x), z = _mm512_mul_pd(x, x);
    const __mmask8 small = _mm512_cmp_pd_mask(t, _mm512_set1_pd(0.625), _CMP_LE_OQ);
    const __m512d e = nd_vm_exp8(_mm512_add_pd(_mm512_min_pd(t, _mm512_set1_pd(22.0)), _mm512_min_pd(t, _mm512_set1_pd(22.0))));
    __m512d p = _mm512_fmadd_pd(_mm512_set1_pd(-9.64399179425052238628e-1), z, _mm512_set1_pd(-9.92877231001918586564e1));
    p = _mm512_fmadd_pd(p, z, _mm512_set1_pd(-1.61468768441708447952e3));
    __m512d q = _mm512_add_pd(z, _mm512_set1_pd(1.12811678491632931402e2));
    q = _mm512_fmadd_pd(q, z, _mm512_set1_pd(2.23548839060100448583e3));
    q = _mm512_fmadd_pd(q, z, _mm512_set1_pd(4.84406305325125486048e3));
    const __m512d num = _mm512_mask_mov_pd(_mm512_set1_pd(2.0), small, _mm512_mul_pd(z, p));
    const __m512d den = _mm512_mask_mov_pd(_mm512_add_pd(e, _mm512_set1_pd(1.0)), small, q);
    const __m512d r = _mm512_div_pd(num, den);
    const __m512d sign = _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(x), _mm512_set1_epi64(INT64_MIN)));
    const __m512d big = _mm512_or_pd(_mm512_sub_pd(_mm512_set1_pd(1.0), r), sign);
    const __mmask8 zero = _mm512_cmp_pd_mask(t, _mm512_setzero_pd(), _CMP_EQ_OQ);
    __m512d y = _mm512_mask_mov_pd(big, small, _mm512_fmadd_pd(x, r, x));
    y = _mm512_mask_mov_pd(y, zero, x); /* keeps -0 */
    const __mmask8 nan = _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q);
    return _mm512_mask_mov_pd(y, nan, _mm512_add_pd(x, x));
}

/* sigmoid of 8 doubles, as the scalar body in src/shared/ops_math.h: with
 * e = exp(-|x|) (never overflows), 1/(1+e) for x >= 0 and e/(1+e) below;
 * a NaN gives the input's NaN, quietened. */
ND_ISA_TARGET_AVX512 static inline __m512d nd_vm_sigmoid8(__m512d x)
{
    const __m512d e = nd_vm_exp8(_mm512_sub_pd(_mm512_setzero_pd(), _mm512_abs_pd(x)));
    const __mmask8 pos = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_GE_OQ);
    const __m512d y = _mm512_div_pd(_mm512_mask_mov_pd(e, pos, _mm512_set1_pd(1.0)), _mm512_add_pd(e, _mm512_set1_pd(1.0)));
    const __mmask8 nan = _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q);
    return _mm512_mask_mov_pd(y, nan, _mm512_add_pd(x, x));
}

/* whole vectors, then the tail through the same function (masked load:
 * zeros beyond the end, never stored) */
#define ND_VM_LOOP8(name)                                                                          \
    ND_ISA_TARGET_AVX512 static void nd_vm_##name##_f64_avx512(void *o_, const void *a_, int64_t n) \
    {                                                                                              \
        double *o = (double *)o_;                                                                  \
        const double *a = (const double *)a_;                                                      \
        int64_t i = 0;                                                                             \
        for (; i + 8 <= n; i += 8) _mm512_storeu_pd(o + i, nd_vm_##name##8(_mm512_loadu_pd(a + i)));  \
        if (i < n) {                                                                               \
            const __mmask8 k = (__mmask8)((1u << (n - i)) - 1u);                                    \
            _mm512_mask_storeu_pd(o + i, k, nd_vm_##name##8(_mm512_maskz_loadu_pd(k, a + i)));      \
        }                                                                                          \
    }                                                                                              \
    static const nd_vmath_kernel nd_vk_##name##_f64_avx512 = {nd_vm_##name##_f64_avx512, "nd"};
ND_VM_LOOP8(exp)
ND_VM_LOOP8(tanh)
ND_VM_LOOP8(sigmoid)

/* ------------------------------------------------------------------ */
/* float32 tanh on the AVX-512 and AVX2 paths                           */
/* ------------------------------------------------------------------ */
/* One formula over the whole range (no branch between small and large
 * arguments, one division): with t = |x| and e = exp(-2t),
 *   tanh(t) = (1 - e) / (1 + e) = h / d,  h = (1 - e) / 2,  d = (1 + e) / 2.
 * n = round(-2t / ln2) (in [-27, 0]) and s = t + n ln2/2 (in [-ln2/4,
 * ln2/4]; one FMA with ln2/2 rounded to float: its part below would move
 * tanh by under 0.06 ulp), so that e = 2^n exp(-2s) and, with g(s) =
 * (1 - exp(-2s)) / 2 = s + s^2 G(s),
 *   h = 2^n g + (1/2 - 2^(n-1)),   d = (1/2 + 2^(n-1)) - 2^n g,
 * each one FMA from g with an exact constant (n >= -25; below, t > 8.83,
 * where tanh is within 0.7 ulp of 1). For n = 0 (t < ln2/4) h is g itself:
 * small arguments lose nothing to cancellation, tiny ones give t. G has
 * degree 4, fitted for the least relative error of g over the reduced
 * range (1.7e-8, 0.29 units of 2^-24, with the coefficients rounded to
 * float: tests/vmath_fit.py; degree 3 gives 7.6 units). 2^n and
 * 2^(n-1) come from the bits of the rounding sum (its magic constant
 * 1.5 2^23 + 127 leaves n + 127 in the low bits). t is clamped to 9.5 first (tanh rounds to 1 from
 * 9.0109); the sign of x goes back last (-0 gives -0) and a NaN gives
 * x + x, as the scalar body. Exhaustively (all 2^32 inputs) within 1.93
 * ulp of tanh (src/cpu/vmath.h): the roundings of h, d and the quotient,
 * largest around t = 0.52, where tanh is just below 1/2 (its ulp the
 * smallest relative to it). Measured on an AMD EPYC
 * (Zen 4), 4096 floats in L1, one thread, ns per element: AVX-512 0.25
 * against libmvec's 0.38 (its expf: 0.28), AVX2 0.36 against 0.74;
 * vrcp14ps with a Newton step and a residual correction instead of the
 * division took 0.37, a second Cody-Waite step (ln2/2's low part) 0.27. */
#define ND_VM_TANHF_MAGIC 12583039.0f        /* 0x1.8p23 + 127 */
#define ND_VM_TANHF_CLAMP 9.5f
#define ND_VM_TANHF_M2LOG2E -2.885390043e+00f /* -2 / ln2 */
#define ND_VM_TANHF_LN2H 3.465735912e-01f     /* ln2 / 2 */
#define ND_VM_TANHF_G0 -9.999999404e-01f
#define ND_VM_TANHF_G1 6.666616797e-01f
#define ND_VM_TANHF_G2 -3.333376348e-01f
#define ND_VM_TANHF_G3 1.338663548e-01f
#define ND_VM_TANHF_G4 -4.442398995e-02f

ND_ISA_TARGET_AVX512 static inline __m512 nd_vm_tanh16(__m512 x)
{
    /* vrangeps 0x0a: the smaller magnitude of x and the clamp, sign cleared */
    const __m512 t = _mm512_range_ps(x, _mm512_set1_ps(ND_VM_TANHF_CLAMP), 0x0a);
    const __m512 kf = _mm512_fmadd_ps(t, _mm512_set1_ps(ND_VM_TANHF_M2LOG2E), _mm512_set1_ps(ND_VM_TANHF_MAGIC));
    const __m512 nf = _mm512_sub_ps(kf, _mm512_set1_ps(ND_VM_TANHF_MAGIC));
    const __m512i sb = _mm512_slli_epi32(_mm512_castps_si512(kf), 23);
    const __m512 scale = _mm512_castsi512_ps(sb);                                               /* 2^n */
    const __m512 hs = _mm512_castsi512_ps(_mm512_sub_epi32(sb, _mm512_set1_epi32(1 << 23))); /* 2^(n-1) */
    const __m512 s = _mm512_fmadd_ps(nf, _mm512_set1_ps(ND_VM_TANHF_LN2H), t);
    __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(ND_VM_TANHF_G4), s, _mm512_set1_ps(ND_VM_TANHF_G3));
    q = _mm512_fmadd_ps(q, s, _mm512_set1_ps(ND_VM_TANHF_G2));
    q = _mm512_fmadd_ps(q, s, _mm512_set1_ps(ND_VM_TANHF_G1));
    q = _mm512_fmadd_ps(q, s, _mm512_set1_ps(ND_VM_TANHF_G0));
    const __m512 g = _mm512_fmadd_ps(q, _mm512_mul_ps(s, s), s);
    const __m512 half = _mm512_set1_ps(0.5f);
    const __m512 h = _mm512_fmadd_ps(scale, g, _mm512_sub_ps(half, hs));
    const __m512 d = _mm512_fnmadd_ps(scale, g, _mm512_add_ps(half, hs));
    const __m512 y = _mm512_div_ps(h, d);
    /* y | (x & sign): the sign of x back */
    const __m512 r = _mm512_castsi512_ps(
        _mm512_ternarylogic_epi32(_mm512_castps_si512(y), _mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN), 0xf8));
    return _mm512_mask_add_ps(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x, x);
}

/* The same on 8 lanes with AVX2 + FMA only */
ND_ISA_TARGET_AVX2 static inline __m256 nd_vm_tanh8f(__m256 x)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    const __m256 t = _mm256_min_ps(_mm256_andnot_ps(sign, x), _mm256_set1_ps(ND_VM_TANHF_CLAMP));
    const __m256 kf = _mm256_fmadd_ps(t, _mm256_set1_ps(ND_VM_TANHF_M2LOG2E), _mm256_set1_ps(ND_VM_TANHF_MAGIC));
    const __m256 nf = _mm256_sub_ps(kf, _mm256_set1_ps(ND_VM_TANHF_MAGIC));
    const __m256i sb = _mm256_slli_epi32(_mm256_castps_si256(kf), 23);
    const __m256 scale = _mm256_castsi256_ps(sb);
    const __m256 hs = _mm256_castsi256_ps(_mm256_sub_epi32(sb, _mm256_set1_epi32(1 << 23)));
    const __m256 s = _mm256_fmadd_ps(nf, _mm256_set1_ps(ND_VM_TANHF_LN2H), t);
    __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(ND_VM_TANHF_G4), s, _mm256_set1_ps(ND_VM_TANHF_G3));
    q = _mm256_fmadd_ps(q, s, _mm256_set1_ps(ND_VM_TANHF_G2));
    q = _mm256_fmadd_ps(q, s, _mm256_set1_ps(ND_VM_TANHF_G1));
    q = _mm256_fmadd_ps(q, s, _mm256_set1_ps(ND_VM_TANHF_G0));
    const __m256 g = _mm256_fmadd_ps(q, _mm256_mul_ps(s, s), s);
    const __m256 half = _mm256_set1_ps(0.5f);
    const __m256 h = _mm256_fmadd_ps(scale, g, _mm256_sub_ps(half, hs));
    const __m256 d = _mm256_fnmadd_ps(scale, g, _mm256_add_ps(half, hs));
    const __m256 r = _mm256_or_ps(_mm256_div_ps(h, d), _mm256_and_ps(sign, x));
    return _mm256_blendv_ps(r, _mm256_add_ps(x, x), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}


/* ------------------------------------------------------------------ */
/* float32 sigmoid on the AVX-512 and AVX2 paths                        */
/* ------------------------------------------------------------------ */
/* As the scalar body (src/shared/ops_math.h): e = exp(-|x|), never
 * overflowing, then 1/(1+e) for x >= 0 and e/(1+e) below, one division.
 * |x| is clamped to 104 (exp(-104) < 2^-150 rounds to +0); -|x| = n ln2 + r
 * with n = round(-|x| / ln2) in [-150, 0] and |r| <= ln2/2 (Cody-Waite in
 * two FMAs, the first exact), exp(r) = 1 + r P(r) with P of degree 5
 * fitted for the least relative error of exp over the range (1.8e-8, 0.31
 * units of 2^-24 with the coefficients in float: tests/vmath_fit.py), and
 * 2^n applied so that a subnormal e rounds once (vscalefps on AVX-512; two
 * factors 2^(n/2) on AVX2, as the scalar body). sigmoid(+-0) = 1/2,
 * sigmoid(+inf) = 1, sigmoid(-inf) = +0, and a NaN gives x + x.
 * Exhaustively within 2.40 ulp (x < 0: the roundings of e, 1 + e and the
 * quotient; libmvec's expf composed so gave 3.63). Measured as tanh
 * above: AVX-512 0.26 ns an element against libmvec's expf composed 0.49,
 * AVX2 0.46 against 0.63. */
#define ND_VM_SIGF_CLAMP 104.0f
#define ND_VM_SIGF_LOG2E 1.442695022e+00f
#define ND_VM_SIGF_LN2_HI 6.931471825e-01f  /* 0x1.62e43p-1 */
#define ND_VM_SIGF_LN2_LO -1.904654212e-09f /* ln2 - the above */
#define ND_VM_SIGF_P0 1.000000000e+00f
#define ND_VM_SIGF_P1 4.999999404e-01f
#define ND_VM_SIGF_P2 1.666642874e-01f
#define ND_VM_SIGF_P3 4.166801274e-02f
#define ND_VM_SIGF_P4 8.374316618e-03f
#define ND_VM_SIGF_P5 1.384346629e-03f

ND_ISA_TARGET_AVX512 static inline __m512 nd_vm_sigmoid16(__m512 x)
{
    /* vrangeps 0x0e: the smaller magnitude of x and the clamp, sign set: -|x| */
    const __m512 a = _mm512_range_ps(x, _mm512_set1_ps(ND_VM_SIGF_CLAMP), 0x0e);
    const __m512 nf = _mm512_roundscale_ps(_mm512_mul_ps(a, _mm512_set1_ps(ND_VM_SIGF_LOG2E)),
                                           _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(nf, _mm512_set1_ps(ND_VM_SIGF_LN2_HI), a);
    r = _mm512_fnmadd_ps(nf, _mm512_set1_ps(ND_VM_SIGF_LN2_LO), r);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(ND_VM_SIGF_P5), r, _mm512_set1_ps(ND_VM_SIGF_P4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(ND_VM_SIGF_P3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(ND_VM_SIGF_P2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(ND_VM_SIGF_P1));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(ND_VM_SIGF_P0));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
    const __m512 e = _mm512_scalef_ps(p, nf);
    const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ);
    const __m512 y = _mm512_div_ps(_mm512_mask_mov_ps(e, pos, _mm512_set1_ps(1.0f)),
                                   _mm512_add_ps(e, _mm512_set1_ps(1.0f)));
    return _mm512_mask_add_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x, x);
}

/* The same on 8 lanes with AVX2 + FMA only */
ND_ISA_TARGET_AVX2 static inline __m256 nd_vm_sigmoid8f(__m256 x)
{
    /* -|x| (x | sign), clamped; a NaN becomes the clamp (vmaxps gives its
     * second operand) and is put back last */
    const __m256 a = _mm256_max_ps(_mm256_or_ps(x, _mm256_set1_ps(-0.0f)), _mm256_set1_ps(-ND_VM_SIGF_CLAMP));
    const __m256 nf = _mm256_round_ps(_mm256_mul_ps(a, _mm256_set1_ps(ND_VM_SIGF_LOG2E)),
                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(nf, _mm256_set1_ps(ND_VM_SIGF_LN2_HI), a);
    r = _mm256_fnmadd_ps(nf, _mm256_set1_ps(ND_VM_SIGF_LN2_LO), r);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(ND_VM_SIGF_P5), r, _mm256_set1_ps(ND_VM_SIGF_P4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(ND_VM_SIGF_P3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(ND_VM_SIGF_P2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(ND_VM_SIGF_P1));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(ND_VM_SIGF_P0));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    /* 2^n as 2^n1 2^n2, n1 = floor(n/2), n2 = n - n1, both in [-75, 0] */
    const __m256i n = _mm256_cvtps_epi32(nf), n1 = _mm256_srai_epi32(n, 1), n2 = _mm256_sub_epi32(n, n1);
    const __m256i bias = _mm256_set1_epi32(127);
    const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
    const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
    const __m256 e = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 num = _mm256_blendv_ps(e, one, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
    const __m256 y = _mm256_div_ps(num, _mm256_add_ps(e, one));
    return _mm256_blendv_ps(y, _mm256_add_ps(x, x), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

/* whole vectors, then the tail through the same function (masked load:
 * zeros beyond the end, never stored) */
#define ND_VM_LOOP_F32(name)                                                                             \
    ND_ISA_TARGET_AVX512 static void nd_vm_##name##_f32_avx512(void *o_, const void *a_, int64_t n)       \
    {                                                                                                    \
        float *o = (float *)o_;                                                                          \
        const float *a = (const float *)a_;                                                              \
        int64_t i = 0;                                                                                   \
        for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, nd_vm_##name##16(_mm512_loadu_ps(a + i)));  \
        if (i < n) {                                                                                     \
            const __mmask16 k = (__mmask16)((1u << (n - i)) - 1u);                                        \
            _mm512_mask_storeu_ps(o + i, k, nd_vm_##name##16(_mm512_maskz_loadu_ps(k, a + i)));           \
        }                                                                                                \
    }                                                                                                    \
    ND_ISA_TARGET_AVX2 static void nd_vm_##name##_f32_avx2(void *o_, const void *a_, int64_t n)           \
    {                                                                                                    \
        float *o = (float *)o_;                                                                          \
        const float *a = (const float *)a_;                                                              \
        int64_t i = 0;                                                                                   \
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, nd_vm_##name##8f(_mm256_loadu_ps(a + i)));    \
        if (i < n) {                                                                                     \
            const __m256i k =                                                                            \
                _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - i)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); \
            _mm256_maskstore_ps(o + i, k, nd_vm_##name##8f(_mm256_maskload_ps(a + i, k)));                \
        }                                                                                                \
    }                                                                                                    \
    static const nd_vmath_kernel nd_vk_##name##_f32_avx512 = {nd_vm_##name##_f32_avx512, "nd"};           \
    static const nd_vmath_kernel nd_vk_##name##_f32_avx2 = {nd_vm_##name##_f32_avx2, "nd"};
ND_VM_LOOP_F32(tanh)
ND_VM_LOOP_F32(sigmoid)
#endif

nd_vmath_abs_c64_fn nd__vmath_abs_c64(nd_cpu_isa isa)
{
#if ND_ISA_X86
    if (isa >= ND_ISA_AVX512) return nd_vm_abs_c64_avx512;
#endif
    (void)isa;
    return NULL;
}

const nd_vmath_kernel *nd__vmath(nd_cpu_isa isa, nd_unary_op op, nd_dtype t)
{
    if ((unsigned)isa >= ND_ISA_N || (t != ND_FLOAT32 && t != ND_FLOAT64)) return NULL;
#if ND_ISA_X86
    if (isa >= ND_ISA_AVX512 && t == ND_FLOAT64) switch (op) {
        case ND_UNARY_EXP: return &nd_vk_exp_f64_avx512;
        case ND_UNARY_TANH: return &nd_vk_tanh_f64_avx512;
        case ND_UNARY_SIGMOID: return &nd_vk_sigmoid_f64_avx512;
        default: break;
        }
    if (op == ND_UNARY_TANH && t == ND_FLOAT32 && isa != ND_ISA_BASELINE)
        return isa >= ND_ISA_AVX512 ? &nd_vk_tanh_f32_avx512 : &nd_vk_tanh_f32_avx2;
    if (op == ND_UNARY_SIGMOID && t == ND_FLOAT32 && isa != ND_ISA_BASELINE)
        return isa >= ND_ISA_AVX512 ? &nd_vk_sigmoid_f32_avx512 : &nd_vk_sigmoid_f32_avx2;
#endif
    if (op == ND_UNARY_ERF || op == ND_UNARY_GELU || op == ND_UNARY_SILU || op == ND_UNARY_LGAMMA ||
        op == ND_UNARY_DIGAMMA)
        return nd__vmath_special(isa, op, t);
    const nd_vmath_kernel *k = isa != ND_ISA_BASELINE ? nd__vmath_mvec(isa, op, t) : NULL;
    if (k || t != ND_FLOAT32) return k;
    switch (op) { /* the baseline path, or a build without libmvec */
    case ND_UNARY_EXP: return &nd_vk_exp_base;
    case ND_UNARY_TANH: return &nd_vk_tanh_base;
    case ND_UNARY_SIGMOID: return &nd_vk_sigmoid_base;
    default: return NULL;
    }
}
