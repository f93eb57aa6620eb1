/* Shared pieces of the FFT suite (tests/test_fft.c: the transforms
 * against the reference; tests/test_fft_misc.c: round trips, hermitian
 * identities, frequencies, shifts, edges, errors, allocation failures):
 * random inputs in every layout, values read back as long double complex,
 * the long double reference DFT applied along one axis, and the error
 * bound (see tests/test_fft.c). */
#ifndef ND_TEST_FFT_UTIL_H
#define ND_TEST_FFT_UTIL_H
#include "test_util.h"

#define TOL_C 8.0L

__attribute__((unused)) static uint64_t rng_s = 0x9e3779b97f4a7c15ull;
static inline uint64_t rnd(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return rng_s;
}
static inline double unif(void) { return -1.0 + 2.0 * (double)(rnd() >> 11) / 9007199254740992.0; }

typedef struct {
    long double re, im;
} lc;

/* A host buffer of long double complex values with a shape (C order). */
typedef struct {
    int nd;
    int64_t shape[ND_MAX_DIMS];
    int64_t size;
    lc *v;
} lbuf;

static inline void lb_init(lbuf *b, int nd, const int64_t *shape)
{
    b->nd = nd;
    b->size = 1;
    for (int i = 0; i < nd; i++) b->shape[i] = shape[i], b->size *= shape[i];
    b->v = calloc((size_t)(b->size ? b->size : 1), sizeof(lc));
}

static inline bool is_cpx(nd_dtype t) { return t == ND_COMPLEX64 || t == ND_COMPLEX128; }
static inline bool cuda_dev(nd_device d) { return d.type == ND_DEVICE_CUDA; }
static inline const char *dname(nd_device d) { return cuda_dev(d) ? "cuda:0" : "cpu"; }
static inline nd_device cuda0(void) { return (nd_device){ND_DEVICE_CUDA, 0}; }

/* Every element of a (any dtype, layout, device) as long double complex. */
static inline lbuf vals(const nd_array *a)
{
    lbuf b;
    lb_init(&b, nd_ndim(a), nd_shape(a));
    nd_array *c = NULL;
    ND_OK_OR_FAIL(nd_astype(&c, a, ND_COMPLEX128));
    double *h = malloc(16 * (size_t)(b.size ? b.size : 1));
    ND_OK_OR_FAIL(nd_copy_to_host(h, c, 16 * (size_t)b.size));
    for (int64_t i = 0; i < b.size; i++) b.v[i].re = h[2 * i], b.v[i].im = h[2 * i + 1];
    free(h);
    nd_release(c);
    return b;
}

enum { L_CONTIG, L_TRANS, L_STEP, L_BCAST, L_N };
__attribute__((unused)) static const char *lname[L_N] = {"contiguous", "transposed", "stepped", "broadcast"};

/* An array of dtype t, logical shape, layout l on dev, with random values:
 * uniform [-1, 1) (imaginary parts too for complex), small integers for
 * integer dtypes, 0/1 for bool. */
