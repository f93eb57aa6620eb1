/* Philox on the GPU (src/cuda/kernels_random.cu) against the CPU backend.
 *
 * CPU part (always runs): the kernel's per-block function and its thread
 * -> block mapping (nd_philox_fill_block, nd_philox_thread_fill,
 * nd_philox_grid in src/shared/philox.h, the code the CUDA kernel runs) replayed
 * on the host for every thread of the launch the backend would make, in
 * reverse thread order and with small grids that exercise the
 * grid-stride loop, into poisoned buffers with sentinels; the result must
 * equal the CPU backend's array byte for byte, for every float dtype,
 * both distributions, partial last blocks and offsets wrapping past 2^64.
 *
 * GPU part (only with a GPU; otherwise SKIPPED and no test is added):
 * nd_random_uniform / nd_random_normal on cuda:0 equal the CPU's arrays
 * BIT FOR BIT (memcmp) for every float dtype x distribution x sizes 1, 3,
 * 4, 5, 1000, 10^6 + 3 x seeds x offsets, into poisoned outputs with
 * sentinels on both sides, aligned and misaligned, on the default and a
 * created stream, and again after the generator has advanced. */
#include <stdio.h>
#include <stdlib.h>

#include "shared/philox.h"
#include "test_util.h"
#ifdef ND_WITH_CUDA
#include "cuda/cuda_backend.h"
#endif

Suite *suite_gpu_random(void);

#define SENTINEL 0xA5
#define PAD 64 /* sentinel bytes on each side */

static const nd_dtype DTYPES[4] = {ND_FLOAT16, ND_BFLOAT16, ND_FLOAT32, ND_FLOAT64};

/* Parameter sets per distribution; the third uniform one makes the
 * float16/bfloat16 clamp replace values (1000 + u rounds onto 1001). */
static const double PARAMS[2][4][2] = {
    {{0.0, 1.0}, {-2.0, 3.0}, {1000.0, 1001.0}, {5.0, 5.0}},
    {{0.0, 1.0}, {1.5, 2.5}, {-3.25, 0.0}, {-1e3, 1e-3}},
};

/* The CPU backend's array, through the public API (n elements of t). */
static void *cpu_stream(nd_dtype t, int dist, uint64_t seed, uint64_t offset, int64_t n, double p0, double p1,
                        uint64_t *next_offset)
{
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, seed));
    ND_OK_OR_FAIL(nd_rng_set_offset(r, offset));
    nd_array *a = NULL;
    if (dist == ND_RANDOM_UNIFORM) ND_OK_OR_FAIL(nd_random_uniform(&a, r, t, 1, &n, p0, p1, nd_cpu()));
    else ND_OK_OR_FAIL(nd_random_normal(&a, r, t, 1, &n, p0, p1, nd_cpu()));
    size_t bytes = (size_t)n * nd_dtype_size(t);
    void *h = malloc(bytes + 1);
    ND_OK_OR_FAIL(nd_copy_to_host(h, a, bytes));
    if (next_offset) *next_offset = nd_rng_offset(r);
    nd_release(a);
    nd_rng_destroy(r);
    return h;
}

static void check_sentinels(const unsigned char *buf, size_t lead, size_t bytes, const char *what)
{
    for (size_t i = 0; i < lead; i++) ck_assert_msg(buf[i] == SENTINEL, "%s: byte %zu before the array written", what, i);
    for (size_t i = 0; i < PAD; i++)
        ck_assert_msg(buf[lead + bytes + i] == SENTINEL, "%s: byte %zu after the array written", what, i);
}

/* Replay the CUDA launch on the host: `nthreads` threads (0: the launch
 * nd__cuda_random makes) in reverse order, each running the kernel body
 * nd_philox_thread_fill; data starts `lead` bytes into a poisoned buffer. */
