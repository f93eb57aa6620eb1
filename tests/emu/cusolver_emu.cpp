// The emulated GPU's cuSOLVER (tests/emu/cusolverDn.h) over the Fortran
// LAPACK routines OpenBLAS exports (prototypes: src/cpu/lapack.h, shared
// with the CPU backend). C++17; never part of a library users build.
//
// The point is to execute the library's cuSOLVER calls for real: matrices,
// leading dimensions, jobs, batch layouts and output formats are passed to
// LAPACK as cuSOLVER defines them, so a wrong mapping gives wrong numbers
// here as it would on a GPU. Device memory is host memory, so LAPACK reads
// and writes the operands in place.
//
// Execution. Every compute call checks its arguments, then queues a closure
// on the handle's stream (nd_emu_enqueue): it runs asynchronously and in
// stream order, like the kernels cuSOLVER launches, and writes devInfo and
// the outputs only then. Batched calls run their matrices one after the
// other in one closure.
//
// Workspaces. The _bufferSize functions answer LAPACK's workspace query
// (lwork = -1) where the LAPACK routine has a work array (geqrf, orgqr /
// ungqr, gesvd, syevd / heevd, geev), and a size of their own otherwise
// (getrf, potrf: 32 elements per column). The closure runs LAPACK ON the
// caller's workspace (so a workspace shared with an operand, or freed
// before the work ran, shows under ASan or as wrong numbers); a workspace
// LAPACK does not use is overwritten with 0xff bytes. LAPACK's integer and
// real side arrays (syevd's iwork, the complex rwork) are allocated by the
// closure itself (a failure there is a device fault). Xgeev's host
// workspace is overwritten (0xa5) when the work runs: a caller that frees
// it before waiting for the stream shows under ASan; one that hands it to
// a second call while an earlier call that uses it is still queued is a
// device fault (the two would share it on a GPU).
//
// Checks, in this order (the first failing one is returned):
//  1. NULL or destroyed handle (or params / Jacobi info object):
//     CUSOLVER_STATUS_NOT_INITIALIZED (params: INVALID_VALUE);
//  2. CUSOLVER_STATUS_INVALID_VALUE as documented: negative sizes, leading
//     dimensions below max(1, rows), unknown jobs / fill modes / trans,
//     NULL size pointers, gesvd with m < n or jobu = jobvt = 'O',
//     gesvdjBatched with m or n > 32, syevjBatched with n > 32, orgqr
//     without m >= n >= k, batchSize < 0;
//  3. CUSOLVER_STATUS_NOT_SUPPORTED: Xgeev type combinations other than
//     cuSOLVER's (A real: W complex or real (2n entries), VL, VR and the
//     compute type A's type; A complex: everything A's type), and, limits of
//     the stand-in only, Xgeev with left eigenvectors and getrf without
//     pivoting (devIpiv NULL), which libndgpu never asks for;
//  4. debugging aids (a GPU would fault, asynchronously): every operand,
//     workspace, devInfo and pointer array must lie in one live device
//     allocation, and a workspace must hold at least what _bufferSize
//     answers: CUSOLVER_STATUS_INVALID_VALUE. potrfBatched's matrices are
//     only known when the work runs (the pointer array is usually filled by
//     a kernel queued just before): one outside device memory is a device
//     fault then;
//  5. destroyed stream (or one the runtime refuses):
//     CUSOLVER_STATUS_EXECUTION_FAILED.
//
// Semantics emulated beyond LAPACK's own:
//  - devInfo: LAPACK's info per matrix (getrf: U(i,i) == 0 -> i; potrf: the
//    order of the leading minor that is not positive definite; gesvd, syevd,
//    geev, the Jacobi routines: > 0 did not converge);
//  - potrf / potrfBatched leave the other triangle as it was (the caller
//    zeroes it if it wants);
//  - gesvdjBatched returns U (m x m) and V (n x n, NOT V^H), singular values
//    descending (the default sort); syevjBatched eigenvalues ascending;
//  - Xgeev with real A: W complex (each conjugate pair both ways, positive
//    imaginary part first) or, W real, 2n entries (real parts then
//    imaginary parts); VR real in LAPACK's packed form (a pair j, j+1 is
//    VR(:,j) +- i VR(:,j+1)); eigenvectors of unit 2-norm with largest
//    component real (LAPACK's normalisation, which cuSOLVER documents).
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <new>

#include "cusolverDn.h"
extern "C" {
#include "cpu/lapack.h"
}

namespace {
constexpr uint32_t handle_magic = 0x63736c76u; // "cslv"
constexpr uint32_t params_magic = 0x63737072u;
constexpr uint32_t jacobi_magic = 0x63736a69u;
} // namespace

struct cusolverDnContext {
    uint32_t magic;
    cudaStream_t stream;
};
struct cusolverDnParams {
    uint32_t magic;
};
struct syevjInfo {
    uint32_t magic;
};
struct gesvdjInfo {
    uint32_t magic;
};

