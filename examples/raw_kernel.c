/* raw_kernel.c - a CUDA kernel of your own, compiled at run time and
 * launched on libndgpu's arrays (CuPy's RawKernel).
 *
 *   build/examples/raw_kernel
 *
 * What it shows:
 *  - nd_raw_kernel_create: CUDA C++ source and the kernel's name; the
 *    source is compiled with NVRTC for the GPU on the first launch (and
 *    kept in a cache on disk: ~/.cache/ndgpu/kernels, docs/kernels.md);
 *  - nd_raw_kernel_launch: grid, block, shared memory and the arguments as
 *    tagged values (arrays pass their device pointer, scalars their value);
 *    the launch is queued on the current stream, in order with library ops
 *    (here nd_sum reads the kernel's output);
 *  - a compile error comes back as a status with NVRTC's log.
 * Without a GPU it says so and exits 0: raw CUDA kernels run on a GPU only.
 */
#include <math.h>
#include <stdio.h>

#include "ndgpu.h"

// expect: raw_kernel:

static const char *SRC =
    "extern \"C\" __global__ void poly(const float *x, float *y, float a, float b, long long n)\n"
    "{\n"
    "    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] * x[i] + b;\n"
    "}\n";

#define CHECK(call)                                                                        \
    do {                                                                                   \
        nd_status st_ = (call);                                                            \
        if (st_ != ND_OK) {                                                                \
            fprintf(stderr, "%s failed: %s\n", #call, nd_last_error());                    \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)

int main(void)
{
    if (nd_cuda_device_count() == 0) {
        printf("raw_kernel: no GPU here, nothing to run (raw CUDA kernels run on a GPU only)\n");
        return 0;
    }
    nd_device dev = nd_cuda(0);
    const int64_t n = 1 << 20;
    nd_array *x = NULL, *y = NULL, *s = NULL;
    CHECK(nd_linspace(&x, ND_FLOAT32, 0.0, 1.0, n, true, dev));
    CHECK(nd_empty(&y, ND_FLOAT32, 1, &n, dev));

    nd_raw_kernel *k = NULL;
    CHECK(nd_raw_kernel_create(&k, SRC, "poly", NULL));
    nd_kernel_arg args[] = {nd_kernel_arg_array(x), nd_kernel_arg_array(y), nd_kernel_arg_float32(3.0f),
                            nd_kernel_arg_float32(1.0f), nd_kernel_arg_int64(n)};
    const unsigned block[3] = {256, 1, 1}, grid[3] = {(unsigned)((n + 255) / 256), 1, 1};
    CHECK(nd_raw_kernel_launch(k, dev, grid, block, 0, 5, args));
    CHECK(nd_reduce(&s, ND_REDUCE_SUM, y, 0, NULL, false)); /* same stream: runs after the kernel */
    float total = 0;
    CHECK(nd_copy_to_host(&total, s, sizeof total));
    /* sum of 3 x^2 + 1 over n points of [0, 1]: about n * (3/3 + 1) = 2 n */
    printf("raw_kernel: sum of 3x^2+1 over %lld points = %.1f (about %.1f)\n", (long long)n, (double)total, 2.0 * n);

    nd_raw_kernel *bad = NULL;
    CHECK(nd_raw_kernel_create(&bad, "extern \"C\" __global__ void f(float *x) { x[0] = oops; }\n", "f", NULL));
    nd_status st = nd_raw_kernel_launch(bad, dev, grid, block, 0, 1, args);
    printf("raw_kernel: a compile error gives %s:\n%s\n", nd_status_name(st), nd_last_error());

    nd_raw_kernel_release(bad);
    nd_raw_kernel_release(k);
    nd_release(x);
    nd_release(y);
    nd_release(s);
    return fabs(total - 2.0 * n) < 1e-3 * n && st == ND_ERR_INVALID ? 0 : 1;
}
