/*
 * libndgpu: array manipulation - views (reshape, transpose, slice, squeeze,
 * expand_dims, broadcast_to, flip, swapaxes, moveaxis, diagonal, ...), joins
 * and splits, roll, tile, repeat, pad, diag/tril/triu, trace, meshgrid.
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_MANIP_H
#define NDGPU_MANIP_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Views                                                               */
/* ------------------------------------------------------------------ */
/** "No value" for nd_range start/stop (Python's None). */
#define ND_NONE INT64_MIN
typedef struct nd_range {
    int64_t start, stop, step; /* Python slice semantics; step != 0 */
} nd_range;
/** The whole axis, like ':' */
#define ND_ALL ((nd_range){ND_NONE, ND_NONE, 1})

/** New shape with the same size; one extent may be -1. A view when the
 *  strides allow, else a copy. */
ND_API nd_status nd_reshape(nd_array **out, const nd_array *a, int ndim, const int64_t *shape);
/** Permute axes (axes: a permutation of 0..ndim-1, negatives allowed; NULL
 *  reverses). A view. */
ND_API nd_status nd_transpose(nd_array **out, const nd_array *a, const int *axes);
/** Basic slicing a[r0, r1, ...]; nranges <= ndim, missing axes are whole.
 *  Negative indices and steps as in Python. A view. */
ND_API nd_status nd_slice(nd_array **out, const nd_array *a, int nranges, const nd_range *ranges);
/** The kinds of item of a basic index (nd_basic_index): what Python's
 *  x[...] takes besides arrays. */
typedef enum nd_index_kind {
    ND_INDEX_INT = 0,     /**< an integer: start is the index (negatives count from the end); drops the axis */
    ND_INDEX_SLICE = 1,   /**< start:stop:step as in nd_range (ND_NONE bounds and step as Python's None); keeps it */
    ND_INDEX_NEWAXIS = 2, /**< None (np.newaxis): inserts an axis of extent 1 */
    ND_INDEX_ELLIPSIS = 3 /**< ...: as many whole axes as the other items leave; at most one */
} nd_index_kind;
/** One item of a basic index (nd_basic_index). */
typedef struct nd_index_item {
    nd_index_kind kind; /**< what the item is */
    int64_t start;      /**< the index (ND_INDEX_INT) or the slice's start (ND_INDEX_SLICE); unread otherwise */
    int64_t stop;       /**< the slice's stop (ND_INDEX_SLICE); unread otherwise */
    int64_t step;       /**< the slice's step (ND_INDEX_SLICE); unread otherwise */
} nd_index_item;
/** Basic indexing a[items[0], items[1], ...] as NumPy does it: integers
 *  drop their axis, slices keep it, new axes insert one of extent 1, an
 *  Ellipsis stands for the whole axes that the integers and slices do not
 *  name (after them when there is none). A view (0-d when every axis gets
 *  an integer) sharing a's memory, so that writes through it reach a; on
 *  every device. Errors: ND_ERR_SHAPE when the integers and slices name
 *  more axes than a has ("too many indices for array") or the result would
 *  pass ND_MAX_DIMS; ND_ERR_INVALID for an integer out of range ("index 5
 *  is out of bounds for axis 0 with size 3"), a zero step, a second
 *  Ellipsis, an unknown kind, nitems < 0, items NULL with nitems > 0. */
ND_API nd_status nd_basic_index(nd_array **out, const nd_array *a, int nitems, const nd_index_item *items);
/** Remove size-1 axes (axes NULL: all of them; else each named axis must
 *  have extent 1). A view. */
ND_API nd_status nd_squeeze(nd_array **out, const nd_array *a, int naxes, const int *axes);
/** Insert an axis of extent 1 at position axis (-ndim-1 <= axis <= ndim). */
ND_API nd_status nd_expand_dims(nd_array **out, const nd_array *a, int axis);
/** Broadcast a to shape (read-only view semantics: stride-0 axes). */
ND_API nd_status nd_broadcast_to(nd_array **out, const nd_array *a, int ndim, const int64_t *shape);
/** a itself (a new reference) if C-contiguous, else a C-contiguous copy. */
ND_API nd_status nd_contiguous(nd_array **out, const nd_array *a);

/* ------------------------------------------------------------------ */
/* Array manipulation                                                 */
/* ------------------------------------------------------------------ */
/*
 * Views and copies that rearrange arrays, NumPy's names and semantics.
 * All of them accept every dtype and run on every device (they are built
 * from the views, copies, elementwise ops, reductions and nd_matmul of the
 * core). Axis arguments accept negatives; an axis out of range is
 * ND_ERR_SHAPE ("axis 3 is out of bounds for array of dimension 2", as
 * nd_transpose and nd_reduce), a repeated axis ND_ERR_INVALID, NULL
 * arguments ND_ERR_INVALID, arrays on different devices ND_ERR_DEVICE.
 * View functions follow the out rule like nd_transpose: with *out == NULL
 * the result shares a's memory, with *out given the view's elements are
 * copied into *out.
 *
 * Functions returning several arrays take `nd_array **outs`, a caller's
 * array of `capacity` entries, and report the number of results in
 * *count (count may be NULL). Each entry follows the out rule: a NULL
 * entry receives a new view (yours to nd_release), a non-NULL one gets the
 * piece's elements copied into it. Every given entry is checked before
 * anything is written. When capacity is too small the call fails with
 * ND_ERR_INVALID, still setting *count to the number needed (capacity 0
 * and outs NULL ask for the count). Entries beyond *count are untouched.
 */

