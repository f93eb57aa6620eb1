// Philox4x32-10 on the GPU: the stream of src/philox.h, bit-identical to
// the CPU backend. The per-block work (Philox block -> values -> rounding
// -> clamp -> store) is nd_philox_fill_block, the same function the CPU
// loop calls, and the thread -> block mapping is nd_philox_thread_fill /
// nd_philox_grid, which the tests replay on the host. Normal values use
// the header's own ln/sin/cos (IEEE +-*/ and sqrt only, no FMA), not
// CUDA's libdevice, which is what makes them bit-identical too.
//
// One kernel per (dtype class, distribution): 8 instantiations; each
// thread fills one Philox block (4 elements, 2 for float64) with a single
// vector store when the block is whole and aligned, a grid-stride loop
// covers more than 2^28 blocks; 64-bit block indices throughout.
#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "philox.h"

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

// Contract of nd_backend.random (src/internal.h): fill the contiguous out;
// dist 0 = uniform(p0 = low, p1 = high), 1 = normal(p0 = mean, p1 =
// stddev); the core has validated the parameters and advances the offset.
extern "C" nd_status nd__cuda_random(nd_array *out, int dist, uint64_t seed, uint64_t offset, double p0, double p1)
{
    const char *func = dist == ND_RANDOM_NORMAL ? "nd_random_normal" : "nd_random_uniform";
    int cls = nd_philox_class_of(out->dtype);
    if (cls < 0 || (dist != ND_RANDOM_UNIFORM && dist != ND_RANDOM_NORMAL))
        return nd__err(ND_ERR_INTERNAL, func, "no CUDA Philox kernel for %s (distribution %d)",
                       nd_dtype_name(out->dtype), dist);
    if (out->size == 0) return ND_OK;
    // the clamp (nextafter and friends) is computed here on the host,
    // once per call, and travels to the kernel by value
    nd_philox_call c = nd_philox_call_init(cls, dist, seed, offset, out->size, p0, p1);
    int64_t nblocks = nd_philox_num_blocks(out->size, cls);
    nd_device_guard g(out->device.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(out->device));
    ND_CUDA_TRY(philox_launchers[dist][cls](nd__ptr(out), c, nblocks, s), func);
    return ND_OK;
}

// The CPU's set: uniform and normal on the four float dtypes.
extern "C" bool nd__cuda_random_supports(int dist, nd_dtype t)
{
    return (dist == ND_RANDOM_UNIFORM || dist == ND_RANDOM_NORMAL) && nd_philox_class_of(t) >= 0;
}
