/* The FFT engine's plans: twiddle tables, the engines of each length
 * (direct Stockham, four-step, Bluestein) and the plan cache. Execution
 * is in fft_exec.c, the loops in fft_kernels.c (see fft_impl.h).
 *
 * Engines:
 *  - DIRECT: a smooth n (prime factors <= FFT_MAXRAD) up to FFT_DIRECT_MAX,
 *    as Stockham autosort stages of radix 4, 2, 3, 5 and any odd prime up
 *    to FFT_MAXRAD; used on lane buffers (several transforms side by side).
 *  - FOURSTEP: a smooth n >= FFT_FOURSTEP_MIN transformed alone: n = n1 n2
 *    (n1 ~ n2 ~ sqrt(n)), n2 column transforms of length n1, a twiddle
 *    and transpose, n1 column transforms of length n2; each pass is a set
 *    of blocks of FFT_FS_B columns spread over the threads.
 *  - BLUESTEIN: any other n, as a chirp-z convolution of smooth length
 *    m >= 2n - 1 (the smallest 2^a 3^b 5^c), with the kernel's transform
 *    computed once in double precision. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "cpu/fft_impl.h"

/* ------------------------------------------------------------------ */
/* Twiddles                                                            */
/* ------------------------------------------------------------------ */
/* exp(-2 pi i e / N) = t2[e / R] * t1[e % R] in long double: both tables
 * come from cosl/sinl of angles accurate to long double, and one product
 * adds an error far below double's eps, so the values rounded to double
 * are (nearly always) correctly rounded. */
typedef struct {
    int64_t N, R;
    long double *t1, *t2;
} twgen;

static const long double TWO_PI_L = 6.283185307179586476925286766559005768L;

static void tw_exact(int64_t e, int64_t N, long double *c, long double *s)
{
    long double a = TWO_PI_L * (long double)e / (long double)N;
    *c = cosl(a);
    *s = -sinl(a);
}

static bool twgen_init(twgen *g, int64_t N)
{
    g->N = N;
    int64_t R = (int64_t)sqrtl((long double)N);
    while (R * R < N) R++; /* ceil(sqrt(N)) */
    g->R = R;
    const int64_t n2 = N / R + 2;
    g->t1 = nd__malloc(sizeof(long double) * 2 * (size_t)R);
    g->t2 = nd__malloc(sizeof(long double) * 2 * (size_t)n2);
    if (!g->t1 || !g->t2) {
        nd__free(g->t1);
        nd__free(g->t2);
        return false;
    }
    for (int64_t a = 0; a < R; a++) tw_exact(a, N, &g->t1[2 * a], &g->t1[2 * a + 1]);
    for (int64_t b = 0; b < n2; b++) tw_exact((b * R) % N, N, &g->t2[2 * b], &g->t2[2 * b + 1]);
    return true;
}

static void twgen_free(twgen *g)
{
    nd__free(g->t1);
    nd__free(g->t2);
}

/* exp(-2 pi i e / N) for 0 <= e < N */
static inline void twgen_get(const twgen *g, int64_t e, long double *c, long double *s)
{
    const long double *x = &g->t1[2 * (e % g->R)], *y = &g->t2[2 * (e / g->R)];
    *c = x[0] * y[0] - x[1] * y[1];
    *s = x[0] * y[1] + x[1] * y[0];
}

static inline void tw_store(void *dst, bool dbl, int64_t i, long double c, long double s)
{
    if (dbl) {
        ((double *)dst)[2 * i] = (double)c;
        ((double *)dst)[2 * i + 1] = (double)s;
    } else {
        ((float *)dst)[2 * i] = (float)c;
        ((float *)dst)[2 * i + 1] = (float)s;
    }
}

static inline int64_t mulmod(int64_t a, int64_t b, int64_t n)
{
    return (int64_t)((unsigned __int128)(uint64_t)a * (uint64_t)b % (uint64_t)n);
}

