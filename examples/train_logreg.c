/* train_logreg.c - mini-batch logistic regression with gradient
 * accumulation, written with libndgpu's ops, on the CPU or the GPU.
 *
 *   build/examples/train_logreg                 validate on the CPU, then run
 *                                               on the GPU when there is one and
 *                                               compare (the same as --check)
 *   build/examples/train_logreg --device cpu    one run on the CPU
 *   build/examples/train_logreg --device cuda   one run on cuda:0 (falls back to
 *                                               the CPU without a GPU)
 *   options: --epochs N (default 5)
 *
 * Data: 8192 synthetic samples with 20 features, X ~ N(0, 1), labels
 * y = [X w* + 0.5 noise > 0] for a random w*, drawn with the library's
 * Philox generator on the CPU (the same numbers on every device) and moved
 * to the device once with nd_to_device.
 * Model: p = sigmoid(X w + b), loss = -mean(y log p + (1 - y) log(1 - p)).
 * Training: micro-batches of 64 rows (nd_slice views, no copies); the
 * gradients X_b^T (p - y_b) and sum(p - y_b) are ACCUMULATED over
 * accumulation_steps = 4 micro-batches (an effective batch of 256 that
 * never has to fit in memory at once), then one step
 * w -= lr * grad / 256 and the accumulators are zeroed. The temporaries are
 * reused through the out-pointer rule (nd_matmul(&z, ...) with z already
 * allocated writes into it), so the loop allocates only view headers.
 *
 * "Validate on the CPU first": --check trains on the CPU, then on the GPU
 * with identical data and initialisation, and compares the final losses
 * (float32 sums in another order: agreement to 1e-3). Without a GPU it says
 * the GPU run was skipped. Each run asserts
 * that the loss decreased (exit status 1 otherwise).
 */
// expect: train_logreg: ok
#include <math.h>
#include <ndgpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N_SAMPLES = 8192, N_FEATURES = 20, MICRO_BATCH = 64, ACCUMULATION_STEPS = 4 };
static const double LEARNING_RATE = 0.5;

static char g_err[512]; /* the first failure's message */

/* On failure: remember the message and jump to the cleanup. */
#define TRY(call)                                                                    \
    do {                                                                             \
        st = (call);                                                                 \
        if (st != ND_OK) {                                                           \
            snprintf(g_err, sizeof g_err, "%s", nd_last_error());                    \
            goto done;                                                               \
        }                                                                            \
    } while (0)

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

/* Synthetic data on the CPU: X (N, D) float32, y (N, 1) float32 in {0, 1}. */
static nd_status make_data(nd_array **X, nd_array **y)
{
    nd_status st = ND_OK;
    nd_rng *rng = NULL;
    nd_array *w_true = NULL, *noise = NULL, *logits = NULL, *pos = NULL;
    TRY(nd_rng_create(&rng, 2024));
    TRY(nd_random_normal(X, rng, ND_FLOAT32, 2, (int64_t[]){N_SAMPLES, N_FEATURES}, 0.0, 1.0, nd_cpu()));
    TRY(nd_random_normal(&w_true, rng, ND_FLOAT32, 2, (int64_t[]){N_FEATURES, 1}, 0.0, 1.0, nd_cpu()));
    TRY(nd_random_normal(&noise, rng, ND_FLOAT32, 2, (int64_t[]){N_SAMPLES, 1}, 0.0, 0.5, nd_cpu()));
    TRY(nd_matmul(&logits, *X, w_true));
    TRY(nd_add(&logits, logits, noise));
    TRY(nd_binary_scalar(&pos, ND_BINARY_GREATER, logits, nd_scalar_float(0.0))); /* bool */
    TRY(nd_astype(y, pos, ND_FLOAT32));
done:
    nd_release(w_true), nd_release(noise), nd_release(logits), nd_release(pos);
    nd_rng_destroy(rng);
    return st;
}

