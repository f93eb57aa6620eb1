/* Sparse matrices: the object, construction with validation, inspection,
 * conversions between formats and the canonical forms (scipy.sparse's
 * csr/csc/coo arrays). The computing loops are the backends' (the slot
 * `sparse`, src/shared/sparse_slots.h); this file validates, picks formats
 * and index dtypes, and assembles results. */
#include <string.h>

#include "core/out.h"
#include "sparse/sparse_impl.h"

static const char *FMT_NAME[] = {"csr", "csc", "coo"};

nd_status nd__sp_new(nd_sparse **out, nd_sparse_format fmt, int64_t rows, int64_t cols, nd_array *data,
                     nd_array *indices, nd_array *indptr, nd_array *row, nd_array *col, bool canonical)
{
    nd_sparse *s = nd__calloc(1, sizeof *s);
    if (!s) {
        nd_release(data);
        nd_release(indices);
        nd_release(indptr);
        nd_release(row);
        nd_release(col);
        return nd__err(ND_ERR_NOMEM, "nd_sparse", "out of host memory for a matrix handle");
    }
    *s = (nd_sparse){.fmt = fmt, .rows = rows, .cols = cols, .data = data, .indices = indices, .indptr = indptr,
                     .row = row, .col = col, .canonical = canonical};
    *out = s;
    return ND_OK;
}

void nd_sparse_release(nd_sparse *s)
{
    if (!s) return;
    nd_release(s->data);
    nd_release(s->indices);
    nd_release(s->indptr);
    nd_release(s->row);
    nd_release(s->col);
    nd__free(s);
}

nd_sp_csr nd__sp_csr_form(const nd_sparse *s)
{
    bool csr = s->fmt == ND_SPARSE_CSR;
    return (nd_sp_csr){.rows = csr ? s->rows : s->cols, .cols = csr ? s->cols : s->rows, .indptr = s->indptr,
                       .indices = s->indices, .data = s->data};
}

nd_status nd__sp_from_csr(nd_sparse **out, nd_sparse_format fmt, nd_sp_csr *c, bool canonical)
{
    bool csr = fmt == ND_SPARSE_CSR;
    nd_status st = nd__sp_new(out, fmt, csr ? c->rows : c->cols, csr ? c->cols : c->rows, c->data, c->indices,
                              c->indptr, NULL, NULL, canonical);
    c->data = c->indices = c->indptr = NULL;
    return st;
}

nd_status nd__sp_slot(const char *fn, nd_device dev, nd_status (**slot)(nd_sp_call *))
{
    const nd_backend *be = nd__backend(dev);
    if (!be || !be->sparse) {
        char nb[32];
        return nd__err(ND_ERR_UNSUPPORTED, fn, "%s has no sparse kernels (move the matrix to the CPU with nd_sparse_to_device)",
                       nd__device_name(dev, nb, sizeof nb));
    }
    *slot = be->sparse;
    return ND_OK;
}

/* a float32 copy of a half-valued operand in *w (a untouched otherwise) */
static nd_status sp_widen(nd_array **w, const nd_array *a)
{
    *w = NULL;
    if (!a || !nd__sp_half(a->dtype)) return ND_OK;
    return nd__copy_new(w, a, ND_FLOAT32);
}

/* The slot's op on float16/bfloat16 values other than SpMV/SpMM: the
 * value operands widened to float32 (exactly), the op run there (sums in
 * float32), and its values rounded back to the half dtype h once. */
static nd_status sp_run_widened(nd_status (*slot)(nd_sp_call *), nd_sp_call *call, nd_dtype h)
{
    nd_sp_call w = *call;
    nd_array *ad = NULL, *bd = NULL, *x = NULL, *y = NULL, *cd = NULL;
    nd_status st;
    if ((st = sp_widen(&ad, call->a.data)) || (st = sp_widen(&bd, call->b.data)) || (st = sp_widen(&x, call->x)))
        goto done;
    if (call->y && nd__sp_half(call->y->dtype) &&
        (st = nd__alloc(&y, ND_FLOAT32, call->y->ndim, call->y->shape, call->y->device)))
        goto done;
    if (ad) w.a.data = ad;
    if (bd) w.b.data = bd;
    if (x) w.x = x;
    if (y) w.y = y;
    if ((st = slot(&w))) goto done;
    if (y) st = nd__copy_into(call->y, y);
    if (!st && w.c.data) st = nd__copy_new(&cd, w.c.data, h);
    if (st) {
        nd_release(w.c.indptr), nd_release(w.c.indices), nd_release(w.c.data);
        /* row is the slot's output only when it made one (EXPAND); for
         * FROM_COO it is the caller's input, not ours to release */
        if (w.row != call->row) nd_release(w.row);
        goto done;
    }
    if (w.c.data) {
        nd_release(w.c.data);
        w.c.data = cd;
    }
    call->c = w.c;
    call->row = w.row;
    call->index_dtype = w.index_dtype;
done:
    nd_release(ad), nd_release(bd), nd_release(x), nd_release(y);
    return st;
}

