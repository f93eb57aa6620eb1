// Host <-> device transfers. Pinned host memory goes straight over the bus;
// pageable host memory is staged through two pinned buffers from the pinned
// pool in chunks, so that the memcpy into one buffer overlaps the DMA of the
// other and large copies run near pinned speed.
#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"

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

struct staging {
    void *buf[2];
    cudaEvent_t ev[2];
    bool ok;
    staging() : ok(false)
    {
        buf[0] = buf[1] = NULL;
        ev[0] = ev[1] = NULL;
        bool p0, p1;
        if (nd__host_pinned_alloc(STAGE_CHUNK, &buf[0], &p0, "nd_copy") != ND_OK) return;
        if (nd__host_pinned_alloc(STAGE_CHUNK, &buf[1], &p1, "nd_copy") != ND_OK) return;
        if (cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming) != cudaSuccess) return;
        if (cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming) != cudaSuccess) return;
        ok = p0 && p1;
    }
    ~staging()
    {
        for (int k = 0; k < 2; k++) {
            if (ev[k]) cudaEventDestroy(ev[k]);
            if (buf[k]) nd__host_pinned_free(buf[k]);
        }
    }
};

static nd_status h2d(int dev, void *dst, const void *src, size_t n, cudaStream_t s, const char *fn)
{
    nd_device_guard g(dev);
    if (n < STAGE_MIN || is_pinned_host(src)) {
        ND_CUDA_TRY(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s), fn);
        ND_CUDA_TRY(cudaStreamSynchronize(s), fn); // the caller may reuse src at once
        return ND_OK;
    }
    staging st;
    if (!st.ok) { // no staging memory: let the driver do it
        (void)cudaGetLastError();
        ND_CUDA_TRY(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice), fn);
        return ND_OK;
    }
    bool used[2] = {false, false};
    for (size_t off = 0, i = 0; off < n; off += STAGE_CHUNK, i++) {
        int k = (int)(i & 1);
        size_t len = n - off < STAGE_CHUNK ? n - off : STAGE_CHUNK;
        if (used[k]) ND_CUDA_TRY(cudaEventSynchronize(st.ev[k]), fn); // the DMA out of buf[k] is done
        memcpy(st.buf[k], (const char *)src + off, len);
        ND_CUDA_TRY(cudaMemcpyAsync((char *)dst + off, st.buf[k], len, cudaMemcpyHostToDevice, s), fn);
        ND_CUDA_TRY(cudaEventRecord(st.ev[k], s), fn);
        used[k] = true;
    }
    ND_CUDA_TRY(cudaStreamSynchronize(s), fn);
    return ND_OK;
}

static nd_status d2h(int dev, void *dst, const void *src, size_t n, cudaStream_t s, const char *fn)
{
    nd_device_guard g(dev);
    if (n < STAGE_MIN || is_pinned_host(dst)) {
        ND_CUDA_TRY(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s), fn);
        ND_CUDA_TRY(cudaStreamSynchronize(s), fn);
        return ND_OK;
    }
    staging st;
    if (!st.ok) {
        (void)cudaGetLastError();
        ND_CUDA_TRY(cudaStreamSynchronize(s), fn);
        ND_CUDA_TRY(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost), fn);
        return ND_OK;
    }
    size_t nchunks = (n + STAGE_CHUNK - 1) / STAGE_CHUNK;
    // issue chunk 0, then for each chunk: issue the next DMA, wait for this one, copy it out
    ND_CUDA_TRY(cudaMemcpyAsync(st.buf[0], src, n < STAGE_CHUNK ? n : STAGE_CHUNK, cudaMemcpyDeviceToHost, s), fn);
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

// nd_copy_async: contiguous arrays with pinned host memory (or device to
// device) are queued on the stream and return at once; anything else is
// done synchronously through the ordinary path.
extern "C" nd_status nd__cuda_copy_async(nd_array *dst, const nd_array *src, void *stream)
{
    static const char *fn = "nd_copy_async";
    cudaStream_t s = nd_stream_of(stream);
    size_t n = nd_nbytes(src);
    if (n == 0) return ND_OK;
    bool contig = nd_is_contiguous(dst) && nd_is_contiguous(src);
    void *d = nd_data(dst);
    const void *sp = nd_data(src);
    if (dst->device.type == ND_DEVICE_CUDA && src->device.type == ND_DEVICE_CUDA) {
        if (contig) {
            if (dst->device.id == src->device.id) {
                nd_device_guard g(dst->device.id);
                ND_CUDA_TRY(cudaMemcpyAsync(d, sp, n, cudaMemcpyDeviceToDevice, s), fn);
            } else {
                nd_device_guard g(dst->device.id);
                ND_CUDA_TRY(cudaMemcpyPeerAsync(d, dst->device.id, sp, src->device.id, n, s), fn);
            }
            return ND_OK;
        }
    } else if (contig && dst->device.type == ND_DEVICE_CUDA && src->buf->pinned) {
        nd_device_guard g(dst->device.id);
        ND_CUDA_TRY(cudaMemcpyAsync(d, sp, n, cudaMemcpyHostToDevice, s), fn);
        return ND_OK;
    } else if (contig && src->device.type == ND_DEVICE_CUDA && dst->buf->pinned) {
        nd_device_guard g(src->device.id);
        ND_CUDA_TRY(cudaMemcpyAsync(d, sp, n, cudaMemcpyDeviceToHost, s), fn);
        return ND_OK;
    }
    // the synchronous fallback: make the work on the stream visible first
    {
        nd_device_guard g(dst->device.type == ND_DEVICE_CUDA ? dst->device.id : src->device.id);
        ND_CUDA_TRY(cudaStreamSynchronize(s), fn);
    }
    nd_array *tmp = dst;
    nd_status st = nd_to_device(&tmp, src, dst->device);
    return st;
}
