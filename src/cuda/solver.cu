// The CUDA backend's la slot (contract in src/shared/la_slots.h) over cuSOLVER's dense
// API and cuBLAS's batched LU and QR, on the calling thread's current stream.
//
// Handles. One cusolverDn handle per device and per thread, created lazily
// and destroyed at thread exit, bound to the thread's current stream
// (cusolverDnSetStream) before each call: the mechanism of the cuBLAS
// handles (src/cuda/blas.cu), mirrored without the workspace part (cuSOLVER
// takes its workspaces per call). The thread also keeps, per device, the
// 64-bit API's parameter object (Xgeev) and the Jacobi parameter objects
// (gesvdjBatched, syevjBatched, left at their defaults: tolerance machine
// precision, 100 sweeps, sorted results). A handle is rebound to the
// default stream before it is destroyed, so none is destroyed bound to a
// destroyed stream.
//
// Routines, per op (the choices of CuPy and PyTorch):
//   GETRF   a batch of small matrices (batch > 1, n <= 256): cuBLAS's
//           cublas<t>getrfBatched (device pointer arrays, int pivots
//           straight into ipiv, infos into the info array); otherwise
//           <t>getrf per matrix;
//   GESV    (solve, and inv as the solve of a x = I) a batch of small
//           matrices (batch > 1, n <= 256): cublas<t>getrfBatched then
//           cublas<t>getrsBatched (op N), pivots in scratch; otherwise
//           <t>getrf then <t>getrs (op N) per matrix. The crossover is
//           CuPy's (its batched gesv limit, 256; PyTorch takes cuBLAS's
//           batched LU up to 511): cuSOLVER queues a few kernel launches
//           per matrix (inv of 10,000 4x4 was 20,000 calls), while the
//           batched routines run the whole batch in a few launches, small
//           matrices side by side, which lose to cuSOLVER's blocked,
//           device-wide factorisation only once one matrix is big enough
//           to fill the GPU by itself. getrsBatched's
//           info is a host int that reports arguments only; the second half
//           of the info array (getrs's) is set to 0;
//   POTRF   <t>potrf (lower) for one matrix, <t>potrfBatched (lower, a
//           device pointer array) for a batch; then a kernel zeroes the
//           strictly upper triangle (cuSOLVER leaves it as it was);
//   GEQRF   a batch of many small matrices (m <= 256 and batch >=
//           max(2, m / 16), PyTorch's measured rule): cublas<t>geqrfBatched
//           (pointer arrays for a and tau; its info is a host int about the
//           arguments, so the info array is set to 0); otherwise <t>geqrf
//           per matrix;
//   ORGQR   <t>orgqr / <t>ungqr per matrix;
//   GESVD   a batch of small matrices (batch > 1, m, n <= 32):
//           <t>gesvdjBatched (Jacobi; any m, n; U m x m and V, not V^H,
//           n x n, in scratch unless U can go straight to u), then copy
//           kernels: u = the first k columns of U, vt = the first k columns
//           of V, conjugate-transposed. Otherwise <t>gesvd per matrix
//           (QR iteration, NumPy's accuracy), which cuSOLVER has for m >= n
//           only: for m < n it factors A^H = U' S V'^H (a conjugate-
//           transposed copy of a) and gives u = V' = (V'^H)^H and vt = U'^H
//           through the copy kernel;
//   SYEVD   a batch of small matrices (batch > 1, n <= 32):
//           <t>syevjBatched / heevjBatched (Jacobi, ascending); otherwise
//           <t>syevd / heevd per matrix (divide and conquer, as LAPACK);
//   GEEV    cusolverDnXgeev per matrix (the 64-bit API; jobvl N). Real a:
//           W complex (both members of each conjugate pair, cuSOLVER's
//           second format) and VR real in LAPACK's packed form, which a
//           kernel expands into complex columns of u (pair j, j+1:
//           VR(:,j) +- i VR(:,j+1)); complex a: W and VR complex, VR
//           straight into u. Xgeev's host workspace is malloc'd and freed
//           after the stream has been waited for.
// Loops over the matrices of a batch queue one cuSOLVER call per matrix
// on one workspace (stream order keeps them apart). The cuBLAS routines run
// on the thread's cuBLAS handle (src/cuda/blas.cu), bound to the same
// stream; a cuBLAS status other than SUCCESS is ND_ERR_BACKEND (ALLOC_FAILED:
// ND_ERR_NOMEM; NOT_SUPPORTED: ND_ERR_UNSUPPORTED) naming the routine.
//
// Sizes: the legacy API takes int sizes, so m, n, nrhs and k must fit an int
// (ND_ERR_UNSUPPORTED otherwise; a matrix with a 2^31-element column is
// 8 GiB and more). Batched calls go in chunks of at most INT_MAX matrices.
//
// info. Each call writes its devInfo into one device int array (batch
// entries; GESV a second batch for getrs). After the last call, one
// cudaMemcpyAsync of that array on the current stream and one
// cudaStreamSynchronize of that stream (never cudaDeviceSynchronize): the
// one wait of the slot. A negative entry means cuSOLVER refused an
// argument (a bug here): ND_ERR_BACKEND naming the routine. The rest goes
// to call->info for the core.
//
// Workspaces (bufferSize answers, pivots, pointer arrays, SVD/geev scratch)
// come from the device pool on the current stream and are freed stream-
// ordered when the call returns. Errors: a cuSOLVER status other than
// SUCCESS is ND_ERR_BACKEND (ALLOC_FAILED: ND_ERR_NOMEM; NOT_SUPPORTED:
// ND_ERR_UNSUPPORTED) with "cusolverDn<t><routine> failed: <status name>
// (<code>)"; CUDA errors through nd_cuda_status.
#include <cuComplex.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "shared/la_slots.h"

#define ND_SOLVER_MAX_DEVICES 64
// The Jacobi batched routines' limit on m and n.
#define ND_SOLVER_JACOBI_MAX 32
// The largest n (GETRF, GESV) or m (GEQRF) that the cuBLAS batched routines
// take (see the top of the file).
#define ND_SOLVER_BATCHED_MAX 256

