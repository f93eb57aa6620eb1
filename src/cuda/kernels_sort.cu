// CUDA sorting: nd_backend.sort_rows and searchsorted (contracts in
// src/core/backend.h, the order in src/shared/sort_keys.h).
//
// sort_rows: a kernel turns each element into its order-preserving key
// (src/shared/sort_keys.h; 8-bit dtypes widen to 16-bit keys sorted on their low
// 8 bits, a descending sort flips the key bits) and its int32 position in
// the row (total <= INT_MAX elements), CUB sorts the (key, position) pairs
// stably, and one gather kernel writes the values (the input element each
// sorted position names, so -0.0 and NaN payloads keep their exact bits)
// and the int64 indices. Two CUB routines, by the shape of the rows:
//  - few long rows (n >= 2^16 and rows * 2^13 <= n, so one row of 1e7):
//    cub::DeviceRadixSort::SortPairs once per row, which spreads each row
//    over the whole GPU. cub::DeviceSegmentedSort sorts a large segment in
//    ONE thread block (1 of 132 SMs on an H100), so it fills the GPU only
//    with many rows, while each device-wide call costs a fixed few
//    launches; the bound lets a row pay for its launches with at least
//    2^13 elements per row of the batch (an estimate from the launch
//    count, to be checked against the first GPU benchmark);
//  - otherwise (many rows, or short ones): one
//    cub::DeviceSegmentedSort::StableSortPairs over all rows (one segment a
//    row), which groups segments by size (warp and block merge sorts for
//    the small ones, radix sort for the large) and fills the GPU with
//    rows.
// Both are stable (radix sort; StableSortPairs by its name), so ties keep
// their input order, as the contract asks. Three key widths (16, 32, 64
// bits) x int32 positions per routine; temporaries come from the device
// pool on the current stream. topk_rows is NULL on this backend: the core
// sorts whole rows and keeps the first k columns.
// searchsorted: one thread per element of v, a binary search on keys
// (nd_sort_bsearch, the CPU's function).
#include <climits>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "cuda/sort_cuda.h"
#include "shared/sort_keys.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

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
__global__ void keys_kernel(const void *src, K *keys, int *pos, int64_t total, int64_t n, K flip)
{
    typedef typename kf<DT>::bits U;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        keys[i] = (K)((K)kf<DT>::key(((const U *)src)[i]) ^ flip);
        pos[i] = (int)(i % n);
    }
}

__global__ void offsets_kernel(int *off, int64_t rows, int64_t n)
{
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r <= rows; r += (int64_t)gridDim.x * blockDim.x)
        off[r] = (int)(r * n);
}

// dst[i] = the row's element at the sorted position pos[i] (dst NULL: not
// wanted); idx[i] = that position, widened (idx NULL: not wanted).
template <typename W>
__global__ void gather_kernel(const W *src, const int *pos, W *dst, int64_t *idx, int64_t total, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int p = pos[i];
        if (dst) dst[i] = src[(i / n) * n + p];
        if (idx) idx[i] = p;
    }
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

// The row-shape rule above: whether rows x n goes to per-row device-wide
// sorts.
bool device_wide(int64_t rows, int64_t n) { return n >= ((int64_t)1 << 16) && rows * ((int64_t)1 << 13) <= n; }

template <int DT, typename K>
cudaError_t launch_keys(const void *src, void *keys, int *pos, int64_t total, int64_t n, bool desc, cudaStream_t s)
{
    const int bits = 8 * (int)sizeof(typename kf<DT>::bits);
    K flip = desc ? (K)(bits >= (int)(8 * sizeof(K)) ? (K)~(K)0 : (K)(((K)1 << bits) - 1)) : (K)0;
    return nd_launch(keys_kernel<DT, K>, nd_grid_for(total, kBlock), kBlock, 0, s, src, (K *)keys, pos, total, n, flip);
}

