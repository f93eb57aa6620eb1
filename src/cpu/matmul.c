/* CPU matrix products.
 *
 *  - float32/float64/complex64/complex128 go to OpenBLAS (cblas_sgemm,
 *    cblas_dgemm, cblas_cgemm, cblas_zgemm; complex alpha and beta are
 *    (alpha, 0) and (beta, 0), op is the plain transpose). A matrix
 *    with unit column stride is passed as-is, one with unit row stride
 *    (a transposed view) is passed with CblasTrans - neither is copied.
 *    Only a matrix with neither unit stride (or a leading dimension that
 *    BLAS cannot express: negative, zero, too small or over INT_MAX) is
 *    packed into a contiguous scratch buffer first. An output with unit
 *    row stride is computed as C^T = B^T A^T instead of being copied.
 *  - bfloat16 goes to the own AMX / AVX512-BF16 kernels where the CPU has
 *    them (src/cpu/matmul_bf16.c: float32 accumulation, about 3x sgemm
 *    with AMX). float16, and bfloat16 elsewhere, are widened to float32
 *    scratch panels, multiplied with sgemm and rounded back (nearest even).
 *  - Integer and bool products (and float or complex matrices with a
 *    dimension over INT_MAX, which BLAS cannot take) use the own i-k-j
 *    kernel below (complex through C's float/double _Complex, the layout
 *    of nd_c64_t/nd_c128_t), parallel over (batch, row) pairs.
 *    Integers accumulate in uint32 (uint64 for 64-bit dtypes) and are
 *    truncated to the dtype: the same result as NumPy's wrapping
 *    accumulation in the dtype, without signed-overflow UB. Bool is the
 *    logical or of ands.
 *
 * Small float32/float64 matrices (M, N, K <= 64 and M*N*K <= 32^3) on the
 * AVX-512 and AVX2 paths skip BLAS: an own register-blocked kernel per
 * path (src/cpu/matmul_small.c) costs less than one cblas call's fixed
 * overhead, and batches of them are spread over our threads. So do batches
 * of medium float32/float64 matrices on the AVX-512 path (M, N, K <= 128,
 * M*N*K > 64^3, B and C with unit column strides, at least two matrices
 * per thread), where the kernel reading the operands in place beat
 * OpenBLAS's packed GEMM (src/cpu/matmul_small.h). Small
 * float16/bfloat16 matrices take the float32 kernel on float32 copies
 * (widened per matrix, rounded once back: the sgemm path's semantics).
 *
 * Other batches of matrices small enough that OpenBLAS runs them on the calling
 * thread alone (M*N*K <= 64^3; OpenBLAS has small-matrix kernels, so a
 * call costs well under a microsecond) are spread over our threads, each
 * thread issuing its own cblas calls. So are batches of medium matrices
 * (M*N*K <= 256^3, at least two per thread), with OpenBLAS set to one
 * thread meanwhile. Larger matrices are issued one call after another from
 * the calling thread and OpenBLAS threads each call itself, so the two
 * thread pools never run at the same time.
 *
 * Inner products (M = N = 1) take the BLAS dot, except long unit-stride
 * float32/float64 ones, which are summed pairwise on our threads (pool_dot).
 */
#include "cpu/blas.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "shared/half.h"
#include "cpu/matmul_bf16.h"
#include "cpu/matmul_small.h"
#include "shared/matmul_layout.h"

/* A 2-D matrix: address of element (0,0) and strides in ELEMENTS. */
typedef struct {
    char *p;
    int64_t rs, cs;
} mview;

static mview mat_of(const nd_array *x, int64_t batch)
{
    mview v;
    v.p = nd__ptr(x) + batch * x->strides[0] * (int64_t)nd__itemsize(x->dtype);
    v.rs = x->strides[1];
    v.cs = x->strides[2];
    return v;
}

/* ------------------------------------------------------------------ */
/* Own kernel: out[r, j] = sum_k a[r, k] * b[k, j]                      */
/* ------------------------------------------------------------------ */
typedef struct {
    const char *a, *b;
    char *o;
    int64_t M, N, K;
    int64_t asb, ars, acs; /* element strides: batch, row, col */
    int64_t bsb, brs, bcs;
    int64_t osb, ors, ocs;
} gen_ctx;

#define GEN_TILE 256

#define MAC_SUM(acc, x, y) ((acc) += (x) * (y))
#define MAC_OR(acc, x, y) ((acc) |= (uint8_t)((x) & (y)))

#define GEN_KERNEL(NAME, T, ACC, LOAD, STORE, MAC)                                                   \
    static void NAME(void *vctx, int64_t begin, int64_t end)                                         \
    {                                                                                                \
        const gen_ctx *c = (const gen_ctx *)vctx;                                                    \
        ACC acc[GEN_TILE];                                                                           \
        for (int64_t r = begin; r < end; r++) {                                                      \
            int64_t bi = r / c->M, i = r % c->M;                                                     \
            const T *arow = (const T *)c->a + (bi * c->asb + i * c->ars);                              \
            const T *bmat = (const T *)c->b + bi * c->bsb;                                           \
            T *orow = (T *)c->o + (bi * c->osb + i * c->ors);                                        \
            for (int64_t j0 = 0; j0 < c->N; j0 += GEN_TILE) {                                        \
                int64_t nj = c->N - j0 < GEN_TILE ? c->N - j0 : GEN_TILE;                            \
                for (int64_t j = 0; j < nj; j++) acc[j] = 0;                                         \
                for (int64_t k = 0; k < c->K; k++) {                                                 \
                    const ACC av = LOAD(arow[k * c->acs]);                                           \
                    const T *brow = bmat + (k * c->brs + j0 * c->bcs);                               \
                    if (c->bcs == 1) {                                                               \
                        _Pragma("omp simd") for (int64_t j = 0; j < nj; j++) MAC(acc[j], av, LOAD(brow[j])); \
                    } else {                                                                         \
                        const int64_t s = c->bcs;                                                    \
                        for (int64_t j = 0; j < nj; j++) MAC(acc[j], av, LOAD(brow[j * s]));         \
                    }                                                                                \
                }                                                                                    \
                T *o = orow + j0 * c->ocs;                                                           \
                for (int64_t j = 0; j < nj; j++) o[j * c->ocs] = STORE(acc[j]);                      \
            }                                                                                        \
        }                                                                                            \
    }

