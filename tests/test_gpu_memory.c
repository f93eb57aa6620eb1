/* Control of device memory: memory fractions, the choice of allocator
 * (the caching pool, CUDA's stream-ordered pool, none), managed memory with
 * its CPU views, prefetching and advice, and streams made by the user
 * (wrapped) ordered with the library's events both ways.
 *
 * The CPU cases run everywhere (the same calls are no-ops or ordinary
 * arrays there, so one program runs on both); the GPU cases on cuda:0 (the
 * emulated device in make emu-test, a real GPU in the GPU check). Ordering
 * is observed by holding a stream back with a host function queued on it
 * (the emulated device) and checking that dependent work has not run. */
#include <math.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "test_util.h"
#ifdef ND_WITH_CUDA
#include <cuda_runtime.h>
#endif

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */
/* x[i] = i + 1 (float32, on dev). */
static nd_array *iota(int64_t n, nd_device dev)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_arange(&a, ND_FLOAT32, 1, (double)n + 1, 1, dev));
    return a;
}

/* ------------------------------------------------------------------ */
/* The CPU: the same calls, so one program runs without a GPU          */
/* ------------------------------------------------------------------ */
START_TEST(fraction_caps_the_allocator)
{
    nd_device cpu = nd_cpu();
    nd_device_info info;
    ND_OK_OR_FAIL(nd_device_get_info(&info, cpu));
    ck_assert_uint_gt(info.total_memory, 0);
    ND_OK_OR_FAIL(nd_memory_set_fraction(cpu, 0.25));
    nd_memory_stats s;
    ND_OK_OR_FAIL(nd_memory_get_stats(&s, cpu));
    ck_assert_uint_eq(s.limit, (size_t)((double)info.total_memory * 0.25));
    /* beyond the cap: refused with the figures, nothing allocated */
    nd_array *a = NULL;
    int64_t n = (int64_t)(info.total_memory / 2 / sizeof(float));
    ND_EXPECT_ERR(nd_empty(&a, ND_FLOAT32, 1, &n, cpu), ND_ERR_NOMEM, "limit");
    ck_assert_ptr_null(a);
    ND_EXPECT_ERR(nd_memory_set_fraction(cpu, 0.0), ND_ERR_INVALID, "fraction 0 is outside (0, 1]");
    ND_EXPECT_ERR(nd_memory_set_fraction(cpu, 1.5), ND_ERR_INVALID, "outside (0, 1]");
    ND_EXPECT_ERR(nd_memory_set_fraction(cpu, -0.5), ND_ERR_INVALID, "outside (0, 1]");
    ND_EXPECT_ERR(nd_memory_set_fraction(cpu, NAN), ND_ERR_INVALID, "outside (0, 1]");
    ND_EXPECT_ERR(nd_memory_set_fraction((nd_device){ND_DEVICE_CPU, 3}, 0.5), ND_ERR_DEVICE, "cpu");
    ND_OK_OR_FAIL(nd_memory_get_stats(&s, cpu));
    ck_assert_uint_eq(s.limit, (size_t)((double)info.total_memory * 0.25)); /* refusals changed nothing */
    ND_OK_OR_FAIL(nd_memory_set_fraction(cpu, 1.0));
    ND_OK_OR_FAIL(nd_memory_get_stats(&s, cpu));
    ck_assert_uint_eq(s.limit, info.total_memory);
    ND_OK_OR_FAIL(nd_memory_set_limit(cpu, 0)); /* lifts it */
    ND_OK_OR_FAIL(nd_memory_get_stats(&s, cpu));
    ck_assert_uint_eq(s.limit, 0);
}
END_TEST

