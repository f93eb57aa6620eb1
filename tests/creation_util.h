/* Helpers shared by the creation / views / joins suites (test_create.c,
 * test_views.c, test_join.c). */
#ifndef ND_CV_UTIL_H
#define ND_CV_UTIL_H

#include "shared/half.h"
#include "test_util.h"

static const nd_dtype cv_all_dtypes[ND_NUM_DTYPES] = {ND_BOOL,   ND_INT8,    ND_INT16,   ND_INT32,  ND_INT64,
                                                       ND_UINT8,  ND_UINT16,  ND_UINT32,  ND_UINT64, ND_FLOAT16,
                                                       ND_BFLOAT16, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64,
                                                       ND_COMPLEX128};

/* A complex element's imaginary part was not 0: cv_elem_f64's value for
 * it, which no reference value equals. */
#define CV_BAD_IMAG 1.0e300

/* One element of dtype t at p as a double (complex: the real part, and
 * CV_BAD_IMAG unless the imaginary part is 0 - the suites that use these
 * helpers store real values, (d, 0), into complex arrays; the imaginary
 * part's own travels are tests/test_complex.c's). */
static inline double cv_elem_f64(const unsigned char *p, nd_dtype t)
{
    switch (t) {
    case ND_COMPLEX64: { float v[2]; memcpy(v, p, 8); return v[1] == 0.0f ? v[0] : CV_BAD_IMAG; }
    case ND_COMPLEX128: { double v[2]; memcpy(v, p, 16); return v[1] == 0.0 ? v[0] : CV_BAD_IMAG; }
    case ND_BOOL: return p[0] != 0;
    case ND_INT8: { int8_t v; memcpy(&v, p, 1); return v; }
    case ND_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case ND_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case ND_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case ND_UINT8: return p[0];
    case ND_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case ND_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case ND_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case ND_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return nd_half_to_float(v); }
    case ND_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); return nd_bf16_to_float(v); }
    case ND_FLOAT32: { float v; memcpy(&v, p, 4); return v; }
    default: { double v; memcpy(&v, p, 8); return v; }
    }
}

/* Store a double into one element of dtype t (test-side reference
 * conversion; values are chosen exactly representable; an integer out of
 * the dtype's range wraps as C's conversion from int64 does). */
static inline void cv_elem_store(unsigned char *p, nd_dtype t, double d)
{
    switch (t) {
    case ND_BOOL: p[0] = d != 0; break;
    case ND_INT8: { int8_t v = (int8_t)(int64_t)d; memcpy(p, &v, 1); break; }
    case ND_INT16: { int16_t v = (int16_t)(int64_t)d; memcpy(p, &v, 2); break; }
    case ND_INT32: { int32_t v = (int32_t)(int64_t)d; memcpy(p, &v, 4); break; }
    case ND_INT64: { int64_t v = (int64_t)d; memcpy(p, &v, 8); break; }
    case ND_UINT8: p[0] = (uint8_t)(int64_t)d; break;
    case ND_UINT16: { uint16_t v = (uint16_t)(int64_t)d; memcpy(p, &v, 2); break; }
    case ND_UINT32: { uint32_t v = (uint32_t)(int64_t)d; memcpy(p, &v, 4); break; }
    case ND_UINT64: { uint64_t v = d >= 9223372036854775808.0 ? (uint64_t)d : (uint64_t)(int64_t)d; memcpy(p, &v, 8); break; }
    case ND_FLOAT16: { uint16_t v = nd_double_to_half(d); memcpy(p, &v, 2); break; }
    case ND_BFLOAT16: { uint16_t v = nd_double_to_bf16(d); memcpy(p, &v, 2); break; }
    case ND_FLOAT32: { float v = (float)d; memcpy(p, &v, 4); break; }
    case ND_COMPLEX64: { float v[2] = {(float)d, 0.0f}; memcpy(p, v, 8); break; }
    case ND_COMPLEX128: { double v[2] = {d, 0.0}; memcpy(p, v, 16); break; }
    default: memcpy(p, &d, 8); break;
    }
}

