/* The profiler's recording core (src/core/profiler.c): sessions, scopes,
 * nesting and self times, shapes, bytes, transfers, memory events, user
 * ranges (balance, limits, unclosed at stop), NVTX emission in CUDA builds,
 * four threads at once, the event bound, device timing on cuda:0 (the
 * emulated GPU in the emu build). The scopes are opened here by fake ops
 * through the same door the library's ops use (src/core/prof.h), so these cases
 * do not depend on which public functions are hooked; the hooks of the
 * real ops are tested in tests/test_profiler_ops.c. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/prof.h"
#include "test_util.h"

static void fresh(void)
{
    if (nd_profiler_is_running()) (void)nd_profiler_stop();
}

static nd_status start_with(bool shapes, bool memory, int64_t max_events)
{
    nd_profiler_config c;
    nd_profiler_config_init(&c);
    c.record_shapes = shapes;
    c.profile_memory = memory;
    if (max_events) c.max_events = max_events;
    return nd_profiler_start(&c);
}

static const nd_profiler_event *events(size_t *n)
{
    const nd_profiler_event *ev = NULL;
    ND_OK_OR_FAIL(nd_profiler_events(&ev, n));
    return ev;
}

/* A fake op: one scope, an optional child op, a result allocated inside. */
static nd_status fake_child(const nd_array *a)
{
    ND_PROF_OP("fake_child", NULL, a);
    volatile double x = 0;
    for (int i = 0; i < 20000; i++) x += i * 0.5; /* some host time */
    return ND_OK;
}

static nd_status fake_op(nd_array **out, const nd_array *a, const nd_array *b, bool child)
{
    ND_PROF_OP("fake", out, a, b);
    if (child) fake_child(a);
    return nd__alloc(out, a->dtype, a->ndim, a->shape, a->device);
}

static nd_status fake_transfer(int64_t bytes)
{
    ND_PROF_OP_ON("to_device", NULL, ((nd_device){ND_DEVICE_CPU, 0}));
    ND_PROF_TRANSFER("copy_h2h", bytes, nd_cpu());
    ND_PROF_FLOPS(7);
    return ND_OK;
}

static nd_array *arr(nd_dtype t, int ndim, const int64_t *shape, nd_device dev)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, t, ndim, shape, nd_scalar_float(1.5), dev));
    return a;
}

START_TEST(session_errors)
{
    fresh();
    ND_EXPECT_ERR(nd_profiler_stop(), ND_ERR_INVALID, "no profiling session is running");
    ND_EXPECT_ERR(start_with(false, false, -5), ND_ERR_INVALID, "max_events");
    ND_OK_OR_FAIL(nd_profiler_start(NULL));
    ck_assert(nd_profiler_is_running());
    ND_EXPECT_ERR(nd_profiler_start(NULL), ND_ERR_INVALID, "already running");
    const nd_profiler_event *ev;
    size_t n;
    ND_EXPECT_ERR(nd_profiler_events(&ev, &n), ND_ERR_INVALID, "still running");
    ND_EXPECT_ERR(nd_profiler_events(NULL, &n), ND_ERR_INVALID, "events");
    nd_profiler_stats s;
    ND_OK_OR_FAIL(nd_profiler_get_stats(&s));
    ND_EXPECT_ERR(nd_profiler_get_stats(NULL), ND_ERR_INVALID, "stats");
    ND_OK_OR_FAIL(nd_profiler_stop());
    ck_assert(!nd_profiler_is_running());
    nd_profiler_config c;
    nd_profiler_config_init(&c);
    ck_assert(!c.record_shapes && !c.profile_memory && c.cpu && c.cuda && c.max_events == (1 << 19));
}
END_TEST

START_TEST(disabled_records_nothing)
{
    fresh();
    int64_t sh[2] = {3, 4};
    nd_array *a = arr(ND_FLOAT32, 2, sh, nd_cpu()), *o = NULL;
    /* before any session: scopes open nothing */
    ND_OK_OR_FAIL(fake_op(&o, a, a, true));
    nd_release(o);
    o = NULL;
    ND_OK_OR_FAIL(nd_profiler_start(NULL));
    ND_OK_OR_FAIL(nd_profiler_stop());
    size_t n = 99;
    events(&n);
    ck_assert_uint_eq(n, 0);
    /* after stop: still nothing */
    ND_OK_OR_FAIL(fake_op(&o, a, a, true));
    nd_release(o);
    events(&n);
    ck_assert_uint_eq(n, 0);
    nd_profiler_stats s;
    ND_OK_OR_FAIL(nd_profiler_get_stats(&s));
    ck_assert_int_eq(s.events, 0);
    ck_assert_int_eq(s.dropped, 0);
    nd_release(a);
}
END_TEST