#define ID(x) (x)
#define LD_U32(x) ((uint32_t)(x))
#define LD_U64(x) ((uint64_t)(x))
#define LD_BOOL(x) ((uint8_t)((x) != 0))

GEN_KERNEL(gen_f32, float, float, ID, ID, MAC_SUM)
GEN_KERNEL(gen_f64, double, double, ID, ID, MAC_SUM)
GEN_KERNEL(gen_f16, uint16_t, float, nd_half_to_float, nd_float_to_half, MAC_SUM)
GEN_KERNEL(gen_bf16, uint16_t, float, nd_bf16_to_float, nd_float_to_bf16, MAC_SUM)
GEN_KERNEL(gen_i8, int8_t, uint32_t, LD_U32, (int8_t), MAC_SUM)
GEN_KERNEL(gen_i16, int16_t, uint32_t, LD_U32, (int16_t), MAC_SUM)
GEN_KERNEL(gen_i32, int32_t, uint32_t, LD_U32, (int32_t), MAC_SUM)
GEN_KERNEL(gen_i64, int64_t, uint64_t, LD_U64, (int64_t), MAC_SUM)
GEN_KERNEL(gen_u8, uint8_t, uint32_t, LD_U32, (uint8_t), MAC_SUM)
GEN_KERNEL(gen_u16, uint16_t, uint32_t, LD_U32, (uint16_t), MAC_SUM)
GEN_KERNEL(gen_u32, uint32_t, uint32_t, LD_U32, (uint32_t), MAC_SUM)
GEN_KERNEL(gen_u64, uint64_t, uint64_t, LD_U64, (uint64_t), MAC_SUM)
GEN_KERNEL(gen_bool, uint8_t, uint8_t, LD_BOOL, ID, MAC_OR)
GEN_KERNEL(gen_c64, float _Complex, float _Complex, ID, ID, MAC_SUM)
GEN_KERNEL(gen_c128, double _Complex, double _Complex, ID, ID, MAC_SUM)

static nd_range_fn gen_kernel_for(nd_dtype t)
{
    switch (t) {
    case ND_BOOL: return gen_bool;
    case ND_INT8: return gen_i8;
    case ND_INT16: return gen_i16;
    case ND_INT32: return gen_i32;
    case ND_INT64: return gen_i64;
    case ND_UINT8: return gen_u8;
    case ND_UINT16: return gen_u16;
    case ND_UINT32: return gen_u32;
    case ND_UINT64: return gen_u64;
    case ND_FLOAT16: return gen_f16;
    case ND_BFLOAT16: return gen_bf16;
    case ND_FLOAT32: return gen_f32;
    case ND_FLOAT64: return gen_f64;
    case ND_COMPLEX64: return gen_c64;
    case ND_COMPLEX128: return gen_c128;
    default: return NULL;
    }
}

static void run_generic(nd_array *out, const nd_array *a, const nd_array *b)
{
    gen_ctx c;
    c.a = nd__ptr(a);
    c.b = nd__ptr(b);
    c.o = nd__ptr(out);
    c.M = out->shape[1];
    c.N = out->shape[2];
    c.K = a->shape[2];
    c.asb = a->strides[0], c.ars = a->strides[1], c.acs = a->strides[2];
    c.bsb = b->strides[0], c.brs = b->strides[1], c.bcs = b->strides[2];
    c.osb = out->strides[0], c.ors = out->strides[1], c.ocs = out->strides[2];
    nd__parallel_for(out->shape[0] * c.M, c.N * c.K, gen_kernel_for(out->dtype), &c);
}

/* ------------------------------------------------------------------ */
/* Element access for the packing helpers                              */
/* ------------------------------------------------------------------ */
static inline double load_f(const char *p, nd_dtype t)
{
    switch (t) {
    case ND_FLOAT16: { uint16_t h; memcpy(&h, p, 2); return nd_half_to_float(h); }
    case ND_BFLOAT16: { uint16_t h; memcpy(&h, p, 2); return nd_bf16_to_float(h); }
    case ND_FLOAT32: { float f; memcpy(&f, p, 4); return f; }
    default: { double d; memcpy(&d, p, 8); return d; }
    }
}

