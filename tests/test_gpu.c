/* CUDA backend part 1 on a real GPU: device info, transfers of every dtype
 * and layout, casts and fills against the CPU, pinned memory, async copies
 * with events, streams, and the device pool. Without a GPU the whole suite
 * is reported as SKIPPED (it adds no test, so nothing counts as passed). */
#include <stdio.h>
#include <stdlib.h>

#include "test_util.h"
#ifdef ND_CUDA_EMU
#include <cuda_runtime.h>
#include <pthread.h>
#include <time.h>

#include "core/internal.h"
#endif

static nd_device gpu(void) { return nd_cuda(0); }

/* Deterministic, never-zero test bytes for any dtype; floats get a mix of
 * values including NaN, inf, -0 and subnormals. */
static void fill_pattern(void *buf, nd_dtype t, int64_t n, unsigned seed)
{
    unsigned char *b = buf;
    size_t sz = nd_dtype_size(t);
    for (size_t i = 0; i < (size_t)n * sz; i++) {
        seed = seed * 1103515245u + 12345u;
        b[i] = (unsigned char)(seed >> 16);
    }
    if (t == ND_BOOL)
        for (int64_t i = 0; i < n; i++) b[i] = (unsigned char)(b[i] & 1);
    if (t == ND_FLOAT32) {
        float *f = buf;
        static const float special[6] = {NAN, INFINITY, -INFINITY, -0.0f, 1e-40f, 3.5f};
        for (int64_t i = 0; i < n && i < 6; i++) f[i * 7 % n] = special[i];
    }
}

START_TEST(device_info)
{
    nd_device_info info;
    ND_OK_OR_FAIL(nd_device_get_info(&info, gpu()));
    ck_assert(strlen(info.name) > 0);
    ck_assert(info.cc_major >= 7);
    ck_assert(info.multiprocessors > 0);
    ck_assert(info.total_memory > 0 && info.free_memory <= info.total_memory);
    ck_assert(info.peak_bandwidth_gbps > 100.0);
    printf("gpu: %s cc %d.%d, %d SMs, %.1f GiB, peak %.0f GB/s\n", info.name, info.cc_major, info.cc_minor,
           info.multiprocessors, (double)info.total_memory / (1 << 30), info.peak_bandwidth_gbps);
    ck_assert_int_eq(nd_default_device().type, ND_DEVICE_CUDA);
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
    ck_assert_ptr_nonnull(strstr(nd_build_info(), "CUDA runtime"));
}
END_TEST

/* Every dtype: host -> device -> host, contiguous and through a transposed
 * and a negatively strided view made on the device. */
START_TEST(roundtrip_every_dtype_and_layout)
{
    int64_t shape[2] = {37, 53};
    int64_t n = shape[0] * shape[1];
    for (int t = 0; t < ND_NUM_DTYPES; t++) {
        size_t sz = nd_dtype_size((nd_dtype)t);
        unsigned char *src = malloc((size_t)n * sz), *back = malloc((size_t)n * sz), *want = malloc((size_t)n * sz);
        fill_pattern(src, (nd_dtype)t, n, 77u + (unsigned)t);
        nd_array *d = NULL, *h = NULL, *dt = NULL, *ht = NULL, *ds = NULL, *hs = NULL;
        ND_OK_OR_FAIL(nd_from_host(&d, src, (nd_dtype)t, 2, shape, gpu()));
        memset(back, 0xCD, (size_t)n * sz);
        ND_OK_OR_FAIL(nd_copy_to_host(back, d, (size_t)n * sz));
        ck_assert_msg(memcmp(src, back, (size_t)n * sz) == 0, "%s round trip", nd_dtype_name((nd_dtype)t));
        /* transposed view on both devices must give the same C-order bytes */
        ND_OK_OR_FAIL(nd_from_host(&h, src, (nd_dtype)t, 2, shape, nd_cpu()));
        ND_OK_OR_FAIL(nd_transpose(&dt, d, NULL));
        ND_OK_OR_FAIL(nd_transpose(&ht, h, NULL));
        ND_OK_OR_FAIL(nd_copy_to_host(want, ht, (size_t)n * sz));
        memset(back, 0xCD, (size_t)n * sz);
        ND_OK_OR_FAIL(nd_copy_to_host(back, dt, (size_t)n * sz));
        ck_assert_msg(memcmp(want, back, (size_t)n * sz) == 0, "%s transposed", nd_dtype_name((nd_dtype)t));
        nd_range r[2] = {{ND_NONE, ND_NONE, -3}, {1, ND_NONE, 2}};
        ND_OK_OR_FAIL(nd_slice(&ds, d, 2, r));
        ND_OK_OR_FAIL(nd_slice(&hs, h, 2, r));
        size_t nb = nd_nbytes(hs);
        ND_OK_OR_FAIL(nd_copy_to_host(want, hs, nb));
        memset(back, 0xCD, nb);
        ND_OK_OR_FAIL(nd_copy_to_host(back, ds, nb));
        ck_assert_msg(memcmp(want, back, nb) == 0, "%s sliced", nd_dtype_name((nd_dtype)t));
        /* writing into a strided device view */
        ND_OK_OR_FAIL(nd_copy_from_host(ds, want, nb));
        ND_OK_OR_FAIL(nd_copy_to_host(back, ds, nb));
        ck_assert(memcmp(want, back, nb) == 0);
        nd_release(d), nd_release(h), nd_release(dt), nd_release(ht), nd_release(ds), nd_release(hs);
        free(src), free(back), free(want);
    }
}
END_TEST

