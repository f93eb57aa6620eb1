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