namespace {

const char *cusolver_name(cusolverStatus_t r)
{
    switch (r) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_MAPPING_ERROR: return "CUSOLVER_STATUS_MAPPING_ERROR";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case CUSOLVER_STATUS_ZERO_PIVOT: return "CUSOLVER_STATUS_ZERO_PIVOT";
    case CUSOLVER_STATUS_INVALID_LICENSE: return "CUSOLVER_STATUS_INVALID_LICENSE";
    case CUSOLVER_STATUS_INVALID_WORKSPACE: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default: return "an unknown cusolverStatus_t";
    }
}

// "cusolverDn" + the type letter (S, D, C, Z; X for the 64-bit API; 0 for
// none) + the routine.
nd_status solver_status(cusolverStatus_t r, char t, const char *routine)
{
    if (r == CUSOLVER_STATUS_SUCCESS) return ND_OK;
    (void)cudaGetLastError();
    const nd_status code = r == CUSOLVER_STATUS_ALLOC_FAILED    ? ND_ERR_NOMEM
                           : r == CUSOLVER_STATUS_NOT_SUPPORTED ? ND_ERR_UNSUPPORTED
                                                                : ND_ERR_BACKEND;
    const char tl[2] = {t, 0};
    return nd__err(code, "cuSOLVER", "cusolverDn%s%s failed: %s (%d)", tl, routine, cusolver_name(r), (int)r);
}
#define ND_SOLVER_TRY(call, t, routine)                                            \
    do {                                                                           \
        cusolverStatus_t r_ = (call);                                              \
        if (r_ != CUSOLVER_STATUS_SUCCESS) return solver_status(r_, t, routine);   \
    } while (0)

// "cublas" + the type letter + the routine; a nonzero host info (an
// argument cuBLAS refused: a bug here) is ND_ERR_BACKEND too.
nd_status cublas_fail(cublasStatus_t r, int hinfo, char t, const char *routine)
{
    (void)cudaGetLastError();
    const char tl[2] = {t, 0};
    if (r == CUBLAS_STATUS_SUCCESS)
        return nd__err(ND_ERR_BACKEND, "cuBLAS", "cublas%s%s refused argument %d (info %d)", tl, routine, -hinfo,
                       hinfo);
    const nd_status code = r == CUBLAS_STATUS_ALLOC_FAILED    ? ND_ERR_NOMEM
                           : r == CUBLAS_STATUS_NOT_SUPPORTED ? ND_ERR_UNSUPPORTED
                                                              : ND_ERR_BACKEND;
    return nd__err(code, "cuBLAS", "cublas%s%s failed: %s (%d)", tl, routine, cublasGetStatusName(r), (int)r);
}
#define ND_CUBLAS_TRY(call, hinfo, t, routine)                                                \
    do {                                                                                      \
        cublasStatus_t b_ = (call);                                                           \
        if (b_ != CUBLAS_STATUS_SUCCESS || (hinfo) != 0) return cublas_fail(b_, hinfo, t, routine); \
    } while (0)

// ------------------------------------------------------------------
// Handles (per device, per thread; see src/cuda/blas.cu)
// ------------------------------------------------------------------
struct solver_handles {
    cusolverDnHandle_t h[ND_SOLVER_MAX_DEVICES];
    cusolverDnParams_t params[ND_SOLVER_MAX_DEVICES];
    gesvdjInfo_t gesvdj[ND_SOLVER_MAX_DEVICES];
    syevjInfo_t syevj[ND_SOLVER_MAX_DEVICES];
    solver_handles() : h(), params(), gesvdj(), syevj() {}
    ~solver_handles()
    {
        int cur;
        // at process exit the runtime may be gone already: then leak them
        if (cudaGetDevice(&cur) != cudaSuccess) {
            (void)cudaGetLastError();
            return;
        }
        for (int d = 0; d < ND_SOLVER_MAX_DEVICES; d++) {
            if (!h[d]) continue;
            nd_device_guard g(d);
            if (params[d]) (void)cusolverDnDestroyParams(params[d]);
            if (gesvdj[d]) (void)cusolverDnDestroyGesvdjInfo(gesvdj[d]);
            if (syevj[d]) (void)cusolverDnDestroySyevjInfo(syevj[d]);
            (void)cusolverDnSetStream(h[d], nullptr); // never destroyed bound to a destroyed stream
            (void)cusolverDnDestroy(h[d]);
            h[d] = nullptr;
        }
        (void)cudaGetLastError();
    }
};
thread_local solver_handles tl_solver;

// The calling thread's handle for device dev (current), bound to stream s.
nd_status solver_handle(int dev, cudaStream_t s, cusolverDnHandle_t *out)
{
    if (dev < 0 || dev >= ND_SOLVER_MAX_DEVICES)
        return nd__err(ND_ERR_DEVICE, "cuSOLVER", "cuda:%d: at most %d devices have cuSOLVER handles", dev,
                       ND_SOLVER_MAX_DEVICES);
    cusolverDnHandle_t &h = tl_solver.h[dev];
    if (!h) ND_SOLVER_TRY(cusolverDnCreate(&h), 0, "Create");
    ND_SOLVER_TRY(cusolverDnSetStream(h, s), 0, "SetStream");
    *out = h;
    return ND_OK;
}

// ------------------------------------------------------------------
// Scratch from the device pool, freed (stream-ordered) with the object
// ------------------------------------------------------------------
struct scratch {
    int dev;
    void *stream;
    void *p[8];
    int n;
    scratch(int d, void *s) : dev(d), stream(s), p(), n(0) {}
    ~scratch()
    {
        for (int i = 0; i < n; i++) nd__cuda_free(dev, p[i]);
    }
    template <typename X>
    nd_status get(int64_t count, X **out)
    {
        void *q = nullptr;
        nd_status st = nd__cuda_alloc(dev, (size_t)(count > 0 ? count : 1) * sizeof(X), stream, &q);
        if (st) return st;
        p[n++] = q;
        *out = (X *)q;
        return ND_OK;
    }
};

// ------------------------------------------------------------------
// Kernels
// ------------------------------------------------------------------
__device__ inline float cj(float x) { return x; }
__device__ inline double cj(double x) { return x; }
__device__ inline cuComplex cj(cuComplex x)
{
    x.y = -x.y;
    return x;
}
__device__ inline cuDoubleComplex cj(cuDoubleComplex x)
{
    x.y = -x.y;
    return x;
}