static unsigned char *emulate_launch(nd_dtype t, int dist, uint64_t seed, uint64_t offset, int64_t n, double p0,
                                     double p1, int64_t nthreads, size_t lead)
{
    int cls = nd_philox_class_of(t);
    size_t bytes = (size_t)n * nd_dtype_size(t);
    unsigned char *buf = malloc(lead + bytes + PAD);
    memset(buf, SENTINEL, lead + bytes + PAD);
    nd_philox_call c = nd_philox_call_init(cls, dist, seed, offset, n, p0, p1);
    int64_t nblocks = nd_philox_num_blocks(n, cls);
    if (nthreads == 0) nthreads = (int64_t)nd_philox_grid(nblocks) * ND_PHILOX_THREADS;
    for (int64_t tid = nthreads - 1; tid >= 0; tid--)
        nd_philox_thread_fill(&c, cls, dist, buf + lead, nblocks, tid, nthreads);
    return buf;
}

START_TEST(kernel_mapping_matches_cpu_backend)
{
    static const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 1000, 1001, 1002, 1003, 4099};
    static const uint64_t seeds[] = {0, 42, 0xdeadbeefcafebabeull};
    static const uint64_t offsets[] = {0, 7, UINT64_MAX - 2, UINT64_MAX};
    static const int64_t threads[] = {0, 1, 3, 256};
    int cases = 0;
    for (int k = 0; k < 4; k++)
        for (int dist = 0; dist < 2; dist++)
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
                for (int pi = 0; pi < 4; pi++) {
                    nd_dtype t = DTYPES[k];
                    int64_t n = sizes[si];
                    uint64_t seed = seeds[(si + (size_t)pi) % 3], off = offsets[(si + (size_t)k) % 4];
                    double p0 = PARAMS[dist][pi][0], p1 = PARAMS[dist][pi][1];
                    uint64_t next;
                    void *want = cpu_stream(t, dist, seed, off, n, p0, p1, &next);
                    ck_assert_uint_eq(next, off + (uint64_t)nd_philox_num_blocks(n, nd_philox_class_of(t)));
                    size_t bytes = (size_t)n * nd_dtype_size(t), lead = (size_t)(pi % 2) * nd_dtype_size(t);
                    for (int ti = 0; ti < 4; ti++) {
                        unsigned char *got = emulate_launch(t, dist, seed, off, n, p0, p1, threads[ti], lead);
                        ck_assert_msg(memcmp(got + lead, want, bytes) == 0,
                                      "%s %s n=%lld seed=%llx offset=%llx threads=%lld: differs from the CPU backend",
                                      nd_dtype_name(t), dist ? "normal" : "uniform", (long long)n,
                                      (unsigned long long)seed, (unsigned long long)off, (long long)threads[ti]);
                        check_sentinels(got, lead, bytes, nd_dtype_name(t));
                        free(got);
                        cases++;
                    }
                    free(want);
                }
    printf("gpu_random: %d host replays of the kernel's launch equal the CPU backend\n", cases);
}
END_TEST

/* Block numbers wrap mod 2^64: a call starting 2 blocks before 2^64 gets
 * blocks 2^64 - 2, 2^64 - 1, 0, 1, the latter equal to a call at 0. */
START_TEST(offsets_wrap_past_2_64)
{
    for (int k = 0; k < 4; k++)
        for (int dist = 0; dist < 2; dist++) {
            nd_dtype t = DTYPES[k];
            int64_t e = nd_philox_per_block(nd_philox_class_of(t));
            size_t is = nd_dtype_size(t);
            uint64_t next;
            unsigned char *across = cpu_stream(t, dist, 99, UINT64_MAX - 1, 4 * e, 0.0, 1.0, &next);
            ck_assert_uint_eq(next, 2);
            unsigned char *low = cpu_stream(t, dist, 99, 0, 2 * e, 0.0, 1.0, NULL);
            unsigned char *high = cpu_stream(t, dist, 99, UINT64_MAX - 1, 2 * e, 0.0, 1.0, NULL);
            ck_assert(memcmp(across, high, 2 * (size_t)e * is) == 0);
            ck_assert(memcmp(across + 2 * (size_t)e * is, low, 2 * (size_t)e * is) == 0);
            ck_assert(memcmp(low, high, 2 * (size_t)e * is) != 0);
            unsigned char *emu = emulate_launch(t, dist, 99, UINT64_MAX - 1, 4 * e, 0.0, 1.0, 0, 0);
            ck_assert(memcmp(emu, across, 4 * (size_t)e * is) == 0);
            free(emu);
            free(across);
            free(low);
            free(high);
        }
}
END_TEST

