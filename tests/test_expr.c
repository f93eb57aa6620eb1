/* nd_expr_eval (include/ndgpu/expr.h): the fused result compared BIT FOR
 * BIT, and its dtype, with the same chain of the library's own ops -
 * written out by hand for the central expressions (a*b+c, GELU, where,
 * integer and bool chains, mixed dtypes, reductions), and for a wide
 * matrix of expressions x dtypes x layouts with the op-by-op evaluation
 * (nd__expr_eval_unfused, which calls nd_binary / nd_binary_scalar /
 * nd_unary / nd_where / astype step by step and checks every step's dtype
 * against the plan). Also: broadcasting, strided and transposed inputs,
 * 0-d and empty arrays, sizes around the block, arrays large enough to
 * run in parallel, the out rule, errors with their columns, a parser fuzz,
 * the profiler's one event, allocation failures, and the GPU (op by op
 * there) when one is present. Outputs are poisoned before each run. */
#include "test_util.h"
#include "core/alloc.h"
#include "expr/expr_impl.h"

static nd_device gpu0(void) { return nd_cuda(0); }

/* ------------------------------------------------------------------ */
/* Operands                                                            */
/* ------------------------------------------------------------------ */
enum { L_C, L_T, L_S }; /* contiguous, transposed view, every other element of the last axis */

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Varied, nonzero-heavy values of dtype t (through float64/int64/complex128
 * host data and astype), laid out as asked. */
static nd_array *mk(nd_device dev, nd_dtype t, int ndim, const int64_t *shape, int layout, unsigned seed)
{
    int64_t sh[ND_MAX_DIMS], n = 1;
    for (int i = 0; i < ndim; i++) sh[i] = shape[i];
    if (layout == L_T && ndim >= 2)
        for (int i = 0; i < ndim; i++) sh[i] = shape[ndim - 1 - i];
    if (layout == L_S && ndim >= 1) sh[ndim - 1] = shape[ndim - 1] * 2;
    for (int i = 0; i < ndim; i++) n *= sh[i];
    uint64_t s = seed * 7919u + 17;
    nd_dtype ht = nd_dtype_size(t) == 0 ? ND_FLOAT64
                  : (t == ND_COMPLEX64 || t == ND_COMPLEX128) ? ND_COMPLEX128
                  : (t == ND_FLOAT16 || t == ND_BFLOAT16 || t == ND_FLOAT32 || t == ND_FLOAT64) ? ND_FLOAT64
                                                                                          : ND_INT64;
    size_t cnt = (size_t)(n > 0 ? n : 1) * (ht == ND_COMPLEX128 ? 2 : 1);
    double *fd = malloc(cnt * sizeof(double));
    int64_t *id = (int64_t *)(void *)fd;
    for (size_t i = 0; i < cnt; i++) {
        uint64_t r = lcg(&s);
        if (ht == ND_INT64) {
            if (t == ND_BOOL) id[i] = (int64_t)(r & 1);
            else if (t == ND_UINT8 || t == ND_UINT16 || t == ND_UINT32 || t == ND_UINT64) id[i] = (int64_t)(r % 41) + 1;
            else id[i] = (int64_t)(r % 41) - 20;
            if (id[i] == 0 && t != ND_BOOL) id[i] = 7;
        } else {
            fd[i] = ((double)(r % 20001) - 10000.0) / 2500.0 + 0.0001 * (double)(r % 7);
            if (r % 97 == 0) fd[i] = 0.0;
        }
    }
    nd_array *h = NULL, *a = NULL, *v = NULL;
    ND_OK_OR_FAIL(nd_from_host(&h, fd, ht, ndim, sh, dev));
    free(fd);
    ND_OK_OR_FAIL(nd_astype(&a, h, t));
    nd_release(h);
    if (layout == L_T && ndim >= 2) {
        ND_OK_OR_FAIL(nd_transpose(&v, a, NULL));
        nd_release(a);
        return v;
    }
    if (layout == L_S && ndim >= 1) {
        nd_range r[ND_MAX_DIMS];
        for (int i = 0; i < ndim; i++) r[i] = ND_ALL;
        r[ndim - 1] = (nd_range){0, ND_NONE, 2};
        ND_OK_OR_FAIL(nd_slice(&v, a, ndim, r));
        nd_release(a);
        return v;
    }
    return a;
}

/* ------------------------------------------------------------------ */
/* Bitwise comparison                                                  */
/* ------------------------------------------------------------------ */
static bool nan_bits(nd_dtype t, const unsigned char *p)
{
    uint16_t h;
    uint32_t f;
    uint64_t d;
    switch (t) {
    case ND_FLOAT16: memcpy(&h, p, 2); return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    case ND_BFLOAT16: memcpy(&h, p, 2); return (h & 0x7f80) == 0x7f80 && (h & 0x7f);
    case ND_FLOAT32: case ND_COMPLEX64: memcpy(&f, p, 4); return (f & 0x7f800000u) == 0x7f800000u && (f & 0x7fffff);
    case ND_FLOAT64: case ND_COMPLEX128: memcpy(&d, p, 8); return (d & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (d & 0xfffffffffffffull);
    default: return false;
    }
}

/* got and want: same dtype, shape and bits (a NaN matches a NaN: payloads
 * are compared too, but reported apart). */
static void expect_bits(const char *what, const nd_array *got, const nd_array *want)
{
    ck_assert_msg(nd_dtype_of(got) == nd_dtype_of(want), "%s: dtype %s, the unfused chain gives %s", what,
                  nd_dtype_name(nd_dtype_of(got)), nd_dtype_name(nd_dtype_of(want)));
    ck_assert_msg(nd_ndim(got) == nd_ndim(want), "%s: ndim %d vs %d", what, nd_ndim(got), nd_ndim(want));
    for (int i = 0; i < nd_ndim(got); i++)
        ck_assert_msg(nd_shape(got)[i] == nd_shape(want)[i], "%s: shape differs on axis %d", what, i);
    size_t nb = nd_nbytes(got);
    unsigned char *g = malloc(nb + 1), *w = malloc(nb + 1);
    ND_OK_OR_FAIL(nd_copy_to_host(g, got, nb));
    ND_OK_OR_FAIL(nd_copy_to_host(w, want, nb));
    if (memcmp(g, w, nb) != 0) {
        nd_dtype t = nd_dtype_of(got);
        size_t isz = nd_dtype_size(t), part = (t == ND_COMPLEX64 || t == ND_COMPLEX128) ? isz / 2 : isz;
        for (size_t o = 0; o < nb; o += part)
            if (memcmp(g + o, w + o, part) != 0) {
                uint64_t gb = 0, wb = 0;
                memcpy(&gb, g + o, part < 8 ? part : 8);
                memcpy(&wb, w + o, part < 8 ? part : 8);
                ck_assert_msg(nan_bits(t, g + o) && nan_bits(t, w + o),
                              "%s: element %zu differs (dtype %s): bits 0x%llx, the unfused chain's 0x%llx", what,
                              o / isz, nd_dtype_name(t), (unsigned long long)gb, (unsigned long long)wb);
            }
    }
    free(g);
    free(w);
}

/* An array of r's shape and dtype, filled with a poison pattern. */
static nd_array *poisoned_like(const nd_array *r)
{
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_empty(&o, nd_dtype_of(r), nd_ndim(r), nd_shape(r), nd_device_of(r)));
    size_t nb = nd_nbytes(o);
    unsigned char *p = malloc(nb + 1);
    memset(p, 0x5a, nb);
    ND_OK_OR_FAIL(nd_copy_from_host(o, p, nb));
    free(p);
    return o;
}

