/* The copy primitives under the out rule (core/out.c hands results over
 * with them): one array into another of the same device with cast,
 * broadcast and overlap handled, a cast copy, a 0-d array of a scalar.
 * The public copies and transfers built on them: core/copy_api.c. */
#include <string.h>

#include "core/internal.h"

nd_status nd__copy_into(nd_array *dst, const nd_array *src)
{
    if (dst->size == 0) return ND_OK;
    const nd_backend *be = nd__backend(dst->device);
    nd_array *tmp = NULL, *bview = NULL;
    nd_status st = ND_OK;
    const nd_array *s = src;
    /* partial overlap: read everything before writing anything */
    if (nd__may_overlap(dst, src) && !nd__same_view(dst, src)) {
        st = nd__alloc(&tmp, src->dtype, src->ndim, src->shape, src->device);
        if (st) return st;
        st = be->cast(tmp, src);
        if (st) goto done;
        s = tmp;
    }
    if (s->ndim != dst->ndim || memcmp(s->shape, dst->shape, sizeof(int64_t) * (size_t)dst->ndim) != 0) {
        st = nd__broadcast_view(&bview, s, dst->ndim, dst->shape);
        if (st) goto done;
        s = bview;
    }
    if (nd__same_view(dst, s)) goto done; /* copying an array onto itself */
    st = be->cast(dst, s);
done:
    nd_release(bview);
    nd_release(tmp);
    return st;
}

nd_status nd__copy_new(nd_array **res, const nd_array *a, nd_dtype dtype)
{
    nd_array *r;
    nd_status st = nd__alloc(&r, dtype, a->ndim, a->shape, a->device);
    if (st) return st;
    st = nd__copy_into(r, a);
    if (st) {
        nd_release(r);
        return st;
    }
    *res = r;
    return ND_OK;
}

nd_status nd__as_dtype(nd_array **out, const nd_array *a, nd_dtype dtype)
{
    if (a->dtype == dtype) {
        *out = nd_retain((nd_array *)a);
        return ND_OK;
    }
    return nd__copy_new(out, a, dtype);
}

nd_status nd__scalar_array(nd_array **out, nd_scalar s, nd_dtype dtype, nd_device dev)
{
    nd_array *r;
    nd_status st = nd__alloc(&r, dtype, 0, NULL, dev);
    if (st) return st;
    _Alignas(8) unsigned char v[16]; /* the widest element: complex128 */
    nd__scalar_store(v, dtype, s);
    /* fill passes the value by value to the device (a kernel argument on a
     * GPU): no host-to-device copy, so no synchronisation per scalar op */
    st = nd__backend(dev)->fill(r, v);
    if (st) {
        nd_release(r);
        return st;
    }
    *out = r;
    return ND_OK;
}
