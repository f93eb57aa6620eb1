/* nd_softmax, nd_log_softmax, nd_logsumexp, nd_cross_entropy:
 * validation, axes, dtypes and outs; the kernels are the backends'
 * softmax / cross_entropy slots (src/shared/softmax_slots.h).
 *
 * The input is brought to a C-contiguous array of the result dtype (a
 * no-op for a contiguous float input), seen as (outer, n, inner) with the
 * op's axis in the middle; logsumexp over several axes first transposes
 * the reduced axes to the end (outer = the kept elements, n = the reduced
 * ones, inner = 1). The reductions of cross-entropy are library ops
 * (nd_reduce_dtype in float32/float64, nd_count_nonzero, nd_divide), so
 * both backends share them. */
#include <math.h>
#include <string.h>

#include "core/out.h"
#include "core/prof.h"
#include "shared/softmax_slots.h"

/* float dtypes keep theirs; bool and integers compute in float64 (SciPy) */
static nd_dtype sm_result(nd_dtype t) { return nd__is_float(t) ? t : ND_FLOAT64; }

static nd_status sm_backend(const char *fn, nd_device dev, const nd_backend **be)
{
    *be = nd__backend(dev);
    if (!*be || !(*be)->softmax || !(*be)->cross_entropy) {
        char d[32];
        return nd__err(ND_ERR_UNSUPPORTED, fn, "no softmax kernels for device %s", nd__device_name(dev, d, sizeof d));
    }
    return ND_OK;
}

static nd_status check_input(const char *fn, const nd_array *x, const char *name)
{
    if (!nd__dtype_valid(x->dtype)) return nd__err(ND_ERR_DTYPE, fn, "array '%s' has an invalid dtype", name);
    return nd__no_complex(fn, x, name);
}

/* x as a C-contiguous array of dtype t (a new reference when it is one). */
static nd_status contiguous_as(nd_array **r, const nd_array *x, nd_dtype t)
{
    if (x->dtype == t && nd_is_contiguous(x)) {
        *r = nd_retain((nd_array *)x);
        return ND_OK;
    }
    nd_status st = nd__alloc(r, t, x->ndim, x->shape, x->device);
    if (st) return st;
    if ((st = nd__copy_into(*r, x))) {
        nd_release(*r);
        *r = NULL;
    }
    return st;
}

/* softmax / log_softmax along one axis */
static nd_status sm_axis(const char *fn, int mode, nd_array **out, const nd_array *x, int axis)
{
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, x, "x");
    nd_status st = check_input(fn, x, "x");
    if (st) return st;
    const int nd = x->ndim == 0 ? 1 : x->ndim;
    if (axis < -nd || axis >= nd)
        return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", axis, x->ndim);
    const int ax = axis < 0 ? axis + nd : axis;
    int64_t outer = 1, n = 1, inner = 1;
    if (x->ndim > 0) {
        for (int i = 0; i < ax; i++) outer *= x->shape[i];
        n = x->shape[ax];
        for (int i = ax + 1; i < x->ndim; i++) inner *= x->shape[i];
    }
    const nd_backend *be;
    if ((st = sm_backend(fn, x->device, &be))) return st;
    const nd_dtype rt = sm_result(x->dtype);
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, rt, x->ndim, x->shape, x->device))) return st;
    nd_array *in = NULL;
    if (x->size == 0) goto done;
    if ((st = contiguous_as(&in, x, rt))) goto done;
    /* out exactly the (contiguous) input is fine: each row is read before
     * it is written; any other overlap takes a temporary */
    if ((st = nd__out_target(&t, rt, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS | ND_OUT_ELEMENTWISE, 1,
                             (const nd_array *const *)&in)))
        goto done;
    st = be->softmax(mode, t.dst, in, outer, n, inner);
    if (st) st = nd__err_prefix(st, fn);
done:
    nd_release(in);
    return nd__out_end(&t, st);
}

nd_status nd_softmax(nd_array **out, const nd_array *x, int axis)
{
    ND_PROF_OP("softmax", out, x);
    return sm_axis("nd_softmax", ND_SM_SOFTMAX, out, x, axis);
}

