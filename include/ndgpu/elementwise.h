/*
 * libndgpu: elementwise operations - the op table (ND_UNARY_OPS,
 * ND_BINARY_OPS) and its enums, nd_unary / nd_binary and their scalar
 * forms, nd_where, nd_clip, the named wrappers (nd_add, nd_exp, ...), the
 * functions beyond the table (divmod, modf, frexp, round, isclose, complex
 * parts, ...), and loss scaling for mixed precision (nd_amp_unscale_check,
 * nd_grad_scaler).
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_ELEMENTWISE_H
#define NDGPU_ELEMENTWISE_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The op table                                                        */
/* ------------------------------------------------------------------ */
/*
 * X(ENUM, name, kinds, rule) - the single list of elementwise ops.
 *  kinds: input kinds with a loop: B bool, I signed, U unsigned, F float;
 *         a lower-case b means bool inputs are computed as int8 (NumPy).
 *         A token (#kinds is the string): the backends generate exactly
 *         the loops the core dispatches from kinds and rule.
 *         A trailing h (BIUFh) gives float16/bfloat16 bodies of their own
 *         on the raw bits (nextafter, spacing step in the 16-bit format);
 *         a trailing w (BIUFw) has no bfloat16 loop: the core computes
 *         bfloat16 in float32 and rounds once (ldexp).
 *         A trailing C (BIUFC, IUFC, bIUFC): complex64/complex128 loops too
 *         (bodies in src/shared/ops_cpx.h, src/shared/ops_cpx_math.h). Complex
 *         keeps its dtype under SAME, FLOAT and DIV, computes in complex128
 *         under F64. A trailing a (BIUFa, abs): complex too, with a real
 *         result (|z|, NumPy's absolute); ops without C or a refuse complex
 *         (ND_ERR_DTYPE): floor, ceil, ... as NumPy 2 refuses them, and
 *         the ordering ops (less, ..., maximum/minimum, fmax/fmin), which
 *         NumPy 2 does take (it orders complex lexicographically, real
 *         part first): refusing them is a decision of this library, as
 *         the array API standard leaves complex ordering unspecified and
 *         PyTorch refuses it
 *  rule:  SAME  result dtype = (promoted) input dtype
 *         FLOAT result is the smallest float that holds the input
 *               (bool/int8/uint8 -> float16, 16-bit -> float32, wider -> float64)
 *         DIV   true division: integers -> float64, floats unchanged
 *         BOOL  result is bool (computed in the promoted input dtype)
 *         F64   result is float64 for every input (NumPy's float_power)
 *  New ops go at the end of the lists (the enum values are ABI).
 *  Semantics of these ops (NumPy 2.4's): fmod as C's fmod (sign of
 *  the dividend; integers: x % 0 == 0, INT_MIN % -1 == 0); logaddexp(2)
 *  NumPy's overflow-free forms (equal infinities give themselves);
 *  gcd/lcm on the magnitudes (gcd(INT_MIN, 0) == INT_MIN as NumPy, int8 and
 *  int16 lcm truncate the exact product, wider lcm wrap then take abs);
 *  heaviside(x, h0): 0 / h0 / 1, NaN for NaN; nextafter as C's (float16 as
 *  NumPy's npy_half_nextafter); spacing as NumPy's (float16: NumPy's
 *  always-positive half spacing; bfloat16 steps like float32); float_power
 *  always in float64; ldexp(x, e): x's float dtype (ints: the FLOAT rule
 *  on x alone), e any bool/integer dtype but uint64 (ND_ERR_DTYPE for a
 *  float or uint64 exponent, as NumPy's "ufunc 'ldexp' not supported");
 *  a weak scalar exponent must be an int; conjugate is the identity on
 *  these real dtypes.
 *  Special functions (scipy.special's semantics and special values; real
 *  floats, computed in float64 and rounded once for float32, float16 and
 *  bfloat16; bodies in src/shared/ops_special.h, accuracy in
 *  docs/special.md): erf, erfc, erfinv, erfcinv, erfcx (exp(x^2) erfc(x)),
 *  ndtr (the standard normal CDF), ndtri (its inverse), log_ndtr, logit,
 *  log_expit (log of sigmoid), softplus (log(1 + exp(x)), as
 *  np.logaddexp(0, x)), entr (-x log x, 0 at 0, -inf below), sinc
 *  (np.sinc: sin(pi x)/(pi x), 1 at 0, exactly 0 at the other integers);
 *  xlogy(x, y) = x log(y) and xlog1py(x, y) = x log1p(y), both 0 where
 *  x == 0 and y is not NaN. sigmoid is SciPy's expit (nd_expit,
 *  ND_UNARY_EXPIT name the same op).
 *  Activations (PyTorch's definitions; at -inf their limit -0 where
 *  PyTorch's formula gives NaN): gelu (x ndtr(x), approximate='none'),
 *  gelu_tanh (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
 *  approximate='tanh'), silu (x sigmoid(x)), mish (x tanh(softplus(x))),
 *  relu6 (min(max(x, 0), 6), NaN kept, relu6(-0) = +0 as relu), hardswish
 *  (x relu6(x + 3) / 6), selu (scale x, or scale alpha expm1(x) below 0,
 *  PyTorch's constants); leaky_relu(x, s) = x if x > 0 else s x, and
 *  elu(x, a) = x if x > 0 else a expm1(x): the parameter is the second
 *  operand (nd_binary_scalar for one slope or alpha).
 *  The special functions are SciPy's (scipy.special 1.17), computed in
 *  float64 (float32 rounds the float64 value once; float16/bfloat16 through
 *  float32) by the same code on every device (src/shared/ops_gamma.h):
 *  gamma (+-inf at +-0, NaN at the negative integers and -inf), lgamma
 *  (SciPy's gammaln: log|gamma(x)|, +inf at the poles and at +inf, -inf at -inf as SciPy; also
 *  nd_gammaln), digamma (psi; also nd_psi: -inf at +0, +inf at -0, NaN at
 *  the negative integers), i0, i0e, i1, i1e (modified Bessel functions of
 *  the first kind and their e^-|x| scaled forms; i0(+-inf), i1(+-inf) NaN
 *  as SciPy's), j0, j1, y0, y1 (Bessel functions; NaN at +-inf, y0/y1 NaN
 *  for x < 0 and -inf at 0); polygamma(n, x) = (-1)^(n+1) gamma(n+1)
 *  zeta(n+1, x), digamma(x) for n == 0, NaN for a non-integer n; beta(a, b)
 *  and betaln(a, b) = log|beta(a, b)| (SciPy's rules at non-positive
 *  integers); gammainc(a, x), gammaincc(a, x): the regularised lower and
 *  upper incomplete gamma functions (NaN for a < 0 or x < 0); zeta(x, q):
 *  Hurwitz's zeta sum_k (q+k)^-x (inf at x == 1 and at q a non-positive
 *  integer, NaN for x < 1 and for q < 0 with x not an integer). Accuracy:
 *  docs/special.md.
 */
