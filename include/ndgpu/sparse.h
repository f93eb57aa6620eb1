/*
 * libndgpu: sparse matrices (scipy.sparse's csr/csc/coo arrays).
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h and
 * ndgpu/elementwise.h for the op enums).
 *
 * An nd_sparse is an opaque, 2-D matrix in one of three formats:
 *
 *   ND_SPARSE_CSR  rows compressed: indptr (rows + 1), indices (column of
 *                  each entry), data;
 *   ND_SPARSE_CSC  columns compressed: indptr (cols + 1), indices (row of
 *                  each entry), data;
 *   ND_SPARSE_COO  triplets: row, col, data (duplicates allowed).
 *
 * Its parts are ordinary 1-D C-contiguous nd_arrays on the matrix's device
 * (nd_sparse_part_get hands out references), of one index dtype (int32 or
 * int64) and one value dtype (float16, bfloat16, float32, float64,
 * complex64, complex128).
 * Constructors pick scipy's index dtype: int32 when the shape and the
 * number of entries fit, int64 otherwise; nd_sparse_compressed keeps the
 * one it is given.
 *
 * As in scipy, a CSR/CSC matrix may hold unsorted and duplicate indices
 * (duplicates add up wherever the matrix is read); "canonical" means
 * sorted with no duplicates. nd_sparse_sum_duplicates, _sort_indices and
 * _eliminate_zeros change a matrix in place (they replace its parts; parts
 * handed out before keep their old contents).
 *
 * float16 and bfloat16 values (those cuSPARSE takes) are stored as such
 * and computed in float32: SpMV/SpMM accumulate in float32 (on CUDA,
 * cuSPARSE with CUDA_R_16F/CUDA_R_16BF values and compute type
 * CUDA_R_32F), and every other operation (conversions, canonical forms,
 * sums, SpGEMM, +, -, products, to/from dense) runs on float32 copies of
 * the values and rounds its result to the value dtype once. Left out for
 * them: the solvers (float32/float64, as scipy's), and bfloat16 in .npz
 * files (it has no NumPy dtype; float16 files are read and written).
 *
 * Devices: every operation runs on the matrix's device; operands must share
 * it (ND_ERR_DEVICE otherwise). Computing operations need the device's
 * sparse kernels (the CPU has them); elsewhere they answer
 * ND_ERR_UNSUPPORTED, while construction from validated parts, transfers,
 * transposes, parts and value maps work on every device.
 *
 * Ownership: every nd_sparse * a function gives you is yours; release it
 * with nd_sparse_release (NULL is fine). Functions that return a dense
 * array follow the library's out-pointer rule (*out NULL: allocated; else
 * written into, same_kind casting). On failure nothing is leaked and *out
 * is untouched; nd_last_error() names the function and the problem.
 */
#ifndef NDGPU_SPARSE_H
#define NDGPU_SPARSE_H

#include "core.h"
#include "elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nd_sparse nd_sparse;

typedef enum nd_sparse_format { ND_SPARSE_CSR = 0, ND_SPARSE_CSC = 1, ND_SPARSE_COO = 2 } nd_sparse_format;

/** The parts of a matrix: DATA (every format); INDICES and INDPTR
 * (CSR/CSC); ROW and COL (COO). */
typedef enum nd_sparse_part {
    ND_SPARSE_DATA = 0,
    ND_SPARSE_INDICES,
    ND_SPARSE_INDPTR,
    ND_SPARSE_ROW,
    ND_SPARSE_COL
} nd_sparse_part;

/* ---- construction ---- */
/** The nonzeros of the 2-D dense array a (a value dtype; any strides), in
 * format fmt, canonical (scipy's csr_array(a)). */
ND_API nd_status nd_sparse_from_dense(nd_sparse **out, const nd_array *a, nd_sparse_format fmt);
/** A COO matrix of shape (rows, cols) holding the entries (row[i], col[i],
 * data[i]) as given (duplicates kept, as scipy's coo_array((data, (row,
 * col)))). row and col: 1-D integer arrays of data's size, every value in
 * range (ND_ERR_INVALID names the first bad one); copied. */
ND_API nd_status nd_sparse_coo(nd_sparse **out, const nd_array *data, const nd_array *row, const nd_array *col,
                               int64_t rows, int64_t cols);
/** The same triplets as a canonical matrix in format fmt: duplicates
 * summed (a sum that is zero stays stored, as in scipy's tocsr()). */
ND_API nd_status nd_sparse_from_triplets(nd_sparse **out, nd_sparse_format fmt, const nd_array *data,
                                         const nd_array *row, const nd_array *col, int64_t rows, int64_t cols);
/** A CSR (fmt ND_SPARSE_CSR) or CSC matrix from its parts, validated as
 * scipy's check_format(full_check=True) does: indices and indptr of one
 * int32/int64 dtype, indptr of (major + 1) entries starting at 0, never
 * decreasing and ending at nnz = the size of indices and of data, every
 * index in [0, minor). Unsorted and duplicate indices are allowed (and
 * remembered: nd_sparse_has_canonical_format). The parts are referenced
 * when 1-D C-contiguous, copied otherwise. */
