// The emulated GPU's cuBLAS (tests/emu/cublas_v2.h) over OpenBLAS's CBLAS.
// C++17; never part of a library users build.
//
// The point is to execute the library's cuBLAS calls for real: column-major
// operands, op flags (N, T, C; C = T for real types, the conjugate transpose
// for complex ones), leading dimensions, batch
// strides (0 = broadcast) and pointer arrays are passed on to CBLAS
// unchanged, so a wrong mapping from row-major gives wrong numbers here just
// as it would on a GPU.
//
// Execution. A GEMM call checks its arguments as cuBLAS documents them,
// copies them (alpha and beta by value: host pointer mode) into a closure
// and queues it on the handle's stream with nd_emu_enqueue, so it runs
// asynchronously and in stream order, like the kernels cuBLAS launches. The
// closure runs on the stream's worker thread and frees itself. Scratch
// buffers (16-bit and TF32 operands converted to float) are allocated at
// call time, so that an allocation failure can still be reported
// (CUBLAS_STATUS_ALLOC_FAILED); they hold one product and are reused across
// a batch, which runs product after product in batch order (so overlapping
// or stride-0 C operands are updated one product at a time).
//
// Arithmetic:
//  - R_32F, COMPUTE_32F[_PEDANTIC]: cblas_sgemm on the operands in place;
//  - R_32F, COMPUTE_32F_FAST_TF32: A and B are rounded to TF32 (10-bit
//    mantissa, round to nearest even on the float bits, Inf/NaN kept) into
//    float copies, then cblas_sgemm (float accumulation), as tensor cores do;
//    CUBLAS_TF32_TENSOR_OP_MATH as the handle's math mode does NOT round
//    COMPUTE_32F products (it only allows TF32; exact float32 is a valid
//    result, and the library never sets it);
//  - R_64F, COMPUTE_64F[_PEDANTIC]: cblas_dgemm in place;
//  - C_32F, COMPUTE_32F[_PEDANTIC]: cblas_cgemm in place, alpha and beta
//    cuComplex; C_64F, COMPUTE_64F[_PEDANTIC]: cblas_zgemm in place, alpha
//    and beta cuDoubleComplex; op C is CblasConjTrans. C_32F with
//    COMPUTE_32F_FAST_TF32, which cuBLAS has, is NOT_SUPPORTED here (the
//    library never asks for it);
//  - R_16F / R_16BF, COMPUTE_32F[_PEDANTIC]: A and B converted to float
//    (src/shared/half.h), T = alpha*op(A)*op(B) by cblas_sgemm into a float buffer,
//    then C = round_to_nearest_even_16(T + beta*C) computed in float: one
//    rounding to the output type (split-K partial sums are never rounded to
//    16 bits, i.e. CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION is always
//    in effect);
//  - k == 0 or alpha == 0 (complex: both parts): A and B are not read and
//    C = beta*C (a complex product for complex types); beta == 0
//    SETS C to zero without reading it (NaN in C is overwritten: BLAS);
//    beta == 1 then touches nothing. With k > 0 and beta == 0, C is zeroed
//    before the product too, so the result never depends on C's old value.
//  - A, B R_16F (or both R_16BF) with C R_32F, COMPUTE_32F[_PEDANTIC]: the
//    same product written into the float32 C (T + beta*C in float), never
//    rounded to 16 bits (cuBLAS's mixed-precision GEMM);
// Every other type / compute-type combination (other mixed types, COMPUTE_16F,
// COMPUTE_32F_FAST_16F, ...) is CUBLAS_STATUS_NOT_SUPPORTED, so that the
// emulation never silently computes something more precise than the GPU.
//
// Checks, in this order (the first failing one is returned):
//  1. NULL (or destroyed) handle: CUBLAS_STATUS_NOT_INITIALIZED;
//  2. CUBLAS_STATUS_INVALID_VALUE as documented: m, n, k < 0; batchCount < 0;
//     transa / transb not N, T or C; lda < max(1, transa == N ? m : k);
//     ldb < max(1, transb == N ? k : n); ldc < max(1, m); alpha or beta NULL;
//  3. CUBLAS_STATUS_NOT_SUPPORTED: type combination (above); algo outside
//     CUBLAS_GEMM_DEFAULT, ALGO0..23, DEFAULT_TENSOR_OP, ALGO0..15_TENSOR_OP
//     (all ignored; CUBLAS_GEMM_AUTOTUNE is refused); m, n, k, lda, ldb or
//     ldc above INT_MAX (OpenBLAS's CBLAS takes 32-bit ints; batch counts and
//     strides are 64-bit and unlimited) — a limit of the emulation only;
//  4. quick return: m == 0, n == 0 or batchCount == 0 -> SUCCESS, nothing
//     touched, nothing queued;
//  5. destroyed stream: CUBLAS_STATUS_EXECUTION_FAILED (also when
//     nd_emu_enqueue refuses the stream);
//  6. k == 0 or alpha == 0, and beta == 1: SUCCESS, nothing touched;
//  7. device memory (a debugging aid; a real GPU would fault on the access,
//     asynchronously): every element that a product reads or writes must lie
//     in one live device allocation, else CUBLAS_STATUS_INVALID_VALUE. A
//     column-major rows x cols operand with leading dimension ld spans
//     (cols-1)*ld + rows elements; a strided batch spans the union over all
//     batch entries (strides may be 0 or negative). A and B are not checked
//     when they are not read (k == 0 or alpha == 0). For the pointer-array
//     form the ARRAYS are checked at call time (batchCount pointers each);
//     the matrices they point to are only known when the product runs
//     (the arrays are usually filled by a kernel queued just before), so
//     they are checked then, and a product with an operand outside device
//     memory is SKIPPED (C left as it was): there is nobody left to tell;
//  8. scratch allocation: CUBLAS_STATUS_ALLOC_FAILED.
// The int forms forward to the _64 forms.
#include "cpu/blas.h"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include "cublas_v2.h"
#include "shared/half.h"

