/* The integer/bool matmul kernel's logic (src/cuda/kernels_matmul_int.cu),
 * as ND_HOSTDEV phases that the CPU test suite replays for every thread of
 * a block, barrier by barrier (tests/test_gpu_linalg.c). Plain C: no CUDA
 * runtime calls.
 *
 * Semantics are the CPU backend's (src/cpu/matmul.c): integers accumulate
 * in uint32 (uint64 for 64-bit dtypes), each element loaded sign- or
 * zero-extended, and the sum is truncated to the dtype (NumPy's wrapping
 * accumulation, without signed-overflow UB); bool is the logical or of
 * ands. The sum of products modulo 2^32 does not depend on the order, so
 * the result is bit-identical to the CPU's.
 *
 * Decomposition: a block of ND_MMI_THREADS = 16 x 16 threads owns a
 * 32 x 32 tile of one output matrix (each thread 2 x 2 elements: rows
 * ty, ty + 16 and columns tx, tx + 16 of the tile, so a warp reads shared
 * memory without bank conflicts). K advances in steps of 16: the block
 * stages A[32 x 16] (stored k-major) and B[16 x 32] in shared memory, two
 * elements of each per thread (consecutive threads take consecutive
 * elements of a row: coalesced for unit column strides), zero outside the
 * matrices. Tiles beyond the grid (grid.y and grid.z are capped at 65535)
 * are taken by grid-stride loops over batch, tile row and tile column. Any
 * strides (zero and negative included); 64-bit offsets throughout.
 */
#ifndef ND_CUDA_MATMUL_INT_H
#define ND_CUDA_MATMUL_INT_H
#include <stdint.h>

#include "shared/hostdev.h"
#include "core/internal.h"

#define ND_MMI_TM 32
#define ND_MMI_TN 32
#define ND_MMI_TK 16
#define ND_MMI_TX 16 /* threads per block row */
#define ND_MMI_THREADS 256
#define ND_MMI_GRID_MAX 65535

/* Element codes: itemsize (bits 0-3), | ND_MMI_SIGNED for signed ints,
 * | ND_MMI_BOOL for bool (itemsize 1). */
#define ND_MMI_SIGNED 16
#define ND_MMI_BOOL 32

typedef struct {
    const char *a, *b;
    char *c;
    int64_t M, N, K, nb;
    int64_t as[3], bs[3], cs[3]; /* BYTE strides: batch, row, column */
    int code;
} nd_mmi_args;

/* host only (nd__itemsize is not ND_HOSTDEV) */
static inline int nd_mmi_code(nd_dtype t)
{
    if (t == ND_BOOL) return ND_MMI_BOOL | 1;
    int sz = (int)nd__itemsize(t);
    return nd__kind(t) == ND_KIND_INT ? sz | ND_MMI_SIGNED : sz;
}

/* One element, sign- or zero-extended to 64 bits (bool: 0 or 1). */
ND_HOSTDEV static inline uint64_t nd_mmi_load(const char *p, int code)
{
    switch (code) {
    case ND_MMI_BOOL | 1: return *(const uint8_t *)p != 0;
    case 1: return *(const uint8_t *)p;
    case 2: return *(const uint16_t *)p;
    case 4: return *(const uint32_t *)p;
    case 8: return *(const uint64_t *)p;
    case 1 | ND_MMI_SIGNED: return (uint64_t)(int64_t)*(const int8_t *)p;
    case 2 | ND_MMI_SIGNED: return (uint64_t)(int64_t)*(const int16_t *)p;
    case 4 | ND_MMI_SIGNED: return (uint64_t)(int64_t)*(const int32_t *)p;
    default: return *(const uint64_t *)p;
    }
}

/* Store the low bytes of v (bool: v is already 0 or 1). */
ND_HOSTDEV static inline void nd_mmi_store(char *p, int code, uint64_t v)
{
    switch (code & 15) {
    case 1: *(uint8_t *)p = (uint8_t)v; break;
    case 2: *(uint16_t *)p = (uint16_t)v; break;
    case 4: *(uint32_t *)p = (uint32_t)v; break;
    default: *(uint64_t *)p = v; break;
    }
}

ND_HOSTDEV static inline int nd_mmi_is_bool(int code) { return (code & ND_MMI_BOOL) != 0; }

ND_HOSTDEV static inline int64_t nd_mmi_tiles(int64_t n, int64_t tile) { return (n + tile - 1) / tile; }

/* Launch geometry: x over tile columns, y over tile rows, z over the batch. */
ND_HOSTDEV static inline void nd_mmi_grid(const nd_mmi_args *g, unsigned grid[3])
{
    int64_t t[3] = {nd_mmi_tiles(g->N, ND_MMI_TN), nd_mmi_tiles(g->M, ND_MMI_TM), g->nb};
    for (int i = 0; i < 3; i++) grid[i] = (unsigned)(t[i] < 1 ? 1 : t[i] > ND_MMI_GRID_MAX ? ND_MMI_GRID_MAX : t[i]);
}

