/*
 * libndgpu: reductions - nd_reduce over the reduction table (sum, prod,
 * mean, max, min, argmax, argmin, any, all, var, std) with ddof and dtype=
 * forms, the named wrappers, ptp; nan-aware reductions; scans (cumsum,
 * cumprod, cummax, cummin) and diff; the softmax family (softmax,
 * log_softmax, logsumexp) and cross-entropy.
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_REDUCE_H
#define NDGPU_REDUCE_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Reductions                                                          */
/* ------------------------------------------------------------------ */
#define ND_REDUCE_OPS(X) \
    X(SUM, sum)          \
    X(PROD, prod)        \
    X(MEAN, mean)        \
    X(MAX, max)          \
    X(MIN, min)          \
    X(ARGMAX, argmax)    \
    X(ARGMIN, argmin)    \
    X(ANY, any)          \
    X(ALL, all)          \
    X(VAR, var)          \
    X(STD, std)
#define ND_X_ENUM_REDUCE(E, n) ND_REDUCE_##E,
typedef enum nd_reduce_op { ND_REDUCE_OPS(ND_X_ENUM_REDUCE) ND_NUM_REDUCE_OPS } nd_reduce_op;
/** Name of a reduction ("sum", "argmax"); NULL for bad values. */
ND_API const char *nd_reduce_op_name(nd_reduce_op op);

/** Reduce a over axes (axes == NULL: all axes; otherwise naxes distinct
 *  axes, negatives allowed; naxes == 0 reduces nothing). keepdims keeps
 *  reduced axes with extent 1. Result dtypes as NumPy: sum/prod of
 *  bool/ints -> int64 (uint64 for unsigned), float16/bfloat16 accumulate
 *  in float32; mean/var/std of ints -> float64; argmax/argmin -> int64
 *  and take one axis or all; any/all -> bool. Empty reductions give the
 *  identity where one exists, else ND_ERR_INVALID. var/std use ddof 0.
 *  With axes == NULL naxes is ignored (any value, even negative, means all
 *  axes); with axes != NULL a negative naxes is ND_ERR_INVALID.
 *  Complex (complex64/complex128, NumPy 2 semantics; composed in the core
 *  from the real reductions of the parts, so every backend has them): sum,
 *  mean and prod keep the complex dtype (sum/mean part by part: NaN or inf
 *  in one part stays in that part; prod is a pairwise tree of complex
 *  multiplies, log2(n) levels, no logarithms); var and std are REAL
 *  (float32 of complex64, float64 of complex128): var = mean(|z - mean z|^2)
 *  = var(re) + var(im); any/all test z != 0 (either part nonzero; NaN is
 *  nonzero). Empty: sum 0, prod 1, mean NaN+NaNj, var/std NaN. max, min,
 *  argmax and argmin refuse complex with ND_ERR_DTYPE, where NumPy 2 orders
 *  complex values lexicographically (real part first): a deliberate
 *  difference (the array API standard leaves complex ordering unspecified,
 *  PyTorch refuses it), as for sorting and the ordering comparisons;
 *  reduce nd_real/nd_imag/nd_abs instead. */
ND_API nd_status nd_reduce(nd_array **out, nd_reduce_op op, const nd_array *a, int naxes, const int *axes, bool keepdims);
/** var/std (or any op) with a delta degrees of freedom (ignored by ops
 *  other than var/std). ddof is real, as NumPy's and the array API's
 *  (var(x, ddof=0.5)): var = sum((x - mean)^2) / max(n - ddof, 0), so
 *  n - ddof <= 0 gives inf (or NaN for 0/0) as NumPy. Complex var/std
 *  (real results): (S(re) + S(im)) / max(n - ddof, 0) with S the parts'
 *  sums of squared deviations, so n - ddof <= 0 also gives NumPy's inf. */
