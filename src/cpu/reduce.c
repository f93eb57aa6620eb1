/*
 * CPU reductions (nd_backend.reduce): reduce the LAST naxes axes of a into
 * the C-contiguous out (contract in src/reduce/reduce.c: a has its original
 * dtype, out the result dtype).
 *
 * Plan:
 *  1. simplify the geometry (src/shared/reduce_geom.h, shared with the CUDA
 *     backend): drop extent-1 axes; for order-free ops turn negative
 *     reduced strides around and sort the reduced axes by stride; merge
 *     axes that are contiguous with each other;
 *  2. pick the accumulator (nd_racc) and the loops (rk_ops);
 *  3. one of two paths:
 *     - "inner": each output reduces its own block; the innermost reduced
 *       axis is a run summed pairwise (read in place when contiguous and
 *       already of the accumulator type, else converted 1024 elements at
 *       a time), runs of outer reduced axes are combined pairwise;
 *     - "rows": when the last kept axis is closer in memory than every
 *       reduced axis (e.g. sum over axis 0 of a C-contiguous matrix), a
 *       tile of up to TW outputs accumulates whole rows with vector
 *       loops, rows combined pairwise (16 sequential, then halves;
 *       max/min/argmax/argmin: in order, four rows a pass when read in
 *       place);
 *  4. work is cut into units whose boundaries depend on the shape only
 *     (never on the thread count) and partial results are combined in a
 *     fixed pairwise order, so results are the same run to run and for
 *     any number of threads;
 *  5. finish (nd_rop_finish, src/shared/reduce_ops.h): mean divides by n, var by
 *     max(n - ddof, 0), std takes the square root, in the accumulator
 *     type; then the accumulator values are converted to out's
 *     dtype (written in place when out already has the accumulator type).
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/reduce.h"
#include "shared/reduce_geom.h"

#define UNIT (1 << 16)        /* elements per unit of work (inner path) */
#define RUNIT (1 << 18)       /* elements per row group (rows path) */
#define BLK (8 * ND_RK_BLOCK) /* conversion block: 8 pairwise leaves */
#define TW 4096               /* outputs per tile on the rows path */
#define RLEAF 16              /* rows accumulated sequentially below the pairwise tree */
#define MIN_ITEMS 64          /* rows path: split rows into groups below this many tiles */

typedef struct {
    const rk_ops *ops;
    nd_racc acc;
    size_t asz;
    nd_dtype dt;
    int64_t isz;
    const char *base;
    nd_rgeom g; /* the simplified geometry (src/shared/reduce_geom.h) */
    /* inner path */
    int64_t n0, s0, nrows, nch, grows, U;
    bool direct;
    /* rows path */
    int64_t nK, sK, lines, tiles, tw, rg, G; /* tw: tile width min(nK, TW) */
    size_t tile; /* bytes of one scratch tile (>= tw * asz, 64-aligned) */
    int levels;  /* depth of the pairwise tree over rg rows */
    bool rdirect;
    atomic_int fail;
    /* results: acc-typed values (res) or indices (ires); centres for SQDEV */
    char *res;
    int64_t *ires;
    const char *center;
    rk_part *parts;
    char *pacc;
    int64_t *pidx;
} rk_job;

static inline int64_t off_of(int64_t i, int n, const int64_t *shape, const int64_t *str)
{
    int64_t off = 0;
    for (int d = n - 1; d > 0 && i > 0; d--) {
        off += (i % shape[d]) * str[d];
        i /= shape[d];
    }
    return n > 0 ? off + i * str[0] : off; /* i < shape[0] by now */
}

static inline int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

static inline rk_val center_of(const rk_job *j, int64_t o)
{
    rk_val c;
    memset(&c, 0, sizeof c);
    if (j->center) memcpy(&c, j->center + (size_t)o * j->asz, j->asz);
    return c;
}

static inline void put(const rk_job *j, int64_t o, const rk_part *p)
{
    if (j->ires) j->ires[o] = p->idx;
    else memcpy(j->res + (size_t)o * j->asz, &p->v, j->asz);
}

/* ------------------------------------------------------------------ */
/* Inner path                                                          */
/* ------------------------------------------------------------------ */
/* n <= BLK elements at p converted to the accumulator, then reduced
 * (kept out of line: the buffer must not sit in every recursive frame). */
