/*
 * ndgpu-info - what libndgpu sees on this machine, in the spirit of
 * nvidia-smi and cupy.show_config().
 *
 *   ndgpu-info           a readable report
 *   ndgpu-info --json    the same as one JSON object (for scripts)
 *
 * Reports the library version and build (backends compiled in, the
 * compiler, the CUDA runtime and driver versions, the BLAS core, the CPU
 * thread count), every device (name, compute capability, multiprocessors,
 * memory total/free, memory clock, bus width, peak bandwidth), each
 * device's pool statistics (nd_memory_get_stats), the default device and
 * the environment variables that steer the library. Without a GPU the
 * report says why in one line, e.g.
 *   GPU: CUDA backend compiled in, no GPU: CUDA driver not found or too old: ...
 * Exit status: 0 (also without a GPU), 2 for a bad option.
 */
#include <ndgpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__) || !defined(__GNUC__)
#define ND_COMPILER __VERSION__
#else
#define ND_COMPILER "gcc " __VERSION__
#endif

/* The fields of nd_build_info(): "libndgpu V; backends: cpu, cuda; BLAS:
 * OpenBLAS (core X); threads: N; <CUDA part>". */
typedef struct build_fields {
    char backends[64];
    char blas[128];
    char cpu_path[96]; /* "avx512", or "avx2 (forced by ND_CPU_ISA, the CPU has avx512)" */
    char cuda[256]; /* the CUDA part, verbatim */
    char cuda_runtime[32], cuda_driver[32];
    char no_gpu_reason[256]; /* text after "no GPU: " */
    int cuda_compiled;
} build_fields;

static void copy_field(char *dst, size_t cap, const char *src, size_t n)
{
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The text after key up to the next "; " (or the end). */
static int field_after(char *dst, size_t cap, const char *info, const char *key)
{
    const char *p = strstr(info, key);
    if (!p) {
        dst[0] = '\0';
        return 0;
    }
    p += strlen(key);
    const char *e = strstr(p, "; ");
    copy_field(dst, cap, p, e ? (size_t)(e - p) : strlen(p));
    return 1;
}

/* Version number after key ("runtime ", "driver "), up to ',' or ' '. */
static void version_after(char *dst, size_t cap, const char *s, const char *key)
{
    const char *p = strstr(s, key);
    if (!p) {
        dst[0] = '\0';
        return;
    }
    p += strlen(key);
    copy_field(dst, cap, p, strcspn(p, ", "));
}

static void parse_build_info(build_fields *f, const char *info)
{
    memset(f, 0, sizeof *f);
    field_after(f->backends, sizeof f->backends, info, "backends: ");
    field_after(f->blas, sizeof f->blas, info, "BLAS: ");
    field_after(f->cpu_path, sizeof f->cpu_path, info, "CPU path: ");
    /* The CUDA part is the last field. */
    const char *last = strrchr(info, ';');
    const char *cuda = last ? last + 1 : info;
    while (*cuda == ' ') cuda++;
    /* The reason may itself contain "; " - take everything from "CUDA". */
    const char *c = strstr(info, "; CUDA ");
    if (c) cuda = c + 2;
    copy_field(f->cuda, sizeof f->cuda, cuda, strlen(cuda));
    f->cuda_compiled = strstr(f->backends, "cuda") != NULL;
    version_after(f->cuda_runtime, sizeof f->cuda_runtime, f->cuda, "runtime ");
    version_after(f->cuda_driver, sizeof f->cuda_driver, f->cuda, "driver ");
    const char *r = strstr(f->cuda, "no GPU: ");
    if (r) copy_field(f->no_gpu_reason, sizeof f->no_gpu_reason, r + 8, strlen(r + 8));
}

static const char *dev_name(nd_device d, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s:%d", d.type == ND_DEVICE_CUDA ? "cuda" : "cpu", d.id);
    return buf;
}

static void human_bytes(char *buf, size_t cap, size_t b)
{
    const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024.0 && u < 4) v /= 1024.0, u++;
    if (u == 0)
        snprintf(buf, cap, "%zu B", b);
    else
        snprintf(buf, cap, "%.1f %s", v, unit[u]);
}

static void json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p == '\t')
            fputs("\\t", stdout);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void json_string_or_null(const char *s)
{
    if (s && *s)
        json_string(s);
    else
        fputs("null", stdout);
}

