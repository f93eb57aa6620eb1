/* bench_common.c - options, cases, inputs, timing, checks and output of
 * the libndgpu benchmarks (see bench_common.h). */
#include "bench_common.h"

#include "cpu/blas.h"
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef ND_WITH_CUDA
#include <cuda_runtime.h>
#endif

bench_opts g_opt;

static const char *g_name = "bench";
static FILE *g_json;
static bench_case *g_cases;
static int g_ncases, g_capcases;
static nd_device g_devs[2];
static int g_ndevs;
static int g_nwrong, g_nerror, g_nok, g_nskipped;
static bool g_header_done;

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */
static void usage(FILE *f, const char *summary)
{
    fprintf(f,
            "usage: %s [options]\n"
            "%s\n"
            "options:\n"
            "  --help            this text\n"
            "  --quick           fewer/smaller cases, 0.05 s per case instead of 0.2 s\n"
            "  --device D        cpu | cuda | all (default all: the CPU and cuda:0 when present)\n"
            "  --json FILE       write one JSON object per measurement (JSON lines; the first\n"
            "                    line describes the environment)\n"
            "  --filter SUBSTR   only cases whose key op/dtype/shape/layout/device contains SUBSTR\n"
            "  --threads N       CPU threads for libndgpu and raw BLAS (default ND_NUM_THREADS or\n"
            "                    the library default)\n"
            "  --min-time S      seconds of timed samples per case (default 0.2, quick 0.05)\n"
            "  --list            print the selected case keys and exit\n"
            "  --assume-gpu      with --list: list the cuda:0 cases even without a GPU (dry run)\n"
            "  --no-verify       time only: no reference check and no checksum of the results\n"
            "                    (for repeated rounds of cases an earlier run verified; the\n"
            "                    benches whose checks cost little still check)\n"
            "Exit status: 0 when every case ran and its result matched the reference, 1 when a\n"
            "result was wrong or the library returned an error, 2 for bad options.\n",
            g_name, summary);
}

void bench_init(int argc, char **argv, const char *name, const char *summary)
{
    g_name = name;
    memset(&g_opt, 0, sizeof g_opt);
    g_opt.prog = name;
    g_opt.min_time = -1;
    const char *dev = "all";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, summary);
            exit(0);
        } else if (!strcmp(a, "--quick")) {
            g_opt.quick = true;
        } else if (!strcmp(a, "--list")) {
            g_opt.list = true;
        } else if (!strcmp(a, "--assume-gpu")) {
            g_opt.assume_gpu = true;
        } else if (!strcmp(a, "--no-verify")) {
            g_opt.no_verify = true;
        } else if (!strcmp(a, "--device") && val) {
            dev = val, i++;
        } else if (!strcmp(a, "--json") && val) {
            g_opt.json_path = val, i++;
        } else if (!strcmp(a, "--filter") && val) {
            g_opt.filter = val, i++;
        } else if (!strcmp(a, "--threads") && val) {
            g_opt.threads = atoi(val), i++;
            if (g_opt.threads < 1) {
                fprintf(stderr, "%s: --threads needs a positive number\n", name);
                exit(2);
            }
        } else if (!strcmp(a, "--min-time") && val) {
            g_opt.min_time = atof(val), i++;
            if (!(g_opt.min_time > 0)) {
                fprintf(stderr, "%s: --min-time needs a positive number of seconds\n", name);
                exit(2);
            }
        } else {
            fprintf(stderr, "%s: unknown or incomplete option '%s'\n", name, a);
            usage(stderr, summary);
            exit(2);
        }
    }
    if (g_opt.min_time < 0) g_opt.min_time = g_opt.quick ? 0.05 : 0.2;

    if (!strcmp(dev, "cpu")) {
        g_opt.devices = BENCH_DEV_CPU;
    } else if (!strcmp(dev, "cuda")) {
        g_opt.devices = BENCH_DEV_CUDA;
    } else if (!strcmp(dev, "all")) {
        g_opt.devices = BENCH_DEV_CPU | BENCH_DEV_CUDA;
    } else {
        fprintf(stderr, "%s: --device must be cpu, cuda or all (got '%s')\n", name, dev);
        exit(2);
    }
    g_opt.cuda_requested = (g_opt.devices & BENCH_DEV_CUDA) != 0;
    if (g_opt.assume_gpu && !g_opt.list) {
        fprintf(stderr, "%s: --assume-gpu only goes with --list\n", name);
        exit(2);
    }
    if (g_opt.cuda_requested && nd_cuda_device_count() <= 0 && !g_opt.assume_gpu) {
        g_opt.devices &= ~BENCH_DEV_CUDA;
        fprintf(stderr, "%s: no GPU (nd_cuda_device_count() == 0): CUDA cases skipped\n", name);
    }
    if (g_opt.devices & BENCH_DEV_CPU) g_devs[g_ndevs++] = nd_cpu();
    if (g_opt.devices & BENCH_DEV_CUDA) g_devs[g_ndevs++] = nd_cuda(0);

    if (g_opt.threads == 0) {
        const char *e = getenv("ND_NUM_THREADS");
        g_opt.threads = (e && atoi(e) > 0) ? atoi(e) : nd_get_num_threads();
        if (g_opt.threads < 1) g_opt.threads = 1;
    }
    if (nd_set_num_threads(g_opt.threads) != ND_OK)
        fprintf(stderr, "%s: nd_set_num_threads(%d) failed: %s\n", name, g_opt.threads, nd_last_error());
    nd__blas_set_threads(g_opt.threads);
    omp_set_num_threads(g_opt.threads);

    /* OpenBLAS starts its own threads when it loads, and each spins for
     * 2^28 TSC cycles (~0.1 s) before it first sleeps (the library runs
     * OpenBLAS's parallel sections on its own pool, so they never get work).
     * A case timed meanwhile shares a core with a spinner: on 2 cores the
     * first case of a binary (einsum 256 x 64^3 float32 in bench_manip) ran
     * at half speed, 1.4 ms instead of 0.7. Sleeping past it (not
     * spinning: the spinners get the cores) times every case in the state
     * a running program is in; the NumPy worker (bench_worker.py) sleeps
     * as long after importing NumPy, whose OpenBLAS spins the same way. */
    if (!g_opt.list) {
        struct timespec ts = {0, 200000000L};
        nanosleep(&ts, NULL);
    }

    if (g_opt.json_path && !g_opt.list) {
        g_json = fopen(g_opt.json_path, "w");
        if (!g_json) {
            fprintf(stderr, "%s: cannot write %s\n", name, g_opt.json_path);
            exit(2);
        }
        bench_write_env(name);
    }
}