/* nd_expr_eval against the op-by-op evaluation: same status; on success
 * same dtype and bits, into a fresh result and into a poisoned given out. */
static void check_vs_unfused(const char *expr, int n, const char *const *names, const nd_array *const *args)
{
    nd_array *f = NULL, *u = NULL;
    nd_status sf = nd_expr_eval(&f, expr, n, names, args);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", nd_last_error());
    nd_status su = nd__expr_eval_unfused(&u, expr, n, names, args);
    ck_assert_msg(sf == su, "\"%s\": fused %s (%s), unfused %s (%s)", expr, nd_status_name(sf), msg,
                  nd_status_name(su), nd_last_error());
    if (sf != ND_OK) {
        if (getenv("ND_EXPR_TEST_VERBOSE")) fprintf(stderr, "both fail: \"%s\": %s\n", expr, msg);
        return;
    }
    char what[600];
    snprintf(what, sizeof what, "\"%s\" (%s, %s)", expr, n > 0 ? nd_dtype_name(nd_dtype_of(args[0])) : "-",
             n > 1 ? nd_dtype_name(nd_dtype_of(args[1])) : "-");
    expect_bits(what, f, u);
    if (nd_size(u) > 0) {
        nd_array *o = poisoned_like(u), *keep = o;
        ND_OK_OR_FAIL(nd_expr_eval(&o, expr, n, names, args));
        ck_assert_ptr_eq(o, keep);
        expect_bits(what, o, u);
        nd_release(o);
    }
    nd_release(f);
    nd_release(u);
}

/* ------------------------------------------------------------------ */
/* Hand-written chains                                                 */
/* ------------------------------------------------------------------ */
static const char *const ABC[] = {"a", "b", "c"};

static void run_hand_chains(nd_device dev)
{
    const int64_t sh[2] = {37, 1031};
    for (int ti = 0; ti < 3; ti++) {
        const nd_dtype t = ti == 0 ? ND_FLOAT32 : ti == 1 ? ND_FLOAT16 : ND_FLOAT64;
        nd_array *a = mk(dev, t, 2, sh, L_C, 1), *b = mk(dev, t, 2, sh, L_T, 2), *c = mk(dev, t, 2, sh, L_S, 3);
        const nd_array *args[3] = {a, b, c};
        nd_array *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL, *t5 = NULL, *t6 = NULL, *t7 = NULL, *t8 = NULL,
                 *want = NULL, *got = NULL;
        /* a*b + c */
        ND_OK_OR_FAIL(nd_multiply(&t1, a, b));
        ND_OK_OR_FAIL(nd_add(&want, t1, c));
        ND_OK_OR_FAIL(nd_expr_eval(&got, "a*b + c", 3, ABC, args));
        expect_bits("a*b+c", got, want);
        nd_release(t1), nd_release(want), nd_release(got), t1 = want = got = NULL;
        /* GELU, tanh form: ((0.044715*x)*x)*x as Python parses it */
        ND_OK_OR_FAIL(nd_scalar_binary(&t1, ND_BINARY_MULTIPLY, nd_scalar_float(0.044715), a));
        ND_OK_OR_FAIL(nd_multiply(&t2, t1, a));
        ND_OK_OR_FAIL(nd_multiply(&t3, t2, a));
        ND_OK_OR_FAIL(nd_add(&t4, a, t3));
        ND_OK_OR_FAIL(nd_scalar_binary(&t5, ND_BINARY_MULTIPLY, nd_scalar_float(0.7978845608), t4));
        ND_OK_OR_FAIL(nd_tanh(&t6, t5));
        ND_OK_OR_FAIL(nd_scalar_binary(&t7, ND_BINARY_ADD, nd_scalar_int(1), t6));
        ND_OK_OR_FAIL(nd_scalar_binary(&t8, ND_BINARY_MULTIPLY, nd_scalar_float(0.5), a));
        ND_OK_OR_FAIL(nd_multiply(&want, t8, t7));
        ND_OK_OR_FAIL(nd_expr_eval(&got, "0.5*a*(1+tanh(0.7978845608*(a+0.044715*a*a*a)))", 3, ABC, args));
        expect_bits("gelu", got, want);
        ck_assert_int_eq(nd_dtype_of(got), t); /* weak literals change nothing */
        nd_release(t1), nd_release(t2), nd_release(t3), nd_release(t4), nd_release(t5), nd_release(t6);
        nd_release(t7), nd_release(t8), nd_release(want), nd_release(got);
        t1 = t2 = t3 = want = got = NULL;
        /* where(a > b, a, b * 2) */
        ND_OK_OR_FAIL(nd_greater(&t1, a, b));
        ND_OK_OR_FAIL(nd_binary_scalar(&t2, ND_BINARY_MULTIPLY, b, nd_scalar_int(2)));
        ND_OK_OR_FAIL(nd_where(&want, t1, a, t2));
        ND_OK_OR_FAIL(nd_expr_eval(&got, "where(a > b, a, b * 2)", 3, ABC, args));
        expect_bits("where", got, want);
        nd_release(t1), nd_release(t2), nd_release(want), nd_release(got), t1 = t2 = want = got = NULL;
        /* sum(a * b, axis=1) and mean over all */
        ND_OK_OR_FAIL(nd_multiply(&t1, a, b));
        ND_OK_OR_FAIL(nd_reduce(&want, ND_REDUCE_SUM, t1, 1, (const int[]){1}, false));
        ND_OK_OR_FAIL(nd_expr_eval(&got, "sum(a * b, axis=1)", 3, ABC, args));
        expect_bits("sum axis 1", got, want);
        nd_release(want), nd_release(got), want = got = NULL;
        ND_OK_OR_FAIL(nd_reduce(&want, ND_REDUCE_MEAN, t1, 0, NULL, false));
        ND_OK_OR_FAIL(nd_expr_eval(&got, "mean(a*b)", 3, ABC, args));
        expect_bits("mean", got, want);
        nd_release(t1), nd_release(want), nd_release(got), t1 = want = got = NULL;
        nd_release(a), nd_release(b), nd_release(c);
    }
    /* integers: (i // 3 + i % 5) << 1 on int32, j uint8 mixed in */
    {
        const char *const nm[2] = {"i", "j"};
        nd_array *i = mk(dev, ND_INT32, 2, sh, L_T, 4), *j = mk(dev, ND_UINT8, 1, &sh[1], L_C, 5);
        const nd_array *args[2] = {i, j};
        nd_array *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL, *want = NULL, *got = NULL;
        ND_OK_OR_FAIL(nd_binary_scalar(&t1, ND_BINARY_FLOOR_DIVIDE, i, nd_scalar_int(3)));
        ND_OK_OR_FAIL(nd_binary_scalar(&t2, ND_BINARY_REMAINDER, i, nd_scalar_int(5)));
        ND_OK_OR_FAIL(nd_add(&t3, t1, t2));
        ND_OK_OR_FAIL(nd_binary_scalar(&t4, ND_BINARY_LEFT_SHIFT, t3, nd_scalar_int(1)));
        ND_OK_OR_FAIL(nd_subtract(&want, t4, j));
        ND_OK_OR_FAIL(nd_expr_eval(&got, "((i // 3 + i % 5) << 1) - j", 2, nm, args));
        expect_bits("int chain", got, want);
        ck_assert_int_eq(nd_dtype_of(got), ND_INT32);
        nd_release(t1), nd_release(t2), nd_release(t3), nd_release(t4), nd_release(want), nd_release(got);
        nd_release(i), nd_release(j);
    }
    /* bool logic and float16 + float32 with a weak float */
    {
        const char *const nm[3] = {"p", "q", "r"};
        nd_array *p = mk(dev, ND_BOOL, 2, sh, L_C, 6), *q = mk(dev, ND_BOOL, 2, sh, L_S, 7), *r = mk(dev, ND_BOOL, 2, sh, L_T, 8);
        const nd_array *args[3] = {p, q, r};
        nd_array *t1 = NULL, *t2 = NULL, *want = NULL, *got = NULL;
        ND_OK_OR_FAIL(nd_bitwise_and(&t1, p, q));
        ND_OK_OR_FAIL(nd_bitwise_not(&t2, r));
        ND_OK_OR_FAIL(nd_bitwise_or(&want, t1, t2));
        ND_OK_OR_FAIL(nd_expr_eval(&got, "p & q | ~r", 3, nm, args));
        expect_bits("bool logic", got, want);
        ck_assert_int_eq(nd_dtype_of(got), ND_BOOL);
        nd_release(t1), nd_release(t2), nd_release(want), nd_release(got), nd_release(p), nd_release(q), nd_release(r);
        const char *const hf[2] = {"h", "f"};
        nd_array *h = mk(dev, ND_FLOAT16, 2, sh, L_C, 9), *f = mk(dev, ND_FLOAT32, 1, &sh[1], L_C, 10);
        const nd_array *a2[2] = {h, f};
        t1 = want = got = NULL;
        ND_OK_OR_FAIL(nd_binary_scalar(&t1, ND_BINARY_MULTIPLY, h, nd_scalar_float(0.1)));
        ND_OK_OR_FAIL(nd_add(&want, t1, f));
        ND_OK_OR_FAIL(nd_expr_eval(&got, "h * 0.1 + f", 2, hf, a2));
        expect_bits("float16*0.1 + float32", got, want);
        ck_assert_int_eq(nd_dtype_of(got), ND_FLOAT32);
        nd_release(t1), nd_release(want), nd_release(got), got = NULL;
        ND_OK_OR_FAIL(nd_expr_eval(&got, "h * 0.1", 2, hf, a2));
        ck_assert_int_eq(nd_dtype_of(got), ND_FLOAT16);
        nd_release(got), nd_release(h), nd_release(f);
    }
}

