/* GPU tests of the CUDA elementwise kernels (part of suite gpu_ew, see
 * tests/test_gpu_ew.c), added only when a GPU is present. Each compares
 * the CUDA result with the CPU backend's on the same random inputs (never
 * all zero), with the output poisoned first and sentinels around it. */
#include <stdio.h>

#include "shared/half.h"
#include "test_util.h"

void gpu_ew_add_device_tests(Suite *s);

/* The device under test. Building with -DGPU_EW_DRY_RUN runs these tests
 * with the CPU backend in place of the GPU (CPU against CPU): a check of
 * the tests themselves on machines without a GPU. */
#ifdef GPU_EW_DRY_RUN
#define DUT nd_cpu()
#else
#define DUT nd_cuda(0)
#endif

#define POISON 0xA5

static uint64_t dev_rng = 0x243F6A8885A308D3ull;
static uint64_t drnd(void)
{
    uint64_t z = (dev_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static size_t isz_of(nd_dtype t)
{
    static const size_t sz[ND_NUM_DTYPES] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
    return sz[t];
}
static bool is_float_t(nd_dtype t) { return t >= ND_FLOAT16; }

/* Random values: bool 0/1, integers of every bit pattern, floats in
 * [-8, 8) with NaN, +-Inf and -0.0 sprinkled in. */
static void fill_random(void *p, nd_dtype t, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = drnd();
        double f = ((double)(r >> 11) / 9007199254740992.0) * 16.0 - 8.0;
        if (i % 97 == 5) f = NAN;
        else if (i % 101 == 7) f = INFINITY;
        else if (i % 103 == 9) f = -INFINITY;
        else if (i % 107 == 11) f = -0.0;
        switch (t) {
        case ND_BOOL: ((uint8_t *)p)[i] = (uint8_t)(r & 1); break;
        case ND_FLOAT16: ((uint16_t *)p)[i] = nd_float_to_half((float)f); break;
        case ND_BFLOAT16: ((uint16_t *)p)[i] = nd_float_to_bf16((float)f); break;
        case ND_FLOAT32: ((float *)p)[i] = (float)f; break;
        case ND_FLOAT64: ((double *)p)[i] = f; break;
        case ND_COMPLEX64: ((float *)p)[2 * i] = (float)f, ((float *)p)[2 * i + 1] = (float)(r & 0xffff) - 3.5f; break;
        case ND_COMPLEX128: ((double *)p)[2 * i] = f, ((double *)p)[2 * i + 1] = (double)(r & 0xffff) - 3.5; break;
        default: memcpy((char *)p + i * (int64_t)isz_of(t), &r, isz_of(t)); break;
        }
    }
}

static nd_array *host_random(nd_dtype t, int64_t n)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_empty(&a, t, 1, &n, nd_cpu()));
    fill_random(nd_data(a), t, n);
    return a;
}

static nd_array *to_gpu(const nd_array *a)
{
    nd_array *g = NULL;
    ND_OK_OR_FAIL(nd_to_device(&g, a, DUT));
    return g;
}

static nd_array *slice1(const nd_array *a, int64_t start, int64_t stop, int64_t step)
{
    nd_array *v = NULL;
    nd_range r = {start, stop, step};
    ND_OK_OR_FAIL(nd_slice(&v, a, 1, &r));
    return v;
}

/* A poisoned GPU buffer of lead + n + 5 elements and the view [lead, lead + n). */
static nd_array *make_out(nd_dtype t, int64_t n, int64_t lead, nd_array **view)
{
    int64_t len = lead + n + 5;
    size_t nb = (size_t)len * isz_of(t);
    nd_array *buf = NULL;
    ND_OK_OR_FAIL(nd_empty(&buf, t, 1, &len, DUT));
    unsigned char *h = malloc(nb);
    memset(h, POISON, nb);
    ND_OK_OR_FAIL(nd_copy_from_host(buf, h, nb));
    free(h);
    *view = slice1(buf, lead, lead + n, 1);
    return buf;
}

/* The elements outside [lead, lead + n) of buf are still poison; with
 * all_poison the view's elements too. */
