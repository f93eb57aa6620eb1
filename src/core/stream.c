/* Streams and the calling thread's current stream per device, over the
 * stream slots of each backend's descriptor (src/core/backend.h). A device
 * whose backend has no streams (the CPU: synchronous) gets host-side ones.
 * Below the profiler: it reads the current stream to time a device. */
#include <string.h>

#include "core/internal.h"

#define ND_MAX_DEVICES 64 /* per device type: the size of the current-stream table */

struct nd_stream {
    nd_device dev;
    void *handle; /* the backend's stream; NULL for a device without streams (the CPU) */
    bool wrapped; /* the user's stream (nd_stream_wrap): never destroyed here */
};

/* Streams are the device's own objects, also while this thread captures a
 * graph (src/core/graph.c, which sits above this file): the device's own
 * descriptor, never a capture's. dev was validated by the caller. */
static const nd_backend *device_backend(nd_device dev) { return nd__registry[dev.type].be; }

/* The calling thread's current stream per device (NULL = the default). */
static _Thread_local nd_stream *tl_stream[ND_NUM_DEVICE_TYPES][ND_MAX_DEVICES];

nd_status nd__stream_check_device(const char *fn, nd_device dev)
{
    nd_status st = nd__check_device(fn, dev);
    if (st == ND_OK && dev.id >= ND_MAX_DEVICES) {
        char d[32];
        st = nd__err(ND_ERR_DEVICE, fn, "%s is beyond the %d devices libndgpu supports", nd__device_name(dev, d, sizeof d),
                     ND_MAX_DEVICES);
    }
    return st;
}

static nd_stream **stream_slot(nd_device dev)
{
    if ((unsigned)dev.type >= (unsigned)ND_NUM_DEVICE_TYPES || (unsigned)dev.id >= (unsigned)ND_MAX_DEVICES) return NULL;
    return &tl_stream[dev.type][dev.id];
}

void *nd__current_stream(nd_device dev)
{
    nd_stream **slot = stream_slot(dev);
    return slot && *slot ? (*slot)->handle : NULL;
}

nd_status nd_stream_create(nd_stream **stream, nd_device dev)
{
    static const char *fn = "nd_stream_create";
    ND_CHECK_PTR(fn, stream, "stream");
    nd_status st = nd__stream_check_device(fn, dev);
    if (st) return st;
    nd_stream *s = nd__calloc(1, sizeof *s);
    if (!s) return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    s->dev = dev;
    const nd_backend *be = device_backend(dev);
    if (be->stream_create && (st = be->stream_create(&s->handle, dev.id))) {
        nd__free(s);
        return st;
    }
    *stream = s;
    return ND_OK;
}

nd_status nd_stream_wrap(nd_stream **stream, nd_device dev, void *native)
{
    static const char *fn = "nd_stream_wrap";
    ND_CHECK_PTR(fn, stream, "stream");
    nd_status st = nd__stream_check_device(fn, dev);
    if (st) return st;
    const nd_backend *be = device_backend(dev);
    char d[32];
    if (!be->stream_create) { /* a synchronous device: its streams are host-side */
        if (native)
            return nd__err(ND_ERR_INVALID, fn, "%s has no native streams (native must be NULL)",
                           nd__device_name(dev, d, sizeof d));
    } else if (!native) {
        return nd__err(ND_ERR_INVALID, fn, "native stream of %s is NULL (NULL is the default stream; use it as is)",
                       nd__device_name(dev, d, sizeof d));
    } else if (!be->stream_wrap) {
        return nd__err(ND_ERR_UNSUPPORTED, fn, "%s cannot adopt streams", nd__device_name(dev, d, sizeof d));
    }
    nd_stream *s = nd__calloc(1, sizeof *s);
    if (!s) return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    s->dev = dev;
    s->wrapped = true;
    if (native && (st = be->stream_wrap(&s->handle, native, dev.id))) {
        nd__free(s);
        return st;
    }
    *stream = s;
    return ND_OK;
}

nd_status nd_stream_destroy(nd_stream *stream)
{
    if (!stream) return ND_OK;
    nd_status st = ND_OK;
    nd_stream **slot = stream_slot(stream->dev);
    if (slot && *slot == stream) *slot = NULL;
    const nd_backend *be = device_backend(stream->dev);
    if (stream->wrapped) {
        if (stream->handle) st = be->stream_unwrap(stream->handle, stream->dev.id);
    } else if (be->stream_destroy) {
        st = be->stream_destroy(stream->handle, stream->dev.id);
    }
    nd__free(stream);
    return st;
}

void *nd__stream_handle(const nd_stream *s) { return s ? s->handle : NULL; }

nd_device nd_stream_device(const nd_stream *stream) { return stream ? stream->dev : nd_cpu(); }

void *nd_stream_native(const nd_stream *stream) { return stream ? stream->handle : NULL; }

/* Any device's stream, the CPU's included, becomes the current one of its
 * device: nd_get_stream then returns it (for the CPU, work stays
 * synchronous; the stream is what callers asked for, as on a GPU). */
nd_status nd_set_stream(nd_stream *stream)
{
    if (!stream) {
        memset(tl_stream, 0, sizeof tl_stream);
        return ND_OK;
    }
    *stream_slot(stream->dev) = stream; /* its device was checked by nd_stream_create */
    return ND_OK;
}

void nd__set_current_stream(nd_device dev, nd_stream *stream)
{
    nd_stream **slot = stream_slot(dev);
    if (slot) *slot = stream;
}

nd_stream *nd_get_stream(nd_device dev)
{
    nd_stream **slot = stream_slot(dev);
    return slot ? *slot : NULL;
}
