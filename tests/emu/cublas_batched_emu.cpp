// The emulated GPU's batched LU and QR of cuBLAS (tests/emu/cublas_v2.h):
// cublas<t>getrfBatched, cublas<t>getrsBatched and cublas<t>geqrfBatched
// over the Fortran LAPACK routines OpenBLAS exports (getrf, getrs, geqrf),
// for S, D, C and Z. C++17; never part of a library users build.
//
// The point is to execute the library's calls for real, with cuBLAS's
// conventions (cuBLAS documentation, "cuBLAS Extension Functions"):
//  - Aarray, Barray and TauArray are DEVICE arrays of batchSize device
//    pointers; each matrix is column-major with its leading dimension;
//    getrfBatched's and getrsBatched's matrices are n x n;
//  - PivotArray / devIpiv: device, n x batchSize ints, matrix i's LAPACK
//    (1-based) pivots at PivotArray + i * n, "stored in a linear fashion";
//    NULL means no pivoting, which this stand-in does not do
//    (CUBLAS_STATUS_NOT_SUPPORTED; libndgpu always pivots);
//  - getrfBatched's infoArray is DEVICE memory, batchSize ints written when
//    the work runs: 0, or k > 0 when U(k,k) is exactly zero (the
//    factorisation is completed all the same, as LAPACK's);
//  - getrsBatched's and geqrfBatched's info is ONE HOST int written at call
//    time: 0 when the arguments are valid, -j when argument j (1-based, the
//    handle being argument 1) is not; the status is then
//    CUBLAS_STATUS_INVALID_VALUE. getrsBatched does not check for
//    singularity (a zero pivot gives Inf/NaN, as on a GPU).
// Checks, in this order: a NULL or destroyed handle
// (CUBLAS_STATUS_NOT_INITIALIZED); the documented INVALID_VALUE cases
// (getrfBatched: n < 0, lda < max(1, n), batchSize < 0; getrsBatched:
// trans not N/T/C, n < 0, nrhs < 0, lda < max(1, n), ldb < max(1, n),
// batchSize < 0; geqrfBatched: m < 0, n < 0, lda < max(1, m),
// batchSize < 0); a NULL pivot array (NOT_SUPPORTED); then, debugging aids
// (a GPU would fault, asynchronously), the pointer, pivot and info arrays
// must lie in live device memory (INVALID_VALUE). The matrices the pointer
// arrays name are only known when the work runs (the arrays are usually
// filled by a kernel queued just before): one outside device memory is a
// device fault then. The work is queued on the handle's stream and runs in
// stream order, matrix after matrix.
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <functional>

#include "cublas_v2.h"
extern "C" {
#include "cpu/lapack.h"
}

bool nd_emu_cublas_handle(cublasHandle_t h, cudaStream_t *stream); // cublas_emu.cpp
cudaError_t nd_emu_enqueue_task(cudaStream_t s, std::function<void()> task);