/* d rounded to dtype t (a store and a load: integers wrap as C's conversion
 * from int64 does, floats round to nearest even). */
static inline double cv_round(nd_dtype t, double d)
{
    unsigned char b[16];
    cv_elem_store(b, t, d);
    return cv_elem_f64(b, t);
}

/* All elements of a (any layout / device) in C order as doubles; the
 * caller frees. Never NULL (a 1-element buffer for empty arrays). */
static inline double *cv_values(const nd_array *a)
{
    int64_t n = nd_size(a);
    size_t isz = nd_dtype_size(nd_dtype_of(a));
    unsigned char *raw = malloc((size_t)n * isz + 1);
    double *v = malloc(((size_t)n + 1) * sizeof *v);
    ck_assert(raw && v);
    ND_OK_OR_FAIL(nd_copy_to_host(raw, a, nd_nbytes(a)));
    for (int64_t i = 0; i < n; i++) v[i] = cv_elem_f64(raw + (size_t)i * isz, nd_dtype_of(a));
    free(raw);
    return v;
}

/* Assert a's values (C order) equal want[0..n) exactly (NaN == NaN). */
static inline void cv_expect_values(const nd_array *a, int64_t n, const double *want)
{
    ck_assert_int_eq(nd_size(a), n);
    double *v = cv_values(a);
    for (int64_t i = 0; i < n; i++) {
        bool ok = (isnan(want[i]) && isnan(v[i])) || v[i] == want[i];
        ck_assert_msg(ok, "element %lld: got %.17g, want %.17g", (long long)i, v[i], want[i]);
    }
    free(v);
}

/* Assert the shape of a. */
static inline void cv_expect_shape(const nd_array *a, int ndim, const int64_t *shape)
{
    ck_assert_int_eq(nd_ndim(a), ndim);
    for (int i = 0; i < ndim; i++)
        ck_assert_msg(nd_shape(a)[i] == shape[i], "axis %d: extent %lld, want %lld", i, (long long)nd_shape(a)[i],
                      (long long)shape[i]);
}

/* New array of dtype t from doubles (C order). */
static inline nd_array *cv_make(nd_dtype t, int ndim, const int64_t *shape, const double *vals, nd_device dev)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    size_t isz = nd_dtype_size(t);
    unsigned char *raw = malloc((size_t)n * isz + 1);
    ck_assert(raw != NULL);
    for (int64_t i = 0; i < n; i++) cv_elem_store(raw + (size_t)i * isz, t, vals[i]);
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, raw, t, ndim, shape, dev));
    free(raw);
    return a;
}

/* New array 1, 2, 3, ... (i + 1) of dtype t: never all zeros. */
static inline nd_array *cv_iota(nd_dtype t, int ndim, const int64_t *shape, nd_device dev)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    double *v = malloc(((size_t)n + 1) * sizeof *v);
    ck_assert(v != NULL);
    for (int64_t i = 0; i < n; i++) v[i] = (double)(i + 1);
    nd_array *a = cv_make(t, ndim, shape, v, dev);
    free(v);
    return a;
}

/* Fill a with the sentinel value (any layout). */
static inline void cv_poison(nd_array *a, double sentinel)
{
    int64_t n = nd_size(a);
    size_t isz = nd_dtype_size(nd_dtype_of(a));
    unsigned char *raw = malloc((size_t)n * isz + 1);
    ck_assert(raw != NULL);
    for (int64_t i = 0; i < n; i++) cv_elem_store(raw + (size_t)i * isz, nd_dtype_of(a), sentinel);
    ND_OK_OR_FAIL(nd_copy_from_host(a, raw, nd_nbytes(a)));
    free(raw);
}

/* The devices to run value tests on: the CPU, and cuda:0 when the runner
 * found a GPU (then a failure to use it is a test failure, never a silent
 * CPU-only run). */
static inline int cv_devices(nd_device *devs)
{
    int n = 0;
    devs[n++] = nd_cpu();
    if (nd_test_gpu_count() > 0) devs[n++] = nd_cuda(0);
    return n;
}

#endif
