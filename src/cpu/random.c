/* CPU Philox kernel: fills a C-contiguous array with the stream described
 * in src/shared/philox.h (and the distributions of src/shared/philox_dist.h), block by block through nd_philox_thread_fill's per-block
 * functions (the CUDA kernel's too). Blocks are independent, so the result
 * does not depend on the number of threads. */
#include "cpu/cpu.h"
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
 * time through nd_rdist_element, the CUDA kernel's body too. */
static void dist_body(void *vctx, int64_t begin, int64_t end)
{
    const rand_ctx *c = (const rand_ctx *)vctx;
    for (int64_t i = begin; i < end; i++) nd_rdist_element(c->call, c->dist, c->data, i);
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
