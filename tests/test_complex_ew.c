/* The native complex loops of the op table: every unary and
 * binary op whose kinds column has a C, on complex64 and complex128, in
 * every layout the backends treat differently (contiguous, strided,
 * transposed, broadcast, 0-d, a given out, in place, weak scalars) against
 * the shared scalar bodies evaluated on the host, on the CPU and on cuda:0
 * when there is one (the emulated GPU in `make emu-test`). The bodies
 * themselves are checked against glibc and NumPy's formulas by the
 * ops_cpx suite (tests/test_ops_cpx.c) and against NumPy itself by
 * tests/test_complex_numpy.py; this suite checks that every loop reaches
 * them with the right dtypes, strides and results (abs, kinds 'a': a real
 * result). Every op without complex loops must refuse complex with
 * ND_ERR_DTYPE. Values include inf, NaN and signed zeros in either part. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "creation_util.h"
#include "ndgpu.h"
#include "shared/ops_math.h"
#include "test_util.h"
/* C's complex functions for the long double reference; its macro I would
 * collide with the op table's kind letters */
#include <complex.h>
#undef I

/* ---- the host reference: the loop dtype's body on one element ----- */
#define CX_UCASE(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule, E)                  \
    case (int)ND_UNARY_##E * ND_NUM_DTYPES + (int)DT: {                           \
        ST x;                                                                     \
        memcpy(&x, in, sizeof x);                                                 \
        ND_OP_OUT_##rule(ST) r = ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(LD(x))); \
        memcpy(out, &r, sizeof r);                                                \
        return true;                                                              \
    }
#define CX_BCASE(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule, E)                  \
    case (int)ND_BINARY_##E * ND_NUM_DTYPES + (int)DT: {                          \
        ST x, y;                                                                  \
        memcpy(&x, in, sizeof x);                                                 \
        memcpy(&y, in2, sizeof y);                                                \
        ND_OP_OUT_##rule(ST) r = ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(LD(x), LD(y))); \
        memcpy(out, &r, sizeof r);                                                \
        return true;                                                              \
    }
#define CX_UGEN(E, name, kinds, rule) ND_OP_LOOPS_CPX(kinds, rule, CX_UCASE, name, rule, E)
#define CX_BGEN(E, name, kinds, rule) ND_OP_LOOPS_CPX(kinds, rule, CX_BCASE, name, rule, E)

/* out = op(in) (op(in, in2)) with the body of loop dtype lt; false when
 * there is no such complex loop. */
static bool ref_unary(int op, nd_dtype lt, const void *in, void *out)
{
    switch (op * ND_NUM_DTYPES + (int)lt) {
        ND_UNARY_OPS(CX_UGEN)
    default: return false;
    }
}
static bool ref_binary(int op, nd_dtype lt, const void *in, const void *in2, void *out)
{
    switch (op * ND_NUM_DTYPES + (int)lt) {
        ND_BINARY_OPS(CX_BGEN)
    default: return false;
    }
}

#define CX_UKINDS(E, n, k, r) #k,
#define CX_BKINDS(E, n, k, r) #k,
#define CX_URULE(E, n, k, r) #r,
static const char *const ukinds[ND_NUM_UNARY_OPS] = {ND_UNARY_OPS(CX_UKINDS)};
static const char *const bkinds[ND_NUM_BINARY_OPS] = {ND_BINARY_OPS(CX_BKINDS)};
static const char *const urules[ND_NUM_UNARY_OPS] = {ND_UNARY_OPS(CX_URULE)};
static const char *const brules[ND_NUM_BINARY_OPS] = {ND_BINARY_OPS(CX_URULE)};

/* Whether kinds has complex loops: C, or a (abs: a real result). */
static bool has_cpx(const char *kinds) { return strchr(kinds, 'C') != NULL || strchr(kinds, 'a') != NULL; }
/* The loop dtype (complex) and result dtype of an op with rule r on t. */
static nd_dtype loop_of(const char *rule, nd_dtype t) { return strcmp(rule, "F64") == 0 ? ND_COMPLEX128 : t; }
static nd_dtype res_of(const char *kinds, const char *rule, nd_dtype t)
{
    if (strchr(kinds, 'a') != NULL) return t == ND_COMPLEX64 ? ND_FLOAT32 : ND_FLOAT64;
    return strcmp(rule, "BOOL") == 0 ? ND_BOOL : loop_of(rule, t);
}

