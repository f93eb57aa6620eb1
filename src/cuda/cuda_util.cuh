// Helpers shared by the CUDA backend's .cu files.
#ifndef ND_CUDA_UTIL_CUH
#define ND_CUDA_UTIL_CUH
#include "cuda/cuda_seam.h"

#include "core/internal.h"

// Sets the device for the lifetime of the guard and restores the previous one.
struct nd_device_guard {
    int prev;
    bool restore;
    explicit nd_device_guard(int dev) : prev(0), restore(false)
    {
        if (cudaGetDevice(&prev) == cudaSuccess && prev != dev) restore = cudaSetDevice(dev) == cudaSuccess;
    }
    ~nd_device_guard()
    {
        if (restore) cudaSetDevice(prev);
    }
};

// Turn a CUDA error into a status and a message naming the caller.
static inline nd_status nd_cuda_status(cudaError_t e, const char *func, const char *what)
{
    if (e == cudaSuccess) return ND_OK;
    (void)cudaGetLastError(); // clear non-sticky errors
    if (e == cudaErrorMemoryAllocation) return nd__err(ND_ERR_NOMEM, func, "%s: %s", what, cudaGetErrorString(e));
    return nd__err(ND_ERR_BACKEND, func, "%s: %s", what, cudaGetErrorString(e));
}
#define ND_CUDA_TRY(call, func)                                       \
    do {                                                              \
        cudaError_t e_ = (call);                                      \
        if (e_ != cudaSuccess) return nd_cuda_status(e_, func, #call); \
    } while (0)

static inline cudaStream_t nd_stream_of(void *h) { return (cudaStream_t)h; }

// Launch geometry for n elements (grid-stride loops take the rest).
static inline unsigned nd_grid_for(int64_t n, unsigned block)
{
    int64_t g = (n + block - 1) / block;
    if (g > 65535 * 16) g = 65535 * 16;
    return (unsigned)(g > 0 ? g : 1);
}
#endif