START_TEST(op_fields_and_nesting)
{
    fresh();
    int64_t sa[2] = {3, 4}, sb[1] = {4};
    nd_array *a = arr(ND_FLOAT32, 2, sa, nd_cpu()), *b = arr(ND_FLOAT64, 1, sb, nd_cpu()), *o = NULL;
    for (int shapes = 0; shapes < 2; shapes++) {
        ND_OK_OR_FAIL(start_with(shapes, false, 0));
        ND_OK_OR_FAIL(fake_op(&o, a, b, true));
        ND_OK_OR_FAIL(fake_transfer(1000));
        ND_OK_OR_FAIL(nd_profiler_stop());
        size_t n;
        const nd_profiler_event *ev = events(&n);
        ck_assert_uint_eq(n, 3);
        /* ordered by start: fake, its child, the transfer */
        ck_assert_str_eq(ev[0].name, "fake");
        ck_assert_int_eq(ev[0].kind, ND_PROFILER_OP);
        ck_assert_int_eq(ev[0].depth, 0);
        ck_assert_int_eq(ev[0].parent, -1);
        ck_assert_int_eq(ev[0].ninputs, 2);
        ck_assert_int_eq(ev[0].dtypes[0], ND_FLOAT32);
        ck_assert_int_eq(ev[0].dtypes[1], ND_FLOAT64);
        ck_assert_int_eq(ev[0].out_dtype, ND_FLOAT32);
        ck_assert_int_eq(ev[0].bytes, 48 + 32 + 48); /* inputs' nbytes + the result's */
        ck_assert_int_eq(ev[0].device.type, ND_DEVICE_CPU);
        ck_assert_int_eq(ev[0].device_ns, -1);
        ck_assert_int_eq(ev[0].stream, 0);
        if (shapes) {
            ck_assert_int_eq(ev[0].ndims[0], 2);
            ck_assert_int_eq(ev[0].shapes[0][0], 3);
            ck_assert_int_eq(ev[0].shapes[0][1], 4);
            ck_assert_int_eq(ev[0].ndims[1], 1);
            ck_assert_int_eq(ev[0].shapes[1][0], 4);
        } else {
            ck_assert_int_eq(ev[0].ndims[0], 0);
            ck_assert_ptr_null(ev[0].shapes[0]);
        }
        ck_assert_str_eq(ev[1].name, "fake_child");
        ck_assert_int_eq(ev[1].depth, 1);
        ck_assert_int_eq(ev[1].parent, 0);
        ck_assert_int_eq(ev[1].out_dtype, -1);
        ck_assert_int_eq(ev[1].bytes, 48);
        ck_assert_int_ge(ev[1].host_start_ns, ev[0].host_start_ns);
        ck_assert_int_le(ev[1].host_start_ns + ev[1].host_ns, ev[0].host_start_ns + ev[0].host_ns);
        ck_assert_int_gt(ev[1].host_ns, 0);
        ck_assert_int_eq(ev[1].host_self_ns, ev[1].host_ns);
        ck_assert_int_eq(ev[0].host_self_ns, ev[0].host_ns - ev[1].host_ns);
        ck_assert_str_eq(ev[2].name, "copy_h2h");
        ck_assert_int_eq(ev[2].kind, ND_PROFILER_TRANSFER);
        ck_assert_int_eq(ev[2].bytes, 1000);
        ck_assert_int_eq(ev[2].flops, 7);
        ck_assert_int_eq(ev[2].ninputs, 0);
        ck_assert_int_ge(ev[2].host_start_ns, ev[0].host_start_ns + ev[0].host_ns);
        nd_profiler_stats s;
        ND_OK_OR_FAIL(nd_profiler_get_stats(&s));
        ck_assert_int_eq(s.events, 3);
        ck_assert_int_eq(s.threads, 1);
        ck_assert_int_ge(s.duration_ns, ev[2].host_start_ns + ev[2].host_ns);
        nd_release(o);
        o = NULL;
    }
    nd_release(a);
    nd_release(b);
}
END_TEST

