/*
 * Vector kernels of erf, gelu and silu for float32 and float64 on the AVX2
 * and AVX-512 paths (see src/cpu/vmath.h).
 *
 * Their bodies in src/shared/ops_special.h are split around their one exp:
 * nd_sf_<f>_arg(x) is its argument, nd_sf_<f>_fin(x, e) the result given
 * e = exp(arg), both branch-free. A kernel computes fin(x, exp(arg(x))) in
 * double in `omp simd` loops compiled for the path (float32 widened,
 * and its result rounded once, as its scalar body does), with the exp
 * below (erf, gelu) or libmvec's (silu) in place of libm's: so
 * the kernels compute the scalar bodies' formulas and differ from them
 * only by the exp. A block of ND_VS_BLK elements goes through arg and exp, then
 * through fin. The library never relies on FMA contraction, so the loop's
 * vector lanes and its scalar remainder compute the same bits, whatever
 * the length and alignment. The baseline path has no kernel (the scalar
 * loop runs there).
 *
 * no-trapping-math lets gcc if-convert the selects (it changes no result;
 * the library never observes floating-point exceptions); no-tree-pre keeps
 * the table loads unconditional (partial redundancy elimination made them
 * masked gathers, which gcc 12 does not vectorise).
 */
#pragma GCC optimize("no-trapping-math", "no-tree-pre")
#include <string.h>

#include "cpu/vmath.h"
#include "shared/ops_math.h"

#if ND_ISA_X86
/* 2^(j/64), j < 64, as a double and the rest (tools/gen_special_coeffs.py
 * --exp-table) */
