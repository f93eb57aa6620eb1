/* Array creation: zeros, ones, full, arange, linspace, eye and the *_like
 * functions. (nd_empty, nd_from_host and the copies live in array.c and
 * copy.c.)
 *
 * Constant fills go through the backend's fill. Computed contents
 * (arange, linspace, eye) are produced on the host, directly in the
 * array's buffer on the CPU, else in a temporary copied with memcpy_h2d.
 * With a user 'out' (the out-transaction, src/core/out.h) the result is made in
 * the requested dtype first (directly in 'out' when it has that dtype) and
 * then cast into 'out', so the values are exactly those of the fresh result. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shared/half.h"
#include "core/internal.h"
#include "core/out.h"
#include "core/prof.h"

/* ------------------------------------------------------------------ */
/* Element stores                                                      */
/* ------------------------------------------------------------------ */

/* Store the low bits of v into an integer (or bool: v != 0) element. */
static void store_bits(void *dst, nd_dtype t, uint64_t v)
{
    switch (nd__itemsize(t)) {
    case 1: {
        uint8_t x = t == ND_BOOL ? (uint8_t)(v != 0) : (uint8_t)v;
        memcpy(dst, &x, 1);
        break;
    }
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(dst, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(dst, &x, 4);
        break;
    }
    default: memcpy(dst, &v, 8); break;
    }
}

/* Store a double into a float element (correctly rounded, also for the
 * 16-bit types). */
static void store_f64(void *dst, nd_dtype t, double d)
{
    switch (t) {
    case ND_COMPLEX64:
    case ND_COMPLEX128: nd__scalar_store(dst, t, nd_scalar_float(d)); break; /* (d, 0) */
    case ND_FLOAT64: memcpy(dst, &d, 8); break;
    case ND_FLOAT32: {
        float f = (float)d;
        memcpy(dst, &f, 4);
        break;
    }
    case ND_FLOAT16: {
        uint16_t h = nd_double_to_half(d);
        memcpy(dst, &h, 2);
        break;
    }
    default: {
        uint16_t h = nd_double_to_bf16(d);
        memcpy(dst, &h, 2);
        break;
    }
    }
}

/* Range of integer dtype t as [lo, hi] in int64 / uint64. */
static void int_range(nd_dtype t, int64_t *lo, uint64_t *hi)
{
    int bits = (int)nd__itemsize(t) * 8;
    if (nd__kind(t) == ND_KIND_INT) {
        *lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
        *hi = (UINT64_C(1) << (bits - 1)) - 1;
    } else {
        *lo = 0;
        *hi = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    }
}

/* Convert a double to integer dtype t the way np.full / np.arange do for
 * a Python float (truncation toward zero); NaN, inf and values outside
 * the dtype are ND_ERR_INVALID (NumPy gives an unspecified value with a
 * warning or raises). The bits (two's complement) go to *bits. */
static nd_status f64_to_int(const char *fn, const char *what, double d, nd_dtype t, uint64_t *bits)
{
    if (!isfinite(d)) return nd__err(ND_ERR_INVALID, fn, "cannot convert %s %g to integer dtype %s", what, d, nd_dtype_name(t));
    double tr = trunc(d);
    int64_t lo;
    uint64_t hi;
    int_range(t, &lo, &hi);
    /* hi + 1 is a power of two, exact in double */
    double hi1 = ldexp(1.0, (int)nd__itemsize(t) * 8 - (nd__kind(t) == ND_KIND_INT ? 1 : 0));
    if (tr < (double)lo || tr >= hi1)
        return nd__err(ND_ERR_INVALID, fn, "%s %.17g is out of bounds for %s", what, d, nd_dtype_name(t));
    if (tr >= 9223372036854775808.0) *bits = (uint64_t)tr;
    else *bits = (uint64_t)(int64_t)tr;
    return ND_OK;
}

/* One element of dtype t holding the weak scalar s (np.full rules: a
 * Python int must fit an integer dtype, a float is cast unsafely). */