static inline void store_f(char *p, nd_dtype t, double v)
{
    switch (t) {
    case ND_FLOAT16: { uint16_t h = nd_float_to_half((float)v); memcpy(p, &h, 2); break; }
    case ND_BFLOAT16: { uint16_t h = nd_float_to_bf16((float)v); memcpy(p, &h, 2); break; }
    case ND_FLOAT32: { float f = (float)v; memcpy(p, &f, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* n float16 values at unit stride to float32: F16C (VCVTPH2PS, exact, a
 * NaN stays a NaN with the quiet bit set, as nd_half_to_float does) where
 * the CPU has it and the CPU path is avx2 or higher, else the scalar
 * conversion. The scalar loop cost ~3.5 ns per value and made float16
 * GEMM 2048 take 2x sgemm's time (it re-widens A per column panel). */
#if ND_ISA_X86
#include <immintrin.h>
__attribute__((target("avx2,f16c"))) static void widen_f16_f16c(float *d, const uint16_t *h, int64_t n)
{
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) _mm256_storeu_ps(d + j, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(h + j))));
    for (; j < n; j++) d[j] = nd_half_to_float(h[j]);
}
#endif

/* n float32 values to float16 at unit stride: F16C (VCVTPS2PH with
 * round-to-nearest-even: the bits nd_float_to_half gives, NaN payloads
 * and subnormals included), else the scalar conversion. The scalar loop
 * was a tenth of a float16 GEMM 2048's time. */
#if ND_ISA_X86
__attribute__((target("avx2,f16c"))) static void narrow_f16_f16c(uint16_t *h, const float *f, int64_t n)
{
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        _mm_storeu_si128((__m128i *)(void *)(h + j), _mm256_cvtps_ph(_mm256_loadu_ps(f + j), _MM_FROUND_TO_NEAREST_INT));
    for (; j < n; j++) h[j] = nd_float_to_half(f[j]);
}
#endif

static void narrow_f16(uint16_t *h, const float *f, int64_t n)
{
#if ND_ISA_X86
    if (nd__cpu_isa() >= ND_ISA_AVX2 && nd__cpu_has(ND_CPU_F16C)) {
        narrow_f16_f16c(h, f, n);
        return;
    }
#endif
    for (int64_t j = 0; j < n; j++) h[j] = nd_float_to_half(f[j]);
}

static void widen_f16(float *d, const uint16_t *h, int64_t n)
{
#if ND_ISA_X86
    if (nd__cpu_isa() >= ND_ISA_AVX2 && nd__cpu_has(ND_CPU_F16C)) {
        widen_f16_f16c(d, h, n);
        return;
    }
#endif
    for (int64_t j = 0; j < n; j++) d[j] = nd_half_to_float(h[j]);
}

/* Contiguous row-major copy of v (rows x cols, dtype st) into dst of
 * dtype dt (float32 or float64). */
static void pack(void *dst, nd_dtype dt, mview v, nd_dtype st, int64_t rows, int64_t cols)
{
    int64_t is = (int64_t)nd__itemsize(st);
    if (nd__is_complex(dt)) { /* complex: st == dt, element by element */
        for (int64_t i = 0; i < rows; i++) {
            const char *row = v.p + i * v.rs * is;
            char *d = (char *)dst + i * cols * is;
            if (v.cs == 1) memcpy(d, row, (size_t)(cols * is));
            else for (int64_t j = 0; j < cols; j++) memcpy(d + j * is, row + j * v.cs * is, (size_t)is);
        }
        return;
    }
    for (int64_t i = 0; i < rows; i++) {
        const char *row = v.p + i * v.rs * is;
        if (dt == ND_FLOAT32) {
            float *d = (float *)dst + i * cols;
            const uint16_t *h = (const uint16_t *)(const void *)row;
            if (st == ND_FLOAT32 && v.cs == 1) memcpy(d, row, (size_t)cols * 4);
            else if (st == ND_BFLOAT16) for (int64_t j = 0; j < cols; j++) d[j] = nd_bf16_to_float(h[j * v.cs]);
            else if (st == ND_FLOAT16 && v.cs == 1) widen_f16(d, h, cols);
            else if (st == ND_FLOAT16) for (int64_t j = 0; j < cols; j++) d[j] = nd_half_to_float(h[j * v.cs]);
            else for (int64_t j = 0; j < cols; j++) d[j] = (float)load_f(row + j * v.cs * is, st);
        } else {
            double *d = (double *)dst + i * cols;
            if (st == ND_FLOAT64 && v.cs == 1) memcpy(d, row, (size_t)cols * 8);
            else for (int64_t j = 0; j < cols; j++) d[j] = load_f(row + j * v.cs * is, st);
        }
    }
}

/* The reverse of pack: src (dtype sf, contiguous) into view v (dtype dt). */
static void unpack(mview v, nd_dtype dt, const void *src, nd_dtype sf, int64_t rows, int64_t cols)
{
    int64_t is = (int64_t)nd__itemsize(dt);
    if (nd__is_complex(dt)) { /* complex: sf == dt, element by element */
        for (int64_t i = 0; i < rows; i++) {
            char *row = v.p + i * v.rs * is;
            const char *s = (const char *)src + i * cols * is;
            if (v.cs == 1) memcpy(row, s, (size_t)(cols * is));
            else for (int64_t j = 0; j < cols; j++) memcpy(row + j * v.cs * is, s + j * is, (size_t)is);
        }
        return;
    }
    for (int64_t i = 0; i < rows; i++) {
        char *row = v.p + i * v.rs * is;
        const float *f = (const float *)src + i * cols;
        uint16_t *h = (uint16_t *)(void *)row;
        /* float32 to a 16-bit float directly (store_f's rounding, without the
         * per-element switch: it dominated small half products) */
        if (sf == ND_FLOAT32 && dt == ND_BFLOAT16) {
            for (int64_t j = 0; j < cols; j++) h[j * v.cs] = nd_float_to_bf16(f[j]);
            continue;
        }
        if (sf == ND_FLOAT32 && dt == ND_FLOAT16 && v.cs == 1) {
            narrow_f16(h, f, cols);
            continue;
        }
        if (sf == ND_FLOAT32 && dt == ND_FLOAT16) {
            for (int64_t j = 0; j < cols; j++) h[j * v.cs] = nd_float_to_half(f[j]);
            continue;
        }
        for (int64_t j = 0; j < cols; j++) {
            double x = sf == ND_FLOAT32 ? (double)((const float *)src)[i * cols + j] : ((const double *)src)[i * cols + j];
            store_f(row + j * v.cs * is, dt, x);
        }
    }
}

/* pack / unpack of a large half panel over the threads, rows split (each
 * row is converted independently: the same bits as one call) */
typedef struct {
    void *f;       /* the float32 side, contiguous rows x cols */
    mview v;       /* the half side */
    nd_dtype t;    /* its dtype */
    int64_t cols;
    bool to_half;  /* unpack (float32 -> v) rather than pack */
} half_conv;

static void half_conv_rows(void *ctx, int64_t r0, int64_t r1)
{
    const half_conv *c = ctx;
    const int64_t is = (int64_t)nd__itemsize(c->t);
    mview v = c->v;
    v.p += r0 * v.rs * is;
    float *f = (float *)c->f + r0 * c->cols;
    if (c->to_half) unpack(v, c->t, f, ND_FLOAT32, r1 - r0, c->cols);
    else pack(f, ND_FLOAT32, v, c->t, r1 - r0, c->cols);
}

static void half_conv_run(float *f, mview v, nd_dtype t, int64_t rows, int64_t cols, bool to_half)
{
    half_conv c = {f, v, t, cols, to_half};
    nd__parallel_for(rows, cols, half_conv_rows, &c);
}

/* c = beta * c (beta == 0 writes zeros, NaN-free: BLAS semantics; a
 * complex c has both parts scaled by the real beta). */
static void scale_view(mview v, nd_dtype t, int64_t rows, int64_t cols, double beta)
{
    int64_t is = (int64_t)nd__itemsize(t);
    const bool cpx = nd__is_complex(t);
    const nd_dtype rt = cpx ? nd__real_of(t) : t;
    const int64_t half = is / 2;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            char *p = v.p + (i * v.rs + j * v.cs) * is;
            if (beta == 0.0 || (!nd__is_float(t) && !cpx)) {
                memset(p, 0, (size_t)is);
            } else if (cpx) {
                store_f(p, rt, beta * load_f(p, rt));
                store_f(p + half, rt, beta * load_f(p + half, rt));
            } else {
                store_f(p, t, beta * load_f(p, t));
            }
        }
}

