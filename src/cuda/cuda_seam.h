/*
 * The one seam between the CUDA backend and the runtime it runs on.
 *
 * Every .cu file of src/cuda includes this header instead of
 * <cuda_runtime.h>. With nvcc it is the real CUDA runtime. With
 * ND_CUDA_EMU (make emu-test / emu-asan / gpu-check-emu) the same sources
 * compile as C++17 with g++ against the emulated GPU: HIP-CPU
 * (../shared/hip-cpu) for the kernels' execution, tests/emu/cuda_runtime.h
 * for the CUDA runtime API with CUDA's names and values, tests/emu/
 * emu_device.h for CUDA's 32-lane warps, counting barriers, the *_sync
 * shuffles and __syncthreads_or. Nothing else in src/cuda knows which one
 * it is compiled for, apart from the device-only (__CUDA_ARCH__) branches
 * of src/shared/philox.h.
 *
 * Launches: no `<<<>>>` outside this file. nd_launch(kernel, grid, block,
 * shmem, stream, args...) checks a real GPU's launch limits on every build
 * (so the emulated device refuses what a GPU would refuse), launches, and
 * returns the launch's status (cudaGetLastError() on a GPU):
 *   block: x, y <= 1024, z <= 64, x*y*z <= 1024, every extent >= 1;
 *   grid:  x <= 2^31 - 1, y, z <= 65535, every extent >= 1;
 *   dynamic shared memory <= 48 KiB (no kernel opts in to more; static
 *   shared memory over 48 KiB is a ptxas error at build time).
 * A refused launch returns cudaErrorInvalidConfiguration and launches
 * nothing.
 *
 * Run-time compiled kernels (src/cuda/rtc.cu) go through cudaLaunchKernel,
 * after the same nd_launch_ok check.
 *
 * A kernel whose threads meet at barriers or shuffles starts with
 * ND_SYNC_KERNEL(); (nothing on a GPU; see tests/emu/emu_device.h).
 */
#ifndef ND_CUDA_SEAM_H
#define ND_CUDA_SEAM_H
#include <stddef.h>

#ifdef ND_CUDA_EMU
#include "emu_device.h"
// NVRTC: loaded at run time on a GPU (src/cuda/rtc.cu); the emulated GPU's
// stand-in (tests/emu/nvrtc_emu.cpp) is linked into its test build.
#define ND_RTC_NVRTC_LINKED 1
#else
#include <cuda_runtime.h>
#define ND_SYNC_KERNEL() ((void)0)
#endif

#define ND_LAUNCH_MAX_BLOCK 1024u
#define ND_LAUNCH_MAX_BLOCK_Z 64u
#define ND_LAUNCH_MAX_GRID_X 2147483647u
#define ND_LAUNCH_MAX_GRID_YZ 65535u
#define ND_LAUNCH_MAX_DYN_SHMEM (48u * 1024u)

// Whether a launch of this geometry is within a real GPU's limits.
static inline bool nd_launch_ok(dim3 grid, dim3 block, size_t shmem)
{
    if (block.x < 1 || block.y < 1 || block.z < 1 || grid.x < 1 || grid.y < 1 || grid.z < 1) return false;
    if (block.x > ND_LAUNCH_MAX_BLOCK || block.y > ND_LAUNCH_MAX_BLOCK || block.z > ND_LAUNCH_MAX_BLOCK_Z) return false;
    if ((unsigned long long)block.x * block.y * block.z > ND_LAUNCH_MAX_BLOCK) return false;
    if (grid.x > ND_LAUNCH_MAX_GRID_X || grid.y > ND_LAUNCH_MAX_GRID_YZ || grid.z > ND_LAUNCH_MAX_GRID_YZ) return false;
    return shmem <= ND_LAUNCH_MAX_DYN_SHMEM;
}

#ifdef __cplusplus
template <typename K, typename... A>
static inline cudaError_t nd_launch(K kernel, dim3 grid, dim3 block, size_t shmem, cudaStream_t s, const A &...args)
{
    if (!nd_launch_ok(grid, block, shmem)) {
#ifdef ND_CUDA_EMU
        nd_emu_set_last_error(cudaErrorInvalidConfiguration);
        (void)cudaGetLastError();
#endif
        return cudaErrorInvalidConfiguration;
    }
#ifdef ND_CUDA_EMU
    return nd_emu::launch(kernel, grid, block, shmem, s, args...);
#else
    kernel<<<grid, block, shmem, s>>>(args...);
    return cudaGetLastError();
#endif
}
#endif
#endif
