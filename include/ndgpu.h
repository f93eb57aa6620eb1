/*
 * libndgpu - a NumPy/CuPy-style n-dimensional array library in C.
 *
 * One public header. Conventions (see README.md and docs/arrays.md):
 *
 *  - Every fallible function returns nd_status (ND_OK == 0). On failure
 *    nothing leaks, *out is untouched, and nd_last_error() returns a
 *    thread-local message naming the function and the offending argument.
 *  - Results come back through an out-pointer, the first parameter:
 *    nd_add(&c, a, b) reads "c = a + b".
 *  - THE OUT-POINTER RULE (NumPy's out=): if *out == NULL the function
 *    allocates the result and stores a new reference in *out (yours to
 *    nd_release). If *out != NULL the result is written into *out, which
 *    must have the result's shape, live on the same device and accept the
 *    result dtype under "same_kind" casting (ND_ERR_SHAPE / ND_ERR_DEVICE /
 *    ND_ERR_DTYPE otherwise), and be writable: a broadcast view (a stride-0
 *    axis of extent > 1) or a read-only DLPack import is ND_ERR_INVALID.
 *    Exact aliasing of an input is allowed (in place); partial overlap gives
 *    NumPy's result (inputs are copied first). On failure *out is neither
 *    replaced nor written. View-making functions follow the same rule: with
 *    *out != NULL the view's elements are copied into *out.
 *    A fresh result is C-contiguous, except that an elementwise op (unary,
 *    binary, nd_where) whose full-shape inputs agree on another memory
 *    order gives its result that order (NumPy's order='K': nd_exp of a.T is
 *    laid out like a.T); nd_contiguous() gives C order when you need it.
 *  - Every nd_array* the library gives you is yours: nd_release() it.
 *  - The library never aborts, prints or exits.
 *  - Thread-safe for distinct arrays.
 */
#ifndef NDGPU_H
#define NDGPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* FILE, for nd_profiler_print_table */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define ND_API
#else
#define ND_API __attribute__((visibility("default")))
#endif

#define ND_VERSION_MAJOR 0
#define ND_VERSION_MINOR 1
#define ND_VERSION_PATCH 0

/** Maximum number of dimensions of an array. */
#define ND_MAX_DIMS 32

/** An n-dimensional array (opaque, reference counted). */
typedef struct nd_array nd_array;

/* ------------------------------------------------------------------ */
/* Status codes (numbers are stable)                                   */
/* ------------------------------------------------------------------ */
typedef enum nd_status {
    ND_OK = 0,
    ND_ERR_INVALID = 1,     /* bad argument value (NULL, range, ...) */
    ND_ERR_SHAPE = 2,       /* shapes do not match / broadcast / bad axis */
    ND_ERR_DTYPE = 3,       /* dtype not supported by the op, bad casting */
    ND_ERR_DEVICE = 4,      /* device mismatch, missing or unusable GPU */
    ND_ERR_NOMEM = 5,       /* allocation failed */
    ND_ERR_BACKEND = 6,     /* BLAS / CUDA runtime error */
    ND_ERR_IO = 7,          /* file or format error */
    ND_ERR_UNSUPPORTED = 8, /* feature not compiled in / not implemented */
    ND_ERR_INTERNAL = 9     /* a bug in libndgpu */
} nd_status;

/* Sizes: no array, result or view, may hold more than INT64_MAX elements or
 * bytes. Every function refuses a result shape whose element count or byte
 * count would pass that with ND_ERR_INVALID ("array is too big", NumPy's
 * words for the same shape), before any work or allocation; a result that
 * could exist but does not fit in memory (or under nd_memory_set_limit)
 * gives ND_ERR_NOMEM. Neither ever wraps to a small array. */

/** Name of a status code, e.g. "ND_ERR_SHAPE". Never NULL. */
ND_API const char *nd_status_name(nd_status s);
/** Thread-local message of the last failure in this thread ("" if none).
 *  Valid until the next libndgpu call in this thread. */
ND_API const char *nd_last_error(void);
/* printf-style format checking of nd_set_error's arguments */
#if defined(__GNUC__)
#define ND_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define ND_PRINTF_LIKE(f, a)
#endif
/** Set this thread's last error to "func: message" (func NULL: "libndgpu")
 *  and return code. For libraries built on libndgpu that report through
 *  nd_last_error() (libndgpu_mpi does). */
ND_API ND_PRINTF_LIKE(3, 4) nd_status nd_set_error(nd_status code, const char *func, const char *fmt, ...);

/* ------------------------------------------------------------------ */
/* Library                                                             */
/* ------------------------------------------------------------------ */
/** Version string "MAJOR.MINOR.PATCH". */
ND_API const char *nd_version(void);
/** One-line description of the build: backends; the BLAS library, its
 *  version, origin and the kernel core it runs ("BLAS: OpenBLAS 0.3.34
 *  (scipy-openblas32, core SkylakeX)", ", generic kernels" after a core
 *  without AVX2 kernels; docs/blas.md); threads; CPU path; CUDA. */
ND_API const char *nd_build_info(void);
/** The CPU path the CPU backend runs: "avx512", "avx2" (x86-64-v3: AVX2,
 *  FMA, F16C) or "baseline"; detected once at load, lowered by ND_CPU_ISA.
 *  For code built on libndgpu that specialises for the CPU the same way
 *  (libndgpu_mpi's half-precision reductions). Never NULL. */
ND_API const char *nd_cpu_path(void);
/** Set the number of CPU threads (n >= 1; 0 = default = all cores or
 *  ND_NUM_THREADS). ND_ERR_INVALID for n < 0. A count chosen here or in
 *  ND_NUM_THREADS also applies to the BLAS (OpenBLAS or BLIS: matmul,
 *  linalg), from the next matmul on; left alone, the BLAS keeps its own
 *  default (OPENBLAS_NUM_THREADS, BLIS_NUM_THREADS or all cores). Change it
 *  between matmuls, not during one. */
ND_API nd_status nd_set_num_threads(int n);
/** Number of CPU threads the CPU backend uses. */
ND_API int nd_get_num_threads(void);

/* ------------------------------------------------------------------ */
/* dtypes                                                              */
/* ------------------------------------------------------------------ */
typedef enum nd_dtype {
    ND_BOOL = 0,
    ND_INT8,
    ND_INT16,
    ND_INT32,
    ND_INT64,
    ND_UINT8,
    ND_UINT16,
    ND_UINT32,
    ND_UINT64,
    ND_FLOAT16,
    ND_BFLOAT16,
    ND_FLOAT32,
    ND_FLOAT64,
    ND_COMPLEX64,  /* two float32: (real, imaginary), NumPy's complex64 */
    ND_COMPLEX128, /* two float64 */
    ND_NUM_DTYPES
} nd_dtype;

/** NumPy's name ("float32", "bfloat16", ...); "invalid" for bad values. */
ND_API const char *nd_dtype_name(nd_dtype t);
/** Size of one element in bytes; 0 for bad values. */
ND_API size_t nd_dtype_size(nd_dtype t);
/** Promotion of two array dtypes (NumPy 2 / NEP 50 table; bfloat16 with
 *  float16 gives float32, with int8/uint8 bfloat16, with wider ints
 *  float32/float64 as for float16). ND_ERR_INVALID on bad enums. */
ND_API nd_status nd_result_type(nd_dtype *out, nd_dtype a, nd_dtype b);
/** Whether `from` can be cast to `to` under NumPy's "same_kind" rule. */
ND_API bool nd_can_cast_same_kind(nd_dtype from, nd_dtype to);

/* ------------------------------------------------------------------ */
/* Scalars (weak, as Python scalars in NumPy 2 / NEP 50)               */
/* ------------------------------------------------------------------ */
typedef enum nd_scalar_kind {
    ND_SCALAR_NONE = 0, /* "no value" (e.g. a missing clip bound) */
    ND_SCALAR_BOOL,
    ND_SCALAR_INT,
    ND_SCALAR_FLOAT,
    ND_SCALAR_COMPLEX /* a Python complex: v.c[0] real part, v.c[1] imaginary */
} nd_scalar_kind;

typedef struct nd_scalar {
    nd_scalar_kind kind;
    union {
        bool b;
        int64_t i;
        double f;
        double c[2];
    } v;
} nd_scalar;

/** A weak bool scalar (like Python's True/False). */
static inline nd_scalar nd_scalar_bool(bool b) { nd_scalar s; s.kind = ND_SCALAR_BOOL; s.v.b = b; return s; }
/** A weak integer scalar (like a Python int; int64 range). */
static inline nd_scalar nd_scalar_int(int64_t i) { nd_scalar s; s.kind = ND_SCALAR_INT; s.v.i = i; return s; }
/** A weak float scalar (like a Python float). */
static inline nd_scalar nd_scalar_float(double f) { nd_scalar s; s.kind = ND_SCALAR_FLOAT; s.v.f = f; return s; }
/** A weak complex scalar (like a Python complex: re + im*1j). */
static inline nd_scalar nd_scalar_complex(double re, double im)
{
    nd_scalar s;
    s.kind = ND_SCALAR_COMPLEX;
    s.v.c[0] = re;
    s.v.c[1] = im;
    return s;
}
/** "No value" (e.g. a missing clip bound). */
static inline nd_scalar nd_scalar_none(void) { nd_scalar s; s.kind = ND_SCALAR_NONE; s.v.i = 0; return s; }

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */
typedef enum nd_device_type { ND_DEVICE_CPU = 0, ND_DEVICE_CUDA = 1 } nd_device_type;
typedef struct nd_device {
    nd_device_type type;
    int id;
} nd_device;

typedef struct nd_device_info {
    char name[256];
    nd_device_type type;
    int id;
    int cc_major, cc_minor;      /* compute capability (0 for the CPU) */
    int multiprocessors;         /* SMs; logical cores for the CPU */
    size_t total_memory;         /* bytes */
    size_t free_memory;          /* bytes */
    int memory_clock_khz;        /* 0 when unknown */
    int memory_bus_width_bits;   /* 0 when unknown */
    double peak_bandwidth_gbps;  /* 0 when unknown */
} nd_device_info;

/** The CPU device (cpu:0). */
static inline nd_device nd_cpu(void) { nd_device d; d.type = ND_DEVICE_CPU; d.id = 0; return d; }
/** CUDA device number id (as numbered under CUDA_VISIBLE_DEVICES). */
static inline nd_device nd_cuda(int id) { nd_device d; d.type = ND_DEVICE_CUDA; d.id = id; return d; }
/** cuda:0 when a GPU is usable, else the CPU. ND_DEVICE=cpu|cuda:N overrides
 *  (an unusable override falls back to the CPU). */
ND_API nd_device nd_default_device(void);
/** Number of usable CUDA devices; 0 (silently) in a CPU-only build or
 *  when there is no driver or GPU. */
ND_API int nd_cuda_device_count(void);
/** Fill *info for dev. ND_ERR_INVALID (NULL), ND_ERR_DEVICE (no such
 *  device), ND_ERR_UNSUPPORTED (CUDA not compiled in). */
ND_API nd_status nd_device_get_info(nd_device_info *info, nd_device dev);
/** Wait for all work queued on dev. */
ND_API nd_status nd_synchronize(nd_device dev);

