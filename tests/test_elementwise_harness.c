/*
 * The table-driven elementwise harness: every op of ND_UNARY_OPS /
 * ND_BINARY_OPS (iterated through the X-macro) x every dtype x a set of
 * layouts, on every available device, against the double-precision /
 * exact-integer reference of tests/test_elementwise_ref.c. An op without
 * a reference, or with no case run, is a failure. Dtypes an op's kinds
 * exclude must fail with ND_ERR_DTYPE.
 */
#include <stdarg.h>
#include <stdio.h>

#include "harness.h"

/* ------------------------------------------------------------------ */
/* Random inputs per op domain                                         */
/* ------------------------------------------------------------------ */
typedef struct {
    uint64_t s;
} ew_rng;

static uint64_t rnd(ew_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}
static double rnd_unit(ew_rng *r) { return (double)(rnd(r) >> 11) * (1.0 / 9007199254740992.0); }

typedef struct {
    double lo, hi;   /* floats */
    double ilo, ihi; /* integers (clipped to the dtype) */
    bool halves;     /* floats: multiples of 0.5 (ties, equal values) */
    bool full_int;   /* integers: any bit pattern, extremes often */
} ew_dom;

static ew_dom mkdom(double lo, double hi, double ilo, double ihi)
{
    ew_dom d = {lo, hi, ilo, ihi, false, false};
    return d;
}

static ew_dom unary_dom(nd_unary_op op)
{
    ew_dom d = mkdom(-10, 10, -10, 10);
    switch (op) {
    case ND_UNARY_SQRT:
    case ND_UNARY_LOG:
    case ND_UNARY_LOG2:
    case ND_UNARY_LOG10: d = mkdom(0.01, 100, 1, 100); break;
    case ND_UNARY_LOG1P: d = mkdom(-0.9, 10, 0, 10); break;
    case ND_UNARY_ARCSIN:
    case ND_UNARY_ARCCOS:
    case ND_UNARY_ARCTANH: d = mkdom(-1, 1, -1, 1); break;
    case ND_UNARY_ARCCOSH: d = mkdom(1, 50, 1, 50); break;
    case ND_UNARY_EXP:
    case ND_UNARY_EXP2:
    case ND_UNARY_EXPM1:
    case ND_UNARY_SINH:
    case ND_UNARY_COSH: d = mkdom(-8, 8, -8, 8); break;
    case ND_UNARY_TAN: d = mkdom(-1.5, 1.5, -1, 1); break;
    case ND_UNARY_RECIPROCAL: d = mkdom(-10, 10, -3, 3); break;
    case ND_UNARY_CBRT: d = mkdom(-100, 100, -100, 100); break;
    case ND_UNARY_SQUARE: d = mkdom(-100, 100, 0, 0); d.full_int = true; break;
    case ND_UNARY_NEG:
    case ND_UNARY_ABS:
    case ND_UNARY_BITWISE_NOT: d.full_int = true; break;
    case ND_UNARY_RINT:
    case ND_UNARY_FLOOR:
    case ND_UNARY_CEIL:
    case ND_UNARY_TRUNC:
    case ND_UNARY_SIGN:
    case ND_UNARY_RELU: d.halves = true; break;
    case ND_UNARY_CONJUGATE: d.full_int = true; break;
    case ND_UNARY_DEG2RAD: d = mkdom(-720, 720, -100, 100); break;
    case ND_UNARY_SPACING: d = mkdom(-1e4, 1e4, -100, 100); break;
    case ND_UNARY_ERFINV: d = mkdom(-0.999, 0.999, -1, 1); break;
    case ND_UNARY_ERFCINV: d = mkdom(0.001, 1.999, 0, 2); break;
    case ND_UNARY_NDTRI:
    case ND_UNARY_LOGIT: d = mkdom(0.001, 0.999, 0, 1); break;
    case ND_UNARY_ENTR: d = mkdom(0, 20, 0, 20); break;
    case ND_UNARY_ERFCX: d = mkdom(-5, 20, -5, 20); break;
    case ND_UNARY_RELU6:
    case ND_UNARY_HARDSWISH: d.halves = true; break;
    case ND_UNARY_GAMMA: d = mkdom(-4.5, 12, -3, 12); break;
    /* digamma: above its positive zero 1.4616...; near its zeros the long
     * double reference loses relative accuracy (tests/test_special_gamma.c
     * covers them against mpmath) */
    case ND_UNARY_DIGAMMA: d = mkdom(1.6, 12, 2, 12); break;
    /* lgamma: positive (near its negative roots both it and the long double
     * reference lose relative accuracy; tests/test_special_gamma.c covers
     * them against mpmath) */
    case ND_UNARY_LGAMMA: d = mkdom(0.05, 12, 0, 12); break;
    case ND_UNARY_I0:
    case ND_UNARY_I0E:
    case ND_UNARY_I1:
    case ND_UNARY_I1E:
    case ND_UNARY_J0:
    case ND_UNARY_J1: d = mkdom(-12, 12, -12, 12); break;
    case ND_UNARY_Y0:
    case ND_UNARY_Y1: d = mkdom(0.05, 12, 0, 12); break;
    default: break;
    }
    return d;
}

