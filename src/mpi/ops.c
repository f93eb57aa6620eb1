/* nd_dtype -> MPI datatypes and reduction operations.
 *
 * MPI has no float16/bfloat16: both travel as committed 2-byte contiguous
 * types of their own (so a user-defined op can tell them apart by
 * datatype), reduced by user-defined ops that compute each pairwise step in
 * float32 and round to the dtype once (as NCCL does). MPI's built-in
 * MPI_MAX/MPI_MIN on floats are plain comparisons (a NaN may or may not
 * survive, depending on the order); NumPy's maximum/minimum propagate NaN,
 * so max/min on every float dtype use our ops. Sums and products of
 * float32/float64 use MPI's built-ins (fast, vectorised by Open MPI). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define NDM_X86 1
#endif

#include "shared/dtype.h"
#include "shared/half.h"
#include "mpi_internal.h"

static int g_refs;
static MPI_Datatype g_f16 = MPI_DATATYPE_NULL, g_bf16 = MPI_DATATYPE_NULL;
static MPI_Op g_sum = MPI_OP_NULL, g_prod = MPI_OP_NULL, g_max = MPI_OP_NULL, g_min = MPI_OP_NULL;

enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN };

static inline float fmax_nan(float a, float b) { return (a != a || b != b) ? (a != a ? a : b) : (a > b ? a : b); }
static inline float fmin_nan(float a, float b) { return (a != a || b != b) ? (a != a ? a : b) : (a < b ? a : b); }
static inline double dmax_nan(double a, double b) { return (a != a || b != b) ? (a != a ? a : b) : (a > b ? a : b); }
static inline double dmin_nan(double a, double b) { return (a != a || b != b) ? (a != a ? a : b) : (a < b ? a : b); }

static inline float f32_op(int op, float a, float b)
{
    switch (op) {
    case OP_SUM: return a + b;
    case OP_PROD: return a * b;
    case OP_MAX: return fmax_nan(a, b);
    default: return fmin_nan(a, b);
    }
}

#ifdef NDM_X86
/* 8 lanes of a op b; max/min propagate NaN (the x86 max/min return the
 * second operand when either is NaN). */
__attribute__((target("avx2,f16c"))) static inline __m256 v_op(int op, __m256 a, __m256 b)
{
    switch (op) {
    case OP_SUM: return _mm256_add_ps(a, b);
    case OP_PROD: return _mm256_mul_ps(a, b);
    default: {
        __m256 r = op == OP_MAX ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b);
        r = _mm256_blendv_ps(r, a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
        return _mm256_blendv_ps(r, b, _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
    }
    }
}

/* F16C converts float16 <-> float32 exactly as nd_half_to_float /
 * nd_float_to_half (round to nearest even) but for NaN payloads. Returns
 * how many elements it did (a multiple of 8). */
__attribute__((target("avx2,f16c"))) static int f16_avx2(int op, const uint16_t *x, uint16_t *y, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i)));
        __m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(y + i)));
        _mm_storeu_si128((__m128i *)(y + i), _mm256_cvtps_ph(v_op(op, a, b), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    return i;
}

__attribute__((target("avx2,f16c"))) static inline __m256 bf16x8_load(const uint16_t *p)
{
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

/* float32 -> bfloat16 as nd_float_to_bf16: round to nearest even, NaN quieted. */
__attribute__((target("avx2,f16c"))) static inline void bf16x8_store(uint16_t *p, __m256 v)
{
    __m256i u = _mm256_castps_si256(v);
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), odd)), 16);
    __m256i q = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
    r = _mm256_blendv_epi8(r, q, nan);
    /* 8 x 32-bit (each <= 0xffff) -> 8 x 16-bit, in order */
    __m256i packed = _mm256_packus_epi32(r, r);
    packed = _mm256_permute4x64_epi64(packed, 0x08);
    _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(packed));
}

