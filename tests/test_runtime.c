/* The runtime API on this machine: memory statistics and limits, streams
 * and events, pinned memory and asynchronous copies (CPU versions, and
 * the errors a CUDA device gives without a GPU). The same calls run on a
 * GPU in `make gpu-check`. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "core/alloc.h"
#include "test_util.h"

#ifdef ND_WITH_CUDA
#define NO_GPU_STATUS ND_ERR_DEVICE
#else
#define NO_GPU_STATUS ND_ERR_UNSUPPORTED
#endif

/* Whether the CPU keeps large blocks in this build and environment: on,
 * but with ND_POOL=0 and under AddressSanitizer. */
static bool cpu_cache_expected(void)
{
#ifdef __SANITIZE_ADDRESS__
    return false;
#else
    const char *env = getenv("ND_POOL");
    return !(env && strcmp(env, "0") == 0);
#endif
}

static nd_memory_stats cpu_stats(void)
{
    nd_memory_stats s;
    ND_OK_OR_FAIL(nd_memory_get_stats(&s, nd_cpu()));
    ck_assert_uint_eq(s.reserved, s.in_use + s.cached);
    return s;
}

/* A float32 vector of n elements, every one v. */
static nd_array *cpu_full(int64_t n, float v)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT32, 1, &n, nd_scalar_float(v), nd_cpu()));
    return a;
}

static void expect_all(const nd_array *a, float v)
{
    const float *p = nd_data(a);
    for (int64_t i = 0; i < nd_size(a); i += 4099) ck_assert_msg(p[i] == v, "[%lld] = %g, want %g", (long long)i, p[i], v);
    ck_assert(p[nd_size(a) - 1] == v);
}