namespace {

typedef cusolverStatus_t st_t;
#define TRY(x)                                            \
    do {                                                  \
        st_t s_ = (x);                                    \
        if (s_ != CUSOLVER_STATUS_SUCCESS) return s_;     \
    } while (0)

bool handle_ok(cusolverDnHandle_t h) { return h && h->magic == handle_magic; }
st_t check(bool ok) { return ok ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE; }
int imax(int a, int b) { return a > b ? a : b; }
int imin(int a, int b) { return a < b ? a : b; }

// Elements of a column-major rows x cols operand with leading dimension ld.
int64_t span(int64_t rows, int64_t cols, int64_t ld) { return rows <= 0 || cols <= 0 ? 0 : (cols - 1) * ld + rows; }

// p holds n elements of size esz in device memory (nothing to hold: fine).
bool dev(const void *p, int64_t n, size_t esz)
{
    if (n <= 0) return true;
    return p && nd_emu_is_device_range(p, (size_t)n * esz);
}

void run_fn(void *arg)
{
    std::function<void()> *f = (std::function<void()> *)arg;
    (*f)();
    delete f;
}

// Queue f on the handle's stream.
st_t queue(cusolverDnHandle_t h, std::function<void()> f)
{
    if (!nd_emu_stream_valid(h->stream)) return CUSOLVER_STATUS_EXECUTION_FAILED;
    std::function<void()> *p = new (std::nothrow) std::function<void()>(std::move(f));
    if (!p) return CUSOLVER_STATUS_ALLOC_FAILED;
    if (nd_emu_enqueue(h->stream, run_fn, p) != cudaSuccess) {
        delete p;
        return CUSOLVER_STATUS_EXECUTION_FAILED;
    }
    return CUSOLVER_STATUS_SUCCESS;
}

// Xgeev host workspaces of calls queued and not yet run.
std::mutex &g_host_ws_mu = *new std::mutex;
std::map<const void *, int> &g_host_ws = *new std::map<const void *, int>;
bool host_ws_claim(const void *p)
{
    std::lock_guard<std::mutex> lk(g_host_ws_mu);
    int &k = g_host_ws[p];
    if (k > 0) return false;
    k = 1;
    return true;
}
void host_ws_release(const void *p)
{
    std::lock_guard<std::mutex> lk(g_host_ws_mu);
    g_host_ws.erase(p);
}

// Host side arrays for LAPACK inside a closure (a failure: device fault).
template <typename X>
X *side(int64_t n)
{
    X *p = (X *)std::calloc((size_t)(n > 0 ? n : 1), sizeof(X));
    if (!p) nd_emu_device_fault("cuSOLVER stand-in: out of host memory for LAPACK's side arrays");
    return p;
}

char fill_char(cublasFillMode_t u) { return u == CUBLAS_FILL_MODE_LOWER ? 'L' : 'U'; }
bool fill_ok(cublasFillMode_t u) { return u == CUBLAS_FILL_MODE_LOWER || u == CUBLAS_FILL_MODE_UPPER; }
bool eig_ok(cusolverEigMode_t j) { return j == CUSOLVER_EIG_MODE_NOVECTOR || j == CUSOLVER_EIG_MODE_VECTOR; }
char eig_char(cusolverEigMode_t j) { return j == CUSOLVER_EIG_MODE_VECTOR ? 'V' : 'N'; }

// ------------------------------------------------------------------
// LAPACK per type
// ------------------------------------------------------------------
template <typename T>
struct lap;

#define LAP_COMMON(T_, R_, CPLX, p)                                                                               \
    typedef T_ T;                                                                                                 \
    typedef R_ R;                                                                                                 \
    static constexpr bool cplx = CPLX;                                                                            \
    static void getrf(int m, int n, T *a, int lda, int *ipiv, int *info) { p##getrf_(&m, &n, a, &lda, ipiv, info); } \
    static void getrs(char t, int n, int nrhs, const T *a, int lda, const int *ipiv, T *b, int ldb, int *info)    \
    {                                                                                                             \
        p##getrs_(&t, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);                                                \
    }                                                                                                             \
    static void potrf(char uplo, int n, T *a, int lda, int *info) { p##potrf_(&uplo, &n, a, &lda, info, 1); }     \
    static void geqrf(int m, int n, T *a, int lda, T *tau, T *work, int lwork, int *info)                         \
    {                                                                                                             \
        p##geqrf_(&m, &n, a, &lda, tau, work, &lwork, info);                                                      \
    }

template <>
struct lap<float> {
    LAP_COMMON(float, float, false, s)
    static void orgqr(int m, int n, int k, T *a, int lda, const T *tau, T *work, int lwork, int *info)
    {
        sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
    }
    static void gesvd(char ju, char jv, int m, int n, T *a, int lda, R *s, T *u, int ldu, T *vt, int ldvt, T *work,
                      int lwork, R *, int *info)
    {
        sgesvd_(&ju, &jv, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, info, 1, 1);
    }
    static void syevd(char jz, char ul, int n, T *a, int lda, R *w, T *work, int lwork, R *, int, int *iwork,
                      int liwork, int *info)
    {
        ssyevd_(&jz, &ul, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
    }
    static void geev(char jr, int n, T *a, int lda, R *wr, R *wi, T *vr, int ldvr, T *work, int lwork, int *info)
    {
        const char jl = 'N';
        const int one = 1;
        sgeev_(&jl, &jr, &n, a, &lda, wr, wi, nullptr, &one, vr, &ldvr, work, &lwork, info, 1, 1);
    }
};
template <>
struct lap<double> {
    LAP_COMMON(double, double, false, d)
    static void orgqr(int m, int n, int k, T *a, int lda, const T *tau, T *work, int lwork, int *info)
    {
        dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
    }
    static void gesvd(char ju, char jv, int m, int n, T *a, int lda, R *s, T *u, int ldu, T *vt, int ldvt, T *work,
                      int lwork, R *, int *info)
    {
        dgesvd_(&ju, &jv, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, info, 1, 1);
    }
    static void syevd(char jz, char ul, int n, T *a, int lda, R *w, T *work, int lwork, R *, int, int *iwork,
                      int liwork, int *info)
    {
        dsyevd_(&jz, &ul, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
    }
    static void geev(char jr, int n, T *a, int lda, R *wr, R *wi, T *vr, int ldvr, T *work, int lwork, int *info)
    {
        const char jl = 'N';
        const int one = 1;
        dgeev_(&jl, &jr, &n, a, &lda, wr, wi, nullptr, &one, vr, &ldvr, work, &lwork, info, 1, 1);
    }
};
template <>
struct lap<cuComplex> {
    LAP_COMMON(cuComplex, float, true, c)
    static void orgqr(int m, int n, int k, T *a, int lda, const T *tau, T *work, int lwork, int *info)
    {
        cungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
    }
    static void gesvd(char ju, char jv, int m, int n, T *a, int lda, R *s, T *u, int ldu, T *vt, int ldvt, T *work,
                      int lwork, R *rwork, int *info)
    {
        cgesvd_(&ju, &jv, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, info, 1, 1);
    }
    static void syevd(char jz, char ul, int n, T *a, int lda, R *w, T *work, int lwork, R *rwork, int lrwork,
                      int *iwork, int liwork, int *info)
    {
        cheevd_(&jz, &ul, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
    }
    static void geevc(char jr, int n, T *a, int lda, T *w, T *vr, int ldvr, T *work, int lwork, R *rwork, int *info)
    {
        const char jl = 'N';
        const int one = 1;
        cgeev_(&jl, &jr, &n, a, &lda, w, nullptr, &one, vr, &ldvr, work, &lwork, rwork, info, 1, 1);
    }
};
template <>
struct lap<cuDoubleComplex> {
    LAP_COMMON(cuDoubleComplex, double, true, z)
    static void orgqr(int m, int n, int k, T *a, int lda, const T *tau, T *work, int lwork, int *info)
    {
        zungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
    }
    static void gesvd(char ju, char jv, int m, int n, T *a, int lda, R *s, T *u, int ldu, T *vt, int ldvt, T *work,
                      int lwork, R *rwork, int *info)
    {
        zgesvd_(&ju, &jv, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, info, 1, 1);
    }
    static void syevd(char jz, char ul, int n, T *a, int lda, R *w, T *work, int lwork, R *rwork, int lrwork,
                      int *iwork, int liwork, int *info)
    {
        zheevd_(&jz, &ul, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
    }
    static void geevc(char jr, int n, T *a, int lda, T *w, T *vr, int ldvr, T *work, int lwork, R *rwork, int *info)
    {
        const char jl = 'N';
        const int one = 1;
        zgeev_(&jl, &jr, &n, a, &lda, w, nullptr, &one, vr, &ldvr, work, &lwork, rwork, info, 1, 1);
    }
};
#undef LAP_COMMON

// The real part of a work array's first element (LAPACK's size answer).
template <typename T>
int work_size(const T &w)
{
    double v;
    if constexpr (lap<T>::cplx)
        v = (double)w.x;
    else
        v = (double)w;
    return v < 1 ? 1 : v > INT_MAX ? INT_MAX : (int)v;
}

// Our own sizes for routines whose LAPACK twin has no work array.
int own_ws(int m, int n) { return imax(1, 32 * imax(m, n)); }

template <typename T>
int geqrf_ws(int m, int n)
{
    T w{};
    int info = 0, lda = imax(1, m);
    lap<T>::geqrf(m, n, nullptr, lda, nullptr, &w, -1, &info);
    return work_size(w);
}
template <typename T>
int orgqr_ws(int m, int n, int k)
{
    T w{};
    int info = 0, lda = imax(1, m);
    lap<T>::orgqr(m, n, k, nullptr, lda, nullptr, &w, -1, &info);
    return work_size(w);
}
// gesvd's answer does not depend on the jobs (cuSOLVER's bufferSize takes
// none): LAPACK's for jobu = jobvt = 'A', never below its minimum for any job.
template <typename T>
int gesvd_ws(int m, int n)
{
    T w{};
    int info = 0, lda = imax(1, m);
    lap<T>::gesvd('A', 'A', m, n, nullptr, lda, nullptr, nullptr, imax(1, m), nullptr, imax(1, n), &w, -1, nullptr,
                  &info);
    return work_size(w);
}
struct syevd_sizes {
    int lwork, lrwork, liwork;
};
template <typename T>
syevd_sizes syevd_ws(char jz, int n)
{
    T w{};
    typename lap<T>::R rw = 0;
    int iw = 0, info = 0, lda = imax(1, n);
    lap<T>::syevd(jz, 'L', n, nullptr, lda, nullptr, &w, -1, &rw, -1, &iw, -1, &info);
    syevd_sizes s;
    s.lwork = work_size(w);
    s.lrwork = rw < 1 ? 1 : (int)rw;
    s.liwork = iw < 1 ? 1 : iw;
    return s;
}

void scribble(void *p, int64_t n, size_t esz, int byte)
{
    if (p && n > 0) memset(p, byte, (size_t)n * esz);
}

// ------------------------------------------------------------------
// The operations
// ------------------------------------------------------------------
template <typename T>
st_t getrf_bs(cusolverDnHandle_t h, int m, int n, int lda, int *Lwork)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(m >= 0 && n >= 0 && lda >= imax(1, m) && Lwork));
    *Lwork = own_ws(m, n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
st_t getrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *W, int *ipiv, int *info)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(m >= 0 && n >= 0 && lda >= imax(1, m)));
    if (!ipiv) return CUSOLVER_STATUS_NOT_SUPPORTED;
    const int ws = own_ws(m, n);
    TRY(check(dev(A, span(m, n, lda), sizeof(T)) && dev(W, ws, sizeof(T)) && dev(ipiv, imin(m, n), sizeof(int)) &&
              dev(info, 1, sizeof(int))));
    return queue(h, [=]() {
        scribble(W, ws, sizeof(T), 0xff);
        int inf = 0;
        if (m > 0 && n > 0) lap<T>::getrf(m, n, A, lda, ipiv, &inf);
        *info = inf;
    });
}

template <typename T>
st_t getrs(cusolverDnHandle_t h, cublasOperation_t trans, int n, int nrhs, const T *A, int lda, const int *ipiv,
           T *B, int ldb, int *info)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(n >= 0 && nrhs >= 0 && lda >= imax(1, n) && ldb >= imax(1, n) &&
              (trans == CUBLAS_OP_N || trans == CUBLAS_OP_T || trans == CUBLAS_OP_C)));
    TRY(check(dev(A, span(n, n, lda), sizeof(T)) && dev(ipiv, n, sizeof(int)) && dev(B, span(n, nrhs, ldb), sizeof(T)) &&
              dev(info, 1, sizeof(int))));
    const char t = trans == CUBLAS_OP_N ? 'N' : trans == CUBLAS_OP_T ? 'T' : 'C';
    return queue(h, [=]() {
        int inf = 0;
        if (n > 0 && nrhs > 0) lap<T>::getrs(t, n, nrhs, A, lda, ipiv, B, ldb, &inf);
        *info = inf;
    });
}

template <typename T>
st_t potrf_bs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int lda, int *Lwork)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(fill_ok(uplo) && n >= 0 && lda >= imax(1, n) && Lwork));
    *Lwork = own_ws(n, n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
st_t potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A, int lda, T *W, int Lwork, int *info)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(fill_ok(uplo) && n >= 0 && lda >= imax(1, n)));
    TRY(check(Lwork >= own_ws(n, n) && dev(A, span(n, n, lda), sizeof(T)) && dev(W, Lwork, sizeof(T)) &&
              dev(info, 1, sizeof(int))));
    const char ul = fill_char(uplo);
    return queue(h, [=]() {
        scribble(W, Lwork, sizeof(T), 0xff);
        int inf = 0;
        if (n > 0) lap<T>::potrf(ul, n, A, lda, &inf);
        *info = inf;
    });
}