/* ND_MEMORY_FRACTION: a number in (0, 1]; anything else is ignored. */
START_TEST(env_fraction_is_parsed_strictly)
{
    const char *good[] = {"0.5", "1", "1.0", "0.001", " 0.25", "0.75  "};
    const double want[] = {0.5, 1, 1, 0.001, 0.25, 0.75};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        setenv("ND_MEMORY_FRACTION", good[i], 1);
        double f = -1;
        ck_assert_msg(nd__env_memory_fraction(&f), "'%s' refused", good[i]);
        ck_assert_double_eq_tol(f, want[i], 1e-12);
    }
    const char *bad[] = {"", "0", "1.01", "-0.5", "nan", "0.5x", "half", "inf"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("ND_MEMORY_FRACTION", bad[i], 1);
        double f = -1;
        ck_assert_msg(!nd__env_memory_fraction(&f), "'%s' accepted", bad[i]);
    }
    unsetenv("ND_MEMORY_FRACTION");
    double f;
    ck_assert(!nd__env_memory_fraction(&f));
}
END_TEST

START_TEST(cpu_pool_kind_and_managed_calls)
{
    nd_device cpu = nd_cpu();
    nd_memory_stats s;
    ND_OK_OR_FAIL(nd_memory_get_stats(&s, cpu));
    const nd_pool_kind kind0 = s.kind; /* caching, but with ND_POOL=0 and under ASan (suite runtime) */
    ck_assert(kind0 == ND_POOL_KIND_CACHING || kind0 == ND_POOL_KIND_NONE);
    ck_assert(s.pooled == (kind0 == ND_POOL_KIND_CACHING));
    /* the CPU's two allocators: large blocks kept, or none */
    const nd_pool_kind kinds[2] = {ND_POOL_KIND_NONE, ND_POOL_KIND_CACHING};
    for (int k = 0; k < 2; k++) {
        ND_OK_OR_FAIL(nd_memory_set_pool(cpu, kinds[k]));
        ND_OK_OR_FAIL(nd_memory_get_stats(&s, cpu));
        ck_assert_int_eq(s.kind, kinds[k]);
        ck_assert(s.pooled == (kinds[k] == ND_POOL_KIND_CACHING));
    }
    ND_EXPECT_ERR(nd_memory_set_pool(cpu, ND_POOL_KIND_ASYNC), ND_ERR_UNSUPPORTED, "cpu:0 has no stream-ordered pool");
    ND_OK_OR_FAIL(nd_memory_set_pool(cpu, kind0));
    ND_EXPECT_ERR(nd_memory_set_pool(cpu, (nd_pool_kind)7), ND_ERR_INVALID, "unknown pool kind 7");
    /* managed memory of the CPU is ordinary memory */
    nd_array *m = NULL, *v = NULL;
    int64_t shape[2] = {3, 4};
    ND_OK_OR_FAIL(nd_empty_managed(&m, ND_FLOAT32, 2, shape, cpu));
    ck_assert(!nd_is_managed(m));
    ck_assert(!nd_is_managed(NULL));
    ND_OK_OR_FAIL(nd_prefetch(m, cpu, NULL));
    ND_OK_OR_FAIL(nd_memory_advise(m, ND_ADVISE_READ_MOSTLY, cpu));
    ND_EXPECT_ERR(nd_memory_advise(m, (nd_mem_advice)0, cpu), ND_ERR_INVALID, "unknown advice 0");
    ND_OK_OR_FAIL(nd_managed_view(&v, m, cpu)); /* its own device: a plain view */
    ck_assert_ptr_eq(nd_data(v), nd_data(m));
    ND_EXPECT_ERR(nd_managed_view(NULL, m, cpu), ND_ERR_INVALID, "'out' is NULL");
    /* the out rule: an array that fits is kept, one that does not is refused */
    nd_array *keep = v;
    ND_OK_OR_FAIL(nd_empty_managed(&v, ND_FLOAT32, 2, shape, cpu));
    ck_assert_ptr_eq(v, keep);
    int64_t other[2] = {4, 3};
    ND_EXPECT_ERR(nd_empty_managed(&v, ND_FLOAT32, 2, other, cpu), ND_ERR_SHAPE, "nd_empty_managed");
    ck_assert_ptr_eq(v, keep);
    nd_release(v), nd_release(m);
    /* bad input */
    nd_array *o = NULL;
    int64_t neg = -1;
    ND_EXPECT_ERR(nd_empty_managed(&o, ND_FLOAT32, 1, &neg, cpu), ND_ERR_INVALID, "negative dimensions");
    ND_EXPECT_ERR(nd_empty_managed(NULL, ND_FLOAT32, 1, shape, cpu), ND_ERR_INVALID, "'out' is NULL");
    ND_EXPECT_ERR(nd_prefetch(NULL, cpu, NULL), ND_ERR_INVALID, "'a' is NULL");
    ck_assert_ptr_null(o);
}
END_TEST

