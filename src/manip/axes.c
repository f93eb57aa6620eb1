/* Manipulation views: nd_flip, nd_swapaxes, nd_moveaxis, nd_diagonal,
 * nd_broadcast_arrays, nd_unstack, nd_split, nd_array_split, nd_split_at.
 *
 * Each is a new header over a's buffer (nd__view): flip uses negative
 * strides (the array model allows them: nd_slice with a negative step
 * makes the same views), the diagonal a stride of s1 + s2. The out rule:
 * with *out != NULL the view's elements are copied into *out; a list of
 * results (split, unstack, broadcast_arrays) applies the rule per entry
 * after checking every given entry (mp__finish_list). */
#include <string.h>

#include "manip/manip.h"
#include "core/prof.h"

nd_status mp__axis(const char *fn, int axis, int ndim, int *res)
{
    if (axis < -ndim || axis >= ndim)
        return nd__err(MP_ERR_AXIS, fn, "axis %d is out of bounds for array of dimension %d", axis, ndim);
    *res = axis < 0 ? axis + ndim : axis;
    return ND_OK;
}

nd_status mp__view(nd_array **out, const nd_array *a, int ndim, const int64_t *shape, const int64_t *strides,
                   int64_t offset)
{
    return nd__view(out, a, a->dtype, ndim, shape, strides, offset);
}

nd_status mp__sub(nd_array **out, const nd_array *a, int ax, int64_t start, int64_t len, int step)
{
    int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS];
    memcpy(shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
    memcpy(strides, a->strides, sizeof(int64_t) * (size_t)a->ndim);
    shape[ax] = len;
    strides[ax] = step < 0 ? -a->strides[ax] : a->strides[ax];
    int64_t off = a->offset;
    if (len > 0 && a->size > 0) off += start * a->strides[ax] * (int64_t)nd__itemsize(a->dtype);
    return mp__view(out, a, a->ndim, shape, strides, off);
}

nd_status mp__finish_list(const char *fn, nd_array **outs, int64_t n, nd_array **views)
{
    nd_status st = ND_OK;
    for (int64_t i = 0; i < n && !st; i++)
        if (outs[i]) st = nd__out_check(fn, outs[i], views[i]->dtype, views[i]->ndim, views[i]->shape, views[i]->device);
    for (int64_t i = 0; i < n; i++) {
        if (st) nd_release(views[i]);
        else st = nd__out_deliver(fn, &outs[i], &views[i], views[i]->dtype, 0);
    }
    return st;
}

nd_status mp__ravel(nd_array **out, const nd_array *a)
{
    int64_t n = a->size;
    nd_array *r = NULL;
    nd_status st = nd_reshape(&r, a, 1, &n);
    if (!st) *out = r;
    return st;
}

/* ------------------------------------------------------------------ */
/* flip, swapaxes, moveaxis                                            */
/* ------------------------------------------------------------------ */
/* Normalise naxes distinct axes into mask (NumPy's normalize_axis_tuple:
 * every axis range-checked first, then duplicates refused). */
static nd_status axis_mask(const char *fn, const char *what, int ndim, int naxes, const int *axes, bool *mask)
{
    for (int i = 0; i < ND_MAX_DIMS; i++) mask[i] = false;
    if (naxes < 0 || naxes > ND_MAX_DIMS) return nd__err(ND_ERR_INVALID, fn, "naxes %d is out of range", naxes);
    if (naxes > 0 && axes == NULL) return nd__err(ND_ERR_INVALID, fn, "argument '%s' is NULL with %d axes", what, naxes);
    int ax[ND_MAX_DIMS];
    for (int i = 0; i < naxes; i++) {
        nd_status st = mp__axis(fn, axes[i], ndim, &ax[i]);
        if (st) return st;
    }
    for (int i = 0; i < naxes; i++) {
        if (mask[ax[i]]) return nd__err(ND_ERR_INVALID, fn, "repeated axis in '%s' argument", what);
        mask[ax[i]] = true;
    }
    return ND_OK;
}

nd_status nd_flip(nd_array **out, const nd_array *a, int naxes, const int *axes)
{
    ND_PROF_OP("flip", out, a);
    if (out && *out == NULL) ND_PROF_BYTES(0); /* views */
    static const char *fn = "nd_flip";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    bool mask[ND_MAX_DIMS];
    if (axes == NULL) {
        for (int i = 0; i < ND_MAX_DIMS; i++) mask[i] = i < a->ndim;
    } else {
        nd_status st = axis_mask(fn, "axis", a->ndim, naxes, axes, mask);
        if (st) return st;
    }
    int64_t strides[ND_MAX_DIMS], off = a->offset, isz = (int64_t)nd__itemsize(a->dtype);
    for (int i = 0; i < a->ndim; i++) {
        strides[i] = a->strides[i];
        if (!mask[i]) continue;
        strides[i] = -a->strides[i];
        if (a->size > 0) off += (a->shape[i] - 1) * a->strides[i] * isz;
    }
    nd_array *v = NULL;
    nd_status st = mp__view(&v, a, a->ndim, a->shape, strides, off);
    if (st) return nd__err_prefix(st, fn);
    return nd__out_deliver(fn, out, &v, v->dtype, 0);
}