ND_API nd_status nd_reduce_ddof(nd_array **out, nd_reduce_op op, const nd_array *a, int naxes, const int *axes, bool keepdims, double ddof);
/** NumPy's dtype= of sum, prod, mean, var and std (np.sum(a, dtype=d)):
 *  the elements are cast to d first (1.5 -> 1 for an integer d), reduced
 *  in d, and the result has dtype d. Integer sums/products wrap in d
 *  (np.sum(int64 [100, 100, 100], dtype=int8) = 44); an integer mean is
 *  the wrapped sum divided and truncated to d (NumPy); float16/bfloat16
 *  accumulate in float32 as nd_sum. var/std take float dtypes only
 *  (ND_ERR_DTYPE otherwise); other ops ND_ERR_INVALID ("max takes no
 *  dtype"); an invalid d ND_ERR_DTYPE. A complex d: bool/int/float input
 *  is cast to it first; sum/prod/mean are complex, var/std are computed as
 *  the (real) complex var/std and returned as d with zero imaginary parts
 *  (NumPy). Complex input with a real d: sum/prod/mean reduce the real
 *  parts (NumPy discards the imaginary parts with a ComplexWarning);
 *  var/std refuse it (ND_ERR_DTYPE: NumPy's result mixes the real mean into
 *  |z - mean|^2, neither var of the real parts nor of z). */
ND_API nd_status nd_reduce_dtype(nd_array **out, nd_reduce_op op, const nd_array *a, int naxes, const int *axes,
                                 bool keepdims, nd_dtype dtype);
#define ND_X_DECL_REDUCE(E, n) ND_API nd_status nd_##n(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);
ND_REDUCE_OPS(ND_X_DECL_REDUCE)
/** NumPy ptp(a, axis, keepdims): max - min in a's dtype (integers wrap:
 *  int8 [-128, 127] gives -1, as NumPy). NaN propagates. ND_ERR_DTYPE for
 *  bool ("numpy boolean subtract ... is not supported", as NumPy's
 *  TypeError); empty slices as nd_max. */
ND_API nd_status nd_ptp(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);

/* ------------------------------------------------------------------ */
/* nan-aware reductions                                                */
/* ------------------------------------------------------------------ */
/* nan-aware reductions (NumPy's np.nansum ... np.nanstd): the axes,
 * keepdims and result dtypes of nd_reduce; NaNs are ignored (treated as
 * the op's identity). Integer and bool inputs have no NaN and give exactly
 * the plain reduction. They are compositions of isnan/where and the plain
 * reductions, as NumPy's own nanfunctions (a few passes and a temporary of
 * a's size), and round as NumPy's do. All-NaN slices: nansum 0, nanprod 1,
 * nanmax/nanmin/nanmean/nanvar/nanstd NaN (NumPy warns; we do not),
 * nanargmax/nanargmin ND_ERR_INVALID "All-NaN slice encountered". Empty
 * slices: nansum 0, nanprod 1, nanmean/nanvar/nanstd NaN, nanmax/nanmin
 * ND_ERR_INVALID "zero-size array to reduction operation fmax which has no
 * identity", nanargmax/nanargmin ND_ERR_INVALID "attempt to get argmax of
 * an empty sequence". Bad axes: nd_reduce's statuses. Complex input: an
 * element is NaN when either part is (np.isnan); nansum/nanprod/nanmean
 * keep the complex dtype, nanvar/nanstd are real (the sum of the parts'
 * nanvar over the same non-NaN elements), as NumPy; nanmax, nanmin,
 * nanargmax, nanargmin and ptp refuse complex (ND_ERR_DTYPE, as nd_max). */
/** NumPy nansum: sum with NaN as 0 (sum's dtypes: ints -> int64, ...). */
ND_API nd_status nd_nansum(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);
/** NumPy nanprod: product with NaN as 1. */
ND_API nd_status nd_nanprod(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);
/** NumPy nanmean: nansum / count of non-NaN elements, divided in float64
 *  and rounded to a's float dtype (ints: nd_mean, float64). */
ND_API nd_status nd_nanmean(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);
/** NumPy nanmax (fmax.reduce): NaN only where the whole slice is NaN. */
ND_API nd_status nd_nanmax(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);
/** NumPy nanmin (fmin.reduce), as nd_nanmax. */
ND_API nd_status nd_nanmin(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);
/** NumPy nanargmax: int64 index of the first maximum ignoring NaNs; one
 *  axis (naxes == 1) or all (axes == NULL) as nd_argmax. */
ND_API nd_status nd_nanargmax(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);
/** NumPy nanargmin, as nd_nanargmax. */
ND_API nd_status nd_nanargmin(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);
/** NumPy nanvar(a, ddof=ddof): sum((x - mean)^2) / (count - ddof) over the
 *  non-NaN x, the mean rounded to a's dtype first; count - ddof <= 0 gives
 *  NaN (NumPy's nanvar; the plain var gives inf there). Result dtype as
 *  nd_var (a's float dtype; float64 for ints). */
