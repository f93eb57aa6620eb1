/* Executing FFT plans (the contract: src/cpu/fft_core.h; the engines:
 * fft_core.c; the loops: fft_kernels.c).
 *
 * Every transform is computed as a forward one: a backward transform is
 * conj(forward(conj(x))), the conjugations folded into the gathers and
 * scatters, so each loop exists once.
 *
 * Two paths:
 *  - lanes: a block of bw transforms is gathered into a lane buffer
 *    (element j of transform l at j * bw + l), transformed there by the
 *    direct engine's stages (vectorised across the block) and scattered
 *    to the output; blocks are spread over the threads. Used when the
 *    engine has a direct form and the transforms are short or many (the
 *    rows and the columns of a 2-D transform take this path; a column
 *    block gathers bw adjacent columns, one contiguous run per row).
 *  - single: one long transform at a time, four-step (both passes spread
 *    over the threads) or Bluestein (its convolution transforms four-step
 *    themselves).
 * Real transforms of even n run as a complex transform of n/2 with a
 * pre/post pass; of odd n as a complex transform of n. */
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/fft_impl.h"

/* A strided complex (or real) sequence: element j at p + j * sj units of
 * T, its imaginary part imoff units further (FFT_REAL: none). */
typedef struct {
    char *p;
    int64_t sj, imoff;
    int flags;
} xview;

#define OFF(p, units, tsz) ((char *)(p) + (ptrdiff_t)(units) * (ptrdiff_t)(tsz))

static void *scratch(int64_t count, size_t csz)
{
    return nd__aligned_alloc(64, (size_t)(count > 0 ? count : 1) * csz);
}

static inline int ilog2(int64_t n)
{
    int k = 1;
    while (n > 1) {
        n >>= 1;
        k++;
    }
    return k;
}

static inline int64_t eng_rows(const fft_eng *e) { return e->kind == FFT_BLUESTEIN ? e->m : e->n; }
static inline const fft_direct *eng_direct(const fft_eng *e) { return e->kind == FFT_BLUESTEIN ? e->sub->d : e->d; }

/* ------------------------------------------------------------------ */
/* The lane path                                                       */
/* ------------------------------------------------------------------ */
/* Forward transforms of the L lanes of A (e->n rows); both buffers have
 * eng_rows(e) rows; returns A or B, whichever holds the result. */
static void *lanes_fwd(const fft_kern *K, const fft_eng *e, void *A, void *B, int64_t L, size_t csz)
{
    if (e->kind != FFT_BLUESTEIN) return K->run(e->d, A, B, L);
    const int64_t n = e->n, m = e->m;
    memset((char *)A + (size_t)(n * L) * csz, 0, (size_t)((m - n) * L) * csz);
    K->cmul_rows(A, n, L, e->chirp, 0);
    void *R = K->run(e->sub->d, A, B, L);
    K->cmul_rows(R, m, L, e->kern, FFT_CONJ_OUT); /* conj: the inverse as a forward transform */
    R = K->run(e->sub->d, R, R == A ? B : A, L);
    K->cmul_rows(R, n, L, e->chirp, FFT_CONJ_IN);
    return R;
}

enum { M_C2C, M_R2C_EVEN, M_R2C_ODD, M_C2R_EVEN, M_C2R_ODD };

typedef struct {
    const fft_kern *K;
    const fft_eng *e; /* the complex engine (length n/2 for even real transforms) */
    const void *w;    /* even real transforms: exp(-2 pi i k / n), k <= n/4 */
    int mode, cflags;
    int64_t n, howmany, bw, rows;
    const char *in;
    char *out;
    int64_t is, idist, os, odist; /* in the data's own units */
    double scale;
    size_t tsz;
    atomic_bool fail;
} lanes_job;

