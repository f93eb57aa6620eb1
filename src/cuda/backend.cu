// The CUDA backend's descriptor. Every entry sets the array's device
// for the duration of the call and runs on the calling thread's current
// stream (src/core/runtime.c: NULL = the legacy default stream). The entries
// live in one .cu file per concern (see cuda_backend.h).
#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "cuda/index.h" // gather, scatter, compaction
#include "shared/philox.h"
#include "cuda/scan.h" // the scan entry point
#include "cuda/sort_cuda.h"
#include "cuda/mixed.h" // softmax, cross-entropy, loss scaling

static nd_status cuda_alloc(nd_device dev, size_t nbytes, void **ptr)
{
    return nd__cuda_alloc(dev.id, nbytes, nd__current_stream(dev), ptr);
}

static void cuda_free(nd_device dev, void *ptr, size_t nbytes)
{
    (void)nbytes;
    nd__cuda_free(dev.id, ptr);
}

static nd_status cuda_synchronize(nd_device dev)
{
    nd_device_guard g(dev.id);
    ND_CUDA_TRY(cudaDeviceSynchronize(), "nd_synchronize");
    return ND_OK;
}

static bool cuda_supports(nd_kernel_kind kind, int op, nd_dtype t)
{
    if (!nd__dtype_valid(t)) return false;
    switch (kind) {
    case ND_KERNEL_UNARY:
    case ND_KERNEL_BINARY:
    case ND_KERNEL_WHERE: return nd__cuda_ew_supports(kind, op, t);
    case ND_KERNEL_REDUCE: return nd__cuda_reduce_supports(op, t);
    case ND_KERNEL_MATMUL:
    case ND_KERNEL_GEMM: return op == 0 && nd__cuda_blas_supports(kind, t);
    case ND_KERNEL_RANDOM: return nd__cuda_random_supports(op, t);
    case ND_KERNEL_CAST: return nd__dtype_valid((nd_dtype)op); // kernels_copy.cu: all 13 x 13

    // indexing and selection (src/index*.c)
    case ND_KERNEL_GATHER:
    case ND_KERNEL_SCATTER:
    case ND_KERNEL_COMPRESS: return nd__cuda_ix_supports(kind, op, t);

    // sorting, searching, sets (src/sort*.c)
    case ND_KERNEL_SORT:
    case ND_KERNEL_SEARCHSORTED: return op == 0; // kernels_sort.cu: every dtype

    // scans and nan-aware reductions (src/scan*.c)
    case ND_KERNEL_SCAN: return nd__sc_scan_dtype_ok(op, t); // kernels_sc_scan.cu
    default: return false;
    }
}

// The checks of a CUDA device id (nd__check_device, src/core/registry.c).
static nd_status cuda_check_device(const char *func, int id)
{
    int n = nd__cuda_device_count();
    if (n == 0)
        return nd__err(ND_ERR_DEVICE, func, "device cuda:%d requested, but no usable GPU was found (%s)", id,
                       nd__cuda_unavailable_reason());
    if (id < 0 || id >= n)
        return nd__err(ND_ERR_DEVICE, func, "device cuda:%d does not exist (%d CUDA device%s)", id, n, n == 1 ? "" : "s");
    return ND_OK;
}

// The pinned pool pages host memory with cudaHostAlloc only when a GPU is usable.
static bool cuda_pinned_upstream(struct nd_pool_upstream *up)
{
    if (nd__cuda_device_count() == 0) return false;
    *up = nd__cuda_pinned_upstream();
    return true;
}

// The CUDA backend's descriptor (see src/core/backend.h for every slot), in the
// declaration order of nd_backend (C++ wants designators in that order).

// A stream goes in two steps: the cuBLAS workspaces and handle bindings on
// it (src/cuda/blas.cu, which waits for the stream's work when it holds
// any), then the stream itself (src/cuda/stream.cu). Here, so that the
// stream code calls nothing of the BLAS code that calls it.
static nd_status cuda_stream_destroy(void *handle, int dev)
{
    nd__cuda_blas_forget_stream(dev, handle);
    return nd__cuda_stream_destroy(handle, dev);
}

// A new allocator for dev: the cuBLAS workspaces (the library's own
// long-lived blocks) go back to the present one first, so that only the
// caller's arrays can keep it (here for the same reason as stream_destroy).
static nd_status cuda_memory_set_pool(int dev, int kind)
{
    nd__cuda_blas_release_workspaces(dev);
    return nd__cuda_memory_set_pool(dev, kind);
}

// sparse.cu: the sparse slot (src/shared/sparse_slots.h) on cuSPARSE, CUB and
// own kernels; reached only through the descriptor below
struct nd_sp_call;
extern "C" nd_status nd__cuda_sparse(struct nd_sp_call *call);

static nd_status cuda_stream_unwrap(void *handle, int dev)
{
    nd__cuda_blas_forget_stream(dev, handle);
    return nd__cuda_stream_unwrap(handle, dev);
}

