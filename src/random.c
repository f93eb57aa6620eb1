/* Counter-based random numbers (Philox4x32-10). The generator is a seed
 * and a stream position; the numbers themselves are defined in
 * src/philox.h and computed by the backend of the output's device. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "out.h"
#include "philox.h"
#include "prof.h"

struct nd_rng {
    uint64_t seed;
    uint64_t offset; /* in 128-bit Philox blocks */
};

nd_status nd_rng_create(nd_rng **rng, uint64_t seed)
{
    ND_CHECK_PTR("nd_rng_create", rng, "rng");
    nd_rng *r = (nd_rng *)nd__malloc(sizeof *r);
    if (!r) return nd__err(ND_ERR_NOMEM, "nd_rng_create", "out of host memory (%zu bytes)", sizeof *r);
    r->seed = seed;
    r->offset = 0;
    *rng = r;
    return ND_OK;
}

void nd_rng_destroy(nd_rng *rng) { nd__free(rng); }

uint64_t nd_rng_offset(const nd_rng *rng) { return rng ? rng->offset : 0; }

nd_status nd_rng_set_offset(nd_rng *rng, uint64_t offset)
{
    ND_CHECK_PTR("nd_rng_set_offset", rng, "rng");
    rng->offset = offset;
    return ND_OK;
}

/* Shared body of the distributions. Parameters are validated by the
 * callers except the common ones (pointers, dtype, shape, device); the
 * call's description (src/philox.h) is made here, once, on the host, and
 * the backend fills the result with it. iparams: low and span for
 * ND_RANDOM_INTEGERS. */
static nd_status random_fill(const char *func, nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim,
                             const int64_t *shape, int dist, double p0, double p1, int64_t ilow, uint64_t ispan,
                             nd_device dev)
{
    int64_t n;
    nd_status st = nd__check_shape(func, ndim, shape, dtype, &n);
    if (st != ND_OK) return st;
    st = nd__check_device(func, dev);
    if (st != ND_OK) return st;
    const nd_backend *be = nd__backend(dev);
    if (!be || !be->random) return nd__err(ND_ERR_UNSUPPORTED, func, "the device's backend has no random generator");

    nd_philox_call call =
        dist == ND_RANDOM_INTEGERS
            ? nd_philox_call_init_int(rng->seed, rng->offset, n, ilow, ispan)
            : nd_philox_call_init(nd_philox_class_of(dtype), dist, rng->seed, rng->offset, n, p0, p1);
    nd_out t;
    if ((st = nd__out_begin(&t, func, out, dtype, ndim, shape, dev))) return st;
    /* Generate straight into the result when it is a contiguous array of
     * the requested dtype, else into a temporary that is then cast. */
    st = nd__out_target(&t, dtype, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 0, NULL);
    if (st == ND_OK && n > 0) st = be->random(t.dst, dist, &call);
    if ((st = nd__out_end(&t, st))) return st;
    rng->offset += (uint64_t)nd_philox_call_blocks(&call);
    return ND_OK;
}

static nd_status check_common(const char *func, nd_array **out, nd_rng *rng, nd_dtype dtype)
{
    ND_CHECK_PTR(func, out, "out");
    ND_CHECK_PTR(func, rng, "rng");
    if (!nd__dtype_valid(dtype)) return nd__err(ND_ERR_DTYPE, func, "invalid dtype value %d", (int)dtype);
    if (!nd__is_float(dtype))
        return nd__err(ND_ERR_DTYPE, func, "dtype %s is not a floating dtype (float16, bfloat16, float32 or float64)",
                       nd_dtype_name(dtype));
    return ND_OK;
}

nd_status nd_random_uniform(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double low,
                            double high, nd_device dev)
{
    ND_PROF_OP_ON("random_uniform", out, dev);
    static const char *const F = "nd_random_uniform";
    nd_status st = check_common(F, out, rng, dtype);
    if (st != ND_OK) return st;
    if (!isfinite(low) || !isfinite(high))
        return nd__err(ND_ERR_INVALID, F, "low (%g) and high (%g) must be finite", low, high);
    if (low > high) return nd__err(ND_ERR_INVALID, F, "low (%g) is greater than high (%g)", low, high);
    if (!isfinite(high - low))
        return nd__err(ND_ERR_INVALID, F, "high - low range exceeds valid bounds (low %g, high %g)", low, high);
    double mx = nd__dtype_max(dtype);
    if (fabs(low) > mx || fabs(high) > mx)
        return nd__err(ND_ERR_INVALID, F, "low (%g) or high (%g) is out of range for %s", low, high,
                       nd_dtype_name(dtype));
    return random_fill(F, out, rng, dtype, ndim, shape, ND_RANDOM_UNIFORM, low, high, 0, 0, dev);
}

nd_status nd_random_normal(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double mean,
                           double stddev, nd_device dev)
{
    ND_PROF_OP_ON("random_normal", out, dev);
    static const char *const F = "nd_random_normal";
    nd_status st = check_common(F, out, rng, dtype);
    if (st != ND_OK) return st;
    if (!isfinite(mean) || !isfinite(stddev))
        return nd__err(ND_ERR_INVALID, F, "mean (%g) and stddev (%g) must be finite", mean, stddev);
    if (stddev < 0) return nd__err(ND_ERR_INVALID, F, "stddev (%g) must be non-negative", stddev);
    return random_fill(F, out, rng, dtype, ndim, shape, ND_RANDOM_NORMAL, mean, stddev, 0, 0, dev);
}

