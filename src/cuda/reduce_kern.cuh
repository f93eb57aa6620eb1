// Reduction kernels (templates), instantiated per input dtype by
// src/cuda/kernels_reduce_{h,f,s,u}.cu. The operators (src/cuda/reduce_states.h)
// and the index/partition arithmetic (src/cuda/reduce_plan.h) are shared
// ND_HOSTDEV C that tests/test_gpu_reduce.c runs on the CPU; what is here
// is only the glue: loads, shuffles and the thread/warp/block structure
// described at the top of reduce_plan.h.
#ifndef ND_CUDA_REDUCE_KERN_CUH
#define ND_CUDA_REDUCE_KERN_CUH
#include "cuda/cuda_seam.h"

#include "shared/convert.h"
#include "cuda/cuda_util.cuh"
#include "cuda/reduce_plan.h"

// Launchers of one (dtype, class): the first pass (inner or outer path,
// partials or final outputs) and the combine pass; ssize = sizeof(state).
typedef cudaError_t (*nd_rk_launch_fn)(const nd_rk &k, cudaStream_t s);
struct nd_rk_launcher {
    nd_rk_launch_fn first, combine;
    size_t ssize;
};
// Defined by kernels_reduce_{h,f,s,u}.cu: the launchers of input dtype dt
// (one of that file's dtypes) for class cls (NDR_FSUM only for integers).
nd_rk_launcher nd__rk_launcher_h(nd_dtype dt, int cls);
nd_rk_launcher nd__rk_launcher_f(nd_dtype dt, int cls);
nd_rk_launcher nd__rk_launcher_s(nd_dtype dt, int cls);
nd_rk_launcher nd__rk_launcher_u(nd_dtype dt, int cls);

