/*
 * libndgpu: the runtime - memory pools and their statistics, streams and
 * events, pinned (page-locked) host memory and asynchronous copies.
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_RUNTIME_H
#define NDGPU_RUNTIME_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Memory: pools and statistics                                        */
/* ------------------------------------------------------------------ */
/* CUDA devices allocate through a caching pool (512-byte rounding, best
 * fit, split and merge; freed blocks are reused by later allocations on
 * the same stream). The CPU allocates with aligned_alloc (64-byte aligned;
 * from 4 MiB on 2 MiB aligned, with transparent huge pages) and keeps the
 * same accounting; it keeps freed blocks of 4 MiB and more for the next
 * array of the same size (rounded to 2 MiB), because a fresh block of that
 * size costs the kernel's zeroing of every page, and blocks of 1 to 4 MiB
 * (rounded to 64 KiB), whose return to glibc costs a merge of its small
 * free chunks: at most 16 blocks and
 * 1/16 of the physical memory (at most 4 GiB), the oldest given up first,
 * within the limit, returned by nd_memory_release_cached (cached counts
 * them). Environment ND_POOL selects the allocator when a device is first
 * used:
 *   (unset)  the caching pool;
 *   async    CUDA's stream-ordered pool (cudaMallocFromPoolAsync and
 *            cudaFreeAsync on a pool of the library's own, which keeps
 *            freed memory for reuse until nd_memory_release_cached):
 *            the same statistics, limits and stream safety; a device
 *            without memory pools keeps the caching pool (stats.kind says
 *            which serves);
 *   0        no pool: every array is a cudaMalloc/cudaHostAlloc, so that
 *            compute-sanitizer and valgrind see every allocation.
 * Environment ND_MEMORY_FRACTION=f (0 < f <= 1) caps every CUDA device's
 * allocator at f of the device's memory from its first use, as
 * nd_memory_set_fraction does (a malformed value is ignored). */
typedef struct nd_stream nd_stream; /* below: streams and events */
typedef struct nd_event nd_event;

/* Which allocator serves a device (nd_memory_stats.kind). */
typedef enum nd_pool_kind {
    ND_POOL_KIND_NONE = 0,    /* no pool: every array is its own allocation (ND_POOL=0) */
    ND_POOL_KIND_CACHING = 1, /* the library's caching pool (the default; on the CPU: large blocks kept) */
    ND_POOL_KIND_ASYNC = 2    /* CUDA's stream-ordered pool, cudaMallocAsync (ND_POOL=async) */
} nd_pool_kind;

typedef struct nd_memory_stats {
    size_t in_use;             /* bytes held by live arrays */
    size_t peak_in_use;        /* high-water mark since the last reset */
    size_t cached;             /* bytes held by the pool but free */
    size_t reserved;           /* in_use + cached */
    size_t limit;              /* 0 = none */
    size_t largest_free_block; /* largest cached block (fragmentation) */
    uint64_t device_allocs;    /* allocations made from the system/driver */
    uint64_t allocs;           /* allocations served */
    bool pooled;               /* false when the pool is bypassed (ND_POOL=0; the CPU under ASan) */
    nd_pool_kind kind;         /* the allocator that serves the device */
} nd_memory_stats;
/** Statistics of dev's allocator. ND_ERR_INVALID (NULL), device errors as
 *  for nd_empty. */
ND_API nd_status nd_memory_get_stats(nd_memory_stats *stats, nd_device dev);
/** Return dev's cached, unused memory to the system (synchronises dev). */
ND_API nd_status nd_memory_release_cached(nd_device dev);
/** Cap the bytes dev's allocator may hold (0 = no limit). Allocations
 *  beyond it fail with ND_ERR_NOMEM after the cache has been released. */
ND_API nd_status nd_memory_set_limit(nd_device dev, size_t bytes);
/** Cap dev's allocator at fraction (0 < fraction <= 1) of the device's
 *  total memory (nd_device_info.total_memory), rounded down to whole
 *  bytes: nd_memory_set_limit(dev, fraction * total), as PyTorch's
 *  torch.cuda.set_per_process_memory_fraction. ND_ERR_INVALID for a
 *  fraction outside (0, 1] or NaN; nd_memory_set_limit(dev, 0) lifts it. */
ND_API nd_status nd_memory_set_fraction(nd_device dev, double fraction);
/** Restart peak_in_use from the current in_use. */
ND_API nd_status nd_memory_reset_peak(nd_device dev);
/** Serve dev from allocator kind from now on, as ND_POOL does at a
 *  device's first use (ND_POOL_KIND_CACHING, _ASYNC or _NONE), keeping its
 *  limit: its cached memory is released first. Call it while no other
 *  thread uses the device. ND_ERR_INVALID while arrays allocated on a GPU
 *  are alive (in_use > 0; the CPU switches at any time: both its
 *  allocators take blocks from the C library) or for an unknown kind;
 *  ND_ERR_UNSUPPORTED for a kind the device lacks (the CPU has no
 *  ND_POOL_KIND_ASYNC, nor a GPU without memory pools). */
