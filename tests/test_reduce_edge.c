/* Reductions: NaN rules, argmax ties, integer wrap-around, empty arrays,
 * the out rule, bad input; and the large cases (accuracy of float sums,
 * determinism across thread counts, multi-unit work splits). */
#include <float.h>
#include <stdio.h>

#include "shared/half.h"
#include "test_reduce.h"

/* ------------------------------------------------------------------ */
/* Generators                                                          */
/* ------------------------------------------------------------------ */
typedef struct {
    int64_t period; /* NaN at i % period == phase */
    int64_t phase;
} nan_gen;

static double gen_nan(int64_t i, void *ctx)
{
    const nan_gen *g = ctx;
    if (g->period > 0 && i % g->period == g->phase) return NAN;
    return (double)((i * 7) % 13) - 6.0;
}

/* Many ties: small range, repeated extremes. */
static double gen_ties(int64_t i, void *ctx)
{
    (void)ctx;
    return (double)((i / 3) % 5);
}

static const int64_t SHAPE3[3] = {3, 4, 5};
static const int AX[4][1] = {{0}, {1}, {2}, {-1}};

START_TEST(test_op_names)
{
    static const char *names[ND_NUM_REDUCE_OPS] = {"sum",    "prod",   "mean", "max", "min", "argmax",
                                                   "argmin", "any", "all",  "var", "std"};
    for (int op = 0; op < ND_NUM_REDUCE_OPS; op++) ck_assert_str_eq(nd_reduce_op_name((nd_reduce_op)op), names[op]);
    ck_assert_ptr_null(nd_reduce_op_name(ND_NUM_REDUCE_OPS));
    ck_assert_ptr_null(nd_reduce_op_name((nd_reduce_op)-1));
}
END_TEST

/* max/min propagate NaN; argmax/argmin return the first NaN; any/all see
 * NaN as true; sum/mean give NaN. Inner, rows and strided paths. */
START_TEST(test_nan)
{
    static const nd_dtype fl[4] = {ND_FLOAT16, ND_BFLOAT16, ND_FLOAT32, ND_FLOAT64};
    static const nd_reduce_op ops[] = {ND_REDUCE_MAX, ND_REDUCE_MIN, ND_REDUCE_ARGMAX, ND_REDUCE_ARGMIN,
                                       ND_REDUCE_ANY, ND_REDUCE_ALL, ND_REDUCE_SUM,    ND_REDUCE_MEAN};
    static const nan_gen gens[] = {{17, 5}, {60, 59}, {60, 0}, {7, 3}};
    static const int64_t shape2[2] = {40, 300};
    for (int t = 0; t < 4; t++)
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
            for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++)
                for (int layout = 0; layout < RT_NUM_LAYOUTS; layout++) {
                    nan_gen ng = gens[g];
                    rt_case_gen(ops[o], fl[t], layout, 3, SHAPE3, -1, NULL, false, 0, false, gen_nan, &ng);
                    for (int k = 0; k < 4; k++)
                        rt_case_gen(ops[o], fl[t], layout, 3, SHAPE3, 1, AX[k], false, 0, false, gen_nan, &ng);
                    ng.period = ng.period * 31 + 1;
                    for (int k = 0; k < 2; k++)
                        rt_case_gen(ops[o], fl[t], layout, 2, shape2, 1, AX[k], true, 0, false, gen_nan, &ng);
                }
    /* any/all of a lone NaN: true */
    double v = NAN;
    int64_t one = 1;
    nd_array *a = rt_array(ND_FLOAT32, 1, &one, &v), *r = NULL;
    ND_OK_OR_FAIL(nd_all(&r, a, 0, NULL, false));
    double *got = rt_fetch(r);
    ck_assert(got[0] == 1);
    free(got);
    nd_release(r);
    nd_release(a);
}
END_TEST