nd_status nd_log_softmax(nd_array **out, const nd_array *x, int axis)
{
    ND_PROF_OP("log_softmax", out, x);
    return sm_axis("nd_log_softmax", ND_SM_LOG_SOFTMAX, out, x, axis);
}

nd_status nd_logsumexp(nd_array **out, const nd_array *x, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("logsumexp", out, x);
    static const char *fn = "nd_logsumexp";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, x, "x");
    nd_status st = check_input(fn, x, "x");
    if (st) return st;
    const int nd = x->ndim;
    bool red[ND_MAX_DIMS] = {false};
    if (axes == NULL) {
        for (int i = 0; i < nd; i++) red[i] = true;
    } else {
        if (naxes < 0) return nd__err(ND_ERR_INVALID, fn, "naxes = %d is negative", naxes);
        for (int i = 0; i < naxes; i++)
            if (axes[i] < -nd || axes[i] >= nd)
                return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", axes[i], nd);
        for (int i = 0; i < naxes; i++) {
            const int a = axes[i] < 0 ? axes[i] + nd : axes[i];
            if (red[a]) return nd__err(ND_ERR_INVALID, fn, "duplicate value in 'axis'");
            red[a] = true;
        }
    }
    /* result shape; the permutation kept axes then reduced ones */
    int rnd = 0, perm[ND_MAX_DIMS], np = 0;
    int64_t rshape[ND_MAX_DIMS], outer = 1, n = 1;
    for (int i = 0; i < nd; i++) {
        if (red[i]) {
            n *= x->shape[i];
            if (keepdims) rshape[rnd++] = 1;
        } else {
            outer *= x->shape[i];
            rshape[rnd++] = x->shape[i];
            perm[np++] = i;
        }
    }
    for (int i = 0; i < nd; i++)
        if (red[i]) perm[np++] = i;
    const nd_backend *be;
    if ((st = sm_backend(fn, x->device, &be))) return st;
    const nd_dtype rt = sm_result(x->dtype);
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, rt, rnd, rshape, x->device))) return st;
    nd_array *v = NULL, *in = NULL, *ninf = NULL;
    if (outer == 0) goto done;
    if (n == 0) { /* the log of an empty sum: -inf (np.log(0)) */
        if ((st = nd__scalar_array(&ninf, nd_scalar_float(-INFINITY), rt, x->device))) goto done;
        if ((st = nd__out_target(&t, rt, 0, 0, NULL))) goto done;
        st = nd__copy_into(t.dst, ninf);
        goto done;
    }
    if ((st = nd_transpose(&v, x, perm))) goto done;
    if ((st = contiguous_as(&in, v, rt))) goto done;
    if ((st = nd__out_target(&t, rt, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 1, (const nd_array *const *)&in)))
        goto done;
    st = be->softmax(ND_SM_LOGSUMEXP, t.dst, in, outer, n, 1);
done:
    if (st) st = nd__err_prefix(st, fn);
    nd_release(ninf);
    nd_release(in);
    nd_release(v);
    return nd__out_end(&t, st);
}

static void shape_str(char *buf, size_t cap, int nd, const int64_t *s)
{
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < nd && k < cap; i++) k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "", (long long)s[i]);
    if (k < cap) snprintf(buf + k, cap - k, "]");
}

