/* Raw CUDA kernels compiled at run time (include/ndgpu/kernel.h): launches
 * checked against a CPU reference on non-zero data with poisoned outputs,
 * scalars of every dtype, modules with several kernels, 2-D grids, order
 * with library ops on one stream, compile errors, bad arguments, and the
 * memory and disk caches. Valid on a real GPU (NVRTC) and on the emulated
 * one (tests/emu/nvrtc_emu.cpp); the CPU device refuses raw kernels. */
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "core/rtc_slot.h"
#include "kernel/raw.h"

#ifdef ND_WITH_CUDA
void nd__cuda_rtc_forget_images(void); /* src/cuda/rtc.cu test hooks */
bool nd__cuda_rtc_available(char *why, size_t cap);
#endif

static const char *SAXPY =
    "extern \"C\" __global__ void saxpy(float a, const float *x, const float *y, float *z, long long n)\n"
    "{\n"
    "    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) z[i] = a * x[i] + y[i];\n"
    "}\n";

static const unsigned ONE[3] = {1, 1, 1};

/* ---- on every build ---------------------------------------------------- */

START_TEST(cpu_device_is_unsupported)
{
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, SAXPY, "saxpy", NULL));
    ck_assert_str_eq(nd_raw_kernel_name(k), "saxpy");
    nd_array *x = NULL;
    int64_t n = 4;
    ND_OK_OR_FAIL(nd_zeros(&x, ND_FLOAT32, 1, &n, nd_cpu()));
    nd_kernel_arg args[] = {nd_kernel_arg_float32(1), nd_kernel_arg_array(x), nd_kernel_arg_array(x),
                            nd_kernel_arg_array(x), nd_kernel_arg_int64(n)};
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, nd_cpu(), ONE, ONE, 0, 5, args), ND_ERR_UNSUPPORTED, "GPU only");
    nd_raw_module *m = NULL;
    ND_OK_OR_FAIL(nd_raw_module_create(&m, SAXPY, NULL));
    ND_EXPECT_ERR(nd_raw_module_compile(m, nd_cpu()), ND_ERR_UNSUPPORTED, "cpu:0");
    nd_raw_module_release(m);
    nd_raw_kernel_release(k);
    nd_release(x);
}
END_TEST

/* Streams and events of the CPU (synchronous): waiting is immediate. */
START_TEST(cpu_stream_waits_for_cpu_event)
{
    nd_stream *s = NULL;
    nd_event *e = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s, nd_cpu()));
    ND_OK_OR_FAIL(nd_event_create(&e, nd_cpu()));
    ND_EXPECT_ERR(nd_stream_wait_event(s, e), ND_ERR_INVALID, "never recorded");
    ND_OK_OR_FAIL(nd_event_record(e, s));
    ND_OK_OR_FAIL(nd_stream_wait_event(s, e));
    ND_OK_OR_FAIL(nd_stream_wait_event(NULL, e));
    nd_event_destroy(e);
    ND_OK_OR_FAIL(nd_stream_destroy(s));
}
END_TEST

/* nd_from_ptr: host memory of the caller's, with a deleter run once when
 * the last array over it goes; strided views; failures call no deleter. */
static int g_deleted;
static void count_free(void *ctx)
{
    g_deleted++;
    free(ctx);
}

START_TEST(from_ptr_wraps_host_memory)
{
    g_deleted = 0;
    float *buf = malloc(6 * sizeof(float));
    for (int i = 0; i < 6; i++) buf[i] = (float)i + 0.5f;
    nd_array *a = NULL, *t = NULL;
    const int64_t shape[2] = {3, 2}, strides[2] = {1, 3}; /* the transpose of a C-ordered (2, 3) */
    ND_EXPECT_ERR(nd_from_ptr(&a, buf, (nd_dtype)99, 2, shape, strides, nd_cpu(), count_free, buf), ND_ERR_DTYPE,
                  "nd_from_ptr");
    ND_EXPECT_ERR(nd_from_ptr(&a, buf, ND_FLOAT32, 2, NULL, NULL, nd_cpu(), count_free, buf), ND_ERR_INVALID, "shape");
    ND_EXPECT_ERR(nd_from_ptr(&a, buf, ND_FLOAT32, 2, shape, NULL, (nd_device){ND_DEVICE_CPU, 1}, count_free, buf), ND_ERR_DEVICE,
                  "nd_from_ptr");
    ck_assert_int_eq(g_deleted, 0);
    ND_OK_OR_FAIL(nd_from_ptr(&a, buf, ND_FLOAT32, 2, shape, strides, nd_cpu(), count_free, buf));
    ck_assert_ptr_eq(nd_data(a), buf);
    ND_OK_OR_FAIL(nd_contiguous(&t, a));
    float h[6];
    ND_OK_OR_FAIL(nd_copy_to_host(h, t, sizeof h));
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++) ck_assert_float_eq(h[r * 2 + c], buf[c * 3 + r]);
    nd_release(t);
    nd_array *v = NULL;
    ND_OK_OR_FAIL(nd_reshape(&v, a, 1, (const int64_t[]){-1})); /* a copy or a view: either keeps a's buffer right */
    nd_release(a);
    nd_release(v);
    ck_assert_int_eq(g_deleted, 1);
    /* *out given: copied, and the memory handed back at once */
    float *buf2 = malloc(6 * sizeof(float));
    for (int i = 0; i < 6; i++) buf2[i] = -(float)i;
    nd_array *dst = NULL;
    ND_OK_OR_FAIL(nd_zeros(&dst, ND_FLOAT32, 2, (const int64_t[]){2, 3}, nd_cpu()));
    ND_OK_OR_FAIL(nd_from_ptr(&dst, buf2, ND_FLOAT32, 2, (const int64_t[]){2, 3}, NULL, nd_cpu(), count_free, buf2));
    ck_assert_int_eq(g_deleted, 2);
    ND_OK_OR_FAIL(nd_copy_to_host(h, dst, sizeof h));
    for (int i = 0; i < 6; i++) ck_assert_float_eq(h[i], -(float)i);
    nd_release(dst);
}
END_TEST

