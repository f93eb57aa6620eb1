// CUDA scans (nd_backend.scan; contract in src/shared/scan_slots.h): inclusive
// sum/prod/max/min along the middle axis of C-contiguous (outer, n, inner)
// arrays of int64, uint64, float32 or float64, on the current stream.
//
//  - few long rows (inner == 1, n >= SC_CUB_MIN, outer <= SC_CUB_ROWS):
//    float and double sums and products: a tiled scan in three kernels
//    (tile totals; the carries into the tiles, scanned by one block per
//    row; the tiles scanned with their carries), each combining in an
//    order fixed by the tile geometry alone, so that the same input gives
//    the same bits in every run, as the reductions do. cub::DeviceScan is
//    documented as not bitwise reproducible for floating-point sums (its
//    decoupled look-back combines whatever predecessors have finished);
//    it still runs the exact combines (integer sums and products, which
//    wrap, and max / min of every type), one call per row, with one
//    pooled temporary sized once for the row length;
//  - other rows (inner == 1): one warp per row, tiles of 32 consecutive
//    elements (coalesced) scanned with __shfl_up_sync and carried on;
//  - inner > 1 (a scan along a leading axis): one thread per (outer,
//    column), a sequential run down its column (neighbouring threads read
//    neighbouring addresses).
// The combining steps are the shared bodies of src/shared/scan_slots.h (nd_sc_*_S).
// Instantiations: CUB's scan for (float, double, uint64) x (sum, prod, max,
// min) and int64 x (max, min) (int64 sums and products are computed on the
// uint64 bits: the same wrapping result) = 14; the two own kernels for the
// same 14 (type, op) pairs.
#include <cub/device/device_scan.cuh>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "cuda/scan.h"

#define SC_CUB_MIN (1 << 16)
#define SC_CUB_ROWS 8

template <typename T> struct sc_ops;
#define SC_OPS(T, S)                                                                               \
    template <> struct sc_ops<T> {                                                                 \
        static __host__ __device__ __forceinline__ T apply(int op, T a, T x)                       \
        {                                                                                          \
            return op == ND_SC_SUM ? nd_sc_sum_##S(a, x) : op == ND_SC_PROD ? nd_sc_prod_##S(a, x) \
                   : op == ND_SC_MAX ? nd_sc_max_##S(a, x) : nd_sc_min_##S(a, x);                  \
        }                                                                                          \
    };
SC_OPS(float, f32)
SC_OPS(double, f64)
SC_OPS(int64_t, i64)
SC_OPS(uint64_t, u64)
#undef SC_OPS

// The scan operator CUB calls: one functor type per (T, op).
template <typename T, int OP> struct sc_fn {
    __host__ __device__ __forceinline__ T operator()(const T &a, const T &x) const { return sc_ops<T>::apply(OP, a, x); }
};

// 64-bit shuffles through the types every CUDA version overloads.
static __device__ __forceinline__ float sc_shfl_up(float v, unsigned d) { return __shfl_up_sync(0xffffffffu, v, d); }
static __device__ __forceinline__ double sc_shfl_up(double v, unsigned d) { return __shfl_up_sync(0xffffffffu, v, d); }
static __device__ __forceinline__ int64_t sc_shfl_up(int64_t v, unsigned d)
{
    return (int64_t)__shfl_up_sync(0xffffffffu, (long long)v, d);
}
static __device__ __forceinline__ uint64_t sc_shfl_up(uint64_t v, unsigned d)
{
    return (uint64_t)__shfl_up_sync(0xffffffffu, (unsigned long long)v, d);
}
static __device__ __forceinline__ float sc_shfl(float v, int l) { return __shfl_sync(0xffffffffu, v, l); }
static __device__ __forceinline__ double sc_shfl(double v, int l) { return __shfl_sync(0xffffffffu, v, l); }
static __device__ __forceinline__ int64_t sc_shfl(int64_t v, int l)
{
    return (int64_t)__shfl_sync(0xffffffffu, (long long)v, l);
}
static __device__ __forceinline__ uint64_t sc_shfl(uint64_t v, int l)
{
    return (uint64_t)__shfl_sync(0xffffffffu, (unsigned long long)v, l);
}

#define SC_WARPS 4 // rows per block of the warp kernel

