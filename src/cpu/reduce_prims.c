/* CPU reduction primitives, generated once per accumulator type: leaf
 * loops over contiguous accumulator values, combiners of partial results,
 * tile loops of the outer-axis path, and the conversions in and out of
 * the accumulator types. See src/cpu/reduce.h. */
#include <math.h>
#include <string.h>

#include "cpu/reduce.h"
#include "shared/half.h"
#include "shared/reduce_ops.h"

/* The leaf loops of the pairwise sums are short and hot: their speed
 * depends on where they fall against 32-byte fetch blocks (measured: a
 * chance shift of this file's code made float32 sums 11% slower). Align
 * the loops of this file, so that their speed does not depend on what
 * else the file holds. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("align-loops=32")
#endif

/* Pairwise summation (PW_BODY below): eight lanes of 16-term leaves
 * (PW_BLOCK = 128 terms per leaf, as NumPy's blocks), leaves combined in a
 * balanced tree; error O(log n) ulps. (max, min, argmax, argmin:
 * src/cpu/reduce_minmax.c.) */
#define PW_BLOCK ND_RK_BLOCK
#define NACC 8

/* Lane-wise pairwise sum of the terms X(i), i < n (n >= 1): lane k adds
 * terms 8i + k in leaves of 16 (PW_BLOCK terms), leaves merge as a binary
 * counter (a balanced tree), lanes fold pairwise at the end. Error
 * O(16 + log n) ulps like NumPy's, without a horizontal sum per leaf. */
#define PW_BODY(T, ADD, X, UNROLL)                                                                  \
    do {                                                                                            \
        if (n < NACC) {                                                                             \
            T s = X(0);                                                                             \
            for (int64_t i = 1; i < n; i++) s = ADD(s, X(i));                                    \
            return s;                                                                               \
        }                                                                                           \
        T st[64][NACC], r[NACC];                                                                    \
        uint64_t cnt = 0;                                                                           \
        int64_t b = 0;                                                                              \
        for (; b + PW_BLOCK <= n; b += PW_BLOCK) {                                                  \
            for (int k = 0; k < NACC; k++) r[k] = X(b + k);                                         \
            for (int64_t i = NACC; i < PW_BLOCK; i += NACC)                                         \
                UNROLL for (int k = 0; k < NACC; k++) r[k] = ADD(r[k], X(b + i + k));            \
            int lvl = 0;                                                                            \
            for (uint64_t bits = cnt; bits & 1; bits >>= 1, lvl++)                                  \
                for (int k = 0; k < NACC; k++) r[k] = ADD(st[lvl][k], r[k]);                     \
            for (int k = 0; k < NACC; k++) st[lvl][k] = r[k];                                       \
            cnt++;                                                                                  \
        }                                                                                           \
        /* the remainder, then the pending subtrees, smallest first */                              \
        int64_t tail = b;                                                                           \
        if (n - b >= NACC) {                                                                        \
            for (int k = 0; k < NACC; k++) r[k] = X(b + k);                                         \
            for (tail = b + NACC; tail + NACC <= n; tail += NACC)                                   \
                for (int k = 0; k < NACC; k++) r[k] = ADD(r[k], X(tail + k));                    \
        } else {                                                                                    \
            for (int k = 0; k < NACC; k++) r[k] = 0;                                                \
        }                                                                                           \
        for (int lvl = 0; lvl < 64; lvl++)                                                          \
            if ((cnt >> lvl) & 1)                                                                   \
                for (int k = 0; k < NACC; k++) r[k] = ADD(st[lvl][k], r[k]);                     \
        T s = ADD(ADD(ADD(r[0], r[1]), ADD(r[2], r[3])),                                \
                  ADD(ADD(r[4], r[5]), ADD(r[6], r[7])));                                  \
        for (; tail < n; tail++) s = ADD(s, X(tail));                                            \
        return s;                                                                                   \
    } while (0)

#define PW_X_SUM(i) (p[i])
/* The leaf loop's lanes: GCC 12 keeps float32's 8 lanes (2 SSE vectors)
 * in registers, but loops over float64's 4 vectors through the stack
 * (store-forwarding chains: 25 GB/s in L2, below the memory bound), so
 * float64 unrolls them (63 GB/s in L2; same additions, same bits). The
 * float32 code is left exactly as it was (its speed is placement-tuned). */
