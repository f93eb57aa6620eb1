/* Scans (nd_cumsum, nd_cumprod, nd_cummax, nd_cummin; src/reduce/scan.c) and the
 * nan-aware reductions (src/reduce/nan.c): their internal declarations,
 * and the scalar bodies both backends' scan kernels call
 * (ND_HOSTDEV: src/cpu/scan.c and src/cuda/kernels_scan.cu).
 *
 * The backend slot nd_backend.scan (src/core/backend.h):
 *   scan(op, out, a, outer, n, inner): an inclusive scan along the middle
 *   axis of C-contiguous arrays of geometry (outer, n, inner):
 *     out[o, 0, j] = a[o, 0, j],
 *     out[o, i, j] = op(out[o, i - 1, j], a[o, i, j]);
 *   op an nd_sc_op; a and out have one dtype t, the accumulation dtype,
 *   with supports(ND_KERNEL_SCAN, op, t): int64, uint64, float32,
 *   float64; out is either exactly a (in place) or disjoint from it; the
 *   core never calls it with zero elements. Integers wrap (two's
 *   complement); max/min propagate NaN (np.maximum.accumulate).
 * The order in which a backend combines float sums/products is its own
 * (blocked two-pass scans on the CPU, CUB's decoupled look-back on a GPU):
 * results match a sequential scan within rounding, not bit for bit. */
#ifndef ND_SC_H
#define ND_SC_H
#include <stdint.h>

#include "shared/hostdev.h"
#include "shared/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { ND_SC_SUM, ND_SC_PROD, ND_SC_MAX, ND_SC_MIN, ND_SC_NOPS } nd_sc_op;

/* Whether the scan kernels exist for (op, t) (the same on both backends). */
static inline bool nd__sc_scan_dtype_ok(int op, nd_dtype t)
{
    return op >= 0 && op < ND_SC_NOPS && (t == ND_INT64 || t == ND_UINT64 || t == ND_FLOAT32 || t == ND_FLOAT64);
}

/* The entry points: src/cpu/scan.h and src/cuda/scan.h (the core
 * reaches them only through the descriptors). */

#ifdef __cplusplus
}
#endif

/* The combining step of each op, per accumulator type: acc is the running
 * value, x the next element. Integer sums and products wrap (computed on
 * the unsigned representation). max/min: NaN in either propagates. */
#define ND_SC_FLOAT_OPS(T, S)                                                                       \
    static inline ND_HOSTDEV T nd_sc_sum_##S(T acc, T x) { return acc + x; }                        \
    static inline ND_HOSTDEV T nd_sc_prod_##S(T acc, T x) { return acc * x; }                       \
    static inline ND_HOSTDEV T nd_sc_max_##S(T acc, T x) { return (acc != acc || acc > x) ? acc : x; } \
    static inline ND_HOSTDEV T nd_sc_min_##S(T acc, T x) { return (acc != acc || acc < x) ? acc : x; }
ND_SC_FLOAT_OPS(float, f32)
ND_SC_FLOAT_OPS(double, f64)
#undef ND_SC_FLOAT_OPS
static inline ND_HOSTDEV int64_t nd_sc_sum_i64(int64_t acc, int64_t x) { return (int64_t)((uint64_t)acc + (uint64_t)x); }
static inline ND_HOSTDEV int64_t nd_sc_prod_i64(int64_t acc, int64_t x) { return (int64_t)((uint64_t)acc * (uint64_t)x); }
static inline ND_HOSTDEV int64_t nd_sc_max_i64(int64_t acc, int64_t x) { return acc > x ? acc : x; }
static inline ND_HOSTDEV int64_t nd_sc_min_i64(int64_t acc, int64_t x) { return acc < x ? acc : x; }
static inline ND_HOSTDEV uint64_t nd_sc_sum_u64(uint64_t acc, uint64_t x) { return acc + x; }
static inline ND_HOSTDEV uint64_t nd_sc_prod_u64(uint64_t acc, uint64_t x) { return acc * x; }
static inline ND_HOSTDEV uint64_t nd_sc_max_u64(uint64_t acc, uint64_t x) { return acc > x ? acc : x; }
static inline ND_HOSTDEV uint64_t nd_sc_min_u64(uint64_t acc, uint64_t x) { return acc < x ? acc : x; }
#endif
