/* numpy.fft, 1-D: nd_fft, nd_ifft, nd_rfft, nd_irfft, nd_hfft,
 * nd_ihfft, nd_fftfreq, nd_rfftfreq, and the pieces the n-D functions
 * (src/fft/fft_nd.c) share. The transforms are the backends' fft slot
 * (contract: src/fft/fft.h); this file validates, picks dtypes, crops or
 * zero-pads the input to the transform length and computes the scale.
 *
 * Each 1-D function is one slot call:
 *   fft    c2c sign -1          ifft   c2c sign +1
 *   rfft   r2c sign -1          irfft  c2r sign +1
 *   ihfft  r2c sign +1          hfft   c2r sign -1
 * NumPy's hfft(a, n, norm) is irfft(conj(a), n) with the norm's direction
 * swapped, i.e. the c2r transform with sign -1 (the Hermitian extension of
 * conj(a) is the conjugate of a's, and the c2r result is real), scaled
 * 1 (backward), 1/sqrt(n) (ortho) or 1/n (forward); ihfft(a, n, norm) =
 * conj(rfft(a, n)) with the direction swapped: the r2c transform with
 * sign +1, scaled 1/n (backward). So no conjugate pass is needed in the
 * core; the backends fold the sign into their transforms.
 *
 * dtypes (NumPy 2): the transform runs in complex64 for float16, bfloat16,
 * float32 and complex64 inputs, complex128 for every other dtype; rfft and
 * ihfft take real input only (ND_ERR_DTYPE for complex, NumPy's
 * TypeError); irfft and hfft give the real part's dtype, except float16
 * and bfloat16 inputs, which keep theirs (NumPy 2 gives float16 for
 * float16: its result dtype is result_type(a.real.dtype, 1.0)). */
#include <math.h>
#include <string.h>

#include "fft/fft.h"
#include "core/out.h"
#include "core/prof.h"

nd_status nd__fft_check_norm(const char *fn, nd_fft_norm norm)
{
    if (norm == ND_FFT_BACKWARD || norm == ND_FFT_ORTHO || norm == ND_FFT_FORWARD) return ND_OK;
    return nd__err(ND_ERR_INVALID, fn,
                   "Invalid norm value %d; should be ND_FFT_BACKWARD, ND_FFT_ORTHO or ND_FFT_FORWARD", (int)norm);
}

double nd__fft_scale(nd_fft_norm norm, bool inverse, int64_t n)
{
    if (norm == ND_FFT_ORTHO) return 1.0 / sqrt((double)n);
    if ((norm == ND_FFT_BACKWARD) == inverse) return 1.0 / (double)n;
    return 1.0;
}

nd_status nd__fft_bad_n(const char *fn, int64_t n)
{
    return nd__err(ND_ERR_INVALID, fn, "Invalid number of FFT data points (%lld) specified.", (long long)n);
}

nd_status nd__fft_c2r_len(const char *fn, int64_t m, int64_t *n)
{
    if (m - 1 > INT64_MAX / 2)
        return nd__err(ND_ERR_INVALID, fn,
                       "array is too big: the default output length 2 (m - 1) overflows for an axis of %lld",
                       (long long)m);
    *n = 2 * (m - 1);
    return ND_OK;
}

nd_status nd__fft_backend(const char *fn, nd_device dev)
{
    const nd_backend *be = nd__backend(dev);
    if (be && be->fft) return ND_OK;
    char d[32];
    return nd__err(ND_ERR_UNSUPPORTED, fn, "no FFT for device %s", nd__device_name(dev, d, sizeof d));
}

static bool has_broadcast_axis(const nd_array *a)
{
    for (int i = 0; i < a->ndim; i++)
        if (a->strides[i] == 0 && a->shape[i] > 1) return true;
    return false;
}

