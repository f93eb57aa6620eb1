/* The CPU backend's fft slot (contract in src/core/fft_slot.h and
 * src/core/backend.h) over the library's own engine (src/cpu/fft_core.h).
 *
 * The batch (every axis but the transformed one) is folded as
 * nd__fft_geom describes: the innermost merged batch axis becomes the
 * engine's howmany with its distances, the outer ones are loops. The
 * engine threads a batched call itself (blocks of transforms, or the
 * passes of one long transform), so the outer loop runs on the calling
 * thread when it is short; when it has at least as many iterations as
 * there are threads it is spread over them instead (the engine calls
 * then run inline on each worker: nested parallel_for is inline).
 *
 * The engine's own forms are c2c with either sign, r2c forward and c2r
 * backward. The other signs of the real transforms follow from them:
 *  - r2c with sign +1 (ihfft) is the conjugate of the forward r2c of the
 *    same real input: one pass negating the imaginary parts of out;
 *  - c2r with sign -1 (hfft) is the backward c2r read backwards:
 *    y_-[j] = y_+[(n - j) mod n], one pass reversing out[1 .. n-1] of
 *    every transform in place.
 * Both passes run over out after the engine, threaded like the loop. */
#include <stdatomic.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/fft_core.h"
#include "core/fft_slot.h"

typedef struct {
    const nd_fft_geom *g;
    nd_fft_plan *p;
    int kind, sign;
    double scale;
    int64_t howmany, idist, odist; /* the innermost batch axis (1, 0, 0 without one) */
    const char *in;
    char *out;
    size_t isz, osz; /* element sizes of in and out */
    atomic_bool fail;
} cpu_fft_job;

static bool run_one(cpu_fft_job *j, int64_t t)
{
    int64_t io = 0, oo = 0;
    nd__fft_outer_offsets(j->g, t, &io, &oo);
    const char *in = j->in + (ptrdiff_t)io * (ptrdiff_t)j->isz;
    char *out = j->out + (ptrdiff_t)oo * (ptrdiff_t)j->osz;
    const nd_fft_geom *g = j->g;
    switch (j->kind) {
    case ND_FFT_C2C: return nd__fft_c2c(j->p, j->sign, j->howmany, in, g->is, j->idist, out, g->os, j->odist, j->scale);
    case ND_FFT_R2C: return nd__fft_r2c(j->p, j->howmany, in, g->is, j->idist, out, g->os, j->odist, j->scale);
    default: return nd__fft_c2r(j->p, j->howmany, in, g->is, j->idist, out, g->os, j->odist, j->scale);
    }
}

static void outer_body(void *ctx, int64_t b, int64_t e)
{
    cpu_fft_job *j = ctx;
    for (int64_t t = b; t < e && !atomic_load_explicit(&j->fail, memory_order_relaxed); t++)
        if (!run_one(j, t)) atomic_store(&j->fail, true);
}

/* The post passes on transform t (< batch) of out: conjugate (r2c, sign
 * +1) or reverse elements 1 .. n-1 (c2r, sign -1). */
static void post_one(cpu_fft_job *j, int64_t t)
{
    int64_t io = 0, oo = 0;
    nd__fft_outer_offsets(j->g, t / j->howmany, &io, &oo);
    const nd_fft_geom *g = j->g;
    const int64_t n = g->nout;
    char *row = j->out + (ptrdiff_t)(oo + (t % j->howmany) * j->odist) * (ptrdiff_t)j->osz;
    if (j->kind == ND_FFT_R2C) { /* negate the imaginary parts */
        for (int64_t k = 0; k < n; k++) {
            char *el = row + (ptrdiff_t)(k * g->os) * (ptrdiff_t)j->osz;
            if (j->osz == 16) {
                double v;
                memcpy(&v, el + 8, 8);
                v = -v;
                memcpy(el + 8, &v, 8);
            } else {
                float v;
                memcpy(&v, el + 4, 4);
                v = -v;
                memcpy(el + 4, &v, 4);
            }
        }
    } else {
        for (int64_t a = 1, b = n - 1; a < b; a++, b--) {
            char *pa = row + (ptrdiff_t)(a * g->os) * (ptrdiff_t)j->osz;
            char *pb = row + (ptrdiff_t)(b * g->os) * (ptrdiff_t)j->osz;
            char tmp[8];
            memcpy(tmp, pa, j->osz);
            memcpy(pa, pb, j->osz);
            memcpy(pb, tmp, j->osz);
        }
    }
}

static void post_body(void *ctx, int64_t b, int64_t e)
{
    cpu_fft_job *j = ctx;
    for (int64_t t = b; t < e; t++) post_one(j, t);
}

nd_status nd__cpu_fft(nd_array *out, const nd_array *in, int axis, int64_t n, int kind, int sign, double scale)
{
    nd_fft_geom g;
    nd__fft_geom(&g, out, in, axis);
    if (g.batch == 0) return ND_OK;
    const bool dbl = in->dtype == ND_FLOAT64 || in->dtype == ND_COMPLEX128;
    cpu_fft_job j;
    memset(&j, 0, sizeof j);
    j.g = &g;
    j.kind = kind;
    j.sign = sign;
    j.scale = scale;
    j.in = nd__ptr(in);
    j.out = nd__ptr(out);
    j.isz = nd__itemsize(in->dtype);
    j.osz = nd__itemsize(out->dtype);
    /* the engine counts real arrays' strides in real elements and complex
     * arrays' in complex elements: exactly the arrays' element strides */
    if (g.nb > 0) {
        j.howmany = g.shape[g.nb - 1];
        j.idist = g.istr[g.nb - 1];
        j.odist = g.ostr[g.nb - 1];
    } else {
        j.howmany = 1;
    }
    atomic_init(&j.fail, false);
    j.p = nd__fft_plan_get(n, dbl);
    if (!j.p) return nd__err(ND_ERR_NOMEM, "fft", "out of memory making the plan of a length-%lld transform", (long long)n);
    const int64_t outer = g.batch / j.howmany;
    const int nt = nd__num_threads();
    if (outer == 1) {
        if (!run_one(&j, 0)) atomic_store(&j.fail, true);
    } else if (outer >= nt) {
        int64_t lg = 1;
        for (int64_t m = n; m > 1; m >>= 1) lg++;
        nd__parallel_for(outer, j.howmany * n * lg, outer_body, &j);
    } else {
        outer_body(&j, 0, outer);
    }
    nd__fft_plan_release(j.p);
    if (atomic_load(&j.fail))
        return nd__err(ND_ERR_NOMEM, "fft", "out of memory (the scratch of %lld length-%lld transforms)",
                       (long long)g.batch, (long long)n);
    const bool conj = kind == ND_FFT_R2C && sign > 0, rev = kind == ND_FFT_C2R && sign < 0;
    if (conj || rev) nd__parallel_for(g.batch, g.nout, post_body, &j);
    return ND_OK;
}
