/* Private to the FFT engine (src/cpu/fft_core.c: plans, cache, twiddles;
 * src/cpu/fft_exec.c: execution; src/cpu/fft_kernels.c + fft_tmpl.h: the
 * per-precision, per-ISA loops). See src/cpu/fft_core.h for the contract.
 *
 * Layout of the work buffers ("lane" buffers): L transforms side by side,
 * element j of lane l at complex index j * L + l. A Stockham stage then
 * reads and writes runs of s * L contiguous complex values that share one
 * twiddle, so every stage vectorises across lanes (and across the
 * stride s of the later stages), whatever its radix. */
#ifndef ND_CPU_FFT_IMPL_H
#define ND_CPU_FFT_IMPL_H

#include "cpu/fft_core.h"
#include "cpu/isa.h"

#define FFT_MAXST 64   /* stages of one direct engine (2^63 has 63 factors) */
#define FFT_MAXRAD 61  /* largest prime radix; a larger prime factor: Bluestein */

/* A direct (Stockham, mixed radix) engine for a smooth length n: stage i
 * has radix rad[i], sub-length len_i = n / (rad[0] ... rad[i-1]), m_i =
 * len_i / rad[i] groups, and twiddles w[p][k-1] = exp(-2 pi i p k /
 * len_i) (p < m_i, 1 <= k < rad[i]) at complex offset twoff[i] of tw; a
 * generic (odd prime > 5) radix r keeps exp(-2 pi i e / r), e < r, right
 * after them. tw holds T = float or double. */
typedef struct fft_direct {
    int64_t n;
    int nst;
    int rad[FFT_MAXST];
    int64_t twoff[FFT_MAXST];
    void *tw;
} fft_direct;

/* Flags of the data-movement kernels. */
enum {
    FFT_CONJ = 1,     /* conjugate (gather: the values read; scatter: the values written) */
    FFT_REAL = 2,     /* real data: gather reads imaginary parts as 0, scatter writes only real parts */
    FFT_CONJ_IN = 4,  /* cmul_rows: conjugate the buffer before the product */
    FFT_CONJ_OUT = 8, /* cmul_rows: conjugate the product */
};

/* The loops, one table per (precision, ISA). Strides (sj, sl, imoff) are
 * in units of T (float/double). void * buffers hold T. */
typedef struct fft_kern {
    /* Run all stages of d on the lane buffer x (n x L); y is scratch of
     * the same size; returns x or y, whichever holds the result. */
    void *(*run)(const fft_direct *d, void *x, void *y, int64_t L);
    /* dst[j * L + l] = src[j * sj + l * sl] (+ i src[... + imoff]), j < rows. */
    void (*gather)(void *dst, const void *src, int64_t rows, int64_t L, int64_t sj, int64_t sl, int64_t imoff, int flags);
    /* dst[j * sj + l * sl] (+ imoff) = scale * src[j * L + l], j < rows. */
    void (*scatter)(void *dst, const void *src, int64_t rows, int64_t L, int64_t sj, int64_t sl, int64_t imoff,
                    int flags, double scale);
    /* buf[j * L + l] = buf[j * L + l] * w[j], j < rows (CONJ_IN, CONJ_OUT). */
    void (*cmul_rows)(void *buf, int64_t rows, int64_t L, const void *w, int flags);
    /* Four-step twiddle + transpose: Z[l * n1 + k1] = R[k1 * Lb + l] *
     * tb[k1] * tl[k1 * B + l], k1 < n1, l < Lb (Z points at row j2b). */
    void (*fourstep_tw)(void *Z, const void *R, int64_t n1, int64_t Lb, const void *tb, const void *tl, int64_t B);
    /* Real-transform pre/post passes over pairs (k, h - k), k in [k0, k1)
     * (1 <= k0, k1 <= h / 2 + 1; k = 0 also handles X[h]). Element k of
     * lane l at k * sk + l * sl (T units) in each buffer; in == out
     * allowed (same layout).
     * r2c_post: Z (h values) -> X (h + 1 values) times scale;
     * c2r_pre:  X (h + 1 values) -> conj(Z) (h values), so that a forward
     * transform of it gives conj(x[2j] + i x[2j + 1]) * n. */
    void (*r2c_post)(const void *Z, int64_t zk, int64_t zl, void *X, int64_t xk, int64_t xl, int64_t h, int64_t L,
                     int64_t k0, int64_t k1, const void *w, double scale);
    void (*c2r_pre)(const void *X, int64_t xk, int64_t xl, void *Z, int64_t zk, int64_t zl, int64_t h, int64_t L,
                    int64_t k0, int64_t k1, const void *w);
    /* Odd-length c2r: buf rows 0 .. (n-1)/2 hold X (lane layout); fill all
     * n rows with conj of the Hermitian extension (imag of X[0] ignored). */
    void (*herm_fill)(void *buf, int64_t n, int64_t L);
} fft_kern;