/* a with its axes permuted (perm[i] = the axis of a that becomes axis i). */
static nd_status permuted(const char *fn, nd_array **out, const nd_array *a, const int *perm)
{
    int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS];
    for (int i = 0; i < a->ndim; i++) {
        shape[i] = a->shape[perm[i]];
        strides[i] = a->strides[perm[i]];
    }
    nd_array *v = NULL;
    nd_status st = mp__view(&v, a, a->ndim, shape, strides, a->offset);
    if (st) return nd__err_prefix(st, fn);
    return nd__out_deliver(fn, out, &v, v->dtype, 0);
}

nd_status nd_swapaxes(nd_array **out, const nd_array *a, int axis1, int axis2)
{
    ND_PROF_OP("swapaxes", out, a);
    if (out && *out == NULL) ND_PROF_BYTES(0); /* views */
    static const char *fn = "nd_swapaxes";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    int x1 = 0, x2 = 0, perm[ND_MAX_DIMS];
    nd_status st = mp__axis(fn, axis1, a->ndim, &x1);
    if (!st) st = mp__axis(fn, axis2, a->ndim, &x2);
    if (st) return st;
    for (int i = 0; i < a->ndim; i++) perm[i] = i;
    perm[x1] = x2;
    perm[x2] = x1;
    return permuted(fn, out, a, perm);
}

nd_status nd_moveaxis(nd_array **out, const nd_array *a, int n, const int *source, const int *destination)
{
    ND_PROF_OP("moveaxis", out, a);
    if (out && *out == NULL) ND_PROF_BYTES(0); /* views */
    static const char *fn = "nd_moveaxis";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    bool ms[ND_MAX_DIMS], md[ND_MAX_DIMS];
    nd_status st = axis_mask(fn, "source", a->ndim, n, source, ms);
    if (!st) st = axis_mask(fn, "destination", a->ndim, n, destination, md);
    if (st) return st;
    /* NumPy: order = [axes not in source]; insert source[i] at destination[i]
     * in increasing destination order */
    int perm[ND_MAX_DIMS], rest[ND_MAX_DIMS], nrest = 0, nd = a->ndim;
    for (int i = 0; i < nd; i++)
        if (!ms[i]) rest[nrest++] = i;
    int placed[ND_MAX_DIMS];
    for (int i = 0; i < nd; i++) placed[i] = -1;
    for (int i = 0; i < n; i++) {
        int s = source[i] < 0 ? source[i] + nd : source[i];
        int d = destination[i] < 0 ? destination[i] + nd : destination[i];
        placed[d] = s;
    }
    for (int i = 0, r = 0; i < nd; i++) perm[i] = placed[i] >= 0 ? placed[i] : rest[r++];
    return permuted(fn, out, a, perm);
}

/* ------------------------------------------------------------------ */
/* diagonal                                                            */
/* ------------------------------------------------------------------ */
nd_status nd_diagonal(nd_array **out, const nd_array *a, int64_t offset, int axis1, int axis2)
{
    ND_PROF_OP("diagonal", out, a);
    if (out && *out == NULL) ND_PROF_BYTES(0); /* views */
    static const char *fn = "nd_diagonal";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (a->ndim < 2) return nd__err(ND_ERR_INVALID, fn, "diag requires an array of at least two dimensions");
    int x1 = 0, x2 = 0;
    nd_status st = mp__axis(fn, axis1, a->ndim, &x1);
    if (!st) st = mp__axis(fn, axis2, a->ndim, &x2);
    if (st) return st;
    if (x1 == x2) return nd__err(ND_ERR_INVALID, fn, "axis1 and axis2 cannot be the same");
    int64_t n1 = a->shape[x1], n2 = a->shape[x2], len, r0 = 0, c0 = 0;
    if (offset >= 0) {
        len = offset >= n2 ? 0 : (n1 < n2 - offset ? n1 : n2 - offset);
        c0 = offset;
    } else {
        len = offset <= -n1 ? 0 : (n1 + offset < n2 ? n1 + offset : n2);
        r0 = len > 0 ? -offset : 0; /* len > 0: offset > -n1, never INT64_MIN */
    }
    int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS], off = a->offset;
    int k = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (i == x1 || i == x2) continue;
        shape[k] = a->shape[i];
        strides[k++] = a->strides[i];
    }
    shape[k] = len;
    strides[k++] = a->strides[x1] + a->strides[x2];
    bool empty = len == 0;
    for (int i = 0; i < k; i++) empty = empty || shape[i] == 0;
    if (!empty) off += (r0 * a->strides[x1] + c0 * a->strides[x2]) * (int64_t)nd__itemsize(a->dtype);
    nd_array *v = NULL;
    st = mp__view(&v, a, k, shape, strides, off);
    if (st) return nd__err_prefix(st, fn);
    v->readonly = true; /* NumPy >= 1.9: a read-only view */
    return nd__out_deliver(fn, out, &v, v->dtype, 0);
}

