/* Linear algebra: nd_matmul, nd_dot, nd_gemm.
 *
 * The core validates, computes result shapes and dtypes (nd_result_type;
 * bool @ bool is bool, the logical or of ands, as in NumPy), casts the
 * inputs to that dtype, and hands the backend 3-D (batch, rows, cols)
 * views. Batch dimensions that broadcast are stride 0; batch dimensions
 * that cannot be merged into one strided axis for every operand are
 * iterated here, one backend call per outer index. An output of another
 * dtype, or one that overlaps an input, is computed into a temporary and
 * then cast/copied.
 *
 * complex64/complex128 take the same path as the float dtypes (the
 * backends call cgemm/zgemm, no conjugation anywhere: NumPy's matmul and
 * dot); complex with a real dtype promotes through nd_result_type.
 *
 * nd_gemm decisions (NumPy has no gemm): a and b must be 2-D; their
 * promoted dtype must be a float or complex dtype (complex: alpha and beta
 * are (alpha, 0) and (beta, 0)) (integer/bool gemm is
 * ND_ERR_DTYPE: use nd_matmul); an existing *c must be 2-D with the result
 * shape and exactly that promoted dtype (ND_ERR_DTYPE otherwise: c is
 * read and written in place, never cast). BLAS conventions apply: beta ==
 * 0 does not read c (NaNs in c are not propagated), alpha == 0 does not
 * read a and b.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/out.h"
#include "core/prof.h"

#define SIG "(n?,k),(k,m?)->(n?,m?)"

static nd_status check_devices(const char *func, const nd_array *a, const nd_array *b)
{
    char d1[32], d2[32];
    if (!nd__same_device(a->device, b->device))
        return nd__err(ND_ERR_DEVICE, func, "operands are on different devices (%s and %s)",
                       nd__device_name(a->device, d1, sizeof d1), nd__device_name(b->device, d2, sizeof d2));
    return ND_OK;
}

static const nd_backend *backend_of(const char *func, nd_device dev, nd_status *st)
{
    const nd_backend *be = nd__backend(dev);
    if (!be || !be->matmul || !be->gemm || !be->fill) {
        char d[32];
        *st = nd__err(ND_ERR_UNSUPPORTED, func, "no matmul backend for device %s", nd__device_name(dev, d, sizeof d));
        return NULL;
    }
    *st = ND_OK;
    return be;
}

/* ------------------------------------------------------------------ */
/* The batched engine                                                  */
/* ------------------------------------------------------------------ */
typedef struct {
    const nd_array *arr;
    int64_t str[ND_MAX_DIMS + 2]; /* element strides: batch dims, rows, cols */
} operand;

/* out[batch] = a[batch] @ b[batch] for every index of the batch shape
 * (nbd dims). All arrays have the same dtype; strides are relative to
 * each array's element 0. op[0] = out, op[1] = a, op[2] = b. */
static nd_status mm_run(const char *func, const nd_backend *be, int nbd, const int64_t *bshape, int64_t M, int64_t N,
                        int64_t K, operand op[3])
{
    /* Merge batch dims (size-1 dims dropped) where every operand allows. */
    int nm = 0;
    int64_t mshape[ND_MAX_DIMS], mstr[3][ND_MAX_DIMS];
    for (int d = 0; d < nbd; d++) {
        if (bshape[d] == 1) continue;
        bool merge = nm > 0;
        for (int k = 0; merge && k < 3; k++) merge = mstr[k][nm - 1] == op[k].str[d] * bshape[d];
        if (merge) {
            mshape[nm - 1] *= bshape[d];
            for (int k = 0; k < 3; k++) mstr[k][nm - 1] = op[k].str[d];
        } else {
            mshape[nm] = bshape[d];
            for (int k = 0; k < 3; k++) mstr[k][nm] = op[k].str[d];
            nm++;
        }
    }
    int64_t inner = 1, istr[3] = {0, 0, 0};
    if (nm > 0) {
        nm--;
        inner = mshape[nm];
        for (int k = 0; k < 3; k++) istr[k] = mstr[k][nm];
    }
    /* 3-D views of the innermost batch block. */
    const int64_t rows[3] = {M, M, K}, cols[3] = {N, K, N};
    nd_array *v[3] = {NULL, NULL, NULL};
    nd_status st = ND_OK;
    for (int k = 0; k < 3 && st == ND_OK; k++) {
        int64_t shp[3] = {inner, rows[k], cols[k]};
        int64_t str[3] = {istr[k], op[k].str[nbd], op[k].str[nbd + 1]};
        st = nd__view(&v[k], op[k].arr, op[k].arr->dtype, 3, shp, str, op[k].arr->offset);
    }
    /* Odometer over the outer merged dims. */
    int64_t idx[ND_MAX_DIMS] = {0};
    while (st == ND_OK) {
        for (int k = 0; k < 3; k++) {
            int64_t e = 0;
            for (int d = 0; d < nm; d++) e += idx[d] * mstr[k][d];
            v[k]->offset = op[k].arr->offset + e * (int64_t)nd__itemsize(op[k].arr->dtype);
        }
        st = be->matmul(v[0], v[1], v[2]);
        int d = nm - 1;
        while (d >= 0 && ++idx[d] == mshape[d]) idx[d--] = 0;
        if (d < 0) break;
    }
    for (int k = 0; k < 3; k++) nd_release(v[k]);
    if (st != ND_OK) return nd__err_prefix(st, func);
    return ND_OK;
}

