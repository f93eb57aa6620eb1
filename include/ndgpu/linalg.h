/*
 * libndgpu: linear algebra - products (matmul, dot, gemm, outer, kron,
 * tensordot, einsum) and the TF32 switch; numpy.linalg (solve, inv, det,
 * decompositions, eigenvalues, lstsq, pinv, rank, norms, cond,
 * matrix_power, multi_dot, cross, vecdot).
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_LINALG_H
#define NDGPU_LINALG_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Products                                                            */
/* ------------------------------------------------------------------ */
/** NumPy matmul: 1-D operands are promoted (and the added axis removed),
 *  batch dimensions broadcast, result dtype nd_result_type(a, b) (bool @
 *  bool is bool: the logical or of ands; integers wrap in the result
 *  dtype). Transposed views go to BLAS as flags, not copies; K == 0 gives
 *  zeros. ND_ERR_SHAPE for 0-d operands ("Input operand 0 does not have
 *  enough dimensions ..."), mismatched core dimensions ("Input operand 1
 *  has a mismatch in its core dimension 0 ... (size 3 is different from
 *  4)") and batch shapes that do not broadcast. An out that overlaps an
 *  input or has another dtype is computed through a temporary, except
 *  mixed precision: float16/bfloat16 operands with a float32 out are
 *  accumulated in float32 and written straight into out, never rounded to
 *  half in between (on the CPU through oneDNN where the build has it and
 *  the CPU has AVX512-BF16/AMX, else widened to float32 for sgemm).
 *  complex64/complex128 work like the reals (cgemm/zgemm on the CPU,
 *  cuBLAS on the GPU; no conjugation), complex with a real dtype promotes
 *  as nd_result_type says (complex64 @ float64 is complex128). */
ND_API nd_status nd_matmul(nd_array **out, const nd_array *a, const nd_array *b);
/** NumPy dot: scalar*array for 0-d, inner product for 1-D, matmul for
 *  2-D, sum over the last axis of a and second-to-last of b otherwise
 *  (result shape a.shape[:-1] + b.shape[:-2] + b.shape[-1:]). ND_ERR_SHAPE
 *  "shapes (2,3) and (4,5) not aligned: 3 (dim 1) != 4 (dim 0)". Complex
 *  operands as in nd_matmul (no conjugation: np.dot, not np.vdot). */
ND_API nd_status nd_dot(nd_array **out, const nd_array *a, const nd_array *b);
/** c = alpha * op(a) @ op(b) + beta * c for 2-D a, b (op = transpose when
 *  the flag is set). With *c == NULL a new c is allocated and beta ignored.
 *  The promoted dtype of a and b must be a float or complex dtype
 *  (ND_ERR_DTYPE for integer/bool: use nd_matmul); an existing *c must be 2-D (M, N)
 *  (ND_ERR_SHAPE), on the same device (ND_ERR_DEVICE) and of exactly that
 *  promoted dtype (ND_ERR_DTYPE: c is updated in place, never cast). BLAS
 *  conventions: beta == 0 does not read c (NaNs there vanish), alpha == 0
 *  does not read a and b. float16/bfloat16 are computed in float32; with
 *  float16/bfloat16 a and b, c may also be float32 (the mixed-precision
 *  GEMM: c += a @ b accumulated and kept in float32). complex64/complex128
 *  take the real alpha and beta as (alpha, 0) and (beta, 0); op is the
 *  plain transpose, never the conjugate one. */
ND_API nd_status nd_gemm(nd_array **c, bool trans_a, bool trans_b, double alpha, const nd_array *a, const nd_array *b, double beta);
/** Whether float32 matmul/dot/gemm on a GPU may use TF32 tensor cores
 *  (10-bit mantissa products, float32 accumulation; several times faster,
 *  about 1e-3 relative error). Default false: float32 is computed exactly
 *  as float32, as NumPy and CuPy do by default. Process-wide; the
 *  environment variable ND_MATMUL_TF32=1 sets the initial value. The CPU
 *  backend ignores it. */
ND_API void nd_set_matmul_tf32(bool allow);
/** The current TF32 setting (see nd_set_matmul_tf32). */
ND_API bool nd_get_matmul_tf32(void);
/** np.outer(a, b): out[i, j] = a.flat[i] * b.flat[j] (nd_multiply's dtype:
 *  bool x bool is bool). */
ND_API nd_status nd_outer(nd_array **out, const nd_array *a, const nd_array *b);
/** np.kron(a, b): the Kronecker product (ndim = max of the two; the
 *  shorter shape is padded with leading 1s). */