// One warp per row: rows of length n, tiles of 32.
template <typename T, int OP> __global__ void sc_rows_kernel(T *out, const T *a, int64_t rows, int64_t n)
{
    ND_SYNC_KERNEL();
    const int lane = (int)(threadIdx.x & 31u);
    for (int64_t r = (int64_t)blockIdx.x * SC_WARPS + (threadIdx.x >> 5); r - (threadIdx.x >> 5) < rows;
         r += (int64_t)gridDim.x * SC_WARPS) {
        // every lane of a warp takes the same trip count (the shuffles need all 32)
        const bool live = r < rows;
        const T *x = a + (live ? r : 0) * n;
        T *y = out + (live ? r : 0) * n;
        T carry = T(0);
        for (int64_t t0 = 0; t0 < n; t0 += 32) {
            const int64_t i = t0 + lane;
            const bool in = live && i < n;
            T v = in ? x[i] : T(0);
            for (unsigned d = 1; d < 32; d <<= 1) {
                T u = sc_shfl_up(v, d);
                if ((unsigned)lane >= d && t0 + lane - (int64_t)d < n) v = sc_ops<T>::apply(OP, u, v);
            }
            if (t0 > 0) v = sc_ops<T>::apply(OP, carry, v);
            if (in) y[i] = v;
            const int64_t last = (n - t0 < 32 ? n - t0 : 32) - 1;
            carry = sc_shfl(v, (int)last);
        }
    }
}

// One thread per (outer, column) pair, sequential down the column.
template <typename T, int OP>
__global__ void sc_cols_kernel(T *out, const T *a, int64_t outer, int64_t n, int64_t inner)
{
    const int64_t total = outer * inner;
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < total; c += (int64_t)gridDim.x * blockDim.x) {
        const int64_t o = c / inner, j = c % inner;
        const T *x = a + o * n * inner + j;
        T *y = out + o * n * inner + j;
        T acc = x[0];
        y[0] = acc;
        for (int64_t i = 1; i < n; i++) {
            acc = sc_ops<T>::apply(OP, acc, x[i * inner]);
            y[i * inner] = acc;
        }
    }
}

// ---- the deterministic tiled scan (float / double sums and products) ----
// A tile of SC_T_ITEMS consecutive elements per thread and SC_T_THREADS
// threads; rows along blockIdx.y. Thread t of a tile owns elements
// [t * SC_T_ITEMS, (t + 1) * SC_T_ITEMS), so the valid threads of the last
// tile are a prefix; every combine below is between fixed positions.
#define SC_T_THREADS 256
#define SC_T_ITEMS 16
#define SC_T_TILE (SC_T_THREADS * SC_T_ITEMS)
#define SC_T_CARRY_THREADS 1024

// Inclusive scan of v over the valid prefix [0, nvalid) of the block's
// threads (Hillis-Steele: step d combines with the value d places left).
template <typename T, int OP> static __device__ T sc_block_incl(T v, T *sh, int nvalid)
{
    const int t = (int)threadIdx.x;
    for (int d = 1; d < (int)blockDim.x; d <<= 1) {
        sh[t] = v;
        __syncthreads();
        if (t < nvalid && t >= d) v = sc_ops<T>::apply(OP, sh[t - d], v);
        __syncthreads();
    }
    return v;
}

// part[row * ntiles + b] = the combine of tile b, left to right within
// each thread, then the threads' totals by the same fixed scan.
template <typename T, int OP> __global__ void sc_tile_total_kernel(T *part, const T *a, int64_t n, int64_t ntiles)
{
    ND_SYNC_KERNEL();
    __shared__ T sh[SC_T_THREADS];
    const int64_t row = blockIdx.y, b = blockIdx.x;
    const T *x = a + row * n + b * SC_T_TILE;
    const int64_t len = n - b * SC_T_TILE < SC_T_TILE ? n - b * SC_T_TILE : SC_T_TILE;
    const int t = (int)threadIdx.x;
    const int nvalid = (int)((len + SC_T_ITEMS - 1) / SC_T_ITEMS);
    T acc = T(0);
    for (int k = 0; k < SC_T_ITEMS; k++) {
        const int64_t i = (int64_t)t * SC_T_ITEMS + k;
        if (i < len) acc = k == 0 ? x[i] : sc_ops<T>::apply(OP, acc, x[i]);
    }
    acc = sc_block_incl<T, OP>(acc, sh, nvalid);
    if (t == nvalid - 1) part[row * ntiles + b] = acc;
}

