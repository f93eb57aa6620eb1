/*
 * ndgpu-info - what libndgpu sees on this machine, in the spirit of
 * nvidia-smi and cupy.show_config().
 *
 *   ndgpu-info                 a readable report
 *   ndgpu-info --json          the same as one JSON object (for scripts)
 *   ndgpu-info --watch [S]     live monitor, a sample every S seconds (default
 *                              1, fractional allowed, > 0; like nvidia-smi -l)
 *                              until SIGINT/SIGTERM (exit 0)
 *   ndgpu-info --watch [S] --count N   stop after N samples
 *   ndgpu-info --watch [S] --json      one JSON object per line per sample
 *                                      (JSON Lines)
 *
 * Reports the library version and build (backends compiled in, the
 * compiler, the CUDA runtime and driver versions, the BLAS core, the CPU
 * thread count), every device (name, compute capability, multiprocessors,
 * memory total/free, memory clock, bus width, peak bandwidth), each
 * device's pool statistics (nd_memory_get_stats), the default device and
 * the environment variables that steer the library. Without a GPU the
 * report says why in one line, e.g.
 *   GPU: CUDA backend compiled in, no GPU: CUDA driver not found or too old: ...
 *
 * --watch (ndgpu_watch.c): each sample is a block headed by a timestamp
 * (the screen is cleared first, like watch(1), when stdout is a terminal;
 * otherwise the blocks are appended). Per GPU, through NVML loaded at run
 * time (dlopen of the driver's libnvidia-ml.so.1, nvml_dl.c; no build-time
 * dependency): memory used/total, GPU and memory utilisation, temperature,
 * power and its limit, graphics/SM/memory clocks and the compute processes
 * (pid, name from /proc/<pid>/comm, memory); any query the GPU does not
 * support reads "n/a" (null in JSON). Then the CPU side (load average,
 * host memory used/total, this process's RSS) and the pool statistics of
 * cpu:0 and every cuda:N: in use, peak, cached, reserved, limit and
 * fragmentation = 1 - largest_free_block / cached (0 when nothing is
 * cached). These are the pool statistics of THIS process (the library has
 * no cross-process view; for another process use its nd_memory_get_stats).
 * Without NVML or without a GPU a sample says so in one line, e.g.
 *   GPU: NVML not available: libnvidia-ml.so.1: cannot open shared object file: ...
 * and shows the CPU side.
 * Environment: ND_NVML_LIBRARY=<path> loads that library instead of
 * libnvidia-ml.so.1 (the tests load a fake NVML, tests/fake_nvml.c).
 *
 * Exit status: 0 (also without a GPU, and when --watch is interrupted),
 * 2 for a bad option or value (--watch 0, --watch abc, --count 0), 1 when
 * stdout fails during --watch.
 */
#include <ndgpu.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndgpu_watch.h"

#if defined(__clang__) || !defined(__GNUC__)
#define ND_COMPILER __VERSION__
#else
#define ND_COMPILER "gcc " __VERSION__
#endif

/* The fields of nd_build_info(): "libndgpu V; backends: cpu, cuda; BLAS:
 * OpenBLAS 0.3.34 (scipy-openblas32, core X); threads: N; <CUDA part>". */