ND_API nd_status nd_kron(nd_array **out, const nd_array *a, const nd_array *b);
/** np.tensordot(a, b, axes): with axes_a == axes_b == NULL, the sum over
 *  the last naxes axes of a and the first naxes of b (axes=N); otherwise
 *  over axes_a[i] of a paired with axes_b[i] of b (naxes pairs). The
 *  result has a's free axes then b's, in order, and nd_matmul's dtype
 *  (computed as transpose + reshape + nd_matmul). ND_ERR_SHAPE "shape-
 *  mismatch for sum" when paired extents differ or naxes exceeds an ndim;
 *  ND_ERR_INVALID for naxes < 0 (NumPy's odd negative axes are refused)
 *  or a repeated axis. */
ND_API nd_status nd_tensordot(nd_array **out, const nd_array *a, const nd_array *b, int naxes, const int *axes_a,
                              const int *axes_b);
/** np.einsum(subscripts, *operands) for n >= 1 operands (at most 64):
 *  NumPy's subscripts string - letters a-z A-Z, spaces ignored, ',' between
 *  operands, an optional '->' output (without it the output is the
 *  labels used exactly once, in ASCII order, after any broadcast
 *  dimensions), '...' for broadcast dimensions (right-aligned across
 *  operands), a label repeated within one operand takes its diagonal,
 *  labels absent from the output are summed, size-1 extents broadcast
 *  against other operands. The result dtype is the promotion of all
 *  operand dtypes and, as NumPy's, the arithmetic is done in it: integers
 *  wrap (int8 sums wrap in int8), bool gives the or of ands, float16 and
 *  bfloat16 products are accumulated in float32 and rounded once per
 *  contraction. Planned as opt_einsum: diagonals are strided views,
 *  labels of one operand only are summed first (nd_sum), then the operands
 *  are contracted pairwise, greedily (the pair with the smallest result
 *  first, the leftmost on ties), each contraction a transpose +
 *  reshape + batched nd_matmul (or a broadcast nd_multiply when nothing
 *  is summed), then the final transpose. Always a new array (never a view
 *  of an operand). Errors with NumPy's messages: ND_ERR_INVALID for a
 *  malformed string ("einstein sum subscripts string contains too many
 *  subscripts for operand 0", "invalid subscript '1' in einstein sum
 *  subscripts string, subscripts must be letters", operand count
 *  mismatches, a bad '->' or '.', an output label repeated or never used,
 *  missing '...' for extra dimensions) and n < 1; ND_ERR_SHAPE for
 *  extents that disagree ("dimensions in operand 0 for collapsing index
 *  'i' don't match (2 != 3)", "operands could not be broadcast together
 *  ..."); ND_ERR_DEVICE for operands on different devices;
 *  ND_ERR_UNSUPPORTED when an intermediate would exceed ND_MAX_DIMS. */
ND_API nd_status nd_einsum(nd_array **out, const char *subscripts, int n, const nd_array *const *operands);

/* ------------------------------------------------------------------ */
/* Linear algebra (numpy.linalg)                                       */
/* ------------------------------------------------------------------ */
/*
 * numpy.linalg on both backends: LAPACK (of the BLAS the build chose,
 * docs/blas.md) on the CPU, cuSOLVER on CUDA. Every function works on the last
 * two axes as matrices and is batched over the leading ones, which
 * broadcast between operands as NumPy's gufuncs do.
 *
 * dtypes: float32, float64, complex64, complex128 compute in their own
 * precision; float16/bfloat16 compute in float32 and give float32
 * (NumPy refuses float16: we follow CuPy and compute in float32); bool and
 * integers compute in float64. Results that NumPy gives real (singular
 * values, eigh's eigenvalues, norms, slogdet's logabsdet) are the real
 * dtype of that precision; eig/eigvals always give complex.
 *
 * Errors as NumPy's LinAlgError: ND_ERR_INVALID with "singular matrix"
 * (solve, inv: "nd_linalg_solve: singular matrix (batch 3)"), "matrix is
 * not positive definite" (cholesky), "SVD did not converge" /
 * "eigenvalues did not converge" (svd, eig, eigh, lstsq, pinv,
 * matrix_rank, cond with ord 2/-2/none); ND_ERR_SHAPE for a non-square
 * matrix where a square one is needed ("last 2 dimensions of the array
 * must be square") and fewer than 2 dimensions; ND_ERR_DTYPE for dtypes
 * outside the list above. Never a NaN result where NumPy raises. Empty
 * matrices give NumPy's results (det of 0x0 is 1, inv of 0x0 is 0x0).
 * Non-finite input, as NumPy: a NaN where an SVD is taken (svd, svdvals,
 * lstsq, pinv, matrix_rank, cond, the 2 / nuc norms) is "SVD did not
 * converge", any NaN or infinity in eig/eigvals "Array must not contain
 * infs or NaNs"; the other functions compute (NaN results).
 *
 * Results follow the usual out-pointer rule (*out NULL: a new array).
 */
