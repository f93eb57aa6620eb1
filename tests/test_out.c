/* The out rule, once for every public function that takes an 'out'
 * (src/core/out.h, the out-transaction): each function runs with a broadcast
 * out (refused, nothing written), a mismatched out (refused, nothing
 * written), an out that partially overlaps its first input and an out that
 * is exactly its first input (both give the result of a fresh call, as
 * NumPy does). Cases run on nd_default_device(): the CPU in `make test`, the
 * (emulated) GPU in `make emu-test`. */
#include <unistd.h>

#include "test_util.h"

#define MAXIN 3

typedef struct out_case {
    const char *name;
    int nin;
    nd_dtype in_dtype;
    int in_ndim;
    int64_t in_shape[3];
    /* the call; in[] are its inputs (already on the device) */
    nd_status (*run)(nd_array **out, nd_array *const *in, nd_device dev);
    bool undefined_values; /* empty/empty_like: only the checks are tested */
} out_case;

/* ---- the calls ---------------------------------------------------- */
static const int64_t S23[2] = {2, 3};
static nd_status c_zeros(nd_array **o, nd_array *const *in, nd_device d) { (void)in; return nd_zeros(o, ND_FLOAT64, 2, S23, d); }
static nd_status c_ones(nd_array **o, nd_array *const *in, nd_device d) { (void)in; return nd_ones(o, ND_FLOAT64, 2, S23, d); }
static nd_status c_full(nd_array **o, nd_array *const *in, nd_device d) { (void)in; return nd_full(o, ND_FLOAT64, 2, S23, nd_scalar_float(2.5), d); }
static nd_status c_empty(nd_array **o, nd_array *const *in, nd_device d) { (void)in; return nd_empty(o, ND_FLOAT64, 2, S23, d); }
static nd_status c_arange(nd_array **o, nd_array *const *in, nd_device d) { (void)in; return nd_arange(o, ND_FLOAT64, 1, 7, 1, d); }
static nd_status c_arange_s(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)in;
    return nd_arange_scalar(o, ND_INT64, nd_scalar_int(3), nd_scalar_int(9), nd_scalar_int(1), d);
}
static nd_status c_linspace(nd_array **o, nd_array *const *in, nd_device d) { (void)in; return nd_linspace(o, ND_FLOAT64, 0, 1, 6, true, d); }
static nd_status c_eye(nd_array **o, nd_array *const *in, nd_device d) { (void)in; return nd_eye(o, ND_FLOAT64, 3, 3, 0, d); }
static nd_status c_empty_like(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_empty_like(o, in[0]); }
static nd_status c_zeros_like(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_zeros_like(o, in[0]); }
static nd_status c_ones_like(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_ones_like(o, in[0]); }
static nd_status c_from_host(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)in;
    static const double v[6] = {1, -2, 3.5, 4, 5, 6};
    return nd_from_host(o, v, ND_FLOAT64, 2, S23, d);
}
static nd_status c_copy(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_copy(o, in[0]); }
static nd_status c_astype(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_astype(o, in[0], ND_FLOAT64); }
static nd_status c_to_device(nd_array **o, nd_array *const *in, nd_device d) { return nd_to_device(o, in[0], d); }
static nd_status c_reshape(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)d;
    const int64_t s[2] = {3, 2};
    return nd_reshape(o, in[0], 2, s);
}
static nd_status c_transpose(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_transpose(o, in[0], NULL); }
static nd_status c_slice(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)d;
    const nd_range r[2] = {ND_ALL, {2, ND_NONE, -1}};
    return nd_slice(o, in[0], 2, r);
}
static nd_status c_squeeze(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)d;
    nd_array *e = NULL;
    nd_status st = nd_expand_dims(&e, in[0], 0);
    if (st == ND_OK) st = nd_squeeze(o, e, 0, NULL);
    nd_release(e);
    return st;
}
static nd_status c_expand(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_expand_dims(o, in[0], 1); }
static nd_status c_bcast(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)d;
    const int64_t s[3] = {2, 2, 3};
    return nd_broadcast_to(o, in[0], 3, s);
}
static nd_status c_contig(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)d;
    nd_array *t = NULL;
    nd_status st = nd_transpose(&t, in[0], NULL);
    if (st == ND_OK) st = nd_contiguous(o, t);
    nd_release(t);
    return st;
}
static nd_status c_concat(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_concatenate(o, 2, (const nd_array *const *)in, 0); }
static nd_status c_stack(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_stack(o, 2, (const nd_array *const *)in, 1); }
static nd_status c_exp(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_unary(o, ND_UNARY_EXP, in[0]); }
static nd_status c_add(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_binary(o, ND_BINARY_ADD, in[0], in[1]); }
static nd_status c_sub_s(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_binary_scalar(o, ND_BINARY_SUBTRACT, in[0], nd_scalar_float(0.5)); }
static nd_status c_s_div(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_scalar_binary(o, ND_BINARY_DIVIDE, nd_scalar_int(3), in[0]); }
static nd_status c_where(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)d;
    nd_array *c = NULL;
    nd_status st = nd_binary_scalar(&c, ND_BINARY_GREATER, in[0], nd_scalar_int(3));
    if (st == ND_OK) st = nd_where(o, c, in[0], in[1]);
    nd_release(c);
    return st;
}
static nd_status c_clip(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_clip(o, in[0], in[1], NULL); }
static nd_status c_clip_s(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_clip_scalar(o, in[0], nd_scalar_int(2), nd_scalar_float(4.5)); }
static nd_status c_sum(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)d;
    const int ax[1] = {1};
    return nd_reduce(o, ND_REDUCE_SUM, in[0], 1, ax, false);
}
static nd_status c_var(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)d;
    const int ax[1] = {0};
    return nd_reduce_ddof(o, ND_REDUCE_VAR, in[0], 1, ax, true, 1);
}
static nd_status c_argmax(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)d;
    const int ax[1] = {1};
    return nd_reduce(o, ND_REDUCE_ARGMAX, in[0], 1, ax, false);
}
static nd_status c_matmul(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_matmul(o, in[0], in[1]); }
static nd_status c_dot(nd_array **o, nd_array *const *in, nd_device d) { (void)d; return nd_dot(o, in[0], in[1]); }
static nd_status c_uniform(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)in;
    nd_rng *r = NULL;
    nd_status st = nd_rng_create(&r, 42);
    if (st == ND_OK) st = nd_random_uniform(o, r, ND_FLOAT64, 2, S23, -1, 1, d);
    nd_rng_destroy(r);
    return st;
}
static nd_status c_normal(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)in;
    nd_rng *r = NULL;
    nd_status st = nd_rng_create(&r, 7);
    if (st == ND_OK) st = nd_random_normal(o, r, ND_FLOAT64, 2, S23, 0, 1, d);
    nd_rng_destroy(r);
    return st;
}
static nd_status c_npy(nd_array **o, nd_array *const *in, nd_device d)
{
    char path[] = "/tmp/nd_test_out_XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    nd_status st = nd_save_npy(path, in[0]);
    if (st == ND_OK) st = nd_load_npy(o, path, d);
    unlink(path);
    return st;
}
static nd_status c_dlpack(nd_array **o, nd_array *const *in, nd_device d)
{
    (void)d;
    nd_array *c = NULL;
    DLManagedTensorVersioned *t = NULL;
    nd_status st = nd_copy(&c, in[0]); /* a private exporter, so a refused import is ours to delete */
    if (st == ND_OK) st = nd_to_dlpack(&t, c);
    nd_release(c);
    if (st != ND_OK) return st;
    st = nd_from_dlpack(o, t);
    if (st != ND_OK) t->deleter(t);
    return st;
}

