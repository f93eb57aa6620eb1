/*
 * glibc's libmvec as vector kernels (see src/cpu/vmath.h).
 *
 * libmvec (glibc >= 2.35 on x86-64 has every function used here; `-lm`
 * links it: libm.so is a linker script naming libmvec AS_NEEDED) exports
 * the vector variants of the x86-64 vector function ABI:
 *   _ZGVeN8v_<f>  / _ZGVeN16v_<f>f   AVX-512, one zmm of double / float
 *   _ZGVdN4v_<f>  / _ZGVdN8v_<f>f    AVX2,    one ymm of double / float
 * We declare them ourselves (math.h only declares them for -fopenmp
 * -ffast-math style auto-vectorisation, which the build does not use) with
 * GCC vector types, which have the ABI of __m512d / __m256 etc., and call
 * them from functions compiled for that ISA only. Each call computes every
 * lane independently (lanes with special inputs go through libmvec's
 * scalar fallback, which depends on that lane's value only).
 */
#pragma GCC optimize("no-trapping-math") /* lets gcc if-convert sigmoid's select; no result changes */
#include <stdlib.h> /* glibc: features.h, __GLIBC_PREREQ */
#include <string.h>

#include "cpu/vmath.h"

#if ND_ISA_X86 && defined(__x86_64__) && defined(__GLIBC_PREREQ) && !defined(ND_NO_LIBMVEC)
#if __GLIBC_PREREQ(2, 35)
#define ND_VM_HAVE_MVEC 1
#endif
#endif

#ifdef ND_VM_HAVE_MVEC
#include <immintrin.h>

typedef __m512d nd_v8d;
typedef __m512 nd_v16f;
typedef __m256d nd_v4d;
typedef __m256 nd_v8f;

/* A tail of m < W items at p as one vector: masked loads and stores (they
 * never touch the lanes beyond m, which take a copy of p[0], so they see
 * an ordinary argument). */
#define ND_VM_K16(m) ((__mmask16)((1u << (m)) - 1u))
#define ND_VM_K8(m) ((__mmask8)((1u << (m)) - 1u))
#define ND_VM_LOADT_avx512_f32(p, m) _mm512_mask_loadu_ps(_mm512_set1_ps((p)[0]), ND_VM_K16(m), (p))
#define ND_VM_STORET_avx512_f32(p, m, v) _mm512_mask_storeu_ps((p), ND_VM_K16(m), (v))
#define ND_VM_LOADT_avx512_f64(p, m) _mm512_mask_loadu_pd(_mm512_set1_pd((p)[0]), ND_VM_K8(m), (p))
#define ND_VM_STORET_avx512_f64(p, m, v) _mm512_mask_storeu_pd((p), ND_VM_K8(m), (v))
#define ND_VM_M32(m) _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(m)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define ND_VM_M64(m) _mm256_cmpgt_epi64(_mm256_set1_epi64x((m)), _mm256_setr_epi64x(0, 1, 2, 3))
#define ND_VM_LOADT_avx2_f32(p, m) \
    _mm256_blendv_ps(_mm256_set1_ps((p)[0]), _mm256_maskload_ps((p), ND_VM_M32(m)), _mm256_castsi256_ps(ND_VM_M32(m)))
#define ND_VM_STORET_avx2_f32(p, m, v) _mm256_maskstore_ps((p), ND_VM_M32(m), (v))
#define ND_VM_LOADT_avx2_f64(p, m) \
    _mm256_blendv_pd(_mm256_set1_pd((p)[0]), _mm256_maskload_pd((p), ND_VM_M64(m)), _mm256_castsi256_pd(ND_VM_M64(m)))
#define ND_VM_STORET_avx2_f64(p, m, v) _mm256_maskstore_pd((p), ND_VM_M64(m), (v))

#define ND_VM_MVEC_OPS ND_VMATH_MVEC_OPS /* (op, libm name), src/cpu/vmath.h */
#define ND_VM_MVEC_OPS2 ND_VMATH_MVEC_OPS2

/* A kernel over n elements: whole vectors, then the tail as one masked
 * vector through the same call. */