START_TEST(test_hand_chains_cpu) { run_hand_chains(nd_cpu()); }
END_TEST

START_TEST(test_hand_chains_gpu) { run_hand_chains(gpu0()); }
END_TEST

/* ------------------------------------------------------------------ */
/* The matrix: expressions x dtypes x layouts against op by op         */
/* ------------------------------------------------------------------ */
static const char *const float_exprs[] = {
    "a * b + c",
    "a*b + c*2.5 - 1",
    "0.5*a*(1+tanh(0.7978845608*(a+0.044715*a*a*a)))",
    "exp(a) / (1 + exp(-b))",
    "sqrt(abs(a)) + log1p(abs(b)) - log(abs(c) + 1e-3)",
    "where(a > b, a, b * 2)",
    "where(c < 0, 0, c)",
    "maximum(a, 0) + minimum(b, 0.5)",
    "a ** 2 + abs(b) ** 0.5",
    "arctan2(a, b) + hypot(a, c)",
    "tanh(a) * sigmoid(b) - sin(c) * cos(a)",
    "a // b + a % b",
    "-a + +b - (a > 0)",
    "float32(a) + float64(b)",
    "int32(a * 10) // 3",
    "(a < b) & (b <= c) | (a == a)",
    "(a >= b) ^ (c != 0)",
    "where(a != a, 0.0, a) * true",
    "exp2(a) + expm1(b) + floor(c) - ceil(a) + trunc(b) + rint(c)",
    "fmax(a, b) - fmin(b, c) + copysign(a, c) + logaddexp(a, b)",
    "a",
    "2.5",
    "a * (2 * 3) - (1 + 2.0) / 4",
    "square(a) + reciprocal(b) + cbrt(c)",
    "isnan(a / b) | isinf(c) | signbit(a)",
    "ldexp(a, 3) + ldexp(b, int8(c))",
    "float_power(a, 2) + power(abs(b), c)",
    "sum(a * b + c, axis=0)",
    "max(exp(a), axis=(0, 1))",
    "prod(a * 0.5 + 1, axis=-1)",
    "min(a - b)",
    "mean(a + 1.5, axis=1)",
    "heaviside(a, 0.5) + nextafter(a, b) + spacing(c) + deg2rad(a)",
    "where(true, a, 1)",
    "maximum(1, 2.5) + a",
    "exp(1.0) + a",
};

static const char *const int_exprs[] = {
    "a // 3 + a % 5",
    "(a << 2) >> 1",
    "a & b | ~c",
    "a * b - c",
    "where(a > b, a, b) + 1",
    "a ** 2",
    "a ** b",
    "a / b",
    "a + 1.5",
    "maximum(a, 3) - 10",
    "abs(a) + sign(b)",
    "gcd(a, b) + lcm(b, 3)",
    "a ^ b ^ 7",
    "float64(a) * b",
    "sum(a * b, axis=1)",
    "sqrt(a * a)",
    "a != b",
    "-a",
    "right_shift(a, 1) + left_shift(b, 2)",
};

static const char *const bool_exprs[] = {
    "a & b | ~c",
    "a ^ b",
    "where(a, b, c)",
    "a + b",
    "a * 2",
    "a | true",
    "int8(a) - int8(b)",
    "sum(a | b)",
    "logical_and(a, b) | logical_not(c)",
    "a * 1.5",
};

static const char *const cpx_exprs[] = {
    "a * b + c",
    "exp(a) + 1j",
    "abs(a) + 2",
    "a == b",
    "sqrt(a) * conjugate(b)",
    "where(abs(a) > 1, a, b)",
    "a / (b + 1)",
};

/* few: a device that compiles a unit per program (CUDA): the mixed
 * dtype sets only (casts, half loads, promotions), each expression once. */