START_TEST(cpu_keeps_large_blocks)
{
    const int64_t big = (int64_t)16 << 20; /* 64 MiB of float32 */
    ND_OK_OR_FAIL(nd_memory_release_cached(nd_cpu()));
    nd_memory_stats s0 = cpu_stats();
    ck_assert_uint_eq(s0.cached, 0);
    ck_assert_uint_eq(s0.largest_free_block, 0);
    const long live0 = nd__alloc_live();
    nd_array *a = cpu_full(big, 1.5f);
    void *pa = nd_data(a);
    const long live1 = nd__alloc_live();
    nd_memory_stats s1 = cpu_stats();
    ck_assert_uint_eq(s1.in_use - s0.in_use, (size_t)big * 4);
    nd_release(a);
    nd_memory_stats s2 = cpu_stats();
    ck_assert_int_eq(nd__alloc_live(), live0); /* a kept block is not a live allocation */
    ck_assert_uint_eq(s2.in_use, s0.in_use);
    if (!cpu_cache_expected()) { /* ND_POOL=0 or a sanitizer build: every block goes back */
        ck_assert(!s2.pooled);
        ck_assert_uint_eq(s2.cached, 0);
        ck_assert_uint_eq(s2.device_allocs, s2.allocs);
        return;
    }
    ck_assert(s2.pooled);
    ck_assert_uint_eq(s2.cached, (size_t)big * 4);
    ck_assert_uint_eq(s2.largest_free_block, (size_t)big * 4);

    /* the next array of that size gets the block, with its own values */
    nd_array *b = NULL;
    ND_OK_OR_FAIL(nd_zeros(&b, ND_FLOAT32, 1, &big, nd_cpu()));
    nd_memory_stats s3 = cpu_stats();
    ck_assert_ptr_eq(nd_data(b), pa);
    ck_assert_uint_eq(s3.cached, 0);
    ck_assert_uint_eq(s3.device_allocs, s2.device_allocs);
    ck_assert_uint_eq(s3.allocs, s2.allocs + 1);
    expect_all(b, 0.0f);
    ck_assert_int_eq(nd__alloc_live(), live1); /* a block given out again is live again */

    /* another size does not take it: a block is handed out whole, to its own size */
    nd_release(b);
    const int64_t other = (int64_t)3 << 20; /* 12 MiB */
    nd_array *c = cpu_full(other, 2.0f);
    ck_assert_ptr_ne(nd_data(c), pa);
    ck_assert_uint_eq(cpu_stats().cached, (size_t)big * 4);
    ck_assert_uint_eq(cpu_stats().device_allocs, s3.device_allocs + 1);
    nd_release(c);
    ck_assert_uint_eq(cpu_stats().cached, (size_t)big * 4 + (size_t)other * 4);

    /* the fault gate: taking a kept block passes it as a fresh allocation
     * does (the same number of failure points), and a failure keeps the block */
    const size_t kept = (size_t)big * 4 + (size_t)other * 4;
    int points_hit = 0, points_fresh = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) ND_OK_OR_FAIL(nd_memory_release_cached(nd_cpu()));
        for (int n = 1; n < 20; n++) {
            nd_array *d = NULL;
            nd__alloc_fail_after(n);
            nd_status st = nd_empty(&d, ND_FLOAT32, 1, &big, nd_cpu());
            if (!nd__alloc_fault_reset()) {
                ND_OK_OR_FAIL(st);
                *(pass ? &points_fresh : &points_hit) = n - 1;
                nd_release(d);
                break;
            }
            ck_assert_int_eq(st, ND_ERR_NOMEM);
            ck_assert_ptr_null(d);
            if (pass == 0) ck_assert_uint_eq(cpu_stats().cached, kept);
            ck_assert_int_eq(nd__alloc_live(), live0);
        }
    }
    ck_assert_int_ge(points_hit, 1);
    ck_assert_int_eq(points_hit, points_fresh);
    ck_assert_int_eq(nd__alloc_live(), live0);

    /* blocks from 1 MiB are kept too, rounded to 64 KiB: 1e6 float32
     * (4000000 bytes) keeps 62 x 64 KiB and gives them to the next array
     * of that size, with its own values */
    {
        const size_t before = cpu_stats().cached, mid = (size_t)62 << 16;
        nd_array *m = cpu_full(1000000, 4.0f);
        void *pm = nd_data(m);
        ck_assert_uint_eq((uintptr_t)pm % 64, 0);
        nd_release(m);
        ck_assert_uint_eq(cpu_stats().cached, before + mid);
        const unsigned long long fresh = cpu_stats().device_allocs;
        nd_array *m2 = cpu_full(999990, 5.0f); /* 3999960 bytes: the same 64 KiB multiple */
        ck_assert_ptr_eq(nd_data(m2), pm);
        ck_assert_uint_eq(cpu_stats().device_allocs, fresh);
        ck_assert_uint_eq(cpu_stats().cached, before);
        expect_all(m2, 5.0f);
        nd_release(m2);
        ck_assert_uint_eq(cpu_stats().cached, before + mid);
        ND_OK_OR_FAIL(nd_memory_release_cached(nd_cpu()));
    }

    /* small arrays are glibc's: never kept (below 1 MiB) */
    const size_t before = cpu_stats().cached;
    nd_array *e = cpu_full(1000, 3.0f);
    nd_release(e);
    int64_t under = (int64_t)(1 << 18) - 16; /* 1 MiB - 64 bytes */
    e = cpu_full(under, 3.0f);
    nd_release(e);
    ck_assert_uint_eq(cpu_stats().cached, before);

    ND_OK_OR_FAIL(nd_memory_release_cached(nd_cpu()));
    nd_memory_stats s4 = cpu_stats();
    ck_assert_uint_eq(s4.cached, 0);
    ck_assert_uint_eq(s4.largest_free_block, 0);
    ck_assert_int_eq(nd__alloc_live(), live0);
}
END_TEST

/* A limit counts the kept blocks: the cache gives them up before an
 * allocation would fail, and keeps none that do not fit under it. */
