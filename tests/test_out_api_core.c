/* Out test adapters (tests/out_api.h): creation, transfers, views and
 * joins, elementwise (the named wrappers come from the op tables, so a new
 * op gets its adapter with its declaration), reductions, products, random
 * numbers, files and DLPack. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out_api.h"

static const int64_t S23[2] = {2, 3};
static const int AX1[1] = {1};

/* ---- creation -------------------------------------------------------- */
OUT_ADAPTER(nd_empty_pinned) { return nd_empty_pinned(o, ND_FLOAT64, 2, S23); }
OUT_ADAPTER(nd_empty) { return nd_empty(o, ND_FLOAT64, 2, S23, f->dev); }
OUT_ADAPTER(nd_zeros) { return nd_zeros(o, ND_FLOAT64, 2, S23, f->dev); }
OUT_ADAPTER(nd_ones) { return nd_ones(o, ND_INT32, 2, S23, f->dev); }
OUT_ADAPTER(nd_full) { return nd_full(o, ND_FLOAT64, 2, S23, nd_scalar_float(2.5), f->dev); }
OUT_ADAPTER(nd_arange) { return nd_arange(o, ND_FLOAT64, 1, 7, 1.5, f->dev); }
OUT_ADAPTER(nd_arange_scalar)
{
    return nd_arange_scalar(o, ND_INT64, nd_scalar_int(3), nd_scalar_int(19), nd_scalar_int(4), f->dev);
}
OUT_ADAPTER(nd_linspace) { return nd_linspace(o, ND_FLOAT64, -1, 2, 7, true, f->dev); }
OUT_ADAPTER(nd_eye) { return nd_eye(o, ND_FLOAT32, 3, 4, 1, f->dev); }
OUT_ADAPTER(nd_empty_like) { return nd_empty_like(o, f->a); }
OUT_ADAPTER(nd_zeros_like) { return nd_zeros_like(o, f->ia); }
OUT_ADAPTER(nd_ones_like) { return nd_ones_like(o, f->a); }
OUT_ADAPTER(nd_from_host)
{
    static const double v[6] = {1, -2, 3.5, 4, 5, 6.25};
    return nd_from_host(o, v, ND_FLOAT64, 2, S23, f->dev);
}
OUT_ADAPTER(nd_copy) { return nd_copy(o, f->a); }
OUT_ADAPTER(nd_astype) { return nd_astype(o, f->ia, ND_FLOAT32); }
OUT_ADAPTER(nd_to_device) { return nd_to_device(o, f->a, f->dev); }
OUT_ADAPTER(nd_empty_managed) { return nd_empty_managed(o, ND_FLOAT64, 2, S23, f->dev); }
OUT_ADAPTER(nd_managed_view) { return nd_managed_view(o, f->a, f->dev); } /* its own device: a view */

/* ---- views and joins ------------------------------------------------- */
OUT_ADAPTER(nd_reshape) { return nd_reshape(o, f->a, 2, (const int64_t[]){3, 2}); }
OUT_ADAPTER(nd_transpose) { return nd_transpose(o, f->a, NULL); }
OUT_ADAPTER(nd_slice)
{
    const nd_range r[2] = {ND_ALL, {2, ND_NONE, -1}};
    return nd_slice(o, f->a, 2, r);
}
OUT_ADAPTER(nd_basic_index)
{
    const nd_index_item it[3] = {{ND_INDEX_SLICE, ND_NONE, ND_NONE, -1}, {ND_INDEX_NEWAXIS, 0, 0, 0}, {ND_INDEX_INT, -1, 0, 0}};
    return nd_basic_index(o, f->a, 3, it);
}
OUT_ADAPTER(nd_squeeze) { return nd_squeeze(o, f->idx21, 1, AX1); }
OUT_ADAPTER(nd_expand_dims) { return nd_expand_dims(o, f->a, 1); }
OUT_ADAPTER(nd_broadcast_to) { return nd_broadcast_to(o, f->v3, 2, S23); }
OUT_ADAPTER(nd_contiguous)
{
    nd_array *t = NULL; /* a transposed view: the copy is real work */
    nd_status st = nd_transpose(&t, f->a, NULL);
    if (st == ND_OK) st = nd_contiguous(o, t);
    nd_release(t);
    return st;
}
OUT_ADAPTER(nd_concatenate) { return nd_concatenate(o, 2, (const nd_array *const[]){f->a, f->b}, 0); }
OUT_ADAPTER(nd_stack) { return nd_stack(o, 2, (const nd_array *const[]){f->a, f->b}, 1); }

