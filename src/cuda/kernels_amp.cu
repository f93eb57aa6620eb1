// CUDA fused unscale-and-check (loss scaling; contract in
// src/core/backend.h, amp_unscale), PyTorch's
// _amp_foreach_non_finite_check_and_unscale_: x *= inv_scale in place and
// a flag for whether any element was inf or NaN before the multiply.
//
// One grid-stride kernel launch per array on the device's current stream,
// over the iteration space simplified on the host by nd__iter_init (a
// contiguous or transposed array is one flat run, indexed directly; any
// other layout goes through nd_kiter offsets). Every thread or-s its own
// elements' checks and, when it saw one, stores 1 into one int in device
// memory (a plain store: all writers write the same value; no atomics, no
// barriers). After the last launch the flag comes back with one copy and
// one stream synchronisation. float16/bfloat16 are widened to float32,
// multiplied by float32(inv_scale) and rounded once back (PyTorch's
// opmath); float32 multiplies in float32, float64 in float64; a factor of
// exactly 1 only reads.
#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "cuda/kiter.cuh"
#include "cuda/mixed.h"
#include "shared/half.h"

namespace {

struct amp_f32 {
    typedef float T;
    __device__ static bool bad(float v) { return (nd_f32_bits(v) & 0x7f800000u) == 0x7f800000u; }
    __device__ static float mul(float v, float kf, double) { return v * kf; }
};
struct amp_f64 {
    typedef double T;
    __device__ static bool bad(double v)
    {
        uint64_t u;
        memcpy(&u, &v, 8);
        return (u & 0x7ff0000000000000ull) == 0x7ff0000000000000ull;
    }
    __device__ static double mul(double v, float, double kd) { return v * kd; }
};
struct amp_f16 {
    typedef uint16_t T;
    __device__ static bool bad(uint16_t h) { return (h & 0x7c00u) == 0x7c00u; }
    __device__ static uint16_t mul(uint16_t h, float kf, double) { return nd_float_to_half(nd_half_to_float(h) * kf); }
};
struct amp_bf16 {
    typedef uint16_t T;
    __device__ static bool bad(uint16_t h) { return (h & 0x7f80u) == 0x7f80u; }
    __device__ static uint16_t mul(uint16_t h, float kf, double) { return nd_float_to_bf16(nd_bf16_to_float(h) * kf); }
};

template <typename O>
__global__ void amp_unscale_kernel(char *base, nd_kiter it, bool flat, bool write, float kf, double kd, int *found)
{
    typedef typename O::T T;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    bool bad = false;
    if (flat) {
        T *x = (T *)base;
        for (; i < it.n; i += stride) {
            T v = x[i];
            bad |= O::bad(v);
            if (write) x[i] = O::mul(v, kf, kd);
        }
    } else {
        for (; i < it.n; i += stride) {
            int64_t off[1];
            nd_kiter_offsets<1>(it, i, off);
            T *p = (T *)(base + off[0]);
            T v = *p;
            bad |= O::bad(v);
            if (write) *p = O::mul(v, kf, kd);
        }
    }
    if (bad) *found = 1;
}

cudaError_t launch_one(const nd_array *a, double inv_scale, int *flag, cudaStream_t s)
{
    const nd_array *ops[1] = {a};
    nd_iter it;
    nd__iter_init(&it, 1, ops);
    const nd_kiter k = nd_kiter_of(it);
    const bool flat = nd_kiter_flat(it);
    const float kf = (float)inv_scale;
    const bool write = a->dtype == ND_FLOAT64 ? inv_scale != 1.0 : kf != 1.0f;
    const unsigned grid = nd_grid_for(it.size, 256);
    switch (a->dtype) {
    case ND_FLOAT16: return nd_launch(amp_unscale_kernel<amp_f16>, grid, 256, 0, s, it.data[0], k, flat, write, kf, inv_scale, flag);
    case ND_BFLOAT16: return nd_launch(amp_unscale_kernel<amp_bf16>, grid, 256, 0, s, it.data[0], k, flat, write, kf, inv_scale, flag);
    case ND_FLOAT32: return nd_launch(amp_unscale_kernel<amp_f32>, grid, 256, 0, s, it.data[0], k, flat, write, kf, inv_scale, flag);
    default: return nd_launch(amp_unscale_kernel<amp_f64>, grid, 256, 0, s, it.data[0], k, flat, write, kf, inv_scale, flag);
    }
}

} // namespace

extern "C" nd_status nd__cuda_amp_unscale(nd_array *const *xs, int n, double inv_scale, bool *found)
{
    const char *fn = "nd_amp_unscale_check";
    *found = false;
    for (int i = 0; i < n; i++)
        if (!nd__is_float(xs[i]->dtype) || !nd__same_device(xs[i]->device, xs[0]->device))
            return nd__err(ND_ERR_INTERNAL, "nd__cuda_amp_unscale", "arrays[%d]: not a float array on the device", i);
    if (n == 0) return ND_OK;
    const nd_device dev = xs[0]->device;
    nd_device_guard g(dev.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(dev));
    int *flag = NULL;
    nd_status st = nd__cuda_alloc(dev.id, sizeof(int), s, (void **)&flag);
    if (st) return st;
    const char *what = "cudaMemsetAsync (the found flag)";
    cudaError_t e = cudaMemsetAsync(flag, 0, sizeof(int), s);
    for (int i = 0; i < n && e == cudaSuccess; i++) {
        if (xs[i]->size == 0) continue;
        e = launch_one(xs[i], inv_scale, flag, s);
        if (e != cudaSuccess) what = "the unscale kernel launch";
    }
    int host = 0;
    if (e == cudaSuccess) {
        e = cudaMemcpyAsync(&host, flag, sizeof(int), cudaMemcpyDeviceToHost, s);
        if (e != cudaSuccess) what = "cudaMemcpyAsync (the found flag)";
    }
    if (e == cudaSuccess) {
        e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) what = "cudaStreamSynchronize";
    }
    nd__cuda_free(dev.id, flag); // stream-ordered
    if (e != cudaSuccess) return nd_cuda_status(e, fn, what);
    *found = host != 0;
    return ND_OK;
}