template <typename T>
st_t potrf_batched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *Aarray[], int lda, int *info, int batch)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(fill_ok(uplo) && n >= 0 && lda >= imax(1, n) && batch >= 0));
    TRY(check(dev(Aarray, batch, sizeof(T *)) && dev(info, batch, sizeof(int))));
    if (batch == 0) return CUSOLVER_STATUS_SUCCESS;
    const char ul = fill_char(uplo);
    return queue(h, [=]() {
        for (int i = 0; i < batch; i++) {
            T *a = Aarray[i];
            if (!dev(a, span(n, n, lda), sizeof(T))) {
                nd_emu_device_fault("cuSOLVER stand-in: potrfBatched: a matrix of the pointer array lies outside "
                                    "device memory");
                return;
            }
            int inf = 0;
            if (n > 0) lap<T>::potrf(ul, n, a, lda, &inf);
            info[i] = inf;
        }
    });
}

template <typename T>
st_t geqrf_bs(cusolverDnHandle_t h, int m, int n, int lda, int *lwork)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(m >= 0 && n >= 0 && lda >= imax(1, m) && lwork));
    *lwork = geqrf_ws<T>(m, n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
st_t geqrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *tau, T *W, int Lwork, int *info)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(m >= 0 && n >= 0 && lda >= imax(1, m)));
    TRY(check(Lwork >= geqrf_ws<T>(m, n) && dev(A, span(m, n, lda), sizeof(T)) && dev(tau, imin(m, n), sizeof(T)) &&
              dev(W, Lwork, sizeof(T)) && dev(info, 1, sizeof(int))));
    return queue(h, [=]() {
        int inf = 0;
        if (m > 0 && n > 0) lap<T>::geqrf(m, n, A, lda, tau, W, Lwork, &inf);
        *info = inf;
    });
}

