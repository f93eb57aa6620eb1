/* nd_random_permutation, nd_random_permutation_of and nd_random_choice:
 * compositions of the Philox generators (src/random/random.c) with argsort,
 * searchsorted and take, so they run on every backend and give the same
 * values on each for a seed:
 *  - a permutation is the stable argsort of n int64 keys drawn by
 *    nd_random_integers over the whole int64 range (128-bit draws, one
 *    Philox block per key); equal keys (probability about n^2 / 2^65) keep
 *    their index order;
 *  - choice with replacement: uniform indices (nd_random_integers), or with
 *    probabilities NumPy's Generator.choice method: cdf = cumsum(p) /
 *    sum(p) (computed on the host, sequentially, in double: the same bits
 *    whatever the device), u = float64 uniform [0, 1), index =
 *    searchsorted(cdf, u, side="right"), so a zero probability is never
 *    picked;
 *  - without replacement: the first k of a permutation, or with
 *    probabilities the Efraimidis-Spirakis keys log(1 - u_i) / p_i
 *    (weighted sampling without replacement, in order of selection),
 *    computed on the host with the generator's own log (src/shared/philox.h,
 *    identical everywhere) from the float64 uniform stream, the k largest
 *    taken (ties by lower index). NumPy's own algorithm for this case
 *    loops on the data; the distribution is the same (successive
 *    sampling), the values are not NumPy's (no generator here is).
 * Probabilities go through the host in both p cases: they are validated
 * there as NumPy does (1-D, population length, non-negative, finite,
 * summing to 1 within sqrt(float64 eps)). */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "core/out.h"
#include "shared/philox.h"
#include "core/prof.h"

/* argsort of n random int64 keys: an int64 permutation of [0, n) on dev */
static nd_status permutation(const char *func, nd_array **perm, nd_rng *rng, int64_t n, nd_device dev)
{
    nd_array *keys = NULL;
    nd_status st = nd_random_integers(&keys, rng, ND_INT64, 1, &n, INT64_MIN, INT64_MAX, dev);
    if (st == ND_OK) st = nd_argsort(perm, keys, 0, ND_SORT_STABLE);
    nd_release(keys);
    return st == ND_OK ? ND_OK : nd__err_prefix(st, func);
}

nd_status nd_random_permutation(nd_array **out, nd_rng *rng, int64_t n, nd_device dev)
{
    ND_PROF_OP_ON("random_permutation", out, dev);
    static const char *const F = "nd_random_permutation";
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, rng, "rng");
    if (n < 0) return nd__err(ND_ERR_INVALID, F, "n (%lld) must be non-negative", (long long)n);
    uint64_t off0 = nd_rng_offset(rng);
    nd_array *p = NULL;
    nd_status st = permutation(F, &p, rng, n, dev);
    if (st == ND_OK) st = nd__out_deliver(F, out, &p, p->dtype, 0);
    if (st != ND_OK) nd_rng_set_offset(rng, off0);
    return st;
}

nd_status nd_random_permutation_of(nd_array **out, nd_rng *rng, const nd_array *a)
{
    ND_PROF_OP("random_permutation_of", out, a);
    static const char *const F = "nd_random_permutation_of";
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, rng, "rng");
    ND_CHECK_PTR(F, a, "a");
    if (a->ndim == 0) return nd__err(ND_ERR_INVALID, F, "a must have at least one dimension (NumPy: x must be an integer or at least 1-dimensional)");
    uint64_t off0 = nd_rng_offset(rng);
    nd_array *p = NULL, *r = NULL;
    nd_status st = permutation(F, &p, rng, a->shape[0], a->device);
    if (st == ND_OK) st = nd_take(&r, a, p, 0, ND_TAKE_RAISE);
    nd_release(p);
    if (st == ND_OK) st = nd__out_deliver(F, out, &r, r->dtype, 0);
    else nd__err_prefix(st, F);
    if (st != ND_OK) nd_rng_set_offset(rng, off0);
    return st;
}

/* p (1-D float, population length) to the host as doubles, validated as
 * NumPy's Generator.choice does. *nonzero: the count of p > 0. */