START_TEST(cpu_streams_wrap_and_event_handles)
{
    nd_stream *s = NULL;
    ND_OK_OR_FAIL(nd_stream_wrap(&s, nd_cpu(), NULL)); /* a host-side stream */
    ck_assert_ptr_null(nd_stream_native(s));
    ND_OK_OR_FAIL(nd_set_stream(s));
    nd_array *a = iota(8, nd_cpu()), *b = NULL;
    ND_OK_OR_FAIL(nd_add(&b, a, a));
    ND_OK_OR_FAIL(nd_set_stream(NULL));
    float v[8];
    ND_OK_OR_FAIL(nd_copy_to_host(v, b, sizeof v));
    for (int i = 0; i < 8; i++) ck_assert_float_eq(v[i], 2.0f * (float)(i + 1));
    ND_OK_OR_FAIL(nd_stream_destroy(s));
    int dummy;
    ND_EXPECT_ERR(nd_stream_wrap(&s, nd_cpu(), &dummy), ND_ERR_INVALID, "cpu:0 has no native streams");
    ND_EXPECT_ERR(nd_stream_wrap(NULL, nd_cpu(), NULL), ND_ERR_INVALID, "'stream' is NULL");
    nd_event *e = NULL;
    ND_OK_OR_FAIL(nd_event_create(&e, nd_cpu()));
    ck_assert_ptr_null(nd_event_native(e));
    ck_assert_ptr_null(nd_event_native(NULL));
    ND_OK_OR_FAIL(nd_event_destroy(e));
    nd_release(a), nd_release(b);
}
END_TEST

#ifdef ND_WITH_CUDA
static nd_device gpu(void) { return nd_cuda(0); }

/* ------------------------------------------------------------------ */
/* Holding a stream back                                               */
/* ------------------------------------------------------------------ */
#ifdef ND_CUDA_EMU
typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open;
} gate;
static gate g_gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};

/* Queued on a stream: waits until the test opens the gate (at most 3 s, so
 * that no failed test hangs). */
static void gate_wait(void *arg)
{
    gate *g = arg;
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 3;
    pthread_mutex_lock(&g->mu);
    while (!g->open)
        if (pthread_cond_timedwait(&g->cv, &g->mu, &dl) != 0) break;
    pthread_mutex_unlock(&g->mu);
}
static void hold(cudaStream_t s)
{
    pthread_mutex_lock(&g_gate.mu);
    g_gate.open = 0;
    pthread_mutex_unlock(&g_gate.mu);
    ck_assert_int_eq(nd_emu_enqueue(s, gate_wait, &g_gate), cudaSuccess);
}
static void release_hold(void)
{
    pthread_mutex_lock(&g_gate.mu);
    g_gate.open = 1;
    pthread_cond_broadcast(&g_gate.cv);
    pthread_mutex_unlock(&g_gate.mu);
}
static void set_flag(void *arg) { __atomic_store_n((int *)arg, 1, __ATOMIC_SEQ_CST); }
static void sleep_ms(int ms)
{
    struct timespec t = {0, (long)ms * 1000000L};
    nanosleep(&t, NULL);
}
#endif

