/* suite_vmath: the vector kernels of src/cpu/vmath.h on EVERY path this
 * machine has (baseline, AVX2, AVX-512: nd__vmath(isa, ...) for each isa
 * up to nd__cpu_isa_detected(), all in one process), each against a
 * correctly rounded reference with its own limit of 4 ulp:
 *  - float32 against double libm (exact to far below a float32 ulp):
 *    every 2039th bit pattern (both signs), dense sweeps around each
 *    function's thresholds, the special values;
 *  - float64 against long double libm (x87 80-bit, 11 more bits):
 *    random bit patterns, log-uniform and uniform sweeps, the thresholds,
 *    the special values.
 * Special values (+-0, +-inf, NaN, subnormals, overflow) must match
 * exactly: a zero result has the reference's sign, an infinite or NaN
 * reference is met exactly. ND_VMATH_REPORT=1 prints the largest error
 * per function, dtype and path (the table of src/cpu/vmath.h).
 * Then the kernels' tails (every length, misaligned, in place) and the
 * public ops on the path in use: contiguous, strided, transposed (the
 * tiled runner), broadcast, in place, 1 or 2 threads, float16/bfloat16
 * through the float32 kernel, all giving the contiguous kernel's bits. */
#include <float.h>

#include "test_util.h"
#include "cpu/vmath.h"
#include "shared/half.h"
#include "shared/ops_math.h"

/* ------------------------------------------------------------------ */
/* The functions and their references                                  */
/* ------------------------------------------------------------------ */
static double sig_d(double x)
{
    if (x >= 0) return 1.0 / (1.0 + exp(-x));
    double e = exp(x);
    return e / (1.0 + e);
}
static long double sig_l(long double x)
{
    if (x >= 0) return 1.0L / (1.0L + expl(-x));
    long double e = expl(x);
    return e / (1.0L + e);
}
/* gelu = x ndtr(x) = x erfc(-x/sqrt2)/2; in long double the rounding of
 * x/sqrt2 (and of 1/sqrt2) is corrected to first order, as erfc's tail
 * magnifies it (by 2 z^2: 1500 at x = -38) */
static double gelu_d(double x) { return x == -INFINITY ? -0.0 : x * 0.5 * erfc(-x * 0.70710678118654752440); }
static long double gelu_l(long double x)
{
    if (isinf(x)) return x > 0 ? x : -0.0L;
    const long double ch = 0.707106781186547524400844362104849039L, cl = 1.895032558893257079655e-20L;
    const long double z = x * ch, dz = fmal(x, ch, -z) + x * cl; /* x / sqrt2 = z + dz */
    const long double w = -z, dw = -dz;
    const long double r = erfcl(w) - 1.12837916709551257389615890312154517L * expl(-w * w) * dw;
    return x * 0.5L * r;
}
/* SciPy's gammaln(-inf) is -inf (libm's lgamma gives +inf) */
static double lgamma_d(double x) { return x == -INFINITY ? x : lgamma(x); }
static long double lgamma_l(long double x) { return x == -INFINITY ? x : lgammal(x); }
/* digamma: libm has none; the reference is the scalar body
 * (src/shared/ops_gamma.h, held to mpmath by suite special_gamma: 2 ulp for
 * x > 0), so the kernel is measured against it - they differ by the log */
static long double digamma_l(long double x) { return nd_op_digamma_f64((double)x); }
static double silu_d(double x) { return x == -INFINITY ? -0.0 : x * sig_d(x); }
static long double silu_l(long double x) { return x == -INFINITY ? -0.0L : x * sig_l(x); }

typedef struct {
    nd_unary_op op;
    const char *name;
    double (*r32)(double);
    long double (*r64)(long double);
    float dense[3][2]; /* float32 sweeps; {0, 0} ends */
    double dense64[3][2];
} vm_func;

#define VM_F(E, n, d, l) ND_UNARY_##E, #n, d, l
static const vm_func g_funcs[] = {
    {VM_F(EXP, exp, exp, expl), {{80.0f, 89.0f}, {-104.0f, -85.0f}, {-0.5f, 0.5f}}, {{700, 710}, {-746, -700}, {-1, 1}}},
    {VM_F(EXP2, exp2, exp2, exp2l), {{120.0f, 129.0f}, {-150.0f, -120.0f}, {-1.0f, 1.0f}}, {{1000, 1025}, {-1080, -1000}, {-1, 1}}},
    {VM_F(EXPM1, expm1, expm1, expm1l), {{-1e-3f, 1e-3f}, {80.0f, 89.0f}, {-1.0f, 1.0f}}, {{-1e-5, 1e-5}, {700, 710}, {-1, 1}}},
    {VM_F(LOG, log, log, logl), {{0.99f, 1.01f}, {0x1p-149f, 1e-37f}, {1e37f, FLT_MAX}}, {{0.999, 1.001}, {1e-320, 1e-300}, {0.5, 2}}},
    {VM_F(LOG2, log2, log2, log2l), {{0.99f, 1.01f}, {0x1p-149f, 1e-37f}, {0.5f, 2.0f}}, {{0.999, 1.001}, {1e-320, 1e-300}, {0.5, 2}}},
    {VM_F(LOG10, log10, log10, log10l), {{0.99f, 1.01f}, {0x1p-149f, 1e-37f}, {0.5f, 20.0f}}, {{0.999, 1.001}, {1e-320, 1e-300}, {0.5, 20}}},
    {VM_F(LOG1P, log1p, log1p, log1pl), {{-1e-3f, 1e-3f}, {-1.0f, -0.99f}, {0.5f, 4.0f}}, {{-1e-5, 1e-5}, {-1, -0.999}, {0.5, 4}}},
    {VM_F(SIN, sin, sin, sinl), {{-4.0f, 4.0f}, {1e4f, 1.1e4f}, {1e-4f, 1e-3f}}, {{-4, 4}, {1e5, 1.0001e5}, {1e300, 1.0001e300}}},
    {VM_F(COS, cos, cos, cosl), {{-4.0f, 4.0f}, {1e4f, 1.1e4f}, {1.5f, 1.6f}}, {{-4, 4}, {1e5, 1.0001e5}, {1e300, 1.0001e300}}},
    {VM_F(TAN, tan, tan, tanl), {{-4.0f, 4.0f}, {1e4f, 1.1e4f}, {1.5f, 1.6f}}, {{-4, 4}, {1e5, 1.0001e5}, {1.5, 1.6}}},
    {VM_F(ARCSIN, arcsin, asin, asinl), {{-1.0f, -0.9f}, {0.9f, 1.0f}, {-0.5f, 0.5f}}, {{-1, -0.999}, {0.999, 1}, {-0.5, 0.5}}},
    {VM_F(ARCCOS, arccos, acos, acosl), {{-1.0f, -0.9f}, {0.9f, 1.0f}, {-0.5f, 0.5f}}, {{-1, -0.999}, {0.999, 1}, {-0.5, 0.5}}},
    {VM_F(ARCTAN, arctan, atan, atanl), {{-2.0f, 2.0f}, {1e6f, 1e8f}, {1e-4f, 1e-3f}}, {{-2, 2}, {1e15, 1e17}, {1e-9, 1e-7}}},
    {VM_F(SINH, sinh, sinh, sinhl), {{-1.0f, 1.0f}, {80.0f, 90.0f}, {-90.0f, -80.0f}}, {{-1, 1}, {700, 711}, {-711, -700}}},
    {VM_F(COSH, cosh, cosh, coshl), {{-1.0f, 1.0f}, {80.0f, 90.0f}, {-90.0f, -80.0f}}, {{-1, 1}, {700, 711}, {-711, -700}}},
    {VM_F(TANH, tanh, tanh, tanhl), {{0.5f, 0.75f}, {-0.75f, -0.15f}, {8.0f, 10.0f}}, {{0.5, 1}, {-1, -0.5}, {18, 20}}},
    {VM_F(ARCSINH, arcsinh, asinh, asinhl), {{-2.0f, 2.0f}, {1e18f, 1e20f}, {1e-4f, 1e-3f}}, {{-2, 2}, {1e150, 1e160}, {1e-9, 1e-7}}},
    {VM_F(ARCCOSH, arccosh, acosh, acoshl), {{1.0f, 1.1f}, {1.1f, 10.0f}, {1e18f, 1e20f}}, {{1, 1.001}, {1.1, 10}, {1e150, 1e160}}},
    {VM_F(ARCTANH, arctanh, atanh, atanhl), {{-1.0f, -0.9f}, {0.9f, 1.0f}, {-0.5f, 0.5f}}, {{-1, -0.999}, {0.999, 1}, {-0.5, 0.5}}},
    {VM_F(CBRT, cbrt, cbrt, cbrtl), {{0.5f, 8.0f}, {-8.0f, -0.5f}, {0x1p-149f, 1e-37f}}, {{0.5, 8}, {-8, -0.5}, {1e-320, 1e-300}}},
    {VM_F(SIGMOID, sigmoid, sig_d, sig_l), {{0.5f, 1.0f}, {-104.0f, -86.0f}, {15.0f, 18.0f}}, {{0.5, 1}, {-746, -700}, {36, 38}}},
    /* ours (src/cpu/vmath_special.c), AVX2 and AVX-512 */
    {VM_F(ERF, erf, erf, erfl), {{-1.0f, 1.0f}, {0.8f, 1.3f}, {2.5f, 4.0f}}, {{-1, 1}, {0.8, 1.3}, {2.5, 6}}},
    {VM_F(GELU, gelu, gelu_d, gelu_l), {{-5.0f, 5.0f}, {-14.0f, -9.0f}, {-4.0f, -0.5f}}, {{-5, 5}, {-38.5, -20}, {-4, -0.5}}},
    {VM_F(SILU, silu, silu_d, silu_l), {{-5.0f, 5.0f}, {-104.0f, -86.0f}, {15.0f, 18.0f}}, {{-5, 5}, {-746, -700}, {36, 38}}},
    /* the fitted pieces, their ends and the roots 1 and 2, Stirling's
     * start, the negative axis (the scalar body's lanes) */
    {VM_F(LGAMMA, lgamma, lgamma_d, lgamma_l), {{0.5f, 3.0f}, {9.5f, 11.0f}, {-5.0f, -0.01f}}, {{0.5, 3}, {9.5, 11}, {1e-3, 1e300}}},
    {VM_F(DIGAMMA, digamma, nd_op_digamma_f64, digamma_l), {{0.5f, 3.0f}, {9.5f, 11.0f}, {-5.0f, -0.01f}}, {{0.5, 3}, {9.5, 11}, {1e-3, 1e300}}},
};
/* ck_assert writes to Check's pipe on every call (its mark point): a
 * failure-only assertion keeps millions of checks cheap. */