static inline nd_array *make(nd_device dev, nd_dtype t, int nd, const int64_t *shape, int l)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++) n *= shape[i];
    const bool cpx = t == ND_COMPLEX64 || t == ND_COMPLEX128;
    double *h = malloc(sizeof(double) * 2 * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        double re;
        if (t == ND_BOOL) re = (double)(rnd() & 1);
        else if (t == ND_UINT8 || t == ND_UINT16 || t == ND_UINT32 || t == ND_UINT64) re = (double)(rnd() % 13);
        else if (t == ND_INT8 || t == ND_INT16 || t == ND_INT32 || t == ND_INT64) re = (double)((int)(rnd() % 13) - 6);
        else re = unif();
        h[2 * i] = re;
        h[2 * i + 1] = cpx ? unif() : 0.0;
    }
    nd_array *c128 = NULL, *c = NULL, *r = NULL;
    if (cpx) {
        ND_OK_OR_FAIL(nd_from_host(&c128, h, ND_COMPLEX128, nd, shape, dev));
    } else {
        for (int64_t i = 0; i < n; i++) h[i] = h[2 * i];
        ND_OK_OR_FAIL(nd_from_host(&c128, h, ND_FLOAT64, nd, shape, dev));
    }
    free(h);
    ND_OK_OR_FAIL(nd_astype(&c, c128, t));
    nd_release(c128);
    if (l == L_CONTIG || nd < 2) return c;
    if (l == L_TRANS) { /* the same values, stored transposed */
        nd_array *ct = NULL, *tc = NULL;
        ND_OK_OR_FAIL(nd_transpose(&ct, c, NULL));
        ND_OK_OR_FAIL(nd_contiguous(&tc, ct));
        ND_OK_OR_FAIL(nd_transpose(&r, tc, NULL));
        nd_release(ct), nd_release(tc), nd_release(c);
        return r;
    }
    if (l == L_STEP) { /* every other element of a buffer twice as wide along the last axis */
        int64_t bs[ND_MAX_DIMS];
        memcpy(bs, shape, sizeof(int64_t) * (size_t)nd);
        bs[nd - 1] *= 2;
        nd_array *buf = NULL, *v = NULL;
        ND_OK_OR_FAIL(nd_full(&buf, t, nd, bs, nd_scalar_float(t == ND_BOOL ? 1 : 77), dev));
        nd_range sp[ND_MAX_DIMS];
        for (int i = 0; i < nd; i++) sp[i] = (nd_range){0, bs[i], i == nd - 1 ? 2 : 1};
        ND_OK_OR_FAIL(nd_slice(&v, buf, nd, sp));
        ND_OK_OR_FAIL(nd_copy(&v, c));
        nd_release(buf), nd_release(c);
        return v;
    }
    /* broadcast: the first row repeated along axis 0 (stride 0) */
    nd_range sp[ND_MAX_DIMS];
    for (int i = 0; i < nd; i++) sp[i] = (nd_range){0, i == 0 ? 1 : shape[i], 1};
    nd_array *row = NULL;
    ND_OK_OR_FAIL(nd_slice(&row, c, nd, sp));
    ND_OK_OR_FAIL(nd_broadcast_to(&r, row, nd, shape));
    nd_release(row), nd_release(c);
    return r;
}

/* ------------------------------------------------------------------ */
/* The reference                                                       */
/* ------------------------------------------------------------------ */
enum { K_C2C, K_R2C, K_C2R };

/* One 1-D step along axis ax of x: crop/pad to the kind's input extent,
 * then the DFT of length n with the sign, times scale. */
__attribute__((unused)) static int64_t ref_kstep = 1; /* > 1: only every kstep-th output (and the first and last 8) is computed; the rest NaN */

static inline lbuf ref_step(const lbuf *x, int ax, int64_t n, int kind, int sign, long double scale)
{
    const int64_t in_ext = kind == K_C2R ? n / 2 + 1 : n, out_ext = kind == K_R2C ? n / 2 + 1 : n;
    int64_t sh[ND_MAX_DIMS];
    memcpy(sh, x->shape, sizeof(int64_t) * (size_t)x->nd);
    sh[ax] = out_ext;
    lbuf y;
    lb_init(&y, x->nd, sh);
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < ax; i++) outer *= x->shape[i];
    for (int i = ax + 1; i < x->nd; i++) inner *= x->shape[i];
    const int64_t m = x->shape[ax];
    const long double pi2 = 6.283185307179586476925286766559005768L;
    lc *tw = malloc(sizeof(lc) * (size_t)n), *row = malloc(sizeof(lc) * (size_t)n);
    for (int64_t e = 0; e < n; e++) tw[e].re = cosl(pi2 * (long double)e / (long double)n), tw[e].im = sign * sinl(pi2 * (long double)e / (long double)n);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            /* the full input row of length n */
            for (int64_t j = 0; j < n; j++) row[j] = (lc){0, 0};
            for (int64_t j = 0; j < in_ext && j < m; j++) row[j] = x->v[(o * m + j) * inner + i];
            if (kind == K_R2C)
                for (int64_t j = 0; j < n; j++) row[j].im = 0;
            if (kind == K_C2R) { /* the Hermitian extension */
                row[0].im = 0;
                if (n % 2 == 0) row[n / 2].im = 0;
                for (int64_t k = n / 2 + 1; k < n; k++) row[k] = (lc){row[n - k].re, -row[n - k].im};
            }
            for (int64_t k = 0; k < out_ext; k++) {
                if (ref_kstep > 1 && k % ref_kstep && k >= 8 && k < out_ext - 8) {
                    y.v[(o * out_ext + k) * inner + i] = (lc){NAN, NAN};
                    continue;
                }
                long double sr = 0, si = 0;
                for (int64_t j = 0; j < n; j++) {
                    const lc w = tw[(int64_t)(((__int128)j * k) % n)];
                    sr += row[j].re * w.re - row[j].im * w.im;
                    si += row[j].re * w.im + row[j].im * w.re;
                }
                lc *d = &y.v[(o * out_ext + k) * inner + i];
                d->re = sr * scale;
                d->im = kind == K_C2R ? 0 : si * scale;
            }
        }
    free(tw);
    free(row);
    return y;
}