ND_API nd_status nd_memory_set_pool(nd_device dev, nd_pool_kind kind);

/* ------------------------------------------------------------------ */
/* Managed (unified) memory                                            */
/* ------------------------------------------------------------------ */
/* Managed memory (cudaMallocManaged) is addressable from the host and from
 * every GPU; pages migrate to where they are touched, and nd_prefetch moves
 * them ahead of time. It is not from the pool: each managed array is its
 * own allocation, released when its last reference goes (it does not count
 * in nd_memory_get_stats). Working sets larger than the GPU's memory fit
 * (oversubscription), and on systems with a coherent CPU-GPU link
 * (Grace-Hopper) the CPU reads it in place. */
/** A new array in managed memory of device dev (a CUDA device). For dev =
 *  the CPU it is an ordinary CPU array (nd_is_managed says false), so one
 *  program runs on machines with and without a GPU. Errors as nd_empty;
 *  ND_ERR_UNSUPPORTED when the GPU cannot allocate managed memory. */
ND_API nd_status nd_empty_managed(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev);
/** Whether a's memory is managed memory (false for NULL). */
ND_API bool nd_is_managed(const nd_array *a);
/** A view of a on device dev sharing a's memory, with no copy: operations
 *  on the view run on dev's backend. Allowed when dev is a's own device
 *  (a plain view) or when a is in managed memory (any CUDA device, or the
 *  CPU: the CPU backend then computes on the managed memory in place).
 *  Work queued on the GPU must be finished (nd_synchronize) before the
 *  CPU touches the memory, and the reverse holds as on any device: the
 *  library does not order work across devices for you.
 *  ND_ERR_DEVICE when a is not managed and dev is another device (copy it
 *  with nd_to_device instead). */
ND_API nd_status nd_managed_view(nd_array **out, const nd_array *a, nd_device dev);
/** Start moving a's pages to device dev (a CUDA device, or the CPU) on
 *  stream (NULL = the current stream of a's device), as
 *  cudaMemPrefetchAsync: later work on that stream finds them there. A
 *  managed array only (ND_ERR_INVALID otherwise), except that prefetching
 *  any array to its own device is a no-op that succeeds (so one program
 *  runs on the CPU too). */
ND_API nd_status nd_prefetch(const nd_array *a, nd_device dev, nd_stream *stream);
/** Advice for the pages of a managed array (cudaMemAdvise). */
typedef enum nd_mem_advice {
    ND_ADVISE_READ_MOSTLY = 1,               /* read-mostly: devices keep read copies */
    ND_ADVISE_UNSET_READ_MOSTLY = 2,
    ND_ADVISE_PREFERRED_LOCATION = 3,        /* keep the pages on dev, map them elsewhere */
    ND_ADVISE_UNSET_PREFERRED_LOCATION = 4,
    ND_ADVISE_ACCESSED_BY = 5,               /* dev maps the pages wherever they are */
    ND_ADVISE_UNSET_ACCESSED_BY = 6
} nd_mem_advice;
/** Give advice about a's pages relative to device dev (a CUDA device or the
 *  CPU). A managed array only (ND_ERR_INVALID otherwise, also for an
 *  unknown advice); for a CPU array it is a no-op that succeeds. */
ND_API nd_status nd_memory_advise(const nd_array *a, nd_mem_advice advice, nd_device dev);

/* ------------------------------------------------------------------ */
/* Streams and events                                                  */
/* ------------------------------------------------------------------ */
/* Every operation runs on the calling thread's current stream of the
 * array's device. The default is the device's legacy default stream (all
 * work on a device is ordered). CPU streams and events exist too: CPU work
 * is synchronous, so they only order trivially, and CPU events time with
 * the host clock, so event timing code runs unchanged on the CPU. */
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
/** An nd_stream over a stream you created (a cudaStream_t of CUDA device
 *  dev; for the CPU, native must be NULL): the library's work can then be
 *  queued on it (nd_set_stream) and ordered with it by events, and the
 *  memory pool fences it like its own streams. The library never destroys
 *  the native stream: nd_stream_destroy waits for its work and forgets it.
 *  Keep the native stream alive until then. ND_ERR_INVALID for a NULL
 *  native handle of a CUDA device (the default stream needs no wrapper:
 *  NULL is it) and a non-NULL one of the CPU. */
