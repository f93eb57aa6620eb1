/* bench_special_gamma - the gamma, zeta and Bessel ops (gammaln, digamma,
 * gamma, i0, i0e, j0, y0 and the binary gammainc, zeta) through the public
 * API, float32/float64, contiguous 1-D arrays of 1e6 and 1.6e7 elements;
 * the twins are scipy.special's ufuncs on NumPy arrays (CuPy:
 * cupyx.scipy.special) with out=. Inputs: gammaln, digamma, gamma in
 * [0.5, 100) (gamma: [0.5, 30)), the Bessel functions in [0, 50), gammainc
 * and zeta with both arguments in [1.5, 20). Every case is checked once
 * against glibc's long double functions where it has them (lgammal,
 * tgammal, j0l, y0l) and against the library's float64 result otherwise
 * (float32 cases). */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OP_GAMMALN, OP_DIGAMMA, OP_GAMMA, OP_I0, OP_I0E, OP_J0, OP_Y0, OP_GAMMAINC, OP_ZETA, NOPS };
static const char *const op_names[NOPS] = {"gammaln", "digamma", "gamma", "i0", "i0e", "j0", "y0", "gammainc", "zeta"};

static void make_key(bench_case *c)
{
    snprintf(c->key, sizeof c->key, "%s/%s/%lld/contig/%s", op_names[c->op], nd_dtype_name(c->dtype),
             (long long)c->p[0], bench_dev_name(c->dev));
}

typedef struct sg_call {
    int op;
    nd_array *in[2];
    nd_array *out;
} sg_call;

static int sg_run(void *p)
{
    sg_call *c = p;
    switch (c->op) {
    case OP_GAMMALN: return nd_gammaln(&c->out, c->in[0]);
    case OP_DIGAMMA: return nd_digamma(&c->out, c->in[0]);
    case OP_GAMMA: return nd_gamma(&c->out, c->in[0]);
    case OP_I0: return nd_i0(&c->out, c->in[0]);
    case OP_I0E: return nd_i0e(&c->out, c->in[0]);
    case OP_J0: return nd_j0(&c->out, c->in[0]);
    case OP_Y0: return nd_y0(&c->out, c->in[0]);
    case OP_GAMMAINC: return nd_gammainc(&c->out, c->in[0], c->in[1]);
    default: return nd_zeta(&c->out, c->in[0], c->in[1]);
    }
}

static int nargs(int op) { return op == OP_GAMMAINC || op == OP_ZETA ? 2 : 1; }

/* the reference of one element where glibc has the function (long double),
 * NAN where it has not */