/* Full-data loss and accuracy of (w, b). */
static nd_status evaluate(double *loss, double *acc, const nd_array *X, const nd_array *y, const nd_array *w,
                          const nd_array *b)
{
    nd_status st = ND_OK;
    nd_array *z = NULL, *p = NULL, *lp = NULL, *q = NULL, *lq = NULL, *omy = NULL, *t = NULL, *m = NULL;
    nd_array *pred = NULL, *truth = NULL, *hit = NULL, *am = NULL;
    TRY(nd_matmul(&z, X, w));
    TRY(nd_add(&z, z, b));
    TRY(nd_sigmoid(&p, z));
    TRY(nd_clip_scalar(&p, p, nd_scalar_float(1e-7), nd_scalar_float(1.0 - 1e-7))); /* no log(0) */
    TRY(nd_log(&lp, p));                                                           /* log p */
    TRY(nd_scalar_binary(&q, ND_BINARY_SUBTRACT, nd_scalar_float(1.0), p));        /* 1 - p */
    TRY(nd_log(&lq, q));                                                           /* log(1 - p) */
    TRY(nd_scalar_binary(&omy, ND_BINARY_SUBTRACT, nd_scalar_float(1.0), y));      /* 1 - y */
    TRY(nd_multiply(&lq, lq, omy));
    TRY(nd_multiply(&t, y, lp));
    TRY(nd_add(&t, t, lq));
    TRY(nd_mean(&m, t, 0, NULL, false)); /* 0-d float32 */
    float mv;
    TRY(nd_copy_to_host(&mv, m, sizeof mv));
    *loss = -(double)mv;
    TRY(nd_binary_scalar(&pred, ND_BINARY_GREATER, z, nd_scalar_float(0.0)));
    TRY(nd_binary_scalar(&truth, ND_BINARY_GREATER, y, nd_scalar_float(0.5)));
    TRY(nd_equal(&hit, pred, truth));
    TRY(nd_mean(&am, hit, 0, NULL, false)); /* mean of bool: float64, as NumPy */
    TRY(nd_copy_to_host(acc, am, sizeof *acc));
done:
    nd_release(z), nd_release(p), nd_release(lp), nd_release(q), nd_release(lq), nd_release(omy);
    nd_release(t), nd_release(m), nd_release(pred), nd_release(truth), nd_release(hit), nd_release(am);
    return st;
}

typedef struct run_result {
    double loss0, loss1, acc1, seconds;
} run_result;

static nd_status train(run_result *res, nd_device dev, const nd_array *Xh, const nd_array *yh, int epochs)
{
    nd_status st = ND_OK;
    nd_array *X = NULL, *y = NULL, *w = NULL, *b = NULL, *gw_acc = NULL, *gb_acc = NULL;
    nd_array *z = NULL, *p = NULL, *diff = NULL, *gw = NULL, *gb = NULL;
    nd_array *Xb = NULL, *yb = NULL, *XbT = NULL;
    double acc0;
    const int64_t B = MICRO_BATCH;

    TRY(nd_to_device(&X, Xh, dev));
    TRY(nd_to_device(&y, yh, dev));
    TRY(nd_zeros(&w, ND_FLOAT32, 2, (int64_t[]){N_FEATURES, 1}, dev));
    TRY(nd_zeros(&b, ND_FLOAT32, 1, (int64_t[]){1}, dev));
    TRY(nd_zeros(&gw_acc, ND_FLOAT32, 2, (int64_t[]){N_FEATURES, 1}, dev));
    TRY(nd_zeros(&gb_acc, ND_FLOAT32, 0, NULL, dev));
    TRY(evaluate(&res->loss0, &acc0, X, y, w, b));
    printf("  %s: initial loss %.4f, accuracy %.3f\n", devname(dev), res->loss0, acc0);

    double t0 = now_s();
    const double step_scale = LEARNING_RATE / (double)(B * ACCUMULATION_STEPS);
    for (int epoch = 0; epoch < epochs; epoch++) {
        for (int64_t k = 0; k < N_SAMPLES / B; k++) {
            /* One micro-batch: rows [k B, (k + 1) B) as views. */
            nd_range rows = {k * B, (k + 1) * B, 1};
            TRY(nd_slice(&Xb, X, 1, &rows));
            TRY(nd_slice(&yb, y, 1, &rows));
            TRY(nd_matmul(&z, Xb, w));        /* z = X_b w      (B, 1) */
            TRY(nd_add(&z, z, b));            /*   + b          (broadcast) */
            TRY(nd_sigmoid(&p, z));           /* p = sigmoid(z) */
            TRY(nd_subtract(&diff, p, yb));   /* dloss/dz = p - y */
            TRY(nd_transpose(&XbT, Xb, NULL));
            TRY(nd_matmul(&gw, XbT, diff));   /* X_b^T (p - y)  (D, 1) */
            TRY(nd_sum(&gb, diff, 0, NULL, false));
            TRY(nd_add(&gw_acc, gw_acc, gw)); /* accumulate */
            TRY(nd_add(&gb_acc, gb_acc, gb));
            nd_release(Xb), nd_release(yb), nd_release(XbT);
            Xb = yb = XbT = NULL;

            if ((k + 1) % ACCUMULATION_STEPS == 0) { /* one optimizer step */
                TRY(nd_binary_scalar(&gw_acc, ND_BINARY_MULTIPLY, gw_acc, nd_scalar_float(step_scale)));
                TRY(nd_binary_scalar(&gb_acc, ND_BINARY_MULTIPLY, gb_acc, nd_scalar_float(step_scale)));
                TRY(nd_subtract(&w, w, gw_acc));
                TRY(nd_subtract(&b, b, gb_acc));
                TRY(nd_binary_scalar(&gw_acc, ND_BINARY_MULTIPLY, gw_acc, nd_scalar_float(0.0))); /* zero */
                TRY(nd_binary_scalar(&gb_acc, ND_BINARY_MULTIPLY, gb_acc, nd_scalar_float(0.0)));
            }
        }
        double loss, acc;
        TRY(evaluate(&loss, &acc, X, y, w, b));
        printf("  %s: epoch %d  loss %.4f  accuracy %.3f\n", devname(dev), epoch + 1, loss, acc);
        res->loss1 = loss;
        res->acc1 = acc;
    }
    TRY(nd_synchronize(dev));
    res->seconds = now_s() - t0;
done:
    nd_release(X), nd_release(y), nd_release(w), nd_release(b), nd_release(gw_acc), nd_release(gb_acc);
    nd_release(z), nd_release(p), nd_release(diff), nd_release(gw), nd_release(gb);
    nd_release(Xb), nd_release(yb), nd_release(XbT);
    return st;
}