int bench_finish(void)
{
    if (g_opt.list) {
        for (int i = 0; i < g_ncases; i++) printf("%s\n", g_cases[i].key);
        free(g_cases);
        return 0;
    }
    if (g_json) fclose(g_json);
    g_json = NULL;
    free(g_cases);
    g_cases = NULL;
    if (g_ncases == 0 && g_ndevs == 0)
        printf("%s: nothing to measure on the selected devices\n", g_name);
    printf("%s: %d ok, %d wrong, %d errors, %d skipped\n", g_name, g_nok, g_nwrong, g_nerror, g_nskipped);
    return (g_nwrong || g_nerror) ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Cases and devices                                                   */
/* ------------------------------------------------------------------ */
void bench_add_case(const bench_case *c)
{
    if (g_opt.filter && !strstr(c->key, g_opt.filter)) return;
    if (g_ncases == g_capcases) {
        int cap = g_capcases ? 2 * g_capcases : 64;
        bench_case *n = realloc(g_cases, (size_t)cap * sizeof *n);
        if (!n) {
            fprintf(stderr, "%s: out of memory\n", g_name);
            exit(1);
        }
        g_cases = n, g_capcases = cap;
    }
    g_cases[g_ncases++] = *c;
}

int bench_num_cases(void) { return g_opt.list ? 0 : g_ncases; }
bench_case *bench_get_case(int i) { return &g_cases[i]; }
int bench_num_devices(void) { return g_ndevs; }
nd_device bench_device(int i) { return g_devs[i]; }

const char *bench_dev_name(nd_device d)
{
    return d.type == ND_DEVICE_CUDA ? "cuda:0" : "cpu";
}

void bench_progress(int i, const bench_case *c)
{
    fprintf(stderr, "[%s] case %d/%d %s\n", g_name, i + 1, g_ncases, c->key);
}

/* ------------------------------------------------------------------ */
/* Inputs                                                              */
/* ------------------------------------------------------------------ */
double bench_u01(uint64_t seed, uint64_t i)
{
    uint64_t z = (seed + i + 1) * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

double bench_input_base_value(const bench_input *in, int64_t flat)
{
    double u = bench_u01(in->seed, (uint64_t)flat);
    if (in->dtype == ND_BOOL) return u < 0.5 ? 1.0 : 0.0;
    double v = in->lo + (in->hi - in->lo) * u;
    switch (in->dtype) {
    case ND_FLOAT32: return (double)(float)v;
    case ND_FLOAT16: return bench_round_half(v);
    case ND_BFLOAT16: return bench_round_bf16(v);
    case ND_INT32: case ND_INT64: return floor(v);
    default: return v;
    }
}

int64_t bench_input_base_size(const bench_input *in)
{
    int64_t n = 1;
    for (int k = 0; k < in->ndim; k++) n *= in->shape[k];
    return n;
}

int bench_input_view_shape(const bench_input *in, int64_t *shape)
{
    int nd = in->ndim;
    for (int k = 0; k < nd; k++) {
        switch (in->view) {
        case BV_T: shape[k] = in->shape[nd - 1 - k]; break;
        case BV_STEP2: shape[k] = (k == nd - 1) ? (in->shape[k] + 1) / 2 : in->shape[k]; break;
        default: shape[k] = in->shape[k]; break;
        }
    }
    return nd;
}

int64_t bench_input_view_size(const bench_input *in)
{
    int64_t s[4], n = 1;
    int nd = bench_input_view_shape(in, s);
    for (int k = 0; k < nd; k++) n *= s[k];
    return n;
}

void bench_input_coefs(const bench_input *in, int out_ndim, int64_t *coef)
{
    int nd = in->ndim;
    int64_t bstride[4], vshape[4], vstride[4];
    int64_t acc = 1;
    for (int k = nd - 1; k >= 0; k--) bstride[k] = acc, acc *= in->shape[k];
    bench_input_view_shape(in, vshape);
    for (int k = 0; k < nd; k++) {
        switch (in->view) {
        case BV_T: vstride[k] = bstride[nd - 1 - k]; break;
        case BV_STEP2: vstride[k] = (k == nd - 1) ? 2 * bstride[k] : bstride[k]; break;
        default: vstride[k] = bstride[k]; break;
        }
    }
    for (int k = 0; k < out_ndim; k++) coef[k] = 0;
    for (int k = 0; k < nd; k++) {
        int ok = out_ndim - nd + k;
        if (ok >= 0 && vshape[k] != 1) coef[ok] = vstride[k];
    }
}

int bench_input_make(const bench_input *in, nd_device dev, nd_array **view, double **host)
{
    int64_t n = bench_input_base_size(in);
    size_t es = nd_dtype_size(in->dtype);
    void *buf = malloc((size_t)n * es + 1);
    double *hd = host ? malloc((size_t)n * sizeof(double) + 1) : NULL;
    if (!buf || (host && !hd)) {
        free(buf), free(hd);
        return ND_ERR_NOMEM;
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        double v = bench_input_base_value(in, i);
        if (hd) hd[i] = v;
        switch (in->dtype) {
        case ND_BOOL: ((bool *)buf)[i] = v != 0; break;
        case ND_FLOAT32: ((float *)buf)[i] = (float)v; break;
        case ND_FLOAT64: ((double *)buf)[i] = v; break;
        case ND_FLOAT16: ((uint16_t *)buf)[i] = bench_half_bits(v); break;
        case ND_BFLOAT16: ((uint16_t *)buf)[i] = bench_bf16_bits(v); break;
        case ND_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
        case ND_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
        default: break;
        }
    }
    nd_array *base = NULL, *v = NULL;
    nd_status s = nd_from_host(&base, buf, in->dtype, in->ndim, in->shape, dev);
    free(buf);
    if (s == ND_OK) {
        if (in->view == BV_T) {
            s = nd_transpose(&v, base, NULL);
        } else if (in->view == BV_STEP2) {
            nd_range r[4];
            for (int k = 0; k < in->ndim; k++) r[k] = ND_ALL;
            r[in->ndim - 1].step = 2;
            s = nd_slice(&v, base, in->ndim, r);
        } else {
            v = nd_retain(base);
        }
    }
    nd_release(base);
    if (s != ND_OK) {
        free(hd);
        return s;
    }
    *view = v;
    if (host) *host = hd;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Timing                                                              */
/* ------------------------------------------------------------------ */
bool bench_verify(void) { return !g_opt.no_verify; }

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int sync_dev(nd_device dev)
{
    return dev.type == ND_DEVICE_CUDA ? (int)nd_synchronize(dev) : 0;
}

/* Time k calls; returns status, *t the seconds. */
static int time_k(bench_fn fn, void *arg, nd_device dev, long k, double *t)
{
    double t0 = bench_now();
    for (long j = 0; j < k; j++) {
        int s = fn(arg);
        if (s) return s;
    }
    int s = sync_dev(dev);
    *t = bench_now() - t0;
    return s;
}

int bench_measure(bench_fn fn, void *arg, nd_device dev, bench_stats *st)
{
    memset(st, 0, sizeof *st);
    double t;
    int s = time_k(fn, arg, dev, 1, &t); /* warm-up */
    if (s) return s;
    /* Calibrate the calls per sample so that a sample lasts about
     * min_time / 20 (timer resolution and sync cost become negligible). */
    double target = g_opt.min_time / 20;
    long k = 1;
    for (;;) {
        if ((s = time_k(fn, arg, dev, k, &t))) return s;
        if (t >= target || k >= (1L << 26)) break;
        long nk = (t > 0) ? (long)((double)k * target / t * 1.25) + 1 : 10 * k;
        if (nk > 10 * k) nk = 10 * k;
        if (nk < 2 * k) nk = 2 * k;
        k = nk;
    }
    enum { MAXS = 4096, MINS = 3 };
    static double samp[MAXS];
    int ns = 0;
    double total = t;
    samp[ns++] = t / (double)k;
    while ((total < g_opt.min_time || ns < MINS) && ns < MAXS) {
        if ((s = time_k(fn, arg, dev, k, &t))) return s;
        samp[ns++] = t / (double)k;
        total += t;
    }
    qsort(samp, (size_t)ns, sizeof samp[0], cmp_double);
    st->min = samp[0];
    st->max = samp[ns - 1];
    st->median = (ns % 2) ? samp[ns / 2] : 0.5 * (samp[ns / 2 - 1] + samp[ns / 2]);
    st->samples = ns;
    st->calls = (long)ns * k;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */
void bench_fmt_shape(char *buf, size_t cap, int ndim, const int64_t *shape)
{
    if (ndim == 0) {
        snprintf(buf, cap, "()");
        return;
    }
    size_t len = 0;
    buf[0] = 0;
    for (int k = 0; k < ndim && len < cap; k++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", k ? "x" : "", (long long)shape[k]);
}

void bench_record_init(bench_record *r, const char *bench, const bench_case *c)
{
    memset(r, 0, sizeof *r);
    r->bench = bench;
    snprintf(r->device, sizeof r->device, "%s", bench_dev_name(c->dev));
    snprintf(r->call, sizeof r->call, "null");
    if (c->dtype < ND_NUM_DTYPES) snprintf(r->dtype, sizeof r->dtype, "%s", nd_dtype_name(c->dtype));
}

void bench_fail_nd(bench_record *r, const char *what, nd_status s)
{
    if (r->status == BS_ERROR || r->status == BS_WRONG) return; /* keep the first failure */
    r->status = BS_ERROR;
    snprintf(r->message, sizeof r->message, "%s: %s: %s", what, nd_status_name(s), nd_last_error());
}

void bench_checksum(const double *x, int64_t n, double out[2])
{
    double s1 = 0, s2 = 0;
#pragma omp parallel for schedule(static) reduction(+ : s1, s2) if (n > 1000000)
    for (int64_t i = 0; i < n; i++) {
        s1 += x[i];
        s2 += x[i] * (double)(1 + i % 7);
    }
    out[0] = s1, out[1] = s2;
}

double bench_half_to_double(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0) v = ldexp((double)m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexp((double)(m | 1024), e - 25);
    return sign ? -v : v;
}

/* v rounded to `bits` significant bits, nearest even (the rounding of a
 * conversion to a binary type with that precision, in its normal range). */
static double round_sig(double v, int bits)
{
    if (v == 0 || !isfinite(v)) return v;
    int e;
    double m = frexp(v, &e); /* v = m 2^e, 0.5 <= |m| < 1 */
    return ldexp(nearbyint(ldexp(m, bits)), e - bits);
}

double bench_round_half(double v) { return round_sig(v, 11); }
double bench_round_bf16(double v) { return round_sig(v, 8); }

uint16_t bench_half_bits(double v)
{
    v = bench_round_half(v);
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    v = fabs(v);
    if (v == 0) return sign;
    if (!(v < 65520)) return (uint16_t)(sign | (isnan(v) ? 0x7e00 : 0x7c00));
    int e;
    double m = frexp(v, &e); /* v = (2m) 2^(e-1) */
    int be = e - 1 + 15;
    if (be <= 0) return (uint16_t)(sign | (uint16_t)nearbyint(ldexp(v, 24))); /* subnormal */
    return (uint16_t)(sign | (uint16_t)(be << 10) | (uint16_t)nearbyint((2 * m - 1) * 1024));
}

uint16_t bench_bf16_bits(double v)
{
    float f = (float)bench_round_bf16(v); /* exact */
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16);
}

static double bf16_to_double(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

double *bench_fetch(const nd_array *a, bench_record *r)
{
    const nd_dtype ct = nd_dtype_of(a);
    /* complex: the (re, im) pairs, 2 * size values */
    int64_t n = nd_size(a) * ((ct == ND_COMPLEX64 || ct == ND_COMPLEX128) ? 2 : 1);
    size_t nb = nd_nbytes(a);
    nd_dtype t = nd_dtype_of(a);
    void *raw = malloc(nb + 1);
    double *d = malloc((size_t)n * sizeof(double) + 1);
    if (!raw || !d) {
        free(raw), free(d);
        r->status = BS_ERROR;
        snprintf(r->message, sizeof r->message, "out of host memory fetching the result");
        return NULL;
    }
    nd_status s = nd_copy_to_host(raw, a, nb);
    if (s != ND_OK) {
        bench_fail_nd(r, "nd_copy_to_host", s);
        free(raw), free(d);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        switch (t) {
        case ND_BOOL: d[i] = ((const bool *)raw)[i]; break;
        case ND_INT8: d[i] = ((const int8_t *)raw)[i]; break;
        case ND_INT16: d[i] = ((const int16_t *)raw)[i]; break;
        case ND_INT32: d[i] = ((const int32_t *)raw)[i]; break;
        case ND_INT64: d[i] = (double)((const int64_t *)raw)[i]; break;
        case ND_UINT8: d[i] = ((const uint8_t *)raw)[i]; break;
        case ND_UINT16: d[i] = ((const uint16_t *)raw)[i]; break;
        case ND_UINT32: d[i] = ((const uint32_t *)raw)[i]; break;
        case ND_UINT64: d[i] = (double)((const uint64_t *)raw)[i]; break;
        case ND_FLOAT16: d[i] = bench_half_to_double(((const uint16_t *)raw)[i]); break;
        case ND_BFLOAT16: d[i] = bf16_to_double(((const uint16_t *)raw)[i]); break;
        case ND_FLOAT32:
        case ND_COMPLEX64: d[i] = ((const float *)raw)[i]; break;
        default: d[i] = ((const double *)raw)[i]; break; /* float64, complex128 parts */
        }
    }
    free(raw);
    return d;
}

bool bench_check_close(bench_record *r, const double *got, const double *ref, int64_t n, double rtol, double atol)
{
    for (int64_t i = 0; i < n; i++) {
        double g = got[i], e = ref[i];
        if (isnan(e) && isnan(g)) continue;
        if (g == e) continue;
        if (!(fabs(g - e) <= atol + rtol * fabs(e))) {
            r->status = BS_WRONG;
            snprintf(r->message, sizeof r->message,
                     "result differs from the reference at flat index %lld: got %.17g, expected %.17g "
                     "(rtol %g, atol %g)",
                     (long long)i, g, e, rtol, atol);
            return false;
        }
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.10g", v);
    else fputs("null", f);
}

static const char *env_or_null(const char *name) { return getenv(name); }

static void json_env_member(FILE *f, const char *name, bool comma)
{
    const char *v = env_or_null(name);
    fprintf(f, "%s\"%s\": ", comma ? ", " : "", name);
    if (v) json_str(f, v);
    else fputs("null", f);
}

const char *bench_blas_core(void) { return nd__blas_core(); }

/* "OpenBLAS 0.3.34.481.3 (scipy-openblas32)": the library that ran, its
 * version and origin (src/cpu/blas.h, the library's own door). */
const char *bench_blas_library(void)
{
    static char buf[96];
    char ver[48];
    snprintf(buf, sizeof buf, "%s %s (%s)", nd__blas_name(), nd__blas_version(ver, sizeof ver), nd__blas_origin());
    return buf;
}

/* The text of nd_build_info()'s field after key, up to the next ";". */
static const char *build_field(char *buf, size_t cap, const char *key)
{
    const char *p = strstr(nd_build_info(), key);
    snprintf(buf, cap, "%s", p ? p + strlen(key) : "unknown");
    buf[strcspn(buf, ";")] = 0;
    return buf;
}

/* The CPU path in use (src/cpu/isa.h), from nd_build_info()'s
 * "CPU path: X" field: "avx512", "avx2 (forced by ND_CPU_ISA, ...)". */
const char *bench_cpu_path(void)
{
    static char buf[96];
    return build_field(buf, sizeof buf, "CPU path: ");
}

/* The bfloat16 GEMM kernels in use (src/cpu/matmul_bf16.h): "amx",
 * "avx512_bf16", "sgemm (the CPU has amx)". */
const char *bench_bf16_gemm(void)
{
    static char buf[96];
    return build_field(buf, sizeof buf, "bfloat16 GEMM: ");
}

void bench_cpu_model(char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ') p++;
                p[strcspn(p, "\n")] = 0;
                snprintf(buf, cap, "%s", p);
            }
            break;
        }
    }
    fclose(f);
}

void bench_write_env(const char *bench)
{
    if (!g_json) return;
    char host[256] = "unknown", cpu[256];
    gethostname(host, sizeof host - 1);
    bench_cpu_model(cpu, sizeof cpu);
    FILE *f = g_json;
    fprintf(f, "{\"type\": \"env\", \"bench\": ");
    json_str(f, bench);
    fprintf(f, ", \"version\": ");
    json_str(f, nd_version());
    fprintf(f, ", \"build_info\": ");
    json_str(f, nd_build_info());
    fprintf(f, ", \"blas\": ");
    json_str(f, bench_blas_library());
    fprintf(f, ", \"blas_core\": ");
    json_str(f, bench_blas_core());
    fprintf(f, ", \"cpu_path\": ");
    json_str(f, bench_cpu_path());
    fprintf(f, ", \"bf16_gemm\": ");
    json_str(f, bench_bf16_gemm());
#if !defined(ND_BLAS_BLIS)
    fprintf(f, ", \"blas_config\": ");
    json_str(f, openblas_get_config());
#endif
    fprintf(f, ", \"threads\": %d, \"nd_threads\": %d, \"blas_threads\": %d, \"nproc\": %ld", g_opt.threads,
            nd_get_num_threads(), nd__blas_get_threads(), sysconf(_SC_NPROCESSORS_ONLN));
    fprintf(f, ", \"hostname\": ");
    json_str(f, host);
    fprintf(f, ", \"cpu_model\": ");
    json_str(f, cpu);
    fprintf(f, ", \"quick\": %s, \"min_time\": %g", g_opt.quick ? "true" : "false", g_opt.min_time);
    fprintf(f, ", \"cuda_devices\": %d, \"devices\": [", nd_cuda_device_count());
    for (int i = 0; i < g_ndevs; i++) {
        nd_device_info info;
        fprintf(f, "%s{\"device\": ", i ? ", " : "");
        json_str(f, bench_dev_name(g_devs[i]));
        if (nd_device_get_info(&info, g_devs[i]) == ND_OK) {
            fprintf(f, ", \"name\": ");
            json_str(f, info.name);
            fprintf(f, ", \"total_memory\": %zu, \"multiprocessors\": %d, \"peak_bandwidth_gbps\": ",
                    info.total_memory, info.multiprocessors);
            json_num(f, info.peak_bandwidth_gbps);
        }
        fputc('}', f);
    }
    fprintf(f, "], \"env\": {");
    json_env_member(f, "OPENBLAS_CORETYPE", false);
    json_env_member(f, "OPENBLAS_L2_SIZE", true);
    json_env_member(f, "OPENBLAS_NUM_THREADS", true);
    json_env_member(f, "OMP_NUM_THREADS", true);
    json_env_member(f, "ND_NUM_THREADS", true);
    json_env_member(f, "ND_DEVICE", true);
    json_env_member(f, "ND_POOL", true);
    json_env_member(f, "ND_CPU_ISA", true);
    fprintf(f, "}}\n");
    fflush(f);
}

static void fmt_time(char *buf, size_t cap, double s)
{
    if (!(s > 0)) snprintf(buf, cap, "-");
    else if (s < 1e-6) snprintf(buf, cap, "%.1f ns", s * 1e9);
    else if (s < 1e-3) snprintf(buf, cap, "%.2f us", s * 1e6);
    else if (s < 1) snprintf(buf, cap, "%.2f ms", s * 1e3);
    else snprintf(buf, cap, "%.3f s", s);
}

static const char *status_name(bench_status s)
{
    switch (s) {
    case BS_OK: return "ok";
    case BS_WRONG: return "wrong";
    case BS_ERROR: return "error";
    default: return "skipped";
    }
}

static const char *view_name(bench_view v)
{
    return v == BV_T ? "T" : v == BV_STEP2 ? "step2" : "none";
}

void bench_emit(const bench_record *r)
{
    bool timed = r->status == BS_OK && r->st.median > 0;
    double gbps = (timed && r->bytes > 0) ? r->bytes / r->st.median * 1e-9 : 0;
    double gflops = (timed && r->flops > 0) ? r->flops / r->st.median * 1e-9 : 0;

    if (!g_header_done) {
        const char *ct = getenv("OPENBLAS_CORETYPE"), *l2 = getenv("OPENBLAS_L2_SIZE");
        printf("%s: libndgpu %s, BLAS %s core %s, CPU path %s, bfloat16 GEMM %s, threads %d, OPENBLAS_CORETYPE=%s, "
               "OPENBLAS_L2_SIZE=%s, min time %g s\n",
               g_name, nd_version(), bench_blas_library(), bench_blas_core(), bench_cpu_path(), bench_bf16_gemm(), g_opt.threads, ct ? ct : "(unset)", l2 ? l2 : "(unset)",
               g_opt.min_time);
        printf("%-18s %-16s %-16s %-10s %-7s %10s %10s %10s %14s  %s\n", "op", "dtype", "shape", "layout", "device",
               "median", "min", "max", "rate", "check");
        g_header_done = true;
    }
    char med[32], mn[32], mx[32], rate[32] = "-";
    fmt_time(med, sizeof med, timed ? r->st.median : 0);
    fmt_time(mn, sizeof mn, timed ? r->st.min : 0);
    fmt_time(mx, sizeof mx, timed ? r->st.max : 0);
    if (gflops > 0) snprintf(rate, sizeof rate, "%.2f GFLOP/s", gflops);
    else if (gbps > 0) snprintf(rate, sizeof rate, "%.2f GB/s", gbps);
    printf("%-18s %-16s %-16s %-10s %-7s %10s %10s %10s %14s  %s%s%s%s%s\n", r->op, r->dtype, r->shape, r->layout,
           r->device, med, mn, mx, rate, status_name(r->status), r->note[0] ? " " : "", r->note,
           r->message[0] ? ": " : "", r->message);
    fflush(stdout);

    switch (r->status) {
    case BS_OK: g_nok++; break;
    case BS_WRONG: g_nwrong++; break;
    case BS_ERROR: g_nerror++; break;
    default: g_nskipped++; break;
    }

    if (!g_json) return;
    FILE *f = g_json;
    fprintf(f, "{\"type\": \"measurement\", \"bench\": ");
    json_str(f, r->bench);
    fprintf(f, ", \"op\": ");
    json_str(f, r->op);
    fprintf(f, ", \"dtype\": ");
    json_str(f, r->dtype);
    fprintf(f, ", \"shape\": ");
    json_str(f, r->shape);
    fprintf(f, ", \"layout\": ");
    json_str(f, r->layout);
    fprintf(f, ", \"device\": ");
    json_str(f, r->device);
    fprintf(f, ", \"threads\": %d, \"median_s\": ", g_opt.threads);
    json_num(f, timed ? r->st.median : NAN);
    fprintf(f, ", \"min_s\": ");
    json_num(f, timed ? r->st.min : NAN);
    fprintf(f, ", \"max_s\": ");
    json_num(f, timed ? r->st.max : NAN);
    fprintf(f, ", \"calls\": %ld, \"samples\": %ld", r->st.calls, r->st.samples);
    if (r->bytes > 0) {
        fprintf(f, ", \"bytes\": ");
        json_num(f, r->bytes);
        fprintf(f, ", \"gbps\": ");
        json_num(f, gbps > 0 ? gbps : NAN);
    }
    if (r->flops > 0) {
        fprintf(f, ", \"flops\": ");
        json_num(f, r->flops);
        fprintf(f, ", \"gflops\": ");
        json_num(f, gflops > 0 ? gflops : NAN);
    }
    fprintf(f, ", \"blas_core\": ");
    json_str(f, bench_blas_core());
    fprintf(f, ", \"status\": \"%s\", \"message\": ", status_name(r->status));
    json_str(f, r->message);
    if (g_opt.no_verify && !r->has_checksum) fprintf(f, ", \"verified\": false");
    if (r->has_checksum) {
        fprintf(f, ", \"checksum\": [");
        json_num(f, r->checksum[0]);
        fprintf(f, ", ");
        json_num(f, r->checksum[1]);
        fprintf(f, "]");
    }
    fprintf(f, ", \"inputs\": [");
    for (int i = 0; i < r->ninputs; i++) {
        const bench_input *in = &r->inputs[i];
        fprintf(f, "%s{\"dtype\": \"%s\", \"shape\": [", i ? ", " : "", nd_dtype_name(in->dtype));
        for (int k = 0; k < in->ndim; k++) fprintf(f, "%s%lld", k ? ", " : "", (long long)in->shape[k]);
        fprintf(f, "], \"view\": \"%s\", \"seed\": %llu, \"lo\": %.17g, \"hi\": %.17g}", view_name(in->view),
                (unsigned long long)in->seed, in->lo, in->hi);
    }
    fprintf(f, "], \"call\": %s", r->call[0] ? r->call : "null");
    if (r->extra[0]) fprintf(f, ", %s", r->extra);
    fprintf(f, "}\n");
    fflush(f);
}

/* ------------------------------------------------------------------ */
/* The D2D copy ceiling                                                */
/* ------------------------------------------------------------------ */
static double g_d2d_gbps;   /* GB/s of the copy ceiling on cuda:0 (0: not measured) */
static bool g_d2d_tried;

void bench_extra_append(bench_record *r, const char *fmt, ...)
{
    size_t len = strlen(r->extra);
    if (len && len + 2 < sizeof r->extra) {
        memcpy(r->extra + len, ", ", 3);
        len += 2;
    }
    if (len >= sizeof r->extra) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->extra + len, sizeof r->extra - len, fmt, ap);
    va_end(ap);
}

static void d2d_key(char *key, size_t cap, nd_device dev)
{
    snprintf(key, cap, "d2d_copy/float32/%d/raw/%s", BENCH_D2D_N, bench_dev_name(dev));
}

void bench_add_d2d_case(nd_device dev)
{
    if (dev.type != ND_DEVICE_CUDA) return;
    bench_case c;
    memset(&c, 0, sizeof c);
    c.kind = BENCH_KIND_D2D, c.dtype = ND_FLOAT32, c.dev = dev, c.p[0] = BENCH_D2D_N;
    d2d_key(c.key, sizeof c.key, dev);
    bench_add_case(&c);
}

typedef struct d2d_call {
    void *dst;
    const void *src;
    size_t nbytes;
} d2d_call;

static int d2d_run(void *p)
{
#ifdef ND_WITH_CUDA
    d2d_call *c = p;
    return cudaMemcpyAsync(c->dst, c->src, c->nbytes, cudaMemcpyDeviceToDevice, 0) == cudaSuccess ? ND_OK
                                                                                                : ND_ERR_BACKEND;
#else
    (void)p;
    return ND_ERR_UNSUPPORTED;
#endif
}

void bench_run_d2d_case(const bench_case *c, const char *bench)
{
    g_d2d_tried = true;
    bench_record r;
    bench_record_init(&r, bench, c);
    snprintf(r.op, sizeof r.op, "d2d_copy");
    snprintf(r.dtype, sizeof r.dtype, "float32");
    snprintf(r.shape, sizeof r.shape, "%d", BENCH_D2D_N);
    snprintf(r.layout, sizeof r.layout, "raw");
    snprintf(r.note, sizeof r.note, "(ceiling: cudaMemcpyAsync D2D)");
    snprintf(r.extra, sizeof r.extra, "\"ceiling\": true");
    const int64_t n = BENCH_D2D_N;
    size_t nbytes = (size_t)n * 4;
    r.bytes = 2.0 * (double)nbytes;
    bench_input in;
    memset(&in, 0, sizeof in);
    in.dtype = ND_FLOAT32, in.ndim = 1, in.shape[0] = n, in.seed = 71, in.lo = 0.5, in.hi = 1.5;
    nd_array *src = NULL, *dst = NULL;
    void *h1 = NULL, *h2 = NULL;
    int s = bench_input_make(&in, c->dev, &src, NULL);
    if (s != ND_OK) bench_fail_nd(&r, "creating the source", s);
    if (s == ND_OK && (s = nd_zeros(&dst, ND_FLOAT32, 1, &n, c->dev)) != ND_OK) bench_fail_nd(&r, "nd_zeros", s);
    d2d_call call = {dst ? nd_data(dst) : NULL, src ? nd_data(src) : NULL, nbytes};
    if (s == ND_OK && ((s = nd_synchronize(c->dev)) != ND_OK || (s = d2d_run(&call)) != ND_OK ||
                       (s = nd_synchronize(c->dev)) != ND_OK))
        bench_fail_nd(&r, "cudaMemcpyAsync", s);
    if (s == ND_OK) { /* check once: the bytes arrived */
        h1 = malloc(nbytes), h2 = malloc(nbytes);
        if (!h1 || !h2) {
            r.status = BS_ERROR;
            snprintf(r.message, sizeof r.message, "out of host memory");
        } else if ((s = nd_copy_to_host(h1, src, nbytes)) != ND_OK || (s = nd_copy_to_host(h2, dst, nbytes)) != ND_OK) {
            bench_fail_nd(&r, "nd_copy_to_host", s);
        } else if (memcmp(h1, h2, nbytes) != 0) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "the copied bytes differ from the source");
        }
    }
    free(h1), free(h2);
    if (r.status == BS_OK && (s = bench_measure(d2d_run, &call, c->dev, &r.st)) != ND_OK)
        bench_fail_nd(&r, "cudaMemcpyAsync", s);
    if (r.status == BS_OK && r.st.median > 0) g_d2d_gbps = r.bytes / r.st.median * 1e-9;
    bench_emit(&r);
    nd_release(src), nd_release(dst);
}

