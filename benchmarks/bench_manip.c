/* bench_manip - manipulation: nd_einsum 'bij,bjk->bik' (256 x 64x64 @
 * 64x64, float32/float64) and 'ij,jk->ik' (1024x1024 float32/float64),
 * nd_pad of a 2048x2048 float32 array by 16 on every side (constant and
 * reflect), nd_roll of a 4096x4096 float32 array by 100 along axis 1 and
 * nd_flip of it along axis 1 copied into an existing array. Each case is
 * checked once against a plain C reference (einsum: 64 sampled entries in
 * double; copies: every element), then timed. The NumPy expressions are
 * in each record's "call". */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OP_EINSUM_B, OP_EINSUM_MM, OP_PAD_CONST, OP_PAD_REFLECT, OP_ROLL, OP_FLIP, NOPS };
static const char *const op_names[NOPS] = {"einsum_bij_bjk", "einsum_ij_jk", "pad_constant", "pad_reflect", "roll", "flip"};
#define BATCH 256
#define BS 64
#define MM 1024
#define PADN 2048
#define PADW 16
#define SIDE 4096
#define SHIFT 100

typedef struct mcall {
    int op;
    nd_array *a, *b, *out;
} mcall;

static int m_run(void *p)
{
    mcall *c = p;
    const nd_array *ops[2] = {c->a, c->b};
    switch (c->op) {
    case OP_EINSUM_B: return nd_einsum(&c->out, "bij,bjk->bik", 2, ops);
    case OP_EINSUM_MM: return nd_einsum(&c->out, "ij,jk->ik", 2, ops);
    case OP_PAD_CONST:
        return nd_pad(&c->out, c->a, 1, (const int64_t[]){PADW, PADW}, ND_PAD_CONSTANT, nd_scalar_float(0));
    case OP_PAD_REFLECT:
        return nd_pad(&c->out, c->a, 1, (const int64_t[]){PADW, PADW}, ND_PAD_REFLECT, nd_scalar_none());
    case OP_ROLL: return nd_roll(&c->out, c->a, 1, (const int64_t[]){SHIFT}, 1, (const int[]){1});
    default: {
        nd_array *v = NULL;
        int s = nd_flip(&v, c->a, 1, (const int[]){1});
        if (s == ND_OK) s = nd_copy(&c->out, v);
        nd_release(v);
        return s;
    }
    }
}

static int64_t reflect(int64_t j, int64_t n)
{
    int64_t p = 2 * (n - 1), q = ((j % p) + p) % p;
    return q < n ? q : p - q;
}

