// The CUDA backend's elementwise entry points (contracts of
// nd_backend.unary / binary / where in src/core/internal.h): the iteration space
// is simplified on the host (nd__iter_init, as for the CPU loops), planned
// (src/cuda/ew_index.h: flat with vector loads, or strided with 32/64-bit
// indices) and handed to the (op, dtype) kernel of one of the generated
// parts (kernels_unary_*.cu, kernels_binary_*.cu, kernels_where.cu) in one
// launch on the calling thread's current stream. No allocation, no
// synchronisation, no transfer, except for integer power (below).
#include "cuda/ew_kernels.cuh"
#include "shared/ew_names.h"

static nd_ew_launch_fn unary_fn(int op, int t)
{
    nd_ew_launch_fn f = nd__cu_unary_part_int(op, t);
    if (!f) f = nd__cu_unary_part_flt(op, t);
    if (!f) f = nd__cu_unary_part_math(op, t);
    if (!f) f = nd__cu_unary_part_cpx(op, t);
    return f;
}

static nd_ew_launch_fn binary_fn(int op, int t)
{
    nd_ew_launch_fn f = nd__cu_binary_part_int(op, t);
    if (!f) f = nd__cu_binary_part_flt(op, t);
    if (!f) f = nd__cu_binary_part_cmp(op, t);
    if (!f) f = nd__cu_binary_part_cpx(op, t);
    return f;
}

// Whether the op's result is bool (rule BOOL) rather than the loop dtype.
#define ND_CU_ISBOOL_SAME false
#define ND_CU_ISBOOL_FLOAT false
#define ND_CU_ISBOOL_DIV false
#define ND_CU_ISBOOL_F64 false
#define ND_CU_ISBOOL_BOOL true
#define ND_CU_UBOOL(E, name, kinds, rule) case ND_UNARY_##E: return ND_CU_ISBOOL_##rule;
#define ND_CU_BBOOL(E, name, kinds, rule) case ND_BINARY_##E: return ND_CU_ISBOOL_##rule;
static bool unary_gives_bool(int op)
{
    switch (op) {
        ND_UNARY_OPS(ND_CU_UBOOL)
    default: return false;
    }
}
static bool binary_gives_bool(int op)
{
    switch (op) {
        ND_BINARY_OPS(ND_CU_BBOOL)
    default: return false;
    }
}

extern "C" bool nd__cuda_ew_supports(nd_kernel_kind kind, int op, nd_dtype t)
{
    if (!nd__dtype_valid(t) || op < 0) return false;
    switch (kind) {
    case ND_KERNEL_UNARY: return op < ND_NUM_UNARY_OPS && unary_fn(op, (int)t) != NULL;
    case ND_KERNEL_BINARY: return op < ND_NUM_BINARY_OPS && binary_fn(op, (int)t) != NULL;
    case ND_KERNEL_WHERE: return op == 0 && nd__cu_where_launcher(nd__itemsize(t)) != NULL;
    default: return false;
    }
}

// Plan ops[0..nops) (operand 0 the output, size > 0) and launch fn.
static nd_status run(nd_ew_launch_fn fn, int nops, const nd_array *const *ops, const char *name)
{
    nd_iter it;
    nd__iter_init(&it, nops, ops);
    nd_ew_args args;
    nd_ew_args_of(&args, &it, nd_ew_vec_width(&it));
    nd_device dev = ops[0]->device;
    nd_device_guard g(dev.id);
    return fn(args, nd_stream_of(nd__current_stream(dev)), name);
}

extern "C" nd_status nd__cuda_unary(nd_unary_op op, nd_array *out, const nd_array *a)
{
    if ((unsigned)op >= (unsigned)ND_NUM_UNARY_OPS || !nd__dtype_valid(a->dtype))
        return nd__err(ND_ERR_INTERNAL, "nd__cuda_unary", "bad op %d or dtype %d", (int)op, (int)a->dtype);
    nd_ew_launch_fn fn = unary_fn(op, a->dtype);
    if (fn == NULL)
        return nd__err(ND_ERR_INTERNAL, "nd__cuda_unary", "no kernel for %s on %s", nd__unary_name(op),
                       nd_dtype_name(a->dtype));
    // the output: bool, the loop dtype, or the real part's for abs of complex
    const nd_dtype want = unary_gives_bool(op)                               ? ND_BOOL
                          : (op == ND_UNARY_ABS && nd__is_complex(a->dtype)) ? nd__real_of(a->dtype)
                                                                             : a->dtype;
    if (out->dtype != want)
        return nd__err(ND_ERR_INTERNAL, "nd__cuda_unary", "%s: output dtype %s does not match the loop",
                       nd__unary_name(op), nd_dtype_name(out->dtype));
    if (out->size == 0) return ND_OK;
    const nd_array *ops[2] = {out, a};
    return run(fn, 2, ops, nd__unary_name(op));
}

// ---------------------------------------------------------------------
// Integer power with a negative exponent is an error (NumPy: "Integers to
// negative integer powers are not allowed."), reported before the output
// is written, like the CPU (src/cpu/elementwise.c nd_cpu_has_negative).
// The exponents are scanned by a small kernel that raises a flag in a
// pooled device int; the flag comes back with one cudaMemcpyAsync and a
// stream synchronisation. Integer power on signed dtypes is therefore the
// ONLY elementwise op that synchronises with the host: acceptable, since it
// is not a fast path (and NumPy has to look at every exponent too).
// ---------------------------------------------------------------------
__device__ __forceinline__ bool nd_cu_bad_exp(int8_t b) { return nd_op_power_bad_i8(b); }
__device__ __forceinline__ bool nd_cu_bad_exp(int16_t b) { return nd_op_power_bad_i16(b); }
__device__ __forceinline__ bool nd_cu_bad_exp(int32_t b) { return nd_op_power_bad_i32(b); }
__device__ __forceinline__ bool nd_cu_bad_exp(int64_t b) { return nd_op_power_bad_i64(b); }