#define ND_UNARY_OPS(X)                     \
    X(NEG, negative, IUFC, SAME)             \
    X(POSITIVE, positive, IUFC, SAME)        \
    X(ABS, abs, BIUFa, SAME)                 \
    X(SIGN, sign, IUFC, SAME)                \
    X(SQRT, sqrt, BIUFC, FLOAT)              \
    X(CBRT, cbrt, BIUF, FLOAT)              \
    X(SQUARE, square, bIUFC, SAME)           \
    X(RECIPROCAL, reciprocal, bIUFC, SAME)   \
    X(EXP, exp, BIUFC, FLOAT)                \
    X(EXP2, exp2, BIUFC, FLOAT)              \
    X(EXPM1, expm1, BIUFC, FLOAT)            \
    X(LOG, log, BIUFC, FLOAT)                \
    X(LOG2, log2, BIUFC, FLOAT)              \
    X(LOG10, log10, BIUFC, FLOAT)            \
    X(LOG1P, log1p, BIUFC, FLOAT)            \
    X(SIN, sin, BIUFC, FLOAT)                \
    X(COS, cos, BIUFC, FLOAT)                \
    X(TAN, tan, BIUFC, FLOAT)                \
    X(ARCSIN, arcsin, BIUFC, FLOAT)          \
    X(ARCCOS, arccos, BIUFC, FLOAT)          \
    X(ARCTAN, arctan, BIUFC, FLOAT)          \
    X(SINH, sinh, BIUFC, FLOAT)              \
    X(COSH, cosh, BIUFC, FLOAT)              \
    X(TANH, tanh, BIUFC, FLOAT)              \
    X(ARCSINH, arcsinh, BIUFC, FLOAT)        \
    X(ARCCOSH, arccosh, BIUFC, FLOAT)        \
    X(ARCTANH, arctanh, BIUFC, FLOAT)        \
    X(SIGMOID, sigmoid, BIUF, FLOAT)        \
    X(RELU, relu, IUF, SAME)                \
    X(FLOOR, floor, BIUF, SAME)             \
    X(CEIL, ceil, BIUF, SAME)               \
    X(TRUNC, trunc, BIUF, SAME)             \
    X(RINT, rint, BIUFC, FLOAT)              \
    X(LOGICAL_NOT, logical_not, BIUFC, BOOL)   \
    X(BITWISE_NOT, bitwise_not, BIU, SAME)   \
    X(ISNAN, isnan, BIUFC, BOOL)             \
    X(ISINF, isinf, BIUFC, BOOL)             \
    X(ISFINITE, isfinite, BIUFC, BOOL)       \
    X(SIGNBIT, signbit, BIUF, BOOL)         \
    X(DEG2RAD, deg2rad, BIUF, FLOAT)        \
    X(RAD2DEG, rad2deg, BIUF, FLOAT)        \
    X(SPACING, spacing, BIUFh, FLOAT)       \
    X(CONJUGATE, conjugate, bIUFC, SAME)     \
    X(ERF, erf, BIUF, FLOAT)                \
    X(ERFC, erfc, BIUF, FLOAT)              \
    X(ERFINV, erfinv, BIUF, FLOAT)          \
    X(ERFCINV, erfcinv, BIUF, FLOAT)        \
    X(ERFCX, erfcx, BIUF, FLOAT)            \
    X(NDTR, ndtr, BIUF, FLOAT)              \
    X(NDTRI, ndtri, BIUF, FLOAT)            \
    X(LOG_NDTR, log_ndtr, BIUF, FLOAT)      \
    X(LOGIT, logit, BIUF, FLOAT)            \
    X(LOG_EXPIT, log_expit, BIUF, FLOAT)    \
    X(SOFTPLUS, softplus, BIUF, FLOAT)      \
    X(ENTR, entr, BIUF, FLOAT)              \
    X(SINC, sinc, BIUF, FLOAT)              \
    X(GELU, gelu, BIUF, FLOAT)              \
    X(GELU_TANH, gelu_tanh, BIUF, FLOAT)    \
    X(SILU, silu, BIUF, FLOAT)              \
    X(MISH, mish, BIUF, FLOAT)              \
    X(RELU6, relu6, BIUF, FLOAT)            \
    X(HARDSWISH, hardswish, BIUF, FLOAT)    \
    X(SELU, selu, BIUF, FLOAT)              \
    X(GAMMA, gamma, BIUF, FLOAT)            \
    X(LGAMMA, lgamma, BIUF, FLOAT)          \
    X(DIGAMMA, digamma, BIUF, FLOAT)        \
    X(I0, i0, BIUF, FLOAT)                  \
    X(I0E, i0e, BIUF, FLOAT)                \
    X(I1, i1, BIUF, FLOAT)                  \
    X(I1E, i1e, BIUF, FLOAT)                \
    X(J0, j0, BIUF, FLOAT)                  \
    X(J1, j1, BIUF, FLOAT)                  \
    X(Y0, y0, BIUF, FLOAT)                  \
    X(Y1, y1, BIUF, FLOAT)