// The strictly upper triangle of a batch of n x n column-major matrices := 0.
template <typename E>
__global__ void zero_upper_kernel(E *a, int64_t n, int64_t total)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step) {
        const int64_t r = i % n, c = (i / n) % n;
        if (r < c) a[i] = E{};
    }
}

// dst_b(i, j) = trans ? conj(src_b(j, i)) : src_b(i, j) for i < rows,
// j < cols, b < batch; column-major, leading dimensions ldd / lds, batch
// strides dbs / sbs (elements).
struct mat_copy_geom {
    int64_t rows, cols, batch, ldd, dbs, lds, sbs;
    bool trans;
};
template <typename E>
__global__ void mat_copy_kernel(E *dst, const E *src, mat_copy_geom g)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x, total = g.rows * g.cols * g.batch;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step) {
        const int64_t r = i % g.rows, q = i / g.rows, c = q % g.cols, b = q / g.cols;
        const E *s = src + b * g.sbs;
        dst[b * g.dbs + r + c * g.ldd] = g.trans ? cj(s[c + r * g.lds]) : s[r + c * g.lds];
    }
}

// arr[i] = base + i * stride (bytes)
__global__ void ptr_array_kernel(void **arr, char *base, int64_t stride, int64_t nb)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += step) arr[i] = base + i * stride;
}

// Real geev's packed right eigenvectors (vr, batch of n x n) into complex
// columns (u, same shape): by the eigenvalues w (complex, batch of n), a
// real one is VR(:,j); a pair j (positive imaginary part), j+1 is
// VR(:,j) + i VR(:,j+1) and VR(:,j) - i VR(:,j+1).
template <typename R, typename C>
__global__ void geev_expand_kernel(C *u, const R *vr, const C *w, int64_t n, int64_t total)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += step) {
        const int64_t r = i % n, j = (i / n) % n, b = i / (n * n);
        const R *v = vr + b * n * n;
        const R im = w[b * n + j].y;
        C z;
        if (im > 0 && j + 1 < n) {
            z.x = v[r + j * n];
            z.y = v[r + (j + 1) * n];
        } else if (im < 0 && j > 0) {
            z.x = v[r + (j - 1) * n];
            z.y = -v[r + j * n];
        } else {
            z.x = v[r + j * n];
            z.y = (R)0;
        }
        u[i] = z;
    }
}

template <typename T>
nd_status copy_mat(cudaStream_t s, void *dst, const void *src, const mat_copy_geom &g)
{
    const int64_t total = g.rows * g.cols * g.batch;
    if (total == 0) return ND_OK;
    cudaError_t e = nd_launch(mat_copy_kernel<T>, nd_grid_for(total, 256), 256, 0, s, (T *)dst, (const T *)src, g);
    return nd_cuda_status(e, "cuSOLVER", "the matrix copy kernel (mat_copy_kernel)");
}

// ------------------------------------------------------------------
// cuSOLVER per type
// ------------------------------------------------------------------
template <typename T>
struct sv;

#define ND_SV_COMMON(T_, R_, L, CPLX, QR, EV, DT)                                                                  \
    typedef T_ T;                                                                                                  \
    typedef R_ R;                                                                                                  \
    static constexpr char t = L;                                                                                   \
    static constexpr bool cplx = CPLX;                                                                             \
    static const char *qr_name() { return QR "gqr"; }                                                              \
    static const char *ev_name() { return EV "evd"; }                                                              \
    static const char *evj_name() { return EV "evjBatched"; }                                                      \
    static cudaDataType dt() { return DT; }

