/* The CPU backend's la slot (contract in src/shared/la_slots.h): batched
 * LAPACK over the Fortran symbols OpenBLAS exports (prototypes in
 * src/cpu/lapack.h; no LAPACKE, no new dependency).
 *
 * Decisions:
 *  - One routine per op, as NumPy: getrf (with scipy-openblas32 inside
 *    our blocked driver, la_lu below), gesv (as getrf + getrs), potrf
 *    ('L'), geqrf, orgqr/ungqr, gesdd (NumPy's svd; when it reports
 *    info > 0 the matrix is restored from a copy and ?gesvd_ tried, which
 *    converges in cases gesdd's divide and conquer does not),
 *    syevd/heevd, geev.
 *  - Workspaces: one LAPACK query (lwork = -1) per call (all matrices of
 *    a batch have the same shape), then one block per worker chunk from
 *    the library's allocator door (nd__aligned_alloc), freed on every
 *    path. Sizes that do not fit LAPACK's 32-bit INTEGER (a matrix, an
 *    operand or a workspace over INT_MAX elements) are ND_ERR_UNSUPPORTED
 *    before any call.
 *  - Threads: the matrices of a batch run one after the other on the
 *    calling thread. Small ones (under LA_PAR_FLOPS each) with OpenBLAS
 *    set to one thread meanwhile (nd__blas_single_begin: OpenBLAS 0.3.21 sends
 *    even a 4 x 4 getrs to its thread server: 256 gesv of 64 x 64 took
 *    131 ms that way, 16 ms single-threaded); large ones with OpenBLAS's
 *    threads, whose count is the library's (nd__blas_threads_sync, as
 *    matmul). Decision: NOT in parallel over the library's pool, although
 *    that was 2x faster on 2 cores for batches of medium matrices: LAPACK
 *    called from our pool's workers crashed in zgemv_n (zheevd -> zhetrd ->
 *    zlatrd) in about 1 run in 10 of the la_slot suite in a forked Check
 *    child of the CUDA-enabled build (never with the calls on the calling
 *    thread: 40 of 40). The batched LU / solve of n <= 16 (la_small.c,
 *    no OpenBLAS inside) stays threaded.
 *  - GETRF/GESV with n <= ND_LA_SMALL_N take the own kernel of
 *    src/cpu/la_small.c (call overhead dominates LAPACK there).
 *  - GEEV of real a: LAPACK's packed (wr, wi, vr) expanded into complex w
 *    and complex columns (pair j, j + 1: vr[:, j] +- i vr[:, j + 1]).
 *  - POTRF: the strictly upper triangle is zeroed here (potrf leaves it).
 *  - info < 0 (an illegal argument: a bug of ours) is ND_ERR_BACKEND
 *    naming the routine; info > 0 goes to call->info as LAPACK gave it. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "cpu/blas.h"

#include "core/alloc.h"
#include "cpu/cpu.h"
#include "cpu/lapack.h"
#include "shared/la_slots.h"

typedef nd_lapack_int li;

/* The same argument list for the s, d, c and z routine (void * operands). */
#define LA4(t, fs, fd, fc, fz, ...)                          \
    do {                                                     \
        switch (t) {                                         \
        case ND_FLOAT32: fs(__VA_ARGS__); break;             \
        case ND_FLOAT64: fd(__VA_ARGS__); break;             \
        case ND_COMPLEX64: fc(__VA_ARGS__); break;           \
        default: fz(__VA_ARGS__); break;                     \
        }                                                    \
    } while (0)
/* Real (s, d) or complex (c, z) pair, by precision. */
#define LA2(t, f32, f64, ...)                                                       \
    do {                                                                            \
        if ((t) == ND_FLOAT32 || (t) == ND_COMPLEX64) f32(__VA_ARGS__);             \
        else f64(__VA_ARGS__);                                                      \
    } while (0)

/* Matrices that cost less than this (flop estimate) run with OpenBLAS set
 * to one thread; bigger ones with OpenBLAS's threads. */