static void lanes_block(lanes_job *j, int64_t blk, void *A, void *B)
{
    const fft_kern *K = j->K;
    const size_t tsz = j->tsz, csz = 2 * tsz;
    const int64_t t0 = blk * j->bw, L = j->howmany - t0 < j->bw ? j->howmany - t0 : j->bw;
    const int64_t n = j->n, h = n / 2, is = j->is, os = j->os, id = j->idist, od = j->odist;
    void *R;
    switch (j->mode) {
    case M_C2C:
        K->gather(A, OFF(j->in, 2 * t0 * id, tsz), n, L, 2 * is, 2 * id, 1, j->cflags);
        R = lanes_fwd(K, j->e, A, B, L, csz);
        K->scatter(OFF(j->out, 2 * t0 * od, tsz), R, n, L, 2 * os, 2 * od, 1, j->cflags, j->scale);
        break;
    case M_R2C_EVEN:
        K->gather(A, OFF(j->in, t0 * id, tsz), h, L, 2 * is, id, is, 0);
        R = lanes_fwd(K, j->e, A, B, L, csz);
        K->r2c_post(R, 2 * L, 2, R, 2 * L, 2, h, L, 0, h / 2 + 1, j->w, 1.0);
        K->scatter(OFF(j->out, 2 * t0 * od, tsz), R, h + 1, L, 2 * os, 2 * od, 1, 0, j->scale);
        break;
    case M_R2C_ODD:
        K->gather(A, OFF(j->in, t0 * id, tsz), n, L, is, id, 0, FFT_REAL);
        R = lanes_fwd(K, j->e, A, B, L, csz);
        K->scatter(OFF(j->out, 2 * t0 * od, tsz), R, h + 1, L, 2 * os, 2 * od, 1, 0, j->scale);
        break;
    case M_C2R_EVEN:
        K->gather(A, OFF(j->in, 2 * t0 * id, tsz), h + 1, L, 2 * is, 2 * id, 1, 0);
        K->c2r_pre(A, 2 * L, 2, B, 2 * L, 2, h, L, 0, h / 2 + 1, j->w);
        R = lanes_fwd(K, j->e, B, A, L, csz);
        K->scatter(OFF(j->out, t0 * od, tsz), R, h, L, 2 * os, od, os, FFT_CONJ, j->scale);
        break;
    default: /* M_C2R_ODD */
        K->gather(A, OFF(j->in, 2 * t0 * id, tsz), (n + 1) / 2, L, 2 * is, 2 * id, 1, 0);
        K->herm_fill(A, n, L);
        R = lanes_fwd(K, j->e, A, B, L, csz);
        K->scatter(OFF(j->out, t0 * od, tsz), R, n, L, os, od, 0, FFT_REAL, j->scale);
        break;
    }
}

static void lanes_body(void *ctx, int64_t b0, int64_t b1)
{
    lanes_job *j = ctx;
    const size_t csz = 2 * j->tsz;
    void *A = scratch(j->rows * j->bw, csz), *B = scratch(j->rows * j->bw, csz);
    if (!A || !B) atomic_store(&j->fail, true);
    else
        for (int64_t b = b0; b < b1; b++) lanes_block(j, b, A, B);
    nd__free(A);
    nd__free(B);
}

/* Whether the lane path suits howmany transforms of engine e: short
 * transforms always; longer ones when there are several (blocks of them
 * keep the threads busy without the four-step's extra pass) and the
 * length has a direct engine. */
static bool lanes_ok(const fft_eng *e, int64_t howmany)
{
    if (e->kind == FFT_DIRECT) return true;
    if (!eng_direct(e)) return false;
    if (howmany >= 4) return true;
    return e->kind == FFT_BLUESTEIN && e->m < FFT_BLUESTEIN_LANES_MAX;
}

/* Transforms per block. Row-like layouts (each transform contiguous, the
 * block gathered by a transposing copy): buffers of ~128 KiB, at least 8
 * lanes (a vector of float32 complex values). Column-like layouts (the
 * transforms adjacent, dist 1: a block is a run of bw values per row,
 * rows far apart): ~1 MiB, so that each row visit moves several cache
 * lines (on Zen 4 the column pass of a 4096 x 4096 complex64 array took
 * 59, 49 and 42 ms on one thread with 128 KiB, 512 KiB and 1 MiB).
 * Then blocks enough to keep every thread busy. */
