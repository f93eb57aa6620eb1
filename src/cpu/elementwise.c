/*
 * CPU elementwise loops: one nd_loop_fn per (op, loop dtype), generated
 * from ND_UNARY_OPS / ND_BINARY_OPS with the scalar bodies of
 * src/shared/ops_math.h. Each loop has
 *  - a contiguous path (every step == itemsize) under `omp simd`, which
 *    gcc -O2 vectorises and which is also correct for an output that
 *    exactly aliases an input (the only overlap the core lets through);
 *  - stride-0 paths for a broadcast scalar operand;
 *  - a general strided path.
 * nd__iter_run (src/cpu/threads.c) walks the outer axes and parallelises.
 */
#include <stdatomic.h>
#include <string.h>

#include "cpu.h"
#include "cpu/transpose.h"
#include "cpu/vmath.h"
#include "shared/ew_names.h"
#include "shared/ops_math.h"

/* ------------------------------------------------------------------ */
/* The contiguous paths are compiled twice, for AVX2 and for the       */
/* baseline ISA, and the AVX2 twin runs when the CPU has it. The build  */
/* never contracts to FMA (-std=c11), so both give the same bits.       */
/* ------------------------------------------------------------------ */
#define ND_CPU_AVX2_ATTR ND_ISA_TARGET_AVX2
#define ND_CPU_HAVE_AVX2() (nd__cpu_isa() >= ND_ISA_AVX2)

