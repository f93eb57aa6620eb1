/* complex64 / complex128: the dtype table, promotion (NEP 50,
 * weak complex scalars), casts both ways against NumPy's values, creation,
 * views, joins, copies and indexing carrying both parts, .npy (both byte
 * orders) and DLPack, real/imag views, conj, angle, abs, and arithmetic
 * and comparisons against a double-precision reference - on the CPU and on
 * cuda:0 when there is one (the emulated GPU in `make emu-test`). Ops without
 * complex support (ordering, sort, scans, clip, ...) must refuse it with
 * ND_ERR_DTYPE. The native loops of every op: tests/test_complex_ew.c. */
#include <check.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "creation_util.h"
#include "ndgpu.h"
#include "test_util.h"

#include "complex_tables.h"
#include "complex_util.h"

/* x == y exactly, NaN == NaN, -0.0 != +0.0 */
static bool same(double x, double y) { return (isnan(x) && isnan(y)) || (x == y && signbit(x) == signbit(y)); }

static void expect_parts(const nd_array *a, int64_t n, const double *re, const double *im, const char *what)
{
    ck_assert_int_eq(nd_size(a), n);
    double *gr = malloc(((size_t)n + 1) * sizeof *gr), *gi = malloc(((size_t)n + 1) * sizeof *gi);
    cx_read(a, gr, gi);
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(same(gr[i], re[i]) && same(gi[i], im[i]), "%s: element %lld is (%.17g, %.17g), want (%.17g, %.17g)",
                      what, (long long)i, gr[i], gi[i], re[i], im[i]);
    free(gr);
    free(gi);
}

START_TEST(dtype_table_and_promotion)
{
    ck_assert_str_eq(nd_dtype_name(ND_COMPLEX64), "complex64");
    ck_assert_str_eq(nd_dtype_name(ND_COMPLEX128), "complex128");
    ck_assert_uint_eq(nd_dtype_size(ND_COMPLEX64), 8);
    ck_assert_uint_eq(nd_dtype_size(ND_COMPLEX128), 16);
    ck_assert_str_eq(nd_dtype_name(ND_NUM_DTYPES), "invalid");
    for (size_t i = 0; i < sizeof cx_promo / sizeof *cx_promo; i++) {
        nd_dtype r1, r2;
        ND_OK_OR_FAIL(nd_result_type(&r1, cx_promo[i].a, cx_promo[i].b));
        ND_OK_OR_FAIL(nd_result_type(&r2, cx_promo[i].b, cx_promo[i].a));
        ck_assert_msg(r1 == cx_promo[i].want && r2 == r1, "result_type(%s, %s) = %s / %s, want %s",
                      nd_dtype_name(cx_promo[i].a), nd_dtype_name(cx_promo[i].b), nd_dtype_name(r1), nd_dtype_name(r2),
                      nd_dtype_name(cx_promo[i].want));
    }
    for (size_t i = 0; i < sizeof cx_same_kind / sizeof *cx_same_kind; i++)
        ck_assert_msg(nd_can_cast_same_kind(cx_same_kind[i].from, cx_same_kind[i].to) == cx_same_kind[i].ok,
                      "can_cast(%s -> %s, same_kind) should be %d", nd_dtype_name(cx_same_kind[i].from),
                      nd_dtype_name(cx_same_kind[i].to), cx_same_kind[i].ok);
}
END_TEST

/* a weak complex scalar: the result dtype of a + 1j and its values */
START_TEST(weak_complex_scalars)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int di = 0; di < nd; di++)
        for (size_t i = 0; i < sizeof cx_weak / sizeof *cx_weak; i++) {
            nd_dtype t = cx_weak[i].a;
            nd_array *a = cv_iota(t, 1, (const int64_t[]){3}, devs[di]), *r = NULL;
            ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_ADD, a, nd_scalar_complex(0.5, -2.0)));
            ck_assert_msg(nd_dtype_of(r) == cx_weak[i].want, "%s + (0.5-2j) is %s, want %s", nd_dtype_name(t),
                          nd_dtype_name(nd_dtype_of(r)), nd_dtype_name(cx_weak[i].want));
            double re[3], im[3];
            for (int k = 0; k < 3; k++) re[k] = (t == ND_BOOL ? 1.0 : k + 1.0) + 0.5, im[k] = -2.0;
            expect_parts(r, 3, re, im, "a + (0.5-2j)");
            nd_release(r);
            r = NULL;
            /* scalar on the left, and multiply: (0.5-2j) * a */
            ND_OK_OR_FAIL(nd_scalar_binary(&r, ND_BINARY_MULTIPLY, nd_scalar_complex(0.5, -2.0), a));
            for (int k = 0; k < 3; k++) {
                double x = t == ND_BOOL ? 1.0 : k + 1.0;
                re[k] = 0.5 * x, im[k] = -2.0 * x;
            }
            expect_parts(r, 3, re, im, "(0.5-2j) * a");
            nd_release(r);
            nd_release(a);
        }
    /* a float scalar keeps complex64; a complex scalar never widens complex64 */
    nd_array *z = cx_make(ND_COMPLEX64, 1, (const int64_t[]){1}, (const double[]){1}, (const double[]){2}, nd_cpu()), *r = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_SUBTRACT, z, nd_scalar_float(1e300)));
    ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX64);
    nd_release(r);
    r = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_SUBTRACT, z, nd_scalar_complex(1, 1)));
    ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX64);
    expect_parts(r, 1, (const double[]){0}, (const double[]){1}, "(1+2j) - (1+1j)");
    nd_release(r);
    r = NULL;
    ND_EXPECT_ERR(nd_binary_scalar(&r, ND_BINARY_LDEXP, z, nd_scalar_complex(1, 1)), ND_ERR_DTYPE, "complex");
    ND_EXPECT_ERR(nd_clip_scalar(&r, z, nd_scalar_complex(0, 0), nd_scalar_none()), ND_ERR_DTYPE, "complex");
    nd_release(z);
}
END_TEST