void bench_note_copy_fraction(bench_record *r, nd_device dev, const char *bench)
{
    if (dev.type != ND_DEVICE_CUDA || r->status != BS_OK || !(r->st.median > 0) || r->bytes < BENCH_D2D_MIN_BYTES)
        return;
    if (!g_d2d_tried) {
        bench_case c;
        memset(&c, 0, sizeof c);
        c.kind = BENCH_KIND_D2D, c.dtype = ND_FLOAT32, c.dev = dev, c.p[0] = BENCH_D2D_N;
        d2d_key(c.key, sizeof c.key, dev);
        fprintf(stderr, "[%s] measuring the copy ceiling first: %s\n", g_name, c.key);
        bench_run_d2d_case(&c, bench);
    }
    if (!(g_d2d_gbps > 0)) return;
    double frac = r->bytes / r->st.median * 1e-9 / g_d2d_gbps;
    bench_extra_append(r, "\"fraction_of_copy\": %.4g, \"copy_gbps\": %.6g", frac, g_d2d_gbps);
    size_t len = strlen(r->note);
    snprintf(r->note + len, sizeof r->note - len, "%s(%.0f%% of D2D copy)", len ? " " : "", 100 * frac);
}

/* ------------------------------------------------------------------ */
/* The CPU's bandwidth ceiling (STREAM triad and copy)                 */
/* ------------------------------------------------------------------ */
static double g_triad_gbps; /* GB/s of the triad (0: not measured) */
static bool g_triad_tried;

