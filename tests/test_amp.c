/* Loss scaling (src/elementwise/amp.c, both backends' nd_backend.amp_unscale):
 * nd_amp_unscale_check and the grad scaler (nd_grad_scaler_*).
 *
 * The scaler's state machine is checked step by step against PyTorch's
 * GradScaler / ATen _amp_update_scale_ rules (growth exactly at the
 * interval, backoff and tracker reset on inf, the skipped step, the
 * float32 scale that never grows to inf, the disabled scaler, bad
 * settings with their messages, unscale twice, set_scale).
 *
 * The fused pass: a single +inf, -inf or NaN placed at every position of a
 * (5, 7) array, for every float dtype and three layouts (contiguous,
 * transposed, a stepped slice [:, 1::2] of a (5, 15) buffer), and in the
 * 2nd of 3 arrays; the multiplied values are compared with a reference
 * computed here (the exact double product rounded to float32, then to the
 * half dtype; float64 in float64), the elements of the buffer outside a
 * strided view must keep their poison (a NaN poison must not be found
 * either), inv_scale == 1 must leave every bit as it was (a float16
 * signalling NaN included), and bad inputs (read-only, broadcast, integer,
 * NULL) must fail with their status and message before anything is
 * written. The same cases run on nd_cpu() and on cuda:0 (the emulated
 * device in the emu build; skipped without one), and with arrays of both
 * devices in one call. */
#include "harness.h"
#include "test_util.h"

static uint64_t rng_s = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
    rng_s ^= rng_s << 13;
    rng_s ^= rng_s >> 7;
    rng_s ^= rng_s << 17;
    return rng_s;
}

static const nd_dtype FLOATS[4] = {ND_FLOAT16, ND_BFLOAT16, ND_FLOAT32, ND_FLOAT64};
enum { L_CONTIG, L_TRANS, L_STEP, L_N };
static const char *lname[L_N] = {"contiguous", "transposed", "stepped"};
#define R 5
#define C 7

/* ------------------------------------------------------------------ */
/* Arrays under test                                                   */
/* ------------------------------------------------------------------ */
typedef struct {
    nd_dtype t;
    int layout;
    nd_array *base, *view; /* view: the (R, C) array handed to the op */
    int64_t nbase;
    char *before;          /* the base's bytes before the op */
    int64_t map[R * C];    /* view element (C order) -> base element */
} tcase;

static size_t isz(nd_dtype t) { return nd_dtype_size(t); }
static const char *dname(nd_device d) { return d.type == ND_DEVICE_CPU ? "cpu" : "cuda:0"; }

/* A value in [-4, 4) with a few significant bits and, now and then, an
 * exponent far from 1 (so that the products round and, for float16,
 * underflow into subnormals at inv_scale 2^-16). */
static double rand_val(nd_dtype t)
{
    double v = ((double)(int64_t)(rnd() % 2048) - 1024) / 256.0;
    if (rnd() % 5 == 0) v *= 1.0 / 64;
    if (v == 0) v = 0.75;
    return ew_round(t, v);
}

static void tcase_upload(tcase *c, nd_device dev);
/* A new case: the base filled with random values, the positions outside
 * the view with `poison`, special (if non-zero) at view element pos. */
static void tcase_make(tcase *c, nd_device dev, nd_dtype t, int layout, double poison, int pos, double special)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    c->layout = layout;
    int64_t bshape[2] = {R, C};
    if (layout == L_TRANS) bshape[0] = C, bshape[1] = R;
    if (layout == L_STEP) bshape[1] = 2 * C + 1;
    c->nbase = bshape[0] * bshape[1];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            int64_t k = (int64_t)i * C + j;
            c->map[k] = layout == L_CONTIG ? k : layout == L_TRANS ? (int64_t)j * R + i : (int64_t)i * bshape[1] + 1 + 2 * j;
        }
    c->before = malloc((size_t)c->nbase * isz(t));
    for (int64_t k = 0; k < c->nbase; k++) ew_store(c->before + k * isz(t), t, (ew_val){.f = ew_round(t, poison)});
    for (int k = 0; k < R * C; k++) {
        ew_val v = {.f = rand_val(t)};
        if (k == pos && special != 0) v.f = special;
        ew_store(c->before + c->map[k] * isz(t), t, v);
    }
    tcase_upload(c, dev);
}