#define ND_SV_CALLS(P, Q, E)                                                                                       \
    static cublasStatus_t getrf_batched(cublasHandle_t h, int n, T *const A[], int lda, int *P_, int *info, int nb) \
    {                                                                                                              \
        return cublas##P##getrfBatched(h, n, A, lda, P_, info, nb);                                                \
    }                                                                                                              \
    static cublasStatus_t getrs_batched(cublasHandle_t h, int n, int nrhs, const T *const A[], int lda,            \
                                        const int *ipiv, T *const B[], int ldb, int *info, int nb)                 \
    {                                                                                                              \
        return cublas##P##getrsBatched(h, CUBLAS_OP_N, n, nrhs, A, lda, ipiv, B, ldb, info, nb);                   \
    }                                                                                                              \
    static cublasStatus_t geqrf_batched(cublasHandle_t h, int m, int n, T *const A[], int lda, T *const tau[],     \
                                        int *info, int nb)                                                         \
    {                                                                                                              \
        return cublas##P##geqrfBatched(h, m, n, A, lda, tau, info, nb);                                            \
    }                                                                                                              \
    static cusolverStatus_t getrf_bs(cusolverDnHandle_t h, int m, int n, T *A, int lda, int *lw)                   \
    {                                                                                                              \
        return cusolverDn##P##getrf_bufferSize(h, m, n, A, lda, lw);                                               \
    }                                                                                                              \
    static cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *W, int *ipiv, int *info)   \
    {                                                                                                              \
        return cusolverDn##P##getrf(h, m, n, A, lda, W, ipiv, info);                                               \
    }                                                                                                              \
    static cusolverStatus_t getrs(cusolverDnHandle_t h, int n, int nrhs, const T *A, int lda, const int *ipiv,     \
                                  T *B, int ldb, int *info)                                                        \
    {                                                                                                              \
        return cusolverDn##P##getrs(h, CUBLAS_OP_N, n, nrhs, A, lda, ipiv, B, ldb, info);                          \
    }                                                                                                              \
    static cusolverStatus_t potrf_bs(cusolverDnHandle_t h, int n, T *A, int lda, int *lw)                          \
    {                                                                                                              \
        return cusolverDn##P##potrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, lw);                          \
    }                                                                                                              \
    static cusolverStatus_t potrf(cusolverDnHandle_t h, int n, T *A, int lda, T *W, int lw, int *info)             \
    {                                                                                                              \
        return cusolverDn##P##potrf(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, W, lw, info);                            \
    }                                                                                                              \
    static cusolverStatus_t potrf_batched(cusolverDnHandle_t h, int n, T **arr, int lda, int *info, int nb)       \
    {                                                                                                              \
        return cusolverDn##P##potrfBatched(h, CUBLAS_FILL_MODE_LOWER, n, arr, lda, info, nb);                      \
    }                                                                                                              \
    static cusolverStatus_t geqrf_bs(cusolverDnHandle_t h, int m, int n, T *A, int lda, int *lw)                   \
    {                                                                                                              \
        return cusolverDn##P##geqrf_bufferSize(h, m, n, A, lda, lw);                                               \
    }                                                                                                              \
    static cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *tau, T *W, int lw,         \
                                  int *info)                                                                       \
    {                                                                                                              \
        return cusolverDn##P##geqrf(h, m, n, A, lda, tau, W, lw, info);                                            \
    }                                                                                                              \
    static cusolverStatus_t orgqr_bs(cusolverDnHandle_t h, int m, int n, int k, const T *A, int lda,               \
                                     const T *tau, int *lw)                                                        \
    {                                                                                                              \
        return cusolverDn##P##Q##gqr_bufferSize(h, m, n, k, A, lda, tau, lw);                                      \
    }                                                                                                              \
    static cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T *A, int lda, const T *tau, T *W,    \
                                  int lw, int *info)                                                               \
    {                                                                                                              \
        return cusolverDn##P##Q##gqr(h, m, n, k, A, lda, tau, W, lw, info);                                        \
    }                                                                                                              \
    static cusolverStatus_t gesvd_bs(cusolverDnHandle_t h, int m, int n, int *lw)                                  \
    {                                                                                                              \
        return cusolverDn##P##gesvd_bufferSize(h, m, n, lw);                                                       \
    }                                                                                                              \
    static cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, T *A,        \
                                  int lda, R *S, T *U, int ldu, T *VT, int ldvt, T *W, int lw, R *rwork,           \
                                  int *info)                                                                       \
    {                                                                                                              \
        return cusolverDn##P##gesvd(h, ju, jv, m, n, A, lda, S, U, ldu, VT, ldvt, W, lw, rwork, info);             \
    }                                                                                                              \
    static cusolverStatus_t gesvdj_bs(cusolverDnHandle_t h, cusolverEigMode_t jz, int m, int n, const T *A,        \
                                      int lda, const R *S, const T *U, int ldu, const T *V, int ldv, int *lw,      \
                                      gesvdjInfo_t p, int nb)                                                      \
    {                                                                                                              \
        return cusolverDn##P##gesvdjBatched_bufferSize(h, jz, m, n, A, lda, S, U, ldu, V, ldv, lw, p, nb);         \
    }                                                                                                              \
    static cusolverStatus_t gesvdj(cusolverDnHandle_t h, cusolverEigMode_t jz, int m, int n, T *A, int lda, R *S,  \
                                   T *U, int ldu, T *V, int ldv, T *W, int lw, int *info, gesvdjInfo_t p, int nb)  \
    {                                                                                                              \
        return cusolverDn##P##gesvdjBatched(h, jz, m, n, A, lda, S, U, ldu, V, ldv, W, lw, info, p, nb);           \
    }                                                                                                              \
    static cusolverStatus_t syevd_bs(cusolverDnHandle_t h, cusolverEigMode_t jz, cublasFillMode_t ul, int n,       \
                                     const T *A, int lda, const R *w, int *lw)                                     \
    {                                                                                                              \
        return cusolverDn##P##E##evd_bufferSize(h, jz, ul, n, A, lda, w, lw);                                      \
    }                                                                                                              \
    static cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t jz, cublasFillMode_t ul, int n, T *A,    \
                                  int lda, R *w, T *W, int lw, int *info)                                          \
    {                                                                                                              \
        return cusolverDn##P##E##evd(h, jz, ul, n, A, lda, w, W, lw, info);                                        \
    }                                                                                                              \
    static cusolverStatus_t syevj_bs(cusolverDnHandle_t h, cusolverEigMode_t jz, cublasFillMode_t ul, int n,       \
                                     const T *A, int lda, const R *w, int *lw, syevjInfo_t p, int nb)              \
    {                                                                                                              \
        return cusolverDn##P##E##evjBatched_bufferSize(h, jz, ul, n, A, lda, w, lw, p, nb);                        \
    }                                                                                                              \
    static cusolverStatus_t syevj(cusolverDnHandle_t h, cusolverEigMode_t jz, cublasFillMode_t ul, int n, T *A,    \
                                  int lda, R *w, T *W, int lw, int *info, syevjInfo_t p, int nb)                   \
    {                                                                                                              \
        return cusolverDn##P##E##evjBatched(h, jz, ul, n, A, lda, w, W, lw, info, p, nb);                          \
    }

template <>
struct sv<float> {
    ND_SV_COMMON(float, float, 'S', false, "or", "sy", CUDA_R_32F)
    ND_SV_CALLS(S, or, sy)
};
template <>
struct sv<double> {
    ND_SV_COMMON(double, double, 'D', false, "or", "sy", CUDA_R_64F)
    ND_SV_CALLS(D, or, sy)
};
template <>
struct sv<cuComplex> {
    ND_SV_COMMON(cuComplex, float, 'C', true, "un", "he", CUDA_C_32F)
    ND_SV_CALLS(C, un, he)
};
template <>
struct sv<cuDoubleComplex> {
    ND_SV_COMMON(cuDoubleComplex, double, 'Z', true, "un", "he", CUDA_C_64F)
    ND_SV_CALLS(Z, un, he)
};
#undef ND_SV_COMMON
#undef ND_SV_CALLS

// One slot call in flight.
struct la_ctx {
    int dev;
    void *stream;
    cudaStream_t s;
    cusolverDnHandle_t h;
    int *dinfo;      // device: the info array
    cublasHandle_t hb; // the thread's cuBLAS handle, once asked for (blas_of)
    void *host_ws;   // Xgeev's host workspace (freed after the wait)
};

int64_t imin64(int64_t a, int64_t b) { return a < b ? a : b; }

// The cuBLAS handle of the call, bound to its stream.
nd_status blas_of(la_ctx &x)
{
    if (x.hb) return ND_OK;
    void *h = nullptr;
    nd_status st = nd__cuda_blas_handle("cuBLAS", x.dev, x.stream, &h);
    if (!st) x.hb = (cublasHandle_t)h;
    return st;
}