START_TEST(bad_arguments_are_refused)
{
    nd_raw_kernel *k = NULL;
    nd_raw_module *m = NULL;
    ND_EXPECT_ERR(nd_raw_kernel_create(NULL, SAXPY, "saxpy", NULL), ND_ERR_INVALID, "'k'");
    ND_EXPECT_ERR(nd_raw_kernel_create(&k, NULL, "saxpy", NULL), ND_ERR_INVALID, "'cuda_source'");
    ND_EXPECT_ERR(nd_raw_kernel_create(&k, SAXPY, NULL, NULL), ND_ERR_INVALID, "'name'");
    ND_EXPECT_ERR(nd_raw_kernel_create(&k, SAXPY, "", NULL), ND_ERR_INVALID, "empty");
    nd_kernel_options o = {NULL, 2};
    ND_EXPECT_ERR(nd_raw_module_create(&m, SAXPY, &o), ND_ERR_INVALID, "nvrtc_options is NULL");
    o.num_nvrtc_options = -1;
    ND_EXPECT_ERR(nd_raw_module_create(&m, SAXPY, &o), ND_ERR_INVALID, "negative");
    const char *opt1[] = {"-DA=1", NULL};
    o.nvrtc_options = opt1;
    o.num_nvrtc_options = 2;
    ND_EXPECT_ERR(nd_raw_module_create(&m, SAXPY, &o), ND_ERR_INVALID, "nvrtc_options[1] is NULL");
    ck_assert_ptr_null(k);
    ck_assert_ptr_null(m);
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, SAXPY, "saxpy", NULL));
    ND_EXPECT_ERR(nd_raw_kernel_launch(NULL, nd_cpu(), ONE, ONE, 0, 0, NULL), ND_ERR_INVALID, "'k'");
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, nd_cpu(), NULL, ONE, 0, 0, NULL), ND_ERR_INVALID, "'grid'");
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, nd_cpu(), ONE, ONE, 0, 3, NULL), ND_ERR_INVALID, "'args'");
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, nd_cpu(), ONE, ONE, 0, -1, NULL), ND_ERR_INVALID, "nargs is -1");
    nd_raw_kernel_release(k);
    nd_raw_kernel_release(NULL);
    nd_raw_module_release(NULL);
}
END_TEST

#ifdef ND_WITH_CUDA

/* ---- on a GPU (real or emulated) -------------------------------------- */

/* A float32 array of n on dev from host data. */
static nd_array *upload_f32(const float *h, int64_t n, nd_device dev)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_empty(&a, ND_FLOAT32, 1, &n, dev));
    ND_OK_OR_FAIL(nd_copy_from_host(a, h, (size_t)n * sizeof(float)));
    return a;
}

/* A source no other test (or process) compiled: the caches start cold. */
static char *unique_source(const char *base, const char *tag)
{
    static int counter;
    char *s = malloc(strlen(base) + 128);
    sprintf(s, "// %s %ld %d %ld\n%s", tag, (long)getpid(), counter++, (long)time(NULL), base);
    return s;
}

START_TEST(saxpy_matches_the_cpu)
{
    nd_device dev = nd_cuda(0);
    const int64_t n = 1000, cap = n + 24; /* n is no multiple of the block; the tail must stay poisoned */
    float *hx = malloc(sizeof(float) * cap), *hy = malloc(sizeof(float) * cap), *hz = malloc(sizeof(float) * cap);
    for (int64_t i = 0; i < cap; i++) {
        hx[i] = 0.25f * (float)(i % 97) - 3.0f;
        hy[i] = 1.5f + (float)(i % 13);
        hz[i] = NAN;
    }
    nd_array *x = upload_f32(hx, cap, dev), *y = upload_f32(hy, cap, dev), *z = upload_f32(hz, cap, dev);
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, SAXPY, "saxpy", NULL));
    const float a = -2.5f;
    nd_kernel_arg args[] = {nd_kernel_arg_float32(a), nd_kernel_arg_array(x), nd_kernel_arg_array(y),
                            nd_kernel_arg_array(z), nd_kernel_arg_int64(n)};
    const unsigned grid[3] = {(unsigned)((n + 127) / 128), 1, 1}, block[3] = {128, 1, 1};
    ND_OK_OR_FAIL(nd_raw_kernel_launch(k, dev, grid, block, 0, 5, args));
    ND_OK_OR_FAIL(nd_copy_to_host(hz, z, (size_t)cap * sizeof(float)));
    for (int64_t i = 0; i < n; i++) {
        float want = a * hx[i] + hy[i];
        ck_assert_msg(fabsf(hz[i] - want) <= 1e-5f * (1 + fabsf(want)), "z[%lld] = %g, want %g", (long long)i,
                      hz[i], want);
    }
    for (int64_t i = n; i < cap; i++) ck_assert_msg(isnan(hz[i]), "z[%lld] past n was written", (long long)i);
    nd_raw_kernel_release(k);
    nd_release(x);
    nd_release(y);
    nd_release(z);
    free(hx), free(hy), free(hz);
}
END_TEST

/* Every scalar dtype reaches the kernel with its value (the packing of
 * 4- and 8-byte and bool parameters in one list). */