START_TEST(device_filter)
{
    fresh();
    int64_t sa[1] = {8};
    nd_array *a = arr(ND_INT32, 1, sa, nd_cpu()), *o = NULL;
    nd_profiler_config c;
    nd_profiler_config_init(&c);
    c.cpu = false;
    ND_OK_OR_FAIL(nd_profiler_start(&c));
    ND_OK_OR_FAIL(fake_op(&o, a, NULL, false));
    ND_OK_OR_FAIL(nd_profiler_stop());
    size_t n;
    events(&n);
    ck_assert_uint_eq(n, 0); /* CPU ops left out */
    nd_release(o);
    nd_release(a);
}
END_TEST

START_TEST(memory_events_balance)
{
    fresh();
    int64_t sh[1] = {1000};
    nd_array *a = arr(ND_FLOAT64, 1, sh, nd_cpu());
    nd_array *o = NULL;
    ND_OK_OR_FAIL(start_with(false, true, 0));
    ND_OK_OR_FAIL(fake_op(&o, a, NULL, false)); /* allocates 8000 bytes inside the op */
    nd_release(o);                               /* frees them at the top level */
    nd_array *t = NULL;
    ND_OK_OR_FAIL(nd__alloc(&t, ND_INT8, 1, (int64_t[]){77}, nd_cpu()));
    nd_release(t);
    ND_OK_OR_FAIL(nd_profiler_stop());
    size_t n;
    const nd_profiler_event *ev = events(&n);
    int64_t sum = 0, allocs = 0, frees = 0, first_in_use = -1, last_in_use = -1;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind != ND_PROFILER_MEMORY) continue;
        sum += ev[i].bytes;
        ck_assert_str_eq(ev[i].name, ev[i].bytes > 0 ? "alloc" : "free");
        if (ev[i].bytes > 0) allocs++;
        else frees++;
        if (first_in_use < 0) first_in_use = ev[i].mem_in_use - ev[i].bytes;
        last_in_use = ev[i].mem_in_use;
        ck_assert_int_eq(ev[i].device.type, ND_DEVICE_CPU);
    }
    ck_assert_int_eq(allocs, 2);
    ck_assert_int_eq(frees, 2);
    ck_assert_int_eq(sum, 0); /* memory events balance to zero after release */
    ck_assert_int_eq(last_in_use, first_in_use);
    /* the op's own allocation is its self memory; the alloc nests under it */
    ck_assert_str_eq(ev[0].name, "fake");
    ck_assert_int_eq(ev[0].mem_self_bytes, 8000);
    ck_assert_str_eq(ev[1].name, "alloc");
    ck_assert_int_eq(ev[1].bytes, 8000);
    ck_assert_int_eq(ev[1].parent, 0);
    ck_assert_int_eq(ev[1].depth, 1);
    /* without profile_memory: no memory events */
    ND_OK_OR_FAIL(start_with(false, false, 0));
    ND_OK_OR_FAIL(nd__alloc(&t, ND_INT8, 1, (int64_t[]){77}, nd_cpu()));
    nd_release(t);
    ND_OK_OR_FAIL(nd_profiler_stop());
    events(&n);
    ck_assert_uint_eq(n, 0);
    nd_release(a);
}
END_TEST

