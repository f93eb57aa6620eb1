/* The CPU instruction-set path (src/cpu/isa.c): one portable build holds
 * loops for several x86 ISA levels, and one of them is chosen once, when
 * the library is loaded:
 *
 *   ND_ISA_AVX512   AVX-512 F+DQ+BW+VL (x86-64-v4: Skylake-X and later
 *                   Xeons, AMD Zen 4/5), 512-bit vectors;
 *   ND_ISA_AVX2     AVX2 + FMA (x86-64-v3: Haswell, Zen 1 and later);
 *   ND_ISA_BASELINE whatever the compiler targets without -m flags
 *                   (SSE2 on x86-64; every non-x86 build).
 *
 * The environment variable ND_CPU_ISA=avx512|avx2|baseline, read at load,
 * forces a lower path, so that every path runs in the tests on any machine
 * that has the highest one (`make test-isa`). A request above what the CPU
 * has is clamped to what it has (the library never executes an
 * instruction the CPU lacks); an unknown value, or "auto", keeps the
 * detected path. nd_build_info() names the path in use ("CPU path:
 * avx512"), and with it ndgpu-info and every benchmark record.
 *
 * A loop specialised per ISA is compiled with ND_ISA_TARGET_AVX2 /
 * ND_ISA_TARGET_AVX512 (function attributes: the rest of the build stays
 * baseline, so nothing else can use an instruction the CPU lacks) and
 * chosen with `nd__cpu_isa() >= ND_ISA_AVX2`. The library never relies
 * on FMA contraction (the build is -std=c11, i.e. -ffp-contract=off), so
 * loops that merely recompile the same C body give the same bits on every
 * path; kernels written per ISA (libmvec's vector math, the AVX-512
 * matmul) are tested per path for their own error bounds instead. */
#ifndef ND_CPU_ISA_H
#define ND_CPU_ISA_H
#include "core/internal.h"

typedef enum nd_cpu_isa { ND_ISA_BASELINE = 0, ND_ISA_AVX2 = 1, ND_ISA_AVX512 = 2, ND_ISA_N } nd_cpu_isa;

#if defined(__x86_64__) || defined(__i386__)
#define ND_ISA_X86 1
#define ND_ISA_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define ND_ISA_TARGET_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")))
#else
#define ND_ISA_X86 0
#define ND_ISA_TARGET_AVX2
#define ND_ISA_TARGET_AVX512
#endif

/* The path in use (detected, lowered by ND_CPU_ISA); fixed after load. */
ND_INTERNAL nd_cpu_isa nd__cpu_isa(void);
/* The highest path this CPU (and OS: saved vector state) supports. */
ND_INTERNAL nd_cpu_isa nd__cpu_isa_detected(void);
/* "avx512", "avx2", "baseline". */
ND_INTERNAL const char *nd__cpu_isa_name(nd_cpu_isa isa);

/* Single CPU features beyond the ISA levels, for the kernels that need one
 * (src/cpu/isa.c is still the only file that asks the CPU):
 *   ND_CPU_F16C        VCVTPH2PS/VCVTPS2PH (float16 <-> float32);
 *   ND_CPU_AVX512_BF16 VDPBF16PS and friends (Cooper Lake, Sapphire Rapids,
 *                      Zen 4/5), with AVX-512 state saved by the OS;
 *   ND_CPU_AMX_BF16    AMX-TILE + AMX-BF16, and the OS has granted this
 *                      process the tile data state (Linux 5.16+ hands it out
 *                      only after arch_prctl(ARCH_REQ_XCOMP_PERM), asked for
 *                      here, once; a kernel or a tool such as valgrind that
 *                      refuses makes it read as absent);
 *   ND_CPU_VENDOR_AMD  an AMD CPU (for defaults measured per vendor).
 * What the CPU has, not what ND_CPU_ISA allows: callers combine the two
 * (a feature is used only where nd__cpu_isa() is high enough for it).
 * Fixed after the first call; always false off x86. */
typedef enum nd_cpu_feature { ND_CPU_F16C, ND_CPU_AVX512_BF16, ND_CPU_AMX_BF16, ND_CPU_VENDOR_AMD, ND_CPU_FEATURE_N } nd_cpu_feature;
ND_INTERNAL bool nd__cpu_has(nd_cpu_feature f);
#endif
