/* bench_elementwise - add, multiply, exp, tanh, log, sin, sigmoid, where and astype f32->f16
 * through the public API, float32/float64, contiguous 1-D arrays of
 * 1 .. 1.6e7 elements (2.56e8 on a GPU: every op in full runs, add float32
 * in --quick too), and 4096x4096 arrays with a broadcast row (4096,), a
 * broadcast column (4096,1), strided inputs (every 2nd element) and a
 * transposed input. On a GPU the raw device-to-device copy of 1.024 GB
 * (cudaMemcpyAsync) is measured first, as the bandwidth ceiling: cases
 * moving >= 256 MiB report their GB/s as a fraction of it.
 * Every case is checked once against a double-precision reference loop;
 * the timed calls write into an existing output (NumPy's out=), but in
 * the "alloc" cases (add, multiply, exp of 1.6e7): there every call
 * allocates its result and the previous one is released (NumPy's c = a * b
 * in a loop), so the allocator's cost is in the time. */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OP_ADD, OP_MUL, OP_EXP, OP_TANH, OP_LOG, OP_SIN, OP_SIGMOID, OP_WHERE, OP_ASTYPE, NOPS };
static const char *const op_names[NOPS] = {"add", "multiply", "exp", "tanh", "log", "sin", "sigmoid", "where", "astype"};
enum { L_CONTIG, L_BROW, L_BCOL, L_STRIDED, L_TRANS, L_ALLOC, NLAYOUTS };
static const char *const layout_names[NLAYOUTS] = {"contig", "bcast_row", "bcast_col", "strided", "transposed", "alloc"};

#define SIDE 4096

static bool op_has_layout(int op, int layout)
{
    if (layout == L_BROW || layout == L_BCOL) return op == OP_ADD || op == OP_MUL || op == OP_WHERE;
    if (layout == L_STRIDED) return op != OP_LOG && op != OP_SIN && op != OP_SIGMOID; /* as exp/tanh */
    if (layout == L_ALLOC) return op == OP_ADD || op == OP_MUL || op == OP_EXP;
    return true;
}

static void make_key(bench_case *c)
{
    char shape[32];
    if (c->layout == L_CONTIG || c->layout == L_ALLOC) snprintf(shape, sizeof shape, "%lld", (long long)c->p[0]);
    else snprintf(shape, sizeof shape, "%dx%d", SIDE, SIDE);
    snprintf(c->key, sizeof c->key, "%s/%s%s/%s/%s/%s", op_names[c->op], nd_dtype_name(c->dtype),
             c->op == OP_ASTYPE ? "->float16" : "", shape, layout_names[c->layout], bench_dev_name(c->dev));
}

/* Inputs of a case: float inputs in [0.5, 1.5) (never zero); where's
 * condition is a random bool array. The layout decides shapes/views. */
static int setup_inputs(const bench_case *c, bench_input *ins)
{
    int nin = (c->op == OP_ADD || c->op == OP_MUL) ? 2 : c->op == OP_WHERE ? 3 : 1;
    int first_float = c->op == OP_WHERE ? 1 : 0;
    for (int k = 0; k < nin; k++) {
        bench_input *in = &ins[k];
        memset(in, 0, sizeof *in);
        in->dtype = (c->op == OP_WHERE && k == 0) ? ND_BOOL : c->dtype;
        in->seed = (uint64_t)(k + 1);
        in->lo = 0.5, in->hi = 1.5;
        switch (c->layout) {
        case L_CONTIG:
        case L_ALLOC:
            in->ndim = 1, in->shape[0] = c->p[0];
            break;
        case L_STRIDED:
            in->ndim = 2, in->shape[0] = SIDE, in->shape[1] = 2 * SIDE, in->view = BV_STEP2;
            break;
        case L_TRANS:
            in->ndim = 2, in->shape[0] = SIDE, in->shape[1] = SIDE;
            if (k == first_float) in->view = BV_T;
            break;
        default: /* broadcast: the second float operand is a row / a column */
            in->ndim = 2, in->shape[0] = SIDE, in->shape[1] = SIDE;
            if (k == first_float + (c->op == OP_WHERE ? 0 : 1)) {
                if (c->layout == L_BROW) in->ndim = 1, in->shape[0] = SIDE;
                else in->shape[1] = 1;
            }
            break;
        }
    }
    return nin;
}

