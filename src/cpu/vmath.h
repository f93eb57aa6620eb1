/* Vectorised float32/float64 math for the CPU loops (src/cpu/vmath.c,
 * src/cpu/vmath_mvec.c).
 *
 * nd__vmath(isa, op, dtype) is the vector kernel of a unary op for
 * float32 or float64 on one ISA path (src/cpu/isa.h), or NULL where that
 * path has none (then the scalar loop of src/shared/ops_math.h runs, as on the
 * CUDA side). A kernel computes o[i] = f(a[i]) for i in [0, n); o may be
 * exactly a (in place) but must not otherwise overlap it. Every element
 * goes through the same vector code whatever n and its position: a tail
 * shorter than the vector width is loaded as one masked vector (the lanes
 * beyond it hold a copy of its first element for libmvec, zeros for our
 * intrinsics kernels; they are never stored) and run through the same
 * call (never a scalar libm remainder), and every lane is computed
 * independently of the others, so results do not depend on the layout,
 * the thread split or the alignment. They may
 * differ between ISA paths (each path has its own ULP test in
 * tests/test_vmath.c).
 *
 * Two implementations:
 *  - "nd": erf, gelu and silu for float32 and float64 on AVX2 and AVX-512
 *    (vmath_special.c: the shared scalar bodies split around their exp,
 *    vectorised, in double); lgamma and digamma likewise around their log
 *    (libmvec's); our branch-free float32 exp, tanh and sigmoid (vmath.c), scalar
 *    C bodies under `omp simd`, no FMA contraction (-std=c11); and float64
 *    tanh on the AVX2 path (vmath_mvec.c: Cephes' method on libmvec's
 *    exp, one division per element; libmvec's own vector tanh cost three
 *    times its exp); float64 exp, tanh and sigmoid on the AVX-512 path
 *    (vmath.c: intrinsics, our exp inlined, no libmvec call); float32
 *    tanh and sigmoid on the AVX-512 and AVX2 paths (vmath.c: intrinsics;
 *    tanh one expm1-style formula for every argument, sigmoid on our exp,
 *    one division each);
 *  - "libmvec": glibc's vector math library (glibc >= 2.35 on x86-64;
 *    `-lm` links it), _ZGVeN8v_<f> / _ZGVeN16v_<f>f on the AVX-512 path,
 *    _ZGVdN4v_<f> / _ZGVdN8v_<f>f on the AVX2 path, for exp exp2 expm1 log
 *    log2 log10 log1p sin cos tan arcsin arccos arctan sinh cosh tanh
 *    arcsinh arccosh arctanh cbrt, and the binary power (pow), arctan2
 *    (atan2) and hypot (nd__vmath2); sigmoid is composed from its exp as
 *    the scalar body does (e = exp(-|x|), 1/(1+e) for x >= 0, e/(1+e)
 *    below).
 *    Other builds (non-glibc, older glibc, non-x86) have no such kernels.
 * float16/bfloat16 run through the float32 kernels (the loop converts a
 * block to float32 and back, rounding to nearest even).
 *
 * Which runs: libmvec for every listed op on AVX-512 and AVX2, float32 and
 * float64, but tanh and sigmoid (ours for both dtypes on both paths but
 * float64 sigmoid on AVX2, libmvec's exp composed), and float64 exp on
 * AVX-512; "nd" for float32 exp, tanh and sigmoid on the baseline path
 * (and on builds without libmvec); the scalar loops otherwise. For
 * float32 exp/tanh/sigmoid our scalar bodies and libmvec were measured on
 * each path (vmath.c gives the figures): libmvec was faster everywhere
 * (1.5x - 2.2x) at <= 4 ulp, so those bodies serve the baseline path
 * only; the float32 tanh and sigmoid intrinsics beat libmvec's tanhf and
 * its expf composed (AMD EPYC Zen 4, data in L1, one thread, ns an
 * element: tanh 0.25 against 0.38 on AVX-512, 0.36 against 0.74 on AVX2;
 * sigmoid 0.26 against 0.49, 0.46 against 0.63), so they replace them.
 *
 * Accuracy: the largest error measured (AMD Zen 5, glibc 2.36) by
 * tests/test_vmath.c against a correctly rounded reference (float32:
 * double libm; float64: long double libm, x87 80-bit), over the whole
 * range (float32: every 2039th bit pattern plus dense sweeps - the table
 * gives the larger of that and a 1021st-pattern run - and a one-off
 * exhaustive run where marked *; float64: random bit patterns,
 * log-uniform sweeps, the thresholds), subnormal inputs and results
 * included; the test's limit is 4 ulp for every function and path.
 * float16/bfloat16 results are the float32 kernel's, rounded once more.
 *
 *   max ulp    f32 avx512  f32 avx2  f32 baseline  f64 avx512  f64 avx2
 *   exp        2.51        2.51      0.94          2.13+       2.65
 *   tanh       1.93*       1.93*     1.30          1.35+       1.66+
 *   sigmoid    2.40*       2.40*     2.05          2.16+       2.64
 *   exp2       0.97        0.81      -             1.00        1.61
 *   expm1      2.33        1.66      -             1.83        2.83
 *   log        3.94*       3.94*     -             1.58        1.38
 *   log2       1.94        1.95      -             1.73        2.04
 *   log10      2.64        1.85      -             1.46        2.00
 *   log1p      1.77        1.77      -             1.74        1.54
 *   sin        1.78        1.78      -             3.04        3.04
 *   cos        1.80        1.80      -             3.39        3.39
 *   tan        3.40        3.27      -             3.14        2.96
 *   arcsin     2.78        2.64      -             2.09        2.25
 *   arccos     1.82        1.93      -             1.50        1.58
 *   arctan     1.84        2.21      -             1.77        1.77
 *   sinh       1.83        1.83      -             1.86        1.86
 *   cosh       1.86        1.95      -             1.85        1.83
 *   arcsinh    0.92        1.96      -             1.03        2.06
 *   arccosh    1.01        2.73      -             1.29        2.55
 *   arctanh    1.62        1.95      -             1.31        2.00
 *   cbrt       1.91        2.84      -             1.79        2.60
 *   power      0.62        0.62      -             0.99        0.99
 *   arctan2    2.67        2.67      -             1.98        1.98
 *   hypot      1.03        1.01      -             1.10        1.08
 *   erf        0.50        0.50      (0.50)        1.03        1.03
 *   gelu       0.50        0.50      (0.50)        5.04        5.04
 *   silu       0.50        0.50      (0.50)        3.61        3.61
 *   lgamma     0.50        0.50      (0.50)        3.18        3.18
 *   digamma    0.50        0.50      (0.50)        2.00        2.00
 *   (+ ours: float64 tanh on libmvec's exp on AVX2, vmath_mvec.c, measured
 *   on an Intel Xeon: libmvec's own tanh gave 1.16 and 2.10 at three times
 *   the cost; float64 exp, tanh and sigmoid on AVX-512 whole, vmath.c:
 *   exp by a degree-12 series and vscalefpd, 1.5x libmvec's exp, measured
 *   on an AMD EPYC Zen 4, where libmvec gave exp 2.65, sigmoid 2.64.
 *   float32 tanh and sigmoid on AVX-512 and AVX2: ours, the same bits on
 *   both paths (AMD EPYC Zen 4): tanh 1.93 at 0x1.08f028p-1 (libmvec's
 *   tanhf gave 1.36 and 1.00 at three halves and twice the cost), sigmoid
 *   2.40 at -0x1.0a111ap+2 (libmvec's expf composed gave 3.63*).
 *   * exhaustive over all 2^32 float32 inputs; the sweeps find 3.80
 *   (tanh: 1.86, sigmoid: 2.04).
 *   erf, gelu, silu: ours (vmath_special.c), computed in double (float32
 *   rounded once: 0.50 is the rounding itself); erf and gelu on our
 *   table-driven exp (0.52 ulp), silu on libmvec's float64 exp.
 *   The baseline path runs their scalar bodies (src/shared/ops_special.h;
 *   in parentheses, float64 on tests/data/special_ref.h: erf 1, gelu 3,
 *   silu 2 ulp of the correctly rounded value). gelu's float64 figure is
 *   its lower tail (x < -2), where SciPy's ndtr (Cephes) documents 3.4e-14
 *   relative (~150 ulp) on [-13, 0]; the test allows it 6.
 *   lgamma: ours (vmath_special.c), Stirling from 10.125 in `omp simd`
 *   loops on libmvec's float64 log, the fitted pieces of
 *   src/shared/ops_gamma.h below it and the scalar body for x <= 0 lane by
 *   lane; measured on an AMD EPYC Zen 4: float64 3.18 at x = -4.95 (the
 *   scalar body's recurrence), 2.98 (AVX-512) / 2.94 (AVX2) for x > 0, at
 *   Stirling's start (x ~ 11, where libmvec's log error counts twice);
 *   near the roots on the negative axis the test measures float64 in ulps
 *   of 1 (an absolute 1e-16: the result is a difference of two logs, and
 *   SciPy's error there is 1e9 ulp and more). 3.3 ns an element on [0.5,
 *   100) on AVX-512, 3.9 on AVX2, one thread (the scalar body 9.3 ns).
 *   digamma: ours the same way (the asymptotic series from 10.125 on
 *   libmvec's log; the scalar body below, no log there); libm has no
 *   digamma, so the test's reference is the scalar body (2 ulp of mpmath
 *   for x > 0, suite special_gamma): the figure is the kernel's distance to
 *   it (2.0 of mpmath on special_gamma's points). 3.5 ns an element on
 *   [0.5, 100) on AVX-512, 4.4 on AVX2 (the scalar body 9.0 ns).
 *   Binary ops: every pair of special values plus 65536 random pairs.)
 *
 * Special values are those of C99 Annex F / libm: f(+-0), f(+-inf) and NaN
 * (NaN in, NaN out), overflow to +-inf, gradual underflow, signed zeros
 * (e.g. sin(-0) = -0, exp(-inf) = +0, log(0) = -inf, log(-1) = NaN); the
 * test checks them bit for bit on every path. For "nd":
 *   exp:     overflow to +inf above log(FLT_MAX), +0 below -103.97;
 *   tanh:    odd, tanh(+-inf) = +-1, tiny x gives x;
 *   sigmoid: 1/(1+exp(-x)) without overflow, sigmoid(+inf) = 1,
 *            sigmoid(-inf) = +0, sigmoid(+-0) = 0.5.
 */
