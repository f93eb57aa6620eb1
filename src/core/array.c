/* The array object: buffers, headers, views, shapes, broadcasting,
 * inspection. Below the out rule (core/out.c) and every op; the
 * allocations and releases it makes are the profiler's memory events. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/prof.h"

/* ------------------------------------------------------------------ */
/* Header cache                                                        */
/* ------------------------------------------------------------------ */
/* Each thread keeps up to HEADER_CACHE released headers for its next
 * arrays: a view is one header, and the cache spares it a malloc and a
 * free. A kept header is not counted live (nd__alloc_live), and taking one
 * passes the allocation fault gate as nd__malloc does, so the tests' fault
 * walks and leak counts see the same allocations. A thread's headers are
 * freed when it exits. Off under AddressSanitizer and with ND_POOL=0 (as
 * the memory pools), so that the sanitizers and valgrind see every header. */
#ifdef __SANITIZE_ADDRESS__
#define HEADER_CACHE 0
#else
#define HEADER_CACHE 8
#endif

/* one thread-local object: one TLS address lookup per use in a shared library */
static _Thread_local struct {
    nd_array *head; /* chained through their buf field */
    int n;          /* how many; -1: not set up yet; -2: off for this thread */
} t_hc = {NULL, -1};
static pthread_once_t g_headers_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_headers_key; /* its destructor empties an exiting thread's cache */
static bool g_headers_on;

static void headers_drop(void *unused)
{
    (void)unused;
    while (t_hc.head) {
        nd_array *a = t_hc.head;
        t_hc.head = (nd_array *)(void *)a->buf;
        nd__alloc_live_add(1); /* counted again, then freed through the door */
        nd__free(a);
    }
    t_hc.n = -2; /* releases later in the thread's exit free their headers */
}

static void headers_init(void)
{
    const char *env = getenv("ND_POOL");
    g_headers_on = !(env && strcmp(env, "0") == 0) && pthread_key_create(&g_headers_key, headers_drop) == 0;
}

/* a library unloaded while threads live must not leave them a destructor */
__attribute__((destructor)) static void headers_fini(void)
{
    if (g_headers_on) pthread_key_delete(g_headers_key);
}

/* Keep a released header (false: the caller frees it). */
static bool header_keep(nd_array *a)
{
    int n = t_hc.n;
    if (HEADER_CACHE == 0 || n >= HEADER_CACHE || n == -2) return false;
    if (n < 0) {
        pthread_once(&g_headers_once, headers_init);
        /* the key's value only makes the thread's exit call headers_drop */
        n = g_headers_on && pthread_setspecific(g_headers_key, &t_hc.n) == 0 ? 0 : -2;
        t_hc.n = n;
        if (n < 0) return false;
    }
    a->buf = (nd_buffer *)(void *)t_hc.head;
    t_hc.head = a;
    t_hc.n = n + 1;
    nd__alloc_live_add(-1);
    return true;
}

/* A header: a kept one, else nd__malloc's; NULL when out of memory or the
 * fault gate says so. */
static nd_array *header_take(void)
{
    nd_array *a = t_hc.head;
    if (a == NULL) return nd__malloc(sizeof *a);
    if (nd__alloc_inject()) return NULL;
    t_hc.head = (nd_array *)(void *)a->buf;
    t_hc.n--;
    nd__alloc_live_add(1);
    return a;
}

/* ------------------------------------------------------------------ */
/* Reference counting                                                  */
/* ------------------------------------------------------------------ */
static void buffer_release(nd_buffer *b)
{
    if (atomic_fetch_sub_explicit(&b->refcount, 1, memory_order_acq_rel) != 1) return;
    if (b->release) {
        b->release(b->ctx);
    } else if (b->owns && b->ptr && ND_UNLIKELY(b->gmem != NULL) && nd__graph_mem_keep(b)) {
        /* a recorded graph replays into this memory: it frees it later */
    } else if (b->owns && b->ptr) {
        const nd_backend *be = nd__registry[b->device.type].be; /* never a capture's: the memory goes now */
        if (!be) {
        } else if (b->managed) {
            be->managed_free(b->device.id, b->ptr);
        } else {
            be->free(b->device, b->ptr, b->nbytes);
        }
        if (ND_UNLIKELY(atomic_load_explicit(&nd__prof_mem_on, memory_order_relaxed)))
            nd__prof_mem(b->device, -(int64_t)b->nbytes);
    }
    nd__free(b);
}

nd_array *nd_retain(nd_array *a)
{
    if (a) atomic_fetch_add_explicit(&a->refcount, 1, memory_order_relaxed);
    return a;
}

