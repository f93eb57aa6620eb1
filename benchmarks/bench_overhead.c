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
 *    profiler_cost_s is what recording one op costs.
 *
 * Run-time compiled kernels (include/ndgpu/kernel.h):
 *  - "kernel" layout "out" (every device): nd_kernel_call of "z = x + y"
 *    into an existing out (n = 1, 100), compiled and cached before timing,
 *    against nd_add into an out in the same case: extra_s is what the
 *    kernel call costs beyond the library's own op (on a GPU: the launch
 *    through the rtc slots against the backend's own kernel);
 *  - "kernel compile" layout "first,disk-hit" (CPU): the first call of a kernel
 *    no cache has seen (a new body each sample, a fresh cache directory),
 *    in a forked child, so that the parent's in-process cache stays empty;
 *    then, in another child, the first call of that same kernel, which
 *    loads it from the disk cache: disk_hit_s (what a new process pays).
 *
 * Graphs (nd_graph_*), every device: "graph step" layout "replay" (n = 1,
 * 100): a step of 20 tiny ops (add, multiply, tanh, subtract, negative,
 * each on the previous result) captured once and replayed with
 * nd_graph_launch, against the same 20 ops issued one by one as a program
 * writes them (each result allocated, all released at the end:
 * eager_alloc_s) and into existing outputs (eager_out_s); speedup =
 * eager_alloc_s / replay. The replay's last result is checked bit for bit
 * against the eager one.
 *
 * Pool kinds, GPU only: "empty+release" layout "async" (n = 1, 100, 1e6):
 * nd_empty + nd_release served by CUDA's stream-ordered pool
 * (nd_memory_set_pool ND_POOL_KIND_ASYNC), against the caching pool in the
 * same case (caching_s; vs_caching = async / caching). */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef ND_WITH_CUDA
#include <cuda_runtime.h>
#endif
#include "core/prof.h" /* the profiler's door, for the door-cost case */

enum { OP_ADD_OUT, OP_ADD_ALLOC, OP_SUM_ALLOC, OP_EMPTY, OP_MALLOC, OP_CUDA_MALLOC, OP_DOOR, OP_ADD_PROF,
       OP_KERNEL_OUT, OP_KERNEL_COMPILE, OP_GRAPH, OP_EMPTY_ASYNC, NOPS };
static const char *const op_names[NOPS] = {"add", "add", "sum", "empty+release", "malloc+free", "cudaMalloc+cudaFree",
                                           "profiler door (off)", "add", "kernel", "kernel compile", "graph step",
                                           "empty+release"};
static const char *const op_layouts[NOPS] = {"out", "alloc", "alloc", "alloc", "raw", "raw", "raw", "out,profiled",
                                             "out", "first,disk-hit", "replay", "async"};
#define GRAPH_OPS 20


typedef struct ov_call {
    int op;
    nd_array *a, *b, *out;
    int64_t n;
    nd_device dev;
    nd_kernel *k;
    nd_array *t[GRAPH_OPS]; /* the graph step's results */
    nd_graph *g;
    nd_stream *s;
    bool step_out; /* the step into the existing t[] (else allocating, released after) */
} ov_call;

/* The graph step: 20 tiny ops, each on the previous result. */
static nd_status graph_step(ov_call *c)
{
    nd_status st = ND_OK;
    for (int i = 0; i < GRAPH_OPS && st == ND_OK; i++) {
        const nd_array *prev = i ? c->t[i - 1] : c->a;
        switch (i % 5) {
        case 0: st = nd_add(&c->t[i], prev, c->a); break;
        case 1: st = nd_multiply(&c->t[i], prev, c->b); break;
        case 2: st = nd_tanh(&c->t[i], prev); break;
        case 3: st = nd_subtract(&c->t[i], prev, c->b); break;
        default: st = nd_negative(&c->t[i], prev); break;
        }
    }
    if (!c->step_out)
        for (int i = 0; i < GRAPH_OPS; i++) {
            nd_release(c->t[i]);
            c->t[i] = NULL;
        }
    return st;
}

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
    case OP_KERNEL_OUT: return nd_kernel_call(c->k, 2, (const nd_array *const[]){c->a, c->b}, 1, &c->out);
    case OP_GRAPH: return c->g ? nd_graph_launch(c->g, c->s) : graph_step(c);
    case OP_EMPTY_ASYNC: s = nd_empty(&t, ND_FLOAT32, 1, &c->n, c->dev); break;
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

/* Seconds of the first call of a new kernel with body in a forked child
 * (its compilation, or its load from the disk cache), or < 0. */