static void run_matrix_sets(nd_device dev, const int64_t *sh, int ndim, int la, int lb, int lc, bool few)
{
    static const nd_dtype floats[][3] = {{ND_FLOAT32, ND_FLOAT32, ND_FLOAT32}, {ND_FLOAT64, ND_FLOAT64, ND_FLOAT64},
                                         {ND_FLOAT16, ND_FLOAT16, ND_FLOAT16}, {ND_BFLOAT16, ND_BFLOAT16, ND_BFLOAT16},
                                         {ND_FLOAT32, ND_FLOAT16, ND_FLOAT64}, {ND_BFLOAT16, ND_FLOAT16, ND_INT8},
                                         {ND_FLOAT32, ND_INT32, ND_UINT8}};
    static const nd_dtype ints[][3] = {{ND_INT32, ND_INT32, ND_INT32}, {ND_INT8, ND_INT8, ND_INT8},
                                       {ND_INT64, ND_INT64, ND_INT64}, {ND_UINT8, ND_UINT8, ND_UINT8},
                                       {ND_INT8, ND_UINT8, ND_INT32}, {ND_INT16, ND_UINT32, ND_INT64}};
    for (size_t d = few ? 4 : 0; d < (few ? 6 : sizeof floats / sizeof floats[0]); d++) {
        nd_array *a = mk(dev, floats[d][0], ndim, sh, la, 11), *b = mk(dev, floats[d][1], ndim, sh, lb, 12),
                 *c = mk(dev, floats[d][2], ndim, sh, lc, 13);
        const nd_array *args[3] = {a, b, c};
        for (size_t e = 0; e < sizeof float_exprs / sizeof float_exprs[0]; e++) check_vs_unfused(float_exprs[e], 3, ABC, args);
        nd_release(a), nd_release(b), nd_release(c);
    }
    for (size_t d = few ? 4 : 0; d < (few ? 5 : sizeof ints / sizeof ints[0]); d++) {
        nd_array *a = mk(dev, ints[d][0], ndim, sh, la, 14), *b = mk(dev, ints[d][1], ndim, sh, lb, 15),
                 *c = mk(dev, ints[d][2], ndim, sh, lc, 16);
        const nd_array *args[3] = {a, b, c};
        for (size_t e = 0; e < sizeof int_exprs / sizeof int_exprs[0]; e++) check_vs_unfused(int_exprs[e], 3, ABC, args);
        nd_release(a), nd_release(b), nd_release(c);
    }
    {
        nd_array *a = mk(dev, ND_BOOL, ndim, sh, la, 17), *b = mk(dev, ND_BOOL, ndim, sh, lb, 18),
                 *c = mk(dev, ND_BOOL, ndim, sh, lc, 19);
        const nd_array *args[3] = {a, b, c};
        for (size_t e = 0; e < sizeof bool_exprs / sizeof bool_exprs[0]; e++) check_vs_unfused(bool_exprs[e], 3, ABC, args);
        nd_release(a), nd_release(b), nd_release(c);
    }
    {
        nd_array *a = mk(dev, ND_COMPLEX64, ndim, sh, la, 20), *b = mk(dev, ND_COMPLEX64, ndim, sh, lb, 21),
                 *c = mk(dev, ND_COMPLEX128, ndim, sh, lc, 22);
        const nd_array *args[3] = {a, b, c};
        for (size_t e = 0; e < sizeof cpx_exprs / sizeof cpx_exprs[0]; e++) check_vs_unfused(cpx_exprs[e], 3, ABC, args);
        nd_release(a), nd_release(b), nd_release(c);
    }
}

static void run_matrix_dtypes(nd_device dev, const int64_t *sh, int ndim, int la, int lb, int lc)
{
    run_matrix_sets(dev, sh, ndim, la, lb, lc, false);
}

/* The device's fused units against its op-by-op chain: strided operands
 * (the general class), then contiguous ones (the flat class: float32 and
 * int32 through the whole list) and a broadcast scalar. */
START_TEST(test_matrix_gpu)
{
    run_matrix_sets(gpu0(), (const int64_t[]){7, 301}, 2, L_C, L_T, L_S, true);
    const int64_t n[1] = {1000};
    const char *const nm[4] = {"a", "b", "c", "d"};
    static const nd_dtype dts[] = {ND_FLOAT32, ND_INT32};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        nd_array *a = mk(gpu0(), dts[k], 1, n, L_C, 60), *b = mk(gpu0(), dts[k], 1, n, L_C, 61),
                 *c = mk(gpu0(), dts[k], 1, n, L_C, 62), *d = mk(gpu0(), dts[k], 0, NULL, L_C, 63);
        const nd_array *args[4] = {a, b, c, d};
        const char *const *list = dts[k] == ND_FLOAT32 ? float_exprs : int_exprs;
        const size_t cnt = dts[k] == ND_FLOAT32 ? sizeof float_exprs / sizeof float_exprs[0]
                                                : sizeof int_exprs / sizeof int_exprs[0];
        for (size_t e = 0; e < cnt; e++) check_vs_unfused(list[e], 3, ABC, args);
        check_vs_unfused("a * d + c", 4, nm, args);
        nd_release(a), nd_release(b), nd_release(c), nd_release(d);
    }
    /* 18 axes that no merge can join (b is a's transpose): more than the
     * fused unit takes, so op by op, the same bits */
    int64_t sh18[18];
    for (int i = 0; i < 18; i++) sh18[i] = 2;
    nd_array *a = mk(gpu0(), ND_FLOAT32, 18, sh18, L_C, 64), *bt = mk(gpu0(), ND_FLOAT32, 18, sh18, L_C, 65), *b = NULL;
    ND_OK_OR_FAIL(nd_transpose(&b, bt, NULL));
    const nd_array *args2[2] = {a, b};
    check_vs_unfused("a * b + 1.5", 2, ABC, args2);
    nd_release(a), nd_release(b), nd_release(bt);
}
END_TEST

/* A program longer than the fused slot holds (ND_EXPR_MAX_INSNS steps;
 * here 89 adds and 45 casts of the int16 operand to float32): evaluated op
 * by op, with the bits of the unfused chain. Lowering goes on past the
 * limit before it gives up, and every step it makes there must leave its
 * destination defined (an undefined one sent a garbage temporary index
 * into the allocator's table). */
static void run_long_program(nd_device dev)
{
    const int64_t n = 37;
    nd_array *a = mk(dev, ND_INT16, 1, &n, L_C, 80), *b = mk(dev, ND_FLOAT32, 1, &n, L_C, 81);
    const nd_array *args[2] = {a, b};
    char expr[512];
    int k = 0;
    for (int i = 0; i < 90; i++) k += snprintf(expr + k, sizeof expr - (size_t)k, "%s%s", i ? "+" : "", i % 2 ? "b" : "a");
    check_vs_unfused(expr, 2, ABC, args);
    /* and with unary steps between (more destinations past the limit) */
    k = 0;
    for (int i = 0; i < 70; i++) k += snprintf(expr + k, sizeof expr - (size_t)k, "%s%s", i ? "-" : "", i % 2 ? "-b" : "a");
    check_vs_unfused(expr, 2, ABC, args);
    nd_release(a), nd_release(b);
}

