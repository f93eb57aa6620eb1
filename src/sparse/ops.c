/* Sparse matrix operations (scipy.sparse's): products with dense vectors
 * and matrices (SpMV, SpMM) and with sparse matrices (SpGEMM), sums and
 * elementwise products of two matrices, elementwise products with a
 * (broadcast) dense array, maps of the stored values, sums along axes,
 * diagonals, row slices and row/column gathers. Each validates, brings its
 * operands to the CSR form the slot computes on, and runs one slot call
 * (src/shared/sparse_slots.h). */
#include <string.h>

#include "core/out.h"
#include "sparse/sparse_impl.h"

static nd_status sp_pair_check(const char *fn, const nd_sparse *a, const nd_sparse *b, bool same_shape)
{
    nd_status st;
    if ((st = nd__sp_check(fn, a, "a")) || (st = nd__sp_check(fn, b, "b"))) return st;
    if (!nd__same_device(a->data->device, b->data->device)) {
        char x[32], y[32];
        return nd__err(ND_ERR_DEVICE, fn, "'a' is on %s but 'b' is on %s",
                       nd__device_name(a->data->device, x, sizeof x), nd__device_name(b->data->device, y, sizeof y));
    }
    if (a->data->dtype != b->data->dtype)
        return nd__err(ND_ERR_DTYPE, fn, "'a' is %s but 'b' is %s; cast one (nd_sparse values share one dtype)",
                       nd_dtype_name(a->data->dtype), nd_dtype_name(b->data->dtype));
    if (same_shape && (a->rows != b->rows || a->cols != b->cols))
        return nd__err(ND_ERR_SHAPE, fn, "shapes (%lld,%lld) and (%lld,%lld) differ", (long long)a->rows,
                       (long long)a->cols, (long long)b->rows, (long long)b->cols);
    if (!same_shape && a->cols != b->rows)
        return nd__err(ND_ERR_SHAPE, fn, "shapes (%lld,%lld) and (%lld,%lld) are not aligned", (long long)a->rows,
                       (long long)a->cols, (long long)b->rows, (long long)b->cols);
    return ND_OK;
}

/* a CSR matrix with int64 parts in place of int32 ones */
static nd_status sp_widen(nd_sparse *s)
{
    if (s->indices->dtype == ND_INT64) return ND_OK;
    nd_array *i = NULL, *p = NULL;
    nd_status st = nd_astype(&i, s->indices, ND_INT64);
    if (!st) st = nd_astype(&p, s->indptr, ND_INT64);
    if (st) {
        nd_release(i);
        return st;
    }
    nd_release(s->indices);
    nd_release(s->indptr);
    s->indices = i;
    s->indptr = p;
    return ND_OK;
}

/* a and b as CSR (canonical when canon) of one index dtype */
static nd_status sp_two_csr(const char *fn, const nd_sparse *a, const nd_sparse *b, bool canon, nd_sparse **ca,
                            nd_sparse **cb)
{
    nd_status st = canon ? nd__sp_as_canonical_csr(fn, ca, a) : nd__sp_as_csr(fn, ca, a);
    if (st) return st;
    st = canon ? nd__sp_as_canonical_csr(fn, cb, b) : nd__sp_as_csr(fn, cb, b);
    if (!st && (*ca)->indices->dtype != (*cb)->indices->dtype)
        st = (*ca)->indices->dtype == ND_INT32 ? sp_widen(*ca) : sp_widen(*cb);
    if (st) {
        nd_sparse_release(*ca);
        if (st != ND_OK && *cb) nd_sparse_release(*cb);
        *ca = *cb = NULL;
        return nd__err_prefix(st, fn);
    }
    return ND_OK;
}

