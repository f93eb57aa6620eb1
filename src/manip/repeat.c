/* Manipulation copies: nd_roll, nd_tile, nd_repeat, nd_pad.
 *
 * Each allocates (or checks the caller's out) once and then fills the
 * result with a few nd__copy_into calls between views of the input and of
 * the result (strided, negative-stride and stride-0 views), so the same
 * code runs on every backend through its cast/copy kernel. The output
 * overlapping the input is computed through a temporary (nd__out_target). */
#include <string.h>

#include "manip/manip.h"
#include "core/prof.h"

/* begin + target for a copy op writing a's dtype, any overlap -> temp */
static nd_status copy_begin(nd_out *t, const char *fn, nd_array **out, const nd_array *a, int ndim,
                            const int64_t *shape, unsigned flags)
{
    nd_status st = nd__out_begin(t, fn, out, a->dtype, ndim, shape, a->device);
    if (st) return st;
    return nd__out_target(t, a->dtype, flags, 1, &a);
}

/* ------------------------------------------------------------------ */
/* roll                                                                */
/* ------------------------------------------------------------------ */
/* dst = a rolled by sh[d] (in [0, n)) along every axis d. 2^k copies for
 * the k rolled axes (each piece non-empty, so at most a's size). */
static nd_status roll_into(nd_array *dst, const nd_array *a, const int64_t *sh)
{
    int rolled[ND_MAX_DIMS], k = 0;
    for (int d = 0; d < a->ndim; d++)
        if (sh[d] != 0) rolled[k++] = d;
    nd_status st = ND_OK;
    for (uint64_t m = 0; m < ((uint64_t)1 << k) && !st; m++) {
        nd_array *s = nd_retain((nd_array *)a), *o = nd_retain(dst);
        for (int j = 0; j < k && !st; j++) {
            int d = rolled[j];
            int64_t n = a->shape[d], r = sh[d];
            nd_array *s2 = NULL, *o2 = NULL;
            /* bit clear: out[r:n] = a[0:n-r]; set: out[0:r] = a[n-r:n] */
            if (m >> j & 1) st = mp__sub(&s2, s, d, n - r, r, 1), st = st ? st : mp__sub(&o2, o, d, 0, r, 1);
            else st = mp__sub(&s2, s, d, 0, n - r, 1), st = st ? st : mp__sub(&o2, o, d, r, n - r, 1);
            nd_release(s);
            nd_release(o);
            s = s2;
            o = o2;
        }
        if (!st) st = nd__copy_into(o, s);
        nd_release(s);
        nd_release(o);
    }
    return st;
}

nd_status nd_roll(nd_array **out, const nd_array *a, int nshift, const int64_t *shift, int naxes, const int *axes)
{
    ND_PROF_OP("roll", out, a);
    static const char *fn = "nd_roll";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (nshift < 1) return nd__err(ND_ERR_INVALID, fn, "nshift %d must be at least 1", nshift);
    ND_CHECK_PTR(fn, shift, "shift");
    int64_t sh[ND_MAX_DIMS] = {0};
    nd_status st;
    nd_out t;
    if (axes == NULL) {
        if (nshift != 1)
            return nd__err(ND_ERR_INVALID, fn, "with axes NULL (a flattened roll) 'shift' takes one value, not %d", nshift);
        /* np.roll(a, s): ravel, roll, reshape back */
        nd_array *flat = NULL, *df = NULL;
        if ((st = copy_begin(&t, fn, out, a, a->ndim, a->shape, ND_OUT_CONTIGUOUS))) return nd__out_end(&t, st);
        int64_t n = a->size;
        st = mp__ravel(&flat, a);
        if (!st) st = mp__view(&df, t.dst, 1, &n, (const int64_t[]){1}, t.dst->offset);
        if (!st && n > 0) {
            int64_t r = shift[0] % n;
            sh[0] = r < 0 ? r + n : r;
            st = roll_into(df, flat, sh);
        }
        nd_release(flat);
        nd_release(df);
        return nd__out_end(&t, st);
    }
    if (naxes < 1) return nd__err(ND_ERR_INVALID, fn, "naxes %d must be at least 1", naxes);
    if (nshift != naxes && nshift != 1 && naxes != 1)
        return nd__err(ND_ERR_INVALID, fn,
                       "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 "
                       "with shape (%d,) and arg 1 with shape (%d,).",
                       nshift, naxes);
    int cnt = nshift > naxes ? nshift : naxes;
    for (int i = 0; i < cnt; i++) {
        int ax = 0;
        if ((st = mp__axis(fn, axes[naxes == 1 ? 0 : i], a->ndim, &ax))) return st;
        int64_t n = a->shape[ax], s = shift[nshift == 1 ? 0 : i];
        if (n == 0) continue;
        int64_t r = s % n;
        sh[ax] = (sh[ax] + (r < 0 ? r + n : r)) % n; /* repeated axes add up */
    }
    if ((st = copy_begin(&t, fn, out, a, a->ndim, a->shape, 0))) return nd__out_end(&t, st);
    return nd__out_end(&t, roll_into(t.dst, a, sh));
}

