/* bench_fft - the FFT through the public API, against
 * numpy.fft (and cupy.fft on a GPU) in the same run (bench_worker.py):
 *   fft   of 2^20 complex64            np.fft.fft(x)
 *   rfft  of 2^20 float32              np.fft.rfft(x)
 *   fft2  of 4096x4096 complex64       np.fft.fft2(x)
 *   fft   of 999983 complex64 (prime)  np.fft.fft(x)
 *   ifft  of 2^20 complex128           np.fft.ifft(x)
 * Complex inputs are generated as float32 (re, im) pairs (an input of shape
 * (..., 2), which the worker views as complex64), so both sides start from
 * the same values bit for bit. NumPy's fft allocates its result; the timed
 * libndgpu calls write into an existing output. Each result is checked once
 * against a direct DFT in double at a sample of output indices (the first
 * and last few and every few-thousandth); the checksum runs over the
 * (re, im) pairs in C order. */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K_FFT, K_RFFT, K_FFT2, K_FFT_PRIME, K_IFFT64, NKINDS };
static const char *const kind_op[NKINDS] = {"fft", "rfft", "fft2", "fft", "ifft"};
static const char *const kind_layout[NKINDS] = {"contig", "contig", "contig", "prime", "contig"};
static const nd_dtype kind_dtype[NKINDS] = {ND_COMPLEX64, ND_FLOAT32, ND_COMPLEX64, ND_COMPLEX64, ND_COMPLEX128};
#define N1 (1 << 20)
#define N2 4096
#define NPRIME 999983

typedef struct fft_call {
    int kind;
    nd_array *x, *out;
} fft_call;

static int fft_run(void *p)
{
    fft_call *c = p;
    switch (c->kind) {
    case K_RFFT: return nd_rfft(&c->out, c->x, -1, -1, ND_FFT_BACKWARD);
    case K_FFT2: return nd_fft2(&c->out, c->x, NULL, NULL, ND_FFT_BACKWARD);
    case K_IFFT64: return nd_ifft(&c->out, c->x, -1, -1, ND_FFT_BACKWARD);
    default: return nd_fft(&c->out, c->x, -1, -1, ND_FFT_BACKWARD);
    }
}

static int kind_shape(int kind, int64_t *shape)
{
    if (kind == K_FFT2) return shape[0] = N2, shape[1] = N2, 2;
    shape[0] = kind == K_FFT_PRIME ? NPRIME : N1;
    return 1;
}

/* Output k (of a 1-D transform of h, complex pairs when cpx) in double. */
static void dft1(const double *h, bool cpx, int64_t n, int64_t k, int sign, double *re, double *im)
{
    double sr = 0, si = 0;
    const double w = sign * 2.0 * M_PI / (double)n;
    for (int64_t j = 0; j < n; j++) {
        const double a = w * (double)(((__int128)j * k) % n), c = cos(a), s = sin(a);
        const double xr = cpx ? h[2 * j] : h[j], xi = cpx ? h[2 * j + 1] : 0;
        sr += xr * c - xi * s;
        si += xr * s + xi * c;
    }
    *re = sr, *im = si;
}

/* Check a sample of the outputs against the direct DFT; |err| <= tol *
 * rms(x) * sqrt(N). */