/** np.flip(a, axis): a view with the naxes given axes reversed (negative
 *  strides, no copy); axes NULL reverses every axis (naxes ignored). */
ND_API nd_status nd_flip(nd_array **out, const nd_array *a, int naxes, const int *axes);
/** np.swapaxes(a, axis1, axis2): a view. */
ND_API nd_status nd_swapaxes(nd_array **out, const nd_array *a, int axis1, int axis2);
/** np.moveaxis(a, source, destination) with n axes in each list (each
 *  list distinct): a view; the other axes keep their order. */
ND_API nd_status nd_moveaxis(nd_array **out, const nd_array *a, int n, const int *source, const int *destination);
/** np.diagonal(a, offset, axis1, axis2): the diagonal of the (axis1,
 *  axis2) planes as the LAST axis of a view (the other axes keep their
 *  order); offset > 0 above the main diagonal, < 0 below; an offset past
 *  the edge (any int64, INT64_MIN and INT64_MAX included) gives length
 *  0. As NumPy >= 1.9 the view is READ-ONLY: it and its views are refused
 *  (ND_ERR_INVALID) as an out argument; nd_copy it to get a writable
 *  array. ND_ERR_INVALID for ndim < 2 ("diag requires
 *  an array of at least two dimensions") and axis1 == axis2. */
ND_API nd_status nd_diagonal(nd_array **out, const nd_array *a, int64_t offset, int axis1, int axis2);
/** np.broadcast_arrays(*arrays): outs[i] = arrays[i] broadcast to the
 *  common shape (stride-0 views; read-only view semantics as
 *  nd_broadcast_to). outs has n entries (see above for the list rule).
 *  ND_ERR_SHAPE when the shapes do not broadcast. */
ND_API nd_status nd_broadcast_arrays(nd_array **outs, int n, const nd_array *const *arrays);

/* Joins and splits. */
/** Join n >= 1 arrays along an existing axis (dtypes promoted). */
ND_API nd_status nd_concatenate(nd_array **out, int n, const nd_array *const *arrays, int axis);
/** Join n >= 1 same-shape arrays along a new axis. */
ND_API nd_status nd_stack(nd_array **out, int n, const nd_array *const *arrays, int axis);
/** np.unstack(a, axis=axis) (NumPy 2.1): the a.shape[axis] views a[..., i,
 *  ...] with that axis removed. ND_ERR_INVALID for a 0-d array. */
ND_API nd_status nd_unstack(nd_array **outs, int64_t capacity, int64_t *count, const nd_array *a, int axis);
/** np.split(a, sections, axis): `sections` equal views along axis.
 *  ND_ERR_INVALID when sections < 1 or the axis does not divide ("array
 *  split does not result in an equal division"). */
ND_API nd_status nd_split(nd_array **outs, int64_t capacity, int64_t *count, const nd_array *a, int64_t sections,
                          int axis);
/** np.array_split(a, sections, axis): as nd_split, but the first n %
 *  sections pieces get one element more (sections may exceed the extent:
 *  trailing pieces are empty). */
ND_API nd_status nd_array_split(nd_array **outs, int64_t capacity, int64_t *count, const nd_array *a,
                                int64_t sections, int axis);
/** np.split / np.array_split with a list of split points: nindices + 1
 *  views a[0:i0], a[i0:i1], ..., a[i_last:] along axis, each a Python
 *  slice (negative points count from the end, clamped; a point below the
 *  previous one gives an empty piece). */
ND_API nd_status nd_split_at(nd_array **outs, int64_t capacity, int64_t *count, const nd_array *a, int nindices,
                             const int64_t *indices, int axis);

/** np.roll(a, shift, axis): a copy with elements shifted along axes (those
 *  leaving one end enter at the other). axes NULL: the flattened array is
 *  rolled (nshift must be 1, naxes ignored). Otherwise shift (nshift
 *  values) and axes (naxes values) broadcast against each other as
 *  NumPy's (one of them may have length 1; other mismatches are
 *  ND_ERR_INVALID "shape mismatch"); shifts of a repeated axis add up.
 *  Any shift, negative or beyond the extent, is taken modulo the extent. */
ND_API nd_status nd_roll(nd_array **out, const nd_array *a, int nshift, const int64_t *shift, int naxes,
                         const int *axes);
/** np.tile(a, reps): a copy of a repeated reps[i] times along each axis;
 *  the result has max(a.ndim, nreps) axes (a and reps are padded with
 *  leading 1s). ND_ERR_INVALID for a negative repetition. */