static nd_status scalar_bytes(const char *fn, nd_scalar s, nd_dtype t, void *dst)
{
    nd_kind k = nd__kind(t);
    /* a complex dtype takes every scalar as its conversion (an int through
     * the part's float, as np.full's copyto); a complex scalar into a real
     * dtype is NumPy's unsafe cast: the real part (NumPy warns) */
    if ((k == ND_KIND_COMPLEX && s.kind != ND_SCALAR_NONE && (unsigned)s.kind <= ND_SCALAR_COMPLEX) ||
        s.kind == ND_SCALAR_COMPLEX) {
        nd__scalar_store(dst, t, s.kind == ND_SCALAR_INT ? nd_scalar_float((double)s.v.i) : s);
        return ND_OK;
    }
    switch (s.kind) {
    case ND_SCALAR_COMPLEX: break; /* stored above */
    case ND_SCALAR_BOOL:
        if (k == ND_KIND_FLOAT) store_f64(dst, t, s.v.b ? 1.0 : 0.0);
        else store_bits(dst, t, s.v.b ? 1 : 0);
        return ND_OK;
    case ND_SCALAR_INT: {
        int64_t i = s.v.i;
        if (k == ND_KIND_BOOL) {
            store_bits(dst, t, i != 0);
        } else if (k == ND_KIND_FLOAT) {
            /* NumPy converts a Python int through float64 (so
             * np.full(1, 2**62 + 2**38 + 1, np.float32) is 2**62) */
            store_f64(dst, t, (double)i);
        } else {
            int64_t lo;
            uint64_t hi;
            int_range(t, &lo, &hi);
            if (i < lo || (i >= 0 && (uint64_t)i > hi))
                return nd__err(ND_ERR_INVALID, fn, "fill value %lld is out of bounds for %s", (long long)i,
                               nd_dtype_name(t));
            store_bits(dst, t, (uint64_t)i);
        }
        return ND_OK;
    }
    case ND_SCALAR_FLOAT: {
        double f = s.v.f;
        if (k == ND_KIND_BOOL) {
            store_bits(dst, t, f != 0.0 || isnan(f));
        } else if (k == ND_KIND_FLOAT) {
            store_f64(dst, t, f);
        } else {
            /* np.full is empty + copyto(casting='unsafe'): NaN, inf and
             * out-of-range floats convert as nd_astype converts them */
            nd__scalar_store(dst, t, s);
        }
        return ND_OK;
    }
    case ND_SCALAR_NONE: return nd__err(ND_ERR_INVALID, fn, "fill value is ND_SCALAR_NONE (no value)");
    }
    return nd__err(ND_ERR_INVALID, fn, "invalid scalar kind %d", (int)s.kind);
}

/* ------------------------------------------------------------------ */
/* Drivers                                                             */
/* ------------------------------------------------------------------ */

/* Common validation: out pointer, shape (and dtype), device. */
static nd_status check_args(const char *fn, nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape,
                            nd_device dev)
{
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__check_shape(fn, ndim, shape, dtype, NULL);
    if (st) return st;
    return nd__check_device(fn, dev);
}

/* Fill a result of dtype t with the element at value (t's bytes). */
static nd_status create_const(const char *fn, nd_array **out, nd_dtype t, int ndim, const int64_t *shape, nd_device dev,
                              const void *value)
{
    nd_out o;
    nd_status st = nd__out_begin(&o, fn, out, t, ndim, shape, dev);
    if (st) return st;
    nd_array *res = o.res;
    const nd_backend *be = nd__backend(dev);
    if (res->size > 0) {
        if (res->dtype == t) {
            st = be->fill(res, value);
        } else {
            /* 'out' of another dtype: make the 0-d value in t, then cast */
            nd_array *s = NULL;
            st = nd__alloc(&s, t, 0, NULL, dev);
            if (!st) st = be->fill(s, value);
            if (!st) st = nd__copy_into(res, s);
            nd_release(s);
        }
    }
    return nd__out_end(&o, st);
}

/* Writes n elements of dtype t to dst (host memory, C order). */
typedef nd_status (*host_fill_fn)(const char *fn, void *dst, int64_t n, nd_dtype t, const void *ctx);

static nd_status create_host(const char *fn, nd_array **out, nd_dtype t, int ndim, const int64_t *shape, nd_device dev,
                             host_fill_fn fill, const void *ctx)
{
    nd_status st = nd__capture_refuse(fn, dev, "contents computed on the host", "make the array before the capture");
    if (st) return st;
    nd_out o;
    st = nd__out_begin(&o, fn, out, t, ndim, shape, dev);
    if (st) return st;
    if ((st = nd__out_target(&o, t, ND_OUT_EXACT_DTYPE | ND_OUT_CONTIGUOUS, 0, NULL))) return nd__out_end(&o, st);
    nd_array *tgt = o.dst;
    int64_t n = tgt->size;
    if (n > 0) {
        if (dev.type == ND_DEVICE_CPU) {
            st = fill(fn, nd__ptr(tgt), n, t, ctx);
        } else {
            size_t nbytes = (size_t)n * nd__itemsize(t);
            void *host = nd__malloc(nbytes);
            if (!host) {
                st = nd__err(ND_ERR_NOMEM, fn, "out of host memory for a %zu-byte staging buffer", nbytes);
            } else {
                st = fill(fn, host, n, t, ctx);
                if (!st) st = nd__backend(dev)->memcpy_h2d(dev, nd__ptr(tgt), host, nbytes);
                nd__free(host);
            }
        }
    }
    return nd__out_end(&o, st);
}

