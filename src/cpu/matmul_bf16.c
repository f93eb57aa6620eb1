/* bfloat16 GEMM with float32 accumulation: AMX and AVX512-BF16 kernels
 * (src/cpu/matmul_bf16.h).
 *
 * Why our own kernels and not oneDNN (both were weighed). Debian 12's
 * oneDNN (libdnnl 2.6) has no public bfloat16 GEMM call, only the matmul
 * primitive, and it is built on the OpenMP runtime: a third thread pool
 * beside ours and OpenBLAS's. Measured on a 2-vCPU Xeon with AMX
 * (2026-12-02, n = 2048): 36 ms per product with 2 OpenMP threads against
 * 117 ms for sgemm, but every call pays ~8 ms of OpenMP hand-off (a 128 x
 * 128 product took 7.9 ms; 11 us with OMP_NUM_THREADS=1, 0.2 ms only with
 * OMP_PROC_BIND=true, which a library cannot set for its host program);
 * and its AVX512-BF16 path without AMX ran at 0.57x sgemm. The kernels
 * below are ~300 lines, run on our own threads (nd_set_num_threads holds),
 * and add no dependency.
 *
 * Layout. A is packed per 32-row chunk into a zero-padded row-major block
 * (32 x Kp, Kp = K rounded up to 32); B per NB-column block into the VNNI
 * layout the instructions read, pairs of K interleaved: element (k, j) at
 * [(k / 2) * 2 NB + 2 j + k % 2]. Both kernels read the same packed data:
 *   AMX: a 32 x 32 block of C in four 16 x 16 float32 tiles, A as two
 *        16 x 32 bf16 tiles, B as two 16 (pairs) x 16 (x2) tiles, four
 *        TDPBF16PS per 32 values of K;
 *   AVX512-BF16: an 8 x 32 block of C in 16 zmm registers, per pair of K
 *        one 32-bit broadcast of A per row and two 64-byte loads of B.
 * Packing is bounded: at most PASS_BYTES of packed A and of packed B at a
 * time (a bfloat16 activation never costs a float32 copy of itself), and
 * the (row chunk, column block) items of a pass are spread over our
 * threads block-major, so one B block stays in cache while A streams. */
#include "cpu/matmul_bf16.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/isa.h"
#include "shared/half.h"

#if ND_ISA_X86 && defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && \
    (defined(__clang__) || __GNUC__ >= 11)
#define ND_BF16_KERNELS 1
#include <immintrin.h>
#else
#define ND_BF16_KERNELS 0
#endif

enum { MR = 32, KALIGN = 32 };
#define PASS_BYTES ((int64_t)8 << 20)
#define BLOCK_BYTES ((int64_t)1 << 20)

const char *nd__bf16_path_name(nd_bf16_path p)
{
    switch (p) {
    case ND_BF16_AMX: return "amx";
    case ND_BF16_AVX512: return "avx512_bf16";
    default: return "sgemm";
    }
}

nd_bf16_path nd__bf16_path_detected(void)
{
#if ND_BF16_KERNELS
    if (nd__cpu_has(ND_CPU_AMX_BF16)) return ND_BF16_AMX;
    if (nd__cpu_has(ND_CPU_AVX512_BF16)) return ND_BF16_AVX512;
#endif
    return ND_BF16_SGEMM;
}

/* The default: AMX where present. The AVX512-BF16 kernel only on AMD
 * (Zen 4/5): there VDPBF16PS does two multiply-adds per lane where
 * VFMADD231PS does one, but on Intel cores it issues on one port where
 * the float32 FMA has two, and it measured 0.47x sgemm on a Xeon
 * (2026-12-02) - so Intel CPUs with AVX512-BF16 and no AMX (Cooper Lake)
 * keep sgemm unless ND_CPU_BF16=avx512_bf16 asks for it. On a 2-vCPU
 * AMD EPYC Zen 4 (2026-12-03) it measured 1.62-1.68x sgemm at n = 2048. */
