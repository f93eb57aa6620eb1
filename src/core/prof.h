/*
 * The profiler's door into the library (src/core/profiler.c records and
 * hands finished sessions to the writers of src/prof/: tables, traces).
 * Public API: include/ndgpu/profiler.h.
 *
 * Every public operation opens ONE scope at the very top of its body,
 * before any other statement (a goto must never jump past it):
 *
 *     nd_status nd_binary(nd_array **out, nd_binary_op op, const nd_array *a, const nd_array *b)
 *     {
 *         ND_PROF_OP(nd_binary_op_name(op), out, a, b);
 *         ...
 *
 * and the scope closes itself on every return (the cleanup attribute of
 * gcc and clang). While no session runs, that is one relaxed load and a
 * predictable branch at entry and a branch on a local at exit (bench_overhead
 * measures it); the name expression and the input list are not evaluated.
 * While a session runs, the scope records an event when it closes: name,
 * inputs (dtypes, shapes when asked), the result (*out, read at close:
 * dtype and bytes), host time, device time around the op on the device's
 * current stream, bytes and FLOPs.
 *
 * Variants:
 *   ND_PROF_OP(name, out, in0, in1, ...)  device of the first non-NULL input
 *   ND_PROF_OP_N(name, out, n, arrays)     inputs from an array list (concatenate)
 *   ND_PROF_OP_ON(name, out, dev)          no array inputs (creation: zeros, arange)
 * out is an nd_array ** (NULL when the op gives no array); inputs are
 * const nd_array * (NULL ones are skipped). Wrappers that only forward to
 * another public op (nd_add -> nd_binary) open no scope of their own, or
 * the op would appear twice.
 *
 * After the scope is open (all no-ops while not recording):
 *   ND_PROF_BYTES(b)         the bytes the op moved, replacing the estimate
 *                            (sum of input and output nbytes); views give 0
 *   ND_PROF_FLOPS(f)         floating-point operations (matmul: 2*m*n*k*batch)
 *   ND_PROF_TRANSFER(name, bytes, dev)  the op is a transfer named "copy_h2d",
 *                            "copy_d2h", "copy_d2d" or "copy_h2h" of bytes
 *                            bytes, timed on dev (the GPU side of the copy)
 *   ND_PROF_DEVICE(dev)      the op runs on dev (when no input says so)
 *
 * An op whose inputs are all NULL and that names no device when it opens
 * (stream/event synchronize, empty_pinned, from_dlpack: they set it with
 * ND_PROF_DEVICE) is recorded whatever cfg.cpu / cfg.cuda say.
 *
 * A call that fails still records its one event: the op's name, the
 * non-NULL inputs it was given, out_dtype -1 (or the dtype of a given
 * *out, which stays untouched), bytes estimated from those arrays. A
 * transfer that fails before its direction is known stays an
 * ND_PROFILER_OP under its function name (to_device, copy_to_host, ...);
 * an invalid op enum is named "unary", "binary" or "reduce". Recording
 * never reads a NULL input or out (tests/test_profiler_ops.c, failed_op).
 *
 * The hottest ops (nd_add and the other named wrappers, nd_unary/binary,
 * the reductions) open their scope in a cold copy of themselves
 * (ND_PRH_HOT, src/core/prof_hooks.h), so that while no session runs they stay a
 * load, a branch and a tail call.
 */
#ifndef ND_PROF_H
#define ND_PROF_H
#include "core/internal.h"

#ifdef __cplusplus
#error "src/core/prof.h is for the C core only"
#endif

/* 1 while a session runs (src/core/profiler.c). */
extern ND_INTERNAL atomic_int nd__prof_on;
/* 1 while a session with profile_memory runs. */
extern ND_INTERNAL atomic_int nd__prof_mem_on;

/* A scope on the C stack of the profiled function; 0 = not recording. */
typedef struct nd_prof_scope {
    int frame; /* 1 + index of the frame on this thread's profiler stack, 0: none */
} nd_prof_scope;

ND_INTERNAL void nd__prof_begin(nd_prof_scope *s, const char *name, nd_array **out, int n,
                                const nd_array *const *ins, const nd_device *dev);
ND_INTERNAL void nd__prof_end(nd_prof_scope *s);
enum { ND_PROF_SET_BYTES, ND_PROF_SET_FLOPS };
ND_INTERNAL void nd__prof_set(nd_prof_scope *s, int what, int64_t v);
ND_INTERNAL void nd__prof_transfer(nd_prof_scope *s, const char *name, int64_t bytes, nd_device dev);
ND_INTERNAL void nd__prof_device(nd_prof_scope *s, nd_device dev);
/* An array buffer of nbytes was allocated (delta > 0) or freed (< 0) on dev
 * (src/core/array.c; only while nd__prof_mem_on). */
ND_INTERNAL void nd__prof_mem(nd_device dev, int64_t delta);

static inline void nd__prof_scope_close(nd_prof_scope *s)
{
    if (ND_UNLIKELY(s->frame)) nd__prof_end(s);
}
static inline bool nd__prof_running(void) { return atomic_load_explicit(&nd__prof_on, memory_order_relaxed) != 0; }

#define ND__PROF_SCOPE nd_prof_scope nd__ps __attribute__((cleanup(nd__prof_scope_close))) = {0}
#define ND__PROF_NINS(...) ((int)(sizeof((const nd_array *const[]){__VA_ARGS__}) / sizeof(const nd_array *)))