/** np.linalg.solve(a, b): x with a @ x = b. a (..., n, n); b (..., n, k)
 *  or, NumPy 2, (n,) as a vector (then x is (..., n)). */
ND_API nd_status nd_linalg_solve(nd_array **out, const nd_array *a, const nd_array *b);
/** np.linalg.inv(a). */
ND_API nd_status nd_linalg_inv(nd_array **out, const nd_array *a);
/** np.linalg.det(a): shape (...) (0-d for one matrix). */
ND_API nd_status nd_linalg_det(nd_array **out, const nd_array *a);
/** np.linalg.slogdet(a): sign (a's dtype: +-1, 0 for singular, a unit
 *  complex number for complex a) and logabsdet (real; -inf for singular). */
ND_API nd_status nd_linalg_slogdet(nd_array **sign, nd_array **logabsdet, const nd_array *a);
/** np.linalg.cholesky(a, upper=upper): L with a = L L^H (upper: U = L^H,
 *  a = U^H U). Only the lower triangle of a is read (upper: the upper);
 *  NumPy's LinAlgError "Matrix is not positive definite" when a is not. */
ND_API nd_status nd_linalg_cholesky(nd_array **out, const nd_array *a, bool upper);
/** Modes of nd_linalg_qr (NumPy's mode=). */
typedef enum nd_linalg_qr_mode { ND_QR_REDUCED = 0, ND_QR_COMPLETE = 1, ND_QR_R = 2 } nd_linalg_qr_mode;
/** np.linalg.qr(a, mode): a (..., M, N) = Q R with K = min(M, N); reduced:
 *  Q (..., M, K), R (..., K, N); complete: Q (..., M, M), R (..., M, N);
 *  ND_QR_R: R only (q may be NULL and is not touched). */
ND_API nd_status nd_linalg_qr(nd_array **q, nd_array **r, const nd_array *a, nd_linalg_qr_mode mode);
/** np.linalg.svd(a, full_matrices): a = U diag(S) Vh, S real, descending;
 *  full_matrices: U (..., M, M), Vh (..., N, N); else U (..., M, K),
 *  Vh (..., K, N). */
ND_API nd_status nd_linalg_svd(nd_array **u, nd_array **s, nd_array **vh, const nd_array *a, bool full_matrices);
/** np.linalg.svdvals(a) (svd(a, compute_uv=False)): S (..., K). */
ND_API nd_status nd_linalg_svdvals(nd_array **s, const nd_array *a);
/** np.linalg.eigh(a, UPLO): eigenvalues w (real, ascending) and the
 *  eigenvectors as the columns of v, of the Hermitian (symmetric) a of
 *  which only the triangle uplo ('L' or 'U') is read. */
ND_API nd_status nd_linalg_eigh(nd_array **w, nd_array **v, const nd_array *a, char uplo);
/** np.linalg.eigvalsh(a, UPLO). */
ND_API nd_status nd_linalg_eigvalsh(nd_array **w, const nd_array *a, char uplo);
/** np.linalg.eig(a): the eigenvalues w (complex, in LAPACK's order) and
 *  the right eigenvectors as the columns of v (complex, each of unit
 *  2-norm with its largest component real). Always complex, where NumPy
 *  gives a real result when every eigenvalue is real (the array API's
 *  choice; a real result would make the dtype depend on values). */
ND_API nd_status nd_linalg_eig(nd_array **w, nd_array **v, const nd_array *a);
/** np.linalg.eigvals(a): as nd_linalg_eig without v. */
ND_API nd_status nd_linalg_eigvals(nd_array **w, const nd_array *a);
/** np.linalg.lstsq(a, b, rcond): a 2-D (M, N), b (M,) or (M, K): the x
 *  minimising |b - a x|_2 (minimum norm), residuals (the squared norms of
 *  b - a x per column: (K,) or (1,) for a 1-D b, and (0,) unless rank == N
 *  and M > N), the rank of a and its singular values s (min(M, N),).
 *  Singular values at most rcond * the largest count as zero; rcond < 0
 *  takes NumPy 2's default eps(dtype) * max(M, N). residuals, rank and s
 *  may be NULL. */