/* ------------------------------------------------------------------ */
/* zeros / ones / full                                                 */
/* ------------------------------------------------------------------ */
nd_status nd_zeros(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev)
{
    ND_PROF_OP_ON("zeros", out, dev);
    static const char *fn = "nd_zeros";
    nd_status st = check_args(fn, out, dtype, ndim, shape, dev);
    if (st) return st;
    const uint64_t zero[2] = {0, 0}; /* 0 and +0.0 are all-zero bits in every dtype, complex128 the widest */
    return create_const(fn, out, dtype, ndim, shape, dev, zero);
}

nd_status nd_ones(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev)
{
    ND_PROF_OP_ON("ones", out, dev);
    static const char *fn = "nd_ones";
    nd_status st = check_args(fn, out, dtype, ndim, shape, dev);
    if (st) return st;
    unsigned char one[16]; /* the widest element: complex128 */
    st = scalar_bytes(fn, nd_scalar_int(1), dtype, one);
    if (st) return st;
    return create_const(fn, out, dtype, ndim, shape, dev, one);
}

nd_status nd_full(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_scalar value, nd_device dev)
{
    ND_PROF_OP_ON("full", out, dev);
    static const char *fn = "nd_full";
    nd_status st = check_args(fn, out, dtype, ndim, shape, dev);
    if (st) return st;
    unsigned char v[16]; /* the widest element: complex128 */
    st = scalar_bytes(fn, value, dtype, v);
    if (st) return st;
    return create_const(fn, out, dtype, ndim, shape, dev, v);
}

/* ------------------------------------------------------------------ */
/* *_like                                                              */
/* ------------------------------------------------------------------ */
nd_status nd_empty_like(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("empty_like", out, a);
    ND_PROF_BYTES(a ? nd_nbytes(a) : 0); /* the result written (the template is not read) */
    static const char *fn = "nd_empty_like";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    nd_out o;
    nd_status st = nd__out_begin(&o, fn, out, a->dtype, a->ndim, a->shape, a->device);
    return st ? st : nd__out_end(&o, ND_OK);
}

nd_status nd_zeros_like(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("zeros_like", out, a);
    ND_PROF_BYTES(a ? nd_nbytes(a) : 0); /* the result written (the template is not read) */
    static const char *fn = "nd_zeros_like";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    const uint64_t zero[2] = {0, 0}; /* the widest element: complex128 */
    return create_const(fn, out, a->dtype, a->ndim, a->shape, a->device, zero);
}

nd_status nd_ones_like(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("ones_like", out, a);
    ND_PROF_BYTES(a ? nd_nbytes(a) : 0); /* the result written (the template is not read) */
    static const char *fn = "nd_ones_like";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    unsigned char one[16]; /* the widest element: complex128 */
    nd_status st = scalar_bytes(fn, nd_scalar_int(1), a->dtype, one);
    if (st) return st;
    return create_const(fn, out, a->dtype, a->ndim, a->shape, a->device, one);
}

/* ------------------------------------------------------------------ */
/* arange                                                              */
/* ------------------------------------------------------------------ */
/* NumPy's algorithm (PyArray_ArangeObj + the dtype's fill function):
 * element 0 is start and element 1 is start + step, both converted to
 * the dtype; then delta = e1 - e0 is computed IN THE DTYPE and element i
 * is e0 + i * delta (ints wrap, float16/bfloat16 compute in float32).
 * This is what makes np.arange(0.5, 5, 1.5, dtype=int) give [0, 2, 4]. */
typedef struct {
    double start, step;
    uint64_t b0, b1; /* integer dtypes: the converted first two elements */
} arange_ctx;

