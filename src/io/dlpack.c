/* DLPack import and export (versioned 1.x and legacy tensors).
 *
 * Export: one allocation holds the managed tensor, its shape and strides
 * and a reference to the exported array (manager_ctx); the deleter drops
 * that reference and frees the block.
 * Import: a new nd_array header over a new nd_buffer whose custom release
 * calls the producer's deleter when our last reference goes. The array and
 * buffer are built here from internal.h's definitions (as nd__wrap does)
 * because the buffer needs the release hook. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/prof.h"

/* ------------------------------------------------------------------ */
/* dtypes and devices                                                  */
/* ------------------------------------------------------------------ */
/* DLPack type codes come from the dtype table. */
#define DT_DL_CODE(A_, E_, sfx_, name_, size_, kind_, npy_, dl_, ...) case E_: d.code = (uint8_t)(dl_); break;
#define DT_FROM_DL(A_, E_, sfx_, name_, size_, kind_, npy_, dl_, ...) \
    if (r == ND_NUM_DTYPES && d.code == (uint8_t)(dl_) && d.bits == 8 * (size_)) r = E_;

static DLDataType to_dl_dtype(nd_dtype t)
{
    DLDataType d;
    d.lanes = 1;
    d.bits = (uint8_t)(8 * nd__itemsize(t));
    d.code = kDLFloat;
    switch (t) {
        ND_DTYPE_TABLE(DT_DL_CODE, _)
    default: break;
    }
    return d;
}

static nd_status from_dl_dtype(const char *fn, DLDataType d, nd_dtype *t)
{
    nd_dtype r = ND_NUM_DTYPES;
    if (d.lanes == 1) {
        ND_DTYPE_TABLE(DT_FROM_DL, _)
    }
    if (r == ND_NUM_DTYPES)
        return nd__err(ND_ERR_DTYPE, fn, "unsupported DLPack dtype (code %u, bits %u, lanes %u)%s", d.code, d.bits, d.lanes,
                       d.lanes != 1 ? ": vector lanes must be 1" : "");
    *t = r;
    return ND_OK;
}

/* The device of a DLPack tensor, from the registry's DLPack types: a
 * type's own memory (and its managed memory) is that type's device, host
 * memory a backend page-locks is a pinned CPU array. */
static nd_status from_dl_device(const char *fn, DLDevice d, nd_device *dev, bool *pinned, bool *managed)
{
    *pinned = false;
    *managed = false;
    const int dt = (int)d.device_type;
    for (int t = 0; t < ND_NUM_DEVICE_TYPES; t++) {
        const nd_backend_entry *e = &nd__registry[t];
        const bool own = dt == e->dlpack || (e->dlpack_managed && dt == e->dlpack_managed);
        if (!own && !(e->dlpack_pinned && dt == e->dlpack_pinned)) continue;
        *dev = own ? (nd_device){.type = (nd_device_type)t, .id = (int)d.device_id} : nd_cpu();
        *pinned = !own;
        *managed = e->dlpack_managed && dt == e->dlpack_managed;
        if (nd__registry[dev->type].host && d.device_id != 0)
            return nd__err(ND_ERR_DEVICE, fn, "DLPack CPU device id %d is not supported (only 0)", (int)d.device_id);
        return nd__check_device(fn, *dev);
    }
    return nd__err(ND_ERR_DEVICE, fn, "unsupported DLPack device type %d (kDLCPU, kDLCUDAHost, kDLCUDA and "
                                      "kDLCUDAManaged are supported)",
                   dt);
}

/* ------------------------------------------------------------------ */
/* Export                                                              */
/* ------------------------------------------------------------------ */
typedef struct {
    DLManagedTensorVersioned t;
    nd_array *array;
    int64_t shape[ND_MAX_DIMS];
    int64_t strides[ND_MAX_DIMS];
} export_versioned;

typedef struct {
    DLManagedTensor t;
    nd_array *array;
    int64_t shape[ND_MAX_DIMS];
    int64_t strides[ND_MAX_DIMS];
} export_legacy;

static void deleter_versioned(DLManagedTensorVersioned *self)
{
    if (!self) return;
    export_versioned *e = self->manager_ctx;
    nd_release(e->array);
    nd__free(e);
}

static void deleter_legacy(DLManagedTensor *self)
{
    if (!self) return;
    export_legacy *e = self->manager_ctx;
    nd_release(e->array);
    nd__free(e);
}

/* The DLPack device of a's memory, from the registry: its device type's
 * own, or for pinned host memory the host type of the first backend that
 * page-locks memory (also when an import brought the pinned memory into a
 * build without that backend). */
