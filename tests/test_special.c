/*
 * The special functions and activations of the op table (erf ... selu,
 * xlogy ... elu; bodies in src/shared/ops_special.h) against mpmath:
 * tests/data/special_ref.h (written by tests/gen_special_ref.py) holds
 * inputs across each function's whole range with the exact values
 * correctly rounded to float64 and float32. Every op runs them through
 * nd_unary / nd_binary (outputs poisoned first) on the CPU - on whatever
 * ISA path ND_CPU_ISA selects (make test-isa runs all three) - and on
 * cuda:0 when there is one (the emulated device in CI), and its worst
 * error in ulps (against the correctly rounded value) must stay within
 * the bounds below. Then the special values bit for bit, CPU == cuda:0 bit
 * for bit where the CPU runs the scalar body, the named wrappers, expit,
 * the weak-scalar parameter of leaky_relu/elu, the expression language,
 * and bad input.
 */
#include <float.h>

#include "cpu/isa.h"
#include "cpu/vmath.h"
#include "data/special_ref.h"
#include "test_util.h"

typedef struct {
    const char *name;
    double x, y, want;
} sp_row;
#define SP_ROW(n, x, y, w) {#n, x, y, w},
static const sp_row ref_f64[] = {ND_SPECIAL_REF_F64(SP_ROW)};
static const sp_row ref_f32[] = {ND_SPECIAL_REF_F32(SP_ROW)};

/* The worst error measured on these tables, in ulps of the correctly
 * rounded value (so 0.5 of it is the rounding itself), over every path:
 * the CPU's scalar body (baseline ISA path, and every op without a
 * vector kernel), the AVX2 and AVX-512 kernels of erf, gelu and silu
 * (src/cpu/vmath_special.c; their own figures are in src/cpu/vmath.h),
 * and the emulated GPU (the scalar body). They are the test's limits. */
static const struct {
    const char *name;
    double f64, f32;
} bound[] = {
    {"erf", 1, 0},      {"erfc", 2, 0},       {"erfinv", 1, 0},   {"erfcinv", 1, 0},  {"erfcx", 1, 0},
    {"ndtr", 3, 0},     {"ndtri", 3, 0},      {"log_ndtr", 3, 0}, {"logit", 1, 0},    {"log_expit", 1, 0},
    {"softplus", 1, 0}, {"entr", 1, 0},       {"sinc", 2, 0},     {"gelu", 3, 1},     {"gelu_tanh", 2, 1},
    {"silu", 2, 0},     {"mish", 2, 0},       {"relu6", 0, 0},    {"hardswish", 2, 1}, {"selu", 1, 0},
    {"xlogy", 1, 0},    {"xlog1py", 1, 0},    {"leaky_relu", 0, 0}, {"elu", 1, 0},
};
#define NBOUND ((int)(sizeof bound / sizeof bound[0]))

/* op index by name: unary ops as they are, binary ones after them */
static int op_of(const char *name, bool *binary)
{
    for (int k = 0; k < ND_NUM_UNARY_OPS; k++)
        if (strcmp(nd_unary_op_name((nd_unary_op)k), name) == 0) {
            *binary = false;
            return k;
        }
    for (int k = 0; k < ND_NUM_BINARY_OPS; k++)
        if (strcmp(nd_binary_op_name((nd_binary_op)k), name) == 0) {
            *binary = true;
            return k;
        }
    return -1;
}

static double ulp_of(double w, bool single)
{
    w = fabs(w);
    if (single) return w < FLT_MIN ? 0x1p-149 : ldexp(1.0, ilogb(w) - 23);
    return w < DBL_MIN ? 0x1p-1074 : ldexp(1.0, ilogb(w) - 52);
}

/* |got - want| in ulps of want; infinities and NaN must match exactly */
static double ulp_err(double got, double want, bool single)
{
    if (isinf(want) || isnan(want) || isinf(got) || isnan(got))
        return (got == want || (isnan(got) && isnan(want))) ? 0.0 : INFINITY;
    return fabs(got - want) / ulp_of(want, single);
}

