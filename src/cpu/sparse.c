/* The sparse slot on the CPU (contract: src/shared/sparse_slots.h):
 * threaded row loops over CSR operands. Work is split into row ranges
 * balanced by stored entries plus rows (sp_rows), so that a few long rows
 * (power-law matrices) do not leave threads idle; SpGEMM is Gustavson's
 * two passes (count, then accumulate into a dense row with a marker);
 * conversions are counting sorts. The loops for each (index, value) type
 * pair come from src/cpu/sparse_tmpl.h. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/isa.h"
#include "cpu/sort_cpu.h"
#include "shared/half.h"
#include "shared/sparse_slots.h"
#if ND_ISA_X86
#include <immintrin.h>
#endif

typedef float _Complex sp_c64;
typedef double _Complex sp_c128;

typedef struct sp_ctx {
    unsigned flags;
    int64_t rows, cols, k, len, nnz;
    int64_t xs0, xs1; /* MUL_DENSE: x's strides in elements */
    double alpha, beta;
    const void *ap, *ai, *ad, *bp, *bi, *bd, *x, *row;
    void *cp, *ci, *cd, *y;
    void *tp, *ti, *td; /* scratch CSR */
    int64_t *hist, nch, nkeys; /* FROM_COO: per-chunk key histograms, chunks, keys */
    void *tk;                   /* FROM_COO: where the keys go (NULL: nowhere) */
    void (*inner)(struct sp_ctx *, int64_t, int64_t); /* SpMV streaming y: the row loop */
    bool i64;                   /* SpMV streaming y: the index type */
    int64_t vsz;                /* SpMV streaming y: the value size (4, 8) */
    atomic_int nomem;
} sp_ctx;

typedef struct sp_pair {
    int64_t key, pos;
} sp_pair;

/* A host workspace of n elements of elem bytes (a SpGEMM row's dense
 * accumulator: one per column of the result, as scipy's), or NULL: its
 * byte count is checked for overflow (a product with 2^62 columns once
 * asked malloc for n * 8 bytes, which wraps to 0) and against the CPU's
 * memory limit when one is set (nd_memory_set_limit), so that an
 * impossible size is refused before the system allocator is asked. It
 * stays a plain malloc: the C library keeps freed blocks of this size for
 * the next call, where arrays of this size (huge-page aligned, returned to
 * the system) cost a SpGEMM of the 1e6-row Laplacian a third of its time
 * in page faults. Released with nd__free. */
static void *sp_work(int64_t n, size_t elem)
{
    if (n < 0 || (uint64_t)n > (SIZE_MAX - 1) / elem) return NULL;
    const size_t bytes = (size_t)n * elem + 1;
    nd_memory_stats ms;
    if (nd_memory_get_stats(&ms, nd_cpu()) == ND_OK && ms.limit &&
        (ms.in_use > ms.limit || bytes > ms.limit - ms.in_use))
        return NULL;
    return nd__malloc(bytes);
}

/* stable (ties keep their order): insertion sort for short runs, then
 * bottom-up merges through the scratch w2 (n pairs) */
static void sp_sort_pairs(sp_pair *w, sp_pair *w2, int64_t n)
{
    const int64_t RUN = 32;
    for (int64_t b = 0; b < n; b += RUN) {
        int64_t e = b + RUN < n ? b + RUN : n;
        for (int64_t i = b + 1; i < e; i++) {
            sp_pair v = w[i];
            int64_t j = i;
            for (; j > b && w[j - 1].key > v.key; j--) w[j] = w[j - 1];
            w[j] = v;
        }
    }
    sp_pair *src = w, *dst = w2;
    for (int64_t width = RUN; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = src[j].key < src[i].key ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        sp_pair *t = src;
        src = dst;
        dst = t;
    }
    if (src != w) memcpy(w, src, (size_t)n * sizeof *w);
}

/* ascending sort of 64-bit keys (a row's column << 32 | position: unique,
 * so the order is the stable one): insertion sort for short runs,
 * quicksort (median of three) above, heapsort past a depth limit */
static void sp_isort_u64(uint64_t *v, int64_t n)
{
    for (int64_t i = 1; i < n; i++) {
        uint64_t t = v[i];
        int64_t j = i;
        for (; j > 0 && v[j - 1] > t; j--) v[j] = v[j - 1];
        v[j] = t;
    }
}
static void sp_sift_u64(uint64_t *v, int64_t i, int64_t n)
{
    uint64_t t = v[i];
    for (int64_t ch; (ch = 2 * i + 1) < n; i = ch) {
        if (ch + 1 < n && v[ch + 1] > v[ch]) ch++;
        if (v[ch] <= t) break;
        v[i] = v[ch];
    }
    v[i] = t;
}
static void sp_sort_u64(uint64_t *v, int64_t n, int depth)
{
    while (n > 24) {
        if (depth-- == 0) { /* heapsort */
            for (int64_t i = n / 2 - 1; i >= 0; i--) sp_sift_u64(v, i, n);
            for (int64_t e = n - 1; e > 0; e--) {
                uint64_t t = v[0];
                v[0] = v[e];
                v[e] = t;
                sp_sift_u64(v, 0, e);
            }
            return;
        }
        uint64_t a = v[0], b = v[n / 2], c = v[n - 1];
        uint64_t piv = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        int64_t i = 0, j = n - 1;
        for (;;) { /* Hoare partition: [0, j] <= piv <= [j + 1, n) */
            while (v[i] < piv) i++;
            while (v[j] > piv) j--;
            if (i >= j) break;
            uint64_t t = v[i];
            v[i++] = v[j];
            v[j--] = t;
        }
        if (j + 1 < n - j - 1) {
            sp_sort_u64(v, j + 1, depth);
            v += j + 1, n -= j + 1;
        } else {
            sp_sort_u64(v + j + 1, n - j - 1, depth);
            n = j + 1;
        }
    }
    sp_isort_u64(v, n);
}

