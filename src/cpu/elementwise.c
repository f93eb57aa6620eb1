/*
 * CPU elementwise loops: one nd_loop_fn per (op, loop dtype), generated
 * from ND_UNARY_OPS / ND_BINARY_OPS with the scalar bodies of
 * src/ops_math.h. Each loop has
 *  - a contiguous path (every step == itemsize) under `omp simd`, which
 *    gcc -O2 vectorises and which is also correct for an output that
 *    exactly aliases an input (the only overlap the core lets through);
 *  - stride-0 paths for a broadcast scalar operand;
 *  - a general strided path.
 * nd__iter_run (src/cpu/threads.c) walks the outer axes and parallelises.
 */
#include <stdatomic.h>

#include "cpu.h"
#include "ops_math.h"

/* ------------------------------------------------------------------ */
/* Unary loops                                                         */
/* ------------------------------------------------------------------ */
#define ND_CPU_ULOOP(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule)                                   \
    static void nd_cpu_u_##name##_##lsfx(char **args, const int64_t *steps, int64_t n, const void *ctx) \
    {                                                                                              \
        typedef ND_OP_OUT_##rule(ST) nd_ot_;                                                       \
        (void)ctx;                                                                                 \
        if (steps[0] == (int64_t)sizeof(nd_ot_) && steps[1] == (int64_t)sizeof(ST)) {              \
            nd_ot_ *o = (nd_ot_ *)args[0];                                                         \
            const ST *a = (const ST *)args[1];                                                     \
            _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                    \
                o[i] = ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(LD(a[i])));                   \
        } else if (steps[1] == 0) {                                                                \
            const nd_ot_ v = ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(LD(*(const ST *)args[1]))); \
            char *po = args[0];                                                                    \
            for (int64_t i = 0; i < n; i++, po += steps[0]) *(nd_ot_ *)po = v;                     \
        } else {                                                                                   \
            char *po = args[0];                                                                    \
            const char *pa = args[1];                                                              \
            for (int64_t i = 0; i < n; i++, po += steps[0], pa += steps[1])                        \
                *(nd_ot_ *)po = ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(LD(*(const ST *)pa))); \
        }                                                                                          \
    }

#define ND_CPU_UGEN(E, name, kinds, rule) ND_OP_RULE_##rule(ND_CPU_ULOOP, name, rule)
ND_UNARY_OPS(ND_CPU_UGEN)

/* ------------------------------------------------------------------ */
/* Binary loops                                                        */
/* ------------------------------------------------------------------ */
#define ND_CPU_BLOOP(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule)                                   \
    static void nd_cpu_b_##name##_##lsfx(char **args, const int64_t *steps, int64_t n, const void *ctx) \
    {                                                                                              \
        typedef ND_OP_OUT_##rule(ST) nd_ot_;                                                       \
        const int64_t so = (int64_t)sizeof(nd_ot_), si = (int64_t)sizeof(ST);                      \
        (void)ctx;                                                                                 \
        if (steps[0] == so && steps[1] == si && steps[2] == si) {                                  \
            nd_ot_ *o = (nd_ot_ *)args[0];                                                         \
            const ST *a = (const ST *)args[1], *b = (const ST *)args[2];                           \
            _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                    \
                o[i] = ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(LD(a[i]), LD(b[i])));         \
        } else if (steps[0] == so && steps[1] == si && steps[2] == 0) {                            \
            nd_ot_ *o = (nd_ot_ *)args[0];                                                         \
            const ST *a = (const ST *)args[1];                                                     \
            const CT bv = LD(*(const ST *)args[2]);                                                \
            _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                    \
                o[i] = ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(LD(a[i]), bv));               \
        } else if (steps[0] == so && steps[1] == 0 && steps[2] == si) {                            \
            nd_ot_ *o = (nd_ot_ *)args[0];                                                         \
            const ST *b = (const ST *)args[2];                                                     \
            const CT av = LD(*(const ST *)args[1]);                                                \
            _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                    \
                o[i] = ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(av, LD(b[i])));               \
        } else {                                                                                   \
            char *po = args[0];                                                                    \
            const char *pa = args[1], *pb = args[2];                                               \
            for (int64_t i = 0; i < n; i++, po += steps[0], pa += steps[1], pb += steps[2])        \
                *(nd_ot_ *)po = ND_OP_STORE_##rule(                                                \
                    STO, nd_op_##name##_##bsfx(LD(*(const ST *)pa), LD(*(const ST *)pb)));         \
        }                                                                                          \
    }

