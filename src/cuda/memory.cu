// Device memory: one caching pool (src/core/pool.c) per device over cudaMalloc,
// and the pinned-host upstream (cudaHostAlloc) used by src/core/runtime.c.
//
// Stream safety (DESIGN.md "Stream safety of pools"): an op runs on the
// calling thread's current stream, and the core does not tell the pool
// which arrays an op read, so a block freed on one stream may still be
// read or written by work queued on any other stream of its device. Every
// free therefore names the device's live streams (the default stream and
// those of nd_stream_create, src/cuda/stream.cu); the pool fences those
// that still have work queued, except the block's own stream, and hands the
// block out again only after the fences completed. This is exact about
// what matters (a stream with nothing queued at the free cannot touch the
// block later: nobody holds it any more), costs nothing while no stream
// has been created, and one cudaStreamQuery per live stream otherwise.
// Uses by another device's stream (peer copies) are recorded on the block
// (nd__cuda_record_stream), as PyTorch's record_stream does.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "core/pool.h"

#define ND_MAX_POOLS 64

static nd_pool *g_pools[ND_MAX_POOLS];
static bool g_caching[ND_MAX_POOLS];
static pthread_mutex_t g_pools_mu = PTHREAD_MUTEX_INITIALIZER;

static int device_upstream_alloc(void *ctx, size_t nbytes, void **p)
{
    if (nd__alloc_inject()) return 1; // the allocator door's fault gate (src/core/alloc.h)
    nd_device_guard g((int)(intptr_t)ctx);
    // Whole 32-bit words: the 1- and 2-byte atomics (add.at, maximum.at;
    // src/cuda/kernels_index.cu) compare-and-swap the aligned word that holds
    // the element, which must lie in the allocation even for the last
    // element (the caching pool's blocks are multiples of 512 bytes anyway;
    // this is for ND_POOL=0, whose allocations are otherwise exact).
    const size_t words = nbytes ? (nbytes + 3) & ~(size_t)3 : 4;
    cudaError_t e = cudaMalloc(p, words);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    nd__alloc_live_add(1);
    return 0;
}

static void device_upstream_free(void *ctx, void *p)
{
    nd_device_guard g((int)(intptr_t)ctx);
    // cudaFree synchronises the device, so no stream still uses p
    cudaFree(p);
    nd__alloc_live_add(-1);
}

static void *cuda_fence(void *ctx, nd_pool_use use)
{
    (void)ctx;
    return nd__cuda_stream_fence(use);
}

static bool cuda_event_done(void *ctx, void *ev)
{
    (void)ctx;
    cudaError_t e = cudaEventQuery((cudaEvent_t)ev);
    if (e == cudaErrorNotReady) {
        // CUDA also keeps "not ready" as the thread's last error; the next
        // launch would report it as its own failure (PyTorch clears it too)
        (void)cudaGetLastError();
        return false;
    }
    if (e != cudaSuccess) (void)cudaGetLastError(); // a failed device: nothing left to wait for
    return true;
}

static void cuda_event_wait(void *ctx, void *ev)
{
    (void)ctx;
    if (cudaEventSynchronize((cudaEvent_t)ev) != cudaSuccess) (void)cudaGetLastError();
}

// Back to the event cache of the device whose stream it fenced.
static void cuda_event_drop(void *ctx, void *ev, int dev)
{
    (void)ctx;
    nd__cuda_event_give(dev, ev);
}

// The event hooks both CUDA pools (device and pinned) share.
static void with_cuda_fences(nd_pool_upstream *up)
{
    up->fence = cuda_fence;
    up->done = cuda_event_done;
    up->wait = cuda_event_wait;
    up->drop = cuda_event_drop;
}