#define SP_SORT_IDX(T, S)                                                     \
    static int sp_cmp_##S(const void *x, const void *y)                       \
    {                                                                         \
        T a = *(const T *)x, b = *(const T *)y;                               \
        return (a > b) - (a < b);                                             \
    }                                                                         \
    static void sp_sort_idx_##S(T *v, int64_t n)                              \
    {                                                                         \
        if (n > 32) {                                                         \
            qsort(v, (size_t)n, sizeof(T), sp_cmp_##S);                       \
            return;                                                           \
        }                                                                     \
        for (int64_t i = 1; i < n; i++) {                                     \
            T t = v[i];                                                       \
            int64_t j = i;                                                    \
            for (; j > 0 && v[j - 1] > t; j--) v[j] = v[j - 1];               \
            v[j] = t;                                                         \
        }                                                                     \
    }
SP_SORT_IDX(int32_t, i32)
SP_SORT_IDX(int64_t, i64)

/* ---- the row-range driver ---- */
typedef void (*sp_rows_fn)(sp_ctx *c, int64_t r0, int64_t r1);
typedef struct {
    sp_ctx *c;
    sp_rows_fn fn;
    const void *ptr; /* indptr whose entries weigh the rows (NULL: rows alone) */
    bool i64;
    int64_t rows, nparts, total;
} sp_par;

static inline int64_t sp_ptr_at(const sp_par *p, int64_t r)
{
    if (!p->ptr) return 0;
    return p->i64 ? ((const int64_t *)p->ptr)[r] : (int64_t)((const int32_t *)p->ptr)[r];
}
/* the first row r with ptr[r] + r >= target */
static int64_t sp_split(const sp_par *p, int64_t target)
{
    int64_t lo = 0, hi = p->rows;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (sp_ptr_at(p, mid) + mid < target) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
static void sp_par_body(void *ctx, int64_t b, int64_t e)
{
    const sp_par *p = ctx;
    for (int64_t i = b; i < e; i++) {
        int64_t r0 = sp_split(p, (int64_t)((double)p->total * (double)i / (double)p->nparts));
        int64_t r1 = i + 1 == p->nparts ? p->rows
                                        : sp_split(p, (int64_t)((double)p->total * (double)(i + 1) / (double)p->nparts));
        if (r1 > r0) p->fn(p->c, r0, r1);
    }
}
/* fn over rows [0, rows) in parts of about equal weight (entries per the
 * indptr ptr, times `per`, plus one per row) */
static void sp_rows_n(sp_ctx *c, sp_rows_fn fn, int64_t rows, const void *ptr, bool i64, int64_t per, int ppt)
{
    if (rows <= 0) return;
    sp_par p = {.c = c, .fn = fn, .ptr = ptr, .i64 = i64, .rows = rows};
    int64_t nnz = sp_ptr_at(&p, rows);
    p.total = nnz + rows;
    int64_t work = (nnz + rows) * (per < 1 ? 1 : per);
    int nt = nd__num_threads();
    p.nparts = nt <= 1 ? 1 : (int64_t)nt * ppt;
    if (p.nparts > rows) p.nparts = rows;
    nd__parallel_for(p.nparts, work / p.nparts + 1, sp_par_body, &p);
}

/* 16 parts per thread: what the dynamic chunks of the pool balance */
static void sp_rows(sp_ctx *c, sp_rows_fn fn, int64_t rows, const void *ptr, bool i64, int64_t per)
{
    sp_rows_n(c, fn, rows, ptr, i64, per, 16);
}

/* ---- the (index, value) instances ---- */
#define IT int32_t
#define SORT_IDX sp_sort_idx_i32
#define VT float
#define S i32_f32
#include "cpu/sparse_tmpl.h"
#undef VT
#undef S
#define VT double
#define S i32_f64
#include "cpu/sparse_tmpl.h"
#undef VT
#undef S
#define VT sp_c64
#define S i32_c64
#include "cpu/sparse_tmpl.h"
#undef VT
#undef S
#define VT sp_c128
#define S i32_c128
#include "cpu/sparse_tmpl.h"
#undef VT
#undef S
#undef IT
#undef SORT_IDX
#define IT int64_t
#define SORT_IDX sp_sort_idx_i64
#define VT float
#define S i64_f32
#include "cpu/sparse_tmpl.h"
#undef VT
#undef S
#define VT double
#define S i64_f64
#include "cpu/sparse_tmpl.h"
#undef VT
#undef S
#define VT sp_c64
#define S i64_c64
#include "cpu/sparse_tmpl.h"
#undef VT
#undef S
#define VT sp_c128
#define S i64_c128
#include "cpu/sparse_tmpl.h"
#undef VT
#undef S
#undef IT
#undef SORT_IDX

/* ---- SpMV on the AVX-512 path (float32/float64 values, k == 1) ----
 * One row at a time, its entries in vectors of L lanes (256-bit gathers:
 * four float64 or eight float32, four float32 with int64 indices): two
 * accumulators over the full pairs of vectors, one more full vector when
 * more than L entries remain, then the last 0 to L entries loaded and
 * gathered under a mask, the lanes summed at the row's end. A row of at
 * most L entries (most rows of a power-law matrix) is one masked step with
 * no loop, so that rows of random lengths do not mispredict and the
 * gathers of many rows are in flight at once. 256-bit gathers, not 512:
 * on an AMD EPYC Zen 5 (2 threads, a power-law matrix of 1e6 rows and
 * 7.9e6 entries) this loop took 4.2-5.8 ms where the same loop with 8-wide
 * 512-bit masked gathers took 6.8-7.7 ms and a scalar loop 6.0-7.8
 * (interleaved runs; one thread: 10.1 ms against 14.1 and 15.3); most
 * rows hold 1 to 4 entries, for which the 512-bit loop paid a full-width
 * gather and a three-step lane sum. Not measured yet on Intel or Zen 4
 * (the 512-bit loop's figures there: docs/sparse.md). Rows of one length
 * (a stencil) predict well in the scalar loop, which is faster for them
 * than a gather and a lane sum per row: a matrix takes the vector loop
 * when its row lengths vary (sp_irregular). */
#if ND_ISA_X86
/* whether row lengths vary: at 64 places spread over the matrix, a row's
 * length differs from the next row's at least once in four (decided once
 * per call, so that the result does not depend on the threads) */
static bool sp_irregular(const void *ap, bool i64, int64_t rows)
{
    int64_t n = rows - 1 < 64 ? rows - 1 : 64, changes = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i * (rows - 1) / n, l0, l1;
        if (i64) {
            const int64_t *p = ap;
            l0 = p[r + 1] - p[r], l1 = p[r + 2] - p[r + 1];
        } else {
            const int32_t *p = ap;
            l0 = (int64_t)p[r + 1] - p[r], l1 = (int64_t)p[r + 2] - p[r + 1];
        }
        changes += l0 != l1;
    }
    return n > 0 && 4 * changes >= n;
}
#define SP_SPMV256(NAME, IT_, VT_, L, VEC, IDXV, LOADIDX, MLOADIDX, GATHER, MGATHER, ZERO, LOADV, MLOADV, FMA, ADD, RED) \
    ND_ISA_TARGET_AVX512 static void NAME(sp_ctx *c, int64_t r0, int64_t r1)                                   \
    {                                                                                                           \
        const IT_ *ap = c->ap, *ai = c->ai;                                                                     \
        const VT_ *ad = c->ad, *x = c->x;                                                                       \
        VT_ *y = c->y;                                                                                          \
        int64_t p = ap[r0];                                                                                     \
        for (int64_t r = r0; r < r1; r++) {                                                                     \
            int64_t e = ap[r + 1];                                                                              \
            VEC a0 = ZERO(), a1 = ZERO();                                                                       \
            for (; p + 2 * (L) <= e; p += 2 * (L)) {                                                            \
                a0 = FMA(LOADV(ad + p), GATHER(x, (IDXV)LOADIDX((const void *)(ai + p)), sizeof(VT_)), a0);      \
                a1 = FMA(LOADV(ad + p + (L)), GATHER(x, (IDXV)LOADIDX((const void *)(ai + p + (L))), sizeof(VT_)), \
                         a1);                                                                                   \
            }                                                                                                   \
            if (e - p > (L)) {                                                                                  \
                a0 = FMA(LOADV(ad + p), GATHER(x, (IDXV)LOADIDX((const void *)(ai + p)), sizeof(VT_)), a0);      \
                p += (L);                                                                                       \
            }                                                                                                   \
            __mmask8 m = (__mmask8)((1u << (e - p)) - 1u);                                                      \
            a1 = FMA(MLOADV(m, ad + p), MGATHER(ZERO(), m, MLOADIDX(m, ai + p), x, sizeof(VT_)), a1);           \
            y[r] = RED(ADD(a0, a1));                                                                            \
            p = e;                                                                                              \
        }                                                                                                       \
    }
ND_ISA_TARGET_AVX512 static inline double sp_red256_pd(__m256d v)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
ND_ISA_TARGET_AVX512 static inline float sp_red128_ps(__m128 s)
{
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
ND_ISA_TARGET_AVX512 static inline float sp_red256_ps(__m256 v)
{
    return sp_red128_ps(_mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1)));
}
SP_SPMV256(spmv512_i32_f64, int32_t, double, 4, __m256d, __m128i, _mm_loadu_si128, _mm_maskz_loadu_epi32,
           _mm256_i32gather_pd, _mm256_mmask_i32gather_pd, _mm256_setzero_pd, _mm256_loadu_pd, _mm256_maskz_loadu_pd,
           _mm256_fmadd_pd, _mm256_add_pd, sp_red256_pd)
