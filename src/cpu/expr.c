/*
 * The CPU's expr slot: a fused elementwise program (src/shared/expr_prog.h)
 * run in one pass over memory.
 *
 * The output and the array operands are coalesced into rows (the axes
 * merged as nd__iter_init merges them, for up to 1 + ND_EXPR_MAX_ARGS
 * operands); each row is cut into blocks of a few hundred elements, and
 * for each block every instruction calls the loop the unfused op would
 * call (nd__cpu_ew_loop, nd__cpu_cast_loop, nd__cpu_where_loop): operands
 * are read in place with their own strides, constants with step 0,
 * intermediates live in per-thread slots of one block each (L1/L2
 * resident), and the last instruction writes straight into the output.
 * Each element thus goes through the same loop bodies as in the unfused
 * chain, so the result has the same bits, with no temporary the size of
 * the arrays. Blocks are spread over the thread pool.
 */
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/isa.h"
#if ND_ISA_X86
#include <immintrin.h>
#endif
#include "shared/expr_prog.h"

#define EXPR_MAX_OPS (1 + ND_EXPR_MAX_ARGS)
/* per-thread room for the temporary slots (on the worker's stack) */
#define EXPR_SCRATCH (64 * 1024)
/* the longest block: its intermediates stay in L1/L2 */
#define EXPR_BLK_MAX 1024
#define EXPR_BLK_MIN 64
/* tiles of transposed operands (expr_tiled_range): at most EXPR_TILE_OPS
 * operands of at most 8 bytes are copied per tile */
#define EXPR_TILE_I 16
#define EXPR_TILE_J 256
#define EXPR_TILE_OPS 3

typedef struct {
    const nd_expr_prog *p;
    nd_loop_fn fn[ND_EXPR_MAX_INSNS];
    const void *ctx[ND_EXPR_MAX_INSNS];
    int nops;
    int ndim;
    int64_t shape[ND_MAX_DIMS];
    int64_t strides[EXPR_MAX_OPS][ND_MAX_DIMS]; /* bytes */
    char *data[EXPR_MAX_OPS];
    int64_t blk;        /* block length */
    int64_t nb;         /* blocks per row */
    int64_t slot_bytes; /* bytes per temporary slot */
    bool stream;        /* the output leaves through a slot with streaming stores (expr_stream) */
    size_t itemsize[EXPR_MAX_OPS];
    int ngather;        /* tiled runs: the operands copied per tile */
    int gather[EXPR_TILE_OPS];
} expr_job;

/* An output of at least this many bytes does not stay in the caches: the
 * last instruction writes a slot, which is then streamed out (no read for
 * ownership of the output's lines: a fifth less traffic for a*b+c), as the
 * unfused ops' flat path does. */
#define EXPR_STREAM_BYTES ((int64_t)16 << 20)

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

/* The iteration of nd__iter_init (src/core/iter.c) over nops operands of
 * out's shape: size-1 axes dropped, axes ordered by the output's strides,
 * axes contiguous for every operand merged. */
static void expr_coalesce(expr_job *j, int nops, const nd_array *const *ops)
{
    const nd_array *o = ops[0];
    int perm[ND_MAX_DIMS], n = 0;
    j->nops = nops;
    for (int k = 0; k < nops; k++) j->data[k] = nd__ptr(ops[k]);
    for (int i = 0; i < o->ndim; i++)
        if (o->shape[i] != 1) perm[n++] = i;
    for (int i = 1; i < n; i++) {
        int p = perm[i], q, jj = i - 1;
        while (jj >= 0) {
            q = perm[jj];
            int64_t sq = abs64(o->strides[q]), sp = abs64(o->strides[p]);
            bool swap = sq < sp;
            if (sq == sp)
                for (int k = 1; k < nops; k++) {
                    int64_t a = abs64(ops[k]->strides[q]), b = abs64(ops[k]->strides[p]);
                    if (a != b) {
                        swap = a < b;
                        break;
                    }
                }
            if (!swap) break;
            perm[jj + 1] = q;
            jj--;
        }
        perm[jj + 1] = p;
    }
    int nd = 0;
    for (int i = 0; i < n; i++) {
        int ax = perm[i];
        int64_t ext = o->shape[ax];
        if (nd > 0) {
            bool merge = true;
            for (int k = 0; k < nops && merge; k++)
                merge = j->strides[k][nd - 1] == ops[k]->strides[ax] * (int64_t)nd__itemsize(ops[k]->dtype) * ext;
            if (merge) {
                j->shape[nd - 1] *= ext;
                for (int k = 0; k < nops; k++)
                    j->strides[k][nd - 1] = ops[k]->strides[ax] * (int64_t)nd__itemsize(ops[k]->dtype);
                continue;
            }
        }
        j->shape[nd] = ext;
        for (int k = 0; k < nops; k++) j->strides[k][nd] = ops[k]->strides[ax] * (int64_t)nd__itemsize(ops[k]->dtype);
        nd++;
    }
    if (nd == 0) { /* 0-d or all extents 1: one element */
        nd = 1;
        j->shape[0] = 1;
        for (int k = 0; k < nops; k++) j->strides[k][0] = (int64_t)nd__itemsize(ops[k]->dtype);
    }
    j->ndim = nd;
}