/* ---- the long double reference (complex128 loops) -------------------
 * The complex128 bodies call the double functions of libm (glibc on the
 * CPU and the emulated GPU) or of libdevice (a GPU), whose documented
 * maximum errors differ (CUDA's exp, log: 1 ulp; sin, cos, tan, atan2,
 * hypot: 2 ulp; asinh, acosh: 3 ulp): comparing a GPU with glibc at a few
 * ulps would fail at random. So the complex128 results of the
 * transcendental ops are compared with C's complex functions in long
 * double (64-bit significands: far closer to exact than either), within
 *     (CX_LD_ULPS[op] + 2 kappa) eps max(|re|, |im|)
 * per part, where CX_LD_ULPS is the budget of the op's body (its libm or
 * libdevice calls at their documented bounds, a few each, and its own
 * rounded operations) and kappa = |z| |f'(z)| / max(|re f|, |im f|) the
 * op's condition number at the input (a double body rounds its arguments,
 * e.g. z ln 2 for exp2, and such an error grows by kappa). For power,
 * kappa = |w| + |w log z|. Special inputs (inf, NaN) and non-finite
 * results are compared with the host body, within the op's budget (they
 * follow fixed rules; NaN where NaN, the same infinities). */
static bool ld_fn(int op, long double complex z, long double complex *r)
{
    static const long double ln2 = 0.693147180559945309417232121458176568L;
    static const long double ln10 = 2.302585092994045684017991454684364208L;
    switch (op) {
    case ND_UNARY_SQRT: *r = csqrtl(z); return true;
    case ND_UNARY_EXP: *r = cexpl(z); return true;
    case ND_UNARY_EXP2: *r = cexpl(z * ln2); return true;
    case ND_UNARY_EXPM1: { /* exp(z) - 1 without cancellation */
        const long double x = creall(z), y = cimagl(z), sh = sinl(y / 2);
        *r = CMPLXL(expm1l(x) * cosl(y) - 2 * sh * sh, expl(x) * sinl(y));
        return true;
    }
    case ND_UNARY_LOG: *r = clogl(z); return true;
    case ND_UNARY_LOG2: *r = clogl(z) / ln2; return true;
    case ND_UNARY_LOG10: *r = clogl(z) / ln10; return true;
    case ND_UNARY_LOG1P: { /* log(1 + z) without cancellation */
        const long double x = creall(z), y = cimagl(z);
        *r = CMPLXL(0.5L * log1pl(x * (2 + x) + y * y), atan2l(y, 1 + x));
        return true;
    }
    case ND_UNARY_SIN: *r = csinl(z); return true;
    case ND_UNARY_COS: *r = ccosl(z); return true;
    case ND_UNARY_TAN: *r = ctanl(z); return true;
    case ND_UNARY_ARCSIN: *r = casinl(z); return true;
    case ND_UNARY_ARCCOS: *r = cacosl(z); return true;
    case ND_UNARY_ARCTAN: *r = catanl(z); return true;
    case ND_UNARY_SINH: *r = csinhl(z); return true;
    case ND_UNARY_COSH: *r = ccoshl(z); return true;
    case ND_UNARY_TANH: *r = ctanhl(z); return true;
    case ND_UNARY_ARCSINH: *r = casinhl(z); return true;
    case ND_UNARY_ARCCOSH: *r = cacoshl(z); return true;
    case ND_UNARY_ARCTANH: *r = catanhl(z); return true;
    case ND_UNARY_ABS: *r = cabsl(z); return true;
    case ND_UNARY_SIGN: *r = z / cabsl(z); return true;
    default: return false;
    }
}

/* |f'(z)| of op (for the condition number). */
static long double ld_deriv(int op, long double complex z)
{
    static const long double ln2 = 0.693147180559945309417232121458176568L;
    static const long double ln10 = 2.302585092994045684017991454684364208L;
    switch (op) {
    case ND_UNARY_SQRT: return 0.5L / cabsl(csqrtl(z));
    case ND_UNARY_EXP:
    case ND_UNARY_EXPM1: return cabsl(cexpl(z));
    case ND_UNARY_EXP2: return ln2 * cabsl(cexpl(z * ln2));
    case ND_UNARY_LOG: return 1 / cabsl(z);
    case ND_UNARY_LOG2: return 1 / (ln2 * cabsl(z));
    case ND_UNARY_LOG10: return 1 / (ln10 * cabsl(z));
    case ND_UNARY_LOG1P: return 1 / cabsl(1 + z);
    case ND_UNARY_SIN: return cabsl(ccosl(z));
    case ND_UNARY_COS: return cabsl(csinl(z));
    case ND_UNARY_TAN: return 1 / (cabsl(ccosl(z)) * cabsl(ccosl(z)));
    case ND_UNARY_SINH: return cabsl(ccoshl(z));
    case ND_UNARY_COSH: return cabsl(csinhl(z));
    case ND_UNARY_TANH: return 1 / (cabsl(ccoshl(z)) * cabsl(ccoshl(z)));
    case ND_UNARY_ARCSIN:
    case ND_UNARY_ARCCOS: return 1 / sqrtl(cabsl(1 - z * z));
    case ND_UNARY_ARCTAN: return 1 / cabsl(1 + z * z);
    case ND_UNARY_ARCSINH: return 1 / sqrtl(cabsl(1 + z * z));
    case ND_UNARY_ARCCOSH: return 1 / sqrtl(cabsl(z * z - 1));
    case ND_UNARY_ARCTANH: return 1 / cabsl(1 - z * z);
    case ND_UNARY_ABS: return 1;
    case ND_UNARY_SIGN: return 2 / cabsl(z);
    default: return INFINITY;
    }
}

