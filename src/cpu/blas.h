/* The BLAS the build chose (mk/blas.mk, docs/blas.md), behind one header:
 * its CBLAS declarations under the plain cblas_* names, its thread count,
 * and what it is (library, version, kernel core). Everything that calls a
 * BLAS includes this and never <cblas.h> directly: the CPU backend
 * (matmul, LAPACK through src/cpu/lapack.h, threads), the emulated cuBLAS
 * and cuSOLVER stand-ins, the tests and the benchmarks' raw baselines.
 *
 *  ND_BLAS_SCIPY_OPENBLAS  the OpenBLAS NumPy and SciPy ship (scipy-openblas32):
 *                          every symbol carries the prefix scipy_; the names
 *                          used here are mapped onto them
 *  ND_BLAS_BLIS            BLIS (its CBLAS layer) + the reference LAPACK
 *  otherwise               OpenBLAS under its own names (the distribution's)
 *
 * Header only (static inline), so the benchmarks and tests use the same
 * door as the library without new exported symbols. */
#ifndef ND_CPU_BLAS_H
#define ND_CPU_BLAS_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(ND_BLAS_SCIPY_OPENBLAS)
#define ND_BLAS_PFX(name) scipy_##name
#else
#define ND_BLAS_PFX(name) name
#endif

#if defined(ND_BLAS_SCIPY_OPENBLAS)
#define cblas_sgemm scipy_cblas_sgemm
#define cblas_dgemm scipy_cblas_dgemm
#define cblas_cgemm scipy_cblas_cgemm
#define cblas_zgemm scipy_cblas_zgemm
#define cblas_sdot scipy_cblas_sdot
#define cblas_ddot scipy_cblas_ddot
#define cblas_cdotu_sub scipy_cblas_cdotu_sub
#define cblas_zdotu_sub scipy_cblas_zdotu_sub
#define cblas_sgemv scipy_cblas_sgemv
#define cblas_dgemv scipy_cblas_dgemv
#define cblas_saxpy scipy_cblas_saxpy
#define cblas_daxpy scipy_cblas_daxpy
#define cblas_snrm2 scipy_cblas_snrm2
#define cblas_dnrm2 scipy_cblas_dnrm2
#define cblas_strsm scipy_cblas_strsm
#define cblas_dtrsm scipy_cblas_dtrsm
#define cblas_ctrsm scipy_cblas_ctrsm
#define cblas_ztrsm scipy_cblas_ztrsm
#define openblas_set_num_threads scipy_openblas_set_num_threads
#define openblas_get_num_threads scipy_openblas_get_num_threads
#define openblas_get_corename scipy_openblas_get_corename
#define openblas_get_config scipy_openblas_get_config
#endif

#if defined(ND_BLAS_BLIS)
#include <cblas.h> /* BLIS's CBLAS layer (the blis-openmp include folder) */
typedef f77_int blasint;
/* from blis.h, which is too large to include everywhere */
#ifdef __cplusplus
extern "C" {
#endif
int64_t bli_thread_get_num_threads(void);
void bli_thread_set_num_threads(int64_t n);
char *bli_info_get_version_str(void);
int bli_arch_query_id(void);
char *bli_arch_string(int id);
#ifdef __cplusplus
}
#endif
#else
#include <cblas.h>
#endif

/* The library's name: "OpenBLAS" or "BLIS". */
static inline const char *nd__blas_name(void)
{
#if defined(ND_BLAS_BLIS)
    return "BLIS";
#else
    return "OpenBLAS";
#endif
}

/* Where it comes from: "scipy-openblas32", "system" (the distribution's). */
static inline const char *nd__blas_origin(void)
{
#if defined(ND_BLAS_SCIPY_OPENBLAS)
    return "scipy-openblas32";
#else
    return "system";
#endif
}

/* Its version ("0.3.34.481.3", "0.9.0"), written into buf. */
static inline const char *nd__blas_version(char *buf, size_t cap)
{
#if defined(ND_BLAS_BLIS)
    const char *v = bli_info_get_version_str();
    snprintf(buf, cap, "%s", v ? v : "?");
#else
    /* openblas_get_config(): "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..." */
    const char *c = openblas_get_config();
    const char *v = c ? strstr(c, "OpenBLAS ") : NULL;
    if (v) {
        v += 9;
        size_t n = strcspn(v, " ");
        snprintf(buf, cap, "%.*s", (int)n, v);
    } else {
        snprintf(buf, cap, "?");
    }
#endif
    return buf;
}

/* The kernel core it chose for this CPU ("SkylakeX", "Haswell", "Zen",
 * "Prescott" for OpenBLAS's generic one; BLIS: "skx", "zen3", "generic"). */
static inline const char *nd__blas_core(void)
{
#if defined(ND_BLAS_BLIS)
    const char *c = bli_arch_string(bli_arch_query_id());
#else
    const char *c = openblas_get_corename();
#endif
    return c ? c : "?";
}

/* Whether that core has no AVX2/FMA kernels: OpenBLAS's generic Prescott
 * (what a DYNAMIC_ARCH build falls back to on a CPU model it does not
 * know) and the other pre-AVX2 cores, BLIS's "generic". */
static inline int nd__blas_core_is_generic(const char *core)
{
    static const char *const generic[] = {"Prescott", "Katmai", "Coppermine", "Northwood", "Banias", "Core2",
                                          "Penryn", "Dunnington", "Nehalem", "Sandybridge", "Atom", "Opteron",
                                          "Opteron_SSE3", "Barcelona", "Bobcat", "Athlon", "generic", "unknown"};
    for (size_t i = 0; i < sizeof generic / sizeof generic[0]; i++)
        if (strcmp(core, generic[i]) == 0) return 1;
    return 0;
}

static inline int nd__blas_get_threads(void)
{
#if defined(ND_BLAS_BLIS)
    int64_t n = bli_thread_get_num_threads();
    return n > 0 ? (int)n : 1;
#else
    return openblas_get_num_threads();
#endif
}

static inline void nd__blas_set_threads(int n)
{
#if defined(ND_BLAS_BLIS)
    bli_thread_set_num_threads(n);
#else
    openblas_set_num_threads(n);
#endif
}

#endif