START_TEST(scalars_of_every_dtype)
{
    static const char *src =
        "extern \"C\" __global__ void mix(int a, long long b, unsigned c, unsigned long long d, float e,\n"
        "                                double f, bool g, double *out, long long off)\n"
        "{\n"
        "    if (threadIdx.x != 0 || blockIdx.x != 0) return;\n"
        "    out[0] = a; out[1] = (double)b; out[2] = c; out[3] = (double)d; out[4] = e; out[5] = f;\n"
        "    out[6] = g ? 1.0 : -1.0; out[7] = (double)(off * 3);\n"
        "}\n";
    nd_device dev = nd_cuda(0);
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, src, "mix", NULL));
    int64_t n = 9;
    nd_array *out = NULL;
    ND_OK_OR_FAIL(nd_full(&out, ND_FLOAT64, 1, &n, (nd_scalar){.kind = ND_SCALAR_FLOAT, .v.f = NAN}, dev));
    const int64_t big = 3000000000000LL; /* needs 64 bits */
    nd_kernel_arg args[] = {nd_kernel_arg_int32(-7),         nd_kernel_arg_int64(-big),
                            nd_kernel_arg_uint32(4000000000u), nd_kernel_arg_uint64(1ULL << 40),
                            nd_kernel_arg_float32(0.375f),   nd_kernel_arg_float64(1.0 / 3.0),
                            nd_kernel_arg_bool(true),        nd_kernel_arg_array(out),
                            nd_kernel_arg_int64(big)};
    ND_OK_OR_FAIL(nd_raw_kernel_launch(k, dev, ONE, (const unsigned[3]){32, 1, 1}, 0, 9, args));
    double h[9];
    ND_OK_OR_FAIL(nd_copy_to_host(h, out, sizeof h));
    const double want[8] = {-7, (double)-big, 4000000000.0, (double)(1ULL << 40), 0.375, 1.0 / 3.0, 1, (double)(big * 3)};
    for (int i = 0; i < 8; i++) ck_assert_msg(h[i] == want[i], "out[%d] = %.17g, want %.17g", i, h[i], want[i]);
    ck_assert(isnan(h[8]));
    /* a dtype kernels cannot take */
    nd_kernel_arg bad = nd_kernel_arg_int32(1);
    bad.dtype = ND_FLOAT16;
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, dev, ONE, ONE, 0, 1, &bad), ND_ERR_DTYPE, "argument 0");
    nd_raw_kernel_release(k);
    nd_release(out);
}
END_TEST

/* One module, several kernels (and a -D option), each by name; the module
 * released before its kernels. */
START_TEST(several_kernels_from_one_module)
{
    static const char *src =
        "extern \"C\" {\n"
        "__global__ void scale(double *x, double s, int n)\n"
        "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= s; }\n"
        "__global__ void shift(double *x, int n)\n"
        "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += SHIFT; }\n"
        "}\n"
        "extern \"C\" __global__ void __launch_bounds__(64) square(double *x, int n)\n"
        "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * x[i]; }\n";
    nd_device dev = nd_cuda(0);
    const char *opts[] = {"-DSHIFT=0.5"};
    nd_kernel_options o = {opts, 1};
    nd_raw_module *m = NULL;
    ND_OK_OR_FAIL(nd_raw_module_create(&m, src, &o));
    nd_raw_kernel *ks = NULL, *kt = NULL, *kq = NULL;
    ND_OK_OR_FAIL(nd_raw_module_get(&ks, m, "scale"));
    ND_OK_OR_FAIL(nd_raw_module_get(&kt, m, "shift"));
    ND_OK_OR_FAIL(nd_raw_module_get(&kq, m, "square"));
    nd_raw_module_release(m);
    const int n = 300;
    double h[300];
    for (int i = 0; i < n; i++) h[i] = 0.5 * i - 40;
    nd_array *x = NULL;
    int64_t n64 = n;
    ND_OK_OR_FAIL(nd_empty(&x, ND_FLOAT64, 1, &n64, dev));
    ND_OK_OR_FAIL(nd_copy_from_host(x, h, sizeof h));
    const unsigned grid[3] = {(n + 63) / 64, 1, 1}, block[3] = {64, 1, 1};
    nd_kernel_arg a1[] = {nd_kernel_arg_array(x), nd_kernel_arg_float64(-3.0), nd_kernel_arg_int32(n)};
    nd_kernel_arg a2[] = {nd_kernel_arg_array(x), nd_kernel_arg_int32(n)};
    ND_OK_OR_FAIL(nd_raw_kernel_launch(ks, dev, grid, block, 0, 3, a1));
    ND_OK_OR_FAIL(nd_raw_kernel_launch(kt, dev, grid, block, 0, 2, a2));
    ND_OK_OR_FAIL(nd_raw_kernel_launch(kq, dev, grid, block, 0, 2, a2));
    double r[300];
    ND_OK_OR_FAIL(nd_copy_to_host(r, x, sizeof r));
    for (int i = 0; i < n; i++) {
        double v = h[i] * -3.0 + 0.5;
        ck_assert_msg(r[i] == v * v, "x[%d] = %.17g, want %.17g", i, r[i], v * v);
    }
    nd_raw_kernel_release(ks);
    nd_raw_kernel_release(kt);
    nd_raw_kernel_release(kq);
    nd_release(x);
}
END_TEST

/* A 2-D grid of 2-D blocks: out (R, C) = in (C, R) transposed plus the
 * block and thread coordinates checked through the result. */
START_TEST(two_d_grid_transposes)
{
    static const char *src =
        "extern \"C\" __global__ void tr(const float *in, float *out, int R, int C)\n"
        "{\n"
        "    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "    if (r < R && c < C) out[r * C + c] = in[c * R + r] + 0.5f * gridDim.y;\n"
        "}\n";
    nd_device dev = nd_cuda(0);
    enum { R = 37, C = 53 };
    float *hin = malloc(sizeof(float) * R * C), *hout = malloc(sizeof(float) * R * C);
    for (int i = 0; i < R * C; i++) hin[i] = (float)((i * 7) % 101) - 50.0f;
    nd_array *in = upload_f32(hin, R * C, dev), *out = NULL;
    int64_t n = R * C;
    ND_OK_OR_FAIL(nd_full(&out, ND_FLOAT32, 1, &n, (nd_scalar){.kind = ND_SCALAR_FLOAT, .v.f = NAN}, dev));
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, src, "tr", NULL));
    const unsigned block[3] = {16, 8, 1}, grid[3] = {(C + 15) / 16, (R + 7) / 8, 1};
    nd_kernel_arg args[] = {nd_kernel_arg_array(in), nd_kernel_arg_array(out), nd_kernel_arg_int32(R),
                            nd_kernel_arg_int32(C)};
    ND_OK_OR_FAIL(nd_raw_kernel_launch(k, dev, grid, block, 0, 4, args));
    ND_OK_OR_FAIL(nd_copy_to_host(hout, out, sizeof(float) * R * C));
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
            float want = hin[c * R + r] + 0.5f * (float)grid[1];
            ck_assert_msg(hout[r * C + c] == want, "out[%d, %d] = %g, want %g", r, c, hout[r * C + c], want);
        }
    nd_raw_kernel_release(k);
    nd_release(in);
    nd_release(out);
    free(hin), free(hout);
}
END_TEST

