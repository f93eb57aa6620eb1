/*
 * CPU sorting (nd_backend.sort_rows / topk_rows / searchsorted; the
 * contracts are in src/core/backend.h, the order in src/shared/sort_keys.h).
 *
 * sort_rows: 32/64-bit integers and floats on the AVX-512 and AVX2 paths
 * take the SIMD sort (src/cpu/sort_simd.c, x86-simd-sort); the rest, and
 * the baseline path: an LSD radix sort on the order-preserving keys, 8 bits a
 * pass, skipping every pass whose digit is the same for all keys (one
 * histogram read computes all digits' counts first). The first pass reads
 * the input and computes keys on the fly, the last writes the values
 * (keys turned back into bits) and the int64 indices straight into the
 * outputs, and the ping-pong buffers are arranged so that the outputs
 * double as scratch: a value sort needs one extra key buffer, an argsort
 * two key buffers and one index buffer. Radix sorting is stable, so ties
 * keep their input order, which is what kind='stable' promises and a
 * valid answer for every other kind. -0.0 and NaNs do not survive the
 * key -> bits inverse: a row that has any is repaired afterwards from
 * the input (their runs in the output are contiguous; they are filled in
 * input order).
 *  - one long row (or few long rows): the passes are threaded over
 *    chunks of the row (per-chunk histograms, then a serial prefix over
 *    chunks x buckets, then a parallel scatter);
 *  - many rows: rows are spread over the threads, one sequential radix
 *    sort per row (a stable insertion sort for rows of <= 16 elements).
 * topk_rows: one pass over each row keeping the k best (key, index) in a
 * small sorted buffer; a block of 16 elements is skipped at once when
 * none beats the current k-th key. Rows with k > 64 are sorted instead.
 * searchsorted: a binary search on keys per element of v, threaded.
 */
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/sort_cpu.h"
#include "shared/sort_keys.h"

/* ------------------------------------------------------------------ */
/* Per-dtype pieces                                                    */
/* ------------------------------------------------------------------ */
typedef struct sort_ops {
    int w; /* bytes per key */
    /* add the counts of every digit of the keys of src[b, e) into h[w][256];
     * returns whether an element is -0.0 or NaN */
    int (*hist)(const void *src, int64_t b, int64_t e, uint64_t flip, int64_t *h);
    /* add the counts of the digit at shift of the keys ks[b, e) into h[256] */
    void (*hist1)(const void *ks, int64_t b, int64_t e, int shift, int64_t *h);
    /* one pass over [b, e): keys from src (ks == NULL: computed) or ks;
     * to kd (kmode 1: keys, 2: keys turned back into bits, 0: none) and
     * indices to id (imode 1: the position, 2: is[i], 0: none) */
    void (*scatter)(const void *src, const void *ks, int64_t b, int64_t e, uint64_t flip, int shift, int64_t *off,
                    void *kd, int kmode, const int64_t *is, int64_t *id, int imode);
    /* k64[i] = key(src[i]) ^ flip, widened */
    void (*keys64)(const void *src, int64_t n, uint64_t flip, uint64_t *k64);
    /* repair the -0.0 and NaN runs of the sorted out from src (floats) */
    void (*fix)(void *out, const void *src, int64_t n);
    /* the k best of a row into bk/bi (see topk_rows) */
    void (*topk)(const void *src, int64_t n, int64_t k, uint64_t flip, uint64_t *bk, int64_t *bi);
} sort_ops;

