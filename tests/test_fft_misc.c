/* The FFT suite, part 2 (part 1 and the conventions: tests/test_fft.c):
 * round trips (ifft(fft(x)), irfft(rfft(x), n) for odd and even n,
 * hfft(ihfft(x), n), irfftn(rfftn(x), s), ifft2(fft2(x))), Parseval,
 * hfft/ihfft against NumPy's definitions and known values, fftfreq and
 * rfftfreq exact values, fftshift/ifftshift, zero-size batches, out
 * exactly the input, errors (exact status codes and messages), and every
 * function with the N-th allocation failing (CPU). */
#include "core/alloc.h"
#include "core/internal.h"
#include "fft_util.h"
#include "cpu/fft_core.h"

/* ------------------------------------------------------------------ */
/* Round trips, Parseval, hfft/ihfft definitions                       */
/* ------------------------------------------------------------------ */

static void run_roundtrip(nd_device dev)
{
    static const int64_t ns[7] = {1, 2, 7, 16, 101, 360, 1009};
    for (int i = 0; i < 7; i++) {
        const int64_t n = ns[i];
        char what[96];
        for (int dbl = 0; dbl < 2; dbl++) {
            const long double tol = (dbl ? 0x1p-53L : 0x1p-24L) * 64 * log2l(2.0L * n);
            nd_array *x = make(dev, dbl ? ND_COMPLEX128 : ND_COMPLEX64, 1, &n, L_CONTIG), *f = NULL, *b = NULL;
            ND_OK_OR_FAIL(nd_fft(&f, x, -1, 0, ND_FFT_BACKWARD));
            ND_OK_OR_FAIL(nd_ifft(&b, f, -1, 0, ND_FFT_BACKWARD));
            snprintf(what, sizeof what, "ifft(fft(x)) n %lld %s on %s", (long long)n, dbl ? "c128" : "c64", dname(dev));
            expect_same(what, b, x, tol);
            /* Parseval: sum |x|^2 = sum |X|^2 / n; with ortho sum |x|^2 = sum |X|^2 */
            lbuf xv = vals(x), fv = vals(f);
            long double sx = 0, sf = 0;
            for (int64_t k = 0; k < n; k++) sx += xv.v[k].re * xv.v[k].re + xv.v[k].im * xv.v[k].im;
            for (int64_t k = 0; k < n; k++) sf += fv.v[k].re * fv.v[k].re + fv.v[k].im * fv.v[k].im;
            ck_assert_msg(fabsl(sx - sf / n) <= 16 * tol * sx, "Parseval n %lld on %s: %Lg vs %Lg", (long long)n, dname(dev), sx, sf / n);
            free(xv.v), free(fv.v);
            nd_release(f), nd_release(b), f = b = NULL;
            ND_OK_OR_FAIL(nd_fft(&f, x, -1, 0, ND_FFT_ORTHO));
            ND_OK_OR_FAIL(nd_ifft(&b, f, -1, 0, ND_FFT_ORTHO));
            snprintf(what, sizeof what, "ortho round trip n %lld on %s", (long long)n, dname(dev));
            expect_same(what, b, x, tol);
            nd_release(f), nd_release(b), nd_release(x), f = b = NULL;
            /* irfft(rfft(x), n) = x, odd and even n; hfft(ihfft(x), n) = x */
            x = make(dev, dbl ? ND_FLOAT64 : ND_FLOAT32, 1, &n, L_CONTIG);
            ND_OK_OR_FAIL(nd_rfft(&f, x, -1, 0, ND_FFT_BACKWARD));
            ND_OK_OR_FAIL(nd_irfft(&b, f, n, 0, ND_FFT_BACKWARD));
            snprintf(what, sizeof what, "irfft(rfft(x), n) n %lld on %s", (long long)n, dname(dev));
            expect_same(what, b, x, tol);
            ck_assert_int_eq(nd_dtype_of(b), dbl ? ND_FLOAT64 : ND_FLOAT32);
            nd_release(f), nd_release(b), f = b = NULL;
            ND_OK_OR_FAIL(nd_ihfft(&f, x, -1, 0, ND_FFT_FORWARD));
            ND_OK_OR_FAIL(nd_hfft(&b, f, n, 0, ND_FFT_FORWARD));
            snprintf(what, sizeof what, "hfft(ihfft(x), n) n %lld on %s", (long long)n, dname(dev));
            expect_same(what, b, x, tol);
            nd_release(f), nd_release(b), nd_release(x);
        }
    }
    /* irfftn(rfftn(x), s) = x for odd and even last extents */
    for (int odd = 0; odd < 2; odd++) {
        const int64_t sh[3] = {3, 4, odd ? 7 : 8};
        nd_array *x = make(dev, ND_FLOAT64, 3, sh, L_TRANS), *f = NULL, *b = NULL;
        ND_OK_OR_FAIL(nd_rfftn(&f, x, -1, NULL, NULL, ND_FFT_BACKWARD));
        ck_assert_int_eq(nd_shape(f)[2], sh[2] / 2 + 1);
        ND_OK_OR_FAIL(nd_irfftn(&b, f, 3, sh, NULL, ND_FFT_BACKWARD));
        expect_same("irfftn(rfftn(x), s)", b, x, 0x1p-53L * 256);
        nd_release(f), nd_release(b), f = b = NULL;
        ND_OK_OR_FAIL(nd_fft2(&f, x, NULL, (const int[]){0, 2}, ND_FFT_ORTHO));
        ND_OK_OR_FAIL(nd_ifft2(&b, f, NULL, (const int[]){0, 2}, ND_FFT_ORTHO));
        expect_same("ifft2(fft2(x))", b, x, 0x1p-53L * 256);
        nd_release(f), nd_release(b), nd_release(x);
    }
}

