/*
 * libndgpu: arrays - references, creation (nd_empty, nd_zeros, nd_arange,
 * nd_eye, nd_from_host, ...), copies, casts and transfers between host and
 * devices, inspection (shape, strides, dtype, device, data pointer).
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_ARRAY_H
#define NDGPU_ARRAY_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Arrays                                                              */
/* ------------------------------------------------------------------ */

/** Add a reference; returns a. NULL is fine. */
ND_API nd_array *nd_retain(nd_array *a);
/** Drop a reference; the last one frees. NULL is fine. */
ND_API void nd_release(nd_array *a);

/* Creation. shape may be NULL when ndim == 0. Negative extents,
 * ndim > ND_MAX_DIMS and overflowing sizes give ND_ERR_INVALID /
 * ND_ERR_SHAPE; a CUDA device in a CPU-only build ND_ERR_UNSUPPORTED,
 * a CUDA device without a GPU ND_ERR_DEVICE. All follow the out rule. */

/** Uninitialised array. */
ND_API nd_status nd_empty(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev);
/** Array of zeros. */
ND_API nd_status nd_zeros(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev);
/** Array of ones. */
ND_API nd_status nd_ones(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev);
/** Array filled with value, as NumPy's np.full: an integer value must fit
 *  an integer dtype (else ND_ERR_INVALID, as NumPy 2 raises), a float value
 *  is cast as nd_astype casts (NaN, inf and out-of-range values included);
 *  ND_ERR_INVALID for a NONE scalar. */
ND_API nd_status nd_full(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_scalar value, nd_device dev);
/** 1-D array start, start+step, ... < stop (NumPy's arange: length
 *  ceil((stop-start)/step)). ND_ERR_INVALID for step == 0 or non-finite.
 *  The arguments are floats: integer ranges beyond 2^53 need
 *  nd_arange_scalar with integer scalars. */
ND_API nd_status nd_arange(nd_array **out, nd_dtype dtype, double start, double stop, double step, nd_device dev);
/** nd_arange with tagged scalars, as np.arange takes Python ints and
 *  floats: when start, stop and step are all integer (or bool) scalars the
 *  length and the integer elements are exact over the whole int64 range
 *  (start and start + step must fit an integer dtype, else ND_ERR_INVALID);
 *  any float scalar computes in float64 as nd_arange does. */
ND_API nd_status nd_arange_scalar(nd_array **out, nd_dtype dtype, nd_scalar start, nd_scalar stop, nd_scalar step,
                                  nd_device dev);
/** num evenly spaced values over [start, stop] (or [start, stop) without
 *  endpoint). num >= 0. */
ND_API nd_status nd_linspace(nd_array **out, nd_dtype dtype, double start, double stop, int64_t num, bool endpoint, nd_device dev);
/** n x m matrix with ones on diagonal k (m < 0 means m = n). */
ND_API nd_status nd_eye(nd_array **out, nd_dtype dtype, int64_t n, int64_t m, int64_t k, nd_device dev);
/** Uninitialised array with a's shape, dtype and device. */
ND_API nd_status nd_empty_like(nd_array **out, const nd_array *a);
/** Zeros with a's shape, dtype and device. */
ND_API nd_status nd_zeros_like(nd_array **out, const nd_array *a);
/** Ones with a's shape, dtype and device. */
ND_API nd_status nd_ones_like(nd_array **out, const nd_array *a);
/** Copy C-contiguous host data (nd_size * dtype size bytes) into a new
 *  array on dev. data may be NULL only when the size is 0. */
ND_API nd_status nd_from_host(nd_array **out, const void *data, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev);

/* Copies, casts and transfers. */
/** Copy of a (C-contiguous, same device). With *out != NULL, copies a
 *  into *out (np.copyto: a broadcasts to out's shape, same_kind cast). */
ND_API nd_status nd_copy(nd_array **out, const nd_array *a);
/** a cast to dtype (any cast is allowed, as NumPy's astype with
 *  casting="unsafe": float->int truncates toward zero, NaN/out of range
 *  gives an implementation value without UB; float->bool is x != 0). */
ND_API nd_status nd_astype(nd_array **out, const nd_array *a, nd_dtype dtype);
/** Copy a's elements in C order into host memory dst of exactly nbytes
 *  (== nd_nbytes(a)); works for any layout and device. */
ND_API nd_status nd_copy_to_host(void *dst, const nd_array *a, size_t nbytes);
/** Copy C-ordered host data of exactly nd_nbytes(a) bytes into a. */
ND_API nd_status nd_copy_from_host(nd_array *a, const void *src, size_t nbytes);
/** Copy of a on device dev (always a new array when *out == NULL). */
ND_API nd_status nd_to_device(nd_array **out, const nd_array *a, nd_device dev);

/* Inspection. On a NULL array these return 0 / NULL / false. */
/** Number of dimensions (0 for a 0-d array). */
ND_API int nd_ndim(const nd_array *a);
/** Pointer to ndim extents, valid while a lives. */
ND_API const int64_t *nd_shape(const nd_array *a);
/** Pointer to ndim strides, in ELEMENTS (as DLPack), valid while a lives. */
ND_API const int64_t *nd_strides(const nd_array *a);
/** Number of elements (product of the shape). */
ND_API int64_t nd_size(const nd_array *a);
/** nd_size * dtype size. */
ND_API size_t nd_nbytes(const nd_array *a);
/** Element type (ND_NUM_DTYPES for NULL). */
ND_API nd_dtype nd_dtype_of(const nd_array *a);
/** Device the array lives on. */
ND_API nd_device nd_device_of(const nd_array *a);
/** Address of element [0,...,0] (host or device pointer). */
ND_API void *nd_data(const nd_array *a);
/** C-contiguous (size-1 axes' strides ignored). */
ND_API bool nd_is_contiguous(const nd_array *a);
/** Whether a lives in page-locked host memory (false without a GPU). */
ND_API bool nd_is_pinned(const nd_array *a);
/** Whether a can be written (a destination, an in-place operand): false for
 *  NULL, a broadcast view (stride 0 on an axis of extent > 1) and a read-only
 *  DLPack import or its views. */
ND_API bool nd_is_writable(const nd_array *a);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_ARRAY_H */