ND_API nd_status nd_nanvar(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims, double ddof);
/** NumPy nanstd(a, ddof=ddof) = sqrt(nanvar), as nd_nanvar. */
ND_API nd_status nd_nanstd(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims, double ddof);

/* ------------------------------------------------------------------ */
/* Scans and differences                                               */
/* ------------------------------------------------------------------ */
/** NumPy cumsum(a, axis): inclusive running sums along axis (negatives
 *  count from the end; ND_AXIS_NONE: over the flattened array). Result
 *  dtype as NumPy: bool and signed ints -> int64, unsigned -> uint64
 *  (wrapping), floats keep their dtype. float16/bfloat16 accumulate in
 *  float32 and each element of the result is rounded once (NumPy rounds
 *  every partial sum to float16, so long float16 cumsums differ from
 *  NumPy's; ours are within one rounding of the float32 running sum).
 *  Float sums are combined in blocks (two passes over threads on the CPU,
 *  CUB's scan on a GPU), not strictly left to right: they match a
 *  sequential sum within rounding (relative error ~ n * eps in the worst
 *  case, as for a sequential sum), not bit for bit. A 0-d a is treated as
 *  1-d (axis 0 or -1). The out rule applies (in place: *out == a is fine
 *  when the dtypes agree). ND_ERR_SHAPE "axis 2 is out of bounds for array
 *  of dimension 2"; ND_ERR_INVALID for NULL arguments. complex64/128 keep
 *  their dtype (the parts scanned as floats); cumprod of complex is a
 *  product tree (Hillis-Steele, log2(n) passes of complex multiplies), so
 *  its rounding differs from NumPy's left-to-right loop; a real dtype= on
 *  complex input scans the real parts (NumPy's cast); cummax/cummin refuse
 *  complex (ND_ERR_DTYPE). */
ND_API nd_status nd_cumsum(nd_array **out, const nd_array *a, int axis);
/** NumPy cumprod(a, axis): running products, the dtypes and rules of
 *  nd_cumsum (integer products wrap in int64/uint64). */
ND_API nd_status nd_cumprod(nd_array **out, const nd_array *a, int axis);
/** NumPy cumsum(a, axis, dtype=dtype): the elements are cast to dtype
 *  first (unsafe casting, as NumPy: 1.5 -> 1 for an integer dtype), summed
 *  and the result has dtype. Integer dtypes wrap as NumPy's (the sums are
 *  computed in int64/uint64: the same bits modulo the width); bool gives
 *  the logical or; float16/bfloat16 accumulate in float32 (see
 *  nd_cumsum). Complex a with a real dtype: a is cast to dtype first (the
 *  real parts; z != 0 for bool, as NumPy's cast) and the result has dtype.
 *  ND_ERR_DTYPE for an invalid dtype. */
ND_API nd_status nd_cumsum_dtype(nd_array **out, const nd_array *a, int axis, nd_dtype dtype);
/** NumPy cumprod(a, axis, dtype=dtype), as nd_cumsum_dtype (bool: the
 *  logical and). */
ND_API nd_status nd_cumprod_dtype(nd_array **out, const nd_array *a, int axis, nd_dtype dtype);
/** NumPy maximum.accumulate(a, axis): running maxima, same dtype as a
 *  (all 13); a NaN propagates to every later element of its slice (bool:
 *  the logical or). ND_AXIS_NONE scans the flattened array (an extension:
 *  NumPy's accumulate has no axis=None). A 0-d a with an axis is
 *  ND_ERR_INVALID "cannot accumulate on a scalar" as NumPy. */
ND_API nd_status nd_cummax(nd_array **out, const nd_array *a, int axis);
/** NumPy minimum.accumulate(a, axis): running minima, as nd_cummax. */
ND_API nd_status nd_cummin(nd_array **out, const nd_array *a, int axis);
/** NumPy diff(a, n, axis, prepend, append): the n-th discrete difference
 *  along axis, out[i] = x[i+1] - x[i] applied n times, where x is a joined
 *  with prepend before and append after it along axis (each NULL for
 *  none; a 0-d prepend/append is broadcast to a's shape with extent 1
 *  along axis, as NumPy; dtypes promote as nd_concatenate). bool uses
 *  not_equal (x[i+1] != x[i]), as NumPy; integers wrap (uint8 1 - 2 =
 *  255). n == 0 gives a itself, as NumPy: a new reference to a (*out ==
 *  a; release it as any result), or with *out given a copy of a into it;
 *  axis, prepend and append are then not looked at and a may be 0-d. n >=
 *  the axis extent gives an empty axis. ND_ERR_INVALID "order must be
 *  non-negative but got -1", "diff requires input that is at least one
 *  dimensional" (0-d with n > 0); ND_ERR_SHAPE for a bad axis or
 *  mismatched prepend/append shapes. */
