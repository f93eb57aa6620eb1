/* The reduction operators of the CUDA backend as plain ND_HOSTDEV C (no
 * CUDA runtime calls): the kernels in src/cuda/reduce_kern.cuh call them,
 * and tests/test_gpu_reduce*.c call the very same functions on the CPU
 * (gcc) to emulate the kernels' thread/warp/block decomposition.
 *
 * What each op means (accumulator types, identities, fold, merge, finish,
 * the NaN and first-occurrence rules) is NOT defined here: every body
 * below is a call of src/shared/reduce_ops.h, the semantics the CPU loops use
 * too. This file only packs them into the state families the kernel
 * templates instantiate.
 *
 * Element values are loaded into a compute type ("ck"): float (float16,
 * bfloat16, float32: exact), double (float64), int64 (signed ints) or
 * uint64 (bool, unsigned ints). For every (class, ck) pair used by the
 * backend there is a family
 *     typedef ... nd_r_<cls>_<ck>_S;                    the partial state
 *     S    nd_r_<cls>_<ck>_init(void);                  the identity
 *     void nd_r_<cls>_<ck>_fold(S *, x, j, centre);     fold element j
 *     void nd_r_<cls>_<ck>_merge(S *l, S r);            l = l (+) r
 *     void nd_r_<cls>_<ck>_fin(const nd_rfin *, o, S);  write output o
 * whose state is the accumulator type of src/shared/reduce_ops.h (float32 sums
 * in float, float64 in double, integer sums wrapping in uint64, mean/var
 * of integers in double: class NDR_FSUM, "sum in float64 of an integer
 * input"). merge() is called with l covering lower thread lanes than r;
 * the arg-reductions carry explicit indices, so their merge is
 * commutative.
 */
#ifndef ND_CUDA_REDUCE_STATES_H
#define ND_CUDA_REDUCE_STATES_H
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "shared/half.h"
#include "shared/hostdev.h"
#include "core/internal.h"
#include "shared/reduce_ops.h"

/* Reduction classes: those of src/shared/reduce_ops.h, plus NDR_FSUM (the sum
 * pass of mean/var/std of an integer input, in double). */
enum {
    NDR_SUM = ND_RCLS_SUM,
    NDR_PROD = ND_RCLS_PROD,
    NDR_MAX = ND_RCLS_MAX,
    NDR_MIN = ND_RCLS_MIN,
    NDR_ARGMAX = ND_RCLS_ARGMAX,
    NDR_ARGMIN = ND_RCLS_ARGMIN,
    NDR_ANY = ND_RCLS_ANY,
    NDR_ALL = ND_RCLS_ALL,
    NDR_SQDEV = ND_RCLS_SQDEV,
    NDR_FSUM = ND_RCLS_N,
    NDR_NCLS
};
/* Compute types. */
enum { NDR_CF32, NDR_CF64, NDR_CI64, NDR_CU64 };

static inline int nd_r_ckind(nd_dtype t)
{
    if (nd__compute_dtype(t) == ND_FLOAT32) return NDR_CF32; /* float32 and the storage-only floats */
    switch (t) {
    case ND_FLOAT64: return NDR_CF64;
    case ND_INT8: case ND_INT16: case ND_INT32: case ND_INT64: return NDR_CI64;
    default: return NDR_CU64; /* bool, unsigned */
    }
}

/* The class of the (first) pass of op on input dtype t. var/std run
 * nd_r_class(MEAN) first (the centres), then NDR_SQDEV. */
static inline int nd_r_class(nd_reduce_op op, nd_dtype t)
{
    if (op == ND_REDUCE_VAR || op == ND_REDUCE_STD) op = ND_REDUCE_MEAN;
    int c = (int)nd_rcls_of(op);
    if (c == NDR_SUM && !nd__is_float(t) && nd_racc_of(op, t) == ND_RACC_F64) return NDR_FSUM;
    return c;
}

