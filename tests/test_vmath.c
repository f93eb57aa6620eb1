/* suite_vmath: the vectorised float32 math of src/cpu/vmath.c against a
 * double-precision reference (exact to far below a float32 ulp), across
 * the whole float32 range: a stride through every bit pattern, dense
 * sweeps around the thresholds, subnormals, +-0, +-inf, NaN; and the
 * public ops (nd_exp, nd_tanh, nd_sigmoid on float32) through the
 * contiguous, strided, broadcast and in-place loops. */
#include <float.h>

#include "test_util.h"
#include "cpu/vmath.h"

typedef void (*vm_fn)(float *, const float *, int64_t);

static double ref_exp(double x) { return exp(x); }
static double ref_tanh(double x) { return tanh(x); }
static double ref_sigmoid(double x)
{
    if (x >= 0) return 1.0 / (1.0 + exp(-x));
    double e = exp(x);
    return e / (1.0 + e);
}

static float f_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t u_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* |got - ref| in units of the float32 ulp at ref (2^-149 for subnormal
 * results; +inf counts as 2^128 when ref is finite). */
static double ulp_err(float got, double ref)
{
    if (isnan(ref)) return isnan(got) ? 0 : INFINITY;
    if (isnan(got)) return INFINITY;
    if (isinf(ref)) return (double)got == ref ? 0 : INFINITY;
    double g = isinf(got) ? copysign(0x1p128, (double)got) : (double)got;
    if (isinf((float)ref)) /* beyond FLT_MAX + ulp/2: +-inf is exact */
        return isinf(got) && (got > 0) == (ref > 0) ? 0 : fabs(g - ref) / 0x1p104;
    double aref = fabs(ref);
    double ulp;
    if (aref >= 0x1p128) {
        ulp = 0x1p104;
    } else {
        int e;
        (void)frexp(aref, &e); /* aref = m 2^e, m in [0.5, 1) */
        ulp = ldexp(1.0, e - 24);
        if (ulp < 0x1p-149) ulp = 0x1p-149;
    }
    return fabs(g - ref) / ulp;
}

typedef struct {
    double max_err;
    float worst;
} vm_stat;

#define VM_CHUNK 4096

/* Run fn over xs[0..n) and check each result against ref. */
static void check_chunk(vm_fn fn, double (*ref)(double), const float *xs, int64_t n, vm_stat *st, const char *name)
{
    float out[VM_CHUNK];
    ck_assert(n <= VM_CHUNK);
    fn(out, xs, n);
    for (int64_t i = 0; i < n; i++) {
        double r = ref((double)xs[i]);
        double e = ulp_err(out[i], r);
        ck_assert_msg(e < INFINITY, "%s(%a) = %a, want %a", name, (double)xs[i], (double)out[i], r);
        if (e > st->max_err) {
            st->max_err = e;
            st->worst = xs[i];
        }
    }
}

/* Every step-th bit pattern (both signs), then dense sweeps of the
 * float32 values in [lo, hi]. */
static void sweep(vm_fn fn, double (*ref)(double), const char *name, double max_ulp, const float (*dense)[2],
                  int ndense)
{
    vm_stat st = {0, 0};
    float xs[VM_CHUNK];
    int64_t n = 0;
    for (uint64_t u = 0; u <= 0xffffffffu; u += 1021) {
        xs[n++] = f_of((uint32_t)u);
        if (n == VM_CHUNK) {
            check_chunk(fn, ref, xs, n, &st, name);
            n = 0;
        }
    }
    for (int d = 0; d < ndense; d++) {
        /* same-sign ranges, walked in bit space, at most ~2^18 points */
        uint32_t u0 = u_of(dense[d][0]), u1 = u_of(dense[d][1]);
        if (u0 > u1) {
            uint32_t tmp = u0;
            u0 = u1;
            u1 = tmp;
        }
        uint32_t step = (u1 - u0) / (1u << 18) + 1;
        for (uint64_t u = u0; u <= u1; u += step) {
            xs[n++] = f_of((uint32_t)u);
            if (n == VM_CHUNK) {
                check_chunk(fn, ref, xs, n, &st, name);
                n = 0;
            }
        }
    }
    if (n) check_chunk(fn, ref, xs, n, &st, name);
    ck_assert_msg(st.max_err <= max_ulp, "%s: max error %.3f ulp at %a (limit %.1f)", name, st.max_err,
                  (double)st.worst, max_ulp);
}

