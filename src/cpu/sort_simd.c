/*
 * The SIMD sort path of nd_backend.sort_rows for 32- and 64-bit integers
 * and floats (src/cpu/sort.c calls it first; the contract is in
 * src/core/backend.h, the order in src/shared/sort_keys.h).
 *
 * The vector sorting is x86-simd-sort's quicksort (third_party/, the
 * sort NumPy dispatches to), compiled once per CPU path
 * (src/cpu/sort_simd.cpp) and chosen by nd__cpu_isa(): AVX-512 or AVX2.
 * The baseline path (and every non-x86 build) keeps the radix sort. The
 * library's order and stability are built around it:
 *  - what is sorted is the order-preserving unsigned key (descending:
 *    the flipped key), never a float, so NaNs and -0.0 do not reach it;
 *  - a value sort sorts the keys and turns them back into bits; the keys
 *    of -0.0 and of NaNs do not turn back exactly, and a row that has any
 *    is repaired from the input as the radix sort does (nd__cpu_sort_fix:
 *    the runs of zeros and NaNs are refilled in input order), so the
 *    values are bit for bit those of a stable sort;
 *  - an argsort of 32-bit keys sorts (key << 32 | index) as one 64-bit
 *    key: all keys differ, so the order is the stable one by
 *    construction (rows of fewer than 2^32 elements);
 *  - an argsort of 64-bit keys sorts (key, index) pairs, then sorts the
 *    indices of every run of equal keys, which is the stable order.
 * Threads: one long row (or fewer rows than threads) is keyed in
 * parallel straight into an output, split by a few quicksort partition
 * steps (x86-simd-sort's vector partition around a sampled median; equal
 * keys never straddle two segments) into about two segments per thread,
 * and the segments are sorted in parallel; the keys turn back into bits
 * (or indices) in place. No buffer beyond the outputs, except the keys of
 * a 64-bit argsort that does not want the values.
 * Many rows: rows over threads, one sequential sort per row.
 */
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/sort_cpu.h"
#include "shared/sort_keys.h"

#if ND_HAVE_XSS
/* src/cpu/sort_simd.cpp, once per path: ascending, in place, unstable */
#define ND__XSS_DECL(isa)                                                                  \
    ND_INTERNAL void nd__xss_sort_u32_##isa(uint32_t *k, size_t n);                        \
    ND_INTERNAL void nd__xss_sort_u64_##isa(uint64_t *k, size_t n);                        \
    ND_INTERNAL void nd__xss_sort_kv_u64_##isa(uint64_t *k, uint64_t *v, size_t n);            \
    ND_INTERNAL size_t nd__xss_part_u32_##isa(uint32_t *k, size_t n);                          \
    ND_INTERNAL size_t nd__xss_part_u64_##isa(uint64_t *k, size_t n);                          \
    ND_INTERNAL size_t nd__xss_part_kv_u64_##isa(uint64_t *k, uint64_t *v, size_t n);
ND__XSS_DECL(avx512)
ND__XSS_DECL(avx2)
#undef ND__XSS_DECL

typedef struct xss_fns {
    void (*s32)(uint32_t *k, size_t n);
    void (*s64)(uint64_t *k, size_t n);
    void (*kv64)(uint64_t *k, uint64_t *v, size_t n);
    /* one partition step (n >= 256): s with keys [0, s) < keys [s, n), or 0 */
    size_t (*p32)(uint32_t *k, size_t n);
    size_t (*p64)(uint64_t *k, size_t n);
    size_t (*pkv64)(uint64_t *k, uint64_t *v, size_t n);
} xss_fns;

