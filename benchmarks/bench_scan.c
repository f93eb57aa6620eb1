/* bench_scan - nd_cumsum float32 over a 1.6e7-element vector (NumPy:
 * np.cumsum(a)) and along axis 0 / axis 1 of a 4096x4096 array
 * (np.cumsum(a, axis=0), np.cumsum(a, axis=1)), through the public API.
 * Each case is checked once against a sequential double-precision running
 * sum (float32 tolerance growing with the scan length: the library sums in
 * blocks); the timed calls write into an existing output. */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { L_VEC, L_AXIS0, L_AXIS1, NLAYOUTS };
static const char *const layout_names[NLAYOUTS] = {"all", "axis0", "axis1"};
#define SIDE 4096
#define VEC_N 16000000

typedef struct scan_call {
    nd_array *a;
    int axis;
    nd_array *out;
} scan_call;

static int scan_run(void *p)
{
    scan_call *c = p;
    return nd_cumsum(&c->out, c->a, c->axis);
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "scan", c);
    snprintf(r.op, sizeof r.op, "cumsum");
    snprintf(r.layout, sizeof r.layout, "%s", layout_names[c->layout]);
    int ndim = c->layout == L_VEC ? 1 : 2;
    int64_t shape[2] = {c->layout == L_VEC ? VEC_N : SIDE, SIDE};
    bench_fmt_shape(r.shape, sizeof r.shape, ndim, shape);
    int axis = c->layout == L_AXIS1 ? 1 : 0;
    if (c->layout == L_VEC) snprintf(r.call, sizeof r.call, "{\"fn\": \"cumsum\", \"axis\": null}");
    else snprintf(r.call, sizeof r.call, "{\"fn\": \"cumsum\", \"axis\": %d}", axis);
    r.ninputs = 1;
    bench_input *in = &r.inputs[0];
    in->dtype = c->dtype, in->ndim = ndim, in->shape[0] = shape[0], in->shape[1] = shape[1];
    in->seed = 13, in->lo = -1, in->hi = 1;
    scan_call call = {.axis = c->layout == L_VEC ? ND_AXIS_NONE : axis};
    double *host = NULL, *got = NULL, *ref = NULL;
    int s = bench_input_make(in, c->dev, &call.a, bench_verify() ? &host : NULL);
    if (s != ND_OK) bench_fail_nd(&r, "creating the input", s);
    if (s == ND_OK) {
        s = scan_run(&call);
        if (s != ND_OK) bench_fail_nd(&r, "cumsum", s);
    }
    int64_t n = ndim == 1 ? shape[0] : shape[0] * shape[1];
    if (s == ND_OK) r.bytes = (double)nd_nbytes(call.a) + (double)nd_nbytes(call.out);
    if (s == ND_OK && !bench_verify()) {
        /* time only: an earlier round verified this case */
    } else if (s == ND_OK && (got = bench_fetch(call.out, &r)) && (ref = malloc(sizeof(double) * (size_t)n))) {
        int64_t rows = ndim == 1 ? 1 : shape[0], cols = ndim == 1 ? shape[0] : shape[1];
        double len = 0;
        if (axis == 0 && ndim == 2) {
            for (int64_t j = 0; j < cols; j++) ref[j] = host[j];
            for (int64_t i = 1; i < rows; i++)
                for (int64_t j = 0; j < cols; j++) ref[i * cols + j] = ref[(i - 1) * cols + j] + host[i * cols + j];
            len = (double)rows;
        } else {
            for (int64_t i = 0; i < rows; i++) {
                double acc = 0;
                for (int64_t j = 0; j < cols; j++) ref[i * cols + j] = acc += host[i * cols + j];
            }
            len = (double)cols;
        }
        /* float32 partial sums of len uniform(-1, 1) terms: errors ~ eps sqrt(len) typically,
         * bounded by eps * len * (sum of |x| ~ len / 2) */
        if (bench_check_close(&r, got, ref, n, 1e-5, 1.2e-7 * len * 4)) {
            bench_checksum(got, n, r.checksum);
            r.has_checksum = true;
        }
    } else if (s == ND_OK && r.status == BS_OK) {
        r.status = BS_ERROR;
        snprintf(r.message, sizeof r.message, "out of host memory for the reference");
    }
    free(host), free(got), free(ref);
    if (r.status == BS_OK) {
        s = bench_measure(scan_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, "cumsum", s);
    }
    bench_emit(&r);
    nd_release(call.a);
    nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_scan",
               "cumsum float32: a 1.6e7-element vector (axis None) and axis 0 / axis 1 of 4096x4096.");
    for (int d = 0; d < bench_num_devices(); d++)
        for (int layout = 0; layout < NLAYOUTS; layout++) {
            bench_case c = {.op = 0, .dtype = ND_FLOAT32, .layout = layout, .dev = bench_device(d)};
            char sh[64];
            int64_t shape[2] = {layout == L_VEC ? VEC_N : SIDE, SIDE};
            bench_fmt_shape(sh, sizeof sh, layout == L_VEC ? 1 : 2, shape);
            snprintf(c.key, sizeof c.key, "cumsum/float32/%s/%s/%s", sh, layout_names[layout], bench_dev_name(c.dev));
            bench_add_case(&c);
        }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        run_case(c);
    }
    return bench_finish();
}