static nd_bf16_path default_path(nd_bf16_path det)
{
    if (det == ND_BF16_AVX512 && !nd__cpu_has(ND_CPU_VENDOR_AMD)) return ND_BF16_SGEMM;
    return det;
}

static nd_bf16_path choose(void)
{
    nd_bf16_path det = nd__bf16_path_detected();
    if (nd__cpu_isa() < ND_ISA_AVX512) return ND_BF16_SGEMM; /* ND_CPU_ISA forced a lower path */
    const char *env = getenv("ND_CPU_BF16");
    for (int i = 0; env && i < ND_BF16_N; i++)
        if (!strcmp(env, nd__bf16_path_name((nd_bf16_path)i))) return (nd_bf16_path)i < det ? (nd_bf16_path)i : det;
    return default_path(det); /* unset, "auto" or unknown */
}

/* -1 until chosen; choose() is pure (the permission request is
 * idempotent), so a race stores the same value twice. */
static atomic_int g_path = -1;

nd_bf16_path nd__bf16_path(void)
{
    int v = atomic_load_explicit(&g_path, memory_order_relaxed);
    if (v < 0) {
        v = (int)choose();
        atomic_store_explicit(&g_path, v, memory_order_relaxed);
    }
    return (nd_bf16_path)v;
}

#if ND_BF16_KERNELS

#define TARGET_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,fma")))
#define TARGET_AMX __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,amx-tile,amx-bf16")))

/* ---------------------------------------------------------------- */
/* Packing                                                            */
/* ---------------------------------------------------------------- */

/* Packed layouts: tile-contiguous, so that every 16 x 64-byte tile the
 * kernels read is one 1 KiB run (a row stride of 2 Kp bytes would put a
 * tile's 16 rows in one L1 set for K = 2048, and did: 1.4x sgemm instead
 * of 3x).
 *   A chunk (MR x Kp):  (r, k) at ((k / 32) MR + r) 32 + k % 32;
 *   B block (Kp x NB):  (k, j) at ((k / 32)(NB / 16) + j / 16) 512
 *                                  + ((k % 32) / 2) 32 + 2 (j % 16) + k % 2. */
static inline int64_t a_at(int64_t r, int64_t k) { return ((k / 32) * MR + r) * 32 + k % 32; }
static inline int64_t b_at(int64_t k, int64_t j, int64_t NB)
{
    return ((k / 32) * (NB / 16) + j / 16) * 512 + ((k % 32) / 2) * 32 + 2 * (j % 16) + (k & 1);
}

/* Rows [r0, r0 + mr) of A into a zero-padded chunk. */
static void pack_a(uint16_t *dst, const uint16_t *A, int64_t ars, int64_t acs, int64_t r0, int64_t mr, int64_t K,
                   int64_t Kp)
{
    memset(dst, 0, (size_t)(MR * Kp) * 2);
    for (int64_t r = 0; r < mr; r++) {
        const uint16_t *s = A + (r0 + r) * ars;
        if (acs == 1)
            for (int64_t k = 0; k < K; k += 32) memcpy(dst + a_at(r, k), s + k, (size_t)(K - k < 32 ? K - k : 32) * 2);
        else
            for (int64_t k = 0; k < K; k++) dst[a_at(r, k)] = s[k * acs];
    }
}