static const xss_fns g_xss[ND_ISA_N] = {
#define ND__XSS_FNS(isa)                                                                              \
    {nd__xss_sort_u32_##isa, nd__xss_sort_u64_##isa, nd__xss_sort_kv_u64_##isa, nd__xss_part_u32_##isa, \
     nd__xss_part_u64_##isa, nd__xss_part_kv_u64_##isa}
    [ND_ISA_AVX2] = ND__XSS_FNS(avx2),
    [ND_ISA_AVX512] = ND__XSS_FNS(avx512),
#undef ND__XSS_FNS
};

/* ------------------------------------------------------------------ */
/* Per-dtype loops over [b, e)                                          */
/* ------------------------------------------------------------------ */
typedef struct simd_ops {
    int w; /* bytes per key: 4 or 8 */
    /* k[i] = key(src[i]) ^ flip; whether an element is -0.0 or NaN */
    int (*keys)(const void *src, int64_t b, int64_t e, uint64_t flip, void *k);
    /* (32-bit keys) p[i] = (key(src[i]) ^ flip) << 32 | i */
    int (*pack)(const void *src, int64_t b, int64_t e, uint64_t flip, uint64_t *p);
    /* v[i] = bits of the key k[i] ^ flip (v may be k) */
    void (*unkey)(const void *k, int64_t b, int64_t e, uint64_t flip, void *v);
    /* (32-bit keys) from packed p: v[i] = bits of (p[i] >> 32) ^ flip (v may
     * be NULL), ix[i] = low half (ix may alias p) */
    void (*unpack)(const uint64_t *p, int64_t b, int64_t e, uint64_t flip, void *v, int64_t *ix);
} simd_ops;

/* The loops are compiled per path and vectorised (the keys are lane-wise
 * selects): X is the path's suffix, TGT its target attribute. Not `omp
 * simd`: gcc 12 miscompiles these loops under it (AVX-512 masked loads
 * from its per-lane stack arrays, out of their bounds). */
#if defined(__clang__)
#define ND__VEC
#else
#define ND__VEC __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#endif
#define ND__SIMD_OPS(s, U, X, TGT)                                                              \
    TGT ND__VEC static int keys_##s##_##X(const void *src_, int64_t b, int64_t e, uint64_t flip_, void *k_) \
    {                                                                                           \
        const U *src = (const U *)src_;                                                         \
        U *k = (U *)k_, flip = (U)flip_;                                                        \
        int loss = 0;                                                                           \
        for (int64_t i = b; i < e; i++) {                 \
            U x = src[i];                                                                       \
            loss |= nd_keyloss_##s(x);                                                          \
            k[i] = (U)(nd_key_##s(x) ^ flip);                                                   \
        }                                                                                       \
        return loss;                                                                            \
    }                                                                                           \
    TGT ND__VEC static void unkey_##s##_##X(const void *k_, int64_t b, int64_t e, uint64_t flip_, void *v_) \
    {                                                                                           \
        const U *k = (const U *)k_;                                                             \
        U *v = (U *)v_, flip = (U)flip_;                                                        \
        for (int64_t i = b; i < e; i++) v[i] = nd_unkey_##s((U)(k[i] ^ flip)); \
    }
#define ND__SIMD_PACK(s, X, TGT)                                                                \
    TGT ND__VEC static int pack_##s##_##X(const void *src_, int64_t b, int64_t e, uint64_t flip_, uint64_t *p) \
    {                                                                                           \
        const uint32_t *src = (const uint32_t *)src_;                                           \
        uint32_t flip = (uint32_t)flip_;                                                        \
        int loss = 0;                                                                           \
        for (int64_t i = b; i < e; i++) {                 \
            uint32_t x = src[i];                                                                \
            loss |= nd_keyloss_##s(x);                                                          \
            p[i] = (uint64_t)(uint32_t)(nd_key_##s(x) ^ flip) << 32 | (uint64_t)i;              \
        }                                                                                       \
        return loss != 0;                                                                            \
    }                                                                                           \
    TGT ND__VEC static void unpack_##s##_##X(const uint64_t *p, int64_t b, int64_t e, uint64_t flip_, void *v_, int64_t *ix) \
    {                                                                                           \
        uint32_t *v = (uint32_t *)v_, flip = (uint32_t)flip_;                                   \
        if (v) {                                                                                \
            for (int64_t i = b; i < e; i++) {                               \
                uint64_t x = p[i];                                                              \
                v[i] = nd_unkey_##s((uint32_t)((uint32_t)(x >> 32) ^ flip));                    \
                ix[i] = (int64_t)(x & 0xffffffffu);                                             \
            }                                                                                   \
        } else {                                                                                \
            for (int64_t i = b; i < e; i++) ix[i] = (int64_t)(p[i] & 0xffffffffu); \
        }                                                                                       \
    }
#define ND__SIMD_PATH(X, TGT)                \
    ND__SIMD_OPS(i32, uint32_t, X, TGT)      \
    ND__SIMD_OPS(u32, uint32_t, X, TGT)      \
    ND__SIMD_OPS(f32, uint32_t, X, TGT)      \
    ND__SIMD_OPS(i64, uint64_t, X, TGT)      \
    ND__SIMD_OPS(u64, uint64_t, X, TGT)      \
    ND__SIMD_OPS(f64, uint64_t, X, TGT)      \
    ND__SIMD_PACK(i32, X, TGT)               \
    ND__SIMD_PACK(u32, X, TGT)               \
    ND__SIMD_PACK(f32, X, TGT)               \
    static const simd_ops g_ops_##X[6] = {   \
        {4, keys_i32_##X, pack_i32_##X, unkey_i32_##X, unpack_i32_##X}, \
        {4, keys_u32_##X, pack_u32_##X, unkey_u32_##X, unpack_u32_##X}, \
        {4, keys_f32_##X, pack_f32_##X, unkey_f32_##X, unpack_f32_##X}, \
        {8, keys_i64_##X, NULL, unkey_i64_##X, NULL},                   \
        {8, keys_u64_##X, NULL, unkey_u64_##X, NULL},                   \
        {8, keys_f64_##X, NULL, unkey_f64_##X, NULL},                   \
    };
ND__SIMD_PATH(avx2, ND_ISA_TARGET_AVX2)
ND__SIMD_PATH(avx512, ND_ISA_TARGET_AVX512)
#undef ND__SIMD_OPS
#undef ND__SIMD_PACK
#undef ND__SIMD_PATH

static const simd_ops *ops_of(nd_cpu_isa isa, nd_dtype t)
{
    const simd_ops *o = isa >= ND_ISA_AVX512 ? g_ops_avx512 : g_ops_avx2;
    switch (t) {
    case ND_INT32: return &o[0];
    case ND_UINT32: return &o[1];
    case ND_FLOAT32: return &o[2];
    case ND_INT64: return &o[3];
    case ND_UINT64: return &o[4];
    case ND_FLOAT64: return &o[5];
    default: return NULL;
    }
}

/* ------------------------------------------------------------------ */
/* Stable ties, merging                                                 */
/* ------------------------------------------------------------------ */
/* After a (key, index) sort of k/ix[0, n): the indices of every run of
 * equal keys in increasing order. */
static void ties_fix(const xss_fns *f, const uint64_t *k, uint64_t *ix, int64_t n)
{
    for (int64_t s = 0; s < n;) {
        int64_t e = s + 1;
        while (e < n && k[e] == k[s]) e++;
        if (e - s > 16) {
            f->s64(ix + s, (size_t)(e - s));
        } else {
            for (int64_t i = s + 1; i < e; i++) {
                uint64_t x = ix[i];
                int64_t j = i;
                for (; j > s && ix[j - 1] > x; j--) ix[j] = ix[j - 1];
                ix[j] = x;
            }
        }
        s = e;
    }
}

/* ------------------------------------------------------------------ */
/* One long row, threaded                                               */
/* ------------------------------------------------------------------ */
enum { MODE_VALS, MODE_PACK, MODE_KV };
enum { MAXSEG = 64 };

typedef struct long_job {
    const xss_fns *f;
    const simd_ops *o;
    const char *src;
    int64_t n;
    uint64_t flip;
    int mode;
    void *k;      /* the keys (MODE_VALS: in vout; MODE_PACK: packed, in iout) */
    uint64_t *ix; /* MODE_KV: the indices beside k (in iout) */
    char *vout;
    _Atomic int loss;
    int nseg;
    int64_t sb[MAXSEG], se[MAXSEG]; /* segments [sb, se) */
    int64_t nb[2 * MAXSEG], ne[2 * MAXSEG];
} long_job;

/* keys of [b, e) (and the indices of MODE_KV) */
static void key_body(void *ctx, int64_t b, int64_t e)
{
    long_job *j = (long_job *)ctx;
    int loss;
    if (j->mode == MODE_PACK) {
        loss = j->o->pack(j->src, b, e, j->flip, (uint64_t *)j->k);
    } else {
        loss = j->o->keys(j->src, b, e, j->flip, j->k);
        if (j->mode == MODE_KV)
            for (int64_t i = b; i < e; i++) j->ix[i] = (uint64_t)i;
    }
    if (loss) j->loss = 1;
}

/* one partition step of each segment [s0, s1) into nb/ne[2s], [2s + 1] */
static void part_body(void *ctx, int64_t s0, int64_t s1)
{
    long_job *j = (long_job *)ctx;
    for (int64_t q = s0; q < s1; q++) {
        int64_t b = j->sb[q], e = j->se[q], m = e - b, p = 0;
        if (m >= 4096) {
            if (j->mode == MODE_KV) p = (int64_t)j->f->pkv64((uint64_t *)j->k + b, j->ix + b, (size_t)m);
            else if (j->mode == MODE_VALS && j->o->w == 4) p = (int64_t)j->f->p32((uint32_t *)j->k + b, (size_t)m);
            else p = (int64_t)j->f->p64((uint64_t *)j->k + b, (size_t)m);
        }
        j->nb[2 * q] = b;
        j->ne[2 * q] = b + p;
        j->nb[2 * q + 1] = b + p;
        j->ne[2 * q + 1] = e;
    }
}

/* the sorted keys of [b, e) back into bits (or indices), in place */
static void emit(long_job *j, int64_t b, int64_t e)
{
    if (j->mode == MODE_PACK) j->o->unpack((const uint64_t *)j->k, b, e, j->flip, j->vout, (int64_t *)j->k);
    else if (j->vout) j->o->unkey(j->k, b, e, j->flip, j->vout);
}

/* sort each segment [s0, s1), then turn it back while it is in cache */
static void sort_body(void *ctx, int64_t s0, int64_t s1)
{
    long_job *j = (long_job *)ctx;
    for (int64_t q = s0; q < s1; q++) {
        int64_t b = j->sb[q], m = j->se[q] - b;
        if (j->mode == MODE_KV) {
            uint64_t *k = (uint64_t *)j->k + b;
            j->f->kv64(k, j->ix + b, (size_t)m);
            ties_fix(j->f, k, j->ix + b, m);
        } else if (j->mode == MODE_VALS && j->o->w == 4) {
            j->f->s32((uint32_t *)j->k + b, (size_t)m);
        } else {
            j->f->s64((uint64_t *)j->k + b, (size_t)m);
        }
        emit(j, b, b + m);
    }
}

/* One row: keys into the output (MODE_KV: into vout, or a buffer of its
 * own, the indices into iout), a few partition steps in parallel until
 * there are about twice as many segments as threads (the larger first;
 * a segment of one key value is not split), the segments sorted in
 * parallel and turned back in place. */
static nd_status sort_long(const xss_fns *f, const simd_ops *o, nd_dtype t, const char *src, int64_t n, uint64_t flip,
                           char *vout, int64_t *iout)
{
    long_job j = {.f = f, .o = o, .src = src, .n = n, .flip = flip, .vout = vout};
    j.mode = !iout ? MODE_VALS : o->w == 4 ? MODE_PACK : MODE_KV;
    void *own = NULL;
    if (j.mode == MODE_VALS) {
        j.k = vout;
    } else if (j.mode == MODE_PACK) {
        j.k = iout;
    } else {
        j.ix = (uint64_t *)iout;
        j.k = vout ? (void *)vout : (own = nd__malloc(8 * (size_t)n));
        if (!j.k) return ND_ERR_NOMEM;
    }
    nd__parallel_for(n, 2, key_body, &j);
    int nt = nd__num_threads();
    int want = 2 * nt < MAXSEG ? 2 * nt : MAXSEG;
    j.nseg = 1;
    j.sb[0] = 0;
    j.se[0] = n;
    while (nt > 1 && j.nseg < want) {
        /* split the largest segments: at most want - nseg of them */
        int nsplit = want - j.nseg < j.nseg ? want - j.nseg : j.nseg;
        for (int a = 0; a < nsplit; a++) /* the nsplit largest first */
            for (int c = a + 1; c < j.nseg; c++)
                if (j.se[c] - j.sb[c] > j.se[a] - j.sb[a]) {
                    int64_t tb = j.sb[a], te = j.se[a];
                    j.sb[a] = j.sb[c], j.se[a] = j.se[c];
                    j.sb[c] = tb, j.se[c] = te;
                }
        if (j.se[0] - j.sb[0] < 4096) break;
        nd__parallel_for(nsplit, (j.se[0] - j.sb[0]) * 2, part_body, &j);
        int ns = 0;
        int64_t sb[MAXSEG], se[MAXSEG];
        for (int q = 0; q < nsplit; q++)
            for (int h = 0; h < 2; h++)
                if (j.ne[2 * q + h] > j.nb[2 * q + h]) sb[ns] = j.nb[2 * q + h], se[ns++] = j.ne[2 * q + h];
        for (int q = nsplit; q < j.nseg; q++) sb[ns] = j.sb[q], se[ns++] = j.se[q];
        bool progress = ns > j.nseg;
        memcpy(j.sb, sb, sizeof(int64_t) * (size_t)ns);
        memcpy(j.se, se, sizeof(int64_t) * (size_t)ns);
        j.nseg = ns;
        if (!progress) break;
    }
    nd__parallel_for(j.nseg, n / j.nseg * 32, sort_body, &j);
    if (j.loss && vout) nd__cpu_sort_fix(t, vout, src, n);
    nd__free(own);
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Many rows: one sequential sort per row                               */
/* ------------------------------------------------------------------ */
typedef struct rows_job {
    const xss_fns *f;
    const simd_ops *o;
    nd_dtype t;
    const char *a;
    char *v;
    int64_t *ix;
    int64_t n;
    uint64_t flip;
    _Atomic int failed;
} rows_job;

static void rows_body(void *ctx, int64_t r0, int64_t r1)
{
    rows_job *j = (rows_job *)ctx;
    const simd_ops *o = j->o;
    int64_t n = j->n;
    size_t rowb = (size_t)n * (size_t)o->w;
    int mode = !j->ix ? MODE_VALS : o->w == 4 ? MODE_PACK : MODE_KV;
    /* MODE_VALS sorts in the output row; MODE_PACK needs n packed keys,
     * MODE_KV n keys (the indices sort in the output row) */
    uint64_t *k = NULL;
    if (mode != MODE_VALS && !(k = nd__malloc(8 * (size_t)n))) {
        j->failed = 1;
        return;
    }
    for (int64_t r = r0; r < r1; r++) {
        const char *src = j->a + rowb * (size_t)r;
        char *v = j->v ? j->v + rowb * (size_t)r : NULL;
        int64_t *ix = j->ix ? j->ix + n * r : NULL;
        int loss;
        if (mode == MODE_VALS) {
            loss = o->keys(src, 0, n, j->flip, v);
            if (o->w == 4) j->f->s32((uint32_t *)v, (size_t)n);
            else j->f->s64((uint64_t *)v, (size_t)n);
            o->unkey(v, 0, n, j->flip, v);
        } else if (mode == MODE_PACK) {
            loss = o->pack(src, 0, n, j->flip, k);
            j->f->s64(k, (size_t)n);
            o->unpack(k, 0, n, j->flip, v, ix);
        } else {
            uint64_t *ui = (uint64_t *)ix;
            loss = o->keys(src, 0, n, j->flip, k);
            for (int64_t i = 0; i < n; i++) ui[i] = (uint64_t)i;
            j->f->kv64(k, ui, (size_t)n);
            ties_fix(j->f, k, ui, n);
            if (v) o->unkey(k, 0, n, j->flip, v);
        }
        if (loss && v) nd__cpu_sort_fix(j->t, v, src, n);
    }
    nd__free(k);
}

bool nd__cpu_sort_rows_simd(nd_status *st, nd_array *vals, nd_array *idx, const nd_array *a, bool descending)
{
    nd_cpu_isa isa = nd__cpu_isa();
    const simd_ops *o = isa >= ND_ISA_AVX2 ? ops_of(isa, a->dtype) : NULL;
    int64_t rows = a->shape[0], n = a->shape[1];
    /* a 32-bit argsort packs the index into 32 bits */
    if (isa < ND_ISA_AVX2 || !o || n <= 16 || (idx && o->w == 4 && n > (INT64_C(1) << 32))) return false;
    const xss_fns *f = &g_xss[isa];
    uint64_t flip = descending ? ~(uint64_t)0 : 0;
    char *v = vals ? nd__ptr(vals) : NULL;
    int64_t *ix = idx ? (int64_t *)nd__ptr(idx) : NULL;
    int nt = nd__num_threads();
    *st = ND_OK;
    if (n >= (1 << 16) && (rows == 1 || rows < nt)) {
        size_t rowb = (size_t)n * (size_t)o->w;
        for (int64_t r = 0; r < rows && !*st; r++)
            *st = sort_long(f, o, a->dtype, nd__ptr(a) + rowb * (size_t)r, n, flip, v ? v + rowb * (size_t)r : NULL,
                            ix ? ix + n * r : NULL);
        if (*st)
            *st = nd__err(ND_ERR_NOMEM, "nd_sort", "out of host memory for the sort buffers of %lld elements",
                          (long long)n);
        return true;
    }
    rows_job j = {.f = f, .o = o, .t = a->dtype, .a = nd__ptr(a), .v = v, .ix = ix, .n = n, .flip = flip};
    nd__parallel_for(rows, n * 8 + 64, rows_body, &j);
    if (j.failed)
        *st = nd__err(ND_ERR_NOMEM, "nd_sort", "out of host memory for the sort buffers of a row of %lld", (long long)n);
    return true;
}

bool nd__cpu_sort_u64_simd(uint64_t *k, int64_t n)
{
    nd_cpu_isa isa = nd__cpu_isa();
    if (isa < ND_ISA_AVX2) return false;
    g_xss[isa].s64(k, (size_t)n);
    return true;
}
#else
bool nd__cpu_sort_rows_simd(nd_status *st, nd_array *vals, nd_array *idx, const nd_array *a, bool descending)
{
    (void)st, (void)vals, (void)idx, (void)a, (void)descending;
    return false;
}
bool nd__cpu_sort_u64_simd(uint64_t *k, int64_t n)
{
    (void)k, (void)n;
    return false;
}
#endif