/* The table for the path nd__cpu_isa() chose (fft_kernels.c). */
ND_INTERNAL const fft_kern *nd__fft_kern(bool dbl);

/* ------------------------------------------------------------------ */
/* Engines (fft_core.c)                                                */
/* ------------------------------------------------------------------ */
/* The complex engine of one length. */
typedef enum { FFT_DIRECT, FFT_FOURSTEP, FFT_BLUESTEIN } fft_kind;

/* Block width (transforms per gathered block) of the four-step passes. */
#define FFT_FS_B 16

typedef struct fft_eng fft_eng;
struct fft_eng {
    int64_t n;
    bool dbl;
    fft_kind kind;
    fft_direct *d;        /* n's direct engine (DIRECT; FOURSTEP when n <= FFT_DIRECT_MAX) */
    /* FOURSTEP: n = n1 * n2; column transforms of length n1, then rows of n2 */
    int64_t n1, n2;
    fft_direct *d1, *d2;
    void *tb;             /* [ceil(n2 / B)][n1]: exp(-2 pi i (b B) k1 / n) */
    void *tl;             /* [n1][B]: exp(-2 pi i l k1 / n) */
    /* BLUESTEIN: m >= 2n - 1 smooth */
    int64_t m;
    fft_eng *sub;         /* the engine of length m */
    void *chirp;          /* n values exp(-pi i j^2 / n) */
    void *kern;           /* m values: FFT_m(conj chirp, wrapped) / m */
};

/* Lengths at or below which a direct engine exists (the lane path); at or
 * above which a single transform takes the four-step path (measured on
 * Zen 4, one thread: four-step 1.15x faster at 1024, 1.7x at 4096; equal
 * at 256); below which a Bluestein convolution of one transform stays on
 * the lane path (its pointwise passes fused; 1.25x faster at m = 540,
 * equal at m = 2025). */
#define FFT_DIRECT_MAX 16384
#define FFT_FOURSTEP_MIN 512
#define FFT_BLUESTEIN_LANES_MAX 2048

ND_INTERNAL fft_eng *nd__fft_eng_create(int64_t n, bool dbl);
ND_INTERNAL void nd__fft_eng_destroy(fft_eng *e);
/* Forward transform of buf (n complex double, contiguous) in place, by
 * the double engine e (fft_exec.c; plan building uses it). */
ND_INTERNAL bool nd__fft_eng_fwd_inplace_d(const fft_eng *e, double *buf);
/* Twiddles exp(-2 pi i e / N), e in [0, count), into T (dbl: double). */
ND_INTERNAL bool nd__fft_twiddles(void *dst, bool dbl, int64_t N, int64_t count, int64_t step);

/* The real-transform part of a plan of even length n: the complex engine
 * of h = n / 2 and exp(-2 pi i k / n), k <= h / 2. */
typedef struct fft_real {
    fft_eng *half;
    void *w;
} fft_real;

struct nd_fft_plan {
    int64_t n;
    bool dbl;
    /* cache bookkeeping (under the cache mutex) */
    long refs;
    uint64_t used;
    bool cached;
    /* built on first use */
    _Atomic(fft_eng *) c;
    _Atomic(fft_real *) r;
};

/* The plan's parts, built on first use (NULL: out of memory). */
ND_INTERNAL fft_eng *nd__fft_plan_complex(nd_fft_plan *p);
ND_INTERNAL fft_real *nd__fft_plan_real(nd_fft_plan *p);

/* The transforms of fft_core.h's nd__fft_c2c, nd__fft_r2c, nd__fft_c2r on
 * the engine the plan cache gave them (fft_exec.c, below the cache: e is
 * nd__fft_plan_complex(p), or for an even-length real transform r is
 * nd__fft_plan_real(p) and e its half-length engine); howmany > 0. */
ND_INTERNAL bool nd__fft_exec_c2c(const nd_fft_plan *p, fft_eng *e, int sign, int64_t howmany, const void *in,
                                  int64_t istride, int64_t idist, void *out, int64_t ostride, int64_t odist, double scale);
ND_INTERNAL bool nd__fft_exec_r2c(const nd_fft_plan *p, fft_real *r, fft_eng *e, int64_t howmany, const void *in,
                                  int64_t istride, int64_t idist, void *out, int64_t ostride, int64_t odist, double scale);
ND_INTERNAL bool nd__fft_exec_c2r(const nd_fft_plan *p, fft_real *r, fft_eng *e, int64_t howmany, const void *in,
                                  int64_t istride, int64_t idist, void *out, int64_t ostride, int64_t odist, double scale);

#endif
