// The emulated GPU's cuSPARSE (tests/emu/cusparse.h), computing on the host.
// C++17; never part of a library users build.
//
// Execution. SpMV, SpMM and SpGEMM_copy check their arguments as cuSPARSE
// documents them, capture them (alpha and beta by value: host pointer mode)
// in a closure and queue it on the handle's stream (nd_emu_enqueue), so they
// run asynchronously and in stream order, like the kernels cuSPARSE
// launches. SpGEMM_compute returns the product's number of entries to the
// host (cusparseSpMatGetSize reads it), as the real routine does: it waits
// for the stream, then forms the product (Gustavson, in double-checked
// host memory) into the SpGEMM descriptor; SpGEMM_copy queues the writing of
// C's three arrays. The product keeps the entries whose sums cancel (they
// are structural entries, as cuSPARSE keeps them) and lists each row's
// columns in order of first appearance (A's row order, then B's): cuSPARSE
// promises no column order for SpGEMM, and the library must sort.
//
// Checks (the first failing one is returned):
//  1. NULL or destroyed handle: CUSPARSE_STATUS_NOT_INITIALIZED;
//  2. CUSPARSE_STATUS_INVALID_VALUE: NULL descriptors, alpha, beta or
//     bufferSize; negative sizes; ld < the row length (row order: cols;
//     column order: rows); mismatched operand shapes; operands and a
//     non-empty workspace outside device memory (a debugging aid: a GPU
//     would fault); a workspace smaller than the query answered;
//  3. CUSPARSE_STATUS_NOT_SUPPORTED: a transposed op; value types that
//     differ between the operands or from computeType (except SpMV and
//     SpMM's R_16F and R_16BF operands with computeType R_32F, as
//     cuSPARSE documents: products and sums in float, alpha and beta
//     float, the result rounded once); value types other than R_32F,
//     R_64F, C_32F, C_64F (and those two) (the emulation's limit); index base
//     one; SpGEMM on 64-bit indices (the routine's documented limit);
//     SpGEMM_compute/copy before workEstimation;
//  4. a destroyed stream: CUSPARSE_STATUS_EXECUTION_FAILED;
//  5. a failure the test asked for (nd_emu_cusparse_fail_next): SpMV, SpMM
//     and SpGEMM_workEstimation (with its buffer) return that status once.
// beta == 0 sets y without reading it (NaN in y is overwritten).
#include <complex>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <vector>

#include "cusparse.h"
#include "shared/half.h"

namespace {
constexpr uint32_t handle_magic = 0x63737072u; // "cspr"
constexpr uint32_t mat_magic = 0x6373706du;
constexpr uint32_t vec_magic = 0x63737076u;
constexpr uint32_t gemm_magic = 0x63737067u;
} // namespace

struct cusparseContext {
    uint32_t magic;
    cudaStream_t stream;
};
struct cusparseSpMatDescr {
    uint32_t magic;
    int64_t rows, cols, nnz;
    void *ptr, *idx, *val;
    cusparseIndexType_t pt, it;
    cusparseIndexBase_t base;
    cudaDataType vt;
};
struct cusparseDnVecDescr {
    uint32_t magic;
    int64_t size;
    void *val;
    cudaDataType vt;
};
struct cusparseDnMatDescr {
    uint32_t magic;
    int64_t rows, cols, ld;
    void *val;
    cudaDataType vt;
    cusparseOrder_t order;
};
// the product formed by SpGEMM_compute (int32 indices; values as bytes)
struct gemm_result {
    std::vector<int32_t> ptr, idx;
    std::vector<unsigned char> val;
};
struct cusparseSpGEMMDescr {
    uint32_t magic;
    bool estimated;
    std::shared_ptr<gemm_result> res;
};