static void check_sentinels(const nd_array *buf, int64_t n, int64_t lead, bool all_poison)
{
    size_t nb = nd_nbytes(buf), isz = isz_of(nd_dtype_of(buf));
    unsigned char *h = malloc(nb);
    ND_OK_OR_FAIL(nd_copy_to_host(h, buf, nb));
    for (size_t i = 0; i < nb; i++) {
        bool inside = i >= (size_t)lead * isz && i < (size_t)(lead + n) * isz;
        if (!inside || all_poison)
            ck_assert_msg(h[i] == POISON, "byte %zu (%s the output) was written", i, inside ? "inside" : "outside");
    }
    free(h);
}

static double as_double(const unsigned char *p, nd_dtype t)
{
    switch (t) {
    case ND_FLOAT16: { uint16_t h; memcpy(&h, p, 2); return nd_half_to_float(h); }
    case ND_BFLOAT16: { uint16_t h; memcpy(&h, p, 2); return nd_bf16_to_float(h); }
    case ND_FLOAT32: { float f; memcpy(&f, p, 4); return f; }
    default: { double d; memcpy(&d, p, 8); return d; }
    }
}

/* CPU result vs GPU result: same dtype and shape; bits equal when rtol is
 * 0, else (floats) NaN positions and infinities equal, values within rtol. */
static void compare(const nd_array *cpu, const nd_array *gpu, double rtol, const char *what)
{
    nd_dtype t = nd_dtype_of(cpu);
    ck_assert_msg(t == nd_dtype_of(gpu), "%s: dtype %s vs %s", what, nd_dtype_name(t), nd_dtype_name(nd_dtype_of(gpu)));
    ck_assert_int_eq(nd_size(cpu), nd_size(gpu));
    size_t nb = nd_nbytes(cpu), isz = isz_of(t);
    unsigned char *x = malloc(nb), *y = malloc(nb);
    ND_OK_OR_FAIL(nd_copy_to_host(x, cpu, nb));
    ND_OK_OR_FAIL(nd_copy_to_host(y, gpu, nb));
    int64_t n = nd_size(cpu), bad = 0;
    for (int64_t i = 0; i < n && bad < 5; i++) {
        const unsigned char *px = x + i * (int64_t)isz, *py = y + i * (int64_t)isz;
        if (memcmp(px, py, isz) == 0) continue;
        bool ok = false;
        if (is_float_t(t)) { /* a NaN is any NaN (the GPU's NaNs are canonical) */
            double a = as_double(px, t), b = as_double(py, t);
            if (a != a || b != b) ok = (a != a) && (b != b);
            else if (rtol > 0 && (isinf(a) || isinf(b))) ok = a == b;
            else if (rtol > 0) ok = fabs(a - b) <= rtol * fmax(fabs(a), fabs(b)) + 1e-300;
        }
        if (!ok) {
            fprintf(stderr, "%s: element %lld differs (%s)\n", what, (long long)i, nd_dtype_name(t));
            bad++;
        }
    }
    free(x);
    free(y);
    ck_assert_msg(bad == 0, "%s: CUDA result differs from the CPU's", what);
}

/* ------------------------------------------------------------------ */
/* Large arrays: multi-block grid-stride loops, vector body + head/tail */
/* ------------------------------------------------------------------ */
typedef struct {
    int arity; /* 1, 2, or 3 = where */
    int op;
    nd_dtype t;
    double rtol;
} big_case;

static void run_big(const big_case *c, int64_t n, int64_t sa, int64_t sb, int64_t so)
{
    char what[128];
    snprintf(what, sizeof what, "%s %s n=%lld offsets a%lld b%lld out%lld",
             c->arity == 1 ? nd_unary_op_name(c->op) : c->arity == 2 ? nd_binary_op_name(c->op) : "where",
             nd_dtype_name(c->t), (long long)n, (long long)sa, (long long)sb, (long long)so);
    nd_array *ha = host_random(c->t, n + 4), *hb = host_random(c->t, n + 4), *hc = host_random(ND_BOOL, n + 4);
    nd_array *ga = to_gpu(ha), *gb = to_gpu(hb), *gc = to_gpu(hc);
    nd_array *va = slice1(ha, sa, sa + n, 1), *vb = slice1(hb, sb, sb + n, 1), *vc = slice1(hc, sb, sb + n, 1);
    nd_array *wa = slice1(ga, sa, sa + n, 1), *wb = slice1(gb, sb, sb + n, 1), *wc = slice1(gc, sb, sb + n, 1);
    nd_array *ref = NULL, *view = NULL;
    if (c->arity == 1) ND_OK_OR_FAIL(nd_unary(&ref, (nd_unary_op)c->op, va));
    else if (c->arity == 2) ND_OK_OR_FAIL(nd_binary(&ref, (nd_binary_op)c->op, va, vb));
    else ND_OK_OR_FAIL(nd_where(&ref, vc, va, vb));
    nd_array *buf = make_out(nd_dtype_of(ref), n, so, &view);
    if (c->arity == 1) ND_OK_OR_FAIL(nd_unary(&view, (nd_unary_op)c->op, wa));
    else if (c->arity == 2) ND_OK_OR_FAIL(nd_binary(&view, (nd_binary_op)c->op, wa, wb));
    else ND_OK_OR_FAIL(nd_where(&view, wc, wa, wb));
    compare(ref, view, c->rtol, what);
    check_sentinels(buf, n, so, false);
    nd_array *all[] = {ha, hb, hc, ga, gb, gc, va, vb, vc, wa, wb, wc, ref, view, buf};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
}

