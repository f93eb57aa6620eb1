// Streams and events on CUDA devices, and what the memory pools need of
// them for stream safety (src/core/pool.h): the registry of live streams, the
// fence (an event recorded on a stream that is still busy) and a cache of
// events, so that fences and cross-stream waits cost no cudaEventCreate.
#include <pthread.h>

#include <new>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "core/pool.h"

#define ND_EVENT_CACHE_DEVICES 64
#define ND_EVENT_CACHE_MAX 1024 // per device; more are destroyed on return

namespace {
struct live_stream {
    int dev;
    cudaStream_t s;
    bool capturing; // a graph capture is under way on it: never queried
};
// Never destroyed: pools free blocks during process exit too.
pthread_mutex_t g_reg_mu = PTHREAD_MUTEX_INITIALIZER;
std::vector<live_stream> &g_live = *new std::vector<live_stream>;
pthread_mutex_t g_ev_mu = PTHREAD_MUTEX_INITIALIZER;
std::vector<cudaEvent_t> &g_ev_cache(int dev)
{
    static std::vector<cudaEvent_t> *caches = new std::vector<cudaEvent_t>[ND_EVENT_CACHE_DEVICES];
    return caches[dev];
}

bool is_live_locked(int dev, cudaStream_t s)
{
    for (const live_stream &l : g_live)
        if (l.dev == dev && l.s == s) return true;
    return false;
}
} // namespace

static nd_status register_stream(int dev, cudaStream_t s, const char *fn);

extern "C" nd_status nd__cuda_stream_create(void **handle, int dev)
{
    nd_device_guard g(dev);
    cudaStream_t s;
    ND_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "nd_stream_create");
    nd_status st = register_stream(dev, s, "nd_stream_create");
    if (st) {
        cudaStreamDestroy(s);
        return st;
    }
    *handle = (void *)s;
    return ND_OK;
}

// Into the registry of live streams (the pools fence it from now on).
static nd_status register_stream(int dev, cudaStream_t s, const char *fn)
{
    bool ok = true;
    pthread_mutex_lock(&g_reg_mu);
    try {
        g_live.push_back(live_stream{dev, s, false});
    } catch (const std::bad_alloc &) {
        ok = false;
    }
    pthread_mutex_unlock(&g_reg_mu);
    return ok ? ND_OK : nd__err(ND_ERR_NOMEM, fn, "out of host memory");
}

// Wait for the stream's work, then out of the registry.
static nd_status forget_stream(int dev, cudaStream_t s, const char *fn);

extern "C" nd_status nd__cuda_stream_wrap(void **handle, void *native, int dev)
{
    cudaStream_t s = (cudaStream_t)native;
    {
        nd_device_guard g(dev);
        // a handle that is not a stream fails here, before the pools use it
        cudaError_t q = cudaStreamQuery(s);
        if (q == cudaErrorNotReady) { // busy is fine ("not ready" is left as the last error too)
            (void)cudaGetLastError();
            q = cudaSuccess;
        }
        ND_CUDA_TRY(q, "nd_stream_wrap");
    }
    pthread_mutex_lock(&g_reg_mu);
    bool dup = is_live_locked(dev, s);
    pthread_mutex_unlock(&g_reg_mu);
    if (dup) return nd__err(ND_ERR_INVALID, "nd_stream_wrap", "the stream is a library stream already (wrapped or created)");
    nd_status st = register_stream(dev, s, "nd_stream_wrap");
    if (st) return st;
    *handle = native;
    return ND_OK;
}

extern "C" nd_status nd__cuda_stream_unwrap(void *handle, int dev) { return forget_stream(dev, nd_stream_of(handle), "nd_stream_destroy"); }

extern "C" nd_status nd__cuda_stream_destroy(void *handle, int dev)
{
    cudaStream_t s = nd_stream_of(handle);
    nd_status st = forget_stream(dev, s, "nd_stream_destroy");
    if (st) return st;
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaStreamDestroy(s), "nd_stream_destroy");
    return ND_OK;
}

static nd_status forget_stream(int dev, cudaStream_t s, const char *fn)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaStreamSynchronize(s), fn);
    // Out of the registry only once its work is done: until then a freed
    // block may still need a fence on it. Fences hold the lock while they
    // use the handle, so none uses it after this.
    pthread_mutex_lock(&g_reg_mu);
    for (size_t i = 0; i < g_live.size(); i++)
        if (g_live[i].dev == dev && g_live[i].s == s) {
            g_live.erase(g_live.begin() + (long)i);
            break;
        }
    pthread_mutex_unlock(&g_reg_mu);
    return ND_OK;
}

extern "C" nd_status nd__cuda_stream_synchronize(void *handle, int dev)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaStreamSynchronize(nd_stream_of(handle)), "nd_stream_synchronize");
    return ND_OK;
}

extern "C" void nd__cuda_stream_set_capturing(int dev, void *stream, bool capturing)
{
    pthread_mutex_lock(&g_reg_mu);
    for (live_stream &l : g_live)
        if (l.dev == dev && l.s == (cudaStream_t)stream) l.capturing = capturing;
    pthread_mutex_unlock(&g_reg_mu);
}

extern "C" int nd__cuda_live_streams(int dev, nd_pool_use *out, int cap)
{
    int n = 0;
    if (n < cap) out[n] = nd_pool_use{0, dev};
    n++;
    pthread_mutex_lock(&g_reg_mu);
    for (const live_stream &l : g_live)
        if (l.dev == dev) {
            if (n < cap) out[n] = nd_pool_use{(uintptr_t)l.s, dev};
            n++;
        }
    pthread_mutex_unlock(&g_reg_mu);
    return n;
}

