/* bench_copy - copies of 4096x4096 float32/float64 arrays through the
 * public API: contiguous copy into an existing array (nd_copy), transpose
 * copy (nd_copy of a transposed view into an existing array, and
 * nd_contiguous of a transposed view, allocating), nd_contiguous of a
 * strided slice a[:, ::2] of a 4096x8192 array; and this machine's memory
 * bandwidth ceiling in the same run: a STREAM-style triad
 * a[i] = b[i] + s * c[i] and copy a[i] = b[i] in plain C with OpenMP
 * (--threads threads) over 1.6e7 doubles. The table shows each copy's
 * bandwidth as a fraction of the triad's. */
#include "bench_common.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

enum { OP_TRIAD, OP_STREAM_COPY, OP_COPY, OP_COPY_T, OP_CONTIG_T, OP_CONTIG_STRIDED, NOPS };
static const char *const op_names[NOPS] = {"triad", "stream_copy", "copy", "copy", "contiguous", "contiguous"};
static const char *const op_layouts[NOPS] = {"raw", "raw", "contig", "transposed", "transposed", "strided"};

#define SIDE 4096

typedef struct cp_call {
    int op;
    nd_array *in, *out;
} cp_call;

static int cp_run(void *p)
{
    cp_call *c = p;
    if (c->op == OP_COPY || c->op == OP_COPY_T) return nd_copy(&c->out, c->in);
    nd_array *t = NULL;
    nd_status s = nd_contiguous(&t, c->in);
    nd_release(t);
    return s;
}

static void run_copy(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "copy", c);
    snprintf(r.op, sizeof r.op, "%s", op_names[c->op]);
    snprintf(r.layout, sizeof r.layout, "%s", op_layouts[c->op]);
    snprintf(r.shape, sizeof r.shape, "%dx%d", SIDE, SIDE);
    bool into_out = c->op == OP_COPY || c->op == OP_COPY_T;
    snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\"}", into_out ? "copyto" : "ascontiguousarray");
    r.ninputs = 1;
    bench_input *in = &r.inputs[0];
    in->dtype = c->dtype, in->ndim = 2, in->shape[0] = SIDE, in->shape[1] = SIDE, in->seed = 61;
    in->lo = 0.5, in->hi = 1.5;
    if (c->op == OP_COPY_T || c->op == OP_CONTIG_T) in->view = BV_T;
    if (c->op == OP_CONTIG_STRIDED) in->shape[1] = 2 * SIDE, in->view = BV_STEP2;
    cp_call call = {.op = c->op};
    double *host = NULL, *got = NULL;
    int s = bench_input_make(in, c->dev, &call.in, bench_verify() ? &host : NULL);
    if (s != ND_OK) bench_fail_nd(&r, "creating the input", s);
    if (s == ND_OK && into_out && (s = nd_empty(&call.out, c->dtype, 2, (int64_t[]){SIDE, SIDE}, c->dev)) != ND_OK)
        bench_fail_nd(&r, "nd_empty", s);
    /* check: the copy (into out, or allocated by nd_contiguous) holds the view's elements in C order */
    if (s == ND_OK) {
        s = into_out ? nd_copy(&call.out, call.in) : nd_contiguous(&call.out, call.in);
        if (s != ND_OK) bench_fail_nd(&r, into_out ? "nd_copy" : "nd_contiguous", s);
    }
    if (s == ND_OK) r.bytes = 2.0 * (double)nd_nbytes(call.out);
    if (s == ND_OK && bench_verify() && (got = bench_fetch(call.out, &r))) {
        int64_t coef[2], total = (int64_t)SIDE * SIDE;
        bench_input_coefs(in, 2, coef);
        if (nd_size(call.out) != total || !nd_is_contiguous(call.out)) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "result is not a contiguous %dx%d array", SIDE, SIDE);
        } else {
            for (int64_t o = 0; o < total; o++) {
                double e = host[coef[0] * (o / SIDE) + coef[1] * (o % SIDE)];
                if (got[o] != e) {
                    r.status = BS_WRONG;
                    snprintf(r.message, sizeof r.message, "element %lld is %.17g, expected %.17g", (long long)o,
                             got[o], e);
                    break;
                }
            }
            if (r.status == BS_OK) {
                bench_checksum(got, total, r.checksum);
                r.has_checksum = true;
            }
        }
    }
    free(host), free(got);
    if (r.status == BS_OK && (s = bench_measure(cp_run, &call, c->dev, &r.st)) != ND_OK)
        bench_fail_nd(&r, op_names[c->op], s);
    bench_note_triad_fraction(&r, c->dev, "copy");
    bench_emit(&r);
    nd_release(call.in), nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_copy",
               "Copies of 4096x4096 float32/float64: nd_copy contiguous and of a transposed view into an\n"
               "existing array, nd_contiguous of a transposed view and of a strided slice a[:, ::2];\n"
               "STREAM-style triad and copy in plain C (OpenMP, --threads) as the bandwidth ceiling.");
    const nd_dtype dtypes[2] = {ND_FLOAT32, ND_FLOAT64};
    for (int d = 0; d < bench_num_devices(); d++) {
        nd_device dev = bench_device(d);
        for (int op = 0; op < NOPS; op++) {
            bool stream = op == OP_TRIAD || op == OP_STREAM_COPY;
            if (stream && dev.type != ND_DEVICE_CPU) continue;
            for (int t = 0; t < (stream ? 1 : 2); t++) {
                bench_case c = {.op = op, .dtype = stream ? ND_FLOAT64 : dtypes[t], .dev = dev};
                if (stream)
                    snprintf(c.key, sizeof c.key, "%s/float64/%d/raw/%s", op_names[op], BENCH_STREAM_N,
                             bench_dev_name(dev));
                else
                    snprintf(c.key, sizeof c.key, "%s/%s/%dx%d/%s/%s", op_names[op], nd_dtype_name(dtypes[t]), SIDE,
                             SIDE, op_layouts[op], bench_dev_name(dev));
                bench_add_case(&c);
            }
        }
    }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        if (c->op == OP_TRIAD || c->op == OP_STREAM_COPY) bench_run_stream_case(c, "copy", c->op == OP_TRIAD);
        else run_copy(c);
    }
    return bench_finish();
}
