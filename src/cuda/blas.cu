// Matrix products on the GPU: cuBLAS handles, float GEMM, the batch
// engine (contract of nd_backend.matmul/gemm, src/core/internal.h).
//
// Handles. One cuBLAS handle per device and per thread, created lazily on
// first use (cublasCreate with the device current) and destroyed when the
// thread exits (a C++ thread_local destructor; skipped when the CUDA
// runtime is already unloading at process exit). A handle is never shared
// between threads, so no lock is taken; before each call it is bound to
// the calling thread's current stream of the device (cublasSetStream), so
// the product is ordered with the thread's other work exactly like a
// kernel launch.
//
// Workspace: one per (handle, stream), from the device pool, attached with
// cublasSetWorkspace after every cublasSetStream (which resets it). A
// thread's handle follows the thread's current stream, so with cuBLAS's
// one default workspace per handle, products queued on two streams by one
// thread could run at once on the same workspace (PyTorch keeps a
// workspace per (handle, stream) for that reason). 32 MiB: NVIDIA's
// recommendation for Hopper (cublasSetWorkspace documentation; 4 MiB for
// earlier GPUs). Destroying a stream frees its workspaces
// (nd__cuda_blas_forget_stream, called by stream_destroy in src/cuda/backend.cu) and rebinds
// the calling thread's handle to the default stream; a handle is rebound
// to the default stream before it is destroyed at thread exit, so no
// handle is ever used or destroyed while bound to a destroyed stream.
// Nothing is allocated per call on the fast path (contiguous, transposed
// or padded operands) once a stream has its workspace. Known limit:
// capturing these calls into a CUDA graph is not supported yet.
//
// Math mode: CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
// on every handle: float32 is exact float32 (no TF32) and float16/bfloat16
// accumulate in float32 all the way (split-K partial sums are not rounded
// to the 16-bit output type), as the CPU backend computes them. float32
// uses TF32 tensor cores only when nd_set_matmul_tf32(true) (or
// ND_MATMUL_TF32=1) is in effect: compute type CUBLAS_COMPUTE_32F_FAST_TF32,
// chosen per call. float64 computes in CUBLAS_COMPUTE_64F. Alpha and beta
// are passed as float for the 32F compute types and as double for 64F.
//
// Complex: complex64 is CUDA_C_32F with CUBLAS_COMPUTE_32F (cuBLAS's
// cgemm; never TF32: the switch is about float32), complex128 CUDA_C_64F
// with CUBLAS_COMPUTE_64F (zgemm), through the same GemmEx calls (single,
// strided-batched, pointer arrays, _64) as the reals, so every layout and
// batch form of the plan works unchanged. Alpha and beta are cuComplex /
// cuDoubleComplex (alpha, 0) and (beta, 0): nd_gemm's are real. Op is N or
// T, never C (NumPy's matmul does not conjugate).
//
// Layouts: see src/cuda/blas_plan.h (row-major as column-major without
// copies; a copy only for a matrix no ld can describe). Batches: one
// cublasGemmEx for a single product, one cublasGemmStridedBatchedEx for a
// batch with batch strides >= 0 (stride 0 = a broadcast operand), pointer
// arrays built on the device + cublasGemmBatchedEx for negative batch
// strides. Dimensions, leading dimensions or batch counts over INT_MAX use
// the 64-bit cuBLAS API (cublas*_64), so there is no size limit beyond
// what cuBLAS itself reports (CUBLAS_STATUS_NOT_SUPPORTED ->
// ND_ERR_UNSUPPORTED).
//
// Integer and bool matmul: src/cuda/kernels_matmul_int.cu.
#include <cuComplex.h>
#include <cublas_v2.h>
#include <limits.h>

#include <mutex>
#include <new>
#include <vector>

#include "cuda/blas_plan.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "cuda/matmul_int.h"
#include "shared/half.h"

// ------------------------------------------------------------------
// Handles
// ------------------------------------------------------------------
#define ND_BLAS_MAX_DEVICES 64

#define ND_BLAS_WORKSPACE ((size_t)32 << 20)

