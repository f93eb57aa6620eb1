// The CUDA backend's function table. Every entry sets the array's device
// for the duration of the call and runs on the calling thread's current
// stream (src/runtime.c: NULL = the legacy default stream). The entries
// live in one .cu file per concern (see cuda_backend.h).
#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "philox.h"

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
    default: return false;
    }
}

static const nd_backend g_cuda_backend = {
    "cuda",
    cuda_alloc,
    cuda_free,
    nd__cuda_memcpy_h2d,
    nd__cuda_memcpy_d2h,
    nd__cuda_memcpy_d2d,
    nd__cuda_cast,
    nd__cuda_fill,
    nd__cuda_unary,
    nd__cuda_binary,
    nd__cuda_where,
    nd__cuda_reduce,
    nd__cuda_matmul,
    nd__cuda_gemm,
    nd__cuda_random,
    cuda_synchronize,
    cuda_supports,
};

extern "C" const nd_backend *nd__cuda_backend(void) { return &g_cuda_backend; }