/* Columns [c0, c0 + nbv) of B into a zero-padded NB-column block. */
TARGET_BF16 static void pack_b(uint16_t *dst, const uint16_t *B, int64_t brs, int64_t bcs, int64_t c0, int64_t nbv,
                               int64_t NB, int64_t K, int64_t Kp)
{
    memset(dst, 0, (size_t)(Kp * NB) * 2);
    if (bcs == 1) {
        /* two rows of B interleaved, 32 columns (two tiles' rows) at a time */
        const __m512i lo = _mm512_set_epi16(47, 15, 46, 14, 45, 13, 44, 12, 43, 11, 42, 10, 41, 9, 40, 8, 39, 7, 38, 6,
                                            37, 5, 36, 4, 35, 3, 34, 2, 33, 1, 32, 0);
        const __m512i hi = _mm512_add_epi16(lo, _mm512_set1_epi16(16));
        for (int64_t k = 0; k < K; k += 2) {
            const uint16_t *r0 = B + k * brs + c0, *r1 = r0 + brs;
            int64_t j = 0;
            if (k + 1 < K)
                for (; j + 32 <= nbv; j += 32) {
                    __m512i x = _mm512_loadu_si512(r0 + j), y = _mm512_loadu_si512(r1 + j);
                    _mm512_storeu_si512(dst + b_at(k, j, NB), _mm512_permutex2var_epi16(x, lo, y));
                    _mm512_storeu_si512(dst + b_at(k, j + 16, NB), _mm512_permutex2var_epi16(x, hi, y));
                }
            for (; j < nbv; j++) {
                dst[b_at(k, j, NB)] = r0[j];
                if (k + 1 < K) dst[b_at(k + 1, j, NB)] = r1[j];
            }
        }
        return;
    }
    /* a transposed B (unit row stride) is read down its columns */
    for (int64_t j = 0; j < nbv; j++) {
        const uint16_t *s = B + (c0 + j) * bcs;
        for (int64_t k = 0; k < K; k++) dst[b_at(k, j, NB)] = s[k * brs];
    }
}

/* ---------------------------------------------------------------- */
/* Kernels: one MR-row chunk of packed A times one packed B block into   */
/* cb (MR x NB float32, row stride NB).                                  */
/* ---------------------------------------------------------------- */

/* The tile configuration (palette 1): tiles 0-7 of 16 rows x 64 bytes.
 * Bytes 16-47 hold the 16 tiles' bytes per row, 48-63 their rows. A
 * constant: GCC 12 does not see that ldtilecfg reads a local struct built
 * field by field and dropped the stores (SIGILL on the first tile op). */
static const _Alignas(64) uint8_t g_tile_config[64] = {
    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,          /* palette, start row, reserved */
    64, 0, 64, 0, 64, 0, 64, 0, 64, 0, 64, 0, 64, 0, 64, 0,  /* tiles 0-7: 64 bytes per row */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,          /* tiles 8-15: unused */
    16, 16, 16, 16, 16, 16, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0}; /* rows */

TARGET_AMX static void amx_configure(void) { _tile_loadconfig(g_tile_config); }

TARGET_AMX static void amx_release(void) { _tile_release(); }

/* K is taken KB at a time: the chunk's KB columns of A (32 KB x 2 bytes)
 * stay in L1 while every 32-column strip of the block passes, and the C
 * tiles are stored to cb and loaded again between K blocks. */
enum { KB = 256 };

TARGET_AMX static void kernel_amx(const uint16_t *ap, const uint16_t *bp, float *cb, int64_t NB, int64_t Kp)
{
    const size_t cs = (size_t)NB * 4;
    for (int64_t kb = 0; kb < Kp; kb += KB) {
        const int64_t ke = Kp - kb < KB ? Kp : kb + KB;
        for (int64_t j0 = 0; j0 < NB; j0 += 32) {
            float *c = cb + j0;
            if (kb == 0) {
                _tile_zero(0);
                _tile_zero(1);
                _tile_zero(2);
                _tile_zero(3);
            } else {
                _tile_loadd(0, c, cs);
                _tile_loadd(1, c + 16, cs);
                _tile_loadd(2, c + 16 * NB, cs);
                _tile_loadd(3, c + 16 * NB + 16, cs);
            }
            for (int64_t k0 = kb; k0 < ke; k0 += 32) {
                const uint16_t *a = ap + (k0 / 32) * MR * 32, *b = bp + ((k0 / 32) * (NB / 16) + j0 / 16) * 512;
                _tile_loadd(4, a, 64);
                _tile_loadd(5, a + 16 * 32, 64);
                _tile_loadd(6, b, 64);
                _tile_loadd(7, b + 512, 64);
                _tile_dpbf16ps(0, 4, 6);
                _tile_dpbf16ps(1, 4, 7);
                _tile_dpbf16ps(2, 5, 6);
                _tile_dpbf16ps(3, 5, 7);
            }
            _tile_stored(0, c, cs);
            _tile_stored(1, c + 16, cs);
            _tile_stored(2, c + 16 * NB, cs);
            _tile_stored(3, c + 16 * NB + 16, cs);
        }
    }
}

