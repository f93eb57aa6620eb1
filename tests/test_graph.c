/* Graphs: capture once, replay many times (nd_graph_*), with the same cases
 * on every device: the CPU (recorded loops) and cuda:0 (stream capture: the
 * emulated device in make emu-test, which records and replays what is
 * queued on the capturing stream; a real GPU in the GPU check).
 *
 * Each replayed step is compared bit for bit with the same step run
 * eagerly on copies of its inputs: a replay runs the loops (or kernels) the
 * eager ops run, so the results are identical, never just close. */
#include <math.h>

#include "core/internal.h"
#include "test_util.h"

/* The devices the cases run on: the CPU, and cuda:0 when there is one. */
static int test_devices(nd_device *devs)
{
    int n = 0;
    devs[n++] = nd_cpu();
#ifdef ND_WITH_CUDA
    if (nd_test_gpu_count() > 0) devs[n++] = nd_cuda(0);
#endif
    return n;
}

/* a's float32 elements (any device) into h. */
static void to_host(float *h, const nd_array *a)
{
    ND_OK_OR_FAIL(nd_copy_to_host(h, a, (size_t)nd_size(a) * sizeof(float)));
}

/* An array of shape (r, c) with values that are not all zero. */
static nd_array *seeded(int64_t r, int64_t c, float scale, nd_device dev)
{
    float *h = malloc((size_t)(r * c) * sizeof *h);
    ck_assert_ptr_nonnull(h);
    for (int64_t i = 0; i < r * c; i++) h[i] = scale * (float)sin(0.37 * (double)i + 0.1);
    int64_t shape[2] = {r, c};
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, h, ND_FLOAT32, 2, shape, dev));
    free(h);
    return a;
}

static void expect_same(const nd_array *a, const nd_array *b, const char *what)
{
    int64_t n = nd_size(a);
    ck_assert_int_eq(n, nd_size(b));
    float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    ck_assert(x && y);
    to_host(x, a);
    to_host(y, b);
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++)
        if (memcmp(&x[i], &y[i], sizeof(float)) != 0) bad = i;
    float xv = bad >= 0 ? x[bad] : 0, yv = bad >= 0 ? y[bad] : 0;
    free(x), free(y);
    ck_assert_msg(bad < 0, "%s: element %lld is %.9g replayed, %.9g eager", what, (long long)bad, (double)xv, (double)yv);
}

/* One step of a tiny linear model trained by gradient descent, every
 * result into an existing array (w and the outputs are updated in place):
 *   y = x @ w; z = tanh(y); loss = sum(z * z); g = x^T @ z; w -= 0.05 g;
 *   sm = softmax(z, 1); cs = cumsum(z, 0); srt = sort(z, 1)
 * The temporaries (x^T's product, z*z, 0.05 g) are made and released in
 * the step. */
typedef struct step {
    nd_array *x, *w, *y, *z, *loss, *g, *sm, *cs, *srt;
} step;

static void run_step(step *s)
{
    nd_array *xt = NULL, *zz = NULL, *sg = NULL;
    ND_OK_OR_FAIL(nd_matmul(&s->y, s->x, s->w));
    ND_OK_OR_FAIL(nd_tanh(&s->z, s->y));
    ND_OK_OR_FAIL(nd_multiply(&zz, s->z, s->z));
    ND_OK_OR_FAIL(nd_sum(&s->loss, zz, 0, NULL, false));
    ND_OK_OR_FAIL(nd_transpose(&xt, s->x, NULL));
    ND_OK_OR_FAIL(nd_matmul(&s->g, xt, s->z));
    ND_OK_OR_FAIL(nd_binary_scalar(&sg, ND_BINARY_MULTIPLY, s->g, nd_scalar_float(0.05)));
    ND_OK_OR_FAIL(nd_subtract(&s->w, s->w, sg));
    ND_OK_OR_FAIL(nd_softmax(&s->sm, s->z, 1));
    ND_OK_OR_FAIL(nd_cumsum(&s->cs, s->z, 0));
    ND_OK_OR_FAIL(nd_sort(&s->srt, s->z, 1, 0));
    nd_release(xt), nd_release(zz), nd_release(sg);
}

static void step_init(step *s, nd_device dev)
{
    memset(s, 0, sizeof *s);
    s->x = seeded(16, 8, 1.0f, dev);
    s->w = seeded(8, 5, 0.3f, dev);
}

static void step_free(step *s)
{
    nd_array **a = &s->x;
    for (int i = 0; i < 9; i++) nd_release(a[i]);
}

