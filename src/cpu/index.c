/*
 * CPU indexing kernels: gather (take, take_along_axis, mask rows),
 * scatter (put, put_along_axis, mask_assign, add/maximum/minimum.at) and
 * compaction (nonzero, a[mask], compress). Contracts: src/core/backend.h.
 *
 * gather runs through the library's iterator (src/core/iter.c) with three
 * operands: out, idx and a view of `a` whose `axis` stride is 0 (so the
 * iterator yields the address of a's row start); the inner loop adds
 * j * stride(axis). Rows of contiguous elements under one index (take
 * along axis 0 of a C-contiguous matrix) are one memcpy each. Threaded
 * by the pool (nd__iter_run).
 *
 * scatter is sequential in C order of idx's shape: the last value wins
 * for ASSIGN and accumulation follows NumPy's order exactly.
 *
 * compress is two passes over fixed blocks of the mask (boundaries
 * independent of the thread count): a count per block, a prefix, then
 * each block writes its selection at its offset. Elements are compacted
 * branch-free through a small stack buffer (a stray store for a false
 * mask byte never leaves the buffer).
 */
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/index.h"
#include "shared/index_ops.h"

/* ------------------------------------------------------------------ */
/* gather                                                              */
/* ------------------------------------------------------------------ */
typedef struct {
    int64_t axs; /* byte stride of a along axis */
    int64_t n;   /* extent of a along axis */
    int mode;
    size_t isz;
} gather_ctx;

#define GATHER_LOOP(T)                                                                  \
    for (int64_t i = 0; i < cnt; i++) {                                                 \
        int64_t j = nd_ix_norm(*(const int64_t *)(ip + i * si), g->n, g->mode);         \
        *(T *)(o + i * so) = *(const T *)(ap + i * sa + j * g->axs);                    \
    }

static void gather_loop(char **args, const int64_t *steps, int64_t cnt, const void *ctx)
{
    const gather_ctx *g = ctx;
    char *o = args[0];
    const char *ip = args[1], *ap = args[2];
    int64_t so = steps[0], si = steps[1], sa = steps[2];
    if (si == 0) { /* one index for the whole run: a row copy */
        const char *src = ap + nd_ix_norm(*(const int64_t *)ip, g->n, g->mode) * g->axs;
        if (so == (int64_t)g->isz && sa == (int64_t)g->isz) {
            size_t nb = (size_t)cnt * g->isz, k = 0;
            for (; k + 32 <= nb; k += 32) __builtin_memcpy(o + k, src + k, 32); /* short rows: no libc call */
            if (k < nb) memcpy(o + k, src + k, nb - k);
            return;
        }
        ap = src;
        for (int64_t i = 0; i < cnt; i++) memcpy(o + i * so, ap + i * sa, g->isz);
        return;
    }
    switch (g->isz) {
    case 1: GATHER_LOOP(uint8_t) break;
    case 2: GATHER_LOOP(uint16_t) break;
    case 4: GATHER_LOOP(uint32_t) break;
    case 8: GATHER_LOOP(uint64_t) break;
    default: GATHER_LOOP(nd_c128_t) break; /* 16: complex128 */
    }
}

/* a viewed with out's shape and stride 0 along axis (a header on the
 * stack: the iterator only reads geometry and the data pointer). */
static void row_start_view(nd_array *v, const nd_array *a, const nd_array *like, int axis)
{
    *v = *a;
    for (int d = 0; d < a->ndim; d++) v->shape[d] = like->shape[d];
    v->strides[axis] = 0;
    v->size = like->size;
}

/* The row form (take along axis 0 of a C-contiguous matrix): the
 * iteration is (rows, inner) with one index per row and contiguous inner
 * runs in out and a: each row is one copy. */
typedef struct {
    const gather_ctx *g;
    char *o;
    const char *ip, *ap;
    int64_t so, si, sa, nb;
} rows_job;

#define PF 16 /* rows fetched ahead */