/* The budget (ulps) of each op's complex128 body; 0: not compared here. */
static double ld_ulps_unary(int op)
{
    switch (op) {
    case ND_UNARY_ABS: return 4;
    case ND_UNARY_SQRT:
    case ND_UNARY_SIGN:
    case ND_UNARY_EXP:
    case ND_UNARY_EXP2:
    case ND_UNARY_EXPM1:
    case ND_UNARY_LOG:
    case ND_UNARY_LOG2:
    case ND_UNARY_LOG10:
    case ND_UNARY_LOG1P:
    case ND_UNARY_SIN:
    case ND_UNARY_COS:
    case ND_UNARY_SINH:
    case ND_UNARY_COSH: return 8;
    case ND_UNARY_TAN:
    case ND_UNARY_TANH:
    case ND_UNARY_ARCSIN:
    case ND_UNARY_ARCCOS:
    case ND_UNARY_ARCTAN:
    case ND_UNARY_ARCSINH:
    case ND_UNARY_ARCCOSH:
    case ND_UNARY_ARCTANH: return 16;
    default: return 0;
    }
}

static long double ld_mag(long double complex r) { return fmaxl(fabsl(creall(r)), fabsl(cimagl(r))); }

/* The long double reference of unary op at x (complex128 parts) and its
 * tolerance in units of eps * magnitude; false: not compared here. */
static bool ld_unary(int op, const double x[2], long double w[2], double *ulps)
{
    const double base = ld_ulps_unary(op);
    /* where there is no long double comparison (special or ill-conditioned
     * inputs), the host body is the reference, with the same budget: both
     * sides evaluate the same double arguments with their own libm */
    *ulps = base;
    if (base == 0 || !isfinite(x[0]) || !isfinite(x[1])) return false;
    const long double complex z = CMPLXL(x[0], x[1]);
    long double complex r;
    if (!ld_fn(op, z, &r)) return false;
    const long double m = ld_mag(r), az = cabsl(z);
    if (!isfinite(creall(r)) || !isfinite(cimagl(r)) || m == 0) return false;
    /* a double argument is off by up to eps |z| (and the body's own
     * arguments, such as z ln 2, by a few eps |z|): kappa = |z f'| / |f| */
    const long double kappa = az * ld_deriv(op, z) / m;
    if (!isfinite(kappa)) return false;
    w[0] = creall(r), w[1] = cimagl(r);
    *ulps = base + 2 * (double)kappa;
    return true;
}

static bool ld_binary(int op, const double x[2], const double y[2], long double w[2], double *ulps)
{
    if (op != ND_BINARY_POWER && op != ND_BINARY_FLOAT_POWER) return false;
    *ulps = 16; /* the host body's budget where there is no long double comparison */
    if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(y[0]) || !isfinite(y[1])) return false;
    const long double complex z = CMPLXL(x[0], x[1]), e = CMPLXL(y[0], y[1]);
    if (cabsl(z) == 0) return false; /* 0 ** w: fixed rules */
    const long double complex r = cpowl(z, e);
    const long double m = ld_mag(r);
    if (!isfinite(creall(r)) || !isfinite(cimagl(r)) || m == 0) return false;
    const long double kappa = cabsl(e) + cabsl(e * clogl(z));
    w[0] = creall(r), w[1] = cimagl(r);
    *ulps = 16 + 2 * (double)kappa;
    return true;
}

/* got (result dtype rt: complex128, or float64 for abs) against the long
 * double reference w within ulps (see above). */
static bool close_ld(nd_dtype rt, const unsigned char *got, const long double w[2], double ulps)
{
    double g[2] = {0, 0};
    memcpy(g, got, rt == ND_COMPLEX128 ? 16 : 8);
    const long double mag = fmaxl(fabsl(w[0]), fabsl(w[1]));
    for (int k = 0; k < (rt == ND_COMPLEX128 ? 2 : 1); k++)
        if (!(fabsl((long double)g[k] - w[k]) <= (long double)ulps * 0x1p-52L * mag)) return false;
    return true;
}

/* ---- inputs ---------------------------------------------------------- */
/* Element i of input `which` (re, im): mostly moderate random values, with
 * specials (inf, NaN, signed zeros, huge, tiny, exact 1 and -1) in either
 * part at fixed positions, so that every layout sees some. */