#define ND_BINARY_OPS(X)                          \
    X(ADD, add, BIUFC, SAME)                       \
    X(SUBTRACT, subtract, IUFC, SAME)              \
    X(MULTIPLY, multiply, BIUFC, SAME)             \
    X(DIVIDE, divide, BIUFC, DIV)                  \
    X(FLOOR_DIVIDE, floor_divide, bIUF, SAME)     \
    X(REMAINDER, remainder, bIUF, SAME)           \
    X(POWER, power, bIUFC, SAME)                   \
    X(MAXIMUM, maximum, BIUF, SAME)               \
    X(MINIMUM, minimum, BIUF, SAME)               \
    X(FMAX, fmax, BIUF, SAME)                     \
    X(FMIN, fmin, BIUF, SAME)                     \
    X(ARCTAN2, arctan2, BIUF, FLOAT)              \
    X(HYPOT, hypot, BIUF, FLOAT)                  \
    X(COPYSIGN, copysign, BIUF, FLOAT)            \
    X(EQUAL, equal, BIUFC, BOOL)                   \
    X(NOT_EQUAL, not_equal, BIUFC, BOOL)           \
    X(LESS, less, BIUF, BOOL)                     \
    X(LESS_EQUAL, less_equal, BIUF, BOOL)         \
    X(GREATER, greater, BIUF, BOOL)               \
    X(GREATER_EQUAL, greater_equal, BIUF, BOOL)   \
    X(LOGICAL_AND, logical_and, BIUFC, BOOL)       \
    X(LOGICAL_OR, logical_or, BIUFC, BOOL)         \
    X(LOGICAL_XOR, logical_xor, BIUFC, BOOL)       \
    X(BITWISE_AND, bitwise_and, BIU, SAME)        \
    X(BITWISE_OR, bitwise_or, BIU, SAME)          \
    X(BITWISE_XOR, bitwise_xor, BIU, SAME)        \
    X(LEFT_SHIFT, left_shift, bIU, SAME)          \
    X(RIGHT_SHIFT, right_shift, bIU, SAME)        \
    X(FMOD, fmod, bIUF, SAME)                     \
    X(LOGADDEXP, logaddexp, BIUF, FLOAT)          \
    X(LOGADDEXP2, logaddexp2, BIUF, FLOAT)        \
    X(GCD, gcd, IU, SAME)                         \
    X(LCM, lcm, IU, SAME)                         \
    X(HEAVISIDE, heaviside, BIUF, FLOAT)          \
    X(NEXTAFTER, nextafter, BIUFh, FLOAT)         \
    X(FLOAT_POWER, float_power, BIUFC, F64)        \
    X(LDEXP, ldexp, BIUFw, FLOAT)                 \
    X(XLOGY, xlogy, BIUF, FLOAT)                  \
    X(XLOG1PY, xlog1py, BIUF, FLOAT)              \
    X(LEAKY_RELU, leaky_relu, BIUF, FLOAT)        \
    X(ELU, elu, BIUF, FLOAT)                      \
    X(POLYGAMMA, polygamma, BIUF, FLOAT)          \
    X(BETA, beta, BIUF, FLOAT)                    \
    X(BETALN, betaln, BIUF, FLOAT)                \
    X(GAMMAINC, gammainc, BIUF, FLOAT)            \
    X(GAMMAINCC, gammaincc, BIUF, FLOAT)          \
    X(ZETA, zeta, BIUF, FLOAT)