namespace {

typedef cublasStatus_t st_t;

int imax(int a, int b) { return a > b ? a : b; }
int imin(int a, int b) { return a < b ? a : b; }
int64_t span(int64_t rows, int64_t cols, int64_t ld) { return rows <= 0 || cols <= 0 ? 0 : (cols - 1) * ld + rows; }
bool dev(const void *p, int64_t n, size_t esz) { return n <= 0 || (p && nd_emu_is_device_range(p, (size_t)n * esz)); }

template <typename T>
struct lb;
#define LB(T_, p)                                                                                                 \
    template <>                                                                                                   \
    struct lb<T_> {                                                                                               \
        typedef T_ T;                                                                                             \
        static void getrf(int n, T *a, int lda, int *ipiv, int *info) { p##getrf_(&n, &n, a, &lda, ipiv, info); } \
        static void getrs(char t, int n, int nrhs, const T *a, int lda, const int *ipiv, T *b, int ldb, int *info) \
        {                                                                                                         \
            p##getrs_(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);                                            \
        }                                                                                                         \
        static void geqrf(int m, int n, T *a, int lda, T *tau, T *work, int lwork, int *info)                     \
        {                                                                                                         \
            p##geqrf_(&m, &n, a, &lda, tau, work, &lwork, info);                                                  \
        }                                                                                                         \
    };
LB(float, s)
LB(double, d)
LB(cuComplex, c)
LB(cuDoubleComplex, z)
#undef LB

double re(float x) { return x; }
double re(double x) { return x; }
double re(cuComplex x) { return x.x; }
double re(cuDoubleComplex x) { return x.x; }

// Queue f on the handle's stream (EXECUTION_FAILED for a dead stream).
st_t queue(cudaStream_t s, std::function<void()> f)
{
    if (!nd_emu_stream_valid(s)) return CUBLAS_STATUS_EXECUTION_FAILED;
    return nd_emu_enqueue_task(s, std::move(f)) == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

// A matrix named by a pointer array, checked when the work runs.
bool mat_ok(const void *p, int64_t elems, size_t esz, const char *what)
{
    if (dev(p, elems, esz)) return true;
    nd_emu_device_fault(what);
    return false;
}

template <typename T>
st_t getrf_batched(cublasHandle_t h, int n, T *const A[], int lda, int *P, int *info, int batch)
{
    cudaStream_t s;
    if (!nd_emu_cublas_handle(h, &s)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < imax(1, n) || batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
    if (!P) return CUBLAS_STATUS_NOT_SUPPORTED;
    if (!dev(A, batch, sizeof(T *)) || !dev(P, (int64_t)n * batch, sizeof(int)) || !dev(info, batch, sizeof(int)))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (batch == 0) return CUBLAS_STATUS_SUCCESS;
    return queue(s, [=]() {
        for (int i = 0; i < batch; i++) {
            if (!mat_ok(A[i], span(n, n, lda), sizeof(T),
                        "cuBLAS stand-in: getrfBatched: a matrix of Aarray lies outside device memory"))
                return;
            int inf = 0;
            if (n > 0) lb<T>::getrf(n, A[i], lda, P + (int64_t)i * n, &inf);
            info[i] = inf;
        }
    });
}

template <typename T>
st_t getrs_batched(cublasHandle_t h, cublasOperation_t trans, int n, int nrhs, const T *const A[], int lda,
                   const int *ipiv, T *const B[], int ldb, int *info, int batch)
{
    cudaStream_t s;
    if (!nd_emu_cublas_handle(h, &s)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!info) return CUBLAS_STATUS_INVALID_VALUE;
    const int bad = trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C ? 2
                    : n < 0                                                          ? 3
                    : nrhs < 0                                                       ? 4
                    : lda < imax(1, n)                                               ? 6
                    : ldb < imax(1, n)                                               ? 9
                    : batch < 0                                                      ? 11
                                                                                     : 0;
    *info = -bad;
    if (bad) return CUBLAS_STATUS_INVALID_VALUE;
    if (!ipiv) return CUBLAS_STATUS_NOT_SUPPORTED;
    if (!dev(A, batch, sizeof(T *)) || !dev(B, batch, sizeof(T *)) || !dev(ipiv, (int64_t)n * batch, sizeof(int)))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (batch == 0 || n == 0 || nrhs == 0) return CUBLAS_STATUS_SUCCESS;
    const char t = trans == CUBLAS_OP_N ? 'N' : trans == CUBLAS_OP_T ? 'T' : 'C';
    return queue(s, [=]() {
        for (int i = 0; i < batch; i++) {
            if (!mat_ok(A[i], span(n, n, lda), sizeof(T),
                        "cuBLAS stand-in: getrsBatched: a matrix of Aarray lies outside device memory") ||
                !mat_ok(B[i], span(n, nrhs, ldb), sizeof(T),
                        "cuBLAS stand-in: getrsBatched: a matrix of Barray lies outside device memory"))
                return;
            int inf = 0;
            lb<T>::getrs(t, n, nrhs, A[i], lda, ipiv + (int64_t)i * n, B[i], ldb, &inf);
        }
    });
}

template <typename T>
st_t geqrf_batched(cublasHandle_t h, int m, int n, T *const A[], int lda, T *const Tau[], int *info, int batch)
{
    cudaStream_t s;
    if (!nd_emu_cublas_handle(h, &s)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!info) return CUBLAS_STATUS_INVALID_VALUE;
    const int bad = m < 0 ? 2 : n < 0 ? 3 : lda < imax(1, m) ? 5 : batch < 0 ? 8 : 0;
    *info = -bad;
    if (bad) return CUBLAS_STATUS_INVALID_VALUE;
    if (!dev(A, batch, sizeof(T *)) || !dev(Tau, batch, sizeof(T *))) return CUBLAS_STATUS_INVALID_VALUE;
    if (batch == 0 || m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    const int k = imin(m, n);
    return queue(s, [=]() {
        T q{};
        int inf = 0;
        lb<T>::geqrf(m, n, nullptr, lda, nullptr, &q, -1, &inf);
        const double lw = re(q);
        const int lwork = lw < 1 ? 1 : lw > INT_MAX ? INT_MAX : (int)lw;
        T *work = (T *)std::calloc((size_t)lwork, sizeof(T));
        if (!work) {
            nd_emu_device_fault("cuBLAS stand-in: geqrfBatched: out of host memory for LAPACK's workspace");
            return;
        }
        for (int i = 0; i < batch; i++) {
            if (!mat_ok(A[i], span(m, n, lda), sizeof(T),
                        "cuBLAS stand-in: geqrfBatched: a matrix of Aarray lies outside device memory") ||
                !mat_ok(Tau[i], k, sizeof(T),
                        "cuBLAS stand-in: geqrfBatched: a vector of TauArray lies outside device memory"))
                break;
            lb<T>::geqrf(m, n, A[i], lda, Tau[i], work, lwork, &inf);
        }
        std::free(work);
    });
}

} // namespace

extern "C" {
#define ND__CUBLAS_BATCHED(P, T)                                                                                   \
    cublasStatus_t cublas##P##getrfBatched(cublasHandle_t handle, int n, T *const A[], int lda, int *P_,           \
                                           int *info, int batchSize)                                               \
    {                                                                                                              \
        return getrf_batched<T>(handle, n, A, lda, P_, info, batchSize);                                           \
    }                                                                                                              \
    cublasStatus_t cublas##P##getrsBatched(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs,        \
                                           const T *const Aarray[], int lda, const int *devIpiv,                   \
                                           T *const Barray[], int ldb, int *info, int batchSize)                   \
    {                                                                                                              \
        return getrs_batched<T>(handle, trans, n, nrhs, Aarray, lda, devIpiv, Barray, ldb, info, batchSize);       \
    }                                                                                                              \
    cublasStatus_t cublas##P##geqrfBatched(cublasHandle_t handle, int m, int n, T *const Aarray[], int lda,        \
                                           T *const TauArray[], int *info, int batchSize)                          \
    {                                                                                                              \
        return geqrf_batched<T>(handle, m, n, Aarray, lda, TauArray, info, batchSize);                             \
    }
ND__CUBLAS_BATCHED(S, float)
ND__CUBLAS_BATCHED(D, double)
ND__CUBLAS_BATCHED(C, cuComplex)
ND__CUBLAS_BATCHED(Z, cuDoubleComplex)
#undef ND__CUBLAS_BATCHED
} // extern "C"