static DLDevice dl_device_of(const nd_array *a)
{
    DLDevice d = {(DLDeviceType)nd__registry[a->device.type].dlpack, a->device.id};
    if (a->buf->managed && nd__registry[a->buf->device.type].dlpack_managed) { /* also a CPU view of it */
        d.device_type = (DLDeviceType)nd__registry[a->buf->device.type].dlpack_managed;
        d.device_id = a->buf->device.id;
    }
    if (a->buf->pinned)
        for (int k = 0; k < ND_NUM_DEVICE_TYPES; k++)
            if (nd__registry[k].dlpack_pinned) {
                d.device_type = (DLDeviceType)nd__registry[k].dlpack_pinned;
                break;
            }
    return d;
}

nd_status nd_dlpack_device(const nd_array *a, int32_t *type, int32_t *id)
{
    static const char *fn = "nd_dlpack_device";
    ND_CHECK_PTR(fn, a, "a");
    ND_CHECK_PTR(fn, type, "type");
    ND_CHECK_PTR(fn, id, "id");
    DLDevice d = dl_device_of(a);
    *type = (int32_t)d.device_type;
    *id = d.device_id;
    return ND_OK;
}

/* Fill the DLTensor for a (shape/strides storage given). */
static void fill_tensor(DLTensor *t, const nd_array *a, int64_t *shape, int64_t *strides)
{
    for (int i = 0; i < a->ndim; i++) {
        shape[i] = a->shape[i];
        strides[i] = a->strides[i];
    }
    t->data = nd__ptr(a);
    t->byte_offset = 0;
    t->ndim = a->ndim;
    t->dtype = to_dl_dtype(a->dtype);
    t->shape = shape;
    t->strides = strides;
    t->device = dl_device_of(a);
}

static nd_status check_export(const char *fn, const void *out, const nd_array *a)
{
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (!nd__dtype_valid(a->dtype)) return nd__err(ND_ERR_INVALID, fn, "array 'a' has an invalid dtype %d", (int)a->dtype);
    return ND_OK;
}

nd_status nd_to_dlpack(DLManagedTensorVersioned **out, nd_array *a)
{
    ND_PROF_OP("to_dlpack", NULL, a);
    ND_PROF_BYTES(0); /* zero-copy */
    static const char *fn = "nd_to_dlpack";
    nd_status st = check_export(fn, out, a);
    if (st) return st;
    export_versioned *e = nd__calloc(1, sizeof *e);
    if (!e) return nd__err(ND_ERR_NOMEM, fn, "out of host memory for a DLPack tensor");
    e->t.version.major = 1;
    e->t.version.minor = 1;
    e->t.manager_ctx = e;
    e->t.deleter = deleter_versioned;
    e->t.flags = 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] > 1 && a->strides[i] == 0) e->t.flags |= DLPACK_FLAG_BITMASK_READ_ONLY; /* broadcast view */
    fill_tensor(&e->t.dl_tensor, a, e->shape, e->strides);
    e->array = nd_retain(a);
    *out = &e->t;
    return ND_OK;
}

