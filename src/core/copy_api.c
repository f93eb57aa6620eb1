/* Copies, casts and transfers: nd_from_host, nd_copy, nd_astype,
 * nd_copy_to_host, nd_copy_from_host, nd_to_device, nd_contiguous (on the
 * primitives of core/copy.c and the out rule of core/out.c). */
#include <string.h>

#include "core/internal.h"
#include "core/out.h"
#include "core/prof_hooks.h"

/* The out rule for copies: a (cast to dtype) into *out, which must have
 * shape (ndim, shape), or into a new array. nd__copy_into handles casts,
 * broadcasting and overlap itself. */
static nd_status copy_to_out(const char *fn, nd_array **out, const nd_array *a, nd_dtype dtype, int ndim,
                             const int64_t *shape)
{
    nd_status st;
    if (*out == NULL) {
        st = nd__copy_new(out, a, dtype);
        return st ? nd__err_prefix(st, fn) : ND_OK;
    }
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, dtype, ndim, shape, a->device))) return st;
    return nd__out_end(&t, nd__copy_into(t.res, a));
}

static nd_status check_array(const char *fn, const nd_array *a, const char *name)
{
    if (!a) return nd__err(ND_ERR_INVALID, fn, "argument '%s' is NULL", name);
    return ND_OK;
}

/* A C-contiguous array with a's contents on a's device (a new reference
 * to a itself when it already is contiguous). */
static nd_status contiguous_ref(nd_array **out, const nd_array *a)
{
    if (nd_is_contiguous(a)) {
        *out = nd_retain((nd_array *)a);
        return ND_OK;
    }
    return nd__copy_new(out, a, a->dtype);
}

nd_status nd_from_host(nd_array **out, const void *data, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev)
{
    ND_PROF_OP_ON("from_host", out, dev);
    static const char *fn = "nd_from_host";
    ND_CHECK_PTR(fn, out, "out");
    int64_t size;
    nd_status st = nd__check_shape(fn, ndim, shape, dtype, &size);
    if (st) return st;
    st = nd__check_device(fn, dev);
    if (st) return st;
    if (!data && size > 0) return nd__err(ND_ERR_INVALID, fn, "argument 'data' is NULL for %lld elements", (long long)size);
    nd_array *r;
    if (*out) { /* the copy is nd_copy_from_host's event, nested in this one */
        nd_out t;
        if ((st = nd__out_begin(&t, fn, out, dtype, ndim, shape, dev))) return st;
        return nd__out_end(&t, nd_copy_from_host(t.res, data, (size_t)size * nd__itemsize(dtype)));
    }
    ND_PRH_TRANSFER(nd_cpu(), dev, size * (int64_t)nd__itemsize(dtype));
    st = nd__alloc(&r, dtype, ndim, shape, dev);
    if (st) return nd__err_prefix(st, fn);
    if (size > 0) {
        st = nd__backend(dev)->memcpy_h2d(dev, nd__ptr(r), data, (size_t)size * nd__itemsize(dtype));
        if (st) {
            nd_release(r);
            return nd__err_prefix(st, fn);
        }
    }
    *out = r;
    return ND_OK;
}

nd_status nd_copy(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("copy", out, a);
    static const char *fn = "nd_copy";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = check_array(fn, a, "a");
    if (st) return st;
    if (*out == NULL) return copy_to_out(fn, out, a, a->dtype, a->ndim, a->shape);
    /* np.copyto(out, a): a broadcasts to out, same_kind casting */
    nd_array *o = *out;
    int nd;
    int64_t shp[ND_MAX_DIMS];
    st = nd__broadcast_shapes(fn, o->ndim, o->shape, a->ndim, a->shape, &nd, shp);
    if (st) return st;
    if (nd != o->ndim || memcmp(shp, o->shape, sizeof(int64_t) * (size_t)nd) != 0) {
        char b1[400], b2[400];
        return nd__err(ND_ERR_SHAPE, fn, "could not broadcast input of shape %s into 'out' of shape %s",
                       nd__fmt_shape(b1, sizeof b1, a->ndim, a->shape), nd__fmt_shape(b2, sizeof b2, o->ndim, o->shape));
    }
    return copy_to_out(fn, out, a, a->dtype, o->ndim, o->shape);
}

nd_status nd_astype(nd_array **out, const nd_array *a, nd_dtype dtype)
{
    ND_PROF_OP("astype", out, a);
    static const char *fn = "nd_astype";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = check_array(fn, a, "a");
    if (st) return st;
    if (!nd__dtype_valid(dtype)) return nd__err(ND_ERR_INVALID, fn, "invalid dtype value %d", (int)dtype);
    if (*out && (*out)->dtype != dtype)
        return nd__err(ND_ERR_DTYPE, fn, "'out' has dtype %s, but astype was asked for %s", nd_dtype_name((*out)->dtype),
                       nd_dtype_name(dtype));
    return copy_to_out(fn, out, a, dtype, a->ndim, a->shape);
}