/* ------------------------------------------------------------------ */
/* BLAS path                                                           */
/* ------------------------------------------------------------------ */
/* The layout of an operand (src/shared/matmul_layout.h, shared with the CUDA
 * backend): LAY_N row-major (ld = row stride), LAY_T the transpose of a
 * row-major cols x rows matrix (ld = column stride), or LAY_COPY; CBLAS
 * takes int leading dimensions. */
enum { LAY_COPY = ND_MM_COPY, LAY_N = ND_MM_ROW, LAY_T = ND_MM_COL };
static int layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t *ld)
{
    return nd_mm_layout(rows, cols, rs, cs, INT_MAX, ld);
}

typedef struct {
    void *buf[3];
    size_t cap[3];
} scratch;

static void *scratch_get(scratch *s, int i, size_t bytes)
{
    if (bytes == 0) bytes = 1;
    if (s->cap[i] < bytes) {
        nd__free(s->buf[i]);
        s->buf[i] = nd__malloc(bytes);
        s->cap[i] = s->buf[i] ? bytes : 0;
    }
    return s->buf[i];
}

static void scratch_free(scratch *s)
{
    for (int i = 0; i < 3; i++) nd__free(s->buf[i]);
}

/* Long unit-stride float32/float64 inner products (nd_dot of vectors, the
 * 2-norm as sqrt(dot(x, x))) run on the library's pool: units of DOT_UNIT
 * elements, each summed pairwise (nd__rk_dot_*), the units' sums combined
 * pairwise in the dtype, so the result depends on K only, never on the
 * thread count. They are memory-bound: OpenBLAS's threaded ?dot read 16M
 * float32 at ~35 GB/s on 2 threads of the AMD EPYC, the pool's reduction
 * loops at ~50 GB/s; the pairwise order is also more accurate than the
 * BLAS's running lanes. Shorter or strided dots stay with the BLAS (in
 * cache its kernels are the faster ones, and no thread is woken). */
#define DOT_UNIT ((int64_t)1 << 16)
#define DOT_POOL_MIN ((int64_t)1 << 18)
typedef struct {
    bool f32;
    const char *a, *b;
    int64_t K;
    double *part; /* per unit; float32 sums are exact in a double */
} dot_job;

static void dot_units(void *ctx, int64_t u0, int64_t u1)
{
    const dot_job *j = ctx;
    for (int64_t u = u0; u < u1; u++) {
        int64_t s = u * DOT_UNIT, n = j->K - s < DOT_UNIT ? j->K - s : DOT_UNIT;
        j->part[u] = j->f32 ? (double)nd__rk_dot_f32((const float *)j->a + s, (const float *)j->b + s, n)
                            : nd__rk_dot_f64((const double *)j->a + s, (const double *)j->b + s, n);
    }
}