#define ND_X_ENUM_UNARY(E, n, k, r) ND_UNARY_##E,
#define ND_X_ENUM_BINARY(E, n, k, r) ND_BINARY_##E,
typedef enum nd_unary_op { ND_UNARY_OPS(ND_X_ENUM_UNARY) ND_NUM_UNARY_OPS } nd_unary_op;
typedef enum nd_binary_op { ND_BINARY_OPS(ND_X_ENUM_BINARY) ND_NUM_BINARY_OPS } nd_binary_op;

/** NumPy name of a unary op ("negative", "exp"); NULL for bad values. */
ND_API const char *nd_unary_op_name(nd_unary_op op);
/** NumPy name of a binary op ("add", "less"); NULL for bad values. */
ND_API const char *nd_binary_op_name(nd_binary_op op);

/* ------------------------------------------------------------------ */
/* Elementwise                                                         */
/* ------------------------------------------------------------------ */
/** out = op(a). ND_ERR_INVALID for a bad op, ND_ERR_DTYPE when the op has
 *  no loop for a's dtype (e.g. negative on bool, bitwise_not on float). */
ND_API nd_status nd_unary(nd_array **out, nd_unary_op op, const nd_array *a);
/** out = op(a, b) with broadcasting and NEP 50 promotion. ND_ERR_SHAPE
 *  when shapes do not broadcast, ND_ERR_DEVICE when devices differ. */