START_TEST(test_long_program_cpu) { run_long_program(nd_cpu()); }
END_TEST

START_TEST(test_long_program_gpu) { run_long_program(gpu0()); }
END_TEST

START_TEST(test_matrix_layouts)
{
    /* contiguous, transposed and strided operands; rows not a multiple of the block */
    run_matrix_dtypes(nd_cpu(), (const int64_t[]){9, 1031}, 2, L_C, L_T, L_S);
    run_matrix_dtypes(nd_cpu(), (const int64_t[]){70, 3}, 2, L_T, L_C, L_T);
}
END_TEST

START_TEST(test_matrix_shapes)
{
    /* 0-d, empty, one element, a block and a bit */
    run_matrix_dtypes(nd_cpu(), NULL, 0, L_C, L_C, L_C);
    run_matrix_dtypes(nd_cpu(), (const int64_t[]){0, 5}, 2, L_C, L_T, L_C);
    run_matrix_dtypes(nd_cpu(), (const int64_t[]){1}, 1, L_C, L_S, L_C);
    run_matrix_dtypes(nd_cpu(), (const int64_t[]){1025}, 1, L_C, L_C, L_S);
}
END_TEST

/* Broadcasting: a full (m, n), b a row (n,), c a column (m, 1), d 0-d. */
static void run_broadcast(nd_device dev)
{
    const int64_t full[2] = {33, 517}, row[1] = {517}, col[2] = {33, 1};
    const char *const nm[4] = {"a", "b", "c", "d"};
    static const nd_dtype dts[] = {ND_FLOAT32, ND_FLOAT16, ND_INT32, ND_FLOAT64};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        nd_array *a = mk(dev, dts[k], 2, full, L_T, 30), *b = mk(dev, dts[k], 1, row, L_S, 31),
                 *c = mk(dev, dts[k], 2, col, L_C, 32), *d = mk(dev, dts[k], 0, NULL, L_C, 33);
        const nd_array *args[4] = {a, b, c, d};
        check_vs_unfused("a * b + c - d", 4, nm, args);
        check_vs_unfused("b * c", 4, nm, args);
        check_vs_unfused("where(b > c, d, a)", 4, nm, args);
        check_vs_unfused("d * 2 + 1", 4, nm, args);
        check_vs_unfused("sum(b * c, axis=0)", 4, nm, args);
        nd_array *r = NULL;
        ND_OK_OR_FAIL(nd_expr_eval(&r, "b * c", 4, nm, args));
        ck_assert_int_eq(nd_ndim(r), 2);
        ck_assert_int_eq(nd_shape(r)[0], 33);
        ck_assert_int_eq(nd_shape(r)[1], 517);
        nd_release(r);
        nd_release(a), nd_release(b), nd_release(c), nd_release(d);
    }
}

START_TEST(test_broadcast) { run_broadcast(nd_cpu()); }
END_TEST

START_TEST(test_broadcast_gpu) { run_broadcast(gpu0()); }
END_TEST

/* Arrays large enough for the thread pool, with every thread count. */
START_TEST(test_parallel)
{
    const int64_t n1[1] = {(int64_t)1 << 20}, n2[2] = {1000, 1201};
    int saved = nd_get_num_threads();
    for (int nt = 1; nt <= 4; nt *= 2) {
        ND_OK_OR_FAIL(nd_set_num_threads(nt));
        nd_array *a = mk(nd_cpu(), ND_FLOAT32, 1, n1, L_C, 40), *b = mk(nd_cpu(), ND_FLOAT32, 1, n1, L_C, 41),
                 *c = mk(nd_cpu(), ND_FLOAT32, 1, n1, L_S, 42);
        const nd_array *args[3] = {a, b, c};
        check_vs_unfused("a * b + c", 3, ABC, args);
        check_vs_unfused("0.5*a*(1+tanh(0.7978845608*(a+0.044715*a*a*a)))", 3, ABC, args);
        check_vs_unfused("where(a > 0, exp(b), c / 3)", 3, ABC, args);
        nd_release(a), nd_release(b), nd_release(c);
        a = mk(nd_cpu(), ND_FLOAT64, 2, n2, L_T, 43), b = mk(nd_cpu(), ND_FLOAT16, 2, n2, L_C, 44),
        c = mk(nd_cpu(), ND_INT16, 2, n2, L_S, 45);
        const nd_array *args2[3] = {a, b, c};
        check_vs_unfused("a * b + c", 3, ABC, args2);
        check_vs_unfused("sqrt(abs(a)) * b - c // 2", 3, ABC, args2);
        nd_release(a), nd_release(b), nd_release(c);
    }
    ND_OK_OR_FAIL(nd_set_num_threads(saved));
    /* an output past the streaming threshold (16 MiB), with a ragged end,
     * fresh (aligned) and as a view one element in (unaligned) */
    const int64_t nb[1] = {((int64_t)1 << 22) + 37}, nb1[1] = {nb[0] + 1};
    nd_array *a = mk(nd_cpu(), ND_FLOAT32, 1, nb, L_C, 46), *b = mk(nd_cpu(), ND_FLOAT32, 1, nb, L_C, 47),
             *c = mk(nd_cpu(), ND_FLOAT16, 1, nb, L_C, 48);
    const nd_array *args[3] = {a, b, c};
    check_vs_unfused("a * b + c", 3, ABC, args);
    check_vs_unfused("0.5*a*(1+tanh(0.7978845608*(a+0.044715*a*a*a)))", 3, ABC, args);
    nd_array *big = NULL, *view = NULL, *want = NULL;
    ND_OK_OR_FAIL(nd_full(&big, ND_FLOAT32, 1, nb1, nd_scalar_float(-2.5), nd_cpu()));
    ND_OK_OR_FAIL(nd_slice(&view, big, 1, (const nd_range[]){{1, ND_NONE, 1}}));
    nd_array *o = view;
    ND_OK_OR_FAIL(nd_expr_eval(&o, "a * b + c", 3, ABC, args));
    ND_OK_OR_FAIL(nd__expr_eval_unfused(&want, "a * b + c", 3, ABC, args));
    expect_bits("unaligned streamed out", view, want);
    nd_array *head = NULL;
    float first = 0;
    ND_OK_OR_FAIL(nd_slice(&head, big, 1, (const nd_range[]){{0, 1, 1}}));
    ND_OK_OR_FAIL(nd_copy_to_host(&first, head, sizeof first));
    ck_assert_msg(first == -2.5f, "the element before the out view was written: %g", first);
    nd_release(head);
    nd_release(want), nd_release(view), nd_release(big), nd_release(a), nd_release(b), nd_release(c);
}
END_TEST

/* 2-D iterations with transposed operands run in tiles (ragged edges
 * here); a program with many live temporaries has blocks shorter than a
 * tile's row. */
