/* bench_special - the special functions and activations against SciPy's
 * ufuncs: erf, expit (the op sigmoid), gelu (x ndtr(x)) and silu
 * (x expit(x)), float32/float64, contiguous 1-D arrays of 1e4 .. 1.6e7
 * elements in [-4, 4). The twins (benchmarks/bench_worker.py):
 * scipy.special.erf(a, out=), expit(a, out=), and for gelu and silu the
 * two ufunc calls a SciPy user writes (ndtr or expit into a temporary,
 * then multiply(a, t, out=)); cupyx.scipy.special on a GPU. Every case is
 * checked once against a double-precision reference loop (libm's erfc);
 * the timed calls write into an existing output (out=). */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OP_ERF, OP_EXPIT, OP_GELU, OP_SILU, NOPS };
static const char *const op_names[NOPS] = {"erf", "expit", "gelu", "silu"};

typedef struct sp_call {
    int op;
    nd_array *in, *out;
} sp_call;

static int sp_run(void *p)
{
    sp_call *c = p;
    switch (c->op) {
    case OP_ERF: return nd_erf(&c->out, c->in);
    case OP_EXPIT: return nd_expit(&c->out, c->in);
    case OP_GELU: return nd_gelu(&c->out, c->in);
    default: return nd_silu(&c->out, c->in);
    }
}

static double ref_of(int op, double x)
{
    switch (op) {
    case OP_ERF: return erf(x);
    case OP_EXPIT: return 1.0 / (1.0 + exp(-x));
    case OP_GELU: return x * 0.5 * erfc(-x / sqrt(2.0));
    default: return x / (1.0 + exp(-x));
    }
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "special", c);
    snprintf(r.op, sizeof r.op, "%s", op_names[c->op]);
    snprintf(r.layout, sizeof r.layout, "contig");
    const int64_t n = c->p[0];
    snprintf(r.shape, sizeof r.shape, "%lld", (long long)n);
    snprintf(r.call, sizeof r.call, "{\"fn\": \"special\", \"name\": \"%s\"}", op_names[c->op]);
    r.ninputs = 1;
    bench_input *in = &r.inputs[0];
    memset(in, 0, sizeof *in);
    in->dtype = c->dtype, in->seed = 1, in->lo = -4.0, in->hi = 4.0, in->ndim = 1, in->shape[0] = n;
    sp_call call = {.op = c->op};
    double *host = NULL, *got = NULL;
    int s = bench_input_make(in, c->dev, &call.in, bench_verify() ? &host : NULL);
    if (s != ND_OK) bench_fail_nd(&r, "creating the input", s);
    else r.bytes += (double)n * (double)nd_dtype_size(c->dtype);
    if (s == ND_OK) {
        s = sp_run(&call); /* allocates the output */
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    if (s == ND_OK) {
        if (bench_verify() && (got = bench_fetch(call.out, &r))) {
            double *ref = malloc((size_t)n * sizeof(double) + 1);
            if (ref) {
                for (int64_t i = 0; i < n; i++) {
                    double v = ref_of(c->op, host[i]);
                    ref[i] = c->dtype == ND_FLOAT32 ? (double)(float)v : v;
                }
                /* float32 expit: the sigmoid kernel (3.63 ulp, src/cpu/vmath.h) */
                const double rtol = c->dtype == ND_FLOAT64 ? 4e-15 : c->op == OP_EXPIT ? 5e-7 : 2.4e-7;
                if (bench_check_close(&r, got, ref, n, rtol, 1e-300)) {
                    bench_checksum(got, n, r.checksum);
                    r.has_checksum = true;
                }
                free(ref);
            } else {
                r.status = BS_ERROR;
                snprintf(r.message, sizeof r.message, "out of host memory for the reference");
            }
        }
        r.bytes += (double)nd_nbytes(call.out);
    }
    free(got);
    free(host);
    if (r.status == BS_OK) {
        s = bench_measure(sp_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    bench_emit(&r);
    nd_release(call.in);
    nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_special",
               "Special functions and activations (erf, expit, gelu = x ndtr(x), silu = x expit(x)) over\n"
               "float32/float64, contiguous n = 1e4, 1e6, 1.6e7 in [-4, 4); the twins are SciPy's ufuncs.");
    static const int64_t sizes[] = {10000, 1000000, 16000000};
    const nd_dtype dtypes[2] = {ND_FLOAT32, ND_FLOAT64};
    for (int d = 0; d < bench_num_devices(); d++) {
        nd_device dev = bench_device(d);
        for (int op = 0; op < NOPS; op++)
            for (int t = 0; t < 2; t++)
                for (int si = 0; si < 3; si++) {
                    if (g_opt.quick && sizes[si] != 16000000) continue;
                    bench_case c = {.op = op, .dtype = dtypes[t], .layout = 0, .dev = dev};
                    c.p[0] = sizes[si];
                    snprintf(c.key, sizeof c.key, "%s/%s/%lld/contig/%s", op_names[op], nd_dtype_name(dtypes[t]),
                             (long long)sizes[si], bench_dev_name(dev));
                    bench_add_case(&c);
                }
    }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        run_case(c);
    }
    return bench_finish();
}
