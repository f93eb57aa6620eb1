/*
 * ndgpu-info --watch: the live monitor (see ndgpu-info.c for the usage).
 *
 * One sample = per GPU what NVML reports (loaded at run time, nvml_dl.c),
 * the CPU side (/proc) and the library's pool statistics for cpu:0 and
 * every cuda:N. The pool statistics are those of THIS process (the
 * monitor's own, through nd_memory_get_stats); the library has no
 * cross-process view: another process calls nd_memory_get_stats itself.
 */
#include "ndgpu_watch.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

static const char *const pool_scope =
    "pool statistics of this process; for another process use its nd_memory_get_stats";

/* ------------------------------------------------------------------ */
/* Taking a sample                                                     */
/* ------------------------------------------------------------------ */
static void read_cpu_side(cpu_side *c)
{
    memset(c, 0, sizeof *c);
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        c->have_load = fscanf(f, "%lf %lf %lf", &c->load[0], &c->load[1], &c->load[2]) == 3;
        fclose(f);
    }
    f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long total = 0, avail = 0, v;
        int got = 0;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "MemTotal: %llu kB", &v) == 1) total = v, got |= 1;
            else if (sscanf(line, "MemAvailable: %llu kB", &v) == 1) avail = v, got |= 2;
        }
        fclose(f);
        if (got == 3 && avail <= total) {
            c->mem_total = total * 1024;
            c->mem_used = (total - avail) * 1024;
            c->have_mem = 1;
        }
    }
    f = fopen("/proc/self/statm", "r");
    if (f) {
        unsigned long long size, resident;
        long page = sysconf(_SC_PAGESIZE);
        if (fscanf(f, "%llu %llu", &size, &resident) == 2 && page > 0) {
            c->rss = resident * (unsigned long long)page;
            c->have_rss = 1;
        }
        fclose(f);
    }
}

void watch_sample_take(watch_sample *s, unsigned long long index, const nvml_dl *nvml, const char *nvml_err)
{
    memset(s, 0, sizeof *s);
    s->index = index;
    clock_gettime(CLOCK_REALTIME, &s->when);
    if (!nvml) {
        snprintf(s->reason_buf, sizeof s->reason_buf, "NVML not available: %s", nvml_err ? nvml_err : "not loaded");
    } else {
        char err[256];
        int n = nvml_dl_count(nvml, err, sizeof err);
        if (n < 0)
            snprintf(s->reason_buf, sizeof s->reason_buf, "NVML error: %s", err);
        else if (n == 0)
            snprintf(s->reason_buf, sizeof s->reason_buf, "no GPU (NVML lists no device)");
        else if (!(s->gpus = calloc((size_t)n, sizeof *s->gpus)))
            snprintf(s->reason_buf, sizeof s->reason_buf, "out of memory");
        else
            s->ngpu = n;
        for (int i = 0; i < s->ngpu; i++) nvml_dl_sample(nvml, (unsigned int)i, &s->gpus[i]);
    }
    if (s->ngpu == 0) s->gpu_reason = s->reason_buf;
    read_cpu_side(&s->cpu);
    int ncuda = nd_cuda_device_count();
    s->pools = calloc((size_t)(1 + ncuda), sizeof *s->pools);
    if (s->pools) {
        s->ndev = 1 + ncuda;
        collect_stats(&s->pools[0], nd_cpu());
        for (int i = 0; i < ncuda; i++) collect_stats(&s->pools[1 + i], nd_cuda(i));
    }
}

void watch_sample_free(watch_sample *s)
{
    for (int i = 0; i < s->ngpu; i++) nvml_gpu_free(&s->gpus[i]);
    free(s->gpus);
    free(s->pools);
    memset(s, 0, sizeof *s);
}

double pool_fragmentation(const nd_memory_stats *s)
{
    if (s->cached == 0) return 0.0;
    double f = 1.0 - (double)s->largest_free_block / (double)s->cached;
    return f < 0.0 ? 0.0 : f;
}

/* ------------------------------------------------------------------ */
/* The readable block                                                  */
/* ------------------------------------------------------------------ */
/* "<v><unit>" when have, else "n/a" (buf returned). */
static const char *num_or_na(char *buf, size_t cap, int have, unsigned int v, const char *unit)
{
    if (have)
        snprintf(buf, cap, "%u%s", v, unit);
    else
        snprintf(buf, cap, "n/a");
    return buf;
}