SP_SPMV256(spmv512_i64_f64, int64_t, double, 4, __m256d, __m256i, _mm256_loadu_si256, _mm256_maskz_loadu_epi64,
           _mm256_i64gather_pd, _mm256_mmask_i64gather_pd, _mm256_setzero_pd, _mm256_loadu_pd, _mm256_maskz_loadu_pd,
           _mm256_fmadd_pd, _mm256_add_pd, sp_red256_pd)
SP_SPMV256(spmv512_i32_f32, int32_t, float, 8, __m256, __m256i, _mm256_loadu_si256, _mm256_maskz_loadu_epi32,
           _mm256_i32gather_ps, _mm256_mmask_i32gather_ps, _mm256_setzero_ps, _mm256_loadu_ps, _mm256_maskz_loadu_ps,
           _mm256_fmadd_ps, _mm256_add_ps, sp_red256_ps)
SP_SPMV256(spmv512_i64_f32, int64_t, float, 4, __m128, __m256i, _mm256_loadu_si256, _mm256_maskz_loadu_epi64,
           _mm256_i64gather_ps, _mm256_mmask_i64gather_ps, _mm_setzero_ps, _mm_loadu_ps, _mm_maskz_loadu_ps,
           _mm_fmadd_ps, _mm_add_ps, sp_red128_ps)
