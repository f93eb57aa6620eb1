/* CPU Philox kernel: fills a C-contiguous array with the stream described
 * in src/shared/philox.h (and the distributions of src/shared/philox_dist.h), block by block through nd_philox_thread_fill's per-block
 * functions (the CUDA kernel's too). Blocks are independent, so the result
 * does not depend on the number of threads. */
#include "cpu/cpu.h"
#include "cpu/isa.h"
#include "shared/philox_dist.h"

typedef struct {
    void *data;
    int cls;  /* ND_PHILOX_* */
    int dist; /* ND_RANDOM_* */
    const nd_philox_call *call;
} rand_ctx;

static void rand_body(void *vctx, int64_t begin, int64_t end)
{
    const rand_ctx *c = (const rand_ctx *)vctx;
    for (int64_t j = begin; j < end; j++) {
        if (c->dist == ND_RANDOM_INTEGERS) nd_philox_fill_block_int(c->call, c->cls, c->data, j);
        else nd_philox_fill_block(c->call, c->cls, c->dist, c->data, j);
    }
}

/* The distributions of src/shared/philox_dist.h: one element (row) at a
 * time through nd_rdist_element_pre, the CUDA kernel's body too. The first
 * blocks of the elements' sub-streams (Philox4x32-10 of counters (j, k),
 * k < nd_rdist_blocks_hint) are computed first for RD_RUN elements at once,
 * in a loop that the compiler turns into vector code (AVX-512: 8 counters
 * per instruction; integer arithmetic only, so every ISA path gives the
 * same words), and handed to the elements, which compute any further
 * block themselves. */
#define RD_RUN 64
#define RD_PHILOX_ROUND                                                                      \
    do {                                                                                     \
        uint64_t p0_ = (uint64_t)ND_PHILOX_M0 * c0, p1_ = (uint64_t)ND_PHILOX_M1 * c2;       \
        uint32_t n0_ = (uint32_t)(p1_ >> 32) ^ c1 ^ ka, n2_ = (uint32_t)(p0_ >> 32) ^ c3 ^ kb; \
        c1 = (uint32_t)p1_, c3 = (uint32_t)p0_, c0 = n0_, c2 = n2_;                          \
        ka += ND_PHILOX_W0, kb += ND_PHILOX_W1;                                              \
    } while (0)
#define RD_FIRST_BLOCKS_BODY                                                                        \
    for (int l = 0; l < RD_RUN; l++) {                                                              \
        const uint64_t j = j0 + (uint64_t)l;                                                        \
        uint32_t c0 = (uint32_t)j, c1 = (uint32_t)(j >> 32), c2 = k, c3 = 0, ka = key0, kb = key1; \
        RD_PHILOX_ROUND; RD_PHILOX_ROUND; RD_PHILOX_ROUND; RD_PHILOX_ROUND; RD_PHILOX_ROUND;        \
        RD_PHILOX_ROUND; RD_PHILOX_ROUND; RD_PHILOX_ROUND; RD_PHILOX_ROUND; RD_PHILOX_ROUND;        \
        w[0][l] = c0, w[1][l] = c1, w[2][l] = c2, w[3][l] = c3;                                     \
    }
typedef uint32_t rd_block[RD_RUN]; /* one word of RD_RUN elements */
#define RD_VEC __attribute__((optimize("O3")))
RD_VEC static void first_blocks_base(uint32_t key0, uint32_t key1, uint64_t j0, uint32_t k, rd_block *w)
{
    RD_FIRST_BLOCKS_BODY
}
#if ND_ISA_X86
RD_VEC ND_ISA_TARGET_AVX2 static void first_blocks_avx2(uint32_t key0, uint32_t key1, uint64_t j0, uint32_t k, rd_block *w)
{
    RD_FIRST_BLOCKS_BODY
}
RD_VEC ND_ISA_TARGET_AVX512 static void first_blocks_avx512(uint32_t key0, uint32_t key1, uint64_t j0, uint32_t k,
                                                            rd_block *w)
{
    RD_FIRST_BLOCKS_BODY
}
#endif

