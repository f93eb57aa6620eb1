/* CPU casts between all dtypes (one strided loop per pair, generated) and
 * constant fills.
 *
 * Conversion rules (NumPy's where NumPy defines them):
 *  - to bool: x != 0 (NaN is true);
 *  - integer -> integer: wraps modulo 2^bits;
 *  - float -> integer: truncates toward zero, then wraps modulo 2^bits.
 *    Values that no conversion can represent (NaN, +-inf, beyond the
 *    intermediate range) give the x86 "integer indefinite" value, as
 *    NumPy does on x86: targets up to 32 bits convert through int32
 *    (INT32_MIN for such values), int64/uint32 through int64 (INT64_MIN),
 *    uint64 exactly in [0, 2^64) and via int64 otherwise. Never UB;
 *  - to float16/bfloat16: round to nearest even (from float64 directly,
 *    without double rounding).
 */
#include <string.h>

#include "cpu/cpu.h"
#include "half.h"

typedef uint8_t nd_bool_t;
typedef uint16_t nd_f16_t;
typedef uint16_t nd_bf16_t;

/* loads: every dtype to one of int64 / uint64 / float / double */
#define LD_b1(x) ((uint64_t)((x) != 0))
#define LD_i8(x) ((int64_t)(x))
#define LD_i16(x) ((int64_t)(x))
#define LD_i32(x) ((int64_t)(x))
#define LD_i64(x) ((int64_t)(x))
#define LD_u8(x) ((uint64_t)(x))
#define LD_u16(x) ((uint64_t)(x))
#define LD_u32(x) ((uint64_t)(x))
#define LD_u64(x) ((uint64_t)(x))
#define LD_f16(x) nd_half_to_float(x)
#define LD_bf16(x) nd_bf16_to_float(x)
#define LD_f32(x) (x)
#define LD_f64(x) (x)

static inline int64_t f64_to_i32ish(double x)
{
    return (x > -2147483649.0 && x < 2147483648.0) ? (int64_t)(int32_t)x : (int64_t)INT32_MIN;
}
static inline int64_t f64_to_i64(double x)
{
    return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}
static inline uint64_t f64_to_u64(double x)
{
    if (x >= 9223372036854775808.0 && x < 18446744073709551616.0) return (uint64_t)x;
    return (uint64_t)f64_to_i64(x);
}

/* Conversions from the four load types to each destination type.
 * _Generic picks by the load type. */
#define TO_INT_NARROW(T, x)                                                          \
    _Generic((x), int64_t: (T)(uint64_t)(x), uint64_t: (T)(x), float: (T)(uint64_t)f64_to_i32ish(x), \
             double: (T)(uint64_t)f64_to_i32ish(x))
#define TO_INT_WIDE(T, x) \
    _Generic((x), int64_t: (T)(uint64_t)(x), uint64_t: (T)(x), float: (T)(uint64_t)f64_to_i64(x), double: (T)(uint64_t)f64_to_i64(x))

#define ST_b1(x) ((nd_bool_t)((x) != 0))
#define ST_i8(x) TO_INT_NARROW(int8_t, x)
#define ST_i16(x) TO_INT_NARROW(int16_t, x)
#define ST_i32(x) TO_INT_NARROW(int32_t, x)
#define ST_i64(x) TO_INT_WIDE(int64_t, x)
#define ST_u8(x) TO_INT_NARROW(uint8_t, x)
#define ST_u16(x) TO_INT_NARROW(uint16_t, x)
#define ST_u32(x) TO_INT_WIDE(uint32_t, x)
#define ST_u64(x) _Generic((x), int64_t: (uint64_t)(x), uint64_t: (uint64_t)(x), float: f64_to_u64(x), double: f64_to_u64(x))
#define ST_f16(x) _Generic((x), float: nd_float_to_half((float)(x)), default: nd_double_to_half((double)(x)))
#define ST_bf16(x) _Generic((x), float: nd_float_to_bf16((float)(x)), default: nd_double_to_bf16((double)(x)))
#define ST_f32(x) ((float)(x))
#define ST_f64(x) ((double)(x))

/* The dtype list in enum order: (suffix, C type). */
#define DTYPES(X)                                                                                         \
    X(b1, nd_bool_t) X(i8, int8_t) X(i16, int16_t) X(i32, int32_t) X(i64, int64_t) X(u8, uint8_t)        \
    X(u16, uint16_t) X(u32, uint32_t) X(u64, uint64_t) X(f16, nd_f16_t) X(bf16, nd_bf16_t) X(f32, float) \
    X(f64, double)

#define DEF_CAST(S, ST, D, DT)                                                              \
    static void cast_##S##_##D(char **args, const int64_t *steps, int64_t n, const void *ctx) \
    {                                                                                       \
        (void)ctx;                                                                          \
        char *dst = args[0];                                                                \
        const char *src = args[1];                                                          \
        if (steps[0] == (int64_t)sizeof(DT) && steps[1] == (int64_t)sizeof(ST)) {           \
            DT *restrict d = (DT *)(void *)dst;                                             \
            const ST *restrict s = (const ST *)(const void *)src;                           \
            for (int64_t i = 0; i < n; i++) d[i] = ST_##D(LD_##S(s[i]));                    \
        } else {                                                                            \
            for (int64_t i = 0; i < n; i++) {                                               \
                ST v;                                                                       \
                memcpy(&v, src + i * steps[1], sizeof v);                                   \
                DT r = ST_##D(LD_##S(v));                                                   \
                memcpy(dst + i * steps[0], &r, sizeof r);                                   \
            }                                                                               \
        }                                                                                   \
    }

#define DEF_CAST_FROM(S, ST) DEF_CAST_TO_ALL(S, ST)
#define DEF_CAST_TO_ALL(S, ST)                                                                        \
    DEF_CAST(S, ST, b1, nd_bool_t) DEF_CAST(S, ST, i8, int8_t) DEF_CAST(S, ST, i16, int16_t)        \
    DEF_CAST(S, ST, i32, int32_t) DEF_CAST(S, ST, i64, int64_t) DEF_CAST(S, ST, u8, uint8_t)          \
    DEF_CAST(S, ST, u16, uint16_t) DEF_CAST(S, ST, u32, uint32_t) DEF_CAST(S, ST, u64, uint64_t)      \
    DEF_CAST(S, ST, f16, nd_f16_t) DEF_CAST(S, ST, bf16, nd_bf16_t) DEF_CAST(S, ST, f32, float)       \
    DEF_CAST(S, ST, f64, double)
DTYPES(DEF_CAST_FROM)

#define ROW(S, ST)                                                                                        \
    {cast_##S##_b1, cast_##S##_i8, cast_##S##_i16, cast_##S##_i32, cast_##S##_i64, cast_##S##_u8,       \
     cast_##S##_u16, cast_##S##_u32, cast_##S##_u64, cast_##S##_f16, cast_##S##_bf16, cast_##S##_f32,      \
     cast_##S##_f64},
/* cast_loops[src][dst] */
static const nd_loop_fn cast_loops[ND_NUM_DTYPES][ND_NUM_DTYPES] = {DTYPES(ROW)};

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
