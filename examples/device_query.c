/* device_query.c - is there a GPU, how many, which one to use, and the
 * fallback to the CPU when there is none.
 *
 *   build/examples/device_query          pick the device automatically
 *   build/examples/device_query 1        ask for cuda:1
 *   build/examples/device_query cpu      force the CPU
 *   CUDA_VISIBLE_DEVICES=2 build/examples/device_query
 *                                        the CUDA runtime shows only GPU 2,
 *                                        which libndgpu then calls cuda:0
 *
 * What it shows:
 *  - nd_cuda_device_count() is 0, silently, in a CPU-only build or without
 *    a driver or GPU; nd_build_info() says why ("no GPU: ...").
 *  - nd_default_device() is cuda:0 when a GPU is usable, else the CPU; the
 *    environment variable ND_DEVICE=cpu|cuda:N overrides it.
 *  - nd_device_get_info() describes a device (name, compute capability,
 *    multiprocessors, memory, peak bandwidth).
 *  - A small array is created on the chosen device and read back, which
 *    proves the device works; without a GPU it all runs on the CPU.
 * Exit status 0 whether or not there is a GPU.
 */
// expect: device_query: ok
#include <ndgpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_info(nd_device dev)
{
    nd_device_info in;
    if (nd_device_get_info(&in, dev) != ND_OK) {
        printf("    (no information: %s)\n", nd_last_error());
        return;
    }
    if (dev.type == ND_DEVICE_CUDA)
        printf("    cuda:%d  %s, compute capability %d.%d, %d SMs, %.1f GiB (%.1f GiB free), peak %.0f GB/s\n", dev.id,
               in.name, in.cc_major, in.cc_minor, in.multiprocessors, in.total_memory / 1073741824.0,
               in.free_memory / 1073741824.0, in.peak_bandwidth_gbps);
    else
        printf("    cpu:0   %s, %d threads, %.1f GiB (%.1f GiB free)\n", in.name, in.multiprocessors,
               in.total_memory / 1073741824.0, in.free_memory / 1073741824.0);
}

int main(int argc, char **argv)
{
    printf("%s\n", nd_build_info());
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    const char *ndd = getenv("ND_DEVICE");
    printf("CUDA_VISIBLE_DEVICES=%s  ND_DEVICE=%s\n", cvd ? cvd : "(unset)", ndd ? ndd : "(unset)");

    /* 1. Is a GPU available, and how many? */
    int n = nd_cuda_device_count();
    printf("GPUs: %d\n", n);
    print_info(nd_cpu());
    for (int i = 0; i < n; i++) print_info(nd_cuda(i));

    /* 2. Choose: the argument ("cpu" or a GPU index), else the default. */
    nd_device dev = nd_default_device();
    if (argc > 1) {
        if (strcmp(argv[1], "cpu") == 0) {
            dev = nd_cpu();
        } else {
            char *end;
            long id = strtol(argv[1], &end, 10);
            if (*end != '\0' || id < 0) {
                fprintf(stderr, "usage: device_query [cpu | GPU index]\n");
                return 2;
            }
            if (id < n) {
                dev = nd_cuda((int)id);
            } else {
                printf("cuda:%ld requested, but there %s %d GPU%s: ", id, n == 1 ? "is" : "are", n, n == 1 ? "" : "s");
                dev = n > 0 ? nd_cuda(0) : nd_cpu();
                printf("using %s instead\n", n > 0 ? "cuda:0" : "the CPU");
            }
        }
    }

    /* 3. Fall back to the CPU, saying why. */
    if (n == 0) {
        const char *why = strstr(nd_build_info(), "no GPU: ");
        printf("no GPU available (%s): falling back to the CPU\n",
               why ? why + 8 : "libndgpu was built without CUDA (CUDA=0)");
    }
    printf("using %s:%d\n", dev.type == ND_DEVICE_CUDA ? "cuda" : "cpu", dev.id);

    /* 4. Prove the device works: a round trip through it. */
    const float host[4] = {1, 2, 3, 4};
    float back[4] = {0};
    nd_array *a = NULL;
    nd_status st = nd_from_host(&a, host, ND_FLOAT32, 1, (int64_t[]){4}, dev);
    if (st == ND_OK) st = nd_copy_to_host(back, a, sizeof back);
    if (st != ND_OK && dev.type == ND_DEVICE_CUDA) {
        printf("cuda:%d is not usable (%s): falling back to the CPU\n", dev.id, nd_last_error());
        nd_release(a);
        a = NULL;
        dev = nd_cpu();
        st = nd_from_host(&a, host, ND_FLOAT32, 1, (int64_t[]){4}, dev);
        if (st == ND_OK) st = nd_copy_to_host(back, a, sizeof back);
    }
    if (st != ND_OK) {
        fprintf(stderr, "round trip failed: %s\n", nd_last_error());
        nd_release(a);
        return 1;
    }
    nd_device where = nd_device_of(a);
    printf("round trip on %s:%d: [%g %g %g %g]\n", where.type == ND_DEVICE_CUDA ? "cuda" : "cpu", where.id, back[0],
           back[1], back[2], back[3]);
    nd_release(a);
    int ok = memcmp(host, back, sizeof host) == 0;
    printf("device_query: %s\n", ok ? "ok" : "WRONG RESULT");
    return ok ? 0 : 1;
}