START_TEST(large_flat_arrays_with_odd_offsets)
{
    const int64_t n = 30000001;
    /* exp float32: the CPU's libmvec kernel (<= 4 ulp, src/cpu/vmath.h) vs
     * CUDA's expf (<= 2 ulp): up to 6 ulp apart, 2^-23 relative each */
    const big_case cases[] = {
        {2, ND_BINARY_ADD, ND_FLOAT32, 0},         {2, ND_BINARY_MULTIPLY, ND_FLOAT16, 0},
        {2, ND_BINARY_LESS, ND_FLOAT64, 0},        {2, ND_BINARY_BITWISE_XOR, ND_UINT8, 0},
        {1, ND_UNARY_EXP, ND_FLOAT32, 8e-7},       {1, ND_UNARY_NEG, ND_INT64, 0},
        {1, ND_UNARY_ISNAN, ND_FLOAT64, 0},        {3, 0, ND_UINT16, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_big(&cases[i], n, 1, 1, 1); /* same misalignment: head, vector body, tail */
        run_big(&cases[i], n, 1, 2, 3); /* different: the scalar flat path */
    }
    /* a broadcast scalar operand (0-d array) on the flat path */
    nd_array *ha = host_random(ND_FLOAT32, n + 1), *ga = to_gpu(ha), *va = slice1(ha, 1, n + 1, 1),
             *wa = slice1(ga, 1, n + 1, 1), *ref = NULL, *res = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&ref, ND_BINARY_MULTIPLY, va, nd_scalar_float(1.5)));
    ND_OK_OR_FAIL(nd_binary_scalar(&res, ND_BINARY_MULTIPLY, wa, nd_scalar_float(1.5)));
    compare(ref, res, 0, "multiply by a scalar");
    nd_array *all[] = {ha, ga, va, wa, ref, res};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
}
END_TEST