static void expect_step(const step *r, const step *e, int launch)
{
    char what[64];
    const char *names[] = {"x", "w", "y", "z", "loss", "g", "softmax", "cumsum", "sort"};
    nd_array *const *ra = &r->x, *const *ea = &e->x;
    for (int i = 1; i < 9; i++) {
        snprintf(what, sizeof what, "launch %d: %s", launch, names[i]);
        expect_same(ra[i], ea[i], what);
    }
}

START_TEST(a_captured_step_replays_the_eager_step_bit_for_bit)
{
    nd_device devs[2];
    int nd = test_devices(devs);
    for (int d = 0; d < nd; d++) {
        nd_device dev = devs[d];
        step r, e;
        step_init(&r, dev);
        step_init(&e, dev);
        /* the outputs exist before the capture, as in a training loop's
         * first (eager) iteration */
        run_step(&r);
        run_step(&e);
        float w_before[40], w_after[40];
        to_host(w_before, r.w);
        nd_stream *s = NULL;
        ND_OK_OR_FAIL(nd_stream_create(&s, dev));
        nd_graph *g = NULL;
        ND_OK_OR_FAIL(nd_graph_begin(s));
        ck_assert_ptr_eq(nd_get_stream(dev), s); /* current for the capture */
        run_step(&r);
        ND_OK_OR_FAIL(nd_graph_end(&g));
        ck_assert_ptr_nonnull(g);
        ck_assert_ptr_null(nd_get_stream(dev)); /* restored */
        ck_assert_int_gt(nd_graph_size(g), 8);
        ND_OK_OR_FAIL(nd_synchronize(dev));
        to_host(w_after, r.w);
        ck_assert_msg(memcmp(w_before, w_after, sizeof w_before) == 0, "the capture ran the step on %s",
                      dev.type == ND_DEVICE_CPU ? "the CPU" : "the GPU");
        for (int launch = 1; launch <= 3; launch++) {
            ND_OK_OR_FAIL(nd_graph_launch(g, launch == 2 ? NULL : s));
            run_step(&e);
            ND_OK_OR_FAIL(nd_synchronize(dev));
            ND_OK_OR_FAIL(nd_stream_synchronize(s));
            expect_step(&r, &e, launch);
        }
        /* new inputs go into the captured arrays */
        nd_array *x2 = seeded(16, 8, -0.7f, dev);
        ND_OK_OR_FAIL(nd_copy(&r.x, x2));
        ND_OK_OR_FAIL(nd_copy(&e.x, x2));
        /* the copies ran on the current (default) stream, the launch goes on
         * s: the caller orders them, as for any two streams */
        ND_OK_OR_FAIL(nd_synchronize(dev));
        ND_OK_OR_FAIL(nd_graph_launch(g, s));
        run_step(&e);
        ND_OK_OR_FAIL(nd_stream_synchronize(s));
        expect_step(&r, &e, 4);
        ND_OK_OR_FAIL(nd_graph_destroy(g));
        ND_OK_OR_FAIL(nd_stream_destroy(s));
        nd_release(x2);
        step_free(&r), step_free(&e);
    }
}
END_TEST

/* Results allocated during the capture live in the graph's memory: each
 * launch rewrites them; released (during the capture or after), their
 * memory stays with the graph until it is destroyed, then goes back. */
