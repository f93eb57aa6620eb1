/* The shared machinery of the numpy.linalg decompositions (the
 * interface and what each helper does: src/linalg/la.h).
 *
 * Decisions:
 * - Layout: the slot takes column-major stacks (src/shared/la_slots.h). A row-major
 *   (..., m, n) operand becomes the C-contiguous (..., n, m) copy of its
 *   last-two-axes-swapped view (nd__la_pack), which is exactly the
 *   slot's (batch, cols, rows) stack; results come back the same way (a
 *   swapped view of the slot's buffer copied into the result). Complex
 *   matrices are transposed, never conjugated, on the way in and out.
 * - Inputs are read only once, into private copies, before any result is
 *   written: a given out that aliases an input is then harmless.
 * - info: the first matrix whose info is > 0 names the error ("singular
 *   matrix (batch 3)"; the batch index is the flat index over the
 *   broadcast leading axes, C order).
 * - Several results: every out-pointer is checked (or its result
 *   allocated) before the work starts, so a wrong out fails fast and
 *   leaves the others untouched. */
#include <stdlib.h>
#include <string.h>

#include "linalg/la.h"

nd_status nd__la_ctype(const char *fn, const nd_array *a, const char *name, nd_dtype *ct)
{
    const nd_dtype t = a->dtype;
    nd_dtype r;
    if (!nd__dtype_valid(t)) return nd__err(ND_ERR_DTYPE, fn, "array '%s' has an invalid dtype", name);
    switch (nd__compute_dtype(t)) { /* a storage-only float: its compute type */
    case ND_FLOAT32: case ND_FLOAT64: case ND_COMPLEX64: case ND_COMPLEX128: r = nd__compute_dtype(t); break;
    default:
        if (t == ND_BOOL || nd__is_integer(t)) r = ND_FLOAT64;
        else return nd__err(ND_ERR_DTYPE, fn, "array '%s' has dtype %s, which linalg does not support", name,
                            nd_dtype_name(t));
    }
    if (ct) *ct = r;
    return ND_OK;
}

nd_status nd__la_check(const char *fn, const nd_array *a, const char *name, bool square, nd_dtype *ct)
{
    if (!a) return nd__err(ND_ERR_INVALID, fn, "'%s' is NULL", name);
    if (a->ndim < 2)
        return nd__err(ND_ERR_SHAPE, fn, "'%s': %d-dimensional array given. Array must be at least two-dimensional",
                       name, a->ndim);
    if (square && a->shape[a->ndim - 1] != a->shape[a->ndim - 2]) {
        char b[400];
        return nd__err(ND_ERR_SHAPE, fn, "'%s' has shape %s: last 2 dimensions of the array must be square", name,
                       nd__fmt_shape(b, sizeof b, a->ndim, a->shape));
    }
    return nd__la_ctype(fn, a, name, ct);
}

nd_status nd__la_ready(const char *fn, nd_device dev)
{
    const nd_backend *be = nd__backend(dev);
    if (be && be->la) return ND_OK;
    char d[32];
    return nd__err(ND_ERR_UNSUPPORTED, fn, "no linear algebra (LAPACK/cuSOLVER) for device %s",
                   nd__device_name(dev, d, sizeof d));
}

nd_status nd__la_same_device(const char *fn, const nd_array *a, const nd_array *b)
{
    if (nd__same_device(a->device, b->device)) return ND_OK;
    char d1[32], d2[32];
    return nd__err(ND_ERR_DEVICE, fn, "operands are on different devices (%s and %s)",
                   nd__device_name(a->device, d1, sizeof d1), nd__device_name(b->device, d2, sizeof d2));
}

nd_status nd__la_norm_axis(const char *fn, int ax, int nd, int *res)
{
    if (ax < -nd || ax >= nd) return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", ax, nd);
    *res = ax < 0 ? ax + nd : ax;
    return ND_OK;
}

int64_t nd__la_batch(const nd_array *a)
{
    int64_t b = 1;
    for (int i = 0; i < a->ndim - 2; i++) b *= a->shape[i];
    return b;
}