static nd_status arange_fill(const char *fn, void *dst, int64_t n, nd_dtype t, const void *vctx)
{
    (void)fn;
    const arange_ctx *c = vctx;
    char *p = dst;
    switch (t) {
    case ND_FLOAT64: {
        double *y = dst;
        y[0] = c->start;
        if (n > 1) y[1] = c->start + c->step;
        double d = n > 1 ? y[1] - y[0] : 0.0;
        for (int64_t i = 2; i < n; i++) y[i] = c->start + (double)i * d;
        break;
    }
    case ND_FLOAT32: {
        float *y = dst;
        y[0] = (float)c->start;
        if (n > 1) y[1] = (float)(c->start + c->step);
        float s = y[0], d = n > 1 ? y[1] - y[0] : 0.0f;
        for (int64_t i = 2; i < n; i++) y[i] = s + (float)i * d;
        break;
    }
    case ND_FLOAT16:
    case ND_BFLOAT16: {
        bool h = t == ND_FLOAT16;
        uint16_t *y = dst;
        y[0] = h ? nd_double_to_half(c->start) : nd_double_to_bf16(c->start);
        if (n > 1) {
            double v1 = c->start + c->step;
            y[1] = h ? nd_double_to_half(v1) : nd_double_to_bf16(v1);
        }
        float s = h ? nd_half_to_float(y[0]) : nd_bf16_to_float(y[0]);
        float d = n > 1 ? (h ? nd_half_to_float(y[1]) : nd_bf16_to_float(y[1])) - s : 0.0f;
        for (int64_t i = 2; i < n; i++) {
            float v = s + (float)i * d;
            y[i] = h ? nd_float_to_half(v) : nd_float_to_bf16(v);
        }
        break;
    }
    default: { /* bool and integers */
        size_t isz = nd__itemsize(t);
        uint64_t d = c->b1 - c->b0;
        store_bits(p, t, c->b0);
        if (n > 1) store_bits(p + isz, t, c->b1);
        for (int64_t i = 2; i < n; i++) store_bits(p + (size_t)i * isz, t, c->b0 + (uint64_t)i * d);
        break;
    }
    }
    return ND_OK;
}

/* Whether s is an integer (or bool) scalar, and its value. */
static bool scalar_as_int(nd_scalar s, int64_t *v)
{
    if (s.kind == ND_SCALAR_INT) *v = s.v.i;
    else if (s.kind == ND_SCALAR_BOOL) *v = s.v.b;
    else return false;
    return true;
}

static double scalar_as_f64(nd_scalar s)
{
    return s.kind == ND_SCALAR_FLOAT ? s.v.f : s.kind == ND_SCALAR_INT ? (double)s.v.i : (double)s.v.b;
}

/* v (a Python int in NumPy's terms) as an element of integer dtype t;
 * ND_ERR_INVALID naming what when t cannot hold it (NumPy 2 raises). */
static nd_status int_element(const char *fn, const char *what, __int128 v, nd_dtype t, uint64_t *bits)
{
    int64_t lo;
    uint64_t hi;
    int_range(t, &lo, &hi);
    if (v < lo || v > (__int128)hi)
        return nd__err(ND_ERR_INVALID, fn, "%s %s%llu is out of bounds for %s", what, v < 0 ? "-" : "",
                       (unsigned long long)(v < 0 ? -v : v), nd_dtype_name(t));
    *bits = (uint64_t)v;
    return ND_OK;
}

/* The length of arange over integers, exactly (NumPy computes it with
 * Python ints): ceil((stop - start) / step), at least 0. */
static nd_status int_length(const char *fn, int64_t start, int64_t stop, int64_t step, int64_t *n)
{
    __int128 d = (__int128)stop - start, q = d / step;
    if (d % step != 0 && ((d < 0) == (step < 0))) q += 1;
    if (q > INT64_MAX) return nd__err(ND_ERR_INVALID, fn, "maximum allowed size exceeded");
    *n = q > 0 ? (int64_t)q : 0;
    return ND_OK;
}