static const char *watts_or_na(char *buf, size_t cap, int have, unsigned int mw)
{
    if (have)
        snprintf(buf, cap, "%.1f W", mw / 1000.0);
    else
        snprintf(buf, cap, "n/a");
    return buf;
}

static void print_gpu_text(const nvml_gpu *g)
{
    char a[48], b[48], c[48];
    printf("GPU %u  %s\n", g->index, g->have_name ? g->name : "n/a");
    if (g->have_mem) {
        human_bytes(a, sizeof a, (size_t)g->mem_used);
        human_bytes(b, sizeof b, (size_t)g->mem_total);
        printf("  memory       %s / %s used\n", a, b);
    } else {
        printf("  memory       n/a\n");
    }
    printf("  utilisation  gpu %s, memory %s\n", num_or_na(a, sizeof a, g->have_util, g->util_gpu, " %"),
           num_or_na(b, sizeof b, g->have_util, g->util_mem, " %"));
    printf("  temperature  %s\n", num_or_na(a, sizeof a, g->have_temp, g->temp_c, " C"));
    printf("  power        %s / %s\n", watts_or_na(a, sizeof a, g->have_power, g->power_mw),
           watts_or_na(b, sizeof b, g->have_limit, g->limit_mw));
    printf("  clocks       graphics %s, SM %s, memory %s\n",
           num_or_na(a, sizeof a, g->have_clock[0], g->clock_mhz[0], " MHz"),
           num_or_na(b, sizeof b, g->have_clock[1], g->clock_mhz[1], " MHz"),
           num_or_na(c, sizeof c, g->have_clock[2], g->clock_mhz[2], " MHz"));
    if (!g->have_procs) {
        printf("  processes    n/a\n");
    } else if (g->nprocs == 0) {
        printf("  processes    none\n");
    } else {
        for (unsigned int i = 0; i < g->nprocs; i++) {
            const nvml_proc *p = &g->procs[i];
            if (p->mem == NVML_VALUE_NOT_AVAILABLE)
                snprintf(a, sizeof a, "n/a");
            else
                human_bytes(a, sizeof a, (size_t)p->mem);
            printf("  %-12s %u %s, %s\n", i ? "" : "processes", p->pid, p->name[0] ? p->name : "?", a);
        }
    }
}

/* "2026-12-02 04:10:00.123 UTC" (local time) or, iso, "2026-12-02T04:10:00.123Z". */
static void format_time(char *buf, size_t cap, struct timespec t, int iso)
{
    struct tm tm;
    char base[40], zone[16] = "";
    time_t sec = t.tv_sec;
    if (iso) {
        gmtime_r(&sec, &tm);
        strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    } else {
        localtime_r(&sec, &tm);
        strftime(base, sizeof base, "%Y-%m-%d %H:%M:%S", &tm);
        strftime(zone, sizeof zone, " %Z", &tm);
    }
    snprintf(buf, cap, "%s.%03u%s", base, (unsigned)(t.tv_nsec / 1000000) % 1000u, iso ? "Z" : zone);
}

