/* CPU softmax family and cross-entropy (contracts in
 * src/shared/softmax_slots.h and src/core/backend.h).
 *
 * Every row (the n elements of one (outer, inner) position) takes three
 * passes over memory that stays in cache:
 *   1. m = max of the row;
 *   2. s = sum exp(x - m), the exps computed by the vectorised exp of
 *      src/cpu/vmath.h (libmvec on AVX-512/AVX2, our own on the baseline
 *      path) on chunks of CHUNK elements widened to the accumulation type
 *      (float for float16/bfloat16/float32, double for float64);
 *   3. the output: softmax exp(x - m) * (1 / s), log_softmax (x - m) -
 *      log(s), logsumexp m + log(s) (one value per row), cross-entropy
 *      m + log(s) - x[label].
 * float32 softmax keeps pass 2's exps in out (one exp per element; pass 3
 * only scales); the other dtypes recompute them in pass 3 (out is narrower
 * than the accumulator, and a value rounded to half before the scale
 * would be rounded twice).
 *
 * Rows along a leading axis (inner > 1) are processed as blocks of up to
 * CHUNK neighbouring columns: the same passes on vectors of running maxima
 * and sums, every load unit-stride. Threads split rows (or column blocks)
 * with nd__parallel_for.
 *
 * Non-finite maxima: softmax uses m as it is (NumPy's exp(x - max) / sum:
 * a row with +inf, or all -inf, gives NaN); log_softmax, logsumexp and
 * cross-entropy replace a non-finite m by 0, as SciPy's log_softmax and
 * logsumexp do (all -inf: logsumexp -inf, log_softmax NaN; a +inf:
 * logsumexp +inf). A NaN anywhere in a row makes the row's results NaN. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/mixed.h"
#include "cpu/vmath.h"
#include "shared/half.h"

#define CHUNK 1024

/* ---- widening loads and narrowing stores of CHUNK-sized pieces ---- */
static void load_f(nd_dtype t, const char *p, int64_t stride, float *d, int64_t len)
{
    if (t == ND_FLOAT32) {
        if (stride == 4) memcpy(d, p, (size_t)len * 4);
        else for (int64_t i = 0; i < len; i++) memcpy(&d[i], p + i * stride, 4);
    } else if (t == ND_BFLOAT16) {
        for (int64_t i = 0; i < len; i++) { uint16_t h; memcpy(&h, p + i * stride, 2); d[i] = nd_bf16_to_float(h); }
    } else {
        for (int64_t i = 0; i < len; i++) { uint16_t h; memcpy(&h, p + i * stride, 2); d[i] = nd_half_to_float(h); }
    }
}

static void store_f(nd_dtype t, char *p, int64_t stride, const float *d, int64_t len)
{
    if (t == ND_FLOAT32) {
        if (stride == 4) memcpy(p, d, (size_t)len * 4);
        else for (int64_t i = 0; i < len; i++) memcpy(p + i * stride, &d[i], 4);
    } else if (t == ND_BFLOAT16) {
        for (int64_t i = 0; i < len; i++) { uint16_t h = nd_float_to_bf16(d[i]); memcpy(p + i * stride, &h, 2); }
    } else {
        for (int64_t i = 0; i < len; i++) { uint16_t h = nd_float_to_half(d[i]); memcpy(p + i * stride, &h, 2); }
    }
}

static void load_d(nd_dtype t, const char *p, int64_t stride, double *d, int64_t len)
{
    (void)t;
    if (stride == 8) memcpy(d, p, (size_t)len * 8);
    else for (int64_t i = 0; i < len; i++) memcpy(&d[i], p + i * stride, 8);
}

static void store_d(nd_dtype t, char *p, int64_t stride, const double *d, int64_t len)
{
    (void)t;
    if (stride == 8) memcpy(p, d, (size_t)len * 8);
    else for (int64_t i = 0; i < len; i++) memcpy(p + i * stride, &d[i], 8);
}

/* ---- exp of a chunk in place ---- */
static void exp_f(float *v, int64_t len)
{
    const nd_vmath_kernel *k = nd__vmath(nd__cpu_isa(), ND_UNARY_EXP, ND_FLOAT32);
    if (k) k->fn(v, v, len);
    else for (int64_t i = 0; i < len; i++) v[i] = expf(v[i]);
}

