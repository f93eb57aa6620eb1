/*
 * libndgpu: sorting, searching, sets and order statistics - sort, argsort,
 * partition, argpartition, topk; searchsorted; isin, unique; median,
 * quantile, percentile.
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_SORT_H
#define NDGPU_SORT_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Sorting                                                             */
/* ------------------------------------------------------------------ */
/* One order for the whole family (NumPy's): bool false < true, integers by
 * value, floats -inf < ... < -0.0 == +0.0 < ... < +inf < NaN, NaNs of
 * either sign last (a descending sort puts them first). Every sort is
 * stable: elements that compare equal (also -0.0 and +0.0, or two NaNs)
 * keep their input order, so ND_SORT_STABLE (NumPy's kind='stable') costs
 * nothing extra. CPU: 32/64-bit integers and floats on the AVX-512 and
 * AVX2 paths go through x86-simd-sort's vector quicksort (the one NumPy
 * uses) on order-preserving keys, threaded by partition steps, argsort
 * made stable by sorting (key, index); every other dtype and the baseline
 * path a threaded LSD radix sort on the same keys. CUDA: CUB's device-wide
 * radix sort per row for a few long rows, CUB's segmented sort for many
 * rows. All 13 dtypes. */
/** Flags of nd_sort / nd_argsort. */
enum {
    ND_SORT_DEFAULT = 0,
    ND_SORT_STABLE = 1u << 0,     /* NumPy kind='stable' (every sort is stable) */
    ND_SORT_DESCENDING = 1u << 1, /* largest first, NaNs first, ties still in input order (torch's descending=True, stable) */
};

/** np.sort(a, axis, kind): a sorted copy along axis (negative allowed;
 *  ND_AXIS_NONE sorts the flattened array into a 1-D result). flags:
 *  ND_SORT_STABLE, ND_SORT_DESCENDING. Result: a's dtype and shape, C order.
 *  ND_ERR_SHAPE: bad axis (also any axis of a 0-d array: NumPy's
 *  AxisError; use ND_AXIS_NONE); ND_ERR_INVALID: unknown flags, NULL
 *  pointers. */
ND_API nd_status nd_sort(nd_array **out, const nd_array *a, int axis, unsigned flags);
/** np.argsort(a, axis, kind): int64 indices that sort a along axis (the
 *  order of nd_sort; equal elements by increasing index). Arguments and
 *  errors as nd_sort. nd_unique builds on the stable order. */
ND_API nd_status nd_argsort(nd_array **out, const nd_array *a, int axis, unsigned flags);
/** np.partition(a, kth, axis): a copy in which element kth (negative
 *  counts from the end) is where a sort would put it, none before it is
 *  larger and none after it smaller. This implementation returns the full
 *  sort (a valid partition, as CuPy's). ND_AXIS_NONE flattens.
 *  ND_ERR_INVALID: kth out of range ("kth(=5) out of bounds (5)"), checked
 *  only when a has elements (NumPy takes any kth on an empty array);
 *  ND_ERR_SHAPE: bad axis. */
ND_API nd_status nd_partition(nd_array **out, const nd_array *a, int64_t kth, int axis);
/** np.argpartition(a, kth, axis): int64 indices of a partition (see
 *  nd_partition; here those of a stable sort). */
ND_API nd_status nd_argpartition(nd_array **out, const nd_array *a, int64_t kth, int axis);
/** torch.topk(a, k, dim=axis, largest, sorted): the k largest (largest) or
 *  smallest elements along axis and their int64 indices, each of a's shape
 *  with axis of extent k. Results are always sorted (largest first, or
 *  smallest first) whatever `sorted` says, and equal to the first k of a
 *  stable descending (largest) or ascending (smallest) nd_sort: among equal
 *  values the lower index comes first, and NaN counts as larger than
 *  everything (picked first by largest=true, last by largest=false, as torch
 *  and NumPy's order do). values or indices may be NULL (not wanted), not
 *  both. 0 <= k <= n (k == 0: empty results); a 0-d a has one element
 *  (axis 0 or -1). ND_ERR_INVALID: k < 0 or k > n; ND_ERR_SHAPE: bad axis; out rule
 *  for both outputs. CPU: one selection pass per row (threaded over rows);
 *  CUDA: a segmented sort of the rows. */