START_TEST(cpu_cache_yields_to_the_limit)
{
    if (!cpu_cache_expected()) return;
    const int64_t n = (int64_t)4 << 20; /* 16 MiB */
    ND_OK_OR_FAIL(nd_memory_release_cached(nd_cpu()));
    nd_array *a = cpu_full(n, 1.0f), *b = cpu_full(n, 2.0f);
    nd_release(a);
    nd_release(b);
    nd_memory_stats s = cpu_stats();
    ck_assert_uint_eq(s.cached, 2 * (size_t)n * 4);
    /* room for one more 32 MiB array only without the cache */
    ND_OK_OR_FAIL(nd_memory_set_limit(nd_cpu(), s.in_use + (size_t)n * 4 * 2 + (1u << 20)));
    ck_assert_uint_eq(cpu_stats().cached, 2 * (size_t)n * 4); /* it still fits */
    nd_array *c = cpu_full(2 * n, 3.0f);
    expect_all(c, 3.0f);
    ck_assert_uint_eq(cpu_stats().cached, 0);
    /* a freed block that would exceed the limit with what is in use is not kept */
    nd_array *d = NULL;
    ND_EXPECT_ERR(nd_empty(&d, ND_FLOAT32, 1, &n, nd_cpu()), ND_ERR_NOMEM, "limit");
    nd_release(c);
    ck_assert_uint_le(cpu_stats().reserved, cpu_stats().limit);
    /* a lower limit than in use + cached empties the cache at once */
    ND_OK_OR_FAIL(nd_memory_set_limit(nd_cpu(), 0));
    a = cpu_full(n, 1.0f);
    nd_release(a);
    ck_assert_uint_ge(cpu_stats().cached, (size_t)n * 4);
    ND_OK_OR_FAIL(nd_memory_set_limit(nd_cpu(), cpu_stats().in_use + 1));
    ck_assert_uint_eq(cpu_stats().cached, 0);
    ND_OK_OR_FAIL(nd_memory_set_limit(nd_cpu(), 0));
}
END_TEST

/* At most 16 blocks are kept, the oldest given up first; the cache can be
 * switched off and on at any time. */
START_TEST(cpu_cache_bounds_and_switch)
{
    if (!cpu_cache_expected()) {
        ND_EXPECT_ERR(nd_memory_set_pool(nd_cpu(), ND_POOL_KIND_ASYNC), ND_ERR_UNSUPPORTED, "stream-ordered");
        return;
    }
    ND_OK_OR_FAIL(nd_memory_release_cached(nd_cpu()));
    enum { N = 20 };
    nd_array *a[N];
    for (int i = 0; i < N; i++) a[i] = cpu_full(((int64_t)1 << 20) + ((int64_t)i << 19), (float)i); /* 4, 6, ... MiB */
    void *last = nd_data(a[N - 1]);
    for (int i = 0; i < N; i++) nd_release(a[i]);
    nd_memory_stats s = cpu_stats();
    size_t want = 0;
    for (int i = N - 16; i < N; i++) want += (size_t)(((int64_t)1 << 20) + ((int64_t)i << 19)) * 4;
    ck_assert_uint_eq(s.cached, want); /* the 16 most recently kept */
    /* the first was given up: a fresh block (the system may hand back
     * the same address); the last is still kept */
    const uint64_t fresh = s.device_allocs;
    nd_array *x = cpu_full((int64_t)1 << 20, 7.0f);
    ck_assert_uint_eq(cpu_stats().device_allocs, fresh + 1);
    nd_array *y = cpu_full(((int64_t)1 << 20) + ((int64_t)(N - 1) << 19), 8.0f);
    ck_assert_uint_eq(cpu_stats().device_allocs, fresh + 1);
    ck_assert_ptr_eq(nd_data(y), last);
    nd_release(x);
    nd_release(y);

    ND_OK_OR_FAIL(nd_memory_set_pool(nd_cpu(), ND_POOL_KIND_NONE));
    s = cpu_stats();
    ck_assert(!s.pooled);
    ck_assert_int_eq(s.kind, ND_POOL_KIND_NONE);
    ck_assert_uint_eq(s.cached, 0);
    nd_array *z = cpu_full((int64_t)4 << 20, 1.0f);
    nd_release(z);
    ck_assert_uint_eq(cpu_stats().cached, 0);
    ND_EXPECT_ERR(nd_memory_set_pool(nd_cpu(), ND_POOL_KIND_ASYNC), ND_ERR_UNSUPPORTED, "stream-ordered");
    ND_OK_OR_FAIL(nd_memory_set_pool(nd_cpu(), ND_POOL_KIND_CACHING));
    ck_assert(cpu_stats().pooled);
    z = cpu_full((int64_t)4 << 20, 1.0f);
    nd_release(z);
    ck_assert_uint_eq(cpu_stats().cached, (size_t)16 << 20);
    ND_OK_OR_FAIL(nd_memory_release_cached(nd_cpu()));
}
END_TEST

