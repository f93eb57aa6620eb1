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


/* ------------------------------------------------------------------ */
/* Distributions (NumPy's Generator methods, same values on every device) */
/* ------------------------------------------------------------------ */
/*
 * THE STREAM. Element i of a call (C order of `shape`; for the row
 * distributions multinomial, dirichlet and multivariate_normal, row i)
 * owns the Philox sub-stream of blocks
 *     counter = (j & 0xffffffff, j >> 32, k & 0xffffffff, k >> 32),
 *     j = offset + i, k = 0, 1, 2, ...
 * under the generator's key, and reads its words in order: rejection loops
 * read further along their own sub-stream, so every value depends only on
 * (seed, offset, i) and the call advances the offset by n (the number of
 * elements or rows). Which words each algorithm reads, and the algorithms
 * themselves (NumPy's: Marsaglia-Tsang gamma, BTPE binomial, PTRS Poisson,
 * HRUA hypergeometric, ...), are listed at the top of
 * src/shared/philox_dist.h. Values are computed in double with the
 * library's own ln/exp/sin/cos/atan (IEEE + - * / sqrt only, no fused
 * multiply-add), so the CPU and the GPU give the same bits; continuous
 * values are then rounded to dtype (float16, bfloat16, float32, float64;
 * ND_ERR_DTYPE otherwise), discrete ones are int64 cast to dtype (an
 * integer dtype; values beyond it wrap as nd_astype does).
 *
 * THE TWO FORMS. nd_random_<name>(out, rng, dtype, ndim, shape, params...,
 * dev) takes scalar parameters; nd_random_<name>_array(out, rng, dtype,
 * arrays...) one parameter array per parameter (all on one device, any real
 * dtype; integer parameters - binomial's n, hypergeometric's counts - need
 * an integer dtype): the result has their broadcast shape and their device
 * (broadcast a parameter with nd_broadcast_to for several draws per
 * parameter set), and an element drawn with parameters x is the value the
 * scalar form would draw at the same (seed, offset, i).
 *
 * ERRORS (NumPy's messages, in the message after the function name):
 * ND_ERR_INVALID for a parameter outside its domain, e.g.
 * "nd_random_gamma: scale < 0" (a negative zero counts as negative, as in
 * NumPy; NaN passes for the continuous distributions and gives NaN);
 * ND_ERR_SHAPE for parameter arrays that do not broadcast; ND_ERR_DEVICE for
 * arrays on different devices; ND_ERR_DTYPE as above. On failure the offset
 * does not move and *out is untouched. A generator is not safe to use from
 * two threads at once.
 */

/** Exponential(scale) (mean scale): "scale < 0". */
ND_API nd_status nd_random_exponential(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double scale, nd_device dev);
/** nd_random_exponential with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_exponential_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *scale);
/** Gamma(shape k, scale) (mean k scale; Marsaglia-Tsang, boosted below 1): "shape < 0", "scale < 0". */
ND_API nd_status nd_random_gamma(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double k, double scale, nd_device dev);
/** nd_random_gamma with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_gamma_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *k, const nd_array *scale);
/** Beta(a, b) on [0, 1]: "a <= 0", "b <= 0". */
ND_API nd_status nd_random_beta(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double a, double b, nd_device dev);
/** nd_random_beta with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_beta_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *a, const nd_array *b);
/** Chi-square(df) = 2 Gamma(df / 2): "df <= 0". */
ND_API nd_status nd_random_chisquare(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double df, nd_device dev);
/** nd_random_chisquare with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_chisquare_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *df);
/** Student's t(df): "df <= 0". */
ND_API nd_status nd_random_standard_t(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double df, nd_device dev);
/** nd_random_standard_t with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_standard_t_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *df);
/** F(dfnum, dfden): "dfnum <= 0", "dfden <= 0". */
ND_API nd_status nd_random_f(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double dfnum, double dfden, nd_device dev);
/** nd_random_f with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_f_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *dfnum, const nd_array *dfden);
/** exp(Normal(mean, sigma)): "sigma < 0". */
ND_API nd_status nd_random_lognormal(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double mean, double sigma, nd_device dev);
/** nd_random_lognormal with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_lognormal_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *mean, const nd_array *sigma);
/** Laplace(loc, scale) (double exponential): "scale < 0". */
ND_API nd_status nd_random_laplace(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double loc, double scale, nd_device dev);
/** nd_random_laplace with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_laplace_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *loc, const nd_array *scale);
/** Logistic(loc, scale): "scale < 0". */
ND_API nd_status nd_random_logistic(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double loc, double scale, nd_device dev);
/** nd_random_logistic with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_logistic_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *loc, const nd_array *scale);
/** Gumbel(loc, scale) (maximum extreme value): "scale < 0". */
ND_API nd_status nd_random_gumbel(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double loc, double scale, nd_device dev);
/** nd_random_gumbel with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_gumbel_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *loc, const nd_array *scale);
/** Weibull(a) with scale 1, (-ln(1 - U))^(1/a): "a < 0" (a == 0 gives 0). */
ND_API nd_status nd_random_weibull(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double a, nd_device dev);
/** nd_random_weibull with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_weibull_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *a);
/** Pareto II (Lomax)(a) as NumPy's pareto: classical Pareto minus 1: "a <= 0". */
ND_API nd_status nd_random_pareto(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double a, nd_device dev);
/** nd_random_pareto with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_pareto_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *a);
/** Rayleigh(scale): "scale < 0". */
ND_API nd_status nd_random_rayleigh(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double scale, nd_device dev);
/** nd_random_rayleigh with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_rayleigh_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *scale);
/** Cauchy(loc, scale) (NumPy's standard_cauchy is loc 0, scale 1; the
 *  ratio of two normals): "scale < 0". */