/* nd_philox_box_muller of block 0's words for RD_RUN elements, in a loop
 * the compiler turns into vector code on the AVX-512 path (nd_philox_log
 * and nd_philox_sincos are straight-line code with selects; the same bits
 * as one element at a time, which the CPU==GPU tests check: the kernel
 * computes every pair itself). */
#define RD_BM_BODY                                                                    \
    for (int l = 0; l < RD_RUN; l++) {                                                \
        double u1 = nd_philox_u53(w[0][l], w[1][l]) + 0x1p-53;                        \
        double u2 = nd_philox_u53(w[2][l], w[3][l]);                                  \
        nd_philox_box_muller(u1, u2, &z[l][0], &z[l][1]);                            \
    }
typedef double rd_pair[2];
RD_VEC static void box_muller_base(const rd_block *w, rd_pair *z) { RD_BM_BODY }
#if ND_ISA_X86
RD_VEC ND_ISA_TARGET_AVX2 static void box_muller_avx2(const rd_block *w, rd_pair *z) { RD_BM_BODY }
RD_VEC ND_ISA_TARGET_AVX512 static void box_muller_avx512(const rd_block *w, rd_pair *z) { RD_BM_BODY }
#endif

/* The first try of the commonest draws for RD_RUN elements with scalar
 * parameters, in a loop the compiler turns into vector code: the same
 * operations in the same order as the element's body
 * (src/shared/philox_dist.h) on the same words, so the same bits on every
 * path. ok[l] says whether element l's first try accepted (then v[l] is
 * its value before the finishing steps of fast_finish); an element whose
 * first try rejects runs its whole body instead.
 *   exponential  p0 E (always accepted)
 *   gamma        Marsaglia-Tsang's first normal and u_pos, accepted by the
 *                squeeze u < 1 - 0.0331 x^4 (b v; below shape 1 also
 *                aux[l] = ln u_pos of the boost)
 *   Poisson      PTRS's first (u, v), accepted by us >= 0.07, v <= v_r or
 *                by the test in logarithms (k); below mean 10, the inversion:
 *                the number of the plan's (increasing) F(x) at or below u,
 *                where the element's loop stops (x)
 *   binomial     inversion (n min(p, 1-p) <= 30): u stepped through the plan's
 *                probabilities while it exceeds them, accepted when it stops
 *                within the table before the bound (x; z2 marks the
 *                restarts); else BTPE's first (u, v) in its triangle u <= p1 (y), or
 *                in the parallelograms when |y - m| <= 20: ok[l] = 2, y, and
 *                aux[l] = v, which fast_finish compares with the plan's
 *                f(y) / f(m) */
typedef struct {
    int dist;
    double a[7];
    const double *tab; /* BTPE: the plan's f(y) / f(m) at y - m = 0; inversions: x = 0 */
} rd_fast;
/* floor(x) for every double, in operations the compiler vectorises
 * (it leaves floor itself to the library where it may not ignore the
 * inexact flag): for 0 < |x| < 2^52, x +- 2^52 rounds x to an integer
 * exactly, then one step down when that went up. */
