/*
 * A fake libnvidia-ml.so.1 for tests/test_monitor.sh: built by mk/tools.mk
 * as $(BUILD)/tests/libfake_nvml.so and loaded by the tool through
 * ND_NVML_LIBRARY. It exports the NVML calls ndgpu-info --watch uses, with
 * the NVML ABI (restated here from nvml.h, independently of
 * tools/nvml_dl.h, as the driver's library would define it), and fixed
 * values the test checks exactly:
 *
 *   GPU 0 "Fake H200 0": memory 40 GiB / 140 GiB, utilisation 37 % / 12 %,
 *     45 C, power 250.5 W / 700 W, clocks 1980 / 1980 / 2619 MHz, one
 *     process: the caller itself (getpid(), so /proc/<pid>/comm is
 *     "ndgpu-info") with 1 GiB.
 *   GPU 1 "Fake H200 1": memory 1 GiB / 140 GiB, 5 % / 1 %, temperature
 *     NVML_ERROR_NOT_SUPPORTED (the tool shows n/a), power 95.5 W / 700 W,
 *     clocks 345 / 345 / 2619 MHz, one process with pid 99999999 (no
 *     /proc entry) and usedGpuMemory NVML_VALUE_NOT_AVAILABLE.
 *
 * FAKE_NVML_GPUS=<n> (0..2) changes the device count; FAKE_NVML_INIT_FAIL=1
 * makes nvmlInit_v2 fail with NVML_ERROR_DRIVER_NOT_LOADED. Every query
 * before nvmlInit_v2 or on a handle it did not hand out fails, as NVML's do.
 * Only the _v3 process query is exported (as NVML 12 does besides the older
 * ones), so the tool's v3 path is the one tested.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
};
typedef enum { NVML_TEMPERATURE_GPU = 0 } nvmlTemperatureSensors_t;
typedef enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 } nvmlClockType_t;
struct nvmlDevice_st {
    unsigned int index;
};
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
    unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

#define GIB (1024ULL * 1024 * 1024)
static struct nvmlDevice_st devices[2] = {{0}, {1}};
static int initialised;

static nvmlReturn_t check(nvmlDevice_t d)
{
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    if (d != &devices[0] && d != &devices[1]) return NVML_ERROR_INVALID_ARGUMENT;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit_v2(void)
{
    const char *fail = getenv("FAKE_NVML_INIT_FAIL");
    if (fail && *fail == '1') return NVML_ERROR_DRIVER_NOT_LOADED;
    initialised = 1;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void)
{
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    initialised = 0;
    return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    default: return "Unknown Error";
    }
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    const char *n = getenv("FAKE_NVML_GPUS");
    *count = n && *n ? (unsigned int)atoi(n) : 2;
    if (*count > 2) *count = 2;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    if (!initialised) return NVML_ERROR_UNINITIALIZED;
    if (index >= 2 || !device) return NVML_ERROR_INVALID_ARGUMENT;
    *device = &devices[index];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length)
{
    nvmlReturn_t r = check(d);
    if (r) return r;
    if (!name || length < 12) return NVML_ERROR_INSUFFICIENT_SIZE;
    snprintf(name, length, "Fake H200 %u", d->index);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
    nvmlReturn_t r = check(d);
    if (r || !m) return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    m->total = 140 * GIB;
    m->used = d->index == 0 ? 40 * GIB : 1 * GIB;
    m->free = m->total - m->used;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
    nvmlReturn_t r = check(d);
    if (r || !u) return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    u->gpu = d->index == 0 ? 37 : 5;
    u->memory = d->index == 0 ? 12 : 1;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, nvmlTemperatureSensors_t sensor, unsigned int *temp)
{
    nvmlReturn_t r = check(d);
    if (r || !temp || sensor != NVML_TEMPERATURE_GPU) return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    if (d->index == 1) return NVML_ERROR_NOT_SUPPORTED;
    *temp = 45;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw)
{
    nvmlReturn_t r = check(d);
    if (r || !mw) return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    *mw = d->index == 0 ? 250500 : 95500;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw)
{
    nvmlReturn_t r = check(d);
    if (r || !mw) return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    *mw = 700000;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, nvmlClockType_t type, unsigned int *mhz)
{
    nvmlReturn_t r = check(d);
    if (r || !mhz) return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    switch (type) {
    case NVML_CLOCK_GRAPHICS:
    case NVML_CLOCK_SM: *mhz = d->index == 0 ? 1980 : 345; return NVML_SUCCESS;
    case NVML_CLOCK_MEM: *mhz = 2619; return NVML_SUCCESS;
    default: return NVML_ERROR_INVALID_ARGUMENT;
    }
}

/* NVML's contract: *count in = capacity of infos; too small ->
 * INSUFFICIENT_SIZE with *count = the number needed. */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_t *infos)
{
    nvmlReturn_t r = check(d);
    if (r || !count) return r ? r : NVML_ERROR_INVALID_ARGUMENT;
    if (*count < 1 || !infos) {
        *count = 1;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    *count = 1;
    memset(infos, 0, sizeof *infos);
    infos[0].pid = d->index == 0 ? (unsigned int)getpid() : 99999999u;
    infos[0].usedGpuMemory = d->index == 0 ? 1 * GIB : ~0ULL;
    infos[0].gpuInstanceId = infos[0].computeInstanceId = 0xFFFFFFFFu;
    return NVML_SUCCESS;
}
