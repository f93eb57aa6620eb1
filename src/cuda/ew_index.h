/*
 * Index arithmetic of the CUDA kernels, written once as ND_HOSTDEV code that
 * both nvcc (device) and gcc (the CPU-side unit tests in tests/test_gpu_ew.c)
 * compile. No CUDA runtime call and no C++ here: this header is C11 and
 * C++17 at once.
 *
 *  - nd_kiter: the simplified iteration space of src/core/iter.c (nd_iter) in the
 *    form passed to kernels by value (shared by every kernel file through
 *    src/cuda/kiter.cuh);
 *  - byte offsets of a flat C-order index over an nd_kiter, with 64-bit or
 *    32-bit arithmetic (nd_kiter_offsets64_n / nd_kiter_offsets32_n) and the
 *    test of when 32 bits suffice (nd_kiter_fits32);
 *  - the elementwise launch plan (nd_ew_plan_of): which path a kernel takes
 *    (flat with vector loads, strided with 32-bit or 64-bit indices), the
 *    split of a flat range into a scalar head, an aligned vector body and a
 *    scalar tail, and the grid size.
 */
#ifndef ND_CUDA_EW_INDEX_H
#define ND_CUDA_EW_INDEX_H
#include <stdint.h>
#include <string.h>

#include "shared/hostdev.h"
#include "core/internal.h"

/* Up to ND_ITER_MAX_OPS operands; operand 0 is the output. Axes as in
 * nd_iter: innermost LAST; strides in BYTES (negative and zero allowed). */
typedef struct nd_kiter {
    int ndim;
    int nops;
    int64_t n;
    int64_t shape[ND_MAX_DIMS];
    int64_t st[ND_ITER_MAX_OPS][ND_MAX_DIMS];
} nd_kiter;

/* The host-side conversion (the kernels take the struct by value). */
static inline void nd_kiter_from_iter(nd_kiter *k, const nd_iter *it)
{
    memset(k, 0, sizeof *k);
    k->ndim = it->ndim;
    k->nops = it->nops;
    k->n = it->size;
    for (int d = 0; d < it->ndim; d++) {
        k->shape[d] = it->shape[d];
        for (int o = 0; o < it->nops; o++) k->st[o][d] = it->strides[o][d];
    }
}

/* Byte offsets of flat index i (C order over k's shape, 0 <= i < k->n) for
 * the first nops operands, 64-bit arithmetic. The outermost axis needs no
 * division (what is left of i is already below its extent). */
ND_HOSTDEV static inline void nd_kiter_offsets64_n(const nd_kiter *k, int nops, int64_t i, int64_t *off)
{
    for (int o = 0; o < nops; o++) off[o] = 0;
    for (int d = k->ndim - 1; d > 0; --d) {
        int64_t ext = k->shape[d];
        int64_t q = i / ext;
        int64_t idx = i - q * ext;
        i = q;
        for (int o = 0; o < nops; o++) off[o] += idx * k->st[o][d];
    }
    for (int o = 0; o < nops; o++) off[o] += i * k->st[o][0];
}

/* The same with 32-bit arithmetic; only valid when nd_kiter_fits32(k). */
ND_HOSTDEV static inline void nd_kiter_offsets32_n(const nd_kiter *k, int nops, uint32_t i, int32_t *off)
{
    for (int o = 0; o < nops; o++) off[o] = 0;
    for (int d = k->ndim - 1; d > 0; --d) {
        uint32_t ext = (uint32_t)k->shape[d];
        uint32_t q = i / ext;
        uint32_t idx = i - q * ext;
        i = q;
        for (int o = 0; o < nops; o++) off[o] += (int32_t)idx * (int32_t)k->st[o][d];
    }
    for (int o = 0; o < nops; o++) off[o] += (int32_t)i * (int32_t)k->st[o][0];
}

/* Whether 32-bit index arithmetic is exact for k: n <= INT32_MAX (so that
 * i + the grid's thread count never wraps an uint32: the grid has fewer
 * than 2^31 threads) and, for every operand, the sum over axes of
 * (extent - 1) * |byte stride| <= INT32_MAX, which bounds every partial sum
 * of nd_kiter_offsets32_n, whatever the signs of the strides. */