ND_API nd_status nd_linalg_lstsq(nd_array **x, nd_array **residuals, int64_t *rank, nd_array **s, const nd_array *a,
                                 const nd_array *b, double rcond);
/** np.linalg.pinv(a, rtol=rcond, hermitian): the Moore-Penrose
 *  pseudo-inverse; singular values at most rcond * the largest are
 *  dropped; rcond < 0 takes NumPy's default (1e-15). */
ND_API nd_status nd_linalg_pinv(nd_array **out, const nd_array *a, double rcond, bool hermitian);
/** np.linalg.matrix_rank(a, tol, hermitian): the number of singular
 *  values above tol (tol < 0: S.max * max(M, N) * eps, NumPy's default);
 *  int64 of shape (...); a 1-D a (or 0-d) is rank 1 unless all zero, as
 *  NumPy. */
ND_API nd_status nd_linalg_matrix_rank(nd_array **out, const nd_array *a, double tol, bool hermitian);

/** The ord of a norm: a number p (any real for vectors, INFINITY and
 *  -INFINITY included; 1, -1, 2, -2, INFINITY, -INFINITY for matrices), or
 *  one of NumPy's named ords. */
typedef enum nd_norm_kind { ND_NORM_DEFAULT = 0, ND_NORM_P = 1, ND_NORM_FRO = 2, ND_NORM_NUC = 3 } nd_norm_kind;
typedef struct nd_norm_ord {
    nd_norm_kind kind; /* DEFAULT: NumPy's ord=None; P: the number p; FRO: 'fro'; NUC: 'nuc' */
    double p;
} nd_norm_ord;
/** ord = p. */
static inline nd_norm_ord nd_norm_p(double p) { nd_norm_ord o; o.kind = ND_NORM_P; o.p = p; return o; }
/** ord = None, 'fro', 'nuc'. */
static inline nd_norm_ord nd_norm_named(nd_norm_kind kind) { nd_norm_ord o; o.kind = kind; o.p = 0; return o; }
/** np.linalg.norm(a, ord, axis, keepdims): naxes -1 with axes NULL is
 *  axis=None (ord DEFAULT: the 2-norm of the flattened a; else a must be
 *  1-D or 2-D); naxes 1 a vector norm, naxes 2 a matrix norm over those
 *  axes. Real result (float64 for integers). */
ND_API nd_status nd_linalg_norm(nd_array **out, const nd_array *a, nd_norm_ord ord, int naxes, const int *axes,
                                bool keepdims);
/** np.linalg.vector_norm(x, axis, keepdims, ord): ord any real or
 *  +-INFINITY (0 counts the nonzeros); naxes -1 (axes NULL) is every axis. */
ND_API nd_status nd_linalg_vector_norm(nd_array **out, const nd_array *a, double ord, int naxes, const int *axes,
                                       bool keepdims);
/** np.linalg.matrix_norm(x, keepdims, ord) over the last two axes (ord
 *  DEFAULT is 'fro'). */
ND_API nd_status nd_linalg_matrix_norm(nd_array **out, const nd_array *a, nd_norm_ord ord, bool keepdims);
/** np.linalg.cond(a, p): norm(a, p) * norm(inv(a), p); DEFAULT, 2 and -2
 *  from the singular values (inf for singular a, as NumPy). */
ND_API nd_status nd_linalg_cond(nd_array **out, const nd_array *a, nd_norm_ord ord);
/** np.linalg.matrix_power(a, n): n >= 0 by repeated squaring (n = 0: the
 *  identity), n < 0 the power of inv(a); integer a stays integer for
 *  n >= 0, as NumPy. */
ND_API nd_status nd_linalg_matrix_power(nd_array **out, const nd_array *a, int64_t n);
/** np.linalg.multi_dot(arrays): the product of n >= 2 arrays (the first
 *  may be 1-D: a row vector; the last 1-D: a column vector; the others
 *  2-D) in the cheapest order (the matrix-chain dynamic programme). */
ND_API nd_status nd_linalg_multi_dot(nd_array **out, int n, const nd_array *const *arrays);
/** np.linalg.cross(a, b, axis): the cross product of 3-vectors along axis
 *  (which must have extent 3 in both; the other axes broadcast). */
ND_API nd_status nd_linalg_cross(nd_array **out, const nd_array *a, const nd_array *b, int axis);
/** np.linalg.vecdot(a, b, axis): sum(conj(a) * b) along axis (the other
 *  axes broadcast; extents along axis must match). */
ND_API nd_status nd_linalg_vecdot(nd_array **out, const nd_array *a, const nd_array *b, int axis);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_LINALG_H */