// Sort the (key, position) pairs of every row: kin/vin -> kout/vout.
template <typename K>
nd_status sort_pairs(const char *func, int dev, const K *kin, K *kout, const int *vin, int *vout, int64_t rows,
                     int64_t n, int end_bit, cudaStream_t s)
{
    size_t bytes = 0;
    pool_buf tmp(dev);
    nd_status st;
    if (device_wide(rows, n)) {
        // one temporary for every row: the same size each time
        ND_CUDA_TRY(cub::DeviceRadixSort::SortPairs(NULL, bytes, kin, kout, vin, vout, (int)n, 0, end_bit, s), func);
        if ((st = tmp.get(bytes, s))) return st;
        for (int64_t r = 0; r < rows; r++) {
            const int64_t o = r * n;
            ND_CUDA_TRY(cub::DeviceRadixSort::SortPairs(tmp.p, bytes, kin + o, kout + o, vin + o, vout + o, (int)n, 0,
                                                        end_bit, s),
                        func);
        }
        return ND_OK;
    }
    pool_buf off(dev);
    if ((st = off.get(sizeof(int) * (size_t)(rows + 1), s))) return st;
    ND_CUDA_TRY(nd_launch(offsets_kernel, nd_grid_for(rows + 1, kBlock), kBlock, 0, s, (int *)off.p, rows, n), func);
    const int *o = (const int *)off.p;
    ND_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairs(NULL, bytes, kin, kout, vin, vout, rows * n, rows, o, o + 1, s),
                func);
    if ((st = tmp.get(bytes, s))) return st;
    ND_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairs(tmp.p, bytes, kin, kout, vin, vout, rows * n, rows, o, o + 1, s),
                func);
    return ND_OK;
}

template <typename W>
cudaError_t launch_gather(const void *src, const int *pos, void *dst, int64_t *idx, int64_t total, int64_t n,
                          cudaStream_t s)
{
    return nd_launch(gather_kernel<W>, nd_grid_for(total, kBlock), kBlock, 0, s, (const W *)src, pos, (W *)dst, idx,
                     total, n);
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
    pool_buf kin(dev), kout(dev), pin(dev), pout(dev);
    nd_status st;
    if ((st = kin.get(ksz * (size_t)total, s)) || (st = kout.get(ksz * (size_t)total, s)) ||
        (st = pin.get(sizeof(int) * (size_t)total, s)) || (st = pout.get(sizeof(int) * (size_t)total, s)))
        return st;
    const void *src = nd__ptr(a);
    cudaError_t e = cudaErrorInvalidValue;
    switch (a->dtype) {
#define ND__LK(E, sfx, U)                                                                                        \
    case E:                                                                                                      \
        e = launch_keys<E, typename std::conditional<sizeof(U) == 1, uint16_t, U>::type>(src, kin.p, (int *)pin.p, \
                                                                                         total, n, descending, s); \
        break;
        ND_SORT_DTYPES(ND__LK)
#undef ND__LK
    default: break;
    }
    ND_CUDA_TRY(e, func);
    const int end_bit = 8 * (int)isz;
    const int *pi = (const int *)pin.p;
    int *po = (int *)pout.p;
    switch (ksz) {
    case 2: st = sort_pairs(func, dev, (const uint16_t *)kin.p, (uint16_t *)kout.p, pi, po, rows, n, end_bit, s); break;
    case 4: st = sort_pairs(func, dev, (const uint32_t *)kin.p, (uint32_t *)kout.p, pi, po, rows, n, end_bit, s); break;
    default: st = sort_pairs(func, dev, (const uint64_t *)kin.p, (uint64_t *)kout.p, pi, po, rows, n, end_bit, s); break;
    }
    if (st) return st;
    void *dst = vals ? nd__ptr(vals) : NULL;
    int64_t *ix = idx ? (int64_t *)nd__ptr(idx) : NULL;
    switch (isz) {
    case 1: e = launch_gather<uint8_t>(src, po, dst, ix, total, n, s); break;
    case 2: e = launch_gather<uint16_t>(src, po, dst, ix, total, n, s); break;
    case 4: e = launch_gather<uint32_t>(src, po, dst, ix, total, n, s); break;
    default: e = launch_gather<uint64_t>(src, po, dst, ix, total, n, s); break;
    }
    ND_CUDA_TRY(e, func);
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
