/* The CPU FFT engine: plans and batched, strided 1-D transforms
 * of any length, in single and double precision. The public nd_fft* family
 * (the core) calls these; nothing here validates user input or sets an
 * error message.
 *
 * Data. Complex data is interleaved (re, im) pairs of float (single plans)
 * or double (double plans); real data is plain float/double. Strides and
 * distances are counted in elements of the data's own unit: complex
 * elements for complex arrays, real elements for real arrays. Any non-zero
 * int64 value is accepted, negative too (a stride may also be 0 for an
 * input of a transform of length 1, or a distance 0 for howmany == 1).
 * Element j of transform t of an array is at base + (t * dist + j * stride)
 * units.
 *
 * Plans. nd__fft_plan_get(n, dbl) returns a retained plan for length
 * n >= 1 from a thread-safe cache (a mutex; at most ND_FFT_CACHE plans;
 * the least recently used one that no caller holds is evicted). The same
 * (n, precision) gives the same pointer while it is held - unless more
 * than ND_FFT_CACHE distinct plans are held at once: the extra ones are
 * handed out uncached, one per request, and die with their last release.
 * A plan may be executed by several threads at once: its tables never
 * change once built. The tables of each use (complex; real, for even n:
 * the complex tables of n/2) are built on first use and published with
 * one atomic compare-and-swap, so a plan used only for rfft never builds
 * the complex tables of its own length.
 *
 * Algorithms (src/cpu/fft_core.c, fft_exec.c): mixed-radix Stockham
 * (radix 4, 2, 3, 5 and any odd prime up to 61) on buffers that hold a
 * block of transforms side by side, so every stage vectorises across the
 * block (AVX-512 / AVX2 / baseline loops, fft_kernels.c); a four-step
 * split n = n1 n2 for one long transform (both passes on all threads);
 * Bluestein (a chirp-z convolution of smooth length >= 2n - 1) for
 * lengths with a prime factor above 61; real transforms of even n as a
 * complex transform of n/2 plus a pre/post pass.
 *
 * Changes from the interface first proposed, and why: plan_get allocates
 * only the plan, the tables come on first use (above), so an execute
 * function may also fail for lack of memory to build them; accessors
 * nd__fft_plan_n/dbl and nd__fft_cache_clear (tests that count live
 * allocations); r2c/c2r are never in place.
 *
 * Execution. Every function below returns false only when out of memory
 * (scratch or the plan's lazily built tables); it may run on worker
 * threads, so it sets no error message: the caller reports ND_ERR_NOMEM.
 * Outputs may then be partly written. Each output element is multiplied
 * by scale (the caller passes 1, 1/n or 1/sqrt(n) for NumPy's norm
 * modes).
 *
 * Aliasing: c2c may run in place (in == out with equal strides and
 * distances); otherwise inputs and outputs must not overlap (r2c and c2r
 * are never in place: the element sizes differ).
 *
 * Accuracy: twiddles are computed in long double (a two-level table:
 * exp(-2 pi i e/N) = T2[e / R] * T1[e % R], R ~ sqrt(N), both tables from
 * cosl/sinl) and rounded once to the plan's precision, so a transform's
 * error is the usual O(log n) eps relative to the rms of the data;
 * tests/test_fft_core.c states and checks the bound. */
#ifndef ND_CPU_FFT_CORE_H
#define ND_CPU_FFT_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/internal.h"

/* Cached plans (the cache's capacity). */
#define ND_FFT_CACHE 32

typedef struct nd_fft_plan nd_fft_plan;

/* A retained plan for length n >= 1, single (dbl = false) or double
 * precision; NULL when out of memory (or n < 1). */
ND_INTERNAL nd_fft_plan *nd__fft_plan_get(int64_t n, bool dbl);
/* Give back a reference from nd__fft_plan_get (NULL is fine). */
ND_INTERNAL void nd__fft_plan_release(nd_fft_plan *p);
/* The plan's length and precision. */
ND_INTERNAL int64_t nd__fft_plan_n(const nd_fft_plan *p);
ND_INTERNAL bool nd__fft_plan_dbl(const nd_fft_plan *p);
/* Free every cached plan that nobody holds (tests that count live
 * allocations, or a caller that wants the memory back). */
ND_INTERNAL void nd__fft_cache_clear(void);

/* howmany complex transforms of length n = the plan's:
 *   out[k] = scale * sum_j in[j] exp(sign * 2 pi i j k / n)
 * sign -1 = forward (numpy.fft.fft), +1 = backward (unnormalised
 * numpy.fft.ifft). */
ND_INTERNAL bool nd__fft_c2c(nd_fft_plan *p, int sign, int64_t howmany, const void *in, int64_t istride, int64_t idist,
                             void *out, int64_t ostride, int64_t odist, double scale);
/* howmany real-input forward transforms (numpy.fft.rfft): n real inputs
 * give the n/2 + 1 complex outputs k = 0 .. n/2 of the forward c2c. */
ND_INTERNAL bool nd__fft_r2c(nd_fft_plan *p, int64_t howmany, const void *in, int64_t istride, int64_t idist, void *out,
                             int64_t ostride, int64_t odist, double scale);
/* howmany Hermitian-input backward transforms (numpy.fft.irfft without
 * its 1/n): n/2 + 1 complex inputs X[0 .. n/2] give the n real outputs
 *   out[j] = scale * sum_{k<n} X[k] exp(+2 pi i j k / n),
 * X[n-k] = conj(X[k]); the imaginary parts of X[0] and, for even n, of
 * X[n/2] are ignored (as NumPy's pocketfft does). */
ND_INTERNAL bool nd__fft_c2r(nd_fft_plan *p, int64_t howmany, const void *in, int64_t istride, int64_t idist, void *out,
                             int64_t ostride, int64_t odist, double scale);

#endif
