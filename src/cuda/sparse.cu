// The CUDA backend's sparse slot (contract: src/shared/sparse_slots.h) on the
// calling thread's current stream: cuSPARSE's generic API for the products,
// own kernels and CUB for the rest.
//
// Per op:
//   SPMM       cusparseSpMV (k == 1: dense vectors) or cusparseSpMM (row-
//              major dense matrices, ld = k), alpha 1, beta 0; a matrix
//              without entries (or without columns) gives y = 0 by a memset;
//              float16/bfloat16 values as CUDA_R_16F/CUDA_R_16BF with
//              compute type CUDA_R_32F (alpha, beta float), the only op
//              that sees them (the core runs the others on float32 copies);
//   SPGEMM     cusparseSpGEMM (workEstimation, compute, copy; ALG DEFAULT)
//              on 32-bit indices (int64 operands are narrowed to int32 in
//              scratch when their sizes allow, ND_ERR_UNSUPPORTED else), the
//              operands first made canonical, the product then sorted with
//              the sums that cancel to zero dropped (scipy's csr_matmat);
//   TRANSPOSE  the rows of the entries, a stable cub::DeviceRadixSort by
//   FROM_COO   column (FROM_COO: then by row), gathers, and the indptr by a
//              binary search per row in the sorted keys (shared
//              nd__sp_lower_bound); one path for int32 and int64 indices
//              and the stable order the contract asks for (cuSPARSE's
//              Xcoo2csr / Csr2cscEx2 take 32-bit indices only);
//   CANON      cub::DeviceSegmentedSort::StableSortPairs per row (ND_SP_SORT),
//              then the two passes below (sums of adjacent equal columns in
//              stored order, zeros dropped);
//   the rest   own kernels, one thread per row (grid-stride), in the CPU
//              loops' order of summation, so exact data give the CPU's bits:
//              TO_DENSE (after a memset of y), EXPAND, MUL_DENSE, ROW_SUMS,
//              DIAG; and two passes
//              (count per row, cub::DeviceScan of the counts into int64
//              offsets, one read of the total, fill) for FROM_DENSE, BINOP,
//              GATHER and the canonical compaction.
//
// Handles: one cuSPARSE handle per device and per thread, created lazily,
// bound to the current stream (cusparseSetStream) before each call, rebound
// to the default stream and destroyed at thread exit (the mechanism of the
// cuBLAS and cuSOLVER handles). Workspaces (the bufferSize answers, CUB's
// temporary storage, sort and count scratch) come from the device pool on
// the current stream and are freed stream-ordered when the op returns. The
// one wait of an op is the read of a total (cudaStreamSynchronize of the
// current stream), needed to size the result.
//
// Errors: a cuSPARSE status other than SUCCESS is ND_ERR_BACKEND
// (ALLOC_FAILED, INSUFFICIENT_RESOURCES: ND_ERR_NOMEM; NOT_SUPPORTED:
// ND_ERR_UNSUPPORTED) with "cusparse<routine> failed: <name> (<code>)"; CUDA
// and CUB errors through nd_cuda_status.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cusparse.h>
#include <limits.h>
#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "shared/sparse_slots.h"

#define ND_SPARSE_MAX_DEVICES 64