static void run(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "manip", c);
    int op = c->op;
    snprintf(r.op, sizeof r.op, "%s", op_names[op]);
    snprintf(r.layout, sizeof r.layout, "contiguous");
    mcall call = {.op = op};
    bench_input *in = r.inputs;
    int64_t oshape[3];
    int ond = 2;
    in[0].dtype = in[1].dtype = c->dtype, in[0].seed = 71, in[1].seed = 72;
    in[0].lo = in[1].lo = -1, in[0].hi = in[1].hi = 1;
    if (op == OP_EINSUM_B) {
        r.ninputs = 2;
        for (int k = 0; k < 2; k++) in[k].ndim = 3, in[k].shape[0] = BATCH, in[k].shape[1] = in[k].shape[2] = BS;
        ond = 3, oshape[0] = BATCH, oshape[1] = oshape[2] = BS;
        snprintf(r.shape, sizeof r.shape, "%dx%dx%d", BATCH, BS, BS);
        snprintf(r.call, sizeof r.call, "{\"fn\": \"einsum\", \"subscripts\": \"bij,bjk->bik\", \"optimize\": true}");
        r.flops = 2.0 * BATCH * BS * BS * BS;
    } else if (op == OP_EINSUM_MM) {
        r.ninputs = 2;
        for (int k = 0; k < 2; k++) in[k].ndim = 2, in[k].shape[0] = in[k].shape[1] = MM;
        oshape[0] = oshape[1] = MM;
        snprintf(r.shape, sizeof r.shape, "%dx%d", MM, MM);
        snprintf(r.call, sizeof r.call, "{\"fn\": \"einsum\", \"subscripts\": \"ij,jk->ik\", \"optimize\": true}");
        r.flops = 2.0 * MM * MM * MM;
    } else if (op == OP_PAD_CONST || op == OP_PAD_REFLECT) {
        r.ninputs = 1;
        in[0].ndim = 2, in[0].shape[0] = in[0].shape[1] = PADN;
        oshape[0] = oshape[1] = PADN + 2 * PADW;
        snprintf(r.shape, sizeof r.shape, "%dx%d", PADN, PADN);
        snprintf(r.call, sizeof r.call, "{\"fn\": \"pad\", \"pad_width\": %d, \"mode\": \"%s\"}", PADW,
                 op == OP_PAD_CONST ? "constant" : "reflect");
    } else {
        r.ninputs = 1;
        in[0].ndim = 2, in[0].shape[0] = in[0].shape[1] = SIDE;
        oshape[0] = oshape[1] = SIDE;
        snprintf(r.shape, sizeof r.shape, "%dx%d", SIDE, SIDE);
        if (op == OP_ROLL) snprintf(r.call, sizeof r.call, "{\"fn\": \"roll\", \"shift\": %d, \"axis\": 1}", SHIFT);
        else snprintf(r.call, sizeof r.call, "{\"fn\": \"copyto_flip\", \"axis\": 1}");
    }
    double *h[2] = {NULL, NULL}, *got = NULL;
    int s = ND_OK;
    for (int k = 0; k < r.ninputs && s == ND_OK; k++) {
        s = bench_input_make(&in[k], c->dev, k ? &call.b : &call.a, &h[k]);
        if (s != ND_OK) bench_fail_nd(&r, "creating the input", s);
    }
    if (s == ND_OK && (s = nd_empty(&call.out, c->dtype, ond, oshape, c->dev)) != ND_OK) bench_fail_nd(&r, "nd_empty", s);
    if (s == ND_OK && (s = m_run(&call)) != ND_OK) bench_fail_nd(&r, op_names[op], s);
    if (s == ND_OK && (got = bench_fetch(call.out, &r))) {
        int64_t total = nd_size(call.out);
        if (op == OP_EINSUM_B || op == OP_EINSUM_MM) {
            int64_t M = op == OP_EINSUM_B ? BS : MM;
            double ref[64], gv[64];
            for (int q = 0; q < 64; q++) {
                int64_t o = (int64_t)(bench_u01(99, (uint64_t)q) * (double)total);
                int64_t bb = o / (M * M), i = o / M % M, k = o % M;
                double acc = 0;
                for (int64_t j = 0; j < M; j++) acc += h[0][bb * M * M + i * M + j] * h[1][bb * M * M + j * M + k];
                ref[q] = acc, gv[q] = got[o];
            }
            bench_check_close(&r, gv, ref, 64, c->dtype == ND_FLOAT32 ? 1e-4 : 1e-10, 1e-5);
        } else {
            int64_t n = oshape[1];
            for (int64_t o = 0; o < total && r.status == BS_OK; o++) {
                int64_t i = o / n, j = o % n;
                double e;
                if (op == OP_PAD_CONST)
                    e = (i < PADW || j < PADW || i >= PADN + PADW || j >= PADN + PADW) ? 0 : h[0][(i - PADW) * PADN + j - PADW];
                else if (op == OP_PAD_REFLECT) e = h[0][reflect(i - PADW, PADN) * PADN + reflect(j - PADW, PADN)];
                else if (op == OP_ROLL) e = h[0][i * SIDE + ((j - SHIFT) % SIDE + SIDE) % SIDE];
                else e = h[0][i * SIDE + SIDE - 1 - j];
                if (got[o] != e) {
                    r.status = BS_WRONG;
                    snprintf(r.message, sizeof r.message, "element %lld is %.17g, expected %.17g", (long long)o, got[o], e);
                }
            }
            r.bytes = (double)nd_nbytes(call.out) + (double)nd_nbytes(call.a);
        }
        if (r.status == BS_OK) {
            bench_checksum(got, total, r.checksum);
            r.has_checksum = true;
        }
    }
    free(h[0]), free(h[1]), free(got);
    if (r.status == BS_OK && (s = bench_measure(m_run, &call, c->dev, &r.st)) != ND_OK) bench_fail_nd(&r, op_names[op], s);
    bench_emit(&r);
    nd_release(call.a), nd_release(call.b), nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_manip",
               "Manipulation: nd_einsum 'bij,bjk->bik' (256 x 64x64) and 'ij,jk->ik' (1024x1024), float32/float64;\n"
               "nd_pad 2048x2048 float32 by 16 (constant, reflect); nd_roll 4096x4096 float32 by 100 along axis 1;\n"
               "nd_flip along axis 1 copied into an existing 4096x4096 float32 array.");
    for (int d = 0; d < bench_num_devices(); d++) {
        nd_device dev = bench_device(d);
        for (int op = 0; op < NOPS; op++) {
            int nt = op <= OP_EINSUM_MM ? 2 : 1;
            for (int t = 0; t < nt; t++) {
                nd_dtype dt = t ? ND_FLOAT64 : ND_FLOAT32;
                bench_case c = {.op = op, .dtype = dt, .dev = dev};
                const char *shape = op == OP_EINSUM_B ? "256x64x64" : op == OP_EINSUM_MM ? "1024x1024"
                                    : (op == OP_PAD_CONST || op == OP_PAD_REFLECT) ? "2048x2048" : "4096x4096";
                snprintf(c.key, sizeof c.key, "%s/%s/%s/contiguous/%s", op_names[op], nd_dtype_name(dt), shape,
                         bench_dev_name(dev));
                bench_add_case(&c);
            }
        }
    }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        run(c);
    }
    return bench_finish();
}