bool nd__fft_twiddles(void *dst, bool dbl, int64_t N, int64_t count, int64_t step)
{
    twgen g;
    if (!twgen_init(&g, N)) return false;
    for (int64_t i = 0; i < count; i++) {
        long double c, s;
        twgen_get(&g, mulmod(i, step, N), &c, &s);
        tw_store(dst, dbl, i, c, s);
    }
    twgen_free(&g);
    return true;
}

/* ------------------------------------------------------------------ */
/* Direct engines                                                      */
/* ------------------------------------------------------------------ */
/* Prime factors of n in ascending order; returns the count (n >= 1). */
static int factorize(int64_t n, int64_t *f)
{
    int k = 0;
    for (int64_t p = 2; p * p <= n; p += (p == 2 ? 1 : 2))
        while (n % p == 0) {
            f[k++] = p;
            n /= p;
        }
    if (n > 1) f[k++] = n;
    return k;
}

static bool smooth(int64_t n)
{
    int64_t f[64];
    int k = factorize(n, f);
    return k == 0 || f[k - 1] <= FFT_MAXRAD;
}

static void direct_destroy(fft_direct *d)
{
    if (!d) return;
    nd__free(d->tw);
    nd__free(d);
}

/* The stages of a smooth n: radix 4 while 4 divides, one 2, then 3, 5 and
 * the larger primes. */
static fft_direct *direct_create(int64_t n, bool dbl)
{
    fft_direct *d = nd__calloc(1, sizeof *d);
    if (!d) return NULL;
    d->n = n;
    int64_t f[64];
    int k = factorize(n, f), twos = 0;
    for (int i = 0; i < k; i++) twos += f[i] == 2;
    for (int i = 0; i + 1 < twos; i += 2) d->rad[d->nst++] = 4;
    if (twos & 1) d->rad[d->nst++] = 2;
    for (int i = twos; i < k; i++) d->rad[d->nst++] = (int)f[i];
    /* twiddle offsets */
    int64_t len = n, total = 0;
    for (int i = 0; i < d->nst; i++) {
        const int r = d->rad[i];
        const int64_t m = len / r;
        d->twoff[i] = total;
        total += m * (r - 1) + (r > 5 ? r : 0);
        len = m;
    }
    const size_t tsz = dbl ? sizeof(double) : sizeof(float);
    d->tw = nd__malloc(2 * tsz * (size_t)(total > 0 ? total : 1));
    twgen g;
    if (!d->tw || !twgen_init(&g, n)) {
        direct_destroy(d);
        return NULL;
    }
    len = n;
    for (int i = 0; i < d->nst; i++) {
        const int r = d->rad[i];
        const int64_t m = len / r, step = n / len;
        int64_t o = d->twoff[i];
        for (int64_t p = 0; p < m; p++)
            for (int kk = 1; kk < r; kk++) {
                long double c, s;
                twgen_get(&g, step * p * kk, &c, &s);
                tw_store(d->tw, dbl, o++, c, s);
            }
        if (r > 5)
            for (int e = 0; e < r; e++) {
                long double c, s;
                twgen_get(&g, (n / r) * e, &c, &s);
                tw_store(d->tw, dbl, o++, c, s);
            }
        len = m;
    }
    twgen_free(&g);
    return d;
}

/* ------------------------------------------------------------------ */
/* Engines                                                             */
/* ------------------------------------------------------------------ */
void nd__fft_eng_destroy(fft_eng *e)
{
    if (!e) return;
    direct_destroy(e->d);
    if (e->d2 != e->d1) direct_destroy(e->d2);
    direct_destroy(e->d1);
    nd__free(e->tb);
    nd__free(e->tl);
    nd__fft_eng_destroy(e->sub);
    nd__free(e->chirp);
    nd__free(e->kern);
    nd__free(e);
}