static void exp_d(double *v, int64_t len)
{
    const nd_vmath_kernel *k = nd__vmath(nd__cpu_isa(), ND_UNARY_EXP, ND_FLOAT64);
    if (k) k->fn(v, v, len);
    else for (int64_t i = 0; i < len; i++) v[i] = exp(v[i]);
}

typedef struct {
    int mode; /* ND_SM_*, or SM_CE for cross-entropy */
    nd_dtype t;
    const char *x;
    char *out;
    const int64_t *labels;
    int64_t outer, n, inner, ignore;
    atomic_int bad;
    atomic_llong bad_label;
} sm_ctx;

#define SM_CE 3

/* Cross-entropy's label: 1 for a class in [0, n), 0 for ignore_index (loss
 * 0), -1 for one out of range (loss NaN; noted in the context for the
 * error message). */
static int ce_label(sm_ctx *c, int64_t lab, int64_t n)
{
    if (lab == c->ignore) return 0;
    if (lab >= 0 && lab < n) return 1;
    atomic_store(&c->bad, 1);
    atomic_store(&c->bad_label, (long long)lab);
    return -1;
}

/* One template per accumulation type A (float / double): LOAD/STORE/EXP
 * above, MAXF the max that lets a NaN win (a NaN row stays NaN through the
 * sum anyway, so a plain comparison suffices), LOG the log. */