namespace {

typedef cusparseStatus_t st_t;
#define TRY(x)                                            \
    do {                                                  \
        st_t s_ = (x);                                    \
        if (s_ != CUSPARSE_STATUS_SUCCESS) return s_;     \
    } while (0)

const size_t kBufferBytes = 128; // what the buffer-size queries answer

// The calling thread's next SpMV, SpMM or SpGEMM_workEstimation fails with
// this status (nd_emu_cusparse_fail_next), after its argument checks.
thread_local cusparseStatus_t tl_fail_next = CUSPARSE_STATUS_SUCCESS;
st_t injected()
{
    const st_t s = tl_fail_next;
    tl_fail_next = CUSPARSE_STATUS_SUCCESS;
    return s;
}

bool handle_ok(cusparseHandle_t h) { return h && h->magic == handle_magic; }
size_t vsize(cudaDataType t)
{
    switch (t) {
    case CUDA_R_32F: return 4;
    case CUDA_R_64F: return 8;
    case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    case CUDA_R_16F:
    case CUDA_R_16BF: return 2;
    default: return 0;
    }
}
bool is_half(cudaDataType t) { return t == CUDA_R_16F || t == CUDA_R_16BF; }
// operand type vt under computeType ct: equal (and one of the four), or
// (SpMV/SpMM: half_ok) a half type computed in R_32F
bool types_ok(cudaDataType vt, cudaDataType ct, bool half_ok)
{
    if (is_half(vt)) return half_ok && ct == CUDA_R_32F;
    return vt == ct && vsize(vt) != 0;
}
size_t isize(cusparseIndexType_t t) { return t == CUSPARSE_INDEX_64I ? 8 : t == CUSPARSE_INDEX_32I ? 4 : 0; }
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
st_t queue(cusparseHandle_t h, std::function<void()> f)
{
    if (!nd_emu_stream_valid(h->stream)) return CUSPARSE_STATUS_EXECUTION_FAILED;
    std::function<void()> *p = new (std::nothrow) std::function<void()>(std::move(f));
    if (!p) return CUSPARSE_STATUS_ALLOC_FAILED;
    if (nd_emu_enqueue(h->stream, run_fn, p) != cudaSuccess) {
        delete p;
        return CUSPARSE_STATUS_EXECUTION_FAILED;
    }
    return CUSPARSE_STATUS_SUCCESS;
}

// a CSR operand: valid descriptor, supported types, arrays in device memory
st_t csr_ok(cusparseConstSpMatDescr_t a, cudaDataType compute, bool half_ok = false)
{
    if (!a || a->magic != mat_magic) return CUSPARSE_STATUS_INVALID_VALUE;
    if (!types_ok(a->vt, compute, half_ok)) return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (a->base != CUSPARSE_INDEX_BASE_ZERO) return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (!dev(a->ptr, a->rows + 1, isize(a->pt)) || !dev(a->idx, a->nnz, isize(a->it)) ||
        !dev(a->val, a->nnz, vsize(a->vt)))
        return CUSPARSE_STATUS_INVALID_VALUE;
    return CUSPARSE_STATUS_SUCCESS;
}
st_t buffer_ok(const void *buf, size_t needed)
{
    return dev(buf, (int64_t)needed, 1) ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
}

template <typename I>
int64_t at(const void *p, int64_t i)
{
    return (int64_t)((const I *)p)[i];
}
int64_t idx_at(const void *p, cusparseIndexType_t t, int64_t i)
{
    return t == CUSPARSE_INDEX_64I ? at<int64_t>(p, i) : at<int32_t>(p, i);
}

// y (rows x k; element (i, j) at y[i * ys + j * yj]) = alpha A x + beta y
template <typename V>
void spmm_host(const cusparseSpMatDescr a, const V *x, int64_t xs, int64_t xj, V *y, int64_t ys, int64_t yj,
               int64_t k, V alpha, V beta)
{
    for (int64_t i = 0; i < a.rows; i++)
        for (int64_t j = 0; j < k; j++) {
            V s = V(0);
            for (int64_t p = idx_at(a.ptr, a.pt, i); p < idx_at(a.ptr, a.pt, i + 1); p++)
                s += ((const V *)a.val)[p] * x[idx_at(a.idx, a.it, p) * xs + j * xj];
            V &o = y[i * ys + j * yj];
            o = beta == V(0) ? alpha * s : alpha * s + beta * o;
        }
}
// the same for float16/bfloat16 operands (their bits), in float
template <float (*TOF)(uint16_t), uint16_t (*FROMF)(float)>
void spmm_half(const cusparseSpMatDescr a, const uint16_t *x, int64_t xs, int64_t xj, uint16_t *y, int64_t ys,
               int64_t yj, int64_t k, float alpha, float beta)
{
    const uint16_t *v = (const uint16_t *)a.val;
    for (int64_t i = 0; i < a.rows; i++)
        for (int64_t j = 0; j < k; j++) {
            float s = 0;
            for (int64_t p = idx_at(a.ptr, a.pt, i); p < idx_at(a.ptr, a.pt, i + 1); p++)
                s += TOF(v[p]) * TOF(x[idx_at(a.idx, a.it, p) * xs + j * xj]);
            uint16_t &o = y[i * ys + j * yj];
            o = FROMF(beta == 0 ? alpha * s : alpha * s + beta * TOF(o));
        }
}
// queue y = alpha A x + beta y for half operands of type vt
st_t queue_half(cusparseHandle_t h, cudaDataType vt, const cusparseSpMatDescr a, const void *xv, int64_t xs,
                int64_t xj, void *yv, int64_t ys, int64_t yj, int64_t k, const void *alpha, const void *beta)
{
    const float al = *(const float *)alpha, be = *(const float *)beta;
    const uint16_t *x = (const uint16_t *)xv;
    uint16_t *y = (uint16_t *)yv;
    if (vt == CUDA_R_16F)
        return queue(h, [=]() { spmm_half<nd_half_to_float, nd_float_to_half>(a, x, xs, xj, y, ys, yj, k, al, be); });
    return queue(h, [=]() { spmm_half<nd_bf16_to_float, nd_float_to_bf16>(a, x, xs, xj, y, ys, yj, k, al, be); });
}
template <typename F>
void by_type(cudaDataType t, F f)
{
    switch (t) {
    case CUDA_R_32F: f(float()); break;
    case CUDA_R_64F: f(double()); break;
    case CUDA_C_32F: f(std::complex<float>()); break;
    default: f(std::complex<double>()); break;
    }
}

// SpGEMM's common checks
st_t gemm_ok(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
             cusparseConstSpMatDescr_t A, cusparseConstSpMatDescr_t B, const void *beta, cusparseSpMatDescr_t C,
             cudaDataType ct, cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t g)
{
    if (!handle_ok(h)) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!alpha || !beta || !g || g->magic != gemm_magic || !C || C->magic != mat_magic)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (opA != CUSPARSE_OPERATION_NON_TRANSPOSE || opB != CUSPARSE_OPERATION_NON_TRANSPOSE)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (alg < CUSPARSE_SPGEMM_DEFAULT || alg > CUSPARSE_SPGEMM_CSR_ALG_NONDETERMINITIC)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    TRY(csr_ok(A, ct));
    TRY(csr_ok(B, ct));
    if (C->vt != ct) return CUSPARSE_STATUS_NOT_SUPPORTED;
    for (const cusparseSpMatDescr *m : {A, (const cusparseSpMatDescr *)B, (const cusparseSpMatDescr *)C})
        if (m->pt != CUSPARSE_INDEX_32I || m->it != CUSPARSE_INDEX_32I) return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (A->cols != B->rows || C->rows != A->rows || C->cols != B->cols) return CUSPARSE_STATUS_INVALID_VALUE;
    return CUSPARSE_STATUS_SUCCESS;
}