/* ------------------------------------------------------------------ */
/* Memory: pools and statistics                                        */
/* ------------------------------------------------------------------ */
/* CUDA devices allocate through a caching pool (512-byte rounding, best
 * fit, split and merge; freed blocks are reused by later allocations on
 * the same stream). The CPU allocates with aligned_alloc and keeps the
 * same accounting (cached is always 0 there). Environment ND_POOL=0
 * bypasses the pools (every array is a cudaMalloc/cudaHostAlloc), so that
 * compute-sanitizer and valgrind see every allocation. */
typedef struct nd_memory_stats {
    size_t in_use;             /* bytes held by live arrays */
    size_t peak_in_use;        /* high-water mark since the last reset */
    size_t cached;             /* bytes held by the pool but free */
    size_t reserved;           /* in_use + cached */
    size_t limit;              /* 0 = none */
    size_t largest_free_block; /* largest cached block (fragmentation) */
    uint64_t device_allocs;    /* allocations made from the system/driver */
    uint64_t allocs;           /* allocations served */
    bool pooled;               /* false when the pool is bypassed (ND_POOL=0 or the CPU) */
} nd_memory_stats;
/** Statistics of dev's allocator. ND_ERR_INVALID (NULL), device errors as
 *  for nd_empty. */
ND_API nd_status nd_memory_get_stats(nd_memory_stats *stats, nd_device dev);
/** Return dev's cached, unused memory to the system (synchronises dev). */
ND_API nd_status nd_memory_release_cached(nd_device dev);
/** Cap the bytes dev's allocator may hold (0 = no limit). Allocations
 *  beyond it fail with ND_ERR_NOMEM after the cache has been released. */
ND_API nd_status nd_memory_set_limit(nd_device dev, size_t bytes);
/** Restart peak_in_use from the current in_use. */
ND_API nd_status nd_memory_reset_peak(nd_device dev);

/* ------------------------------------------------------------------ */
/* Streams and events                                                  */
/* ------------------------------------------------------------------ */
/* Every operation runs on the calling thread's current stream of the
 * array's device. The default is the device's legacy default stream (all
 * work on a device is ordered). CPU streams and events exist too: CPU work
 * is synchronous, so they only order trivially, and CPU events time with
 * the host clock, so event timing code runs unchanged on the CPU. */
typedef struct nd_stream nd_stream;
typedef struct nd_event nd_event;
/** New stream on dev. */
ND_API nd_status nd_stream_create(nd_stream **stream, nd_device dev);
/** Destroy a stream (waits for its work; resets threads' current stream
 *  only for the calling thread). NULL is fine. */
ND_API nd_status nd_stream_destroy(nd_stream *stream);
/** Wait until the stream's work is done. */
ND_API nd_status nd_stream_synchronize(nd_stream *stream);
/** The device a stream belongs to. */
ND_API nd_device nd_stream_device(const nd_stream *stream);
/** The backend's native handle of a stream (a cudaStream_t for a CUDA
 *  stream), for handing the library's stream to other CUDA libraries (NCCL,
 *  your kernels). NULL for NULL (the default stream) and for CPU streams. */
ND_API void *nd_stream_native(const nd_stream *stream);
/** Make stream the calling thread's current stream on its device, for
 *  every device, the CPU included: afterwards nd_get_stream(that device)
 *  returns stream (for a CPU stream work stays synchronous). NULL resets
 *  every device of this thread to the default stream; destroying a
 *  thread's current stream resets that device for that thread. */
ND_API nd_status nd_set_stream(nd_stream *stream);
/** The calling thread's current stream on dev: the last one nd_set_stream
 *  made current there (CPU streams included), NULL = the default. */
ND_API nd_stream *nd_get_stream(nd_device dev);
/** New event on dev (timing enabled). */
ND_API nd_status nd_event_create(nd_event **event, nd_device dev);
/** Record the event on stream (NULL = the current stream of its device). */
ND_API nd_status nd_event_record(nd_event *event, nd_stream *stream);
/** Wait until the recorded work is done. ND_ERR_INVALID if never recorded. */
ND_API nd_status nd_event_synchronize(nd_event *event);
/** Milliseconds between two recorded events of the same device. */
ND_API nd_status nd_event_elapsed_ms(float *ms, nd_event *start, nd_event *end);
/** Destroy an event (NULL is fine). */
ND_API nd_status nd_event_destroy(nd_event *event);

/* ------------------------------------------------------------------ */
/* Pinned (page-locked) host memory and asynchronous copies            */
/* ------------------------------------------------------------------ */
/* Page-locked memory makes host<->device copies fast and lets them run
 * asynchronously. Without a GPU (or in a CPU-only build) these fall back
 * to ordinary memory, and nd_is_pinned() says so. */
/** A CPU array in page-locked memory (ordinary memory without a GPU). */
ND_API nd_status nd_empty_pinned(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape);
/** nbytes of page-locked host memory (from the pinned pool). */
ND_API nd_status nd_pinned_alloc(void **ptr, size_t nbytes);
/** Free memory from nd_pinned_alloc (NULL is fine; other pointers are
 *  ND_ERR_INVALID). */
ND_API nd_status nd_pinned_free(void *ptr);
/** Copy src into dst (same shape and dtype, any devices) on stream (NULL =
 *  the current stream of the device side). Truly asynchronous only between
 *  a device and PINNED host memory or device to device; with pageable host
 *  memory, or on the CPU, it completes before returning. The caller must
 *  keep both arrays alive and unmodified until the stream is synchronised. */
ND_API nd_status nd_copy_async(nd_array *dst, const nd_array *src, nd_stream *stream);

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

/* ------------------------------------------------------------------ */
/* Views and joins                                                     */
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
/** Remove size-1 axes (axes NULL: all of them; else each named axis must
 *  have extent 1). A view. */
ND_API nd_status nd_squeeze(nd_array **out, const nd_array *a, int naxes, const int *axes);
/** Insert an axis of extent 1 at position axis (-ndim-1 <= axis <= ndim). */
ND_API nd_status nd_expand_dims(nd_array **out, const nd_array *a, int axis);
/** Broadcast a to shape (read-only view semantics: stride-0 axes). */
ND_API nd_status nd_broadcast_to(nd_array **out, const nd_array *a, int ndim, const int64_t *shape);
/** a itself (a new reference) if C-contiguous, else a C-contiguous copy. */
ND_API nd_status nd_contiguous(nd_array **out, const nd_array *a);
/** The axis argument meaning NumPy's axis=None, "the flattened array" (C
 *  order of a), for the functions that take one axis and accept None:
 *  nd_take, nd_take_along_axis, nd_put_along_axis, nd_compress, nd_sort,
 *  nd_argsort, nd_partition, nd_argpartition, nd_cumsum, nd_cumprod,
 *  nd_cummax, nd_cummin, nd_repeat (the value is INT32_MIN, never a valid
 *  axis). */
#define ND_AXIS_NONE (-2147483647 - 1)
/** Join n >= 1 arrays along an existing axis (dtypes promoted). */
ND_API nd_status nd_concatenate(nd_array **out, int n, const nd_array *const *arrays, int axis);
/** Join n >= 1 same-shape arrays along a new axis. */
ND_API nd_status nd_stack(nd_array **out, int n, const nd_array *const *arrays, int axis);

/* ------------------------------------------------------------------ */
/* The op table                                                        */
/* ------------------------------------------------------------------ */
/*
 * X(ENUM, name, kinds, rule) - the single list of elementwise ops.
 *  kinds: input kinds with a loop: B bool, I signed, U unsigned, F float;
 *         a lower-case b means bool inputs are computed as int8 (NumPy).
 *         A token (#kinds is the string): the backends generate exactly
 *         the loops the core dispatches from kinds and rule.
 *         A trailing h (BIUFh) gives float16/bfloat16 bodies of their own
 *         on the raw bits (nextafter, spacing step in the 16-bit format);
 *         a trailing w (BIUFw) has no bfloat16 loop: the core computes
 *         bfloat16 in float32 and rounds once (ldexp).
 *         A trailing C (BIUFC, IUFC, bIUFC): complex64/complex128 loops too
 *         (bodies in src/shared/ops_cpx.h, src/shared/ops_cpx_math.h). Complex
 *         keeps its dtype under SAME, FLOAT and DIV, computes in complex128
 *         under F64. A trailing a (BIUFa, abs): complex too, with a real
 *         result (|z|, NumPy's absolute); ops without C or a refuse complex
 *         (ND_ERR_DTYPE): floor, ceil, ... as NumPy 2 refuses them, and
 *         the ordering ops (less, ..., maximum/minimum, fmax/fmin), which
 *         NumPy 2 does take (it orders complex lexicographically, real
 *         part first): refusing them is a decision of this library, as
 *         the array API standard leaves complex ordering unspecified and
 *         PyTorch refuses it
 *  rule:  SAME  result dtype = (promoted) input dtype
 *         FLOAT result is the smallest float that holds the input
 *               (bool/int8/uint8 -> float16, 16-bit -> float32, wider -> float64)
 *         DIV   true division: integers -> float64, floats unchanged
 *         BOOL  result is bool (computed in the promoted input dtype)
 *         F64   result is float64 for every input (NumPy's float_power)
 *  New ops go at the end of the lists (the enum values are ABI).
 *  Semantics of these ops (NumPy 2.4's): fmod as C's fmod (sign of
 *  the dividend; integers: x % 0 == 0, INT_MIN % -1 == 0); logaddexp(2)
 *  NumPy's overflow-free forms (equal infinities give themselves);
 *  gcd/lcm on the magnitudes (gcd(INT_MIN, 0) == INT_MIN as NumPy, int8 and
 *  int16 lcm truncate the exact product, wider lcm wrap then take abs);
 *  heaviside(x, h0): 0 / h0 / 1, NaN for NaN; nextafter as C's (float16 as
 *  NumPy's npy_half_nextafter); spacing as NumPy's (float16: NumPy's
 *  always-positive half spacing; bfloat16 steps like float32); float_power
 *  always in float64; ldexp(x, e): x's float dtype (ints: the FLOAT rule
 *  on x alone), e any bool/integer dtype but uint64 (ND_ERR_DTYPE for a
 *  float or uint64 exponent, as NumPy's "ufunc 'ldexp' not supported");
 *  a weak scalar exponent must be an int; conjugate is the identity on
 *  these real dtypes.
 */