/* ------------------------------------------------------------------ */
/* Fractions and the choice of allocator                               */
/* ------------------------------------------------------------------ */
START_TEST(gpu_fraction_caps_the_pool)
{
    nd_device_info info;
    ND_OK_OR_FAIL(nd_device_get_info(&info, gpu()));
    ND_OK_OR_FAIL(nd_memory_set_fraction(gpu(), 0.5));
    nd_memory_stats s;
    ND_OK_OR_FAIL(nd_memory_get_stats(&s, gpu()));
    ck_assert_uint_eq(s.limit, (size_t)((double)info.total_memory * 0.5));
    nd_array *a = NULL;
    int64_t n = (int64_t)(info.total_memory / 4 * 3 / sizeof(float));
    ND_EXPECT_ERR(nd_empty(&a, ND_FLOAT32, 1, &n, gpu()), ND_ERR_NOMEM, "limit");
    ck_assert_ptr_null(a);
    ND_EXPECT_ERR(nd_memory_set_fraction(gpu(), 2), ND_ERR_INVALID, "fraction 2 is outside (0, 1]");
    ND_OK_OR_FAIL(nd_memory_set_limit(gpu(), 0));
    ND_OK_OR_FAIL(nd_memory_get_stats(&s, gpu()));
    ck_assert_uint_eq(s.limit, 0);
}
END_TEST

/* The same ops give the same results from every allocator, the books
 * (in use, peak, allocs) are kept alike, and the limit survives a switch. */
START_TEST(every_pool_kind_serves_the_same_program)
{
    const nd_pool_kind kinds[] = {ND_POOL_KIND_ASYNC, ND_POOL_KIND_NONE, ND_POOL_KIND_CACHING};
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
    ND_OK_OR_FAIL(nd_memory_set_limit(gpu(), (size_t)1 << 30));
    for (size_t k = 0; k < 3; k++) {
        ND_OK_OR_FAIL(nd_memory_set_pool(gpu(), kinds[k]));
        nd_memory_stats s0, s1, s2;
        ND_OK_OR_FAIL(nd_memory_get_stats(&s0, gpu()));
        ck_assert_int_eq(s0.kind, kinds[k]);
        ck_assert(s0.pooled == (kinds[k] != ND_POOL_KIND_NONE));
        ck_assert_uint_eq(s0.limit, (size_t)1 << 30);
        ck_assert_uint_eq(s0.in_use, 0);
        nd_array *a = iota(1000, gpu()), *b = NULL, *c = NULL;
        ND_OK_OR_FAIL(nd_multiply(&b, a, a));
        ND_OK_OR_FAIL(nd_add(&c, b, a)); /* i^2 + i */
        ND_OK_OR_FAIL(nd_memory_get_stats(&s1, gpu()));
        ck_assert_uint_ge(s1.in_use, 3 * 1000 * sizeof(float));
        ck_assert_uint_ge(s1.peak_in_use, s1.in_use);
        ck_assert_uint_ge(s1.reserved, s1.in_use);
        ck_assert_uint_ge(s1.allocs, s0.allocs + 3);
        float v[1000];
        ND_OK_OR_FAIL(nd_copy_to_host(v, c, sizeof v));
        for (int i = 0; i < 1000; i++) ck_assert_float_eq(v[i], (float)(i + 1) * (float)(i + 1) + (float)(i + 1));
        /* a live array pins the allocator */
        nd_pool_kind other = kinds[(k + 1) % 3];
        ND_EXPECT_ERR(nd_memory_set_pool(gpu(), other), ND_ERR_INVALID, "live arrays");
        nd_release(a), nd_release(b), nd_release(c);
        ND_OK_OR_FAIL(nd_memory_get_stats(&s2, gpu()));
        ck_assert_uint_eq(s2.in_use, 0);
        /* the profiler's memory events come from every allocator */
        nd_profiler_config cfg;
        nd_profiler_config_init(&cfg);
        cfg.profile_memory = true;
        ND_OK_OR_FAIL(nd_profiler_start(&cfg));
        int64_t m = 4096;
        nd_array *e = NULL;
        ND_OK_OR_FAIL(nd_empty(&e, ND_FLOAT32, 1, &m, gpu()));
        nd_release(e);
        ND_OK_OR_FAIL(nd_profiler_stop());
        const nd_profiler_event *ev;
        size_t nev;
        ND_OK_OR_FAIL(nd_profiler_events(&ev, &nev));
        int64_t plus = 0, minus = 0;
        for (size_t i = 0; i < nev; i++)
            if (ev[i].kind == ND_PROFILER_MEMORY && nd__same_device(ev[i].device, gpu())) {
                if (ev[i].bytes > 0) plus += ev[i].bytes;
                else minus -= ev[i].bytes;
            }
        ck_assert_msg(plus == m * 4 && minus == m * 4, "pool kind %d: memory events +%lld -%lld, want %lld each",
                      (int)kinds[k], (long long)plus, (long long)minus, (long long)(m * 4));
        /* over the limit: refused with the figures */
        nd_array *big = NULL;
        int64_t n = (int64_t)1 << 29; /* 2 GiB of float32 */
        ND_EXPECT_ERR(nd_empty(&big, ND_FLOAT32, 1, &n, gpu()), ND_ERR_NOMEM, "limit 1073741824");
        ND_OK_OR_FAIL(nd_memory_release_cached(gpu()));
    }
    ND_OK_OR_FAIL(nd_memory_set_limit(gpu(), 0));
}
END_TEST