nd_status nd__sp_run(const char *fn, nd_device dev, nd_sp_call *call)
{
    nd_status (*slot)(nd_sp_call *);
    nd_status st = nd__sp_slot(fn, dev, &slot);
    if (st) return st;
    /* every backend op may make row or column pointers (extent + 1
     * entries), and sums extent + 1 in places: an extent of INT64_MAX (a
     * COO matrix may have one) is refused here, once for both backends */
    const nd_sp_csr *m[2] = {&call->a, &call->b};
    for (int i = 0; i < 2; i++)
        if (m[i]->data && (m[i]->rows == INT64_MAX || m[i]->cols == INT64_MAX))
            return nd__err(ND_ERR_INVALID, fn, "array is too big: a matrix of shape (%lld, %lld) has no row or column pointers",
                           (long long)m[i]->rows, (long long)m[i]->cols);
    const nd_array *v[4] = {call->a.data, call->b.data, call->x, call->y};
    nd_dtype h = ND_FLOAT32;
    for (int i = 0; i < 4; i++)
        if (v[i] && nd__sp_half(v[i]->dtype)) h = v[i]->dtype;
    st = call->op == ND_SP_SPMM || !nd__sp_half(h) ? slot(call) : sp_run_widened(slot, call, h);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd__sp_check(const char *fn, const nd_sparse *s, const char *name)
{
    if (!s) return nd__err(ND_ERR_INVALID, fn, "argument '%s' is NULL", name);
    return ND_OK;
}

nd_status nd__sp_host(nd_array **h, const nd_array *a)
{
    if (nd__registry[a->device.type].host && nd_is_contiguous(a)) {
        *h = nd_retain((nd_array *)a);
        return ND_OK;
    }
    *h = NULL;
    if (nd__registry[a->device.type].host) return nd__copy_new(h, a, a->dtype);
    return nd_to_device(h, a, nd_cpu());
}

/* a as a 1-D C-contiguous array of dtype t (a reference when it is one) */
static nd_status sp_contig(nd_array **o, const nd_array *a, nd_dtype t)
{
    if (a->dtype == t && nd_is_contiguous(a)) {
        *o = nd_retain((nd_array *)a);
        return ND_OK;
    }
    *o = NULL;
    return nd__copy_new(o, a, t);
}

static bool sp_int_dtype(nd_dtype t) { return t == ND_INT32 || t == ND_INT64; }

static nd_status sp_value_dtype(const char *fn, nd_dtype t, const char *name)
{
    if (nd__sp_value_ok(t)) return ND_OK;
    return nd__err(ND_ERR_DTYPE, fn, "'%s' is %s; sparse values are float16, bfloat16, float32, float64, complex64 or "
                   "complex128 (cast with nd_astype)", name, nd_dtype_name(t));
}

static nd_status sp_1d(const char *fn, const nd_array *a, const char *name)
{
    if (!a) return nd__err(ND_ERR_INVALID, fn, "argument '%s' is NULL", name);
    if (a->ndim != 1) return nd__err(ND_ERR_SHAPE, fn, "'%s' must be 1-D, got %d-D", name, a->ndim);
    return ND_OK;
}

static nd_status sp_same_device(const char *fn, const nd_array *a, const nd_array *b, const char *an, const char *bn)
{
    if (nd__same_device(a->device, b->device)) return ND_OK;
    char x[32], y[32];
    return nd__err(ND_ERR_DEVICE, fn, "'%s' is on %s but '%s' is on %s", an, nd__device_name(a->device, x, sizeof x),
                   bn, nd__device_name(b->device, y, sizeof y));
}

static nd_status sp_shape_ok(const char *fn, int64_t rows, int64_t cols)
{
    if (rows < 0 || cols < 0)
        return nd__err(ND_ERR_SHAPE, fn, "shape (%lld,%lld) has a negative extent", (long long)rows, (long long)cols);
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* construction                                                        */
/* ------------------------------------------------------------------ */
nd_status nd_sparse_compressed(nd_sparse **out, nd_sparse_format fmt, const nd_array *data, const nd_array *indices,
                               const nd_array *indptr, int64_t rows, int64_t cols)
{
    static const char *fn = "nd_sparse_compressed";
    ND_CHECK_PTR(fn, out, "out");
    if (fmt != ND_SPARSE_CSR && fmt != ND_SPARSE_CSC)
        return nd__err(ND_ERR_INVALID, fn, "format %d is not ND_SPARSE_CSR or ND_SPARSE_CSC", (int)fmt);
    nd_status st;
    if ((st = sp_1d(fn, data, "data")) || (st = sp_1d(fn, indices, "indices")) || (st = sp_1d(fn, indptr, "indptr")))
        return st;
    if ((st = sp_same_device(fn, data, indices, "data", "indices")) ||
        (st = sp_same_device(fn, data, indptr, "data", "indptr")))
        return st;
    if ((st = sp_value_dtype(fn, data->dtype, "data"))) return st;
    if (!sp_int_dtype(indices->dtype) || indices->dtype != indptr->dtype)
        return nd__err(ND_ERR_DTYPE, fn, "indices (%s) and indptr (%s) must both be int32 or both int64",
                       nd_dtype_name(indices->dtype), nd_dtype_name(indptr->dtype));
    if ((st = sp_shape_ok(fn, rows, cols))) return st;
    bool csr = fmt == ND_SPARSE_CSR;
    int64_t major = csr ? rows : cols, minor = csr ? cols : rows;
    if (indices->dtype == ND_INT32 && (rows > INT32_MAX || cols > INT32_MAX))
        return nd__err(ND_ERR_INVALID, fn, "shape (%lld,%lld) does not fit int32 indices; use int64",
                       (long long)rows, (long long)cols);
    if (major == INT64_MAX) /* no array has INT64_MAX + 1 entries */
        return nd__err(ND_ERR_INVALID, fn, "array is too big: a %s matrix of shape (%lld,%lld) needs %lld + 1 row or column pointers",
                       FMT_NAME[fmt], (long long)rows, (long long)cols, (long long)major);
    if (indptr->size != major + 1)
        return nd__err(ND_ERR_SHAPE, fn, "indptr has %lld entries; a %s matrix of shape (%lld,%lld) needs %lld",
                       (long long)indptr->size, FMT_NAME[fmt], (long long)rows, (long long)cols,
                       (long long)(major + 1));
    if (data->size != indices->size)
        return nd__err(ND_ERR_SHAPE, fn, "data has %lld entries but indices %lld", (long long)data->size,
                       (long long)indices->size);
    int64_t nnz = indices->size;
    nd_array *hp = NULL, *hi = NULL, *d = NULL, *ix = NULL, *ip = NULL;
    if ((st = nd__sp_host(&hp, indptr)) || (st = nd__sp_host(&hi, indices))) goto fail;
    if (nd__sp_idx(hp, 0) != 0) {
        st = nd__err(ND_ERR_INVALID, fn, "indptr[0] is %lld, not 0", (long long)nd__sp_idx(hp, 0));
        goto fail;
    }
    if (nd__sp_idx(hp, major) != nnz) {
        st = nd__err(ND_ERR_INVALID, fn, "indptr[%lld] is %lld but there are %lld entries", (long long)major,
                     (long long)nd__sp_idx(hp, major), (long long)nnz);
        goto fail;
    }
    bool canonical = true;
    for (int64_t r = 0; r < major; r++) {
        int64_t b = nd__sp_idx(hp, r), e = nd__sp_idx(hp, r + 1);
        if (e < b) {
            st = nd__err(ND_ERR_INVALID, fn, "indptr decreases at %lld (%lld after %lld)", (long long)(r + 1),
                         (long long)e, (long long)b);
            goto fail;
        }
        if (e > nnz) {
            st = nd__err(ND_ERR_INVALID, fn, "indptr[%lld] = %lld exceeds the %lld entries", (long long)(r + 1),
                         (long long)e, (long long)nnz);
            goto fail;
        }
        for (int64_t p = b; p < e; p++) {
            int64_t j = nd__sp_idx(hi, p);
            if (j < 0 || j >= minor) {
                st = nd__err(ND_ERR_INVALID, fn, "indices[%lld] = %lld is out of range [0, %lld)", (long long)p,
                             (long long)j, (long long)minor);
                goto fail;
            }
            if (p > b && j <= nd__sp_idx(hi, p - 1)) canonical = false;
        }
    }
    if ((st = sp_contig(&d, data, data->dtype)) || (st = sp_contig(&ix, indices, indices->dtype)) ||
        (st = sp_contig(&ip, indptr, indptr->dtype)))
        goto fail;
    nd_release(hp);
    nd_release(hi);
    return nd__sp_new(out, fmt, rows, cols, d, ix, ip, NULL, NULL, canonical);
fail:
    nd_release(hp);
    nd_release(hi);
    nd_release(d);
    nd_release(ix);
    nd_release(ip);
    return st;
}

/* COO parts from triplets: validated, cast to scipy's index dtype */
static nd_status sp_coo_parts(const char *fn, const nd_array *data, const nd_array *row, const nd_array *col,
                              int64_t rows, int64_t cols, bool copy_data, nd_array **d, nd_array **r, nd_array **c)
{
    nd_status st;
    if ((st = sp_1d(fn, data, "data")) || (st = sp_1d(fn, row, "row")) || (st = sp_1d(fn, col, "col"))) return st;
    if ((st = sp_same_device(fn, data, row, "data", "row")) || (st = sp_same_device(fn, data, col, "data", "col")))
        return st;
    if ((st = sp_value_dtype(fn, data->dtype, "data"))) return st;
    const nd_array *ix[2] = {row, col};
    const char *nm[2] = {"row", "col"};
    for (int i = 0; i < 2; i++)
        if (!nd__is_integer(ix[i]->dtype))
            return nd__err(ND_ERR_DTYPE, fn, "'%s' is %s; indices must be integers", nm[i],
                           nd_dtype_name(ix[i]->dtype));
    if (row->size != data->size || col->size != data->size)
        return nd__err(ND_ERR_SHAPE, fn, "data, row and col have %lld, %lld and %lld entries; they must agree",
                       (long long)data->size, (long long)row->size, (long long)col->size);
    if ((st = sp_shape_ok(fn, rows, cols))) return st;
    nd_dtype it = nd__sp_index_for(rows, cols, data->size);
    nd_array *tr = NULL, *tc = NULL, *hr = NULL, *hc = NULL, *td = NULL;
    if ((st = sp_contig(&tr, row, ND_INT64)) || (st = sp_contig(&tc, col, ND_INT64))) goto fail;
    if ((st = nd__sp_host(&hr, tr)) || (st = nd__sp_host(&hc, tc))) goto fail;
    const int64_t ext[2] = {rows, cols};
    nd_array *h[2] = {hr, hc};
    for (int i = 0; i < 2; i++) {
        const int64_t *v = (const int64_t *)nd__ptr(h[i]);
        for (int64_t p = 0; p < h[i]->size; p++)
            if (v[p] < 0 || v[p] >= ext[i]) {
                st = nd__err(ND_ERR_INVALID, fn, "%s[%lld] = %lld is out of range [0, %lld)", nm[i], (long long)p,
                             (long long)v[p], (long long)ext[i]);
                goto fail;
            }
    }
    nd_release(hr);
    nd_release(hc);
    hr = hc = NULL;
    if (it != ND_INT64) {
        nd_array *x = NULL;
        if ((st = nd__copy_new(&x, tr, it))) goto fail;
        nd_release(tr);
        tr = x;
        x = NULL;
        if ((st = nd__copy_new(&x, tc, it))) goto fail;
        nd_release(tc);
        tc = x;
    } else if (tr == row || tc == col) { /* never share the caller's index arrays: they may change */
        nd_array *x = NULL, *y = NULL;
        if ((st = nd__copy_new(&x, tr, it)) || (st = nd__copy_new(&y, tc, it))) {
            nd_release(x);
            goto fail;
        }
        nd_release(tr);
        nd_release(tc);
        tr = x;
        tc = y;
    }
    if ((st = copy_data ? nd__copy_new(&td, data, data->dtype) : sp_contig(&td, data, data->dtype))) goto fail;
    *d = td;
    *r = tr;
    *c = tc;
    return ND_OK;
fail:
    nd_release(tr);
    nd_release(tc);
    nd_release(hr);
    nd_release(hc);
    return st;
}

nd_status nd_sparse_coo(nd_sparse **out, const nd_array *data, const nd_array *row, const nd_array *col, int64_t rows,
                        int64_t cols)
{
    static const char *fn = "nd_sparse_coo";
    ND_CHECK_PTR(fn, out, "out");
    nd_array *d = NULL, *r = NULL, *c = NULL;
    nd_status st = sp_coo_parts(fn, data, row, col, rows, cols, true, &d, &r, &c);
    if (st) return st;
    return nd__sp_new(out, ND_SPARSE_COO, rows, cols, d, NULL, NULL, r, c, false);
}

/* COO parts (row, col, data) to the CSR of the matrix (or, transposed, of
 * its transpose), sorted, duplicates summed when sum */
static nd_status sp_coo_to_csr(const char *fn, const nd_sparse *s, bool transposed, bool sum, nd_sp_csr *res)
{
    nd_sp_call call = {.op = ND_SP_FROM_COO, .flags = sum ? ND_SP_SUM : 0};
    call.a = (nd_sp_csr){.rows = transposed ? s->cols : s->rows, .cols = transposed ? s->rows : s->cols,
                         .indices = transposed ? s->row : s->col, .data = s->data};
    call.row = transposed ? s->col : s->row;
    nd_status st = nd__sp_run(fn, s->data->device, &call);
    if (!st) *res = call.c;
    return st;
}

/* CSR arrays of matrix m -> COO parts (row, col) of the matrix or its
 * transpose */
static nd_status sp_expand(const char *fn, const nd_sp_csr *m, nd_array **major)
{
    nd_sp_call call = {.op = ND_SP_EXPAND, .a = *m};
    nd_status st = nd__sp_run(fn, m->data->device, &call);
    if (!st) *major = call.row;
    return st;
}

static nd_status sp_convert(const char *fn, nd_sparse **out, const nd_sparse *s, nd_sparse_format fmt)
{
    nd_status st;
    if (s->fmt == fmt) { /* a new handle sharing the parts */
        return nd__sp_new(out, fmt, s->rows, s->cols, nd_retain(s->data), nd_retain(s->indices),
                          nd_retain(s->indptr), nd_retain(s->row), nd_retain(s->col), s->canonical);
    }
    if (s->fmt == ND_SPARSE_COO) {
        nd_sp_csr c;
        if ((st = sp_coo_to_csr(fn, s, fmt == ND_SPARSE_CSC, true, &c))) return st;
        return nd__sp_from_csr(out, fmt, &c, true);
    }
    nd_sp_csr m = nd__sp_csr_form(s);
    if (fmt == ND_SPARSE_COO) {
        nd_array *major = NULL;
        if ((st = sp_expand(fn, &m, &major))) return st;
        bool csr = s->fmt == ND_SPARSE_CSR;
        return nd__sp_new(out, ND_SPARSE_COO, s->rows, s->cols, nd_retain(s->data), NULL, NULL,
                          csr ? major : nd_retain(s->indices), csr ? nd_retain(s->indices) : major,
                          s->canonical && csr);
    }
    /* CSR <-> CSC: the CSR form of the transpose */
    nd_sp_call call = {.op = ND_SP_TRANSPOSE, .a = m};
    if ((st = nd__sp_run(fn, s->data->device, &call))) return st;
    return nd__sp_from_csr(out, fmt, &call.c, s->canonical);
}

nd_status nd__sp_as_csr(const char *fn, nd_sparse **out, const nd_sparse *s)
{
    return sp_convert(fn, out, s, ND_SPARSE_CSR);
}

static nd_status sp_canon_inplace(const char *fn, nd_sparse *s, unsigned flags);

nd_status nd__sp_as_canonical_csr(const char *fn, nd_sparse **out, const nd_sparse *s)
{
    nd_sparse *c = NULL;
    nd_status st = sp_convert(fn, &c, s, ND_SPARSE_CSR);
    if (!st && !c->canonical) st = sp_canon_inplace(fn, c, ND_SP_SORT | ND_SP_SUM);
    if (st) {
        nd_sparse_release(c);
        return st;
    }
    *out = c;
    return ND_OK;
}

nd_status nd_sparse_from_triplets(nd_sparse **out, nd_sparse_format fmt, const nd_array *data, const nd_array *row,
                                  const nd_array *col, int64_t rows, int64_t cols)
{
    static const char *fn = "nd_sparse_from_triplets";
    ND_CHECK_PTR(fn, out, "out");
    if ((unsigned)fmt > ND_SPARSE_COO) return nd__err(ND_ERR_INVALID, fn, "unknown format %d", (int)fmt);
    /* a transient COO handle over the caller's values (only the indices
     * are copied, to the index dtype): the result is built from it */
    nd_array *d = NULL, *ri = NULL, *ci = NULL;
    nd_sparse *coo = NULL, *r = NULL;
    nd_status st = sp_coo_parts(fn, data, row, col, rows, cols, fmt == ND_SPARSE_COO, &d, &ri, &ci);
    if (st || (st = nd__sp_new(&coo, ND_SPARSE_COO, rows, cols, d, NULL, NULL, ri, ci, false))) return st;
    if (fmt == ND_SPARSE_COO) {
        st = nd_sparse_sum_duplicates(coo);
        if (st) {
            nd_sparse_release(coo);
            return nd__err_prefix(st, fn);
        }
        *out = coo;
        return ND_OK;
    }
    st = sp_convert(fn, &r, coo, fmt);
    nd_sparse_release(coo);
    if (!st) *out = r;
    return st;
}

nd_status nd_sparse_from_dense(nd_sparse **out, const nd_array *a, nd_sparse_format fmt)
{
    static const char *fn = "nd_sparse_from_dense";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if ((unsigned)fmt > ND_SPARSE_COO) return nd__err(ND_ERR_INVALID, fn, "unknown format %d", (int)fmt);
    if (a->ndim != 2) return nd__err(ND_ERR_SHAPE, fn, "'a' must be 2-D, got %d-D", a->ndim);
    nd_status st = sp_value_dtype(fn, a->dtype, "a");
    if (st) return st;
    nd_status (*slot)(nd_sp_call *);
    if ((st = nd__sp_slot(fn, a->device, &slot))) return st;
    bool csc = fmt == ND_SPARSE_CSC;
    int64_t rows = a->shape[0], cols = a->shape[1];
    nd_array *src = NULL, *view = NULL;
    if (csc) { /* the CSR of a^T is the CSC of a */
        if ((st = nd_transpose(&view, a, NULL))) return nd__err_prefix(st, fn);
        st = nd__copy_new(&src, view, a->dtype);
        nd_release(view);
    } else {
        st = sp_contig(&src, a, a->dtype);
    }
    if (st) return st;
    int64_t size = rows * cols;
    nd_sp_call call = {.op = ND_SP_FROM_DENSE, .x = src, .index_dtype = nd__sp_index_for(rows, cols, size)};
    call.a.rows = src->shape[0];
    call.a.cols = src->shape[1];
    st = nd__sp_run(fn, a->device, &call);
    nd_release(src);
    if (st) return st;
    nd_sparse *m = NULL;
    if ((st = nd__sp_from_csr(&m, csc ? ND_SPARSE_CSC : ND_SPARSE_CSR, &call.c, true))) return st;
    if (fmt != ND_SPARSE_COO) {
        *out = m;
        return ND_OK;
    }
    st = sp_convert(fn, out, m, ND_SPARSE_COO);
    nd_sparse_release(m);
    return st;
}

/* ------------------------------------------------------------------ */
/* inspection                                                          */
/* ------------------------------------------------------------------ */
nd_sparse_format nd_sparse_format_of(const nd_sparse *s) { return s ? s->fmt : ND_SPARSE_CSR; }
int64_t nd_sparse_rows(const nd_sparse *s) { return s ? s->rows : -1; }
int64_t nd_sparse_cols(const nd_sparse *s) { return s ? s->cols : -1; }
int64_t nd_sparse_nnz(const nd_sparse *s) { return s ? s->data->size : -1; }
nd_dtype nd_sparse_dtype(const nd_sparse *s) { return s ? s->data->dtype : ND_FLOAT64; }
nd_dtype nd_sparse_index_dtype(const nd_sparse *s)
{
    return !s ? ND_INT32 : s->fmt == ND_SPARSE_COO ? s->row->dtype : s->indices->dtype;
}
nd_device nd_sparse_device(const nd_sparse *s) { return s ? s->data->device : nd_cpu(); }

nd_status nd_sparse_part_get(nd_array **part, const nd_sparse *s, nd_sparse_part which)
{
    static const char *fn = "nd_sparse_part_get";
    ND_CHECK_PTR(fn, part, "part");
    nd_status st = nd__sp_check(fn, s, "s");
    if (st) return st;
    nd_array *p = NULL;
    switch (which) {
    case ND_SPARSE_DATA: p = s->data; break;
    case ND_SPARSE_INDICES: p = s->indices; break;
    case ND_SPARSE_INDPTR: p = s->indptr; break;
    case ND_SPARSE_ROW: p = s->row; break;
    case ND_SPARSE_COL: p = s->col; break;
    }
    if (!p) return nd__err(ND_ERR_INVALID, fn, "a %s matrix has no part %d", FMT_NAME[s->fmt], (int)which);
    *part = nd_retain(p);
    return ND_OK;
}

nd_status nd_sparse_has_canonical_format(const nd_sparse *s, bool *result)
{
    static const char *fn = "nd_sparse_has_canonical_format";
    ND_CHECK_PTR(fn, result, "result");
    nd_status st = nd__sp_check(fn, s, "s");
    if (st) return st;
    if (s->canonical) {
        *result = true;
        return ND_OK;
    }
    bool ok = true;
    if (s->fmt == ND_SPARSE_COO) {
        nd_array *hr = NULL, *hc = NULL;
        if ((st = nd__sp_host(&hr, s->row)) || (st = nd__sp_host(&hc, s->col))) {
            nd_release(hr);
            return nd__err_prefix(st, fn);
        }
        for (int64_t p = 1; p < hr->size && ok; p++) {
            int64_t r0 = nd__sp_idx(hr, p - 1), r1 = nd__sp_idx(hr, p);
            ok = r0 < r1 || (r0 == r1 && nd__sp_idx(hc, p - 1) < nd__sp_idx(hc, p));
        }
        nd_release(hr);
        nd_release(hc);
    } else {
        nd_array *hp = NULL, *hi = NULL;
        if ((st = nd__sp_host(&hp, s->indptr)) || (st = nd__sp_host(&hi, s->indices))) {
            nd_release(hp);
            return nd__err_prefix(st, fn);
        }
        for (int64_t r = 0; r + 1 < hp->size && ok; r++)
            for (int64_t p = nd__sp_idx(hp, r) + 1; p < nd__sp_idx(hp, r + 1) && ok; p++)
                ok = nd__sp_idx(hi, p - 1) < nd__sp_idx(hi, p);
        nd_release(hp);
        nd_release(hi);
    }
    *result = ok;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* conversions                                                         */
/* ------------------------------------------------------------------ */
nd_status nd_sparse_convert(nd_sparse **out, const nd_sparse *s, nd_sparse_format fmt)
{
    static const char *fn = "nd_sparse_convert";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, s, "s");
    if (st) return st;
    if ((unsigned)fmt > ND_SPARSE_COO) return nd__err(ND_ERR_INVALID, fn, "unknown format %d", (int)fmt);
    return sp_convert(fn, out, s, fmt);
}

nd_status nd_sparse_to_dense(nd_array **out, const nd_sparse *s)
{
    static const char *fn = "nd_sparse_to_dense";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, s, "s");
    if (st) return st;
    nd_dtype vt = s->data->dtype;
    nd_device dev = s->data->device;
    const int64_t shape[2] = {s->rows, s->cols};
    nd_status (*slot)(nd_sp_call *);
    if (*out && (st = nd__out_check(fn, *out, vt, 2, shape, dev))) return st;
    if ((st = nd__sp_slot(fn, dev, &slot))) return st;
    nd_sparse *csr = NULL;
    nd_array *res = NULL;
    if (s->fmt == ND_SPARSE_CSC) { /* the dense A^T of the CSR form, transposed */
        nd_sp_csr f = nd__sp_csr_form(s);
        const int64_t tshape[2] = {f.rows, f.cols};
        if ((st = nd__alloc(&res, vt, 2, tshape, dev))) return st;
        nd_sp_call call = {.op = ND_SP_TO_DENSE, .a = f, .y = res};
        nd_array *t = NULL;
        if (!(st = nd__sp_run(fn, dev, &call)) && !(st = nd_transpose(&t, res, NULL))) {
            nd_release(res);
            res = t;
            st = nd__out_deliver(fn, out, &res, vt, ND_OUT_CONTIGUOUS);
        }
        nd_release(res);
        return st;
    }
    /* CSR (COO through its CSR) written straight into the result */
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, vt, 2, shape, dev))) return st;
    if (s->fmt == ND_SPARSE_COO) st = sp_convert(fn, &csr, s, ND_SPARSE_CSR);
    if (!st) st = nd__out_target(&t, vt, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 0, NULL);
    if (!st) {
        nd_sp_call call = {.op = ND_SP_TO_DENSE, .a = nd__sp_csr_form(csr ? csr : s), .y = t.dst};
        st = nd__sp_run(fn, dev, &call);
    }
    nd_sparse_release(csr);
    return nd__out_end(&t, st);
}