void bench_add_triad_case(nd_device dev)
{
    if (dev.type != ND_DEVICE_CPU) return;
    bench_case c;
    memset(&c, 0, sizeof c);
    c.kind = BENCH_KIND_TRIAD, c.dtype = ND_FLOAT64, c.dev = dev, c.p[0] = BENCH_STREAM_N;
    snprintf(c.key, sizeof c.key, "triad/float64/%d/raw/%s", BENCH_STREAM_N, bench_dev_name(dev));
    bench_add_case(&c);
}

typedef struct st_call {
    double *a, *b, *c, s;
    int64_t n;
    bool triad;
} st_call;

static int st_run(void *p)
{
    st_call *c = p;
    double *restrict a = c->a;
    const double *restrict b = c->b, *restrict cc = c->c;
    const double s = c->s;
    const int64_t n = c->n;
    if (c->triad) {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) a[i] = b[i] + s * cc[i];
    } else {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) a[i] = b[i];
    }
    return 0;
}

/* The triad or the copy over fresh buffers (first touch with the same
 * threads and schedule as the kernel), checked once, then timed into *st;
 * *bytes gets the bytes one call counts. BS_OK or the failure (message in
 * msg). */
static int stream_measure(bool triad, nd_device dev, bench_stats *st, double *bytes, char *msg, size_t msglen)
{
    st_call call = {.n = BENCH_STREAM_N, .s = 3.0, .triad = triad};
    size_t nb = (size_t)BENCH_STREAM_N * sizeof(double);
    int status = BS_OK;
    call.a = malloc(nb), call.b = malloc(nb), call.c = malloc(nb);
    if (!call.a || !call.b || !call.c) {
        status = BS_ERROR;
        snprintf(msg, msglen, "out of host memory");
    } else {
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < BENCH_STREAM_N; i++) {
            call.a[i] = 0;
            call.b[i] = 0.5 + bench_u01(51, (uint64_t)i);
            call.c[i] = 0.5 + bench_u01(52, (uint64_t)i);
        }
        st_run(&call);
        for (int64_t i = 0; i < BENCH_STREAM_N; i++) {
            double e = triad ? call.b[i] + 3.0 * call.c[i] : call.b[i];
            if (call.a[i] != e) {
                status = BS_WRONG;
                snprintf(msg, msglen, "element %lld is %g, expected %g", (long long)i, call.a[i], e);
                break;
            }
        }
        *bytes = (triad ? 3.0 : 2.0) * (double)nb;
        if (status == BS_OK) bench_measure(st_run, &call, dev, st);
    }
    free(call.a), free(call.b), free(call.c);
    return status;
}