/* argmax/argmin: first occurrence, every layout, inner and rows paths. */
START_TEST(test_arg_ties)
{
    static const int64_t shape2[2] = {50, 260};
    for (nd_dtype t = 0; t < (nd_dtype)NT_NREAL; t++)
        for (int op = ND_REDUCE_ARGMAX; op <= ND_REDUCE_ARGMIN; op++)
            for (int layout = 0; layout < RT_NUM_LAYOUTS; layout++) {
                rt_case_gen((nd_reduce_op)op, t, layout, 3, SHAPE3, -1, NULL, false, 0, false, gen_ties, NULL);
                for (int k = 0; k < 4; k++)
                    rt_case_gen((nd_reduce_op)op, t, layout, 3, SHAPE3, 1, AX[k], k & 1, 0, false, gen_ties, NULL);
                for (int k = 0; k < 2; k++)
                    rt_case_gen((nd_reduce_op)op, t, layout, 2, shape2, 1, AX[k], false, 0, false, gen_ties, NULL);
            }
}
END_TEST

static nd_array *arr_i64(nd_dtype t, int64_t n, const void *data)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, data, t, 1, &n, nd_cpu()));
    return a;
}

static int64_t one_i64(nd_status (*f)(nd_array **, const nd_array *, int, const int *, bool), const nd_array *a)
{
    nd_array *r = NULL;
    ND_OK_OR_FAIL(f(&r, a, 0, NULL, false));
    ck_assert_int_eq(nd_ndim(r), 0);
    ck_assert_uint_eq(nd_dtype_size(nd_dtype_of(r)), 8);
    int64_t v;
    ND_OK_OR_FAIL(nd_copy_to_host(&v, r, 8));
    nd_release(r);
    return v;
}

/* Integer sums and products wrap (int64/uint64, no UB) and stay exact
 * beyond 2^53; narrow ints accumulate in 64 bits. */
START_TEST(test_int_exact)
{
    int64_t w[2] = {INT64_MAX, 1};
    nd_array *a = arr_i64(ND_INT64, 2, w);
    ck_assert(one_i64(nd_sum, a) == INT64_MIN);
    ck_assert(one_i64(nd_max, a) == INT64_MAX);
    ck_assert(one_i64(nd_argmin, a) == 1);
    nd_release(a);
    int64_t big[3] = {((int64_t)1 << 62) + 1, ((int64_t)1 << 62) + 1, -((int64_t)1 << 62)};
    a = arr_i64(ND_INT64, 3, big);
    ck_assert(one_i64(nd_sum, a) == ((int64_t)1 << 62) + 2);
    ck_assert(one_i64(nd_min, a) == -((int64_t)1 << 62));
    nd_release(a);
    int64_t p[2] = {(int64_t)1 << 32, (int64_t)1 << 32};
    a = arr_i64(ND_INT64, 2, p);
    ck_assert(one_i64(nd_prod, a) == 0);
    nd_release(a);
    uint64_t u[2] = {UINT64_MAX, 2};
    a = arr_i64(ND_UINT64, 2, u);
    ck_assert((uint64_t)one_i64(nd_sum, a) == 1);
    ck_assert((uint64_t)one_i64(nd_max, a) == UINT64_MAX);
    ck_assert(one_i64(nd_argmax, a) == 0);
    nd_release(a);
    int8_t s8[4] = {100, 100, 100, -128};
    a = arr_i64(ND_INT8, 4, s8);
    ck_assert(one_i64(nd_sum, a) == 172);
    ck_assert(one_i64(nd_prod, a) == -128000000);
    nd_release(a);
    uint8_t u8[4] = {255, 255, 255, 255};
    a = arr_i64(ND_UINT8, 4, u8);
    ck_assert(one_i64(nd_sum, a) == 1020);
    ck_assert(one_i64(nd_prod, a) == 4228250625LL);
    nd_release(a);
    uint8_t b[5] = {1, 0, 1, 1, 0};
    a = arr_i64(ND_BOOL, 5, b);
    ck_assert(one_i64(nd_sum, a) == 3);
    ck_assert(one_i64(nd_argmin, a) == 1);
    nd_release(a);
}
END_TEST