/* Threads allocating and freeing large arrays at once never share a block. */
typedef struct {
    int id;
    int bad;
} cache_worker;

static void *cache_work(void *p)
{
    cache_worker *w = p;
    for (int r = 0; r < 40; r++) {
        const int64_t n = ((int64_t)1 << 20) + ((int64_t)(r % 3) << 19);
        nd_array *a = NULL;
        if (nd_full(&a, ND_FLOAT32, 1, &n, nd_scalar_float(w->id * 1000 + r), nd_cpu()) != ND_OK) {
            w->bad++;
            continue;
        }
        const float *d = nd_data(a);
        for (int64_t i = 0; i < n; i += 997)
            if (d[i] != (float)(w->id * 1000 + r)) w->bad++;
        nd_release(a);
    }
    return NULL;
}

START_TEST(cpu_cache_threads)
{
    ND_OK_OR_FAIL(nd_memory_release_cached(nd_cpu()));
    pthread_t t[4];
    cache_worker w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (cache_worker){i + 1, 0};
        ck_assert_int_eq(pthread_create(&t[i], NULL, cache_work, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        ck_assert_int_eq(w[i].bad, 0);
    }
    ck_assert_uint_le(cpu_stats().cached, (size_t)16 * (8u << 20));
    ND_OK_OR_FAIL(nd_memory_release_cached(nd_cpu()));
}
END_TEST

START_TEST(cpu_memory_stats_and_limit)
{
    nd_memory_stats s0, s1, s2;
    ND_OK_OR_FAIL(nd_memory_get_stats(&s0, nd_cpu()));
    ck_assert(s0.pooled == cpu_cache_expected());
    ck_assert_int_eq(s0.kind, s0.pooled ? ND_POOL_KIND_CACHING : ND_POOL_KIND_NONE);
    nd_array *a = NULL, *b = NULL;
    int64_t shape[1] = {1 << 20};
    ND_OK_OR_FAIL(nd_zeros(&a, ND_FLOAT64, 1, shape, nd_cpu()));
    ND_OK_OR_FAIL(nd_memory_get_stats(&s1, nd_cpu()));
    ck_assert_uint_eq(s1.in_use - s0.in_use, 8u << 20);
    ck_assert(s1.peak_in_use >= s1.in_use);
    ck_assert(s1.allocs > s0.allocs);
    /* a limit below what the next array needs: ND_ERR_NOMEM with the figures */
    ND_OK_OR_FAIL(nd_memory_set_limit(nd_cpu(), s1.in_use + (1u << 20)));
    ND_EXPECT_ERR(nd_zeros(&b, ND_FLOAT64, 1, shape, nd_cpu()), ND_ERR_NOMEM, "limit");
    ck_assert_ptr_null(b);
    ck_assert_ptr_nonnull(strstr(nd_last_error(), "nd_zeros"));
    ND_OK_OR_FAIL(nd_memory_set_limit(nd_cpu(), 0));
    ND_OK_OR_FAIL(nd_zeros(&b, ND_FLOAT64, 1, shape, nd_cpu()));
    nd_release(a);
    nd_release(b);
    ND_OK_OR_FAIL(nd_memory_get_stats(&s2, nd_cpu()));
    ck_assert_uint_eq(s2.in_use, s0.in_use);
    ND_OK_OR_FAIL(nd_memory_reset_peak(nd_cpu()));
    ND_OK_OR_FAIL(nd_memory_get_stats(&s2, nd_cpu()));
    ck_assert_uint_eq(s2.peak_in_use, s2.in_use);
    ND_OK_OR_FAIL(nd_memory_release_cached(nd_cpu()));
    ND_EXPECT_ERR(nd_memory_get_stats(NULL, nd_cpu()), ND_ERR_INVALID, "'stats'");
    if (nd_cuda_device_count() == 0) { /* without a GPU (with one: suite gpu) */
        ND_EXPECT_ERR(nd_memory_get_stats(&s2, nd_cuda(0)), NO_GPU_STATUS, "cuda:0");
        ND_EXPECT_ERR(nd_memory_set_limit(nd_cuda(0), 1), NO_GPU_STATUS, "nd_memory_set_limit");
        ND_EXPECT_ERR(nd_memory_release_cached(nd_cuda(0)), NO_GPU_STATUS, "nd_memory_release_cached");
        ND_EXPECT_ERR(nd_memory_reset_peak(nd_cuda(0)), NO_GPU_STATUS, "nd_memory_reset_peak");
    }
}
END_TEST

START_TEST(cpu_streams_and_events_time_the_host)
{
    nd_stream *s = NULL;
    nd_event *e0 = NULL, *e1 = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s, nd_cpu()));
    ck_assert_int_eq(nd_stream_device(s).type, ND_DEVICE_CPU);
    ck_assert_ptr_null(nd_stream_native(s)); /* CPU streams have no native handle */
    ck_assert_ptr_null(nd_stream_native(NULL));
    ND_OK_OR_FAIL(nd_set_stream(s));
    ND_OK_OR_FAIL(nd_event_create(&e0, nd_cpu()));
    ND_OK_OR_FAIL(nd_event_create(&e1, nd_cpu()));
    float ms = -1;
    ND_EXPECT_ERR(nd_event_elapsed_ms(&ms, e0, e1), ND_ERR_INVALID, "never recorded");
    ND_EXPECT_ERR(nd_event_synchronize(e0), ND_ERR_INVALID, "never recorded");
    ND_OK_OR_FAIL(nd_event_record(e0, s));
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    ND_OK_OR_FAIL(nd_event_record(e1, NULL));
    ND_OK_OR_FAIL(nd_event_synchronize(e1));
    ND_OK_OR_FAIL(nd_event_elapsed_ms(&ms, e0, e1));
    ck_assert_msg(ms >= 19.0f && ms < 5000.0f, "elapsed %g ms", ms);
    ND_OK_OR_FAIL(nd_stream_synchronize(s));
    ND_OK_OR_FAIL(nd_set_stream(NULL));
    ck_assert_ptr_null(nd_get_stream(nd_cpu()));
    ND_EXPECT_ERR(nd_stream_create(NULL, nd_cpu()), ND_ERR_INVALID, "'stream'");
    ND_EXPECT_ERR(nd_event_create(NULL, nd_cpu()), ND_ERR_INVALID, "'event'");
    ND_EXPECT_ERR(nd_event_record(NULL, s), ND_ERR_INVALID, "'event'");
    ND_EXPECT_ERR(nd_event_elapsed_ms(NULL, e0, e1), ND_ERR_INVALID, "'ms'");
    ND_EXPECT_ERR(nd_stream_synchronize(NULL), ND_ERR_INVALID, "'stream'");
    nd_stream *g = NULL;
    nd_event *ge = NULL;
    if (nd_cuda_device_count() == 0) { /* without a GPU (with one: suite gpu) */
        ND_EXPECT_ERR(nd_stream_create(&g, nd_cuda(0)), NO_GPU_STATUS, "nd_stream_create");
        ND_EXPECT_ERR(nd_event_create(&ge, nd_cuda(0)), NO_GPU_STATUS, "nd_event_create");
        ck_assert_ptr_null(g);
        ck_assert_ptr_null(ge);
    }
    ND_OK_OR_FAIL(nd_event_destroy(e0));
    ND_OK_OR_FAIL(nd_event_destroy(e1));
    ND_OK_OR_FAIL(nd_stream_destroy(s));
    ND_OK_OR_FAIL(nd_stream_destroy(NULL));
    ND_OK_OR_FAIL(nd_event_destroy(NULL));
}
END_TEST

