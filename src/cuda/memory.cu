// Device memory: one caching pool (src/pool.c) per device over cudaMalloc,
// and the pinned-host upstream (cudaHostAlloc) used by src/runtime.c.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"
#include "pool.h"

#define ND_MAX_POOLS 64

static nd_pool *g_pools[ND_MAX_POOLS];
static bool g_caching[ND_MAX_POOLS];
static pthread_mutex_t g_pools_mu = PTHREAD_MUTEX_INITIALIZER;

static int device_upstream_alloc(void *ctx, size_t nbytes, void **p)
{
    nd_device_guard g((int)(intptr_t)ctx);
    cudaError_t e = cudaMalloc(p, nbytes ? nbytes : 1);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    return 0;
}

static void device_upstream_free(void *ctx, void *p)
{
    nd_device_guard g((int)(intptr_t)ctx);
    // cudaFree synchronises the device, so no stream still uses p
    cudaFree(p);
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
        nd_pool_upstream up;
        up.alloc = device_upstream_alloc;
        up.free = device_upstream_free;
        up.ctx = (void *)(intptr_t)dev;
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
    if (p) nd__pool_free(p, ptr);
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
    cudaError_t e = cudaHostAlloc(p, nbytes ? nbytes : 1, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    return 0;
}

extern "C" void nd__cuda_host_upstream_free(void *ctx, void *p)
{
    (void)ctx;
    cudaFreeHost(p);
}