ND_API nd_status nd_binary(nd_array **out, nd_binary_op op, const nd_array *a, const nd_array *b);
/** out = op(a, s) with a weak Python-like scalar (NEP 50): int8 array +
 *  int scalar stays int8 (ND_ERR_INVALID if the value does not fit), int
 *  array + float scalar gives float64, float32 + float scalar float32. */
ND_API nd_status nd_binary_scalar(nd_array **out, nd_binary_op op, const nd_array *a, nd_scalar s);
/** out = op(s, a): the scalar on the left (e.g. 1 - a, 2 / a). */
ND_API nd_status nd_scalar_binary(nd_array **out, nd_binary_op op, nd_scalar s, const nd_array *a);
/** out = cond ? x : y (cond is cast to bool; x and y promoted; all three
 *  broadcast). */
ND_API nd_status nd_where(nd_array **out, const nd_array *cond, const nd_array *x, const nd_array *y);
/** out = minimum(maximum(a, lo), hi), NumPy's clip; lo or hi may be NULL
 *  (not both). NaN propagates. */
ND_API nd_status nd_clip(nd_array **out, const nd_array *a, const nd_array *lo, const nd_array *hi);
/** clip with weak scalar bounds; a bound of kind ND_SCALAR_NONE is absent. */
ND_API nd_status nd_clip_scalar(nd_array **out, const nd_array *a, nd_scalar lo, nd_scalar hi);

/* Named wrappers: nd_negative(&out, a), nd_exp(&out, a), ...,
 * nd_add(&out, a, b), nd_less(&out, a, b), ... one per op of the table. */
#define ND_X_DECL_UNARY(E, n, k, r) ND_API nd_status nd_##n(nd_array **out, const nd_array *a);
#define ND_X_DECL_BINARY(E, n, k, r) ND_API nd_status nd_##n(nd_array **out, const nd_array *a, const nd_array *b);
ND_UNARY_OPS(ND_X_DECL_UNARY)
ND_BINARY_OPS(ND_X_DECL_BINARY)
/* SciPy's name of the op sigmoid */
#define ND_UNARY_EXPIT ND_UNARY_SIGMOID
/** SciPy's name of sigmoid: the same op (one body), out = 1 / (1 + exp(-a)). */
ND_API nd_status nd_expit(nd_array **out, const nd_array *a);

/* ------------------------------------------------------------------ */
/* Elementwise functions beyond the op table                          */
/* ------------------------------------------------------------------ */
/*
 * NumPy's two-output ufuncs, np.round, np.isclose and friends, composed in
 * the core from the op table (NumPy-exact bodies, every backend). They
 * follow the out-pointer rule for each output; results are computed into
 * temporaries first, so on failure no out is written and every *out is
 * untouched (both outs of a two-output function are checked before either
 * is written). Input errors as the ops they use: ND_ERR_DTYPE for a dtype
 * without a loop, ND_ERR_SHAPE for shapes that do not broadcast,
 * ND_ERR_DEVICE for mixed devices, ND_ERR_INVALID for NULL arguments.
 */
/** np.divmod: q = floor_divide(a, b), r = remainder(a, b) (Python's sign
 *  rules; integer division by zero gives 0 and 0). Dtypes as floor_divide:
 *  all but bool/bool pairs compute in the promoted dtype (bool as int8).
 *  q and r must be different out-pointers (ND_ERR_INVALID). */
ND_API nd_status nd_divmod(nd_array **q, nd_array **r, const nd_array *a, const nd_array *b);
/** np.modf: frac and intpart of a, both signed like a (modf(-3.0) =
 *  (-0.0, -3.0), modf(+-inf) = (+-0.0, +-inf), NaN gives NaN twice), in
 *  a's float dtype (bool/int8/uint8 -> float16, 16-bit -> float32, wider ->
 *  float64, as NumPy's float ufuncs). */