#define ND_VM_KERNEL(attr, isa, sfx, T, VT, W, op, sym)                                    \
    attr VT sym(VT);                                                                       \
    attr static void nd_vm_##op##_##sfx##_##isa(void *o_, const void *a_, int64_t n)       \
    {                                                                                      \
        T *o = (T *)o_;                                                                    \
        const T *a = (const T *)a_;                                                        \
        int64_t i = 0;                                                                     \
        VT v;                                                                              \
        for (; i + (W) <= n; i += (W)) {                                                   \
            memcpy(&v, a + i, sizeof v);                                                   \
            v = sym(v);                                                                    \
            memcpy(o + i, &v, sizeof v);                                                   \
        }                                                                                  \
        if (i < n) {                                                                       \
            v = sym(ND_VM_LOADT_##isa##_##sfx(a + i, n - i));                              \
            ND_VM_STORET_##isa##_##sfx(o + i, n - i, v);                                   \
        }                                                                                  \
    }                                                                                      \
    static const nd_vmath_kernel nd_vk_##op##_##sfx##_##isa = {nd_vm_##op##_##sfx##_##isa, "libmvec"};

#define ND_VM_K512(E, fn)                                                                    \
    ND_VM_KERNEL(ND_ISA_TARGET_AVX512, avx512, f64, double, nd_v8d, 8, fn, _ZGVeN8v_##fn)     \
    ND_VM_KERNEL(ND_ISA_TARGET_AVX512, avx512, f32, float, nd_v16f, 16, fn, _ZGVeN16v_##fn##f)
#define ND_VM_K256(E, fn)                                                                    \
    ND_VM_KERNEL(ND_ISA_TARGET_AVX2, avx2, f64, double, nd_v4d, 4, fn, _ZGVdN4v_##fn)         \
    ND_VM_KERNEL(ND_ISA_TARGET_AVX2, avx2, f32, float, nd_v8f, 8, fn, _ZGVdN8v_##fn##f)
ND_VM_MVEC_OPS(ND_VM_K512)
ND_VM_MVEC_OPS(ND_VM_K256)

/* The binary ops (vv_: two vector arguments). */
#define ND_VM_KERNEL2(attr, isa, sfx, T, VT, W, op, sym)                                   \
    attr VT sym(VT, VT);                                                                   \
    attr static void nd_vm_##op##_##sfx##_##isa(void *o_, const void *a_, const void *b_, int64_t n) \
    {                                                                                      \
        T *o = (T *)o_;                                                                    \
        const T *a = (const T *)a_, *b = (const T *)b_;                                    \
        int64_t i = 0;                                                                     \
        VT u, v;                                                                           \
        for (; i + (W) <= n; i += (W)) {                                                   \
            memcpy(&u, a + i, sizeof u);                                                   \
            memcpy(&v, b + i, sizeof v);                                                   \
            u = sym(u, v);                                                                 \
            memcpy(o + i, &u, sizeof u);                                                   \
        }                                                                                  \
        if (i < n) {                                                                       \
            u = sym(ND_VM_LOADT_##isa##_##sfx(a + i, n - i), ND_VM_LOADT_##isa##_##sfx(b + i, n - i)); \
            ND_VM_STORET_##isa##_##sfx(o + i, n - i, u);                                   \
        }                                                                                  \
    }                                                                                      \
    static const nd_vmath_kernel2 nd_vk_##op##_##sfx##_##isa = {nd_vm_##op##_##sfx##_##isa, "libmvec"};

#define ND_VM_K512_2(E, fn)                                                                   \
    ND_VM_KERNEL2(ND_ISA_TARGET_AVX512, avx512, f64, double, nd_v8d, 8, fn, _ZGVeN8vv_##fn)    \
    ND_VM_KERNEL2(ND_ISA_TARGET_AVX512, avx512, f32, float, nd_v16f, 16, fn, _ZGVeN16vv_##fn##f)
#define ND_VM_K256_2(E, fn)                                                                   \
    ND_VM_KERNEL2(ND_ISA_TARGET_AVX2, avx2, f64, double, nd_v4d, 4, fn, _ZGVdN4vv_##fn)        \
    ND_VM_KERNEL2(ND_ISA_TARGET_AVX2, avx2, f32, float, nd_v8f, 8, fn, _ZGVdN8vv_##fn##f)
ND_VM_MVEC_OPS2(ND_VM_K512_2)
ND_VM_MVEC_OPS2(ND_VM_K256_2)

/* Kernels composed from the exp kernel: blocks of ND_VM_SBLK elements, e[j]
 * = ARG (x = a[i0 + j]) for the block, exp (the kernel of suffix esfx)
 * over e in place, then o[i0 + j] = RESULT (x and e[j] in scope). The
 * helpers below are inlined into each ISA's loop and vectorised there. */
#define ND_VM_SBLK 256
#define ND_VM_FROM_EXP(name, attr, isa, sfx, esfx, T, impl, ARG, RESULT)                   \
    attr static void nd_vm_##name##_##sfx##_##isa(void *o_, const void *a_, int64_t n)    \
    {                                                                                      \
        T *o = (T *)o_;                                                                    \
        const T *a = (const T *)a_;                                                        \
        _Alignas(64) T e[ND_VM_SBLK];                                                      \
        for (int64_t i0 = 0; i0 < n; i0 += ND_VM_SBLK) {                                   \
            int64_t m = n - i0 < ND_VM_SBLK ? n - i0 : ND_VM_SBLK;                         \
            _Pragma("omp simd") for (int64_t j = 0; j < m; j++)                            \
            {                                                                              \
                const T x = a[i0 + j];                                                     \
                e[j] = (ARG);                                                              \
            }                                                                              \
            nd_vm_exp_##esfx##_##isa(e, e, m);                                             \
            _Pragma("omp simd") for (int64_t j = 0; j < m; j++)                            \
            {                                                                              \
                const T x = a[i0 + j];                                                     \
                o[i0 + j] = (RESULT);                                                      \
            }                                                                              \
        }                                                                                  \
    }                                                                                      \
    static const nd_vmath_kernel nd_vk_##name##_##sfx##_##isa = {nd_vm_##name##_##sfx##_##isa, impl};

/* sigmoid, as the scalar body in src/shared/ops_math.h: e = exp(-|x|) (never
 * overflows), 1/(1+e) for x >= 0, e/(1+e) below; NaN in gives the input's
 * NaN, quietened. */
__attribute__((always_inline)) static inline double nd_vm_sig_f64(double x, double e)
{
    double d = 1.0 + e, y = x >= 0 ? 1.0 / d : e / d;
    return x == x ? y : x + x;
}
__attribute__((always_inline)) static inline float nd_vm_sig_f32(float x, float e)
{
    float d = 1.0f + e, y = x >= 0 ? 1.0f / d : e / d;
    return x == x ? y : x + x;
}
#define ND_VM_SIGMOID(attr, isa, sfx, T, FABS) \
    ND_VM_FROM_EXP(sigmoid, attr, isa, sfx, sfx, T, "libmvec", -FABS(x), nd_vm_sig_##sfx(x, e[j]))
ND_VM_SIGMOID(ND_ISA_TARGET_AVX512, avx512, f64, double, __builtin_fabs)
ND_VM_SIGMOID(ND_ISA_TARGET_AVX512, avx512, f32, float, __builtin_fabsf)
ND_VM_SIGMOID(ND_ISA_TARGET_AVX2, avx2, f64, double, __builtin_fabs)
ND_VM_SIGMOID(ND_ISA_TARGET_AVX2, avx2, f32, float, __builtin_fabsf)

/* float64 tanh (libmvec's own vector tanh took about 10 cycles per element
 * on AVX-512, 3x its exp), Cephes' method: for |x| <= 0.625, x + x z P(z) /
 * Q(z) with z = x^2 (degrees 2 / 3, 2.5e-16 relative); above, 1 - 2 /
 * (exp(2|x|) + 1) with x's sign, |x| clamped at 22 (where tanh rounds to
 * 1; so exp never overflows). One division per element serves both
 * branches (its numerator and denominator are selected). NaN in gives the
 * input's NaN, quietened; +-0 and subnormals give themselves. Its table
 * name is "nd": our method, on libmvec's exp (e = exp(2|x|) here). */
__attribute__((always_inline)) static inline double nd_vm_tanh_from_exp(double x, double e)
{
    const double t = __builtin_fabs(x), z = x * x;
    const double p = (-9.64399179425052238628e-1 * z - 9.92877231001918586564e1) * z - 1.61468768441708447952e3;
    const double q = ((z + 1.12811678491632931402e2) * z + 2.23548839060100448583e3) * z + 4.84406305325125486048e3;
    const bool small = t <= 0.625;
    const double num = small ? z * p : 2.0, den = small ? q : e + 1.0;
    const double r = num / den;
    const double big = __builtin_copysign(1.0 - r, x);
    const double y = small ? (t == 0.0 ? x : x + x * r) : big; /* keeps -0 */
    return x == x ? y : x + x;
}
#define ND_VM_TANH64(attr, isa)                                                                          \
    ND_VM_FROM_EXP(tanh, attr, isa, f64x, f64, double, "nd",                                                  \
                   2.0 * (__builtin_fabs(x) < 22.0 ? __builtin_fabs(x) : 22.0), nd_vm_tanh_from_exp(x, e[j]))
ND_VM_TANH64(ND_ISA_TARGET_AVX512, avx512)
ND_VM_TANH64(ND_ISA_TARGET_AVX2, avx2)

#define ND_VM_CASE(E, f, isa, sfx) \
    case ND_UNARY_##E: return &nd_vk_##f##_##sfx##_##isa;
#define ND_VM_CASE_512_F64(E, f) ND_VM_CASE(E, f, avx512, f64)
#define ND_VM_CASE_512_F32(E, f) ND_VM_CASE(E, f, avx512, f32)
#define ND_VM_CASE_256_F64(E, f) ND_VM_CASE(E, f, avx2, f64)
#define ND_VM_CASE_256_F32(E, f) ND_VM_CASE(E, f, avx2, f32)

const nd_vmath_kernel *nd__vmath_mvec(nd_cpu_isa isa, nd_unary_op op, nd_dtype t)
{
    if (isa == ND_ISA_AVX512 && t == ND_FLOAT64) {
        if (op == ND_UNARY_TANH) return &nd_vk_tanh_f64x_avx512;
        switch (op) {
            ND_VM_MVEC_OPS(ND_VM_CASE_512_F64)
            ND_VM_CASE(SIGMOID, sigmoid, avx512, f64)
        default: return NULL;
        }
    }
    if (isa == ND_ISA_AVX512 && t == ND_FLOAT32) {
        switch (op) {
            ND_VM_MVEC_OPS(ND_VM_CASE_512_F32)
            ND_VM_CASE(SIGMOID, sigmoid, avx512, f32)
        default: return NULL;
        }
    }
    if (isa == ND_ISA_AVX2 && t == ND_FLOAT64) {
        if (op == ND_UNARY_TANH) return &nd_vk_tanh_f64x_avx2;
        switch (op) {
            ND_VM_MVEC_OPS(ND_VM_CASE_256_F64)
            ND_VM_CASE(SIGMOID, sigmoid, avx2, f64)
        default: return NULL;
        }
    }
    if (isa == ND_ISA_AVX2 && t == ND_FLOAT32) {
        switch (op) {
            ND_VM_MVEC_OPS(ND_VM_CASE_256_F32)
            ND_VM_CASE(SIGMOID, sigmoid, avx2, f32)
        default: return NULL;
        }
    }
    return NULL;
}
#define ND_VM_CASE2(E, f, isa, sfx) \
    case ND_BINARY_##E: return &nd_vk_##f##_##sfx##_##isa;
#define ND_VM_CASE2_512_F64(E, f) ND_VM_CASE2(E, f, avx512, f64)
#define ND_VM_CASE2_512_F32(E, f) ND_VM_CASE2(E, f, avx512, f32)
#define ND_VM_CASE2_256_F64(E, f) ND_VM_CASE2(E, f, avx2, f64)
#define ND_VM_CASE2_256_F32(E, f) ND_VM_CASE2(E, f, avx2, f32)

const nd_vmath_kernel2 *nd__vmath2(nd_cpu_isa isa, nd_binary_op op, nd_dtype t)
{
#define ND_VM_SW2(cases)                       \
    switch (op) {                              \
        ND_VM_MVEC_OPS2(cases)                 \
    default: return NULL;                      \
    }
    if (isa == ND_ISA_AVX512 && t == ND_FLOAT64) ND_VM_SW2(ND_VM_CASE2_512_F64)
    if (isa == ND_ISA_AVX512 && t == ND_FLOAT32) ND_VM_SW2(ND_VM_CASE2_512_F32)
    if (isa == ND_ISA_AVX2 && t == ND_FLOAT64) ND_VM_SW2(ND_VM_CASE2_256_F64)
    if (isa == ND_ISA_AVX2 && t == ND_FLOAT32) ND_VM_SW2(ND_VM_CASE2_256_F32)
#undef ND_VM_SW2
    return NULL;
}
#else
const nd_vmath_kernel *nd__vmath_mvec(nd_cpu_isa isa, nd_unary_op op, nd_dtype t)
{
    (void)isa, (void)op, (void)t;
    return NULL;
}

const nd_vmath_kernel2 *nd__vmath2(nd_cpu_isa isa, nd_binary_op op, nd_dtype t)
{
    (void)isa, (void)op, (void)t;
    return NULL;
}
#endif