#ifndef ND_CPU_VMATH_H
#define ND_CPU_VMATH_H
#include <stdbool.h>
#include <stdint.h>

#include "cpu/isa.h"
#include "core/internal.h"

/* The ops that may have a kernel: (op, libm name) for libmvec's unary
 * variants, sigmoid (composed from exp), and the binary ones. */
#define ND_VMATH_MVEC_OPS(X)                                                                              \
    X(EXP, exp) X(EXP2, exp2) X(EXPM1, expm1) X(LOG, log) X(LOG2, log2) X(LOG10, log10) X(LOG1P, log1p)    \
    X(SIN, sin) X(COS, cos) X(TAN, tan) X(ARCSIN, asin) X(ARCCOS, acos) X(ARCTAN, atan) X(SINH, sinh)     \
    X(COSH, cosh) X(TANH, tanh) X(ARCSINH, asinh) X(ARCCOSH, acosh) X(ARCTANH, atanh) X(CBRT, cbrt)
#define ND_VMATH_MVEC_OPS2(X) X(POWER, pow) X(ARCTAN2, atan2) X(HYPOT, hypot)

/* Whether op can have a kernel at all (a cheap test before nd__vmath, so
 * that other ops pay nothing). */
#define ND_VMATH_CASE_(E, f) case ND_UNARY_##E:
#define ND_VMATH_CASE2_(E, f) case ND_BINARY_##E:
static inline bool nd__vmath_candidate(nd_unary_op op)
{
    switch (op) {
        ND_VMATH_MVEC_OPS(ND_VMATH_CASE_)
    case ND_UNARY_SIGMOID:
    case ND_UNARY_ERF:
    case ND_UNARY_GELU:
    case ND_UNARY_SILU:
    case ND_UNARY_LGAMMA:
    case ND_UNARY_DIGAMMA: return true;
    default: return false;
    }
}
static inline bool nd__vmath2_candidate(nd_binary_op op)
{
    switch (op) {
        ND_VMATH_MVEC_OPS2(ND_VMATH_CASE2_)
        return true;
    default: return false;
    }
}

