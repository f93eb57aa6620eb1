/* CPU casts between all dtypes (one strided loop per pair, generated from
 * the shared element conversions of src/convert.h, which also serve the
 * CUDA cast kernels) and constant fills. */
#include <string.h>

#include "convert.h"
#include "cpu/cpu.h"

#define DEF_CAST(S, D)                                                                      \
    static void cast_##S##_##D(char **args, const int64_t *steps, int64_t n, const void *ctx) \
    {                                                                                       \
        (void)ctx;                                                                          \
        char *dst = args[0];                                                                \
        const char *src = args[1];                                                          \
        if (steps[0] == (int64_t)sizeof(nd_##D##_t) && steps[1] == (int64_t)sizeof(nd_##S##_t)) { \
            nd_##D##_t *restrict d = (nd_##D##_t *)(void *)dst;                             \
            const nd_##S##_t *restrict s = (const nd_##S##_t *)(const void *)src;           \
            for (int64_t i = 0; i < n; i++) d[i] = nd_cvt_##S##_##D(s[i]);                  \
        } else {                                                                            \
            for (int64_t i = 0; i < n; i++) {                                               \
                nd_##S##_t v;                                                               \
                memcpy(&v, src + i * steps[1], sizeof v);                                   \
                nd_##D##_t r = nd_cvt_##S##_##D(v);                                         \
                memcpy(dst + i * steps[0], &r, sizeof r);                                   \
            }                                                                               \
        }                                                                                   \
    }
#define DEF_CAST_FROM(S)                                                                            \
    DEF_CAST(S, b1) DEF_CAST(S, i8) DEF_CAST(S, i16) DEF_CAST(S, i32) DEF_CAST(S, i64) DEF_CAST(S, u8) \
    DEF_CAST(S, u16) DEF_CAST(S, u32) DEF_CAST(S, u64) DEF_CAST(S, f16) DEF_CAST(S, bf16) DEF_CAST(S, f32) \
    DEF_CAST(S, f64)
ND_DTYPE_SUFFIXES(DEF_CAST_FROM)

#define ROW(S)                                                                                                  \
    {cast_##S##_b1, cast_##S##_i8, cast_##S##_i16, cast_##S##_i32, cast_##S##_i64, cast_##S##_u8, cast_##S##_u16, \
     cast_##S##_u32, cast_##S##_u64, cast_##S##_f16, cast_##S##_bf16, cast_##S##_f32, cast_##S##_f64},
/* cast_loops[src][dst] */
static const nd_loop_fn cast_loops[ND_NUM_DTYPES][ND_NUM_DTYPES] = {ND_DTYPE_SUFFIXES(ROW)};

/* Same-size copies (no conversion) move bytes. */
static void copy_bytes(char **args, const int64_t *steps, int64_t n, const void *ctx)
{
    size_t sz = *(const size_t *)ctx;
    if (steps[0] == (int64_t)sz && steps[1] == (int64_t)sz) {
        memcpy(args[0], args[1], (size_t)n * sz);
        return;
    }
    switch (sz) {
#define COPY_N(N, T)                                                                     \
    case N:                                                                              \
        for (int64_t i = 0; i < n; i++) memcpy(args[0] + i * steps[0], args[1] + i * steps[1], N); \
        break;
        COPY_N(1, uint8_t) COPY_N(2, uint16_t) COPY_N(4, uint32_t) COPY_N(8, uint64_t)
#undef COPY_N
    default:
        for (int64_t i = 0; i < n; i++) memcpy(args[0] + i * steps[0], args[1] + i * steps[1], sz);
    }
}

nd_status nd__cpu_cast(nd_array *dst, const nd_array *src)
{
    const nd_array *ops[2] = {dst, src};
    nd_iter it;
    nd__iter_init(&it, 2, ops);
    if (dst->dtype == src->dtype) {
        size_t sz = nd__itemsize(dst->dtype);
        nd__iter_run(&it, copy_bytes, &sz, 1);
    } else {
        nd__iter_run(&it, cast_loops[src->dtype][dst->dtype], NULL, 2);
    }
    return ND_OK;
}

static void fill_loop(char **args, const int64_t *steps, int64_t n, const void *ctx)
{
    const unsigned char *v = ctx;
    size_t sz = (size_t)v[0];
    const void *val = v + 8;
    if (steps[0] == (int64_t)sz) {
        switch (sz) {
#define FILL_N(N, T)                                                       \
    case N: {                                                              \
        T x, *restrict d = (T *)(void *)args[0];                           \
        memcpy(&x, val, N);                                                \
        for (int64_t i = 0; i < n; i++) d[i] = x;                          \
        return;                                                            \
    }
            FILL_N(1, uint8_t) FILL_N(2, uint16_t) FILL_N(4, uint32_t) FILL_N(8, uint64_t)
#undef FILL_N
        }
    }
    for (int64_t i = 0; i < n; i++) memcpy(args[0] + i * steps[0], val, sz);
}

nd_status nd__cpu_fill(nd_array *dst, const void *value)
{
    _Alignas(8) unsigned char ctx[16] = {0};
    size_t sz = nd__itemsize(dst->dtype);
    ctx[0] = (unsigned char)sz;
    memcpy(ctx + 8, value, sz);
    const nd_array *ops[1] = {dst};
    nd_iter it;
    nd__iter_init(&it, 1, ops);
    nd__iter_run(&it, fill_loop, ctx, 1);
    return ND_OK;
}