START_TEST(arrays_made_in_the_capture_live_with_the_graph)
{
    nd_device devs[2];
    int nd = test_devices(devs);
    for (int d = 0; d < nd; d++) {
        nd_device dev = devs[d];
        nd_array *a = seeded(64, 64, 1.0f, dev), *b = seeded(64, 64, 0.5f, dev);
        ND_OK_OR_FAIL(nd_synchronize(dev));
        nd_memory_stats s0, s1, s2;
        ND_OK_OR_FAIL(nd_memory_get_stats(&s0, dev));
        nd_stream *s = NULL;
        ND_OK_OR_FAIL(nd_stream_create(&s, dev));
        nd_array *t = NULL, *out = NULL, *keep = NULL;
        nd_graph *g = NULL;
        ND_OK_OR_FAIL(nd_graph_begin(s));
        ND_OK_OR_FAIL(nd_add(&t, a, b));      /* a temporary, released in the capture */
        ND_OK_OR_FAIL(nd_multiply(&out, t, a)); /* (a + b) a */
        ND_OK_OR_FAIL(nd_exp(&keep, b));
        nd_release(t);
        ND_OK_OR_FAIL(nd_graph_end(&g));
        ND_OK_OR_FAIL(nd_graph_launch(g, s));
        ND_OK_OR_FAIL(nd_stream_synchronize(s));
        nd_array *ref = NULL, *ab = NULL, *refk = NULL;
        ND_OK_OR_FAIL(nd_add(&ab, a, b));
        ND_OK_OR_FAIL(nd_multiply(&ref, ab, a));
        ND_OK_OR_FAIL(nd_exp(&refk, b));
        expect_same(out, ref, "(a + b) a");
        expect_same(keep, refk, "exp(b)");
        /* a launch rewrites the result in place, also after the caller
         * changed it */
        ND_OK_OR_FAIL(nd_binary_scalar(&out, ND_BINARY_ADD, out, nd_scalar_float(100)));
        ND_OK_OR_FAIL(nd_synchronize(dev)); /* that change (default stream) before the launch (on s) */
        ND_OK_OR_FAIL(nd_graph_launch(g, s));
        ND_OK_OR_FAIL(nd_stream_synchronize(s));
        expect_same(out, ref, "(a + b) a, relaunched");
        /* out released before the graph: the graph still writes its memory */
        nd_release(out);
        ND_OK_OR_FAIL(nd_graph_launch(g, s));
        ND_OK_OR_FAIL(nd_stream_synchronize(s));
        ND_OK_OR_FAIL(nd_memory_get_stats(&s1, dev));
        ck_assert_uint_ge(s1.in_use, s0.in_use + 64 * 64 * sizeof(float)); /* keep, at least */
        ND_OK_OR_FAIL(nd_graph_destroy(g));
        expect_same(keep, refk, "exp(b) after the graph is gone"); /* still the caller's array */
        nd_release(keep);
        nd_release(ab), nd_release(ref), nd_release(refk);
        ND_OK_OR_FAIL(nd_memory_get_stats(&s2, dev));
        ck_assert_uint_eq(s2.in_use, s0.in_use); /* everything the capture made went back */
        nd_release(a), nd_release(b);
        ND_OK_OR_FAIL(nd_stream_destroy(s));
    }
}
END_TEST

/* What a graph cannot replay is refused on every device alike: the call
 * answers ND_ERR_UNSUPPORTED, and nd_graph_end answers its message. */
typedef nd_status (*refused_fn)(nd_device dev, nd_array *a);
static nd_status f_to_host(nd_device dev, nd_array *a)
{
    (void)dev;
    float v[4];
    return nd_copy_to_host(v, a, sizeof v);
}
static nd_status f_random(nd_device dev, nd_array *a)
{
    (void)a;
    nd_rng *rng = NULL;
    nd_array *r = NULL;
    int64_t n = 4;
    nd_status st = nd_rng_create(&rng, 1);
    if (!st) st = nd_random_uniform(&r, rng, ND_FLOAT32, 1, &n, 0, 1, dev);
    nd_release(r);
    nd_rng_destroy(rng);
    return st;
}
static nd_status f_arange(nd_device dev, nd_array *a)
{
    (void)a;
    nd_array *r = NULL;
    nd_status st = nd_arange(&r, ND_FLOAT32, 0, 4, 1, dev);
    nd_release(r);
    return st;
}
static nd_status f_sync(nd_device dev, nd_array *a)
{
    (void)a;
    return nd_synchronize(dev);
}
static nd_status f_nonzero(nd_device dev, nd_array *a)
{
    (void)dev;
    nd_array *idx[2] = {NULL, NULL};
    int n = 0;
    nd_status st = nd_nonzero(idx, 2, &n, a);
    nd_release(idx[0]), nd_release(idx[1]);
    return st;
}
static nd_status f_solve(nd_device dev, nd_array *a)
{
    (void)dev;
    nd_array *x = NULL;
    nd_status st = nd_linalg_solve(&x, a, a);
    nd_release(x);
    return st;
}
static nd_status f_event(nd_device dev, nd_array *a)
{
    (void)a;
    nd_event *e = NULL;
    nd_status st = nd_event_create(&e, dev);
    if (!st) st = nd_event_record(e, NULL);
    nd_event_destroy(e);
    return st;
}
static nd_status f_from_host(nd_device dev, nd_array *a)
{
    (void)dev;
    float v[4] = {1, 2, 3, 4};
    return nd_copy_from_host(a, v, sizeof v);
}

