/* CPU reduction primitives, generated once per accumulator type: leaf
 * loops over contiguous accumulator values, combiners of partial results,
 * tile loops of the outer-axis path, and the conversions in and out of
 * the accumulator types. See src/cpu/reduce.h. */
#include <math.h>
#include <string.h>

#include "cpu/reduce.h"
#include "half.h"

/* Pairwise summation (PW_BODY below): eight lanes of 16-term leaves
 * (PW_BLOCK = 128 terms per leaf, as NumPy's blocks), leaves combined in a
 * balanced tree; error O(log n) ulps. max/min use 16 independent lanes. */
#define PW_BLOCK ND_RK_BLOCK
#define NACC 8
#define NLANE 16
#define ARG_BLOCK 512

/* for (IDX = 0; IDX < N; IDX++) BODY, vectorised: "omp simd" (we build
 * with -fopenmp) lifts GCC's -O2 cost model that otherwise leaves loops
 * of unknown trip count scalar. Bodies are independent per IDX. */
#define FOR16(N, IDX, ...)                                                                          \
    do {                                                                                            \
        _Pragma("omp simd") for (int64_t IDX = 0; IDX < (N); IDX++) { __VA_ARGS__; }                \
    } while (0)

/* Lane-wise pairwise sum of the terms X(i), i < n (n >= 1): lane k adds
 * terms 8i + k in leaves of 16 (PW_BLOCK terms), leaves merge as a binary
 * counter (a balanced tree), lanes fold pairwise at the end. Error
 * O(16 + log n) ulps like NumPy's, without a horizontal sum per leaf. */
#define PW_BODY(T, ADD, X)                                                                          \
    do {                                                                                            \
        if (n < NACC) {                                                                             \
            T s = X(0);                                                                             \
            for (int64_t i = 1; i < n; i++) s = ADD(T, s, X(i));                                    \
            return s;                                                                               \
        }                                                                                           \
        T st[64][NACC], r[NACC];                                                                    \
        uint64_t cnt = 0;                                                                           \
        int64_t b = 0;                                                                              \
        for (; b + PW_BLOCK <= n; b += PW_BLOCK) {                                                  \
            for (int k = 0; k < NACC; k++) r[k] = X(b + k);                                         \
            for (int64_t i = NACC; i < PW_BLOCK; i += NACC)                                         \
                for (int k = 0; k < NACC; k++) r[k] = ADD(T, r[k], X(b + i + k));                   \
            int lvl = 0;                                                                            \
            for (uint64_t bits = cnt; bits & 1; bits >>= 1, lvl++)                                  \
                for (int k = 0; k < NACC; k++) r[k] = ADD(T, st[lvl][k], r[k]);                     \
            for (int k = 0; k < NACC; k++) st[lvl][k] = r[k];                                       \
            cnt++;                                                                                  \
        }                                                                                           \
        /* the remainder, then the pending subtrees, smallest first */                              \
        int64_t tail = b;                                                                           \
        if (n - b >= NACC) {                                                                        \
            for (int k = 0; k < NACC; k++) r[k] = X(b + k);                                         \
            for (tail = b + NACC; tail + NACC <= n; tail += NACC)                                   \
                for (int k = 0; k < NACC; k++) r[k] = ADD(T, r[k], X(tail + k));                    \
        } else {                                                                                    \
            for (int k = 0; k < NACC; k++) r[k] = 0;                                                \
        }                                                                                           \
        for (int lvl = 0; lvl < 64; lvl++)                                                          \
            if ((cnt >> lvl) & 1)                                                                   \
                for (int k = 0; k < NACC; k++) r[k] = ADD(T, st[lvl][k], r[k]);                     \
        T s = ADD(T, ADD(T, ADD(T, r[0], r[1]), ADD(T, r[2], r[3])),                                \
                  ADD(T, ADD(T, r[4], r[5]), ADD(T, r[6], r[7])));                                  \
        for (; tail < n; tail++) s = ADD(T, s, X(tail));                                            \
        return s;                                                                                   \
    } while (0)

#define PW_X_SUM(i) (p[i])
#define PW_X_SQDEV(i) ((p[i] - c) * (p[i] - c))