#ifdef ND_CUDA_EMU
/* The stream-ordered pool frees a block on its own stream after the work
 * other streams had queued on it: x, allocated on the default stream and
 * read by an add held on stream s, is released; the next allocation of its
 * size on the default stream gets x's memory back (CUDA reuses a block in
 * the order of its stream), and the fill of that allocation must come
 * after s's add, or the add reads 7s instead of 1.5s (and ASan, under make
 * emu-asan, reports the read of memory whose free has run). */
START_TEST(async_pool_free_waits_for_other_streams)
{
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
    ND_OK_OR_FAIL(nd_memory_set_pool(gpu(), ND_POOL_KIND_ASYNC));
    nd_stream *s = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s, gpu()));
    int64_t n = 1 << 16;
    nd_array *x = NULL, *r = NULL, *y = NULL;
    ND_OK_OR_FAIL(nd_full(&x, ND_FLOAT32, 1, &n, nd_scalar_float(1.5), gpu()));
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
    hold((cudaStream_t)nd_stream_native(s));
    ND_OK_OR_FAIL(nd_set_stream(s));
    ND_OK_OR_FAIL(nd_add(&r, x, x)); /* queued on s behind the hold */
    ND_OK_OR_FAIL(nd_set_stream(NULL));
    void *xp = nd_data(x);
    nd_release(x); /* freed on the default stream, after s's work */
    ND_OK_OR_FAIL(nd_full(&y, ND_FLOAT32, 1, &n, nd_scalar_float(7), gpu()));
    bool reused = nd_data(y) == xp;
    sleep_ms(50);
    release_hold();
    ND_OK_OR_FAIL(nd_stream_synchronize(s));
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
    ck_assert_msg(reused, "the default stream's next allocation did not reuse x's block (the test shows nothing)");
    nd_test_expect_all_f32(r, 3, "x + x on stream s");
    nd_test_expect_all_f32(y, 7, "y");
    nd_memory_stats st;
    ND_OK_OR_FAIL(nd_memory_get_stats(&st, gpu()));
    ck_assert_int_eq(st.kind, ND_POOL_KIND_ASYNC);
    nd_release(r), nd_release(y);
    ND_OK_OR_FAIL(nd_memory_get_stats(&st, gpu()));
    ck_assert_uint_eq(st.in_use, 0);
    ck_assert_uint_ge(st.cached, 2 * (size_t)n * sizeof(float)); /* CUDA's pool keeps them */
    ND_OK_OR_FAIL(nd_memory_release_cached(gpu()));
    ND_OK_OR_FAIL(nd_memory_get_stats(&st, gpu()));
    ck_assert_uint_eq(st.cached, 0);
    ND_OK_OR_FAIL(nd_stream_destroy(s));
    ND_OK_OR_FAIL(nd_memory_set_pool(gpu(), ND_POOL_KIND_CACHING));
}
END_TEST
#endif