template <typename T>
st_t orgqr_bs(cusolverDnHandle_t h, int m, int n, int k, int lda, int *lwork)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(m >= n && n >= k && k >= 0 && lda >= imax(1, m) && lwork));
    *lwork = orgqr_ws<T>(m, n, k);
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
st_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T *A, int lda, const T *tau, T *W, int lwork, int *info)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(m >= n && n >= k && k >= 0 && lda >= imax(1, m)));
    TRY(check(lwork >= orgqr_ws<T>(m, n, k) && dev(A, span(m, n, lda), sizeof(T)) && dev(tau, k, sizeof(T)) &&
              dev(W, lwork, sizeof(T)) && dev(info, 1, sizeof(int))));
    return queue(h, [=]() {
        int inf = 0;
        if (n > 0) lap<T>::orgqr(m, n, k, A, lda, tau, W, lwork, &inf);
        *info = inf;
    });
}

template <typename T>
st_t gesvd_bs(cusolverDnHandle_t h, int m, int n, int *lwork)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(m >= n && n >= 0 && lwork));
    *lwork = gesvd_ws<T>(m, n);
    return CUSOLVER_STATUS_SUCCESS;
}

bool svd_job_ok(signed char j) { return j == 'A' || j == 'S' || j == 'O' || j == 'N'; }

template <typename T>
st_t gesvd(cusolverDnHandle_t h, signed char jobu, signed char jobvt, int m, int n, T *A, int lda,
           typename lap<T>::R *S, T *U, int ldu, T *VT, int ldvt, T *work, int lwork, typename lap<T>::R *rwork,
           int *info)
{
    typedef typename lap<T>::R R;
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    const int k = imin(m, n);
    TRY(check(svd_job_ok(jobu) && svd_job_ok(jobvt) && !(jobu == 'O' && jobvt == 'O') && m >= n && n >= 0 &&
              lda >= imax(1, m)));
    const bool wu = jobu == 'A' || jobu == 'S', wv = jobvt == 'A' || jobvt == 'S';
    TRY(check((!wu || ldu >= imax(1, m)) && (!wv || ldvt >= imax(1, jobvt == 'A' ? n : k))));
    TRY(check(lwork >= gesvd_ws<T>(m, n) && dev(A, span(m, n, lda), sizeof(T)) && dev(S, k, sizeof(R)) &&
              (!wu || dev(U, span(m, jobu == 'A' ? m : k, ldu), sizeof(T))) &&
              (!wv || dev(VT, span(jobvt == 'A' ? n : k, n, ldvt), sizeof(T))) && dev(work, lwork, sizeof(T)) &&
              (!rwork || dev(rwork, k - 1, sizeof(R))) && dev(info, 1, sizeof(int))));
    const char ju = (char)jobu, jv = (char)jobvt;
    return queue(h, [=]() {
        int inf = 0;
        if (m > 0 && n > 0) {
            R *rw = lap<T>::cplx ? side<R>(5 * (int64_t)k) : nullptr;
            if (lap<T>::cplx && !rw) return;
            T dummy{};
            lap<T>::gesvd(ju, jv, m, n, A, lda, S, wu ? U : &dummy, wu ? ldu : 1, wv ? VT : &dummy, wv ? ldvt : 1,
                          work, lwork, rw, &inf);
            std::free(rw);
        }
        *info = inf;
    });
}