/* hfft and ihfft against NumPy's definitions (computed with the library's
 * irfft/rfft and a conjugate made on the host) and known values. */
static void run_hermitian(nd_device dev)
{
    /* np.fft.hfft([1, 2+1j, 3j], 4) = [5, 3, -3, -1] */
    const double a3[6] = {1, 0, 2, 1, 0, 3};
    const int64_t m = 3;
    nd_array *a = NULL, *h = NULL, *ih = NULL, *x = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, a3, ND_COMPLEX128, 1, &m, dev));
    ND_OK_OR_FAIL(nd_hfft(&h, a, 4, 0, ND_FFT_BACKWARD));
    double y[6];
    ND_OK_OR_FAIL(nd_copy_to_host(y, h, 4 * sizeof(double)));
    const double want[4] = {5, 3, -3, -1};
    for (int i = 0; i < 4; i++) ck_assert_msg(fabs(y[i] - want[i]) < 1e-12, "hfft known value %d: %g", i, y[i]);
    /* np.fft.ihfft([1, 2, 3, 4, 5, 7]) */
    const double xs[6] = {1, 2, 3, 4, 5, 7};
    const int64_t n6 = 6;
    ND_OK_OR_FAIL(nd_from_host(&x, xs, ND_FLOAT64, 1, &n6, dev));
    ND_OK_OR_FAIL(nd_ihfft(&ih, x, -1, 0, ND_FFT_BACKWARD));
    double z[8];
    ND_OK_OR_FAIL(nd_copy_to_host(z, ih, sizeof z));
    const double wz[8] = {3.6666666666666667, 0, -0.41666666666666667, -1.0103629710818451, -0.58333333333333333,
                          -0.43301270189221932, -0.66666666666666667, 0};
    for (int i = 0; i < 8; i++) ck_assert_msg(fabs(z[i] - wz[i]) < 1e-12, "ihfft known value %d: %.17g", i, z[i]);
    nd_release(a), nd_release(h), nd_release(ih), nd_release(x);
    /* hfft(a, n) = irfft(conj(a), n) * n; ihfft(x) = conj(rfft(x)) / n */
    for (int64_t n = 1; n <= 9; n++) {
        const int64_t mm = n / 2 + 1;
        nd_array *c = make(dev, ND_COMPLEX128, 2, (const int64_t[]){2, mm}, L_CONTIG), *cc = NULL, *r = NULL, *hh = NULL;
        lbuf v = vals(c);
        double *hbuf = malloc(sizeof(double) * 2 * (size_t)v.size);
        for (int64_t i = 0; i < v.size; i++) hbuf[2 * i] = (double)v.v[i].re, hbuf[2 * i + 1] = -(double)v.v[i].im;
        ND_OK_OR_FAIL(nd_from_host(&cc, hbuf, ND_COMPLEX128, 2, (const int64_t[]){2, mm}, dev));
        ND_OK_OR_FAIL(nd_irfft(&r, cc, n, 1, ND_FFT_FORWARD)); /* forward norm: irfft unscaled = irfft * n */
        ND_OK_OR_FAIL(nd_hfft(&hh, c, n, 1, ND_FFT_BACKWARD));
        expect_same("hfft = irfft(conj(a)) * n", hh, r, 1e-13L);
        nd_release(r), nd_release(hh), r = hh = NULL;
        nd_array *xr = make(dev, ND_FLOAT64, 2, (const int64_t[]){2, n}, L_CONTIG), *rf = NULL;
        ND_OK_OR_FAIL(nd_rfft(&rf, xr, -1, 1, ND_FFT_FORWARD)); /* rfft / n */
        ND_OK_OR_FAIL(nd_ihfft(&hh, xr, -1, 1, ND_FFT_BACKWARD));
        lbuf p = vals(rf), q = vals(hh);
        for (int64_t i = 0; i < p.size; i++)
            ck_assert_msg(fabsl(p.v[i].re - q.v[i].re) + fabsl(p.v[i].im + q.v[i].im) < 1e-13L,
                          "ihfft = conj(rfft(x)) / n, n %lld element %lld", (long long)n, (long long)i);
        free(p.v), free(q.v), free(v.v), free(hbuf);
        nd_release(c), nd_release(cc), nd_release(hh), nd_release(xr), nd_release(rf);
    }
}

