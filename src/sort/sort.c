/*
 * Sorting: nd_sort, nd_argsort, nd_topk, nd_partition, nd_argpartition.
 *
 * One backend slot does the work (nd_backend.sort_rows: the rows of a
 * C-contiguous (rows, n) array, stable, NaNs last; src/core/backend.h). The core
 * moves the sorted axis last and makes it contiguous (a transposed copy
 * unless it already is), sorts, and moves the axis back while copying
 * into the result; a last-axis sort of a contiguous array writes straight
 * into the result. topk takes nd_backend.topk_rows where a backend has one
 * and otherwise sorts whole rows (descending for the largest) and keeps the
 * first k columns. partition is a full sort (a sorted array is a valid
 * partition for every kth, as CuPy does).
 */
#include <limits.h>
#include <string.h>

#include "core/internal.h"
#include "core/out.h"
#include "sort/sort.h"
#include "core/prof.h"

nd_status nd__sort_norm_axis(const char *func, int *axis, int ndim)
{
    if (*axis < -ndim || *axis >= ndim || ndim == 0)
        return nd__err(ND_ERR_SHAPE, func, "axis %d is out of bounds for array of dimension %d", *axis, ndim);
    if (*axis < 0) *axis += ndim;
    return ND_OK;
}

/* a with axis moved last, C-contiguous, viewed as (rows, n); *mshape gets
 * the moved shape (a's shape with axis last). */
static nd_status rows_of(const char *func, nd_array **rows, const nd_array *a, int axis, int64_t *mshape)
{
    int ndim = a->ndim, perm[ND_MAX_DIMS];
    for (int d = 0, j = 0; d < ndim; d++)
        if (d != axis) perm[j++] = d;
    perm[ndim - 1] = axis;
    for (int d = 0; d < ndim; d++) mshape[d] = a->shape[perm[d]];
    nd_array *tv = NULL, *c = NULL;
    nd_status st = nd_transpose(&tv, a, perm);
    if (!st) st = nd_contiguous(&c, tv);
    nd_release(tv);
    if (st) return nd__err_prefix(st, func);
    int64_t n = a->shape[axis], shp[2] = {n ? a->size / n : 0, n}, str[2] = {n, 1};
    st = nd__view(rows, c, c->dtype, 2, shp, str, c->offset);
    nd_release(c);
    return st ? nd__err_prefix(st, func) : ND_OK;
}

/* View of the moved-layout C-contiguous m (shape mshape) with axis put back
 * in place (a transposed view of m). */
static nd_status moved_back(nd_array **out, const nd_array *m, int ndim, const int64_t *mshape, int axis)
{
    int64_t str[ND_MAX_DIMS], shp[ND_MAX_DIMS], bstr[ND_MAX_DIMS];
    nd__contiguous_strides(ndim, mshape, str);
    for (int d = 0, j = 0; d < ndim; d++) {
        if (d == axis) {
            shp[d] = mshape[ndim - 1];
            bstr[d] = str[ndim - 1];
        } else {
            shp[d] = mshape[j];
            bstr[d] = str[j];
            j++;
        }
    }
    return nd__view(out, m, m->dtype, ndim, shp, bstr, m->offset);
}

/* Whether x is C-contiguous (every axis of extent > 1 at its C stride). */
static bool is_c_contig(const nd_array *x)
{
    int64_t s = 1;
    for (int d = x->ndim - 1; d >= 0; d--) {
        if (x->shape[d] != 1 && x->strides[d] != s) return false;
        s *= x->shape[d];
    }
    return true;
}

/* Sort a (ndim >= 1, size > 0) along axis into dv (a's dtype) and/or di
 * (int64), arrays of a's shape of any layout (NULL: not wanted), disjoint
 * from a. A direct write when axis is last and the destination C-contiguous
 * of the exact dtype. */
