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
