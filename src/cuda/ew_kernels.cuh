// The elementwise kernel template shared by src/cuda/kernels_unary_*.cu,
// kernels_binary_*.cu and kernels_where.cu, and the macros that generate
// one functor + one kernel per (op, loop dtype) from the op table
// (ND_UNARY_OPS / ND_BINARY_OPS with ND_OP_LOOPS(kinds, rule), exactly as
// src/cpu/elementwise.c does) around the shared ND_HOSTDEV bodies of
// src/shared/ops_math.h. No op's math is written here.
//
// One kernel per functor, with a runtime switch between three paths
// (src/cuda/ew_index.h decides which on the host):
//  - ND_EW_FLAT: one merged axis, the output and every input contiguous or
//    a stride-0 broadcast scalar: an aligned body of 16-byte vectors (of the
//    widest operand) and the few elements around it one by one;
//  - ND_EW_S32 / ND_EW_S64: any strides, byte offsets from the flat index
//    with 32-bit arithmetic when every extent fits, else 64-bit.
// All loops are grid-stride loops over ND_EW_BLOCK-thread blocks. Float16
// and bfloat16 load as float, compute with the f32 body and store rounded
// to nearest even (ND_LD_F16 / ND_ST_F16 of src/shared/half.h, as on the CPU).
#ifndef ND_CUDA_EW_KERNELS_CUH
#define ND_CUDA_EW_KERNELS_CUH
#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "cuda/ew_index.h"
#include "cuda/kiter.cuh"
#include "shared/ops_math.h"

// Raw register types for a vector of B bytes (B is a power of two, 1..16;
// 1: the bool condition of where on complex128, one element per vector).
template <int B> struct nd_raw;
template <> struct nd_raw<1> { typedef unsigned char t; };
template <> struct nd_raw<2> { typedef unsigned short t; };
template <> struct nd_raw<4> { typedef unsigned int t; };
template <> struct nd_raw<8> { typedef uint2 t; };
template <> struct nd_raw<16> { typedef uint4 t; };

template <typename T, int N> struct nd_vec {
    T v[N];
};

// p is aligned to N * sizeof(T) bytes (nd_ew_split_of guarantees it).
template <typename T, int N> __device__ __forceinline__ void nd_vload(nd_vec<T, N> &r, const char *p)
{
    typedef typename nd_raw<N * (int)sizeof(T)>::t R;
    R raw = *(const R *)p;
    memcpy(&r, &raw, sizeof r);
}
template <typename T, int N> __device__ __forceinline__ void nd_vstore(char *p, const nd_vec<T, N> &r)
{
    typedef typename nd_raw<N * (int)sizeof(T)>::t R;
    R raw;
    memcpy(&raw, &r, sizeof raw);
    *(R *)p = raw;
}

// A functor F has: O (output storage type), I0..I2 (input storage types;
// unused ones uint8_t), NIN (1..3) and `static O apply(I0, I1, I2)`.
template <class F> struct nd_ew_traits {
    static constexpr int W0 = sizeof(typename F::O) > sizeof(typename F::I0) ? sizeof(typename F::O)
                                                                             : sizeof(typename F::I0);
    static constexpr int W1 = F::NIN > 1 && sizeof(typename F::I1) > W0 ? sizeof(typename F::I1) : W0;
    static constexpr int W = F::NIN > 2 && sizeof(typename F::I2) > W1 ? sizeof(typename F::I2) : W1;
    static constexpr int N = 16 / W; // elements per vector (what nd_ew_vec_width computes on the host)
};

template <typename T, int N> __device__ __forceinline__ void nd_vsplat(nd_vec<T, N> &r, T x)
{
#pragma unroll
    for (int e = 0; e < N; e++) r.v[e] = x;
}

template <typename T, int N>
__device__ __forceinline__ void nd_vinput(nd_vec<T, N> &r, const char *base, int64_t i, bool bcast, T scalar)
{
    if (bcast) nd_vsplat(r, scalar);
    else nd_vload(r, base + i * (int64_t)sizeof(T));
}