ND_API nd_status nd_sparse_compressed(nd_sparse **out, nd_sparse_format fmt, const nd_array *data,
                                      const nd_array *indices, const nd_array *indptr, int64_t rows, int64_t cols);
/** Release a matrix and its references to its parts (NULL is fine). */
ND_API void nd_sparse_release(nd_sparse *s);

/* ---- inspection ---- */
/** Format, shape, stored entries (duplicates and explicit zeros count, as
 * scipy's nnz), value and index dtypes, device. s must not be NULL
 * (nd_sparse_nnz returns -1 then). */
ND_API nd_sparse_format nd_sparse_format_of(const nd_sparse *s);
/** The number of rows (-1 for NULL). */
ND_API int64_t nd_sparse_rows(const nd_sparse *s);
/** The number of columns (-1 for NULL). */
ND_API int64_t nd_sparse_cols(const nd_sparse *s);
/** The stored entries, duplicates and explicit zeros included (-1 for NULL). */
ND_API int64_t nd_sparse_nnz(const nd_sparse *s);
/** The value dtype. */
ND_API nd_dtype nd_sparse_dtype(const nd_sparse *s);
/** The index dtype (int32 or int64). */
ND_API nd_dtype nd_sparse_index_dtype(const nd_sparse *s);
/** The device holding the parts. */
ND_API nd_device nd_sparse_device(const nd_sparse *s);
/** *part = a new reference to one part (ND_ERR_INVALID when the format has
 * no such part). */
ND_API nd_status nd_sparse_part_get(nd_array **part, const nd_sparse *s, nd_sparse_part which);
/** *result = whether s is canonical (COO: sorted by row, then column, no
 * duplicates), as scipy's has_canonical_format. */
ND_API nd_status nd_sparse_has_canonical_format(const nd_sparse *s, bool *result);

/* ---- conversions ---- */
/** The dense (rows, cols) array of s's value dtype (duplicates summed). */
ND_API nd_status nd_sparse_to_dense(nd_array **out, const nd_sparse *s);
/** s in format fmt (tocsr/tocsc/tocoo): COO to CSR/CSC sums duplicates
 * (canonical result); CSR <-> CSC keeps them (sorted result); to COO keeps
 * the entries in storage order. */
ND_API nd_status nd_sparse_convert(nd_sparse **out, const nd_sparse *s, nd_sparse_format fmt);
/** s^T: CSR <-> CSC sharing the parts, COO with row and col swapped. */
ND_API nd_status nd_sparse_transpose(nd_sparse **out, const nd_sparse *s);
/** A copy of s on device dev. */
ND_API nd_status nd_sparse_to_device(nd_sparse **out, const nd_sparse *s, nd_device dev);
/** In place: sort each row's (CSR) / column's (CSC) / the matrix's (COO)
 * entries and add up duplicates (a zero sum stays stored). */
ND_API nd_status nd_sparse_sum_duplicates(nd_sparse *s);
/** In place: sort indices within each row/column, duplicates kept (COO:
 * by row, then column). */
ND_API nd_status nd_sparse_sort_indices(nd_sparse *s);
/** In place: drop stored entries equal to zero. */
ND_API nd_status nd_sparse_eliminate_zeros(nd_sparse *s);

/* ---- operations ---- */
/** s @ b for dense b: 1-D (cols,) -> (rows,) (SpMV) or 2-D (cols, k) ->
 * (rows, k) (SpMM); b has s's value dtype (float16/bfloat16: products and
 * sums in float32, each result rounded once). */
ND_API nd_status nd_sparse_matmul(nd_array **out, const nd_sparse *a, const nd_array *b);
/** a @ b of two sparse matrices (SpGEMM): canonical CSR; sums that cancel to
 * exactly zero are not stored (as scipy). */
ND_API nd_status nd_sparse_spgemm(nd_sparse **out, const nd_sparse *a, const nd_sparse *b);
/** a + b, a - b, a * b (elementwise) of two sparse matrices of one shape
 * and dtype: canonical CSR without stored zeros (scipy's binops). */
ND_API nd_status nd_sparse_add(nd_sparse **out, const nd_sparse *a, const nd_sparse *b);
/** a - b, as nd_sparse_add. */
ND_API nd_status nd_sparse_subtract(nd_sparse **out, const nd_sparse *a, const nd_sparse *b);
/** a * b elementwise, as nd_sparse_add. */
ND_API nd_status nd_sparse_multiply(nd_sparse **out, const nd_sparse *a, const nd_sparse *b);
/** a * d elementwise for a dense d broadcastable to a's shape (0-d, (cols,),
 * (rows, 1), (rows, cols)) of a's dtype: CSR with a's stored positions
 * (products equal to zero stay stored, as in scipy's multiply). */
