/* train_mlp_amp.c - train in less memory: a two-layer MLP classifier
 * trained three ways in one run - float32, mixed precision, and mixed
 * precision with gradient accumulation - with the peak memory, the time
 * per step, the final loss and accuracy of each, the memory saving, and a
 * batch-size sweep under a memory limit ("raise the batch size and watch
 * memory").
 *
 *   build/examples/train_mlp_amp                 validate on the CPU first (a
 *                                                short float32 run on both
 *                                                devices, compared), then the
 *                                                three runs on the GPU; without
 *                                                a GPU the three runs on the CPU
 *   build/examples/train_mlp_amp --device cpu    the three runs on the CPU
 *   build/examples/train_mlp_amp --device cuda   the three runs on cuda:0
 *   options: --steps N, --batch N, --hidden N, --lr X, --half float16|bfloat16,
 *            --small (the sizes `make test` uses: a few seconds)
 *
 * Data: Gaussian blobs - K = 10 class centres ~ N(0, 0.5^2) in D
 * dimensions, each sample its class's centre plus N(0, 1) noise - drawn
 * with the library's Philox generator on the CPU (the same numbers for
 * every device) and moved to the device once.
 * Model: logits = relu(X W1 + b1) W2 + b2, loss = nd_cross_entropy(logits,
 * labels) (mean); the backward pass by hand: dlogits = (softmax(logits) -
 * onehot) / batch, dW2 = h^T dlogits, dh = (dlogits W2^T) * sign(h) (h >= 0
 * after the relu), dW1 = X^T dh; plain SGD on float32 master weights.
 * Mixed precision (torch.amp's recipe): each step casts the float32 master
 * weights and the batch to the half dtype, runs forward and backward in it
 * (nd_softmax / nd_cross_entropy accumulate in float32), and accumulates
 * the weight gradients straight into float32 (nd_gemm with a float32 c
 * from half operands: never rounded to half), which update the float32
 * masters. The half dtype is bfloat16 on the CPU (float32's range: no
 * scaling needed) and float16 on a GPU, where gradients of a 2048-sample
 * mean underflow float16 without dynamic loss scaling (nd_grad_scaler:
 * scale the loss gradient, unscale the float32 gradients with one fused
 * inf/NaN check, skip the step on overflow, update the scale).
 * Gradient accumulation: the same effective batch as 4 micro-batches of a
 * quarter each, gradients summed with nd_gemm(beta = 1) into float32.
 *
 * Memory: nd_memory_reset_peak before a run and nd_memory_get_stats after
 * give the device's peak ("peak MiB"); the training memory ("train MiB",
 * what the claims and the saving use) is that peak minus what was in use
 * before the run: the dataset, resident on the device in every run, and
 * on a GPU the cuBLAS workspace (32 MiB, allocated by a warm-up product
 * before the first run); so it counts the weights, gradients, half copies
 * and activations. The batch-size sweep runs one step per candidate batch
 * under nd_memory_set_limit (what is in use + 1.25x the float32 run's
 * training memory at the default batch), ND_ERR_NOMEM meaning "does not
 * fit".
 * It asserts (exit 1 otherwise) what it prints: every loss decreases, the
 * mixed runs' accuracy is within 1 point of float32's, and the mixed run's
 * peak memory is at most 0.7x float32's.
 */
// expect: train_mlp_amp: ok
// args: --small
#include <math.h>
#include <ndgpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N_CLASSES = 10 };
static int64_t N_SAMPLES = 16384, D_IN = 64, HIDDEN = 4096, BATCH = 2048;
static int STEPS = 60;
static double LR = 0.05;
#define ACCUM 4

static char g_err[512];
#define TRY(call)                                                                                       \
    do {                                                                                                \
        st = (call);                                                                                    \
        if (st != ND_OK) {                                                                              \
            if (!g_err[0]) snprintf(g_err, sizeof g_err, "%s: %s", nd_status_name(st), nd_last_error()); \
            goto done;                                                                                  \
        }                                                                                               \
    } while (0)
#define REL(x) (nd_release(x), (x) = NULL)

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *devname(nd_device d)
{
    static char buf[2][32];
    static int k;
    k ^= 1;
    snprintf(buf[k], sizeof buf[k], "%s:%d", d.type == ND_DEVICE_CUDA ? "cuda" : "cpu", d.id);
    return buf[k];
}