START_TEST(test_tiled)
{
    const int64_t sh[2] = {300, 530};
    char deep[1024];
    int k = 0;
    for (int i = 0; i < 34; i++) k += snprintf(deep + k, sizeof deep - (size_t)k, "(a*b)+(");
    k += snprintf(deep + k, sizeof deep - (size_t)k, "c");
    for (int i = 0; i < 34; i++) deep[k++] = ')';
    deep[k] = '\0';
    static const nd_dtype dts[][3] = {{ND_FLOAT64, ND_FLOAT64, ND_FLOAT64}, {ND_FLOAT32, ND_INT16, ND_BOOL},
                                      {ND_FLOAT16, ND_FLOAT32, ND_UINT8}};
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
        for (int lay = 0; lay < 2; lay++) {
            nd_array *a = mk(nd_cpu(), dts[d][0], 2, sh, lay ? L_T : L_C, 100), *b = mk(nd_cpu(), dts[d][1], 2, sh, L_T, 101),
                     *c = mk(nd_cpu(), dts[d][2], 2, sh, L_T, 102);
            const nd_array *args[3] = {a, b, c};
            check_vs_unfused("a * b + c", 3, ABC, args);
            check_vs_unfused("where(b > c, a, b) - sqrt(abs(a))", 3, ABC, args);
            check_vs_unfused(deep, 3, ABC, args);
            nd_release(a), nd_release(b), nd_release(c);
        }
}
END_TEST

/* ------------------------------------------------------------------ */
/* The out rule                                                        */
/* ------------------------------------------------------------------ */
static void expect_unchanged(const nd_array *o, const unsigned char *before)
{
    size_t nb = nd_nbytes(o);
    unsigned char *now = malloc(nb + 1);
    ND_OK_OR_FAIL(nd_copy_to_host(now, o, nb));
    ck_assert_msg(memcmp(now, before, nb) == 0, "a failed call changed its out");
    free(now);
}

static void run_out_rule(nd_device dev)
{
    const int64_t sh[2] = {17, 300};
    nd_array *a = mk(dev, ND_FLOAT32, 2, sh, L_C, 50), *b = mk(dev, ND_FLOAT32, 2, sh, L_C, 51),
             *c = mk(dev, ND_FLOAT32, 2, sh, L_C, 52);
    const nd_array *args[3] = {a, b, c};
    nd_array *want = NULL;
    ND_OK_OR_FAIL(nd__expr_eval_unfused(&want, "a * b + c", 3, ABC, args));
    /* in place: out is a */
    nd_array *o = a;
    ND_OK_OR_FAIL(nd_expr_eval(&o, "a * b + c", 3, ABC, args));
    ck_assert_ptr_eq(o, a);
    expect_bits("in place", a, want);
    /* float64 out: same_kind, cast on the way */
    nd_array *o64 = NULL, *w64 = NULL;
    ND_OK_OR_FAIL(nd_empty(&o64, ND_FLOAT64, 2, sh, dev));
    nd_array *keep = o64;
    ND_OK_OR_FAIL(nd_expr_eval(&o64, "b * c", 3, ABC, args));
    ck_assert_ptr_eq(o64, keep);
    nd_array *t = NULL;
    ND_OK_OR_FAIL(nd_multiply(&t, b, c));
    ND_OK_OR_FAIL(nd_astype(&w64, t, ND_FLOAT64));
    expect_bits("float64 out", o64, w64);
    /* wrong shape, wrong dtype: errors, out unchanged */
    nd_array *bad = NULL, *bad2 = NULL;
    ND_OK_OR_FAIL(nd_full(&bad, ND_FLOAT32, 1, (const int64_t[]){300}, nd_scalar_float(7.25), dev));
    ND_OK_OR_FAIL(nd_full(&bad2, ND_INT32, 2, sh, nd_scalar_int(-3), dev));
    unsigned char *s1 = malloc(nd_nbytes(bad)), *s2 = malloc(nd_nbytes(bad2));
    ND_OK_OR_FAIL(nd_copy_to_host(s1, bad, nd_nbytes(bad)));
    ND_OK_OR_FAIL(nd_copy_to_host(s2, bad2, nd_nbytes(bad2)));
    nd_array *ob = bad, *ob2 = bad2;
    ND_EXPECT_ERR(nd_expr_eval(&ob, "b * c + 1", 3, ABC, args), ND_ERR_SHAPE, "nd_expr_eval");
    ck_assert_ptr_eq(ob, bad);
    expect_unchanged(bad, s1);
    ND_EXPECT_ERR(nd_expr_eval(&ob2, "b * c + 1", 3, ABC, args), ND_ERR_DTYPE, "nd_expr_eval");
    ck_assert_ptr_eq(ob2, bad2);
    expect_unchanged(bad2, s2);
    /* a reduction into a given out */
    nd_array *rs = NULL, *rw = NULL;
    ND_OK_OR_FAIL(nd_empty(&rs, ND_FLOAT32, 1, (const int64_t[]){17}, dev));
    keep = rs;
    ND_OK_OR_FAIL(nd_expr_eval(&rs, "sum(b * c, axis=1)", 3, ABC, args));
    ck_assert_ptr_eq(rs, keep);
    ND_OK_OR_FAIL(nd_reduce(&rw, ND_REDUCE_SUM, t, 1, (const int[]){1}, false));
    expect_bits("sum into out", rs, rw);
    free(s1), free(s2);
    nd_release(rs), nd_release(rw), nd_release(bad), nd_release(bad2), nd_release(t), nd_release(w64);
    nd_release(o64), nd_release(want), nd_release(a), nd_release(b), nd_release(c);
}

START_TEST(test_out_rule_cpu) { run_out_rule(nd_cpu()); }
END_TEST