__attribute__((target("avx2,f16c"))) static int bf16_avx2(int op, const uint16_t *x, uint16_t *y, int n)
{
    int i = 0;
    for (; i + 8 <= n; i += 8) bf16x8_store(y + i, v_op(op, bf16x8_load(x + i), bf16x8_load(y + i)));
    return i;
}

/* libndgpu's CPU path (detected once, lowered by ND_CPU_ISA): "avx2" and
 * "avx512" are x86-64-v3 or more, which has F16C. */
static bool have_avx2(void) { return strcmp(nd_cpu_path(), "baseline") != 0; }
#endif

/* inout[i] = in[i] op inout[i] for one of our datatypes. */
static void apply(int op, void *in, void *inout, int n, MPI_Datatype dt)
{
    if (dt == g_f16 || dt == g_bf16) {
        const uint16_t *x = in;
        uint16_t *y = inout;
        int i0 = 0;
#ifdef NDM_X86
        if (have_avx2()) i0 = dt == g_f16 ? f16_avx2(op, x, y, n) : bf16_avx2(op, x, y, n);
#endif
        if (dt == g_f16)
            for (int i = i0; i < n; i++) y[i] = nd_float_to_half(f32_op(op, nd_half_to_float(x[i]), nd_half_to_float(y[i])));
        else
            for (int i = i0; i < n; i++) y[i] = nd_float_to_bf16(f32_op(op, nd_bf16_to_float(x[i]), nd_bf16_to_float(y[i])));
    } else if (dt == MPI_FLOAT) {
        const float *x = in;
        float *y = inout;
        for (int i = 0; i < n; i++) y[i] = f32_op(op, x[i], y[i]);
    } else if (dt == MPI_DOUBLE) {
        const double *x = in;
        double *y = inout;
        if (op == OP_MAX)
            for (int i = 0; i < n; i++) y[i] = dmax_nan(x[i], y[i]);
        else
            for (int i = 0; i < n; i++) y[i] = dmin_nan(x[i], y[i]);
    }
}

static void op_sum(void *in, void *inout, int *len, MPI_Datatype *dt) { apply(OP_SUM, in, inout, *len, *dt); }
static void op_prod(void *in, void *inout, int *len, MPI_Datatype *dt) { apply(OP_PROD, in, inout, *len, *dt); }
static void op_max(void *in, void *inout, int *len, MPI_Datatype *dt) { apply(OP_MAX, in, inout, *len, *dt); }
static void op_min(void *in, void *inout, int *len, MPI_Datatype *dt) { apply(OP_MIN, in, inout, *len, *dt); }

nd_status ndm_types_acquire(void)
{
    if (g_refs++ > 0) return ND_OK;
    int rc = MPI_Type_contiguous(2, MPI_BYTE, &g_f16);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&g_f16);
    if (rc == MPI_SUCCESS) rc = MPI_Type_contiguous(2, MPI_BYTE, &g_bf16);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&g_bf16);
    if (rc == MPI_SUCCESS) rc = MPI_Op_create(op_sum, 1, &g_sum);
    if (rc == MPI_SUCCESS) rc = MPI_Op_create(op_prod, 1, &g_prod);
    if (rc == MPI_SUCCESS) rc = MPI_Op_create(op_max, 1, &g_max);
    if (rc == MPI_SUCCESS) rc = MPI_Op_create(op_min, 1, &g_min);
    if (rc != MPI_SUCCESS) {
        ndm_types_release();
        char b[MPI_MAX_ERROR_STRING + 32];
        return nd_set_error(ND_ERR_BACKEND, "nd_comm_create", "creating the float16/bfloat16 MPI types failed: %s",
                            ndm_mpi_error(rc, b, sizeof b));
    }
    return ND_OK;
}

