/* bench_complex - complex elementwise ops and reductions through
 * the public API, against NumPy (and CuPy on a GPU) in the same run
 * (bench_worker.py, fn "cpx"):
 *   multiply, add, divide   of 1.6e7 complex64 (multiply also complex128)
 *   exp, sqrt               of 1e6 complex64 (Annex G bodies: compute bound)
 *   abs                     of 1.6e7 complex64 (real result)
 *   sum                     of 1.6e7 complex64
 * Inputs are generated as float (re, im) pairs (shape (n, 2), parts in
 * [0.5, 1.5) or [-1, 1) for exp), which both sides view as complex, so both
 * start from the same values bit for bit. The timed elementwise calls
 * write into an existing output (NumPy's out=). Every case is checked
 * once against a double-precision reference (glibc's <complex.h> for exp
 * and sqrt) on a sample of elements; the checksum runs over the result's
 * (re, im) pairs in C order. */
#include "bench_common.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { C_MUL, C_ADD, C_DIV, C_EXP, C_SQRT, C_ABS, C_SUM, NOPS };
static const char *const op_names[NOPS] = {"multiply", "add", "divide", "exp", "sqrt", "abs", "sum"};
#define NBIG 16000000
#define NMATH 1000000

typedef struct cpx_call {
    int op;
    nd_array *x, *y, *out;
} cpx_call;

static int cpx_run(void *p)
{
    cpx_call *c = p;
    switch (c->op) {
    case C_MUL: return nd_multiply(&c->out, c->x, c->y);
    case C_ADD: return nd_add(&c->out, c->x, c->y);
    case C_DIV: return nd_divide(&c->out, c->x, c->y);
    case C_EXP: return nd_exp(&c->out, c->x);
    case C_SQRT: return nd_sqrt(&c->out, c->x);
    case C_ABS: return nd_abs(&c->out, c->x);
    default: nd_release(c->out), c->out = NULL; return nd_sum(&c->out, c->x, 0, NULL, false);
    }
}

static bool binary(int op) { return op == C_MUL || op == C_ADD || op == C_DIV; }

/* The reference of element i (pairs h0, h1 in double). */
static double complex ref_at(int op, const double *h0, const double *h1, int64_t i)
{
    const double complex a = CMPLX(h0[2 * i], h0[2 * i + 1]);
    const double complex b = h1 ? CMPLX(h1[2 * i], h1[2 * i + 1]) : 0;
    switch (op) {
    case C_MUL: return a * b;
    case C_ADD: return a + b;
    case C_DIV: return a / b;
    case C_EXP: return cexp(a);
    case C_SQRT: return csqrt(a);
    default: return cabs(a);
    }
}

/* Input k of the case as a complex array (from float/double pairs). */
static int make_input(bench_record *r, const bench_case *c, int k, nd_array **z, double **host)
{
    bench_input *in = &r->inputs[k];
    const bool dbl = c->dtype == ND_COMPLEX128;
    const int64_t n = c->p[0];
    in->dtype = dbl ? ND_FLOAT64 : ND_FLOAT32;
    in->ndim = 2, in->shape[0] = n, in->shape[1] = 2;
    in->seed = (uint64_t)(41 + k);
    in->lo = c->op == C_EXP ? -1.0 : 0.5, in->hi = c->op == C_EXP ? 1.0 : 1.5;
    nd_array *base = NULL;
    int s = bench_input_make(in, c->dev, &base, host);
    if (s != ND_OK) {
        bench_fail_nd(r, "creating the input", s);
        return s;
    }
    void *buf = malloc((size_t)n * (dbl ? 16 : 8) + 1);
    if (!buf) {
        nd_release(base);
        bench_fail_nd(r, "host memory for the input", ND_ERR_NOMEM);
        return ND_ERR_NOMEM;
    }
    for (int64_t i = 0; i < 2 * n; i++) {
        if (dbl) ((double *)buf)[i] = (*host)[i];
        else ((float *)buf)[i] = (float)(*host)[i];
    }
    s = nd_from_host(z, buf, c->dtype, 1, &n, c->dev);
    if (s != ND_OK) bench_fail_nd(r, "nd_from_host", s);
    free(buf);
    nd_release(base);
    return s;
}