#define ND_UNARY_OPS(X)                     \
    X(NEG, negative, IUFC, SAME)             \
    X(POSITIVE, positive, IUFC, SAME)        \
    X(ABS, abs, BIUFa, SAME)                 \
    X(SIGN, sign, IUFC, SAME)                \
    X(SQRT, sqrt, BIUFC, FLOAT)              \
    X(CBRT, cbrt, BIUF, FLOAT)              \
    X(SQUARE, square, bIUFC, SAME)           \
    X(RECIPROCAL, reciprocal, bIUFC, SAME)   \
    X(EXP, exp, BIUFC, FLOAT)                \
    X(EXP2, exp2, BIUFC, FLOAT)              \
    X(EXPM1, expm1, BIUFC, FLOAT)            \
    X(LOG, log, BIUFC, FLOAT)                \
    X(LOG2, log2, BIUFC, FLOAT)              \
    X(LOG10, log10, BIUFC, FLOAT)            \
    X(LOG1P, log1p, BIUFC, FLOAT)            \
    X(SIN, sin, BIUFC, FLOAT)                \
    X(COS, cos, BIUFC, FLOAT)                \
    X(TAN, tan, BIUFC, FLOAT)                \
    X(ARCSIN, arcsin, BIUFC, FLOAT)          \
    X(ARCCOS, arccos, BIUFC, FLOAT)          \
    X(ARCTAN, arctan, BIUFC, FLOAT)          \
    X(SINH, sinh, BIUFC, FLOAT)              \
    X(COSH, cosh, BIUFC, FLOAT)              \
    X(TANH, tanh, BIUFC, FLOAT)              \
    X(ARCSINH, arcsinh, BIUFC, FLOAT)        \
    X(ARCCOSH, arccosh, BIUFC, FLOAT)        \
    X(ARCTANH, arctanh, BIUFC, FLOAT)        \
    X(SIGMOID, sigmoid, BIUF, FLOAT)        \
    X(RELU, relu, IUF, SAME)                \
    X(FLOOR, floor, BIUF, SAME)             \
    X(CEIL, ceil, BIUF, SAME)               \
    X(TRUNC, trunc, BIUF, SAME)             \
    X(RINT, rint, BIUFC, FLOAT)              \
    X(LOGICAL_NOT, logical_not, BIUFC, BOOL)   \
    X(BITWISE_NOT, bitwise_not, BIU, SAME)   \
    X(ISNAN, isnan, BIUFC, BOOL)             \
    X(ISINF, isinf, BIUFC, BOOL)             \
    X(ISFINITE, isfinite, BIUFC, BOOL)       \
    X(SIGNBIT, signbit, BIUF, BOOL)         \
    X(DEG2RAD, deg2rad, BIUF, FLOAT)        \
    X(RAD2DEG, rad2deg, BIUF, FLOAT)        \
    X(SPACING, spacing, BIUFh, FLOAT)       \
    X(CONJUGATE, conjugate, bIUFC, SAME)

#define ND_BINARY_OPS(X)                          \
    X(ADD, add, BIUFC, SAME)                       \
    X(SUBTRACT, subtract, IUFC, SAME)              \
    X(MULTIPLY, multiply, BIUFC, SAME)             \
    X(DIVIDE, divide, BIUFC, DIV)                  \
    X(FLOOR_DIVIDE, floor_divide, bIUF, SAME)     \
    X(REMAINDER, remainder, bIUF, SAME)           \
    X(POWER, power, bIUFC, SAME)                   \
    X(MAXIMUM, maximum, BIUF, SAME)               \
    X(MINIMUM, minimum, BIUF, SAME)               \
    X(FMAX, fmax, BIUF, SAME)                     \
    X(FMIN, fmin, BIUF, SAME)                     \
    X(ARCTAN2, arctan2, BIUF, FLOAT)              \
    X(HYPOT, hypot, BIUF, FLOAT)                  \
    X(COPYSIGN, copysign, BIUF, FLOAT)            \
    X(EQUAL, equal, BIUFC, BOOL)                   \
    X(NOT_EQUAL, not_equal, BIUFC, BOOL)           \
    X(LESS, less, BIUF, BOOL)                     \
    X(LESS_EQUAL, less_equal, BIUF, BOOL)         \
    X(GREATER, greater, BIUF, BOOL)               \
    X(GREATER_EQUAL, greater_equal, BIUF, BOOL)   \
    X(LOGICAL_AND, logical_and, BIUFC, BOOL)       \
    X(LOGICAL_OR, logical_or, BIUFC, BOOL)         \
    X(LOGICAL_XOR, logical_xor, BIUFC, BOOL)       \
    X(BITWISE_AND, bitwise_and, BIU, SAME)        \
    X(BITWISE_OR, bitwise_or, BIU, SAME)          \
    X(BITWISE_XOR, bitwise_xor, BIU, SAME)        \
    X(LEFT_SHIFT, left_shift, bIU, SAME)          \
    X(RIGHT_SHIFT, right_shift, bIU, SAME)        \
    X(FMOD, fmod, bIUF, SAME)                     \
    X(LOGADDEXP, logaddexp, BIUF, FLOAT)          \
    X(LOGADDEXP2, logaddexp2, BIUF, FLOAT)        \
    X(GCD, gcd, IU, SAME)                         \
    X(LCM, lcm, IU, SAME)                         \
    X(HEAVISIDE, heaviside, BIUF, FLOAT)          \
    X(NEXTAFTER, nextafter, BIUFh, FLOAT)         \
    X(FLOAT_POWER, float_power, BIUFC, F64)        \
    X(LDEXP, ldexp, BIUFw, FLOAT)

#define ND_X_ENUM_UNARY(E, n, k, r) ND_UNARY_##E,
#define ND_X_ENUM_BINARY(E, n, k, r) ND_BINARY_##E,
typedef enum nd_unary_op { ND_UNARY_OPS(ND_X_ENUM_UNARY) ND_NUM_UNARY_OPS } nd_unary_op;
typedef enum nd_binary_op { ND_BINARY_OPS(ND_X_ENUM_BINARY) ND_NUM_BINARY_OPS } nd_binary_op;

/** NumPy name of a unary op ("negative", "exp"); NULL for bad values. */
ND_API const char *nd_unary_op_name(nd_unary_op op);
/** NumPy name of a binary op ("add", "less"); NULL for bad values. */
ND_API const char *nd_binary_op_name(nd_binary_op op);

/* ------------------------------------------------------------------ */
/* Elementwise                                                         */
/* ------------------------------------------------------------------ */
/** out = op(a). ND_ERR_INVALID for a bad op, ND_ERR_DTYPE when the op has
 *  no loop for a's dtype (e.g. negative on bool, bitwise_not on float). */
ND_API nd_status nd_unary(nd_array **out, nd_unary_op op, const nd_array *a);
/** out = op(a, b) with broadcasting and NEP 50 promotion. ND_ERR_SHAPE
 *  when shapes do not broadcast, ND_ERR_DEVICE when devices differ. */
ND_API nd_status nd_binary(nd_array **out, nd_binary_op op, const nd_array *a, const nd_array *b);
/** out = op(a, s) with a weak Python-like scalar (NEP 50): int8 array +
 *  int scalar stays int8 (ND_ERR_INVALID if the value does not fit), int
 *  array + float scalar gives float64, float32 + float scalar float32. */
ND_API nd_status nd_binary_scalar(nd_array **out, nd_binary_op op, const nd_array *a, nd_scalar s);
/** out = op(s, a): the scalar on the left (e.g. 1 - a, 2 / a). */
ND_API nd_status nd_scalar_binary(nd_array **out, nd_binary_op op, nd_scalar s, const nd_array *a);
/** out = cond ? x : y (cond is cast to bool; x and y promoted; all three
 *  broadcast). */
ND_API nd_status nd_where(nd_array **out, const nd_array *cond, const nd_array *x, const nd_array *y);
/** out = minimum(maximum(a, lo), hi), NumPy's clip; lo or hi may be NULL
 *  (not both). NaN propagates. */
ND_API nd_status nd_clip(nd_array **out, const nd_array *a, const nd_array *lo, const nd_array *hi);
/** clip with weak scalar bounds; a bound of kind ND_SCALAR_NONE is absent. */
ND_API nd_status nd_clip_scalar(nd_array **out, const nd_array *a, nd_scalar lo, nd_scalar hi);

/* Named wrappers: nd_negative(&out, a), nd_exp(&out, a), ...,
 * nd_add(&out, a, b), nd_less(&out, a, b), ... one per op of the table. */
#define ND_X_DECL_UNARY(E, n, k, r) ND_API nd_status nd_##n(nd_array **out, const nd_array *a);
#define ND_X_DECL_BINARY(E, n, k, r) ND_API nd_status nd_##n(nd_array **out, const nd_array *a, const nd_array *b);
ND_UNARY_OPS(ND_X_DECL_UNARY)
ND_BINARY_OPS(ND_X_DECL_BINARY)

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
#define ND_X_DECL_REDUCE(E, n) ND_API nd_status nd_##n(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);
ND_REDUCE_OPS(ND_X_DECL_REDUCE)

/* ------------------------------------------------------------------ */
/* Linear algebra                                                      */
/* ------------------------------------------------------------------ */
/** NumPy matmul: 1-D operands are promoted (and the added axis removed),
 *  batch dimensions broadcast, result dtype nd_result_type(a, b) (bool @
 *  bool is bool: the logical or of ands; integers wrap in the result
 *  dtype). Transposed views go to BLAS as flags, not copies; K == 0 gives
 *  zeros. ND_ERR_SHAPE for 0-d operands ("Input operand 0 does not have
 *  enough dimensions ..."), mismatched core dimensions ("Input operand 1
 *  has a mismatch in its core dimension 0 ... (size 3 is different from
 *  4)") and batch shapes that do not broadcast. An out that overlaps an
 *  input or has another dtype is computed through a temporary, except
 *  mixed precision: float16/bfloat16 operands with a float32 out are
 *  accumulated in float32 and written straight into out, never rounded to
 *  half in between (on the CPU through oneDNN where the build has it and
 *  the CPU has AVX512-BF16/AMX, else widened to float32 for sgemm).
 *  complex64/complex128 work like the reals (cgemm/zgemm on the CPU,
 *  cuBLAS on the GPU; no conjugation), complex with a real dtype promotes
 *  as nd_result_type says (complex64 @ float64 is complex128). */
ND_API nd_status nd_matmul(nd_array **out, const nd_array *a, const nd_array *b);
/** NumPy dot: scalar*array for 0-d, inner product for 1-D, matmul for
 *  2-D, sum over the last axis of a and second-to-last of b otherwise
 *  (result shape a.shape[:-1] + b.shape[:-2] + b.shape[-1:]). ND_ERR_SHAPE
 *  "shapes (2,3) and (4,5) not aligned: 3 (dim 1) != 4 (dim 0)". Complex
 *  operands as in nd_matmul (no conjugation: np.dot, not np.vdot). */
ND_API nd_status nd_dot(nd_array **out, const nd_array *a, const nd_array *b);
/** c = alpha * op(a) @ op(b) + beta * c for 2-D a, b (op = transpose when
 *  the flag is set). With *c == NULL a new c is allocated and beta ignored.
 *  The promoted dtype of a and b must be a float or complex dtype
 *  (ND_ERR_DTYPE for integer/bool: use nd_matmul); an existing *c must be 2-D (M, N)
 *  (ND_ERR_SHAPE), on the same device (ND_ERR_DEVICE) and of exactly that
 *  promoted dtype (ND_ERR_DTYPE: c is updated in place, never cast). BLAS
 *  conventions: beta == 0 does not read c (NaNs there vanish), alpha == 0
 *  does not read a and b. float16/bfloat16 are computed in float32; with
 *  float16/bfloat16 a and b, c may also be float32 (the mixed-precision
 *  GEMM: c += a @ b accumulated and kept in float32). complex64/complex128
 *  take the real alpha and beta as (alpha, 0) and (beta, 0); op is the
 *  plain transpose, never the conjugate one. */
ND_API nd_status nd_gemm(nd_array **c, bool trans_a, bool trans_b, double alpha, const nd_array *a, const nd_array *b, double beta);
/** Whether float32 matmul/dot/gemm on a GPU may use TF32 tensor cores
 *  (10-bit mantissa products, float32 accumulation; several times faster,
 *  about 1e-3 relative error). Default false: float32 is computed exactly
 *  as float32, as NumPy and CuPy do by default. Process-wide; the
 *  environment variable ND_MATMUL_TF32=1 sets the initial value. The CPU
 *  backend ignores it. */
ND_API void nd_set_matmul_tf32(bool allow);
/** The current TF32 setting (see nd_set_matmul_tf32). */
ND_API bool nd_get_matmul_tf32(void);