/* Integer arithmetic wraps: compute in uint64. */
#define I_ADD(T, a, b) ((T)((uint64_t)(a) + (uint64_t)(b)))
#define I_MUL(T, a, b) ((T)((uint64_t)(a) * (uint64_t)(b)))
#define F_ADD(T, a, b) ((a) + (b))
#define F_MUL(T, a, b) ((a) * (b))
#define F_NAN(x) ((x) != (x))
#define I_NAN(x) 0
/* max/min that propagate NaN (x is the newer value) */
#define MAXSEL(ISN, x, m) (((x) > (m) || ISN(x)) ? (x) : (m))
#define MINSEL(ISN, x, m) (((x) < (m) || ISN(x)) ? (x) : (m))

/* Everything except SQDEV, for one accumulator type T stored in rk_val
 * field FLD. ADD/MUL: arithmetic, ISN: NaN test. */
#define RK_DEFINE(SUF, T, FLD, ADD, MUL, ISN)                                                       \
    /* max/min of n >= 1 values, NaN propagating; NLANE independent lanes */                        \
    static T blk_max_##SUF(const T *p, int64_t n)                                                   \
    {                                                                                               \
        T m[NLANE];                                                                                 \
        for (int k = 0; k < NLANE; k++) m[k] = p[0];                                                \
        int64_t i = 0;                                                                              \
        for (; i + NLANE <= n; i += NLANE)                                                          \
            for (int k = 0; k < NLANE; k++) m[k] = MAXSEL(ISN, p[i + k], m[k]);                     \
        for (; i < n; i++) m[0] = MAXSEL(ISN, p[i], m[0]);                                          \
        for (int k = 1; k < NLANE; k++) m[0] = MAXSEL(ISN, m[k], m[0]);                             \
        return m[0];                                                                                \
    }                                                                                               \
    static T blk_min_##SUF(const T *p, int64_t n)                                                   \
    {                                                                                               \
        T m[NLANE];                                                                                 \
        for (int k = 0; k < NLANE; k++) m[k] = p[0];                                                \
        int64_t i = 0;                                                                              \
        for (; i + NLANE <= n; i += NLANE)                                                          \
            for (int k = 0; k < NLANE; k++) m[k] = MINSEL(ISN, p[i + k], m[k]);                     \
        for (; i < n; i++) m[0] = MINSEL(ISN, p[i], m[0]);                                          \
        for (int k = 1; k < NLANE; k++) m[0] = MINSEL(ISN, m[k], m[0]);                             \
        return m[0];                                                                                \
    }                                                                                               \
    static T pw_sum_##SUF(const T *p, int64_t n)                                                    \
    {                                                                                               \
        PW_BODY(T, ADD, PW_X_SUM);                                                                  \
    }                                                                                               \
    static rk_part leaf_sum_##SUF(const void *pv, int64_t n, int64_t idx0, rk_val c)                \
    {                                                                                               \
        (void)idx0;                                                                                 \
        (void)c;                                                                                    \
        rk_part o = {{0}, 0};                                                                       \
        o.v.FLD = ADD(T, pw_sum_##SUF((const T *)pv, n), 0); /* -0.0 -> 0.0 as NumPy */            \
        return o;                                                                                   \
    }                                                                                               \
    static rk_part leaf_prod_##SUF(const void *pv, int64_t n, int64_t idx0, rk_val c)               \
    {                                                                                               \
        (void)idx0;                                                                                 \
        (void)c;                                                                                    \
        const T *p = pv;                                                                            \
        T r[8] = {1, 1, 1, 1, 1, 1, 1, 1};                                                          \
        int64_t i = 0;                                                                              \
        for (; i + 8 <= n; i += 8)                                                                  \
            for (int k = 0; k < 8; k++) r[k] = MUL(T, r[k], p[i + k]);                              \
        for (; i < n; i++) r[0] = MUL(T, r[0], p[i]);                                               \
        rk_part o = {{0}, 0};                                                                       \
        o.v.FLD = MUL(T, MUL(T, MUL(T, r[0], r[1]), MUL(T, r[2], r[3])),                            \
                      MUL(T, MUL(T, r[4], r[5]), MUL(T, r[6], r[7])));                              \
        return o;                                                                                   \
    }                                                                                               \
    static rk_part leaf_max_##SUF(const void *pv, int64_t n, int64_t idx0, rk_val c)                \
    {                                                                                               \
        (void)idx0;                                                                                 \
        (void)c;                                                                                    \
        const T *p = pv;                                                                            \
        rk_part o = {{0}, 0};                                                                       \
        o.v.FLD = blk_max_##SUF(p, n);                                                              \
        return o;                                                                                   \
    }                                                                                               \
    static rk_part leaf_min_##SUF(const void *pv, int64_t n, int64_t idx0, rk_val c)                \
    {                                                                                               \
        (void)idx0;                                                                                 \
        (void)c;                                                                                    \
        const T *p = pv;                                                                            \
        rk_part o = {{0}, 0};                                                                       \
        o.v.FLD = blk_min_##SUF(p, n);                                                              \
        return o;                                                                                   \
    }                                                                                               \
    /* first occurrence; the first NaN wins */                                                      \
    static rk_part leaf_argmax_##SUF(const void *pv, int64_t n, int64_t idx0, rk_val c)             \
    {                                                                                               \
        (void)c;                                                                                    \
        const T *p = pv;                                                                            \
        rk_part o = {{0}, idx0};                                                                    \
        T best = p[0];                                                                              \
        int64_t bi = 0;                                                                             \
        /* vector extreme of each block; scan a block only when it wins */                          \
        for (int64_t b = 0; b < n && !ISN(best); b += ARG_BLOCK) {                                  \
            int64_t e = b + ARG_BLOCK < n ? b + ARG_BLOCK : n;                                      \
            T m = blk_max_##SUF(p + b, e - b);                                                      \
            if (!(m > best) && !ISN(m)) continue;                                                   \
            for (int64_t i = b; i < e; i++)                                                         \
                if (p[i] == m || (ISN(m) && ISN(p[i]))) {                                           \
                    best = p[i];                                                                    \
                    bi = i;                                                                         \
                    break;                                                                          \
                }                                                                                   \
        }                                                                                           \
        o.v.FLD = best;                                                                             \
        o.idx = idx0 + bi;                                                                          \
        return o;                                                                                   \
    }                                                                                               \
    static rk_part leaf_argmin_##SUF(const void *pv, int64_t n, int64_t idx0, rk_val c)             \
    {                                                                                               \
        (void)c;                                                                                    \
        const T *p = pv;                                                                            \
        rk_part o = {{0}, idx0};                                                                    \
        T best = p[0];                                                                              \
        int64_t bi = 0;                                                                             \
        /* vector extreme of each block; scan a block only when it wins */                          \
        for (int64_t b = 0; b < n && !ISN(best); b += ARG_BLOCK) {                                  \
            int64_t e = b + ARG_BLOCK < n ? b + ARG_BLOCK : n;                                      \
            T m = blk_min_##SUF(p + b, e - b);                                                      \
            if (!(m < best) && !ISN(m)) continue;                                                   \
            for (int64_t i = b; i < e; i++)                                                         \
                if (p[i] == m || (ISN(m) && ISN(p[i]))) {                                           \
                    best = p[i];                                                                    \
                    bi = i;                                                                         \
                    break;                                                                          \
                }                                                                                   \
        }                                                                                           \
        o.v.FLD = best;                                                                             \
        o.idx = idx0 + bi;                                                                          \
        return o;                                                                                   \
    }                                                                                               \
    static rk_part leaf_any_##SUF(const void *pv, int64_t n, int64_t idx0, rk_val c)                \
    {                                                                                               \
        (void)idx0;                                                                                 \
        (void)c;                                                                                    \
        const T *p = pv;                                                                            \
        rk_part o = {{0}, 0};                                                                       \
        o.v.FLD = 0;                                                                                \
        for (int64_t i = 0; i < n; i++)                                                             \
            if (p[i] != 0) {                                                                        \
                o.v.FLD = 1;                                                                        \
                break;                                                                              \
            }                                                                                       \
        return o;                                                                                   \
    }                                                                                               \
    static rk_part leaf_all_##SUF(const void *pv, int64_t n, int64_t idx0, rk_val c)                \
    {                                                                                               \
        (void)idx0;                                                                                 \
        (void)c;                                                                                    \
        const T *p = pv;                                                                            \
        rk_part o = {{0}, 0};                                                                       \
        o.v.FLD = 1;                                                                                \
        for (int64_t i = 0; i < n; i++)                                                             \
            if (p[i] == 0) {                                                                        \
                o.v.FLD = 0;                                                                        \
                break;                                                                              \
            }                                                                                       \
        return o;                                                                                   \
    }                                                                                               \
    static void comb_sum_##SUF(rk_part *l, const rk_part *r) { l->v.FLD = ADD(T, l->v.FLD, r->v.FLD); } \
    static void comb_prod_##SUF(rk_part *l, const rk_part *r) { l->v.FLD = MUL(T, l->v.FLD, r->v.FLD); } \
    static void comb_max_##SUF(rk_part *l, const rk_part *r)                                        \
    {                                                                                               \
        if (!ISN(l->v.FLD)) l->v.FLD = MAXSEL(ISN, r->v.FLD, l->v.FLD);                             \
    }                                                                                               \
    static void comb_min_##SUF(rk_part *l, const rk_part *r)                                        \
    {                                                                                               \
        if (!ISN(l->v.FLD)) l->v.FLD = MINSEL(ISN, r->v.FLD, l->v.FLD);                             \
    }                                                                                               \
    static void comb_argmax_##SUF(rk_part *l, const rk_part *r)                                     \
    {                                                                                               \
        if (!ISN(l->v.FLD) && (r->v.FLD > l->v.FLD || ISN(r->v.FLD))) *l = *r;                      \
    }                                                                                               \
    static void comb_argmin_##SUF(rk_part *l, const rk_part *r)                                     \
    {                                                                                               \
        if (!ISN(l->v.FLD) && (r->v.FLD < l->v.FLD || ISN(r->v.FLD))) *l = *r;                      \
    }                                                                                               \
    static void comb_any_##SUF(rk_part *l, const rk_part *r) { l->v.FLD = (l->v.FLD != 0 || r->v.FLD != 0); } \
    static void comb_all_##SUF(rk_part *l, const rk_part *r) { l->v.FLD = (l->v.FLD != 0 && r->v.FLD != 0); } \
    /* tiles */                                                                                     \
    static void rowf_copy_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)c;                                                                                    \
        memcpy(acc, p, (size_t)w * sizeof(T));                                                      \
        if (idx)                                                                                    \
            for (int64_t j = 0; j < w; j++) idx[j] = r;                                             \
    }                                                                                               \
    static void rowf_nz_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p;                                                                    \
        FOR16(w, j, a[j] = q[j] != 0);                                                              \
    }                                                                                               \
    static void rowa_sum_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p;                                                                    \
        FOR16(w, j, a[j] = ADD(T, a[j], q[j]));                                                     \
    }                                                                                               \
    static void rowa_prod_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p;                                                                    \
        FOR16(w, j, a[j] = MUL(T, a[j], q[j]));                                                     \
    }                                                                                               \
    static void rowa_max_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p;                                                                    \
        FOR16(w, j, a[j] = MAXSEL(ISN, q[j], a[j]));                                                \
    }                                                                                               \
    static void rowa_min_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p;                                                                    \
        FOR16(w, j, a[j] = MINSEL(ISN, q[j], a[j]));                                                \
    }                                                                                               \
    static void rowa_argmax_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p;                                                                    \
        for (int64_t j = 0; j < w; j++)                                                             \
            if (!ISN(a[j]) && (q[j] > a[j] || ISN(q[j]))) {                                         \
                a[j] = q[j];                                                                        \
                idx[j] = r;                                                                         \
            }                                                                                       \
    }                                                                                               \
    static void rowa_argmin_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p;                                                                    \
        for (int64_t j = 0; j < w; j++)                                                             \
            if (!ISN(a[j]) && (q[j] < a[j] || ISN(q[j]))) {                                         \
                a[j] = q[j];                                                                        \
                idx[j] = r;                                                                         \
            }                                                                                       \
    }                                                                                               \
    static void rowa_any_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p;                                                                    \
        FOR16(w, j, a[j] = (a[j] != 0) | (q[j] != 0));                                              \
    }                                                                                               \
    static void rowa_all_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p;                                                                    \
        FOR16(w, j, a[j] = (a[j] != 0) & (q[j] != 0));                                              \
    }                                                                                               \
    /* combining tiles: acc2 holds later rows; reuse the row loops */                               \
    static void rowc_sum_##SUF(void *acc, int64_t *idx, const void *a2, const int64_t *i2, int64_t w) \
    {                                                                                               \
        (void)i2;                                                                                   \
        rowa_sum_##SUF(acc, idx, a2, w, 0, NULL);                                                   \
    }                                                                                               \
    static void rowc_prod_##SUF(void *acc, int64_t *idx, const void *a2, const int64_t *i2, int64_t w) \
    {                                                                                               \
        (void)i2;                                                                                   \
        rowa_prod_##SUF(acc, idx, a2, w, 0, NULL);                                                  \
    }                                                                                               \
    static void rowc_max_##SUF(void *acc, int64_t *idx, const void *a2, const int64_t *i2, int64_t w) \
    {                                                                                               \
        (void)i2;                                                                                   \
        rowa_max_##SUF(acc, idx, a2, w, 0, NULL);                                                   \
    }                                                                                               \
    static void rowc_min_##SUF(void *acc, int64_t *idx, const void *a2, const int64_t *i2, int64_t w) \
    {                                                                                               \
        (void)i2;                                                                                   \
        rowa_min_##SUF(acc, idx, a2, w, 0, NULL);                                                   \
    }                                                                                               \
    static void rowc_argmax_##SUF(void *acc, int64_t *idx, const void *a2, const int64_t *i2, int64_t w) \
    {                                                                                               \
        T *restrict a = acc;                                                                        \
        const T *restrict q = a2;                                                                   \
        for (int64_t j = 0; j < w; j++)                                                             \
            if (!ISN(a[j]) && (q[j] > a[j] || ISN(q[j]))) {                                         \
                a[j] = q[j];                                                                        \
                idx[j] = i2[j];                                                                     \
            }                                                                                       \
    }                                                                                               \
    static void rowc_argmin_##SUF(void *acc, int64_t *idx, const void *a2, const int64_t *i2, int64_t w) \
    {                                                                                               \
        T *restrict a = acc;                                                                        \
        const T *restrict q = a2;                                                                   \
        for (int64_t j = 0; j < w; j++)                                                             \
            if (!ISN(a[j]) && (q[j] < a[j] || ISN(q[j]))) {                                         \
                a[j] = q[j];                                                                        \
                idx[j] = i2[j];                                                                     \
            }                                                                                       \
    }                                                                                               \
    static void rowc_any_##SUF(void *acc, int64_t *idx, const void *a2, const int64_t *i2, int64_t w) \
    {                                                                                               \
        (void)i2;                                                                                   \
        rowa_any_##SUF(acc, idx, a2, w, 0, NULL);                                                   \
    }                                                                                               \
    static void rowc_all_##SUF(void *acc, int64_t *idx, const void *a2, const int64_t *i2, int64_t w) \
    {                                                                                               \
        (void)i2;                                                                                   \
        rowa_all_##SUF(acc, idx, a2, w, 0, NULL);                                                   \
    }