START_TEST(ranges_nest_and_balance)
{
    fresh();
    /* balance is kept with or without a session */
    ND_OK_OR_FAIL(nd_range_push("outside"));
    ND_OK_OR_FAIL(nd_range_pop());
    ND_EXPECT_ERR(nd_range_pop(), ND_ERR_INVALID, "no range is open");
    ND_EXPECT_ERR(nd_range_push(NULL), ND_ERR_INVALID, "name");
    for (int i = 0; i < 64; i++) ND_OK_OR_FAIL(nd_range_push("deep"));
    ND_EXPECT_ERR(nd_range_push("one too many"), ND_ERR_INVALID, "64 ranges");
    for (int i = 0; i < 64; i++) ND_OK_OR_FAIL(nd_range_pop());
    ND_EXPECT_ERR(nd_range_pop(), ND_ERR_INVALID, "no range is open");

    int64_t sh[1] = {16};
    nd_array *a = arr(ND_FLOAT32, 1, sh, nd_cpu()), *o = NULL;
    ND_OK_OR_FAIL(nd_range_push("before the session")); /* open across start: not recorded */
    ND_OK_OR_FAIL(nd_profiler_start(NULL));
    ND_OK_OR_FAIL(nd_range_push("step \"1\"\n"));
    ND_OK_OR_FAIL(nd_range_push("forward"));
    ND_OK_OR_FAIL(fake_op(&o, a, NULL, false));
    ND_OK_OR_FAIL(nd_range_pop());
    ND_OK_OR_FAIL(nd_range_push("backward"));
    ND_OK_OR_FAIL(nd_range_pop());
    ND_OK_OR_FAIL(nd_range_pop());
    ND_OK_OR_FAIL(nd_range_pop()); /* "before the session": balanced, no event */
    ND_EXPECT_ERR(nd_range_pop(), ND_ERR_INVALID, "no range is open");
    ND_OK_OR_FAIL(nd_range_push("left open"));
    ND_OK_OR_FAIL(nd_profiler_stop());
    ND_OK_OR_FAIL(nd_range_pop()); /* still balanced after stop */
    size_t n;
    const nd_profiler_event *ev = events(&n);
    ck_assert_uint_eq(n, 5);
    ck_assert_str_eq(ev[0].name, "step \"1\"\n");
    ck_assert_int_eq(ev[0].kind, ND_PROFILER_RANGE);
    ck_assert_int_eq(ev[0].depth, 0);
    ck_assert_str_eq(ev[1].name, "forward");
    ck_assert_int_eq(ev[1].parent, 0);
    ck_assert_int_eq(ev[1].depth, 1);
    ck_assert_str_eq(ev[2].name, "fake");
    ck_assert_int_eq(ev[2].parent, 1);
    ck_assert_int_eq(ev[2].depth, 2);
    ck_assert_str_eq(ev[3].name, "backward");
    ck_assert_int_eq(ev[3].parent, 0);
    ck_assert_str_eq(ev[4].name, "left open");
    ck_assert_int_ge(ev[4].host_ns, 0);
    ck_assert_int_eq(ev[1].host_self_ns, ev[1].host_ns - ev[2].host_ns);
    ck_assert_int_eq(ev[0].host_self_ns, ev[0].host_ns - ev[1].host_ns - ev[3].host_ns);
    nd_profiler_stats s;
    ND_OK_OR_FAIL(nd_profiler_get_stats(&s));
    ck_assert_int_eq(s.unclosed_ranges, 1);
    /* a long name is cut at 255 bytes, never overflows */
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ND_OK_OR_FAIL(nd_profiler_start(NULL));
    ND_OK_OR_FAIL(nd_range_push(big));
    ND_OK_OR_FAIL(nd_range_pop());
    ND_OK_OR_FAIL(nd_profiler_stop());
    ev = events(&n);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(strlen(ev[0].name), 255);
    nd_release(o);
    nd_release(a);
}
END_TEST

START_TEST(bounded_events)
{
    fresh();
    int64_t sh[1] = {4};
    nd_array *a = arr(ND_FLOAT32, 1, sh, nd_cpu());
    ND_OK_OR_FAIL(start_with(false, false, 10));
    for (int i = 0; i < 50; i++) {
        nd_array *o = NULL;
        ND_OK_OR_FAIL(fake_op(&o, a, NULL, false));
        nd_release(o);
    }
    ND_OK_OR_FAIL(nd_profiler_stop());
    nd_profiler_stats s;
    ND_OK_OR_FAIL(nd_profiler_get_stats(&s));
    ck_assert_int_eq(s.events, 10);
    ck_assert_int_eq(s.dropped, 40);
    size_t n;
    const nd_profiler_event *ev = events(&n);
    ck_assert_uint_eq(n, 10);
    for (size_t i = 0; i < n; i++) ck_assert_str_eq(ev[i].name, "fake");
    /* deep nesting: 64 ranges, an op and its child */
    ND_OK_OR_FAIL(start_with(false, false, 0));
    for (int i = 0; i < 64; i++) ND_OK_OR_FAIL(nd_range_push("r"));
    nd_array *o2 = NULL;
    ND_OK_OR_FAIL(fake_op(&o2, a, NULL, true));
    nd_release(o2);
    for (int i = 0; i < 64; i++) ND_OK_OR_FAIL(nd_range_pop());
    ND_OK_OR_FAIL(nd_profiler_stop());
    ev = events(&n);
    ck_assert_uint_eq(n, 66);
    ck_assert_int_eq(ev[65].depth, 65);
    nd_release(a);
}
END_TEST

