/* Joins: concatenate and stack. The result is allocated (or the user's
 * 'out' is checked) once; each piece is then copied (and cast to the
 * promoted dtype) into a view of the result with nd__copy_into. */
#include <stdio.h>
#include <stdlib.h>

#include "core/internal.h"
#include "core/out.h"
#include "core/prof.h"


/* Validate the array list itself: n >= 1, no NULLs. */
static nd_status check_list(const char *fn, const char *verb, nd_array **out, int n, const nd_array *const *arrays)
{
    ND_CHECK_PTR(fn, out, "out");
    if (n < 1) return nd__err(ND_ERR_INVALID, fn, "need at least one array to %s (n = %d)", verb, n);
    ND_CHECK_PTR(fn, arrays, "arrays");
    for (int i = 0; i < n; i++)
        if (arrays[i] == NULL) return nd__err(ND_ERR_INVALID, fn, "argument 'arrays[%d]' is NULL", i);
    return ND_OK;
}

/* Join arrays (validated: same ndim >= 1, equal extents except along
 * axis, which is in [0, ndim)) along axis. */
static nd_status concat_core(const char *fn, nd_array **out, int n, const nd_array *const *arrays, int axis)
{
    const nd_array *a0 = arrays[0];
    int ndim = a0->ndim;
    nd_dtype dt = a0->dtype;
    int64_t shape[ND_MAX_DIMS];
    for (int d = 0; d < ndim; d++) shape[d] = a0->shape[d];
    shape[axis] = 0;
    for (int i = 0; i < n; i++) {
        const nd_array *a = arrays[i];
        if (!nd__same_device(a->device, a0->device)) {
            char d1[32], d2[32];
            return nd__err(ND_ERR_DEVICE, fn, "the array at index %d is on %s, but the array at index 0 is on %s", i,
                           nd__device_name(a->device, d1, sizeof d1), nd__device_name(a0->device, d2, sizeof d2));
        }
        nd_status st = nd_result_type(&dt, dt, a->dtype);
        if (st) return nd__err_prefix(st, fn);
        if (__builtin_add_overflow(shape[axis], a->shape[axis], &shape[axis]))
            return nd__err(ND_ERR_INVALID, fn, "array is too big: the joined extent overflows");
    }
    nd_status st = nd__check_shape(fn, ndim, shape, dt, NULL);
    if (st) return st;

    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, dt, ndim, shape, a0->device))) return st;
    /* a user 'out' sharing memory with an input: build the result aside
     * first so no input is overwritten before it is read (the copies
     * below cast, so any dtype and layout of 'out' is fine otherwise) */
    if ((st = nd__out_target(&t, dt, 0, n, arrays))) return nd__out_end(&t, st);
    nd_array *tgt = t.dst;
    int64_t pos = 0, isz = (int64_t)nd__itemsize(tgt->dtype);
    int64_t pshape[ND_MAX_DIMS];
    for (int i = 0; i < n && !st; i++) {
        const nd_array *a = arrays[i];
        int64_t ext = a->shape[axis];
        if (a->size == 0) {
            pos += ext;
            continue;
        }
        for (int d = 0; d < ndim; d++) pshape[d] = tgt->shape[d];
        pshape[axis] = ext;
        nd_array *v = NULL;
        st = nd__view(&v, tgt, tgt->dtype, ndim, pshape, tgt->strides, tgt->offset + pos * tgt->strides[axis] * isz);
        if (!st) st = nd__copy_into(v, a);
        nd_release(v);
        pos += ext;
    }
    return nd__out_end(&t, st);
}

nd_status nd_concatenate(nd_array **out, int n, const nd_array *const *arrays, int axis)
{
    ND_PROF_OP_N("concatenate", out, arrays && n > 0 ? n : 0, arrays);
    static const char *fn = "nd_concatenate";
    nd_status st = check_list(fn, "concatenate", out, n, arrays);
    if (st) return st;
    int ndim = arrays[0]->ndim;
    if (ndim == 0) return nd__err(ND_ERR_SHAPE, fn, "zero-dimensional arrays cannot be concatenated");
    if (axis < -ndim || axis >= ndim)
        return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", axis, ndim);
    int ax = axis < 0 ? axis + ndim : axis;
    for (int i = 1; i < n; i++) {
        const nd_array *a = arrays[i];
        if (a->ndim != ndim)
            return nd__err(ND_ERR_SHAPE, fn,
                           "all the input arrays must have same number of dimensions, but the array at index 0 has %d "
                           "dimension(s) and the array at index %d has %d dimension(s)",
                           ndim, i, a->ndim);
        for (int d = 0; d < ndim; d++) {
            if (d != ax && a->shape[d] != arrays[0]->shape[d])
                return nd__err(ND_ERR_SHAPE, fn,
                               "all the input array dimensions except for the concatenation axis must match exactly, "
                               "but along dimension %d, the array at index 0 has size %lld and the array at index %d "
                               "has size %lld",
                               d, (long long)arrays[0]->shape[d], i, (long long)a->shape[d]);
        }
    }
    return concat_core(fn, out, n, arrays, ax);
}

nd_status nd_stack(nd_array **out, int n, const nd_array *const *arrays, int axis)
{
    ND_PROF_OP_N("stack", out, arrays && n > 0 ? n : 0, arrays);
    static const char *fn = "nd_stack";
    nd_status st = check_list(fn, "stack", out, n, arrays);
    if (st) return st;
    const nd_array *a0 = arrays[0];
    for (int i = 1; i < n; i++) {
        const nd_array *a = arrays[i];
        bool same = a->ndim == a0->ndim;
        for (int d = 0; same && d < a0->ndim; d++) same = a->shape[d] == a0->shape[d];
        if (!same) {
            char b1[400], b2[400];
            return nd__err(ND_ERR_SHAPE, fn,
                           "all input arrays must have the same shape, but the array at index 0 has shape %s and the "
                           "array at index %d has shape %s",
                           nd__fmt_shape(b1, sizeof b1, a0->ndim, a0->shape), i,
                           nd__fmt_shape(b2, sizeof b2, a->ndim, a->shape));
        }
    }
    int ndim = a0->ndim + 1;
    if (ndim > ND_MAX_DIMS)
        return nd__err(ND_ERR_SHAPE, fn, "the result would have %d dimensions (maximum %d)", ndim, ND_MAX_DIMS);
    if (axis < -ndim || axis >= ndim)
        return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", axis, ndim);
    int ax = axis < 0 ? axis + ndim : axis;

    /* each input viewed with a new axis of extent 1 at ax */
    const nd_array **views = nd__calloc((size_t)n, sizeof *views);
    if (!views) return nd__err(ND_ERR_NOMEM, fn, "out of host memory for %d views", n);
    for (int i = 0; i < n && !st; i++) {
        const nd_array *a = arrays[i];
        int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS];
        for (int d = 0, j = 0; d < ndim; d++) {
            if (d == ax) {
                shape[d] = 1;
                strides[d] = 0;
                continue;
            }
            shape[d] = a->shape[j];
            strides[d] = a->strides[j];
            j++;
        }
        nd_array *v = NULL;
        st = nd__view(&v, a, a->dtype, ndim, shape, strides, a->offset);
        views[i] = v;
    }
    if (!st) st = concat_core(fn, out, n, views, ax);
    else st = nd__err_prefix(st, fn);
    for (int i = 0; i < n; i++) nd_release((nd_array *)views[i]);
    nd__free((void *)views);
    return st;
}
