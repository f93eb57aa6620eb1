/* The CPU backend's device part: cpu:0 is the only CPU device; its info
 * comes from /proc/cpuinfo and sysconf, its build line names the BLAS. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu/blas.h"
#include "cpu/cpu.h"
#include "cpu/matmul_bf16.h"

nd_status nd__cpu_check_device(const char *func, int id)
{
    if (id != 0) return nd__err(ND_ERR_DEVICE, func, "invalid CPU device id %d (only cpu:0 exists)", id);
    return ND_OK;
}

nd_status nd__cpu_device_info(nd_device_info *info, int id)
{
    if (id != 0) return nd__err(ND_ERR_DEVICE, "nd_device_get_info", "invalid CPU device id %d", id);
    nd_device_info r;
    memset(&r, 0, sizeof r);
    snprintf(r.name, sizeof r.name, "cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ') c++;
                    c[strcspn(c, "\n")] = '\0';
                    snprintf(r.name, sizeof r.name, "%s", c);
                }
                break;
            }
        }
        fclose(f);
    }
    r.type = ND_DEVICE_CPU;
    r.multiprocessors = nd__num_threads();
    long pages = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psz > 0) r.total_memory = (size_t)pages * (size_t)psz;
    if (avail > 0 && psz > 0) r.free_memory = (size_t)avail * (size_t)psz;
    *info = r;
    return ND_OK;
}

/* "BLAS: OpenBLAS 0.3.34 (scipy-openblas32, core SkylakeX); threads: 2;
 * CPU path: avx512; ...": the BLAS library, its version, where it comes
 * from and the kernel core it runs; ", generic kernels" after the core when
 * that core has no AVX2 kernels (ndgpu-info warns then, on a CPU that has
 * AVX2 or AVX-512). */
void nd__cpu_build_info(char *buf, size_t cap)
{
    char ver[48];
    const char *core = nd__blas_core();
    nd_cpu_isa isa = nd__cpu_isa(), det = nd__cpu_isa_detected();
    nd_bf16_path bp = nd__bf16_path(), bdet = nd__bf16_path_detected();
    snprintf(buf, cap, "BLAS: %s %s (%s, core %s%s); threads: %d; CPU path: %s%s%s%s; bfloat16 GEMM: %s%s%s%s",
             nd__blas_name(), nd__blas_version(ver, sizeof ver), nd__blas_origin(), core,
             nd__blas_core_is_generic(core) ? ", generic kernels" : "", nd__num_threads(), nd__cpu_isa_name(isa),
             isa != det ? " (forced by ND_CPU_ISA, the CPU has " : "", isa != det ? nd__cpu_isa_name(det) : "",
             isa != det ? ")" : "", nd__bf16_path_name(bp), bp != bdet ? " (the CPU has " : "",
             bp != bdet ? nd__bf16_path_name(bdet) : "", bp != bdet ? ")" : "");
}
