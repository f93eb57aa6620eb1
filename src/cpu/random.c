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
 * the compiler vectorises: nd_philox_log as it is (straight-line code),
 * nd_philox_sincos with its two refinements and its quadrant choice
 * computed always and selected, which gives the same bits as the branches
 * (the CPU==GPU tests compare these with the kernel's scalar path). */
static inline void rd_sincos_sel(double x, double *sn, double *cs)
{
    const double pio2_1 = 0x1.921fb54400000p+0, pio2_1t = 0x1.0b4611a626331p-34;
    const double pio2_2 = 0x1.0b4611a600000p-34, pio2_2t = 0x1.3198a2e037073p-69;
    const double pio2_3 = 0x1.3198a2e000000p-69, pio2_3t = 0x1.b839a252049c1p-104;
    double fn = (x * 0x1.45f306dc9c883p-1 + 0x1.8p52) - 0x1.8p52;
    int n = (int)fn;
    double r = x - fn * pio2_1, w = fn * pio2_1t, y0 = r - w;
    const int ex = nd_philox_expo(x);
    const int c1 = ex - nd_philox_expo(y0) > 16;
    double t = r, w2 = fn * pio2_2, r2 = t - w2;
    w2 = fn * pio2_2t - ((t - r2) - w2);
    double y02 = r2 - w2;
    r = c1 ? r2 : r, w = c1 ? w2 : w, y0 = c1 ? y02 : y0;
    const int c2 = c1 & (ex - nd_philox_expo(y0) > 49);
    t = r;
    double w3 = fn * pio2_3, r3 = t - w3;
    w3 = fn * pio2_3t - ((t - r3) - w3);
    double y03 = r3 - w3;
    r = c2 ? r3 : r, w = c2 ? w3 : w, y0 = c2 ? y03 : y0;
    double y1 = (r - y0) - w;
    double ks = nd_philox_kernel_sin(y0, y1), kc = nd_philox_kernel_cos(y0, y1);
    /* quadrant n & 3: sin = ks, kc, -ks, -kc; cos = kc, -ks, -kc, ks (a
     * multiplication by -1 is the negation, bit for bit) */
    const int odd = n & 1;
    const double a = odd ? kc : ks, b = odd ? ks : kc;
    *sn = a * ((n & 2) ? -1.0 : 1.0);
    *cs = b * (((n ^ (n >> 1)) & 1) ? -1.0 : 1.0);
}
#define RD_BM_BODY                                                                    \
    for (int l = 0; l < RD_RUN; l++) {                                                \
        double u1 = nd_philox_u53(w[0][l], w[1][l]) + 0x1p-53;                        \
        double u2 = nd_philox_u53(w[2][l], w[3][l]);                                  \
        double rr = sqrt(-2.0 * nd_philox_log(u1)), sn, cs;                           \
        rd_sincos_sel(ND_PHILOX_2PI * u2, &sn, &cs);                                  \
        z[l][0] = rr * cs, z[l][1] = rr * sn;                                          \
    }
typedef double rd_pair[2];
RD_VEC static void box_muller_base(const rd_block *w, rd_pair *z) { RD_BM_BODY }
#if ND_ISA_X86
RD_VEC ND_ISA_TARGET_AVX2 static void box_muller_avx2(const rd_block *w, rd_pair *z) { RD_BM_BODY }
RD_VEC ND_ISA_TARGET_AVX512 static void box_muller_avx512(const rd_block *w, rd_pair *z) { RD_BM_BODY }
#endif

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
    rd_block w[8];
    rd_pair z[RD_RUN];
    for (int64_t i0 = begin; i0 < end; i0 += RD_RUN) {
        const uint64_t j0 = call->offset + (uint64_t)i0;
        for (int k = 0; k < nb; k++) fb(key0, key1, j0, (uint32_t)k, w + 4 * k);
        if (bm) bm(w, z);
        const int64_t stop = end - i0 < RD_RUN ? end - i0 : RD_RUN;
        for (int64_t l = 0; l < stop; l++) {
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