/* Where value r lives for the block: its first element and its step
 * (istep: each operand's step along the block, out first). */
static inline void expr_ref(const expr_job *j, nd_expr_ref r, size_t itemsize, char *const *base,
                            const int64_t *istep, char *scratch, char **ptr, int64_t *step)
{
    switch (r.kind) {
    case ND_EXPR_REF_ARG:
        *ptr = base[1 + r.idx];
        *step = istep[1 + r.idx];
        break;
    case ND_EXPR_REF_CONST:
        *ptr = (char *)(uintptr_t)j->p->consts[r.idx];
        *step = 0;
        break;
    case ND_EXPR_REF_TMP:
        *ptr = scratch + (int64_t)r.idx * j->slot_bytes;
        *step = (int64_t)itemsize;
        break;
    default: /* ND_EXPR_REF_OUT */
        *ptr = base[0];
        *step = istep[0];
        break;
    }
}

/* The program over one block of n elements: operand k's first element at
 * base[k], its step istep[k]. */
static void expr_block(const expr_job *j, char *const *base, const int64_t *istep, int64_t n, char *scratch)
{
    const nd_expr_prog *p = j->p;
    for (int i = 0; i < p->ninsn; i++) {
        const nd_expr_insn *in = &p->insn[i];
        char *args[4];
        int64_t steps[4];
        const size_t st = nd__itemsize(in->t);
        expr_ref(j, in->dst, nd__itemsize(in->res), base, istep, scratch, &args[0], &steps[0]);
        for (int s = 0; s < in->nsrc; s++)
            expr_ref(j, in->src[s], in->kind == ND_EXPR_WHERE && s == 0 ? 1 : st, base, istep, scratch, &args[1 + s],
                     &steps[1 + s]);
        char *out = args[0];
        const bool last_stream = j->stream && i == p->ninsn - 1;
        if (last_stream) { /* into the spare slot, then out with streaming stores */
            args[0] = scratch + (int64_t)p->ntmp * j->slot_bytes;
            steps[0] = (int64_t)nd__itemsize(in->res);
        }
        j->fn[i](args, steps, n, j->ctx[i]);
#if ND_ISA_X86
        if (last_stream) {
            const int64_t nb = n * steps[0];
            if (((uintptr_t)out & 31) == 0 && nb % 32 == 0) nd_cpu_stream_row(out, args[0], nb);
            else memcpy(out, args[0], (size_t)nb);
        }
#else
        (void)out;
#endif
    }
}

static void expr_range(void *pv, int64_t begin, int64_t end)
{
    const expr_job *j = pv;
    _Alignas(64) char scratch[EXPR_SCRATCH + 16 * EXPR_BLK_MIN]; /* the output slot may come on top */
    const int last = j->ndim - 1;
    const int64_t inner = j->shape[last];
    int64_t istep[EXPR_MAX_OPS];
    for (int k = 0; k < j->nops; k++) istep[k] = j->strides[k][last];
    for (int64_t u = begin; u < end; u++) {
        int64_t row = u / j->nb, b0 = (u % j->nb) * j->blk;
        int64_t n = inner - b0 < j->blk ? inner - b0 : j->blk;
        char *base[EXPR_MAX_OPS];
        for (int k = 0; k < j->nops; k++) base[k] = j->data[k] + b0 * j->strides[k][last];
        for (int d = last - 1; d >= 0 && row > 0; d--) {
            int64_t c = row % j->shape[d];
            row /= j->shape[d];
            for (int k = 0; k < j->nops; k++) base[k] += c * j->strides[k][d];
        }
        expr_block(j, base, istep, n, scratch);
    }
#if ND_ISA_X86
    if (j->stream) _mm_sfence(); /* streaming stores are weakly ordered */
#endif
}