/* Sum of squared deviations from a centre (floats only). */
#define RK_DEFINE_SQDEV(SUF, T, FLD)                                                                \
    static T pw_sqdev_##SUF(const T *p, int64_t n, T c)                                             \
    {                                                                                               \
        PW_BODY(T, F_ADD, PW_X_SQDEV);                                                              \
    }                                                                                               \
    static rk_part leaf_sqdev_##SUF(const void *pv, int64_t n, int64_t idx0, rk_val c)              \
    {                                                                                               \
        (void)idx0;                                                                                 \
        rk_part o = {{0}, 0};                                                                       \
        o.v.FLD = pw_sqdev_##SUF((const T *)pv, n, c.FLD);                                          \
        return o;                                                                                   \
    }                                                                                               \
    static void rowf_sqdev_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p, *restrict m = c;                                                   \
        FOR16(w, j, a[j] = (q[j] - m[j]) * (q[j] - m[j]));                                          \
    }                                                                                               \
    static void rowa_sqdev_##SUF(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p, *restrict m = c;                                                   \
        FOR16(w, j, a[j] += (q[j] - m[j]) * (q[j] - m[j]));                                         \
    }

RK_DEFINE(f32, float, f, F_ADD, F_MUL, F_NAN)
RK_DEFINE(f64, double, d, F_ADD, F_MUL, F_NAN)
RK_DEFINE(i64, int64_t, i, I_ADD, I_MUL, I_NAN)
RK_DEFINE(u64, uint64_t, u, I_ADD, I_MUL, I_NAN)
RK_DEFINE_SQDEV(f32, float, f)
RK_DEFINE_SQDEV(f64, double, d)