#define VM_ASSERT(cond, ...)                             \
    do {                                                 \
        if (!(cond)) ck_assert_msg(cond, __VA_ARGS__);   \
    } while (0)
#define VM_CHECK(cond) VM_ASSERT(cond, "%s", #cond)
#define VM_NFUNCS ((int)(sizeof g_funcs / sizeof g_funcs[0]))
#define VM_LIMIT 4.0
/* float64 gelu (x ndtr(x)): 6 in its lower tail, where SciPy's ndtr (Cephes)
 * documents 3.4e-14 relative (~150 ulp) on [-13, 0]; ours measures 4.3
 * (src/cpu/vmath.h) */
static double vm_limit64(nd_unary_op op) { return op == ND_UNARY_GELU ? 6.0 : VM_LIMIT; }
/* float64 lgamma on the negative axis, near its roots (-2.457..., -2.747...,
 * and one in every unit interval below): the result is a difference of
 * two logs of size ~1, so its error is ~1e-16 absolute, and SciPy's there
 * is 1e9 ulp and more (tests/special_gamma_ref.h): measured in ulps of 1
 * where |lgamma| < 1 (elsewhere as every function) */
static bool vm_abs_err64(nd_unary_op op, double x, long double ref)
{
    return op == ND_UNARY_LGAMMA && x < 0 && fabsl(ref) < 1;
}

