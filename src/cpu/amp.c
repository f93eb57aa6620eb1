/* CPU fused unscale-and-check (loss scaling; contract in
 * src/core/backend.h, amp_unscale): x *= inv_scale in place for each array and
 * whether any element was inf or NaN before the multiply, in one pass per
 * array.
 *
 * Each array is walked through the simplified iteration space of
 * src/core/iter.c (size-1 axes dropped, the smallest stride innermost,
 * contiguous axes merged, so a contiguous or transposed array is one flat
 * run), split between threads by nd__iter_run for big arrays. The inner
 * loop with unit stride is an `omp simd` loop (the check is a branch-free
 * |x| <= max-finite test or-reduced over the run); any other stride takes
 * the same loop body on a strided pointer. float16/bfloat16 are widened
 * to float32, multiplied by float32(inv_scale) and rounded once back
 * (PyTorch's opmath); float32 multiplies in float32, float64 in float64.
 * inv_scale == 1 (in the array's arithmetic) only reads. */
#include <float.h>
#include <math.h>
#include <stdatomic.h>

#include "cpu/cpu.h"
#include "cpu/mixed.h"
#include "shared/half.h"

typedef struct {
    float f;      /* float32(inv_scale) */
    double d;     /* inv_scale (float64 arrays) */
    bool scale;   /* whether to write (the factor is not 1) */
    atomic_int *found;
} amp_ctx;

static inline void note(const amp_ctx *c, int bad)
{
    if (bad) atomic_store_explicit(c->found, 1, memory_order_relaxed);
}

/* float32 and float64: T, the factor, the largest finite value. */
#define AMP_LOOP_FLT(NAME, T, FAC, MAXV, ABS)                                                         \
    static void NAME(char **args, const int64_t *steps, int64_t n, const void *vc)                    \
    {                                                                                                 \
        const amp_ctx *c = vc;                                                                        \
        const T k = (T)c->FAC;                                                                        \
        int bad = 0;                                                                                  \
        if (steps[0] == (int64_t)sizeof(T)) {                                                         \
            T *x = (T *)args[0];                                                                      \
            if (c->scale) {                                                                           \
                _Pragma("omp simd reduction(|:bad)") for (int64_t i = 0; i < n; i++) {                \
                    T v = x[i];                                                                       \
                    bad |= !(ABS(v) <= MAXV);                                                         \
                    x[i] = v * k;                                                                     \
                }                                                                                     \
            } else {                                                                                  \
                _Pragma("omp simd reduction(|:bad)") for (int64_t i = 0; i < n; i++) bad |=           \
                    !(ABS(x[i]) <= MAXV);                                                             \
            }                                                                                         \
        } else {                                                                                      \
            char *p = args[0];                                                                        \
            const int64_t s = steps[0];                                                               \
            for (int64_t i = 0; i < n; i++, p += s) {                                                 \
                T v = *(T *)p;                                                                        \
                bad |= !(ABS(v) <= MAXV);                                                             \
                if (c->scale) *(T *)p = v * k;                                                        \
            }                                                                                         \
        }                                                                                             \
        note(c, bad);                                                                                 \
    }
AMP_LOOP_FLT(loop_f32, float, f, FLT_MAX, fabsf)
AMP_LOOP_FLT(loop_f64, double, d, DBL_MAX, fabs)

/* float16/bfloat16: EXP the exponent mask (all ones: inf or NaN), TOF and
 * FROMF the conversions of src/shared/half.h. */
#define AMP_LOOP_HALF(NAME, EXP, TOF, FROMF)                                                          \
    static void NAME(char **args, const int64_t *steps, int64_t n, const void *vc)                    \
    {                                                                                                 \
        const amp_ctx *c = vc;                                                                        \
        const float k = c->f;                                                                         \
        int bad = 0;                                                                                  \
        if (steps[0] == 2) {                                                                          \
            uint16_t *x = (uint16_t *)args[0];                                                        \
            if (c->scale) {                                                                           \
                _Pragma("omp simd reduction(|:bad)") for (int64_t i = 0; i < n; i++) {                \
                    uint16_t h = x[i];                                                                \
                    bad |= (h & EXP) == EXP;                                                          \
                    x[i] = FROMF(TOF(h) * k);                                                         \
                }                                                                                     \
            } else {                                                                                  \
                _Pragma("omp simd reduction(|:bad)") for (int64_t i = 0; i < n; i++) bad |=           \
                    (x[i] & EXP) == EXP;                                                              \
            }                                                                                         \
        } else {                                                                                      \
            char *p = args[0];                                                                        \
            const int64_t s = steps[0];                                                               \
            for (int64_t i = 0; i < n; i++, p += s) {                                                 \
                uint16_t h = *(uint16_t *)p;                                                          \
                bad |= (h & EXP) == EXP;                                                              \
                if (c->scale) *(uint16_t *)p = FROMF(TOF(h) * k);                                     \
            }                                                                                         \
        }                                                                                             \
        note(c, bad);                                                                                 \
    }
AMP_LOOP_HALF(loop_f16, 0x7c00u, nd_half_to_float, nd_float_to_half)
AMP_LOOP_HALF(loop_bf16, 0x7f80u, nd_bf16_to_float, nd_float_to_bf16)

nd_status nd__cpu_amp_unscale(nd_array *const *xs, int n, double inv_scale, bool *found)
{
    atomic_int any = 0;
    for (int i = 0; i < n; i++) {
        const nd_array *a = xs[i];
        nd_loop_fn loop;
        int64_t cost = 1;
        switch (a->dtype) {
        case ND_FLOAT16: loop = loop_f16, cost = 4; break;
        case ND_BFLOAT16: loop = loop_bf16, cost = 2; break;
        case ND_FLOAT32: loop = loop_f32; break;
        case ND_FLOAT64: loop = loop_f64; break;
        default:
            return nd__err(ND_ERR_INTERNAL, "nd__cpu_amp_unscale", "arrays[%d]: dtype %s is not a float dtype", i,
                           nd_dtype_name(a->dtype));
        }
        amp_ctx c = {(float)inv_scale, inv_scale, false, &any};
        c.scale = a->dtype == ND_FLOAT64 ? inv_scale != 1.0 : c.f != 1.0f;
        if (a->size == 0) continue;
        nd_iter it;
        const nd_array *ops[1] = {a};
        nd__iter_init(&it, 1, ops);
        nd__iter_run(&it, loop, &c, cost);
    }
    *found = atomic_load_explicit(&any, memory_order_relaxed) != 0;
    return ND_OK;
}