#define LA_PAR_FLOPS (256.0 * 256.0 * 256.0)

typedef struct {
    nd_la_call *c;
    nd_dtype t;
    bool cpx;
    size_t isz, rsz; /* bytes of an element of a, of its real type */
    li m, n, k, nrhs, kq;
    char jobz; /* GESVD: 'N' 'S' 'A'; SYEVD, GEEV: 'N' 'V' */
    char *a, *b, *w, *u, *vt, *tau;
    int32_t *ipiv;
    size_t sa, sb, sw, su, svt, stau; /* bytes per matrix */
    li lwork, lrwork, liwork;
    /* per-chunk scratch: byte offsets of its parts, and its size */
    size_t o_work, o_rwork, o_iwork, o_x, o_copy, scratch;
    double flops;
    atomic_int err; /* 0, ND_ERR_NOMEM or ND_ERR_BACKEND */
    char routine[16];
    int bad;
} la_job;

static char la_pfx(nd_dtype t)
{
    return t == ND_FLOAT32 ? 's' : t == ND_FLOAT64 ? 'd' : t == ND_COMPLEX64 ? 'c' : 'z';
}

static void la_fail(la_job *j, int code, const char *base, int info)
{
    int z = 0;
    if (atomic_compare_exchange_strong(&j->err, &z, code)) {
        snprintf(j->routine, sizeof j->routine, "%c%s_", la_pfx(j->t), base);
        j->bad = info;
    }
}

/* A workspace size from a query's work[0] (a float for s/c: round up). */
static int64_t la_lw(double v) { return v < 1 ? 1 : (int64_t)ceil(v * (1 + 1e-6)); }

static size_t la_al(size_t x) { return (x + 63) & ~(size_t)63; }

