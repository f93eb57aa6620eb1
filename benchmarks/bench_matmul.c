/* bench_matmul - nd_matmul for float32/float64 square matrices n = 64,
 * 256, 1024, 2048, 4096 (--quick: up to 2048), a transposed operand
 * (a.T @ b), and batches 1000 x (16x16) and 100 x (128x128); on the CPU
 * also bfloat16 and float16 n = 2048 (against cblas_sgemm on
 * float32 copies of the same values, and through the float32 2048 case
 * against NumPy float32 in the same run). On a GPU
 * also n = 8192 (--quick too) in float32 (exact), float32 with TF32
 * tensor cores (nd_set_matmul_tf32(true) for that case only; layout
 * "tf32"), float16 and bfloat16.
 *
 * The raw BLAS on the same data is timed in the same run as the ceiling
 * (ratio_to_raw = raw median / nd_matmul median in the JSON): on the CPU
 * cblas_sgemm/dgemm (a loop of gemm calls for the batches); on the GPU
 * cublasGemmEx / cublasGemmStridedBatchedEx on the same device buffers,
 * with the math mode and compute type the library uses
 * (CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
 * CUBLAS_COMPUTE_32F, _32F_FAST_TF32 for the TF32 case, _64F), on the
 * legacy default stream. Every result (libndgpu's and the raw one) is
 * checked once: Freivalds' test in double precision (C x against A (B x)
 * for a random x) up to n = 4096; for n = 8192 384 sampled entries
 * against a double-precision dot product of the same inputs. Tolerances,
 * relative to sum |a||b|: float64 1e-13, float32 1e-5 (Freivalds) / 1e-4
 * (samples), TF32, float16, bfloat16 1e-2.
 *
 * complex64 and complex128 n = 1024 on every device (NumPy's
 * complex matmul; raw cblas_cgemm/zgemm or cublasGemmEx with CUDA_C_32F /
 * CUDA_C_64F as the ceiling). Their inputs are generated as (re, im) pairs
 * (a float32/float64 (n, n, 2) base, parts in [-1, 1)) that both sides view
 * as complex (call "pairs": true, as bench_complex and bench_fft do), the
 * result is checked with a complex Freivalds test (complex64 1e-5,
 * complex128 1e-13) and checksummed as (re, im) pairs in C order; flops
 * are 8 n^3 (a complex multiply-add is 8 real flops). */
#include "bench_common.h"

#include "cpu/blas.h"
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef ND_WITH_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

enum { K_SQUARE, K_TRANS_A, K_BATCH };
static const char *const kind_layout[] = {"contig", "aT", "batched"};
#define BIG_N 8192  /* GPU only: the GEMM goals */
#define L_TF32 1    /* bench_case.layout: float32 with TF32 tensor cores */

typedef struct mm_call {
    nd_array *a, *b, *out;
} mm_call;

static int mm_run(void *p)
{
    mm_call *c = p;
    return nd_matmul(&c->out, c->a, c->b);
}

typedef struct raw_call {
    nd_dtype t;
    bool trans_a;
    int batch, n;
    const void *a, *b;
    void *c;
} raw_call;

static int raw_run(void *p)
{
    raw_call *r = p;
    int n = r->n;
    size_t mat = (size_t)n * (size_t)n;
    CBLAS_TRANSPOSE ta = r->trans_a ? CblasTrans : CblasNoTrans;
    static const float one_c[2] = {1.0f, 0.0f}, zero_c[2] = {0.0f, 0.0f};
    static const double one_z[2] = {1.0, 0.0}, zero_z[2] = {0.0, 0.0};
    for (int i = 0; i < r->batch; i++) {
        if (r->t == ND_COMPLEX64)
            cblas_cgemm(CblasRowMajor, ta, CblasNoTrans, n, n, n, one_c, (const float *)r->a + 2 * i * mat, n,
                        (const float *)r->b + 2 * i * mat, n, zero_c, (float *)r->c + 2 * i * mat, n);
        else if (r->t == ND_COMPLEX128)
            cblas_zgemm(CblasRowMajor, ta, CblasNoTrans, n, n, n, one_z, (const double *)r->a + 2 * i * mat, n,
                        (const double *)r->b + 2 * i * mat, n, zero_z, (double *)r->c + 2 * i * mat, n);
        else if (r->t == ND_FLOAT32)
            cblas_sgemm(CblasRowMajor, ta, CblasNoTrans, n, n, n, 1.0f, (const float *)r->a + i * mat, n,
                        (const float *)r->b + i * mat, n, 0.0f, (float *)r->c + i * mat, n);
        else
            cblas_dgemm(CblasRowMajor, ta, CblasNoTrans, n, n, n, 1.0, (const double *)r->a + i * mat, n,
                        (const double *)r->b + i * mat, n, 0.0, (double *)r->c + i * mat, n);
    }
    return 0;
}

