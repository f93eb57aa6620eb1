/* train_graph.c - a training step captured once as a graph and replayed:
 * the mini-batch logistic regression with gradient accumulation of
 * train_logreg.c, whose optimizer step (4 micro-batches of 64 rows, their
 * gradients accumulated, then the update) runs either op by op or as one
 * nd_graph_launch, on the CPU or the GPU.
 *
 *   build/examples/train_graph                   the default device (cuda:0
 *                                                when there is a GPU)
 *   build/examples/train_graph --device cpu      or cuda[:N]
 *   options: --epochs N (default 3)
 *
 * A graph replays arrays, not values: the step reads its micro-batches
 * from two static arrays (xs: 256 x 20, ys: 256 x 1) that the loop refills
 * before every step (nd_copy into them, outside the graph), and writes the
 * weights and accumulators in place. The captured step makes its
 * temporaries during the capture; the graph keeps them and every launch
 * rewrites them.
 *
 * The same number of steps runs eagerly and from the graph, from the same
 * initial weights: the two give bit-identical weights (a replay runs the
 * loops and kernels the eager ops run), and the per-step times of both
 * are printed. Exit status 1 when the weights differ or the loss did not
 * decrease.
 */
// expect: train_graph: ok
// args: --epochs 1
#include <math.h>
#include <ndgpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N_SAMPLES = 8192, N_FEATURES = 20, MICRO_BATCH = 64, ACCUMULATION_STEPS = 4 };
enum { STEP_ROWS = MICRO_BATCH * ACCUMULATION_STEPS };
static const double LEARNING_RATE = 0.5;

