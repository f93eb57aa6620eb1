/* batch_memory.c - how much memory does a forward pass need, as a function
 * of the batch size? One dense layer y = relu(x W + b) with 1024 inputs and
 * 1024 outputs (W: 4 MiB of float32), for batch sizes 1 ... 4096.
 *
 *   build/examples/batch_memory [cpu | cuda]   (default: nd_default_device)
 *
 * The figures come from the allocator itself: nd_memory_reset_peak before
 * the pass, nd_memory_get_stats().peak_in_use after it, minus what was in
 * use before (the weights). On a GPU that is device memory from the
 * caching pool; on the CPU the backend keeps the same accounting for host
 * memory, so the example runs unchanged on a machine without a GPU.
 *
 * Two versions of the same pass:
 *   out of place:  h = x @ W; h2 = h + b; y = relu(h2)     x + 3 activations alive
 *   in place:      h = x @ W; h += b; h = relu(h)          x + 1 activation
 * (in place = the out-pointer rule with *out == an input). Memory grows
 * linearly with the batch: the per-sample cost is what limits the batch
 * size on a GPU, the weights are a fixed cost.
 */
// expect: batch_memory: ok
#include <ndgpu.h>
#include <stdio.h>
#include <string.h>

enum { IN = 1024, OUT = 1024 };
static const int64_t batches[] = {1, 16, 64, 256, 1024, 4096};
#define NB (int)(sizeof batches / sizeof batches[0])

static char g_err[512];
#define TRY(call)                                                        \
    do {                                                                 \
        st = (call);                                                     \
        if (st != ND_OK) {                                               \
            snprintf(g_err, sizeof g_err, "%s", nd_last_error());        \
            goto done;                                                   \
        }                                                                \
    } while (0)

static double mib(size_t b) { return b / 1048576.0; }

/* Peak bytes above the baseline during one forward pass. */
static nd_status forward_peak(size_t *peak, nd_device dev, const nd_array *W, const nd_array *b, int64_t batch,
                              int in_place)
{
    nd_status st = ND_OK;
    nd_array *x = NULL, *h = NULL, *h2 = NULL, *y = NULL;
    nd_memory_stats s0, s1;
    TRY(nd_memory_reset_peak(dev));
    TRY(nd_memory_get_stats(&s0, dev));
    TRY(nd_full(&x, ND_FLOAT32, 2, (int64_t[]){batch, IN}, nd_scalar_float(0.01), dev));
    TRY(nd_matmul(&h, x, W));
    if (in_place) {
        TRY(nd_add(&h, h, b));
        TRY(nd_relu(&h, h));
    } else {
        TRY(nd_add(&h2, h, b));
        TRY(nd_relu(&y, h2));
    }
    TRY(nd_synchronize(dev));
    TRY(nd_memory_get_stats(&s1, dev));
    *peak = s1.peak_in_use - s0.in_use;
done:
    nd_release(x), nd_release(h), nd_release(h2), nd_release(y);
    return st;
}

static nd_status measure(nd_device dev, size_t peaks[2][NB])
{
    nd_status st = ND_OK;
    nd_array *W = NULL, *b = NULL;
    TRY(nd_full(&W, ND_FLOAT32, 2, (int64_t[]){IN, OUT}, nd_scalar_float(0.001), dev));
    TRY(nd_full(&b, ND_FLOAT32, 1, (int64_t[]){OUT}, nd_scalar_float(0.5), dev));
    for (int i = 0; i < NB; i++)
        for (int ip = 0; ip < 2; ip++) {
            st = forward_peak(&peaks[ip][i], dev, W, b, batches[i], ip);
            if (st) goto done; /* g_err is set */
        }
done:
    nd_release(W), nd_release(b);
    return st;
}

int main(int argc, char **argv)
{
    nd_device dev = nd_default_device();
    if (argc > 1) dev = strcmp(argv[1], "cpu") == 0 ? nd_cpu() : nd_cuda(0);
    if (dev.type == ND_DEVICE_CUDA && nd_cuda_device_count() == 0) {
        printf("cuda requested, but there is no GPU: falling back to the CPU\n");
        dev = nd_cpu();
    }
    if (dev.type == ND_DEVICE_CPU) {
        const char *why = strstr(nd_build_info(), "no GPU: ");
        if (nd_cuda_device_count() == 0)
            printf("no GPU (%s): measuring on the CPU, whose backend accounts for host memory the same way\n",
                   why ? why + 8 : "libndgpu was built without CUDA");
    }

    static size_t peaks[2][NB];
    nd_status st = measure(dev, peaks);
    if (st != ND_OK) {
        fprintf(stderr, "batch_memory failed: %s: %s\n", nd_status_name(st), g_err);
        return 1;
    }
    nd_memory_stats s;
    if (nd_memory_get_stats(&s, dev) == ND_OK && s.pooled)
        printf("(%s allocates through a caching pool: figures are rounded to its 512-byte blocks)\n",
               dev.type == ND_DEVICE_CUDA ? "cuda" : "cpu");

    printf("dense layer %dx%d float32 on %s:%d: weights %.2f MiB (fixed cost)\n", IN, OUT,
           dev.type == ND_DEVICE_CUDA ? "cuda" : "cpu", dev.id, mib((size_t)IN * OUT * 4 + OUT * 4));
    printf("%7s %10s %10s %18s %14s %14s\n", "batch", "x MiB", "y MiB", "out-of-place MiB", "in-place MiB",
           "per sample KiB");
    int ok = 1;
    for (int i = 0; i < NB; i++) {
        size_t xb = (size_t)batches[i] * IN * 4, yb = (size_t)batches[i] * OUT * 4;
        printf("%7lld %10.3f %10.3f %18.3f %14.3f %14.1f\n", (long long)batches[i], mib(xb), mib(yb),
               mib(peaks[0][i]), mib(peaks[1][i]), peaks[1][i] / 1024.0 / batches[i]);
        /* The accounting must see at least x and y, in place must not cost
         * more than out of place, and memory must grow with the batch. */
        if (peaks[1][i] < xb + yb || peaks[1][i] > peaks[0][i]) ok = 0;
        if (i > 0 && peaks[1][i] < peaks[1][i - 1]) ok = 0;
    }
    size_t big = (size_t)batches[NB - 1];
    printf("at batch %zu: out of place needs %.2fx the memory of in place (3 activations alive instead of 1);\n"
           "memory grows linearly with the batch, so the largest batch that fits is about\n"
           "(free memory - weights) / per-sample bytes.\n",
           big, (double)peaks[0][NB - 1] / (double)peaks[1][NB - 1]);
    printf("batch_memory: %s\n", ok ? "ok" : "UNEXPECTED FIGURES");
    return ok ? 0 : 1;
}
