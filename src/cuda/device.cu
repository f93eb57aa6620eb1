// CUDA device discovery and information. Never fails loudly: a machine
// without a driver or GPU simply has 0 devices.
#include "cuda/cuda_seam.h"
#include <stdio.h>
#include <string.h>

#include "cuda/cuda_backend.h"

static int g_count = -1;
static char g_reason[160] = "";

static void discover(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        if (e == cudaErrorInsufficientDriver)
            snprintf(g_reason, sizeof g_reason, "CUDA driver not found or too old: %s", cudaGetErrorString(e));
        else if (e == cudaErrorNoDevice)
            snprintf(g_reason, sizeof g_reason, "no CUDA-capable device: %s", cudaGetErrorString(e));
        else
            snprintf(g_reason, sizeof g_reason, "cudaGetDeviceCount failed: %s", cudaGetErrorString(e));
        (void)cudaGetLastError(); // clear the sticky-free error state
        n = 0;
    } else if (n == 0) {
        snprintf(g_reason, sizeof g_reason, "no CUDA-capable device");
    }
    __atomic_store_n(&g_count, n, __ATOMIC_RELEASE);
}

extern "C" int nd__cuda_device_count(void)
{
    int n = __atomic_load_n(&g_count, __ATOMIC_ACQUIRE);
    if (n < 0) {
        discover(); // idempotent; a race only repeats the query
        n = __atomic_load_n(&g_count, __ATOMIC_ACQUIRE);
    }
    return n;
}

extern "C" const char *nd__cuda_unavailable_reason(void)
{
    (void)nd__cuda_device_count();
    return g_reason[0] ? g_reason : "CUDA devices are available";
}

extern "C" nd_status nd__cuda_device_info(nd_device_info *info, int id)
{
    static const char *fn = "nd_device_get_info";
    int n = nd__cuda_device_count();
    if (n == 0) return nd__err(ND_ERR_DEVICE, fn, "no usable GPU (%s)", nd__cuda_unavailable_reason());
    if (id < 0 || id >= n) return nd__err(ND_ERR_DEVICE, fn, "device cuda:%d does not exist (%d CUDA devices)", id, n);
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, id);
    if (e != cudaSuccess) return nd__err(ND_ERR_BACKEND, fn, "cudaGetDeviceProperties(%d): %s", id, cudaGetErrorString(e));
    nd_device_info r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "%s", p.name);
    r.type = ND_DEVICE_CUDA;
    r.id = id;
    r.cc_major = p.major;
    r.cc_minor = p.minor;
    r.multiprocessors = p.multiProcessorCount;
    r.total_memory = p.totalGlobalMem;
    int clk = 0, bus = 0;
    if (cudaDeviceGetAttribute(&clk, cudaDevAttrMemoryClockRate, id) == cudaSuccess) r.memory_clock_khz = clk;
    if (cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, id) == cudaSuccess) r.memory_bus_width_bits = bus;
    // DDR: two transfers per clock
    r.peak_bandwidth_gbps = 2.0 * (double)clk * 1e3 * (double)bus / 8.0 / 1e9;
    int prev = 0;
    if (cudaGetDevice(&prev) == cudaSuccess && cudaSetDevice(id) == cudaSuccess) {
        size_t fr = 0, tot = 0;
        if (cudaMemGetInfo(&fr, &tot) == cudaSuccess) r.free_memory = fr;
        cudaSetDevice(prev);
    }
    *info = r;
    return ND_OK;
}

extern "C" void nd__cuda_build_info(char *buf, size_t cap)
{
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    if (drv)
        snprintf(buf, cap, "CUDA runtime %d.%d, driver %d.%d, %d GPU(s)", rt / 1000, (rt % 1000) / 10, drv / 1000,
                 (drv % 1000) / 10, nd__cuda_device_count());
    else
        snprintf(buf, cap, "CUDA runtime %d.%d, no GPU: %s", rt / 1000, (rt % 1000) / 10, nd__cuda_unavailable_reason());
}


