/* The runtime API on this machine: memory statistics and limits, streams
 * and events, pinned memory and asynchronous copies (CPU versions, and
 * the errors a CUDA device gives without a GPU). The same calls run on a
 * GPU in `make gpu-check`. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "test_util.h"

#ifdef ND_WITH_CUDA
#define NO_GPU_STATUS ND_ERR_DEVICE
#else
#define NO_GPU_STATUS ND_ERR_UNSUPPORTED
#endif

START_TEST(cpu_memory_stats_and_limit)
{
    nd_memory_stats s0, s1, s2;
    ND_OK_OR_FAIL(nd_memory_get_stats(&s0, nd_cpu()));
    ck_assert(!s0.pooled);
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
    tcase_add_test(tc, cpu_streams_and_events_time_the_host);
    tcase_add_test(tc, pinned_memory_falls_back_without_gpu);
    tcase_add_test(tc, cpu_stream_becomes_the_current_stream);
    tcase_add_test(tc, memory_peak_never_below_in_use_while_resetting);
    suite_add_tcase(s, tc);
    return s;
}