START_TEST(large_strided_arrays)
{
    /* a transposed int32 operand against a broadcast row: the 32-bit strided path */
    const int64_t shape[2] = {5003, 6007}, row = 5003;
    nd_array *h = host_random(ND_INT32, shape[0] * shape[1]), *h2 = NULL, *ht = NULL, *hr = host_random(ND_INT32, row);
    ND_OK_OR_FAIL(nd_reshape(&h2, h, 2, shape));
    ND_OK_OR_FAIL(nd_transpose(&ht, h2, NULL));
    nd_array *g2 = to_gpu(h2), *gt = NULL, *gr = to_gpu(hr), *ref = NULL, *res = NULL;
    ND_OK_OR_FAIL(nd_transpose(&gt, g2, NULL));
    ND_OK_OR_FAIL(nd_subtract(&ref, ht, hr));
    ND_OK_OR_FAIL(nd_subtract(&res, gt, gr));
    compare(ref, res, 0, "int32 transposed - row");
    /* a reversed float64 operand */
    nd_array *hf = host_random(ND_FLOAT64, 30000000), *gf = to_gpu(hf), *hv = slice1(hf, ND_NONE, ND_NONE, -1),
             *gv = slice1(gf, ND_NONE, ND_NONE, -1), *ref2 = NULL, *res2 = NULL;
    ND_OK_OR_FAIL(nd_maximum(&ref2, hv, hf));
    ND_OK_OR_FAIL(nd_maximum(&res2, gv, gf));
    compare(ref2, res2, 0, "float64 reversed max");
    nd_array *all[] = {h, h2, ht, hr, g2, gt, gr, ref, res, hf, gf, hv, gv, ref2, res2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
}
END_TEST

/* An operand spanning more than 2^31 bytes: the 64-bit strided path, for a
 * strided output, a strided input and the power exponent scan. */
START_TEST(operand_beyond_2gb_takes_64bit_indices)
{
    const int64_t len = ((int64_t)1 << 31) + ((int64_t)1 << 24), step = 1048583;
    const int64_t cnt = (len + step - 1) / step;
    nd_array *big = NULL;
    ND_OK_OR_FAIL(nd_empty(&big, ND_INT8, 1, &len, DUT));
    nd_array *v = slice1(big, 0, len, step), *hs = host_random(ND_INT8, cnt), *gs = to_gpu(hs);
    ck_assert_int_eq(nd_size(v), cnt);
    ND_OK_OR_FAIL(nd_bitwise_or(&v, gs, gs)); /* writes through the strided view */
    nd_array *ref = NULL, *res = NULL;
    ND_OK_OR_FAIL(nd_negative(&ref, hs));
    ND_OK_OR_FAIL(nd_negative(&res, v)); /* reads through it */
    compare(ref, res, 0, "negative of a view spanning 2 GiB");
    compare(hs, v, 0, "the view written by bitwise_or");
    nd_array *pw = NULL;
    ND_EXPECT_ERR(nd_power(&pw, gs, v), ND_ERR_INVALID, "Integers to negative integer powers are not allowed.");
    ck_assert_ptr_null(pw);
    nd_array *all[] = {big, v, hs, gs, ref, res};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Every dtype, views offset by 0..3 elements, sentinels              */
/* ------------------------------------------------------------------ */
START_TEST(unaligned_views_on_every_dtype)
{
    const int64_t n = 1037;
    const int64_t offs[][3] = {{0, 0, 0}, {1, 1, 1}, {1, 0, 1}, {3, 3, 3}, {0, 1, 2}, {2, 2, 2}};
    for (int t = 0; t < NT_NREAL; t++) /* maximum has no complex loop */
        for (size_t k = 0; k < sizeof offs / sizeof offs[0]; k++) {
            int64_t so = offs[k][0], sa = offs[k][1], sb = offs[k][2];
            nd_array *ha = host_random((nd_dtype)t, n + 4), *hb = host_random((nd_dtype)t, n + 4);
            nd_array *ga = to_gpu(ha), *gb = to_gpu(hb);
            nd_array *va = slice1(ha, sa, sa + n, 1), *vb = slice1(hb, sb, sb + n, 1);
            nd_array *wa = slice1(ga, sa, sa + n, 1), *wb = slice1(gb, sb, sb + n, 1);
            for (int which = 0; which < 4; which++) {
                nd_array *ref = NULL, *view = NULL, *buf = NULL;
                char what[96];
                snprintf(what, sizeof what, "case %d on %s offsets %lld %lld %lld", which, nd_dtype_name((nd_dtype)t),
                         (long long)so, (long long)sa, (long long)sb);
                switch (which) {
                case 0: ND_OK_OR_FAIL(nd_add(&ref, va, vb)); break;
                case 1: ND_OK_OR_FAIL(nd_abs(&ref, va)); break;
                case 2: ND_OK_OR_FAIL(nd_equal(&ref, va, vb)); break;
                default: ND_OK_OR_FAIL(nd_binary_scalar(&ref, ND_BINARY_MAXIMUM, va, nd_scalar_bool(true))); break;
                }
                buf = make_out(nd_dtype_of(ref), n, so, &view);
                switch (which) {
                case 0: ND_OK_OR_FAIL(nd_add(&view, wa, wb)); break;
                case 1: ND_OK_OR_FAIL(nd_abs(&view, wa)); break;
                case 2: ND_OK_OR_FAIL(nd_equal(&view, wa, wb)); break;
                default: ND_OK_OR_FAIL(nd_binary_scalar(&view, ND_BINARY_MAXIMUM, wa, nd_scalar_bool(true))); break;
                }
                compare(ref, view, 0, what);
                check_sentinels(buf, n, so, false);
                nd_release(ref);
                nd_release(view);
                nd_release(buf);
            }
            nd_array *all[] = {ha, hb, ga, gb, va, vb, wa, wb};
            for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
        }
}
END_TEST

START_TEST(where_on_every_dtype_and_layout)
{
    const int64_t rows = 37, cols = 53, n = rows * cols, shape[2] = {rows, cols}, tshape[2] = {cols, rows};
    for (int t = 0; t < ND_NUM_DTYPES; t++) {
        nd_array *h[3] = {host_random(ND_BOOL, n + 3), host_random((nd_dtype)t, n + 3), host_random((nd_dtype)t, n + 3)};
        nd_array *g[3] = {to_gpu(h[0]), to_gpu(h[1]), to_gpu(h[2])};
        for (int layout = 0; layout < 5; layout++) {
            nd_array *hv[3] = {NULL, NULL, NULL}, *gv[3] = {NULL, NULL, NULL};
            for (int k = 0; k < 3; k++) {
                nd_array *src[2] = {h[k], g[k]}, **dst[2] = {&hv[k], &gv[k]};
                for (int d = 0; d < 2; d++) {
                    nd_array *flat = NULL;
                    int64_t start = layout == 1 ? k : layout == 0 ? 1 : 0;
                    flat = slice1(src[d], start, start + n, 1);
                    if (layout == 2 && k == 0) { /* cond broadcast along the rows */
                        nd_array *r = slice1(src[d], 0, cols, 1);
                        ND_OK_OR_FAIL(nd_broadcast_to(dst[d], r, 2, shape));
                        nd_release(r);
                    } else if (layout == 3 && k == 1) { /* x a 0-d scalar */
                        nd_array *r = NULL, *s0 = slice1(src[d], 2, 3, 1);
                        ND_OK_OR_FAIL(nd_squeeze(&r, s0, 0, NULL));
                        *dst[d] = r;
                        nd_release(s0);
                    } else if (layout == 4 && k == 2) { /* y transposed */
                        nd_array *r = NULL;
                        ND_OK_OR_FAIL(nd_reshape(&r, flat, 2, tshape));
                        ND_OK_OR_FAIL(nd_transpose(dst[d], r, NULL));
                        nd_release(r);
                    } else {
                        ND_OK_OR_FAIL(nd_reshape(dst[d], flat, 2, shape));
                    }
                    nd_release(flat);
                }
            }
            nd_array *ref = NULL, *view = NULL, *v2 = NULL;
            ND_OK_OR_FAIL(nd_where(&ref, hv[0], hv[1], hv[2]));
            nd_array *buf = make_out((nd_dtype)t, n, layout, &view);
            ND_OK_OR_FAIL(nd_reshape(&v2, view, 2, shape));
            ND_OK_OR_FAIL(nd_where(&v2, gv[0], gv[1], gv[2]));
            char what[64];
            snprintf(what, sizeof what, "where %s layout %d", nd_dtype_name((nd_dtype)t), layout);
            compare(ref, v2, 0, what);
            check_sentinels(buf, n, layout, false);
            nd_array *all[] = {ref, view, v2, buf, hv[0], hv[1], hv[2], gv[0], gv[1], gv[2]};
            for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
        }
        for (int k = 0; k < 3; k++) {
            nd_release(h[k]);
            nd_release(g[k]);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Integer power                                                       */
/* ------------------------------------------------------------------ */
/* Host int array of dtype t with values in [lo, hi]. */
static nd_array *host_ints(nd_dtype t, int64_t n, int lo, int hi)
{
    nd_array *a = NULL, *c = NULL;
    ND_OK_OR_FAIL(nd_empty(&a, ND_INT64, 1, &n, nd_cpu()));
    int64_t *p = nd_data(a);
    for (int64_t i = 0; i < n; i++) p[i] = lo + (int64_t)(drnd() % (uint64_t)(hi - lo + 1));
    ND_OK_OR_FAIL(nd_astype(&c, a, t));
    nd_release(a);
    return c;
}

START_TEST(integer_power_negative_exponent_fails_before_writing)
{
    const nd_dtype types[4] = {ND_INT8, ND_INT16, ND_INT32, ND_INT64};
    for (int k = 0; k < 4; k++) {
        const int64_t n = k == 2 ? 3000000 : 4097;
        nd_array *ha = host_ints(types[k], n, -5, 5), *hb = host_ints(types[k], n, 0, 6);
        nd_array *ga = to_gpu(ha), *gb = to_gpu(hb), *ref = NULL, *res = NULL;
        ND_OK_OR_FAIL(nd_power(&ref, ha, hb));
        ND_OK_OR_FAIL(nd_power(&res, ga, gb)); /* no negative exponent: the scan passes */
        compare(ref, res, 0, "integer power");
        nd_release(res);
        /* one negative exponent in the middle: the error, the output untouched */
        int64_t pos = n / 2 + 1;
        nd_array *one = host_ints(types[k], 1, -1, -1), *gone = to_gpu(one), *gslot = slice1(gb, pos, pos + 1, 1);
        ND_OK_OR_FAIL(nd_copy(&gslot, gone));
        nd_array *view = NULL, *buf = make_out(types[k], n, 1, &view);
        ND_EXPECT_ERR(nd_power(&view, ga, gb), ND_ERR_INVALID, "Integers to negative integer powers are not allowed.");
        check_sentinels(buf, n, 1, true);
        /* strided views (the strided scan): the odd elements hold the
         * negative exponent (pos is odd), the even ones do not */
        ck_assert_int_eq(pos % 2, 1);
        nd_array *gbo = slice1(gb, 1, n, 2), *gao = slice1(ga, 0, n - 1, 2), *r2 = NULL;
        ND_EXPECT_ERR(nd_power(&r2, gao, gbo), ND_ERR_INVALID, "Integers to negative integer powers are not allowed.");
        ck_assert_ptr_null(r2);
        nd_array *gbe = slice1(gb, 0, n - 1, 2), *gae = slice1(ga, 1, n, 2), *hbe = slice1(hb, 0, n - 1, 2),
                 *hae = slice1(ha, 1, n, 2), *ref2 = NULL;
        ND_OK_OR_FAIL(nd_power(&ref2, hae, hbe));
        ND_OK_OR_FAIL(nd_power(&r2, gae, gbe));
        compare(ref2, r2, 0, "integer power on a view that skips the negative exponent");
        /* a negative scalar exponent (broadcast) */
        nd_array *r3 = NULL;
        ND_EXPECT_ERR(nd_binary_scalar(&r3, ND_BINARY_POWER, ga, nd_scalar_int(-2)), ND_ERR_INVALID,
                      "Integers to negative integer powers are not allowed.");
        nd_array *all[] = {ha, hb, ga, gb, ref, one, gone, gslot, view, buf, gbo, gao, r2, gbe, gae, hbe, hae, ref2};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
    }
    /* unsigned exponents have no bad value: no scan, exact wrap-around */
    nd_array *ha = host_random(ND_UINT32, 5000), *hb = host_ints(ND_UINT32, 5000, 0, 40);
    nd_array *ga = to_gpu(ha), *gb = to_gpu(hb), *ref = NULL, *res = NULL;
    ND_OK_OR_FAIL(nd_power(&ref, ha, hb));
    ND_OK_OR_FAIL(nd_power(&res, ga, gb));
    compare(ref, res, 0, "uint32 power");
    nd_array *all[] = {ha, hb, ga, gb, ref, res};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
}
END_TEST

void gpu_ew_add_device_tests(Suite *s)
{
#ifndef GPU_EW_DRY_RUN
    if (nd_test_gpu_count() == 0) {
        printf("gpu_ew: CUDA elementwise kernel tests SKIPPED (no GPU)\n");
        return;
    }
#endif
    TCase *tc = tcase_create("device");
    tcase_set_timeout(tc, 600);
    if (nd_test_large()) {
        tcase_add_test(tc, large_flat_arrays_with_odd_offsets);
        tcase_add_test(tc, large_strided_arrays);
        tcase_add_test(tc, operand_beyond_2gb_takes_64bit_indices);
    } else {
        printf("gpu_ew: the three large-array tests SKIPPED (ND_TEST_LARGE=0)\n");
    }
    tcase_add_test(tc, unaligned_views_on_every_dtype);
    tcase_add_test(tc, where_on_every_dtype_and_layout);
    tcase_add_test(tc, integer_power_negative_exponent_fails_before_writing);
    suite_add_tcase(s, tc);
}
