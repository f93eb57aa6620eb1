/* Views: reshape, transpose, slice, squeeze, expand_dims, broadcast_to.
 *
 * Each makes a new header sharing a's buffer (nd__subview where the shape
 * cannot hold more than a's, nd__view for broadcast_to); reshape falls
 * back to a copy when the strides do not allow a view. The out rule: with
 * *out != NULL the view's elements are copied into *out (finish_view). */
#include <string.h>

#include "core/internal.h"
#include "core/out.h"
#include "core/prof.h"

/* Normalise axis (negatives count from the end) into [0, ndim). */
static nd_status norm_axis(const char *fn, int axis, int ndim, int *res)
{
    if (axis < -ndim || axis >= ndim)
        return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", axis, ndim);
    *res = axis < 0 ? axis + ndim : axis;
    return ND_OK;
}

/* The out rule for a view v of the op fn: with *out NULL the view itself
 * (nd__out_deliver's first case, here without the call: a view costs a
 * few tens of nanoseconds, and the call a tenth of that), else
 * nd__out_deliver copies it into *out. */
static inline nd_status deliver(const char *fn, nd_array **out, nd_array **v)
{
    if (*out == NULL) {
        *out = *v;
        *v = NULL;
        return ND_OK;
    }
    return nd__out_deliver(fn, out, v, (*v)->dtype, 0);
}

/* ------------------------------------------------------------------ */
/* reshape                                                             */
/* ------------------------------------------------------------------ */
static bool c_contiguous(const nd_array *a)
{
    if (a->size == 0) return true;
    int64_t s = 1;
    for (int i = a->ndim - 1; i >= 0; i--) {
        if (a->shape[i] != 1 && a->strides[i] != s) return false;
        s *= a->shape[i];
    }
    return true;
}

/* NumPy's _attempt_nocopy_reshape (C order) with strides in elements:
 * whether a (size > 0) can be viewed with the new shape; fills the new
 * strides when it can. */
static bool attempt_nocopy_reshape(const nd_array *a, int newnd, const int64_t *newdims, int64_t *newstrides)
{
    int64_t olddims[ND_MAX_DIMS], oldstrides[ND_MAX_DIMS];
    int oldnd = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] != 1) {
            olddims[oldnd] = a->shape[i];
            oldstrides[oldnd] = a->strides[i];
            oldnd++;
        }
    }
    int oi = 0, oj = 1, ni = 0, nj = 1;
    while (ni < newnd && oi < oldnd) {
        int64_t np = newdims[ni], op = olddims[oi];
        while (np != op) {
            if (np < op) np *= newdims[nj++]; /* trailing 1s are handled later */
            else op *= olddims[oj++];
        }
        /* can the original axes oi..oj-1 be merged? */
        for (int ok = oi; ok < oj - 1; ok++)
            if (oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]) return false;
        newstrides[nj - 1] = oldstrides[oj - 1];
        for (int nk = nj - 1; nk > ni; nk--) newstrides[nk - 1] = newstrides[nk] * newdims[nk];
        ni = nj++;
        oi = oj++;
    }
    int64_t last = ni >= 1 ? newstrides[ni - 1] : 1;
    for (int nk = ni; nk < newnd; nk++) newstrides[nk] = last;
    return true;
}

