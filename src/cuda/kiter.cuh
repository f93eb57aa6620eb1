// The simplified iteration space of src/core/iter.c (nd_iter) in a form passed
// to kernels by value, and the device-side offset computation. Shared by
// every CUDA kernel file (copy/cast/fill, elementwise, reductions). The
// struct and the index arithmetic live in src/cuda/ew_index.h (ND_HOSTDEV,
// unit-tested on the CPU by tests/test_gpu_ew.c); this header adds the C++
// conveniences.
#ifndef ND_CUDA_KITER_CUH
#define ND_CUDA_KITER_CUH
#include <string.h>

#include "cuda/ew_index.h"
#include "core/internal.h"

static inline nd_kiter nd_kiter_of(const nd_iter &it)
{
    nd_kiter k;
    nd_kiter_from_iter(&k, &it);
    return k;
}

// Whether every operand walks the single merged axis with stride ==
// itemsize (the flat fast path; broadcast stride-0 operands excluded).
static inline bool nd_kiter_flat(const nd_iter &it)
{
    if (it.ndim != 1) return false;
    for (int o = 0; o < it.nops; o++)
        if (it.strides[o][0] != (int64_t)it.itemsize[o]) return false;
    return true;
}

// Byte offsets of flat (C-order over the iteration's shape) index i for
// the first NOPS operands, 64-bit arithmetic.
template <int NOPS>
__device__ __forceinline__ void nd_kiter_offsets(const nd_kiter &it, int64_t i, int64_t (&off)[NOPS])
{
    nd_kiter_offsets64_n(&it, NOPS, i, off);
}

// The same with 32-bit arithmetic: only when nd_kiter_fits32(&it).
template <int NOPS>
__device__ __forceinline__ void nd_kiter_offsets32(const nd_kiter &it, uint32_t i, int32_t (&off)[NOPS])
{
    nd_kiter_offsets32_n(&it, NOPS, i, off);
}
#endif