/* The per-block phases for an accumulator type ACC (uint32_t for dtypes of
 * up to 4 bytes and bool, uint64_t for 8-byte dtypes). Shared tiles:
 * As[kk][r] (k-major, padded) and Bs[kk][c]. */
#define ND_MMI_DEFINE(SUF, ACC)                                                                                    \
    /* Stage A[row0 .. +32, k0 .. +16] and B[k0 .. +16, col0 .. +32] of batch element bi. */                     \
    ND_HOSTDEV static inline void nd_mmi_stage_##SUF(const nd_mmi_args *g, int tid, int64_t bi, int64_t row0,    \
                                                     int64_t col0, int64_t k0, ACC (*As)[ND_MMI_TM + 1],         \
                                                     ACC (*Bs)[ND_MMI_TN + 1])                                   \
    {                                                                                                            \
        for (int l = 0; l < 2; l++) {                                                                            \
            int e = tid + l * ND_MMI_THREADS;                                                                    \
            int r = e / ND_MMI_TK, kk = e % ND_MMI_TK;                                                           \
            int64_t gi = row0 + r, gk = k0 + kk;                                                                 \
            As[kk][r] = gi < g->M && gk < g->K                                                                   \
                            ? (ACC)nd_mmi_load(g->a + bi * g->as[0] + gi * g->as[1] + gk * g->as[2], g->code)   \
                            : (ACC)0;                                                                            \
            int kb = e / ND_MMI_TN, c = e % ND_MMI_TN;                                                           \
            int64_t hk = k0 + kb, gj = col0 + c;                                                                 \
            Bs[kb][c] = hk < g->K && gj < g->N                                                                   \
                            ? (ACC)nd_mmi_load(g->b + bi * g->bs[0] + hk * g->bs[1] + gj * g->bs[2], g->code)   \
                            : (ACC)0;                                                                            \
        }                                                                                                        \
    }                                                                                                            \
    /* acc[i][j] (+)= sum over the staged k of A[ty + 16 i][k] * B[k][tx + 16 j]. */                            \
    ND_HOSTDEV static inline void nd_mmi_mac_##SUF(int tid, ACC (*As)[ND_MMI_TM + 1],                           \
                                                   ACC (*Bs)[ND_MMI_TN + 1], ACC acc[2][2], int is_bool)   \
    {                                                                                                            \
        int tx = tid % ND_MMI_TX, ty = tid / ND_MMI_TX;                                                          \
        if (is_bool) {                                                                                           \
            for (int kk = 0; kk < ND_MMI_TK; kk++) {                                                             \
                ACC a0 = As[kk][ty], a1 = As[kk][ty + 16], b0 = Bs[kk][tx], b1 = Bs[kk][tx + 16];                \
                acc[0][0] |= a0 & b0, acc[0][1] |= a0 & b1, acc[1][0] |= a1 & b0, acc[1][1] |= a1 & b1;          \
            }                                                                                                    \
        } else {                                                                                                 \
            for (int kk = 0; kk < ND_MMI_TK; kk++) {                                                             \
                ACC a0 = As[kk][ty], a1 = As[kk][ty + 16], b0 = Bs[kk][tx], b1 = Bs[kk][tx + 16];                \
                acc[0][0] += a0 * b0, acc[0][1] += a0 * b1, acc[1][0] += a1 * b0, acc[1][1] += a1 * b1;          \
            }                                                                                                    \
        }                                                                                                        \
    }                                                                                                            \
    /* Write this thread's outputs that lie inside the matrix. */                                                \
    ND_HOSTDEV static inline void nd_mmi_write_##SUF(const nd_mmi_args *g, int tid, int64_t bi, int64_t row0,    \
                                                     int64_t col0, ACC acc[2][2])                                \
    {                                                                                                            \
        int tx = tid % ND_MMI_TX, ty = tid / ND_MMI_TX;                                                          \
        for (int i = 0; i < 2; i++)                                                                              \
            for (int j = 0; j < 2; j++) {                                                                        \
                int64_t gi = row0 + ty + 16 * i, gj = col0 + tx + 16 * j;                                        \
                if (gi < g->M && gj < g->N)                                                                      \
                    nd_mmi_store(g->c + bi * g->cs[0] + gi * g->cs[1] + gj * g->cs[2], g->code, (uint64_t)acc[i][j]); \
            }                                                                                                    \
    }

ND_MMI_DEFINE(u32, uint32_t)
ND_MMI_DEFINE(u64, uint64_t)

#ifdef __cplusplus
extern "C" {
#endif
/* src/cuda/kernels_matmul_int.cu: out[b] = a[b] @ b[b] for integer and
 * bool dtypes (the contract of nd_backend.matmul; K >= 1, sizes >= 1). */
ND_INTERNAL nd_status nd__cuda_matmul_int(nd_array *out, const nd_array *a, const nd_array *b);
#ifdef __cplusplus
}
#endif
#endif