/* The special values: exact results, bit for bit (signs of zeros too). */
static void check_exact(vm_fn fn, const char *name, const float *xs, const float *want, int n)
{
    float out[32];
    ck_assert(n <= 32);
    fn(out, xs, n);
    for (int i = 0; i < n; i++) {
        if (isnan(want[i])) {
            ck_assert_msg(isnan(out[i]), "%s(%a) = %a, want NaN", name, (double)xs[i], (double)out[i]);
        } else {
            ck_assert_msg(u_of(out[i]) == u_of(want[i]), "%s(%a) = %a, want %a", name, (double)xs[i],
                          (double)out[i], (double)want[i]);
        }
    }
}

START_TEST(test_vmath_exp)
{
    static const float dense[][2] = {{0.25f, 0.5f}, {-0.5f, -0.25f}, {80.0f, 89.0f}, {-104.0f, -85.0f}};
    sweep(nd__vexp_f32, ref_exp, "exp", 2.0, dense, 4);
    const float x[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 88.7228469848632812f, 89.0f,
                       1000.0f, -103.98f, -104.0f, -1e30f, FLT_MIN, 0x1p-149f, -0x1p-149f};
    const float w[] = {1.0f, 1.0f, INFINITY, 0.0f, NAN, NAN, INFINITY, INFINITY,
                       INFINITY, 0.0f, 0.0f, 0.0f, 1.0f, 1.0f, 1.0f};
    check_exact(nd__vexp_f32, "exp", x, w, (int)(sizeof x / sizeof x[0]));
}
END_TEST

START_TEST(test_vmath_tanh)
{
    static const float dense[][2] = {{0.5f, 0.75f}, {-0.75f, -0.5f}, {8.0f, 10.0f}, {1e-4f, 1e-3f}};
    sweep(nd__vtanh_f32, ref_tanh, "tanh", 3.0, dense, 4);
    const float x[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1p-149f, -0x1p-149f, FLT_MIN, -FLT_MIN, 1e-20f, 50.0f,
                       -50.0f, 1e30f, -FLT_MAX};
    const float w[] = {0.0f, -0.0f, 1.0f, -1.0f, NAN, 0x1p-149f, -0x1p-149f, FLT_MIN, -FLT_MIN, 1e-20f, 1.0f,
                       -1.0f, 1.0f, -1.0f};
    check_exact(nd__vtanh_f32, "tanh", x, w, (int)(sizeof x / sizeof x[0]));
}
END_TEST

START_TEST(test_vmath_sigmoid)
{
    static const float dense[][2] = {{0.5f, 1.0f}, {-1.0f, -0.5f}, {-104.0f, -86.0f}, {15.0f, 18.0f}};
    sweep(nd__vsigmoid_f32, ref_sigmoid, "sigmoid", 3.0, dense, 4);
    const float x[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 200.0f, -200.0f, 0x1p-149f, -0x1p-149f, FLT_MAX,
                       -FLT_MAX};
    const float w[] = {0.5f, 0.5f, 1.0f, 0.0f, NAN, 1.0f, 0.0f, 0.5f, 0.5f, 1.0f, 0.0f};
    check_exact(nd__vsigmoid_f32, "sigmoid", x, w, (int)(sizeof x / sizeof x[0]));
}
END_TEST

/* Every length 0..67 and misaligned starts (the vector loops' tails and
 * peeling), in place and out of place, give the same bits as one long
 * call. */
START_TEST(test_vmath_lengths)
{
    vm_fn fns[3] = {nd__vexp_f32, nd__vtanh_f32, nd__vsigmoid_f32};
    float in[80], want[80], buf[80];
    for (int i = 0; i < 80; i++) in[i] = (float)(i - 40) * 0.37f + 0.01f * (float)i;
    for (int f = 0; f < 3; f++) {
        fns[f](want, in, 80);
        for (int off = 0; off < 5; off++) {
            for (int n = 0; n + off <= 72; n++) {
                memset(buf, 0, sizeof buf);
                fns[f](buf + off, in + off, n);
                for (int i = 0; i < n; i++) ck_assert(u_of(buf[off + i]) == u_of(want[off + i]));
                ck_assert(buf[off + n] == 0.0f);
                memcpy(buf, in, sizeof in);
                fns[f](buf + off, buf + off, n); /* in place */
                for (int i = 0; i < n; i++) ck_assert(u_of(buf[off + i]) == u_of(want[off + i]));
            }
        }
    }
}
END_TEST