/* The blobs on the CPU: X (N, D) float32, y (N,) int64. */
static nd_status make_data(nd_array **X, nd_array **y)
{
    nd_status st = ND_OK;
    nd_rng *rng = NULL;
    nd_array *centres = NULL, *noise = NULL;
    TRY(nd_rng_create(&rng, 2026));
    TRY(nd_random_normal(&centres, rng, ND_FLOAT32, 2, (int64_t[]){N_CLASSES, D_IN}, 0.0, 0.5, nd_cpu()));
    TRY(nd_random_integers(y, rng, ND_INT64, 1, (int64_t[]){N_SAMPLES}, 0, N_CLASSES, nd_cpu()));
    TRY(nd_random_normal(&noise, rng, ND_FLOAT32, 2, (int64_t[]){N_SAMPLES, D_IN}, 0.0, 1.0, nd_cpu()));
    TRY(nd_take(X, centres, *y, 0, ND_TAKE_RAISE)); /* each sample's centre */
    TRY(nd_add(X, *X, noise));
done:
    nd_release(centres), nd_release(noise);
    nd_rng_destroy(rng);
    return st;
}

typedef struct params {
    nd_array *W1, *b1, *W2, *b2;
} params;

static void params_release(params *p)
{
    REL(p->W1), REL(p->b1), REL(p->W2), REL(p->b2);
}

static nd_status params_init(params *p, nd_device dev)
{
    nd_status st = ND_OK;
    nd_rng *rng = NULL;
    nd_array *w = NULL;
    memset(p, 0, sizeof *p);
    TRY(nd_rng_create(&rng, 7));
    TRY(nd_random_normal(&w, rng, ND_FLOAT32, 2, (int64_t[]){D_IN, HIDDEN}, 0.0, sqrt(2.0 / (double)D_IN), nd_cpu()));
    TRY(nd_to_device(&p->W1, w, dev));
    REL(w);
    TRY(nd_random_normal(&w, rng, ND_FLOAT32, 2, (int64_t[]){HIDDEN, N_CLASSES}, 0.0, sqrt(1.0 / (double)HIDDEN),
                         nd_cpu()));
    TRY(nd_to_device(&p->W2, w, dev));
    TRY(nd_zeros(&p->b1, ND_FLOAT32, 1, (int64_t[]){HIDDEN}, dev));
    TRY(nd_zeros(&p->b2, ND_FLOAT32, 1, (int64_t[]){N_CLASSES}, dev));
done:
    nd_release(w);
    nd_rng_destroy(rng);
    return st;
}

/* The weights in the compute dtype ct (new references when ct is float32). */
static nd_status params_cast(params *c, const params *p, nd_dtype ct)
{
    nd_status st = ND_OK;
    memset(c, 0, sizeof *c);
    TRY(nd_astype(&c->W1, p->W1, ct));
    TRY(nd_astype(&c->b1, p->b1, ct));
    TRY(nd_astype(&c->W2, p->W2, ct));
    TRY(nd_astype(&c->b2, p->b2, ct));
done:
    return st;
}

/* Scalar value of a 0-d array. */
static nd_status scalar_of(double *v, const nd_array *a)
{
    nd_array *d = NULL;
    nd_status st = nd_astype(&d, a, ND_FLOAT64);
    if (st == ND_OK) st = nd_copy_to_host(v, d, sizeof *v);
    nd_release(d);
    return st;
}

/* logits of X (any rows) with weights w in w's dtype */
static nd_status forward(nd_array **logits, nd_array **h, const nd_array *X, const params *w)
{
    nd_status st = ND_OK;
    TRY(nd_matmul(h, X, w->W1));
    TRY(nd_add(h, *h, w->b1));
    TRY(nd_binary_scalar(h, ND_BINARY_MAXIMUM, *h, nd_scalar_float(0.0))); /* relu, in place */
    TRY(nd_matmul(logits, *h, w->W2));
    TRY(nd_add(logits, *logits, w->b2));
done:
    return st;
}

