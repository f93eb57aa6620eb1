// CUDA reductions (nd_backend.reduce; the contract is at the top of
// src/reduce/reduce.c): sum, prod, mean, max, min, argmax, argmin, any, all, var,
// std over the LAST naxes axes of a view, into the C-contiguous out of the
// result dtype, for all 13 input dtypes.
//
// Host side only: plan (src/cuda/reduce_plan.h), take temporaries from the
// device pool on the current stream, launch the per-dtype kernels
// (src/cuda/kernels_reduce_{h,f,s,u}.cu). No synchronisation, no host<->device
// copy: the plan travels as a kernel argument.
//
//  - sum/prod/max/min/arg*/any/all: one pass (+ a combine pass when the
//    reduced range was split into chunks);
//  - mean: the sum pass, finished as sum / n;
//  - var/std: two passes as on the CPU: the means (in the accumulator type
//    of src/shared/reduce_ops.h, handed over as doubles, one per output, in a
//    pooled temporary), then the sum of squared deviations from them,
//    finished as S / max(n - ddof, 0) (std: its square root); an empty
//    reduction gives NaN means and S = 0, so 0/0 = NaN (or 0 / -ddof for a
//    negative ddof), as the contract says;
//  - empty reductions (n == 0) fold nothing: the identities 0, 1, false,
//    true come out of the same kernels.
#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/reduce_kern.cuh"

static nd_rk_launcher launcher_of(nd_dtype dt, int cls)
{
    dt = nd_r_kernel_dtype(dt, cls);
    switch (nd__kind(dt)) {
    case ND_KIND_FLOAT: return nd__storage_only(dt) ? nd__rk_launcher_h(dt, cls) : nd__rk_launcher_f(dt, cls);
    case ND_KIND_INT: return nd__rk_launcher_s(dt, cls);
    default: return nd__rk_launcher_u(dt, cls);
    }
}

// One reduction pass of class cls over the planned k (geometry and
// partition filled in; fin and center set by the caller).
static nd_status run_pass(nd_rk &k, nd_dtype dt, int cls, int dev, cudaStream_t s, const char *fn)
{
    nd_rk_launcher l = launcher_of(dt, cls);
    k.part = NULL;
    if (k.nchunk > 1) {
        nd_status st = nd__cuda_alloc(dev, (size_t)(k.g.nout * k.nchunk) * l.ssize, (void *)s, &k.part);
        if (st) return st; // the pool's message (the core names the caller)
    }
    cudaError_t e = l.first(k, s);
    if (e == cudaSuccess && k.part) e = l.combine(k, s);
    if (k.part) nd__cuda_free(dev, k.part); // stream-ordered: reused only by later work on s
    k.part = NULL;
    return nd_cuda_status(e, fn, "reduction kernel launch");
}

extern "C" nd_status nd__cuda_reduce(nd_reduce_op op, nd_array *out, const nd_array *a, int naxes, double ddof)
{
    if (out->size == 0) return ND_OK;
    const char *fn = "nd_reduce";
    const nd_dtype dt = a->dtype;
    const bool is_arg = op == ND_REDUCE_ARGMAX || op == ND_REDUCE_ARGMIN;
    const int dev = a->device.id;

    nd_rk k;
    memset(&k, 0, sizeof k);
    nd_rk_geometry(&k, a->ndim, a->shape, a->strides, (int64_t)nd__itemsize(dt), naxes, is_arg);
    nd_rk_partition(&k);
    k.in = nd__ptr(a) + k.g.base;
    k.fin.n = (double)k.g.nred;
    k.fin.den = nd_rop_den(k.fin.n, ddof);

    nd_device_guard g(dev);
    cudaStream_t s = nd_stream_of(nd__current_stream(a->device));

    if (op != ND_REDUCE_VAR && op != ND_REDUCE_STD) {
        k.fin.out = nd__ptr(out);
        k.fin.odt = out->dtype;
        k.fin.op = op;
        return run_pass(k, dt, nd_r_class(op, dt), dev, s, fn);
    }
    // var / std: the centres first
    void *means = NULL;
    nd_status st = nd__cuda_alloc(dev, (size_t)k.g.nout * sizeof(double), (void *)s, &means);
    if (st) return st;
    k.fin.out = means;
    k.fin.odt = ND_FLOAT64;
    k.fin.op = ND_REDUCE_MEAN;
    st = run_pass(k, dt, nd_r_class(ND_REDUCE_MEAN, dt), dev, s, fn);
    if (!st) {
        k.center = (const double *)means;
        k.fin.out = nd__ptr(out);
        k.fin.odt = out->dtype;
        k.fin.op = op;
        st = run_pass(k, dt, NDR_SQDEV, dev, s, fn);
    }
    nd__cuda_free(dev, means);
    return st;
}

// Every op on every dtype, as on the CPU.
extern "C" bool nd__cuda_reduce_supports(int op, nd_dtype t)
{
    return (unsigned)op < (unsigned)ND_NUM_REDUCE_OPS && nd__dtype_valid(t);
}
