// CUDA sorting: nd_backend.sort_rows and searchsorted (contracts in
// src/backend.h, the order in src/sort_keys.h).
//
// sort_rows: a kernel turns each element into its order-preserving key
// (src/sort_keys.h; 8-bit dtypes widen to 16-bit keys sorted on their low
// 8 bits, a descending sort flips the key bits) and its position in the
// row, then cub::DeviceSegmentedRadixSort::SortPairs sorts (key, position)
// pairs per row (one segment per row; radix sorting is stable), and the
// values come from a gather of the input by the sorted positions (so
// -0.0 and NaN payloads keep their exact bits). Three CUB instantiations
// (16-, 32-, 64-bit keys, int64 values); temporaries come from the device
// pool on the current stream. topk_rows is NULL on this backend: the core
// sorts whole rows and keeps the first k columns.
// searchsorted: one thread per element of v, a binary search on keys
// (nd_sort_bsearch, the CPU's function).
#include <climits>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "cuda/sort_cuda.h"
#include "sort_keys.h"

#include <cub/device/device_segmented_radix_sort.cuh>

namespace {

template <int DT> struct kf;
#define ND__KF(E, s, U)                                                       \
    template <> struct kf<E> {                                                \
        typedef U bits;                                                       \
        static __device__ __forceinline__ U key(U b) { return nd_key_##s(b); } \
    };
ND_SORT_DTYPES(ND__KF)
#undef ND__KF

template <int DT, typename K>
__global__ void keys_kernel(const void *src, K *keys, int64_t *pos, int64_t total, int64_t n, K flip)
{
    typedef typename kf<DT>::bits U;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        keys[i] = (K)((K)kf<DT>::key(((const U *)src)[i]) ^ flip);
        pos[i] = i % n;
    }
}

__global__ void offsets_kernel(int *off, int64_t rows, int64_t n)
{
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r <= rows; r += (int64_t)gridDim.x * blockDim.x)
        off[r] = (int)(r * n);
}

template <typename W>
__global__ void gather_kernel(const W *src, const int64_t *pos, W *dst, int64_t total, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = src[(i / n) * n + pos[i]];
}

__global__ void searchsorted_kernel(int t, const void *a, int64_t n, const void *v, int64_t nv, int64_t *out, int right)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += (int64_t)gridDim.x * blockDim.x)
        out[i] = nd_sort_bsearch(t, a, n, nd_sort_key64(t, v, i), right);
}

// A device-pool block released (stream-ordered) when the scope ends.
struct pool_buf {
    int dev;
    void *p;
    explicit pool_buf(int d) : dev(d), p(NULL) {}
    ~pool_buf()
    {
        if (p) nd__cuda_free(dev, p);
    }
    nd_status get(size_t nbytes, cudaStream_t s) { return nd__cuda_alloc(dev, nbytes ? nbytes : 1, (void *)s, &p); }
};

const unsigned kBlock = 256;

template <int DT, typename K>
cudaError_t launch_keys(const void *src, void *keys, int64_t *pos, int64_t total, int64_t n, bool desc, cudaStream_t s)
{
    const int bits = 8 * (int)sizeof(typename kf<DT>::bits);
    K flip = desc ? (K)(bits >= (int)(8 * sizeof(K)) ? (K)~(K)0 : (K)(((K)1 << bits) - 1)) : (K)0;
    return nd_launch(keys_kernel<DT, K>, nd_grid_for(total, kBlock), kBlock, 0, s, src, (K *)keys, pos, total, n, flip);
}

template <typename K>
nd_status radix_pairs(const char *func, int dev, const void *kin, void *kout, const int64_t *vin, int64_t *vout,
                      int64_t total, int64_t rows, const int *off, int end_bit, cudaStream_t s)
{
    size_t bytes = 0;
    ND_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortPairs(NULL, bytes, (const K *)kin, (K *)kout, vin, vout, (int)total,
                                                         (int)rows, off, off + 1, 0, end_bit, s),
                func);
    pool_buf tmp(dev);
    nd_status st = tmp.get(bytes, s);
    if (st) return st;
    ND_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortPairs(tmp.p, bytes, (const K *)kin, (K *)kout, vin, vout, (int)total,
                                                         (int)rows, off, off + 1, 0, end_bit, s),
                func);
    return ND_OK;
}

} // namespace

