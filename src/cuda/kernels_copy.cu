// Fill and cast kernels over any layout. The element conversions are the
// CPU's (src/shared/convert.h, ND_HOSTDEV); the iteration space is simplified on
// the host by nd__iter_init exactly as for the CPU loops.
#include <string.h>

#include "shared/convert.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "cuda/kiter.cuh"

template <typename S, typename D, typename F>
__global__ void cast_kernel(char *dst, const char *src, nd_kiter it, bool flat)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (flat) {
        D *d = (D *)dst;
        const S *s = (const S *)src;
        for (; i < it.n; i += stride) d[i] = F::cvt(s[i]);
        return;
    }
    for (; i < it.n; i += stride) {
        int64_t off[2];
        nd_kiter_offsets<2>(it, i, off);
        *(D *)(dst + off[0]) = F::cvt(*(const S *)(src + off[1]));
    }
}

template <typename T>
__global__ void fill_kernel(char *dst, T value, nd_kiter it, bool flat)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (flat) {
        for (; i < it.n; i += stride) ((T *)dst)[i] = value;
        return;
    }
    for (; i < it.n; i += stride) {
        int64_t off[1];
        nd_kiter_offsets<1>(it, i, off);
        *(T *)(dst + off[0]) = value;
    }
}

typedef cudaError_t (*cast_launcher)(char *, const char *, const nd_kiter &, bool, cudaStream_t);

#define DEF_CAST_LAUNCHER(S, D)                                                                            \
    struct cvt_##S##_##D {                                                                                 \
        __device__ static nd_##D##_t cvt(nd_##S##_t x) { return nd_cvt_##S##_##D(x); }                    \
    };                                                                                                     \
    static cudaError_t launch_cast_##S##_##D(char *dst, const char *src, const nd_kiter &it, bool flat, cudaStream_t s) \
    {                                                                                                      \
        return nd_launch(cast_kernel<nd_##S##_t, nd_##D##_t, cvt_##S##_##D>, nd_grid_for(it.n, 256), 256, 0, s, dst, src, it, flat); \
    }
#define DEF_CAST_LAUNCHERS_FROM(S) ND_DTYPE_PAIRS(DEF_CAST_LAUNCHER, S)
ND_DTYPE_SUFFIXES(DEF_CAST_LAUNCHERS_FROM)

#define CAST_LAUNCHER_NAME(S, D) launch_cast_##S##_##D,
#define CAST_ROW(S) {ND_DTYPE_PAIRS(CAST_LAUNCHER_NAME, S)},
static const cast_launcher cast_launchers[ND_NUM_DTYPES][ND_NUM_DTYPES] = {ND_DTYPE_SUFFIXES(CAST_ROW)};

// Same-dtype copies move bits, whatever the layout (as the CPU backend
// does): a float16/bfloat16 signalling NaN must not go through float and
// come back quieted (7c01 -> 7e01), and -0.0, payloads and subnormals stay
// exactly as they are for every dtype.
template <typename U>
struct bits_id {
    __device__ static U cvt(U x) { return x; }
};
static cudaError_t launch_bits(size_t isz, char *dst, const char *src, const nd_kiter &it, bool flat, cudaStream_t s)
{
    const unsigned grid = nd_grid_for(it.n, 256);
    switch (isz) {
    case 1: return nd_launch(cast_kernel<uint8_t, uint8_t, bits_id<uint8_t>>, grid, 256, 0, s, dst, src, it, flat);
    case 2: return nd_launch(cast_kernel<uint16_t, uint16_t, bits_id<uint16_t>>, grid, 256, 0, s, dst, src, it, flat);
    case 4: return nd_launch(cast_kernel<uint32_t, uint32_t, bits_id<uint32_t>>, grid, 256, 0, s, dst, src, it, flat);
    case 8: return nd_launch(cast_kernel<uint64_t, uint64_t, bits_id<uint64_t>>, grid, 256, 0, s, dst, src, it, flat);
    default: return nd_launch(cast_kernel<nd_c128_t, nd_c128_t, bits_id<nd_c128_t>>, grid, 256, 0, s, dst, src, it, flat); /* 16: complex128 */
    }
}


extern "C" nd_status nd__cuda_cast(nd_array *dst, const nd_array *src)
{
    if (dst->size == 0) return ND_OK;
    const nd_array *ops[2] = {dst, src};
    nd_iter it;
    nd__iter_init(&it, 2, ops);
    nd_kiter k = nd_kiter_of(it);
    bool flat = nd_kiter_flat(it);
    nd_device_guard g(dst->device.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(dst->device));
    if (flat && dst->dtype == src->dtype) {
        ND_CUDA_TRY(cudaMemcpyAsync(it.data[0], it.data[1], (size_t)it.size * it.itemsize[0], cudaMemcpyDeviceToDevice, s),
                    "nd_copy");
        return ND_OK;
    }
    if (dst->dtype == src->dtype) {
        ND_CUDA_TRY(launch_bits(it.itemsize[0], it.data[0], it.data[1], k, flat, s), "nd_copy");
        return ND_OK;
    }
    ND_CUDA_TRY(cast_launchers[src->dtype][dst->dtype](it.data[0], it.data[1], k, flat, s), "nd_astype");
    return ND_OK;
}

extern "C" nd_status nd__cuda_fill(nd_array *dst, const void *value)
{
    if (dst->size == 0) return ND_OK;
    const nd_array *ops[1] = {dst};
    nd_iter it;
    nd__iter_init(&it, 1, ops);
    nd_kiter k = nd_kiter_of(it);
    bool flat = nd_kiter_flat(it);
    nd_device_guard g(dst->device.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(dst->device));
    unsigned grid = nd_grid_for(it.size, 256);
    cudaError_t e;
    switch (it.itemsize[0]) {
    case 1: {
        uint8_t v;
        memcpy(&v, value, 1);
        e = nd_launch(fill_kernel<uint8_t>, grid, 256, 0, s, it.data[0], v, k, flat);
        break;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, value, 2);
        e = nd_launch(fill_kernel<uint16_t>, grid, 256, 0, s, it.data[0], v, k, flat);
        break;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, value, 4);
        e = nd_launch(fill_kernel<uint32_t>, grid, 256, 0, s, it.data[0], v, k, flat);
        break;
    }
    case 8: {
        uint64_t v;
        memcpy(&v, value, 8);
        e = nd_launch(fill_kernel<uint64_t>, grid, 256, 0, s, it.data[0], v, k, flat);
        break;
    }
    default: { /* 16: complex128 (8-byte aligned, as its parts) */
        nd_c128_t v;
        memcpy(&v, value, 16);
        e = nd_launch(fill_kernel<nd_c128_t>, grid, 256, 0, s, it.data[0], v, k, flat);
        break;
    }
    }
    ND_CUDA_TRY(e, "nd_full");
    return ND_OK;
}