/* Loss and accuracy of the float32 masters over the whole data, in chunks. */
static nd_status evaluate(double *loss, double *acc, const nd_array *X, const nd_array *y, const params *p)
{
    nd_status st = ND_OK;
    nd_array *Xb = NULL, *yb = NULL, *h = NULL, *lg = NULL, *l = NULL, *am = NULL, *hit = NULL, *nh = NULL;
    double sl = 0, sh = 0;
    const int64_t CH = 2048;
    for (int64_t r = 0; r < N_SAMPLES; r += CH) {
        nd_range rows = {r, r + CH < N_SAMPLES ? r + CH : N_SAMPLES, 1};
        TRY(nd_slice(&Xb, X, 1, &rows));
        TRY(nd_slice(&yb, y, 1, &rows));
        TRY(forward(&lg, &h, Xb, p));
        TRY(nd_cross_entropy(&l, lg, yb, 1, ND_REDUCTION_SUM, -100));
        double v;
        TRY(scalar_of(&v, l));
        sl += v;
        TRY(nd_argmax(&am, lg, 1, (const int[]){1}, false));
        TRY(nd_equal(&hit, am, yb));
        TRY(nd_count_nonzero(&nh, hit, 0, NULL, false));
        TRY(scalar_of(&v, nh));
        sh += v;
        REL(Xb), REL(yb), REL(h), REL(lg), REL(l), REL(am), REL(hit), REL(nh);
    }
    *loss = sl / (double)N_SAMPLES;
    *acc = sh / (double)N_SAMPLES;
done:
    nd_release(Xb), nd_release(yb), nd_release(h), nd_release(lg), nd_release(l), nd_release(am), nd_release(hit);
    nd_release(nh);
    return st;
}

typedef struct grads {
    nd_array *W1, *b1, *W2, *b2; /* float32 */
} grads;

/* g (+)= the gradients of the mean loss over one micro-batch, times gscale
 * (1 / the effective batch, times the loss scale); first: overwrite. */
static nd_status fwd_bwd(grads *g, bool first, const nd_array *Xb, const nd_array *yb, const params *w, nd_dtype ct,
                         const nd_array *classes, double gscale, double *loss)
{
    nd_status st = ND_OK;
    nd_array *Xc = NULL, *h = NULL, *lg = NULL, *l = NULL, *p = NULL, *y2 = NULL, *oh = NULL, *da = NULL;
    nd_array *ones = NULL, *gb = NULL;
    const int64_t B = nd_shape(Xb)[0];
    const double beta = first ? 0.0 : 1.0;
    TRY(nd_astype(&Xc, Xb, ct)); /* the batch in the compute dtype */
    TRY(forward(&lg, &h, Xc, w));
    TRY(nd_cross_entropy(&l, lg, yb, 1, ND_REDUCTION_MEAN, -100));
    TRY(scalar_of(loss, l));
    /* dlogits = (softmax - onehot) * gscale, in ct */
    TRY(nd_softmax(&p, lg, 1));
    REL(lg);
    TRY(nd_reshape(&y2, yb, 2, (int64_t[]){B, 1}));
    TRY(nd_equal(&oh, y2, classes)); /* (B, K) bool */
    TRY(nd_subtract(&p, p, oh));
    TRY(nd_binary_scalar(&p, ND_BINARY_MULTIPLY, p, nd_scalar_float(gscale)));
    /* dW2 = h^T dlogits, db2 = sum(dlogits): accumulated in float32 */
    TRY(nd_gemm(&g->W2, true, false, 1.0, h, p, beta));
    TRY(nd_ones(&ones, ct, 2, (int64_t[]){B, 1}, nd_device_of(Xb)));
    TRY(nd_reshape(&gb, g->b2, 2, (int64_t[]){1, N_CLASSES})); /* a view of the float32 b2 gradient */
    TRY(nd_gemm(&gb, true, false, 1.0, ones, p, beta));        /* column sums, accumulated in float32 */
    REL(gb);
    /* dh = (dlogits W2^T) * (h > 0): h >= 0 after the relu, so sign(h) is
     * the mask, computed in place in h's dtype (a bool mask would cost a
     * byte per element, and multiplying by it a promoted copy) */
    TRY(nd_gemm(&da, false, true, 1.0, p, w->W2, 0.0));
    REL(p);
    TRY(nd_sign(&h, h));
    TRY(nd_multiply(&da, da, h));
    REL(h);
    /* dW1 = X^T dh, db1 = sum(dh) */
    TRY(nd_gemm(&g->W1, true, false, 1.0, Xc, da, beta));
    TRY(nd_reshape(&gb, g->b1, 2, (int64_t[]){1, HIDDEN}));
    TRY(nd_gemm(&gb, true, false, 1.0, ones, da, beta));
done:
    nd_release(Xc), nd_release(h), nd_release(lg), nd_release(l), nd_release(p), nd_release(y2), nd_release(oh);
    nd_release(da), nd_release(ones), nd_release(gb);
    return st;
}