/* nd_arange and nd_arange_scalar; fn names the caller in messages. */
static nd_status arange(const char *fn, nd_array **out, nd_dtype dtype, nd_scalar start, nd_scalar stop,
                        nd_scalar step, nd_device dev)
{
    ND_PROF_OP_ON("arange", out, dev);
    ND_CHECK_PTR(fn, out, "out");
    if (!nd__dtype_valid(dtype)) return nd__err(ND_ERR_INVALID, fn, "invalid dtype value %d", (int)dtype);
    const nd_scalar args[3] = {start, stop, step};
    static const char *names[3] = {"start", "stop", "step"};
    for (int i = 0; i < 3; i++)
        if (args[i].kind != ND_SCALAR_BOOL && args[i].kind != ND_SCALAR_INT && args[i].kind != ND_SCALAR_FLOAT)
            return nd__err(ND_ERR_INVALID, fn, "'%s' is not a bool, integer or float scalar (kind %d)", names[i],
                           (int)args[i].kind);
    /* all-integer arguments are exact (Python ints in NumPy); any float
     * makes the computation float64, as in NumPy */
    int64_t i0 = 0, i1 = 0, is = 0;
    bool exact = scalar_as_int(start, &i0) && scalar_as_int(stop, &i1) && scalar_as_int(step, &is);
    double f0 = scalar_as_f64(start), f1 = scalar_as_f64(stop), fs = scalar_as_f64(step);
    int64_t n;
    nd_status st;
    if (exact) {
        if (is == 0) return nd__err(ND_ERR_INVALID, fn, "step must be finite and non-zero (got 0)");
        if ((st = int_length(fn, i0, i1, is, &n))) return st;
    } else {
        if (!isfinite(fs) || fs == 0.0)
            return nd__err(ND_ERR_INVALID, fn, "step must be finite and non-zero (got %g)", fs);
        if (!isfinite(f0) || !isfinite(f1))
            return nd__err(ND_ERR_INVALID, fn, "cannot compute length: start %g and stop %g must be finite", f0, f1);
        double q = (f1 - f0) / fs;
        if (!isfinite(q)) return nd__err(ND_ERR_INVALID, fn, "cannot compute length: (stop - start) / step overflows");
        double len = ceil(q);
        if (len >= 9223372036854775808.0)
            return nd__err(ND_ERR_INVALID, fn, "maximum allowed size exceeded (length %.17g)", len);
        n = len > 0 ? (int64_t)len : 0;
    }
    if ((st = nd__check_shape(fn, 1, &n, dtype, NULL))) return st;
    if ((st = nd__check_device(fn, dev))) return st;
    if (nd__is_complex(dtype)) /* NumPy has it; a real arange cast with nd_astype does the same */
        return nd__err(ND_ERR_DTYPE, fn, "dtype %s: no complex arange (make a real one and nd_astype it)",
                       nd_dtype_name(dtype));

    arange_ctx c = {f0, fs, 0, 0};
    if (dtype == ND_BOOL) {
        if (n > 2)
            return nd__err(ND_ERR_DTYPE, fn, "arange is only supported for bool when the result has at most length 2 "
                                             "(length %lld)", (long long)n);
        c.b0 = exact ? i0 != 0 : f0 != 0.0;
        c.b1 = exact ? (__int128)i0 + is != 0 : f0 + fs != 0.0;
    } else if (nd__is_integer(dtype) && exact) {
        if (n > 0 && (st = int_element(fn, "start", i0, dtype, &c.b0))) return st;
        if (n > 1 && (st = int_element(fn, "start + step", (__int128)i0 + is, dtype, &c.b1))) return st;
    } else if (nd__is_integer(dtype)) {
        if (n > 0) {
            st = f64_to_int(fn, "start", f0, dtype, &c.b0);
            if (st) return st;
        }
        if (n > 1) {
            /* integral start and step: start + step in integers, exact
             * beyond 2^53 (NumPy adds Python ints) */
            int64_t s1;
            bool integral = f0 == trunc(f0) && fs == trunc(fs) && fabs(f0) < 9.2e18 && fabs(fs) < 9.2e18 &&
                            !__builtin_add_overflow((int64_t)f0, (int64_t)fs, &s1);
            if (!integral || int_element(fn, "start + step", s1, dtype, &c.b1) != ND_OK) {
                st = f64_to_int(fn, "start + step", f0 + fs, dtype, &c.b1);
                if (st) return st;
            }
        }
    }
    int64_t shape[1] = {n};
    return create_host(fn, out, dtype, 1, shape, dev, arange_fill, &c);
}

nd_status nd_arange_scalar(nd_array **out, nd_dtype dtype, nd_scalar start, nd_scalar stop, nd_scalar step,
                           nd_device dev)
{
    return arange("nd_arange_scalar", out, dtype, start, stop, step, dev);
}

nd_status nd_arange(nd_array **out, nd_dtype dtype, double start, double stop, double step, nd_device dev)
{
    return arange("nd_arange", out, dtype, nd_scalar_float(start), nd_scalar_float(stop), nd_scalar_float(step), dev);
}

/* ------------------------------------------------------------------ */
/* linspace                                                            */
/* ------------------------------------------------------------------ */
/* np.linspace (NumPy 2): computed in float64 as i * step + start (or
 * (i / div) * delta + start when step underflows to 0), the last element
 * set to stop when endpoint, floored for integer dtypes, then cast. */