#define SM_TEMPLATE(SFX, A, LOAD, STORE, EXPV, LOG, ISF)                                                    \
    /* rows along the last axis (inner == 1): rows [b, e) */                                                 \
    static void rows_##SFX(void *vc, int64_t b, int64_t e)                                                   \
    {                                                                                                        \
        sm_ctx *c = vc;                                                                                      \
        const size_t is = nd__itemsize(c->t);                                                                \
        const int64_t n = c->n;                                                                              \
        A buf[CHUNK];                                                                                        \
        for (int64_t r = b; r < e; r++) {                                                                    \
            const char *x = c->x + (size_t)(r * n) * is;                                                     \
            A m = -INFINITY;                                                                                 \
            bool nan = false;                                                                                \
            for (int64_t k0 = 0; k0 < n; k0 += CHUNK) {                                                      \
                const int64_t len = n - k0 < CHUNK ? n - k0 : CHUNK;                                         \
                LOAD(c->t, x + (size_t)k0 * is, (int64_t)is, buf, len);                                      \
                A mm = m;                                                                                    \
                _Pragma("omp simd reduction(max:mm)") for (int64_t i = 0; i < len; i++) mm =                 \
                    buf[i] > mm ? buf[i] : mm;                                                               \
                m = mm;                                                                                      \
                for (int64_t i = 0; i < len && !nan; i++) nan = buf[i] != buf[i];                            \
            }                                                                                                \
            if (nan) m = (A)NAN;                                                                             \
            if (c->mode != ND_SM_SOFTMAX && !ISF(m) && !nan) m = 0;                                          \
            const bool keep = c->mode == ND_SM_SOFTMAX && c->t == ND_FLOAT32 && sizeof(A) == 4;              \
            char *o = c->mode == ND_SM_SOFTMAX || c->mode == ND_SM_LOG_SOFTMAX ? c->out + (size_t)(r * n) * is \
                                                                               : NULL;                       \
            A s = 0;                                                                                         \
            for (int64_t k0 = 0; k0 < n; k0 += CHUNK) {                                                      \
                const int64_t len = n - k0 < CHUNK ? n - k0 : CHUNK;                                         \
                LOAD(c->t, x + (size_t)k0 * is, (int64_t)is, buf, len);                                      \
                _Pragma("omp simd") for (int64_t i = 0; i < len; i++) buf[i] -= m;                           \
                EXPV(buf, len);                                                                              \
                A ss = 0;                                                                                    \
                _Pragma("omp simd reduction(+:ss)") for (int64_t i = 0; i < len; i++) ss += buf[i];          \
                s += ss;                                                                                     \
                if (keep) STORE(c->t, o + (size_t)k0 * is, (int64_t)is, buf, len);                           \
            }                                                                                                \
            if (c->mode == ND_SM_LOGSUMEXP || c->mode == SM_CE) {                                                    \
                A v = m + LOG(s);                                                                                    \
                if (c->mode == SM_CE) {                                                                              \
                    const int64_t lab = c->labels[r];                                                                \
                    const int k = ce_label(c, lab, n);                                                               \
                    A xl = 0;                                                                                        \
                    if (k > 0) LOAD(c->t, x + (size_t)lab * is, (int64_t)is, &xl, 1);                                \
                    v = k > 0 ? v - xl : k == 0 ? (A)0 : (A)NAN;                                                     \
                }                                                                                                    \
                STORE(c->t, c->out + (size_t)r * is, (int64_t)is, &v, 1);                                            \
                continue;                                                                                            \
            }                                                                                                        \
            const A inv = (A)1 / s, ls = LOG(s);                                                             \
            for (int64_t k0 = 0; k0 < n; k0 += CHUNK) {                                                      \
                const int64_t len = n - k0 < CHUNK ? n - k0 : CHUNK;                                         \
                if (keep) {                                                                                  \
                    float *of = (float *)(void *)(o + (size_t)k0 * is);                                      \
                    _Pragma("omp simd") for (int64_t i = 0; i < len; i++) of[i] *= (float)inv;               \
                    continue;                                                                                \
                }                                                                                            \
                LOAD(c->t, x + (size_t)k0 * is, (int64_t)is, buf, len);                                      \
                if (c->mode == ND_SM_SOFTMAX) {                                                              \
                    _Pragma("omp simd") for (int64_t i = 0; i < len; i++) buf[i] -= m;                       \
                    EXPV(buf, len);                                                                          \
                    _Pragma("omp simd") for (int64_t i = 0; i < len; i++) buf[i] *= inv;                     \
                } else {                                                                                     \
                    _Pragma("omp simd") for (int64_t i = 0; i < len; i++) buf[i] = (buf[i] - m) - ls;        \
                }                                                                                            \
                STORE(c->t, o + (size_t)k0 * is, (int64_t)is, buf, len);                                     \
            }                                                                                                \
        }                                                                                                    \
    }                                                                                                        \
    /* a leading axis (inner > 1): work item w = (o, column block) */                                        \
    static void cols_##SFX(void *vc, int64_t b, int64_t e)                                                   \
    {                                                                                                        \
        sm_ctx *c = vc;                                                                                      \
        const size_t is = nd__itemsize(c->t);                                                                \
        const int64_t n = c->n, inner = c->inner, nblk = (inner + CHUNK - 1) / CHUNK;                        \
        A buf[CHUNK], m[CHUNK], s[CHUNK];                                                                    \
        bool nan[CHUNK];                                                                                     \
        for (int64_t w = b; w < e; w++) {                                                                    \
            const int64_t o = w / nblk, j0 = (w % nblk) * CHUNK;                                             \
            const int64_t len = inner - j0 < CHUNK ? inner - j0 : CHUNK;                                     \
            const char *x = c->x + (size_t)(o * n * inner + j0) * is;                                        \
            for (int64_t j = 0; j < len; j++) m[j] = -INFINITY, s[j] = 0, nan[j] = false;                    \
            for (int64_t k = 0; k < n; k++) {                                                                \
                LOAD(c->t, x + (size_t)(k * inner) * is, (int64_t)is, buf, len);                             \
                _Pragma("omp simd") for (int64_t j = 0; j < len; j++) m[j] = buf[j] > m[j] ? buf[j] : m[j];  \
                for (int64_t j = 0; j < len; j++) nan[j] |= buf[j] != buf[j];                                \
            }                                                                                                \
            for (int64_t j = 0; j < len; j++) {                                                              \
                if (nan[j]) m[j] = (A)NAN;                                                                   \
                else if (c->mode != ND_SM_SOFTMAX && !ISF(m[j])) m[j] = 0;                                   \
            }                                                                                                \
            for (int64_t k = 0; k < n; k++) {                                                                \
                LOAD(c->t, x + (size_t)(k * inner) * is, (int64_t)is, buf, len);                             \
                _Pragma("omp simd") for (int64_t j = 0; j < len; j++) buf[j] -= m[j];                        \
                EXPV(buf, len);                                                                              \
                _Pragma("omp simd") for (int64_t j = 0; j < len; j++) s[j] += buf[j];                        \
            }                                                                                                \
            if (c->mode == ND_SM_LOGSUMEXP || c->mode == SM_CE) {                                            \
                for (int64_t j = 0; j < len; j++) {                                                          \
                    A v = m[j] + LOG(s[j]);                                                                  \
                    if (c->mode == SM_CE) {                                                                          \
                        const int64_t lab = c->labels[o * inner + j0 + j];                                           \
                        const int k = ce_label(c, lab, n);                                                           \
                        A xl = 0;                                                                                    \
                        if (k > 0) LOAD(c->t, x + (size_t)(lab * inner + j) * is, (int64_t)is, &xl, 1);              \
                        v = k > 0 ? v - xl : k == 0 ? (A)0 : (A)NAN;                                                 \
                    }                                                                                                \
                    buf[j] = v;                                                                              \
                }                                                                                            \
                STORE(c->t, c->out + (size_t)(o * inner + j0) * is, (int64_t)is, buf, len);                  \
                continue;                                                                                    \
            }                                                                                                \
            for (int64_t j = 0; j < len; j++) s[j] = c->mode == ND_SM_SOFTMAX ? (A)1 / s[j] : LOG(s[j]);     \
            char *op = c->out + (size_t)(o * n * inner + j0) * is;                                           \
            for (int64_t k = 0; k < n; k++) {                                                                \
                LOAD(c->t, x + (size_t)(k * inner) * is, (int64_t)is, buf, len);                             \
                if (c->mode == ND_SM_SOFTMAX) {                                                              \
                    _Pragma("omp simd") for (int64_t j = 0; j < len; j++) buf[j] -= m[j];                    \
                    EXPV(buf, len);                                                                          \
                    _Pragma("omp simd") for (int64_t j = 0; j < len; j++) buf[j] *= s[j];                    \
                } else {                                                                                     \
                    _Pragma("omp simd") for (int64_t j = 0; j < len; j++) buf[j] = (buf[j] - m[j]) - s[j];   \
                }                                                                                            \
                STORE(c->t, op + (size_t)(k * inner) * is, (int64_t)is, buf, len);                           \
            }                                                                                                \
        }                                                                                                    \
    }

