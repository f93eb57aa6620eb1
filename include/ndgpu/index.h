/*
 * libndgpu: indexing and selection - take / put and their along-axis forms,
 * nonzero and friends, boolean masks, compress, and the unbuffered
 * ufunc.at updates (nd_add_at, nd_maximum_at, nd_minimum_at).
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_INDEX_H
#define NDGPU_INDEX_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Indexing and selection                                             */
/* ------------------------------------------------------------------ */
/*
 * NumPy's take / put / along-axis / nonzero / boolean-mask / compress /
 * ufunc.at, on every device. Common rules:
 *  - index arrays may have any integer dtype (they are cast to int64 as
 *    NumPy casts them to intp, so a uint64 2^64-1 is -1); bool and float
 *    index arrays give ND_ERR_DTYPE (NumPy refuses floats; it reads bool
 *    index arrays as 0/1, we refuse them so that a mask passed by mistake
 *    is not silently taken as indices: use nd_mask_select / nd_compress);
 *  - ND_TAKE_RAISE (the default): negative indices count from the end; an
 *    index outside [-n, n) gives ND_ERR_INVALID with NumPy's words, e.g.
 *    "index 12 is out of bounds for axis 0 with size 10" (the largest, or
 *    the smallest, offending index is named); nothing is written then;
 *    ND_TAKE_WRAP reduces modulo n, ND_TAKE_CLIP clamps to [0, n-1]
 *    (negative indices clip to 0, as in NumPy);
 *  - values written by put / put_along_axis / mask_assign / *_at are cast
 *    to a's dtype with NumPy's unsafe casting (NumPy does the same:
 *    np.put(int_array, i, 1.7) writes 1; any dtype is accepted);
 *  - repeated indices: put, put_along_axis (and mask_assign, which has
 *    none) assign in C order of the indices, so the LAST value wins on
 *    every device (NumPy's observed behaviour; CuPy leaves it undefined);
 *    nd_add_at / nd_maximum_at / nd_minimum_at accumulate every one
 *    (np.add.at is unbuffered);
 *  - results follow the out-pointer rule; the written array `a` of the
 *    in-place functions must be writable (ND_ERR_INVALID otherwise); all
 *    arrays on one device (ND_ERR_DEVICE); NULL arguments ND_ERR_INVALID;
 *    bad axes ND_ERR_SHAPE ("axis 3 is out of bounds for array of
 *    dimension 2").
 */
/** Index modes of nd_take and nd_put (NumPy's mode='raise'/'wrap'/'clip'). */
typedef enum nd_take_mode { ND_TAKE_RAISE = 0, ND_TAKE_WRAP = 1, ND_TAKE_CLIP = 2 } nd_take_mode;
/* axis=None: ND_AXIS_NONE (ndgpu/core.h). */

/** np.take(a, indices, axis, mode=mode): elements of a at `indices`
 *  along axis (ND_AXIS_NONE: of the flattened a); result shape
 *  a.shape[:axis] + indices.shape + a.shape[axis+1:], a's dtype (any of
 *  the 13). a 0-d a takes axis ND_AXIS_NONE or 0 (as 1 element). A
 *  non-empty take from an empty axis is ND_ERR_INVALID in every mode
 *  ("cannot do a non-empty take from an empty axes."). The result is
 *  allocated before raise mode checks the indices, so a result too large
 *  for memory is ND_ERR_NOMEM without a pass over the indices. */
ND_API nd_status nd_take(nd_array **out, const nd_array *a, const nd_array *indices, int axis, nd_take_mode mode);
/** np.take_along_axis(a, indices, axis): indices has a's ndim (1-D with
 *  ND_AXIS_NONE, over the flattened a); a and indices broadcast against
 *  each other on every axis but `axis`; the result has that broadcast
 *  shape with indices.shape[axis] on axis. Raise mode (negative indices
 *  count from the end). ND_ERR_SHAPE for an ndim mismatch or shapes that
 *  do not broadcast. */
ND_API nd_status nd_take_along_axis(nd_array **out, const nd_array *a, const nd_array *indices, int axis);
/** np.put_along_axis(a, indices, values, axis) in place: indices (a's
 *  ndim; 1-D with ND_AXIS_NONE) broadcast against a on the other axes,
 *  values broadcast to that index shape (ND_ERR_SHAPE otherwise); last
 *  value wins for repeated indices. */
ND_API nd_status nd_put_along_axis(nd_array *a, const nd_array *indices, const nd_array *values, int axis);
/** np.put(a, indices, values, mode): a.flat[indices] = values in place
 *  (flat C-order indices of a, any layout of a), values repeated
 *  cyclically to indices.size as NumPy does (an empty values is a no-op,
 *  as in NumPy); last value wins for repeated indices. In raise mode the
 *  message names axis 0 with size a.size. */
ND_API nd_status nd_put(nd_array *a, const nd_array *indices, const nd_array *values, nd_take_mode mode);