/* The input dtype whose kernels run class cls on dtype t (fewer kernels to
 * compile, same results): bool is read as uint8 (the CPU also folds the raw
 * bytes in uint64, for every class), and any/all on signed integers use
 * the unsigned kernels of the same width (x != 0 looks at the bits). */
static inline nd_dtype nd_r_kernel_dtype(nd_dtype t, int cls)
{
    if (t == ND_BOOL) return ND_UINT8;
    if ((cls == NDR_ANY || cls == NDR_ALL) && nd__kind(t) == ND_KIND_INT) return (nd_dtype)(t - ND_INT8 + ND_UINT8);
    return t;
}

/* ------------------------------------------------------------------ */
/* Element loads: storage -> compute type (same conversions as the CPU) */
/* ------------------------------------------------------------------ */
ND_HOSTDEV static inline uint64_t nd_rld_b1(const char *p) { return *(const uint8_t *)p; }
ND_HOSTDEV static inline int64_t nd_rld_i8(const char *p) { return *(const int8_t *)p; }
ND_HOSTDEV static inline int64_t nd_rld_i16(const char *p) { return *(const int16_t *)(const void *)p; }
ND_HOSTDEV static inline int64_t nd_rld_i32(const char *p) { return *(const int32_t *)(const void *)p; }
ND_HOSTDEV static inline int64_t nd_rld_i64(const char *p) { return *(const int64_t *)(const void *)p; }
ND_HOSTDEV static inline uint64_t nd_rld_u8(const char *p) { return *(const uint8_t *)p; }
ND_HOSTDEV static inline uint64_t nd_rld_u16(const char *p) { return *(const uint16_t *)(const void *)p; }
ND_HOSTDEV static inline uint64_t nd_rld_u32(const char *p) { return *(const uint32_t *)(const void *)p; }
ND_HOSTDEV static inline uint64_t nd_rld_u64(const char *p) { return *(const uint64_t *)(const void *)p; }
ND_HOSTDEV static inline float nd_rld_f16(const char *p) { return nd_half_to_float(*(const uint16_t *)(const void *)p); }
ND_HOSTDEV static inline float nd_rld_bf16(const char *p) { return nd_bf16_to_float(*(const uint16_t *)(const void *)p); }
ND_HOSTDEV static inline float nd_rld_f32(const char *p) { return *(const float *)(const void *)p; }
ND_HOSTDEV static inline double nd_rld_f64(const char *p) { return *(const double *)(const void *)p; }

/* ------------------------------------------------------------------ */
/* Finishing: mean/var/std scaling and stores into the output dtype     */
/* ------------------------------------------------------------------ */
typedef struct nd_rfin {
    void *out;     /* C-contiguous output (or the centres buffer) */
    int odt;       /* its dtype */
    int op;        /* nd_reduce_op that decides the scaling */
    double n;      /* reduced count (mean) */
    double den;    /* max(n - ddof, 0) (var/std) */
} nd_rfin;

ND_HOSTDEV static inline void nd_rstore_u64(void *out, int odt, int64_t o, uint64_t v)
{
    switch (odt) {
    case ND_BOOL: ((uint8_t *)out)[o] = v != 0; break;
    case ND_INT8: case ND_UINT8: ((uint8_t *)out)[o] = (uint8_t)v; break;
    case ND_INT16: case ND_UINT16: ((uint16_t *)out)[o] = (uint16_t)v; break;
    case ND_INT32: case ND_UINT32: ((uint32_t *)out)[o] = (uint32_t)v; break;
    case ND_INT64: case ND_UINT64: ((uint64_t *)out)[o] = v; break;
    default: break; /* not produced from an integer state */
    }
}
/* float32 results convert as the CPU's float32 accumulator does */
ND_HOSTDEV static inline void nd_rstore_f32(void *out, int odt, int64_t o, float v)
{
    switch (odt) {
    case ND_BOOL: ((uint8_t *)out)[o] = v != 0.0f; break;
    case ND_FLOAT16: ((uint16_t *)out)[o] = nd_float_to_half(v); break;
    case ND_BFLOAT16: ((uint16_t *)out)[o] = nd_float_to_bf16(v); break;
    case ND_FLOAT32: ((float *)out)[o] = v; break;
    case ND_FLOAT64: ((double *)out)[o] = (double)v; break;
    default: break;
    }
}
/* double results (float64 accumulators) */
ND_HOSTDEV static inline void nd_rstore_f64(void *out, int odt, int64_t o, double v)
{
    if (odt == ND_FLOAT64) ((double *)out)[o] = v;
    else nd_rstore_f32(out, odt, o, (float)v);
}
/* ------------------------------------------------------------------ */
/* The families                                                        */
/* ------------------------------------------------------------------ */
/* state ST; *s = FOLD (of *s, x, centre c), *l = MERGE (of *l, r); FIN
 * writes output o of state s. */