typedef struct build_fields {
    char backends[64];
    char blas[128];
    char cpu_path[96]; /* "avx512", or "avx2 (forced by ND_CPU_ISA, the CPU has avx512)" */
    char bf16_gemm[96]; /* "amx", "avx512_bf16", or "sgemm (the CPU has amx)" */
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
    field_after(f->bf16_gemm, sizeof f->bf16_gemm, info, "bfloat16 GEMM: ");
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

const char *dev_name(nd_device d, char *buf, size_t cap) { return nd_device_str(d, buf, cap); }

void human_bytes(char *buf, size_t cap, size_t b)
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

void json_string(const char *s)
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

void json_string_or_null(const char *s)
{
    if (s && *s)
        json_string(s);
    else
        fputs("null", stdout);
}

static const char *env_vars[] = {"ND_DEVICE",           "ND_NUM_THREADS",       "ND_POOL",
                                 "ND_MEMORY_FRACTION",  "ND_CPU_ISA",           "CUDA_VISIBLE_DEVICES",
                                 "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE",   "BLIS_NUM_THREADS"};

/* The allocator's name in the report. */
static const char *pool_kind_name(nd_pool_kind k)
{
    return k == ND_POOL_KIND_ASYNC ? "async (cudaMallocAsync)" : k == ND_POOL_KIND_CACHING ? "caching" : "not pooled";
}
#define N_ENV (sizeof env_vars / sizeof env_vars[0])

void collect_stats(dev_report *r, nd_device d)
{
    r->dev = d;
    r->st_stats = nd_memory_get_stats(&r->stats, d);
    if (r->st_stats) snprintf(r->err_stats, sizeof r->err_stats, "%s", nd_last_error());
}

/* One device's info and pool statistics. */
static void collect(dev_report *r, nd_device d)
{
    memset(r, 0, sizeof *r);
    r->dev = d;
    r->st_info = nd_device_get_info(&r->info, d);
    if (r->st_info) snprintf(r->err_info, sizeof r->err_info, "%s", nd_last_error());
    collect_stats(r, d);
}

/* A warning when the BLAS runs generic kernels (the build line says
 * "generic kernels" after the core) on a CPU that has AVX2 or AVX-512 (the
 * CPU path, or what "the CPU has" names when ND_CPU_ISA lowered it):
 * matmul, linalg and einsum then run several times slower than they can.
 * Empty when there is nothing to say. */
static void blas_warning(char *dst, size_t cap, const build_fields *f)
{
    dst[0] = '\0';
    const char *has = strstr(f->cpu_path, "the CPU has ");
    const char *cpu = has ? has + 12 : f->cpu_path;
    if (strncmp(cpu, "avx512", 6) != 0 && strncmp(cpu, "avx2", 4) != 0) return;
    if (strstr(f->blas, "generic kernels")) {
        snprintf(dst, cap,
                 "the BLAS runs generic kernels on a CPU with %.*s: matmul, linalg and einsum run several times "
                 "slower; build with BLAS=scipy-openblas (docs/blas.md)",
                 (int)strcspn(cpu, " )"), cpu);
        return;
    }
    /* OPENBLAS_CORETYPE set to an AVX2 core on an AVX-512 CPU (some
     * machines set it for every process): OpenBLAS obeys it, and GEMM runs
     * at about half the speed its automatic choice would give. */
    const char *forced = getenv("OPENBLAS_CORETYPE");
    const char *core = strstr(f->blas, "core ");
    if (!forced || !*forced || !core || strncmp(cpu, "avx512", 6) != 0) return;
    core += 5;
    int len = (int)strcspn(core, " ,)");
    static const char *const avx512_cores[] = {"SkylakeX", "Cooperlake", "CooperLake", "SapphireRapids", "skx", "zen4",
                                               "zen5"};
    for (size_t i = 0; i < sizeof avx512_cores / sizeof avx512_cores[0]; i++)
        if ((int)strlen(avx512_cores[i]) == len && strncmp(core, avx512_cores[i], (size_t)len) == 0) return;
    snprintf(dst, cap,
             "OPENBLAS_CORETYPE=%s makes the BLAS run its %.*s kernels on a CPU with avx512: matmul, linalg and "
             "einsum run up to 2x slower; unset it to let OpenBLAS choose (docs/blas.md)",
             forced, len, core);
}

static void print_text(const build_fields *f, const dev_report *devs, int ndev, int ngpu)
{
    char b1[32], b2[32], nm[32];
    printf("libndgpu %s\n", nd_version());
    printf("  build info     %s\n", nd_build_info());
    printf("  backends       %s\n", f->backends);
    printf("  compiler       %s (C %ld)\n", ND_COMPILER, (long)__STDC_VERSION__);
    printf("  BLAS           %s\n", f->blas);
    char warn[256];
    blas_warning(warn, sizeof warn, f);
    if (warn[0]) printf("warning: %s\n", warn);
    printf("  CPU threads    %d\n", nd_get_num_threads());
    printf("  CPU path       %s\n", f->cpu_path);
    printf("  bfloat16 GEMM  %s\n", f->bf16_gemm);
    printf("  dtypes        ");
    for (int t = 0; t < (int)ND_NUM_DTYPES; t++) printf(" %s", nd_dtype_name((nd_dtype)t));
    printf(" (%d)\n", (int)ND_NUM_DTYPES);
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
        if (in->cc_major > 0) { /* a GPU: compute capability, SMs, its memory */
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
                   pool_kind_name(s->kind), u, p, c, l, (unsigned long long)s->allocs,
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
    char warn[256];
    blas_warning(warn, sizeof warn, f);
    printf(",\n  \"blas_warning\": ");
    json_string_or_null(warn);
    printf(",\n  \"cpu_threads\": %d,\n", nd_get_num_threads());
    printf("  \"cpu_path\": ");
    json_string(f->cpu_path);
    printf(",\n  \"bf16_gemm\": ");
    json_string(f->bf16_gemm);
    printf(",\n  \"dtypes\": [");
    for (int t = 0; t < (int)ND_NUM_DTYPES; t++) {
        printf("%s", t ? ", " : "");
        json_string(nd_dtype_name((nd_dtype)t));
    }
    printf("],\n");
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
            if (in->cc_major > 0) /* a GPU */
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
                   "\"largest_free_block\": %zu, \"device_allocs\": %llu, \"allocs\": %llu, \"pooled\": %s, "
                   "\"kind\": \"%s\"}",
                   s->in_use, s->peak_in_use, s->cached, s->reserved, s->limit, s->largest_free_block,
                   (unsigned long long)s->device_allocs, (unsigned long long)s->allocs, s->pooled ? "true" : "false",
                   s->kind == ND_POOL_KIND_ASYNC ? "async" : s->kind == ND_POOL_KIND_CACHING ? "caching" : "none");
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
               "       ndgpu-info --watch [SECONDS] [--count N] [--json]\n"
               "Reports libndgpu's build, the CPU and every CUDA device, and their memory pools.\n"
               "  --json            print one JSON object instead of the readable report\n"
               "  --watch [SECONDS] live monitor: a sample every SECONDS (default 1, fractional\n"
               "                    allowed) until interrupted; per GPU (NVML) memory, utilisation,\n"
               "                    temperature, power, clocks and processes, the CPU side and this\n"
               "                    process's pool statistics; with --json one JSON object per line\n"
               "  --count N         stop after N samples (implies --watch)\n"
               "ND_NVML_LIBRARY=<path> loads that NVML library instead of libnvidia-ml.so.1.\n");
}

