/*
 * Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
 * easy as 1, 2, 3", SC'11; the Random123 reference) and the transforms that
 * turn its output into floats. Everything here is ND_HOSTDEV static inline,
 * shared by the CPU backend and the CUDA kernels, so both compute the same
 * numbers.
 *
 * THE STREAM (what nd_random_uniform / nd_random_normal produce)
 *
 *   key     = { seed & 0xffffffff, seed >> 32 }            (2 x 32 bits)
 *   block j = Philox4x32-10(counter = { j & 0xffffffff, j >> 32, 0, 0 }, key)
 *             -> four 32-bit words w[0..3]; j is a 64-bit block number.
 *
 *   The generator's stream position `offset` (nd_rng_offset) counts blocks.
 *   A call that produces n elements of dtype d uses
 *       E = nd_philox_per_block(d)   (4 for float16/bfloat16/float32,
 *                                     2 for float64)
 *   elements per block: element i (C order) comes from block offset + i / E,
 *   lane i % E, so its value depends only on (seed, offset, i) and a GPU
 *   thread can compute it on its own. The call then advances the offset by
 *   ceil(n / E) blocks (mod 2^64). Two calls of n elements therefore equal
 *   one call of 2n elements exactly when n is a multiple of E; otherwise the
 *   unused lanes of the last block are skipped.
 *
 *   uniform, 16/32-bit dtypes: lane l uses word w[l]:
 *       u = (w[l] >> 8) * 2^-24                       in [0, 1)
 *   uniform, float64: lane l uses words w[2l] (high) and w[2l+1] (low):
 *       u = (((uint64)w[2l] << 32 | w[2l+1]) >> 11) * 2^-53   in [0, 1)
 *   then v = low + (high - low) * u in double precision (no fused
 *   multiply-add), rounded to the dtype (float16/bfloat16 through float32).
 *   A rounded value >= high is replaced by the largest value of the dtype
 *   below high, one < low by the smallest value >= low, so the result lies
 *   in [low, high) whenever the dtype has a value in that interval (else
 *   the values are the rounded ones); low == high gives low rounded. For
 *   float16/bfloat16 the rounding to the coarse grid makes the values near
 *   the ends of the interval slightly more or less likely than an exact
 *   uniform distribution would (NumPy has no such dtypes to follow).
 *
 *   normal (Box-Muller), 16/32-bit dtypes: lanes 2p and 2p+1 use the pair
 *   of words (w[2p], w[2p+1]):
 *       u1 = (w[2p] + 1) * 2^-32                      in (0, 1]  (no log 0)
 *       u2 =  w[2p+1]    * 2^-32                      in [0, 1)
 *   normal, float64: lanes 0 and 1 use u1 from the 53 bits of (w[0], w[1])
 *   plus one ulp, in (0, 1], and u2 from the 53 bits of (w[2], w[3]), in
 *   [0, 1). Then r = sqrt(-2 ln u1), t = 2 pi u2, lane 2p gets r cos t,
 *   lane 2p+1 gets r sin t, and the value is mean + stddev * z computed in
 *   double and rounded to the dtype. The transcendental functions come
 *   from the platform's math library (libm / CUDA), so normal values may
 *   differ in the last bit of the double between backends; uniform values
 *   are bit-identical.
 */
#ifndef ND_PHILOX_H
#define ND_PHILOX_H

#include <math.h>
#include <stdint.h>

#include "half.h"
#include "hostdev.h"

#define ND_PHILOX_M0 0xD2511F53u
#define ND_PHILOX_M1 0xCD9E8D57u
#define ND_PHILOX_W0 0x9E3779B9u /* golden ratio */
#define ND_PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */
#define ND_PHILOX_ROUNDS 10

/* Distributions as passed to the backends' random entry point. */
#define ND_RANDOM_UNIFORM 0
#define ND_RANDOM_NORMAL 1

/* The float dtype classes of the transforms (derived from nd_dtype by the
 * callers, so this header does not depend on ndgpu.h's enum values). */