/* All 169 casts on the GPU are bit-identical to the CPU's. */
START_TEST(casts_match_cpu)
{
    int64_t n = 4099;
    for (int s = 0; s < ND_NUM_DTYPES; s++) {
        size_t ssz = nd_dtype_size((nd_dtype)s);
        unsigned char *src = malloc((size_t)n * ssz);
        fill_pattern(src, (nd_dtype)s, n, 5u + (unsigned)s);
        nd_array *h = NULL, *d = NULL;
        ND_OK_OR_FAIL(nd_from_host(&h, src, (nd_dtype)s, 1, &n, nd_cpu()));
        ND_OK_OR_FAIL(nd_from_host(&d, src, (nd_dtype)s, 1, &n, gpu()));
        for (int t = 0; t < ND_NUM_DTYPES; t++) {
            size_t tsz = nd_dtype_size((nd_dtype)t);
            nd_array *hc = NULL, *dc = NULL;
            ND_OK_OR_FAIL(nd_astype(&hc, h, (nd_dtype)t));
            ND_OK_OR_FAIL(nd_astype(&dc, d, (nd_dtype)t));
            unsigned char *a = malloc((size_t)n * tsz), *b = malloc((size_t)n * tsz);
            memset(b, 0xEE, (size_t)n * tsz);
            ND_OK_OR_FAIL(nd_copy_to_host(a, hc, (size_t)n * tsz));
            ND_OK_OR_FAIL(nd_copy_to_host(b, dc, (size_t)n * tsz));
            ck_assert_msg(memcmp(a, b, (size_t)n * tsz) == 0, "cast %s -> %s differs from the CPU",
                          nd_dtype_name((nd_dtype)s), nd_dtype_name((nd_dtype)t));
            free(a), free(b);
            nd_release(hc), nd_release(dc);
        }
        nd_release(h), nd_release(d);
        free(src);
    }
}
END_TEST

START_TEST(fills_and_transfers_between_devices)
{
    int64_t shape[3] = {3, 50, 70};
    for (int t = 0; t < ND_NUM_DTYPES; t++) {
        nd_array *z = NULL, *o = NULL, *f = NULL, *zh = NULL, *fh = NULL, *back = NULL;
        ND_OK_OR_FAIL(nd_zeros(&z, (nd_dtype)t, 3, shape, gpu()));
        ND_OK_OR_FAIL(nd_ones(&o, (nd_dtype)t, 3, shape, gpu()));
        ND_OK_OR_FAIL(nd_full(&f, (nd_dtype)t, 3, shape, nd_scalar_int(1), gpu()));
        ND_OK_OR_FAIL(nd_to_device(&zh, z, nd_cpu()));
        ND_OK_OR_FAIL(nd_to_device(&fh, o, nd_cpu()));
        ck_assert_int_eq(nd_device_of(zh).type, ND_DEVICE_CPU);
        size_t nb = nd_nbytes(zh);
        unsigned char *a = malloc(nb), *b = malloc(nb);
        ND_OK_OR_FAIL(nd_copy_to_host(a, zh, nb));
        for (size_t i = 0; i < nb; i++) ck_assert_uint_eq(a[i], 0);
        ND_OK_OR_FAIL(nd_copy_to_host(a, fh, nb));
        ND_OK_OR_FAIL(nd_copy_to_host(b, f, nb));
        ck_assert(memcmp(a, b, nb) == 0);
        ND_OK_OR_FAIL(nd_to_device(&back, fh, gpu())); /* cpu -> cuda */
        ND_OK_OR_FAIL(nd_copy_to_host(b, back, nb));
        ck_assert(memcmp(a, b, nb) == 0);
        free(a), free(b);
        nd_release(z), nd_release(o), nd_release(f), nd_release(zh), nd_release(fh), nd_release(back);
    }
}
END_TEST