namespace {

const char *const FN = "cuSPARSE";

nd_status sparse_status(cusparseStatus_t r, const char *routine)
{
    if (r == CUSPARSE_STATUS_SUCCESS) return ND_OK;
    (void)cudaGetLastError();
    const nd_status code = r == CUSPARSE_STATUS_ALLOC_FAILED || r == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES
                               ? ND_ERR_NOMEM
                           : r == CUSPARSE_STATUS_NOT_SUPPORTED ? ND_ERR_UNSUPPORTED
                                                                : ND_ERR_BACKEND;
    return nd__err(code, FN, "cusparse%s failed: %s (%d)", routine, cusparseGetErrorName(r), (int)r);
}
#define ND_SPARSE_TRY(call, routine)                                              \
    do {                                                                          \
        cusparseStatus_t r_ = (call);                                             \
        if (r_ != CUSPARSE_STATUS_SUCCESS) return sparse_status(r_, routine);     \
    } while (0)

// ------------------------------------------------------------------
// Handles (per device, per thread)
// ------------------------------------------------------------------
struct sparse_handles {
    cusparseHandle_t h[ND_SPARSE_MAX_DEVICES];
    sparse_handles() : h() {}
    ~sparse_handles()
    {
        int cur;
        if (cudaGetDevice(&cur) != cudaSuccess) { // the runtime is gone at process exit: leak them
            (void)cudaGetLastError();
            return;
        }
        for (int d = 0; d < ND_SPARSE_MAX_DEVICES; d++) {
            if (!h[d]) continue;
            nd_device_guard g(d);
            (void)cusparseSetStream(h[d], nullptr);
            (void)cusparseDestroy(h[d]);
            h[d] = nullptr;
        }
        (void)cudaGetLastError();
    }
};
thread_local sparse_handles tl_sparse;

nd_status sparse_handle(int dev, cudaStream_t s, cusparseHandle_t *out)
{
    if (dev < 0 || dev >= ND_SPARSE_MAX_DEVICES)
        return nd__err(ND_ERR_DEVICE, FN, "cuda:%d: at most %d devices have cuSPARSE handles", dev,
                       ND_SPARSE_MAX_DEVICES);
    cusparseHandle_t &h = tl_sparse.h[dev];
    if (!h) ND_SPARSE_TRY(cusparseCreate(&h), "Create");
    ND_SPARSE_TRY(cusparseSetStream(h, s), "SetStream");
    *out = h;
    return ND_OK;
}

// Descriptors, destroyed with the owner.
struct sp_mat {
    cusparseSpMatDescr_t d = nullptr;
    ~sp_mat()
    {
        if (d) (void)cusparseDestroySpMat(d);
    }
};
struct dn_vec {
    cusparseDnVecDescr_t d = nullptr;
    ~dn_vec()
    {
        if (d) (void)cusparseDestroyDnVec(d);
    }
};
struct dn_mat {
    cusparseDnMatDescr_t d = nullptr;
    ~dn_mat()
    {
        if (d) (void)cusparseDestroyDnMat(d);
    }
};
struct gemm_descr {
    cusparseSpGEMMDescr_t d = nullptr;
    ~gemm_descr()
    {
        if (d) (void)cusparseSpGEMM_destroyDescr(d);
    }
};

// ------------------------------------------------------------------
// The op's context: device, stream, scratch from the pool
// ------------------------------------------------------------------
struct sp_x {
    nd_device device;
    void *stream;
    cudaStream_t s;
    void *p[64];
    int n;
    sp_x(nd_device d) : device(d), stream(nd__current_stream(d)), s(nd_stream_of(stream)), p(), n(0) {}
    ~sp_x()
    {
        for (int i = 0; i < n; i++) nd__cuda_free(device.id, p[i]);
    }
    sp_x(const sp_x &) = delete;
    sp_x &operator=(const sp_x &) = delete;
    template <typename X>
    nd_status get(int64_t count, X **out)
    {
        *out = nullptr;
        if (n == (int)(sizeof p / sizeof p[0])) return nd__err(ND_ERR_INTERNAL, FN, "too many scratch buffers");
        void *q = nullptr;
        nd_status st = nd__cuda_alloc(device.id, (size_t)(count > 0 ? count : 1) * sizeof(X), stream, &q);
        if (st) return st;
        p[n++] = q;
        *out = (X *)q;
        return ND_OK;
    }
};

nd_status alloc1(nd_array **o, nd_dtype t, int64_t n, nd_device dev) { return nd__alloc(o, t, 1, &n, dev); }
void csr_release(nd_sp_csr *m)
{
    nd_release(m->indptr);
    nd_release(m->indices);
    nd_release(m->data);
    m->indptr = m->indices = m->data = NULL;
}
// a new CSR (rows x cols, nnz entries) of index dtype it and value dtype vt
nd_status csr_alloc(nd_sp_csr *o, int64_t rows, int64_t cols, int64_t nnz, nd_dtype it, nd_dtype vt, nd_device dev)
{
    *o = nd_sp_csr{rows, cols, NULL, NULL, NULL};
    nd_status st;
    if ((st = alloc1(&o->indptr, it, rows + 1, dev)) || (st = alloc1(&o->indices, it, nnz, dev)) ||
        (st = alloc1(&o->data, vt, nnz, dev)))
        csr_release(o);
    return st;
}

// ------------------------------------------------------------------
// Values: real, and complex as (re, im) pairs laid out as cuComplex
// ------------------------------------------------------------------
template <typename R>
struct cx {
    R x, y;
};
__host__ __device__ inline float v_add(float a, float b) { return a + b; }
__host__ __device__ inline double v_add(double a, double b) { return a + b; }
template <typename R>
__host__ __device__ inline cx<R> v_add(cx<R> a, cx<R> b)
{
    return cx<R>{a.x + b.x, a.y + b.y};
}
__host__ __device__ inline float v_mul(float a, float b) { return a * b; }
__host__ __device__ inline double v_mul(double a, double b) { return a * b; }
template <typename R>
__host__ __device__ inline cx<R> v_mul(cx<R> a, cx<R> b)
{
    return cx<R>{a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x};
}
// alpha * v computed in double, rounded once (the CPU's (VT)(alpha * v))
__host__ __device__ inline float v_scale(double a, float v) { return (float)(a * (double)v); }
__host__ __device__ inline double v_scale(double a, double v) { return a * v; }
template <typename R>
__host__ __device__ inline cx<R> v_scale(double a, cx<R> v)
{
    return cx<R>{(R)(a * (double)v.x), (R)(a * (double)v.y)};
}
__host__ __device__ inline bool v_zero(float a) { return a == 0; }
__host__ __device__ inline bool v_zero(double a) { return a == 0; }
template <typename R>
__host__ __device__ inline bool v_zero(cx<R> a)
{
    return a.x == 0 && a.y == 0;
}
template <typename V>
__host__ __device__ inline V v_0()
{
    return V{};
}
template <typename V>
__host__ __device__ inline V v_1();
template <>
__host__ __device__ inline float v_1<float>() { return 1.0f; }
template <>
__host__ __device__ inline double v_1<double>() { return 1.0; }
template <>
__host__ __device__ inline cx<float> v_1<cx<float>>() { return cx<float>{1.0f, 0.0f}; }
template <>
__host__ __device__ inline cx<double> v_1<cx<double>>() { return cx<double>{1.0, 0.0}; }

template <typename V>
struct v_type;
template <>
struct v_type<float> {
    static constexpr cudaDataType t = CUDA_R_32F;
};
template <>
struct v_type<double> {
    static constexpr cudaDataType t = CUDA_R_64F;
};
template <>
struct v_type<cx<float>> {
    static constexpr cudaDataType t = CUDA_C_32F;
};
template <>
struct v_type<cx<double>> {
    static constexpr cudaDataType t = CUDA_C_64F;
};
// float16 / bfloat16 values as their bits (only cuSPARSE reads them: SpMV
// and SpMM, compute type CUDA_R_32F, alpha and beta float)
struct h16 {
    uint16_t b;
};
struct bh16 {
    uint16_t b;
};
template <>
struct v_type<h16> {
    static constexpr cudaDataType t = CUDA_R_16F;
};
template <>
struct v_type<bh16> {
    static constexpr cudaDataType t = CUDA_R_16BF;
};
// the compute type and alpha/beta's type of SpMV/SpMM on V
template <typename V>
struct v_compute {
    typedef V S;
    static constexpr cudaDataType t = v_type<V>::t;
};
template <>
struct v_compute<h16> {
    typedef float S;
    static constexpr cudaDataType t = CUDA_R_32F;
};
template <>
struct v_compute<bh16> {
    typedef float S;
    static constexpr cudaDataType t = CUDA_R_32F;
};
template <typename I>
inline cusparseIndexType_t i_type()
{
    return sizeof(I) == 8 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
}

__host__ __device__ inline int64_t lower_bound(const int32_t *k, int64_t lo, int64_t hi, int64_t v)
{
    return nd__sp_lower_bound_int32_t(k, lo, hi, v);
}
__host__ __device__ inline int64_t lower_bound(const int64_t *k, int64_t lo, int64_t hi, int64_t v)
{
    return nd__sp_lower_bound_int64_t(k, lo, hi, v);
}

struct add64 {
    __host__ __device__ __forceinline__ int64_t operator()(const int64_t &a, const int64_t &b) const { return a + b; }
};

#define SP_FOR(i, n)                                                                         \
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);              \
         i += (int64_t)gridDim.x * blockDim.x)