#define ND_PHILOX_F16 0
#define ND_PHILOX_BF16 1
#define ND_PHILOX_F32 2
#define ND_PHILOX_F64 3

ND_HOSTDEV static inline uint32_t nd_philox_mulhilo(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

/* One Philox4x32 round on ctr with key k. */
ND_HOSTDEV static inline void nd_philox_round(uint32_t ctr[4], const uint32_t k[2])
{
    uint32_t hi0, hi1;
    uint32_t lo0 = nd_philox_mulhilo(ND_PHILOX_M0, ctr[0], &hi0);
    uint32_t lo1 = nd_philox_mulhilo(ND_PHILOX_M1, ctr[2], &hi1);
    uint32_t c1 = ctr[1], c3 = ctr[3];
    ctr[0] = hi1 ^ c1 ^ k[0];
    ctr[1] = lo1;
    ctr[2] = hi0 ^ c3 ^ k[1];
    ctr[3] = lo0;
}

/* Philox4x32-10: out = bijection of ctr under key (Random123's
 * philox4x32(ctr, key) with R = 10: the key is bumped by (W0, W1) between
 * rounds). out may alias ctr. */
ND_HOSTDEV static inline void nd_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    uint32_t k[2] = {key[0], key[1]};
    for (int r = 0; r < ND_PHILOX_ROUNDS; r++) {
        if (r > 0) {
            k[0] += ND_PHILOX_W0;
            k[1] += ND_PHILOX_W1;
        }
        nd_philox_round(c, k);
    }
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
    out[3] = c[3];
}

/* Block j of the stream of seed (see the header comment). */
ND_HOSTDEV static inline void nd_philox_block(uint64_t seed, uint64_t j, uint32_t out[4])
{
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint32_t ctr[4] = {(uint32_t)j, (uint32_t)(j >> 32), 0u, 0u};
    nd_philox4x32_10(ctr, key, out);
}

/* Elements per block for a dtype class. */
ND_HOSTDEV static inline int nd_philox_per_block(int cls) { return cls == ND_PHILOX_F64 ? 2 : 4; }

/* u in [0, 1) from 24 bits of one word, and from 53 bits of two words. */
ND_HOSTDEV static inline double nd_philox_u24(uint32_t w) { return (double)(w >> 8) * 0x1p-24; }
ND_HOSTDEV static inline double nd_philox_u53(uint32_t hi, uint32_t lo)
{
    return (double)((((uint64_t)hi << 32) | lo) >> 11) * 0x1p-53;
}

