/* bench_index - the indexing speed cases through the public API:
 *   take/float32/1000000x16/axis0: nd_take(a, idx, 0) with 1e6 random
 *     int64 indices in [0, 1e6) (NumPy: np.take(a, idx, axis=0, out=out));
 *   mask_select/float32/16000000: nd_mask_select(a, m) with a random ~50%
 *     bool mask (NumPy: a[m]);
 *   flatnonzero/bool/16000000: nd_flatnonzero(m) (NumPy: np.flatnonzero(m)).
 * Inputs are bench_common's (the NumPy worker rebuilds them bit for bit:
 * indices are floor(lo + (hi - lo) u), the mask is u < 0.5); each case is
 * checked once against a plain C reference, then timed with the calls
 * writing into an existing output (the sizes of the mask results are those
 * of the first call). */
#include "bench_common.h"

#include <stdlib.h>
#include <string.h>

enum { K_TAKE, K_MASK, K_NONZERO, NK };
static const char *const names[NK] = {"take", "mask_select", "flatnonzero"};
#define TAKE_ROWS 1000000
#define TAKE_COLS 16
#define MASK_N 16000000

typedef struct index_call {
    int kind;
    nd_array *a, *b, *out;
} index_call;

static int index_run(void *p)
{
    index_call *c = p;
    switch (c->kind) {
    case K_TAKE: return nd_take(&c->out, c->a, c->b, 0, ND_TAKE_RAISE);
    case K_MASK: return nd_mask_select(&c->out, c->a, c->b);
    default: return nd_flatnonzero(&c->out, c->a);
    }
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "index", c);
    snprintf(r.op, sizeof r.op, "%s", names[c->kind]);
    int64_t shape[2] = {c->kind == K_TAKE ? TAKE_ROWS : MASK_N, TAKE_COLS};
    int ndim = c->kind == K_TAKE ? 2 : 1;
    bench_fmt_shape(r.shape, sizeof r.shape, ndim, shape);
    snprintf(r.layout, sizeof r.layout, "%s", c->kind == K_TAKE ? "axis0" : "all");
    snprintf(r.dtype, sizeof r.dtype, "%s", c->kind == K_NONZERO ? "bool" : "float32");
    if (c->kind == K_TAKE) snprintf(r.call, sizeof r.call, "{\"fn\": \"take\", \"axis\": 0}");
    else snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\"}", names[c->kind]);
    /* inputs: K_TAKE (a, idx), K_MASK (a, m), K_NONZERO (m) */
    bench_input *in = r.inputs;
    r.ninputs = c->kind == K_NONZERO ? 1 : 2;
    if (c->kind != K_NONZERO) {
        in[0].dtype = ND_FLOAT32, in[0].ndim = ndim, in[0].shape[0] = shape[0], in[0].shape[1] = shape[1];
        in[0].seed = 31, in[0].lo = -1, in[0].hi = 1;
    }
    bench_input *ib = &in[c->kind == K_NONZERO ? 0 : 1];
    if (c->kind == K_TAKE) {
        ib->dtype = ND_INT64, ib->ndim = 1, ib->shape[0] = TAKE_ROWS, ib->seed = 32, ib->lo = 0, ib->hi = TAKE_ROWS;
    } else {
        ib->dtype = ND_BOOL, ib->ndim = 1, ib->shape[0] = MASK_N, ib->seed = 33, ib->lo = 0, ib->hi = 1;
    }
    index_call call = {.kind = c->kind};
    double *ha = NULL, *hb = NULL, *got = NULL, *ref = NULL;
    int s = ND_OK;
    if (c->kind == K_NONZERO) {
        s = bench_input_make(&in[0], c->dev, &call.a, &hb);
    } else {
        s = bench_input_make(&in[0], c->dev, &call.a, &ha);
        if (s == ND_OK) s = bench_input_make(&in[1], c->dev, &call.b, &hb);
    }
    if (s != ND_OK) bench_fail_nd(&r, "creating the inputs", s);
    if (s == ND_OK && (s = index_run(&call)) != ND_OK) bench_fail_nd(&r, names[c->kind], s);
    int64_t n = 0;
    if (s == ND_OK && (got = bench_fetch(call.out, &r))) {
        n = nd_size(call.out);
        int64_t m = 0;
        if (c->kind == K_TAKE) m = TAKE_ROWS * TAKE_COLS;
        else for (int64_t i = 0; i < MASK_N; i++) m += hb[i] != 0;
        ref = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1));
        if (ref && n == m) {
            int64_t k = 0;
            if (c->kind == K_TAKE)
                for (int64_t i = 0; i < TAKE_ROWS; i++)
                    for (int64_t j = 0; j < TAKE_COLS; j++) ref[k++] = ha[(int64_t)hb[i] * TAKE_COLS + j];
            else
                for (int64_t i = 0; i < MASK_N; i++)
                    if (hb[i] != 0) ref[k++] = c->kind == K_MASK ? ha[i] : (double)i;
            if (bench_check_close(&r, got, ref, n, 0, 0)) {
                bench_checksum(got, n, r.checksum);
                r.has_checksum = true;
            }
        } else if (r.status == BS_OK) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "%lld elements, want %lld", (long long)n, (long long)m);
        }
        r.bytes = (double)nd_nbytes(call.a) + (call.b ? (double)nd_nbytes(call.b) : 0) + (double)nd_nbytes(call.out);
    }
    free(ha), free(hb), free(got), free(ref);
    if (r.status == BS_OK) {
        s = bench_measure(index_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, names[c->kind], s);
    }
    bench_emit(&r);
    nd_release(call.a), nd_release(call.b), nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_index",
               "take along axis 0 of float32 (1e6, 16), boolean mask select and flatnonzero over 1.6e7.");
    for (int d = 0; d < bench_num_devices(); d++)
        for (int k = 0; k < NK; k++) {
            bench_case c = {.op = k, .kind = k, .dtype = k == K_NONZERO ? ND_BOOL : ND_FLOAT32, .dev = bench_device(d)};
            snprintf(c.key, sizeof c.key, "%s/%s/%s/%s/%s", names[k], k == K_NONZERO ? "bool" : "float32",
                     k == K_TAKE ? "1000000x16" : "16000000", k == K_TAKE ? "axis0" : "all", bench_dev_name(c.dev));
            bench_add_case(&c);
        }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        run_case(c);
    }
    return bench_finish();
}