#define F64 ND_FLOAT64
static const out_case cases[] = {
    {"zeros", 0, F64, 0, {0}, c_zeros, false},
    {"ones", 0, F64, 0, {0}, c_ones, false},
    {"full", 0, F64, 0, {0}, c_full, false},
    {"empty", 0, F64, 0, {0}, c_empty, true},
    {"arange", 0, F64, 0, {0}, c_arange, false},
    {"arange_scalar", 0, F64, 0, {0}, c_arange_s, false},
    {"linspace", 0, F64, 0, {0}, c_linspace, false},
    {"eye", 0, F64, 0, {0}, c_eye, false},
    {"empty_like", 1, F64, 2, {2, 3}, c_empty_like, true},
    {"zeros_like", 1, F64, 2, {2, 3}, c_zeros_like, false},
    {"ones_like", 1, F64, 2, {2, 3}, c_ones_like, false},
    {"from_host", 0, F64, 0, {0}, c_from_host, false},
    {"copy", 1, F64, 2, {2, 3}, c_copy, false},
    {"astype", 1, ND_FLOAT32, 2, {2, 3}, c_astype, false},
    {"to_device", 1, F64, 2, {2, 3}, c_to_device, false},
    {"reshape", 1, F64, 2, {2, 3}, c_reshape, false},
    {"transpose", 1, F64, 2, {3, 3}, c_transpose, false},
    {"slice", 1, F64, 2, {2, 3}, c_slice, false},
    {"squeeze", 1, F64, 2, {2, 3}, c_squeeze, false},
    {"expand_dims", 1, F64, 2, {2, 3}, c_expand, false},
    {"broadcast_to", 1, F64, 2, {2, 3}, c_bcast, false},
    {"contiguous", 1, F64, 2, {3, 3}, c_contig, false},
    {"concatenate", 2, F64, 2, {2, 3}, c_concat, false},
    {"stack", 2, F64, 2, {2, 3}, c_stack, false},
    {"unary exp", 1, F64, 2, {2, 3}, c_exp, false},
    {"binary add", 2, F64, 2, {2, 3}, c_add, false},
    {"binary_scalar", 1, F64, 2, {2, 3}, c_sub_s, false},
    {"scalar_binary", 1, F64, 2, {2, 3}, c_s_div, false},
    {"where", 2, F64, 2, {2, 3}, c_where, false},
    {"clip", 2, F64, 2, {2, 3}, c_clip, false},
    {"clip_scalar", 1, F64, 2, {2, 3}, c_clip_s, false},
    {"sum", 1, F64, 2, {3, 4}, c_sum, false},
    {"var ddof", 1, F64, 2, {3, 4}, c_var, false},
    {"argmax", 1, ND_INT64, 2, {3, 4}, c_argmax, false},
    {"matmul", 2, F64, 2, {3, 3}, c_matmul, false},
    {"dot", 2, F64, 2, {3, 3}, c_dot, false},
    {"random_uniform", 0, F64, 0, {0}, c_uniform, false},
    {"random_normal", 0, F64, 0, {0}, c_normal, false},
    {"load_npy", 1, F64, 2, {2, 3}, c_npy, false},
    {"from_dlpack", 1, F64, 2, {2, 3}, c_dlpack, false},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* ---- helpers ------------------------------------------------------ */
/* An input with distinct non-zero values (v_i = (i * 5 % 11) + 1 + k). */
static nd_array *make_input(const out_case *c, int k, nd_device dev)
{
    int64_t n = 1;
    for (int i = 0; i < c->in_ndim; i++) n *= c->in_shape[i];
    double *v = malloc(sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++) v[i] = (double)((i * 5) % 11) + 1 + k;
    nd_array *h = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&h, v, ND_FLOAT64, c->in_ndim, c->in_shape, dev));
    ND_OK_OR_FAIL(nd_astype(&r, h, c->in_dtype));
    nd_release(h);
    free(v);
    return r;
}