void nd_release(nd_array *a)
{
    if (!a) return;
    /* a count of 1 is the caller's own reference: no other thread holds one
     * to change it, so the last release needs no atomic read-modify-write
     * (the acquire orders it after the other threads' earlier releases) */
    if (atomic_load_explicit(&a->refcount, memory_order_acquire) != 1 &&
        atomic_fetch_sub_explicit(&a->refcount, 1, memory_order_acq_rel) != 1)
        return;
    buffer_release(a->buf);
    if (!header_keep(a)) nd__free(a);
}

/* ------------------------------------------------------------------ */
/* Shapes                                                              */
/* ------------------------------------------------------------------ */
nd_status nd__check_shape(const char *func, int ndim, const int64_t *shape, nd_dtype dtype, int64_t *size)
{
    if (ndim < 0 || ndim > ND_MAX_DIMS)
        return nd__err(ND_ERR_INVALID, func, "ndim %d is out of range [0, %d]", ndim, ND_MAX_DIMS);
    if (ndim > 0 && shape == NULL) return nd__err(ND_ERR_INVALID, func, "argument 'shape' is NULL with ndim %d", ndim);
    if (!nd__dtype_valid(dtype)) return nd__err(ND_ERR_INVALID, func, "invalid dtype value %d", (int)dtype);
    int64_t n = 1;
    bool zero = false;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return nd__err(ND_ERR_INVALID, func, "negative dimensions are not allowed (shape[%d] = %lld)", i,
                           (long long)shape[i]);
        if (shape[i] == 0) zero = true;
    }
    /* overflow check over the non-zero extents, so (0, 2^62, 2^62) is still rejected like NumPy */
    char sb[ND_MAX_DIMS * 21 + 4];
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0) continue;
        if (__builtin_mul_overflow(n, shape[i], &n))
            return nd__err(ND_ERR_INVALID, func, "array is too big: the product of the shape %s overflows",
                           nd__fmt_shape(sb, sizeof sb, ndim, shape));
    }
    int64_t bytes;
    if (__builtin_mul_overflow(n, (int64_t)nd__itemsize(dtype), &bytes))
        return nd__err(ND_ERR_INVALID, func, "array is too big: shape %s holds %lld elements of %s, which overflow the byte count",
                       nd__fmt_shape(sb, sizeof sb, ndim, shape), (long long)n, nd_dtype_name(dtype));
    if (size) *size = zero ? 0 : n;
    return ND_OK;
}

/* Shapes that nd__check_shape refuses (a zero extent beside extents whose
 * product overflows) may reach here first; the product then saturates
 * rather than overflow, and the header door refuses the shape. */
void nd__contiguous_strides(int ndim, const int64_t *shape, int64_t *strides)
{
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        if (shape[i] > 1 && __builtin_mul_overflow(s, shape[i], &s)) s = INT64_MAX;
    }
}

/* ------------------------------------------------------------------ */
/* Allocation and views                                                */
/* ------------------------------------------------------------------ */
/* nd__normalize_strides, inline for the views made here. The division
 * only for the axes that need it: a view's headers come through here, and
 * most have no axis of extent <= 1. */
static inline void normalize_strides(int ndim, const int64_t *shape, int64_t *strides, nd_dtype dtype)
{
    for (int i = 0; i < ndim; i++) {
        if (shape[i] > 1) continue;
        int64_t lim = INT64_MAX / (int64_t)nd__itemsize(dtype);
        if (strides[i] > lim || strides[i] < -lim) strides[i] = 0;
    }
}

/* A header of a shape already known to be valid, with its element count. */
static inline nd_status header_sized(nd_array **out, const char *func, nd_dtype dtype, int ndim, const int64_t *shape,
                              int64_t size, nd_device dev)
{
    nd_array *a = header_take();
    *out = a;
    if (!a) return nd__err(ND_ERR_NOMEM, func, "out of host memory for an array header");
    atomic_init(&a->refcount, 1);
    a->dtype = dtype;
    a->ndim = ndim;
    a->size = size;
    for (int i = 0; i < ndim; i++) a->shape[i] = shape[i];
    a->offset = 0;
    a->device = dev;
    a->readonly = false;
    a->buf = NULL;
    return ND_OK;
}

/* Every array header, owning or view, is made here, and every one passes
 * nd__check_shape first: element counts and byte counts that would pass
 * 2^63 (a result shape built from valid extents, e.g. (4,1) + (1,2^62)
 * broadcast, or a view whose product overflows) are refused as NumPy
 * refuses them ("array is too big"), never wrapped to a small size. The
 * one exception is nd__subview, whose shape cannot pass a's (the check
 * cannot fail there). func names the internal door; callers prefix their
 * own name. */
