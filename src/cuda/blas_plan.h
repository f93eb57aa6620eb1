/* How a batch of row-major matrix products runs on column-major BLAS
 * (cuBLAS) without copies: the plan. Plain C with ND_HOSTDEV functions
 * only (no CUDA runtime, no cuBLAS types), so the CPU test suite
 * (tests/test_gpu_linalg.c) builds the same plans with gcc and executes
 * them with a naive column-major GEMM.
 *
 * The mapping. A row-major M x N matrix C is, read column-major, C^T
 * (N x M). So C = A @ B is computed as C^T = B^T @ A^T: the column-major
 * call gets m = N, n = M, first operand B, second operand A. A row-major
 * operand (strides (rs, 1)) read column-major IS its transpose, with
 * ld = rs: it goes in with op N. An operand with strides (1, cs) (a
 * transposed view) read column-major is the matrix itself with ld = cs: it
 * goes in with op T. An output with strides (1, cs) is computed directly
 * (C = A @ B column-major, ld = cs): no swap, and an operand is passed
 * with op T when it is row-major. Size-1 dimensions have no meaningful
 * stride; such a matrix takes whichever layout fits, with the smallest
 * valid ld (BLAS wants ld >= max(1, rows of the stored matrix)).
 *
 * Copies happen only for a matrix that neither layout can express (no
 * unit stride, a zero or negative row/column stride, an ld too small): an
 * input is packed into a contiguous row-major temporary first; an output
 * is computed into one and copied back (after packing its old values when
 * beta != 0). A packed input whose batch stride is 0 (broadcast) is packed
 * once and keeps batch stride 0.
 *
 * Batches: every batch stride (0 included) goes to the strided-batched
 * call. A negative batch stride (a batch dimension sliced with a negative
 * step) is not documented as valid for cuBLAS's strided-batched calls, so
 * then the plan asks for pointer arrays (built on the device, no host
 * round trip) and the batched-pointer call. An output whose batch stride
 * is 0 with more than one batch element (every product would write the
 * same matrix) computes only the last product: the result of running the
 * batch in order.
 */
#ifndef ND_CUDA_BLAS_PLAN_H
#define ND_CUDA_BLAS_PLAN_H
#include <stdint.h>

#include "shared/hostdev.h"
#include "shared/matmul_layout.h"

/* A batch of row-major matrices: element (b, i, j) lies at
 * b*bs + i*rs + j*cs ELEMENTS from the first matrix's element (0, 0). */
typedef struct {
    int64_t bs, rs, cs;
} nd_bp_view;

/* The operand layouts of src/shared/matmul_layout.h (shared with the CPU
 * backend), read column-major: ND_BP_ROW (strides (ld, 1): its transpose),
 * ND_BP_COL (strides (1, ld): itself), or ND_BP_COPY. */
enum { ND_BP_COPY = ND_MM_COPY, ND_BP_ROW = ND_MM_ROW, ND_BP_COL = ND_MM_COL };
enum { ND_BP_A = 0, ND_BP_B = 1, ND_BP_C = 2 };

typedef struct {
    /* The column-major call, per batch element:
     *   X2 (m x n, ld[2]) = alpha * op0(X0) (m x k) * op1(X1) (k x n) + beta * X2
     * X0/X1 are the user's B/A when swap (C^T = B^T A^T), A/B otherwise;
     * X2 is C (or its temporary). */
    int64_t m, n, k, nb;
    int swap;
    int op[2];        /* for X0, X1: 0 = N, 1 = T */
    int64_t ld[3];    /* for X0, X1, X2 (after packing) */
    int64_t bs[3];    /* batch strides of X0, X1, X2 in elements (after packing; 0 when nb == 1) */
    /* Per user operand u = ND_BP_A, ND_BP_B, ND_BP_C: */
    int64_t off[3];     /* element offset of the first product's matrix in the user's operand */
    int copy[3];        /* 1: goes through a contiguous row-major temporary */
    int64_t copy_nb[3]; /* matrices in that temporary (1 for a broadcast input) */
    int64_t rows[3], cols[3];
    int ptr_arrays;     /* some batch stride is negative: use pointer arrays */
} nd_bp_plan;

