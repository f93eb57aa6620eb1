/*
 * libndgpu: random numbers - the counter-based Philox4x32-10 generator
 * (nd_rng) and its distributions, permutations and choice.
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_RANDOM_H
#define NDGPU_RANDOM_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Random (Philox4x32-10, counter based; same numbers on every backend) */
/* ------------------------------------------------------------------ */
/*
 * The stream (defined exactly in src/shared/philox.h): key = (seed & 0xffffffff,
 * seed >> 32); block j = Philox4x32-10(counter = (j & 0xffffffff, j >> 32,
 * 0, 0), key), four 32-bit words. The generator's offset counts blocks.
 * A call producing n elements uses E = 4 elements per block for
 * float16/bfloat16/float32 and E = 2 for float64: element i (in C order
 * of the result shape) comes from block offset + i / E, lane i % E, so it
 * depends only on (seed, offset, i), and the call advances the offset by
 * ceil(n / E). Two calls of n therefore equal one call of 2n when n is a
 * multiple of E. Uniform and normal values are bit-identical on every
 * backend: normal values use the library's own ln/sin/cos (src/shared/philox.h:
 * IEEE + - * / and sqrt only, no fused multiply-add, < 1 ulp), not the
 * platform's libm. A generator is not safe to use from two threads at
 * once.
 */
typedef struct nd_rng nd_rng;
/** New generator: key = seed, counter (offset) = 0. ND_ERR_INVALID for a
 *  NULL rng, ND_ERR_NOMEM. */
ND_API nd_status nd_rng_create(nd_rng **rng, uint64_t seed);
/** Free a generator (NULL is fine). */
ND_API void nd_rng_destroy(nd_rng *rng);
/** Current stream position (in 128-bit Philox blocks); 0 for NULL. */
ND_API uint64_t nd_rng_offset(const nd_rng *rng);
/** Move the stream position (any value; positions wrap mod 2^64). */
ND_API nd_status nd_rng_set_offset(nd_rng *rng, uint64_t offset);
/** Uniform [low, high) floats (float16/bfloat16/float32/float64, and
 *  complex64/complex128 below; ND_ERR_DTYPE otherwise): u in [0, 1) from
 *  24 bits (53 for float64), low + (high - low) * u in double, rounded to
 *  the dtype; values that
 *  round onto high (or below low) are replaced by the nearest dtype value
 *  inside [low, high). low == high gives low. ND_ERR_INVALID for
 *  non-finite bounds, low > high, high - low overflowing, or bounds
 *  beyond the dtype's finite range. With *out given (any float dtype,
 *  any layout) the values are generated in dtype and cast; the offset
 *  advances only on success. complex64/complex128 (as PyTorch's complex
 *  rand): the real and imaginary parts are independent, each uniform in
 *  [low, high) (bounds checked against the part's float dtype); they are
 *  the 2n consecutive values of the real call of the part dtype (element
 *  i: real part 2i, imaginary part 2i + 1), so the offset advances as for a
 *  real call of 2n and every backend gives the same bits. */
ND_API nd_status nd_random_uniform(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double low, double high, nd_device dev);
/** Normal(mean, stddev) floats by Box-Muller (u1 in (0, 1], no log 0),
 *  computed in double and rounded to the dtype. ND_ERR_INVALID for
 *  non-finite mean/stddev or stddev < 0 (stddev == 0 gives mean).
 *  complex64/complex128 (as torch.randn(dtype=complex64)): independent
 *  parts, each Normal(0, stddev^2 / 2), so E|z - mean|^2 = stddev^2; mean
 *  is added to the real part (rounded after the part is, in the part
 *  dtype), so E z = mean + 0i (PyTorch's normal_ adds it to both parts).
 *  The parts are the 2n values of the real call of the part dtype with
 *  stddev / sqrt(2) and mean 0 (element i: 2i and 2i + 1; the offset
 *  advances as for 2n reals; the same bits on every backend). */