/* dst[ii * EXPR_TILE_J + jj] = src[ii * so + jj * si] for a ci x cj tile. */
static void expr_tile_copy(char *dst, const char *src, int64_t so, int64_t si, int64_t ci, int64_t cj, size_t isz)
{
#define EXPR_TCOPY(T)                                                                          \
    for (int64_t jj = 0; jj < cj; jj++) {                                                      \
        const char *p = src + jj * si;                                                         \
        for (int64_t ii = 0; ii < ci; ii++) {                                                  \
            T v;                                                                               \
            memcpy(&v, p + ii * so, sizeof v);                                                 \
            memcpy(dst + (ii * EXPR_TILE_J + jj) * (int64_t)sizeof v, &v, sizeof v);             \
        }                                                                                      \
    }
    switch (isz) {
    case 1: EXPR_TCOPY(uint8_t) break;
    case 2: EXPR_TCOPY(uint16_t) break;
    case 4: EXPR_TCOPY(uint32_t) break;
    default: EXPR_TCOPY(uint64_t) break;
    }
#undef EXPR_TCOPY
}

/* 2-D iterations with transposed operands (a large step along the rows,
 * a small one across them): tiles of EXPR_TILE_I x EXPR_TILE_J; each such
 * operand's tile is first copied, along its own short stride, into a
 * buffer in the iteration's order, and the program then runs on the
 * tile's rows with those operands contiguous (the unfused ops' tiled
 * runner does the same: one cache line per element otherwise). */
static void expr_tiled_range(void *pv, int64_t begin, int64_t end)
{
    const expr_job *j = pv;
    _Alignas(64) char scratch[EXPR_SCRATCH + 16 * EXPR_BLK_MIN];
    _Alignas(64) char tiles[EXPR_TILE_OPS][EXPR_TILE_I * EXPR_TILE_J * 8];
    const int64_t ni = j->shape[0], nj = j->shape[1], ntj = (nj + EXPR_TILE_J - 1) / EXPR_TILE_J;
    for (int64_t u = begin; u < end; u++) {
        const int64_t i0 = u / ntj * EXPR_TILE_I, j0 = u % ntj * EXPR_TILE_J;
        const int64_t ci = ni - i0 < EXPR_TILE_I ? ni - i0 : EXPR_TILE_I;
        const int64_t cj = nj - j0 < EXPR_TILE_J ? nj - j0 : EXPR_TILE_J;
        for (int g = 0; g < j->ngather; g++) {
            const int k = j->gather[g];
            expr_tile_copy(tiles[g], j->data[k] + i0 * j->strides[k][0] + j0 * j->strides[k][1], j->strides[k][0],
                           j->strides[k][1], ci, cj, j->itemsize[k]);
        }
        for (int64_t ii = 0; ii < ci; ii++) {
            char *base[EXPR_MAX_OPS];
            int64_t istep[EXPR_MAX_OPS];
            for (int k = 0; k < j->nops; k++) {
                base[k] = j->data[k] + (i0 + ii) * j->strides[k][0] + j0 * j->strides[k][1];
                istep[k] = j->strides[k][1];
            }
            for (int g = 0; g < j->ngather; g++) {
                const int k = j->gather[g];
                base[k] = tiles[g] + ii * EXPR_TILE_J * (int64_t)j->itemsize[k];
                istep[k] = (int64_t)j->itemsize[k];
            }
            for (int64_t jb = 0; jb < cj; jb += j->blk) { /* the slots hold blk elements */
                char *b2[EXPR_MAX_OPS];
                for (int k = 0; k < j->nops; k++) b2[k] = base[k] + jb * istep[k];
                expr_block(j, b2, istep, cj - jb < j->blk ? cj - jb : j->blk, scratch);
            }
        }
    }
#if ND_ISA_X86
    if (j->stream) _mm_sfence();
#endif
}