nd_status nd_to_dlpack_legacy(DLManagedTensor **out, nd_array *a)
{
    ND_PROF_OP("to_dlpack_legacy", NULL, a);
    ND_PROF_BYTES(0); /* zero-copy */
    static const char *fn = "nd_to_dlpack_legacy";
    nd_status st = check_export(fn, out, a);
    if (st) return st;
    export_legacy *e = nd__calloc(1, sizeof *e);
    if (!e) return nd__err(ND_ERR_NOMEM, fn, "out of host memory for a DLPack tensor");
    e->t.manager_ctx = e;
    e->t.deleter = deleter_legacy;
    fill_tensor(&e->t.dl_tensor, a, e->shape, e->strides);
    e->array = nd_retain(a);
    *out = &e->t;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Import                                                              */
/* ------------------------------------------------------------------ */
static void release_versioned(void *ctx)
{
    DLManagedTensorVersioned *t = ctx;
    if (t->deleter) t->deleter(t);
}

static void release_legacy(void *ctx)
{
    DLManagedTensor *t = ctx;
    if (t->deleter) t->deleter(t);
}

/* Validate t and build an array over its memory. When base is non-NULL
 * (t was exported by libndgpu from base) the array is a view of base's
 * buffer, so that overlap checks see one buffer; otherwise a new buffer
 * whose release(ctx) runs when the last reference goes. Nothing is
 * consumed here. */
static nd_status import_tensor(const char *fn, nd_array **res, const DLTensor *t, void (*release)(void *), void *ctx,
                               const nd_array *base, bool readonly)
{
    if (t->ndim < 0 || t->ndim > ND_MAX_DIMS)
        return nd__err(ND_ERR_INVALID, fn, "DLPack tensor ndim %d is out of range [0, %d]", (int)t->ndim, ND_MAX_DIMS);
    int ndim = (int)t->ndim;
    if (ndim > 0 && t->shape == NULL) return nd__err(ND_ERR_INVALID, fn, "DLPack tensor 'shape' is NULL with ndim %d", ndim);
    nd_dtype dtype = ND_NUM_DTYPES;
    nd_status st = from_dl_dtype(fn, t->dtype, &dtype);
    if (st) return st;
    int64_t size;
    st = nd__check_shape(fn, ndim, t->shape, dtype, &size);
    if (st) return st;
    nd_device dev;
    bool pinned, managed;
    st = from_dl_device(fn, t->device, &dev, &pinned, &managed);
    if (st) return st;
    if (t->data == NULL && size > 0) return nd__err(ND_ERR_INVALID, fn, "DLPack tensor 'data' is NULL for %lld elements", (long long)size);
    if (t->byte_offset > (uint64_t)INT64_MAX)
        return nd__err(ND_ERR_INVALID, fn, "DLPack tensor byte_offset %llu is too large", (unsigned long long)t->byte_offset);
    /* device kernels access whole elements (complex128 as one 16-byte
     * load on CUDA): an element that is not aligned to its size would
     * fault on the device, and a fault ends every later call of the process */
    if (!nd__registry[dev.type].host && size > 0) {
        size_t al = nd__itemsize(dtype);
        uintptr_t first = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
        if (first % al != 0)
            return nd__err(ND_ERR_INVALID, fn,
                           "DLPack %s tensor: data %p + byte_offset %llu is not aligned to its %zu-byte elements "
                           "(copy it to an aligned buffer first)",
                           nd__registry[dev.type].label, t->data, (unsigned long long)t->byte_offset, al);
    }

    int64_t strides[ND_MAX_DIMS];
    if (t->strides) {
        for (int i = 0; i < ndim; i++) strides[i] = t->strides[i];
    } else {
        nd__contiguous_strides(ndim, t->shape, strides);
    }
    /* every byte offset the library may compute must fit int64: the span
     * of each axis and their sum with byte_offset */
    int64_t isz = (int64_t)nd__itemsize(dtype), lo = (int64_t)t->byte_offset, hi = lo;
    { /* empty tensors too: ops multiply the strides of their non-empty axes */
        for (int i = 0; i < ndim; i++) {
            int64_t span;
            if (t->shape[i] > 1) {
                if (strides[i] == INT64_MIN || __builtin_mul_overflow(t->shape[i] - 1, strides[i], &span) ||
                    __builtin_mul_overflow(span, isz, &span) ||
                    (span < 0 ? __builtin_add_overflow(lo, span, &lo) : __builtin_add_overflow(hi, span, &hi)))
                    return nd__err(ND_ERR_INVALID, fn, "DLPack tensor strides overflow 64-bit byte offsets (axis %d, stride %lld)", i,
                                   (long long)strides[i]);
            }
        }
        /* the whole byte span hi - lo must fit too: a span of exactly
         * INT64_MIN passes every per-axis check above */
        int64_t extent;
        if (__builtin_add_overflow(hi, isz, &hi) || __builtin_sub_overflow(hi, lo < 0 ? lo : 0, &extent))
            return nd__err(ND_ERR_INVALID, fn, "DLPack tensor strides overflow 64-bit byte offsets");
    }
    nd__normalize_strides(ndim, t->shape, strides, dtype);

    if (base) {
        int64_t offset = (int64_t)t->byte_offset + (int64_t)((const char *)t->data - (const char *)base->buf->ptr);
        st = nd__view(res, base, dtype, ndim, t->shape, strides, offset);
        if (st == ND_OK && readonly) (*res)->readonly = true;
        return st;
    }
    nd_array *a = nd__calloc(1, sizeof *a);
    nd_buffer *b = nd__calloc(1, sizeof *b);
    if (!a || !b) {
        nd__free(a);
        nd__free(b);
        return nd__err(ND_ERR_NOMEM, fn, "out of host memory for an array header");
    }
    atomic_init(&b->refcount, 1);
    b->ptr = t->data;
    b->nbytes = size > 0 ? (size_t)(hi - (lo < 0 ? lo : 0)) : 0;
    b->device = dev;
    b->pinned = pinned;
    b->managed = managed; /* released by its producer; nd_managed_view and nd_prefetch know it */
    b->owns = false;
    b->release = release;
    b->ctx = ctx;
    atomic_init(&a->refcount, 1);
    a->dtype = dtype;
    a->ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        a->shape[i] = t->shape[i];
        a->strides[i] = strides[i];
    }
    a->offset = (int64_t)t->byte_offset;
    a->size = size;
    a->device = dev;
    a->readonly = readonly;
    a->buf = b;
    *res = a;
    return ND_OK;
}

