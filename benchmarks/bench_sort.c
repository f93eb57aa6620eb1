/* bench_sort - the sorting speed cases through the public API:
 *   sort    float32 1e7          (NumPy: np.sort(a))
 *   argsort float32 1e7          (NumPy: np.argsort(a))
 *   topk    float32 (4096, 4096), k = 10, last axis, largest
 *                                (NumPy: np.argpartition(a, -10, axis=-1))
 * Inputs are bench_common's uniform [0, 1) arrays (the NumPy worker
 * rebuilds them bit for bit). Each case is checked once on the host
 * (sortedness; the gathered values of argsort; topk against a per-row
 * count of larger elements), then timed with the calls writing into an
 * existing output. Checksums are of values, so that they compare with
 * NumPy's whatever order equal keys take: the sorted values (sort,
 * argsort: a[idx]) and the top-k values in descending order per row. */
#include "bench_common.h"

#include <stdlib.h>
#include <string.h>

enum { C_SORT, C_ARGSORT, C_TOPK, NCASES };
static const char *const names[NCASES] = {"sort", "argsort", "topk"};
#define SORT_N 10000000
#define TOPK_SIDE 4096
#define TOPK_K 10

typedef struct sort_call {
    int kind;
    nd_array *a, *o1, *o2;
} sort_call;

static int sort_run(void *p)
{
    sort_call *c = p;
    switch (c->kind) {
    case C_SORT: return nd_sort(&c->o1, c->a, -1, ND_SORT_DEFAULT);
    case C_ARGSORT: return nd_argsort(&c->o1, c->a, -1, ND_SORT_DEFAULT);
    default: return nd_topk(&c->o1, &c->o2, c->a, TOPK_K, -1, true, true);
    }
}

/* The checked values (sorted values / top-k values) as doubles, or NULL
 * with r marked wrong. */
static double *check(const sort_call *c, const double *x, const int64_t *shape, bench_record *r)
{
    double *v = bench_fetch(c->o1, r);
    if (!v) return NULL;
    if (c->kind == C_SORT) {
        for (int64_t i = 1; i < shape[0]; i++)
            if (v[i - 1] > v[i]) goto wrong;
        return v;
    }
    if (c->kind == C_ARGSORT) {
        for (int64_t i = 0; i < shape[0]; i++) {
            double ix = v[i];
            if (ix < 0 || ix >= (double)shape[0]) goto wrong;
            v[i] = x[(int64_t)ix];
            if (i && v[i - 1] > v[i]) goto wrong;
        }
        return v;
    }
    double *ix = bench_fetch(c->o2, r);
    if (!ix) goto wrong;
    for (int64_t row = 0; row < shape[0]; row++) {
        const double *xr = x + row * shape[1];
        double last = v[row * TOPK_K + TOPK_K - 1];
        int64_t greater = 0;
        for (int64_t j = 0; j < shape[1]; j++) greater += xr[j] > last;
        if (greater > TOPK_K - 1) goto wrong2;
        for (int k = 0; k < TOPK_K; k++) {
            if (xr[(int64_t)ix[row * TOPK_K + k]] != v[row * TOPK_K + k]) goto wrong2;
            if (k && v[row * TOPK_K + k - 1] < v[row * TOPK_K + k]) goto wrong2;
        }
    }
    free(ix);
    return v;
wrong2:
    free(ix);
wrong:
    free(v);
    r->status = BS_WRONG;
    snprintf(r->message, sizeof r->message, "%s result is wrong", names[c->kind]);
    return NULL;
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "sort", c);
    snprintf(r.op, sizeof r.op, "%s", names[c->kind]);
    int ndim = c->kind == C_TOPK ? 2 : 1;
    int64_t shape[2] = {c->kind == C_TOPK ? TOPK_SIDE : SORT_N, TOPK_SIDE};
    bench_fmt_shape(r.shape, sizeof r.shape, ndim, shape);
    snprintf(r.layout, sizeof r.layout, "%s", c->kind == C_TOPK ? "axis1" : "all");
    if (c->kind == C_TOPK) snprintf(r.call, sizeof r.call, "{\"fn\": \"topk\", \"k\": %d, \"axis\": -1}", TOPK_K);
    else snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\", \"axis\": -1}", names[c->kind]);
    r.ninputs = 1;
    bench_input *in = &r.inputs[0];
    in->dtype = ND_FLOAT32, in->ndim = ndim, in->shape[0] = shape[0], in->shape[1] = shape[1];
    in->seed = 21, in->lo = 0, in->hi = 1;
    sort_call call = {.kind = c->kind};
    double *host = NULL, *vals = NULL;
    int s = bench_input_make(in, c->dev, &call.a, bench_verify() ? &host : NULL);
    if (s != ND_OK) bench_fail_nd(&r, "creating the input", s);
    if (s == ND_OK && (s = sort_run(&call)) != ND_OK) bench_fail_nd(&r, names[c->kind], s);
    if (s == ND_OK)
        r.bytes = (double)nd_nbytes(call.a) + (double)nd_nbytes(call.o1) + (call.o2 ? (double)nd_nbytes(call.o2) : 0);
    if (s == ND_OK && bench_verify() && (vals = check(&call, host, shape, &r))) {
        bench_checksum(vals, nd_size(call.o1), r.checksum);
        r.has_checksum = true;
    }
    free(host), free(vals);
    if (r.status == BS_OK) {
        s = bench_measure(sort_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, names[c->kind], s);
    }
    bench_emit(&r);
    nd_release(call.a), nd_release(call.o1), nd_release(call.o2);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_sort",
               "sort / argsort float32 1e7 and topk k=10 over the last axis of a float32 4096x4096.");
    for (int d = 0; d < bench_num_devices(); d++)
        for (int k = 0; k < NCASES; k++) {
            bench_case c = {.op = k, .kind = k, .dtype = ND_FLOAT32, .layout = 0, .dev = bench_device(d)};
            snprintf(c.key, sizeof c.key, "%s/float32/%s/%s/%s", names[k], k == C_TOPK ? "4096x4096" : "10000000",
                     k == C_TOPK ? "axis1" : "all", bench_dev_name(c.dev));
            bench_add_case(&c);
        }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        run_case(c);
    }
    return bench_finish();
}