#undef SP_SPMV256
#endif

/* ---- SpMV/SpMM of float16/bfloat16 values: products and sums in float32
 *      (each value widened as it is read), y rounded once ---- */
#define SP_SPMM_HALF(NAME, IT_, TOF, FROMF)                                                    \
    static void NAME(sp_ctx *c, int64_t r0, int64_t r1)                                        \
    {                                                                                          \
        const IT_ *ap = c->ap, *ai = c->ai;                                                    \
        const uint16_t *ad = c->ad, *x = c->x;                                                 \
        uint16_t *y = c->y;                                                                    \
        int64_t k = c->k;                                                                      \
        for (int64_t r = r0; r < r1; r++)                                                      \
            for (int64_t j0 = 0; j0 < k; j0 += 8) {                                            \
                int64_t nb = k - j0 < 8 ? k - j0 : 8;                                          \
                float acc[8] = {0};                                                            \
                for (int64_t p = ap[r]; p < ap[r + 1]; p++) {                                  \
                    float v = TOF(ad[p]);                                                      \
                    const uint16_t *xr = x + (int64_t)ai[p] * k + j0;                          \
                    for (int64_t j = 0; j < nb; j++) acc[j] += v * TOF(xr[j]);                 \
                }                                                                              \
                for (int64_t j = 0; j < nb; j++) y[r * k + j0 + j] = FROMF(acc[j]);            \
            }                                                                                  \
    }
SP_SPMM_HALF(spmm_half_i32_f16, int32_t, nd_half_to_float, nd_float_to_half)
SP_SPMM_HALF(spmm_half_i64_f16, int64_t, nd_half_to_float, nd_float_to_half)
SP_SPMM_HALF(spmm_half_i32_bf16, int32_t, nd_bf16_to_float, nd_float_to_bf16)
SP_SPMM_HALF(spmm_half_i64_bf16, int64_t, nd_bf16_to_float, nd_float_to_bf16)
#undef SP_SPMM_HALF

/* the AVX-512 SpMV for (index, value) types, or NULL (another path, dtype,
 * k > 1 or rows of one length: the template's loops) */
static sp_rows_fn sp_spmv_fast(bool i64, nd_dtype vt, int64_t k, const void *ap, int64_t rows)
{
#if ND_ISA_X86
    if (k != 1 || nd__cpu_isa() < ND_ISA_AVX512 || !sp_irregular(ap, i64, rows)) return NULL;
    if (vt == ND_FLOAT64) return i64 ? spmv512_i64_f64 : spmv512_i32_f64;
    if (vt == ND_FLOAT32) return i64 ? spmv512_i64_f32 : spmv512_i32_f32;
#else
    (void)i64, (void)vt, (void)k, (void)ap, (void)rows;
#endif
    return NULL;
}

/* ---- SpMV writing y with streaming stores ----
 * A product that moves at least SP_STREAM_BYTES of matrix and vectors
 * evicts y from the caches before anything reads it again, and a plain
 * store of y reads every line of it first (read for ownership): y is
 * written with streaming stores instead, one more tenth of the traffic
 * saved. The row loop (scalar or vector) computes a block of
 * SP_STREAM_BLOCK bytes of y into an L1 buffer (its row pointers shifted to
 * the block's first row), which then goes out by 32-byte streaming stores;
 * the rows before the first 64-byte boundary of y and the last partial
 * block are written as usual. 5-point Laplacian of 1e6 rows on an AMD EPYC
 * Zen 5, two threads: 1.75-1.80 ms against 2.10-2.16 (a stand-alone copy of
 * the scalar loop, interleaved). nd__sp_stream_min lets the tests take this
 * path on small matrices. */