/* out = op(x[, y]) on dev, n elements of dtype t (f32 or f64), into a
 * poisoned output; the result to host doubles */
static void run_op(nd_device dev, bool binary, int op, nd_dtype t, const double *x, const double *y, int64_t n,
                   double *res)
{
    bool single = t == ND_FLOAT32;
    void *hx = malloc((size_t)n * 8), *hy = malloc((size_t)n * 8), *ho = malloc((size_t)n * 8);
    ck_assert(hx && hy && ho);
    for (int64_t i = 0; i < n; i++) {
        if (single) {
            ((float *)hx)[i] = (float)x[i];
            ((float *)hy)[i] = (float)(y ? y[i] : 0);
        } else {
            ((double *)hx)[i] = x[i];
            ((double *)hy)[i] = y ? y[i] : 0;
        }
    }
    nd_array *a = NULL, *b = NULL, *o = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, hx, t, 1, &n, dev));
    ND_OK_OR_FAIL(nd_from_host(&b, hy, t, 1, &n, dev));
    ND_OK_OR_FAIL(nd_full(&o, t, 1, &n, nd_scalar_float(-12345.0), dev)); /* poison */
    nd_array *o0 = o;
    if (binary) ND_OK_OR_FAIL(nd_binary(&o, (nd_binary_op)op, a, b));
    else ND_OK_OR_FAIL(nd_unary(&o, (nd_unary_op)op, a));
    ck_assert_ptr_eq(o, o0); /* written in place */
    ND_OK_OR_FAIL(nd_copy_to_host(ho, o, (size_t)n * (single ? 4 : 8)));
    for (int64_t i = 0; i < n; i++) res[i] = single ? (double)((float *)ho)[i] : ((double *)ho)[i];
    nd_release(a);
    nd_release(b);
    nd_release(o);
    free(hx);
    free(hy);
    free(ho);
}

/* Every op of the tables on dev in dtype t: worst ulp per op within its
 * bound; the results of the op's rows in got (by row) */
static void check_tables(nd_device dev, const char *devname, nd_dtype t, double *got)
{
    const bool single = t == ND_FLOAT32;
    const sp_row *rows = single ? ref_f32 : ref_f64;
    const int nrows = (int)(single ? sizeof ref_f32 / sizeof ref_f32[0] : sizeof ref_f64 / sizeof ref_f64[0]);
    double *x = malloc(sizeof(double) * (size_t)nrows), *y = malloc(sizeof(double) * (size_t)nrows);
    ck_assert(x && y);
    int covered = 0;
    for (int b = 0; b < NBOUND; b++) {
        bool binary;
        int op = op_of(bound[b].name, &binary);
        ck_assert_msg(op >= 0, "no op %s", bound[b].name);
        int first = -1, n = 0;
        for (int r = 0; r < nrows; r++)
            if (strcmp(rows[r].name, bound[b].name) == 0) {
                if (first < 0) first = r;
                ck_assert_int_eq(r, first + n); /* an op's rows are contiguous */
                x[n] = rows[r].x;
                y[n] = rows[r].y;
                n++;
            }
        ck_assert_msg(n >= 100, "%s: only %d reference rows", bound[b].name, n);
        run_op(dev, binary, op, t, x, binary ? y : NULL, n, got + first);
        double worst = 0;
        int at = first;
        for (int i = 0; i < n; i++) {
            double e = ulp_err(got[first + i], rows[first + i].want, single);
            if (e > worst) worst = e, at = first + i;
        }
        double lim = single ? bound[b].f32 : bound[b].f64;
        ck_assert_msg(lim <= (single ? 2 : 4), "%s: the bound exceeds the goal", bound[b].name);
        ck_assert_msg(worst <= lim, "%s %s on %s (path %s): %.2f ulp > %.0f at x = %a, y = %a: got %a, want %a",
                      bound[b].name, nd_dtype_name(t), devname, nd__cpu_isa_name(nd__cpu_isa()), worst, lim,
                      rows[at].x, rows[at].y, got[at], rows[at].want);
        covered++;
    }
    ck_assert_int_eq(covered, NBOUND);
    free(x);
    free(y);
}

