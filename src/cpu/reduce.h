/* Private to the CPU reduction kernel (src/cpu/reduce*.c).
 *
 * The kernel computes in one of four accumulator types (nd_racc, chosen
 * by nd_racc_of in src/shared/reduce_ops.h, which also holds every operation the
 * loops apply to values: the bodies the CUDA kernels use too); input
 * elements of other dtypes are converted into small L1-resident buffers
 * (rk_load) before the loops run, so every loop below exists once per
 * accumulator type rather than once per input dtype. When the input
 * already has the accumulator's representation and is contiguous, the
 * loops read it in place ("direct"). */
#ifndef ND_CPU_REDUCE_H
#define ND_CPU_REDUCE_H
#include "cpu/cpu.h"
#include "cpu/isa.h"
#include "shared/reduce_ops.h"

/* Terms per leaf of the pairwise sums (8 lanes x 16). */
#define ND_RK_BLOCK 128

/* for (IDX = 0; IDX < N; IDX++) BODY, vectorised: "omp simd" (we build
 * with -fopenmp) lifts GCC's -O2 cost model that otherwise leaves loops
 * of unknown trip count scalar. Bodies are independent per IDX. */
#define FOR16(N, IDX, ...)                                                                          \
    do {                                                                                            \
        _Pragma("omp simd") for (int64_t IDX = 0; IDX < (N); IDX++) { __VA_ARGS__; }                \
    } while (0)

/* Tile loops of the rows path for an elementwise fold a[j] = EXPR of the
 * row q into the accumulators a (row_acc), and the row_comb that folds a
 * tile of later rows the same way. S: a name suffix, ATTR: a target
 * attribute (src/cpu/isa.h) or nothing; one body for every path. */
#define ND_RK_ROW(name, ck, T, EXPR, S, ATTR)                                                       \
    ATTR static void rowa_##name##_##ck##S(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, \
                                           const void *c)                                           \
    {                                                                                               \
        (void)idx;                                                                                  \
        (void)r;                                                                                    \
        (void)c;                                                                                    \
        T *restrict a = acc;                                                                        \
        const T *restrict q = p;                                                                    \
        FOR16(w, j, a[j] = EXPR);                                                                   \
    }
#define ND_RK_ROWC(name, ck, S, ATTR)                                                               \
    ATTR static void rowc_##name##_##ck##S(void *acc, int64_t *idx, const void *a2, const int64_t *i2, int64_t w) \
    {                                                                                               \
        (void)i2;                                                                                   \
        rowa_##name##_##ck##S(acc, idx, a2, w, 0, NULL);                                            \
    }

typedef union {
    float f;
    double d;
    int64_t i;
    uint64_t u;
} rk_val;
/* A partial result: the value and, for argmax/argmin, the flat index. */
typedef struct {
    rk_val v;
    int64_t idx;
} rk_part;

/* Reduce n >= 1 contiguous accumulator values p (idx0: flat index of
 * p[0]; c: the centre for SQDEV). Float sums are pairwise. */
typedef rk_part (*rk_leaf_fn)(const void *p, int64_t n, int64_t idx0, rk_val c);
/* l = l (+) r, where l covers earlier elements than r (ties keep l). */
typedef void (*rk_comb_fn)(rk_part *l, const rk_part *r);
/* Tile operations of the outer-axis ("rows") path: w columns. row_first
 * sets acc from row r (values p, centres c for SQDEV), row_acc folds row r
 * into acc, row_comb folds the tile (acc2, idx2) of later rows into acc. */
typedef void (*rk_row_fn)(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c);
typedef void (*rk_rowcomb_fn)(void *acc, int64_t *idx, const void *acc2, const int64_t *idx2, int64_t w);
/* row_acc of the four rows r..r+3 (values p[0..3]) in one pass, in that
 * order: the very result of four row_acc calls, with a quarter of the
 * accumulator traffic and four streams in flight. */
typedef void (*rk_row4_fn)(void *acc, int64_t *idx, const void *const *p, int64_t w, int64_t r);

typedef struct {
    rk_leaf_fn leaf;
    rk_comb_fn comb;
    rk_row_fn row_first, row_acc;
    rk_rowcomb_fn row_comb;
    bool pairwise;       /* float sums: combine in a balanced tree */
    rk_row4_fn row_acc4; /* NULL: row_acc row by row */
} rk_ops;

/* The loops of the path in use (nd__cpu_isa) of every class but
 * max/min/argmax/argmin (src/cpu/reduce_prims.c); NULL when the class has
 * no loop for that accumulator (SQDEV on ints) or is one of those four.
 * The driver (src/cpu/reduce.c) asks nd__rk_minmax_ops for them. */
ND_INTERNAL const rk_ops *nd__rk_sum_ops(nd_rcls c, nd_racc a);
/* max/min/argmax/argmin (src/cpu/reduce_minmax.c) of path isa, which the
 * caller must know the CPU has (the tests call every path); NULL for
 * another class. */
ND_INTERNAL const rk_ops *nd__rk_minmax_ops(nd_cpu_isa isa, nd_rcls c, nd_racc a);
static inline size_t nd__rk_size(nd_racc a) { return a == ND_RACC_F32 ? 4 : 8; }
/* row_first of the classes that start a tile from a copy of its first
 * row (idx, when not NULL: set to the row index r); one per accumulator. */
#define ND_RK_ROWF_COPY(ck)                                                                         \
    ND_INTERNAL void nd__rk_rowf_copy_##ck(void *acc, int64_t *idx, const void *p, int64_t w, int64_t r, const void *c);
ND_RK_ROWF_COPY(f32)
ND_RK_ROWF_COPY(f64)
ND_RK_ROWF_COPY(i64)
ND_RK_ROWF_COPY(u64)
/* Whether dtype dt is stored exactly as accumulator a (read in place). */
static inline bool nd__rk_same(nd_racc a, nd_dtype dt)
{
    return (a == ND_RACC_F32 && dt == ND_FLOAT32) || (a == ND_RACC_F64 && dt == ND_FLOAT64) ||
           (a == ND_RACC_I64 && dt == ND_INT64) || (a == ND_RACC_U64 && (dt == ND_UINT64 || dt == ND_INT64));
}
/* dst[i] = (acc) src[i * stride], i < n; stride in bytes. */
ND_INTERNAL void nd__rk_load(nd_racc a, void *dst, const char *src, int64_t stride, int64_t n, nd_dtype dt);
/* Convert n accumulator values to the output dtype odt. */
ND_INTERNAL void nd__rk_store(void *dst, nd_dtype odt, nd_racc a, const void *src, int64_t n);
/* The value of one element: the identity of class c (empty reductions). */
ND_INTERNAL rk_val nd__rk_identity(nd_rcls c, nd_racc a);
/* In place over cnt accumulator values: nd_rop_finish (mean: x / n;
 * var: x / den; std: sqrt(x / den)). Float accumulators only. */
ND_INTERNAL void nd__rk_finish(nd_racc a, void *x, int64_t cnt, nd_reduce_op op, double n, double den);
#endif
