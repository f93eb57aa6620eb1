// Host <-> device transfers. Pinned host memory goes straight over the bus;
// pageable host memory is staged through two pinned buffers from the pinned
// pool in chunks, so that the memcpy into one buffer overlaps the DMA of the
// other and large copies run near pinned speed.
//
// Every copy runs on a stream: the calling thread's current stream for
// the synchronous transfers, the given one for nd_copy_async. Pinned memory
// that a queued copy uses is recorded on its pool block (src/core/pool.h), so
// releasing it early never hands it to the next user mid-copy.
#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "core/pool.h"

#define STAGE_CHUNK ((size_t)8 << 20)
#define STAGE_MIN ((size_t)1 << 20) // below this the driver's own staging is as good

static bool is_pinned_host(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

// Two pinned chunks and their events. A copy through a buffer may still
// be queued on s when the transfer gives up half way (an error return): the
// buffer then goes back to the pinned pool only after that copy (the pool
// fences s), never straight to the next user.
struct staging {
    void *buf[2];
    cudaEvent_t ev[2];
    int dev;
    cudaStream_t s;
    bool queued; // copies through buf may still be queued on s
    bool ok;
    staging(int dev_, cudaStream_t s_) : dev(dev_), s(s_), queued(false), ok(false)
    {
        buf[0] = buf[1] = NULL;
        ev[0] = ev[1] = NULL;
        bool p0 = false, p1 = false;
        if (nd__host_pinned_alloc(STAGE_CHUNK, &buf[0], &p0, "nd_copy") != ND_OK) return;
        if (nd__host_pinned_alloc(STAGE_CHUNK, &buf[1], &p1, "nd_copy") != ND_OK) return;
        ev[0] = (cudaEvent_t)nd__cuda_event_take(dev);
        ev[1] = (cudaEvent_t)nd__cuda_event_take(dev);
        ok = p0 && p1 && ev[0] && ev[1];
    }
    ~staging()
    {
        for (int k = 0; k < 2; k++) {
            nd__cuda_event_give(dev, (void *)ev[k]);
            if (!buf[k]) continue;
            if (queued) nd__host_pinned_record_stream(buf[k], (void *)s, dev);
            nd__host_pinned_free(buf[k]);
        }
    }
};

static nd_status staged_h2d(staging &st, void *dst, const void *src, size_t n, const char *fn)
{
    cudaStream_t s = st.s;
    bool used[2] = {false, false};
    for (size_t off = 0, i = 0; off < n; off += STAGE_CHUNK, i++) {
        int k = (int)(i & 1);
        size_t len = n - off < STAGE_CHUNK ? n - off : STAGE_CHUNK;
        if (used[k]) ND_CUDA_TRY(cudaEventSynchronize(st.ev[k]), fn); // the DMA out of buf[k] is done
        memcpy(st.buf[k], (const char *)src + off, len);
        ND_CUDA_TRY(cudaMemcpyAsync((char *)dst + off, st.buf[k], len, cudaMemcpyHostToDevice, s), fn);
        st.queued = true;
        ND_CUDA_TRY(cudaEventRecord(st.ev[k], s), fn);
        used[k] = true;
    }
    ND_CUDA_TRY(cudaStreamSynchronize(s), fn);
    st.queued = false;
    return ND_OK;
}

static nd_status h2d(int dev, void *dst, const void *src, size_t n, cudaStream_t s, const char *fn)
{
    nd_device_guard g(dev);
    if (n >= STAGE_MIN && !is_pinned_host(src)) {
        staging st(dev, s);
        if (st.ok) return staged_h2d(st, dst, src, n, fn);
        (void)cudaGetLastError(); // no staging memory: the driver stages it below
    }
    // One copy on s, so that it is ordered after the work queued there like
    // the staged copies (a plain cudaMemcpy would run on the default
    // stream, which a non-blocking s is not ordered with).
    ND_CUDA_TRY(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s), fn);
    ND_CUDA_TRY(cudaStreamSynchronize(s), fn); // the caller may reuse src at once
    return ND_OK;
}

static nd_status staged_d2h(staging &st, void *dst, const void *src, size_t n, const char *fn)
{
    cudaStream_t s = st.s;
    size_t nchunks = (n + STAGE_CHUNK - 1) / STAGE_CHUNK;
    // issue chunk 0, then for each chunk: issue the next DMA, wait for this one, copy it out
    ND_CUDA_TRY(cudaMemcpyAsync(st.buf[0], src, n < STAGE_CHUNK ? n : STAGE_CHUNK, cudaMemcpyDeviceToHost, s), fn);
    st.queued = true;
    ND_CUDA_TRY(cudaEventRecord(st.ev[0], s), fn);
    for (size_t i = 0; i < nchunks; i++) {
        int k = (int)(i & 1);
        size_t off = i * STAGE_CHUNK, len = n - off < STAGE_CHUNK ? n - off : STAGE_CHUNK;
        if (i + 1 < nchunks) {
            size_t noff = off + STAGE_CHUNK, nlen = n - noff < STAGE_CHUNK ? n - noff : STAGE_CHUNK;
            ND_CUDA_TRY(cudaMemcpyAsync(st.buf[1 - k], (const char *)src + noff, nlen, cudaMemcpyDeviceToHost, s), fn);
            ND_CUDA_TRY(cudaEventRecord(st.ev[1 - k], s), fn);
        }
        ND_CUDA_TRY(cudaEventSynchronize(st.ev[k]), fn);
        memcpy((char *)dst + off, st.buf[k], len);
    }
    st.queued = false; // the last chunk's event completed: no copy is left
    return ND_OK;
}

