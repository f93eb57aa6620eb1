/* The FFT module (src/fft/fft.c, src/fft/fft_nd.c and both backends'
 * fft slots): nd_fft, nd_ifft, nd_rfft, nd_irfft, nd_hfft, nd_ihfft, the
 * n-D and 2-D forms, nd_fftfreq, nd_rfftfreq, nd_fftshift, nd_ifftshift.
 *
 * References are computed here, independently of the library: a direct
 * DFT in long double (twiddles from cosl/sinl of 2 pi ((j k) mod n) / n)
 * over the input's values as the array holds them (read back), applied
 * axis by axis in NumPy's order (numpy/fft/_pocketfft.py: fftn from the
 * last axis to the first, rfftn rfft on the last axis first, irfftn
 * irfft on the last axis last), with NumPy's definitions of the real
 * transforms (irfft: the Hermitian extension, imaginary parts of X[0] and
 * of X[n/2] ignored; hfft(a, n) = irfft(conj(a), n) with the norm's
 * direction swapped; ihfft(a, n) = conj(rfft(a, n)) likewise) and of the
 * norms (backward: the inverse scaled 1/n; ortho: 1/sqrt(n) both ways;
 * forward: the forward scaled 1/n).
 *
 * Error bound: |y - y_ref| <= C eps log2(2N) rms(x) sqrt(N) |scale| + 2
 * eps_res |y_ref|, C = 8, eps the unit roundoff of the transform's
 * precision (2^-24 for complex64, 2^-53 for complex128), N the product of
 * the transform lengths, rms(x) over the input's values, scale the
 * product of the steps' norm factors, eps_res the result dtype's (a
 * float16 irfft result is rounded once more).
 *
 * Coverage, on nd_cpu() and on cuda:0 when nd_test_gpu_count() > 0 (the
 * emulated device in `make emu-test`): every 1-D function x norm x length
 * (1, 2, 3, 5, 8, 17, 100, 101, 128, 1009); axes first, last, negative and
 * the middle of a 3-D array x layouts (contiguous, transposed, stepped
 * slice, stride-0 broadcast) x outs (none, a NaN-poisoned contiguous out,
 * a poisoned transposed view, a wider dtype); dtypes float32, float64,
 * complex64, complex128, int32 (-> complex128), float16 (-> complex64),
 * bfloat16, bool, int8, uint16 with the result dtypes of NumPy 2; crop and
 * pad by n and s; irfft's default n; the n-D functions with default,
 * explicit, negative, repeated axes and s (crop, pad, -1); round trips;
 * Parseval; hfft/ihfft against NumPy's definitions and known values;
 * fftfreq/rfftfreq exact values; fftshift/ifftshift; zero-size batches;
 * out exactly the input; errors with exact status codes and messages;
 * every function with the N-th allocation failing. This file holds the
 * transforms against the reference; tests/test_fft_misc.c the rest;
 * tests/fft_util.h the shared pieces. */
#include "fft_util.h"

/* ------------------------------------------------------------------ */
/* The 1-D functions                                                   */
/* ------------------------------------------------------------------ */
typedef enum { W_FFT, W_IFFT, W_RFFT, W_IRFFT, W_HFFT, W_IHFFT, W_N } W;
static const char *wname[W_N] = {"fft", "ifft", "rfft", "irfft", "hfft", "ihfft"};
static const nd_fft_norm NORMS[3] = {ND_FFT_BACKWARD, ND_FFT_ORTHO, ND_FFT_FORWARD};

static nd_status call1(W w, nd_array **o, const nd_array *a, int64_t n, int ax, nd_fft_norm nm)
{
    switch (w) {
    case W_FFT: return nd_fft(o, a, n, ax, nm);
    case W_IFFT: return nd_ifft(o, a, n, ax, nm);
    case W_RFFT: return nd_rfft(o, a, n, ax, nm);
    case W_IRFFT: return nd_irfft(o, a, n, ax, nm);
    case W_HFFT: return nd_hfft(o, a, n, ax, nm);
    default: return nd_ihfft(o, a, n, ax, nm);
    }
}