template <class F> __global__ void __launch_bounds__(ND_EW_BLOCK) nd_ew_kernel(const __grid_constant__ nd_ew_args a)
{
    typedef typename F::O O;
    typedef typename F::I0 I0;
    typedef typename F::I1 I1;
    typedef typename F::I2 I2;
    constexpr int NIN = F::NIN, NOPS = F::NIN + 1, N = nd_ew_traits<F>::N;
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t nth = (int64_t)gridDim.x * blockDim.x;
    const int path = a.plan.path;
    const nd_ew_split sp = a.plan.sp;
    const unsigned bc = a.plan.bcast;
    const bool b0 = (bc & 2u) != 0, b1 = (bc & 4u) != 0, b2 = (bc & 8u) != 0;
    if (path == ND_EW_FLAT) { // the aligned vector body (nvec may be 0)
        // a broadcast operand's one element, read once (n >= 1, so it exists)
        const I0 s0 = b0 ? *(const I0 *)a.data[1] : I0();
        I1 s1 = I1();
        I2 s2 = I2();
        if constexpr (NIN > 1) s1 = b1 ? *(const I1 *)a.data[2] : I1();
        if constexpr (NIN > 2) s2 = b2 ? *(const I2 *)a.data[3] : I2();
        for (int64_t v = tid; v < sp.nvec; v += nth) {
            const int64_t i = nd_ew_vec_start(&sp, N, v);
            nd_vec<I0, N> x0;
            nd_vec<I1, N> x1 = {};
            nd_vec<I2, N> x2 = {};
            nd_vec<O, N> r;
            nd_vinput(x0, a.data[1], i, b0, s0);
            if constexpr (NIN > 1) nd_vinput(x1, a.data[2], i, b1, s1);
            if constexpr (NIN > 2) nd_vinput(x2, a.data[3], i, b2, s2);
#pragma unroll
            for (int e = 0; e < N; e++) r.v[e] = F::apply(x0.v[e], x1.v[e], x2.v[e]);
            nd_vstore(a.data[0] + i * (int64_t)sizeof(O), r);
        }
    }
    // Element by element: the flat head and tail (every element when
    // nvec == 0), or the whole strided iteration. One loop, so that the
    // op's body is compiled once for the three cases; the path test is
    // uniform across the grid.
    const int64_t count = path == ND_EW_FLAT ? sp.nrem : a.it.n;
    for (int64_t j = tid; j < count; j += nth) {
        int64_t off[NOPS];
        if (path == ND_EW_FLAT) {
            const int64_t i = nd_ew_rem_index(&sp, N, j);
            off[0] = i * (int64_t)sizeof(O);
            off[1] = b0 ? 0 : i * (int64_t)sizeof(I0);
            if constexpr (NIN > 1) off[2] = b1 ? 0 : i * (int64_t)sizeof(I1);
            if constexpr (NIN > 2) off[3] = b2 ? 0 : i * (int64_t)sizeof(I2);
        } else if (path == ND_EW_S32) {
            // j < n <= INT32_MAX: the 32-bit offsets are exact (nd_kiter_fits32)
            int32_t o32[NOPS];
            nd_kiter_offsets32<NOPS>(a.it, (uint32_t)j, o32);
#pragma unroll
            for (int k = 0; k < NOPS; k++) off[k] = o32[k];
        } else {
            nd_kiter_offsets<NOPS>(a.it, j, off);
        }
        const I0 x0 = *(const I0 *)(a.data[1] + off[1]);
        I1 x1 = I1();
        I2 x2 = I2();
        if constexpr (NIN > 1) x1 = *(const I1 *)(a.data[2] + off[2]);
        if constexpr (NIN > 2) x2 = *(const I2 *)(a.data[3] + off[3]);
        *(O *)(a.data[0] + off[0]) = F::apply(x0, x1, x2);
    }
}

// Launches F's kernel for the prepared arguments (nd_ew_args_of) on s. The
// host planned the flat split with nd_ew_vec_width (16 bytes of the widest
// operand's itemsize); the kernel's N is the same number from F's types.
typedef nd_status (*nd_ew_launch_fn)(const nd_ew_args &a, cudaStream_t s, const char *name);

template <class F> static nd_status nd_ew_launch(const nd_ew_args &a, cudaStream_t s, const char *name)
{
    if (a.plan.vec != nd_ew_traits<F>::N)
        return nd__err(ND_ERR_INTERNAL, name, "vector width %d planned for a kernel of width %d", a.plan.vec,
                       nd_ew_traits<F>::N);
    ND_CUDA_TRY(nd_launch(nd_ew_kernel<F>, a.plan.grid, ND_EW_BLOCK, 0, s, a), name);
    return ND_OK;
}