/* ------------------------------------------------------------------ */
/* broadcast_arrays                                                    */
/* ------------------------------------------------------------------ */
nd_status nd_broadcast_arrays(nd_array **outs, int n, const nd_array *const *arrays)
{
    ND_PROF_OP_N("broadcast_arrays", NULL, arrays && n > 0 ? n : 0, arrays);
    ND_PROF_BYTES(0); /* views */
    static const char *fn = "nd_broadcast_arrays";
    ND_CHECK_PTR(fn, outs, "outs");
    if (n < 0) return nd__err(ND_ERR_INVALID, fn, "n %d is negative", n);
    if (n > 0) ND_CHECK_PTR(fn, arrays, "arrays");
    int ndim = 0;
    int64_t shape[ND_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        if (!arrays[i]) return nd__err(ND_ERR_INVALID, fn, "arrays[%d] is NULL", i);
        if (i > 0 && !nd__same_device(arrays[i]->device, arrays[0]->device))
            return nd__err(ND_ERR_DEVICE, fn, "arrays[%d] is on another device than arrays[0]", i);
        int64_t prev[ND_MAX_DIMS];
        memcpy(prev, shape, sizeof(int64_t) * (size_t)ndim);
        nd_status st = nd__broadcast_shapes(fn, ndim, prev, arrays[i]->ndim, arrays[i]->shape, &ndim, shape);
        if (st) return st;
    }
    if (n == 0) return ND_OK;
    nd_array **views = nd__calloc((size_t)n, sizeof *views);
    if (!views) return nd__err(ND_ERR_NOMEM, fn, "out of host memory for %d views", n);
    nd_status st = ND_OK;
    for (int i = 0; i < n && !st; i++) st = nd__broadcast_view(&views[i], arrays[i], ndim, shape);
    if (st) {
        for (int i = 0; i < n; i++) nd_release(views[i]);
        nd__free(views);
        return nd__err_prefix(st, fn);
    }
    st = mp__finish_list(fn, outs, n, views);
    nd__free(views);
    return st;
}

/* ------------------------------------------------------------------ */
/* unstack and split                                                   */
/* ------------------------------------------------------------------ */
/* The pieces [bounds[i], bounds[i+1]) of a along ax (Python slice
 * semantics: clamped, empty when stop <= start); drop_axis: unstack. */
static nd_status pieces(const char *fn, nd_array **outs, int64_t capacity, int64_t *count, const nd_array *a, int ax,
                        int64_t npieces, const int64_t *starts, const int64_t *stops, bool drop_axis)
{
    if (count) *count = npieces;
    if (capacity < npieces)
        return nd__err(ND_ERR_INVALID, fn, "the result has %lld arrays but 'outs' has capacity %lld",
                       (long long)npieces, (long long)capacity);
    if (npieces > 0 && outs == NULL) return nd__err(ND_ERR_INVALID, fn, "argument 'outs' is NULL");
    if (npieces == 0) return ND_OK;
    nd_array **views = nd__calloc((size_t)npieces, sizeof *views);
    if (!views) return nd__err(ND_ERR_NOMEM, fn, "out of host memory for %lld views", (long long)npieces);
    nd_status st = ND_OK;
    int64_t ext = a->shape[ax];
    for (int64_t i = 0; i < npieces && !st; i++) {
        int64_t s = starts[i], e = stops[i];
        if (s < 0) s = s + ext < 0 ? 0 : s + ext;
        if (s > ext) s = ext;
        if (e < 0) e = e + ext < 0 ? 0 : e + ext;
        if (e > ext) e = ext;
        int64_t len = e > s ? e - s : 0;
        nd_array *v = NULL;
        st = mp__sub(&v, a, ax, s, len, 1);
        if (!st && drop_axis) {
            int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS];
            for (int d = 0, k = 0; d < a->ndim; d++)
                if (d != ax) shape[k] = v->shape[d], strides[k++] = v->strides[d];
            st = mp__view(&views[i], v, a->ndim - 1, shape, strides, v->offset);
            nd_release(v);
        } else {
            views[i] = v;
        }
    }
    if (st) {
        for (int64_t i = 0; i < npieces; i++) nd_release(views[i]);
        nd__free(views);
        return nd__err_prefix(st, fn);
    }
    st = mp__finish_list(fn, outs, npieces, views);
    nd__free(views);
    return st;
}