typedef struct run_cfg {
    const char *name;
    nd_dtype ct;   /* compute dtype */
    int accum;     /* micro-batches per step */
    bool scaler;   /* dynamic loss scaling */
} run_cfg;

typedef struct run_result {
    double loss0, loss1, acc1, step_s, first_loss, last_loss;
    size_t peak;       /* the device's peak bytes during the run */
    size_t train_peak; /* peak - the bytes in use before the run (data, cuBLAS workspace) */
    int64_t skipped;
    double final_scale;
} run_result;

/* Train a fresh model for `steps` steps of batch `batch`; on ND_ERR_NOMEM
 * (a memory limit) returns that status with *res partly filled. */
static nd_status train(run_result *res, nd_device dev, const nd_array *X, const nd_array *y, const run_cfg *cfg,
                       int64_t batch, int steps, bool eval)
{
    nd_status st = ND_OK;
    params P = {0}, W = {0};
    grads G = {0};
    nd_grad_scaler *sc = NULL;
    nd_array *classes = NULL, *Xb = NULL, *yb = NULL, *upd = NULL;
    memset(res, 0, sizeof *res);
    nd_memory_stats m0;
    TRY(nd_synchronize(dev));
    TRY(nd_memory_get_stats(&m0, dev)); /* the baseline: resident data (+ a GPU's cuBLAS workspace) */
    TRY(nd_memory_reset_peak(dev));
    TRY(params_init(&P, dev));
    TRY(nd_arange(&classes, ND_INT64, 0, N_CLASSES, 1, dev));
    TRY(nd_zeros(&G.W1, ND_FLOAT32, 2, (int64_t[]){D_IN, HIDDEN}, dev));
    TRY(nd_zeros(&G.b1, ND_FLOAT32, 1, (int64_t[]){HIDDEN}, dev));
    TRY(nd_zeros(&G.W2, ND_FLOAT32, 2, (int64_t[]){HIDDEN, N_CLASSES}, dev));
    TRY(nd_zeros(&G.b2, ND_FLOAT32, 1, (int64_t[]){N_CLASSES}, dev));
    if (cfg->scaler) TRY(nd_grad_scaler_create(&sc, NULL)); /* PyTorch's defaults: 65536, x2 / 2000, x0.5 */
    if (eval) { /* outside the measured window: the peak restarts after it */
        double a0;
        TRY(evaluate(&res->loss0, &a0, X, y, &P));
        TRY(nd_synchronize(dev));
        TRY(nd_memory_reset_peak(dev));
    }
    const int64_t micro = batch / cfg->accum, nbat = N_SAMPLES / batch;
    double t0 = now_s();
    for (int s = 0; s < steps; s++) {
        const int64_t r0 = (s % nbat) * batch;
        if (cfg->ct != ND_FLOAT32) TRY(params_cast(&W, &P, cfg->ct));
        else W = (params){nd_retain(P.W1), nd_retain(P.b1), nd_retain(P.W2), nd_retain(P.b2)};
        const double scale = sc ? nd_grad_scaler_get_scale(sc) : 1.0;
        double lsum = 0;
        for (int m = 0; m < cfg->accum; m++) {
            nd_range rows = {r0 + m * micro, r0 + (m + 1) * micro, 1};
            TRY(nd_slice(&Xb, X, 1, &rows));
            TRY(nd_slice(&yb, y, 1, &rows));
            double l;
            TRY(fwd_bwd(&G, m == 0, Xb, yb, &W, cfg->ct, classes, scale / (double)batch, &l));
            lsum += l / cfg->accum;
            REL(Xb), REL(yb);
        }
        params_release(&W);
        if (s == 0) res->first_loss = lsum;
        res->last_loss = lsum;
        bool step = true;
        if (sc) {
            nd_array *gl[4] = {G.W1, G.b1, G.W2, G.b2};
            bool found;
            TRY(nd_grad_scaler_unscale(sc, gl, 4, &found));
            step = nd_grad_scaler_should_step(sc);
        }
        if (step) {
            nd_array *pl[4] = {P.W1, P.b1, P.W2, P.b2}, *gl[4] = {G.W1, G.b1, G.W2, G.b2};
            for (int i = 0; i < 4; i++) {
                TRY(nd_binary_scalar(&upd, ND_BINARY_MULTIPLY, gl[i], nd_scalar_float(LR)));
                TRY(nd_subtract(&pl[i], pl[i], upd));
                REL(upd);
            }
        }
        if (sc) TRY(nd_grad_scaler_update(sc, false));
    }
    TRY(nd_synchronize(dev));
    res->step_s = (now_s() - t0) / steps;
    nd_memory_stats ms;
    TRY(nd_memory_get_stats(&ms, dev));
    res->peak = ms.peak_in_use;
    res->train_peak = ms.peak_in_use > m0.in_use ? ms.peak_in_use - m0.in_use : 0;
    if (sc) {
        nd_grad_scaler_get_state(sc, NULL, &res->skipped);
        res->final_scale = nd_grad_scaler_get_scale(sc);
    }
    if (eval) TRY(evaluate(&res->loss1, &res->acc1, X, y, &P));
done:
    params_release(&P), params_release(&W);
    nd_release(G.W1), nd_release(G.b1), nd_release(G.W2), nd_release(G.b2);
    nd_release(classes), nd_release(Xb), nd_release(yb), nd_release(upd);
    nd_grad_scaler_destroy(sc);
    return st;
}

