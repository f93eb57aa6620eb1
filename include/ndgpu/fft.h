/*
 * libndgpu: discrete Fourier transforms (numpy.fft).
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_FFT_H
#define NDGPU_FFT_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* FFT (numpy.fft)                                                     */
/* ------------------------------------------------------------------ */
/*
 * numpy.fft's functions, named nd_ + NumPy's name, on both backends (CPU:
 * the library's own Stockham/Bluestein engine, src/cpu/fft_core.h; CUDA:
 * cuFFT with a plan cache). Any length (not only powers of two), any
 * layout, batched over every axis that is not transformed.
 *
 * dtypes (NumPy 2): float32, float16, bfloat16 and complex64 compute in
 * single precision and give complex64 (the rfft family: complex64; irfft, irfftn and hfft:
 * float32, but float16 / bfloat16 for a float16 / bfloat16 input to irfft,
 * hfft and a one-axis irfftn: NumPy 2 gives float16 for float16 there,
 * and float32 from irfftn/irfft2 over two or more axes, whose first steps
 * make complex64); float64, complex128, bool and integers give
 * complex128 / float64. rfft, rfft2, rfftn and ihfft refuse complex input
 * (ND_ERR_DTYPE, as NumPy's TypeError).
 *
 * n (1-D) / s (n-D): the length(s) of the transformed axis (axes) in the
 * input the transform sees: the input is cropped or zero-padded to it.
 * -1 (1-D) or s = NULL takes the input's extent (irfft/hfft: 2 (m - 1)
 * for an input extent m; irfftn: the last axis 2 (m - 1)); an entry
 * s[i] = -1 takes the input's extent along that axis, irfftn's last axis
 * included (NumPy 2). n < 1 is ND_ERR_INVALID ("Invalid number of FFT
 * data points").
 *
 * axis: negative counts from the end. The n-D functions take naxes axes
 * (axes = NULL: the last naxes axes; naxes = -1 with axes = NULL: every
 * axis, fftn's default); nd_fft2/nd_ifft2/nd_rfft2/nd_irfft2 are the n-D
 * forms with naxes = 2 and axes (-2, -1) by default. A repeated axis is
 * transformed twice, as NumPy does.
 *
 * norm: ND_FFT_BACKWARD (NumPy's default: the inverse transforms scale by
 * 1/n), ND_FFT_ORTHO (1/sqrt(n) both ways), ND_FFT_FORWARD (the forward
 * transforms scale by 1/n).
 *
 * out: the usual out-pointer rule (*out NULL: a new C-contiguous array;
 * else the result shape on the same device, a dtype the result casts to
 * under same_kind). The result never aliases a.
 */
typedef enum nd_fft_norm { ND_FFT_BACKWARD = 0, ND_FFT_ORTHO = 1, ND_FFT_FORWARD = 2 } nd_fft_norm;

/** np.fft.fft: the 1-D discrete Fourier transform along axis. */
ND_API nd_status nd_fft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.ifft: its inverse. */
ND_API nd_status nd_ifft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.rfft: the transform of real input, n/2 + 1 outputs along axis. */
ND_API nd_status nd_rfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.irfft: the inverse of rfft: n real outputs (n = -1: 2 (m - 1)). */
ND_API nd_status nd_irfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.hfft: the transform of a Hermitian-symmetric signal given by
 *  its first half: n real outputs (n = -1: 2 (m - 1)). */
ND_API nd_status nd_hfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.ihfft: the inverse of hfft (real input, n/2 + 1 outputs). */
ND_API nd_status nd_ihfft(nd_array **out, const nd_array *a, int64_t n, int axis, nd_fft_norm norm);
/** np.fft.fftn over naxes axes (see above for s, axes, naxes = -1). */
ND_API nd_status nd_fftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes,
                         nd_fft_norm norm);
/** np.fft.ifftn. */
ND_API nd_status nd_ifftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes,
                          nd_fft_norm norm);
/** np.fft.rfftn: rfft over the last of the axes, fft over the others. */
ND_API nd_status nd_rfftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes,
                          nd_fft_norm norm);
/** np.fft.irfftn: ifft over all axes but the last, irfft over the last. */
ND_API nd_status nd_irfftn(nd_array **out, const nd_array *a, int naxes, const int64_t *s, const int *axes,
                           nd_fft_norm norm);
/** np.fft.fft2: fftn over 2 axes (axes NULL: the last two; s NULL: their extents). */
ND_API nd_status nd_fft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm);
/** np.fft.ifft2. */
ND_API nd_status nd_ifft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm);
/** np.fft.rfft2. */
ND_API nd_status nd_rfft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm);
/** np.fft.irfft2. */
ND_API nd_status nd_irfft2(nd_array **out, const nd_array *a, const int64_t *s, const int *axes, nd_fft_norm norm);
/** np.fft.fftfreq(n, d): the sample frequencies [0, 1, ..., -1] / (d n)
 *  as a new 1-D array of float dtype `dtype` on dev (n >= 1, d != 0). */
ND_API nd_status nd_fftfreq(nd_array **out, int64_t n, double d, nd_dtype dtype, nd_device dev);
/** np.fft.rfftfreq(n, d): [0, 1, ..., n/2] / (d n). */
ND_API nd_status nd_rfftfreq(nd_array **out, int64_t n, double d, nd_dtype dtype, nd_device dev);
/** np.fft.fftshift: roll each of the axes by extent/2 (naxes = -1, axes
 *  NULL: every axis, as does naxes = ndim with axes NULL), any dtype. */
ND_API nd_status nd_fftshift(nd_array **out, const nd_array *a, int naxes, const int *axes);
/** np.fft.ifftshift: its inverse (roll by -(extent/2)). */
ND_API nd_status nd_ifftshift(nd_array **out, const nd_array *a, int naxes, const int *axes);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_FFT_H */