/* ------------------------------------------------------------------ */
/* tile and repeat                                                     */
/* ------------------------------------------------------------------ */
/* dst (shape rep[d] * a.shape[d]) = a tiled: one copy through a view of
 * dst with each tiled axis split in (rep, extent) and a broadcast over
 * the rep axes, when that fits ND_MAX_DIMS; else one copy per repetition
 * of each axis in turn. a has dst's ndim. */
static nd_status tile_into(nd_array *dst, const nd_array *a, const int64_t *rep)
{
    int nd = a->ndim, split = 0;
    for (int d = 0; d < nd; d++) split += rep[d] > 1 && a->shape[d] > 1;
    if (nd + split <= ND_MAX_DIMS) {
        int64_t vs[ND_MAX_DIMS], vd[ND_MAX_DIMS], sd[ND_MAX_DIMS];
        int k = 0;
        for (int d = 0; d < nd; d++) {
            int64_t n = a->shape[d];
            if (rep[d] > 1 && n > 1) {
                vs[k] = rep[d], vd[k] = dst->strides[d] * n, sd[k] = 0, k++;
                vs[k] = n, vd[k] = dst->strides[d], sd[k] = a->strides[d], k++;
            } else {
                /* extent 1 broadcast over rep copies, or rep 1 */
                vs[k] = dst->shape[d], vd[k] = dst->strides[d], sd[k] = n == 1 ? 0 : a->strides[d], k++;
            }
        }
        nd_array *dv = NULL, *av = NULL;
        nd_status st = mp__view(&dv, dst, k, vs, vd, dst->offset);
        if (!st) st = mp__view(&av, a, k, vs, sd, a->offset);
        if (!st) st = nd__copy_into(dv, av);
        nd_release(dv);
        nd_release(av);
        return st;
    }
    /* many axes: per axis, per repetition (dst's leading part grows) */
    nd_status st = ND_OK;
    nd_array *cur = NULL; /* the filled part of dst: axes < d full, others a's extents */
    int64_t shape[ND_MAX_DIMS];
    memcpy(shape, a->shape, sizeof(int64_t) * (size_t)nd);
    st = mp__view(&cur, dst, nd, shape, dst->strides, dst->offset);
    if (!st) st = nd__copy_into(cur, a);
    for (int d = 0; d < nd && !st; d++) {
        for (int64_t j = 1; j < rep[d] && !st; j++) {
            nd_array *o = NULL;
            st = mp__sub(&o, cur, d, 0, a->shape[d], 1);
            if (!st) {
                o->offset += j * a->shape[d] * dst->strides[d] * (int64_t)nd__itemsize(dst->dtype);
                st = nd__copy_into(o, cur);
            }
            nd_release(o);
        }
        nd_release(cur), cur = NULL;
        shape[d] *= rep[d];
        if (!st) st = mp__view(&cur, dst, nd, shape, dst->strides, dst->offset);
    }
    nd_release(cur);
    return st;
}

