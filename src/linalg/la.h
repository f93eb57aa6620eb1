/* The shared machinery of numpy.linalg's decompositions:
 * dtype rules, validation, the column-major stacks the backend slot `la`
 * wants (src/shared/la_slots.h), the slot call with its info turned into LinAlgError
 * messages, and a multi-output out-transaction. Implemented in
 * src/linalg/la.c; used by src/linalg/decomp.c (the public functions).
 * Everything here is device-neutral: nd_* ops and the slot only. */
#ifndef ND_LINALG_LA_H
#define ND_LINALG_LA_H
#include "shared/la_slots.h"
#include "core/out.h"

/* The dtype the decompositions compute in for an operand of dtype t:
 * float32/float64/complex64/complex128 keep theirs, float16/bfloat16 ->
 * float32, bool and integers -> float64; anything else ND_ERR_DTYPE naming
 * fn and the operand. */
ND_INTERNAL nd_status nd__la_ctype(const char *fn, const nd_array *a, const char *name, nd_dtype *ct);
/* NumPy's _commonType of two computing dtypes: complex if either is,
 * double precision if either is. */
static inline nd_dtype nd__la_join(nd_dtype x, nd_dtype y)
{
    const bool cpx = nd__is_complex(x) || nd__is_complex(y);
    const bool dbl = nd__la_real(x) == ND_FLOAT64 || nd__la_real(y) == ND_FLOAT64;
    return cpx ? (dbl ? ND_COMPLEX128 : ND_COMPLEX64) : (dbl ? ND_FLOAT64 : ND_FLOAT32);
}
/* a non-NULL with ndim >= 2 (ND_ERR_SHAPE "N-dimensional array given.
 * Array must be at least two-dimensional") and, with square, square last
 * two axes (ND_ERR_SHAPE "last 2 dimensions of the array must be
 * square"); then the dtype (ct may be NULL). */
ND_INTERNAL nd_status nd__la_check(const char *fn, const nd_array *a, const char *name, bool square, nd_dtype *ct);
/* The la slot of dev's backend exists (ND_ERR_UNSUPPORTED otherwise). */
ND_INTERNAL nd_status nd__la_ready(const char *fn, nd_device dev);
/* The number of matrices: the product of the leading ndim - 2 extents. */
ND_INTERNAL int64_t nd__la_batch(const nd_array *a);
/* A view of a with its last two axes swapped. */
ND_INTERNAL nd_status nd__la_swap(nd_array **v, const nd_array *a);
/* A view of a (any ndim >= 2) as a 3-D (batch, rows, cols) stack (a must
 * be C-contiguous), or as 2-D (batch, last) when two is set. */
ND_INTERNAL nd_status nd__la_flat(nd_array **v, const nd_array *a, bool two);
/* A new C-contiguous array of dtype ct with shape bshape (nb leading
 * extents) + the last two axes of a (swapped when swap), filled with a
 * broadcast to bshape (transposed when swap; never conjugated). With
 * swap, matrix i of the result viewed as (batch, cols, rows) is the
 * column-major stack of the slot. */
ND_INTERNAL nd_status nd__la_pack(nd_array **out, const nd_array *a, int nb, const int64_t *bshape, nd_dtype ct,
                                  bool swap);
/* Run the slot (call->info must point at call->batch int32s); the
 * backend's failure is prefixed with fn. */
ND_INTERNAL nd_status nd__la_exec(const char *fn, nd_la_call *c);
/* ND_ERR_INVALID "fn: what (batch i)" for the first matrix whose info is
 * > 0, else ND_OK. */
ND_INTERNAL nd_status nd__la_info(const char *fn, const int32_t *info, int64_t batch, const char *what);
/* Whether any info entry is > 0. */
ND_INTERNAL bool nd__la_any_info(const int32_t *info, int64_t batch);

/* The out-transaction of a function with several results (each an
 * out-pointer following the out rule; a NULL out-pointer is an output the
 * caller does not want). All are begun (checked or allocated) before any
 * work, written with nd__la_put once everything is computed, and ended
 * together: on failure every fresh result is released and every given
 * *out stays untouched (apart from a failing copy at the very end). */
#define ND_LA_MAX_OUTS 4
typedef struct nd_la_outs {
    const char *fn;
    int n;
    nd_out t[ND_LA_MAX_OUTS];
    bool on[ND_LA_MAX_OUTS];
} nd_la_outs;
ND_INTERNAL void nd__la_outs_init(nd_la_outs *o, const char *fn);
/* Append result number o->n (out may be NULL: not wanted). */
ND_INTERNAL nd_status nd__la_out(nd_la_outs *o, nd_array **out, nd_dtype dtype, int ndim, const int64_t *shape,
                                 nd_device dev);
/* The result array of output i (NULL when not wanted). */
static inline nd_array *nd__la_res(const nd_la_outs *o, int i) { return o->on[i] ? o->t[i].res : NULL; }
/* Copy val (its shape broadcastable to the result's; any dtype) into
 * output i; nothing when output i is not wanted or empty. */