/* Launch geometry: one thread per block up to 2^28 blocks, never 0 CUDA
 * blocks, 2^20 CUDA blocks beyond (grid-stride), 64-bit block counts
 * without overflow. */
START_TEST(launch_geometry)
{
    ck_assert_uint_eq(nd_philox_grid(0), 1);
    ck_assert_uint_eq(nd_philox_grid(1), 1);
    ck_assert_uint_eq(nd_philox_grid(256), 1);
    ck_assert_uint_eq(nd_philox_grid(257), 2);
    ck_assert_uint_eq(nd_philox_grid((int64_t)1 << 28), 1u << 20);
    ck_assert_uint_eq(nd_philox_grid(((int64_t)1 << 28) + 1), 1u << 20);
    ck_assert_uint_eq(nd_philox_grid((int64_t)1 << 40), 1u << 20);
    ck_assert_int_eq(nd_philox_num_blocks(0, ND_PHILOX_F32), 0);
    ck_assert_int_eq(nd_philox_num_blocks(5, ND_PHILOX_F32), 2);
    ck_assert_int_eq(nd_philox_num_blocks(5, ND_PHILOX_F64), 3);
    ck_assert_int_eq(nd_philox_num_blocks(INT64_MAX, ND_PHILOX_F16), INT64_MAX / 4 + 1);
    ck_assert_int_eq(nd_philox_num_blocks(INT64_MAX, ND_PHILOX_F64), INT64_MAX / 2 + 1);
}
END_TEST

/* The CUDA entry points' host-side answers that need no device: the
 * supported set (the CPU's), a non-float dtype refused, and an empty
 * array returning before any device call (so it runs here without a GPU;
 * the arrays are CPU arrays that are never touched). */
START_TEST(cuda_backend_entry_points)
{
#ifdef ND_WITH_CUDA
    for (int t = 0; t <= ND_NUM_DTYPES; t++)
        for (int d = 0; d < 4; d++)
            ck_assert_int_eq(nd__cuda_random_supports(d, (nd_dtype)t),
                             (d < 2 && nd_philox_class_of((nd_dtype)t) >= 0) ||
                                 (d == ND_RANDOM_INTEGERS && nd_philox_int_class_of((nd_dtype)t) >= 0));
    nd_array *a = NULL;
    const int64_t four = 4, zero = 0;
    nd_philox_call c = nd_philox_call_init(ND_PHILOX_F32, ND_RANDOM_NORMAL, 1, 0, 4, 0.0, 1.0);
    ND_OK_OR_FAIL(nd_zeros(&a, ND_INT32, 1, &four, nd_cpu()));
    ND_EXPECT_ERR(nd__cuda_random(a, ND_RANDOM_NORMAL, &c), ND_ERR_INTERNAL, "no CUDA Philox kernel for int32");
    nd_release(a);
    a = NULL;
    ND_OK_OR_FAIL(nd_zeros(&a, ND_FLOAT32, 1, &zero, nd_cpu()));
    c = nd_philox_call_init(ND_PHILOX_F32, ND_RANDOM_UNIFORM, 1, 0, 0, 0.0, 1.0);
    ND_OK_OR_FAIL(nd__cuda_random(a, ND_RANDOM_UNIFORM, &c));
    nd_release(a);
#else
    printf("gpu_random: CPU-only build, no CUDA backend to ask\n");
#endif
}
END_TEST

/* ------------------------------------------------------------------ */
/* On the GPU                                                          */
/* ------------------------------------------------------------------ */

/* Generate n elements on cuda:0 into a view that starts `lead` elements
 * into a poisoned device buffer with PAD sentinel bytes after it; returns
 * the whole buffer copied back (lead * itemsize + bytes + PAD bytes). */
