/* Run-time compiled elementwise kernels (include/ndgpu/kernel.h): results
 * against the library's own ops bit for bit (no FMA contraction, same
 * conversions) and against double references, every real dtype, the
 * layouts (contiguous, scalars, broadcast, transposed, strided outputs),
 * the out rule, i and n, raw parameters, several outputs, the parameter
 * and type errors, compile errors with the body's line, no compiler, and
 * the disk cache (src/core/kcache.h): entries, corruption, concurrency,
 * ND_KERNEL_CACHE=0, a directory others may write to.
 *
 * Every case of the kernels themselves runs on the CPU and on cuda:0 when
 * there is one (the emulated GPU in CI: its NVRTC compiles for the host).
 * The suite points ND_KERNEL_CACHE_DIR at a fresh directory of its own, so
 * it never reads or writes the user's cache. */
#include <dirent.h>
#include <float.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/internal.h"
#include "core/kcache.h"
#include "test_util.h"

static char g_dir[64];
/* The device of the test running: every case runs on the CPU and, when
 * there is one, on cuda:0 (the emulated GPU in CI). */
static nd_device g_dev;

static bool on_cpu(void) { return g_dev.type == ND_DEVICE_CPU; }

/* a on the test's device (consumed). */
static nd_array *to_dev(nd_array *a)
{
    if (on_cpu()) return a;
    nd_array *d = NULL;
    ND_OK_OR_FAIL(nd_to_device(&d, a, g_dev));
    nd_release(a);
    return d;
}

/* A C-contiguous host copy of a (release it). */
static nd_array *host(const nd_array *a)
{
    nd_array *h = NULL, *c = NULL;
    ND_OK_OR_FAIL(nd_to_device(&h, a, nd_cpu()));
    ND_OK_OR_FAIL(nd_contiguous(&c, h));
    nd_release(h);
    return c;
}

/* Values with no zero, mixed signs, representable in every real dtype
 * after the cast (small integers and halves); bool: alternating. */
static nd_array *make(nd_dtype t, int ndim, const int64_t *shape, int salt)
{
    nd_array *d = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_empty(&d, ND_FLOAT64, ndim, shape, nd_cpu()));
    double *p = nd_data(d);
    const bool uns = nd_dtype_name(t)[0] == 'u', small = nd_dtype_size(t) == 1 && t != ND_BOOL;
    for (int64_t i = 0; i < nd_size(d); i++) {
        double v = (double)(((i * 7 + salt * 5) % 13) - 6) + ((i + salt) % 3 ? 0.5 : 0.0);
        if (v == 0) v = 1.5;
        if (t == ND_BOOL) v = (i + salt) % 3 != 0;
        else if (nd_dtype_name(t)[0] != 'f' && nd_dtype_name(t)[0] != 'b') v = (double)(int)v;
        if (uns && v < 0) v = -v;
        if (small && v > 60) v = 60;
        if (v == 0) v = 2;
        p[i] = v;
    }
    ND_OK_OR_FAIL(nd_astype(&r, d, t));
    nd_release(d);
    return to_dev(r);
}

/* float32/float64 values whose products and sums round (so that an FMA
 * contraction or a wider intermediate would show); other dtypes as make. */
static nd_array *make_real(nd_dtype t, int ndim, const int64_t *shape, int salt)
{
    if (t != ND_FLOAT32 && t != ND_FLOAT64) return make(t, ndim, shape, salt);
    nd_array *d = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_empty(&d, ND_FLOAT64, ndim, shape, nd_cpu()));
    double *p = nd_data(d);
    for (int64_t i = 0; i < nd_size(d); i++) p[i] = sin((double)(i + 1) * 0.7 + salt) * 3.3 + 0.01 * salt;
    ND_OK_OR_FAIL(nd_astype(&r, d, t));
    nd_release(d);
    return to_dev(r);
}

/* a and b hold the same bits (compared as C-contiguous copies). */
static void expect_bits(const char *what, const nd_array *a, const nd_array *b)
{
    ck_assert_msg(nd_dtype_of(a) == nd_dtype_of(b), "%s: dtype %s vs %s", what, nd_dtype_name(nd_dtype_of(a)),
                  nd_dtype_name(nd_dtype_of(b)));
    ck_assert_msg(nd_ndim(a) == nd_ndim(b) && nd_size(a) == nd_size(b), "%s: shapes differ", what);
    nd_array *ca = host(a), *cb = host(b);
    const size_t n = (size_t)nd_size(a) * nd_dtype_size(nd_dtype_of(a));
    const unsigned char *x = nd_data(ca), *y = nd_data(cb);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(x[i] == y[i], "%s: byte %zu differs (%02x vs %02x)", what, i, x[i], y[i]);
    nd_release(ca), nd_release(cb);
}

/* An output filled with a value no kernel here computes. */
static nd_array *poisoned(nd_dtype t, int ndim, const int64_t *shape)
{
    nd_array *o = NULL;
    ND_OK_OR_FAIL(nd_empty(&o, t, ndim, shape, nd_cpu()));
    memset(nd_data(o), 0x7d, (size_t)nd_size(o) * nd_dtype_size(t));
    return to_dev(o);
}

static nd_array *call1(nd_kernel *k, int nin, const nd_array *const *in)
{
    nd_array *z = NULL;
    ND_OK_OR_FAIL(nd_kernel_call(k, nin, in, 1, &z));
    return z;
}

/* ------------------------------------------------------------------ */
static void run_saxpy_against_double_reference(void)
{
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x, T y, float32 a", "T z", "z = a * x + y", "saxpy", NULL));
    ck_assert_str_eq(nd_kernel_name(k), "saxpy");
    const int64_t n = 1000;
    nd_array *x = make_real(ND_FLOAT32, 1, &n, 1), *y = make_real(ND_FLOAT32, 1, &n, 2), *a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT32, 0, NULL, nd_scalar_float(2.3), g_dev));
    nd_array *z = poisoned(ND_FLOAT32, 1, &n), *z0 = z;
    ND_OK_OR_FAIL(nd_kernel_call(k, 3, (const nd_array *[]){x, y, a}, 1, &z));
    ck_assert_ptr_eq(z, z0);
    nd_array *hx = host(x), *hy = host(y), *hz = host(z);
    const float *px = nd_data(hx), *py = nd_data(hy), *pz = nd_data(hz);
    for (int64_t i = 0; i < n; i++) {
        const float want = (float)((double)(2.3f * px[i]) + (double)py[i]); /* two roundings: no FMA */
        ck_assert_msg(pz[i] == want, "saxpy[%lld] = %g, want %g", (long long)i, pz[i], want);
    }
    nd_release(hx), nd_release(hy), nd_release(hz);
    nd_release(x), nd_release(y), nd_release(a), nd_release(z);
    nd_kernel_release(k);
}