static int bad_value(const char *opt, const char *v, const char *want)
{
    fprintf(stderr, "ndgpu-info: invalid value '%s' for %s: %s\n", v, opt, want);
    usage(stderr);
    return 2;
}

/* --watch's SECONDS: a finite number > 0 (at most a day). */
static int parse_seconds(const char *v, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(d) || d <= 0 || d > 86400) return -1;
    *out = d;
    return 0;
}

/* --count's N: a decimal integer >= 1. */
static int parse_count(const char *v, unsigned long long *out)
{
    char *end;
    errno = 0;
    if (*v < '0' || *v > '9') return -1;
    unsigned long long n = strtoull(v, &end, 10);
    if (*end || errno || n == 0) return -1;
    *out = n;
    return 0;
}

/* An argument after --watch is its SECONDS unless it is an option
 * ("-j", "--json"); "-1" and "abc" are values, and rejected. */
static int is_option(const char *a)
{
    return a[0] == '-' && (a[1] == '-' || (a[1] >= 'a' && a[1] <= 'z') || (a[1] >= 'A' && a[1] <= 'Z'));
}

int main(int argc, char **argv)
{
    int json = 0, watch = 0;
    double seconds = 1.0;
    unsigned long long count = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0 || strcmp(a, "-j") == 0) {
            json = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--watch") == 0 || strncmp(a, "--watch=", 8) == 0) {
            watch = 1;
            const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc && !is_option(argv[i + 1]) ? argv[++i] : NULL);
            if (v && parse_seconds(v, &seconds)) return bad_value("--watch", v, "seconds > 0 expected");
        } else if (strcmp(a, "--count") == 0 || strncmp(a, "--count=", 8) == 0) {
            watch = 1;
            const char *v = a[7] == '=' ? a + 8 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v) return bad_value("--count", "", "a number of samples >= 1 expected");
            if (parse_count(v, &count)) return bad_value("--count", v, "a number of samples >= 1 expected");
        } else {
            fprintf(stderr, "ndgpu-info: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (watch) return ndgpu_watch(seconds, count, json);

    build_fields f;
    parse_build_info(&f, nd_build_info());
    int ndev = nd_devices(NULL, 0); /* the host first, then the GPUs */
    int ngpu = ndev - 1;
    dev_report *devs = calloc((size_t)ndev, sizeof *devs);
    nd_device *list = calloc((size_t)ndev, sizeof *list);
    if (!devs || !list) {
        fprintf(stderr, "ndgpu-info: out of memory\n");
        free(devs);
        free(list);
        return 1;
    }
    nd_devices(list, ndev);
    for (int i = 0; i < ndev; i++) collect(&devs[i], list[i]);
    free(list);

    if (json)
        print_json(&f, devs, ndev, ngpu);
    else
        print_text(&f, devs, ndev, ngpu);
    free(devs);
    return 0;
}