/* 96 MiB from pageable memory goes through the staged pipeline. */
START_TEST(large_pageable_transfer)
{
    int64_t n = 24 << 20;
    float *src = malloc((size_t)n * 4), *back = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) src[i] = (float)(i % 100003) + 0.25f;
    nd_array *d = NULL;
    ND_OK_OR_FAIL(nd_from_host(&d, src, ND_FLOAT32, 1, &n, gpu()));
    memset(back, 0, (size_t)n * 4);
    ND_OK_OR_FAIL(nd_copy_to_host(back, d, (size_t)n * 4));
    ck_assert(memcmp(src, back, (size_t)n * 4) == 0);
    nd_release(d);
    free(src), free(back);
}
END_TEST

START_TEST(pinned_async_copies_with_events)
{
    int64_t shape[2] = {1024, 1024};
    nd_array *h = NULL, *d = NULL, *h2 = NULL;
    ND_OK_OR_FAIL(nd_empty_pinned(&h, ND_FLOAT32, 2, shape));
    ND_OK_OR_FAIL(nd_empty_pinned(&h2, ND_FLOAT32, 2, shape));
    ck_assert(nd_is_pinned(h));
    float *hp = nd_data(h);
    for (int64_t i = 0; i < shape[0] * shape[1]; i++) hp[i] = (float)i * 0.5f + 1.0f;
    ND_OK_OR_FAIL(nd_empty(&d, ND_FLOAT32, 2, shape, gpu()));
    nd_stream *s = NULL;
    nd_event *e0 = NULL, *e1 = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s, gpu()));
    ND_OK_OR_FAIL(nd_event_create(&e0, gpu()));
    ND_OK_OR_FAIL(nd_event_create(&e1, gpu()));
    ND_OK_OR_FAIL(nd_event_record(e0, s));
    ND_OK_OR_FAIL(nd_copy_async(d, h, s));
    ND_OK_OR_FAIL(nd_copy_async(h2, d, s));
    ND_OK_OR_FAIL(nd_event_record(e1, s));
    ND_OK_OR_FAIL(nd_event_synchronize(e1));
    float ms = -1;
    ND_OK_OR_FAIL(nd_event_elapsed_ms(&ms, e0, e1));
    ck_assert(ms > 0.0f);
    ck_assert(memcmp(nd_data(h), nd_data(h2), (size_t)shape[0] * shape[1] * 4) == 0);
    ND_OK_OR_FAIL(nd_stream_synchronize(s));
    nd_event_destroy(e0), nd_event_destroy(e1);
    ND_OK_OR_FAIL(nd_stream_destroy(s));
    nd_release(h), nd_release(d), nd_release(h2);
    void *p = NULL;
    ND_OK_OR_FAIL(nd_pinned_alloc(&p, 12345));
    ND_OK_OR_FAIL(nd_pinned_free(p));
}
END_TEST

/* Work issued while a stream is current runs on it, in order. */
START_TEST(current_stream_orders_work)
{
    nd_stream *s = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s, gpu()));
    ND_OK_OR_FAIL(nd_set_stream(s));
    ck_assert_ptr_eq(nd_get_stream(gpu()), s);
    int64_t n = 1 << 24;
    nd_array *a = NULL, *b = NULL;
    for (int rep = 0; rep < 3; rep++) {
        ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT32, 1, &n, nd_scalar_float(rep + 1.5), gpu()));
        ND_OK_OR_FAIL(nd_astype(&b, a, ND_FLOAT64));
        double v[4];
        nd_range last = {n - 4, ND_NONE, 1};
        nd_array *tail = NULL;
        ND_OK_OR_FAIL(nd_slice(&tail, b, 1, &last));
        ND_OK_OR_FAIL(nd_copy_to_host(v, tail, sizeof v));
        for (int i = 0; i < 4; i++) ck_assert(v[i] == rep + 1.5);
        nd_release(tail);
        nd_release(a), nd_release(b);
        a = b = NULL;
    }
    ND_OK_OR_FAIL(nd_set_stream(NULL));
    ck_assert_ptr_null(nd_get_stream(gpu()));
    ND_OK_OR_FAIL(nd_stream_destroy(s));
}
END_TEST