START_TEST(test_out_rule_gpu) { run_out_rule(gpu0()); }
END_TEST

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */
START_TEST(test_errors)
{
    const int64_t sh[1] = {8};
    nd_array *a = mk(nd_cpu(), ND_FLOAT32, 1, sh, L_C, 60), *b = mk(nd_cpu(), ND_FLOAT32, 1, sh, L_C, 61),
             *c = mk(nd_cpu(), ND_INT8, 1, sh, L_C, 62), *o = NULL;
    const nd_array *args[3] = {a, b, c};
    ND_EXPECT_ERR(nd_expr_eval(&o, "a * b + exp(d)", 3, ABC, args), ND_ERR_INVALID,
                  "nd_expr_eval: unknown name 'd' at column 13 in \"a * b + exp(d)\"");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a +", 3, ABC, args), ND_ERR_INVALID, "unexpected end of the expression at column 4");
    ND_EXPECT_ERR(nd_expr_eval(&o, "foo(a)", 3, ABC, args), ND_ERR_INVALID, "unknown function 'foo' at column 1");
    ND_EXPECT_ERR(nd_expr_eval(&o, "exp(a, b)", 3, ABC, args), ND_ERR_INVALID, "'exp' takes 1 argument, 2 given");
    ND_EXPECT_ERR(nd_expr_eval(&o, "where(a, b)", 3, ABC, args), ND_ERR_INVALID, "'where' takes 3 arguments, 2 given");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a & b", 3, ABC, args), ND_ERR_DTYPE, "bitwise_and' has no loop for dtype float32 at column 3");
    ND_EXPECT_ERR(nd_expr_eval(&o, "~a", 3, ABC, args), ND_ERR_DTYPE, "at column 1");
    ND_EXPECT_ERR(nd_expr_eval(&o, "(a + b", 3, ABC, args), ND_ERR_INVALID, "unclosed '('");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a < b < c", 3, ABC, args), ND_ERR_INVALID, "chained comparisons");
    ND_EXPECT_ERR(nd_expr_eval(&o, "sum(a) + 1", 3, ABC, args), ND_ERR_INVALID, "outermost");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a +* b", 3, ABC, args), ND_ERR_INVALID, "unexpected '*' at column 4");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a = b", 3, ABC, args), ND_ERR_INVALID, "unexpected '=' (write '==' to compare)");
    ND_EXPECT_ERR(nd_expr_eval(&o, "c + 300", 3, ABC, args), ND_ERR_INVALID, "Python integer 300 out of bounds for int8 at column 3");
    ND_EXPECT_ERR(nd_expr_eval(&o, "c ** -1", 3, ABC, args), ND_ERR_INVALID, "Integers to negative integer powers");
    ND_EXPECT_ERR(nd_expr_eval(&o, "1 / 0", 3, ABC, args), ND_ERR_INVALID, "division by zero");
    ND_EXPECT_ERR(nd_expr_eval(&o, "99999999999999999999 + a", 3, ABC, args), ND_ERR_INVALID, "out of the int64 range");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a + 1x", 3, ABC, args), ND_ERR_INVALID, "invalid numeric literal at column 5");
    ND_EXPECT_ERR(nd_expr_eval(&o, "exp(a, axis=1)", 3, ABC, args), ND_ERR_INVALID, "takes no keyword 'axis'");
    ND_EXPECT_ERR(nd_expr_eval(&o, "sum(a, axis=x)", 3, ABC, args), ND_ERR_INVALID, "axis must be");
    ND_EXPECT_ERR(nd_expr_eval(&o, "sum(a, axis=3)", 3, ABC, args), ND_ERR_SHAPE, "nd_expr_eval");
    ND_EXPECT_ERR(nd_expr_eval(&o, "", 3, ABC, args), ND_ERR_INVALID, "unexpected end");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a $ b", 3, ABC, args), ND_ERR_INVALID, "unexpected '$' at column 3");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a\x01", 3, ABC, args), ND_ERR_INVALID, "unexpected character (code 1)");
    ND_EXPECT_ERR(nd_expr_eval(NULL, "a", 3, ABC, args), ND_ERR_INVALID, "'out' is NULL");
    ND_EXPECT_ERR(nd_expr_eval(&o, NULL, 3, ABC, args), ND_ERR_INVALID, "'expr' is NULL");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a", 3, NULL, args), ND_ERR_INVALID, "'names' is NULL");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a", 3, ABC, NULL), ND_ERR_INVALID, "'args' is NULL");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a", -1, ABC, args), ND_ERR_INVALID, "nargs = -1");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a", 2, (const char *const[]){"a", "a"}, args), ND_ERR_INVALID, "given twice");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a", 1, (const char *const[]){"1a"}, args), ND_ERR_INVALID, "is not a name");
    ND_EXPECT_ERR(nd_expr_eval(&o, "a", 2, ABC, (const nd_array *const[]){a, NULL}), ND_ERR_INVALID, "args[1]");
    /* shapes that do not broadcast */
    nd_array *d = mk(nd_cpu(), ND_FLOAT32, 1, (const int64_t[]){5}, L_C, 63);
    ND_EXPECT_ERR(nd_expr_eval(&o, "a + b * c", 3, ABC, (const nd_array *const[]){a, d, c}), ND_ERR_SHAPE, "broadcast");
    ck_assert_ptr_null(o);
    /* nesting: 60 levels fine, 100 refused; too long refused */
    char deep[512];
    int k = 0;
    for (int i = 0; i < 60; i++) deep[k++] = '(';
    deep[k++] = 'a';
    for (int i = 0; i < 60; i++) deep[k++] = ')';
    deep[k] = '\0';
    ND_OK_OR_FAIL(nd_expr_eval(&o, deep, 3, ABC, args));
    nd_release(o), o = NULL;
    k = 0;
    for (int i = 0; i < 100; i++) deep[k++] = i % 2 ? '(' : '-';
    deep[k++] = 'a';
    for (int i = 0; i < 50; i++) deep[k++] = ')';
    deep[k] = '\0';
    ND_EXPECT_ERR(nd_expr_eval(&o, deep, 3, ABC, args), ND_ERR_INVALID, "nested too deeply");
    char *lng = malloc(6001);
    for (int i = 0; i < 6000; i++) lng[i] = i % 2 ? '+' : 'a';
    lng[5999] = 'a', lng[6000] = '\0';
    ND_EXPECT_ERR(nd_expr_eval(&o, lng, 3, ABC, args), ND_ERR_INVALID, "longer than 4096");
    lng[1999] = 'a', lng[2000] = '\0'; /* 1000 operands: over the node limit */
    ND_EXPECT_ERR(nd_expr_eval(&o, lng, 3, ABC, args), ND_ERR_INVALID, "expression too long");
    free(lng);
    ck_assert_ptr_null(o);
    nd_release(a), nd_release(b), nd_release(c), nd_release(d);
}
END_TEST

/* Random strings and mutations of valid expressions: a status, never a
 * crash; what succeeds agrees with op by op. */
START_TEST(test_fuzz)
{
    const int64_t sh[2] = {3, 4};
    nd_array *a = mk(nd_cpu(), ND_FLOAT32, 2, sh, L_C, 70), *b = mk(nd_cpu(), ND_INT16, 2, sh, L_T, 71),
             *c = mk(nd_cpu(), ND_BOOL, 1, &sh[1], L_C, 72);
    const nd_array *args[3] = {a, b, c};
    static const char alpha[] = "abc ()+-*/%&|^~<>=!.,0123456789ejxpwhrsqt_Tf";
    static const char *const toks[] = {"a", "b", "c", "1", "2.5", "(", ")", "+", "-", "*", "/", "//", "%", "**",
                                       "&", "|", "^", "~", "<", "<=", "==", "!=", ">>", "<<", "exp(", "where(",
                                       "maximum(", ",", "sum(", "axis=", "float16(", "true", "1e-3", "3j", " "};
    uint64_t s = 12345;
    int ok = 0;
    for (int it = 0; it < 6000; it++) {
        char buf[96];
        int len = (int)(lcg(&s) % 60);
        if (it % 2 == 0) {
            for (int i = 0; i < len; i++) buf[i] = alpha[lcg(&s) % (sizeof alpha - 1)];
            buf[len] = '\0';
        } else {
            int k = 0;
            buf[0] = '\0';
            for (int i = 0; i < len / 4 + 1; i++) {
                const char *tk = toks[lcg(&s) % (sizeof toks / sizeof toks[0])];
                size_t l = strlen(tk);
                if (k + (int)l >= (int)sizeof buf) break;
                memcpy(buf + k, tk, l + 1);
                k += (int)l;
            }
        }
        nd_array *f = NULL;
        nd_status st = nd_expr_eval(&f, buf, 3, ABC, args);
        if (st == ND_OK) {
            ok++;
            check_vs_unfused(buf, 3, ABC, args);
        } else {
            ck_assert_msg(nd_last_error()[0] != '\0', "\"%s\": %s without a message", buf, nd_status_name(st));
            ck_assert_ptr_null(f);
        }
        nd_release(f);
    }
    ck_assert_msg(ok > 50, "only %d random expressions were valid", ok);
    nd_release(a), nd_release(b), nd_release(c);
}
END_TEST

