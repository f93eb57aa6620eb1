/* Linear algebra: the contract of the backend slot `la`
 * (src/core/backend.h) shared by the core (src/linalg/) and both
 * backends (src/cpu/lapack.c over the Fortran LAPACK symbols OpenBLAS
 * exports; src/cuda/solver.cu over cuSOLVER, with the emulated device's
 * stand-in in tests/emu/cusolver_emu.cpp).
 *
 * Matrix storage: LAPACK's. Every matrix operand is a C-contiguous 3-D
 * nd_array (batch, cols, rows) on the backend's device: matrix i of the
 * batch stored column-major with leading dimension = rows. So an m x n
 * matrix A is an array of shape (batch, n, m) whose element [i, j, r] is
 * A_i[r, j]. The core makes these layouts (transposed copies); backends
 * never see other strides. The core allocates every stack with 4 KiB of
 * slack after its data (nd__la_pack), as the CPU backend does for its
 * workspaces: OpenBLAS 0.3.21's zgemv_n (under zheevd) crashed as if it
 * read past the end of an operand that ended a mapping, in about 1 full
 * test run in 10. All operands of one call have batch >= 1
 * matrices (the core never calls with an empty batch or a 0 extent, it
 * answers those itself) and are disjoint.
 *
 * dtypes: a is float32, float64, complex64 or complex128; "real(a)" below
 * is float32 for float32/complex64, float64 for float64/complex128;
 * "cpx(a)" is complex64 for float32/complex64, complex128 otherwise.
 *
 * info: host memory, batch entries, written by the backend for every
 * matrix (0: success; the meaning of > 0 per op below). A GPU backend
 * copies it back (the one wait of the call). The backend returns ND_OK
 * when the vendor calls succeeded, whatever info says: the core turns
 * info into LinAlgError messages with the batch index.
 *
 * Ops (call->op):
 *   ND_LA_GETRF  LU with partial pivoting of square a (batch, n, n), m == n,
 *                in place: the unit lower L below the diagonal, U on and
 *                above. ipiv int32 (batch, n) receives LAPACK's 1-based
 *                pivots (row i was swapped with row ipiv[i]). info = j > 0:
 *                U(j, j) (1-based) is exactly zero (the factorisation is
 *                complete all the same).
 *   ND_LA_GESV   solve a x = b: a (batch, n, n) in place (its LU factors),
 *                b (batch, nrhs, n) (n x nrhs) in place: x. info = j > 0:
 *                singular (x unspecified for that matrix).
 *   ND_LA_POTRF  Cholesky a = L L^H of Hermitian positive definite a
 *                (batch, n, n), reading its lower triangle only; in place:
 *                L, with the strictly upper triangle set to zero by the
 *                backend. info = j > 0: the leading minor of order j is not
 *                positive definite (a unspecified for that matrix).
 *   ND_LA_GEQRF  Householder QR of a (batch, n, m) (m x n) in place
 *                (LAPACK's geqrf form: R on and above the diagonal, the
 *                reflectors below); tau (batch, k), k = min(m, n), a's
 *                dtype. info always 0.
 *   ND_LA_ORGQR  Q from GEQRF's output: a (batch, nq, m) (m x nq, k <= nq
 *                <= m) whose first k = call->k columns hold the
 *                reflectors (the rest anything), tau (batch, k); in place:
 *                the first nq columns of Q (orgqr / ungqr). info always 0.
 *   ND_LA_GESVD  singular values of a (batch, n, m) (m x n; destroyed):
 *                w real(a) (batch, k) descending; job ND_LA_JOB_N: u and vt
 *                NULL; ND_LA_JOB_S: u (batch, k, m) (m x k) and vt (batch,
 *                n, k) (k x n); ND_LA_JOB_A: u (batch, m, m) and vt (batch,
 *                n, n). u's columns and vt's rows are the singular vectors
 *                (a = u diag(w) vt). info > 0: did not converge.
 *   ND_LA_SYEVD  eigenvalues of Hermitian a (batch, n, n) reading the
 *                triangle `lower` (true: lower) only: w real(a) (batch, n)
 *                ascending; job ND_LA_JOB_V: a receives the orthonormal
 *                eigenvectors as its columns; ND_LA_JOB_N: a destroyed.
 *                info > 0: did not converge.
 *   ND_LA_GEEV   eigenvalues of general a (batch, n, n) (destroyed): w
 *                cpx(a) (batch, n) in LAPACK's order (for real a, complex
 *                pairs adjacent, positive imaginary part first); job
 *                ND_LA_JOB_V: u cpx(a) (batch, n, n) receives the right
 *                eigenvectors as columns, each of unit 2-norm with its
 *                largest component real (LAPACK's normalisation; for real
 *                a the backend expands LAPACK's packed pairs into complex
 *                columns); ND_LA_JOB_N: u NULL. info > 0: did not converge.
 *
 * Workspaces (LAPACK's query, cuSOLVER's bufferSize) come from the
 * backend's pool. A backend may run the matrices of a batch in parallel.
 * Errors: ND_ERR_NOMEM (workspace), ND_ERR_BACKEND (the vendor library,
 * with a message naming the routine and its status); the core prefixes
 * the public function's name. */
#ifndef ND_LA_H
#define ND_LA_H
#include "shared/dtype.h"

enum {
    ND_LA_GETRF = 0,
    ND_LA_GESV,
    ND_LA_POTRF,
    ND_LA_GEQRF,
    ND_LA_ORGQR,
    ND_LA_GESVD,
    ND_LA_SYEVD,
    ND_LA_GEEV,
    ND_LA_NUM_OPS
};

/* call->job */
enum { ND_LA_JOB_N = 0, ND_LA_JOB_V = 1, ND_LA_JOB_S = 2, ND_LA_JOB_A = 3 };

typedef struct nd_la_call {
    int op;         /* ND_LA_* */
    int job;        /* ND_LA_JOB_* (GESVD, SYEVD, GEEV) */
    bool lower;     /* SYEVD: the triangle read */
    int64_t batch;  /* matrices, >= 1 */
    int64_t m, n;   /* rows and columns of each matrix of a, >= 1 */
    int64_t nrhs;   /* GESV: columns of b */
    int64_t k;      /* ORGQR: reflectors */
    nd_array *a;    /* every op */
    nd_array *b;    /* GESV */
    nd_array *w;    /* GESVD, SYEVD, GEEV */
    nd_array *u;    /* GESVD (u), GEEV (right vectors) */
    nd_array *vt;   /* GESVD */
    nd_array *ipiv; /* GETRF: int32 (batch, n) */
    nd_array *tau;  /* GEQRF (out), ORGQR (in) */
    int32_t *info;  /* host, batch entries */
} nd_la_call;

/* The real and complex dtypes of a's precision ("real(a)", "cpx(a)"). */
static inline nd_dtype nd__la_real(nd_dtype t)
{
    return t == ND_FLOAT32 || t == ND_COMPLEX64 ? ND_FLOAT32 : ND_FLOAT64;
}
static inline nd_dtype nd__la_cpx(nd_dtype t)
{
    return t == ND_FLOAT32 || t == ND_COMPLEX64 ? ND_COMPLEX64 : ND_COMPLEX128;
}

#endif