/* Unfused double multiply and add (bit-identical CPU and GPU results). */
ND_HOSTDEV static inline double nd_philox_mul(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
ND_HOSTDEV static inline double nd_philox_add(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

/* Box-Muller: two standard normals from u1 in (0, 1] and u2 in [0, 1). */
ND_HOSTDEV static inline void nd_philox_box_muller(double u1, double u2, double *z0, double *z1)
{
    double r = sqrt(-2.0 * log(u1));
    double t = 6.283185307179586476925286766559 * u2;
    *z0 = r * cos(t);
    *z1 = r * sin(t);
}

/* The double values of the elements of one block, before rounding to the
 * dtype: v[0..nd_philox_per_block(cls)). dist is ND_RANDOM_UNIFORM (p0 =
 * low, p1 = high - low, the span) or ND_RANDOM_NORMAL (p0 = mean, p1 =
 * stddev). */
ND_HOSTDEV static inline void nd_philox_values(const uint32_t w[4], int cls, int dist, double p0, double p1, double v[4])
{
    if (dist == ND_RANDOM_UNIFORM) {
        if (cls == ND_PHILOX_F64) {
            v[0] = nd_philox_add(p0, nd_philox_mul(p1, nd_philox_u53(w[0], w[1])));
            v[1] = nd_philox_add(p0, nd_philox_mul(p1, nd_philox_u53(w[2], w[3])));
        } else {
            for (int l = 0; l < 4; l++) v[l] = nd_philox_add(p0, nd_philox_mul(p1, nd_philox_u24(w[l])));
        }
        return;
    }
    double z[4];
    if (cls == ND_PHILOX_F64) {
        double u1 = nd_philox_u53(w[0], w[1]) + 0x1p-53; /* (0, 1] */
        nd_philox_box_muller(u1, nd_philox_u53(w[2], w[3]), &z[0], &z[1]);
        z[2] = z[3] = 0.0;
    } else {
        nd_philox_box_muller(((double)w[0] + 1.0) * 0x1p-32, (double)w[1] * 0x1p-32, &z[0], &z[1]);
        nd_philox_box_muller(((double)w[2] + 1.0) * 0x1p-32, (double)w[3] * 0x1p-32, &z[2], &z[3]);
    }
    for (int l = 0; l < 4; l++) v[l] = nd_philox_add(p0, nd_philox_mul(p1, z[l]));
}

/* Round a double to the dtype class and return the stored bits (for F64
 * the double's bits are returned by the caller instead; this is for the
 * narrow classes) and its value as a double. */
ND_HOSTDEV static inline float nd_philox_round_f32(double v) { return (float)v; }
ND_HOSTDEV static inline uint16_t nd_philox_round_half(double v, int cls)
{
    float f = (float)v;
    return cls == ND_PHILOX_F16 ? nd_float_to_half(f) : nd_float_to_bf16(f);
}
ND_HOSTDEV static inline double nd_philox_half_value(uint16_t h, int cls)
{
    return (double)(cls == ND_PHILOX_F16 ? nd_half_to_float(h) : nd_bf16_to_float(h));
}

/* One step of a float16/bfloat16 bit pattern towards +inf (up) or -inf. */
static inline uint16_t nd_philox_half_step(uint16_t h, int up)
{
    if ((h & 0x7fffu) == 0) return up ? 0x0001u : 0x8001u; /* +-0 */
    if (h & 0x8000u) return (uint16_t)(up ? h - 1u : h + 1u);
    return (uint16_t)(up ? h + 1u : h - 1u);
}

/* The smallest value of the dtype class that is >= x (up) or the largest
 * that is < x (!up), as a double; *bits receives its bit pattern for the
 * 16-bit classes. x must be finite and within the class's range. */
static inline double nd_philox_bound(int cls, double x, int up, uint16_t *bits)
{
    *bits = 0;
    if (cls == ND_PHILOX_F64) return up ? x : nextafter(x, -INFINITY);
    if (cls == ND_PHILOX_F32) {
        float f = (float)x;
        if (up && (double)f < x) f = nextafterf(f, INFINITY);
        if (!up && (double)f >= x) f = nextafterf(f, -INFINITY);
        return (double)f;
    }
    uint16_t h = nd_philox_round_half(x, cls);
    for (int guard = 0; guard < 4; guard++) {
        double v = nd_philox_half_value(h, cls);
        if (up ? v >= x : v < x) break;
        h = nd_philox_half_step(h, up);
    }
    *bits = h;
    return nd_philox_half_value(h, cls);
}

/* The uniform clamp, computed once per call on the host: rounding to the
 * dtype can move a value below low or up to high; such values are
 * replaced by the nearest value of the dtype inside [low, high). */
typedef struct nd_philox_clamp {
    int use;             /* low < high and the dtype has a value in [low, high) */
    double low, high;    /* the requested bounds */
    double lo_cap, hi_cap;
    uint16_t lo_bits, hi_bits; /* 16-bit classes */
} nd_philox_clamp;

static inline nd_philox_clamp nd_philox_uniform_clamp(int cls, double low, double high)
{
    nd_philox_clamp c;
    c.low = low;
    c.high = high;
    c.lo_cap = nd_philox_bound(cls, low, 1, &c.lo_bits);
    c.hi_cap = nd_philox_bound(cls, high, 0, &c.hi_bits);
    c.use = low < high && c.lo_cap <= c.hi_cap;
    return c;
}

#endif /* ND_PHILOX_H */