nd_status nd_reshape(nd_array **out, const nd_array *a, int ndim, const int64_t *shape)
{
    ND_PROF_OP("reshape", out, a);
    static const char *fn = "nd_reshape";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (ndim < 0 || ndim > ND_MAX_DIMS)
        return nd__err(ND_ERR_INVALID, fn, "ndim %d is out of range [0, %d]", ndim, ND_MAX_DIMS);
    if (ndim > 0 && shape == NULL) return nd__err(ND_ERR_INVALID, fn, "argument 'shape' is NULL with ndim %d", ndim);

    int64_t dims[ND_MAX_DIMS];
    int unknown = -1;
    int64_t known = 1;
    bool overflow = false;
    for (int i = 0; i < ndim; i++) {
        dims[i] = shape[i];
        if (shape[i] < 0) {
            if (shape[i] != -1 || unknown >= 0)
                return nd__err(ND_ERR_INVALID, fn,
                               shape[i] == -1 ? "can only specify one unknown dimension"
                                              : "negative dimensions are not allowed (shape[%d] = %lld)",
                               i, (long long)shape[i]);
            unknown = i;
            continue;
        }
        if (__builtin_mul_overflow(known, shape[i], &known)) overflow = true;
    }
    if (known == 0) overflow = false; /* a zero extent makes the product 0 */
    char b1[400];
    if (unknown >= 0) {
        if (overflow || known == 0 || a->size % known != 0)
            return nd__err(ND_ERR_SHAPE, fn, "cannot reshape array of size %lld into shape %s", (long long)a->size,
                           nd__fmt_shape(b1, sizeof b1, ndim, shape));
        dims[unknown] = a->size / known;
    } else if (overflow || known != a->size) {
        return nd__err(ND_ERR_SHAPE, fn, "cannot reshape array of size %lld into shape %s", (long long)a->size,
                       nd__fmt_shape(b1, sizeof b1, ndim, shape));
    }

    /* (0, 2^62, 2) multiplies to 0 but cannot exist (NumPy: too big) */
    nd_status st = nd__check_shape(fn, ndim, dims, a->dtype, NULL);
    if (st) return st;
    int64_t strides[ND_MAX_DIMS];
    nd_array *v = NULL;
    bool same = ndim == a->ndim, copied = false;
    for (int i = 0; same && i < ndim; i++) same = dims[i] == a->shape[i];
    if (same) {
        st = nd__subview(&v, a, ndim, dims, a->strides, a->offset);
    } else if (c_contiguous(a)) {
        nd__contiguous_strides(ndim, dims, strides);
        st = nd__subview(&v, a, ndim, dims, strides, a->offset);
    } else if (attempt_nocopy_reshape(a, ndim, dims, strides)) {
        st = nd__subview(&v, a, ndim, dims, strides, a->offset);
    } else {
        /* copy: a C-contiguous result, written through a view of it
         * with a's shape */
        nd_array *r = NULL, *rv = NULL;
        st = nd__alloc(&r, a->dtype, ndim, dims, a->device);
        if (!st) {
            nd__contiguous_strides(a->ndim, a->shape, strides);
            st = nd__view(&rv, r, r->dtype, a->ndim, a->shape, strides, r->offset);
        }
        if (!st) st = nd__copy_into(rv, a);
        nd_release(rv);
        if (st) nd_release(r);
        else v = r;
        copied = true;
    }
    if (st) return nd__err_prefix(st, fn);
    if (*out == NULL && !copied) ND_PROF_BYTES(0); /* a view */
    return deliver(fn, out, &v);
}

/* ------------------------------------------------------------------ */
/* transpose                                                           */
/* ------------------------------------------------------------------ */
nd_status nd_transpose(nd_array **out, const nd_array *a, const int *axes)
{
    ND_PROF_OP("transpose", out, a);
    static const char *fn = "nd_transpose";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    int n = a->ndim, perm[ND_MAX_DIMS];
    bool seen[ND_MAX_DIMS] = {false};
    for (int i = 0; i < n; i++) {
        if (axes == NULL) {
            perm[i] = n - 1 - i;
            continue;
        }
        nd_status st = norm_axis(fn, axes[i], n, &perm[i]);
        if (st) return st;
        if (seen[perm[i]]) return nd__err(ND_ERR_SHAPE, fn, "repeated axis in transpose (axes[%d] = %d)", i, axes[i]);
        seen[perm[i]] = true;
    }
    int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        shape[i] = a->shape[perm[i]];
        strides[i] = a->strides[perm[i]];
    }
    nd_array *v = NULL;
    nd_status st = nd__subview(&v, a, n, shape, strides, a->offset);
    if (st) return nd__err_prefix(st, fn);
    if (*out == NULL) ND_PROF_BYTES(0); /* a view */
    return deliver(fn, out, &v);
}

/* ------------------------------------------------------------------ */
/* slice                                                               */
/* ------------------------------------------------------------------ */
/* PySlice_Unpack + PySlice_AdjustIndices: start/stop clamped into the
 * axis, returns the number of elements. step is non-zero and
 * > INT64_MIN. */