static nd_status d2h(int dev, void *dst, const void *src, size_t n, cudaStream_t s, const char *fn)
{
    nd_device_guard g(dev);
    if (n >= STAGE_MIN && !is_pinned_host(dst)) {
        staging st(dev, s);
        if (st.ok) return staged_d2h(st, dst, src, n, fn);
        (void)cudaGetLastError();
    }
    ND_CUDA_TRY(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s), fn);
    ND_CUDA_TRY(cudaStreamSynchronize(s), fn);
    return ND_OK;
}

extern "C" nd_status nd__cuda_memcpy_h2d(nd_device dev, void *dst, const void *src, size_t n)
{
    return h2d(dev.id, dst, src, n, nd_stream_of(nd__current_stream(dev)), "nd_copy_from_host");
}

extern "C" nd_status nd__cuda_memcpy_d2h(nd_device dev, void *dst, const void *src, size_t n)
{
    return d2h(dev.id, dst, src, n, nd_stream_of(nd__current_stream(dev)), "nd_copy_to_host");
}

extern "C" nd_status nd__cuda_memcpy_d2d(nd_device dev, void *dst, const void *src, size_t n)
{
    nd_device_guard g(dev.id);
    ND_CUDA_TRY(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, nd_stream_of(nd__current_stream(dev))), "nd_copy");
    return ND_OK;
}

// Make s (a stream of device sdev) wait for the work queued so far on the
// calling thread's current stream of d: the kernel that produced a source,
// or the last reader of a destination, ran there.
static nd_status order_after_current(int d, cudaStream_t s, int sdev, const char *fn)
{
    cudaStream_t cur = nd_stream_of(nd__current_stream(nd_cuda(d)));
    if (d == sdev && cur == s) return ND_OK;
    nd_device_guard g(d);
    cudaEvent_t e = (cudaEvent_t)nd__cuda_event_take(d);
    if (!e) { // no event to be had: wait on the host instead
        ND_CUDA_TRY(cudaStreamSynchronize(cur), fn);
        return ND_OK;
    }
    cudaError_t err = cudaEventRecord(e, cur);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(s, e, 0);
    nd__cuda_event_give(d, (void *)e); // the wait keeps this record, whatever comes next
    ND_CUDA_TRY(err, fn);
    return ND_OK;
}

// s waits for the current streams of the CUDA devices of dst and src.
static nd_status order_after_producers(const nd_array *dst, const nd_array *src, cudaStream_t s, int sdev,
                                       const char *fn)
{
    nd_status st = ND_OK;
    if (dst->device.type == ND_DEVICE_CUDA) st = order_after_current(dst->device.id, s, sdev, fn);
    if (st == ND_OK && src->device.type == ND_DEVICE_CUDA &&
        !(dst->device.type == ND_DEVICE_CUDA && dst->device.id == src->device.id))
        st = order_after_current(src->device.id, s, sdev, fn);
    return st;
}

// The copy queued on s uses a's memory: a pinned block goes back to its
// pool, a device block of another device than s's to its pool, only after
// that copy. (A device block of s's own device needs nothing: its pool
// fences every live stream of the device at the free.)
static void record_use(const nd_array *a, cudaStream_t s, int sdev)
{
    if (a->device.type == ND_DEVICE_CPU) {
        if (a->buf->pinned) nd__host_pinned_record_stream(a->buf->ptr, (void *)s, sdev);
    } else if (a->device.id != sdev) {
        nd__cuda_record_stream(a->device.id, a->buf->ptr, (void *)s, sdev);
    }
}

// nd_copy_async: contiguous arrays with pinned host memory (or device to
// device) are queued on the stream and return at once; anything else is
// left to the core (*queued false), which copies synchronously. A queued
// copy comes after the work already queued on the current streams of the
// devices involved (where src was produced), and the memory it uses is not
// reused before it has run, even if the arrays are released at once.
extern "C" nd_status nd__cuda_copy_async(nd_array *dst, const nd_array *src, void *stream, bool *queued)
{
    static const char *fn = "nd_copy_async";
    cudaStream_t s = nd_stream_of(stream);
    size_t n = nd_nbytes(src);
    *queued = true;
    if (n == 0) return ND_OK;
    // a NULL stream is the default stream of the device side (dst first), as in nd_copy_async
    int sdev = nd__cuda_stream_device(stream, dst->device.type == ND_DEVICE_CUDA ? dst->device.id : src->device.id);
    bool contig = nd_is_contiguous(dst) && nd_is_contiguous(src);
    void *d = nd_data(dst);
    const void *sp = nd_data(src);
    bool d2d = dst->device.type == ND_DEVICE_CUDA && src->device.type == ND_DEVICE_CUDA;
    *queued = false;
    if (contig && (d2d || (dst->device.type == ND_DEVICE_CUDA && src->buf->pinned) ||
                   (src->device.type == ND_DEVICE_CUDA && dst->buf->pinned))) {
        nd_status st = order_after_producers(dst, src, s, sdev, fn);
        if (st != ND_OK) return st;
        nd_device_guard g(sdev);
        if (d2d && dst->device.id != src->device.id)
            ND_CUDA_TRY(cudaMemcpyPeerAsync(d, dst->device.id, sp, src->device.id, n, s), fn);
        else if (d2d)
            ND_CUDA_TRY(cudaMemcpyAsync(d, sp, n, cudaMemcpyDeviceToDevice, s), fn);
        else if (dst->device.type == ND_DEVICE_CUDA)
            ND_CUDA_TRY(cudaMemcpyAsync(d, sp, n, cudaMemcpyHostToDevice, s), fn);
        else
            ND_CUDA_TRY(cudaMemcpyAsync(d, sp, n, cudaMemcpyDeviceToHost, s), fn);
        *queued = true;
    }
    if (*queued) {
        record_use(dst, s, sdev);
        record_use(src, s, sdev);
    }
    return ND_OK;
}