#define ND_PROF_OP(name, out, ...)                                                                   \
    ND__PROF_SCOPE;                                                                                  \
    if (ND_UNLIKELY(nd__prof_running()))                                                             \
    nd__prof_begin(&nd__ps, (name), (out), ND__PROF_NINS(__VA_ARGS__), (const nd_array *const[]){__VA_ARGS__}, NULL)
#define ND_PROF_OP_N(name, out, n, arrays)                                                           \
    ND__PROF_SCOPE;                                                                                  \
    if (ND_UNLIKELY(nd__prof_running())) nd__prof_begin(&nd__ps, (name), (out), (n), (arrays), NULL)
#define ND_PROF_OP_ON(name, out, dev)                                                                \
    ND__PROF_SCOPE;                                                                                  \
    if (ND_UNLIKELY(nd__prof_running())) nd__prof_begin(&nd__ps, (name), (out), 0, NULL, (const nd_device[]){(dev)})

#define ND_PROF_BYTES(b) do { if (ND_UNLIKELY(nd__ps.frame)) nd__prof_set(&nd__ps, ND_PROF_SET_BYTES, (int64_t)(b)); } while (0)
/* f is computed in double (products of extents can pass 2^63) and saturates. */
#define ND_PROF_FLOPS(f) \
    do { if (ND_UNLIKELY(nd__ps.frame)) nd__prof_set(&nd__ps, ND_PROF_SET_FLOPS, nd__prof_sat((double)(f))); } while (0)
static inline int64_t nd__prof_sat(double f) { return f >= 9.2e18 ? INT64_MAX : f > 0 ? (int64_t)f : 0; }
#define ND_PROF_TRANSFER(name, bytes, dev) \
    do { if (ND_UNLIKELY(nd__ps.frame)) nd__prof_transfer(&nd__ps, (name), (int64_t)(bytes), (dev)); } while (0)
#define ND_PROF_DEVICE(dev) do { if (ND_UNLIKELY(nd__ps.frame)) nd__prof_device(&nd__ps, (dev)); } while (0)

/* ------------------------------------------------------------------ */
/* The finished session, for the reports (src/prof/report.c)           */
/* ------------------------------------------------------------------ */
typedef struct nd_prof_result {
    nd_profiler_event *ev; /* ordered by host_start_ns, the outer event first on ties */
    size_t n;
    nd_profiler_stats stats;
    nd_profiler_config cfg;
    int64_t start_unix_ns;  /* wall clock at the session's start (trace metadata) */
    int nthreads;
    const long *thread_os_id; /* [nthreads]: the OS thread id (gettid) of each thread index */
    uint64_t serial;          /* the session's number, from 1 (0: a synthetic result) */
} nd_prof_result;

/* nd_profiler_start; query_devices false touches no GPU runtime (a session
 * started before main by ND_PROFILE). */
ND_INTERNAL nd_status nd__prof_start(const nd_profiler_config *cfg, bool query_devices);
/* The finished session for a public function: ND_ERR_INVALID when none. */
ND_INTERNAL nd_status nd__prof_need_last(const char *func, const nd_prof_result **r);
/* The last finished session, NULL while one runs or before the first. */
ND_INTERNAL const nd_prof_result *nd__prof_last(void);
/* Drop the reports' interned strings now (tests with synthetic results). */
ND_INTERNAL void nd__prof_report_reset(void);
/* Report functions on a given result (the public ones pass nd__prof_last();
 * tests pass synthetic results). Same contracts as the public functions. */
ND_INTERNAL nd_status nd__prof_key_averages(const nd_prof_result *r, nd_profiler_row *rows, size_t cap,
                                            size_t *nrows, const nd_profiler_table_options *opt);
ND_INTERNAL nd_status nd__prof_table(const nd_prof_result *r, char *buf, size_t size, size_t *needed,
                                     const nd_profiler_table_options *opt);
ND_INTERNAL nd_status nd__prof_print_table(const nd_prof_result *r, FILE *f, const nd_profiler_table_options *opt);
ND_INTERNAL nd_status nd__prof_chrome_trace(const nd_prof_result *r, const char *path);
ND_INTERNAL nd_status nd__prof_json(const nd_prof_result *r, const char *path, const nd_profiler_table_options *opt);

/* The writers above as the core calls them (the public report functions
 * and ND_PROFILE's trace at exit, src/core/profiler.c): a table in the
 * registry (src/core/registry.c), the one door from the base to code above
 * it, as the backends' descriptors are. */
typedef struct nd_prof_writers {
    nd_status (*key_averages)(const nd_prof_result *r, nd_profiler_row *rows, size_t cap, size_t *nrows,
                              const nd_profiler_table_options *opt);
    nd_status (*table)(const nd_prof_result *r, char *buf, size_t size, size_t *needed,
                       const nd_profiler_table_options *opt);
    nd_status (*print_table)(const nd_prof_result *r, FILE *f, const nd_profiler_table_options *opt);
    nd_status (*chrome_trace)(const nd_prof_result *r, const char *path);
    nd_status (*json)(const nd_prof_result *r, const char *path, const nd_profiler_table_options *opt);
} nd_prof_writers;
ND_INTERNAL extern const nd_prof_writers nd__prof_writers;

#endif /* ND_PROF_H */
