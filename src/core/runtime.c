/* The runtime API: memory statistics and limits, synchronisation, events,
 * pinned host memory and asynchronous copies, over the device part of each
 * backend's descriptor (src/core/backend.h). A device whose backend has no
 * events (the CPU: synchronous) gets host-clock ones here. The streams
 * themselves and the current stream: core/stream.c. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "core/out.h"
#include "core/pool.h"
#include "core/prof_hooks.h"

struct nd_event {
    nd_device dev;
    void *handle; /* the backend's event; NULL for host-clock events (the CPU) */
    double host_ms;
    bool recorded;
};

/* ------------------------------------------------------------------ */
/* Memory statistics                                                   */
/* ------------------------------------------------------------------ */
nd_status nd_memory_get_stats(nd_memory_stats *stats, nd_device dev)
{
    static const char *fn = "nd_memory_get_stats";
    ND_CHECK_PTR(fn, stats, "stats");
    nd_status st = nd__stream_check_device(fn, dev);
    if (st) return st;
    return nd__backend(dev)->memory_stats(stats, dev.id);
}

nd_status nd_memory_release_cached(nd_device dev)
{
    nd_status st = nd__stream_check_device("nd_memory_release_cached", dev);
    if (st) return st;
    const nd_backend *be = nd__backend(dev);
    return be->memory_release_cached ? be->memory_release_cached(dev.id) : ND_OK; /* NULL: nothing is cached */
}

nd_status nd_memory_set_limit(nd_device dev, size_t bytes)
{
    nd_status st = nd__stream_check_device("nd_memory_set_limit", dev);
    if (st) return st;
    return nd__backend(dev)->memory_set_limit(dev.id, bytes);
}

nd_status nd_memory_set_pool(nd_device dev, nd_pool_kind kind)
{
    static const char *fn = "nd_memory_set_pool";
    nd_status st = nd__stream_check_device(fn, dev);
    if (st) return st;
    if ((int)kind < ND_POOL_KIND_NONE || (int)kind > ND_POOL_KIND_ASYNC)
        return nd__err(ND_ERR_INVALID, fn, "unknown pool kind %d", (int)kind);
    const nd_backend *be = nd__backend(dev);
    if (be->memory_set_pool) return be->memory_set_pool(dev.id, (int)kind);
    if (kind == ND_POOL_KIND_NONE) return ND_OK; /* the device's one allocator */
    char d[32];
    return nd__err(ND_ERR_UNSUPPORTED, fn, "%s has no memory pool (its allocator is ND_POOL_KIND_NONE)",
                   nd__device_name(dev, d, sizeof d));
}

nd_status nd_memory_set_fraction(nd_device dev, double fraction)
{
    static const char *fn = "nd_memory_set_fraction";
    nd_status st = nd__stream_check_device(fn, dev);
    if (st) return st;
    if (!(fraction > 0.0 && fraction <= 1.0)) /* NaN fails both */
        return nd__err(ND_ERR_INVALID, fn, "fraction %g is outside (0, 1]", fraction);
    nd_device_info info;
    if ((st = nd__backend(dev)->device_info(&info, dev.id))) return nd__err_prefix(st, fn);
    if (info.total_memory == 0) return nd__err(ND_ERR_UNSUPPORTED, fn, "the device reports no total memory");
    size_t bytes = (size_t)((double)info.total_memory * fraction);
    if (bytes == 0) bytes = 1; /* a limit of 0 would mean none */
    return nd__backend(dev)->memory_set_limit(dev.id, bytes);
}

bool nd__env_memory_fraction(double *fraction)
{
    const char *env = getenv("ND_MEMORY_FRACTION");
    if (!env || !*env) return false;
    char *end;
    double f = strtod(env, &end);
    while (*end == ' ') end++;
    if (*end != '\0' || !(f > 0.0 && f <= 1.0)) return false;
    *fraction = f;
    return true;
}

nd_status nd_memory_reset_peak(nd_device dev)
{
    nd_status st = nd__stream_check_device("nd_memory_reset_peak", dev);
    if (st) return st;
    return nd__backend(dev)->memory_reset_peak(dev.id);
}