static int64_t adjust_slice(int64_t length, int64_t *start, int64_t *stop, int64_t step)
{
    if (*start == ND_NONE) *start = step < 0 ? INT64_MAX : 0;
    if (*stop == ND_NONE) *stop = step < 0 ? INT64_MIN : INT64_MAX;
    int64_t *v[2] = {start, stop};
    for (int j = 0; j < 2; j++) {
        if (*v[j] < 0) {
            *v[j] += length;
            if (*v[j] < 0) *v[j] = step < 0 ? -1 : 0;
        } else if (*v[j] >= length) {
            *v[j] = step < 0 ? length - 1 : length;
        }
    }
    if (step < 0) {
        if (*stop < *start) return (*start - *stop - 1) / (-step) + 1;
    } else if (*start < *stop) {
        return (*stop - *start - 1) / step + 1;
    }
    return 0;
}

nd_status nd_slice(nd_array **out, const nd_array *a, int nranges, const nd_range *ranges)
{
    ND_PROF_OP("slice", out, a);
    static const char *fn = "nd_slice";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (nranges < 0) return nd__err(ND_ERR_INVALID, fn, "nranges %d is negative", nranges);
    if (nranges > 0 && ranges == NULL) return nd__err(ND_ERR_INVALID, fn, "argument 'ranges' is NULL with nranges %d", nranges);
    if (nranges > a->ndim)
        return nd__err(ND_ERR_SHAPE, fn, "too many indices for array: array is %d-dimensional, but %d were indexed",
                       a->ndim, nranges);
    int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS];
    int64_t offset = a->offset, isz = (int64_t)nd__itemsize(a->dtype);
    bool empty = false;
    for (int i = 0; i < a->ndim; i++) {
        shape[i] = a->shape[i];
        strides[i] = a->strides[i];
        if (i >= nranges) continue;
        int64_t start = ranges[i].start, stop = ranges[i].stop, step = ranges[i].step;
        if (step == 0) return nd__err(ND_ERR_INVALID, fn, "slice step cannot be zero (ranges[%d])", i);
        if (step == ND_NONE) step = 1; /* Python's None step */
        int64_t len = adjust_slice(a->shape[i], &start, &stop, step);
        shape[i] = len;
        if (len == 0) empty = true;
        /* start in [0, extent) when len > 0, so the offset stays inside
         * the buffer; the stride product can only overflow when len <= 1,
         * where the stride does not matter */
        if (len > 0) offset += start * a->strides[i] * isz;
        int64_t s;
        if (!__builtin_mul_overflow(a->strides[i], step, &s)) strides[i] = s;
    }
    if (empty) offset = a->offset; /* no element is addressed; keep a valid pointer */
    nd_array *v = NULL;
    nd_status st = nd__subview(&v, a, a->ndim, shape, strides, offset);
    if (st) return nd__err_prefix(st, fn);
    if (*out == NULL) ND_PROF_BYTES(0); /* a view */
    return deliver(fn, out, &v);
}