static inline double rd_floor(double x)
{
    const double big = x >= 0.0 ? 0x1p52 : -0x1p52;
    double t = (x + big) - big;
    t = t > x ? t - 1.0 : t;
    return (fabs(x) < 0x1p52) & (x != 0.0) ? t : x;
}
#define RD_FAST_BODY                                                                                 \
    switch (f->dist) {                                                                               \
    case ND_RANDOM_EXPONENTIAL:                                                                      \
        for (int l = 0; l < RD_RUN; l++) {                                                           \
            v[l] = f->a[0] * -nd_philox_log(nd_philox_u53(w[0][l], w[1][l]) + 0x1p-53);             \
            ok[l] = 1;                                                                               \
        }                                                                                            \
        break;                                                                                       \
    case ND_RANDOM_GAMMA: {                                                                          \
        const double b = f->a[0], c = f->a[1];                                                       \
        for (int l = 0; l < RD_RUN; l++) {                                                           \
            double x = z[l][0], t = 1.0 + c * x;                                                     \
            int pos = t > 0.0;                                                                       \
            t = t * t * t;                                                                           \
            double u = nd_philox_u53(w[4][l], w[5][l]) + 0x1p-53, x2 = x * x;                        \
            ok[l] = (unsigned char)(pos & (u < 1.0 - 0.0331 * (x2 * x2)));                           \
            v[l] = b * t;                                                                            \
        }                                                                                            \
        if (f->a[2] != 0.0) /* below shape 1: ln of the boost's u_pos */                             \
            for (int l = 0; l < RD_RUN; l++) aux[l] = nd_philox_log(nd_philox_u53(w[6][l], w[7][l]) + 0x1p-53); \
        break;                                                                                       \
    }                                                                                                \
    case ND_RANDOM_POISSON + ND_RANDOM_DIST_END: { /* inversion by the plan's table of F */          \
        for (int l = 0; l < RD_RUN; l++) {                                                           \
            aux[l] = nd_philox_u53(w[0][l], w[1][l]);                                                \
            v[l] = 0.0;                                                                              \
            ok[l] = 1;                                                                               \
        }                                                                                            \
        const int ntab = (int)f->a[0];                                                               \
        for (int t = 0; t < ntab; t++) {                                                             \
            const double ft = f->tab[t];                                                             \
            for (int l = 0; l < RD_RUN; l++) v[l] += aux[l] >= ft ? 1.0 : 0.0;                       \
        }                                                                                            \
        break;                                                                                       \
    }                                                                                                \
    case ND_RANDOM_BINOMIAL + ND_RANDOM_DIST_END: { /* inversion by the plan's probabilities */      \
        const double bound = f->a[1];                                                                \
        for (int l = 0; l < RD_RUN; l++) {                                                           \
            aux[l] = nd_philox_u53(w[0][l], w[1][l]);                                                \
            v[l] = 0.0;                                                                              \
            ok[l] = 1; /* still stepping */                                                          \
            z2[l] = 0; /* past the bound: restarts */                                               \
        }                                                                                            \
        const int ntab = (int)f->a[0];                                                               \
        for (int t = 0; t < ntab; t++) {                                                             \
            const double pt = f->tab[t];                                                             \
            const int past = (double)(t + 1) > bound;                                                \
            for (int l = 0; l < RD_RUN; l++) {                                                       \
                const int go = ok[l] & (aux[l] > pt);                                                \
                z2[l] |= (unsigned char)(go & past);                                                 \
                aux[l] = go ? aux[l] - pt : aux[l];                                                  \
                v[l] += go ? 1.0 : 0.0;                                                              \
                ok[l] = (unsigned char)(go & !z2[l]);                                                \
            }                                                                                        \
        }                                                                                            \
        /* stopped within the table and before the bound */                                         \
        for (int l = 0; l < RD_RUN; l++) ok[l] = (unsigned char)(!ok[l] & !z2[l]);                   \
        break;                                                                                       \
    }                                                                                                \
    case ND_RANDOM_POISSON: {                                                                        \
        const double lam = f->a[0], b = f->a[1], a = f->a[2], vr = f->a[3], loglam = f->a[4];        \
        const double linvalpha = f->a[5];                                                            \
        for (int l = 0; l < RD_RUN; l++) {                                                           \
            double u = nd_philox_u53(w[0][l], w[1][l]) - 0.5, vv = nd_philox_u53(w[2][l], w[3][l]) + 0x1p-53; \
            double us = 0.5 - fabs(u), k = rd_floor((2.0 * a / us + b) * u + lam + 0.43);               \
            /* else the test in logarithms, where ln Gamma(k + 1) is            \
             * nd_rd_loggam's Stirling series without its shift (k + 1 >= 7) */ \
            double x0 = k + 1.0, x2 = (1.0 / x0) * (1.0 / x0), gl0 = -1.39243221690590e+00;         \
            gl0 = gl0 * x2 + 1.796443723688307e-01;                                                  \
            gl0 = gl0 * x2 + -2.955065359477124e-02;                                                 \
            gl0 = gl0 * x2 + 6.410256410256410e-03;                                                  \
            gl0 = gl0 * x2 + -1.917526917526918e-03;                                                 \
            gl0 = gl0 * x2 + 8.417508417508418e-04;                                                  \
            gl0 = gl0 * x2 + -5.952380952380952e-04;                                                 \
            gl0 = gl0 * x2 + 7.936507936507937e-04;                                                  \
            gl0 = gl0 * x2 + -2.777777777777778e-03;                                                 \
            gl0 = gl0 * x2 + 8.333333333333333e-02;                                                  \
            double gl = gl0 / x0 + 0.5 * 1.8378770664093453e+00 + (x0 - 0.5) * nd_philox_log(x0) - x0; \
            int second = (x0 >= 7.0) & (x0 < 0x1p1000) & !((us < 0.013) & (vv > us)) &                \
                         (nd_philox_log(vv) + linvalpha - nd_philox_log(a / (us * us) + b) <=           \
                          -lam + k * loglam - gl);                                                    \
            v[l] = k;                                                                                \
            ok[l] = (unsigned char)(((us >= 0.07) & (vv <= vr)) | second);                           \
        }                                                                                            \
        break;                                                                                       \
    }                                                                                                \
    default: { /* ND_RANDOM_BINOMIAL */                                                              \
        const double p4 = f->a[0], p1 = f->a[1], xm = f->a[2], xl = f->a[3], c = f->a[4], m = f->a[5];  \
        const double p2 = f->a[6];                                                                   \
        for (int l = 0; l < RD_RUN; l++) {                                                           \
            double u = nd_philox_u53(w[0][l], w[1][l]) * p4, vv = nd_philox_u53(w[2][l], w[3][l]);   \
            /* else the parallelograms (p1 < u <= p2), accepted against the   \
             * plan's f(y) / f(m) for |y - m| <= 20 */                        \
            double x = xl + (u - p1) / c, v2 = vv * c + 1.0 - fabs(m - x + 0.5) / p1;                \
            double y = rd_floor(x), k = fabs(y - m);                                                 \
            int near = (u > p1) & (u <= p2) & (k <= 20.0) & (v2 <= 1.0);                             \
            double y1 = rd_floor(xm - p1 * vv + u);                                                  \
            ok[l] = (unsigned char)((u <= p1) | (near << 1));                                        \
            v[l] = u <= p1 ? y1 : y;                                                                 \
            aux[l] = v2;                                                                             \
        }                                                                                            \
    }                                                                                                \
    }