// One block per row: part[b] becomes the combine of tiles 0 .. b-1 (the
// carry into tile b; part[0] is left as it is and never read).
template <typename T, int OP> __global__ void sc_tile_carry_kernel(T *part, int64_t ntiles)
{
    ND_SYNC_KERNEL();
    __shared__ T sh[SC_T_CARRY_THREADS];
    T *p = part + (int64_t)blockIdx.y * ntiles;
    const int t = (int)threadIdx.x;
    const int64_t per = (ntiles + SC_T_CARRY_THREADS - 1) / SC_T_CARRY_THREADS;
    const int64_t lo = t * per, hi = lo + per < ntiles ? lo + per : ntiles;
    const int nvalid = (int)((ntiles + per - 1) / per);
    T tot = T(0);
    for (int64_t j = lo; j < hi; j++) tot = j == lo ? p[j] : sc_ops<T>::apply(OP, tot, p[j]);
    const T incl = sc_block_incl<T, OP>(tot, sh, nvalid);
    sh[t] = incl;
    __syncthreads();
    bool have = t > 0;
    T run = have ? sh[t - 1] : T(0);
    for (int64_t j = lo; j < hi; j++) {
        const T v = p[j];
        if (have) p[j] = run;
        run = have ? sc_ops<T>::apply(OP, run, v) : v;
        have = true;
    }
}

// Tile b scanned: the thread's elements left to right, after the combine
// of the tile's carry and the earlier threads' totals.
template <typename T, int OP>
__global__ void sc_tile_scan_kernel(T *out, const T *a, const T *part, int64_t n, int64_t ntiles)
{
    ND_SYNC_KERNEL();
    __shared__ T sh[SC_T_THREADS];
    const int64_t row = blockIdx.y, b = blockIdx.x;
    const T *x = a + row * n + b * SC_T_TILE;
    T *y = out + row * n + b * SC_T_TILE;
    const int64_t len = n - b * SC_T_TILE < SC_T_TILE ? n - b * SC_T_TILE : SC_T_TILE;
    const int t = (int)threadIdx.x;
    const int nvalid = (int)((len + SC_T_ITEMS - 1) / SC_T_ITEMS);
    T v[SC_T_ITEMS];
    T acc = T(0);
    for (int k = 0; k < SC_T_ITEMS; k++) {
        const int64_t i = (int64_t)t * SC_T_ITEMS + k;
        if (i < len) acc = k == 0 ? x[i] : sc_ops<T>::apply(OP, acc, x[i]);
        v[k] = acc;
    }
    const T incl = sc_block_incl<T, OP>(acc, sh, nvalid);
    sh[t] = incl;
    __syncthreads();
    bool have = b > 0;
    T pre = have ? part[row * ntiles + b] : T(0);
    if (t > 0) {
        pre = have ? sc_ops<T>::apply(OP, pre, sh[t - 1]) : sh[t - 1];
        have = true;
    }
    for (int k = 0; k < SC_T_ITEMS; k++) {
        const int64_t i = (int64_t)t * SC_T_ITEMS + k;
        if (i < len) y[i] = have ? sc_ops<T>::apply(OP, pre, v[k]) : v[k];
    }
}

template <typename T, int OP>
static nd_status sc_tiled(T *out, const T *a, int64_t rows, int64_t n, int dev, cudaStream_t s)
{
    const char *fn = "nd_scan";
    const int64_t ntiles = (n + SC_T_TILE - 1) / SC_T_TILE;
    if (ntiles > 0x7fffffff) return nd__err(ND_ERR_UNSUPPORTED, fn, "a row of %lld elements is too long", (long long)n);
    void *tmp = NULL;
    nd_status st = nd__cuda_alloc(dev, (size_t)(rows * ntiles) * sizeof(T), (void *)s, &tmp);
    if (st) return st;
    T *part = (T *)tmp;
    const dim3 grid((unsigned)ntiles, (unsigned)rows);
    cudaError_t e = nd_launch(sc_tile_total_kernel<T, OP>, grid, dim3(SC_T_THREADS), 0, s, part, a, n, ntiles);
    if (e == cudaSuccess && ntiles > 1)
        e = nd_launch(sc_tile_carry_kernel<T, OP>, dim3(1, (unsigned)rows), dim3(SC_T_CARRY_THREADS), 0, s, part, ntiles);
    if (e == cudaSuccess) e = nd_launch(sc_tile_scan_kernel<T, OP>, grid, dim3(SC_T_THREADS), 0, s, out, a, part, n, ntiles);
    nd__cuda_free(dev, tmp); // stream-ordered: reused only by later work on s
    return nd_cuda_status(e, fn, "the tiled scan kernels");
}