/* a's values as float64 on the host (caller frees). */
static double *values(const nd_array *a)
{
    nd_array *f = NULL, *h = NULL;
    ND_OK_OR_FAIL(nd_astype(&f, a, ND_FLOAT64));
    ND_OK_OR_FAIL(nd_to_device(&h, f, nd_cpu()));
    size_t n = (size_t)nd_size(a);
    double *v = malloc(sizeof(double) * (n ? n : 1));
    ND_OK_OR_FAIL(nd_copy_to_host(v, h, n * sizeof(double)));
    nd_release(f);
    nd_release(h);
    return v;
}

static void expect_values(const char *what, const out_case *c, const nd_array *got, const double *want, int64_t n)
{
    double *g = values(got);
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(g[i] == want[i] || fabs(g[i] - want[i]) <= 1e-12 * fabs(want[i]), "%s (%s): element %lld is %.17g, want %.17g",
                      c->name, what, (long long)i, g[i], want[i]);
    free(g);
}

/* A refused out: status code and message, the pointer and its values
 * untouched. */
static void expect_refused(const out_case *c, nd_array *const *in, nd_device dev, nd_array *o, nd_status code,
                           const char *needle)
{
    double *before = values(o);
    nd_array *keep = o;
    nd_status st = c->run(&o, in, dev);
    ck_assert_msg(st == code, "%s: %s (want %s): %s", c->name, nd_status_name(st), nd_status_name(code), nd_last_error());
    ck_assert_msg(strstr(nd_last_error(), needle) != NULL, "%s: message '%s' lacks '%s'", c->name, nd_last_error(), needle);
    ck_assert_msg(o == keep, "%s: *out was replaced on failure", c->name);
    expect_values("refused out untouched", c, o, before, nd_size(o));
    free(before);
}