template <typename T>
st_t gesvdj_batched_bs(cusolverDnHandle_t h, cusolverEigMode_t jobz, int m, int n, int lda, int ldu, int ldv,
                       int *lwork, gesvdjInfo_t params, int batch)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(params && params->magic == jacobi_magic));
    TRY(check(eig_ok(jobz) && m >= 0 && n >= 0 && m <= 32 && n <= 32 && lda >= imax(1, m) && ldu >= imax(1, m) &&
              ldv >= imax(1, n) && batch >= 0 && lwork));
    *lwork = gesvd_ws<T>(m, n);
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
st_t gesvdj_batched(cusolverDnHandle_t h, cusolverEigMode_t jobz, int m, int n, T *A, int lda,
                    typename lap<T>::R *S, T *U, int ldu, T *V, int ldv, T *work, int lwork, int *info,
                    gesvdjInfo_t params, int batch)
{
    typedef typename lap<T>::R R;
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(params && params->magic == jacobi_magic));
    TRY(check(eig_ok(jobz) && m >= 0 && n >= 0 && m <= 32 && n <= 32 && lda >= imax(1, m) && ldu >= imax(1, m) &&
              ldv >= imax(1, n) && batch >= 0));
    const int k = imin(m, n);
    const bool vec = jobz == CUSOLVER_EIG_MODE_VECTOR;
    const int64_t sa = (int64_t)lda * n, su = (int64_t)ldu * m, sv = (int64_t)ldv * n;
    // the batch is packed: matrix i at A + i * lda * n, U + i * ldu * m, V + i * ldv * n, S + i * min(m, n)
    TRY(check(lwork >= gesvd_ws<T>(m, n) && dev(A, sa * batch, sizeof(T)) && dev(S, (int64_t)k * batch, sizeof(R)) &&
              (!vec || (dev(U, su * batch, sizeof(T)) && dev(V, sv * batch, sizeof(T)))) &&
              dev(work, lwork, sizeof(T)) && dev(info, batch, sizeof(int))));
    if (batch == 0) return CUSOLVER_STATUS_SUCCESS;
    return queue(h, [=]() {
        T *vt = vec ? side<T>((int64_t)n * n) : nullptr;
        R *rw = lap<T>::cplx ? side<R>(5 * (int64_t)imax(k, 1)) : nullptr;
        if ((vec && !vt) || (lap<T>::cplx && !rw)) {
            std::free(vt);
            return;
        }
        for (int i = 0; i < batch; i++) {
            int inf = 0;
            if (m > 0 && n > 0) {
                T dummy{};
                const char j = vec ? 'A' : 'N';
                lap<T>::gesvd(j, j, m, n, A + i * sa, lda, S + (int64_t)i * k, vec ? U + i * su : &dummy,
                              vec ? ldu : 1, vec ? vt : &dummy, vec ? n : 1, work, lwork, rw, &inf);
                if (vec) // V = (V^H)^H
                    for (int r = 0; r < n; r++)
                        for (int c = 0; c < n; c++) {
                            T x = vt[r + (int64_t)c * n];
                            if constexpr (lap<T>::cplx) x.y = -x.y;
                            V[i * sv + c + (int64_t)r * ldv] = x;
                        }
            }
            info[i] = inf;
        }
        std::free(vt);
        std::free(rw);
    });
}

template <typename T>
st_t syevd_bs(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, int lda, int *lwork)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(eig_ok(jobz) && fill_ok(uplo) && n >= 0 && lda >= imax(1, n) && lwork));
    *lwork = syevd_ws<T>(eig_char(jobz), n).lwork;
    return CUSOLVER_STATUS_SUCCESS;
}

// LAPACK's syevd / heevd of one matrix, with host side arrays.
template <typename T>
void syevd_one(char jz, char ul, int n, T *a, int lda, typename lap<T>::R *w, T *work, int lwork,
               const syevd_sizes &s, int *info)
{
    typedef typename lap<T>::R R;
    int *iw = side<int>(s.liwork);
    R *rw = side<R>(s.lrwork);
    if (iw && rw) lap<T>::syevd(jz, ul, n, a, lda, w, work, lwork, rw, s.lrwork, iw, s.liwork, info);
    std::free(iw);
    std::free(rw);
}

template <typename T>
st_t syevd(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, T *A, int lda,
           typename lap<T>::R *W, T *work, int lwork, int *info)
{
    typedef typename lap<T>::R R;
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(eig_ok(jobz) && fill_ok(uplo) && n >= 0 && lda >= imax(1, n)));
    const char jz = eig_char(jobz), ul = fill_char(uplo);
    const syevd_sizes s = syevd_ws<T>(jz, n);
    TRY(check(lwork >= s.lwork && dev(A, span(n, n, lda), sizeof(T)) && dev(W, n, sizeof(R)) &&
              dev(work, lwork, sizeof(T)) && dev(info, 1, sizeof(int))));
    return queue(h, [=]() {
        int inf = 0;
        if (n > 0) syevd_one<T>(jz, ul, n, A, lda, W, work, lwork, s, &inf);
        *info = inf;
    });
}

template <typename T>
st_t syevj_batched_bs(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, int lda,
                      int *lwork, syevjInfo_t params, int batch)
{
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(params && params->magic == jacobi_magic));
    TRY(check(eig_ok(jobz) && fill_ok(uplo) && n >= 0 && n <= 32 && lda >= imax(1, n) && batch >= 0 && lwork));
    *lwork = syevd_ws<T>(eig_char(jobz), n).lwork;
    return CUSOLVER_STATUS_SUCCESS;
}