nd_status nd__fft_prepare(nd_array **r, bool *owned, const nd_array *a, int ax, int64_t m, nd_dtype t)
{
    *r = NULL;
    *owned = false;
    int64_t shape[ND_MAX_DIMS];
    memcpy(shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
    const int64_t ext = a->shape[ax];
    shape[ax] = m;
    nd_status st;
    if (ext < m) { /* zero-padded: zeros, then a copied into the leading part */
        nd_array *z = NULL, *lead = NULL;
        if ((st = nd__alloc(&z, t, a->ndim, shape, a->device))) return st;
        static const unsigned char zero[16] = {0};
        if (z->size > 0 && (st = nd__backend(a->device)->fill(z, zero))) goto pad_fail;
        if (ext > 0 && z->size > 0) {
            if ((st = nd__view(&lead, z, t, z->ndim, a->shape, z->strides, z->offset))) goto pad_fail;
            st = nd__copy_into(lead, a);
            nd_release(lead);
            if (st) goto pad_fail;
        }
        *r = z;
        *owned = true;
        return ND_OK;
    pad_fail:
        nd_release(z);
        return st;
    }
    /* cropped (or exact): a view of the leading m elements */
    nd_array *v = NULL;
    if (ext == m) v = nd_retain((nd_array *)a);
    else if ((st = nd__view(&v, a, a->dtype, a->ndim, shape, a->strides, a->offset))) return st;
    if (v->dtype == t && !has_broadcast_axis(v)) {
        *r = v;
        return ND_OK;
    }
    nd_array *c = NULL;
    st = nd__alloc(&c, t, v->ndim, v->shape, v->device);
    if (!st && (st = nd__copy_into(c, v))) {
        nd_release(c);
        c = NULL;
    }
    nd_release(v);
    if (st) return st;
    *r = c;
    *owned = true;
    return ND_OK;
}

nd_status nd__fft_exec(const char *fn, nd_array *dst, const nd_array *src, int ax, int64_t n, int kind, int sign,
                       double scale)
{
    if (dst->size == 0) return ND_OK;
    nd_status st = nd__backend(dst->device)->fft(dst, src, ax, n, kind, sign, scale);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

/* ------------------------------------------------------------------ */
/* The 1-D functions                                                   */
/* ------------------------------------------------------------------ */
typedef enum { F_FFT, F_IFFT, F_RFFT, F_IRFFT, F_HFFT, F_IHFFT } fft1_which;

static nd_status fft1(const char *fn, fft1_which w, nd_array **out, const nd_array *a, int64_t n, int axis,
                      nd_fft_norm norm)
{
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (!nd__dtype_valid(a->dtype)) return nd__err(ND_ERR_DTYPE, fn, "array 'a' has an invalid dtype");
    const int kind = w == F_FFT || w == F_IFFT ? ND_FFT_C2C : w == F_RFFT || w == F_IHFFT ? ND_FFT_R2C : ND_FFT_C2R;
    const int sign = w == F_FFT || w == F_RFFT || w == F_HFFT ? -1 : 1;
    const bool inverse = w == F_IFFT || w == F_IRFFT || w == F_IHFFT;
    if (kind == ND_FFT_R2C && nd__is_complex(a->dtype))
        return nd__err(ND_ERR_DTYPE, fn, "'a' is %s; %s takes real input (NumPy: TypeError)", nd_dtype_name(a->dtype),
                       fn);
    nd_status st = nd__fft_check_norm(fn, norm);
    if (st) return st;
    const int nd = a->ndim;
    if (axis < -nd || axis >= nd)
        return nd__err(ND_ERR_SHAPE, fn, "axis %d is out of bounds for array of dimension %d", axis, nd);
    const int ax = axis < 0 ? axis + nd : axis;
    const int64_t m = a->shape[ax];
    if (n == -1 && kind == ND_FFT_C2R && (st = nd__fft_c2r_len(fn, m, &n))) return st;
    if (n == -1) n = m;
    if (n < 1) return nd__fft_bad_n(fn, n);
    if ((st = nd__fft_backend(fn, a->device))) return st;
    const nd_dtype ct = nd__fft_ctype(a->dtype);
    const nd_dtype it = kind == ND_FFT_R2C ? nd__real_of(ct) : ct;                     /* the slot's input */
    const nd_dtype ot = kind == ND_FFT_C2R ? nd__real_of(ct) : ct;                     /* the slot's output */
    const nd_dtype rt = kind == ND_FFT_C2R ? nd__fft_rtype(a->dtype) : ct;             /* the result */
    const int64_t in_ext = kind == ND_FFT_C2R ? n / 2 + 1 : n, out_ext = kind == ND_FFT_R2C ? n / 2 + 1 : n;
    int64_t shape[ND_MAX_DIMS];
    memcpy(shape, a->shape, sizeof(int64_t) * (size_t)nd);
    shape[ax] = out_ext;
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, rt, nd, shape, a->device))) return st;
    nd_array *src = NULL;
    bool owned;
    if (t.res->size == 0) goto done;
    if ((st = nd__fft_prepare(&src, &owned, a, ax, in_ext, it))) goto done;
    const nd_array *ins[2] = {a, src};
    if ((st = nd__out_target(&t, ot, ND_OUT_EXACT_DTYPE, 2, ins))) goto done;
    st = nd__fft_exec(fn, t.dst, src, ax, n, kind, sign, nd__fft_scale(norm, inverse, n));
