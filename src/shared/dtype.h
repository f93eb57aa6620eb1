/* The dtypes as both backends and the core see them: the one dtype table
 * (src/shared/dtype_table.h) and the inline facts derived from it (kind,
 * item size, the complex/real pairs). The dtype functions of the core
 * (promotion, scalar stores, names): src/core/dtype.c, declared in
 * src/core/internal.h. */
#ifndef ND_SHARED_DTYPE_H
#define ND_SHARED_DTYPE_H
#include <stdbool.h>
#include <stddef.h>

#include "ndgpu.h"
#include "shared/dtype_table.h"
#include "shared/hostdev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ND_KIND_COMPLEX last: code that switches on the kind must name it (a
 * complex dtype is never "float" by default). */
typedef enum { ND_KIND_BOOL = 0, ND_KIND_INT, ND_KIND_UINT, ND_KIND_FLOAT, ND_KIND_COMPLEX } nd_kind;

static inline bool nd__dtype_valid(nd_dtype t) { return (unsigned)t < (unsigned)ND_NUM_DTYPES; }
/* Per-dtype facts come from the one dtype table (src/shared/dtype_table.h). */
#define ND__DT_KIND(A, E, s, name, size, kind, ...) case E: return kind;
#define ND__DT_SIZE(A, E, s, name, size, ...) size,
/* a switch, not a table load: the compiler folds it into range tests on
 * the per-call path (measured: nd_add of one element) */
static inline nd_kind nd__kind(nd_dtype t)
{
    switch (t) {
        ND_DTYPE_TABLE(ND__DT_KIND, _)
    default: return ND_KIND_FLOAT;
    }
}
static inline size_t nd__itemsize(nd_dtype t)
{
    static const unsigned char sz[ND_NUM_DTYPES] = {ND_DTYPE_TABLE(ND__DT_SIZE, _)};
    return nd__dtype_valid(t) ? sz[t] : 0;
}
#define ND__DT_COMPUTE(A, E, s, name, size, kind, npy, dl, lo, hi, fmax, comp) case E: return comp;
/* The dtype t computes in (the table's compute column): t itself, or the
 * float type a storage-only type widens to. */
static inline nd_dtype nd__compute_dtype(nd_dtype t)
{
    switch (t) {
        ND_DTYPE_TABLE(ND__DT_COMPUTE, _)
    default: return t;
    }
}
/* A type that is only stored: its arithmetic runs in nd__compute_dtype. */
static inline bool nd__storage_only(nd_dtype t) { return nd__compute_dtype(t) != t; }
static inline bool nd__is_float(nd_dtype t) { return nd__kind(t) == ND_KIND_FLOAT; }
static inline bool nd__is_complex(nd_dtype t) { return nd__kind(t) == ND_KIND_COMPLEX; }
/* The float dtype of a complex dtype's parts (complex64 -> float32); t
 * itself for the others. */
static inline nd_dtype nd__real_of(nd_dtype t)
{
    return t == ND_COMPLEX64 ? ND_FLOAT32 : t == ND_COMPLEX128 ? ND_FLOAT64 : t;
}
/* The complex dtype whose parts hold float dtype t (float16, bfloat16,
 * float32 -> complex64; float64 -> complex128); complex t unchanged. */
static inline nd_dtype nd__complex_of(nd_dtype t)
{
    return t == ND_FLOAT64 || t == ND_COMPLEX128 ? ND_COMPLEX128 : ND_COMPLEX64;
}
static inline bool nd__is_integer(nd_dtype t) { nd_kind k = nd__kind(t); return k == ND_KIND_INT || k == ND_KIND_UINT; }

#ifdef __cplusplus
}
#endif
#endif /* ND_SHARED_DTYPE_H */