namespace {
// The workspaces of every thread's handles, by (handle, stream).
struct blas_ws {
    cublasHandle_t h;
    cudaStream_t s;
    int dev;
    void *ptr;
};
std::mutex &g_ws_mu = *new std::mutex;
std::vector<blas_ws> &g_ws = *new std::vector<blas_ws>;

// Remove the workspaces matching (h or any if null, s or any if all_s);
// the caller frees them (after the work that used them).
std::vector<blas_ws> take_ws(cublasHandle_t h, bool all_s, cudaStream_t s)
{
    std::lock_guard<std::mutex> lk(g_ws_mu);
    std::vector<blas_ws> out;
    for (size_t i = 0; i < g_ws.size();) {
        if ((!h || g_ws[i].h == h) && (all_s || g_ws[i].s == s)) {
            out.push_back(g_ws[i]);
            g_ws[i] = g_ws.back();
            g_ws.pop_back();
        } else {
            i++;
        }
    }
    return out;
}

struct blas_handles {
    cublasHandle_t h[ND_BLAS_MAX_DEVICES];
    blas_handles() : h() {}
    ~blas_handles()
    {
        int cur;
        // at process exit the runtime may be gone already: then leak them
        if (cudaGetDevice(&cur) != cudaSuccess) {
            (void)cudaGetLastError();
            return;
        }
        for (int d = 0; d < ND_BLAS_MAX_DEVICES; d++) {
            if (!h[d]) continue;
            nd_device_guard g(d);
            (void)cudaDeviceSynchronize(); // the products that use the workspaces
            for (const blas_ws &w : take_ws(h[d], true, nullptr)) nd__cuda_free(w.dev, w.ptr);
            (void)cublasSetStream(h[d], nullptr); // never destroyed bound to a destroyed stream
            (void)cublasDestroy(h[d]);
            h[d] = nullptr;
        }
        (void)cudaGetLastError();
    }
};
thread_local blas_handles tl_handles;
} // namespace

// Before dev's allocator changes (nd_memory_set_pool, src/cuda/backend.cu):
// every handle's workspaces on dev go back to the pool they came from once
// the device's work is done; the next product of each (handle, stream) makes
// its workspace again, from the new allocator.
extern "C" void nd__cuda_blas_release_workspaces(int dev)
{
    std::vector<blas_ws> all = take_ws(nullptr, true, nullptr), keep;
    if (all.empty()) return;
    nd_device_guard g(dev);
    (void)cudaDeviceSynchronize();
    for (const blas_ws &w : all) {
        if (w.dev == dev) nd__cuda_free(w.dev, w.ptr);
        else keep.push_back(w);
    }
    if (!keep.empty()) {
        std::lock_guard<std::mutex> lk(g_ws_mu);
        try {
            g_ws.insert(g_ws.end(), keep.begin(), keep.end());
        } catch (const std::bad_alloc &) { // cannot happen: the vector held them a moment ago
        }
    }
    (void)cudaGetLastError();
}

// Called by the backend's stream_destroy before the stream goes: its work is
// finished first, then its workspaces are freed; the calling thread's
// handle, if bound to it, is rebound to the default stream (other threads'
// handles rebind before their next use and before they are destroyed).
extern "C" void nd__cuda_blas_forget_stream(int dev, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    std::vector<blas_ws> ws = take_ws(nullptr, false, s);
    if (!ws.empty()) {
        nd_device_guard g(dev);
        (void)cudaStreamSynchronize(s);
        for (const blas_ws &w : ws) nd__cuda_free(w.dev, w.ptr);
    }
    if (dev >= 0 && dev < ND_BLAS_MAX_DEVICES && tl_handles.h[dev]) {
        cudaStream_t bound = nullptr;
        if (cublasGetStream(tl_handles.h[dev], &bound) == CUBLAS_STATUS_SUCCESS && bound == s)
            (void)cublasSetStream(tl_handles.h[dev], nullptr);
    }
    (void)cudaGetLastError();
}

