// CUDA indexing kernels: gather (take, take_along_axis), scatter (put,
// put_along_axis, mask_assign, add/maximum/minimum.at) and compaction
// (nonzero, a[mask]). Contracts: src/core/backend.h; the index normalisation
// and the combine bodies are the CPU's (src/shared/index_ops.h, ND_HOSTDEV).
//
//  - gather: one thread per output element over the iterator of (out,
//    idx, a viewed with stride 0 along axis), as the CPU loop; elements
//    are moved as bits by itemsize (five instantiations: 1-16 bytes).
//  - scatter ADD/MAX/MIN: an atomicCAS loop per element on the aligned
//    32-bit word holding it (8/16-bit dtypes), on the element itself (32
//    and 64 bits), with the shared combine body: every dtype, float16 and
//    bfloat16 included, no native half atomics needed.
//  - scatter ASSIGN: deterministic "last wins" as on the CPU: the
//    iteration runs in C order of idx's shape (no axis reordering), a
//    first kernel keeps the largest C-order rank per destination element
//    (atomicMax on an unsigned long long table spanning the written
//    array's elements), a second writes only the winners.
//  - compress: cub::DeviceSelect::Flagged over an iota of row numbers with
//    the mask as flags gives the selected indices (the index form writes
//    them straight into out); rows are then gathered.
// HIP-CPU (the emulated device) has atomicCAS on unsigned int / unsigned
// long long and atomicMax on unsigned long long; CUB is replaced there by
// tests/emu/cub/device/device_select.cuh.
#include <cub/device/device_select.cuh>
#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "cuda/index.h"
#include "cuda/kiter.cuh"
#include "shared/index_ops.h"

namespace {

template <typename T>
__global__ void gather_kernel(char *out, const char *idx, const char *a, nd_kiter it, int64_t axs, int64_t n, int mode)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.n; i += stride) {
        int64_t off[3];
        nd_kiter_offsets<3>(it, i, off);
        int64_t j = nd_ix_norm(*(const int64_t *)(idx + off[1]), n, mode);
        *(T *)(out + off[0]) = *(const T *)(a + off[2] + j * axs);
    }
}

// The combine body of dtype sfx as a type (for the templates).
#define IX_TRAIT(sfx)                                                                                        \
    struct tr_##sfx {                                                                                        \
        typedef nd_##sfx##_t T;                                                                              \
        static __device__ __forceinline__ T comb(int op, T a, T b) { return nd_ix_comb_##sfx(op, a, b); }   \
    };
ND_DTYPE_SUFFIXES(IX_TRAIT)

template <typename TR> __device__ __forceinline__ void atomic_comb(char *p, typename TR::T v, int op)
{
    typedef typename TR::T T;
    if constexpr (sizeof(T) == 16) {
        // complex128: no 16-byte CAS; the core sends only add here (complex
        // numbers have no maximum), which is part by part
        double parts[2];
        memcpy(parts, &v, 16);
        for (int k = 0; k < 2; k++) {
            unsigned long long *w = (unsigned long long *)(p + 8 * k), old = *w, assumed;
            do {
                assumed = old;
                // the shared body on (part, 0) pairs: part k of old + v
                T c, x;
                memset(&c, 0, sizeof c);
                memset(&x, 0, sizeof x);
                memcpy(&c, &assumed, 8);
                memcpy(&x, &parts[k], 8);
                T nv = TR::comb(op, c, x);
                unsigned long long nb;
                memcpy(&nb, &nv, 8);
                old = atomicCAS(w, assumed, nb);
            } while (old != assumed);
        }
    } else if constexpr (sizeof(T) == 8) {
        unsigned long long *w = (unsigned long long *)p, old = *w, assumed;
        do {
            assumed = old;
            T cur, nv;
            memcpy(&cur, &assumed, 8);
            nv = TR::comb(op, cur, v);
            unsigned long long nb;
            memcpy(&nb, &nv, 8);
            if (nb == assumed) return;
            old = atomicCAS(w, assumed, nb);
        } while (old != assumed);
    } else {
        // 1- and 2-byte elements: the aligned 32-bit word that holds the
        // element. The device allocations of the library are whole words
        // (src/cuda/memory.cu), so the word never reaches past the end;
        // so are CUDA's own (cudaMalloc rounds to at least 256 bytes).
        uintptr_t addr = (uintptr_t)p;
        unsigned int *w = (unsigned int *)(addr & ~(uintptr_t)3);
        const unsigned shift = sizeof(T) == 4 ? 0u : (unsigned)(addr & 3) * 8u;
        const unsigned mask = sizeof(T) == 4 ? 0xffffffffu : ((1u << (8 * (sizeof(T) & 3))) - 1u) << shift;
        unsigned int old = *w, assumed;
        do {
            assumed = old;
            unsigned int bits = (assumed & mask) >> shift;
            T cur, nv;
            memcpy(&cur, &bits, sizeof(T));
            nv = TR::comb(op, cur, v);
            unsigned int nb = 0;
            memcpy(&nb, &nv, sizeof(T));
            unsigned int nw = (assumed & ~mask) | ((nb << shift) & mask);
            if (nw == assumed) return;
            old = atomicCAS(w, assumed, nw);
        } while (old != assumed);
    }
}