#ifdef ND_WITH_CUDA
/* Raw cuBLAS: the same product on the same device buffers. Row-major
 * C = op(A) B is column-major C^T = B^T op(A)^T: cuBLAS gets B first. */
static cublasHandle_t g_cublas;

typedef struct cu_call {
    nd_dtype t;
    bool tf32, trans_a;
    int batch, n;
    const void *a, *b;
    void *c;
} cu_call;

static int cu_run(void *p)
{
    cu_call *r = p;
    cudaDataType dt;
    cublasComputeType_t ct;
    switch (r->t) {
    case ND_FLOAT16: dt = CUDA_R_16F, ct = CUBLAS_COMPUTE_32F; break;
    case ND_BFLOAT16: dt = CUDA_R_16BF, ct = CUBLAS_COMPUTE_32F; break;
    case ND_FLOAT32: dt = CUDA_R_32F, ct = r->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F; break;
    case ND_COMPLEX64: dt = CUDA_C_32F, ct = CUBLAS_COMPUTE_32F; break;
    case ND_COMPLEX128: dt = CUDA_C_64F, ct = CUBLAS_COMPUTE_64F; break;
    default: dt = CUDA_R_64F, ct = CUBLAS_COMPUTE_64F; break;
    }
    /* complex alpha/beta: (1, 0) and (0, 0), the layout of cuComplex / cuDoubleComplex */
    static const float af[2] = {1.0f, 0.0f}, bf[2] = {0.0f, 0.0f};
    static const double ad[2] = {1.0, 0.0}, bd[2] = {0.0, 0.0};
    const bool dbl = r->t == ND_FLOAT64 || r->t == ND_COMPLEX128;
    const void *alpha = dbl ? (const void *)ad : (const void *)af;
    const void *beta = dbl ? (const void *)bd : (const void *)bf;
    const int n = r->n;
    const cublasOperation_t opa = r->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasStatus_t st;
    if (r->batch == 1)
        st = cublasGemmEx(g_cublas, CUBLAS_OP_N, opa, n, n, n, alpha, r->b, dt, n, r->a, dt, n, beta, r->c, dt, n, ct,
                          CUBLAS_GEMM_DEFAULT);
    else
        st = cublasGemmStridedBatchedEx(g_cublas, CUBLAS_OP_N, opa, n, n, n, alpha, r->b, dt, n, (long long)n * n,
                                        r->a, dt, n, (long long)n * n, beta, r->c, dt, n, (long long)n * n, r->batch,
                                        ct, CUBLAS_GEMM_DEFAULT);
    return st == CUBLAS_STATUS_SUCCESS ? ND_OK : ND_ERR_BACKEND;
}

