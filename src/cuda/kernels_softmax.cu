// CUDA softmax family and cross-entropy (contracts in
// src/shared/softmax_slots.h and src/core/backend.h), on the current stream.
//
//  - rows along the last axis (inner == 1): one block of SM_BLOCK threads
//    per row (grid-stride over rows): a block max, a block sum of exp(x -
//    m), then the writes; warp shuffles + one shared word per warp; the
//    NaN flag through __syncthreads_or;
//  - a leading axis (inner > 1): one thread per (outer, column), three
//    runs down its column (neighbouring threads read neighbouring
//    addresses, so the loads coalesce).
// Accumulation in float for float16/bfloat16/float32, double for float64;
// the same non-finite rules as the CPU (src/cpu/softmax.c): softmax keeps
// m as it is, the others replace a non-finite m by 0. Cross-entropy writes
// NaN for a bad label and sets a device flag (plus the label), read back
// once after the kernel.
#include <math.h>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "cuda/mixed.h"
#include "shared/half.h"

namespace {

#define SM_BLOCK 256
#define SM_CE 3

template <typename T> struct sm_io;
template <> struct sm_io<float> {
    typedef float A;
    __device__ static A ld(float v) { return v; }
    __device__ static float st(A v) { return v; }
};
template <> struct sm_io<double> {
    typedef double A;
    __device__ static A ld(double v) { return v; }
    __device__ static double st(A v) { return v; }
};
struct f16_t { uint16_t v; };
struct bf16_t { uint16_t v; };
template <> struct sm_io<f16_t> {
    typedef float A;
    __device__ static A ld(f16_t v) { return nd_half_to_float(v.v); }
    __device__ static f16_t st(A v) { return f16_t{nd_float_to_half(v)}; }
};
template <> struct sm_io<bf16_t> {
    typedef float A;
    __device__ static A ld(bf16_t v) { return nd_bf16_to_float(v.v); }
    __device__ static bf16_t st(A v) { return bf16_t{nd_float_to_bf16(v)}; }
};

__device__ __forceinline__ float sm_exp(float v) { return expf(v); }
__device__ __forceinline__ double sm_exp(double v) { return exp(v); }
__device__ __forceinline__ float sm_log(float v) { return logf(v); }
__device__ __forceinline__ double sm_log(double v) { return log(v); }
__device__ __forceinline__ bool sm_finite(float v) { return isfinite(v); }
__device__ __forceinline__ bool sm_finite(double v) { return isfinite(v); }

template <typename A, bool MAX> __device__ A warp_red(A v)
{
    for (int o = 16; o > 0; o >>= 1) {
        A w = __shfl_xor_sync(0xffffffffu, v, o);
        v = MAX ? (w > v ? w : v) : v + w;
    }
    return v;
}

// every thread of the block gets the block's max (sum); sh holds 32 words
template <typename A, bool MAX> __device__ A block_red(A v, A *sh)
{
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_red<A, MAX>(v);
    __syncthreads(); // the previous call's readers of sh[0] are done
    if (lane == 0) sh[wid] = v;
    __syncthreads();
    v = lane < nw ? sh[lane] : (MAX ? (A)-INFINITY : (A)0);
    v = warp_red<A, MAX>(v);
    return v;
}

struct ce_args {
    const int64_t *labels;
    int64_t ignore;
    int *bad;
    long long *bad_label;
};

template <typename T>
__global__ void sm_rows(int mode, const T *x, T *out, int64_t outer, int64_t n, ce_args ce)
{
    ND_SYNC_KERNEL();
    typedef typename sm_io<T>::A A;
    __shared__ A sh[32];
    for (int64_t r = blockIdx.x; r < outer; r += gridDim.x) {
        const T *xr = x + r * n;
        A m = (A)-INFINITY;
        int nan = 0;
        for (int64_t k = threadIdx.x; k < n; k += blockDim.x) {
            A v = sm_io<T>::ld(xr[k]);
            m = v > m ? v : m;
            nan |= v != v;
        }
        m = block_red<A, true>(m, sh);
        nan = __syncthreads_or(nan);
        if (nan) m = (A)NAN;
        else if (mode != ND_SM_SOFTMAX && !sm_finite(m)) m = 0;
        A s = 0;
        for (int64_t k = threadIdx.x; k < n; k += blockDim.x) s += sm_exp(sm_io<T>::ld(xr[k]) - m);
        s = block_red<A, false>(s, sh);
        if (mode == ND_SM_LOGSUMEXP) {
            if (threadIdx.x == 0) out[r] = sm_io<T>::st(m + sm_log(s));
            continue;
        }
        if (mode == SM_CE) {
            if (threadIdx.x == 0) {
                const int64_t lab = ce.labels[r];
                A v;
                if (lab == ce.ignore) {
                    v = 0;
                } else if (lab < 0 || lab >= n) {
                    *ce.bad = 1;
                    *ce.bad_label = (long long)lab;
                    v = (A)NAN;
                } else {
                    v = m + sm_log(s) - sm_io<T>::ld(xr[lab]);
                }
                out[r] = sm_io<T>::st(v);
            }
            continue;
        }
        T *orow = out + r * n;
        const A inv = (A)1 / s, ls = sm_log(s);
        // out may be exactly x: each element is read, then written, by one thread
        for (int64_t k = threadIdx.x; k < n; k += blockDim.x) {
            const A v = sm_io<T>::ld(xr[k]) - m;
            orow[k] = sm_io<T>::st(mode == ND_SM_SOFTMAX ? sm_exp(v) * inv : v - ls);
        }
    }
}

template <typename T>
__global__ void sm_cols(int mode, const T *x, T *out, int64_t outer, int64_t n, int64_t inner, ce_args ce)
{
    typedef typename sm_io<T>::A A;
    const int64_t total = outer * inner, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < total; w += stride) {
        const int64_t o = w / inner, j = w % inner;
        const T *xc = x + o * n * inner + j;
        A m = (A)-INFINITY;
        bool nan = false;
        for (int64_t k = 0; k < n; k++) {
            A v = sm_io<T>::ld(xc[k * inner]);
            m = v > m ? v : m;
            nan |= v != v;
        }
        if (nan) m = (A)NAN;
        else if (mode != ND_SM_SOFTMAX && !sm_finite(m)) m = 0;
        A s = 0;
        for (int64_t k = 0; k < n; k++) s += sm_exp(sm_io<T>::ld(xc[k * inner]) - m);
        if (mode == ND_SM_LOGSUMEXP || mode == SM_CE) {
            A v = m + sm_log(s);
            if (mode == SM_CE) {
                const int64_t lab = ce.labels[w];
                if (lab == ce.ignore) {
                    v = 0;
                } else if (lab < 0 || lab >= n) {
                    *ce.bad = 1;
                    *ce.bad_label = (long long)lab;
                    v = (A)NAN;
                } else {
                    v -= sm_io<T>::ld(xc[lab * inner]);
                }
            }
            out[w] = sm_io<T>::st(v);
            continue;
        }
        T *oc = out + o * n * inner + j;
        const A inv = (A)1 / s, ls = sm_log(s);
        for (int64_t k = 0; k < n; k++) {
            const A v = sm_io<T>::ld(xc[k * inner]) - m;
            oc[k * inner] = sm_io<T>::st(mode == ND_SM_SOFTMAX ? sm_exp(v) * inv : v - ls);
        }
    }
}