START_TEST(casts_against_numpy)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    double re[CX_NVALS], im[CX_NVALS];
    for (int i = 0; i < CX_NVALS; i++) re[i] = cx_vals[i][0], im[i] = cx_vals[i][1];
    for (int di = 0; di < nd; di++) {
        nd_array *src = cx_make(ND_COMPLEX128, 1, (const int64_t[]){CX_NVALS}, re, im, devs[di]);
        for (int t = 0; t < ND_NUM_DTYPES; t++) {
            nd_array *r = NULL;
            ND_OK_OR_FAIL(nd_astype(&r, src, (nd_dtype)t));
            double gr[CX_NVALS], gi[CX_NVALS];
            cx_read(r, gr, gi);
            bool integer = t != ND_BOOL && t < ND_FLOAT16;
            for (int i = 0; i < CX_NVALS; i++) {
                /* NaN and inf into an integer: no value is right (NumPy's own
                 * answers differ between its loops); the library's rule is
                 * src/shared/convert.h's and tested there */
                if (integer && (i == 4 || i == 5)) continue;
                ck_assert_msg(same(gr[i], cx_cast[t][i]) && same(gi[i], cx_cast_im[t][i]),
                              "complex128 (%g, %g) -> %s on %s: (%.17g, %.17g), NumPy (%.17g, %.17g)", re[i], im[i],
                              nd_dtype_name((nd_dtype)t), devs[di].type == ND_DEVICE_CPU ? "cpu" : "cuda:0", gr[i], gi[i],
                              cx_cast[t][i], cx_cast_im[t][i]);
            }
            nd_release(r);
        }
        nd_release(src);
        /* every real dtype into complex64 / complex128 */
        for (int t = 0; t < NT_NREAL; t++) {
            nd_array *a = cv_make((nd_dtype)t, 1, (const int64_t[]){CX_NREAL_VALS}, cx_rvals, devs[di]);
            for (int k = 0; k < 2; k++) {
                nd_array *r = NULL;
                ND_OK_OR_FAIL(nd_astype(&r, a, k ? ND_COMPLEX128 : ND_COMPLEX64));
                double gr[CX_NREAL_VALS], gi[CX_NREAL_VALS];
                cx_read(r, gr, gi);
                for (int i = 0; i < CX_NREAL_VALS; i++)
                    ck_assert_msg(same(gr[i], cx_from[t][k][i]) && gi[i] == 0.0 && !signbit(gi[i]),
                                  "%s %.17g -> %s: (%.17g, %.17g), NumPy (%.17g, 0)", nd_dtype_name((nd_dtype)t), cx_rvals[i],
                                  k ? "complex128" : "complex64", gr[i], gi[i], cx_from[t][k][i]);
                nd_release(r);
            }
            nd_release(a);
        }
    }
}
END_TEST

START_TEST(creation)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int di = 0; di < nd; di++)
        for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++) {
            nd_device dev = devs[di];
            nd_array *a = NULL;
            double re[6], im[6];
            ND_OK_OR_FAIL(nd_zeros(&a, t, 2, (const int64_t[]){2, 3}, dev));
            for (int i = 0; i < 6; i++) re[i] = 0, im[i] = 0;
            expect_parts(a, 6, re, im, "zeros");
            nd_release(a), a = NULL;
            ND_OK_OR_FAIL(nd_ones(&a, t, 2, (const int64_t[]){2, 3}, dev));
            for (int i = 0; i < 6; i++) re[i] = 1;
            expect_parts(a, 6, re, im, "ones");
            nd_array *b = NULL;
            ND_OK_OR_FAIL(nd_zeros_like(&b, a));
            for (int i = 0; i < 6; i++) re[i] = 0;
            expect_parts(b, 6, re, im, "zeros_like");
            nd_release(b), b = NULL;
            ND_OK_OR_FAIL(nd_ones_like(&b, a));
            for (int i = 0; i < 6; i++) re[i] = 1;
            expect_parts(b, 6, re, im, "ones_like");
            nd_release(b), b = NULL;
            nd_release(a), a = NULL;
            ND_OK_OR_FAIL(nd_full(&a, t, 1, (const int64_t[]){5}, nd_scalar_complex(-1.25, 3.5), dev));
            for (int i = 0; i < 5; i++) re[i] = -1.25, im[i] = 3.5;
            expect_parts(a, 5, re, im, "full(-1.25+3.5j)");
            nd_release(a), a = NULL;
            /* a Python int goes through float64, as np.full does */
            ND_OK_OR_FAIL(nd_full(&a, t, 1, (const int64_t[]){1}, nd_scalar_int((INT64_C(1) << 62) + (INT64_C(1) << 38) + 1), dev));
            re[0] = t == ND_COMPLEX64 ? 0x1p62 : 0x1p62 + 0x1p38, im[0] = 0;
            expect_parts(a, 1, re, im, "full(2**62 + 2**38 + 1)");
            nd_release(a), a = NULL;
            ND_OK_OR_FAIL(nd_eye(&a, t, 2, 3, 1, dev));
            double er[6] = {0, 1, 0, 0, 0, 1}, ei[6] = {0};
            expect_parts(a, 6, er, ei, "eye(2, 3, k=1)");
            nd_release(a), a = NULL;
            ND_OK_OR_FAIL(nd_linspace(&a, t, 0.0, 1.0, 5, true, dev));
            double lr[5] = {0, 0.25, 0.5, 0.75, 1}, li[5] = {0};
            expect_parts(a, 5, lr, li, "linspace");
            nd_release(a), a = NULL;
            ND_EXPECT_ERR(nd_arange(&a, t, 0, 3, 1, dev), ND_ERR_DTYPE, "complex");
        }
    /* a complex scalar into a real dtype takes the real part (NumPy warns) */
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_full(&a, ND_FLOAT32, 1, (const int64_t[]){2}, nd_scalar_complex(2.5, 9), nd_cpu()));
    cv_expect_values(a, 2, (const double[]){2.5, 2.5});
    nd_release(a);
}
END_TEST