/* Which user operand (ND_BP_A/B/C) plays X_i of the column-major call. */
ND_HOSTDEV static inline int nd_bp_user(const nd_bp_plan *p, int i)
{
    if (i == 2) return ND_BP_C;
    return p->swap ? (i == 0 ? ND_BP_B : ND_BP_A) : (i == 0 ? ND_BP_A : ND_BP_B);
}

/* The plan of C[b] = A[b] @ B[b] for b < nb (M x K @ K x N; all of them
 * >= 1). v[ND_BP_A/B/C] are the user's views. */
ND_HOSTDEV static inline void nd_bp_plan_make(nd_bp_plan *p, int64_t nb, int64_t M, int64_t N, int64_t K,
                                              const nd_bp_view v[3])
{
    nd_bp_view e[3];
    int lay[3];
    int64_t ldu[3];
    int64_t b0 = 0;
    if (nb > 1 && v[ND_BP_C].bs == 0) b0 = nb - 1, nb = 1;
    p->nb = nb;
    p->rows[ND_BP_A] = M, p->cols[ND_BP_A] = K;
    p->rows[ND_BP_B] = K, p->cols[ND_BP_B] = N;
    p->rows[ND_BP_C] = M, p->cols[ND_BP_C] = N;
    for (int u = 0; u < 3; u++) {
        e[u] = v[u];
        p->off[u] = b0 * v[u].bs;
        if (nb == 1) e[u].bs = 0;
        lay[u] = nd_mm_layout(p->rows[u], p->cols[u], e[u].rs, e[u].cs, INT64_MAX, &ldu[u]);
        p->copy[u] = lay[u] == ND_BP_COPY;
        p->copy_nb[u] = 0;
        if (p->copy[u]) {
            p->copy_nb[u] = e[u].bs == 0 ? 1 : nb;
            e[u].bs = p->copy_nb[u] > 1 ? p->rows[u] * p->cols[u] : 0;
            e[u].rs = p->cols[u];
            e[u].cs = 1;
            lay[u] = nd_mm_layout(p->rows[u], p->cols[u], e[u].rs, e[u].cs, INT64_MAX, &ldu[u]);
        }
    }
    p->k = K;
    if (lay[ND_BP_C] == ND_BP_COL) {
        p->swap = 0, p->m = M, p->n = N;
    } else {
        p->swap = 1, p->m = N, p->n = M;
    }
    for (int i = 0; i < 3; i++) {
        int u = nd_bp_user(p, i);
        p->ld[i] = ldu[u];
        p->bs[i] = e[u].bs;
        /* An input is used as stored (op N) when its layout matches the
         * output's; otherwise its stored form is the transpose (op T). */
        if (i < 2) p->op[i] = lay[u] != lay[ND_BP_C];
    }
    p->ptr_arrays = nb > 1 && (p->bs[0] < 0 || p->bs[1] < 0 || p->bs[2] < 0);
}

/* Element offsets for the pack/unpack kernels: linear index i of a
 * contiguous (nmat, rows, cols) block <-> the strided view v. */
ND_HOSTDEV static inline int64_t nd_bp_strided_offset(int64_t i, int64_t rows, int64_t cols, nd_bp_view v)
{
    int64_t c = i % cols, q = i / cols;
    int64_t r = q % rows, b = q / rows;
    return b * v.bs + r * v.rs + c * v.cs;
}

/* K == 0 or alpha == 0 in gemm: C = beta * C without reading A and B. The
 * CPU's rule (src/cpu/matmul.c): beta == 0 writes zeros (NaNs in C are
 * not propagated), otherwise beta * x computed in double and rounded to
 * the dtype once (float16/bfloat16 through float, as the CPU stores). */
ND_HOSTDEV static inline double nd_bp_scale(double x, double beta) { return beta == 0.0 ? 0.0 : beta * x; }
#endif
