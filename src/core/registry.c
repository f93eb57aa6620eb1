/* The registry: which backend serves each nd_device_type, with the
 * identity and capabilities of its devices, and the profiler's report
 * writers. This is the core's only `#ifdef ND_WITH_CUDA` and the only
 * place that names a backend's descriptor or a writer; everything else
 * reaches a device through nd__backend(dev) and the entry's fields
 * (src/core/backend.h, which lists the steps of adding a backend: one
 * directory plus one entry below). make check-doors (part of make test)
 * keeps it that way. */
#include <stdio.h>
#include <string.h>

#include "cpu/cpu.h"
#include "core/pool.h"
#include "core/prof.h"
#ifdef ND_WITH_CUDA
#include "cuda/cuda_backend.h"
#define ND_CUDA_DESCRIPTOR (&nd__cuda_backend)
#else
#define ND_CUDA_DESCRIPTOR NULL
#endif

/* One entry per device type: its name (also when not compiled in, so
 * messages about a foreign array still read "cuda:0"), the build flag's
 * label, and the descriptor. */
const nd_backend_entry nd__registry[ND_NUM_DEVICE_TYPES] = {
    [ND_DEVICE_CPU] = {.name = "cpu", .label = "CPU", .be = &nd__cpu_backend, .host = true, .dlpack = 1 /* kDLCPU */},
    [ND_DEVICE_CUDA] = {.name = "cuda", .label = "CUDA", .be = ND_CUDA_DESCRIPTOR, .timed = true,
                        .dlpack = 2 /* kDLCUDA */, .dlpack_managed = 13 /* kDLCUDAManaged */,
                        .dlpack_pinned = 3 /* kDLCUDAHost */},
};

/* The profiler's report writers (src/prof/), which the core's public
 * report functions and ND_PROFILE call through this table. */
const nd_prof_writers nd__prof_writers = {
    .key_averages = nd__prof_key_averages,
    .table = nd__prof_table,
    .print_table = nd__prof_print_table,
    .chrome_trace = nd__prof_chrome_trace,
    .json = nd__prof_json,
};

char *nd__device_name(nd_device d, char *buf, size_t cap)
{
    if ((unsigned)d.type < (unsigned)ND_NUM_DEVICE_TYPES)
        snprintf(buf, cap, "%s:%d", nd__registry[d.type].name, d.id);
    else
        snprintf(buf, cap, "device-type-%d:%d", (int)d.type, d.id);
    return buf;
}

nd_status nd__check_device(const char *func, nd_device dev)
{
    if ((unsigned)dev.type >= (unsigned)ND_NUM_DEVICE_TYPES)
        return nd__err(ND_ERR_INVALID, func, "invalid device type %d", (int)dev.type);
    const nd_backend_entry *e = &nd__registry[dev.type];
    if (e->be == NULL)
        return nd__err(ND_ERR_UNSUPPORTED, func, "device %s:%d requested, but libndgpu was built without %s (%s=0)",
                       e->name, dev.id, e->label, e->label);
    return e->be->check_device(func, dev.id);
}

bool nd__pinned_upstream(struct nd_pool_upstream *up)
{
    for (int t = 0; t < ND_NUM_DEVICE_TYPES; t++) {
        const nd_backend *be = nd__registry[t].be;
        if (be && be->pinned_upstream && be->pinned_upstream(up)) return true;
    }
    return false;
}

int nd__device_type_named(const char *s, size_t len)
{
    for (int t = 0; t < ND_NUM_DEVICE_TYPES; t++)
        if (strlen(nd__registry[t].name) == len && strncmp(s, nd__registry[t].name, len) == 0) return t;
    return -1;
}