ND_HOSTDEV static inline bool nd_kiter_fits32(const nd_kiter *k)
{
    const int64_t lim = INT32_MAX;
    if (k->n < 0 || k->n > lim) return false;
    for (int o = 0; o < k->nops; o++) {
        int64_t ext = 0;
        for (int d = 0; d < k->ndim; d++) {
            if (k->st[o][d] == INT64_MIN) return false; /* no magnitude in int64 */
            int64_t s = k->st[o][d] < 0 ? -k->st[o][d] : k->st[o][d];
            int64_t m = k->shape[d] - 1;
            if (m <= 0 || s == 0) continue;
            if (m > lim / s) return false;
            ext += m * s;
            if (ext > lim) return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* Launch geometry                                                     */
/* ------------------------------------------------------------------ */
#define ND_EW_BLOCK 256
/* At most 65535 * 16 blocks (nd_grid_for in cuda_util.cuh); grid-stride
 * loops take the rest. Fewer than 2^31 threads in all. */
#define ND_EW_MAX_GRID (65535 * 16)

/* Blocks for `work` grid-stride items with at most max_grid blocks. */
ND_HOSTDEV static inline unsigned nd_ew_grid(int64_t work, unsigned max_grid)
{
    int64_t g = (work + ND_EW_BLOCK - 1) / ND_EW_BLOCK;
    if (g > (int64_t)max_grid) g = max_grid;
    return (unsigned)(g > 0 ? g : 1);
}

/* ------------------------------------------------------------------ */
/* The flat path: n elements, operand k at data[k] + i * itemsize[k] (or  */
/* at data[k] for every i when bit k of bcast is set: a stride-0 operand). */
/* Elements [head, head + nvec * vec) go in vectors of vec elements       */
/* (16 bytes of the widest operand), the nrem others one by one.          */
/* ------------------------------------------------------------------ */
typedef struct nd_ew_split {
    int64_t head; /* scalar elements before the aligned body */
    int64_t nvec; /* vectors in the body */
    int64_t nrem; /* scalar elements: head + tail */
} nd_ew_split;

/* The split for pointers data[0..nops) of itemsizes isz[]. A vector body
 * exists when every non-broadcast operand is itemsize-aligned and all have
 * the same misalignment (in elements) modulo vec: then after `head`
 * elements every one of them is aligned to vec * itemsize bytes. */
ND_HOSTDEV static inline nd_ew_split nd_ew_split_of(int64_t n, int vec, int nops, char *const *data,
                                                    const size_t *isz, unsigned bcast)
{
    nd_ew_split s;
    s.head = 0;
    s.nvec = 0;
    s.nrem = n;
    if (vec <= 1 || n <= 0) return s;
    int64_t mis = -1;
    for (int k = 0; k < nops; k++) {
        if ((bcast >> k) & 1u) continue;
        uintptr_t p = (uintptr_t)data[k];
        if (isz[k] == 0 || p % isz[k] != 0) return s;
        int64_t m = (int64_t)((p / isz[k]) % (uintptr_t)vec);
        if (mis < 0) mis = m;
        else if (m != mis) return s;
    }
    if (mis < 0) return s; /* everything broadcast: nothing to vectorise */
    int64_t head = mis == 0 ? 0 : vec - mis;
    if (head >= n) return s;
    int64_t nvec = (n - head) / vec;
    if (nvec == 0) return s;
    s.head = head;
    s.nvec = nvec;
    s.nrem = n - nvec * vec;
    return s;
}

/* First element of vector v of the body. */
ND_HOSTDEV static inline int64_t nd_ew_vec_start(const nd_ew_split *s, int vec, int64_t v) { return s->head + v * vec; }
/* Element of scalar item j (0 <= j < nrem): the head, then the tail. */
ND_HOSTDEV static inline int64_t nd_ew_rem_index(const nd_ew_split *s, int vec, int64_t j)
{
    return j < s->head ? j : j + s->nvec * vec;
}

/* ------------------------------------------------------------------ */
/* The plan of one elementwise launch                                  */
/* ------------------------------------------------------------------ */
enum { ND_EW_FLAT = 0, ND_EW_S32 = 1, ND_EW_S64 = 2 };

typedef struct nd_ew_plan {
    int path;       /* ND_EW_FLAT, ND_EW_S32 or ND_EW_S64 */
    int vec;        /* elements per vector on the flat path */
    unsigned bcast; /* flat path: bit k = operand k has stride 0 */
    nd_ew_split sp; /* flat path */
    int64_t work;   /* grid-stride items: max(nvec, nrem) flat, else n */
    unsigned grid;  /* blocks of ND_EW_BLOCK threads */
} nd_ew_plan;

/* The kernel argument block (by value, one copy per launch). */
typedef struct nd_ew_args {
    char *data[ND_ITER_MAX_OPS]; /* operand 0 = the output */
    nd_ew_plan plan;
    nd_kiter it; /* strided paths */
} nd_ew_args;

/* Elements per 16-byte vector of the widest operand of it. */
static inline int nd_ew_vec_width(const nd_iter *it)
{
    size_t w = 1;
    for (int k = 0; k < it->nops; k++)
        if (it->itemsize[k] > w) w = it->itemsize[k];
    return (int)(16 / w);
}

/* Which path an iteration takes (it->size > 0): flat when it is one axis
 * that the output walks with stride == itemsize and every input with
 * stride == itemsize or 0 (a broadcast scalar); else strided, with 32-bit
 * index arithmetic when it fits. */
static inline void nd_ew_plan_of(nd_ew_plan *p, const nd_iter *it, int vec, unsigned max_grid)
{
    memset(p, 0, sizeof *p);
    p->vec = vec;
    bool flat = it->ndim == 1 && it->strides[0][0] == (int64_t)it->itemsize[0];
    for (int k = 1; k < it->nops && flat; k++) {
        if (it->strides[k][0] == 0) p->bcast |= 1u << k;
        else flat = it->strides[k][0] == (int64_t)it->itemsize[k];
    }
    if (flat) {
        p->path = ND_EW_FLAT;
        p->sp = nd_ew_split_of(it->size, vec, it->nops, it->data, it->itemsize, p->bcast);
        p->work = p->sp.nvec > p->sp.nrem ? p->sp.nvec : p->sp.nrem;
    } else {
        nd_kiter k;
        nd_kiter_from_iter(&k, it);
        p->bcast = 0;
        p->path = nd_kiter_fits32(&k) ? ND_EW_S32 : ND_EW_S64;
        p->work = it->size;
    }
    p->grid = nd_ew_grid(p->work, max_grid);
}

static inline void nd_ew_args_of(nd_ew_args *a, const nd_iter *it, int vec)
{
    memset(a, 0, sizeof *a);
    for (int k = 0; k < it->nops; k++) a->data[k] = it->data[k];
    nd_ew_plan_of(&a->plan, it, vec, ND_EW_MAX_GRID);
    nd_kiter_from_iter(&a->it, it);
}
#endif