static unsigned char *gpu_stream(nd_rng *r, nd_dtype t, int dist, int64_t n, double p0, double p1, int64_t lead)
{
    size_t is = nd_dtype_size(t), bytes = (size_t)n * is;
    int64_t total = lead + n + PAD / (int64_t)is;
    size_t tb = (size_t)total * is;
    unsigned char *host = malloc(tb);
    memset(host, SENTINEL, tb);
    nd_array *buf = NULL, *view = NULL;
    ND_OK_OR_FAIL(nd_from_host(&buf, host, t, 1, &total, nd_cuda(0)));
    nd_range rg = {lead, lead + n, 1};
    ND_OK_OR_FAIL(nd_slice(&view, buf, 1, &rg));
    nd_array *keep = view;
    if (dist == ND_RANDOM_UNIFORM) ND_OK_OR_FAIL(nd_random_uniform(&view, r, t, 1, &n, p0, p1, nd_cuda(0)));
    else ND_OK_OR_FAIL(nd_random_normal(&view, r, t, 1, &n, p0, p1, nd_cuda(0)));
    ck_assert_ptr_eq(view, keep);
    ND_OK_OR_FAIL(nd_copy_to_host(host, buf, tb));
    check_sentinels(host, (size_t)lead * is, bytes, "gpu");
    nd_release(view);
    nd_release(buf);
    return host;
}

START_TEST(gpu_bit_identical_to_cpu)
{
    static const int64_t sizes[] = {1, 3, 4, 5, 1000, 1000003};
    static const uint64_t seeds[] = {0, 42, 0xdeadbeefcafebabeull};
    static const uint64_t offsets[] = {0, 5, UINT64_MAX - 1};
    int cases = 0;
    for (int k = 0; k < 4; k++)
        for (int dist = 0; dist < 2; dist++)
            for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
                for (int s = 0; s < 3; s++)
                    for (int o = 0; o < 3; o++) {
                        nd_dtype t = DTYPES[k];
                        int64_t n = sizes[si];
                        int pi = (int)(si + (size_t)s + (size_t)o) % 4;
                        double p0 = PARAMS[dist][pi][0], p1 = PARAMS[dist][pi][1];
                        size_t is = nd_dtype_size(t), bytes = (size_t)n * is;
                        int64_t lead = (s + o) % 2; /* misaligned views too */
                        nd_rng *r = NULL;
                        ND_OK_OR_FAIL(nd_rng_create(&r, seeds[s]));
                        ND_OK_OR_FAIL(nd_rng_set_offset(r, offsets[o]));
                        uint64_t next;
                        /* two calls in a row: the second after the generator advanced */
                        for (int call = 0; call < 2; call++) {
                            uint64_t at = nd_rng_offset(r);
                            void *want = cpu_stream(t, dist, seeds[s], at, n, p0, p1, &next);
                            unsigned char *got = gpu_stream(r, t, dist, n, p0, p1, lead);
                            ck_assert_msg(memcmp(got + (size_t)lead * is, want, bytes) == 0,
                                          "%s %s n=%lld seed=%llx offset=%llx (%g, %g): GPU differs from CPU",
                                          nd_dtype_name(t), dist ? "normal" : "uniform", (long long)n,
                                          (unsigned long long)seeds[s], (unsigned long long)at, p0, p1);
                            ck_assert_uint_eq(nd_rng_offset(r), next);
                            free(got);
                            free(want);
                            cases++;
                        }
                        nd_rng_destroy(r);
                    }
    printf("gpu_random: %d GPU arrays bit-identical to the CPU backend\n", cases);
}
END_TEST

/* A created stream as the current stream, and outs that go through a
 * temporary (other dtype, transposed): still the CPU's values. */