/* Four threads profiled at once, each with its ranges and ops. */
enum { TH = 4, ITERS = 200 };
static void *thread_body(void *p)
{
    const nd_array *a = p;
    for (int i = 0; i < ITERS; i++) {
        if (nd_range_push("iteration")) return (void *)1;
        nd_array *o = NULL;
        if (fake_op(&o, a, a, i % 2 == 0)) return (void *)1;
        nd_release(o);
        if (nd_range_pop()) return (void *)1;
    }
    return NULL;
}

START_TEST(four_threads)
{
    fresh();
    int64_t sh[1] = {32};
    nd_array *a = arr(ND_FLOAT32, 1, sh, nd_cpu());
    ND_OK_OR_FAIL(start_with(true, true, 0));
    pthread_t th[TH];
    for (int i = 0; i < TH; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, thread_body, a), 0);
    for (int i = 0; i < TH; i++) {
        void *r;
        pthread_join(th[i], &r);
        ck_assert_ptr_null(r);
    }
    ND_OK_OR_FAIL(nd_profiler_stop()); /* the threads have exited: their events are kept */
    size_t n;
    const nd_profiler_event *ev = events(&n);
    nd_profiler_stats s;
    ND_OK_OR_FAIL(nd_profiler_get_stats(&s));
    ck_assert_int_eq(s.threads, TH);
    ck_assert_int_eq(s.dropped, 0);
    int64_t per[TH][4] = {{0}}; /* ranges, fakes, children, memory */
    int64_t mem = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_ge(ev[i].thread, 0);
        ck_assert_int_lt(ev[i].thread, TH);
        if (i) ck_assert_int_ge(ev[i].host_start_ns, ev[i - 1].host_start_ns);
        int64_t p = ev[i].parent;
        if (p >= 0) {
            ck_assert_int_eq(ev[p].thread, ev[i].thread); /* parents on the same thread */
            ck_assert_int_eq(ev[p].depth + 1, ev[i].depth);
        }
        if (ev[i].kind == ND_PROFILER_RANGE) {
            per[ev[i].thread][0]++;
            ck_assert_int_eq(p, -1);
        } else if (ev[i].kind == ND_PROFILER_MEMORY) {
            per[ev[i].thread][3]++;
            mem += ev[i].bytes;
        } else if (strcmp(ev[i].name, "fake") == 0) {
            per[ev[i].thread][1]++;
            ck_assert_str_eq(ev[p].name, "iteration");
            ck_assert_int_eq(ev[i].shapes[0][0], 32);
        } else {
            per[ev[i].thread][2]++;
            ck_assert_str_eq(ev[p].name, "fake");
        }
    }
    for (int t = 0; t < TH; t++) {
        ck_assert_int_eq(per[t][0], ITERS);
        ck_assert_int_eq(per[t][1], ITERS);
        ck_assert_int_eq(per[t][2], ITERS / 2);
        ck_assert_int_eq(per[t][3], 2 * ITERS);
    }
    ck_assert_int_eq(mem, 0);
    ck_assert_uint_eq(n, (size_t)TH * (ITERS * 4 + ITERS / 2));
    /* a second session reuses the exited threads' buffers and numbers threads afresh */
    ND_OK_OR_FAIL(nd_profiler_start(NULL));
    for (int i = 0; i < TH; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, thread_body, a), 0);
    for (int i = 0; i < TH; i++) pthread_join(th[i], NULL);
    ND_OK_OR_FAIL(nd_profiler_stop());
    ND_OK_OR_FAIL(nd_profiler_get_stats(&s));
    ck_assert_int_eq(s.threads, TH);
    ck_assert_int_eq(s.events, TH * (ITERS * 2 + ITERS / 2));
    nd_release(a);
}
END_TEST

/* Device time on cuda:0 (the emulated device in the emu build): events
 * around the op on its stream, read at stop. */
