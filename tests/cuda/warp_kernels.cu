// Test kernels for the warp and block primitives the CUDA backend uses,
// compiled by nvcc on a GPU build and as C++ for the emulated GPU: they prove
// that the emulation gives CUDA's 32-lane semantics (HIP-CPU's own warp is
// 64 fibers and its shuffles mis-bound widths below 64). Driven by
// tests/test_gpu_warp.c, which computes the expected lanes on the host.
#include "cuda/cuda_seam.h"

#include <stdint.h>

#include "cuda/cuda_backend.h"

#define NDT_FORMS 4  /* idx, up, down, xor */
#define NDT_WIDTHS 6 /* 32, 16, 8, 4, 2, 1 */
#define NDT_ARGS 3

// out[((form * NDT_WIDTHS + wi) * NDT_ARGS + ai) * nthreads + t]
__global__ void ndt_shuffle_kernel(int *out, const int *args, int nthreads)
{
    ND_SYNC_KERNEL();
    const int t = (int)threadIdx.x;
    const int v = t * 7 + 1;
    for (int wi = 0; wi < NDT_WIDTHS; wi++) {
        const int w = 32 >> wi;
        for (int ai = 0; ai < NDT_ARGS; ai++) {
            const int a = args[ai];
            const int base = (wi * NDT_ARGS + ai) * nthreads + t;
            out[0 * NDT_WIDTHS * NDT_ARGS * nthreads + base] = __shfl_sync(0xffffffffu, v, a, w);
            out[1 * NDT_WIDTHS * NDT_ARGS * nthreads + base] = __shfl_up_sync(0xffffffffu, v, (unsigned)a, w);
            out[2 * NDT_WIDTHS * NDT_ARGS * nthreads + base] = __shfl_down_sync(0xffffffffu, v, (unsigned)a, w);
            out[3 * NDT_WIDTHS * NDT_ARGS * nthreads + base] = __shfl_xor_sync(0xffffffffu, v, a, w);
        }
    }
}

// Divergent warps, the pattern of the reduction kernels: warp 1 skips its
// shuffles (a warp with no item), the others tree-reduce their lanes with
// __shfl_down_sync; lane 0s publish to shared memory; after __syncthreads
// warp 0 alone reduces the partials with shuffles, writes the block total
// to shared memory, and after a second __syncthreads every thread reads
// it. Also __syncthreads_or over a predicate held by one thread only.
// res[t] = block total seen by thread t; res[nthreads + t] = the OR.
__global__ void ndt_divergent_kernel(int64_t *res, int nthreads, int skip_warp, int or_thread)
{
    ND_SYNC_KERNEL();
    __shared__ int64_t part[32];
    __shared__ int64_t total;
    const int t = (int)threadIdx.x, lane = t & 31, w = t >> 5, nw = (nthreads + 31) / 32;
    int64_t v = 0;
    if (w != skip_warp) {
        v = (int64_t)(t + 1) * (t + 3);
        for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
        if (lane == 0) part[w] = v;
    } else if (lane == 0) {
        part[w] = 0;
    }
    __syncthreads();
    if (w == 0) {
        int64_t p = lane < nw ? part[lane] : 0;
        for (int d = 16; d > 0; d >>= 1) p += __shfl_down_sync(0xffffffffu, p, d);
        if (lane == 0) total = p;
    }
    __syncthreads();
    res[t] = total;
    res[nthreads + t] = __syncthreads_or(t == or_thread);
}

// An early return by some threads, then a barrier among the rest (allowed
// on sm_70+: exited threads no longer count). res[t] = the shared value
// written by the last live thread before the barrier, or -1 if exited.
__global__ void ndt_exit_kernel(int *res, int nthreads, int live)
{
    ND_SYNC_KERNEL();
    __shared__ int flag;
    const int t = (int)threadIdx.x;
    res[t] = -1;
    if (t >= live) return;
    if (t == live - 1) flag = 1000 + t;
    __syncthreads();
    res[t] = flag;
    (void)nthreads;
}

static int ndt_err(cudaError_t e) { return e == cudaSuccess ? 0 : (int)e; }

extern "C" int ndt_run_shuffles(int *host_out, const int *host_args, int nthreads)
{
    const size_t n = (size_t)NDT_FORMS * NDT_WIDTHS * NDT_ARGS * nthreads;
    int *out = NULL, *args = NULL;
    cudaError_t e = cudaMalloc((void **)&out, n * sizeof(int));
    if (e == cudaSuccess) e = cudaMalloc((void **)&args, NDT_ARGS * sizeof(int));
    if (e == cudaSuccess) e = cudaMemset(out, 0xff, n * sizeof(int)); /* poison */
    if (e == cudaSuccess) e = cudaMemcpy(args, host_args, NDT_ARGS * sizeof(int), cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = nd_launch(ndt_shuffle_kernel, dim3(1), dim3((unsigned)nthreads), 0, (cudaStream_t)0, out, args, nthreads);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(host_out, out, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(out);
    cudaFree(args);
    return ndt_err(e);
}

extern "C" int ndt_run_divergent(int64_t *host_res, int nthreads, int skip_warp, int or_thread)
{
    int64_t *res = NULL;
    cudaError_t e = cudaMalloc((void **)&res, 2 * (size_t)nthreads * sizeof(int64_t));
    if (e == cudaSuccess) e = cudaMemset(res, 0xff, 2 * (size_t)nthreads * sizeof(int64_t));
    if (e == cudaSuccess)
        e = nd_launch(ndt_divergent_kernel, dim3(3), dim3((unsigned)nthreads), 0, (cudaStream_t)0, res, nthreads, skip_warp, or_thread);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(host_res, res, 2 * (size_t)nthreads * sizeof(int64_t), cudaMemcpyDeviceToHost);
    cudaFree(res);
    return ndt_err(e);
}

extern "C" int ndt_run_exit(int *host_res, int nthreads, int live)
{
    int *res = NULL;
    cudaError_t e = cudaMalloc((void **)&res, (size_t)nthreads * sizeof(int));
    if (e == cudaSuccess) e = nd_launch(ndt_exit_kernel, dim3(2), dim3((unsigned)nthreads), 0, (cudaStream_t)0, res, nthreads, live);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaMemcpy(host_res, res, (size_t)nthreads * sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(res);
    return ndt_err(e);
}

// A launch over a real GPU's limits is refused, whatever the build.
extern "C" int ndt_run_bad_launch(int which)
{
    dim3 g(1), b(32);
    if (which == 0) b = dim3(1025);
    else if (which == 1) g = dim3(1, 65536);
    else if (which == 2) b = dim3(1, 1, 65);
    else g = dim3(0);
    cudaError_t e = nd_launch(ndt_exit_kernel, g, b, 0, (cudaStream_t)0, (int *)NULL, 0, 0);
    (void)cudaGetLastError();
    return (int)e;
}