static double first_call_in_child(const char *body)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    const pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        double t = -1;
        nd_kernel *k = NULL;
        nd_array *x = NULL, *z = NULL;
        const int64_t n = 100;
        if (nd_ones(&x, ND_FLOAT32, 1, &n, nd_cpu()) == ND_OK &&
            nd_kernel_elementwise(&k, "T x", "T z", body, "bench_compile", NULL) == ND_OK) {
            const double t0 = now_s();
            if (nd_kernel_call(k, 1, (const nd_array *const[]){x}, 1, &z) == ND_OK) t = now_s() - t0;
        }
        _exit(write(fd[1], &t, sizeof t) == (ssize_t)sizeof t ? 0 : 1);
    }
    close(fd[1]);
    double t = -1;
    if (pid < 0 || read(fd[0], &t, sizeof t) != (ssize_t)sizeof t) t = -1;
    close(fd[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The "kernel compile" case: a fresh cache directory, new bodies. */
static void run_compile_case(bench_record *r)
{
    enum { REPS = 3 };
    char dir[] = "/tmp/ndgpu-bench-kernels-XXXXXX";
    if (!mkdtemp(dir)) {
        bench_fail_nd(r, "mkdtemp", ND_ERR_IO);
        return;
    }
    const char *old = getenv("ND_KERNEL_CACHE_DIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("ND_KERNEL_CACHE_DIR", dir, 1);
    double first[REPS], hit[REPS];
    bool ok = true;
    for (int i = 0; i < REPS && ok; i++) {
        char body[96];
        snprintf(body, sizeof body, "z = x * %d.5f + %lld", i + 2, (long long)getpid());
        first[i] = first_call_in_child(body);
        hit[i] = first_call_in_child(body);
        ok = first[i] >= 0 && hit[i] >= 0;
    }
    if (saved) setenv("ND_KERNEL_CACHE_DIR", saved, 1);
    else unsetenv("ND_KERNEL_CACHE_DIR");
    free(saved);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_overhead: could not remove %s\n", dir);
    if (!ok) {
        r->status = BS_ERROR;
        snprintf(r->message, sizeof r->message, "a kernel's first call failed (is a C compiler installed?)");
        return;
    }
    qsort(first, REPS, sizeof *first, cmp_double);
    qsort(hit, REPS, sizeof *hit, cmp_double);
    r->st.median = first[REPS / 2], r->st.min = first[0], r->st.max = first[REPS - 1];
    r->st.samples = REPS, r->st.calls = REPS;
    bench_extra_append(r, "\"disk_hit_s\": %.6g", hit[REPS / 2]);
    snprintf(r->note, sizeof r->note, "(no NumPy twin) disk hit %.2f ms", 1e3 * hit[REPS / 2]);
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
    case OP_KERNEL_COMPILE:
        run_compile_case(&r);
        bench_emit(&r);
        return;
    case OP_KERNEL_OUT: {
        snprintf(r.note, sizeof r.note, "(no NumPy twin)");
        bench_stats builtin;
        s = nd_kernel_elementwise(&call.k, "T x, T y", "T z", "z = x + y", "bench_add", NULL);
        if (s == ND_OK) s = nd_ones(&call.a, ND_FLOAT32, 1, &n, c->dev);
        if (s == ND_OK) s = nd_full(&call.b, ND_FLOAT32, 1, &n, nd_scalar_float(0.25), c->dev);
        if (s == ND_OK) s = nd_kernel_call(call.k, 2, (const nd_array *const[]){call.a, call.b}, 1, &call.out);
        if (s == ND_OK) { /* compiled and cached now; check the result once */
            float o[100];
            s = nd_copy_to_host(o, call.out, (size_t)n * sizeof(float));
            for (int64_t i = 0; s == ND_OK && i < n; i++)
                if (o[i] != 1.25f) {
                    r.status = BS_WRONG;
                    snprintf(r.message, sizeof r.message, "kernel result %g at %lld, expected 1.25", o[i], (long long)i);
                    break;
                }
        }
        call.op = OP_ADD_OUT;
        if (s == ND_OK && r.status == BS_OK) s = bench_measure(ov_run, &call, c->dev, &builtin);
        call.op = OP_KERNEL_OUT;
        if (s == ND_OK && r.status == BS_OK) s = bench_measure(ov_run, &call, c->dev, &r.st);
        if (s != ND_OK) {
            bench_fail_nd(&r, "nd_kernel_call", s);
        } else if (r.status == BS_OK) {
            bench_extra_append(&r, "\"builtin_s\": %.6g, \"extra_s\": %.6g", builtin.median, r.st.median - builtin.median);
            size_t len = strlen(r.note);
            snprintf(r.note + len, sizeof r.note - len, " %+.0f ns vs nd_add", 1e9 * (r.st.median - builtin.median));
        }
        bench_emit(&r);
        nd_release(call.a), nd_release(call.b), nd_release(call.out);
        nd_kernel_release(call.k);
        return;
    }
    case OP_GRAPH: {
        snprintf(r.note, sizeof r.note, "(no NumPy twin)");
        snprintf(r.call, sizeof r.call, "{\"fn\": \"graph_step\", \"ops\": %d}", GRAPH_OPS);
        bench_stats eager_alloc, eager_out;
        float got[100], want[100];
        nd_array *g_last = NULL;
        s = nd_full(&call.a, ND_FLOAT32, 1, &n, nd_scalar_float(0.75), c->dev);
        if (s == ND_OK) s = nd_full(&call.b, ND_FLOAT32, 1, &n, nd_scalar_float(0.5), c->dev);
        if (s == ND_OK) s = nd_stream_create(&call.s, c->dev);
        /* eager, allocating (what a program writes), then into outputs */
        if (s == ND_OK) s = bench_measure(ov_run, &call, c->dev, &eager_alloc);
        call.step_out = true;
        if (s == ND_OK) s = graph_step(&call); /* makes t[] */
        if (s == ND_OK) s = bench_measure(ov_run, &call, c->dev, &eager_out);
        if (s == ND_OK) s = nd_copy_to_host(want, call.t[GRAPH_OPS - 1], (size_t)n * sizeof(float));
        for (int i = 0; i < GRAPH_OPS; i++) nd_release(call.t[i]), call.t[i] = NULL;
        /* the allocating step captured once, replayed */
        call.step_out = false;
        if (s == ND_OK && (s = nd_graph_begin(call.s)) == ND_OK) {
            call.step_out = true; /* keep the results: the graph rewrites them */
            nd_status s1 = graph_step(&call);
            s = nd_graph_end(&call.g);
            if (s1 != ND_OK) s = s1;
        }
        if (s == ND_OK) s = bench_measure(ov_run, &call, c->dev, &r.st);
        if (s == ND_OK) s = nd_stream_synchronize(call.s);
        if (s == ND_OK) g_last = call.t[GRAPH_OPS - 1];
        if (s == ND_OK) s = nd_copy_to_host(got, g_last, (size_t)n * sizeof(float));
        if (s != ND_OK) {
            bench_fail_nd(&r, "the graph step", s);
        } else if (memcmp(got, want, (size_t)n * sizeof(float)) != 0) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "the replayed step differs from the eager one (%g vs %g)", got[0],
                     want[0]);
        } else {
            double gd[100];
            for (int64_t i = 0; i < n; i++) gd[i] = (double)got[i];
            bench_checksum(gd, n, r.checksum); /* of the replayed step's last result */
            r.has_checksum = true;
            bench_extra_append(&r, "\"eager_alloc_s\": %.6g, \"eager_out_s\": %.6g, \"speedup\": %.4g, \"graph_nodes\": %lld",
                               eager_alloc.median, eager_out.median, eager_alloc.median / r.st.median,
                               (long long)nd_graph_size(call.g));
            size_t len = strlen(r.note);
            snprintf(r.note + len, sizeof r.note - len, " replay %.2fx eager (%.2fx vs into outs)",
                     eager_alloc.median / r.st.median, eager_out.median / r.st.median);
        }
        bench_emit(&r);
        nd_graph_destroy(call.g);
        for (int i = 0; i < GRAPH_OPS; i++) nd_release(call.t[i]);
        nd_stream_destroy(call.s);
        nd_release(call.a), nd_release(call.b);
        return;
    }
    case OP_EMPTY_ASYNC: {
        snprintf(r.note, sizeof r.note, "(no NumPy twin)");
        snprintf(r.call, sizeof r.call, "{\"fn\": \"empty\", \"n\": %lld, \"pool\": \"async\"}", (long long)n);
        bench_stats caching;
        s = nd_synchronize(c->dev);
        if (s == ND_OK) s = nd_memory_set_pool(c->dev, ND_POOL_KIND_ASYNC);
        if (s == ND_OK) s = bench_measure(ov_run, &call, c->dev, &r.st);
        nd_status s2 = nd_memory_set_pool(c->dev, ND_POOL_KIND_CACHING);
        if (s == ND_OK) s = s2;
        if (s == ND_OK) s = bench_measure(ov_run, &call, c->dev, &caching);
        if (s != ND_OK) {
            bench_fail_nd(&r, "the async pool", s);
        } else {
            bench_extra_append(&r, "\"caching_s\": %.6g, \"vs_caching\": %.4g", caching.median,
                               r.st.median / caching.median);
            size_t len = strlen(r.note);
            snprintf(r.note + len, sizeof r.note - len, " %.2fx the caching pool", r.st.median / caching.median);
        }
        bench_emit(&r);
        return;
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
               "(CPU) and raw cudaMalloc + cudaFree (GPU), the async pool against the caching one (GPU),\n"
               "and a 20-op step of tiny ops replayed from a graph against issuing it.");
    static const int64_t tiny[] = {1, 100};
    static const int64_t alloc_sizes[] = {1, 100, 1000000};
    for (int d = 0; d < bench_num_devices(); d++) {
        nd_device dev = bench_device(d);
        for (int op = 0; op < NOPS; op++) {
            if (op == OP_MALLOC && dev.type != ND_DEVICE_CPU) continue;
            if ((op == OP_CUDA_MALLOC || op == OP_EMPTY_ASYNC) && dev.type != ND_DEVICE_CUDA) continue;
            if ((op == OP_DOOR || op == OP_ADD_PROF || op == OP_KERNEL_COMPILE) &&
                dev.type != ND_DEVICE_CPU)
                continue;
            bool is_alloc = op == OP_EMPTY || op == OP_MALLOC || op == OP_CUDA_MALLOC || op == OP_EMPTY_ASYNC;
            int nsz = is_alloc ? 3 : op == OP_DOOR || op == OP_KERNEL_COMPILE ? 1 : 2;
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