static void value(int which, int64_t i, double *re, double *im)
{
    static const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e30, -1e-30, 1.0, -1.0, 0.5, 2.0};
    const int nsp = (int)(sizeof sp / sizeof sp[0]);
    uint64_t h = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(which + 7) * 0xD1B54A32D192ED03ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    double u = (double)(h >> 11) * 0x1p-53, v = (double)((h * 0x94D049BB133111EBull) >> 11) * 0x1p-53;
    *re = 6 * u - 3, *im = 6 * v - 3;
    if (i % 7 == 3) *re = sp[(i / 7 + which) % nsp];
    if (i % 11 == 5) *im = sp[(i / 11 + 2 * which) % nsp];
}

/* A complex array of dtype t and shape (ndim, shape) on dev with the
 * values of input `which` in C order, and its host copy (element i at
 * host + i * itemsize). */
static nd_array *make_in(nd_dtype t, int which, int ndim, const int64_t *shape, nd_device dev, unsigned char **host)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    const size_t isz = nd_dtype_size(t);
    unsigned char *raw = malloc((size_t)n * isz + 16);
    ck_assert(raw != NULL);
    for (int64_t i = 0; i < n; i++) {
        double re, im;
        value(which, i, &re, &im);
        if (t == ND_COMPLEX64) {
            float v[2] = {(float)re, (float)im};
            memcpy(raw + (size_t)i * isz, v, sizeof v);
        } else {
            double v[2] = {re, im};
            memcpy(raw + (size_t)i * isz, v, sizeof v);
        }
    }
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, raw, t, ndim, shape, dev));
    *host = raw;
    return a;
}

/* The host element (as stored in t) converted to loop dtype lt. */
static void to_loop(nd_dtype t, nd_dtype lt, const unsigned char *p, unsigned char *q)
{
    if (t == lt) {
        memcpy(q, p, nd_dtype_size(t));
        return;
    }
    float f[2]; /* complex64 -> complex128 (F64 rule) */
    memcpy(f, p, sizeof f);
    double d[2] = {f[0], f[1]};
    memcpy(q, d, sizeof d);
}

/* got vs want for one element of result dtype rt (bytes), tolerance in
 * units of the part type's epsilon times the result's magnitude; exact
 * for bool, NaN where NaN, the same infinities. */
static bool close_elem(nd_dtype rt, const unsigned char *got, const unsigned char *want, double ulps)
{
    if (rt == ND_BOOL) return got[0] == want[0];
    double g[2] = {0, 0}, w[2] = {0, 0}, eps;
    if (rt == ND_FLOAT32) { /* abs */
        float a, b;
        memcpy(&a, got, 4), memcpy(&b, want, 4);
        g[0] = a, w[0] = b, eps = 0x1p-23;
    } else if (rt == ND_FLOAT64) {
        memcpy(&g[0], got, 8), memcpy(&w[0], want, 8), eps = 0x1p-52;
    } else if (rt == ND_COMPLEX64) {
        float a[2], b[2];
        memcpy(a, got, 8), memcpy(b, want, 8);
        g[0] = a[0], g[1] = a[1], w[0] = b[0], w[1] = b[1], eps = 0x1p-23;
    } else {
        memcpy(g, got, 16), memcpy(w, want, 16), eps = 0x1p-52;
    }
    const double mag = fmax(fabs(w[0]), fabs(w[1]));
    for (int k = 0; k < 2; k++) {
        if (isnan(w[k])) {
            if (!isnan(g[k])) return false;
        } else if (isinf(w[k])) {
            if (g[k] != w[k]) return false;
        } else if (!(fabs(g[k] - w[k]) <= ulps * eps * mag) && !(g[k] == w[k])) {
            return false;
        }
    }
    return true;
}

static void fmt_elem(char *buf, size_t cap, nd_dtype rt, const unsigned char *p)
{
    if (rt == ND_BOOL) snprintf(buf, cap, "%d", p[0]);
    else if (rt == ND_FLOAT32) {
        float a;
        memcpy(&a, p, 4);
        snprintf(buf, cap, "%.9g", a);
    } else if (rt == ND_FLOAT64) {
        double a;
        memcpy(&a, p, 8);
        snprintf(buf, cap, "%.17g", a);
    } else if (rt == ND_COMPLEX64) {
        float a[2];
        memcpy(a, p, 8);
        snprintf(buf, cap, "(%.9g, %.9g)", a[0], a[1]);
    } else {
        double a[2];
        memcpy(a, p, 16);
        snprintf(buf, cap, "(%.17g, %.17g)", a[0], a[1]);
    }
}

/* The result r (shape of the broadcast, C order) against the reference
 * computed element by element by f(i, want); where f also gives a long
 * double reference (ldw, within ldulps: the complex128 transcendental ops),
 * a finite result is held to that instead of the host body. */