/* z[i] = (i + 1) + (-(i + 1) / 4) j: no two parts equal, never zero */
static nd_array *cx_iota(nd_dtype t, int ndim, const int64_t *shape, nd_device dev, double *re, double *im)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    for (int64_t i = 0; i < n; i++) re[i] = (double)(i + 1), im[i] = -(double)(i + 1) / 4;
    return cx_make(t, ndim, shape, re, im, dev);
}

START_TEST(views_joins_indexing)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int di = 0; di < nd; di++)
        for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++) {
            nd_device dev = devs[di];
            double re[12], im[12], wr[24], wi[24];
            nd_array *a = cx_iota(t, 2, (const int64_t[]){3, 4}, dev, re, im), *v = NULL, *c = NULL;
            /* transpose + contiguous copy */
            ND_OK_OR_FAIL(nd_transpose(&v, a, NULL));
            ND_OK_OR_FAIL(nd_contiguous(&c, v));
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 3; j++) wr[i * 3 + j] = re[j * 4 + i], wi[i * 3 + j] = im[j * 4 + i];
            expect_parts(c, 12, wr, wi, "contiguous(a.T)");
            nd_release(v), nd_release(c), v = c = NULL;
            /* a stepped slice, flipped */
            ND_OK_OR_FAIL(nd_slice(&v, a, 2, (const nd_range[]){{2, -4, -1}, {0, 4, 2}}));
            ND_OK_OR_FAIL(nd_copy(&c, v));
            int k = 0;
            for (int i = 2; i >= 0; i--)
                for (int j = 0; j < 4; j += 2) wr[k] = re[i * 4 + j], wi[k++] = im[i * 4 + j];
            expect_parts(c, 6, wr, wi, "a[::-1, ::2]");
            nd_release(v), nd_release(c), v = c = NULL;
            /* concatenate along axis 1 with itself, and stack */
            const nd_array *two[2] = {a, a};
            ND_OK_OR_FAIL(nd_concatenate(&c, 2, two, 1));
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 8; j++) wr[i * 8 + j] = re[i * 4 + j % 4], wi[i * 8 + j] = im[i * 4 + j % 4];
            expect_parts(c, 24, wr, wi, "concatenate axis 1");
            nd_release(c), c = NULL;
            ND_OK_OR_FAIL(nd_stack(&c, 2, two, 0));
            for (int i = 0; i < 24; i++) wr[i] = re[i % 12], wi[i] = im[i % 12];
            expect_parts(c, 24, wr, wi, "stack");
            nd_release(c), c = NULL;
            /* take with a negative index, where with a broadcast scalar-like y */
            nd_array *idx = NULL;
            ND_OK_OR_FAIL(nd_from_host(&idx, (const int64_t[]){-1, 0}, ND_INT64, 1, (const int64_t[]){2}, dev));
            ND_OK_OR_FAIL(nd_take(&c, a, idx, 1, ND_TAKE_RAISE));
            for (int i = 0; i < 3; i++)
                wr[i * 2] = re[i * 4 + 3], wi[i * 2] = im[i * 4 + 3], wr[i * 2 + 1] = re[i * 4], wi[i * 2 + 1] = im[i * 4];
            expect_parts(c, 6, wr, wi, "take(a, [-1, 0], axis=1)");
            nd_release(c), nd_release(idx), c = NULL;
            nd_array *cond = NULL, *y = cx_make(t, 1, (const int64_t[]){1}, (const double[]){-7}, (const double[]){0.5}, dev);
            uint8_t cb[12];
            for (int i = 0; i < 12; i++) cb[i] = (uint8_t)(i % 3 == 0);
            ND_OK_OR_FAIL(nd_from_host(&cond, cb, ND_BOOL, 2, (const int64_t[]){3, 4}, dev));
            ND_OK_OR_FAIL(nd_where(&c, cond, a, y));
            for (int i = 0; i < 12; i++) wr[i] = cb[i] ? re[i] : -7, wi[i] = cb[i] ? im[i] : 0.5;
            expect_parts(c, 12, wr, wi, "where");
            nd_release(c), nd_release(cond), nd_release(y), c = NULL;
            /* flip, roll, pad with a complex constant */
            ND_OK_OR_FAIL(nd_flip(&c, a, 1, (const int[]){1}));
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++) wr[i * 4 + j] = re[i * 4 + 3 - j], wi[i * 4 + j] = im[i * 4 + 3 - j];
            expect_parts(c, 12, wr, wi, "flip axis 1");
            nd_release(c), c = NULL;
            nd_array *row = cx_iota(t, 1, (const int64_t[]){3}, dev, wr, wi);
            ND_OK_OR_FAIL(nd_pad(&c, row, 1, (const int64_t[]){1, 2}, ND_PAD_CONSTANT, nd_scalar_complex(9, -9)));
            expect_parts(c, 6, (const double[]){9, 1, 2, 3, 9, 9}, (const double[]){-9, -0.25, -0.5, -0.75, -9, -9},
                         "pad constant 9-9j");
            nd_release(c), nd_release(row), c = NULL;
            nd_release(a);
        }
}
END_TEST