extern "C" int nd__cuda_stream_device(void *stream, int dflt)
{
    if (!stream) return dflt;
    int dev = dflt;
    pthread_mutex_lock(&g_reg_mu);
    for (const live_stream &l : g_live)
        if (l.s == (cudaStream_t)stream) {
            dev = l.dev;
            break;
        }
    pthread_mutex_unlock(&g_reg_mu);
    return dev;
}

extern "C" void *nd__cuda_event_take(int dev)
{
    if (dev >= 0 && dev < ND_EVENT_CACHE_DEVICES) {
        // Only an event whose last record has completed is handed out: a
        // wait queued on its earlier record then stays exact (the emulated
        // runtime, whose events are generation counters, needs this; CUDA
        // would not). A few candidates are tried, newest first.
        pthread_mutex_lock(&g_ev_mu);
        std::vector<cudaEvent_t> &c = g_ev_cache(dev);
        cudaEvent_t e = nullptr;
        for (size_t k = 0; k < 4 && k < c.size() && !e; k++) {
            size_t i = c.size() - 1 - k;
            cudaError_t q = cudaEventQuery(c[i]);
            if (q == cudaSuccess) {
                e = c[i];
                c.erase(c.begin() + (long)i);
            } else {
                // "not ready" is also left as the thread's last error, which
                // the next launch would report: clear it, as any failure
                (void)cudaGetLastError();
            }
        }
        pthread_mutex_unlock(&g_ev_mu);
        if (e) return (void *)e;
    }
    nd_device_guard g(dev);
    cudaEvent_t e;
    if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) {
        (void)cudaGetLastError();
        return nullptr;
    }
    return (void *)e;
}

extern "C" void nd__cuda_event_give(int dev, void *ev)
{
    if (!ev) return;
    bool kept = false;
    if (dev >= 0 && dev < ND_EVENT_CACHE_DEVICES) {
        pthread_mutex_lock(&g_ev_mu);
        std::vector<cudaEvent_t> &c = g_ev_cache(dev);
        if (c.size() < ND_EVENT_CACHE_MAX) {
            try {
                c.push_back((cudaEvent_t)ev);
                kept = true;
            } catch (const std::bad_alloc &) {
            }
        }
        pthread_mutex_unlock(&g_ev_mu);
    }
    if (!kept) {
        // a record still queued is fine: CUDA frees the event once it completes
        nd_device_guard g(dev);
        cudaEventDestroy((cudaEvent_t)ev);
    }
}

extern "C" void *nd__cuda_stream_fence(nd_pool_use use)
{
    cudaStream_t s = (cudaStream_t)use.stream;
    void *ev = nullptr;
    // The lock keeps the stream alive while its handle is used here: a
    // destroyed stream's handle must never reach the driver.
    pthread_mutex_lock(&g_reg_mu);
    bool capturing = false;
    for (const live_stream &l : g_live)
        if (l.dev == use.dev && l.s == s) capturing = l.capturing;
    if (!capturing && (s == nullptr || is_live_locked(use.dev, s))) {
        nd_device_guard g(use.dev);
        cudaError_t q = cudaStreamQuery(s);
        if (q == cudaErrorNotReady) {
            (void)cudaGetLastError(); // "not ready" is left as the last error too: not the next launch's
            ev = nd__cuda_event_take(use.dev);
            if (!ev || cudaEventRecord((cudaEvent_t)ev, s) != cudaSuccess) {
                // no fence to be had: wait for the stream instead
                (void)cudaGetLastError();
                nd__cuda_event_give(use.dev, ev);
                ev = nullptr;
                if (cudaStreamSynchronize(s) != cudaSuccess) (void)cudaGetLastError();
            }
        } else if (q != cudaSuccess) {
            (void)cudaGetLastError(); // a failed device: reusing the block cannot make it worse
        }
    }
    pthread_mutex_unlock(&g_reg_mu);
    return ev;
}

extern "C" nd_status nd__cuda_event_create(void **handle, int dev)
{
    nd_device_guard g(dev);
    cudaEvent_t e;
    ND_CUDA_TRY(cudaEventCreate(&e), "nd_event_create");
    *handle = (void *)e;
    return ND_OK;
}

extern "C" nd_status nd__cuda_event_record(void *event, void *stream, int dev)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaEventRecord((cudaEvent_t)event, nd_stream_of(stream)), "nd_event_record");
    return ND_OK;
}

extern "C" nd_status nd__cuda_stream_wait_event(void *stream, void *event, int dev)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaStreamWaitEvent(nd_stream_of(stream), (cudaEvent_t)event, 0), "nd_stream_wait_event");
    return ND_OK;
}

extern "C" nd_status nd__cuda_event_synchronize(void *event, int dev)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaEventSynchronize((cudaEvent_t)event), "nd_event_synchronize");
    return ND_OK;
}

extern "C" nd_status nd__cuda_event_elapsed(float *ms, void *start, void *end, int dev)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end), "nd_event_elapsed_ms");
    return ND_OK;
}

extern "C" void nd__cuda_event_destroy(void *event, int dev)
{
    nd_device_guard g(dev);
    cudaEventDestroy((cudaEvent_t)event);
}