typedef struct nd_vmath_kernel {
    void (*fn)(void *o, const void *a, int64_t n);
    const char *impl; /* "nd" or "libmvec" */
} nd_vmath_kernel;

/* The kernel of op on dtype t (ND_FLOAT32 or ND_FLOAT64) for path isa
 * (at most nd__cpu_isa_detected(): a higher one may execute instructions
 * the CPU lacks); NULL when there is none. The pointer is to static
 * storage. */
ND_INTERNAL const nd_vmath_kernel *nd__vmath(nd_cpu_isa isa, nd_unary_op op, nd_dtype t);
/* The binary kernels: o[i] = f(a[i], b[i]) (o may be exactly a or b),
 * for power, arctan2 and hypot on float32/float64 (libmvec's vv_ variants
 * on AVX-512 and AVX2 only); NULL otherwise. */
typedef struct nd_vmath_kernel2 {
    void (*fn)(void *o, const void *a, const void *b, int64_t n);
    const char *impl;
} nd_vmath_kernel2;
ND_INTERNAL const nd_vmath_kernel2 *nd__vmath2(nd_cpu_isa isa, nd_binary_op op, nd_dtype t);
/* |z| of n complex64 values (re, im float32 pairs at a) into n float32 at
 * o, on the AVX-512 path: the bits of nd_op_abs_c64 (src/shared/ops_cpx.h), a
 * double sum of squares whose square root is rounded to float, at about
 * three times the speed of gcc's vectorisation of it (vsqrtpd is slow on
 * every x86 core; vmath.c computes the root by Newton steps instead and
 * falls back to vsqrtpd near a float rounding tie). NULL on other paths,
 * whose loops vectorise nd_op_abs_c64 itself. */
typedef void (*nd_vmath_abs_c64_fn)(float *o, const void *a, int64_t n);
ND_INTERNAL nd_vmath_abs_c64_fn nd__vmath_abs_c64(nd_cpu_isa isa);
/* erf, gelu, silu, lgamma and digamma on AVX2 and AVX-512
 * (vmath_special.c): NULL for other ops and paths (and for silu, lgamma,
 * digamma in a build without libmvec). */
ND_INTERNAL const nd_vmath_kernel *nd__vmath_special(nd_cpu_isa isa, nd_unary_op op, nd_dtype t);
/* The libmvec part (vmath_mvec.c): NULL where this build has no libmvec. */
ND_INTERNAL const nd_vmath_kernel *nd__vmath_mvec(nd_cpu_isa isa, nd_unary_op op, nd_dtype t);
#endif