START_TEST(npy_and_dlpack)
{
    for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++) {
        double re[6], im[6];
        nd_array *a = cx_iota(t, 2, (const int64_t[]){2, 3}, nd_cpu(), re, im), *b = NULL;
        char path[64];
        snprintf(path, sizeof path, "/tmp/nd_test_complex_%d_%d.npy", (int)getpid(), (int)t);
        ND_OK_OR_FAIL(nd_save_npy(path, a));
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        char head[128] = {0};
        ck_assert(fread(head, 1, sizeof head - 1, f) > 0);
        fclose(f);
        ck_assert_msg(strstr(head + 10, t == ND_COMPLEX64 ? "'<c8'" : "'<c16'"), "header: %s", head + 10);
        ND_OK_OR_FAIL(nd_load_npy(&b, path, nd_cpu()));
        remove(path);
        ck_assert_int_eq(nd_dtype_of(b), t);
        expect_parts(b, 6, re, im, "npy round trip");
        nd_release(b), b = NULL;
        /* DLPack: kDLComplex with the element's bits, shared memory */
        DLManagedTensorVersioned *m = NULL;
        ND_OK_OR_FAIL(nd_to_dlpack(&m, a));
        ck_assert_uint_eq(m->dl_tensor.dtype.code, kDLComplex);
        ck_assert_uint_eq(m->dl_tensor.dtype.bits, t == ND_COMPLEX64 ? 64 : 128);
        ck_assert_uint_eq(m->dl_tensor.dtype.lanes, 1);
        ND_OK_OR_FAIL(nd_from_dlpack(&b, m));
        ck_assert_int_eq(nd_dtype_of(b), t);
        ck_assert_ptr_eq(nd_data(b), nd_data(a));
        expect_parts(b, 6, re, im, "DLPack round trip");
        nd_release(b);
        nd_release(a);
    }
    /* a big-endian complex128 file ('>c16', as np.save of a '>c16' array
     * writes): each part swapped on its own */
    static const char hdr[] = "{'descr': '>c16', 'fortran_order': False, 'shape': (2,), }";
    unsigned char buf[128 + 32];
    size_t hl = sizeof hdr - 1, total = 10 + hl + 1;
    size_t pad = (64 - total % 64) % 64;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)((hl + pad + 1) & 0xff), buf[9] = (unsigned char)((hl + pad + 1) >> 8);
    memcpy(buf + 10, hdr, hl);
    memset(buf + 10 + hl, ' ', pad);
    buf[10 + hl + pad] = '\n';
    size_t off = 10 + hl + pad + 1;
    const double parts[4] = {1.5, -2.0, 1e300, -0.0};
    for (int i = 0; i < 4; i++) {
        uint64_t u;
        memcpy(&u, &parts[i], 8);
        u = __builtin_bswap64(u);
        memcpy(buf + off + 8 * i, &u, 8);
    }
    nd_array *c = NULL;
    ND_OK_OR_FAIL(nd_load_npy_buffer(&c, buf, off + 32, nd_cpu()));
    expect_parts(c, 2, (const double[]){1.5, 1e300}, (const double[]){-2.0, -0.0}, "'>c16' file");
    nd_release(c);
}
END_TEST