ND_API nd_status nd_random_normal(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double mean, double stddev, nd_device dev);
/** Uniform integers in [low, high) (NumPy's Generator.integers(low, high,
 *  size, dtype), endpoint=False) of bool or any integer dtype (ND_ERR_DTYPE
 *  for floats). ND_ERR_INVALID for high <= low ("high <= low") or a bound
 *  outside the dtype ("low -1 is out of bounds for uint8"; uint64's bounds
 *  are int64, so its top half is not reachable). Each element is one
 *  multiply-shift of a 64-bit draw (span <= 2^32: 2 elements per Philox
 *  block, relative bias < 2^-32) or of a 128-bit draw (wider spans: 1 per
 *  block, bias < 2^-64), without rejection, so element i depends only on
 *  (seed, offset, i) and every backend gives the same integers (src/shared/philox.h
 *  defines them). The offset advances by ceil(n / 2) or n blocks. */
ND_API nd_status nd_random_integers(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, int64_t low, int64_t high, nd_device dev);
/** Bernoulli(p) samples: element i is u_i < p with u the float64 uniform
 *  [0, 1) stream of nd_random_uniform (so the offset advances as for a
 *  float64 uniform call of the same size; p = 0 gives all false, p = 1 all
 *  true), stored as 0/1 in dtype (bool, integers or floats: torch.bernoulli
 *  gives floats, NumPy's binomial(1, p) int64). A given *out keeps its own
 *  dtype (the out rule). ND_ERR_INVALID for p outside [0, 1] or NaN. */
ND_API nd_status nd_random_bernoulli(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double p, nd_device dev);
/** Bernoulli with one probability per element (torch.bernoulli(p)): the
 *  result has p's shape and device; p must be a float array (values
 *  outside [0, 1] behave as the comparison u < p does: p < 0 never, p > 1
 *  always, NaN never). Same stream as nd_random_bernoulli. */
ND_API nd_status nd_random_bernoulli_array(nd_array **out, nd_rng *rng, const nd_array *p, nd_dtype dtype);
/** A random permutation of [0, n) (NumPy's Generator.permutation(n)):
 *  int64 on dev, the stable nd_argsort of n int64 keys drawn by
 *  nd_random_integers over the int64 range (so the offset advances by n
 *  blocks, and every backend gives the same permutation). ND_ERR_INVALID
 *  for n < 0. */
ND_API nd_status nd_random_permutation(nd_array **out, nd_rng *rng, int64_t n, nd_device dev);
/** a with its first axis shuffled (NumPy's Generator.permutation(x) for
 *  an array): nd_take(a, permutation(a.shape[0]), axis 0), on a's device.
 *  ND_ERR_INVALID for a 0-d a. */
ND_API nd_status nd_random_permutation_of(nd_array **out, nd_rng *rng, const nd_array *a);
/** NumPy's Generator.choice(a, size, replace, p): samples of `shape` from
 *  the rows of a (a != NULL: along a's first axis; the result has shape +
 *  a.shape[1:], a's dtype and device) or from [0, n) (a == NULL: int64 on
 *  dev). replace: uniform indices (nd_random_integers), or with p (1-D
 *  float, the population's length, non-negative, finite, summing to 1
 *  within sqrt(eps)) NumPy's method: cdf = cumsum(p) / sum(p) in double on
 *  the host, u float64 uniform, index = searchsorted(cdf, u, "right"), so a
 *  zero probability is never drawn. Without replacement: the first
 *  prod(shape) entries of nd_random_permutation(n), or with p weighted
 *  sampling without replacement (Efraimidis-Spirakis keys log(1 - u) / p,
 *  the largest first: the distribution of NumPy's successive draws, not its
 *  values). The samples are the same on every backend for a seed (p and
 *  the keys of the weighted case go through the host). ND_ERR_INVALID:
 *  "Cannot take a larger sample than population when replace is False",
 *  "Fewer non-zero entries in p than size", "probabilities do not sum to
 *  1", negative or non-finite p, n < 0, an empty population with samples
 *  requested; ND_ERR_SHAPE: p not 1-D or not of the population's length;
 *  ND_ERR_DTYPE: p not float; ND_ERR_DEVICE: p on another device. The
 *  offset advances only on success. */
ND_API nd_status nd_random_choice(nd_array **out, nd_rng *rng, const nd_array *a, int64_t n, int ndim, const int64_t *shape, bool replace, const nd_array *p, nd_device dev);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_RANDOM_H */