/* The public ops on float32 use these functions on every layout:
 * contiguous, in place, a strided view, a transposed view, a broadcast
 * scalar, and float16 keeps its own (scalar) loop. */
typedef nd_status (*nd_unary_fn)(nd_array **, const nd_array *);

START_TEST(test_vmath_public)
{
    nd_unary_fn ops[3] = {nd_exp, nd_tanh, nd_sigmoid};
    vm_fn fns[3] = {nd__vexp_f32, nd__vtanh_f32, nd__vsigmoid_f32};
    enum { R = 37, C = 53 };
    static float host[R * C], want[R * C], got[R * C];
    for (int i = 0; i < R * C; i++) host[i] = (float)((i * 7919) % 4001 - 2000) * 0.013f;
    host[5] = NAN;
    host[6] = INFINITY;
    host[7] = -INFINITY;
    host[8] = -0.0f;
    const int64_t shape[2] = {R, C};
    for (int f = 0; f < 3; f++) {
        nd_array *a = NULL, *r = NULL;
        ND_OK_OR_FAIL(nd_from_host(&a, host, ND_FLOAT32, 2, shape, nd_cpu()));
        fns[f](want, host, R * C);
        /* contiguous, allocating */
        ND_OK_OR_FAIL(ops[f](&r, a));
        ND_OK_OR_FAIL(nd_copy_to_host(got, r, sizeof got));
        for (int i = 0; i < R * C; i++) ck_assert(u_of(got[i]) == u_of(want[i]) || (isnan(got[i]) && isnan(want[i])));
        /* transposed input into a contiguous out */
        nd_array *t = NULL, *rt = NULL;
        ND_OK_OR_FAIL(nd_transpose(&t, a, NULL));
        ND_OK_OR_FAIL(ops[f](&rt, t));
        ND_OK_OR_FAIL(nd_copy_to_host(got, rt, sizeof got));
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++) {
                float g = got[j * R + i], w = want[i * C + j];
                ck_assert(u_of(g) == u_of(w) || (isnan(g) && isnan(w)));
            }
        /* a strided view: every 2nd column */
        nd_array *s = NULL, *rs = NULL;
        nd_range rg[2] = {ND_ALL, {0, ND_NONE, 2}};
        ND_OK_OR_FAIL(nd_slice(&s, a, 2, rg));
        ND_OK_OR_FAIL(ops[f](&rs, s));
        int64_t cs = (C + 1) / 2;
        ND_OK_OR_FAIL(nd_copy_to_host(got, rs, (size_t)(R * cs) * sizeof(float)));
        for (int i = 0; i < R; i++)
            for (int j = 0; j < cs; j++) {
                float g = got[i * cs + j], w = want[i * C + 2 * j];
                ck_assert(u_of(g) == u_of(w) || (isnan(g) && isnan(w)));
            }
        /* a broadcast scalar */
        nd_array *b = NULL, *one = NULL, *rb = NULL;
        ND_OK_OR_FAIL(nd_from_host(&one, &host[100], ND_FLOAT32, 0, NULL, nd_cpu()));
        ND_OK_OR_FAIL(nd_broadcast_to(&b, one, 2, shape));
        ND_OK_OR_FAIL(ops[f](&rb, b));
        ND_OK_OR_FAIL(nd_copy_to_host(got, rb, sizeof got));
        for (int i = 0; i < R * C; i++) ck_assert(u_of(got[i]) == u_of(want[100]));
        /* in place */
        ND_OK_OR_FAIL(ops[f](&a, a));
        ND_OK_OR_FAIL(nd_copy_to_host(got, a, sizeof got));
        for (int i = 0; i < R * C; i++) ck_assert(u_of(got[i]) == u_of(want[i]) || (isnan(got[i]) && isnan(want[i])));
        nd_release(a);
        nd_release(r);
        nd_release(t);
        nd_release(rt);
        nd_release(s);
        nd_release(rs);
        nd_release(b);
        nd_release(one);
        nd_release(rb);
    }
}
END_TEST