START_TEST(pinned_memory_falls_back_without_gpu)
{
    void *p = NULL, *q = NULL;
    ND_OK_OR_FAIL(nd_pinned_alloc(&p, 1000));
    ND_OK_OR_FAIL(nd_pinned_alloc(&q, 0));
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_ne(p, q);
    memset(p, 7, 1000);
    ND_OK_OR_FAIL(nd_pinned_free(p));
    ND_OK_OR_FAIL(nd_pinned_free(q));
    ND_OK_OR_FAIL(nd_pinned_free(NULL));
    int on_stack;
    ND_EXPECT_ERR(nd_pinned_free(&on_stack), ND_ERR_INVALID, "nd_pinned_alloc");
    ND_EXPECT_ERR(nd_pinned_alloc(NULL, 8), ND_ERR_INVALID, "'ptr'");

    nd_array *h = NULL, *src = NULL;
    int64_t shape[2] = {3, 4};
    ND_OK_OR_FAIL(nd_empty_pinned(&h, ND_FLOAT32, 2, shape));
    ck_assert(nd_is_pinned(h) == (nd_cuda_device_count() > 0));
    ck_assert_int_eq(nd_device_of(h).type, ND_DEVICE_CPU);
    ND_OK_OR_FAIL(nd_arange(&src, ND_FLOAT32, 0, 12, 1, nd_cpu()));
    nd_array *src2 = NULL;
    ND_OK_OR_FAIL(nd_reshape(&src2, src, 2, shape));
    ND_OK_OR_FAIL(nd_copy_async(h, src2, NULL));
    float v[12];
    ND_OK_OR_FAIL(nd_copy_to_host(v, h, sizeof v));
    for (int i = 0; i < 12; i++) ck_assert(v[i] == (float)i);
    ND_EXPECT_ERR(nd_copy_async(h, src, NULL), ND_ERR_SHAPE, "(12,)");
    nd_array *i32 = NULL;
    ND_OK_OR_FAIL(nd_zeros(&i32, ND_INT32, 2, shape, nd_cpu()));
    ND_EXPECT_ERR(nd_copy_async(i32, h, NULL), ND_ERR_DTYPE, "int32");
    ND_EXPECT_ERR(nd_copy_async(NULL, h, NULL), ND_ERR_INVALID, "'dst'");
    ND_EXPECT_ERR(nd_empty_pinned(&h, ND_FLOAT32, -1, shape), ND_ERR_INVALID, "ndim");
    nd_release(h);
    nd_release(src);
    nd_release(src2);
    nd_release(i32);
}
END_TEST