static void accuracy_on(nd_device dev, const char *devname)
{
    double *g = malloc(sizeof ref_f64 / sizeof ref_f64[0] * sizeof(double) + sizeof ref_f32 / sizeof ref_f32[0] * sizeof(double));
    ck_assert(g);
    check_tables(dev, devname, ND_FLOAT64, g);
    check_tables(dev, devname, ND_FLOAT32, g);
    free(g);
}

START_TEST(accuracy_cpu) { accuracy_on(nd_cpu(), "cpu"); }
END_TEST
START_TEST(accuracy_cuda) { accuracy_on(nd_cuda(0), "cuda:0"); }
END_TEST

/* Every bound names an op of the table, and every special op has a bound
 * (an op added to ops_special.h without reference rows fails here). */
START_TEST(bounds_cover_the_ops)
{
    static const char *const ops[] = {"erf", "erfc", "erfinv", "erfcinv", "erfcx", "ndtr", "ndtri", "log_ndtr",
                                      "logit", "log_expit", "softplus", "entr", "sinc", "gelu", "gelu_tanh", "silu",
                                      "mish", "relu6", "hardswish", "selu", "xlogy", "xlog1py", "leaky_relu", "elu"};
    ck_assert_int_eq((int)(sizeof ops / sizeof ops[0]), NBOUND);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        bool binary, found = false;
        ck_assert_msg(op_of(ops[k], &binary) >= 0, "%s is not an op", ops[k]);
        for (int b = 0; b < NBOUND; b++) found |= strcmp(bound[b].name, ops[k]) == 0;
        ck_assert_msg(found, "%s has no bound", ops[k]);
    }
    /* the special ops are the table's last 20 unary and 4 binary ops */
    ck_assert_int_eq(ND_UNARY_SELU - ND_UNARY_ERF, 19);
    ck_assert_int_eq(ND_BINARY_ELU - ND_BINARY_XLOGY, 3);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Special values, bit for bit (sign of zero, NaN)                      */
