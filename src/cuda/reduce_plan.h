/* Geometry and work partition of the CUDA reductions, plain ND_HOSTDEV C
 * (no CUDA runtime calls): the host plans with it, the kernels in
 * src/cuda/reduce_kern.cuh index with it, and tests/test_gpu_reduce.c
 * emulates the kernels with it on the CPU.
 *
 * Geometry (src/shared/reduce_geom.h, the CPU backend's too): the core hands over a
 * view whose last naxes axes are reduced. Kept and reduced axes are
 * simplified separately: extent-1 axes dropped, and, except for argmax/
 * argmin whose flat index must follow C order, negative reduced strides
 * turned around and the reduced axes sorted innermost (smallest stride)
 * last; then axes contiguous with each other are merged. Offsets are BYTE
 * offsets; flat indices are split with 32-bit divisions when the index
 * range fits, with 64-bit ones otherwise.
 *
 * Two paths, both deterministic: the decomposition depends on the shape
 * and strides only (never on the device or on timing) and partial results
 * are combined in a fixed order.
 *  - INNER (the reduced elements are the closer ones in memory, e.g. sum
 *    over the last axis or over everything): up to NDR_WARP_MAX reduced
 *    elements a warp reduces one output (8 outputs per 256-thread block);
 *    beyond, a block reduces one chunk of one output. Thread t of a group
 *    of G folds elements jb + t, jb + t + G, ... in increasing order
 *    (coalesced when the block is contiguous), then a warp-shuffle tree
 *    (lane i takes lane i + 16, 8, 4, 2, 1) and, for blocks, the 8 warp
 *    results through shared memory in a second shuffle tree. When there
 *    are few outputs, each output's range is split into nchunk chunks of L
 *    elements (L a multiple of 4G) so about NDR_TARGET blocks run; each
 *    block writes one partial state and a combine kernel merges them.
 *  - OUTER (the last kept axis is closer in memory than the reduced ones,
 *    e.g. sum over axis 0 of a C-contiguous matrix, or at most 8 reduced
 *    elements per output): a block covers 32 consecutive outputs of the
 *    last kept axis (threadIdx.x % 32, coalesced) times 8 row lanes
 *    (threadIdx.x / 32) folding rows jb + ty, jb + ty + 8, ...; the 8 row
 *    lanes merge in order 0..7 through shared memory. With few column
 *    blocks the rows are split into nchunk chunks (partials + combine).
 *  - COMBINE: output o's partials k = 0..nchunk-1 (at part[o*pso + k*psk])
 *    merged in order by one thread (nchunk < 32), or by a block whose
 *    thread t merges k = t, t + 256, ... then the block tree.
 */
#ifndef ND_CUDA_REDUCE_PLAN_H
#define ND_CUDA_REDUCE_PLAN_H
#include <stdint.h>
#include <stdlib.h>

#include "cuda/reduce_states.h"
#include "shared/hostdev.h"
#include "core/internal.h"
#include "shared/reduce_geom.h"

#define NDR_BLOCK 256        /* threads per block, every kernel */
#define NDR_WARPS (NDR_BLOCK / 32)
#define NDR_TARGET 2048      /* blocks to aim for: two waves of an H200 (a constant: results must not depend on the device) */
#define NDR_WARP_MAX 1024    /* inner path: a warp per output up to this many elements */
#define NDR_MIN_CHUNK 4096   /* inner path: elements per chunk at least */
#define NDR_OROWS 8          /* outer path: row lanes per block (block = 32 columns x 8) */
#define NDR_MIN_OROWS 64     /* outer path: rows per chunk at least */
#define NDR_OUTER_SMALL 8    /* outer path whenever an output reduces at most this many elements */
#define NDR_COMB_BLOCK 32    /* combine: a block per output from this many partials */
#define NDR_MAX_GRID (65535 * 16) /* grid-stride loops beyond */

enum { NDR_INNER = 0, NDR_OUTER = 1 };

typedef struct nd_rk {
    /* geometry (src/shared/reduce_geom.h, shared with the CPU backend; here
     * nk >= 1: one kept axis of extent 1 when none is left) */
    nd_rgeom g;
    int kidx32, ridx32; /* index ranges fit 32 bits */
    /* partition */
    int path, G;           /* G: inner threads per output (32 or 256) */
    int64_t nchunk, L;     /* the reduced range in nchunk chunks of L */
    int64_t items;         /* first-pass work items (one per block iteration) */
    int64_t nK, sK, lines, ncb; /* outer: last kept axis, lines = nout / nK, 32-column blocks */
    int64_t pso, psk;      /* partial (o, k) at index o * pso + k * psk */
    int cG;                /* combine: threads per output (1 or 256) */
    int64_t citems;        /* combine work items */
    /* data */
    const char *in;        /* element 0 of the simplified geometry */
    void *part;            /* partial states (nchunk > 1), else NULL */
    const double *center;  /* NDR_SQDEV: one centre per output */
    nd_rfin fin;
} nd_rk;

static inline int64_t nd_rk_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }


/* The simplified geometry of reducing the last naxes axes of (ndim,
 * shape, strides in ELEMENTS of isz bytes). keep_order: argmax/argmin. */
static inline void nd_rk_geometry(nd_rk *k, int ndim, const int64_t *shape, const int64_t *strides, int64_t isz,
                                  int naxes, int keep_order)
{
    nd_rgeom_make(&k->g, ndim, shape, strides, isz, naxes, keep_order != 0);
    if (k->g.nk == 0) {
        k->g.nk = 1;
        k->g.kshape[0] = 1;
        k->g.kstr[0] = 0;
    }
    k->kidx32 = k->g.nout <= (int64_t)UINT32_MAX;
    k->ridx32 = k->g.nred <= (int64_t)UINT32_MAX;
}