#define ND_CPU_BGEN(E, name, kinds, rule) ND_OP_RULE_##rule(ND_CPU_BLOOP, name, rule)
ND_BINARY_OPS(ND_CPU_BGEN)

/* ------------------------------------------------------------------ */
/* Tables [op][loop dtype]; NULL where the rule has no loop            */
/* ------------------------------------------------------------------ */
#define ND_CPU_UENTRY(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule) [DT] = nd_cpu_u_##name##_##lsfx,
#define ND_CPU_BENTRY(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule) [DT] = nd_cpu_b_##name##_##lsfx,
#define ND_CPU_UROW(E, name, kinds, rule) [ND_UNARY_##E] = {ND_OP_RULE_##rule(ND_CPU_UENTRY, name, rule)},
#define ND_CPU_BROW(E, name, kinds, rule) [ND_BINARY_##E] = {ND_OP_RULE_##rule(ND_CPU_BENTRY, name, rule)},

static const nd_loop_fn nd_cpu_unary_loops[ND_NUM_UNARY_OPS][ND_NUM_DTYPES] = {ND_UNARY_OPS(ND_CPU_UROW)};
static const nd_loop_fn nd_cpu_binary_loops[ND_NUM_BINARY_OPS][ND_NUM_DTYPES] = {ND_BINARY_OPS(ND_CPU_BROW)};

/* Rough work per element relative to an add, for the parallel threshold. */
#define ND_COST_SAME 1
#define ND_COST_BOOL 1
#define ND_COST_DIV 2
#define ND_COST_FLOAT 16
#define ND_CPU_UCOST(E, name, kinds, rule) [ND_UNARY_##E] = ND_COST_##rule,
#define ND_CPU_BCOST(E, name, kinds, rule) [ND_BINARY_##E] = ND_COST_##rule,
static const unsigned char nd_cpu_unary_cost[ND_NUM_UNARY_OPS] = {ND_UNARY_OPS(ND_CPU_UCOST)};
static const unsigned char nd_cpu_binary_cost[ND_NUM_BINARY_OPS] = {ND_BINARY_OPS(ND_CPU_BCOST)};

static int64_t nd_cpu_loop_cost(int64_t base, nd_dtype t)
{
    /* half types convert in software */
    return (t == ND_FLOAT16 || t == ND_BFLOAT16) ? base + 4 : base;
}

nd_status nd__cpu_unary(nd_unary_op op, nd_array *out, const nd_array *a)
{
    if ((unsigned)op >= (unsigned)ND_NUM_UNARY_OPS || !nd__dtype_valid(a->dtype))
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_unary", "bad op %d or dtype %d", (int)op, (int)a->dtype);
    nd_loop_fn fn = nd_cpu_unary_loops[op][a->dtype];
    if (fn == NULL)
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_unary", "no loop for %s on %s", nd_unary_op_name(op),
                       nd_dtype_name(a->dtype));
    if (out->size == 0) return ND_OK;
    const nd_array *ops[2] = {out, a};
    nd_iter it;
    nd__iter_init(&it, 2, ops);
    nd__iter_run(&it, fn, NULL, nd_cpu_loop_cost(nd_cpu_unary_cost[op], a->dtype));
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Negative integer exponents: scanned before power runs, so that the  */
/* error leaves the output untouched.                                  */
/* ------------------------------------------------------------------ */
typedef struct {
    atomic_int found;
} nd_cpu_negscan;

#define ND_CPU_NEGSCAN(sfx, T)                                                           \
    static void nd_cpu_negscan_##sfx(char **args, const int64_t *steps, int64_t n, const void *ctx) \
    {                                                                                    \
        const char *p = args[0];                                                         \
        int any = 0;                                                                     \
        for (int64_t i = 0; i < n; i++, p += steps[0]) any |= nd_op_power_bad_##sfx(*(const T *)p); \
        if (any) atomic_store_explicit(&((nd_cpu_negscan *)(uintptr_t)ctx)->found, 1, memory_order_relaxed); \
    }
ND_CPU_NEGSCAN(i8, int8_t)
ND_CPU_NEGSCAN(i16, int16_t)
ND_CPU_NEGSCAN(i32, int32_t)
ND_CPU_NEGSCAN(i64, int64_t)

