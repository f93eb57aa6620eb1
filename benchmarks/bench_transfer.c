/* bench_transfer - host <-> device copies of 1 KiB .. 1 GiB in steps of 4x
 * (--quick: 1 KiB .. 64 MiB in steps of 16x) through the public API:
 *   h2d out       nd_to_device(&dev_arr, host_arr, cuda) into an existing device array
 *   h2d alloc     nd_to_device into a new device array (+ nd_release)
 *   d2h host_ptr  nd_copy_to_host into pageable malloc() memory
 *   d2h out       nd_to_device(&host_arr, dev_arr, cpu) into an existing CPU array
 *   d2h alloc     nd_to_device into a new CPU array (+ nd_release)
 *   h2d pinned_async  nd_copy_async(dev_arr, pinned host array, stream) + nd_stream_synchronize
 *   d2h pinned_async  nd_copy_async(pinned host array, dev_arr, stream) + nd_stream_synchronize
 *   h2d raw_pinned / d2h raw_pinned  cudaMemcpy from/to the same pinned buffer: the ceiling
 * Wall-clock timing with nd_synchronize after each sample. Every case is
 * checked once: the bytes that arrive are the bytes that were sent.
 *
 * On a machine without a GPU it prints that it has none and exits 0. */
#include "bench_common.h"

#include <stdlib.h>
#include <string.h>
#ifdef ND_WITH_CUDA
#include <cuda_runtime.h>
#endif

enum { D_H2D_OUT, D_H2D_ALLOC, D_D2H_PTR, D_D2H_OUT, D_D2H_ALLOC, D_H2D_PIN, D_D2H_PIN, D_H2D_RAW, D_D2H_RAW, NDIRS };
static const char *const dir_names[NDIRS] = {"h2d", "h2d", "d2h", "d2h", "d2h", "h2d", "d2h", "h2d", "d2h"};
static const char *const dir_layouts[NDIRS] = {"out",          "alloc",        "host_ptr",   "out",       "alloc",
                                               "pinned_async", "pinned_async", "raw_pinned", "raw_pinned"};
static const char *const dir_calls[NDIRS] = {"nd_to_device",  "nd_to_device",  "nd_copy_to_host",
                                             "nd_to_device",  "nd_to_device",  "nd_copy_async",
                                             "nd_copy_async", "cudaMemcpy",    "cudaMemcpy"};
static bool is_h2d(int dir) { return dir == D_H2D_OUT || dir == D_H2D_ALLOC || dir == D_H2D_PIN || dir == D_H2D_RAW; }
static bool uses_pinned(int dir) { return dir >= D_H2D_PIN; }

typedef struct tr_call {
    int dir;
    nd_array *host_arr; /* CPU source (h2d) / CPU target (d2h out) */
    nd_array *dev_arr;  /* device target (h2d out) / device source (d2h) */
    void *pageable;     /* malloc'ed target of d2h host_ptr */
    size_t nbytes;
    nd_device dev;
    nd_stream *stream;  /* for the async cases */
} tr_call;

