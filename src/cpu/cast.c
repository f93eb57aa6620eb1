/* CPU casts between all dtypes (one strided loop per pair, generated from
 * the shared element conversions of src/shared/convert.h, which also serve the
 * CUDA cast kernels) and constant fills. */
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ND_X86 1
#endif

#include "shared/convert.h"
#include "cpu/cpu.h"
#include "cpu/transpose.h"

#define DEF_CAST(S, D)                                                                      \
    static void cast_##S##_##D(char **args, const int64_t *steps, int64_t n, const void *ctx) \
    {                                                                                       \
        (void)ctx;                                                                          \
        char *dst = args[0];                                                                \
        const char *src = args[1];                                                          \
        if (steps[0] == (int64_t)sizeof(nd_##D##_t) && steps[1] == (int64_t)sizeof(nd_##S##_t)) { \
            nd_##D##_t *restrict d = (nd_##D##_t *)(void *)dst;                             \
            const nd_##S##_t *restrict s = (const nd_##S##_t *)(const void *)src;           \
            for (int64_t i = 0; i < n; i++) d[i] = nd_cvt_##S##_##D(s[i]);                  \
        } else {                                                                            \
            for (int64_t i = 0; i < n; i++) {                                               \
                nd_##S##_t v;                                                               \
                memcpy(&v, src + i * steps[1], sizeof v);                                   \
                nd_##D##_t r = nd_cvt_##S##_##D(v);                                         \
                memcpy(dst + i * steps[0], &r, sizeof r);                                   \
            }                                                                               \
        }                                                                                   \
    }
#define DEF_CAST_FROM(S) ND_DTYPE_PAIRS(DEF_CAST, S)
ND_DTYPE_SUFFIXES(DEF_CAST_FROM)

#define CAST_NAME(S, D) cast_##S##_##D,
#define ROW(S) {ND_DTYPE_PAIRS(CAST_NAME, S)},
/* cast_loops[src][dst] */
static const nd_loop_fn cast_loops[ND_NUM_DTYPES][ND_NUM_DTYPES] = {ND_DTYPE_SUFFIXES(ROW)};

/* dst[i] = src[-i] (or dst[-i] = src[i]): n items of N bytes, one side
 * walking backwards. Written on the forward side, so the stores stream. */
/* gcc's -O2 cost model leaves these loops scalar; clang vectorises at -O2
 * and has no optimize attribute */
#if defined(__clang__)
#define ND_VECTORIZE
#else
#define ND_VECTORIZE __attribute__((optimize("tree-vectorize")))
#endif
#define COPY_REVERSED(N)                                                                      \
    ND_VECTORIZE static void copy_reversed_##N(char **args,                                  \
                                                                              const int64_t *steps, int64_t n) \
    {                                                                                         \
        char *restrict d = args[0];                                                           \
        const char *restrict s = args[1];                                                     \
        /* memcpy: the pointers may be unaligned (an imported view) */                       \
        if (steps[0] > 0)                                                                     \
            for (int64_t i = 0; i < n; i++) memcpy(d + i * N, s - i * N, N);                  \
        else                                                                                  \
            for (int64_t i = 0; i < n; i++) memcpy(d - i * N, s + i * N, N);                  \
    }
COPY_REVERSED(1)
COPY_REVERSED(2)
COPY_REVERSED(4)
COPY_REVERSED(8)
#undef COPY_REVERSED

/* Same-size copies (no conversion) move bytes. */
static void copy_bytes(char **args, const int64_t *steps, int64_t n, const void *ctx)
{
    size_t sz = *(const size_t *)ctx;
    if (steps[0] == (int64_t)sz && steps[1] == (int64_t)sz) {
        memcpy(args[0], args[1], (size_t)n * sz);
        return;
    }
    /* one side reversed (a flipped view: np.flip, a[::-1]): a typed loop
     * that the compiler vectorises with a permute, instead of the strided
     * per-element copy below */
    if ((steps[0] == (int64_t)sz && steps[1] == -(int64_t)sz) || (steps[1] == (int64_t)sz && steps[0] == -(int64_t)sz)) {
        switch (sz) {
        case 1: copy_reversed_1(args, steps, n); return;
        case 2: copy_reversed_2(args, steps, n); return;
        case 4: copy_reversed_4(args, steps, n); return;
        case 8: copy_reversed_8(args, steps, n); return;
        default: break;
        }
    }
    switch (sz) {
#define COPY_N(N, T)                                                                     \
    case N:                                                                              \
        for (int64_t i = 0; i < n; i++) memcpy(args[0] + i * steps[0], args[1] + i * steps[1], N); \
        break;
        COPY_N(1, uint8_t) COPY_N(2, uint16_t) COPY_N(4, uint32_t) COPY_N(8, uint64_t)
#undef COPY_N
    default:
        for (int64_t i = 0; i < n; i++) memcpy(args[0] + i * steps[0], args[1] + i * steps[1], sz);
    }
}

