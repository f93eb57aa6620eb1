/* The meaning of every reduction, once for both backends (as
 * src/shared/ops_math.h is for elementwise ops): which accumulator type an op
 * computes in for each input dtype, the identities, how one element is
 * folded in and two partial results are merged, and how the result is
 * finished (mean, var/std with a real ddof). ND_HOSTDEV static inline C:
 * the CPU loops (src/cpu/reduce_prims.c; max/min/arg per ISA path in
 * src/cpu/reduce_minmax.c) and the CUDA kernels (through
 * src/cuda/reduce_states.h) call these very bodies; only the loop structure
 * (the CPU's vectorised pairwise sums, the GPU's warp/block trees) is
 * each backend's own.
 *
 * Accumulation (the one decision for both devices, NumPy's and CuPy's):
 *  - float16, bfloat16 and float32 inputs accumulate in float32, float64
 *    in float64, for sum, prod, mean and var/std alike; the order is a
 *    tree (the CPU: pairwise, 8 lanes x 16-term leaves in a balanced tree
 *    as NumPy; the GPU: short per-thread runs, then warp/block trees over
 *    neighbouring lanes), never a long running sum. So a float32 sum whose
 *    partial sums overflow overflows on every device: float32
 *    [3e38, 3e38, -3e38] sums to +inf, as NumPy gives.
 *  - sum/prod of bool and signed integers in int64, of unsigned integers
 *    in uint64, wrapping (NumPy's reduction dtypes); mean/var/std of bool
 *    and integers in float64 (each element converted first).
 *  - max/min and argmax/argmin compare in the input's own domain (the
 *    accumulator holds every value of the input exactly).
 *  - var = sum((x - mean)^2) / max(n - ddof, 0) (two passes, the mean
 *    first, both in the accumulator type), std = sqrt(var).
 * Rules: max/min propagate NaN; argmax/argmin return the first occurrence
 * and the first NaN wins; any/all test x != 0 (NaN is true); a float sum
 * of nothing or of -0.0 terms is +0.0. On the CPU, max/min return exactly
 * the element argmax/argmin pick (the first NaN, else the first extreme in
 * memory order), which fixes the NaN payload and the sign of a zero result
 * on every ISA path and thread count (src/cpu/reduce_minmax.c); NumPy
 * leaves both to its SIMD lanes (np.max([-0., 0.]) is +0.0,
 * np.max([0., -0.]) is -0.0), and the CUDA side promises neither. */
#ifndef ND_REDUCE_OPS_H
#define ND_REDUCE_OPS_H
#include <math.h>
#include <stdint.h>

#include "shared/hostdev.h"
#include "shared/dtype.h"

/* What is folded per element. mean is SUM then a division; var/std are
 * SUM (the centres) then SQDEV. */
typedef enum {
    ND_RCLS_SUM,
    ND_RCLS_PROD,
    ND_RCLS_MAX,
    ND_RCLS_MIN,
    ND_RCLS_ARGMAX,
    ND_RCLS_ARGMIN,
    ND_RCLS_ANY,
    ND_RCLS_ALL,
    ND_RCLS_SQDEV, /* sum of squared deviations from a per-output centre */
    ND_RCLS_N
} nd_rcls;

/* Accumulator types: float, double, int64_t, uint64_t. */
typedef enum { ND_RACC_F32, ND_RACC_F64, ND_RACC_I64, ND_RACC_U64, ND_RACC_N } nd_racc;

/* The class of op's last pass. */
ND_HOSTDEV static inline nd_rcls nd_rcls_of(nd_reduce_op op)
{
    switch (op) {
    case ND_REDUCE_SUM: case ND_REDUCE_MEAN: return ND_RCLS_SUM;
    case ND_REDUCE_PROD: return ND_RCLS_PROD;
    case ND_REDUCE_MAX: return ND_RCLS_MAX;
    case ND_REDUCE_MIN: return ND_RCLS_MIN;
    case ND_REDUCE_ARGMAX: return ND_RCLS_ARGMAX;
    case ND_REDUCE_ARGMIN: return ND_RCLS_ARGMIN;
    case ND_REDUCE_ANY: return ND_RCLS_ANY;
    case ND_REDUCE_ALL: return ND_RCLS_ALL;
    default: return ND_RCLS_SQDEV; /* var, std */
    }
}

/* The accumulator of op on input dtype t (the rule at the top). */
static inline nd_racc nd_racc_of(nd_reduce_op op, nd_dtype t)
{
    if (nd__kind(t) == ND_KIND_FLOAT) return t == ND_FLOAT64 ? ND_RACC_F64 : ND_RACC_F32;
    if (op == ND_REDUCE_MEAN || op == ND_REDUCE_VAR || op == ND_REDUCE_STD) return ND_RACC_F64;
    return nd__kind(t) == ND_KIND_INT ? ND_RACC_I64 : ND_RACC_U64;
}

/* The divisor of var/std: max(n - ddof, 0), NaN for a NaN ddof (NumPy). */
ND_HOSTDEV static inline double nd_rop_den(double n, double ddof)
{
    double d = n - ddof;
    return d < 0 ? 0.0 : d;
}

