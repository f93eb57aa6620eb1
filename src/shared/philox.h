/*
 * Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
 * easy as 1, 2, 3", SC'11; the Random123 reference) and the transforms that
 * turn its output into floats. Everything that computes a value is
 * ND_HOSTDEV static inline, shared by the CPU backend and the CUDA kernel:
 * both fill a block through the one function nd_philox_fill_block, so both
 * compute the same numbers, bit for bit.
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
 *   elements per block: element i (C order) comes from block offset + i / E
 *   (mod 2^64), lane i % E, so its value depends only on (seed, offset, i)
 *   and a GPU thread can compute it on its own. The call then advances the
 *   offset by ceil(n / E) blocks (mod 2^64). Two calls of n elements
 *   therefore equal one call of 2n elements exactly when n is a multiple of
 *   E; otherwise the unused lanes of the last block are skipped.
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
 *   [0, 1). Then r = sqrt(-2 ln u1), t = 2 pi u2 (2 pi rounded to double),
 *   lane 2p gets r cos t, lane 2p+1 gets r sin t, and the value is
 *   mean + stddev * z computed in double and rounded to the dtype.
 *
 *   Normal values are bit-identical across backends too: ln, sin and cos
 *   are not the platform's (libm and CUDA's differ in the last bit) but
 *   nd_philox_log and nd_philox_sincos below, written with +, -, *, / and
 *   sqrt only (correctly rounded IEEE double operations on x86-64 and on
 *   CUDA devices), exact bit manipulation of the exponent and a fixed
 *   evaluation order. Their accuracy is that of fdlibm's (< 1 ulp; the
 *   tests measure it against long double references).
 *
 * NO FUSED MULTIPLY-ADD. Every double operation of the transforms goes
 * through nd_philox_mul/add/sub/div/sqrt: __dmul_rn etc. on the device,
 * which nvcc never contracts into an FMA, and plain operators in separate
 * inline functions on the host. gcc does not contract in ISO C mode
 * (-std=c11, which the Makefile uses; -ffp-contract=off is its default
 * there), clang's default (-ffp-contract=on) contracts only within one
 * expression and never across these helpers. A build must not add
 * -ffp-contract=fast or -ffast-math for the host files that include this
 * header (the tests check that the helpers round every step), nor run
 * with flush-to-zero; doubles must be evaluated in double (SSE2 on
 * x86-64, FLT_EVAL_METHOD 0: checked below). The host copies of these
 * functions in the .cu files are not used for values (only the clamp).
 */
#ifndef ND_PHILOX_H
#define ND_PHILOX_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "shared/half.h"
#include "shared/hostdev.h"
#include "ndgpu.h"

#if !defined(__CUDA_ARCH__) && defined(__FLT_EVAL_METHOD__) && (__FLT_EVAL_METHOD__ == 1 || __FLT_EVAL_METHOD__ == 2)
#error "src/shared/philox.h needs double arithmetic evaluated in double (x87 excess precision breaks CPU/GPU identity)"
#endif

/* Always inlined (the CPU's vector loop of src/cpu/random.c needs sincos
 * and Box-Muller inside its body to vectorise it). */
#if defined(__CUDACC__)
#define ND_PHILOX_INLINE __forceinline__
#else
#define ND_PHILOX_INLINE inline __attribute__((always_inline))
#endif

#define ND_PHILOX_M0 0xD2511F53u
#define ND_PHILOX_M1 0xCD9E8D57u
#define ND_PHILOX_W0 0x9E3779B9u /* golden ratio */
#define ND_PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */
#define ND_PHILOX_ROUNDS 10

/* Distributions as passed to the backends' random entry point. */
#define ND_RANDOM_UNIFORM 0
#define ND_RANDOM_NORMAL 1
#define ND_RANDOM_INTEGERS 2 /* integer dtype classes only */

/* The float dtype classes of the transforms. */
#define ND_PHILOX_F16 0
#define ND_PHILOX_BF16 1
#define ND_PHILOX_F32 2
#define ND_PHILOX_F64 3
/* The integer classes (nd_random_integers), by itemsize: the value is
 * stored as its low 1, 2, 4 or 8 bytes (two's complement), so one class
 * serves the signed and the unsigned dtype of a size (and bool). */
#define ND_PHILOX_I1 4
#define ND_PHILOX_I2 5
#define ND_PHILOX_I4 6
#define ND_PHILOX_I8 7