/* Shared memory and barriers: a block sums its 256 elements through a
 * tree in static shared memory, another kernel through dynamic shared
 * memory; atomicAdd collects the blocks. */
START_TEST(shared_memory_barriers_and_atomics)
{
    static const char *src =
        "extern \"C\" __global__ void bsum(const int *x, int *block_out, unsigned long long *total, int n)\n"
        "{\n"
        "    __shared__ int s[256];\n"
        "    int i = blockIdx.x * 256 + threadIdx.x;\n"
        "    s[threadIdx.x] = i < n ? x[i] : 0;\n"
        "    __syncthreads();\n"
        "    for (int w = 128; w > 0; w /= 2) {\n"
        "        if ((int)threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (threadIdx.x == 0) { block_out[blockIdx.x] = s[0]; atomicAdd(total, (unsigned long long)s[0]); }\n"
        "}\n"
        "extern \"C\" __global__ void rev(const int *x, int *y)\n"
        "{\n"
        "    extern __shared__ int d[];\n"
        "    d[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];\n"
        "    __syncthreads();\n"
        "    y[blockIdx.x * blockDim.x + threadIdx.x] = d[blockDim.x - 1 - threadIdx.x];\n"
        "}\n";
    nd_device dev = nd_cuda(0);
    enum { N = 256 * 7 };
    int hx[N];
    long long want_total = 0;
    for (int i = 0; i < N; i++) want_total += hx[i] = (i * 31) % 1000 + 1;
    int64_t n = N, nb = 7, one = 1;
    nd_array *x = NULL, *bo = NULL, *tot = NULL, *y = NULL;
    ND_OK_OR_FAIL(nd_empty(&x, ND_INT32, 1, &n, dev));
    ND_OK_OR_FAIL(nd_copy_from_host(x, hx, sizeof hx));
    ND_OK_OR_FAIL(nd_full(&bo, ND_INT32, 1, &nb, (nd_scalar){.kind = ND_SCALAR_INT, .v.i = -1}, dev));
    ND_OK_OR_FAIL(nd_zeros(&tot, ND_UINT64, 1, &one, dev));
    ND_OK_OR_FAIL(nd_full(&y, ND_INT32, 1, &n, (nd_scalar){.kind = ND_SCALAR_INT, .v.i = -1}, dev));
    nd_raw_module *m = NULL;
    nd_raw_kernel *ks = NULL, *kr = NULL;
    ND_OK_OR_FAIL(nd_raw_module_create(&m, src, NULL));
    ND_OK_OR_FAIL(nd_raw_module_get(&ks, m, "bsum"));
    ND_OK_OR_FAIL(nd_raw_module_get(&kr, m, "rev"));
    nd_kernel_arg a1[] = {nd_kernel_arg_array(x), nd_kernel_arg_array(bo), nd_kernel_arg_array(tot),
                          nd_kernel_arg_int32(N)};
    ND_OK_OR_FAIL(nd_raw_kernel_launch(ks, dev, (const unsigned[3]){7, 1, 1}, (const unsigned[3]){256, 1, 1}, 0, 4, a1));
    nd_kernel_arg a2[] = {nd_kernel_arg_array(x), nd_kernel_arg_array(y)};
    ND_OK_OR_FAIL(nd_raw_kernel_launch(kr, dev, (const unsigned[3]){7, 1, 1}, (const unsigned[3]){256, 1, 1},
                                       256 * sizeof(int), 2, a2));
    int hb[7], hy[N];
    unsigned long long ht = 0;
    ND_OK_OR_FAIL(nd_copy_to_host(hb, bo, sizeof hb));
    ND_OK_OR_FAIL(nd_copy_to_host(&ht, tot, sizeof ht));
    ND_OK_OR_FAIL(nd_copy_to_host(hy, y, sizeof hy));
    for (int b = 0; b < 7; b++) {
        int w = 0;
        for (int i = 0; i < 256; i++) w += hx[b * 256 + i];
        ck_assert_int_eq(hb[b], w);
        for (int i = 0; i < 256; i++) ck_assert_int_eq(hy[b * 256 + i], hx[b * 256 + 255 - i]);
    }
    ck_assert_int_eq((long long)ht, want_total);
    nd_raw_kernel_release(ks);
    nd_raw_kernel_release(kr);
    nd_raw_module_release(m);
    nd_release(x), nd_release(bo), nd_release(tot), nd_release(y);
}
END_TEST

/* Launches are queued on the current stream in order with library ops:
 * kernel, then nd_add on its output, then a read, on the default stream
 * and on a stream of the user's. */