static int tr_run(void *p)
{
    tr_call *c = p;
    nd_array *t = NULL;
    nd_status s;
    switch (c->dir) {
    case D_H2D_OUT: return nd_to_device(&c->dev_arr, c->host_arr, c->dev);
    case D_H2D_ALLOC: s = nd_to_device(&t, c->host_arr, c->dev); break;
    case D_D2H_PTR: return nd_copy_to_host(c->pageable, c->dev_arr, c->nbytes);
    case D_D2H_OUT: return nd_to_device(&c->host_arr, c->dev_arr, nd_cpu());
    case D_H2D_PIN:
        s = nd_copy_async(c->dev_arr, c->host_arr, c->stream);
        return s ? s : nd_stream_synchronize(c->stream);
    case D_D2H_PIN:
        s = nd_copy_async(c->host_arr, c->dev_arr, c->stream);
        return s ? s : nd_stream_synchronize(c->stream);
#ifdef ND_WITH_CUDA
    case D_H2D_RAW:
        return cudaMemcpy(nd_data(c->dev_arr), nd_data(c->host_arr), c->nbytes, cudaMemcpyHostToDevice) == cudaSuccess
                   ? ND_OK
                   : ND_ERR_BACKEND;
    case D_D2H_RAW:
        return cudaMemcpy(nd_data(c->host_arr), nd_data(c->dev_arr), c->nbytes, cudaMemcpyDeviceToHost) == cudaSuccess
                   ? ND_OK
                   : ND_ERR_BACKEND;
#else
    case D_H2D_RAW:
    case D_D2H_RAW: return ND_ERR_UNSUPPORTED;
#endif
    default: s = nd_to_device(&t, c->dev_arr, nd_cpu()); break;
    }
    nd_release(t);
    return s;
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "transfer", c);
    int dir = c->op;
    bool h2d = is_h2d(dir);
    size_t nbytes = (size_t)c->p[0];
    int64_t n = (int64_t)(nbytes / 4); /* float32 elements */
    snprintf(r.op, sizeof r.op, "%s", dir_names[dir]);
    snprintf(r.layout, sizeof r.layout, "%s", dir_layouts[dir]);
    snprintf(r.shape, sizeof r.shape, "%lld", (long long)n);
    snprintf(r.note, sizeof r.note, "(%s)", dir_calls[dir]);
    snprintf(r.call, sizeof r.call, "{\"fn\": \"%s\", \"target\": \"%s\"}", dir_names[dir], dir_layouts[dir]);
    r.bytes = (double)nbytes;
    r.ninputs = 1;
    bench_input *in = &r.inputs[0];
    in->dtype = ND_FLOAT32, in->ndim = 1, in->shape[0] = n, in->seed = 31, in->lo = 0.5, in->hi = 1.5;

    tr_call call = {.dir = dir, .nbytes = nbytes, .dev = c->dev};
    nd_array *src_host = NULL, *target = NULL;
    void *expect = malloc(nbytes + 1);
    call.pageable = malloc(nbytes + 1);
    int s = ND_OK;
    if (!expect || !call.pageable) {
        r.status = BS_ERROR;
        snprintf(r.message, sizeof r.message, "out of host memory");
        s = ND_ERR_NOMEM;
    }
    if (s == ND_OK && (s = bench_input_make(in, nd_cpu(), &src_host, NULL)) != ND_OK)
        bench_fail_nd(&r, "creating the input", s);
    if (s == ND_OK && (s = nd_copy_to_host(expect, src_host, nbytes)) != ND_OK)
        bench_fail_nd(&r, "nd_copy_to_host (cpu)", s);
    if (s == ND_OK && uses_pinned(dir)) {
        /* a pinned host array: the source (h2d) or a zeroed target (d2h) */
        if ((s = nd_empty_pinned(&call.host_arr, ND_FLOAT32, 1, &n)) != ND_OK)
            bench_fail_nd(&r, "nd_empty_pinned", s);
        else if ((s = nd_copy(&call.host_arr, src_host)) != ND_OK)
            bench_fail_nd(&r, "nd_copy into pinned", s);
        else if (!h2d)
            memset(nd_data(call.host_arr), 0, nbytes);
        if (s == ND_OK && (s = nd_stream_create(&call.stream, c->dev)) != ND_OK) bench_fail_nd(&r, "nd_stream_create", s);
        if (s == ND_OK && h2d && (s = nd_zeros(&call.dev_arr, ND_FLOAT32, 1, &n, c->dev)) != ND_OK)
            bench_fail_nd(&r, "nd_zeros", s);
        if (s == ND_OK && !h2d && (s = nd_to_device(&call.dev_arr, src_host, c->dev)) != ND_OK)
            bench_fail_nd(&r, "nd_to_device (initial copy)", s);
    } else if (s == ND_OK) {
        if (h2d) {
            call.host_arr = nd_retain(src_host);
            /* a zeroed device target: the checked call must fill it */
            if (dir == D_H2D_OUT && (s = nd_zeros(&call.dev_arr, ND_FLOAT32, 1, &n, c->dev)) != ND_OK)
                bench_fail_nd(&r, "nd_zeros", s);
        } else {
            if ((s = nd_to_device(&call.dev_arr, src_host, c->dev)) != ND_OK)
                bench_fail_nd(&r, "nd_to_device (initial copy)", s);
            else if (dir == D_D2H_OUT && (s = nd_zeros(&call.host_arr, ND_FLOAT32, 1, &n, nd_cpu())) != ND_OK)
                bench_fail_nd(&r, "nd_zeros", s);
        }
    }
    /* the checked call */
    if (s == ND_OK) {
        switch (dir) {
        case D_H2D_OUT: s = tr_run(&call), target = nd_retain(call.dev_arr); break;
        case D_H2D_ALLOC: s = nd_to_device(&target, call.host_arr, c->dev); break;
        case D_D2H_PTR: s = tr_run(&call); break;
        case D_D2H_OUT: s = tr_run(&call), target = nd_retain(call.host_arr); break;
        case D_H2D_PIN:
        case D_H2D_RAW: s = tr_run(&call), target = nd_retain(call.dev_arr); break;
        case D_D2H_PIN:
        case D_D2H_RAW: s = tr_run(&call), target = nd_retain(call.host_arr); break;
        default: s = nd_to_device(&target, call.dev_arr, nd_cpu()); break;
        }
        if (s != ND_OK) bench_fail_nd(&r, dir_calls[dir], s);
    }
    if (s == ND_OK) {
        if (dir != D_D2H_PTR) {
            memset(call.pageable, 0, nbytes);
            if ((s = nd_copy_to_host(call.pageable, target, nbytes)) != ND_OK)
                bench_fail_nd(&r, "nd_copy_to_host (check)", s);
        }
        if (s == ND_OK && memcmp(call.pageable, expect, nbytes) != 0) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "the copied bytes differ from the source");
        } else if (s == ND_OK) {
            double *d = malloc((size_t)n * sizeof(double) + 1);
            if (d) {
                for (int64_t i = 0; i < n; i++) d[i] = ((const float *)expect)[i];
                bench_checksum(d, n, r.checksum);
                r.has_checksum = true;
                free(d);
            }
        }
    }
    nd_release(target);
    if (r.status == BS_OK && (s = bench_measure(tr_run, &call, c->dev, &r.st)) != ND_OK)
        bench_fail_nd(&r, dir_calls[dir], s);
    if (r.status == BS_OK)
        snprintf(r.extra, sizeof r.extra, "\"host_pinned\": %s, \"timing\": \"wall clock + nd_synchronize\"",
                 (call.host_arr && nd_is_pinned(call.host_arr)) ? "true" : "false");
    bench_emit(&r);
    nd_release(src_host), nd_release(call.host_arr), nd_release(call.dev_arr);
    nd_stream_destroy(call.stream);
    free(expect), free(call.pageable);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_transfer",
               "Host <-> device copies of 1 KiB .. 1 GiB (--quick: 1 KiB .. 64 MiB, x16 steps) through nd_to_device (into an\n"
               "existing array and allocating), nd_copy_to_host (pageable host memory), nd_copy_async with\n"
               "pinned host arrays on a stream, and raw cudaMemcpy from the same pinned buffers (the ceiling).\n"
               "Without a GPU: prints so and exits 0.");
    int ncuda = 0;
    for (int d = 0; d < bench_num_devices(); d++) ncuda += bench_device(d).type == ND_DEVICE_CUDA;
    if (ncuda == 0) {
        if (g_opt.cuda_requested)
            printf("bench_transfer: no GPU on this machine (nd_cuda_device_count() == %d): nothing to measure\n",
                   nd_cuda_device_count());
        else
            printf("bench_transfer: --device cpu: transfers need a GPU, nothing to measure\n");
        bench_finish();
        return 0;
    }
    size_t max_bytes = g_opt.quick ? ((size_t)64 << 20) : ((size_t)1 << 30);
    for (int d = 0; d < bench_num_devices(); d++) {
        nd_device dev = bench_device(d);
        if (dev.type != ND_DEVICE_CUDA) continue;
        for (size_t b = 1024; b <= max_bytes; b *= g_opt.quick ? 16 : 4) /* quick: 1 KiB, 16 KiB, .. 64 MiB */
            for (int dir = 0; dir < NDIRS; dir++) {
                bench_case c = {.op = dir, .dtype = ND_FLOAT32, .dev = dev};
                c.p[0] = (int64_t)b;
                snprintf(c.key, sizeof c.key, "%s/float32/%lld/%s/%s", dir_names[dir], (long long)(b / 4),
                         dir_layouts[dir], bench_dev_name(dev));
                bench_add_case(&c);
            }
    }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_progress(i, bench_get_case(i));
        run_case(bench_get_case(i));
    }
    return bench_finish();
}