static inline long double rms(const lbuf *x)
{
    long double s = 0;
    for (int64_t i = 0; i < x->size; i++) s += x->v[i].re * x->v[i].re + x->v[i].im * x->v[i].im;
    return x->size ? sqrtl(s / (long double)x->size) : 0;
}

static inline long double eps_of(nd_dtype t)
{
    switch (t) {
    case ND_FLOAT16: return 0x1p-11L;
    case ND_BFLOAT16: return 0x1p-8L;
    case ND_FLOAT32:
    case ND_COMPLEX64: return 0x1p-24L;
    default: return 0x1p-53L;
    }
}

/* The transform precision of input dtype t (NumPy 2). */
static inline nd_dtype prec_of(nd_dtype t)
{
    return t == ND_FLOAT16 || t == ND_BFLOAT16 || t == ND_FLOAT32 || t == ND_COMPLEX64 ? ND_COMPLEX64 : ND_COMPLEX128;
}

/* Compare got with ref: shape and every element within the bound. */
static inline void check_vals(const char *what, const nd_array *got, const lbuf *ref, long double rmsx, long double N,
                       long double scale, nd_dtype prec, nd_dtype res)
{
    ck_assert_msg(nd_ndim(got) == ref->nd, "%s: ndim %d, want %d", what, nd_ndim(got), ref->nd);
    for (int i = 0; i < ref->nd; i++)
        ck_assert_msg(nd_shape(got)[i] == ref->shape[i], "%s: extent %lld on axis %d, want %lld", what,
                      (long long)nd_shape(got)[i], i, (long long)ref->shape[i]);
    lbuf g = vals(got);
    const long double base = TOL_C * eps_of(prec) * log2l(2 * N) * rmsx * sqrtl(N) * fabsl(scale);
    for (int64_t i = 0; i < ref->size; i++) {
        const lc r = ref->v[i], v = g.v[i];
        if (isnan(r.re)) continue; /* not computed (ref_kstep) */
        const long double tol = base + 2 * eps_of(res) * sqrtl(r.re * r.re + r.im * r.im) + 1e-300L;
        const long double err = sqrtl((v.re - r.re) * (v.re - r.re) + (v.im - r.im) * (v.im - r.im));
        if (!(err <= tol))
            ck_abort_msg("%s: element %lld is (%.9Lg, %.9Lg), want (%.9Lg, %.9Lg): error %.3Lg > bound %.3Lg", what,
                         (long long)i, v.re, v.im, r.re, r.im, err, tol);
    }
    free(g.v);
}

/* The widest dtype of rt's kind (an out the result casts to). */
static inline nd_dtype wider(nd_dtype rt) { return is_cpx(rt) ? ND_COMPLEX128 : ND_FLOAT64; }

/* A NaN-poisoned out of the result shape: contiguous, or a transposed view. */
static inline nd_array *poisoned(nd_device dev, nd_dtype t, int nd, const int64_t *shape, bool tview)
{
    nd_array *o = NULL;
    if (!tview || nd < 2) {
        ND_OK_OR_FAIL(nd_full(&o, t, nd, shape, nd_scalar_float(NAN), dev));
        return o;
    }
    int64_t rs[ND_MAX_DIMS];
    for (int i = 0; i < nd; i++) rs[i] = shape[nd - 1 - i];
    nd_array *b = NULL;
    ND_OK_OR_FAIL(nd_full(&b, t, nd, rs, nd_scalar_float(NAN), dev));
    ND_OK_OR_FAIL(nd_transpose(&o, b, NULL));
    nd_release(b);
    return o;
}

static inline void expect_same(const char *what, const nd_array *got, const nd_array *want, long double tol)
{
    lbuf g = vals(got), r = vals(want);
    ck_assert_msg(g.size == r.size, "%s: size %lld, want %lld", what, (long long)g.size, (long long)r.size);
    for (int64_t i = 0; i < g.size; i++) {
        const long double e = fabsl(g.v[i].re - r.v[i].re) + fabsl(g.v[i].im - r.v[i].im);
        if (!(e <= tol))
            ck_abort_msg("%s: element %lld is (%.9Lg, %.9Lg), want (%.9Lg, %.9Lg)", what, (long long)i, g.v[i].re,
                         g.v[i].im, r.v[i].re, r.v[i].im);
    }
    free(g.v);
    free(r.v);
}

/* tests/test_fft_misc.c: its tests, added to the suite's TCase */
void fft_misc_add(TCase *tc);

#endif