/* ------------------------------------------------------------------ */
/* Transposed copies/casts: cache-blocked                              */
/* ------------------------------------------------------------------ */
/* When the source is contiguous along an axis Q other than the output's
 * innermost axis A (a transposed view), walking A reads one element per
 * source cache line. Instead the A x Q plane is cut into TB x TB tiles:
 * within a tile each source line is reused for all its elements while it
 * sits in L1. Same-size 4- and 8-byte copies use in-register 8x8 / 4x4
 * transposes (AVX, chosen at run time); other copies and every cast run
 * the ordinary strided loop over the tile's rows. */
#define TB 32
/* In-register path: tiles of 64 x 64 items, so each strided row is read
 * and written 4 (float32) or 8 (float64) whole lines at a time, long
 * enough for the prefetchers (measured here: 64 beat 32 and 128 for
 * float32, 64 beat 32 for float64). */
#define TB_SIMD 64

typedef struct {
    nd_loop_fn loop;
    const void *lctx;
    char *d;
    const char *s;
    int nouter;
    int64_t oshape[ND_MAX_DIMS], ods[ND_MAX_DIMS], oss[ND_MAX_DIMS]; /* other axes */
    int64_t nA, nQ, dsA, dsQ, ssA, ssQ; /* byte strides */
    int64_t tA, tQ;                     /* tiles along A and Q */
    int simd;                           /* 4 or 8: in-register transposes of that item size */
    bool nt;                            /* streaming stores (large destination, aligned rows) */
    int64_t tb;                         /* tile side */
} tr_job;

#ifdef ND_X86
/* One tile (na x nq items at d, s). A whole tile is transposed block by
 * block into an L1 buffer (source rows consumed a cache line at a time),
 * then each buffer row goes out as whole cache lines (streaming stores
 * when nt: the destination is too large to stay in cache, so it is not
 * read for ownership). Power-of-two row strides map every strided row to
 * the same few cache sets; this order keeps at most 8 rows of each side
 * in flight. Partial tiles at the edges go item by item. */
__attribute__((target("avx"))) static void tile_simd(const tr_job *j, char *d, const char *s, int64_t na, int64_t nq,
                                                     bool nt)
{
    const int64_t isz = j->simd;
    const int64_t tb = j->tb;
    if (na == tb && nq == tb) {
        _Alignas(64) char buf[TB_SIMD * TB_SIMD * 8];
        const int64_t rb = tb * isz; /* bytes of one buffer row */
        if (isz == 4) {
            for (int64_t a = 0; a < tb; a += 8)
                for (int64_t q = 0; q < tb; q += 8) tr8x8_32(buf + q * rb + a * 4, rb, s + a * j->ssA + q * 4, j->ssA);
        } else {
            for (int64_t a = 0; a < tb; a += 4)
                for (int64_t q = 0; q < tb; q += 4) tr4x4_64(buf + q * rb + a * 8, rb, s + a * j->ssA + q * 8, j->ssA);
        }
        for (int64_t q = 0; q < tb; q++) {
            const __m256 *src = (const __m256 *)(const void *)(buf + q * rb);
            float *dst = (float *)(void *)(d + q * j->dsQ);
            if (nt)
                for (int64_t k = 0; k < rb / 32; k++) _mm256_stream_ps(dst + 8 * k, src[k]);
            else
                for (int64_t k = 0; k < rb / 32; k++) _mm256_storeu_ps(dst + 8 * k, src[k]);
        }
        return;
    }
    for (int64_t a = 0; a < na; a++)
        for (int64_t q = 0; q < nq; q++) memcpy(d + q * j->dsQ + a * isz, s + a * j->ssA + q * isz, (size_t)isz);
}
#endif

static void tr_rows(const tr_job *j, int64_t b, int64_t e)
{
    for (int64_t item = b; item < e; item++) {
        /* item = (outer index, tile along Q); the A tiles are walked inside */
        int64_t tq = item % j->tQ, o = item / j->tQ;
        char *d = j->d;
        const char *s = j->s;
        for (int k = j->nouter - 1; k >= 0; k--) {
            int64_t i = o % j->oshape[k];
            o /= j->oshape[k];
            d += i * j->ods[k];
            s += i * j->oss[k];
        }
        int64_t q0 = tq * j->tb, nq = j->nQ - q0 < j->tb ? j->nQ - q0 : j->tb;
        d += q0 * j->dsQ;
        s += q0 * j->ssQ;
        for (int64_t a0 = 0; a0 < j->nA; a0 += j->tb) {
            int64_t na = j->nA - a0 < j->tb ? j->nA - a0 : j->tb;
            char *dt = d + a0 * j->dsA;
            const char *st = s + a0 * j->ssA;
#ifdef ND_X86
            if (j->simd) {
                tile_simd(j, dt, st, na, nq, j->nt && ((uintptr_t)dt & 31) == 0);
                continue;
            }
#endif
            for (int64_t q = 0; q < nq; q++) {
                char *args[2] = {dt + q * j->dsQ, (char *)(uintptr_t)(st + q * j->ssQ)};
                int64_t steps[2] = {j->dsA, j->ssA};
                j->loop(args, steps, na, j->lctx);
            }
        }
    }
}