START_TEST(device_pool_stats_limit_release)
{
    nd_memory_stats s0, s1, s2;
    ND_OK_OR_FAIL(nd_memory_release_cached(gpu()));
    ND_OK_OR_FAIL(nd_memory_get_stats(&s0, gpu()));
    nd_array *a = NULL, *b = NULL, *c = NULL;
    int64_t n = 1 << 20; /* 4 MiB float32 */
    ND_OK_OR_FAIL(nd_empty(&a, ND_FLOAT32, 1, &n, gpu()));
    ND_OK_OR_FAIL(nd_memory_get_stats(&s1, gpu()));
    ck_assert_uint_eq(s1.in_use - s0.in_use, 4u << 20);
    nd_release(a);
    a = NULL; /* a non-NULL *out is an out= argument (found by the emulated GPU) */
    ND_OK_OR_FAIL(nd_memory_get_stats(&s2, gpu()));
    if (s2.pooled) {
        ck_assert_uint_eq(s2.in_use, s0.in_use);
        ck_assert(s2.cached >= (4u << 20));
        uint64_t before = s2.device_allocs;
        ND_OK_OR_FAIL(nd_empty(&a, ND_FLOAT32, 1, &n, gpu())); /* served from the cache */
        ND_OK_OR_FAIL(nd_memory_get_stats(&s2, gpu()));
        ck_assert_uint_eq(s2.device_allocs, before);
        nd_release(a);
        a = NULL;
    }
    ND_OK_OR_FAIL(nd_memory_release_cached(gpu()));
    ND_OK_OR_FAIL(nd_memory_get_stats(&s2, gpu()));
    ck_assert_uint_eq(s2.cached, 0);
    ND_OK_OR_FAIL(nd_memory_set_limit(gpu(), s2.reserved + (6u << 20)));
    ND_OK_OR_FAIL(nd_empty(&b, ND_FLOAT32, 1, &n, gpu()));
    ND_EXPECT_ERR(nd_empty(&c, ND_FLOAT32, 1, &n, gpu()), ND_ERR_NOMEM, "limit");
    ck_assert_ptr_null(c);
    ND_OK_OR_FAIL(nd_memory_set_limit(gpu(), 0));
    ND_OK_OR_FAIL(nd_empty(&c, ND_FLOAT32, 1, &n, gpu()));
    nd_release(b), nd_release(c);
    ND_OK_OR_FAIL(nd_memory_reset_peak(gpu()));
    ND_OK_OR_FAIL(nd_memory_get_stats(&s2, gpu()));
    ck_assert_uint_eq(s2.peak_in_use, s2.in_use);
}
END_TEST

START_TEST(device_errors)
{
    int64_t n = 8;
    nd_array *g = NULL, *h = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_ones(&g, ND_FLOAT32, 1, &n, gpu()));
    ND_OK_OR_FAIL(nd_ones(&h, ND_FLOAT32, 1, &n, nd_cpu()));
    ND_EXPECT_ERR(nd_add(&r, g, h), ND_ERR_DEVICE, "nd_add");
    ck_assert_ptr_null(r);
    nd_array *o = h;
    ND_EXPECT_ERR(nd_copy(&o, g), ND_ERR_DEVICE, "nd_copy");
    int cnt = nd_cuda_device_count();
    ND_EXPECT_ERR(nd_empty(&r, ND_FLOAT32, 1, &n, nd_cuda(cnt)), ND_ERR_DEVICE, "does not exist");
    nd_release(g), nd_release(h);
}
END_TEST

#ifdef ND_CUDA_EMU
/* One thread, two streams, two products in flight: the first is held back
 * on stream A (a gate queued before it), the second runs on stream B. With
 * one cuBLAS workspace per handle they would share it while both are in
 * flight; the cuBLAS stand-in reports that as a device fault.
 * Emulation only: a GPU shows the race as wrong numbers at
 * random. */
