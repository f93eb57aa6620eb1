/* bench_expr - fused expressions (nd_expr_eval) through the public API:
 *   expr_fma      a*b + c                                            (NumPy: the same line, unfused, allocating)
 *   expr_gelu     0.5*a*(1+tanh(0.7978845608*(a+0.044715*a*a*a)))    (NumPy: the same line, 10 passes)
 *   expr_fma_numexpr, expr_gelu_numexpr: the same, with numexpr.evaluate as the Python twin
 * float32, contiguous n = 1e6 and 1.6e7, two layouts: "out" (libndgpu and
 * numexpr write an existing out=; NumPy's line allocates, as users write
 * it) and "alloc" (every side allocates its result each call). On a GPU
 * also a*b+c into an out at n = 2.56e8 and the raw D2D copy (the ceiling:
 * fraction_of_copy); on the CPU the STREAM triad (fraction_of_triad).
 * Each case is checked once against a double-precision reference loop. */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { E_FMA, E_GELU, E_FMA_NE, E_GELU_NE, NEXPR };
static const char *const op_names[NEXPR] = {"expr_fma", "expr_gelu", "expr_fma_numexpr", "expr_gelu_numexpr"};
static const char *const exprs[NEXPR] = {"a*b+c", "0.5*a*(1+tanh(0.7978845608*(a+0.044715*a*a*a)))", "a*b+c",
                                         "0.5*a*(1+tanh(0.7978845608*(a+0.044715*a*a*a)))"};

static int nin_of(int op) { return op == E_FMA || op == E_FMA_NE ? 3 : 1; }

enum { L_OUT, L_ALLOC, NLAYOUTS };
static const char *const layout_names[NLAYOUTS] = {"out", "alloc"};

typedef struct expr_call {
    int op;
    int layout;
    nd_array *in[3];
    nd_array *out;
} expr_call;

static const char *const NAMES[3] = {"a", "b", "c"};

static int expr_run(void *p)
{
    expr_call *c = p;
    if (c->layout == L_ALLOC) { /* a new result each call */
        nd_release(c->out);
        c->out = NULL;
    }
    return nd_expr_eval(&c->out, exprs[c->op], nin_of(c->op), NAMES, (const nd_array *const *)c->in);
}

static double *reference(const bench_case *c, double *const *host, int64_t n)
{
    double *ref = malloc((size_t)n * sizeof(double) + 1);
    if (!ref) return NULL;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        double a = host[0][i];
        if (c->op == E_FMA || c->op == E_FMA_NE) ref[i] = a * host[1][i] + host[2][i];
        else ref[i] = 0.5 * a * (1 + tanh(0.7978845608 * (a + 0.044715 * a * a * a)));
    }
    return ref;
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "expr", c);
    snprintf(r.op, sizeof r.op, "%s", op_names[c->op]);
    snprintf(r.layout, sizeof r.layout, "%s", layout_names[c->layout]);
    const int64_t n = c->p[0];
    snprintf(r.shape, sizeof r.shape, "%lld", (long long)n);
    snprintf(r.call, sizeof r.call, "{\"fn\": \"expr\", \"expr\": \"%s\"%s}", exprs[c->op],
             c->op >= E_FMA_NE ? ", \"twin\": \"numexpr\"" : "");
    r.ninputs = nin_of(c->op);
    expr_call call = {.op = c->op, .layout = c->layout};
    double *host[3] = {NULL, NULL, NULL};
    double *got = NULL, *ref = NULL;
    int s = ND_OK;
    for (int k = 0; k < r.ninputs; k++) {
        bench_input *in = &r.inputs[k];
        memset(in, 0, sizeof *in);
        in->dtype = c->dtype;
        in->seed = (uint64_t)(k + 1);
        in->lo = 0.5, in->hi = 1.5;
        in->ndim = 1, in->shape[0] = n;
    }
    for (int k = 0; k < r.ninputs && s == ND_OK; k++) {
        s = bench_input_make(&r.inputs[k], c->dev, &call.in[k], bench_verify() ? &host[k] : NULL);
        if (s != ND_OK) bench_fail_nd(&r, "creating the inputs", s);
        else r.bytes += (double)n * (double)nd_dtype_size(c->dtype);
    }
    if (s == ND_OK) {
        s = expr_run(&call);
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    if (s == ND_OK) {
        if (nd_size(call.out) != n) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "result has %lld elements, expected %lld", (long long)nd_size(call.out),
                     (long long)n);
        } else if (!bench_verify()) {
            /* time only: an earlier round verified this case */
        } else if ((got = bench_fetch(call.out, &r)) && (ref = reference(c, host, n))) {
            /* float32 steps: a few roundings (tanh: its vector kernel's ulps) */
            double rtol = c->op == E_FMA || c->op == E_FMA_NE ? 3e-7 : 4e-6;
            if (bench_check_close(&r, got, ref, n, rtol, 0)) {
                bench_checksum(got, n, r.checksum);
                r.has_checksum = true;
            }
        } else if (r.status == BS_OK) {
            r.status = BS_ERROR;
            snprintf(r.message, sizeof r.message, "out of host memory for the reference");
        }
        r.bytes += (double)nd_nbytes(call.out);
    }
    free(got), free(ref);
    for (int k = 0; k < 3; k++) free(host[k]);
    if (r.status == BS_OK) {
        s = bench_measure(expr_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    bench_note_triad_fraction(&r, c->dev, "expr");
    bench_note_copy_fraction(&r, c->dev, "expr");
    bench_emit(&r);
    for (int k = 0; k < 3; k++) nd_release(call.in[k]);
    nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_expr",
               "Fused expressions (nd_expr_eval): a*b+c and the GELU tanh chain, float32, contiguous\n"
               "n = 1e6 and 1.6e7, against NumPy's unfused line and numexpr.evaluate (the *_numexpr cases).");
    static const int64_t sizes[] = {1000000, 16000000, 256000000};
    for (int d = 0; d < bench_num_devices(); d++) {
        nd_device dev = bench_device(d);
        bench_add_d2d_case(dev);   /* GPU only: the bandwidth ceiling of the fraction_of_copy goal */
        bench_add_triad_case(dev); /* CPU only: the STREAM triad (fraction_of_triad) */
        for (int op = 0; op < NEXPR; op++)
            for (int layout = 0; layout < NLAYOUTS; layout++)
                for (int si = 0; si < 3; si++) {
                    if (op >= E_FMA_NE && dev.type != ND_DEVICE_CPU) continue; /* numexpr: the CPU only */
                    /* 2.56e8: GPU only, a*b+c into an out (against the D2D copy) */
                    if (si == 2 && (dev.type == ND_DEVICE_CPU || op != E_FMA || layout != L_OUT)) continue;
                    bench_case c = {.op = op, .dtype = ND_FLOAT32, .layout = layout, .dev = dev};
                    c.p[0] = sizes[si];
                    snprintf(c.key, sizeof c.key, "%s/float32/%lld/%s/%s", op_names[op], (long long)sizes[si],
                             layout_names[layout], bench_dev_name(dev));
                    bench_add_case(&c);
                }
    }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        if (c->kind == BENCH_KIND_D2D) bench_run_d2d_case(c, "expr");
        else if (c->kind == BENCH_KIND_TRIAD) bench_run_stream_case(c, "expr", true);
        else run_case(c);
    }
    return bench_finish();
}