#define OPS(SUF, cls, first, PW) {leaf_##cls##_##SUF, comb_##cls##_##SUF, first##_##SUF, rowa_##cls##_##SUF, rowc_##cls##_##SUF, PW}
#define OPS_ACC(SUF, PW)                                                                            \
    {                                                                                               \
        OPS(SUF, sum, rowf_copy, PW), OPS(SUF, prod, rowf_copy, false), OPS(SUF, max, rowf_copy, false), \
            OPS(SUF, min, rowf_copy, false), OPS(SUF, argmax, rowf_copy, false),                    \
            OPS(SUF, argmin, rowf_copy, false), OPS(SUF, any, rowf_nz, false), OPS(SUF, all, rowf_nz, false)

static const rk_ops rk_table[RK_NACC][RC_NCLASS] = {
    [RK_F32] = OPS_ACC(f32, true), {leaf_sqdev_f32, comb_sum_f32, rowf_sqdev_f32, rowa_sqdev_f32, rowc_sum_f32, true}},
    [RK_F64] = OPS_ACC(f64, true), {leaf_sqdev_f64, comb_sum_f64, rowf_sqdev_f64, rowa_sqdev_f64, rowc_sum_f64, true}},
    [RK_I64] = OPS_ACC(i64, false), {NULL, NULL, NULL, NULL, NULL, false}},
    [RK_U64] = OPS_ACC(u64, false), {NULL, NULL, NULL, NULL, NULL, false}},
};