// A device array of nb pointers base + i * stride (elements), for cuBLAS's
// batched routines.
template <typename T>
nd_status ptr_array(la_ctx &x, scratch &sc, T *base, int64_t stride, int64_t nb, T ***out)
{
    nd_status st = sc.get(nb, out);
    if (st) return st;
    cudaError_t e = nd_launch(ptr_array_kernel, nd_grid_for(nb, 256), 256, 0, x.s, (void **)*out, (char *)base,
                              (int64_t)(stride * (int64_t)sizeof(T)), nb);
    return nd_cuda_status(e, "cuSOLVER", "the pointer array kernel (ptr_array_kernel)");
}

// LU (and the solve) of a batch of small matrices: cuBLAS's batched LU.
template <typename T>
nd_status la_getrf_batched(const nd_la_call *c, la_ctx &x, scratch &sc, bool solve)
{
    typedef sv<T> S;
    const int n = (int)c->n;
    T *A = (T *)nd__ptr(c->a), **Aa;
    int *ipiv;
    nd_status st;
    if ((st = blas_of(x)) || (st = ptr_array(x, sc, A, c->n * c->n, c->batch, &Aa))) return st;
    if (solve) {
        if ((st = sc.get(c->batch * c->n, &ipiv))) return st;
    } else {
        ipiv = (int *)nd__ptr(c->ipiv);
    }
    const int64_t chunk = INT_MAX;
    for (int64_t b0 = 0; b0 < c->batch; b0 += chunk) {
        const int nb = (int)imin64(c->batch - b0, chunk);
        ND_CUBLAS_TRY(S::getrf_batched(x.hb, n, Aa + b0, n, ipiv + b0 * c->n, x.dinfo + b0, nb), 0, S::t,
                      "getrfBatched");
    }
    if (!solve) return ND_OK;
    T **Ba;
    if ((st = ptr_array(x, sc, (T *)nd__ptr(c->b), c->n * c->nrhs, c->batch, &Ba))) return st;
    for (int64_t b0 = 0; b0 < c->batch; b0 += chunk) {
        const int nb = (int)imin64(c->batch - b0, chunk);
        int hinfo = 0;
        ND_CUBLAS_TRY(S::getrs_batched(x.hb, n, (int)c->nrhs, (const T *const *)(Aa + b0), n, ipiv + b0 * c->n,
                                       Ba + b0, n, &hinfo, nb),
                      hinfo, S::t, "getrsBatched");
    }
    cudaError_t e = cudaMemsetAsync(x.dinfo + c->batch, 0, (size_t)c->batch * sizeof(int), x.s);
    return nd_cuda_status(e, "cuSOLVER", "clearing getrs's info entries");
}

template <typename T>
nd_status la_getrf(const nd_la_call *c, la_ctx &x, scratch &sc, bool solve)
{
    typedef sv<T> S;
    if (c->batch > 1 && c->n <= ND_SOLVER_BATCHED_MAX) return la_getrf_batched<T>(c, x, sc, solve);
    const int n = (int)c->n;
    const int64_t nn = c->n * c->n;
    T *A = (T *)nd__ptr(c->a);
    int lw = 0;
    ND_SOLVER_TRY(S::getrf_bs(x.h, n, n, A, n, &lw), S::t, "getrf_bufferSize");
    T *W;
    int *ipiv;
    nd_status st = sc.get(lw, &W);
    if (st) return st;
    if (solve) {
        if ((st = sc.get(c->batch * c->n, &ipiv))) return st;
    } else {
        ipiv = (int *)nd__ptr(c->ipiv);
    }
    for (int64_t i = 0; i < c->batch; i++)
        ND_SOLVER_TRY(S::getrf(x.h, n, n, A + i * nn, n, W, ipiv + i * n, x.dinfo + i), S::t, "getrf");
    if (solve) {
        T *B = (T *)nd__ptr(c->b);
        const int nrhs = (int)c->nrhs;
        for (int64_t i = 0; i < c->batch; i++)
            ND_SOLVER_TRY(S::getrs(x.h, n, nrhs, A + i * nn, n, ipiv + i * n, B + i * c->n * c->nrhs, n,
                                   x.dinfo + c->batch + i),
                          S::t, "getrs");
    }
    return ND_OK;
}

template <typename T>
nd_status la_potrf(const nd_la_call *c, la_ctx &x, scratch &sc)
{
    typedef sv<T> S;
    const int n = (int)c->n;
    const int64_t nn = c->n * c->n;
    T *A = (T *)nd__ptr(c->a);
    nd_status st;
    if (c->batch == 1) {
        int lw = 0;
        ND_SOLVER_TRY(S::potrf_bs(x.h, n, A, n, &lw), S::t, "potrf_bufferSize");
        T *W;
        if ((st = sc.get(lw, &W))) return st;
        ND_SOLVER_TRY(S::potrf(x.h, n, A, n, W, lw, x.dinfo), S::t, "potrf");
    } else {
        T **arr;
        if ((st = sc.get(c->batch, &arr))) return st;
        cudaError_t e = nd_launch(ptr_array_kernel, nd_grid_for(c->batch, 256), 256, 0, x.s, (void **)arr,
                                  (char *)A, (int64_t)(nn * (int64_t)sizeof(T)), c->batch);
        if ((st = nd_cuda_status(e, "cuSOLVER", "the pointer array kernel (ptr_array_kernel)"))) return st;
        for (int64_t b0 = 0; b0 < c->batch; b0 += INT_MAX) {
            const int nb = (int)imin64(c->batch - b0, INT_MAX);
            ND_SOLVER_TRY(S::potrf_batched(x.h, n, arr + b0, n, x.dinfo + b0, nb), S::t, "potrfBatched");
        }
    }
    const int64_t total = c->batch * nn;
    cudaError_t e = nd_launch(zero_upper_kernel<T>, nd_grid_for(total, 256), 256, 0, x.s, A, c->n, total);
    return nd_cuda_status(e, "cuSOLVER", "the upper-triangle kernel (zero_upper_kernel)");
}