typedef bool (*ref_fn)(int64_t i, unsigned char *want, long double ldw[2], double *ldulps, const void *ctx);
static void expect_result(const nd_array *r, nd_dtype rt, ref_fn f, const void *ctx, const char *what, double ulps)
{
    ck_assert_msg(nd_dtype_of(r) == rt, "%s: result dtype %s, want %s", what, nd_dtype_name(nd_dtype_of(r)),
                  nd_dtype_name(rt));
    const int64_t n = nd_size(r);
    const size_t isz = nd_dtype_size(rt);
    unsigned char *got = malloc((size_t)n * isz + 16);
    ck_assert(got != NULL);
    nd_array *c = NULL;
    ND_OK_OR_FAIL(nd_contiguous(&c, r));
    ND_OK_OR_FAIL(nd_copy_to_host(got, c, nd_nbytes(c)));
    nd_release(c);
    unsigned char want[16];
    long double ldw[2];
    double ldulps = 0;
    for (int64_t i = 0; i < n; i++) {
        ldulps = 0;
        const bool ld = f(i, want, ldw, &ldulps, ctx) && (rt == ND_COMPLEX128 || rt == ND_FLOAT64);
        double hw[2] = {0, 0};
        memcpy(hw, want, rt == ND_COMPLEX128 ? 16 : 8);
        if (ld && isfinite(hw[0]) && isfinite(hw[1])) {
            if (!close_ld(rt, got + (size_t)i * isz, ldw, ldulps)) {
                char g[96];
                fmt_elem(g, sizeof g, rt, got + (size_t)i * isz);
                ck_abort_msg("%s: element %lld is %s, want (%.21Lg, %.21Lg) within %.1f ulps", what, (long long)i, g,
                             ldw[0], ldw[1], ldulps);
            }
        } else if (!close_elem(rt, got + (size_t)i * isz, want, ld ? ulps : fmax(ulps, ldulps))) {
            char g[96], w[96];
            fmt_elem(g, sizeof g, rt, got + (size_t)i * isz);
            fmt_elem(w, sizeof w, rt, want);
            ck_abort_msg("%s: element %lld is %s, want %s", what, (long long)i, g, w);
        }
    }
    free(got);
}

/* ---- unary ----------------------------------------------------------- */
typedef struct {
    int op;
    nd_dtype t, lt;
    const unsigned char *host; /* the input's C-order elements */
    int layout;                /* 0 contiguous, 1 strided (every 2nd), 2 transposed (7, 9) -> (9, 7), 3 0-d */
} uctx;

static bool uref(int64_t i, unsigned char *want, long double ldw[2], double *ldulps, const void *p)
{
    const uctx *c = p;
    const size_t isz = nd_dtype_size(c->t);
    int64_t src = i;
    if (c->layout == 1) src = 2 * i;
    else if (c->layout == 2) src = (i % 7) * 9 + i / 7; /* result (9, 7) of a (7, 9) input */
    unsigned char x[16];
    to_loop(c->t, c->lt, c->host + (size_t)src * isz, x);
    ck_assert(ref_unary(c->op, c->lt, x, want));
    if (c->lt != ND_COMPLEX128) return false;
    double xd[2];
    memcpy(xd, x, 16);
    return ld_unary(c->op, xd, ldw, ldulps);
}

/* 2 ulps for the loops (the CPU's vectorised multiply and square may fuse
 * one product into an FMA, as NumPy's AVX-512 loop does) */
#define CX_ULPS 2.0