#define PW_UNROLL_f32
#define PW_UNROLL_f64 _Pragma("GCC unroll 8")
#define PW_UNROLL_i64
#define PW_UNROLL_u64

/* The loops below are generated per accumulator type ck (C type T, rk_val
 * field FLD) by small macros, one family each; every operation on values
 * is a body of src/shared/reduce_ops.h (nd_rop_*_ck), shared with the CUDA
 * kernels. */

/* A leaf: reduce n >= 1 contiguous values p into an rk_part. */
#define RK_LEAF(name, ck, FLD, ...)                                                                 \
    static rk_part leaf_##name##_##ck(const void *pv, int64_t n, int64_t idx0, rk_val c)            \
    {                                                                                               \
        (void)idx0;                                                                                 \
        (void)c;                                                                                    \
        rk_part o = {{0}, 0};                                                                       \
        __VA_ARGS__;                                                                                \
        return o;                                                                                   \
    }

#define RK_LEAVES(ck, T, FLD)                                                                       \
    static T pw_sum_##ck(const T *p, int64_t n) { PW_BODY(T, nd_rop_add_##ck, PW_X_SUM, PW_UNROLL_##ck); }          \
    /* + 0: a sum of -0.0 is +0.0 as NumPy */                                                       \
    RK_LEAF(sum, ck, FLD, o.v.FLD = nd_rop_add_##ck(pw_sum_##ck((const T *)pv, n), 0))              \
    RK_LEAF(prod, ck, FLD, o.v.FLD = prod_##ck((const T *)pv, n))                                   \
    RK_LEAF(any, ck, FLD, o.v.FLD = nz_scan_##ck((const T *)pv, n, 1))                              \
    RK_LEAF(all, ck, FLD, o.v.FLD = !nz_scan_##ck((const T *)pv, n, 0))

/* product of n >= 1 values in 8 lanes */
#define RK_PROD(ck, T)                                                                              \
    static T prod_##ck(const T *p, int64_t n)                                                       \
    {                                                                                               \
        T r[8] = {1, 1, 1, 1, 1, 1, 1, 1};                                                          \
        int64_t i = 0;                                                                              \
        for (; i + 8 <= n; i += 8)                                                                  \
            for (int k = 0; k < 8; k++) r[k] = nd_rop_mul_##ck(r[k], p[i + k]);                     \
        for (; i < n; i++) r[0] = nd_rop_mul_##ck(r[0], p[i]);                                      \
        return nd_rop_mul_##ck(nd_rop_mul_##ck(nd_rop_mul_##ck(r[0], r[1]), nd_rop_mul_##ck(r[2], r[3])), \
                               nd_rop_mul_##ck(nd_rop_mul_##ck(r[4], r[5]), nd_rop_mul_##ck(r[6], r[7]))); \
    }                                                                                               \
    /* whether some value's truth (nd_rop_nz) equals want */                                        \
    static int nz_scan_##ck(const T *p, int64_t n, int want)                                        \
    {                                                                                               \
        for (int64_t i = 0; i < n; i++)                                                             \
            if (nd_rop_nz_##ck(p[i]) == want) return 1;                                             \
        return 0;                                                                                   \
    }

/* l = l (+) r, l covering earlier elements (ties keep l) */
#define RK_COMB(name, ck, FLD, EXPR)                                                                \
    static void comb_##name##_##ck(rk_part *l, const rk_part *r) { EXPR; }
#define RK_COMBS(ck, FLD)                                                                           \
    RK_COMB(sum, ck, FLD, l->v.FLD = nd_rop_add_##ck(l->v.FLD, r->v.FLD))                           \
    RK_COMB(prod, ck, FLD, l->v.FLD = nd_rop_mul_##ck(l->v.FLD, r->v.FLD))                          \
    RK_COMB(any, ck, FLD, l->v.FLD = nd_rop_nz_##ck(l->v.FLD) | nd_rop_nz_##ck(r->v.FLD))           \
    RK_COMB(all, ck, FLD, l->v.FLD = nd_rop_nz_##ck(l->v.FLD) & nd_rop_nz_##ck(r->v.FLD))

/* Tile loops of the rows path (src/cpu/reduce.h): fold row r into the w
 * accumulators acc, vectorised. */
#define RK_ROW(name, ck, T, EXPR) ND_RK_ROW(name, ck, T, EXPR, , )
#define RK_ROWC(name, ck) ND_RK_ROWC(name, ck, , )
#define RK_ROWS(ck, T)                                                                              \
    void nd__rk_rowf_copy_##ck(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)c;                                                                                    \
        memcpy(acc, p, (size_t)w * sizeof(T));                                                      \
        if (idx)                                                                                    \
            for (int64_t j = 0; j < w; j++) idx[j] = r;                                             \
    }                                                                                               \
    static void rowf_nz_##ck(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p;                                                                    \
        FOR16(w, j, a[j] = nd_rop_nz_##ck(q[j]));                                                   \
    }                                                                                               \
    RK_ROW(sum, ck, T, nd_rop_add_##ck(a[j], q[j]))                                                 \
    RK_ROW(prod, ck, T, nd_rop_mul_##ck(a[j], q[j]))                                                \
    RK_ROW(any, ck, T, nd_rop_nz_##ck(a[j]) | nd_rop_nz_##ck(q[j]))                                 \
    RK_ROW(all, ck, T, nd_rop_nz_##ck(a[j]) & nd_rop_nz_##ck(q[j]))                                 \
    RK_ROWC(sum, ck) RK_ROWC(prod, ck) RK_ROWC(any, ck) RK_ROWC(all, ck)

/* Sum of squared deviations from a centre (floats only). */
#define RK_SQDEV(ck, T, FLD)                                                                        \
    static T pw_sqdev_##ck(const T *p, int64_t n, T c) { PW_BODY(T, nd_rop_add_##ck, PW_X_SQDEV_##ck, PW_UNROLL_##ck); } \
    RK_LEAF(sqdev, ck, FLD, o.v.FLD = pw_sqdev_##ck((const T *)pv, n, c.FLD))                       \
    static void rowf_sqdev_##ck(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p, *restrict m = c;                                                   \
        FOR16(w, j, a[j] = nd_rop_sqdev_##ck(q[j], m[j]));                                          \
    }                                                                                               \
    static void rowa_sqdev_##ck(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c) \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p, *restrict m = c;                                                   \
        FOR16(w, j, a[j] = nd_rop_add_##ck(a[j], nd_rop_sqdev_##ck(q[j], m[j])));                   \
    }
#define PW_X_SQDEV_f32(i) nd_rop_sqdev_f32(p[i], c)
#define PW_X_SQDEV_f64(i) nd_rop_sqdev_f64(p[i], c)

/* Every loop of accumulator type ck. */
#define RK_ALL(ck, T, FLD)                                                                          \
    RK_PROD(ck, T)                                                                                  \
    RK_LEAVES(ck, T, FLD)                                                                           \
    RK_COMBS(ck, FLD)                                                                               \
    RK_ROWS(ck, T)

RK_ALL(f32, float, f)
RK_ALL(f64, double, d)
RK_ALL(i64, int64_t, i)
RK_ALL(u64, uint64_t, u)
RK_SQDEV(f32, float, f)
RK_SQDEV(f64, double, d)

/* Inner products sum x[i] y[i] of n >= 1 contiguous values (the long
 * float dots of nd_dot, hence the 2-norm; src/cpu/matmul.c), summed as the
 * sums are: pairwise, in the dtype. */
#define PW_X_DOT(i) (x[i] * y[i])
float nd__rk_dot_f32(const float *x, const float *y, int64_t n) { PW_BODY(float, nd_rop_add_f32, PW_X_DOT, PW_UNROLL_f32); }
double nd__rk_dot_f64(const double *x, const double *y, int64_t n)
{
    PW_BODY(double, nd_rop_add_f64, PW_X_DOT, PW_UNROLL_f64);
}

#define OPS(SUF, cls, first, PW) {leaf_##cls##_##SUF, comb_##cls##_##SUF, first##_##SUF, rowa_##cls##_##SUF, rowc_##cls##_##SUF, PW, NULL}
/* max/min/argmax/argmin: nd__rk_minmax_ops (src/cpu/reduce_minmax.c,
 * which uses this file's copy loop; left empty here) */
#define OPS_ACC(SUF, PW)                                                                            \
    {                                                                                               \
        [ND_RCLS_SUM] = OPS(SUF, sum, nd__rk_rowf_copy, PW), [ND_RCLS_PROD] = OPS(SUF, prod, nd__rk_rowf_copy, false), \
        [ND_RCLS_ANY] = OPS(SUF, any, rowf_nz, false), [ND_RCLS_ALL] = OPS(SUF, all, rowf_nz, false)

static const rk_ops rk_table[ND_RACC_N][ND_RCLS_N] = {
    [ND_RACC_F32] = OPS_ACC(f32, true), [ND_RCLS_SQDEV] = {leaf_sqdev_f32, comb_sum_f32, rowf_sqdev_f32, rowa_sqdev_f32, rowc_sum_f32, true, NULL}},
    [ND_RACC_F64] = OPS_ACC(f64, true), [ND_RCLS_SQDEV] = {leaf_sqdev_f64, comb_sum_f64, rowf_sqdev_f64, rowa_sqdev_f64, rowc_sum_f64, true, NULL}},
    [ND_RACC_I64] = OPS_ACC(i64, false), [ND_RCLS_SQDEV] = {NULL, NULL, NULL, NULL, NULL, false, NULL}},
    [ND_RACC_U64] = OPS_ACC(u64, false), [ND_RCLS_SQDEV] = {NULL, NULL, NULL, NULL, NULL, false, NULL}},
};

const rk_ops *nd__rk_sum_ops(nd_rcls c, nd_racc a)
{
    if ((unsigned)a >= ND_RACC_N || (unsigned)c >= ND_RCLS_N || !rk_table[a][c].leaf) return NULL;
    return &rk_table[a][c];
}

rk_val nd__rk_identity(nd_rcls c, nd_racc a)
{
    rk_val v;
    memset(&v, 0, sizeof v);
    switch (a) {
    case ND_RACC_F32: v.f = nd_rop_identity_f32(c); break;
    case ND_RACC_F64: v.d = nd_rop_identity_f64(c); break;
    case ND_RACC_I64: v.i = nd_rop_identity_i64(c); break;
    default: v.u = nd_rop_identity_u64(c); break;
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

void nd__rk_load(nd_racc a, void *dst, const char *src, int64_t stride, int64_t n, nd_dtype dt)
{
    switch (a) {
    case ND_RACC_F32: {
        float *restrict d = dst;
        switch (dt) {
        case ND_FLOAT16: LOADL(uint16_t, nd_half_to_float); break;
        case ND_BFLOAT16: LOADL(uint16_t, nd_bf16_to_float); break;
        case ND_FLOAT32: LOADL(float, (float)); break;
        default: break; /* not a float32 accumulation input */
        }
        break;
    }
    case ND_RACC_F64: {
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
    case ND_RACC_I64: {
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

void nd__rk_store(void *dst, nd_dtype odt, nd_racc a, const void *src, int64_t n)
{
    if (a == ND_RACC_F32) {
        const float *s = src;
        switch (odt) {
        case ND_BOOL: STOREL(uint8_t, NZ); break;
        case ND_FLOAT16: STOREL(uint16_t, nd_float_to_half); break;
        case ND_BFLOAT16: STOREL(uint16_t, nd_float_to_bf16); break;
        case ND_FLOAT32: STOREL(float, (float)); break;
        case ND_FLOAT64: STOREL(double, (double)); break;
        default: break; /* not produced from float32 accumulation */
        }
    } else if (a == ND_RACC_F64) {
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

void nd__rk_finish(nd_racc a, void *x, int64_t cnt, nd_reduce_op op, double n, double den)
{
    if (a == ND_RACC_F32) {
        float *v = x;
        for (int64_t i = 0; i < cnt; i++) v[i] = nd_rop_finish_f32(v[i], op, n, den);
    } else if (a == ND_RACC_F64) {
        double *v = x;
        for (int64_t i = 0; i < cnt; i++) v[i] = nd_rop_finish_f64(v[i], op, n, den);
    }
}