static int64_t pick_bw(int64_t rows, int64_t howmany, size_t csz, bool adjacent)
{
    int64_t bw = (int64_t)((adjacent ? (size_t)1 << 20 : (size_t)128 << 10) / ((size_t)rows * csz));
    if (bw < 8) bw = 8;
    if (bw > 256) bw = 256;
    const int64_t nt = nd__num_threads();
    if (nt > 1 && howmany < 2 * nt * bw) {
        int64_t b = (howmany + 2 * nt - 1) / (2 * nt);
        b = (b + 7) / 8 * 8;
        if (b < bw) bw = b;
    }
    if (bw > howmany) bw = howmany;
    return bw;
}

static bool run_lanes(lanes_job *j)
{
    const size_t csz = 2 * j->tsz;
    int64_t rows = eng_rows(j->e);
    if (j->mode == M_R2C_EVEN || j->mode == M_C2R_EVEN) rows = rows > j->n / 2 + 1 ? rows : j->n / 2 + 1;
    j->rows = rows;
    j->bw = pick_bw(rows, j->howmany, csz, j->idist == 1 || j->idist == -1 || j->odist == 1 || j->odist == -1);
    atomic_init(&j->fail, false);
    const int64_t nblk = (j->howmany + j->bw - 1) / j->bw;
    const int64_t cost = j->bw * rows * ilog2(rows) * (j->e->kind == FFT_BLUESTEIN ? 3 : 1);
    nd__parallel_for(nblk, cost, lanes_body, j);
    return !atomic_load(&j->fail);
}

/* ------------------------------------------------------------------ */
/* The single path                                                     */
/* ------------------------------------------------------------------ */
typedef struct {
    const fft_kern *K;
    const fft_eng *e;
    xview in, out;
    char *Z;
    double scale;
    size_t tsz;
    atomic_bool fail;
} fs_job;

/* columns j2 of x (n1 x n2): transform, twiddle, store transposed in Z */
static void fs_pass1(void *ctx, int64_t b0, int64_t b1)
{
    fs_job *j = ctx;
    const fft_eng *e = j->e;
    const int64_t n1 = e->n1, n2 = e->n2, B = FFT_FS_B;
    const size_t tsz = j->tsz, csz = 2 * tsz;
    void *A = scratch(n1 * B, csz), *Bf = scratch(n1 * B, csz);
    if (!A || !Bf) atomic_store(&j->fail, true);
    else
        for (int64_t b = b0; b < b1; b++) {
            const int64_t j2b = b * B, Lb = n2 - j2b < B ? n2 - j2b : B;
            j->K->gather(A, OFF(j->in.p, j2b * j->in.sj, tsz), n1, Lb, n2 * j->in.sj, j->in.sj, j->in.imoff,
                         j->in.flags);
            void *R = j->K->run(e->d1, A, Bf, Lb);
            j->K->fourstep_tw(j->Z + (size_t)(j2b * n1) * csz, R, n1, Lb, (char *)e->tb + (size_t)(b * n1) * csz,
                              e->tl, B);
        }
    nd__free(A);
    nd__free(Bf);
}

/* columns k1 of Z (n2 x n1): transform, store to out[k1 + n1 k2] */
static void fs_pass2(void *ctx, int64_t c0, int64_t c1)
{
    fs_job *j = ctx;
    const fft_eng *e = j->e;
    const int64_t n1 = e->n1, n2 = e->n2, B = FFT_FS_B;
    const size_t tsz = j->tsz, csz = 2 * tsz;
    void *A = scratch(n2 * B, csz), *Bf = scratch(n2 * B, csz);
    if (!A || !Bf) atomic_store(&j->fail, true);
    else
        for (int64_t c = c0; c < c1; c++) {
            const int64_t k1b = c * B, Lc = n1 - k1b < B ? n1 - k1b : B;
            j->K->gather(A, j->Z + (size_t)k1b * csz, n2, Lc, 2 * n1, 2, 1, 0);
            void *R = j->K->run(e->d2, A, Bf, Lc);
            j->K->scatter(OFF(j->out.p, k1b * j->out.sj, tsz), R, n2, Lc, n1 * j->out.sj, j->out.sj, j->out.imoff,
                          j->out.flags, j->scale);
        }
    nd__free(A);
    nd__free(Bf);
}