/* The range of an integer dtype (bool: [0, 1]) as int64; uint64's top is
 * capped at INT64_MAX (the bounds are int64 parameters). */
static void int_range(nd_dtype t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case ND_BOOL: *lo = 0, *hi = 1; break;
    case ND_INT8: *lo = INT8_MIN, *hi = INT8_MAX; break;
    case ND_UINT8: *lo = 0, *hi = UINT8_MAX; break;
    case ND_INT16: *lo = INT16_MIN, *hi = INT16_MAX; break;
    case ND_UINT16: *lo = 0, *hi = UINT16_MAX; break;
    case ND_INT32: *lo = INT32_MIN, *hi = INT32_MAX; break;
    case ND_UINT32: *lo = 0, *hi = UINT32_MAX; break;
    case ND_UINT64: *lo = 0, *hi = INT64_MAX; break;
    default: *lo = INT64_MIN, *hi = INT64_MAX; break;
    }
}

nd_status nd_random_integers(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, int64_t low,
                             int64_t high, nd_device dev)
{
    ND_PROF_OP_ON("random_integers", out, dev);
    static const char *const F = "nd_random_integers";
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, rng, "rng");
    if (!nd__dtype_valid(dtype)) return nd__err(ND_ERR_DTYPE, F, "invalid dtype value %d", (int)dtype);
    if (nd__is_float(dtype) || nd__is_complex(dtype))
        return nd__err(ND_ERR_DTYPE, F, "dtype %s is not an integer dtype (bool or int8 ... uint64)",
                       nd_dtype_name(dtype));
    /* NumPy's Generator.integers: ValueError "high <= low", "low is out of
     * bounds for int8", "high is out of bounds for int8" (high exclusive) */
    if (high <= low) return nd__err(ND_ERR_INVALID, F, "high <= low (low %lld, high %lld)", (long long)low, (long long)high);
    int64_t tlo, thi;
    int_range(dtype, &tlo, &thi);
    if (low < tlo) return nd__err(ND_ERR_INVALID, F, "low %lld is out of bounds for %s", (long long)low, nd_dtype_name(dtype));
    if (high - 1 > thi)
        return nd__err(ND_ERR_INVALID, F, "high %lld is out of bounds for %s", (long long)high, nd_dtype_name(dtype));
    uint64_t span = (uint64_t)high - (uint64_t)low;
    return random_fill(F, out, rng, dtype, ndim, shape, ND_RANDOM_INTEGERS, 0, 0, low, span, dev);
}

/* bernoulli = (u < p) with u the float64 uniform [0, 1) stream (53 bits),
 * so p = 0 is never and p = 1 always true, and an array of probabilities
 * gives exactly what a scalar of the same value gives. Composed from
 * nd_random_uniform and the comparison, so it runs on every backend with
 * the same bits. */
static nd_status bernoulli(const char *func, nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim,
                           const int64_t *shape, const nd_array *p, double ps, nd_device dev)
{
    if (!nd__dtype_valid(dtype)) return nd__err(ND_ERR_DTYPE, func, "invalid dtype value %d", (int)dtype);
    uint64_t off0 = rng->offset;
    nd_array *u = NULL, *mask = NULL;
    nd_status st = nd_random_uniform(&u, rng, ND_FLOAT64, ndim, shape, 0.0, 1.0, dev);
    if (st != ND_OK) return nd__err(st, func, "%s", nd_last_error());
    /* a given *out takes the comparison's bool result under the out rule
     * (shape, device; bool casts to every dtype); a fresh one is bool or
     * converted to dtype */
    nd_array **dst = *out ? out : &mask;
    if (p) st = nd_less(dst, u, p);
    else st = nd_binary_scalar(dst, ND_BINARY_LESS, u, nd_scalar_float(ps));
    if (st == ND_OK && !*out) {
        if (dtype == ND_BOOL) *out = mask, mask = NULL;
        else st = nd_astype(out, mask, dtype);
    }
    nd_release(u);
    nd_release(mask);
    if (st != ND_OK) {
        rng->offset = off0; /* the offset advances only on success */
        return nd__err(st, func, "%s", nd_last_error());
    }
    return ND_OK;
}

nd_status nd_random_bernoulli(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double p,
                              nd_device dev)
{
    ND_PROF_OP_ON("random_bernoulli", out, dev);
    static const char *const F = "nd_random_bernoulli";
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, rng, "rng");
    if (!(p >= 0.0 && p <= 1.0)) return nd__err(ND_ERR_INVALID, F, "p (%g) must be in [0, 1]", p);
    return bernoulli(F, out, rng, dtype, ndim, shape, NULL, p, dev);
}

nd_status nd_random_bernoulli_array(nd_array **out, nd_rng *rng, const nd_array *p, nd_dtype dtype)
{
    ND_PROF_OP("random_bernoulli", out, p); /* the array form of random_bernoulli */
    static const char *const F = "nd_random_bernoulli_array";
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, rng, "rng");
    ND_CHECK_PTR(F, p, "p");
    if (!nd__is_float(p->dtype))
        return nd__err(ND_ERR_DTYPE, F, "p has dtype %s; probabilities must be a float dtype", nd_dtype_name(p->dtype));
    return bernoulli(F, out, rng, dtype, p->ndim, p->shape, p, 0.0, p->device);
}