template <typename T>
nd_status la_geqrf(const nd_la_call *c, la_ctx &x, scratch &sc)
{
    typedef sv<T> S;
    const int m = (int)c->m, n = (int)c->n;
    const int64_t k = imin64(c->m, c->n);
    T *A = (T *)nd__ptr(c->a), *tau = (T *)nd__ptr(c->tau);
    nd_status st;
    if (c->m <= ND_SOLVER_BATCHED_MAX && c->batch >= (c->m / 16 > 2 ? c->m / 16 : 2)) {
        T **Aa, **Ta;
        if ((st = blas_of(x)) || (st = ptr_array(x, sc, A, c->m * c->n, c->batch, &Aa)) ||
            (st = ptr_array(x, sc, tau, k, c->batch, &Ta)))
            return st;
        for (int64_t b0 = 0; b0 < c->batch; b0 += INT_MAX) {
            const int nb = (int)imin64(c->batch - b0, INT_MAX);
            int hinfo = 0;
            ND_CUBLAS_TRY(S::geqrf_batched(x.hb, m, n, Aa + b0, m, Ta + b0, &hinfo, nb), hinfo, S::t, "geqrfBatched");
        }
        cudaError_t e = cudaMemsetAsync(x.dinfo, 0, (size_t)c->batch * sizeof(int), x.s);
        return nd_cuda_status(e, "cuSOLVER", "clearing the info entries");
    }
    int lw = 0;
    ND_SOLVER_TRY(S::geqrf_bs(x.h, m, n, A, m, &lw), S::t, "geqrf_bufferSize");
    T *W;
    if ((st = sc.get(lw, &W))) return st;
    for (int64_t i = 0; i < c->batch; i++)
        ND_SOLVER_TRY(S::geqrf(x.h, m, n, A + i * c->m * c->n, m, tau + i * k, W, lw, x.dinfo + i), S::t, "geqrf");
    return ND_OK;
}

template <typename T>
nd_status la_orgqr(const nd_la_call *c, la_ctx &x, scratch &sc)
{
    typedef sv<T> S;
    const int m = (int)c->m, n = (int)c->n, k = (int)c->k;
    T *A = (T *)nd__ptr(c->a), *tau = (T *)nd__ptr(c->tau);
    int lw = 0;
    nd_status st = solver_status(S::orgqr_bs(x.h, m, n, k, A, m, tau, &lw), S::t, "orgqr_bufferSize");
    if (st) return st;
    T *W;
    if ((st = sc.get(lw, &W))) return st;
    for (int64_t i = 0; i < c->batch; i++) {
        cusolverStatus_t r = S::orgqr(x.h, m, n, k, A + i * c->m * c->n, m, tau + i * c->k, W, lw, x.dinfo + i);
        if (r != CUSOLVER_STATUS_SUCCESS) return solver_status(r, S::t, S::qr_name());
    }
    return ND_OK;
}

// SVD of a batch of small matrices: gesvdjBatched.
template <typename T>
nd_status la_gesvdj(const nd_la_call *c, la_ctx &x, scratch &sc)
{
    typedef sv<T> S;
    typedef typename S::R R;
    const int m = (int)c->m, n = (int)c->n, k = (int)imin64(c->m, c->n);
    const bool vec = c->job != ND_LA_JOB_N;
    const cusolverEigMode_t jz = vec ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    T *A = (T *)nd__ptr(c->a);
    R *w = (R *)nd__ptr(c->w);
    // U straight into u when u is m x m
    const bool u_direct = vec && (c->job == ND_LA_JOB_A || k == m);
    T *U, *V, *W;
    nd_status st;
    if (u_direct)
        U = (T *)nd__ptr(c->u);
    else if ((st = sc.get(c->batch * c->m * c->m, &U)))
        return st;
    if ((st = sc.get(c->batch * c->n * c->n, &V))) return st;
    gesvdjInfo_t &p = tl_solver.gesvdj[x.dev];
    if (!p) ND_SOLVER_TRY(cusolverDnCreateGesvdjInfo(&p), 0, "CreateGesvdjInfo");
    const int64_t chunk = INT_MAX;
    int lw = 0;
    ND_SOLVER_TRY(S::gesvdj_bs(x.h, jz, m, n, A, m, w, U, m, V, n, &lw, p, (int)imin64(c->batch, chunk)), S::t,
                  "gesvdjBatched_bufferSize");
    if ((st = sc.get(lw, &W))) return st;
    for (int64_t b0 = 0; b0 < c->batch; b0 += chunk) {
        const int nb = (int)imin64(c->batch - b0, chunk);
        ND_SOLVER_TRY(S::gesvdj(x.h, jz, m, n, A + b0 * c->m * c->n, m, w + b0 * k, U + b0 * c->m * c->m, m,
                                V + b0 * c->n * c->n, n, W, lw, x.dinfo + b0, p, nb),
                      S::t, "gesvdjBatched");
    }
    if (!vec) return ND_OK;
    mat_copy_geom g;
    g.batch = c->batch;
    if (!u_direct) { // u = the first k columns of U
        g.rows = m, g.cols = k, g.ldd = m, g.dbs = (int64_t)m * k, g.lds = m, g.sbs = (int64_t)m * m, g.trans = false;
        if ((st = copy_mat<T>(x.s, nd__ptr(c->u), U, g))) return st;
    }
    // vt (rows x n) = the first rows columns of V, conjugate-transposed
    const int64_t rows = c->job == ND_LA_JOB_A ? n : k;
    g.rows = rows, g.cols = n, g.ldd = rows, g.dbs = rows * n, g.lds = n, g.sbs = (int64_t)n * n, g.trans = true;
    return copy_mat<T>(x.s, nd__ptr(c->vt), V, g);
}