/* ------------------------------------------------------------------ */
/* Random (Philox4x32-10, counter based; same numbers on every backend) */
/* ------------------------------------------------------------------ */
/*
 * The stream (defined exactly in src/shared/philox.h): key = (seed & 0xffffffff,
 * seed >> 32); block j = Philox4x32-10(counter = (j & 0xffffffff, j >> 32,
 * 0, 0), key), four 32-bit words. The generator's offset counts blocks.
 * A call producing n elements uses E = 4 elements per block for
 * float16/bfloat16/float32 and E = 2 for float64: element i (in C order
 * of the result shape) comes from block offset + i / E, lane i % E, so it
 * depends only on (seed, offset, i), and the call advances the offset by
 * ceil(n / E). Two calls of n therefore equal one call of 2n when n is a
 * multiple of E. Uniform and normal values are bit-identical on every
 * backend: normal values use the library's own ln/sin/cos (src/shared/philox.h:
 * IEEE + - * / and sqrt only, no fused multiply-add, < 1 ulp), not the
 * platform's libm. A generator is not safe to use from two threads at
 * once.
 */
typedef struct nd_rng nd_rng;
/** New generator: key = seed, counter (offset) = 0. ND_ERR_INVALID for a
 *  NULL rng, ND_ERR_NOMEM. */
ND_API nd_status nd_rng_create(nd_rng **rng, uint64_t seed);
/** Free a generator (NULL is fine). */
ND_API void nd_rng_destroy(nd_rng *rng);
/** Current stream position (in 128-bit Philox blocks); 0 for NULL. */
ND_API uint64_t nd_rng_offset(const nd_rng *rng);
/** Move the stream position (any value; positions wrap mod 2^64). */
ND_API nd_status nd_rng_set_offset(nd_rng *rng, uint64_t offset);
/** Uniform [low, high) floats (float16/bfloat16/float32/float64, and
 *  complex64/complex128 below; ND_ERR_DTYPE otherwise): u in [0, 1) from
 *  24 bits (53 for float64), low + (high - low) * u in double, rounded to
 *  the dtype; values that
 *  round onto high (or below low) are replaced by the nearest dtype value
 *  inside [low, high). low == high gives low. ND_ERR_INVALID for
 *  non-finite bounds, low > high, high - low overflowing, or bounds
 *  beyond the dtype's finite range. With *out given (any float dtype,
 *  any layout) the values are generated in dtype and cast; the offset
 *  advances only on success. complex64/complex128 (as PyTorch's complex
 *  rand): the real and imaginary parts are independent, each uniform in
 *  [low, high) (bounds checked against the part's float dtype); they are
 *  the 2n consecutive values of the real call of the part dtype (element
 *  i: real part 2i, imaginary part 2i + 1), so the offset advances as for a
 *  real call of 2n and every backend gives the same bits. */
ND_API nd_status nd_random_uniform(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double low, double high, nd_device dev);
/** Normal(mean, stddev) floats by Box-Muller (u1 in (0, 1], no log 0),
 *  computed in double and rounded to the dtype. ND_ERR_INVALID for
 *  non-finite mean/stddev or stddev < 0 (stddev == 0 gives mean).
 *  complex64/complex128 (as torch.randn(dtype=complex64)): independent
 *  parts, each Normal(0, stddev^2 / 2), so E|z - mean|^2 = stddev^2; mean
 *  is added to the real part (rounded after the part is, in the part
 *  dtype), so E z = mean + 0i (PyTorch's normal_ adds it to both parts).
 *  The parts are the 2n values of the real call of the part dtype with
 *  stddev / sqrt(2) and mean 0 (element i: 2i and 2i + 1; the offset
 *  advances as for 2n reals; the same bits on every backend). */
ND_API nd_status nd_random_normal(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double mean, double stddev, nd_device dev);
/** Uniform integers in [low, high) (NumPy's Generator.integers(low, high,
 *  size, dtype), endpoint=False) of bool or any integer dtype (ND_ERR_DTYPE
 *  for floats). ND_ERR_INVALID for high <= low ("high <= low") or a bound
 *  outside the dtype ("low -1 is out of bounds for uint8"; uint64's bounds
 *  are int64, so its top half is not reachable). Each element is one
 *  multiply-shift of a 64-bit draw (span <= 2^32: 2 elements per Philox
 *  block, relative bias < 2^-32) or of a 128-bit draw (wider spans: 1 per
 *  block, bias < 2^-64), without rejection, so element i depends only on
 *  (seed, offset, i) and every backend gives the same integers (src/shared/philox.h
 *  defines them). The offset advances by ceil(n / 2) or n blocks. */
ND_API nd_status nd_random_integers(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, int64_t low, int64_t high, nd_device dev);
/** Bernoulli(p) samples: element i is u_i < p with u the float64 uniform
 *  [0, 1) stream of nd_random_uniform (so the offset advances as for a
 *  float64 uniform call of the same size; p = 0 gives all false, p = 1 all
 *  true), stored as 0/1 in dtype (bool, integers or floats: torch.bernoulli
 *  gives floats, NumPy's binomial(1, p) int64). A given *out keeps its own
 *  dtype (the out rule). ND_ERR_INVALID for p outside [0, 1] or NaN. */
ND_API nd_status nd_random_bernoulli(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double p, nd_device dev);
/** Bernoulli with one probability per element (torch.bernoulli(p)): the
 *  result has p's shape and device; p must be a float array (values
 *  outside [0, 1] behave as the comparison u < p does: p < 0 never, p > 1
 *  always, NaN never). Same stream as nd_random_bernoulli. */
ND_API nd_status nd_random_bernoulli_array(nd_array **out, nd_rng *rng, const nd_array *p, nd_dtype dtype);
/** A random permutation of [0, n) (NumPy's Generator.permutation(n)):
 *  int64 on dev, the stable nd_argsort of n int64 keys drawn by
 *  nd_random_integers over the int64 range (so the offset advances by n
 *  blocks, and every backend gives the same permutation). ND_ERR_INVALID
 *  for n < 0. */
ND_API nd_status nd_random_permutation(nd_array **out, nd_rng *rng, int64_t n, nd_device dev);
/** a with its first axis shuffled (NumPy's Generator.permutation(x) for
 *  an array): nd_take(a, permutation(a.shape[0]), axis 0), on a's device.
 *  ND_ERR_INVALID for a 0-d a. */
ND_API nd_status nd_random_permutation_of(nd_array **out, nd_rng *rng, const nd_array *a);
/** NumPy's Generator.choice(a, size, replace, p): samples of `shape` from
 *  the rows of a (a != NULL: along a's first axis; the result has shape +
 *  a.shape[1:], a's dtype and device) or from [0, n) (a == NULL: int64 on
 *  dev). replace: uniform indices (nd_random_integers), or with p (1-D
 *  float, the population's length, non-negative, finite, summing to 1
 *  within sqrt(eps)) NumPy's method: cdf = cumsum(p) / sum(p) in double on
 *  the host, u float64 uniform, index = searchsorted(cdf, u, "right"), so a
 *  zero probability is never drawn. Without replacement: the first
 *  prod(shape) entries of nd_random_permutation(n), or with p weighted
 *  sampling without replacement (Efraimidis-Spirakis keys log(1 - u) / p,
 *  the largest first: the distribution of NumPy's successive draws, not its
 *  values). The samples are the same on every backend for a seed (p and
 *  the keys of the weighted case go through the host). ND_ERR_INVALID:
 *  "Cannot take a larger sample than population when replace is False",
 *  "Fewer non-zero entries in p than size", "probabilities do not sum to
 *  1", negative or non-finite p, n < 0, an empty population with samples
 *  requested; ND_ERR_SHAPE: p not 1-D or not of the population's length;
 *  ND_ERR_DTYPE: p not float; ND_ERR_DEVICE: p on another device. The
 *  offset advances only on success. */
ND_API nd_status nd_random_choice(nd_array **out, nd_rng *rng, const nd_array *a, int64_t n, int ndim, const int64_t *shape, bool replace, const nd_array *p, nd_device dev);

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
/* axis=None: ND_AXIS_NONE (see nd_concatenate above). */

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

/* ------------------------------------------------------------------ */
/* Sorting, searching, sets, order statistics                         */
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

/** Side of nd_searchsorted. */
typedef enum nd_side { ND_SIDE_LEFT = 0, ND_SIDE_RIGHT = 1 } nd_side;
/** np.searchsorted(a, v, side): int64 insertion indices of v (any shape,
 *  0-d too; result v's shape) into the 1-D sorted a (sorted in the order
 *  above: NaNs last), left: first i with a[i] >= v, right: first i with
 *  a[i] > v. a and v are promoted to their common dtype. An unsorted a
 *  gives unspecified indices (as NumPy). ND_ERR_SHAPE: a is not 1-D;
 *  ND_ERR_INVALID: bad side; ND_ERR_DEVICE: a and v on different devices. */
ND_API nd_status nd_searchsorted(nd_array **out, const nd_array *a, const nd_array *v, nd_side side);
/** np.isin(element, test_elements, invert): bool of element's shape, true
 *  where the element equals (==, after promotion to the common dtype) some
 *  element of test_elements (any shape, flattened; may be empty). NaN is
 *  never found (NaN != NaN); -0.0 matches 0.0. Sorts test_elements and
 *  binary-searches. ND_ERR_DEVICE: different devices. */
ND_API nd_status nd_isin(nd_array **out, const nd_array *element, const nd_array *test_elements, bool invert);

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
/* Scans and nan-aware reductions                                     */
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
/** NumPy ptp(a, axis, keepdims): max - min in a's dtype (integers wrap:
 *  int8 [-128, 127] gives -1, as NumPy). NaN propagates. ND_ERR_DTYPE for
 *  bool ("numpy boolean subtract ... is not supported", as NumPy's
 *  TypeError); empty slices as nd_max. */
ND_API nd_status nd_ptp(nd_array **out, const nd_array *a, int naxes, const int *axes, bool keepdims);
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
/** np.outer(a, b): out[i, j] = a.flat[i] * b.flat[j] (nd_multiply's dtype:
 *  bool x bool is bool). */
ND_API nd_status nd_outer(nd_array **out, const nd_array *a, const nd_array *b);
/** np.tensordot(a, b, axes): with axes_a == axes_b == NULL, the sum over
 *  the last naxes axes of a and the first naxes of b (axes=N); otherwise
 *  over axes_a[i] of a paired with axes_b[i] of b (naxes pairs). The
 *  result has a's free axes then b's, in order, and nd_matmul's dtype
 *  (computed as transpose + reshape + nd_matmul). ND_ERR_SHAPE "shape-
 *  mismatch for sum" when paired extents differ or naxes exceeds an ndim;
 *  ND_ERR_INVALID for naxes < 0 (NumPy's odd negative axes are refused)
 *  or a repeated axis. */
ND_API nd_status nd_tensordot(nd_array **out, const nd_array *a, const nd_array *b, int naxes, const int *axes_a,
                              const int *axes_b);