static void check_sample(bench_record *r, int kind, const double *h, const double *got, const int64_t *shape)
{
    const bool cpx = kind != K_RFFT;
    const double tol = (kind == K_IFFT64 ? 1e-12 : 2e-5);
    int64_t N = kind == K_FFT2 ? (int64_t)N2 * N2 : shape[0];
    double ss = 0;
    for (int64_t i = 0; i < (cpx ? 2 * N : N); i++) ss += h[i] * h[i];
    const double bound = tol * sqrt(ss / (double)N) * sqrt((double)N);
    const int64_t nout = kind == K_RFFT ? N / 2 + 1 : N;
    /* fft2: each sample costs a 4096-point DFT per row: fewer of them */
    const int want = kind == K_FFT2 ? 6 : 24;
    int64_t idx[24];
    int ni = 0;
    for (int64_t k = 0; k < 2; k++) idx[ni++] = k, idx[ni++] = nout - 1 - k;
    for (int64_t k = 1; ni < want; k++) idx[ni++] = (k * 104729) % nout;
    for (int i = 0; i < ni; i++) {
        const int64_t k = idx[i];
        double re, im;
        if (kind == K_FFT2) { /* X[k1, k2] = sum_j1 w1^(j1 k1) (sum_j2 x[j1, j2] w2^(j2 k2)) */
            const int64_t k1 = k / N2, k2 = k % N2;
            double *col = malloc(sizeof(double) * 2 * N2);
            if (!col) return;
            for (int64_t j1 = 0; j1 < N2; j1++) dft1(h + 2 * j1 * N2, true, N2, k2, -1, &col[2 * j1], &col[2 * j1 + 1]);
            dft1(col, true, N2, k1, -1, &re, &im);
            free(col);
        } else {
            dft1(h, cpx, N, k, kind == K_IFFT64 ? 1 : -1, &re, &im);
            if (kind == K_IFFT64) re /= (double)N, im /= (double)N;
        }
        const double b = kind == K_IFFT64 ? bound / (double)N : bound;
        if (!(fabs(got[2 * k] - re) <= b && fabs(got[2 * k + 1] - im) <= b)) {
            r->status = BS_WRONG;
            snprintf(r->message, sizeof r->message, "output %lld is (%.9g, %.9g), want (%.9g, %.9g)", (long long)k,
                     got[2 * k], got[2 * k + 1], re, im);
            return;
        }
    }
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "fft", c);
    const int kind = c->op;
    snprintf(r.op, sizeof r.op, "%s", kind_op[kind]);
    snprintf(r.layout, sizeof r.layout, "%s", kind_layout[kind]);
    int64_t shape[2];
    const int nd = kind_shape(kind, shape);
    bench_fmt_shape(r.shape, sizeof r.shape, nd, shape);
    snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\", \"pairs\": %s}", kind_op[kind], kind == K_RFFT ? "false" : "true");
    r.ninputs = 1;
    /* complex inputs: float (re, im) pairs, shape (..., 2) */
    const bool cpx = kind != K_RFFT;
    bench_input *in = &r.inputs[0];
    in->dtype = kind == K_IFFT64 ? ND_FLOAT64 : ND_FLOAT32;
    in->ndim = nd + cpx;
    for (int i = 0; i < nd; i++) in->shape[i] = shape[i];
    if (cpx) in->shape[nd] = 2;
    in->seed = 23, in->lo = -1, in->hi = 1;
    fft_call call = {.kind = kind};
    double *host = NULL, *got = NULL;
    nd_array *base = NULL;
    int s = bench_input_make(in, c->dev, &base, &host);
    if (s != ND_OK) bench_fail_nd(&r, "creating the input", s);
    if (s == ND_OK && cpx) { /* the pairs as one complex array */
        const int64_t n = nd_size(base) / 2;
        const bool dbl = kind == K_IFFT64;
        void *buf = malloc((size_t)n * (dbl ? 16 : 8));
        if (!buf) {
            s = ND_ERR_NOMEM;
            bench_fail_nd(&r, "host memory for the input", s);
        } else {
            for (int64_t i = 0; i < 2 * n; i++) {
                if (dbl) ((double *)buf)[i] = host[i];
                else ((float *)buf)[i] = (float)host[i];
            }
            s = nd_from_host(&call.x, buf, kind_dtype[kind], nd, shape, c->dev);
            if (s != ND_OK) bench_fail_nd(&r, "nd_from_host", s);
            free(buf);
        }
    } else if (s == ND_OK) {
        call.x = nd_retain(base);
    }
    nd_release(base);
    if (s == ND_OK) {
        s = fft_run(&call);
        if (s != ND_OK) bench_fail_nd(&r, kind_op[kind], s);
    }
    if (s == ND_OK) {
        r.bytes = (double)nd_nbytes(call.x) + (double)nd_nbytes(call.out);
        const double N = kind == K_FFT2 ? (double)N2 * N2 : (double)shape[0];
        r.flops = 5.0 * N * log2(N) * (kind == K_RFFT ? 0.5 : 1.0); /* the usual FFT flop count */
    }
    if (s == ND_OK && bench_verify() && (got = bench_fetch(call.out, &r))) {
        check_sample(&r, kind, host, got, shape);
        if (r.status == BS_OK) {
            bench_checksum(got, 2 * nd_size(call.out), r.checksum);
            r.has_checksum = true;
        }
    }
    free(host), free(got);
    if (r.status == BS_OK) {
        s = bench_measure(fft_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, kind_op[kind], s);
    }
    bench_emit(&r);
    nd_release(call.x);
    nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_fft",
               "fft of 2^20 complex64, rfft of 2^20 float32, fft2 of 4096x4096 complex64, fft of a prime length "
               "(999983), ifft of 2^20 complex128.");
    for (int d = 0; d < bench_num_devices(); d++)
        for (int kind = 0; kind < NKINDS; kind++) {
            bench_case c = {.op = kind, .dtype = kind_dtype[kind], .layout = 0, .dev = bench_device(d)};
            char sh[64];
            int64_t shape[2];
            bench_fmt_shape(sh, sizeof sh, kind_shape(kind, shape), shape);
            snprintf(c.key, sizeof c.key, "%s/%s/%s/%s/%s", kind_op[kind], nd_dtype_name(kind_dtype[kind]), sh,
                     kind_layout[kind], bench_dev_name(c.dev));
            bench_add_case(&c);
        }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        run_case(c);
    }
    return bench_finish();
}