// ------------------------------------------------------------------
// Kernels (one thread per row unless said otherwise)
// ------------------------------------------------------------------
// y (zeroed by a memset before) += the entries, in stored order per row
template <typename I, typename V>
__global__ void todense_kernel(V *y, const I *ap, const I *ai, const V *ad, int64_t rows, int64_t cols)
{
    SP_FOR(r, rows)
    {
        V *yr = y + r * cols;
        for (int64_t p = ap[r]; p < ap[r + 1]; p++) yr[ai[p]] = v_add(yr[ai[p]], ad[p]);
    }
}

template <typename I>
__global__ void expand_kernel(I *row, const I *ap, int64_t rows)
{
    SP_FOR(r, rows)
    {
        for (int64_t p = ap[r]; p < ap[r + 1]; p++) row[p] = (I)r;
    }
}

__global__ void iota_kernel(int64_t *v, int64_t n)
{
    SP_FOR(i, n) v[i] = i;
}

// dst[i] = src[perm[i]]
template <typename T>
__global__ void permute_kernel(T *dst, const T *src, const int64_t *perm, int64_t n)
{
    SP_FOR(i, n) dst[i] = src[perm[i]];
}

// ptr[r] = the first position of a key >= r in the sorted keys, r <= rows
template <typename I>
__global__ void ptr_from_sorted_kernel(I *ptr, const I *keys, int64_t n, int64_t rows)
{
    SP_FOR(r, rows + 1) ptr[r] = (I)lower_bound(keys, 0, n, r);
}

// int64 offsets into an indptr of I
template <typename I>
__global__ void narrow_kernel(I *dst, const int64_t *src, int64_t n)
{
    SP_FOR(i, n) dst[i] = (I)src[i];
}
template <typename D, typename S>
__global__ void convert_kernel(D *dst, const S *src, int64_t n)
{
    SP_FOR(i, n) dst[i] = (D)src[i];
}

template <typename V>
__global__ void fromdense_kernel(int64_t *cnt, const int64_t *off, int32_t *ci32, int64_t *ci64, V *cd, const V *x,
                                 int64_t rows, int64_t cols)
{
    SP_FOR(r, rows)
    {
        const V *xr = x + r * cols;
        int64_t q = off ? off[r] : 0;
        for (int64_t j = 0; j < cols; j++)
            if (!v_zero(xr[j])) {
                if (off) {
                    if (ci32) ci32[q] = (int32_t)j;
                    else ci64[q] = j;
                    cd[q] = xr[j];
                }
                q++;
            }
        if (!off) cnt[r] = q;
    }
}

// the adjacent equal columns of each row summed (flags ND_SP_SUM), zeros
// dropped (ND_SP_DROP_ZEROS); pass 1 (off NULL) counts, pass 2 fills
template <typename I, typename V>
__global__ void compact_kernel(int64_t *cnt, const int64_t *off, I *ci, V *cd, const I *ap, const I *ai, const V *ad,
                               int64_t rows, unsigned flags)
{
    SP_FOR(r, rows)
    {
        int64_t o = off ? off[r] : 0, p = ap[r], e = ap[r + 1];
        while (p < e) {
            I j = ai[p];
            V v = ad[p++];
            if (flags & ND_SP_SUM)
                while (p < e && ai[p] == j) v = v_add(v, ad[p++]);
            if ((flags & ND_SP_DROP_ZEROS) && v_zero(v)) continue;
            if (off) {
                ci[o] = j;
                cd[o] = v;
            }
            o++;
        }
        if (!off) cnt[r] = o;
    }
}

template <typename I, typename V>
__global__ void binop_kernel(int64_t *cnt, const int64_t *off, I *ci, V *cd, const I *ap, const I *ai, const V *ad,
                             const I *bp, const I *bi, const V *bd, int64_t rows, bool mul, double alpha, double beta)
{
    SP_FOR(r, rows)
    {
        int64_t p = ap[r], pe = ap[r + 1], q = bp[r], qe = bp[r + 1], o = off ? off[r] : 0;
        while (p < pe || q < qe) {
            I j;
            V v;
            if (q >= qe || (p < pe && ai[p] < bi[q])) {
                j = ai[p];
                v = mul ? v_0<V>() : v_scale(alpha, ad[p]);
                p++;
            } else if (p >= pe || bi[q] < ai[p]) {
                j = bi[q];
                v = mul ? v_0<V>() : v_scale(beta, bd[q]);
                q++;
            } else {
                j = ai[p];
                v = mul ? v_mul(ad[p], bd[q]) : v_add(v_scale(alpha, ad[p]), v_scale(beta, bd[q]));
                p++;
                q++;
            }
            if (v_zero(v)) continue;
            if (off) {
                ci[o] = j;
                cd[o] = v;
            }
            o++;
        }
        if (!off) cnt[r] = o;
    }
}

