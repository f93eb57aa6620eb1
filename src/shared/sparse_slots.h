/* Sparse matrices: the contract of the backend slot `sparse`
 * (src/core/backend.h) shared by the core (src/sparse/) and the backends
 * (src/cpu/sparse.c: threaded loops).
 *
 * Every matrix operand is in CSR form (nd_sp_csr): indptr (rows + 1),
 * indices (nnz) of one index dtype (int32 or int64), data (nnz) of one
 * value dtype (float32, float64, complex64, complex128; float16 and
 * bfloat16 in ND_SP_SPMM only, whose products and sums are float32 and y
 * rounded once: the core runs every other op of half values on float32
 * copies, src/sparse/sparse.c nd__sp_run), all 1-D
 * C-contiguous on the backend's device, validated by the core (indptr
 * starts at 0, never decreases, ends at nnz = indices' size; every index in
 * [0, cols)). A CSC matrix is the CSR form of its transpose, which is how
 * the core passes it. "canonical": the indices of every row strictly
 * increase (sorted, no duplicates).
 *
 * Where an op makes a matrix (the `c` operand), the backend allocates its
 * three arrays (a's index and value dtypes, on a's device; FROM_DENSE,
 * whose a is empty: index dtype call->index_dtype, x's value dtype) and stores them in call->c; on failure it leaves call->c empty.
 * Dense operands are C-contiguous unless said otherwise. No operand
 * overlaps another. Ops (call->op):
 *
 *   ND_SP_SPMM       y (rows, k) = a @ x (cols, k), k = call->k >= 1; x and y
 *                    have a's value dtype. Duplicates add up.
 *   ND_SP_TO_DENSE   y (rows, cols) = a (duplicates summed); y is written whole.
 *   ND_SP_FROM_DENSE c = the nonzeros of x (rows, cols), canonical.
 *   ND_SP_FROM_COO   c = the entries (row[p], a.indices[p], a.data[p]), p < nnz
 *                    (row: call->row, a.indptr unused), rows sorted by column
 *                    (stable), duplicates summed when flags has ND_SP_SUM
 *                    (scipy's coo tocsr: zero sums kept).
 *   ND_SP_TRANSPOSE  c (cols, rows) = a^T (a's CSC form); duplicates kept,
 *                    every row of c sorted (stable: ties in a's row order).
 *   ND_SP_EXPAND     call->row (allocated by the backend, nnz, index dtype
 *                    of a) = the row of every stored entry.
 *   ND_SP_CANON      c = a with each row sorted by column (stable) when
 *                    flags has ND_SP_SORT, adjacent equal columns summed
 *                    (ND_SP_SUM, after sorting), entries equal to zero
 *                    dropped (ND_SP_DROP_ZEROS, after summing).
 *   ND_SP_SPGEMM     c (a.rows, b.cols) = a @ b (b.rows == a.cols), both of
 *                    one dtype; c canonical, sums that are exactly zero
 *                    dropped (scipy's csr_matmat).
 *   ND_SP_BINOP      c = alpha a + beta b (flags ND_SP_ADD) or a * b
 *                    elementwise (ND_SP_MUL), a and b canonical of one shape
 *                    and dtype; c canonical without zeros (scipy's binop).
 *   ND_SP_MUL_DENSE  y (nnz) = a.data[p] * x[i, j] for entry p at (i, j); x
 *                    (rows, cols) of a's dtype with any strides (stride 0:
 *                    broadcast).
 *   ND_SP_ROW_SUMS   y (rows) = the sum of every row's entries.
 *   ND_SP_DIAG       y (len) = a[i, i + k] (k = call->k; len the diagonal's
 *                    length: min(rows, cols - k) for k >= 0, min(rows + k,
 *                    cols) else), duplicates summed, 0 where none.
 *   ND_SP_GATHER     c (len, cols) = rows x[0..len) of a, x int64 (len) with
 *                    every value in [0, rows).
 *
 * Errors: ND_ERR_NOMEM (an allocation; message from the allocator). The
 * backend never sees user errors. */
#ifndef ND_SPARSE_SLOTS_H
#define ND_SPARSE_SLOTS_H
#include <stdint.h>

#include "shared/hostdev.h"
#include "shared/dtype.h"

enum {
    ND_SP_SPMM = 0,
    ND_SP_TO_DENSE,
    ND_SP_FROM_DENSE,
    ND_SP_FROM_COO,
    ND_SP_TRANSPOSE,
    ND_SP_EXPAND,
    ND_SP_CANON,
    ND_SP_SPGEMM,
    ND_SP_BINOP,
    ND_SP_MUL_DENSE,
    ND_SP_ROW_SUMS,
    ND_SP_DIAG,
    ND_SP_GATHER,
    ND_SP_NUM_OPS
};

/* call->flags */
enum {
    ND_SP_SORT = 1u << 0,
    ND_SP_SUM = 1u << 1,
    ND_SP_DROP_ZEROS = 1u << 2,
    ND_SP_ADD = 1u << 3,
    ND_SP_MUL = 1u << 4,
};

typedef struct nd_sp_csr {
    int64_t rows, cols;
    nd_array *indptr;  /* rows + 1 */
    nd_array *indices; /* nnz */
    nd_array *data;    /* nnz */
} nd_sp_csr;

typedef struct nd_sp_call {
    int op;               /* ND_SP_* */
    unsigned flags;       /* ND_SP_SORT ... */
    nd_sp_csr a, b;       /* operands */
    nd_sp_csr c;          /* the result, made by the backend */
    nd_array *x, *y;      /* dense operands */
    nd_array *row;        /* FROM_COO: rows (in); EXPAND: rows (out) */
    nd_dtype index_dtype; /* FROM_DENSE: of c (set to a's by the backend otherwise) */
    int64_t k;            /* SPMM: columns; DIAG: offset */
    double alpha, beta;   /* BINOP with ND_SP_ADD */
} nd_sp_call;

/* The half value dtypes: stored as such, computed in float32. */
static inline bool nd__sp_half(nd_dtype t) { return t == ND_FLOAT16 || t == ND_BFLOAT16; }
/* The value dtypes of a matrix. */
static inline bool nd__sp_value_ok(nd_dtype t)
{
    return t == ND_FLOAT32 || t == ND_FLOAT64 || t == ND_COMPLEX64 || t == ND_COMPLEX128 || nd__sp_half(t);
}

/* First position p in [lo, hi) with key[p] >= v (keys nondecreasing): the
 * nnz-balanced split of rows (indptr) and the column search of a sorted
 * row. */
#define ND_SP_LOWER_BOUND(T)                                                                 \
    static inline ND_HOSTDEV int64_t nd__sp_lower_bound_##T(const T *key, int64_t lo, int64_t hi, int64_t v) \
    {                                                                                        \
        while (lo < hi) {                                                                    \
            int64_t mid = lo + (hi - lo) / 2;                                                \
            if ((int64_t)key[mid] < v) lo = mid + 1;                                         \
            else hi = mid;                                                                   \
        }                                                                                    \
        return lo;                                                                           \
    }
ND_SP_LOWER_BOUND(int32_t)
ND_SP_LOWER_BOUND(int64_t)
#undef ND_SP_LOWER_BOUND

#endif