static pthread_mutex_t g_gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gate_cv = PTHREAD_COND_INITIALIZER;
static int g_gate_open;
static void gate_wait(void *arg)
{
    (void)arg;
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 3; /* never hangs a failing test */
    pthread_mutex_lock(&g_gate_mu);
    while (!g_gate_open && pthread_cond_timedwait(&g_gate_cv, &g_gate_mu, &dl) == 0) {
    }
    pthread_mutex_unlock(&g_gate_mu);
}

START_TEST(matmul_on_two_streams_of_one_thread)
{
    int64_t shape[2] = {48, 40}, shape_b[2] = {40, 56};
    nd_array *ha = NULL, *hb = NULL, *a = NULL, *b = NULL, *c1 = NULL, *c2 = NULL, *ref = NULL;
    nd_rng *rng = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&rng, 7));
    ND_OK_OR_FAIL(nd_random_uniform(&ha, rng, ND_FLOAT32, 2, shape, -1.0, 1.0, nd_cpu()));
    ND_OK_OR_FAIL(nd_random_uniform(&hb, rng, ND_FLOAT32, 2, shape_b, -1.0, 1.0, nd_cpu()));
    ND_OK_OR_FAIL(nd_matmul(&ref, ha, hb));
    ND_OK_OR_FAIL(nd_to_device(&a, ha, gpu()));
    ND_OK_OR_FAIL(nd_to_device(&b, hb, gpu()));
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
    nd_stream *sa = NULL, *sb = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&sa, gpu()));
    ND_OK_OR_FAIL(nd_stream_create(&sb, gpu()));
    g_gate_open = 0;
    ck_assert_int_eq(nd_emu_enqueue((cudaStream_t)nd__stream_handle(sa), gate_wait, NULL), cudaSuccess);
    ND_OK_OR_FAIL(nd_set_stream(sa));
    ND_OK_OR_FAIL(nd_matmul(&c1, a, b)); /* queued behind the gate */
    ND_OK_OR_FAIL(nd_set_stream(sb));
    ND_OK_OR_FAIL(nd_matmul(&c2, a, b)); /* same thread, same handle, other stream */
    pthread_mutex_lock(&g_gate_mu);
    g_gate_open = 1;
    pthread_cond_broadcast(&g_gate_cv);
    pthread_mutex_unlock(&g_gate_mu);
    ND_OK_OR_FAIL(nd_set_stream(NULL));
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
    float want[48 * 56], got[48 * 56];
    ND_OK_OR_FAIL(nd_copy_to_host(want, ref, sizeof want));
    nd_array *outs[2] = {c1, c2};
    for (int k = 0; k < 2; k++) {
        ND_OK_OR_FAIL(nd_copy_to_host(got, outs[k], sizeof got));
        for (int i = 0; i < 48 * 56; i++)
            ck_assert_msg(fabsf(got[i] - want[i]) <= 1e-5f * (1.0f + fabsf(want[i])), "product %d element %d: %g vs %g",
                          k, i, (double)got[i], (double)want[i]);
    }
    ND_OK_OR_FAIL(nd_stream_destroy(sa));
    ND_OK_OR_FAIL(nd_stream_destroy(sb));
    nd_array *all[] = {ha, hb, a, b, c1, c2, ref};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
    nd_rng_destroy(rng);
}
END_TEST

static void *open_gate_later(void *arg)
{
    (void)arg;
    struct timespec d = {0, 200 * 1000000L};
    nanosleep(&d, NULL);
    pthread_mutex_lock(&g_gate_mu);
    g_gate_open = 1;
    pthread_cond_broadcast(&g_gate_cv);
    pthread_mutex_unlock(&g_gate_mu);
    return NULL;
}

/* cusolverDnXgeev takes a host workspace that the call may still use while
 * its work is queued: a batch that hands the same workspace to the next
 * matrix must wait for the stream first. The stream is held back while the
 * batch is submitted, so every call is still queued when the next comes
 * (the cuSOLVER stand-in reports a shared host workspace as a fault). */
