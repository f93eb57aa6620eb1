/* bench_mx - the softmax family and cross-entropy on a
 * 4096x4096 float32 array, through the public API, against NumPy's
 * formulas in the same run (bench_worker.py):
 *   softmax over the last axis    e = np.exp(x - x.max(-1, keepdims=True)); e / e.sum(-1, keepdims=True)
 *   softmax over axis 0           the same with axis=0 (layout "axis0")
 *   log_softmax, last axis        x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))
 *   logsumexp, last axis          m + np.log(np.exp(x - m).sum(-1))  (m = the max, keepdims=False)
 *   cross_entropy (mean) of (4096, 1000) logits and int64 labels
 *                                 mean(logsumexp(x, -1) - take_along_axis(x, y[:, None], -1))
 * Each result is checked once against a double-precision evaluation of
 * the same formula; the timed calls write into an existing output. */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K_SOFTMAX, K_SOFTMAX0, K_LOGSOFTMAX, K_LSE, K_CE, NKINDS };
static const char *const kind_op[NKINDS] = {"softmax", "softmax", "log_softmax", "logsumexp", "cross_entropy"};
static const char *const kind_layout[NKINDS] = {"contig", "axis0", "contig", "contig", "contig"};
#define ROWS 4096
#define COLS 4096
#define CE_CLASSES 1000

typedef struct mx_call {
    int kind;
    nd_array *x, *labels, *out;
} mx_call;

static int mx_run(void *p)
{
    mx_call *c = p;
    switch (c->kind) {
    case K_SOFTMAX: return nd_softmax(&c->out, c->x, -1);
    case K_SOFTMAX0: return nd_softmax(&c->out, c->x, 0);
    case K_LOGSOFTMAX: return nd_log_softmax(&c->out, c->x, -1);
    case K_LSE: return nd_logsumexp(&c->out, c->x, 1, (const int[]){-1}, false);
    default: return nd_cross_entropy(&c->out, c->x, c->labels, -1, ND_REDUCTION_MEAN, -100);
    }
}

/* the reference of kind over host (rows, cols), into ref */
static void reference(int kind, const double *x, const int64_t *lab, int64_t rows, int64_t cols, double *ref)
{
    if (kind == K_SOFTMAX0) {
        for (int64_t j = 0; j < cols; j++) {
            double m = -INFINITY, s = 0;
            for (int64_t i = 0; i < rows; i++) m = fmax(m, x[i * cols + j]);
            for (int64_t i = 0; i < rows; i++) s += exp(x[i * cols + j] - m);
            for (int64_t i = 0; i < rows; i++) ref[i * cols + j] = exp(x[i * cols + j] - m) / s;
        }
        return;
    }
    double ce = 0;
    for (int64_t i = 0; i < rows; i++) {
        const double *r = x + i * cols;
        double m = -INFINITY, s = 0;
        for (int64_t j = 0; j < cols; j++) m = fmax(m, r[j]);
        for (int64_t j = 0; j < cols; j++) s += exp(r[j] - m);
        if (kind == K_LSE) ref[i] = m + log(s);
        else if (kind == K_CE) ce += m + log(s) - r[lab[i]];
        else
            for (int64_t j = 0; j < cols; j++) ref[i * cols + j] = kind == K_SOFTMAX ? exp(r[j] - m) / s : r[j] - m - log(s);
    }
    if (kind == K_CE) ref[0] = ce / (double)rows;
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "mx", c);
    const int kind = c->op;
    snprintf(r.op, sizeof r.op, "%s", kind_op[kind]);
    snprintf(r.layout, sizeof r.layout, "%s", kind_layout[kind]);
    const int64_t rows = ROWS, cols = kind == K_CE ? CE_CLASSES : COLS;
    int64_t shape[2] = {rows, cols};
    bench_fmt_shape(r.shape, sizeof r.shape, 2, shape);
    snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\", \"axis\": %d}", kind_op[kind], kind == K_SOFTMAX0 ? 0 : -1);
    r.ninputs = kind == K_CE ? 2 : 1;
    bench_input *in = &r.inputs[0];
    in->dtype = c->dtype, in->ndim = 2, in->shape[0] = rows, in->shape[1] = cols;
    in->seed = 17, in->lo = -8, in->hi = 8;
    mx_call call = {.kind = kind};
    double *host = NULL, *lhost = NULL, *got = NULL, *ref = NULL;
    int64_t *lab = NULL;
    int s = bench_input_make(in, c->dev, &call.x, &host);
    if (s != ND_OK) bench_fail_nd(&r, "creating the input", s);
    if (s == ND_OK && kind == K_CE) {
        bench_input *li = &r.inputs[1];
        li->dtype = ND_INT64, li->ndim = 1, li->shape[0] = rows;
        li->seed = 19, li->lo = 0, li->hi = CE_CLASSES; /* floor(lo + (hi - lo) u): 0 .. 999 */
        s = bench_input_make(li, c->dev, &call.labels, &lhost);
        if (s != ND_OK) bench_fail_nd(&r, "creating the labels", s);
        if (s == ND_OK && (lab = malloc(sizeof(int64_t) * (size_t)rows)))
            for (int64_t i = 0; i < rows; i++) lab[i] = (int64_t)lhost[i];
    }
    if (s == ND_OK) {
        s = mx_run(&call);
        if (s != ND_OK) bench_fail_nd(&r, kind_op[kind], s);
    }
    const int64_t n = kind == K_LSE ? rows : kind == K_CE ? 1 : rows * cols;
    if (s == ND_OK) r.bytes = (double)nd_nbytes(call.x) + (double)nd_nbytes(call.out);
    if (s == ND_OK && !bench_verify()) {
        /* time only: an earlier round verified this case */
    } else if (s == ND_OK && (got = bench_fetch(call.out, &r)) && (ref = malloc(sizeof(double) * (size_t)n)) &&
               (kind != K_CE || lab)) {
        reference(kind, host, lab, rows, cols, ref);
        /* float32 accumulation over up to 4096 terms of inputs in [-8, 8] */
        if (bench_check_close(&r, got, ref, n, 1e-4, kind == K_SOFTMAX || kind == K_SOFTMAX0 ? 1e-7 : 1e-4)) {
            bench_checksum(got, n, r.checksum);
            r.has_checksum = true;
        }
    } else if (s == ND_OK && r.status == BS_OK) {
        r.status = BS_ERROR;
        snprintf(r.message, sizeof r.message, "out of host memory for the reference");
    }
    free(host), free(lhost), free(got), free(ref), free(lab);
    if (r.status == BS_OK) {
        s = bench_measure(mx_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, kind_op[kind], s);
    }
    bench_emit(&r);
    nd_release(call.x);
    nd_release(call.labels);
    nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_mx",
               "softmax (last axis, axis 0), log_softmax, logsumexp of 4096x4096 float32; cross-entropy of "
               "(4096, 1000) logits.");
    for (int d = 0; d < bench_num_devices(); d++)
        for (int kind = 0; kind < NKINDS; kind++) {
            bench_case c = {.op = kind, .dtype = ND_FLOAT32, .layout = 0, .dev = bench_device(d)};
            char sh[64];
            int64_t shape[2] = {ROWS, kind == K_CE ? CE_CLASSES : COLS};
            bench_fmt_shape(sh, sizeof sh, 2, shape);
            snprintf(c.key, sizeof c.key, "%s/float32/%s/%s/%s", kind_op[kind], sh, kind_layout[kind],
                     bench_dev_name(c.dev));
            bench_add_case(&c);
        }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        run_case(c);
    }
    return bench_finish();
}
