/*
 * The float sorts' repair after a sort by keys (src/shared/sort_keys.h): a key
 * keeps neither the sign of a zero nor a NaN's bits, so the radix sort
 * (src/cpu/sort.c) and the SIMD sort (src/cpu/sort_simd.c) both refill
 * those runs from the input here. Its own file so that neither sort file
 * calls the other back.
 */
#include "cpu/sort_cpu.h"
#include "shared/sort_keys.h"

/* floats: in the sorted output every +-0.0 came out as +0.0 and every NaN
 * as the inverse of the all-ones key; refill both runs from the input in
 * input order (the sort is stable). */
#define ND__FIX(s, U, SIGN, INF)                                                  \
    void nd__cpu_sort_fix_##s(void *out_, const void *src_, int64_t n)            \
    {                                                                             \
        U *out = (U *)out_;                                                       \
        const U *src = (const U *)src_;                                           \
        const U canon = nd_unkey_##s((U)~(U)0);                                   \
        int64_t zc = 0, nc = 0;                                                   \
        for (int64_t j = 0; j < n; j++) {                                         \
            if (out[j] == 0) {                                                    \
                while ((U)(src[zc] & (U)~(U)(SIGN)) != 0) zc++;                   \
                out[j] = src[zc++];                                               \
            } else if (out[j] == canon) {                                         \
                while ((U)(src[nc] & (U)~(U)(SIGN)) <= (U)(INF)) nc++;            \
                out[j] = src[nc++];                                               \
            }                                                                     \
        }                                                                         \
    }
ND__FIX(f16, uint16_t, 0x8000u, 0x7c00u)
ND__FIX(bf16, uint16_t, 0x8000u, 0x7f80u)
ND__FIX(f32, uint32_t, 0x80000000u, 0x7f800000u)
ND__FIX(f64, uint64_t, 0x8000000000000000ull, 0x7ff0000000000000ull)
#undef ND__FIX

void nd__cpu_sort_fix(nd_dtype t, void *out, const void *src, int64_t n)
{
    switch (t) {
    case ND_FLOAT16: nd__cpu_sort_fix_f16(out, src, n); break;
    case ND_BFLOAT16: nd__cpu_sort_fix_bf16(out, src, n); break;
    case ND_FLOAT32: nd__cpu_sort_fix_f32(out, src, n); break;
    case ND_FLOAT64: nd__cpu_sort_fix_f64(out, src, n); break;
    default: break;
    }
}