/* The cache: the same expression over other dtypes is typed anew, and
 * many threads evaluating at once agree. */
typedef struct {
    const nd_array *const *args;
    int bad;
} thr_arg;

static void *thr_main(void *p)
{
    thr_arg *t = p;
    static const char *const ex[] = {"a * b + c", "exp(a) - b", "where(a > c, a, b)", "a * 2 + c * 3", "sqrt(abs(b))"};
    for (int i = 0; i < 300; i++) {
        nd_array *r = NULL;
        char e[64];
        snprintf(e, sizeof e, "%s + %d", ex[i % 5], i % 40); /* more than the cache holds */
        if (nd_expr_eval(&r, e, 3, ABC, t->args) != ND_OK) t->bad++;
        nd_release(r);
    }
    return NULL;
}

#include <pthread.h>
START_TEST(test_cache_threads)
{
    const int64_t sh[1] = {2000};
    nd_array *a = mk(nd_cpu(), ND_FLOAT32, 1, sh, L_C, 80), *b = mk(nd_cpu(), ND_FLOAT32, 1, sh, L_C, 81),
             *c = mk(nd_cpu(), ND_FLOAT32, 1, sh, L_C, 82), *d = mk(nd_cpu(), ND_FLOAT64, 1, sh, L_C, 83);
    const nd_array *args[3] = {a, b, c}, *args2[3] = {d, b, c};
    nd_array *r1 = NULL, *r2 = NULL;
    ND_OK_OR_FAIL(nd_expr_eval(&r1, "a * b + c", 3, ABC, args));
    ND_OK_OR_FAIL(nd_expr_eval(&r2, "a * b + c", 3, ABC, args2));
    ck_assert_int_eq(nd_dtype_of(r1), ND_FLOAT32);
    ck_assert_int_eq(nd_dtype_of(r2), ND_FLOAT64);
    nd_release(r1), nd_release(r2);
    pthread_t th[4];
    thr_arg ta[4];
    for (int i = 0; i < 4; i++) {
        ta[i] = (thr_arg){args, 0};
        ck_assert_int_eq(pthread_create(&th[i], NULL, thr_main, &ta[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        ck_assert_int_eq(ta[i].bad, 0);
    }
    nd_expr_cache_clear();
    nd_release(a), nd_release(b), nd_release(c), nd_release(d);
}
END_TEST

/* One profiler event "expr" per call. */
START_TEST(test_profiler)
{
    const int64_t sh[1] = {100};
    nd_array *a = mk(nd_cpu(), ND_FLOAT32, 1, sh, L_C, 90), *b = mk(nd_cpu(), ND_FLOAT32, 1, sh, L_C, 91), *r = NULL;
    const nd_array *args[3] = {a, b, a};
    ND_OK_OR_FAIL(nd_profiler_start(NULL));
    ND_OK_OR_FAIL(nd_expr_eval(&r, "a * b + exp(c)", 3, ABC, args));
    ND_OK_OR_FAIL(nd_profiler_stop());
    const nd_profiler_event *ev;
    size_t n;
    ND_OK_OR_FAIL(nd_profiler_events(&ev, &n));
    int nexpr = 0, nother = 0;
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind != ND_PROFILER_OP) continue;
        if (strcmp(ev[i].name, "expr") == 0) {
            nexpr++;
            ck_assert_int_eq(ev[i].out_dtype, ND_FLOAT32);
        } else {
            nother++;
        }
    }
    ck_assert_int_eq(nexpr, 1);
    ck_assert_int_eq(nother, 0);
    nd_release(r), nd_release(a), nd_release(b);
}
END_TEST

/* Every allocation failing in turn: ND_ERR_NOMEM or success, the out
 * untouched, nothing leaked. */
START_TEST(test_alloc_faults)
{
    const int64_t sh[2] = {40, 50};
    nd_array *a = mk(nd_cpu(), ND_FLOAT32, 2, sh, L_T, 95), *b = mk(nd_cpu(), ND_FLOAT16, 1, &sh[1], L_C, 96),
             *c = mk(nd_cpu(), ND_INT32, 2, sh, L_C, 97), *o = NULL;
    const nd_array *args[3] = {a, b, c};
    static const char *const ex[] = {"a * b + c", "sum(a * b, axis=0)", "a ** c"};
    nd_expr_cache_clear();
    const long live0 = nd__alloc_live();
    for (size_t e = 0; e < 3; e++) {
        int fired = 0;
        for (int n = 1; n < 200; n++) {
            nd_expr_cache_clear();
            nd__alloc_fail_after(n);
            nd_array *r = NULL;
            nd_status st = nd_expr_eval(&r, ex[e], 3, ABC, args);
            bool f = nd__alloc_fault_reset();
            if (!f) {
                ck_assert_int_eq(st, ND_OK);
                nd_release(r);
                break;
            }
            fired++;
            if (st == ND_OK) nd_release(r);
            else {
                ck_assert_msg(st == ND_ERR_NOMEM, "\"%s\" N=%d: %s (%s)", ex[e], n, nd_status_name(st), nd_last_error());
                ck_assert_ptr_null(r);
            }
            nd_expr_cache_clear();
            ck_assert_msg(nd__alloc_live() == live0, "\"%s\" N=%d: %ld allocations live, %ld before", ex[e], n,
                          nd__alloc_live(), live0);
        }
        ck_assert_msg(fired > 0, "\"%s\": no allocation to fail", ex[e]);
    }
    (void)o;
    nd_release(a), nd_release(b), nd_release(c);
}
END_TEST

Suite *suite_expr(void)
{
    Suite *s = suite_create("expr");
    TCase *tc = tcase_create("expr");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_hand_chains_cpu);
    tcase_add_test(tc, test_matrix_layouts);
    tcase_add_test(tc, test_matrix_shapes);
    tcase_add_test(tc, test_long_program_cpu);
    tcase_add_test(tc, test_broadcast);
    tcase_add_test(tc, test_parallel);
    tcase_add_test(tc, test_tiled);
    tcase_add_test(tc, test_out_rule_cpu);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_fuzz);
    tcase_add_test(tc, test_cache_threads);
    tcase_add_test(tc, test_profiler);
    tcase_add_test(tc, test_alloc_faults);
    if (nd_test_gpu_count() > 0) {
        tcase_add_test(tc, test_hand_chains_gpu);
        tcase_add_test(tc, test_out_rule_gpu);
        tcase_add_test(tc, test_matrix_gpu);
        tcase_add_test(tc, test_broadcast_gpu);
        tcase_add_test(tc, test_long_program_gpu);
    }
    suite_add_tcase(s, tc);
    return s;
}