static nd_status blas_status(cublasStatus_t st, const char *fn, const char *what)
{
    if (st == CUBLAS_STATUS_SUCCESS) return ND_OK;
    // a CUDA call inside cuBLAS that failed leaves its error as the thread's
    // last error: reported here, it must not fail the next launch too
    (void)cudaGetLastError();
    nd_status code = st == CUBLAS_STATUS_ALLOC_FAILED    ? ND_ERR_NOMEM
                     : st == CUBLAS_STATUS_NOT_SUPPORTED ? ND_ERR_UNSUPPORTED
                                                         : ND_ERR_BACKEND;
    return nd__err(code, fn, "%s: %s (%s)", what, cublasGetStatusString(st), cublasGetStatusName(st));
}
#define ND_BLAS_TRY(call, fn)                                        \
    do {                                                             \
        cublasStatus_t b_ = (call);                                  \
        if (b_ != CUBLAS_STATUS_SUCCESS) return blas_status(b_, fn, #call); \
    } while (0)

// The calling thread's handle for device dev (which must be current),
// bound to stream s.
static nd_status blas_handle(const char *fn, int dev, cudaStream_t s, cublasHandle_t *out)
{
    if (dev < 0 || dev >= ND_BLAS_MAX_DEVICES)
        return nd__err(ND_ERR_DEVICE, fn, "cuda:%d: at most %d devices have cuBLAS handles", dev, ND_BLAS_MAX_DEVICES);
    cublasHandle_t &h = tl_handles.h[dev];
    if (!h) {
        cublasHandle_t nh = nullptr;
        ND_BLAS_TRY(cublasCreate(&nh), fn);
        cublasStatus_t st = cublasSetMathMode(
            nh, (cublasMath_t)(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
        if (st != CUBLAS_STATUS_SUCCESS) {
            (void)cublasDestroy(nh);
            return blas_status(st, fn, "cublasSetMathMode");
        }
        h = nh;
    }
    ND_BLAS_TRY(cublasSetStream(h, s), fn);
    // this (handle, stream)'s workspace, made on first use
    void *ws = nullptr;
    {
        std::lock_guard<std::mutex> lk(g_ws_mu);
        for (const blas_ws &w : g_ws)
            if (w.h == h && w.s == s) ws = w.ptr;
    }
    if (!ws) {
        nd_status st = nd__cuda_alloc(dev, ND_BLAS_WORKSPACE, (void *)s, &ws);
        if (st) return st; // the pool's message
        std::lock_guard<std::mutex> lk(g_ws_mu);
        g_ws.push_back(blas_ws{h, s, dev, ws});
    }
    ND_BLAS_TRY(cublasSetWorkspace(h, ws, ND_BLAS_WORKSPACE), fn);
    *out = h;
    return ND_OK;
}

// The calling thread's cuBLAS handle for device dev (current), bound to
// stream, for the batched LU and QR of src/cuda/solver.cu.
extern "C" nd_status nd__cuda_blas_handle(const char *fn, int dev, void *stream, void **out)
{
    cublasHandle_t h = nullptr;
    nd_status st = blas_handle(fn, dev, (cudaStream_t)stream, &h);
    if (!st) *out = (void *)h;
    return st;
}

// ------------------------------------------------------------------
// Helper kernels: pack/unpack, pointer arrays, scaling
// ------------------------------------------------------------------
// A 16-byte element (complex128) moved as two 8-byte words (alignment 8:
// nothing here needs more than the dtype's own).
struct copy16 {
    uint64_t lo, hi;
};

// dst[view dv] = src[view sv] over n = nmat * rows * cols elements.
template <typename T>
__global__ void copy3_kernel(T *dst, nd_bp_view dv, const T *src, nd_bp_view sv, int64_t rows, int64_t cols, int64_t n)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dst[nd_bp_strided_offset(i, rows, cols, dv)] = src[nd_bp_strided_offset(i, rows, cols, sv)];
}

static nd_status copy3(const char *fn, cudaStream_t s, size_t isz, void *dst, nd_bp_view dv, const void *src,
                       nd_bp_view sv, int64_t nmat, int64_t rows, int64_t cols)
{
    int64_t n = nmat * rows * cols;
    unsigned grid = nd_grid_for(n, 256);
    cudaError_t e;
    switch (isz) {
    case 2: e = nd_launch(copy3_kernel<uint16_t>, grid, 256, 0, s, (uint16_t *)dst, dv, (const uint16_t *)src, sv, rows, cols, n); break;
    case 4: e = nd_launch(copy3_kernel<uint32_t>, grid, 256, 0, s, (uint32_t *)dst, dv, (const uint32_t *)src, sv, rows, cols, n); break;
    case 16: e = nd_launch(copy3_kernel<copy16>, grid, 256, 0, s, (copy16 *)dst, dv, (const copy16 *)src, sv, rows, cols, n); break;
    default: e = nd_launch(copy3_kernel<uint64_t>, grid, 256, 0, s, (uint64_t *)dst, dv, (const uint64_t *)src, sv, rows, cols, n); break;
    }
    ND_CUDA_TRY(e, fn);
    return ND_OK;
}

struct ptr_bases {
    char *base[3];
    int64_t bstride[3]; // bytes
};

// arr[u * nb + i] = base[u] + i * bstride[u]
__global__ void ptr_arrays_kernel(void **arr, ptr_bases p, int64_t nb)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += stride)
        for (int u = 0; u < 3; u++) arr[u * nb + i] = p.base[u] + i * p.bstride[u];
}