ND_INTERNAL nd_status nd__la_put(nd_la_outs *o, int i, const nd_array *val);
/* Output i = v everywhere (NumPy's answer for empty matrices). */
ND_INTERNAL nd_status nd__la_put_value(nd_la_outs *o, int i, double v);
/* Output i (..., n, n) = identity matrices. */
ND_INTERNAL nd_status nd__la_put_eye(nd_la_outs *o, int i);
/* Finish every output with status st (see above); messages prefixed with fn. */
ND_INTERNAL nd_status nd__la_outs_end(nd_la_outs *o, nd_status st);

/* eps of a real dtype (float32 or float64). */
static inline double nd__la_eps(nd_dtype rt) { return rt == ND_FLOAT32 ? 1.1920928955078125e-07 : 2.220446049250313e-16; }
static inline int64_t nd__la_prod(int n, const int64_t *s)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++) p *= s[i];
    return p;
}
/* ND_ERR_DEVICE when a and b are on different devices. */
ND_INTERNAL nd_status nd__la_same_device(const char *fn, const nd_array *a, const nd_array *b);
/* axis ax of an nd-dimensional array as 0..nd-1 in *res; ND_ERR_SHAPE
 * ("axis 3 is out of bounds for array of dimension 2") otherwise. */
ND_INTERNAL nd_status nd__la_norm_axis(const char *fn, int ax, int nd, int *res);
static const int ND_LA_LAST[1] = {-1};
#define ND_LA_REL(x) do { nd_release(x); (x) = NULL; } while (0)

/* A C-contiguous array a viewed with another shape of the same size. */
ND_INTERNAL nd_status nd__la_reshaped(nd_array **v, const nd_array *a, int ndim, const int64_t *shape);
/* A fresh array of dtype t with shape bshape (nb axes) + tail (nt axes). */
ND_INTERNAL nd_status nd__la_alloc_bt(nd_array **out, nd_dtype t, int nb, const int64_t *bshape, int nt,
                                      const int64_t *tail, nd_device dev);
/* One slot call (src/shared/la_slots.h) on full-batch-shape C-contiguous operands
 * (flattened to the slot's 3-D/2-D stacks here); *info_out (batch
 * entries, the caller frees) on success. */
typedef struct nd_la_args {
    int op, job;
    bool lower;
    int64_t m, n, nrhs, k;
    nd_array *a, *b, *w, *u, *vt, *ipiv, *tau; /* full batch shapes, C-contiguous */
} nd_la_args;
ND_INTERNAL nd_status nd__la_run(const char *fn, const nd_la_args *x, int64_t batch, int32_t **info_out);
/* GESV of the packed stacks A (bs, n, n) and B (bs, k, n), both
 * destroyed (B receives x column-major); info to the caller. */
ND_INTERNAL nd_status nd__la_gesv(const char *fn, nd_array *A, nd_array *B, int64_t batch, int64_t n, int64_t k,
                                  int32_t **info);
/* Identity matrices (bs..., n, n) of dtype t. */
ND_INTERNAL nd_status nd__la_eyes(nd_array **out, nd_dtype t, int nb, const int64_t *bs, int64_t n, nd_device dev);
/* The inverses of the non-empty square stack a (computed in ct) in the
 * row-major X (a's shape, C-contiguous); info to the caller, who judges
 * singular matrices. */
ND_INTERNAL nd_status nd__la_inv_stack(const char *fn, nd_array **X, const nd_array *a, nd_dtype ct, int32_t **info);
/* *bad = whether the packed stack A holds a NaN (nan_only) or any
 * non-finite value (one pass, one byte read back). */
ND_INTERNAL nd_status nd__la_nonfinite(const nd_array *A, bool nan_only, bool *bad);
/* GESVD of the non-empty stack a (ct): S (bs, K) real descending; with job
 * S/A also U (bs, ucols, M) and VT (bs, N, vrows), column-major (read them
 * through nd__la_swap). Non-convergence: "SVD did not converge". */
ND_INTERNAL nd_status nd__la_svd_stack(const char *fn, const nd_array *a, nd_dtype ct, int job, nd_array **U,
                                       nd_array **S, nd_array **VT);
/* SYEVD of the non-empty square stack a (ct), triangle `lower`: W (bs, n)
 * real ascending; with vectors, V (bs, n, n) holding them as columns,
 * column-major. "eigenvalues did not converge". */
ND_INTERNAL nd_status nd__la_eigh_stack(const char *fn, const nd_array *a, nd_dtype ct, bool lower, bool vectors,
                                        nd_array **W, nd_array **V);
/* The singular values (bs, K) of the non-empty stack a: GESVD's, or |w|
 * of the lower-triangle eigvalsh when hermitian (then unordered). */
ND_INTERNAL nd_status nd__la_svals(const char *fn, const nd_array *a, nd_dtype ct, bool hermitian, nd_array **S);

#endif
