/* cpu_vs_gpu.c - the same computation on the CPU and on the GPU, where the
 * time goes (transfers vs compute), and an answer to "does my program
 * actually use the GPU?".
 *
 *   build/examples/cpu_vs_gpu [n]      (default n = 1024)
 *
 * The computation: C = A @ B for two n x n float32 matrices, then
 * s = sum(tanh(C)). On each device: upload A and B from host memory
 * (nd_to_device), compute, download C and s (nd_copy_to_host); each phase
 * is timed with events of that device (GPU events on the GPU, the host
 * clock on the CPU), after one untimed warm-up run (the first GPU call also
 * pays for the CUDA context and cuBLAS handle).
 *
 * Does my program use the GPU? Three checks, all printed:
 *  - where the result lives: nd_device_of(C) is cuda:N only if the op ran
 *    there (libndgpu never moves data implicitly; mixing devices in one op
 *    is an error, not a silent copy);
 *  - the GPU memory pool: nd_memory_get_stats(cuda:N).in_use grows while
 *    the arrays exist;
 *  - what nd_default_device() picks (ND_DEVICE=cpu forces the CPU).
 * Without a GPU it runs on the CPU only and says so.
 */
// expect: cpu_vs_gpu: ok
#include <math.h>
#include <ndgpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_err[512];
#define TRY(call)                                                        \
    do {                                                                 \
        st = (call);                                                     \
        if (st != ND_OK) {                                               \
            snprintf(g_err, sizeof g_err, "%s", nd_last_error());        \
            goto done;                                                   \
        }                                                                \
    } while (0)

typedef struct timing {
    float upload_ms, compute_ms, download_ms;
    double sum;         /* s */
    float c00;          /* C[0,0], for the comparison */
    size_t pool_in_use; /* the device pool while the arrays lived */
    nd_device where;    /* the device C lives on */
} timing;

static const char *devname(nd_device d)
{
    static char buf[2][32];
    static int k;
    k ^= 1;
    snprintf(buf[k], sizeof buf[k], "%s:%d", d.type == ND_DEVICE_CUDA ? "cuda" : "cpu", d.id);
    return buf[k];
}

/* Event time between e0 and e1 after waiting for e1. */
static nd_status elapsed(float *ms, nd_event *e0, nd_event *e1)
{
    nd_status st = nd_event_synchronize(e1);
    return st ? st : nd_event_elapsed_ms(ms, e0, e1);
}

static nd_status pipeline(timing *t, nd_device dev, const nd_array *hA, const nd_array *hB, int64_t n, float *c_host)
{
    nd_status st = ND_OK;
    nd_event *e0 = NULL, *e1 = NULL, *e2 = NULL, *e3 = NULL;
    nd_array *A = NULL, *B = NULL, *C = NULL, *T = NULL, *S = NULL;
    memset(t, 0, sizeof *t);
    TRY(nd_event_create(&e0, dev));
    TRY(nd_event_create(&e1, dev));
    TRY(nd_event_create(&e2, dev));
    TRY(nd_event_create(&e3, dev));

    TRY(nd_event_record(e0, NULL));
    TRY(nd_to_device(&A, hA, dev)); /* host -> device */
    TRY(nd_to_device(&B, hB, dev));
    TRY(nd_event_record(e1, NULL));
    TRY(elapsed(&t->upload_ms, e0, e1));

    TRY(nd_matmul(&C, A, B));
    TRY(nd_tanh(&T, C));
    TRY(nd_sum(&S, T, 0, NULL, false));
    TRY(nd_event_record(e2, NULL));
    TRY(elapsed(&t->compute_ms, e1, e2));

    nd_memory_stats ms;
    TRY(nd_memory_get_stats(&ms, dev));
    t->pool_in_use = ms.in_use;
    t->where = nd_device_of(C);

    /* device -> host: C (n x n) and s */
    TRY(nd_copy_to_host(c_host, C, (size_t)(n * n) * sizeof(float)));
    float s;
    TRY(nd_copy_to_host(&s, S, sizeof s));
    t->sum = s;
    t->c00 = c_host[0];
    TRY(nd_event_record(e3, NULL));
    TRY(elapsed(&t->download_ms, e2, e3));
done:
    nd_release(A), nd_release(B), nd_release(C), nd_release(T), nd_release(S);
    nd_event_destroy(e0), nd_event_destroy(e1), nd_event_destroy(e2), nd_event_destroy(e3);
    return st;
}

