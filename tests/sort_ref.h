/* Helpers of the sort suites (tests/test_sort*.c): inputs with many ties,
 * NaNs of both signs, +-0.0, infinities and integer extremes in every
 * layout; host copies with exact values (long double holds every value of
 * every dtype, int64/uint64 included) and raw bits; the reference order. */
#ifndef ND_TEST_SORT_REF_H
#define ND_TEST_SORT_REF_H
#include "test_util.h"

static inline nd_device sr_dev(int i) { return i ? nd_cuda(0) : nd_cpu(); }

static inline uint64_t sr_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 17;
}

typedef struct sr_host {
    int64_t n;
    size_t isz;
    nd_dtype t;
    long double *v;   /* values (NaN for NaNs) */
    int64_t *i;       /* the int64 values (int64 arrays only) */
    unsigned char *b; /* raw bits, C order */
} sr_host;

static inline void sr_free(sr_host *h)
{
    free(h->v);
    free(h->b);
    memset(h, 0, sizeof *h);
}

/* a (any device, any layout) as C-order host values and bits */
static inline void sr_load(sr_host *h, const nd_array *a)
{
    nd_array *c = NULL, *hc = NULL, *f = NULL;
    ND_OK_OR_FAIL(nd_contiguous(&c, a));
    ND_OK_OR_FAIL(nd_to_device(&hc, c, nd_cpu()));
    h->t = nd_dtype_of(a);
    h->n = nd_size(a);
    h->isz = nd_dtype_size(h->t);
    h->b = malloc(h->isz * (size_t)(h->n ? h->n : 1));
    h->v = malloc(sizeof(long double) * (size_t)(h->n ? h->n : 1));
    ND_OK_OR_FAIL(nd_copy_to_host(h->b, hc, h->isz * (size_t)h->n));
    h->i = h->t == ND_INT64 ? (int64_t *)h->b : NULL;
    double *fd = NULL;
    if (h->t == ND_FLOAT16 || h->t == ND_BFLOAT16 || h->t == ND_FLOAT32 || h->t == ND_FLOAT64) {
        ND_OK_OR_FAIL(nd_astype(&f, hc, ND_FLOAT64));
        fd = malloc(sizeof(double) * (size_t)(h->n ? h->n : 1));
        ND_OK_OR_FAIL(nd_copy_to_host(fd, f, sizeof(double) * (size_t)h->n));
    }
    for (int64_t k = 0; k < h->n; k++) {
        const unsigned char *p = h->b + (size_t)k * h->isz;
        long double x = 0;
        switch (h->t) {
        case ND_BOOL: x = *p != 0; break;
        case ND_INT8: x = *(const int8_t *)p; break;
        case ND_INT16: x = *(const int16_t *)p; break;
        case ND_INT32: x = *(const int32_t *)p; break;
        case ND_INT64: x = *(const int64_t *)p; break;
        case ND_UINT8: x = *(const uint8_t *)p; break;
        case ND_UINT16: x = *(const uint16_t *)p; break;
        case ND_UINT32: x = *(const uint32_t *)p; break;
        case ND_UINT64: x = *(const uint64_t *)p; break;
        default: x = fd[k]; break;
        }
        h->v[k] = x;
    }
    free(fd);
    nd_release(c);
    nd_release(hc);
    nd_release(f);
}

static inline bool sr_bits_eq(const sr_host *a, int64_t i, const sr_host *b, int64_t j)
{
    return a->isz == b->isz && memcmp(a->b + (size_t)i * a->isz, b->b + (size_t)j * b->isz, a->isz) == 0;
}

/* NumPy's order: NaNs last, -0 == 0 */
static inline int sr_cmp_ld(long double x, long double y)
{
    bool nx = isnan(x), ny = isnan(y);
    if (nx || ny) return nx - ny;
    return x < y ? -1 : x > y;
}

typedef struct sr_pair {
    long double v;
    int64_t i;
    int desc;
} sr_pair;

