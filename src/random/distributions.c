/* The random distributions of include/ndgpu/random.h beyond uniform and
 * normal: parameter checks (NumPy's messages), broadcasting of parameter
 * arrays, then one call of the backend's random slot with a distribution
 * of src/shared/philox_dist.h, whose per-element function both backends
 * run (so every device gives the same values). */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h"
#include "core/out.h"
#include "core/prof.h"
#include "random/random_impl.h"
#include "shared/philox_dist.h"

/* The names and parameters of the scalar distributions. */
typedef struct dist_info {
    const char *name, *name_array, *prof;
    int np;
    const char *pn[4];
    unsigned ints; /* parameters that are integers (bit m) */
} dist_info;

#define D(id, nm, np, ints, ...) \
    [id - ND_RANDOM_DIST_FIRST] = {"nd_random_" nm, "nd_random_" nm "_array", "random_" nm, np, {__VA_ARGS__}, ints}
static const dist_info INFO[ND_RANDOM_DIST_END - ND_RANDOM_DIST_FIRST] = {
    D(ND_RANDOM_EXPONENTIAL, "exponential", 1, 0, "scale"),
    D(ND_RANDOM_GAMMA, "gamma", 2, 0, "shape", "scale"),
    D(ND_RANDOM_BETA, "beta", 2, 0, "a", "b"),
    D(ND_RANDOM_CHISQUARE, "chisquare", 1, 0, "df"),
    D(ND_RANDOM_STANDARD_T, "standard_t", 1, 0, "df"),
    D(ND_RANDOM_F, "f", 2, 0, "dfnum", "dfden"),
    D(ND_RANDOM_LOGNORMAL, "lognormal", 2, 0, "mean", "sigma"),
    D(ND_RANDOM_LAPLACE, "laplace", 2, 0, "loc", "scale"),
    D(ND_RANDOM_LOGISTIC, "logistic", 2, 0, "loc", "scale"),
    D(ND_RANDOM_GUMBEL, "gumbel", 2, 0, "loc", "scale"),
    D(ND_RANDOM_WEIBULL, "weibull", 1, 0, "a"),
    D(ND_RANDOM_PARETO, "pareto", 1, 0, "a"),
    D(ND_RANDOM_RAYLEIGH, "rayleigh", 1, 0, "scale"),
    D(ND_RANDOM_CAUCHY, "cauchy", 2, 0, "loc", "scale"),
    D(ND_RANDOM_VONMISES, "vonmises", 2, 0, "mu", "kappa"),
    D(ND_RANDOM_TRUNCATED_NORMAL, "truncated_normal", 4, 0, "mean", "std", "low", "high"),
    D(ND_RANDOM_BINOMIAL, "binomial", 2, 1u, "n", "p"),
    D(ND_RANDOM_POISSON, "poisson", 1, 0, "lam"),
    D(ND_RANDOM_GEOMETRIC, "geometric", 1, 0, "p"),
    D(ND_RANDOM_NEGATIVE_BINOMIAL, "negative_binomial", 2, 0, "n", "p"),
    D(ND_RANDOM_HYPERGEOMETRIC, "hypergeometric", 3, 7u, "ngood", "nbad", "nsample"),
    D(ND_RANDOM_MULTINOMIAL, "multinomial", 1, 1u, "n"),
    D(ND_RANDOM_DIRICHLET, "dirichlet", 0, 0, NULL),
    D(ND_RANDOM_MVNORMAL, "multivariate_normal", 0, 0, NULL),
};
#undef D

#define INT_PARAM_MAX 9007199254740992.0 /* 2^53: integer parameters travel as doubles */

/* x < 0 as NumPy's checks see it: -0.0 is negative, NaN is not. */
static bool negative(double x) { return x < 0 || (x == 0 && signbit(x)); }