// Element load/store as double for the float dtypes (the CPU's store_f).
struct f16_io {
    typedef uint16_t T;
    __device__ static double ld(T x) { return nd_half_to_float(x); }
    __device__ static T st(double v) { return nd_float_to_half((float)v); }
};
struct bf16_io {
    typedef uint16_t T;
    __device__ static double ld(T x) { return nd_bf16_to_float(x); }
    __device__ static T st(double v) { return nd_float_to_bf16((float)v); }
};
struct f32_io {
    typedef float T;
    __device__ static double ld(T x) { return x; }
    __device__ static T st(double v) { return (float)v; }
};
struct f64_io {
    typedef double T;
    __device__ static double ld(T x) { return x; }
    __device__ static T st(double v) { return v; }
};

// c = beta * c over a rows x cols view (element strides rs, cs).
template <typename IO>
__global__ void scale_kernel(typename IO::T *c, nd_bp_view v, int64_t rows, int64_t cols, double beta)
{
    int64_t n = rows * cols, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        typename IO::T *p = c + nd_bp_strided_offset(i, rows, cols, v);
        *p = IO::st(nd_bp_scale(IO::ld(*p), beta));
    }
}

// c = beta * c for a complex c (T = float or double: the part type): both
// parts scaled by the real beta, as the CPU's scale_view does.
template <typename T>
__global__ void scale_cpx_kernel(T *c, nd_bp_view v, int64_t rows, int64_t cols, double beta)
{
    int64_t n = rows * cols, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        T *p = c + 2 * nd_bp_strided_offset(i, rows, cols, v);
        p[0] = (T)nd_bp_scale((double)p[0], beta);
        p[1] = (T)nd_bp_scale((double)p[1], beta);
    }
}

// ------------------------------------------------------------------
// The cuBLAS call
// ------------------------------------------------------------------
static bool fits_int(int64_t x) { return x <= INT_MAX; }