/* The class of a dtype, -1 for a dtype the generator does not produce. */
static inline int nd_philox_class_of(nd_dtype t)
{
    switch (t) {
    case ND_FLOAT16: return ND_PHILOX_F16;
    case ND_BFLOAT16: return ND_PHILOX_BF16;
    case ND_FLOAT32: return ND_PHILOX_F32;
    case ND_FLOAT64: return ND_PHILOX_F64;
    default: return -1;
    }
}

/* The integer class of a dtype (bool and the integer dtypes), -1 for floats. */
static inline int nd_philox_int_class_of(nd_dtype t)
{
    switch (t) {
    case ND_BOOL:
    case ND_INT8:
    case ND_UINT8: return ND_PHILOX_I1;
    case ND_INT16:
    case ND_UINT16: return ND_PHILOX_I2;
    case ND_INT32:
    case ND_UINT32: return ND_PHILOX_I4;
    case ND_INT64:
    case ND_UINT64: return ND_PHILOX_I8;
    default: return -1;
    }
}

/* ------------------------------------------------------------------ */
/* The generator                                                       */
/* ------------------------------------------------------------------ */

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

/* Blocks a call of n elements uses: ceil(n / E). */
ND_HOSTDEV static inline int64_t nd_philox_num_blocks(int64_t n, int cls)
{
    int64_t e = nd_philox_per_block(cls);
    return n / e + (n % e != 0);
}