ND_API nd_status nd_tile(nd_array **out, const nd_array *a, int nreps, const int64_t *reps);
/** np.repeat(a, repeats, axis) with a scalar count: every element
 *  repeated `repeats` times along axis; ND_AXIS_NONE repeats the flattened
 *  array (a 1-D result). ND_ERR_INVALID for repeats < 0. */
ND_API nd_status nd_repeat(nd_array **out, const nd_array *a, int64_t repeats, int axis);
/** np.repeat(a, repeats, axis) with one count per element: repeats is a
 *  0-d/1-d bool or integer array (any device: it is read on the host, the
 *  result's extent being its sum, as in NumPy and CuPy) of the axis'
 *  extent (or of one element: the scalar form); element i along axis is
 *  repeated repeats[i] times (nd_take with the expanded indices, on a's
 *  device). ND_ERR_INVALID "repeats may not contain negative values";
 *  ND_ERR_SHAPE when the lengths differ; ND_ERR_DTYPE for float counts. */
ND_API nd_status nd_repeat_array(nd_array **out, const nd_array *a, const nd_array *repeats, int axis);

/** Modes of nd_pad (np.pad's mode strings). */
typedef enum nd_pad_mode {
    ND_PAD_CONSTANT = 0, /* 'constant': the value */
    ND_PAD_EDGE,         /* 'edge': the edge values */
    ND_PAD_REFLECT,      /* 'reflect': mirrored without the edge (reflect_type 'even') */
    ND_PAD_SYMMETRIC,    /* 'symmetric': mirrored with the edge */
    ND_PAD_WRAP          /* 'wrap': periodic */
} nd_pad_mode;
/** np.pad(a, pad_width, mode, constant_values=value): widths holds npairs
 *  (before, after) pairs, one per axis (npairs == ndim) or one for every
 *  axis (npairs == 1). Pads wider than the axis repeat the reflection (or
 *  the period) exactly as NumPy does; reflect/symmetric of an axis of
 *  extent 1 repeat the edge, as NumPy. value is used by ND_PAD_CONSTANT
 *  only (a NONE scalar means 0) and must fit a's dtype as in nd_full (an
 *  integer out of range is ND_ERR_INVALID, as NumPy's OverflowError; a
 *  float is cast). The result has a's dtype. ND_ERR_INVALID for negative
 *  widths (every pair given, also for a 0-d a, as NumPy), a bad mode, or
 *  extending an empty axis in a mode other than
 *  constant ("can't extend empty axis 0 using modes other than 'constant'
 *  or 'empty'"). */
ND_API nd_status nd_pad(nd_array **out, const nd_array *a, int npairs, const int64_t *widths, nd_pad_mode mode,
                        nd_scalar value);
/** np.diag(a, k): a 1-D a gives the 2-D (n+|k|, n+|k|) array with a on
 *  diagonal k and zeros elsewhere; a 2-D a gives a COPY of its diagonal k
 *  (NumPy gives a read-only view: use nd_diagonal for that). ND_ERR_INVALID
 *  for other ndims ("Input must be 1- or 2-d.") and for a 1-D a when
 *  n + |k| does not fit int64 ("offset ... is too large"; k == INT64_MIN
 *  included). */
ND_API nd_status nd_diag(nd_array **out, const nd_array *a, int64_t k);
/** np.tril(a, k): a copy with the elements above diagonal k of the last
 *  two axes zeroed (any ndim >= 2; a 1-D a is broadcast to (n, n) as
 *  NumPy does). a's dtype. ND_ERR_INVALID for 0-d. */
ND_API nd_status nd_tril(nd_array **out, const nd_array *a, int64_t k);
/** np.triu(a, k): as nd_tril with the elements below diagonal k zeroed. */
ND_API nd_status nd_triu(nd_array **out, const nd_array *a, int64_t k);
/** np.trace(a, offset, axis1, axis2): the sum of nd_diagonal(a, offset,
 *  axis1, axis2) over its last axis, with nd_sum's dtypes (bool/signed ->
 *  int64, unsigned -> uint64, floats keep theirs); an empty diagonal sums
 *  to 0. Errors as nd_diagonal. */
ND_API nd_status nd_trace(nd_array **out, const nd_array *a, int64_t offset, int axis1, int axis2);
/** Indexing of nd_meshgrid: 'xy' (Cartesian, NumPy's default) or 'ij' (matrix). */
typedef enum nd_meshgrid_indexing { ND_MESHGRID_XY = 0, ND_MESHGRID_IJ = 1 } nd_meshgrid_indexing;
/** np.meshgrid(*arrays, indexing=..., copy=copy): n coordinate arrays of
 *  shape (len0, len1, ...) (xy: the first two extents swapped) from the
 *  flattened inputs. copy true gives C-contiguous copies (NumPy's
 *  default), false broadcast views (stride 0, not writable as out). outs
 *  has n entries (list rule above); n == 0 does nothing. */
ND_API nd_status nd_meshgrid(nd_array **outs, int n, const nd_array *const *arrays, nd_meshgrid_indexing indexing,
                             bool copy);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_MANIP_H */