/** np.einsum(subscripts, *operands) for n >= 1 operands (at most 64):
 *  NumPy's subscripts string - letters a-z A-Z, spaces ignored, ',' between
 *  operands, an optional '->' output (without it the output is the
 *  labels used exactly once, in ASCII order, after any broadcast
 *  dimensions), '...' for broadcast dimensions (right-aligned across
 *  operands), a label repeated within one operand takes its diagonal,
 *  labels absent from the output are summed, size-1 extents broadcast
 *  against other operands. The result dtype is the promotion of all
 *  operand dtypes and, as NumPy's, the arithmetic is done in it: integers
 *  wrap (int8 sums wrap in int8), bool gives the or of ands, float16 and
 *  bfloat16 products are accumulated in float32 and rounded once per
 *  contraction. Planned as opt_einsum: diagonals are strided views,
 *  labels of one operand only are summed first (nd_sum), then the operands
 *  are contracted pairwise, greedily (the pair with the smallest result
 *  first, the leftmost on ties), each contraction a transpose +
 *  reshape + batched nd_matmul (or a broadcast nd_multiply when nothing
 *  is summed), then the final transpose. Always a new array (never a view
 *  of an operand). Errors with NumPy's messages: ND_ERR_INVALID for a
 *  malformed string ("einstein sum subscripts string contains too many
 *  subscripts for operand 0", "invalid subscript '1' in einstein sum
 *  subscripts string, subscripts must be letters", operand count
 *  mismatches, a bad '->' or '.', an output label repeated or never used,
 *  missing '...' for extra dimensions) and n < 1; ND_ERR_SHAPE for
 *  extents that disagree ("dimensions in operand 0 for collapsing index
 *  'i' don't match (2 != 3)", "operands could not be broadcast together
 *  ..."); ND_ERR_DEVICE for operands on different devices;
 *  ND_ERR_UNSUPPORTED when an intermediate would exceed ND_MAX_DIMS. */
ND_API nd_status nd_einsum(nd_array **out, const char *subscripts, int n, const nd_array *const *operands);

/* ------------------------------------------------------------------ */
/* Elementwise functions beyond the op table                          */
/* ------------------------------------------------------------------ */
/*
 * NumPy's two-output ufuncs, np.round, np.isclose and friends, composed in
 * the core from the op table (NumPy-exact bodies, every backend). They
 * follow the out-pointer rule for each output; results are computed into
 * temporaries first, so on failure no out is written and every *out is
 * untouched (both outs of a two-output function are checked before either
 * is written). Input errors as the ops they use: ND_ERR_DTYPE for a dtype
 * without a loop, ND_ERR_SHAPE for shapes that do not broadcast,
 * ND_ERR_DEVICE for mixed devices, ND_ERR_INVALID for NULL arguments.
 */
/** np.divmod: q = floor_divide(a, b), r = remainder(a, b) (Python's sign
 *  rules; integer division by zero gives 0 and 0). Dtypes as floor_divide:
 *  all but bool/bool pairs compute in the promoted dtype (bool as int8).
 *  q and r must be different out-pointers (ND_ERR_INVALID). */
ND_API nd_status nd_divmod(nd_array **q, nd_array **r, const nd_array *a, const nd_array *b);
/** np.modf: frac and intpart of a, both signed like a (modf(-3.0) =
 *  (-0.0, -3.0), modf(+-inf) = (+-0.0, +-inf), NaN gives NaN twice), in
 *  a's float dtype (bool/int8/uint8 -> float16, 16-bit -> float32, wider ->
 *  float64, as NumPy's float ufuncs). */
ND_API nd_status nd_modf(nd_array **frac, nd_array **intpart, const nd_array *a);
/** np.frexp: a = mantissa * 2^exponent with 0.5 <= |mantissa| < 1
 *  (denormals included), mantissa in a's float dtype (as nd_modf), exponent
 *  int32; 0, +-inf and NaN give (a, 0). Composed from about 25 elementwise
 *  passes: correct everywhere, not fast. */
ND_API nd_status nd_frexp(nd_array **mantissa, nd_array **exponent, const nd_array *a);
/** np.round(a, decimals) (= np.around): floats rint(a * 10^d) / 10^d
 *  (decimals >= 0) or rint(a / 10^d) * 10^d (decimals < 0) computed in a's
 *  dtype with NumPy's factor, so halves go to even as NumPy's do (round(2.5)
 *  = 2, round(1250, -2) = 1200) and float16 with a factor beyond its range
 *  gives NaN as NumPy does; integers: a copy for decimals >= 0, else the
 *  same computed in float64 and cast back; bool: rint (float16) for
 *  decimals == 0, ND_ERR_DTYPE otherwise (NumPy's casting error). Result
 *  dtype a's (bool: float16). */
ND_API nd_status nd_round(nd_array **out, const nd_array *a, int decimals);
/** np.isclose: |a - y| <= atol + rtol * |y| where y is b cast to
 *  result_type(b, 1.0), and y finite, or a == y (so infinities are close
 *  only to themselves), or with equal_nan both NaN. Bool result of the
 *  broadcast shape; every dtype. NumPy's defaults are rtol 1e-5, atol 1e-8. */
ND_API nd_status nd_isclose(nd_array **out, const nd_array *a, const nd_array *b, double rtol, double atol, bool equal_nan);
/** np.allclose: *result = all(isclose(a, b, ...)) (true for empty
 *  arrays); ND_ERR_SHAPE when the shapes do not broadcast. */
ND_API nd_status nd_allclose(bool *result, const nd_array *a, const nd_array *b, double rtol, double atol, bool equal_nan);
/** np.array_equal: *result = same shape and all(a == b) (with equal_nan,
 *  NaNs in the same places count as equal). Different shapes give false
 *  and ND_OK, as NumPy; ND_ERR_DEVICE for mixed devices. */
ND_API nd_status nd_array_equal(bool *result, const nd_array *a, const nd_array *b, bool equal_nan);
/** np.radians: the same as nd_deg2rad. */
ND_API nd_status nd_radians(nd_array **out, const nd_array *a);
/** np.degrees: the same as nd_rad2deg. */
ND_API nd_status nd_degrees(nd_array **out, const nd_array *a);
/** np.conj: the same as nd_conjugate (the identity on real dtypes, the
 *  imaginary part negated on complex ones). */
ND_API nd_status nd_conj(nd_array **out, const nd_array *a);
/** np.real: a view of a's real parts for complex a (float32 of complex64,
 *  float64 of complex128; writable, as NumPy's .real), a view of a itself
 *  for real dtypes (a given *out receives a copy). */
ND_API nd_status nd_real(nd_array **out, const nd_array *a);
/** np.imag: a view of a's imaginary parts for complex a; for real dtypes
 *  zeros of a's shape and dtype (a new array; NumPy returns a read-only
 *  zero array). A given *out receives a copy. */
ND_API nd_status nd_imag(nd_array **out, const nd_array *a);
/** np.angle(a, deg): the argument arctan2(imag, real) of each element, in
 *  radians (degrees with deg), in the real dtype of a complex a; a real a
 *  gives arctan2(0, a) in arctan2's dtype, as NumPy 2: float dtypes keep
 *  theirs, int8/uint8 -> float16, int16/uint16 -> float32, wider integers
 *  -> float64, bool -> float64. */
ND_API nd_status nd_angle(nd_array **out, const nd_array *a, bool deg);

/* ------------------------------------------------------------------ */
/* Mixed precision: softmax family, cross-entropy, loss scaling        */
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

/** The fused unscale-and-check pass of loss scaling (PyTorch's
 *  _amp_foreach_non_finite_check_and_unscale_): every element of each of
 *  the n arrays (any float dtype, any layout, any devices) is multiplied
 *  in place by inv_scale (in float32 for half/float32 arrays, float64 for
 *  float64; inv_scale == 1 leaves values untouched), and *found_inf is
 *  set to whether any element was inf or NaN before the multiply. One
 *  pass over each array; on a GPU one synchronisation for the flag.
 *  n == 0 sets *found_inf false. ND_ERR_DTYPE for a non-float array,
 *  ND_ERR_INVALID for a read-only or broadcast one (nothing is written
 *  then: every array is checked first). */
ND_API nd_status nd_amp_unscale_check(nd_array *const *arrays, int n, double inv_scale, bool *found_inf);

/** Dynamic loss scaling as torch.amp.GradScaler: create, scale the loss,
 *  unscale the gradients, skip the step when they overflowed, update. */
typedef struct nd_grad_scaler nd_grad_scaler;
/** The scaler's settings (nd_grad_scaler_config_init gives PyTorch's
 *  defaults: init_scale 65536, growth_factor 2, backoff_factor 0.5,
 *  growth_interval 2000, enabled). */
typedef struct nd_grad_scaler_config {
    double init_scale;      /**< > 0, finite */
    double growth_factor;   /**< > 1 */
    double backoff_factor;  /**< in (0, 1) */
    int64_t growth_interval; /**< >= 1 finite steps in a row before the scale grows */
    bool enabled;           /**< false: scale 1, never changes, unscale only checks */
} nd_grad_scaler_config;
/** Fill *c with PyTorch's defaults. */
ND_API void nd_grad_scaler_config_init(nd_grad_scaler_config *c);
/** A new scaler (c == NULL: the defaults). ND_ERR_INVALID for settings
 *  out of range ("growth_factor should be > 1 (got 0.5)"). */
ND_API nd_status nd_grad_scaler_create(nd_grad_scaler **out, const nd_grad_scaler_config *c);
/** Free a scaler (NULL is a no-op). */
ND_API void nd_grad_scaler_destroy(nd_grad_scaler *s);
/** *out = loss * scale (an nd_multiply by the current scale, in loss's
 *  dtype: scale the loss, or the gradient of the loss, before backward). */
ND_API nd_status nd_grad_scaler_scale(nd_array **out, const nd_grad_scaler *s, const nd_array *loss);
/** Unscale the gradients in place (nd_amp_unscale_check with 1/scale)
 *  and remember whether any was inf/NaN (also in *found_inf, which may be
 *  NULL). Call at most once per step (ND_ERR_INVALID "unscale() has
 *  already been called on this scaler since the last update()"). */
ND_API nd_status nd_grad_scaler_unscale(nd_grad_scaler *s, nd_array *const *grads, int n, bool *found_inf);
/** Whether the optimiser step should run: false when this step's
 *  gradients had an inf/NaN (the step is skipped, as GradScaler.step). */
ND_API bool nd_grad_scaler_should_step(const nd_grad_scaler *s);
/** End the step (GradScaler.update): found_inf (or'ed with what unscale
 *  found) backs the scale off and resets the growth count; otherwise the
 *  count grows and, at growth_interval, the scale grows (when the grown
 *  scale is finite) and the count resets. Counts skipped steps. */
ND_API nd_status nd_grad_scaler_update(nd_grad_scaler *s, bool found_inf);
/** The current scale (1 when disabled or s is NULL). */
ND_API double nd_grad_scaler_get_scale(const nd_grad_scaler *s);
/** Set the scale (> 0, finite), as GradScaler.update(new_scale). */
ND_API nd_status nd_grad_scaler_set_scale(nd_grad_scaler *s, double scale);
/** The scaler's state: growth count (finite steps since the last change)
 *  and steps skipped so far; either pointer may be NULL. */
ND_API void nd_grad_scaler_get_state(const nd_grad_scaler *s, int64_t *growth_tracker, int64_t *skipped_steps);

