// Integer and bool matmul: an own shared-memory tiled kernel (cuBLAS has
// no wrapping integer GEMM). The tiling, loads, accumulation and stores are
// the ND_HOSTDEV phases of src/cuda/matmul_int.h, replayed on the CPU by
// tests/test_gpu_linalg.c; this file only adds the barriers and the launch.
// Two instantiations: a uint32 accumulator (dtypes of up to 4 bytes and
// bool) and a uint64 one (8-byte dtypes); the element type is a runtime
// code, uniform over the grid, read in the staging phase only.
#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "cuda/matmul_int.h"

#define ND_MMI_KERNEL(SUF, ACC)                                                                      \
    __global__ void __launch_bounds__(ND_MMI_THREADS) mmi_kernel_##SUF(const __grid_constant__ nd_mmi_args g)               \
    {                                                                                                \
        ND_SYNC_KERNEL();                                                                            \
        __shared__ ACC As[ND_MMI_TK][ND_MMI_TM + 1];                                                 \
        __shared__ ACC Bs[ND_MMI_TK][ND_MMI_TN + 1];                                                 \
        const int tid = (int)threadIdx.x;                                                            \
        const int is_bool = nd_mmi_is_bool(g.code);                                                   \
        const int64_t tiles_m = nd_mmi_tiles(g.M, ND_MMI_TM), tiles_n = nd_mmi_tiles(g.N, ND_MMI_TN); \
        /* every loop bound is uniform over the block: the barriers are reached by all threads */   \
        for (int64_t bi = blockIdx.z; bi < g.nb; bi += gridDim.z)                                    \
            for (int64_t tm = blockIdx.y; tm < tiles_m; tm += gridDim.y)                             \
                for (int64_t tn = blockIdx.x; tn < tiles_n; tn += gridDim.x) {                       \
                    const int64_t row0 = tm * ND_MMI_TM, col0 = tn * ND_MMI_TN;                      \
                    ACC acc[2][2] = {{0, 0}, {0, 0}};                                                \
                    for (int64_t k0 = 0; k0 < g.K; k0 += ND_MMI_TK) {                                \
                        nd_mmi_stage_##SUF(&g, tid, bi, row0, col0, k0, As, Bs);                     \
                        __syncthreads();                                                             \
                        nd_mmi_mac_##SUF(tid, As, Bs, acc, is_bool);                                 \
                        __syncthreads();                                                             \
                    }                                                                                \
                    nd_mmi_write_##SUF(&g, tid, bi, row0, col0, acc);                                \
                }                                                                                    \
    }

ND_MMI_KERNEL(u32, uint32_t)
ND_MMI_KERNEL(u64, uint64_t)

extern "C" nd_status nd__cuda_matmul_int(nd_array *out, const nd_array *a, const nd_array *b)
{
    nd_mmi_args g;
    g.a = nd__ptr(a), g.b = nd__ptr(b), g.c = nd__ptr(out);
    g.nb = out->shape[0], g.M = out->shape[1], g.N = out->shape[2], g.K = a->shape[2];
    if (g.nb == 0 || g.M == 0 || g.N == 0 || g.K == 0) return ND_OK; // K == 0: the caller fills zeros
    const int64_t is = (int64_t)nd__itemsize(out->dtype);
    for (int d = 0; d < 3; d++) {
        g.as[d] = a->strides[d] * is;
        g.bs[d] = b->strides[d] * is;
        g.cs[d] = out->strides[d] * is;
    }
    g.code = nd_mmi_code(out->dtype);
    unsigned grid[3];
    nd_mmi_grid(&g, grid);
    dim3 gd(grid[0], grid[1], grid[2]);
    nd_device_guard guard(out->device.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(out->device));
    ND_CUDA_TRY(is == 8 ? nd_launch(mmi_kernel_u64, gd, ND_MMI_THREADS, 0, s, g)
                        : nd_launch(mmi_kernel_u32, gd, ND_MMI_THREADS, 0, s, g),
                "nd_matmul");
    return ND_OK;
}