static bool nd_cpu_has_negative(const nd_array *b)
{
    nd_loop_fn fn;
    switch (b->dtype) {
    case ND_INT8: fn = nd_cpu_negscan_i8; break;
    case ND_INT16: fn = nd_cpu_negscan_i16; break;
    case ND_INT32: fn = nd_cpu_negscan_i32; break;
    case ND_INT64: fn = nd_cpu_negscan_i64; break;
    default: return false; /* unsigned, bool and floats have no bad exponent */
    }
    if (b->size == 0) return false;
    nd_cpu_negscan scan;
    atomic_init(&scan.found, 0);
    const nd_array *ops[1] = {b};
    nd_iter it;
    nd__iter_init(&it, 1, ops);
    nd__iter_run(&it, fn, &scan, 1);
    return atomic_load(&scan.found) != 0;
}

nd_status nd__cpu_binary(nd_binary_op op, nd_array *out, const nd_array *a, const nd_array *b)
{
    if ((unsigned)op >= (unsigned)ND_NUM_BINARY_OPS || !nd__dtype_valid(a->dtype) || a->dtype != b->dtype)
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_binary", "bad op %d or dtypes %d, %d", (int)op, (int)a->dtype,
                       (int)b->dtype);
    nd_loop_fn fn = nd_cpu_binary_loops[op][a->dtype];
    if (fn == NULL)
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_binary", "no loop for %s on %s", nd_binary_op_name(op),
                       nd_dtype_name(a->dtype));
    if (out->size == 0) return ND_OK;
    if (op == ND_BINARY_POWER && nd_cpu_has_negative(b))
        return nd__err(ND_ERR_INVALID, "power", "Integers to negative integer powers are not allowed.");
    const nd_array *ops[3] = {out, a, b};
    nd_iter it;
    nd__iter_init(&it, 3, ops);
    int64_t cost = nd_cpu_binary_cost[op];
    if (op == ND_BINARY_POWER || op == ND_BINARY_FLOOR_DIVIDE || op == ND_BINARY_REMAINDER) cost = 8;
    nd__iter_run(&it, fn, NULL, nd_cpu_loop_cost(cost, a->dtype));
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* where: bit copies by itemsize                                       */
/* ------------------------------------------------------------------ */
#define ND_CPU_WHERE(T)                                                                   \
    static void nd_cpu_where_##T(char **args, const int64_t *steps, int64_t n, const void *ctx) \
    {                                                                                     \
        (void)ctx;                                                                        \
        const int64_t s = (int64_t)sizeof(T);                                             \
        if (steps[0] == s && steps[1] == 1 && steps[2] == s && steps[3] == s) {           \
            T *o = (T *)args[0];                                                          \
            const uint8_t *c = (const uint8_t *)args[1];                                  \
            const T *x = (const T *)args[2], *y = (const T *)args[3];                     \
            _Pragma("omp simd") for (int64_t i = 0; i < n; i++) o[i] = c[i] ? x[i] : y[i]; \
        } else {                                                                          \
            char *po = args[0];                                                           \
            const char *pc = args[1], *px = args[2], *py = args[3];                       \
            for (int64_t i = 0; i < n; i++, po += steps[0], pc += steps[1], px += steps[2], py += steps[3]) \
                *(T *)po = *(const uint8_t *)pc ? *(const T *)px : *(const T *)py;        \
        }                                                                                 \
    }
ND_CPU_WHERE(uint8_t)
ND_CPU_WHERE(uint16_t)
ND_CPU_WHERE(uint32_t)
ND_CPU_WHERE(uint64_t)

nd_status nd__cpu_where(nd_array *out, const nd_array *cond, const nd_array *x, const nd_array *y)
{
    nd_loop_fn fn;
    switch (nd__itemsize(out->dtype)) {
    case 1: fn = nd_cpu_where_uint8_t; break;
    case 2: fn = nd_cpu_where_uint16_t; break;
    case 4: fn = nd_cpu_where_uint32_t; break;
    case 8: fn = nd_cpu_where_uint64_t; break;
    default: return nd__err(ND_ERR_INTERNAL, "nd__cpu_where", "bad dtype %d", (int)out->dtype);
    }
    if (cond->dtype != ND_BOOL || x->dtype != out->dtype || y->dtype != out->dtype)
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_where", "operands not of the loop dtypes");
    if (out->size == 0) return ND_OK;
    const nd_array *ops[4] = {out, cond, x, y};
    nd_iter it;
    nd__iter_init(&it, 4, ops);
    nd__iter_run(&it, fn, NULL, 1);
    return ND_OK;
}