static bool single_fwd(const fft_kern *K, const fft_eng *e, const xview *in, const xview *out, double scale,
                       bool alias);

static bool fourstep(const fft_kern *K, const fft_eng *e, const xview *in, const xview *out, double scale, bool alias)
{
    const size_t tsz = e->dbl ? sizeof(double) : sizeof(float), csz = 2 * tsz;
    fs_job j = {.K = K, .e = e, .in = *in, .out = *out, .scale = scale, .tsz = tsz};
    atomic_init(&j.fail, false);
    char *own = NULL;
    if (!alias && out->sj == 2 && out->imoff == 1 && !(out->flags & FFT_REAL)) j.Z = out->p;
    else if (!(j.Z = own = scratch(e->n, csz))) return false;
    const int64_t B = FFT_FS_B;
    nd__parallel_for((e->n2 + B - 1) / B, B * e->n1 * ilog2(e->n1), fs_pass1, &j);
    if (!atomic_load(&j.fail)) nd__parallel_for((e->n1 + B - 1) / B, B * e->n2 * ilog2(e->n2), fs_pass2, &j);
    nd__free(own);
    return !atomic_load(&j.fail);
}

/* Bluestein's pointwise passes over chunks of rows */
#define BS_CHUNK 8192
typedef struct {
    const fft_kern *K;
    const fft_eng *e;
    xview in, out;
    char *buf;
    int stage;
    int64_t rows;
    double scale;
    size_t tsz;
} bs_job;

static void bs_body(void *ctx, int64_t c0, int64_t c1)
{
    bs_job *j = ctx;
    const fft_eng *e = j->e;
    const size_t tsz = j->tsz, csz = 2 * tsz;
    for (int64_t c = c0; c < c1; c++) {
        const int64_t r0 = c * BS_CHUNK, cnt = j->rows - r0 < BS_CHUNK ? j->rows - r0 : BS_CHUNK;
        char *b = j->buf + (size_t)r0 * csz;
        if (j->stage == 0) { /* buf = in * chirp, zero padded */
            const int64_t nin = e->n - r0 < 0 ? 0 : (e->n - r0 < cnt ? e->n - r0 : cnt);
            if (nin > 0) {
                j->K->gather(b, OFF(j->in.p, r0 * j->in.sj, tsz), nin, 1, j->in.sj, 0, j->in.imoff, j->in.flags);
                j->K->cmul_rows(b, nin, 1, (char *)e->chirp + (size_t)r0 * csz, 0);
            }
            if (cnt > nin) memset(b + (size_t)nin * csz, 0, (size_t)(cnt - nin) * csz);
        } else if (j->stage == 1) {
            j->K->cmul_rows(b, cnt, 1, (char *)e->kern + (size_t)r0 * csz, FFT_CONJ_OUT);
        } else {
            j->K->cmul_rows(b, cnt, 1, (char *)e->chirp + (size_t)r0 * csz, FFT_CONJ_IN);
            j->K->scatter(OFF(j->out.p, r0 * j->out.sj, tsz), b, cnt, 1, j->out.sj, 0, j->out.imoff, j->out.flags,
                          j->scale);
        }
    }
}

static bool bluestein(const fft_kern *K, const fft_eng *e, const xview *in, const xview *out, double scale)
{
    const size_t tsz = e->dbl ? sizeof(double) : sizeof(float), csz = 2 * tsz;
    bs_job j = {.K = K, .e = e, .in = *in, .out = *out, .scale = scale, .tsz = tsz};
    if (!(j.buf = scratch(e->m, csz))) return false;
    const xview bv = {j.buf, 2, 1, 0};
    bool ok = true;
    for (int stage = 0; stage < 3 && ok; stage++) {
        j.stage = stage;
        j.rows = stage == 2 ? e->n : e->m;
        nd__parallel_for((j.rows + BS_CHUNK - 1) / BS_CHUNK, BS_CHUNK * 4, bs_body, &j);
        if (stage < 2) ok = single_fwd(K, e->sub, &bv, &bv, 1.0, true);
    }
    nd__free(j.buf);
    return ok;
}