template <typename T>
st_t syevj_batched(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, T *A, int lda,
                   typename lap<T>::R *W, T *work, int lwork, int *info, syevjInfo_t params, int batch)
{
    typedef typename lap<T>::R R;
    if (!handle_ok(h)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    TRY(check(params && params->magic == jacobi_magic));
    TRY(check(eig_ok(jobz) && fill_ok(uplo) && n >= 0 && n <= 32 && lda >= imax(1, n) && batch >= 0));
    const char jz = eig_char(jobz), ul = fill_char(uplo);
    const syevd_sizes s = syevd_ws<T>(jz, n);
    const int64_t sa = (int64_t)lda * n;
    TRY(check(lwork >= s.lwork && dev(A, sa * batch, sizeof(T)) && dev(W, (int64_t)n * batch, sizeof(R)) &&
              dev(work, lwork, sizeof(T)) && dev(info, batch, sizeof(int))));
    if (batch == 0) return CUSOLVER_STATUS_SUCCESS;
    return queue(h, [=]() {
        for (int i = 0; i < batch; i++) {
            int inf = 0;
            if (n > 0) syevd_one<T>(jz, ul, n, A + i * sa, lda, W + (int64_t)i * n, work, lwork, s, &inf);
            info[i] = inf;
        }
    });
}

// ---- Xgeev ----
struct geev_sizes {
    size_t dev_bytes, host_bytes;
    int lwork;
};

bool is_cplx(cudaDataType t) { return t == CUDA_C_32F || t == CUDA_C_64F; }
bool is_real(cudaDataType t) { return t == CUDA_R_32F || t == CUDA_R_64F; }
cudaDataType cpx_of(cudaDataType t) { return t == CUDA_C_32F || t == CUDA_R_32F ? CUDA_C_32F : CUDA_C_64F; }

// cuSOLVER's combinations (see the header)
bool geev_types_ok(cudaDataType a, cudaDataType w, cudaDataType vl, cudaDataType vr, cudaDataType c)
{
    if (is_real(a)) return (w == a || w == cpx_of(a)) && vl == a && vr == a && c == a;
    if (is_cplx(a)) return w == a && vl == a && vr == a && c == a;
    return false;
}

template <typename T>
geev_sizes geev_ws(char jr, int n)
{
    typedef typename lap<T>::R R;
    T w{};
    R rw[2] = {0, 0}; // ctrevc3's query writes RWORK(1)
    int info = 0, lda = imax(1, n), ldvr = imax(1, n);
    if constexpr (lap<T>::cplx)
        lap<T>::geevc(jr, n, nullptr, lda, nullptr, nullptr, ldvr, &w, -1, rw, &info);
    else
        lap<T>::geev(jr, n, nullptr, lda, rw, rw + 1, nullptr, ldvr, &w, -1, &info);
    geev_sizes s;
    s.lwork = work_size(w);
    // device: LAPACK's work, then 2n reals (wr, wi for real A; rwork for complex A)
    s.dev_bytes = (size_t)s.lwork * sizeof(T) + 2 * (size_t)imax(n, 1) * sizeof(R);
    s.host_bytes = 64 + 16 * (size_t)imax(n, 1);
    return s;
}

geev_sizes geev_ws_of(cudaDataType a, char jr, int n)
{
    switch (a) {
    case CUDA_R_32F: return geev_ws<float>(jr, n);
    case CUDA_R_64F: return geev_ws<double>(jr, n);
    case CUDA_C_32F: return geev_ws<cuComplex>(jr, n);
    default: return geev_ws<cuDoubleComplex>(jr, n);
    }
}

size_t type_size(cudaDataType t)
{
    switch (t) {
    case CUDA_R_32F: return 4;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    default: return 16;
    }
}

template <typename T>
void geev_run(char jr, int n, void *A, int lda, void *W, bool w_cplx, void *VR, int ldvr, void *dwork, int lwork,
              int *info)
{
    typedef typename lap<T>::R R;
    T *work = (T *)dwork;
    R *extra = (R *)(work + lwork);
    int inf = 0;
    T dummy{};
    if constexpr (lap<T>::cplx) {
        lap<T>::geevc(jr, n, (T *)A, lda, (T *)W, jr == 'V' ? (T *)VR : &dummy, jr == 'V' ? ldvr : 1, work, lwork,
                      extra, &inf);
    } else {
        R *wr = w_cplx ? extra : (R *)W, *wi = w_cplx ? extra + n : (R *)W + n;
        lap<T>::geev(jr, n, (T *)A, lda, wr, wi, jr == 'V' ? (T *)VR : &dummy, jr == 'V' ? ldvr : 1, work, lwork,
                     &inf);
        if (w_cplx)
            for (int j = 0; j < n; j++) {
                ((R *)W)[2 * j] = wr[j];
                ((R *)W)[2 * j + 1] = wi[j];
            }
    }
    *info = inf;
}

} // namespace