ND_API nd_status nd_topk(nd_array **values, nd_array **indices, const nd_array *a, int64_t k, int axis, bool largest, bool sorted);

/* ------------------------------------------------------------------ */
/* Searching                                                           */
/* ------------------------------------------------------------------ */
/** Side of nd_searchsorted. */
typedef enum nd_side { ND_SIDE_LEFT = 0, ND_SIDE_RIGHT = 1 } nd_side;
/** np.searchsorted(a, v, side): int64 insertion indices of v (any shape,
 *  0-d too; result v's shape) into the 1-D sorted a (sorted in the order
 *  above: NaNs last), left: first i with a[i] >= v, right: first i with
 *  a[i] > v. a and v are promoted to their common dtype. An unsorted a
 *  gives unspecified indices (as NumPy). ND_ERR_SHAPE: a is not 1-D;
 *  ND_ERR_INVALID: bad side; ND_ERR_DEVICE: a and v on different devices. */
ND_API nd_status nd_searchsorted(nd_array **out, const nd_array *a, const nd_array *v, nd_side side);

/* ------------------------------------------------------------------ */
/* Sets                                                                */
/* ------------------------------------------------------------------ */
/** np.isin(element, test_elements, invert): bool of element's shape, true
 *  where the element equals (==, after promotion to the common dtype) some
 *  element of test_elements (any shape, flattened; may be empty). NaN is
 *  never found (NaN != NaN); -0.0 matches 0.0. Sorts test_elements and
 *  binary-searches. ND_ERR_DEVICE: different devices. */
ND_API nd_status nd_isin(nd_array **out, const nd_array *element, const nd_array *test_elements, bool invert);
/** NumPy's unique_all / np.unique(a, return_index, return_inverse,
 *  return_counts) on the flattened a (NumPy 2 semantics, equal_nan: all NaNs
 *  are one value, sorted last; -0.0 == 0.0, the first occurrence's value is
 *  kept): values (a's dtype, sorted), indices (int64, the first occurrence
 *  of each value), inverse (int64, a's shape: values[inverse] == a) and
 *  counts (int64). Each output pointer may be NULL (not wanted; at least
 *  one must be given). The sizes depend on the data: a given *out must
 *  have the computed shape (ND_ERR_SHAPE otherwise, nothing written).
 *  Composed of nd_argsort (stable), nd_take, nd_flatnonzero, nd_cumsum,
 *  nd_diff and nd_put, so it runs on every backend. */
ND_API nd_status nd_unique(nd_array **values, nd_array **indices, nd_array **inverse, nd_array **counts, const nd_array *a);

/* ------------------------------------------------------------------ */
/* Order statistics                                                    */
/* ------------------------------------------------------------------ */
/** np.median(a, axis=axes, keepdims): axes NULL = all (naxes ignored),
 *  else naxes distinct axes (negatives allowed). The mean of the middle
 *  one or two elements of each sorted slice (np.mean's arithmetic: float16
 *  and bfloat16 through float32); a slice containing NaN gives NaN.
 *  Result float: a's dtype for floats, float64 for bool/integers.
 *  ND_ERR_INVALID: bad or repeated axis, an empty slice (NumPy warns and
 *  gives NaN; here refused). */
ND_API nd_status nd_median(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);
/** np.quantile(a, q, axis=axes, keepdims) with NumPy's default 'linear'
 *  method: position q * (n - 1) in each sorted slice, the two neighbours
 *  interpolated as NumPy's _lerp (a + (b - a) * t, or b - (b - a) * (1 - t)
 *  when t >= 0.5). q in [0, 1] (ND_ERR_INVALID otherwise: "Quantiles must be
 *  in the range [0, 1]"). NaN in a slice gives NaN. dtypes, axes and errors
 *  as nd_median, but bool is ND_ERR_DTYPE (NumPy's TypeError: the
 *  interpolation subtracts). */
ND_API nd_status nd_quantile(nd_array **out, const nd_array *a, double q, int naxes, const int *axes, bool keepdims);
/** np.percentile(a, q, ...): nd_quantile with q / 100, q in [0, 100]
 *  ("Percentiles must be in the range [0, 100]"). */
ND_API nd_status nd_percentile(nd_array **out, const nd_array *a, double q, int naxes, const int *axes, bool keepdims);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_SORT_H */