static void run_case(const out_case *c, nd_device dev)
{
    nd_array *in[MAXIN] = {NULL};
    for (int k = 0; k < c->nin; k++) in[k] = make_input(c, k, dev);
    nd_array *ref = NULL;
    ND_OK_OR_FAIL(c->run(&ref, in, dev));
    nd_dtype rdt = nd_dtype_of(ref);
    int rnd = nd_ndim(ref);
    int64_t rshape[ND_MAX_DIMS], rsize = nd_size(ref);
    memcpy(rshape, nd_shape(ref), sizeof(int64_t) * (size_t)rnd);
    double *want = c->undefined_values ? NULL : values(ref);

    /* broadcast out: one element of storage seen through stride 0 */
    if (rsize > 1) {
        nd_array *one = NULL, *b = NULL;
        ND_OK_OR_FAIL(nd_full(&one, rdt, 0, NULL, nd_scalar_int(7), dev));
        ND_OK_OR_FAIL(nd_broadcast_to(&b, one, rnd, rshape));
        expect_refused(c, in, dev, b, ND_ERR_INVALID, "broadcast");
        nd_release(b);
        nd_release(one);
    }
    /* mismatched shape */
    {
        nd_array *m = NULL;
        const int64_t ms[1] = {rsize + 1};
        ND_OK_OR_FAIL(nd_full(&m, rdt, 1, ms, nd_scalar_int(7), dev));
        expect_refused(c, in, dev, m, ND_ERR_SHAPE, "shape");
        nd_release(m);
    }
    /* a user out that passes: a fresh array of the result's dtype */
    if (want) {
        nd_array *o = NULL;
        ND_OK_OR_FAIL(nd_full(&o, rdt, rnd, rshape, nd_scalar_int(7), dev));
        nd_array *keep = o;
        ND_OK_OR_FAIL(c->run(&o, in, dev));
        ck_assert_msg(o == keep, "%s: *out was replaced", c->name);
        expect_values("user out", c, o, want, rsize);
        nd_release(o);
    }
    /* partial overlap: out starts one element into a copy of input 0 */
    if (want && c->nin >= 1 && nd_dtype_of(in[0]) == rdt && nd_size(in[0]) >= rsize + 1) {
        nd_array *flat = NULL, *o = NULL;
        const int64_t fs[1] = {nd_size(in[0])};
        ND_OK_OR_FAIL(nd_reshape(&flat, in[0], 1, fs));
        const nd_range r = {1, rsize + 1, 1};
        nd_array *sl = NULL;
        ND_OK_OR_FAIL(nd_slice(&sl, flat, 1, &r));
        ND_OK_OR_FAIL(nd_reshape(&o, sl, rnd, rshape)); /* a view: sl is contiguous */
        nd_array *keep = o;
        ND_OK_OR_FAIL(c->run(&o, in, dev));
        ck_assert(o == keep);
        expect_values("overlapping out", c, o, want, rsize);
        nd_release(o);
        nd_release(sl);
        nd_release(flat);
        /* the input was overwritten: make it again for the next check */
        nd_release(in[0]);
        in[0] = make_input(c, 0, dev);
    }
    /* exact aliasing: out is input 0 */
    if (want && c->nin >= 1 && nd_dtype_of(in[0]) == rdt && nd_ndim(in[0]) == rnd &&
        memcmp(nd_shape(in[0]), rshape, sizeof(int64_t) * (size_t)rnd) == 0) {
        nd_array *o = in[0];
        ND_OK_OR_FAIL(c->run(&o, in, dev));
        ck_assert(o == in[0]);
        expect_values("aliased out", c, o, want, rsize);
    }
    free(want);
    nd_release(ref);
    for (int k = 0; k < c->nin; k++) nd_release(in[k]);
}