static nd_pool *pool_of(int dev)
{
    if (dev < 0 || dev >= ND_MAX_POOLS) return NULL;
    nd_pool *p = __atomic_load_n(&g_pools[dev], __ATOMIC_ACQUIRE);
    if (p) return p;
    pthread_mutex_lock(&g_pools_mu);
    p = g_pools[dev];
    if (!p) {
        const char *env = getenv("ND_POOL");
        bool caching = !(env && strcmp(env, "0") == 0);
        nd_pool_upstream up = {};
        up.alloc = device_upstream_alloc;
        up.free = device_upstream_free;
        up.ctx = (void *)(intptr_t)dev;
        with_cuda_fences(&up);
        up.stream_ordered = true;
        up.dev = dev;
        p = nd__pool_create_ex(up, caching);
        g_caching[dev] = caching;
        __atomic_store_n(&g_pools[dev], p, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_pools_mu);
    return p;
}

extern "C" nd_status nd__cuda_alloc(int dev, size_t nbytes, void *stream, void **ptr)
{
    nd_pool *p = pool_of(dev);
    if (!p) return nd__err(ND_ERR_NOMEM, "nd_alloc", "cannot create the memory pool of cuda:%d", dev);
    return nd__pool_alloc(p, nbytes, (uintptr_t)stream, ptr, "nd_alloc");
}

extern "C" void nd__cuda_free(int dev, void *ptr)
{
    nd_pool *p = pool_of(dev);
    if (!p || !ptr) return;
    if (!g_caching[dev]) { // cudaFree waits for the whole device
        nd__pool_free(p, ptr);
        return;
    }
    nd_pool_use local[16];
    nd_pool_use *uses = local;
    int n = nd__cuda_live_streams(dev, local, 16);
    if (n > 16) { // many streams: a second snapshot (streams made since cannot have used the block)
        int cap = n + 8;
        uses = (nd_pool_use *)nd__malloc(sizeof *uses * (size_t)cap);
        if (uses) {
            n = nd__cuda_live_streams(dev, uses, cap);
            if (n > cap) n = cap;
        } else { // no room for the list: wait for every stream instead
            nd_device_guard g(dev);
            if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
            uses = local;
            n = 0;
        }
    }
    nd__pool_free_after(p, ptr, uses, n);
    if (uses != local) nd__free(uses);
}

extern "C" void nd__cuda_record_stream(int dev, void *ptr, void *stream, int stream_dev)
{
    nd_pool *p = pool_of(dev);
    if (p) nd__pool_record_stream(p, ptr, nd_pool_use{(uintptr_t)stream, stream_dev});
}

extern "C" nd_status nd__cuda_memory_stats(nd_memory_stats *s, int dev)
{
    nd_pool *p = pool_of(dev);
    if (!p) return nd__err(ND_ERR_NOMEM, "nd_memory_get_stats", "no pool for cuda:%d", dev);
    nd_pool_stats ps;
    nd__pool_get_stats(p, &ps);
    memset(s, 0, sizeof *s);
    s->in_use = ps.in_use;
    s->peak_in_use = ps.peak_in_use;
    s->cached = ps.cached;
    s->reserved = ps.reserved;
    s->limit = ps.limit;
    s->largest_free_block = ps.largest_free;
    s->device_allocs = ps.n_upstream_allocs;
    s->allocs = ps.n_allocs;
    s->pooled = g_caching[dev];
    return ND_OK;
}

extern "C" nd_status nd__cuda_memory_release_cached(int dev)
{
    nd_pool *p = pool_of(dev);
    if (!p) return ND_OK;
    {
        // every stream's work on freed blocks must be done before they are merged across streams
        nd_device_guard g(dev);
        ND_CUDA_TRY(cudaDeviceSynchronize(), "nd_memory_release_cached");
    }
    nd__pool_release_cached(p);
    return ND_OK;
}

extern "C" nd_status nd__cuda_memory_set_limit(int dev, size_t bytes)
{
    nd_pool *p = pool_of(dev);
    if (p) nd__pool_set_limit(p, bytes);
    return ND_OK;
}

extern "C" nd_status nd__cuda_memory_reset_peak(int dev)
{
    nd_pool *p = pool_of(dev);
    if (p) nd__pool_reset_peak(p);
    return ND_OK;
}

extern "C" int nd__cuda_host_upstream_alloc(void *ctx, size_t nbytes, void **p)
{
    (void)ctx;
    if (nd__alloc_inject()) return 1; // the allocator door's fault gate (src/core/alloc.h)
    cudaError_t e = cudaHostAlloc(p, nbytes ? nbytes : 1, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    nd__alloc_live_add(1);
    return 0;
}

extern "C" void nd__cuda_host_upstream_free(void *ctx, void *p)
{
    (void)ctx;
    cudaFreeHost(p);
    nd__alloc_live_add(-1);
}

// The pinned pool: the host reuses a block at once, so every stream whose
// copies used it (recorded by the transfers) is fenced, and its events
// come from the device of that stream.
extern "C" nd_pool_upstream nd__cuda_pinned_upstream(void)
{
    nd_pool_upstream up = {};
    up.alloc = nd__cuda_host_upstream_alloc;
    up.free = nd__cuda_host_upstream_free;
    with_cuda_fences(&up);
    up.stream_ordered = false;
    return up;
}