/* ------------------------------------------------------------------ */
typedef struct {
    const char *name;
    double x, y, want;
} sp_val;
#define NEG0 (-0.0)
static const sp_val specials[] = {
    {"erf", 0.0, 0, 0.0}, {"erf", NEG0, 0, NEG0}, {"erf", INFINITY, 0, 1}, {"erf", -INFINITY, 0, -1},
    {"erf", NAN, 0, NAN}, {"erfc", INFINITY, 0, 0}, {"erfc", -INFINITY, 0, 2}, {"erfc", 0.0, 0, 1},
    {"erfc", 30.0, 0, 0}, {"erfc", NAN, 0, NAN},
    {"erfinv", 1, 0, INFINITY}, {"erfinv", -1, 0, -INFINITY}, {"erfinv", 0.0, 0, 0.0},
    {"erfinv", NEG0, 0, 0.0} /* SciPy: +0 */, {"erfinv", 1.5, 0, NAN}, {"erfinv", -INFINITY, 0, NAN},
    {"erfinv", NAN, 0, NAN}, {"erfcinv", 0.0, 0, INFINITY}, {"erfcinv", 2, 0, -INFINITY},
    {"erfcinv", 1, 0, NEG0} /* SciPy: -0 */, {"erfcinv", -0.5, 0, NAN}, {"erfcinv", 2.5, 0, NAN},
    {"erfcinv", NAN, 0, NAN}, {"erfcx", INFINITY, 0, 0}, {"erfcx", -INFINITY, 0, INFINITY},
    {"erfcx", 0.0, 0, 1}, {"erfcx", -30, 0, INFINITY}, {"erfcx", NAN, 0, NAN},
    {"ndtr", -INFINITY, 0, 0}, {"ndtr", INFINITY, 0, 1}, {"ndtr", 0.0, 0, 0.5}, {"ndtr", -40, 0, 0},
    {"ndtr", NAN, 0, NAN}, {"ndtri", 0.0, 0, -INFINITY}, {"ndtri", 1, 0, INFINITY}, {"ndtri", 0.5, 0, 0.0},
    {"ndtri", -0.1, 0, NAN}, {"ndtri", 1.1, 0, NAN}, {"ndtri", NAN, 0, NAN},
    {"log_ndtr", -INFINITY, 0, -INFINITY}, {"log_ndtr", INFINITY, 0, NEG0}, {"log_ndtr", NAN, 0, NAN},
    {"logit", 0.0, 0, -INFINITY}, {"logit", 1, 0, INFINITY}, {"logit", 0.5, 0, 0.0}, {"logit", -0.5, 0, NAN},
    {"logit", 2, 0, NAN}, {"logit", NAN, 0, NAN}, {"log_expit", INFINITY, 0, NEG0},
    {"log_expit", -INFINITY, 0, -INFINITY}, {"log_expit", NAN, 0, NAN}, {"softplus", -INFINITY, 0, 0.0},
    {"softplus", INFINITY, 0, INFINITY}, {"softplus", 1000, 0, 1000}, {"softplus", NAN, 0, NAN},
    {"entr", 0.0, 0, 0.0}, {"entr", 1, 0, NEG0}, {"entr", -1, 0, -INFINITY}, {"entr", INFINITY, 0, -INFINITY},
    {"entr", NAN, 0, NAN}, {"sinc", 0.0, 0, 1}, {"sinc", NEG0, 0, 1}, {"sinc", 1, 0, 0.0}, {"sinc", -3, 0, 0.0},
    {"sinc", 0x1p60, 0, 0.0}, {"sinc", INFINITY, 0, NAN}, {"sinc", -INFINITY, 0, NAN}, {"sinc", NAN, 0, NAN},
    {"sinc", 0.5, 0, 0.63661977236758134}, /* 2/pi */
    {"gelu", -INFINITY, 0, NEG0}, {"gelu", INFINITY, 0, INFINITY}, {"gelu", 0.0, 0, 0.0}, {"gelu", NEG0, 0, NEG0},
    {"gelu", -1e300, 0, NEG0}, {"gelu", NAN, 0, NAN}, {"gelu_tanh", -INFINITY, 0, NEG0},
    {"gelu_tanh", INFINITY, 0, INFINITY}, {"gelu_tanh", NEG0, 0, NEG0}, {"gelu_tanh", -1e200, 0, NEG0},
    {"gelu_tanh", 1e200, 0, 1e200}, {"gelu_tanh", NAN, 0, NAN}, {"silu", -INFINITY, 0, NEG0},
    {"silu", INFINITY, 0, INFINITY}, {"silu", NEG0, 0, NEG0}, {"silu", NAN, 0, NAN},
    {"mish", -INFINITY, 0, NEG0}, {"mish", INFINITY, 0, INFINITY}, {"mish", NEG0, 0, NEG0},
    {"mish", NAN, 0, NAN}, {"relu6", NEG0, 0, 0.0}, {"relu6", 7, 0, 6}, {"relu6", -7, 0, 0.0},
    {"relu6", INFINITY, 0, 6}, {"relu6", NAN, 0, NAN}, {"hardswish", -INFINITY, 0, NEG0},
    {"hardswish", -3, 0, NEG0}, {"hardswish", 3, 0, 3}, {"hardswish", INFINITY, 0, INFINITY},
    {"hardswish", NAN, 0, NAN}, {"selu", -INFINITY, 0, -1.75809934084737685994} /* -scale alpha */, {"selu", NEG0, 0, NEG0},
    {"selu", INFINITY, 0, INFINITY}, {"selu", NAN, 0, NAN},
    {"xlogy", 0.0, 0.0, 0.0}, {"xlogy", 0.0, -1, 0.0}, {"xlogy", 0.0, NAN, NAN}, {"xlogy", NAN, 0.0, NAN},
    {"xlogy", 1, 0.0, -INFINITY}, {"xlogy", 2, -1, NAN}, {"xlogy", 0.0, INFINITY, 0.0},
    {"xlog1py", 0.0, -1, 0.0}, {"xlog1py", 0.0, NAN, NAN}, {"xlog1py", 1, -1, -INFINITY},
    {"xlog1py", 3, -2, NAN}, {"leaky_relu", NEG0, 0.01, NEG0}, {"leaky_relu", -2, 0.5, -1},
    {"leaky_relu", NAN, 0.5, NAN}, {"leaky_relu", -INFINITY, 0.5, -INFINITY}, {"elu", -INFINITY, 2, -2},
    {"elu", NEG0, 1, NEG0}, {"elu", 5, 2, 5}, {"elu", NAN, 1, NAN},
};