/* One forward transform of e from in to out (conjugations in the views). */
static bool single_fwd(const fft_kern *K, const fft_eng *e, const xview *in, const xview *out, double scale,
                       bool alias)
{
    if (e->kind == FFT_FOURSTEP) return fourstep(K, e, in, out, scale, alias);
    if (e->kind == FFT_BLUESTEIN) return bluestein(K, e, in, out, scale);
    const size_t csz = 2 * (e->dbl ? sizeof(double) : sizeof(float));
    void *A = scratch(e->n, csz), *B = scratch(e->n, csz);
    if (A && B) {
        K->gather(A, in->p, e->n, 1, in->sj, 0, in->imoff, in->flags);
        void *R = K->run(e->d, A, B, 1);
        K->scatter(out->p, R, e->n, 1, out->sj, 0, out->imoff, out->flags, scale);
    }
    nd__free(A);
    nd__free(B);
    return A && B;
}

bool nd__fft_eng_fwd_inplace_d(const fft_eng *e, double *buf)
{
    const xview v = {(char *)buf, 2, 1, 0};
    return single_fwd(nd__fft_kern(true), e, &v, &v, 1.0, true);
}

/* The real transforms' pre/post passes over the pairs (k, h - k), k <= h/2. */
typedef struct {
    const fft_kern *K;
    bool post;
    const char *src;
    char *dst;
    int64_t ss, ds, h;
    const void *w;
    double scale;
} rp_job;

#define RP_CHUNK 4096
static void rp_body(void *ctx, int64_t c0, int64_t c1)
{
    rp_job *j = ctx;
    const int64_t kend = j->h / 2 + 1, k0 = c0 * RP_CHUNK, k1 = c1 * RP_CHUNK < kend ? c1 * RP_CHUNK : kend;
    if (j->post) j->K->r2c_post(j->src, j->ss, 0, j->dst, j->ds, 0, j->h, 1, k0, k1, j->w, j->scale);
    else j->K->c2r_pre(j->src, j->ss, 0, j->dst, j->ds, 0, j->h, 1, k0, k1, j->w);
}