static ew_dom binary_dom(nd_binary_op op, int which, nd_dtype t)
{
    ew_dom d = mkdom(-10, 10, -10, 10);
    switch (op) {
    case ND_BINARY_ADD:
    case ND_BINARY_SUBTRACT:
    case ND_BINARY_MULTIPLY:
    case ND_BINARY_BITWISE_AND:
    case ND_BINARY_BITWISE_OR:
    case ND_BINARY_BITWISE_XOR: d = mkdom(-100, 100, 0, 0); d.full_int = true; break;
    case ND_BINARY_DIVIDE: d = which == 0 ? mkdom(-100, 100, -100, 100) : mkdom(-10, 10, -10, 10); break;
    case ND_BINARY_FLOOR_DIVIDE:
    case ND_BINARY_REMAINDER:
        if (which == 0) {
            d = mkdom(-100, 100, 0, 0);
            d.full_int = true;
        }
        d.halves = true;
        break;
    case ND_BINARY_POWER: d = which == 0 ? mkdom(0.1, 4, -4, 4) : mkdom(-3, 3, 0, 6); break;
    case ND_BINARY_FLOAT_POWER: d = which == 0 ? mkdom(0.1, 4, 0, 6) : mkdom(-3, 3, -3, 3); break;
    case ND_BINARY_FMOD:
        if (which == 0) {
            d = mkdom(-100, 100, 0, 0);
            d.full_int = true;
        }
        d.halves = true;
        break;
    case ND_BINARY_GCD:
    case ND_BINARY_LCM:
        d = mkdom(0, 0, -40, 40);
        d.full_int = which == 0;
        break;
    case ND_BINARY_HEAVISIDE:
    case ND_BINARY_NEXTAFTER:
    case ND_BINARY_LOGADDEXP:
    case ND_BINARY_LOGADDEXP2: d = mkdom(-4, 4, -4, 4); d.halves = true; break;
    case ND_BINARY_LDEXP: d = which == 0 ? mkdom(-10, 10, -10, 10) : mkdom(0, 0, -30, 30); break;
    case ND_BINARY_XLOGY: d = which == 0 ? mkdom(-10, 10, -10, 10) : mkdom(0.01, 100, 0, 100); break;
    case ND_BINARY_XLOG1PY: d = which == 0 ? mkdom(-10, 10, -10, 10) : mkdom(-0.99, 100, 0, 100); break;
    case ND_BINARY_POLYGAMMA: d = which == 0 ? mkdom(0, 3, 0, 3) : mkdom(0.1, 8, 1, 8); d.halves = which == 0; break;
    case ND_BINARY_BETA: d = mkdom(0.1, 8, -2, 8); break;
    /* betaln: away from its zeros (where its log terms cancel; the
     * accuracy there is tests/test_special_gamma.c's) */
    case ND_BINARY_BETALN: d = mkdom(0.05, 0.9, 1, 8); break;
    case ND_BINARY_GAMMAINC:
    case ND_BINARY_GAMMAINCC: d = mkdom(0.1, 8, 0, 8); break;
    case ND_BINARY_ZETA: d = which == 0 ? mkdom(1.1, 8, 2, 8) : mkdom(0.1, 8, 1, 8); break;
    case ND_BINARY_MAXIMUM:
    case ND_BINARY_MINIMUM:
    case ND_BINARY_FMAX:
    case ND_BINARY_FMIN: d.halves = true; break;
    case ND_BINARY_EQUAL:
    case ND_BINARY_NOT_EQUAL:
    case ND_BINARY_LESS:
    case ND_BINARY_LESS_EQUAL:
    case ND_BINARY_GREATER:
    case ND_BINARY_GREATER_EQUAL:
    case ND_BINARY_LOGICAL_AND:
    case ND_BINARY_LOGICAL_OR:
    case ND_BINARY_LOGICAL_XOR: d = mkdom(-3, 3, -3, 3); d.halves = true; break;
    case ND_BINARY_LEFT_SHIFT:
    case ND_BINARY_RIGHT_SHIFT:
        if (which == 0) {
            d = mkdom(-100, 100, -100, 100);
            d.full_int = op == ND_BINARY_RIGHT_SHIFT;
        } else {
            d = mkdom(0, 0, ew_is_signed(t) ? -2 : 0, ew_bits(t) + 2);
        }
        break;
    default: break;
    }
    return d;
}

static void int_limits(nd_dtype t, int64_t *lo, int64_t *hi)
{
    int nb = ew_bits(t);
    if (ew_is_signed(t)) {
        *lo = nb == 64 ? INT64_MIN : -((int64_t)1 << (nb - 1));
        *hi = nb == 64 ? INT64_MAX : ((int64_t)1 << (nb - 1)) - 1;
    } else {
        *lo = 0;
        *hi = nb >= 63 ? INT64_MAX : ((int64_t)1 << nb) - 1;
    }
}