/* The kind, sign and scale of function w with length n under norm nm,
 * from NumPy's definitions (hfft/ihfft: the direction swapped). */
static void def1(W w, int64_t n, nd_fft_norm nm, int *kind, int *sign, long double *scale)
{
    *kind = w == W_FFT || w == W_IFFT ? K_C2C : w == W_RFFT || w == W_IHFFT ? K_R2C : K_C2R;
    *sign = w == W_FFT || w == W_RFFT || w == W_HFFT ? -1 : 1;
    const bool backward_dir = w == W_IFFT || w == W_IRFFT || w == W_IHFFT; /* scaled under "backward" */
    if (nm == ND_FFT_ORTHO) *scale = 1.0L / sqrtl((long double)n);
    else if (nm == ND_FFT_BACKWARD) *scale = backward_dir ? 1.0L / n : 1.0L;
    else *scale = backward_dir ? 1.0L : 1.0L / n;
}

/* NumPy 2's result dtype of function w on input dtype t. */
static nd_dtype res_dtype1(W w, nd_dtype t)
{
    const nd_dtype c = prec_of(t);
    if (w == W_IRFFT || w == W_HFFT) return t == ND_FLOAT16 || t == ND_BFLOAT16 ? t : c == ND_COMPLEX64 ? ND_FLOAT32 : ND_FLOAT64;
    return c;
}

enum { O_NONE, O_FRESH, O_TVIEW, O_WIDE, O_N };
static const char *oname[O_N] = {"no out", "poisoned out", "poisoned transposed out", "wider out"};


/* One case: function w on an array of dtype t, shape, layout l, along
 * axis with length n (-1: the default), norm nm, out mode om. */
static void case1(nd_device dev, W w, nd_dtype t, int nd, const int64_t *shape, int l, int axis, int64_t n,
                  nd_fft_norm nm, int om)
{
    char what[320];
    char sb[64] = "";
    for (int i = 0, k = 0; i < nd; i++) k += snprintf(sb + k, sizeof sb - (size_t)k, "%s%lld", i ? "x" : "", (long long)shape[i]);
    snprintf(what, sizeof what, "%s %s %s %s axis %d n %lld norm %d %s on %s", wname[w], nd_dtype_name(t), sb, lname[l],
             axis, (long long)n, (int)nm, oname[om], dname(dev));
    nd_array *a = make(dev, t, nd, shape, l);
    lbuf x = vals(a);
    const int ax = axis < 0 ? axis + nd : axis;
    const int64_t m = shape[ax];
    int kind, sign;
    long double scale;
    const int64_t ne = n != -1 ? n : (w == W_IRFFT || w == W_HFFT) ? 2 * (m - 1) : m;
    def1(w, ne, nm, &kind, &sign, &scale);
    ref_kstep = ne > 5000 ? 97 : 1; /* long transforms: a sample of the outputs */
    lbuf y = ref_step(&x, ax, ne, kind, sign, scale);
    ref_kstep = 1;
    const nd_dtype rt = res_dtype1(w, t), prec = prec_of(t);
    nd_array *o = NULL;
    if (om == O_FRESH || om == O_TVIEW) o = poisoned(dev, rt, y.nd, y.shape, om == O_TVIEW);
    if (om == O_WIDE) o = poisoned(dev, wider(rt), y.nd, y.shape, false);
    nd_array *given = o;
    nd_status st = call1(w, &o, a, n, axis, nm);
    ck_assert_msg(st == ND_OK, "%s: %s: %s", what, nd_status_name(st), nd_last_error());
    if (given) ck_assert_ptr_eq(o, given);
    else ck_assert_msg(nd_dtype_of(o) == rt, "%s: result dtype %s, want %s", what, nd_dtype_name(nd_dtype_of(o)), nd_dtype_name(rt));
    ck_assert_msg(nd_device_of(o).type == dev.type, "%s: result on another device", what);
    check_vals(what, o, &y, rms(&x), (long double)ne, scale, prec, om == O_NONE ? rt : nd_dtype_of(o));
    nd_release(o);
    nd_release(a);
    free(x.v);
    free(y.v);
}

static const int64_t LENS[10] = {1, 2, 3, 5, 8, 17, 100, 101, 128, 1009};

