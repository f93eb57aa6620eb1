/* CPU loops of max, min, argmax and argmin (the rk_ops of those classes,
 * src/cpu/reduce.h), one set per instruction-set path (src/cpu/isa.h):
 *
 *  - leaves (contiguous runs, the inner path): float32/float64 have
 *    AVX-512 and AVX2 kernels (4 independent vectors of lane extremes per
 *    step, NaN noted by an unordered compare); baseline and the integer
 *    accumulators use 16 scalar lanes that the compiler vectorises;
 *    argmax/argmin take the extreme of each block of ARG_BLOCK elements
 *    and scan a block only when it beats the best so far;
 *  - tile loops of the rows path (outer-axis reductions): one C body,
 *    compiled once per path (ND_ISA_TARGET_*), so vectorised for each;
 *    rows read in place go four a pass (rk_row4_fn: a quarter of the
 *    accumulator and index traffic; measured 1.3x on max, more on argmax,
 *    whose int64 indices were most of the traffic);
 *  - the combiners of partial results.
 *
 * Every path gives the same bits, for any thread count: max/min return
 * the very element that argmax/argmin pick in the order the kernel visits
 * the elements (memory order of the simplified geometry; C order for the
 * arg ops, src/shared/reduce_geom.h): the first NaN when there is one, else the
 * first element equal to the extreme. That is NumPy's rule where NumPy has
 * one (NaN propagates, first occurrence) and fixes what IEEE comparisons
 * leave open: which NaN's payload, and the sign of a zero extreme (-0.0 ==
 * +0.0). NumPy's own answer to the latter follows its SIMD lanes (NumPy
 * 2.4 on AVX-512: max([-0., 0.]) is +0.0, max([0., -0.]) is -0.0,
 * max([-0.] * 16 + [0.] * 100) is -0.0), so no fixed rule matches it;
 * ours is the one a reader can predict. The lanes of a kernel only find
 * the extreme's value; a leaf whose lanes saw a NaN, or whose extreme is
 * a zero, finds the element by a second scan (vectorised, from the start;
 * a zero extreme costs up to one more pass over an L1/L2-resident leaf).
 * Partial results and rows merge with nd_rop_arg*_takes (src/shared/reduce_ops.h:
 * a later value replaces an earlier one only when it is strictly better
 * or the first NaN), so the rule holds across leaves, units and threads. */
#include <string.h>

#include "cpu/isa.h"
#include "cpu/reduce.h"
#include "shared/reduce_ops.h"
#if ND_ISA_X86
#include <immintrin.h>
#endif

#define NLANE 16
#define ARG_BLOCK 512 /* elements per argmax block: a multiple of every vector width */

/* x strictly better than y in direction dir (max: greater) */
#define BETTER_max(x, y) ((x) > (y))
#define BETTER_min(x, y) ((x) < (y))
#define TAKES(dir, ck, best, x) nd_rop_arg##dir##_takes_##ck(best, x)
/* the same truth table without short-circuits, for the rows loops (so
 * that they vectorise into plain lane masks) */
#define TAKES_BF(dir, ck, best, x) ((nd_rop_isnan_##ck(best) == 0) & (BETTER_##dir(x, best) | nd_rop_isnan_##ck(x)))

/* ------------------------------------------------------------------ */
/* Generic loops (every accumulator; the baseline path)                */
/* ------------------------------------------------------------------ */
/* The reference rule itself: index of the first NaN, else of the first
 * extreme, of p[0, n), n >= 1 (tails and short runs). */