/* n = n1 n2 with n1 <= n2 as close to sqrt(n) as the factors allow. */
static void split(int64_t n, int64_t *n1, int64_t *n2)
{
    int64_t f[64];
    int k = factorize(n, f);
    int64_t a = 1, b = 1;
    for (int i = k - 1; i >= 0; i--) {
        if (a <= b) a *= f[i];
        else b *= f[i];
    }
    *n1 = a < b ? a : b;
    *n2 = a < b ? b : a;
}

static bool fourstep_init(fft_eng *e)
{
    const int64_t n = e->n, B = FFT_FS_B;
    split(n, &e->n1, &e->n2);
    const int64_t n1 = e->n1, n2 = e->n2, nb = (n2 + B - 1) / B;
    e->d1 = direct_create(n1, e->dbl);
    e->d2 = n2 == n1 ? e->d1 : direct_create(n2, e->dbl);
    const size_t csz = 2 * (e->dbl ? sizeof(double) : sizeof(float));
    e->tb = nd__malloc(csz * (size_t)(nb * n1));
    e->tl = nd__malloc(csz * (size_t)(n1 * B));
    twgen g;
    if (!e->d1 || !e->d2 || !e->tb || !e->tl || !twgen_init(&g, n)) return false;
    for (int64_t b = 0; b < nb; b++)
        for (int64_t k1 = 0; k1 < n1; k1++) {
            long double c, s;
            twgen_get(&g, mulmod(b * B, k1, n), &c, &s);
            tw_store(e->tb, e->dbl, b * n1 + k1, c, s);
        }
    for (int64_t k1 = 0; k1 < n1; k1++)
        for (int64_t l = 0; l < B; l++) {
            long double c, s;
            twgen_get(&g, mulmod(l, k1, n), &c, &s);
            tw_store(e->tl, e->dbl, k1 * B + l, c, s);
        }
    twgen_free(&g);
    return true;
}

/* smallest 2^a 3^b 5^c >= n */
static int64_t good_size(int64_t n)
{
    int64_t best = INT64_MAX;
    for (int64_t f5 = 1; f5 < best; f5 *= 5)
        for (int64_t f35 = f5; f35 < best; f35 *= 3) {
            int64_t x = f35;
            while (x < n) x *= 2;
            if (x < best) best = x;
            if (f35 > INT64_MAX / 3) break;
        }
    return best;
}

static bool bluestein_init(fft_eng *e)
{
    const int64_t n = e->n, m = good_size(2 * n - 1);
    e->m = m;
    const size_t tsz = e->dbl ? sizeof(double) : sizeof(float);
    e->chirp = nd__malloc(2 * tsz * (size_t)n);
    e->kern = nd__malloc(2 * tsz * (size_t)m);
    double *b = nd__calloc((size_t)m, 2 * sizeof(double));
    fft_eng *ed = nd__fft_eng_create(m, true);
    twgen g;
    bool ok = e->chirp && e->kern && b && ed && twgen_init(&g, 2 * n);
    if (ok) {
        /* chirp[j] = exp(-pi i j^2 / n) = w_{2n}^{j^2 mod 2n}; kernel
         * b[j] = b[m-j] = conj chirp[j] */
        for (int64_t j = 0; j < n; j++) {
            long double c, s;
            twgen_get(&g, mulmod(j, j, 2 * n), &c, &s);
            tw_store(e->chirp, e->dbl, j, c, s);
            b[2 * j] = (double)c;
            b[2 * j + 1] = (double)-s;
            if (j > 0) {
                b[2 * (m - j)] = (double)c;
                b[2 * (m - j) + 1] = (double)-s;
            }
        }
        twgen_free(&g);
        ok = nd__fft_eng_fwd_inplace_d(ed, b);
    }
    if (ok) {
        const double inv = 1.0 / (double)m;
        for (int64_t k = 0; k < 2 * m; k++) {
            if (e->dbl) ((double *)e->kern)[k] = b[k] * inv;
            else ((float *)e->kern)[k] = (float)(b[k] * inv);
        }
        if (e->dbl) {
            e->sub = ed;
            ed = NULL;
        } else {
            e->sub = nd__fft_eng_create(m, false);
            ok = e->sub != NULL;
        }
    }
    nd__free(b);
    nd__fft_eng_destroy(ed);
    return ok;
}