ND_API nd_status nd_modf(nd_array **frac, nd_array **intpart, const nd_array *a);
/** np.frexp: a = mantissa * 2^exponent with 0.5 <= |mantissa| < 1
 *  (denormals included), mantissa in a's float dtype (as nd_modf), exponent
 *  int32; 0, +-inf and NaN give (a, 0). Composed from about 25 elementwise
 *  passes: correct everywhere, not fast. */
ND_API nd_status nd_frexp(nd_array **mantissa, nd_array **exponent, const nd_array *a);
/** np.round(a, decimals) (= np.around): floats rint(a * 10^d) / 10^d
 *  (decimals >= 0) or rint(a / 10^d) * 10^d (decimals < 0) computed in a's
 *  dtype with NumPy's factor, so halves go to even as NumPy's do (round(2.5)
 *  = 2, round(1250, -2) = 1200) and float16 with a factor beyond its range
 *  gives NaN as NumPy does; integers: a copy for decimals >= 0, else the
 *  same computed in float64 and cast back; bool: rint (float16) for
 *  decimals == 0, ND_ERR_DTYPE otherwise (NumPy's casting error). Result
 *  dtype a's (bool: float16). */
ND_API nd_status nd_round(nd_array **out, const nd_array *a, int decimals);
/** np.isclose: |a - y| <= atol + rtol * |y| where y is b cast to
 *  result_type(b, 1.0), and y finite, or a == y (so infinities are close
 *  only to themselves), or with equal_nan both NaN. Bool result of the
 *  broadcast shape; every dtype. NumPy's defaults are rtol 1e-5, atol 1e-8. */
ND_API nd_status nd_isclose(nd_array **out, const nd_array *a, const nd_array *b, double rtol, double atol, bool equal_nan);
/** np.allclose: *result = all(isclose(a, b, ...)) (true for empty
 *  arrays); ND_ERR_SHAPE when the shapes do not broadcast. */
ND_API nd_status nd_allclose(bool *result, const nd_array *a, const nd_array *b, double rtol, double atol, bool equal_nan);
/** np.array_equal: *result = same shape and all(a == b) (with equal_nan,
 *  NaNs in the same places count as equal). Different shapes give false
 *  and ND_OK, as NumPy; ND_ERR_DEVICE for mixed devices. */
ND_API nd_status nd_array_equal(bool *result, const nd_array *a, const nd_array *b, bool equal_nan);
/** scipy.special.gammaln: the same as nd_lgamma. */
ND_API nd_status nd_gammaln(nd_array **out, const nd_array *a);
/** scipy.special.psi: the same as nd_digamma. */
ND_API nd_status nd_psi(nd_array **out, const nd_array *a);
/** np.radians: the same as nd_deg2rad. */
ND_API nd_status nd_radians(nd_array **out, const nd_array *a);
/** np.degrees: the same as nd_rad2deg. */
ND_API nd_status nd_degrees(nd_array **out, const nd_array *a);
/** np.conj: the same as nd_conjugate (the identity on real dtypes, the
 *  imaginary part negated on complex ones). */
ND_API nd_status nd_conj(nd_array **out, const nd_array *a);
/** np.real: a view of a's real parts for complex a (float32 of complex64,
 *  float64 of complex128; writable, as NumPy's .real), a view of a itself
 *  for real dtypes (a given *out receives a copy). */
ND_API nd_status nd_real(nd_array **out, const nd_array *a);
/** np.imag: a view of a's imaginary parts for complex a; for real dtypes
 *  zeros of a's shape and dtype (a new array; NumPy returns a read-only
 *  zero array). A given *out receives a copy. */
ND_API nd_status nd_imag(nd_array **out, const nd_array *a);
/** np.angle(a, deg): the argument arctan2(imag, real) of each element, in
 *  radians (degrees with deg), in the real dtype of a complex a; a real a
 *  gives arctan2(0, a) in arctan2's dtype, as NumPy 2: float dtypes keep
 *  theirs, int8/uint8 -> float16, int16/uint16 -> float32, wider integers
 *  -> float64, bool -> float64. */
ND_API nd_status nd_angle(nd_array **out, const nd_array *a, bool deg);