ND_API nd_status nd_random_cauchy(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double loc, double scale, nd_device dev);
/** nd_random_cauchy with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_cauchy_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *loc, const nd_array *scale);
/** von Mises(mu, kappa) on [-pi, pi]: "kappa < 0". */
ND_API nd_status nd_random_vonmises(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double mu, double kappa, nd_device dev);
/** nd_random_vonmises with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_vonmises_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *mu, const nd_array *kappa);
/** Normal(mean, std) restricted to [low, high] (absolute bounds, either
 *  may be infinite; torch.nn.init.trunc_normal_'s parameters, SciPy's
 *  truncnorm with a = (low - mean) / std): "std <= 0", "low >= high",
 *  "mean and std must be finite", and NaN bounds are refused. */
ND_API nd_status nd_random_truncated_normal(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double mean, double std, double low, double high, nd_device dev);
/** nd_random_truncated_normal with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_truncated_normal_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *mean, const nd_array *std, const nd_array *low, const nd_array *high);
/** Binomial(n, p) counts (inversion for n min(p, 1-p) <= 30, else BTPE):
 *  "n < 0", "p < 0, p > 1 or p is NaN"; n up to 2^53. */
ND_API nd_status nd_random_binomial(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, int64_t n, double p, nd_device dev);
/** nd_random_binomial with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_binomial_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *n, const nd_array *p);
/** Poisson(lam) counts (inversion below 10, PTRS above): "lam < 0",
 *  "lam is NaN", "lam value too large" (above about 9.2e18, as NumPy). */
ND_API nd_status nd_random_poisson(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double lam, nd_device dev);
/** nd_random_poisson with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_poisson_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *lam);
/** Geometric(p): trials up to the first success (>= 1):
 *  "p <= 0, p > 1 or p contains NaNs". */
ND_API nd_status nd_random_geometric(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double p, nd_device dev);
/** nd_random_geometric with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_geometric_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *p);
/** Negative binomial(n, p): failures before the n-th success (n real > 0;
 *  Poisson(Gamma(n, (1-p)/p))): "n <= 0", "p <= 0, p > 1 or p contains NaNs". */
ND_API nd_status nd_random_negative_binomial(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double n, double p, nd_device dev);
/** nd_random_negative_binomial with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_negative_binomial_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *n, const nd_array *p);
/** Hypergeometric(ngood, nbad, nsample): good items among nsample drawn
 *  without replacement: "ngood < 0", "nbad < 0", "nsample < 0",
 *  "ngood + nbad < nsample"; ngood + nbad up to 2^53. */
ND_API nd_status nd_random_hypergeometric(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, int64_t ngood, int64_t nbad, int64_t nsample, nd_device dev);
/** nd_random_hypergeometric with one array per parameter, broadcast together (THE TWO FORMS). */
ND_API nd_status nd_random_hypergeometric_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *ngood, const nd_array *nbad, const nd_array *nsample);
/** Multinomial(n, pvals): rows of k counts summing to n, result shape
 *  shape + (k,) on pvals' device (pvals: 1-D float array of k >= 1
 *  probabilities; the last is implied as in NumPy); dtype an integer dtype:
 *  "n < 0", "pvals < 0, pvals > 1 or pvals contains NaNs",
 *  "sum(pvals[:-1]) > 1.0"; ND_ERR_SHAPE for pvals not 1-D or empty. */
ND_API nd_status nd_random_multinomial(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, int64_t n, const nd_array *pvals);
/** Dirichlet(alpha): rows of k values summing to 1, shape + (k,) on
 *  alpha's device (alpha 1-D float, k >= 1): "alpha <= 0",
 *  "alpha contains NaNs"; ND_ERR_SHAPE for alpha not 1-D or empty. */
ND_API nd_status nd_random_dirichlet(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, const nd_array *alpha);
/** Multivariate normal(mean (d,), cov (d, d)): rows mean + L z with L the
 *  Cholesky factor of cov (nd_linalg_cholesky, computed on the host so that
 *  every device uses the same L; NumPy's method="cholesky"), shape + (d,)
 *  on mean's device: ND_ERR_SHAPE "mean must be 1 dimensional", "cov must
 *  be 2 dimensional and square", "mean and cov must have same length";
 *  ND_ERR_INVALID "cov is not positive definite" (a semi-definite cov is
 *  refused). */
ND_API nd_status nd_random_multivariate_normal(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, const nd_array *mean, const nd_array *cov);
/** Shuffle a in place along axis (NumPy's Generator.shuffle(x, axis)): the
 *  subarrays along axis are reordered by nd_random_permutation(a.shape[axis])
 *  (so the offset advances by that many blocks; the same order on every
 *  device). ND_ERR_INVALID for a 0-d a or a read-only / broadcast a
 *  (a stride-0 axis), ND_ERR_SHAPE for a bad axis (negative counts from
 *  the end). */
ND_API nd_status nd_random_shuffle(nd_rng *rng, nd_array *a, int axis);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_RANDOM_H */