START_TEST(cuda_device_time)
{
    fresh();
    nd_device g = nd_cuda(0);
    int64_t sh[1] = {1 << 16};
    nd_array *a = arr(ND_FLOAT32, 1, sh, g), *o = NULL;
    nd_stream *st = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&st, g));
    ND_OK_OR_FAIL(start_with(false, true, 0));
    ND_OK_OR_FAIL(nd_range_push("on the gpu"));
    ND_OK_OR_FAIL(fake_op(&o, a, a, true)); /* default stream */
    ND_OK_OR_FAIL(nd__copy_into(o, a));
    nd_release(o);
    o = NULL;
    ND_OK_OR_FAIL(nd_set_stream(st));
    ND_OK_OR_FAIL(fake_op(&o, a, NULL, false)); /* another stream */
    ND_OK_OR_FAIL(nd_set_stream(NULL));
    ND_OK_OR_FAIL(nd_range_pop());
    ND_OK_OR_FAIL(nd_profiler_stop());
    size_t n;
    const nd_profiler_event *ev = events(&n);
    int fakes = 0, mem = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind == ND_PROFILER_MEMORY) {
            ck_assert_int_eq(ev[i].device.type, ND_DEVICE_CUDA);
            mem++;
            continue;
        }
        ck_assert_int_eq(ev[i].device.type, ND_DEVICE_CUDA);
        ck_assert_msg(ev[i].device_ns >= 0 && ev[i].device_start_ns >= 0, "%s: device time %lld at %lld", ev[i].name,
                      (long long)ev[i].device_ns, (long long)ev[i].device_start_ns);
        ck_assert_int_le(ev[i].device_self_ns, ev[i].device_ns);
        if (strcmp(ev[i].name, "fake") == 0) ck_assert_int_eq(ev[i].stream, fakes++ == 0 ? 0 : 1);
    }
    ck_assert_int_eq(fakes, 2);
    ck_assert_int_ge(mem, 2);
    ck_assert_str_eq(ev[0].name, "on the gpu");
    nd_release(o);
    nd_release(a);
    ND_OK_OR_FAIL(nd_stream_destroy(st));
}
END_TEST

#ifdef ND_WITH_CUDA
/* NVTX: a static injection (nvtx3's InitializeInjectionNvtx2_fnptr, a weak
 * symbol in src/cuda/nvtx.cu that this strong definition replaces in the
 * test binary) counts the pushes and pops the CUDA backend's range slots
 * emit, as Nsight Systems would see them. The types are nvtx3's ABI
 * (nvtxDetail/nvtxTypes.h): export table 1 = callbacks, module 1 = core,
 * callback 9 = RangePushA, 11 = RangePop. */
typedef void (*nvtx_fn)(void);
typedef struct {
    size_t struct_size;
    int (*GetModuleFunctionTable)(int module, nvtx_fn ***table, unsigned int *size);
} nvtx_callbacks;
static int nvtx_pushes, nvtx_pops;
static char nvtx_last[64];
static int my_push(const char *name)
{
    nvtx_pushes++;
    snprintf(nvtx_last, sizeof nvtx_last, "%s", name);
    return nvtx_pushes - nvtx_pops - 1;
}
static int my_pop(void) { return nvtx_pops++, nvtx_pushes - nvtx_pops; }
static int my_init(const void *(*get_table)(uint32_t))
{
    const nvtx_callbacks *cb = get_table(1);
    nvtx_fn **table = NULL;
    unsigned int size = 0;
    if (!cb || !cb->GetModuleFunctionTable(1, &table, &size) || size <= 11) return 0;
    *table[9] = (nvtx_fn)my_push;
    *table[11] = (nvtx_fn)my_pop;
    return 1;
}
int (*InitializeInjectionNvtx2_fnptr)(const void *(*)(uint32_t)) = my_init;

START_TEST(nvtx_ranges)
{
    fresh();
    int p0 = nvtx_pushes, q0 = nvtx_pops;
    ND_OK_OR_FAIL(nd_range_push("forward"));
    ND_OK_OR_FAIL(nd_range_push("layer 1"));
    ND_OK_OR_FAIL(nd_range_pop());
    ND_OK_OR_FAIL(nd_range_pop());
    ck_assert_msg(nvtx_pushes - p0 == 2, "NVTX saw %d pushes", nvtx_pushes - p0);
    ck_assert_int_eq(nvtx_pops - q0, 2);
    ck_assert_str_eq(nvtx_last, "layer 1");
    ND_EXPECT_ERR(nd_range_pop(), ND_ERR_INVALID, "no range");
    ck_assert_int_eq(nvtx_pops - q0, 2); /* an unbalanced pop reaches no tool */
}
END_TEST
#endif

/* nd_profiler_stop when its event buffers cannot be allocated: ND_ERR_NOMEM,
 * the session ends with no events (the N-th allocation of stop fails, for
 * every N until one stop completes), and the next session works. */