// ------------------------------------------------------------------
// The C API
// ------------------------------------------------------------------
extern "C" {

cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle)
{
    if (!handle) return CUSOLVER_STATUS_INVALID_VALUE;
    cusolverDnHandle_t h = new (std::nothrow) cusolverDnContext();
    if (!h) return CUSOLVER_STATUS_ALLOC_FAILED;
    h->magic = handle_magic;
    h->stream = nullptr;
    *handle = h;
    return CUSOLVER_STATUS_SUCCESS;
}
cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle)
{
    if (!handle_ok(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    handle->magic = 0;
    delete handle;
    return CUSOLVER_STATUS_SUCCESS;
}
cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId)
{
    if (!handle_ok(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    handle->stream = streamId;
    return CUSOLVER_STATUS_SUCCESS;
}
cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t handle, cudaStream_t *streamId)
{
    if (!handle_ok(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!streamId) return CUSOLVER_STATUS_INVALID_VALUE;
    *streamId = handle->stream;
    return CUSOLVER_STATUS_SUCCESS;
}
cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t *params)
{
    if (!params) return CUSOLVER_STATUS_INVALID_VALUE;
    cusolverDnParams_t p = new (std::nothrow) cusolverDnParams();
    if (!p) return CUSOLVER_STATUS_ALLOC_FAILED;
    p->magic = params_magic;
    *params = p;
    return CUSOLVER_STATUS_SUCCESS;
}
cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t params)
{
    if (!params || params->magic != params_magic) return CUSOLVER_STATUS_INVALID_VALUE;
    params->magic = 0;
    delete params;
    return CUSOLVER_STATUS_SUCCESS;
}
cusolverStatus_t cusolverDnCreateSyevjInfo(syevjInfo_t *info)
{
    if (!info) return CUSOLVER_STATUS_INVALID_VALUE;
    syevjInfo_t p = new (std::nothrow) syevjInfo();
    if (!p) return CUSOLVER_STATUS_ALLOC_FAILED;
    p->magic = jacobi_magic;
    *info = p;
    return CUSOLVER_STATUS_SUCCESS;
}
cusolverStatus_t cusolverDnDestroySyevjInfo(syevjInfo_t info)
{
    if (!info || info->magic != jacobi_magic) return CUSOLVER_STATUS_INVALID_VALUE;
    info->magic = 0;
    delete info;
    return CUSOLVER_STATUS_SUCCESS;
}
cusolverStatus_t cusolverDnCreateGesvdjInfo(gesvdjInfo_t *info)
{
    if (!info) return CUSOLVER_STATUS_INVALID_VALUE;
    gesvdjInfo_t p = new (std::nothrow) gesvdjInfo();
    if (!p) return CUSOLVER_STATUS_ALLOC_FAILED;
    p->magic = jacobi_magic;
    *info = p;
    return CUSOLVER_STATUS_SUCCESS;
}
cusolverStatus_t cusolverDnDestroyGesvdjInfo(gesvdjInfo_t info)
{
    if (!info || info->magic != jacobi_magic) return CUSOLVER_STATUS_INVALID_VALUE;
    info->magic = 0;
    delete info;
    return CUSOLVER_STATUS_SUCCESS;
}

// The typed entry points: one line each over the templates above.
#define ND_SOLVER_TYPED(P, T, R)                                                                                   \
    cusolverStatus_t cusolverDn##P##getrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *, int lda, int *Lwork) \
    {                                                                                                              \
        return getrf_bs<T>(h, m, n, lda, Lwork);                                                                   \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##getrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *W, int *ipiv,      \
                                          int *info)                                                               \
    {                                                                                                              \
        return getrf<T>(h, m, n, A, lda, W, ipiv, info);                                                           \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int nrhs, const T *A,  \
                                          int lda, const int *ipiv, T *B, int ldb, int *info)                      \
    {                                                                                                              \
        return getrs<T>(h, t, n, nrhs, A, lda, ipiv, B, ldb, info);                                                \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *,      \
                                                     int lda, int *Lwork)                                          \
    {                                                                                                              \
        return potrf_bs<T>(h, uplo, n, lda, Lwork);                                                                \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *A, int lda, T *W, \
                                          int Lwork, int *info)                                                    \
    {                                                                                                              \
        return potrf<T>(h, uplo, n, A, lda, W, Lwork, info);                                                       \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##potrfBatched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, T *Aarray[],  \
                                                 int lda, int *info, int batch)                                    \
    {                                                                                                              \
        return potrf_batched<T>(h, uplo, n, Aarray, lda, info, batch);                                             \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *, int lda, int *lwork) \
    {                                                                                                              \
        return geqrf_bs<T>(h, m, n, lda, lwork);                                                                   \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##geqrf(cusolverDnHandle_t h, int m, int n, T *A, int lda, T *tau, T *W,         \
                                          int Lwork, int *info)                                                    \
    {                                                                                                              \
        return geqrf<T>(h, m, n, A, lda, tau, W, Lwork, info);                                                     \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##gesvd_bufferSize(cusolverDnHandle_t h, int m, int n, int *lwork)               \
    {                                                                                                              \
        return gesvd_bs<T>(h, m, n, lwork);                                                                        \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n,      \
                                          T *A, int lda, R *S, T *U, int ldu, T *VT, int ldvt, T *work, int lwork, \
                                          R *rwork, int *info)                                                     \
    {                                                                                                              \
        return gesvd<T>(h, ju, jv, m, n, A, lda, S, U, ldu, VT, ldvt, work, lwork, rwork, info);                   \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##gesvdjBatched_bufferSize(                                                      \
        cusolverDnHandle_t h, cusolverEigMode_t jobz, int m, int n, const T *, int lda, const R *, const T *,      \
        int ldu, const T *, int ldv, int *lwork, gesvdjInfo_t params, int batch)                                   \
    {                                                                                                              \
        return gesvdj_batched_bs<T>(h, jobz, m, n, lda, ldu, ldv, lwork, params, batch);                           \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##gesvdjBatched(cusolverDnHandle_t h, cusolverEigMode_t jobz, int m, int n,      \
                                                  T *A, int lda, R *S, T *U, int ldu, T *V, int ldv, T *work,      \
                                                  int lwork, int *info, gesvdjInfo_t params, int batch)            \
    {                                                                                                              \
        return gesvdj_batched<T>(h, jobz, m, n, A, lda, S, U, ldu, V, ldv, work, lwork, info, params, batch);      \
    }

#define ND_SOLVER_QR_EIG(P, Q, E, T, R)                                                                            \
    cusolverStatus_t cusolverDn##P##Q##gqr_bufferSize(cusolverDnHandle_t h, int m, int n, int k, const T *,        \
                                                      int lda, const T *, int *lwork)                              \
    {                                                                                                              \
        return orgqr_bs<T>(h, m, n, k, lda, lwork);                                                                \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##Q##gqr(cusolverDnHandle_t h, int m, int n, int k, T *A, int lda, const T *tau, \
                                           T *work, int lwork, int *info)                                          \
    {                                                                                                              \
        return orgqr<T>(h, m, n, k, A, lda, tau, work, lwork, info);                                               \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##E##evd_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz,                \
                                                      cublasFillMode_t uplo, int n, const T *, int lda, const R *, \
                                                      int *lwork)                                                  \
    {                                                                                                              \
        return syevd_bs<T>(h, jobz, uplo, n, lda, lwork);                                                          \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##E##evd(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo,    \
                                           int n, T *A, int lda, R *W, T *work, int lwork, int *info)              \
    {                                                                                                              \
        return syevd<T>(h, jobz, uplo, n, A, lda, W, work, lwork, info);                                           \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##E##evjBatched_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz,         \
                                                             cublasFillMode_t uplo, int n, const T *, int lda,     \
                                                             const R *, int *lwork, syevjInfo_t params, int batch) \
    {                                                                                                              \
        return syevj_batched_bs<T>(h, jobz, uplo, n, lda, lwork, params, batch);                                   \
    }                                                                                                              \
    cusolverStatus_t cusolverDn##P##E##evjBatched(cusolverDnHandle_t h, cusolverEigMode_t jobz,                    \
                                                  cublasFillMode_t uplo, int n, T *A, int lda, R *W, T *work,      \
                                                  int lwork, int *info, syevjInfo_t params, int batch)             \
    {                                                                                                              \
        return syevj_batched<T>(h, jobz, uplo, n, A, lda, W, work, lwork, info, params, batch);                    \
    }