START_TEST(ordered_with_library_ops_on_the_stream)
{
    static const char *src =
        "extern \"C\" __global__ void slow_fill(float *y, float v, int n, int spin)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    volatile float acc = 0; for (int k = 0; k < spin; k++) acc = acc + 1;\n"
        "    if (i < n) y[i] = v + (acc - spin);\n"
        "}\n";
    nd_device dev = nd_cuda(0);
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, src, "slow_fill", NULL));
    nd_stream *s = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s, dev));
    for (int round = 0; round < 2; round++) {
        if (round == 1) ND_OK_OR_FAIL(nd_set_stream(s));
        const int n = 4096;
        int64_t n64 = n;
        nd_array *y = NULL, *z = NULL;
        ND_OK_OR_FAIL(nd_zeros(&y, ND_FLOAT32, 1, &n64, dev));
        nd_kernel_arg args[] = {nd_kernel_arg_array(y), nd_kernel_arg_float32(1.25f + round), nd_kernel_arg_int32(n),
                                nd_kernel_arg_int32(2000)};
        ND_OK_OR_FAIL(nd_raw_kernel_launch(k, dev, (const unsigned[3]){n / 128, 1, 1}, (const unsigned[3]){128, 1, 1},
                                           0, 4, args));
        ND_OK_OR_FAIL(nd_add(&z, y, y));
        float *h = malloc(sizeof(float) * n);
        ND_OK_OR_FAIL(nd_copy_to_host(h, z, sizeof(float) * n));
        for (int i = 0; i < n; i++) ck_assert_msg(h[i] == 2 * (1.25f + round), "round %d: z[%d] = %g", round, i, h[i]);
        free(h);
        nd_release(y);
        nd_release(z);
    }
    ND_OK_OR_FAIL(nd_set_stream(NULL));
    ND_OK_OR_FAIL(nd_stream_destroy(s));
    nd_raw_kernel_release(k);
}
END_TEST

/* nd_stream_wait_event orders two streams: a slow kernel on s1, an event
 * recorded after it, s2 waits for the event, then nd_add on s2 reads the
 * kernel's output (on the emulated device, user streams are not ordered
 * with each other, as on a GPU: without the wait the add reads zeros). */
START_TEST(stream_waits_for_an_event_of_another_stream)
{
    static const char *src =
        "extern \"C\" __global__ void slow_fill(float *y, float v, int n, int spin)\n"
        "{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    volatile float acc = 0; for (int k = 0; k < spin; k++) acc = acc + 1;\n"
        "    if (i < n) y[i] = v + (acc - spin);\n"
        "}\n";
    nd_device dev = nd_cuda(0);
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, src, "slow_fill", NULL));
    nd_stream *s1 = NULL, *s2 = NULL;
    nd_event *e = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s1, dev));
    ND_OK_OR_FAIL(nd_stream_create(&s2, dev));
    ND_OK_OR_FAIL(nd_event_create(&e, dev));
    const int n = 8192;
    int64_t n64 = n;
    nd_array *y = NULL, *z = NULL;
    ND_OK_OR_FAIL(nd_zeros(&y, ND_FLOAT32, 1, &n64, dev));
    ND_OK_OR_FAIL(nd_synchronize(dev));
    ND_OK_OR_FAIL(nd_set_stream(s1));
    nd_kernel_arg args[] = {nd_kernel_arg_array(y), nd_kernel_arg_float32(3.5f), nd_kernel_arg_int32(n),
                            nd_kernel_arg_int32(20000)};
    ND_OK_OR_FAIL(nd_raw_kernel_launch(k, dev, (const unsigned[3]){n / 256, 1, 1}, (const unsigned[3]){256, 1, 1}, 0,
                                       4, args));
    ND_OK_OR_FAIL(nd_event_record(e, s1));
    ND_OK_OR_FAIL(nd_set_stream(s2));
    ND_OK_OR_FAIL(nd_stream_wait_event(s2, e));
    ND_OK_OR_FAIL(nd_add(&z, y, y));
    float *h = malloc(sizeof(float) * n);
    ND_OK_OR_FAIL(nd_stream_synchronize(s2));
    ND_OK_OR_FAIL(nd_set_stream(NULL));
    ND_OK_OR_FAIL(nd_copy_to_host(h, z, sizeof(float) * n));
    for (int i = 0; i < n; i++) ck_assert_msg(h[i] == 7.0f, "z[%d] = %g", i, h[i]);
    free(h);
    /* NULL stream: the current one; errors */
    ND_OK_OR_FAIL(nd_stream_wait_event(NULL, e));
    nd_event *fresh = NULL;
    ND_OK_OR_FAIL(nd_event_create(&fresh, dev));
    ND_EXPECT_ERR(nd_stream_wait_event(s1, fresh), ND_ERR_INVALID, "never recorded");
    ND_EXPECT_ERR(nd_stream_wait_event(s1, NULL), ND_ERR_INVALID, "'event'");
    /* a CPU stream waits on the host for a GPU event */
    nd_stream *cs = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&cs, nd_cpu()));
    ND_OK_OR_FAIL(nd_stream_wait_event(cs, e));
    ND_OK_OR_FAIL(nd_stream_destroy(cs));
    nd_event_destroy(fresh);
    nd_event_destroy(e);
    ND_OK_OR_FAIL(nd_stream_destroy(s1));
    ND_OK_OR_FAIL(nd_stream_destroy(s2));
    nd_release(y);
    nd_release(z);
    nd_raw_kernel_release(k);
}
END_TEST

/* A device pointer of "someone else's" (here: a library array's, kept
 * alive by the deleter) wrapped, written by a raw kernel and by a library
 * op, read back; the deleter runs once at the last release. */
static int g_released;
static void release_array(void *ctx)
{
    g_released++;
    nd_release((nd_array *)ctx);
}