/* ------------------------------------------------------------------ */
/* Streams                                                             */
/* ------------------------------------------------------------------ */
nd_status nd_stream_synchronize(nd_stream *stream)
{
    ND_PROF_OP("stream_synchronize", NULL, NULL);
    ND_CHECK_PTR("nd_stream_synchronize", stream, "stream");
    ND_PROF_DEVICE(nd_stream_device(stream));
    const nd_backend *be = nd__backend(nd_stream_device(stream));
    if (be->stream_synchronize) return be->stream_synchronize(nd__stream_handle(stream), nd_stream_device(stream).id);
    return ND_OK; /* a synchronous device: its work is done */
}

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */
static double host_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

nd_status nd_event_create(nd_event **event, nd_device dev)
{
    static const char *fn = "nd_event_create";
    ND_CHECK_PTR(fn, event, "event");
    nd_status st = nd__stream_check_device(fn, dev);
    if (st) return st;
    nd_event *e = nd__calloc(1, sizeof *e);
    if (!e) return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    e->dev = dev;
    const nd_backend *be = nd__backend(dev);
    if (be->event_create && (st = be->event_create(&e->handle, dev.id))) {
        nd__free(e);
        return st;
    }
    *event = e;
    return ND_OK;
}

nd_status nd_event_record(nd_event *event, nd_stream *stream)
{
    static const char *fn = "nd_event_record";
    ND_CHECK_PTR(fn, event, "event");
    if (stream && !nd__same_device(nd_stream_device(stream), event->dev))
        return nd__err(ND_ERR_DEVICE, fn, "the event and the stream belong to different devices");
    nd_status cst = nd__capture_refuse(fn, event->dev, "an event", "record events around nd_graph_launch");
    if (cst) return cst;
    const nd_backend *be = nd__backend(event->dev);
    if (be->event_record) {
        void *h = stream ? nd__stream_handle(stream) : nd__current_stream(event->dev);
        nd_status st = be->event_record(event->handle, h, event->dev.id);
        if (st) return st;
    } else {
        event->host_ms = host_now_ms(); /* a host-clock event */
    }
    event->recorded = true;
    return ND_OK;
}

nd_status nd_event_synchronize(nd_event *event)
{
    ND_PROF_OP("event_synchronize", NULL, NULL);
    static const char *fn = "nd_event_synchronize";
    ND_CHECK_PTR(fn, event, "event");
    ND_PROF_DEVICE(event->dev);
    if (!event->recorded) return nd__err(ND_ERR_INVALID, fn, "the event was never recorded");
    nd_status cst = nd__capture_refuse(fn, event->dev, "waiting for an event", "a capture runs nothing");
    if (cst) return cst;
    const nd_backend *be = nd__backend(event->dev);
    return be->event_synchronize ? be->event_synchronize(event->handle, event->dev.id) : ND_OK;
}

nd_status nd_stream_wait_event(nd_stream *stream, nd_event *event)
{
    static const char *fn = "nd_stream_wait_event";
    ND_CHECK_PTR(fn, event, "event");
    if (!event->recorded) return nd__err(ND_ERR_INVALID, fn, "the event was never recorded");
    const nd_device sdev = stream ? nd_stream_device(stream) : event->dev;
    nd_status cst = nd__capture_refuse(fn, sdev, "waiting for an event", "order other streams around nd_graph_launch");
    if (cst) return cst;
    void *h = stream ? nd__stream_handle(stream) : nd__current_stream(event->dev);
    const nd_backend *sbe = nd__backend(sdev), *ebe = nd__backend(event->dev);
    /* the stream's device queues the wait itself */
    if (sdev.type == event->dev.type && sbe->stream_wait_event) return sbe->stream_wait_event(h, event->handle, sdev.id);
    /* a synchronous stream (the CPU) or another device type: the host waits
     * now, so everything queued later comes after the event's work */
    return ebe->event_synchronize ? ebe->event_synchronize(event->handle, event->dev.id) : ND_OK;
}

nd_status nd_event_elapsed_ms(float *ms, nd_event *start, nd_event *end)
{
    static const char *fn = "nd_event_elapsed_ms";
    ND_CHECK_PTR(fn, ms, "ms");
    ND_CHECK_PTR(fn, start, "start");
    ND_CHECK_PTR(fn, end, "end");
    if (!nd__same_device(start->dev, end->dev))
        return nd__err(ND_ERR_DEVICE, fn, "the two events belong to different devices");
    if (!start->recorded || !end->recorded)
        return nd__err(ND_ERR_INVALID, fn, "event '%s' was never recorded", start->recorded ? "end" : "start");
    const nd_backend *be = nd__backend(start->dev);
    if (be->event_elapsed) return be->event_elapsed(ms, start->handle, end->handle, start->dev.id);
    *ms = (float)(end->host_ms - start->host_ms);
    return ND_OK;
}