#define SP_STREAM_BYTES ((int64_t)32 << 20)
#define SP_STREAM_BLOCK 4096
static int64_t g_sp_stream_min = SP_STREAM_BYTES;
void nd__sp_stream_min(int64_t bytes) { g_sp_stream_min = bytes < 0 ? SP_STREAM_BYTES : bytes; }
#if ND_ISA_X86
ND_ISA_TARGET_AVX2 static void sp_spmv_stream(sp_ctx *c, int64_t r0, int64_t r1)
{
    const size_t vsz = (size_t)c->vsz;
    const int64_t block = SP_STREAM_BLOCK / (int64_t)vsz;
    char *y = c->y;
    int64_t r = r0;
    const size_t mis = (uintptr_t)(y + (size_t)r0 * vsz) % 64;
    if (mis % vsz == 0) r += (int64_t)(((64 - mis) % 64) / vsz);
    if (r + block > r1) {
        c->inner(c, r0, r1);
        return;
    }
    if (r > r0) c->inner(c, r0, r);
    _Alignas(64) unsigned char buf[SP_STREAM_BLOCK];
    sp_ctx t = {.k = 1, .ai = c->ai, .ad = c->ad, .x = c->x, .y = buf};
    for (; r + block <= r1; r += block) {
        t.ap = c->i64 ? (const void *)((const int64_t *)c->ap + r) : (const void *)((const int32_t *)c->ap + r);
        c->inner(&t, 0, block);
        nd_cpu_stream_row(y + (size_t)r * vsz, (const char *)buf, SP_STREAM_BLOCK);
    }
    _mm_sfence(); /* the streamed lines are visible before the pool reports the part done */
    if (r < r1) c->inner(c, r, r1);
}
#endif
/* Whether an SpMV (k == 1) of these sizes writes y by streaming stores,
 * and if so c set up for it (the row loop moves to c->inner). */
static bool sp_spmv_streams(sp_ctx *c, sp_rows_fn *fn, nd_dtype vt, bool i64, int64_t rows, int64_t nnz)
{
#if ND_ISA_X86
    const int64_t vsz = vt == ND_FLOAT64 ? 8 : vt == ND_FLOAT32 ? 4 : 0;
    if (c->k != 1 || !vsz || nd__cpu_isa() < ND_ISA_AVX2 || (uintptr_t)c->y % (uintptr_t)vsz) return false;
    if (nnz * (vsz + (i64 ? 8 : 4)) + rows * 2 * vsz < g_sp_stream_min) return false;
    c->inner = *fn;
    c->i64 = i64;
    c->vsz = vsz;
    *fn = sp_spmv_stream;
    return true;
#else
    (void)c, (void)fn, (void)vt, (void)i64, (void)rows, (void)nnz;
    return false;
#endif
}

