/* bench_reduce - sum, max, argmax, mean and var (ddof 0) over all axes,
 * axis 0 and axis 1 of a 4096x4096 array and over a 1.6e7-element
 * vector, float32/float64, through the public API. Each case is checked
 * once against a double-precision reference; the timed calls write into
 * an existing output. */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OP_SUM, OP_MAX, OP_ARGMAX, OP_MEAN, OP_VAR, NOPS };
static const char *const op_names[NOPS] = {"sum", "max", "argmax", "mean", "var"};
static const nd_reduce_op nd_ops[NOPS] = {ND_REDUCE_SUM, ND_REDUCE_MAX, ND_REDUCE_ARGMAX, ND_REDUCE_MEAN,
                                          ND_REDUCE_VAR};
/* layout: which axes (-1 = all) and the array: matrix or vector */
enum { L_ALL, L_AXIS0, L_AXIS1, L_VEC, NLAYOUTS };
static const char *const layout_names[NLAYOUTS] = {"all", "axis0", "axis1", "all"};

#define SIDE 4096
#define VEC_N 16000000

static void case_shape(int layout, int *ndim, int64_t *shape)
{
    if (layout == L_VEC) *ndim = 1, shape[0] = VEC_N;
    else *ndim = 2, shape[0] = SIDE, shape[1] = SIDE;
}

typedef struct red_call {
    nd_reduce_op op;
    nd_array *a;
    int naxes, axis;
    nd_array *out;
} red_call;

static int red_run(void *p)
{
    red_call *c = p;
    return nd_reduce(&c->out, c->op, c->a, c->naxes, c->naxes ? &c->axis : NULL, false);
}

/* Reference: reduce the host values (doubles) of a rows x cols matrix
 * (a vector is 1 x n) along `axis` (-1 all, 0 rows, 1 cols). Results as
 * NumPy gives them; float32 results rounded to float32. */
static double *reference(int op, nd_dtype t, const double *x, int64_t rows, int64_t cols, int axis, int64_t *nout)
{
    int64_t nres = axis < 0 ? 1 : axis == 0 ? cols : rows;
    int64_t len = axis < 0 ? rows * cols : axis == 0 ? rows : cols;
    int64_t step = axis == 0 ? cols : 1; /* distance between reduced elements */
    double *ref = malloc((size_t)nres * sizeof(double));
    if (!ref) return NULL;
#pragma omp parallel for schedule(static)
    for (int64_t o = 0; o < nres; o++) {
        const double *p = axis < 0 ? x : axis == 0 ? x + o : x + o * cols;
        double s = 0, m = p[0];
        int64_t am = 0;
        for (int64_t k = 0; k < len; k++) {
            double v = p[k * step];
            s += v;
            if (v > m) m = v, am = k;
        }
        double mean = s / (double)len, r;
        switch (op) {
        case OP_SUM: r = s; break;
        case OP_MAX: r = m; break;
        case OP_ARGMAX: r = (double)am; break;
        case OP_MEAN: r = mean; break;
        default: {
            double q = 0;
            for (int64_t k = 0; k < len; k++) {
                double d = p[k * step] - mean;
                q += d * d;
            }
            r = q / (double)len;
        }
        }
        ref[o] = (op != OP_ARGMAX && t == ND_FLOAT32) ? (double)(float)r : r;
    }
    *nout = nres;
    return ref;
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "reduce", c);
    snprintf(r.op, sizeof r.op, "%s", op_names[c->op]);
    snprintf(r.layout, sizeof r.layout, "%s", layout_names[c->layout]);
    int ndim;
    int64_t shape[2];
    case_shape(c->layout, &ndim, shape);
    bench_fmt_shape(r.shape, sizeof r.shape, ndim, shape);
    int axis = c->layout == L_AXIS0 ? 0 : c->layout == L_AXIS1 ? 1 : -1;
    if (axis < 0) snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\", \"axis\": null}", op_names[c->op]);
    else snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\", \"axis\": %d}", op_names[c->op], axis);

    r.ninputs = 1;
    bench_input *in = &r.inputs[0];
    in->dtype = c->dtype, in->ndim = ndim, in->shape[0] = shape[0], in->shape[1] = shape[1];
    in->seed = 11, in->lo = 0.5, in->hi = 1.5;
    red_call call = {.op = nd_ops[c->op], .naxes = axis < 0 ? 0 : 1, .axis = axis};
    double *host = NULL, *got = NULL, *ref = NULL;
    int s = bench_input_make(in, c->dev, &call.a, &host);
    if (s != ND_OK) bench_fail_nd(&r, "creating the input", s);
    if (s == ND_OK) {
        s = red_run(&call); /* allocates the output */
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    if (s == ND_OK) {
        int64_t rows = ndim == 2 ? shape[0] : 1, cols = ndim == 2 ? shape[1] : shape[0], nref = 0;
        r.bytes = (double)nd_nbytes(call.a) + (double)nd_nbytes(call.out);
        if ((got = bench_fetch(call.out, &r)) && (ref = reference(c->op, c->dtype, host, rows, cols, axis, &nref))) {
            if (nd_size(call.out) != nref) {
                r.status = BS_WRONG;
                snprintf(r.message, sizeof r.message, "result has %lld elements, expected %lld",
                         (long long)nd_size(call.out), (long long)nref);
            } else {
                double rtol;
                switch (c->op) {
                case OP_MAX: case OP_ARGMAX: rtol = 0; break;
                case OP_VAR: rtol = c->dtype == ND_FLOAT32 ? 1e-3 : 1e-9; break;
                default: rtol = c->dtype == ND_FLOAT32 ? 1e-4 : 1e-11; break;
                }
                if (bench_check_close(&r, got, ref, nref, rtol, 0)) {
                    bench_checksum(got, nref, r.checksum);
                    r.has_checksum = true;
                }
            }
        } else if (r.status == BS_OK) {
            r.status = BS_ERROR;
            snprintf(r.message, sizeof r.message, "out of host memory for the reference");
        }
    }
    free(host), free(got), free(ref);
    if (r.status == BS_OK) {
        s = bench_measure(red_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    bench_emit(&r);
    nd_release(call.a);
    nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_reduce",
               "Reductions (sum, max, argmax, mean, var) over float32/float64: all / axis 0 / axis 1 of a\n"
               "4096x4096 array and all of a 1.6e7-element vector.");
    const nd_dtype dtypes[2] = {ND_FLOAT32, ND_FLOAT64};
    for (int d = 0; d < bench_num_devices(); d++)
        for (int layout = 0; layout < NLAYOUTS; layout++)
            for (int op = 0; op < NOPS; op++)
                for (int t = 0; t < 2; t++) {
                    bench_case c = {.op = op, .dtype = dtypes[t], .layout = layout, .dev = bench_device(d)};
                    int ndim;
                    int64_t shape[2];
                    char sh[64];
                    case_shape(layout, &ndim, shape);
                    bench_fmt_shape(sh, sizeof sh, ndim, shape);
                    snprintf(c.key, sizeof c.key, "%s/%s/%s/%s/%s", op_names[op], nd_dtype_name(dtypes[t]), sh,
                             layout_names[layout], bench_dev_name(c.dev));
                    bench_add_case(&c);
                }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_progress(i, bench_get_case(i));
        run_case(bench_get_case(i));
    }
    return bench_finish();
}
