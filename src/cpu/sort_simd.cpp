/* x86-simd-sort (third_party/x86-simd-sort, Intel's, the sort NumPy
 * dispatches to) compiled for one CPU path: the Makefile compiles this
 * file twice, with the AVX-512 (SKX: F+DQ+BW+VL) and with the AVX2 flags,
 * and ND_XSS_SFX names the functions of each (nd__xss_*_avx512,
 * nd__xss_*_avx2). src/cpu/sort_simd.c chooses one by nd__cpu_isa() and
 * builds the library's order, stability and threading around them. Every
 * sort here is of unsigned integer keys (src/shared/sort_keys.h), so NaNs and
 * signed zeros never reach x86-simd-sort. Its functions are static inline
 * templates (internal linkage); the few std:: templates they instantiate
 * are kept local by -fno-weak where the compiler has it (the Makefile). */
#include <stddef.h>
#include <stdint.h>

/* GCC 12 warns "(may be) used uninitialized" inside its own AVX-512
 * intrinsics (the _mm512_undefined_* idiom) once they are inlined here */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "x86simdsort-static-incl.h"

#define ND__CAT2(a, b) a##_##b
#define ND__CAT(a, b) ND__CAT2(a, b)
#define ND__XSS(name) ND__CAT(name, ND_XSS_SFX)
#define ND__HIDDEN __attribute__((visibility("hidden")))

#if defined(__AVX512F__)
template <typename T>
using nd_vec = zmm_vector<T>;
#else
template <typename T>
using nd_vec = avx2_vector<T>;
#endif

/* One quicksort partition step of k[0, n) (n >= 256), and v beside it when
 * not NULL: returns s with every key of [0, s) below every key of [s, n)
 * (equal keys on one side), or 0 when a sample of 256 keys shows one value
 * only. The pivot is the sample's median, or its smallest key above the
 * minimum, so neither side is empty. */
template <typename T>
static size_t nd_part(T *k, uint64_t *v, size_t n)
{
    using V = nd_vec<T>;
    T s[256];
    for (size_t i = 0; i < 256; i++) s[i] = k[(n - 1) * i / 255];
    x86simdsortStatic::qsort(s, 256, false, false);
    T pivot = s[128];
    if (pivot == s[0]) {
        size_t j = 129;
        while (j < 256 && s[j] == s[0]) j++;
        if (j == 256) return 0;
        pivot = s[j];
    }
    T smallest = V::type_max(), biggest = V::type_min();
    if constexpr (sizeof(T) == 8)
        if (v) return kvpartition_unrolled<V, nd_vec<uint64_t>, 4>(k, v, 0, n, pivot, &smallest, &biggest);
    return partition_unrolled<V, Comparator<V, false>, V::partition_unroll_factor>(k, 0, n, pivot, &smallest,
                                                                                   &biggest);
}

extern "C" {
/* ascending, in place, unstable */
ND__HIDDEN void ND__XSS(nd__xss_sort_u32)(uint32_t *k, size_t n) { x86simdsortStatic::qsort(k, n, false, false); }
ND__HIDDEN void ND__XSS(nd__xss_sort_u64)(uint64_t *k, size_t n) { x86simdsortStatic::qsort(k, n, false, false); }
/* keys ascending with their values, in place, unstable */
ND__HIDDEN void ND__XSS(nd__xss_sort_kv_u64)(uint64_t *k, uint64_t *v, size_t n)
{
    x86simdsortStatic::keyvalue_qsort(k, v, n, false, false);
}
/* nd_part above */
ND__HIDDEN size_t ND__XSS(nd__xss_part_u32)(uint32_t *k, size_t n) { return nd_part(k, (uint64_t *)NULL, n); }
ND__HIDDEN size_t ND__XSS(nd__xss_part_u64)(uint64_t *k, size_t n) { return nd_part(k, (uint64_t *)NULL, n); }
ND__HIDDEN size_t ND__XSS(nd__xss_part_kv_u64)(uint64_t *k, uint64_t *v, size_t n) { return nd_part(k, v, n); }
}