static ew_val gen_value(ew_rng *r, nd_dtype t, const ew_dom *d)
{
    ew_val v;
    v.u = 0;
    if (t == ND_BOOL) {
        v.i = (int64_t)(rnd(r) & 1);
        return v;
    }
    if (nd__is_float(t)) {
        static const double specials[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1.0, -1.0, 0.5};
        if (rnd(r) % 8 == 0) {
            v.f = specials[rnd(r) % (sizeof specials / sizeof specials[0])];
        } else {
            double x = d->lo + (d->hi - d->lo) * rnd_unit(r);
            if (d->halves) x = round(x * 2) / 2;
            v.f = ew_round(t, x);
        }
        return v;
    }
    int64_t tlo, thi;
    int_limits(t, &tlo, &thi);
    if (d->full_int) {
        if (rnd(r) % 6 == 0) {
            int64_t ext[5] = {tlo, thi, 0, 1, ew_is_signed(t) ? -1 : 2};
            int64_t e = ext[rnd(r) % 5];
            return ew_is_signed(t) ? ew_wrap(t, (uint64_t)e) : ew_wrap(t, t == ND_UINT64 && e == thi ? ~(uint64_t)0 : (uint64_t)e);
        }
        return ew_wrap(t, rnd(r));
    }
    int64_t lo = (int64_t)ceil(d->ilo), hi = (int64_t)floor(d->ihi);
    if (lo < tlo) lo = tlo;
    if (hi > thi) hi = thi;
    if (lo > hi) lo = hi = 0;
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return ew_wrap(t, (uint64_t)lo + rnd(r) % span);
}

/* ------------------------------------------------------------------ */
/* Host arrays and device arrays in a layout                           */
/* ------------------------------------------------------------------ */
typedef struct {
    nd_dtype t;
    int ndim;
    int64_t shape[2];
    int64_t n;
    ew_val *v; /* C order */
} hostarr;

static void host_init(hostarr *h, nd_dtype t, int ndim, const int64_t *shape)
{
    h->t = t;
    h->ndim = ndim;
    h->n = 1;
    for (int i = 0; i < ndim; i++) {
        h->shape[i] = shape[i];
        h->n *= shape[i];
    }
    h->v = calloc((size_t)(h->n ? h->n : 1), sizeof(ew_val));
}

static void host_fill(hostarr *h, ew_rng *r, const ew_dom *d)
{
    bool nonzero = false;
    for (int64_t i = 0; i < h->n; i++) {
        h->v[i] = gen_value(r, h->t, d);
        nonzero |= h->v[i].u != 0;
    }
    for (int k = 0; !nonzero && h->n > 0 && k < 64; k++) { /* never all zero */
        h->v[0] = gen_value(r, h->t, d);
        nonzero = h->v[0].u != 0;
    }
}

static unsigned char *pack(const hostarr *h)
{
    size_t isz = nd_dtype_size(h->t);
    unsigned char *p = malloc(isz * (size_t)(h->n ? h->n : 1));
    for (int64_t i = 0; i < h->n; i++) ew_store(p + isz * (size_t)i, h->t, h->v[i]);
    return p;
}

enum { LAY_CONTIG, LAY_T, LAY_SLICE, LAY_OVERLAP };
enum { OUT_FRESH, OUT_GIVEN, OUT_WIDE, OUT_SLICE, OUT_INPLACE_A, OUT_INPLACE_B, OUT_OVERLAP };
enum { CALL_GENERIC, CALL_NAMED, CALL_SCALAR_R, CALL_SCALAR_L, CALL_MIXED };

/* A 2-D view of `base` (shape rows x cols of h's dtype) at element
 * [r0][c0] with element steps (sr, sc). */
static nd_array *view2(const nd_array *base, int64_t cols, int ndim, const int64_t *shape, int64_t r0, int64_t c0,
                       int64_t sr, int64_t sc)
{
    int64_t strides[2] = {sr * cols, sc};
    int64_t off = base->offset + (r0 * cols + c0) * (int64_t)nd_dtype_size(base->dtype);
    nd_array *v = NULL;
    ND_OK_OR_FAIL(nd__view(&v, base, base->dtype, ndim, shape, strides, off));
    return v;
}

/* Geometry of the sliced layout of a (R, C) array: base (2R+1, 3C+2),
 * element [i][j] at base[1 + 2i][3C + 1 - 3j]. */
static void slice_geom(const int64_t *shape, int64_t *brows, int64_t *bcols)
{
    *brows = 2 * shape[0] + 1;
    *bcols = 3 * shape[1] + 2;
}

/* The array for h in layout lay on dev; for LAY_OVERLAP *base gets the
 * whole 1-D buffer (n + 1 elements). */