// X2 = alpha * op0(X0) @ op1(X1) + beta * X2 for the plan's batch. x[i]
// points at X_i's first matrix; arr (pointer-array mode) holds 3*nb
// device pointers.
static nd_status gemm_call(const char *fn, cublasHandle_t h, nd_dtype t, nd_dtype tc, const nd_bp_plan &p,
                           void *const x[3], void **arr, double alpha, double beta)
{
    cudaDataType dt, cdt;
    cublasComputeType_t ct;
    switch (t) {
    case ND_FLOAT16: dt = CUDA_R_16F, ct = CUBLAS_COMPUTE_32F; break;
    case ND_BFLOAT16: dt = CUDA_R_16BF, ct = CUBLAS_COMPUTE_32F; break;
    case ND_FLOAT32: dt = CUDA_R_32F, ct = nd__matmul_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F; break;
    case ND_FLOAT64: dt = CUDA_R_64F, ct = CUBLAS_COMPUTE_64F; break;
    case ND_COMPLEX64: dt = CUDA_C_32F, ct = CUBLAS_COMPUTE_32F; break;
    case ND_COMPLEX128: dt = CUDA_C_64F, ct = CUBLAS_COMPUTE_64F; break;
    default: return nd__err(ND_ERR_INTERNAL, fn, "no cuBLAS GEMM for %s", nd_dtype_name(t));
    }
    // mixed precision: float16/bfloat16 A and B into a float32 C (COMPUTE_32F)
    cdt = dt;
    if (tc != t) {
        if (!nd__storage_only(t) || tc != nd__compute_dtype(t))
            return nd__err(ND_ERR_INTERNAL, fn, "no cuBLAS GEMM from %s into %s", nd_dtype_name(t), nd_dtype_name(tc));
        cdt = CUDA_R_32F;
    }
    // alpha and beta in the compute type's scalar type (host pointer mode)
    const float af = (float)alpha, bf = (float)beta;
    const cuComplex ac = make_cuComplex((float)alpha, 0.0f), bc = make_cuComplex((float)beta, 0.0f);
    const cuDoubleComplex az = make_cuDoubleComplex(alpha, 0.0), bz = make_cuDoubleComplex(beta, 0.0);
    const void *pa, *pb;
    switch (t) {
    case ND_FLOAT64: pa = &alpha, pb = &beta; break;
    case ND_COMPLEX64: pa = &ac, pb = &bc; break;
    case ND_COMPLEX128: pa = &az, pb = &bz; break;
    default: pa = &af, pb = &bf; break;
    }
    const cublasOperation_t o0 = p.op[0] ? CUBLAS_OP_T : CUBLAS_OP_N, o1 = p.op[1] ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT;
    const bool small = fits_int(p.m) && fits_int(p.n) && fits_int(p.k) && fits_int(p.ld[0]) && fits_int(p.ld[1]) &&
                       fits_int(p.ld[2]) && fits_int(p.nb);
    if (p.ptr_arrays) {
        const void *const *A = (const void *const *)arr, *const *B = (const void *const *)(arr + p.nb);
        void *const *C = arr + 2 * p.nb;
        if (small)
            ND_BLAS_TRY(cublasGemmBatchedEx(h, o0, o1, (int)p.m, (int)p.n, (int)p.k, pa, A, dt, (int)p.ld[0], B, dt,
                                            (int)p.ld[1], pb, C, cdt, (int)p.ld[2], (int)p.nb, ct, algo),
                        fn);
        else
            ND_BLAS_TRY(cublasGemmBatchedEx_64(h, o0, o1, p.m, p.n, p.k, pa, A, dt, p.ld[0], B, dt, p.ld[1], pb, C, cdt,
                                               p.ld[2], p.nb, ct, algo),
                        fn);
    } else if (p.nb == 1) {
        if (small)
            ND_BLAS_TRY(cublasGemmEx(h, o0, o1, (int)p.m, (int)p.n, (int)p.k, pa, x[0], dt, (int)p.ld[0], x[1], dt,
                                     (int)p.ld[1], pb, x[2], cdt, (int)p.ld[2], ct, algo),
                        fn);
        else
            ND_BLAS_TRY(cublasGemmEx_64(h, o0, o1, p.m, p.n, p.k, pa, x[0], dt, p.ld[0], x[1], dt, p.ld[1], pb, x[2], cdt,
                                        p.ld[2], ct, algo),
                        fn);
    } else {
        if (small)
            ND_BLAS_TRY(cublasGemmStridedBatchedEx(h, o0, o1, (int)p.m, (int)p.n, (int)p.k, pa, x[0], dt, (int)p.ld[0],
                                                   p.bs[0], x[1], dt, (int)p.ld[1], p.bs[1], pb, x[2], cdt,
                                                   (int)p.ld[2], p.bs[2], (int)p.nb, ct, algo),
                        fn);
        else
            ND_BLAS_TRY(cublasGemmStridedBatchedEx_64(h, o0, o1, p.m, p.n, p.k, pa, x[0], dt, p.ld[0], p.bs[0], x[1],
                                                      dt, p.ld[1], p.bs[1], pb, x[2], cdt, p.ld[2], p.bs[2], p.nb, ct,
                                                      algo),
                        fn);
    }
    return ND_OK;
}