#define DP_ROW(r)                                                                                   \
    do {                                                                                            \
        __m512bh a_ = (__m512bh)_mm512_set1_epi32(*(const int32_t *)(const void *)(a + (r) * 32)); \
        c##r##0 = _mm512_dpbf16_ps(c##r##0, a_, b0);                                                \
        c##r##1 = _mm512_dpbf16_ps(c##r##1, a_, b1);                                                \
    } while (0)
#define ST_ROW(r) (_mm512_storeu_ps(cb + (g + (r)) * NB + j0, c##r##0), _mm512_storeu_ps(cb + (g + (r)) * NB + j0 + 16, c##r##1))

#define LD_ROW(r) (c##r##0 = _mm512_loadu_ps(cb + (g + (r)) * NB + j0), c##r##1 = _mm512_loadu_ps(cb + (g + (r)) * NB + j0 + 16))

/* An 8 x 32 block of C in registers per pass over KB2 values of K: per
 * pair of K, two 64-byte rows of B's tiles and one 32-bit broadcast of A
 * per row. K is blocked like the AMX kernel's, so that a strip of B (KB2 x
 * 32) and the chunk's KB2 columns of A (MR x KB2) both stay in L1 while
 * the four 8-row groups pass (over the whole of K at once, the strip came
 * from L2 for every group: 1.53x sgemm at 2048 on a 2-vCPU Zen 4,
 * 1.62-1.68x with the blocking; the C block goes through cb between K
 * blocks). */
enum { KB2 = 128 };

TARGET_BF16 static void kernel_avx512(const uint16_t *ap, const uint16_t *bp, float *cb, int64_t NB, int64_t Kp)
{
    for (int64_t kb = 0; kb < Kp; kb += KB2) {
        const int64_t ke = Kp - kb < KB2 ? Kp : kb + KB2;
        for (int64_t j0 = 0; j0 < NB; j0 += 32) {
            for (int64_t g = 0; g < MR; g += 8) {
                __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,
                       c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00,
                       c71 = c00;
                if (kb > 0) LD_ROW(0), LD_ROW(1), LD_ROW(2), LD_ROW(3), LD_ROW(4), LD_ROW(5), LD_ROW(6), LD_ROW(7);
                for (int64_t k0 = kb; k0 < ke; k0 += 32) {
                    const uint16_t *bt = bp + ((k0 / 32) * (NB / 16) + j0 / 16) * 512;
                    const uint16_t *a = ap + ((k0 / 32) * MR + g) * 32;
                    for (int p = 0; p < 16; p++, a += 2, bt += 32) {
                        __m512bh b0 = (__m512bh)_mm512_loadu_si512(bt), b1 = (__m512bh)_mm512_loadu_si512(bt + 512);
                        DP_ROW(0);
                        DP_ROW(1);
                        DP_ROW(2);
                        DP_ROW(3);
                        DP_ROW(4);
                        DP_ROW(5);
                        DP_ROW(6);
                        DP_ROW(7);
                    }
                }
                ST_ROW(0), ST_ROW(1), ST_ROW(2), ST_ROW(3), ST_ROW(4), ST_ROW(5), ST_ROW(6), ST_ROW(7);
            }
        }
    }
}

/* ---------------------------------------------------------------- */
/* Driver                                                             */
/* ---------------------------------------------------------------- */