void *nd_event_native(const nd_event *event) { return event ? event->handle : NULL; }

nd_status nd_event_destroy(nd_event *event)
{
    if (!event) return ND_OK;
    const nd_backend *be = nd__backend(event->dev);
    if (be->event_destroy) be->event_destroy(event->handle, event->dev.id);
    nd__free(event);
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Pinned host memory                                                  */
/* ------------------------------------------------------------------ */
static int plain_alloc(void *ctx, size_t n, void **p)
{
    (void)ctx;
    *p = nd__aligned_alloc(64, (n + 63) & ~(size_t)63);
    return *p ? 0 : 1;
}
static void plain_free(void *ctx, void *p)
{
    (void)ctx;
    nd__free(p);
}

/* Created at first use. Not a pthread_once: a creation that failed (no
 * memory) must be retried at the next use, so the pool pointer, set only on
 * success, is the "initialised" flag (atomic: read without the mutex). */
static nd_pool *_Atomic g_host_pool;
static bool g_host_pinned;
static pthread_mutex_t g_host_mu = PTHREAD_MUTEX_INITIALIZER;

static nd_pool *host_pool_create(void)
{
    const char *env = getenv("ND_POOL");
    bool caching = !(env && strcmp(env, "0") == 0);
    nd_pool_upstream up = {.alloc = plain_alloc, .free = plain_free};
    /* a backend that page-locks host memory (CUDA: cudaHostAlloc, and fences
     * on the streams of the copies that used a block, CuPy's pinned memory
     * pool) when one has a device */
    if (nd__pinned_upstream(&up)) g_host_pinned = true;
    return nd__pool_create_ex(up, caching);
}

static void host_pool_init(void)
{
    if (g_host_pool) return;
    pthread_mutex_lock(&g_host_mu);
    if (!g_host_pool) g_host_pool = host_pool_create();
    pthread_mutex_unlock(&g_host_mu);
}

nd_status nd__host_pinned_alloc(size_t nbytes, void **ptr, bool *pinned, const char *func)
{
    host_pool_init();
    if (!g_host_pool) return nd__err(ND_ERR_NOMEM, func, "cannot create the pinned memory pool");
    nd_status st = nd__pool_alloc(g_host_pool, nbytes, 0, ptr, func);
    if (st == ND_OK && pinned) *pinned = g_host_pinned;
    return st;
}

bool nd__host_pinned_free(void *ptr)
{
    host_pool_init();
    return g_host_pool && nd__pool_free(g_host_pool, ptr);
}

void nd__host_pinned_record_stream(void *ptr, void *stream, int dev)
{
    host_pool_init();
    if (g_host_pool) nd__pool_record_stream(g_host_pool, ptr, (nd_pool_use){(uintptr_t)stream, dev});
}

void nd__host_pinned_set_limit(size_t bytes)
{
    host_pool_init();
    if (g_host_pool) nd__pool_set_limit(g_host_pool, bytes);
}

void nd__host_pinned_release_cached(void)
{
    host_pool_init();
    if (g_host_pool) nd__pool_release_cached(g_host_pool);
}

nd_status nd_pinned_alloc(void **ptr, size_t nbytes)
{
    ND_CHECK_PTR("nd_pinned_alloc", ptr, "ptr");
    return nd__host_pinned_alloc(nbytes, ptr, NULL, "nd_pinned_alloc");
}

nd_status nd_pinned_free(void *ptr)
{
    if (!ptr) return ND_OK;
    if (!nd__host_pinned_free(ptr))
        return nd__err(ND_ERR_INVALID, "nd_pinned_free", "pointer %p did not come from nd_pinned_alloc", ptr);
    return ND_OK;
}

static void pinned_release(void *ctx) { nd__host_pinned_free(ctx); }

nd_status nd_empty_pinned(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape)
{
    ND_PROF_OP("empty_pinned", out, NULL);
    ND_PROF_DEVICE(nd_cpu());
    static const char *fn = "nd_empty_pinned";
    ND_CHECK_PTR(fn, out, "out");
    int64_t size;
    nd_status st = nd__check_shape(fn, ndim, shape, dtype, &size);
    if (st) return st;
    if (*out) /* the out rule, as for nd_empty: an existing array that passes the checks is kept */
        return nd__out_check(fn, *out, dtype, ndim, shape, nd_cpu());
    void *p;
    bool pinned = false;
    st = nd__host_pinned_alloc((size_t)size * nd__itemsize(dtype), &p, &pinned, fn);
    if (st) return st;
    nd_array *a;
    st = nd__wrap(&a, p, dtype, ndim, shape, nd_cpu());
    if (st) {
        nd__host_pinned_free(p);
        return nd__err_prefix(st, fn);
    }
    a->buf->release = pinned_release;
    a->buf->ctx = p;
    a->buf->pinned = pinned;
    *out = a;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Asynchronous copies                                                 */
/* ------------------------------------------------------------------ */
/* nd_copy_async of a copy the backend cannot queue: the work queued on
 * the stream first, then the ordinary transfer (on the current streams of
 * the devices involved), then that work finished, so that whatever is
 * queued on the stream later comes after the copy. */
static nd_status copy_after_stream(nd_array *dst, const nd_array *src, nd_device sdev, void *handle)
{
    const nd_backend *sbe = nd__backend(sdev);
    nd_status st = sbe->stream_synchronize ? sbe->stream_synchronize(handle, sdev.id) : ND_OK;
    nd_array *tmp = dst;
    if (st == ND_OK) st = nd_to_device(&tmp, src, dst->device);
    const nd_array *arrays[2] = {dst, src};
    for (int i = 0; i < 2 && st == ND_OK; i++) {
        nd_device dv = arrays[i]->device;
        const nd_backend *be = nd__backend(dv);
        if ((i == 0 || !nd__same_device(dv, dst->device)) && be->stream_synchronize)
            st = be->stream_synchronize(nd__current_stream(dv), dv.id);
    }
    return st;
}

nd_status nd_copy_async(nd_array *dst, const nd_array *src, nd_stream *stream)
{
    ND_PROF_OP("copy_async", NULL, src, dst);
    static const char *fn = "nd_copy_async";
    ND_CHECK_PTR(fn, dst, "dst");
    ND_CHECK_PTR(fn, src, "src");
    if (dst->dtype != src->dtype)
        return nd__err(ND_ERR_DTYPE, fn, "dtypes differ (%s and %s)", nd_dtype_name(dst->dtype), nd_dtype_name(src->dtype));
    if (dst->ndim != src->ndim || memcmp(dst->shape, src->shape, sizeof(int64_t) * (size_t)dst->ndim) != 0) {
        char b1[400], b2[400];
        return nd__err(ND_ERR_SHAPE, fn, "shapes differ: %s and %s", nd__fmt_shape(b1, sizeof b1, dst->ndim, dst->shape),
                       nd__fmt_shape(b2, sizeof b2, src->ndim, src->shape));
    }
    if (stream && !nd__same_device(nd_stream_device(stream), dst->device) && !nd__same_device(nd_stream_device(stream), src->device))
        return nd__err(ND_ERR_DEVICE, fn, "the stream belongs to neither array's device");
    ND_PRH_TRANSFER(src->device, dst->device, nd_nbytes(src));
    /* the backend of the device side queues the copy (dst's when both are
     * devices: a peer copy); between host arrays it is synchronous */
    nd_device d = dst->device;
    const nd_backend *be = nd__backend(d);
    if (!be->copy_async) be = nd__backend(d = src->device);
    if (!be->copy_async) {
        nd_status st = nd__copy_into(dst, src);
        return st ? nd__err_prefix(st, fn) : ND_OK;
    }
    void *h = stream ? nd__stream_handle(stream) : nd__current_stream(d);
    bool queued = false;
    nd_status st = be->copy_async(dst, src, h, &queued);
    if (st || queued) return st;
    return copy_after_stream(dst, src, stream ? nd_stream_device(stream) : d, h);
}

/* ------------------------------------------------------------------ */
/* Synchronisation                                                     */
/* ------------------------------------------------------------------ */
nd_status nd_synchronize(nd_device dev)
{
    ND_PROF_OP_ON("synchronize", NULL, dev);
    nd_status st = nd__check_device("nd_synchronize", dev);
    if (st) return st;
    return nd__backend(dev)->synchronize(dev);
}