/* ---- elementwise ----------------------------------------------------- */
OUT_ADAPTER(nd_unary) { return nd_unary(o, ND_UNARY_EXP, f->a); }
OUT_ADAPTER(nd_binary) { return nd_binary(o, ND_BINARY_ADD, f->a, f->b); }
OUT_ADAPTER(nd_binary_scalar) { return nd_binary_scalar(o, ND_BINARY_SUBTRACT, f->a, nd_scalar_float(0.5)); }
OUT_ADAPTER(nd_scalar_binary) { return nd_scalar_binary(o, ND_BINARY_DIVIDE, nd_scalar_int(3), f->a); }
OUT_ADAPTER(nd_where) { return nd_where(o, f->mask, f->a, f->b); }
OUT_ADAPTER(nd_clip) { return nd_clip(o, f->a, f->b, NULL); }
OUT_ADAPTER(nd_clip_scalar) { return nd_clip_scalar(o, f->a, nd_scalar_float(-0.6), nd_scalar_float(2.5)); }
OUT_ADAPTER(nd_expit) { return nd_expit(o, f->a); }
OUT_ADAPTER(nd_gammaln) { return nd_gammaln(o, f->a); }
OUT_ADAPTER(nd_psi) { return nd_psi(o, f->a); }
OUT_ADAPTER(nd_expr_eval)
{
    return nd_expr_eval(o, "where(m, a * b + 0.5, exp(b))", 3, (const char *const[]){"m", "a", "b"},
                        (const nd_array *const[]){f->mask, f->a, f->b});
}

/* The input of a named op: integers for an op without float loops, else
 * a float array inside the op's domain. */
static const nd_array *unary_input(const out_fx *f, const char *name, const char *kinds)
{
    static const char *const unit[] = {"sqrt", "log", "log2", "log10", "log1p", "arcsin", "arccos", "arctanh"};
    if (!strchr(kinds, 'F')) return f->ia;
    if (strcmp(name, "arccosh") == 0) return f->big;
    for (size_t i = 0; i < sizeof unit / sizeof *unit; i++)
        if (strcmp(name, unit[i]) == 0) return f->pos;
    return f->a;
}

static const nd_array *binary_input(const out_fx *f, const char *name, const char *kinds, int which)
{
    if (!strchr(kinds, 'F')) return which ? f->ib : f->ia;
    if (strcmp(name, "ldexp") == 0) return which ? f->ib : f->a;
    if (strcmp(name, "power") == 0 || strcmp(name, "float_power") == 0) return which ? f->b : f->pos;
    return which ? f->b : f->a;
}