/* Every 1-D function x norm x length, 1-D input (a batch of 2 rows up to
 * length 128), dtypes rotating over what the function takes. */
static void run_lengths(nd_device dev)
{
    static const nd_dtype any[6] = {ND_COMPLEX128, ND_COMPLEX64, ND_FLOAT64, ND_FLOAT32, ND_INT32, ND_FLOAT16};
    static const nd_dtype real[4] = {ND_FLOAT64, ND_FLOAT32, ND_INT32, ND_FLOAT16};
    int c = 0;
    for (int w = 0; w < W_N; w++)
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 10; i++, c++) {
                const int64_t n = LENS[i];
                const bool r2c = w == W_RFFT || w == W_IHFFT, c2r = w == W_IRFFT || w == W_HFFT;
                const nd_dtype t = r2c ? real[c % 4] : any[c % 6];
                const int64_t m = c2r ? n / 2 + 1 : n;
                /* c2r: the default n gives 2 (m - 1) = n for even n only */
                const int64_t narg = c2r && n % 2 ? n : (c % 2 ? -1 : n);
                if (n <= 128) case1(dev, (W)w, t, 2, (const int64_t[]){2, m}, L_CONTIG, -1, narg, NORMS[k], O_NONE);
                else case1(dev, (W)w, t, 1, &m, L_CONTIG, 0, narg, NORMS[k], c % 3 == 0 ? O_FRESH : O_NONE);
            }
}

/* Axes (first, last, negative, middle) x layouts x outs on a 3-D array. */
static void run_axes_layouts(nd_device dev)
{
    static const int64_t shape[3] = {5, 6, 7};
    static const int axes[4] = {0, 2, -1, 1};
    static const nd_dtype dts[5] = {ND_COMPLEX64, ND_FLOAT64, ND_COMPLEX128, ND_FLOAT32, ND_INT32};
    int c = 0;
    for (int w = 0; w < W_N; w++)
        for (int a = 0; a < 4; a++)
            for (int l = 0; l < L_N; l++, c++) {
                nd_dtype t = dts[c % 5];
                if ((w == W_RFFT || w == W_IHFFT) && is_cpx(t)) t = t == ND_COMPLEX64 ? ND_FLOAT32 : ND_FLOAT64;
                const int ax = axes[a] < 0 ? axes[a] + 3 : axes[a];
                /* c2r: an odd n (7 or 5 from extents 4 / 3) with the input as it comes */
                const int64_t n = (w == W_IRFFT || w == W_HFFT) ? 2 * (shape[ax] - 1) - (c % 2) : -1;
                case1(dev, (W)w, t, 3, shape, l, axes[a], n, NORMS[c % 3], c % O_N);
            }
}

/* dtypes and NumPy 2's result dtypes. */
static void run_dtypes(nd_device dev)
{
    static const nd_dtype dts[10] = {ND_FLOAT32, ND_FLOAT64,  ND_COMPLEX64, ND_COMPLEX128, ND_INT32,
                                     ND_FLOAT16, ND_BFLOAT16, ND_BOOL,      ND_INT8,       ND_UINT16};
    for (int i = 0; i < 10; i++)
        for (int w = 0; w < W_N; w++) {
            if ((w == W_RFFT || w == W_IHFFT) && is_cpx(dts[i])) continue;
            case1(dev, (W)w, dts[i], 2, (const int64_t[]){3, 9}, L_CONTIG, 1, w == W_IRFFT || w == W_HFFT ? 16 : -1,
                  ND_FFT_BACKWARD, O_NONE);
        }
}

/* Crop and pad by n; irfft's default n; large transforms (four-step and
 * Bluestein paths, threaded batches). */
