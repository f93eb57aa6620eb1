/* In-register transposes of small blocks (AVX), shared by the blocked
 * transposed copies (src/cpu/cast.c) and the elementwise tiled runner
 * (src/cpu/elementwise.c). Callers check nd__cpu_isa() >= ND_ISA_AVX2
 * before calling them. */
#ifndef ND_CPU_TRANSPOSE_H
#define ND_CPU_TRANSPOSE_H
#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/* D[q][a] = S[a][q] for an 8x8 block of 4-byte items (rows of S: stride
 * ss bytes, rows of D: stride ds bytes). */
__attribute__((target("avx"))) static inline void tr8x8_32(char *d, int64_t ds, const char *s, int64_t ss)
{
    __m256 r0 = _mm256_loadu_ps((const float *)(const void *)(s + 0 * ss));
    __m256 r1 = _mm256_loadu_ps((const float *)(const void *)(s + 1 * ss));
    __m256 r2 = _mm256_loadu_ps((const float *)(const void *)(s + 2 * ss));
    __m256 r3 = _mm256_loadu_ps((const float *)(const void *)(s + 3 * ss));
    __m256 r4 = _mm256_loadu_ps((const float *)(const void *)(s + 4 * ss));
    __m256 r5 = _mm256_loadu_ps((const float *)(const void *)(s + 5 * ss));
    __m256 r6 = _mm256_loadu_ps((const float *)(const void *)(s + 6 * ss));
    __m256 r7 = _mm256_loadu_ps((const float *)(const void *)(s + 7 * ss));
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps((float *)(void *)(d + 0 * ds), _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps((float *)(void *)(d + 1 * ds), _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps((float *)(void *)(d + 2 * ds), _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps((float *)(void *)(d + 3 * ds), _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps((float *)(void *)(d + 4 * ds), _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps((float *)(void *)(d + 5 * ds), _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps((float *)(void *)(d + 6 * ds), _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps((float *)(void *)(d + 7 * ds), _mm256_permute2f128_ps(u3, u7, 0x31));
}

/* The same for a 4x4 block of 8-byte items. */
__attribute__((target("avx"))) static inline void tr4x4_64(char *d, int64_t ds, const char *s, int64_t ss)
{
    __m256d r0 = _mm256_loadu_pd((const double *)(const void *)(s + 0 * ss));
    __m256d r1 = _mm256_loadu_pd((const double *)(const void *)(s + 1 * ss));
    __m256d r2 = _mm256_loadu_pd((const double *)(const void *)(s + 2 * ss));
    __m256d r3 = _mm256_loadu_pd((const double *)(const void *)(s + 3 * ss));
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd((double *)(void *)(d + 0 * ds), _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd((double *)(void *)(d + 1 * ds), _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd((double *)(void *)(d + 2 * ds), _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd((double *)(void *)(d + 3 * ds), _mm256_permute2f128_pd(t1, t3, 0x31));
}
#endif
#endif