/* The CPU backend's tiled path for transposed inputs (ragged tiles, a
 * transposed operand beside a contiguous and a broadcast one), against
 * plain loops: subtract(a.T, b) and subtract(a.T, row) for float64,
 * int16 and uint8 wrap-around, and exp(a.T) for float32. */
START_TEST(test_vmath_tiled_transpose)
{
    enum { R = 301, C = 203 };
    const int64_t sa[2] = {C, R}, sb[2] = {R, C}, srow[1] = {C};
    static double ad[R * C], bd[R * C], od[R * C];
    static int16_t ai[R * C], bi[R * C], oi[R * C];
    static uint8_t au[R * C], bu[R * C], ou[R * C];
    static float af[R * C], of[R * C], wf[R * C];
    for (int i = 0; i < R * C; i++) {
        ad[i] = (double)(i % 1009) * 0.37 - 50.0;
        bd[i] = (double)(i % 211) * 1.5;
        ai[i] = (int16_t)(i * 37);
        bi[i] = (int16_t)(i * 101 + 7);
        au[i] = (uint8_t)(i * 13);
        bu[i] = (uint8_t)(i * 7 + 3);
        af[i] = (float)((i % 2001) - 1000) * 0.021f;
    }
    const void *A[3] = {ad, ai, au}, *B[3] = {bd, bi, bu};
    void *O[3] = {od, oi, ou};
    const nd_dtype dts[3] = {ND_FLOAT64, ND_INT16, ND_UINT8};
    for (int d = 0; d < 3; d++) {
        for (int bcast = 0; bcast < 2; bcast++) {
            nd_array *a = NULL, *at = NULL, *b = NULL, *o = NULL;
            ND_OK_OR_FAIL(nd_from_host(&a, A[d], dts[d], 2, sa, nd_cpu()));
            ND_OK_OR_FAIL(nd_transpose(&at, a, NULL));
            ND_OK_OR_FAIL(nd_from_host(&b, B[d], dts[d], bcast ? 1 : 2, bcast ? srow : sb, nd_cpu()));
            ND_OK_OR_FAIL(nd_empty(&o, dts[d], 2, sb, nd_cpu()));
            ND_OK_OR_FAIL(nd_subtract(&o, at, b));
            ND_OK_OR_FAIL(nd_copy_to_host(O[d], o, (size_t)R * C * nd_dtype_size(dts[d])));
            for (int i = 0; i < R; i++)
                for (int j = 0; j < C; j++) {
                    int ia = j * R + i, ib = bcast ? j : i * C + j, io = i * C + j;
                    if (d == 0) ck_assert(od[io] == ad[ia] - bd[ib]);
                    else if (d == 1) ck_assert(oi[io] == (int16_t)(uint16_t)((uint16_t)ai[ia] - (uint16_t)bi[ib]));
                    else ck_assert(ou[io] == (uint8_t)(au[ia] - bu[ib]));
                }
            nd_release(a);
            nd_release(at);
            nd_release(b);
            nd_release(o);
        }
    }
    nd_array *a = NULL, *at = NULL, *o = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, af, ND_FLOAT32, 2, sa, nd_cpu()));
    ND_OK_OR_FAIL(nd_transpose(&at, a, NULL));
    ND_OK_OR_FAIL(nd_exp(&o, at));
    ND_OK_OR_FAIL(nd_copy_to_host(of, o, sizeof of));
    nd__vexp_f32(wf, af, R * C);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) ck_assert(u_of(of[i * C + j]) == u_of(wf[j * R + i]));
    nd_release(a);
    nd_release(at);
    nd_release(o);
}
END_TEST

Suite *suite_vmath(void)
{
    Suite *s = suite_create("vmath");
    TCase *tc = tcase_create("vmath");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_vmath_exp);
    tcase_add_test(tc, test_vmath_tanh);
    tcase_add_test(tc, test_vmath_sigmoid);
    tcase_add_test(tc, test_vmath_lengths);
    tcase_add_test(tc, test_vmath_public);
    tcase_add_test(tc, test_vmath_tiled_transpose);
    suite_add_tcase(s, tc);
    return s;
}