/* Empty reductions: identities, NaN for mean/var/std, NumPy's errors. */
START_TEST(test_empty)
{
    static const int64_t sh[2] = {2, 0};
    nd_array *a = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_zeros(&a, ND_FLOAT32, 2, sh, nd_cpu()));
    static const nd_reduce_op ops[] = {ND_REDUCE_SUM, ND_REDUCE_PROD, ND_REDUCE_ANY, ND_REDUCE_ALL,
                                       ND_REDUCE_MEAN, ND_REDUCE_VAR, ND_REDUCE_STD};
    static const double want[] = {0, 1, 0, 1, NAN, NAN, NAN};
    int ax1 = 1;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        r = NULL;
        ND_OK_OR_FAIL(nd_reduce(&r, ops[k], a, 1, &ax1, false));
        ck_assert_int_eq(nd_size(r), 2);
        double *g = rt_fetch(r);
        for (int i = 0; i < 2; i++) ck_assert_msg(rt_close(g[i], want[k], 0), "%s", nd_reduce_op_name(ops[k]));
        free(g);
        nd_release(r);
    }
    /* var with ddof = -1 of nothing: 0 / 1 = 0 (NumPy) */
    r = NULL;
    ND_OK_OR_FAIL(nd_reduce_ddof(&r, ND_REDUCE_VAR, a, 1, &ax1, true, -1));
    double *g = rt_fetch(r);
    ck_assert(g[0] == 0 && g[1] == 0);
    free(g);
    nd_release(r);
    r = NULL;
    ND_EXPECT_ERR(nd_max(&r, a, 1, &ax1, false), ND_ERR_INVALID,
                  "nd_max: zero-size array to reduction operation maximum which has no identity");
    ND_EXPECT_ERR(nd_min(&r, a, 0, NULL, false), ND_ERR_INVALID,
                  "zero-size array to reduction operation minimum which has no identity");
    ND_EXPECT_ERR(nd_argmax(&r, a, 1, &ax1, false), ND_ERR_INVALID, "attempt to get argmax of an empty sequence");
    ND_EXPECT_ERR(nd_argmin(&r, a, 0, NULL, false), ND_ERR_INVALID, "attempt to get argmin of an empty sequence");
    ck_assert_ptr_null(r);
    /* over the non-empty axis the result is just empty */
    int ax0 = 0;
    ND_OK_OR_FAIL(nd_argmax(&r, a, 1, &ax0, false));
    ck_assert_int_eq(nd_size(r), 0);
    ck_assert_int_eq(nd_shape(r)[0], 0);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_max(&r, a, 1, &ax0, true));
    ck_assert_int_eq(nd_ndim(r), 2);
    ck_assert_int_eq(nd_shape(r)[0], 1);
    ck_assert_int_eq(nd_shape(r)[1], 0);
    nd_release(r);
    nd_release(a);
}
END_TEST

static nd_array *filled(nd_dtype t, int ndim, const int64_t *shape, double v)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, t, ndim, shape, nd_scalar_float(v), nd_cpu()));
    return a;
}