START_TEST(unary_ops_all_layouts)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    int nops = 0;
    for (int di = 0; di < nd; di++)
        for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++)
            for (int op = 0; op < ND_NUM_UNARY_OPS; op++) {
                if (!has_cpx(ukinds[op])) continue;
                nops += di == 0 && t == ND_COMPLEX64;
                const nd_dtype lt = loop_of(urules[op], t), rt = res_of(ukinds[op], urules[op], t);
                for (int layout = 0; layout < 4; layout++) {
                    unsigned char *host = NULL;
                    nd_array *base = NULL, *a = NULL;
                    if (layout == 0) base = make_in(t, 0, 1, (const int64_t[]){67}, devs[di], &host);
                    else if (layout == 1) base = make_in(t, 0, 1, (const int64_t[]){134}, devs[di], &host);
                    else if (layout == 2) base = make_in(t, 0, 2, (const int64_t[]){7, 9}, devs[di], &host);
                    else base = make_in(t, 0, 0, NULL, devs[di], &host);
                    if (layout == 1) ND_OK_OR_FAIL(nd_slice(&a, base, 1, (const nd_range[]){{0, ND_NONE, 2}}));
                    else if (layout == 2) ND_OK_OR_FAIL(nd_transpose(&a, base, NULL));
                    else a = nd_retain(base);
                    uctx c = {op, t, lt, host, layout};
                    char what[160];
                    snprintf(what, sizeof what, "%s(%s) layout %d on %s", nd_unary_op_name((nd_unary_op)op),
                             nd_dtype_name(t), layout, devs[di].type == ND_DEVICE_CPU ? "cpu" : "cuda:0");
                    nd_array *r = NULL;
                    ND_OK_OR_FAIL(nd_unary(&r, (nd_unary_op)op, a));
                    expect_result(r, rt, uref, &c, what, CX_ULPS);
                    if (layout == 0) {
                        /* into a given out, poisoned first */
                        nd_array *o = NULL;
                        ND_OK_OR_FAIL(nd_full(&o, rt, 1, (const int64_t[]){67},
                                              rt == ND_BOOL                                 ? nd_scalar_bool(true)
                                              : (rt == ND_FLOAT32 || rt == ND_FLOAT64) ? nd_scalar_float(NAN)
                                                                                        : nd_scalar_complex(NAN, -7),
                                              devs[di]));
                        nd_array *o2 = o;
                        ND_OK_OR_FAIL(nd_unary(&o2, (nd_unary_op)op, a));
                        ck_assert(o2 == o);
                        expect_result(o, rt, uref, &c, what, CX_ULPS);
                        nd_release(o);
                        /* in place, where the result is the input's dtype */
                        if (rt == t) {
                            nd_array *w = NULL;
                            ND_OK_OR_FAIL(nd_copy(&w, a));
                            nd_array *w2 = w;
                            ND_OK_OR_FAIL(nd_unary(&w2, (nd_unary_op)op, w));
                            expect_result(w, rt, uref, &c, what, CX_ULPS);
                            nd_release(w);
                        }
                    }
                    nd_release(r), nd_release(a), nd_release(base);
                    free(host);
                }
            }
    ck_assert_int_ge(nops, 8); /* the op table has complex loops */
}
END_TEST

/* ---- binary ---------------------------------------------------------- */
typedef struct {
    int op;
    nd_dtype t, lt;
    const unsigned char *ha, *hb;
    int layout; /* 0 both (67,), 1 a strided, 2 b (7,) broadcast against a (9, 7), 3 b 0-d, 4 a transposed */
} bctx;

static bool bref(int64_t i, unsigned char *want, long double ldw[2], double *ldulps, const void *p)
{
    const bctx *c = p;
    const size_t isz = nd_dtype_size(c->t);
    int64_t ia = i, ib = i;
    switch (c->layout) {
    case 1: ia = 2 * i; break;
    case 2: ib = i % 7; break;
    case 3: ib = 0; break;
    case 4: ia = (i % 7) * 9 + i / 7; break; /* a (9, 7), the transpose of a (7, 9) */
    default: break;
    }
    unsigned char x[16], y[16];
    to_loop(c->t, c->lt, c->ha + (size_t)ia * isz, x);
    to_loop(c->t, c->lt, c->hb + (size_t)ib * isz, y);
    ck_assert(ref_binary(c->op, c->lt, x, y, want));
    if (c->lt != ND_COMPLEX128) return false;
    double xd[2], yd[2];
    memcpy(xd, x, 16), memcpy(yd, y, 16);
    return ld_binary(c->op, xd, yd, ldw, ldulps);
}

START_TEST(binary_ops_all_layouts)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    int nops = 0;
    for (int di = 0; di < nd; di++)
        for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++)
            for (int op = 0; op < ND_NUM_BINARY_OPS; op++) {
                if (!has_cpx(bkinds[op])) continue;
                nops += di == 0 && t == ND_COMPLEX64;
                const nd_dtype lt = loop_of(brules[op], t), rt = res_of(bkinds[op], brules[op], t);
                for (int layout = 0; layout < 5; layout++) {
                    unsigned char *ha = NULL, *hb = NULL;
                    nd_array *ba = NULL, *a = NULL, *b = NULL;
                    switch (layout) {
                    case 0:
                        ba = make_in(t, 0, 1, (const int64_t[]){67}, devs[di], &ha);
                        b = make_in(t, 1, 1, (const int64_t[]){67}, devs[di], &hb);
                        break;
                    case 1:
                        ba = make_in(t, 0, 1, (const int64_t[]){134}, devs[di], &ha);
                        b = make_in(t, 1, 1, (const int64_t[]){67}, devs[di], &hb);
                        break;
                    case 2:
                        ba = make_in(t, 0, 2, (const int64_t[]){9, 7}, devs[di], &ha);
                        b = make_in(t, 1, 1, (const int64_t[]){7}, devs[di], &hb);
                        break;
                    case 3:
                        ba = make_in(t, 0, 2, (const int64_t[]){9, 7}, devs[di], &ha);
                        b = make_in(t, 1, 0, NULL, devs[di], &hb);
                        break;
                    default: /* a = transpose of a (7, 9): element (r, c) of a is base (c, r) */
                        ba = make_in(t, 0, 2, (const int64_t[]){7, 9}, devs[di], &ha);
                        b = make_in(t, 1, 2, (const int64_t[]){9, 7}, devs[di], &hb);
                        break;
                    }
                    if (layout == 1) ND_OK_OR_FAIL(nd_slice(&a, ba, 1, (const nd_range[]){{0, ND_NONE, 2}}));
                    else if (layout == 4) ND_OK_OR_FAIL(nd_transpose(&a, ba, NULL));
                    else a = nd_retain(ba);
                    bctx c = {op, t, lt, ha, hb, layout};
                    char what[160];
                    snprintf(what, sizeof what, "%s(%s) layout %d on %s", nd_binary_op_name((nd_binary_op)op),
                             nd_dtype_name(t), layout, devs[di].type == ND_DEVICE_CPU ? "cpu" : "cuda:0");
                    nd_array *r = NULL;
                    ND_OK_OR_FAIL(nd_binary(&r, (nd_binary_op)op, a, b));
                    expect_result(r, rt, bref, &c, what, CX_ULPS);
                    if (layout == 0 && rt == t) { /* in place into a copy of a */
                        nd_array *w = NULL;
                        ND_OK_OR_FAIL(nd_copy(&w, a));
                        nd_array *w2 = w;
                        ND_OK_OR_FAIL(nd_binary(&w2, (nd_binary_op)op, w, b));
                        expect_result(w, rt, bref, &c, what, CX_ULPS);
                        nd_release(w);
                    }
                    nd_release(r), nd_release(a), nd_release(b), nd_release(ba);
                    free(ha), free(hb);
                }
            }
    ck_assert_int_ge(nops, 8);
}
END_TEST