done:
    nd_release(src);
    return nd__out_end(&t, st);
}

nd_status nd_fft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm)
{
    ND_PROF_OP("fft", out, a);
    return fft1("nd_fft", F_FFT, out, a, n, axis, norm);
}

nd_status nd_ifft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm)
{
    ND_PROF_OP("ifft", out, a);
    return fft1("nd_ifft", F_IFFT, out, a, n, axis, norm);
}

nd_status nd_rfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm)
{
    ND_PROF_OP("rfft", out, a);
    return fft1("nd_rfft", F_RFFT, out, a, n, axis, norm);
}

nd_status nd_irfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm)
{
    ND_PROF_OP("irfft", out, a);
    return fft1("nd_irfft", F_IRFFT, out, a, n, axis, norm);
}

nd_status nd_hfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm)
{
    ND_PROF_OP("hfft", out, a);
    return fft1("nd_hfft", F_HFFT, out, a, n, axis, norm);
}

nd_status nd_ihfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm)
{
    ND_PROF_OP("ihfft", out, a);
    return fft1("nd_ihfft", F_IHFFT, out, a, n, axis, norm);
}

/* ------------------------------------------------------------------ */
/* fftfreq, rfftfreq                                                   */
/* ------------------------------------------------------------------ */
/* NumPy's formula: results = [0, 1, ..., (n-1)//2, -(n//2), ..., -1] (or
 * [0 .. n//2] for rfftfreq) * val, val = 1.0 / (n * d), in float64 on the
 * host; then cast to dtype on dev. */
static nd_status freq(const char *fn, bool real, nd_array **out, int64_t n, double d, nd_dtype dtype, nd_device dev)
{
    ND_CHECK_PTR(fn, out, "out");
    if (n < 1) return nd__err(ND_ERR_INVALID, fn, "n = %lld must be at least 1", (long long)n);
    if (d == 0.0 || isnan(d)) return nd__err(ND_ERR_INVALID, fn, "the sample spacing d = %g must be nonzero", d);
    if (!nd__dtype_valid(dtype) || !nd__is_float(dtype))
        return nd__err(ND_ERR_DTYPE, fn, "dtype must be a float dtype (got %s)",
                       nd__dtype_valid(dtype) ? nd_dtype_name(dtype) : "an invalid dtype");
    nd_status st = nd__check_device(fn, dev);
    if (st) return st;
    const int64_t len = real ? n / 2 + 1 : n;
    int64_t sz;
    if ((st = nd__check_shape(fn, 1, &len, ND_FLOAT64, &sz))) return st;
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, dtype, 1, &len, dev))) return st;
    double *h = nd__malloc(sizeof(double) * (size_t)len);
    nd_array *wrap = NULL, *dv = NULL;
    if (!h) {
        st = nd__err(ND_ERR_NOMEM, fn, "out of memory (%lld frequencies)", (long long)len);
        goto done;
    }
    const double val = 1.0 / ((double)n * d);
    const int64_t N = (n - 1) / 2 + 1;
    for (int64_t i = 0; i < len; i++) h[i] = (double)(real || i < N ? i : i - n) * val;
    if ((st = nd__wrap(&wrap, h, ND_FLOAT64, 1, &len, nd_cpu()))) goto done;
    /* nd__copy_into casts into the result (any strides) */
    if (nd__same_device(dev, nd_cpu())) st = nd__copy_into(t.dst, wrap);
    else st = nd_to_device(&dv, wrap, dev), st = st ? st : nd__copy_into(t.dst, dv);
done:
    nd_release(dv);
    nd_release(wrap);
    nd__free(h);
    return nd__out_end(&t, st);
}

nd_status nd_fftfreq(nd_array **out, int64_t n, double d, nd_dtype dtype, nd_device dev)
{
    ND_PROF_OP_ON("fftfreq", out, dev);
    return freq("nd_fftfreq", false, out, n, d, dtype, dev);
}

nd_status nd_rfftfreq(nd_array **out, int64_t n, double d, nd_dtype dtype, nd_device dev)
{
    ND_PROF_OP_ON("rfftfreq", out, dev);
    return freq("nd_rfftfreq", true, out, n, d, dtype, dev);
}