static void tr_body(void *ctx, int64_t b, int64_t e)
{
    const tr_job *j = ctx;
#ifdef ND_X86
    if (j->nt) tr_rows(j, b, e), _mm_sfence(); /* streaming stores are weakly ordered */
    else
#endif
        tr_rows(j, b, e);
}

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

/* Run the cast blocked when it is a transpose; false: not one. */
static bool try_transposed(const nd_iter *it, nd_loop_fn loop, const void *lctx, bool same, int64_t cost)
{
    int nd = it->ndim;
    if (nd < 2 || it->size < 4 * TB * TB) return false;
    int64_t dsz = (int64_t)it->itemsize[0], ssz = (int64_t)it->itemsize[1];
    int A = nd - 1;
    if (it->strides[0][A] != dsz || abs64(it->strides[1][A]) < 4 * ssz) return false;
    if (it->shape[A] < TB / 2) return false;
    int Q = -1;
    for (int k = 0; k < A; k++)
        if (it->strides[1][k] == ssz && it->shape[k] >= TB / 2) Q = k;
    if (Q < 0) return false;
    tr_job j;
    memset(&j, 0, sizeof j);
    j.loop = loop;
    j.lctx = lctx;
    j.d = it->data[0];
    j.s = it->data[1];
    j.nA = it->shape[A], j.dsA = it->strides[0][A], j.ssA = it->strides[1][A];
    j.nQ = it->shape[Q], j.dsQ = it->strides[0][Q], j.ssQ = it->strides[1][Q];
    int64_t nout = 1;
    for (int k = 0; k < A; k++) {
        if (k == Q) continue;
        j.oshape[j.nouter] = it->shape[k];
        j.ods[j.nouter] = it->strides[0][k];
        j.oss[j.nouter++] = it->strides[1][k];
        nout *= it->shape[k];
    }
    j.tb = TB;
#ifdef ND_X86
    if (same && (dsz == 4 || dsz == 8) && nd__cpu_isa() >= ND_ISA_AVX2) {
        j.simd = (int)dsz;
        j.tb = TB_SIMD;
        j.nt = it->size * dsz >= ((int64_t)16 << 20) && j.dsQ % 32 == 0;
    }
#else
    (void)same;
#endif
    j.tA = (j.nA + j.tb - 1) / j.tb;
    j.tQ = (j.nQ + j.tb - 1) / j.tb;
    nd__parallel_for(nout * j.tQ, cost * j.tb * j.nA, tr_body, &j);
    return true;
}

nd_loop_fn nd__cpu_cast_loop(nd_dtype from, nd_dtype to)
{
    return nd__dtype_valid(from) && nd__dtype_valid(to) ? cast_loops[from][to] : NULL;
}

nd_status nd__cpu_cast(nd_array *dst, const nd_array *src)
{
    const nd_array *ops[2] = {dst, src};
    nd_iter it;
    nd__iter_init(&it, 2, ops);
    if (dst->dtype == src->dtype) {
        size_t sz = nd__itemsize(dst->dtype);
        if (try_transposed(&it, copy_bytes, &sz, true, 1)) return ND_OK;
        nd__iter_run(&it, copy_bytes, &sz, 1);
    } else {
        if (try_transposed(&it, cast_loops[src->dtype][dst->dtype], NULL, false, 2)) return ND_OK;
        nd__iter_run(&it, cast_loops[src->dtype][dst->dtype], NULL, 2);
    }
    return ND_OK;
}

static void fill_loop(char **args, const int64_t *steps, int64_t n, const void *ctx)
{
    const unsigned char *v = ctx;
    size_t sz = (size_t)v[0];
    const void *val = v + 8;
    if (steps[0] == (int64_t)sz) {
        switch (sz) {
#define FILL_N(N, T)                                                       \
    case N: {                                                              \
        T x, *restrict d = (T *)(void *)args[0];                           \
        memcpy(&x, val, N);                                                \
        for (int64_t i = 0; i < n; i++) d[i] = x;                          \
        return;                                                            \
    }
            FILL_N(1, uint8_t) FILL_N(2, uint16_t) FILL_N(4, uint32_t) FILL_N(8, uint64_t)
#undef FILL_N
        }
    }
    for (int64_t i = 0; i < n; i++) memcpy(args[0] + i * steps[0], val, sz);
}

nd_status nd__cpu_fill(nd_array *dst, const void *value)
{
    _Alignas(8) unsigned char ctx[24] = {0}; /* size, then the value: up to 16 bytes (complex128) */
    size_t sz = nd__itemsize(dst->dtype);
    ctx[0] = (unsigned char)sz;
    memcpy(ctx + 8, value, sz);
    const nd_array *ops[1] = {dst};
    nd_iter it;
    nd__iter_init(&it, 1, ops);
    nd__iter_run(&it, fill_loop, ctx, 1);
    return ND_OK;
}
