/*
 * ndgpu-info's parts shared between the static report (ndgpu-info.c) and
 * the live monitor (ndgpu_watch.c, `ndgpu-info --watch`).
 */
#ifndef NDGPU_WATCH_H
#define NDGPU_WATCH_H

#include <ndgpu.h>
#include <stddef.h>
#include <time.h>

#include "nvml_dl.h"

/* ndgpu-info.c: formatting helpers (stdout). */
const char *dev_name(nd_device d, char *buf, size_t cap); /* "cpu:0", "cuda:1" */
void human_bytes(char *buf, size_t cap, size_t b);        /* "1.5 GiB" */
void json_string(const char *s);                          /* a quoted, escaped JSON string */
void json_string_or_null(const char *s);                  /* NULL or "" -> null */

/* One device: info and pool statistics (st_info / st_stats say whether
 * they came; err_* hold nd_last_error() otherwise). */
typedef struct dev_report {
    nd_device dev;
    nd_device_info info;
    nd_memory_stats stats;
    nd_status st_info, st_stats;
    char err_info[256], err_stats[256];
} dev_report;
/* The pool statistics of d (nd_memory_get_stats) into r->stats. */
void collect_stats(dev_report *r, nd_device d);

/* ndgpu_watch.c: one sample of the live monitor. */
typedef struct cpu_side {
    int have_load, have_mem, have_rss;
    double load[3];                           /* /proc/loadavg: 1, 5, 15 minutes */
    unsigned long long mem_total, mem_used;   /* /proc/meminfo: MemTotal, MemTotal - MemAvailable */
    unsigned long long rss;                   /* this process, /proc/self/statm */
} cpu_side;

typedef struct watch_sample {
    unsigned long long index;  /* 1, 2, ... */
    struct timespec when;      /* CLOCK_REALTIME */
    const char *gpu_reason;    /* NULL when GPUs are listed, else "NVML not available: ..." / "no GPU ..." */
    char reason_buf[320];
    int ngpu;
    nvml_gpu *gpus;
    cpu_side cpu;
    int ndev;                  /* cpu:0 and every cuda:N */
    dev_report *pools;         /* only stats filled: the pools of THIS process */
} watch_sample;

/* Take one sample. nvml is NULL (then nvml_err says why) or opened with
 * nvml_dl_open. Never fails: what cannot be read is "n/a". */
void watch_sample_take(watch_sample *s, unsigned long long index, const nvml_dl *nvml, const char *nvml_err);
/* The readable block, headed by the timestamp (interval in seconds, 0 for
 * a single snapshot). */
void watch_sample_print_text(const watch_sample *s, double interval);
/* The sample as one JSON object on one line (JSON Lines). */
void watch_sample_print_json(const watch_sample *s, double interval);
void watch_sample_free(watch_sample *s);
/* 1 - largest_free_block / cached; 0 when nothing is cached. */
double pool_fragmentation(const nd_memory_stats *s);

/* `ndgpu-info --watch SECONDS [--count N] [--json]`: sample, print, sleep
 * until N samples (0: no limit) or SIGINT/SIGTERM. Returns the exit status
 * (0, also when interrupted; 1 when stdout fails). */
int ndgpu_watch(double seconds, unsigned long long count, int json);

#endif
