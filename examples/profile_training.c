/* profile_training.c - profile a few training steps of logistic regression
 * (the model of train_logreg.c) with libndgpu's profiler, print the
 * key-averages table and write a Chrome trace and a JSON summary.
 *
 *   build/examples/profile_training [TRACE.json [SUMMARY.json]]
 *       (defaults: profile_trace.json, profile_summary.json)
 *
 * Runs on nd_default_device(): a GPU when there is one (ND_DEVICE=cpu to
 * force the CPU). The table is sorted by device time on a GPU, by host
 * time on the CPU. Open the trace in https://ui.perfetto.dev or
 * chrome://tracing. Without changing a program, ND_PROFILE=trace.json
 * profiles it whole and writes the trace at exit.
 */
// expect: profile_training: ok
// args: @TMP@/profile_trace.json @TMP@/profile_summary.json
#include <ndgpu.h>
#include <stdio.h>

enum { N = 2048, D = 16, BATCH = 256, STEPS = 8 };

#define TRY(call) do { if ((st = (call)) != ND_OK) goto done; } while (0)

int main(int argc, char **argv)
{
    const char *trace = argc > 1 ? argv[1] : "profile_trace.json";
    const char *summary = argc > 2 ? argv[2] : "profile_summary.json";
    nd_device dev = nd_default_device();
    nd_status st = ND_OK;
    nd_rng *rng = NULL;
    nd_array *Xh = NULL, *yh = NULL, *wt = NULL, *t = NULL, *pos = NULL, *X = NULL, *y = NULL, *w = NULL;
    nd_array *Xb = NULL, *yb = NULL, *XbT = NULL, *z = NULL, *p = NULL, *diff = NULL, *sq = NULL, *loss = NULL, *gw = NULL;

    /* Synthetic data on the host: y = [X w* > 0]. */
    TRY(nd_rng_create(&rng, 7));
    TRY(nd_random_normal(&Xh, rng, ND_FLOAT32, 2, (int64_t[]){N, D}, 0.0, 1.0, nd_cpu()));
    TRY(nd_random_normal(&wt, rng, ND_FLOAT32, 2, (int64_t[]){D, 1}, 0.0, 1.0, nd_cpu()));
    TRY(nd_matmul(&t, Xh, wt));
    TRY(nd_binary_scalar(&pos, ND_BINARY_GREATER, t, nd_scalar_float(0.0)));
    TRY(nd_astype(&yh, pos, ND_FLOAT32));

    nd_profiler_config cfg;
    nd_profiler_config_init(&cfg);
    cfg.record_shapes = true;  /* input shapes of every op */
    cfg.profile_memory = true; /* allocations and frees */
    TRY(nd_profiler_start(&cfg));

    TRY(nd_range_push("upload"));
    TRY(nd_to_device(&X, Xh, dev)); /* copy_h2d on a GPU */
    TRY(nd_to_device(&y, yh, dev));
    TRY(nd_range_pop());
    TRY(nd_zeros(&w, ND_FLOAT32, 2, (int64_t[]){D, 1}, dev));
    for (int64_t k = 0; k < STEPS; k++) {
        nd_range rows = {k * BATCH, (k + 1) * BATCH, 1};
        TRY(nd_slice(&Xb, X, 1, &rows)); /* views: no copy */
        TRY(nd_slice(&yb, y, 1, &rows));

        TRY(nd_range_push("forward")); /* p = sigmoid(X_b w); loss = mean((p - y)^2), a cheap monitor */
        TRY(nd_matmul(&z, Xb, w));
        TRY(nd_sigmoid(&p, z));
        TRY(nd_subtract(&diff, p, yb));
        TRY(nd_multiply(&sq, diff, diff));
        TRY(nd_mean(&loss, sq, 0, NULL, false));
        TRY(nd_range_pop());

        TRY(nd_range_push("backward")); /* the logistic loss's gradient: X_b^T (p - y) */
        TRY(nd_transpose(&XbT, Xb, NULL));
        TRY(nd_matmul(&gw, XbT, diff));
        TRY(nd_range_pop());

        TRY(nd_range_push("step")); /* w -= lr / B * gradient */
        TRY(nd_binary_scalar(&gw, ND_BINARY_MULTIPLY, gw, nd_scalar_float(2.0 / BATCH)));
        TRY(nd_subtract(&w, w, gw));
        TRY(nd_range_pop());
        nd_release(Xb), nd_release(yb), nd_release(XbT);
        Xb = yb = XbT = NULL;
    }
    float last;
    TRY(nd_copy_to_host(&last, loss, sizeof last)); /* copy_d2h on a GPU */
    TRY(nd_synchronize(dev));
    TRY(nd_profiler_stop());

    bool gpu = dev.type == ND_DEVICE_CUDA;
    printf("%d training steps on %s%d, last loss %.4f; sorted by %s time:\n", STEPS, gpu ? "cuda:" : "cpu:", dev.id,
           last, gpu ? "device" : "host");
    nd_profiler_table_options opt = {.sort_by = gpu ? ND_PROFILER_SORT_DEVICE_TOTAL : ND_PROFILER_SORT_HOST_TOTAL,
                                     .row_limit = 12};
    TRY(nd_profiler_print_table(stdout, &opt));
    TRY(nd_profiler_export_chrome_trace(trace));
    TRY(nd_profiler_export_json(summary, &opt));
    printf("trace: %s (open it in https://ui.perfetto.dev or chrome://tracing)\nsummary: %s\n", trace, summary);
done:
    if (st != ND_OK) fprintf(stderr, "profile_training: %s: %s\n", nd_status_name(st), nd_last_error());
    if (nd_profiler_is_running()) nd_profiler_stop();
    nd_release(Xh), nd_release(yh), nd_release(wt), nd_release(t), nd_release(pos), nd_release(X), nd_release(y), nd_release(w);
    nd_release(Xb), nd_release(yb), nd_release(XbT), nd_release(z), nd_release(p), nd_release(diff);
    nd_release(sq), nd_release(loss), nd_release(gw);
    nd_rng_destroy(rng);
    if (st != ND_OK) return 1;
    printf("profile_training: ok\n");
    return 0;
}
