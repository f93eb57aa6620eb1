/* Helpers of the manipulation suites (tests/test_manip*.c, tests/test_einsum.c): random inputs of
 * every dtype in every layout (contiguous, transposed, sliced with steps
 * of either sign, broadcast), host-side reference tensors in double, and
 * comparison of a result against a reference. */
#ifndef ND_MP_UTIL_H
#define ND_MP_UTIL_H

#include "creation_util.h"

typedef struct {
    uint64_t s;
} mp_rng;
static inline uint64_t mp_next(mp_rng *r)
{
    r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
    return r->s >> 33;
}
static inline int64_t mp_int(mp_rng *r, int64_t lo, int64_t hi) { return lo + (int64_t)(mp_next(r) % (uint64_t)(hi - lo + 1)); }

/* A host tensor: C-order doubles. */
typedef struct {
    int ndim;
    int64_t shape[ND_MAX_DIMS];
    int64_t size;
    double *v;
} mp_t;

static inline int64_t mp_size(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    return n;
}
static inline mp_t mp_new(int ndim, const int64_t *shape)
{
    mp_t t;
    t.ndim = ndim;
    for (int i = 0; i < ndim; i++) t.shape[i] = shape[i];
    t.size = mp_size(ndim, shape);
    t.v = calloc((size_t)t.size + 1, sizeof(double));
    ck_assert(t.v != NULL);
    return t;
}
static inline mp_t mp_of(const nd_array *a)
{
    mp_t t;
    t.ndim = nd_ndim(a);
    for (int i = 0; i < t.ndim; i++) t.shape[i] = nd_shape(a)[i];
    t.size = nd_size(a);
    t.v = cv_values(a);
    return t;
}
/* flat index -> coordinates and back */
static inline void mp_unravel(const mp_t *t, int64_t f, int64_t *idx)
{
    for (int i = t->ndim - 1; i >= 0; i--) {
        idx[i] = t->shape[i] ? f % t->shape[i] : 0;
        f = t->shape[i] ? f / t->shape[i] : 0;
    }
}
static inline int64_t mp_ravel(const mp_t *t, const int64_t *idx)
{
    int64_t f = 0;
    for (int i = 0; i < t->ndim; i++) f = f * t->shape[i] + idx[i];
    return f;
}

/* A value of dtype t that is exact in it (small integers, halves for floats). */
static inline double mp_value(mp_rng *r, nd_dtype t, int mag)
{
    switch (t) {
    case ND_BOOL: return (double)mp_int(r, 0, 1);
    case ND_UINT8: case ND_UINT16: case ND_UINT32: case ND_UINT64: return (double)mp_int(r, 1, mag);
    case ND_FLOAT16: case ND_BFLOAT16: case ND_FLOAT32: case ND_FLOAT64: return (double)mp_int(r, -2 * mag, 2 * mag) / 2;
    default: {
        double v = (double)mp_int(r, -mag, mag);
        return v == 0 ? 1 : v;
    }
    }
}

static inline bool mp_is_float(nd_dtype t)
{
    return t == ND_FLOAT16 || t == ND_BFLOAT16 || t == ND_FLOAT32 || t == ND_FLOAT64;
}
static inline char *mp_fmt_shape(char *b, size_t cap, int nd, const int64_t *s)
{
    size_t k = (size_t)snprintf(b, cap, "(");
    for (int i = 0; i < nd && k < cap; i++) k += (size_t)snprintf(b + k, cap - k, i ? ",%lld" : "%lld", (long long)s[i]);
    if (k < cap) snprintf(b + k, cap - k, ")");
    return b;
}
/* the real dtypes: several manipulation ops compute (trace, outer,
 * einsum); their complex cases are tests/test_complex.c's */
static inline nd_dtype mp_dtype(mp_rng *r) { return cv_all_dtypes[mp_int(r, 0, NT_NREAL - 1)]; }

enum { MP_CONTIG, MP_TRANSPOSED, MP_SLICED, MP_BROADCAST, MP_NLAYOUTS };
static const char *const mp_layout_names[MP_NLAYOUTS] = {"contiguous", "transposed", "sliced", "broadcast"};

/* A random array of the given logical shape in layout `layout`; *ref
 * gets its values (C order). mag bounds the integer magnitudes. */