nd_status nd_tile(nd_array **out, const nd_array *a, int nreps, const int64_t *reps)
{
    ND_PROF_OP("tile", out, a);
    static const char *fn = "nd_tile";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (nreps < 0 || nreps > ND_MAX_DIMS) return nd__err(ND_ERR_INVALID, fn, "nreps %d is out of range [0, %d]", nreps, ND_MAX_DIMS);
    if (nreps > 0) ND_CHECK_PTR(fn, reps, "reps");
    int nd = a->ndim > nreps ? a->ndim : nreps;
    int64_t rep[ND_MAX_DIMS], shape[ND_MAX_DIMS], ash[ND_MAX_DIMS], astr[ND_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        int i = d - (nd - nreps), j = d - (nd - a->ndim);
        rep[d] = i >= 0 ? reps[i] : 1;
        if (rep[d] < 0) return nd__err(ND_ERR_INVALID, fn, "negative dimensions are not allowed (reps[%d] = %lld)", i, (long long)rep[d]);
        ash[d] = j >= 0 ? a->shape[j] : 1;
        astr[d] = j >= 0 ? a->strides[j] : 0;
        if (__builtin_mul_overflow(ash[d], rep[d], &shape[d]))
            return nd__err(ND_ERR_INVALID, fn, "array is too big: the result's extent overflows");
    }
    nd_status st = nd__check_shape(fn, nd, shape, a->dtype, NULL);
    if (st) return st;
    nd_array *av = NULL;
    if ((st = mp__view(&av, a, nd, ash, astr, a->offset))) return nd__err_prefix(st, fn);
    nd_out t;
    if (!(st = copy_begin(&t, fn, out, a, nd, shape, 0)) && t.dst->size > 0) st = tile_into(t.dst, av, rep);
    nd_release(av);
    return nd__out_end(&t, st);
}

nd_status nd_repeat(nd_array **out, const nd_array *a, int64_t repeats, int axis)
{
    ND_PROF_OP("repeat", out, a);
    static const char *fn = "nd_repeat";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (repeats < 0) return nd__err(ND_ERR_INVALID, fn, "negative dimensions are not allowed (repeats = %lld)", (long long)repeats);
    nd_array *src = NULL;
    nd_status st;
    int ax = 0;
    if (axis == ND_AXIS_NONE) {
        if ((st = mp__ravel(&src, a))) return nd__err_prefix(st, fn);
    } else {
        if ((st = mp__axis(fn, axis, a->ndim, &ax))) return st;
        src = nd_retain((nd_array *)a);
    }
    int64_t shape[ND_MAX_DIMS];
    memcpy(shape, src->shape, sizeof(int64_t) * (size_t)src->ndim);
    if (__builtin_mul_overflow(shape[ax], repeats, &shape[ax])) st = nd__err(ND_ERR_INVALID, fn, "array is too big: the result's extent overflows");
    if (!st) st = nd__check_shape(fn, src->ndim, shape, a->dtype, NULL);
    nd_out t = {0};
    if (!st) st = copy_begin(&t, fn, out, src, src->ndim, shape, 0);
    if (!st && t.dst->size > 0) {
        nd_array *dst = t.dst;
        int nd = src->ndim;
        if (nd < ND_MAX_DIMS) {
            /* dst viewed as (..., n, repeats, ...), src broadcast over repeats */
            int64_t vs[ND_MAX_DIMS], vd[ND_MAX_DIMS], sd[ND_MAX_DIMS];
            for (int d = 0, k = 0; d < nd; d++) {
                vs[k] = src->shape[d], vd[k] = d == ax ? dst->strides[d] * repeats : dst->strides[d];
                sd[k++] = src->strides[d];
                if (d == ax) vs[k] = repeats, vd[k] = dst->strides[d], sd[k++] = 0;
            }
            nd_array *dv = NULL, *sv = NULL;
            st = mp__view(&dv, dst, nd + 1, vs, vd, dst->offset);
            if (!st) st = mp__view(&sv, src, nd + 1, vs, sd, src->offset);
            if (!st) st = nd__copy_into(dv, sv);
            nd_release(dv);
            nd_release(sv);
        } else {
            for (int64_t j = 0; j < repeats && !st; j++) { /* dst[j::repeats] = src */
                nd_array *dv = NULL;
                int64_t vd[ND_MAX_DIMS];
                memcpy(vd, dst->strides, sizeof vd);
                vd[ax] *= repeats;
                st = mp__view(&dv, dst, nd, src->shape, vd,
                              dst->offset + j * dst->strides[ax] * (int64_t)nd__itemsize(dst->dtype));
                if (!st) st = nd__copy_into(dv, src);
                nd_release(dv);
            }
        }
    }
    nd_release(src);
    if (t.func == NULL) return st; /* failed before begin */
    return nd__out_end(&t, st);
}