/* z = x * y + x against nd_multiply then nd_add, bit for bit, for every
 * real dtype (bool: the library's logical and/or), contiguous and
 * broadcast (a row against a column) and transposed. */
static void run_every_dtype_matches_the_library_ops(void)
{
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x, T y", "T z", "z = x * y + x;", "mad", NULL));
    for (int ti = 0; ti < NT_NREAL; ti++) {
        const nd_dtype t = (nd_dtype)ti;
        /* bool: C's bool arithmetic is integer (see bool_logic); float16 and
         * bfloat16 compute the whole body in float and round once (see
         * half_types_and_conversions), two ops round twice */
        if (t == ND_BOOL || t == ND_FLOAT16 || t == ND_BFLOAT16) continue;
        const int64_t s2[2] = {37, 53}, row[2] = {1, 53}, col[2] = {37, 1};
        nd_array *cases[3][2] = {{make_real(t, 2, s2, 1), make_real(t, 2, s2, 2)},
                                 {make_real(t, 2, row, 3), make_real(t, 2, col, 4)},
                                 {NULL, NULL}};
        nd_array *xt = make_real(t, 2, (const int64_t[]){53, 37}, 5);
        ND_OK_OR_FAIL(nd_transpose(&cases[2][0], xt, NULL));
        cases[2][1] = make_real(t, 2, s2, 6);
        for (int c = 0; c < 3; c++) {
            nd_array *m = NULL, *want = NULL;
            ND_OK_OR_FAIL(nd_multiply(&m, cases[c][0], cases[c][1]));
            ND_OK_OR_FAIL(nd_add(&want, m, cases[c][0]));
            nd_array *z = call1(k, 2, (const nd_array *[]){cases[c][0], cases[c][1]});
            char what[64];
            snprintf(what, sizeof what, "mad %s layout %d", nd_dtype_name(t), c);
            expect_bits(what, z, want);
            nd_release(m), nd_release(want), nd_release(z);
            nd_release(cases[c][0]), nd_release(cases[c][1]);
        }
        nd_release(xt);
    }
    nd_kernel_release(k);
}

static void run_bool_logic(void)
{
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "bool x, bool y", "bool z", "z = (x && !y) || (y && !x)", "xor_", NULL));
    const int64_t n = 101;
    nd_array *x = make(ND_BOOL, 1, &n, 0), *y = make(ND_BOOL, 1, &n, 1), *want = NULL;
    ND_OK_OR_FAIL(nd_logical_xor(&want, x, y));
    nd_array *z = call1(k, 2, (const nd_array *[]){x, y});
    expect_bits("xor", z, want);
    nd_release(x), nd_release(y), nd_release(want), nd_release(z);
    nd_kernel_release(k);
}

/* Math through tgmath: exp on float computes in float (expf), as CUDA's
 * overload does, not exp in double rounded. */
static void run_math_functions_take_the_operand_type(void)
{
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x", "T z", "z = exp(x) + tanh(x) * fabs(x)", "m", NULL));
    const int64_t n = 64;
    nd_array *x = make(ND_FLOAT32, 1, &n, 3), *z = call1(k, 1, (const nd_array *[]){x});
    nd_array *hx = host(x), *hz = host(z);
    const float *px = nd_data(hx), *pz = nd_data(hz);
    for (int64_t i = 0; i < n; i++) {
        const float want = expf(px[i]) + tanhf(px[i]) * fabsf(px[i]);
        /* a GPU's expf and tanhf are not glibc's: within a few ulp there,
         * in float (a double computation would be exact to 0.5 ulp) */
        const float tol = on_cpu() ? 0.0f : 8 * FLT_EPSILON * fabsf(want);
        ck_assert_msg(fabsf(pz[i] - want) <= tol, "m[%lld] = %.9g, want %.9g", (long long)i, pz[i], want);
    }
    nd_release(hx), nd_release(hz), nd_release(x), nd_release(z);
    nd_kernel_release(k);
}

/* float16 and bfloat16 compute in float and round once when stored, as
 * the library's ops do; an int32 array passed for a float32 parameter is
 * converted as it is read. */
static void run_half_types_and_conversions(void)
{
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x, T y", "T z", "z = x * y", "mul", NULL));
    const int64_t n = 300;
    const nd_dtype hs[2] = {ND_FLOAT16, ND_BFLOAT16};
    for (int h = 0; h < 2; h++) {
        nd_array *x = make(hs[h], 1, &n, 1), *y = make(hs[h], 1, &n, 2), *want = NULL;
        ND_OK_OR_FAIL(nd_multiply(&want, x, y));
        nd_array *z = call1(k, 2, (const nd_array *[]){x, y});
        expect_bits(nd_dtype_name(hs[h]), z, want);
        nd_release(x), nd_release(y), nd_release(want), nd_release(z);
    }
    nd_kernel *kf = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&kf, "float32 x", "float64 z", "z = x / 3", "conv", NULL));
    nd_array *xi = make(ND_INT32, 1, &n, 4), *z = call1(kf, 1, (const nd_array *[]){xi});
    ck_assert_int_eq(nd_dtype_of(z), ND_FLOAT64);
    nd_array *hxi = host(xi), *hz = host(z);
    const int32_t *pi = nd_data(hxi);
    const double *pz = nd_data(hz);
    for (int64_t i = 0; i < n; i++) ck_assert(pz[i] == (double)((float)pi[i] / 3));
    nd_release(hxi), nd_release(hz), nd_release(xi), nd_release(z);
    nd_kernel_release(k), nd_kernel_release(kf);
}

/* The index i in C order of the broadcast shape, and n, also through a
 * transposed output (the general path). */