static const double nd_vs_exp2tab[64][2] = {
    {0x1.0000000000000p+0, 0x0.0p+0},
    {0x1.02c9a3e778061p+0, -0x1.19083535b085dp-56},
    {0x1.059b0d3158574p+0, 0x1.d73e2a475b465p-55},
    {0x1.0874518759bc8p+0, 0x1.186be4bb284ffp-57},
    {0x1.0b5586cf9890fp+0, 0x1.8a62e4adc610bp-54},
    {0x1.0e3ec32d3d1a2p+0, 0x1.03a1727c57b53p-59},
    {0x1.11301d0125b51p+0, -0x1.6c51039449b3ap-54},
    {0x1.1429aaea92de0p+0, -0x1.32fbf9af1369ep-54},
    {0x1.172b83c7d517bp+0, -0x1.19041b9d78a76p-55},
    {0x1.1a35beb6fcb75p+0, 0x1.e5b4c7b4968e4p-55},
    {0x1.1d4873168b9aap+0, 0x1.e016e00a2643cp-54},
    {0x1.2063b88628cd6p+0, 0x1.dc775814a8495p-55},
    {0x1.2387a6e756238p+0, 0x1.9b07eb6c70573p-54},
    {0x1.26b4565e27cddp+0, 0x1.2bd339940e9d9p-55},
    {0x1.29e9df51fdee1p+0, 0x1.612e8afad1255p-55},
    {0x1.2d285a6e4030bp+0, 0x1.0024754db41d5p-54},
    {0x1.306fe0a31b715p+0, 0x1.6f46ad23182e4p-55},
    {0x1.33c08b26416ffp+0, 0x1.32721843659a6p-54},
    {0x1.371a7373aa9cbp+0, -0x1.63aeabf42eae2p-54},
    {0x1.3a7db34e59ff7p+0, -0x1.5e436d661f5e3p-56},
    {0x1.3dea64c123422p+0, 0x1.ada0911f09ebcp-55},
    {0x1.4160a21f72e2ap+0, -0x1.ef3691c309278p-58},
    {0x1.44e086061892dp+0, 0x1.89b7a04ef80d0p-59},
    {0x1.486a2b5c13cd0p+0, 0x1.3c1a3b69062f0p-56},
    {0x1.4bfdad5362a27p+0, 0x1.d4397afec42e2p-56},
    {0x1.4f9b2769d2ca7p+0, -0x1.4b309d25957e3p-54},
    {0x1.5342b569d4f82p+0, -0x1.07abe1db13cadp-55},
    {0x1.56f4736b527dap+0, 0x1.9bb2c011d93adp-54},
    {0x1.5ab07dd485429p+0, 0x1.6324c054647adp-54},
    {0x1.5e76f15ad2148p+0, 0x1.ba6f93080e65ep-54},
    {0x1.6247eb03a5585p+0, -0x1.383c17e40b497p-54},
    {0x1.6623882552225p+0, -0x1.bb60987591c34p-54},
    {0x1.6a09e667f3bcdp+0, -0x1.bdd3413b26456p-54},
    {0x1.6dfb23c651a2fp+0, -0x1.bbe3a683c88abp-57},
    {0x1.71f75e8ec5f74p+0, -0x1.16e4786887a99p-55},
    {0x1.75feb564267c9p+0, -0x1.0245957316dd3p-54},
    {0x1.7a11473eb0187p+0, -0x1.41577ee04992fp-55},
    {0x1.7e2f336cf4e62p+0, 0x1.05d02ba15797ep-56},
    {0x1.82589994cce13p+0, -0x1.d4c1dd41532d8p-54},
    {0x1.868d99b4492edp+0, -0x1.fc6f89bd4f6bap-54},
    {0x1.8ace5422aa0dbp+0, 0x1.6e9f156864b27p-54},
    {0x1.8f1ae99157736p+0, 0x1.5cc13a2e3976cp-55},
    {0x1.93737b0cdc5e5p+0, -0x1.75fc781b57ebcp-57},
    {0x1.97d829fde4e50p+0, -0x1.d185b7c1b85d1p-54},
    {0x1.9c49182a3f090p+0, 0x1.c7c46b071f2bep-56},
    {0x1.a0c667b5de565p+0, -0x1.359495d1cd533p-54},
    {0x1.a5503b23e255dp+0, -0x1.d2f6edb8d41e1p-54},
    {0x1.a9e6b5579fdbfp+0, 0x1.0fac90ef7fd31p-54},
    {0x1.ae89f995ad3adp+0, 0x1.7a1cd345dcc81p-54},
    {0x1.b33a2b84f15fbp+0, -0x1.2805e3084d708p-57},
    {0x1.b7f76f2fb5e47p+0, -0x1.5584f7e54ac3bp-56},
    {0x1.bcc1e904bc1d2p+0, 0x1.23dd07a2d9e84p-55},
    {0x1.c199bdd85529cp+0, 0x1.11065895048ddp-55},
    {0x1.c67f12e57d14bp+0, 0x1.2884dff483cadp-54},
    {0x1.cb720dcef9069p+0, 0x1.503cbd1e949dbp-56},
    {0x1.d072d4a07897cp+0, -0x1.cbc3743797a9cp-54},
    {0x1.d5818dcfba487p+0, 0x1.2ed02d75b3707p-55},
    {0x1.da9e603db3285p+0, 0x1.c2300696db532p-54},
    {0x1.dfc97337b9b5fp+0, -0x1.1a5cd4f184b5cp-54},
    {0x1.e502ee78b3ff6p+0, 0x1.39e8980a9cc8fp-55},
    {0x1.ea4afa2a490dap+0, -0x1.e9c23179c2893p-54},
    {0x1.efa1bee615a27p+0, 0x1.dc7f486a4b6b0p-54},
    {0x1.f50765b6e4540p+0, 0x1.9d3e12dd8a18bp-54},
    {0x1.fa7c1819e90d8p+0, 0x1.74853f3a5931ep-55},
};