static nd_array *build(const hostarr *h, int lay, nd_device dev, nd_array **base)
{
    nd_array *a = NULL, *b = NULL;
    size_t isz = nd_dtype_size(h->t);
    if (lay == LAY_T && h->ndim == 2) {
        int64_t R = h->shape[0], C = h->shape[1];
        unsigned char *p = malloc(isz * (size_t)(h->n ? h->n : 1));
        for (int64_t i = 0; i < R; i++)
            for (int64_t j = 0; j < C; j++) ew_store(p + isz * (size_t)(j * R + i), h->t, h->v[i * C + j]);
        int64_t bs[2] = {C, R};
        ND_OK_OR_FAIL(nd_from_host(&b, p, h->t, 2, bs, dev));
        free(p);
        int64_t strides[2] = {1, R};
        ND_OK_OR_FAIL(nd__view(&a, b, h->t, 2, h->shape, strides, b->offset));
        nd_release(b);
        return a;
    }
    if (lay == LAY_SLICE && h->ndim == 2) {
        int64_t br, bc;
        slice_geom(h->shape, &br, &bc);
        unsigned char *p = malloc(isz * (size_t)(br * bc));
        memset(p, 0x3c, isz * (size_t)(br * bc));
        int64_t C = h->shape[1];
        for (int64_t i = 0; i < h->shape[0]; i++)
            for (int64_t j = 0; j < C; j++) ew_store(p + isz * (size_t)((1 + 2 * i) * bc + 3 * C + 1 - 3 * j), h->t, h->v[i * C + j]);
        int64_t bs[2] = {br, bc};
        ND_OK_OR_FAIL(nd_from_host(&b, p, h->t, 2, bs, dev));
        free(p);
        a = view2(b, bc, 2, h->shape, 1, 3 * C + 1, 2, -3);
        nd_release(b);
        return a;
    }
    if (lay == LAY_OVERLAP) {
        unsigned char *p = malloc(isz * (size_t)(h->n + 1));
        memset(p, 0x3c, isz * (size_t)(h->n + 1));
        for (int64_t i = 0; i < h->n; i++) ew_store(p + isz * (size_t)i, h->t, h->v[i]);
        int64_t bs[1] = {h->n + 1};
        ND_OK_OR_FAIL(nd_from_host(base, p, h->t, 1, bs, dev));
        free(p);
        int64_t st[1] = {1};
        ND_OK_OR_FAIL(nd__view(&a, *base, h->t, 1, h->shape, st, (*base)->offset));
        return a;
    }
    unsigned char *p = pack(h);
    ND_OK_OR_FAIL(nd_from_host(&a, p, h->t, h->ndim, h->shape, dev));
    free(p);
    return a;
}

/* ------------------------------------------------------------------ */
/* Layouts                                                             */
/* ------------------------------------------------------------------ */
typedef struct {
    const char *name;
    bool binary_only;
    int ondim;
    int64_t oshape[2];
    int andim;
    int64_t ashape[2];
    int alay;
    int bndim;
    int64_t bshape[2];
    int blay;
    int out, call;
} ew_layout;

#define S2(r, c) 2, {r, c}
#define S1(n) 1, {n, 0}
#define S0 0, {0, 0}
static const ew_layout layouts[] = {
    {"contig", false, S2(5, 7), S2(5, 7), LAY_CONTIG, S2(5, 7), LAY_CONTIG, OUT_FRESH, CALL_GENERIC},
    {"named", false, S2(5, 7), S2(5, 7), LAY_CONTIG, S2(5, 7), LAY_CONTIG, OUT_FRESH, CALL_NAMED},
    {"contig_out", false, S2(5, 7), S2(5, 7), LAY_CONTIG, S2(5, 7), LAY_CONTIG, OUT_GIVEN, CALL_GENERIC},
    {"transposed", false, S2(5, 7), S2(5, 7), LAY_T, S2(5, 7), LAY_T, OUT_GIVEN, CALL_GENERIC},
    {"sliced", false, S2(5, 7), S2(5, 7), LAY_SLICE, S2(5, 7), LAY_SLICE, OUT_SLICE, CALL_GENERIC},
    {"transposed_x_sliced", true, S2(4, 6), S2(4, 6), LAY_T, S2(4, 6), LAY_SLICE, OUT_GIVEN, CALL_GENERIC},
    {"bcast_row", false, S2(5, 7), S1(7), LAY_CONTIG, S2(5, 7), LAY_CONTIG, OUT_GIVEN, CALL_GENERIC},
    {"bcast_col", false, S2(5, 7), S2(5, 1), LAY_CONTIG, S2(1, 7), LAY_CONTIG, OUT_GIVEN, CALL_GENERIC},
    {"0d", false, S0, S0, LAY_CONTIG, S0, LAY_CONTIG, OUT_FRESH, CALL_GENERIC},
    {"0d_out", false, S0, S0, LAY_CONTIG, S0, LAY_CONTIG, OUT_GIVEN, CALL_GENERIC},
    {"zero_size", false, S2(0, 7), S2(0, 7), LAY_CONTIG, S1(7), LAY_CONTIG, OUT_FRESH, CALL_GENERIC},
    {"zero_size_out", false, S2(3, 0), S2(3, 0), LAY_CONTIG, S2(3, 1), LAY_CONTIG, OUT_GIVEN, CALL_GENERIC},
    {"inplace", false, S2(5, 7), S2(5, 7), LAY_CONTIG, S2(5, 7), LAY_CONTIG, OUT_INPLACE_A, CALL_GENERIC},
    {"inplace_b", true, S2(5, 7), S2(5, 7), LAY_CONTIG, S2(5, 7), LAY_CONTIG, OUT_INPLACE_B, CALL_GENERIC},
    {"inplace_transposed", false, S2(5, 7), S2(5, 7), LAY_T, S2(5, 7), LAY_T, OUT_INPLACE_A, CALL_GENERIC},
    {"out_wider", false, S2(5, 7), S2(5, 7), LAY_CONTIG, S2(5, 7), LAY_CONTIG, OUT_WIDE, CALL_GENERIC},
    {"partial_overlap", false, S1(9), S1(9), LAY_OVERLAP, S1(9), LAY_CONTIG, OUT_OVERLAP, CALL_GENERIC},
    {"mixed_dtypes", true, S2(5, 7), S2(5, 7), LAY_CONTIG, S2(5, 7), LAY_CONTIG, OUT_FRESH, CALL_MIXED},
    {"scalar_right", true, S2(5, 7), S2(5, 7), LAY_CONTIG, S0, LAY_CONTIG, OUT_GIVEN, CALL_SCALAR_R},
    {"scalar_left", true, S2(5, 7), S0, LAY_CONTIG, S2(5, 7), LAY_CONTIG, OUT_FRESH, CALL_SCALAR_L},
    {"large", false, S1(40000), S1(40000), LAY_CONTIG, S1(40000), LAY_CONTIG, OUT_FRESH, CALL_GENERIC},
    {"large_transposed", false, S2(160, 257), S2(160, 257), LAY_T, S2(160, 257), LAY_T, OUT_GIVEN, CALL_GENERIC},
};
#define NLAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))