template <typename I, typename V>
__global__ void gather_kernel(int64_t *cnt, const int64_t *off, I *ci, V *cd, const I *ap, const I *ai, const V *ad,
                              const int64_t *sel, int64_t len)
{
    SP_FOR(r, len)
    {
        const int64_t s = sel[r], b = ap[s], n = ap[s + 1] - b;
        if (!off) {
            cnt[r] = n;
            continue;
        }
        for (int64_t t = 0; t < n; t++) {
            ci[off[r] + t] = ai[b + t];
            cd[off[r] + t] = ad[b + t];
        }
    }
}

template <typename I, typename V>
__global__ void muldense_kernel(V *y, const I *ap, const I *ai, const V *ad, const V *x, int64_t xs0, int64_t xs1,
                                int64_t rows)
{
    SP_FOR(r, rows)
    {
        for (int64_t p = ap[r]; p < ap[r + 1]; p++) y[p] = v_mul(ad[p], x[r * xs0 + (int64_t)ai[p] * xs1]);
    }
}

template <typename I, typename V>
__global__ void rowsums_kernel(V *y, const I *ap, const V *ad, int64_t rows)
{
    SP_FOR(r, rows)
    {
        V s = v_0<V>();
        for (int64_t p = ap[r]; p < ap[r + 1]; p++) s = v_add(s, ad[p]);
        y[r] = s;
    }
}

template <typename I, typename V>
__global__ void diag_kernel(V *y, const I *ap, const I *ai, const V *ad, int64_t k, int64_t len)
{
    const int64_t i0 = k < 0 ? -k : 0;
    SP_FOR(t, len)
    {
        const int64_t r = t + i0;
        V s = v_0<V>();
        for (int64_t p = ap[r]; p < ap[r + 1]; p++)
            if ((int64_t)ai[p] == r + k) s = v_add(s, ad[p]);
        y[t] = s;
    }
}

// ------------------------------------------------------------------
// Building blocks
// ------------------------------------------------------------------
template <typename K, typename... A>
nd_status launch(sp_x &x, const char *what, K kernel, int64_t n, const A &...args)
{
    if (n <= 0) return ND_OK;
    return nd_cuda_status(nd_launch(kernel, nd_grid_for(n, 256), 256, 0, x.s, args...), FN, what);
}

// off (rows + 1 int64) = the exclusive prefix sums of cnt (rows); *total
// its last entry, read back (the op's one wait)
nd_status offsets(sp_x &x, const int64_t *cnt, int64_t *off, int64_t rows, int64_t *total)
{
    ND_CUDA_TRY(cudaMemsetAsync(off, 0, sizeof(int64_t), x.s), FN);
    if (rows > 0) {
        size_t bytes = 0;
        ND_CUDA_TRY(cub::DeviceScan::InclusiveScan((void *)NULL, bytes, cnt, off + 1, add64(), rows, x.s), FN);
        char *tmp;
        nd_status st = x.get((int64_t)bytes, &tmp);
        if (st) return st;
        ND_CUDA_TRY(cub::DeviceScan::InclusiveScan((void *)tmp, bytes, cnt, off + 1, add64(), rows, x.s), FN);
    }
    ND_CUDA_TRY(cudaMemcpyAsync(total, off + rows, sizeof(int64_t), cudaMemcpyDeviceToHost, x.s), FN);
    ND_CUDA_TRY(cudaStreamSynchronize(x.s), FN);
    return ND_OK;
}

nd_status too_many()
{
    return nd__err(ND_ERR_INVALID, "sparse", "the result has more than %d stored entries, more than int32 indices "
                   "address; convert the operands to int64 indices", INT32_MAX);
}

// The two passes of an op that makes a matrix of `rows` rows: pass(cnt,
// NULL, NULL, NULL) counts per row, pass(NULL, off, ci, cd) fills; the
// result (index dtype it) goes to *o.
template <typename I, typename V, typename P>
nd_status two_pass(sp_x &x, nd_sp_csr *o, int64_t rows, int64_t cols, nd_dtype it, nd_dtype vt, P pass)
{
    int64_t *cnt, *off, total = 0;
    nd_status st;
    if ((st = x.get(rows, &cnt)) || (st = x.get(rows + 1, &off))) return st;
    if ((st = pass(cnt, (const int64_t *)NULL, (I *)NULL, (V *)NULL))) return st;
    if ((st = offsets(x, cnt, off, rows, &total))) return st;
    if (sizeof(I) == 4 && total > INT32_MAX) return too_many();
    nd_sp_csr r;
    if ((st = csr_alloc(&r, rows, cols, total, it, vt, x.device))) return st;
    if (!(st = launch(x, "the indptr kernel", narrow_kernel<I>, rows + 1, (I *)nd__ptr(r.indptr), (const int64_t *)off,
                      rows + 1)) &&
        !(st = pass((int64_t *)NULL, (const int64_t *)off, (I *)nd__ptr(r.indices), (V *)nd__ptr(r.data)))) {
        *o = r;
        return ND_OK;
    }
    csr_release(&r);
    return st;
}