/* ------------------------------------------------------------------ */
/* basic indexing                                                      */
/* ------------------------------------------------------------------ */
nd_status nd_basic_index(nd_array **out, const nd_array *a, int nitems, const nd_index_item *items)
{
    ND_PROF_OP("basic_index", out, a);
    static const char *fn = "nd_basic_index";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (nitems < 0) return nd__err(ND_ERR_INVALID, fn, "nitems %d is negative", nitems);
    if (nitems > 0 && items == NULL) return nd__err(ND_ERR_INVALID, fn, "argument 'items' is NULL with nitems %d", nitems);
    int n_real = 0, n_int = 0, n_new = 0, ell = -1;
    for (int i = 0; i < nitems; i++) {
        switch (items[i].kind) {
        case ND_INDEX_INT: n_int++; /* fall through */
        case ND_INDEX_SLICE: n_real++; break;
        case ND_INDEX_NEWAXIS: n_new++; break;
        case ND_INDEX_ELLIPSIS:
            if (ell >= 0)
                return nd__err(ND_ERR_INVALID, fn, "an index can only have a single ellipsis ('...') (items[%d] and items[%d])",
                               ell, i);
            ell = i;
            break;
        default: return nd__err(ND_ERR_INVALID, fn, "items[%d] has an unknown kind %d", i, (int)items[i].kind);
        }
    }
    if (n_real > a->ndim)
        return nd__err(ND_ERR_SHAPE, fn, "too many indices for array: array is %d-dimensional, but %d were indexed",
                       a->ndim, n_real);
    if (a->ndim - n_int + n_new > ND_MAX_DIMS)
        return nd__err(ND_ERR_SHAPE, fn, "the result would have %d dimensions (maximum %d)", a->ndim - n_int + n_new,
                       ND_MAX_DIMS);
    int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS];
    bool inserted[ND_MAX_DIMS];
    int64_t offset = a->offset, isz = (int64_t)nd__itemsize(a->dtype);
    bool empty = false;
    int ax = 0, n = 0; /* the next axis of a, of the result */
    for (int i = 0; i <= nitems; i++) {
        /* the whole axes: those of the Ellipsis, or after the last item */
        if (i == nitems ? ell < 0 : i == ell) {
            for (int j = a->ndim - n_real; j > 0; j--, ax++, n++) {
                shape[n] = a->shape[ax];
                strides[n] = a->strides[ax];
                inserted[n] = false;
                if (shape[n] == 0) empty = true;
            }
            continue;
        }
        if (i == nitems) break;
        const nd_index_item *it = &items[i];
        if (it->kind == ND_INDEX_NEWAXIS) {
            shape[n] = 1;
            inserted[n++] = true;
        } else if (it->kind == ND_INDEX_INT) {
            int64_t k = it->start, len = a->shape[ax];
            if (k < -len || k >= len)
                return nd__err(ND_ERR_INVALID, fn, "index %lld is out of bounds for axis %d with size %lld", (long long)k,
                               ax, (long long)len);
            if (k < 0) k += len;
            offset += k * a->strides[ax] * isz;
            ax++;
        } else if (it->kind == ND_INDEX_SLICE) {
            int64_t start = it->start, stop = it->stop, step = it->step;
            if (step == 0) return nd__err(ND_ERR_INVALID, fn, "slice step cannot be zero (items[%d])", i);
            if (step == ND_NONE) step = 1;
            int64_t len = adjust_slice(a->shape[ax], &start, &stop, step);
            /* as in nd_slice: the offset stays inside the buffer, and a
             * stride product that overflows (len <= 1) does not matter */
            if (len > 0) offset += start * a->strides[ax] * isz;
            else empty = true;
            shape[n] = len;
            if (__builtin_mul_overflow(a->strides[ax], step, &strides[n])) strides[n] = a->strides[ax];
            inserted[n++] = false;
            ax++;
        }
    }
    /* an inserted axis keeps contiguity as in nd_expand_dims: the stride of
     * the axis it precedes, scaled (right to left, for runs of them) */
    for (int j = n - 1; j >= 0; j--)
        if (inserted[j] && (j == n - 1 || __builtin_mul_overflow(shape[j + 1], strides[j + 1], &strides[j])))
            strides[j] = j == n - 1 ? 1 : 0;
    if (empty) offset = a->offset; /* no element is addressed; keep a valid pointer */
    nd_array *v = NULL;
    nd_status st = nd__subview(&v, a, n, shape, strides, offset);
    if (st) return nd__err_prefix(st, fn);
    if (*out == NULL) ND_PROF_BYTES(0); /* a view */
    return deliver(fn, out, &v);
}