static double mib(size_t b) { return (double)b / (1024.0 * 1024.0); }

/* The largest batch of the candidates whose one training step fits under
 * the limit (0 when none). */
static int64_t sweep(nd_device dev, const nd_array *X, const nd_array *y, const run_cfg *cfg, size_t limit,
                     const int64_t *cand, int nc, bool *err)
{
    int64_t best = 0;
    nd_memory_release_cached(dev);
    nd_memory_set_limit(dev, limit);
    printf("  %-28s", cfg->name);
    for (int i = 0; i < nc; i++) {
        run_result r;
        g_err[0] = 0;
        nd_status st = train(&r, dev, X, y, cfg, cand[i], 1, false);
        if (st == ND_ERR_NOMEM) {
            printf(" %lld:no", (long long)cand[i]);
            break; /* larger batches need more */
        }
        if (st != ND_OK) {
            printf("\n  sweep failed: %s\n", g_err);
            *err = true;
            break;
        }
        printf(" %lld:fits", (long long)cand[i]);
        best = cand[i];
    }
    printf("\n");
    nd_memory_set_limit(dev, 0);
    g_err[0] = 0;
    return best;
}

/* The float32 run on the CPU and on the GPU, same data, same start:
 * the "validate on the CPU first" step. */
static int validate(const nd_array *Xh, const nd_array *yh, nd_device gpu)
{
    const run_cfg f32 = {"float32", ND_FLOAT32, 1, false};
    run_result rc, rg;
    nd_array *Xg = NULL, *yg = NULL;
    nd_status st = ND_OK;
    printf("validate on the CPU first: %d float32 steps on cpu:0 and on %s\n", 5, devname(gpu));
    TRY(train(&rc, nd_cpu(), Xh, yh, &f32, BATCH, 5, false));
    TRY(nd_to_device(&Xg, Xh, gpu));
    TRY(nd_to_device(&yg, yh, gpu));
    TRY(train(&rg, gpu, Xg, yg, &f32, BATCH, 5, false));
done:
    nd_release(Xg), nd_release(yg);
    if (st != ND_OK) {
        printf("  validation failed: %s\n", g_err);
        return 0;
    }
    const double d = fabs(rc.last_loss - rg.last_loss);
    const int agree = d <= 1e-3 * (1 + rc.last_loss);
    printf("  loss after 5 steps: cpu %.6f, %s %.6f, |difference| %.2e: %s\n", rc.last_loss, devname(gpu),
           rg.last_loss, d, agree ? "the GPU agrees with the CPU" : "MISMATCH");
    return agree;
}