/* nd_set_stream with a CPU stream makes it the CPU's current
 * stream, as for a GPU stream (nd_get_stream(nd_cpu()) returned NULL). */
START_TEST(cpu_stream_becomes_the_current_stream)
{
    nd_stream *s = NULL, *t = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s, nd_cpu()));
    ND_OK_OR_FAIL(nd_stream_create(&t, nd_cpu()));
    ck_assert_ptr_null(nd_get_stream(nd_cpu()));
    ND_OK_OR_FAIL(nd_set_stream(s));
    ck_assert_ptr_eq(nd_get_stream(nd_cpu()), s);
    ck_assert_ptr_null(nd_get_stream(nd_cuda(0))); /* other devices keep theirs */
    ND_OK_OR_FAIL(nd_set_stream(t));
    ck_assert_ptr_eq(nd_get_stream(nd_cpu()), t);
    /* work still runs (synchronously) with a current CPU stream */
    nd_array *a = NULL, *b = NULL;
    ND_OK_OR_FAIL(nd_arange(&a, ND_FLOAT64, 0, 4, 1, nd_cpu()));
    ND_OK_OR_FAIL(nd_add(&b, a, a));
    double v[4];
    ND_OK_OR_FAIL(nd_copy_to_host(v, b, sizeof v));
    ck_assert(v[3] == 6.0);
    /* destroying the current stream resets the device to the default */
    ND_OK_OR_FAIL(nd_stream_destroy(t));
    ck_assert_ptr_null(nd_get_stream(nd_cpu()));
    ND_OK_OR_FAIL(nd_set_stream(s));
    ND_OK_OR_FAIL(nd_set_stream(NULL)); /* every device back to its default */
    ck_assert_ptr_null(nd_get_stream(nd_cpu()));
    ND_OK_OR_FAIL(nd_stream_destroy(s));
    nd_release(a);
    nd_release(b);
}
END_TEST

