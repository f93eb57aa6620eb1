// CUDA where: out = cond ? x : y with cond bool (any nonzero byte is true,
// as on the CPU) and x, y, out of one dtype, copied as bits by itemsize
// (1, 2, 4, 8, 16 bytes): five kernels cover the fifteen dtypes.
#include "shared/convert.h"
#include "cuda/ew_kernels.cuh"

template <typename T> struct nd_cu_where {
    typedef T O;
    typedef uint8_t I0;
    typedef T I1;
    typedef T I2;
    static constexpr int NIN = 3;
    static __device__ __forceinline__ O apply(I0 c, I1 x, I2 y) { return c ? x : y; }
};

nd_ew_launch_fn nd__cu_where_launcher(size_t itemsize)
{
    switch (itemsize) {
    case 1: return nd_ew_launch<nd_cu_where<uint8_t> >;
    case 2: return nd_ew_launch<nd_cu_where<uint16_t> >;
    case 4: return nd_ew_launch<nd_cu_where<uint32_t> >;
    case 8: return nd_ew_launch<nd_cu_where<uint64_t> >;
    case 16: return nd_ew_launch<nd_cu_where<nd_c128_t> >; /* complex128: any 16-byte, 8-aligned bits */
    default: return NULL;
    }
}
