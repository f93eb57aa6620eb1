/* The reduction operators of the CUDA backend as plain ND_HOSTDEV C (no
 * CUDA runtime calls): the kernels in src/cuda/reduce_kern.cuh call them,
 * and tests/test_gpu_reduce.c calls the very same functions on the CPU
 * (gcc) to emulate the kernels' thread/warp/block decomposition.
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
 * merge() is called with l covering lower thread lanes than r; the
 * arg-reductions carry explicit indices, so their merge is commutative.
 *
 * Accuracy (documented decision): float sums (sum, mean, the squared
 * deviations of var/std) accumulate in DOUBLE on the GPU, whatever the
 * input float type: float16/bfloat16/float32 terms are added plainly in
 * double (a thread adds at most a few 10^5 terms: relative error below
 * 2^-35, far under float32's own rounding), float64 and integer (mean/var)
 * terms with Neumaier's compensated addition; partial results are merged
 * with compensation. This is at least as accurate as the CPU's pairwise
 * float32 sums (the H200's FP64 rate keeps it bandwidth bound). One visible
 * difference: a float32 sum whose partial sums overflow float32 but whose
 * total does not (e.g. [3e38, 3e38, -3e38]) gives the finite total on the
 * GPU, +inf on the CPU. prod, max/min and arg* compute in the compute type
 * (float32 products as the CPU).
 */
#ifndef ND_CUDA_REDUCE_OPS_H
#define ND_CUDA_REDUCE_OPS_H
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "half.h"
#include "hostdev.h"
#include "internal.h"

/* Reduction classes (what is folded per element). */
enum {
    NDR_SUM,   /* sum (ints wrap in uint64; floats in double) and mean of floats */
    NDR_FSUM,  /* sum in double of integer inputs (mean/var of ints) */
    NDR_PROD,
    NDR_MAX,
    NDR_MIN,
    NDR_ARGMAX,
    NDR_ARGMIN,
    NDR_ANY,
    NDR_ALL,
    NDR_SQDEV, /* sum of squared deviations from a per-output centre (var/std) */
    NDR_NCLS
};
/* Compute types. */
enum { NDR_CF32, NDR_CF64, NDR_CI64, NDR_CU64 };

static inline int nd_r_ckind(nd_dtype t)
{
    switch (t) {
    case ND_FLOAT16: case ND_BFLOAT16: case ND_FLOAT32: return NDR_CF32;
    case ND_FLOAT64: return NDR_CF64;
    case ND_INT8: case ND_INT16: case ND_INT32: case ND_INT64: return NDR_CI64;
    default: return NDR_CU64; /* bool, unsigned */
    }
}

/* The class of the (first) pass of op on input dtype t. var/std run
 * nd_r_class(MEAN) first (the centres), then NDR_SQDEV. */
