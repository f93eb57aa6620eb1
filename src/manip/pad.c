/* nd_pad: NumPy's np.pad with modes constant, edge, reflect, symmetric
 * and wrap, by NumPy's own algorithm (numpy/lib/_arraypad_impl.py): the
 * input is copied into the centre of the result, then the axes are padded
 * in order, each on the region of interest (axes before it and itself
 * whole, later axes only their original extent), reflect/symmetric/wrap
 * chunk by chunk from the values already in place, so pads wider than the
 * axis repeat the reflection exactly as NumPy does. Every step is an
 * nd__copy_into between views of the result: every backend. */
#include <string.h>

#include "manip/manip.h"
#include "core/prof.h"

typedef struct {
    nd_array *roi;
    int ax;
    int64_t len; /* roi extent along ax */
} pad_ctx;

/* roi[dst_start : dst_start + n] = roi[src_first, src_first + step, ...] */
static nd_status move(pad_ctx *c, int64_t dst_start, int64_t src_first, int step, int64_t n)
{
    if (n <= 0) return ND_OK;
    nd_array *d = NULL, *s = NULL;
    nd_status st = mp__sub(&d, c->roi, c->ax, dst_start, n, 1);
    if (!st) st = mp__sub(&s, c->roi, c->ax, src_first, n, step);
    if (!st) st = nd__copy_into(d, s);
    nd_release(d);
    nd_release(s);
    return st;
}

/* roi[dst_start : dst_start + n] = roi[src] broadcast (edge) */
static nd_status spread(pad_ctx *c, int64_t dst_start, int64_t n, int64_t src)
{
    if (n <= 0) return ND_OK;
    nd_array *d = NULL, *s = NULL;
    nd_status st = mp__sub(&d, c->roi, c->ax, dst_start, n, 1);
    if (!st) st = mp__sub(&s, c->roi, c->ax, src, 1, 1);
    if (!st) st = nd__copy_into(d, s);
    nd_release(d);
    nd_release(s);
    return st;
}

/* NumPy's _set_reflect_both (reflect_type 'even') */
static nd_status reflect_both(pad_ctx *c, int64_t *left, int64_t *right, int64_t period, bool include_edge)
{
    int64_t old = c->len - *right - *left, eo;
    if (include_edge) {
        old = old / period * period;
        eo = 1;
    } else {
        old = (old - 1) / (period - 1) * (period - 1) + 1;
        eo = 0;
        old -= 1;
    }
    nd_status st = ND_OK;
    if (*left > 0) {
        int64_t ch = old < *left ? old : *left;
        int64_t stop = *left - eo;
        st = move(c, *left - ch, stop + ch, -1, ch);
        *left -= ch;
    }
    if (!st && *right > 0) {
        int64_t ch = old < *right ? old : *right;
        int64_t first = c->len - *right + eo - 2;
        st = move(c, c->len - *right, first, -1, ch);
        *right -= ch;
    }
    return st;
}

/* NumPy's _set_wrap_both */
static nd_status wrap_both(pad_ctx *c, int64_t *left, int64_t *right, int64_t period0)
{
    int64_t period = c->len - *right - *left;
    period = period / period0 * period0;
    int64_t nl = 0, nr = 0;
    nd_status st = ND_OK;
    if (*left > 0) {
        int64_t end = *left + period, ch = period < *left ? period : *left;
        if (*left > period) {
            st = move(c, *left - period, end - ch, 1, ch);
            nl = *left - period;
        } else {
            st = move(c, 0, end - ch, 1, ch);
        }
    }
    if (!st && *right > 0) {
        int64_t start = c->len - *right - period, ch = period < *right ? period : *right;
        st = move(c, c->len - *right, start, 1, ch);
        if (*right > period) nr = *right - period;
    }
    *left = nl;
    *right = nr;
    return st;
}