START_TEST(test_out_rule_every_function)
{
    nd_device dev = nd_default_device();
    run_case(&cases[_i], dev);
}
END_TEST

/* nd_gemm updates c in place: a broadcast c is refused too. */
START_TEST(test_out_gemm_broadcast_c)
{
    nd_device dev = nd_default_device();
    nd_array *a = NULL, *one = NULL, *c = NULL;
    const int64_t s[2] = {2, 2};
    ND_OK_OR_FAIL(nd_ones(&a, ND_FLOAT64, 2, s, dev));
    ND_OK_OR_FAIL(nd_full(&one, ND_FLOAT64, 0, NULL, nd_scalar_int(7), dev));
    ND_OK_OR_FAIL(nd_broadcast_to(&c, one, 2, s));
    nd_array *keep = c;
    ND_EXPECT_ERR(nd_gemm(&c, false, false, 1.0, a, a, 1.0), ND_ERR_INVALID, "broadcast");
    ck_assert(c == keep);
    double v = 0;
    ND_OK_OR_FAIL(nd_copy_to_host(&v, one, sizeof v));
    ck_assert(v == 7.0);
    nd_release(c);
    nd_release(one);
    nd_release(a);
}
END_TEST

/* The findings that the transaction fixes: these four returned
 * ND_OK and wrote every result into one element of a broadcast out. */
START_TEST(test_out_broadcast_findings)
{
    nd_device dev = nd_default_device();
    nd_array *a = NULL, *one = NULL, *b = NULL;
    const int64_t s[2] = {2, 3}, s1[1] = {2};
    ND_OK_OR_FAIL(nd_arange(&a, ND_FLOAT32, 1, 7, 1, dev));
    nd_array *m = NULL;
    ND_OK_OR_FAIL(nd_reshape(&m, a, 2, s));
    ND_OK_OR_FAIL(nd_zeros(&one, ND_FLOAT32, 0, NULL, dev));
    ND_OK_OR_FAIL(nd_broadcast_to(&b, one, 1, s1));
    const int ax[1] = {1};
    ND_EXPECT_ERR(nd_reduce(&b, ND_REDUCE_SUM, m, 1, ax, false), ND_ERR_INVALID, "nd_reduce: 'out' is a broadcast view");
    nd_release(b);
    b = NULL;
    ND_OK_OR_FAIL(nd_broadcast_to(&b, one, 2, s));
    ND_EXPECT_ERR(nd_copy(&b, m), ND_ERR_INVALID, "nd_copy: 'out' is a broadcast view");
    ND_EXPECT_ERR(nd_astype(&b, m, ND_FLOAT32), ND_ERR_INVALID, "nd_astype: 'out' is a broadcast view");
    nd_release(b);
    b = NULL;
    const int64_t s22[2] = {2, 2};
    ND_OK_OR_FAIL(nd_broadcast_to(&b, one, 2, s22));
    nd_array *t = NULL;
    ND_OK_OR_FAIL(nd_transpose(&t, m, NULL));
    ND_EXPECT_ERR(nd_matmul(&b, m, t), ND_ERR_INVALID, "nd_matmul: 'out' is a broadcast view");
    ND_EXPECT_ERR(nd_copy_from_host(b, (float[4]){1, 2, 3, 4}, 16), ND_ERR_INVALID, "broadcast");
    float v = 1;
    ND_OK_OR_FAIL(nd_copy_to_host(&v, one, sizeof v));
    ck_assert(v == 0.0f);
    nd_release(t);
    nd_release(b);
    nd_release(one);
    nd_release(m);
    nd_release(a);
}
END_TEST