// ------------------------------------------------------------------
// The batch engine
// ------------------------------------------------------------------
// C[b] = alpha * A[b] @ B[b] + beta * C[b], b < nb; base[u] points at
// element (0,0,0) of user operand u (ND_BP_A/B/C), v[u] its strides.
// M, N, K >= 1; float and complex dtypes. Temporaries come from the device pool on
// the current stream and are returned to it right after the launches
// that use them (stream-ordered: no synchronisation).
static nd_status run_gemm(const char *fn, nd_device dev, nd_dtype t, nd_dtype tc, int64_t nb, int64_t M, int64_t N,
                          int64_t K, double alpha, char *const base[3], const nd_bp_view v[3], double beta)
{
    nd_bp_plan p;
    nd_bp_plan_make(&p, nb, M, N, K, v);
    // element sizes per user operand (A, B: t; C: tc, float32 in the mixed case)
    const size_t usz[3] = {nd__itemsize(t), nd__itemsize(t), nd__itemsize(tc)};
    nd_device_guard guard(dev.id);
    void *stream = nd__current_stream(dev);
    cudaStream_t s = nd_stream_of(stream);
    cublasHandle_t h = nullptr;
    nd_status st = blas_handle(fn, dev.id, s, &h);
    if (st != ND_OK) return st;

    void *tmp[3] = {nullptr, nullptr, nullptr}, *use[3] = {nullptr, nullptr, nullptr}, *x[3];
    void **arr = nullptr;
    for (int u = 0; u < 3 && st == ND_OK; u++) {
        const size_t isz = usz[u];
        char *src = base[u] + p.off[u] * (int64_t)isz;
        use[u] = src;
        if (!p.copy[u]) continue;
        const int64_t rows = p.rows[u], cols = p.cols[u], nm = p.copy_nb[u];
        st = nd__cuda_alloc(dev.id, (size_t)(nm * rows * cols) * isz, stream, &tmp[u]);
        if (st != ND_OK) break;
        use[u] = tmp[u];
        if (u == ND_BP_C && beta == 0.0) continue; // C is not read
        const nd_bp_view packed = {rows * cols, cols, 1};
        nd_bp_view sv = v[u];
        if (nm == 1) sv.bs = 0;
        st = copy3(fn, s, isz, tmp[u], packed, src, sv, nm, rows, cols);
    }
    for (int i = 0; i < 3; i++) x[i] = use[nd_bp_user(&p, i)];
    if (st == ND_OK && p.ptr_arrays) {
        st = nd__cuda_alloc(dev.id, (size_t)(3 * p.nb) * sizeof(void *), stream, (void **)&arr);
        if (st == ND_OK) {
            ptr_bases pb;
            for (int i = 0; i < 3; i++)
                pb.base[i] = (char *)x[i], pb.bstride[i] = p.bs[i] * (int64_t)usz[nd_bp_user(&p, i)];
            cudaError_t e = nd_launch(ptr_arrays_kernel, nd_grid_for(p.nb, 256), 256, 0, s, arr, pb, p.nb);
            if (e != cudaSuccess) st = nd_cuda_status(e, fn, "ptr_arrays_kernel");
        }
    }
    if (st == ND_OK) st = gemm_call(fn, h, t, tc, p, x, arr, alpha, beta);
    if (st == ND_OK && p.copy[ND_BP_C]) {
        const size_t isz = usz[ND_BP_C];
        const int64_t rows = p.rows[ND_BP_C], cols = p.cols[ND_BP_C], nm = p.copy_nb[ND_BP_C];
        const nd_bp_view packed = {rows * cols, cols, 1};
        nd_bp_view dv = v[ND_BP_C];
        if (nm == 1) dv.bs = 0;
        st = copy3(fn, s, isz, base[ND_BP_C] + p.off[ND_BP_C] * (int64_t)isz, dv, tmp[ND_BP_C], packed, nm, rows,
                   cols);
    }
    for (int u = 0; u < 3; u++)
        if (tmp[u]) nd__cuda_free(dev.id, tmp[u]);
    if (arr) nd__cuda_free(dev.id, arr);
    return st;
}

static nd_bp_view view_of(const nd_array *x) { return nd_bp_view{x->strides[0], x->strides[1], x->strides[2]}; }