static bool cublas_ready(bench_record *raw)
{
    if (g_cublas) return true;
    cublasStatus_t st = cublasCreate(&g_cublas);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasSetMathMode(g_cublas,
                               (cublasMath_t)(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
    if (st != CUBLAS_STATUS_SUCCESS) {
        raw->status = BS_ERROR;
        snprintf(raw->message, sizeof raw->message, "cublasCreate/cublasSetMathMode failed: status %d", (int)st);
        if (g_cublas) cublasDestroy(g_cublas);
        g_cublas = NULL;
        return false;
    }
    return true;
}
#endif

/* Sampled check of an n x n product (one batch item): 384 entries (the
 * four corners, then pseudo-random (i, j)) against the dot product of row
 * i of op(A) and column j of B in double precision; |C_ij - ref| <= rtol *
 * sum_k |op(A)_ik B_kj|. For n = 8192, where Freivalds would need the whole
 * result as doubles three times over for no better evidence. */
static bool sample_check(bench_record *r, const double *a, const double *b, const double *c, int n, bool trans_a,
                         double rtol)
{
    enum { NS = 384 };
    int bad = NS;
    double bad_got = 0, bad_ref = 0;
    int bad_i = 0, bad_j = 0;
#pragma omp parallel for schedule(dynamic, 8)
    for (int sidx = 0; sidx < NS; sidx++) {
        int i = sidx < 4 ? (sidx & 1) * (n - 1) : (int)(bench_u01(97, 2 * (uint64_t)sidx) * n);
        int j = sidx < 4 ? (sidx >> 1) * (n - 1) : (int)(bench_u01(97, 2 * (uint64_t)sidx + 1) * n);
        double z = 0, zb = 0;
        for (int k = 0; k < n; k++) {
            double aik = trans_a ? a[(size_t)k * n + i] : a[(size_t)i * n + k];
            double pr = aik * b[(size_t)k * n + j];
            z += pr, zb += fabs(pr);
        }
        double g = c[(size_t)i * n + j];
        if (!(fabs(g - z) <= rtol * zb)) {
#pragma omp critical
            if (sidx < bad) bad = sidx, bad_got = g, bad_ref = z, bad_i = i, bad_j = j;
        }
    }
    if (bad < NS) {
        r->status = BS_WRONG;
        snprintf(r->message, sizeof r->message,
                 "sampled check failed at (%d, %d): got %.9g, the double-precision dot product is %.9g (rtol %g)",
                 bad_i, bad_j, bad_got, bad_ref, rtol);
        return false;
    }
    return true;
}

/* Freivalds: for each batch item, y = B x, z = op(A) y, w = C x; the
 * largest |w - z| must be within tol * (sum |op(A)| |B| |x|) row-wise.
 * a_host/b_host are the base (stored) matrices; trans_a reads A^T. */
static bool freivalds(bench_record *r, const double *a, const double *b, const double *c, int batch, int n,
                      bool trans_a, double rtol)
{
    double *x = malloc(3 * (size_t)n * sizeof(double) + 1), *bound = malloc((size_t)n * sizeof(double) + 1);
    if (!x || !bound) {
        free(x), free(bound);
        r->status = BS_ERROR;
        snprintf(r->message, sizeof r->message, "out of host memory for the check");
        return false;
    }
    double *y = x + n, *w = x + 2 * n;
    size_t mat = (size_t)n * (size_t)n;
    bool ok = true;
    for (int bi = 0; bi < batch && ok; bi++) {
        const double *A = a + bi * mat, *B = b + bi * mat, *C = c + bi * mat;
        for (int k = 0; k < n; k++) x[k] = 0.25 + bench_u01(99, (uint64_t)(bi * n + k));
        for (int i = 0; i < n; i++) { /* y = B x, bound = |B| |x| */
            double s = 0, t = 0;
            for (int k = 0; k < n; k++) s += B[(size_t)i * n + k] * x[k], t += fabs(B[(size_t)i * n + k] * x[k]);
            y[i] = s, bound[i] = t;
        }
        for (int i = 0; i < n && ok; i++) {
            double z = 0, zb = 0, cw = 0;
            for (int k = 0; k < n; k++) {
                double aik = trans_a ? A[(size_t)k * n + i] : A[(size_t)i * n + k];
                z += aik * y[k];
                zb += fabs(aik) * bound[k];
                cw += C[(size_t)i * n + k] * x[k];
            }
            w[i] = cw;
            if (!(fabs(cw - z) <= rtol * zb)) {
                ok = false;
                r->status = BS_WRONG;
                snprintf(r->message, sizeof r->message,
                         "Freivalds check failed: batch %d row %d: (C x) = %.17g but A (B x) = %.17g", bi, i, cw, z);
            }
        }
    }
    free(x), free(bound);
    return ok;
}

static bool is_cpx(nd_dtype t) { return t == ND_COMPLEX64 || t == ND_COMPLEX128; }

static void fill_record(bench_record *r, const bench_case *c, const char *op)
{
    int n = (int)c->p[0], batch = (int)c->p[1];
    snprintf(r->op, sizeof r->op, "%s", op);
    snprintf(r->layout, sizeof r->layout, "%s", c->layout == L_TF32 ? "tf32" : kind_layout[c->kind]);
    if (c->kind == K_BATCH) snprintf(r->shape, sizeof r->shape, "%dx%dx%d", batch, n, n);
    else snprintf(r->shape, sizeof r->shape, "%dx%d", n, n);
    r->flops = (is_cpx(c->dtype) ? 8.0 : 2.0) * batch * (double)n * n * n;
}

/* ------------------------------------------------------------------ */
/* Complex cases: (re, im) pairs                                       */
/* ------------------------------------------------------------------ */

/* Input k of a complex case: the bench input is the (n, n, 2) base of
 * float32/float64 pairs (what NumPy regenerates and views as complex);
 * *z the complex array of the same values, *host the pairs as doubles. */
static int make_cpx_input(bench_record *r, const bench_case *c, int k, nd_array **z, double **host)
{
    bench_input *in = &r->inputs[k];
    const bool dbl = c->dtype == ND_COMPLEX128;
    const int64_t n = c->p[0], shape[2] = {n, n};
    in->dtype = dbl ? ND_FLOAT64 : ND_FLOAT32;
    in->ndim = 3, in->shape[0] = n, in->shape[1] = n, in->shape[2] = 2;
    in->view = BV_NONE;
    in->seed = (uint64_t)(21 + k), in->lo = -1.0, in->hi = 1.0;
    nd_array *base = NULL;
    int s = bench_input_make(in, c->dev, &base, host);
    nd_release(base);
    if (s != ND_OK) {
        bench_fail_nd(r, "creating the input", s);
        return s;
    }
    const size_t m = 2 * (size_t)n * (size_t)n;
    void *buf = malloc(m * (dbl ? 8 : 4) + 1);
    if (!buf) {
        bench_fail_nd(r, "host memory for the input", ND_ERR_NOMEM);
        return ND_ERR_NOMEM;
    }
    for (size_t i = 0; i < m; i++) {
        if (dbl) ((double *)buf)[i] = (*host)[i];
        else ((float *)buf)[i] = (float)(*host)[i];
    }
    s = nd_from_host(z, buf, c->dtype, 2, shape, c->dev);
    if (s != ND_OK) bench_fail_nd(r, "nd_from_host", s);
    free(buf);
    return s;
}

/* Freivalds for one complex n x n product given as pairs: w = C x against
 * z = A (B x) for a real random x, each part within rtol * sum |A| |B| |x|. */
static void check_cpx(bench_record *r, const bench_case *c, const double *a, const double *b, const double *got)
{
    const int n = (int)c->p[0];
    const double rtol = c->dtype == ND_COMPLEX64 ? 1e-5 : 1e-13;
    double *x = malloc((size_t)n * sizeof(double) + 1), *bound = malloc((size_t)n * sizeof(double) + 1);
    double complex *y = malloc((size_t)n * sizeof(double complex) + 1);
    if (!x || !bound || !y) {
        free(x), free(bound), free(y);
        bench_fail_nd(r, "host memory for the check", ND_ERR_NOMEM);
        return;
    }
#define CPX_AT(m, i, k) CMPLX((m)[2 * ((size_t)(i) * n + (k))], (m)[2 * ((size_t)(i) * n + (k)) + 1])
    for (int k = 0; k < n; k++) x[k] = 0.25 + bench_u01(99, (uint64_t)k);
    for (int i = 0; i < n; i++) { /* y = B x, bound = |B| |x| */
        double complex s = 0;
        double t = 0;
        for (int k = 0; k < n; k++) s += CPX_AT(b, i, k) * x[k], t += cabs(CPX_AT(b, i, k)) * x[k];
        y[i] = s, bound[i] = t;
    }
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        double complex z = 0, w = 0;
        double zb = 0;
        for (int k = 0; k < n; k++) {
            z += CPX_AT(a, i, k) * y[k];
            zb += cabs(CPX_AT(a, i, k)) * bound[k];
            w += CPX_AT(got, i, k) * x[k];
        }
        if (!(fabs(creal(w) - creal(z)) <= rtol * zb && fabs(cimag(w) - cimag(z)) <= rtol * zb)) {
            ok = false;
            r->status = BS_WRONG;
            snprintf(r->message, sizeof r->message,
                     "complex Freivalds check failed: row %d: (C x) = (%.17g, %.17g) but A (B x) = (%.17g, %.17g)", i,
                     creal(w), cimag(w), creal(z), cimag(z));
        }
    }
#undef CPX_AT
    free(x), free(bound), free(y);
    if (ok) {
        bench_checksum(got, 2 * (int64_t)n * n, r->checksum);
        r->has_checksum = true;
    }
}

/* The raw cblas_cgemm/zgemm on host copies of the same pairs. */
static void raw_cpu_cpx(bench_record *raw, const bench_case *c, double *const host[2])
{
    const int n = (int)c->p[0];
    const bool dbl = c->dtype == ND_COMPLEX128;
    fill_record(raw, c, dbl ? "cblas_zgemm" : "cblas_cgemm");
    const size_t m = 2 * (size_t)n * (size_t)n, es = dbl ? 8 : 4;
    void *ha = malloc(m * es + 1), *hb = malloc(m * es + 1), *hc = malloc(m * es + 1);
    double *dc = malloc(m * sizeof(double) + 1);
    if (!ha || !hb || !hc || !dc) {
        raw->status = BS_ERROR;
        snprintf(raw->message, sizeof raw->message, "out of host memory");
    } else {
        for (size_t i = 0; i < m; i++) {
            if (dbl) ((double *)ha)[i] = host[0][i], ((double *)hb)[i] = host[1][i];
            else ((float *)ha)[i] = (float)host[0][i], ((float *)hb)[i] = (float)host[1][i];
        }
        raw_call rc = {c->dtype, false, 1, n, ha, hb, hc};
        raw_run(&rc);
        for (size_t i = 0; i < m; i++) dc[i] = dbl ? ((double *)hc)[i] : (double)((float *)hc)[i];
        check_cpx(raw, c, host[0], host[1], dc);
        if (raw->status == BS_OK) bench_measure(raw_run, &rc, c->dev, &raw->st);
    }
    free(ha), free(hb), free(hc), free(dc);
}

/* Tolerance of a result check, relative to sum |a||b| (see the top). */
static double check_rtol(const bench_case *c, bool sampled)
{
    if (c->layout == L_TF32 || c->dtype == ND_FLOAT16 || c->dtype == ND_BFLOAT16) return 1e-2;
    if (c->dtype == ND_FLOAT32) return sampled ? 1e-4 : 1e-5;
    return 1e-13;
}

/* Check got (batch x n x n doubles) against the inputs; on success store
 * its checksum in r. */
static void check_result(bench_record *r, const bench_case *c, const double *a, const double *b, const double *got,
                         int64_t size)
{
    int n = (int)c->p[0], batch = (int)c->p[1];
    bool sampled = n > 4096;
    if (size != (int64_t)batch * n * n) {
        r->status = BS_WRONG;
        snprintf(r->message, sizeof r->message, "result has %lld elements", (long long)size);
        return;
    }
    bool ok = sampled ? sample_check(r, a, b, got, n, c->kind == K_TRANS_A, check_rtol(c, true))
                      : freivalds(r, a, b, got, batch, n, c->kind == K_TRANS_A, check_rtol(c, false));
    if (ok) {
        bench_checksum(got, size, r->checksum);
        r->has_checksum = true;
    }
}

/* The raw CPU BLAS on host copies of the same inputs. */
static void raw_cpu(bench_record *raw, const bench_case *c, double *const host[2])
{
    int n = (int)c->p[0], batch = (int)c->p[1];
    /* float16/bfloat16 cases: cblas_sgemm on float32 copies of the same (half) values */
    const nd_dtype rt = c->dtype == ND_FLOAT64 ? ND_FLOAT64 : ND_FLOAT32;
    fill_record(raw, c, rt == ND_FLOAT32 ? "cblas_sgemm" : "cblas_dgemm");
    size_t es = nd_dtype_size(rt), total = (size_t)batch * n * n;
    void *ha = malloc(total * es + 1), *hb = malloc(total * es + 1), *hc = malloc(total * es + 1);
    double *dc = malloc(total * sizeof(double) + 1);
    if (!ha || !hb || !hc || !dc) {
        raw->status = BS_ERROR;
        snprintf(raw->message, sizeof raw->message, "out of host memory");
    } else {
        for (size_t i = 0; i < total; i++) {
            if (rt == ND_FLOAT32) ((float *)ha)[i] = (float)host[0][i], ((float *)hb)[i] = (float)host[1][i];
            else ((double *)ha)[i] = host[0][i], ((double *)hb)[i] = host[1][i];
        }
        raw_call rc = {rt, c->kind == K_TRANS_A, batch, n, ha, hb, hc};
        raw_run(&rc);
        for (size_t i = 0; i < total; i++) dc[i] = rt == ND_FLOAT32 ? (double)((float *)hc)[i] : ((double *)hc)[i];
        check_result(raw, c, host[0], host[1], dc, (int64_t)total);
        if (raw->status == BS_OK) bench_measure(raw_run, &rc, c->dev, &raw->st);
    }
    free(ha), free(hb), free(hc), free(dc);
}

/* The raw cuBLAS call on the device buffers of the nd_matmul case. */
static void raw_gpu(bench_record *raw, const bench_case *c, const nd_array *a, const nd_array *b,
                    double *const host[2])
{
    int n = (int)c->p[0], batch = (int)c->p[1];
    fill_record(raw, c, batch > 1 ? "cublasGemmStridedBatchedEx" : "cublasGemmEx");
#ifdef ND_WITH_CUDA
    nd_array *out = NULL;
    double *got = NULL;
    int s;
    if (!cublas_ready(raw)) return;
    int64_t shape[3] = {batch, n, n};
    if ((s = nd_empty(&out, c->dtype, c->kind == K_BATCH ? 3 : 2, c->kind == K_BATCH ? shape : shape + 1, c->dev)) !=
        ND_OK) {
        bench_fail_nd(raw, "nd_empty", s);
        return;
    }
    cu_call cc = {c->dtype, c->layout == L_TF32, c->kind == K_TRANS_A, batch, n, nd_data(a), nd_data(b), nd_data(out)};
    if ((s = nd_synchronize(c->dev)) != ND_OK || (s = cu_run(&cc)) != ND_OK || (s = nd_synchronize(c->dev)) != ND_OK) {
        raw->status = BS_ERROR;
        snprintf(raw->message, sizeof raw->message, "%s failed (status %d)", raw->op, s);
    } else if (is_cpx(c->dtype)) {
        if ((got = bench_fetch(out, raw))) check_cpx(raw, c, host[0], host[1], got);
    } else if ((got = bench_fetch(out, raw))) {
        check_result(raw, c, host[0], host[1], got, nd_size(out));
    }
    free(got);
    if (raw->status == BS_OK && (s = bench_measure(cu_run, &cc, c->dev, &raw->st)) != ND_OK) {
        raw->status = BS_ERROR;
        snprintf(raw->message, sizeof raw->message, "%s failed while timing (status %d)", raw->op, s);
    }
    nd_release(out);
#else
    (void)a, (void)b, (void)host, (void)n;
    raw->status = BS_SKIPPED;
    snprintf(raw->message, sizeof raw->message, "built without CUDA");
#endif
}

static void run_case(const bench_case *c)
{
    int n = (int)c->p[0], batch = (int)c->p[1];
    bool gpu = c->dev.type == ND_DEVICE_CUDA, tf32 = c->layout == L_TF32;
    bench_record r;
    bench_record_init(&r, "matmul", c);
    fill_record(&r, c, "matmul");
    const bool half_cpu = !gpu && (c->dtype == ND_FLOAT16 || c->dtype == ND_BFLOAT16);
    const bool cpx = is_cpx(c->dtype);
    if (tf32) snprintf(r.call, sizeof r.call, "{\"fn\": \"matmul\", \"tf32\": true}");
    else if (cpx) /* (re, im) pairs that NumPy views as complex */
        snprintf(r.call, sizeof r.call, "{\"fn\": \"matmul\", \"pairs\": true}");
    else if (half_cpu) /* NumPy has no half BLAS path: the float32 case of the same run is its twin */
        snprintf(r.call, sizeof r.call, "{\"fn\": null}");
    else snprintf(r.call, sizeof r.call, "{\"fn\": \"matmul\"}");
    r.ninputs = 2;
    for (int k = 0; k < 2; k++) {
        bench_input *in = &r.inputs[k];
        in->dtype = c->dtype, in->seed = (uint64_t)(21 + k), in->lo = 0.5, in->hi = 1.5;
        if (c->kind == K_BATCH) in->ndim = 3, in->shape[0] = batch, in->shape[1] = n, in->shape[2] = n;
        else in->ndim = 2, in->shape[0] = n, in->shape[1] = n;
        if (k == 0 && c->kind == K_TRANS_A) in->view = BV_T;
    }
    /* TF32 only for the tf32 case (whatever ND_MATMUL_TF32 says) */
    bool tf32_before = nd_get_matmul_tf32();
    nd_set_matmul_tf32(tf32);
    mm_call call = {0};
    double *host[2] = {NULL, NULL}, *got = NULL;
    int s = ND_OK;
    for (int k = 0; k < 2 && s == ND_OK; k++) {
        if (cpx) {
            s = make_cpx_input(&r, c, k, k ? &call.b : &call.a, &host[k]);
            continue;
        }
        s = bench_input_make(&r.inputs[k], c->dev, k ? &call.b : &call.a, &host[k]);
        if (s != ND_OK) bench_fail_nd(&r, "creating the inputs", s);
    }
    if (s == ND_OK && (s = mm_run(&call)) != ND_OK) bench_fail_nd(&r, "nd_matmul", s);
    if (s == ND_OK && cpx) {
        if ((got = bench_fetch(call.out, &r))) check_cpx(&r, c, host[0], host[1], got);
    } else if (s == ND_OK && (got = bench_fetch(call.out, &r))) {
        check_result(&r, c, host[0], host[1], got, nd_size(call.out));
    }
    free(got);
    if (r.status == BS_OK && (s = bench_measure(mm_run, &call, c->dev, &r.st)) != ND_OK)
        bench_fail_nd(&r, "nd_matmul", s);
    nd_set_matmul_tf32(tf32_before);

    /* The raw BLAS ceiling on the same data. */
    bench_record raw;
    bench_record_init(&raw, "matmul", c);
    if (call.a && call.b) { /* the inputs exist */
        if (gpu) raw_gpu(&raw, c, call.a, call.b, host);
        else if (cpx) raw_cpu_cpx(&raw, c, host);
        else raw_cpu(&raw, c, host);
        snprintf(raw.note, sizeof raw.note, "(ceiling)");
        snprintf(raw.extra, sizeof raw.extra, "\"ceiling\": true");
        if (raw.status == BS_OK && r.status == BS_OK && r.st.median > 0 && raw.st.median > 0) {
            double ratio = raw.st.median / r.st.median;
            snprintf(r.extra, sizeof r.extra, "\"ratio_to_raw\": %.6g, \"raw_median_s\": %.6g, \"raw_op\": \"%s\"",
                     ratio, raw.st.median, raw.op);
            snprintf(r.note, sizeof r.note, "(%.2fx raw %s)", ratio, gpu ? "cuBLAS" : "BLAS");
        }
    }
    bench_emit(&r);
    if (raw.op[0]) bench_emit(&raw);
    free(host[0]), free(host[1]);
    nd_release(call.a), nd_release(call.b), nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_matmul",
               "nd_matmul float32/float64: n x n for n = 64, 256, 1024, 2048, 4096 (--quick: up to 2048),\n"
               "a.T @ b, batches 1000 x (16x16) and 100 x (128x128); GPU only (--quick too): n = 8192 in\n"
               "float32, float32 with TF32 (layout tf32), float16, bfloat16. Raw cblas_?gemm (CPU) /\n"
               "cublasGemmEx (GPU) on the same data as the ceiling. Every device: complex64 and complex128\n"
               "n = 1024 (inputs as (re, im) pairs that NumPy views as complex; raw cblas_cgemm/zgemm or\n"
               "cublasGemmEx with CUDA_C_32F/CUDA_C_64F as the ceiling).");
    const nd_dtype dtypes[2] = {ND_FLOAT32, ND_FLOAT64};
    static const int sizes[] = {64, 256, 1024, 2048, 4096};
    int max_n = g_opt.quick ? 2048 : 4096; /* 2048: the float32 twin of the half GEMM cases */
    for (int d = 0; d < bench_num_devices(); d++) {
        nd_device dev = bench_device(d);
        const char *dn = bench_dev_name(dev);
        for (int t = 0; t < 2; t++) {
            bench_case c = {.dtype = dtypes[t], .dev = dev};
            const char *tn = nd_dtype_name(dtypes[t]);
            for (int i = 0; i < 5; i++) {
                if (sizes[i] > max_n) continue;
                c.kind = K_SQUARE, c.p[0] = sizes[i], c.p[1] = 1;
                snprintf(c.key, sizeof c.key, "matmul/%s/%dx%d/contig/%s", tn, sizes[i], sizes[i], dn);
                bench_add_case(&c);
            }
            c.kind = K_TRANS_A, c.p[0] = g_opt.quick ? 1024 : 2048, c.p[1] = 1;
            snprintf(c.key, sizeof c.key, "matmul/%s/%dx%d/aT/%s", tn, (int)c.p[0], (int)c.p[0], dn);
            bench_add_case(&c);
            static const int bn[2][2] = {{1000, 16}, {100, 128}};
            for (int i = 0; i < 2; i++) {
                c.kind = K_BATCH, c.p[0] = bn[i][1], c.p[1] = bn[i][0];
                snprintf(c.key, sizeof c.key, "matmul/%s/%dx%dx%d/batched/%s", tn, bn[i][0], bn[i][1], bn[i][1], dn);
                bench_add_case(&c);
            }
        }
        /* complex64 / complex128 n = 1024 against NumPy's complex matmul */
        for (int t = 0; t < 2; t++) {
            const nd_dtype ct = t ? ND_COMPLEX128 : ND_COMPLEX64;
            bench_case c = {.kind = K_SQUARE, .dtype = ct, .dev = dev};
            c.p[0] = 1024, c.p[1] = 1;
            snprintf(c.key, sizeof c.key, "matmul/%s/1024x1024/contig/%s", nd_dtype_name(ct), dn);
            bench_add_case(&c);
        }
        if (dev.type != ND_DEVICE_CUDA) {
            /* bfloat16 / float16 GEMM 2048 on the CPU against cblas_sgemm on
             * the same values (ratio_to_raw); NumPy float32 2048 is the float32 case */
            const nd_dtype halves[2] = {ND_BFLOAT16, ND_FLOAT16};
            for (int i = 0; i < 2; i++) {
                bench_case c = {.kind = K_SQUARE, .dtype = halves[i], .dev = dev};
                c.p[0] = 2048, c.p[1] = 1;
                snprintf(c.key, sizeof c.key, "matmul/%s/2048x2048/contig/%s", nd_dtype_name(halves[i]), dn);
                bench_add_case(&c);
            }
            continue;
        }
        /* the GPU GEMM goals: n = 8192, float32 exact and TF32, float16, bfloat16 */
        static const struct { nd_dtype t; int layout; } big[4] = {
            {ND_FLOAT32, 0}, {ND_FLOAT32, L_TF32}, {ND_FLOAT16, 0}, {ND_BFLOAT16, 0}};
        for (int i = 0; i < 4; i++) {
            bench_case c = {.kind = K_SQUARE, .dtype = big[i].t, .layout = big[i].layout, .dev = dev};
            c.p[0] = BIG_N, c.p[1] = 1;
            snprintf(c.key, sizeof c.key, "matmul/%s/%dx%d/%s/%s", nd_dtype_name(big[i].t), BIG_N, BIG_N,
                     big[i].layout == L_TF32 ? "tf32" : "contig", dn);
            bench_add_case(&c);
        }
    }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_progress(i, bench_get_case(i));
        run_case(bench_get_case(i));
    }
#ifdef ND_WITH_CUDA
    if (g_cublas) cublasDestroy(g_cublas);
#endif
    return bench_finish();
}
