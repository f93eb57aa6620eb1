/* numpy.fft, n-D: nd_fftn, nd_ifftn, nd_rfftn, nd_irfftn, the
 * 2-D forms, nd_fftshift and nd_ifftshift. The n-D transforms are
 * repeated 1-D ones (the backends' fft slot, src/fft/fft.h), in NumPy's
 * order (numpy/fft/_pocketfft.py):
 *   fftn/ifftn  c2c along axes[naxes-1], ..., axes[0] (a repeated axis is
 *               transformed again; the last length given for it applies
 *               first);
 *   rfftn       r2c along axes[naxes-1], then c2c along axes[naxes-2] ..
 *               axes[0];
 *   irfftn      c2c (backward) along axes[0] .. axes[naxes-2], then c2r
 *               along axes[naxes-1].
 * Each step crops or zero-pads its axis to its length s[i] (s = NULL: the
 * input's extents, irfftn's last axis 2 (m - 1); s[i] = -1: the input's
 * extent along that axis, as NumPy 2 does, irfftn's last axis included)
 * and is scaled by the norm for its own length (NumPy's order of
 * roundings).
 *
 * Memory: the first step from which every later step is a c2c transform
 * that keeps the shape writes straight into the result, and those later
 * steps run in place there (fft2 of an n x n array: one pass into the
 * result, one in place). Other steps write a new temporary, or run in
 * place on a temporary of this call.
 *
 * fftshift / ifftshift roll each axis by extent/2 (-(extent/2)) through
 * nd_roll, after checking the arguments and the out here (messages name
 * the fft function). */
#include <string.h>

#include "fft/fft.h"
#include "core/out.h"
#include "core/prof.h"

#define FFT_MAX_AXES 64

typedef enum { N_FFTN, N_IFFTN, N_RFFTN, N_IRFFTN } fftn_which;

typedef struct {
    int ax, kind, sign;
    int64_t n, in_ext, out_ext;
} fft_step;

/* Normalise naxes axes (axes NULL: the last naxes) into ax. */
static nd_status norm_axes(const char *fn, int nd, int naxes, const int *axes, int *ax)
{
    for (int i = 0; i < naxes; i++) {
        const int v = axes ? axes[i] : i - naxes;
        if (v < -nd || v >= nd)
            return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", v, nd);
        ax[i] = v < 0 ? v + nd : v;
    }
    return ND_OK;
}

/* naxes = -1 (with axes NULL): every axis; else 0 .. FFT_MAX_AXES. */
static nd_status check_naxes(const char *fn, int nd, int *naxes, const int *axes)
{
    if (*naxes == -1) {
        if (axes) return nd__err(ND_ERR_INVALID, fn, "naxes = -1 (every axis) takes axes = NULL");
        *naxes = nd;
    }
    if (*naxes < 0 || *naxes > FFT_MAX_AXES)
        return nd__err(ND_ERR_INVALID, fn, "naxes = %d is out of range (0 .. %d, or -1 for every axis)", *naxes,
                       FFT_MAX_AXES);
    return ND_OK;
}