nd_status nd_sparse_matmul(nd_array **out, const nd_sparse *a, const nd_array *b)
{
    static const char *fn = "nd_sparse_matmul";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, a, "a");
    if (st) return st;
    ND_CHECK_PTR(fn, b, "b");
    if (!nd__same_device(a->data->device, b->device)) {
        char x[32], y[32];
        return nd__err(ND_ERR_DEVICE, fn, "'a' is on %s but 'b' is on %s",
                       nd__device_name(a->data->device, x, sizeof x), nd__device_name(b->device, y, sizeof y));
    }
    if (b->ndim != 1 && b->ndim != 2) return nd__err(ND_ERR_SHAPE, fn, "'b' must be 1-D or 2-D, got %d-D", b->ndim);
    if (b->shape[0] != a->cols)
        return nd__err(ND_ERR_SHAPE, fn, "shapes (%lld,%lld) and %s(%lld%s) are not aligned", (long long)a->rows,
                       (long long)a->cols, "", (long long)b->shape[0], b->ndim == 2 ? ",k" : ",");
    nd_dtype vt = a->data->dtype;
    if (b->dtype != vt)
        return nd__err(ND_ERR_DTYPE, fn, "'b' is %s but the matrix holds %s (cast b with nd_astype)",
                       nd_dtype_name(b->dtype), nd_dtype_name(vt));
    int64_t k = b->ndim == 2 ? b->shape[1] : 1;
    const int64_t shape[2] = {a->rows, k};
    nd_status (*slot)(nd_sp_call *);
    if ((st = nd__sp_slot(fn, b->device, &slot))) return st;
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, vt, b->ndim, shape, b->device))) return st;
    nd_sparse *csr = NULL;
    nd_array *x = NULL;
    const nd_array *ins[1] = {b};
    if ((st = nd__out_target(&t, vt, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 1, ins))) goto done;
    if (a->data->size == 0 || k == 0) { /* no entries: zeros (also for 0 columns) */
        nd_scalar z = nd_scalar_int(0);
        unsigned char zero[16];
        nd__scalar_store(zero, vt, z);
        if (t.dst->size) st = nd__backend(b->device)->fill(t.dst, zero);
        goto done;
    }
    if ((st = nd__sp_as_csr(fn, &csr, a))) goto done;
    /* x: b itself when C-contiguous (the usual case), else a contiguous copy */
    if (nd_is_contiguous(b)) x = nd_retain((nd_array *)b);
    else if ((st = nd__copy_new(&x, b, vt))) goto done;
    nd_sp_call call = {.op = ND_SP_SPMM, .a = nd__sp_csr_form(csr), .x = x, .y = t.dst, .k = k};
    st = nd__sp_run(fn, b->device, &call);
done:
    nd_sparse_release(csr);
    nd_release(x);
    return nd__out_end(&t, st);
}

nd_status nd_sparse_spgemm(nd_sparse **out, const nd_sparse *a, const nd_sparse *b)
{
    static const char *fn = "nd_sparse_spgemm";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = sp_pair_check(fn, a, b, false);
    if (st) return st;
    nd_status (*slot)(nd_sp_call *);
    if ((st = nd__sp_slot(fn, a->data->device, &slot))) return st;
    nd_sparse *ca = NULL, *cb = NULL;
    if ((st = sp_two_csr(fn, a, b, false, &ca, &cb))) return st;
    nd_sp_call call = {.op = ND_SP_SPGEMM, .a = nd__sp_csr_form(ca), .b = nd__sp_csr_form(cb)};
    st = nd__sp_run(fn, a->data->device, &call);
    nd_sparse_release(ca);
    nd_sparse_release(cb);
    if (st) return st;
    return nd__sp_from_csr(out, ND_SPARSE_CSR, &call.c, true);
}

static nd_status sp_binop(const char *fn, nd_sparse **out, const nd_sparse *a, const nd_sparse *b, unsigned flags,
                          double beta)
{
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = sp_pair_check(fn, a, b, true);
    if (st) return st;
    nd_status (*slot)(nd_sp_call *);
    if ((st = nd__sp_slot(fn, a->data->device, &slot))) return st;
    nd_sparse *ca = NULL, *cb = NULL;
    if ((st = sp_two_csr(fn, a, b, true, &ca, &cb))) return st;
    nd_sp_call call = {.op = ND_SP_BINOP, .flags = flags, .a = nd__sp_csr_form(ca), .b = nd__sp_csr_form(cb),
                       .alpha = 1.0, .beta = beta};
    st = nd__sp_run(fn, a->data->device, &call);
    nd_sparse_release(ca);
    nd_sparse_release(cb);
    if (st) return st;
    return nd__sp_from_csr(out, ND_SPARSE_CSR, &call.c, true);
}