fft_eng *nd__fft_eng_create(int64_t n, bool dbl)
{
    fft_eng *e = nd__calloc(1, sizeof *e);
    if (!e) return NULL;
    e->n = n;
    e->dbl = dbl;
    bool ok;
    if (!smooth(n)) {
        e->kind = FFT_BLUESTEIN;
        ok = bluestein_init(e);
    } else {
        e->kind = n >= FFT_FOURSTEP_MIN ? FFT_FOURSTEP : FFT_DIRECT;
        ok = true;
        if (n <= FFT_DIRECT_MAX) ok = (e->d = direct_create(n, dbl)) != NULL;
        if (ok && e->kind == FFT_FOURSTEP) ok = fourstep_init(e);
    }
    if (!ok) {
        nd__fft_eng_destroy(e);
        return NULL;
    }
    return e;
}

/* ------------------------------------------------------------------ */
/* Plans and their cache                                               */
/* ------------------------------------------------------------------ */
static void real_destroy(fft_real *r)
{
    if (!r) return;
    nd__fft_eng_destroy(r->half);
    nd__free(r->w);
    nd__free(r);
}

static void plan_destroy(nd_fft_plan *p)
{
    if (!p) return;
    nd__fft_eng_destroy(atomic_load(&p->c));
    real_destroy(atomic_load(&p->r));
    nd__free(p);
}

fft_eng *nd__fft_plan_complex(nd_fft_plan *p)
{
    fft_eng *e = atomic_load_explicit(&p->c, memory_order_acquire);
    if (e) return e;
    e = nd__fft_eng_create(p->n, p->dbl);
    if (!e) return NULL;
    fft_eng *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&p->c, &expected, e, memory_order_acq_rel, memory_order_acquire)) {
        nd__fft_eng_destroy(e);
        e = expected;
    }
    return e;
}

fft_real *nd__fft_plan_real(nd_fft_plan *p)
{
    fft_real *r = atomic_load_explicit(&p->r, memory_order_acquire);
    if (r) return r;
    const int64_t h = p->n / 2;
    r = nd__calloc(1, sizeof *r);
    if (!r) return NULL;
    const size_t tsz = p->dbl ? sizeof(double) : sizeof(float);
    r->half = nd__fft_eng_create(h, p->dbl);
    r->w = nd__malloc(2 * tsz * (size_t)(h / 2 + 1));
    if (!r->half || !r->w || !nd__fft_twiddles(r->w, p->dbl, p->n, h / 2 + 1, 1)) {
        real_destroy(r);
        return NULL;
    }
    fft_real *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&p->r, &expected, r, memory_order_acq_rel, memory_order_acquire)) {
        real_destroy(r);
        r = expected;
    }
    return r;
}

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static nd_fft_plan *cache[ND_FFT_CACHE];
static int ncache;
static uint64_t cache_tick;

/* under the mutex: the cached plan (n, dbl), retained, or NULL */
static nd_fft_plan *cache_find(int64_t n, bool dbl)
{
    for (int i = 0; i < ncache; i++)
        if (cache[i]->n == n && cache[i]->dbl == dbl) {
            cache[i]->refs++;
            cache[i]->used = ++cache_tick;
            return cache[i];
        }
    return NULL;
}