#define NDR_FAMILY(cls, ck, CT, ST, INIT, FOLD, MERGE, FIN)                                          \
    typedef ST nd_r_##cls##_##ck##_S;                                                              \
    ND_HOSTDEV static inline ST nd_r_##cls##_##ck##_init(void) { return (ST)(INIT); }             \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_fold(ST *s, CT x, int64_t j, double c)      \
    {                                                                                              \
        (void)j;                                                                                   \
        (void)c;                                                                                   \
        *s = FOLD;                                                                                 \
    }                                                                                              \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_merge(ST *l, ST r) { *l = MERGE; }          \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_fin(const nd_rfin *f, int64_t o, ST s)      \
    {                                                                                              \
        FIN;                                                                                       \
    }
/* finishing float states: nd_rop_finish (mean, var, std) then the store */
#define NDR_FIN_F32 nd_rstore_f32(f->out, f->odt, o, nd_rop_finish_f32(s, f->op, f->n, f->den))
#define NDR_FIN_F64 nd_rstore_f64(f->out, f->odt, o, nd_rop_finish_f64(s, f->op, f->n, f->den))
#define NDR_FIN_F32V nd_rstore_f32(f->out, f->odt, o, s)
#define NDR_FIN_U64 nd_rstore_u64(f->out, f->odt, o, (uint64_t)s)
#define NDR_FIN_B1 (((uint8_t *)f->out)[o] = (uint8_t)(s != 0))

/* sums: float32 terms in float, float64 in double, integers wrapping in
 * uint64 (int64's bits); mean/var/std of integers in double (fsum) */
NDR_FAMILY(sum, f32, float, float, nd_rop_identity_f32(ND_RCLS_SUM), nd_rop_add_f32(*s, x), nd_rop_add_f32(*l, r), NDR_FIN_F32)
NDR_FAMILY(sum, f64, double, double, nd_rop_identity_f64(ND_RCLS_SUM), nd_rop_add_f64(*s, x), nd_rop_add_f64(*l, r), NDR_FIN_F64)
NDR_FAMILY(sum, i64, int64_t, uint64_t, 0, nd_rop_add_u64(*s, (uint64_t)x), nd_rop_add_u64(*l, r), NDR_FIN_U64)
NDR_FAMILY(sum, u64, uint64_t, uint64_t, 0, nd_rop_add_u64(*s, x), nd_rop_add_u64(*l, r), NDR_FIN_U64)
NDR_FAMILY(fsum, i64, int64_t, double, 0.0, nd_rop_add_f64(*s, (double)x), nd_rop_add_f64(*l, r), NDR_FIN_F64)
NDR_FAMILY(fsum, u64, uint64_t, double, 0.0, nd_rop_add_f64(*s, (double)x), nd_rop_add_f64(*l, r), NDR_FIN_F64)
/* squared deviations from the centre c (the mean, computed in the same
 * accumulator type and handed over as a double) */