/* The domain of one parameter set: NULL when valid, else NumPy's message. */
static const char *check_params(int dist, const double *p)
{
    switch (dist) {
    case ND_RANDOM_EXPONENTIAL:
    case ND_RANDOM_RAYLEIGH: return negative(p[0]) ? "scale < 0" : NULL;
    case ND_RANDOM_GAMMA: return negative(p[0]) ? "shape < 0" : negative(p[1]) ? "scale < 0" : NULL;
    case ND_RANDOM_BETA: return p[0] <= 0 ? "a <= 0" : p[1] <= 0 ? "b <= 0" : NULL;
    case ND_RANDOM_CHISQUARE:
    case ND_RANDOM_STANDARD_T: return p[0] <= 0 ? "df <= 0" : NULL;
    case ND_RANDOM_F: return p[0] <= 0 ? "dfnum <= 0" : p[1] <= 0 ? "dfden <= 0" : NULL;
    case ND_RANDOM_LOGNORMAL: return negative(p[1]) ? "sigma < 0" : NULL;
    case ND_RANDOM_LAPLACE:
    case ND_RANDOM_LOGISTIC:
    case ND_RANDOM_GUMBEL:
    case ND_RANDOM_CAUCHY: return negative(p[1]) ? "scale < 0" : NULL;
    case ND_RANDOM_WEIBULL: return negative(p[0]) ? "a < 0" : NULL;
    case ND_RANDOM_PARETO: return p[0] <= 0 ? "a <= 0" : NULL;
    case ND_RANDOM_VONMISES: return negative(p[1]) ? "kappa < 0" : NULL;
    case ND_RANDOM_TRUNCATED_NORMAL:
        if (!isfinite(p[0]) || !isfinite(p[1])) return "mean and std must be finite";
        if (p[1] <= 0) return "std <= 0";
        if (isnan(p[2]) || isnan(p[3])) return "low and high must not be NaN";
        return p[2] >= p[3] ? "low >= high" : NULL;
    case ND_RANDOM_BINOMIAL:
        if (p[0] < 0) return "n < 0";
        if (p[0] > INT_PARAM_MAX) return "n > 2**53";
        return !(p[1] >= 0 && p[1] <= 1) ? "p < 0, p > 1 or p is NaN" : NULL;
    case ND_RANDOM_POISSON:
        if (negative(p[0])) return "lam < 0";
        if (isnan(p[0])) return "lam is NaN";
        return p[0] > ND_RD_POISSON_LAM_MAX ? "lam value too large" : NULL;
    case ND_RANDOM_GEOMETRIC: return !(p[0] > 0 && p[0] <= 1) ? "p <= 0, p > 1 or p contains NaNs" : NULL;
    case ND_RANDOM_NEGATIVE_BINOMIAL:
        if (!(p[0] > 0)) return "n <= 0";
        return !(p[1] > 0 && p[1] <= 1) ? "p <= 0, p > 1 or p contains NaNs" : NULL;
    case ND_RANDOM_HYPERGEOMETRIC:
        if (p[0] < 0) return "ngood < 0";
        if (p[1] < 0) return "nbad < 0";
        if (p[2] < 0) return "nsample < 0";
        if (p[0] + p[1] > INT_PARAM_MAX) return "ngood + nbad > 2**53";
        return p[0] + p[1] < p[2] ? "ngood + nbad < nsample" : NULL;
    default: return NULL;
    }
}

static bool continuous_values(int dist) { return !nd_rdist_is_discrete(dist); }

static nd_status check_dtype(const char *F, int dist, nd_dtype dtype)
{
    if (!nd__dtype_valid(dtype)) return nd__err(ND_ERR_DTYPE, F, "invalid dtype value %d", (int)dtype);
    if (continuous_values(dist) && !nd__is_float(dtype))
        return nd__err(ND_ERR_DTYPE, F, "dtype %s is not a real floating dtype (float16, bfloat16, float32 or float64)",
                       nd_dtype_name(dtype));
    if (!continuous_values(dist) && !nd__is_integer(dtype))
        return nd__err(ND_ERR_DTYPE, F, "dtype %s is not an integer dtype (int8 ... uint64)", nd_dtype_name(dtype));
    return ND_OK;
}

/* Fill a result of (ndim, shape) (rows: shape ends with the row length
 * call->k) with the distribution on dev, through the out-transaction;
 * the offset advances by the number of elements (rows) on success. */