/* ------------------------------------------------------------------ */
/* Loss scaling (mixed precision)                                      */
/* ------------------------------------------------------------------ */
/** The fused unscale-and-check pass of loss scaling (PyTorch's
 *  _amp_foreach_non_finite_check_and_unscale_): every element of each of
 *  the n arrays (any float dtype, any layout, any devices) is multiplied
 *  in place by inv_scale (in float32 for half/float32 arrays, float64 for
 *  float64; inv_scale == 1 leaves values untouched), and *found_inf is
 *  set to whether any element was inf or NaN before the multiply. One
 *  pass over each array; on a GPU one synchronisation for the flag.
 *  n == 0 sets *found_inf false. ND_ERR_DTYPE for a non-float array,
 *  ND_ERR_INVALID for a read-only or broadcast one (nothing is written
 *  then: every array is checked first). */
ND_API nd_status nd_amp_unscale_check(nd_array *const *arrays, int n, double inv_scale, bool *found_inf);

/** Dynamic loss scaling as torch.amp.GradScaler: create, scale the loss,
 *  unscale the gradients, skip the step when they overflowed, update. */
typedef struct nd_grad_scaler nd_grad_scaler;
/** The scaler's settings (nd_grad_scaler_config_init gives PyTorch's
 *  defaults: init_scale 65536, growth_factor 2, backoff_factor 0.5,
 *  growth_interval 2000, enabled). */
typedef struct nd_grad_scaler_config {
    double init_scale;      /**< > 0, finite */
    double growth_factor;   /**< > 1 */
    double backoff_factor;  /**< in (0, 1) */
    int64_t growth_interval; /**< >= 1 finite steps in a row before the scale grows */
    bool enabled;           /**< false: scale 1, never changes, unscale only checks */
} nd_grad_scaler_config;
/** Fill *c with PyTorch's defaults. */
ND_API void nd_grad_scaler_config_init(nd_grad_scaler_config *c);
/** A new scaler (c == NULL: the defaults). ND_ERR_INVALID for settings
 *  out of range ("growth_factor should be > 1 (got 0.5)"). */
ND_API nd_status nd_grad_scaler_create(nd_grad_scaler **out, const nd_grad_scaler_config *c);
/** Free a scaler (NULL is a no-op). */
ND_API void nd_grad_scaler_destroy(nd_grad_scaler *s);
/** *out = loss * scale (an nd_multiply by the current scale, in loss's
 *  dtype: scale the loss, or the gradient of the loss, before backward). */
ND_API nd_status nd_grad_scaler_scale(nd_array **out, const nd_grad_scaler *s, const nd_array *loss);
/** Unscale the gradients in place (nd_amp_unscale_check with 1/scale)
 *  and remember whether any was inf/NaN (also in *found_inf, which may be
 *  NULL). Call at most once per step (ND_ERR_INVALID "unscale() has
 *  already been called on this scaler since the last update()"). */
ND_API nd_status nd_grad_scaler_unscale(nd_grad_scaler *s, nd_array *const *grads, int n, bool *found_inf);
/** Whether the optimiser step should run: false when this step's
 *  gradients had an inf/NaN (the step is skipped, as GradScaler.step). */
ND_API bool nd_grad_scaler_should_step(const nd_grad_scaler *s);
/** End the step (GradScaler.update): found_inf (or'ed with what unscale
 *  found) backs the scale off and resets the growth count; otherwise the
 *  count grows and, at growth_interval, the scale grows (when the grown
 *  scale is finite) and the count resets. Counts skipped steps. */
ND_API nd_status nd_grad_scaler_update(nd_grad_scaler *s, bool found_inf);
/** The current scale (1 when disabled or s is NULL). */
ND_API double nd_grad_scaler_get_scale(const nd_grad_scaler *s);
/** Set the scale (> 0, finite), as GradScaler.update(new_scale). */
ND_API nd_status nd_grad_scaler_set_scale(nd_grad_scaler *s, double scale);
/** The scaler's state: growth count (finite steps since the last change)
 *  and steps skipped so far; either pointer may be NULL. */
ND_API void nd_grad_scaler_get_state(const nd_grad_scaler *s, int64_t *growth_tracker, int64_t *skipped_steps);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_ELEMENTWISE_H */