/* exp(x), branch-free: x = (64k + j) ln2/64 + r with |r| <= ln2/128
 * (round by the 1.5*2^52 shifter; Cody-Waite, the high part of ln2/64 has
 * 36 bits so kd times it is exact), e^r - 1 by its Taylor series to
 * degree 6 (truncation 3e-20), 2^(j/64) from the table with its tail, and
 * 2^k applied as two factors so that a subnormal result is rounded once.
 * Within about 0.52 ulp; x clamped to [-746, 710] (0 and inf beyond); a
 * NaN gives a finite value (the callers select NaN themselves). */
__attribute__((always_inline)) static inline double nd_vs_exp(double x)
{
    const double shift = 0x1.8p52;
    double xc = x < -746.0 ? -746.0 : x;
    xc = xc > 710.0 ? 710.0 : xc;
    xc = x == x ? xc : 0.0;
    double kd = xc * 0x1.71547652b82fep+6 + shift; /* 64/ln2 */
    uint64_t ki;
    memcpy(&ki, &kd, sizeof ki);
    kd -= shift;
    const double r = (xc - kd * 0x1.62e42fefa0000p-7) - kd * 0x1.cf79abc9e3b3ap-46; /* ln2/64: hi + lo */
    const int64_t nk = (int64_t)(ki - UINT64_C(0x4338000000000000));                 /* round(64 x / ln2) */
    const int64_t j = nk & 63, k = (nk - j) / 64, k1 = k / 2, k2 = k - k1;
    const double p = r + (r * r) * (0.5 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720)))));
    const double th = nd_vs_exp2tab[j][0], tl = nd_vs_exp2tab[j][1];
    const double s = th + (tl + th * p);
    const uint64_t b1 = (uint64_t)(k1 + 1023) << 52, b2 = (uint64_t)(k2 + 1023) << 52;
    double f1, f2;
    memcpy(&f1, &b1, sizeof f1);
    memcpy(&f2, &b2, sizeof f2);
    return (s * f1) * f2;
}

/* blocks of ND_VS_BLK: x and the argument e = arg(x) in one loop, e =
 * exp(e) (EXPSTEP), fin in another loop (gcc if-converts and vectorises
 * them apart, not fused). EXPSTEP is either our exp above (erf, gelu: their
 * tails need its accuracy) or libmvec's float64 exp (silu: within its 4
 * ulp with it, at about half the cost; nd__vmath_mvec). */
#define ND_VS_BLK 256
#define ND_VS_EXP_OURS(isa, e, m) _Pragma("omp simd") for (int64_t j = 0; j < (m); j++) (e)[j] = nd_vs_exp((e)[j]);
#define ND_VS_EXP_KERNEL(isa, e, m) nd__vmath_mvec(isa, ND_UNARY_EXP, ND_FLOAT64)->fn((e), (e), (m));
#define ND_VS_KERNEL(name, argf, finf, EXPSTEP, attr, isa, ISA, sfx, T)                        \
    attr static void nd_vs_##name##_##sfx##_##isa(void *o_, const void *a_, int64_t n)         \
    {                                                                                           \
        T *o = (T *)o_;                                                                         \
        const T *a = (const T *)a_;                                                             \
        _Alignas(64) double x[ND_VS_BLK];                                                       \
        _Alignas(64) double e[ND_VS_BLK];                                                       \
        for (int64_t i0 = 0; i0 < n; i0 += ND_VS_BLK) {                                        \
            const int64_t m = n - i0 < ND_VS_BLK ? n - i0 : ND_VS_BLK;                          \
            _Pragma("omp simd") for (int64_t j = 0; j < m; j++)                                 \
            {                                                                                   \
                x[j] = (double)a[i0 + j];                                                       \
                e[j] = argf(x[j]);                                                              \
            }                                                                                   \
            EXPSTEP(ISA, e, m)                                                                  \
            _Pragma("omp simd") for (int64_t j = 0; j < m; j++) o[i0 + j] = (T)finf(x[j], e[j]); \
        }                                                                                       \
    }                                                                                           \
    static const nd_vmath_kernel nd_vk_##name##_##sfx##_##isa = {nd_vs_##name##_##sfx##_##isa, "nd"};