/* nd_memory_reset_peak racing with allocations left peak_in_use
 * below in_use (8083 of 200000 snapshots on the CPU). One thread allocates
 * and frees arrays of varying sizes, the other resets the peak and takes
 * snapshots; every snapshot must have peak_in_use >= in_use. */
typedef struct peak_race {
    nd_device dev;
    atomic_int stop;
    long limit;   /* allocations before the allocating thread stops by itself (0: none) */
    int failures; /* allocation failures of the allocating thread */
} peak_race;

static void *peak_race_alloc(void *p)
{
    peak_race *r = p;
    nd_array *live[8] = {NULL};
    unsigned k = 0;
    while (!atomic_load(&r->stop) && (r->limit == 0 || (long)k < r->limit)) {
        unsigned i = k % 8;
        nd_release(live[i]);
        live[i] = NULL;
        int64_t n = 1 + (int64_t)((k * 2654435761u) % 4096u);
        if (nd_empty(&live[i], ND_FLOAT32, 1, &n, r->dev)) r->failures++;
        k++;
    }
    for (int i = 0; i < 8; i++) nd_release(live[i]);
    return NULL;
}

static void check_peak_race(nd_device dev, int snapshots, long limit)
{
    peak_race r = {.dev = dev, .limit = limit};
    atomic_init(&r.stop, 0);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, peak_race_alloc, &r), 0);
    int bad = 0;
    nd_memory_stats s = {0}, first_bad = {0};
    for (int i = 0; i < snapshots; i++) {
        ND_OK_OR_FAIL(nd_memory_reset_peak(dev));
        ND_OK_OR_FAIL(nd_memory_get_stats(&s, dev));
        if (s.peak_in_use < s.in_use && bad++ == 0) first_bad = s;
    }
    atomic_store(&r.stop, 1);
    pthread_join(th, NULL);
    ck_assert_int_eq(r.failures, 0);
    ck_assert_msg(bad == 0, "%d of %d snapshots had peak_in_use < in_use (first: peak %zu, in use %zu)", bad, snapshots,
                  first_bad.peak_in_use, first_bad.in_use);
    /* and at rest the peak restarts from in_use exactly */
    ND_OK_OR_FAIL(nd_memory_reset_peak(dev));
    ND_OK_OR_FAIL(nd_memory_get_stats(&s, dev));
    ck_assert_uint_eq(s.peak_in_use, s.in_use);
}

START_TEST(memory_peak_never_below_in_use_while_resetting)
{
    /* ND_TEST_LARGE=0 (valgrind, compute-sanitizer): valgrind runs the two
     * threads one at a time and may starve the snapshot thread while the
     * other allocates, so there the allocating thread stops by itself after
     * 20000 allocations and 2000 snapshots are taken */
    const int large = nd_test_large();
    check_peak_race(nd_cpu(), large ? 200000 : 2000, large ? 0 : 20000);
    /* the CUDA pool keeps its books under one mutex: the same contract */
    if (nd_test_gpu_count() > 0) check_peak_race(nd_cuda(0), large ? 20000 : 500, large ? 0 : 5000);
}
END_TEST

Suite *suite_runtime(void)
{
    Suite *s = suite_create("runtime");
    TCase *tc = tcase_create("runtime");
    tcase_add_test(tc, cpu_memory_stats_and_limit);
    tcase_add_test(tc, cpu_keeps_large_blocks);
    tcase_add_test(tc, cpu_cache_yields_to_the_limit);
    tcase_add_test(tc, cpu_cache_bounds_and_switch);
    tcase_add_test(tc, cpu_cache_threads);
    tcase_add_test(tc, cpu_streams_and_events_time_the_host);
    tcase_add_test(tc, pinned_memory_falls_back_without_gpu);
    tcase_add_test(tc, cpu_stream_becomes_the_current_stream);
    tcase_add_test(tc, memory_peak_never_below_in_use_while_resetting);
    suite_add_tcase(s, tc);
    return s;
}