template <typename T>
cudaError_t sm_launch(int mode, const void *x, void *out, int64_t outer, int64_t n, int64_t inner, const ce_args &ce,
                      cudaStream_t s)
{
    if (inner == 1) {
        const unsigned grid = (unsigned)(outer < (1 << 20) ? outer : (1 << 20));
        return nd_launch(sm_rows<T>, dim3(grid), dim3(SM_BLOCK), 0, s, mode, (const T *)x, (T *)out, outer, n, ce);
    }
    return nd_launch(sm_cols<T>, dim3(nd_grid_for(outer * inner, SM_BLOCK)), dim3(SM_BLOCK), 0, s, mode,
                     (const T *)x, (T *)out, outer, n, inner, ce);
}

cudaError_t sm_dispatch(nd_dtype t, int mode, const void *x, void *out, int64_t outer, int64_t n, int64_t inner,
                        const ce_args &ce, cudaStream_t s)
{
    switch (t) {
    case ND_FLOAT32: return sm_launch<float>(mode, x, out, outer, n, inner, ce, s);
    case ND_FLOAT64: return sm_launch<double>(mode, x, out, outer, n, inner, ce, s);
    case ND_FLOAT16: return sm_launch<f16_t>(mode, x, out, outer, n, inner, ce, s);
    default: return sm_launch<bf16_t>(mode, x, out, outer, n, inner, ce, s);
    }
}

} // namespace