START_TEST(real_imag_conj_angle_abs)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int di = 0; di < nd; di++)
        for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++) {
            nd_device dev = devs[di];
            const nd_dtype rt = t == ND_COMPLEX64 ? ND_FLOAT32 : ND_FLOAT64;
            double re[6] = {3, -4, 0, -0.0, 1e-30, INFINITY}, im[6] = {4, 3, -2, 0, -1e-30, NAN};
            nd_array *a = cx_make(t, 1, (const int64_t[]){6}, re, im, dev), *r = NULL;
            ND_OK_OR_FAIL(nd_real(&r, a));
            ck_assert_int_eq(nd_dtype_of(r), rt);
            double g[6], z[6] = {0};
            cx_read(r, g, NULL);
            for (int i = 0; i < 6; i++) ck_assert_msg(same(g[i], t == ND_COMPLEX64 ? (double)(float)re[i] : re[i]), "real %d", i);
            /* the real view writes through */
            ND_OK_OR_FAIL(nd_binary_scalar(&r, ND_BINARY_MULTIPLY, r, nd_scalar_float(2.0)));
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_imag(&r, a));
            ck_assert_int_eq(nd_dtype_of(r), rt);
            cx_read(r, g, NULL);
            for (int i = 0; i < 6; i++) ck_assert_msg(same(g[i], t == ND_COMPLEX64 ? (double)(float)im[i] : im[i]), "imag %d", i);
            nd_release(r), r = NULL;
            double re2[6], nim[6];
            for (int i = 0; i < 6; i++) {
                re2[i] = 2 * (t == ND_COMPLEX64 ? (double)(float)re[i] : re[i]);
                nim[i] = -(t == ND_COMPLEX64 ? (double)(float)im[i] : im[i]);
            }
            ND_OK_OR_FAIL(nd_conj(&r, a));
            ck_assert_int_eq(nd_dtype_of(r), t);
            expect_parts(r, 6, re2, nim, "conj after real *= 2");
            nd_release(r), r = NULL;
            /* abs: hypot of the parts, in the real dtype */
            ND_OK_OR_FAIL(nd_abs(&r, a));
            ck_assert_int_eq(nd_dtype_of(r), rt);
            cx_read(r, g, NULL);
            for (int i = 0; i < 6; i++) {
                double w = hypot(re2[i], -nim[i]); /* C99: hypot(inf, NaN) is inf, as NumPy's abs */
                double tol = (t == ND_COMPLEX64 ? 2e-7 : 4e-16) * w;
                ck_assert_msg(isinf(w) ? isinf(g[i]) : fabs(g[i] - w) <= tol, "abs %d: %.17g, want %.17g", i, g[i], w);
            }
            nd_release(r), r = NULL;
            /* angle in radians and degrees */
            ND_OK_OR_FAIL(nd_angle(&r, a, false));
            ck_assert_int_eq(nd_dtype_of(r), rt);
            cx_read(r, g, NULL);
            for (int i = 0; i < 4; i++) {
                double w = atan2(t == ND_COMPLEX64 ? (double)(float)im[i] : im[i], re2[i]);
                ck_assert_msg(fabs(g[i] - w) <= (t == ND_COMPLEX64 ? 3e-7 : 1e-15) * (fabs(w) + 1e-300), "angle %d", i);
            }
            ck_assert(isnan(g[5]));
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_angle(&r, a, true));
            cx_read(r, g, NULL);
            ck_assert_msg(fabs(g[2] + 90) < 1e-4, "angle(-2j, deg) = %g", g[2]);
            nd_release(r), r = NULL;
            (void)z;
            nd_release(a);
        }
    /* np.angle of a real array: 0 or pi, float64 for integers */
    nd_array *x = cv_make(ND_INT32, 1, (const int64_t[]){2}, (const double[]){-3, 5}, nd_cpu()), *r = NULL;
    ND_OK_OR_FAIL(nd_angle(&r, x, false));
    ck_assert_int_eq(nd_dtype_of(r), ND_FLOAT64);
    cv_expect_values(r, 2, (const double[]){M_PI, 0});
    nd_release(r), nd_release(x);
    /* the result dtype is arctan2's (NumPy 2.4: np.angle(np.array([-3, 5], t))):
     * int8/uint8 -> float16, int16/uint16 -> float32, wider -> float64; bool ->
     * float64 (np.angle's 0 makes it int64 first); floats keep theirs */
    static const struct {
        nd_dtype in, out;
        double rad0;
    } at[] = {
        {ND_BOOL, ND_FLOAT64, 0},          {ND_INT8, ND_FLOAT16, 3.140625},   {ND_UINT8, ND_FLOAT16, 0},
        {ND_INT16, ND_FLOAT32, (float)M_PI}, {ND_UINT16, ND_FLOAT32, 0},       {ND_INT32, ND_FLOAT64, M_PI},
        {ND_UINT32, ND_FLOAT64, 0},        {ND_INT64, ND_FLOAT64, M_PI},      {ND_UINT64, ND_FLOAT64, 0},
        {ND_FLOAT16, ND_FLOAT16, 3.140625}, {ND_BFLOAT16, ND_BFLOAT16, 3.140625}, {ND_FLOAT32, ND_FLOAT32, (float)M_PI},
    };
    nd_device adevs[2];
    int ndev = cv_devices(adevs);
    for (int d = 0; d < ndev; d++)
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
            x = cv_make(at[k].in, 1, (const int64_t[]){2}, (const double[]){at[k].in == ND_BOOL ? 1 : -3, 5}, adevs[d]);
            r = NULL;
            ND_OK_OR_FAIL(nd_angle(&r, x, false));
            ck_assert_msg(nd_dtype_of(r) == at[k].out, "angle(%s) is %s, want %s", nd_dtype_name(at[k].in),
                          nd_dtype_name(nd_dtype_of(r)), nd_dtype_name(at[k].out));
            cv_expect_values(r, 2, (const double[]){at[k].rad0, 0});
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_angle(&r, x, true));
            ck_assert_int_eq(nd_dtype_of(r), at[k].out);
            nd_release(r), nd_release(x);
        }
}
END_TEST

/* the composed ops against a double-precision reference, with broadcasting,
 * mixed dtypes (complex64 with float64 is complex128) and special values */
