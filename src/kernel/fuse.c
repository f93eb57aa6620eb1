/*
 * Fused expression programs on a device that compiles CUDA (contract in
 * src/kernel/fuse.h): the layout class of a call, its unit compiled once
 * per class and device through the rtc slots, one grid-stride launch on
 * the device's current stream.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/backend.h"
#include "core/rtc_slot.h"
#include "kernel/fuse.h"

struct nd_fuse_specs {
    struct nd_fuse_specs *next;
    int dev;
    char key[2 + 1 + ND_EXPR_MAX_ARGS + 1];
    void *kern;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
/* Set once a compile said no compiler exists: later programs evaluate op
 * by op without asking again. */
static atomic_bool g_no_compiler;

bool nd__fuse_rtc_usable(const nd_backend *be)
{
    return be->rtc_compile && be->rtc_kernel && be->rtc_launch && !atomic_load(&g_no_compiler);
}

void nd__fuse_specs_free(nd_fuse_specs *s)
{
    while (s) {
        nd_fuse_specs *n = s->next;
        nd__free(s);
        s = n;
    }
}

/* The operands' iteration with size-1 axes dropped and axes that are
 * contiguous for every operand merged (C order kept); false when more
 * than ND_X_MAX_DIMS axes remain. */
static bool coalesce(nd_x_args *a, int nops, const nd_array *const *ops)
{
    const nd_array *o = ops[0];
    int n = 0;
    for (int d = 0; d < o->ndim; d++) {
        if (o->shape[d] == 1) continue;
        bool merge = n > 0;
        for (int k = 0; k < nops && merge; k++) { /* an overflowing product equals no stride */
            int64_t span;
            merge = !__builtin_mul_overflow(ops[k]->strides[d] * (int64_t)nd_dtype_size(ops[k]->dtype), o->shape[d], &span) &&
                    a->strides[k][n - 1] == span;
        }
        if (!merge && n == ND_X_MAX_DIMS) return false;
        const int at = merge ? n - 1 : n++;
        a->shape[at] = merge ? a->shape[at] * o->shape[d] : o->shape[d];
        for (int k = 0; k < nops; k++) a->strides[k][at] = ops[k]->strides[d] * (int64_t)nd_dtype_size(ops[k]->dtype);
    }
    if (n == 0) {
        a->shape[0] = 1;
        for (int k = 0; k < nops; k++) a->strides[k][0] = 0;
        n = 1;
    }
    a->ndim = n;
    return true;
}

nd_status nd__fuse_rtc_run(const char *func, const nd_backend *be, const nd_expr_prog *p, nd_array *dst,
                           const nd_array *const *ins, nd_fuse_specs **specs)
{
    if (dst->size == 0) return ND_OK;
    const int nops = 1 + p->nargs;
    const nd_array *ops[1 + ND_EXPR_MAX_ARGS];
    ops[0] = dst;
    for (int k = 0; k < p->nargs; k++) ops[k + 1] = ins[k];
    /* on the stack, zeroed (its unused fields travel too): the launch copies it */
    nd_x_args args;
    nd_x_args *const a = &args;
    memset(a, 0, sizeof *a);
    a->n = dst->size;
    if (!coalesce(a, nops, ops)) return ND_ERR_UNSUPPORTED; /* op by op: no message, nothing failed */
    memcpy(a->consts, p->consts, sizeof(unsigned char[16]) * (size_t)p->nconst);
    /* the layout class: which operands are one element, whether all the
     * others are contiguous over a single axis */
    bool scalar[1 + ND_EXPR_MAX_ARGS] = {false}, flat = a->ndim == 1;
    char key[sizeof ((nd_fuse_specs *)0)->key];
    int kl = 0;
    for (int k = 0; k < nops; k++) {
        a->data[k] = nd__ptr(ops[k]);
        bool s0 = k > 0;
        for (int d = 0; d < a->ndim; d++) s0 &= a->strides[k][d] == 0 || a->shape[d] == 1;
        scalar[k] = s0;
        if (!s0) flat &= a->strides[k][0] == (int64_t)nd_dtype_size(ops[k]->dtype) || a->shape[0] == 1;
    }
    key[kl++] = flat ? 'f' : 'g';
    for (int k = 1; k < nops; k++) key[kl++] = scalar[k] ? 's' : 'v';
    key[kl] = '\0';
    const int dev = dst->device.id;
    void *kern = NULL;
    nd_status st = ND_OK;
    pthread_mutex_lock(&g_mu);
    for (nd_fuse_specs *s = *specs; s && !kern; s = s->next)
        if (s->dev == dev && strcmp(s->key, key) == 0) kern = s->kern;
    if (!kern) {
        /* compiled under the lock: one compile per class, and a
         * program's first calls wait for it */
        char *src = nd__kgen_expr(p, scalar, flat);
        nd_fuse_specs *s = nd__calloc(1, sizeof *s);
        if (!src || !s) {
            st = nd__err(ND_ERR_NOMEM, func, "out of memory for the fused unit");
        } else {
            static const char *const opts[] = {"--fmad=false", "-w"};
            const nd_rtc_source rs = {src, "nd_expr.cu", opts, 2};
            nd_rtc_module *mod = NULL;
            int origin = 0;
            st = be->rtc_compile(&mod, dev, &rs, &origin, func);
            if (!st) st = be->rtc_kernel(&kern, mod, "nd_x_kernel", func);
            if (st == ND_ERR_UNSUPPORTED) atomic_store(&g_no_compiler, true);
        }
        if (!st) {
            s->dev = dev;
            memcpy(s->key, key, (size_t)kl + 1);
            s->kern = kern;
            s->next = *specs;
            *specs = s;
            s = NULL;
        }
        nd__free(s);
        nd__free(src);
    }
    pthread_mutex_unlock(&g_mu);
    if (!st) {
        /* 256 threads a block, at most 2^16 blocks (each thread then strides) */
        const int64_t blocks = (a->n + 255) / 256;
        const unsigned grid[3] = {(unsigned)(blocks < 65536 ? blocks : 65536), 1, 1}, block[3] = {256, 1, 1};
        void *args[1] = {a};
        st = be->rtc_launch(kern, dev, grid, block, 0, args, func);
    }
    return st;
}