nd_status nd__la_swap(nd_array **v, const nd_array *a)
{
    int64_t shape[ND_MAX_DIMS], str[ND_MAX_DIMS];
    const int n = a->ndim;
    memcpy(shape, a->shape, sizeof(int64_t) * (size_t)n);
    memcpy(str, a->strides, sizeof(int64_t) * (size_t)n);
    shape[n - 2] = a->shape[n - 1], shape[n - 1] = a->shape[n - 2];
    str[n - 2] = a->strides[n - 1], str[n - 1] = a->strides[n - 2];
    return nd__view(v, a, a->dtype, n, shape, str, a->offset);
}

nd_status nd__la_flat(nd_array **v, const nd_array *a, bool two)
{
    int64_t shape[3], str[3];
    const int n = a->ndim;
    if (two) {
        shape[0] = 1;
        for (int i = 0; i < n - 1; i++) shape[0] *= a->shape[i];
        shape[1] = a->shape[n - 1];
        str[1] = 1, str[0] = shape[1];
        return nd__view(v, a, a->dtype, 2, shape, str, a->offset);
    }
    shape[0] = nd__la_batch(a);
    shape[1] = a->shape[n - 2], shape[2] = a->shape[n - 1];
    str[2] = 1, str[1] = shape[2], str[0] = shape[1] * shape[2];
    return nd__view(v, a, a->dtype, 3, shape, str, a->offset);
}

nd_status nd__la_pack(nd_array **out, const nd_array *a, int nb, const int64_t *bshape, nd_dtype ct, bool swap)
{
    *out = NULL;
    int64_t shape[ND_MAX_DIMS];
    if (nb > 0) memcpy(shape, bshape, sizeof(int64_t) * (size_t)nb);
    const int64_t r = a->shape[a->ndim - 2], c = a->shape[a->ndim - 1];
    shape[nb] = swap ? c : r, shape[nb + 1] = swap ? r : c;
    /* 4 KiB of slack after the stack: OpenBLAS 0.3.21's zgemv_n kernel
     * (zheevd -> zhetrd -> zlatrd) crashed in about 1 full test run in 10,
     * consistent with a read past the end of an operand that ends a
     * mapping (a 128 KiB stack is mmap'ed); the slack keeps such a read in
     * our memory. */
    nd_array *dst = NULL, *sw = NULL, *flat = NULL;
    int64_t n = 1, strides[ND_MAX_DIMS];
    for (int i = nb + 1; i >= 0; i--) strides[i] = n, n *= shape[i];
    const int64_t padded = n + (int64_t)(4096 / nd__itemsize(ct));
    nd_status st = nd__alloc(&flat, ct, 1, &padded, a->device);
    if (!st) st = nd__view(&dst, flat, ct, nb + 2, shape, strides, flat->offset);
    nd_release(flat);
    if (st) return st;
    if (swap && (st = nd__la_swap(&sw, a))) goto fail;
    if ((st = nd__copy_into(dst, swap ? sw : a))) goto fail; /* broadcasts the batch axes */
    nd_release(sw);
    *out = dst;
    return ND_OK;
fail:
    nd_release(sw);
    nd_release(dst);
    return st;
}