// SVD by QR iteration: gesvd, on A (m >= n) or on A^H (m < n).
template <typename T>
nd_status la_gesvd(const nd_la_call *c, la_ctx &x, scratch &sc)
{
    typedef sv<T> S;
    typedef typename S::R R;
    const bool tr = c->m < c->n;
    const int64_t k = imin64(c->m, c->n);
    // the factored matrix: M x N, M >= N
    const int64_t M = tr ? c->n : c->m, N = tr ? c->m : c->n;
    const signed char job = c->job == ND_LA_JOB_A ? 'A' : c->job == ND_LA_JOB_S ? 'S' : 'N';
    T *A = (T *)nd__ptr(c->a), *W, *U = nullptr, *VT = nullptr;
    R *w = (R *)nd__ptr(c->w), *rwork;
    nd_status st;
    mat_copy_geom g;
    g.batch = c->batch;
    if (tr) { // A^H, N x M... i.e. n x m
        T *at;
        if ((st = sc.get(c->batch * M * N, &at))) return st;
        g.rows = M, g.cols = N, g.ldd = M, g.dbs = M * N, g.lds = c->m, g.sbs = c->m * c->n, g.trans = true;
        if ((st = copy_mat<T>(x.s, at, A, g))) return st;
        A = at;
    }
    // U: M x (A: M, S: k); VT: (A: N, S: k) x N, k == N
    const int64_t ucols = job == 'A' ? M : k, vrows = N;
    if (job != 'N') {
        if (tr) {
            if ((st = sc.get(c->batch * M * ucols, &U)) || (st = sc.get(c->batch * vrows * N, &VT))) return st;
        } else {
            U = (T *)nd__ptr(c->u);
            VT = (T *)nd__ptr(c->vt);
        }
    }
    int lw = 0;
    ND_SOLVER_TRY(S::gesvd_bs(x.h, (int)M, (int)N, &lw), S::t, "gesvd_bufferSize");
    if ((st = sc.get(lw, &W)) || (st = sc.get(k, &rwork))) return st;
    for (int64_t i = 0; i < c->batch; i++)
        ND_SOLVER_TRY(S::gesvd(x.h, job, job, (int)M, (int)N, A + i * M * N, (int)M, w + i * k,
                               U ? U + i * M * ucols : nullptr, (int)M, VT ? VT + i * vrows * N : nullptr, (int)N,
                               W, lw, rwork, x.dinfo + i),
                      S::t, "gesvd");
    if (!tr || job == 'N') return ND_OK;
    // A = V' S U'^H: u (m x m here, k == m) = VT'^H; vt (A: n x n, S: m x n) = U'^H
    g.rows = c->m, g.cols = c->m, g.ldd = c->m, g.dbs = c->m * c->m, g.lds = N, g.sbs = vrows * N, g.trans = true;
    if ((st = copy_mat<T>(x.s, nd__ptr(c->u), VT, g))) return st;
    g.rows = ucols, g.cols = c->n, g.ldd = ucols, g.dbs = ucols * c->n, g.lds = M, g.sbs = M * ucols, g.trans = true;
    return copy_mat<T>(x.s, nd__ptr(c->vt), U, g);
}

template <typename T>
nd_status la_syevd(const nd_la_call *c, la_ctx &x, scratch &sc)
{
    typedef sv<T> S;
    typedef typename S::R R;
    const int n = (int)c->n;
    const int64_t nn = c->n * c->n;
    const cusolverEigMode_t jz = c->job == ND_LA_JOB_V ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const cublasFillMode_t ul = c->lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    T *A = (T *)nd__ptr(c->a), *W;
    R *w = (R *)nd__ptr(c->w);
    int lw = 0;
    nd_status st;
    if (c->batch > 1 && c->n <= ND_SOLVER_JACOBI_MAX) {
        syevjInfo_t &p = tl_solver.syevj[x.dev];
        if (!p) ND_SOLVER_TRY(cusolverDnCreateSyevjInfo(&p), 0, "CreateSyevjInfo");
        const int64_t chunk = INT_MAX;
        cusolverStatus_t r = S::syevj_bs(x.h, jz, ul, n, A, n, w, &lw, p, (int)imin64(c->batch, chunk));
        if (r != CUSOLVER_STATUS_SUCCESS) return solver_status(r, S::t, "syevjBatched_bufferSize");
        if ((st = sc.get(lw, &W))) return st;
        for (int64_t b0 = 0; b0 < c->batch; b0 += chunk) {
            const int nb = (int)imin64(c->batch - b0, chunk);
            r = S::syevj(x.h, jz, ul, n, A + b0 * nn, n, w + b0 * c->n, W, lw, x.dinfo + b0, p, nb);
            if (r != CUSOLVER_STATUS_SUCCESS) return solver_status(r, S::t, S::evj_name());
        }
        return ND_OK;
    }
    cusolverStatus_t r = S::syevd_bs(x.h, jz, ul, n, A, n, w, &lw);
    if (r != CUSOLVER_STATUS_SUCCESS) return solver_status(r, S::t, "syevd_bufferSize");
    if ((st = sc.get(lw, &W))) return st;
    for (int64_t i = 0; i < c->batch; i++) {
        r = S::syevd(x.h, jz, ul, n, A + i * nn, n, w + i * c->n, W, lw, x.dinfo + i);
        if (r != CUSOLVER_STATUS_SUCCESS) return solver_status(r, S::t, S::ev_name());
    }
    return ND_OK;
}

template <typename T>
nd_status la_geev(const nd_la_call *c, la_ctx &x, scratch &sc)
{
    typedef sv<T> S;
    typedef typename S::R R;
    const int64_t n = c->n, nn = n * n;
    const bool vec = c->job == ND_LA_JOB_V;
    const cusolverEigMode_t jr = vec ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const cudaDataType ta = S::dt();
    const cudaDataType tw = sv<T>::cplx ? ta : (ta == CUDA_R_32F ? CUDA_C_32F : CUDA_C_64F);
    char *A = nd__ptr(c->a), *w = nd__ptr(c->w);
    const size_t wsz = 2 * sizeof(R);
    T *VR = nullptr;
    nd_status st;
    if (vec) {
        if (S::cplx)
            VR = (T *)nd__ptr(c->u);
        else if ((st = sc.get(c->batch * nn, &VR)))
            return st;
    }
    cusolverDnParams_t &p = tl_solver.params[x.dev];
    if (!p) ND_SOLVER_TRY(cusolverDnCreateParams(&p), 0, "CreateParams");
    size_t dbytes = 0, hbytes = 0;
    ND_SOLVER_TRY(cusolverDnXgeev_bufferSize(x.h, p, CUSOLVER_EIG_MODE_NOVECTOR, jr, n, ta, A, n, tw, w, ta, nullptr,
                                             n, ta, VR, n, ta, &dbytes, &hbytes),
                  'X', "geev_bufferSize");
    char *dws;
    if ((st = sc.get((int64_t)dbytes, &dws))) return st;
    if (hbytes) {
        x.host_ws = nd__malloc(hbytes);
        if (!x.host_ws)
            return nd__err(ND_ERR_NOMEM, "cuSOLVER", "cusolverDnXgeev: cannot allocate %zu bytes of host workspace",
                           hbytes);
    }
    for (int64_t i = 0; i < c->batch; i++) {
        // One host workspace for the batch: a call may still use it while
        // its work is queued, so the next one waits for the stream first.
        if (i > 0 && hbytes) {
            cudaError_t e = cudaStreamSynchronize(x.s);
            if (e != cudaSuccess) return nd_cuda_status(e, "cuSOLVER", "waiting for Xgeev's host workspace");
        }
        ND_SOLVER_TRY(cusolverDnXgeev(x.h, p, CUSOLVER_EIG_MODE_NOVECTOR, jr, n, ta, A + i * nn * sizeof(T), n, tw,
                                      w + i * n * wsz, ta, nullptr, n, ta, VR ? VR + i * nn : nullptr, n, ta, dws,
                                      dbytes, x.host_ws, hbytes, x.dinfo + i),
                      'X', "geev");
    }
    if (!vec || S::cplx) return ND_OK;
    const int64_t total = c->batch * nn;
    cudaError_t e;
    if (ta == CUDA_R_32F)
        e = nd_launch(geev_expand_kernel<float, cuComplex>, nd_grid_for(total, 256), 256, 0, x.s,
                      (cuComplex *)nd__ptr(c->u), (const float *)VR, (const cuComplex *)w, n, total);
    else
        e = nd_launch(geev_expand_kernel<double, cuDoubleComplex>, nd_grid_for(total, 256), 256, 0, x.s,
                      (cuDoubleComplex *)nd__ptr(c->u), (const double *)VR, (const cuDoubleComplex *)w, n, total);
    return nd_cuda_status(e, "cuSOLVER", "the eigenvector kernel (geev_expand_kernel)");
}