nd_status nd_sparse_add(nd_sparse **out, const nd_sparse *a, const nd_sparse *b)
{
    return sp_binop("nd_sparse_add", out, a, b, ND_SP_ADD, 1.0);
}
nd_status nd_sparse_subtract(nd_sparse **out, const nd_sparse *a, const nd_sparse *b)
{
    return sp_binop("nd_sparse_subtract", out, a, b, ND_SP_ADD, -1.0);
}
nd_status nd_sparse_multiply(nd_sparse **out, const nd_sparse *a, const nd_sparse *b)
{
    return sp_binop("nd_sparse_multiply", out, a, b, ND_SP_MUL, 0.0);
}

nd_status nd_sparse_multiply_dense(nd_sparse **out, const nd_sparse *a, const nd_array *d)
{
    static const char *fn = "nd_sparse_multiply_dense";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, a, "a");
    if (st) return st;
    ND_CHECK_PTR(fn, d, "d");
    if (!nd__same_device(a->data->device, d->device)) {
        char x[32], y[32];
        return nd__err(ND_ERR_DEVICE, fn, "'a' is on %s but 'd' is on %s",
                       nd__device_name(a->data->device, x, sizeof x), nd__device_name(d->device, y, sizeof y));
    }
    if (d->dtype != a->data->dtype)
        return nd__err(ND_ERR_DTYPE, fn, "'d' is %s but the matrix holds %s (cast d with nd_astype)",
                       nd_dtype_name(d->dtype), nd_dtype_name(a->data->dtype));
    const int64_t shape[2] = {a->rows, a->cols};
    int bnd;
    int64_t bshape[ND_MAX_DIMS];
    if ((st = nd__broadcast_shapes(fn, 2, shape, d->ndim, d->shape, &bnd, bshape))) return st;
    if (bnd != 2 || bshape[0] != a->rows || bshape[1] != a->cols) {
        char s1[64], s2[64];
        return nd__err(ND_ERR_SHAPE, fn, "'d' of shape %s does not broadcast to the matrix's %s",
                       nd__fmt_shape(s1, sizeof s1, d->ndim, d->shape), nd__fmt_shape(s2, sizeof s2, 2, shape));
    }
    nd_status (*slot)(nd_sp_call *);
    if ((st = nd__sp_slot(fn, d->device, &slot))) return st;
    nd_sparse *csr = NULL;
    nd_array *x = NULL, *y = NULL;
    if ((st = nd__sp_as_csr(fn, &csr, a))) return st;
    /* half values: d widened before it is broadcast (the slot computes them in float32) */
    nd_array *dw = NULL;
    if (nd__sp_half(d->dtype) && (st = nd__copy_new(&dw, d, ND_FLOAT32))) goto fail;
    st = nd__broadcast_view(&x, dw ? dw : d, 2, shape);
    nd_release(dw);
    /* the CSR form's entries: a COO a with duplicates has fewer (summed) */
    if (st || (st = nd__alloc(&y, a->data->dtype, 1, &csr->data->size, d->device))) goto fail;
    nd_sp_call call = {.op = ND_SP_MUL_DENSE, .a = nd__sp_csr_form(csr), .x = x, .y = y};
    if ((st = nd__sp_run(fn, d->device, &call))) goto fail;
    nd_release(x);
    st = nd__sp_new(out, ND_SPARSE_CSR, a->rows, a->cols, y, nd_retain(csr->indices), nd_retain(csr->indptr), NULL,
                    NULL, csr->canonical);
    nd_sparse_release(csr);
    return st;
fail:
    nd_sparse_release(csr);
    nd_release(x);
    nd_release(y);
    return st;
}

/* the new value part d (taken) with a's structure */
static nd_status sp_with_values(nd_sparse **out, const nd_sparse *a, nd_array *d)
{
    return nd__sp_new(out, a->fmt, a->rows, a->cols, d, nd_retain(a->indices), nd_retain(a->indptr),
                      nd_retain(a->row), nd_retain(a->col), a->canonical);
}