// C = alpha A B (beta must be 0: cuSPARSE's SpGEMM has no C input)
template <typename V>
void gemm_host(const cusparseSpMatDescr *A, const cusparseSpMatDescr *B, V alpha, gemm_result *r)
{
    const int32_t *ap = (const int32_t *)A->ptr, *ai = (const int32_t *)A->idx, *bp = (const int32_t *)B->ptr,
                  *bi = (const int32_t *)B->idx;
    const V *ad = (const V *)A->val, *bd = (const V *)B->val;
    std::vector<int64_t> mark((size_t)B->cols, -1);
    std::vector<V> acc((size_t)B->cols);
    std::vector<V> val;
    r->ptr.assign((size_t)A->rows + 1, 0);
    r->idx.clear();
    for (int64_t i = 0; i < A->rows; i++) {
        const size_t q0 = r->idx.size();
        for (int32_t p = ap[i]; p < ap[i + 1]; p++)
            for (int32_t t = bp[ai[p]]; t < bp[ai[p] + 1]; t++) {
                const int32_t j = bi[t];
                if (mark[(size_t)j] != i) {
                    mark[(size_t)j] = i;
                    acc[(size_t)j] = V(0);
                    r->idx.push_back(j);
                }
                acc[(size_t)j] += ad[p] * bd[t];
            }
        for (size_t q = q0; q < r->idx.size(); q++) val.push_back(alpha * acc[(size_t)r->idx[q]]);
        r->ptr[(size_t)i + 1] = (int32_t)r->idx.size();
    }
    r->val.resize(val.size() * sizeof(V));
    if (!val.empty()) std::memcpy(r->val.data(), val.data(), r->val.size());
}

} // namespace