static nd_status sort_into(const char *func, nd_array *dv, nd_array *di, const nd_array *a, int axis, bool desc)
{
    const nd_backend *be = nd__backend(a->device);
    int ndim = a->ndim;
    int64_t mshape[ND_MAX_DIMS];
    nd_array *r = NULL, *mv = NULL, *mi = NULL, *v2 = NULL, *i2 = NULL;
    nd_status st = rows_of(func, &r, a, axis, mshape);
    if (st) return st;
    bool last = axis == ndim - 1;
    bool dv_direct = dv && last && dv->dtype == a->dtype && is_c_contig(dv);
    bool di_direct = di && last && di->dtype == ND_INT64 && is_c_contig(di);
    if (dv) {
        if (dv_direct) st = nd__view(&mv, dv, dv->dtype, 2, r->shape, r->strides, dv->offset);
        else st = nd__alloc(&mv, a->dtype, 2, r->shape, a->device);
    }
    if (!st && di) {
        if (di_direct) st = nd__view(&mi, di, ND_INT64, 2, r->shape, r->strides, di->offset);
        else st = nd__alloc(&mi, ND_INT64, 2, r->shape, a->device);
    }
    if (!st) st = be->sort_rows(mv, mi, r, desc);
    if (!st && dv && !dv_direct) {
        st = moved_back(&v2, mv, ndim, mshape, axis);
        if (!st) st = nd__copy_into(dv, v2);
    }
    if (!st && di && !di_direct) {
        st = moved_back(&i2, mi, ndim, mshape, axis);
        if (!st) st = nd__copy_into(di, i2);
    }
    nd_release(r);
    nd_release(mv);
    nd_release(mi);
    nd_release(v2);
    nd_release(i2);
    return st ? nd__err_prefix(st, func) : ND_OK;
}

nd_status nd__sort_axis(const char *func, nd_array **vals, nd_array **idx, const nd_array *a, int axis, bool desc)
{
    if (nd__no_complex(func, a, "a")) return ND_ERR_DTYPE; /* no complex loops yet */
    nd_array *v = NULL, *i = NULL;
    nd_status st = ND_OK;
    if (vals) st = nd__alloc(&v, a->dtype, a->ndim, a->shape, a->device);
    if (!st && idx) st = nd__alloc(&i, ND_INT64, a->ndim, a->shape, a->device);
    if (!st && a->size > 0) st = sort_into(func, v, i, a, axis, desc);
    if (st) {
        nd_release(v);
        nd_release(i);
        return nd__err_prefix(st, func);
    }
    if (vals) *vals = v;
    if (idx) *idx = i;
    return ND_OK;
}

/* The common checks of the sort family; *flat is a's flattened view when
 * axis is ND_AXIS_NONE (then *axis = 0), else a new reference to a. */
static nd_status sort_args(const char *fn, nd_array **out, const nd_array *a, int *axis, nd_array **src)
{
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (*axis == ND_AXIS_NONE) {
        int64_t n = a->size;
        nd_status st = nd_reshape(src, a, 1, &n);
        if (st) return nd__err_prefix(st, fn);
        *axis = 0;
        return ND_OK;
    }
    nd_status st = nd__sort_norm_axis(fn, axis, a->ndim);
    if (st) return st;
    *src = nd_retain((nd_array *)a);
    return ND_OK;
}

static nd_status sort_common(const char *fn, nd_array **out, const nd_array *a, int axis, unsigned flags, bool arg)
{
    if (nd__no_complex(fn, a, "a")) return ND_ERR_DTYPE; /* no complex loops yet */
    nd_array *x = NULL;
    nd_status st = sort_args(fn, out, a, &axis, &x);
    if (st) return st;
    if (flags & ~(unsigned)(ND_SORT_STABLE | ND_SORT_DESCENDING)) {
        nd_release(x);
        return nd__err(ND_ERR_INVALID, fn, "unknown flags 0x%x (ND_SORT_STABLE, ND_SORT_DESCENDING)", flags);
    }
    nd_out t;
    nd_dtype rt = arg ? ND_INT64 : x->dtype;
    if ((st = nd__out_begin(&t, fn, out, rt, x->ndim, x->shape, x->device))) {
        nd_release(x);
        return st;
    }
    const nd_array *ins[1] = {x};
    if (!(st = nd__out_target(&t, rt, 0, 1, ins)) && x->size > 0)
        st = sort_into(fn, arg ? NULL : t.dst, arg ? t.dst : NULL, x, axis, (flags & ND_SORT_DESCENDING) != 0);
    nd_release(x);
    return nd__out_end(&t, st);
}

