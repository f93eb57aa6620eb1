/* Mixed precision: the softmax family, cross-entropy and loss scaling -
 * the internal declarations shared by the core (src/reduce/softmax.c,
 * src/elementwise/amp.c) and both backends (src/cpu/softmax.c,
 * src/cpu/amp.c, src/cuda/kernels_softmax.cu, src/cuda/kernels_amp.cu).
 *
 * Backend slots (src/core/backend.h, mixed precision):
 *   softmax(mode, out, x, outer, n, inner): along the middle axis of the
 *     C-contiguous (outer, n, inner) float array x, n >= 1, never called
 *     with zero elements:
 *       ND_SM_SOFTMAX      out[o, k, i] = exp(x - m) / s
 *       ND_SM_LOG_SOFTMAX  out[o, k, i] = x - m - log(s)
 *       ND_SM_LOGSUMEXP    out[o, i]    = m + log(s)
 *     with m = max_k x[o, k, i] and s = sum_k exp(x[o, k, i] - m). When
 *     m is -inf (all -inf) or +inf, or a NaN is present, the results are
 *     those of the formulas evaluated in IEEE arithmetic with m replaced
 *     by 0 when it is not finite (NumPy/SciPy: softmax NaN for an all -inf
 *     row; logsumexp -inf for it, +inf with a +inf, NaN with a NaN).
 *     Accumulation (m, s, and the exps) in float32 for float16, bfloat16
 *     and float32, in float64 for float64; one rounding into out's dtype
 *     (x's dtype). out is exactly x or disjoint from it (softmax,
 *     log_softmax), disjoint for logsumexp.
 *   cross_entropy(loss, logits, labels, outer, C, inner, ignore, &bad,
 *     &bad_label): see src/core/backend.h.
 *   amp_unscale(xs, n, inv_scale, &found): see src/core/backend.h.
 */
#ifndef ND_SOFTMAX_H
#define ND_SOFTMAX_H
#include "shared/dtype.h"

enum { ND_SM_SOFTMAX = 0, ND_SM_LOG_SOFTMAX = 1, ND_SM_LOGSUMEXP = 2 };

#endif