void bench_run_stream_case(const bench_case *c, const char *bench, bool triad)
{
    if (triad) g_triad_tried = true;
    bench_record r;
    bench_record_init(&r, bench, c);
    snprintf(r.op, sizeof r.op, "%s", triad ? "triad" : "stream_copy");
    snprintf(r.layout, sizeof r.layout, "raw");
    snprintf(r.dtype, sizeof r.dtype, "float64");
    snprintf(r.shape, sizeof r.shape, "%d", BENCH_STREAM_N);
    snprintf(r.note, sizeof r.note, "(ceiling, %d threads)", g_opt.threads);
    snprintf(r.extra, sizeof r.extra, "\"ceiling\": true");
    r.status = stream_measure(triad, c->dev, &r.st, &r.bytes, r.message, sizeof r.message);
    if (triad && r.status == BS_OK && r.st.median > 0) g_triad_gbps = r.bytes / r.st.median * 1e-9;
    bench_emit(&r);
}

void bench_note_triad_fraction(bench_record *r, nd_device dev, const char *bench)
{
    if (dev.type != ND_DEVICE_CPU || r->status != BS_OK || !(r->st.median > 0)) return;
    if (!g_triad_tried) {
        bench_case c;
        memset(&c, 0, sizeof c);
        c.kind = BENCH_KIND_TRIAD, c.dtype = ND_FLOAT64, c.dev = dev, c.p[0] = BENCH_STREAM_N;
        snprintf(c.key, sizeof c.key, "triad/float64/%d/raw/%s", BENCH_STREAM_N, bench_dev_name(dev));
        fprintf(stderr, "[%s] measuring the triad ceiling first: %s\n", g_name, c.key);
        bench_run_stream_case(&c, bench, true);
    }
    if (!(g_triad_gbps > 0)) return;
    double frac = r->bytes / r->st.median * 1e-9 / g_triad_gbps;
    bench_extra_append(r, "\"fraction_of_triad\": %.4g", frac);
    size_t len = strlen(r->note);
    snprintf(r->note + len, sizeof r->note - len, "%s(%.0f%% of triad)", len ? " " : "", 100 * frac);
}

void bench_note_triad_fraction_adjacent(bench_record *r, nd_device dev, const char *bench)
{
    if (dev.type != ND_DEVICE_CPU || r->status != BS_OK || !(r->st.median > 0)) return;
    bench_stats st;
    double bytes = 0;
    char msg[160];
    memset(&st, 0, sizeof st);
    if (stream_measure(true, dev, &st, &bytes, msg, sizeof msg) != BS_OK || !(st.median > 0)) {
        bench_note_triad_fraction(r, dev, bench); /* the run's first triad */
        return;
    }
    double gbps = bytes / st.median * 1e-9;
    double frac = r->bytes / r->st.median * 1e-9 / gbps;
    bench_extra_append(r, "\"fraction_of_triad\": %.4g, \"triad_gbps\": %.6g", frac, gbps);
    size_t len = strlen(r->note);
    snprintf(r->note + len, sizeof r->note - len, "%s(%.0f%% of triad at %.1f GB/s)", len ? " " : "", 100 * frac,
             gbps);
}