#define TRY(call)                                                                                      \
    do {                                                                                               \
        nd_status st_ = (call);                                                                        \
        if (st_ != ND_OK) {                                                                            \
            fprintf(stderr, "train_graph: %s failed: %s: %s\n", #call, nd_status_name(st_), nd_last_error()); \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The model's state and the step's arrays; every one exists before the
 * capture except the temporaries the step makes. */
typedef struct model {
    nd_array *xs, *ys;          /* the step's input rows (static: refilled before each step) */
    nd_array *w, *b;            /* weights (D, 1) and bias (1,) */
    nd_array *gw_acc, *gb_acc;  /* gradient accumulators */
    nd_array *z, *p, *diff, *gw, *gb, *xbt;
} model;

/* One optimizer step over the rows in xs, ys: 4 micro-batches, their
 * gradients accumulated, then the update and the accumulators zeroed. */
static void step(model *m)
{
    const double scale = LEARNING_RATE / (double)STEP_ROWS;
    for (int j = 0; j < ACCUMULATION_STEPS; j++) {
        nd_range rows = {j * MICRO_BATCH, (j + 1) * MICRO_BATCH, 1};
        nd_array *xb = NULL, *yb = NULL;
        TRY(nd_slice(&xb, m->xs, 1, &rows));
        TRY(nd_slice(&yb, m->ys, 1, &rows));
        TRY(nd_matmul(&m->z, xb, m->w));
        TRY(nd_add(&m->z, m->z, m->b));
        TRY(nd_sigmoid(&m->p, m->z));
        TRY(nd_subtract(&m->diff, m->p, yb));
        nd_release(m->xbt);
        m->xbt = NULL;
        TRY(nd_transpose(&m->xbt, xb, NULL));
        TRY(nd_matmul(&m->gw, m->xbt, m->diff));
        TRY(nd_sum(&m->gb, m->diff, 0, NULL, false));
        TRY(nd_add(&m->gw_acc, m->gw_acc, m->gw));
        TRY(nd_add(&m->gb_acc, m->gb_acc, m->gb));
        nd_release(xb), nd_release(yb);
    }
    TRY(nd_binary_scalar(&m->gw_acc, ND_BINARY_MULTIPLY, m->gw_acc, nd_scalar_float(scale)));
    TRY(nd_binary_scalar(&m->gb_acc, ND_BINARY_MULTIPLY, m->gb_acc, nd_scalar_float(scale)));
    TRY(nd_subtract(&m->w, m->w, m->gw_acc));
    TRY(nd_subtract(&m->b, m->b, m->gb_acc));
    TRY(nd_binary_scalar(&m->gw_acc, ND_BINARY_MULTIPLY, m->gw_acc, nd_scalar_float(0.0)));
    TRY(nd_binary_scalar(&m->gb_acc, ND_BINARY_MULTIPLY, m->gb_acc, nd_scalar_float(0.0)));
}

static void model_init(model *m, nd_device dev)
{
    memset(m, 0, sizeof *m);
    TRY(nd_zeros(&m->xs, ND_FLOAT32, 2, (int64_t[]){STEP_ROWS, N_FEATURES}, dev));
    TRY(nd_zeros(&m->ys, ND_FLOAT32, 2, (int64_t[]){STEP_ROWS, 1}, dev));
    TRY(nd_zeros(&m->w, ND_FLOAT32, 2, (int64_t[]){N_FEATURES, 1}, dev));
    TRY(nd_zeros(&m->b, ND_FLOAT32, 1, (int64_t[]){1}, dev));
    TRY(nd_zeros(&m->gw_acc, ND_FLOAT32, 2, (int64_t[]){N_FEATURES, 1}, dev));
    TRY(nd_zeros(&m->gb_acc, ND_FLOAT32, 0, NULL, dev));
}

static void model_free(model *m)
{
    nd_array **a = &m->xs;
    for (size_t i = 0; i < sizeof *m / sizeof *a; i++) nd_release(a[i]);
}

/* Rows [k STEP_ROWS, (k + 1) STEP_ROWS) of X, y into the step's inputs. */
static void load_rows(model *m, const nd_array *X, const nd_array *y, int64_t k)
{
    nd_range rows = {k * STEP_ROWS, (k + 1) * STEP_ROWS, 1};
    nd_array *xv = NULL, *yv = NULL;
    TRY(nd_slice(&xv, X, 1, &rows));
    TRY(nd_slice(&yv, y, 1, &rows));
    TRY(nd_copy(&m->xs, xv));
    TRY(nd_copy(&m->ys, yv));
    nd_release(xv), nd_release(yv);
}

/* Mean logistic loss of (w, b) over all of X, y. */
static double loss_of(const model *m, const nd_array *X, const nd_array *y)
{
    nd_array *z = NULL, *t = NULL, *u = NULL, *l = NULL;
    /* log(1 + exp(z)) - y z, with softplus written as logaddexp(0, z) */
    TRY(nd_matmul(&z, X, m->w));
    TRY(nd_add(&z, z, m->b));
    TRY(nd_binary_scalar(&t, ND_BINARY_LOGADDEXP, z, nd_scalar_float(0.0)));
    TRY(nd_multiply(&u, y, z));
    TRY(nd_subtract(&t, t, u));
    TRY(nd_mean(&l, t, 0, NULL, false));
    float v;
    TRY(nd_copy_to_host(&v, l, sizeof v));
    nd_release(z), nd_release(t), nd_release(u), nd_release(l);
    return v;
}

int main(int argc, char **argv)
{
    int epochs = 3;
    nd_device dev = nd_default_device();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            TRY(nd_device_parse(&dev, argv[++i]));
        } else if (strcmp(argv[i], "--epochs") == 0 && i + 1 < argc) {
            epochs = atoi(argv[++i]);
            if (epochs < 1) epochs = 1;
        } else {
            fprintf(stderr, "usage: train_graph [--device cpu|cuda[:N]] [--epochs N]\n");
            return 2;
        }
    }
    char dn[32];
    nd_device_str(dev, dn, sizeof dn);

    /* data on the CPU from the library's generator, then on the device */
    nd_rng *rng = NULL;
    nd_array *Xh = NULL, *wt = NULL, *lg = NULL, *pos = NULL, *yh = NULL, *X = NULL, *y = NULL;
    TRY(nd_rng_create(&rng, 2024));
    TRY(nd_random_normal(&Xh, rng, ND_FLOAT32, 2, (int64_t[]){N_SAMPLES, N_FEATURES}, 0.0, 1.0, nd_cpu()));
    TRY(nd_random_normal(&wt, rng, ND_FLOAT32, 2, (int64_t[]){N_FEATURES, 1}, 0.0, 1.0, nd_cpu()));
    TRY(nd_matmul(&lg, Xh, wt));
    TRY(nd_binary_scalar(&pos, ND_BINARY_GREATER, lg, nd_scalar_float(0.0)));
    TRY(nd_astype(&yh, pos, ND_FLOAT32));
    TRY(nd_to_device(&X, Xh, dev));
    TRY(nd_to_device(&y, yh, dev));
    const int64_t steps_per_epoch = N_SAMPLES / STEP_ROWS;
    printf("train_graph on %s: %d samples x %d features, steps of %d micro-batches of %d rows, %d epoch(s)\n", dn,
           N_SAMPLES, N_FEATURES, ACCUMULATION_STEPS, MICRO_BATCH, epochs);

    /* eagerly, op by op */
    model e;
    model_init(&e, dev);
    const double loss0 = loss_of(&e, X, y);
    load_rows(&e, X, y, 0);
    step(&e); /* a warm-up step (first calls, allocations); the graph run does the same */
    TRY(nd_synchronize(dev));
    double t0 = now_s();
    for (int ep = 0; ep < epochs; ep++)
        for (int64_t k = 0; k < steps_per_epoch; k++) {
            load_rows(&e, X, y, k);
            step(&e);
        }
    TRY(nd_synchronize(dev));
    const double eager_s = (now_s() - t0) / (double)(epochs * steps_per_epoch);

    /* the same step captured once, then replayed */
    model g;
    model_init(&g, dev);
    load_rows(&g, X, y, 0);
    step(&g); /* the same warm-up: the outputs exist before the capture */
    nd_stream *s = NULL;
    nd_graph *graph = NULL;
    TRY(nd_stream_create(&s, dev));
    TRY(nd_synchronize(dev));
    TRY(nd_graph_begin(s));
    step(&g); /* captured, not run */
    TRY(nd_graph_end(&graph));
    TRY(nd_synchronize(dev));
    t0 = now_s();
    for (int ep = 0; ep < epochs; ep++)
        for (int64_t k = 0; k < steps_per_epoch; k++) {
            load_rows(&g, X, y, k); /* on the current stream: ordered before the launch below */
            TRY(nd_graph_launch(graph, NULL));
        }
    TRY(nd_synchronize(dev));
    const double graph_s = (now_s() - t0) / (double)(epochs * steps_per_epoch);

    /* the same weights, bit for bit, and a loss that went down */
    float we[N_FEATURES], wg[N_FEATURES];
    TRY(nd_copy_to_host(we, e.w, sizeof we));
    TRY(nd_copy_to_host(wg, g.w, sizeof wg));
    const int same = memcmp(we, wg, sizeof we) == 0;
    const double loss1 = loss_of(&g, X, y);
    printf("  %lld captured operations; loss %.4f -> %.4f\n", (long long)nd_graph_size(graph), loss0, loss1);
    printf("  per step: eager %.1f us, graph %.1f us (%.2fx)\n", 1e6 * eager_s, 1e6 * graph_s, eager_s / graph_s);
    printf("  weights after %lld steps: %s\n", (long long)(epochs * steps_per_epoch + 1),
           same ? "identical eager and replayed" : "DIFFER between eager and replayed");
    const int ok = same && loss1 < 0.8 * loss0;
    TRY(nd_graph_destroy(graph));
    TRY(nd_stream_destroy(s));
    model_free(&e), model_free(&g);
    nd_release(Xh), nd_release(wt), nd_release(lg), nd_release(pos), nd_release(yh), nd_release(X), nd_release(y);
    nd_rng_destroy(rng);
    printf("train_graph: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
