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

#include <new>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "core/pool.h"

#define ND_MAX_POOLS 64

static nd_pool *g_pools[ND_MAX_POOLS];
static nd_pool_kind g_kind[ND_MAX_POOLS];
static pthread_mutex_t g_pools_mu = PTHREAD_MUTEX_INITIALIZER;

static int device_upstream_alloc(void *ctx, size_t nbytes, void **p)
{
    nd_device_guard g((int)(intptr_t)ctx);
    // Whole 32-bit words: the 1- and 2-byte atomics (add.at, maximum.at;
    // src/cuda/kernels_index.cu) compare-and-swap the aligned word that holds
    // the element, which must lie in the allocation even for the last
    // element (the caching pool's blocks are multiples of 512 bytes anyway;
    // this is for ND_POOL=0, whose allocations are otherwise exact).
    const size_t words = nbytes ? (nbytes + 3) & ~(size_t)3 : 4;
    // a graph capture on this thread allows cudaMalloc only in relaxed mode
    // (PyTorch's allocator does the same): the memory is the capture's
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    const bool swapped = cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess;
    const bool injected = nd__alloc_inject(); // the allocator door's fault gate (src/core/alloc.h)
    cudaError_t e = injected ? cudaErrorMemoryAllocation : cudaMalloc(p, words);
    if (swapped) (void)cudaThreadExchangeStreamCaptureMode(&mode);
    if (injected) return 1;
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

// cudaMalloc/cudaFree of device dev, allocations made on its streams.
static nd_pool_upstream device_upstream(int dev)
{
    nd_pool_upstream up = {};
    up.alloc = device_upstream_alloc;
    up.free = device_upstream_free;
    up.ctx = (void *)(intptr_t)dev;
    up.stream_ordered = true;
    up.dev = dev;
    return up;
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

// ---- ND_POOL=async: CUDA's stream-ordered allocator ----------------------
// A cudaMemPool_t of the library's own per device (not the device's default
// pool, which other code in the process may trim or reconfigure), keeping
// freed memory (release threshold: all of it) until nd_memory_release_cached
// trims it. The core pool (src/core/pool.c, caching off) keeps the books and
// the streams a block was used on; the free is queued on the block's own
// stream after the work the other streams had queued (cudaStreamWaitEvent on
// a fence of each: the host never waits), and CUDA reuses the memory in
// stream order.
static cudaMemPool_t g_async[ND_MAX_POOLS];
// What the pool reserved after the last allocation or trim: an allocation
// after which it holds more took memory from the system.
static size_t g_async_held[ND_MAX_POOLS];

static size_t async_held(void *ctx);

static int async_alloc_on(void *ctx, size_t nbytes, uintptr_t stream, void **p, bool *grew)
{
    if (nd__alloc_inject()) return 1; // the allocator door's fault gate (src/core/alloc.h)
    const int dev = (int)(intptr_t)ctx;
    nd_device_guard g(dev);
    if (cudaMallocFromPoolAsync(p, nbytes ? nbytes : 4, g_async[dev], (cudaStream_t)stream) != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    nd__alloc_live_add(1);
    const size_t held = async_held(ctx); // called under the pool's lock: no other allocation between
    *grew = held > g_async_held[dev];
    g_async_held[dev] = held;
    return 0;
}

static void async_free_on(void *ctx, void *p, uintptr_t stream, const nd_pool_use *waits, int n)
{
    const int dev = (int)(intptr_t)ctx;
    nd_device_guard g(dev);
    cudaStream_t s = (cudaStream_t)stream;
    bool all = false;
    for (int i = 0; i < n && !all; i++) {
        if (waits[i].stream == UINTPTR_MAX) { // the pool had no room for the list: every stream
            all = true;
            break;
        }
        void *ev = nd__cuda_stream_fence(waits[i]);
        if (!ev) continue; // nothing queued there any more
        if (cudaStreamWaitEvent(s, (cudaEvent_t)ev, 0) != cudaSuccess) {
            (void)cudaGetLastError();
            all = true;
        }
        nd__cuda_event_give(waits[i].dev, ev);
    }
    if (all && cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
    if (cudaFreeAsync(p, s) != cudaSuccess) {
        (void)cudaGetLastError();
        // the stream failed: the device's work is lost anyway; wait and free
        if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
        if (cudaFree(p) != cudaSuccess) (void)cudaGetLastError();
    }
    nd__alloc_live_add(-1);
}

static size_t async_held(void *ctx)
{
    const int dev = (int)(intptr_t)ctx;
    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(g_async[dev], cudaMemPoolAttrReservedMemCurrent, &v) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return (size_t)v;
}

static void async_trim(void *ctx)
{
    const int dev = (int)(intptr_t)ctx;
    // every free queued so far must have run before its memory can go back
    nd_device_guard g(dev);
    if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
    if (cudaMemPoolTrimTo(g_async[dev], 0) != cudaSuccess) (void)cudaGetLastError();
    g_async_held[dev] = async_held(ctx);
}

// The library's memory pool of dev, or false when the device has none.
static bool async_pool_create(int dev)
{
    nd_device_guard g(dev);
    int supported = 0;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev) != cudaSuccess || !supported) {
        (void)cudaGetLastError();
        return false;
    }
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    if (cudaMemPoolCreate(&g_async[dev], &props) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    uint64_t keep = UINT64_MAX; // keep freed memory across synchronisations (PyTorch's setting)
    if (cudaMemPoolSetAttribute(g_async[dev], cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
        (void)cudaGetLastError();
    return true;
}

// The pool of dev serving from allocator kind (g_pools_mu held; an async
// kind whose CUDA pool cannot be made falls back to the caching pool).
static nd_pool *make_pool(int dev, nd_pool_kind kind, size_t limit)
{
    {
        if (kind == ND_POOL_KIND_ASYNC && !g_async[dev] && !async_pool_create(dev)) kind = ND_POOL_KIND_CACHING;
        nd_pool_upstream up = device_upstream(dev);
        with_cuda_fences(&up);
        if (kind == ND_POOL_KIND_ASYNC) {
            up.alloc_on = async_alloc_on;
            up.free_on = async_free_on;
            up.held = async_held;
            up.trim = async_trim;
        }
        nd_pool *p = nd__pool_create_ex(up, kind == ND_POOL_KIND_CACHING);
        if (p && limit) nd__pool_set_limit(p, limit);
        if (p) g_kind[dev] = kind;
        return p;
    }
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
        nd_pool_kind kind = ND_POOL_KIND_CACHING;
        if (env && strcmp(env, "0") == 0) kind = ND_POOL_KIND_NONE;
        else if (env && strcmp(env, "async") == 0) kind = ND_POOL_KIND_ASYNC;
        size_t limit = 0;
        double f;
        if (nd__env_memory_fraction(&f)) { // ND_MEMORY_FRACTION, from the first use on
            nd_device_guard g(dev);
            size_t fr = 0, total = 0;
            if (cudaMemGetInfo(&fr, &total) == cudaSuccess && total > 0) {
                limit = (size_t)((double)total * f);
                if (!limit) limit = 1;
            } else {
                (void)cudaGetLastError();
            }
        }
        p = make_pool(dev, kind, limit);
        __atomic_store_n(&g_pools[dev], p, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_pools_mu);
    return p;
}

extern "C" nd_pool_kind nd__cuda_pool_kind(int dev) { return pool_of(dev) ? g_kind[dev] : ND_POOL_KIND_CACHING; }

extern "C" nd_status nd__cuda_memory_set_pool(int dev, int kind)
{
    static const char *fn = "nd_memory_set_pool";
    nd_pool *p = pool_of(dev);
    if (!p) return nd__err(ND_ERR_NOMEM, fn, "no pool for cuda:%d", dev);
    if (kind == ND_POOL_KIND_ASYNC && !g_async[dev]) {
        pthread_mutex_lock(&g_pools_mu);
        bool ok = g_async[dev] || async_pool_create(dev);
        pthread_mutex_unlock(&g_pools_mu);
        if (!ok) return nd__err(ND_ERR_UNSUPPORTED, fn, "cuda:%d has no stream-ordered memory pools", dev);
    }
    if ((int)g_kind[dev] == kind) return ND_OK;
    nd_pool_stats ps;
    nd__pool_get_stats(p, &ps);
    if (ps.in_use > 0)
        return nd__err(ND_ERR_INVALID, fn, "cuda:%d has %zu bytes of live arrays in its present pool; release them first",
                       dev, ps.in_use);
    nd_status st = nd__cuda_memory_release_cached(dev);
    if (st) return st;
    pthread_mutex_lock(&g_pools_mu);
    nd_pool *q = make_pool(dev, (nd_pool_kind)kind, ps.limit);
    if (q) {
        __atomic_store_n(&g_pools[dev], q, __ATOMIC_RELEASE);
        nd__pool_destroy(p); // holds nothing: no array was alive, and its cache is gone
    }
    pthread_mutex_unlock(&g_pools_mu);
    return q ? ND_OK : nd__err(ND_ERR_NOMEM, fn, "out of host memory for the pool of cuda:%d", dev);
}

// ---- the private pools of graph captures ---------------------------------
// While a thread captures a graph on a device (src/cuda/graph.cu), its
// allocations there come from a caching pool of the capture's own: blocks
// freed during the capture are reused within it (in the order of the
// captured stream), and none goes to other work afterwards, because every
// launch of the graph writes them again. The pool lives until the graph is
// destroyed AND every block made in it has been freed (an array made during
// the capture may outlive its graph), then its memory goes back.
namespace {
struct graph_pool {
    nd_pool *pool;
    int dev;
    bool orphan; // its graph is gone
};
std::vector<graph_pool> &g_gpools = *new std::vector<graph_pool>; // under g_pools_mu
thread_local nd_pool *tl_capture_pool[ND_MAX_POOLS];
} // namespace

extern "C" nd_pool *nd__cuda_graph_pool_open(int dev)
{
    if (dev < 0 || dev >= ND_MAX_POOLS) return NULL;
    // no fences: only the graph's stream uses its blocks (see above)
    nd_pool *p = nd__pool_create_ex(device_upstream(dev), true);
    if (!p) return NULL;
    bool ok = true;
    pthread_mutex_lock(&g_pools_mu);
    try {
        g_gpools.push_back(graph_pool{p, dev, false});
    } catch (const std::bad_alloc &) {
        ok = false;
    }
    pthread_mutex_unlock(&g_pools_mu);
    if (!ok) {
        nd__pool_destroy(p);
        return NULL;
    }
    tl_capture_pool[dev] = p;
    return p;
}

extern "C" void nd__cuda_graph_pool_end_capture(int dev) { tl_capture_pool[dev] = NULL; }

// The pool's graph is gone: it goes once it holds no live block (g_pools_mu held).
static void drop_orphan_locked(size_t i)
{
    nd_pool_stats st;
    nd__pool_get_stats(g_gpools[i].pool, &st);
    if (!g_gpools[i].orphan || st.in_use > 0) return;
    nd__pool_destroy(g_gpools[i].pool); // cudaFree of each segment waits for the device
    g_gpools.erase(g_gpools.begin() + (long)i);
}

extern "C" void nd__cuda_graph_pool_orphan(nd_pool *p)
{
    pthread_mutex_lock(&g_pools_mu);
    for (size_t i = 0; i < g_gpools.size(); i++)
        if (g_gpools[i].pool == p) {
            g_gpools[i].orphan = true;
            drop_orphan_locked(i);
            break;
        }
    pthread_mutex_unlock(&g_pools_mu);
}

// ptr back to the private pool it came from, if any.
static bool graph_pool_free(int dev, void *ptr)
{
    bool found = false;
    pthread_mutex_lock(&g_pools_mu);
    for (size_t i = 0; i < g_gpools.size() && !found; i++)
        if (g_gpools[i].dev == dev && nd__pool_free(g_gpools[i].pool, ptr)) {
            found = true;
            drop_orphan_locked(i);
        }
    pthread_mutex_unlock(&g_pools_mu);
    return found;
}

extern "C" nd_status nd__cuda_alloc(int dev, size_t nbytes, void *stream, void **ptr)
{
    if (dev >= 0 && dev < ND_MAX_POOLS && tl_capture_pool[dev])
        return nd__pool_alloc(tl_capture_pool[dev], nbytes, (uintptr_t)stream, ptr, "nd_alloc");
    nd_pool *p = pool_of(dev);
    if (!p) return nd__err(ND_ERR_NOMEM, "nd_alloc", "cannot create the memory pool of cuda:%d", dev);
    return nd__pool_alloc(p, nbytes, (uintptr_t)stream, ptr, "nd_alloc");
}

extern "C" void nd__cuda_free(int dev, void *ptr)
{
    nd_pool *p = pool_of(dev);
    if (!p || !ptr) return;
    if (g_kind[dev] == ND_POOL_KIND_NONE) { // cudaFree waits for the whole device
        if (!nd__pool_free(p, ptr)) graph_pool_free(dev, ptr);
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
    bool mine = nd__pool_free_after(p, ptr, uses, n);
    if (uses != local) nd__free(uses);
    if (!mine) graph_pool_free(dev, ptr);
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
    s->pooled = g_kind[dev] != ND_POOL_KIND_NONE;
    s->kind = g_kind[dev];
    // the memory of graphs counts as the device's (in use: its live blocks)
    pthread_mutex_lock(&g_pools_mu);
    for (const graph_pool &gp : g_gpools)
        if (gp.dev == dev) {
            nd__pool_get_stats(gp.pool, &ps);
            s->in_use += ps.in_use;
            s->reserved += ps.reserved;
            s->cached += ps.cached;
            s->device_allocs += ps.n_upstream_allocs;
            s->allocs += ps.n_allocs;
        }
    pthread_mutex_unlock(&g_pools_mu);
    if (s->peak_in_use < s->in_use) s->peak_in_use = s->in_use;
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

// ---- managed memory -------------------------------------------------------
extern "C" nd_status nd__cuda_managed_alloc(int dev, size_t nbytes, void **ptr)
{
    static const char *fn = "nd_empty_managed";
    nd_device_guard g(dev);
    int ok = 0;
    if (cudaDeviceGetAttribute(&ok, cudaDevAttrManagedMemory, dev) != cudaSuccess || !ok) {
        (void)cudaGetLastError();
        return nd__err(ND_ERR_UNSUPPORTED, fn, "cuda:%d cannot allocate managed memory", dev);
    }
    if (nd__alloc_inject()) return nd__err(ND_ERR_NOMEM, fn, "cudaMallocManaged of %zu bytes: out of memory", nbytes);
    // whole 32-bit words, as device_upstream_alloc (the 1- and 2-byte atomics)
    ND_CUDA_TRY(cudaMallocManaged(ptr, nbytes ? (nbytes + 3) & ~(size_t)3 : 4, cudaMemAttachGlobal), fn);
    nd__alloc_live_add(1);
    return ND_OK;
}

extern "C" void nd__cuda_managed_free(int dev, void *ptr)
{
    nd_device_guard g(dev);
    if (cudaFree(ptr) != cudaSuccess) (void)cudaGetLastError(); // waits for the device
    nd__alloc_live_add(-1);
}

// The CUDA location of device `to` (a GPU, or the host for the CPU).
static cudaMemLocation location_of(nd_device to)
{
    cudaMemLocation loc;
    memset(&loc, 0, sizeof loc);
    if (to.type == ND_DEVICE_CUDA) {
        loc.type = cudaMemLocationTypeDevice;
        loc.id = to.id;
    } else {
        loc.type = cudaMemLocationTypeHost;
    }
    return loc;
}

extern "C" nd_status nd__cuda_prefetch(const void *ptr, size_t nbytes, nd_device to, void *stream, int dev)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaMemPrefetchAsync(ptr, nbytes, location_of(to), 0, nd_stream_of(stream)), "nd_prefetch");
    return ND_OK;
}

static_assert((int)cudaMemAdviseSetReadMostly == ND_ADVISE_READ_MOSTLY &&
                  (int)cudaMemAdviseUnsetReadMostly == ND_ADVISE_UNSET_READ_MOSTLY &&
                  (int)cudaMemAdviseSetPreferredLocation == ND_ADVISE_PREFERRED_LOCATION &&
                  (int)cudaMemAdviseUnsetPreferredLocation == ND_ADVISE_UNSET_PREFERRED_LOCATION &&
                  (int)cudaMemAdviseSetAccessedBy == ND_ADVISE_ACCESSED_BY &&
                  (int)cudaMemAdviseUnsetAccessedBy == ND_ADVISE_UNSET_ACCESSED_BY,
              "nd_mem_advice has cudaMemoryAdvise's values");

extern "C" nd_status nd__cuda_advise(const void *ptr, size_t nbytes, int advice, nd_device to, int dev)
{
    // nd_mem_advice has cudaMemoryAdvise's values
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaMemAdvise(ptr, nbytes, (cudaMemoryAdvise)advice, location_of(to)), "nd_memory_advise");
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