nd_status nd_copy_to_host(void *dst, const nd_array *a, size_t nbytes)
{
    ND_PROF_OP("copy_to_host", NULL, a);
    static const char *fn = "nd_copy_to_host";
    nd_status st = check_array(fn, a, "a");
    if (st) return st;
    if ((st = nd__capture_refuse(fn, a->device, "reading device data on the host",
                                 "a capture runs nothing; read results after nd_graph_launch")))
        return st;
    size_t need = nd_nbytes(a);
    if (nbytes != need)
        return nd__err(ND_ERR_INVALID, fn, "nbytes = %zu, but the array holds %zu bytes", nbytes, need);
    ND_PRH_TRANSFER(a->device, nd_cpu(), need);
    if (need == 0) return ND_OK;
    ND_CHECK_PTR(fn, dst, "dst");
    nd_array *c = NULL;
    if (a->device.type == ND_DEVICE_CPU) {
        if (nd_is_contiguous(a)) {
            memmove(dst, nd__ptr(a), need);
            return ND_OK;
        }
        st = nd__wrap(&c, dst, a->dtype, a->ndim, a->shape, nd_cpu());
        if (st) return nd__err_prefix(st, fn);
        st = nd__copy_into(c, a);
        nd_release(c);
        return st ? nd__err_prefix(st, fn) : ND_OK;
    }
    st = contiguous_ref(&c, a);
    if (st) return nd__err_prefix(st, fn);
    st = nd__backend(a->device)->memcpy_d2h(a->device, dst, nd__ptr(c), need);
    nd_release(c);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd_copy_from_host(nd_array *a, const void *src, size_t nbytes)
{
    ND_PROF_OP("copy_from_host", NULL, a);
    static const char *fn = "nd_copy_from_host";
    nd_status st = check_array(fn, a, "a");
    if (st) return st;
    if ((st = nd__capture_refuse(fn, a->device, "a copy from host memory",
                                 "copy new inputs into the graph's arrays before nd_graph_launch")))
        return st;
    size_t need = nd_nbytes(a);
    if (nbytes != need)
        return nd__err(ND_ERR_INVALID, fn, "nbytes = %zu, but the array holds %zu bytes", nbytes, need);
    if ((st = nd__out_check_writable(fn, a, "a"))) return st;
    ND_PRH_TRANSFER(nd_cpu(), a->device, need);
    if (need == 0) return ND_OK;
    ND_CHECK_PTR(fn, src, "src");
    nd_array *h = NULL, *d = NULL;
    st = nd__wrap(&h, (void *)src, a->dtype, a->ndim, a->shape, nd_cpu());
    if (st) return nd__err_prefix(st, fn);
    if (a->device.type == ND_DEVICE_CPU) {
        st = nd__copy_into(a, h); /* any layout of a; overlap-safe */
    } else if (nd_is_contiguous(a)) {
        st = nd__backend(a->device)->memcpy_h2d(a->device, nd__ptr(a), src, need);
    } else {
        st = nd__alloc(&d, a->dtype, a->ndim, a->shape, a->device);
        if (!st) st = nd__backend(a->device)->memcpy_h2d(a->device, nd__ptr(d), src, need);
        if (!st) st = nd__copy_into(a, d);
    }
    nd_release(d);
    nd_release(h);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd_to_device(nd_array **out, const nd_array *a, nd_device dev)
{
    ND_PROF_OP("to_device", out, a);
    static const char *fn = "nd_to_device";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = check_array(fn, a, "a");
    if (st) return st;
    st = nd__check_device(fn, dev);
    if (st) return st;
    ND_PRH_TRANSFER(a->device, dev, nd_nbytes(a));
    nd_array *moved = NULL, *c = NULL;
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, a->dtype, a->ndim, a->shape, dev))) return st;
    if (nd__same_device(a->device, dev)) {
        st = nd__copy_into(t.res, a);
    } else {
        /* cross the bus contiguous into the result, or into a contiguous
         * temporary that the transaction then casts/lays out on the target */
        st = contiguous_ref(&c, a);
        if (!st) st = nd__out_target(&t, a->dtype, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 0, NULL);
        if (!st) moved = nd_retain(t.dst);
        size_t nb = nd_nbytes(a);
        if (!st && nb) {
            bool queued = false;
            if (nd__registry[a->device.type].host)
                st = nd__backend(dev)->memcpy_h2d(dev, nd__ptr(moved), nd__ptr(c), nb);
            else if (nd__registry[dev.type].host)
                st = nd__backend(a->device)->memcpy_d2h(a->device, nd__ptr(moved), nd__ptr(c), nb);
            else if (nd__backend(dev)->copy_async)
                /* device to device: a peer copy on the target's current stream. It
                 * waits for the source device's current stream (where c was
                 * produced), and records itself on c's block, so releasing c (a
                 * temporary, or the caller's a) below cannot hand that memory out
                 * before the copy has read it (src/cuda/transfer.cu). */
                st = nd__backend(dev)->copy_async(moved, c, nd__current_stream(dev), &queued);
            if (!st && !queued && !nd__registry[a->device.type].host && !nd__registry[dev.type].host) {
                char d1[32], d2[32];
                st = nd__err(ND_ERR_UNSUPPORTED, fn, "no copy from %s to %s", nd__device_name(a->device, d1, sizeof d1),
                             nd__device_name(dev, d2, sizeof d2));
            }
        }
    }
    nd_release(c);
    nd_release(moved);
    return nd__out_end(&t, st);
}

nd_status nd_contiguous(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("contiguous", out, a);
    static const char *fn = "nd_contiguous";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = check_array(fn, a, "a");
    if (st) return st;
    if (*out == NULL) {
        if (nd_is_contiguous(a)) ND_PROF_BYTES(0); /* a new reference to a */
        st = contiguous_ref(out, a);
        return st ? nd__err_prefix(st, fn) : ND_OK;
    }
    return copy_to_out(fn, out, a, a->dtype, a->ndim, a->shape);
}