void watch_sample_print_text(const watch_sample *s, double interval)
{
    char t[96], a[32], b[32], c[32], d[32], l[32];
    format_time(t, sizeof t, s->when, 0);
    if (interval > 0)
        printf("ndgpu-info --watch %g: sample %llu, %s\n", interval, s->index, t);
    else
        printf("ndgpu-info snapshot, %s\n", t);
    if (s->gpu_reason) printf("GPU: %s\n", s->gpu_reason);
    for (int i = 0; i < s->ngpu; i++) print_gpu_text(&s->gpus[i]);

    const cpu_side *cp = &s->cpu;
    printf("CPU  load average ");
    if (cp->have_load)
        printf("%.2f %.2f %.2f", cp->load[0], cp->load[1], cp->load[2]);
    else
        printf("n/a");
    if (cp->have_mem) {
        human_bytes(a, sizeof a, (size_t)cp->mem_used);
        human_bytes(b, sizeof b, (size_t)cp->mem_total);
        printf("; memory %s / %s used", a, b);
    } else {
        printf("; memory n/a");
    }
    if (cp->have_rss)
        human_bytes(a, sizeof a, (size_t)cp->rss);
    else
        snprintf(a, sizeof a, "n/a");
    printf("; this process RSS %s\n", a);

    printf("Pools (%s)\n", pool_scope);
    for (int i = 0; i < s->ndev; i++) {
        const dev_report *r = &s->pools[i];
        printf("  %-7s ", dev_name(r->dev, t, sizeof t));
        if (r->st_stats) {
            printf("n/a (%s)\n", r->err_stats);
            continue;
        }
        const nd_memory_stats *st = &r->stats;
        human_bytes(a, sizeof a, st->in_use);
        human_bytes(b, sizeof b, st->peak_in_use);
        human_bytes(c, sizeof c, st->cached);
        human_bytes(d, sizeof d, st->reserved);
        if (st->limit)
            human_bytes(l, sizeof l, st->limit);
        else
            snprintf(l, sizeof l, "none");
        printf("in use %s, peak %s, cached %s, reserved %s, limit %s, fragmentation %.1f %%\n", a, b, c, d, l,
               100.0 * pool_fragmentation(st));
    }
}

/* ------------------------------------------------------------------ */
/* JSON Lines                                                          */
/* ------------------------------------------------------------------ */
static void json_uint(const char *key, int have, unsigned long long v)
{
    if (have)
        printf("\"%s\": %llu", key, v);
    else
        printf("\"%s\": null", key);
}

static void json_watts(const char *key, int have, unsigned int mw)
{
    if (have)
        printf("\"%s\": %.3f", key, mw / 1000.0);
    else
        printf("\"%s\": null", key);
}

static void print_gpu_json(const nvml_gpu *g)
{
    printf("{\"index\": %u, \"name\": ", g->index);
    json_string_or_null(g->have_name ? g->name : NULL);
    printf(", ");
    json_uint("memory_used", g->have_mem, g->mem_used);
    printf(", ");
    json_uint("memory_total", g->have_mem, g->mem_total);
    printf(", ");
    json_uint("utilization_gpu", g->have_util, g->util_gpu);
    printf(", ");
    json_uint("utilization_memory", g->have_util, g->util_mem);
    printf(", ");
    json_uint("temperature_c", g->have_temp, g->temp_c);
    printf(", ");
    json_watts("power_w", g->have_power, g->power_mw);
    printf(", ");
    json_watts("power_limit_w", g->have_limit, g->limit_mw);
    printf(", \"clocks_mhz\": {");
    json_uint("graphics", g->have_clock[0], g->clock_mhz[0]);
    printf(", ");
    json_uint("sm", g->have_clock[1], g->clock_mhz[1]);
    printf(", ");
    json_uint("memory", g->have_clock[2], g->clock_mhz[2]);
    printf("}, \"processes\": ");
    if (!g->have_procs) {
        printf("null}");
        return;
    }
    printf("[");
    for (unsigned int i = 0; i < g->nprocs; i++) {
        const nvml_proc *p = &g->procs[i];
        printf("%s{\"pid\": %u, \"name\": ", i ? ", " : "", p->pid);
        json_string_or_null(p->name);
        printf(", ");
        json_uint("used_memory", p->mem != NVML_VALUE_NOT_AVAILABLE, p->mem);
        printf("}");
    }
    printf("]}");
}

