/* bench_overhead - wall time per call of tiny ops through the public API:
 * nd_add into an existing output and allocating (plus nd_release), nd_sum
 * allocating, for n = 1 and 100 float32 elements; nd_empty + nd_release
 * (the library's allocator / pool) for 1, 100 and 1e6 elements, against
 * raw malloc + free of the same size on the CPU and raw cudaMalloc +
 * cudaFree on a GPU (the reference: what a cached pool saves). On a GPU
 * the time per call is wall time over many calls with the device
 * synchronised after each sample: what a caller pays per call.
 *
 * The profiler's cost, CPU only:
 *  - "profiler door (off)": a function holding nothing but the scope every
 *    public op opens (src/core/prof.h, ND_PROF_OP) while no session runs,
 *    against the same function without it ("empty_call_s"): door_cost_s
 *    is what the disabled profiler adds to every op;
 *  - "add" layout "out,profiled": nd_add into an existing out (n = 1, 100)
 *    with a session running, timed in blocks of 50000 calls (a session
 *    restarted between blocks, outside the timing, so it never fills),
 *    against the same loop without a session in the same case:
 *    profiler_cost_s is what recording one op costs. */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef ND_WITH_CUDA
#include <cuda_runtime.h>
#endif
#include "core/prof.h" /* the profiler's door, for the door-cost case */

enum { OP_ADD_OUT, OP_ADD_ALLOC, OP_SUM_ALLOC, OP_EMPTY, OP_MALLOC, OP_CUDA_MALLOC, OP_DOOR, OP_ADD_PROF, NOPS };
static const char *const op_names[NOPS] = {"add", "add", "sum", "empty+release", "malloc+free", "cudaMalloc+cudaFree",
                                           "profiler door (off)", "add"};
static const char *const op_layouts[NOPS] = {"out", "alloc", "alloc", "alloc", "raw", "raw", "raw", "out,profiled"};


typedef struct ov_call {
    int op;
    nd_array *a, *b, *out;
    int64_t n;
    nd_device dev;
} ov_call;

static void *volatile g_sink;

/* The door alone, and the same function without it (noinline, so that
 * both are real calls and differ only by the door). */
static volatile int g_door_sink;
__attribute__((noinline)) static int door_call(const nd_array *a)
{
    ND_PROF_OP("door", NULL, a);
    return g_door_sink;
}
__attribute__((noinline)) static int empty_call(const nd_array *a)
{
    (void)a;
    return g_door_sink;
}
static int door_run(void *p) { return door_call(((const ov_call *)p)->a); }
static int empty_run(void *p) { return empty_call(((const ov_call *)p)->a); }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Median seconds per nd_add of blocks of 50000 calls, with a profiling
 * session running (profiled) or not. */
static int time_add_blocks(ov_call *c, bool profiled, bench_stats *st)
{
    enum { BLOCK = 50000, REPS = 9 };
    double samp[REPS];
    for (int r = 0; r < REPS; r++) {
        if (profiled && nd_profiler_start(NULL) != ND_OK) return ND_ERR_INTERNAL;
        double t0 = now_s();
        for (int i = 0; i < BLOCK; i++)
            if (nd_add(&c->out, c->a, c->b) != ND_OK) return ND_ERR_INTERNAL;
        double t = (now_s() - t0) / BLOCK;
        if (profiled && nd_profiler_stop() != ND_OK) return ND_ERR_INTERNAL;
        int j = r;
        while (j > 0 && samp[j - 1] > t) samp[j] = samp[j - 1], j--;
        samp[j] = t;
    }
    memset(st, 0, sizeof *st);
    st->min = samp[0], st->max = samp[REPS - 1], st->median = samp[REPS / 2];
    st->samples = REPS, st->calls = (long)REPS * BLOCK;
    return ND_OK;
}