// ---------------------------------------------------------------------
// Generation from the op table. A kernel file defines ND_CU_SEL_<rule>(kinds,
// X, ...) for the four rules (each either expanding its X over a part of the
// op's loop dtypes, ND_OP_LOOPS_INT / ND_OP_LOOPS_FLT / ND_OP_LOOPS of
// src/shared/ops_math.h, or empty)
// and then instantiates ND_CU_UNARY_PART(part) or ND_CU_BINARY_PART(part):
// the functors, kernels and a lookup `nd__cu_unary_part_<part>(op, t)`
// returning the launcher (NULL when this part has no such kernel).
// ---------------------------------------------------------------------
#define ND_CU_UFUNC(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule, E)                                   \
    struct nd_cu_u_##name##_##lsfx {                                                                  \
        typedef ND_OP_OUT_##rule(ST) O;                                                               \
        typedef ST I0;                                                                                \
        typedef uint8_t I1;                                                                           \
        typedef uint8_t I2;                                                                           \
        static constexpr int NIN = 1;                                                                 \
        static __device__ __forceinline__ O apply(I0 a, I1, I2)                                       \
        {                                                                                             \
            return ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(LD(a)));                             \
        }                                                                                             \
    };
#define ND_CU_BFUNC(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule, E)                                   \
    struct nd_cu_b_##name##_##lsfx {                                                                  \
        typedef ND_OP_OUT_##rule(ST) O;                                                               \
        typedef ST I0;                                                                                \
        typedef ST I1;                                                                                \
        typedef uint8_t I2;                                                                           \
        static constexpr int NIN = 2;                                                                 \
        static __device__ __forceinline__ O apply(I0 a, I1 b, I2)                                     \
        {                                                                                             \
            return ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(LD(a), LD(b)));                      \
        }                                                                                             \
    };
#define ND_CU_UCASE(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule, E) \
    case (int)ND_UNARY_##E * ND_NUM_DTYPES + (int)DT: return nd_ew_launch<nd_cu_u_##name##_##lsfx>;
#define ND_CU_BCASE(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule, E) \
    case (int)ND_BINARY_##E * ND_NUM_DTYPES + (int)DT: return nd_ew_launch<nd_cu_b_##name##_##lsfx>;

#define ND_CU_UGEN(E, name, kinds, rule) ND_CU_SEL_##rule(kinds, ND_CU_UFUNC, name, rule, E)
#define ND_CU_BGEN(E, name, kinds, rule) ND_CU_SEL_##rule(kinds, ND_CU_BFUNC, name, rule, E)
#define ND_CU_UCASES(E, name, kinds, rule) ND_CU_SEL_##rule(kinds, ND_CU_UCASE, name, rule, E)
#define ND_CU_BCASES(E, name, kinds, rule) ND_CU_SEL_##rule(kinds, ND_CU_BCASE, name, rule, E)

#define ND_CU_UNARY_PART(part)                                          \
    ND_UNARY_OPS(ND_CU_UGEN)                                            \
    nd_ew_launch_fn nd__cu_unary_part_##part(int op, int t)             \
    {                                                                   \
        switch (op * ND_NUM_DTYPES + t) {                               \
            ND_UNARY_OPS(ND_CU_UCASES)                                  \
        default: return NULL;                                           \
        }                                                               \
    }
#define ND_CU_BINARY_PART(part)                                         \
    ND_BINARY_OPS(ND_CU_BGEN)                                           \
    nd_ew_launch_fn nd__cu_binary_part_##part(int op, int t)            \
    {                                                                   \
        switch (op * ND_NUM_DTYPES + t) {                               \
            ND_BINARY_OPS(ND_CU_BCASES)                                 \
        default: return NULL;                                           \
        }                                                               \
    }

// The parts (one per kernel file) and the where launchers (by itemsize).
nd_ew_launch_fn nd__cu_unary_part_int(int op, int t);  // kernels_unary_int.cu: SAME, BOOL on bool/ints
nd_ew_launch_fn nd__cu_unary_part_flt(int op, int t);  // kernels_unary_flt.cu: SAME, BOOL on floats
nd_ew_launch_fn nd__cu_unary_part_math(int op, int t); // kernels_unary_math.cu: FLOAT (exp, sin, ...)
nd_ew_launch_fn nd__cu_binary_part_int(int op, int t); // kernels_binary_int.cu: SAME on bool/ints
nd_ew_launch_fn nd__cu_binary_part_flt(int op, int t); // kernels_binary_flt.cu: SAME, DIV, FLOAT on floats
nd_ew_launch_fn nd__cu_binary_part_cmp(int op, int t); // kernels_binary_cmp.cu: BOOL (comparisons, logical; complex too)
nd_ew_launch_fn nd__cu_unary_part_cpx(int op, int t);  // kernels_unary_cpx.cu: every rule on complex
nd_ew_launch_fn nd__cu_binary_part_cpx(int op, int t); // kernels_binary_cpx.cu: SAME, FLOAT, DIV, F64 on complex
nd_ew_launch_fn nd__cu_where_launcher(size_t itemsize); // kernels_where.cu
#endif