static void run_crop_pad(nd_device dev)
{
    static const int64_t ns[6] = {1, 4, 9, 12, 16, 31};
    for (int w = 0; w < W_N; w++)
        for (int i = 0; i < 6; i++) {
            const bool real = w == W_RFFT || w == W_IHFFT;
            case1(dev, (W)w, real ? ND_FLOAT64 : ND_COMPLEX128, 2, (const int64_t[]){3, 10}, i % 2 ? L_TRANS : L_CONTIG, 1,
                  ns[i], NORMS[i % 3], i % 2 ? O_FRESH : O_NONE);
        }
    /* irfft / hfft default n = 2 (m - 1) for odd and even m */
    for (int64_t m = 2; m <= 6; m++) {
        case1(dev, W_IRFFT, ND_COMPLEX128, 1, &m, L_CONTIG, 0, -1, ND_FFT_BACKWARD, O_NONE);
        case1(dev, W_HFFT, ND_COMPLEX64, 1, &m, L_CONTIG, 0, -1, ND_FFT_BACKWARD, O_NONE);
    }
    /* long transforms: a power of two, a smooth length, a large prime */
    case1(dev, W_FFT, ND_COMPLEX64, 1, (const int64_t[]){65536}, L_CONTIG, 0, -1, ND_FFT_BACKWARD, O_NONE);
    case1(dev, W_IFFT, ND_COMPLEX128, 1, (const int64_t[]){6000}, L_CONTIG, 0, -1, ND_FFT_ORTHO, O_NONE);
    case1(dev, W_RFFT, ND_FLOAT32, 1, (const int64_t[]){4099}, L_CONTIG, 0, -1, ND_FFT_BACKWARD, O_NONE);
    /* many rows, and columns of a wide array */
    case1(dev, W_FFT, ND_COMPLEX64, 2, (const int64_t[]){300, 64}, L_CONTIG, 1, -1, ND_FFT_BACKWARD, O_NONE);
    case1(dev, W_FFT, ND_COMPLEX64, 2, (const int64_t[]){64, 300}, L_CONTIG, 0, -1, ND_FFT_FORWARD, O_NONE);
}

/* ------------------------------------------------------------------ */
/* The n-D functions                                                   */
/* ------------------------------------------------------------------ */
typedef enum { N_FFTN, N_IFFTN, N_RFFTN, N_IRFFTN, N_FFT2, N_IFFT2, N_RFFT2, N_IRFFT2, N_N } NW;
static const char *nwname[N_N] = {"fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"};

static nd_status calln(NW w, nd_array **o, const nd_array *a, int naxes, const int64_t *s, const int *axes,
                       nd_fft_norm nm)
{
    switch (w) {
    case N_FFTN: return nd_fftn(o, a, naxes, s, axes, nm);
    case N_IFFTN: return nd_ifftn(o, a, naxes, s, axes, nm);
    case N_RFFTN: return nd_rfftn(o, a, naxes, s, axes, nm);
    case N_IRFFTN: return nd_irfftn(o, a, naxes, s, axes, nm);
    case N_FFT2: return nd_fft2(o, a, s, axes, nm);
    case N_IFFT2: return nd_ifft2(o, a, s, axes, nm);
    case N_RFFT2: return nd_rfft2(o, a, s, axes, nm);
    default: return nd_irfft2(o, a, s, axes, nm);
    }
}