typedef struct {
    double start, stop;
    bool endpoint;
} linspace_ctx;

static nd_status linspace_fill(const char *fn, void *dst, int64_t num, nd_dtype t, const void *vctx)
{
    const linspace_ctx *c = vctx;
    int64_t div = c->endpoint ? num - 1 : num;
    double delta = c->stop - c->start;
    double step = div > 0 ? delta / (double)div : NAN;
    size_t isz = nd__itemsize(t);
    nd_kind k = nd__kind(t);
    char *p = dst;
    for (int64_t i = 0; i < num; i++) {
        double y;
        if (div <= 0) y = (double)i * delta + c->start;
        else if (step == 0.0) y = ((double)i / (double)div) * delta + c->start;
        else y = (double)i * step + c->start;
        if (c->endpoint && num > 1 && i == num - 1) y = c->stop;
        if (k == ND_KIND_FLOAT || k == ND_KIND_COMPLEX) {
            store_f64(p + (size_t)i * isz, t, y);
        } else if (k == ND_KIND_BOOL) {
            store_bits(p + (size_t)i * isz, t, y != 0.0 || isnan(y));
        } else {
            uint64_t bits;
            nd_status st = f64_to_int(fn, "value", floor(y), t, &bits);
            if (st) return st;
            store_bits(p + (size_t)i * isz, t, bits);
        }
    }
    return ND_OK;
}

nd_status nd_linspace(nd_array **out, nd_dtype dtype, double start, double stop, int64_t num, bool endpoint, nd_device dev)
{
    ND_PROF_OP_ON("linspace", out, dev);
    static const char *fn = "nd_linspace";
    ND_CHECK_PTR(fn, out, "out");
    if (num < 0) return nd__err(ND_ERR_INVALID, fn, "number of samples, %lld, must be non-negative", (long long)num);
    nd_status st = check_args(fn, out, dtype, 1, &num, dev);
    if (st) return st;
    linspace_ctx c = {start, stop, endpoint};
    return create_host(fn, out, dtype, 1, &num, dev, linspace_fill, &c);
}

/* ------------------------------------------------------------------ */
/* eye                                                                 */
/* ------------------------------------------------------------------ */
typedef struct {
    int64_t n, m, k;
} eye_ctx;

static nd_status eye_fill(const char *fn, void *dst, int64_t size, nd_dtype t, const void *vctx)
{
    (void)fn;
    const eye_ctx *c = vctx;
    size_t isz = nd__itemsize(t);
    memset(dst, 0, (size_t)size * isz);
    /* ones at (i, i + k) for i in [max(0, -k), min(n, m - k)); k in (-n, m) */
    if (c->k >= c->m || c->k <= -c->n) return ND_OK;
    unsigned char one[16]; /* the widest element: complex128 */
    if (nd__kind(t) == ND_KIND_FLOAT || nd__kind(t) == ND_KIND_COMPLEX) store_f64(one, t, 1.0);
    else store_bits(one, t, 1);
    int64_t i0 = c->k < 0 ? -c->k : 0;
    int64_t i1 = c->m - c->k < c->n ? c->m - c->k : c->n;
    char *p = dst;
    for (int64_t i = i0; i < i1; i++) memcpy(p + (size_t)(i * c->m + i + c->k) * isz, one, isz);
    return ND_OK;
}

nd_status nd_eye(nd_array **out, nd_dtype dtype, int64_t n, int64_t m, int64_t k, nd_device dev)
{
    ND_PROF_OP_ON("eye", out, dev);
    static const char *fn = "nd_eye";
    if (m < 0) m = n;
    int64_t shape[2] = {n, m};
    nd_status st = check_args(fn, out, dtype, 2, shape, dev);
    if (st) return st;
    eye_ctx c = {n, m, k};
    return create_host(fn, out, dtype, 2, shape, dev, eye_fill, &c);
}

/* ------------------------------------------------------------------ */
/* nd_empty                                                            */
/* ------------------------------------------------------------------ */
nd_status nd_empty(nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape, nd_device dev)
{
    ND_PROF_OP_ON("empty", out, dev);
    static const char *fn = "nd_empty";
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__check_shape(fn, ndim, shape, dtype, NULL);
    if (st) return st;
    st = nd__check_device(fn, dev);
    if (st) return st;
    /* out rule: an existing array that passes the checks is returned as is */
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, dtype, ndim, shape, dev))) return st;
    return nd__out_end(&t, ND_OK);
}