// The canonical compaction of the CSR (ap, ai, ad), rows x cols, nnz
// entries: each row sorted by column (stable) when flags has ND_SP_SORT,
// then adjacent equal columns summed (ND_SP_SUM), zeros dropped
// (ND_SP_DROP_ZEROS); the result (new arrays) into *o.
template <typename I, typename V>
nd_status canon(sp_x &x, nd_sp_csr *o, const I *ap, const I *ai, const V *ad, int64_t rows, int64_t cols,
                int64_t nnz, unsigned flags, nd_dtype it, nd_dtype vt)
{
    nd_status st;
    if ((flags & ND_SP_SORT) && nnz > 0 && rows > 0) {
        I *ti;
        V *td;
        int64_t *iota, *perm;
        if ((st = x.get(nnz, &ti)) || (st = x.get(nnz, &td)) || (st = x.get(nnz, &iota)) || (st = x.get(nnz, &perm)))
            return st;
        if ((st = launch(x, "the iota kernel", iota_kernel, nnz, iota, nnz))) return st;
        size_t bytes = 0;
        ND_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairs((void *)NULL, bytes, ai, ti, (const int64_t *)iota, perm,
                                                              nnz, rows, ap, ap + 1, x.s),
                    FN);
        char *tmp;
        if ((st = x.get((int64_t)bytes, &tmp))) return st;
        ND_CUDA_TRY(cub::DeviceSegmentedSort::StableSortPairs((void *)tmp, bytes, ai, ti, (const int64_t *)iota, perm,
                                                              nnz, rows, ap, ap + 1, x.s),
                    FN);
        if ((st = launch(x, "the permute kernel", permute_kernel<V>, nnz, td, ad, (const int64_t *)perm, nnz)))
            return st;
        ai = ti;
        ad = td;
    }
    return two_pass<I, V>(x, o, rows, cols, it, vt, [&](int64_t *cnt, const int64_t *off, I *ci, V *cd) {
        return launch(x, "the compaction kernel", compact_kernel<I, V>, rows, cnt, off, ci, cd, ap, ai, ad, rows,
                      flags);
    });
}

// key-sorted positions: perm_out = the stable order of keys (n), keys_out
// the sorted keys; perm_in NULL: the identity
template <typename I>
nd_status sort_by(sp_x &x, const I *keys, I *keys_out, const int64_t *perm_in, int64_t *perm_out, int64_t n)
{
    nd_status st;
    if (!perm_in) {
        int64_t *iota;
        if ((st = x.get(n, &iota)) || (st = launch(x, "the iota kernel", iota_kernel, n, iota, n))) return st;
        perm_in = iota;
    }
    size_t bytes = 0;
    ND_CUDA_TRY(cub::DeviceRadixSort::SortPairs((void *)NULL, bytes, keys, keys_out, perm_in, perm_out, n, 0,
                                                (int)sizeof(I) * 8, x.s),
                FN);
    char *tmp;
    if ((st = x.get((int64_t)bytes, &tmp))) return st;
    ND_CUDA_TRY(cub::DeviceRadixSort::SortPairs((void *)tmp, bytes, keys, keys_out, perm_in, perm_out, n, 0,
                                                (int)sizeof(I) * 8, x.s),
                FN);
    return ND_OK;
}

// ------------------------------------------------------------------
// The ops
// ------------------------------------------------------------------
template <typename I, typename V>
nd_status op_spmm(sp_x &x, nd_sp_call *c)
{
    const nd_sp_csr &a = c->a;
    const int64_t nnz = a.indices->size, k = c->k;
    V *y = (V *)nd__ptr(c->y);
    if (a.rows == 0 || k == 0) return ND_OK;
    if (nnz == 0 || a.cols == 0) {
        ND_CUDA_TRY(cudaMemsetAsync(y, 0, (size_t)(a.rows * k) * sizeof(V), x.s), FN);
        return ND_OK;
    }
    cusparseHandle_t h;
    nd_status st = sparse_handle(x.device.id, x.s, &h);
    if (st) return st;
    const cudaDataType t = v_type<V>::t, ct = v_compute<V>::t;
    typedef typename v_compute<V>::S S;
    const S one = v_1<S>(), zero = v_0<S>();
    sp_mat A;
    ND_SPARSE_TRY(cusparseCreateCsr(&A.d, a.rows, a.cols, nnz, nd__ptr(a.indptr), nd__ptr(a.indices),
                                    nd__ptr(a.data), i_type<I>(), i_type<I>(), CUSPARSE_INDEX_BASE_ZERO, t),
                  "CreateCsr");
    size_t bytes = 0;
    char *buf;
    if (k == 1) {
        dn_vec X, Y;
        ND_SPARSE_TRY(cusparseCreateDnVec(&X.d, a.cols, nd__ptr(c->x), t), "CreateDnVec");
        ND_SPARSE_TRY(cusparseCreateDnVec(&Y.d, a.rows, y, t), "CreateDnVec");
        ND_SPARSE_TRY(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A.d, X.d, &zero, Y.d, ct,
                                              CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
                      "SpMV_bufferSize");
        if ((st = x.get((int64_t)bytes, &buf))) return st;
        ND_SPARSE_TRY(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A.d, X.d, &zero, Y.d, ct,
                                   CUSPARSE_SPMV_ALG_DEFAULT, buf),
                      "SpMV");
        return ND_OK;
    }
    dn_mat X, Y;
    ND_SPARSE_TRY(cusparseCreateDnMat(&X.d, a.cols, k, k, nd__ptr(c->x), t, CUSPARSE_ORDER_ROW), "CreateDnMat");
    ND_SPARSE_TRY(cusparseCreateDnMat(&Y.d, a.rows, k, k, y, t, CUSPARSE_ORDER_ROW), "CreateDnMat");
    ND_SPARSE_TRY(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                          A.d, X.d, &zero, Y.d, ct, CUSPARSE_SPMM_ALG_DEFAULT, &bytes),
                  "SpMM_bufferSize");
    if ((st = x.get((int64_t)bytes, &buf))) return st;
    ND_SPARSE_TRY(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A.d, X.d,
                               &zero, Y.d, ct, CUSPARSE_SPMM_ALG_DEFAULT, buf),
                  "SpMM");
    return ND_OK;
}

