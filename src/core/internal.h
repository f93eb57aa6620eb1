/*
 * libndgpu internals shared by the core and the backends. Never included
 * by include/ndgpu.h.
 *
 * Division of labour:
 *  - the core (the .c files in src/) validates arguments, computes result shapes and
 *    dtypes, casts inputs to the loop dtype, allocates outputs and then
 *    calls the backend of the arrays' device through nd_backend;
 *  - a backend (src/cpu, src/cuda) never validates user input and never
 *    sets a user-facing error except for resource failures (NOMEM, BACKEND).
 */
#ifndef ND_INTERNAL_H
#define ND_INTERNAL_H

#include "ndgpu.h"
#include "core/alloc.h" /* nd__malloc & co: the one allocator door */
#include "shared/dtype.h" /* the dtype table and its inline facts; ND_INTERNAL, ND_LIKELY */

#include <stdarg.h>
#ifdef __cplusplus
/* nvcc compiles the CUDA backend as C++: same layout, C++ spelling. */
#include <atomic>
typedef std::atomic<long> nd_atomic_long;
#else
#include <stdatomic.h>
typedef atomic_long nd_atomic_long;
#endif

#ifdef __cplusplus
extern "C" { /* the CUDA backend (C++) calls the core's C functions */
#endif


/* ------------------------------------------------------------------ */
/* Errors (src/core/error.c)                                                */
/* ------------------------------------------------------------------ */
/* Set the thread-local message "func: <formatted>" and return code. */
ND_INTERNAL nd_status nd__err(nd_status code, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Clear the thread-local message (called on success paths where useful). */
ND_INTERNAL void nd__clear_error(void);
/* Prefix the current message with "func: " (used when an inner helper
 * failed on behalf of a public function). Returns code. */
ND_INTERNAL nd_status nd__err_prefix(nd_status code, const char *func);
/* Format a shape as "(3,4)" into buf (returns buf). */
ND_INTERNAL char *nd__fmt_shape(char *buf, size_t cap, int ndim, const int64_t *shape);

#define ND_CHECK_PTR(func, p, name) \
    do { if (ND_UNLIKELY((p) == NULL)) return nd__err(ND_ERR_INVALID, func, "argument '%s' is NULL", name); } while (0)

/* ------------------------------------------------------------------ */
/* dtypes (src/core/dtype.c)                                                */
/* ------------------------------------------------------------------ */
/* The kinds and the inline per-dtype facts: src/shared/dtype.h (both
 * backends compile them). */
/* The smallest float dtype that holds every value of t (NumPy's rule for
 * float ufuncs: bool/int8/uint8 -> float16, 16-bit -> float32, wider ->
 * float64; floats are unchanged). */
ND_INTERNAL nd_dtype nd__float_for(nd_dtype t);
/* Promotion of an array dtype with a weak scalar of kind k (NEP 50). */
ND_INTERNAL nd_dtype nd__promote_weak(nd_dtype t, nd_scalar_kind k);
/* Whether scalar s is representable in integer dtype t (for weak ints). */
ND_INTERNAL bool nd__scalar_fits(nd_scalar s, nd_dtype t);
/* Write s converted to dtype t into dst (one element; ints wrap, floats
 * round to nearest even for half types). */
ND_INTERNAL void nd__scalar_store(void *dst, nd_dtype t, nd_scalar s);
/* Read one element of dtype t as double / as int64 (for tests, fills). */
ND_INTERNAL double nd__load_f64(const void *src, nd_dtype t);
/* Largest finite value of float dtype t (from the dtype table). */
ND_INTERNAL double nd__dtype_max(nd_dtype t);

/* ------------------------------------------------------------------ */
/* Buffers and arrays (src/core/array.c)                                    */
/* ------------------------------------------------------------------ */
typedef struct nd_buffer {
    nd_atomic_long refcount;
    void *ptr;          /* base of the allocation */
    size_t nbytes;
    nd_device device;
    bool pinned;        /* page-locked host memory */
    bool managed;       /* managed memory of `device` (freed by its backend's managed_free) */
    /* Made during a recorded graph capture (src/core/graph.c): its memory
     * stays with the graph until the graph is destroyed. */
    struct nd_graph_mem *gmem;
    bool owns;          /* free ptr with the backend on last release */
    /* Optional custom release (imported memory, e.g. DLPack): called with
     * ctx instead of the backend free when non-NULL. */
    void (*release)(void *ctx);
    void *ctx;
} nd_buffer;

struct nd_array {
    nd_atomic_long refcount;
    nd_dtype dtype;
    int ndim;
    int64_t shape[ND_MAX_DIMS];
    int64_t strides[ND_MAX_DIMS]; /* in elements */
    int64_t offset;               /* bytes from buf->ptr to element 0 */
    int64_t size;                 /* product of shape */
    nd_device device;
    bool readonly;                /* refused as a destination (a read-only DLPack import and its views) */
    nd_buffer *buf;               /* never NULL */
};

/* Validate ndim/shape and compute size with overflow checks (also
 * checks size * itemsize fits in int64). func names the caller. */
ND_INTERNAL nd_status nd__check_shape(const char *func, int ndim, const int64_t *shape, nd_dtype dtype, int64_t *size);
/* nd__check_device (validate a device) lives with the registry: src/core/backend.h. */
/* Allocate a new C-contiguous array (no user validation beyond overflow). */
ND_INTERNAL nd_status nd__alloc(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev);
/* Recorded graph captures (src/core/graph.c): a buffer allocated by the
 * calling thread while it records a capture of the buffer's device joins
 * the capture's memory (b->gmem); at its last release, keep returns true
 * when the graph still replays into it (the graph frees it when destroyed)
 * and false when the memory can go now. */
ND_INTERNAL void nd__graph_mem_adopt(nd_buffer *b);
ND_INTERNAL bool nd__graph_mem_keep(nd_buffer *b);
/* nd__alloc in dev's managed memory (its backend has managed_alloc). */
ND_INTERNAL nd_status nd__alloc_managed(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev);
/* New header sharing a's buffer with the given geometry (a view). */
ND_INTERNAL nd_status nd__view(nd_array **out, const nd_array *a, nd_dtype dtype, int ndim, const int64_t *shape,
                               const int64_t *strides, int64_t offset);
/* nd__view of a's dtype for a shape that cannot hold more than a does:
 * each extent at most one of a's (a slice, an integer index, a transpose,
 * a dropped or inserted extent-1 axis), so that the product of the
 * non-zero extents is at most a's and nd__check_shape cannot fail; it is
 * skipped (a view on the indexing path costs one header). */
ND_INTERNAL nd_status nd__subview(nd_array **out, const nd_array *a, int ndim, const int64_t *shape,
                                  const int64_t *strides, int64_t offset);
/* Array header over memory the library does not own (e.g. a user's
 * host buffer): C-contiguous, freed by nobody. */
ND_INTERNAL nd_status nd__wrap(nd_array **out, void *ptr, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev);
/* Fill C-contiguous strides for shape. */
ND_INTERNAL void nd__contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);
static inline char *nd__ptr(const nd_array *a) { return (char *)a->buf->ptr + a->offset; }
/* ND_ERR_DTYPE "<func>: '<name>' is complex64; <func> has no complex
 * implementation" when a (may be NULL) has a complex dtype: the guard of
 * every function that does not (yet) take complex input, so
 * that complex data never reaches a backend loop that lacks it. */
ND_INTERNAL nd_status nd__no_complex(const char *func, const nd_array *a, const char *name);
static inline bool nd__same_device(nd_device x, nd_device y) { return x.type == y.type && x.id == y.id; }
/* Whether a and b may share memory (same buffer and overlapping byte
 * ranges; conservative). */
ND_INTERNAL bool nd__may_overlap(const nd_array *a, const nd_array *b);
/* Whether a and b describe exactly the same elements (same buffer,
 * offset, dtype, shape and strides). */
ND_INTERNAL bool nd__same_view(const nd_array *a, const nd_array *b);

/* Broadcast two shapes (NumPy rules); ND_ERR_SHAPE with a message naming
 * func on failure. out_shape has room for ND_MAX_DIMS. */
ND_INTERNAL nd_status nd__broadcast_shapes(const char *func, int nd1, const int64_t *s1, int nd2, const int64_t *s2,
                                           int *out_ndim, int64_t *out_shape);
/* View of a broadcast to (ndim, shape) with stride-0 axes (no checks
 * beyond compatibility). */
ND_INTERNAL nd_status nd__broadcast_view(nd_array **out, const nd_array *a, int ndim, const int64_t *shape);

/* The out-pointer rule lives in src/core/out.h (the out-transaction). */
/* nd__device_name ("cpu:0" in messages) lives with the registry: src/core/backend.h. */
/* Strides of axes of extent 0 or 1 never address memory; one whose byte
 * stride would not fit int64 (a slice step near INT64_MIN, a hostile
 * DLPack import) is stored as 0, so that no stride * itemsize overflows. */
ND_INTERNAL void nd__normalize_strides(int ndim, const int64_t *shape, int64_t *strides, nd_dtype dtype);

/* Cast/copy src into dst (same shape, or src broadcastable to dst's
 * shape; any dtypes; same device; any strides). Handles overlap by
 * copying through a temporary. Implemented in src/core/copy.c. */
ND_INTERNAL nd_status nd__copy_into(nd_array *dst, const nd_array *src);
/* a (cast to dtype) copied into a new C-contiguous array *res. */
ND_INTERNAL nd_status nd__copy_new(nd_array **res, const nd_array *a, nd_dtype dtype);
/* a cast to dtype as a new C-contiguous array, or a new reference to a
 * itself when it already has that dtype. */
ND_INTERNAL nd_status nd__as_dtype(nd_array **out, const nd_array *a, nd_dtype dtype);
/* 0-d array of dtype holding scalar s on dev. */
ND_INTERNAL nd_status nd__scalar_array(nd_array **out, nd_scalar s, nd_dtype dtype, nd_device dev);

/* ------------------------------------------------------------------ */
/* Iteration-space simplification (src/core/iter.c), used by every backend  */
/* ------------------------------------------------------------------ */
#define ND_ITER_MAX_OPS 4
typedef struct nd_iter {
    int nops;
    int ndim;                                  /* >= 1 after simplification */
    int64_t size;                              /* total number of elements */
    int64_t shape[ND_MAX_DIMS];                /* innermost axis LAST */
    int64_t strides[ND_ITER_MAX_OPS][ND_MAX_DIMS]; /* BYTE strides */
    char *data[ND_ITER_MAX_OPS];
    size_t itemsize[ND_ITER_MAX_OPS];
} nd_iter;

/* Build an iteration over ops[0..nops) that all have shape (ndim, shape)
 * (broadcast operands must already be broadcast views with stride 0):
 * drops size-1 axes, orders axes by the strides of ops[0] (the output),
 * merges axes contiguous for all operands. A 0-d iteration becomes one
 * axis of extent 1. Operand 0 is the output. */
ND_INTERNAL void nd__iter_init(nd_iter *it, int nops, const nd_array *const *ops);
/* Whether every operand is contiguous in the (single) merged axis with
 * stride == itemsize (or 0 for broadcast scalars). */
ND_INTERNAL bool nd__iter_is_flat(const nd_iter *it);


/* A 1-D strided inner loop, NumPy style: args[k] points at operand k's
 * first element, steps[k] is its byte stride, n the count. */
typedef void (*nd_loop_fn)(char **args, const int64_t *steps, int64_t n, const void *ctx);

/* After a failed write to path: remove what the writer left there, but only
 * a regular file; a device (/dev/full), a FIFO or a symbolic link the
 * caller named stays. Every file writer of the library uses it (.npy files in
 * src/io/npy.c, the profiler's reports in src/prof/report.c); core/error.c. */
ND_INTERNAL void nd__remove_failed_output(const char *path);

/* ------------------------------------------------------------------ */
/* Backends: the interface, the registry, nd__backend (src/core/backend.h)  */
/* ------------------------------------------------------------------ */
#include "core/backend.h"

/* Streams (src/core/stream.c): the calling thread's current stream handle on
 * dev (a cudaStream_t for CUDA; NULL = the default stream). */
ND_INTERNAL void *nd__current_stream(nd_device dev);
/* Make stream (NULL: the default) the calling thread's current stream of
 * dev only (core/stream.c; nd_set_stream(NULL) resets every device). */
ND_INTERNAL void nd__set_current_stream(nd_device dev, nd_stream *stream);
/* nd__check_device, and dev's id within the devices of a type the
 * library tracks streams for (core/stream.c). */
ND_INTERNAL nd_status nd__stream_check_device(const char *fn, nd_device dev);
/* The host allocator used for pinned memory: cudaHostAlloc through a pool
 * when a GPU is usable, ordinary memory otherwise (src/core/runtime.c). Sets
 * *pinned to whether the memory is page-locked. */
ND_INTERNAL nd_status nd__host_pinned_alloc(size_t nbytes, void **ptr, bool *pinned, const char *func);
ND_INTERNAL bool nd__host_pinned_free(void *ptr);
/* Work queued on stream (a cudaStream_t of CUDA device dev) uses the pinned
 * block at ptr (a pointer nd__host_pinned_alloc gave): when it is freed,
 * the block returns to the pool only after that work (CuPy's pinned pool).
 * Other pointers are ignored. */
ND_INTERNAL void nd__host_pinned_record_stream(void *ptr, void *stream, int dev);
/* ND_MEMORY_FRACTION as a number in (0, 1]; false when unset or malformed
 * (src/core/runtime.c; the backends apply it when a device's allocator is
 * made). */
ND_INTERNAL bool nd__env_memory_fraction(double *fraction);
/* The handle of a stream (a cudaStream_t; NULL for CPU streams), for the
 * backend and white-box tests (src/core/runtime.c). */
ND_INTERNAL void *nd__stream_handle(const nd_stream *s);
/* White-box test hooks of the pinned pool (src/core/runtime.c): a limit on the
 * bytes it may hold (0 = none; makes the staging of pageable copies fail
 * on purpose), and returning its wholly free segments. */
ND_INTERNAL void nd__host_pinned_set_limit(size_t bytes);
ND_INTERNAL void nd__host_pinned_release_cached(void);

/* Matmul precision switch (src/linalg/linalg.c): whether float32 matmul may use
 * TF32 tensor cores on the GPU (nd_set_matmul_tf32). */
ND_INTERNAL bool nd__matmul_tf32(void);

/* Threads (src/cpu/threads.c) */
ND_INTERNAL int nd__num_threads(void);

#ifdef __cplusplus
}
#endif
#endif /* ND_INTERNAL_H */