/* One n-D case; naxes as passed (-1: every axis; the 2-D forms: ignored). */
static void casen(nd_device dev, NW w, nd_dtype t, int nd, const int64_t *shape, int l, int naxes, const int64_t *s,
                  const int *axes, nd_fft_norm nm, int om)
{
    char what[256];
    snprintf(what, sizeof what, "%s %s %dd %s naxes %d s %s axes %s norm %d %s on %s", nwname[w], nd_dtype_name(t), nd,
             lname[l], naxes, s ? "given" : "NULL", axes ? "given" : "NULL", (int)nm, oname[om], dname(dev));
    const bool two = w >= N_FFT2;
    const NW base = two ? (NW)(w - N_FFT2) : w;
    int na = two ? 2 : naxes == -1 ? nd : naxes;
    int ax[16];
    int64_t len[16];
    for (int i = 0; i < na; i++) {
        int v = axes ? axes[i] : i - na;
        ax[i] = v < 0 ? v + nd : v;
    }
    nd_array *a = make(dev, t, nd, shape, l);
    lbuf x = vals(a);
    for (int i = 0; i < na; i++) {
        len[i] = s && s[i] != -1 ? s[i] : shape[ax[i]];
        if (!s && base == N_IRFFTN && i == na - 1) len[i] = 2 * (shape[ax[i]] - 1);
    }
    /* NumPy's order of the steps */
    int sa[16], sk[16], ss[16];
    int64_t sn[16];
    int ns = 0;
    const int sg = base == N_IFFTN || base == N_IRFFTN ? 1 : -1;
    if (base == N_RFFTN) sa[ns] = ax[na - 1], sn[ns] = len[na - 1], sk[ns] = K_R2C, ss[ns++] = -1;
    if (base == N_IRFFTN)
        for (int i = 0; i < na - 1; i++) sa[ns] = ax[i], sn[ns] = len[i], sk[ns] = K_C2C, ss[ns++] = 1;
    else
        for (int i = na - 1 - (base == N_RFFTN); i >= 0; i--) sa[ns] = ax[i], sn[ns] = len[i], sk[ns] = K_C2C, ss[ns++] = sg;
    if (base == N_IRFFTN) sa[ns] = ax[na - 1], sn[ns] = len[na - 1], sk[ns] = K_C2R, ss[ns++] = 1;
    lbuf y = x;
    y.v = malloc(sizeof(lc) * (size_t)(x.size ? x.size : 1));
    memcpy(y.v, x.v, sizeof(lc) * (size_t)x.size);
    long double scale = 1, N = 1;
    for (int k = 0; k < ns; k++) {
        const bool inv = base == N_IFFTN || base == N_IRFFTN;
        long double f = nm == ND_FFT_ORTHO ? 1.0L / sqrtl((long double)sn[k])
                        : (nm == ND_FFT_BACKWARD) == inv ? 1.0L / sn[k] : 1.0L;
        lbuf z = ref_step(&y, sa[k], sn[k], sk[k], ss[k], f);
        free(y.v);
        y = z;
        scale *= f;
        N *= sn[k];
    }
    const nd_dtype prec = prec_of(t);
    /* irfftn: NumPy 2.4's c2c steps first turn a half input into complex64,
     * so only a one-axis irfftn (irfft itself) keeps float16/bfloat16 */
    const bool half_kept = (t == ND_FLOAT16 || t == ND_BFLOAT16) && ns == 1;
    const nd_dtype rt = base == N_IRFFTN ? (half_kept ? t : prec == ND_COMPLEX64 ? ND_FLOAT32 : ND_FLOAT64) : prec;
    nd_array *o = NULL;
    if (om == O_FRESH || om == O_TVIEW) o = poisoned(dev, rt, y.nd, y.shape, om == O_TVIEW);
    if (om == O_WIDE) o = poisoned(dev, wider(rt), y.nd, y.shape, false);
    nd_array *given = o;
    nd_status st = calln(w, &o, a, naxes, s, axes, nm);
    ck_assert_msg(st == ND_OK, "%s: %s: %s", what, nd_status_name(st), nd_last_error());
    if (given) ck_assert_ptr_eq(o, given);
    else ck_assert_msg(nd_dtype_of(o) == rt, "%s: dtype %s, want %s", what, nd_dtype_name(nd_dtype_of(o)), nd_dtype_name(rt));
    check_vals(what, o, &y, rms(&x), N, scale, prec, om == O_NONE ? rt : nd_dtype_of(o));
    nd_release(o);
    nd_release(a);
    free(x.v);
    free(y.v);
}