static nd_status fftn(const char *fn, fftn_which w, nd_array **out, const nd_array *a, int naxes, const int64_t *s,
                      const int *axes, nd_fft_norm norm)
{
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (!nd__dtype_valid(a->dtype)) return nd__err(ND_ERR_DTYPE, fn, "array 'a' has an invalid dtype");
    if (w == N_RFFTN && nd__is_complex(a->dtype))
        return nd__err(ND_ERR_DTYPE, fn, "'a' is %s; %s takes real input (NumPy: TypeError)", nd_dtype_name(a->dtype),
                       fn);
    nd_status st = nd__fft_check_norm(fn, norm);
    if (st) return st;
    const int nd = a->ndim;
    if ((st = check_naxes(fn, nd, &naxes, axes))) return st;
    const bool real = w == N_RFFTN || w == N_IRFFTN;
    if (real && naxes == 0) return nd__err(ND_ERR_INVALID, fn, "%s transforms at least one axis (naxes = 0)", fn);
    int ax[FFT_MAX_AXES];
    int64_t len[FFT_MAX_AXES];
    if ((st = norm_axes(fn, nd, naxes, axes, ax))) return st;
    for (int i = 0; i < naxes; i++) {
        const int64_t m = a->shape[ax[i]];
        len[i] = s && s[i] != -1 ? s[i] : m;
        if (!s && w == N_IRFFTN && i == naxes - 1 && (st = nd__fft_c2r_len(fn, m, &len[i]))) return st;
        if (len[i] < 1) return nd__fft_bad_n(fn, len[i]);
    }
    if ((st = nd__fft_backend(fn, a->device))) return st;

    /* the steps, in execution order, and the shape before each */
    fft_step step[FFT_MAX_AXES];
    int ns = 0;
    const int sg = w == N_IFFTN || w == N_IRFFTN ? 1 : -1;
    if (w == N_RFFTN) step[ns++] = (fft_step){ax[naxes - 1], ND_FFT_R2C, -1, len[naxes - 1], 0, 0};
    if (w == N_IRFFTN)
        for (int i = 0; i < naxes - 1; i++) step[ns++] = (fft_step){ax[i], ND_FFT_C2C, 1, len[i], 0, 0};
    else
        for (int i = naxes - 1 - (w == N_RFFTN); i >= 0; i--) step[ns++] = (fft_step){ax[i], ND_FFT_C2C, sg, len[i], 0, 0};
    if (w == N_IRFFTN) step[ns++] = (fft_step){ax[naxes - 1], ND_FFT_C2R, 1, len[naxes - 1], 0, 0};
    int64_t shape[ND_MAX_DIMS], before[FFT_MAX_AXES];
    memcpy(shape, a->shape, sizeof(int64_t) * (size_t)nd);
    for (int k = 0; k < ns; k++) {
        fft_step *p = &step[k];
        p->in_ext = p->kind == ND_FFT_C2R ? p->n / 2 + 1 : p->n;
        p->out_ext = p->kind == ND_FFT_R2C ? p->n / 2 + 1 : p->n;
        before[k] = shape[p->ax];
        shape[p->ax] = p->out_ext;
    }
    /* keep[k]: every step after k is a c2c transform that keeps the shape */
    bool keep[FFT_MAX_AXES];
    for (int k = ns - 1; k >= 0; k--)
        keep[k] = k == ns - 1 || (keep[k + 1] && step[k + 1].kind == ND_FFT_C2C && before[k + 1] == step[k + 1].n);

    const nd_dtype ct = nd__fft_ctype(a->dtype);
    /* irfftn of a half input: its c2c steps give complex64 first (NumPy), so
     * only a one-axis irfftn keeps float16/bfloat16, as irfft does */
    const nd_dtype rt = w == N_IRFFTN ? (ns > 1 ? nd__real_of(ct) : nd__fft_rtype(a->dtype)) : ct;
    const nd_dtype ot = w == N_IRFFTN ? nd__real_of(ct) : ct;
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, rt, nd, shape, a->device))) return st;
    nd_array *cur = NULL, *src = NULL, *dst = NULL;
    if (t.res->size == 0) goto done;
    if (ns == 0) { /* no axis: a copy as complex (np.fft.fftn(a, axes=())) */
        st = nd__copy_into(t.dst, a);
        goto done;
    }
    if ((st = nd__out_target(&t, ot, ND_OUT_EXACT_DTYPE, 1, &a))) goto done;
    cur = nd_retain((nd_array *)a);
    bool cur_ours = false; /* cur is memory of this call (a temporary or the result) */
    for (int k = 0; k < ns; k++) {
        const fft_step *p = &step[k];
        bool owned;
        const nd_dtype it = p->kind == ND_FFT_R2C ? nd__real_of(ct) : ct;
        if ((st = nd__fft_prepare(&src, &owned, cur, p->ax, p->in_ext, it))) goto done;
        owned = owned || cur_ours;
        if (keep[k]) {
            dst = nd_retain(t.dst);
        } else if (p->kind == ND_FFT_C2C && owned) {
            dst = nd_retain(src); /* in place */
        } else {
            int64_t sh[ND_MAX_DIMS];
            memcpy(sh, src->shape, sizeof(int64_t) * (size_t)nd);
            sh[p->ax] = p->out_ext;
            if ((st = nd__alloc(&dst, p->kind == ND_FFT_C2R ? nd__real_of(ct) : ct, nd, sh, a->device))) goto done;
        }
        st = nd__fft_exec(fn, dst, src, p->ax, p->n, p->kind, p->sign,
                          nd__fft_scale(norm, w == N_IFFTN || w == N_IRFFTN, p->n));
        nd_release(src);
        src = NULL;
        nd_release(cur);
        cur = dst;
        dst = NULL;
        cur_ours = true;
        if (st) goto done;
    }