static __attribute__((noinline)) rk_part load_leaf(const rk_job *j, const char *p, int64_t n, int64_t idx0, rk_val c)
{
    _Alignas(64) unsigned char buf[BLK * 8];
    nd__rk_load(j->acc, buf, p, j->s0, n, j->dt);
    return j->ops->leaf(buf, n, idx0, c);
}

/* Elements [s, e) of the run starting at p (stride j->s0 bytes). */
static rk_part run_reduce(const rk_job *j, const char *p, int64_t s, int64_t e, int64_t idx0, rk_val c)
{
    if (j->direct) return j->ops->leaf(p + s * j->s0, e - s, idx0 + s, c);
    if (e - s <= BLK) return load_leaf(j, p + s * j->s0, e - s, idx0 + s, c);
    if (j->ops->pairwise) {
        int64_t h = (e - s) / 2;
        h -= h % 8;
        rk_part l = run_reduce(j, p, s, s + h, idx0, c);
        rk_part r = run_reduce(j, p, s + h, e, idx0, c);
        j->ops->comb(&l, &r);
        return l;
    }
    rk_part l = run_reduce(j, p, s, s + BLK, idx0, c);
    for (int64_t b = s + BLK; b < e; b += BLK) {
        rk_part r = run_reduce(j, p, b, min64(b + BLK, e), idx0, c);
        j->ops->comb(&l, &r);
    }
    return l;
}

/* Rows [r0, r1) of the reduced block at pb (rows = all reduced axes but
 * the innermost), each a whole run; combined pairwise. */
static rk_part rows_of_runs(const rk_job *j, const char *pb, int64_t r0, int64_t r1, rk_val c)
{
    if (r1 - r0 == 1)
        return run_reduce(j, pb + off_of(r0, j->g.nr - 1, j->g.rshape, j->g.rstr), 0, j->n0, r0 * j->n0, c);
    int64_t h = (r1 - r0) / 2;
    rk_part l = rows_of_runs(j, pb, r0, r0 + h, c);
    rk_part r = rows_of_runs(j, pb, r0 + h, r1, c);
    j->ops->comb(&l, &r);
    return l;
}

/* Unit u of output o. */
static rk_part unit_reduce(const rk_job *j, int64_t o, int64_t u)
{
    const char *pb = j->base + off_of(o, j->g.nk, j->g.kshape, j->g.kstr);
    rk_val c = center_of(j, o);
    if (j->nch > 1) {
        int64_t r = u / j->nch, s = (u % j->nch) * UNIT;
        const char *p = pb + off_of(r, j->g.nr - 1, j->g.rshape, j->g.rstr);
        return run_reduce(j, p, s, min64(s + UNIT, j->n0), r * j->n0, c);
    }
    int64_t r0 = u * j->grows;
    return rows_of_runs(j, pb, r0, min64(r0 + j->grows, j->nrows), c);
}

static void comb_tree(const rk_ops *ops, rk_part *p, int64_t n)
{
    if (n <= 1) return;
    int64_t h = n / 2;
    comb_tree(ops, p, h);
    comb_tree(ops, p + h, n - h);
    ops->comb(&p[0], &p[h]);
}

static void inner_direct_body(void *ctx, int64_t b, int64_t e)
{
    const rk_job *j = ctx;
    for (int64_t o = b; o < e; o++) {
        rk_part p = unit_reduce(j, o, 0);
        put(j, o, &p);
    }
}

static void inner_units_body(void *ctx, int64_t b, int64_t e)
{
    const rk_job *j = ctx;
    for (int64_t it = b; it < e; it++) j->parts[it] = unit_reduce(j, it / j->U, it % j->U);
}

static void inner_comb_body(void *ctx, int64_t b, int64_t e)
{
    const rk_job *j = ctx;
    for (int64_t o = b; o < e; o++) {
        rk_part *p = j->parts + o * j->U;
        comb_tree(j->ops, p, j->U);
        put(j, o, p);
    }
}