static void run_index_and_size(void)
{
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x", "int64 z", "z = i * 1000 + n + (int64_t)x", "ix", NULL));
    const int64_t s[3] = {3, 4, 5};
    nd_array *x = make(ND_INT8, 3, s, 0), *z = call1(k, 1, (const nd_array *[]){x});
    nd_array *hx = host(x), *hz = host(z);
    const int64_t *pz = nd_data(hz);
    const int8_t *px = nd_data(hx);
    for (int64_t i = 0; i < 60; i++) ck_assert_int_eq(pz[i], i * 1000 + 60 + px[i]);
    nd_release(hx), nd_release(hz);
    /* into a transposed out: element (a, b, c) still gets its C-order index */
    nd_array *base = poisoned(ND_INT64, 3, (const int64_t[]){5, 4, 3}), *zt = NULL, *zt0;
    ND_OK_OR_FAIL(nd_transpose(&zt, base, (const int[]){2, 1, 0}));
    zt0 = zt;
    ND_OK_OR_FAIL(nd_kernel_call(k, 1, (const nd_array *[]){x}, 1, &zt));
    ck_assert_ptr_eq(zt, zt0);
    expect_bits("index into a transposed out", zt, z);
    nd_release(x), nd_release(z), nd_release(base), nd_release(zt);
    nd_kernel_release(k);
}

/* The out rule: an output's current value can be read ("z += x"); an out
 * of another dtype is cast (same_kind); a wrong shape is refused and the
 * out left as it was. */
static void run_out_rule_and_accumulation(void)
{
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x", "T z", "z += x", "acc", NULL));
    const int64_t n = 50;
    nd_array *x = make(ND_FLOAT32, 1, &n, 1), *z = make(ND_FLOAT32, 1, &n, 2), *z0 = NULL, *want = NULL;
    ND_OK_OR_FAIL(nd_copy(&z0, z));
    ND_OK_OR_FAIL(nd_add(&want, z0, x));
    ND_OK_OR_FAIL(nd_kernel_call(k, 1, (const nd_array *[]){x}, 1, &z));
    expect_bits("z += x", z, want);
    /* a float64 out: computed in float32 (T), accumulated from the out's current values */
    nd_array *zd = NULL, *zd_want = NULL, *zf = NULL;
    ND_OK_OR_FAIL(nd_astype(&zd, z0, ND_FLOAT64));
    ND_OK_OR_FAIL(nd_astype(&zd_want, want, ND_FLOAT64));
    ND_OK_OR_FAIL(nd_kernel_call(k, 1, (const nd_array *[]){x}, 1, &zd));
    expect_bits("float64 out", zd, zd_want);
    /* an int32 out for a float32 result: same_kind refuses, the out unchanged */
    nd_array *zi = make(ND_INT32, 1, &n, 3), *zi0 = NULL;
    ND_OK_OR_FAIL(nd_copy(&zi0, zi));
    ND_EXPECT_ERR(nd_kernel_call(k, 1, (const nd_array *[]){x}, 1, &zi), ND_ERR_DTYPE, "");
    expect_bits("refused out unchanged", zi, zi0);
    nd_array *zs = make(ND_FLOAT32, 1, (const int64_t[]){49}, 1);
    ND_EXPECT_ERR(nd_kernel_call(k, 1, (const nd_array *[]){x}, 1, &zs), ND_ERR_SHAPE, "");
    nd_release(x), nd_release(z), nd_release(z0), nd_release(want), nd_release(zd), nd_release(zd_want);
    nd_release(zf), nd_release(zi), nd_release(zi0), nd_release(zs);
    nd_kernel_release(k);
}

/* Raw parameters: indexed by the body (a reversal reads w[n - 1 - i]),
 * a raw input that is not contiguous is read from a copy; a raw output is
 * written where the body says. */
static void run_raw_parameters(void)
{
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x, raw T w", "T z", "z = x + w[w_size - 1 - i]", "rev", NULL));
    const int64_t n = 40;
    nd_array *x = make(ND_FLOAT64, 1, &n, 1), *wb = make(ND_FLOAT64, 1, (const int64_t[]){80}, 2), *w = NULL;
    ND_OK_OR_FAIL(nd_slice(&w, wb, 1, (const nd_range[]){{0, 80, 2}})); /* every other: not contiguous */
    nd_array *z = call1(k, 2, (const nd_array *[]){x, w});
    nd_array *hx = host(x), *hw = host(wb), *hz = host(z);
    const double *px = nd_data(hx), *pw = nd_data(hw), *pz = nd_data(hz);
    for (int64_t i = 0; i < n; i++) ck_assert(pz[i] == px[i] + pw[2 * (n - 1 - i)]);
    nd_release(hx), nd_release(hw), nd_release(hz);
    if (!on_cpu()) { /* elements coupled through a raw output need atomics on a GPU: the CPU runs them in order */
        nd_release(x), nd_release(wb), nd_release(w), nd_release(z);
        nd_kernel_release(k);
        return;
    }
    nd_kernel *h = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&h, "int64 x", "raw int64 hist", "hist[((x % hist_size) + hist_size) % hist_size] += 1", "hist", NULL));
    nd_array *xi = make(ND_INT64, 1, (const int64_t[]){1000}, 3), *hist = NULL;
    ND_OK_OR_FAIL(nd_zeros(&hist, ND_INT64, 1, (const int64_t[]){7}, g_dev));
    nd_array *hist0 = hist;
    ND_OK_OR_FAIL(nd_kernel_call(h, 1, (const nd_array *[]){xi}, 1, &hist));
    ck_assert_ptr_eq(hist, hist0);
    int64_t want[7] = {0}, *ph = nd_data(hist);
    const int64_t *pxi = nd_data(xi);
    for (int i = 0; i < 1000; i++) want[((pxi[i] % 7) + 7) % 7]++;
    int64_t total = 0;
    for (int b = 0; b < 7; b++) total += ph[b];
    ck_assert_int_eq(total, 1000);
    for (int b = 0; b < 7; b++) ck_assert_int_eq(ph[b], want[b]);
    /* a raw output must be given */
    nd_array *none = NULL;
    ND_EXPECT_ERR(nd_kernel_call(h, 1, (const nd_array *[]){xi}, 1, &none), ND_ERR_INVALID, "must be given");
    nd_release(x), nd_release(wb), nd_release(w), nd_release(z), nd_release(xi), nd_release(hist);
    nd_kernel_release(k), nd_kernel_release(h);
}