/* ------------------------------------------------------------------ */
/* Workspace queries (on matrix 0; nothing is written but work[0])     */
/* ------------------------------------------------------------------ */
static nd_status la_query(la_job *j)
{
    const nd_dtype t = j->t;
    li info = 0, q = -1, one = 1;
    double wq[2] = {0, 0}, rq = 0; /* work[0] (complex: 2 parts), rwork[0] */
    float wqf[2] = {0, 0}, rqf = 0;
    li iq = 0;
    const bool f32 = t == ND_FLOAT32 || t == ND_COMPLEX64;
    void *wp = f32 ? (void *)wqf : (void *)wq;
    void *rp = f32 ? (void *)&rqf : (void *)&rq;
    const char *base = "";
    int64_t lwork = 1, lrwork = 1, liwork = 1;
    void *A = j->a, *TAU = j->tau, *U = j->u;
    switch (j->c->op) {
    case ND_LA_GEQRF:
        base = "geqrf";
        LA4(t, sgeqrf_, dgeqrf_, cgeqrf_, zgeqrf_, &j->m, &j->n, A, &j->m, TAU, wp, &q, &info);
        break;
    case ND_LA_ORGQR:
        base = j->cpx ? "ungqr" : "orgqr";
        LA4(t, sorgqr_, dorgqr_, cungqr_, zungqr_, &j->m, &j->n, &j->kq, A, &j->m, TAU, wp, &q, &info);
        break;
    case ND_LA_GESVD: {
        base = "gesdd";
        li ldu = j->jobz == 'N' ? 1 : j->m, ldvt = j->jobz == 'A' ? j->n : j->jobz == 'S' ? j->k : 1;
        double du[2];
        void *u = j->jobz == 'N' ? (void *)du : j->u, *vt = j->jobz == 'N' ? (void *)du : j->vt;
        if (!j->cpx)
            LA2(t, sgesdd_, dgesdd_, &j->jobz, &j->m, &j->n, A, &j->m, (void *)j->w, u, &ldu, vt, &ldvt, wp, &q,
                &iq, &info, 1);
        else
            LA2(t, cgesdd_, zgesdd_, &j->jobz, &j->m, &j->n, A, &j->m, (void *)j->w, u, &ldu, vt, &ldvt, wp, &q,
                rp, &iq, &info, 1);
        if (info != 0) break;
        lwork = la_lw(f32 ? wqf[0] : wq[0]);
        /* the gesvd fallback's query */
        base = "gesvd";
        if (!j->cpx)
            LA2(t, sgesvd_, dgesvd_, &j->jobz, &j->jobz, &j->m, &j->n, A, &j->m, (void *)j->w, u, &ldu, vt,
                &ldvt, wp, &q, &info, 1, 1);
        else
            LA2(t, cgesvd_, zgesvd_, &j->jobz, &j->jobz, &j->m, &j->n, A, &j->m, (void *)j->w, u, &ldu, vt,
                &ldvt, wp, &q, rp, &info, 1, 1);
        int64_t k = j->k, mx = j->m > j->n ? j->m : j->n;
        liwork = 8 * k;
        lrwork = j->jobz == 'N' ? 7 * k : 5 * k * k + 5 * k;
        if (j->jobz != 'N' && 2 * mx * k + 2 * k * k + k > lrwork) lrwork = 2 * mx * k + 2 * k * k + k;
        break;
    }
    case ND_LA_SYEVD: {
        char uplo = j->c->lower ? 'L' : 'U';
        base = j->cpx ? "heevd" : "syevd";
        if (!j->cpx)
            LA2(t, ssyevd_, dsyevd_, &j->jobz, &uplo, &j->n, A, &j->n, (void *)j->w, wp, &q, &iq, &q, &info, 1, 1);
        else
            LA2(t, cheevd_, zheevd_, &j->jobz, &uplo, &j->n, A, &j->n, (void *)j->w, wp, &q, rp, &q, &iq, &q,
                &info, 1, 1);
        lrwork = la_lw(f32 ? rqf : rq);
        liwork = iq > 1 ? iq : 1;
        break;
    }
    case ND_LA_GEEV: {
        base = "geev";
        char n = 'N';
        li ldvr = j->jobz == 'V' ? j->n : 1;
        double dv[2];
        /* w (complex, n per matrix) has room for wr and wi */
        void *wr = j->w, *wi = j->w + (size_t)j->n * j->rsz;
        if (!j->cpx)
            LA2(t, sgeev_, dgeev_, &n, &j->jobz, &j->n, A, &j->n, wr, wi, (void *)dv, &one, U, &ldvr, wp, &q,
                &info, 1, 1);
        else
            LA2(t, cgeev_, zgeev_, &n, &j->jobz, &j->n, A, &j->n, j->w, (void *)dv, &one,
                j->jobz == 'V' ? U : (void *)dv, &ldvr, wp, &q, rp, &info, 1, 1);
        lrwork = j->cpx ? 2 * (int64_t)j->n : 1;
        break;
    }
    default: return ND_OK; /* GETRF, GESV, POTRF: no work array */
    }
    if (info != 0)
        return nd__err(ND_ERR_BACKEND, "la", "%c%s_ workspace query returned info = %d", la_pfx(t), base, (int)info);
    int64_t lw = la_lw(f32 ? wqf[0] : wq[0]);
    if (lw < lwork) lw = lwork;
    if (lw > INT_MAX || lrwork > INT_MAX || liwork > INT_MAX)
        return nd__err(ND_ERR_UNSUPPORTED, "la",
                       "%c%s_ needs a workspace of %lld elements, over LAPACK's 32-bit limit", la_pfx(t), base,
                       (long long)(lw > lrwork ? lw : lrwork));
    j->lwork = (li)lw;
    j->lrwork = (li)lrwork;
    j->liwork = (li)liwork;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* One matrix                                                          */
/* ------------------------------------------------------------------ */
/* Zero the strictly upper triangle of the n x n column-major matrix a. */
static void la_zero_upper(char *a, int64_t n, size_t isz)
{
    for (int64_t c = 1; c < n; c++) memset(a + (size_t)(c * n) * isz, 0, (size_t)c * isz);
}

/* Expand real geev's (wr, wi, vr) of one matrix into complex w and u. */
#define GEEV_EXPAND(T)                                                                                \
    do {                                                                                              \
        const T *wr_ = wr, *wi_ = wi, *vr_ = vr;                                                      \
        T *w_ = (T *)w, *u_ = (T *)u;                                                                 \
        for (li c = 0; c < n; c++) w_[2 * c] = wr_[c], w_[2 * c + 1] = wi_[c];                        \
        if (!vr_) break;                                                                              \
        for (li c = 0; c < n; c++) {                                                                  \
            const T *v0 = vr_ + (size_t)c * n;                                                        \
            T *o0 = u_ + (size_t)2 * c * n;                                                           \
            if (wi_[c] > 0 && c + 1 < n) {                                                            \
                const T *v1 = v0 + n;                                                                 \
                T *o1 = o0 + (size_t)2 * n;                                                           \
                for (li r = 0; r < n; r++) {                                                          \
                    o0[2 * r] = v0[r], o0[2 * r + 1] = v1[r];                                         \
                    o1[2 * r] = v0[r], o1[2 * r + 1] = -v1[r];                                        \
                }                                                                                     \
                c++;                                                                                  \
            } else {                                                                                  \
                for (li r = 0; r < n; r++) o0[2 * r] = v0[r], o0[2 * r + 1] = 0;                      \
            }                                                                                         \
        }                                                                                             \
    } while (0)

/* ------------------------------------------------------------------ */
/* LU of one matrix                                                    */
/* ------------------------------------------------------------------ */
/* OpenBLAS's getrf runs its parallel version (from 100 x 100) on
 * OpenBLAS's own threads (exec_blas_async), not through the callback that
 * puts every other parallel section of OpenBLAS on our pool
 * (src/cpu/threads.c). Those threads then spin for about 2^28 cycles, a
 * tenth of a second, after each LU, on the cores our pool needs: on the
 * 2-core AMD EPYC a multiply of 2^20 float32 right after det of 512 x 512
 * took 166 us instead of 68, and the two sets of threads slowed the LU
 * itself. So where the callback is installed (ND_BLAS_ON_POOL) the LU is
 * ours: LAPACK's right-looking blocked algorithm (what the reference
 * dgetrf does), panels of LA_LU_NB columns factored by OpenBLAS's getrf
 * on one thread (its recursive kernel), then the panel's row interchanges
 * applied left and right (laswp), the triangular solve for U's block row
 * (trsm) and the trailing update (gemm), both on our pool through the
 * callback (nd__pool_linger keeps its workers awake in between). Below
 * LA_LU_BLOCKED_N the matrix is a single panel (a single panel was as
 * fast at 192 x 192). Measured on that machine, float64, best of 10-30:
 * det of 256 x 256 0.35 ms (OpenBLAS's getrf on one thread 0.43), 512 x
 * 512 1.8 ms (one thread 2.7, OpenBLAS's parallel getrf 3.3-4.4), 1024 x
 * 1024 10.4 ms (16.3), 2048 x 2048 76 ms (86); panels of 96-128 columns
 * did best at 1024 and 2048. Partial pivoting and info as getrf's (info:
 * the first exactly zero pivot, 1-based; the factorization completes). */
#define LA_LU_NB 128
#define LA_LU_BLOCKED_N (2 * LA_LU_NB)

/* U12 = L11^-1 U12 (unit lower), A22 -= L21 U12, column-major, leading
 * dimension ld */
static void la_lu_update(nd_dtype t, li jb, li nc, const void *l11, void *u12, const void *l21, void *a22, li ld)
{
    static const float pf[2] = {1, 0}, mf[2] = {-1, 0};
    static const double pd[2] = {1, 0}, md[2] = {-1, 0};
    const enum CBLAS_ORDER o = CblasColMajor;
    const enum CBLAS_TRANSPOSE nt = CblasNoTrans;
    switch (t) {
    case ND_FLOAT32:
        cblas_strsm(o, CblasLeft, CblasLower, nt, CblasUnit, jb, nc, 1.0f, l11, ld, u12, ld);
        cblas_sgemm(o, nt, nt, nc, nc, jb, -1.0f, l21, ld, u12, ld, 1.0f, a22, ld);
        break;
    case ND_FLOAT64:
        cblas_dtrsm(o, CblasLeft, CblasLower, nt, CblasUnit, jb, nc, 1.0, l11, ld, u12, ld);
        cblas_dgemm(o, nt, nt, nc, nc, jb, -1.0, l21, ld, u12, ld, 1.0, a22, ld);
        break;
    case ND_COMPLEX64:
        cblas_ctrsm(o, CblasLeft, CblasLower, nt, CblasUnit, jb, nc, pf, l11, ld, u12, ld);
        cblas_cgemm(o, nt, nt, nc, nc, jb, mf, l21, ld, u12, ld, pf, a22, ld);
        break;
    default:
        cblas_ztrsm(o, CblasLeft, CblasLower, nt, CblasUnit, jb, nc, pd, l11, ld, u12, ld);
        cblas_zgemm(o, nt, nt, nc, nc, jb, md, l21, ld, u12, ld, pd, a22, ld);
        break;
    }
}

/* getrf of the n x n column-major a (ipiv 1-based, info as getrf's) */
static void la_lu(const la_job *j, void *a, li *ipiv, li *info)
{
    const nd_dtype t = j->t;
    li n = j->n;
    *info = 0;
    /* without the callback the BLAS's own threads serve every call alike:
     * its getrf whole, as it comes */
    const li nb = !ND_BLAS_ON_POOL || n < LA_LU_BLOCKED_N ? n : LA_LU_NB;
    const bool single = ND_BLAS_ON_POOL; /* every getrf on one thread */
    char *A = a;
    for (li k = 0; k < n; k += nb) {
        li jb = n - k < nb ? n - k : nb, mk = n - k, kinfo = 0, k1 = k + 1, k2 = k + jb, inc = 1;
        char *akk = A + ((size_t)k * (size_t)n + (size_t)k) * j->isz;
        if (single) nd__blas_single_begin();
        LA4(t, sgetrf_, dgetrf_, cgetrf_, zgetrf_, &mk, &jb, (void *)akk, &n, ipiv + k, &kinfo);
        if (single) nd__blas_single_end();
        if (kinfo > 0 && *info == 0) *info = kinfo + k;
        if (nb == n) break;
        for (li i = k; i < k2; i++) ipiv[i] += k;
        if (k > 0) LA4(t, slaswp_, dlaswp_, claswp_, zlaswp_, &k, (void *)A, &n, &k1, &k2, ipiv, &inc);
        if (k2 < n) {
            li nc = n - k2;
            char *akr = A + ((size_t)k2 * (size_t)n + (size_t)k) * j->isz;
            LA4(t, slaswp_, dlaswp_, claswp_, zlaswp_, &nc, (void *)(A + (size_t)k2 * (size_t)n * j->isz), &n,
                &k1, &k2, ipiv, &inc);
            la_lu_update(t, jb, nc, akk, akr, akk + (size_t)jb * j->isz, akr + (size_t)jb * j->isz, n);
        }
    }
}

/* Matrix i with the chunk's scratch s; false after recording an error. */
static bool la_one(la_job *j, int64_t i, char *s)
{
    const nd_dtype t = j->t;
    nd_la_call *c = j->c;
    void *a = j->a + (size_t)i * j->sa;
    void *tau = j->tau ? j->tau + (size_t)i * j->stau : NULL, *bm = j->b ? j->b + (size_t)i * j->sb : NULL;
    /* GETRF and POTRF have no scratch (s NULL) */
    void *work = s ? s + j->o_work : NULL, *rwork = s ? s + j->o_rwork : NULL;
    li *iwork = s ? (li *)(void *)(s + j->o_iwork) : NULL;
    li info = 0, n = j->n, m = j->m, one = 1;
    const char *base = "";
    switch (c->op) {
    case ND_LA_GETRF:
        base = "getrf";
        la_lu(j, a, (li *)j->ipiv + (size_t)i * n, &info);
        break;
    case ND_LA_GESV: { /* gesv: the LU, then the solve when U has no zero pivot */
        const char tr = 'N';
        base = "getrf";
        la_lu(j, a, iwork, &info);
        if (info != 0) break;
        base = "getrs";
        LA4(t, sgetrs_, dgetrs_, cgetrs_, zgetrs_, &tr, &n, &j->nrhs, a, &n, iwork, bm, &n, &info, 1);
        break;
    }
    case ND_LA_POTRF: {
        char uplo = 'L';
        base = "potrf";
        LA4(t, spotrf_, dpotrf_, cpotrf_, zpotrf_, &uplo, &n, a, &n, &info, 1);
        la_zero_upper(a, n, j->isz);
        break;
    }
    case ND_LA_GEQRF:
        base = "geqrf";
        LA4(t, sgeqrf_, dgeqrf_, cgeqrf_, zgeqrf_, &m, &n, a, &m, tau, work, &j->lwork,
            &info);
        break;
    case ND_LA_ORGQR:
        base = j->cpx ? "ungqr" : "orgqr";
        LA4(t, sorgqr_, dorgqr_, cungqr_, zungqr_, &m, &n, &j->kq, a, &m, tau, work,
            &j->lwork, &info);
        break;
    case ND_LA_GESVD: {
        li ldu = j->jobz == 'N' ? 1 : m, ldvt = j->jobz == 'A' ? n : j->jobz == 'S' ? j->k : 1;
        double du[2];
        void *u = j->jobz == 'N' ? (void *)du : j->u + (size_t)i * j->su;
        void *vt = j->jobz == 'N' ? (void *)du : j->vt + (size_t)i * j->svt;
        void *w = j->w + (size_t)i * j->sw;
        memcpy(s + j->o_copy, a, j->sa);
        base = "gesdd";
        if (!j->cpx)
            LA2(t, sgesdd_, dgesdd_, &j->jobz, &m, &n, a, &m, w, u, &ldu, vt, &ldvt, work, &j->lwork, iwork, &info, 1);
        else
            LA2(t, cgesdd_, zgesdd_, &j->jobz, &m, &n, a, &m, w, u, &ldu, vt, &ldvt, work, &j->lwork, rwork, iwork,
                &info, 1);
        if (info > 0) { /* divide and conquer failed: QR iteration on the original matrix */
            memcpy(a, s + j->o_copy, j->sa);
            base = "gesvd";
            if (!j->cpx)
                LA2(t, sgesvd_, dgesvd_, &j->jobz, &j->jobz, &m, &n, a, &m, w, u, &ldu, vt, &ldvt, work, &j->lwork,
                    &info, 1, 1);
            else
                LA2(t, cgesvd_, zgesvd_, &j->jobz, &j->jobz, &m, &n, a, &m, w, u, &ldu, vt, &ldvt, work, &j->lwork,
                    rwork, &info, 1, 1);
        }
        break;
    }
    case ND_LA_SYEVD: {
        char uplo = c->lower ? 'L' : 'U';
        void *w = j->w + (size_t)i * j->sw;
        base = j->cpx ? "heevd" : "syevd";
        if (!j->cpx)
            LA2(t, ssyevd_, dsyevd_, &j->jobz, &uplo, &n, a, &n, w, work, &j->lwork, iwork, &j->liwork, &info, 1, 1);
        else
            LA2(t, cheevd_, zheevd_, &j->jobz, &uplo, &n, a, &n, w, work, &j->lwork, rwork, &j->lrwork, iwork,
                &j->liwork, &info, 1, 1);
        break;
    }
    case ND_LA_GEEV: {
        char no = 'N';
        li ldvr = j->jobz == 'V' ? n : 1;
        double dv[2];
        void *w = j->w + (size_t)i * j->sw;
        void *u = j->jobz == 'V' ? (void *)(j->u + (size_t)i * j->su) : NULL;
        base = "geev";
        if (j->cpx) {
            LA2(t, cgeev_, zgeev_, &no, &j->jobz, &n, a, &n, w, (void *)dv, &one, u ? u : (void *)dv, &ldvr, work,
                &j->lwork, rwork, &info, 1, 1);
        } else {
            char *x = s + j->o_x;
            void *wr = x, *wi = x + (size_t)n * j->rsz;
            void *vr = u ? (void *)(x + (size_t)2 * n * j->rsz) : NULL;
            LA2(t, sgeev_, dgeev_, &no, &j->jobz, &n, a, &n, wr, wi, (void *)dv, &one, vr ? vr : (void *)dv, &ldvr,
                work, &j->lwork, &info, 1, 1);
            if (info >= 0) {
                if (t == ND_FLOAT32) GEEV_EXPAND(float);
                else GEEV_EXPAND(double);
            }
        }
        break;
    }
    default: break;
    }
    if (info < 0) {
        la_fail(j, ND_ERR_BACKEND, base, info);
        return false;
    }
    c->info[i] = info;
    return true;
}

static void la_chunk(void *ctx, int64_t b, int64_t e)
{
    la_job *j = ctx;
    char *s = NULL;
    if (j->scratch) {
        s = nd__aligned_alloc(64, j->scratch + 4096); /* slack: see nd__la_pack (src/linalg/la.c) */
        if (!s) {
            la_fail(j, ND_ERR_NOMEM, "", 0);
            return;
        }
    }
    for (int64_t i = b; i < e && atomic_load_explicit(&j->err, memory_order_relaxed) == 0; i++)
        if (!la_one(j, i, s)) break;
    nd__free(s);
}

/* ------------------------------------------------------------------ */
/* OpenBLAS's threads off around small problems                        */
/* ------------------------------------------------------------------ */
/* OpenBLAS 0.3.21's getrs (hence gesv) hands every call to its thread
 * server whatever the size (measured: a 4 x 4 sgesv_ costs 35 us with 2
 * threads, 0.3 us with 1), and calls from several of our workers at once
 * then fight over that server (256 gesv of 64 x 64 in parallel: 1.5 s
 * instead of 0.03 s). So problems below LA_PAR_FLOPS run with OpenBLAS
 * set to one thread (nd__blas_single_begin, src/cpu/threads.c). */
/* ------------------------------------------------------------------ */
/* The slot                                                            */
/* ------------------------------------------------------------------ */
static char *la_opt(const nd_array *x) { return x ? nd__ptr(x) : NULL; }

/* Bytes per matrix of x ((batch, ...) C-contiguous); 0 for NULL. */
static size_t la_step(const nd_array *x, int64_t batch)
{
    if (!x) return 0;
    return (size_t)(x->size / batch) * nd__itemsize(x->dtype);
}

nd_status nd__cpu_la(nd_la_call *c)
{
    const int64_t m = c->m, n = c->n, k = m < n ? m : n;
    const int64_t nrhs = c->op == ND_LA_GESV ? c->nrhs : 1, kq = c->op == ND_LA_ORGQR ? c->k : 0;
    const int64_t big = m > n ? m : n;
    /* every per-matrix operand and workspace must fit LAPACK's INTEGER:
     * a (m n), b (n nrhs), u (m m), vt (n n), and the largest workspace
     * any op asks for, conservatively 6 k^2 + 2 big k + 64 (m + n) */
    const int64_t lim = INT_MAX;
    if (m > lim || n > lim || nrhs > lim || m * n > lim || n * nrhs > lim || big * big > lim ||
        6 * k * k + 2 * big * k + 64 * (m + n) > lim)
        return nd__err(ND_ERR_UNSUPPORTED, "la",
                       "a %lld x %lld matrix (nrhs %lld) exceeds LAPACK's 32-bit indexing", (long long)m,
                       (long long)n, (long long)nrhs);
    nd__blas_threads_sync();
    if (nd__la_small_applies(c)) {
        nd__la_small(c);
        return ND_OK;
    }
    la_job j;
    memset(&j, 0, sizeof j);
    j.c = c;
    j.t = c->a->dtype;
    j.cpx = j.t == ND_COMPLEX64 || j.t == ND_COMPLEX128;
    j.isz = nd__itemsize(j.t);
    j.rsz = nd__itemsize(nd__la_real(j.t));
    j.m = (li)m, j.n = (li)n, j.k = (li)k, j.nrhs = (li)nrhs, j.kq = (li)kq;
    j.jobz = c->op == ND_LA_GESVD ? (c->job == ND_LA_JOB_A ? 'A' : c->job == ND_LA_JOB_S ? 'S' : 'N')
                                  : (c->job == ND_LA_JOB_V ? 'V' : 'N');
    j.a = nd__ptr(c->a), j.b = la_opt(c->b), j.w = la_opt(c->w), j.u = la_opt(c->u), j.vt = la_opt(c->vt);
    j.tau = la_opt(c->tau), j.ipiv = c->ipiv ? (int32_t *)nd__ptr(c->ipiv) : NULL;
    j.sa = la_step(c->a, c->batch), j.sb = la_step(c->b, c->batch), j.sw = la_step(c->w, c->batch);
    j.su = la_step(c->u, c->batch), j.svt = la_step(c->vt, c->batch), j.stau = la_step(c->tau, c->batch);
    if (c->op == ND_LA_GESVD && j.jobz == 'N') j.su = j.svt = 0, j.u = j.vt = NULL;
    if (c->op == ND_LA_GEEV && j.jobz == 'N') j.su = 0, j.u = NULL;
    atomic_init(&j.err, 0);
    nd_status st = la_query(&j);
    if (st != ND_OK) return st;

    /* the chunk's scratch */
    size_t off = 0;
    j.o_work = off, off += la_al((size_t)j.lwork * j.isz);
    j.o_rwork = off, off += j.cpx ? la_al((size_t)j.lrwork * j.rsz) : 0;
    j.o_iwork = off;
    if (c->op == ND_LA_GESV) off += la_al((size_t)n * sizeof(li));
    else if (c->op == ND_LA_GESVD || c->op == ND_LA_SYEVD) off += la_al((size_t)j.liwork * sizeof(li));
    j.o_x = off;
    if (c->op == ND_LA_GEEV && !j.cpx) off += la_al((size_t)(2 * n + (j.jobz == 'V' ? n * n : 0)) * j.rsz);
    j.o_copy = off;
    if (c->op == ND_LA_GESVD) off += la_al(j.sa);
    const bool has_work = c->op != ND_LA_GETRF && c->op != ND_LA_POTRF;
    j.scratch = has_work ? off : 0;

    /* flops per matrix (rough) decide OpenBLAS's threads */
    const double fm = (double)m, fn = (double)n, fk = (double)k;
    j.flops = c->op == ND_LA_GESV ? fn * fn * (fn + (double)nrhs) : fm * fn * fk;
    if (c->op >= ND_LA_GESVD) j.flops *= 10;
    if (j.cpx) j.flops *= 4;
    const bool small = j.flops < LA_PAR_FLOPS;
    /* the pool's workers stay awake through the routine where its BLAS
     * calls run on the pool; elsewhere the BLAS's own threads need the cores */
    const bool linger = ND_BLAS_ON_POOL && !small;
    if (small) nd__blas_single_begin();
    if (linger) nd__pool_linger_begin();
    la_chunk(&j, 0, c->batch); /* on this thread: see the header */
    if (linger) nd__pool_linger_end();
    if (small) nd__blas_single_end();
    int err = atomic_load(&j.err);
    if (err == ND_ERR_NOMEM)
        return nd__err(ND_ERR_NOMEM, "la", "out of memory allocating a %zu-byte LAPACK workspace", j.scratch);
    if (err == ND_ERR_BACKEND)
        return nd__err(ND_ERR_BACKEND, "la", "%s returned info = %d (illegal value of argument %d)", j.routine, j.bad,
                       -j.bad);
    return ND_OK;
}