static const char *env_vars[] = {"ND_DEVICE", "ND_NUM_THREADS", "ND_POOL", "ND_CPU_ISA", "CUDA_VISIBLE_DEVICES", "OPENBLAS_NUM_THREADS"};
#define N_ENV (sizeof env_vars / sizeof env_vars[0])

/* One device: info and stats (st_info / st_stats say whether they came). */
typedef struct dev_report {
    nd_device dev;
    nd_device_info info;
    nd_memory_stats stats;
    nd_status st_info, st_stats;
    char err_info[256], err_stats[256];
} dev_report;

static void collect(dev_report *r, nd_device d)
{
    memset(r, 0, sizeof *r);
    r->dev = d;
    r->st_info = nd_device_get_info(&r->info, d);
    if (r->st_info) snprintf(r->err_info, sizeof r->err_info, "%s", nd_last_error());
    r->st_stats = nd_memory_get_stats(&r->stats, d);
    if (r->st_stats) snprintf(r->err_stats, sizeof r->err_stats, "%s", nd_last_error());
}

static void print_text(const build_fields *f, const dev_report *devs, int ndev, int ngpu)
{
    char b1[32], b2[32], nm[32];
    printf("libndgpu %s\n", nd_version());
    printf("  build info     %s\n", nd_build_info());
    printf("  backends       %s\n", f->backends);
    printf("  compiler       %s (C %ld)\n", ND_COMPILER, (long)__STDC_VERSION__);
    printf("  BLAS           %s\n", f->blas);
    printf("  CPU threads    %d\n", nd_get_num_threads());
    printf("  CPU path       %s\n", f->cpu_path);
    printf("  CUDA           %s\n", f->cuda);
    printf("  default device %s\n", dev_name(nd_default_device(), nm, sizeof nm));
    if (!f->cuda_compiled)
        printf("GPU: CUDA backend not compiled in (CPU-only build)\n");
    else if (ngpu == 0)
        printf("GPU: CUDA backend compiled in, no GPU: %s\n", f->no_gpu_reason[0] ? f->no_gpu_reason : f->cuda);
    else
        printf("GPU: %d CUDA device(s), runtime %s, driver %s\n", ngpu, f->cuda_runtime, f->cuda_driver);

    printf("\nDevices\n");
    for (int i = 0; i < ndev; i++) {
        const dev_report *r = &devs[i];
        const nd_device_info *in = &r->info;
        printf("  %-7s ", dev_name(r->dev, nm, sizeof nm));
        if (r->st_info) {
            printf("(no information: %s: %s)\n", nd_status_name(r->st_info), r->err_info);
            continue;
        }
        printf("%s\n", in->name[0] ? in->name : "(unnamed)");
        human_bytes(b1, sizeof b1, in->total_memory);
        human_bytes(b2, sizeof b2, in->free_memory);
        if (r->dev.type == ND_DEVICE_CUDA) {
            printf("          compute capability %d.%d, %d SMs\n", in->cc_major, in->cc_minor, in->multiprocessors);
            printf("          memory %s total, %s free", b1, b2);
            if (in->peak_bandwidth_gbps > 0)
                printf("; peak bandwidth %.0f GB/s (%d-bit bus, %.0f MHz)", in->peak_bandwidth_gbps,
                       in->memory_bus_width_bits, in->memory_clock_khz / 1000.0);
            printf("\n");
        } else {
            printf("          %d threads; memory %s total, %s free\n", in->multiprocessors, b1, b2);
        }
        if (r->st_stats) {
            printf("          pool: (no statistics: %s)\n", r->err_stats);
        } else {
            const nd_memory_stats *s = &r->stats;
            char u[32], p[32], c[32], l[32];
            human_bytes(u, sizeof u, s->in_use);
            human_bytes(p, sizeof p, s->peak_in_use);
            human_bytes(c, sizeof c, s->cached);
            if (s->limit)
                human_bytes(l, sizeof l, s->limit);
            else
                snprintf(l, sizeof l, "none");
            printf("          pool: %s; in use %s, peak %s, cached %s, limit %s, %llu allocations (%llu from the system)\n",
                   s->pooled ? "caching" : "not pooled", u, p, c, l, (unsigned long long)s->allocs,
                   (unsigned long long)s->device_allocs);
        }
    }

    printf("\nEnvironment\n");
    for (size_t i = 0; i < N_ENV; i++) {
        const char *v = getenv(env_vars[i]);
        printf("  %-22s %s\n", env_vars[i], v ? v : "(unset)");
    }
}