START_TEST(what_a_graph_cannot_replay_is_refused_alike)
{
    struct {
        refused_fn f;
        const char *needle;
    } cases[] = {
        {f_to_host, "reading device data on the host"},
        {f_random, "random numbers"},
        {f_arange, "contents computed on the host"},
        {f_sync, "synchronisation"},
        {f_nonzero, "cannot be captured"},
        {f_solve, "linear algebra"},
        {f_event, "an event"},
        {f_from_host, "a copy from host memory"},
    };
    nd_device devs[2];
    int nd = test_devices(devs);
    for (int d = 0; d < nd; d++) {
        nd_device dev = devs[d];
        nd_array *a = seeded(2, 2, 1.0f, dev);
        nd_stream *s = NULL;
        ND_OK_OR_FAIL(nd_stream_create(&s, dev));
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            nd_graph *g = NULL;
            nd_array *ok = NULL;
            ND_OK_OR_FAIL(nd_graph_begin(s));
            ND_OK_OR_FAIL(nd_add(&ok, a, a)); /* fine */
            nd_status st = cases[k].f(dev, a);
            ck_assert_msg(st == ND_ERR_UNSUPPORTED, "case %zu on %s: %s (%s)", k, dev.type ? "cuda:0" : "cpu",
                          nd_status_name(st), nd_last_error());
            ck_assert_msg(strstr(nd_last_error(), cases[k].needle), "case %zu: '%s' lacks '%s'", k, nd_last_error(),
                          cases[k].needle);
            nd_graph_end(&g); /* the first refusal, again */
            ck_assert_ptr_null(g);
            ck_assert_msg(strstr(nd_last_error(), cases[k].needle) && strstr(nd_last_error(), "nd_graph_end"),
                          "case %zu: nd_graph_end says '%s'", k, nd_last_error());
            ck_assert_ptr_null(nd_get_stream(dev)); /* the capture ended anyway */
            nd_release(ok);
        }
        /* misuse */
        nd_graph *g = NULL;
        ND_EXPECT_ERR(nd_graph_begin(NULL), ND_ERR_INVALID, "'stream' is NULL");
        ND_EXPECT_ERR(nd_graph_end(&g), ND_ERR_INVALID, "not capturing");
        ND_OK_OR_FAIL(nd_graph_begin(s));
        ND_EXPECT_ERR(nd_graph_begin(s), ND_ERR_INVALID, "capturing a graph already");
        ND_OK_OR_FAIL(nd_graph_end(&g)); /* an empty graph is fine */
        ck_assert_int_eq(nd_graph_size(g), 0);
        ND_OK_OR_FAIL(nd_graph_launch(g, s));
        nd_graph *g2 = NULL;
        ND_OK_OR_FAIL(nd_graph_begin(s));
        ND_EXPECT_ERR(nd_graph_launch(g, s), ND_ERR_UNSUPPORTED, "launching a graph");
        ND_EXPECT_ERR(nd_graph_end(&g2), ND_ERR_UNSUPPORTED, "launching a graph");
        ND_OK_OR_FAIL(nd_graph_destroy(g));
        ND_OK_OR_FAIL(nd_graph_destroy(NULL));
        ck_assert_int_eq(nd_graph_size(NULL), 0);
        ND_EXPECT_ERR(nd_graph_launch(NULL, s), ND_ERR_INVALID, "'graph' is NULL");
        /* the library works as before after all that */
        nd_array *r = NULL;
        ND_OK_OR_FAIL(nd_add(&r, a, a));
        float v[4], w[4];
        to_host(v, r);
        to_host(w, a);
        for (int i = 0; i < 4; i++) ck_assert_float_eq(v[i], 2 * w[i]);
        nd_release(r), nd_release(a);
        ND_OK_OR_FAIL(nd_stream_destroy(s));
    }
}
END_TEST

/* Fused expressions: recorded as the ops they are made of where the
 * device has no native graphs, captured as their kernels otherwise. */
START_TEST(fused_expressions_are_captured)
{
    nd_device devs[2];
    int nd = test_devices(devs);
    for (int d = 0; d < nd; d++) {
        nd_device dev = devs[d];
        nd_array *a = seeded(32, 32, 1.0f, dev), *b = seeded(32, 32, 0.25f, dev), *o = NULL, *ref = NULL;
        const char *names[2] = {"a", "b"};
        const nd_array *args[2] = {a, b};
        ND_OK_OR_FAIL(nd_expr_eval(&ref, "a * b + tanh(a)", 2, names, args));
        ND_OK_OR_FAIL(nd_empty_like(&o, ref));
        nd_stream *s = NULL;
        ND_OK_OR_FAIL(nd_stream_create(&s, dev));
        nd_graph *g = NULL;
        ND_OK_OR_FAIL(nd_graph_begin(s));
        ND_OK_OR_FAIL(nd_expr_eval(&o, "a * b + tanh(a)", 2, names, args));
        ND_OK_OR_FAIL(nd_graph_end(&g));
        ND_OK_OR_FAIL(nd_graph_launch(g, s));
        ND_OK_OR_FAIL(nd_stream_synchronize(s));
        expect_same(o, ref, "a * b + tanh(a)");
        ND_OK_OR_FAIL(nd_graph_destroy(g));
        ND_OK_OR_FAIL(nd_stream_destroy(s));
        nd_release(a), nd_release(b), nd_release(o), nd_release(ref);
    }
}
END_TEST