typedef struct ew_call {
    int op;
    nd_array *in[3];
    nd_array *out;
} ew_call;

static int ew_run(void *p)
{
    ew_call *c = p;
    switch (c->op) {
    case OP_ADD: return nd_add(&c->out, c->in[0], c->in[1]);
    case OP_MUL: return nd_multiply(&c->out, c->in[0], c->in[1]);
    case OP_EXP: return nd_exp(&c->out, c->in[0]);
    case OP_TANH: return nd_tanh(&c->out, c->in[0]);
    case OP_LOG: return nd_log(&c->out, c->in[0]);
    case OP_SIN: return nd_sin(&c->out, c->in[0]);
    case OP_SIGMOID: return nd_sigmoid(&c->out, c->in[0]);
    case OP_WHERE: return nd_where(&c->out, c->in[0], c->in[1], c->in[2]);
    default: return nd_astype(&c->out, c->in[0], ND_FLOAT16);
    }
}

/* as ew_run, into a new result: the last one is released first */
static int ew_run_alloc(void *p)
{
    ew_call *c = p;
    nd_release(c->out);
    c->out = NULL;
    return ew_run(c);
}

static double round_to(nd_dtype t, double v)
{
    return t == ND_FLOAT32 ? (double)(float)v : v;
}

/* Reference result (doubles, C order) of the case. */
static double *reference(const bench_case *c, const bench_input *ins, double *const *host, int nin, int64_t rows,
                         int64_t cols)
{
    int64_t coef[3][2];
    for (int k = 0; k < nin; k++) {
        if (c->layout == L_CONTIG || c->layout == L_ALLOC) {
            coef[k][0] = 0;
            bench_input_coefs(&ins[k], 1, &coef[k][1]);
        } else {
            bench_input_coefs(&ins[k], 2, coef[k]);
        }
    }
    int64_t total = rows * cols;
    double *ref = malloc((size_t)total * sizeof(double) + 1);
    if (!ref) return NULL;
    nd_dtype t = c->dtype;
#pragma omp parallel for schedule(static)
    for (int64_t o = 0; o < total; o++) {
        int64_t i = o / cols, j = o % cols;
        double v[3] = {0, 0, 0};
        for (int k = 0; k < nin; k++) v[k] = host[k][coef[k][0] * i + coef[k][1] * j];
        double r;
        switch (c->op) {
        case OP_ADD: r = round_to(t, v[0] + v[1]); break;
        case OP_MUL: r = round_to(t, v[0] * v[1]); break;
        case OP_EXP: r = round_to(t, exp(v[0])); break;
        case OP_TANH: r = round_to(t, tanh(v[0])); break;
        case OP_LOG: r = round_to(t, log(v[0])); break;
        case OP_SIN: r = round_to(t, sin(v[0])); break;
        case OP_SIGMOID: r = round_to(t, 1.0 / (1.0 + exp(-v[0]))); break;
        case OP_WHERE: r = v[0] != 0 ? v[1] : v[2]; break;
        default: r = v[0]; break; /* astype: compared with half's tolerance */
        }
        ref[o] = r;
    }
    return ref;
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "elementwise", c);
    snprintf(r.op, sizeof r.op, "%s", op_names[c->op]);
    if (c->op == OP_ASTYPE) snprintf(r.dtype, sizeof r.dtype, "%s->float16", nd_dtype_name(c->dtype));
    snprintf(r.layout, sizeof r.layout, "%s", layout_names[c->layout]);
    const bool flat = c->layout == L_CONTIG || c->layout == L_ALLOC;
    int64_t rows = flat ? 1 : SIDE, cols = flat ? c->p[0] : SIDE;
    if (flat) snprintf(r.shape, sizeof r.shape, "%lld", (long long)cols);
    else snprintf(r.shape, sizeof r.shape, "%dx%d", SIDE, SIDE);
    if (c->op == OP_ASTYPE) snprintf(r.call, sizeof r.call, "{\"fn\": \"astype\", \"dtype\": \"float16\"}");
    else snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\"}", op_names[c->op]);

    r.ninputs = setup_inputs(c, r.inputs);
    ew_call call = {.op = c->op};
    double *host[3] = {NULL, NULL, NULL};
    double *got = NULL, *ref = NULL;
    int s = ND_OK;
    for (int k = 0; k < r.ninputs && s == ND_OK; k++) {
        s = bench_input_make(&r.inputs[k], c->dev, &call.in[k], bench_verify() ? &host[k] : NULL);
        if (s != ND_OK) bench_fail_nd(&r, "creating the inputs", s);
        else r.bytes += (double)bench_input_view_size(&r.inputs[k]) * (double)nd_dtype_size(r.inputs[k].dtype);
    }
    if (s == ND_OK) {
        s = ew_run(&call); /* allocates the output */
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    if (s == ND_OK) {
        if (nd_size(call.out) != rows * cols) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "result has %lld elements, expected %lld",
                     (long long)nd_size(call.out), (long long)(rows * cols));
        } else if (!bench_verify()) {
            /* time only: an earlier round verified this case */
        } else if ((got = bench_fetch(call.out, &r)) && (ref = reference(c, r.inputs, host, r.ninputs, rows, cols))) {
            double rtol;
            switch (c->op) {
            case OP_EXP: case OP_TANH: case OP_LOG: case OP_SIN: case OP_SIGMOID: rtol = c->dtype == ND_FLOAT32 ? 4e-6 : 1e-13; break;
            case OP_WHERE: rtol = 0; break;
            case OP_ASTYPE: rtol = 0x1.0p-11 * 1.0001; break;
            default: rtol = c->dtype == ND_FLOAT32 ? 1.2e-7 : 2.3e-16; break;
            }
            if (bench_check_close(&r, got, ref, rows * cols, rtol, 0)) {
                bench_checksum(got, rows * cols, r.checksum);
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
        s = bench_measure(c->layout == L_ALLOC ? ew_run_alloc : ew_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, op_names[c->op], s);
    }
    bench_note_copy_fraction(&r, c->dev, "elementwise");
    bench_emit(&r);
    for (int k = 0; k < 3; k++) nd_release(call.in[k]);
    nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_elementwise",
               "Elementwise ops (add, multiply, exp, tanh, log, sin, sigmoid, where, astype f32->f16) over\n"
               "float32/float64 (log, sin, sigmoid: no strided case):\n"
               "contiguous n = 1, 100, 1e4, 1e5, 1e6, 1.6e7 (+2.56e8 on a GPU: all ops in full runs, add\n"
               "float32 with --quick), and 4096x4096 with broadcast row/column, strided (every 2nd element)\n"
               "and transposed inputs; add, multiply, exp of 1.6e7 allocating their result at every call\n"
               "(layout alloc). GPU: the raw D2D copy (cudaMemcpyAsync, 1.024 GB) as the ceiling.");
    static const int64_t sizes[] = {1, 100, 10000, 100000, 1000000, 16000000, 256000000};
    const nd_dtype dtypes[2] = {ND_FLOAT32, ND_FLOAT64};
    for (int d = 0; d < bench_num_devices(); d++) {
        nd_device dev = bench_device(d);
        bench_add_d2d_case(dev); /* GPU only: the bandwidth ceiling, first */
        for (int layout = 0; layout < NLAYOUTS; layout++)
            for (int op = 0; op < NOPS; op++)
                for (int t = 0; t < 2; t++) {
                    if (op == OP_ASTYPE && dtypes[t] != ND_FLOAT32) continue;
                    if (!op_has_layout(op, layout)) continue;
                    int nsizes = layout == L_CONTIG ? 7 : layout == L_ALLOC ? 6 : 1, si0 = 0;
                    if (layout == L_ALLOC) si0 = 5; /* 1.6e7 only */
                    for (int si = si0; si < nsizes; si++) {
                        /* 2.56e8: GPU only; with --quick only add float32 (the
                         * bandwidth goal, against the D2D copy) */
                        if (layout == L_CONTIG && sizes[si] > 16000000 &&
                            (dev.type != ND_DEVICE_CUDA ||
                             (g_opt.quick && (op != OP_ADD || dtypes[t] != ND_FLOAT32))))
                            continue;
                        bench_case c = {.op = op, .dtype = dtypes[t], .layout = layout, .dev = dev};
                        c.p[0] = sizes[si];
                        make_key(&c);
                        bench_add_case(&c);
                    }
                }
    }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        if (c->kind == BENCH_KIND_D2D) bench_run_d2d_case(c, "elementwise");
        else run_case(c);
    }
    return bench_finish();
}