// Operands of a scatter: 0 = a viewed with stride 0 along axis, 1 = idx,
// 2 = values; it is in C order of idx's shape.
template <typename TR>
__global__ void scatter_comb_kernel(char *a, const char *idx, const char *val, nd_kiter it, int64_t axs, int64_t n,
                                    int mode, int op)
{
    typedef typename TR::T T;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.n; i += stride) {
        int64_t off[3];
        nd_kiter_offsets<3>(it, i, off);
        int64_t j = nd_ix_norm(*(const int64_t *)(idx + off[1]), n, mode);
        atomic_comb<TR>(a + off[0] + j * axs, *(const T *)(val + off[2]), op);
    }
}

__global__ void scatter_win_kernel(unsigned long long *win, const char *idx, nd_kiter it, int64_t axs, int64_t n,
                                   int mode, int64_t base, int64_t isz)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.n; i += stride) {
        int64_t off[2];
        nd_kiter_offsets<2>(it, i, off);
        int64_t j = nd_ix_norm(*(const int64_t *)(idx + off[1]), n, mode);
        atomicMax(win + (off[0] + j * axs - base) / isz, (unsigned long long)(i + 1));
    }
}

template <typename T>
__global__ void scatter_put_kernel(const unsigned long long *win, char *a, const char *idx, const char *val, nd_kiter it,
                                   int64_t axs, int64_t n, int mode, int64_t base, int64_t isz)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < it.n; i += stride) {
        int64_t off[3];
        nd_kiter_offsets<3>(it, i, off);
        int64_t j = nd_ix_norm(*(const int64_t *)(idx + off[1]), n, mode);
        int64_t d = off[0] + j * axs;
        if (win[(d - base) / isz] == (unsigned long long)(i + 1)) *(T *)(a + d) = *(const T *)(val + off[2]);
    }
}

__global__ void iota_kernel(int64_t *p, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) p[i] = i;
}

// out (count, R) C-contiguous = rows sel[q] of a (byte strides s0, s1).
template <typename T>
__global__ void rows_kernel(char *out, const char *a, const int64_t *sel, int64_t count, int64_t R, int64_t s0, int64_t s1)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x, total = count * R;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
        int64_t q = i / R, r = i - q * R;
        ((T *)out)[i] = *(const T *)(a + sel[q] * s0 + r * s1);
    }
}

// a viewed with `like`'s shape and stride 0 along axis (a header on the
// stack: the iterator reads only geometry and the data pointer).
void row_start_view(nd_array *v, const nd_array *a, const nd_array *like, int axis)
{
    v->dtype = a->dtype; // field by field: nd_array's refcount is a std::atomic in C++
    v->ndim = a->ndim;
    v->offset = a->offset;
    v->device = a->device;
    v->readonly = a->readonly;
    v->buf = a->buf;
    for (int d = 0; d < a->ndim; d++) v->shape[d] = like->shape[d], v->strides[d] = a->strides[d];
    v->strides[axis] = 0;
    v->size = like->size;
}