NDR_FAMILY(sqdev, f32, float, float, 0.0f, nd_rop_add_f32(*s, nd_rop_sqdev_f32(x, (float)c)), nd_rop_add_f32(*l, r), NDR_FIN_F32)
NDR_FAMILY(sqdev, f64, double, double, 0.0, nd_rop_add_f64(*s, nd_rop_sqdev_f64(x, c)), nd_rop_add_f64(*l, r), NDR_FIN_F64)
NDR_FAMILY(sqdev, i64, int64_t, double, 0.0, nd_rop_add_f64(*s, nd_rop_sqdev_f64((double)x, c)), nd_rop_add_f64(*l, r), NDR_FIN_F64)
NDR_FAMILY(sqdev, u64, uint64_t, double, 0.0, nd_rop_add_f64(*s, nd_rop_sqdev_f64((double)x, c)), nd_rop_add_f64(*l, r), NDR_FIN_F64)
/* products */
NDR_FAMILY(prod, f32, float, float, nd_rop_identity_f32(ND_RCLS_PROD), nd_rop_mul_f32(*s, x), nd_rop_mul_f32(*l, r), NDR_FIN_F32V)
NDR_FAMILY(prod, f64, double, double, nd_rop_identity_f64(ND_RCLS_PROD), nd_rop_mul_f64(*s, x), nd_rop_mul_f64(*l, r), NDR_FIN_F64)
NDR_FAMILY(prod, i64, int64_t, uint64_t, 1, nd_rop_mul_u64(*s, (uint64_t)x), nd_rop_mul_u64(*l, r), NDR_FIN_U64)
NDR_FAMILY(prod, u64, uint64_t, uint64_t, 1, nd_rop_mul_u64(*s, x), nd_rop_mul_u64(*l, r), NDR_FIN_U64)
/* max / min (NaN propagating), in the compute type */
#define NDR_EXTREMA(dir, CLS, ck, CT, FIN)                                                           \
    NDR_FAMILY(dir, ck, CT, CT, nd_rop_identity_##ck(CLS), nd_rop_##dir##_##ck(*s, x), nd_rop_##dir##_##ck(*l, r), FIN)
NDR_EXTREMA(max, ND_RCLS_MAX, f32, float, NDR_FIN_F32V)
NDR_EXTREMA(max, ND_RCLS_MAX, f64, double, NDR_FIN_F64)
NDR_EXTREMA(max, ND_RCLS_MAX, i64, int64_t, NDR_FIN_U64)
NDR_EXTREMA(max, ND_RCLS_MAX, u64, uint64_t, NDR_FIN_U64)
NDR_EXTREMA(min, ND_RCLS_MIN, f32, float, NDR_FIN_F32V)
NDR_EXTREMA(min, ND_RCLS_MIN, f64, double, NDR_FIN_F64)
NDR_EXTREMA(min, ND_RCLS_MIN, i64, int64_t, NDR_FIN_U64)
NDR_EXTREMA(min, ND_RCLS_MIN, u64, uint64_t, NDR_FIN_U64)
/* any / all: x != 0 (NaN is true); the state is a 0/1 flag */
#define NDR_TRUTH(ck, CT)                                                                            \
    NDR_FAMILY(any, ck, CT, unsigned, 0u, *s | (unsigned)nd_rop_nz_##ck(x), *l | r, NDR_FIN_B1)      \
    NDR_FAMILY(all, ck, CT, unsigned, 1u, *s & (unsigned)nd_rop_nz_##ck(x), *l & r, NDR_FIN_B1)
NDR_TRUTH(f32, float)
NDR_TRUTH(f64, double)
NDR_TRUTH(i64, int64_t)
NDR_TRUTH(u64, uint64_t)

/* ------------------------------------------------------------------ */
/* argmax / argmin: (value, flat index) pairs                          */
/* ------------------------------------------------------------------ */
/* The merge of two results over disjoint index sets, in either order: an
 * empty result (i < 0) loses; otherwise the one with the smaller index is
 * "best so far" and the other replaces it when nd_rop_arg*_takes says so
 * (src/shared/reduce_ops.h: first occurrence, the first NaN wins). That is the
 * CPU's rule, independent of the combine order. */
#define NDR_ARG_FAMILY(ck, CT)                                                                       \
    typedef struct {                                                                               \
        CT v;                                                                                      \
        int64_t i;                                                                                 \
    } nd_rarg_##ck;                                                                                \
    ND_HOSTDEV static inline nd_rarg_##ck nd_rarg_##ck##_pick(nd_rarg_##ck a, nd_rarg_##ck b, int want_max) \
    {                                                                                              \
        if (b.i < 0) return a;                                                                     \
        if (a.i < 0) return b;                                                                     \
        nd_rarg_##ck lo = a.i <= b.i ? a : b, hi = a.i <= b.i ? b : a;                            \
        int takes = want_max ? nd_rop_argmax_takes_##ck(lo.v, hi.v) : nd_rop_argmin_takes_##ck(lo.v, hi.v); \
        return takes ? hi : lo;                                                                    \
    }                                                                                              \
    NDR_ARG_CLS(argmax, ck, CT, 1)                                                                 \
    NDR_ARG_CLS(argmin, ck, CT, 0)
#define NDR_ARG_CLS(cls, ck, CT, WMAX)                                                               \
    typedef nd_rarg_##ck nd_r_##cls##_##ck##_S;                                                    \
    ND_HOSTDEV static inline nd_rarg_##ck nd_r_##cls##_##ck##_init(void)                          \
    {                                                                                              \
        nd_rarg_##ck r;                                                                            \
        r.v = 0;                                                                                   \
        r.i = -1;                                                                                  \
        return r;                                                                                  \
    }                                                                                              \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_fold(nd_rarg_##ck *s, CT x, int64_t j, double c) \
    {                                                                                              \
        (void)c;                                                                                   \
        nd_rarg_##ck e;                                                                            \
        e.v = x;                                                                                   \
        e.i = j;                                                                                   \
        *s = nd_rarg_##ck##_pick(*s, e, WMAX);                                                     \
    }                                                                                              \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_merge(nd_rarg_##ck *l, nd_rarg_##ck r)      \
    {                                                                                              \
        *l = nd_rarg_##ck##_pick(*l, r, WMAX);                                                     \
    }                                                                                              \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_fin(const nd_rfin *f, int64_t o, nd_rarg_##ck s) \
    {                                                                                              \
        ((int64_t *)f->out)[o] = s.i;                                                              \
    }
NDR_ARG_FAMILY(f32, float)
NDR_ARG_FAMILY(f64, double)
NDR_ARG_FAMILY(i64, int64_t)
NDR_ARG_FAMILY(u64, uint64_t)

/* X(CLASS_ID, cls) for every class available on a compute type. */
#define NDR_CLASSES_FLOAT(X, ck)                                                                     \
    X(NDR_SUM, sum, ck) X(NDR_PROD, prod, ck) X(NDR_MAX, max, ck) X(NDR_MIN, min, ck)               \
    X(NDR_ARGMAX, argmax, ck) X(NDR_ARGMIN, argmin, ck) X(NDR_ANY, any, ck) X(NDR_ALL, all, ck)     \
    X(NDR_SQDEV, sqdev, ck)
#define NDR_CLASSES_INT(X, ck) NDR_CLASSES_FLOAT(X, ck) X(NDR_FSUM, fsum, ck)
/* the kernels of signed integer dtypes (any/all: see nd_r_kernel_dtype) */
#define NDR_CLASSES_SIGNED(X, ck)                                                                    \
    X(NDR_SUM, sum, ck) X(NDR_PROD, prod, ck) X(NDR_MAX, max, ck) X(NDR_MIN, min, ck)               \
    X(NDR_ARGMAX, argmax, ck) X(NDR_ARGMIN, argmin, ck) X(NDR_SQDEV, sqdev, ck) X(NDR_FSUM, fsum, ck)
#endif