const rk_ops *nd__rk_ops(rk_class c, rk_acc a)
{
    if ((unsigned)a >= RK_NACC || (unsigned)c >= RC_NCLASS || !rk_table[a][c].leaf) return NULL;
    return &rk_table[a][c];
}

rk_val nd__rk_identity(rk_class c, rk_acc a)
{
    rk_val v;
    memset(&v, 0, sizeof v);
    bool one = c == RC_PROD || c == RC_ALL;
    switch (a) {
    case RK_F32: v.f = one ? 1.0f : 0.0f; break;
    case RK_F64: v.d = one ? 1.0 : 0.0; break;
    case RK_I64: v.i = one; break;
    default: v.u = one; break;
    }
    return v;
}

/* ------------------------------------------------------------------ */
/* Conversions                                                         */
/* ------------------------------------------------------------------ */
/* d[i] = CONV(element i) for source C type CT; contiguous loop when the
 * stride is the element size (vectorisable), else memcpy loads. */
#define LOADL(CT, CONV)                                                                             \
    do {                                                                                            \
        if (stride == (int64_t)sizeof(CT)) {                                                        \
            const CT *restrict q_ = (const CT *)(const void *)src;                                  \
            FOR16(n, i, d[i] = CONV(q_[i]));                                                        \
        } else {                                                                                    \
            for (int64_t i = 0; i < n; i++) {                                                       \
                CT v_;                                                                              \
                memcpy(&v_, src + i * stride, sizeof v_);                                           \
                d[i] = CONV(v_);                                                                    \
            }                                                                                       \
        }                                                                                           \
    } while (0)