/* ---- weak scalars, mixed dtypes -------------------------------------- */
/* x == y exactly, NaN == NaN, -0.0 != +0.0 */
static bool same_f(float x, float y) { return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y)); }

START_TEST(scalars_and_promotion)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int di = 0; di < nd; di++) {
        nd_device dev = devs[di];
        /* float32 array * 1j -> complex64 (weak); int8 array + 1j -> complex128 */
        nd_array *f = cv_make(ND_FLOAT32, 1, (const int64_t[]){3}, (const double[]){1.5, -2, 0.25}, dev);
        nd_array *i8 = cv_make(ND_INT8, 1, (const int64_t[]){3}, (const double[]){1, -2, 3}, dev);
        nd_array *r = NULL;
        ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_MULTIPLY, f, nd_scalar_complex(0, 1)));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX64);
        float v[6];
        ND_OK_OR_FAIL(nd_copy_to_host(v, r, sizeof v));
        ck_assert(v[0] == 0 && v[1] == 1.5f && v[2] == 0 && v[3] == -2 && v[4] == 0 && v[5] == 0.25f);
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_ADD, i8, nd_scalar_complex(0.5, 1)));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX128);
        double d[6];
        ND_OK_OR_FAIL(nd_copy_to_host(d, r, sizeof d));
        ck_assert(d[0] == 1.5 && d[1] == 1 && d[2] == -1.5 && d[3] == 1 && d[4] == 3.5 && d[5] == 1);
        nd_release(r), r = NULL;
        /* 2 / z with the scalar on the left, and z - 1 (a real weak scalar) */
        unsigned char *hz = NULL;
        nd_array *z = make_in(ND_COMPLEX64, 3, 1, (const int64_t[]){29}, dev, &hz);
        ND_OK_OR_FAIL(nd_scalar_binary(&r, ND_BINARY_DIVIDE, nd_scalar_float(2), z));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX64);
        float zz[58], q[58];
        memcpy(zz, hz, sizeof zz);
        ND_OK_OR_FAIL(nd_copy_to_host(q, r, sizeof q));
        for (int k = 0; k < 29; k++) {
            const float two[2] = {2, 0};
            unsigned char gw[8], ww[8];
            ck_assert(ref_binary(ND_BINARY_DIVIDE, ND_COMPLEX64, two, &zz[2 * k], ww));
            memcpy(gw, &q[2 * k], 8);
            ck_assert_msg(close_elem(ND_COMPLEX64, gw, ww, CX_ULPS), "2 / z element %d", k);
        }
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_SUBTRACT, z, nd_scalar_int(1)));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX64);
        ND_OK_OR_FAIL(nd_copy_to_host(q, r, sizeof q));
        for (int k = 0; k < 29; k++)
            ck_assert(same_f(q[2 * k], zz[2 * k] - 1.0f) && same_f(q[2 * k + 1], zz[2 * k + 1]));
        nd_release(r), r = NULL;
        /* complex64 ** complex scalar; float_power always complex128 */
        ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_POWER, z, nd_scalar_complex(2, 0)));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX64);
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_FLOAT_POWER, z, nd_scalar_float(0.5)));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX128);
        nd_release(r), r = NULL;
        /* true division of complex stays complex; sqrt of complex64 is complex64 */
        ND_OK_OR_FAIL(nd_divide(&r, z, z));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX64);
        nd_release(r), r = NULL;
        ND_OK_OR_FAIL(nd_sqrt(&r, z));
        ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX64);
        nd_release(r), r = NULL;
        /* logical ops read the truth value of both parts (0 + 1j is true) */
        ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_LOGICAL_AND, z, nd_scalar_complex(0, 1)));
        ck_assert_int_eq(nd_dtype_of(r), ND_BOOL);
        nd_release(r), r = NULL;
        nd_release(z), nd_release(f), nd_release(i8);
        free(hz);
    }
}
END_TEST