ND_API nd_status nd_stream_wrap(nd_stream **stream, nd_device dev, void *native);
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
/** Make the work queued on stream from now on wait until the work the
 *  event recorded is done, without blocking the host (cudaStreamWaitEvent):
 *  the way to order work across streams, also between two GPUs or with
 *  your own CUDA streams' events. stream NULL = the calling thread's
 *  current stream of the event's device. A stream of a synchronous device
 *  (the CPU) waits on the host, now. ND_ERR_INVALID for a NULL or never
 *  recorded event. */
ND_API nd_status nd_stream_wait_event(nd_stream *stream, nd_event *event);
/** Milliseconds between two recorded events of the same device. */
ND_API nd_status nd_event_elapsed_ms(float *ms, nd_event *start, nd_event *end);
/** Destroy an event (NULL is fine). */
ND_API nd_status nd_event_destroy(nd_event *event);
/** The backend's native handle of an event (a cudaEvent_t for a CUDA
 *  event; NULL for NULL and for CPU events), so your own streams can wait
 *  for the library's work: nd_event_record(ev, NULL) after the library's
 *  ops, then cudaStreamWaitEvent(your_stream, nd_event_native(ev), 0). The
 *  reverse direction: record on a wrapped stream (nd_stream_wrap) and
 *  nd_stream_wait_event on the library's. */
ND_API void *nd_event_native(const nd_event *event);

/* ------------------------------------------------------------------ */
/* Graphs: capture a sequence of operations once, replay it cheaply    */
/* ------------------------------------------------------------------ */
/* Between nd_graph_begin(stream) and nd_graph_end(&g), the operations the
 * calling thread issues on arrays of the stream's device are captured,
 * NOT run; nd_graph_launch(g, stream) then runs all of them again, in
 * order, for a fraction of their launch cost (PyTorch's torch.cuda.graph,
 * CuPy's stream capture). The same program runs on every device:
 *  - CUDA: stream capture (cudaStreamBeginCapture) of everything the
 *    library queues, kernels, cuBLAS, cuFFT, CUB and copies between device
 *    and pinned memory; the graph is instantiated once and replayed with
 *    cudaGraphLaunch on any stream of the device;
 *  - the CPU (and any device without native graphs): the library records
 *    each operation with its resolved loop and operands and replays the
 *    loops directly, with no argument checks, dispatch or allocation.
 * Memory: arrays allocated during the capture (results and the library's
 * temporaries) come from memory private to the graph, which every launch
 * reuses: a launch rewrites the same result arrays (keep them and read
 * them after each launch). That memory returns to the device's pool once
 * the graph is destroyed and the arrays made during the capture are
 * released. Arrays made before the capture and used in it are used by
 * every launch in place: keep them alive, and update inputs between
 * launches by writing into them (nd_copy_from_host, nd_copy_async, ops
 * with an out), never by replacing them.
 * Refused during a capture, on every device, with ND_ERR_UNSUPPORTED (the
 * capture is then broken: nd_graph_end answers the first refusal's
 * status and message): reading device data on the host (nd_copy_to_host,
 * and the ops that size a result by the data, such as nonzero and boolean
 * masks), copies from pageable host memory, contents computed on the host
 * (nd_arange, nd_linspace, nd_eye), random numbers (a replay would repeat
 * them), linear algebra factorisations (cuSOLVER and LAPACK report status
 * to the host), cross-entropy with its label check and loss-scale
 * unscaling (both report a flag to the host), synchronisation
 * (nd_synchronize, nd_stream_synchronize, events), on the CPU user
 * kernels compiled from C, and on CUDA a device served by ND_POOL=async.
 * One capture per thread at a time; a graph is launched by one thread at
 * a time. */
typedef struct nd_graph nd_graph;
/** Start capturing the calling thread's operations on stream's device.
 *  stream (not NULL: the default stream of a GPU cannot be captured) is
 *  made the thread's current stream of that device until nd_graph_end,
 *  which restores the previous one. ND_ERR_INVALID when this thread is
 *  capturing already or stream is NULL; ND_ERR_UNSUPPORTED when the
 *  device cannot capture (see above). */
ND_API nd_status nd_graph_begin(nd_stream *stream);
/** End the calling thread's capture: *graph, ready to launch (a graph of
 *  no operations is fine). When an operation was refused during the
 *  capture, or the capture failed, *graph is NULL and the status and
 *  message are the first failure's; the capture ends either way. */
ND_API nd_status nd_graph_end(nd_graph **graph);
/** Run the captured operations on stream (NULL = the calling thread's
 *  current stream of the graph's device), asynchronously on a GPU. */
ND_API nd_status nd_graph_launch(nd_graph *graph, nd_stream *stream);
/** The number of operations the graph replays (the CPU's recorded loops;
 *  on CUDA the nodes of the instantiated graph). */
ND_API int64_t nd_graph_size(const nd_graph *graph);
/** Destroy a graph (NULL is fine): waits for its launches to finish. */
ND_API nd_status nd_graph_destroy(nd_graph *graph);

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

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_RUNTIME_H */