ND_API nd_status nd_sparse_multiply_dense(nd_sparse **out, const nd_sparse *a, const nd_array *d);
/** op applied to the stored values (format and structure kept): only ops
 * with op(0) == 0 (neg, abs, sqrt, sin, expm1, ...: those scipy offers on
 * sparse matrices); ND_ERR_INVALID otherwise. The value dtype must be op's
 * result dtype for it. */
ND_API nd_status nd_sparse_unary(nd_sparse **out, nd_unary_op op, const nd_sparse *a);
/** values op s (multiply, divide, power, ...) under the same rule:
 * op(0, s) must be 0. */
ND_API nd_status nd_sparse_binary_scalar(nd_sparse **out, nd_binary_op op, const nd_sparse *a, nd_scalar s);
/** The sum over axis 0 (cols,), axis 1 (rows,) (-2 and -1 allowed), or
 * ND_AXIS_NONE: all (0-d); s's value dtype. */
ND_API nd_status nd_sparse_sum(nd_array **out, const nd_sparse *a, int axis);
/** The k-th diagonal (scipy's diagonal(k)): 1-D, duplicates summed. */
ND_API nd_status nd_sparse_diagonal(nd_array **out, const nd_sparse *a, int64_t k);
/** a[start:stop:step, :] with Python's slice rules (step != 0; negative
 * indices count from the end): CSR. */
ND_API nd_status nd_sparse_slice_rows(nd_sparse **out, const nd_sparse *a, int64_t start, int64_t stop, int64_t step);
/** a[idx, :] (axis 0) or a[:, idx] (axis 1) for a 1-D integer array idx
 * (negative counts from the end, repeats allowed; out of range:
 * ND_ERR_INVALID): CSR for axis 0, CSC for axis 1 (scipy's fancy indexing,
 * with the format that makes it a gather). */
ND_API nd_status nd_sparse_take(nd_sparse **out, const nd_sparse *a, const nd_array *idx, int axis);

/* ---- files (scipy.sparse.save_npz / load_npz) ---- */
/** Write s as scipy.sparse.save_npz(path, s) does, its default
 * compressed=True (a zip of DEFLATE-compressed .npy members, by zlib;
 * scipy.sparse.load_npz reads it as a csr/csc/coo array). Up to 3.75 GB of
 * parts (no zip64: ND_ERR_UNSUPPORTED beyond); bfloat16 values have no
 * NumPy dtype: ND_ERR_UNSUPPORTED, no file written. */
ND_API nd_status nd_sparse_save_npz(const char *path, const nd_sparse *s);
/** The same with stored (uncompressed) members, as
 * scipy.sparse.save_npz(path, s, compressed=False): faster to write and
 * read, larger. */
ND_API nd_status nd_sparse_save_npz_stored(const char *path, const nd_sparse *s);
/** Read a csr, csc or coo .npz file of scipy.sparse.save_npz (compressed or
 * not) into a matrix on the CPU (move it with nd_sparse_to_device). The
 * file is validated as a whole: zip structure, CRC-32 of every member,
 * the .npy headers, and the matrix as nd_sparse_compressed / nd_sparse_coo
 * validate it (ND_ERR_IO for a corrupt file, the constructor's code for a
 * bad matrix, ND_ERR_UNSUPPORTED for bsr/dia and for 2-byte void values,
 * the '<V2' of ml_dtypes' bfloat16). */
ND_API nd_status nd_sparse_load_npz(nd_sparse **out, const char *path);
/** The same from size bytes of memory. */
ND_API nd_status nd_sparse_load_npz_buffer(nd_sparse **out, const void *data, size_t size);

/* ---- iterative solvers (scipy.sparse.linalg.cg, .bicgstab) ---- */
/** What a solve did: iterations run, the final residual norm ||b - A x||_2
 * (the recurrence's), and whether it reached max(rtol ||b||, atol). */
typedef struct nd_sparse_solve_info {
    int64_t iterations;
    double residual;
    bool converged;
} nd_sparse_solve_info;
/** x with a x = b by conjugate gradients (a symmetric positive definite,
 * square; b 1-D of a's dtype, float32 or float64), from x0 (NULL: zeros),
 * until ||r|| <= max(rtol ||b||, atol) or maxiter iterations (maxiter <= 0:
 * 10 n, scipy's default). Not converging is not an error (scipy's info >
 * 0): info->converged says it. info may be NULL. Runs on a's device with
 * its SpMV and the library's vector operations. */
ND_API nd_status nd_sparse_cg(nd_array **out, const nd_sparse *a, const nd_array *b, const nd_array *x0, double rtol,
                              double atol, int64_t maxiter, nd_sparse_solve_info *info);
/** The same by BiCGSTAB (any nonsingular square a). A breakdown (rho or
 * omega exactly 0) ends the iteration unconverged. */
ND_API nd_status nd_sparse_bicgstab(nd_array **out, const nd_sparse *a, const nd_array *b, const nd_array *x0,
                                    double rtol, double atol, int64_t maxiter, nd_sparse_solve_info *info);

#ifdef __cplusplus
}
#endif
#endif