/* (Re)build the base from c->before and the view on it. */
static void tcase_upload(tcase *c, nd_device dev)
{
    nd_release(c->view);
    nd_release(c->base);
    c->view = c->base = NULL;
    int64_t bshape[2] = {R, C};
    if (c->layout == L_TRANS) bshape[0] = C, bshape[1] = R;
    if (c->layout == L_STEP) bshape[1] = 2 * C + 1;
    const int layout = c->layout;
    ND_OK_OR_FAIL(nd_from_host(&c->base, c->before, c->t, 2, bshape, dev));
    if (layout == L_TRANS) {
        ND_OK_OR_FAIL(nd_transpose(&c->view, c->base, NULL));
    } else if (layout == L_STEP) {
        nd_range r[2] = {ND_ALL, {1, ND_NONE, 2}};
        ND_OK_OR_FAIL(nd_slice(&c->view, c->base, 2, r));
    } else {
        c->view = nd_retain(c->base);
    }
    ck_assert_int_eq(nd_ndim(c->view), 2);
    ck_assert_int_eq(nd_size(c->view), R * C);
}

static void tcase_free(tcase *c)
{
    nd_release(c->view);
    nd_release(c->base);
    free(c->before);
}

static bool in_view(const tcase *c, int64_t b)
{
    for (int k = 0; k < R * C; k++)
        if (c->map[k] == b) return true;
    return false;
}

/* The reference product: float32 arithmetic (exact double product of two
 * float32 values, rounded once to float32), then rounded to the half
 * dtype; float64 in float64. */
static double ref_mul(nd_dtype t, double x, double inv)
{
    if (t == ND_FLOAT64) return x * inv;
    float f = (float)((double)(float)x * (double)(float)inv);
    return ew_round(t, (double)f);
}

/* Check the base after the op: view elements x * inv (or bit-identical
 * when !scaled), everything else as before. */
static void tcase_check(const tcase *c, double inv, bool scaled, const char *what)
{
    const size_t s = isz(c->t);
    char *after = malloc((size_t)c->nbase * s);
    ND_OK_OR_FAIL(nd_copy_to_host(after, c->base, (size_t)c->nbase * s));
    for (int64_t b = 0; b < c->nbase; b++) {
        const char *p0 = c->before + b * s, *p1 = after + b * s;
        if (!in_view(c, b) || !scaled) {
            ck_assert_msg(memcmp(p0, p1, s) == 0, "%s: %s %s base element %lld changed (%s)", what,
                          nd_dtype_name(c->t), lname[c->layout], (long long)b,
                          in_view(c, b) ? "inv_scale 1 must write nothing" : "outside the view");
            continue;
        }
        double x = ew_load(p0, c->t).f, got = ew_load(p1, c->t).f, want = ref_mul(c->t, x, inv);
        bool ok = isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want);
        ck_assert_msg(ok, "%s: %s %s base element %lld: %.17g * %.17g = %.17g, want %.17g", what, nd_dtype_name(c->t),
                      lname[c->layout], (long long)b, x, inv, got, want);
    }
    free(after);
}

/* ------------------------------------------------------------------ */
/* nd_amp_unscale_check                                                */
/* ------------------------------------------------------------------ */
static void positions_cases(nd_device dev)
{
    const double specials[3] = {INFINITY, -INFINITY, NAN};
    const double inv = 0.3; /* float32(0.3) for the float32/half arrays: products round */
    int calls = 0;
    for (int ti = 0; ti < 4; ti++)
        for (int l = 0; l < L_N; l++) {
            nd_dtype t = FLOATS[ti];
            char what[96];
            /* clean: nothing found, a NaN poison outside the view unread */
            tcase c;
            tcase_make(&c, dev, t, l, NAN, -1, 0);
            bool found = true;
            ND_OK_OR_FAIL(nd_amp_unscale_check(&c.view, 1, inv, &found));
            snprintf(what, sizeof what, "clean (%s)", dname(dev));
            ck_assert_msg(!found, "%s %s %s: found an inf/NaN", what, nd_dtype_name(t), lname[l]);
            tcase_check(&c, inv, true, what);
            tcase_free(&c);
            for (int sp = 0; sp < 3; sp++)
                for (int pos = 0; pos < R * C; pos++) {
                    tcase_make(&c, dev, t, l, 768.0, pos, specials[sp]);
                    found = false;
                    double f = (sp + pos) % 2 ? inv : 1.0 / 65536;
                    ND_OK_OR_FAIL(nd_amp_unscale_check(&c.view, 1, f, &found));
                    calls++;
                    snprintf(what, sizeof what, "%g at view element %d (%s)", specials[sp], pos, dname(dev));
                    ck_assert_msg(found, "%s %s %s: not found", what, nd_dtype_name(t), lname[l]);
                    tcase_check(&c, f, true, what);
                    tcase_free(&c);
                }
        }
    ck_assert_int_eq(calls, 4 * L_N * 3 * R * C);
}
START_TEST(positions_cpu) { positions_cases(nd_cpu()); }
END_TEST
START_TEST(positions_cuda) { positions_cases(nd_cuda(0)); }
END_TEST

