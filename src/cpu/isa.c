/* The CPU instruction-set path, chosen once at load (see src/cpu/isa.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/isa.h"

nd_cpu_isa nd__cpu_isa_detected(void)
{
#if ND_ISA_X86
    /* libgcc's cpu model checks XCR0 too: a feature whose register state
     * the OS does not save reads as absent. */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return ND_ISA_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return ND_ISA_AVX2;
#endif
    return ND_ISA_BASELINE;
}

const char *nd__cpu_isa_name(nd_cpu_isa isa)
{
    switch (isa) {
    case ND_ISA_AVX512: return "avx512";
    case ND_ISA_AVX2: return "avx2";
    default: return "baseline";
    }
}

/* The detected path lowered to ND_CPU_ISA's. */
static nd_cpu_isa choose(void)
{
    nd_cpu_isa isa = nd__cpu_isa_detected();
    const char *env = getenv("ND_CPU_ISA");
    if (!env) return isa;
    for (int i = 0; i < ND_ISA_N; i++)
        if (!strcmp(env, nd__cpu_isa_name((nd_cpu_isa)i))) return (nd_cpu_isa)i < isa ? (nd_cpu_isa)i : isa;
    return isa; /* "auto" or unknown: the detected path */
}

/* -1 until chosen. Chosen by the constructor at load; the lazy path covers
 * a call from another constructor that runs first. choose() is pure, so a
 * race stores the same value twice. */
static atomic_int g_isa = -1;

__attribute__((constructor)) static void nd_cpu_isa_init(void) { atomic_store_explicit(&g_isa, (int)choose(), memory_order_relaxed); }

const char *nd_cpu_path(void) { return nd__cpu_isa_name(nd__cpu_isa()); }

nd_cpu_isa nd__cpu_isa(void)
{
    int v = atomic_load_explicit(&g_isa, memory_order_relaxed);
    if (v < 0) {
        v = (int)choose();
        atomic_store_explicit(&g_isa, v, memory_order_relaxed);
    }
    return (nd_cpu_isa)v;
}