static inline int nd_r_class(nd_reduce_op op, nd_dtype t)
{
    switch (op) {
    case ND_REDUCE_SUM: return NDR_SUM;
    case ND_REDUCE_PROD: return NDR_PROD;
    case ND_REDUCE_MEAN:
    case ND_REDUCE_VAR:
    case ND_REDUCE_STD: return nd__is_float(t) ? NDR_SUM : NDR_FSUM;
    case ND_REDUCE_MAX: return NDR_MAX;
    case ND_REDUCE_MIN: return NDR_MIN;
    case ND_REDUCE_ARGMAX: return NDR_ARGMAX;
    case ND_REDUCE_ARGMIN: return NDR_ARGMIN;
    case ND_REDUCE_ANY: return NDR_ANY;
    default: return NDR_ALL;
    }
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
/* double results: float32 and narrower round through float32 (the type
 * the CPU accumulates them in) */
ND_HOSTDEV static inline void nd_rstore_f64(void *out, int odt, int64_t o, double v)
{
    if (odt == ND_FLOAT64) ((double *)out)[o] = v;
    else nd_rstore_f32(out, odt, o, (float)v);
}
/* mean: / n; var: / den; std: sqrt(/ den); others unchanged */
ND_HOSTDEV static inline double nd_rscale(const nd_rfin *f, double v)
{
    switch (f->op) {
    case ND_REDUCE_MEAN: return v / f->n;
    case ND_REDUCE_VAR: return v / f->den;
    case ND_REDUCE_STD: return sqrt(v / f->den);
    default: return v;
    }
}

/* ------------------------------------------------------------------ */
/* Sums in double                                                      */
/* ------------------------------------------------------------------ */
typedef struct nd_rsum {
    double s, c; /* sum and Neumaier compensation */
} nd_rsum;
ND_HOSTDEV static inline nd_rsum nd_rsum_zero(void)
{
    nd_rsum r;
    r.s = 0.0; /* +0: a sum of -0.0 terms is +0.0, as on the CPU */
    r.c = 0.0;
    return r;
}
ND_HOSTDEV static inline void nd_rsum_add(nd_rsum *a, double x) { a->s += x; }
/* Neumaier: a.s + a.c tracks the exact sum to O(eps) whatever the count */
ND_HOSTDEV static inline void nd_rsum_addk(nd_rsum *a, double x)
{
    double t = a->s + x;
    if (fabs(a->s) >= fabs(x)) a->c += (a->s - t) + x;
    else a->c += (x - t) + a->s;
    a->s = t;
}
ND_HOSTDEV static inline void nd_rsum_merge(nd_rsum *a, nd_rsum b)
{
    nd_rsum_addk(a, b.s);
    a->c += b.c;
}
/* Inf and NaN live in s (the compensation of an overflowed or NaN sum is
 * NaN and is dropped). */
ND_HOSTDEV static inline double nd_rsum_value(nd_rsum a) { return fabs(a.s) <= DBL_MAX ? a.s + a.c : a.s; }
/* d*d rounded as written (no FMA contraction into the following add,
 * which would break the compensation's error term) */
ND_HOSTDEV static inline double nd_rsq(double d)
{
#if defined(__CUDA_ARCH__)
    return __dmul_rn(d, d);
#else
    return d * d;
#endif
}

#define NDR_NAN(x) ((x) != (x))
#define NDR_NONAN(x) 0

/* sum / fsum / sqdev families (state nd_rsum) */
#define NDR_RSUM_FAMILY(cls, ck, CT, ADD, TERM)                                                      \
    typedef nd_rsum nd_r_##cls##_##ck##_S;                                                         \
    ND_HOSTDEV static inline nd_rsum nd_r_##cls##_##ck##_init(void) { return nd_rsum_zero(); }    \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_fold(nd_rsum *s, CT x, int64_t j, double c) \
    {                                                                                              \
        (void)j;                                                                                   \
        (void)c;                                                                                   \
        ADD(s, TERM);                                                                              \
    }                                                                                              \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_merge(nd_rsum *l, nd_rsum r) { nd_rsum_merge(l, r); } \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_fin(const nd_rfin *f, int64_t o, nd_rsum s)  \
    {                                                                                              \
        nd_rstore_f64(f->out, f->odt, o, nd_rscale(f, nd_rsum_value(s)));                           \
    }
#define NDR_T_X ((double)x)
#define NDR_T_SQ nd_rsq((double)x - c)
NDR_RSUM_FAMILY(sum, f32, float, nd_rsum_add, NDR_T_X)
NDR_RSUM_FAMILY(sum, f64, double, nd_rsum_addk, NDR_T_X)
NDR_RSUM_FAMILY(fsum, i64, int64_t, nd_rsum_addk, NDR_T_X)
NDR_RSUM_FAMILY(fsum, u64, uint64_t, nd_rsum_addk, NDR_T_X)
NDR_RSUM_FAMILY(sqdev, f32, float, nd_rsum_add, NDR_T_SQ)
NDR_RSUM_FAMILY(sqdev, f64, double, nd_rsum_addk, NDR_T_SQ)
NDR_RSUM_FAMILY(sqdev, i64, int64_t, nd_rsum_addk, NDR_T_SQ)
NDR_RSUM_FAMILY(sqdev, u64, uint64_t, nd_rsum_addk, NDR_T_SQ)

/* ------------------------------------------------------------------ */
/* Value families: sum of ints, prod, max, min, any, all               */
/* ------------------------------------------------------------------ */
/* FOLD(s, x) updates *s; MERGE(l, r) likewise; STORE(out, odt, o, v). */
#define NDR_VAL_FAMILY(cls, ck, CT, ST, INIT, FOLD, MERGE, STORE)                                    \
    typedef ST nd_r_##cls##_##ck##_S;                                                              \
    ND_HOSTDEV static inline ST nd_r_##cls##_##ck##_init(void) { return (ST)(INIT); }             \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_fold(ST *s, CT x, int64_t j, double c)      \
    {                                                                                              \
        (void)j;                                                                                   \
        (void)c;                                                                                   \
        FOLD(s, x);                                                                                \
    }                                                                                              \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_merge(ST *l, ST r) { MERGE(l, r); }         \
    ND_HOSTDEV static inline void nd_r_##cls##_##ck##_fin(const nd_rfin *f, int64_t o, ST s)      \
    {                                                                                              \
        STORE(f->out, f->odt, o, s);                                                               \
    }

/* integer sums and products wrap: computed in uint64 (int64's bits) */
#define NDR_ADDU(s, x) (*(s) += (uint64_t)(x))
#define NDR_MULU(s, x) (*(s) *= (uint64_t)(x))
#define NDR_MULF(s, x) (*(s) *= (x))
/* NaN-propagating max/min, the CPU's MAXSEL/MINSEL: a NaN state sticks
 * (x > NaN is false), a NaN x replaces the state */
#define NDR_MAXF(s, x) (*(s) = ((x) > *(s) || NDR_NAN(x)) ? (x) : *(s))
#define NDR_MINF(s, x) (*(s) = ((x) < *(s) || NDR_NAN(x)) ? (x) : *(s))
#define NDR_MAXI(s, x) (*(s) = (x) > *(s) ? (x) : *(s))
#define NDR_MINI(s, x) (*(s) = (x) < *(s) ? (x) : *(s))
#define NDR_ANYF(s, x) (*(s) |= (unsigned)((x) != 0))
#define NDR_ALLF(s, x) (*(s) &= (unsigned)((x) != 0))
#define NDR_ST_U64(out, odt, o, v) nd_rstore_u64(out, odt, o, (uint64_t)(v))
#define NDR_ST_F32(out, odt, o, v) nd_rstore_f32(out, odt, o, v)
#define NDR_ST_F64(out, odt, o, v) nd_rstore_f64(out, odt, o, v)
#define NDR_ST_B1(out, odt, o, v) (((uint8_t *)(out))[o] = (uint8_t)((v) != 0))

NDR_VAL_FAMILY(sum, i64, int64_t, uint64_t, 0, NDR_ADDU, NDR_ADDU, NDR_ST_U64)
NDR_VAL_FAMILY(sum, u64, uint64_t, uint64_t, 0, NDR_ADDU, NDR_ADDU, NDR_ST_U64)
NDR_VAL_FAMILY(prod, f32, float, float, 1.0f, NDR_MULF, NDR_MULF, NDR_ST_F32)
NDR_VAL_FAMILY(prod, f64, double, double, 1.0, NDR_MULF, NDR_MULF, NDR_ST_F64)
NDR_VAL_FAMILY(prod, i64, int64_t, uint64_t, 1, NDR_MULU, NDR_MULU, NDR_ST_U64)
NDR_VAL_FAMILY(prod, u64, uint64_t, uint64_t, 1, NDR_MULU, NDR_MULU, NDR_ST_U64)
NDR_VAL_FAMILY(max, f32, float, float, -INFINITY, NDR_MAXF, NDR_MAXF, NDR_ST_F32)
NDR_VAL_FAMILY(max, f64, double, double, -INFINITY, NDR_MAXF, NDR_MAXF, NDR_ST_F64)
NDR_VAL_FAMILY(max, i64, int64_t, int64_t, INT64_MIN, NDR_MAXI, NDR_MAXI, NDR_ST_U64)
NDR_VAL_FAMILY(max, u64, uint64_t, uint64_t, 0, NDR_MAXI, NDR_MAXI, NDR_ST_U64)
NDR_VAL_FAMILY(min, f32, float, float, INFINITY, NDR_MINF, NDR_MINF, NDR_ST_F32)
NDR_VAL_FAMILY(min, f64, double, double, INFINITY, NDR_MINF, NDR_MINF, NDR_ST_F64)
NDR_VAL_FAMILY(min, i64, int64_t, int64_t, INT64_MAX, NDR_MINI, NDR_MINI, NDR_ST_U64)
NDR_VAL_FAMILY(min, u64, uint64_t, uint64_t, UINT64_MAX, NDR_MINI, NDR_MINI, NDR_ST_U64)
NDR_VAL_FAMILY(any, f32, float, unsigned, 0, NDR_ANYF, NDR_ANYF, NDR_ST_B1)
NDR_VAL_FAMILY(any, f64, double, unsigned, 0, NDR_ANYF, NDR_ANYF, NDR_ST_B1)
NDR_VAL_FAMILY(any, i64, int64_t, unsigned, 0, NDR_ANYF, NDR_ANYF, NDR_ST_B1)
NDR_VAL_FAMILY(any, u64, uint64_t, unsigned, 0, NDR_ANYF, NDR_ANYF, NDR_ST_B1)
NDR_VAL_FAMILY(all, f32, float, unsigned, 1, NDR_ALLF, NDR_ALLF, NDR_ST_B1)
NDR_VAL_FAMILY(all, f64, double, unsigned, 1, NDR_ALLF, NDR_ALLF, NDR_ST_B1)
NDR_VAL_FAMILY(all, i64, int64_t, unsigned, 1, NDR_ALLF, NDR_ALLF, NDR_ST_B1)
NDR_VAL_FAMILY(all, u64, uint64_t, unsigned, 1, NDR_ALLF, NDR_ALLF, NDR_ST_B1)

/* ------------------------------------------------------------------ */
/* argmax / argmin: (value, flat index) pairs                          */
/* ------------------------------------------------------------------ */
/* The merge of two results over disjoint index sets, in either order: an
 * empty result (i < 0) loses; a NaN beats every number and the first NaN
 * (smallest index) wins; otherwise the larger (smaller for argmin) value
 * wins and equal values keep the smaller index. That is the CPU's
 * first-occurrence rule, independent of the combine order. */
#define NDR_ARG_FAMILY(ck, CT, ISN)                                                                  \
    typedef struct {                                                                               \
        CT v;                                                                                      \
        int64_t i;                                                                                 \
    } nd_rarg_##ck;                                                                                \
    ND_HOSTDEV static inline nd_rarg_##ck nd_rarg_##ck##_pick(nd_rarg_##ck a, nd_rarg_##ck b, int want_max) \
    {                                                                                              \
        if (b.i < 0) return a;                                                                     \
        if (a.i < 0) return b;                                                                     \
        int an = ISN(a.v), bn = ISN(b.v);                                                          \
        if (an || bn) {                                                                            \
            if (an && bn) return a.i <= b.i ? a : b;                                               \
            return an ? a : b;                                                                     \
        }                                                                                          \
        if (want_max ? b.v > a.v : b.v < a.v) return b;                                            \
        if (want_max ? a.v > b.v : a.v < b.v) return a;                                            \
        return a.i <= b.i ? a : b;                                                                 \
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
NDR_ARG_FAMILY(f32, float, NDR_NAN)
NDR_ARG_FAMILY(f64, double, NDR_NAN)
NDR_ARG_FAMILY(i64, int64_t, NDR_NONAN)
NDR_ARG_FAMILY(u64, uint64_t, NDR_NONAN)

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