static void run_several_outputs_and_parallel_sizes(void)
{
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x, T y", "T s, T d", "s = x + y; d = x - y;", "sd", NULL));
    const int64_t n = (int64_t)1 << 20; /* past the parallel threshold */
    nd_array *x = make_real(ND_FLOAT32, 1, &n, 1), *y = make_real(ND_FLOAT32, 1, &n, 2), *ws = NULL, *wd = NULL;
    ND_OK_OR_FAIL(nd_add(&ws, x, y));
    ND_OK_OR_FAIL(nd_subtract(&wd, x, y));
    nd_array *o[2] = {NULL, poisoned(ND_FLOAT32, 1, &n)};
    ND_OK_OR_FAIL(nd_kernel_call(k, 2, (const nd_array *[]){x, y}, 2, o));
    expect_bits("s", o[0], ws);
    expect_bits("d", o[1], wd);
    /* empty and 0-d */
    nd_array *e = make(ND_FLOAT32, 1, (const int64_t[]){0}, 0), *oe[2] = {NULL, NULL};
    ND_OK_OR_FAIL(nd_kernel_call(k, 2, (const nd_array *[]){e, e}, 2, oe));
    ck_assert_int_eq(nd_size(oe[0]), 0);
    nd_array *s0 = NULL, *o0[2] = {NULL, NULL};
    ND_OK_OR_FAIL(nd_full(&s0, ND_FLOAT32, 0, NULL, nd_scalar_float(1.5), g_dev));
    ND_OK_OR_FAIL(nd_kernel_call(k, 2, (const nd_array *[]){s0, s0}, 2, o0));
    ck_assert_int_eq(nd_ndim(o0[0]), 0);
    nd_array *h0 = host(o0[0]), *h1 = host(o0[1]);
    ck_assert(*(float *)nd_data(h0) == 3.0f && *(float *)nd_data(h1) == 0.0f);
    nd_release(h0), nd_release(h1);
    nd_release(x), nd_release(y), nd_release(ws), nd_release(wd), nd_release(o[0]), nd_release(o[1]);
    nd_release(e), nd_release(oe[0]), nd_release(oe[1]), nd_release(s0), nd_release(o0[0]), nd_release(o0[1]);
    nd_kernel_release(k);
}

static void run_parameter_and_type_errors(void)
{
    nd_kernel *k = NULL;
    ND_EXPECT_ERR(nd_kernel_elementwise(&k, "T x,", "T", "z = x", "bad", NULL), ND_ERR_INVALID, "TYPE NAME");
    ND_EXPECT_ERR(nd_kernel_elementwise(&k, "T x", "", "z = x", "bad", NULL), ND_ERR_INVALID, "at least one output");
    ND_EXPECT_ERR(nd_kernel_elementwise(&k, "T x, T x", "T z", "z = x", "bad", NULL), ND_ERR_INVALID, "used twice");
    ND_EXPECT_ERR(nd_kernel_elementwise(&k, "T i", "T z", "z = i", "bad", NULL), ND_ERR_INVALID, "reserved");
    ND_EXPECT_ERR(nd_kernel_elementwise(&k, "T x, raw T w", "T w_size", "", "bad", NULL), ND_ERR_INVALID, "used twice");
    ND_EXPECT_ERR(nd_kernel_elementwise(&k, "T 1x", "T z", "", "bad", NULL), ND_ERR_INVALID, "C identifiers");
    ND_EXPECT_ERR(nd_kernel_elementwise(&k, "complex64 x", "T z", "", "bad", NULL), ND_ERR_UNSUPPORTED, "complex");
    ND_EXPECT_ERR(nd_kernel_elementwise(&k, "T x", "T z", "", "not a name", NULL), ND_ERR_INVALID, "identifier");
    ND_EXPECT_ERR(nd_kernel_elementwise(&k, "T a,T b,T c,T d,T e,T f,T g,T h,T j,T l,T m,T o", "T z", "", "many", NULL),
                  ND_ERR_INVALID, "at most 12");
    ND_EXPECT_ERR(nd_kernel_elementwise(NULL, "T x", "T z", "", "k", NULL), ND_ERR_INVALID, "NULL");
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x, T y, int32 c", "T z", "z = x + y + c", "typed", NULL));
    const int64_t n = 8;
    nd_array *f32 = make(ND_FLOAT32, 1, &n, 1), *f64 = make(ND_FLOAT64, 1, &n, 2), *i32 = make(ND_INT32, 1, &n, 3);
    nd_array *z = NULL;
    ND_EXPECT_ERR(nd_kernel_call(k, 3, (const nd_array *[]){f32, f64, i32}, 1, &z), ND_ERR_DTYPE, "type 'T' is float32");
    ND_EXPECT_ERR(nd_kernel_call(k, 3, (const nd_array *[]){f32, f32, f64}, 1, &z), ND_ERR_DTYPE, "same_kind");
    ND_EXPECT_ERR(nd_kernel_call(k, 2, (const nd_array *[]){f32, f32}, 1, &z), ND_ERR_INVALID, "takes 3 inputs");
    ND_EXPECT_ERR(nd_kernel_call(k, 3, (const nd_array *[]){f32, NULL, i32}, 1, &z), ND_ERR_INVALID, "'y' is NULL");
    nd_array *f7 = make(ND_FLOAT32, 1, (const int64_t[]){7}, 1);
    ND_EXPECT_ERR(nd_kernel_call(k, 3, (const nd_array *[]){f32, f7, i32}, 1, &z), ND_ERR_SHAPE, "");
    ck_assert_ptr_null(z);
    nd_array *c64 = NULL;
    ND_OK_OR_FAIL(nd_astype(&c64, f32, ND_COMPLEX64));
    ND_EXPECT_ERR(nd_kernel_call(k, 3, (const nd_array *[]){c64, c64, i32}, 1, &z), ND_ERR_UNSUPPORTED, "complex");
    nd_kernel *ko = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&ko, "int32 x", "U z", "z = x", "infer", NULL));
    ND_EXPECT_ERR(nd_kernel_call(ko, 1, (const nd_array *[]){i32}, 1, &z), ND_ERR_DTYPE, "cannot infer type 'U'");
    nd_release(f32), nd_release(f64), nd_release(i32), nd_release(f7), nd_release(c64);
    nd_kernel_release(k), nd_kernel_release(ko);
}

