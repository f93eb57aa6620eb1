/* bench_reduce - sum, max, argmax, mean and var (ddof 0) over all axes,
 * axis 0 and axis 1 of a 4096x4096 array and over a 1.6e7-element
 * vector, float32/float64, through the public API; on a GPU also sum
 * float32 of a 2.56e8-element vector and over axis 0 / axis 1 of a
 * 16384x16384 array (--quick too), with the raw device-to-device copy
 * (cudaMemcpyAsync of 1.024 GB) measured first as the bandwidth ceiling:
 * those cases report their GB/s (bytes read + written) as a fraction of
 * it. Each case is checked once against a double-precision reference;
 * the timed calls write into an existing output. */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OP_SUM, OP_MAX, OP_ARGMAX, OP_MEAN, OP_VAR, NOPS };
static const char *const op_names[NOPS] = {"sum", "max", "argmax", "mean", "var"};
static const nd_reduce_op nd_ops[NOPS] = {ND_REDUCE_SUM, ND_REDUCE_MAX, ND_REDUCE_ARGMAX, ND_REDUCE_MEAN,
                                          ND_REDUCE_VAR};
/* layout: which axes (-1 = all) and the array: matrix or vector */
/* L_BIG*: GPU only, sum float32: a 2.56e8 vector, 16384x16384 axis 0 / 1 */
enum { L_ALL, L_AXIS0, L_AXIS1, L_VEC, L_BIGVEC, L_BIG0, L_BIG1, NLAYOUTS };
static const char *const layout_names[NLAYOUTS] = {"all", "axis0", "axis1", "all", "all", "axis0", "axis1"};

#define SIDE 4096
#define VEC_N 16000000
#define BIG_SIDE 16384
#define BIG_VEC_N 256000000

static bool is_big(int layout) { return layout >= L_BIGVEC; }

static void case_shape(int layout, int *ndim, int64_t *shape)
{
    if (layout == L_VEC) *ndim = 1, shape[0] = VEC_N;
    else if (layout == L_BIGVEC) *ndim = 1, shape[0] = BIG_VEC_N;
    else if (is_big(layout)) *ndim = 2, shape[0] = BIG_SIDE, shape[1] = BIG_SIDE;
    else *ndim = 2, shape[0] = SIDE, shape[1] = SIDE;
}