/* ------------------------------------------------------------------ */
/* Unfused, correctly rounded double arithmetic (same bits everywhere)  */
/* ------------------------------------------------------------------ */

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
ND_HOSTDEV static inline double nd_philox_sub(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}
ND_HOSTDEV static inline double nd_philox_div(double a, double b)
{
#if defined(__CUDA_ARCH__)
    return __ddiv_rn(a, b);
#else
    return a / b;
#endif
}
ND_HOSTDEV static inline double nd_philox_sqrt(double a)
{
#if defined(__CUDA_ARCH__)
    return __dsqrt_rn(a);
#else
    return sqrt(a);
#endif
}
ND_HOSTDEV static inline uint64_t nd_philox_dbits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
ND_HOSTDEV static inline double nd_philox_bitsd(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* ------------------------------------------------------------------ */
/* ln, sin, cos                                                        */
/* ------------------------------------------------------------------ */
/* The algorithms and coefficients are fdlibm's (e_log.c, k_sin.c,
 * k_cos.c, e_rem_pio2.c as refined in FreeBSD msun; Copyright (C) 1993 by
 * Sun Microsystems, Inc.: "Permission to use, copy, modify, and
 * distribute this software is freely granted, provided that this notice
 * is preserved."), rewritten here with the helpers above, so that each
 * operation is one IEEE operation in the written order. Coefficients are
 * given as the exact hexadecimal doubles of fdlibm's bit patterns. */

/* ln(2) = LN2_HI + LN2_LO, LN2_HI with 32 trailing zero bits (k * LN2_HI
 * is exact for |k| < 2^20). */
#define ND_PHILOX_LN2_HI 0x1.62e42fee00000p-1
#define ND_PHILOX_LN2_LO 0x1.a39ef35793c76p-33

/* Natural logarithm of a positive normal double (the generator's domain
 * is u1 in [2^-53, 1]). x = 2^k m with m in [sqrt(2)/2, sqrt(2)) (the
 * exponent from the bits, no frexp), f = m - 1, s = f / (2 + f), so
 * ln m = 2 atanh s = f - f^2/2 + s (f^2/2 + R(s^2)) with R fdlibm's
 * minimax polynomial Lg1..Lg7, and ln x = k LN2_HI + (that + k LN2_LO). */
ND_HOSTDEV static inline double nd_philox_log(double x)
{
    uint64_t b = nd_philox_dbits(x);
    uint32_t hx = (uint32_t)(b >> 32);
    /* move the split point of the mantissa from 1 to sqrt(2)/2 (whose
     * high word is 0x3fe6a09e): k counts the carries into the exponent */
    hx += 0x3ff00000u - 0x3fe6a09eu;
    int k = (int)(hx >> 20) - 0x3ff;
    hx = (hx & 0x000fffffu) + 0x3fe6a09eu;
    double m = nd_philox_bitsd(((uint64_t)hx << 32) | (b & 0xffffffffu));
    double f = nd_philox_sub(m, 1.0);
    double hfsq = nd_philox_mul(nd_philox_mul(0.5, f), f);
    double s = nd_philox_div(f, nd_philox_add(2.0, f));
    double z = nd_philox_mul(s, s);
    double w = nd_philox_mul(z, z);
    double t1 = nd_philox_mul(
        w, nd_philox_add(0x1.999999997fa04p-2,
                         nd_philox_mul(w, nd_philox_add(0x1.c71c51d8e78afp-3, nd_philox_mul(w, 0x1.39a09d078c69fp-3)))));
    double t2 = nd_philox_mul(
        z, nd_philox_add(
               0x1.5555555555593p-1,
               nd_philox_mul(w, nd_philox_add(0x1.2492494229359p-2,
                                              nd_philox_mul(w, nd_philox_add(0x1.7466496cb03dep-3,
                                                                             nd_philox_mul(w, 0x1.2f112df3e5244p-3)))))));
    double R = nd_philox_add(t2, t1);
    double dk = (double)k;
    /* s (hfsq + R) + k LN2_LO - hfsq + f + k LN2_HI, left to right */
    double acc = nd_philox_add(nd_philox_mul(s, nd_philox_add(hfsq, R)), nd_philox_mul(dk, ND_PHILOX_LN2_LO));
    acc = nd_philox_add(nd_philox_sub(acc, hfsq), f);
    return nd_philox_add(acc, nd_philox_mul(dk, ND_PHILOX_LN2_HI));
}

/* sin(x + y) for |x + y| <~ pi/4, y the tail of x (fdlibm __kernel_sin:
 * x + S1 x^3 + ... + S6 x^13, with the first-order correction for y). */
ND_HOSTDEV static inline double nd_philox_kernel_sin(double x, double y)
{
    double z = nd_philox_mul(x, x);
    double w = nd_philox_mul(z, z);
    /* r = S2 + z (S3 + z S4) + z w (S5 + z S6) */
    double r = nd_philox_add(
        nd_philox_add(0x1.111111110f8a6p-7,
                      nd_philox_mul(z, nd_philox_add(-0x1.a01a019c161d5p-13, nd_philox_mul(z, 0x1.71de357b1fe7dp-19)))),
        nd_philox_mul(nd_philox_mul(z, w),
                      nd_philox_add(-0x1.ae5e68a2b9cebp-26, nd_philox_mul(z, 0x1.5d93a5acfd57cp-33))));
    double v = nd_philox_mul(z, x);
    /* x - ((z (y/2 - v r) - y) - v S1) */
    double q = nd_philox_sub(nd_philox_mul(0.5, y), nd_philox_mul(v, r));
    q = nd_philox_sub(nd_philox_mul(z, q), y);
    q = nd_philox_sub(q, nd_philox_mul(v, -0x1.5555555555549p-3));
    return nd_philox_sub(x, q);
}

/* cos(x + y) for |x + y| <~ pi/4 (fdlibm __kernel_cos: 1 - x^2/2 + C1 x^4
 * + ... + C6 x^14 - x y, with 1 - x^2/2 split as w + ((1 - w) - x^2/2)). */
ND_HOSTDEV static inline double nd_philox_kernel_cos(double x, double y)
{
    double z = nd_philox_mul(x, x);
    double w = nd_philox_mul(z, z);
    /* r = z (C1 + z (C2 + z C3)) + w w (C4 + z (C5 + z C6)) */
    double r = nd_philox_add(
        nd_philox_mul(z, nd_philox_add(0x1.555555555554cp-5,
                                       nd_philox_mul(z, nd_philox_add(-0x1.6c16c16c15177p-10,
                                                                      nd_philox_mul(z, 0x1.a01a019cb1590p-16))))),
        nd_philox_mul(nd_philox_mul(w, w),
                      nd_philox_add(-0x1.27e4f809c52adp-22,
                                    nd_philox_mul(z, nd_philox_add(0x1.1ee9ebdb4b1c4p-29,
                                                                   nd_philox_mul(z, -0x1.8fae9be8838d4p-37))))));
    double hz = nd_philox_mul(0.5, z);
    double one_hz = nd_philox_sub(1.0, hz);
    double tail = nd_philox_sub(nd_philox_sub(1.0, one_hz), hz);
    tail = nd_philox_add(tail, nd_philox_sub(nd_philox_mul(z, r), nd_philox_mul(x, y)));
    return nd_philox_add(one_hz, tail);
}

/* Biased exponent field of a double. */
ND_HOSTDEV static inline int nd_philox_expo(double x) { return (int)((nd_philox_dbits(x) >> 52) & 0x7ffu); }

/* sin x and cos x for finite x with |x| < 2^20 pi/2 (the generator's
 * domain is t in [0, 2 pi)). Reduction: n = rint(x 2/pi) by the 1.5 * 2^52
 * trick, y0 + y1 = x - n pi/2 with pi/2 in three 33-bit parts plus a tail
 * (Cody-Waite; each n * part is exact), taking the second and third part
 * only when the first leaves more than 16 (49) bits cancelled, which keeps
 * the reduced argument accurate to about 2^-118 (2^-151) relative even
 * next to multiples of pi/2; then the kernels by quadrant n mod 4. */
ND_HOSTDEV static ND_PHILOX_INLINE void nd_philox_sincos(double x, double *sn, double *cs)
{
    const double pio2_1 = 0x1.921fb54400000p+0, pio2_1t = 0x1.0b4611a626331p-34;
    const double pio2_2 = 0x1.0b4611a600000p-34, pio2_2t = 0x1.3198a2e037073p-69;
    const double pio2_3 = 0x1.3198a2e000000p-69, pio2_3t = 0x1.b839a252049c1p-104;
    double fn = nd_philox_sub(nd_philox_add(nd_philox_mul(x, 0x1.45f306dc9c883p-1), 0x1.8p52), 0x1.8p52);
    int n = (int)fn;
    double r = nd_philox_sub(x, nd_philox_mul(fn, pio2_1));
    double w = nd_philox_mul(fn, pio2_1t);
    double y0 = nd_philox_sub(r, w);
    /* the second and third refinement are computed always and selected
     * (the same values as branching; the CPU turns this loop body into
     * vector code, src/cpu/random.c) */
    const int ex = nd_philox_expo(x);
    const int c1 = ex - nd_philox_expo(y0) > 16;
    double t = r, w2 = nd_philox_mul(fn, pio2_2), r2 = nd_philox_sub(t, w2);
    w2 = nd_philox_sub(nd_philox_mul(fn, pio2_2t), nd_philox_sub(nd_philox_sub(t, r2), w2));
    double y02 = nd_philox_sub(r2, w2);
    r = c1 ? r2 : r;
    w = c1 ? w2 : w;
    y0 = c1 ? y02 : y0;
    const int c2 = c1 & (ex - nd_philox_expo(y0) > 49);
    t = r;
    double w3 = nd_philox_mul(fn, pio2_3), r3 = nd_philox_sub(t, w3);
    w3 = nd_philox_sub(nd_philox_mul(fn, pio2_3t), nd_philox_sub(nd_philox_sub(t, r3), w3));
    double y03 = nd_philox_sub(r3, w3);
    r = c2 ? r3 : r;
    w = c2 ? w3 : w;
    y0 = c2 ? y03 : y0;
    double y1 = nd_philox_sub(nd_philox_sub(r, y0), w);
    double ks = nd_philox_kernel_sin(y0, y1), kc = nd_philox_kernel_cos(y0, y1);
    /* quadrant n & 3: sin = ks, kc, -ks, -kc; cos = kc, -ks, -kc, ks (a
     * multiplication by -1 is the negation, bit for bit) */
    const int odd = n & 1;
    const double a = odd ? kc : ks, b = odd ? ks : kc;
    *sn = nd_philox_mul(a, (n & 2) ? -1.0 : 1.0);
    *cs = nd_philox_mul(b, ((n ^ (n >> 1)) & 1) ? -1.0 : 1.0);
}

/* ------------------------------------------------------------------ */
/* Transforms                                                          */
/* ------------------------------------------------------------------ */

/* 2 pi rounded to double. */
#define ND_PHILOX_2PI 0x1.921fb54442d18p+2

/* u in [0, 1) from 24 bits of one word, and from 53 bits of two words
 * (exact: an integer below 2^53 times a power of two). */
ND_HOSTDEV static inline double nd_philox_u24(uint32_t w) { return nd_philox_mul((double)(w >> 8), 0x1p-24); }
ND_HOSTDEV static inline double nd_philox_u53(uint32_t hi, uint32_t lo)
{
    return nd_philox_mul((double)((((uint64_t)hi << 32) | lo) >> 11), 0x1p-53);
}

/* Box-Muller: two standard normals from u1 in (0, 1] and u2 in [0, 1). */
ND_HOSTDEV static ND_PHILOX_INLINE void nd_philox_box_muller(double u1, double u2, double *z0, double *z1)
{
    double r = nd_philox_sqrt(nd_philox_mul(-2.0, nd_philox_log(u1)));
    double s, c;
    nd_philox_sincos(nd_philox_mul(ND_PHILOX_2PI, u2), &s, &c);
    *z0 = nd_philox_mul(r, c);
    *z1 = nd_philox_mul(r, s);
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
            v[2] = v[3] = 0.0;
        } else {
            for (int l = 0; l < 4; l++) v[l] = nd_philox_add(p0, nd_philox_mul(p1, nd_philox_u24(w[l])));
        }
        return;
    }
    double z[4];
    if (cls == ND_PHILOX_F64) {
        double u1 = nd_philox_add(nd_philox_u53(w[0], w[1]), 0x1p-53); /* (0, 1], exact */
        nd_philox_box_muller(u1, nd_philox_u53(w[2], w[3]), &z[0], &z[1]);
        z[2] = z[3] = 0.0;
    } else {
        for (int p = 0; p < 2; p++)
            nd_philox_box_muller(nd_philox_mul(nd_philox_add((double)w[2 * p], 1.0), 0x1p-32),
                                 nd_philox_mul((double)w[2 * p + 1], 0x1p-32), &z[2 * p], &z[2 * p + 1]);
    }
    for (int l = 0; l < 4; l++) v[l] = nd_philox_add(p0, nd_philox_mul(p1, z[l]));
}