template <typename T>
nd_status la_run(const nd_la_call *c, la_ctx &x, scratch &sc)
{
    switch (c->op) {
    case ND_LA_GETRF: return la_getrf<T>(c, x, sc, false);
    case ND_LA_GESV: return la_getrf<T>(c, x, sc, true);
    case ND_LA_POTRF: return la_potrf<T>(c, x, sc);
    case ND_LA_GEQRF: return la_geqrf<T>(c, x, sc);
    case ND_LA_ORGQR: return la_orgqr<T>(c, x, sc);
    case ND_LA_GESVD:
        if (c->batch > 1 && c->m <= ND_SOLVER_JACOBI_MAX && c->n <= ND_SOLVER_JACOBI_MAX) return la_gesvdj<T>(c, x, sc);
        return la_gesvd<T>(c, x, sc);
    case ND_LA_SYEVD: return la_syevd<T>(c, x, sc);
    case ND_LA_GEEV: return la_geev<T>(c, x, sc);
    default: return nd__err(ND_ERR_INTERNAL, "cuSOLVER", "unknown la op %d", c->op);
    }
}

const char *op_routine(int op)
{
    switch (op) {
    case ND_LA_GETRF: return "getrf/getrfBatched";
    case ND_LA_GESV: return "getrf/getrs/getrfBatched";
    case ND_LA_POTRF: return "potrf";
    case ND_LA_GEQRF: return "geqrf";
    case ND_LA_ORGQR: return "orgqr/ungqr";
    case ND_LA_GESVD: return "gesvd/gesvdjBatched";
    case ND_LA_SYEVD: return "syevd/syevjBatched";
    default: return "Xgeev";
    }
}

} // namespace

extern "C" nd_status nd__cuda_la(struct nd_la_call *c)
{
    if (c->m > INT_MAX || c->n > INT_MAX || c->nrhs > INT_MAX || c->k > INT_MAX)
        return nd__err(ND_ERR_UNSUPPORTED, "cuSOLVER",
                       "matrices of %lld x %lld (nrhs %lld) exceed cuSOLVER's 32-bit sizes", (long long)c->m,
                       (long long)c->n, (long long)c->nrhs);
    const nd_dtype dt = c->a->dtype;
    const nd_device dev = c->a->device;
    nd_device_guard guard(dev.id);
    la_ctx x;
    x.dev = dev.id;
    x.stream = nd__current_stream(dev);
    x.s = nd_stream_of(x.stream);
    x.host_ws = nullptr;
    x.hb = nullptr;
    nd_status st = solver_handle(dev.id, x.s, &x.h);
    if (st) return st;
    const int64_t ninfo = c->op == ND_LA_GESV ? 2 * c->batch : c->batch;
    int *hinfo = (int *)nd__malloc((size_t)ninfo * sizeof(int));
    if (!hinfo) return nd__err(ND_ERR_NOMEM, "cuSOLVER", "cannot allocate %lld info entries", (long long)ninfo);
    {
        scratch sc(dev.id, x.stream);
        st = sc.get(ninfo, &x.dinfo);
        if (!st) {
            switch (dt) {
            case ND_FLOAT32: st = la_run<float>(c, x, sc); break;
            case ND_FLOAT64: st = la_run<double>(c, x, sc); break;
            case ND_COMPLEX64: st = la_run<cuComplex>(c, x, sc); break;
            case ND_COMPLEX128: st = la_run<cuDoubleComplex>(c, x, sc); break;
            default: st = nd__err(ND_ERR_INTERNAL, "cuSOLVER", "la: dtype %d", (int)dt); break;
            }
        }
        if (!st) {
            cudaError_t e = cudaMemcpyAsync(hinfo, x.dinfo, (size_t)ninfo * sizeof(int), cudaMemcpyDeviceToHost, x.s);
            if (e == cudaSuccess) e = cudaStreamSynchronize(x.s);
            st = nd_cuda_status(e, "cuSOLVER", "reading back devInfo");
        } else if (x.host_ws) {
            (void)cudaStreamSynchronize(x.s); // queued Xgeev calls may still use the host workspace
            (void)cudaGetLastError();
        }
    } // scratch freed, stream-ordered
    nd__free(x.host_ws);
    for (int64_t i = 0; !st && i < ninfo; i++)
        if (hinfo[i] < 0)
            st = nd__err(ND_ERR_BACKEND, "cuSOLVER", "cusolverDn %s refused argument %d (info %d, matrix %lld)",
                         op_routine(c->op), -hinfo[i], hinfo[i], (long long)(i % c->batch));
    if (!st) memcpy(c->info, hinfo, (size_t)c->batch * sizeof(int32_t));
    nd__free(hinfo);
    return st;
}