/* Three arrays of different dtypes and layouts (devices d0, d1, d2): the
 * special value in the 2nd (or none); all three multiplied. */
static void three_arrays(nd_device d0, nd_device d1, nd_device d2)
{
    const nd_device devs[3] = {d0, d1, d2};
    for (int sp = 0; sp < 4; sp++)
        for (int rot = 0; rot < 4; rot++) {
            const double special = sp == 0 ? 0 : sp == 1 ? INFINITY : sp == 2 ? -INFINITY : NAN;
            tcase c[3];
            nd_array *arr[3];
            for (int k = 0; k < 3; k++) {
                nd_dtype t = FLOATS[(rot + k) % 4];
                int l = (rot + k) % L_N;
                tcase_make(&c[k], devs[k], t, l, 768.0, k == 1 ? (int)(rnd() % (R * C)) : -1, k == 1 ? special : 0);
                arr[k] = c[k].view;
            }
            bool found = special == 0;
            ND_OK_OR_FAIL(nd_amp_unscale_check(arr, 3, 0.125, &found));
            ck_assert_msg(found == (special != 0), "three arrays, special %g: found %d", special, found);
            for (int k = 0; k < 3; k++) tcase_check(&c[k], 0.125, true, "three arrays");
            for (int k = 0; k < 3; k++) tcase_free(&c[k]);
        }
}

