/* CPU Philox kernel: fills a C-contiguous float array with the stream
 * described in src/philox.h, block by block through nd_philox_fill_block
 * (the CUDA kernel's per-block function too). Blocks are independent, so
 * the result does not depend on the number of threads. */
#include "cpu/cpu.h"
#include "philox.h"

typedef struct {
    void *data;
    int cls;  /* ND_PHILOX_* */
    int dist; /* ND_RANDOM_* */
    nd_philox_call call;
} rand_ctx;

static void rand_body(void *vctx, int64_t begin, int64_t end)
{
    const rand_ctx *c = (const rand_ctx *)vctx;
    for (int64_t j = begin; j < end; j++) nd_philox_fill_block(&c->call, c->cls, c->dist, c->data, j);
}

nd_status nd__cpu_random(nd_array *out, int dist, uint64_t seed, uint64_t offset, double p0, double p1)
{
    rand_ctx c;
    c.cls = nd_philox_class_of(out->dtype);
    if (c.cls < 0)
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_random", "dtype %s is not a float dtype", nd_dtype_name(out->dtype));
    c.data = nd__ptr(out);
    c.dist = dist;
    c.call = nd_philox_call_init(c.cls, dist, seed, offset, out->size, p0, p1);
    int64_t nblocks = nd_philox_num_blocks(out->size, c.cls);
    if (nblocks > 0) nd__parallel_for(nblocks, dist == ND_RANDOM_NORMAL ? 64 : 16, rand_body, &c);
    return ND_OK;
}