static void run_compile_errors_name_the_body_line(void)
{
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x", "T z", "T t = x;\nz = t * q;", "oops", NULL));
    const int64_t n = 4;
    nd_array *x = make(ND_FLOAT32, 1, &n, 1), *z = NULL;
    ck_assert_int_eq(nd_kernel_call(k, 1, (const nd_array *[]){x}, 1, &z), ND_ERR_INVALID);
    /* gcc: "oops:2:9: error"; NVRTC: "oops(2): error" */
    ck_assert_msg(strstr(nd_last_error(), "oops:2:") || strstr(nd_last_error(), "oops(2)"), "%s", nd_last_error());
    ck_assert_msg(strstr(nd_last_error(), "q"), "%s", nd_last_error());
    ck_assert_ptr_null(z);
    if (!on_cpu()) {
        nd_release(x);
        nd_kernel_release(k);
        return;
    }
    /* no compiler: named in the message, nothing else changes */
    nd_kernel *k2 = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k2, "T x", "T z", "z = x * 3 + 0.125f", "nocc", NULL));
    setenv("ND_CC", "/nonexistent/ndgpu-cc", 1);
    ND_EXPECT_ERR(nd_kernel_call(k2, 1, (const nd_array *[]){x}, 1, &z), ND_ERR_UNSUPPORTED, "/nonexistent/ndgpu-cc");
    unsetenv("ND_CC");
    ND_OK_OR_FAIL(nd_kernel_call(k2, 1, (const nd_array *[]){x}, 1, &z));
    nd_release(x), nd_release(z);
    nd_kernel_release(k), nd_kernel_release(k2);
}

/* ------------------------------------------------------------------ */
/* Reduction kernels                                                   */
/* ------------------------------------------------------------------ */
/* The L2 norm over every axis set of a 3-D array, against a double
 * reference (the order of the sum is the device's). */
static void run_reduction_axes(void)
{
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_reduction(&k, "T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", NULL, "l2norm", NULL));
    const int64_t s[3] = {6, 7, 300};
    nd_array *x = make_real(ND_FLOAT64, 3, s, 1), *hx = host(x);
    const double *px = nd_data(hx);
    static const int sets[][3] = {{0}, {1}, {2}, {-1}, {0, 2}, {1, -3}};
    static const int nsets[] = {1, 1, 1, 1, 2, 2};
    for (int q = 0; q < 7; q++) {
        bool red[3] = {q == 6, q == 6, q == 6}; /* q == 6: every axis (axes NULL) */
        for (int j = 0; q < 6 && j < nsets[q]; j++) red[(sets[q][j] + 3) % 3] = true;
        for (int keep = 0; keep < 2; keep++) {
            nd_array *y = NULL;
            ND_OK_OR_FAIL(nd_kernel_reduce(k, 1, (const nd_array *[]){x}, q < 6 ? nsets[q] : 0, q < 6 ? sets[q] : NULL,
                                           keep, &y));
            int want_nd = 0;
            for (int d = 0; d < 3; d++) want_nd += keep || !red[d];
            ck_assert_int_eq(nd_ndim(y), want_nd);
            nd_array *hy = host(y);
            const double *py = nd_data(hy);
            /* every output against its double sum of squares */
            int64_t o = 0;
            for (int64_t i0 = 0; i0 < (red[0] ? 1 : s[0]); i0++)
                for (int64_t i1 = 0; i1 < (red[1] ? 1 : s[1]); i1++)
                    for (int64_t i2 = 0; i2 < (red[2] ? 1 : s[2]); i2++, o++) {
                        long double acc = 0;
                        for (int64_t j0 = red[0] ? 0 : i0; j0 < (red[0] ? s[0] : i0 + 1); j0++)
                            for (int64_t j1 = red[1] ? 0 : i1; j1 < (red[1] ? s[1] : i1 + 1); j1++)
                                for (int64_t j2 = red[2] ? 0 : i2; j2 < (red[2] ? s[2] : i2 + 1); j2++) {
                                    const long double v = px[(j0 * s[1] + j1) * s[2] + j2];
                                    acc += v * v;
                                }
                        const double want = (double)sqrtl(acc);
                        ck_assert_msg(fabs(py[o] - want) <= 1e-13 * want, "set %d keep %d output %lld: %.17g vs %.17g",
                                      q, keep, (long long)o, py[o], want);
                    }
            ck_assert_int_eq(o, nd_size(y));
            nd_release(y), nd_release(hy);
        }
    }
    nd_release(x), nd_release(hx);
    nd_kernel_release(k);
}

/* A dot product along axis 1 with a broadcast input, an int64 accumulator
 * over int32 input (exact), max with -INFINITY, an empty reduction, a
 * given out. */