static bool same_bits(double got, double want)
{
    if (isnan(want)) return isnan(got);
    return got == want && signbit(got) == signbit(want);
}

static void specials_on(nd_device dev, const char *devname)
{
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
        const sp_val *v = &specials[k];
        bool binary;
        int op = op_of(v->name, &binary);
        ck_assert(op >= 0);
        for (int s = 0; s < 2; s++) {
            nd_dtype t = s ? ND_FLOAT32 : ND_FLOAT64;
            double got;
            run_op(dev, binary, op, t, &v->x, binary ? &v->y : NULL, 1, &got);
            double want = s ? (double)(float)v->want : v->want;
            ck_assert_msg(same_bits(got, want), "%s(%g, %g) %s on %s: got %a, want %a", v->name, v->x, v->y,
                          nd_dtype_name(t), devname, got, want);
        }
    }
}

START_TEST(special_values_cpu) { specials_on(nd_cpu(), "cpu"); }
END_TEST
START_TEST(special_values_cuda) { specials_on(nd_cuda(0), "cuda:0"); }
END_TEST

/* cuda:0 computes every op with the CPU's scalar body: bit for bit the
 * same results as the CPU where the CPU runs that body too (every op but
 * those with a vector kernel on the CPU's path; all on the baseline path). */
START_TEST(cpu_equals_cuda)
{
    for (int s = 0; s < 2; s++) {
        nd_dtype t = s ? ND_FLOAT32 : ND_FLOAT64;
        const sp_row *rows = s ? ref_f32 : ref_f64;
        const int nrows = (int)(s ? sizeof ref_f32 / sizeof ref_f32[0] : sizeof ref_f64 / sizeof ref_f64[0]);
        double *x = malloc(sizeof(double) * (size_t)nrows), *y = malloc(sizeof(double) * (size_t)nrows);
        double *gc = malloc(sizeof(double) * (size_t)nrows), *gg = malloc(sizeof(double) * (size_t)nrows);
        ck_assert(x && y && gc && gg);
        int compared = 0;
        for (int b = 0; b < NBOUND; b++) {
            bool binary;
            int op = op_of(bound[b].name, &binary);
            if (!binary && nd__vmath(nd__cpu_isa(), (nd_unary_op)op, t)) continue; /* the CPU's own kernel */
            int n = 0;
            for (int r = 0; r < nrows; r++)
                if (strcmp(rows[r].name, bound[b].name) == 0) x[n] = rows[r].x, y[n] = rows[r].y, n++;
            run_op(nd_cpu(), binary, op, t, x, binary ? y : NULL, n, gc);
            run_op(nd_cuda(0), binary, op, t, x, binary ? y : NULL, n, gg);
            for (int i = 0; i < n; i++)
                ck_assert_msg(same_bits(gc[i], gg[i]), "%s %s at %a: cpu %a, cuda:0 %a", bound[b].name,
                              nd_dtype_name(t), x[i], gc[i], gg[i]);
            compared++;
        }
        ck_assert_int_ge(compared, NBOUND - 3);
        free(x);
        free(y);
        free(gc);
        free(gg);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Names, expit, weak-scalar parameters, the expression language        */
/* ------------------------------------------------------------------ */
static nd_array *vec_f32_on(const float *v, int64_t n, nd_device dev)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, v, ND_FLOAT32, 1, &n, dev));
    return a;
}
static nd_array *vec_f32(const float *v, int64_t n) { return vec_f32_on(v, n, nd_cpu()); }