extern "C" const nd_backend nd__cuda_backend = {
    .abi_version = ND_BACKEND_ABI_VERSION,
    .name = "cuda",
    // device part: device.cu, memory.cu, stream.cu, transfer.cu
    .device_count = nd__cuda_device_count,                 // 0 without driver or GPU
    .unavailable_reason = nd__cuda_unavailable_reason,     // "CUDA driver not found", ...
    .check_device = cuda_check_device,                     // above
    .device_info = nd__cuda_device_info,                   // cudaGetDeviceProperties
    .build_info = nd__cuda_build_info,                     // runtime, driver, GPU count
    .memory_stats = nd__cuda_memory_stats,                 // the device pool (src/core/pool.c)
    .memory_release_cached = nd__cuda_memory_release_cached,
    .memory_set_limit = nd__cuda_memory_set_limit,
    .memory_reset_peak = nd__cuda_memory_reset_peak,
    .memory_set_pool = cuda_memory_set_pool,               // above: ND_POOL's choice at run time
    .stream_create = nd__cuda_stream_create,               // cudaStream_t, registered for the pools
    .stream_destroy = cuda_stream_destroy,                 // above: cuBLAS's share, then the stream
    .stream_synchronize = nd__cuda_stream_synchronize,
    .stream_wrap = nd__cuda_stream_wrap,                   // the user's cudaStream_t, registered for the pools
    .stream_unwrap = cuda_stream_unwrap,                   // as stream_destroy, but the stream stays
    .event_create = nd__cuda_event_create,                 // cudaEvent_t with timing
    .event_record = nd__cuda_event_record,
    .event_synchronize = nd__cuda_event_synchronize,
    .event_elapsed = nd__cuda_event_elapsed,
    .event_destroy = nd__cuda_event_destroy,
    .stream_wait_event = nd__cuda_stream_wait_event,       // cudaStreamWaitEvent
    .pinned_upstream = cuda_pinned_upstream,               // cudaHostAlloc + stream fences
    .copy_async = nd__cuda_copy_async,                     // H2D, D2H, D2D and peer copies
    .synchronize = cuda_synchronize,                       // cudaDeviceSynchronize
    .range_push = nd__cuda_range_push,                     // nvtx.cu: nvtxRangePushA (NULL without nvtx3)
    .range_pop = nd__cuda_range_pop,
    .managed_alloc = nd__cuda_managed_alloc,               // memory.cu: cudaMallocManaged
    .managed_free = nd__cuda_managed_free,
    .prefetch = nd__cuda_prefetch,                         // cudaMemPrefetchAsync
    .advise = nd__cuda_advise,                             // cudaMemAdvise
    .graph_begin = nd__cuda_graph_begin,                   // graph.cu: stream capture, private pool
    .graph_end = nd__cuda_graph_end,                       // cudaStreamEndCapture, cudaGraphInstantiate
    .graph_launch = nd__cuda_graph_launch,                 // cudaGraphLaunch
    .graph_destroy = nd__cuda_graph_destroy,
    // compute part
    .alloc = cuda_alloc,                                   // the device pool, current stream
    .free = cuda_free,
    .memcpy_h2d = nd__cuda_memcpy_h2d,                     // transfer.cu
    .memcpy_d2h = nd__cuda_memcpy_d2h,
    .memcpy_d2d = nd__cuda_memcpy_d2d,
    .cast = nd__cuda_cast,                                 // kernels_copy.cu
    .fill = nd__cuda_fill,                                 // kernels_copy.cu
    .unary = nd__cuda_unary,                               // kernels_elementwise.cu
    .binary = nd__cuda_binary,                             // kernels_elementwise.cu
    .where = nd__cuda_where,                               // kernels_where.cu
    .reduce = nd__cuda_reduce,                             // kernels_reduce.cu
    .matmul = nd__cuda_matmul,                             // blas.cu
    .gemm = nd__cuda_gemm,                                 // blas.cu (cuBLAS)
    .random = nd__cuda_random,                             // kernels_random.cu
    .supports = cuda_supports,                             // above
    .unary_flat = NULL,                                    // no host-callable direct path
    .binary_flat = NULL,

    // indexing and selection (src/index*.c)
    .gather = nd__cuda_gather,
    .scatter = nd__cuda_scatter,
    .compress = nd__cuda_compress,
    .mask_count = nd__cuda_mask_count,

    // sorting, searching, sets (src/sort*.c)
    .sort_rows = nd__cuda_sort_rows,                       // kernels_sort.cu (CUB radix / segmented sort)
    .topk_rows = NULL,                                     // the core sorts whole rows
    .searchsorted = nd__cuda_searchsorted,                 // kernels_sort.cu

    // scans and nan-aware reductions (src/scan*.c)
    .scan = nd__cuda_scan, // kernels_scan.cu: CUB DeviceScan for long rows, own kernels otherwise

    // softmax family, cross-entropy, loss scaling
    .softmax = nd__cuda_softmax,             // kernels_softmax.cu
    .cross_entropy = nd__cuda_cross_entropy, // kernels_softmax.cu
    .amp_unscale = nd__cuda_amp_unscale,     // kernels_amp.cu

    // the FFT
    .fft = nd__cuda_fft, // fft.cu (cuFFT with a plan cache)

    // linear algebra
    .la = nd__cuda_la, // solver.cu (cuSOLVER)
    .kernel_ew = nullptr, // elementwise kernels: the family's CUDA source through the rtc slots
    // run-time compiled CUDA source (rtc.cu: NVRTC, cudaLibraryLoadData)
    .rtc_compile = nd__cuda_rtc_compile,
    .rtc_kernel = nd__cuda_rtc_kernel,
    .rtc_launch = nd__cuda_rtc_launch,

    // fused expressions: no fused kernel yet, the core evaluates them op by op
    .expr = nullptr,

    // sparse matrices: sparse.cu (cuSPARSE, CUB and own kernels)
    .sparse = nd__cuda_sparse,
};