/* NumPy's order='K' (src/core/out.h, nd__out_keep_order): a fresh elementwise
 * result is laid out like its inputs when they agree on a non-C memory
 * order, and in C order otherwise; its values never depend on the layout. */
static void expect_strides(const nd_array *r, const int64_t *want)
{
    for (int i = 0; i < nd_ndim(r); i++)
        ck_assert_msg(nd_strides(r)[i] == want[i], "axis %d: stride %lld, want %lld", i, (long long)nd_strides(r)[i],
                      (long long)want[i]);
}

START_TEST(test_out_keeps_the_inputs_memory_order)
{
    nd_device dev = nd_default_device();
    const int64_t shp[3] = {3, 4, 5};
    double h[60], g[60];
    for (int i = 0; i < 60; i++) h[i] = 0.25 * (i % 17) - 1.5 + i * 1e-3;
    nd_array *a = NULL, *b = NULL, *at = NULL, *bt = NULL, *c = NULL, *row = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, h, ND_FLOAT64, 3, shp, dev));
    ND_OK_OR_FAIL(nd_from_host(&b, h, ND_FLOAT64, 3, shp, dev));
    const int ax[3] = {2, 0, 1};
    ND_OK_OR_FAIL(nd_transpose(&at, a, ax)); /* shape (5, 3, 4), strides (1, 20, 5) */
    ND_OK_OR_FAIL(nd_transpose(&bt, b, ax));
    const int64_t kst[3] = {1, 20, 5}, cst[3] = {12, 4, 1};
    /* unary: exp(a.T) is laid out like a.T; its values are exp of a.T's */
    ND_OK_OR_FAIL(nd_exp(&r, at));
    expect_strides(r, kst);
    ND_OK_OR_FAIL(nd_copy_to_host(g, r, sizeof g));
    double t[60];
    ND_OK_OR_FAIL(nd_copy_to_host(t, at, sizeof t));
    for (int i = 0; i < 60; i++) ck_assert_double_eq_tol(g[i], exp(t[i]), 1e-15 * exp(t[i]));
    nd_release(r);
    r = NULL;
    /* binary: two inputs in the same order keep it; one C-order input or a
     * broadcast one gives C order */
    ND_OK_OR_FAIL(nd_add(&r, at, bt));
    expect_strides(r, kst);
    ND_OK_OR_FAIL(nd_copy_to_host(g, r, sizeof g));
    for (int i = 0; i < 60; i++) ck_assert_double_eq(g[i], t[i] + t[i]);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_copy(&c, at)); /* a C-order copy of a.T */
    ND_OK_OR_FAIL(nd_add(&r, at, c));
    expect_strides(r, cst);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_slice(&row, c, 1, (nd_range[]){{0, 1, 1}})); /* (1, 3, 4): broadcasts */
    ND_OK_OR_FAIL(nd_multiply(&r, at, row));
    expect_strides(r, cst);
    nd_release(r);
    r = NULL;
    /* where: the three full inputs agree */
    ND_OK_OR_FAIL(nd_greater(&r, at, bt)); /* bool, laid out like a.T */
    expect_strides(r, kst);
    nd_array *w = NULL;
    ND_OK_OR_FAIL(nd_where(&w, r, at, bt));
    expect_strides(w, kst);
    nd_release(w);
    nd_release(r);
    nd_release(row);
    nd_release(c);
    nd_release(bt);
    nd_release(at);
    nd_release(b);
    nd_release(a);
}
END_TEST

Suite *suite_out(void)
{
    Suite *s = suite_create("out");
    TCase *tc = tcase_create("out");
    tcase_add_loop_test(tc, test_out_rule_every_function, 0, NCASES);
    tcase_add_test(tc, test_out_gemm_broadcast_c);
    tcase_add_test(tc, test_out_broadcast_findings);
    tcase_add_test(tc, test_out_keeps_the_inputs_memory_order);
    suite_add_tcase(s, tc);
    return s;
}