START_TEST(stop_out_of_memory)
{
    fresh();
    nd_array *a = arr(ND_FLOAT32, 1, (const int64_t[]){4}, nd_cpu()), *o = NULL;
    bool completed = false;
    for (long n = 1; n <= 64 && !completed; n++) {
        ND_OK_OR_FAIL(start_with(false, false, 0));
        ND_OK_OR_FAIL(fake_op(&o, a, a, true));
        nd_release(o), o = NULL;
        nd__alloc_fail_after(n);
        nd_status st = nd_profiler_stop();
        bool injected = nd__alloc_fault_reset();
        ck_assert(!nd_profiler_is_running());
        if (!injected) {
            ND_OK_OR_FAIL(st);
            completed = true;
            break;
        }
        ck_assert_msg(st == ND_ERR_NOMEM, "stop with allocation %ld failing -> %s: %s", n, nd_status_name(st),
                      nd_last_error());
        ck_assert_ptr_nonnull(strstr(nd_last_error(), "nd_profiler_stop"));
        size_t ne = 99;
        (void)events(&ne);
        ck_assert_uint_eq(ne, 0);
    }
    ck_assert(completed);
    size_t ne = 0;
    const nd_profiler_event *ev = events(&ne);
    ck_assert_uint_eq(ne, 2); /* fake and fake_child */
    ck_assert_str_eq(ev[0].name, "fake");
    nd_release(a);
}
END_TEST

/* ND_PROFILE starts a session before main. That must not initialise the
 * GPU runtime: a process that forks before its first GPU call (Check's
 * runner, which forks every test) would leave its children without a
 * usable GPU. This runs the core cases of this suite in a fresh copy of
 * the test program with ND_PROFILE set, each case in a forked child, and
 * wants them all to pass, the GPU case included. */
START_TEST(env_profile_keeps_the_gpu_for_forked_children)
{
    char exe[4096], dir[] = "/tmp/nd_env_profile_XXXXXX", cmd[8192];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(len, 0);
    exe[len] = '\0';
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "env -u CK_LOG_FILE_NAME -u CK_XML_LOG_FILE_NAME -u CK_TAP_LOG_FILE_NAME -u CK_RUN_CASE -u CK_RUN_SUITE "
             "-u CK_INCLUDE_TAGS -u CK_EXCLUDE_TAGS ND_PROFILE=%s/trace.json CK_FORK=yes CK_RUN_SUITE=profiler "
             "CK_RUN_CASE=core CK_VERBOSITY=normal '%s' > %s/out.txt 2>&1",
             dir, exe, dir);
    int rc = system(cmd);
    char path[4200], out[8192] = "";
    snprintf(path, sizeof path, "%s/out.txt", dir);
    FILE *f = fopen(path, "r");
    if (f) {
        size_t k = fread(out, 1, sizeof out - 1, f);
        out[k] = '\0';
        fclose(f);
    }
    remove(path);
    snprintf(path, sizeof path, "%s/trace.json", dir);
    remove(path);
    rmdir(dir);
    ck_assert_msg(rc == 0, "the suite under ND_PROFILE failed (status %d):\n%s", rc, out);
    ck_assert_msg(strstr(out, "100%") && !strstr(out, "cuda_device_time SKIPPED"), "the GPU case did not run and pass:\n%s",
                  out);
}
END_TEST

Suite *suite_profiler(void);
Suite *suite_profiler(void)
{
    Suite *s = suite_create("profiler");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, session_errors);
    tcase_add_test(tc, disabled_records_nothing);
    tcase_add_test(tc, op_fields_and_nesting);
    tcase_add_test(tc, device_filter);
    tcase_add_test(tc, memory_events_balance);
    tcase_add_test(tc, ranges_nest_and_balance);
    tcase_add_test(tc, bounded_events);
    tcase_add_test(tc, four_threads);
    tcase_add_test(tc, stop_out_of_memory);
#ifdef ND_WITH_CUDA
    tcase_add_test(tc, nvtx_ranges);
#endif
    if (nd_test_gpu_count() > 0) tcase_add_test(tc, cuda_device_time);
    else fprintf(stderr, "profiler: cuda_device_time SKIPPED (no CUDA device)\n");
    suite_add_tcase(s, tc);
    if (nd_test_gpu_count() > 0) {
        TCase *env = tcase_create("env");
        tcase_set_timeout(env, 300);
        tcase_add_test(env, env_profile_keeps_the_gpu_for_forked_children);
        suite_add_tcase(s, env);
    }
    return s;
}