static nd_status launch(const char *F, nd_array **out, nd_rng *rng, int dist, nd_dtype dtype, int ndim,
                        const int64_t *shape, nd_philox_call *call, nd_device dev)
{
    int64_t size;
    nd_status st = nd__check_shape(F, ndim, shape, dtype, &size);
    if (st != ND_OK) return st;
    if ((st = nd__check_device(F, dev)) != ND_OK) return st;
    const nd_backend *be = nd__backend(dev);
    if (!be || !be->random) return nd__err(ND_ERR_UNSUPPORTED, F, "the device's backend has no random generator");
    const int64_t n = nd_rdist_is_row(dist) ? (call->k > 0 ? size / call->k : 0) : size;
    call->seed = rng->seed;
    call->offset = rng->offset;
    call->n = n;
    call->epb = 1;
    const nd_dtype kdt = nd_rdist_is_discrete(dist) ? ND_INT64 : ND_FLOAT64;
    nd_out t;
    if ((st = nd__out_begin(&t, F, out, dtype, ndim, shape, dev))) return st;
    st = nd__out_target(&t, kdt, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 0, NULL);
    if (st == ND_OK && size > 0) st = be->random(t.dst, dist, call);
    if ((st = nd__out_end(&t, st))) return st;
    rng->offset += (uint64_t)n;
    return ND_OK;
}

/* The scalar form. */
static nd_status dist_scalar(int dist, nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape,
                             const double *p, nd_device dev)
{
    const dist_info *in = &INFO[dist - ND_RANDOM_DIST_FIRST];
    const char *F = in->name;
    ND_PROF_OP_ON(in->prof, out, dev);
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, rng, "rng");
    nd_status st = check_dtype(F, dist, dtype);
    if (st != ND_OK) return st;
    const char *bad = check_params(dist, p);
    if (bad) return nd__err(ND_ERR_INVALID, F, "%s", bad);
    nd_philox_call call;
    memset(&call, 0, sizeof call);
    for (int m = 0; m < 4; m++) call.ps[m] = p[m];
    nd_rdist_plan(&call, dist);
    return launch(F, out, rng, dist, dtype, ndim, shape, &call, dev);
}

/* The array form: the parameters broadcast to one shape, copied to the
 * host as doubles and checked there, then (for another device) copied to
 * the arrays' device; element i reads parameter m at pa[m][i]. */
static nd_status dist_array(int dist, nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *const *pa)
{
    const dist_info *in = &INFO[dist - ND_RANDOM_DIST_FIRST];
    const char *F = in->name_array;
    ND_PROF_OP_N(in->prof, out, in->np, pa);
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, rng, "rng");
    for (int m = 0; m < in->np; m++) ND_CHECK_PTR(F, pa[m], in->pn[m]);
    nd_status st = check_dtype(F, dist, dtype);
    if (st != ND_OK) return st;
    const nd_device dev = pa[0]->device;
    int bnd = 0;
    int64_t bshape[ND_MAX_DIMS];
    for (int m = 0; m < in->np; m++) {
        const nd_array *a = pa[m];
        if (a->device.type != dev.type || a->device.id != dev.id)
            return nd__err(ND_ERR_DEVICE, F, "%s is on another device than %s", in->pn[m], in->pn[0]);
        if (nd__is_complex(a->dtype) || a->dtype == ND_BOOL)
            return nd__err(ND_ERR_DTYPE, F, "%s has dtype %s; a real number dtype is needed", in->pn[m],
                           nd_dtype_name(a->dtype));
        if ((in->ints >> m & 1u) && !nd__is_integer(a->dtype))
            return nd__err(ND_ERR_DTYPE, F, "%s has dtype %s; an integer dtype is needed (NumPy casts it safely to int64)",
                           in->pn[m], nd_dtype_name(a->dtype));
        if (m == 0) {
            bnd = a->ndim;
            memcpy(bshape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
        } else if ((st = nd__broadcast_shapes(F, bnd, bshape, a->ndim, a->shape, &bnd, bshape)) != ND_OK) {
            return st;
        }
    }
    int64_t n = 1;
    for (int d = 0; d < bnd; d++) n *= bshape[d];
    nd_array *host[4] = {NULL, NULL, NULL, NULL}, *dv[4] = {NULL, NULL, NULL, NULL};
    nd_philox_call call;
    memset(&call, 0, sizeof call);
    for (int m = 0; m < in->np && st == ND_OK; m++) {
        nd_array *h = NULL, *v = NULL;
        st = nd_to_device(&h, pa[m], nd_cpu());
        if (st == ND_OK) st = nd__broadcast_view(&v, h, bnd, bshape);
        if (st == ND_OK) st = nd_astype(&host[m], v, ND_FLOAT64);
        if (st == ND_OK && !nd_is_contiguous(host[m])) {
            nd_array *c = NULL;
            st = nd_contiguous(&c, host[m]);
            nd_release(host[m]);
            host[m] = c;
        }
        nd_release(h);
        nd_release(v);
    }
    const double *hp[4] = {NULL, NULL, NULL, NULL};
    if (st != ND_OK) {
        st = nd__err_prefix(st, F);
        goto done;
    }
    for (int m = 0; m < in->np; m++) hp[m] = (const double *)nd__ptr(host[m]);
    for (int64_t i = 0; i < n; i++) {
        double p[4] = {0, 0, 0, 0};
        for (int m = 0; m < in->np; m++) p[m] = hp[m][i];
        const char *bad = check_params(dist, p);
        if (bad) {
            st = nd__err(ND_ERR_INVALID, F, "%s", bad);
            goto done;
        }
    }
    for (int m = 0; m < in->np && st == ND_OK; m++) {
        if (dev.type == ND_DEVICE_CPU) call.pa[m] = hp[m];
        else if ((st = nd_to_device(&dv[m], host[m], dev)) == ND_OK) call.pa[m] = (const double *)nd__ptr(dv[m]);
        else st = nd__err_prefix(st, F);
    }
    if (st == ND_OK) st = launch(F, out, rng, dist, dtype, bnd, bshape, &call, dev);
done:
    for (int m = 0; m < 4; m++) nd_release(host[m]), nd_release(dv[m]);
    return st;
}