/* The out rule: a new reference, or copy into *out and drop the import.
 * consume() hands t back to its producer (our own tensors: the view holds
 * the buffer, so the deleter runs at once); for foreign tensors the view's
 * buffer calls the deleter later and consume is NULL. */
static nd_status finish_import(const char *fn, nd_array **out, nd_array *view, void (*consume)(void *), void *t)
{
    if (*out != NULL) {
        nd_status st = nd_copy(out, view);
        if (st) {
            /* not consumed: detach the release hook so the caller keeps t */
            if (!consume) view->buf->release = NULL;
            nd_release(view);
            return nd__err_prefix(st, fn);
        }
        nd_release(view);
    } else {
        *out = view;
    }
    if (consume) consume(t);
    return ND_OK;
}

nd_status nd_from_dlpack(nd_array **out, DLManagedTensorVersioned *t)
{
    ND_PROF_OP("from_dlpack", out, NULL);
    ND_PROF_BYTES(0); /* zero-copy */
    static const char *fn = "nd_from_dlpack";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, t, "t");
    if (t->version.major != 1)
        return nd__err(ND_ERR_UNSUPPORTED, fn, "DLPack version %u.%u is not supported (libndgpu reads 1.x)",
                       (unsigned)t->version.major, (unsigned)t->version.minor);
    nd_array *view;
    bool ours = t->deleter == deleter_versioned;
    const nd_array *base = ours ? ((export_versioned *)t->manager_ctx)->array : NULL;
    nd_status st = import_tensor(fn, &view, &t->dl_tensor, release_versioned, t, base,
                                  (t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0);
    if (st) return st;
    ND_PROF_DEVICE(view->device);
    return finish_import(fn, out, view, ours ? release_versioned : NULL, t);
}

nd_status nd_from_dlpack_legacy(nd_array **out, DLManagedTensor *t)
{
    ND_PROF_OP("from_dlpack_legacy", out, NULL);
    ND_PROF_BYTES(0); /* zero-copy */
    static const char *fn = "nd_from_dlpack_legacy";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, t, "t");
    nd_array *view;
    bool ours = t->deleter == deleter_legacy;
    const nd_array *base = ours ? ((export_legacy *)t->manager_ctx)->array : NULL;
    nd_status st = import_tensor(fn, &view, &t->dl_tensor, release_legacy, t, base, false);
    if (st) return st;
    ND_PROF_DEVICE(view->device);
    return finish_import(fn, out, view, ours ? release_legacy : NULL, t);
}

/* A foreign pointer: the import path with a DLTensor made here, and the
 * caller's deleter as the buffer's release. */
nd_status nd_from_ptr(nd_array **out, void *data, nd_dtype dtype, int ndim, const int64_t *shape,
                      const int64_t *strides, nd_device dev, nd_deleter deleter, void *ctx)
{
    ND_PROF_OP("from_ptr", out, NULL);
    ND_PROF_BYTES(0); /* zero-copy */
    static const char *fn = "nd_from_ptr";
    ND_CHECK_PTR(fn, out, "out");
    if (!nd__dtype_valid(dtype)) return nd__err(ND_ERR_DTYPE, fn, "invalid dtype %d", (int)dtype);
    nd_status st = nd__check_device(fn, dev);
    if (st) return st;
    if (nd__registry[dev.type].host && dev.id != 0)
        return nd__err(ND_ERR_DEVICE, fn, "CPU device id %d is not supported (only 0)", dev.id);
    ND_PROF_DEVICE(dev);
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.device.device_type = (DLDeviceType)nd__registry[dev.type].dlpack;
    t.device.device_id = dev.id;
    t.ndim = ndim;
    t.dtype = to_dl_dtype(dtype);
    t.shape = (int64_t *)shape;
    t.strides = (int64_t *)strides;
    nd_array *view;
    if ((st = import_tensor(fn, &view, &t, deleter, ctx, NULL, false))) return st;
    return finish_import(fn, out, view, NULL, NULL);
}