extern "C" nd_status nd__cuda_sort_rows(nd_array *vals, nd_array *idx, const nd_array *a, bool descending)
{
    const char *func = "nd_sort";
    int64_t rows = a->shape[0], n = a->shape[1], total = rows * n;
    if (total == 0) return ND_OK;
    if (total > INT_MAX)
        return nd__err(ND_ERR_UNSUPPORTED, func, "the CUDA sort takes at most %d elements (got %lld)", INT_MAX,
                       (long long)total);
    int dev = a->device.id;
    nd_device_guard g(dev);
    cudaStream_t s = nd_stream_of(nd__current_stream(a->device));
    size_t isz = nd__itemsize(a->dtype), ksz = isz == 1 ? 2 : isz;
    pool_buf kin(dev), kout(dev), pin(dev), pout(dev), off(dev);
    nd_status st;
    if ((st = kin.get(ksz * (size_t)total, s)) || (st = kout.get(ksz * (size_t)total, s)) ||
        (st = pin.get(8 * (size_t)total, s)) || (st = off.get(sizeof(int) * (size_t)(rows + 1), s)))
        return st;
    int64_t *pos_out = idx ? (int64_t *)nd__ptr(idx) : NULL;
    if (!pos_out) {
        if ((st = pout.get(8 * (size_t)total, s))) return st;
        pos_out = (int64_t *)pout.p;
    }
    const void *src = nd__ptr(a);
    cudaError_t e = cudaErrorInvalidValue;
    switch (a->dtype) {
#define ND__LK(E, sfx, U)                                                                                          \
    case E:                                                                                                        \
        e = launch_keys<E, typename std::conditional<sizeof(U) == 1, uint16_t, U>::type>(src, kin.p, (int64_t *)pin.p, \
                                                                                         total, n, descending, s); \
        break;
        ND_SORT_DTYPES(ND__LK)
#undef ND__LK
    default: break;
    }
    ND_CUDA_TRY(e, func);
    ND_CUDA_TRY(nd_launch(offsets_kernel, nd_grid_for(rows + 1, kBlock), kBlock, 0, s, (int *)off.p, rows, n), func);
    int end_bit = 8 * (int)isz;
    switch (ksz) {
    case 2: st = radix_pairs<uint16_t>(func, dev, kin.p, kout.p, (const int64_t *)pin.p, pos_out, total, rows, (const int *)off.p, end_bit, s); break;
    case 4: st = radix_pairs<uint32_t>(func, dev, kin.p, kout.p, (const int64_t *)pin.p, pos_out, total, rows, (const int *)off.p, end_bit, s); break;
    default: st = radix_pairs<uint64_t>(func, dev, kin.p, kout.p, (const int64_t *)pin.p, pos_out, total, rows, (const int *)off.p, end_bit, s); break;
    }
    if (st) return st;
    if (vals) {
        unsigned grid = nd_grid_for(total, kBlock);
        void *dst = nd__ptr(vals);
        switch (isz) {
        case 1: e = nd_launch(gather_kernel<uint8_t>, grid, kBlock, 0, s, (const uint8_t *)src, (const int64_t *)pos_out, (uint8_t *)dst, total, n); break;
        case 2: e = nd_launch(gather_kernel<uint16_t>, grid, kBlock, 0, s, (const uint16_t *)src, (const int64_t *)pos_out, (uint16_t *)dst, total, n); break;
        case 4: e = nd_launch(gather_kernel<uint32_t>, grid, kBlock, 0, s, (const uint32_t *)src, (const int64_t *)pos_out, (uint32_t *)dst, total, n); break;
        default: e = nd_launch(gather_kernel<uint64_t>, grid, kBlock, 0, s, (const uint64_t *)src, (const int64_t *)pos_out, (uint64_t *)dst, total, n); break;
        }
        ND_CUDA_TRY(e, func);
    }
    return ND_OK;
}

extern "C" nd_status nd__cuda_searchsorted(nd_array *out, const nd_array *a, const nd_array *v, bool right)
{
    const char *func = "nd_searchsorted";
    nd_device_guard g(out->device.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(out->device));
    ND_CUDA_TRY(nd_launch(searchsorted_kernel, nd_grid_for(v->size, kBlock), kBlock, 0, s, (int)a->dtype,
                          (const void *)nd__ptr(a), a->size, (const void *)nd__ptr(v), v->size, (int64_t *)nd__ptr(out),
                          (int)right),
                func);
    return ND_OK;
}