/* ------------------------------------------------------------------ */
/* The named scalar distributions                                      */
/* ------------------------------------------------------------------ */

#define DIST1(name, ID, a)                                                                                            \
    nd_status nd_random_##name(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, double a, \
                               nd_device dev)                                                                         \
    {                                                                                                                 \
        const double pv_[4] = {a, 0, 0, 0};                                                                           \
        return dist_scalar(ID, out, rng, dtype, ndim, shape, pv_, dev);                                               \
    }                                                                                                                 \
    nd_status nd_random_##name##_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *a)                \
    {                                                                                                                 \
        const nd_array *pa[4] = {a, NULL, NULL, NULL};                                                                \
        return dist_array(ID, out, rng, dtype, pa);                                                                   \
    }
#define DIST2(name, ID, T0, a, b)                                                                                     \
    nd_status nd_random_##name(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, T0 a,     \
                               double b, nd_device dev)                                                               \
    {                                                                                                                 \
        const double pv_[4] = {(double)a, b, 0, 0};                                                                   \
        return dist_scalar(ID, out, rng, dtype, ndim, shape, pv_, dev);                                               \
    }                                                                                                                 \
    nd_status nd_random_##name##_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *a,                \
                                       const nd_array *b)                                                             \
    {                                                                                                                 \
        const nd_array *pa[4] = {a, b, NULL, NULL};                                                                   \
        return dist_array(ID, out, rng, dtype, pa);                                                                   \
    }

DIST1(exponential, ND_RANDOM_EXPONENTIAL, scale)
DIST2(gamma, ND_RANDOM_GAMMA, double, k, scale)
DIST2(beta, ND_RANDOM_BETA, double, a, b)
DIST1(chisquare, ND_RANDOM_CHISQUARE, df)
DIST1(standard_t, ND_RANDOM_STANDARD_T, df)
DIST2(f, ND_RANDOM_F, double, dfnum, dfden)
DIST2(lognormal, ND_RANDOM_LOGNORMAL, double, mean, sigma)
DIST2(laplace, ND_RANDOM_LAPLACE, double, loc, scale)
DIST2(logistic, ND_RANDOM_LOGISTIC, double, loc, scale)
DIST2(gumbel, ND_RANDOM_GUMBEL, double, loc, scale)
DIST1(weibull, ND_RANDOM_WEIBULL, a)
DIST1(pareto, ND_RANDOM_PARETO, a)
DIST1(rayleigh, ND_RANDOM_RAYLEIGH, scale)
DIST2(cauchy, ND_RANDOM_CAUCHY, double, loc, scale)
DIST2(vonmises, ND_RANDOM_VONMISES, double, mu, kappa)
DIST2(binomial, ND_RANDOM_BINOMIAL, int64_t, n, p)
DIST1(poisson, ND_RANDOM_POISSON, lam)
DIST1(geometric, ND_RANDOM_GEOMETRIC, p)
DIST2(negative_binomial, ND_RANDOM_NEGATIVE_BINOMIAL, double, n, p)