START_TEST(eig_batch_waits_before_reusing_the_host_workspace)
{
    const int64_t nb = 3, n = 4, shape[3] = {3, 4, 4};
    double h[3 * 4 * 4];
    for (int64_t b = 0; b < nb; b++) /* upper triangular: the eigenvalues are the diagonal */
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < n; c++)
                h[(b * n + r) * n + c] = c < r ? 0.0 : c == r ? (double)(b * 10 + r + 1) : 0.5 + 0.25 * (double)(r + c);
    nd_array *a = NULL, *w = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, h, ND_FLOAT64, 3, shape, gpu()));
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
    g_gate_open = 0;
    ck_assert_int_eq(nd_emu_enqueue((cudaStream_t)nd__stream_handle(NULL), gate_wait, NULL), cudaSuccess);
    pthread_t opener;
    ck_assert_int_eq(pthread_create(&opener, NULL, open_gate_later, NULL), 0);
    nd_status st = nd_linalg_eigvals(&w, a);
    pthread_join(opener, NULL);
    ck_assert_msg(st == ND_OK, "eigvals of a batch: %s", nd_last_error());
    double got[3 * 4 * 2];
    ND_OK_OR_FAIL(nd_copy_to_host(got, w, sizeof got));
    for (int64_t b = 0; b < nb; b++)
        for (int64_t r = 0; r < n; r++) {
            double want = (double)(b * 10 + r + 1), best = INFINITY;
            for (int64_t j = 0; j < n; j++) {
                const double *z = got + 2 * (b * n + j);
                best = fmin(best, hypot(z[0] - want, z[1]));
            }
            ck_assert_msg(best <= 1e-12 * want, "matrix %lld: eigenvalue %g missing (off by %g)", (long long)b, want, best);
        }
    nd_release(a), nd_release(w);
}
END_TEST

/* A cuBLAS call that fails because a CUDA call inside it failed leaves that
 * error as the thread's last error; the matmul reports the failure, and the
 * next launch must not report it again as its own. */
START_TEST(failed_cublas_call_leaves_no_error_behind)
{
    int64_t shape[2] = {8, 8};
    nd_array *a = NULL, *c = NULL, *d = NULL;
    ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT32, 2, shape, nd_scalar_float(2), gpu()));
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
    nd_emu_cublas_fail_next(3 /* CUBLAS_STATUS_ALLOC_FAILED */, cudaErrorMemoryAllocation);
    nd_status st = nd_matmul(&c, a, a);
    ck_assert_int_eq(st, ND_ERR_NOMEM);
    ck_assert_ptr_null(c);
    ck_assert_msg(strstr(nd_last_error(), "CUBLAS_STATUS_ALLOC_FAILED"), "message: %s", nd_last_error());
    st = nd_binary_scalar(&d, ND_BINARY_ADD, a, nd_scalar_float(1));
    ck_assert_msg(st == ND_OK, "the launch after a failed cuBLAS call failed: %s", nd_last_error());
    float got[64];
    ND_OK_OR_FAIL(nd_copy_to_host(got, d, sizeof got));
    for (int i = 0; i < 64; i++) ck_assert_msg(got[i] == 3.0f, "element %d: %g", i, (double)got[i]);
    ND_OK_OR_FAIL(nd_matmul(&c, a, a)); /* and cuBLAS works again */
    ND_OK_OR_FAIL(nd_copy_to_host(got, c, sizeof got));
    for (int i = 0; i < 64; i++) ck_assert_msg(got[i] == 32.0f, "product element %d: %g", i, (double)got[i]);
    nd_release(a), nd_release(c), nd_release(d);
}
END_TEST
#endif

Suite *suite_gpu(void)
{
    Suite *s = suite_create("gpu");
    if (nd_test_gpu_count() == 0) {
        printf("gpu suite: SKIPPED (no GPU: %s)\n", nd_build_info());
        return s; /* no test case: nothing is counted as passed */
    }
    TCase *tc = tcase_create("gpu");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, device_info);
    tcase_add_test(tc, roundtrip_every_dtype_and_layout);
    tcase_add_test(tc, casts_match_cpu);
    tcase_add_test(tc, fills_and_transfers_between_devices);
    tcase_add_test(tc, large_pageable_transfer);
    tcase_add_test(tc, pinned_async_copies_with_events);
    tcase_add_test(tc, current_stream_orders_work);
    tcase_add_test(tc, device_pool_stats_limit_release);
    tcase_add_test(tc, device_errors);
#ifdef ND_CUDA_EMU
    tcase_add_test(tc, matmul_on_two_streams_of_one_thread);
    tcase_add_test(tc, failed_cublas_call_leaves_no_error_behind);
    tcase_add_test(tc, eig_batch_waits_before_reusing_the_host_workspace);
#endif
    suite_add_tcase(s, tc);
    return s;
}