static inline int sr_cmp_pair(const void *pa, const void *pb)
{
    const sr_pair *a = (const sr_pair *)pa, *b = (const sr_pair *)pb;
    int c = sr_cmp_ld(a->v, b->v);
    if (a->desc) c = -c;
    if (c) return c;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* ref = the stable order of vals[0..n) (descending: reversed order, ties
 * still by index) */
static inline void sr_ref_order(const long double *vals, int64_t n, bool desc, int64_t *ref)
{
    sr_pair *p = malloc(sizeof(sr_pair) * (size_t)(n ? n : 1));
    for (int64_t k = 0; k < n; k++) p[k] = (sr_pair){vals[k], k, desc};
    qsort(p, (size_t)n, sizeof *p, sr_cmp_pair);
    for (int64_t k = 0; k < n; k++) ref[k] = p[k].i;
    free(p);
}

/* n values of dtype t: many ties, specials, extremes */
static inline nd_array *sr_values(nd_dtype t, int64_t n, uint64_t *seed)
{
    nd_array *h = NULL, *r = NULL;
    int64_t shp = n;
    if (t == ND_UINT64) {
        static const uint64_t ext[] = {0, 1, 2, UINT64_MAX, UINT64_MAX - 1, 1ull << 63, (1ull << 63) - 1, 5};
        uint64_t *u = malloc(8 * (size_t)(n ? n : 1));
        for (int64_t k = 0; k < n; k++) u[k] = sr_rand(seed) % 3 ? ext[sr_rand(seed) % 8] : sr_rand(seed) << 20;
        ND_OK_OR_FAIL(nd_from_host(&r, u, ND_UINT64, 1, &shp, nd_cpu()));
        free(u);
        return r;
    }
    if (t == ND_INT64) {
        static const int64_t ext[] = {INT64_MIN, INT64_MAX, -1, 0, 1, INT64_MIN + 1, 7, -7};
        int64_t *u = malloc(8 * (size_t)(n ? n : 1));
        for (int64_t k = 0; k < n; k++) u[k] = sr_rand(seed) % 3 ? ext[sr_rand(seed) % 8] : (int64_t)(sr_rand(seed) << 16) - (1ll << 45);
        ND_OK_OR_FAIL(nd_from_host(&r, u, ND_INT64, 1, &shp, nd_cpu()));
        free(u);
        return r;
    }
    double *d = malloc(8 * (size_t)(n ? n : 1));
    bool fl = t == ND_FLOAT16 || t == ND_BFLOAT16 || t == ND_FLOAT32 || t == ND_FLOAT64;
    double lo = 0, hi = 1;
    switch (t) {
    case ND_INT8: lo = -128, hi = 127; break;
    case ND_INT16: lo = -32768, hi = 32767; break;
    case ND_INT32: lo = -2147483648.0, hi = 2147483647.0; break;
    case ND_UINT8: hi = 255; break;
    case ND_UINT16: hi = 65535; break;
    case ND_UINT32: hi = 4294967295.0; break;
    default: break;
    }
    for (int64_t k = 0; k < n; k++) {
        uint64_t r0 = sr_rand(seed) % 16;
        if (fl) {
            static const double sp[] = {-INFINITY, -2.5, -1.0, -0.0, 0.0, 1.0, 1.5, 3.0, INFINITY, NAN, -NAN, 65504.0};
            d[k] = r0 < 12 ? sp[r0] : ((double)(sr_rand(seed) % 20000) - 10000.0) / 64.0;
        } else if (t == ND_BOOL) {
            d[k] = (double)(r0 & 1);
        } else {
            d[k] = r0 == 0 ? lo : r0 == 1 ? hi : r0 < 8 ? (double)(r0 % 4) : lo + (double)(sr_rand(seed) % (uint64_t)(hi - lo + 1));
        }
    }
    ND_OK_OR_FAIL(nd_from_host(&h, d, ND_FLOAT64, 1, &shp, nd_cpu()));
    ND_OK_OR_FAIL(nd_astype(&r, h, t));
    nd_release(h);
    free(d);
    return r;
}

#define SR_NLAYOUTS 4
/* An array of dtype t and shape on dev in layout 0 contiguous, 1 a
 * transposed view, 2 a view with steps 2 (and an offset), 3 stride 0 on
 * axis 0 (broadcast) */
static inline nd_array *sr_make(nd_dtype t, int nd, const int64_t *shape, int layout, uint64_t *seed, nd_device dev)
{
    int64_t base[4], n = 1;
    for (int d = 0; d < nd; d++) {
        if (layout == 1) base[d] = shape[nd - 1 - d];
        else if (layout == 2) base[d] = 2 * shape[d] + 1;
        else if (layout == 3 && d == 0) base[d] = 1;
        else base[d] = shape[d];
        n *= base[d];
    }
    nd_array *flat = sr_values(t, n, seed), *hb = NULL, *db = NULL, *v = NULL;
    ND_OK_OR_FAIL(nd_reshape(&hb, flat, nd, base));
    ND_OK_OR_FAIL(nd_to_device(&db, hb, dev));
    if (layout == 1) {
        ND_OK_OR_FAIL(nd_transpose(&v, db, NULL));
    } else if (layout == 2) {
        nd_range rg[4];
        for (int d = 0; d < nd; d++) rg[d] = (nd_range){1, ND_NONE, 2};
        ND_OK_OR_FAIL(nd_slice(&v, db, nd, rg));
    } else if (layout == 3) {
        ND_OK_OR_FAIL(nd_broadcast_to(&v, db, nd, shape));
    } else {
        v = nd_retain(db);
    }
    for (int d = 0; d < nd; d++) ck_assert_int_eq(nd_shape(v)[d], shape[d]);
    nd_release(flat);
    nd_release(hb);
    nd_release(db);
    return v;
}

/* a and b hold the same bits (same dtype and shape) */
static inline void sr_assert_same(const nd_array *a, const nd_array *b)
{
    sr_host ha, hb;
    sr_load(&ha, a);
    sr_load(&hb, b);
    ck_assert_int_eq(ha.n, hb.n);
    ck_assert_int_eq(ha.t, hb.t);
    for (int64_t k = 0; k < ha.n; k++) ck_assert_msg(sr_bits_eq(&ha, k, &hb, k), "element %lld differs", (long long)k);
    sr_free(&ha);
    sr_free(&hb);
}
#endif