nd_status nd_random_truncated_normal(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape,
                                     double mean, double std, double low, double high, nd_device dev)
{
    const double p[4] = {mean, std, low, high};
    return dist_scalar(ND_RANDOM_TRUNCATED_NORMAL, out, rng, dtype, ndim, shape, p, dev);
}
nd_status nd_random_truncated_normal_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *mean,
                                           const nd_array *std, const nd_array *low, const nd_array *high)
{
    const nd_array *pa[4] = {mean, std, low, high};
    return dist_array(ND_RANDOM_TRUNCATED_NORMAL, out, rng, dtype, pa);
}
nd_status nd_random_hypergeometric(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape,
                                   int64_t ngood, int64_t nbad, int64_t nsample, nd_device dev)
{
    const double p[4] = {(double)ngood, (double)nbad, (double)nsample, 0};
    return dist_scalar(ND_RANDOM_HYPERGEOMETRIC, out, rng, dtype, ndim, shape, p, dev);
}
nd_status nd_random_hypergeometric_array(nd_array **out, nd_rng *rng, nd_dtype dtype, const nd_array *ngood,
                                         const nd_array *nbad, const nd_array *nsample)
{
    const nd_array *pa[4] = {ngood, nbad, nsample, NULL};
    return dist_array(ND_RANDOM_HYPERGEOMETRIC, out, rng, dtype, pa);
}

/* ------------------------------------------------------------------ */
/* Row distributions                                                   */
/* ------------------------------------------------------------------ */

/* A 1-D real vector parameter as k host doubles (malloc'd). */
static nd_status host_vector(const char *F, const nd_array *v, const char *name, double **out, int64_t *k)
{
    if (v->ndim != 1 || v->shape[0] < 1)
        return nd__err(ND_ERR_SHAPE, F, "%s must be 1-dimensional and not empty (got %d dimensions)", name, v->ndim);
    if (nd__is_complex(v->dtype) || v->dtype == ND_BOOL)
        return nd__err(ND_ERR_DTYPE, F, "%s has dtype %s; a real number dtype is needed", name, nd_dtype_name(v->dtype));
    nd_array *h = NULL, *c = NULL;
    nd_status st = nd_to_device(&h, v, nd_cpu());
    if (st == ND_OK) st = nd_astype(&c, h, ND_FLOAT64);
    double *buf = st == ND_OK ? (double *)nd__malloc(sizeof(double) * (size_t)v->shape[0]) : NULL;
    if (st == ND_OK && !buf) st = nd__err(ND_ERR_NOMEM, F, "out of host memory");
    if (st == ND_OK) st = nd_copy_to_host(buf, c, sizeof(double) * (size_t)v->shape[0]);
    nd_release(h), nd_release(c);
    if (st != ND_OK) {
        nd__free(buf);
        return st == ND_ERR_NOMEM ? st : nd__err_prefix(st, F);
    }
    *out = buf;
    *k = v->shape[0];
    return ND_OK;
}