void ndm_types_release(void)
{
    if (g_refs <= 0 || --g_refs > 0) return;
    MPI_Datatype *ts[] = {&g_f16, &g_bf16};
    for (int i = 0; i < 2; i++)
        if (*ts[i] != MPI_DATATYPE_NULL) MPI_Type_free(ts[i]);
    MPI_Op *os[] = {&g_sum, &g_prod, &g_max, &g_min};
    for (int i = 0; i < 4; i++)
        if (*os[i] != MPI_OP_NULL) MPI_Op_free(os[i]);
}

MPI_Datatype ndm_mpi_type(nd_dtype t)
{
    switch (t) {
    case ND_BOOL: return MPI_C_BOOL;
    case ND_INT8: return MPI_INT8_T;
    case ND_INT16: return MPI_INT16_T;
    case ND_INT32: return MPI_INT32_T;
    case ND_INT64: return MPI_INT64_T;
    case ND_UINT8: return MPI_UINT8_T;
    case ND_UINT16: return MPI_UINT16_T;
    case ND_UINT32: return MPI_UINT32_T;
    case ND_UINT64: return MPI_UINT64_T;
    case ND_FLOAT16: return g_f16;
    case ND_BFLOAT16: return g_bf16;
    case ND_FLOAT32: return MPI_FLOAT;
    case ND_FLOAT64: return MPI_DOUBLE;
    case ND_COMPLEX64: return MPI_C_FLOAT_COMPLEX; /* sum and prod are MPI's own; max/min refused (comm.c) */
    case ND_COMPLEX128: return MPI_C_DOUBLE_COMPLEX;
    default: return MPI_DATATYPE_NULL;
    }
}

bool ndm_is_float(nd_dtype t) { return nd__kind(t) == ND_KIND_FLOAT; }

MPI_Op ndm_mpi_op(nd_comm_op op, nd_dtype t)
{
    if (t == ND_BOOL) /* NumPy: add on bool is or, multiply is and */
        return (op == ND_COMM_SUM || op == ND_COMM_MAX || op == ND_COMM_AVG) ? MPI_LOR : MPI_LAND;
    bool half = nd__storage_only(t);
    switch (op) {
    case ND_COMM_SUM:
    case ND_COMM_AVG: return half ? g_sum : MPI_SUM;
    case ND_COMM_PROD: return half ? g_prod : MPI_PROD;
    case ND_COMM_MAX: return ndm_is_float(t) ? g_max : MPI_MAX;
    default: return ndm_is_float(t) ? g_min : MPI_MIN;
    }
}

void ndm_divide(void *buf, size_t n, nd_dtype t, int divisor)
{
    switch (t) {
    case ND_COMPLEX64: ndm_divide(buf, 2 * n, ND_FLOAT32, divisor); break; /* each part */
    case ND_COMPLEX128: ndm_divide(buf, 2 * n, ND_FLOAT64, divisor); break;
    case ND_FLOAT32: {
        float *x = buf, d = (float)divisor;
        for (size_t i = 0; i < n; i++) x[i] /= d;
        break;
    }
    case ND_FLOAT64: {
        double *x = buf, d = divisor;
        for (size_t i = 0; i < n; i++) x[i] /= d;
        break;
    }
    case ND_FLOAT16: {
        uint16_t *x = buf;
        for (size_t i = 0; i < n; i++) x[i] = nd_float_to_half(nd_half_to_float(x[i]) / (float)divisor);
        break;
    }
    case ND_BFLOAT16: {
        uint16_t *x = buf;
        for (size_t i = 0; i < n; i++) x[i] = nd_float_to_bf16(nd_bf16_to_float(x[i]) / (float)divisor);
        break;
    }
    default: break;
    }
}

const char *ndm_op_name(nd_comm_op op)
{
    static const char *names[] = {"sum", "prod", "max", "min", "avg"};
    return (unsigned)op < 5 ? names[op] : "?";
}

const char *ndm_mpi_error(int rc, char *buf, size_t cap)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "MPI error %d", rc);
    snprintf(buf, cap, "%s", s);
    return buf;
}
