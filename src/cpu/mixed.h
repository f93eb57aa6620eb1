/* The CPU backend's mixed-precision entry points (contracts in src/shared/softmax_slots.h and
 * src/core/backend.h): src/cpu/softmax.c (softmax, cross_entropy) and
 * src/cpu/amp.c (amp_unscale). */
#ifndef ND_CPU_MIXED_H
#define ND_CPU_MIXED_H
#include "shared/softmax_slots.h"
ND_INTERNAL nd_status nd__cpu_softmax(int mode, nd_array *out, const nd_array *x, int64_t outer, int64_t n,
                                      int64_t inner);
ND_INTERNAL nd_status nd__cpu_cross_entropy(nd_array *loss, const nd_array *logits, const nd_array *labels,
                                            int64_t outer, int64_t C, int64_t inner, int64_t ignore_index, bool *bad,
                                            int64_t *bad_label);
ND_INTERNAL nd_status nd__cpu_amp_unscale(nd_array *const *xs, int n, double inv_scale, bool *found);
#endif