nd_status nd_sparse_transpose(nd_sparse **out, const nd_sparse *s)
{
    static const char *fn = "nd_sparse_transpose";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, s, "s");
    if (st) return st;
    if (s->fmt == ND_SPARSE_COO)
        return nd__sp_new(out, ND_SPARSE_COO, s->cols, s->rows, nd_retain(s->data), NULL, NULL, nd_retain(s->col),
                          nd_retain(s->row), false);
    return nd__sp_new(out, s->fmt == ND_SPARSE_CSR ? ND_SPARSE_CSC : ND_SPARSE_CSR, s->cols, s->rows,
                      nd_retain(s->data), nd_retain(s->indices), nd_retain(s->indptr), NULL, NULL, s->canonical);
}

nd_status nd_sparse_to_device(nd_sparse **out, const nd_sparse *s, nd_device dev)
{
    static const char *fn = "nd_sparse_to_device";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, s, "s");
    if (st) return st;
    if ((st = nd__check_device(fn, dev))) return st;
    nd_array *src[5] = {s->data, s->indices, s->indptr, s->row, s->col}, *dst[5] = {0};
    for (int i = 0; i < 5 && !st; i++)
        if (src[i]) st = nd_to_device(&dst[i], src[i], dev);
    if (st) {
        for (int i = 0; i < 5; i++) nd_release(dst[i]);
        return nd__err_prefix(st, fn);
    }
    return nd__sp_new(out, s->fmt, s->rows, s->cols, dst[0], dst[1], dst[2], dst[3], dst[4], s->canonical);
}