static inline nd_array *mp_input(mp_rng *r, nd_dtype t, int ndim, const int64_t *shape, int layout, int mag,
                                 nd_device dev, mp_t *ref)
{
    nd_array *a = NULL;
    int64_t base[ND_MAX_DIMS];
    if (layout == MP_TRANSPOSED && ndim >= 2) {
        for (int i = 0; i < ndim; i++) base[i] = shape[ndim - 1 - i];
        mp_t b = mp_new(ndim, base);
        for (int64_t i = 0; i < b.size; i++) b.v[i] = mp_value(r, t, mag);
        nd_array *x = cv_make(t, ndim, base, b.v, dev);
        free(b.v);
        ND_OK_OR_FAIL(nd_transpose(&a, x, NULL));
        nd_release(x);
    } else if (layout == MP_SLICED && ndim >= 1) {
        nd_range rg[ND_MAX_DIMS];
        for (int i = 0; i < ndim; i++) {
            int64_t step = mp_int(r, 1, 2) * (mp_int(r, 0, 1) ? -1 : 1);
            int64_t ext = shape[i] * (step < 0 ? -step : step) + 1;
            base[i] = ext;
            rg[i] = step > 0 ? (nd_range){1, ND_NONE, step} : (nd_range){ext - 2, ND_NONE, step};
            if (shape[i] == 0) rg[i] = (nd_range){0, 0, step};
        }
        mp_t b = mp_new(ndim, base);
        for (int64_t i = 0; i < b.size; i++) b.v[i] = mp_value(r, t, mag);
        nd_array *x = cv_make(t, ndim, base, b.v, dev);
        free(b.v);
        ND_OK_OR_FAIL(nd_slice(&a, x, ndim, rg));
        nd_release(x);
    } else if (layout == MP_BROADCAST && ndim >= 1) {
        for (int i = 0; i < ndim; i++) base[i] = (mp_int(r, 0, 1) && shape[i] > 0) ? 1 : shape[i];
        mp_t b = mp_new(ndim, base);
        for (int64_t i = 0; i < b.size; i++) b.v[i] = mp_value(r, t, mag);
        nd_array *x = cv_make(t, ndim, base, b.v, dev);
        free(b.v);
        ND_OK_OR_FAIL(nd_broadcast_to(&a, x, ndim, shape));
        nd_release(x);
    } else {
        mp_t b = mp_new(ndim, shape);
        for (int64_t i = 0; i < b.size; i++) b.v[i] = mp_value(r, t, mag);
        a = cv_make(t, ndim, shape, b.v, dev);
        free(b.v);
    }
    cv_expect_shape(a, ndim, shape);
    *ref = mp_of(a);
    return a;
}

static inline void mp_random_shape(mp_rng *r, int minnd, int maxnd, int maxext, int *ndim, int64_t *shape)
{
    *ndim = (int)mp_int(r, minnd, maxnd);
    for (int i = 0; i < *ndim; i++) shape[i] = mp_int(r, 0, 9) == 0 ? 0 : mp_int(r, 1, maxext);
}

/* A poisoned destination for the out rule, or NULL (a fresh result). */
static inline nd_array *mp_maybe_out(mp_rng *r, nd_dtype t, int ndim, const int64_t *shape, nd_device dev)
{
    if (mp_int(r, 0, 2) != 0) return NULL;
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_empty(&o, t, ndim, shape, dev));
    cv_poison(o, t == ND_BOOL ? 1 : 77);
    return o;
}

/* Assert a has dtype t, ref's shape and ref's values exactly. */
static inline void mp_expect(const nd_array *a, nd_dtype t, const mp_t *ref, const char *what)
{
    ck_assert_msg(a != NULL, "%s: no result", what);
    ck_assert_msg(nd_dtype_of(a) == t, "%s: dtype %s, want %s", what, nd_dtype_name(nd_dtype_of(a)), nd_dtype_name(t));
    ck_assert_msg(nd_ndim(a) == ref->ndim, "%s: ndim %d, want %d", what, nd_ndim(a), ref->ndim);
    for (int i = 0; i < ref->ndim; i++)
        ck_assert_msg(nd_shape(a)[i] == ref->shape[i], "%s: axis %d extent %lld, want %lld", what, i,
                      (long long)nd_shape(a)[i], (long long)ref->shape[i]);
    double *v = cv_values(a);
    for (int64_t i = 0; i < ref->size; i++) {
        bool ok = (isnan(ref->v[i]) && isnan(v[i])) || v[i] == ref->v[i];
        ck_assert_msg(ok, "%s: element %lld: got %.17g, want %.17g", what, (long long)i, v[i], ref->v[i]);
    }
    free(v);
}

#endif