nd_status nd_cross_entropy(nd_array **out, const nd_array *logits, const nd_array *labels, int class_axis,
                           nd_reduction reduction, int64_t ignore_index)
{
    ND_PROF_OP("cross_entropy", out, logits, labels);
    static const char *fn = "nd_cross_entropy";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, logits, "logits");
    ND_CHECK_PTR(fn, labels, "labels");
    nd_status st = check_input(fn, logits, "logits");
    if (st) return st;
    if (reduction != ND_REDUCTION_MEAN && reduction != ND_REDUCTION_SUM && reduction != ND_REDUCTION_NONE)
        return nd__err(ND_ERR_INVALID, fn, "%d is not a valid value for reduction", (int)reduction);
    if (!nd__dtype_valid(labels->dtype) || !nd__is_integer(labels->dtype))
        return nd__err(ND_ERR_DTYPE, fn, "labels must have an integer dtype (got %s)",
                       nd__dtype_valid(labels->dtype) ? nd_dtype_name(labels->dtype) : "an invalid dtype");
    if (!nd__same_device(logits->device, labels->device)) {
        char a[32], b[32];
        return nd__err(ND_ERR_DEVICE, fn, "logits are on %s and labels on %s", nd__device_name(logits->device, a, sizeof a),
                       nd__device_name(labels->device, b, sizeof b));
    }
    const int nd = logits->ndim;
    if (nd == 0) return nd__err(ND_ERR_SHAPE, fn, "logits must have at least one dimension (the classes)");
    if (class_axis < -nd || class_axis >= nd)
        return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", class_axis, nd);
    const int ax = class_axis < 0 ? class_axis + nd : class_axis;
    int64_t want[ND_MAX_DIMS], outer = 1, C = logits->shape[ax], inner = 1;
    int wn = 0;
    for (int i = 0; i < nd; i++) {
        if (i == ax) continue;
        want[wn++] = logits->shape[i];
        if (i < ax) outer *= logits->shape[i];
        else inner *= logits->shape[i];
    }
    bool same = labels->ndim == wn;
    for (int i = 0; same && i < wn; i++) same = labels->shape[i] == want[i];
    if (!same) {
        char a[160], b[160];
        shape_str(a, sizeof a, wn, want);
        shape_str(b, sizeof b, labels->ndim, labels->shape);
        return nd__err(ND_ERR_SHAPE, fn, "Expected target size %s, got %s", a, b);
    }
    if (C == 0 && outer * inner > 0) return nd__err(ND_ERR_SHAPE, fn, "logits have 0 classes along axis %d", ax);
    const nd_backend *be;
    if ((st = sm_backend(fn, logits->device, &be))) return st;
    const nd_dtype rt = sm_result(logits->dtype);
    const nd_dtype acc = rt == ND_FLOAT64 ? ND_FLOAT64 : ND_FLOAT32;
    const bool none = reduction == ND_REDUCTION_NONE;
    /* with a reduction the per-sample losses stay in the accumulation dtype
     * (half logits are widened to float32 first), so the reduced value is
     * rounded once */
    const nd_dtype lt = none ? rt : acc;
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, rt, none ? wn : 0, want, logits->device))) return st;
    nd_array *lg = NULL, *lb = NULL, *loss = NULL, *tot = NULL, *mask = NULL, *cnt = NULL, *res = NULL;
    if ((st = contiguous_as(&lg, logits, lt))) goto done;
    if ((st = contiguous_as(&lb, labels, ND_INT64))) goto done;
    if ((st = nd__alloc(&loss, lt, wn, want, logits->device))) goto done;
    if (outer * inner > 0) {
        bool bad = false;
        int64_t bl = 0;
        if ((st = be->cross_entropy(loss, lg, lb, outer, C, inner, ignore_index, &bad, &bl))) goto done;
        if (bad) {
            st = nd__err(ND_ERR_INVALID, fn, "Target %lld is out of bounds.", (long long)bl);
            goto done;
        }
    }
    if (none) {
        res = nd_retain(loss);
    } else {
        if ((st = nd_reduce_dtype(&tot, ND_REDUCE_SUM, loss, 0, NULL, false, acc))) goto done;
        if (reduction == ND_REDUCTION_SUM) {
            res = nd_retain(tot);
        } else {
            if ((st = nd_binary_scalar(&mask, ND_BINARY_NOT_EQUAL, lb, nd_scalar_int(ignore_index)))) goto done;
            if ((st = nd_count_nonzero(&cnt, mask, 0, NULL, false))) goto done;
            nd_array *c2 = NULL;
            if ((st = nd_astype(&c2, cnt, acc))) goto done;
            nd_release(cnt);
            cnt = c2;
            if ((st = nd_divide(&res, tot, cnt))) goto done; /* 0 / 0 = NaN: no sample counted */
        }
    }
    if ((st = nd__out_target(&t, res->dtype, 0, 1, (const nd_array *const *)&res))) goto done;
    st = nd__copy_into(t.dst, res);
done:
    if (st) st = nd__err_prefix(st, fn);
    nd_release(res);
    nd_release(cnt);
    nd_release(mask);
    nd_release(tot);
    nd_release(loss);
    nd_release(lb);
    nd_release(lg);
    return nd__out_end(&t, st);
}