/* Rounding a double to the 16-bit classes (through float32, as
 * documented above) and back to a double. */
ND_HOSTDEV static inline uint16_t nd_philox_round_half(double v, int cls)
{
    float f = (float)v;
    return cls == ND_PHILOX_F16 ? nd_float_to_half(f) : nd_float_to_bf16(f);
}
ND_HOSTDEV static inline double nd_philox_half_value(uint16_t h, int cls)
{
    return (double)(cls == ND_PHILOX_F16 ? nd_half_to_float(h) : nd_bf16_to_float(h));
}

/* The uniform clamp of a call: rounding to the dtype can move a value
 * below low or up to high; such values are replaced by the nearest value
 * of the dtype inside [low, high). Computed once per call on the host
 * (nd_philox_uniform_clamp) and passed to the kernel by value. */
typedef struct nd_philox_clamp {
    int use;             /* uniform, low < high and the dtype has a value in [low, high) */
    double low, high;    /* the requested bounds */
    double lo_cap, hi_cap;
    uint16_t lo_bits, hi_bits; /* 16-bit classes */
} nd_philox_clamp;

/* Everything a call needs besides the dtype class, the distribution and
 * the output pointer (plain data: the CUDA kernel's argument). */
typedef struct nd_philox_call {
    uint64_t seed;
    uint64_t offset;       /* block number of the call's first block */
    int64_t n;             /* elements */
    double p0, p1;         /* low, span (uniform) or mean, stddev (normal) */
    nd_philox_clamp clamp; /* clamp.use == 0 for normal */
    int64_t ilow;          /* integers: low */
    uint64_t ispan;        /* integers: high - low (>= 1) */
    int epb;               /* elements per block of this call */
    /* the distributions of src/shared/philox_dist.h (ND_RANDOM_EXPONENTIAL
     * and after): parameter m of element i is pa[m][i] when pa[m] is set
     * (n contiguous doubles on the output's device), else ps[m]; vec is
     * the vector parameter of the row distributions (pvals, alpha, or the
     * mean followed by the Cholesky factor), k their values per row */
    double ps[4];
    const double *pa[4];
    const double *vec;
    int64_t k;
    /* the plan of scalar binomial / Poisson parameters (nd_rdist_plan) */
    int nplan;
    double plan[80];
} nd_philox_call;