/* ------------------------------------------------------------------ */
/* FFT (numpy.fft)                                                     */
/* ------------------------------------------------------------------ */
/*
 * numpy.fft's functions, named nd_ + NumPy's name, on both backends (CPU:
 * the library's own Stockham/Bluestein engine, src/cpu/fft_core.h; CUDA:
 * cuFFT with a plan cache). Any length (not only powers of two), any
 * layout, batched over every axis that is not transformed.
 *
 * dtypes (NumPy 2): float32, float16, bfloat16 and complex64 compute in
 * single precision and give complex64 (the rfft family: complex64; irfft, irfftn and hfft:
 * float32, but float16 / bfloat16 for a float16 / bfloat16 input to irfft,
 * hfft and a one-axis irfftn: NumPy 2 gives float16 for float16 there,
 * and float32 from irfftn/irfft2 over two or more axes, whose first steps
 * make complex64); float64, complex128, bool and integers give
 * complex128 / float64. rfft, rfft2, rfftn and ihfft refuse complex input
 * (ND_ERR_DTYPE, as NumPy's TypeError).
 *
 * n (1-D) / s (n-D): the length(s) of the transformed axis (axes) in the
 * input the transform sees: the input is cropped or zero-padded to it.
 * -1 (1-D) or s = NULL takes the input's extent (irfft/hfft: 2 (m - 1)
 * for an input extent m; irfftn: the last axis 2 (m - 1)); an entry
 * s[i] = -1 takes the input's extent along that axis, irfftn's last axis
 * included (NumPy 2). n < 1 is ND_ERR_INVALID ("Invalid number of FFT
 * data points").
 *
 * axis: negative counts from the end. The n-D functions take naxes axes
 * (axes = NULL: the last naxes axes; naxes = -1 with axes = NULL: every
 * axis, fftn's default); nd_fft2/nd_ifft2/nd_rfft2/nd_irfft2 are the n-D
 * forms with naxes = 2 and axes (-2, -1) by default. A repeated axis is
 * transformed twice, as NumPy does.
 *
 * norm: ND_FFT_BACKWARD (NumPy's default: the inverse transforms scale by
 * 1/n), ND_FFT_ORTHO (1/sqrt(n) both ways), ND_FFT_FORWARD (the forward
 * transforms scale by 1/n).
 *
 * out: the usual out-pointer rule (*out NULL: a new C-contiguous array;
 * else the result shape on the same device, a dtype the result casts to
 * under same_kind). The result never aliases a.
 */
typedef enum nd_fft_norm { ND_FFT_BACKWARD = 0, ND_FFT_ORTHO = 1, ND_FFT_FORWARD = 2 } nd_fft_norm;

/** np.fft.fft: the 1-D discrete Fourier transform along axis. */
ND_API nd_status nd_fft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.ifft: its inverse. */
ND_API nd_status nd_ifft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.rfft: the transform of real input, n/2 + 1 outputs along axis. */
ND_API nd_status nd_rfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.irfft: the inverse of rfft: n real outputs (n = -1: 2 (m - 1)). */
ND_API nd_status nd_irfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.hfft: the transform of a Hermitian-symmetric signal given by
 *  its first half: n real outputs (n = -1: 2 (m - 1)). */
ND_API nd_status nd_hfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.ihfft: the inverse of hfft (real input, n/2 + 1 outputs). */
ND_API nd_status nd_ihfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.fftn over naxes axes (see above for s, axes, naxes = -1). */
ND_API nd_status nd_fftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes,
                         nd_fft_norm norm);
/** np.fft.ifftn. */
ND_API nd_status nd_ifftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes,
                          nd_fft_norm norm);
/** np.fft.rfftn: rfft over the last of the axes, fft over the others. */
ND_API nd_status nd_rfftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes,
                          nd_fft_norm norm);
/** np.fft.irfftn: ifft over all axes but the last, irfft over the last. */
ND_API nd_status nd_irfftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes,
                           nd_fft_norm norm);
/** np.fft.fft2: fftn over 2 axes (axes NULL: the last two; s NULL: their extents). */
ND_API nd_status nd_fft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm);
/** np.fft.ifft2. */
ND_API nd_status nd_ifft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm);
/** np.fft.rfft2. */
ND_API nd_status nd_rfft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm);
/** np.fft.irfft2. */
ND_API nd_status nd_irfft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm);
/** np.fft.fftfreq(n, d): the sample frequencies [0, 1, ..., -1] / (d n)
 *  as a new 1-D array of float dtype `dtype` on dev (n >= 1, d != 0). */
ND_API nd_status nd_fftfreq(nd_array **out, int64_t n, double d, nd_dtype dtype, nd_device dev);
/** np.fft.rfftfreq(n, d): [0, 1, ..., n/2] / (d n). */
ND_API nd_status nd_rfftfreq(nd_array **out, int64_t n, double d, nd_dtype dtype, nd_device dev);
/** np.fft.fftshift: roll each of the axes by extent/2 (naxes = -1, axes
 *  NULL: every axis, as does naxes = ndim with axes NULL), any dtype. */
ND_API nd_status nd_fftshift(nd_array **out, const nd_array *a, int naxes, const int *axes);
/** np.fft.ifftshift: its inverse (roll by -(extent/2)). */
ND_API nd_status nd_ifftshift(nd_array **out, const nd_array *a, int naxes, const int *axes);

/* ------------------------------------------------------------------ */
/* Linear algebra (numpy.linalg)                                       */
/* ------------------------------------------------------------------ */
/*
 * numpy.linalg on both backends: LAPACK (of the BLAS the build chose,
 * docs/blas.md) on the CPU, cuSOLVER on CUDA. Every function works on the last
 * two axes as matrices and is batched over the leading ones, which
 * broadcast between operands as NumPy's gufuncs do.
 *
 * dtypes: float32, float64, complex64, complex128 compute in their own
 * precision; float16/bfloat16 compute in float32 and give float32
 * (NumPy refuses float16: we follow CuPy and compute in float32); bool and
 * integers compute in float64. Results that NumPy gives real (singular
 * values, eigh's eigenvalues, norms, slogdet's logabsdet) are the real
 * dtype of that precision; eig/eigvals always give complex.
 *
 * Errors as NumPy's LinAlgError: ND_ERR_INVALID with "singular matrix"
 * (solve, inv: "nd_linalg_solve: singular matrix (batch 3)"), "matrix is
 * not positive definite" (cholesky), "SVD did not converge" /
 * "eigenvalues did not converge" (svd, eig, eigh, lstsq, pinv,
 * matrix_rank, cond with ord 2/-2/none); ND_ERR_SHAPE for a non-square
 * matrix where a square one is needed ("last 2 dimensions of the array
 * must be square") and fewer than 2 dimensions; ND_ERR_DTYPE for dtypes
 * outside the list above. Never a NaN result where NumPy raises. Empty
 * matrices give NumPy's results (det of 0x0 is 1, inv of 0x0 is 0x0).
 * Non-finite input, as NumPy: a NaN where an SVD is taken (svd, svdvals,
 * lstsq, pinv, matrix_rank, cond, the 2 / nuc norms) is "SVD did not
 * converge", any NaN or infinity in eig/eigvals "Array must not contain
 * infs or NaNs"; the other functions compute (NaN results).
 *
 * Results follow the usual out-pointer rule (*out NULL: a new array).
 */
/** np.linalg.solve(a, b): x with a @ x = b. a (..., n, n); b (..., n, k)
 *  or, NumPy 2, (n,) as a vector (then x is (..., n)). */
ND_API nd_status nd_linalg_solve(nd_array **out, const nd_array *a, const nd_array *b);
/** np.linalg.inv(a). */
ND_API nd_status nd_linalg_inv(nd_array **out, const nd_array *a);
/** np.linalg.det(a): shape (...) (0-d for one matrix). */
ND_API nd_status nd_linalg_det(nd_array **out, const nd_array *a);
/** np.linalg.slogdet(a): sign (a's dtype: +-1, 0 for singular, a unit
 *  complex number for complex a) and logabsdet (real; -inf for singular). */
ND_API nd_status nd_linalg_slogdet(nd_array **sign, nd_array **logabsdet, const nd_array *a);
/** np.linalg.cholesky(a, upper=upper): L with a = L L^H (upper: U = L^H,
 *  a = U^H U). Only the lower triangle of a is read (upper: the upper);
 *  NumPy's LinAlgError "Matrix is not positive definite" when a is not. */
ND_API nd_status nd_linalg_cholesky(nd_array **out, const nd_array *a, bool upper);
/** Modes of nd_linalg_qr (NumPy's mode=). */
typedef enum nd_linalg_qr_mode { ND_QR_REDUCED = 0, ND_QR_COMPLETE = 1, ND_QR_R = 2 } nd_linalg_qr_mode;
/** np.linalg.qr(a, mode): a (..., M, N) = Q R with K = min(M, N); reduced:
 *  Q (..., M, K), R (..., K, N); complete: Q (..., M, M), R (..., M, N);
 *  ND_QR_R: R only (q may be NULL and is not touched). */
ND_API nd_status nd_linalg_qr(nd_array **q, nd_array **r, const nd_array *a, nd_linalg_qr_mode mode);
/** np.linalg.svd(a, full_matrices): a = U diag(S) Vh, S real, descending;
 *  full_matrices: U (..., M, M), Vh (..., N, N); else U (..., M, K),
 *  Vh (..., K, N). */
ND_API nd_status nd_linalg_svd(nd_array **u, nd_array **s, nd_array **vh, const nd_array *a, bool full_matrices);
/** np.linalg.svdvals(a) (svd(a, compute_uv=False)): S (..., K). */
ND_API nd_status nd_linalg_svdvals(nd_array **s, const nd_array *a);
/** np.linalg.eigh(a, UPLO): eigenvalues w (real, ascending) and the
 *  eigenvectors as the columns of v, of the Hermitian (symmetric) a of
 *  which only the triangle uplo ('L' or 'U') is read. */
ND_API nd_status nd_linalg_eigh(nd_array **w, nd_array **v, const nd_array *a, char uplo);
/** np.linalg.eigvalsh(a, UPLO). */
ND_API nd_status nd_linalg_eigvalsh(nd_array **w, const nd_array *a, char uplo);
/** np.linalg.eig(a): the eigenvalues w (complex, in LAPACK's order) and
 *  the right eigenvectors as the columns of v (complex, each of unit
 *  2-norm with its largest component real). Always complex, where NumPy
 *  gives a real result when every eigenvalue is real (the array API's
 *  choice; a real result would make the dtype depend on values). */
ND_API nd_status nd_linalg_eig(nd_array **w, nd_array **v, const nd_array *a);
/** np.linalg.eigvals(a): as nd_linalg_eig without v. */
ND_API nd_status nd_linalg_eigvals(nd_array **w, const nd_array *a);
/** np.linalg.lstsq(a, b, rcond): a 2-D (M, N), b (M,) or (M, K): the x
 *  minimising |b - a x|_2 (minimum norm), residuals (the squared norms of
 *  b - a x per column: (K,) or (1,) for a 1-D b, and (0,) unless rank == N
 *  and M > N), the rank of a and its singular values s (min(M, N),).
 *  Singular values at most rcond * the largest count as zero; rcond < 0
 *  takes NumPy 2's default eps(dtype) * max(M, N). residuals, rank and s
 *  may be NULL. */
ND_API nd_status nd_linalg_lstsq(nd_array **x, nd_array **residuals, int64_t *rank, nd_array **s, const nd_array *a,
                                 const nd_array *b, double rcond);
/** np.linalg.pinv(a, rtol=rcond, hermitian): the Moore-Penrose
 *  pseudo-inverse; singular values at most rcond * the largest are
 *  dropped; rcond < 0 takes NumPy's default (1e-15). */
ND_API nd_status nd_linalg_pinv(nd_array **out, const nd_array *a, double rcond, bool hermitian);
/** np.linalg.matrix_rank(a, tol, hermitian): the number of singular
 *  values above tol (tol < 0: S.max * max(M, N) * eps, NumPy's default);
 *  int64 of shape (...); a 1-D a (or 0-d) is rank 1 unless all zero, as
 *  NumPy. */