// A kernel iterator in plain C order over shape (no reordering, no merging).
nd_kiter c_order_kiter(int nops, const nd_array *const *ops, const int64_t *shape, int ndim, int64_t n)
{
    nd_kiter k;
    memset(&k, 0, sizeof k);
    k.ndim = ndim;
    k.nops = nops;
    k.n = n;
    for (int d = 0; d < ndim; d++) {
        k.shape[d] = shape[d];
        for (int o = 0; o < nops; o++) k.st[o][d] = ops[o]->strides[d] * (int64_t)nd__itemsize(ops[o]->dtype);
    }
    return k;
}

} // namespace

extern "C" nd_status nd__cuda_gather(nd_array *out, const nd_array *a, const nd_array *idx, int axis, int mode)
{
    if (out->size == 0) return ND_OK;
    nd_array av;
    row_start_view(&av, a, out, axis);
    const nd_array *ops[3] = {out, idx, &av};
    nd_iter it;
    nd__iter_init(&it, 3, ops);
    nd_kiter k = nd_kiter_of(it);
    size_t isz = nd__itemsize(a->dtype);
    int64_t axs = a->strides[axis] * (int64_t)isz, n = a->shape[axis];
    nd_device_guard g(out->device.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(out->device));
    unsigned grid = nd_grid_for(it.size, 256);
    cudaError_t e;
    switch (isz) {
    case 1: e = nd_launch(gather_kernel<uint8_t>, grid, 256, 0, s, it.data[0], (const char *)it.data[1], (const char *)it.data[2], k, axs, n, mode); break;
    case 2: e = nd_launch(gather_kernel<uint16_t>, grid, 256, 0, s, it.data[0], (const char *)it.data[1], (const char *)it.data[2], k, axs, n, mode); break;
    case 4: e = nd_launch(gather_kernel<uint32_t>, grid, 256, 0, s, it.data[0], (const char *)it.data[1], (const char *)it.data[2], k, axs, n, mode); break;
    case 8: e = nd_launch(gather_kernel<uint64_t>, grid, 256, 0, s, it.data[0], (const char *)it.data[1], (const char *)it.data[2], k, axs, n, mode); break;
    default: e = nd_launch(gather_kernel<nd_c128_t>, grid, 256, 0, s, it.data[0], (const char *)it.data[1], (const char *)it.data[2], k, axs, n, mode); break; /* 16: complex128 */
    }
    ND_CUDA_TRY(e, "nd_take");
    return ND_OK;
}

typedef cudaError_t (*comb_launcher)(char *, const char *, const char *, const nd_kiter &, int64_t, int64_t, int, int,
                                     unsigned, cudaStream_t);