int main(int argc, char **argv)
{
    nd_device dev = nd_default_device();
    bool explicit_dev = false;
    nd_dtype half = ND_BOOL; /* auto */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            const char *d = argv[++i];
            explicit_dev = true;
            if (strcmp(d, "cpu") == 0) dev = nd_cpu();
            else if (strncmp(d, "cuda", 4) == 0) dev = nd_cuda(d[4] == ':' ? atoi(d + 5) : 0);
            else {
                fprintf(stderr, "train_mlp_amp: unknown device '%s' (cpu or cuda[:N])\n", d);
                return 2;
            }
        } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            STEPS = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--lr") == 0 && i + 1 < argc) {
            LR = atof(argv[++i]);
        } else if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc) {
            BATCH = atoll(argv[++i]);
        } else if (strcmp(argv[i], "--hidden") == 0 && i + 1 < argc) {
            HIDDEN = atoll(argv[++i]);
        } else if (strcmp(argv[i], "--half") == 0 && i + 1 < argc) {
            const char *h = argv[++i];
            half = strcmp(h, "float16") == 0 ? ND_FLOAT16 : strcmp(h, "bfloat16") == 0 ? ND_BFLOAT16 : ND_INT8;
            if (half == ND_INT8) {
                fprintf(stderr, "train_mlp_amp: --half float16 or bfloat16\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--small") == 0) {
            N_SAMPLES = 2048, D_IN = 32, HIDDEN = 1024, BATCH = 512, STEPS = 24;
        } else {
            fprintf(stderr, "usage: train_mlp_amp [--device cpu|cuda[:N]] [--steps N] [--batch N] [--hidden N] [--lr X] "
                            "[--half float16|bfloat16] [--small]\n");
            return 2;
        }
    }
    if (STEPS < 2 || BATCH < ACCUM || BATCH % ACCUM || BATCH > N_SAMPLES || HIDDEN < 1) {
        fprintf(stderr, "train_mlp_amp: need steps >= 2, hidden >= 1, a batch that is a multiple of %d and at most "
                        "%lld\n", ACCUM, (long long)N_SAMPLES);
        return 2;
    }
    const int ngpu = nd_cuda_device_count();
    if (dev.type == ND_DEVICE_CUDA && dev.id >= ngpu) {
        const char *why = strstr(nd_build_info(), "no GPU: ");
        printf("%s requested, but %s: falling back to the CPU\n", devname(dev),
               ngpu ? "there is no such GPU" : why ? why + 8 : "libndgpu was built without CUDA");
        dev = nd_cpu();
    }
    const bool gpu = dev.type == ND_DEVICE_CUDA;
    if (half == ND_BOOL) half = gpu ? ND_FLOAT16 : ND_BFLOAT16;
    const bool scaled = half == ND_FLOAT16; /* float16's range needs loss scaling; bfloat16's does not */

    nd_array *Xh = NULL, *yh = NULL, *X = NULL, *y = NULL;
    nd_status st = ND_OK;
    int ok = 1;
    TRY(make_data(&Xh, &yh));
    if (gpu && !explicit_dev) ok = validate(Xh, yh, dev);
    else if (!gpu) printf("no GPU run (%s): the three runs on the CPU\n", ngpu ? "--device cpu" : "no GPU");
    TRY(nd_to_device(&X, Xh, dev));
    TRY(nd_to_device(&y, yh, dev));
    printf("MLP %lld -> %lld -> %d on %s: %lld Gaussian-blob samples, batch %lld, %d SGD steps (lr %g)\n",
           (long long)D_IN, (long long)HIDDEN, N_CLASSES, devname(dev), (long long)N_SAMPLES, (long long)BATCH, STEPS,
           LR);
    char mixed_name[64], accum_name[64];
    snprintf(mixed_name, sizeof mixed_name, "mixed %s%s", nd_dtype_name(half), scaled ? " + loss scaling" : "");
    snprintf(accum_name, sizeof accum_name, "mixed + %d micro-batches", ACCUM);
    const run_cfg cfgs[3] = {{"float32", ND_FLOAT32, 1, false},
                             {mixed_name, half, 1, scaled},
                             {accum_name, half, ACCUM, scaled}};
    run_result r[3];
    { /* warm-up: a GPU's first product allocates its cuBLAS workspace (32 MiB
       * from the pool, kept): let it be part of every run's baseline */
        nd_array *w = NULL, *o = NULL;
        TRY(nd_ones(&w, ND_FLOAT32, 2, (int64_t[]){2, 2}, dev));
        TRY(nd_matmul(&o, w, w));
        nd_release(w), nd_release(o);
    }
    printf("  %-30s %9s %9s %9s %9s %8s %9s\n", "run", "peak MiB", "train MiB", "ms/step", "loss", "->", "accuracy");
    for (int i = 0; i < 3; i++) {
        TRY(train(&r[i], dev, X, y, &cfgs[i], BATCH, STEPS, true));
        printf("  %-30s %9.2f %9.2f %9.2f %9.4f %8.4f %9.4f", cfgs[i].name, mib(r[i].peak), mib(r[i].train_peak),
               1e3 * r[i].step_s, r[i].loss0, r[i].loss1, r[i].acc1);
        if (cfgs[i].scaler) printf("   (scale %g, %lld skipped)", r[i].final_scale, (long long)r[i].skipped);
        printf("\n");
    }
    const double save = 100.0 * (1.0 - (double)r[1].train_peak / (double)r[0].train_peak);
    const double save_acc = 100.0 * (1.0 - (double)r[2].train_peak / (double)r[0].train_peak);
    const double save_dev = 100.0 * (1.0 - (double)r[1].peak / (double)r[0].peak);
    printf("memory saving of mixed precision: %.1f%% of the training memory (%.2f -> %.2f MiB; the whole device's "
           "peak %.1f%%); with %d-step accumulation %.1f%%\n", save, mib(r[0].train_peak), mib(r[1].train_peak),
           save_dev, ACCUM, save_acc);
    printf("accuracy: float32 %.2f%%, mixed %.2f%% (%+.2f points), accumulated %.2f%% (%+.2f points)\n",
           100 * r[0].acc1, 100 * r[1].acc1, 100 * (r[1].acc1 - r[0].acc1), 100 * r[2].acc1,
           100 * (r[2].acc1 - r[0].acc1));

    /* raise the batch size and watch memory */
    nd_memory_stats base;
    TRY(nd_memory_release_cached(dev));
    TRY(nd_memory_get_stats(&base, dev));
    const size_t limit = base.in_use + (size_t)(1.25 * (double)r[0].train_peak);
    int64_t cand[16];
    int nc = 0;
    for (int64_t b = BATCH / 4; b <= N_SAMPLES && nc < 16; b *= 2) {
        cand[nc++] = b;
        if (b * 3 / 2 <= N_SAMPLES && nc < 16) cand[nc++] = b * 3 / 2;
    }
    printf("batch-size sweep: one step per batch under nd_memory_set_limit(%.2f MiB = what is in use + 1.25x float32's "
           "training memory at batch %lld)\n", mib(limit), (long long)BATCH);
    bool serr = false;
    int64_t fit[2];
    for (int i = 0; i < 2; i++) fit[i] = sweep(dev, X, y, &cfgs[i], limit, cand, nc, &serr);
    printf("largest batch that fits: float32 %lld, %s %lld (%.2fx)\n", (long long)fit[0], cfgs[1].name,
           (long long)fit[1], fit[0] ? (double)fit[1] / (double)fit[0] : 0.0);

    /* what it claims */
    for (int i = 0; i < 3; i++)
        if (!(r[i].loss1 < 0.8 * r[i].loss0)) {
            printf("CLAIM FAILED: the %s loss did not decrease (%.4f -> %.4f)\n", cfgs[i].name, r[i].loss0, r[i].loss1);
            ok = 0;
        }
    for (int i = 1; i < 3; i++)
        if (fabs(r[i].acc1 - r[0].acc1) > 0.01) {
            printf("CLAIM FAILED: %s accuracy %.4f is not within 1 point of float32's %.4f\n", cfgs[i].name, r[i].acc1,
                   r[0].acc1);
            ok = 0;
        }
    if (!((double)r[1].train_peak <= 0.7 * (double)r[0].train_peak)) {
        printf("CLAIM FAILED: mixed training memory %.2f MiB > 0.7x float32's %.2f MiB\n", mib(r[1].train_peak),
               mib(r[0].train_peak));
        ok = 0;
    }
    if (serr || fit[1] < fit[0]) {
        printf("CLAIM FAILED: the sweep %s\n", serr ? "failed" : "fits a smaller batch in mixed precision");
        ok = 0;
    }
done:
    if (st != ND_OK) {
        printf("train_mlp_amp failed: %s\n", g_err);
        ok = 0;
    }
    nd_release(Xh), nd_release(yh), nd_release(X), nd_release(y);
    printf("train_mlp_amp: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
