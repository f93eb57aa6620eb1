/* Managed (unified) memory: arrays in memory that the host and every GPU
 * address (cudaMallocManaged), their views on another device, prefetching
 * and advice, over the managed-memory slots of the device part of each
 * backend's descriptor (src/core/backend.h). A device without managed
 * memory (the CPU) makes ordinary arrays, so one program runs on both. */
#include "core/internal.h"
#include "core/out.h"
#include "core/prof_hooks.h"

nd_status nd_empty_managed(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev)
{
    ND_PROF_OP("empty_managed", out, NULL);
    ND_PROF_DEVICE(dev);
    static const char *fn = "nd_empty_managed";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__check_shape(fn, ndim, shape, dtype, NULL);
    if (st) return st;
    if ((st = nd__check_device(fn, dev))) return st;
    if (*out) /* the out rule, as for nd_empty: an existing array that passes the checks is kept */
        return nd__out_check(fn, *out, dtype, ndim, shape, dev);
    const nd_backend *be = nd__backend(dev);
    st = be->managed_alloc ? nd__alloc_managed(out, dtype, ndim, shape, dev) : nd__alloc(out, dtype, ndim, shape, dev);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

bool nd_is_managed(const nd_array *a) { return a ? a->buf->managed : false; }

nd_status nd_managed_view(nd_array **out, const nd_array *a, nd_device dev)
{
    static const char *fn = "nd_managed_view";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    nd_status st = nd__check_device(fn, dev);
    if (st) return st;
    /* managed memory is addressable from the host and every device of the
     * type that made it (the registry's host device, or the buffer's type) */
    bool reach = nd__same_device(dev, a->device) ||
                 (a->buf->managed && (nd__registry[dev.type].host || dev.type == a->buf->device.type));
    if (!reach) {
        char d1[32], d2[32];
        return nd__err(ND_ERR_DEVICE, fn, "'a' is on %s in memory that %s cannot address (not managed memory); "
                                          "copy it with nd_to_device",
                       nd__device_name(a->device, d1, sizeof d1), nd__device_name(dev, d2, sizeof d2));
    }
    nd_array *v;
    if ((st = nd__view(&v, a, a->dtype, a->ndim, a->shape, a->strides, a->offset))) return nd__err_prefix(st, fn);
    v->device = dev;
    v->readonly = a->readonly;
    if (*out) { /* the out rule: copy into the given array */
        st = nd_copy(out, v);
        nd_release(v);
        return st ? nd__err_prefix(st, fn) : ND_OK;
    }
    *out = v;
    return ND_OK;
}

/* The byte range of a's elements within its buffer: [*lo, *lo + *n). */
static void byte_range(const nd_array *a, const char **lo, size_t *n)
{
    int64_t first = a->offset, last = a->offset;
    const int64_t isz = (int64_t)nd__itemsize(a->dtype);
    for (int i = 0; i < a->ndim && a->size > 0; i++) {
        int64_t span = (a->shape[i] - 1) * a->strides[i] * isz; /* fits: checked when the view was made */
        if (span < 0) first += span;
        else last += span;
    }
    *lo = (const char *)a->buf->ptr + first;
    *n = a->size > 0 ? (size_t)(last - first + isz) : 0;
}

/* The checks nd_prefetch and nd_memory_advise share: *skip when there is
 * nothing to do (an array that is not managed, on its own device). */
static nd_status managed_target(const char *fn, const nd_array *a, nd_device dev, bool *skip)
{
    *skip = false;
    nd_status st = nd__check_device(fn, dev);
    if (st) return st;
    if (!a->buf->managed) {
        if (nd__same_device(dev, a->device) || nd__registry[a->device.type].host) {
            *skip = true; /* an ordinary array is where it is */
            return ND_OK;
        }
        char d[32];
        return nd__err(ND_ERR_INVALID, fn, "'a' is not in managed memory (it lives on %s only)",
                       nd__device_name(a->device, d, sizeof d));
    }
    const nd_device owner = a->buf->device;
    if (!nd__registry[dev.type].host && dev.type != owner.type) {
        char d[32];
        return nd__err(ND_ERR_DEVICE, fn, "%s cannot address this managed memory", nd__device_name(dev, d, sizeof d));
    }
    return ND_OK;
}

nd_status nd_prefetch(const nd_array *a, nd_device dev, nd_stream *stream)
{
    ND_PROF_OP("prefetch", NULL, a);
    static const char *fn = "nd_prefetch";
    ND_CHECK_PTR(fn, a, "a");
    bool skip;
    nd_status st = managed_target(fn, a, dev, &skip);
    if (st || skip) return st;
    const nd_device owner = a->buf->device;
    ND_PROF_DEVICE(owner);
    if (stream && nd_stream_device(stream).type != owner.type)
        return nd__err(ND_ERR_DEVICE, fn, "the stream is not a stream of a %s device", nd__registry[owner.type].label);
    const char *lo;
    size_t n;
    byte_range(a, &lo, &n);
    if (n == 0) return ND_OK;
    const nd_device sdev = stream ? nd_stream_device(stream) : owner;
    void *h = stream ? nd__stream_handle(stream) : nd__current_stream(owner);
    st = nd__backend(owner)->prefetch(lo, n, dev, h, sdev.id);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd_memory_advise(const nd_array *a, nd_mem_advice advice, nd_device dev)
{
    static const char *fn = "nd_memory_advise";
    ND_CHECK_PTR(fn, a, "a");
    if ((int)advice < ND_ADVISE_READ_MOSTLY || (int)advice > ND_ADVISE_UNSET_ACCESSED_BY)
        return nd__err(ND_ERR_INVALID, fn, "unknown advice %d", (int)advice);
    bool skip;
    nd_status st = managed_target(fn, a, dev, &skip);
    if (st || skip) return st;
    const char *lo;
    size_t n;
    byte_range(a, &lo, &n);
    if (n == 0) return ND_OK;
    st = nd__backend(a->buf->device)->advise(lo, n, (int)advice, dev, a->buf->device.id);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}