nd_status nd_sort(nd_array **out, const nd_array *a, int axis, unsigned flags)
{
    ND_PROF_OP("sort", out, a);
    return sort_common("nd_sort", out, a, axis, flags, false);
}

nd_status nd_argsort(nd_array **out, const nd_array *a, int axis, unsigned flags)
{
    ND_PROF_OP("argsort", out, a);
    return sort_common("nd_argsort", out, a, axis, flags, true);
}

static nd_status partition_common(const char *fn, nd_array **out, const nd_array *a, int64_t kth, int axis, bool arg)
{
    if (nd__no_complex(fn, a, "a")) return ND_ERR_DTYPE; /* no complex loops yet */
    nd_array *x = NULL;
    int ax = axis;
    nd_status st = sort_args(fn, out, a, &ax, &x);
    if (st) return st;
    int64_t n = x->shape[ax];
    if (x->size > 0 && (kth < -n || kth >= n)) { /* NumPy does not check kth on an empty array */
        nd_release(x);
        return nd__err(ND_ERR_INVALID, fn, "kth(=%lld) out of bounds (%lld)", (long long)kth, (long long)n);
    }
    nd_release(x);
    return sort_common(fn, out, a, axis, 0, arg);
}

nd_status nd_partition(nd_array **out, const nd_array *a, int64_t kth, int axis)
{
    ND_PROF_OP("partition", out, a);
    return partition_common("nd_partition", out, a, kth, axis, false);
}

nd_status nd_argpartition(nd_array **out, const nd_array *a, int64_t kth, int axis)
{
    ND_PROF_OP("argpartition", out, a);
    return partition_common("nd_argpartition", out, a, kth, axis, true);
}