static double dot_comb(const double *p, int64_t n, bool f32)
{
    if (n == 1) return p[0];
    double s = dot_comb(p, n / 2, f32) + dot_comb(p + n / 2, n - n / 2, f32);
    return f32 ? (double)(float)s : s; /* a float32 add: the double sum of two floats rounded once */
}

/* sum_k A[k] B[k] on the pool into *d; false (nothing done) when the
 * partial sums could not be allocated. */
static bool pool_dot(bool f32, int64_t K, const void *A, const void *B, double *d)
{
    int64_t nu = (K + DOT_UNIT - 1) / DOT_UNIT;
    dot_job j = {f32, A, B, K, nd__malloc((size_t)nu * sizeof(double))};
    if (!j.part) return false;
    nd__parallel_for(nu, DOT_UNIT, dot_units, &j);
    *d = dot_comb(j.part, nu, f32);
    nd__free(j.part);
    return true;
}

/* C (1 x 1) = alpha * sum_k A[k * ia] B[k * ib] + beta * C (beta == 0: C is
 * not read), dtype t as blas_call. */
static void blas_dot(nd_dtype t, int64_t K, double alpha, const void *A, int64_t ia, const void *B, int64_t ib,
                     double beta, void *C)
{
    double pd;
    if ((t == ND_FLOAT32 || t == ND_FLOAT64) && K >= DOT_POOL_MIN && ia == 1 && ib == 1 &&
        pool_dot(t == ND_FLOAT32, K, A, B, &pd)) {
        if (t == ND_FLOAT64) {
            double d = alpha * pd, *c = C;
            *c = beta == 0 ? d : d + beta * *c;
        } else {
            float d = (float)alpha * (float)pd, *c = C;
            *c = beta == 0 ? d : d + (float)beta * *c;
        }
        return;
    }
    switch (t) {
    case ND_FLOAT64: {
        double d = alpha * cblas_ddot((blasint)K, (const double *)A, (blasint)ia, (const double *)B, (blasint)ib),
               *c = C;
        *c = beta == 0 ? d : d + beta * *c;
        break;
    }
    case ND_COMPLEX64: {
        float d[2], *c = C;
        cblas_cdotu_sub((blasint)K, A, (blasint)ia, B, (blasint)ib, (void *)d);
        float re = (float)alpha * d[0], im = (float)alpha * d[1];
        if (beta != 0) re += (float)beta * c[0], im += (float)beta * c[1];
        c[0] = re, c[1] = im;
        break;
    }
    case ND_COMPLEX128: {
        double d[2], *c = C;
        cblas_zdotu_sub((blasint)K, A, (blasint)ia, B, (blasint)ib, (void *)d);
        double re = alpha * d[0], im = alpha * d[1];
        if (beta != 0) re += beta * c[0], im += beta * c[1];
        c[0] = re, c[1] = im;
        break;
    }
    default: {
        float d = (float)alpha * cblas_sdot((blasint)K, (const float *)A, (blasint)ia, (const float *)B, (blasint)ib),
              *c = C;
        *c = beta == 0 ? d : d + (float)beta * *c;
        break;
    }
    }
}

/* One row-major CBLAS GEMM of dtype t (float32, float64, complex64 or
 * complex128; complex: alpha and beta are (alpha, 0) and (beta, 0), op is
 * the plain transpose CblasTrans, never CblasConjTrans). */
static void blas_call(nd_dtype t, bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const void *A,
                      int64_t lda, const void *B, int64_t ldb, double beta, void *C, int64_t ldc)
{
    enum CBLAS_TRANSPOSE TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
    nd__blas_threads_sync();
    if (M == 1 && N == 1) { /* an inner product (nd_dot of vectors, norms): the BLAS dot, not a 1x1 GEMM
                             * (OpenBLAS's GEMM packs both operands: 16x slower for 1.6e7 float32) */
        blas_dot(t, K, alpha, A, ta ? lda : 1, B, tb ? 1 : ldb, beta, C);
        return;
    }
    switch (t) {
    case ND_FLOAT64:
        cblas_dgemm(CblasRowMajor, TA, TB, (blasint)M, (blasint)N, (blasint)K, alpha, (const double *)A, (blasint)lda,
                    (const double *)B, (blasint)ldb, beta, (double *)C, (blasint)ldc);
        break;
    case ND_COMPLEX64: {
        const float al[2] = {(float)alpha, 0.0f}, be[2] = {(float)beta, 0.0f};
        cblas_cgemm(CblasRowMajor, TA, TB, (blasint)M, (blasint)N, (blasint)K, al, (const float *)A, (blasint)lda,
                    (const float *)B, (blasint)ldb, be, (float *)C, (blasint)ldc);
        break;
    }
    case ND_COMPLEX128: {
        const double al[2] = {alpha, 0.0}, be[2] = {beta, 0.0};
        cblas_zgemm(CblasRowMajor, TA, TB, (blasint)M, (blasint)N, (blasint)K, al, (const double *)A, (blasint)lda,
                    (const double *)B, (blasint)ldb, be, (double *)C, (blasint)ldc);
        break;
    }
    default:
        cblas_sgemm(CblasRowMajor, TA, TB, (blasint)M, (blasint)N, (blasint)K, (float)alpha, (const float *)A,
                    (blasint)lda, (const float *)B, (blasint)ldb, (float)beta, (float *)C, (blasint)ldc);
        break;
    }
}

#define NOMEM_SCRATCH() false

