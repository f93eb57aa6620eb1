/* The FFT family's internal declarations (src/fft/fft.c, src/fft/fft_nd.c):
 * dtypes, norms, the prepared input and the one call of the backend's fft
 * slot (its contract: src/core/fft_slot.h). */
#ifndef ND_FFT_H
#define ND_FFT_H
#include "core/fft_slot.h"

/* ---- the core's shared pieces (src/fft/fft.c; used by src/fft/fft_nd.c) ---- */
#ifndef __cplusplus
/* The precision of a transform of input dtype t: complex64 for float16,
 * bfloat16, float32 and complex64, complex128 for everything else. */
static inline nd_dtype nd__fft_ctype(nd_dtype t)
{
    const nd_dtype c = nd__compute_dtype(t);
    return c == ND_FLOAT32 || c == ND_COMPLEX64 ? ND_COMPLEX64 : ND_COMPLEX128;
}
/* The real result dtype of irfft/hfft/irfftn of input dtype t: float16
 * and bfloat16 keep theirs (NumPy 2 gives float16 for float16), else the
 * real part of nd__fft_ctype(t). */
static inline nd_dtype nd__fft_rtype(nd_dtype t)
{
    return nd__storage_only(t) ? t : nd__real_of(nd__fft_ctype(t));
}
/* ND_OK for a valid nd_fft_norm, else ND_ERR_INVALID naming fn. */
ND_INTERNAL nd_status nd__fft_check_norm(const char *fn, nd_fft_norm norm);
/* The scale of a transform of length n under norm: inverse = whether it
 * counts as the backward direction (ifft, irfft, ihfft). */
ND_INTERNAL double nd__fft_scale(nd_fft_norm norm, bool inverse, int64_t n);
/* "Invalid number of FFT data points (n) specified." (ND_ERR_INVALID). */
ND_INTERNAL nd_status nd__fft_bad_n(const char *fn, int64_t n);
/** The inverse real transforms' default length 2 (m - 1) for an axis of m
 *  into *n, or ND_ERR_INVALID where it overflows int64 (an axis of a
 *  broadcast or empty array may be that long). */
ND_INTERNAL nd_status nd__fft_c2r_len(const char *fn, int64_t m, int64_t *n);
/* The input of one step: a as dtype t with extent m along ax (cropped: a
 * view; zero-padded: a new array), with no stride-0 axis of extent > 1;
 * a new reference (a itself when it already qualifies). *owned: whether
 * *r is memory this call made (not a or a view of it). */
ND_INTERNAL nd_status nd__fft_prepare(nd_array **r, bool *owned, const nd_array *a, int ax, int64_t m, nd_dtype t);
/* One backend transform (the slot's contract, src/fft/fft.h); errors are
 * prefixed with fn. */
ND_INTERNAL nd_status nd__fft_exec(const char *fn, nd_array *dst, const nd_array *src, int ax, int64_t n, int kind,
                                   int sign, double scale);
/* The backend of dev when it has the fft slot, else ND_ERR_UNSUPPORTED. */
ND_INTERNAL nd_status nd__fft_backend(const char *fn, nd_device dev);
#endif

#endif