static void run_reduction_types(void)
{
    nd_kernel *dot = NULL, *isum = NULL, *mx = NULL;
    ND_OK_OR_FAIL(nd_kernel_reduction(&dot, "T x, T w", "T y", "x * w", "a + b", NULL, "0", "float64", "dot", NULL));
    ND_OK_OR_FAIL(nd_kernel_reduction(&isum, "int32 x", "int64 y", "x", "a + b", NULL, "0", "int64", "isum", NULL));
    ND_OK_OR_FAIL(nd_kernel_reduction(&mx, "T x", "T y", "x", "a > b ? a : b", NULL, "-INFINITY", NULL, "mx", NULL));
    const int64_t s[2] = {5, 301}, w1 = 301;
    nd_array *x = make_real(ND_FLOAT32, 2, s, 1), *w = make_real(ND_FLOAT32, 1, &w1, 2), *y = NULL;
    ND_OK_OR_FAIL(nd_kernel_reduce(dot, 2, (const nd_array *[]){x, w}, 1, (const int[]){1}, false, &y));
    ck_assert_int_eq(nd_dtype_of(y), ND_FLOAT32);
    nd_array *hx = host(x), *hw = host(w), *hy = host(y);
    const float *px = nd_data(hx), *pw = nd_data(hw), *py = nd_data(hy);
    for (int64_t r = 0; r < s[0]; r++) {
        double acc = 0; /* the accumulator is float64: only the final rounding to float32 */
        for (int64_t c = 0; c < s[1]; c++) acc += (double)px[r * s[1] + c] * pw[c];
        ck_assert_msg(fabs(py[r] - (float)acc) <= 1e-6 * fabs(acc), "dot row %lld: %.9g vs %.9g", (long long)r, py[r], acc);
    }
    nd_array *xi = make(ND_INT32, 2, s, 3), *yi = NULL, *hxi = host(xi);
    ND_OK_OR_FAIL(nd_kernel_reduce(isum, 1, (const nd_array *[]){xi}, 0, NULL, false, &yi));
    nd_array *hyi = host(yi);
    int64_t want = 0;
    for (int64_t i = 0; i < nd_size(xi); i++) want += ((const int32_t *)nd_data(hxi))[i];
    ck_assert_int_eq(*(const int64_t *)nd_data(hyi), want);
    /* max along axis 0, into a given out */
    nd_array *ym = poisoned(ND_FLOAT32, 1, &w1), *ym0 = ym;
    ND_OK_OR_FAIL(nd_kernel_reduce(mx, 1, (const nd_array *[]){x}, 1, (const int[]){0}, false, &ym));
    ck_assert_ptr_eq(ym, ym0);
    nd_array *want_m = NULL;
    ND_OK_OR_FAIL(nd_max(&want_m, x, 1, (const int[]){0}, false));
    expect_bits("max along axis 0", ym, want_m);
    /* empty: the identity, post-mapped */
    nd_array *e = make(ND_FLOAT32, 2, (const int64_t[]){4, 0}, 0), *ye = NULL;
    ND_OK_OR_FAIL(nd_kernel_reduce(mx, 1, (const nd_array *[]){e}, 1, (const int[]){1}, false, &ye));
    nd_array *hye = host(ye);
    for (int i = 0; i < 4; i++) ck_assert(isinf(((const float *)nd_data(hye))[i]) && ((const float *)nd_data(hye))[i] < 0);
    nd_release(x), nd_release(w), nd_release(y), nd_release(hx), nd_release(hw), nd_release(hy);
    nd_release(xi), nd_release(yi), nd_release(hxi), nd_release(hyi), nd_release(ym), nd_release(want_m);
    nd_release(e), nd_release(ye), nd_release(hye);
    nd_kernel_release(dot), nd_kernel_release(isum), nd_kernel_release(mx);
}

/* Few outputs over many elements (on a GPU: the two-level path, partial
 * accumulators then a final pass): sums against a double reference, exact
 * integer sums and maxima against the library's own. */
static void run_reduction_many_elements(void)
{
    nd_kernel *l2 = NULL, *isum = NULL, *mx = NULL;
    ND_OK_OR_FAIL(nd_kernel_reduction(&l2, "T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", NULL, "l2big", NULL));
    ND_OK_OR_FAIL(nd_kernel_reduction(&isum, "int32 x", "int64 y", "x", "a + b", NULL, "0", "int64", "isumbig", NULL));
    ND_OK_OR_FAIL(nd_kernel_reduction(&mx, "T x", "T y", "x", "a > b ? a : b", NULL, "-INFINITY", NULL, "mxbig", NULL));
    const int64_t n1 = 300001;
    nd_array *x = make_real(ND_FLOAT64, 1, &n1, 7), *y = NULL, *hx = host(x);
    ND_OK_OR_FAIL(nd_kernel_reduce(l2, 1, (const nd_array *[]){x}, 0, NULL, false, &y));
    nd_array *hy = host(y);
    double acc = 0;
    for (int64_t i = 0; i < n1; i++) acc += ((const double *)nd_data(hx))[i] * ((const double *)nd_data(hx))[i];
    const double got = *(const double *)nd_data(hy);
    ck_assert_msg(fabs(got - sqrt(acc)) <= 1e-12 * sqrt(acc), "l2 of 300001: %.17g vs %.17g", got, sqrt(acc));
    /* three rows of 100003 int32: exact */
    const int64_t s3[2] = {3, 100003};
    nd_array *xi = make(ND_INT32, 2, s3, 8), *yi = NULL, *hxi = host(xi);
    ND_OK_OR_FAIL(nd_kernel_reduce(isum, 1, (const nd_array *[]){xi}, 1, (const int[]){-1}, true, &yi));
    ck_assert_int_eq(nd_ndim(yi), 2);
    nd_array *hyi = host(yi);
    for (int r = 0; r < 3; r++) {
        int64_t want = 0;
        for (int64_t c = 0; c < s3[1]; c++) want += ((const int32_t *)nd_data(hxi))[r * s3[1] + c];
        ck_assert_int_eq(((const int64_t *)nd_data(hyi))[r], want);
    }
    /* maxima of float32 and float16 (a float accumulator for the latter) */
    static const nd_dtype mt[2] = {ND_FLOAT32, ND_FLOAT16};
    for (int t = 0; t < 2; t++) {
        const int64_t n2 = 200003;
        nd_array *xm = make_real(mt[t], 1, &n2, 9 + t), *ym = NULL, *want = NULL;
        ND_OK_OR_FAIL(nd_kernel_reduce(mx, 1, (const nd_array *[]){xm}, 0, NULL, false, &ym));
        ND_OK_OR_FAIL(nd_max(&want, xm, 0, NULL, false));
        expect_bits("max of 200003", ym, want);
        nd_release(xm), nd_release(ym), nd_release(want);
    }
    nd_release(x), nd_release(y), nd_release(hx), nd_release(hy);
    nd_release(xi), nd_release(yi), nd_release(hxi), nd_release(hyi);
    nd_kernel_release(l2), nd_kernel_release(isum), nd_kernel_release(mx);
}