/* C (M x N) = alpha * A (M x K) @ B (K x N) + beta * C for one matrix of
 * dtype t (float16/bfloat16/float32/float64/complex64/complex128), K >= 1, dims <= INT_MAX; C
 * has dtype tc: t, or float32 for half t (mixed precision: the float32
 * product is written as it is, never rounded to half).
 * Returns false when a scratch buffer could not be allocated (it may run
 * on a worker thread, so it sets no error message itself). */
static bool gemm_one(nd_dtype t, nd_dtype tc, int64_t M, int64_t N, int64_t K, double alpha, mview A, mview B,
                     double beta, mview C, scratch *s)
{
    if (t == ND_BFLOAT16 && nd__bf16_path() != ND_BF16_SGEMM)
        return nd__bf16_gemm(M, N, K, alpha, A.p, A.rs, A.cs, B.p, B.rs, B.cs, beta, C.p, tc, C.rs, C.cs);
    if (nd__storage_only(t)) {
        /* panels: NB columns of B and C, MB rows of A and C, widened to
         * float32 one panel at a time, so the float32 scratch stays near
         * HALF_PANEL_BYTES per operand however large the product (a half
         * activation must not cost a float32 copy of itself: that is the
         * memory mixed precision is meant to save). Re-widening A per column
         * panel costs M K conversions per NB >= 64 columns of M K N flops. */
        enum { HALF_PANEL_BYTES = 8 << 20 };
        /* The widening and narrowing run on all threads (half_conv_run):
         * on one thread they held a float16 2048^3 product at 0.88-0.93x of
         * one cblas_sgemm on the same values; now 0.94-0.97x (AMD EPYC Zen
         * 4, 2 threads; 8 MiB panels, 2 x 2 here, measured 0.97x against
         * 0.95x for 4 MiB ones). Operands widened whole (one sgemm call,
         * 48 MiB of float32 scratch) ran at 0.80x: slower, not faster. */
        int64_t NB = HALF_PANEL_BYTES / (4 * K);
        if (NB < 64) NB = 64;
        if (NB > N) NB = N;
        int64_t MB = HALF_PANEL_BYTES / (4 * (K > NB ? K : NB));
        if (MB < 64) MB = 64;
        if (MB > M) MB = M;
        float *fa = scratch_get(s, 0, (size_t)(MB * K) * 4), *fb = scratch_get(s, 1, (size_t)(K * NB) * 4);
        float *fc = scratch_get(s, 2, (size_t)(MB * NB) * 4);
        if (!fa || !fb || !fc) return NOMEM_SCRATCH();
        const int64_t isa = (int64_t)nd__itemsize(t), isc = (int64_t)nd__itemsize(tc);
        for (int64_t c0 = 0; c0 < N; c0 += NB) {
            const int64_t nb = N - c0 < NB ? N - c0 : NB;
            mview Bp = B;
            Bp.p = B.p + c0 * B.cs * isa;
            half_conv_run(fb, Bp, t, K, nb, false);
            for (int64_t r0 = 0; r0 < M; r0 += MB) {
                const int64_t mb = M - r0 < MB ? M - r0 : MB;
                mview Ap = A, Cp = C;
                Ap.p = A.p + r0 * A.rs * isa;
                Cp.p = C.p + r0 * C.rs * isc + c0 * C.cs * isc;
                half_conv_run(fa, Ap, t, mb, K, false);
                if (beta != 0.0) half_conv_run(fc, Cp, tc, mb, nb, false);
                blas_call(ND_FLOAT32, false, false, mb, nb, K, alpha, fa, K, fb, nb, beta, fc, nb);
                half_conv_run(fc, Cp, tc, mb, nb, true);
            }
        }
        return true;
    }
    size_t is = nd__itemsize(t);
    int64_t lda, ldb, ldc;
    int la = layout(M, K, A.rs, A.cs, &lda), lb = layout(K, N, B.rs, B.cs, &ldb);
    const void *pa = A.p, *pb = B.p;
    if (la == LAY_COPY) {
        void *d = scratch_get(s, 0, (size_t)(M * K) * is);
        if (!d) return NOMEM_SCRATCH();
        pack(d, t, A, t, M, K);
        pa = d, la = LAY_N, lda = K;
    }
    if (lb == LAY_COPY) {
        void *d = scratch_get(s, 1, (size_t)(K * N) * is);
        if (!d) return NOMEM_SCRATCH();
        pack(d, t, B, t, K, N);
        pb = d, lb = LAY_N, ldb = N;
    }
    int lc = layout(M, N, C.rs, C.cs, &ldc);
    if (lc == LAY_N) {
        blas_call(t, la == LAY_T, lb == LAY_T, M, N, K, alpha, pa, lda, pb, ldb, beta, C.p, ldc);
    } else if (lc == LAY_T) {
        /* C^T (N x M, row-major) = op(B)^T @ op(A)^T */
        blas_call(t, lb != LAY_T, la != LAY_T, N, M, K, alpha, pb, ldb, pa, lda, beta, C.p, ldc);
    } else {
        void *d = scratch_get(s, 2, (size_t)(M * N) * is);
        if (!d) return NOMEM_SCRATCH();
        if (beta != 0.0) pack(d, t, C, t, M, N);
        blas_call(t, la == LAY_T, lb == LAY_T, M, N, K, alpha, pa, lda, pb, ldb, beta, d, N);
        unpack(C, t, d, t, M, N);
    }
    return true;
}

static bool fits_int(int64_t M, int64_t N, int64_t K) { return M <= INT_MAX && N <= INT_MAX && K <= INT_MAX; }