/* Fill every element of x with zero bytes (0, 0.0, false in every dtype). */
static nd_status fill_zero(const char *func, const nd_backend *be, nd_array *x)
{
    static const unsigned char zero[16] = {0};
    nd_status st = be->fill(x, zero);
    return st == ND_OK ? ND_OK : nd__err_prefix(st, func);
}

/* ------------------------------------------------------------------ */
/* nd_matmul                                                           */
/* ------------------------------------------------------------------ */

/* Validated matmul shared by nd_matmul and nd_dot (func names the caller). */
static nd_status matmul_impl(const char *func, nd_array **out, const nd_array *a, const nd_array *b)
{
    nd_status st;
    const nd_backend *be = backend_of(func, a->device, &st);
    if (!be) return st;
    nd_dtype rt;
    st = nd_result_type(&rt, a->dtype, b->dtype);
    if (st != ND_OK) return nd__err_prefix(st, func);

    int an = a->ndim, bn = b->ndim;
    int64_t K = a->shape[an - 1];
    int64_t M = an >= 2 ? a->shape[an - 2] : 1;
    int64_t N = bn >= 2 ? b->shape[bn - 1] : 1;
    int abd = an > 2 ? an - 2 : 0, bbd = bn > 2 ? bn - 2 : 0;
    int nbd;
    int64_t shape[ND_MAX_DIMS];
    st = nd__broadcast_shapes(func, abd, a->shape, bbd, b->shape, &nbd, shape);
    if (st != ND_OK) return st;
    int rnd = nbd;
    if (an >= 2) shape[rnd++] = M;
    if (bn >= 2) shape[rnd++] = N;

    nd_out t;
    if ((st = nd__out_begin(&t, func, out, rt, rnd, shape, a->device))) return st;
    /* mixed precision: float16/bfloat16 operands and a float32 out are
     * computed straight into float32 (the backends accumulate in float32
     * and write float32, never rounding to half in between); any other
     * out dtype gets the result dtype, cast once */
    const nd_dtype ct = nd__storage_only(rt) && t.res->dtype == nd__compute_dtype(rt) ? nd__compute_dtype(rt) : rt;
    nd_array *ca = NULL, *cb = NULL;
    if (t.res->size == 0) goto done;
    if (K == 0) {
        st = fill_zero(func, be, t.res);
        goto done;
    }
    st = nd__as_dtype(&ca, a, rt);
    if (st == ND_OK) st = nd__as_dtype(&cb, b, rt);
    /* every element of the result reads a row and a column: any overlap
     * with an input (even exact aliasing) computes into a temporary */
    const nd_array *ins[2] = {ca, cb};
    if (st == ND_OK) st = nd__out_target(&t, ct, ND_OUT_EXACT_DTYPE, 2, ins);
    if (st != ND_OK) goto done;
    nd_array *target = t.dst;
    operand op[3];
    op[0].arr = target, op[1].arr = ca, op[2].arr = cb;
    for (int d = 0; d < nbd; d++) {
        op[0].str[d] = target->strides[d];
        int ia = d - (nbd - abd), ib = d - (nbd - bbd);
        op[1].str[d] = (ia < 0 || ca->shape[ia] == 1) ? 0 : ca->strides[ia];
        op[2].str[d] = (ib < 0 || cb->shape[ib] == 1) ? 0 : cb->strides[ib];
    }
    op[0].str[nbd] = an >= 2 ? target->strides[nbd] : 0;
    op[0].str[nbd + 1] = bn >= 2 ? target->strides[rnd - 1] : 0;
    op[1].str[nbd] = an >= 2 ? ca->strides[an - 2] : 0;
    op[1].str[nbd + 1] = ca->strides[an - 1];
    op[2].str[nbd] = bn >= 2 ? cb->strides[bn - 2] : cb->strides[0];
    op[2].str[nbd + 1] = bn >= 2 ? cb->strides[bn - 1] : 0;
    st = mm_run(func, be, nbd, shape, M, N, K, op);
done:
    nd_release(ca);
    nd_release(cb);
    return nd__out_end(&t, st);
}