RD_VEC static void fast_base(const rd_fast *f, const rd_block *restrict w, const rd_pair *restrict z, double *restrict v, double *restrict aux,
                                 unsigned char *restrict ok, unsigned char *restrict z2)
{
    RD_FAST_BODY
}
#if ND_ISA_X86
RD_VEC ND_ISA_TARGET_AVX2 static void fast_avx2(const rd_fast *f, const rd_block *restrict w, const rd_pair *restrict z,
                                                      double *restrict v, double *restrict aux,
                                 unsigned char *restrict ok, unsigned char *restrict z2)
{
    RD_FAST_BODY
}
RD_VEC ND_ISA_TARGET_AVX512 static void fast_avx512(const rd_fast *f, const rd_block *restrict w, const rd_pair *restrict z,
                                                          double *restrict v, double *restrict aux,
                                 unsigned char *restrict ok, unsigned char *restrict z2)
{
    RD_FAST_BODY
}
#endif

/* Whether call c of dist has a first try above (scalar, non-NaN
 * parameters and the algorithm planned), and its constants. */
static int fast_setup(const nd_philox_call *c, int dist, rd_fast *f)
{
    for (int m = 0; m < 4; m++)
        if (c->pa[m] || c->ps[m] != c->ps[m]) return 0;
    f->dist = dist;
    const double *q = c->plan;
    switch (dist) {
    case ND_RANDOM_EXPONENTIAL: f->a[0] = c->ps[0]; return 1;
    case ND_RANDOM_GAMMA: /* the plan's b, c (nd_rdist_plan) */
        if (!c->nplan || q[0] == 0.0) return 0;
        f->a[0] = q[1], f->a[1] = q[2], f->a[2] = c->ps[0] < 1.0;
        return 1;
    case ND_RANDOM_POISSON: /* nd_rd_poisson_planned's PTRS constants */
        if (c->nplan && q[0] == ND_RD_INVERSION && q[4] > 0.0) { /* or its table */
            f->dist = ND_RANDOM_POISSON + ND_RANDOM_DIST_END;
            f->a[0] = q[4], f->tab = q + 16;
            return 1;
        }
        if (!c->nplan || q[0] != ND_RD_REJECTION) return 0;
        f->a[0] = q[2], f->a[1] = q[6], f->a[2] = q[7], f->a[3] = q[9], f->a[4] = q[5], f->a[5] = q[8];
        return 1;
    case ND_RANDOM_BINOMIAL: /* nd_rd_binomial_btpe's p4, p1, xm */
        if (c->nplan && q[0] == ND_RD_INVERSION && q[4] > 0.0) { /* or the inversion's table */
            f->dist = ND_RANDOM_BINOMIAL + ND_RANDOM_DIST_END;
            f->a[0] = q[4], f->a[1] = q[7], f->tab = q + 16;
            return 1;
        }
        if (!c->nplan || q[0] != ND_RD_REJECTION) return 0;
        f->a[0] = q[16], f->a[1] = q[7], f->a[2] = q[8], f->a[3] = q[9], f->a[4] = q[11], f->a[5] = q[6];
        f->a[6] = q[4] != 0.0 ? q[14] : -1.0; /* p2: the parallelograms when the plan has the table */
        f->tab = q + 38;
        return 1;
    default: return 0;
    }
}