/* ------------------------------------------------------------------ */
/* Per accumulator type ck (C type T):                                 */
/*   T    nd_rop_identity_ck(cls)   the value of an empty reduction     */
/*   T    nd_rop_add_ck(a, b)       sum: fold and merge                 */
/*   T    nd_rop_mul_ck(a, b)       prod: fold and merge                */
/*   T    nd_rop_max_ck(m, x)       max: fold x into m, merge (NaN sticks) */
/*   T    nd_rop_min_ck(m, x)                                           */
/*   int  nd_rop_argmax_takes_ck(best, x)  whether a LATER element x     */
/*        replaces best (first occurrence; the first NaN wins)          */
/*   int  nd_rop_argmin_takes_ck(best, x)                               */
/*   int  nd_rop_nz_ck(x)           any/all: x != 0 (NaN is true)       */
/*   T    nd_rop_sqdev_ck(x, c)     the var term (x - c)^2              */
/*   T    nd_rop_finish_ck(v, op, n, den)  mean v/n, var v/den, std     */
/*        sqrt(v/den), in T (floats); others unchanged                  */
/*   int  nd_rop_isnan_ck(x)                                            */
/* Integer arithmetic wraps (computed in uint64).                       */
/* ------------------------------------------------------------------ */
#define ND_ROPS_COMMON(ck, T, ISN)                                                                     \
    ND_HOSTDEV static inline int nd_rop_isnan_##ck(T x) { return ISN(x); }                             \
    ND_HOSTDEV static inline T nd_rop_max_##ck(T m, T x) { return (x > m || ISN(x)) ? x : m; }         \
    ND_HOSTDEV static inline T nd_rop_min_##ck(T m, T x) { return (x < m || ISN(x)) ? x : m; }         \
    ND_HOSTDEV static inline int nd_rop_argmax_takes_##ck(T best, T x) { return !ISN(best) && (x > best || ISN(x)); } \
    ND_HOSTDEV static inline int nd_rop_argmin_takes_##ck(T best, T x) { return !ISN(best) && (x < best || ISN(x)); } \
    ND_HOSTDEV static inline int nd_rop_nz_##ck(T x) { return x != 0; }

#define ND_ROP_ISNAN_F(x) ((x) != (x))
#define ND_ROP_ISNAN_I(x) ((void)(x), 0)

/* Floats: the arithmetic of T, nothing wider. */
#define ND_ROPS_FLOAT(ck, T, SQRT, INF)                                                                \
    ND_ROPS_COMMON(ck, T, ND_ROP_ISNAN_F)                                                              \
    ND_HOSTDEV static inline T nd_rop_add_##ck(T a, T b) { return a + b; }                             \
    ND_HOSTDEV static inline T nd_rop_mul_##ck(T a, T b) { return a * b; }                             \
    ND_HOSTDEV static inline T nd_rop_sqdev_##ck(T x, T c) { return (x - c) * (x - c); }               \
    ND_HOSTDEV static inline T nd_rop_identity_##ck(int cls)                                           \
    {                                                                                                  \
        switch (cls) {                                                                                 \
        case ND_RCLS_PROD: case ND_RCLS_ALL: return (T)1;                                              \
        case ND_RCLS_MAX: case ND_RCLS_ARGMAX: return -(INF);                                          \
        case ND_RCLS_MIN: case ND_RCLS_ARGMIN: return INF;                                             \
        default: return (T)0; /* +0.0 */                                                               \
        }                                                                                              \
    }                                                                                                  \
    ND_HOSTDEV static inline T nd_rop_finish_##ck(T v, int op, double n, double den)                   \
    {                                                                                                  \
        switch (op) {                                                                                  \
        case ND_REDUCE_MEAN: return v / (T)n;                                                          \
        case ND_REDUCE_VAR: return v / (T)den;                                                         \
        case ND_REDUCE_STD: return SQRT(v / (T)den);                                                   \
        default: return v;                                                                             \
        }                                                                                              \
    }

#define ND_ROPS_INT(ck, T, LO, HI)                                                                     \
    ND_ROPS_COMMON(ck, T, ND_ROP_ISNAN_I)                                                              \
    ND_HOSTDEV static inline T nd_rop_add_##ck(T a, T b) { return (T)((uint64_t)a + (uint64_t)b); }    \
    ND_HOSTDEV static inline T nd_rop_mul_##ck(T a, T b) { return (T)((uint64_t)a * (uint64_t)b); }    \
    ND_HOSTDEV static inline T nd_rop_identity_##ck(int cls)                                           \
    {                                                                                                  \
        switch (cls) {                                                                                 \
        case ND_RCLS_PROD: case ND_RCLS_ALL: return (T)1;                                              \
        case ND_RCLS_MAX: case ND_RCLS_ARGMAX: return LO;                                              \
        case ND_RCLS_MIN: case ND_RCLS_ARGMIN: return HI;                                              \
        default: return (T)0;                                                                          \
        }                                                                                              \
    }

ND_ROPS_FLOAT(f32, float, sqrtf, INFINITY)
ND_ROPS_FLOAT(f64, double, sqrt, (double)INFINITY)
ND_ROPS_INT(i64, int64_t, INT64_MIN, INT64_MAX)
ND_ROPS_INT(u64, uint64_t, (uint64_t)0, UINT64_MAX)
#endif