/* ------------------------------------------------------------------ */
/* squeeze / expand_dims                                               */
/* ------------------------------------------------------------------ */
nd_status nd_squeeze(nd_array **out, const nd_array *a, int naxes, const int *axes)
{
    ND_PROF_OP("squeeze", out, a);
    static const char *fn = "nd_squeeze";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    bool drop[ND_MAX_DIMS] = {false};
    if (axes == NULL) {
        for (int i = 0; i < a->ndim; i++) drop[i] = a->shape[i] == 1;
    } else {
        if (naxes < 0 || naxes > a->ndim)
            return nd__err(ND_ERR_INVALID, fn, "naxes %d is out of range [0, %d]", naxes, a->ndim);
        for (int j = 0; j < naxes; j++) {
            int ax = 0;
            nd_status st = norm_axis(fn, axes[j], a->ndim, &ax);
            if (st) return st;
            if (drop[ax]) return nd__err(ND_ERR_SHAPE, fn, "duplicate value in 'axes' (%d)", axes[j]);
            if (a->shape[ax] != 1)
                return nd__err(ND_ERR_SHAPE, fn,
                               "cannot select an axis to squeeze out which has size not equal to one (axis %d has "
                               "extent %lld)",
                               axes[j], (long long)a->shape[ax]);
            drop[ax] = true;
        }
    }
    int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (drop[i]) continue;
        shape[n] = a->shape[i];
        strides[n] = a->strides[i];
        n++;
    }
    nd_array *v = NULL;
    nd_status st = nd__subview(&v, a, n, shape, strides, a->offset);
    if (st) return nd__err_prefix(st, fn);
    if (*out == NULL) ND_PROF_BYTES(0); /* a view */
    return deliver(fn, out, &v);
}

nd_status nd_expand_dims(nd_array **out, const nd_array *a, int axis)
{
    ND_PROF_OP("expand_dims", out, a);
    static const char *fn = "nd_expand_dims";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (a->ndim >= ND_MAX_DIMS)
        return nd__err(ND_ERR_SHAPE, fn, "the result would have %d dimensions (maximum %d)", a->ndim + 1, ND_MAX_DIMS);
    int n = a->ndim + 1, ax = 0;
    nd_status st = norm_axis(fn, axis, n, &ax);
    if (st) return st;
    int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS];
    for (int i = 0, j = 0; i < n; i++) {
        if (i == ax) {
            shape[i] = 1;
            /* keep contiguity: the stride of the axis it precedes, scaled */
            strides[i] = 1;
            if (ax < a->ndim && __builtin_mul_overflow(a->shape[ax], a->strides[ax], &strides[i])) strides[i] = 0;
            continue;
        }
        shape[i] = a->shape[j];
        strides[i] = a->strides[j];
        j++;
    }
    nd_array *v = NULL;
    st = nd__subview(&v, a, n, shape, strides, a->offset);
    if (st) return nd__err_prefix(st, fn);
    if (*out == NULL) ND_PROF_BYTES(0); /* a view */
    return deliver(fn, out, &v);
}

/* ------------------------------------------------------------------ */
/* broadcast_to                                                        */
/* ------------------------------------------------------------------ */
nd_status nd_broadcast_to(nd_array **out, const nd_array *a, int ndim, const int64_t *shape)
{
    ND_PROF_OP("broadcast_to", out, a);
    static const char *fn = "nd_broadcast_to";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    nd_status st = nd__check_shape(fn, ndim, shape, a->dtype, NULL);
    if (st) return st;
    if (ndim < a->ndim)
        return nd__err(ND_ERR_SHAPE, fn,
                       "input operand has more dimensions than allowed by the axis remapping (%d > %d)", a->ndim, ndim);
    int64_t strides[ND_MAX_DIMS];
    int lead = ndim - a->ndim;
    for (int i = 0; i < ndim; i++) {
        int j = i - lead;
        if (j < 0) strides[i] = 0;
        else if (a->shape[j] == shape[i]) strides[i] = a->strides[j];
        else if (a->shape[j] == 1) strides[i] = 0;
        else {
            char b1[400], b2[400];
            return nd__err(ND_ERR_SHAPE, fn, "array of shape %s cannot be broadcast to the requested shape %s",
                           nd__fmt_shape(b1, sizeof b1, a->ndim, a->shape), nd__fmt_shape(b2, sizeof b2, ndim, shape));
        }
    }
    nd_array *v = NULL;
    st = nd__view(&v, a, a->dtype, ndim, shape, strides, a->offset);
    if (st) return nd__err_prefix(st, fn);
    if (*out == NULL) ND_PROF_BYTES(0); /* a view */
    return deliver(fn, out, &v);
}