/* ------------------------------------------------------------------ */
/* fftfreq, rfftfreq, fftshift, ifftshift                              */
/* ------------------------------------------------------------------ */
static void run_freq(nd_device dev)
{
    static const int64_t ns[6] = {1, 2, 4, 5, 8, 9};
    static const double ds[3] = {1.0, 0.1, -2.5};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 3; j++)
            for (int real = 0; real < 2; real++)
                for (int f32 = 0; f32 < 2; f32++) {
                    const int64_t n = ns[i], len = real ? n / 2 + 1 : n;
                    const double d = ds[j], val = 1.0 / ((double)n * d);
                    nd_array *o = NULL;
                    const nd_dtype t = f32 ? ND_FLOAT32 : ND_FLOAT64;
                    ND_OK_OR_FAIL(real ? nd_rfftfreq(&o, n, d, t, dev) : nd_fftfreq(&o, n, d, t, dev));
                    ck_assert_int_eq(nd_ndim(o), 1);
                    ck_assert_int_eq(nd_shape(o)[0], len);
                    ck_assert_int_eq(nd_dtype_of(o), t);
                    ck_assert_int_eq(nd_device_of(o).type, dev.type);
                    double h[16];
                    float hf[16];
                    if (f32) ND_OK_OR_FAIL(nd_copy_to_host(hf, o, sizeof(float) * (size_t)len));
                    else ND_OK_OR_FAIL(nd_copy_to_host(h, o, sizeof(double) * (size_t)len));
                    for (int64_t k = 0; k < len; k++) {
                        /* NumPy: [0, 1, ..., (n-1)//2, -(n//2), ..., -1] * val, exactly */
                        const int64_t q = real || k < (n - 1) / 2 + 1 ? k : k - n;
                        const double want = (double)q * val;
                        if (f32) ck_assert_msg(hf[k] == (float)want, "%s(%lld, %g) float32 [%lld] = %.9g, want %.9g",
                                               real ? "rfftfreq" : "fftfreq", (long long)n, d, (long long)k, hf[k], want);
                        else ck_assert_msg(h[k] == want, "%s(%lld, %g)[%lld] = %.17g, want %.17g",
                                           real ? "rfftfreq" : "fftfreq", (long long)n, d, (long long)k, h[k], want);
                    }
                    nd_release(o);
                }
    /* known values: np.fft.fftfreq(5, 0.1), np.fft.fftfreq(4), np.fft.rfftfreq(5) */
    nd_array *o = NULL;
    double h[5];
    ND_OK_OR_FAIL(nd_fftfreq(&o, 5, 0.1, ND_FLOAT64, dev));
    ND_OK_OR_FAIL(nd_copy_to_host(h, o, sizeof h));
    ck_assert(h[0] == 0 && h[1] == 2 && h[2] == 4 && h[3] == -4 && h[4] == -2);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_fftfreq(&o, 4, 1.0, ND_FLOAT64, dev));
    ND_OK_OR_FAIL(nd_copy_to_host(h, o, 4 * sizeof(double)));
    ck_assert(h[0] == 0 && h[1] == 0.25 && h[2] == -0.5 && h[3] == -0.25);
    nd_release(o), o = NULL;
    /* into a given out (poisoned) */
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT32, 1, (const int64_t[]){3}, nd_scalar_float(NAN), dev));
    nd_array *g = o;
    ND_OK_OR_FAIL(nd_rfftfreq(&o, 5, 1.0, ND_FLOAT64, dev));
    ck_assert_ptr_eq(o, g);
    float hf[3];
    ND_OK_OR_FAIL(nd_copy_to_host(hf, o, sizeof hf));
    ck_assert(hf[0] == 0.0f && hf[1] == 0.2f && hf[2] == 0.4f);
    /* errors */
    nd_array *e = NULL;
    ND_EXPECT_ERR(nd_fftfreq(&e, 0, 1.0, ND_FLOAT64, dev), ND_ERR_INVALID, "nd_fftfreq: n = 0 must be at least 1");
    ND_EXPECT_ERR(nd_rfftfreq(&e, 4, 0.0, ND_FLOAT64, dev), ND_ERR_INVALID, "nd_rfftfreq: the sample spacing d = 0");
    ND_EXPECT_ERR(nd_fftfreq(&e, 4, 1.0, ND_INT32, dev), ND_ERR_DTYPE, "dtype must be a float dtype (got int32)");
    ND_EXPECT_ERR(nd_fftfreq(&o, 4, 1.0, ND_FLOAT64, dev), ND_ERR_SHAPE, "nd_fftfreq: 'out' has shape (3,)");
    ND_EXPECT_ERR(nd_fftfreq(NULL, 4, 1.0, ND_FLOAT64, dev), ND_ERR_INVALID, "argument 'out' is NULL");
    ck_assert_ptr_null(e);
    nd_release(o);
}