/* The multiply-adds (2 flops each) of a matmul of a (.., M, K) and b
 * (.., K, N) (1-D operands: M or N of 1), batch dims broadcast: the
 * profiler's flops (the shapes are valid when it is called). */
static double mm_flops(const nd_array *a, const nd_array *b)
{
    const int an = a->ndim, bn = b->ndim, nb = (an > bn ? an : bn) - 2;
    double f = 2.0 * (double)a->shape[an - 1] * (double)(an >= 2 ? a->shape[an - 2] : 1) *
               (double)(bn >= 2 ? b->shape[bn - 1] : 1);
    for (int i = 0; i < nb; i++) {
        const int64_t da = i < an - 2 ? a->shape[an - 3 - i] : 1, db = i < bn - 2 ? b->shape[bn - 3 - i] : 1;
        f *= (double)(da == 1 ? db : da);
    }
    return f;
}

nd_status nd_matmul(nd_array **out, const nd_array *a, const nd_array *b)
{
    ND_PROF_OP("matmul", out, a, b);
    static const char *const F = "nd_matmul";
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, a, "a");
    ND_CHECK_PTR(F, b, "b");
    nd_status st = check_devices(F, a, b);
    if (st != ND_OK) return st;
    for (int i = 0; i < 2; i++) {
        const nd_array *x = i ? b : a;
        if (x->ndim == 0)
            return nd__err(ND_ERR_SHAPE, F,
                           "Input operand %d does not have enough dimensions (has 0, gufunc core with signature " SIG
                           " requires 1)",
                           i);
    }
    int64_t K = a->shape[a->ndim - 1];
    int64_t Kb = b->ndim >= 2 ? b->shape[b->ndim - 2] : b->shape[0];
    if (K != Kb)
        return nd__err(ND_ERR_SHAPE, F,
                       "Input operand 1 has a mismatch in its core dimension 0, with gufunc signature " SIG
                       " (size %lld is different from %lld)",
                       (long long)Kb, (long long)K);
    ND_PROF_FLOPS(mm_flops(a, b));
    return matmul_impl(F, out, a, b);
}

/* ------------------------------------------------------------------ */
/* nd_dot                                                              */
/* ------------------------------------------------------------------ */

/* dot for a.ndim >= 2 and b.ndim >= 3 or a.ndim >= 3 and b.ndim >= 2:
 * result[p..., q..., n] = sum_k a[p..., k] * b[q..., k, n], computed as a
 * batch over q of (P, K) @ (K, N) written into a (Q, P, N) view of the
 * C-contiguous result. */
