/* Helpers of the indexing suites (tests/test_index.c, test_index_mask.c):
 * random data of every dtype in every layout, a host reference in double
 * (values are small integers or quarters, exact in every dtype). */
#ifndef ND_IX_UTIL_H
#define ND_IX_UTIL_H
#include "creation_util.h"

static const nd_dtype ix_int_dtypes[8] = {ND_INT8, ND_INT16, ND_INT32, ND_INT64,
                                          ND_UINT8, ND_UINT16, ND_UINT32, ND_UINT64};

static inline uint64_t ix_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}
static inline int64_t ix_range(uint64_t *s, int64_t lo, int64_t hi) /* [lo, hi] */
{
    return lo + (int64_t)(ix_rand(s) % (uint64_t)(hi - lo + 1));
}

/* A random value exactly representable in t (never all zeros overall:
 * zero only one time in four). */
static inline double ix_value(uint64_t *s, nd_dtype t)
{
    if (t == ND_BOOL) return (double)(ix_rand(s) % 4 != 0);
    int64_t v = ix_range(s, 1, 40);
    if (ix_rand(s) % 4 == 0) v = 0;
    bool uns = t == ND_UINT8 || t == ND_UINT16 || t == ND_UINT32 || t == ND_UINT64;
    if (!uns && ix_rand(s) % 2) v = -v;
    if (t == ND_FLOAT16 || t == ND_BFLOAT16 || t == ND_FLOAT32 || t == ND_FLOAT64) return (double)v / 4;
    return (double)v;
}

static inline double *ix_values(uint64_t *s, nd_dtype t, int64_t n)
{
    double *v = malloc(((size_t)n + 1) * sizeof *v);
    ck_assert(v != NULL);
    for (int64_t i = 0; i < n; i++) v[i] = ix_value(s, t);
    return v;
}

/* An array of logical shape (ndim, shape) holding vals (C order) in one of
 * four layouts: 0 C-contiguous, 1 transposed (a C array of the reversed
 * shape, transposed), 2 every other element of a wider last axis, 3 axis
 * 0 reversed (negative stride). */
static inline nd_array *ix_layout(nd_dtype t, int ndim, const int64_t *shape, const double *vals, nd_device dev,
                                  int layout)
{
    int64_t bshape[ND_MAX_DIMS];
    nd_array *base = NULL, *v = NULL;
    if (ndim == 0) layout = 0;
    if (layout == 1) {
        for (int d = 0; d < ndim; d++) bshape[d] = shape[ndim - 1 - d];
        ND_OK_OR_FAIL(nd_empty(&base, t, ndim, bshape, dev));
        ND_OK_OR_FAIL(nd_transpose(&v, base, NULL));
    } else if (layout == 2) {
        for (int d = 0; d < ndim; d++) bshape[d] = shape[d];
        bshape[ndim - 1] = 2 * shape[ndim - 1];
        ND_OK_OR_FAIL(nd_empty(&base, t, ndim, bshape, dev));
        nd_range r[ND_MAX_DIMS];
        for (int d = 0; d < ndim; d++) r[d] = ND_ALL;
        r[ndim - 1] = (nd_range){0, ND_NONE, 2};
        ND_OK_OR_FAIL(nd_slice(&v, base, ndim, r));
    } else if (layout == 3) {
        ND_OK_OR_FAIL(nd_empty(&base, t, ndim, shape, dev));
        ND_OK_OR_FAIL(nd_slice(&v, base, 1, &(nd_range){ND_NONE, ND_NONE, -1}));
    } else {
        ND_OK_OR_FAIL(nd_empty(&v, t, ndim, shape, dev));
    }
    nd_release(base);
    int64_t n = nd_size(v);
    size_t isz = nd_dtype_size(t);
    unsigned char *raw = malloc((size_t)n * isz + 1);
    ck_assert(raw != NULL);
    for (int64_t i = 0; i < n; i++) cv_elem_store(raw + (size_t)i * isz, t, vals[i]);
    ND_OK_OR_FAIL(nd_copy_from_host(v, raw, nd_nbytes(v)));
    free(raw);
    for (int d = 0; d < ndim; d++) ck_assert_int_eq(nd_shape(v)[d], shape[d]);
    return v;
}

/* Int64 index values stored in an index array of dtype t (in its range). */
static inline nd_array *ix_index_array(nd_dtype t, int ndim, const int64_t *shape, const int64_t *vals, nd_device dev,
                                       int layout)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    double *v = malloc(((size_t)n + 1) * sizeof *v);
    ck_assert(v != NULL);
    for (int64_t i = 0; i < n; i++) v[i] = (double)vals[i];
    nd_array *a = ix_layout(t, ndim, shape, v, dev, layout);
    free(v);
    return a;
}

/* An integer dtype that holds every value in [lo, hi]. */
static inline nd_dtype ix_index_dtype(uint64_t *s, int64_t lo, int64_t hi)
{
    for (;;) {
        nd_dtype t = ix_int_dtypes[ix_rand(s) % 8];
        double mn, mx;
        switch (t) {
        case ND_INT8: mn = -128, mx = 127; break;
        case ND_INT16: mn = -32768, mx = 32767; break;
        case ND_UINT8: mn = 0, mx = 255; break;
        case ND_UINT16: mn = 0, mx = 65535; break;
        case ND_UINT32: case ND_UINT64: mn = 0, mx = 1e18; break;
        default: mn = -1e18, mx = 1e18; break;
        }
        if ((double)lo >= mn && (double)hi <= mx) return t;
    }
}

static inline int64_t ix_prod(int n, const int64_t *s)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++) p *= s[i];
    return p;
}

/* C-order coordinates of flat index i in shape. */
static inline void ix_unravel(int64_t i, int n, const int64_t *shape, int64_t *c)
{
    for (int d = n - 1; d >= 0; d--) {
        c[d] = shape[d] ? i % shape[d] : 0;
        i = shape[d] ? i / shape[d] : 0;
    }
}
static inline int64_t ix_ravel(int n, const int64_t *shape, const int64_t *c)
{
    int64_t f = 0;
    for (int d = 0; d < n; d++) f = f * shape[d] + c[d];
    return f;
}

/* Compare with a reference (exact; NaN == NaN). */
static inline void ix_expect(const nd_array *r, int ndim, const int64_t *shape, const double *want, const char *what)
{
    ck_assert_msg(nd_ndim(r) == ndim, "%s: ndim %d, want %d", what, nd_ndim(r), ndim);
    for (int d = 0; d < ndim; d++)
        ck_assert_msg(nd_shape(r)[d] == shape[d], "%s: axis %d extent %lld, want %lld", what, d,
                      (long long)nd_shape(r)[d], (long long)shape[d]);
    int64_t n = ix_prod(ndim, shape);
    double *v = cv_values(r);
    for (int64_t i = 0; i < n; i++) {
        bool ok = (isnan(want[i]) && isnan(v[i])) || v[i] == want[i];
        ck_assert_msg(ok, "%s: element %lld: got %.17g, want %.17g", what, (long long)i, v[i], want[i]);
    }
    free(v);
}

/* Devices of the value tests; the ix suites run the same cases on each. */
static inline int ix_devices(nd_device *devs) { return cv_devices(devs); }

#endif