/* A result copied to pinned host memory inside the graph (nd_copy_async):
 * every launch brings the new values to the host. */
START_TEST(copies_to_pinned_memory_are_captured)
{
    nd_device devs[2];
    int nd = test_devices(devs);
    for (int d = 0; d < nd; d++) {
        nd_device dev = devs[d];
        nd_array *x = seeded(8, 16, 1.0f, dev), *y = NULL, *h = NULL;
        ND_OK_OR_FAIL(nd_empty_pinned(&h, ND_FLOAT32, 2, (int64_t[]){8, 16}));
        nd_stream *s = NULL;
        ND_OK_OR_FAIL(nd_stream_create(&s, dev));
        ND_OK_OR_FAIL(nd_binary_scalar(&y, ND_BINARY_MULTIPLY, x, nd_scalar_float(2)));
        nd_graph *g = NULL;
        ND_OK_OR_FAIL(nd_graph_begin(s));
        ND_OK_OR_FAIL(nd_binary_scalar(&y, ND_BINARY_MULTIPLY, x, nd_scalar_float(2)));
        ND_OK_OR_FAIL(nd_copy_async(h, y, s));
        ND_OK_OR_FAIL(nd_graph_end(&g));
        for (int launch = 0; launch < 3; launch++) {
            nd_array *xn = seeded(8, 16, (float)(launch + 1), dev);
            ND_OK_OR_FAIL(nd_copy(&x, xn));
            ND_OK_OR_FAIL(nd_synchronize(dev)); /* the new input is in place before the launch's stream reads it */
            ND_OK_OR_FAIL(nd_graph_launch(g, s));
            ND_OK_OR_FAIL(nd_stream_synchronize(s));
            float want[128];
            to_host(want, xn);
            const float *got = nd_data(h);
            for (int i = 0; i < 128; i++)
                ck_assert_msg(got[i] == 2 * want[i], "launch %d on %s: element %d is %g, want %g", launch,
                              dev.type ? "cuda:0" : "cpu", i, (double)got[i], (double)(2 * want[i]));
            nd_release(xn);
        }
        ND_OK_OR_FAIL(nd_graph_destroy(g));
        ND_OK_OR_FAIL(nd_stream_destroy(s));
        nd_release(x), nd_release(y), nd_release(h);
    }
}
END_TEST

#ifdef ND_WITH_CUDA
/* A device served by CUDA's stream-ordered pool does not capture (its
 * allocations would become graph memory nodes). */
START_TEST(async_pool_devices_refuse_to_capture)
{
    ND_OK_OR_FAIL(nd_synchronize(nd_cuda(0)));
    ND_OK_OR_FAIL(nd_memory_set_pool(nd_cuda(0), ND_POOL_KIND_ASYNC));
    nd_stream *s = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s, nd_cuda(0)));
    ND_EXPECT_ERR(nd_graph_begin(s), ND_ERR_UNSUPPORTED, "ND_POOL=async");
    ck_assert_ptr_null(nd_get_stream(nd_cuda(0)));
    ND_OK_OR_FAIL(nd_stream_destroy(s));
    ND_OK_OR_FAIL(nd_memory_set_pool(nd_cuda(0), ND_POOL_KIND_CACHING));
    ND_EXPECT_ERR(nd_graph_begin(NULL), ND_ERR_INVALID, "'stream' is NULL");
}
END_TEST
#endif

Suite *suite_graph(void)
{
    Suite *s = suite_create("graph");
    TCase *tc = tcase_create("graph");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_captured_step_replays_the_eager_step_bit_for_bit);
    tcase_add_test(tc, arrays_made_in_the_capture_live_with_the_graph);
    tcase_add_test(tc, what_a_graph_cannot_replay_is_refused_alike);
    tcase_add_test(tc, fused_expressions_are_captured);
    tcase_add_test(tc, copies_to_pinned_memory_are_captured);
#ifdef ND_WITH_CUDA
    if (nd_test_gpu_count() > 0) tcase_add_test(tc, async_pool_devices_refuse_to_capture);
#endif
    suite_add_tcase(s, tc);
    return s;
}