static nd_status dot_nd(const char *func, nd_array **out, const nd_array *a, const nd_array *b)
{
    nd_status st;
    const nd_backend *be = backend_of(func, a->device, &st);
    if (!be) return st;
    nd_dtype rt;
    st = nd_result_type(&rt, a->dtype, b->dtype);
    if (st != ND_OK) return nd__err_prefix(st, func);
    int an = a->ndim, bn = b->ndim;
    if (an + bn - 2 > ND_MAX_DIMS)
        return nd__err(ND_ERR_SHAPE, func, "the result would have %d dimensions (maximum %d)", an + bn - 2, ND_MAX_DIMS);
    int64_t K = a->shape[an - 1], N = b->shape[bn - 1], P = 1, Q = 1;
    int64_t shape[ND_MAX_DIMS];
    int rnd = 0;
    for (int i = 0; i < an - 1; i++) P *= (shape[rnd++] = a->shape[i]);
    for (int i = 0; i < bn - 2; i++) Q *= (shape[rnd++] = b->shape[i]);
    shape[rnd++] = N;

    nd_out t;
    if ((st = nd__out_begin(&t, func, out, rt, rnd, shape, a->device))) return st;
    nd_array *ca = NULL, *cb = NULL, *a2 = NULL, *b3 = NULL;
    if (t.res->size == 0) goto done;
    if (K == 0) {
        st = fill_zero(func, be, t.res);
        goto done;
    }
    st = nd__as_dtype(&ca, a, rt);
    if (st == ND_OK) st = nd__as_dtype(&cb, b, rt);
    const int64_t s2[2] = {P, K}, s3[3] = {Q, K, N};
    if (st == ND_OK) st = nd_reshape(&a2, ca, 2, s2);
    if (st == ND_OK) st = nd_reshape(&b3, cb, 3, s3);
    const nd_array *ins[2] = {a2, b3};
    if (st == ND_OK) st = nd__out_target(&t, rt, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 2, ins);
    if (st != ND_OK) goto done;
    nd_array *target = t.dst;
    operand op[3] = {{target, {N, Q * N, 1}},
                     {a2, {0, a2->strides[0], a2->strides[1]}},
                     {b3, {b3->strides[0], b3->strides[1], b3->strides[2]}}};
    const int64_t bshape[1] = {Q};
    st = mm_run(func, be, 1, bshape, P, N, K, op);
done:
    nd_release(ca);
    nd_release(cb);
    nd_release(a2);
    nd_release(b3);
    return nd__out_end(&t, st);
}

nd_status nd_dot(nd_array **out, const nd_array *a, const nd_array *b)
{
    ND_PROF_OP("dot", out, a, b);
    static const char *const F = "nd_dot";
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, a, "a");
    ND_CHECK_PTR(F, b, "b");
    nd_status st = check_devices(F, a, b);
    if (st != ND_OK) return st;
    if (a->ndim == 0 || b->ndim == 0) {
        st = nd_multiply(out, a, b);
        return st == ND_OK ? ND_OK : nd__err_prefix(st, F);
    }
    int an = a->ndim, bn = b->ndim;
    int kb = bn >= 2 ? bn - 2 : 0;
    if (a->shape[an - 1] != b->shape[kb]) {
        char s1[400], s2[400];
        return nd__err(ND_ERR_SHAPE, F, "shapes %s and %s not aligned: %lld (dim %d) != %lld (dim %d)",
                       nd__fmt_shape(s1, sizeof s1, an, a->shape), nd__fmt_shape(s2, sizeof s2, bn, b->shape),
                       (long long)a->shape[an - 1], an - 1, (long long)b->shape[kb], kb);
    }
    /* With a 1-D operand or two matrices, dot is matmul. */
    if (an == 1 || bn == 1 || (an == 2 && bn == 2)) {
        ND_PROF_FLOPS(mm_flops(a, b));
        return matmul_impl(F, out, a, b);
    }
    ND_PROF_FLOPS(a->shape[an - 1] ? 2.0 * (double)(a->size / a->shape[an - 1]) * (double)b->size : 0); /* (P, K) @ Q x (K, N) */
    return dot_nd(F, out, a, b);
}