START_TEST(gpu_stream_and_cast_outs)
{
    nd_stream *st = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&st, nd_cuda(0)));
    ND_OK_OR_FAIL(nd_set_stream(st));
    for (int k = 0; k < 4; k++)
        for (int dist = 0; dist < 2; dist++) {
            nd_dtype t = DTYPES[k];
            const int64_t n = 389 * 773;
            size_t bytes = (size_t)n * nd_dtype_size(t);
            void *want = cpu_stream(t, dist, 7, 11, n, 0.0, 1.0, NULL);
            nd_rng *r = NULL;
            ND_OK_OR_FAIL(nd_rng_create(&r, 7));
            ND_OK_OR_FAIL(nd_rng_set_offset(r, 11));
            unsigned char *got = gpu_stream(r, t, dist, n, 0.0, 1.0, 0);
            ck_assert_msg(memcmp(got, want, bytes) == 0, "%s on a created stream", nd_dtype_name(t));
            free(got);
            /* a float64 out of a float32 draw, and a transposed out */
            if (t == ND_FLOAT32) {
                const int64_t shp[2] = {389, 773}, tshp[2] = {773, 389};
                nd_array *o64 = NULL, *base = NULL, *tv = NULL;
                ND_OK_OR_FAIL(nd_full(&o64, ND_FLOAT64, 2, shp, nd_scalar_float(NAN), nd_cuda(0)));
                ND_OK_OR_FAIL(nd_full(&base, ND_FLOAT32, 2, tshp, nd_scalar_float(NAN), nd_cuda(0)));
                ND_OK_OR_FAIL(nd_transpose(&tv, base, NULL));
                ND_OK_OR_FAIL(nd_rng_set_offset(r, 11));
                if (dist == 0) ND_OK_OR_FAIL(nd_random_uniform(&o64, r, t, 2, shp, 0.0, 1.0, nd_cuda(0)));
                else ND_OK_OR_FAIL(nd_random_normal(&o64, r, t, 2, shp, 0.0, 1.0, nd_cuda(0)));
                ND_OK_OR_FAIL(nd_rng_set_offset(r, 11));
                if (dist == 0) ND_OK_OR_FAIL(nd_random_uniform(&tv, r, t, 2, shp, 0.0, 1.0, nd_cuda(0)));
                else ND_OK_OR_FAIL(nd_random_normal(&tv, r, t, 2, shp, 0.0, 1.0, nd_cuda(0)));
                double *d = malloc((size_t)n * sizeof *d);
                float *f = malloc(bytes);
                ND_OK_OR_FAIL(nd_copy_to_host(d, o64, (size_t)n * sizeof *d));
                ND_OK_OR_FAIL(nd_copy_to_host(f, tv, bytes)); /* logical (C) order of the view */
                for (int64_t i = 0; i < n; i++) ck_assert(d[i] == (double)((const float *)want)[i]);
                ck_assert(memcmp(f, want, bytes) == 0);
                free(d);
                free(f);
                nd_release(tv);
                nd_release(base);
                nd_release(o64);
            }
            nd_rng_destroy(r);
            free(want);
        }
    ND_OK_OR_FAIL(nd_set_stream(NULL));
    ND_OK_OR_FAIL(nd_stream_destroy(st));
}
END_TEST

/* An empty array launches nothing and leaves the offset alone. */
START_TEST(gpu_empty)
{
    nd_rng *r = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&r, 1));
    ND_OK_OR_FAIL(nd_rng_set_offset(r, 9));
    nd_array *a = NULL;
    const int64_t shp[2] = {0, 5};
    ND_OK_OR_FAIL(nd_random_normal(&a, r, ND_FLOAT32, 2, shp, 0.0, 1.0, nd_cuda(0)));
    ck_assert_int_eq(nd_size(a), 0);
    ck_assert_uint_eq(nd_rng_offset(r), 9);
    ND_OK_OR_FAIL(nd_synchronize(nd_cuda(0)));
    nd_release(a);
    nd_rng_destroy(r);
}
END_TEST

Suite *suite_gpu_random(void)
{
    Suite *s = suite_create("gpu_random");
    TCase *cpu = tcase_create("kernel_on_host");
    tcase_set_timeout(cpu, 120);
    tcase_add_test(cpu, kernel_mapping_matches_cpu_backend);
    tcase_add_test(cpu, offsets_wrap_past_2_64);
    tcase_add_test(cpu, launch_geometry);
    tcase_add_test(cpu, cuda_backend_entry_points);
    suite_add_tcase(s, cpu);
    if (nd_test_gpu_count() == 0) {
        printf("gpu_random suite: GPU tests SKIPPED (no GPU)\n");
        return s;
    }
    TCase *gpu = tcase_create("gpu");
    tcase_set_timeout(gpu, 300);
    tcase_add_test(gpu, gpu_bit_identical_to_cpu);
    tcase_add_test(gpu, gpu_stream_and_cast_outs);
    tcase_add_test(gpu, gpu_empty);
    suite_add_tcase(s, gpu);
    return s;
}