static nd_status header_new(nd_array **out, const char *func, nd_dtype dtype, int ndim, const int64_t *shape,
                            nd_device dev)
{
    int64_t size;
    nd_status st = nd__check_shape(func, ndim, shape, dtype, &size);
    if (st) return st;
    return header_sized(out, func, dtype, ndim, shape, size, dev);
}

/* A new C-contiguous array from dev's allocator, or (managed) from its
 * managed memory (the backend has managed_alloc: the caller checked). */
static nd_status alloc_array(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev, bool managed)
{
    const nd_backend *be = nd__backend(dev);
    if (!be) return nd__err(ND_ERR_UNSUPPORTED, "nd_alloc", "no backend for this device");
    nd_array *a = NULL;
    nd_status st = header_new(&a, "nd_alloc", dtype, ndim, shape, dev);
    if (st) return st;
    nd_buffer *b = nd__calloc(1, sizeof *b);
    if (!b) {
        nd__free(a);
        return nd__err(ND_ERR_NOMEM, "nd_alloc", "out of host memory for an array header");
    }
    nd__contiguous_strides(ndim, shape, a->strides);
    size_t nbytes = (size_t)a->size * nd__itemsize(dtype);
    void *ptr = NULL;
    st = managed ? be->managed_alloc(dev.id, nbytes, &ptr) : be->alloc(dev, nbytes, &ptr);
    if (st) {
        nd__free(a);
        nd__free(b);
        return st;
    }
    atomic_init(&b->refcount, 1);
    b->ptr = ptr;
    b->nbytes = nbytes;
    b->device = dev;
    b->owns = true;
    b->managed = managed;
    a->buf = b;
    if (ND_UNLIKELY(__atomic_load_n(&nd__captures_active, __ATOMIC_RELAXED) != 0)) nd__graph_mem_adopt(b);
    if (ND_UNLIKELY(atomic_load_explicit(&nd__prof_mem_on, memory_order_relaxed))) nd__prof_mem(dev, (int64_t)nbytes);
    *out = a;
    return ND_OK;
}

nd_status nd__alloc(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev)
{
    return alloc_array(out, dtype, ndim, shape, dev, false);
}

nd_status nd__alloc_managed(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev)
{
    return alloc_array(out, dtype, ndim, shape, dev, true);
}

nd_status nd__view(nd_array **out, const nd_array *a, nd_dtype dtype, int ndim, const int64_t *shape,
                   const int64_t *strides, int64_t offset)
{
    nd_array *v = NULL;
    nd_status st = header_new(&v, "nd_view", dtype, ndim, shape, a->device);
    if (st) return st;
    for (int i = 0; i < ndim; i++) v->strides[i] = strides[i];
    normalize_strides(ndim, shape, v->strides, dtype);
    v->offset = offset;
    v->readonly = a->readonly;
    v->buf = a->buf;
    atomic_fetch_add_explicit(&a->buf->refcount, 1, memory_order_relaxed);
    *out = v;
    return ND_OK;
}

nd_status nd__subview(nd_array **out, const nd_array *a, int ndim, const int64_t *shape, const int64_t *strides,
                      int64_t offset)
{
    /* the buffer's reference first: a locked add waits for the stores
     * before it to drain, and the header's are not made yet */
    atomic_fetch_add_explicit(&a->buf->refcount, 1, memory_order_relaxed);
    int64_t size = 1;
    for (int i = 0; i < ndim; i++) size *= shape[i];
    nd_array *v = NULL;
    nd_status st = header_sized(&v, "nd_view", a->dtype, ndim, shape, size, a->device);
    if (st) {
        atomic_fetch_sub_explicit(&a->buf->refcount, 1, memory_order_relaxed); /* a still holds one */
        return st;
    }
    for (int i = 0; i < ndim; i++) v->strides[i] = strides[i];
    normalize_strides(ndim, shape, v->strides, a->dtype);
    v->offset = offset;
    v->readonly = a->readonly;
    v->buf = a->buf;
    *out = v;
    return ND_OK;
}

/* Byte extent [lo, hi) touched by a (relative to the buffer base). */
static void byte_extent(const nd_array *a, int64_t *lo, int64_t *hi)
{
    int64_t l = a->offset, h = a->offset;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] == 0) {
            *lo = *hi = a->offset;
            return;
        }
        int64_t span = (a->shape[i] - 1) * a->strides[i] * (int64_t)nd__itemsize(a->dtype);
        if (span < 0) l += span;
        else h += span;
    }
    *lo = l;
    *hi = h + (int64_t)nd__itemsize(a->dtype);
}

bool nd__may_overlap(const nd_array *a, const nd_array *b)
{
    if (a->buf != b->buf || a->size == 0 || b->size == 0) return false;
    int64_t al, ah, bl, bh;
    byte_extent(a, &al, &ah);
    byte_extent(b, &bl, &bh);
    return al < bh && bl < ah;
}