extern "C" nd_status nd__cuda_matmul(nd_array *out, const nd_array *a, const nd_array *b)
{
    const int64_t nb = out->shape[0], M = out->shape[1], N = out->shape[2], K = a->shape[2];
    if (nb == 0 || M == 0 || N == 0) return ND_OK;
    if (K == 0) {
        static const unsigned char zero[16] = {0};
        return nd__cuda_fill(out, zero);
    }
    if (!nd__is_float(out->dtype) && !nd__is_complex(out->dtype)) return nd__cuda_matmul_int(out, a, b);
    char *const base[3] = {nd__ptr(a), nd__ptr(b), nd__ptr(out)};
    const nd_bp_view v[3] = {view_of(a), view_of(b), view_of(out)};
    return run_gemm("nd_matmul", out->device, a->dtype, out->dtype, nb, M, N, K, 1.0, base, v, 0.0);
}

// c = beta * c (K == 0 or alpha == 0: A and B are not read).
static nd_status scale_c(nd_array *c, double beta)
{
    if (beta == 1.0) return ND_OK;
    if (beta == 0.0) {
        static const unsigned char zero[16] = {0};
        return nd__cuda_fill(c, zero); // zeros even where c held NaN (BLAS)
    }
    const int64_t M = c->shape[0], N = c->shape[1], n = M * N;
    const nd_bp_view v = {0, c->strides[0], c->strides[1]};
    nd_device_guard guard(c->device.id);
    cudaStream_t s = nd_stream_of(nd__current_stream(c->device));
    unsigned grid = nd_grid_for(n, 256);
    void *p = nd__ptr(c);
    cudaError_t e;
    switch (c->dtype) {
    case ND_FLOAT16: e = nd_launch(scale_kernel<f16_io>, grid, 256, 0, s, (uint16_t *)p, v, M, N, beta); break;
    case ND_BFLOAT16: e = nd_launch(scale_kernel<bf16_io>, grid, 256, 0, s, (uint16_t *)p, v, M, N, beta); break;
    case ND_FLOAT32: e = nd_launch(scale_kernel<f32_io>, grid, 256, 0, s, (float *)p, v, M, N, beta); break;
    case ND_COMPLEX64: e = nd_launch(scale_cpx_kernel<float>, grid, 256, 0, s, (float *)p, v, M, N, beta); break;
    case ND_COMPLEX128: e = nd_launch(scale_cpx_kernel<double>, grid, 256, 0, s, (double *)p, v, M, N, beta); break;
    default: e = nd_launch(scale_kernel<f64_io>, grid, 256, 0, s, (double *)p, v, M, N, beta); break;
    }
    ND_CUDA_TRY(e, "nd_gemm");
    return ND_OK;
}

extern "C" nd_status nd__cuda_gemm(nd_array *c, bool ta, bool tb, double alpha, const nd_array *a, const nd_array *b,
                                   double beta)
{
    const int64_t M = c->shape[0], N = c->shape[1], K = ta ? a->shape[0] : a->shape[1];
    if (M == 0 || N == 0) return ND_OK;
    if (!nd__is_float(c->dtype) && !nd__is_complex(c->dtype))
        return nd__err(ND_ERR_INTERNAL, "nd_gemm", "gemm on %s", nd_dtype_name(c->dtype));
    if (K == 0 || alpha == 0.0) return scale_c(c, beta); // BLAS: alpha == 0 does not read a and b
    char *const base[3] = {nd__ptr(a), nd__ptr(b), nd__ptr(c)};
    const nd_bp_view v[3] = {
        {0, a->strides[ta ? 1 : 0], a->strides[ta ? 0 : 1]},
        {0, b->strides[tb ? 1 : 0], b->strides[tb ? 0 : 1]},
        {0, c->strides[0], c->strides[1]},
    };
    return run_gemm("nd_gemm", c->device, a->dtype, c->dtype, 1, M, N, K, alpha, base, v, beta);
}

// Every dtype has a matmul (floats and complex through cuBLAS, integers
// and bool through the own kernel); gemm is float and complex only, as on
// the CPU.
extern "C" bool nd__cuda_blas_supports(nd_kernel_kind kind, nd_dtype t)
{
    if (!nd__dtype_valid(t)) return false;
    if (kind == ND_KERNEL_MATMUL) return true;
    if (kind == ND_KERNEL_GEMM) return nd__is_float(t) || nd__is_complex(t);
    return false;
}