ND_API nd_status nd_linalg_matrix_rank(nd_array **out, const nd_array *a, double tol, bool hermitian);

/** The ord of a norm: a number p (any real for vectors, INFINITY and
 *  -INFINITY included; 1, -1, 2, -2, INFINITY, -INFINITY for matrices), or
 *  one of NumPy's named ords. */
typedef enum nd_norm_kind { ND_NORM_DEFAULT = 0, ND_NORM_P = 1, ND_NORM_FRO = 2, ND_NORM_NUC = 3 } nd_norm_kind;
typedef struct nd_norm_ord {
    nd_norm_kind kind; /* DEFAULT: NumPy's ord=None; P: the number p; FRO: 'fro'; NUC: 'nuc' */
    double p;
} nd_norm_ord;
/** ord = p. */
static inline nd_norm_ord nd_norm_p(double p) { nd_norm_ord o; o.kind = ND_NORM_P; o.p = p; return o; }
/** ord = None, 'fro', 'nuc'. */
static inline nd_norm_ord nd_norm_named(nd_norm_kind kind) { nd_norm_ord o; o.kind = kind; o.p = 0; return o; }
/** np.linalg.norm(a, ord, axis, keepdims): naxes -1 with axes NULL is
 *  axis=None (ord DEFAULT: the 2-norm of the flattened a; else a must be
 *  1-D or 2-D); naxes 1 a vector norm, naxes 2 a matrix norm over those
 *  axes. Real result (float64 for integers). */
ND_API nd_status nd_linalg_norm(nd_array **out, const nd_array *a, nd_norm_ord ord, int naxes, const int *axes,
                                bool keepdims);
/** np.linalg.vector_norm(x, axis, keepdims, ord): ord any real or
 *  +-INFINITY (0 counts the nonzeros); naxes -1 (axes NULL) is every axis. */
ND_API nd_status nd_linalg_vector_norm(nd_array **out, const nd_array *a, double ord, int naxes, const int *axes,
                                       bool keepdims);
/** np.linalg.matrix_norm(x, keepdims, ord) over the last two axes (ord
 *  DEFAULT is 'fro'). */
ND_API nd_status nd_linalg_matrix_norm(nd_array **out, const nd_array *a, nd_norm_ord ord, bool keepdims);
/** np.linalg.cond(a, p): norm(a, p) * norm(inv(a), p); DEFAULT, 2 and -2
 *  from the singular values (inf for singular a, as NumPy). */
ND_API nd_status nd_linalg_cond(nd_array **out, const nd_array *a, nd_norm_ord ord);
/** np.linalg.matrix_power(a, n): n >= 0 by repeated squaring (n = 0: the
 *  identity), n < 0 the power of inv(a); integer a stays integer for
 *  n >= 0, as NumPy. */
ND_API nd_status nd_linalg_matrix_power(nd_array **out, const nd_array *a, int64_t n);
/** np.linalg.multi_dot(arrays): the product of n >= 2 arrays (the first
 *  may be 1-D: a row vector; the last 1-D: a column vector; the others
 *  2-D) in the cheapest order (the matrix-chain dynamic programme). */
ND_API nd_status nd_linalg_multi_dot(nd_array **out, int n, const nd_array *const *arrays);
/** np.linalg.cross(a, b, axis): the cross product of 3-vectors along axis
 *  (which must have extent 3 in both; the other axes broadcast). */
ND_API nd_status nd_linalg_cross(nd_array **out, const nd_array *a, const nd_array *b, int axis);
/** np.linalg.vecdot(a, b, axis): sum(conj(a) * b) along axis (the other
 *  axes broadcast; extents along axis must match). */
ND_API nd_status nd_linalg_vecdot(nd_array **out, const nd_array *a, const nd_array *b, int axis);
/** np.kron(a, b): the Kronecker product (ndim = max of the two; the
 *  shorter shape is padded with leading 1s). */
ND_API nd_status nd_kron(nd_array **out, const nd_array *a, const nd_array *b);

/* ------------------------------------------------------------------ */
/* Profiler                                                            */
/* ------------------------------------------------------------------ */
/*
 * An op-level profiler in the manner of torch.profiler. While it runs,
 * every public operation records an event: its name (the op-table name,
 * "add", "sum", "matmul", or the function's name without "nd_": "take",
 * "sort", "zeros"; transfers are "copy_h2d", "copy_d2h", "copy_d2d" or
 * "copy_h2h" with the bytes copied), its device and stream, the calling
 * thread, host wall time (total and self: total less the ops it called),
 * device time on a GPU, the input dtypes (and shapes when asked), the
 * bytes it read and wrote, FLOPs for matmul/gemm/dot, and the memory it
 * allocated and freed (when asked). Operations called by operations nest
 * (nd_unique -> sort -> ...), as aten ops do in PyTorch.
 *
 * Device time is the interval between two events recorded on the op's
 * stream when it starts and ends on the host: it includes every kernel
 * and copy the op queued and any idle gap of the stream inside it. The
 * events are read when the profiler stops (never a synchronisation per
 * op). CPU ops have no device time (-1).
 *
 * Recording is per thread (no lock is shared between threads while ops
 * run) and bounded: after cfg->max_events events the rest are counted as
 * dropped (nd_profiler_stats.dropped) and the profile goes on.
 *
 * ND_PROFILE=trace.json in the environment profiles a whole program
 * without changing it: the profiler starts when the library loads (all
 * recording on: shapes and memory) and the Chrome trace is written to
 * that path at exit; ND_PROFILE_TABLE=path (or "-" for stderr) also
 * writes the key-averages table there.
 *
 * Results stay readable after nd_profiler_stop until the next
 * nd_profiler_start; names and strings they give point into the
 * profiler's storage and are valid until then.
 */
/** What the profiler records (nd_profiler_config_init gives the defaults). */
typedef struct nd_profiler_config {
    bool record_shapes;  /* input shapes of every op (default false; PyTorch's record_shapes) */
    bool profile_memory; /* allocation and free events (default false; profile_memory) */
    bool cpu;            /* ops on the CPU (default true) */
    bool cuda;           /* ops on CUDA devices, with device time (default true) */
    int64_t max_events;  /* bound on the events kept, all threads together (default 1<<19) */
} nd_profiler_config;
/** Fill *cfg with the defaults (shapes and memory off, every device, 1<<19 events). */
ND_API void nd_profiler_config_init(nd_profiler_config *cfg);
/** Start profiling (cfg NULL = defaults), discarding the last profile's
 *  results. ND_ERR_INVALID when one is already running or max_events < 1. */
ND_API nd_status nd_profiler_start(const nd_profiler_config *cfg);
/** Stop the running profile: reads the device timings (waits for the
 *  profiled devices), closes ranges still open (counted in
 *  nd_profiler_stats.unclosed_ranges) and keeps the results.
 *  ND_ERR_INVALID when no session runs; ND_ERR_NOMEM when the event list
 *  cannot be allocated (the session still ends, with no events). */
ND_API nd_status nd_profiler_stop(void);
/** Whether the profiler is running. */
ND_API bool nd_profiler_is_running(void);

/** Open a user range on this thread (PyTorch's record_function): it
 *  appears as an event, nests, and in CUDA builds is also an NVTX range
 *  (Nsight Systems shows it). Works, and balances, with or without a
 *  running profile. ND_ERR_INVALID for a NULL name or more than 64
 *  ranges open on this thread. */
ND_API nd_status nd_range_push(const char *name);
/** Close this thread's innermost range. ND_ERR_INVALID (not a crash)
 *  when none is open. */
ND_API nd_status nd_range_pop(void);

/** What an event is. */
typedef enum {
    ND_PROFILER_OP = 0,   /* a public operation */
    ND_PROFILER_RANGE,    /* a user range (nd_range_push/pop) */
    ND_PROFILER_TRANSFER, /* a copy between host and device or between devices */
    ND_PROFILER_MEMORY    /* an allocation (bytes > 0) or free (bytes < 0) of an array buffer */
} nd_profiler_event_kind;

#define ND_PROFILER_MAX_INPUTS 4
/** One recorded event (nd_profiler_events). Times in nanoseconds from the profile's start. */
typedef struct nd_profiler_event {
    const char *name;
    nd_profiler_event_kind kind;
    int thread;      /* 0, 1, ... in the order threads first recorded */
    int depth;       /* nesting depth on its thread (0: called by the user) */
    int64_t parent;  /* index of the enclosing op or range in the event array, -1 none */
    nd_device device;
    int stream;      /* 0: the device's default stream; k: the k-th other stream seen on it */
    int64_t host_start_ns, host_ns, host_self_ns;
    int64_t device_start_ns, device_ns, device_self_ns; /* -1: no device time */
    int64_t bytes;   /* read + written (inputs and output); transfers: bytes copied; memory: +allocated / -freed */
    int64_t flops;   /* matmul, gemm, dot: 2*m*n*k per product; else 0 */
    int64_t mem_self_bytes;  /* allocated less freed by the op itself (profile_memory) */
    int64_t mem_in_use;      /* memory events: bytes of live array buffers on the device after it */
    int ninputs;             /* arrays recorded (at most ND_PROFILER_MAX_INPUTS) */
    nd_dtype dtypes[ND_PROFILER_MAX_INPUTS];
    int ndims[ND_PROFILER_MAX_INPUTS];                /* record_shapes; else 0 */
    const int64_t *shapes[ND_PROFILER_MAX_INPUTS];    /* record_shapes; else NULL */
    int out_dtype;           /* the result's nd_dtype; -1 when the op gave no array */
} nd_profiler_event;
/** The last profile's events, ordered by host start time (ties: the
 *  outer event first). ND_ERR_INVALID while the profiler runs or before
 *  the first one. */
ND_API nd_status nd_profiler_events(const nd_profiler_event **events, size_t *n);

/** Counts of the last (or running) profile. */
typedef struct nd_profiler_stats {
    int64_t events;          /* kept */
    int64_t dropped;         /* not kept: over max_events */
    int threads;             /* threads that recorded */
    int64_t unclosed_ranges; /* ranges still open at stop (closed there) */
    int64_t duration_ns;     /* start to stop */
} nd_profiler_stats;
/** Fill *s. ND_ERR_INVALID for NULL or before the first profile. */
ND_API nd_status nd_profiler_get_stats(nd_profiler_stats *s);

/** Key-averages columns to sort by (descending; NAME ascending). */
typedef enum {
    ND_PROFILER_SORT_HOST_TOTAL = 0,
    ND_PROFILER_SORT_HOST_SELF,
    ND_PROFILER_SORT_HOST_AVG,
    ND_PROFILER_SORT_DEVICE_TOTAL,
    ND_PROFILER_SORT_DEVICE_SELF,
    ND_PROFILER_SORT_DEVICE_AVG,
    ND_PROFILER_SORT_CALLS,
    ND_PROFILER_SORT_BYTES,
    ND_PROFILER_SORT_FLOPS,
    ND_PROFILER_SORT_MEMORY,
    ND_PROFILER_SORT_NAME,
    ND_PROFILER_SORT_COUNT_ /* number of columns, not a column */
} nd_profiler_sort;
/** How to build the key-averages table (zero-initialised = host total, all rows, by name). */
typedef struct nd_profiler_table_options {
    nd_profiler_sort sort_by;
    int row_limit;       /* 0: every row */
    bool group_by_shape; /* one row per (name, input shapes), as key_averages(group_by_input_shape=True) */
} nd_profiler_table_options;
/** One row of the key averages: the events of one name (and input shapes) added up. */
typedef struct nd_profiler_row {
    const char *name;
    const char *shapes;  /* "[[3, 4], [4]]" when grouped by shape, else "" */
    nd_profiler_event_kind kind;
    int64_t calls;
    int64_t host_total_ns, host_self_ns;
    int64_t device_total_ns, device_self_ns; /* -1: no device time */
    int64_t bytes, flops, mem_self_bytes;
} nd_profiler_row;
/** The key averages of the last profile, sorted and limited as opt says
 *  (NULL: defaults) into rows[0..cap) ; *nrows = how many there are (may
 *  exceed cap: call again with more room). Memory events are not rows.
 *  ND_ERR_INVALID for a bad sort column, a negative row_limit, a NULL
 *  nrows, while the profiler runs or before the first one. */