static float f_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static uint32_t u_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static double d_of(uint64_t u)
{
    double f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static uint64_t u64_of(double f)
{
    uint64_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* |got - ref| in ulps of a format with p-bit significands, smallest
 * normal exponent emin (so the ulp floor is 2^(emin - p + 1), the
 * smallest subnormal) and values below 2^emax; +-inf counts as +-2^emax
 * (an overflow near the top is within the ulps of it). Exact where the
 * reference is special: NaN must give NaN, +-inf itself, and a zero the
 * zero of the reference's sign. */
static long double ulp_err(long double got, long double ref, int p, int emin, int emax)
{
    if (isnan(ref)) return isnan(got) ? 0 : INFINITY;
    if (isnan(got)) return INFINITY;
    if (isinf(ref)) return got == ref ? 0 : INFINITY;
    if (ref == 0) return got == 0 && signbit(got) == signbit(ref) ? 0 : INFINITY;
    long double top = ldexpl(1.0L, emax);
    if (fabsl(ref) >= top - ldexpl(1.0L, emax - p - 1) && isinf(got) && (got > 0) == (ref > 0))
        return 0; /* rounds to +-inf: exact */
    long double g = isinf(got) ? copysignl(top, got) : got;
    int e;
    (void)frexpl(fabsl(ref), &e); /* |ref| = m 2^e, m in [0.5, 1) */
    if (e > emax) e = emax;
    if (e < emin + 1) e = emin + 1;
    return fabsl(g - ref) / ldexpl(1.0L, e - p);
}

typedef struct {
    double max_err;
    double worst;
} vm_stat;

#define VM_CHUNK 4096

static void check32(const vm_func *f, const nd_vmath_kernel *k, const char *path, const float *xs, int64_t n,
                    vm_stat *st)
{
    float out[VM_CHUNK];
    k->fn(out, xs, n);
    for (int64_t i = 0; i < n; i++) {
        double r = f->r32((double)xs[i]);
        long double e = ulp_err(out[i], r, 24, -126, 128);
        VM_ASSERT(e <= VM_LIMIT, "%s float32 %s: f(%a) = %a, want %a (%.2Lf ulp)", f->name, path,
                      (double)xs[i], (double)out[i], r, e);
        if (e > st->max_err) st->max_err = (double)e, st->worst = xs[i];
    }
}

static void check64(const vm_func *f, const nd_vmath_kernel *k, const char *path, const double *xs, int64_t n,
                    vm_stat *st)
{
    double out[VM_CHUNK];
    k->fn(out, xs, n);
    for (int64_t i = 0; i < n; i++) {
        long double r = f->r64((long double)xs[i]);
        long double e = vm_abs_err64(f->op, xs[i], r) ? fabsl(out[i] - r) / ldexpl(1.0L, -52)
                                                      : ulp_err(out[i], r, 53, -1022, 1024);
        VM_ASSERT(e <= vm_limit64(f->op), "%s float64 %s: f(%a) = %a, want %La (%.2Lf ulp)", f->name, path, xs[i], out[i],
                      r, e);
        if (e > st->max_err) st->max_err = (double)e, st->worst = xs[i];
    }
}

static const float g_special32[] = {0.0f,      -0.0f,   INFINITY, -INFINITY, NAN,      -NAN,       0x1p-149f,
                                    -0x1p-149f, FLT_MIN, -FLT_MIN, FLT_MAX,   -FLT_MAX, 1.0f,       -1.0f,
                                    0.5f,       -0.5f,   2.0f,     88.7228394f, 89.0f,  -103.97f,   -104.0f,
                                    1e30f,      -1e30f,  1e-20f,   -1e-20f,   1e10f,    3.14159274f, 0x1p-12f};
static const double g_special64[] = {0.0,     -0.0,     INFINITY, -INFINITY, NAN,     -NAN,       0x1p-1074,
                                     -0x1p-1074, DBL_MIN, -DBL_MIN, DBL_MAX,  -DBL_MAX, 1.0,        -1.0,
                                     0.5,     -0.5,     2.0,      709.782712893384, 710.0, -745.13321910194122,
                                     -746.0,  1e300,    -1e300,   1e-300,    -1e-300, 1e22,       3.141592653589793,
                                     0x1p-28, 0x1p-1022 * 0.75, 1e15};

static void sweep32(const vm_func *f, nd_cpu_isa isa, const nd_vmath_kernel *k, vm_stat *st)
{
    const char *path = nd__cpu_isa_name(isa);
    float xs[VM_CHUNK];
    int64_t n = 0;
#define VM_PUSH32(v)                                 \
    do {                                             \
        xs[n++] = (v);                               \
        if (n == VM_CHUNK) {                         \
            check32(f, k, path, xs, n, st);          \
            n = 0;                                   \
        }                                            \
    } while (0)
    for (uint64_t u = 0; u <= 0xffffffffu; u += 2039) VM_PUSH32(f_of((uint32_t)u));
    for (int d = 0; d < 3 && (f->dense[d][0] != 0 || f->dense[d][1] != 0); d++) {
        float lo = f->dense[d][0], hi = f->dense[d][1];
        /* [lo, hi] walked in bit space (split at 0), ~2^16 points per side */
        for (int side = 0; side < 2; side++) {
            float a = side ? (hi > 0 ? (lo > 0 ? lo : 0.0f) : 1.0f) : (lo < 0 ? lo : 1.0f);
            float b = side ? (hi > 0 ? hi : 1.0f) : (lo < 0 ? (hi < 0 ? hi : -0.0f) : 1.0f);
            if (a == 1.0f && b == 1.0f) continue;
            uint32_t u0 = u_of(a), u1 = u_of(b);
            if (u0 > u1) {
                uint32_t t = u0;
                u0 = u1;
                u1 = t;
            }
            uint32_t step = (u1 - u0) / (1u << 16) + 1;
            for (uint64_t u = u0; u <= u1; u += step) VM_PUSH32(f_of((uint32_t)u));
        }
    }
    for (size_t i = 0; i < sizeof g_special32 / sizeof g_special32[0]; i++) VM_PUSH32(g_special32[i]);
    if (n) check32(f, k, path, xs, n, st);
#undef VM_PUSH32
}

static uint64_t xs64(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void sweep64(const vm_func *f, nd_cpu_isa isa, const nd_vmath_kernel *k, vm_stat *st)
{
    const char *path = nd__cpu_isa_name(isa);
    double xs[VM_CHUNK];
    int64_t n = 0;
    uint64_t s = 0x9e3779b97f4a7c15ull ^ (uint64_t)f->op;
#define VM_PUSH64(v)                                 \
    do {                                             \
        xs[n++] = (v);                               \
        if (n == VM_CHUNK) {                         \
            check64(f, k, path, xs, n, st);          \
            n = 0;                                   \
        }                                            \
    } while (0)
    for (int i = 0; i < (1 << 16); i++) VM_PUSH64(d_of(xs64(&s))); /* every exponent, both signs */
    for (int i = 0; i < (1 << 16); i++) { /* log-uniform magnitudes 2^-40 .. 2^12 */
        double m = (double)(xs64(&s) >> 11) * 0x1p-53;
        double v = exp2(-40.0 + 52.0 * m);
        VM_PUSH64((i & 1) ? -v : v);
    }
    for (int d = 0; d < 3; d++) {
        double lo = f->dense64[d][0], hi = f->dense64[d][1];
        for (int i = 0; i < (1 << 14); i++) VM_PUSH64(lo + (hi - lo) * ((double)(xs64(&s) >> 11) * 0x1p-53));
        if (lo > 0 && hi / lo > 4) /* a wide positive range: log-uniform too */
            for (int i = 0; i < (1 << 14); i++)
                VM_PUSH64(exp(log(lo) + (log(hi) - log(lo)) * ((double)(xs64(&s) >> 11) * 0x1p-53)));
        VM_PUSH64(lo);
        VM_PUSH64(hi);
        VM_PUSH64(nextafter(lo, -INFINITY));
        VM_PUSH64(nextafter(hi, INFINITY));
    }
    for (size_t i = 0; i < sizeof g_special64 / sizeof g_special64[0]; i++) VM_PUSH64(g_special64[i]);
    if (n) check64(f, k, path, xs, n, st);
#undef VM_PUSH64
}

/* Every function, dtype and path of this machine: the kernel's error
 * stays within the limit. The baseline path has kernels for float32
 * exp/tanh/sigmoid only; AVX2 and AVX-512 (with libmvec) for all. A
 * kernel's results do not depend on ND_CPU_ISA, so under a lowered path
 * (make test-isa) only the path in use is swept again. */
static void ulp_test(nd_dtype t)
{
    bool report = getenv("ND_VMATH_REPORT") && !strcmp(getenv("ND_VMATH_REPORT"), "1");
    bool lowered = nd__cpu_isa() < nd__cpu_isa_detected();
    int tested = 0;
    for (int isa = lowered ? (int)nd__cpu_isa() : 0; isa <= (int)nd__cpu_isa(); isa++)
        for (int i = 0; i < VM_NFUNCS; i++) {
            const vm_func *f = &g_funcs[i];
            const nd_vmath_kernel *k = nd__vmath((nd_cpu_isa)isa, f->op, t);
            if (!k) continue;
            vm_stat st = {0, 0};
            if (t == ND_FLOAT32) sweep32(f, (nd_cpu_isa)isa, k, &st);
            else sweep64(f, (nd_cpu_isa)isa, k, &st);
            tested++;
            if (report)
                fprintf(stderr, "vmath %-8s %-7s %-7s %-7s max %.2f ulp at %a\n", f->name, nd_dtype_name(t),
                        nd__cpu_isa_name((nd_cpu_isa)isa), k->impl, st.max_err, st.worst);
        }
    if (t == ND_FLOAT32) ck_assert_int_ge(tested, 3); /* at least the baseline's own three */
    if (t == ND_FLOAT64 && nd__cpu_isa() == ND_ISA_BASELINE) ck_assert_int_eq(tested, 0);
}

START_TEST(test_vmath_ulp32) { ulp_test(ND_FLOAT32); }
END_TEST

START_TEST(test_vmath_ulp64) { ulp_test(ND_FLOAT64); }
END_TEST

/* The kernels this machine has: libmvec's on AVX2 and AVX-512 (when the
 * build has it: glibc >= 2.35 on x86-64; float64 tanh is ours on libmvec's
 * exp, on AVX-512 float64 exp, tanh and sigmoid are ours whole, and
 * float32 tanh and sigmoid are ours on both), ours on the baseline path. */
START_TEST(test_vmath_table)
{
    ck_assert_ptr_nonnull(nd__vmath(ND_ISA_BASELINE, ND_UNARY_EXP, ND_FLOAT32));
    ck_assert_str_eq(nd__vmath(ND_ISA_BASELINE, ND_UNARY_TANH, ND_FLOAT32)->impl, "nd");
    ck_assert_ptr_null(nd__vmath(ND_ISA_BASELINE, ND_UNARY_EXP, ND_FLOAT64));
    ck_assert_ptr_null(nd__vmath(ND_ISA_AVX512, ND_UNARY_SQRT, ND_FLOAT64));
    ck_assert_ptr_null(nd__vmath(ND_ISA_AVX512, ND_UNARY_EXP, ND_INT32));
    ck_assert_ptr_null(nd__vmath(ND_ISA_N, ND_UNARY_EXP, ND_FLOAT32));
#if defined(__x86_64__) && defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 35)
    for (int isa = ND_ISA_AVX2; isa <= ND_ISA_AVX512; isa++)
        for (int i = 0; i < VM_NFUNCS; i++)
            for (int d = 0; d < 2; d++) {
                const nd_vmath_kernel *k = nd__vmath((nd_cpu_isa)isa, g_funcs[i].op, d ? ND_FLOAT64 : ND_FLOAT32);
                /* float64 tanh: ours, from libmvec's exp (src/cpu/vmath_mvec.c);
                 * AVX-512 float64 exp, tanh, sigmoid: ours (src/cpu/vmath.c) */
                const nd_unary_op op = g_funcs[i].op;
                const bool own512 = d && isa == ND_ISA_AVX512 &&
                                    (op == ND_UNARY_EXP || op == ND_UNARY_TANH || op == ND_UNARY_SIGMOID);
                /* float32 tanh and sigmoid: ours (src/cpu/vmath.c) */
                const bool own32 = !d && (op == ND_UNARY_TANH || op == ND_UNARY_SIGMOID);
                /* erf, gelu, silu, lgamma, digamma: ours on both (src/cpu/vmath_special.c) */
                const bool special = op == ND_UNARY_ERF || op == ND_UNARY_GELU || op == ND_UNARY_SILU ||
                                     op == ND_UNARY_LGAMMA || op == ND_UNARY_DIGAMMA;
                const char *want = (d && op == ND_UNARY_TANH) || own512 || own32 || special ? "nd" : "libmvec";
                VM_ASSERT(k && !strcmp(k->impl, want), "%s", g_funcs[i].name);
            }
#endif
#endif
}
END_TEST

/* Run op's float32 kernel of every path that has our own ("nd") on
 * xs[0..n) and hand each result to check(path, x, got), which asserts. */
typedef void (*vm_special_check)(const char *path, float x, float got);
static void vm_specials32(nd_unary_op op, const float *xs, int n, vm_special_check check)
{
    float out[64];
    ck_assert_int_le(n, 64);
    for (int isa = 0; isa <= (int)nd__cpu_isa_detected(); isa++) {
        const nd_vmath_kernel *k = nd__vmath((nd_cpu_isa)isa, op, ND_FLOAT32);
        if (!k || strcmp(k->impl, "nd")) continue;
        k->fn(out, xs, n);
        for (int i = 0; i < n; i++) check(nd__cpu_isa_name((nd_cpu_isa)isa), xs[i], out[i]);
    }
}

/* float32 tanh, ours on every path (the baseline's scalar body, the
 * AVX2 and AVX-512 intrinsics): the special inputs bit for bit - a NaN
 * gives x + x (its payload and sign kept), +-0 and subnormals themselves,
 * +-1 from where tanh rounds to 1 (9.0109...) on, up to +-inf - and the
 * function odd bit for bit over a sweep of every 9973rd pattern. */
#define VM_TANH_ONE_FROM 0x1.205968p+3f /* the least float whose tanh rounds to 1 */
static void tanh32_special(const char *path, float x, float got)
{
    const float want = isnan(x) ? x + x : fabsf(x) >= VM_TANH_ONE_FROM ? copysignf(1.0f, x)
                                       : fabsf(x) < 0x1p-12f ? x : got;
    VM_ASSERT(u_of(got) == u_of(want), "tanh float32 %s: f(%a) = %a (0x%08x), want %a (0x%08x)", path, (double)x,
              (double)got, u_of(got), (double)want, u_of(want));
}

START_TEST(test_vmath_tanh32)
{
    const float one_from = VM_TANH_ONE_FROM;
    const float xs[] = {0.0f,     -0.0f,         0x1p-149f, -0x1p-149f, 0x1.fffffcp-127f, -FLT_MIN, 0x1p-12f,
                        one_from, -one_from,     9.5f,      -9.5f,      1e10f,            FLT_MAX,  -FLT_MAX,
                        INFINITY, -INFINITY,     NAN,       -NAN,       f_of(0x7f800001u), f_of(0xffc12345u),
                        f_of(0x7fbfffffu)};
    vm_specials32(ND_UNARY_TANH, xs, (int)(sizeof xs / sizeof xs[0]), tanh32_special);
    for (int isa = 0; isa <= (int)nd__cpu_isa_detected(); isa++) {
        const nd_vmath_kernel *k = nd__vmath((nd_cpu_isa)isa, ND_UNARY_TANH, ND_FLOAT32);
        if (!k || strcmp(k->impl, "nd")) continue;
        const char *path = nd__cpu_isa_name((nd_cpu_isa)isa);
        float in[VM_CHUNK], pos[VM_CHUNK], neg[VM_CHUNK];
        for (uint64_t u0 = 0; u0 < 0x80000000u; u0 += (uint64_t)VM_CHUNK * 9973) {
            for (int i = 0; i < VM_CHUNK; i++) in[i] = f_of((uint32_t)((u0 + (uint64_t)i * 9973) & 0x7fffffffu));
            k->fn(pos, in, VM_CHUNK);
            for (int i = 0; i < VM_CHUNK; i++) in[i] = -in[i];
            k->fn(neg, in, VM_CHUNK);
            for (int i = 0; i < VM_CHUNK; i++)
                VM_ASSERT(isnan(pos[i]) || u_of(neg[i]) == (u_of(pos[i]) ^ 0x80000000u), "tanh float32 %s odd at %a", path,
                          (double)-in[i]);
        }
    }
}
END_TEST

/* float32 sigmoid, ours on every path: the special inputs bit for bit -
 * a NaN gives x + x, +-0 gives 1/2, +1 beyond where sigmoid rounds to 1
 * (17.3287), +0 beyond where it rounds to 0 (-103.9721: e^x < 2^-150),
 * and subnormal results, not flushed, between -103.97 and -87.34. */
#define VM_SIG_ONE_BEYOND 17.4f
#define VM_SIG_ZERO_BEYOND -103.98f
static void sigmoid32_special(const char *path, float x, float got)
{
    const float want = isnan(x)                   ? x + x
                       : x >= VM_SIG_ONE_BEYOND  ? 1.0f
                       : x <= VM_SIG_ZERO_BEYOND ? 0.0f
                       : fabsf(x) < 1e-30f       ? 0.5f
                                                 : got;
    VM_ASSERT(u_of(got) == u_of(want), "sigmoid float32 %s: f(%a) = %a (0x%08x), want %a (0x%08x)", path, (double)x,
              (double)got, u_of(got), (double)want, u_of(want));
    if (x > VM_SIG_ZERO_BEYOND && x < -87.5f) /* a subnormal result, not flushed */
        VM_ASSERT(got > 0 && got < FLT_MIN, "sigmoid float32 %s: f(%a) = %a", path, (double)x, (double)got);
}

START_TEST(test_vmath_sigmoid32)
{
    const float xs[] = {0.0f,     -0.0f,   0x1p-149f,         -0x1p-149f,        VM_SIG_ONE_BEYOND, 50.0f,  FLT_MAX,
                        INFINITY, -INFINITY, -FLT_MAX,        VM_SIG_ZERO_BEYOND, -104.0f,          -200.0f, NAN,
                        -NAN,     f_of(0x7f800001u), f_of(0xffc12345u), -103.9f, -100.0f, -90.0f};
    vm_specials32(ND_UNARY_SIGMOID, xs, (int)(sizeof xs / sizeof xs[0]), sigmoid32_special);
}
END_TEST

/* Every length 0..71 at misaligned starts, in place and out of place,
 * gives the bits of one long call, for every kernel of every path (the
 * tails go through the same vector code). */
START_TEST(test_vmath_lengths)
{
    double in0[80], ing[80], want[80], buf[81];
    float inf0[80], infg[80], wantf[80], buff[81];
    for (int i = 0; i < 80; i++) {
        in0[i] = (double)(i - 40) * 0.0237 + 0.001 * (double)i + 0.0001; /* in every domain but acosh's */
        inf0[i] = (float)in0[i];
        /* lgamma, digamma: [-8, 30], their three kinds of lanes (the
         * scalar body below 0, the pieces, the vectorised series) */
        ing[i] = in0[i] * 20.0 + 11.0;
        infg[i] = (float)ing[i];
    }
    for (int isa = 0; isa <= (int)nd__cpu_isa_detected(); isa++)
        for (int f = 0; f < VM_NFUNCS; f++)
            for (int d = 0; d < 2; d++) {
                const nd_vmath_kernel *k = nd__vmath((nd_cpu_isa)isa, g_funcs[f].op, d ? ND_FLOAT64 : ND_FLOAT32);
                if (!k) continue;
                const bool gam = g_funcs[f].op == ND_UNARY_LGAMMA || g_funcs[f].op == ND_UNARY_DIGAMMA;
                const double *in = gam ? ing : in0;
                const float *inf_ = gam ? infg : inf0;
                if (d) k->fn(want, in, 80);
                else k->fn(wantf, inf_, 80);
                for (int off = 0; off < 5; off++)
                    for (int n = 0; n + off <= 72; n++) {
                        if (d) {
                            memset(buf, 0, sizeof buf);
                            k->fn(buf + off, in + off, n);
                            for (int i = 0; i < n; i++) VM_CHECK(u64_of(buf[off + i]) == u64_of(want[off + i]));
                            VM_CHECK(u64_of(buf[off + n]) == 0);
                            memcpy(buf, in, sizeof in0);
                            k->fn(buf + off, buf + off, n);
                            for (int i = 0; i < n; i++) VM_CHECK(u64_of(buf[off + i]) == u64_of(want[off + i]));
                        } else {
                            memset(buff, 0, sizeof buff);
                            k->fn(buff + off, inf_ + off, n);
                            for (int i = 0; i < n; i++) VM_CHECK(u_of(buff[off + i]) == u_of(wantf[off + i]));
                            VM_CHECK(u_of(buff[off + n]) == 0);
                            memcpy(buff, inf_, sizeof inf0);
                            k->fn(buff + off, buff + off, n);
                            for (int i = 0; i < n; i++) VM_CHECK(u_of(buff[off + i]) == u_of(wantf[off + i]));
                        }
                    }
            }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Binary kernels: power, arctan2, hypot                               */
/* ------------------------------------------------------------------ */
typedef struct {
    nd_binary_op op;
    const char *name;
    double (*r32)(double, double);
    long double (*r64)(long double, long double);
} vm_func2;
static const vm_func2 g_funcs2[] = {{ND_BINARY_POWER, "power", pow, powl},
                                    {ND_BINARY_ARCTAN2, "arctan2", atan2, atan2l},
                                    {ND_BINARY_HYPOT, "hypot", hypot, hypotl}};

/* Pairs: every two special values, then random ones (log-uniform
 * magnitudes 2^-60 .. 2^60 of both signs against, for power, exponents
 * in [-40, 40], half of them integers, and bases near 1). */
static int64_t vm_pairs(const double *sp, int nsp, int i, double *x, double *y, uint64_t *s, bool f32)
{
    if (i < nsp * nsp) {
        *x = sp[i / nsp], *y = sp[i % nsp];
        return 1;
    }
    double u = (double)(xs64(s) >> 11) * 0x1p-53, v = (double)(xs64(s) >> 11) * 0x1p-53;
    double m = exp2(-60.0 + 120.0 * u), e = -40.0 + 80.0 * v;
    switch (xs64(s) % 4) {
    case 0: *x = m, *y = e; break;
    case 1: *x = -m, *y = rint(e); break;
    case 2: *x = 1.0 + (u - 0.5) * 0x1p-10, *y = e * 1e4; break;
    default: *x = (v < 0.5 ? -1 : 1) * m, *y = (u < 0.5 ? -1 : 1) * exp2(-60.0 + 120.0 * v); break;
    }
    if (f32) *x = (float)*x, *y = (float)*y;
    return 1;
}

START_TEST(test_vmath_ulp_binary)
{
    bool lowered = nd__cpu_isa() < nd__cpu_isa_detected();
    for (int isa = lowered ? (int)nd__cpu_isa() : 0; isa <= (int)nd__cpu_isa(); isa++)
        for (int f = 0; f < 3; f++)
            for (int d = 0; d < 2; d++) {
                const vm_func2 *fn = &g_funcs2[f];
                const nd_vmath_kernel2 *k = nd__vmath2((nd_cpu_isa)isa, fn->op, d ? ND_FLOAT64 : ND_FLOAT32);
                if (!k) continue;
                double sp[sizeof g_special64 / sizeof g_special64[0]];
                int nsp = (int)(sizeof sp / sizeof sp[0]);
                for (int i = 0; i < nsp; i++) sp[i] = d ? g_special64[i] : (double)g_special32[i % 28];
                uint64_t s = 0x243f6a8885a308d3ull + (uint64_t)f;
                double mx = 0;
                enum { N = 1 << 10 };
                for (int i0 = 0; i0 < nsp * nsp + (1 << 16); i0 += N) {
                    double xs[N], ys[N], out[N];
                    float xf[N], yf[N], of[N];
                    for (int i = 0; i < N; i++) {
                        vm_pairs(sp, nsp, i0 + i, &xs[i], &ys[i], &s, !d);
                        xf[i] = (float)xs[i], yf[i] = (float)ys[i];
                    }
                    if (d) k->fn(out, xs, ys, N);
                    else k->fn(of, xf, yf, N);
                    for (int i = 0; i < N; i++) {
                        long double e = d ? ulp_err(out[i], fn->r64(xs[i], ys[i]), 53, -1022, 1024)
                                          : ulp_err(of[i], fn->r32(xf[i], yf[i]), 24, -126, 128);
                        VM_ASSERT(e <= VM_LIMIT, "%s %s %s: f(%a, %a) = %a (%.2Lf ulp)", fn->name, d ? "float64" : "float32",
                                  nd__cpu_isa_name((nd_cpu_isa)isa), xs[i], ys[i], d ? out[i] : (double)of[i], e);
                        if (e > mx) mx = (double)e;
                    }
                }
                if (getenv("ND_VMATH_REPORT") && !strcmp(getenv("ND_VMATH_REPORT"), "1"))
                    fprintf(stderr, "vmath %-8s %-7s %-7s %-7s max %.2f ulp\n", fn->name, d ? "float64" : "float32",
                            nd__cpu_isa_name((nd_cpu_isa)isa), k->impl, mx);
            }
}
END_TEST

/* ------------------------------------------------------------------ */
/* The public ops on the path in use                                   */
/* ------------------------------------------------------------------ */
static const nd_dtype g_dts[4] = {ND_FLOAT32, ND_FLOAT64, ND_FLOAT16, ND_BFLOAT16};

/* want[i] = the kernel's f(host[i]) for dtype t (float16/bfloat16:
 * through float32 and rounded back), in t's storage; false when the path
 * in use has no kernel for the op (the scalar loop runs). */
static bool vm_expect(nd_unary_op op, nd_dtype t, const void *host, void *want, int64_t n)
{
    const nd_vmath_kernel *k = nd__vmath(nd__cpu_isa(), op, t == ND_FLOAT64 ? ND_FLOAT64 : ND_FLOAT32);
    if (!k) return false;
    if (t == ND_FLOAT32 || t == ND_FLOAT64) {
        k->fn(want, host, n);
        return true;
    }
    const uint16_t *h = host;
    uint16_t *w = want;
    float *tmp = malloc((size_t)n * sizeof(float));
    ck_assert_ptr_nonnull(tmp);
    for (int64_t i = 0; i < n; i++) tmp[i] = t == ND_FLOAT16 ? nd_half_to_float(h[i]) : nd_bf16_to_float(h[i]);
    k->fn(tmp, tmp, n);
    for (int64_t i = 0; i < n; i++) w[i] = t == ND_FLOAT16 ? nd_float_to_half(tmp[i]) : nd_float_to_bf16(tmp[i]);
    free(tmp);
    return true;
}

/* Bitwise equality of element i of got and j of want (NaNs: any NaN). */
static bool vm_same(nd_dtype t, const void *got, int64_t i, const void *want, int64_t j)
{
    size_t sz = nd_dtype_size(t);
    const unsigned char *g = (const unsigned char *)got + (size_t)i * sz, *w = (const unsigned char *)want + (size_t)j * sz;
    if (!memcmp(g, w, sz)) return true;
    if (t == ND_FLOAT32) {
        float a, b;
        memcpy(&a, g, 4), memcpy(&b, w, 4);
        return isnan(a) && isnan(b);
    }
    if (t == ND_FLOAT64) {
        double a, b;
        memcpy(&a, g, 8), memcpy(&b, w, 8);
        return isnan(a) && isnan(b);
    }
    uint16_t a, b;
    memcpy(&a, g, 2), memcpy(&b, w, 2);
    float fa = t == ND_FLOAT16 ? nd_half_to_float(a) : nd_bf16_to_float(a);
    float fb = t == ND_FLOAT16 ? nd_half_to_float(b) : nd_bf16_to_float(b);
    return isnan(fa) && isnan(fb);
}

/* Host values of dtype t: a spread over [-3, 3] with 1.5 added every 3rd
 * element (acosh's domain), NaN, +-inf, -0 and a large value mixed in. */
static void *vm_host(nd_dtype t, int64_t n)
{
    size_t sz = nd_dtype_size(t);
    unsigned char *p = malloc((size_t)n * sz);
    ck_assert_ptr_nonnull(p);
    for (int64_t i = 0; i < n; i++) {
        double v = (double)((i * 7919) % 4001 - 2000) * 0.0015 + (i % 3 == 0 ? 1.5 : 0.0);
        switch (i % 997) {
        case 5: v = NAN; break;
        case 6: v = INFINITY; break;
        case 7: v = -INFINITY; break;
        case 8: v = -0.0; break;
        case 9: v = 1e4; break;
        default: break;
        }
        if (t == ND_FLOAT64) memcpy(p + i * 8, &v, 8);
        else {
            float f = (float)v;
            if (t == ND_FLOAT32) memcpy(p + i * 4, &f, 4);
            else {
                uint16_t h = t == ND_FLOAT16 ? nd_float_to_half(f) : nd_float_to_bf16(f);
                memcpy(p + i * 2, &h, 2);
            }
        }
    }
    return p;
}

/* op(view) into a new array, fetched as n elements of t. */
static void vm_run(nd_unary_op op, const nd_array *a, void *got, size_t nbytes)
{
    nd_array *r = NULL;
    ND_OK_OR_FAIL(nd_unary(&r, op, a));
    ND_OK_OR_FAIL(nd_copy_to_host(got, r, nbytes));
    nd_release(r);
}

/* Every op with a kernel on the path in use, every float dtype: the
 * contiguous, transposed (small: the general runner; 301x203: the tiled
 * runner), strided, broadcast and in-place layouts, and 1 vs 2 threads on
 * a threaded size, give the kernel's bits on the contiguous data. */
START_TEST(test_vmath_public)
{
    enum { R = 301, C = 203 };
    const int64_t n = R * C;
    const int64_t shape[2] = {R, C};
    int covered = 0;
    for (int d = 0; d < 4; d++) {
        nd_dtype t = g_dts[d];
        size_t sz = nd_dtype_size(t);
        void *host = vm_host(t, n), *want = malloc((size_t)n * sz), *got = malloc((size_t)n * sz);
        ck_assert_ptr_nonnull(want);
        ck_assert_ptr_nonnull(got);
        for (int f = 0; f < VM_NFUNCS; f++) {
            nd_unary_op op = g_funcs[f].op;
            if (!vm_expect(op, t, host, want, n)) continue;
            covered++;
            nd_array *a = NULL, *v = NULL;
            ND_OK_OR_FAIL(nd_from_host(&a, host, t, 2, shape, nd_cpu()));
            /* contiguous, at 1 and 2 threads */
            for (int th = 1; th <= 2; th++) {
                int old = nd_get_num_threads();
                nd_set_num_threads(th);
                vm_run(op, a, got, (size_t)n * sz);
                nd_set_num_threads(old);
                for (int64_t i = 0; i < n; i++)
                    VM_ASSERT(vm_same(t, got, i, want, i), "%s %s contiguous [%lld]", g_funcs[f].name,
                                  nd_dtype_name(t), (long long)i);
            }
            /* transposed (tiled runner) into a C-contiguous result */
            ND_OK_OR_FAIL(nd_transpose(&v, a, NULL));
            vm_run(op, v, got, (size_t)n * sz);
            for (int64_t i = 0; i < R; i++)
                for (int64_t j = 0; j < C; j++)
                    VM_ASSERT(vm_same(t, got, j * R + i, want, i * C + j), "%s %s transposed", g_funcs[f].name,
                                  nd_dtype_name(t));
            nd_release(v), v = NULL;
            /* every 2nd column, every 3rd row reversed */
            nd_range rg[2] = {{R - 1, ND_NONE, -3}, {0, ND_NONE, 2}};
            ND_OK_OR_FAIL(nd_slice(&v, a, 2, rg));
            int64_t rs = (R + 2) / 3, cs = (C + 1) / 2;
            vm_run(op, v, got, (size_t)(rs * cs) * sz);
            for (int64_t i = 0; i < rs; i++)
                for (int64_t j = 0; j < cs; j++)
                    VM_ASSERT(vm_same(t, got, i * cs + j, want, (R - 1 - 3 * i) * C + 2 * j), "%s %s strided",
                                  g_funcs[f].name, nd_dtype_name(t));
            nd_release(v), v = NULL;
            /* a small transposed view (the general runner) */
            nd_range sm[2] = {{0, 37, 1}, {0, 53, 1}};
            nd_array *s = NULL;
            ND_OK_OR_FAIL(nd_slice(&s, a, 2, sm));
            ND_OK_OR_FAIL(nd_transpose(&v, s, NULL));
            vm_run(op, v, got, (size_t)(37 * 53) * sz);
            for (int64_t i = 0; i < 37; i++)
                for (int64_t j = 0; j < 53; j++)
                    VM_CHECK(vm_same(t, got, j * 37 + i, want, i * C + j));
            nd_release(v), v = NULL;
            nd_release(s), s = NULL;
            /* a broadcast element */
            nd_array *one = NULL;
            ND_OK_OR_FAIL(nd_slice(&s, a, 2, (nd_range[2]){{3, 4, 1}, {100, 101, 1}}));
            ND_OK_OR_FAIL(nd_reshape(&one, s, 0, NULL));
            ND_OK_OR_FAIL(nd_broadcast_to(&v, one, 2, shape));
            vm_run(op, v, got, (size_t)n * sz);
            for (int64_t i = 0; i < n; i += 101) VM_CHECK(vm_same(t, got, i, want, 3 * C + 100));
            nd_release(v), v = NULL;
            nd_release(s);
            nd_release(one);
            /* in place */
            ND_OK_OR_FAIL(nd_unary(&a, op, a));
            ND_OK_OR_FAIL(nd_copy_to_host(got, a, (size_t)n * sz));
            for (int64_t i = 0; i < n; i++) VM_CHECK(vm_same(t, got, i, want, i));
            nd_release(a);
        }
        free(host), free(want), free(got);
    }
    ck_assert_int_ge(covered, 3 * 3); /* the baseline's exp/tanh/sigmoid on float32, float16, bfloat16 */
}
END_TEST

/* nd_power / nd_arctan2 / nd_hypot on the path in use: contiguous, a
 * broadcast scalar exponent, a strided view, float16 through float32,
 * all with the kernel's bits. */
START_TEST(test_vmath_public_binary)
{
    enum { N = 5000 };
    for (int f = 0; f < 3; f++)
        for (int d = 0; d < 4; d++) {
            nd_dtype t = g_dts[d];
            const nd_vmath_kernel2 *k = nd__vmath2(nd__cpu_isa(), g_funcs2[f].op, t == ND_FLOAT64 ? ND_FLOAT64 : ND_FLOAT32);
            if (!k) continue;
            size_t sz = nd_dtype_size(t);
            void *ha = vm_host(t, 2 * N), *hb = vm_host(t, 2 * N), *got = malloc(2 * N * sz);
            ck_assert_ptr_nonnull(got);
            memmove(hb, (char *)hb + 7 * sz, (size_t)N * sz); /* b differs from a */
            /* want = kernel on float32/float64 values of a[0..N) and b[0..N), and of a[2i], b[0] */
            double wa[N], wb[N], w1[N], w2[N];
            float fa[N], fb[N], g1[N], g2[N];
            for (int pass = 0; pass < 2; pass++) {
                for (int i = 0; i < N; i++) {
                    int ia = pass ? 2 * i : i, ib = pass ? 0 : i;
                    if (t == ND_FLOAT64) wa[i] = ((double *)ha)[ia], wb[i] = ((double *)hb)[ib];
                    else if (t == ND_FLOAT32) fa[i] = ((float *)ha)[ia], fb[i] = ((float *)hb)[ib];
                    else {
                        uint16_t xa = ((uint16_t *)ha)[ia], xb = ((uint16_t *)hb)[ib];
                        fa[i] = t == ND_FLOAT16 ? nd_half_to_float(xa) : nd_bf16_to_float(xa);
                        fb[i] = t == ND_FLOAT16 ? nd_half_to_float(xb) : nd_bf16_to_float(xb);
                    }
                }
                if (t == ND_FLOAT64) k->fn(pass ? w2 : w1, wa, wb, N);
                else k->fn(pass ? g2 : g1, fa, fb, N);
            }
            nd_array *a = NULL, *b = NULL, *va = NULL, *vb = NULL, *r = NULL;
            const int64_t n1 = N, n2 = 2 * N;
            ND_OK_OR_FAIL(nd_from_host(&a, ha, t, 1, &n2, nd_cpu()));
            ND_OK_OR_FAIL(nd_from_host(&b, hb, t, 1, &n2, nd_cpu()));
            for (int pass = 0; pass < 2; pass++) {
                nd_range ra = {0, N, 1}, rb = {0, N, 1};
                if (pass) ra.step = 2, ra.stop = 2 * N, rb.stop = 1;
                ND_OK_OR_FAIL(nd_slice(&va, a, 1, &ra));
                ND_OK_OR_FAIL(nd_slice(&vb, b, 1, &rb));
                if (pass) { /* b[0] broadcast to N */
                    nd_array *bb = NULL;
                    ND_OK_OR_FAIL(nd_broadcast_to(&bb, vb, 1, &n1));
                    nd_release(vb);
                    vb = bb;
                }
                ND_OK_OR_FAIL(nd_binary(&r, g_funcs2[f].op, va, vb));
                ND_OK_OR_FAIL(nd_copy_to_host(got, r, (size_t)N * sz));
                for (int i = 0; i < N; i++) {
                    bool ok;
                    if (t == ND_FLOAT64) ok = vm_same(t, got, i, pass ? w2 : w1, i);
                    else if (t == ND_FLOAT32) ok = vm_same(t, got, i, pass ? g2 : g1, i);
                    else {
                        float w = (pass ? g2 : g1)[i];
                        uint16_t h = t == ND_FLOAT16 ? nd_float_to_half(w) : nd_float_to_bf16(w);
                        ok = vm_same(t, got, i, &h, 0);
                    }
                    VM_ASSERT(ok, "%s %s pass %d [%d]", g_funcs2[f].name, nd_dtype_name(t), pass, i);
                }
                nd_release(va), nd_release(vb), nd_release(r);
                va = vb = r = NULL;
            }
            nd_release(a), nd_release(b);
            free(ha), free(hb), free(got);
        }
}
END_TEST

/* Transposed inputs with outputs of 16 MiB and more (the tiled runner's
 * streaming stores, rows aligned or not): the kernel's bits. */
START_TEST(test_vmath_tiled_large)
{
    const struct {
        nd_unary_op op;
        nd_dtype t;
        int64_t r, c;
    } cases[] = {{ND_UNARY_EXP, ND_FLOAT32, 2048, 2048}, {ND_UNARY_TANH, ND_FLOAT64, 1027, 2053},
                 {ND_UNARY_SIN, ND_FLOAT32, 2053, 2051}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        nd_dtype t = cases[c].t;
        int64_t R = cases[c].r, C = cases[c].c, n = R * C;
        size_t sz = nd_dtype_size(t);
        void *host = vm_host(t, n), *want = malloc((size_t)n * sz), *got = malloc((size_t)n * sz);
        ck_assert_ptr_nonnull(want);
        ck_assert_ptr_nonnull(got);
        if (vm_expect(cases[c].op, t, host, want, n)) {
            const int64_t shape[2] = {C, R}; /* host is C x R; its transpose R x C */
            nd_array *a = NULL, *v = NULL;
            ND_OK_OR_FAIL(nd_from_host(&a, host, t, 2, shape, nd_cpu()));
            ND_OK_OR_FAIL(nd_transpose(&v, a, NULL));
            vm_run(cases[c].op, v, got, (size_t)n * sz);
            for (int64_t i = 0; i < R; i++)
                for (int64_t j = 0; j < C; j++)
                    VM_ASSERT(vm_same(t, got, i * C + j, want, j * R + i), "%s %s [%lld, %lld]",
                              nd_unary_op_name(cases[c].op), nd_dtype_name(t), (long long)i, (long long)j);
            nd_release(a);
            nd_release(v);
        }
        free(host), free(want), free(got);
    }
}
END_TEST

/* The CPU backend's tiled path for transposed inputs (ragged tiles, a
 * transposed operand beside a contiguous and a broadcast one), against
 * plain loops: subtract(a.T, b) and subtract(a.T, row) for float64,
 * int16 and uint8 wrap-around. */
START_TEST(test_vmath_tiled_transpose)
{
    enum { R = 301, C = 203 };
    const int64_t sa[2] = {C, R}, sb[2] = {R, C}, srow[1] = {C};
    static double ad[R * C], bd[R * C], od[R * C];
    static int16_t ai[R * C], bi[R * C], oi[R * C];
    static uint8_t au[R * C], bu[R * C], ou[R * C];
    for (int i = 0; i < R * C; i++) {
        ad[i] = (double)(i % 1009) * 0.37 - 50.0;
        bd[i] = (double)(i % 211) * 1.5;
        ai[i] = (int16_t)(i * 37);
        bi[i] = (int16_t)(i * 101 + 7);
        au[i] = (uint8_t)(i * 13);
        bu[i] = (uint8_t)(i * 7 + 3);
    }
    const void *A[3] = {ad, ai, au}, *B[3] = {bd, bi, bu};
    void *O[3] = {od, oi, ou};
    const nd_dtype dts[3] = {ND_FLOAT64, ND_INT16, ND_UINT8};
    for (int d = 0; d < 3; d++) {
        for (int bcast = 0; bcast < 2; bcast++) {
            nd_array *a = NULL, *at = NULL, *b = NULL, *o = NULL;
            ND_OK_OR_FAIL(nd_from_host(&a, A[d], dts[d], 2, sa, nd_cpu()));
            ND_OK_OR_FAIL(nd_transpose(&at, a, NULL));
            ND_OK_OR_FAIL(nd_from_host(&b, B[d], dts[d], bcast ? 1 : 2, bcast ? srow : sb, nd_cpu()));
            ND_OK_OR_FAIL(nd_empty(&o, dts[d], 2, sb, nd_cpu()));
            ND_OK_OR_FAIL(nd_subtract(&o, at, b));
            ND_OK_OR_FAIL(nd_copy_to_host(O[d], o, (size_t)R * C * nd_dtype_size(dts[d])));
            for (int i = 0; i < R; i++)
                for (int j = 0; j < C; j++) {
                    int ia = j * R + i, ib = bcast ? j : i * C + j, io = i * C + j;
                    if (d == 0) VM_CHECK(od[io] == ad[ia] - bd[ib]);
                    else if (d == 1) VM_CHECK(oi[io] == (int16_t)(uint16_t)((uint16_t)ai[ia] - (uint16_t)bi[ib]));
                    else VM_CHECK(ou[io] == (uint8_t)(au[ia] - bu[ib]));
                }
            nd_release(a);
            nd_release(at);
            nd_release(b);
            nd_release(o);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* abs of complex64: the hand-vectorised kernel against the scalar body */
/* ------------------------------------------------------------------ */
/* nd__vmath_abs_c64 promises the bits of nd_op_abs_c64 (a double sum of
 * squares, its correctly rounded root rounded to float): random bit
 * patterns (every exponent, NaN and inf among them), the special pairs,
 * and pairs built so that the root falls near a float rounding tie, where
 * the kernel's Newton root must give way to vsqrtpd (the test checks that
 * some do); then every tail length at every offset, a poisoned element
 * after it, and the public nd_abs (threaded chunks) on the path in use. */
/* the same float, or both NaN (a NaN's payload is not promised: it is
 * whichever operand's the instruction order kept) */
static bool same_abs(float got, float want) { return u_of(got) == u_of(want) || (got != got && want != want); }

static bool abs_near_tie(float re, float im)
{
    const double r = sqrt((double)re * re + (double)im * im);
    uint64_t u;
    memcpy(&u, &r, sizeof u);
    const uint64_t low = u & ((UINT64_C(1) << 29) - 1);
    return low + 4 - (UINT64_C(1) << 28) <= 8;
}

START_TEST(test_vmath_abs_c64)
{
    enum { N = 1 << 18, NSP = 10 };
    float *a = malloc(sizeof(float) * 2 * N), *o = malloc(sizeof(float) * (N + 1));
    ck_assert(a && o);
    uint64_t st = 0x9e3779b97f4a7c15u;
    const float sp[NSP] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1p-149f, FLT_MAX, -1.0f, 3.0f, 0x1p-126f};
    int64_t n = 0, nties = 0;
    for (int i = 0; i < NSP; i++)
        for (int j = 0; j < NSP; j++) a[2 * n] = sp[i], a[2 * n + 1] = sp[j], n++;
    /* near ties: f and a small im with f^2 + im^2 ~ (f + ulp(f) / 2)^2 */
    for (int i = 0; i < 1 << 16; i++, n++) {
        const float f = (float)ldexp(1.0 + (double)(xs64(&st) >> 12) * 0x1p-52, (int)(xs64(&st) % 200) - 100);
        const double m = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
        a[2 * n] = f, a[2 * n + 1] = (float)sqrt(m * m - (double)f * f);
        nties += abs_near_tie(a[2 * n], a[2 * n + 1]);
    }
    for (; n < N; n++) a[2 * n] = f_of((uint32_t)xs64(&st)), a[2 * n + 1] = f_of((uint32_t)xs64(&st));
    ck_assert_msg(nties >= 16, "only %lld pairs near a tie: the fallback is not exercised", (long long)nties);
    for (int isa = 0; isa <= (int)nd__cpu_isa_detected(); isa++) {
        const nd_vmath_abs_c64_fn k = nd__vmath_abs_c64((nd_cpu_isa)isa);
        if (!k) continue;
        k(o, a, N);
        for (int64_t i = 0; i < N; i++) {
            const float w = nd_op_abs_c64((nd_c64_t){a[2 * i], a[2 * i + 1]});
            VM_ASSERT(same_abs(o[i], w), "isa %d: |%a%+ai| = %a, the scalar body %a", isa, (double)a[2 * i],
                      (double)a[2 * i + 1], (double)o[i], (double)w);
        }
        for (int off = 0; off < 3; off++)
            for (int len = 0; len <= 40; len++) {
                for (int i = 0; i <= len; i++) o[i] = -7.0f;
                k(o, a + 2 * (1000 + off), len);
                for (int i = 0; i < len; i++)
                    VM_CHECK(same_abs(o[i], nd_op_abs_c64((nd_c64_t){a[2 * (1000 + off + i)], a[2 * (1000 + off + i) + 1]})));
                VM_CHECK(o[len] == -7.0f);
            }
    }
    /* the public op on the path in use: the same bits */
    nd_array *x = NULL, *y = NULL;
    ck_assert_int_eq(nd_from_host(&x, a, ND_COMPLEX64, 1, (int64_t[]){N}, nd_cpu()), ND_OK);
    ck_assert_int_eq(nd_abs(&y, x), ND_OK);
    ck_assert_int_eq(nd_dtype_of(y), ND_FLOAT32);
    const float *g = nd_data(y);
    for (int64_t i = 0; i < N; i++) {
        const float w = nd_op_abs_c64((nd_c64_t){a[2 * i], a[2 * i + 1]});
        VM_ASSERT(same_abs(g[i], w), "nd_abs: |%a%+ai| = %a, the scalar body %a", (double)a[2 * i],
                  (double)a[2 * i + 1], (double)g[i], (double)w);
    }
    nd_release(x);
    nd_release(y);
    free(a);
    free(o);
}
END_TEST

Suite *suite_vmath(void)
{
    Suite *s = suite_create("vmath");
    TCase *tc = tcase_create("vmath");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_vmath_table);
    tcase_add_test(tc, test_vmath_ulp32);
    tcase_add_test(tc, test_vmath_ulp64);
    tcase_add_test(tc, test_vmath_ulp_binary);
    tcase_add_test(tc, test_vmath_lengths);
    tcase_add_test(tc, test_vmath_tanh32);
    tcase_add_test(tc, test_vmath_sigmoid32);
    tcase_add_test(tc, test_vmath_public_binary);
    tcase_add_test(tc, test_vmath_public);
    tcase_add_test(tc, test_vmath_tiled_large);
    tcase_add_test(tc, test_vmath_tiled_transpose);
    tcase_add_test(tc, test_vmath_abs_c64);
    suite_add_tcase(s, tc);
    return s;
}
