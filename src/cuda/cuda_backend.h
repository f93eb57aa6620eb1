/* The CUDA backend as seen from the core (C linkage; compiled by nvcc):
 * devices, memory pools, pinned memory, transfers, streams and events
 * (part 1), and the compute kernels for every op (part 2). One .cu file per
 * concern; src/cuda/backend.cu assembles the descriptor. */
#ifndef ND_CUDA_BACKEND_H
#define ND_CUDA_BACKEND_H
#include "core/internal.h"
#include "core/pool.h"
#ifdef __cplusplus
extern "C" {
#endif
/* The descriptor (src/cuda/backend.cu); the registry (src/core/registry.c) names it. */
ND_INTERNAL extern const nd_backend nd__cuda_backend;
/* Number of usable devices; 0 when there is no driver or no GPU
 * (cudaErrorInsufficientDriver, cudaErrorNoDevice, or any other failure). */
ND_INTERNAL int nd__cuda_device_count(void);
/* Why nd__cuda_device_count() is 0, e.g. "CUDA driver not found". */
ND_INTERNAL const char *nd__cuda_unavailable_reason(void);
ND_INTERNAL nd_status nd__cuda_device_info(nd_device_info *info, int id);
/* "CUDA runtime 13.0, driver ..." */
ND_INTERNAL void nd__cuda_build_info(char *buf, size_t cap);

/* The CUDA side of the pools' stream safety (src/core/pool.h).
 * src/cuda/stream.cu keeps the registry of live streams and a cache of
 * events; src/cuda/memory.cu the device pools and the pinned upstream. */
/* The live streams of dev: the default stream (0) and every stream made by
 * nd_stream_create and not yet destroyed. Writes up to cap of them and
 * returns how many there are. */
ND_INTERNAL int nd__cuda_live_streams(int dev, nd_pool_use *out, int cap);
/* The pools' fence (see nd_pool_upstream.fence) for a stream of any
 * device: NULL when the stream is idle, destroyed (its work finished before
 * it left the registry) or the device failed. */
ND_INTERNAL void *nd__cuda_stream_fence(nd_pool_use use);
/* The device of a live stream; dflt for the default stream (NULL, whose
 * device the caller knows) and for handles the registry does not hold. */
ND_INTERNAL int nd__cuda_stream_device(void *stream, int dflt);
/* Events without timing from a per-device cache (NULL when none can be
 * made), and back; an event may go back with a record still queued. */
ND_INTERNAL void *nd__cuda_event_take(int dev);
ND_INTERNAL void nd__cuda_event_give(int dev, void *ev);
/* The pinned pool's upstream: cudaHostAlloc/cudaFreeHost and the fences. */
ND_INTERNAL nd_pool_upstream nd__cuda_pinned_upstream(void);
/* Work queued on stream (of device stream_dev) uses the device block at
 * ptr of cuda:dev (e.g. a peer copy on another device's stream). */
ND_INTERNAL void nd__cuda_record_stream(int dev, void *ptr, void *stream, int stream_dev);
/* src/cuda/memory.cu: the device pools and the pinned upstream */
ND_INTERNAL nd_status nd__cuda_memory_stats(nd_memory_stats *s, int dev);
ND_INTERNAL nd_status nd__cuda_memory_release_cached(int dev);
ND_INTERNAL nd_status nd__cuda_memory_set_limit(int dev, size_t bytes);
ND_INTERNAL nd_status nd__cuda_memory_reset_peak(int dev);
ND_INTERNAL nd_status nd__cuda_memory_set_pool(int dev, int kind);
/* The allocator serving dev (memory.cu). */
ND_INTERNAL nd_pool_kind nd__cuda_pool_kind(int dev);
/* Graph captures (memory.cu): open makes the capture's private pool and
 * serves the calling thread's allocations on dev from it until
 * end_capture; orphan: the graph is gone, the pool goes with its last
 * block. */
ND_INTERNAL nd_pool *nd__cuda_graph_pool_open(int dev);
ND_INTERNAL void nd__cuda_graph_pool_end_capture(int dev);
ND_INTERNAL void nd__cuda_graph_pool_orphan(nd_pool *p);
/* stream.cu: a stream being captured is never fenced (querying it would
 * break the capture; its work is the graph's). */
ND_INTERNAL void nd__cuda_stream_set_capturing(int dev, void *stream, bool capturing);
/* graph.cu: the graph slots */
ND_INTERNAL nd_status nd__cuda_graph_begin(void *stream, int dev, void **state);
ND_INTERNAL nd_status nd__cuda_graph_end(void *state, int dev, void **exec, int64_t *nodes);
ND_INTERNAL nd_status nd__cuda_graph_launch(void *exec, void *stream, int dev);
ND_INTERNAL void nd__cuda_graph_destroy(void *exec, int dev);
ND_INTERNAL nd_status nd__cuda_alloc(int dev, size_t nbytes, void *stream, void **ptr);
ND_INTERNAL void nd__cuda_free(int dev, void *ptr);
/* managed memory (contract of the managed slots of nd_backend) */
ND_INTERNAL nd_status nd__cuda_managed_alloc(int dev, size_t nbytes, void **ptr);
ND_INTERNAL void nd__cuda_managed_free(int dev, void *ptr);
ND_INTERNAL nd_status nd__cuda_prefetch(const void *ptr, size_t nbytes, nd_device to, void *stream, int dev);
ND_INTERNAL nd_status nd__cuda_advise(const void *ptr, size_t nbytes, int advice, nd_device to, int dev);
ND_INTERNAL int nd__cuda_host_upstream_alloc(void *ctx, size_t nbytes, void **p);
ND_INTERNAL void nd__cuda_host_upstream_free(void *ctx, void *p);
/* src/cuda/stream.cu: streams and events (handles are cudaStream_t / cudaEvent_t) */
ND_INTERNAL nd_status nd__cuda_stream_create(void **handle, int dev);
ND_INTERNAL nd_status nd__cuda_stream_destroy(void *handle, int dev);
ND_INTERNAL nd_status nd__cuda_stream_synchronize(void *handle, int dev);
ND_INTERNAL nd_status nd__cuda_stream_wrap(void **handle, void *native, int dev);
ND_INTERNAL nd_status nd__cuda_stream_unwrap(void *handle, int dev);
ND_INTERNAL nd_status nd__cuda_event_create(void **handle, int dev);
ND_INTERNAL nd_status nd__cuda_event_record(void *event, void *stream, int dev);
ND_INTERNAL nd_status nd__cuda_event_synchronize(void *event, int dev);
ND_INTERNAL nd_status nd__cuda_stream_wait_event(void *stream, void *event, int dev);
ND_INTERNAL nd_status nd__cuda_event_elapsed(float *ms, void *start, void *end, int dev);
ND_INTERNAL void nd__cuda_event_destroy(void *event, int dev);
/* nvtx.cu: the range slots (NVTX) */
ND_INTERNAL void nd__cuda_range_push(const char *name);
ND_INTERNAL void nd__cuda_range_pop(void);
/* src/cuda/kernels_elementwise*.cu: unary/binary/where kernels for every
 * op of the op table (contract of nd_backend.unary/binary/where) */
ND_INTERNAL nd_status nd__cuda_unary(nd_unary_op op, nd_array *out, const nd_array *a);
ND_INTERNAL nd_status nd__cuda_binary(nd_binary_op op, nd_array *out, const nd_array *a, const nd_array *b);
ND_INTERNAL nd_status nd__cuda_where(nd_array *out, const nd_array *cond, const nd_array *x, const nd_array *y);
ND_INTERNAL bool nd__cuda_ew_supports(nd_kernel_kind kind, int op, nd_dtype t); /* UNARY, BINARY, WHERE */
/* src/cuda/kernels_reduce.cu (contract of nd_backend.reduce, src/reduce/reduce.c) */
ND_INTERNAL nd_status nd__cuda_reduce(nd_reduce_op op, nd_array *out, const nd_array *a, int naxes, double ddof);
ND_INTERNAL bool nd__cuda_reduce_supports(int op, nd_dtype t);
/* src/cuda/blas.cu: cuBLAS handles (per device, per thread, bound to the
 * current stream), matmul and gemm (contract of nd_backend.matmul/gemm) */
ND_INTERNAL nd_status nd__cuda_matmul(nd_array *out, const nd_array *a, const nd_array *b);
ND_INTERNAL nd_status nd__cuda_gemm(nd_array *c, bool ta, bool tb, double alpha, const nd_array *a, const nd_array *b,
                                    double beta);
ND_INTERNAL bool nd__cuda_blas_supports(nd_kernel_kind kind, nd_dtype t); /* MATMUL, GEMM */
/* A stream is about to be destroyed: free its cuBLAS workspaces, unbind the
 * calling thread's handle from it (src/cuda/stream.cu calls this). */
ND_INTERNAL void nd__cuda_blas_forget_stream(int dev, void *stream);
/* dev's allocator is about to change: every cuBLAS workspace on dev goes
 * back to its pool (made again at the next product). */
ND_INTERNAL void nd__cuda_blas_release_workspaces(int dev);
/* The calling thread's cuBLAS handle (a cublasHandle_t) for device dev (current),
 * bound to stream (src/cuda/solver.cu's batched LU and QR). */
ND_INTERNAL nd_status nd__cuda_blas_handle(const char *fn, int dev, void *stream, void **out);
/* src/cuda/kernels_random.cu: Philox (contract of nd_backend.random) */
struct nd_philox_call;
ND_INTERNAL nd_status nd__cuda_random(nd_array *out, int dist, const struct nd_philox_call *call);
ND_INTERNAL bool nd__cuda_random_supports(int dist, nd_dtype t);
/* src/cuda/kernels_copy.cu */
ND_INTERNAL nd_status nd__cuda_cast(nd_array *dst, const nd_array *src);
ND_INTERNAL nd_status nd__cuda_fill(nd_array *dst, const void *value);
/* src/cuda/transfer.cu */
ND_INTERNAL nd_status nd__cuda_memcpy_h2d(nd_device dev, void *dst, const void *src, size_t n);
ND_INTERNAL nd_status nd__cuda_memcpy_d2h(nd_device dev, void *dst, const void *src, size_t n);
ND_INTERNAL nd_status nd__cuda_memcpy_d2d(nd_device dev, void *dst, const void *src, size_t n);
ND_INTERNAL nd_status nd__cuda_copy_async(nd_array *dst, const nd_array *src, void *stream, bool *queued);
/* src/cuda/fft.cu: the fft slot over cuFFT (contract in src/fft/fft.h) */
ND_INTERNAL nd_status nd__cuda_fft(nd_array *out, const nd_array *in, int axis, int64_t n, int kind, int sign,
                                   double scale);
/* src/cuda/solver.cu: the la slot over cuSOLVER (contract in src/shared/la_slots.h) */
struct nd_la_call;
ND_INTERNAL nd_status nd__cuda_la(struct nd_la_call *call);
/* src/cuda/rtc.cu: run-time compiled CUDA source (NVRTC, library management;
 * contract in src/core/rtc_slot.h) */
struct nd_rtc_module;
struct nd_rtc_source;
ND_INTERNAL nd_status nd__cuda_rtc_compile(struct nd_rtc_module **mod, int dev, const struct nd_rtc_source *src,
                                           int *origin, const char *fn);
ND_INTERNAL nd_status nd__cuda_rtc_kernel(void **kernel, struct nd_rtc_module *mod, const char *name, const char *fn);
ND_INTERNAL nd_status nd__cuda_rtc_launch(void *kernel, int dev, const unsigned grid[3], const unsigned block[3],
                                          size_t shmem, void **args, const char *fn);
/* Whether NVRTC loads (without touching a device); else why, in why[cap]. */
ND_INTERNAL bool nd__cuda_rtc_available(char *why, size_t cap);
/* Test hook: the in-memory cache forgets its images (loaded modules stay
 * valid), so the next compile of a program reads the disk cache. */
ND_INTERNAL void nd__cuda_rtc_forget_images(void);
#ifdef __cplusplus
}
#endif
#endif