/* Element i's value from its accepted first try v (aux: see RD_FAST_BODY),
 * the rest of its body. */
static inline void fast_finish(const nd_philox_call *c, int dist, void *data, int64_t i, double v, double aux)
{
    switch (dist) {
    case ND_RANDOM_EXPONENTIAL: ((double *)data)[i] = v; return;
    case ND_RANDOM_GAMMA: /* scale G, boosted below shape 1 by u_pos^(1 / shape) */
        ((double *)data)[i] =
            c->ps[1] * (c->ps[0] >= 1.0 ? v : v * nd_rd_exp(aux / c->ps[0]));
        return;
    case ND_RANDOM_POISSON: ((int64_t *)data)[i] = (int64_t)v; return;
    default: { /* binomial: n minus the count when p > 1/2 */
        const int64_t y = (int64_t)v;
        ((int64_t *)data)[i] = c->plan[3] != 0.0 ? (int64_t)c->plan[1] - y : y;
    }
    }
}

static void dist_body(void *vctx, int64_t begin, int64_t end)
{
    const rand_ctx *c = (const rand_ctx *)vctx;
    const nd_philox_call *call = c->call;
    const int nb = nd_rdist_blocks_hint(c->dist);
    const uint32_t key0 = (uint32_t)call->seed, key1 = (uint32_t)(call->seed >> 32);
    void (*fb)(uint32_t, uint32_t, uint64_t, uint32_t, rd_block *) = first_blocks_base;
#if ND_ISA_X86
    if (nd__cpu_isa() >= ND_ISA_AVX512) fb = first_blocks_avx512;
    else if (nd__cpu_isa() >= ND_ISA_AVX2) fb = first_blocks_avx2;
#endif
    void (*bm)(const rd_block *, rd_pair *) = nd_rdist_normal_first(c->dist) ? box_muller_base : NULL;
#if ND_ISA_X86
    if (bm && nd__cpu_isa() >= ND_ISA_AVX512) bm = box_muller_avx512;
    else if (bm && nd__cpu_isa() >= ND_ISA_AVX2) bm = box_muller_avx2;
#endif
    rd_fast f;
    void (*ft)(const rd_fast *, const rd_block *, const rd_pair *, double *, double *, unsigned char *,
               unsigned char *) =
        fast_setup(call, c->dist, &f) ? fast_base : NULL;
#if ND_ISA_X86
    if (ft && nd__cpu_isa() >= ND_ISA_AVX512) ft = fast_avx512;
    else if (ft && nd__cpu_isa() >= ND_ISA_AVX2) ft = fast_avx2;
#endif
    rd_block w[8];
    rd_pair z[RD_RUN];
    double v[RD_RUN], aux[RD_RUN];
    unsigned char ok[RD_RUN], z2[RD_RUN];
    for (int64_t i0 = begin; i0 < end; i0 += RD_RUN) {
        const uint64_t j0 = call->offset + (uint64_t)i0;
        for (int k = 0; k < nb; k++) fb(key0, key1, j0, (uint32_t)k, w + 4 * k);
        if (bm) bm(w, z);
        const int64_t stop = end - i0 < RD_RUN ? end - i0 : RD_RUN;
        if (ft) ft(&f, w, z, v, aux, ok, z2);
        for (int64_t l = 0; l < stop; l++) {
            if (ft && ok[l] && (ok[l] == 1 || aux[l] <= f.tab[(int)(v[l] - f.a[5])])) {
                fast_finish(call, c->dist, c->data, i0 + l, v[l], aux[l]);
                continue;
            }
            uint32_t e[8];
            for (int q = 0; q < 4 * nb; q++) e[q] = w[q][l];
            nd_rdist_element_pre(call, c->dist, c->data, i0 + l, e, nb, bm ? z[l] : NULL);
        }
    }
}