// one int32 CSR for cuSPARSE's SpGEMM: canonical, narrowed from int64
template <typename I, typename V>
nd_status gemm_operand(sp_x &x, const nd_sp_csr &m, nd_sp_csr *canon_out, const int32_t **p, const int32_t **i,
                       const V **d)
{
    const int64_t nnz = m.indices->size;
    nd_status st = canon<I, V>(x, canon_out, (const I *)nd__ptr(m.indptr), (const I *)nd__ptr(m.indices),
                               (const V *)nd__ptr(m.data), m.rows, m.cols, nnz, ND_SP_SORT | ND_SP_SUM,
                               m.indices->dtype, m.data->dtype);
    if (st) return st;
    *d = (const V *)nd__ptr(canon_out->data);
    if (sizeof(I) == 4) {
        *p = (const int32_t *)nd__ptr(canon_out->indptr);
        *i = (const int32_t *)nd__ptr(canon_out->indices);
        return ND_OK;
    }
    const int64_t n = canon_out->indices->size;
    int32_t *p32, *i32;
    if ((st = x.get(m.rows + 1, &p32)) || (st = x.get(n, &i32)) ||
        (st = launch(x, "the index conversion kernel", convert_kernel<int32_t, int64_t>, m.rows + 1, p32,
                     (const int64_t *)nd__ptr(canon_out->indptr), m.rows + 1)) ||
        (st = launch(x, "the index conversion kernel", convert_kernel<int32_t, int64_t>, n, i32,
                     (const int64_t *)nd__ptr(canon_out->indices), n)))
        return st;
    *p = p32;
    *i = i32;
    return ND_OK;
}

template <typename I, typename V>
nd_status op_spgemm(sp_x &x, nd_sp_call *c)
{
    const nd_sp_csr &a = c->a, &b = c->b;
    const nd_dtype it = a.indices->dtype, vt = a.data->dtype;
    const int64_t m = a.rows, n = b.cols;
    if (a.indices->size == 0 || b.indices->size == 0 || m == 0 || n == 0 || a.cols == 0) {
        nd_sp_csr o;
        nd_status st = csr_alloc(&o, m, n, 0, it, vt, x.device);
        if (st) return st;
        ND_CUDA_TRY(cudaMemsetAsync(nd__ptr(o.indptr), 0, (size_t)(m + 1) * sizeof(I), x.s), FN);
        c->c = o;
        return ND_OK;
    }
    if (m > INT32_MAX || n > INT32_MAX || a.cols > INT32_MAX || a.indices->size > INT32_MAX ||
        b.indices->size > INT32_MAX)
        return nd__err(ND_ERR_UNSUPPORTED, "sparse",
                       "cuSPARSE's SpGEMM takes 32-bit indices: a (%lld x %lld, %lld entries) @ b (%lld x %lld, %lld "
                       "entries) does not fit them",
                       (long long)m, (long long)a.cols, (long long)a.indices->size, (long long)b.rows, (long long)n,
                       (long long)b.indices->size);
    nd_sp_csr ca = {}, cb = {};
    struct rel {
        nd_sp_csr *a, *b;
        ~rel()
        {
            csr_release(a);
            csr_release(b);
        }
    } rel_{&ca, &cb};
    const int32_t *ap, *ai, *bp, *bi;
    const V *ad, *bd;
    nd_status st;
    if ((st = gemm_operand<I, V>(x, a, &ca, &ap, &ai, &ad)) || (st = gemm_operand<I, V>(x, b, &cb, &bp, &bi, &bd)))
        return st;
    cusparseHandle_t h;
    if ((st = sparse_handle(x.device.id, x.s, &h))) return st;
    const cudaDataType t = v_type<V>::t;
    const V one = v_1<V>(), zero = v_0<V>();
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
    sp_mat A, B, C;
    gemm_descr g;
    int32_t *cp;
    if ((st = x.get(m + 1, &cp))) return st;
    ND_SPARSE_TRY(cusparseCreateCsr(&A.d, m, a.cols, ca.indices->size, (void *)ap, (void *)ai, (void *)ad,
                                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, t),
                  "CreateCsr");
    ND_SPARSE_TRY(cusparseCreateCsr(&B.d, b.rows, n, cb.indices->size, (void *)bp, (void *)bi, (void *)bd,
                                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, t),
                  "CreateCsr");
    ND_SPARSE_TRY(cusparseCreateCsr(&C.d, m, n, 0, cp, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                    CUSPARSE_INDEX_BASE_ZERO, t),
                  "CreateCsr");
    ND_SPARSE_TRY(cusparseSpGEMM_createDescr(&g.d), "SpGEMM_createDescr");
    size_t b1 = 0, b2 = 0;
    char *w1, *w2;
    ND_SPARSE_TRY(cusparseSpGEMM_workEstimation(h, N, N, &one, A.d, B.d, &zero, C.d, t, CUSPARSE_SPGEMM_DEFAULT, g.d,
                                                &b1, NULL),
                  "SpGEMM_workEstimation");
    if ((st = x.get((int64_t)b1, &w1))) return st;
    ND_SPARSE_TRY(cusparseSpGEMM_workEstimation(h, N, N, &one, A.d, B.d, &zero, C.d, t, CUSPARSE_SPGEMM_DEFAULT, g.d,
                                                &b1, w1),
                  "SpGEMM_workEstimation");
    ND_SPARSE_TRY(cusparseSpGEMM_compute(h, N, N, &one, A.d, B.d, &zero, C.d, t, CUSPARSE_SPGEMM_DEFAULT, g.d, &b2,
                                         NULL),
                  "SpGEMM_compute");
    if ((st = x.get((int64_t)b2, &w2))) return st;
    ND_SPARSE_TRY(cusparseSpGEMM_compute(h, N, N, &one, A.d, B.d, &zero, C.d, t, CUSPARSE_SPGEMM_DEFAULT, g.d, &b2,
                                         w2),
                  "SpGEMM_compute");
    int64_t rr = 0, cc = 0, nnz = 0;
    ND_SPARSE_TRY(cusparseSpMatGetSize(C.d, &rr, &cc, &nnz), "SpMatGetSize");
    int32_t *ci;
    V *cd;
    if ((st = x.get(nnz, &ci)) || (st = x.get(nnz, &cd))) return st;
    ND_SPARSE_TRY(cusparseCsrSetPointers(C.d, cp, ci, cd), "CsrSetPointers");
    ND_SPARSE_TRY(cusparseSpGEMM_copy(h, N, N, &one, A.d, B.d, &zero, C.d, t, CUSPARSE_SPGEMM_DEFAULT, g.d),
                  "SpGEMM_copy");
    const unsigned flags = ND_SP_SORT | ND_SP_SUM | ND_SP_DROP_ZEROS;
    if (sizeof(I) == 4) return canon<I, V>(x, &c->c, (const I *)cp, (const I *)ci, cd, m, n, nnz, flags, it, vt);
    int64_t *p64, *i64;
    if ((st = x.get(m + 1, &p64)) || (st = x.get(nnz, &i64)) ||
        (st = launch(x, "the index conversion kernel", convert_kernel<int64_t, int32_t>, m + 1, p64,
                     (const int32_t *)cp, m + 1)) ||
        (st = launch(x, "the index conversion kernel", convert_kernel<int64_t, int32_t>, nnz, i64,
                     (const int32_t *)ci, nnz)))
        return st;
    return canon<I, V>(x, &c->c, (const I *)p64, (const I *)i64, cd, m, n, nnz, flags, it, vt);
}