static void misc_cases(nd_device dev)
{
    three_arrays(dev, dev, dev);

    /* inv_scale 1 writes nothing: a float16 signalling NaN keeps its bits */
    for (int ti = 0; ti < 4; ti++)
        for (int l = 0; l < L_N; l++) {
            tcase c;
            tcase_make(&c, dev, FLOATS[ti], l, 768.0, 3, ti == 0 ? 0 : NAN);
            if (ti == 0) {
                uint16_t snan = 0x7c01;
                memcpy(c.before + c.map[3] * 2, &snan, 2);
                tcase_upload(&c, dev);
            }
            bool found = false;
            ND_OK_OR_FAIL(nd_amp_unscale_check(&c.view, 1, 1.0, &found));
            ck_assert(found);
            tcase_check(&c, 1.0, false, "inv_scale 1");
            tcase_free(&c);
        }
    /* 1 + 2^-30 is 1 in float32: nothing written for the float32/half
     * arrays; float64 arrays are multiplied by it */
    {
        tcase c;
        tcase_make(&c, dev, ND_FLOAT32, L_STEP, 768.0, -1, 0);
        bool found = true;
        ND_OK_OR_FAIL(nd_amp_unscale_check(&c.view, 1, 1 + 0x1p-30, &found));
        ck_assert(!found);
        tcase_check(&c, 1.0, false, "inv_scale 1 + 2^-30 on float32");
        tcase_free(&c);
        tcase_make(&c, dev, ND_FLOAT64, L_TRANS, 768.0, -1, 0);
        ND_OK_OR_FAIL(nd_amp_unscale_check(&c.view, 1, 1 + 0x1p-30, &found));
        tcase_check(&c, 1 + 0x1p-30, true, "inv_scale 1 + 2^-30 on float64");
        tcase_free(&c);
    }

    /* 0-d, zero-size, n == 0 */
    for (int ti = 0; ti < 4; ti++) {
        nd_dtype t = FLOATS[ti];
        nd_array *z = NULL, *e = NULL;
        ND_OK_OR_FAIL(nd_full(&z, t, 0, NULL, nd_scalar_float(2.0), dev));
        ND_OK_OR_FAIL(nd_empty(&e, t, 2, (int64_t[]){3, 0}, dev));
        nd_array *two[2] = {e, z};
        bool found = true;
        ND_OK_OR_FAIL(nd_amp_unscale_check(two, 2, 0.5, &found));
        ck_assert(!found);
        double v = 0;
        nd_array *z64 = NULL;
        ND_OK_OR_FAIL(nd_astype(&z64, z, ND_FLOAT64));
        ND_OK_OR_FAIL(nd_copy_to_host(&v, z64, sizeof v));
        ck_assert_msg(v == 1.0, "0-d %s: 2 * 0.5 = %g", nd_dtype_name(t), v);
        nd_release(z64);
        nd_release(z);
        z = NULL;
        ND_OK_OR_FAIL(nd_full(&z, t, 0, NULL, nd_scalar_float(-INFINITY), dev));
        two[1] = z;
        ND_OK_OR_FAIL(nd_amp_unscale_check(two, 2, 0.5, &found));
        ck_assert(found);
        nd_release(z);
        nd_release(e);
    }
    bool found = true;
    ND_OK_OR_FAIL(nd_amp_unscale_check(NULL, 0, 0.5, &found));
    ck_assert(!found);

    /* big arrays (threads on the CPU, many blocks on a GPU), contiguous
     * and with a step, one inf near the end */
    for (int ti = 0; ti < 4; ti++) {
        nd_dtype t = FLOATS[ti];
        const int64_t n = (int64_t)1 << 20;
        nd_array *a = NULL, *s = NULL;
        ND_OK_OR_FAIL(nd_full(&a, t, 1, &n, nd_scalar_float(3.0), dev));
        ND_OK_OR_FAIL(nd_amp_unscale_check(&a, 1, 0.5, &found));
        ck_assert(!found);
        nd_range r = {0, ND_NONE, 3};
        ND_OK_OR_FAIL(nd_slice(&s, a, 1, &r));
        ND_OK_OR_FAIL(nd_amp_unscale_check(&s, 1, 2.0, &found));
        ck_assert(!found);
        /* a: 3 at every third element from 0 (x 0.5 x 2), 1.5 elsewhere */
        nd_array *h = NULL;
        ND_OK_OR_FAIL(nd_astype(&h, a, ND_FLOAT64));
        double *buf = malloc((size_t)n * sizeof *buf);
        ND_OK_OR_FAIL(nd_copy_to_host(buf, h, (size_t)n * sizeof *buf));
        for (int64_t i = 0; i < n; i++)
            if (buf[i] != (i % 3 == 0 ? 3.0 : 1.5)) {
                ck_abort_msg("big %s element %lld = %g", nd_dtype_name(t), (long long)i, buf[i]);
            }
        nd_release(h);
        const int64_t at = n - 1 - 3 * (int64_t)(rnd() % 1000);
        int64_t ix = at;
        nd_array *one = NULL, *inf = NULL;
        ND_OK_OR_FAIL(nd_full(&inf, t, 1, (int64_t[]){1}, nd_scalar_float(NAN), dev));
        nd_range ri = {ix, ix + 1, 1};
        ND_OK_OR_FAIL(nd_slice(&one, a, 1, &ri));
        ND_OK_OR_FAIL(nd_copy(&one, inf));
        ND_OK_OR_FAIL(nd_amp_unscale_check(&a, 1, 1.0, &found));
        ck_assert_msg(found, "big %s: the NaN at %lld not found", nd_dtype_name(t), (long long)at);
        /* at = n - 1 - 3k: at % 3 == (n - 1) % 3 == 0 for n = 2^20: in the slice */
        ND_OK_OR_FAIL(nd_amp_unscale_check(&s, 1, 1.0, &found));
        ck_assert_msg(found == (at % 3 == 0), "big %s stepped: found %d", nd_dtype_name(t), found);
        free(buf);
        nd_release(one);
        nd_release(inf);
        nd_release(s);
        nd_release(a);
    }
}
START_TEST(misc_cpu) { misc_cases(nd_cpu()); }
END_TEST
START_TEST(misc_cuda) { misc_cases(nd_cuda(0)); }
END_TEST

/* Arrays of both devices in one call. */
START_TEST(mixed_devices)
{
    three_arrays(nd_cpu(), nd_cuda(0), nd_cpu());
    three_arrays(nd_cuda(0), nd_cpu(), nd_cuda(0));
}
END_TEST

/* Bad inputs: status, message, and nothing written (the good arrays come
 * first in the list). */