/* A wider dtype that accepts t under same_kind (none for float64). */
static nd_dtype wider(nd_dtype t)
{
    static const nd_dtype w[ND_NUM_DTYPES] = {ND_UINT8,   ND_INT16,  ND_INT32,  ND_INT64,   ND_FLOAT64,
                                              ND_UINT16,  ND_UINT32, ND_UINT64, ND_FLOAT64, ND_FLOAT32,
                                              ND_FLOAT32, ND_FLOAT64, ND_NUM_DTYPES};
    return w[t];
}

/* A narrower dtype that promotes with t to t (none for bool). */
static nd_dtype partner(nd_dtype t)
{
    static const nd_dtype p[ND_NUM_DTYPES] = {ND_NUM_DTYPES, ND_BOOL,  ND_UINT8, ND_INT16, ND_UINT32,
                                              ND_BOOL,       ND_UINT8, ND_UINT16, ND_UINT32, ND_INT8,
                                              ND_INT8,       ND_FLOAT16, ND_INT32};
    return p[t];
}

/* ------------------------------------------------------------------ */
/* Bookkeeping                                                         */
/* ------------------------------------------------------------------ */
typedef struct {
    const char *dev;
    int cases, failures;
    int per_op[ND_NUM_UNARY_OPS + ND_NUM_BINARY_OPS];
} ew_stats;

static void failf(ew_stats *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failf(ew_stats *st, const char *fmt, ...)
{
    if (st->failures < 40) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "elementwise harness [%s]: ", st->dev);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    st->failures++;
}

typedef nd_status (*ew_ufn)(nd_array **, const nd_array *);
typedef nd_status (*ew_bfn)(nd_array **, const nd_array *, const nd_array *);
#define EW_UFN(E, n, k, r) [ND_UNARY_##E] = nd_##n,
#define EW_BFN(E, n, k, r) [ND_BINARY_##E] = nd_##n,
static const ew_ufn unary_fns[ND_NUM_UNARY_OPS] = {ND_UNARY_OPS(EW_UFN)};
static const ew_bfn binary_fns[ND_NUM_BINARY_OPS] = {ND_BINARY_OPS(EW_BFN)};

/* Flat index into an input of shape (nd, s) broadcast to the output index
 * oi of shape (ond, os). */
static int64_t bindex(int ond, const int64_t *os, int64_t oi, int nd, const int64_t *s)
{
    int64_t idx[2] = {0, 0};
    for (int k = ond - 1; k >= 0; k--) {
        idx[k] = os[k] ? oi % os[k] : 0;
        oi = os[k] ? oi / os[k] : 0;
    }
    int64_t flat = 0;
    for (int k = 0; k < nd; k++) {
        int64_t ik = idx[ond - nd + k];
        flat = flat * s[k] + (s[k] == 1 ? 0 : ik);
    }
    return flat;
}

static nd_scalar to_scalar(ew_val v, nd_dtype t)
{
    if (t == ND_BOOL) return nd_scalar_bool(v.i != 0);
    if (nd__is_float(t)) return nd_scalar_float(v.f);
    return nd_scalar_int(v.i); /* small values only */
}

/* Read all elements of a (C order) as dtype values. */
static ew_val *readback(const nd_array *a)
{
    size_t isz = nd_dtype_size(nd_dtype_of(a));
    int64_t n = nd_size(a);
    unsigned char *p = malloc(isz * (size_t)(n ? n : 1));
    ew_val *v = calloc((size_t)(n ? n : 1), sizeof(ew_val));
    ND_OK_OR_FAIL(nd_copy_to_host(p, a, isz * (size_t)n));
    for (int64_t i = 0; i < n; i++) v[i] = ew_load(p + isz * (size_t)i, nd_dtype_of(a));
    free(p);
    return v;
}


static bool same_input(ew_val a, ew_val b, nd_dtype t)
{
    if (nd__is_float(t)) return (isnan(a.f) && isnan(b.f)) || (a.f == b.f && signbit(a.f) == signbit(b.f));
    return a.u == b.u;
}

static bool shape_eq(const nd_array *a, int ndim, const int64_t *shape)
{
    if (nd_ndim(a) != ndim) return false;
    for (int i = 0; i < ndim; i++)
        if (nd_shape(a)[i] != shape[i]) return false;
    return true;
}

/* Poisoned host bytes for an out of dtype t: each element is the bitwise
 * complement of the value it should receive, so an element the kernel
 * skips can never pass. */