template <typename T>
__global__ void __launch_bounds__(ND_EW_BLOCK) nd_negscan_kernel(const __grid_constant__ nd_ew_args a, int *flag)
{
    ND_SYNC_KERNEL();
    const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t nth = (int64_t)gridDim.x * blockDim.x;
    bool any = false;
    if (a.plan.path == ND_EW_FLAT) { // planned with vec = 1: every element is in nrem
        const T *b = (const T *)a.data[0];
        for (int64_t i = tid; i < a.plan.sp.nrem; i += nth) any |= nd_cu_bad_exp(b[i]);
    } else if (a.plan.path == ND_EW_S32) {
        const uint32_t n = (uint32_t)a.it.n, step = (uint32_t)nth;
        for (uint32_t i = (uint32_t)tid; i < n; i += step) {
            int32_t off[1];
            nd_kiter_offsets32<1>(a.it, i, off);
            any |= nd_cu_bad_exp(*(const T *)(a.data[0] + off[0]));
        }
    } else {
        for (int64_t i = tid; i < a.it.n; i += nth) {
            int64_t off[1];
            nd_kiter_offsets<1>(a.it, i, off);
            any |= nd_cu_bad_exp(*(const T *)(a.data[0] + off[0]));
        }
    }
    // every thread of the block reaches this (no early return above)
    if (__syncthreads_or(any) && threadIdx.x == 0) *flag = 1;
}

static nd_status has_negative(const nd_array *b, bool *neg)
{
    *neg = false;
    void (*kern)(nd_ew_args, int *) = NULL;
    switch (b->dtype) {
    case ND_INT8: kern = nd_negscan_kernel<int8_t>; break;
    case ND_INT16: kern = nd_negscan_kernel<int16_t>; break;
    case ND_INT32: kern = nd_negscan_kernel<int32_t>; break;
    case ND_INT64: kern = nd_negscan_kernel<int64_t>; break;
    default: return ND_OK; // unsigned, bool and floats have no bad exponent
    }
    if (b->size == 0) return ND_OK;
    const nd_array *ops[1] = {b};
    nd_iter it;
    nd__iter_init(&it, 1, ops);
    nd_ew_args args;
    nd_ew_args_of(&args, &it, 1);
    nd_device_guard g(b->device.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(b->device));
    int *flag = NULL;
    nd_status st = nd__cuda_alloc(b->device.id, sizeof(int), s, (void **)&flag);
    if (st) return st;
    int host = 0;
    cudaError_t e = cudaMemsetAsync(flag, 0, sizeof(int), s);
    if (e == cudaSuccess) {
        e = nd_launch(kern, args.plan.grid, ND_EW_BLOCK, 0, s, args, flag);
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(&host, flag, sizeof(int), cudaMemcpyDeviceToHost, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    nd__cuda_free(b->device.id, flag);
    if (e != cudaSuccess) return nd_cuda_status(e, "power", "the scan for negative exponents");
    *neg = host != 0;
    return ND_OK;
}

extern "C" nd_status nd__cuda_binary(nd_binary_op op, nd_array *out, const nd_array *a, const nd_array *b)
{
    if ((unsigned)op >= (unsigned)ND_NUM_BINARY_OPS || !nd__dtype_valid(a->dtype) || a->dtype != b->dtype)
        return nd__err(ND_ERR_INTERNAL, "nd__cuda_binary", "bad op %d or dtypes %d, %d", (int)op, (int)a->dtype,
                       (int)b->dtype);
    nd_ew_launch_fn fn = binary_fn(op, a->dtype);
    if (fn == NULL)
        return nd__err(ND_ERR_INTERNAL, "nd__cuda_binary", "no kernel for %s on %s", nd__binary_name(op),
                       nd_dtype_name(a->dtype));
    if (out->dtype != (binary_gives_bool(op) ? ND_BOOL : a->dtype))
        return nd__err(ND_ERR_INTERNAL, "nd__cuda_binary", "%s: output dtype %s does not match the loop",
                       nd__binary_name(op), nd_dtype_name(out->dtype));
    if (out->size == 0) return ND_OK;
    if (op == ND_BINARY_POWER) {
        bool neg = false;
        nd_status st = has_negative(b, &neg);
        if (st) return st;
        if (neg) return nd__err(ND_ERR_INVALID, "power", "Integers to negative integer powers are not allowed.");
    }
    const nd_array *ops[3] = {out, a, b};
    return run(fn, 3, ops, nd__binary_name(op));
}

extern "C" nd_status nd__cuda_where(nd_array *out, const nd_array *cond, const nd_array *x, const nd_array *y)
{
    nd_ew_launch_fn fn = nd__dtype_valid(out->dtype) ? nd__cu_where_launcher(nd__itemsize(out->dtype)) : NULL;
    if (fn == NULL) return nd__err(ND_ERR_INTERNAL, "nd__cuda_where", "bad dtype %d", (int)out->dtype);
    if (cond->dtype != ND_BOOL || x->dtype != out->dtype || y->dtype != out->dtype)
        return nd__err(ND_ERR_INTERNAL, "nd__cuda_where", "operands not of the loop dtypes");
    if (out->size == 0) return ND_OK;
    const nd_array *ops[4] = {out, cond, x, y};
    return run(fn, 4, ops, "where");
}