typedef struct {
    const uint16_t *A, *B;
    int64_t ars, acs, brs, bcs;
    char *C;
    int64_t crs, ccs;
    nd_dtype tc;
    float alpha, beta;
    int64_t M, N, K, Kp, NB;
    /* the current pass: rows [r0, r0 + nchunk * MR) of A packed in ap,
     * columns [c0, c0 + nblk * NB) of B packed in bp */
    uint16_t *ap, *bp;
    int64_t r0, nchunk, c0, nblk;
    nd_bf16_path path;
    atomic_int fail;
} bf_ctx;

static void pack_a_body(void *vctx, int64_t begin, int64_t end)
{
    bf_ctx *c = vctx;
    for (int64_t i = begin; i < end; i++) {
        int64_t r = c->r0 + i * MR, mr = c->M - r < MR ? c->M - r : MR;
        pack_a(c->ap + i * MR * c->Kp, c->A, c->ars, c->acs, r, mr, c->K, c->Kp);
    }
}

static void pack_b_body(void *vctx, int64_t begin, int64_t end)
{
    bf_ctx *c = vctx;
    for (int64_t i = begin; i < end; i++) {
        int64_t col = c->c0 + i * c->NB, nbv = c->N - col < c->NB ? c->N - col : c->NB;
        pack_b(c->bp + i * c->NB * c->Kp, c->B, c->brs, c->bcs, col, nbv, c->NB, c->K, c->Kp);
    }
}

/* C block (rows r, columns col; mr x nbv valid values of cb) = alpha * cb + beta * C. */
static void write_back(const bf_ctx *c, const float *cb, int64_t r, int64_t col, int64_t mr, int64_t nbv)
{
    const int64_t is = c->tc == ND_FLOAT32 ? 4 : 2;
    for (int64_t i = 0; i < mr; i++) {
        const float *s = cb + i * c->NB;
        char *row = c->C + ((r + i) * c->crs + col * c->ccs) * is;
        if (c->tc == ND_FLOAT32) {
            float *d = (float *)(void *)row;
            if (c->alpha == 1.0f && c->beta == 0.0f && c->ccs == 1) memcpy(d, s, (size_t)nbv * 4);
            else
                for (int64_t j = 0; j < nbv; j++)
                    d[j * c->ccs] = c->beta == 0.0f ? c->alpha * s[j] : c->alpha * s[j] + c->beta * d[j * c->ccs];
        } else {
            uint16_t *d = (uint16_t *)(void *)row;
            for (int64_t j = 0; j < nbv; j++) {
                float v = c->alpha * s[j];
                if (c->beta != 0.0f) v += c->beta * nd_bf16_to_float(d[j * c->ccs]);
                d[j * c->ccs] = nd_float_to_bf16(v);
            }
        }
    }
}

/* Items [begin, end) of the pass, block-major: item = block * nchunk + chunk. */
static void compute_body(void *vctx, int64_t begin, int64_t end)
{
    bf_ctx *c = vctx;
    float *cb = nd__malloc((size_t)(MR * c->NB) * 4);
    if (!cb) {
        atomic_store(&c->fail, 1);
        return;
    }
    if (c->path == ND_BF16_AMX) amx_configure();
    for (int64_t it = begin; it < end; it++) {
        int64_t blk = it / c->nchunk, ch = it % c->nchunk;
        const uint16_t *ap = c->ap + ch * MR * c->Kp, *bp = c->bp + blk * c->NB * c->Kp;
        if (c->path == ND_BF16_AMX) kernel_amx(ap, bp, cb, c->NB, c->Kp);
        else kernel_avx512(ap, bp, cb, c->NB, c->Kp);
        int64_t r = c->r0 + ch * MR, col = c->c0 + blk * c->NB;
        write_back(c, cb, r, col, c->M - r < MR ? c->M - r : MR, c->N - col < c->NB ? c->N - col : c->NB);
    }
    if (c->path == ND_BF16_AMX) amx_release();
    nd__free(cb);
}

