/* Counter-based random numbers (Philox4x32-10). The generator is a seed
 * and a stream position; the numbers themselves are defined in
 * src/philox.h and computed by the backend of the output's device. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "out.h"
#include "philox.h"

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

/* Shared body of the two distributions. Parameters are validated by the
 * callers except the common ones (pointers, dtype, shape, device). */
static nd_status random_fill(const char *func, nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim,
                             const int64_t *shape, int dist, double p0, double p1, nd_device dev)
{
    int64_t n;
    nd_status st = nd__check_shape(func, ndim, shape, dtype, &n);
    if (st != ND_OK) return st;
    st = nd__check_device(func, dev);
    if (st != ND_OK) return st;
    const nd_backend *be = nd__backend(dev);
    if (!be || !be->random) return nd__err(ND_ERR_UNSUPPORTED, func, "the device's backend has no random generator");

    nd_out t;
    if ((st = nd__out_begin(&t, func, out, dtype, ndim, shape, dev))) return st;
    /* Generate straight into the result when it is a contiguous array of
     * the requested dtype, else into a temporary that is then cast. */
    st = nd__out_target(&t, dtype, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 0, NULL);
    if (st == ND_OK && n > 0) st = be->random(t.dst, dist, rng->seed, rng->offset, p0, p1);
    if ((st = nd__out_end(&t, st))) return st;
    rng->offset += (uint64_t)nd_philox_num_blocks(n, nd_philox_class_of(dtype));
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
    return random_fill(F, out, rng, dtype, ndim, shape, ND_RANDOM_UNIFORM, low, high, dev);
}

nd_status nd_random_normal(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double mean,
                           double stddev, nd_device dev)
{
    static const char *const F = "nd_random_normal";
    nd_status st = check_common(F, out, rng, dtype);
    if (st != ND_OK) return st;
    if (!isfinite(mean) || !isfinite(stddev))
        return nd__err(ND_ERR_INVALID, F, "mean (%g) and stddev (%g) must be finite", mean, stddev);
    if (stddev < 0) return nd__err(ND_ERR_INVALID, F, "stddev (%g) must be non-negative", stddev);
    return random_fill(F, out, rng, dtype, ndim, shape, ND_RANDOM_NORMAL, mean, stddev, dev);
}