nd_fft_plan *nd__fft_plan_get(int64_t n, bool dbl)
{
    if (n < 1) return NULL;
    pthread_mutex_lock(&cache_mu);
    nd_fft_plan *p = cache_find(n, dbl);
    pthread_mutex_unlock(&cache_mu);
    if (p) return p;
    nd_fft_plan *np = nd__calloc(1, sizeof *np);
    if (!np) return NULL;
    np->n = n;
    np->dbl = dbl;
    np->refs = 1;
    atomic_init(&np->c, NULL);
    atomic_init(&np->r, NULL);
    nd_fft_plan *victim = NULL;
    pthread_mutex_lock(&cache_mu);
    p = cache_find(n, dbl); /* another thread may have made it meanwhile */
    if (!p) {
        p = np;
        np = NULL;
        p->used = ++cache_tick;
        if (ncache < ND_FFT_CACHE) {
            cache[ncache++] = p;
            p->cached = true;
        } else {
            /* evict the least recently used plan that nobody holds; when
             * all are held, p stays uncached (dies with its last release) */
            int slot = -1;
            for (int i = 0; i < ncache; i++)
                if (cache[i]->refs == 0 && (slot < 0 || cache[i]->used < cache[slot]->used)) slot = i;
            if (slot >= 0) {
                victim = cache[slot];
                cache[slot] = p;
                p->cached = true;
            }
        }
    }
    pthread_mutex_unlock(&cache_mu);
    nd__free(np);
    plan_destroy(victim);
    return p;
}

void nd__fft_plan_release(nd_fft_plan *p)
{
    if (!p) return;
    pthread_mutex_lock(&cache_mu);
    bool dead = --p->refs == 0 && !p->cached;
    pthread_mutex_unlock(&cache_mu);
    if (dead) plan_destroy(p);
}

int64_t nd__fft_plan_n(const nd_fft_plan *p) { return p->n; }
bool nd__fft_plan_dbl(const nd_fft_plan *p) { return p->dbl; }

void nd__fft_cache_clear(void)
{
    nd_fft_plan *dead[ND_FFT_CACHE];
    int nd = 0;
    pthread_mutex_lock(&cache_mu);
    int k = 0;
    for (int i = 0; i < ncache; i++) {
        if (cache[i]->refs == 0) dead[nd++] = cache[i];
        else cache[k++] = cache[i];
    }
    for (int i = k; i < ncache; i++) cache[i] = NULL;
    ncache = k;
    pthread_mutex_unlock(&cache_mu);
    for (int i = 0; i < nd; i++) plan_destroy(dead[i]);
}

/* ------------------------------------------------------------------ */
/* Transforms: the plan's engine from the cache, then fft_exec.c       */
/* ------------------------------------------------------------------ */
bool nd__fft_c2c(nd_fft_plan *p, int sign, int64_t howmany, const void *in, int64_t istride, int64_t idist, void *out,
                 int64_t ostride, int64_t odist, double scale)
{
    if (howmany <= 0) return true;
    fft_eng *e = nd__fft_plan_complex(p);
    return e && nd__fft_exec_c2c(p, e, sign, howmany, in, istride, idist, out, ostride, odist, scale);
}

/* A real transform of even n runs as a complex one of n/2 (the plan's
 * real form); of odd n as a complex one of n. */
static fft_eng *real_engine(nd_fft_plan *p, fft_real **r)
{
    *r = p->n % 2 == 0 ? nd__fft_plan_real(p) : NULL;
    return p->n % 2 == 0 ? (*r ? (*r)->half : NULL) : nd__fft_plan_complex(p);
}

bool nd__fft_r2c(nd_fft_plan *p, int64_t howmany, const void *in, int64_t istride, int64_t idist, void *out,
                 int64_t ostride, int64_t odist, double scale)
{
    if (howmany <= 0) return true;
    fft_real *r;
    fft_eng *e = real_engine(p, &r);
    return e && nd__fft_exec_r2c(p, r, e, howmany, in, istride, idist, out, ostride, odist, scale);
}

bool nd__fft_c2r(nd_fft_plan *p, int64_t howmany, const void *in, int64_t istride, int64_t idist, void *out,
                 int64_t ostride, int64_t odist, double scale)
{
    if (howmany <= 0) return true;
    fft_real *r;
    fft_eng *e = real_engine(p, &r);
    return e && nd__fft_exec_c2r(p, r, e, howmany, in, istride, idist, out, ostride, odist, scale);
}
