/* The CUDA backend as seen from the core (C linkage; compiled by nvcc).
 * Part 1 (runtime): devices, memory pools, pinned memory, transfers,
 * streams and events, fill/copy/cast kernels. Ops without a CUDA kernel yet
 * return ND_ERR_UNSUPPORTED naming the op (part 2 adds them). */
#ifndef ND_CUDA_BACKEND_H
#define ND_CUDA_BACKEND_H
#include "internal.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Number of usable devices; 0 when there is no driver or no GPU
 * (cudaErrorInsufficientDriver, cudaErrorNoDevice, or any other failure). */
ND_INTERNAL int nd__cuda_device_count(void);
/* Why nd__cuda_device_count() is 0, e.g. "CUDA driver not found". */
ND_INTERNAL const char *nd__cuda_unavailable_reason(void);
ND_INTERNAL nd_status nd__cuda_device_info(nd_device_info *info, int id);
/* "CUDA runtime 13.0, driver ..." */
ND_INTERNAL void nd__cuda_build_info(char *buf, size_t cap);
ND_INTERNAL const nd_backend *nd__cuda_backend(void);

/* src/cuda/memory.cu: the device pools and the pinned upstream */
ND_INTERNAL nd_status nd__cuda_memory_stats(nd_memory_stats *s, int dev);
ND_INTERNAL nd_status nd__cuda_memory_release_cached(int dev);
ND_INTERNAL nd_status nd__cuda_memory_set_limit(int dev, size_t bytes);
ND_INTERNAL nd_status nd__cuda_memory_reset_peak(int dev);
ND_INTERNAL nd_status nd__cuda_alloc(int dev, size_t nbytes, void *stream, void **ptr);
ND_INTERNAL void nd__cuda_free(int dev, void *ptr);
ND_INTERNAL int nd__cuda_host_upstream_alloc(void *ctx, size_t nbytes, void **p);
ND_INTERNAL void nd__cuda_host_upstream_free(void *ctx, void *p);
/* src/cuda/stream.cu: streams and events (handles are cudaStream_t / cudaEvent_t) */
ND_INTERNAL nd_status nd__cuda_stream_create(void **handle, int dev);
ND_INTERNAL nd_status nd__cuda_stream_destroy(void *handle, int dev);
ND_INTERNAL nd_status nd__cuda_stream_synchronize(void *handle, int dev);
ND_INTERNAL nd_status nd__cuda_event_create(void **handle, int dev);
ND_INTERNAL nd_status nd__cuda_event_record(void *event, void *stream, int dev);
ND_INTERNAL nd_status nd__cuda_event_synchronize(void *event, int dev);
ND_INTERNAL nd_status nd__cuda_event_elapsed(float *ms, void *start, void *end, int dev);
ND_INTERNAL void nd__cuda_event_destroy(void *event, int dev);
/* src/cuda/transfer.cu */
ND_INTERNAL nd_status nd__cuda_copy_async(nd_array *dst, const nd_array *src, void *stream);
#ifdef __cplusplus
}
#endif
#endif