static nd_status inner_pass(rk_job *j)
{
    j->n0 = j->g.rshape[j->g.nr - 1];
    j->s0 = j->g.rstr[j->g.nr - 1];
    j->nrows = j->g.nred / j->n0;
    j->direct = nd__rk_same(j->acc, j->dt) && j->s0 == j->isz;
    if (j->n0 > UNIT) {
        j->nch = (j->n0 + UNIT - 1) / UNIT;
        j->grows = 1;
        j->U = j->nrows * j->nch;
    } else {
        j->nch = 1;
        j->grows = UNIT / j->n0;
        j->U = (j->nrows + j->grows - 1) / j->grows;
    }
    if (j->U == 1) {
        nd__parallel_for(j->g.nout, j->g.nred, inner_direct_body, j);
        return ND_OK;
    }
    int64_t items = j->g.nout * j->U;
    j->parts = nd__malloc((size_t)items * sizeof *j->parts);
    if (!j->parts) return nd__err(ND_ERR_NOMEM, "nd_reduce", "out of memory for %lld partial results", (long long)items);
    nd__parallel_for(items, j->g.nred / j->U + 1, inner_units_body, j);
    nd__parallel_for(j->g.nout, j->U, inner_comb_body, j);
    nd__free(j->parts);
    j->parts = NULL;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Rows path                                                           */
/* ------------------------------------------------------------------ */
/* acc (and idx) = reduction of rows [r0, r1) over w columns at pb. lv:
 * scratch tiles for the pairwise levels; rowbuf: conversion tile. */
static void rows_block(const rk_job *j, const char *pb, int64_t w, const char *cent, int64_t r0, int64_t r1, char *acc,
                       int64_t *idx, char *lv, char *rowbuf)
{
    const rk_ops *ops = j->ops;
    if (ops->pairwise && r1 - r0 > RLEAF) {
        int64_t h = (r1 - r0) / 2;
        char *next = lv + j->tile;
        rows_block(j, pb, w, cent, r0, r0 + h, acc, idx, next, rowbuf);
        rows_block(j, pb, w, cent, r0 + h, r1, lv, NULL, next, rowbuf);
        ops->row_comb(acc, idx, lv, NULL, w);
        return;
    }
    for (int64_t r = r0; r < r1; r++) {
        const char *p = pb + off_of(r, j->g.nr, j->g.rshape, j->g.rstr);
        if (r > r0 && r + 4 <= r1 && ops->row_acc4 && j->rdirect) { /* four rows in one pass */
            const void *q[4] = {p, pb + off_of(r + 1, j->g.nr, j->g.rshape, j->g.rstr),
                                pb + off_of(r + 2, j->g.nr, j->g.rshape, j->g.rstr),
                                pb + off_of(r + 3, j->g.nr, j->g.rshape, j->g.rstr)};
            ops->row_acc4(acc, idx, q, w, r);
            r += 3;
            continue;
        }
        if (!j->rdirect) {
            nd__rk_load(j->acc, rowbuf, p, j->sK, w, j->dt);
            p = rowbuf;
        }
        if (r == r0) ops->row_first(acc, idx, p, w, r, cent);
        else ops->row_acc(acc, idx, p, w, r, cent);
    }
}

/* Item = (line, tile, group of rows): its first output and width. */
static void rows_item(const rk_job *j, int64_t item, char *acc, int64_t *idx, char *lv, char *rowbuf, int64_t *o0,
                      int64_t *w)
{
    int64_t g = item % j->G, lt = item / j->G;
    int64_t t = lt % j->tiles, line = lt / j->tiles;
    int64_t c0 = t * TW;
    *w = min64(TW, j->nK - c0);
    *o0 = line * j->nK + c0;
    const char *pb = j->base + off_of(line, j->g.nk - 1, j->g.kshape, j->g.kstr) + c0 * j->sK;
    const char *cent = j->center ? j->center + (size_t)*o0 * j->asz : NULL;
    int64_t r0 = g * j->rg;
    rows_block(j, pb, *w, cent, r0, min64(r0 + j->rg, j->g.nred), acc, idx, lv, rowbuf);
}

static void rows_body(void *ctx, int64_t b, int64_t e)
{
    rk_job *j = ctx;
    size_t tile = j->tile;
    char *s = nd__malloc(tile * (size_t)(j->levels + 2) + (j->ires ? (size_t)j->tw * sizeof(int64_t) : 0));
    if (!s) {
        atomic_store(&j->fail, 1);
        return;
    }
    char *acc = s, *rowbuf = s + tile, *lv = s + 2 * tile;
    int64_t *idx = j->ires ? (int64_t *)(void *)(s + tile * (size_t)(j->levels + 2)) : NULL;
    for (int64_t it = b; it < e; it++) {
        int64_t o0, w;
        if (j->G > 1) { /* partial tile of one row group */
            rows_item(j, it, j->pacc + (size_t)(it * j->tw) * j->asz, j->pidx ? j->pidx + it * j->tw : NULL, lv, rowbuf,
                      &o0, &w);
            continue;
        }
        rows_item(j, it, acc, idx, lv, rowbuf, &o0, &w);
        if (j->ires) memcpy(j->ires + o0, idx, (size_t)w * sizeof *idx);
        else memcpy(j->res + (size_t)o0 * j->asz, acc, (size_t)w * j->asz);
    }
    nd__free(s);
}

static void rowcomb_tree(const rk_job *j, char *acc, int64_t *idx, int64_t n, int64_t w)
{
    if (n <= 1) return;
    int64_t h = n / 2;
    char *acc2 = acc + (size_t)h * j->tw * j->asz;
    int64_t *idx2 = idx ? idx + h * j->tw : NULL;
    rowcomb_tree(j, acc, idx, h, w);
    rowcomb_tree(j, acc2, idx2, n - h, w);
    j->ops->row_comb(acc, idx, acc2, idx2, w);
}

static void rows_comb_body(void *ctx, int64_t b, int64_t e)
{
    const rk_job *j = ctx;
    for (int64_t lt = b; lt < e; lt++) {
        int64_t t = lt % j->tiles, line = lt / j->tiles;
        int64_t c0 = t * TW, w = min64(TW, j->nK - c0), o0 = line * j->nK + c0;
        char *acc = j->pacc + (size_t)(lt * j->G * j->tw) * j->asz;
        int64_t *idx = j->pidx ? j->pidx + lt * j->G * j->tw : NULL;
        rowcomb_tree(j, acc, idx, j->G, w);
        if (j->ires) memcpy(j->ires + o0, idx, (size_t)w * sizeof *idx);
        else memcpy(j->res + (size_t)o0 * j->asz, acc, (size_t)w * j->asz);
    }
}

static nd_status rows_pass(rk_job *j)
{
    j->nK = j->g.kshape[j->g.nk - 1];
    j->sK = j->g.kstr[j->g.nk - 1];
    j->rdirect = nd__rk_same(j->acc, j->dt) && j->sK == j->isz;
    j->lines = j->g.nout / j->nK;
    j->tiles = (j->nK + TW - 1) / TW;
    j->tw = min64(j->nK, TW);
    j->tile = ((size_t)j->tw * j->asz + 63) & ~(size_t)63; /* scratch tiles stay aligned */
    /* Few tiles: cut the rows into groups (sizes from the shape only). */
    j->rg = j->g.nred;
    if (j->lines * j->tiles < MIN_ITEMS) {
        int64_t rg = RUNIT / j->tw;
        if (rg < RLEAF) rg = RLEAF;
        if (rg < j->rg) j->rg = rg;
    }
    j->G = (j->g.nred + j->rg - 1) / j->rg;
    j->levels = 0;
    for (int64_t r = j->rg; r > RLEAF; r = (r + 1) / 2) j->levels++;
    int64_t items = j->lines * j->tiles * j->G;
    int64_t cost = j->rg * j->tw;
    atomic_init(&j->fail, 0);
    if (j->G > 1) {
        j->pacc = nd__malloc((size_t)(items * j->tw) * j->asz);
        j->pidx = j->ires ? nd__malloc((size_t)(items * j->tw) * sizeof(int64_t)) : NULL;
        if (!j->pacc || (j->ires && !j->pidx)) atomic_store(&j->fail, 1);
    }
    if (!atomic_load(&j->fail)) nd__parallel_for(items, cost, rows_body, j);
    if (j->G > 1 && !atomic_load(&j->fail)) nd__parallel_for(j->lines * j->tiles, j->G * j->tw, rows_comb_body, j);
    nd__free(j->pacc);
    nd__free(j->pidx);
    j->pacc = NULL;
    j->pidx = NULL;
    if (atomic_load(&j->fail)) return nd__err(ND_ERR_NOMEM, "nd_reduce", "out of memory for reduction scratch tiles");
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Driver                                                              */
/* ------------------------------------------------------------------ */

static nd_status run_class(rk_job *j, nd_rcls cls)
{
    j->ops = cls >= ND_RCLS_MAX && cls <= ND_RCLS_ARGMIN ? nd__rk_minmax_ops(nd__cpu_isa(), cls, j->acc)
                                                         : nd__rk_sum_ops(cls, j->acc);
    if (!j->ops) return nd__err(ND_ERR_INTERNAL, "nd_reduce", "no CPU reduction loop for this dtype");
    if (j->g.nred == 0) {
        rk_val v = nd__rk_identity(cls, j->acc);
        for (int64_t o = 0; o < j->g.nout; o++) memcpy(j->res + (size_t)o * j->asz, &v, j->asz);
        return ND_OK;
    }
    bool rows = j->g.nk >= 1 && (j->g.nred == 1 || nd_rgeom_rows_closer(&j->g));
    return rows ? rows_pass(j) : inner_pass(j);
}

nd_status nd__cpu_reduce(nd_reduce_op op, nd_array *out, const nd_array *a, int naxes, double ddof)
{
    rk_job *j = nd__calloc(1, sizeof *j);
    if (!j) return nd__err(ND_ERR_NOMEM, "nd_reduce", "out of host memory");
    const bool is_arg = op == ND_REDUCE_ARGMAX || op == ND_REDUCE_ARGMIN;
    nd_status st = ND_OK;
    char *own = NULL, *means = NULL;

    j->dt = a->dtype;
    j->isz = (int64_t)nd__itemsize(a->dtype);
    if (out->size == 0) goto done;

    /* 1. geometry (shared with the CUDA backend) */
    nd_rgeom_make(&j->g, a->ndim, a->shape, a->strides, j->isz, naxes, is_arg);
    j->base = nd__ptr(a) + j->g.base;

    /* 2. accumulator and result storage */
    j->acc = nd_racc_of(op, j->dt);
    j->asz = nd__rk_size(j->acc);
    const nd_dtype odt = out->dtype;
    if (is_arg) {
        j->ires = (int64_t *)(void *)nd__ptr(out);
    } else if ((j->acc == ND_RACC_F32 && odt == ND_FLOAT32) || (j->acc == ND_RACC_F64 && odt == ND_FLOAT64) ||
               ((j->acc == ND_RACC_I64 || j->acc == ND_RACC_U64) && (odt == ND_INT64 || odt == ND_UINT64))) {
        j->res = nd__ptr(out);
    } else {
        own = nd__malloc((size_t)j->g.nout * j->asz);
        if (!own) {
            st = nd__err(ND_ERR_NOMEM, "nd_reduce", "out of memory for %lld results", (long long)j->g.nout);
            goto done;
        }
        j->res = own;
    }

    /* 3. the passes */
    if (op == ND_REDUCE_VAR || op == ND_REDUCE_STD) {
        means = nd__malloc((size_t)j->g.nout * j->asz);
        if (!means) {
            st = nd__err(ND_ERR_NOMEM, "nd_reduce", "out of memory for %lld means", (long long)j->g.nout);
            goto done;
        }
        char *res = j->res;
        j->res = means;
        st = run_class(j, ND_RCLS_SUM);
        if (st) goto done;
        nd__rk_finish(j->acc, means, j->g.nout, ND_REDUCE_MEAN, (double)j->g.nred, 0.0);
        j->res = res;
        j->center = means;
    }
    st = run_class(j, nd_rcls_of(op));
    if (st) goto done;

    /* 4. finish */
    if (op == ND_REDUCE_MEAN || op == ND_REDUCE_VAR || op == ND_REDUCE_STD) /* the others: unchanged */
        nd__rk_finish(j->acc, j->res, j->g.nout, op, (double)j->g.nred, nd_rop_den((double)j->g.nred, ddof));
    if (own) nd__rk_store(nd__ptr(out), odt, j->acc, own, j->g.nout);

done:
    nd__free(own);
    nd__free(means);
    nd__free(j);
    return st;
}