/* ------------------------------------------------------------------ */
/* top-k                                                               */
/* ------------------------------------------------------------------ */
/* Rows (rows, n) of a into mv/mi (rows, k) C-contiguous. */
static nd_status topk_rows(const char *fn, nd_array *mv, nd_array *mi, const nd_array *r, int64_t k, bool largest)
{
    const nd_backend *be = nd__backend(r->device);
    if (be->topk_rows) return be->topk_rows(mv, mi, r, k, largest);
    nd_array *sv = NULL, *si = NULL, *cv = NULL, *ci = NULL;
    nd_status st = ND_OK;
    if (mv) st = nd__alloc(&sv, r->dtype, 2, r->shape, r->device);
    if (!st) st = nd__alloc(&si, ND_INT64, 2, r->shape, r->device);
    if (!st) st = be->sort_rows(sv, si, r, largest);
    nd_range rg[2] = {ND_ALL, {0, k, 1}};
    if (!st && mv) st = nd_slice(&cv, sv, 2, rg);
    if (!st && mv) st = nd__copy_into(mv, cv);
    if (!st && mi) st = nd_slice(&ci, si, 2, rg);
    if (!st && mi) st = nd__copy_into(mi, ci);
    nd_release(sv);
    nd_release(si);
    nd_release(cv);
    nd_release(ci);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd_topk(nd_array **values, nd_array **indices, const nd_array *a, int64_t k, int axis, bool largest,
                  bool sorted)
{
    if (nd__no_complex("nd_topk", a, "a")) return ND_ERR_DTYPE; /* no complex loops yet */
    ND_PROF_OP("topk", values, a);
    static const char *fn = "nd_topk";
    (void)sorted; /* always sorted */
    if (!values && !indices) return nd__err(ND_ERR_INVALID, fn, "arguments 'values' and 'indices' are both NULL");
    ND_CHECK_PTR(fn, a, "a");
    if (values == indices) return nd__err(ND_ERR_INVALID, fn, "arguments 'values' and 'indices' are the same pointer");
    int ndim = a->ndim;
    nd_status st;
    if (ndim == 0) {
        /* torch: a 0-d tensor has one element along its "axis" */
        if (axis != 0 && axis != -1)
            return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension 0", axis);
    } else if ((st = nd__sort_norm_axis(fn, &axis, ndim))) {
        return st;
    }
    int64_t n = ndim ? a->shape[axis] : 1;
    if (k < 0 || k > n)
        return nd__err(ND_ERR_INVALID, fn, "k (%lld) is out of range for an axis of extent %lld", (long long)k, (long long)n);
    nd_array *x = NULL;
    if (ndim == 0) {
        int64_t one = 1;
        if ((st = nd_reshape(&x, a, 1, &one))) return nd__err_prefix(st, fn);
        axis = 0;
    } else {
        x = nd_retain((nd_array *)a);
    }
    int64_t shape[ND_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++) shape[d] = x->shape[d];
    shape[axis] = k;
    nd_out tv, ti;
    memset(&tv, 0, sizeof tv);
    memset(&ti, 0, sizeof ti);
    bool bv = false, bi = false;
    const nd_array *ins[1] = {x};
    st = ND_OK;
    if (values) {
        st = nd__out_begin(&tv, fn, values, x->dtype, ndim, ndim ? shape : NULL, x->device);
        bv = !st;
    }
    if (!st && indices) {
        st = nd__out_begin(&ti, fn, indices, ND_INT64, ndim, ndim ? shape : NULL, x->device);
        bi = !st;
    }
    if (!st && values) st = nd__out_target(&tv, x->dtype, 0, 1, ins);
    if (!st && indices) st = nd__out_target(&ti, ND_INT64, 0, 1, ins);
    /* two user outputs sharing memory would race */
    if (!st && values && indices && nd__may_overlap(tv.dst, ti.dst))
        st = nd__err(ND_ERR_INVALID, fn, "'values' and 'indices' share memory");
    if (!st && k > 0 && x->size > 0) {
        int64_t mshape[ND_MAX_DIMS];
        nd_array *r = NULL, *mv = NULL, *mi = NULL, *bvw = NULL, *biw = NULL;
        st = rows_of(fn, &r, x, axis, mshape);
        int64_t ks[2] = {r ? r->shape[0] : 0, k};
        mshape[x->ndim - 1] = k;
        if (!st && values) st = nd__alloc(&mv, x->dtype, 2, ks, x->device);
        if (!st && indices) st = nd__alloc(&mi, ND_INT64, 2, ks, x->device);
        if (!st) st = topk_rows(fn, mv, mi, r, k, largest);
        /* back in place (a 0-d input gives 0-d results) */
        if (!st && values)
            st = ndim ? moved_back(&bvw, mv, ndim, mshape, axis) : nd__view(&bvw, mv, mv->dtype, 0, NULL, NULL, mv->offset);
        if (!st && values) st = nd__copy_into(tv.dst, bvw);
        if (!st && indices)
            st = ndim ? moved_back(&biw, mi, ndim, mshape, axis) : nd__view(&biw, mi, ND_INT64, 0, NULL, NULL, mi->offset);
        if (!st && indices) st = nd__copy_into(ti.dst, biw);
        nd_release(r);
        nd_release(mv);
        nd_release(mi);
        nd_release(bvw);
        nd_release(biw);
    }
    nd_release(x);
    nd_status s1 = st, s2 = st;
    if (bv) s1 = nd__out_end(&tv, st);
    if (bi) s2 = nd__out_end(&ti, s1 ? s1 : st);
    (void)s2;
    /* a failure copying back the second output after the first was
     * handed over cannot be undone; it cannot happen for fresh outputs */
    return s1 ? s1 : s2;
}