#define ND__HIST(E, s, U)                                                                       \
    static int hist_##s(const void *src_, int64_t b, int64_t e, uint64_t flip_, int64_t *h)     \
    {                                                                                           \
        const U *src = (const U *)src_;                                                         \
        U flip = (U)flip_;                                                                      \
        int loss = 0;                                                                           \
        for (int64_t i = b; i < e; i++) {                                                       \
            U x = src[i];                                                                       \
            U k = (U)(nd_key_##s(x) ^ flip);                                                    \
            loss |= nd_keyloss_##s(x);                                                          \
            for (int d = 0; d < (int)sizeof(U); d++) h[d * 256 + ((k >> (8 * d)) & 255)]++;     \
        }                                                                                       \
        return loss;                                                                            \
    }                                                                                           \
    static void hist1_##s(const void *ks_, int64_t b, int64_t e, int shift, int64_t *h)         \
    {                                                                                           \
        const U *ks = (const U *)ks_;                                                           \
        for (int64_t i = b; i < e; i++) h[(ks[i] >> shift) & 255]++;                            \
    }                                                                                           \
    static inline __attribute__((always_inline)) void scat_##s(                                 \
        const U *src, const U *ks, int64_t b, int64_t e, U flip, int shift, int64_t *off, U *kd, \
        const int kmode, const int64_t *is, int64_t *id, const int imode, const int first)      \
    {                                                                                           \
        for (int64_t i = b; i < e; i++) {                                                       \
            U k = first ? (U)(nd_key_##s(src[i]) ^ flip) : ks[i];                               \
            int64_t p = off[(k >> shift) & 255]++;                                              \
            if (kmode == 1) kd[p] = k;                                                          \
            else if (kmode == 2) kd[p] = nd_unkey_##s((U)(k ^ flip));                           \
            if (imode == 1) id[p] = i;                                                          \
            else if (imode == 2) id[p] = is[i];                                                 \
        }                                                                                       \
    }                                                                                           \
    static void scatter_##s(const void *src_, const void *ks_, int64_t b, int64_t e, uint64_t flip_, int shift, \
                            int64_t *off, void *kd_, int kmode, const int64_t *is, int64_t *id, int imode) \
    {                                                                                           \
        const U *src = (const U *)src_, *ks = (const U *)ks_;                                   \
        U *kd = (U *)kd_, flip = (U)flip_;                                                      \
        if (!ks) {                                                                              \
            if (kmode == 0) scat_##s(src, ks, b, e, flip, shift, off, kd, 0, is, id, 1, 1);     \
            else if (kmode == 1) {                                                              \
                if (imode) scat_##s(src, ks, b, e, flip, shift, off, kd, 1, is, id, 1, 1);      \
                else scat_##s(src, ks, b, e, flip, shift, off, kd, 1, is, id, 0, 1);            \
            } else {                                                                            \
                if (imode) scat_##s(src, ks, b, e, flip, shift, off, kd, 2, is, id, 1, 1);      \
                else scat_##s(src, ks, b, e, flip, shift, off, kd, 2, is, id, 0, 1);            \
            }                                                                                   \
        } else {                                                                                \
            if (kmode == 0) scat_##s(src, ks, b, e, flip, shift, off, kd, 0, is, id, 2, 0);     \
            else if (kmode == 1) {                                                              \
                if (imode) scat_##s(src, ks, b, e, flip, shift, off, kd, 1, is, id, 2, 0);      \
                else scat_##s(src, ks, b, e, flip, shift, off, kd, 1, is, id, 0, 0);            \
            } else {                                                                            \
                if (imode) scat_##s(src, ks, b, e, flip, shift, off, kd, 2, is, id, 2, 0);      \
                else scat_##s(src, ks, b, e, flip, shift, off, kd, 2, is, id, 0, 0);            \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    static void keys64_##s(const void *src_, int64_t n, uint64_t flip, uint64_t *k64)           \
    {                                                                                           \
        const U *src = (const U *)src_;                                                         \
        for (int64_t i = 0; i < n; i++) k64[i] = (uint64_t)(U)(nd_key_##s(src[i]) ^ (U)flip);    \
    }                                                                                           \
    static void topk_##s(const void *src_, int64_t n, int64_t k, uint64_t flip_, uint64_t *bk, int64_t *bi) \
    {                                                                                           \
        const U *src = (const U *)src_;                                                         \
        U flip = (U)flip_, thr = 0;                                                             \
        int64_t cnt = 0, i = 0;                                                                 \
        while (i < n) {                                                                         \
            if (cnt == k && i + 16 <= n) {                                                      \
                int any = 0;                                                                    \
                for (int j = 0; j < 16; j++) any |= (U)(nd_key_##s(src[i + j]) ^ flip) > thr;   \
                if (!any) {                                                                     \
                    i += 16;                                                                    \
                    continue;                                                                   \
                }                                                                               \
            }                                                                                   \
            int64_t stop = i + 16 < n ? i + 16 : n;                                             \
            for (; i < stop; i++) {                                                             \
                U kk = (U)(nd_key_##s(src[i]) ^ flip);                                          \
                if (cnt == k && kk <= thr) continue;                                            \
                int64_t j = cnt < k ? cnt : k - 1;                                              \
                while (j > 0 && bk[j - 1] < kk) {                                               \
                    bk[j] = bk[j - 1];                                                          \
                    bi[j] = bi[j - 1];                                                          \
                    j--;                                                                        \
                }                                                                               \
                bk[j] = kk;                                                                     \
                bi[j] = i;                                                                      \
                if (cnt < k) cnt++;                                                             \
                if (cnt == k) thr = (U)bk[k - 1];                                               \
            }                                                                                   \
        }                                                                                       \
    }
ND_SORT_DTYPES(ND__HIST)
#undef ND__HIST

/* the floats' repair of +-0.0 and NaN after a key sort: src/cpu/sort_fix.c
 * (the SIMD path uses it too) */
#define fix_f16 nd__cpu_sort_fix_f16
#define fix_bf16 nd__cpu_sort_fix_bf16
#define fix_f32 nd__cpu_sort_fix_f32
#define fix_f64 nd__cpu_sort_fix_f64
#define fix_b1 NULL
#define fix_i8 NULL
#define fix_i16 NULL
#define fix_i32 NULL
#define fix_i64 NULL
#define fix_u8 NULL
#define fix_u16 NULL
#define fix_u32 NULL
#define fix_u64 NULL

static const sort_ops g_ops[ND_NUM_DTYPES] = {
#define ND__OPS(E, s, U) [E] = {(int)sizeof(U), hist_##s, hist1_##s, scatter_##s, keys64_##s, fix_##s, topk_##s},
    ND_SORT_DTYPES(ND__OPS)
#undef ND__OPS
};

/* ------------------------------------------------------------------ */
/* One row, in chunks (threaded when nch > 1)                           */
/* ------------------------------------------------------------------ */
typedef struct row_job {
    const sort_ops *o;
    const char *src;
    int64_t n, nch;
    uint64_t flip;
    int64_t *hc;   /* [nch][w * 256] per-chunk counts */
    int64_t *off;  /* [nch][256] per-chunk positions */
    int *loss;     /* [nch] */
    int phase;     /* 0: all-digit counts, 1: one digit's counts, 2: scatter */
    int shift, kmode, imode;
    const void *ks;
    void *kd;
    const int64_t *is;
    int64_t *id;
} row_job;

static void row_chunks(void *ctx, int64_t cb, int64_t ce)
{
    row_job *j = (row_job *)ctx;
    int w = j->o->w;
    for (int64_t c = cb; c < ce; c++) {
        int64_t b = j->n * c / j->nch, e = j->n * (c + 1) / j->nch;
        int64_t *h = j->hc + c * w * 256;
        if (j->phase == 0) {
            memset(h, 0, sizeof(int64_t) * 256 * (size_t)w);
            j->loss[c] = j->o->hist(j->src, b, e, j->flip, h);
        } else if (j->phase == 1) {
            int64_t *hd = h + (j->shift / 8) * 256;
            memset(hd, 0, sizeof(int64_t) * 256);
            j->o->hist1(j->ks, b, e, j->shift, hd);
        } else {
            j->o->scatter(j->src, j->ks, b, e, j->flip, j->shift, j->off + c * 256, j->kd, j->kmode, j->is, j->id,
                          j->imode);
        }
    }
}

static void run_phase(row_job *j, int phase)
{
    j->phase = phase;
    if (j->nch > 1) nd__parallel_for(j->nch, j->n / j->nch * 4, row_chunks, j);
    else row_chunks(j, 0, 1);
}

/* Scratch of one row sort: kt[0], kt[1] n keys each, it n indices,
 * hist/off/loss for nch chunks. */
typedef struct row_scratch {
    void *kt[2];
    int64_t *it;
    int64_t *hc, *off;
    int *loss;
    uint64_t *k64; /* small rows: n keys + n indices */
} row_scratch;

static void stable_small(const sort_ops *o, const char *src, int64_t n, uint64_t flip, char *vout, int64_t *iout,
                         uint64_t *k64)
{
    int64_t *ix = (int64_t *)(k64 + n);
    o->keys64(src, n, flip, k64);
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = k64[i];
        int64_t j = i;
        while (j > 0 && k64[j - 1] > k) {
            k64[j] = k64[j - 1];
            ix[j] = ix[j - 1];
            j--;
        }
        k64[j] = k;
        ix[j] = i;
    }
    size_t w = (size_t)o->w;
    if (vout)
        for (int64_t i = 0; i < n; i++) memcpy(vout + (size_t)i * w, src + (size_t)ix[i] * w, w);
    if (iout) memcpy(iout, ix, sizeof(int64_t) * (size_t)n);
}

static void sort_row(const sort_ops *o, const char *src, int64_t n, uint64_t flip, char *vout, int64_t *iout,
                     row_scratch *s, int64_t nch)
{
    if (n <= 16) {
        stable_small(o, src, n, flip, vout, iout, s->k64);
        return;
    }
    int w = o->w;
    row_job j = {.o = o, .src = src, .n = n, .nch = nch, .flip = flip, .hc = s->hc, .off = s->off, .loss = s->loss};
    run_phase(&j, 0);
    int64_t tot[8 * 256];
    memset(tot, 0, sizeof(int64_t) * 256 * (size_t)w);
    int loss = 0;
    for (int64_t c = 0; c < nch; c++) {
        loss |= s->loss[c];
        for (int q = 0; q < w * 256; q++) tot[q] += s->hc[c * w * 256 + q];
    }
    int act[8], P = 0;
    for (int d = 0; d < w; d++) {
        bool one = false;
        for (int b = 0; b < 256 && !one; b++) one = tot[d * 256 + b] == n;
        if (!one) act[P++] = d;
    }
    if (P == 0) { /* all keys equal: the input order is the stable order */
        if (vout) memcpy(vout, src, (size_t)n * (size_t)w);
        if (iout)
            for (int64_t i = 0; i < n; i++) iout[i] = i;
        return;
    }
    const void *ks = NULL;
    const int64_t *is = NULL;
    for (int p = 0; p < P; p++) {
        int d = act[p];
        j.shift = 8 * d;
        if (p > 0) {
            j.ks = ks;
            run_phase(&j, 1);
        }
        /* positions: buckets in order, chunks in order within a bucket */
        int64_t pos = 0;
        for (int b = 0; b < 256; b++)
            for (int64_t c = 0; c < nch; c++) {
                s->off[c * 256 + b] = pos;
                pos += s->hc[c * w * 256 + d * 256 + b];
            }
        bool last = p == P - 1, odd = ((P - 1 - p) & 1) != 0;
        void *kd;
        int kmode;
        if (last) {
            kd = vout;
            kmode = vout ? 2 : 0;
        } else {
            kd = vout ? (odd ? s->kt[0] : (void *)vout) : s->kt[p & 1];
            kmode = 1;
        }
        int64_t *id = NULL;
        int imode = 0;
        if (iout) {
            id = last || !odd ? iout : s->it;
            imode = p == 0 ? 1 : 2;
        }
        j.ks = ks;
        j.kd = kd;
        j.kmode = kmode;
        j.is = is;
        j.id = id;
        j.imode = imode;
        run_phase(&j, 2);
        ks = kd;
        is = id;
    }
    if (loss && vout && o->fix) o->fix(vout, src, n);
}

static void scratch_free(row_scratch *s)
{
    nd__free(s->kt[0]);
    nd__free(s->kt[1]);
    nd__free(s->it);
    nd__free(s->hc);
    nd__free(s->off);
    nd__free(s->loss);
    nd__free(s->k64);
    memset(s, 0, sizeof *s);
}

static bool scratch_alloc(row_scratch *s, int w, int64_t n, int64_t nch, bool vals, bool idx)
{
    memset(s, 0, sizeof *s);
    size_t kb = (size_t)n * (size_t)w;
    bool ok = true;
    if (n <= 16) {
        s->k64 = nd__malloc(sizeof(uint64_t) * 2 * (size_t)(n > 0 ? n : 1));
        return s->k64 != NULL;
    }
    s->kt[0] = nd__malloc(kb);
    ok = ok && s->kt[0];
    if (!vals) {
        s->kt[1] = nd__malloc(kb);
        ok = ok && s->kt[1];
    }
    if (idx) {
        s->it = nd__malloc(sizeof(int64_t) * (size_t)n);
        ok = ok && s->it;
    }
    s->hc = nd__malloc(sizeof(int64_t) * 256 * (size_t)w * (size_t)nch);
    s->off = nd__malloc(sizeof(int64_t) * 256 * (size_t)nch);
    s->loss = nd__malloc(sizeof(int) * (size_t)nch);
    ok = ok && s->hc && s->off && s->loss;
    if (!ok) scratch_free(s);
    return ok;
}

typedef struct rows_job {
    const sort_ops *o;
    const char *a;
    char *v;
    int64_t *ix;
    int64_t n, k;
    uint64_t flip;
    bool largest;
    _Atomic int failed;
} rows_job;

static void rows_body(void *ctx, int64_t rb, int64_t re)
{
    rows_job *j = (rows_job *)ctx;
    row_scratch s;
    if (!scratch_alloc(&s, j->o->w, j->n, 1, j->v != NULL, j->ix != NULL)) {
        j->failed = 1;
        return;
    }
    size_t rowb = (size_t)j->n * (size_t)j->o->w;
    for (int64_t r = rb; r < re; r++)
        sort_row(j->o, j->a + rowb * (size_t)r, j->n, j->flip, j->v ? j->v + rowb * (size_t)r : NULL,
                 j->ix ? j->ix + j->n * r : NULL, &s, 1);
    scratch_free(&s);
}

nd_status nd__cpu_sort_rows(nd_array *vals, nd_array *idx, const nd_array *a, bool descending)
{
    const sort_ops *o = &g_ops[a->dtype];
    int64_t rows = a->shape[0], n = a->shape[1];
    if (rows == 0 || n == 0) return ND_OK;
    nd_status sst;
    if (nd__cpu_sort_rows_simd(&sst, vals, idx, a, descending)) return sst;
    uint64_t flip = descending ? ~(uint64_t)0 : 0;
    char *v = vals ? nd__ptr(vals) : NULL;
    int64_t *ix = idx ? (int64_t *)nd__ptr(idx) : NULL;
    int nt = nd__num_threads();
    if (n >= (1 << 16) && (rows == 1 || rows < nt)) {
        int64_t nch = (int64_t)nt * 4;
        if (nch > 64) nch = 64;
        if (nch > n / 4096) nch = n / 4096;
        if (nch < 1) nch = 1;
        row_scratch s;
        if (!scratch_alloc(&s, o->w, n, nch, v != NULL, ix != NULL))
            return nd__err(ND_ERR_NOMEM, "nd_sort", "out of host memory for the sort buffers of %lld elements",
                           (long long)n);
        size_t rowb = (size_t)n * (size_t)o->w;
        for (int64_t r = 0; r < rows; r++)
            sort_row(o, nd__ptr(a) + rowb * (size_t)r, n, flip, v ? v + rowb * (size_t)r : NULL, ix ? ix + n * r : NULL,
                     &s, nch);
        scratch_free(&s);
        return ND_OK;
    }
    rows_job j = {.o = o, .a = nd__ptr(a), .v = v, .ix = ix, .n = n, .flip = flip};
    nd__parallel_for(rows, n * 8 + 64, rows_body, &j);
    if (j.failed) return nd__err(ND_ERR_NOMEM, "nd_sort", "out of host memory for the sort buffers of a row of %lld", (long long)n);
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* top-k                                                               */
/* ------------------------------------------------------------------ */
typedef struct topk_job {
    const sort_ops *o;
    const char *a;
    char *v;
    int64_t *ix;
    int64_t n, k;
    bool largest;
    _Atomic int failed;
} topk_job;

static void topk_body(void *ctx, int64_t rb, int64_t re)
{
    topk_job *j = (topk_job *)ctx;
    const sort_ops *o = j->o;
    size_t w = (size_t)o->w, rowb = (size_t)j->n * w;
    int64_t n = j->n, k = j->k;
    bool select = k <= 64;
    row_scratch s = {0};
    uint64_t *bk = NULL;
    int64_t *bi = NULL;
    char *tv = NULL;
    if (select) {
        bk = nd__malloc(sizeof(uint64_t) * (size_t)k);
        bi = nd__malloc(sizeof(int64_t) * (size_t)k);
    } else {
        tv = nd__malloc(rowb);
        bi = nd__malloc(sizeof(int64_t) * (size_t)n);
        if (!scratch_alloc(&s, o->w, n, 1, true, true)) {
            nd__free(tv);
            tv = NULL;
        }
    }
    if (!bi || (select ? !bk : !tv)) {
        j->failed = 1;
        nd__free(bk);
        nd__free(bi);
        nd__free(tv);
        scratch_free(&s);
        return;
    }
    uint64_t flip = j->largest ? 0 : ~(uint64_t)0;
    for (int64_t r = rb; r < re; r++) {
        const char *src = j->a + rowb * (size_t)r;
        if (select) o->topk(src, n, k, flip, bk, bi);
        else sort_row(o, src, n, ~flip, tv, bi, &s, 1);
        if (j->v) {
            char *dst = j->v + (size_t)k * w * (size_t)r;
            for (int64_t q = 0; q < k; q++) memcpy(dst + (size_t)q * w, src + (size_t)bi[q] * w, w);
        }
        if (j->ix) memcpy(j->ix + k * r, bi, sizeof(int64_t) * (size_t)k);
    }
    nd__free(bk);
    nd__free(bi);
    nd__free(tv);
    scratch_free(&s);
}

nd_status nd__cpu_topk_rows(nd_array *vals, nd_array *idx, const nd_array *a, int64_t k, bool largest)
{
    int64_t rows = a->shape[0], n = a->shape[1];
    if (rows == 0 || k == 0) return ND_OK;
    topk_job j = {.o = &g_ops[a->dtype], .a = nd__ptr(a), .v = vals ? nd__ptr(vals) : NULL,
                  .ix = idx ? (int64_t *)nd__ptr(idx) : NULL, .n = n, .k = k, .largest = largest};
    nd__parallel_for(rows, k <= 64 ? n + 64 : n * 8, topk_body, &j);
    if (j.failed) return nd__err(ND_ERR_NOMEM, "nd_topk", "out of host memory for the buffers of a row of %lld", (long long)n);
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* searchsorted                                                        */
/* ------------------------------------------------------------------ */
typedef struct ss_job {
    int t;
    const void *a, *v;
    int64_t n;
    int64_t *out;
    int right;
} ss_job;

static void ss_body(void *ctx, int64_t b, int64_t e)
{
    ss_job *j = (ss_job *)ctx;
    for (int64_t i = b; i < e; i++)
        j->out[i] = nd_sort_bsearch(j->t, j->a, j->n, nd_sort_key64(j->t, j->v, i), j->right);
}

nd_status nd__cpu_searchsorted(nd_array *out, const nd_array *a, const nd_array *v, bool right)
{
    ss_job j = {(int)a->dtype, nd__ptr(a), nd__ptr(v), a->size, (int64_t *)nd__ptr(out), right};
    int64_t lg = 1;
    while ((INT64_C(1) << lg) < a->size && lg < 62) lg++;
    nd__parallel_for(v->size, lg * 4, ss_body, &j);
    return ND_OK;
}