static void real_pass(const fft_kern *K, bool post, const void *src, int64_t ss, void *dst, int64_t ds, int64_t h,
                      const void *w, double scale)
{
    rp_job j = {K, post, src, dst, ss, ds, h, w, scale};
    nd__parallel_for((h / 2 + 1 + RP_CHUNK - 1) / RP_CHUNK, RP_CHUNK * 8, rp_body, &j);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */
/* Whether [a + lo_a, a + hi_a] and [b + lo_b, b + hi_b] (bytes) meet. */
static bool spans_meet(const char *a, int64_t n, int64_t sa, const char *b, int64_t sb, size_t csz)
{
    const char *alo = a + (sa < 0 ? (n - 1) * sa : 0) * (ptrdiff_t)csz, *ahi = a + (sa > 0 ? (n - 1) * sa : 0) * (ptrdiff_t)csz + csz;
    const char *blo = b + (sb < 0 ? (n - 1) * sb : 0) * (ptrdiff_t)csz, *bhi = b + (sb > 0 ? (n - 1) * sb : 0) * (ptrdiff_t)csz + csz;
    return alo < bhi && blo < ahi;
}

bool nd__fft_exec_c2c(const nd_fft_plan *p, fft_eng *e, int sign, int64_t howmany, const void *in, int64_t istride, int64_t idist, void *out,
                 int64_t ostride, int64_t odist, double scale)
{
    const fft_kern *K = nd__fft_kern(p->dbl);
    const size_t tsz = p->dbl ? sizeof(double) : sizeof(float);
    const int cf = sign > 0 ? FFT_CONJ : 0;
    if (lanes_ok(e, howmany)) {
        lanes_job j = {.K = K, .e = e, .mode = M_C2C, .cflags = cf, .n = p->n, .howmany = howmany, .in = in,
                       .out = out, .is = istride, .idist = idist, .os = ostride, .odist = odist, .scale = scale,
                       .tsz = tsz};
        return run_lanes(&j);
    }
    for (int64_t t = 0; t < howmany; t++) {
        const xview vi = {OFF(in, 2 * t * idist, tsz), 2 * istride, 1, cf};
        const xview vo = {OFF(out, 2 * t * odist, tsz), 2 * ostride, 1, cf};
        const bool alias = spans_meet(vi.p, p->n, istride, vo.p, ostride, 2 * tsz);
        if (!single_fwd(K, e, &vi, &vo, scale, alias)) return false;
    }
    return true;
}

bool nd__fft_exec_r2c(const nd_fft_plan *p, fft_real *r, fft_eng *e, int64_t howmany, const void *in, int64_t istride, int64_t idist, void *out,
                 int64_t ostride, int64_t odist, double scale)
{
    const int64_t n = p->n, h = n / 2;
    const bool even = n % 2 == 0;
    const fft_kern *K = nd__fft_kern(p->dbl);
    const size_t tsz = p->dbl ? sizeof(double) : sizeof(float), csz = 2 * tsz;
    if (lanes_ok(e, howmany)) {
        lanes_job j = {.K = K, .e = e, .w = even ? r->w : NULL, .mode = even ? M_R2C_EVEN : M_R2C_ODD, .n = n,
                       .howmany = howmany, .in = in, .out = out, .is = istride, .idist = idist, .os = ostride,
                       .odist = odist, .scale = scale, .tsz = tsz};
        return run_lanes(&j);
    }
    for (int64_t t = 0; t < howmany; t++) {
        char *ot = OFF(out, 2 * t * odist, tsz);
        const char *it = OFF(in, t * idist, tsz);
        if (even) {
            const xview vi = {(char *)it, 2 * istride, istride, 0}, vo = {ot, 2 * ostride, 1, 0};
            if (!single_fwd(K, e, &vi, &vo, 1.0, false)) return false;
            real_pass(K, true, ot, 2 * ostride, ot, 2 * ostride, h, r->w, scale);
        } else {
            char *buf = scratch(n, csz);
            if (!buf) return false;
            const xview vi = {(char *)it, istride, 0, FFT_REAL}, vb = {buf, 2, 1, 0};
            bool ok = single_fwd(K, e, &vi, &vb, 1.0, false);
            if (ok) K->scatter(ot, buf, h + 1, 1, 2 * ostride, 0, 1, 0, scale);
            nd__free(buf);
            if (!ok) return false;
        }
    }
    return true;
}

bool nd__fft_exec_c2r(const nd_fft_plan *p, fft_real *r, fft_eng *e, int64_t howmany, const void *in, int64_t istride, int64_t idist, void *out,
                 int64_t ostride, int64_t odist, double scale)
{
    const int64_t n = p->n, h = n / 2;
    const bool even = n % 2 == 0;
    const fft_kern *K = nd__fft_kern(p->dbl);
    const size_t tsz = p->dbl ? sizeof(double) : sizeof(float), csz = 2 * tsz;
    if (lanes_ok(e, howmany)) {
        lanes_job j = {.K = K, .e = e, .w = even ? r->w : NULL, .mode = even ? M_C2R_EVEN : M_C2R_ODD, .n = n,
                       .howmany = howmany, .in = in, .out = out, .is = istride, .idist = idist, .os = ostride,
                       .odist = odist, .scale = scale, .tsz = tsz};
        return run_lanes(&j);
    }
    for (int64_t t = 0; t < howmany; t++) {
        const char *it = OFF(in, 2 * t * idist, tsz);
        char *ot = OFF(out, t * odist, tsz);
        char *buf = scratch(even ? h : n, csz);
        if (!buf) return false;
        const xview vb = {buf, 2, 1, 0};
        bool ok;
        if (even) {
            real_pass(K, false, it, 2 * istride, buf, 2, h, r->w, 1.0);
            const xview vo = {ot, 2 * ostride, ostride, FFT_CONJ};
            ok = single_fwd(K, e, &vb, &vo, scale, false);
        } else {
            K->gather(buf, it, (n + 1) / 2, 1, 2 * istride, 0, 1, 0);
            K->herm_fill(buf, n, 1);
            const xview vo = {ot, ostride, 0, FFT_REAL};
            ok = single_fwd(K, e, &vb, &vo, scale, false);
        }
        nd__free(buf);
        if (!ok) return false;
    }
    return true;
}