/* ND_ERR_INVALID unless z (the op at 0, 0-d) is exactly zero, and
 * ND_ERR_DTYPE unless its dtype can be a sparse value dtype */
static nd_status sp_zero_preserving(const char *fn, const char *opname, nd_array *z)
{
    nd_array *h = NULL;
    nd_status st = nd__sp_host(&h, z);
    if (st) return nd__err_prefix(st, fn);
    double re = nd__load_f64(nd__ptr(h), h->dtype), im = 0;
    if (h->dtype == ND_COMPLEX64) im = ((const float *)nd__ptr(h))[1];
    if (h->dtype == ND_COMPLEX128) im = ((const double *)nd__ptr(h))[1];
    nd_dtype t = h->dtype;
    nd_release(h);
    if (!nd__sp_value_ok(t))
        return nd__err(ND_ERR_DTYPE, fn, "%s gives %s values; sparse values are float16, bfloat16, float32, float64, complex64 "
                       "or complex128",
                       opname, nd_dtype_name(t));
    if (re != 0 || im != 0)
        return nd__err(ND_ERR_INVALID, fn, "%s does not map 0 to 0 (it gives %g), so the result would not be sparse; "
                       "apply it to nd_sparse_to_dense's result", opname, re != re ? re : re + im);
    return ND_OK;
}

nd_status nd_sparse_unary(nd_sparse **out, nd_unary_op op, const nd_sparse *a)
{
    static const char *fn = "nd_sparse_unary";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, a, "a");
    if (st) return st;
    nd_array *zero = NULL, *z = NULL, *d = NULL;
    if ((st = nd__scalar_array(&zero, nd_scalar_int(0), a->data->dtype, nd_cpu()))) return st;
    st = nd_unary(&z, op, zero);
    nd_release(zero);
    if (st) return nd__err_prefix(st, fn);
    st = sp_zero_preserving(fn, nd_unary_op_name(op), z);
    nd_release(z);
    if (st) return st;
    if ((st = nd_unary(&d, op, a->data))) return nd__err_prefix(st, fn);
    return sp_with_values(out, a, d);
}

nd_status nd_sparse_binary_scalar(nd_sparse **out, nd_binary_op op, const nd_sparse *a, nd_scalar s)
{
    static const char *fn = "nd_sparse_binary_scalar";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, a, "a");
    if (st) return st;
    nd_array *zero = NULL, *z = NULL, *d = NULL;
    if ((st = nd__scalar_array(&zero, nd_scalar_int(0), a->data->dtype, nd_cpu()))) return st;
    st = nd_binary_scalar(&z, op, zero, s);
    nd_release(zero);
    if (st) return nd__err_prefix(st, fn);
    st = sp_zero_preserving(fn, nd_binary_op_name(op), z);
    nd_release(z);
    if (st) return st;
    if ((st = nd_binary_scalar(&d, op, a->data, s))) return nd__err_prefix(st, fn);
    return sp_with_values(out, a, d);
}