namespace {
constexpr uint32_t handle_magic = 0x6375626cu; // "cubl"
} // namespace

struct cublasContext {
    uint32_t magic;
    cudaStream_t stream;
    cublasMath_t math;
    void *workspace; // recorded only: the CPU products need none
    size_t workspace_size;
};

namespace {

// K_F16_F32 / K_BF16_F32: A and B half, C float32 (cuBLAS's mixed
// R_16F/R_16BF x R_32F combination with COMPUTE_32F)
// K_C64 / K_C128: complex C_32F / C_64F (cgemm / zgemm)
enum gemm_kind { K_F32, K_F32_TF32, K_F64, K_F16, K_BF16, K_F16_F32, K_BF16_F32, K_C64, K_C128 };

inline bool kind_complex(gemm_kind k) { return k == K_C64 || k == K_C128; }

struct gemm_job {
    gemm_kind kind;
    size_t esz;  // bytes per element of A and B
    size_t cesz; // bytes per element of C (esz but for the mixed kinds)
    bool ta, tb;
    bool ca, cb;  // op C on a complex kind: conjugate transpose (ta / tb set too)
    bool ab_read; // k > 0 and alpha != 0
    int64_t m, n, k, lda, ldb, ldc;
    int64_t rows_a, cols_a, rows_b, cols_b; // stored shapes (column-major)
    int64_t sa, sb, sc;                     // batch strides in elements
    int64_t batch;
    double alpha, beta; // exact copies (float -> double is exact)
    double alpha_im, beta_im; // imaginary parts (complex kinds; 0 otherwise)
    const char *A, *B;  // strided form
    char *C;
    const void *const *Aarr, *const *Barr; // pointer-array form (non-null)
    void *const *Carr;
    float *fa, *fb, *fc; // scratch for one product
    const void *ws;      // the workspace it runs on (see ws_claim)
};

// Workspaces. cuBLAS runs a product on the handle's workspace: its default
// one unless cublasSetWorkspace gave another (cublasSetStream resets it to
// the default). Two products in flight at once on one workspace corrupt
// each other on a GPU; in-stream order is the only thing that keeps them
// apart. So a workspace with products queued on stream S must not get a
// product queued on another stream until they have completed: the
// stand-in reports that as a device fault (a sticky launch failure), the
// race a GPU would turn into wrong numbers now and then. A user workspace
// must also be live device memory of the size given.
struct ws_use {
    cudaStream_t stream;
    int pending;
};
std::mutex &ws_mu = *new std::mutex;
std::map<const void *, ws_use> &ws_uses = *new std::map<const void *, ws_use>;

bool ws_claim(const void *ws, cudaStream_t s)
{
    std::lock_guard<std::mutex> lk(ws_mu);
    ws_use &u = ws_uses[ws];
    if (u.pending > 0 && u.stream != s) return false;
    u.stream = s;
    u.pending++;
    return true;
}

void ws_release(const void *ws)
{
    std::lock_guard<std::mutex> lk(ws_mu);
    auto it = ws_uses.find(ws);
    if (it != ws_uses.end() && --it->second.pending <= 0) ws_uses.erase(it);
}

void free_job(gemm_job *j)
{
    std::free(j->fa);
    std::free(j->fb);
    std::free(j->fc);
    delete j;
}

bool handle_ok(cublasHandle_t h) { return h && h->magic == handle_magic; }

inline float tf32_round(float x)
{
    uint32_t u = nd_f32_bits(x);
    if ((u & 0x7f800000u) == 0x7f800000u) return x; // Inf, NaN kept
    u += 0xfffu + ((u >> 13) & 1u);                 // round to nearest even at bit 13
    return nd_bits_f32(u & 0xffffe000u);
}

// dst (rows x cols, ld = rows) = float(src (rows x cols, ld)) per kind.
void to_float(const gemm_job &j, float *dst, const char *src, int64_t rows, int64_t cols, int64_t ld)
{
    for (int64_t c = 0; c < cols; c++) {
        float *d = dst + c * rows;
        if (j.kind == K_F32_TF32) {
            const float *s = (const float *)src + c * ld;
            for (int64_t r = 0; r < rows; r++) d[r] = tf32_round(s[r]);
        } else if (j.kind == K_F16 || j.kind == K_F16_F32) {
            const uint16_t *s = (const uint16_t *)src + c * ld;
            for (int64_t r = 0; r < rows; r++) d[r] = nd_half_to_float(s[r]);
        } else {
            const uint16_t *s = (const uint16_t *)src + c * ld;
            for (int64_t r = 0; r < rows; r++) d[r] = nd_bf16_to_float(s[r]);
        }
    }
}

inline float ld16(gemm_kind k, uint16_t v) { return k == K_F16 ? nd_half_to_float(v) : nd_bf16_to_float(v); }
inline uint16_t st16(gemm_kind k, float v) { return k == K_F16 ? nd_float_to_half(v) : nd_float_to_bf16(v); }

// C = beta * C (A and B not read); beta == 0 sets C to zero without reading it.
void scale_c(const gemm_job &j, char *C)
{
    if (j.beta == 1.0 && j.beta_im == 0.0) return;
    const int64_t m = j.m, n = j.n;
    for (int64_t c = 0; c < n; c++) {
        char *col = C + (size_t)(c * j.ldc) * j.cesz;
        if (j.beta == 0.0 && j.beta_im == 0.0) {
            memset(col, 0, (size_t)m * j.cesz); // all-zero bits are +0 in every type
            continue;
        }
        switch (j.kind) {
        case K_C64: { // complex product in float, as cgemm's beta*C
            float *p = (float *)col;
            const float br = (float)j.beta, bi = (float)j.beta_im;
            for (int64_t r = 0; r < m; r++) {
                const float x = p[2 * r], y = p[2 * r + 1];
                p[2 * r] = br * x - bi * y;
                p[2 * r + 1] = br * y + bi * x;
            }
            break;
        }
        case K_C128: {
            double *p = (double *)col;
            const double br = j.beta, bi = j.beta_im;
            for (int64_t r = 0; r < m; r++) {
                const double x = p[2 * r], y = p[2 * r + 1];
                p[2 * r] = br * x - bi * y;
                p[2 * r + 1] = br * y + bi * x;
            }
            break;
        }
        case K_F64: {
            double *p = (double *)col;
            for (int64_t r = 0; r < m; r++) p[r] = j.beta * p[r];
            break;
        }
        case K_F32:
        case K_F32_TF32:
        case K_F16_F32:
        case K_BF16_F32: {
            float *p = (float *)col;
            const float b = (float)j.beta;
            for (int64_t r = 0; r < m; r++) p[r] = b * p[r];
            break;
        }
        default: {
            uint16_t *p = (uint16_t *)col;
            const float b = (float)j.beta;
            for (int64_t r = 0; r < m; r++) p[r] = st16(j.kind, b * ld16(j.kind, p[r]));
            break;
        }
        }
    }
}

// One product: C = alpha * op(A) * op(B) + beta * C.
void gemm_one(const gemm_job &j, const char *A, const char *B, char *C)
{
    if (!j.ab_read) {
        scale_c(j, C);
        return;
    }
    const CBLAS_TRANSPOSE ta = j.ca ? CblasConjTrans : j.ta ? CblasTrans : CblasNoTrans;
    const CBLAS_TRANSPOSE tb = j.cb ? CblasConjTrans : j.tb ? CblasTrans : CblasNoTrans;
    const blasint m = (blasint)j.m, n = (blasint)j.n, k = (blasint)j.k;
    switch (j.kind) {
    case K_C64: {
        if (j.beta == 0.0 && j.beta_im == 0.0) scale_c(j, C);
        const float al[2] = {(float)j.alpha, (float)j.alpha_im}, be[2] = {(float)j.beta, (float)j.beta_im};
        cblas_cgemm(CblasColMajor, ta, tb, m, n, k, al, (const float *)A, (blasint)j.lda, (const float *)B,
                    (blasint)j.ldb, be, (float *)C, (blasint)j.ldc);
        return;
    }
    case K_C128: {
        if (j.beta == 0.0 && j.beta_im == 0.0) scale_c(j, C);
        const double al[2] = {j.alpha, j.alpha_im}, be[2] = {j.beta, j.beta_im};
        cblas_zgemm(CblasColMajor, ta, tb, m, n, k, al, (const double *)A, (blasint)j.lda, (const double *)B,
                    (blasint)j.ldb, be, (double *)C, (blasint)j.ldc);
        return;
    }
    case K_F64:
        if (j.beta == 0.0) scale_c(j, C);
        cblas_dgemm(CblasColMajor, ta, tb, m, n, k, j.alpha, (const double *)A, (blasint)j.lda, (const double *)B,
                    (blasint)j.ldb, j.beta, (double *)C, (blasint)j.ldc);
        return;
    case K_F32:
        if (j.beta == 0.0) scale_c(j, C);
        cblas_sgemm(CblasColMajor, ta, tb, m, n, k, (float)j.alpha, (const float *)A, (blasint)j.lda,
                    (const float *)B, (blasint)j.ldb, (float)j.beta, (float *)C, (blasint)j.ldc);
        return;
    case K_F32_TF32:
    case K_F16_F32:
    case K_BF16_F32: // half (or tf32-rounded) A and B, float32 C accumulated and kept in float32
        if (j.beta == 0.0) scale_c(j, C);
        to_float(j, j.fa, A, j.rows_a, j.cols_a, j.lda);
        to_float(j, j.fb, B, j.rows_b, j.cols_b, j.ldb);
        cblas_sgemm(CblasColMajor, ta, tb, m, n, k, (float)j.alpha, j.fa, (blasint)j.rows_a, j.fb,
                    (blasint)j.rows_b, (float)j.beta, (float *)C, (blasint)j.ldc);
        return;
    default: {
        to_float(j, j.fa, A, j.rows_a, j.cols_a, j.lda);
        to_float(j, j.fb, B, j.rows_b, j.cols_b, j.ldb);
        cblas_sgemm(CblasColMajor, ta, tb, m, n, k, (float)j.alpha, j.fa, (blasint)j.rows_a, j.fb,
                    (blasint)j.rows_b, 0.0f, j.fc, m);
        const float b = (float)j.beta;
        for (int64_t c = 0; c < j.n; c++) {
            uint16_t *p = (uint16_t *)C + c * j.ldc;
            const float *t = j.fc + c * j.m;
            if (b == 0.0f)
                for (int64_t r = 0; r < j.m; r++) p[r] = st16(j.kind, t[r]);
            else
                for (int64_t r = 0; r < j.m; r++) p[r] = st16(j.kind, t[r] + b * ld16(j.kind, p[r]));
        }
        return;
    }
    }
}

// Elements spanned by a rows x cols column-major operand with leading dimension ld.
__int128 extent(int64_t rows, int64_t cols, int64_t ld) { return (__int128)(cols - 1) * ld + rows; }

// Whether batch operands p + i*stride (i < batch), each spanning ext
// elements of esz bytes, all lie in one live device allocation.
bool device_span(const void *p, __int128 ext, int64_t stride, int64_t batch, size_t esz)
{
    if (!p) return false;
    const __int128 last = (__int128)(batch - 1) * stride; // |last| < 2^126: no overflow
    const __int128 lo = last < 0 ? last : 0, hi = (last > 0 ? last : 0) + ext;
    if (hi - lo > (__int128)(SIZE_MAX / esz)) return false; // larger than any allocation
    const __int128 bytes = (hi - lo) * (__int128)esz, off = lo * (__int128)esz; // off <= 0
    const uintptr_t base = (uintptr_t)p;
    if (-off > (__int128)base) return false;
    return nd_emu_is_device_range((const void *)(base - (uintptr_t)(-off)), (size_t)bytes) != 0;
}

// The closure queued on the stream.
void run_job(void *arg)
{
    gemm_job *j = (gemm_job *)arg;
    if (j->Carr) {
        for (int64_t i = 0; i < j->batch; i++) {
            // A and B arrays are not read (may be NULL) when A and B are not
            const char *A = j->ab_read ? (const char *)j->Aarr[i] : nullptr;
            const char *B = j->ab_read ? (const char *)j->Barr[i] : nullptr;
            char *C = (char *)j->Carr[i];
            // operands outside device memory: a GPU would fault; skip the product
            if (j->ab_read && (!device_span(A, extent(j->rows_a, j->cols_a, j->lda), 0, 1, j->esz) ||
                               !device_span(B, extent(j->rows_b, j->cols_b, j->ldb), 0, 1, j->esz)))
                continue;
            if (!device_span(C, extent(j->m, j->n, j->ldc), 0, 1, j->cesz)) continue;
            gemm_one(*j, A, B, C);
        }
    } else {
        for (int64_t i = 0; i < j->batch; i++) {
            const ptrdiff_t e = (ptrdiff_t)j->esz; // strides may be 0 or negative
            const char *A = j->ab_read ? j->A + (ptrdiff_t)(i * j->sa) * e : nullptr;
            const char *B = j->ab_read ? j->B + (ptrdiff_t)(i * j->sb) * e : nullptr;
            gemm_one(*j, A, B, j->C + (ptrdiff_t)(i * j->sc) * (ptrdiff_t)j->cesz);
        }
    }
}

// The job is no longer queued or held by a graph (which replays it).
void drop_job(void *arg)
{
    gemm_job *j = (gemm_job *)arg;
    ws_release(j->ws);
    free_job(j);
}

bool valid_op(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }

bool valid_algo(cublasGemmAlgo_t a)
{
    const int v = (int)a;
    return (v >= CUBLAS_GEMM_DEFAULT && v <= CUBLAS_GEMM_ALGO23) ||
           (v >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && v <= CUBLAS_GEMM_ALGO15_TENSOR_OP);
}

bool pick_kind(cudaDataType at, cudaDataType bt, cudaDataType ct, cublasComputeType_t comp, gemm_kind *kind,
               size_t *esz, size_t *cesz)
{
    const bool c32 = comp == CUBLAS_COMPUTE_32F || comp == CUBLAS_COMPUTE_32F_PEDANTIC;
    if (at == bt && (at == CUDA_R_16F || at == CUDA_R_16BF) && ct == CUDA_R_32F && c32) {
        *kind = at == CUDA_R_16F ? K_F16_F32 : K_BF16_F32;
        *esz = 2;
        *cesz = 4;
        return true;
    }
    if (at != bt || at != ct) return false;
    if (at == CUDA_R_32F && (c32 || comp == CUBLAS_COMPUTE_32F_FAST_TF32)) {
        *kind = c32 ? K_F32 : K_F32_TF32;
        *esz = 4;
    } else if (at == CUDA_R_64F && (comp == CUBLAS_COMPUTE_64F || comp == CUBLAS_COMPUTE_64F_PEDANTIC)) {
        *kind = K_F64;
        *esz = 8;
    } else if ((at == CUDA_R_16F || at == CUDA_R_16BF) && c32) {
        *kind = at == CUDA_R_16F ? K_F16 : K_BF16;
        *esz = 2;
    } else if (at == CUDA_C_32F && c32) {
        *kind = K_C64;
        *esz = 8;
    } else if (at == CUDA_C_64F && (comp == CUBLAS_COMPUTE_64F || comp == CUBLAS_COMPUTE_64F_PEDANTIC)) {
        *kind = K_C128;
        *esz = 16;
    } else {
        return false;
    }
    *cesz = *esz;
    return true;
}

inline int64_t max1(int64_t x) { return x > 1 ? x : 1; }

float *alloc_floats(int64_t rows, int64_t cols, bool *ok)
{
    const __int128 bytes = (__int128)rows * cols * (__int128)sizeof(float);
    if (bytes > (__int128)(SIZE_MAX / 2)) {
        *ok = false;
        return nullptr;
    }
    float *p = (float *)std::malloc(bytes ? (size_t)bytes : 1);
    if (!p) *ok = false;
    return p;
}

// The next product on this thread fails (nd_emu_cublas_fail_next).
thread_local cublasStatus_t tl_fail_next = CUBLAS_STATUS_SUCCESS;
thread_local cudaError_t tl_fail_cuda = cudaSuccess;

// Steps 1-4 and 6-8 of the checks for both batch forms (Carr != null: the
// pointer-array form, whose arrays are A/B/C as void **), then queue.
cublasStatus_t gemm_submit(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m,
                           int64_t n, int64_t k, const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
                           long long sa, const void *B, cudaDataType Btype, int64_t ldb, long long sb,
                           const void *beta, void *C, cudaDataType Ctype, int64_t ldc, long long sc, int64_t batch,
                           cublasComputeType_t comp, cublasGemmAlgo_t algo, bool ptr_arrays)
{
    if (!handle_ok(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || k < 0 || batch < 0 || !valid_op(transa) || !valid_op(transb)) return CUBLAS_STATUS_INVALID_VALUE;
    const bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
    if (lda < max1(ta ? k : m) || ldb < max1(tb ? n : k) || ldc < max1(m) || !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    gemm_kind kind = K_F32;
    size_t esz = 0, cesz = 0;
    if (!pick_kind(Atype, Btype, Ctype, comp, &kind, &esz, &cesz) || !valid_algo(algo))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
        return CUBLAS_STATUS_NOT_SUPPORTED; // CBLAS's ints (emulation limit)
    if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;

    const cudaStream_t stream = handle->stream;
    if (!nd_emu_stream_valid(stream)) return CUBLAS_STATUS_EXECUTION_FAILED;
    if (tl_fail_next != CUBLAS_STATUS_SUCCESS) {
        // a CUDA call inside cuBLAS failed (nd_emu_cublas_fail_next): its
        // error stays the runtime's last error, as with the real library
        const cublasStatus_t st = tl_fail_next;
        tl_fail_next = CUBLAS_STATUS_SUCCESS;
        nd_emu_set_last_error(tl_fail_cuda);
        return st;
    }

    double a, b, ai = 0.0, bi = 0.0;
    if (kind == K_F64) {
        a = *(const double *)alpha;
        b = *(const double *)beta;
    } else if (kind == K_C64) {
        const cuComplex za = *(const cuComplex *)alpha, zb = *(const cuComplex *)beta;
        a = cuCrealf(za), ai = cuCimagf(za), b = cuCrealf(zb), bi = cuCimagf(zb);
    } else if (kind == K_C128) {
        const cuDoubleComplex za = *(const cuDoubleComplex *)alpha, zb = *(const cuDoubleComplex *)beta;
        a = cuCreal(za), ai = cuCimag(za), b = cuCreal(zb), bi = cuCimag(zb);
    } else {
        a = *(const float *)alpha;
        b = *(const float *)beta;
    }
    const bool ab_read = k > 0 && (a != 0.0 || ai != 0.0);
    if (!ab_read && b == 1.0 && bi == 0.0) return CUBLAS_STATUS_SUCCESS;

    const int64_t rows_a = ta ? k : m, cols_a = ta ? m : k, rows_b = tb ? n : k, cols_b = tb ? k : n;
    if (ptr_arrays) {
        // the arrays are read when the products run; their contents are checked then
        if ((ab_read && (!device_span(A, batch, 0, 1, sizeof(void *)) || !device_span(B, batch, 0, 1, sizeof(void *)))) ||
            !device_span(C, batch, 0, 1, sizeof(void *)))
            return CUBLAS_STATUS_INVALID_VALUE;
    } else {
        // a real GPU would fault (asynchronously) on an access outside device memory
        if ((ab_read && (!device_span(A, extent(rows_a, cols_a, lda), sa, batch, esz) ||
                         !device_span(B, extent(rows_b, cols_b, ldb), sb, batch, esz))) ||
            !device_span(C, extent(m, n, ldc), sc, batch, cesz))
            return CUBLAS_STATUS_INVALID_VALUE;
    }

    gemm_job *j = new (std::nothrow) gemm_job();
    if (!j) return CUBLAS_STATUS_ALLOC_FAILED;
    j->kind = kind;
    j->esz = esz;
    j->cesz = cesz;
    j->ta = ta;
    j->tb = tb;
    j->ca = kind_complex(kind) && transa == CUBLAS_OP_C;
    j->cb = kind_complex(kind) && transb == CUBLAS_OP_C;
    j->ab_read = ab_read;
    j->m = m, j->n = n, j->k = k, j->lda = lda, j->ldb = ldb, j->ldc = ldc;
    j->rows_a = rows_a, j->cols_a = cols_a, j->rows_b = rows_b, j->cols_b = cols_b;
    j->sa = sa, j->sb = sb, j->sc = sc;
    j->batch = batch;
    j->alpha = a, j->beta = b;
    j->alpha_im = ai, j->beta_im = bi;
    if (ptr_arrays) {
        j->Aarr = (const void *const *)A;
        j->Barr = (const void *const *)B;
        j->Carr = (void *const *)C;
    } else {
        j->A = (const char *)A;
        j->B = (const char *)B;
        j->C = (char *)C;
    }
    bool ok = true;
    if (ab_read && kind != K_F32 && kind != K_F64 && !kind_complex(kind)) {
        j->fa = alloc_floats(rows_a, cols_a, &ok);
        j->fb = alloc_floats(rows_b, cols_b, &ok);
        if (kind == K_F16 || kind == K_BF16) j->fc = alloc_floats(m, n, &ok);
    }
    if (!ok) {
        free_job(j);
        return CUBLAS_STATUS_ALLOC_FAILED;
    }
    // the workspace: the handle's default one (named by the handle) or the user's
    j->ws = handle->workspace ? handle->workspace : (const void *)handle;
    if (handle->workspace && !nd_emu_is_device_range(handle->workspace, handle->workspace_size)) {
        free_job(j);
        nd_emu_device_fault("cuBLAS stand-in: the handle's workspace is not live device memory of the size set");
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    if (!ws_claim(j->ws, stream)) {
        free_job(j);
        nd_emu_device_fault("cuBLAS stand-in: a product was queued on one workspace from two streams at once "
                            "(a handle rebound between streams needs a workspace per stream)");
        return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    if (nd_emu_enqueue_owned(stream, run_job, j, drop_job) != cudaSuccess) // dropped on failure
        return CUBLAS_STATUS_EXECUTION_FAILED;
    return CUBLAS_STATUS_SUCCESS;
}

} // namespace

// For the batched LU and QR stand-ins (tests/emu/cublas_batched_emu.cpp):
// whether h is a live handle, and its stream.
bool nd_emu_cublas_handle(cublasHandle_t h, cudaStream_t *stream)
{
    if (!handle_ok(h)) return false;
    *stream = h->stream;
    return true;
}

extern "C" {

void nd_emu_cublas_fail_next(int status, cudaError_t runtime_error)
{
    tl_fail_next = (cublasStatus_t)status;
    tl_fail_cuda = runtime_error;
}

// ---- handles -------------------------------------------------------------
cublasStatus_t cublasCreate(cublasHandle_t *handle)
{
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    cublasContext *h = new (std::nothrow) cublasContext();
    if (!h) return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = handle_magic;
    h->stream = nullptr;
    h->math = CUBLAS_DEFAULT_MATH;
    h->workspace = nullptr;
    h->workspace_size = 0;
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

// Queued products hold copies of everything they need, never the handle, so
// destroying it with work in flight is safe (real cuBLAS synchronises the
// device here; this does not).
cublasStatus_t cublasDestroy(cublasHandle_t handle)
{
    if (!handle_ok(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->magic = 0;
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

// As in cuBLAS, setting the stream resets a user workspace to the default.
// The stream is not checked here; a destroyed one fails the next GEMM.
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t streamId)
{
    if (!handle_ok(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = streamId;
    handle->workspace = nullptr;
    handle->workspace_size = 0;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *streamId)
{
    if (!handle_ok(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!streamId) return CUBLAS_STATUS_INVALID_VALUE;
    *streamId = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

// Recorded; it changes no result (see the top of this file for TF32).
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (!handle_ok(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    const unsigned base = (unsigned)mode & ~(unsigned)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    if (base != CUBLAS_DEFAULT_MATH && base != CUBLAS_TENSOR_OP_MATH && base != CUBLAS_PEDANTIC_MATH &&
        base != CUBLAS_TF32_TENSOR_OP_MATH && base != CUBLAS_FP32_EMULATED_BF16X9_MATH &&
        base != CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    if (!handle_ok(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->math;
    return CUBLAS_STATUS_SUCCESS;
}

// Recorded only (the CPU products need no workspace). cuBLAS requires a
// workspace aligned to at least 256 bytes.
cublasStatus_t cublasSetWorkspace(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes)
{
    if (!handle_ok(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (workspace && ((uintptr_t)workspace % 256u) != 0) return CUBLAS_STATUS_INVALID_VALUE;
    handle->workspace = workspace;
    handle->workspace_size = workspace ? workspaceSizeInBytes : 0;
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusName(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "<unknown>";
}

const char *cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "error detected trying to check the license";
    }
    return "<unknown>";
}

// ---- GEMM ----------------------------------------------------------------
cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m,
                               int64_t n, int64_t k, const void *alpha, const void *A, cudaDataType Atype,
                               int64_t lda, const void *B, cudaDataType Btype, int64_t ldb, const void *beta, void *C,
                               cudaDataType Ctype, int64_t ldc, cublasComputeType_t computeType,
                               cublasGemmAlgo_t algo)
{
    return gemm_submit(handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C, Ctype,
                       ldc, 0, 1, computeType, algo, false);
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    return cublasGemmEx_64(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
                           computeType, algo);
}

cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa,
                                             cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                             const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
                                             long long int strideA, const void *B, cudaDataType Btype, int64_t ldb,
                                             long long int strideB, const void *beta, void *C, cudaDataType Ctype,
                                             int64_t ldc, long long int strideC, int64_t batchCount,
                                             cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    return gemm_submit(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta,
                       C, Ctype, ldc, strideC, batchCount, computeType, algo, false);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long int strideA, const void *B, cudaDataType Btype, int ldb,
                                          long long int strideB, const void *beta, void *C, cudaDataType Ctype,
                                          int ldc, long long int strideC, int batchCount,
                                          cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    return cublasGemmStridedBatchedEx_64(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype,
                                         ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo);
}

cublasStatus_t cublasGemmBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                      int64_t m, int64_t n, int64_t k, const void *alpha,
                                      const void *const Aarray[], cudaDataType Atype, int64_t lda,
                                      const void *const Barray[], cudaDataType Btype, int64_t ldb, const void *beta,
                                      void *const Carray[], cudaDataType Ctype, int64_t ldc, int64_t batchCount,
                                      cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    return gemm_submit(handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, 0, Barray, Btype, ldb, 0, beta,
                       (void *)Carray, Ctype, ldc, 0, batchCount, computeType, algo, true);
}

cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                   int n, int k, const void *alpha, const void *const Aarray[], cudaDataType Atype,
                                   int lda, const void *const Barray[], cudaDataType Btype, int ldb,
                                   const void *beta, void *const Carray[], cudaDataType Ctype, int ldc,
                                   int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
    return cublasGemmBatchedEx_64(handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb,
                                  beta, Carray, Ctype, ldc, batchCount, computeType, algo);
}

} // extern "C"