static int layout_axis(int layout)
{
    return (layout == L_AXIS0 || layout == L_BIG0) ? 0 : (layout == L_AXIS1 || layout == L_BIG1) ? 1 : -1;
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
 * NumPy gives them; float32 results rounded to float32. Axis 0 walks the
 * rows in order over blocks of columns (no strided access: 16384x16384
 * stays fast). */
static double finish(int op, nd_dtype t, double s, double m, int64_t am, double q, int64_t len)
{
    double r;
    switch (op) {
    case OP_SUM: r = s; break;
    case OP_MAX: r = m; break;
    case OP_ARGMAX: r = (double)am; break;
    case OP_MEAN: r = s / (double)len; break;
    default: r = q / (double)len; break;
    }
    return (op != OP_ARGMAX && t == ND_FLOAT32) ? (double)(float)r : r;
}

static double *reference(int op, nd_dtype t, const double *x, int64_t rows, int64_t cols, int axis, int64_t *nout)
{
    int64_t nres = axis < 0 ? 1 : axis == 0 ? cols : rows;
    int64_t len = axis < 0 ? rows * cols : axis == 0 ? rows : cols;
    double *ref = malloc((size_t)nres * sizeof(double));
    if (!ref) return NULL;
    if (axis == 0) {
        enum { BLK = 256 };
#pragma omp parallel for schedule(static)
        for (int64_t j0 = 0; j0 < cols; j0 += BLK) {
            int64_t nb = cols - j0 < BLK ? cols - j0 : BLK;
            double s[BLK], m[BLK], q[BLK];
            int64_t am[BLK];
            for (int64_t j = 0; j < nb; j++) s[j] = 0, m[j] = x[j0 + j], am[j] = 0, q[j] = 0;
            for (int64_t k = 0; k < rows; k++) {
                const double *p = x + k * cols + j0;
                for (int64_t j = 0; j < nb; j++) {
                    s[j] += p[j];
                    if (p[j] > m[j]) m[j] = p[j], am[j] = k;
                }
            }
            if (op == OP_VAR) {
                for (int64_t k = 0; k < rows; k++) {
                    const double *p = x + k * cols + j0;
                    for (int64_t j = 0; j < nb; j++) {
                        double d = p[j] - s[j] / (double)len;
                        q[j] += d * d;
                    }
                }
            }
            for (int64_t j = 0; j < nb; j++) ref[j0 + j] = finish(op, t, s[j], m[j], am[j], q[j], len);
        }
        *nout = nres;
        return ref;
    }
#pragma omp parallel for schedule(static)
    for (int64_t o = 0; o < nres; o++) {
        const double *p = axis < 0 ? x : x + o * cols;
        double s = 0, m = p[0], q = 0;
        int64_t am = 0;
        for (int64_t k = 0; k < len; k++) {
            double v = p[k];
            s += v;
            if (v > m) m = v, am = k;
        }
        if (op == OP_VAR) {
            double mean = s / (double)len;
            for (int64_t k = 0; k < len; k++) {
                double d = p[k] - mean;
                q += d * d;
            }
        }
        ref[o] = finish(op, t, s, m, am, q, len);
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
    int axis = layout_axis(c->layout);
    if (axis < 0) snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\", \"axis\": null}", op_names[c->op]);
    else snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\", \"axis\": %d}", op_names[c->op], axis);

    r.ninputs = 1;
    bench_input *in = &r.inputs[0];
    in->dtype = c->dtype, in->ndim = ndim, in->shape[0] = shape[0], in->shape[1] = shape[1];
    in->seed = 11, in->lo = 0.5, in->hi = 1.5;
    red_call call = {.op = nd_ops[c->op], .naxes = axis < 0 ? 0 : 1, .axis = axis};
    double *host = NULL, *got = NULL, *ref = NULL;
    int s = bench_input_make(in, c->dev, &call.a, bench_verify() ? &host : NULL);
    if (s != ND_OK) bench_fail_nd(&r, "creating the input", s);
    if (s == ND_OK) {
        s = red_run(&call); /* allocates the output */
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    if (s == ND_OK) {
        int64_t rows = ndim == 2 ? shape[0] : 1, cols = ndim == 2 ? shape[1] : shape[0], nref = 0;
        r.bytes = (double)nd_nbytes(call.a) + (double)nd_nbytes(call.out);
        if (!bench_verify()) {
            /* time only: an earlier round verified this case */
        } else if ((got = bench_fetch(call.out, &r)) && (ref = reference(c->op, c->dtype, host, rows, cols, axis, &nref))) {
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
    bench_note_copy_fraction(&r, c->dev, "reduce");
    bench_emit(&r);
    nd_release(call.a);
    nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_reduce",
               "Reductions (sum, max, argmax, mean, var) over float32/float64: all / axis 0 / axis 1 of a\n"
               "4096x4096 array and all of a 1.6e7-element vector. GPU only (--quick too): sum float32 of a\n"
               "2.56e8 vector and over axis 0 / axis 1 of 16384x16384, against the raw D2D copy (1.024 GB).");
    const nd_dtype dtypes[2] = {ND_FLOAT32, ND_FLOAT64};
    for (int d = 0; d < bench_num_devices(); d++) {
        bench_add_d2d_case(bench_device(d)); /* GPU only: the bandwidth ceiling, first */
        for (int layout = 0; layout < NLAYOUTS; layout++)
            for (int op = 0; op < NOPS; op++)
                for (int t = 0; t < 2; t++) {
                    if (is_big(layout) && (bench_device(d).type != ND_DEVICE_CUDA || op != OP_SUM ||
                                           dtypes[t] != ND_FLOAT32))
                        continue;
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
    }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        if (c->kind == BENCH_KIND_D2D) bench_run_d2d_case(c, "reduce");
        else run_case(c);
    }
    return bench_finish();
}