nd_status nd_sparse_sum(nd_array **out, const nd_sparse *a, int axis)
{
    static const char *fn = "nd_sparse_sum";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, a, "a");
    if (st) return st;
    if (axis != ND_AXIS_NONE && (axis < -2 || axis > 1))
        return nd__err(ND_ERR_INVALID, fn, "axis %d is out of bounds for a 2-D matrix", axis);
    if (axis < 0 && axis != ND_AXIS_NONE) axis += 2;
    nd_dtype vt = a->data->dtype;
    nd_device dev = a->data->device;
    int64_t len = axis == 0 ? a->cols : a->rows;
    if (*out) {
        if (axis == ND_AXIS_NONE) st = nd__out_check(fn, *out, vt, 0, NULL, dev);
        else st = nd__out_check(fn, *out, vt, 1, &len, dev);
        if (st) return st;
    }
    nd_status (*slot)(nd_sp_call *);
    if ((st = nd__sp_slot(fn, dev, &slot))) return st;
    /* the row sums of the CSR form of a (axis 1) or of a^T (axis 0) */
    nd_sparse *m = NULL;
    nd_array *y = NULL, *r = NULL;
    if ((st = nd_sparse_convert(&m, a, axis == 0 ? ND_SPARSE_CSC : ND_SPARSE_CSR))) return nd__err_prefix(st, fn);
    nd_sp_csr f = nd__sp_csr_form(m);
    /* half values: the sums in float32, rounded once at the end */
    nd_dtype yt = nd__sp_half(vt) ? ND_FLOAT32 : vt;
    if ((st = nd__alloc(&y, yt, 1, &f.rows, dev))) goto done;
    nd_sp_call call = {.op = ND_SP_ROW_SUMS, .a = f, .y = y};
    if ((st = nd__sp_run(fn, dev, &call))) goto done;
    if (axis == ND_AXIS_NONE) {
        if ((st = nd_reduce(&r, ND_REDUCE_SUM, y, 0, NULL, false))) goto done;
        nd_release(y);
        y = r;
        r = NULL;
    }
    if (yt != vt) {
        if ((st = nd__copy_new(&r, y, vt))) goto done;
        nd_release(y);
        y = r;
        r = NULL;
    }
    st = nd__out_deliver(fn, out, &y, vt, 0);
done:
    nd_sparse_release(m);
    nd_release(y);
    return st;
}

nd_status nd_sparse_diagonal(nd_array **out, const nd_sparse *a, int64_t k)
{
    static const char *fn = "nd_sparse_diagonal";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, a, "a");
    if (st) return st;
    nd_dtype vt = a->data->dtype;
    nd_device dev = a->data->device;
    int64_t len = 0;
    if (k < a->cols && k > -a->rows) len = k >= 0 ? (a->rows < a->cols - k ? a->rows : a->cols - k)
                                                   : (a->rows + k < a->cols ? a->rows + k : a->cols);
    if (*out && (st = nd__out_check(fn, *out, vt, 1, &len, dev))) return st;
    nd_status (*slot)(nd_sp_call *);
    if ((st = nd__sp_slot(fn, dev, &slot))) return st;
    nd_sparse *m = NULL;
    nd_array *y = NULL;
    if ((st = nd__sp_as_csr(fn, &m, a))) return st;
    if ((st = nd__alloc(&y, vt, 1, &len, dev))) goto done;
    if (len > 0) {
        nd_sp_call call = {.op = ND_SP_DIAG, .a = nd__sp_csr_form(m), .y = y, .k = k};
        if ((st = nd__sp_run(fn, dev, &call))) goto done;
    }
    st = nd__out_deliver(fn, out, &y, vt, 0);
done:
    nd_sparse_release(m);
    nd_release(y);
    return st;
}

/* rows sel (int64 on the host, each in [0, major of the CSR form of m))
 * of the CSR form of m */
static nd_status sp_gather(const char *fn, nd_sparse **out, const nd_sparse *m, const int64_t *sel, int64_t n,
                           nd_sparse_format fmt)
{
    nd_device dev = m->data->device;
    nd_array *idx = NULL;
    nd_status st = nd_from_host(&idx, sel, ND_INT64, 1, &n, dev);
    if (st) return nd__err_prefix(st, fn);
    nd_sp_call call = {.op = ND_SP_GATHER, .a = nd__sp_csr_form(m), .x = idx};
    st = nd__sp_run(fn, dev, &call);
    nd_release(idx);
    if (st) return st;
    return nd__sp_from_csr(out, fmt, &call.c, m->canonical);
}