/* ------------------------------------------------------------------ */
/* Managed memory                                                      */
/* ------------------------------------------------------------------ */
START_TEST(managed_arrays_are_shared_by_cpu_and_gpu)
{
    int64_t n = 4096;
    nd_array *m = NULL, *c = NULL, *g = NULL, *d = NULL;
    ND_OK_OR_FAIL(nd_empty_managed(&m, ND_FLOAT32, 1, &n, gpu()));
    ck_assert(nd_is_managed(m));
    ck_assert(nd__same_device(nd_device_of(m), gpu()));
    /* the CPU writes through its view, in place */
    ND_OK_OR_FAIL(nd_managed_view(&c, m, nd_cpu()));
    ck_assert(nd__same_device(nd_device_of(c), nd_cpu()));
    ck_assert(nd_is_managed(c));
    ck_assert_ptr_eq(nd_data(c), nd_data(m));
    float *h = nd_data(c);
    for (int64_t i = 0; i < n; i++) h[i] = (float)i;
    ND_OK_OR_FAIL(nd_prefetch(m, gpu(), NULL));
    ND_OK_OR_FAIL(nd_memory_advise(m, ND_ADVISE_READ_MOSTLY, gpu()));
    /* the GPU reads it: g = 2 m */
    ND_OK_OR_FAIL(nd_add(&g, m, m));
    /* the GPU writes it: m = m + 1, in place */
    ND_OK_OR_FAIL(nd_binary_scalar(&m, ND_BINARY_ADD, m, nd_scalar_float(1)));
    ND_OK_OR_FAIL(nd_synchronize(gpu())); /* before the CPU touches it */
    ND_OK_OR_FAIL(nd_prefetch(m, nd_cpu(), NULL));
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
    for (int64_t i = 0; i < n; i++) ck_assert_float_eq(h[i], (float)i + 1);
    /* the CPU backend computes on it in place: c = 3 c */
    ND_OK_OR_FAIL(nd_binary_scalar(&c, ND_BINARY_MULTIPLY, c, nd_scalar_float(3)));
    /* the GPU sees the CPU's writes: d = m - 1 */
    ND_OK_OR_FAIL(nd_binary_scalar(&d, ND_BINARY_SUBTRACT, m, nd_scalar_float(1)));
    float v[4096];
    ND_OK_OR_FAIL(nd_copy_to_host(v, d, sizeof v));
    for (int64_t i = 0; i < n; i++) ck_assert_float_eq(v[i], 3.0f * ((float)i + 1) - 1);
    ND_OK_OR_FAIL(nd_copy_to_host(v, g, sizeof v));
    for (int64_t i = 0; i < n; i++) ck_assert_float_eq(v[i], 2.0f * (float)i);
    /* DLPack names the memory what it is, also for the CPU view */
    int32_t type, id;
    ND_OK_OR_FAIL(nd_dlpack_device(m, &type, &id));
    ck_assert_int_eq(type, 13); /* kDLCUDAManaged */
    ND_OK_OR_FAIL(nd_dlpack_device(c, &type, &id));
    ck_assert_int_eq(type, 13);
    /* a slice prefetches its own bytes; every advice is accepted */
    nd_array *sl = NULL;
    nd_range r = {100, 300, 2};
    ND_OK_OR_FAIL(nd_slice(&sl, m, 1, &r));
    ck_assert(nd_is_managed(sl));
    ND_OK_OR_FAIL(nd_prefetch(sl, nd_cpu(), NULL));
    for (int adv = ND_ADVISE_READ_MOSTLY; adv <= ND_ADVISE_UNSET_ACCESSED_BY; adv++)
        ND_OK_OR_FAIL(nd_memory_advise(sl, (nd_mem_advice)adv, adv % 2 ? gpu() : nd_cpu()));
    ND_EXPECT_ERR(nd_memory_advise(sl, (nd_mem_advice)9, gpu()), ND_ERR_INVALID, "unknown advice 9");
    nd_stream *s = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s, gpu()));
    ND_OK_OR_FAIL(nd_prefetch(m, gpu(), s));
    ND_OK_OR_FAIL(nd_stream_synchronize(s));
    ND_OK_OR_FAIL(nd_stream_destroy(s));
    nd_release(sl), nd_release(m), nd_release(c), nd_release(g), nd_release(d);
}
END_TEST