START_TEST(arithmetic_and_comparisons)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    const double ar[6] = {1.5, -2, 0, 1e30, NAN, INFINITY}, ai[6] = {-0.5, 3, -0.0, 1e-30, 1, 0};
    const double br[3] = {2, -0.25, 1.5}, bi[3] = {0.5, 4, -0.5};
    for (int di = 0; di < nd; di++)
        for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++) {
            nd_device dev = devs[di];
            const bool single = t == ND_COMPLEX64;
            nd_array *a = cx_make(t, 2, (const int64_t[]){2, 3}, ar, ai, dev); /* (2, 3) */
            nd_array *b = cx_make(t, 1, (const int64_t[]){3}, br, bi, dev);    /* broadcasts along rows */
            double xr[6], xi[6], yr[3], yi[3];
            cx_read(a, xr, xi);
            cx_read(b, yr, yi);
            for (int op = 0; op < 5; op++) {
                static const nd_binary_op ops[5] = {ND_BINARY_ADD, ND_BINARY_SUBTRACT, ND_BINARY_MULTIPLY, ND_BINARY_EQUAL,
                                                    ND_BINARY_NOT_EQUAL};
                nd_array *r = NULL;
                ND_OK_OR_FAIL(nd_binary(&r, ops[op], a, b));
                ck_assert_int_eq(nd_dtype_of(r), op >= 3 ? ND_BOOL : t);
                double gr[6], gi[6];
                cx_read(r, gr, gi);
                for (int i = 0; i < 6; i++) {
                    double complex x = CMPLX(xr[i], xi[i]), y = CMPLX(yr[i % 3], yi[i % 3]);
                    double wr, wi;
                    if (op == 0) wr = xr[i] + yr[i % 3], wi = xi[i] + yi[i % 3];
                    else if (op == 1) wr = xr[i] - yr[i % 3], wi = xi[i] - yi[i % 3];
                    else if (op == 2) wr = xr[i] * yr[i % 3] - xi[i] * yi[i % 3], wi = xr[i] * yi[i % 3] + xi[i] * yr[i % 3];
                    else {
                        bool eq = creal(x) == creal(y) && cimag(x) == cimag(y);
                        wr = op == 3 ? eq : !eq, wi = 0;
                    }
                    if (single && op < 3) wr = (double)(float)wr, wi = (double)(float)wi;
                    double tol = op == 2 ? (single ? 4e-7 : 8e-16) * (fabs(wr) + fabs(wi) + 1e-300) : 0;
                    bool ok = (isnan(wr) ? isnan(gr[i]) : fabs(gr[i] - wr) <= tol) &&
                              (isnan(wi) ? isnan(gi[i]) : fabs(gi[i] - wi) <= tol);
                    if (isinf(wr) || isinf(wi)) ok = same(gr[i], wr) && same(gi[i], wi);
                    ck_assert_msg(ok, "op %d %s element %d: (%.17g, %.17g), want (%.17g, %.17g)", op, nd_dtype_name(t), i,
                                  gr[i], gi[i], wr, wi);
                }
                nd_release(r);
            }
            /* unary: negative, positive, square, isnan / isinf / isfinite */
            nd_array *r = NULL;
            ND_OK_OR_FAIL(nd_negative(&r, a));
            double nr[6], ni[6];
            for (int i = 0; i < 6; i++) nr[i] = -xr[i], ni[i] = -xi[i];
            expect_parts(r, 6, nr, ni, "negative");
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_positive(&r, a));
            expect_parts(r, 6, xr, xi, "positive");
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_square(&r, b));
            double sr[3], si[3];
            cx_read(r, sr, si);
            for (int i = 0; i < 3; i++) {
                double wr = yr[i] * yr[i] - yi[i] * yi[i], wi = 2 * yr[i] * yi[i];
                ck_assert(fabs(sr[i] - wr) <= 1e-6 * (fabs(wr) + 1) && fabs(si[i] - wi) <= 1e-6 * (fabs(wi) + 1));
            }
            nd_release(r), r = NULL;
            const bool wnan[6] = {0, 0, 0, 0, 1, 0}, winf[6] = {0, 0, 0, single ? 0 : 0, 0, 1};
            ND_OK_OR_FAIL(nd_isnan(&r, a));
            double g[6];
            cx_read(r, g, NULL);
            for (int i = 0; i < 6; i++) ck_assert_msg(g[i] == wnan[i], "isnan %d", i);
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_isinf(&r, a));
            cx_read(r, g, NULL);
            for (int i = 0; i < 6; i++) ck_assert_msg(g[i] == winf[i], "isinf %d", i);
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_isfinite(&r, a));
            cx_read(r, g, NULL);
            for (int i = 0; i < 6; i++) ck_assert_msg(g[i] == (!wnan[i] && !winf[i]), "isfinite %d", i);
            nd_release(r), r = NULL;
            /* in place into a given out, and complex64 + float64 -> complex128 */
            nd_array *o = NULL;
            ND_OK_OR_FAIL(nd_copy(&o, a));
            ND_OK_OR_FAIL(nd_multiply(&o, o, o));
            nd_release(o), o = NULL;
            nd_array *f = cv_make(ND_FLOAT64, 1, (const int64_t[]){3}, (const double[]){0.1, 0.2, 0.3}, dev);
            ND_OK_OR_FAIL(nd_add(&r, b, f));
            ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX128);
            double fr[3], fi[3];
            cx_read(r, fr, fi);
            static const double fv[3] = {0.1, 0.2, 0.3};
            for (int i = 0; i < 3; i++) ck_assert(fr[i] == yr[i] + fv[i] && fi[i] == yi[i]);
            nd_release(r), r = NULL;
            /* a bool out cannot take a complex sum (same_kind) */
            nd_array *bo = NULL;
            ND_OK_OR_FAIL(nd_empty(&bo, ND_BOOL, 1, (const int64_t[]){3}, dev));
            ND_EXPECT_ERR(nd_add(&bo, b, b), ND_ERR_DTYPE, "same_kind");
            nd_release(bo), nd_release(f), nd_release(a), nd_release(b);
        }
}
END_TEST

/* einsum over complex operands (views, sums, products and matmul, all
 * complex-capable): traces, contractions, outer products, batched
 * products and mixed complex/real, against a long double reference */