/* ------------------------------------------------------------------ */
/* nd_gemm                                                             */
/* ------------------------------------------------------------------ */
nd_status nd_gemm(nd_array **c, bool trans_a, bool trans_b, double alpha, const nd_array *a, const nd_array *b,
                  double beta)
{
    ND_PROF_OP("gemm", c, a, b);
    static const char *const F = "nd_gemm";
    ND_CHECK_PTR(F, c, "c");
    ND_CHECK_PTR(F, a, "a");
    ND_CHECK_PTR(F, b, "b");
    nd_status st = check_devices(F, a, b);
    if (st != ND_OK) return st;
    if (a->ndim != 2) return nd__err(ND_ERR_SHAPE, F, "a must be 2-D, but it has %d dimension(s)", a->ndim);
    if (b->ndim != 2) return nd__err(ND_ERR_SHAPE, F, "b must be 2-D, but it has %d dimension(s)", b->ndim);
    nd_dtype rt;
    st = nd_result_type(&rt, a->dtype, b->dtype);
    if (st != ND_OK) return nd__err_prefix(st, F);
    if (!nd__is_float(rt) && !nd__is_complex(rt))
        return nd__err(ND_ERR_DTYPE, F,
                       "the result dtype of a (%s) and b (%s) is %s; gemm needs a float dtype or a complex one (use nd_matmul)",
                       nd_dtype_name(a->dtype), nd_dtype_name(b->dtype), nd_dtype_name(rt));
    int64_t M = trans_a ? a->shape[1] : a->shape[0], K = trans_a ? a->shape[0] : a->shape[1];
    int64_t Kb = trans_b ? b->shape[1] : b->shape[0], N = trans_b ? b->shape[0] : b->shape[1];
    if (K != Kb)
        return nd__err(ND_ERR_SHAPE, F, "op(a) has shape (%lld,%lld) and op(b) has shape (%lld,%lld): %lld != %lld",
                       (long long)M, (long long)K, (long long)Kb, (long long)N, (long long)K, (long long)Kb);
    ND_PROF_FLOPS(2.0 * (double)M * (double)N * (double)K);
    nd_array *cu = *c;
    if (cu) {
        char s1[400];
        if (cu->ndim != 2 || cu->shape[0] != M || cu->shape[1] != N)
            return nd__err(ND_ERR_SHAPE, F, "c has shape %s, but op(a) @ op(b) has shape (%lld,%lld)",
                           nd__fmt_shape(s1, sizeof s1, cu->ndim, cu->shape), (long long)M, (long long)N);
        if (!nd__same_device(cu->device, a->device)) {
            char d1[32], d2[32];
            return nd__err(ND_ERR_DEVICE, F, "c is on %s, but a and b are on %s", nd__device_name(cu->device, d1, sizeof d1),
                           nd__device_name(a->device, d2, sizeof d2));
        }
        /* mixed precision: float16/bfloat16 a and b into a float32 c */
        const bool mixed = nd__storage_only(rt) && cu->dtype == nd__compute_dtype(rt);
        if (cu->dtype != rt && !mixed)
            return nd__err(ND_ERR_DTYPE, F, "c has dtype %s, but the result dtype of a (%s) and b (%s) is %s",
                           nd_dtype_name(cu->dtype), nd_dtype_name(a->dtype), nd_dtype_name(b->dtype),
                           nd_dtype_name(rt));
        if ((st = nd__out_check_writable(F, cu, "c"))) return st;
    }
    const nd_backend *be = backend_of(F, a->device, &st);
    if (!be) return st;

    nd_array *ca = NULL, *cb = NULL, *res = cu;
    st = nd__as_dtype(&ca, a, rt);
    if (st == ND_OK) st = nd__as_dtype(&cb, b, rt);
    /* c is updated in place: inputs that share its memory are copied first. */
    for (int i = 0; cu && st == ND_OK && i < 2; i++) {
        nd_array **x = i ? &cb : &ca;
        if (!nd__may_overlap(cu, *x)) continue;
        nd_array *copy = NULL;
        st = nd__alloc(&copy, rt, 2, (*x)->shape, a->device);
        if (st == ND_OK) st = nd__copy_into(copy, *x);
        nd_release(*x);
        *x = copy;
    }
    if (st == ND_OK && !cu) {
        const int64_t shp[2] = {M, N};
        st = nd__alloc(&res, rt, 2, shp, a->device);
        beta = 0.0;
    }
    if (st == ND_OK) st = be->gemm(res, trans_a, trans_b, alpha, ca, cb, beta);
    nd_release(ca);
    nd_release(cb);
    if (st != ND_OK) {
        if (!cu) nd_release(res);
        return nd__err_prefix(st, F);
    }
    if (!cu) *c = res;
    return ND_OK;
}