static void row(const char *name, const timing *t)
{
    float total = t->upload_ms + t->compute_ms + t->download_ms;
    printf("  %-8s %10.3f %11.3f %12.3f %10.3f   %5.1f%% of the time in transfers\n", name, t->upload_ms, t->compute_ms,
           t->download_ms, total, total > 0 ? 100.0 * (t->upload_ms + t->download_ms) / total : 0.0);
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 1024;
    if (n < 16 || n > 16384) n = 1024;

    int ngpu = nd_cuda_device_count();
    nd_device def = nd_default_device();
    printf("nd_default_device() = %s%s\n", devname(def), getenv("ND_DEVICE") ? " (set by ND_DEVICE)" : "");

    /* Host inputs, uniform in [-1, 1). */
    nd_status st = ND_OK;
    nd_rng *rng = NULL;
    nd_array *hA = NULL, *hB = NULL;
    float *c_host = malloc((size_t)(n * n) * sizeof(float));
    int ok = c_host != NULL;
    timing cpu, gpu;
    int gpu_ran = 0;
    TRY(nd_rng_create(&rng, 7));
    TRY(nd_random_uniform(&hA, rng, ND_FLOAT32, 2, (int64_t[]){n, n}, -1.0, 1.0, nd_cpu()));
    TRY(nd_random_uniform(&hB, rng, ND_FLOAT32, 2, (int64_t[]){n, n}, -1.0, 1.0, nd_cpu()));
    if (!ok) goto done;

    printf("C = A @ B, s = sum(tanh(C)) for %lldx%lld float32 (%.1f MB per matrix)\n", (long long)n, (long long)n,
           n * n * 4 / 1e6);
    TRY(pipeline(&cpu, nd_cpu(), hA, hB, n, c_host)); /* warm-up */
    TRY(pipeline(&cpu, nd_cpu(), hA, hB, n, c_host));
    if (ngpu > 0) {
        TRY(pipeline(&gpu, nd_cuda(0), hA, hB, n, c_host)); /* warm-up: context, cuBLAS */
        TRY(pipeline(&gpu, nd_cuda(0), hA, hB, n, c_host));
        gpu_ran = 1;
    }

    printf("  %-8s %10s %11s %12s %10s\n", "device", "upload ms", "compute ms", "download ms", "total ms");
    row("cpu:0", &cpu);
    if (gpu_ran) row("cuda:0", &gpu);

    if (gpu_ran) {
        double rel = fabs(gpu.sum - cpu.sum) / (1.0 + fabs(cpu.sum));
        double rel00 = fabs(gpu.c00 - cpu.c00) / (1.0 + fabs(cpu.c00));
        printf("results: s = %.4f on the CPU, %.4f on the GPU (relative difference %.1e)\n", cpu.sum, gpu.sum, rel);
        if (rel > 1e-3 || rel00 > 1e-3) ok = 0;
        printf("compute speed-up of the GPU: %.1fx; end to end (with transfers): %.1fx\n",
               cpu.compute_ms / gpu.compute_ms,
               (cpu.upload_ms + cpu.compute_ms + cpu.download_ms) /
                   (gpu.upload_ms + gpu.compute_ms + gpu.download_ms));
        printf("where the time goes: transfers are %.0f%% of the GPU run; keep data on the device between ops\n"
               "and use pinned memory (see transfer_timing) when the transfers dominate\n",
               100.0 * (gpu.upload_ms + gpu.download_ms) / (gpu.upload_ms + gpu.compute_ms + gpu.download_ms));
    }

    printf("does this program use the GPU? ");
    if (ngpu == 0) {
        const char *why = strstr(nd_build_info(), "no GPU: ");
        printf("no: there is no GPU (%s); everything ran on the CPU, which is where C lives (%s)\n",
               why ? why + 8 : "libndgpu was built without CUDA", devname(cpu.where));
    } else {
        printf("yes: C lives on %s, and the cuda:0 pool held %.1f MiB while it existed\n", devname(gpu.where),
               gpu.pool_in_use / 1048576.0);
    }
    ok = ok && isfinite(cpu.sum);
done:
    if (st != ND_OK) {
        fprintf(stderr, "cpu_vs_gpu failed: %s: %s\n", nd_status_name(st), g_err);
        ok = 0;
    }
    nd_release(hA), nd_release(hB);
    nd_rng_destroy(rng);
    free(c_host);
    printf("cpu_vs_gpu: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