START_TEST(einsum_complex)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int di = 0; di < nd; di++)
        for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++) {
            const double tol = t == ND_COMPLEX64 ? 2e-6 : 4e-15;
            double ar[12], ai[12], br[12], bi[12];
            for (int k = 0; k < 12; k++)
                ar[k] = 0.5 + k * 0.25, ai[k] = 1.0 - k * 0.125, br[k] = -1.0 + k * 0.5, bi[k] = 0.25 * (k % 5) - 0.5;
            nd_array *a = cx_make(t, 2, (const int64_t[]){3, 4}, ar, ai, devs[di]); /* (3, 4) */
            nd_array *b = cx_make(t, 2, (const int64_t[]){4, 3}, br, bi, devs[di]); /* (4, 3) */
            nd_array *r = NULL;
            /* ij,jk->ik */
            ND_OK_OR_FAIL(nd_einsum(&r, "ij,jk->ik", 2, (const nd_array *const[]){a, b}));
            ck_assert_int_eq(nd_dtype_of(r), t);
            double gr[16], gi[16];
            cx_read(r, gr, gi);
            for (int i = 0; i < 3; i++)
                for (int k = 0; k < 3; k++) {
                    long double wr = 0, wi = 0;
                    for (int j = 0; j < 4; j++) {
                        long double xr = ar[i * 4 + j], xi = ai[i * 4 + j], yr = br[j * 3 + k], yi = bi[j * 3 + k];
                        wr += xr * yr - xi * yi, wi += xr * yi + xi * yr;
                    }
                    ck_assert_msg(fabsl(gr[i * 3 + k] - wr) <= tol * 16 && fabsl(gi[i * 3 + k] - wi) <= tol * 16,
                                  "ij,jk->ik [%d,%d]", i, k);
                }
            nd_release(r), r = NULL;
            /* ij,ji-> (the trace of a @ b: a full contraction to 0-d) */
            ND_OK_OR_FAIL(nd_einsum(&r, "ij,ji->", 2, (const nd_array *const[]){a, b}));
            ck_assert_int_eq(nd_ndim(r), 0);
            cx_read(r, gr, gi);
            long double tr = 0, ti = 0;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++) {
                    long double xr = ar[i * 4 + j], xi = ai[i * 4 + j], yr = br[j * 3 + i], yi = bi[j * 3 + i];
                    tr += xr * yr - xi * yi, ti += xr * yi + xi * yr;
                }
            ck_assert(fabsl(gr[0] - tr) <= tol * 32 && fabsl(gi[0] - ti) <= tol * 32);
            nd_release(r), r = NULL;
            /* i,j->ij (outer) with a real float64 vector: complex128 */
            nd_array *f = cv_make(ND_FLOAT64, 1, (const int64_t[]){3}, (const double[]){2, -1, 0.5}, devs[di]);
            nd_array *row = NULL;
            ND_OK_OR_FAIL(nd_reshape(&row, a, 1, (const int64_t[]){12}));
            ND_OK_OR_FAIL(nd_einsum(&r, "i,j->ij", 2, (const nd_array *const[]){row, f}));
            ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX128);
            double orr[36], oi[36];
            cx_read(r, orr, oi);
            static const double fv[3] = {2, -1, 0.5};
            for (int i = 0; i < 12; i++)
                for (int j = 0; j < 3; j++) {
                    const double xr = t == ND_COMPLEX64 ? (double)(float)ar[i] : ar[i];
                    const double xi = t == ND_COMPLEX64 ? (double)(float)ai[i] : ai[i];
                    ck_assert(orr[i * 3 + j] == xr * fv[j] && oi[i * 3 + j] == xi * fv[j]);
                }
            nd_release(r), r = NULL;
            nd_release(row), nd_release(f), nd_release(a), nd_release(b);
        }
}
END_TEST

/* cumsum / cumprod of complex along each axis and flattened, a 0-d input,
 * the dtype= forms (complex128 accumulation; a real dtype takes the real
 * parts), and diff (subtract), against a long double reference */