/* OpenBLAS runs a gemm with M*N*K at most this on the calling thread
 * alone (SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD in its
 * interface/gemm.c), so batches of such matrices can be spread over our
 * threads without oversubscribing the cores. */
#define BLAS_SINGLE_THREAD_MNK 262144.0
/* Batches of medium matrices (M*N*K up to this, at least two per thread)
 * are spread over our threads too, OpenBLAS set to one thread meanwhile
 * (nd__blas_single_begin): each thread multiplies whole matrices with no
 * fork and join per call, where OpenBLAS threading each call splits a
 * 128^3 product in two and joins 100 times (100 x 128^3 on 2 threads of
 * an AMD EPYC Zen 4: 1.2x (float64) and 1.3x (float32) the speed of the
 * per-call threaded cblas loop, and far steadier on a loaded machine).
 * Larger matrices keep OpenBLAS's own threads, whose splitting costs
 * little beside them. */
#define BLAS_MEDIUM_MNK (256.0 * 256.0 * 256.0)

typedef struct {
    const nd_array *out, *a, *b;
    nd_dtype t, tc; /* the operands' dtype, the result's */
    int64_t M, N, K;
    atomic_int fail;
} batch_ctx;

static void batch_body(void *vctx, int64_t begin, int64_t end)
{
    batch_ctx *c = (batch_ctx *)vctx;
    scratch s;
    memset(&s, 0, sizeof s);
    for (int64_t i = begin; i < end; i++) {
        if (!gemm_one(c->t, c->tc, c->M, c->N, c->K, 1.0, mat_of(c->a, i), mat_of(c->b, i), 0.0,
                      mat_of(c->out, i), &s)) {
            atomic_store(&c->fail, 1);
            break;
        }
    }
    scratch_free(&s);
}

/* ------------------------------------------------------------------ */
/* Small float32/float64 matrices: own kernels (src/cpu/matmul_small.c) */
/* ------------------------------------------------------------------ */
typedef struct {
    const nd_array *out, *a, *b;
    int64_t M, N, K;
    bool f64;
    nd_dtype half; /* ND_FLOAT16/ND_BFLOAT16: widened to float32 per matrix; else ND_BOOL */
    nd_dtype tc;   /* the result's dtype (half, or float32 from half operands) */
    nd_small_mm_fn fn;
    int64_t rows, parts; /* rows of C per work unit, units per matrix (ceil(M / rows)) */
} small_ctx;

/* Work units [begin, end): unit u is rows [r0, r0 + rows) of matrix
 * u / parts (r0 = (u % parts) rows). B and C go through contiguous stack
 * copies when their columns are not unit-stride. A unit's rows are the
 * same chains of FMAs as the whole matrix's: the split changes no bit. */
static void small_body(void *vctx, int64_t begin, int64_t end)
{
    const small_ctx *c = vctx;
    _Alignas(64) double bbuf[ND_SMALL_DIM * ND_SMALL_DIM], cbuf[ND_SMALL_DIM * ND_SMALL_DIM];
    const int64_t N = c->N, K = c->K;
    for (int64_t u = begin; u < end; u++) {
        const int64_t i = u / c->parts, r0 = (u % c->parts) * c->rows;
        const int64_t M = c->M - r0 < c->rows ? c->M - r0 : c->rows;
        mview A = mat_of(c->a, i), B = mat_of(c->b, i), C = mat_of(c->out, i);
        A.p += r0 * A.rs * (int64_t)nd__itemsize(c->a->dtype);
        C.p += r0 * C.rs * (int64_t)nd__itemsize(c->tc);
        if (c->half != ND_BOOL) {
            /* float16/bfloat16: as gemm_one does with sgemm - widen A and B
             * to float32, multiply, round the float32 result once */
            _Alignas(64) float abuf[ND_SMALL_DIM * ND_SMALL_DIM];
            pack(abuf, ND_FLOAT32, A, c->half, M, K);
            pack(bbuf, ND_FLOAT32, B, c->half, K, N);
            c->fn(M, N, K, abuf, K, 1, bbuf, N, cbuf, N);
            unpack(C, c->tc, cbuf, ND_FLOAT32, M, N);
            continue;
        }
        const char *bp = B.p;
        int64_t brs = B.rs;
        if (B.cs != 1 && N > 1) {
            pack(bbuf, c->f64 ? ND_FLOAT64 : ND_FLOAT32, B, c->f64 ? ND_FLOAT64 : ND_FLOAT32, K, N);
            bp = (const char *)bbuf, brs = N;
        }
        bool direct = C.cs == 1 || N == 1;
        char *cp = direct ? C.p : (char *)cbuf;
        int64_t crs = direct ? C.rs : N;
        c->fn(M, N, K, A.p, A.rs, A.cs, bp, brs, cp, crs);
        if (!direct) unpack(C, c->f64 ? ND_FLOAT64 : ND_FLOAT32, cbuf, c->f64 ? ND_FLOAT64 : ND_FLOAT32, M, N);
    }
}

/* The small kernel of the path in use for this product, or NULL
 * (float16/bfloat16 use the float32 one on widened copies). Medium
 * matrices (AVX-512 path, float32/float64) take it only where B and C have
 * unit column strides (small_body's stack copies hold ND_SMALL_DIM^2) and
 * in batches of at least two per thread: fewer keep OpenBLAS, which
 * threads each call (one 128^3 float32 product on 2 Zen 4 cores: 28 us,
 * against 38 us for the kernel on row blocks spread over our threads). */
