/* The out-transaction (src/core/out.h): the one implementation of the
 * out-pointer rule. */
#include <stdlib.h>
#include <string.h>

#include "core/out.h"

/* The first axis of a broadcast view (stride 0, extent > 1), else -1. */
static int broadcast_axis(const nd_array *o)
{
    for (int i = 0; i < o->ndim; i++)
        if (o->strides[i] == 0 && o->shape[i] > 1) return i;
    return -1;
}

bool nd_is_writable(const nd_array *a) { return a && !a->readonly && broadcast_axis(a) < 0; }

nd_status nd__out_check_writable(const char *func, const nd_array *o, const char *name)
{
    if (o->readonly) return nd__err(ND_ERR_INVALID, func, "'%s' is read-only (an imported read-only DLPack tensor)", name);
    int i = broadcast_axis(o);
    if (i >= 0)
        return nd__err(ND_ERR_INVALID, func, "'%s' is a broadcast view (stride 0 on axis %d) and cannot be written",
                       name, i);
    return ND_OK;
}

nd_status nd__out_check(const char *func, const nd_array *o, nd_dtype dtype, int ndim, const int64_t *shape,
                        nd_device dev)
{
    bool same = o->ndim == ndim;
    for (int i = 0; same && i < ndim; i++) same = o->shape[i] == shape[i];
    if (!same) {
        char b1[400], b2[400];
        return nd__err(ND_ERR_SHAPE, func, "'out' has shape %s, but the result has shape %s",
                       nd__fmt_shape(b1, sizeof b1, o->ndim, o->shape), nd__fmt_shape(b2, sizeof b2, ndim, shape));
    }
    if (!nd__same_device(o->device, dev)) {
        char d1[32], d2[32];
        return nd__err(ND_ERR_DEVICE, func, "'out' is on %s, but the result is on %s",
                       nd__device_name(o->device, d1, sizeof d1), nd__device_name(dev, d2, sizeof d2));
    }
    if (!nd_can_cast_same_kind(dtype, o->dtype))
        return nd__err(ND_ERR_DTYPE, func, "cannot cast the result from %s to 'out' dtype %s with casting rule 'same_kind'",
                       nd_dtype_name(dtype), nd_dtype_name(o->dtype));
    return nd__out_check_writable(func, o, "out");
}

nd_status nd__out_begin(nd_out *t, const char *func, nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape,
                        nd_device dev)
{
    t->func = func;
    t->out = out;
    t->res = t->dst = t->tmp = NULL;
    t->fresh = false;
    if (*out != NULL) {
        nd_status st = nd__out_check(func, *out, dtype, ndim, shape, dev);
        if (st) return st;
        t->res = t->dst = *out;
        return ND_OK;
    }
    nd_status st = nd__alloc(&t->res, dtype, ndim, shape, dev);
    if (st) return nd__err_prefix(st, func);
    t->dst = t->res;
    t->fresh = true;
    return ND_OK;
}

/* The axes of a in memory order, outermost first (by |stride|, ties in
 * axis order; extent-1 axes count as outermost, they never move memory);
 * false when that is C order. */
static bool axis_order(const nd_array *a, int *perm)
{
    int n = a->ndim;
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = 1; i < n; i++) /* insertion sort: stable */
        for (int j = i; j > 0; j--) {
            int p = perm[j - 1], q = perm[j];
            int64_t sp = a->shape[p] == 1 ? INT64_MAX : llabs(a->strides[p]);
            int64_t sq = a->shape[q] == 1 ? INT64_MAX : llabs(a->strides[q]);
            if (sq <= sp) break;
            perm[j - 1] = q;
            perm[j] = p;
        }
    bool identity = true;
    for (int i = 0; i < n; i++) identity = identity && perm[i] == i;
    return !identity;
}

void nd__out_keep_order(nd_out *t, int nin, const nd_array *const *ins)
{
    nd_array *r = t->res;
    if (!t->fresh || r->ndim < 2 || r->size < 2) return;
    int perm[ND_MAX_DIMS], other[ND_MAX_DIMS];
    bool have = false;
    for (int k = 0; k < nin; k++) {
        const nd_array *a = ins[k];
        if (!a || a->size == 1) continue;
        bool full = a->ndim == r->ndim;
        for (int i = 0; full && i < r->ndim; i++) full = a->shape[i] == r->shape[i];
        for (int i = 0; full && i < r->ndim; i++) full = a->strides[i] != 0 || a->shape[i] == 1;
        if (!full) return; /* broadcast (by shape or by a stride-0 view): C order */
        int *p = have ? other : perm;
        bool permuted = axis_order(a, p);
        if (!have) {
            if (!permuted) return; /* a C-order input: C order */
            have = true;
        } else if (memcmp(perm, other, sizeof(int) * (size_t)r->ndim)) {
            return; /* inputs disagree */
        }
    }
    if (!have) return;
    int64_t s = 1;
    for (int i = r->ndim - 1; i >= 0; i--) {
        r->strides[perm[i]] = s;
        s *= r->shape[perm[i]];
    }
}

nd_status nd__out_target(nd_out *t, nd_dtype computed, unsigned flags, int nin, const nd_array *const *ins)
{
    nd_array *r = t->res;
    t->dst = r;
    if (t->fresh && r->dtype == computed) return ND_OK; /* new, contiguous, private */
    bool temp = ((flags & ND_OUT_EXACT_DTYPE) && r->dtype != computed) ||
                ((flags & ND_OUT_CONTIGUOUS) && !nd_is_contiguous(r));
    for (int k = 0; !temp && k < nin; k++)
        temp = ins[k] && nd__may_overlap(r, ins[k]) && !((flags & ND_OUT_ELEMENTWISE) && nd__same_view(r, ins[k]));
    if (!temp) return ND_OK;
    nd_status st = nd__alloc(&t->tmp, computed, r->ndim, r->shape, r->device);
    if (st) return nd__err_prefix(st, t->func);
    t->dst = t->tmp;
    return ND_OK;
}

nd_status nd__out_end(nd_out *t, nd_status st)
{
    if (st == ND_OK && t->tmp) st = nd__copy_into(t->res, t->tmp);
    if (st) nd__err_prefix(st, t->func); /* idempotent: messages already naming func stay as they are */
    nd_release(t->tmp);
    t->tmp = NULL;
    if (t->fresh) {
        if (st == ND_OK) *t->out = t->res;
        else nd_release(t->res);
    }
    t->res = t->dst = NULL;
    return st;
}

nd_status nd__out_deliver(const char *func, nd_array **out, nd_array **res, nd_dtype dtype, unsigned flags)
{
    nd_array *r = *res;
    *res = NULL;
    if ((flags & ND_OUT_ROUND) && r->dtype != dtype) {
        /* a bad out is refused before the rounding copy is made */
        nd_array *c = NULL;
        nd_status st = *out ? nd__out_check(func, *out, dtype, r->ndim, r->shape, r->device) : ND_OK;
        if (st == ND_OK && (st = nd__as_dtype(&c, r, dtype))) nd__err_prefix(st, func);
        nd_release(r);
        if (st) return st;
        r = c;
    }
    if (*out == NULL && r->dtype == dtype && !(flags & ND_OUT_COPY) &&
        (!(flags & ND_OUT_CONTIGUOUS) || nd_is_contiguous(r))) {
        *out = r;
        return ND_OK;
    }
    nd_out t;
    nd_status st = nd__out_begin(&t, func, out, dtype, r->ndim, r->shape, r->device);
    if (st == ND_OK) st = nd__out_end(&t, nd__copy_into(t.res, r));
    nd_release(r);
    return st;
}
