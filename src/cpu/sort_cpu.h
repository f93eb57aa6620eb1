/* The CPU backend's sorting entry points (src/cpu/sort.c) behind
 * nd_backend.sort_rows / topk_rows / searchsorted (src/core/backend.h). */
#ifndef ND_CPU_SORT_CPU_H
#define ND_CPU_SORT_CPU_H
#include "core/internal.h"

ND_INTERNAL nd_status nd__cpu_sort_rows(nd_array *vals, nd_array *idx, const nd_array *a, bool descending);
ND_INTERNAL nd_status nd__cpu_topk_rows(nd_array *vals, nd_array *idx, const nd_array *a, int64_t k, bool largest);
ND_INTERNAL nd_status nd__cpu_searchsorted(nd_array *out, const nd_array *a, const nd_array *v, bool right);
/* The SIMD path (src/cpu/sort_simd.c): false when it does not take this
 * sort (dtype, CPU path, row length); else *st is the status. */
ND_INTERNAL bool nd__cpu_sort_rows_simd(nd_status *st, nd_array *vals, nd_array *idx, const nd_array *a,
                                        bool descending);
/* Ascending sort of n 64-bit keys in place by the SIMD path (unstable:
 * for keys that are all distinct); false, with nothing done, where the
 * CPU path has none (the caller sorts). */
ND_INTERNAL bool nd__cpu_sort_u64_simd(uint64_t *k, int64_t n);
/* Refill the runs of zeros and NaNs of the sorted row out (n elements of
 * the float dtype t; any other dtype: nothing) from its input src, in
 * input order: the -0.0 and NaN bits a key does not keep. */
ND_INTERNAL void nd__cpu_sort_fix(nd_dtype t, void *out, const void *src, int64_t n);
/* The same for one dtype (src/cpu/sort_fix.c; the radix sort's table). */
ND_INTERNAL void nd__cpu_sort_fix_f16(void *out, const void *src, int64_t n);
ND_INTERNAL void nd__cpu_sort_fix_bf16(void *out, const void *src, int64_t n);
ND_INTERNAL void nd__cpu_sort_fix_f32(void *out, const void *src, int64_t n);
ND_INTERNAL void nd__cpu_sort_fix_f64(void *out, const void *src, int64_t n);
#endif