nd_status nd_pad(nd_array **out, const nd_array *a, int npairs, const int64_t *widths, nd_pad_mode mode,
                 nd_scalar value)
{
    ND_PROF_OP("pad", out, a);
    static const char *fn = "nd_pad";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if ((unsigned)mode > (unsigned)ND_PAD_WRAP) return nd__err(ND_ERR_INVALID, fn, "mode %d is not supported", (int)mode);
    int nd = a->ndim;
    if (npairs != 1 && npairs != nd)
        return nd__err(ND_ERR_INVALID, fn, "'widths' has %d (before, after) pairs; need 1 or ndim = %d", npairs, nd);
    ND_CHECK_PTR(fn, widths, "widths");
    for (int p = 0; p < 2 * npairs; p++) /* every pair given, also for a 0-d a (NumPy) */
        if (widths[p] < 0) return nd__err(ND_ERR_INVALID, fn, "index can't contain negative values");
    int64_t lo[ND_MAX_DIMS], hi[ND_MAX_DIMS], shape[ND_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        int p = npairs == 1 ? 0 : d;
        lo[d] = widths[2 * p];
        hi[d] = widths[2 * p + 1];
        if (lo[d] < 0 || hi[d] < 0) return nd__err(ND_ERR_INVALID, fn, "index can't contain negative values");
        if (__builtin_add_overflow(a->shape[d], lo[d], &shape[d]) || __builtin_add_overflow(shape[d], hi[d], &shape[d]))
            return nd__err(ND_ERR_INVALID, fn, "array is too big: the result's extent overflows");
    }
    nd_status st = nd__check_shape(fn, nd, shape, a->dtype, NULL);
    if (st) return st;
    if (mode != ND_PAD_CONSTANT && a->size == 0)
        for (int d = 0; d < nd; d++)
            if (a->shape[d] == 0 && (lo[d] || hi[d]))
                return nd__err(ND_ERR_INVALID, fn, "can't extend empty axis %d using modes other than 'constant' or 'empty'", d);
    nd_array *fill = NULL;
    if (mode == ND_PAD_CONSTANT) {
        if (value.kind == ND_SCALAR_NONE) value = nd_scalar_int(0);
        if ((st = nd_full(&fill, a->dtype, 0, NULL, value, a->device))) return nd__err_prefix(st, fn);
    }
    nd_out t;
    st = nd__out_begin(&t, fn, out, a->dtype, nd, shape, a->device);
    if (!st) st = nd__out_target(&t, a->dtype, ND_OUT_EXACT_DTYPE, 1, &a);
    nd_array *dst = t.dst, *roi = NULL;
    if (!st && dst->size > 0) {
        /* the centre */
        int64_t off = dst->offset, isz = (int64_t)nd__itemsize(a->dtype);
        for (int d = 0; d < nd; d++) off += lo[d] * dst->strides[d] * isz;
        if (a->size > 0 && !(st = mp__view(&roi, dst, nd, a->shape, dst->strides, off))) st = nd__copy_into(roi, a);
        nd_release(roi), roi = NULL;
    }
    for (int d = 0; d < nd && !st && dst->size > 0; d++) {
        if (lo[d] == 0 && hi[d] == 0) continue;
        /* the region of interest: axes <= d whole, later axes their original extent */
        int64_t rs[ND_MAX_DIMS], off = dst->offset, isz = (int64_t)nd__itemsize(a->dtype);
        for (int e = 0; e < nd; e++) {
            rs[e] = e <= d ? shape[e] : a->shape[e];
            if (e > d) off += lo[e] * dst->strides[e] * isz;
        }
        if ((st = mp__view(&roi, dst, nd, rs, dst->strides, off))) break;
        pad_ctx c = {roi, d, shape[d]};
        int64_t n = a->shape[d], l = lo[d], r = hi[d];
        if (mode == ND_PAD_CONSTANT) {
            nd_array *p = NULL;
            if (l > 0 && !(st = mp__sub(&p, roi, d, 0, l, 1))) st = nd__copy_into(p, fill);
            nd_release(p), p = NULL;
            if (!st && r > 0 && !(st = mp__sub(&p, roi, d, l + n, r, 1))) st = nd__copy_into(p, fill);
            nd_release(p);
        } else if (mode == ND_PAD_EDGE || ((mode == ND_PAD_REFLECT || mode == ND_PAD_SYMMETRIC) && n == 1)) {
            st = spread(&c, 0, l, l);
            if (!st) st = spread(&c, l + n, r, l + n - 1);
        } else if (mode == ND_PAD_WRAP) {
            while (!st && (l > 0 || r > 0)) st = wrap_both(&c, &l, &r, n);
        } else {
            while (!st && (l > 0 || r > 0)) st = reflect_both(&c, &l, &r, n, mode == ND_PAD_SYMMETRIC);
        }
        nd_release(roi), roi = NULL;
    }

    nd_release(fill);
    return nd__out_end(&t, st);
}