/* ------------------------------------------------------------------ */
/* canonical forms, in place                                           */
/* ------------------------------------------------------------------ */
static void sp_replace(nd_sparse *s, nd_sparse *n)
{
    nd_sparse tmp = *s;
    *s = *n;
    *n = tmp;
    nd_sparse_release(n);
}

static nd_status sp_canon_inplace(const char *fn, nd_sparse *s, unsigned flags)
{
    nd_status st;
    nd_sparse *n = NULL;
    if (s->fmt == ND_SPARSE_COO) {
        if (flags == ND_SP_DROP_ZEROS) { /* keeps the order: a mask over the entries */
            nd_array *mask = NULL, *d = NULL, *r = NULL, *c = NULL;
            nd_array *zero = NULL;
            if (!(st = nd__scalar_array(&zero, nd_scalar_int(0), s->data->dtype, s->data->device)) &&
                !(st = nd_binary(&mask, ND_BINARY_NOT_EQUAL, s->data, zero)) &&
                !(st = nd_mask_select(&d, s->data, mask)) && !(st = nd_mask_select(&r, s->row, mask)) &&
                !(st = nd_mask_select(&c, s->col, mask)))
                st = nd__sp_new(&n, ND_SPARSE_COO, s->rows, s->cols, d, NULL, NULL, r, c, s->canonical);
            else {
                nd_release(d);
                nd_release(r);
                nd_release(c);
            }
            nd_release(zero);
            nd_release(mask);
            if (st) return nd__err_prefix(st, fn);
            sp_replace(s, n);
            return ND_OK;
        }
        nd_sp_csr c;
        if ((st = sp_coo_to_csr(fn, s, false, flags & ND_SP_SUM, &c))) return st;
        nd_array *major = NULL;
        st = sp_expand(fn, &c, &major);
        if (!st) {
            nd_release(c.indptr);
            st = nd__sp_new(&n, ND_SPARSE_COO, s->rows, s->cols, c.data, NULL, NULL, major, c.indices,
                            (flags & ND_SP_SUM) != 0);
        } else {
            nd_release(c.indptr);
            nd_release(c.indices);
            nd_release(c.data);
        }
        if (st) return st;
        sp_replace(s, n);
        return ND_OK;
    }
    nd_sp_call call = {.op = ND_SP_CANON, .flags = flags, .a = nd__sp_csr_form(s)};
    if ((st = nd__sp_run(fn, s->data->device, &call))) return st;
    bool canonical = ((flags & ND_SP_SORT) && (flags & ND_SP_SUM)) || (s->canonical && (flags & ND_SP_DROP_ZEROS));
    if ((st = nd__sp_from_csr(&n, s->fmt, &call.c, canonical))) return st;
    sp_replace(s, n);
    return ND_OK;
}

nd_status nd_sparse_sum_duplicates(nd_sparse *s)
{
    static const char *fn = "nd_sparse_sum_duplicates";
    nd_status st = nd__sp_check(fn, s, "s");
    if (st || s->canonical) return st;
    return sp_canon_inplace(fn, s, ND_SP_SORT | ND_SP_SUM);
}

nd_status nd_sparse_sort_indices(nd_sparse *s)
{
    static const char *fn = "nd_sparse_sort_indices";
    nd_status st = nd__sp_check(fn, s, "s");
    if (st || s->canonical) return st;
    return sp_canon_inplace(fn, s, ND_SP_SORT);
}

nd_status nd_sparse_eliminate_zeros(nd_sparse *s)
{
    static const char *fn = "nd_sparse_eliminate_zeros";
    nd_status st = nd__sp_check(fn, s, "s");
    if (st) return st;
    return sp_canon_inplace(fn, s, ND_SP_DROP_ZEROS);
}