/* Train on dev; 1 = ran and the loss decreased, -1 = failed. */
static int run(run_result *res, nd_device dev, const nd_array *X, const nd_array *y, int epochs)
{
    printf("training on %s: %d samples x %d features, micro-batch %d, accumulation_steps %d, lr %g\n",
           devname(dev), N_SAMPLES, N_FEATURES, MICRO_BATCH, ACCUMULATION_STEPS, LEARNING_RATE);
    nd_status st = train(res, dev, X, y, epochs);
    if (st != ND_OK) {
        fprintf(stderr, "  %s: training failed: %s: %s\n", devname(dev), nd_status_name(st), g_err);
        return -1;
    }
    int decreased = res->loss1 < 0.8 * res->loss0;
    printf("  %s: loss %.4f -> %.4f (%s) in %.3f s\n", devname(dev), res->loss0, res->loss1,
           decreased ? "decreased" : "DID NOT DECREASE", res->seconds);
    return decreased ? 1 : -1;
}

int main(int argc, char **argv)
{
    int epochs = 5, check = 1;
    nd_device want = nd_cpu();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0) {
            check = 1;
        } else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            const char *d = argv[++i];
            check = 0;
            if (strcmp(d, "cpu") == 0)
                want = nd_cpu();
            else if (strncmp(d, "cuda", 4) == 0)
                want = nd_cuda(d[4] == ':' ? atoi(d + 5) : 0);
            else {
                fprintf(stderr, "train_logreg: unknown device '%s' (cpu or cuda[:N])\n", d);
                return 2;
            }
        } else if (strcmp(argv[i], "--epochs") == 0 && i + 1 < argc) {
            epochs = atoi(argv[++i]);
            if (epochs < 1) epochs = 1;
        } else {
            fprintf(stderr, "usage: train_logreg [--check | --device cpu|cuda[:N]] [--epochs N]\n");
            return 2;
        }
    }

    int ngpu = nd_cuda_device_count();
    const char *why = strstr(nd_build_info(), "no GPU: ");
    const char *reason = ngpu > 0 ? "" : why ? why + 8 : "libndgpu was built without CUDA";
    if (want.type == ND_DEVICE_CUDA && want.id >= ngpu) {
        printf("%s requested, but %s: falling back to the CPU\n", devname(want),
               ngpu ? "there is no such GPU" : reason);
        want = nd_cpu();
    }

    nd_array *X = NULL, *y = NULL;
    if (make_data(&X, &y) != ND_OK) {
        fprintf(stderr, "making the data failed: %s\n", g_err);
        return 1;
    }

    int ok = 1;
    run_result cpu, gpu;
    if (!check) {
        ok = run(&cpu, want, X, y, epochs) > 0;
    } else {
        printf("--check: validate on the CPU first, then the same run on the GPU\n");
        int rc = run(&cpu, nd_cpu(), X, y, epochs);
        ok = rc > 0;
        if (ngpu == 0) {
            printf("GPU run skipped: no GPU (%s)\n", reason);
        } else if (ok) {
            int rg = run(&gpu, nd_cuda(0), X, y, epochs);
            if (rg < 0) ok = 0;
            else {
                double d = fabs(cpu.loss1 - gpu.loss1);
                int agree = d <= 1e-3 * (1.0 + cpu.loss1);
                printf("final loss: cpu %.6f, cuda:0 %.6f, |difference| %.2e: %s\n", cpu.loss1, gpu.loss1, d,
                       agree ? "the GPU agrees with the CPU" : "MISMATCH");
                printf("time: cpu %.3f s, cuda:0 %.3f s\n", cpu.seconds, gpu.seconds);
                ok = ok && agree;
            }
        }
    }
    nd_release(X);
    nd_release(y);
    printf("train_logreg: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