/* ------------------------------------------------------------------ */
/* Unary loops                                                         */
/* ------------------------------------------------------------------ */
#define ND_CPU_ULOOP(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule)                                   \
    ND_CPU_AVX2_ATTR static void nd_cpu_uc2_##name##_##lsfx(ND_OP_OUT_##rule(ST) * o, const ST *a, int64_t n) \
    {                                                                                              \
        _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                        \
            o[i] = ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(LD(a[i])));                       \
    }                                                                                              \
    static void nd_cpu_u_##name##_##lsfx(char **args, const int64_t *steps, int64_t n, const void *ctx) \
    {                                                                                              \
        typedef ND_OP_OUT_##rule(ST) nd_ot_;                                                       \
        (void)ctx;                                                                                 \
        if (steps[0] == (int64_t)sizeof(nd_ot_) && steps[1] == (int64_t)sizeof(ST)) {              \
            nd_ot_ *o = (nd_ot_ *)args[0];                                                         \
            const ST *a = (const ST *)args[1];                                                     \
            if (ND_CPU_HAVE_AVX2()) {                                                              \
                nd_cpu_uc2_##name##_##lsfx(o, a, n);                                               \
                return;                                                                            \
            }                                                                                      \
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

#define ND_CPU_UGEN(E, name, kinds, rule) ND_OP_LOOPS(kinds, rule, ND_CPU_ULOOP, name, rule)
ND_UNARY_OPS(ND_CPU_UGEN)

/* abs of complex64: contiguous rows through the AVX-512 kernel where the
 * path has one (src/cpu/vmath.h: the same bits, three times faster). */
static void nd_cpu_u_abs_c64_vec(char **args, const int64_t *steps, int64_t n, const void *ctx)
{
    const nd_vmath_abs_c64_fn k = nd__vmath_abs_c64(nd__cpu_isa());
    if (k && steps[0] == (int64_t)sizeof(float) && steps[1] == (int64_t)sizeof(nd_c64_t)) {
        k((float *)args[0], args[1], n);
        return;
    }
    nd_cpu_u_abs_c64(args, steps, n, ctx);
}

/* Ops with a vector kernel (src/cpu/vmath.h) on the path in use: float32
 * and float64 call it on a contiguous row directly; strided rows (and
 * float16/bfloat16, converted to float32) are gathered into a block
 * first, run, and scattered, so every layout gives the same bits. ctx is
 * the kernel. Transposed inputs reach here through the tiled runner
 * below (nd_cpu_run) as contiguous tile rows. */
#define ND_CPU_VBLK 256

#define ND_CPU_VLOOP(lsfx, ST, CT, LD, STO, direct)                                                   \
    static void nd_cpu_v_##lsfx(char **args, const int64_t *steps, int64_t n, const void *ctx)      \
    {                                                                                                \
        void (*f)(void *, const void *, int64_t) = ((const nd_vmath_kernel *)ctx)->fn;               \
        const int64_t sz = (int64_t)sizeof(ST);                                                      \
        if ((direct) && steps[0] == sz && steps[1] == sz) {                                          \
            f(args[0], args[1], n);                                                                  \
            return;                                                                                  \
        }                                                                                            \
        char *po = args[0];                                                                          \
        const char *pa = args[1];                                                                    \
        _Alignas(64) CT buf[ND_CPU_VBLK];                                                            \
        if (steps[1] == 0) {                                                                         \
            buf[0] = LD(*(const ST *)pa);                                                            \
            f(buf, buf, 1);                                                                          \
            const ST v = STO(buf[0]);                                                                \
            for (int64_t i = 0; i < n; i++, po += steps[0]) *(ST *)po = v;                           \
            return;                                                                                  \
        }                                                                                            \
        while (n > 0) {                                                                              \
            int64_t m = n < ND_CPU_VBLK ? n : ND_CPU_VBLK;                                           \
            for (int64_t i = 0; i < m; i++) buf[i] = LD(*(const ST *)(pa + i * steps[1]));           \
            f(buf, buf, m);                                                                          \
            for (int64_t i = 0; i < m; i++) *(ST *)(po + i * steps[0]) = STO(buf[i]);                \
            po += m * steps[0];                                                                      \
            pa += m * steps[1];                                                                      \
            n -= m;                                                                                  \
        }                                                                                            \
    }
ND_CPU_VLOOP(f32, float, float, ND_LD_ID, ND_ST_ID, 1)
ND_CPU_VLOOP(f64, double, double, ND_LD_ID, ND_ST_ID, 1)
ND_CPU_VLOOP(f16, uint16_t, float, ND_LD_F16, ND_ST_F16, 0)
ND_CPU_VLOOP(bf16, uint16_t, float, ND_LD_BF16, ND_ST_BF16, 0)

/* The vector loop of op on dtype t for the path in use, with its kernel
 * in *ctx; NULL when there is none (the scalar loop runs). Callers test
 * nd__vmath_candidate(op) first, so other ops pay nothing per call. */
__attribute__((noinline)) static nd_loop_fn nd_cpu_vector_loop(nd_unary_op op, nd_dtype t, const void **ctx)
{
    nd_dtype kt = nd__compute_dtype(t);
    const nd_vmath_kernel *k = nd__vmath(nd__cpu_isa(), op, kt);
    if (k == NULL) return NULL;
    *ctx = k;
    switch (t) {
    case ND_FLOAT32: return nd_cpu_v_f32;
    case ND_FLOAT64: return nd_cpu_v_f64;
    case ND_FLOAT16: return nd_cpu_v_f16;
    case ND_BFLOAT16: return nd_cpu_v_bf16;
    default: return NULL;
    }
}

/* The binary ops with a vector kernel (power, arctan2, hypot: see
 * nd__vmath2): contiguous rows call it directly, others (strided,
 * broadcast, float16/bfloat16) gather blocks of both inputs first. */
#define ND_CPU_VLOOP2(lsfx, ST, CT, LD, STO, direct)                                                  \
    static void nd_cpu_v2_##lsfx(char **args, const int64_t *steps, int64_t n, const void *ctx)     \
    {                                                                                                \
        void (*f)(void *, const void *, const void *, int64_t) = ((const nd_vmath_kernel2 *)ctx)->fn; \
        const int64_t sz = (int64_t)sizeof(ST);                                                      \
        if ((direct) && steps[0] == sz && steps[1] == sz && steps[2] == sz) {                        \
            f(args[0], args[1], args[2], n);                                                         \
            return;                                                                                  \
        }                                                                                            \
        char *po = args[0];                                                                          \
        const char *pa = args[1], *pb = args[2];                                                     \
        _Alignas(64) CT ba[ND_CPU_VBLK], bb[ND_CPU_VBLK];                                            \
        while (n > 0) {                                                                              \
            int64_t m = n < ND_CPU_VBLK ? n : ND_CPU_VBLK;                                           \
            for (int64_t i = 0; i < m; i++) {                                                        \
                ba[i] = LD(*(const ST *)(pa + i * steps[1]));                                        \
                bb[i] = LD(*(const ST *)(pb + i * steps[2]));                                        \
            }                                                                                        \
            f(ba, ba, bb, m);                                                                        \
            for (int64_t i = 0; i < m; i++) *(ST *)(po + i * steps[0]) = STO(ba[i]);                 \
            po += m * steps[0];                                                                      \
            pa += m * steps[1];                                                                      \
            pb += m * steps[2];                                                                      \
            n -= m;                                                                                  \
        }                                                                                            \
    }
ND_CPU_VLOOP2(f32, float, float, ND_LD_ID, ND_ST_ID, 1)
ND_CPU_VLOOP2(f64, double, double, ND_LD_ID, ND_ST_ID, 1)
ND_CPU_VLOOP2(f16, uint16_t, float, ND_LD_F16, ND_ST_F16, 0)
ND_CPU_VLOOP2(bf16, uint16_t, float, ND_LD_BF16, ND_ST_BF16, 0)

/* The vector loop of binary op on t (nd__vmath2_candidate(op) checked by
 * the caller, which keeps the other ops' per-call cost unchanged). */
__attribute__((noinline)) static nd_loop_fn nd_cpu_vector_loop2(nd_binary_op op, nd_dtype t, const void **ctx)
{
    nd_dtype kt = nd__compute_dtype(t);
    const nd_vmath_kernel2 *k = nd__vmath2(nd__cpu_isa(), op, kt);
    if (k == NULL) return NULL;
    *ctx = k;
    switch (t) {
    case ND_FLOAT32: return nd_cpu_v2_f32;
    case ND_FLOAT64: return nd_cpu_v2_f64;
    case ND_FLOAT16: return nd_cpu_v2_f16;
    case ND_BFLOAT16: return nd_cpu_v2_bf16;
    default: return NULL;
    }
}

/* ------------------------------------------------------------------ */
/* Binary loops                                                        */
/* ------------------------------------------------------------------ */
#define ND_CPU_BLOOP(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule)                                   \
    ND_CPU_AVX2_ATTR static void nd_cpu_bc2_##name##_##lsfx(ND_OP_OUT_##rule(ST) * o, const ST *a, const ST *b, \
                                                            int64_t n)                             \
    {                                                                                              \
        _Pragma("omp simd") for (int64_t i = 0; i < n; i++)                                        \
            o[i] = ND_OP_STORE_##rule(STO, nd_op_##name##_##bsfx(LD(a[i]), LD(b[i])));             \
    }                                                                                              \
    static void nd_cpu_b_##name##_##lsfx(char **args, const int64_t *steps, int64_t n, const void *ctx) \
    {                                                                                              \
        typedef ND_OP_OUT_##rule(ST) nd_ot_;                                                       \
        const int64_t so = (int64_t)sizeof(nd_ot_), si = (int64_t)sizeof(ST);                      \
        (void)ctx;                                                                                 \
        if (steps[0] == so && steps[1] == si && steps[2] == si) {                                  \
            nd_ot_ *o = (nd_ot_ *)args[0];                                                         \
            const ST *a = (const ST *)args[1], *b = (const ST *)args[2];                           \
            if (ND_CPU_HAVE_AVX2()) {                                                              \
                nd_cpu_bc2_##name##_##lsfx(o, a, b, n);                                            \
                return;                                                                            \
            }                                                                                      \
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

#define ND_CPU_BGEN(E, name, kinds, rule) ND_OP_LOOPS(kinds, rule, ND_CPU_BLOOP, name, rule)
ND_BINARY_OPS(ND_CPU_BGEN)

/* ------------------------------------------------------------------ */
/* Tables [op][loop dtype]; NULL where the rule has no loop            */
/* ------------------------------------------------------------------ */
#define ND_CPU_UENTRY(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule) [DT] = nd_cpu_u_##name##_##lsfx,
#define ND_CPU_BENTRY(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule) [DT] = nd_cpu_b_##name##_##lsfx,
#define ND_CPU_UROW(E, name, kinds, rule) [ND_UNARY_##E] = {ND_OP_LOOPS(kinds, rule, ND_CPU_UENTRY, name, rule)},
#define ND_CPU_BROW(E, name, kinds, rule) [ND_BINARY_##E] = {ND_OP_LOOPS(kinds, rule, ND_CPU_BENTRY, name, rule)},

static const nd_loop_fn nd_cpu_unary_loops[ND_NUM_UNARY_OPS][ND_NUM_DTYPES] = {ND_UNARY_OPS(ND_CPU_UROW)};

/* The scalar-op loop of op on t (the table, but for the ops above with a
 * hand-vectorised twin). */
static nd_loop_fn nd_cpu_unary_loop(nd_unary_op op, nd_dtype t)
{
    if (op == ND_UNARY_ABS && t == ND_COMPLEX64) return nd_cpu_u_abs_c64_vec;
    return nd_cpu_unary_loops[op][t];
}
static const nd_loop_fn nd_cpu_binary_loops[ND_NUM_BINARY_OPS][ND_NUM_DTYPES] = {ND_BINARY_OPS(ND_CPU_BROW)};

/* Rough work per element relative to an add, for the parallel threshold. */
#define ND_COST_SAME 1
#define ND_COST_BOOL 1
#define ND_COST_DIV 2
#define ND_COST_F64 16
#define ND_COST_FLOAT 16
/* an op with a vector kernel (src/cpu/vmath.h) */
#define ND_COST_VECTOR 4
#define ND_CPU_UCOST(E, name, kinds, rule) [ND_UNARY_##E] = ND_COST_##rule,
#define ND_CPU_BCOST(E, name, kinds, rule) [ND_BINARY_##E] = ND_COST_##rule,
static const unsigned char nd_cpu_unary_cost[ND_NUM_UNARY_OPS] = {ND_UNARY_OPS(ND_CPU_UCOST)};
static const unsigned char nd_cpu_binary_cost[ND_NUM_BINARY_OPS] = {ND_BINARY_OPS(ND_CPU_BCOST)};
#define ND_CPU_UISBOOL(E, name, kinds, rule) [ND_UNARY_##E] = ND_CPU_ISBOOL_##rule,
#define ND_CPU_BISBOOL(E, name, kinds, rule) [ND_BINARY_##E] = ND_CPU_ISBOOL_##rule,
#define ND_CPU_ISBOOL_SAME 0
#define ND_CPU_ISBOOL_FLOAT 0
#define ND_CPU_ISBOOL_DIV 0
#define ND_CPU_ISBOOL_F64 0
#define ND_CPU_ISBOOL_BOOL 1
static const unsigned char nd_cpu_unary_rule_bool[ND_NUM_UNARY_OPS] = {ND_UNARY_OPS(ND_CPU_UISBOOL)};
static const unsigned char nd_cpu_binary_rule_bool[ND_NUM_BINARY_OPS] = {ND_BINARY_OPS(ND_CPU_BISBOOL)};

bool nd__cpu_ew_supports(nd_kernel_kind kind, int op, nd_dtype t)
{
    if (!nd__dtype_valid(t) || op < 0) return false;
    if (kind == ND_KERNEL_UNARY) return op < ND_NUM_UNARY_OPS && nd_cpu_unary_loops[op][t] != NULL;
    if (kind == ND_KERNEL_BINARY) return op < ND_NUM_BINARY_OPS && nd_cpu_binary_loops[op][t] != NULL;
    return false;
}

static int64_t nd_cpu_loop_cost(int64_t base, nd_dtype t)
{
    /* half types convert in software */
    return nd__storage_only(t) ? base + 4 : base;
}

/* Work (element-costs) below which a single-axis iteration calls its
 * loop directly, without the thread runner's set-up. */
#define ND_CPU_INLINE_WORK 4096

/* 2-D iterations where an input walks the inner axis with a large stride
 * and the outer axis with a small one (a transposed operand against a
 * contiguous output) run in tiles of ND_CPU_TILE_I outer x ND_CPU_TILE_J
 * inner elements: each such operand's tile is first copied, reading it
 * along its own short stride, into a small buffer laid out in the
 * iteration's order, and the loop then runs on the tile's rows with that
 * operand contiguous. This avoids touching one cache line (and, for
 * power-of-two strides, the same cache set) per element. */
#define ND_CPU_TILE_I 64
#define ND_CPU_TILE_J 64

typedef struct {
    const nd_iter *it;
    nd_loop_fn loop;
    const void *ctx;
    unsigned gather; /* bit k: operand k is copied per tile */
} nd_cpu_tiled_job;

#if ND_ISA_X86
/* The tile copy below for 4- and 8-byte items contiguous along the outer
 * axis (so == isz: a transposed operand), by in-register 8x8 / 4x4
 * transposes (src/cpu/transpose.h) on whole blocks; the ragged edges
 * element by element. */
__attribute__((target("avx"))) static void nd_cpu_tile_transpose(char *dst, const char *src, int64_t si, int64_t ci,
                                                                 int64_t cj, size_t isz)
{
    const int64_t b = isz == 4 ? 8 : 4, ds = ND_CPU_TILE_J * (int64_t)isz;
    int64_t ii0 = 0, jj0 = 0;
    for (jj0 = 0; jj0 + b <= cj; jj0 += b)
        for (ii0 = 0; ii0 + b <= ci; ii0 += b) {
            char *d = dst + (ii0 * ND_CPU_TILE_J + jj0) * (int64_t)isz;
            const char *sp = src + jj0 * si + ii0 * (int64_t)isz;
            if (isz == 4) tr8x8_32(d, ds, sp, si);
            else tr4x4_64(d, ds, sp, si);
        }
    int64_t ei = ci - ci % b, ej = cj - cj % b; /* the full blocks cover [0, ei) x [0, ej) */
    for (int64_t jj = 0; jj < cj; jj++)
        for (int64_t ii = jj < ej ? ei : 0; ii < ci; ii++)
            memcpy(dst + (ii * ND_CPU_TILE_J + jj) * (int64_t)isz, src + jj * si + ii * (int64_t)isz, isz);
}

/* (cpu.h) */
__attribute__((target("avx"))) void nd_cpu_stream_row(char *d, const char *s, int64_t n)
{
    for (int64_t k = 0; k < n; k += 32)
        _mm256_stream_ps((float *)(void *)(d + k), _mm256_load_ps((const float *)(const void *)(s + k)));
}

static void nd_cpu_sfence(void) { _mm_sfence(); }
#endif

/* dst[ii * ND_CPU_TILE_J + jj] = src[ii * so + jj * si] for the tile. */
static void nd_cpu_tile_copy(char *dst, const char *src, int64_t so, int64_t si, int64_t ci, int64_t cj, size_t isz)
{
#if ND_ISA_X86
    if ((isz == 4 || isz == 8) && so == (int64_t)isz && nd__cpu_isa() >= ND_ISA_AVX2) {
        nd_cpu_tile_transpose(dst, src, si, ci, cj, isz);
        return;
    }
#endif
    for (int64_t jj = 0; jj < cj; jj++) {
        const char *p = src + jj * si;
        switch (isz) {
        case 1:
            for (int64_t ii = 0; ii < ci; ii++) dst[ii * ND_CPU_TILE_J + jj] = p[ii * so];
            break;
        case 2:
            for (int64_t ii = 0; ii < ci; ii++) memcpy(dst + (ii * ND_CPU_TILE_J + jj) * 2, p + ii * so, 2);
            break;
        case 4:
            for (int64_t ii = 0; ii < ci; ii++) memcpy(dst + (ii * ND_CPU_TILE_J + jj) * 4, p + ii * so, 4);
            break;
        default:
            for (int64_t ii = 0; ii < ci; ii++) memcpy(dst + (ii * ND_CPU_TILE_J + jj) * 8, p + ii * so, 8);
            break;
        }
    }
}

static void nd_cpu_tiled_range(void *p, int64_t begin, int64_t end)
{
    const nd_cpu_tiled_job *job = p;
    const nd_iter *it = job->it;
    int nops = it->nops;
    int64_t ni = it->shape[0], nj = it->shape[1];
    int64_t steps[ND_ITER_MAX_OPS];
    _Alignas(64) char bufs[ND_ITER_MAX_OPS - 1][ND_CPU_TILE_I * ND_CPU_TILE_J * 8];
    for (int k = 0; k < nops; k++)
        steps[k] = (job->gather >> k) & 1u ? (int64_t)it->itemsize[k] : it->strides[k][1];
    /* A unary op whose output has the input's itemsize and is contiguous
     * along j: the loop runs once over the whole transposed tile, in place
     * in the buffer (a vector kernel sees 4096 elements, not 64), and the
     * tile's rows are copied out. */
    const bool inplace = nops == 2 && job->gather == 2u && it->itemsize[0] == it->itemsize[1] &&
                         it->strides[0][1] == (int64_t)it->itemsize[0];
    /* an output too large to stay in cache is written with streaming
     * stores (no read for ownership), as the transposed copies do */
    const bool stream = inplace && ND_ISA_X86 && nd__cpu_isa() >= ND_ISA_AVX2 &&
                        ni * nj * (int64_t)it->itemsize[0] >= ((int64_t)16 << 20);
    for (int64_t bi = begin; bi < end; bi++) {
        int64_t i0 = bi * ND_CPU_TILE_I, ci = ni - i0 < ND_CPU_TILE_I ? ni - i0 : ND_CPU_TILE_I;
        for (int64_t j0 = 0; j0 < nj; j0 += ND_CPU_TILE_J) {
            int64_t cj = nj - j0 < ND_CPU_TILE_J ? nj - j0 : ND_CPU_TILE_J;
            for (int k = 1; k < nops; k++)
                if ((job->gather >> k) & 1u)
                    nd_cpu_tile_copy(bufs[k - 1], it->data[k] + i0 * it->strides[k][0] + j0 * it->strides[k][1],
                                     it->strides[k][0], it->strides[k][1], ci, cj, it->itemsize[k]);
            if (inplace) {
                const int64_t isz = (int64_t)it->itemsize[0];
                char *args[2] = {bufs[0], bufs[0]};
                const int64_t st[2] = {isz, isz};
                if (cj == ND_CPU_TILE_J) job->loop(args, st, ci * ND_CPU_TILE_J, job->ctx);
                for (int64_t ii = 0; ii < ci; ii++) {
                    char *row = bufs[0] + ii * ND_CPU_TILE_J * isz;
                    if (cj != ND_CPU_TILE_J) {
                        args[0] = args[1] = row;
                        job->loop(args, st, cj, job->ctx);
                    }
                    char *dst = it->data[0] + (i0 + ii) * it->strides[0][0] + j0 * isz;
#if ND_ISA_X86
                    if (stream && ((uintptr_t)dst & 31) == 0 && (cj * isz) % 32 == 0) {
                        nd_cpu_stream_row(dst, row, cj * isz);
                        continue;
                    }
#endif
                    memcpy(dst, row, (size_t)(cj * isz));
                }
                continue;
            }
            for (int64_t ii = 0; ii < ci; ii++) {
                char *args[ND_ITER_MAX_OPS];
                for (int k = 0; k < nops; k++)
                    args[k] = (job->gather >> k) & 1u
                                  ? bufs[k - 1] + ii * ND_CPU_TILE_J * (int64_t)it->itemsize[k]
                                  : it->data[k] + (i0 + ii) * it->strides[k][0] + j0 * it->strides[k][1];
                job->loop(args, steps, cj, job->ctx);
            }
        }
    }
#if ND_ISA_X86
    if (stream) nd_cpu_sfence(); /* streaming stores are weakly ordered */
#endif
}

static int64_t nd_cpu_abs(int64_t x) { return x < 0 ? -x : x; }

/* The inputs of a 2-D iteration whose inner stride is large and outer
 * stride small (transposed operands), as a bit set; 0 when tiling is not
 * worth it. */
static unsigned nd_cpu_tile_gather(const nd_iter *it)
{
    if (it->ndim != 2 || it->shape[0] < 2 * ND_CPU_TILE_I || it->shape[1] < 2 * ND_CPU_TILE_J) return 0;
    unsigned g = 0;
    for (int k = 1; k < it->nops; k++) {
        int64_t si = nd_cpu_abs(it->strides[k][1]), so = nd_cpu_abs(it->strides[k][0]);
        if (si >= 256 && so < si && it->itemsize[k] <= 8) g |= 1u << k;
    }
    return g;
}

/* The flat case without an nd_iter: every operand C-contiguous with the
 * output's shape. */
typedef struct {
    int nops;
    char *data[ND_ITER_MAX_OPS];
    int64_t steps[ND_ITER_MAX_OPS];
    nd_loop_fn loop;
    const void *ctx;
    bool stream; /* the output goes out with streaming stores (nd_cpu_flat_stream) */
} nd_cpu_flat_job;

/* An output of at least this many bytes does not stay in the caches: it is
 * written with streaming stores, which skip the read for ownership of
 * every output line (a third less memory traffic for a binary op). */
#define ND_CPU_STREAM_BYTES ((int64_t)16 << 20)
/* The block computed into an L1-resident buffer before it is streamed out. */
#define ND_CPU_STREAM_BLOCK 4096

/* Whether a flat job writing n elements of so bytes to out streams: large
 * enough, AVX, and out aligned to its element (so that 64-byte alignment is
 * reachable at an element boundary). */
static bool nd_cpu_flat_streams(const void *out, int64_t so, int64_t n)
{
#if ND_ISA_X86
    return n * so >= ND_CPU_STREAM_BYTES && nd__cpu_isa() >= ND_ISA_AVX2 && ND_CPU_STREAM_BLOCK % so == 0 &&
           (uintptr_t)out % (uintptr_t)so == 0;
#else
    (void)out, (void)so, (void)n;
    return false;
#endif
}

#if ND_ISA_X86
/* [begin, end) of a streaming job: elements up to the first 64-byte
 * boundary of the output are written directly, then whole blocks are
 * computed into a buffer and streamed out, the rest directly again. The
 * loop computes each element from the inputs alone, so an output that is
 * exactly an input (in place) is still right: a block is read before it
 * is written. */
static void nd_cpu_flat_stream(const nd_cpu_flat_job *job, int64_t begin, int64_t end)
{
    _Alignas(64) char buf[ND_CPU_STREAM_BLOCK];
    const int64_t so = job->steps[0], bn = ND_CPU_STREAM_BLOCK / so;
    char *args[ND_ITER_MAX_OPS];
    int64_t i = begin;
    uintptr_t mis = (uintptr_t)(job->data[0] + i * so) & 63;
    int64_t head = mis ? (int64_t)((64 - mis) / (uintptr_t)so) : 0;
    if (head > end - i) head = end - i;
    if (head) {
        for (int k = 0; k < job->nops; k++) args[k] = job->data[k] + i * job->steps[k];
        job->loop(args, job->steps, head, job->ctx);
        i += head;
    }
    for (; end - i >= bn; i += bn) {
        args[0] = buf;
        for (int k = 1; k < job->nops; k++) args[k] = job->data[k] + i * job->steps[k];
        job->loop(args, job->steps, bn, job->ctx);
        nd_cpu_stream_row(job->data[0] + i * so, buf, ND_CPU_STREAM_BLOCK);
    }
    if (i < end) {
        for (int k = 0; k < job->nops; k++) args[k] = job->data[k] + i * job->steps[k];
        job->loop(args, job->steps, end - i, job->ctx);
    }
    nd_cpu_sfence(); /* streaming stores are weakly ordered */
}
#endif

static void nd_cpu_flat_range(void *p, int64_t begin, int64_t end)
{
    const nd_cpu_flat_job *job = p;
#if ND_ISA_X86
    if (job->stream) {
        nd_cpu_flat_stream(job, begin, end);
        return;
    }
#endif
    char *args[ND_ITER_MAX_OPS];
    for (int k = 0; k < job->nops; k++) args[k] = job->data[k] + begin * job->steps[k];
    job->loop(args, job->steps, end - begin, job->ctx);
}

static bool nd_cpu_flat_operand(const nd_array *x, const nd_array *o)
{
    if (x->ndim != o->ndim) return false;
    int64_t s = 1;
    for (int i = x->ndim - 1; i >= 0; i--) {
        if (x->shape[i] != o->shape[i]) return false;
        if (x->strides[i] != s && x->shape[i] != 1) return false;
        s *= x->shape[i];
    }
    return true;
}

/* Run loop over ops[0..nops) when they are all flat (then true), the
 * small ones inline, the large ones split by the thread runner. */
static bool nd_cpu_run_flat(int nops, const nd_array *const *ops, nd_loop_fn loop, const void *ctx, int64_t cost)
{
    for (int k = 0; k < nops; k++)
        if (!nd_cpu_flat_operand(ops[k], ops[0])) return false;
    if (ops[0]->size <= ND_CPU_INLINE_WORK && ops[0]->size * cost <= ND_CPU_INLINE_WORK) { /* small: inline */
        char *args[ND_ITER_MAX_OPS];
        int64_t steps[ND_ITER_MAX_OPS];
        for (int k = 0; k < nops; k++) {
            args[k] = nd__ptr(ops[k]);
            steps[k] = (int64_t)nd__itemsize(ops[k]->dtype);
        }
        loop(args, steps, ops[0]->size, ctx);
        return true;
    }
    nd_cpu_flat_job job;
    job.nops = nops;
    job.loop = loop;
    job.ctx = ctx;
    for (int k = 0; k < nops; k++) {
        job.data[k] = nd__ptr(ops[k]);
        job.steps[k] = (int64_t)nd__itemsize(ops[k]->dtype);
    }
    int64_t n = ops[0]->size;
    job.stream = nd_cpu_flat_streams(job.data[0], job.steps[0], n);
    nd__parallel_for(n, cost, nd_cpu_flat_range, &job);
    return true;
}

/* Run loop over the whole iteration: directly when it is one small row,
 * tiled for transposed inputs, else through the threaded runner. */
static void nd_cpu_run(const nd_iter *it, nd_loop_fn loop, const void *ctx, int64_t cost)
{
    if (it->ndim == 1 && it->size <= ND_CPU_INLINE_WORK && it->size * cost <= ND_CPU_INLINE_WORK) {
        char *args[ND_ITER_MAX_OPS];
        int64_t steps[ND_ITER_MAX_OPS];
        for (int k = 0; k < it->nops; k++) {
            args[k] = it->data[k];
            steps[k] = it->strides[k][0];
        }
        loop(args, steps, it->size, ctx);
        return;
    }
    unsigned gather = nd_cpu_tile_gather(it);
    if (gather) {
        nd_cpu_tiled_job job = {it, loop, ctx, gather};
        int64_t nb = (it->shape[0] + ND_CPU_TILE_I - 1) / ND_CPU_TILE_I;
        nd__parallel_for(nb, cost * ND_CPU_TILE_I * it->shape[1], nd_cpu_tiled_range, &job);
        return;
    }
    nd__iter_run(it, loop, ctx, cost);
}

nd_loop_fn nd__cpu_ew_loop(bool binary, int op, nd_dtype t, const void **ctx, int64_t *cost)
{
    *ctx = NULL;
    if (!nd__dtype_valid(t) || op < 0) return NULL;
    if (!binary) {
        if (op >= ND_NUM_UNARY_OPS) return NULL;
        nd_loop_fn fn = nd__vmath_candidate((nd_unary_op)op) ? nd_cpu_vector_loop((nd_unary_op)op, t, ctx) : NULL;
        *cost = fn ? nd_cpu_loop_cost(ND_COST_VECTOR, t) : nd_cpu_loop_cost(nd_cpu_unary_cost[op], t);
        return fn ? fn : nd_cpu_unary_loop((nd_unary_op)op, t);
    }
    if (op >= ND_NUM_BINARY_OPS) return NULL;
    nd_loop_fn vfn = nd__vmath2_candidate((nd_binary_op)op) ? nd_cpu_vector_loop2((nd_binary_op)op, t, ctx) : NULL;
    int64_t c = nd_cpu_binary_cost[op];
    if (op == ND_BINARY_POWER || op == ND_BINARY_FLOOR_DIVIDE || op == ND_BINARY_REMAINDER) c = 8;
    if (vfn) c = ND_COST_VECTOR;
    *cost = nd_cpu_loop_cost(c, t);
    return vfn ? vfn : nd_cpu_binary_loops[op][t];
}

nd_status nd__cpu_unary(nd_unary_op op, nd_array *out, const nd_array *a)
{
    if ((unsigned)op >= (unsigned)ND_NUM_UNARY_OPS || !nd__dtype_valid(a->dtype))
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_unary", "bad op %d or dtype %d", (int)op, (int)a->dtype);
    const void *ctx = NULL;
    nd_loop_fn fn = nd__vmath_candidate(op) ? nd_cpu_vector_loop(op, a->dtype, &ctx) : NULL;
    int64_t cost = fn ? nd_cpu_loop_cost(ND_COST_VECTOR, a->dtype) : nd_cpu_loop_cost(nd_cpu_unary_cost[op], a->dtype);
    if (fn == NULL) fn = nd_cpu_unary_loop(op, a->dtype);
    if (fn == NULL)
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_unary", "no loop for %s on %s", nd__unary_name(op),
                       nd_dtype_name(a->dtype));
    if (out->size == 0) return ND_OK;
    const nd_array *ops[2] = {out, a};
    if (nd_cpu_run_flat(2, ops, fn, ctx, cost)) return ND_OK;
    nd_iter it;
    nd__iter_init(&it, 2, ops);
    nd_cpu_run(&it, fn, ctx, cost);
    return ND_OK;
}

/* The core's direct path (src/elementwise/elementwise.c): n contiguous elements,
 * inputs of dtype t, the output of the op's result dtype, no partial
 * overlap. Not for integer power (its exponent scan). */
void nd__cpu_unary_flat(nd_unary_op op, nd_dtype t, void *out, const void *a, int64_t n)
{
    const void *ctx = NULL;
    nd_loop_fn fn = nd__vmath_candidate(op) ? nd_cpu_vector_loop(op, t, &ctx) : NULL;
    int64_t cost = fn ? nd_cpu_loop_cost(ND_COST_VECTOR, t) : nd_cpu_loop_cost(nd_cpu_unary_cost[op], t);
    if (fn == NULL) fn = nd_cpu_unary_loop(op, t);
    /* the output element: bool, the input's, or half of it (abs of complex: real) */
    int64_t si = (int64_t)nd__itemsize(t),
            so = nd_cpu_unary_rule_bool[op] ? 1 : (op == ND_UNARY_ABS && nd__is_complex(t)) ? si / 2 : si;
    if (n <= ND_CPU_INLINE_WORK && n * cost <= ND_CPU_INLINE_WORK) {
        char *args[2] = {out, (char *)(uintptr_t)a};
        const int64_t steps[2] = {so, si};
        fn(args, steps, n, ctx);
        return;
    }
    nd_cpu_flat_job job = {2, {out, (char *)(uintptr_t)a}, {so, si}, fn, ctx, nd_cpu_flat_streams(out, so, n)};
    nd__parallel_for(n, cost, nd_cpu_flat_range, &job);
}

/* n flat elements through fn: inline when small, else split by the thread
 * runner. */
static inline void nd_cpu_binary_flat_run(nd_loop_fn fn, const void *ctx, int64_t cost, int64_t so, int64_t si,
                                          void *out, const void *a, const void *b, int64_t n)
{
    if (n <= ND_CPU_INLINE_WORK && n * cost <= ND_CPU_INLINE_WORK) {
        char *args[3] = {out, (char *)(uintptr_t)a, (char *)(uintptr_t)b};
        const int64_t steps[3] = {so, si, si};
        fn(args, steps, n, ctx);
        return;
    }
    nd_cpu_flat_job job = {3, {out, (char *)(uintptr_t)a, (char *)(uintptr_t)b}, {so, si, si}, fn, ctx,
                           nd_cpu_flat_streams(out, so, n)};
    nd__parallel_for(n, cost, nd_cpu_flat_range, &job);
}

void nd__cpu_binary_flat(nd_binary_op op, nd_dtype t, void *out, const void *a, const void *b, int64_t n)
{
    int64_t si = (int64_t)nd__itemsize(t);
    if (nd__vmath2_candidate(op)) { /* a separate branch: the other ops' path stays as it was */
        const void *ctx = NULL;
        nd_loop_fn vf = nd_cpu_vector_loop2(op, t, &ctx);
        if (vf) {
            nd_cpu_binary_flat_run(vf, ctx, nd_cpu_loop_cost(ND_COST_VECTOR, t), si, si, out, a, b, n);
            return;
        }
    }
    nd_loop_fn fn = nd_cpu_binary_loops[op][t];
    int64_t cost = nd_cpu_binary_cost[op];
    if (op == ND_BINARY_POWER || op == ND_BINARY_FLOOR_DIVIDE || op == ND_BINARY_REMAINDER) cost = 8;
    cost = nd_cpu_loop_cost(cost, t);
    int64_t so = nd_cpu_binary_rule_bool[op] ? 1 : si;
    nd_cpu_binary_flat_run(fn, NULL, cost, so, si, out, a, b, n);
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
    const void *ctx = NULL;
    nd_loop_fn vfn = nd__vmath2_candidate(op) ? nd_cpu_vector_loop2(op, a->dtype, &ctx) : NULL;
    nd_loop_fn fn = vfn ? vfn : nd_cpu_binary_loops[op][a->dtype];
    if (fn == NULL)
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_binary", "no loop for %s on %s", nd__binary_name(op),
                       nd_dtype_name(a->dtype));
    if (out->size == 0) return ND_OK;
    if (op == ND_BINARY_POWER && nd_cpu_has_negative(b))
        return nd__err(ND_ERR_INVALID, "power", "Integers to negative integer powers are not allowed.");
    const nd_array *ops[3] = {out, a, b};
    int64_t cost = nd_cpu_binary_cost[op];
    if (op == ND_BINARY_POWER || op == ND_BINARY_FLOOR_DIVIDE || op == ND_BINARY_REMAINDER) cost = 8;
    if (vfn) cost = ND_COST_VECTOR;
    cost = nd_cpu_loop_cost(cost, a->dtype);
    if (nd_cpu_run_flat(3, ops, fn, ctx, cost)) return ND_OK;
    nd_iter it;
    nd__iter_init(&it, 3, ops);
    nd_cpu_run(&it, fn, ctx, cost);
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* where: bit copies by itemsize                                       */
/* ------------------------------------------------------------------ */
/* The contiguous select, compiled for each ISA path (bit copies: the same
 * bits on every path); the baseline build's SSE2 code widens the bool mask
 * to 64 bits through several shuffles, AVX-512 loads it into a mask register. */
#define ND_CPU_WHERE_C(T, sfx, attr)                                                              \
    attr static void nd_cpu_wherec_##T##_##sfx(T *o, const uint8_t *c, const T *x, const T *y, int64_t n) \
    {                                                                                             \
        _Pragma("omp simd") for (int64_t i = 0; i < n; i++) o[i] = c[i] ? x[i] : y[i];            \
    }
#define ND_CPU_WHERE(T)                                                                   \
    ND_CPU_WHERE_C(T, base, )                                                             \
    ND_CPU_WHERE_C(T, avx2, ND_ISA_TARGET_AVX2)                                           \
    ND_CPU_WHERE_C(T, avx512, ND_ISA_TARGET_AVX512)                                       \
    static void nd_cpu_where_##T(char **args, const int64_t *steps, int64_t n, const void *ctx) \
    {                                                                                     \
        (void)ctx;                                                                        \
        const int64_t s = (int64_t)sizeof(T);                                             \
        if (steps[0] == s && steps[1] == 1 && steps[2] == s && steps[3] == s) {           \
            T *o = (T *)args[0];                                                          \
            const uint8_t *c = (const uint8_t *)args[1];                                  \
            const T *x = (const T *)args[2], *y = (const T *)args[3];                     \
            nd_cpu_isa isa = nd__cpu_isa();                                               \
            if (isa >= ND_ISA_AVX512) nd_cpu_wherec_##T##_avx512(o, c, x, y, n);          \
            else if (isa >= ND_ISA_AVX2) nd_cpu_wherec_##T##_avx2(o, c, x, y, n);         \
            else nd_cpu_wherec_##T##_base(o, c, x, y, n);                                 \
        } else {                                                                          \
            char *po = args[0];                                                           \
            const char *pc = args[1], *px = args[2], *py = args[3];                       \
            for (int64_t i = 0; i < n; i++, po += steps[0], pc += steps[1], px += steps[2], py += steps[3]) \
                *(T *)po = *(const uint8_t *)pc ? *(const T *)px : *(const T *)py;        \
        }                                                                                 \
    }
/* 16 bytes: complex128 */
typedef struct {
    uint64_t lo, hi;
} nd_bits128;
ND_CPU_WHERE(uint8_t)
ND_CPU_WHERE(uint16_t)
ND_CPU_WHERE(uint32_t)
ND_CPU_WHERE(uint64_t)
ND_CPU_WHERE(nd_bits128)

nd_loop_fn nd__cpu_where_loop(size_t itemsize)
{
    switch (itemsize) {
    case 1: return nd_cpu_where_uint8_t;
    case 2: return nd_cpu_where_uint16_t;
    case 4: return nd_cpu_where_uint32_t;
    case 8: return nd_cpu_where_uint64_t;
    case 16: return nd_cpu_where_nd_bits128;
    default: return NULL;
    }
}

nd_status nd__cpu_where(nd_array *out, const nd_array *cond, const nd_array *x, const nd_array *y)
{
    nd_loop_fn fn;
    switch (nd__itemsize(out->dtype)) {
    case 1: fn = nd_cpu_where_uint8_t; break;
    case 2: fn = nd_cpu_where_uint16_t; break;
    case 4: fn = nd_cpu_where_uint32_t; break;
    case 8: fn = nd_cpu_where_uint64_t; break;
    case 16: fn = nd_cpu_where_nd_bits128; break;
    default: return nd__err(ND_ERR_INTERNAL, "nd__cpu_where", "bad dtype %d", (int)out->dtype);
    }
    if (cond->dtype != ND_BOOL || x->dtype != out->dtype || y->dtype != out->dtype)
        return nd__err(ND_ERR_INTERNAL, "nd__cpu_where", "operands not of the loop dtypes");
    if (out->size == 0) return ND_OK;
    const nd_array *ops[4] = {out, cond, x, y};
    if (nd_cpu_run_flat(4, ops, fn, NULL, 1)) return ND_OK;
    nd_iter it;
    nd__iter_init(&it, 4, ops);
    nd_cpu_run(&it, fn, NULL, 1);
    return ND_OK;
}