void watch_sample_print_json(const watch_sample *s, double interval)
{
    char t[96];
    format_time(t, sizeof t, s->when, 1);
    printf("{\"sample\": %llu, \"time\": \"%s\", \"unix_time\": %lld.%03u, \"interval_s\": ", s->index, t,
           (long long)s->when.tv_sec, (unsigned)(s->when.tv_nsec / 1000000) % 1000u);
    if (interval > 0)
        printf("%g", interval);
    else
        printf("null");
    printf(", \"gpu\": {\"available\": %s, \"reason\": ", s->gpu_reason ? "false" : "true");
    json_string_or_null(s->gpu_reason);
    printf(", \"devices\": [");
    for (int i = 0; i < s->ngpu; i++) {
        if (i) printf(", ");
        print_gpu_json(&s->gpus[i]);
    }
    const cpu_side *cp = &s->cpu;
    printf("]}, \"cpu\": {\"loadavg\": ");
    if (cp->have_load)
        printf("[%.2f, %.2f, %.2f]", cp->load[0], cp->load[1], cp->load[2]);
    else
        printf("null");
    printf(", ");
    json_uint("memory_used", cp->have_mem, cp->mem_used);
    printf(", ");
    json_uint("memory_total", cp->have_mem, cp->mem_total);
    printf(", ");
    json_uint("process_rss", cp->have_rss, cp->rss);
    printf("}, \"pool_scope\": ");
    json_string(pool_scope);
    printf(", \"pools\": [");
    for (int i = 0; i < s->ndev; i++) {
        const dev_report *r = &s->pools[i];
        printf("%s{\"device\": ", i ? ", " : "");
        json_string(dev_name(r->dev, t, sizeof t));
        if (r->st_stats) {
            printf(", \"error\": ");
            json_string(r->err_stats);
        } else {
            const nd_memory_stats *st = &r->stats;
            printf(", \"in_use\": %zu, \"peak_in_use\": %zu, \"cached\": %zu, \"reserved\": %zu, \"limit\": %zu, "
                   "\"largest_free_block\": %zu, \"fragmentation\": %.4f, \"pooled\": %s",
                   st->in_use, st->peak_in_use, st->cached, st->reserved, st->limit, st->largest_free_block,
                   pool_fragmentation(st), st->pooled ? "true" : "false");
        }
        printf("}");
    }
    printf("]}\n");
}

/* ------------------------------------------------------------------ */
/* The loop                                                            */
/* ------------------------------------------------------------------ */
static volatile sig_atomic_t g_stop;

static void on_stop(int sig)
{
    (void)sig;
    g_stop = 1;
}

static double mono_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Sleep until the monotonic time `until` or a stop signal. SIGINT and
 * SIGTERM stay blocked outside pselect, which unblocks them atomically:
 * a signal that comes while a sample is printed is not lost. */
static void wait_until(double until, const sigset_t *open_mask)
{
    for (;;) {
        double left = until - mono_now();
        if (g_stop || left <= 0) return;
        struct timespec ts;
        ts.tv_sec = (time_t)left;
        ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
        if (ts.tv_nsec > 999999999L) ts.tv_nsec = 999999999L;
        pselect(0, NULL, NULL, NULL, &ts, open_mask);
    }
}

int ndgpu_watch(double seconds, unsigned long long count, int json)
{
    sigset_t stop_set, old_mask;
    sigemptyset(&stop_set);
    sigaddset(&stop_set, SIGINT);
    sigaddset(&stop_set, SIGTERM);
    sigprocmask(SIG_BLOCK, &stop_set, &old_mask);
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigset_t open_mask = old_mask;
    sigdelset(&open_mask, SIGINT);
    sigdelset(&open_mask, SIGTERM);
    g_stop = 0;

    nvml_dl nvml;
    char err[320];
    int have_nvml = nvml_dl_open(&nvml, err, sizeof err) == 0;
    int clear = !json && isatty(STDOUT_FILENO);
    int rc = 0;
    double next = mono_now();
    for (unsigned long long k = 1; !g_stop; k++) {
        watch_sample s;
        watch_sample_take(&s, k, have_nvml ? &nvml : NULL, err);
        if (clear)
            fputs("\033[H\033[2J", stdout); /* like watch(1) */
        else if (!json && k > 1)
            putchar('\n');
        if (json)
            watch_sample_print_json(&s, seconds);
        else
            watch_sample_print_text(&s, seconds);
        watch_sample_free(&s);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            rc = 1; /* stdout closed (a pipe reader gone): stop */
            break;
        }
        if (count && k >= count) break;
        next += seconds;
        double now = mono_now();
        if (next < now) next = now; /* a slow sample: no burst to catch up */
        wait_until(next, &open_mask);
    }
    if (have_nvml) nvml_dl_close(&nvml);
    sigprocmask(SIG_SETMASK, &old_mask, NULL); /* a pending stop signal lands in on_stop */
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}