done:
    nd_release(src);
    nd_release(dst);
    nd_release(cur);
    return nd__out_end(&t, st);
}

nd_status nd_fftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes, nd_fft_norm norm)
{
    ND_PROF_OP("fftn", out, a);
    return fftn("nd_fftn", N_FFTN, out, a, naxes, s, axes, norm);
}

nd_status nd_ifftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes, nd_fft_norm norm)
{
    ND_PROF_OP("ifftn", out, a);
    return fftn("nd_ifftn", N_IFFTN, out, a, naxes, s, axes, norm);
}

nd_status nd_rfftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes, nd_fft_norm norm)
{
    ND_PROF_OP("rfftn", out, a);
    return fftn("nd_rfftn", N_RFFTN, out, a, naxes, s, axes, norm);
}

nd_status nd_irfftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes, nd_fft_norm norm)
{
    ND_PROF_OP("irfftn", out, a);
    return fftn("nd_irfftn", N_IRFFTN, out, a, naxes, s, axes, norm);
}

nd_status nd_fft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm)
{
    ND_PROF_OP("fft2", out, a);
    return fftn("nd_fft2", N_FFTN, out, a, 2, s, axes, norm);
}

nd_status nd_ifft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm)
{
    ND_PROF_OP("ifft2", out, a);
    return fftn("nd_ifft2", N_IFFTN, out, a, 2, s, axes, norm);
}

nd_status nd_rfft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm)
{
    ND_PROF_OP("rfft2", out, a);
    return fftn("nd_rfft2", N_RFFTN, out, a, 2, s, axes, norm);
}

nd_status nd_irfft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm)
{
    ND_PROF_OP("irfft2", out, a);
    return fftn("nd_irfft2", N_IRFFTN, out, a, 2, s, axes, norm);
}

/* ------------------------------------------------------------------ */
/* fftshift, ifftshift                                                 */
/* ------------------------------------------------------------------ */
static nd_status shift(const char *fn, bool inverse, nd_array **out, const nd_array *a, int naxes, const int *axes)
{
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (!nd__dtype_valid(a->dtype)) return nd__err(ND_ERR_DTYPE, fn, "array 'a' has an invalid dtype");
    const int nd = a->ndim;
    nd_status st = check_naxes(fn, nd, &naxes, axes);
    if (st) return st;
    if (naxes > 0 && !axes && naxes != nd)
        return nd__err(ND_ERR_INVALID, fn, "argument 'axes' is NULL with naxes = %d (-1 for every axis)", naxes);
    int ax[FFT_MAX_AXES];
    int64_t sh[FFT_MAX_AXES];
    if (axes) {
        if ((st = norm_axes(fn, nd, naxes, axes, ax))) return st;
    } else {
        for (int i = 0; i < naxes; i++) ax[i] = i;
    }
    if (*out && (st = nd__out_check(fn, *out, a->dtype, nd, a->shape, a->device))) return st;
    for (int i = 0; i < naxes; i++) sh[i] = inverse ? -(a->shape[ax[i]] / 2) : a->shape[ax[i]] / 2;
    if (naxes > 0) {
        st = nd_roll(out, a, naxes, sh, naxes, ax);
        return st ? nd__err_prefix(st, fn) : ND_OK;
    }
    nd_array *c = nd_retain((nd_array *)a); /* no axis (a 0-d array, or naxes = 0): a copy */
    return nd__out_deliver(fn, out, &c, a->dtype, ND_OUT_COPY);
}

nd_status nd_fftshift(nd_array **out, const nd_array *a, int naxes, const int *axes)
{
    ND_PROF_OP("fftshift", out, a);
    return shift("nd_fftshift", false, out, a, naxes, axes);
}

nd_status nd_ifftshift(nd_array **out, const nd_array *a, int naxes, const int *axes)
{
    ND_PROF_OP("ifftshift", out, a);
    return shift("nd_ifftshift", true, out, a, naxes, axes);
}