static void print_json(const build_fields *f, const dev_report *devs, int ndev, int ngpu)
{
    char nm[32];
    printf("{\n  \"version\": ");
    json_string(nd_version());
    printf(",\n  \"build_info\": ");
    json_string(nd_build_info());
    printf(",\n  \"backends\": [\"cpu\"%s],\n", f->cuda_compiled ? ", \"cuda\"" : "");
    printf("  \"compiler\": ");
    json_string(ND_COMPILER);
    printf(",\n  \"blas\": ");
    json_string(f->blas);
    printf(",\n  \"cpu_threads\": %d,\n", nd_get_num_threads());
    printf("  \"cpu_path\": ");
    json_string(f->cpu_path);
    printf(",\n");
    printf("  \"cuda\": {\"compiled\": %s, \"runtime\": ", f->cuda_compiled ? "true" : "false");
    json_string_or_null(f->cuda_runtime);
    printf(", \"driver\": ");
    json_string_or_null(f->cuda_driver);
    printf(", \"device_count\": %d, \"unavailable_reason\": ", ngpu);
    if (!f->cuda_compiled)
        json_string("CUDA backend not compiled in");
    else
        json_string_or_null(ngpu == 0 ? (f->no_gpu_reason[0] ? f->no_gpu_reason : f->cuda) : NULL);
    printf(", \"summary\": ");
    json_string(f->cuda);
    printf("},\n  \"default_device\": ");
    json_string(dev_name(nd_default_device(), nm, sizeof nm));
    printf(",\n  \"devices\": [");
    for (int i = 0; i < ndev; i++) {
        const dev_report *r = &devs[i];
        const nd_device_info *in = &r->info;
        printf("%s\n    {\"device\": ", i ? "," : "");
        json_string(dev_name(r->dev, nm, sizeof nm));
        if (r->st_info) {
            printf(", \"error\": ");
            json_string(r->err_info);
        } else {
            printf(", \"name\": ");
            json_string(in->name);
            printf(", \"compute_capability\": ");
            if (r->dev.type == ND_DEVICE_CUDA)
                printf("\"%d.%d\"", in->cc_major, in->cc_minor);
            else
                printf("null");
            printf(", \"multiprocessors\": %d, \"total_memory\": %zu, \"free_memory\": %zu, "
                   "\"memory_clock_khz\": %d, \"memory_bus_width_bits\": %d, \"peak_bandwidth_gbps\": %.1f",
                   in->multiprocessors, in->total_memory, in->free_memory, in->memory_clock_khz,
                   in->memory_bus_width_bits, in->peak_bandwidth_gbps);
        }
        printf(",\n     \"memory_stats\": ");
        if (r->st_stats) {
            printf("null");
        } else {
            const nd_memory_stats *s = &r->stats;
            printf("{\"in_use\": %zu, \"peak_in_use\": %zu, \"cached\": %zu, \"reserved\": %zu, \"limit\": %zu, "
                   "\"largest_free_block\": %zu, \"device_allocs\": %llu, \"allocs\": %llu, \"pooled\": %s}",
                   s->in_use, s->peak_in_use, s->cached, s->reserved, s->limit, s->largest_free_block,
                   (unsigned long long)s->device_allocs, (unsigned long long)s->allocs, s->pooled ? "true" : "false");
        }
        printf("}");
    }
    printf("\n  ],\n  \"environment\": {");
    for (size_t i = 0; i < N_ENV; i++) {
        const char *v = getenv(env_vars[i]);
        printf("%s\"%s\": ", i ? ", " : "", env_vars[i]);
        if (v)
            json_string(v);
        else
            printf("null");
    }
    printf("}\n}\n");
}

static void usage(FILE *f)
{
    fprintf(f, "usage: ndgpu-info [--json]\n"
               "Reports libndgpu's build, the CPU and every CUDA device, and their memory pools.\n"
               "  --json   print one JSON object instead of the readable report\n");
}

int main(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "-j") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "ndgpu-info: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    build_fields f;
    parse_build_info(&f, nd_build_info());
    int ngpu = nd_cuda_device_count();
    int ndev = 1 + ngpu;
    dev_report *devs = calloc((size_t)ndev, sizeof *devs);
    if (!devs) {
        fprintf(stderr, "ndgpu-info: out of memory\n");
        return 1;
    }
    collect(&devs[0], nd_cpu());
    for (int i = 0; i < ngpu; i++) collect(&devs[1 + i], nd_cuda(i));

    if (json)
        print_json(&f, devs, ndev, ngpu);
    else
        print_text(&f, devs, ndev, ngpu);
    free(devs);
    return 0;
}
