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
} expr_job;

/* An output of at least this many bytes does not stay in the caches: the
 * last instruction writes a slot, which is then streamed out (no read for
 * ownership of the output's lines: a fifth less traffic for a*b+c), as the
 * unfused ops' flat path does. */
#define EXPR_STREAM_BYTES ((int64_t)16 << 20)

#if ND_ISA_X86
/* d[0, n) = s[0, n) with streaming stores: n a multiple of 32, d 32-byte
 * aligned, s 64-byte aligned. */
ND_ISA_TARGET_AVX2 static void expr_stream_row(char *d, const char *s, int64_t n)
{
    for (int64_t k = 0; k < n; k += 32)
        _mm256_stream_ps((float *)(void *)(d + k), _mm256_load_ps((const float *)(const void *)(s + k)));
}
#endif

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

/* Where value r lives for the block: its first element and its step. */
static inline void expr_ref(const expr_job *j, nd_expr_ref r, size_t itemsize, char *const *base, char *scratch,
                            char **ptr, int64_t *step)
{
    const int last = j->ndim - 1;
    switch (r.kind) {
    case ND_EXPR_REF_ARG:
        *ptr = base[1 + r.idx];
        *step = j->strides[1 + r.idx][last];
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
        *step = j->strides[0][last];
        break;
    }
}

static void expr_range(void *pv, int64_t begin, int64_t end)
{
    const expr_job *j = pv;
    const nd_expr_prog *p = j->p;
    _Alignas(64) char scratch[EXPR_SCRATCH + 16 * EXPR_BLK_MIN]; /* the output slot may come on top */
    const int last = j->ndim - 1;
    const int64_t inner = j->shape[last];
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
        for (int i = 0; i < p->ninsn; i++) {
            const nd_expr_insn *in = &p->insn[i];
            char *args[4];
            int64_t steps[4];
            const size_t st = nd__itemsize(in->t);
            expr_ref(j, in->dst, nd__itemsize(in->res), base, scratch, &args[0], &steps[0]);
            for (int s = 0; s < in->nsrc; s++)
                expr_ref(j, in->src[s], in->kind == ND_EXPR_WHERE && s == 0 ? 1 : st, base, scratch, &args[1 + s],
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
                if (((uintptr_t)out & 31) == 0 && nb % 32 == 0) expr_stream_row(out, args[0], nb);
                else memcpy(out, args[0], (size_t)nb);
            }
#endif
        }
    }
#if ND_ISA_X86
    if (j->stream) _mm_sfence(); /* streaming stores are weakly ordered */
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
    nd__parallel_for(units, cost * (inner < blk ? inner : blk), expr_range, &j);
    return ND_OK;
}
