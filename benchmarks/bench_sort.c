/* bench_sort - the issue-13 sorting speed cases through the public API:
 *   sort    float32 1e7          (NumPy: np.sort(a))
 *   argsort float32 1e7          (NumPy: np.argsort(a))
 *   topk    float32 (4096, 4096), k = 10, last axis, largest
 *                                (NumPy: np.argpartition(a, -10, axis=-1))
 * uniform [0, 1) inputs; each case is checked once (sortedness / the
 * selected values against a per-row scan), then timed: the median of
 * samples taking --min-time seconds (default 1; --quick 0.3), the timed
 * calls writing into an existing output. One JSON object per line (op,
 * dtype, shape, device, median_s) on stdout, or into --json FILE.
 * Options: --quick, --json FILE, --min-time S, --device cpu|cuda|all. */
#include <ndgpu.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { C_SORT, C_ARGSORT, C_TOPK, NCASES };
static const char *const names[NCASES] = {"sort", "argsort", "topk"};

static int run(int c, nd_array *a, nd_array **o1, nd_array **o2)
{
    switch (c) {
    case C_SORT: return nd_sort(o1, a, -1, ND_SORT_DEFAULT);
    case C_ARGSORT: return nd_argsort(o1, a, -1, ND_SORT_DEFAULT);
    default: return nd_topk(o1, o2, a, 10, -1, true, true);
    }
}

/* Check the result on the host; 0 when right. */
static int check(int c, nd_array *a, nd_array *o1, nd_array *o2)
{
    int64_t n = nd_size(a);
    float *x = malloc((size_t)n * 4), *v = malloc((size_t)n * 4);
    int64_t *ix = malloc((size_t)n * 8);
    int bad = !x || !v || !ix;
    if (!bad) bad = nd_copy_to_host(x, a, (size_t)n * 4) != ND_OK;
    if (!bad && c == C_SORT) {
        bad = nd_copy_to_host(v, o1, (size_t)n * 4) != ND_OK;
        for (int64_t i = 1; !bad && i < n; i++) bad = v[i - 1] > v[i];
    } else if (!bad && c == C_ARGSORT) {
        bad = nd_copy_to_host(ix, o1, (size_t)n * 8) != ND_OK;
        for (int64_t i = 1; !bad && i < n; i++) bad = x[ix[i - 1]] > x[ix[i]];
    } else if (!bad) {
        const int64_t *sh = nd_shape(a);
        int64_t rows = sh[0], cols = sh[1];
        bad = nd_copy_to_host(v, o1, (size_t)rows * 10 * 4) != ND_OK || nd_copy_to_host(ix, o2, (size_t)rows * 80) != ND_OK;
        for (int64_t r = 0; !bad && r < rows; r++) {
            int64_t greater = 0;
            for (int64_t j = 0; j < cols; j++) greater += x[r * cols + j] > v[r * 10 + 9];
            bad = greater > 9 || x[r * cols + ix[r * 10]] != v[r * 10];
        }
    }
    free(x);
    free(v);
    free(ix);
    return bad;
}

int main(int argc, char **argv)
{
    double min_time = 1.0;
    const char *json = NULL;
    bool cpu = true, cuda = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) min_time = 0.3;
        else if (!strcmp(argv[i], "--json") && i + 1 < argc) json = argv[++i];
        else if (!strcmp(argv[i], "--min-time") && i + 1 < argc) min_time = atof(argv[++i]);
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            const char *d = argv[++i];
            cpu = !strcmp(d, "cpu") || !strcmp(d, "all");
            cuda = !strcmp(d, "cuda") || !strcmp(d, "all");
        }
    }
    if (cuda && nd_cuda_device_count() == 0) cuda = false;
    FILE *js = json ? fopen(json, "w") : stdout;
    if (!js) return 2;
    nd_rng *rng = NULL;
    if (nd_rng_create(&rng, 42)) return 2;
    int fails = 0;
    for (int dv = 0; dv < 2; dv++) {
        if ((dv == 0 && !cpu) || (dv == 1 && !cuda)) continue;
        nd_device dev = dv ? nd_cuda(0) : nd_cpu();
        for (int c = 0; c < NCASES; c++) {
            int64_t shape[2] = {10000000, 0};
            int ndim = 1;
            if (c == C_TOPK) ndim = 2, shape[0] = 4096, shape[1] = 4096;
            nd_array *a = NULL, *o1 = NULL, *o2 = NULL;
            if (nd_random_uniform(&a, rng, ND_FLOAT32, ndim, shape, 0.0, 1.0, dev) || run(c, a, &o1, &o2) ||
                check(c, a, o1, o2)) {
                fprintf(stderr, "bench_sort: %s failed: %s\n", names[c], nd_last_error());
                fails++;
                nd_release(a);
                nd_release(o1);
                nd_release(o2);
                continue;
            }
            double samples[1000];
            int ns = 0;
            double t0 = now();
            while (ns < 1000 && (ns < 3 || now() - t0 < min_time)) {
                double s = now();
                run(c, a, &o1, &o2);
                nd_synchronize(dev);
                samples[ns++] = now() - s;
            }
            qsort(samples, (size_t)ns, sizeof(double), cmp_d);
            char shp[64];
            if (ndim == 1) snprintf(shp, sizeof shp, "[%lld]", (long long)shape[0]);
            else snprintf(shp, sizeof shp, "[%lld, %lld]", (long long)shape[0], (long long)shape[1]);
            fprintf(js, "{\"op\": \"%s\", \"dtype\": \"float32\", \"shape\": %s, \"device\": \"%s\", \"median_s\": %.6g, \"min_s\": %.6g, \"samples\": %d}\n",
                    names[c], shp, dv ? "cuda:0" : "cpu", samples[ns / 2], samples[0], ns);
            fflush(js);
            nd_release(a);
            nd_release(o1);
            nd_release(o2);
        }
    }
    nd_rng_destroy(rng);
    if (js != stdout) fclose(js);
    return fails ? 1 : 0;
}