static void check(bench_record *r, const bench_case *c, const double *h0, const double *h1, const double *got)
{
    const double eps = c->dtype == ND_COMPLEX128 ? 0x1p-52 : 0x1p-23;
    const int64_t n = c->p[0];
    if (c->op == C_SUM) {
        long double sr = 0, si = 0;
        for (int64_t i = 0; i < n; i++) sr += h0[2 * i], si += h0[2 * i + 1];
        const double tol = 64 * eps * (double)n * 1.5; /* |parts| < 1.5; pairwise sums do far better */
        if (!(fabs(got[0] - (double)sr) <= tol && fabs(got[1] - (double)si) <= tol)) {
            r->status = BS_WRONG;
            snprintf(r->message, sizeof r->message, "sum is (%.9g, %.9g), want (%.9g, %.9g)", got[0], got[1],
                     (double)sr, (double)si);
        }
        return;
    }
    for (int64_t k = 0; k < 4096; k++) {
        const int64_t i = k < 2 ? k * (n - 1) : (k * 104729) % n;
        const double complex w = ref_at(c->op, h0, h1, i);
        const double gr = c->op == C_ABS ? got[i] : got[2 * i], gi = c->op == C_ABS ? 0 : got[2 * i + 1];
        const double err = cabs(CMPLX(gr, gi) - w);
        if (!(err <= 8 * eps * cabs(w))) {
            r->status = BS_WRONG;
            snprintf(r->message, sizeof r->message, "element %lld is (%.9g, %.9g), want (%.9g, %.9g)", (long long)i,
                     gr, gi, creal(w), cimag(w));
            return;
        }
    }
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "complex", c);
    snprintf(r.op, sizeof r.op, "%s", op_names[c->op]);
    snprintf(r.layout, sizeof r.layout, "%s", c->op == C_SUM ? "all" : "contig");
    const int64_t n = c->p[0];
    bench_fmt_shape(r.shape, sizeof r.shape, 1, &n);
    snprintf(r.call, sizeof r.call, "{\"fn\": \"cpx\", \"op\": \"%s\", \"pairs\": true}", op_names[c->op]);
    r.ninputs = binary(c->op) ? 2 : 1;
    cpx_call call = {.op = c->op};
    double *h0 = NULL, *h1 = NULL, *got = NULL;
    int s = make_input(&r, c, 0, &call.x, &h0);
    if (s == ND_OK && binary(c->op)) s = make_input(&r, c, 1, &call.y, &h1);
    if (s == ND_OK) {
        s = cpx_run(&call);
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    if (s == ND_OK) r.bytes = (double)nd_nbytes(call.x) * r.ninputs + (double)nd_nbytes(call.out);
    if (s == ND_OK && bench_verify() && (got = bench_fetch(call.out, &r))) {
        const int64_t cnt = nd_size(call.out) * (c->op == C_ABS ? 1 : 2); /* pairs but for abs */
        check(&r, c, h0, h1, got);
        if (r.status == BS_OK) {
            bench_checksum(got, cnt, r.checksum);
            r.has_checksum = true;
        }
    }
    free(h0), free(h1), free(got);
    if (r.status == BS_OK) {
        s = bench_measure(cpx_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    bench_emit(&r);
    nd_release(call.x);
    nd_release(call.y);
    nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_complex",
               "Complex ops: multiply/add/divide of 1.6e7 complex64 (multiply also complex128), exp and sqrt of 1e6\n"
               "complex64, abs and sum of 1.6e7 complex64; inputs as (re, im) pairs, outputs written into an\n"
               "existing array (NumPy's out=).");
    for (int d = 0; d < bench_num_devices(); d++)
        for (int op = 0; op < NOPS; op++)
            for (int t = 0; t < 2; t++) {
                const nd_dtype dt = t ? ND_COMPLEX128 : ND_COMPLEX64;
                if (t && op != C_MUL) continue;
                bench_case c = {.op = op, .dtype = dt, .layout = 0, .dev = bench_device(d)};
                c.p[0] = (op == C_EXP || op == C_SQRT) ? NMATH : NBIG;
                snprintf(c.key, sizeof c.key, "%s/%s/%lld/%s/%s", op_names[op], nd_dtype_name(dt), (long long)c.p[0],
                         op == C_SUM ? "all" : "contig", bench_dev_name(c.dev));
                bench_add_case(&c);
            }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        run_case(c);
    }
    return bench_finish();
}