typedef struct sp_fns {
    sp_rows_fn spmm, todense, fd_count, fd_fill, canon, compact, gm_count, gm_fill, binop, muldense, rowsums, diag,
        ga_count, ga_fill;
    nd_range_fn coo_hist, coo_place;
    void (*transpose)(sp_ctx *);
} sp_fns;
#define SP_FNS(S)                                                                                              \
    {spmm_rows_##S,     todense_rows_##S, fromdense_count_##S, fromdense_fill_##S, canon_rows_##S,            \
     compact_rows_##S,  spgemm_count_##S, spgemm_fill_##S,     binop_rows_##S,     muldense_rows_##S,         \
     rowsums_rows_##S,  diag_rows_##S,    gather_count_##S,    gather_fill_##S,    coo_hist_##S,              \
     coo_place_##S,     transpose_##S}
static const sp_fns SP_TABLE[2][4] = {
    {SP_FNS(i32_f32), SP_FNS(i32_f64), SP_FNS(i32_c64), SP_FNS(i32_c128)},
    {SP_FNS(i64_f32), SP_FNS(i64_f64), SP_FNS(i64_c64), SP_FNS(i64_c128)},
};

static int sp_vslot(nd_dtype t)
{
    return t == ND_FLOAT32 ? 0 : t == ND_FLOAT64 ? 1 : t == ND_COMPLEX64 ? 2 : 3;
}

static nd_status sp_alloc1(nd_array **o, nd_dtype t, int64_t n, nd_device dev)
{
    return nd__alloc(o, t, 1, &n, dev);
}
static void sp_csr_release(nd_sp_csr *m)
{
    nd_release(m->indptr);
    nd_release(m->indices);
    nd_release(m->data);
    m->indptr = m->indices = m->data = NULL;
}
/* entry r of an int32/int64 indptr */
static inline int64_t sp_at(const void *p, bool i64, int64_t r)
{
    return i64 ? ((const int64_t *)p)[r] : (int64_t)((const int32_t *)p)[r];
}
/* prefix sum of counts in cp[1..rows] into an indptr; its total, or -1
 * when it does not fit the index dtype */
static int64_t sp_prefix(void *cp, bool i64, int64_t rows)
{
    if (i64) {
        int64_t *p = cp;
        p[0] = 0;
        for (int64_t r = 0; r < rows; r++) p[r + 1] += p[r];
        return p[rows];
    }
    int32_t *p = cp;
    int64_t t = 0;
    p[0] = 0;
    for (int64_t r = 0; r < rows; r++) {
        t += p[r + 1];
        if (t > INT32_MAX) return -1;
        p[r + 1] = (int32_t)t;
    }
    return t;
}
static nd_status sp_too_many(void)
{
    return nd__err(ND_ERR_INVALID, "sparse", "the result has more than %d stored entries, more than int32 indices "
                   "address; convert the operands to int64 indices", INT32_MAX);
}
static nd_status sp_nomem(sp_ctx *c, const char *what)
{
    if (!atomic_load(&c->nomem)) return ND_OK;
    return nd__err(ND_ERR_NOMEM, "sparse", "out of host memory for the %s workspace", what);
}

/* c's indptr (rows + 1) made and its counts filled by count_fn, then
 * indices/data sized by the total and filled by fill_fn. */
static nd_status sp_two_pass(sp_ctx *c, nd_sp_call *call, nd_device dev, nd_dtype vt, int64_t rows, int64_t cols,
                             const void *wptr, bool wi64, int64_t per, int ppt, sp_rows_fn count_fn,
                             sp_rows_fn fill_fn, const char *what)
{
    bool i64 = call->index_dtype == ND_INT64;
    nd_sp_csr o = {.rows = rows, .cols = cols};
    nd_status st = sp_alloc1(&o.indptr, call->index_dtype, rows + 1, dev);
    if (st) return st;
    c->cp = nd__ptr(o.indptr);
    c->ci = NULL;
    sp_rows_n(c, count_fn, rows, wptr, wi64, per, ppt);
    if ((st = sp_nomem(c, what))) goto fail;
    int64_t nnz = sp_prefix(c->cp, i64, rows);
    if (nnz < 0) {
        st = sp_too_many();
        goto fail;
    }
    if ((st = sp_alloc1(&o.indices, call->index_dtype, nnz, dev)) || (st = sp_alloc1(&o.data, vt, nnz, dev)))
        goto fail;
    c->ci = nd__ptr(o.indices);
    c->cd = nd__ptr(o.data);
    sp_rows_n(c, fill_fn, rows, c->cp, i64, per, ppt);
    if ((st = sp_nomem(c, what))) goto fail;
    call->c = o;
    return ND_OK;
fail:
    sp_csr_release(&o);
    return st;
}

/* The entries (key c->row, c->ai, c->ad; c->nnz) grouped by key (c->nkeys
 * values) into c->ti/td (and the keys into c->tk when set), the groups'
 * starts in tp (nkeys + 1, the index dtype), stable: chunks of the entries
 * count their keys in parallel, the counts become each chunk's first slot
 * for every key (keys in order, chunks in order within a key), and the
 * chunks place their entries in parallel. */
static nd_status sp_coo_group(sp_ctx *c, const sp_fns *f, bool i64, void *tp)
{
    int64_t m = c->nkeys, nnz = c->nnz, nt = nd__num_threads();
    /* a chunk per thread, while the histograms (chunks x keys) stay within
     * the entries' own size */
    int64_t nch = nt < 16 ? nt : 16;
    if (nch > nnz / (m + 1)) nch = nnz / (m + 1);
    if (nch < 1 || nnz < 65536) nch = 1;
    c->nch = nch;
    c->hist = nd__malloc((size_t)(nch * m + 1) * sizeof(int64_t));
    if (!c->hist) return nd__err(ND_ERR_NOMEM, "sparse", "out of host memory for the counts of %lld rows",
                                 (long long)m);
    int64_t cost = nnz / nch + m;
    nd__parallel_for(nch, cost, f->coo_hist, c);
    int64_t q = 0;
    for (int64_t r = 0; r < m; r++) {
        if (i64) ((int64_t *)tp)[r] = q;
        else ((int32_t *)tp)[r] = (int32_t)q;
        for (int64_t t = 0; t < nch; t++) {
            int64_t n = c->hist[t * m + r];
            c->hist[t * m + r] = q;
            q += n;
        }
    }
    if (i64) ((int64_t *)tp)[m] = q;
    else ((int32_t *)tp)[m] = (int32_t)q;
    nd__parallel_for(nch, cost, f->coo_place, c);
    nd__free(c->hist);
    c->hist = NULL;
    return ND_OK;
}

static nd_status sp_canon(sp_ctx *c, nd_sp_call *call, const sp_fns *f, nd_device dev, nd_dtype vt,
                          nd_array *own_i, nd_array *own_d);

/* COO to CSR (ND_SP_FROM_COO): the entries grouped by row (stable), then
 * canon sorts the rows that need it and sums the duplicates. (Sorting by
 * two stable counting sorts, by column and then by row, costs more: the
 * scatter by column writes at random places of three arrays.) */
static nd_status sp_from_coo(sp_ctx *c, nd_sp_call *call, const sp_fns *f, nd_device dev, nd_dtype vt, bool i64)
{
    nd_array *tp = NULL, *ti = NULL, *td = NULL;
    nd_dtype it = call->a.indices->dtype;
    nd_status st;
    if ((st = sp_alloc1(&tp, it, c->rows + 1, dev)) || (st = sp_alloc1(&ti, it, c->nnz, dev)) ||
        (st = sp_alloc1(&td, vt, c->nnz, dev)))
        goto done;
    c->row = nd__ptr(call->row);
    c->nkeys = c->rows;
    c->ti = nd__ptr(ti);
    c->td = nd__ptr(td);
    if ((st = sp_coo_group(c, f, i64, nd__ptr(tp)))) goto done;
    c->ap = nd__ptr(tp);
    c->ai = c->ti;
    c->ad = c->td;
    c->flags = ND_SP_SORT | (call->flags & ND_SP_SUM);
    st = sp_canon(c, call, f, dev, vt, ti, td);
done:
    nd_release(tp), nd_release(ti), nd_release(td);
    return st;
}

/* canon over the CSR held in c->ap/ai/ad (rows x cols, nnz entries); with
 * own_i/own_d (the arrays behind c->ai/c->ad, scratch of the caller) the
 * rows are rewritten in place there */
static nd_status sp_canon(sp_ctx *c, nd_sp_call *call, const sp_fns *f, nd_device dev, nd_dtype vt,
                          nd_array *own_i, nd_array *own_d)
{
    bool i64 = call->index_dtype == ND_INT64;
    nd_array *ti = own_i ? nd_retain(own_i) : NULL, *td = own_d ? nd_retain(own_d) : NULL;
    nd_sp_csr o = {.rows = c->rows, .cols = c->cols};
    nd_status st;
    if ((!ti && (st = sp_alloc1(&ti, call->index_dtype, c->nnz, dev))) ||
        (!td && (st = sp_alloc1(&td, vt, c->nnz, dev))) ||
        (st = sp_alloc1(&o.indptr, call->index_dtype, c->rows + 1, dev)))
        goto done;
    c->ti = nd__ptr(ti);
    c->td = nd__ptr(td);
    c->cp = nd__ptr(o.indptr);
    sp_rows(c, f->canon, c->rows, c->ap, i64, 4);
    if ((st = sp_nomem(c, "sort"))) goto done;
    int64_t nnz = sp_prefix(c->cp, i64, c->rows);
    if (nnz == c->nnz) { /* nothing dropped: the scratch arrays are the result */
        o.indices = ti;
        o.data = td;
        ti = td = NULL;
    } else if (own_i && nnz >= c->nnz - c->nnz / 4) {
        /* few dropped: the rows moved down within the caller's scratch, in
         * order (each row moves toward the front, never past an unmoved
         * one), which then holds the result as views of its first nnz
         * entries: no second copy of the entries in new memory */
        size_t isz = i64 ? 8 : 4, vsz = nd_dtype_size(vt);
        for (int64_t r = 0; r < c->rows; r++) {
            int64_t from = sp_at(c->ap, i64, r), to = sp_at(c->cp, i64, r), n = sp_at(c->cp, i64, r + 1) - to;
            if (from == to || n == 0) continue;
            memmove((char *)c->ti + (size_t)to * isz, (char *)c->ti + (size_t)from * isz, (size_t)n * isz);
            memmove((char *)c->td + (size_t)to * vsz, (char *)c->td + (size_t)from * vsz, (size_t)n * vsz);
        }
        int64_t one = 1;
        if ((st = nd__view(&o.indices, ti, ti->dtype, 1, &nnz, &one, ti->offset)) ||
            (st = nd__view(&o.data, td, td->dtype, 1, &nnz, &one, td->offset)))
            goto done;
    } else {
        if ((st = sp_alloc1(&o.indices, call->index_dtype, nnz, dev)) || (st = sp_alloc1(&o.data, vt, nnz, dev)))
            goto done;
        c->ci = nd__ptr(o.indices);
        c->cd = nd__ptr(o.data);
        sp_rows(c, f->compact, c->rows, c->cp, i64, 1);
    }
    call->c = o;
    o = (nd_sp_csr){0};
done:
    sp_csr_release(&o);
    nd_release(ti);
    nd_release(td);
    return st;
}

/* whether a value array holds an exact zero */
static bool sp_has_zero(const nd_array *d)
{
    int64_t n = d->size;
    const char *p = nd__ptr(d);
    switch (d->dtype) {
    case ND_FLOAT32:
        for (int64_t i = 0; i < n; i++)
            if (((const float *)p)[i] == 0) return true;
        return false;
    case ND_FLOAT64:
        for (int64_t i = 0; i < n; i++)
            if (((const double *)p)[i] == 0) return true;
        return false;
    case ND_COMPLEX64:
        for (int64_t i = 0; i < n; i++)
            if (((const sp_c64 *)p)[i] == 0) return true;
        return false;
    default:
        for (int64_t i = 0; i < n; i++)
            if (((const sp_c128 *)p)[i] == 0) return true;
        return false;
    }
}

nd_status nd__cpu_sparse(nd_sp_call *call)
{
    const nd_sp_csr *a = &call->a;
    const nd_array *any = a->data ? a->data : call->x;
    nd_device dev = any->device;
    nd_dtype vt = any->dtype;
    if (a->indices) call->index_dtype = a->indices->dtype;
    bool i64 = call->index_dtype == ND_INT64;
    if (nd__sp_half(vt)) { /* SpMV/SpMM only (the contract) */
        if (call->op != ND_SP_SPMM)
            return nd__err(ND_ERR_INTERNAL, "sparse", "op %d reached the slot with %s values", call->op,
                           nd_dtype_name(vt));
        sp_ctx h = {.rows = a->rows, .cols = a->cols, .k = call->k, .ap = nd__ptr(a->indptr),
                    .ai = nd__ptr(a->indices), .ad = nd__ptr(a->data), .x = nd__ptr(call->x), .y = nd__ptr(call->y)};
        sp_rows(&h, vt == ND_FLOAT16 ? (i64 ? spmm_half_i64_f16 : spmm_half_i32_f16)
                                     : (i64 ? spmm_half_i64_bf16 : spmm_half_i32_bf16),
                a->rows, h.ap, i64, call->k);
        return ND_OK;
    }
    const sp_fns *f = &SP_TABLE[i64][sp_vslot(vt)];
    sp_ctx c = {.flags = call->flags, .rows = a->rows, .cols = a->cols, .k = call->k, .alpha = call->alpha,
                .beta = call->beta};
    c.ap = a->indptr ? nd__ptr(a->indptr) : NULL;
    c.ai = a->indices ? nd__ptr(a->indices) : NULL;
    c.ad = a->data ? nd__ptr(a->data) : NULL;
    c.nnz = a->indices ? a->indices->size : 0;
    atomic_init(&c.nomem, 0);
    if (call->b.indptr) {
        c.bp = nd__ptr(call->b.indptr);
        c.bi = nd__ptr(call->b.indices);
        c.bd = nd__ptr(call->b.data);
    }
    if (call->x) c.x = nd__ptr(call->x);
    if (call->y) c.y = nd__ptr(call->y);
    switch (call->op) {
    case ND_SP_SPMM: {
        sp_rows_fn fast = sp_spmv_fast(i64, vt, call->k, c.ap, a->rows), fn = fast ? fast : f->spmm;
        sp_spmv_streams(&c, &fn, vt, i64, a->rows, c.nnz);
        sp_rows(&c, fn, a->rows, c.ap, i64, call->k);
        return ND_OK;
    }
    case ND_SP_TO_DENSE:
        sp_rows(&c, f->todense, a->rows, c.ap, i64, 1);
        return ND_OK;
    case ND_SP_FROM_DENSE:
        return sp_two_pass(&c, call, dev, vt, a->rows, a->cols, NULL, false, a->cols, 16, f->fd_count, f->fd_fill,
                           "dense");
    case ND_SP_TRANSPOSE: {
        nd_sp_csr o = {.rows = a->cols, .cols = a->rows};
        nd_status st;
        if ((st = sp_alloc1(&o.indptr, call->index_dtype, a->cols + 1, dev)) ||
            (st = sp_alloc1(&o.indices, call->index_dtype, c.nnz, dev)) || (st = sp_alloc1(&o.data, vt, c.nnz, dev))) {
            sp_csr_release(&o);
            return st;
        }
        c.cp = nd__ptr(o.indptr);
        c.ci = nd__ptr(o.indices);
        c.cd = nd__ptr(o.data);
        f->transpose(&c);
        call->c = o;
        return ND_OK;
    }
    case ND_SP_EXPAND: {
        nd_status st = sp_alloc1(&call->row, a->indices->dtype, c.nnz, dev);
        if (st) return st;
        for (int64_t r = 0; r < a->rows; r++) {
            int64_t b = i64 ? ((const int64_t *)c.ap)[r] : ((const int32_t *)c.ap)[r];
            int64_t e = i64 ? ((const int64_t *)c.ap)[r + 1] : ((const int32_t *)c.ap)[r + 1];
            for (int64_t p = b; p < e; p++) {
                if (i64) ((int64_t *)nd__ptr(call->row))[p] = r;
                else ((int32_t *)nd__ptr(call->row))[p] = (int32_t)r;
            }
        }
        return ND_OK;
    }
    case ND_SP_CANON:
        return sp_canon(&c, call, f, dev, vt, NULL, NULL);
    case ND_SP_FROM_COO:
        return sp_from_coo(&c, call, f, dev, vt, i64);
    case ND_SP_SPGEMM: {
        c.cols = call->b.cols;
        nd_status st = sp_two_pass(&c, call, dev, vt, a->rows, call->b.cols, c.ap, i64, 8, 2, f->gm_count, f->gm_fill,
                                   "SpGEMM");
        if (st || !sp_has_zero(call->c.data)) return st;
        /* sums that cancelled: dropped, as scipy's csr_matmat does */
        nd_sp_csr m = call->c;
        sp_ctx z = {.flags = ND_SP_DROP_ZEROS, .rows = m.rows, .cols = m.cols, .nnz = m.indices->size};
        z.ap = nd__ptr(m.indptr);
        z.ai = nd__ptr(m.indices);
        z.ad = nd__ptr(m.data);
        atomic_init(&z.nomem, 0);
        call->c = (nd_sp_csr){0};
        st = sp_canon(&z, call, f, dev, vt, NULL, NULL);
        sp_csr_release(&m);
        return st;
    }
    case ND_SP_BINOP:
        return sp_two_pass(&c, call, dev, vt, a->rows, a->cols, c.ap, i64, 2, 16, f->binop, f->binop, "binop");
    case ND_SP_MUL_DENSE:
        c.xs0 = call->x->strides[0];
        c.xs1 = call->x->strides[1];
        c.x = nd__ptr(call->x);
        sp_rows(&c, f->muldense, a->rows, c.ap, i64, 1);
        return ND_OK;
    case ND_SP_ROW_SUMS:
        sp_rows(&c, f->rowsums, a->rows, c.ap, i64, 1);
        return ND_OK;
    case ND_SP_DIAG:
        c.len = call->y->size;
        sp_rows(&c, f->diag, a->rows, c.ap, i64, 1);
        return ND_OK;
    case ND_SP_GATHER:
        return sp_two_pass(&c, call, dev, vt, call->x->size, a->cols, NULL, false, 8, 16, f->ga_count, f->ga_fill,
                           "gather");
    }
    return nd__err(ND_ERR_INTERNAL, "sparse", "unknown sparse op %d", call->op);
}
