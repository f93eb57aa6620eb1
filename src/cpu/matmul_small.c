/* Small float32/float64 matrix products: register-blocked kernels for the
 * AVX2+FMA and AVX-512 paths (src/cpu/matmul_small.h). The batch driver
 * (operand layouts, threads) is in src/cpu/matmul.c. */
#include "cpu/matmul_small.h"

#if ND_ISA_X86
#include <immintrin.h>

/* ------------------------------------------------------------------ */
/* AVX2 + FMA: 4 rows x 2 vectors of C accumulate in registers over k   */
/* (8 independent FMA chains), edges masked with lane-mask vectors.     */
/* ------------------------------------------------------------------ */
/* Lane mask for columns j0 + [0, L) below n. */
ND_ISA_TARGET_AVX2 static inline __m256i lane_mask32(int64_t rem)
{
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(rem > 8 ? 8 : rem)), idx);
}
ND_ISA_TARGET_AVX2 static inline __m256i lane_mask64(int64_t rem)
{
    const __m256i idx = _mm256_setr_epi64x(0, 1, 2, 3);
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(rem > 4 ? 4 : rem), idx);
}

/* One full 4 x 16 tile of C: unmasked loads and stores (masked stores are
 * microcoded and slow on AMD cores, and the masks cost registers). */
ND_ISA_TARGET_AVX2 __attribute__((always_inline)) static inline void small_f32_full(
    int64_t K, const float *const ar[4], int64_t acs, const float *bp, int64_t brs, float *cp, int64_t crs)
{
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    const float *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3];
    for (int64_t k = 0; k < K; k++, bp += brs, a0 += acs, a1 += acs, a2 += acs, a3 += acs) {
        __m256 b0 = _mm256_loadu_ps(bp), b1 = _mm256_loadu_ps(bp + 8);
        __m256 x = _mm256_broadcast_ss(a0);
        c00 = _mm256_fmadd_ps(x, b0, c00), c01 = _mm256_fmadd_ps(x, b1, c01);
        x = _mm256_broadcast_ss(a1);
        c10 = _mm256_fmadd_ps(x, b0, c10), c11 = _mm256_fmadd_ps(x, b1, c11);
        x = _mm256_broadcast_ss(a2);
        c20 = _mm256_fmadd_ps(x, b0, c20), c21 = _mm256_fmadd_ps(x, b1, c21);
        x = _mm256_broadcast_ss(a3);
        c30 = _mm256_fmadd_ps(x, b0, c30), c31 = _mm256_fmadd_ps(x, b1, c31);
    }
    _mm256_storeu_ps(cp, c00), _mm256_storeu_ps(cp + 8, c01);
    _mm256_storeu_ps(cp + crs, c10), _mm256_storeu_ps(cp + crs + 8, c11);
    _mm256_storeu_ps(cp + 2 * crs, c20), _mm256_storeu_ps(cp + 2 * crs + 8, c21);
    _mm256_storeu_ps(cp + 3 * crs, c30), _mm256_storeu_ps(cp + 3 * crs + 8, c31);
}

/* C (M x N, row stride crs, unit columns) = A (strides ars, acs) @ B (row
 * stride brs, unit columns). Full 4 x 16 tiles take the unmasked path; the
 * edges are masked. Both compute each element as the same k-ordered chain
 * of FMAs, so the result does not depend on the path. */
ND_ISA_TARGET_AVX2 static void small_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t ars,
                                                          int64_t acs, const float *B, int64_t brs, float *C, int64_t crs)
{
    for (int64_t i0 = 0; i0 < M; i0 += 4) {
        const float *ar[4];
        for (int r = 0; r < 4; r++) ar[r] = A + (i0 + r < M ? i0 + r : M - 1) * ars;
        for (int64_t j0 = 0; j0 < N; j0 += 16) {
            if (i0 + 4 <= M && N - j0 >= 16) {
                small_f32_full(K, ar, acs, B + j0, brs, C + i0 * crs + j0, crs);
                continue;
            }
            __m256i m0 = lane_mask32(N - j0), m1 = lane_mask32(N - j0 - 8);
            __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
            const float *bp = B + j0;
            for (int64_t k = 0; k < K; k++, bp += brs) {
                __m256 b0 = _mm256_maskload_ps(bp, m0), b1 = _mm256_maskload_ps(bp + 8, m1);
                __m256 a0 = _mm256_broadcast_ss(ar[0] + k * acs), a1 = _mm256_broadcast_ss(ar[1] + k * acs);
                __m256 a2 = _mm256_broadcast_ss(ar[2] + k * acs), a3 = _mm256_broadcast_ss(ar[3] + k * acs);
                c00 = _mm256_fmadd_ps(a0, b0, c00), c01 = _mm256_fmadd_ps(a0, b1, c01);
                c10 = _mm256_fmadd_ps(a1, b0, c10), c11 = _mm256_fmadd_ps(a1, b1, c11);
                c20 = _mm256_fmadd_ps(a2, b0, c20), c21 = _mm256_fmadd_ps(a2, b1, c21);
                c30 = _mm256_fmadd_ps(a3, b0, c30), c31 = _mm256_fmadd_ps(a3, b1, c31);
            }
            float *cp = C + i0 * crs + j0;
            _mm256_maskstore_ps(cp, m0, c00), _mm256_maskstore_ps(cp + 8, m1, c01);
            if (i0 + 1 < M) _mm256_maskstore_ps(cp + crs, m0, c10), _mm256_maskstore_ps(cp + crs + 8, m1, c11);
            if (i0 + 2 < M) _mm256_maskstore_ps(cp + 2 * crs, m0, c20), _mm256_maskstore_ps(cp + 2 * crs + 8, m1, c21);
            if (i0 + 3 < M) _mm256_maskstore_ps(cp + 3 * crs, m0, c30), _mm256_maskstore_ps(cp + 3 * crs + 8, m1, c31);
        }
    }
}