static void rows_body(void *ctx, int64_t b, int64_t e)
{
    const rows_job *r = ctx;
    const gather_ctx *g = r->g;
    for (int64_t q = b; q < e; q++) {
        if (q + PF < e) { /* random rows: fetch ahead (the loads are latency bound) */
            int64_t jp = nd_ix_norm(*(const int64_t *)(r->ip + (q + PF) * r->si), g->n, g->mode);
            __builtin_prefetch(r->ap + (q + PF) * r->sa + jp * g->axs);
        }
        int64_t j = nd_ix_norm(*(const int64_t *)(r->ip + q * r->si), g->n, g->mode);
        char *o = r->o + q * r->so;
        const char *src = r->ap + q * r->sa + j * g->axs;
        if (r->nb == 64) __builtin_memcpy(o, src, 64);
        else memcpy(o, src, (size_t)r->nb);
    }
}

nd_status nd__cpu_gather(nd_array *out, const nd_array *a, const nd_array *idx, int axis, int mode)
{
    if (out->size == 0) return ND_OK;
    nd_array av;
    row_start_view(&av, a, out, axis);
    const nd_array *ops[3] = {out, idx, &av};
    nd_iter it;
    nd__iter_init(&it, 3, ops);
    gather_ctx g = {a->strides[axis] * (int64_t)nd__itemsize(a->dtype), a->shape[axis], mode, nd__itemsize(a->dtype)};
    if (it.ndim == 2 && it.strides[1][1] == 0 && it.strides[0][1] == (int64_t)g.isz &&
        it.strides[2][1] == (int64_t)g.isz) {
        rows_job r = {&g, it.data[0], it.data[1], it.data[2], it.strides[0][0], it.strides[1][0], it.strides[2][0],
                      it.shape[1] * (int64_t)g.isz};
        nd__parallel_for(it.shape[0], 2 * it.shape[1], rows_body, &r);
        return ND_OK;
    }
    nd__iter_run(&it, gather_loop, &g, 4);
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* scatter                                                             */
/* ------------------------------------------------------------------ */
typedef void (*scatter_fn)(char *ap, const char *ip, const char *vp, int64_t cnt, int64_t sa, int64_t si, int64_t sv,
                           int64_t axs, int64_t n, int mode, int op);

#define SCATTER_FN(sfx)                                                                                   \
    static void scatter_##sfx(char *ap, const char *ip, const char *vp, int64_t cnt, int64_t sa, int64_t si, \
                              int64_t sv, int64_t axs, int64_t n, int mode, int op)                       \
    {                                                                                                     \
        for (int64_t i = 0; i < cnt; i++) {                                                               \
            int64_t j = nd_ix_norm(*(const int64_t *)(ip + i * si), n, mode);                             \
            nd_##sfx##_t *d = (nd_##sfx##_t *)(ap + i * sa + j * axs);                                    \
            *d = nd_ix_comb_##sfx(op, *d, *(const nd_##sfx##_t *)(vp + i * sv));                          \
        }                                                                                                 \
    }
ND_DTYPE_SUFFIXES(SCATTER_FN)
#define SCATTER_NAME(sfx) scatter_##sfx,
static const scatter_fn scatter_fns[ND_NUM_DTYPES] = {ND_DTYPE_SUFFIXES(SCATTER_NAME)};

