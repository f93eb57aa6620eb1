/* CPU Philox kernel: fills a C-contiguous array with the stream described
 * in src/shared/philox.h, block by block through nd_philox_thread_fill's per-block
 * functions (the CUDA kernel's too). Blocks are independent, so the result
 * does not depend on the number of threads. */
#include "cpu/cpu.h"
#include "shared/philox.h"

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

nd_status nd__cpu_random(nd_array *out, int dist, const nd_philox_call *call)
{
    rand_ctx c;
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