static nd_status host_probabilities(const char *func, const nd_array *p, int64_t npop, double **out, int64_t *nonzero)
{
    if (p->ndim != 1) return nd__err(ND_ERR_SHAPE, func, "p must be 1-dimensional (it has %d dimensions)", p->ndim);
    if (p->shape[0] != npop)
        return nd__err(ND_ERR_SHAPE, func, "a and p must have same size (%lld and %lld)", (long long)npop,
                       (long long)p->shape[0]);
    if (!nd__is_float(p->dtype))
        return nd__err(ND_ERR_DTYPE, func, "p has dtype %s; probabilities must be a float dtype", nd_dtype_name(p->dtype));
    nd_array *h = NULL;
    nd_status st = nd_to_device(&h, p, nd_cpu());
    nd_array *h64 = NULL;
    if (st == ND_OK) st = nd_astype(&h64, h, ND_FLOAT64);
    nd_release(h);
    if (st != ND_OK) return nd__err_prefix(st, func);
    double *v = (double *)nd__malloc((size_t)(npop > 0 ? npop : 1) * sizeof *v);
    if (!v) {
        nd_release(h64);
        return nd__err(ND_ERR_NOMEM, func, "out of host memory (%lld probabilities)", (long long)npop);
    }
    st = nd_copy_to_host(v, h64, (size_t)npop * sizeof *v);
    nd_release(h64);
    if (st != ND_OK) {
        nd__free(v);
        return nd__err_prefix(st, func);
    }
    double sum = 0;
    int64_t nz = 0;
    for (int64_t i = 0; i < npop; i++) {
        if (!isfinite(v[i])) {
            nd__free(v);
            return nd__err(ND_ERR_INVALID, func, "probabilities are not finite (p[%lld] = %g)", (long long)i, v[i]);
        }
        if (v[i] < 0) {
            nd__free(v);
            return nd__err(ND_ERR_INVALID, func, "probabilities are not non-negative (p[%lld] = %g)", (long long)i, v[i]);
        }
        sum += v[i];
        nz += v[i] > 0;
    }
    if (fabs(sum - 1.0) > 1.4901161193847656e-08) { /* NumPy: sqrt(eps) of float64 */
        nd__free(v);
        return nd__err(ND_ERR_INVALID, func, "probabilities do not sum to 1 (they sum to %.17g)", sum);
    }
    *out = v;
    *nonzero = nz;
    return ND_OK;
}

typedef struct {
    double key;
    int64_t i;
} es_key;

static int es_cmp(const void *x, const void *y)
{
    const es_key *a = (const es_key *)x, *b = (const es_key *)y;
    if (a->key != b->key) return a->key > b->key ? -1 : 1; /* larger first */
    return a->i < b->i ? -1 : a->i > b->i;
}

/* The k indices (int64, host) of weighted sampling without replacement. */
static nd_status es_indices(const char *func, nd_rng *rng, const double *p, int64_t npop, int64_t k, int64_t **idx)
{
    nd_array *u = NULL;
    nd_status st = nd_random_uniform(&u, rng, ND_FLOAT64, 1, &npop, 0.0, 1.0, nd_cpu());
    if (st != ND_OK) return nd__err_prefix(st, func);
    const double *uv = (const double *)nd_data(u);
    es_key *keys = (es_key *)nd__malloc((size_t)(npop > 0 ? npop : 1) * sizeof *keys);
    int64_t *r = (int64_t *)nd__malloc((size_t)(k > 0 ? k : 1) * sizeof *r);
    if (!keys || !r) {
        nd__free(keys);
        nd__free(r);
        nd_release(u);
        return nd__err(ND_ERR_NOMEM, func, "out of host memory (%lld keys)", (long long)npop);
    }
    for (int64_t i = 0; i < npop; i++) {
        keys[i].i = i;
        /* 1 - u is exact and in (0, 1]: log is finite and <= 0 */
        keys[i].key = p[i] > 0 ? nd_philox_div(nd_philox_log(nd_philox_sub(1.0, uv[i])), p[i]) : -INFINITY;
    }
    qsort(keys, (size_t)npop, sizeof *keys, es_cmp);
    for (int64_t j = 0; j < k; j++) r[j] = keys[j].i;
    nd__free(keys);
    nd_release(u);
    *idx = r;
    return ND_OK;
}