static nd_status split_common(const char *fn, nd_array **outs, int64_t capacity, int64_t *count, const nd_array *a,
                              int64_t sections, int axis, bool equal)
{
    ND_CHECK_PTR(fn, a, "a");
    if (capacity < 0) return nd__err(ND_ERR_INVALID, fn, "capacity %lld is negative", (long long)capacity);
    int ax = 0;
    nd_status st = mp__axis(fn, axis, a->ndim, &ax);
    if (st) return st;
    if (sections <= 0) return nd__err(ND_ERR_INVALID, fn, "number sections must be larger than 0 (got %lld)", (long long)sections);
    int64_t n = a->shape[ax];
    if (equal && n % sections != 0)
        return nd__err(ND_ERR_INVALID, fn, "array split does not result in an equal division (%lld into %lld)",
                       (long long)n, (long long)sections);
    if (sections > (int64_t)1 << 40) return nd__err(ND_ERR_INVALID, fn, "sections %lld is too large", (long long)sections);
    int64_t *b = nd__malloc(sizeof(int64_t) * (size_t)(sections + 1));
    if (!b) return nd__err(ND_ERR_NOMEM, fn, "out of host memory for %lld sections", (long long)sections);
    int64_t each = n / sections, extras = n % sections;
    b[0] = 0;
    for (int64_t i = 0; i < sections; i++) b[i + 1] = b[i] + each + (i < extras ? 1 : 0);
    st = pieces(fn, outs, capacity, count, a, ax, sections, b, b + 1, false);
    nd__free(b);
    return st;
}

nd_status nd_split(nd_array **outs, int64_t capacity, int64_t *count, const nd_array *a, int64_t sections, int axis)
{
    ND_PROF_OP("split", NULL, a);
    ND_PROF_BYTES(0); /* views */
    return split_common("nd_split", outs, capacity, count, a, sections, axis, true);
}

nd_status nd_array_split(nd_array **outs, int64_t capacity, int64_t *count, const nd_array *a, int64_t sections,
                         int axis)
{
    ND_PROF_OP("array_split", NULL, a);
    ND_PROF_BYTES(0); /* views */
    return split_common("nd_array_split", outs, capacity, count, a, sections, axis, false);
}

nd_status nd_split_at(nd_array **outs, int64_t capacity, int64_t *count, const nd_array *a, int nindices,
                      const int64_t *indices, int axis)
{
    ND_PROF_OP("split_at", NULL, a);
    ND_PROF_BYTES(0); /* views */
    static const char *fn = "nd_split_at";
    ND_CHECK_PTR(fn, a, "a");
    if (capacity < 0) return nd__err(ND_ERR_INVALID, fn, "capacity %lld is negative", (long long)capacity);
    if (nindices < 0) return nd__err(ND_ERR_INVALID, fn, "nindices %d is negative", nindices);
    if (nindices > 0) ND_CHECK_PTR(fn, indices, "indices");
    int ax = 0;
    nd_status st = mp__axis(fn, axis, a->ndim, &ax);
    if (st) return st;
    int64_t *b = nd__malloc(sizeof(int64_t) * ((size_t)nindices + 2));
    if (!b) return nd__err(ND_ERR_NOMEM, fn, "out of host memory for %d indices", nindices);
    b[0] = 0;
    for (int i = 0; i < nindices; i++) b[i + 1] = indices[i];
    b[nindices + 1] = a->shape[ax];
    st = pieces(fn, outs, capacity, count, a, ax, (int64_t)nindices + 1, b, b + 1, false);
    nd__free(b);
    return st;
}

nd_status nd_unstack(nd_array **outs, int64_t capacity, int64_t *count, const nd_array *a, int axis)
{
    ND_PROF_OP("unstack", NULL, a);
    ND_PROF_BYTES(0); /* views */
    static const char *fn = "nd_unstack";
    ND_CHECK_PTR(fn, a, "a");
    if (capacity < 0) return nd__err(ND_ERR_INVALID, fn, "capacity %lld is negative", (long long)capacity);
    if (a->ndim == 0) return nd__err(ND_ERR_INVALID, fn, "Input array must be at least 1-d.");
    int ax = 0;
    nd_status st = mp__axis(fn, axis, a->ndim, &ax);
    if (st) return st;
    int64_t n = a->shape[ax];
    int64_t *b = nd__malloc(sizeof(int64_t) * ((size_t)n + 1));
    if (!b) return nd__err(ND_ERR_NOMEM, fn, "out of host memory for %lld pieces", (long long)n);
    for (int64_t i = 0; i <= n; i++) b[i] = i;
    st = pieces(fn, outs, capacity, count, a, ax, n, b, b + 1, true);
    nd__free(b);
    return st;
}