START_TEST(ordinary_device_memory_is_refused_where_managed_is_needed)
{
    nd_array *a = iota(16, gpu()), *v = NULL;
    ck_assert(!nd_is_managed(a));
    ND_EXPECT_ERR(nd_managed_view(&v, a, nd_cpu()), ND_ERR_DEVICE, "not managed memory");
    ck_assert_ptr_null(v);
    ND_EXPECT_ERR(nd_prefetch(a, nd_cpu(), NULL), ND_ERR_INVALID, "'a' is not in managed memory");
    ND_EXPECT_ERR(nd_memory_advise(a, ND_ADVISE_ACCESSED_BY, nd_cpu()), ND_ERR_INVALID, "not in managed memory");
    ND_OK_OR_FAIL(nd_prefetch(a, gpu(), NULL)); /* where it is: nothing to do */
    ND_OK_OR_FAIL(nd_managed_view(&v, a, gpu())); /* its own device: a view */
    ck_assert_ptr_eq(nd_data(v), nd_data(a));
    ck_assert(nd__same_device(nd_device_of(v), gpu()));
    nd_release(v), nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The user's streams                                                  */
/* ------------------------------------------------------------------ */
START_TEST(wrapped_stream_runs_the_library_work)
{
    cudaStream_t u;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&u, cudaStreamNonBlocking), cudaSuccess);
    nd_stream *w = NULL, *w2 = NULL;
    ND_OK_OR_FAIL(nd_stream_wrap(&w, gpu(), (void *)u));
    ck_assert_ptr_eq(nd_stream_native(w), (void *)u);
    ck_assert(nd__same_device(nd_stream_device(w), gpu()));
    ND_EXPECT_ERR(nd_stream_wrap(&w2, gpu(), (void *)u), ND_ERR_INVALID, "a library stream already");
    ND_EXPECT_ERR(nd_stream_wrap(&w2, gpu(), NULL), ND_ERR_INVALID, "NULL is the default stream");
    ck_assert_ptr_null(w2);
    nd_array *a = iota(1 << 12, gpu()), *b = NULL;
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
#ifdef ND_CUDA_EMU
    hold(u);
#endif
    ND_OK_OR_FAIL(nd_set_stream(w));
    ND_OK_OR_FAIL(nd_multiply(&b, a, a)); /* on u */
    nd_event *ev = NULL;
    ND_OK_OR_FAIL(nd_event_create(&ev, gpu()));
    ND_OK_OR_FAIL(nd_event_record(ev, w));
    ND_OK_OR_FAIL(nd_set_stream(NULL));
#ifdef ND_CUDA_EMU
    ck_assert_int_eq(cudaStreamQuery(u), cudaErrorNotReady); /* the product waits on u, behind the hold */
    (void)cudaGetLastError();
    release_hold();
#endif
    /* the library's default stream waits for the user's stream */
    ND_OK_OR_FAIL(nd_stream_wait_event(NULL, ev));
    nd_array *c = NULL;
    ND_OK_OR_FAIL(nd_add(&c, b, a)); /* i^2 + i on the default stream, after u's product */
    float v[1 << 12];
    ND_OK_OR_FAIL(nd_copy_to_host(v, c, sizeof v));
    for (int i = 0; i < 1 << 12; i++) ck_assert_float_eq(v[i], (float)(i + 1) * (float)(i + 1) + (float)(i + 1));
    nd_release(b); /* allocated on u: the pool fences u like its own streams */
    ND_OK_OR_FAIL(nd_stream_destroy(w));
    ck_assert_int_eq(cudaStreamQuery(u), cudaSuccess); /* still the user's, and idle */
    ck_assert_int_eq(cudaStreamDestroy(u), cudaSuccess);
    ND_OK_OR_FAIL(nd_event_destroy(ev));
    nd_release(a), nd_release(c);
}
END_TEST