/* NumPy's roll: y[i] = x[(i - s) mod n] along each axis. */
static void run_shift(nd_device dev)
{
    for (int64_t n = 1; n <= 6; n++) {
        double xs[6], y[6];
        for (int i = 0; i < n; i++) xs[i] = i;
        nd_array *x = NULL, *f = NULL, *b = NULL;
        ND_OK_OR_FAIL(nd_from_host(&x, xs, ND_FLOAT64, 1, &n, dev));
        ND_OK_OR_FAIL(nd_fftshift(&f, x, -1, NULL));
        ND_OK_OR_FAIL(nd_copy_to_host(y, f, sizeof(double) * (size_t)n));
        for (int64_t i = 0; i < n; i++) ck_assert_msg(y[i] == (double)(((i - n / 2) % n + n) % n), "fftshift n %lld", (long long)n);
        ND_OK_OR_FAIL(nd_ifftshift(&b, f, 1, (const int[]){0}));
        ND_OK_OR_FAIL(nd_copy_to_host(y, b, sizeof(double) * (size_t)n));
        for (int64_t i = 0; i < n; i++) ck_assert_msg(y[i] == (double)i, "ifftshift(fftshift(x)) n %lld", (long long)n);
        nd_release(x), nd_release(f), nd_release(b);
    }
    /* np.fft.fftshift(np.arange(5)) = [3 4 0 1 2]; ifftshift = [2 3 4 0 1] */
    nd_array *x = NULL, *f = NULL;
    ND_OK_OR_FAIL(nd_arange(&x, ND_INT64, 0, 5, 1, dev));
    ND_OK_OR_FAIL(nd_fftshift(&f, x, -1, NULL));
    int64_t v[5];
    ND_OK_OR_FAIL(nd_copy_to_host(v, f, sizeof v));
    ck_assert(v[0] == 3 && v[1] == 4 && v[2] == 0 && v[3] == 1 && v[4] == 2);
    nd_release(f), f = NULL;
    ND_OK_OR_FAIL(nd_ifftshift(&f, x, -1, NULL));
    ND_OK_OR_FAIL(nd_copy_to_host(v, f, sizeof v));
    ck_assert(v[0] == 2 && v[1] == 3 && v[2] == 4 && v[3] == 0 && v[4] == 1);
    nd_release(f), nd_release(x), f = x = NULL;
    /* 2-D: every axis, one axis (negative), a transposed complex input into a poisoned out */
    const int64_t sh[2] = {3, 4};
    nd_array *a = make(dev, ND_COMPLEX64, 2, sh, L_TRANS);
    lbuf av = vals(a);
    for (int mode = 0; mode < 3; mode++) {
        nd_array *o = NULL;
        if (mode == 2) o = poisoned(dev, ND_COMPLEX64, 2, sh, true);
        if (mode == 0) ND_OK_OR_FAIL(nd_fftshift(&o, a, -1, NULL));
        else if (mode == 1) ND_OK_OR_FAIL(nd_fftshift(&o, a, 1, (const int[]){-1}));
        else ND_OK_OR_FAIL(nd_ifftshift(&o, a, 2, (const int[]){1, 0}));
        lbuf ov = vals(o);
        for (int64_t i = 0; i < 3; i++)
            for (int64_t j = 0; j < 4; j++) {
                int64_t si = mode == 1 ? i : mode == 0 ? (i - 1 + 3) % 3 : (i + 1) % 3;
                int64_t sj = mode == 2 ? (j + 2) % 4 : (j - 2 + 4) % 4;
                ck_assert_msg(ov.v[i * 4 + j].re == av.v[si * 4 + sj].re && ov.v[i * 4 + j].im == av.v[si * 4 + sj].im,
                              "shift mode %d (%lld, %lld) on %s", mode, (long long)i, (long long)j, dname(dev));
            }
        free(ov.v);
        nd_release(o);
    }
    free(av.v);
    /* 0-d: a copy; errors */
    nd_array *z = NULL, *zo = NULL;
    ND_OK_OR_FAIL(nd_full(&z, ND_INT32, 0, NULL, nd_scalar_int(7), dev));
    ND_OK_OR_FAIL(nd_fftshift(&zo, z, -1, NULL));
    int32_t zv = 0;
    ND_OK_OR_FAIL(nd_copy_to_host(&zv, zo, 4));
    ck_assert_int_eq(zv, 7);
    nd_array *e = NULL;
    ND_EXPECT_ERR(nd_fftshift(&e, a, 1, (const int[]){2}), ND_ERR_SHAPE,
                  "nd_fftshift: axis 2 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_ifftshift(&e, a, 1, NULL), ND_ERR_INVALID, "nd_ifftshift: argument 'axes' is NULL with naxes = 1");
    ND_EXPECT_ERR(nd_ifftshift(&e, a, -1, (const int[]){0}), ND_ERR_INVALID, "naxes = -1 (every axis) takes axes = NULL");
    ND_EXPECT_ERR(nd_fftshift(&z, a, -1, NULL), ND_ERR_SHAPE, "nd_fftshift: 'out' has shape ()");
    ND_EXPECT_ERR(nd_fftshift(&e, NULL, -1, NULL), ND_ERR_INVALID, "nd_fftshift: argument 'a' is NULL");
    ck_assert_ptr_null(e);
    nd_release(z), nd_release(zo), nd_release(a);
}

/* ------------------------------------------------------------------ */
/* Edges and errors                                                    */
/* ------------------------------------------------------------------ */
static void run_edges(nd_device dev)
{
    /* a zero-size batch */
    nd_array *a = NULL, *o = NULL;
    ND_OK_OR_FAIL(nd_zeros(&a, ND_FLOAT32, 2, (const int64_t[]){0, 5}, dev));
    ND_OK_OR_FAIL(nd_rfft(&o, a, -1, 1, ND_FFT_BACKWARD));
    ck_assert_int_eq(nd_shape(o)[0], 0);
    ck_assert_int_eq(nd_shape(o)[1], 3);
    ck_assert_int_eq(nd_dtype_of(o), ND_COMPLEX64);
    nd_release(o), o = NULL;
    /* an empty axis padded by n: zeros (np.fft.fft(np.ones((0, 3)), n=4, axis=0)) */
    ND_OK_OR_FAIL(nd_fft(&o, a, 4, 0, ND_FFT_BACKWARD));
    ck_assert_int_eq(nd_shape(o)[0], 4);
    lbuf v = vals(o);
    for (int64_t i = 0; i < v.size; i++) ck_assert(v.v[i].re == 0 && v.v[i].im == 0);
    free(v.v);
    nd_release(o), o = NULL;
    ND_OK_OR_FAIL(nd_fftn(&o, a, 2, (const int64_t[]){2, 5}, NULL, ND_FFT_BACKWARD));
    ck_assert_int_eq(nd_size(o), 10);
    nd_release(o), o = NULL;
    nd_release(a), a = NULL;
    /* fftn over no axis: a complex copy */
    a = make(dev, ND_FLOAT32, 2, (const int64_t[]){2, 3}, L_CONTIG);
    ND_OK_OR_FAIL(nd_fftn(&o, a, 0, NULL, NULL, ND_FFT_BACKWARD));
    ck_assert_int_eq(nd_dtype_of(o), ND_COMPLEX64);
    expect_same("fftn over no axis", o, a, 0);
    nd_release(o), o = NULL;
    nd_release(a);
    /* out exactly the input (the result never aliases a: a temporary) */
    const int64_t n = 12;
    a = make(dev, ND_COMPLEX128, 1, &n, L_CONTIG);
    nd_array *ref = NULL, *same = a;
    ND_OK_OR_FAIL(nd_fft(&ref, a, -1, 0, ND_FFT_BACKWARD));
    ND_OK_OR_FAIL(nd_fft(&same, a, -1, 0, ND_FFT_BACKWARD));
    ck_assert_ptr_eq(same, a);
    expect_same("fft with out = a", a, ref, 0);
    nd_release(ref), ref = NULL;
    /* fftn in place on its own input, and out overlapping the input (a view) */
    nd_array *b = make(dev, ND_COMPLEX64, 2, (const int64_t[]){4, 6}, L_CONTIG), *bt = NULL;
    ND_OK_OR_FAIL(nd_fft2(&ref, b, NULL, NULL, ND_FFT_BACKWARD));
    same = b;
    ND_OK_OR_FAIL(nd_fft2(&same, b, NULL, NULL, ND_FFT_BACKWARD));
    expect_same("fft2 with out = a", b, ref, 0);
    ND_OK_OR_FAIL(nd_transpose(&bt, b, NULL));
    nd_release(ref), ref = NULL;
    ND_OK_OR_FAIL(nd_fft(&ref, bt, -1, 0, ND_FFT_BACKWARD));
    ND_OK_OR_FAIL(nd_fft(&bt, bt, -1, 0, ND_FFT_BACKWARD));
    expect_same("fft with out = a (a transposed view)", bt, ref, 0);
    nd_release(ref), nd_release(bt), nd_release(b), nd_release(a);
}

static void run_errors(nd_device dev)
{
    nd_array *a = make(dev, ND_FLOAT32, 2, (const int64_t[]){3, 4}, L_CONTIG);
    nd_array *c = make(dev, ND_COMPLEX64, 2, (const int64_t[]){3, 4}, L_CONTIG);
    nd_array *one = make(dev, ND_COMPLEX64, 1, (const int64_t[]){1}, L_CONTIG);
    nd_array *o = NULL, *z0 = NULL;
    ND_OK_OR_FAIL(nd_zeros(&z0, ND_FLOAT64, 0, NULL, dev));
    ND_EXPECT_ERR(nd_fft(NULL, a, -1, 0, ND_FFT_BACKWARD), ND_ERR_INVALID, "nd_fft: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_ifft(&o, NULL, -1, 0, ND_FFT_BACKWARD), ND_ERR_INVALID, "nd_ifft: argument 'a' is NULL");
    ND_EXPECT_ERR(nd_fft(&o, a, 0, 0, ND_FFT_BACKWARD), ND_ERR_INVALID,
                  "nd_fft: Invalid number of FFT data points (0) specified.");
    ND_EXPECT_ERR(nd_rfft(&o, a, -5, 1, ND_FFT_BACKWARD), ND_ERR_INVALID, "Invalid number of FFT data points (-5)");
    /* irfft of one element: the default n is 0 */
    ND_EXPECT_ERR(nd_irfft(&o, one, -1, 0, ND_FFT_BACKWARD), ND_ERR_INVALID,
                  "nd_irfft: Invalid number of FFT data points (0) specified.");
    ND_EXPECT_ERR(nd_hfft(&o, one, -1, -1, ND_FFT_BACKWARD), ND_ERR_INVALID, "nd_hfft: Invalid number of FFT data points (0)");
    ND_EXPECT_ERR(nd_fft(&o, a, -1, 2, ND_FFT_BACKWARD), ND_ERR_SHAPE,
                  "nd_fft: axis 2 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_ihfft(&o, a, -1, -3, ND_FFT_BACKWARD), ND_ERR_SHAPE, "axis -3 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_fft(&o, z0, -1, 0, ND_FFT_BACKWARD), ND_ERR_SHAPE, "axis 0 is out of bounds for array of dimension 0");
    ND_EXPECT_ERR(nd_rfft(&o, c, -1, 0, ND_FFT_BACKWARD), ND_ERR_DTYPE, "nd_rfft: 'a' is complex64; nd_rfft takes real input");
    ND_EXPECT_ERR(nd_ihfft(&o, c, -1, 0, ND_FFT_BACKWARD), ND_ERR_DTYPE, "nd_ihfft: 'a' is complex64");
    ND_EXPECT_ERR(nd_rfftn(&o, c, -1, NULL, NULL, ND_FFT_BACKWARD), ND_ERR_DTYPE, "nd_rfftn: 'a' is complex64");
    ND_EXPECT_ERR(nd_rfft2(&o, c, NULL, NULL, ND_FFT_BACKWARD), ND_ERR_DTYPE, "nd_rfft2: 'a' is complex64");
    ND_EXPECT_ERR(nd_fft(&o, a, -1, 0, (nd_fft_norm)7), ND_ERR_INVALID, "nd_fft: Invalid norm value 7");
    ND_EXPECT_ERR(nd_fftn(&o, a, -1, NULL, (const int[]){0}, ND_FFT_BACKWARD), ND_ERR_INVALID,
                  "nd_fftn: naxes = -1 (every axis) takes axes = NULL");
    ND_EXPECT_ERR(nd_fftn(&o, a, -2, NULL, NULL, ND_FFT_BACKWARD), ND_ERR_INVALID, "nd_fftn: naxes = -2 is out of range");
    ND_EXPECT_ERR(nd_fftn(&o, a, 3, NULL, NULL, ND_FFT_BACKWARD), ND_ERR_SHAPE,
                  "nd_fftn: axis -3 is out of bounds for array of dimension 2");
    ND_EXPECT_ERR(nd_irfftn(&o, a, 0, NULL, NULL, ND_FFT_BACKWARD), ND_ERR_INVALID, "nd_irfftn transforms at least one axis");
    ND_EXPECT_ERR(nd_ifft2(&o, a, (const int64_t[]){3, 0}, NULL, ND_FFT_BACKWARD), ND_ERR_INVALID,
                  "nd_ifft2: Invalid number of FFT data points (0) specified.");
    ND_EXPECT_ERR(nd_fft2(&o, a, NULL, (const int[]){0, 5}, ND_FFT_BACKWARD), ND_ERR_SHAPE, "axis 5 is out of bounds");
    ND_EXPECT_ERR(nd_fft2(&o, one, NULL, NULL, ND_FFT_BACKWARD), ND_ERR_SHAPE, "nd_fft2: axis -2 is out of bounds for array of dimension 1");
    ck_assert_ptr_null(o);
    /* a mismatched out: shape, dtype (complex into float64), device; *out untouched */
    nd_array *bad = NULL;
    ND_OK_OR_FAIL(nd_zeros(&bad, ND_COMPLEX64, 2, (const int64_t[]){3, 4}, dev));
    nd_array *keep = bad;
    ND_EXPECT_ERR(nd_rfft(&bad, a, -1, 1, ND_FFT_BACKWARD), ND_ERR_SHAPE,
                  "nd_rfft: 'out' has shape (3,4), but the result has shape (3,3)");
    ck_assert_ptr_eq(bad, keep);
    nd_release(bad), bad = NULL;
    ND_OK_OR_FAIL(nd_zeros(&bad, ND_FLOAT64, 2, (const int64_t[]){3, 4}, dev));
    ND_EXPECT_ERR(nd_fft(&bad, a, -1, 1, ND_FFT_BACKWARD), ND_ERR_DTYPE,
                  "nd_fft: cannot cast the result from complex64 to 'out' dtype float64");
    nd_release(bad), bad = NULL;
    ND_OK_OR_FAIL(nd_zeros(&bad, ND_FLOAT16, 2, (const int64_t[]){3, 6}, dev));
    ND_OK_OR_FAIL(nd_irfft(&bad, c, 6, 1, ND_FFT_BACKWARD)); /* float32 into float16: same_kind */
    nd_release(bad), bad = NULL;
    if (cuda_dev(dev)) {
        ND_OK_OR_FAIL(nd_zeros(&bad, ND_COMPLEX64, 2, (const int64_t[]){3, 4}, nd_cpu()));
        ND_EXPECT_ERR(nd_fft(&bad, a, -1, 1, ND_FFT_BACKWARD), ND_ERR_DEVICE, "nd_fft: 'out' is on cpu:0, but the result is on cuda:0");
        ND_EXPECT_ERR(nd_fftn(&bad, a, -1, NULL, NULL, ND_FFT_BACKWARD), ND_ERR_DEVICE, "nd_fftn: 'out' is on cpu:0");
        nd_release(bad), bad = NULL;
    }
    /* a broadcast out cannot be written */
    nd_array *row = NULL, *bc = NULL;
    ND_OK_OR_FAIL(nd_zeros(&row, ND_COMPLEX64, 2, (const int64_t[]){1, 4}, dev));
    ND_OK_OR_FAIL(nd_broadcast_to(&bc, row, 2, (const int64_t[]){3, 4}));
    ND_EXPECT_ERR(nd_fft(&bc, a, -1, 1, ND_FFT_BACKWARD), ND_ERR_INVALID, "nd_fft: 'out' is a broadcast view");
    nd_release(bc), nd_release(row);
    nd_release(a), nd_release(c), nd_release(one), nd_release(z0);
}

/* ------------------------------------------------------------------ */
/* Allocation failures (the allocator door, src/core/alloc.h)               */
/* ------------------------------------------------------------------ */
/* Every FFT function with the N-th allocation failing, N = 1, 2, ...
 * until a run meets no injected failure: the failing call returns
 * ND_ERR_NOMEM with a message (never another status), leaves its out as
 * it was, and nothing leaks (the door's live count, with the engine's
 * plan cache emptied, is back where it started). CPU only: on the
 * emulated GPU a failure inside a queued transform is a device fault. */
static nd_status fault_workload(const nd_array *a, const nd_array *c, nd_array *into, bool *kept)
{
    nd_array *o[12] = {NULL};
    nd_status st = ND_OK;
    int k = 0;
#define FW(call)                                                   \
    do {                                                           \
        if ((st = (call))) {                                       \
            *kept = o[k] == NULL;                                  \
            goto done;                                             \
        }                                                          \
        k++;                                                       \
    } while (0)
    FW(nd_fft(&o[k], c, 16, 1, ND_FFT_BACKWARD));
    FW(nd_ifft(&o[k], c, 4, 0, ND_FFT_ORTHO));
    FW(nd_rfft(&o[k], a, -1, 0, ND_FFT_BACKWARD));
    FW(nd_irfft(&o[k], c, 9, 1, ND_FFT_BACKWARD));
    FW(nd_hfft(&o[k], c, -1, 1, ND_FFT_FORWARD));
    FW(nd_ihfft(&o[k], a, 5, 1, ND_FFT_BACKWARD));
    FW(nd_fftn(&o[k], c, 2, (const int64_t[]){4, 12}, NULL, ND_FFT_BACKWARD));
    FW(nd_irfftn(&o[k], c, -1, NULL, NULL, ND_FFT_BACKWARD));
    FW(nd_rfft2(&o[k], a, NULL, NULL, ND_FFT_BACKWARD));
    FW(nd_fftfreq(&o[k], 9, 0.5, ND_FLOAT32, nd_cpu()));
    FW(nd_fftshift(&o[k], c, -1, NULL));
#undef FW
    nd_array *before = into;
    if ((st = nd_fft2(&into, a, NULL, NULL, ND_FFT_BACKWARD))) *kept = into == before;
done:
    for (int i = 0; i < 12; i++) nd_release(o[i]);
    return st;
}

/* Give back everything cached (the engine's plans, the pools of every
 * device: an allocation failure makes a pool release its cache and retry,
 * which would move the live count), so that the door's count is exact.
 * The device is synchronised first: a transform still queued there (the
 * emulated cuFFT runs on the engine) holds its plan, which the cache
 * cannot give back until the transform is done. */
static void release_caches(void)
{
    if (nd_cuda_device_count() > 0) ND_OK_OR_FAIL(nd_synchronize(cuda0()));
    nd__fft_cache_clear();
    ND_OK_OR_FAIL(nd_memory_release_cached(nd_cpu()));
    if (nd_cuda_device_count() > 0) ND_OK_OR_FAIL(nd_memory_release_cached(cuda0()));
    nd__host_pinned_release_cached();
}

static void run_faults(void)
{
    const nd_device dev = nd_cpu();
    nd_array *a = make(dev, ND_FLOAT32, 2, (const int64_t[]){6, 10}, L_TRANS);
    nd_array *c = make(dev, ND_COMPLEX64, 2, (const int64_t[]){6, 10}, L_CONTIG), *into = NULL;
    ND_OK_OR_FAIL(nd_zeros(&into, ND_COMPLEX64, 2, (const int64_t[]){6, 10}, dev));
    bool kept = true;
    ND_OK_OR_FAIL(fault_workload(a, c, into, &kept)); /* warm-up: thread pool, one-time state */
    long k;
    for (k = 1; k < 100000; k++) {
        release_caches();
        const long live0 = nd__alloc_live();
        kept = true;
        nd__alloc_fail_after(k);
        const nd_status st = fault_workload(a, c, into, &kept);
        const bool injected = nd__alloc_fault_reset();
        release_caches();
        ck_assert_msg(nd__alloc_live() == live0, "allocation %ld failing: %ld allocations leaked", k,
                      nd__alloc_live() - live0);
        if (!injected) {
            ck_assert_msg(st == ND_OK, "allocation %ld: no failure injected, but %s: %s", k, nd_status_name(st),
                          nd_last_error());
            break;
        }
        if (st == ND_OK) continue; /* absorbed */
        ck_assert_msg(st == ND_ERR_NOMEM, "allocation %ld failing: %s: %s", k, nd_status_name(st), nd_last_error());
        ck_assert_msg(strlen(nd_last_error()) > 0, "allocation %ld failing: no message", k);
        ck_assert_msg(kept, "allocation %ld failing: the out was changed", k);
    }
    ck_assert_msg(k > 10, "the workload met only %ld allocations", k);
    nd_release(a), nd_release(c), nd_release(into);
}

START_TEST(faults_cpu) { run_faults(); }
END_TEST

#ifdef ND_CUDA_EMU
/* Cached cuFFT plans hold no device memory outside the pool: each exec
 * takes its work area from the pool, so once the pool's cache is released
 * the device is as free as before, however many plans stay cached (the
 * emulated cuFFT gives every plan a work area and allocates it with
 * cudaMalloc unless the caller supplies one). */
START_TEST(cached_plans_hold_no_device_memory_outside_the_pool)
{
    const nd_device g = cuda0();
    release_caches();
    nd_device_info i0, i1;
    ND_OK_OR_FAIL(nd_device_get_info(&i0, g));
    for (int k = 0; k < 4; k++) {
        const int64_t n = (int64_t)1000 << k, shape[2] = {3, n};
        nd_array *a = make(g, ND_COMPLEX128, 2, shape, L_CONTIG), *o = NULL, *back = NULL;
        ND_OK_OR_FAIL(nd_fft(&o, a, -1, 1, ND_FFT_BACKWARD));
        ND_OK_OR_FAIL(nd_ifft(&back, o, -1, 1, ND_FFT_BACKWARD));
        double *x = malloc((size_t)(3 * n) * 16), *y = malloc((size_t)(3 * n) * 16);
        ND_OK_OR_FAIL(nd_copy_to_host(x, a, (size_t)(3 * n) * 16));
        ND_OK_OR_FAIL(nd_copy_to_host(y, back, (size_t)(3 * n) * 16));
        for (int64_t i = 0; i < 6 * n; i++)
            ck_assert_msg(fabs(x[i] - y[i]) <= 1e-12 * (1 + fabs(x[i])), "n %lld: ifft(fft(a))[%lld] = %g, want %g",
                          (long long)n, (long long)i, y[i], x[i]);
        free(x), free(y);
        nd_release(a), nd_release(o), nd_release(back);
    }
    ND_OK_OR_FAIL(nd_synchronize(g));
    ND_OK_OR_FAIL(nd_memory_release_cached(g));
    ND_OK_OR_FAIL(nd_device_get_info(&i1, g));
    ck_assert_msg(i1.free_memory == i0.free_memory, "the cached plans hold %lld bytes of device memory",
                  (long long)i0.free_memory - (long long)i1.free_memory);
}
END_TEST
#endif

/* ------------------------------------------------------------------ */
#define DEV_TESTS(name, fn)                                   \
    START_TEST(name##_cpu) { fn(nd_cpu()); }                  \
    END_TEST                                                  \
    START_TEST(name##_cuda) { fn(cuda0()); }                  \
    END_TEST

DEV_TESTS(roundtrip, run_roundtrip)
DEV_TESTS(hermitian, run_hermitian)
DEV_TESTS(freq, run_freq)
DEV_TESTS(shift, run_shift)
DEV_TESTS(edges, run_edges)
DEV_TESTS(errors, run_errors)

void fft_misc_add(TCase *tc)
{
#define ADD(name)                                                     \
    tcase_add_test(tc, name##_cpu);                                   \
    if (nd_test_gpu_count() > 0) tcase_add_test(tc, name##_cuda);
    ADD(roundtrip)
    ADD(hermitian)
    ADD(freq)
    ADD(shift)
    ADD(edges)
    ADD(errors)
#undef ADD
    tcase_add_test(tc, faults_cpu);
#ifdef ND_CUDA_EMU
    if (nd_test_gpu_count() > 0) tcase_add_test(tc, cached_plans_hold_no_device_memory_outside_the_pool);
#endif
}