/* Result shape = shape + (k,), filled with rows of dist, vec copied to dev. */
static nd_status rows(const char *F, int dist, nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim,
                      const int64_t *shape, double n, const double *vec, int64_t nvec, int64_t k, nd_device dev)
{
    if (ndim < 0 || ndim >= ND_MAX_DIMS)
        return nd__err(ND_ERR_INVALID, F, "ndim %d is out of range (0 ... %d with the row axis)", ndim, ND_MAX_DIMS - 1);
    if (ndim > 0 && !shape) return nd__err(ND_ERR_INVALID, F, "argument 'shape' is NULL");
    int64_t rshape[ND_MAX_DIMS];
    for (int d = 0; d < ndim; d++) rshape[d] = shape[d];
    rshape[ndim] = k;
    nd_array *dv = NULL;
    nd_status st = nd_from_host(&dv, vec, ND_FLOAT64, 1, &nvec, dev);
    if (st != ND_OK) return nd__err_prefix(st, F);
    nd_philox_call call;
    memset(&call, 0, sizeof call);
    call.ps[0] = n;
    call.k = k;
    call.vec = (const double *)nd__ptr(dv);
    st = launch(F, out, rng, dist, dtype, ndim + 1, rshape, &call, dev);
    nd_release(dv);
    return st;
}

nd_status nd_random_multinomial(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape, int64_t n,
                                const nd_array *pvals)
{
    static const char *const F = "nd_random_multinomial";
    ND_PROF_OP("random_multinomial", out, pvals);
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, rng, "rng");
    ND_CHECK_PTR(F, pvals, "pvals");
    nd_status st = check_dtype(F, ND_RANDOM_MULTINOMIAL, dtype);
    if (st != ND_OK) return st;
    if (n < 0) return nd__err(ND_ERR_INVALID, F, "n < 0");
    if ((double)n > INT_PARAM_MAX) return nd__err(ND_ERR_INVALID, F, "n > 2**53");
    double *pv = NULL;
    int64_t k = 0;
    if ((st = host_vector(F, pvals, "pvals", &pv, &k)) != ND_OK) return st;
    double sum = 0, comp = 0; /* Kahan, as NumPy's check */
    for (int64_t j = 0; j < k && st == ND_OK; j++) {
        if (!(pv[j] >= 0 && pv[j] <= 1)) st = nd__err(ND_ERR_INVALID, F, "pvals < 0, pvals > 1 or pvals contains NaNs");
        if (j + 1 < k) {
            double y = pv[j] - comp, t = sum + y;
            comp = (t - sum) - y;
            sum = t;
        }
    }
    if (st == ND_OK && sum > 1.0 + 1e-12) st = nd__err(ND_ERR_INVALID, F, "sum(pvals[:-1]) > 1.0");
    if (st == ND_OK) st = rows(F, ND_RANDOM_MULTINOMIAL, out, rng, dtype, ndim, shape, (double)n, pv, k, k, pvals->device);
    nd__free(pv);
    return st;
}

nd_status nd_random_dirichlet(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape,
                              const nd_array *alpha)
{
    static const char *const F = "nd_random_dirichlet";
    ND_PROF_OP("random_dirichlet", out, alpha);
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, rng, "rng");
    ND_CHECK_PTR(F, alpha, "alpha");
    nd_status st = check_dtype(F, ND_RANDOM_DIRICHLET, dtype);
    if (st != ND_OK) return st;
    double *av = NULL;
    int64_t k = 0;
    if ((st = host_vector(F, alpha, "alpha", &av, &k)) != ND_OK) return st;
    for (int64_t j = 0; j < k && st == ND_OK; j++) {
        if (isnan(av[j])) st = nd__err(ND_ERR_INVALID, F, "alpha contains NaNs");
        else if (av[j] <= 0) st = nd__err(ND_ERR_INVALID, F, "alpha <= 0");
    }
    if (st == ND_OK) st = rows(F, ND_RANDOM_DIRICHLET, out, rng, dtype, ndim, shape, 0.0, av, k, k, alpha->device);
    nd__free(av);
    return st;
}