static void error_cases(nd_device dev)
{
    tcase good;
    tcase_make(&good, dev, ND_FLOAT32, L_STEP, 768.0, -1, 0);
    nd_array *i32 = NULL, *f = NULL, *ro = NULL, *bc = NULL, *sq = NULL, *row = NULL;
    ND_OK_OR_FAIL(nd_zeros(&i32, ND_INT32, 1, (int64_t[]){4}, dev));
    ND_OK_OR_FAIL(nd_full(&sq, ND_FLOAT32, 2, (int64_t[]){3, 3}, nd_scalar_float(8.0), dev));
    ND_OK_OR_FAIL(nd_diagonal(&ro, sq, 0, 0, 1)); /* a read-only view */
    ND_OK_OR_FAIL(nd_full(&row, ND_FLOAT32, 2, (int64_t[]){1, 4}, nd_scalar_float(8.0), dev));
    ND_OK_OR_FAIL(nd_broadcast_to(&bc, row, 2, (int64_t[]){3, 4}));
    nd_array *list[3] = {good.view, NULL, NULL};
    bool found = true;

    list[1] = i32;
    ND_EXPECT_ERR(nd_amp_unscale_check(list, 2, 0.5, &found), ND_ERR_DTYPE, "arrays[1] has dtype int32");
    ck_assert(!found);
    ND_OK_OR_FAIL(nd_zeros(&f, ND_BOOL, 1, (int64_t[]){2}, dev));
    list[1] = f;
    ND_EXPECT_ERR(nd_amp_unscale_check(list, 2, 0.5, &found), ND_ERR_DTYPE, "arrays[1] has dtype bool");
    list[1] = ro;
    ND_EXPECT_ERR(nd_amp_unscale_check(list, 2, 0.5, &found), ND_ERR_INVALID, "'arrays[1]' is read-only");
    list[1] = bc;
    ND_EXPECT_ERR(nd_amp_unscale_check(list, 2, 0.5, &found), ND_ERR_INVALID, "'arrays[1]' is a broadcast view");
    list[1] = good.view, list[2] = NULL;
    ND_EXPECT_ERR(nd_amp_unscale_check(list, 3, 0.5, &found), ND_ERR_INVALID, "arrays[2] is NULL");
    ND_EXPECT_ERR(nd_amp_unscale_check(list, -1, 0.5, &found), ND_ERR_INVALID, "n must be >= 0 (got -1)");
    ND_EXPECT_ERR(nd_amp_unscale_check(NULL, 1, 0.5, &found), ND_ERR_INVALID, "argument 'arrays' is NULL");
    ND_EXPECT_ERR(nd_amp_unscale_check(list, 1, 0.5, NULL), ND_ERR_INVALID, "argument 'found_inf' is NULL");
    tcase_check(&good, 1.0, false, "errors write nothing");
    double d[3];
    nd_array *sq64 = NULL;
    ND_OK_OR_FAIL(nd_astype(&sq64, ro, ND_FLOAT64));
    ND_OK_OR_FAIL(nd_copy_to_host(d, sq64, sizeof d));
    ck_assert(d[0] == 8 && d[1] == 8 && d[2] == 8);
    nd_release(sq64);

    /* the scaler's unscale: the same checks, and a failed unscale does not
     * count as the step's unscale */
    nd_grad_scaler *s = NULL;
    ND_OK_OR_FAIL(nd_grad_scaler_create(&s, NULL));
    list[1] = i32;
    ND_EXPECT_ERR(nd_grad_scaler_unscale(s, list, 2, &found), ND_ERR_DTYPE, "arrays[1] has dtype int32");
    tcase_check(&good, 1.0, false, "scaler errors write nothing");
    ND_OK_OR_FAIL(nd_grad_scaler_unscale(s, list, 1, &found));
    ck_assert(!found);
    tcase_check(&good, 1.0 / 65536, true, "scaler unscale after a failed one");
    nd_grad_scaler_destroy(s);

    nd_release(i32);
    nd_release(f);
    nd_release(ro);
    nd_release(sq);
    nd_release(bc);
    nd_release(row);
    tcase_free(&good);
}
START_TEST(errors_cpu) { error_cases(nd_cpu()); }
END_TEST
START_TEST(errors_cuda) { error_cases(nd_cuda(0)); }
END_TEST

/* ------------------------------------------------------------------ */
/* The grad scaler                                                     */
/* ------------------------------------------------------------------ */
static void state_is(const nd_grad_scaler *s, double scale, int64_t tracker, int64_t skipped, const char *what)
{
    int64_t t = -1, k = -1;
    nd_grad_scaler_get_state(s, &t, &k);
    ck_assert_msg(nd_grad_scaler_get_scale(s) == scale && t == tracker && k == skipped,
                  "%s: scale %g tracker %lld skipped %lld, want %g %lld %lld", what, nd_grad_scaler_get_scale(s),
                  (long long)t, (long long)k, scale, (long long)tracker, (long long)skipped);
}