static double ref_of(int op, double x)
{
    switch (op) {
    case OP_GAMMALN: return (double)lgammal(x);
    case OP_GAMMA: return (double)tgammal(x);
    case OP_J0: return (double)j0l(x);
    case OP_Y0: return (double)y0l(x);
    default: return NAN;
    }
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "special_gamma", c);
    snprintf(r.op, sizeof r.op, "%s", op_names[c->op]);
    snprintf(r.layout, sizeof r.layout, "contig");
    const int64_t n = c->p[0];
    snprintf(r.shape, sizeof r.shape, "%lld", (long long)n);
    snprintf(r.call, sizeof r.call, "{\"fn\": \"special\", \"name\": \"%s\"}", op_names[c->op]);
    r.ninputs = nargs(c->op);
    for (int k = 0; k < r.ninputs; k++) {
        bench_input *in = &r.inputs[k];
        memset(in, 0, sizeof *in);
        in->dtype = c->dtype;
        in->seed = (uint64_t)(k + 1);
        in->ndim = 1, in->shape[0] = n;
        switch (c->op) {
        case OP_GAMMA: in->lo = 0.5, in->hi = 30; break;
        case OP_I0: case OP_I0E: case OP_J0: case OP_Y0: in->lo = 0, in->hi = 50; break;
        case OP_GAMMAINC: case OP_ZETA: in->lo = 1.5, in->hi = 20; break;
        default: in->lo = 0.5, in->hi = 100; break;
        }
    }
    sg_call call = {.op = c->op};
    double *host[2] = {NULL, NULL}, *got = NULL, *ref = NULL;
    int s = ND_OK;
    for (int k = 0; k < r.ninputs && s == ND_OK; k++) {
        s = bench_input_make(&r.inputs[k], c->dev, &call.in[k], bench_verify() ? &host[k] : NULL);
        if (s != ND_OK) bench_fail_nd(&r, "creating the inputs", s);
        else r.bytes += (double)n * (double)nd_dtype_size(c->dtype);
    }
    if (s == ND_OK && (s = sg_run(&call)) != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    if (s == ND_OK && bench_verify() && (got = bench_fetch(call.out, &r))) {
        ref = malloc((size_t)n * sizeof(double) + 1);
        if (!ref) {
            r.status = BS_ERROR;
            snprintf(r.message, sizeof r.message, "out of host memory for the reference");
        } else {
            bool have = !isnan(ref_of(c->op, 2.5));
            if (!have) { /* the library's float64 values (float32: rounded once) */
                sg_call c64 = {.op = c->op};
                for (int k = 0; k < r.ninputs && s == ND_OK; k++) s = nd_astype(&c64.in[k], call.in[k], ND_FLOAT64);
                if (s == ND_OK) s = sg_run(&c64);
                if (s == ND_OK) s = nd_copy_to_host(ref, c64.out, (size_t)n * sizeof(double));
                for (int k = 0; k < 2; k++) nd_release(c64.in[k]);
                nd_release(c64.out);
                if (s != ND_OK) bench_fail_nd(&r, "the float64 reference", s);
            } else {
#pragma omp parallel for schedule(static)
                for (int64_t i = 0; i < n; i++) ref[i] = ref_of(c->op, host[0][i]);
            }
            if (c->dtype == ND_FLOAT32)
                for (int64_t i = 0; i < n; i++) ref[i] = (double)(float)ref[i];
            /* j0/y0 near their zeros are accurate in absolute terms only (glibc's too) */
            const double atol = (c->op == OP_J0 || c->op == OP_Y0) ? 1e-15 : 0;
            if (r.status == BS_OK && bench_check_close(&r, got, ref, n, c->dtype == ND_FLOAT32 ? 3e-7 : 1e-13, atol)) {
                bench_checksum(got, n, r.checksum);
                r.has_checksum = true;
            }
        }
        r.bytes += (double)nd_nbytes(call.out);
    }
    free(got), free(ref);
    for (int k = 0; k < 2; k++) free(host[k]);
    if (r.status == BS_OK) {
        s = bench_measure(sg_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    bench_emit(&r);
    for (int k = 0; k < 2; k++) nd_release(call.in[k]);
    nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_special_gamma",
               "The gamma, zeta and Bessel ops (gammaln, digamma, gamma, i0, i0e, j0, y0, gammainc, zeta),\n"
               "float32/float64, contiguous n = 1e6 and 1.6e7 (--quick: float64, gammaln at 1.6e7, the rest at 1e6);\n"
               "twins: scipy.special with NumPy arrays, cupyx.scipy.special on a GPU.");
    static const int64_t sizes[] = {1000000, 16000000};
    const nd_dtype dtypes[2] = {ND_FLOAT32, ND_FLOAT64};
    for (int d = 0; d < bench_num_devices(); d++)
        for (int op = 0; op < NOPS; op++)
            for (int t = 0; t < 2; t++)
                for (int si = 0; si < 2; si++) {
                    /* --quick: float64; the goal's gammaln at 1.6e7, the others (up to
                     * 1 us an element) at 1e6, so they add seconds, not minutes */
                    if (g_opt.quick && (dtypes[t] != ND_FLOAT64 || (si == 1) != (op == OP_GAMMALN))) continue;
                    bench_case c = {.op = op, .dtype = dtypes[t], .dev = bench_device(d)};
                    c.p[0] = sizes[si];
                    make_key(&c);
                    bench_add_case(&c);
                }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        run_case(c);
    }
    return bench_finish();
}