static nd_small_mm_fn small_kernel(const nd_array *out, const nd_array *b, int64_t nb, int64_t M, int64_t N,
                                   int64_t K)
{
    const nd_dtype t = b->dtype;
    const double mnk = (double)M * (double)N * (double)K;
    if (!nd__is_float(t)) return NULL;
    if (M <= ND_SMALL_DIM && N <= ND_SMALL_DIM && K <= ND_SMALL_DIM && mnk <= ND_SMALL_MNK)
        return nd__small_mm_kernel(nd__cpu_isa(), t == ND_FLOAT64);
    const bool unit = N == 1 || (b->strides[2] == 1 && out->strides[2] == 1);
    const int nt = nd__num_threads();
    if ((t == ND_FLOAT32 || t == ND_FLOAT64) && unit && nd__cpu_isa() >= ND_ISA_AVX512 && M <= ND_MEDIUM_DIM &&
        N <= ND_MEDIUM_DIM && K <= ND_MEDIUM_DIM && mnk > ND_MEDIUM_MNK_MIN && (nt == 1 || nb >= 2 * nt))
        return nd__small_mm_kernel(nd__cpu_isa(), t == ND_FLOAT64);
    return NULL;
}

nd_status nd__cpu_matmul(nd_array *out, const nd_array *a, const nd_array *b)
{
    int64_t nb = out->shape[0], M = out->shape[1], N = out->shape[2], K = a->shape[2];
    if (nb == 0 || M == 0 || N == 0) return ND_OK;
    /* the operands' dtype; out's is the same, or float32 from half operands */
    const nd_dtype t = a->dtype, tc = out->dtype;
    if (K == 0) {
        for (int64_t i = 0; i < nb; i++) scale_view(mat_of(out, i), tc, M, N, 0.0);
        return ND_OK;
    }
    if ((!nd__is_float(t) && !nd__is_complex(t)) || !fits_int(M, N, K)) {
        run_generic(out, a, b);
        return ND_OK;
    }
    nd_small_mm_fn sfn = small_kernel(out, b, nb, M, N, K);
    if (sfn) {
        /* medium matrices in units of 32 rows: the threads' shares of a
         * batch of a few matrices even out (5 on 2 threads: 10 and 10
         * units, not 3 and 2 matrices) */
        const int64_t rows = M > ND_SMALL_DIM ? 32 : M;
        small_ctx sc = {out, a, b, M, N, K, t == ND_FLOAT64,
                        nd__storage_only(t) ? t : ND_BOOL, tc, sfn, rows, (M + rows - 1) / rows};
        /* ~8 flops per element-cost unit */
        nd__parallel_for(nb * sc.parts, (rows * N * K) / 8 + 1, small_body, &sc);
        return ND_OK;
    }
    batch_ctx c;
    c.out = out, c.a = a, c.b = b, c.t = t, c.tc = tc, c.M = M, c.N = N, c.K = K;
    atomic_init(&c.fail, 0);
    double mnk = (double)M * (double)N * (double)K;
    int nt = nd__num_threads();
    if (nb > 1 && mnk <= BLAS_SINGLE_THREAD_MNK) {
        nd__parallel_for(nb, (int64_t)mnk, batch_body, &c);
    } else if (nt > 1 && nb >= 2 * nt && mnk <= BLAS_MEDIUM_MNK) {
        nd__blas_threads_sync(); /* before, so that no call inside undoes the single thread */
        nd__blas_single_begin();
        nd__parallel_for(nb, (int64_t)mnk, batch_body, &c);
        nd__blas_single_end();
    } else {
        batch_body(&c, 0, nb);
    }
    if (atomic_load(&c.fail)) return nd__err(ND_ERR_NOMEM, "nd_matmul", "out of host memory for a scratch matrix");
    return ND_OK;
}

nd_status nd__cpu_gemm(nd_array *c, bool ta, bool tb, double alpha, const nd_array *a, const nd_array *b, double beta)
{
    const nd_dtype t = a->dtype, tc = c->dtype; /* tc: t, or float32 from half a, b */
    int64_t M = c->shape[0], N = c->shape[1];
    int64_t K = ta ? a->shape[0] : a->shape[1];
    mview A = {nd__ptr(a), a->strides[0], a->strides[1]};
    mview B = {nd__ptr(b), b->strides[0], b->strides[1]};
    mview C = {nd__ptr(c), c->strides[0], c->strides[1]};
    if (ta) { int64_t x = A.rs; A.rs = A.cs; A.cs = x; }
    if (tb) { int64_t x = B.rs; B.rs = B.cs; B.cs = x; }
    if (M == 0 || N == 0) return ND_OK;
    if (!nd__is_float(t) && !nd__is_complex(t))
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_gemm", "gemm on %s", nd_dtype_name(t));
    if (K == 0 || alpha == 0.0) {
        /* BLAS semantics: alpha == 0 does not read A and B. */
        if (beta != 1.0) scale_view(C, tc, M, N, beta);
        return ND_OK;
    }
    if (!fits_int(M, N, K))
        return nd__err(ND_ERR_UNSUPPORTED, "nd_gemm", "matrix dimensions over INT_MAX are not supported by BLAS");
    scratch s;
    memset(&s, 0, sizeof s);
    bool ok = gemm_one(t, tc, M, N, K, alpha, A, B, beta, C, &s);
    scratch_free(&s);
    return ok ? ND_OK : nd__err(ND_ERR_NOMEM, "nd_gemm", "out of host memory for a scratch matrix");
}
