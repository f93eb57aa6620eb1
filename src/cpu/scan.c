/* The CPU scan kernel (nd_backend.scan; contract in src/shared/scan_slots.h): inclusive
 * sum/prod/max/min along the middle axis of C-contiguous (outer, n, inner)
 * arrays of int64, uint64, float32 or float64, threaded through the pool.
 *
 *  - inner > 1 (a scan along a leading axis): out row i = op(out row i-1,
 *    a row i), a vectorisable loop over a tile of columns; tasks are
 *    (outer, column tile) pairs.
 *  - inner == 1 with many rows: rows are split between threads, each row
 *    scanned sequentially.
 *  - inner == 1 with fewer long rows than threads: a blocked two-pass scan
 *    per row. The row is cut into T blocks (T threads); pass 1 reduces T
 *    pieces of each of the first T - 1 blocks (T(T-1) pieces, the work of
 *    T - 1 blocks shared by T threads), the carries into each block come
 *    from those totals in order, and pass 2 scans every block from its
 *    carry in parallel. Float sums therefore group the terms differently
 *    from one sequential running sum (the same values within rounding). */
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/scan.h"

#define SC_MAXT 64          /* blocks of the two-pass scan */
#define SC_TILE 1024        /* columns per task when inner > 1 */
#define SC_LONG (1 << 16)   /* rows shorter than this are scanned by one thread */

typedef struct {
    int op;
    nd_dtype t;
    char *out;
    const char *a;
    int64_t outer, n, inner, ntile;
    /* two-pass state of one row */
    int64_t nblk;
    int64_t bstart[SC_MAXT + 1];
    uint64_t part[SC_MAXT * SC_MAXT]; /* piece totals (the bits of a T) */
    uint64_t carry[SC_MAXT];
} sc_job;

/* The sequential scan of a row from the carry c, four elements a step:
 * the prefixes of the four (p0..p3) do not depend on c, so the loop's
 * dependence chain is one F per four elements instead of one per element
 * (about 4x the throughput of a plain running sum; for floats the grouping
 * o[i+1] = c + (a[i] + a[i+1]) rounds differently from NumPy's
 * (c + a[i]) + a[i+1], within the same bound). */
#define SC_ROW4(F, T)                                                                               \
    do {                                                                                            \
        for (; i + 4 <= n; i += 4) {                                                                \
            T p0 = a[i], p1 = F(p0, a[i + 1]), p2 = F(p1, a[i + 2]), p3 = F(p2, a[i + 3]);          \
            o[i] = F(c, p0);                                                                        \
            o[i + 1] = F(c, p1);                                                                    \
            o[i + 2] = F(c, p2);                                                                    \
            o[i + 3] = F(c, p3);                                                                    \
            c = F(c, p3);                                                                           \
        }                                                                                           \
        for (; i < n; i++) o[i] = c = F(c, a[i]);                                                   \
    } while (0)

/* For each accumulator type: the sequential row scan from a carry, the
 * reduction of a range, and the column-tile recurrence. */