/* np.repeat with one count per element: the counts come to the host (the
 * result's extent is their sum, as in NumPy and CuPy), an int64 index
 * vector [0]*r0 + [1]*r1 + ... is built there and nd_take gathers along
 * the axis on a's device. A count array of one element is the scalar
 * form. */
nd_status nd_repeat_array(nd_array **out, const nd_array *a, const nd_array *repeats, int axis)
{
    ND_PROF_OP("repeat_array", out, a, repeats);
    static const char *fn = "nd_repeat_array";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    ND_CHECK_PTR(fn, repeats, "repeats");
    if (!nd__is_integer(repeats->dtype) && repeats->dtype != ND_BOOL)
        return nd__err(ND_ERR_DTYPE, fn, "Cannot cast array data from dtype('%s') to dtype('int64') according to the rule 'safe'",
                       nd_dtype_name(repeats->dtype));
    if (repeats->ndim > 1) return nd__err(ND_ERR_SHAPE, fn, "repeats must be 0-d or 1-d (it has %d dimensions)", repeats->ndim);
    nd_status st;
    nd_array *src = NULL;
    int ax = 0;
    if (axis == ND_AXIS_NONE) {
        if ((st = mp__ravel(&src, a))) return nd__err_prefix(st, fn);
    } else {
        if ((st = mp__axis(fn, axis, a->ndim, &ax))) return st;
        src = nd_retain((nd_array *)a);
    }
    int64_t n = src->ndim ? src->shape[ax] : 1, nr = repeats->size;
    nd_array *hr = NULL, *h64 = NULL, *idx = NULL;
    int64_t *cnt = NULL, *iv = NULL;
    if (nr == 1) {
        /* the scalar form */
        if (!(st = nd_to_device(&hr, repeats, nd_cpu())) && !(st = nd_astype(&h64, hr, ND_INT64))) {
            int64_t r = *(const int64_t *)nd_data(h64);
            nd_release(hr), nd_release(h64), nd_release(src);
            st = nd_repeat(out, a, r, axis);
            if (st) return nd__err_prefix(st, fn);
            return ND_OK;
        }
        goto done;
    }
    if (nr != n) {
        st = nd__err(ND_ERR_SHAPE, fn, "operands could not be broadcast together with shape (%lld,) (%lld,)",
                     (long long)n, (long long)nr);
        goto done;
    }
    if ((st = nd_to_device(&hr, repeats, nd_cpu())) || (st = nd_astype(&h64, hr, ND_INT64))) goto done;
    cnt = (int64_t *)nd_data(h64); /* C-contiguous: a fresh astype */
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        if (cnt[i] < 0) {
            st = nd__err(ND_ERR_INVALID, fn, "repeats may not contain negative values (repeats[%lld] = %lld)", (long long)i,
                         (long long)cnt[i]);
            goto done;
        }
        if (__builtin_add_overflow(total, cnt[i], &total)) {
            st = nd__err(ND_ERR_INVALID, fn, "array is too big: the result's extent overflows");
            goto done;
        }
    }
    iv = (int64_t *)nd__malloc((size_t)(total > 0 ? total : 1) * sizeof *iv);
    if (!iv) {
        st = nd__err(ND_ERR_NOMEM, fn, "out of host memory (%lld indices)", (long long)total);
        goto done;
    }
    for (int64_t i = 0, k = 0; i < n; i++)
        for (int64_t j = 0; j < cnt[i]; j++) iv[k++] = i;
    if ((st = nd_from_host(&idx, iv, ND_INT64, 1, &total, src->device))) goto done;
    st = nd_take(out, src, idx, src->ndim ? ax : ND_AXIS_NONE, ND_TAKE_RAISE);
    if (st) nd__err_prefix(st, fn);
done:
    nd__free(iv);
    nd_release(idx), nd_release(hr), nd_release(h64), nd_release(src);
    return st;
}