nd_status nd_sparse_slice_rows(nd_sparse **out, const nd_sparse *a, int64_t start, int64_t stop, int64_t step)
{
    static const char *fn = "nd_sparse_slice_rows";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, a, "a");
    if (st) return st;
    if (step == 0) return nd__err(ND_ERR_INVALID, fn, "slice step cannot be zero");
    if (step == INT64_MIN) return nd__err(ND_ERR_INVALID, fn, "slice step %lld is out of range", (long long)step);
    nd_status (*slot)(nd_sp_call *);
    if ((st = nd__sp_slot(fn, a->data->device, &slot))) return st;
    /* Python's slice.indices(n) */
    int64_t n = a->rows;
    if (start < 0) start = start + n < 0 ? (step < 0 ? -1 : 0) : start + n;
    else if (start >= n) start = step < 0 ? n - 1 : n;
    if (stop < 0) stop = stop + n < 0 ? (step < 0 ? -1 : 0) : stop + n;
    else if (stop >= n) stop = step < 0 ? n - 1 : n;
    int64_t len = 0;
    if (step > 0 && stop > start) len = (stop - start - 1) / step + 1;
    if (step < 0 && start > stop) len = (start - stop - 1) / (-step) + 1;
    /* the selection is a host array like any other, so that the size
     * checks and the memory limit apply: a COO matrix of 2^62 rows sliced
     * whole once asked malloc for len * 8 bytes, a product that wraps */
    nd_array *selh = NULL;
    if ((st = nd__alloc(&selh, ND_INT64, 1, &len, nd_cpu()))) return nd__err_prefix(st, fn);
    int64_t *sel = (int64_t *)(void *)nd__ptr(selh);
    for (int64_t i = 0; i < len; i++) sel[i] = start + i * step;
    nd_sparse *m = NULL;
    if (!(st = nd__sp_as_csr(fn, &m, a))) st = sp_gather(fn, out, m, sel, len, ND_SPARSE_CSR);
    nd_sparse_release(m);
    nd_release(selh);
    return st;
}

nd_status nd_sparse_take(nd_sparse **out, const nd_sparse *a, const nd_array *idx, int axis)
{
    static const char *fn = "nd_sparse_take";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, a, "a");
    if (st) return st;
    ND_CHECK_PTR(fn, idx, "idx");
    if (axis < -2 || axis > 1) return nd__err(ND_ERR_INVALID, fn, "axis %d is out of bounds for a 2-D matrix", axis);
    if (axis < 0) axis += 2;
    if (idx->ndim != 1) return nd__err(ND_ERR_SHAPE, fn, "'idx' must be 1-D, got %d-D", idx->ndim);
    if (!nd__is_integer(idx->dtype))
        return nd__err(ND_ERR_DTYPE, fn, "'idx' is %s; indices must be integers", nd_dtype_name(idx->dtype));
    if (!nd__same_device(a->data->device, idx->device)) {
        char x[32], y[32];
        return nd__err(ND_ERR_DEVICE, fn, "'a' is on %s but 'idx' is on %s",
                       nd__device_name(a->data->device, x, sizeof x), nd__device_name(idx->device, y, sizeof y));
    }
    nd_status (*slot)(nd_sp_call *);
    if ((st = nd__sp_slot(fn, a->data->device, &slot))) return st;
    int64_t n = axis == 0 ? a->rows : a->cols;
    nd_array *i64 = NULL, *h = NULL;
    if ((st = nd__copy_new(&i64, idx, ND_INT64))) return st;
    st = nd__sp_host(&h, i64);
    nd_release(i64);
    if (st) return nd__err_prefix(st, fn);
    int64_t *sel = nd__malloc((size_t)h->size * sizeof(int64_t) + 1);
    if (!sel) {
        const long long hn = (long long)h->size; /* read before h goes */
        nd_release(h);
        return nd__err(ND_ERR_NOMEM, fn, "out of host memory for %lld indices", hn);
    }
    const int64_t *v = (const int64_t *)nd__ptr(h);
    for (int64_t i = 0; i < h->size && !st; i++) {
        int64_t j = v[i] < 0 ? v[i] + n : v[i];
        if (j < 0 || j >= n)
            st = nd__err(ND_ERR_INVALID, fn, "index %lld is out of bounds for axis %d with size %lld",
                         (long long)v[i], axis, (long long)n);
        sel[i] = j;
    }
    int64_t len = h->size;
    nd_release(h);
    nd_sparse *m = NULL;
    if (!st && !(st = nd_sparse_convert(&m, a, axis == 0 ? ND_SPARSE_CSR : ND_SPARSE_CSC)))
        st = sp_gather(fn, out, m, sel, len, axis == 0 ? ND_SPARSE_CSR : ND_SPARSE_CSC);
    nd_sparse_release(m);
    nd__free(sel);
    return st;
}