#if defined(__CUDACC__) || defined(ND_CUDA_EMU)
// ---- loads: storage dtype -> compute type ------------------------------
template <int DT> struct RLd;
#define NDR_LD(DT, suf, CT)                                                              \
    template <> struct RLd<DT> {                                                         \
        typedef CT C;                                                                    \
        __device__ __forceinline__ static CT load(const char *p) { return nd_rld_##suf(p); } \
    };
NDR_LD(ND_BOOL, b1, uint64_t)
NDR_LD(ND_INT8, i8, int64_t)
NDR_LD(ND_INT16, i16, int64_t)
NDR_LD(ND_INT32, i32, int64_t)
NDR_LD(ND_INT64, i64, int64_t)
NDR_LD(ND_UINT8, u8, uint64_t)
NDR_LD(ND_UINT16, u16, uint64_t)
NDR_LD(ND_UINT32, u32, uint64_t)
NDR_LD(ND_UINT64, u64, uint64_t)
NDR_LD(ND_FLOAT16, f16, float)
NDR_LD(ND_BFLOAT16, bf16, float)
NDR_LD(ND_FLOAT32, f32, float)
NDR_LD(ND_FLOAT64, f64, double)
#undef NDR_LD

// ---- operators: (compute type, class) -> the C families -----------------
template <typename C, int CLS> struct ROp;
#define NDR_OP(CT, CLSID, cls, ck)                                                                  \
    template <> struct ROp<CT, CLSID> {                                                             \
        typedef nd_r_##cls##_##ck##_S S;                                                            \
        __device__ __forceinline__ static S init() { return nd_r_##cls##_##ck##_init(); }          \
        __device__ __forceinline__ static void fold(S &s, CT x, int64_t j, double c)                \
        {                                                                                           \
            nd_r_##cls##_##ck##_fold(&s, x, j, c);                                                  \
        }                                                                                           \
        __device__ __forceinline__ static void merge(S &l, const S &r) { nd_r_##cls##_##ck##_merge(&l, r); } \
        __device__ __forceinline__ static void fin(const nd_rfin &f, int64_t o, const S &s)        \
        {                                                                                           \
            nd_r_##cls##_##ck##_fin(&f, o, s);                                                      \
        }                                                                                           \
    };
#define NDR_OP_F32(CLSID, cls, ck) NDR_OP(float, CLSID, cls, ck)
#define NDR_OP_F64(CLSID, cls, ck) NDR_OP(double, CLSID, cls, ck)
#define NDR_OP_I64(CLSID, cls, ck) NDR_OP(int64_t, CLSID, cls, ck)
#define NDR_OP_U64(CLSID, cls, ck) NDR_OP(uint64_t, CLSID, cls, ck)
NDR_CLASSES_FLOAT(NDR_OP_F32, f32)
NDR_CLASSES_FLOAT(NDR_OP_F64, f64)
NDR_CLASSES_INT(NDR_OP_I64, i64)
NDR_CLASSES_INT(NDR_OP_U64, u64)
#undef NDR_OP

// ---- shuffles of every state type (full mask: whole warps only) ---------
#define NDR_FULL 0xffffffffu
__device__ __forceinline__ float nd_rshfl(float v, int d) { return __shfl_down_sync(NDR_FULL, v, d); }
__device__ __forceinline__ double nd_rshfl(double v, int d) { return __shfl_down_sync(NDR_FULL, v, d); }
__device__ __forceinline__ unsigned nd_rshfl(unsigned v, int d) { return __shfl_down_sync(NDR_FULL, v, d); }
__device__ __forceinline__ int64_t nd_rshfl(int64_t v, int d)
{
    return (int64_t)__shfl_down_sync(NDR_FULL, (long long)v, d);
}
__device__ __forceinline__ uint64_t nd_rshfl(uint64_t v, int d)
{
    return (uint64_t)__shfl_down_sync(NDR_FULL, (unsigned long long)v, d);
}
#define NDR_ARG_SHFL(ck)                                                       \
    __device__ __forceinline__ nd_rarg_##ck nd_rshfl(nd_rarg_##ck v, int d)   \
    {                                                                          \
        nd_rarg_##ck r;                                                        \
        r.v = nd_rshfl(v.v, d);                                                \
        r.i = nd_rshfl(v.i, d);                                                \
        return r;                                                              \
    }
NDR_ARG_SHFL(f32)
NDR_ARG_SHFL(f64)
NDR_ARG_SHFL(i64)
NDR_ARG_SHFL(u64)
#undef NDR_ARG_SHFL

// A balanced tree over neighbouring lanes: lane i merges lane i + 1, then
// i + 2, 4, 8, 16 (lane 0 ends with the warp's result, ((0+1)+(2+3))+...),
// so the lanes' partial sums add in pairwise order, as the CPU's and
// NumPy's do (src/shared/reduce_ops.h). Lanes whose partner is past lane 31 merge
// their own value; their results are never read.
template <class O>
__device__ __forceinline__ typename O::S nd_rwarp(typename O::S v)
{
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        typename O::S r = nd_rshfl(v, d);
        O::merge(v, r);
    }
    return v;
}

// The whole block's result in thread 0. Every thread must call it (it
// synchronises, and leaves shared memory free for the next call).
template <class O>
__device__ __forceinline__ typename O::S nd_rblock(typename O::S v)
{
    __shared__ typename O::S sm[NDR_WARPS];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    v = nd_rwarp<O>(v);
    if (lane == 0) sm[w] = v;
    __syncthreads();
    if (w == 0) {
        v = lane < NDR_WARPS ? sm[lane] : O::init();
        v = nd_rwarp<O>(v);
    }
    __syncthreads();
    return v;
}

// Thread t of a group of G folds elements jb + t, jb + t + G, ... < je of
// the block at p, in increasing order (NDR_UNROLL loads in flight first).
#ifndef NDR_UNROLL
#define NDR_UNROLL 8
#endif
#ifndef NDR_MINB
#define NDR_MINB 1
#endif
template <class Ld, class O>
__device__ __forceinline__ void nd_rfold_range(typename O::S &v, const nd_rk &k, const char *p, int64_t jb, int64_t je,
                                               int t, int G, double c)
{
    int64_t j = jb + t;
    if (k.g.nr == 1) {
        const int64_t s0 = k.g.rstr[0], g = G;
        for (; j + (NDR_UNROLL - 1) * g < je; j += NDR_UNROLL * g) {
            typename Ld::C x[NDR_UNROLL];
#pragma unroll
            for (int u = 0; u < NDR_UNROLL; u++) x[u] = Ld::load(p + (j + u * g) * s0);
#pragma unroll
            for (int u = 0; u < NDR_UNROLL; u++) O::fold(v, x[u], j + u * g, c);
        }
        for (; j < je; j += g) O::fold(v, Ld::load(p + j * s0), j, c);
        return;
    }
    for (; j < je; j += G) O::fold(v, Ld::load(p + nd_rk_roff(&k, j)), j, c);
}

template <class O>
__device__ __forceinline__ void nd_remit(const nd_rk &k, int64_t o, int64_t kc, const typename O::S &v)
{
    if (k.part) ((typename O::S *)k.part)[o * k.pso + kc * k.psk] = v;
    else O::fin(k.fin, o, v);
}

// INNER path: a warp per output (G == 32) or a block per (output, chunk).
template <int DT, int CLS>
__global__ void __launch_bounds__(NDR_BLOCK, NDR_MINB) nd_rk_inner(const nd_rk k)
{
    ND_SYNC_KERNEL();
    typedef RLd<DT> Ld;
    typedef ROp<typename Ld::C, CLS> O;
    typedef typename O::S S;
    const int t = threadIdx.x, lane = t & 31, w = t >> 5;
    for (int64_t item = blockIdx.x; item < k.items; item += gridDim.x) {
        int64_t o, kc, jb, je;
        if (k.G == 32) {
            nd_rk_inner_item(&k, item, w, &o, &kc);
            if (o >= k.g.nout) continue; // the whole warp
            nd_rk_chunk(&k, kc, &jb, &je);
            S v = O::init();
            nd_rfold_range<Ld, O>(v, k, k.in + nd_rk_koff(&k, o), jb, je, lane, 32, k.center ? k.center[o] : 0.0);
            v = nd_rwarp<O>(v);
            if (lane == 0) nd_remit<O>(k, o, kc, v);
        } else {
            nd_rk_inner_item(&k, item, 0, &o, &kc);
            nd_rk_chunk(&k, kc, &jb, &je);
            S v = O::init();
            nd_rfold_range<Ld, O>(v, k, k.in + nd_rk_koff(&k, o), jb, je, t, NDR_BLOCK, k.center ? k.center[o] : 0.0);
            v = nd_rblock<O>(v);
            if (t == 0) nd_remit<O>(k, o, kc, v);
        }
    }
}

// OUTER path: 32 consecutive outputs x 8 row lanes per block.
template <int DT, int CLS>
__global__ void __launch_bounds__(NDR_BLOCK, NDR_MINB) nd_rk_outer(const nd_rk k)
{
    ND_SYNC_KERNEL();
    typedef RLd<DT> Ld;
    typedef ROp<typename Ld::C, CLS> O;
    typedef typename O::S S;
    __shared__ S sm[NDR_OROWS][32];
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    for (int64_t item = blockIdx.x; item < k.items; item += gridDim.x) {
        int64_t kc, line, c0, jb, je;
        nd_rk_outer_item(&k, item, &kc, &line, &c0);
        const int64_t col = c0 + tx, o = line * k.nK + col;
        const bool act = col < k.nK;
        S v = O::init();
        if (act) {
            nd_rk_chunk(&k, kc, &jb, &je);
            const char *p = k.in + nd_rk_lineoff(&k, line) + col * k.sK;
            nd_rfold_range<Ld, O>(v, k, p, jb, je, ty, NDR_OROWS, k.center ? k.center[o] : 0.0);
        }
        sm[ty][tx] = v;
        __syncthreads();
        if (ty == 0 && act) {
            for (int r = 1; r < NDR_OROWS; r++) O::merge(v, sm[r][tx]);
            nd_remit<O>(k, o, kc, v);
        }
        __syncthreads();
    }
}

// COMBINE: merge each output's nchunk partials in a fixed order, finish.
template <typename C, int CLS>
__global__ void __launch_bounds__(NDR_BLOCK) nd_rk_combine(const nd_rk k)
{
    ND_SYNC_KERNEL();
    typedef ROp<C, CLS> O;
    typedef typename O::S S;
    const S *P = (const S *)k.part;
    if (k.cG == 1) {
        for (int64_t o = (int64_t)blockIdx.x * NDR_BLOCK + threadIdx.x; o < k.g.nout; o += (int64_t)gridDim.x * NDR_BLOCK) {
            S v = P[o * k.pso];
            for (int64_t kc = 1; kc < k.nchunk; kc++) O::merge(v, P[o * k.pso + kc * k.psk]);
            O::fin(k.fin, o, v);
        }
        return;
    }
    for (int64_t o = blockIdx.x; o < k.g.nout; o += gridDim.x) {
        S v = O::init();
        for (int64_t kc = threadIdx.x; kc < k.nchunk; kc += NDR_BLOCK) O::merge(v, P[o * k.pso + kc * k.psk]);
        v = nd_rblock<O>(v);
        if (threadIdx.x == 0) O::fin(k.fin, o, v);
    }
}

template <int DT, int CLS>
static cudaError_t nd_rk_launch_first(const nd_rk &k, cudaStream_t s)
{
    const unsigned grid = nd_rk_grid(k.items);
    if (k.path == NDR_OUTER) return nd_launch(nd_rk_outer<DT, CLS>, grid, NDR_BLOCK, 0, s, k);
    return nd_launch(nd_rk_inner<DT, CLS>, grid, NDR_BLOCK, 0, s, k);
}
template <int DT, int CLS>
static cudaError_t nd_rk_launch_combine(const nd_rk &k, cudaStream_t s)
{
    return nd_launch(nd_rk_combine<typename RLd<DT>::C, CLS>, nd_rk_grid(k.citems), NDR_BLOCK, 0, s, k);
}
template <int DT, int CLS>
static nd_rk_launcher nd_rk_entry()
{
    nd_rk_launcher l;
    l.first = nd_rk_launch_first<DT, CLS>;
    l.combine = nd_rk_launch_combine<DT, CLS>;
    l.ssize = sizeof(typename ROp<typename RLd<DT>::C, CLS>::S);
    return l;
}

// One case of the per-dtype class switch in kernels_reduce_{h,f,s,u}.cu (DT:
// the template parameter of the function the switch is in).
#define NDR_ENTRY_CASE(CLSID, cls, ck) \
    case CLSID: return nd_rk_entry<DT, CLSID>();
#endif // __CUDACC__ || ND_CUDA_EMU
#endif