#define LOAD_INTS(T)                                                                                \
    case ND_BOOL: LOADL(uint8_t, (T)); break;                                                       \
    case ND_INT8: LOADL(int8_t, (T)); break;                                                        \
    case ND_INT16: LOADL(int16_t, (T)); break;                                                      \
    case ND_INT32: LOADL(int32_t, (T)); break;                                                      \
    case ND_INT64: LOADL(int64_t, (T)); break;                                                      \
    case ND_UINT8: LOADL(uint8_t, (T)); break;                                                      \
    case ND_UINT16: LOADL(uint16_t, (T)); break;                                                    \
    case ND_UINT32: LOADL(uint32_t, (T)); break;                                                    \
    case ND_UINT64: LOADL(uint64_t, (T)); break;

void nd__rk_load(rk_acc a, void *dst, const char *src, int64_t stride, int64_t n, nd_dtype dt)
{
    switch (a) {
    case RK_F32: {
        float *restrict d = dst;
        switch (dt) {
        case ND_FLOAT16: LOADL(uint16_t, nd_half_to_float); break;
        case ND_BFLOAT16: LOADL(uint16_t, nd_bf16_to_float); break;
        case ND_FLOAT32: LOADL(float, (float)); break;
        default: break; /* not a float32 accumulation input */
        }
        break;
    }
    case RK_F64: {
        double *restrict d = dst;
        switch (dt) {
            LOAD_INTS(double)
        case ND_FLOAT16: LOADL(uint16_t, (double)nd_half_to_float); break;
        case ND_BFLOAT16: LOADL(uint16_t, (double)nd_bf16_to_float); break;
        case ND_FLOAT32: LOADL(float, (double)); break;
        case ND_FLOAT64: LOADL(double, (double)); break;
        default: break;
        }
        break;
    }
    case RK_I64: {
        int64_t *restrict d = dst;
        switch (dt) {
            LOAD_INTS(int64_t)
        default: break;
        }
        break;
    }
    default: {
        uint64_t *restrict d = dst;
        switch (dt) {
            LOAD_INTS(uint64_t)
        default: break;
        }
        break;
    }
    }
}