/* Choose the path and cut the work (see the top of this file). */
static inline void nd_rk_partition(nd_rk *k)
{
    const int64_t nK = k->g.kshape[k->g.nk - 1], sK = k->g.kstr[k->g.nk - 1];
    k->nK = nK;
    k->sK = sK;
    k->lines = nK > 0 ? k->g.nout / nK : 0;
    k->ncb = nd_rk_cdiv(nK, 32);
    k->nchunk = 1;
    if (k->g.nred > 0 && nK > 1 && (k->g.nred <= NDR_OUTER_SMALL || nd_rgeom_rows_closer(&k->g))) {
        k->path = NDR_OUTER;
        k->G = NDR_BLOCK;
        int64_t cols = k->lines * k->ncb;
        if (cols < NDR_TARGET) {
            int64_t c = nd_rk_cdiv(NDR_TARGET, cols), cmax = k->g.nred / NDR_MIN_OROWS;
            k->nchunk = c < cmax ? c : cmax;
            if (k->nchunk < 1) k->nchunk = 1;
        }
        k->L = nd_rk_cdiv(k->g.nred, k->nchunk);
        k->nchunk = nd_rk_cdiv(k->g.nred, k->L);
        k->items = k->nchunk * cols;
        k->pso = 1;
        k->psk = k->g.nout;
    } else {
        k->path = NDR_INNER;
        if (k->g.nred <= NDR_WARP_MAX) {
            k->G = 32;
            k->L = k->g.nred;
            k->items = nd_rk_cdiv(k->g.nout, NDR_WARPS);
        } else {
            k->G = NDR_BLOCK;
            if (k->g.nout < NDR_TARGET) {
                int64_t c = nd_rk_cdiv(NDR_TARGET, k->g.nout), cmax = nd_rk_cdiv(k->g.nred, NDR_MIN_CHUNK);
                k->nchunk = c < cmax ? c : cmax;
            }
            k->L = nd_rk_cdiv(nd_rk_cdiv(k->g.nred, k->nchunk), 4 * NDR_BLOCK) * (4 * NDR_BLOCK);
            k->nchunk = nd_rk_cdiv(k->g.nred, k->L);
            k->items = k->g.nout * k->nchunk;
        }
        k->pso = k->nchunk;
        k->psk = 1;
    }
    k->cG = k->nchunk >= NDR_COMB_BLOCK ? NDR_BLOCK : 1;
    k->citems = k->cG == 1 ? nd_rk_cdiv(k->g.nout, NDR_BLOCK) : k->g.nout;
}

static inline unsigned nd_rk_grid(int64_t items) { return (unsigned)(items < NDR_MAX_GRID ? (items > 0 ? items : 1) : NDR_MAX_GRID); }

/* Byte offset of flat C-order index i over (n, shape, str); n may be 0. */
ND_HOSTDEV static inline int64_t nd_rk_off(int64_t i, int n, const int64_t *shape, const int64_t *str, int small)
{
    if (n <= 0) return 0;
    int64_t off = 0;
    if (small) {
        uint32_t u = (uint32_t)i;
        for (int d = n - 1; d > 0; d--) {
            uint32_t e = (uint32_t)shape[d], q = u / e;
            off += (int64_t)(u - q * e) * str[d];
            u = q;
        }
        return off + (int64_t)u * str[0];
    }
    for (int d = n - 1; d > 0; d--) {
        int64_t q = i / shape[d];
        off += (i - q * shape[d]) * str[d];
        i = q;
    }
    return off + i * str[0];
}
/* offset of output o's block (inner path) */
ND_HOSTDEV static inline int64_t nd_rk_koff(const nd_rk *k, int64_t o)
{
    return nd_rk_off(o, k->g.nk, k->g.kshape, k->g.kstr, k->kidx32);
}
/* offset of reduced element j within its block */
ND_HOSTDEV static inline int64_t nd_rk_roff(const nd_rk *k, int64_t j)
{
    if (k->g.nr == 1) return j * k->g.rstr[0];
    return nd_rk_off(j, k->g.nr, k->g.rshape, k->g.rstr, k->ridx32);
}
/* offset of the first column of an outer-path line (all kept axes but the last) */
ND_HOSTDEV static inline int64_t nd_rk_lineoff(const nd_rk *k, int64_t line)
{
    return nd_rk_off(line, k->g.nk - 1, k->g.kshape, k->g.kstr, k->kidx32);
}
/* elements [jb, je) of chunk kc */
ND_HOSTDEV static inline void nd_rk_chunk(const nd_rk *k, int64_t kc, int64_t *jb, int64_t *je)
{
    *jb = kc * k->L;
    *je = *jb + k->L < k->g.nred ? *jb + k->L : k->g.nred;
}
/* inner path: output and chunk of group g (a warp when G == 32, else 0)
 * of work item `item`; o >= nout means the group is idle */
ND_HOSTDEV static inline void nd_rk_inner_item(const nd_rk *k, int64_t item, int g, int64_t *o, int64_t *kc)
{
    if (k->G == 32) {
        *o = item * NDR_WARPS + g;
        *kc = 0;
    } else {
        *o = item / k->nchunk;
        *kc = item % k->nchunk;
    }
}
/* outer path: chunk, line and first column of work item `item` */
ND_HOSTDEV static inline void nd_rk_outer_item(const nd_rk *k, int64_t item, int64_t *kc, int64_t *line, int64_t *c0)
{
    int64_t cb = item % k->ncb, r = item / k->ncb;
    *line = r % k->lines;
    *kc = r / k->lines;
    *c0 = cb * 32;
}
#endif