static unsigned char *poison_for(const ew_val *want, int64_t n, nd_dtype t)
{
    size_t isz = nd_dtype_size(t);
    unsigned char *p = malloc(isz * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        ew_store(p + isz * (size_t)i, t, want[i]);
        for (size_t k = 0; k < isz; k++) p[isz * (size_t)i + k] = (unsigned char)~p[isz * (size_t)i + k];
    }
    return p;
}

/* The gamma, zeta and Bessel family costs 0.15-1.2 us an element in
 * float64 (and its long double reference more), against a few ns for the
 * rest of the table: the two large layouts, which test the threaded and
 * vectorised loops that every op of a kind shares, run for these ops in
 * float32 and float64 only (tests/test_special_gamma.c checks their
 * accuracy over the whole range). */
static bool slow_op(bool binary, int op)
{
    if (binary) return op >= ND_BINARY_POLYGAMMA && op <= ND_BINARY_ZETA;
    return op >= ND_UNARY_GAMMA && op <= ND_UNARY_Y1;
}

static void run_case(ew_stats *st, bool binary, int op, nd_dtype t, int li, nd_device dev)
{
    const ew_layout *L = &layouts[li];
    if (!binary && L->binary_only) return;
    if (strncmp(L->name, "large", 5) == 0 && slow_op(binary, op) && t != ND_FLOAT32 && t != ND_FLOAT64) return;
    const char *opname = binary ? nd_binary_op_name((nd_binary_op)op) : nd_unary_op_name((nd_unary_op)op);
    const char *tn = nd_dtype_name(t);
    ew_rng rng = {0x9E3779B97F4A7C15ULL ^ ((uint64_t)op * 1000003u + (uint64_t)binary * 7919u + (uint64_t)t * 131u + (uint64_t)li)};
    nd_dtype ta = t, tb = t;
    /* ldexp(x, e): e is an integer (int32 for a float x, x's own dtype
     * otherwise); its mixed and scalar-left calls are in the exact tests */
    bool ldexp = binary && op == ND_BINARY_LDEXP;
    if (ldexp && (L->call == CALL_MIXED || L->call == CALL_SCALAR_L)) return;
    if (ldexp && nd__is_float(t)) tb = ND_INT32;
    if (binary && L->call == CALL_MIXED) {
        tb = partner(t);
        if (tb == ND_NUM_DTYPES) return;
        nd_dtype pr = ND_NUM_DTYPES;
        ND_OK_OR_FAIL(nd_result_type(&pr, ta, tb));
        if (pr != t) {
            failf(st, "%s %s: result_type(%s, %s) is %s", opname, L->name, tn, nd_dtype_name(tb), nd_dtype_name(pr));
            return;
        }
    }
    nd_dtype loop, res;
    bool has_loop = binary ? ew_binary_types((nd_binary_op)op, t, &loop, &res)
                           : ew_unary_types((nd_unary_op)op, t, &loop, &res);
    if (ldexp && t == ND_UINT64) has_loop = false; /* no int64 exponent for uint64 */
    bool error_case = !has_loop;
    if (error_case && L->call != CALL_GENERIC && L->call != CALL_NAMED) return;
    if (error_case && strcmp(L->name, "contig") != 0 && strcmp(L->name, "named") != 0) return;
    nd_dtype ot = has_loop ? res : t;
    if (L->out == OUT_WIDE && (ot = wider(res)) == ND_NUM_DTYPES) return;
    if (L->out == OUT_INPLACE_A || L->out == OUT_OVERLAP) {
        if (!nd_can_cast_same_kind(res, ta)) return;
        ot = ta;
    }
    if (L->out == OUT_INPLACE_B) {
        if (!nd_can_cast_same_kind(res, tb)) return;
        ot = tb;
    }

    hostarr ha, hb;
    memset(&hb, 0, sizeof hb);
    ew_dom da = binary ? binary_dom((nd_binary_op)op, 0, has_loop ? loop : t) : unary_dom((nd_unary_op)op);
    host_init(&ha, ta, L->andim, L->ashape);
    host_fill(&ha, &rng, &da);
    if (binary) {
        ew_dom db = binary_dom((nd_binary_op)op, 1, has_loop ? loop : t);
        host_init(&hb, tb, L->bndim, L->bshape);
        host_fill(&hb, &rng, &db);
    }
    nd_array *A = NULL, *Bv = NULL, *abase = NULL, *O = NULL, *obase = NULL;
    ew_val *want = NULL, *got = NULL;
    int64_t on = 1;
    for (int k = 0; k < L->ondim; k++) on *= L->oshape[k];
    nd_scalar sc = nd_scalar_none();
    /* an nd_scalar holds an int64: keep uint64 scalars below 2^63 */
    if (binary && L->call == CALL_SCALAR_R && tb == ND_UINT64) hb.v[0].u >>= 1;
    if (binary && L->call == CALL_SCALAR_L && ta == ND_UINT64) ha.v[0].u >>= 1;
    if (binary && L->call == CALL_SCALAR_R) {
        A = build(&ha, L->alay, dev, &abase);
        sc = to_scalar(hb.v[0], tb);
    } else if (binary && L->call == CALL_SCALAR_L) {
        Bv = build(&hb, L->blay, dev, NULL);
        sc = to_scalar(ha.v[0], ta);
    } else {
        A = build(&ha, L->alay, dev, &abase);
        if (binary) Bv = build(&hb, L->blay, dev, NULL);
        if (!binary && !shape_eq(A, L->ondim, L->oshape)) { /* a broadcast (stride-0) input */
            nd_array *v = NULL;
            ND_OK_OR_FAIL(nd__broadcast_view(&v, A, L->ondim, L->oshape));
            nd_release(A);
            A = v;
        }
    }

    nd_status s;
    if (error_case) {
        if (!binary) s = L->call == CALL_NAMED ? unary_fns[op](&O, A) : nd_unary(&O, (nd_unary_op)op, A);
        else s = L->call == CALL_NAMED ? binary_fns[op](&O, A, Bv) : nd_binary(&O, (nd_binary_op)op, A, Bv);
        if (s != ND_ERR_DTYPE || strstr(nd_last_error(), "no loop for dtype") == NULL || O != NULL)
            failf(st, "%s on %s (%s): want ND_ERR_DTYPE 'no loop for dtype', got %s '%s'", opname, tn, L->name,
                  nd_status_name(s), nd_last_error());
        goto count;
    }

    /* expected values, in the out dtype */
    want = calloc((size_t)(on ? on : 1), sizeof(ew_val));
    for (int64_t i = 0; i < on; i++) {
        ew_val x = ew_convert(ha.v[bindex(L->ondim, L->oshape, i, ha.ndim, ha.shape)], ta, loop), r;
        bool ok;
        if (binary) {
            ew_val y = ew_convert(hb.v[bindex(L->ondim, L->oshape, i, hb.ndim, hb.shape)], tb, loop);
            ok = ew_ref_binary((nd_binary_op)op, loop, x, y, &r);
        } else {
            ok = ew_ref_unary((nd_unary_op)op, loop, x, &r);
        }
        if (!ok) {
            failf(st, "no reference for op %s on loop dtype %s", opname, nd_dtype_name(loop));
            goto cleanup;
        }
        if (nd__is_float(res)) r.f = ew_round(res, r.f);
        want[i] = ew_convert(r, res, ot);
    }

    /* the out array */
    if (L->out == OUT_GIVEN || L->out == OUT_WIDE) {
        unsigned char *p = poison_for(want, on, ot);
        ND_OK_OR_FAIL(nd_from_host(&O, p, ot, L->ondim, L->oshape, dev));
        free(p);
    } else if (L->out == OUT_SLICE) {
        int64_t br, bc, C = L->oshape[1];
        slice_geom(L->oshape, &br, &bc);
        size_t isz = nd_dtype_size(ot);
        unsigned char *p = malloc(isz * (size_t)(br * bc)), *pz = poison_for(want, on, ot);
        memset(p, 0x3c, isz * (size_t)(br * bc));
        for (int64_t i = 0; i < L->oshape[0]; i++)
            for (int64_t j = 0; j < C; j++)
                memcpy(p + isz * (size_t)((1 + 2 * i) * bc + 3 * C + 1 - 3 * j), pz + isz * (size_t)(i * C + j), isz);
        int64_t bs[2] = {br, bc};
        ND_OK_OR_FAIL(nd_from_host(&obase, p, ot, 2, bs, dev));
        free(p);
        free(pz);
        O = view2(obase, bc, 2, L->oshape, 1, 3 * C + 1, 2, -3);
    } else if (L->out == OUT_INPLACE_A) {
        O = nd_retain(A);
    } else if (L->out == OUT_INPLACE_B) {
        O = nd_retain(Bv);
    } else if (L->out == OUT_OVERLAP) {
        int64_t st1[1] = {1};
        ND_OK_OR_FAIL(nd__view(&O, abase, ot, 1, L->oshape, st1, abase->offset + (int64_t)nd_dtype_size(ot)));
    }
    nd_array *O0 = O;

    if (!binary) {
        s = L->call == CALL_NAMED ? unary_fns[op](&O, A) : nd_unary(&O, (nd_unary_op)op, A);
    } else {
        switch (L->call) {
        case CALL_NAMED: s = binary_fns[op](&O, A, Bv); break;
        case CALL_SCALAR_R: s = nd_binary_scalar(&O, (nd_binary_op)op, A, sc); break;
        case CALL_SCALAR_L: s = nd_scalar_binary(&O, (nd_binary_op)op, sc, Bv); break;
        default: s = nd_binary(&O, (nd_binary_op)op, A, Bv); break;
        }
    }
    if (s != ND_OK) {
        failf(st, "%s on %s (%s): %s '%s'", opname, tn, L->name, nd_status_name(s), nd_last_error());
        goto cleanup;
    }
    if (O0 != NULL && O != O0) {
        failf(st, "%s on %s (%s): the given out was replaced", opname, tn, L->name);
        goto cleanup;
    }
    if (O0 == NULL && (O == NULL || nd_dtype_of(O) != res || !shape_eq(O, L->ondim, L->oshape) ||
                       nd_device_of(O).type != dev.type)) {
        failf(st, "%s on %s (%s): fresh result has dtype %s (want %s) or a wrong shape/device", opname, tn, L->name,
              O ? nd_dtype_name(nd_dtype_of(O)) : "NULL", nd_dtype_name(res));
        goto cleanup;
    }
    got = readback(O);
    int bad = 0;
    for (int64_t i = 0; i < on; i++) {
        if (ew_close(got[i], want[i], ot, res)) continue;
        if (bad++ == 0) {
            char g[64], w[64], xa[64], xb[64] = "";
            ew_fmt(g, sizeof g, got[i], ot);
            ew_fmt(w, sizeof w, want[i], ot);
            ew_fmt(xa, sizeof xa, ha.v[bindex(L->ondim, L->oshape, i, ha.ndim, ha.shape)], ta);
            if (binary) ew_fmt(xb, sizeof xb, hb.v[bindex(L->ondim, L->oshape, i, hb.ndim, hb.shape)], tb);
            failf(st, "%s on %s (%s, loop %s, out %s): element %lld: got %s, want %s (inputs %s %s)", opname, tn,
                  L->name, nd_dtype_name(loop), nd_dtype_name(ot), (long long)i, g, w, xa, xb);
        }
    }
    if (bad > 1) failf(st, "%s on %s (%s): %d elements differ in all", opname, tn, L->name, bad);
    if (obase) { /* nothing outside the sliced out was written */
        size_t isz = nd_dtype_size(ot), nb = isz * (size_t)nd_size(obase);
        unsigned char *p = malloc(nb);
        ND_OK_OR_FAIL(nd_copy_to_host(p, obase, nb));
        int64_t br, bc, C = L->oshape[1];
        slice_geom(L->oshape, &br, &bc);
        for (int64_t e = 0; e < br * bc; e++) {
            int64_t r = e / bc, c = e % bc;
            bool in_view = r % 2 == 1 && (3 * C + 1 - c) % 3 == 0 && c <= 3 * C + 1 && c >= 4;
            if (in_view) continue;
            for (size_t k = 0; k < isz; k++)
                if (p[isz * (size_t)e + k] != 0x3c) {
                    failf(st, "%s on %s (%s): wrote outside the out view at base element %lld", opname, tn, L->name,
                          (long long)e);
                    e = br * bc;
                    break;
                }
        }
        free(p);
    }
    /* inputs are untouched unless they are the out */
    if (L->out != OUT_INPLACE_A && L->out != OUT_INPLACE_B && L->out != OUT_OVERLAP) {
        const nd_array *ins[2] = {A, Bv};
        const hostarr *hs[2] = {&ha, &hb};
        for (int k = 0; k < 2; k++) {
            if (!ins[k] || nd_size(ins[k]) != hs[k]->n) continue;
            ew_val *v = readback(ins[k]);
            for (int64_t i = 0; i < hs[k]->n; i++)
                if (!same_input(v[i], hs[k]->v[i], hs[k]->t)) {
                    failf(st, "%s on %s (%s): input %d was modified", opname, tn, L->name, k);
                    break;
                }
            free(v);
        }
    }
count:
    st->cases++;
    st->per_op[binary ? ND_NUM_UNARY_OPS + op : op]++;
cleanup:
    nd_release(O);
    nd_release(obase);
    nd_release(A);
    nd_release(Bv);
    nd_release(abase);
    free(want);
    free(got);
    free(ha.v);
    free(hb.v);
}