bool nd__bf16_gemm(int64_t M, int64_t N, int64_t K, double alpha, const void *A, int64_t ars, int64_t acs,
                   const void *B, int64_t brs, int64_t bcs, double beta, void *C, nd_dtype tc, int64_t crs,
                   int64_t ccs)
{
    bf_ctx c;
    memset(&c, 0, sizeof c);
    c.A = A, c.B = B, c.ars = ars, c.acs = acs, c.brs = brs, c.bcs = bcs;
    c.C = C, c.crs = crs, c.ccs = ccs, c.tc = tc, c.alpha = (float)alpha, c.beta = (float)beta;
    c.M = M, c.N = N, c.K = K, c.path = nd__bf16_path();
    c.Kp = (K + KALIGN - 1) / KALIGN * KALIGN;
    /* a B block of about BLOCK_BYTES (a core's L2), 32 to 1024 columns */
    int64_t npad = (N + 31) / 32 * 32;
    c.NB = BLOCK_BYTES / (c.Kp * 2) / 32 * 32;
    if (c.NB < 32) c.NB = 32;
    if (c.NB > 1024) c.NB = 1024;
    if (c.NB > npad) c.NB = npad;
    const int64_t nchunk_all = (M + MR - 1) / MR, nblk_all = (N + c.NB - 1) / c.NB;
    int64_t cpp = PASS_BYTES / (MR * c.Kp * 2), bpp = PASS_BYTES / (c.NB * c.Kp * 2);
    if (cpp < 1) cpp = 1;
    if (bpp < 1) bpp = 1;
    if (cpp > nchunk_all) cpp = nchunk_all;
    if (bpp > nblk_all) bpp = nblk_all;
    c.ap = nd__malloc((size_t)(cpp * MR * c.Kp) * 2);
    c.bp = nd__malloc((size_t)(bpp * c.NB * c.Kp) * 2);
    atomic_init(&c.fail, 0);
    if (!c.ap || !c.bp) {
        nd__free(c.ap);
        nd__free(c.bp);
        return false;
    }
    const int64_t flops_item = MR * c.NB * c.Kp / 16; /* element-cost units: ~16 MACs per plain add */
    for (int64_t ch0 = 0; ch0 < nchunk_all; ch0 += cpp) {
        c.r0 = ch0 * MR;
        c.nchunk = nchunk_all - ch0 < cpp ? nchunk_all - ch0 : cpp;
        nd__parallel_for(c.nchunk, MR * c.Kp, pack_a_body, &c);
        for (int64_t b0 = 0; b0 < nblk_all; b0 += bpp) {
            c.c0 = b0 * c.NB;
            c.nblk = nblk_all - b0 < bpp ? nblk_all - b0 : bpp;
            /* B is packed again for each pass over A's rows: more than one
             * pass only when packed A would pass PASS_BYTES (M * K > 4 Mi) */
            if (ch0 == 0 || nblk_all > bpp) nd__parallel_for(c.nblk, c.NB * c.Kp, pack_b_body, &c);
            nd__parallel_for(c.nblk * c.nchunk, flops_item, compute_body, &c);
        }
    }
    nd__free(c.ap);
    nd__free(c.bp);
    return !atomic_load(&c.fail);
}

#else /* no kernels in this build: nd__bf16_path() is always ND_BF16_SGEMM */

bool nd__bf16_gemm(int64_t M, int64_t N, int64_t K, double alpha, const void *A, int64_t ars, int64_t acs,
                   const void *B, int64_t brs, int64_t bcs, double beta, void *C, nd_dtype tc, int64_t crs,
                   int64_t ccs)
{
    (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)ars, (void)acs, (void)B, (void)brs, (void)bcs;
    (void)beta, (void)C, (void)tc, (void)crs, (void)ccs;
    return false;
}
#endif