extern "C" nd_status nd__cuda_softmax(int mode, nd_array *out, const nd_array *x, int64_t outer, int64_t n,
                                      int64_t inner)
{
    static const char *fn = "nd_softmax";
    if (!nd__is_float(x->dtype) || out->dtype != x->dtype || mode < ND_SM_SOFTMAX || mode > ND_SM_LOGSUMEXP)
        return nd__err(ND_ERR_INTERNAL, fn, "bad softmax call (mode %d)", mode);
    nd_device_guard g(x->device.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(x->device));
    ce_args ce = {NULL, 0, NULL, NULL};
    return nd_cuda_status(sm_dispatch(x->dtype, mode, nd__ptr(x), nd__ptr(out), outer, n, inner, ce, s), fn,
                          "the softmax kernel launch");
}

extern "C" nd_status nd__cuda_cross_entropy(nd_array *loss, const nd_array *logits, const nd_array *labels,
                                            int64_t outer, int64_t C, int64_t inner, int64_t ignore_index, bool *bad,
                                            int64_t *bad_label)
{
    static const char *fn = "nd_cross_entropy";
    *bad = false;
    if (!nd__is_float(logits->dtype) || loss->dtype != logits->dtype || labels->dtype != ND_INT64)
        return nd__err(ND_ERR_INTERNAL, fn, "bad cross_entropy call");
    const nd_device dev = logits->device;
    nd_device_guard g(dev.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(dev));
    // the flag and the label in one device block: [int flag][pad][long long label]
    char *blk = NULL;
    nd_status st = nd__cuda_alloc(dev.id, 16, s, (void **)&blk);
    if (st) return st;
    ce_args ce = {(const int64_t *)(const void *)nd__ptr(labels), ignore_index, (int *)(void *)blk,
                  (long long *)(void *)(blk + 8)};
    const char *what = "cudaMemsetAsync (the bad-label flag)";
    cudaError_t e = cudaMemsetAsync(blk, 0, 16, s);
    if (e == cudaSuccess) {
        e = sm_dispatch(logits->dtype, SM_CE, nd__ptr(logits), nd__ptr(loss), outer, C, inner, ce, s);
        if (e != cudaSuccess) what = "the cross-entropy kernel launch";
    }
    char host[16] = {0};
    if (e == cudaSuccess) {
        e = cudaMemcpyAsync(host, blk, 16, cudaMemcpyDeviceToHost, s);
        if (e != cudaSuccess) what = "cudaMemcpyAsync (the bad-label flag)";
    }
    if (e == cudaSuccess) {
        e = cudaStreamSynchronize(s);
        if (e != cudaSuccess) what = "cudaStreamSynchronize";
    }
    nd__cuda_free(dev.id, blk); // stream-ordered
    if (e != cudaSuccess) return nd_cuda_status(e, fn, what);
    int flag;
    long long lab;
    memcpy(&flag, host, sizeof flag);
    memcpy(&lab, host + 8, sizeof lab);
    *bad = flag != 0;
    *bad_label = (int64_t)lab;
    return ND_OK;
}