nd_status nd__cpu_random(nd_array *out, int dist, const nd_philox_call *call)
{
    rand_ctx c;
    if (dist >= ND_RANDOM_DIST_FIRST && dist < ND_RANDOM_DIST_END) {
        if (out->dtype != (nd_rdist_is_discrete(dist) ? ND_INT64 : ND_FLOAT64))
            return nd__err(ND_ERR_INTERNAL, "nd__cpu_random", "distribution %d into %s", dist, nd_dtype_name(out->dtype));
        c.data = nd__ptr(out);
        c.dist = dist;
        c.call = call;
        c.cls = -1;
        int64_t cost = nd_rdist_is_row(dist) ? 64 * (call->k > 0 ? call->k : 1) : 64;
        if (call->n > 0) nd__parallel_for(call->n, cost, dist_body, &c);
        return ND_OK;
    }
    c.cls = dist == ND_RANDOM_INTEGERS ? nd_philox_int_class_of(out->dtype) : nd_philox_class_of(out->dtype);
    if (c.cls < 0)
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_random", "no Philox kernel for %s (distribution %d)",
                       nd_dtype_name(out->dtype), dist);
    c.data = nd__ptr(out);
    c.dist = dist;
    c.call = call;
    int64_t nblocks = nd_philox_call_blocks(call);
    if (nblocks > 0) nd__parallel_for(nblocks, dist == ND_RANDOM_NORMAL ? 64 : 16, rand_body, &c);
    return ND_OK;
}