#define UNARY_ADAPTER(E, n, k, r) \
    OUT_ADAPTER(nd_##n) { return nd_##n(o, unary_input(f, #n, #k)); }
#define BINARY_ADAPTER(E, n, k, r) \
    OUT_ADAPTER(nd_##n) { return nd_##n(o, binary_input(f, #n, #k, 0), binary_input(f, #n, #k, 1)); }
ND_UNARY_OPS(UNARY_ADAPTER)
ND_BINARY_OPS(BINARY_ADAPTER)

/* ---- reductions and products ----------------------------------------- */
OUT_ADAPTER(nd_reduce) { return nd_reduce(o, ND_REDUCE_SUM, f->a, 1, AX1, false); }
OUT_ADAPTER(nd_reduce_ddof) { return nd_reduce_ddof(o, ND_REDUCE_VAR, f->a, 1, AX1, true, 1.0); }
#define REDUCE_ADAPTER(E, n) \
    OUT_ADAPTER(nd_##n) { return nd_##n(o, f->a, 1, AX1, false); }
ND_REDUCE_OPS(REDUCE_ADAPTER)
OUT_ADAPTER(nd_matmul) { return nd_matmul(o, f->a, f->sq); }
OUT_ADAPTER(nd_dot) { return nd_dot(o, f->a, f->sq); }

/* ---- random numbers: a generator from a fixed seed per call ---------- */
#define WITH_RNG(seed, call)                       \
    do {                                           \
        nd_rng *rng = NULL;                        \
        nd_status st_ = nd_rng_create(&rng, seed); \
        if (st_ == ND_OK) st_ = (call);            \
        nd_rng_destroy(rng);                       \
        return st_;                                \
    } while (0)
OUT_ADAPTER(nd_random_uniform) { WITH_RNG(42, nd_random_uniform(o, rng, ND_FLOAT64, 2, S23, -1, 1, f->dev)); }
OUT_ADAPTER(nd_random_normal) { WITH_RNG(7, nd_random_normal(o, rng, ND_FLOAT32, 2, S23, 1, 2, f->dev)); }
OUT_ADAPTER(nd_random_integers) { WITH_RNG(3, nd_random_integers(o, rng, ND_INT64, 2, S23, -5, 50, f->dev)); }
OUT_ADAPTER(nd_random_bernoulli) { WITH_RNG(5, nd_random_bernoulli(o, rng, ND_FLOAT64, 2, S23, 0.4, f->dev)); }
OUT_ADAPTER(nd_random_bernoulli_array) { WITH_RNG(6, nd_random_bernoulli_array(o, rng, f->prob, ND_INT32)); }
OUT_ADAPTER(nd_random_permutation) { WITH_RNG(8, nd_random_permutation(o, rng, 7, f->dev)); }
OUT_ADAPTER(nd_random_permutation_of) { WITH_RNG(9, nd_random_permutation_of(o, rng, f->a)); }
OUT_ADAPTER(nd_random_choice)
{
    WITH_RNG(10, nd_random_choice(o, rng, NULL, 10, 1, (const int64_t[]){5}, true, NULL, f->dev));
}

/* the distributions: scalar forms of shape (2,3), array forms over the
 * fixture's (2,3) parameters (f->pos in (0, 1), f->ib positive integers) */
#define RD_SCALAR1(nm, dt, x) \
    OUT_ADAPTER(nd_random_##nm) { WITH_RNG(11, nd_random_##nm(o, rng, dt, 2, S23, x, f->dev)); }
#define RD_SCALAR2(nm, dt, x, y) \
    OUT_ADAPTER(nd_random_##nm) { WITH_RNG(12, nd_random_##nm(o, rng, dt, 2, S23, x, y, f->dev)); }
#define RD_ARRAY1(nm, dt, x) \
    OUT_ADAPTER(nd_random_##nm##_array) { WITH_RNG(13, nd_random_##nm##_array(o, rng, dt, x)); }
#define RD_ARRAY2(nm, dt, x, y) \
    OUT_ADAPTER(nd_random_##nm##_array) { WITH_RNG(14, nd_random_##nm##_array(o, rng, dt, x, y)); }
#define RD_BOTH1(nm, dt, x, ax) RD_SCALAR1(nm, dt, x) RD_ARRAY1(nm, dt, ax)
#define RD_BOTH2(nm, dt, x, y, ax, ay) RD_SCALAR2(nm, dt, x, y) RD_ARRAY2(nm, dt, ax, ay)
RD_BOTH1(exponential, ND_FLOAT64, 2.0, f->pos)
RD_BOTH2(gamma, ND_FLOAT32, 2.5, 1.0, f->pos, f->pos)
RD_BOTH2(beta, ND_FLOAT64, 2.0, 3.0, f->pos, f->big)
RD_BOTH1(chisquare, ND_FLOAT64, 3.0, f->pos)
RD_BOTH1(standard_t, ND_FLOAT64, 3.0, f->big)
RD_BOTH2(f, ND_FLOAT64, 3.0, 4.0, f->pos, f->big)
RD_BOTH2(lognormal, ND_FLOAT64, 0.0, 1.0, f->a, f->pos)
RD_BOTH2(laplace, ND_FLOAT64, 0.0, 1.0, f->a, f->pos)
RD_BOTH2(logistic, ND_FLOAT64, 0.0, 1.0, f->a, f->pos)
RD_BOTH2(gumbel, ND_FLOAT64, 0.0, 1.0, f->a, f->pos)
RD_BOTH1(weibull, ND_FLOAT64, 1.5, f->big)
RD_BOTH1(pareto, ND_FLOAT64, 2.0, f->big)
RD_BOTH1(rayleigh, ND_FLOAT64, 2.0, f->pos)
RD_BOTH2(cauchy, ND_FLOAT64, 0.0, 1.0, f->a, f->pos)
RD_BOTH2(vonmises, ND_FLOAT64, 0.5, 2.0, f->a, f->big)
RD_BOTH2(binomial, ND_INT64, 10, 0.4, f->ib, f->prob)
RD_BOTH1(poisson, ND_INT32, 4.0, f->big)
RD_BOTH1(geometric, ND_INT64, 0.3, f->prob)
RD_BOTH2(negative_binomial, ND_INT64, 3.0, 0.5, f->big, f->prob)
OUT_ADAPTER(nd_random_truncated_normal)
{
    WITH_RNG(15, nd_random_truncated_normal(o, rng, ND_FLOAT64, 2, S23, 0.0, 1.0, -1.0, 2.0, f->dev));
}
OUT_ADAPTER(nd_random_truncated_normal_array)
{
    nd_array *high = NULL;
    nd_status st = nd_add(&high, f->a, f->big); /* a + (> 1) > a */
    if (st == ND_OK) {
        nd_rng *rng = NULL;
        st = nd_rng_create(&rng, 16);
        if (st == ND_OK) st = nd_random_truncated_normal_array(o, rng, ND_FLOAT64, f->a, f->pos, f->a, high);
        nd_rng_destroy(rng);
    }
    nd_release(high);
    return st;
}
OUT_ADAPTER(nd_random_hypergeometric)
{
    WITH_RNG(17, nd_random_hypergeometric(o, rng, ND_INT64, 2, S23, 20, 30, 12, f->dev));
}
OUT_ADAPTER(nd_random_hypergeometric_array)
{
    WITH_RNG(18, nd_random_hypergeometric_array(o, rng, ND_INT64, f->ib, f->ib, f->ib));
}
/* the row distributions: (2,3) rows of 3 */
static nd_status with_vector(nd_array **o, const out_fx *f, int which)
{
    static const double pv[3] = {0.2, 0.3, 0.5}, av[3] = {0.5, 1.0, 2.0};
    nd_array *v = NULL;
    nd_rng *rng = NULL;
    nd_status st = nd_from_host(&v, which == 0 ? pv : av, ND_FLOAT64, 1, (const int64_t[]){3}, f->dev);
    if (st == ND_OK) st = nd_rng_create(&rng, 19);
    if (st == ND_OK) {
        if (which == 0) st = nd_random_multinomial(o, rng, ND_INT64, 2, S23, 10, v);
        else if (which == 1) st = nd_random_dirichlet(o, rng, ND_FLOAT64, 2, S23, v);
        else st = nd_random_multivariate_normal(o, rng, ND_FLOAT64, 2, S23, v, f->sq);
    }
    nd_rng_destroy(rng);
    nd_release(v);
    return st;
}
OUT_ADAPTER(nd_random_multinomial) { return with_vector(o, f, 0); }
OUT_ADAPTER(nd_random_dirichlet) { return with_vector(o, f, 1); }
OUT_ADAPTER(nd_random_multivariate_normal) { return with_vector(o, f, 2); }

/* ---- files and DLPack ------------------------------------------------- */
/* a's .npy bytes in a temporary file at path (of at least 32 bytes) */
static nd_status npy_file(const out_fx *f, char *path)
{
    strcpy(path, "/tmp/ndgpu_out_api_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return ND_ERR_IO;
    close(fd);
    nd_status st = nd_save_npy(path, f->a);
    if (st) unlink(path);
    return st;
}
OUT_ADAPTER(nd_load_npy)
{
    char path[32];
    nd_status st = npy_file(f, path);
    if (st) return st;
    st = nd_load_npy(o, path, f->dev);
    unlink(path);
    return st;
}
OUT_ADAPTER(nd_load_npy_buffer)
{
    char path[32];
    nd_status st = npy_file(f, path);
    if (st) return st;
    FILE *fp = fopen(path, "rb");
    unsigned char buf[512];
    size_t n = fp ? fread(buf, 1, sizeof buf, fp) : 0;
    if (fp) fclose(fp);
    unlink(path);
    return n ? nd_load_npy_buffer(o, buf, n, f->dev) : ND_ERR_IO;
}
OUT_ADAPTER(nd_from_dlpack)
{
    DLManagedTensorVersioned *t = NULL;
    nd_status st = nd_to_dlpack(&t, f->a);
    if (st) return st;
    st = nd_from_dlpack(o, t);
    if (st) t->deleter(t); /* not consumed on failure */
    return st;
}
OUT_ADAPTER(nd_from_dlpack_legacy)
{
    DLManagedTensor *t = NULL;
    nd_status st = nd_to_dlpack_legacy(&t, f->b);
    if (st) return st;
    st = nd_from_dlpack_legacy(o, t);
    if (st) t->deleter(t);
    return st;
}
static void out_api_release_ctx(void *ctx) { nd_release((nd_array *)ctx); }
OUT_ADAPTER(nd_from_ptr)
{
    nd_array *a = nd_retain((nd_array *)f->a); /* the deleter releases it */
    nd_status st = nd_from_ptr(o, nd_data(a), nd_dtype_of(a), nd_ndim(a), nd_shape(a), nd_strides(a), nd_device_of(a),
                               out_api_release_ctx, a);
    if (st) nd_release(a); /* not consumed on failure */
    return st;
}

/* ---- the table -------------------------------------------------------- */
#define UNARY_ENTRY(E, n, k, r) OUT_ENTRY(nd_##n, 0),
#define BINARY_ENTRY(E, n, k, r) OUT_ENTRY(nd_##n, 0),
#define REDUCE_ENTRY(E, n) OUT_ENTRY(nd_##n, 0),
const out_api_entry out_api_core[] = {
    OUT_ENTRY(nd_empty_pinned, OUT_UNDEFINED),
    OUT_ENTRY(nd_empty, OUT_UNDEFINED),
    OUT_ENTRY(nd_empty_managed, OUT_UNDEFINED),
    OUT_ENTRY(nd_managed_view, 0),
    OUT_ENTRY(nd_zeros, 0),
    OUT_ENTRY(nd_ones, 0),
    OUT_ENTRY(nd_full, 0),
    OUT_ENTRY(nd_arange, 0),
    OUT_ENTRY(nd_arange_scalar, 0),
    OUT_ENTRY(nd_linspace, 0),
    OUT_ENTRY(nd_eye, 0),
    OUT_ENTRY(nd_empty_like, OUT_UNDEFINED),
    OUT_ENTRY(nd_zeros_like, 0),
    OUT_ENTRY(nd_ones_like, 0),
    OUT_ENTRY(nd_from_host, 0),
    OUT_ENTRY(nd_copy, 0),
    OUT_ENTRY(nd_astype, 0),
    OUT_ENTRY(nd_to_device, 0),
    OUT_ENTRY(nd_reshape, 0),
    OUT_ENTRY(nd_transpose, 0),
    OUT_ENTRY(nd_slice, 0),
    OUT_ENTRY(nd_basic_index, 0),
    OUT_ENTRY(nd_squeeze, 0),
    OUT_ENTRY(nd_expand_dims, 0),
    OUT_ENTRY(nd_broadcast_to, 0),
    OUT_ENTRY(nd_contiguous, 0),
    OUT_ENTRY(nd_concatenate, 0),
    OUT_ENTRY(nd_stack, 0),
    OUT_ENTRY(nd_unary, 0),
    OUT_ENTRY(nd_binary, 0),
    OUT_ENTRY(nd_binary_scalar, 0),
    OUT_ENTRY(nd_scalar_binary, 0),
    OUT_ENTRY(nd_where, 0),
    OUT_ENTRY(nd_clip, 0),
    OUT_ENTRY(nd_clip_scalar, 0),
    OUT_ENTRY(nd_expit, 0),
    OUT_ENTRY(nd_gammaln, 0),
    OUT_ENTRY(nd_psi, 0),
    OUT_ENTRY(nd_expr_eval, 0),
    ND_UNARY_OPS(UNARY_ENTRY)
    ND_BINARY_OPS(BINARY_ENTRY)
    OUT_ENTRY(nd_reduce, 0),
    OUT_ENTRY(nd_reduce_ddof, 0),
    ND_REDUCE_OPS(REDUCE_ENTRY)
    OUT_ENTRY(nd_matmul, 0),
    OUT_ENTRY(nd_dot, 0),
    OUT_ENTRY(nd_random_uniform, 0),
    OUT_ENTRY(nd_random_normal, 0),
    OUT_ENTRY(nd_random_integers, 0),
    OUT_ENTRY(nd_random_bernoulli, 0),
    OUT_ENTRY(nd_random_bernoulli_array, 0),
    OUT_ENTRY(nd_random_exponential, 0),
    OUT_ENTRY(nd_random_exponential_array, 0),
    OUT_ENTRY(nd_random_gamma, 0),
    OUT_ENTRY(nd_random_gamma_array, 0),
    OUT_ENTRY(nd_random_beta, 0),
    OUT_ENTRY(nd_random_beta_array, 0),
    OUT_ENTRY(nd_random_chisquare, 0),
    OUT_ENTRY(nd_random_chisquare_array, 0),
    OUT_ENTRY(nd_random_standard_t, 0),
    OUT_ENTRY(nd_random_standard_t_array, 0),
    OUT_ENTRY(nd_random_f, 0),
    OUT_ENTRY(nd_random_f_array, 0),
    OUT_ENTRY(nd_random_lognormal, 0),
    OUT_ENTRY(nd_random_lognormal_array, 0),
    OUT_ENTRY(nd_random_laplace, 0),
    OUT_ENTRY(nd_random_laplace_array, 0),
    OUT_ENTRY(nd_random_logistic, 0),
    OUT_ENTRY(nd_random_logistic_array, 0),
    OUT_ENTRY(nd_random_gumbel, 0),
    OUT_ENTRY(nd_random_gumbel_array, 0),
    OUT_ENTRY(nd_random_weibull, 0),
    OUT_ENTRY(nd_random_weibull_array, 0),
    OUT_ENTRY(nd_random_pareto, 0),
    OUT_ENTRY(nd_random_pareto_array, 0),
    OUT_ENTRY(nd_random_rayleigh, 0),
    OUT_ENTRY(nd_random_rayleigh_array, 0),
    OUT_ENTRY(nd_random_cauchy, 0),
    OUT_ENTRY(nd_random_cauchy_array, 0),
    OUT_ENTRY(nd_random_vonmises, 0),
    OUT_ENTRY(nd_random_vonmises_array, 0),
    OUT_ENTRY(nd_random_truncated_normal, 0),
    OUT_ENTRY(nd_random_truncated_normal_array, 0),
    OUT_ENTRY(nd_random_binomial, 0),
    OUT_ENTRY(nd_random_binomial_array, 0),
    OUT_ENTRY(nd_random_poisson, 0),
    OUT_ENTRY(nd_random_poisson_array, 0),
    OUT_ENTRY(nd_random_geometric, 0),
    OUT_ENTRY(nd_random_geometric_array, 0),
    OUT_ENTRY(nd_random_negative_binomial, 0),
    OUT_ENTRY(nd_random_negative_binomial_array, 0),
    OUT_ENTRY(nd_random_hypergeometric, 0),
    OUT_ENTRY(nd_random_hypergeometric_array, 0),
    OUT_ENTRY(nd_random_multinomial, 0),
    OUT_ENTRY(nd_random_dirichlet, 0),
    OUT_ENTRY(nd_random_multivariate_normal, 0),
    OUT_ENTRY(nd_random_permutation, 0),
    OUT_ENTRY(nd_random_permutation_of, 0),
    OUT_ENTRY(nd_random_choice, 0),
    OUT_ENTRY(nd_load_npy, 0),
    OUT_ENTRY(nd_load_npy_buffer, 0),
    OUT_ENTRY(nd_from_dlpack, 0),
    OUT_ENTRY(nd_from_dlpack_legacy, 0),
    OUT_ENTRY(nd_from_ptr, 0),
};
const size_t out_api_core_n = sizeof out_api_core / sizeof *out_api_core;