static void run_reduction_errors(void)
{
    nd_kernel *k = NULL, *ew = NULL;
    ND_EXPECT_ERR(nd_kernel_reduction(&k, "T x", "T y, T z", "x", "a + b", NULL, "0", NULL, "r", NULL), ND_ERR_INVALID,
                  "one output");
    ND_EXPECT_ERR(nd_kernel_reduction(&k, "raw T x", "T y", "x[0]", "a + b", NULL, "0", NULL, "r", NULL), ND_ERR_INVALID,
                  "raw");
    ND_EXPECT_ERR(nd_kernel_reduction(&k, "T x", "T y", "x", "", NULL, "0", NULL, "r", NULL), ND_ERR_INVALID, "empty");
    ND_EXPECT_ERR(nd_kernel_reduction(&k, "T x", "T y", "x", "a + b", NULL, "0", "U", "r", NULL), ND_ERR_INVALID,
                  "reduce_type 'U'");
    ND_OK_OR_FAIL(nd_kernel_reduction(&k, "T x", "T y", "x", "a + b + q", NULL, "0", NULL, "bad", NULL));
    ND_OK_OR_FAIL(nd_kernel_elementwise(&ew, "T x", "T y", "y = x", "ew", NULL));
    const int64_t s[2] = {3, 4};
    nd_array *x = make(ND_FLOAT32, 2, s, 1), *y = NULL;
    ND_EXPECT_ERR(nd_kernel_reduce(k, 1, (const nd_array *[]){x}, 1, (const int[]){2}, false, &y), ND_ERR_SHAPE,
                  "out of bounds");
    ND_EXPECT_ERR(nd_kernel_reduce(k, 1, (const nd_array *[]){x}, 2, (const int[]){1, -1}, false, &y), ND_ERR_SHAPE,
                  "repeated");
    ND_EXPECT_ERR(nd_kernel_call(k, 1, (const nd_array *[]){x}, 1, &y), ND_ERR_INVALID, "nd_kernel_reduce");
    ND_EXPECT_ERR(nd_kernel_reduce(ew, 1, (const nd_array *[]){x}, 0, NULL, false, &y), ND_ERR_INVALID, "nd_kernel_call");
    ck_assert_int_eq(nd_kernel_reduce(k, 1, (const nd_array *[]){x}, 0, NULL, false, &y), ND_ERR_INVALID);
    ck_assert_msg(strstr(nd_last_error(), "bad.reduce"), "%s", nd_last_error());
    ck_assert_ptr_null(y);
    nd_release(x);
    nd_kernel_release(k), nd_kernel_release(ew);
}

/* Whether dev compiles kernels here: a machine without a C compiler (a GPU
 * machine running a packed test binary) or a GPU machine without NVRTC
 * (libnvrtc is part of the toolkit, not the driver) answers
 * ND_ERR_UNSUPPORTED naming what is missing; that device's cases are then
 * skipped, said once per process. `make test` builds with a C compiler,
 * so its CPU cases always run. */
static bool kernels_here(nd_device dev)
{
    static int here[2] = {-1, -1};
    const int d = dev.type == ND_DEVICE_CPU ? 0 : 1;
    if (here[d] < 0) {
        nd_kernel *k = NULL;
        nd_array *x = NULL, *y = NULL;
        ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x", "T y", "y = x", "probe", NULL));
        ND_OK_OR_FAIL(nd_ones(&x, ND_FLOAT32, 0, NULL, dev));
        const nd_status st = nd_kernel_call(k, 1, (const nd_array *[]){x}, 1, &y);
        /* the CPU's cases are skipped only where there is truly no cc (a
         * library that failed to find one would otherwise pass by skipping) */
        here[d] = st != ND_ERR_UNSUPPORTED || (d == 0 && system("command -v cc >/dev/null 2>&1") == 0);
        if (!here[d]) fprintf(stderr, "kernel: the %s cases SKIPPED (%s)\n", d ? "cuda:0" : "cpu", nd_last_error());
        nd_release(x), nd_release(y);
        nd_kernel_release(k);
    }
    return here[d];
}

/* Each case on the CPU and on cuda:0. */
#define DEV_TESTS(name)                                                                                  \
    START_TEST(name##_cpu)                                                                               \
    {                                                                                                    \
        g_dev = nd_cpu();                                                                                \
        if (kernels_here(g_dev)) run_##name();                                                           \
    }                                                                                                    \
    END_TEST                                                                                             \
    START_TEST(name##_cuda)                                                                              \
    {                                                                                                    \
        g_dev = nd_cuda(0);                                                                              \
        if (kernels_here(g_dev)) run_##name();                                                           \
    }                                                                                                    \
    END_TEST
DEV_TESTS(saxpy_against_double_reference)
DEV_TESTS(every_dtype_matches_the_library_ops)
DEV_TESTS(bool_logic)
DEV_TESTS(math_functions_take_the_operand_type)
DEV_TESTS(half_types_and_conversions)
DEV_TESTS(index_and_size)
DEV_TESTS(out_rule_and_accumulation)
DEV_TESTS(raw_parameters)
DEV_TESTS(several_outputs_and_parallel_sizes)
DEV_TESTS(parameter_and_type_errors)
DEV_TESTS(compile_errors_name_the_body_line)
DEV_TESTS(reduction_axes)
DEV_TESTS(reduction_types)
DEV_TESTS(reduction_many_elements)
DEV_TESTS(reduction_errors)

/* ------------------------------------------------------------------ */
/* The disk cache                                                      */
/* ------------------------------------------------------------------ */
static int count_entries(const char *dir, const char *ext)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.' && strstr(e->d_name, ext)) n++;
    if (d) closedir(d);
    return n;
}

START_TEST(kernels_land_in_the_disk_cache)
{
    g_dev = nd_cpu();
    if (!kernels_here(g_dev)) return;
    char dir[96];
    snprintf(dir, sizeof dir, "%s/k1", g_dir);
    setenv("ND_KERNEL_CACHE_DIR", dir, 1);
    char body[64];
    snprintf(body, sizeof body, "z = x * %d", (int)getpid() % 1000 + 2); /* new to this process */
    nd_kernel *k = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k, "T x", "T z", body, "cached", NULL));
    const int64_t n = 16;
    nd_array *x = make(ND_INT32, 1, &n, 1), *z = NULL;
    ND_OK_OR_FAIL(nd_kernel_call(k, 1, (const nd_array *[]){x}, 1, &z));
    ck_assert_int_eq(count_entries(dir, ".so"), 1);
    struct stat st;
    ck_assert(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    /* ND_KERNEL_CACHE=0: nothing written */
    setenv("ND_KERNEL_CACHE", "0", 1);
    snprintf(body, sizeof body, "z = x * %d + 1", (int)getpid() % 1000 + 2);
    nd_kernel *k2 = NULL;
    nd_array *z2 = NULL;
    ND_OK_OR_FAIL(nd_kernel_elementwise(&k2, "T x", "T z", body, "uncached", NULL));
    ND_OK_OR_FAIL(nd_kernel_call(k2, 1, (const nd_array *[]){x}, 1, &z2));
    ck_assert_int_eq(count_entries(dir, ".so"), 1);
    ck_assert(!nd__kcache_enabled());
    unsetenv("ND_KERNEL_CACHE");
    const int32_t *px = nd_data(x), *pz = nd_data(z2);
    for (int64_t i = 0; i < n; i++) ck_assert_int_eq(pz[i], px[i] * ((int)getpid() % 1000 + 2) + 1);
    setenv("ND_KERNEL_CACHE_DIR", g_dir, 1);
    nd_release(x), nd_release(z), nd_release(z2);
    nd_kernel_release(k), nd_kernel_release(k2);
}
END_TEST