nd_status nd_random_multivariate_normal(nd_array **out, nd_rng *rng, nd_dtype dtype, int ndim, const int64_t *shape,
                                        const nd_array *mean, const nd_array *cov)
{
    static const char *const F = "nd_random_multivariate_normal";
    ND_PROF_OP("random_multivariate_normal", out, mean, cov);
    ND_CHECK_PTR(F, out, "out");
    ND_CHECK_PTR(F, rng, "rng");
    ND_CHECK_PTR(F, mean, "mean");
    ND_CHECK_PTR(F, cov, "cov");
    nd_status st = check_dtype(F, ND_RANDOM_MVNORMAL, dtype);
    if (st != ND_OK) return st;
    if (mean->ndim != 1) return nd__err(ND_ERR_SHAPE, F, "mean must be 1 dimensional");
    if (cov->ndim != 2 || cov->shape[0] != cov->shape[1])
        return nd__err(ND_ERR_SHAPE, F, "cov must be 2 dimensional and square");
    if (mean->shape[0] != cov->shape[0]) return nd__err(ND_ERR_SHAPE, F, "mean and cov must have same length");
    if (mean->shape[0] < 1) return nd__err(ND_ERR_SHAPE, F, "mean must not be empty");
    if (nd__is_complex(cov->dtype) || cov->dtype == ND_BOOL)
        return nd__err(ND_ERR_DTYPE, F, "cov has dtype %s; a real number dtype is needed", nd_dtype_name(cov->dtype));
    const int64_t d = mean->shape[0];
    double *mv = NULL, *vec = NULL;
    int64_t k = 0;
    if ((st = host_vector(F, mean, "mean", &mv, &k)) != ND_OK) return st;
    nd_array *ch = NULL, *c64 = NULL, *l = NULL;
    vec = (double *)nd__malloc(sizeof(double) * (size_t)(d + d * d));
    if (!vec) st = nd__err(ND_ERR_NOMEM, F, "out of host memory");
    if (st == ND_OK) st = nd_to_device(&ch, cov, nd_cpu());
    if (st == ND_OK) st = nd_astype(&c64, ch, ND_FLOAT64);
    if (st == ND_OK) {
        memcpy(vec, mv, sizeof(double) * (size_t)d);
        st = nd_copy_to_host(vec + d, c64, sizeof(double) * (size_t)(d * d));
    }
    for (int64_t j = 0; st == ND_OK && j < d + d * d; j++)
        if (!isfinite(vec[j])) st = nd__err(ND_ERR_INVALID, F, "mean and cov must be finite");
    if (st == ND_OK) {
        st = nd_linalg_cholesky(&l, c64, false);
        if (st == ND_ERR_INVALID) st = nd__err(ND_ERR_INVALID, F, "cov is not positive definite");
        else if (st != ND_OK) st = nd__err_prefix(st, F);
    }
    if (st == ND_OK) st = nd_copy_to_host(vec + d, l, sizeof(double) * (size_t)(d * d));
    if (st == ND_OK) st = rows(F, ND_RANDOM_MVNORMAL, out, rng, dtype, ndim, shape, 0.0, vec, d + d * d, d, mean->device);
    nd_release(ch), nd_release(c64), nd_release(l);
    nd__free(mv);
    nd__free(vec);
    return st;
}

/* ------------------------------------------------------------------ */
/* Shuffle                                                             */
/* ------------------------------------------------------------------ */

nd_status nd_random_shuffle(nd_rng *rng, nd_array *a, int axis)
{
    static const char *const F = "nd_random_shuffle";
    ND_PROF_OP("random_shuffle", NULL, a);
    ND_CHECK_PTR(F, rng, "rng");
    ND_CHECK_PTR(F, a, "a");
    if (a->ndim == 0) return nd__err(ND_ERR_INVALID, F, "a must have at least one dimension");
    if (axis < -a->ndim || axis >= a->ndim)
        return nd__err(ND_ERR_SHAPE, F, "axis %d is out of bounds for array of dimension %d", axis, a->ndim);
    if (axis < 0) axis += a->ndim;
    nd_status st = nd__out_check_writable(F, a, "a");
    if (st != ND_OK) return st;
    const uint64_t off0 = rng->offset;
    nd_array *p = NULL, *t = NULL, *dst = a;
    st = nd_random_permutation(&p, rng, a->shape[axis], a->device);
    if (st == ND_OK) st = nd_take(&t, a, p, axis, ND_TAKE_RAISE);
    if (st == ND_OK) st = nd_copy(&dst, t);
    nd_release(p);
    nd_release(t);
    if (st != ND_OK) {
        rng->offset = off0;
        return nd__err_prefix(st, F);
    }
    return ND_OK;
}