START_TEST(scans_complex)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int di = 0; di < nd; di++)
        for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++) {
            const double tol = t == ND_COMPLEX64 ? 1e-5 : 1e-13;
            enum { R = 5, C = 7 };
            double xr[R * C], xi[R * C];
            for (int k = 0; k < R * C; k++) xr[k] = 0.9 + 0.01 * k, xi[k] = 0.3 - 0.02 * (k % 9);
            nd_array *a = cx_make(t, 2, (const int64_t[]){R, C}, xr, xi, devs[di]);
            double ar[R * C], ai[R * C]; /* the stored values */
            cx_read(a, ar, ai);
            for (int op = 0; op < 2; op++)
                for (int axis = -1; axis <= 2; axis++) { /* -1: flattened (ND_AXIS_NONE), 2: axis -1 */
                    nd_array *r = NULL;
                    const int ax = axis == -1 ? ND_AXIS_NONE : axis == 2 ? -1 : axis;
                    ND_OK_OR_FAIL(op ? nd_cumprod(&r, a, ax) : nd_cumsum(&r, a, ax));
                    ck_assert_int_eq(nd_dtype_of(r), t);
                    ck_assert_int_eq(nd_size(r), R * C);
                    double gr[R * C], gi[R * C];
                    cx_read(r, gr, gi);
                    for (int i = 0; i < R * C; i++) {
                        /* the scan's run: elements before i along the axis (C order) */
                        const int row = i / C, col = i % C;
                        long double wr = op ? 1 : 0, wi = 0;
                        const int n = axis == -1 ? i + 1 : (axis == 0 ? row + 1 : col + 1);
                        for (int k = 0; k < n; k++) {
                            const int j = axis == -1 ? k : axis == 0 ? k * C + col : row * C + k;
                            if (op) {
                                long double nr = wr * ar[j] - wi * ai[j], ni = wr * ai[j] + wi * ar[j];
                                wr = nr, wi = ni;
                            } else {
                                wr += ar[j], wi += ai[j];
                            }
                        }
                        const long double mag = fabsl(wr) + fabsl(wi) + 1;
                        ck_assert_msg(fabsl(gr[i] - wr) <= tol * mag * n && fabsl(gi[i] - wi) <= tol * mag * n,
                                      "%s(%s, axis %d) element %d: (%.9g, %.9g), want (%.9Lg, %.9Lg)",
                                      op ? "cumprod" : "cumsum", nd_dtype_name(t), axis, i, gr[i], gi[i], wr, wi);
                    }
                    nd_release(r);
                }
            /* dtype=complex128 accumulation; dtype=float64 takes the real parts */
            nd_array *r = NULL;
            ND_OK_OR_FAIL(nd_cumsum_dtype(&r, a, 1, ND_COMPLEX128));
            ck_assert_int_eq(nd_dtype_of(r), ND_COMPLEX128);
            nd_release(r), r = NULL;
            ND_OK_OR_FAIL(nd_cumsum_dtype(&r, a, 0, ND_FLOAT64));
            ck_assert_int_eq(nd_dtype_of(r), ND_FLOAT64);
            double g[R * C];
            cx_read(r, g, NULL);
            ck_assert(fabs(g[C] - (ar[0] + ar[C])) <= 1e-12);
            nd_release(r), r = NULL;
            /* a real input with a complex dtype */
            nd_array *f = cv_make(ND_FLOAT32, 1, (const int64_t[]){3}, (const double[]){1, 2, 3}, devs[di]);
            ND_OK_OR_FAIL(nd_cumprod_dtype(&r, f, 0, t));
            double pr[3], pi[3];
            cx_read(r, pr, pi);
            ck_assert(pr[0] == 1 && pr[1] == 2 && pr[2] == 6 && pi[0] == 0 && pi[2] == 0);
            nd_release(r), r = NULL;
            /* 0-d: seen as 1-d */
            nd_array *z0 = cx_make(t, 0, NULL, (const double[]){2}, (const double[]){-1}, devs[di]);
            ND_OK_OR_FAIL(nd_cumsum(&r, z0, 0));
            ck_assert_int_eq(nd_ndim(r), 1);
            nd_release(r), r = NULL;
            ND_EXPECT_ERR(nd_cumsum(&r, a, 2), ND_ERR_SHAPE, "out of bounds");
            /* diff of complex: subtract */
            ND_OK_OR_FAIL(nd_diff(&r, a, 1, 1, NULL, NULL));
            double dr[R * (C - 1)], dd[R * (C - 1)];
            cx_read(r, dr, dd);
            ck_assert(dr[0] == ar[1] - ar[0] && dd[0] == ai[1] - ai[0]);
            nd_release(r);
            nd_release(z0), nd_release(f), nd_release(a);
        }
}
END_TEST

/* what has no complex implementation yet says so, on every device */
START_TEST(unsupported_ops_refuse)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int di = 0; di < nd; di++) {
        double re[4], im[4];
        nd_array *a = cx_iota(ND_COMPLEX64, 2, (const int64_t[]){2, 2}, devs[di], re, im), *r = NULL, *r2 = NULL;
        ND_EXPECT_ERR(nd_reduce(&r, ND_REDUCE_MAX, a, 0, NULL, false), ND_ERR_DTYPE, "complex64"); /* sum: suite reduce_cpx */
        ND_EXPECT_ERR(nd_sort(&r, a, -1, 0), ND_ERR_DTYPE, "complex64");
        ND_EXPECT_ERR(nd_cummax(&r, a, 0), ND_ERR_DTYPE, "complex64");
        ND_EXPECT_ERR(nd_floor(&r, a), ND_ERR_DTYPE, "complex64");
        ND_EXPECT_ERR(nd_less(&r, a, a), ND_ERR_DTYPE, "complex64");
        ND_EXPECT_ERR(nd_maximum_at(a, a, a), ND_ERR_DTYPE, "complex");
        ND_EXPECT_ERR(nd_clip_scalar(&r, a, nd_scalar_float(0), nd_scalar_float(1)), ND_ERR_DTYPE, "complex64");
        ND_EXPECT_ERR(nd_unique(&r, NULL, NULL, NULL, a), ND_ERR_DTYPE, "complex64");
        ND_EXPECT_ERR(nd_softmax(&r, a, -1), ND_ERR_DTYPE, "complex64");
        ck_assert_ptr_null(r);
        (void)r2;
        nd_release(a);
    }
}
END_TEST

Suite *suite_complex(void)
{
    Suite *s = suite_create("complex");
    TCase *tc = tcase_create("complex");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, dtype_table_and_promotion);
    tcase_add_test(tc, weak_complex_scalars);
    tcase_add_test(tc, casts_against_numpy);
    tcase_add_test(tc, creation);
    tcase_add_test(tc, views_joins_indexing);
    tcase_add_test(tc, npy_and_dlpack);
    tcase_add_test(tc, real_imag_conj_angle_abs);
    tcase_add_test(tc, arithmetic_and_comparisons);
    tcase_add_test(tc, unsupported_ops_refuse);
    tcase_add_test(tc, einsum_complex);
    tcase_add_test(tc, scans_complex);
    suite_add_tcase(s, tc);
    return s;
}
