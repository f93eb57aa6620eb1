/* The CPU instruction-set path, chosen once at load (see src/cpu/isa.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/isa.h"

#if ND_ISA_X86 && defined(__GNUC__)
#include <cpuid.h>
#endif
#if ND_ISA_X86 && defined(__linux__) && defined(__x86_64__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

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

/* The features of nd__cpu_has, as a bit mask. */
static unsigned detect_features(void)
{
    unsigned m = 0;
#if ND_ISA_X86 && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_is("amd")) m |= 1u << ND_CPU_VENDOR_AMD;
    /* CPUID read directly (clang 14's __builtin_cpu_supports knows neither
     * "f16c" nor the AMX names): leaf 1 ECX bit 29 F16C (its YMM state is
     * checked with AVX2's by nd__cpu_isa_detected); leaf 7 sub-leaf 1 EAX
     * bit 5 AVX512-BF16; sub-leaf 0 EDX bit 22 AMX-BF16, bit 24 AMX-TILE.
     * The AVX-512 state check is nd__cpu_isa_detected's. */
    unsigned a, b, c, d;
    if (nd__cpu_isa_detected() >= ND_ISA_AVX2 && __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)))
        m |= 1u << ND_CPU_F16C;
    if (nd__cpu_isa_detected() >= ND_ISA_AVX512 && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5))) {
        m |= 1u << ND_CPU_AVX512_BF16;
#if defined(__linux__) && defined(__x86_64__)
        if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 22)) && (d & (1u << 24)) &&
            syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XFEATURE_XTILEDATA */) == 0)
            m |= 1u << ND_CPU_AMX_BF16;
#endif
    }
#endif
    return m;
}

/* -1 until detected; detection is pure (the permission request is
 * idempotent), so a race stores the same value twice. */
static atomic_int g_features = -1;

bool nd__cpu_has(nd_cpu_feature f)
{
    int v = atomic_load_explicit(&g_features, memory_order_relaxed);
    if (v < 0) {
        v = (int)detect_features();
        atomic_store_explicit(&g_features, v, memory_order_relaxed);
    }
    return ((unsigned)v >> f) & 1u;
}