extern "C" {

const char *cusparseGetErrorName(cusparseStatus_t s)
{
    switch (s) {
    case CUSPARSE_STATUS_SUCCESS: return "CUSPARSE_STATUS_SUCCESS";
    case CUSPARSE_STATUS_NOT_INITIALIZED: return "CUSPARSE_STATUS_NOT_INITIALIZED";
    case CUSPARSE_STATUS_ALLOC_FAILED: return "CUSPARSE_STATUS_ALLOC_FAILED";
    case CUSPARSE_STATUS_INVALID_VALUE: return "CUSPARSE_STATUS_INVALID_VALUE";
    case CUSPARSE_STATUS_ARCH_MISMATCH: return "CUSPARSE_STATUS_ARCH_MISMATCH";
    case CUSPARSE_STATUS_MAPPING_ERROR: return "CUSPARSE_STATUS_MAPPING_ERROR";
    case CUSPARSE_STATUS_EXECUTION_FAILED: return "CUSPARSE_STATUS_EXECUTION_FAILED";
    case CUSPARSE_STATUS_INTERNAL_ERROR: return "CUSPARSE_STATUS_INTERNAL_ERROR";
    case CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSPARSE_STATUS_ZERO_PIVOT: return "CUSPARSE_STATUS_ZERO_PIVOT";
    case CUSPARSE_STATUS_NOT_SUPPORTED: return "CUSPARSE_STATUS_NOT_SUPPORTED";
    case CUSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES";
    default: return "CUSPARSE_STATUS_UNKNOWN";
    }
}
const char *cusparseGetErrorString(cusparseStatus_t s) { return cusparseGetErrorName(s); }

cusparseStatus_t cusparseCreate(cusparseHandle_t *handle)
{
    if (!handle) return CUSPARSE_STATUS_INVALID_VALUE;
    cusparseContext *c = new (std::nothrow) cusparseContext{handle_magic, nullptr};
    if (!c) return CUSPARSE_STATUS_ALLOC_FAILED;
    *handle = c;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseDestroy(cusparseHandle_t h)
{
    if (!handle_ok(h)) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (nd_emu_stream_valid(h->stream)) (void)cudaStreamSynchronize(h->stream); // queued work may still read h
    h->magic = 0;
    delete h;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSetStream(cusparseHandle_t h, cudaStream_t s)
{
    if (!handle_ok(h)) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!nd_emu_stream_valid(s)) return CUSPARSE_STATUS_INVALID_VALUE;
    h->stream = s;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseGetStream(cusparseHandle_t h, cudaStream_t *s)
{
    if (!handle_ok(h)) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!s) return CUSPARSE_STATUS_INVALID_VALUE;
    *s = h->stream;
    return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCreateCsr(cusparseSpMatDescr_t *d, int64_t rows, int64_t cols, int64_t nnz, void *ptr,
                                   void *idx, void *val, cusparseIndexType_t pt, cusparseIndexType_t it,
                                   cusparseIndexBase_t base, cudaDataType vt)
{
    if (!d || rows < 0 || cols < 0 || nnz < 0) return CUSPARSE_STATUS_INVALID_VALUE;
    if (nnz > 0 && (!ptr || !idx || !val)) return CUSPARSE_STATUS_INVALID_VALUE;
    if ((pt != CUSPARSE_INDEX_32I && pt != CUSPARSE_INDEX_64I) || (it != CUSPARSE_INDEX_32I && it != CUSPARSE_INDEX_64I))
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (pt == CUSPARSE_INDEX_32I && nnz > INT32_MAX) return CUSPARSE_STATUS_INVALID_VALUE;
    if (base != CUSPARSE_INDEX_BASE_ZERO && base != CUSPARSE_INDEX_BASE_ONE) return CUSPARSE_STATUS_INVALID_VALUE;
    cusparseSpMatDescr *m = new (std::nothrow) cusparseSpMatDescr{mat_magic, rows, cols, nnz, ptr, idx, val, pt, it,
                                                                  base, vt};
    if (!m) return CUSPARSE_STATUS_ALLOC_FAILED;
    *d = m;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t d)
{
    if (!d) return CUSPARSE_STATUS_SUCCESS; // as cuSPARSE: NULL is fine
    if (d->magic != mat_magic) return CUSPARSE_STATUS_INVALID_VALUE;
    cusparseSpMatDescr *m = (cusparseSpMatDescr *)d;
    m->magic = 0;
    delete m;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSpMatGetSize(cusparseConstSpMatDescr_t d, int64_t *rows, int64_t *cols, int64_t *nnz)
{
    if (!d || d->magic != mat_magic || !rows || !cols || !nnz) return CUSPARSE_STATUS_INVALID_VALUE;
    *rows = d->rows;
    *cols = d->cols;
    *nnz = d->nnz;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseCsrSetPointers(cusparseSpMatDescr_t d, void *ptr, void *idx, void *val)
{
    if (!d || d->magic != mat_magic || !ptr) return CUSPARSE_STATUS_INVALID_VALUE;
    if (d->nnz > 0 && (!idx || !val)) return CUSPARSE_STATUS_INVALID_VALUE;
    d->ptr = ptr;
    d->idx = idx;
    d->val = val;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseCreateDnVec(cusparseDnVecDescr_t *d, int64_t size, void *val, cudaDataType vt)
{
    if (!d || size < 0 || (size > 0 && !val)) return CUSPARSE_STATUS_INVALID_VALUE;
    cusparseDnVecDescr *v = new (std::nothrow) cusparseDnVecDescr{vec_magic, size, val, vt};
    if (!v) return CUSPARSE_STATUS_ALLOC_FAILED;
    *d = v;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseDestroyDnVec(cusparseConstDnVecDescr_t d)
{
    if (!d) return CUSPARSE_STATUS_SUCCESS;
    if (d->magic != vec_magic) return CUSPARSE_STATUS_INVALID_VALUE;
    cusparseDnVecDescr *v = (cusparseDnVecDescr *)d;
    v->magic = 0;
    delete v;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *d, int64_t rows, int64_t cols, int64_t ld, void *val,
                                     cudaDataType vt, cusparseOrder_t order)
{
    if (!d || rows < 0 || cols < 0) return CUSPARSE_STATUS_INVALID_VALUE;
    if (order != CUSPARSE_ORDER_ROW && order != CUSPARSE_ORDER_COL) return CUSPARSE_STATUS_INVALID_VALUE;
    if (ld < (order == CUSPARSE_ORDER_ROW ? cols : rows) || (rows * cols > 0 && !val))
        return CUSPARSE_STATUS_INVALID_VALUE;
    cusparseDnMatDescr *m = new (std::nothrow) cusparseDnMatDescr{mat_magic + 1, rows, cols, ld, val, vt, order};
    if (!m) return CUSPARSE_STATUS_ALLOC_FAILED;
    *d = m;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t d)
{
    if (!d) return CUSPARSE_STATUS_SUCCESS;
    if (d->magic != mat_magic + 1) return CUSPARSE_STATUS_INVALID_VALUE;
    cusparseDnMatDescr *m = (cusparseDnMatDescr *)d;
    m->magic = 0;
    delete m;
    return CUSPARSE_STATUS_SUCCESS;
}

static st_t spmv_check(cusparseHandle_t h, cusparseOperation_t op, const void *alpha, cusparseConstSpMatDescr_t A,
                       cusparseConstDnVecDescr_t x, const void *beta, cusparseDnVecDescr_t y, cudaDataType ct,
                       cusparseSpMVAlg_t alg)
{
    if (!handle_ok(h)) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!alpha || !beta || !x || x->magic != vec_magic || !y || y->magic != vec_magic)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (op != CUSPARSE_OPERATION_NON_TRANSPOSE) return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (alg != CUSPARSE_SPMV_ALG_DEFAULT && alg != CUSPARSE_SPMV_CSR_ALG1 && alg != CUSPARSE_SPMV_CSR_ALG2)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    TRY(csr_ok(A, ct, true));
    if (x->vt != A->vt || y->vt != A->vt) return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (x->size != A->cols || y->size != A->rows) return CUSPARSE_STATUS_INVALID_VALUE;
    if (!dev(x->val, x->size, vsize(A->vt)) || !dev(y->val, y->size, vsize(A->vt)))
        return CUSPARSE_STATUS_INVALID_VALUE;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSpMV_bufferSize(cusparseHandle_t h, cusparseOperation_t op, const void *alpha,
                                         cusparseConstSpMatDescr_t A, cusparseConstDnVecDescr_t x, const void *beta,
                                         cusparseDnVecDescr_t y, cudaDataType ct, cusparseSpMVAlg_t alg,
                                         size_t *bytes)
{
    TRY(spmv_check(h, op, alpha, A, x, beta, y, ct, alg));
    if (!bytes) return CUSPARSE_STATUS_INVALID_VALUE;
    *bytes = kBufferBytes;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSpMV(cusparseHandle_t h, cusparseOperation_t op, const void *alpha,
                              cusparseConstSpMatDescr_t A, cusparseConstDnVecDescr_t x, const void *beta,
                              cusparseDnVecDescr_t y, cudaDataType ct, cusparseSpMVAlg_t alg, void *buf)
{
    TRY(spmv_check(h, op, alpha, A, x, beta, y, ct, alg));
    TRY(buffer_ok(buf, kBufferBytes));
    TRY(injected());
    const cusparseSpMatDescr a = *A;
    const void *xv = x->val;
    void *yv = y->val;
    if (is_half(a.vt)) return queue_half(h, a.vt, a, xv, 1, 0, yv, 1, 0, 1, alpha, beta);
    st_t st = CUSPARSE_STATUS_SUCCESS;
    by_type(ct, [&](auto z) {
        typedef decltype(z) V;
        const V al = *(const V *)alpha, be = *(const V *)beta;
        st = queue(h, [=]() { spmm_host<V>(a, (const V *)xv, 1, 0, (V *)yv, 1, 0, 1, al, be); });
    });
    return st;
}

static st_t spmm_check(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB, const void *alpha,
                       cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B, const void *beta,
                       cusparseDnMatDescr_t C, cudaDataType ct, cusparseSpMMAlg_t alg)
{
    if (!handle_ok(h)) return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (!alpha || !beta || !B || B->magic != mat_magic + 1 || !C || C->magic != mat_magic + 1)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (opA != CUSPARSE_OPERATION_NON_TRANSPOSE || opB != CUSPARSE_OPERATION_NON_TRANSPOSE)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (alg != CUSPARSE_SPMM_ALG_DEFAULT && alg != CUSPARSE_SPMM_CSR_ALG1 && alg != CUSPARSE_SPMM_CSR_ALG2 &&
        alg != CUSPARSE_SPMM_CSR_ALG3)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    TRY(csr_ok(A, ct, true));
    if (B->vt != A->vt || C->vt != A->vt) return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (B->rows != A->cols || C->rows != A->rows || C->cols != B->cols || B->order != C->order)
        return CUSPARSE_STATUS_INVALID_VALUE;
    for (const cusparseDnMatDescr *m : {(const cusparseDnMatDescr *)B, (const cusparseDnMatDescr *)C}) {
        const int64_t outer = m->order == CUSPARSE_ORDER_ROW ? m->rows : m->cols,
                      inner = m->order == CUSPARSE_ORDER_ROW ? m->cols : m->rows;
        if (outer > 0 && inner > 0 && !dev(m->val, (outer - 1) * m->ld + inner, vsize(A->vt)))
            return CUSPARSE_STATUS_INVALID_VALUE;
    }
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB,
                                         const void *alpha, cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B,
                                         const void *beta, cusparseDnMatDescr_t C, cudaDataType ct,
                                         cusparseSpMMAlg_t alg, size_t *bytes)
{
    TRY(spmm_check(h, opA, opB, alpha, A, B, beta, C, ct, alg));
    if (!bytes) return CUSPARSE_STATUS_INVALID_VALUE;
    *bytes = kBufferBytes;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSpMM(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB,
                              const void *alpha, cusparseConstSpMatDescr_t A, cusparseConstDnMatDescr_t B,
                              const void *beta, cusparseDnMatDescr_t C, cudaDataType ct, cusparseSpMMAlg_t alg,
                              void *buf)
{
    TRY(spmm_check(h, opA, opB, alpha, A, B, beta, C, ct, alg));
    TRY(buffer_ok(buf, kBufferBytes));
    TRY(injected());
    const cusparseSpMatDescr a = *A;
    const bool row = B->order == CUSPARSE_ORDER_ROW;
    const int64_t bs = row ? B->ld : 1, bj = row ? 1 : B->ld, cs = row ? C->ld : 1, cj = row ? 1 : C->ld,
                  k = C->cols;
    const void *bv = B->val;
    void *cv = C->val;
    if (is_half(a.vt)) return queue_half(h, a.vt, a, bv, bs, bj, cv, cs, cj, k, alpha, beta);
    st_t st = CUSPARSE_STATUS_SUCCESS;
    by_type(ct, [&](auto z) {
        typedef decltype(z) V;
        const V al = *(const V *)alpha, be = *(const V *)beta;
        st = queue(h, [=]() { spmm_host<V>(a, (const V *)bv, bs, bj, (V *)cv, cs, cj, k, al, be); });
    });
    return st;
}

cusparseStatus_t cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t *d)
{
    if (!d) return CUSPARSE_STATUS_INVALID_VALUE;
    cusparseSpGEMMDescr *g = new (std::nothrow) cusparseSpGEMMDescr{gemm_magic, false, nullptr};
    if (!g) return CUSPARSE_STATUS_ALLOC_FAILED;
    *d = g;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t d)
{
    if (!d) return CUSPARSE_STATUS_SUCCESS;
    if (d->magic != gemm_magic) return CUSPARSE_STATUS_INVALID_VALUE;
    d->magic = 0;
    delete d; // a queued copy holds its own reference to the result
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSpGEMM_workEstimation(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB,
                                               const void *alpha, cusparseConstSpMatDescr_t A,
                                               cusparseConstSpMatDescr_t B, const void *beta, cusparseSpMatDescr_t C,
                                               cudaDataType ct, cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t g,
                                               size_t *bytes, void *buf)
{
    TRY(gemm_ok(h, opA, opB, alpha, A, B, beta, C, ct, alg, g));
    if (!bytes) return CUSPARSE_STATUS_INVALID_VALUE;
    if (!buf) {
        *bytes = kBufferBytes;
        return CUSPARSE_STATUS_SUCCESS;
    }
    if (*bytes < kBufferBytes) return CUSPARSE_STATUS_INVALID_VALUE;
    TRY(buffer_ok(buf, *bytes));
    TRY(injected());
    g->estimated = true;
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSpGEMM_compute(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB,
                                        const void *alpha, cusparseConstSpMatDescr_t A, cusparseConstSpMatDescr_t B,
                                        const void *beta, cusparseSpMatDescr_t C, cudaDataType ct,
                                        cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t g, size_t *bytes, void *buf)
{
    TRY(gemm_ok(h, opA, opB, alpha, A, B, beta, C, ct, alg, g));
    if (!bytes) return CUSPARSE_STATUS_INVALID_VALUE;
    if (!g->estimated) return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (!buf) {
        *bytes = kBufferBytes;
        return CUSPARSE_STATUS_SUCCESS;
    }
    if (*bytes < kBufferBytes) return CUSPARSE_STATUS_INVALID_VALUE;
    TRY(buffer_ok(buf, *bytes));
    if (!nd_emu_stream_valid(h->stream)) return CUSPARSE_STATUS_EXECUTION_FAILED;
    // the operands are written by work queued before: wait for it (the
    // real routine returns C's size to the host, so it waits too)
    if (cudaStreamSynchronize(h->stream) != cudaSuccess) return CUSPARSE_STATUS_EXECUTION_FAILED;
    std::shared_ptr<gemm_result> r(new (std::nothrow) gemm_result);
    if (!r) return CUSPARSE_STATUS_ALLOC_FAILED;
    by_type(ct, [&](auto z) {
        typedef decltype(z) V;
        gemm_host<V>(A, B, *(const V *)alpha, r.get());
    });
    if (r->idx.size() > (size_t)INT32_MAX) return CUSPARSE_STATUS_INSUFFICIENT_RESOURCES;
    g->res = r;
    C->nnz = (int64_t)r->idx.size();
    return CUSPARSE_STATUS_SUCCESS;
}
cusparseStatus_t cusparseSpGEMM_copy(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB,
                                     const void *alpha, cusparseConstSpMatDescr_t A, cusparseConstSpMatDescr_t B,
                                     const void *beta, cusparseSpMatDescr_t C, cudaDataType ct,
                                     cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t g)
{
    TRY(gemm_ok(h, opA, opB, alpha, A, B, beta, C, ct, alg, g));
    if (!g->res) return CUSPARSE_STATUS_NOT_SUPPORTED;
    const int64_t nnz = (int64_t)g->res->idx.size();
    if (C->nnz != nnz || !dev(C->ptr, C->rows + 1, 4) || !dev(C->idx, nnz, 4) || !dev(C->val, nnz, vsize(ct)))
        return CUSPARSE_STATUS_INVALID_VALUE;
    std::shared_ptr<gemm_result> r = g->res;
    void *cp = C->ptr, *ci = C->idx, *cv = C->val;
    return queue(h, [=]() {
        std::memcpy(cp, r->ptr.data(), r->ptr.size() * sizeof(int32_t));
        if (nnz > 0) {
            std::memcpy(ci, r->idx.data(), r->idx.size() * sizeof(int32_t));
            std::memcpy(cv, r->val.data(), r->val.size());
        }
    });
}

void nd_emu_cusparse_fail_next(int status) { tl_fail_next = (cusparseStatus_t)status; }

} // extern "C"