ND_API nd_status nd_diff(nd_array **out, const nd_array *a, int n, int axis, const nd_array *prepend,
                         const nd_array *append);

/* ------------------------------------------------------------------ */
/* Softmax family and cross-entropy                                    */
/* ------------------------------------------------------------------ */
/* Numerically stable along any axis (the max is subtracted first), on
 * every backend, for float16/bfloat16/float32 (accumulated in float32)
 * and float64 (in float64). The result has the input's float dtype;
 * bool/integer inputs give float64, as SciPy's special functions do.
 * An out (`*out != NULL`) follows the library's out rules (any float
 * dtype, cast once from the float32/float64 accumulator; an overlapping
 * out goes through a temporary). Rows whose elements are all -inf give
 * NaN for softmax/log_softmax and -inf for logsumexp (NumPy's answers for
 * the textbook formulas); a +inf gives NaN, a NaN propagates. */

/** scipy.special.softmax(x, axis) = exp(x - max) / sum(exp(x - max))
 *  along one axis (negative counts from the end; ND_ERR_SHAPE "axis 3 is
 *  out of bounds for array of dimension 2"). A 0-d x is one element (1).
 *  An empty axis gives an empty result. */
ND_API nd_status nd_softmax(nd_array **out, const nd_array *x, int axis);
/** scipy.special.log_softmax(x, axis) = x - m - log(sum(exp(x - m))) with
 *  m = max(x) where that is finite and 0 where it is not, as SciPy: a
 *  slice holding +inf gives NaN at each +inf and -inf elsewhere (SciPy
 *  1.17: log_softmax([inf, 1, 2]) = [nan, -inf, -inf]; nd_softmax gives
 *  NaN throughout there); an all -inf slice or a NaN gives NaN. */
ND_API nd_status nd_log_softmax(nd_array **out, const nd_array *x, int axis);
/** scipy.special.logsumexp(x, axis, keepdims): max + log(sum(exp(x -
 *  max))) over axes (axes == NULL: all; naxes distinct axes otherwise, as
 *  nd_reduce). An empty reduction gives -inf. */
ND_API nd_status nd_logsumexp(nd_array **out, const nd_array *x, int naxes, const int *axes, bool keepdims);

/** How a loss over a batch is reduced (PyTorch's `reduction=`). */
typedef enum nd_reduction {
    ND_REDUCTION_MEAN = 0, /**< mean over the samples whose label is not ignored (0-d) */
    ND_REDUCTION_SUM = 1,  /**< sum over the samples (0-d) */
    ND_REDUCTION_NONE = 2  /**< the per-sample losses, labels' shape */
} nd_reduction;
/** PyTorch's nn.functional.cross_entropy(logits, labels, reduction,
 *  ignore_index) from unnormalised logits and integer class labels: loss
 *  = logsumexp(logits, class_axis) - logits[label]. class_axis is the
 *  axis of the C classes (PyTorch's 1; -1 for (N, C)); labels has
 *  logits' shape without that axis (any integer dtype, same device).
 *  Samples whose label == ignore_index (PyTorch's default -100) give 0
 *  and do not count in the mean (the mean of no sample is NaN, as
 *  PyTorch). A label outside [0, C) other than ignore_index is
 *  ND_ERR_INVALID "Target 7 is out of bounds." (PyTorch's message;
 *  checked on every backend, as out-of-range indices are).
 *  Result dtype: logits' float dtype (float64 for integer logits),
 *  accumulated in float32 for half inputs: with ND_REDUCTION_MEAN/SUM the
 *  per-sample losses stay float32 and only the reduced value is rounded
 *  to float16/bfloat16 (so a mean that fits float16 is finite even where
 *  one sample's loss is not); ND_REDUCTION_NONE rounds each loss. */
ND_API nd_status nd_cross_entropy(nd_array **out, const nd_array *logits, const nd_array *labels, int class_axis,
                                  nd_reduction reduction, int64_t ignore_index);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_REDUCE_H */