START_TEST(names_and_expit)
{
    ck_assert_str_eq(nd_unary_op_name(ND_UNARY_GELU_TANH), "gelu_tanh");
    ck_assert_str_eq(nd_binary_op_name(ND_BINARY_LEAKY_RELU), "leaky_relu");
    ck_assert_int_eq(ND_UNARY_EXPIT, ND_UNARY_SIGMOID);
    const float v[5] = {-3.5f, -0.25f, 0.0f, 1.5f, 20.0f};
    nd_array *a = vec_f32(v, 5), *e = NULL, *s = NULL, *g = NULL, *u = NULL;
    ND_OK_OR_FAIL(nd_expit(&e, a));
    ND_OK_OR_FAIL(nd_sigmoid(&s, a));
    float he[5], hs[5], hg[5], hu[5];
    ND_OK_OR_FAIL(nd_copy_to_host(he, e, sizeof he));
    ND_OK_OR_FAIL(nd_copy_to_host(hs, s, sizeof hs));
    ck_assert(memcmp(he, hs, sizeof he) == 0);
    /* a named wrapper is the op */
    ND_OK_OR_FAIL(nd_gelu(&g, a));
    ND_OK_OR_FAIL(nd_unary(&u, ND_UNARY_GELU, a));
    ND_OK_OR_FAIL(nd_copy_to_host(hg, g, sizeof hg));
    ND_OK_OR_FAIL(nd_copy_to_host(hu, u, sizeof hu));
    ck_assert(memcmp(hg, hu, sizeof hg) == 0);
    ck_assert_float_eq(hg[3], (float)(1.5 * 0.5 * erfc(-1.5 / sqrt(2.0))));
    /* integer input: the FLOAT rule (int32 -> float64) */
    const int32_t iv[3] = {-1, 0, 2};
    int64_t n3 = 3;
    nd_array *ia = NULL, *io = NULL;
    ND_OK_OR_FAIL(nd_from_host(&ia, iv, ND_INT32, 1, &n3, nd_cpu()));
    ND_OK_OR_FAIL(nd_erf(&io, ia));
    ck_assert_int_eq(nd_dtype_of(io), ND_FLOAT64);
    double hi[3];
    ND_OK_OR_FAIL(nd_copy_to_host(hi, io, sizeof hi));
    ck_assert(fabs(hi[2] - erf(2.0)) <= 2e-16);
    nd_release(ia);
    nd_release(io);
    nd_release(a);
    nd_release(e);
    nd_release(s);
    nd_release(g);
    nd_release(u);
}
END_TEST

/* leaky_relu / elu with a weak scalar parameter keep float32 (NEP 50) */
START_TEST(scalar_parameter)
{
    const float v[4] = {-2.0f, -0.5f, 0.0f, 3.0f};
    nd_array *a = vec_f32(v, 4), *l = NULL, *e = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&l, ND_BINARY_LEAKY_RELU, a, nd_scalar_float(0.1)));
    ND_OK_OR_FAIL(nd_binary_scalar(&e, ND_BINARY_ELU, a, nd_scalar_float(1.5)));
    ck_assert_int_eq(nd_dtype_of(l), ND_FLOAT32);
    ck_assert_int_eq(nd_dtype_of(e), ND_FLOAT32);
    float hl[4], he[4];
    ND_OK_OR_FAIL(nd_copy_to_host(hl, l, sizeof hl));
    ND_OK_OR_FAIL(nd_copy_to_host(he, e, sizeof he));
    for (int i = 0; i < 4; i++) {
        ck_assert_float_eq(hl[i], (v[i] > 0 ? v[i] : v[i] * 0.1f));
        ck_assert_float_eq(he[i], (v[i] > 0 ? v[i] : (float)(1.5 * expm1((double)v[i]))));
    }
    nd_release(a);
    nd_release(l);
    nd_release(e);
}
END_TEST