static void run_nd(nd_device dev)
{
    static const int64_t s3[3] = {4, 5, 6}, s2[2] = {6, 9};
    for (int w = 0; w < N_N; w++) {
        const bool real_in = w == N_RFFTN || w == N_RFFT2;
        const nd_dtype t = real_in ? ND_FLOAT32 : (w % 2 ? ND_COMPLEX128 : ND_COMPLEX64);
        const bool two = w >= N_FFT2;
        for (int k = 0; k < 3; k++) {
            /* defaults: every axis (naxes -1) or the last two */
            casen(dev, (NW)w, t, two ? 2 : 3, two ? s2 : s3, L_CONTIG, -1, NULL, NULL, NORMS[k], O_NONE);
            /* transposed input, explicit axes (negative too), a poisoned out */
            casen(dev, (NW)w, t, 3, s3, L_TRANS, 2, NULL, (const int[]){-1, 0}, NORMS[k], k == 0 ? O_FRESH : O_TVIEW);
        }
        /* s: crop, pad and -1 (the input's extent) */
        casen(dev, (NW)w, t, 3, s3, L_CONTIG, 2, (const int64_t[]){3, 8}, (const int[]){0, 2}, ND_FFT_BACKWARD, O_NONE);
        casen(dev, (NW)w, t, 3, s3, L_STEP, 2, (const int64_t[]){-1, 7}, (const int[]){1, 2}, ND_FFT_ORTHO, O_NONE);
        casen(dev, (NW)w, t, 2, s2, L_BCAST, 2, (const int64_t[]){9, 4}, NULL, ND_FFT_FORWARD, O_FRESH);
        /* one axis, and a middle axis alone */
        if (!two) casen(dev, (NW)w, t, 3, s3, L_CONTIG, 1, NULL, (const int[]){1}, ND_FFT_BACKWARD, O_NONE);
    }
    /* a repeated axis: transformed twice, the last length first (NumPy) */
    casen(dev, N_FFTN, ND_COMPLEX128, 2, s2, L_CONTIG, 2, (const int64_t[]){4, 12}, (const int[]){0, 0},
          ND_FFT_BACKWARD, O_NONE);
    casen(dev, N_IFFTN, ND_COMPLEX64, 3, s3, L_CONTIG, 3, NULL, (const int[]){2, 0, 2}, ND_FFT_ORTHO, O_NONE);
    /* every dtype family through fftn and irfftn */
    casen(dev, N_FFTN, ND_INT32, 2, s2, L_CONTIG, -1, NULL, NULL, ND_FFT_BACKWARD, O_NONE);
    casen(dev, N_FFTN, ND_FLOAT16, 2, s2, L_CONTIG, -1, NULL, NULL, ND_FFT_BACKWARD, O_NONE);
    casen(dev, N_IRFFTN, ND_FLOAT16, 2, s2, L_CONTIG, -1, NULL, NULL, ND_FFT_BACKWARD, O_NONE);
    casen(dev, N_IRFFT2, ND_BFLOAT16, 2, s2, L_CONTIG, 2, NULL, NULL, ND_FFT_BACKWARD, O_NONE);
    casen(dev, N_IRFFTN, ND_FLOAT16, 2, s2, L_CONTIG, 1, NULL, NULL, ND_FFT_BACKWARD, O_NONE);
    casen(dev, N_RFFTN, ND_UINT16, 2, s2, L_CONTIG, -1, NULL, NULL, ND_FFT_BACKWARD, O_NONE);
    /* a 2-D transform larger than the CPU engine's lane blocks */
    casen(dev, N_FFT2, ND_COMPLEX64, 2, (const int64_t[]){96, 130}, L_CONTIG, 2, NULL, NULL, ND_FFT_BACKWARD, O_NONE);
}

/* ------------------------------------------------------------------ */
#define DEV_TESTS(name, fn)                                   \
    START_TEST(name##_cpu) { fn(nd_cpu()); }                  \
    END_TEST                                                  \
    START_TEST(name##_cuda) { fn(cuda0()); }                  \
    END_TEST

DEV_TESTS(lengths, run_lengths)
DEV_TESTS(axes_layouts, run_axes_layouts)
DEV_TESTS(dtypes, run_dtypes)
DEV_TESTS(crop_pad, run_crop_pad)
DEV_TESTS(ndim, run_nd)

Suite *suite_fft(void);
Suite *suite_fft(void)
{
    Suite *s = suite_create("fft");
    TCase *tc = tcase_create("fft");
    tcase_set_timeout(tc, 600);
#define ADD(name)                                                     \
    tcase_add_test(tc, name##_cpu);                                   \
    if (nd_test_gpu_count() > 0) tcase_add_test(tc, name##_cuda);
    ADD(lengths)
    ADD(axes_layouts)
    ADD(dtypes)
    ADD(crop_pad)
    ADD(ndim)
#undef ADD
    fft_misc_add(tc);
    suite_add_tcase(s, tc);
    return s;
}