#define STOREL(CT, EXPR)                                                                            \
    do {                                                                                            \
        CT *restrict o_ = dst;                                                                      \
        FOR16(n, i, o_[i] = EXPR(s[i]));                                                            \
    } while (0)
#define NZ(x) ((x) != 0)
#define TO_I(CT) (CT)(uint64_t) /* wraps; callers only narrow exact values */

void nd__rk_store(void *dst, nd_dtype odt, rk_acc a, const void *src, int64_t n)
{
    if (a == RK_F32) {
        const float *s = src;
        switch (odt) {
        case ND_BOOL: STOREL(uint8_t, NZ); break;
        case ND_FLOAT16: STOREL(uint16_t, nd_float_to_half); break;
        case ND_BFLOAT16: STOREL(uint16_t, nd_float_to_bf16); break;
        case ND_FLOAT32: STOREL(float, (float)); break;
        case ND_FLOAT64: STOREL(double, (double)); break;
        default: break; /* not produced from float32 accumulation */
        }
    } else if (a == RK_F64) {
        const double *s = src;
        switch (odt) {
        case ND_BOOL: STOREL(uint8_t, NZ); break;
        case ND_FLOAT32: STOREL(float, (float)); break;
        case ND_FLOAT64: STOREL(double, (double)); break;
        default: break;
        }
    } else {
        /* int64 and uint64 accumulators share their bits (aliasing a
         * signed/unsigned pair is allowed) */
        const uint64_t *s = src;
        switch (odt) {
        case ND_BOOL: STOREL(uint8_t, NZ); break;
        case ND_INT8: STOREL(int8_t, TO_I(int8_t)); break;
        case ND_INT16: STOREL(int16_t, TO_I(int16_t)); break;
        case ND_INT32: STOREL(int32_t, TO_I(int32_t)); break;
        case ND_INT64: STOREL(int64_t, TO_I(int64_t)); break;
        case ND_UINT8: STOREL(uint8_t, (uint8_t)); break;
        case ND_UINT16: STOREL(uint16_t, (uint16_t)); break;
        case ND_UINT32: STOREL(uint32_t, (uint32_t)); break;
        case ND_UINT64: STOREL(uint64_t, (uint64_t)); break;
        default: break;
        }
    }
}

void nd__rk_scale(rk_acc a, void *x, int64_t n, double den, bool root)
{
    if (a == RK_F32) {
        float *v = x, d = (float)den;
        for (int64_t i = 0; i < n; i++) v[i] = v[i] / d;
        if (root)
            for (int64_t i = 0; i < n; i++) v[i] = sqrtf(v[i]);
    } else if (a == RK_F64) {
        double *v = x;
        for (int64_t i = 0; i < n; i++) v[i] = v[i] / den;
        if (root)
            for (int64_t i = 0; i < n; i++) v[i] = sqrt(v[i]);
    }
}