START_TEST(cache_entries_are_verified)
{
    char dir[96], path[512], key[ND_KCACHE_KEY_HEX + 1], other[ND_KCACHE_KEY_HEX + 1];
    snprintf(dir, sizeof dir, "%s/k2", g_dir);
    setenv("ND_KERNEL_CACHE_DIR", dir, 1);
    nd__kcache_key("some text", 9, key);
    nd__kcache_key("some texu", 9, other);
    ck_assert_str_ne(key, other);
    const char blob[] = "compiled bytes \x01\x02\x03";
    ck_assert(nd__kcache_store(key, "bin", blob, sizeof blob));
    void *b = NULL;
    size_t len = 0;
    ck_assert(nd__kcache_read(key, "bin", &b, &len));
    ck_assert_uint_eq(len, sizeof blob);
    ck_assert(memcmp(b, blob, len) == 0);
    nd__free(b);
    ck_assert(!nd__kcache_read(other, "bin", &b, &len));
    /* a flipped byte: rejected and removed */
    ck_assert(nd__kcache_path(key, "bin", path, sizeof path));
    FILE *f = fopen(path, "r+b");
    ck_assert_ptr_nonnull(f);
    fseek(f, 3, SEEK_SET);
    fputc('X', f);
    fclose(f);
    ck_assert(!nd__kcache_read(key, "bin", &b, &len));
    ck_assert(access(path, F_OK) != 0);
    /* another key's entry under this name: rejected */
    ck_assert(nd__kcache_store(other, "bin", blob, sizeof blob));
    char opath[512];
    ck_assert(nd__kcache_path(other, "bin", opath, sizeof opath));
    ck_assert(rename(opath, path) == 0);
    ck_assert(!nd__kcache_read(key, "bin", &b, &len));
    /* truncated */
    ck_assert(nd__kcache_store(key, "bin", blob, sizeof blob));
    ck_assert(truncate(path, 10) == 0);
    ck_assert(!nd__kcache_path(key, "bin", path, sizeof path));
    /* names that are not keys are refused */
    ck_assert(!nd__kcache_store("../../etc/passwd", "bin", blob, sizeof blob));
    ck_assert(!nd__kcache_store(key, "b/n", blob, sizeof blob));
    /* a directory others may write to is not used */
    ck_assert(chmod(dir, 0777) == 0);
    ck_assert(!nd__kcache_enabled());
    ck_assert(!nd__kcache_store(key, "bin", blob, sizeof blob));
    ck_assert(chmod(dir, 0700) == 0);
    ck_assert(nd__kcache_enabled());
    setenv("ND_KERNEL_CACHE_DIR", g_dir, 1);
}
END_TEST

/* Processes storing one entry at once: every reader sees a whole entry. */
START_TEST(concurrent_stores_leave_one_whole_entry)
{
    char dir[96], key[ND_KCACHE_KEY_HEX + 1];
    snprintf(dir, sizeof dir, "%s/k3", g_dir);
    setenv("ND_KERNEL_CACHE_DIR", dir, 1);
    nd__kcache_key("concurrent", 10, key);
    enum { NP = 6, SZ = 1 << 20 };
    pid_t pids[NP];
    for (int p = 0; p < NP; p++) {
        if ((pids[p] = fork()) == 0) {
            char *blob = malloc(SZ);
            for (int i = 0; i < SZ; i++) blob[i] = (char)(i * 31 + 7);
            bool ok = true;
            for (int r = 0; r < 5; r++) {
                ok &= nd__kcache_store(key, "bin", blob, SZ);
                void *b = NULL;
                size_t len = 0;
                if (nd__kcache_read(key, "bin", &b, &len)) {
                    ok &= len == SZ && memcmp(b, blob, SZ) == 0;
                    nd__free(b);
                }
            }
            free(blob);
            _exit(ok ? 0 : 1);
        }
    }
    for (int p = 0; p < NP; p++) {
        int ws = 0;
        waitpid(pids[p], &ws, 0);
        ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "writer %d saw a broken entry", p);
    }
    void *b = NULL;
    size_t len = 0;
    ck_assert(nd__kcache_read(key, "bin", &b, &len));
    ck_assert_uint_eq(len, SZ);
    nd__free(b);
    ck_assert_int_eq(count_entries(dir, "bin"), 1); /* no temporaries left */
    setenv("ND_KERNEL_CACHE_DIR", g_dir, 1);
}
END_TEST

static void rm_tree(const char *dir)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "kernel: could not remove %s\n", dir);
}

static void suite_setup(void)
{
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "/tmp/ndgpu-kernel-test-XXXXXX");
        if (!mkdtemp(g_dir)) g_dir[0] = '\0';
    }
    setenv("ND_KERNEL_CACHE_DIR", g_dir, 1);
}

static void suite_teardown(void)
{
    if (g_dir[0]) rm_tree(g_dir);
    g_dir[0] = '\0';
}

Suite *suite_kernel(void)
{
    Suite *s = suite_create("kernel");
    TCase *tc = tcase_create("kernel");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, suite_setup, suite_teardown);
#define ADD(name)                                                                                        \
    tcase_add_test(tc, name##_cpu);                                                                      \
    if (nd_test_gpu_count() > 0) tcase_add_test(tc, name##_cuda);
    ADD(saxpy_against_double_reference)
    ADD(every_dtype_matches_the_library_ops)
    ADD(bool_logic)
    ADD(math_functions_take_the_operand_type)
    ADD(half_types_and_conversions)
    ADD(index_and_size)
    ADD(out_rule_and_accumulation)
    ADD(raw_parameters)
    ADD(several_outputs_and_parallel_sizes)
    ADD(parameter_and_type_errors)
    ADD(compile_errors_name_the_body_line)
    ADD(reduction_axes)
    ADD(reduction_types)
    ADD(reduction_many_elements)
    ADD(reduction_errors)
#undef ADD
    tcase_add_test(tc, kernels_land_in_the_disk_cache);
    tcase_add_test(tc, cache_entries_are_verified);
    tcase_add_test(tc, concurrent_stores_leave_one_whole_entry);
    suite_add_tcase(s, tc);
    return s;
}