#define SC_DEF(T, S)                                                                                \
    static void row_##S(int op, T * o, const T * a, int64_t n, bool has_c, T c)     \
    {                                                                                               \
        if (n <= 0) return;                                                                         \
        int64_t i = 0;                                                                              \
        if (!has_c) { c = a[0]; o[0] = c; i = 1; }                                                  \
        switch (op) {                                                                               \
        case ND_SC_SUM: SC_ROW4(nd_sc_sum_##S, T); break;                                           \
        case ND_SC_PROD: SC_ROW4(nd_sc_prod_##S, T); break;                                         \
        case ND_SC_MAX: SC_ROW4(nd_sc_max_##S, T); break;                                           \
        default: SC_ROW4(nd_sc_min_##S, T); break;                                                  \
        }                                                                                           \
    }                                                                                               \
    /* op over a[0..n), n >= 1; sums/products in 8 independent lanes. */                          \
    static T red_##S(int op, const T * a, int64_t n)                                        \
    {                                                                                               \
        T l[8];                                                                                     \
        int64_t i = 0;                                                                              \
        if (n < 16 || op >= ND_SC_MAX) {                                                            \
            T c = a[0];                                                                             \
            switch (op) {                                                                           \
            case ND_SC_SUM: for (i = 1; i < n; i++) c = nd_sc_sum_##S(c, a[i]); break;              \
            case ND_SC_PROD: for (i = 1; i < n; i++) c = nd_sc_prod_##S(c, a[i]); break;            \
            case ND_SC_MAX: for (i = 1; i < n; i++) c = nd_sc_max_##S(c, a[i]); break;              \
            default: for (i = 1; i < n; i++) c = nd_sc_min_##S(c, a[i]); break;                     \
            }                                                                                       \
            return c;                                                                               \
        }                                                                                           \
        for (int k = 0; k < 8; k++) l[k] = a[k];                                                    \
        if (op == ND_SC_SUM) {                                                                      \
            for (i = 8; i + 8 <= n; i += 8)                                                         \
                for (int k = 0; k < 8; k++) l[k] = nd_sc_sum_##S(l[k], a[i + k]);                   \
            for (int k = 1; k < 8; k++) l[0] = nd_sc_sum_##S(l[0], l[k]);                           \
            for (; i < n; i++) l[0] = nd_sc_sum_##S(l[0], a[i]);                                    \
        } else {                                                                                    \
            for (i = 8; i + 8 <= n; i += 8)                                                         \
                for (int k = 0; k < 8; k++) l[k] = nd_sc_prod_##S(l[k], a[i + k]);                  \
            for (int k = 1; k < 8; k++) l[0] = nd_sc_prod_##S(l[0], l[k]);                          \
            for (; i < n; i++) l[0] = nd_sc_prod_##S(l[0], a[i]);                                   \
        }                                                                                           \
        return l[0];                                                                                \
    }                                                                                               \
    /* columns [j0, j1) of one (n, inner) slab */                                                 \
    static void cols_##S(int op, T * o, const T * a, int64_t n, int64_t inner, int64_t j0, int64_t j1) \
    {                                                                                               \
        for (int64_t j = j0; j < j1; j++) o[j] = a[j];                                              \
        for (int64_t i = 1; i < n; i++) {                                                           \
            const T * x = a + i * inner;                                                    \
            T * y = o + i * inner;                                                          \
            const T * p = o + (i - 1) * inner;                                              \
            switch (op) {                                                                           \
            case ND_SC_SUM: FOR_COLS(y[j] = nd_sc_sum_##S(p[j], x[j])); break;                      \
            case ND_SC_PROD: FOR_COLS(y[j] = nd_sc_prod_##S(p[j], x[j])); break;                    \
            case ND_SC_MAX: FOR_COLS(y[j] = nd_sc_max_##S(p[j], x[j])); break;                      \
            default: FOR_COLS(y[j] = nd_sc_min_##S(p[j], x[j])); break;                             \
            }                                                                                       \
        }                                                                                           \
    }

/* In place (o == a) is fine for every loop: element i is read before it
 * is written and never read again (no restrict: o and a may be the same
 * memory). The column loop has no dependence between columns (y[j] from
 * p[j] and x[j], where p is the previous row of o), hence "omp simd". */
#define FOR_COLS(...) _Pragma("omp simd") for (int64_t j = j0; j < j1; j++) { __VA_ARGS__; }
SC_DEF(float, f32)
SC_DEF(double, f64)
SC_DEF(int64_t, i64)
SC_DEF(uint64_t, u64)
#undef FOR_COLS

/* Bits of a value of the job's type in a uint64_t slot and back. */
#define SC_SWITCH(t, F)                                                                             \
    switch (t) {                                                                                    \
    case ND_FLOAT32: F(float, f32); break;                                                          \
    case ND_FLOAT64: F(double, f64); break;                                                         \
    case ND_INT64: F(int64_t, i64); break;                                                          \
    default: F(uint64_t, u64); break;                                                               \
    }

/* rows [b, e) (inner == 1) */
static void rows_task(void *ctx, int64_t b, int64_t e)
{
    sc_job *j = ctx;
    for (int64_t r = b; r < e; r++) {
#define F(T, S) row_##S(j->op, (T *)j->out + r * j->n, (const T *)j->a + r * j->n, j->n, false, (T)0)
        SC_SWITCH(j->t, F)
#undef F
    }
}

/* (outer, tile) tasks [b, e) (inner > 1) */
static void cols_task(void *ctx, int64_t b, int64_t e)
{
    sc_job *j = ctx;
    for (int64_t k = b; k < e; k++) {
        int64_t o = k / j->ntile, tl = k % j->ntile;
        int64_t j0 = tl * SC_TILE, j1 = j0 + SC_TILE < j->inner ? j0 + SC_TILE : j->inner;
        int64_t off = o * j->n * j->inner;
#define F(T, S) cols_##S(j->op, (T *)j->out + off, (const T *)j->a + off, j->n, j->inner, j0, j1)
        SC_SWITCH(j->t, F)
#undef F
    }
}

/* pass 1 of the two-pass scan of row r = j->outer: piece p of block b
 * (b < nblk - 1, p < nblk); task k = b * nblk + p */
static void pass1_task(void *ctx, int64_t b, int64_t e)
{
    sc_job *j = ctx;
    for (int64_t k = b; k < e; k++) {
        int64_t blk = k / j->nblk, p = k % j->nblk;
        int64_t s0 = j->bstart[blk], len = j->bstart[blk + 1] - s0;
        int64_t p0 = s0 + len * p / j->nblk, p1 = s0 + len * (p + 1) / j->nblk;
        uint64_t bits = 0;
        if (p1 > p0) {
#define F(T, S)                                                                                     \
    do {                                                                                            \
        T v = red_##S(j->op, (const T *)j->a + p0, p1 - p0);                                        \
        memcpy(&bits, &v, sizeof v);                                                                \
    } while (0)
            SC_SWITCH(j->t, F)
#undef F
        }
        j->part[k] = bits;
    }
}

static void pass2_task(void *ctx, int64_t b, int64_t e)
{
    sc_job *j = ctx;
    for (int64_t blk = b; blk < e; blk++) {
        int64_t s0 = j->bstart[blk], len = j->bstart[blk + 1] - s0;
#define F(T, S)                                                                                     \
    do {                                                                                            \
        T c;                                                                                        \
        memcpy(&c, &j->carry[blk], sizeof c);                                                       \
        row_##S(j->op, (T *)j->out + s0, (const T *)j->a + s0, len, blk > 0, c);                    \
    } while (0)
        SC_SWITCH(j->t, F)
#undef F
    }
}

/* The carries: carry[0] unused, carry[b] = op over blocks 0..b-1, the
 * pieces of each block folded in order (empty pieces skipped). */
static void carries(sc_job *j)
{
#define F(T, S)                                                                                     \
    do {                                                                                            \
        T c = 0;                                                                                    \
        bool have = false;                                                                          \
        for (int64_t blk = 0; blk + 1 < j->nblk; blk++) {                                           \
            int64_t s0 = j->bstart[blk], len = j->bstart[blk + 1] - s0;                             \
            for (int64_t p = 0; p < j->nblk; p++) {                                                 \
                if (len * (p + 1) / j->nblk == len * p / j->nblk) continue;                         \
                T v;                                                                                \
                memcpy(&v, &j->part[blk * j->nblk + p], sizeof v);                                  \
                if (!have) c = v;                                                                   \
                else switch (j->op) {                                                               \
                    case ND_SC_SUM: c = nd_sc_sum_##S(c, v); break;                                 \
                    case ND_SC_PROD: c = nd_sc_prod_##S(c, v); break;                               \
                    case ND_SC_MAX: c = nd_sc_max_##S(c, v); break;                                 \
                    default: c = nd_sc_min_##S(c, v); break;                                        \
                    }                                                                               \
                have = true;                                                                        \
            }                                                                                       \
            memcpy(&j->carry[blk + 1], &c, sizeof c);                                               \
        }                                                                                           \
    } while (0)
    SC_SWITCH(j->t, F)
#undef F
}

nd_status nd__cpu_scan(int op, nd_array *out, const nd_array *a, int64_t outer, int64_t n, int64_t inner)
{
    sc_job j;
    j.op = op;
    j.t = a->dtype;
    j.out = nd__ptr(out);
    j.a = nd__ptr(a);
    j.outer = outer;
    j.n = n;
    j.inner = inner;
    if (outer <= 0 || n <= 0 || inner <= 0) return ND_OK;
    if (inner > 1) {
        j.ntile = (inner + SC_TILE - 1) / SC_TILE;
        nd__parallel_for(outer * j.ntile, n * (inner < SC_TILE ? inner : SC_TILE), cols_task, &j);
        return ND_OK;
    }
    int nt = nd__num_threads();
    if (nt > SC_MAXT) nt = SC_MAXT;
    if (nt <= 1 || n < SC_LONG || outer >= nt) {
        nd__parallel_for(outer, n, rows_task, &j);
        return ND_OK;
    }
    /* few long rows: the two-pass scan, one row after the other */
    const size_t isz = nd_dtype_size(j.t);
    char *o0 = j.out;
    const char *a0 = j.a;
    j.nblk = nt;
    for (int64_t r = 0; r < outer; r++) {
        j.out = o0 + (size_t)(r * n) * isz;
        j.a = a0 + (size_t)(r * n) * isz;
        for (int64_t b = 0; b <= j.nblk; b++) j.bstart[b] = n * b / j.nblk;
        nd__parallel_for(j.nblk * (j.nblk - 1), n / j.nblk / j.nblk, pass1_task, &j);
        carries(&j);
        nd__parallel_for(j.nblk, n / j.nblk, pass2_task, &j);
    }
    return ND_OK;
}