/* The out rule: shape, same_kind, other dtypes, strided and aliasing outs. */
START_TEST(test_out_rule)
{
    static const int64_t sh[2] = {4, 5}, s5[1] = {5}, s4[1] = {4}, s41[2] = {4, 1}, s10[1] = {10};
    double L[20];
    for (int i = 0; i < 20; i++) L[i] = i * 0.5 - 3;
    nd_array *a = rt_array(ND_FLOAT64, 2, sh, L);
    int ax0 = 0, ax1 = 1;

    /* wrong shapes, keepdims mismatch */
    nd_array *o = filled(ND_FLOAT64, 1, s4, 42), *keep = o;
    ND_EXPECT_ERR(nd_sum(&o, a, 1, &ax0, false), ND_ERR_SHAPE, "nd_sum: 'out' has shape (4,)");
    ck_assert_ptr_eq(o, keep);
    ND_EXPECT_ERR(nd_sum(&o, a, 1, &ax1, true), ND_ERR_SHAPE, "'out' has shape");
    double *g = rt_fetch(o);
    for (int i = 0; i < 4; i++) ck_assert(g[i] == 42); /* untouched */
    free(g);
    /* right shape: filled */
    ND_OK_OR_FAIL(nd_sum(&o, a, 1, &ax1, false));
    ck_assert_ptr_eq(o, keep);
    g = rt_fetch(o);
    for (int i = 0; i < 4; i++) ck_assert(g[i] == L[5 * i] + L[5 * i + 1] + L[5 * i + 2] + L[5 * i + 3] + L[5 * i + 4]);
    free(g);
    nd_release(o);

    /* same_kind: float -> int refused, int -> float and float64 -> float16 accepted */
    o = filled(ND_INT32, 1, s5, 7);
    ND_EXPECT_ERR(nd_mean(&o, a, 1, &ax0, false), ND_ERR_DTYPE, "same_kind");
    g = rt_fetch(o);
    ck_assert(g[0] == 7);
    free(g);
    nd_release(o);
    o = filled(ND_FLOAT16, 2, s41, 7);
    ND_OK_OR_FAIL(nd_max(&o, a, 1, &ax1, true));
    g = rt_fetch(o);
    for (int i = 0; i < 4; i++) ck_assert(g[i] == L[5 * i + 4]);
    free(g);
    nd_release(o);
    int32_t iv[20];
    for (int i = 0; i < 20; i++) iv[i] = i - 7;
    nd_array *ai = NULL;
    ND_OK_OR_FAIL(nd_from_host(&ai, iv, ND_INT32, 2, sh, nd_cpu()));
    o = filled(ND_FLOAT32, 1, s5, 7);
    ND_OK_OR_FAIL(nd_sum(&o, ai, 1, &ax0, false)); /* int64 -> float32 is same_kind */
    g = rt_fetch(o);
    for (int j = 0; j < 5; j++) ck_assert(g[j] == (double)(iv[j] + iv[5 + j] + iv[10 + j] + iv[15 + j]));
    free(g);
    nd_release(o);
    o = filled(ND_INT8, 1, s4, 7);
    ND_OK_OR_FAIL(nd_argmax(&o, ai, 1, &ax1, false));
    g = rt_fetch(o);
    for (int i = 0; i < 4; i++) ck_assert(g[i] == 4);
    free(g);
    nd_release(o);
    nd_release(ai);

    /* a strided out: every other element of a poisoned buffer */
    nd_array *big = filled(ND_FLOAT64, 1, s10, -99), *view = NULL;
    nd_range r2 = {ND_NONE, ND_NONE, 2};
    ND_OK_OR_FAIL(nd_slice(&view, big, 1, &r2));
    ND_OK_OR_FAIL(nd_min(&view, a, 1, &ax0, false));
    g = rt_fetch(big);
    for (int j = 0; j < 5; j++) {
        ck_assert(g[2 * j] == L[j]);
        ck_assert(g[2 * j + 1] == -99);
    }
    free(g);
    nd_release(view);
    nd_release(big);

    /* out overlapping the input: row 0 of a receives the column sums of
     * the original a (inputs are read before out is written) */
    nd_array *row = NULL;
    nd_range rr[2] = {{0, 1, 1}, ND_ALL};
    nd_array *a2 = rt_array(ND_FLOAT64, 2, sh, L);
    ND_OK_OR_FAIL(nd_slice(&row, a2, 2, rr));
    ND_OK_OR_FAIL(nd_sum(&row, a2, 1, &ax0, true));
    g = rt_fetch(a2);
    for (int j = 0; j < 5; j++) ck_assert(g[j] == L[j] + L[5 + j] + L[10 + j] + L[15 + j]);
    for (int i = 5; i < 20; i++) ck_assert(g[i] == L[i]);
    free(g);
    nd_release(row);
    /* exact aliasing with axis=(): in place */
    nd_array *same = a2;
    ND_OK_OR_FAIL(nd_reduce(&same, ND_REDUCE_SUM, a2, 0, &ax0, false));
    ck_assert_ptr_eq(same, a2);
    nd_release(a2);
    nd_release(a);
}
END_TEST