nd_status nd__cpu_expr(const nd_expr_prog *p, nd_array *out, const nd_array *const *ins)
{
    if (p->ninsn < 1 || p->ninsn > ND_EXPR_MAX_INSNS || p->nargs < 0 || p->nargs > ND_EXPR_MAX_ARGS ||
        out->dtype != p->res)
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_expr", "bad program (%d instructions, %d operands)", p->ninsn,
                       p->nargs);
    expr_job j;
    j.p = p;
    int64_t cost = 0;
    for (int i = 0; i < p->ninsn; i++) {
        const nd_expr_insn *in = &p->insn[i];
        int64_t c = 1;
        j.ctx[i] = NULL;
        switch (in->kind) {
        case ND_EXPR_UNARY: j.fn[i] = nd__cpu_ew_loop(false, in->op, in->t, &j.ctx[i], &c); break;
        case ND_EXPR_BINARY: j.fn[i] = nd__cpu_ew_loop(true, in->op, in->t, &j.ctx[i], &c); break;
        case ND_EXPR_CAST: j.fn[i] = nd__cpu_cast_loop(in->t, in->res), c = 2; break;
        default: j.fn[i] = nd__cpu_where_loop(nd__itemsize(in->t)); break;
        }
        if (j.fn[i] == NULL)
            return nd__err(ND_ERR_INTERNAL, "nd__cpu_expr", "no loop for instruction %d (kind %d, op %d, dtype %s)", i,
                           in->kind, in->op, nd_dtype_name(in->t));
        cost += c;
    }
    if (out->size == 0) return ND_OK;
    const nd_array *ops[EXPR_MAX_OPS];
    ops[0] = out;
    for (int k = 0; k < p->nargs; k++) ops[1 + k] = ins[k];
    expr_coalesce(&j, 1 + p->nargs, ops);
    const int last = j.ndim - 1;
    const int64_t osz = (int64_t)nd__itemsize(p->res);
    j.stream = ND_ISA_X86 && nd__cpu_isa() >= ND_ISA_AVX2 && p->insn[p->ninsn - 1].dst.kind == ND_EXPR_REF_OUT &&
               j.strides[0][last] == osz && out->size * osz >= EXPR_STREAM_BYTES;
    int64_t isz = p->tmp_itemsize > osz ? p->tmp_itemsize : osz;
    const int64_t nslots = p->ntmp + (j.stream ? 1 : 0) > 0 ? p->ntmp + (j.stream ? 1 : 0) : 1;
    int64_t blk = EXPR_SCRATCH / (nslots * isz);
    blk = blk > EXPR_BLK_MAX ? EXPR_BLK_MAX : blk < EXPR_BLK_MIN ? EXPR_BLK_MIN : blk & ~(int64_t)63;
    j.blk = blk;
    j.slot_bytes = blk * isz;
    const int64_t inner = j.shape[j.ndim - 1];
    j.nb = (inner + blk - 1) / blk;
    const int64_t units = out->size / inner * j.nb;
    for (int k = 0; k < j.nops; k++) j.itemsize[k] = nd__itemsize(ops[k]->dtype);
    j.ngather = 0;
    if (j.ndim == 2 && j.shape[0] >= 8 * EXPR_TILE_I && j.shape[1] >= 2 * EXPR_TILE_J / 4)
        for (int k = 1; k < j.nops && j.ngather < EXPR_TILE_OPS; k++) {
            int64_t si = abs64(j.strides[k][1]), so = abs64(j.strides[k][0]);
            if (si >= 256 && so < si && j.itemsize[k] <= 8) j.gather[j.ngather++] = k;
        }
    if (j.ngather > 0) {
        j.stream = false; /* rows of a tile are short and far apart: plain stores */
        const int64_t tiles =
            (j.shape[0] + EXPR_TILE_I - 1) / EXPR_TILE_I * ((j.shape[1] + EXPR_TILE_J - 1) / EXPR_TILE_J);
        nd__parallel_for(tiles, cost * EXPR_TILE_I * EXPR_TILE_J, expr_tiled_range, &j);
        return ND_OK;
    }
    nd__parallel_for(units, cost * (inner < blk ? inner : blk), expr_range, &j);
    return ND_OK;
}