/* Blocks a call uses: ceil(n / epb). */
ND_HOSTDEV static inline int64_t nd_philox_call_blocks(const nd_philox_call *c)
{
    return c->n / c->epb + (c->n % c->epb != 0);
}

/* The high 64 bits of a * b. */
ND_HOSTDEV static inline uint64_t nd_philox_mulhi64(uint64_t a, uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* INTEGERS (nd_random_integers): k in [0, span) from one block-lane, then
 * low + k stored in the dtype. span <= 2^32: two elements per block,
 * lane l draws x = (uint64)w[2l] << 32 | w[2l+1] and k = floor(x span /
 * 2^64) (Lemire's multiply-shift without rejection: each k has either
 * floor or ceil of 2^64 / span draws, a relative bias below span / 2^64
 * <= 2^-32). span > 2^32 (64-bit dtypes only): one element per block,
 * x = the 128 bits w[0]:w[1]:w[2]:w[3] (w[0] highest) and k = floor(x span
 * / 2^128) (bias below 2^-64). No rejection loop, so element i still
 * depends only on (seed, offset, i), as for the floats. */
ND_HOSTDEV static inline void nd_philox_fill_block_int(const nd_philox_call *c, int cls, void *data, int64_t j)
{
    uint32_t w[4];
    nd_philox_block(c->seed, c->offset + (uint64_t)j, w);
    uint64_t k[2];
    const int epb = c->epb;
    if (epb == 1) {
        uint64_t xh = (uint64_t)w[0] << 32 | w[1], xl = (uint64_t)w[2] << 32 | w[3];
        uint64_t lo = xh * c->ispan, mid = nd_philox_mulhi64(xl, c->ispan);
        k[0] = nd_philox_mulhi64(xh, c->ispan) + (lo + mid < lo);
        k[1] = 0;
    } else {
        k[0] = nd_philox_mulhi64((uint64_t)w[0] << 32 | w[1], c->ispan);
        k[1] = nd_philox_mulhi64((uint64_t)w[2] << 32 | w[3], c->ispan);
    }
    const int64_t first = j * epb;
    const int cnt = c->n - first < epb ? (int)(c->n - first) : epb;
    for (int l = 0; l < 2; l++) {
        if (l >= cnt) break;
        uint64_t v = (uint64_t)c->ilow + k[l];
        switch (cls) {
        case ND_PHILOX_I1: ((uint8_t *)data)[first + l] = (uint8_t)v; break;
        case ND_PHILOX_I2: ((uint16_t *)data)[first + l] = (uint16_t)v; break;
        case ND_PHILOX_I4: ((uint32_t *)data)[first + l] = (uint32_t)v; break;
        default: ((uint64_t *)data)[first + l] = v; break;
        }
    }
}

/* THE PER-BLOCK WORK, shared by the CPU loop and the CUDA kernel: block j
 * of the call (0 <= j < nd_philox_num_blocks(c->n, cls)), i.e. stream
 * block c->offset + j (mod 2^64), -> values -> rounding to the dtype ->
 * clamp -> store of elements [j E, min(j E + E, n)) of the contiguous
 * array at data (the last block of the call may be partial and writes
 * only the remaining elements). cls and dist are separate arguments so
 * that the kernel can pass compile-time constants. */
ND_HOSTDEV static inline void nd_philox_fill_block(const nd_philox_call *c, int cls, int dist, void *data, int64_t j)
{
    uint32_t w[4];
    double v[4];
    nd_philox_block(c->seed, c->offset + (uint64_t)j, w);
    nd_philox_values(w, cls, dist, c->p0, c->p1, v);
    const int epb = nd_philox_per_block(cls);
    const int64_t first = j * epb;
    const int cnt = c->n - first < epb ? (int)(c->n - first) : epb;
    const nd_philox_clamp *k = &c->clamp;
    if (cls == ND_PHILOX_F64) {
        double x[2];
        for (int l = 0; l < 2; l++) {
            x[l] = v[l];
            if (k->use) x[l] = x[l] >= k->high ? k->hi_cap : x[l] < k->low ? k->lo_cap : x[l];
        }
        double *o = (double *)data + first;
#if defined(__CUDA_ARCH__)
        if (cnt == 2 && ((uintptr_t)o & 15u) == 0) {
            *(double2 *)o = make_double2(x[0], x[1]);
            return;
        }
#endif
        for (int l = 0; l < 2; l++) /* constant trip count: x stays in registers */
            if (l < cnt) o[l] = x[l];
    } else if (cls == ND_PHILOX_F32) {
        float x[4];
        for (int l = 0; l < 4; l++) {
            x[l] = (float)v[l];
            if (k->use) {
                if ((double)x[l] >= k->high) x[l] = (float)k->hi_cap;
                else if ((double)x[l] < k->low) x[l] = (float)k->lo_cap;
            }
        }
        float *o = (float *)data + first;
#if defined(__CUDA_ARCH__)
        if (cnt == 4 && ((uintptr_t)o & 15u) == 0) {
            *(float4 *)o = make_float4(x[0], x[1], x[2], x[3]);
            return;
        }
#endif
        for (int l = 0; l < 4; l++)
            if (l < cnt) o[l] = x[l];
    } else {
        uint16_t x[4];
        for (int l = 0; l < 4; l++) {
            x[l] = nd_philox_round_half(v[l], cls);
            if (k->use) {
                double h = nd_philox_half_value(x[l], cls);
                if (h >= k->high) x[l] = k->hi_bits;
                else if (h < k->low) x[l] = k->lo_bits;
            }
        }
        uint16_t *o = (uint16_t *)data + first;
#if defined(__CUDA_ARCH__)
        if (cnt == 4 && ((uintptr_t)o & 7u) == 0) {
            *(uint2 *)o = make_uint2((uint32_t)x[0] | (uint32_t)x[1] << 16, (uint32_t)x[2] | (uint32_t)x[3] << 16);
            return;
        }
#endif
        for (int l = 0; l < 4; l++)
            if (l < cnt) o[l] = x[l];
    }
}

/* The kernel's thread -> block mapping (a grid-stride loop): thread tid
 * of nthreads fills blocks tid, tid + nthreads, ... below nblocks. The
 * tests run it on the host for every thread of a launch. */
#define ND_PHILOX_THREADS 256 /* threads per CUDA block */
ND_HOSTDEV static inline void nd_philox_thread_fill(const nd_philox_call *c, int cls, int dist, void *data,
                                                    int64_t nblocks, int64_t tid, int64_t nthreads)
{
    for (int64_t j = tid; j < nblocks; j += nthreads) {
        if (dist == ND_RANDOM_INTEGERS) nd_philox_fill_block_int(c, cls, data, j);
        else nd_philox_fill_block(c, cls, dist, data, j);
    }
}
/* CUDA blocks of ND_PHILOX_THREADS threads for nblocks Philox blocks: one
 * thread per Philox block up to 2^20 CUDA blocks, grid-stride beyond. */
ND_HOSTDEV static inline unsigned nd_philox_grid(int64_t nblocks)
{
    int64_t g = (nblocks + ND_PHILOX_THREADS - 1) / ND_PHILOX_THREADS;
    if (g > ((int64_t)1 << 20)) g = (int64_t)1 << 20;
    return (unsigned)(g > 0 ? g : 1);
}

/* ------------------------------------------------------------------ */
/* Host-only: the clamp of a call (nextafter is not a device function)  */
/* ------------------------------------------------------------------ */

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

/* The description of a call as the backends receive it (nd_backend.random:
 * p0, p1 = low, high for uniform, mean, stddev for normal). */
static inline nd_philox_call nd_philox_call_init(int cls, int dist, uint64_t seed, uint64_t offset, int64_t n,
                                                 double p0, double p1)
{
    nd_philox_call c;
    memset(&c, 0, sizeof c);
    c.seed = seed;
    c.offset = offset;
    c.n = n;
    c.p0 = p0;
    c.epb = cls >= ND_PHILOX_I1 ? 2 : nd_philox_per_block(cls);
    if (dist == ND_RANDOM_INTEGERS) {
        /* integers: nd_philox_call_init_int below */
    } else if (dist == ND_RANDOM_UNIFORM) {
        c.p1 = p1 - p0;
        c.clamp = nd_philox_uniform_clamp(cls, p0, p1);
    } else {
        c.p1 = p1;
    }
    return c;
}

/* The description of an integer call: values in [low, low + span). */
static inline nd_philox_call nd_philox_call_init_int(uint64_t seed, uint64_t offset, int64_t n, int64_t low,
                                                     uint64_t span)
{
    nd_philox_call c = nd_philox_call_init(ND_PHILOX_I8, ND_RANDOM_INTEGERS, seed, offset, n, 0.0, 0.0);
    c.ilow = low;
    c.ispan = span;
    c.epb = span > ((uint64_t)1 << 32) ? 1 : 2;
    return c;
}

#endif /* ND_PHILOX_H */