bool nd__same_view(const nd_array *a, const nd_array *b)
{
    if (a->buf != b->buf || a->offset != b->offset || a->dtype != b->dtype || a->ndim != b->ndim) return false;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] != b->shape[i]) return false;
        if (a->shape[i] > 1 && a->strides[i] != b->strides[i]) return false;
    }
    return true;
}

nd_status nd__broadcast_shapes(const char *func, int nd1, const int64_t *s1, int nd2, const int64_t *s2,
                               int *out_ndim, int64_t *out_shape)
{
    int n = nd1 > nd2 ? nd1 : nd2;
    for (int i = 0; i < n; i++) {
        int i1 = nd1 - n + i, i2 = nd2 - n + i;
        int64_t d1 = i1 >= 0 ? s1[i1] : 1, d2 = i2 >= 0 ? s2[i2] : 1;
        if (d1 == d2 || d2 == 1) out_shape[i] = d1;
        else if (d1 == 1) out_shape[i] = d2;
        else {
            char b1[400], b2[400];
            return nd__err(ND_ERR_SHAPE, func, "shapes %s and %s do not broadcast", nd__fmt_shape(b1, sizeof b1, nd1, s1),
                           nd__fmt_shape(b2, sizeof b2, nd2, s2));
        }
    }
    *out_ndim = n;
    return ND_OK;
}

nd_status nd__broadcast_view(nd_array **out, const nd_array *a, int ndim, const int64_t *shape)
{
    int64_t strides[ND_MAX_DIMS];
    int lead = ndim - a->ndim;
    if (lead < 0) return nd__err(ND_ERR_SHAPE, "nd_broadcast_to", "cannot broadcast to fewer dimensions");
    for (int i = 0; i < ndim; i++) {
        int j = i - lead;
        if (j < 0) strides[i] = 0;
        else if (a->shape[j] == shape[i]) strides[i] = a->strides[j];
        else if (a->shape[j] == 1) strides[i] = 0;
        else {
            char b1[400], b2[400];
            return nd__err(ND_ERR_SHAPE, "nd_broadcast_to", "shape %s cannot be broadcast to %s",
                           nd__fmt_shape(b1, sizeof b1, a->ndim, a->shape), nd__fmt_shape(b2, sizeof b2, ndim, shape));
        }
    }
    return nd__view(out, a, a->dtype, ndim, shape, strides, a->offset);
}

void nd__normalize_strides(int ndim, const int64_t *shape, int64_t *strides, nd_dtype dtype)
{
    normalize_strides(ndim, shape, strides, dtype);
}

/* ------------------------------------------------------------------ */
/* Inspection                                                          */
/* ------------------------------------------------------------------ */
int nd_ndim(const nd_array *a) { return a ? a->ndim : 0; }
const int64_t *nd_shape(const nd_array *a) { return a ? a->shape : NULL; }
const int64_t *nd_strides(const nd_array *a) { return a ? a->strides : NULL; }
int64_t nd_size(const nd_array *a) { return a ? a->size : 0; }
size_t nd_nbytes(const nd_array *a) { return a ? (size_t)a->size * nd__itemsize(a->dtype) : 0; }
nd_dtype nd_dtype_of(const nd_array *a) { return a ? a->dtype : ND_NUM_DTYPES; }
nd_device nd_device_of(const nd_array *a) { return a ? a->device : nd_cpu(); }
void *nd_data(const nd_array *a) { return a ? nd__ptr(a) : NULL; }
bool nd_is_pinned(const nd_array *a) { return a ? a->buf->pinned : false; }

bool nd_is_contiguous(const nd_array *a)
{
    if (!a) return false;
    int64_t s = 1;
    for (int i = a->ndim - 1; i >= 0; i--) {
        if (a->shape[i] == 0) return true;
        if (a->shape[i] != 1 && a->strides[i] != s) return false;
        s *= a->shape[i];
    }
    return true;
}

nd_status nd__wrap(nd_array **out, void *ptr, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev)
{
    nd_array *a = NULL;
    nd_status st = header_new(&a, "nd_wrap", dtype, ndim, shape, dev);
    if (st) return st;
    nd_buffer *b = nd__calloc(1, sizeof *b);
    if (!b) {
        nd__free(a);
        return nd__err(ND_ERR_NOMEM, "nd_wrap", "out of host memory for an array header");
    }
    nd__contiguous_strides(ndim, shape, a->strides);
    atomic_init(&b->refcount, 1);
    b->ptr = ptr;
    b->nbytes = (size_t)a->size * nd__itemsize(dtype);
    b->device = dev;
    b->owns = false;
    a->buf = b;
    *out = a;
    return ND_OK;
}