START_TEST(scaler_state)
{
    nd_grad_scaler_config c;
    memset(&c, 0xab, sizeof c);
    nd_grad_scaler_config_init(&c);
    ck_assert(c.init_scale == 65536 && c.growth_factor == 2 && c.backoff_factor == 0.5 && c.growth_interval == 2000 &&
              c.enabled);
    nd_grad_scaler_config_init(NULL);

    nd_grad_scaler *s = NULL;
    ND_OK_OR_FAIL(nd_grad_scaler_create(&s, NULL));
    state_is(s, 65536, 0, 0, "defaults");
    /* growth exactly after 2000 finite steps */
    for (int i = 0; i < 1999; i++) ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    state_is(s, 65536, 1999, 0, "1999 finite steps");
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    state_is(s, 131072, 0, 0, "2000 finite steps");
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, true));
    state_is(s, 65536, 0, 1, "backoff");
    nd_grad_scaler_destroy(s);

    /* settable: interval 3, growth 4, backoff 0.25 */
    c.init_scale = 8, c.growth_factor = 4, c.backoff_factor = 0.25, c.growth_interval = 3;
    ND_OK_OR_FAIL(nd_grad_scaler_create(&s, &c));
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    state_is(s, 8, 2, 0, "2 of 3");
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, true));
    state_is(s, 2, 0, 1, "inf at 2 of 3");
    for (int i = 0; i < 3; i++) ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    state_is(s, 8, 0, 1, "3 of 3");
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, true));
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, true));
    state_is(s, 0.5, 0, 3, "two infs");
    /* set_scale (GradScaler.update(new_scale)) */
    ND_OK_OR_FAIL(nd_grad_scaler_set_scale(s, 1024));
    state_is(s, 1024, 0, 3, "set_scale");
    ND_EXPECT_ERR(nd_grad_scaler_set_scale(s, 0), ND_ERR_INVALID, "new_scale should be a positive finite float32 value (got 0)");
    ND_EXPECT_ERR(nd_grad_scaler_set_scale(s, -2), ND_ERR_INVALID, "(got -2)");
    ND_EXPECT_ERR(nd_grad_scaler_set_scale(s, NAN), ND_ERR_INVALID, "(got nan)");
    ND_EXPECT_ERR(nd_grad_scaler_set_scale(s, INFINITY), ND_ERR_INVALID, "(got inf)");
    ND_EXPECT_ERR(nd_grad_scaler_set_scale(s, 1e39), ND_ERR_INVALID, "(got 1e+39)");
    ND_EXPECT_ERR(nd_grad_scaler_set_scale(NULL, 2), ND_ERR_INVALID, "argument 's' is NULL");
    state_is(s, 1024, 0, 3, "bad set_scale changes nothing");
    /* the scale is float32: 1/3 is stored rounded */
    ND_OK_OR_FAIL(nd_grad_scaler_set_scale(s, 1.0 / 3));
    ck_assert(nd_grad_scaler_get_scale(s) == (double)(float)(1.0 / 3));
    nd_grad_scaler_destroy(s);

    /* never grows to inf: float32's largest power of two stays */
    c.init_scale = 0x1p127, c.growth_factor = 2, c.backoff_factor = 0.5, c.growth_interval = 1;
    ND_OK_OR_FAIL(nd_grad_scaler_create(&s, &c));
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    state_is(s, 0x1p127, 0, 0, "no growth past float32");
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, true));
    state_is(s, 0x1p126, 0, 1, "backoff from 2^127");
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    state_is(s, 0x1p127, 0, 1, "growth to 2^127");
    nd_grad_scaler_destroy(s);

    /* bad settings */
    nd_grad_scaler_config b;
    nd_grad_scaler_config_init(&b);
    s = (nd_grad_scaler *)&b;
    b.growth_factor = 0.5;
    ND_EXPECT_ERR(nd_grad_scaler_create(&s, &b), ND_ERR_INVALID, "growth_factor should be > 1 (got 0.5)");
    ck_assert_ptr_null(s);
    b.growth_factor = 1;
    ND_EXPECT_ERR(nd_grad_scaler_create(&s, &b), ND_ERR_INVALID, "growth_factor should be > 1 (got 1)");
    b.growth_factor = NAN;
    ND_EXPECT_ERR(nd_grad_scaler_create(&s, &b), ND_ERR_INVALID, "growth_factor should be > 1 (got nan)");
    nd_grad_scaler_config_init(&b);
    b.backoff_factor = 1;
    ND_EXPECT_ERR(nd_grad_scaler_create(&s, &b), ND_ERR_INVALID, "backoff_factor should be in (0, 1) (got 1)");
    b.backoff_factor = 0;
    ND_EXPECT_ERR(nd_grad_scaler_create(&s, &b), ND_ERR_INVALID, "backoff_factor should be in (0, 1) (got 0)");
    nd_grad_scaler_config_init(&b);
    b.growth_interval = 0;
    ND_EXPECT_ERR(nd_grad_scaler_create(&s, &b), ND_ERR_INVALID, "growth_interval should be >= 1 (got 0)");
    nd_grad_scaler_config_init(&b);
    b.init_scale = -1;
    ND_EXPECT_ERR(nd_grad_scaler_create(&s, &b), ND_ERR_INVALID, "init_scale should be a positive finite float32 value (got -1)");
    b.init_scale = INFINITY;
    ND_EXPECT_ERR(nd_grad_scaler_create(&s, &b), ND_ERR_INVALID, "(got inf)");
    b.init_scale = 1e300; /* inf in float32 */
    ND_EXPECT_ERR(nd_grad_scaler_create(&s, &b), ND_ERR_INVALID, "(got 1e+300)");
    b.init_scale = 1e-50; /* 0 in float32 */
    ND_EXPECT_ERR(nd_grad_scaler_create(&s, &b), ND_ERR_INVALID, "(got 1e-50)");
    ND_EXPECT_ERR(nd_grad_scaler_create(NULL, NULL), ND_ERR_INVALID, "argument 'out' is NULL");

    /* NULL scaler */
    ck_assert(nd_grad_scaler_get_scale(NULL) == 1.0);
    ck_assert(!nd_grad_scaler_should_step(NULL));
    int64_t t = 5, k = 5;
    nd_grad_scaler_get_state(NULL, &t, &k);
    ck_assert(t == 0 && k == 0);
    nd_grad_scaler_get_state(NULL, NULL, NULL);
    nd_grad_scaler_destroy(NULL);
    ND_EXPECT_ERR(nd_grad_scaler_update(NULL, false), ND_ERR_INVALID, "argument 's' is NULL");
    ND_EXPECT_ERR(nd_grad_scaler_unscale(NULL, NULL, 0, NULL), ND_ERR_INVALID, "argument 's' is NULL");
    nd_array *o = NULL;
    ND_EXPECT_ERR(nd_grad_scaler_scale(&o, NULL, NULL), ND_ERR_INVALID, "argument 's' is NULL");
}
END_TEST

