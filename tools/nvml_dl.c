/*
 * nvml_dl - NVML loaded at run time (see nvml_dl.h).
 */
#include "nvml_dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dlsym returns an object pointer; POSIX guarantees it converts to a
 * function pointer of the same size. */
#define LOAD(field, symbol)                                                                                  \
    do {                                                                                                     \
        void *p_ = dlsym(n->lib, symbol);                                                                    \
        _Static_assert(sizeof p_ == sizeof n->field, "function and object pointers differ in size");         \
        memcpy(&n->field, &p_, sizeof p_);                                                                   \
    } while (0)

static const char *err_text(const nvml_dl *n, nvmlReturn_t r)
{
    const char *s = n->error_string ? n->error_string(r) : NULL;
    return s ? s : "unknown NVML error";
}

int nvml_dl_open(nvml_dl *n, char *err, size_t cap)
{
    memset(n, 0, sizeof *n);
    const char *env = getenv("ND_NVML_LIBRARY");
    const char *path = env && *env ? env : "libnvidia-ml.so.1";
    n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *e = dlerror();
        snprintf(err, cap, "%s", e ? e : path);
        return -1;
    }
    LOAD(init, "nvmlInit_v2");
    LOAD(shutdown, "nvmlShutdown");
    LOAD(error_string, "nvmlErrorString");
    LOAD(device_count, "nvmlDeviceGetCount_v2");
    LOAD(handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
    const char *missing = !n->init              ? "nvmlInit_v2"
                          : !n->shutdown        ? "nvmlShutdown"
                          : !n->device_count    ? "nvmlDeviceGetCount_v2"
                          : !n->handle_by_index ? "nvmlDeviceGetHandleByIndex_v2"
                                                : NULL;
    if (missing) {
        snprintf(err, cap, "%s: no symbol %s (driver too old?)", path, missing);
        dlclose(n->lib);
        memset(n, 0, sizeof *n);
        return -1;
    }
    LOAD(name, "nvmlDeviceGetName");
    LOAD(memory, "nvmlDeviceGetMemoryInfo");
    LOAD(utilization, "nvmlDeviceGetUtilizationRates");
    LOAD(temperature, "nvmlDeviceGetTemperature");
    LOAD(power, "nvmlDeviceGetPowerUsage");
    LOAD(power_limit, "nvmlDeviceGetEnforcedPowerLimit");
    LOAD(clock, "nvmlDeviceGetClockInfo");
    LOAD(procs, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (!n->procs) LOAD(procs, "nvmlDeviceGetComputeRunningProcesses_v2");
    if (!n->procs) LOAD(procs_v1, "nvmlDeviceGetComputeRunningProcesses");
    nvmlReturn_t r = n->init();
    if (r != NVML_SUCCESS) {
        snprintf(err, cap, "nvmlInit_v2: %s", err_text(n, r));
        dlclose(n->lib);
        memset(n, 0, sizeof *n);
        return -1;
    }
    return 0;
}

void nvml_dl_close(nvml_dl *n)
{
    if (!n->lib) return;
    n->shutdown();
    dlclose(n->lib);
    memset(n, 0, sizeof *n);
}

int nvml_dl_count(const nvml_dl *n, char *err, size_t cap)
{
    unsigned int count = 0;
    nvmlReturn_t r = n->device_count(&count);
    if (r != NVML_SUCCESS) {
        snprintf(err, cap, "nvmlDeviceGetCount_v2: %s", err_text(n, r));
        return -1;
    }
    return (int)count;
}

/* /proc/<pid>/comm without its newline, or "" when not readable. */
static void proc_name(unsigned int pid, char *buf, size_t cap)
{
    char path[48];
    snprintf(path, sizeof path, "/proc/%u/comm", pid);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(buf, (int)cap, f)) buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

/* The compute processes, growing the buffer while NVML says it is too
 * small (processes may start between the calls: a few tries). */
static void sample_procs(const nvml_dl *n, nvmlDevice_t h, nvml_gpu *g)
{
    if (!n->procs && !n->procs_v1) return;
    unsigned int cap = 16;
    for (int attempt = 0, done = 0; attempt < 4 && !done; attempt++) {
        nvmlProcessInfo_t *v2 = NULL;
        nvmlProcessInfo_v1_t *v1 = NULL;
        unsigned int count = cap;
        nvmlReturn_t r = NVML_ERROR_UNKNOWN;
        if (n->procs) {
            if ((v2 = calloc(cap, sizeof *v2))) r = n->procs(h, &count, v2);
        } else {
            if ((v1 = calloc(cap, sizeof *v1))) r = n->procs_v1(h, &count, v1);
        }
        if (r == NVML_ERROR_INSUFFICIENT_SIZE && count > cap) {
            cap = count + 8; /* try again with room for the new ones */
        } else {
            done = 1; /* NOT_SUPPORTED and the like: n/a */
            if (r == NVML_SUCCESS) {
                if (count > cap) count = cap;
                g->procs = count ? calloc(count, sizeof *g->procs) : NULL;
                if (count && !g->procs) count = 0;
                for (unsigned int i = 0; i < count; i++) {
                    g->procs[i].pid = v2 ? v2[i].pid : v1[i].pid;
                    g->procs[i].mem = v2 ? v2[i].usedGpuMemory : v1[i].usedGpuMemory;
                    proc_name(g->procs[i].pid, g->procs[i].name, sizeof g->procs[i].name);
                }
                g->nprocs = count;
                g->have_procs = 1;
            }
        }
        free(v2);
        free(v1);
    }
}

void nvml_dl_sample(const nvml_dl *n, unsigned int index, nvml_gpu *g)
{
    memset(g, 0, sizeof *g);
    g->index = index;
    nvmlDevice_t h = NULL;
    if (n->handle_by_index(index, &h) != NVML_SUCCESS) return;
    if (n->name && n->name(h, g->name, sizeof g->name) == NVML_SUCCESS) {
        g->name[sizeof g->name - 1] = '\0';
        g->have_name = 1;
    }
    nvmlMemory_t m;
    if (n->memory && n->memory(h, &m) == NVML_SUCCESS) {
        g->mem_used = m.used;
        g->mem_total = m.total;
        g->have_mem = 1;
    }
    nvmlUtilization_t u;
    if (n->utilization && n->utilization(h, &u) == NVML_SUCCESS) {
        g->util_gpu = u.gpu;
        g->util_mem = u.memory;
        g->have_util = 1;
    }
    g->have_temp = n->temperature && n->temperature(h, NVML_TEMPERATURE_GPU, &g->temp_c) == NVML_SUCCESS;
    g->have_power = n->power && n->power(h, &g->power_mw) == NVML_SUCCESS;
    g->have_limit = n->power_limit && n->power_limit(h, &g->limit_mw) == NVML_SUCCESS;
    static const int clocks[NVML_CLOCKS] = {NVML_CLOCK_GRAPHICS, NVML_CLOCK_SM, NVML_CLOCK_MEM};
    for (int c = 0; c < NVML_CLOCKS; c++)
        g->have_clock[c] = n->clock && n->clock(h, clocks[c], &g->clock_mhz[c]) == NVML_SUCCESS;
    sample_procs(n, h, g);
}

void nvml_gpu_free(nvml_gpu *g)
{
    free(g->procs);
    g->procs = NULL;
    g->nprocs = 0;
}
