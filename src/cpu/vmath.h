/* Vectorised float32 math for the CPU loops (src/cpu/vmath.c).
 *
 * Each function computes o[i] = f(a[i]) for i in [0, n); o may be exactly
 * a (in place), but must not otherwise overlap it. They are the CPU
 * specialisation of the scalar bodies in src/ops_math.h (which the CUDA
 * kernels and the float16/bfloat16 loops keep using): branch-free
 * polynomials that gcc vectorises, compiled for AVX2 and for the baseline
 * ISA and chosen once at run time. No FMA contraction is used, so every
 * ISA gives bit-identical results.
 *
 * Accuracy against a correctly rounded result (tests/test_vmath.c): at
 * most 2 ulp for exp and sigmoid, 3 ulp for tanh over the whole float32
 * range, subnormal inputs and results included; special values as libm:
 *   exp:     exp(+-0) = 1, exp(+inf) = +inf, exp(-inf) = +0, overflow to
 *            +inf above log(FLT_MAX), gradual underflow to subnormals,
 *            +0 below -103.97;
 *   tanh:    odd, tanh(+-0) = +-0, tanh(+-inf) = +-1, tiny x gives x;
 *   sigmoid: 1/(1+exp(-x)) without overflow, sigmoid(+inf) = 1,
 *            sigmoid(-inf) = +0, sigmoid(+-0) = 0.5;
 *   NaN in, NaN out (the input's payload, quietened).
 */
#ifndef ND_CPU_VMATH_H
#define ND_CPU_VMATH_H
#include <stdint.h>

#include "internal.h"

ND_INTERNAL void nd__vexp_f32(float *o, const float *a, int64_t n);
ND_INTERNAL void nd__vtanh_f32(float *o, const float *a, int64_t n);
ND_INTERNAL void nd__vsigmoid_f32(float *o, const float *a, int64_t n);
#endif