/* ---- refusals -------------------------------------------------------- */
START_TEST(ops_without_complex_refuse)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int di = 0; di < nd; di++)
        for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++) {
            unsigned char *h = NULL;
            nd_array *z = make_in(t, 0, 1, (const int64_t[]){5}, devs[di], &h);
            for (int op = 0; op < ND_NUM_UNARY_OPS; op++) {
                if (has_cpx(ukinds[op])) continue;
                nd_array *r = NULL;
                nd_status st = nd_unary(&r, (nd_unary_op)op, z);
                ck_assert_msg(st == ND_ERR_DTYPE, "%s(%s): %s", nd_unary_op_name((nd_unary_op)op), nd_dtype_name(t),
                              nd_status_name(st));
                ck_assert_ptr_null(r);
            }
            for (int op = 0; op < ND_NUM_BINARY_OPS; op++) {
                if (has_cpx(bkinds[op])) continue;
                nd_array *r = NULL;
                nd_status st = nd_binary(&r, (nd_binary_op)op, z, z);
                ck_assert_msg(st == ND_ERR_DTYPE, "%s(%s): %s", nd_binary_op_name((nd_binary_op)op), nd_dtype_name(t),
                              nd_status_name(st));
                ck_assert_ptr_null(r);
            }
            nd_release(z);
            free(h);
        }
}
END_TEST

/* Ordering is refused on complex everywhere (ND_ERR_DTYPE, nothing
 * written): a decision, not NumPy's behaviour (NumPy 2.4 orders complex
 * lexicographically; the array API standard leaves it unspecified and
 * PyTorch refuses it). */
START_TEST(ordering_refused)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int di = 0; di < nd; di++)
        for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++) {
            unsigned char *h = NULL;
            nd_array *z = make_in(t, 0, 1, (const int64_t[]){5}, devs[di], &h), *r = NULL, *r2 = NULL;
            const nd_binary_op bops[] = {ND_BINARY_LESS,    ND_BINARY_LESS_EQUAL, ND_BINARY_GREATER,
                                         ND_BINARY_GREATER_EQUAL, ND_BINARY_MAXIMUM, ND_BINARY_MINIMUM,
                                         ND_BINARY_FMAX,    ND_BINARY_FMIN};
            for (size_t k = 0; k < sizeof bops / sizeof bops[0]; k++)
                ck_assert_int_eq(nd_binary(&r, bops[k], z, z), ND_ERR_DTYPE);
            const nd_reduce_op rops[] = {ND_REDUCE_MAX, ND_REDUCE_MIN, ND_REDUCE_ARGMAX, ND_REDUCE_ARGMIN};
            for (size_t k = 0; k < sizeof rops / sizeof rops[0]; k++)
                ck_assert_int_eq(nd_reduce(&r, rops[k], z, 0, NULL, false), ND_ERR_DTYPE);
            ck_assert_int_eq(nd_sort(&r, z, -1, 0), ND_ERR_DTYPE);
            ck_assert_int_eq(nd_argsort(&r, z, -1, 0), ND_ERR_DTYPE);
            ck_assert_int_eq(nd_partition(&r, z, 1, -1), ND_ERR_DTYPE);
            ck_assert_int_eq(nd_cummax(&r, z, 0), ND_ERR_DTYPE);
            ck_assert_int_eq(nd_clip(&r, z, z, z), ND_ERR_DTYPE);
            ck_assert_int_eq(nd_searchsorted(&r, z, z, ND_SIDE_LEFT), ND_ERR_DTYPE);
            ck_assert_int_eq(nd_quantile(&r, z, 0.5, 0, NULL, false), ND_ERR_DTYPE);
            ck_assert_int_eq(nd_topk(&r, &r2, z, 2, 0, true, true), ND_ERR_DTYPE);
            ck_assert_ptr_null(r);
            ck_assert_ptr_null(r2);
            nd_release(z);
            free(h);
        }
}
END_TEST

Suite *suite_complex_ew(void)
{
    Suite *s = suite_create("complex_ew");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, unary_ops_all_layouts);
    tcase_add_test(tc, binary_ops_all_layouts);
    tcase_add_test(tc, scalars_and_promotion);
    tcase_add_test(tc, ops_without_complex_refuse);
    tcase_add_test(tc, ordering_refused);
    suite_add_tcase(s, tc);
    return s;
}