ND_SOLVER_TYPED(S, float, float)
ND_SOLVER_TYPED(D, double, double)
ND_SOLVER_TYPED(C, cuComplex, float)
ND_SOLVER_TYPED(Z, cuDoubleComplex, double)
ND_SOLVER_QR_EIG(S, or, sy, float, float)
ND_SOLVER_QR_EIG(D, or, sy, double, double)
ND_SOLVER_QR_EIG(C, un, he, cuComplex, float)
ND_SOLVER_QR_EIG(Z, un, he, cuDoubleComplex, double)
#undef ND_SOLVER_TYPED
#undef ND_SOLVER_QR_EIG

cusolverStatus_t cusolverDnXgeev_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                            cusolverEigMode_t jobvl, cusolverEigMode_t jobvr, int64_t n,
                                            cudaDataType dataTypeA, const void *, int64_t lda,
                                            cudaDataType dataTypeW, const void *, cudaDataType dataTypeVL,
                                            const void *, int64_t ldvl, cudaDataType dataTypeVR, const void *,
                                            int64_t ldvr, cudaDataType computeType, size_t *workspaceInBytesOnDevice,
                                            size_t *workspaceInBytesOnHost)
{
    if (!handle_ok(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!params || params->magic != params_magic) return CUSOLVER_STATUS_INVALID_VALUE;
    TRY(check(eig_ok(jobvl) && eig_ok(jobvr) && n >= 0 && lda >= (n > 1 ? n : 1) && ldvl >= 1 && ldvr >= 1 &&
              (jobvr != CUSOLVER_EIG_MODE_VECTOR || ldvr >= n) && workspaceInBytesOnDevice &&
              workspaceInBytesOnHost));
    if (!geev_types_ok(dataTypeA, dataTypeW, dataTypeVL, dataTypeVR, computeType)) return CUSOLVER_STATUS_NOT_SUPPORTED;
    if (jobvl == CUSOLVER_EIG_MODE_VECTOR) return CUSOLVER_STATUS_NOT_SUPPORTED;
    if (n > INT_MAX || lda > INT_MAX || ldvr > INT_MAX) return CUSOLVER_STATUS_NOT_SUPPORTED; // LP64 LAPACK
    const geev_sizes s = geev_ws_of(dataTypeA, eig_char(jobvr), (int)n);
    *workspaceInBytesOnDevice = s.dev_bytes;
    *workspaceInBytesOnHost = s.host_bytes;
    return CUSOLVER_STATUS_SUCCESS;
}

cusolverStatus_t cusolverDnXgeev(cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobvl,
                                 cusolverEigMode_t jobvr, int64_t n, cudaDataType dataTypeA, void *A, int64_t lda,
                                 cudaDataType dataTypeW, void *W, cudaDataType dataTypeVL, void *, int64_t ldvl,
                                 cudaDataType dataTypeVR, void *VR, int64_t ldvr, cudaDataType computeType,
                                 void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                 size_t workspaceInBytesOnHost, int *info)
{
    if (!handle_ok(handle)) return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (!params || params->magic != params_magic) return CUSOLVER_STATUS_INVALID_VALUE;
    TRY(check(eig_ok(jobvl) && eig_ok(jobvr) && n >= 0 && lda >= (n > 1 ? n : 1) && ldvl >= 1 && ldvr >= 1 &&
              (jobvr != CUSOLVER_EIG_MODE_VECTOR || ldvr >= n)));
    if (!geev_types_ok(dataTypeA, dataTypeW, dataTypeVL, dataTypeVR, computeType)) return CUSOLVER_STATUS_NOT_SUPPORTED;
    if (jobvl == CUSOLVER_EIG_MODE_VECTOR) return CUSOLVER_STATUS_NOT_SUPPORTED;
    if (n > INT_MAX || lda > INT_MAX || ldvr > INT_MAX) return CUSOLVER_STATUS_NOT_SUPPORTED;
    const char jr = eig_char(jobvr);
    const geev_sizes s = geev_ws_of(dataTypeA, jr, (int)n);
    const size_t ta = type_size(dataTypeA);
    const bool w_cplx = is_cplx(dataTypeW);
    const int64_t wn = is_real(dataTypeA) && !w_cplx ? 2 * n : n; // real W: real parts, then imaginary parts
    TRY(check(workspaceInBytesOnDevice >= s.dev_bytes && workspaceInBytesOnHost >= s.host_bytes &&
              (workspaceInBytesOnHost == 0 || bufferOnHost) && dev(A, span(n, n, lda), ta) &&
              dev(W, wn, type_size(dataTypeW)) && (jr != 'V' || dev(VR, span(n, n, ldvr), ta)) &&
              dev(bufferOnDevice, (int64_t)workspaceInBytesOnDevice, 1) && dev(info, 1, sizeof(int))));
    const int ni = (int)n, ldai = (int)lda, ldvi = (int)ldvr, lwork = s.lwork;
    const size_t hb = workspaceInBytesOnHost;
    if (hb && !host_ws_claim(bufferOnHost)) {
        nd_emu_device_fault("cuSOLVER stand-in: Xgeev got a host workspace that a queued Xgeev still uses "
                            "(wait for the stream before reusing it)");
        return CUSOLVER_STATUS_EXECUTION_FAILED;
    }
    const st_t qs = queue(handle, [=]() {
        scribble(bufferOnHost, (int64_t)hb, 1, 0xa5);
        if (ni == 0) {
            *info = 0;
            return;
        }
        switch (dataTypeA) {
        case CUDA_R_32F: geev_run<float>(jr, ni, A, ldai, W, w_cplx, VR, ldvi, bufferOnDevice, lwork, info); break;
        case CUDA_R_64F: geev_run<double>(jr, ni, A, ldai, W, w_cplx, VR, ldvi, bufferOnDevice, lwork, info); break;
        case CUDA_C_32F: geev_run<cuComplex>(jr, ni, A, ldai, W, true, VR, ldvi, bufferOnDevice, lwork, info); break;
        default: geev_run<cuDoubleComplex>(jr, ni, A, ldai, W, true, VR, ldvi, bufferOnDevice, lwork, info); break;
        }
        if (hb) host_ws_release(bufferOnHost);
    });
    if (qs != CUSOLVER_STATUS_SUCCESS && hb) host_ws_release(bufferOnHost);
    return qs;
}

} // extern "C"