#define MM_SCALAR(ck, T, dir)                                                                       \
    static inline int64_t scal_##dir##_##ck(const T *p, int64_t n)                                  \
    {                                                                                               \
        int64_t bi = 0;                                                                             \
        for (int64_t i = 1; i < n && !nd_rop_isnan_##ck(p[bi]); i++)                                \
            if (TAKES(dir, ck, p[bi], p[i])) bi = i;                                                \
        return bi;                                                                                  \
    }

/* The extreme of n >= 1 values in NLANE independent lanes (NaN sticks in
 * its lane and wins the fold); its value only, not which element. */
#define MM_BLK(ck, T, dir)                                                                          \
    static T blk_##dir##_##ck(const T *p, int64_t n)                                                \
    {                                                                                               \
        T m[NLANE];                                                                                 \
        for (int k = 0; k < NLANE; k++) m[k] = p[0];                                                \
        int64_t i = 0;                                                                              \
        for (; i + NLANE <= n; i += NLANE)                                                          \
            for (int k = 0; k < NLANE; k++) m[k] = nd_rop_##dir##_##ck(m[k], p[i + k]);             \
        for (; i < n; i++) m[0] = nd_rop_##dir##_##ck(m[0], p[i]);                                  \
        for (int k = 1; k < NLANE; k++) m[0] = nd_rop_##dir##_##ck(m[0], m[k]);                     \
        return m[0];                                                                                \
    }

/* max/min leaf. Floats: a NaN or a zero extreme is replaced by the element
 * the rule picks (any other value is its elements' bits). */
#define MM_LEAF(ck, T, FLD, dir, IS_FLOAT)                                                          \
    static rk_part leaf_##dir##_##ck(const void *pv, int64_t n, int64_t idx0, rk_val c)             \
    {                                                                                               \
        (void)idx0;                                                                                 \
        (void)c;                                                                                    \
        const T *p = pv;                                                                            \
        rk_part o = {{0}, 0};                                                                       \
        T v = blk_##dir##_##ck(p, n);                                                               \
        if (IS_FLOAT && (nd_rop_isnan_##ck(v) || v == 0)) v = p[scal_##dir##_##ck(p, n)];           \
        o.v.FLD = v;                                                                                \
        return o;                                                                                   \
    }

/* argmax/argmin leaf: the lanes' extreme of each block; a block is scanned
 * only when that extreme would replace the best so far (the first
 * occurrence; the first NaN wins and ends the search). */
#define MM_ARG_LEAF(ck, T, FLD, dir)                                                                \
    static rk_part leaf_arg##dir##_##ck(const void *pv, int64_t n, int64_t idx0, rk_val c)          \
    {                                                                                               \
        (void)c;                                                                                    \
        const T *p = pv;                                                                            \
        rk_part o = {{0}, idx0};                                                                    \
        int64_t bi = 0;                                                                             \
        for (int64_t b = 0; b < n && !nd_rop_isnan_##ck(p[bi]); b += ARG_BLOCK) {                   \
            int64_t e = b + ARG_BLOCK < n ? b + ARG_BLOCK : n;                                      \
            if (TAKES(dir, ck, p[bi], blk_##dir##_##ck(p + b, e - b))) bi = b + scal_##dir##_##ck(p + b, e - b); \
        }                                                                                           \
        o.v.FLD = p[bi];                                                                            \
        o.idx = idx0 + bi;                                                                          \
        return o;                                                                                   \
    }

/* l = l (+) r, l covering earlier elements: r replaces l when the rule
 * takes it (max and argmax alike: the value is the chosen element's). */
#define MM_COMB(ck, FLD, dir)                                                                       \
    static void comb_##dir##_##ck(rk_part *l, const rk_part *r)                                     \
    {                                                                                               \
        if (TAKES(dir, ck, l->v.FLD, r->v.FLD)) *l = *r;                                            \
    }

/* Tile loops of the rows path: fold row r (or a tile of later rows, with
 * its indices i2) into the w accumulators; branch-free so that they
 * vectorise. One body, compiled per path (S: name suffix, ATTR: target). */
#define MM_ROWS(ck, T, dir, S, ATTR)                                                                \
    ND_RK_ROW(dir, ck, T, TAKES_BF(dir, ck, a[j], q[j]) ? q[j] : a[j], S, ATTR)                     \
    ND_RK_ROWC(dir, ck, S, ATTR)                                                                    \
    ATTR static void rowa_arg##dir##_##ck##S(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, \
                                             const void *c)                                         \
    {                                                                                               \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        int64_t *restrict x = idx;                                                                  \
        const T *restrict q = p;                                                                    \
        FOR16(w, j, {                                                                               \
            int t_ = TAKES_BF(dir, ck, a[j], q[j]);                                                 \
            a[j] = t_ ? q[j] : a[j];                                                                \
            x[j] = t_ ? r : x[j];                                                                   \
        });                                                                                         \
    }                                                                                               \
    ATTR static void rowc_arg##dir##_##ck##S(void *acc, int64_t *idx, const void *a2, const int64_t *i2, int64_t w) \
    {                                                                                               \
        T *restrict a = acc;                                                                        \
        int64_t *restrict x = idx;                                                                  \
        const T *restrict q = a2;                                                                   \
        FOR16(w, j, {                                                                               \
            int t_ = TAKES_BF(dir, ck, a[j], q[j]);                                                 \
            a[j] = t_ ? q[j] : a[j];                                                                \
            x[j] = t_ ? i2[j] : x[j];                                                               \
        });                                                                                         \
    }

/* Four rows in one pass (rk_row4_fn). Per column the rule picks the first
 * NaN, else the first extreme, of (acc, q0, q1, q2, q3): a selection that
 * does not depend on the grouping, so it is taken as a tree, (acc, ((q0,
 * q1), (q2, q3))), which GCC 12 vectorises (the chain of four folds it
 * does not); each pair keeps the left one on ties. */
#define MM_PICK(dir, ck, T, vl, kl, nl, vr, kr, nr, vo, ko, no)                                     \
    const int t_##vo = (nl == 0) & (BETTER_##dir(vr, vl) | nr);                                     \
    const T vo = t_##vo ? vr : vl;                                                                  \
    const int ko = t_##vo ? kr : kl;                                                                \
    const int no = nl | nr;
#define MM_PICK4(dir, ck, T)                                                                        \
    const T v0 = q0[j], v1 = q1[j], v2 = q2[j], v3 = q3[j], m = a[j];                               \
    const int n0 = nd_rop_isnan_##ck(v0), n1 = nd_rop_isnan_##ck(v1), n2 = nd_rop_isnan_##ck(v2);   \
    const int n3 = nd_rop_isnan_##ck(v3), nm = nd_rop_isnan_##ck(m);                                \
    MM_PICK(dir, ck, T, v0, 0, n0, v1, 1, n1, v01, k01, n01)                                        \
    MM_PICK(dir, ck, T, v2, 2, n2, v3, 3, n3, v23, k23, n23)                                        \
    MM_PICK(dir, ck, T, v01, k01, n01, v23, k23, n23, vq, kq, nq)                                   \
    const int tq = (nm == 0) & (BETTER_##dir(vq, m) | nq);                                          \
    (void)kq
#define MM_ROWS4(ck, T, dir, S, ATTR)                                                               \
    ATTR static void rowa4_##dir##_##ck##S(void *acc, int64_t *idx, const void *const *p, int64_t w, int64_t r) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q0 = p[0], *restrict q1 = p[1], *restrict q2 = p[2], *restrict q3 = p[3];  \
        FOR16(w, j, {                                                                               \
            MM_PICK4(dir, ck, T);                                                                   \
            a[j] = tq ? vq : m;                                                                     \
        });                                                                                         \
    }                                                                                               \
    ATTR static void rowa4_arg##dir##_##ck##S(void *acc, int64_t *idx, const void *const *p, int64_t w, int64_t r) \
    {                                                                                               \
        T *restrict a = acc;                                                                        \
        int64_t *restrict ix = idx;                                                                 \
        const T *restrict q0 = p[0], *restrict q1 = p[1], *restrict q2 = p[2], *restrict q3 = p[3];  \
        FOR16(w, j, {                                                                               \
            MM_PICK4(dir, ck, T);                                                                   \
            const int64_t old = ix[j];                                                              \
            a[j] = tq ? vq : m;                                                                     \
            ix[j] = tq ? r + kq : old;                                                              \
        });                                                                                         \
    }

#define MM_ROWS_ISA(ck, T, S, ATTR)                                                                 \
    MM_ROWS(ck, T, max, S, ATTR) MM_ROWS(ck, T, min, S, ATTR) MM_ROWS4(ck, T, max, S, ATTR) MM_ROWS4(ck, T, min, S, ATTR)

#define MM_GENERIC(ck, T, FLD, IS_FLOAT)                                                            \
    MM_SCALAR(ck, T, max)                                                                           \
    MM_SCALAR(ck, T, min)                                                                           \
    MM_BLK(ck, T, max)                                                                              \
    MM_BLK(ck, T, min)                                                                              \
    MM_LEAF(ck, T, FLD, max, IS_FLOAT)                                                              \
    MM_LEAF(ck, T, FLD, min, IS_FLOAT)                                                              \
    MM_ARG_LEAF(ck, T, FLD, max)                                                                    \
    MM_ARG_LEAF(ck, T, FLD, min)                                                                    \
    MM_COMB(ck, FLD, max)                                                                           \
    MM_COMB(ck, FLD, min)                                                                           \
    MM_ROWS_ISA(ck, T, , )

MM_GENERIC(f32, float, f, 1)
MM_GENERIC(f64, double, d, 1)
MM_GENERIC(i64, int64_t, i, 0)
MM_GENERIC(u64, uint64_t, u, 0)

/* ------------------------------------------------------------------ */
/* AVX-512 and AVX2 kernels of the float leaves                        */
/* ------------------------------------------------------------------ */
#if ND_ISA_X86
/* Vector primitives of prefix P (zf/zd: AVX-512 float/double, yf/yd:
 * AVX2). max(x, m) is x > m ? x : m (a NaN x, or a tie, keeps m), as
 * vmaxps/vminps compute it; comparisons give lane bit masks. */
#define MM_PRIM512(P, T, V, SFX)                                                                    \
    ND_ISA_TARGET_AVX512 static inline V P##_ld(const T *p) { return _mm512_loadu_##SFX(p); }       \
    ND_ISA_TARGET_AVX512 static inline V P##_set1(T x) { return _mm512_set1_##SFX(x); }             \
    ND_ISA_TARGET_AVX512 static inline void P##_st(T *p, V x) { _mm512_storeu_##SFX(p, x); }        \
    ND_ISA_TARGET_AVX512 static inline V P##_max(V x, V m) { return _mm512_max_##SFX(x, m); }       \
    ND_ISA_TARGET_AVX512 static inline V P##_min(V x, V m) { return _mm512_min_##SFX(x, m); }       \
    /* lanes where x or y is NaN */                                                                 \
    ND_ISA_TARGET_AVX512 static inline unsigned P##_unord(V x, V y)                                 \
    {                                                                                               \
        return _mm512_cmp_##SFX##_mask(x, y, _CMP_UNORD_Q);                                         \
    }                                                                                               \
    ND_ISA_TARGET_AVX512 static inline unsigned P##_gt(V x, V y) { return _mm512_cmp_##SFX##_mask(x, y, _CMP_GT_OQ); } \
    ND_ISA_TARGET_AVX512 static inline unsigned P##_lt(V x, V y) { return _mm512_cmp_##SFX##_mask(x, y, _CMP_LT_OQ); } \
    ND_ISA_TARGET_AVX512 static inline unsigned P##_eq(V x, V y) { return _mm512_cmp_##SFX##_mask(x, y, _CMP_EQ_OQ); }
#define MM_PRIM256(P, T, V, SFX)                                                                    \
    ND_ISA_TARGET_AVX2 static inline V P##_ld(const T *p) { return _mm256_loadu_##SFX(p); }         \
    ND_ISA_TARGET_AVX2 static inline V P##_set1(T x) { return _mm256_set1_##SFX(x); }               \
    ND_ISA_TARGET_AVX2 static inline void P##_st(T *p, V x) { _mm256_storeu_##SFX(p, x); }          \
    ND_ISA_TARGET_AVX2 static inline V P##_max(V x, V m) { return _mm256_max_##SFX(x, m); }         \
    ND_ISA_TARGET_AVX2 static inline V P##_min(V x, V m) { return _mm256_min_##SFX(x, m); }         \
    ND_ISA_TARGET_AVX2 static inline unsigned P##_unord(V x, V y)                                   \
    {                                                                                               \
        return (unsigned)_mm256_movemask_##SFX(_mm256_cmp_##SFX(x, y, _CMP_UNORD_Q));               \
    }                                                                                               \
    ND_ISA_TARGET_AVX2 static inline unsigned P##_gt(V x, V y)                                      \
    {                                                                                               \
        return (unsigned)_mm256_movemask_##SFX(_mm256_cmp_##SFX(x, y, _CMP_GT_OQ));                 \
    }                                                                                               \
    ND_ISA_TARGET_AVX2 static inline unsigned P##_lt(V x, V y)                                      \
    {                                                                                               \
        return (unsigned)_mm256_movemask_##SFX(_mm256_cmp_##SFX(x, y, _CMP_LT_OQ));                 \
    }                                                                                               \
    ND_ISA_TARGET_AVX2 static inline unsigned P##_eq(V x, V y)                                      \
    {                                                                                               \
        return (unsigned)_mm256_movemask_##SFX(_mm256_cmp_##SFX(x, y, _CMP_EQ_OQ));                 \
    }

/* The scans that find the element the rule picks, in p[0, n). */
#define MM_SCANS(P, T, V, W, ATTR)                                                                  \
    /* index of the first NaN (there is one) */                                                     \
    ATTR static int64_t P##_first_nan(const T *p, int64_t n)                                        \
    {                                                                                               \
        int64_t i = 0;                                                                              \
        for (; i + W <= n; i += W) {                                                                \
            V x = P##_ld(p + i);                                                                    \
            unsigned k = P##_unord(x, x);                                                           \
            if (k) return i + __builtin_ctz(k);                                                     \
        }                                                                                           \
        while (i < n && p[i] == p[i]) i++;                                                          \
        return i;                                                                                   \
    }                                                                                               \
    /* index of the first element equal to h (there is one) */                                      \
    ATTR static int64_t P##_first_eq(const T *p, int64_t n, T h)                                    \
    {                                                                                               \
        const V hv = P##_set1(h);                                                                   \
        int64_t i = 0;                                                                              \
        for (; i + W <= n; i += W) {                                                                \
            unsigned k = P##_eq(P##_ld(p + i), hv);                                                 \
            if (k) return i + __builtin_ctz(k);                                                     \
        }                                                                                           \
        while (i < n && !(p[i] == h)) i++;                                                          \
        return i;                                                                                   \
    }

/* The leaves of prefix P in direction dir (BETTERV: the lane mask of
 * "x strictly better than y"). */
#define MM_KERN(P, ck, T, FLD, V, W, ATTR, dir, BETTERV)                                            \
    /* the lanes' extreme of p[0, len), len a multiple of W (>= W), in 4                            \
     * independent vectors; *nan: whether some element is NaN (then the                             \
     * lanes mean nothing) */                                                                       \
    ATTR static inline V P##_blk_##dir(const T *p, int64_t len, unsigned *nan)                      \
    {                                                                                               \
        V m0 = P##_ld(p), m1 = m0, m2 = m0, m3 = m0;                                                \
        unsigned u = P##_unord(m0, m0);                                                             \
        int64_t i = W;                                                                              \
        for (; i + 4 * W <= len; i += 4 * W) {                                                      \
            V x0 = P##_ld(p + i), x1 = P##_ld(p + i + W), x2 = P##_ld(p + i + 2 * W);               \
            V x3 = P##_ld(p + i + 3 * W);                                                           \
            m0 = P##_##dir(x0, m0);                                                                 \
            m1 = P##_##dir(x1, m1);                                                                 \
            m2 = P##_##dir(x2, m2);                                                                 \
            m3 = P##_##dir(x3, m3);                                                                 \
            u |= P##_unord(x0, x1) | P##_unord(x2, x3);                                             \
        }                                                                                           \
        for (; i < len; i += W) {                                                                   \
            V x = P##_ld(p + i);                                                                    \
            m0 = P##_##dir(x, m0);                                                                  \
            u |= P##_unord(x, x);                                                                   \
        }                                                                                           \
        *nan = u;                                                                                   \
        return P##_##dir(P##_##dir(m0, m1), P##_##dir(m2, m3));                                     \
    }                                                                                               \
    /* the extreme of the lanes (none NaN) */                                                       \
    ATTR static inline T P##_hred_##dir(V m)                                                        \
    {                                                                                               \
        T t[W];                                                                                     \
        P##_st(t, m);                                                                               \
        T h = t[0];                                                                                 \
        for (int k = 1; k < W; k++)                                                                 \
            if (BETTER_##dir(t[k], h)) h = t[k];                                                    \
        return h;                                                                                   \
    }                                                                                               \
    /* max leaf: the lanes' extreme; a NaN or a zero found by a scan */                             \
    ATTR static rk_part P##_leaf_##dir(const void *pv, int64_t n, int64_t idx0, rk_val c)           \
    {                                                                                               \
        (void)idx0;                                                                                 \
        (void)c;                                                                                    \
        const T *p = pv;                                                                            \
        rk_part o = {{0}, 0};                                                                       \
        const int64_t nv = n - n % W;                                                               \
        unsigned un = 0;                                                                            \
        if (nv == 0) {                                                                              \
            o.v.FLD = p[scal_##dir##_##ck(p, n)];                                                   \
            return o;                                                                               \
        }                                                                                           \
        V m = P##_blk_##dir(p, nv, &un);                                                            \
        if (un) {                                                                                   \
            o.v.FLD = p[P##_first_nan(p, nv)];                                                      \
            return o;                                                                               \
        }                                                                                           \
        T v = P##_hred_##dir(m);                                                                    \
        int64_t i = nv;                                                                             \
        for (; i < n && !nd_rop_isnan_##ck(p[i]); i++)                                              \
            if (BETTER_##dir(p[i], v)) v = p[i];                                                    \
        if (i < n) v = p[i]; /* the first NaN */                                                    \
        else if (v == 0) v = p[P##_first_eq(p, n, v)];                                              \
        o.v.FLD = v;                                                                                \
        return o;                                                                                   \
    }                                                                                               \
    /* argmax leaf: as the generic one, vectorised */                                               \
    ATTR static rk_part P##_leaf_arg##dir(const void *pv, int64_t n, int64_t idx0, rk_val c)        \
    {                                                                                               \
        (void)c;                                                                                    \
        const T *p = pv;                                                                            \
        rk_part o = {{0}, idx0};                                                                    \
        const int64_t nv = n - n % W;                                                               \
        int64_t bi = 0;                                                                             \
        V bv = P##_set1(p[0]);                                                                      \
        for (int64_t b = 0; b < nv && !nd_rop_isnan_##ck(p[bi]); b += ARG_BLOCK) {                  \
            const int64_t len = nv - b < ARG_BLOCK ? nv - b : ARG_BLOCK;                            \
            unsigned un;                                                                            \
            V m = P##_blk_##dir(p + b, len, &un);                                                   \
            if (un) {                                                                               \
                bi = b + P##_first_nan(p + b, len);                                                 \
            } else if (P##_##BETTERV(m, bv)) {                                                      \
                bi = b + P##_first_eq(p + b, len, P##_hred_##dir(m));                               \
                bv = P##_set1(p[bi]);                                                               \
            }                                                                                       \
        }                                                                                           \
        for (int64_t i = nv; i < n; i++) /* the tail; no-op after a NaN */                          \
            if (TAKES(dir, ck, p[bi], p[i])) bi = i;                                                \
        o.v.FLD = p[bi];                                                                            \
        o.idx = idx0 + bi;                                                                          \
        return o;                                                                                   \
    }

#define MM_VEC(P, ck, T, FLD, V, W, ATTR)                                                           \
    MM_SCANS(P, T, V, W, ATTR)                                                                      \
    MM_KERN(P, ck, T, FLD, V, W, ATTR, max, gt)                                                     \
    MM_KERN(P, ck, T, FLD, V, W, ATTR, min, lt)

MM_PRIM512(zf, float, __m512, ps)
MM_PRIM512(zd, double, __m512d, pd)
MM_PRIM256(yf, float, __m256, ps)
MM_PRIM256(yd, double, __m256d, pd)
MM_VEC(zf, f32, float, f, __m512, 16, ND_ISA_TARGET_AVX512)
MM_VEC(zd, f64, double, d, __m512d, 8, ND_ISA_TARGET_AVX512)
MM_VEC(yf, f32, float, f, __m256, 8, ND_ISA_TARGET_AVX2)
MM_VEC(yd, f64, double, d, __m256d, 4, ND_ISA_TARGET_AVX2)

/* the rows loops, compiled per path */
MM_ROWS_ISA(f32, float, _z, ND_ISA_TARGET_AVX512)
MM_ROWS_ISA(f64, double, _z, ND_ISA_TARGET_AVX512)
MM_ROWS_ISA(i64, int64_t, _z, ND_ISA_TARGET_AVX512)
MM_ROWS_ISA(u64, uint64_t, _z, ND_ISA_TARGET_AVX512)
MM_ROWS_ISA(f32, float, _y, ND_ISA_TARGET_AVX2)
MM_ROWS_ISA(f64, double, _y, ND_ISA_TARGET_AVX2)
MM_ROWS_ISA(i64, int64_t, _y, ND_ISA_TARGET_AVX2)
MM_ROWS_ISA(u64, uint64_t, _y, ND_ISA_TARGET_AVX2)
#endif

/* ------------------------------------------------------------------ */
/* The ops of each path                                                */
/* ------------------------------------------------------------------ */
/* max, min, argmax, argmin of accumulator ck: leaves L*, rows suffix R */
#define MM_OPS(ck, LMAX, LMIN, LAMAX, LAMIN, R)                                                     \
    {                                                                                               \
        {LMAX, comb_max_##ck, nd__rk_rowf_copy_##ck, rowa_max_##ck##R, rowc_max_##ck##R, false, rowa4_max_##ck##R},    \
            {LMIN, comb_min_##ck, nd__rk_rowf_copy_##ck, rowa_min_##ck##R, rowc_min_##ck##R, false, rowa4_min_##ck##R}, \
            {LAMAX, comb_max_##ck, nd__rk_rowf_copy_##ck, rowa_argmax_##ck##R, rowc_argmax_##ck##R, false, rowa4_argmax_##ck##R}, \
            {LAMIN, comb_min_##ck, nd__rk_rowf_copy_##ck, rowa_argmin_##ck##R, rowc_argmin_##ck##R, false, rowa4_argmin_##ck##R}, \
    }
#define MM_GEN_OPS(ck, R) MM_OPS(ck, leaf_max_##ck, leaf_min_##ck, leaf_argmax_##ck, leaf_argmin_##ck, R)
#define MM_VEC_OPS(P, ck, R) MM_OPS(ck, P##_leaf_max, P##_leaf_min, P##_leaf_argmax, P##_leaf_argmin, R)

static const rk_ops mm_table[ND_ISA_N][ND_RACC_N][4] = {
    [ND_ISA_BASELINE] = {MM_GEN_OPS(f32, ), MM_GEN_OPS(f64, ), MM_GEN_OPS(i64, ), MM_GEN_OPS(u64, )},
#if ND_ISA_X86
    [ND_ISA_AVX2] = {MM_VEC_OPS(yf, f32, _y), MM_VEC_OPS(yd, f64, _y), MM_GEN_OPS(i64, _y), MM_GEN_OPS(u64, _y)},
    [ND_ISA_AVX512] = {MM_VEC_OPS(zf, f32, _z), MM_VEC_OPS(zd, f64, _z), MM_GEN_OPS(i64, _z), MM_GEN_OPS(u64, _z)},
#else
    [ND_ISA_AVX2] = {MM_GEN_OPS(f32, ), MM_GEN_OPS(f64, ), MM_GEN_OPS(i64, ), MM_GEN_OPS(u64, )},
    [ND_ISA_AVX512] = {MM_GEN_OPS(f32, ), MM_GEN_OPS(f64, ), MM_GEN_OPS(i64, ), MM_GEN_OPS(u64, )},
#endif
};

const rk_ops *nd__rk_minmax_ops(nd_cpu_isa isa, nd_rcls c, nd_racc a)
{
    if ((unsigned)isa >= ND_ISA_N || (unsigned)a >= ND_RACC_N || c < ND_RCLS_MAX || c > ND_RCLS_ARGMIN) return NULL;
    return &mm_table[isa][a][c - ND_RCLS_MAX];
}