#define ND_VS_OP(name, argf, finf, EXPSTEP)                                                     \
    ND_VS_KERNEL(name, argf, finf, EXPSTEP, ND_ISA_TARGET_AVX512, avx512, ND_ISA_AVX512, f64, double) \
    ND_VS_KERNEL(name, argf, finf, EXPSTEP, ND_ISA_TARGET_AVX512, avx512, ND_ISA_AVX512, f32, float)  \
    ND_VS_KERNEL(name, argf, finf, EXPSTEP, ND_ISA_TARGET_AVX2, avx2, ND_ISA_AVX2, f64, double)       \
    ND_VS_KERNEL(name, argf, finf, EXPSTEP, ND_ISA_TARGET_AVX2, avx2, ND_ISA_AVX2, f32, float)
ND_VS_OP(erf, nd_sf_erf_arg, nd_sf_erf_fin, ND_VS_EXP_OURS)
ND_VS_OP(gelu, nd_sf_ndtr_arg, nd_sf_gelu_fin, ND_VS_EXP_OURS)
ND_VS_OP(silu, nd_sf_silu_arg, nd_sf_silu_fin, ND_VS_EXP_KERNEL)

/* lgamma and digamma: blocks as above; x >= 10.125 (+inf included) by
 * their large-x series (nd_lgamma_stirling, nd_digamma_asym:
 * src/shared/ops_gamma.h) on libmvec's float64 log in `omp simd` loops,
 * then the other lanes one by one: lgamma's fitted pieces for
 * 0 < x < 10.125 (nd_lgamma_pos_tab on the same log), the scalar body
 * elsewhere (x <= 0 and NaN: poles, reflection, recurrences with
 * double-double products; digamma's pieces need no log). The pieces' table
 * is not loaded in the vector loop: gcc 12 loads a table lane by lane
 * there (AVX-512 gathers were slower still on an AMD EPYC Zen 4), and that
 * cost every lane ~4 ns, the series' included. LARG(x) is the log's
 * argument, VEC(x, l) the series, SLOW(x, l) an other lane. */
#define ND_VS_GAMMA_FAMILY(name, LARG, VEC, SLOW, attr, isa, ISA, sfx, T)                       \
    attr static void nd_vs_##name##_##sfx##_##isa(void *o_, const void *a_, int64_t n)          \
    {                                                                                           \
        T *o = (T *)o_;                                                                         \
        const T *a = (const T *)a_;                                                             \
        const nd_vmath_kernel *lg = nd__vmath_mvec(ISA, ND_UNARY_LOG, ND_FLOAT64);              \
        _Alignas(64) double x[ND_VS_BLK];                                                       \
        _Alignas(64) double l[ND_VS_BLK];                                                       \
        for (int64_t i0 = 0; i0 < n; i0 += ND_VS_BLK) {                                        \
            const int64_t m = n - i0 < ND_VS_BLK ? n - i0 : ND_VS_BLK;                          \
            int other = 0;                                                                      \
            _Pragma("omp simd reduction(|:other)") for (int64_t j = 0; j < m; j++)              \
            {                                                                                   \
                x[j] = (double)a[i0 + j];                                                       \
                l[j] = LARG(x[j]);                                                              \
                other |= !(x[j] >= ND_GAM_TOP);                                                 \
            }                                                                                   \
            lg->fn(l, l, m);                                                                    \
            _Pragma("omp simd") for (int64_t j = 0; j < m; j++)                                 \
                o[i0 + j] = (T)VEC(x[j] >= ND_GAM_TOP ? x[j] : ND_GAM_TOP, l[j]);               \
            if (other)                                                                          \
                for (int64_t j = 0; j < m; j++)                                                 \
                    if (!(x[j] >= ND_GAM_TOP)) o[i0 + j] = (T)SLOW(x[j], l[j]);                 \
        }                                                                                       \
    }                                                                                           \
    static const nd_vmath_kernel nd_vk_##name##_##sfx##_##isa = {nd_vs_##name##_##sfx##_##isa, "nd"};