#define IX_COMB_LAUNCHER(sfx)                                                                                      \
    static cudaError_t comb_launch_##sfx(char *a, const char *i, const char *v, const nd_kiter &k, int64_t axs,    \
                                         int64_t n, int mode, int op, unsigned grid, cudaStream_t s)               \
    {                                                                                                              \
        return nd_launch(scatter_comb_kernel<tr_##sfx>, grid, 256, 0, s, a, i, v, k, axs, n, mode, op);            \
    }
ND_DTYPE_SUFFIXES(IX_COMB_LAUNCHER)
#define IX_COMB_NAME(sfx) comb_launch_##sfx,
static const comb_launcher comb_launchers[ND_NUM_DTYPES] = {ND_DTYPE_SUFFIXES(IX_COMB_NAME)};

extern "C" nd_status nd__cuda_scatter(nd_array *a, const nd_array *idx, const nd_array *values, int axis, int mode,
                                      int op)
{
    if (idx->size == 0) return ND_OK;
    nd_array av;
    row_start_view(&av, a, idx, axis);
    const nd_array *ops[3] = {&av, idx, values};
    nd_kiter k = c_order_kiter(3, ops, idx->shape, idx->ndim, idx->size);
    const int64_t isz = (int64_t)nd__itemsize(a->dtype), axs = a->strides[axis] * isz, n = a->shape[axis];
    char *pa = nd__ptr(a);
    const char *pi = nd__ptr(idx), *pv = nd__ptr(values);
    nd_device_guard g(a->device.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(a->device));
    unsigned grid = nd_grid_for(idx->size, 256);
    if (op != ND_SCATTER_ASSIGN) {
        ND_CUDA_TRY(comb_launchers[a->dtype](pa, pi, pv, k, axs, n, mode, op, grid, s), "nd_add_at");
        return ND_OK;
    }
    // the elements a spans: byte offsets [lo, hi] relative to its first element
    int64_t lo = 0, hi = 0;
    for (int d = 0; d < a->ndim; d++) {
        int64_t ext = (a->shape[d] - 1) * a->strides[d] * isz;
        if (ext < 0) lo += ext;
        else hi += ext;
    }
    int64_t nwin = (hi - lo) / isz + 1;
    void *win = NULL;
    nd_status st = nd__cuda_alloc(a->device.id, (size_t)nwin * sizeof(unsigned long long), (void *)s, &win);
    if (st) return st;
    cudaError_t e = cudaMemsetAsync(win, 0, (size_t)nwin * sizeof(unsigned long long), s);
    if (e == cudaSuccess)
        e = nd_launch(scatter_win_kernel, grid, 256, 0, s, (unsigned long long *)win, pi, k, axs, n, mode, lo, isz);
    if (e == cudaSuccess) {
        const unsigned long long *w = (const unsigned long long *)win;
        switch (isz) {
        case 1: e = nd_launch(scatter_put_kernel<uint8_t>, grid, 256, 0, s, w, pa, pi, pv, k, axs, n, mode, lo, isz); break;
        case 2: e = nd_launch(scatter_put_kernel<uint16_t>, grid, 256, 0, s, w, pa, pi, pv, k, axs, n, mode, lo, isz); break;
        case 4: e = nd_launch(scatter_put_kernel<uint32_t>, grid, 256, 0, s, w, pa, pi, pv, k, axs, n, mode, lo, isz); break;
        case 8: e = nd_launch(scatter_put_kernel<uint64_t>, grid, 256, 0, s, w, pa, pi, pv, k, axs, n, mode, lo, isz); break;
        default: e = nd_launch(scatter_put_kernel<nd_c128_t>, grid, 256, 0, s, w, pa, pi, pv, k, axs, n, mode, lo, isz); break; /* 16: complex128 */
        }
    }
    nd__cuda_free(a->device.id, win); // stream-ordered: reused only by later work on s
    ND_CUDA_TRY(e, "nd_put");
    return ND_OK;
}

extern "C" nd_status nd__cuda_compress(nd_array *out, const nd_array *a, const nd_array *mask)
{
    const int64_t N = mask->shape[0];
    const int64_t count = out->shape[0];
    if (count == 0 || out->size == 0) return ND_OK;
    const int dev = out->device.id;
    nd_device_guard g(dev);
    cudaStream_t s = nd_stream_of(nd__current_stream(out->device));
    const uint8_t *flags = (const uint8_t *)nd__ptr(mask);
    // scratch: iota (N), selected indices (count, unless written into out), the count, CUB's temp
    int64_t *sel = a ? NULL : (int64_t *)nd__ptr(out);
    size_t temp_bytes = 0;
    ND_CUDA_TRY(cub::DeviceSelect::Flagged((void *)NULL, temp_bytes, (const int64_t *)NULL, flags, sel, (int64_t *)NULL,
                                           N, s),
                "nd_nonzero");
    size_t a8 = ((size_t)N * 8 + 255) & ~(size_t)255, c8 = a ? (((size_t)count * 8 + 255) & ~(size_t)255) : 0;
    size_t total = a8 + c8 + 256 + temp_bytes;
    void *scratch = NULL;
    nd_status st = nd__cuda_alloc(dev, total, (void *)s, &scratch);
    if (st) return st;
    char *base = (char *)scratch;
    int64_t *iota = (int64_t *)base;
    if (a) sel = (int64_t *)(base + a8);
    int64_t *nsel = (int64_t *)(base + a8 + c8);
    void *temp = base + a8 + c8 + 256;
    cudaError_t e = nd_launch(iota_kernel, nd_grid_for(N, 256), 256, 0, s, iota, N);
    if (e == cudaSuccess)
        e = cub::DeviceSelect::Flagged(temp, temp_bytes, (const int64_t *)iota, flags, sel, nsel, N, s);
    if (e == cudaSuccess && a) {
        const size_t isz = nd__itemsize(a->dtype);
        const int64_t R = a->shape[1], s0 = a->strides[0] * (int64_t)isz, s1 = a->strides[1] * (int64_t)isz;
        const unsigned grid = nd_grid_for(count * R, 256);
        char *o = nd__ptr(out);
        const char *pa = nd__ptr(a);
        switch (isz) {
        case 1: e = nd_launch(rows_kernel<uint8_t>, grid, 256, 0, s, o, pa, (const int64_t *)sel, count, R, s0, s1); break;
        case 2: e = nd_launch(rows_kernel<uint16_t>, grid, 256, 0, s, o, pa, (const int64_t *)sel, count, R, s0, s1); break;
        case 4: e = nd_launch(rows_kernel<uint32_t>, grid, 256, 0, s, o, pa, (const int64_t *)sel, count, R, s0, s1); break;
        case 8: e = nd_launch(rows_kernel<uint64_t>, grid, 256, 0, s, o, pa, (const int64_t *)sel, count, R, s0, s1); break;
        default: e = nd_launch(rows_kernel<nd_c128_t>, grid, 256, 0, s, o, pa, (const int64_t *)sel, count, R, s0, s1); break; /* 16: complex128 */
        }
    }
    nd__cuda_free(dev, scratch); // stream-ordered
    ND_CUDA_TRY(e, "nd_mask_select");
    return ND_OK;
}

extern "C" bool nd__cuda_ix_supports(nd_kernel_kind kind, int op, nd_dtype t)
{
    if (!nd__dtype_valid(t)) return false;
    switch (kind) {
    case ND_KERNEL_GATHER:
    case ND_KERNEL_COMPRESS: return op == 0;
    case ND_KERNEL_SCATTER: return (unsigned)op < (unsigned)ND_NUM_SCATTER_OPS;
    default: return false;
    }
}

namespace {
__global__ void count_kernel(const uint8_t *m, int64_t n, unsigned long long *total)
{
    __shared__ unsigned long long part[256];
    ND_SYNC_KERNEL();
    unsigned long long c = 0;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c += m[i] != 0;
    part[threadIdx.x] = c;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, part[0]);
}
} // namespace

extern "C" nd_status nd__cuda_mask_count(const nd_array *mask, int64_t *count)
{
    *count = 0;
    const int64_t n = mask->shape[0];
    if (n == 0) return ND_OK;
    const int dev = mask->device.id;
    nd_device_guard g(dev);
    cudaStream_t s = nd_stream_of(nd__current_stream(mask->device));
    void *tot = NULL;
    nd_status st = nd__cuda_alloc(dev, sizeof(unsigned long long), (void *)s, &tot);
    if (st) return st;
    unsigned long long h = 0;
    cudaError_t e = cudaMemsetAsync(tot, 0, sizeof h, s);
    if (e == cudaSuccess)
        e = nd_launch(count_kernel, nd_grid_for(n, 256) > 4096 ? 4096u : nd_grid_for(n, 256), 256, 0, s,
                      (const uint8_t *)nd__ptr(mask), n, (unsigned long long *)tot);
    if (e == cudaSuccess) e = cudaMemcpyAsync(&h, tot, sizeof h, cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    nd__cuda_free(dev, tot);
    ND_CUDA_TRY(e, "nd_count_nonzero");
    *count = (int64_t)h;
    return ND_OK;
}