ND_API nd_status nd_profiler_key_averages(nd_profiler_row *rows, size_t cap, size_t *nrows,
                                          const nd_profiler_table_options *opt);
/** Write the key-averages table (PyTorch's key_averages().table()) to f.
 *  Errors as nd_profiler_key_averages; ND_ERR_IO when writing or flushing
 *  f fails (an unbuffered stream included). */
ND_API nd_status nd_profiler_print_table(FILE *f, const nd_profiler_table_options *opt);
/** The same table into buf (size bytes, always NUL-terminated when size
 *  > 0, as snprintf); *needed (optional) = the length it has, so a
 *  second call with needed + 1 bytes gets it whole. */
ND_API nd_status nd_profiler_table(char *buf, size_t size, size_t *needed, const nd_profiler_table_options *opt);
/** Write the last profile as a Chrome trace-event JSON file (opens in
 *  Perfetto, ui.perfetto.dev, and chrome://tracing): one row per host
 *  thread and per device stream, ops and ranges nested, transfers in
 *  their own category and colour, a memory counter per device.
 *  ND_ERR_IO when the file cannot be written (open, write, flush or
 *  close); a partial regular file is removed, a device or FIFO named as
 *  path (/dev/full) is left as it is. */
ND_API nd_status nd_profiler_export_chrome_trace(const char *path);
/** Write the last profile's key averages and stats as one JSON object
 *  (machine-readable summary). ND_ERR_IO as above. */
ND_API nd_status nd_profiler_export_json(const char *path, const nd_profiler_table_options *opt);

/* ------------------------------------------------------------------ */
/* Files (.npy) and zero-copy interop (DLPack)                         */
/* ------------------------------------------------------------------ */
/*
 * .npy files (NumPy's format, versions 1.0, 2.0 and 3.0).
 *
 * Saving always writes version 1.0 with exactly the header NumPy writes
 * (the dict text, the growth-axis spaces, padding to a multiple of 64
 * bytes, a final '\n'), in C order and little-endian, so a file is
 * byte-identical to np.save's. dtype descriptors: '|b1', '|i1', '|u1',
 * '<i2'..'<i8', '<u2'..'<u8', '<f2' (float16), '<f4', '<f8'.
 *
 * bfloat16: NumPy has no bfloat16. libndgpu saves it as '<V2' (two raw
 * bytes per element, the bfloat16 bit pattern little-endian), which is
 * exactly what np.save writes for an ml_dtypes.bfloat16 array (JAX,
 * TensorFlow). NumPy loads such a file as void2 without pickle; view it
 * with x.view(ml_dtypes.bfloat16) or x.view('<u2') (raw bits; the float32
 * value is (bits.astype('<u4') << 16).view('<f4')). On load, '<V2' and
 * '|V2' give bfloat16.
 *
 * Loading accepts: format 1.0/2.0/3.0 (3.0: UTF-8 header), any byte order
 * ('<', '>', '|', '=' or none; big-endian data is byte-swapped), C or
 * Fortran order (a Fortran-order file gives the same C-order array NumPy
 * shows), 0-d and zero-size arrays. Bool bytes other than 0/1 load as 1.
 * Bytes after the array data are ignored (as np.load does).
 *
 * The parser treats its input as hostile: the header may be at most
 * 10,000 bytes (NumPy's max_header_size), the magic string, version,
 * header length, padding (the header ends with '\n' after the dict) and
 * the dict syntax are checked, the dict must have exactly the keys
 * 'descr', 'fortran_order' and 'shape' (no duplicates), shape extents are
 * non-negative decimal integers, and the element count and byte count are
 * overflow-checked and compared with the file size before anything is
 * allocated. Errors: ND_ERR_IO for any malformed or truncated file and
 * for object (pickle) arrays ('|O'); ND_ERR_DTYPE for a well-formed dtype
 * libndgpu lacks (complex, strings, structured, ...); ND_ERR_IO also for
 * more than ND_MAX_DIMS dimensions. The message names the defect.
 */

/** Write a to path as a .npy file (format 1.0, C order). Any layout and
 *  device (the data is gathered with nd_copy_to_host). ND_ERR_IO when the
 *  file cannot be written (a partial regular file is removed; a device or
 *  FIFO named as path, such as /dev/full, is left as it is). */
ND_API nd_status nd_save_npy(const char *path, const nd_array *a);
/** Load a .npy file into a new C-contiguous array on dev (read on the
 *  host, then moved with nd_to_device). Follows the out rule: with
 *  *out != NULL the data is copied into *out, which must have the file's
 *  shape, live on dev and accept the file's dtype under "same_kind". */
ND_API nd_status nd_load_npy(nd_array **out, const char *path, nd_device dev);
/** Like nd_load_npy, from the size bytes of a .npy file in memory (the
 *  parser used by nd_load_npy; never reads outside [data, data + size)). */
ND_API nd_status nd_load_npy_buffer(nd_array **out, const void *data, size_t size, nd_device dev);

/*
 * DLPack (https://dmlc.github.io/dlpack): the structs below are those of
 * dlpack.h 1.1, under dlpack.h's own include guard, so including
 * <dlpack/dlpack.h> before or after ndgpu.h gives one definition (include
 * dlpack.h first if you need a newer one's additions).
 *
 * Export (nd_to_dlpack, nd_to_dlpack_legacy): the tensor shares a's
 * memory and holds a reference to a (manager_ctx); calling its deleter
 * once releases that reference (the memory lives until both the tensor
 * and every libndgpu reference are gone). data points at element
 * [0,...,0] and byte_offset is 0; shape and strides (in elements, never
 * NULL) live inside the tensor's allocation. dtypes: bool -> kDLBool/8,
 * intN -> kDLInt/N, uintN -> kDLUInt/N, float16 -> kDLFloat/16, bfloat16
 * -> kDLBfloat/16, float32/64 -> kDLFloat/32/64; lanes 1. Devices: CPU ->
 * kDLCPU (kDLCUDAHost when a is in pinned memory), cuda:N -> kDLCUDA/N.
 * flags: DLPACK_FLAG_BITMASK_READ_ONLY is set only for broadcast views
 * (an axis of stride 0 and extent > 1), else 0.
 *
 * Import (nd_from_dlpack, nd_from_dlpack_legacy): on success libndgpu owns
 * t: the new array shares t's memory (no copy) and t's deleter is called
 * when the last reference to that memory goes (with *out != NULL the data
 * is copied into *out and the deleter is called before returning). On
 * failure t is NOT consumed: its owner must still call its deleter. Every
 * field is validated: NULL pointers, major version (must be 1), ndim in
 * [0, ND_MAX_DIMS], non-negative shapes, overflow of sizes and strides
 * (also for an empty tensor: a stride whose span over its axis, an axis of
 * extent > 1, does not fit int64 bytes is refused, as slicing never makes
 * one),
 * dtypes (lanes must be 1; codes/bits as above else ND_ERR_DTYPE),
 * devices (kDLCPU id 0, kDLCUDAHost -> a pinned CPU array, kDLCUDA and
 * kDLCUDAManaged -> cuda:N, which needs a CUDA build and a GPU; others
 * ND_ERR_DEVICE). strides == NULL means C-contiguous; byte_offset is
 * honoured. A CUDA tensor (kDLCUDA, kDLCUDAManaged) whose first element,
 * data + byte_offset, is not aligned to the element size (16 bytes for
 * complex128) is refused with ND_ERR_INVALID: the kernels load whole
 * elements, and a misaligned load would fault on the device; no copy is
 * made, because an import shares the producer's memory. A READ_ONLY tensor (versioned import) becomes a read-only array:
 * it and its views are refused (ND_ERR_INVALID) as an out= argument, as
 * nd_gemm's c and by nd_copy_from_host (copy it with nd_copy to write).
 *
 * Streams: CPU tensors have none. For CUDA tensors libndgpu follows the
 * DLPack protocol: an exported tensor is ready once the work queued on
 * the exporting thread's current stream (nd_set_stream) completes; the
 * consumer must synchronise with that stream (or call nd_synchronize)
 * before reading. An imported CUDA tensor must be ready for use on the
 * importing thread's current stream (the producer synchronised, as the
 * Python __dlpack__(stream=...) protocol arranges).
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_
#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1
#define DLPACK_DLL

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17
} DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,
    kDLOpaqueHandle = 3U,
    kDLBfloat = 4U,
    kDLComplex = 5U,
    kDLBool = 6U,
    kDLFloat8_e3m4 = 7U,
    kDLFloat8_e4m3 = 8U,
    kDLFloat8_e4m3b11fnuz = 9U,
    kDLFloat8_e4m3fn = 10U,
    kDLFloat8_e4m3fnuz = 11U,
    kDLFloat8_e5m2 = 12U,
    kDLFloat8_e5m2fnuz = 13U,
    kDLFloat8_e8m0fnu = 14U,
    kDLFloat6_e2m3fn = 15U,
    kDLFloat6_e3m2fn = 16U,
    kDLFloat4_e2m1fn = 17U
} DLDataTypeCode;

typedef struct {
    uint8_t code;   /* a DLDataTypeCode */
    uint8_t bits;   /* bits per lane */
    uint16_t lanes; /* vector lanes (1 for scalars) */
} DLDataType;

typedef struct {
    void *data;           /* base pointer (device pointer for GPUs) */
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;       /* ndim extents */
    int64_t *strides;     /* ndim strides in elements, or NULL (C order) */
    uint64_t byte_offset; /* bytes from data to element [0,...,0] */
} DLTensor;

/* Legacy (pre-1.0) managed tensor, Python capsule name "dltensor". */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* Versioned managed tensor (DLPack >= 1.0), capsule name "dltensor_versioned". */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;
#endif /* DLPACK_DLPACK_H_ */

/** Export a as a DLPack 1.x tensor sharing a's memory (see above). The
 *  caller (consumer) must call (*out)->deleter(*out) exactly once. */
ND_API nd_status nd_to_dlpack(DLManagedTensorVersioned **out, nd_array *a);
/** Export a as a legacy (pre-1.0) DLManagedTensor. */
ND_API nd_status nd_to_dlpack_legacy(DLManagedTensor **out, nd_array *a);
/** Import t without a copy (see above); consumes t only on success. */
ND_API nd_status nd_from_dlpack(nd_array **out, DLManagedTensorVersioned *t);
/** Import a legacy DLManagedTensor; consumes t only on success. */
ND_API nd_status nd_from_dlpack_legacy(nd_array **out, DLManagedTensor *t);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_H */
