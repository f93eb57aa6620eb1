/*
 * nvml_dl - the few NVML calls ndgpu-info --watch needs, loaded at run time
 * with dlopen("libnvidia-ml.so.1") (the driver's library; no NVML header and
 * no link-time dependency). ND_NVML_LIBRARY=<path> loads another library
 * instead (the tests load tests/fake_nvml.c that way).
 *
 * The types below restate the NVML ABI (nvml.h, API version 12):
 * nvmlReturn_t and the enums are ints, nvmlDevice_t an opaque pointer,
 * nvmlMemory_t {total, free, used} in bytes, nvmlUtilization_t {gpu,
 * memory} in percent, and nvmlProcessInfo_t (v2, which the _v2 and _v3
 * process queries fill) {pid, usedGpuMemory, gpuInstanceId,
 * computeInstanceId}; the unversioned (v1) query fills {pid, usedGpuMemory}.
 *
 * Compiled into the tool only, not into libndgpu.
 */
#ifndef NDGPU_NVML_DL_H
#define NDGPU_NVML_DL_H

#include <stddef.h>

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_UNKNOWN 999
#define NVML_TEMPERATURE_GPU 0
#define NVML_CLOCK_GRAPHICS 0
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
/* usedGpuMemory when the driver cannot tell (e.g. without privileges). */
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlMemory_st {
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct nvmlUtilization_st {
    unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct nvmlProcessInfo_v1_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;
typedef struct nvmlProcessInfo_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

/* The loaded library: the function pointers (a query whose symbol is
 * missing is NULL and reads as "n/a"). */
typedef struct nvml_dl {
    void *lib;
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*device_count)(unsigned int *);
    nvmlReturn_t (*handle_by_index)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t *);
    nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t *);
    nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int *);
    nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*power_limit)(nvmlDevice_t, unsigned int *);
    nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int *);
    nvmlReturn_t (*procs)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);       /* _v3 or _v2 */
    nvmlReturn_t (*procs_v1)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_v1_t *); /* older drivers */
} nvml_dl;

/* One process on a GPU; mem is NVML_VALUE_NOT_AVAILABLE when unknown,
 * name "" when /proc/<pid>/comm is not readable. */
typedef struct nvml_proc {
    unsigned int pid;
    unsigned long long mem;
    char name[32];
} nvml_proc;

/* One GPU's sample. Each have_* is 1 when that query succeeded; a failed
 * query (NVML_ERROR_NOT_SUPPORTED is common) leaves it 0: "n/a". */
enum { NVML_CLOCKS = 3 }; /* graphics, SM, memory */
typedef struct nvml_gpu {
    unsigned int index;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    int have_name, have_mem, have_util, have_temp, have_power, have_limit, have_procs;
    int have_clock[NVML_CLOCKS];
    unsigned long long mem_used, mem_total;
    unsigned int util_gpu, util_mem, temp_c, power_mw, limit_mw;
    unsigned int clock_mhz[NVML_CLOCKS];
    unsigned int nprocs; /* entries in procs (malloc'ed; nvml_gpu_free) */
    nvml_proc *procs;
} nvml_gpu;

/* Load the library (ND_NVML_LIBRARY or libnvidia-ml.so.1) and nvmlInit_v2.
 * Returns 0, or -1 with the reason in err (the dlerror() text, a missing
 * symbol, or nvmlInit_v2's error string); *n is then closed. */
int nvml_dl_open(nvml_dl *n, char *err, size_t cap);
/* nvmlShutdown and dlclose (harmless on a closed *n). */
void nvml_dl_close(nvml_dl *n);
/* The number of GPUs, or -1 with the reason in err. */
int nvml_dl_count(const nvml_dl *n, char *err, size_t cap);
/* Query GPU index into *g (never fails as a whole: a failed query is a
 * have_* of 0; a failed handle leaves every have_* 0). */
void nvml_dl_sample(const nvml_dl *n, unsigned int index, nvml_gpu *g);
void nvml_gpu_free(nvml_gpu *g);

#endif