/* Every public function: NULL pointers, bad enums and axes. */
START_TEST(test_bad_input)
{
    nd_array *a = filled(ND_FLOAT32, 3, SHAPE3, 1.5), *r = NULL, *z = NULL;
    ND_OK_OR_FAIL(nd_full(&z, ND_FLOAT32, 0, NULL, nd_scalar_float(2), nd_cpu()));
    int ax[3];
#define X(E, n)                                                                                            \
    ND_EXPECT_ERR(nd_##n(NULL, a, 0, NULL, false), ND_ERR_INVALID, "nd_" #n ": argument 'out' is NULL");  \
    ND_EXPECT_ERR(nd_##n(&r, NULL, 0, NULL, false), ND_ERR_INVALID, "nd_" #n ": argument 'a' is NULL");   \
    ax[0] = 0;                                                                                             \
    ND_EXPECT_ERR(nd_##n(&r, a, -1, ax, false), ND_ERR_INVALID, "nd_" #n ": naxes = -1 is negative");     \
    ax[0] = 3;                                                                                             \
    ND_EXPECT_ERR(nd_##n(&r, a, 1, ax, true), ND_ERR_SHAPE,                                                \
                  "nd_" #n ": axis 3 is out of bounds for array of dimension 3");                          \
    ax[0] = -4;                                                                                            \
    ND_EXPECT_ERR(nd_##n(&r, a, 1, ax, false), ND_ERR_SHAPE, "axis -4 is out of bounds for array of dimension 3"); \
    ax[0] = 0;                                                                                             \
    if (ND_REDUCE_##E != ND_REDUCE_ARGMAX && ND_REDUCE_##E != ND_REDUCE_ARGMIN) /* those: test_arg_0d */        \
        ND_EXPECT_ERR(nd_##n(&r, z, 1, ax, false), ND_ERR_SHAPE, "axis 0 is out of bounds for array of dimension 0"); \
    ck_assert_ptr_null(r);
    ND_REDUCE_OPS(X)
#undef X
    /* duplicates, and range checks come first (NumPy's order) */
    ax[0] = 0, ax[1] = -3;
    ND_EXPECT_ERR(nd_sum(&r, a, 2, ax, false), ND_ERR_INVALID, "nd_sum: duplicate value in 'axis'");
    ax[0] = 1, ax[1] = 1, ax[2] = 7;
    ND_EXPECT_ERR(nd_var(&r, a, 3, ax, false), ND_ERR_SHAPE, "axis 7 is out of bounds");
    /* argmax/argmin take one axis or all */
    ax[0] = 0, ax[1] = 1;
    ND_EXPECT_ERR(nd_argmax(&r, a, 2, ax, false), ND_ERR_INVALID, "nd_argmax: argmax takes one axis");
    ND_EXPECT_ERR(nd_argmin(&r, a, 0, ax, false), ND_ERR_INVALID, "argmin takes one axis");
    /* bad op enums */
    ND_EXPECT_ERR(nd_reduce(&r, ND_NUM_REDUCE_OPS, a, 0, NULL, false), ND_ERR_INVALID, "nd_reduce: invalid reduce op");
    ND_EXPECT_ERR(nd_reduce(&r, (nd_reduce_op)-1, a, 0, NULL, false), ND_ERR_INVALID, "invalid reduce op -1");
    ND_EXPECT_ERR(nd_reduce_ddof(&r, (nd_reduce_op)99, a, 0, NULL, false, 1), ND_ERR_INVALID,
                  "nd_reduce_ddof: invalid reduce op 99");
    ND_EXPECT_ERR(nd_reduce(NULL, ND_REDUCE_SUM, a, 0, NULL, false), ND_ERR_INVALID, "nd_reduce: argument 'out'");
    ND_EXPECT_ERR(nd_reduce_ddof(&r, ND_REDUCE_VAR, NULL, 0, NULL, false, 1), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_reduce_ddof(&r, ND_REDUCE_STD, a, -2, ax, false, 1), ND_ERR_INVALID, "naxes = -2");
    ck_assert_ptr_null(r);
    /* axes == NULL means all axes, whatever naxes says */
    ND_OK_OR_FAIL(nd_sum(&r, a, -7, NULL, false));
    ck_assert_int_eq(nd_ndim(r), 0);
    double *g = rt_fetch(r);
    ck_assert(g[0] == 90);
    free(g);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_argmax(&r, z, 5, NULL, false));
    g = rt_fetch(r);
    ck_assert(g[0] == 0);
    free(g);
    nd_release(r);
    nd_release(z);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Values NumPy 2.4 computes, the same cases on every device            */
/* ------------------------------------------------------------------ */
/* rt_known_values(dev) runs them on dev: the CPU suite below calls it
 * with nd_cpu(), the GPU suite (tests/test_gpu_reduce.c) with nd_cuda(0),
 * so both backends are held to the same expected values. The float32
 * overflow cases pin the one accumulation rule of src/shared/reduce_ops.h: a
 * float32 sum accumulates in float32 (NumPy, CuPy), so 3e38 + 3e38
 * overflows before -3e38 is added. */
typedef struct {
    nd_reduce_op op;
    nd_dtype t;
    int n;
    double x[4];
    double ddof;
    double want; /* np.<op>(np.array(x, t), ddof=ddof) */
} known_case;

static const known_case KNOWN[] = {
    {ND_REDUCE_SUM, ND_FLOAT32, 3, {3e38, 3e38, -3e38}, 0, INFINITY},
    {ND_REDUCE_MEAN, ND_FLOAT32, 3, {3e38, 3e38, -3e38}, 0, INFINITY},
    {ND_REDUCE_SUM, ND_FLOAT32, 3, {3e38, -3e38, 3e38}, 0, 0x1.c363ccp+127},
    {ND_REDUCE_MEAN, ND_FLOAT32, 3, {3e38, -3e38, 3e38}, 0, 0x1.2ced32p+126},
    {ND_REDUCE_SUM, ND_FLOAT64, 3, {3e38, 3e38, -3e38}, 0, 3e38},
    /* real ddof: divisor max(n - ddof, 0) */
    {ND_REDUCE_VAR, ND_FLOAT32, 4, {1, 2, 4, 7}, 0.5, 6.0},
    {ND_REDUCE_VAR, ND_FLOAT32, 4, {1, 2, 4, 7}, 1.5, 0x1.0cccccp+3},
    {ND_REDUCE_STD, ND_FLOAT32, 4, {1, 2, 4, 7}, 0.5, 2.4494898},
    {ND_REDUCE_STD, ND_FLOAT32, 4, {1, 2, 4, 7}, 1.5, 0x1.72fabp+1},
    {ND_REDUCE_VAR, ND_FLOAT64, 4, {1, 2, 4, 7}, 0.5, 6.0},
    {ND_REDUCE_VAR, ND_FLOAT64, 4, {1, 2, 4, 7}, 1.5, 8.4},
    {ND_REDUCE_STD, ND_FLOAT64, 4, {1, 2, 4, 7}, 1.5, 2.898275349237888},
    {ND_REDUCE_VAR, ND_INT64, 4, {1, 2, 4, 7}, 0.5, 6.0},
    {ND_REDUCE_STD, ND_INT64, 4, {1, 2, 4, 7}, 1.5, 2.898275349237888},
    {ND_REDUCE_VAR, ND_FLOAT16, 4, {1, 2, 4, 7}, 1.5, 8.3984375},
    {ND_REDUCE_VAR, ND_FLOAT32, 4, {1, 2, 4, 7}, 4.0, INFINITY},
    {ND_REDUCE_VAR, ND_FLOAT64, 4, {1, 2, 4, 7}, 4.5, INFINITY},
    {ND_REDUCE_STD, ND_INT64, 4, {1, 2, 4, 7}, 4.5, INFINITY},
    {ND_REDUCE_VAR, ND_FLOAT32, 4, {3, 3, 3, 3}, 4.5, NAN}, /* 0 / 0 */
    {ND_REDUCE_VAR, ND_FLOAT64, 4, {1, 2, 4, 7}, NAN, NAN},  /* max(n - NaN, 0) is NaN */
    {ND_REDUCE_VAR, ND_FLOAT64, 4, {1, 2, 4, 7}, -0.5, 0x1.2aaaaaaaaaaabp+2},
};

void rt_known_values(nd_device dev)
{
    for (size_t c = 0; c < sizeof KNOWN / sizeof KNOWN[0]; c++) {
        const known_case *k = &KNOWN[c];
        unsigned char buf[64];
        for (int i = 0; i < k->n; i++) rt_put(buf, k->t, i, k->x[i]);
        int64_t n = k->n;
        nd_array *a = NULL, *r = NULL;
        ND_OK_OR_FAIL(nd_from_host(&a, buf, k->t, 1, &n, dev));
        ND_OK_OR_FAIL(nd_reduce_ddof(&r, k->op, a, 0, NULL, false, k->ddof));
        double *got = rt_fetch(r);
        bool ok = isnan(k->want) ? isnan(got[0]) : isinf(k->want) ? got[0] == k->want
                                                                  : fabs(got[0] - k->want) <= 1e-7 * fabs(k->want);
        ck_assert_msg(ok, "case %zu: %s %s ddof %g on %s: got %.9g, NumPy %.9g", c, nd_reduce_op_name(k->op),
                      nd_dtype_name(k->t), k->ddof, dev.type == ND_DEVICE_CPU ? "cpu" : "gpu", got[0], k->want);
        free(got);
        nd_release(r);
        nd_release(a);
    }
}

START_TEST(test_known_values) { rt_known_values(nd_cpu()); }
END_TEST

/* argmax/argmin of a 0-d array take axis 0 or -1 as NumPy does (it sees
 * the scalar as one element): 0. Other axes stay out of bounds. */
void rt_arg_0d(nd_device dev)
{
    double v = 5.0;
    nd_array *a = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, &v, ND_FLOAT64, 0, NULL, dev));
    static const int axes[2] = {0, -1};
    for (int op = ND_REDUCE_ARGMAX; op <= ND_REDUCE_ARGMIN; op++)
        for (int i = 0; i < 2; i++)
            for (int kd = 0; kd < 2; kd++) {
                ND_OK_OR_FAIL(nd_reduce((nd_array **)&r, (nd_reduce_op)op, a, 1, &axes[i], kd));
                ck_assert_int_eq(nd_ndim(r), 0);
                ck_assert_int_eq(nd_dtype_of(r), ND_INT64);
                int64_t got = -1;
                ND_OK_OR_FAIL(nd_copy_to_host(&got, r, sizeof got));
                ck_assert_int_eq(got, 0);
                nd_release(r);
                r = NULL;
            }
    const int bad[2] = {1, -2};
    for (int i = 0; i < 2; i++)
        ND_EXPECT_ERR(nd_argmax(&r, a, 1, &bad[i], false), ND_ERR_SHAPE, "out of bounds for array of dimension 1");
    nd_release(a);
}

START_TEST(test_arg_0d) { rt_arg_0d(nd_cpu()); }
END_TEST

TCase *tcase_reduce_edge(void)
{
    TCase *tc = tcase_create("edge");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_op_names);
    tcase_add_test(tc, test_nan);
    tcase_add_test(tc, test_arg_ties);
    tcase_add_test(tc, test_int_exact);
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_out_rule);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_known_values);
    tcase_add_test(tc, test_arg_0d);
    return tc;
}