#define ISF_F(v) isfinite(v)
SM_TEMPLATE(f, float, load_f, store_f, exp_f, logf, ISF_F)
SM_TEMPLATE(d, double, load_d, store_d, exp_d, log, ISF_F)

static void run(sm_ctx *c)
{
    const bool dbl = c->t == ND_FLOAT64;
    if (c->inner == 1) {
        nd__parallel_for(c->outer, c->n * 8 + 1, dbl ? rows_d : rows_f, c);
    } else {
        const int64_t nblk = (c->inner + CHUNK - 1) / CHUNK;
        const int64_t w = c->outer * nblk, cols = c->inner < CHUNK ? c->inner : CHUNK;
        nd__parallel_for(w, c->n * cols * 8 + 1, dbl ? cols_d : cols_f, c);
    }
}

static void ctx_init(sm_ctx *c, int mode, nd_dtype t, const void *x, void *out, int64_t outer, int64_t n,
                     int64_t inner)
{
    memset(c, 0, sizeof *c);
    c->mode = mode, c->t = t, c->x = x, c->out = out, c->outer = outer, c->n = n, c->inner = inner;
    atomic_init(&c->bad, 0);
    atomic_init(&c->bad_label, 0);
}

nd_status nd__cpu_softmax(int mode, nd_array *out, const nd_array *x, int64_t outer, int64_t n, int64_t inner)
{
    if (!nd__is_float(x->dtype) || out->dtype != x->dtype || mode < ND_SM_SOFTMAX || mode > ND_SM_LOGSUMEXP)
        return nd__err(ND_ERR_INTERNAL, "nd_softmax", "bad softmax call (mode %d, %s -> %s)", mode,
                       nd_dtype_name(x->dtype), nd_dtype_name(out->dtype));
    sm_ctx c;
    ctx_init(&c, mode, x->dtype, nd__ptr(x), nd__ptr(out), outer, n, inner);
    run(&c);
    return ND_OK;
}

nd_status nd__cpu_cross_entropy(nd_array *loss, const nd_array *logits, const nd_array *labels, int64_t outer,
                                int64_t C, int64_t inner, int64_t ignore_index, bool *bad, int64_t *bad_label)
{
    *bad = false;
    if (!nd__is_float(logits->dtype) || loss->dtype != logits->dtype || labels->dtype != ND_INT64)
        return nd__err(ND_ERR_INTERNAL, "nd_cross_entropy", "bad cross_entropy call");
    sm_ctx c;
    ctx_init(&c, SM_CE, logits->dtype, nd__ptr(logits), nd__ptr(loss), outer, C, inner);
    c.labels = (const int64_t *)(const void *)nd__ptr(labels);
    c.ignore = ignore_index;
    run(&c);
    *bad = atomic_load(&c.bad) != 0;
    *bad_label = (int64_t)atomic_load(&c.bad_label);
    return ND_OK;
}