// c = the CSR of entries (row[p], col[p], val[p]) (rows x cols): sorted by
// (row, column) stably, duplicates summed with flags ND_SP_SUM
template <typename I, typename V>
nd_status op_from_coo(sp_x &x, nd_sp_call *c)
{
    const nd_sp_csr &a = c->a;
    const int64_t n = a.indices->size;
    const nd_dtype it = a.indices->dtype, vt = a.data->dtype;
    I *col_s, *row1, *row_s, *ci, *tp;
    V *cd;
    int64_t *perm1, *perm2;
    nd_status st;
    if ((st = x.get(n, &col_s)) || (st = x.get(n, &row1)) || (st = x.get(n, &row_s)) || (st = x.get(n, &ci)) ||
        (st = x.get(n, &cd)) || (st = x.get(n, &perm1)) || (st = x.get(n, &perm2)) || (st = x.get(a.rows + 1, &tp)))
        return st;
    const I *col = (const I *)nd__ptr(a.indices), *row = (const I *)nd__ptr(c->row);
    if (n > 0) {
        if ((st = sort_by<I>(x, col, col_s, NULL, perm1, n)) ||
            (st = launch(x, "the permute kernel", permute_kernel<I>, n, row1, row, (const int64_t *)perm1, n)) ||
            (st = sort_by<I>(x, row1, row_s, perm1, perm2, n)) ||
            (st = launch(x, "the permute kernel", permute_kernel<I>, n, ci, col, (const int64_t *)perm2, n)) ||
            (st = launch(x, "the permute kernel", permute_kernel<V>, n, cd, (const V *)nd__ptr(a.data),
                         (const int64_t *)perm2, n)))
            return st;
    }
    if ((st = launch(x, "the indptr kernel", ptr_from_sorted_kernel<I>, a.rows + 1, tp, (const I *)row_s, n, a.rows)))
        return st;
    return canon<I, V>(x, &c->c, tp, ci, cd, a.rows, a.cols, n, c->flags & ND_SP_SUM, it, vt);
}

template <typename I, typename V>
nd_status op_transpose(sp_x &x, nd_sp_call *c)
{
    const nd_sp_csr &a = c->a;
    const int64_t n = a.indices->size;
    nd_sp_csr o;
    nd_status st = csr_alloc(&o, a.cols, a.rows, n, a.indices->dtype, a.data->dtype, x.device);
    if (st) return st;
    I *rows, *keys, *op = (I *)nd__ptr(o.indptr);
    int64_t *perm;
    const I *ap = (const I *)nd__ptr(a.indptr);
    if ((st = x.get(n, &rows)) || (st = x.get(n, &keys)) || (st = x.get(n, &perm))) goto fail;
    if (n > 0 &&
        ((st = launch(x, "the expand kernel", expand_kernel<I>, a.rows, rows, ap, a.rows)) ||
         (st = sort_by<I>(x, (const I *)nd__ptr(a.indices), keys, NULL, perm, n)) ||
         (st = launch(x, "the permute kernel", permute_kernel<I>, n, (I *)nd__ptr(o.indices), (const I *)rows,
                      (const int64_t *)perm, n)) ||
         (st = launch(x, "the permute kernel", permute_kernel<V>, n, (V *)nd__ptr(o.data), (const V *)nd__ptr(a.data),
                      (const int64_t *)perm, n))))
        goto fail;
    if ((st = launch(x, "the indptr kernel", ptr_from_sorted_kernel<I>, a.cols + 1, op, (const I *)keys, n, a.cols)))
        goto fail;
    c->c = o;
    return ND_OK;
fail:
    csr_release(&o);
    return st;
}