// Whether (T, OP) combines inexactly, so that only a fixed order gives
// the same bits every run.
template <typename T, int OP> static constexpr bool sc_inexact()
{
    return (sizeof(T) == sizeof(float) || sizeof(T) == sizeof(double)) && T(0.5) != T(0) &&
           (OP == ND_SC_SUM || OP == ND_SC_PROD);
}

template <typename T, int OP>
static nd_status sc_run(T *out, const T *a, int64_t outer, int64_t n, int64_t inner, int dev, cudaStream_t s)
{
    const char *fn = "nd_scan";
    if (inner > 1) {
        const unsigned block = 256;
        ND_CUDA_TRY(nd_launch(sc_cols_kernel<T, OP>, dim3(nd_grid_for(outer * inner, block)), dim3(block), 0, s, out, a,
                              outer, n, inner),
                    fn);
        return ND_OK;
    }
    if constexpr (sc_inexact<T, OP>()) {
        if (n >= SC_CUB_MIN && outer <= SC_CUB_ROWS) return sc_tiled<T, OP>(out, a, outer, n, dev, s);
    }
    if (n >= SC_CUB_MIN && outer <= SC_CUB_ROWS) {
        size_t bytes = 0;
        ND_CUDA_TRY(cub::DeviceScan::InclusiveScan((void *)NULL, bytes, a, out, sc_fn<T, OP>(), n, s), fn);
        void *tmp = NULL;
        nd_status st = nd__cuda_alloc(dev, bytes ? bytes : 1, (void *)s, &tmp);
        if (st) return st;
        cudaError_t e = cudaSuccess;
        for (int64_t r = 0; r < outer && e == cudaSuccess; r++)
            e = cub::DeviceScan::InclusiveScan(tmp, bytes, a + r * n, out + r * n, sc_fn<T, OP>(), n, s);
        nd__cuda_free(dev, tmp); // stream-ordered: reused only by later work on s
        return nd_cuda_status(e, fn, "cub::DeviceScan::InclusiveScan");
    }
    const int64_t blocks = (outer + SC_WARPS - 1) / SC_WARPS;
    ND_CUDA_TRY(nd_launch(sc_rows_kernel<T, OP>, dim3((unsigned)(blocks < 65535 * 16 ? blocks : 65535 * 16)),
                          dim3(32 * SC_WARPS), 0, s, out, a, outer, n),
                fn);
    return ND_OK;
}

template <typename T>
static nd_status sc_run_op(int op, void *out, const void *a, int64_t outer, int64_t n, int64_t inner, int dev,
                           cudaStream_t s)
{
    T *o = (T *)out;
    const T *x = (const T *)a;
    switch (op) {
    case ND_SC_SUM: return sc_run<T, ND_SC_SUM>(o, x, outer, n, inner, dev, s);
    case ND_SC_PROD: return sc_run<T, ND_SC_PROD>(o, x, outer, n, inner, dev, s);
    case ND_SC_MAX: return sc_run<T, ND_SC_MAX>(o, x, outer, n, inner, dev, s);
    default: return sc_run<T, ND_SC_MIN>(o, x, outer, n, inner, dev, s);
    }
}

extern "C" nd_status nd__cuda_scan(int op, nd_array *out, const nd_array *a, int64_t outer, int64_t n, int64_t inner)
{
    if (outer <= 0 || n <= 0 || inner <= 0) return ND_OK;
    const int dev = a->device.id;
    nd_device_guard g(dev);
    cudaStream_t s = nd_stream_of(nd__current_stream(a->device));
    void *o = nd__ptr(out);
    const void *x = nd__ptr(a);
    switch (a->dtype) {
    case ND_FLOAT32: return sc_run_op<float>(op, o, x, outer, n, inner, dev, s);
    case ND_FLOAT64: return sc_run_op<double>(op, o, x, outer, n, inner, dev, s);
    case ND_INT64:
        if (op == ND_SC_MAX) return sc_run<int64_t, ND_SC_MAX>((int64_t *)o, (const int64_t *)x, outer, n, inner, dev, s);
        if (op == ND_SC_MIN) return sc_run<int64_t, ND_SC_MIN>((int64_t *)o, (const int64_t *)x, outer, n, inner, dev, s);
        return sc_run_op<uint64_t>(op, o, x, outer, n, inner, dev, s); // wrapping sums/products: the same bits
    default: return sc_run_op<uint64_t>(op, o, x, outer, n, inner, dev, s);
    }
}