START_TEST(from_ptr_wraps_a_device_pointer)
{
    nd_device dev = nd_cuda(0);
    g_released = 0;
    int64_t n = 64;
    nd_array *owner = NULL, *w = NULL, *z = NULL;
    ND_OK_OR_FAIL(nd_full(&owner, ND_FLOAT32, 1, &n, (nd_scalar){.kind = ND_SCALAR_FLOAT, .v.f = 2.0}, dev));
    ND_OK_OR_FAIL(nd_from_ptr(&w, nd_data(owner), ND_FLOAT32, 1, &n, NULL, dev, release_array, owner));
    owner = NULL; /* the wrapper's deleter holds it now */
    ND_EXPECT_ERR(nd_from_ptr(&z, nd_data(w), ND_FLOAT32, 1, &n, NULL, nd_cuda(77), NULL, NULL), ND_ERR_DEVICE,
                  "cuda:77");
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, SAXPY, "saxpy", NULL));
    nd_kernel_arg args[] = {nd_kernel_arg_float32(3), nd_kernel_arg_array(w), nd_kernel_arg_array(w),
                            nd_kernel_arg_array(w), nd_kernel_arg_int64(n)};
    ND_OK_OR_FAIL(nd_raw_kernel_launch(k, dev, ONE, (const unsigned[3]){64, 1, 1}, 0, 5, args)); /* w = 3w + w */
    ND_OK_OR_FAIL(nd_add(&z, w, w));
    float h[64];
    ND_OK_OR_FAIL(nd_copy_to_host(h, z, sizeof h));
    for (int i = 0; i < 64; i++) ck_assert_float_eq(h[i], 16.0f);
    ck_assert_int_eq(g_released, 0);
    nd_release(w);
    ck_assert_int_eq(g_released, 1);
    nd_release(z);
    nd_raw_kernel_release(k);
}
END_TEST

/* A compile error: ND_ERR_INVALID whose message carries the compiler's
 * log with the line of the error; the launch that compiles says the same. */
START_TEST(compile_error_reports_the_log)
{
    static const char *src =
        "extern \"C\" __global__ void broken(float *x)\n"
        "{\n"
        "    x[0] = undefined_thing_here;\n"
        "}\n";
    nd_device dev = nd_cuda(0);
    nd_raw_module *m = NULL;
    ND_OK_OR_FAIL(nd_raw_module_create(&m, src, NULL));
    nd_status st = nd_raw_module_compile(m, dev);
    ck_assert_msg(st == ND_ERR_INVALID, "%s: %s", nd_status_name(st), nd_last_error());
    const char *msg = nd_last_error();
    ck_assert_msg(strstr(msg, "nd_raw_module_compile") && strstr(msg, "undefined_thing_here"), "%s", msg);
    ck_assert_msg(strstr(msg, "kernel.cu(3)") || strstr(msg, "kernel.cu:3:"), "no line 3 in: %s", msg);
    ck_assert_int_eq(nd__raw_module_origin(m, dev), -1);
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_module_get(&k, m, "broken"));
    nd_array *x = NULL;
    int64_t n = 1;
    ND_OK_OR_FAIL(nd_zeros(&x, ND_FLOAT32, 1, &n, dev));
    nd_kernel_arg a = nd_kernel_arg_array(x);
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, dev, ONE, ONE, 0, 1, &a), ND_ERR_INVALID, "undefined_thing_here");
    /* an option NVRTC does not know */
    const char *opts[] = {"--no-such-option"};
    nd_kernel_options o = {opts, 1};
    nd_raw_module *m2 = NULL;
    ND_OK_OR_FAIL(nd_raw_module_create(&m2, SAXPY, &o));
    ND_EXPECT_ERR(nd_raw_module_compile(m2, dev), ND_ERR_INVALID, "no-such-option");
    nd_raw_module_release(m2);
    nd_raw_kernel_release(k);
    nd_raw_module_release(m);
    nd_release(x);
}
END_TEST

START_TEST(unknown_kernel_name)
{
    nd_device dev = nd_cuda(0);
    static const char *src =
        "extern \"C\" __global__ void there(float *x) { x[0] = 1; }\n"
        "__global__ void mangled(float *x) { x[0] = 2; }\n"; /* not extern "C": no plain name */
    nd_raw_module *m = NULL;
    ND_OK_OR_FAIL(nd_raw_module_create(&m, src, NULL));
    nd_raw_kernel *k = NULL, *k2 = NULL;
    ND_OK_OR_FAIL(nd_raw_module_get(&k, m, "nope"));
    ND_OK_OR_FAIL(nd_raw_module_get(&k2, m, "mangled"));
    nd_array *x = NULL;
    int64_t n = 1;
    ND_OK_OR_FAIL(nd_zeros(&x, ND_FLOAT32, 1, &n, dev));
    nd_kernel_arg a = nd_kernel_arg_array(x);
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, dev, ONE, ONE, 0, 1, &a), ND_ERR_INVALID, "no kernel named 'nope'");
    ND_EXPECT_ERR(nd_raw_kernel_launch(k2, dev, ONE, ONE, 0, 1, &a), ND_ERR_INVALID, "no kernel named 'mangled'");
    nd_raw_kernel_release(k);
    nd_raw_kernel_release(k2);
    nd_raw_module_release(m);
    nd_release(x);
}
END_TEST

/* Arguments the launch refuses before anything is queued. */
START_TEST(wrong_arguments_are_refused)
{
    nd_device dev = nd_cuda(0);
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, SAXPY, "saxpy", NULL));
    int64_t n = 8;
    nd_array *g = NULL, *h = NULL;
    ND_OK_OR_FAIL(nd_zeros(&g, ND_FLOAT32, 1, &n, dev));
    ND_OK_OR_FAIL(nd_zeros(&h, ND_FLOAT32, 1, &n, nd_cpu()));
    nd_kernel_arg args[] = {nd_kernel_arg_float32(1), nd_kernel_arg_array(g), nd_kernel_arg_array(h),
                            nd_kernel_arg_array(g), nd_kernel_arg_int64(n)};
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, dev, ONE, ONE, 0, 5, args), ND_ERR_DEVICE,
                  "argument 2: the array is on cpu:0, but the kernel runs on cuda:0");
    args[2] = nd_kernel_arg_array(NULL);
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, dev, ONE, ONE, 0, 5, args), ND_ERR_INVALID, "argument 2: the array is NULL");
    args[2] = nd_kernel_arg_array(g);
    args[1].kind = (nd_kernel_arg_kind)9;
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, dev, ONE, ONE, 0, 5, args), ND_ERR_INVALID, "argument 1: unknown kind");
    args[1] = nd_kernel_arg_array(g);
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, dev, ONE, (const unsigned[3]){2048, 1, 1}, 0, 5, args), ND_ERR_INVALID,
                  "beyond a GPU's limits");
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, dev, (const unsigned[3]){0, 1, 1}, ONE, 0, 5, args), ND_ERR_INVALID,
                  "beyond a GPU's limits");
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, dev, ONE, ONE, 64 * 1024, 5, args), ND_ERR_INVALID, "shared memory");
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, nd_cuda(99), ONE, ONE, 0, 5, args), ND_ERR_DEVICE, "cuda:99");
    /* a raw pointer: the device data of g, as an array would pass it */
    args[2] = nd_kernel_arg_pointer(nd_data(g));
    ND_OK_OR_FAIL(nd_raw_kernel_launch(k, dev, ONE, (const unsigned[3]){8, 1, 1}, 0, 5, args));
    ND_OK_OR_FAIL(nd_synchronize(dev));
    nd_raw_kernel_release(k);
    nd_release(g);
    nd_release(h);
}
END_TEST