static int ov_run(void *p)
{
    ov_call *c = p;
    nd_array *t = NULL;
    nd_status s;
    switch (c->op) {
    case OP_ADD_OUT: return nd_add(&c->out, c->a, c->b);
    case OP_ADD_ALLOC: s = nd_add(&t, c->a, c->b); break;
    case OP_SUM_ALLOC: s = nd_sum(&t, c->a, 0, NULL, false); break;
    case OP_EMPTY: s = nd_empty(&t, ND_FLOAT32, 1, &c->n, c->dev); break;
    case OP_CUDA_MALLOC: {
#ifdef ND_WITH_CUDA
        void *m = NULL;
        if (cudaMalloc(&m, (size_t)c->n * 4) != cudaSuccess) return ND_ERR_NOMEM;
        g_sink = m;
        return cudaFree(m) == cudaSuccess ? ND_OK : ND_ERR_BACKEND;
#else
        return ND_ERR_UNSUPPORTED;
#endif
    }
    default: {
        void *m = malloc((size_t)c->n * 4);
        if (!m) return ND_ERR_NOMEM;
        g_sink = m; /* keeps the pair from being optimised away */
        free(m);
        return ND_OK;
    }
    }
    nd_release(t);
    return s;
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "overhead", c);
    int64_t n = c->p[0];
    snprintf(r.op, sizeof r.op, "%s", op_names[c->op]);
    snprintf(r.layout, sizeof r.layout, "%s", op_layouts[c->op]);
    snprintf(r.shape, sizeof r.shape, "%lld", (long long)n);
    ov_call call = {.op = c->op, .n = n, .dev = c->dev};
    double *host[2] = {NULL, NULL};
    int s = ND_OK;
    switch (c->op) {
    case OP_ADD_OUT: case OP_ADD_ALLOC: case OP_SUM_ALLOC: case OP_ADD_PROF: {
        snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\"}",
                 c->op == OP_ADD_OUT || c->op == OP_ADD_PROF ? "add" : c->op == OP_ADD_ALLOC ? "add_alloc" : "sum_alloc");
        r.ninputs = c->op == OP_SUM_ALLOC ? 1 : 2;
        for (int k = 0; k < r.ninputs && s == ND_OK; k++) {
            bench_input *in = &r.inputs[k];
            in->dtype = ND_FLOAT32, in->ndim = 1, in->shape[0] = n, in->seed = (uint64_t)(41 + k);
            in->lo = 0.5, in->hi = 1.5;
            s = bench_input_make(in, c->dev, k ? &call.b : &call.a, &host[k]);
            if (s != ND_OK) bench_fail_nd(&r, "creating the inputs", s);
        }
        if (s != ND_OK) break;
        /* check once: the allocating form gives the result */
        s = c->op == OP_SUM_ALLOC ? nd_sum(&call.out, call.a, 0, NULL, false) : nd_add(&call.out, call.a, call.b);
        if (s != ND_OK) {
            bench_fail_nd(&r, c->op == OP_SUM_ALLOC ? "nd_sum" : "nd_add", s);
            break;
        }
        double *got = bench_fetch(call.out, &r);
        if (!got) break;
        int64_t nres = nd_size(call.out);
        double ref[100], sum = 0;
        for (int64_t i = 0; i < n; i++) {
            if (c->op == OP_SUM_ALLOC) sum += host[0][i];
            else ref[i] = (double)(float)(host[0][i] + host[1][i]);
        }
        if (c->op == OP_SUM_ALLOC) ref[0] = (double)(float)sum;
        int64_t nexp = c->op == OP_SUM_ALLOC ? 1 : n;
        if (nres != nexp) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "result has %lld elements, expected %lld", (long long)nres,
                     (long long)nexp);
        } else if (bench_check_close(&r, got, ref, nres, c->op == OP_SUM_ALLOC ? 1e-6 : 1.2e-7, 0)) {
            bench_checksum(got, nres, r.checksum);
            r.has_checksum = true;
        }
        free(got);
        break;
    }
    case OP_EMPTY: {
        snprintf(r.call, sizeof r.call, "{\"fn\": \"empty\", \"n\": %lld, \"dtype\": \"float32\"}", (long long)n);
        s = nd_empty(&call.out, ND_FLOAT32, 1, &n, c->dev);
        if (s != ND_OK) bench_fail_nd(&r, "nd_empty", s);
        else if (nd_size(call.out) != n || nd_nbytes(call.out) != (size_t)n * 4 || !nd_data(call.out)) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "nd_empty gave a wrong size or no data pointer");
        }
        break;
    }
    case OP_DOOR: {
        snprintf(r.note, sizeof r.note, "(no NumPy twin)");
        bench_stats empty;
        s = nd_empty(&call.a, ND_FLOAT32, 1, &n, c->dev);
        if (s == ND_OK) s = bench_measure(empty_run, &call, c->dev, &empty);
        if (s == ND_OK) s = bench_measure(door_run, &call, c->dev, &r.st);
        if (s != ND_OK) {
            bench_fail_nd(&r, "the door", s);
        } else {
            bench_extra_append(&r, "\"empty_call_s\": %.6g, \"door_cost_s\": %.6g", empty.median,
                               r.st.median - empty.median);
            size_t len = strlen(r.note);
            snprintf(r.note + len, sizeof r.note - len, " door %+.2f ns", 1e9 * (r.st.median - empty.median));
        }
        bench_emit(&r);
        nd_release(call.a);
        return;
    }
    default: /* raw malloc+free / cudaMalloc+cudaFree */
        snprintf(r.note, sizeof r.note, "(%s)", c->op == OP_MALLOC ? "ceiling" : "raw reference");
        snprintf(r.extra, sizeof r.extra, "\"ceiling\": true");
        break;
    }
    free(host[0]), free(host[1]);
    if (c->op == OP_ADD_PROF && r.status == BS_OK) {
        bench_stats off;
        if ((s = time_add_blocks(&call, false, &off)) != ND_OK || (s = time_add_blocks(&call, true, &r.st)) != ND_OK) {
            bench_fail_nd(&r, "nd_add under the profiler", s);
        } else {
            bench_extra_append(&r, "\"unprofiled_s\": %.6g, \"profiler_cost_s\": %.6g", off.median,
                               r.st.median - off.median);
            snprintf(r.note, sizeof r.note, "profiler %+.0f ns/op", 1e9 * (r.st.median - off.median));
        }
    } else if (r.status == BS_OK && (s = bench_measure(ov_run, &call, c->dev, &r.st)) != ND_OK) {
        bench_fail_nd(&r, op_names[c->op], s);
    }
    bench_emit(&r);
    nd_release(call.a), nd_release(call.b), nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_overhead",
               "Per-call overhead of tiny ops: nd_add into an existing out and allocating, nd_sum allocating\n"
               "(n = 1, 100 float32), nd_empty + nd_release (n = 1, 100, 1e6) against raw malloc + free\n"
               "(CPU) and raw cudaMalloc + cudaFree (GPU).");
    static const int64_t tiny[] = {1, 100};
    static const int64_t alloc_sizes[] = {1, 100, 1000000};
    for (int d = 0; d < bench_num_devices(); d++) {
        nd_device dev = bench_device(d);
        for (int op = 0; op < NOPS; op++) {
            if (op == OP_MALLOC && dev.type != ND_DEVICE_CPU) continue;
            if (op == OP_CUDA_MALLOC && dev.type != ND_DEVICE_CUDA) continue;
            if ((op == OP_DOOR || op == OP_ADD_PROF) && dev.type != ND_DEVICE_CPU) continue;
            bool is_alloc = op == OP_EMPTY || op == OP_MALLOC || op == OP_CUDA_MALLOC;
            int nsz = is_alloc ? 3 : op == OP_DOOR ? 1 : 2;
            for (int i = 0; i < nsz; i++) {
                bench_case c = {.op = op, .dtype = ND_FLOAT32, .dev = dev};
                c.p[0] = is_alloc ? alloc_sizes[i] : tiny[i];
                snprintf(c.key, sizeof c.key, "%s/float32/%lld/%s/%s", op_names[op], (long long)c.p[0],
                         op_layouts[op], bench_dev_name(dev));
                bench_add_case(&c);
            }
        }
    }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_progress(i, bench_get_case(i));
        run_case(bench_get_case(i));
    }
    return bench_finish();
}