/* One full 4 x 8 float64 tile (see small_f32_full). */
ND_ISA_TARGET_AVX2 __attribute__((always_inline)) static inline void small_f64_full(
    int64_t K, const double *const ar[4], int64_t acs, const double *bp, int64_t brs, double *cp, int64_t crs)
{
    __m256d c00 = _mm256_setzero_pd(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    const double *a0 = ar[0], *a1 = ar[1], *a2 = ar[2], *a3 = ar[3];
    for (int64_t k = 0; k < K; k++, bp += brs, a0 += acs, a1 += acs, a2 += acs, a3 += acs) {
        __m256d b0 = _mm256_loadu_pd(bp), b1 = _mm256_loadu_pd(bp + 4);
        __m256d x = _mm256_broadcast_sd(a0);
        c00 = _mm256_fmadd_pd(x, b0, c00), c01 = _mm256_fmadd_pd(x, b1, c01);
        x = _mm256_broadcast_sd(a1);
        c10 = _mm256_fmadd_pd(x, b0, c10), c11 = _mm256_fmadd_pd(x, b1, c11);
        x = _mm256_broadcast_sd(a2);
        c20 = _mm256_fmadd_pd(x, b0, c20), c21 = _mm256_fmadd_pd(x, b1, c21);
        x = _mm256_broadcast_sd(a3);
        c30 = _mm256_fmadd_pd(x, b0, c30), c31 = _mm256_fmadd_pd(x, b1, c31);
    }
    _mm256_storeu_pd(cp, c00), _mm256_storeu_pd(cp + 4, c01);
    _mm256_storeu_pd(cp + crs, c10), _mm256_storeu_pd(cp + crs + 4, c11);
    _mm256_storeu_pd(cp + 2 * crs, c20), _mm256_storeu_pd(cp + 2 * crs + 4, c21);
    _mm256_storeu_pd(cp + 3 * crs, c30), _mm256_storeu_pd(cp + 3 * crs + 4, c31);
}

ND_ISA_TARGET_AVX2 static void small_f64(int64_t M, int64_t N, int64_t K, const double *A, int64_t ars,
                                                          int64_t acs, const double *B, int64_t brs, double *C, int64_t crs)
{
    for (int64_t i0 = 0; i0 < M; i0 += 4) {
        const double *ar[4];
        for (int r = 0; r < 4; r++) ar[r] = A + (i0 + r < M ? i0 + r : M - 1) * ars;
        for (int64_t j0 = 0; j0 < N; j0 += 8) {
            if (i0 + 4 <= M && N - j0 >= 8) {
                small_f64_full(K, ar, acs, B + j0, brs, C + i0 * crs + j0, crs);
                continue;
            }
            __m256i m0 = lane_mask64(N - j0), m1 = lane_mask64(N - j0 - 4);
            __m256d c00 = _mm256_setzero_pd(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
            const double *bp = B + j0;
            for (int64_t k = 0; k < K; k++, bp += brs) {
                __m256d b0 = _mm256_maskload_pd(bp, m0), b1 = _mm256_maskload_pd(bp + 4, m1);
                __m256d a0 = _mm256_broadcast_sd(ar[0] + k * acs), a1 = _mm256_broadcast_sd(ar[1] + k * acs);
                __m256d a2 = _mm256_broadcast_sd(ar[2] + k * acs), a3 = _mm256_broadcast_sd(ar[3] + k * acs);
                c00 = _mm256_fmadd_pd(a0, b0, c00), c01 = _mm256_fmadd_pd(a0, b1, c01);
                c10 = _mm256_fmadd_pd(a1, b0, c10), c11 = _mm256_fmadd_pd(a1, b1, c11);
                c20 = _mm256_fmadd_pd(a2, b0, c20), c21 = _mm256_fmadd_pd(a2, b1, c21);
                c30 = _mm256_fmadd_pd(a3, b0, c30), c31 = _mm256_fmadd_pd(a3, b1, c31);
            }
            double *cp = C + i0 * crs + j0;
            _mm256_maskstore_pd(cp, m0, c00), _mm256_maskstore_pd(cp + 4, m1, c01);
            if (i0 + 1 < M) _mm256_maskstore_pd(cp + crs, m0, c10), _mm256_maskstore_pd(cp + crs + 4, m1, c11);
            if (i0 + 2 < M) _mm256_maskstore_pd(cp + 2 * crs, m0, c20), _mm256_maskstore_pd(cp + 2 * crs + 4, m1, c21);
            if (i0 + 3 < M) _mm256_maskstore_pd(cp + 3 * crs, m0, c30), _mm256_maskstore_pd(cp + 3 * crs + 4, m1, c31);
        }
    }
}

static void small_f32_avx2(int64_t M, int64_t N, int64_t K, const void *A, int64_t ars, int64_t acs, const void *B,
                           int64_t brs, void *C, int64_t crs)
{
    small_f32(M, N, K, A, ars, acs, B, brs, C, crs);
}

static void small_f64_avx2(int64_t M, int64_t N, int64_t K, const void *A, int64_t ars, int64_t acs, const void *B,
                           int64_t brs, void *C, int64_t crs)
{
    small_f64(M, N, K, A, ars, acs, B, brs, C, crs);
}

/* ------------------------------------------------------------------ */
/* AVX-512                                                             */
/* ------------------------------------------------------------------ */
/* A tile of C is up to 8 rows x 2 vectors (16 float32 / 8 float64 lanes
 * each): 16 accumulators and 2 rows of B in registers, 16 FMAs per k, and
 * the A elements come as broadcast memory operands (a load-port micro-op
 * on Intel and AMD alike, no shuffle). A 16x16 float32 product is two
 * tiles of 8 rows x 1 vector: 8 independent FMA chains, enough to cover
 * the FMA latency of both vendors' two FMA pipes. The last vector of a
 * row is loaded and stored with a lane mask (__mmask16 / __mmask8) for
 * ragged N; a full one stores unmasked. R (rows) and V (vectors) are
 * compile-time constants in each inlined instance (the switch in
 * SMALL512_BODY), so the accumulators stay in registers. */
#define SMALL512_TILE(NAME, T, VT, MT, L, SETZERO, SET1, FMADD, LOADU, MASKZ_LOADU, STOREU, MASK_STOREU)      \
    ND_ISA_TARGET_AVX512 __attribute__((always_inline)) static inline void NAME(                             \
        const int R, const int V, int64_t K, const T *a, int64_t ars, int64_t acs, const T *b, int64_t brs,   \
        T *c, int64_t crs, MT m)                                                                              \
    {                                                                                                         \
        VT acc[8][2];                                                                                         \
        _Pragma("GCC unroll 8") for (int r = 0; r < R; r++) acc[r][0] = acc[r][1] = SETZERO();                 \
        for (int64_t k = 0; k < K; k++, a += acs, b += brs) {                                                 \
            VT b0, b1;                                                                                        \
            if (V == 1) {                                                                                     \
                b0 = MASKZ_LOADU(m, b);                                                                       \
                b1 = b0;                                                                                      \
            } else {                                                                                          \
                b0 = LOADU(b);                                                                                \
                b1 = MASKZ_LOADU(m, b + L);                                                                   \
            }                                                                                                 \
            _Pragma("GCC unroll 8") for (int r = 0; r < R; r++) {                                             \
                VT x = SET1(a[r * ars]);                                                                      \
                acc[r][0] = FMADD(x, b0, acc[r][0]);                                                          \
                if (V == 2) acc[r][1] = FMADD(x, b1, acc[r][1]);                                              \
            }                                                                                                 \
        }                                                                                                     \
        const bool full = m == (MT)-1;                                                                        \
        _Pragma("GCC unroll 8") for (int r = 0; r < R; r++) {                                                 \
            T *cr = c + r * crs;                                                                              \
            if (V == 2) STOREU(cr, acc[r][0]);                                                                \
            T *cl = V == 2 ? cr + L : cr;                                                                     \
            if (full) STOREU(cl, acc[r][V - 1]);                                                              \
            else MASK_STOREU(cl, m, acc[r][V - 1]);                                                           \
        }                                                                                                     \
    }

/* C = A @ B (nd_small_mm_fn): row blocks of 8 (the last one R < 8), each
 * swept by column panels of 2 vectors (the last one may be 1 vector).
 * Rows outer: C is written row block by row block, in address order (the
 * other order, panels outer, ran 1.2-1.3x slower than the AVX2 kernel for
 * batches of 64x64x8 float64 that stream C to memory). */
#define SMALL512_BODY(NAME, TILE, T, MT, L)                                                                   \
    ND_ISA_TARGET_AVX512 static void NAME(int64_t M, int64_t N, int64_t K, const void *vA, int64_t ars,       \
                                          int64_t acs, const void *vB, int64_t brs, void *vC, int64_t crs)    \
    {                                                                                                         \
        const T *A = vA, *B = vB;                                                                             \
        T *C = vC;                                                                                            \
        for (int64_t i0 = 0; i0 < M; i0 += 8) {                                                               \
            const T *a = A + i0 * ars;                                                                        \
            int R = M - i0 < 8 ? (int)(M - i0) : 8;                                                           \
            for (int64_t j0 = 0; j0 < N; j0 += 2 * L) {                                                       \
                int64_t rem = N - j0;                                                                         \
                int V = rem > L ? 2 : 1;                                                                      \
                int64_t last = rem - (V - 1) * L;                                                             \
                MT m = (MT)(last >= L ? (MT)-1 : (MT)((1u << last) - 1));                                     \
                const T *b = B + j0;                                                                          \
                T *c = C + i0 * crs + j0;                                                                     \
                switch (R * 2 + V - 1) {                                                                      \
                case 2: TILE(1, 1, K, a, ars, acs, b, brs, c, crs, m); break;                                 \
                case 3: TILE(1, 2, K, a, ars, acs, b, brs, c, crs, m); break;                                 \
                case 4: TILE(2, 1, K, a, ars, acs, b, brs, c, crs, m); break;                                 \
                case 5: TILE(2, 2, K, a, ars, acs, b, brs, c, crs, m); break;                                 \
                case 6: TILE(3, 1, K, a, ars, acs, b, brs, c, crs, m); break;                                 \
                case 7: TILE(3, 2, K, a, ars, acs, b, brs, c, crs, m); break;                                 \
                case 8: TILE(4, 1, K, a, ars, acs, b, brs, c, crs, m); break;                                 \
                case 9: TILE(4, 2, K, a, ars, acs, b, brs, c, crs, m); break;                                 \
                case 10: TILE(5, 1, K, a, ars, acs, b, brs, c, crs, m); break;                                \
                case 11: TILE(5, 2, K, a, ars, acs, b, brs, c, crs, m); break;                                \
                case 12: TILE(6, 1, K, a, ars, acs, b, brs, c, crs, m); break;                                \
                case 13: TILE(6, 2, K, a, ars, acs, b, brs, c, crs, m); break;                                \
                case 14: TILE(7, 1, K, a, ars, acs, b, brs, c, crs, m); break;                                \
                case 15: TILE(7, 2, K, a, ars, acs, b, brs, c, crs, m); break;                                \
                case 16: TILE(8, 1, K, a, ars, acs, b, brs, c, crs, m); break;                                \
                default: TILE(8, 2, K, a, ars, acs, b, brs, c, crs, m); break;                                \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
    }

SMALL512_TILE(tile_f32_512, float, __m512, __mmask16, 16, _mm512_setzero_ps, _mm512_set1_ps, _mm512_fmadd_ps,
              _mm512_loadu_ps, _mm512_maskz_loadu_ps, _mm512_storeu_ps, _mm512_mask_storeu_ps)
SMALL512_TILE(tile_f64_512, double, __m512d, __mmask8, 8, _mm512_setzero_pd, _mm512_set1_pd, _mm512_fmadd_pd,
              _mm512_loadu_pd, _mm512_maskz_loadu_pd, _mm512_storeu_pd, _mm512_mask_storeu_pd)
SMALL512_BODY(small_f32_avx512, tile_f32_512, float, __mmask16, 16)
SMALL512_BODY(small_f64_avx512, tile_f64_512, double, __mmask8, 8)
#endif /* ND_ISA_X86 */

nd_small_mm_fn nd__small_mm_kernel(nd_cpu_isa isa, bool f64)
{
#if ND_ISA_X86
    if (isa >= ND_ISA_AVX512) return f64 ? small_f64_avx512 : small_f32_avx512;
    if (isa >= ND_ISA_AVX2) return f64 ? small_f64_avx2 : small_f32_avx2;
#else
    (void)f64;
#endif
    (void)isa;
    return NULL;
}