template <typename I, typename V>
nd_status run(sp_x &x, nd_sp_call *c)
{
    const nd_sp_csr &a = c->a;
    const I *ap = a.indptr ? (const I *)nd__ptr(a.indptr) : NULL;
    const I *ai = a.indices ? (const I *)nd__ptr(a.indices) : NULL;
    const V *ad = a.data ? (const V *)nd__ptr(a.data) : NULL;
    const int64_t nnz = a.indices ? a.indices->size : 0;
    const nd_dtype it = c->index_dtype;
    const nd_dtype vt = a.data ? a.data->dtype : c->x->dtype;
    switch (c->op) {
    case ND_SP_SPMM: return op_spmm<I, V>(x, c);
    case ND_SP_TO_DENSE:
        if (a.rows * a.cols == 0) return ND_OK;
        ND_CUDA_TRY(cudaMemsetAsync(nd__ptr(c->y), 0, (size_t)(a.rows * a.cols) * sizeof(V), x.s), FN);
        return launch(x, "the to-dense kernel", todense_kernel<I, V>, a.rows, (V *)nd__ptr(c->y), ap, ai, ad, a.rows,
                      a.cols);
    case ND_SP_FROM_DENSE: {
        const V *xd = (const V *)nd__ptr(c->x);
        const int64_t rows = a.rows, cols = a.cols;
        return two_pass<I, V>(x, &c->c, rows, cols, it, vt, [&](int64_t *cnt, const int64_t *off, I *ci, V *cd) {
            return launch(x, "the from-dense kernel", fromdense_kernel<V>, rows, cnt, off,
                          sizeof(I) == 4 ? (int32_t *)ci : (int32_t *)NULL,
                          sizeof(I) == 8 ? (int64_t *)ci : (int64_t *)NULL, cd, xd, rows, cols);
        });
    }
    case ND_SP_FROM_COO: return op_from_coo<I, V>(x, c);
    case ND_SP_TRANSPOSE: return op_transpose<I, V>(x, c);
    case ND_SP_EXPAND: {
        nd_status st = alloc1(&c->row, it, nnz, x.device);
        if (st) return st;
        if ((st = launch(x, "the expand kernel", expand_kernel<I>, a.rows, (I *)nd__ptr(c->row), ap, a.rows))) {
            nd_release(c->row);
            c->row = NULL;
        }
        return st;
    }
    case ND_SP_CANON: return canon<I, V>(x, &c->c, ap, ai, ad, a.rows, a.cols, nnz, c->flags, it, vt);
    case ND_SP_SPGEMM: return op_spgemm<I, V>(x, c);
    case ND_SP_BINOP: {
        const I *bp = (const I *)nd__ptr(c->b.indptr), *bi = (const I *)nd__ptr(c->b.indices);
        const V *bd = (const V *)nd__ptr(c->b.data);
        const bool mul = c->flags & ND_SP_MUL;
        const double al = c->alpha, be = c->beta;
        const int64_t rows = a.rows;
        return two_pass<I, V>(x, &c->c, rows, a.cols, it, vt, [&](int64_t *cnt, const int64_t *off, I *ci, V *cd) {
            return launch(x, "the binop kernel", binop_kernel<I, V>, rows, cnt, off, ci, cd, ap, ai, ad, bp, bi, bd,
                          rows, mul, al, be);
        });
    }
    case ND_SP_MUL_DENSE:
        return launch(x, "the multiply kernel", muldense_kernel<I, V>, a.rows, (V *)nd__ptr(c->y), ap, ai, ad,
                      (const V *)nd__ptr(c->x), c->x->strides[0], c->x->strides[1], a.rows);
    case ND_SP_ROW_SUMS:
        return launch(x, "the row-sum kernel", rowsums_kernel<I, V>, a.rows, (V *)nd__ptr(c->y), ap, ad, a.rows);
    case ND_SP_DIAG:
        return launch(x, "the diagonal kernel", diag_kernel<I, V>, c->y->size, (V *)nd__ptr(c->y), ap, ai, ad, c->k,
                      c->y->size);
    case ND_SP_GATHER: {
        const int64_t len = c->x->size;
        const int64_t *sel = (const int64_t *)nd__ptr(c->x);
        return two_pass<I, V>(x, &c->c, len, a.cols, it, vt, [&](int64_t *cnt, const int64_t *off, I *ci, V *cd) {
            return launch(x, "the gather kernel", gather_kernel<I, V>, len, cnt, off, ci, cd, ap, ai, ad, sel, len);
        });
    }
    default: return nd__err(ND_ERR_INTERNAL, FN, "unknown sparse op %d", c->op);
    }
}

template <typename I>
nd_status run_v(sp_x &x, nd_sp_call *c, nd_dtype vt)
{
    switch (vt) {
    case ND_FLOAT32: return run<I, float>(x, c);
    case ND_FLOAT64: return run<I, double>(x, c);
    case ND_COMPLEX64: return run<I, cx<float>>(x, c);
    case ND_COMPLEX128: return run<I, cx<double>>(x, c);
    // half values reach the slot in SpMV/SpMM only (the contract)
    case ND_FLOAT16:
        if (c->op == ND_SP_SPMM) return op_spmm<I, h16>(x, c);
        break;
    case ND_BFLOAT16:
        if (c->op == ND_SP_SPMM) return op_spmm<I, bh16>(x, c);
        break;
    default: break;
    }
    return nd__err(ND_ERR_INTERNAL, FN, "sparse: op %d with value dtype %s", c->op, nd_dtype_name(vt));
}

} // namespace

extern "C" nd_status nd__cuda_sparse(struct nd_sp_call *c)
{
    const nd_array *any = c->a.data ? c->a.data : c->x;
    if (c->a.indices) c->index_dtype = c->a.indices->dtype;
    nd_device_guard guard(any->device.id);
    nd_status st;
    {
        sp_x x(any->device);
        st = c->index_dtype == ND_INT64 ? run_v<int64_t>(x, c, any->dtype) : run_v<int32_t>(x, c, any->dtype);
    } // scratch freed, stream-ordered
    return st;
}