/** np.nonzero(a): the C-order coordinates of the nonzero elements (x != 0;
 *  NaN counts as nonzero; any dtype) as a.ndim new int64 arrays of shape
 *  (count,), written to outs[0..a.ndim) (cap >= a.ndim, else
 *  ND_ERR_INVALID); *n = a.ndim. Each entry follows the out rule of the
 *  functions that return several arrays (nd_split): a NULL outs[i]
 *  receives a new array (yours to release), a given one receives the
 *  coordinates (it must have shape (count,) and take int64 under
 *  same_kind), and every given entry is checked before anything is
 *  written. A 0-d a is ND_ERR_INVALID as in NumPy 2 ("Calling nonzero on
 *  0d arrays is not allowed..."). On failure outs and *n are untouched. */
ND_API nd_status nd_nonzero(nd_array **outs, int cap, int *n, const nd_array *a);
/** np.flatnonzero(a): flat C-order indices of the nonzero elements,
 *  int64 (count,); any ndim including 0-d (as np.flatnonzero). */
ND_API nd_status nd_flatnonzero(nd_array **out, const nd_array *a);
/** np.argwhere(a): int64 (count, a.ndim) coordinates of the nonzero
 *  elements (a 0-d a gives (count, 0), count 0 or 1, as NumPy). */
ND_API nd_status nd_argwhere(nd_array **out, const nd_array *a);
/** np.count_nonzero(a, axis=axes, keepdims): int64 counts of x != 0 over
 *  the given axes (axes == NULL: all; naxes/axes as nd_reduce; duplicate
 *  axes ND_ERR_INVALID). */
ND_API nd_status nd_count_nonzero(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);

/** a[mask] (NumPy boolean indexing): mask is bool with mask.ndim <= a.ndim
 *  and shape equal to a's leading mask.ndim extents (ND_ERR_SHAPE with
 *  NumPy's "boolean index did not match indexed array along axis 0; size
 *  of axis is 2 but size of corresponding boolean axis is 3"; a non-bool
 *  mask ND_ERR_DTYPE); result (count,) + a.shape[mask.ndim:] in C order of
 *  the mask, a's dtype. A 0-d mask on any a gives (1,)+a.shape or
 *  (0,)+a.shape, as NumPy. */
ND_API nd_status nd_mask_select(nd_array **out, const nd_array *a, const nd_array *mask);
/** a[mask] = values in place (mask as in nd_mask_select); values (any
 *  dtype, cast unsafe) broadcast to the selected shape (count,) +
 *  a.shape[mask.ndim:] (ND_ERR_SHAPE otherwise, in NumPy's words: for a 1-D
 *  selection "NumPy boolean array indexing assignment cannot assign 3
 *  input values to the 2 output values where the mask is true", else
 *  "shape mismatch: value array of shape (2,) could not be broadcast to
 *  indexing result of shape (1,3)"); a 0-d or size-1 values fills. */
ND_API nd_status nd_mask_assign(nd_array *a, const nd_array *mask, const nd_array *values);
/** np.compress(condition, a, axis): the slices of a along axis (ND_AXIS_NONE:
 *  the flattened a) where condition (1-D; any dtype, x != 0) is true;
 *  condition may be shorter than the axis (the rest is dropped); a true
 *  entry beyond the axis is ND_ERR_INVALID ("index 3 is out of bounds for
 *  axis 0 with size 3", NumPy's IndexError); result a.shape with axis
 *  replaced by the count. */
ND_API nd_status nd_compress(nd_array **out, const nd_array *condition, const nd_array *a, int axis);

/** np.add.at(a, indices, values) in place, unbuffered: for every index i
 *  (C order of the integer index array `indices`, any shape, indexing a's
 *  first axis; a tuple of index arrays is not supported), a[indices[i]]
 *  += values[i]; values broadcast to indices.shape + a.shape[1:]
 *  (ND_ERR_SHAPE otherwise) and are cast unsafe to a's dtype
 *  first (NumPy adds wider values unrounded, so a float16 a with float64
 *  values may differ in the last bit); the sum is formed in a's dtype (integers wrap, bool is logical or, float16/bfloat16
 *  round each step, as NumPy). a must have ndim >= 1. Repeated indices
 *  accumulate. Float sums with repeated indices may round in a different
 *  order on the GPU (atomics). */
ND_API nd_status nd_add_at(nd_array *a, const nd_array *indices, const nd_array *values);
/** np.maximum.at(a, indices, values): as nd_add_at with maximum (NaN
 *  propagates, as np.maximum; bool: or). */
ND_API nd_status nd_maximum_at(nd_array *a, const nd_array *indices, const nd_array *values);
/** np.minimum.at(a, indices, values): as nd_add_at with minimum (NaN
 *  propagates; bool: and). */
ND_API nd_status nd_minimum_at(nd_array *a, const nd_array *indices, const nd_array *values);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_INDEX_H */
