// Philox4x32-10 on the GPU: the stream of src/shared/philox.h, bit-identical to
// the CPU backend. The per-block work (Philox block -> values -> rounding
// -> clamp -> store) is nd_philox_fill_block, the same function the CPU
// loop calls, and the thread -> block mapping is nd_philox_thread_fill /
// nd_philox_grid, which the tests replay on the host. Normal values use
// the header's own ln/sin/cos (IEEE +-*/ and sqrt only, no FMA), not
// CUDA's libdevice, which is what makes them bit-identical too.
//
// One kernel per (dtype class, distribution): 8 float instantiations plus
// 4 integer ones (by itemsize); each
// thread fills one Philox block (4 elements, 2 for float64) with a single
// vector store when the block is whole and aligned, a grid-stride loop
// covers more than 2^28 blocks; 64-bit block indices throughout.
#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "shared/philox_dist.h"

template <int CLS, int DIST>
__global__ void __launch_bounds__(ND_PHILOX_THREADS)
    philox_kernel(void *data, nd_philox_call c, int64_t nblocks)
{
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t nthreads = (int64_t)gridDim.x * blockDim.x;
    nd_philox_thread_fill(&c, CLS, DIST, data, nblocks, tid, nthreads);
}

typedef cudaError_t (*philox_launcher)(void *, const nd_philox_call &, int64_t, cudaStream_t);

template <int CLS, int DIST>
static cudaError_t launch_philox(void *data, const nd_philox_call &c, int64_t nblocks, cudaStream_t s)
{
    return nd_launch(philox_kernel<CLS, DIST>, nd_philox_grid(nblocks), ND_PHILOX_THREADS, 0, s, data, c, nblocks);
}

// [dist][class]
static const philox_launcher philox_launchers[2][4] = {
    {launch_philox<ND_PHILOX_F16, ND_RANDOM_UNIFORM>, launch_philox<ND_PHILOX_BF16, ND_RANDOM_UNIFORM>,
     launch_philox<ND_PHILOX_F32, ND_RANDOM_UNIFORM>, launch_philox<ND_PHILOX_F64, ND_RANDOM_UNIFORM>},
    {launch_philox<ND_PHILOX_F16, ND_RANDOM_NORMAL>, launch_philox<ND_PHILOX_BF16, ND_RANDOM_NORMAL>,
     launch_philox<ND_PHILOX_F32, ND_RANDOM_NORMAL>, launch_philox<ND_PHILOX_F64, ND_RANDOM_NORMAL>},
};
// integers: [class - ND_PHILOX_I1]
static const philox_launcher philox_int_launchers[4] = {
    launch_philox<ND_PHILOX_I1, ND_RANDOM_INTEGERS>, launch_philox<ND_PHILOX_I2, ND_RANDOM_INTEGERS>,
    launch_philox<ND_PHILOX_I4, ND_RANDOM_INTEGERS>, launch_philox<ND_PHILOX_I8, ND_RANDOM_INTEGERS>};

// The distributions of src/shared/philox_dist.h: one thread per element
// (row), grid-stride, through nd_rdist_element (the CPU loop's body); the
// distribution is a kernel argument (one kernel: the branch is uniform).
__global__ void __launch_bounds__(ND_PHILOX_THREADS) rdist_kernel(void *data, nd_philox_call c, int dist)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < c.n; i += stride)
        nd_rdist_element(&c, dist, data, i);
}

static const char *random_func(int dist)
{
    return dist == ND_RANDOM_NORMAL ? "nd_random_normal"
           : dist == ND_RANDOM_INTEGERS ? "nd_random_integers"
                                        : "nd_random_uniform";
}

// Contract of nd_backend.random (src/core/backend.h): fill the contiguous out
// with the call *c described by the core (which validated the parameters
// and advances the offset).
extern "C" nd_status nd__cuda_random(nd_array *out, int dist, const nd_philox_call *c)
{
    if (dist >= ND_RANDOM_DIST_FIRST && dist < ND_RANDOM_DIST_END) {
        const char *f = "nd_random (distribution)";
        if (out->dtype != (nd_rdist_is_discrete(dist) ? ND_INT64 : ND_FLOAT64))
            return nd__err(ND_ERR_INTERNAL, f, "distribution %d into %s", dist, nd_dtype_name(out->dtype));
        if (c->n == 0) return ND_OK;
        nd_device_guard g(out->device.id);
        cudaStream_t s = nd_stream_of(nd__current_stream(out->device));
        ND_CUDA_TRY(nd_launch(rdist_kernel, nd_philox_grid(c->n), ND_PHILOX_THREADS, 0, s, nd__ptr(out), *c, dist), f);
        return ND_OK;
    }
    const char *func = random_func(dist);
    bool ints = dist == ND_RANDOM_INTEGERS;
    int cls = ints ? nd_philox_int_class_of(out->dtype) : nd_philox_class_of(out->dtype);
    if (cls < 0 || (dist != ND_RANDOM_UNIFORM && dist != ND_RANDOM_NORMAL && !ints))
        return nd__err(ND_ERR_INTERNAL, func, "no CUDA Philox kernel for %s (distribution %d)",
                       nd_dtype_name(out->dtype), dist);
    if (out->size == 0) return ND_OK;
    int64_t nblocks = nd_philox_call_blocks(c);
    nd_device_guard g(out->device.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(out->device));
    philox_launcher l = ints ? philox_int_launchers[cls - ND_PHILOX_I1] : philox_launchers[dist][cls];
    ND_CUDA_TRY(l(nd__ptr(out), *c, nblocks, s), func);
    return ND_OK;
}

// The CPU's set: uniform and normal on the four float dtypes, integers on
// bool and the integer dtypes.
extern "C" bool nd__cuda_random_supports(int dist, nd_dtype t)
{
    if (dist == ND_RANDOM_INTEGERS) return nd_philox_int_class_of(t) >= 0;
    if (dist >= ND_RANDOM_DIST_FIRST && dist < ND_RANDOM_DIST_END)
        return t == (nd_rdist_is_discrete(dist) ? ND_INT64 : ND_FLOAT64);
    return (dist == ND_RANDOM_UNIFORM || dist == ND_RANDOM_NORMAL) && nd_philox_class_of(t) >= 0;
}