nd_status nd__la_exec(const char *fn, nd_la_call *c)
{
    const nd_backend *be = nd__backend(c->a->device);
    if (!be || !be->la) return nd__la_ready(fn, c->a->device);
    for (int64_t i = 0; i < c->batch; i++) c->info[i] = 0;
    nd_status st = be->la(c);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

bool nd__la_any_info(const int32_t *info, int64_t batch)
{
    for (int64_t i = 0; i < batch; i++)
        if (info[i] > 0) return true;
    return false;
}

nd_status nd__la_info(const char *fn, const int32_t *info, int64_t batch, const char *what)
{
    for (int64_t i = 0; i < batch; i++)
        if (info[i] > 0) return nd__err(ND_ERR_INVALID, fn, "%s (batch %lld)", what, (long long)i);
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Several results                                                     */
/* ------------------------------------------------------------------ */
void nd__la_outs_init(nd_la_outs *o, const char *fn)
{
    memset(o, 0, sizeof *o);
    o->fn = fn;
}

nd_status nd__la_out(nd_la_outs *o, nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev)
{
    const int i = o->n++;
    o->on[i] = false;
    if (!out) return ND_OK;
    nd_status st = nd__out_begin(&o->t[i], o->fn, out, dtype, ndim, shape, dev);
    if (st) return st;
    o->on[i] = true;
    return ND_OK;
}

nd_status nd__la_put(nd_la_outs *o, int i, const nd_array *val)
{
    nd_array *r = nd__la_res(o, i);
    if (!r || r->size == 0) return ND_OK;
    return nd__copy_into(r, val);
}

nd_status nd__la_put_value(nd_la_outs *o, int i, double v)
{
    nd_array *r = nd__la_res(o, i), *s = NULL;
    if (!r || r->size == 0) return ND_OK;
    nd_status st = nd__scalar_array(&s, nd_scalar_float(v), ND_FLOAT64, r->device);
    if (!st) st = nd__copy_into(r, s);
    nd_release(s);
    return st;
}

nd_status nd__la_put_eye(nd_la_outs *o, int i)
{
    nd_array *r = nd__la_res(o, i), *e = NULL;
    if (!r || r->size == 0) return ND_OK;
    const int64_t n = r->shape[r->ndim - 1];
    nd_status st = nd_eye(&e, r->dtype, n, n, 0, r->device);
    if (!st) st = nd__copy_into(r, e);
    nd_release(e);
    return st;
}

nd_status nd__la_outs_end(nd_la_outs *o, nd_status st)
{
    for (int i = 0; i < o->n; i++)
        if (o->on[i]) st = nd__out_end(&o->t[i], st);
    o->n = 0;
    return st ? nd__err_prefix(st, o->fn) : ND_OK;
}

/* ------------------------------------------------------------------ */
/* Stacks and slot calls shared by the functions                       */
/* ------------------------------------------------------------------ */
/* A contiguous array a viewed with another shape of the same size. */
nd_status nd__la_reshaped(nd_array **v, const nd_array *a, int ndim, const int64_t *shape)
{
    int64_t str[ND_MAX_DIMS];
    nd__contiguous_strides(ndim, shape, str);
    return nd__view(v, a, a->dtype, ndim, shape, str, a->offset);
}

/* A fresh array of dtype t with shape bshape (nb axes) + tail (nt axes). */
nd_status nd__la_alloc_bt(nd_array **out, nd_dtype t, int nb, const int64_t *bshape, int nt, const int64_t *tail,
                          nd_device dev)
{
    int64_t shape[ND_MAX_DIMS];
    if (nb > 0) memcpy(shape, bshape, sizeof(int64_t) * (size_t)nb);
    memcpy(shape + nb, tail, sizeof(int64_t) * (size_t)nt);
    return nd__alloc(out, t, nb + nt, shape, dev);
}


/* One slot call on 3-D/2-D views of the given full-shape arrays; info is
 * allocated here and returned (caller frees). */

nd_status nd__la_run(const char *fn, const nd_la_args *x, int64_t batch, int32_t **info_out)
{
    nd_la_call c;
    memset(&c, 0, sizeof c);
    c.op = x->op, c.job = x->job, c.lower = x->lower, c.batch = batch;
    c.m = x->m, c.n = x->n, c.nrhs = x->nrhs, c.k = x->k;
    nd_array *v[7] = {NULL};
    nd_array *const src[7] = {x->a, x->b, x->w, x->u, x->vt, x->ipiv, x->tau};
    static const bool two[7] = {false, false, true, false, false, true, true};
    nd_status st = ND_OK;
    int32_t *info = nd__malloc(sizeof(int32_t) * (size_t)batch);
    if (!info) {
        st = nd__err(ND_ERR_NOMEM, fn, "cannot allocate %lld info entries", (long long)batch);
        goto done;
    }
    for (int i = 0; i < 7; i++)
        if (src[i] && (st = nd__la_flat(&v[i], src[i], two[i]))) goto done;
    c.a = v[0], c.b = v[1], c.w = v[2], c.u = v[3], c.vt = v[4], c.ipiv = v[5], c.tau = v[6];
    c.info = info;
    st = nd__la_exec(fn, &c);
done:
    for (int i = 0; i < 7; i++) nd_release(v[i]);
    if (st) nd__free(info);
    else *info_out = info;
    return st;
}


/* GESV of the packed stacks A (bs, n, n) and B (bs, k, n) (both destroyed:
 * B receives x column-major); info is checked when check_singular. */
nd_status nd__la_gesv(const char *fn, nd_array *A, nd_array *B, int64_t batch, int64_t n, int64_t k,
                      int32_t **info)
{
    nd_la_args x = {.op = ND_LA_GESV, .m = n, .n = n, .nrhs = k, .a = A, .b = B};
    return nd__la_run(fn, &x, batch, info);
}

/* Identity matrices (bshape..., n, n) of dtype t. */
nd_status nd__la_eyes(nd_array **out, nd_dtype t, int nb, const int64_t *bs, int64_t n, nd_device dev)
{
    nd_array *e = NULL;
    const int64_t tail[2] = {n, n};
    nd_status st = nd__la_alloc_bt(out, t, nb, bs, 2, tail, dev);
    if (!st) st = nd_eye(&e, t, n, n, 0, dev);
    if (!st) st = nd__copy_into(*out, e);
    nd_release(e);
    if (st) ND_LA_REL(*out);
    return st;
}


/* inv of the square stack a (already validated, ct its dtype) into X (a's
 * shape, ROW-major: the inverses as they are); info returned for the
 * caller to judge. No transposition either way: a's row-major bits are
 * A^T column-major, and the solution of A^T X = I is inv(A)^T column-major,
 * which is inv(A) row-major (10,000 4x4 float32: 1.5 -> 1.0 ms). */
nd_status nd__la_inv_stack(const char *fn, nd_array **X, const nd_array *a, nd_dtype ct, int32_t **info)
{
    const int nb = a->ndim - 2;
    const int64_t n = a->shape[a->ndim - 1];
    nd_array *A = NULL;
    nd_status st = nd__la_pack(&A, a, nb, a->shape, ct, false);
    if (!st) st = nd__la_eyes(X, ct, nb, a->shape, n, a->device);
    if (!st) st = nd__la_gesv(fn, A, *X, nd__la_batch(a), n, n, info);
    if (st) ND_LA_REL(*X);
    nd_release(A);
    return st;
}


/* *bad = whether the packed stack A holds a NaN (nan_only) or any non-finite
 * value: one elementwise pass, one reduction, one byte read back (a wait on
 * a GPU). LAPACK's gesdd refuses NaN input as an illegal argument (info
 * -4) and geev's balancing calls xerbla, which prints: the core answers
 * such input itself, as NumPy does, before any backend sees it. */
nd_status nd__la_nonfinite(const nd_array *A, bool nan_only, bool *bad)
{
    nd_array *m = NULL, *r = NULL;
    nd_status st = nd_unary(&m, nan_only ? ND_UNARY_ISNAN : ND_UNARY_ISFINITE, A);
    if (!st) st = nd_reduce(&r, nan_only ? ND_REDUCE_ANY : ND_REDUCE_ALL, m, 0, NULL, false);
    uint8_t h = 0;
    if (!st) st = nd_copy_to_host(&h, r, 1);
    nd_release(m), nd_release(r);
    if (!st) *bad = nan_only ? h != 0 : h == 0;
    return st;
}

/* GESVD of the non-empty stack a (ct): S (bs, K) real; with job S/A also
 * U (bs, ucols, M) and VT (bs, N, vrows) column-major (u's columns, vt's
 * rows: read them through nd__la_swap). */
nd_status nd__la_svd_stack(const char *fn, const nd_array *a, nd_dtype ct, int job, nd_array **U, nd_array **S,
                           nd_array **VT)
{
    const int nb = a->ndim - 2;
    const int64_t M = a->shape[nb], N = a->shape[nb + 1], K = M < N ? M : N, batch = nd__la_batch(a);
    nd_array *A = NULL;
    int32_t *info = NULL;
    const int64_t st_[1] = {K}, ut[2] = {job == ND_LA_JOB_A ? M : K, M}, vtt[2] = {N, job == ND_LA_JOB_A ? N : K};
    nd_status st = nd__la_pack(&A, a, nb, a->shape, ct, true);
    bool nan = false;
    if (!st && !(st = nd__la_nonfinite(A, true, &nan)) && nan) /* NumPy: LinAlgError, gesdd: info -4 */
        st = nd__err(ND_ERR_INVALID, fn, "SVD did not converge (the matrix contains NaN)");
    if (!st) st = nd__la_alloc_bt(S, nd__la_real(ct), nb, a->shape, 1, st_, a->device);
    if (!st && job != ND_LA_JOB_N) {
        if (!(st = nd__la_alloc_bt(U, ct, nb, a->shape, 2, ut, a->device))) st = nd__la_alloc_bt(VT, ct, nb, a->shape, 2, vtt, a->device);
    }
    if (st) goto done;
    nd_la_args x = {.op = ND_LA_GESVD, .job = job, .m = M, .n = N, .a = A, .w = *S,
                 .u = job == ND_LA_JOB_N ? NULL : *U, .vt = job == ND_LA_JOB_N ? NULL : *VT};
    if (!(st = nd__la_run(fn, &x, batch, &info))) st = nd__la_info(fn, info, batch, "SVD did not converge");
done:
    if (st) {
        ND_LA_REL(*S);
        if (job != ND_LA_JOB_N) {
            ND_LA_REL(*U);
            ND_LA_REL(*VT);
        }
    }
    nd__free(info);
    nd_release(A);
    return st;
}

/* eigh of the non-empty square stack a (ct): W (bs, n) real ascending;
 * with vectors, V (bs, n, n) holding them as columns column-major. */
nd_status nd__la_eigh_stack(const char *fn, const nd_array *a, nd_dtype ct, bool lower, bool vectors, nd_array **W,
                            nd_array **V)
{
    const int nb = a->ndim - 2;
    const int64_t n = a->shape[nb], batch = nd__la_batch(a), wt[1] = {n};
    nd_array *A = NULL;
    int32_t *info = NULL;
    nd_status st = nd__la_pack(&A, a, nb, a->shape, ct, true);
    if (!st) st = nd__la_alloc_bt(W, nd__la_real(ct), nb, a->shape, 1, wt, a->device);
    if (st) goto done;
    nd_la_args x = {.op = ND_LA_SYEVD, .job = vectors ? ND_LA_JOB_V : ND_LA_JOB_N, .lower = lower, .m = n, .n = n,
                 .a = A, .w = *W};
    if (!(st = nd__la_run(fn, &x, batch, &info))) st = nd__la_info(fn, info, batch, "eigenvalues did not converge");
done:
    if (st) ND_LA_REL(*W);
    else if (vectors) *V = nd_retain(A);
    nd__free(info);
    nd_release(A);
    return st;
}

/* The singular values of the non-empty stack a (bs, K): svdvals, or |w|
 * of eigvalsh (lower triangle) when hermitian (unordered). */
nd_status nd__la_svals(const char *fn, const nd_array *a, nd_dtype ct, bool hermitian, nd_array **S)
{
    if (!hermitian) return nd__la_svd_stack(fn, a, ct, ND_LA_JOB_N, NULL, S, NULL);
    nd_array *W = NULL;
    nd_status st = nd__la_eigh_stack(fn, a, ct, true, false, &W, NULL);
    if (!st) st = nd_abs(S, W);
    nd_release(W);
    return st;
}