/* ---- the caches ---- */

static char g_dir[256];

static void cache_dir_setup(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/ndgpu-kcache-test-XXXXXX", t && t[0] ? t : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
    setenv("ND_KERNEL_CACHE_DIR", g_dir, 1);
    unsetenv("ND_KERNEL_CACHE");
}

/* The number of entries in the cache directory; *path the last one's. */
static int cache_files(char *path, size_t cap)
{
    int n = 0;
    DIR *d = opendir(g_dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            n++;
            if (path) snprintf(path, cap, "%s/%s", g_dir, e->d_name);
        }
    closedir(d);
    return n;
}

static void cache_dir_teardown(void)
{
    DIR *d = opendir(g_dir);
    if (d) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') {
                snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(g_dir);
    unsetenv("ND_KERNEL_CACHE_DIR");
    unsetenv("ND_KERNEL_CACHE");
}

/* Compile src in a new module; its origin. */
static int compile_origin(const char *src)
{
    nd_raw_module *m = NULL;
    ND_OK_OR_FAIL(nd_raw_module_create(&m, src, NULL));
    ND_OK_OR_FAIL(nd_raw_module_compile(m, nd_cuda(0)));
    int o = nd__raw_module_origin(m, nd_cuda(0));
    nd_raw_module_release(m);
    return o;
}

/* Launch saxpy of src once and check it. */
static void run_saxpy(const char *src)
{
    nd_device dev = nd_cuda(0);
    float hx[40], hy[40], hz[40];
    for (int i = 0; i < 40; i++) hx[i] = (float)i - 7, hy[i] = 0.5f * (float)i, hz[i] = NAN;
    nd_array *x = upload_f32(hx, 40, dev), *y = upload_f32(hy, 40, dev), *z = upload_f32(hz, 40, dev);
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, src, "saxpy", NULL));
    nd_kernel_arg args[] = {nd_kernel_arg_float32(3), nd_kernel_arg_array(x), nd_kernel_arg_array(y),
                            nd_kernel_arg_array(z), nd_kernel_arg_int64(40)};
    ND_OK_OR_FAIL(nd_raw_kernel_launch(k, dev, ONE, (const unsigned[3]){64, 1, 1}, 0, 5, args));
    ND_OK_OR_FAIL(nd_copy_to_host(hz, z, sizeof hz));
    for (int i = 0; i < 40; i++) ck_assert_float_eq(hz[i], 3 * hx[i] + hy[i]);
    nd_raw_kernel_release(k);
    nd_release(x), nd_release(y), nd_release(z);
}

START_TEST(cache_memory_then_disk)
{
    cache_dir_setup();
    char *src = unique_source(SAXPY, "cache_memory_then_disk");
    ck_assert_int_eq(cache_files(NULL, 0), 0);
    ck_assert_int_eq(compile_origin(src), ND_RTC_COMPILED);
    /* a fresh directory got one entry */
    char path[512];
    ck_assert_int_eq(cache_files(path, sizeof path), 1);
    ck_assert_msg(strstr(path, ".cubin") || strstr(path, ".ptx"), "entry %s", path);
    /* a second module of the same source in this process: from memory */
    ck_assert_int_eq(compile_origin(src), ND_RTC_FROM_MEMORY);
    run_saxpy(src);
    /* the memory cache forgotten (as in a new process): from disk */
    nd__cuda_rtc_forget_images();
    ck_assert_int_eq(compile_origin(src), ND_RTC_FROM_DISK);
    run_saxpy(src);
    ck_assert_int_eq(cache_files(NULL, 0), 1);
    free(src);
    cache_dir_teardown();
}
END_TEST

START_TEST(cache_corrupt_entry_is_recompiled)
{
    cache_dir_setup();
    char *src = unique_source(SAXPY, "cache_corrupt_entry_is_recompiled");
    ck_assert_int_eq(compile_origin(src), ND_RTC_COMPILED);
    char path[512];
    ck_assert_int_eq(cache_files(path, sizeof path), 1);
    /* flip a byte in the middle of the image */
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    ck_assert_int_gt(size, 64);
    fseek(f, size / 2, SEEK_SET);
    int c = fgetc(f);
    fseek(f, size / 2, SEEK_SET);
    fputc(c ^ 0x5a, f);
    fclose(f);
    nd__cuda_rtc_forget_images();
    ck_assert_int_eq(compile_origin(src), ND_RTC_COMPILED); /* rejected, compiled again */
    ck_assert_int_eq(cache_files(NULL, 0), 1);              /* and stored again */
    nd__cuda_rtc_forget_images();
    ck_assert_int_eq(compile_origin(src), ND_RTC_FROM_DISK);
    run_saxpy(src);
    /* a truncated entry too */
    ck_assert_int_eq(truncate(path, size / 3), 0);
    nd__cuda_rtc_forget_images();
    ck_assert_int_eq(compile_origin(src), ND_RTC_COMPILED);
    run_saxpy(src);
    free(src);
    cache_dir_teardown();
}
END_TEST