static void run_device(nd_device dev, const char *devname)
{
    ew_stats st;
    memset(&st, 0, sizeof st);
    st.dev = devname;
    for (int op = 0; op < ND_NUM_UNARY_OPS; op++)
        for (int t = 0; t < NT_NREAL; t++)
            for (int l = 0; l < NLAYOUTS; l++) run_case(&st, false, op, (nd_dtype)t, l, dev);
    for (int op = 0; op < ND_NUM_BINARY_OPS; op++)
        for (int t = 0; t < NT_NREAL; t++)
            for (int l = 0; l < NLAYOUTS; l++) run_case(&st, true, op, (nd_dtype)t, l, dev);
    for (int k = 0; k < ND_NUM_UNARY_OPS + ND_NUM_BINARY_OPS; k++)
        if (st.per_op[k] == 0)
            failf(&st, "op %s has no case", k < ND_NUM_UNARY_OPS ? nd_unary_op_name((nd_unary_op)k)
                                                                 : nd_binary_op_name((nd_binary_op)(k - ND_NUM_UNARY_OPS)));
    printf("elementwise harness: %d ops x dtypes x layouts cases on %s (%d ops, %d dtypes, %d layouts, %d failures)\n",
           st.cases, devname, ND_NUM_UNARY_OPS + ND_NUM_BINARY_OPS, ND_NUM_DTYPES, NLAYOUTS, st.failures);
    fflush(stdout);
    ck_assert_msg(st.failures == 0, "%d elementwise harness failures on %s (the first are on stderr)", st.failures,
                  devname);
}

START_TEST(harness_cpu) { run_device(nd_cpu(), "cpu"); }
END_TEST

START_TEST(harness_cuda) { run_device(nd_cuda(0), "cuda:0"); }
END_TEST

TCase *ew_tcase_harness(void)
{
    TCase *tc = tcase_create("harness");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, harness_cpu);
    if (nd_test_gpu_count() > 0) {
        tcase_add_test(tc, harness_cuda);
    } else {
        printf("elementwise harness: cuda backend SKIPPED (no GPU)\n");
        fflush(stdout);
    }
    return tc;
}
