/* The fft slot's contract and the batch geometry both backends' fft
 * slots share (src/cpu/fft.c over the engine of src/cpu/fft_core.h,
 * src/cuda/fft.cu over cuFFT); the family (src/fft/) calls the slot.
 *
 * The backend slot (src/core/backend.h):
 *   fft(out, in, axis, n, kind, sign, scale): one 1-D transform of length
 *   n >= 1 along `axis` of in into out, batched over every other axis
 *   (in and out have one ndim and the same extents on every other axis;
 *   the batch may be empty: the slot then does nothing).
 *     ND_FFT_C2C  in, out complex of one precision, both of extent n:
 *                 out[k] = scale * sum_j in[j] exp(sign 2 pi i j k / n);
 *     ND_FFT_R2C  in float32 (float64), extent n; out complex64
 *                 (complex128), extent n/2 + 1: the first n/2 + 1 outputs
 *                 of the c2c transform of the real input with the same
 *                 sign (sign +1 gives the conjugate of numpy.fft.rfft);
 *     ND_FFT_C2R  in complex, extent n/2 + 1, read as the first half of a
 *                 Hermitian sequence X (X[n - k] = conj(X[k]); the
 *                 imaginary parts of X[0] and, n even, of X[n/2] are
 *                 ignored, as NumPy's pocketfft does); out real of the
 *                 same precision, extent n: out[j] = scale * sum_{k<n}
 *                 X[k] exp(sign 2 pi i j k / n) (sign +1: numpy.fft.irfft
 *                 times n; sign -1: numpy.fft.hfft's transform).
 *   sign is -1 or +1; scale multiplies every output (1, 1/n, 1/sqrt(n)).
 *   in and out live on the backend's device with any strides, except that
 *   in has no stride-0 axis of extent > 1 (the core makes such an input
 *   contiguous) and out is writable (no stride-0 axis of extent > 1). out
 *   is disjoint from in, or (C2C only) exactly in (the same view): the
 *   transform then runs in place. A backend needing another layout (cuFFT:
 *   positive int strides, one batch stride) packs into scratch of its own.
 *   in is never written. Errors: ND_ERR_NOMEM (scratch, plans), and
 *   ND_ERR_BACKEND (the vendor library) with a message; the core prefixes
 *   it with the public function's name.
 *
 * The batch geometry below is shared by both backends, so that they fold
 * the batch the same way. */
#ifndef ND_FFT_SLOT_H
#define ND_FFT_SLOT_H
#include "core/internal.h"

enum { ND_FFT_C2C = 0, ND_FFT_R2C = 1, ND_FFT_C2R = 2 };

/* The batch of a transform along `axis` of in/out: every other axis of
 * extent > 1, ordered by |out stride| (then |in stride|) descending, and
 * adjacent axes merged where they are contiguous for both arrays (outer
 * stride = inner stride * inner extent, in and out alike). The innermost
 * batch axis (shape[nb - 1]) is the natural `howmany` of a batched call
 * with distances istr[nb - 1] / ostr[nb - 1]; the outer ones are loops.
 * Strides in elements of each array's own dtype. */
typedef struct nd_fft_geom {
    int nb;                       /* batch axes after merging (0: one transform) */
    int64_t batch;                /* the number of transforms (product of shape) */
    int64_t shape[ND_MAX_DIMS];   /* extents, outermost first */
    int64_t istr[ND_MAX_DIMS];    /* in's strides */
    int64_t ostr[ND_MAX_DIMS];    /* out's strides */
    int64_t is, os;               /* strides along the transformed axis */
    int64_t nin, nout;            /* extents along the transformed axis */
} nd_fft_geom;

static inline int64_t nd__fft_abs64(int64_t v) { return v < 0 ? -v : v; }

static inline void nd__fft_geom(nd_fft_geom *g, const nd_array *out, const nd_array *in, int axis)
{
    int nb = 0;
    g->batch = 1;
    for (int d = 0; d < in->ndim; d++) {
        if (d == axis) continue;
        g->batch *= in->shape[d];
        if (in->shape[d] == 1) continue;
        int64_t s = in->shape[d], is = in->strides[d], os = out->strides[d];
        /* insertion by |os| descending, ties by |is| descending */
        int k = nb++;
        while (k > 0 && (nd__fft_abs64(g->ostr[k - 1]) < nd__fft_abs64(os) ||
                         (nd__fft_abs64(g->ostr[k - 1]) == nd__fft_abs64(os) &&
                          nd__fft_abs64(g->istr[k - 1]) < nd__fft_abs64(is)))) {
            g->shape[k] = g->shape[k - 1], g->istr[k] = g->istr[k - 1], g->ostr[k] = g->ostr[k - 1];
            k--;
        }
        g->shape[k] = s, g->istr[k] = is, g->ostr[k] = os;
    }
    int m = 0;
    for (int i = 0; i < nb; i++) {
        if (m > 0 && g->istr[m - 1] == g->istr[i] * g->shape[i] && g->ostr[m - 1] == g->ostr[i] * g->shape[i]) {
            g->shape[m - 1] *= g->shape[i];
            g->istr[m - 1] = g->istr[i];
            g->ostr[m - 1] = g->ostr[i];
        } else {
            g->shape[m] = g->shape[i], g->istr[m] = g->istr[i], g->ostr[m] = g->ostr[i];
            m++;
        }
    }
    g->nb = m;
    g->is = in->strides[axis];
    g->os = out->strides[axis];
    g->nin = in->shape[axis];
    g->nout = out->shape[axis];
}

/* The element offsets (in units of each array) of transform t's first
 * element, counting over the OUTER batch axes only (every axis but the
 * innermost, which a batched call covers): t < batch / shape[nb - 1]. */
static inline void nd__fft_outer_offsets(const nd_fft_geom *g, int64_t t, int64_t *ioff, int64_t *ooff)
{
    int64_t io = 0, oo = 0;
    for (int d = g->nb - 2; d >= 0; d--) {
        const int64_t i = t % g->shape[d];
        t /= g->shape[d];
        io += i * g->istr[d];
        oo += i * g->ostr[d];
    }
    *ioff = io;
    *ooff = oo;
}

#endif /* ND_FFT_SLOT_H */
