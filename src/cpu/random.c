/* CPU Philox kernel: fills a C-contiguous float array with the stream
 * described in src/philox.h. Blocks are independent, so the result does
 * not depend on the number of threads. */
#include <string.h>

#include "cpu/cpu.h"
#include "philox.h"

typedef struct {
    char *data;
    int64_t n;        /* elements */
    int cls;          /* ND_PHILOX_* */
    int epb;          /* elements per block */
    int dist;
    uint64_t seed, offset;
    double p0, p1;    /* low, span (uniform) or mean, stddev (normal) */
    nd_philox_clamp clamp; /* uniform only (clamp.use == 0 for normal) */
} rand_ctx;

static void rand_body(void *vctx, int64_t begin, int64_t end)
{
    const rand_ctx *c = (const rand_ctx *)vctx;
    for (int64_t j = begin; j < end; j++) {
        uint32_t w[4];
        double v[4];
        nd_philox_block(c->seed, c->offset + (uint64_t)j, w);
        nd_philox_values(w, c->cls, c->dist, c->p0, c->p1, v);
        int64_t first = j * c->epb;
        int cnt = (int)(c->n - first < c->epb ? c->n - first : c->epb);
        switch (c->cls) {
        case ND_PHILOX_F64: {
            double *o = (double *)c->data + first;
            for (int l = 0; l < cnt; l++) {
                double x = v[l];
                if (c->clamp.use) x = x >= c->clamp.high ? c->clamp.hi_cap : x < c->clamp.low ? c->clamp.lo_cap : x;
                o[l] = x;
            }
            break;
        }
        case ND_PHILOX_F32: {
            float *o = (float *)c->data + first;
            for (int l = 0; l < cnt; l++) {
                float f = nd_philox_round_f32(v[l]);
                if (c->clamp.use) {
                    if ((double)f >= c->clamp.high) f = (float)c->clamp.hi_cap;
                    else if ((double)f < c->clamp.low) f = (float)c->clamp.lo_cap;
                }
                o[l] = f;
            }
            break;
        }
        default: {
            uint16_t *o = (uint16_t *)c->data + first;
            for (int l = 0; l < cnt; l++) {
                uint16_t h = nd_philox_round_half(v[l], c->cls);
                if (c->clamp.use) {
                    double x = nd_philox_half_value(h, c->cls);
                    if (x >= c->clamp.high) h = c->clamp.hi_bits;
                    else if (x < c->clamp.low) h = c->clamp.lo_bits;
                }
                o[l] = h;
            }
            break;
        }
        }
    }
}

nd_status nd__cpu_random(nd_array *out, int dist, uint64_t seed, uint64_t offset, double p0, double p1)
{
    rand_ctx c;
    memset(&c, 0, sizeof c);
    switch (out->dtype) {
    case ND_FLOAT16: c.cls = ND_PHILOX_F16; break;
    case ND_BFLOAT16: c.cls = ND_PHILOX_BF16; break;
    case ND_FLOAT32: c.cls = ND_PHILOX_F32; break;
    case ND_FLOAT64: c.cls = ND_PHILOX_F64; break;
    default: return nd__err(ND_ERR_INTERNAL, "nd__cpu_random", "dtype %s is not a float dtype", nd_dtype_name(out->dtype));
    }
    c.data = nd__ptr(out);
    c.n = out->size;
    c.epb = nd_philox_per_block(c.cls);
    c.dist = dist;
    c.seed = seed;
    c.offset = offset;
    if (dist == ND_RANDOM_UNIFORM) {
        c.p0 = p0;
        c.p1 = p1 - p0;
        c.clamp = nd_philox_uniform_clamp(c.cls, p0, p1);
    } else {
        c.p0 = p0;
        c.p1 = p1;
    }
    int64_t nblocks = (c.n + c.epb - 1) / c.epb;
    if (nblocks > 0) nd__parallel_for(nblocks, dist == ND_RANDOM_NORMAL ? 64 : 16, rand_body, &c);
    return ND_OK;
}