static double scalar_of(const nd_array *a)
{
    nd_array *d = NULL;
    double v = 0;
    ND_OK_OR_FAIL(nd_astype(&d, a, ND_FLOAT64));
    ND_OK_OR_FAIL(nd_copy_to_host(&v, d, sizeof v));
    nd_release(d);
    return v;
}

/* One training step's calls through the scaler on dev. */
static void scaler_flow(nd_device dev)
{
    nd_grad_scaler_config c;
    nd_grad_scaler_config_init(&c);
    c.init_scale = 1024, c.growth_interval = 2;
    nd_grad_scaler *s = NULL;
    ND_OK_OR_FAIL(nd_grad_scaler_create(&s, &c));

    /* scale: loss * scale in loss's dtype, the out rule */
    nd_array *loss = NULL, *sl = NULL, *uo = NULL;
    ND_OK_OR_FAIL(nd_full(&loss, ND_FLOAT32, 0, NULL, nd_scalar_float(1.5), dev));
    ND_OK_OR_FAIL(nd_grad_scaler_scale(&sl, s, loss));
    ck_assert_int_eq(nd_dtype_of(sl), ND_FLOAT32);
    ck_assert(scalar_of(sl) == 1536);
    ND_OK_OR_FAIL(nd_full(&uo, ND_FLOAT64, 0, NULL, nd_scalar_float(NAN), dev));
    nd_array *uo2 = uo;
    ND_OK_OR_FAIL(nd_grad_scaler_scale(&uo2, s, loss));
    ck_assert_ptr_eq(uo2, uo);
    ck_assert(scalar_of(uo) == 1536);
    ND_EXPECT_ERR(nd_grad_scaler_scale(NULL, s, loss), ND_ERR_INVALID, "argument 'out' is NULL");
    nd_array *nl = NULL;
    ND_EXPECT_ERR(nd_grad_scaler_scale(&nl, s, NULL), ND_ERR_INVALID, "argument 'loss' is NULL");

    /* step 1: finite gradients, unscaled by 1/1024 */
    tcase g[2];
    tcase_make(&g[0], dev, ND_FLOAT32, L_TRANS, 768.0, -1, 0);
    tcase_make(&g[1], dev, ND_FLOAT16, L_STEP, 768.0, -1, 0);
    nd_array *gr[2] = {g[0].view, g[1].view};
    bool found = true;
    ND_OK_OR_FAIL(nd_grad_scaler_unscale(s, gr, 2, &found));
    ck_assert(!found);
    ck_assert(nd_grad_scaler_should_step(s));
    tcase_check(&g[0], 1.0 / 1024, true, "scaler step 1");
    tcase_check(&g[1], 1.0 / 1024, true, "scaler step 1");
    ND_EXPECT_ERR(nd_grad_scaler_unscale(s, gr, 2, &found), ND_ERR_INVALID,
                  "unscale() has already been called on this scaler since the last update()");
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    state_is(s, 1024, 1, 0, "after step 1");
    ck_assert(nd_grad_scaler_should_step(s));
    for (int k = 0; k < 2; k++) tcase_free(&g[k]);

    /* step 2: an inf in the bfloat16 gradient: skip, back off */
    tcase_make(&g[0], dev, ND_FLOAT64, L_CONTIG, 768.0, -1, 0);
    tcase_make(&g[1], dev, ND_BFLOAT16, L_TRANS, 768.0, 17, INFINITY);
    gr[0] = g[0].view, gr[1] = g[1].view;
    ND_OK_OR_FAIL(nd_grad_scaler_unscale(s, gr, 2, NULL)); /* found_inf may be NULL */
    ck_assert(!nd_grad_scaler_should_step(s));
    tcase_check(&g[0], 1.0 / 1024, true, "scaler step 2");
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, false)); /* or'ed with what unscale found */
    state_is(s, 512, 0, 1, "after step 2");
    ck_assert(nd_grad_scaler_should_step(s));
    for (int k = 0; k < 2; k++) tcase_free(&g[k]);

    /* steps 3 and 4: finite, the scale grows after 2; the inverse scale is
     * float32(1 / scale) */
    for (int step = 3; step <= 4; step++) {
        tcase_make(&g[0], dev, ND_FLOAT32, L_CONTIG, 768.0, -1, 0);
        gr[0] = g[0].view;
        ND_OK_OR_FAIL(nd_grad_scaler_unscale(s, gr, 1, &found));
        ck_assert(!found);
        tcase_check(&g[0], 1.0 / 512, true, "scaler steps 3, 4");
        ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
        tcase_free(&g[0]);
    }
    state_is(s, 1024, 0, 1, "after step 4");
    /* a scale whose inverse is not a power of two */
    ND_OK_OR_FAIL(nd_grad_scaler_set_scale(s, 3000));
    tcase_make(&g[0], dev, ND_FLOAT32, L_STEP, 768.0, -1, 0);
    gr[0] = g[0].view;
    ND_OK_OR_FAIL(nd_grad_scaler_unscale(s, gr, 1, &found));
    tcase_check(&g[0], (double)(float)(1.0 / 3000), true, "scale 3000");
    tcase_free(&g[0]);
    /* the caller's found_inf alone also skips */
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, true));
    state_is(s, 1500, 0, 2, "update(true)");
    nd_grad_scaler_destroy(s);

    /* disabled: scale 1, unscale only checks, the scale never changes */
    c.enabled = false;
    ND_OK_OR_FAIL(nd_grad_scaler_create(&s, &c));
    state_is(s, 1, 0, 0, "disabled");
    nd_release(sl);
    sl = NULL;
    ND_OK_OR_FAIL(nd_grad_scaler_scale(&sl, s, loss));
    ck_assert(scalar_of(sl) == 1.5);
    tcase_make(&g[0], dev, ND_FLOAT16, L_TRANS, 768.0, 4, NAN);
    gr[0] = g[0].view;
    ND_OK_OR_FAIL(nd_grad_scaler_unscale(s, gr, 1, &found));
    ck_assert(found);
    ck_assert(!nd_grad_scaler_should_step(s));
    tcase_check(&g[0], 1.0, false, "disabled unscale writes nothing");
    ND_OK_OR_FAIL(nd_grad_scaler_set_scale(s, 4));
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    ND_OK_OR_FAIL(nd_grad_scaler_update(s, false));
    state_is(s, 1, 0, 1, "disabled after updates");
    tcase_free(&g[0]);
    nd_grad_scaler_destroy(s);

    nd_release(loss);
    nd_release(sl);
    nd_release(uo);
}
START_TEST(scaler_flow_cpu) { scaler_flow(nd_cpu()); }
END_TEST
START_TEST(scaler_flow_cuda) { scaler_flow(nd_cuda(0)); }
END_TEST

Suite *suite_amp(void)
{
    Suite *s = suite_create("amp");
    TCase *tc = tcase_create("amp");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, scaler_state);
    tcase_add_test(tc, scaler_flow_cpu);
    tcase_add_test(tc, positions_cpu);
    tcase_add_test(tc, misc_cpu);
    tcase_add_test(tc, errors_cpu);
    if (nd_test_gpu_count() > 0) {
        tcase_add_test(tc, scaler_flow_cuda);
        tcase_add_test(tc, positions_cuda);
        tcase_add_test(tc, misc_cuda);
        tcase_add_test(tc, errors_cuda);
        tcase_add_test(tc, mixed_devices);
    } else {
        printf("amp: cuda backend SKIPPED (no GPU)\n");
        fflush(stdout);
    }
    suite_add_tcase(s, tc);
    return s;
}