START_TEST(cache_off_writes_nothing)
{
    cache_dir_setup();
    setenv("ND_KERNEL_CACHE", "0", 1);
    char *src = unique_source(SAXPY, "cache_off_writes_nothing");
    ck_assert_int_eq(compile_origin(src), ND_RTC_COMPILED);
    run_saxpy(src);
    ck_assert_int_eq(cache_files(NULL, 0), 0);
    nd__cuda_rtc_forget_images();
    ck_assert_int_eq(compile_origin(src), ND_RTC_COMPILED);
    ck_assert_int_eq(cache_files(NULL, 0), 0);
    free(src);
    cache_dir_teardown();
}
END_TEST

/* The profiler records a launch as one op named after the kernel, also
 * when the kernel is gone before the events are read. */
START_TEST(profiler_records_the_kernel_by_name)
{
    nd_device dev = nd_cuda(0);
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, SAXPY, "saxpy", NULL));
    int64_t n = 16;
    nd_array *x = NULL;
    ND_OK_OR_FAIL(nd_ones(&x, ND_FLOAT32, 1, &n, dev));
    nd_kernel_arg args[] = {nd_kernel_arg_float32(2), nd_kernel_arg_array(x), nd_kernel_arg_array(x),
                            nd_kernel_arg_array(x), nd_kernel_arg_int64(n)};
    ND_EXPECT_ERR(nd_raw_module_compile(NULL, dev), ND_ERR_INVALID, "'m'");
    ND_OK_OR_FAIL(nd_raw_kernel_launch(k, dev, ONE, (const unsigned[3]){16, 1, 1}, 0, 5, args)); /* compiles */
    nd_profiler_config cfg;
    nd_profiler_config_init(&cfg);
    ND_OK_OR_FAIL(nd_profiler_start(&cfg));
    ND_OK_OR_FAIL(nd_raw_kernel_launch(k, dev, ONE, (const unsigned[3]){16, 1, 1}, 0, 5, args));
    ND_OK_OR_FAIL(nd_synchronize(dev));
    ND_OK_OR_FAIL(nd_profiler_stop());
    nd_raw_kernel_release(k);
    const nd_profiler_event *ev = NULL;
    size_t ne = 0;
    ND_OK_OR_FAIL(nd_profiler_events(&ev, &ne));
    int found = 0;
    for (size_t i = 0; i < ne; i++)
        if (ev[i].kind == ND_PROFILER_OP && strcmp(ev[i].name, "saxpy") == 0) {
            found++;
            ck_assert_int_eq(ev[i].device.type, dev.type);
            ck_assert_int_eq(ev[i].bytes, 3 * 16 * 4);
        }
    ck_assert_int_eq(found, 1);
    float h[16];
    ND_OK_OR_FAIL(nd_copy_to_host(h, x, sizeof h));
    for (int i = 0; i < 16; i++) ck_assert_float_eq(h[i], 9.0f); /* 1 -> 3 -> 9 */
    nd_release(x);
}
END_TEST

/* Without NVRTC (a GPU machine without the CUDA toolkit's libnvrtc), a
 * launch says so: ND_ERR_UNSUPPORTED naming libnvrtc, never a crash. */
START_TEST(missing_nvrtc_is_unsupported)
{
    nd_raw_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_raw_kernel_create(&k, SAXPY, "saxpy", NULL));
    nd_kernel_arg a = nd_kernel_arg_int32(0);
    ND_EXPECT_ERR(nd_raw_kernel_launch(k, nd_cuda(0), ONE, ONE, 0, 1, &a), ND_ERR_UNSUPPORTED, "libnvrtc");
    nd_raw_kernel_release(k);
}
END_TEST

#endif /* ND_WITH_CUDA */

Suite *suite_kernel_raw(void)
{
    Suite *s = suite_create("kernel_raw");
    TCase *tc = tcase_create("kernel_raw_host");
    tcase_add_test(tc, cpu_device_is_unsupported);
    tcase_add_test(tc, bad_arguments_are_refused);
    tcase_add_test(tc, cpu_stream_waits_for_cpu_event);
    tcase_add_test(tc, from_ptr_wraps_host_memory);
    suite_add_tcase(s, tc);
#ifdef ND_WITH_CUDA
    char why[320] = "";
    if (nd_test_gpu_count() > 0 && !nd__cuda_rtc_available(why, sizeof why)) {
        TCase *g = tcase_create("kernel_raw_gpu");
        tcase_add_test(g, missing_nvrtc_is_unsupported);
        suite_add_tcase(s, g);
        printf("kernel_raw: the cases that compile SKIPPED (%s)\n", why);
        return s;
    }
    if (nd_test_gpu_count() > 0) {
        TCase *g = tcase_create("kernel_raw_gpu");
        tcase_set_timeout(g, 300); /* each compile: NVRTC, or the host compiler on the emulated GPU */
        tcase_add_test(g, saxpy_matches_the_cpu);
        tcase_add_test(g, scalars_of_every_dtype);
        tcase_add_test(g, several_kernels_from_one_module);
        tcase_add_test(g, two_d_grid_transposes);
        tcase_add_test(g, shared_memory_barriers_and_atomics);
        tcase_add_test(g, ordered_with_library_ops_on_the_stream);
        tcase_add_test(g, stream_waits_for_an_event_of_another_stream);
        tcase_add_test(g, from_ptr_wraps_a_device_pointer);
        tcase_add_test(g, compile_error_reports_the_log);
        tcase_add_test(g, unknown_kernel_name);
        tcase_add_test(g, wrong_arguments_are_refused);
        tcase_add_test(g, cache_memory_then_disk);
        tcase_add_test(g, cache_corrupt_entry_is_recompiled);
        tcase_add_test(g, cache_off_writes_nothing);
        tcase_add_test(g, profiler_records_the_kernel_by_name);
        suite_add_tcase(s, g);
        return s;
    }
#endif
    printf("kernel_raw suite: the GPU cases SKIPPED (no GPU)\n");
    return s;
}
