// The CUDA backend's function table. Every entry sets the array's device
// for the duration of the call and runs on the calling thread's current
// stream. Ops without a kernel yet answer ND_ERR_UNSUPPORTED naming the op.
#include <stdio.h>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"

extern "C" nd_status nd__cuda_cast(nd_array *dst, const nd_array *src);
extern "C" nd_status nd__cuda_fill(nd_array *dst, const void *value);
extern "C" nd_status nd__cuda_memcpy_h2d(nd_device dev, void *dst, const void *src, size_t n);
extern "C" nd_status nd__cuda_memcpy_d2h(nd_device dev, void *dst, const void *src, size_t n);
extern "C" nd_status nd__cuda_memcpy_d2d(nd_device dev, void *dst, const void *src, size_t n);

static nd_status cuda_alloc(nd_device dev, size_t nbytes, void **ptr)
{
    return nd__cuda_alloc(dev.id, nbytes, nd__current_stream(dev), ptr);
}

static void cuda_free(nd_device dev, void *ptr, size_t nbytes)
{
    (void)nbytes;
    nd__cuda_free(dev.id, ptr);
}

static nd_status unsupported(const char *op)
{
    return nd__err(ND_ERR_UNSUPPORTED, op, "has no CUDA kernel yet (CUDA backend part 2)");
}

static nd_status cuda_unary(nd_unary_op op, nd_array *out, const nd_array *a)
{
    (void)out, (void)a;
    char name[64];
    snprintf(name, sizeof name, "nd_%s", nd_unary_op_name(op));
    return unsupported(name);
}

static nd_status cuda_binary(nd_binary_op op, nd_array *out, const nd_array *a, const nd_array *b)
{
    (void)out, (void)a, (void)b;
    char name[64];
    snprintf(name, sizeof name, "nd_%s", nd_binary_op_name(op));
    return unsupported(name);
}

static nd_status cuda_where(nd_array *out, const nd_array *c, const nd_array *x, const nd_array *y)
{
    (void)out, (void)c, (void)x, (void)y;
    return unsupported("nd_where");
}

static nd_status cuda_reduce(nd_reduce_op op, nd_array *out, const nd_array *a, int naxes, int64_t ddof)
{
    (void)out, (void)a, (void)naxes, (void)ddof;
    char name[64];
    snprintf(name, sizeof name, "nd_%s", nd_reduce_op_name(op));
    return unsupported(name);
}

static nd_status cuda_matmul(nd_array *out, const nd_array *a, const nd_array *b)
{
    (void)out, (void)a, (void)b;
    return unsupported("nd_matmul");
}

static nd_status cuda_gemm(nd_array *c, bool ta, bool tb, double alpha, const nd_array *a, const nd_array *b, double beta)
{
    (void)c, (void)ta, (void)tb, (void)alpha, (void)a, (void)b, (void)beta;
    return unsupported("nd_gemm");
}

static nd_status cuda_random(nd_array *out, int dist, uint64_t seed, uint64_t offset, double p0, double p1)
{
    (void)out, (void)seed, (void)offset, (void)p0, (void)p1;
    return unsupported(dist ? "nd_random_normal" : "nd_random_uniform");
}

static nd_status cuda_synchronize(nd_device dev)
{
    nd_device_guard g(dev.id);
    ND_CUDA_TRY(cudaDeviceSynchronize(), "nd_synchronize");
    return ND_OK;
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
    cuda_unary,
    cuda_binary,
    cuda_where,
    cuda_reduce,
    cuda_matmul,
    cuda_gemm,
    cuda_random,
    cuda_synchronize,
};

extern "C" const nd_backend *nd__cuda_backend(void) { return &g_cuda_backend; }