/* the expression language knows the new names (its parser and fused
 * kernels, whose source embeds src/shared/ops_special.h on a GPU, go
 * through the same op table) */
static void expression_on(nd_device dev)
{
    const float va[4] = {-1.25f, 0.5f, 2.0f, 7.0f}, vb[4] = {0.5f, 2.0f, 0.25f, 1.0f};
    nd_array *a = vec_f32_on(va, 4, dev), *b = vec_f32_on(vb, 4, dev), *r = NULL;
    const char *names[2] = {"a", "b"};
    const nd_array *args[2] = {a, b};
    ND_OK_OR_FAIL(nd_expr_eval(&r, "gelu(a) + xlogy(b, b) * erf(a) - leaky_relu(a, 0.1)", 2, names, args));
    float hr[4];
    ND_OK_OR_FAIL(nd_copy_to_host(hr, r, sizeof hr));
    for (int i = 0; i < 4; i++) {
        double x = va[i], y = vb[i];
        double want = x * 0.5 * erfc(-x / sqrt(2.0)) + y * log(y) * erf(x) - (x > 0 ? x : 0.1 * x);
        ck_assert_msg(fabs(hr[i] - want) <= 1e-5 * (1 + fabs(want)), "element %d: %g vs %g", i, hr[i], want);
    }
    nd_release(a);
    nd_release(b);
    nd_release(r);
}
START_TEST(expression) { expression_on(nd_cpu()); }
END_TEST
START_TEST(expression_cuda) { expression_on(nd_cuda(0)); }
END_TEST

START_TEST(bad_input)
{
    const float v[3] = {0.1f, 0.2f, 0.3f};
    nd_array *a = vec_f32(v, 3), *c = NULL, *b2 = NULL;
    ND_EXPECT_ERR(nd_erf(NULL, a), ND_ERR_INVALID, "nd_erf");
    nd_array *keep = NULL;
    ND_EXPECT_ERR(nd_gelu(&keep, NULL), ND_ERR_INVALID, "nd_gelu");
    ck_assert_ptr_null(keep);
    ND_OK_OR_FAIL(nd_astype(&c, a, ND_COMPLEX64));
    ND_EXPECT_ERR(nd_erfinv(&keep, c), ND_ERR_DTYPE, "complex64");
    ck_assert_ptr_null(keep);
    ND_EXPECT_ERR(nd_expit(&keep, NULL), ND_ERR_INVALID, "nd_expit");
    int64_t two = 2;
    ND_OK_OR_FAIL(nd_zeros(&b2, ND_FLOAT32, 1, &two, nd_cpu()));
    ND_EXPECT_ERR(nd_xlogy(&keep, a, b2), ND_ERR_SHAPE, "(3,)");
    ck_assert_ptr_null(keep);
    /* a wrong out: untouched */
    nd_array *o = b2;
    ND_EXPECT_ERR(nd_silu(&o, a), ND_ERR_SHAPE, "nd_silu");
    ck_assert_ptr_eq(o, b2);
    nd_release(a);
    nd_release(c);
    nd_release(b2);
}
END_TEST

Suite *suite_special(void)
{
    Suite *s = suite_create("special");
    TCase *tc = tcase_create("special");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bounds_cover_the_ops);
    tcase_add_test(tc, accuracy_cpu);
    tcase_add_test(tc, special_values_cpu);
    tcase_add_test(tc, names_and_expit);
    tcase_add_test(tc, scalar_parameter);
    tcase_add_test(tc, expression);
    tcase_add_test(tc, bad_input);
    if (nd_test_gpu_count() > 0) {
        tcase_add_test(tc, accuracy_cuda);
        tcase_add_test(tc, special_values_cuda);
        tcase_add_test(tc, cpu_equals_cuda);
        tcase_add_test(tc, expression_cuda);
    } else {
        printf("special: the cuda:0 cases SKIPPED (no CUDA device)\n");
        fflush(stdout);
    }
    suite_add_tcase(s, tc);
    return s;
}