#define ND_VS_GAMMA_FAMILY_ALL(name, LARG, VEC, SLOW)                                                         \
    ND_VS_GAMMA_FAMILY(name, LARG, VEC, SLOW, ND_ISA_TARGET_AVX512, avx512, ND_ISA_AVX512, f64, double)      \
    ND_VS_GAMMA_FAMILY(name, LARG, VEC, SLOW, ND_ISA_TARGET_AVX512, avx512, ND_ISA_AVX512, f32, float)       \
    ND_VS_GAMMA_FAMILY(name, LARG, VEC, SLOW, ND_ISA_TARGET_AVX2, avx2, ND_ISA_AVX2, f64, double)            \
    ND_VS_GAMMA_FAMILY(name, LARG, VEC, SLOW, ND_ISA_TARGET_AVX2, avx2, ND_ISA_AVX2, f32, float)
/* lgamma logs every positive x (the pieces use it too), digamma only the series' lanes */
#define ND_VS_LGAMMA_LARG(x) ((x) > 0 ? (x) : 1.0)
#define ND_VS_LGAMMA_SLOW(x, l) ((x) > 0 ? nd_lgamma_pos_tab((x), (l)) : nd_op_lgamma_f64(x))
#define ND_VS_DIGAMMA_LARG(x) ((x) >= ND_GAM_TOP ? (x) : ND_GAM_TOP)
#define ND_VS_DIGAMMA_SLOW(x, l) ((void)(l), nd_op_digamma_f64(x))
ND_VS_GAMMA_FAMILY_ALL(lgamma, ND_VS_LGAMMA_LARG, nd_lgamma_stirling, ND_VS_LGAMMA_SLOW)
ND_VS_GAMMA_FAMILY_ALL(digamma, ND_VS_DIGAMMA_LARG, nd_digamma_asym, ND_VS_DIGAMMA_SLOW)

#define ND_VS_CASES(isa, sfx)                                 \
    switch (op) {                                             \
    case ND_UNARY_ERF: return &nd_vk_erf_##sfx##_##isa;       \
    case ND_UNARY_GELU: return &nd_vk_gelu_##sfx##_##isa;     \
    case ND_UNARY_SILU: return &nd_vk_silu_##sfx##_##isa;     \
    case ND_UNARY_LGAMMA: return &nd_vk_lgamma_##sfx##_##isa; \
    case ND_UNARY_DIGAMMA: return &nd_vk_digamma_##sfx##_##isa; \
    default: return NULL;                                     \
    }
#endif

const nd_vmath_kernel *nd__vmath_special(nd_cpu_isa isa, nd_unary_op op, nd_dtype t)
{
#if ND_ISA_X86
    /* silu's exp is libmvec's: no kernel in a build without it */
    if (op == ND_UNARY_SILU && (isa == ND_ISA_BASELINE || !nd__vmath_mvec(isa, ND_UNARY_EXP, ND_FLOAT64))) return NULL;
    /* lgamma's and digamma's log is libmvec's */
    if ((op == ND_UNARY_LGAMMA || op == ND_UNARY_DIGAMMA) &&
        (isa == ND_ISA_BASELINE || !nd__vmath_mvec(isa, ND_UNARY_LOG, ND_FLOAT64)))
        return NULL;
    if (isa == ND_ISA_AVX512 && t == ND_FLOAT64) ND_VS_CASES(avx512, f64)
    if (isa == ND_ISA_AVX512 && t == ND_FLOAT32) ND_VS_CASES(avx512, f32)
    if (isa == ND_ISA_AVX2 && t == ND_FLOAT64) ND_VS_CASES(avx2, f64)
    if (isa == ND_ISA_AVX2 && t == ND_FLOAT32) ND_VS_CASES(avx2, f32)
#endif
    (void)isa, (void)op, (void)t;
    return NULL;
}