nd_status nd_random_choice(nd_array **out, nd_rng *rng, const nd_array *a, int64_t n, int ndim, const int64_t *shape,
                           bool replace, const nd_array *p, nd_device dev)
{
    ND_PROF_OP("random_choice", out, a, p);
    if (!a) ND_PROF_DEVICE(dev); /* choice from arange(n) */
    static const char *const F = "nd_random_choice";
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, rng, "rng");
    int64_t k;
    nd_status st = nd__check_shape(F, ndim, shape, ND_INT64, &k);
    if (st != ND_OK) return st;
    if (a) {
        if (a->ndim == 0) return nd__err(ND_ERR_INVALID, F, "a must be 1-dimensional or an integer (a is 0-d)");
        n = a->shape[0];
        dev = a->device;
    } else if (n < 0) {
        return nd__err(ND_ERR_INVALID, F, "a must be a positive integer unless no samples are taken (n = %lld)", (long long)n);
    }
    if ((st = nd__check_device(F, dev))) return st;
    if (p && (p->device.type != dev.type || p->device.id != dev.id)) {
        char b1[32], b2[32];
        return nd__err(ND_ERR_DEVICE, F, "p is on %s, the population on %s", nd__device_name(p->device, b1, sizeof b1),
                       nd__device_name(dev, b2, sizeof b2));
    }
    if (n == 0 && k > 0) return nd__err(ND_ERR_INVALID, F, "a cannot be empty unless no samples are taken");
    if (!replace && k > n)
        return nd__err(ND_ERR_INVALID, F, "Cannot take a larger sample (%lld) than population (%lld) when replace is False",
                       (long long)k, (long long)n);
    double *pv = NULL;
    int64_t nonzero = 0;
    if (p && (st = host_probabilities(F, p, n, &pv, &nonzero))) return st;
    if (p && !replace && nonzero < k) {
        nd__free(pv);
        return nd__err(ND_ERR_INVALID, F, "Fewer non-zero entries in p (%lld) than size (%lld)", (long long)nonzero,
                       (long long)k);
    }

    uint64_t off0 = nd_rng_offset(rng);
    nd_array *idx = NULL, *flat = NULL, *tmp = NULL;
    if (k == 0 || n == 0) {
        st = nd_zeros(&idx, ND_INT64, ndim, shape, dev);
    } else if (replace && !p) {
        st = nd_random_integers(&idx, rng, ND_INT64, ndim, shape, 0, n, dev);
    } else if (replace) {
        /* NumPy: cdf = p.cumsum(); cdf /= cdf[-1]; cdf.searchsorted(u, side='right') */
        for (int64_t i = 1; i < n; i++) pv[i] += pv[i - 1];
        double total = pv[n - 1];
        for (int64_t i = 0; i < n; i++) pv[i] /= total;
        nd_array *cdf = NULL, *u = NULL;
        st = nd_from_host(&cdf, pv, ND_FLOAT64, 1, &n, dev);
        if (st == ND_OK) st = nd_random_uniform(&u, rng, ND_FLOAT64, ndim, shape, 0.0, 1.0, dev);
        if (st == ND_OK) st = nd_searchsorted(&idx, cdf, u, ND_SIDE_RIGHT);
        nd_release(cdf);
        nd_release(u);
    } else if (!p) {
        st = permutation(F, &tmp, rng, n, dev);
        nd_range r = {0, k, 1};
        if (st == ND_OK) st = nd_slice(&flat, tmp, 1, &r);
        if (st == ND_OK) st = nd_reshape(&idx, flat, ndim, shape);
    } else {
        int64_t *hidx = NULL;
        st = es_indices(F, rng, pv, n, k, &hidx);
        if (st == ND_OK) st = nd_from_host(&idx, hidx, ND_INT64, ndim, shape, dev);
        nd__free(hidx);
    }
    nd__free(pv);
    nd_release(flat);
    nd_release(tmp);
    nd_array *res = NULL;
    if (st == ND_OK && a) {
        st = nd_take(&res, a, idx, 0, ND_TAKE_RAISE);
        nd_release(idx);
    } else {
        res = idx;
    }
    if (st == ND_OK) st = nd__out_deliver(F, out, &res, res->dtype, 0);
    else nd_release(res);
    if (st != ND_OK) {
        nd_rng_set_offset(rng, off0);
        if (!strstr(nd_last_error(), F)) nd__err_prefix(st, F);
    }
    return st;
}