nd_status nd__cpu_scatter(nd_array *a, const nd_array *idx, const nd_array *values, int axis, int mode, int op)
{
    if (idx->size == 0) return ND_OK;
    const int nd = idx->ndim;
    const int64_t isz = (int64_t)nd__itemsize(a->dtype);
    int64_t sa[ND_MAX_DIMS], si[ND_MAX_DIMS], sv[ND_MAX_DIMS], pos[ND_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        sa[d] = d == axis ? 0 : a->strides[d] * isz;
        si[d] = idx->strides[d] * 8;
        sv[d] = values->strides[d] * isz;
        pos[d] = 0;
    }
    const int64_t axs = nd > 0 ? a->strides[axis] * isz : 0, n = nd > 0 ? a->shape[axis] : 1;
    const int64_t inner = nd > 0 ? idx->shape[nd - 1] : 1;
    const int64_t ia = nd > 0 ? sa[nd - 1] : 0, ii = nd > 0 ? si[nd - 1] : 0, iv = nd > 0 ? sv[nd - 1] : 0;
    char *pa = nd__ptr(a);
    const char *pi = nd__ptr(idx), *pv = nd__ptr(values);
    scatter_fn fn = scatter_fns[a->dtype];
    /* C order over idx's shape: rows of the last axis, an odometer over the rest */
    for (int64_t done = 0; done < idx->size; done += inner) {
        fn(pa, pi, pv, inner, ia, ii, iv, axs, n, mode, op);
        for (int d = nd - 2; d >= 0; d--) {
            pa += sa[d], pi += si[d], pv += sv[d];
            if (++pos[d] < idx->shape[d]) break;
            pa -= sa[d] * pos[d], pi -= si[d] * pos[d], pv -= sv[d] * pos[d];
            pos[d] = 0;
        }
    }
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* compress                                                            */
/* ------------------------------------------------------------------ */
#define CBLK ((int64_t)1 << 16) /* mask bytes per block */
#define CBUF 256                /* compaction buffer (elements) */

typedef struct {
    const uint8_t *m;
    int64_t n, nblk;
    int64_t *off; /* per block: count, then (after the prefix) the start */
    char *out;
    const char *a;
    int64_t sa0, sa1, rows; /* a's byte strides (row, element) and R */
    size_t isz;
    int kind; /* 0: indices; 1: packed elements (R == 1, isz 1/2/4/8); 2: rows */
} cmp_job;

/* Nonzero bytes of m[s, t): eight at a time (a byte's high bit is set
 * after the add iff the byte is nonzero; the multiply sums the eight). */
static int64_t count_bytes(const uint8_t *m, int64_t s, int64_t t)
{
    int64_t c = 0, i = s;
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full, hi = 0x8080808080808080ull, ones = 0x0101010101010101ull;
    for (; i + 8 <= t; i += 8) {
        uint64_t w;
        memcpy(&w, m + i, 8);
        uint64_t nz = ((((w & lo7) + lo7) | w) & hi) >> 7;
        c += (int64_t)((nz * ones) >> 56);
    }
    for (; i < t; i++) c += m[i] != 0;
    return c;
}

static void count_body(void *ctx, int64_t b, int64_t e)
{
    cmp_job *j = ctx;
    for (int64_t k = b; k < e; k++) {
        int64_t s = k * CBLK, t = s + CBLK < j->n ? s + CBLK : j->n;
        j->off[k] = count_bytes(j->m, s, t);
    }
}

#define PACK(T, VAL)                                                              \
    do {                                                                          \
        T buf[CBUF + 1];                                                          \
        T *dst = (T *)j->out + o;                                                 \
        for (int64_t c0 = s; c0 < t; c0 += CBUF) {                                \
            int64_t c1 = c0 + CBUF < t ? c0 + CBUF : t, k = 0;                    \
            for (int64_t i = c0; i < c1; i++) {                                   \
                buf[k] = VAL;                                                     \
                k += j->m[i] != 0;                                                \
            }                                                                     \
            memcpy(dst, buf, (size_t)k * sizeof(T));                              \
            dst += k;                                                             \
        }                                                                         \
    } while (0)

static void write_body(void *ctx, int64_t b, int64_t e)
{
    cmp_job *j = ctx;
    for (int64_t blk = b; blk < e; blk++) {
        int64_t s = blk * CBLK, t = s + CBLK < j->n ? s + CBLK : j->n, o = j->off[blk];
        if (j->kind == 0) {
            PACK(int64_t, i);
        } else if (j->kind == 1) {
            const char *a = j->a;
            int64_t st = j->sa0;
            switch (j->isz) {
            case 1: PACK(uint8_t, *(const uint8_t *)(a + i * st)); break;
            case 2: PACK(uint16_t, *(const uint16_t *)(a + i * st)); break;
            case 4: PACK(uint32_t, *(const uint32_t *)(a + i * st)); break;
            case 8: PACK(uint64_t, *(const uint64_t *)(a + i * st)); break;
            default: PACK(nd_c128_t, *(const nd_c128_t *)(a + i * st)); break; /* 16: complex128 */
            }
        } else {
            size_t rb = (size_t)j->rows * j->isz;
            char *dst = j->out + (size_t)o * rb;
            for (int64_t i = s; i < t; i++) {
                if (!j->m[i]) continue;
                const char *src = j->a + i * j->sa0;
                if (j->sa1 == (int64_t)j->isz) memcpy(dst, src, rb);
                else
                    for (int64_t r = 0; r < j->rows; r++) memcpy(dst + (size_t)r * j->isz, src + r * j->sa1, j->isz);
                dst += rb;
            }
        }
    }
}

nd_status nd__cpu_compress(nd_array *out, const nd_array *a, const nd_array *mask)
{
    if (out->size == 0) return ND_OK;
    cmp_job j;
    memset(&j, 0, sizeof j);
    j.m = (const uint8_t *)nd__ptr(mask);
    j.n = mask->shape[0];
    j.nblk = (j.n + CBLK - 1) / CBLK;
    j.out = nd__ptr(out);
    if (a) {
        j.a = nd__ptr(a);
        j.isz = nd__itemsize(a->dtype);
        j.rows = a->shape[1];
        j.sa0 = a->strides[0] * (int64_t)j.isz;
        j.sa1 = a->shape[1] > 1 ? a->strides[1] * (int64_t)j.isz : (int64_t)j.isz;
        j.kind = j.rows == 1 ? 1 : 2;
    }
    j.off = nd__malloc((size_t)j.nblk * sizeof *j.off);
    if (!j.off) return nd__err(ND_ERR_NOMEM, "nd_compress", "out of host memory for %lld block counts", (long long)j.nblk);
    nd__parallel_for(j.nblk, CBLK / 4, count_body, &j);
    int64_t acc = 0;
    for (int64_t k = 0; k < j.nblk; k++) {
        int64_t c = j.off[k];
        j.off[k] = acc;
        acc += c;
    }
    nd__parallel_for(j.nblk, CBLK * (j.kind == 2 ? j.rows : 2), write_body, &j);
    nd__free(j.off);
    return ND_OK;
}

nd_status nd__cpu_mask_count(const nd_array *mask, int64_t *count)
{
    cmp_job j;
    memset(&j, 0, sizeof j);
    j.m = (const uint8_t *)nd__ptr(mask);
    j.n = mask->shape[0];
    j.nblk = (j.n + CBLK - 1) / CBLK;
    *count = 0;
    if (j.nblk == 0) return ND_OK;
    j.off = nd__malloc((size_t)j.nblk * sizeof *j.off);
    if (!j.off) return nd__err(ND_ERR_NOMEM, "nd_count_nonzero", "out of host memory for %lld block counts", (long long)j.nblk);
    nd__parallel_for(j.nblk, CBLK / 4, count_body, &j);
    for (int64_t k = 0; k < j.nblk; k++) *count += j.off[k];
    nd__free(j.off);
    return ND_OK;
}

bool nd__cpu_ix_supports(nd_kernel_kind kind, int op, nd_dtype t)
{
    if (!nd__dtype_valid(t)) return false;
    switch (kind) {
    case ND_KERNEL_GATHER:
    case ND_KERNEL_COMPRESS: return op == 0;
    case ND_KERNEL_SCATTER: return (unsigned)op < (unsigned)ND_NUM_SCATTER_OPS;
    default: return false;
    }
}