/* The reverse: the user's stream waits for the library's work through the
 * native event. */
START_TEST(user_stream_waits_for_a_library_event)
{
    cudaStream_t u;
    ck_assert_int_eq(cudaStreamCreateWithFlags(&u, cudaStreamNonBlocking), cudaSuccess);
    nd_stream *s = NULL;
    nd_event *ev = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s, gpu()));
    ND_OK_OR_FAIL(nd_event_create(&ev, gpu()));
    ck_assert_ptr_nonnull(nd_event_native(ev));
    nd_array *a = iota(1 << 10, gpu()), *b = NULL;
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
#ifdef ND_CUDA_EMU
    hold((cudaStream_t)nd_stream_native(s));
#endif
    ND_OK_OR_FAIL(nd_set_stream(s));
    ND_OK_OR_FAIL(nd_add(&b, a, a));
    ND_OK_OR_FAIL(nd_event_record(ev, NULL)); /* the current stream: s */
    ND_OK_OR_FAIL(nd_set_stream(NULL));
    ck_assert_int_eq(cudaStreamWaitEvent(u, (cudaEvent_t)nd_event_native(ev), 0), cudaSuccess);
#ifdef ND_CUDA_EMU
    int done = 0;
    ck_assert_int_eq(nd_emu_enqueue(u, set_flag, &done), cudaSuccess);
    sleep_ms(50);
    int early = __atomic_load_n(&done, __ATOMIC_SEQ_CST);
    release_hold();
    ck_assert_int_eq(cudaStreamSynchronize(u), cudaSuccess);
    ck_assert_msg(!early, "the user's stream ran before the library's event");
    ck_assert(__atomic_load_n(&done, __ATOMIC_SEQ_CST));
#else
    ck_assert_int_eq(cudaStreamSynchronize(u), cudaSuccess);
#endif
    float v[1 << 10];
    ND_OK_OR_FAIL(nd_copy_to_host(v, b, sizeof v));
    for (int i = 0; i < 1 << 10; i++) ck_assert_float_eq(v[i], 2.0f * (float)(i + 1));
    ND_OK_OR_FAIL(nd_stream_destroy(s));
    ND_OK_OR_FAIL(nd_event_destroy(ev));
    ck_assert_int_eq(cudaStreamDestroy(u), cudaSuccess);
    nd_release(a), nd_release(b);
}
END_TEST
#endif /* ND_WITH_CUDA */

Suite *suite_gpu_memory(void)
{
    Suite *s = suite_create("gpu_memory");
    TCase *tc = tcase_create("cpu");
    tcase_add_test(tc, fraction_caps_the_allocator);
    tcase_add_test(tc, env_fraction_is_parsed_strictly);
    tcase_add_test(tc, cpu_pool_kind_and_managed_calls);
    tcase_add_test(tc, cpu_streams_wrap_and_event_handles);
    suite_add_tcase(s, tc);
#ifdef ND_WITH_CUDA
    if (nd_test_gpu_count() > 0) {
        TCase *tg = tcase_create("gpu");
        tcase_set_timeout(tg, 120);
        tcase_add_test(tg, gpu_fraction_caps_the_pool);
        tcase_add_test(tg, every_pool_kind_serves_the_same_program);
#ifdef ND_CUDA_EMU
        tcase_add_test(tg, async_pool_free_waits_for_other_streams);
#endif
        tcase_add_test(tg, managed_arrays_are_shared_by_cpu_and_gpu);
        tcase_add_test(tg, ordinary_device_memory_is_refused_where_managed_is_needed);
        tcase_add_test(tg, wrapped_stream_runs_the_library_work);
        tcase_add_test(tg, user_stream_waits_for_a_library_event);
        suite_add_tcase(s, tg);
        return s;
    }
#endif
    printf("gpu_memory: the GPU cases SKIPPED (no GPU)\n");
    return s;
}
