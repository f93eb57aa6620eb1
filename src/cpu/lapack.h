/* Prototypes of the Fortran LAPACK routines of the BLAS the build chose
 * (src/cpu/blas.h; OpenBLAS carries LAPACK, BLIS builds add the reference
 * one), declared here because Debian's OpenBLAS ships no LAPACKE and we
 * want no new dependency. scipy-openblas32 prefixes every symbol with
 * scipy_: the plain names are mapped onto those below.
 *
 * Conventions (gfortran, LP64 OpenBLAS as Debian ships it):
 *  - every argument by reference; INTEGER is a 32-bit int (nd_lapack_int);
 *  - complex arrays are interleaved (re, im) pairs, passed as void *;
 *  - each CHARACTER argument adds a hidden trailing length argument of
 *    type size_t (gfortran >= 8), in the order of the CHARACTER
 *    arguments. OpenBLAS's own C reimplementations (getrf, gesv, potrf)
 *    ignore them, which the x86-64 / AArch64 calling conventions allow.
 * Only the routines src/cpu/lapack.c calls are declared. */
#ifndef ND_CPU_LAPACK_H
#define ND_CPU_LAPACK_H
#include <stddef.h>

/* scipy-openblas32: the same routines under the prefix scipy_ */
#if defined(ND_BLAS_SCIPY_OPENBLAS)
#define cgeev_ scipy_cgeev_
#define cgeqrf_ scipy_cgeqrf_
#define cgesdd_ scipy_cgesdd_
#define cgesv_ scipy_cgesv_
#define cgesvd_ scipy_cgesvd_
#define cgetrf_ scipy_cgetrf_
#define cgetrs_ scipy_cgetrs_
#define claswp_ scipy_claswp_
#define cheevd_ scipy_cheevd_
#define cpotrf_ scipy_cpotrf_
#define cungqr_ scipy_cungqr_
#define dgeev_ scipy_dgeev_
#define dgeqrf_ scipy_dgeqrf_
#define dgesdd_ scipy_dgesdd_
#define dgesv_ scipy_dgesv_
#define dgesvd_ scipy_dgesvd_
#define dgetrf_ scipy_dgetrf_
#define dgetrs_ scipy_dgetrs_
#define dlaswp_ scipy_dlaswp_
#define dorgqr_ scipy_dorgqr_
#define dpotrf_ scipy_dpotrf_
#define dsyevd_ scipy_dsyevd_
#define sgeev_ scipy_sgeev_
#define sgeqrf_ scipy_sgeqrf_
#define sgesdd_ scipy_sgesdd_
#define sgesv_ scipy_sgesv_
#define sgesvd_ scipy_sgesvd_
#define sgetrf_ scipy_sgetrf_
#define sgetrs_ scipy_sgetrs_
#define slaswp_ scipy_slaswp_
#define sorgqr_ scipy_sorgqr_
#define spotrf_ scipy_spotrf_
#define ssyevd_ scipy_ssyevd_
#define zgeev_ scipy_zgeev_
#define zgeqrf_ scipy_zgeqrf_
#define zgesdd_ scipy_zgesdd_
#define zgesv_ scipy_zgesv_
#define zgesvd_ scipy_zgesvd_
#define zgetrf_ scipy_zgetrf_
#define zgetrs_ scipy_zgetrs_
#define zlaswp_ scipy_zlaswp_
#define zheevd_ scipy_zheevd_
#define zpotrf_ scipy_zpotrf_
#define zungqr_ scipy_zungqr_
#endif

typedef int nd_lapack_int;
#define LI nd_lapack_int

/* LU with partial pivoting */
void sgetrf_(const LI *m, const LI *n, float *a, const LI *lda, LI *ipiv, LI *info);
void dgetrf_(const LI *m, const LI *n, double *a, const LI *lda, LI *ipiv, LI *info);
void cgetrf_(const LI *m, const LI *n, void *a, const LI *lda, LI *ipiv, LI *info);
void zgetrf_(const LI *m, const LI *n, void *a, const LI *lda, LI *ipiv, LI *info);
/* row interchanges of an LU's pivots (the CPU backend's own blocked LU) */
void slaswp_(const LI *n, float *a, const LI *lda, const LI *k1, const LI *k2, const LI *ipiv, const LI *incx);
void dlaswp_(const LI *n, double *a, const LI *lda, const LI *k1, const LI *k2, const LI *ipiv, const LI *incx);
void claswp_(const LI *n, void *a, const LI *lda, const LI *k1, const LI *k2, const LI *ipiv, const LI *incx);
void zlaswp_(const LI *n, void *a, const LI *lda, const LI *k1, const LI *k2, const LI *ipiv, const LI *incx);
/* getrs: the solve after the CPU backend's LU (gesv's second half), and the
 * emulated cuSOLVER and cuBLAS stand-ins (tests/emu) */
void sgetrs_(const char *trans, const LI *n, const LI *nrhs, const float *a, const LI *lda, const LI *ipiv, float *b,
             const LI *ldb, LI *info, size_t ltrans);
void dgetrs_(const char *trans, const LI *n, const LI *nrhs, const double *a, const LI *lda, const LI *ipiv, double *b,
             const LI *ldb, LI *info, size_t ltrans);
void cgetrs_(const char *trans, const LI *n, const LI *nrhs, const void *a, const LI *lda, const LI *ipiv, void *b,
             const LI *ldb, LI *info, size_t ltrans);
void zgetrs_(const char *trans, const LI *n, const LI *nrhs, const void *a, const LI *lda, const LI *ipiv, void *b,
             const LI *ldb, LI *info, size_t ltrans);

/* solve A X = B */
void sgesv_(const LI *n, const LI *nrhs, float *a, const LI *lda, LI *ipiv, float *b, const LI *ldb, LI *info);
void dgesv_(const LI *n, const LI *nrhs, double *a, const LI *lda, LI *ipiv, double *b, const LI *ldb, LI *info);
void cgesv_(const LI *n, const LI *nrhs, void *a, const LI *lda, LI *ipiv, void *b, const LI *ldb, LI *info);
void zgesv_(const LI *n, const LI *nrhs, void *a, const LI *lda, LI *ipiv, void *b, const LI *ldb, LI *info);

/* Cholesky */
void spotrf_(const char *uplo, const LI *n, float *a, const LI *lda, LI *info, size_t luplo);
void dpotrf_(const char *uplo, const LI *n, double *a, const LI *lda, LI *info, size_t luplo);
void cpotrf_(const char *uplo, const LI *n, void *a, const LI *lda, LI *info, size_t luplo);
void zpotrf_(const char *uplo, const LI *n, void *a, const LI *lda, LI *info, size_t luplo);

/* Householder QR and its Q */
void sgeqrf_(const LI *m, const LI *n, float *a, const LI *lda, float *tau, float *work, const LI *lwork, LI *info);
void dgeqrf_(const LI *m, const LI *n, double *a, const LI *lda, double *tau, double *work, const LI *lwork, LI *info);
void cgeqrf_(const LI *m, const LI *n, void *a, const LI *lda, void *tau, void *work, const LI *lwork, LI *info);
void zgeqrf_(const LI *m, const LI *n, void *a, const LI *lda, void *tau, void *work, const LI *lwork, LI *info);
void sorgqr_(const LI *m, const LI *n, const LI *k, float *a, const LI *lda, const float *tau, float *work,
             const LI *lwork, LI *info);
void dorgqr_(const LI *m, const LI *n, const LI *k, double *a, const LI *lda, const double *tau, double *work,
             const LI *lwork, LI *info);
void cungqr_(const LI *m, const LI *n, const LI *k, void *a, const LI *lda, const void *tau, void *work,
             const LI *lwork, LI *info);
void zungqr_(const LI *m, const LI *n, const LI *k, void *a, const LI *lda, const void *tau, void *work,
             const LI *lwork, LI *info);

/* SVD, divide and conquer (NumPy's choice) */
void sgesdd_(const char *jobz, const LI *m, const LI *n, float *a, const LI *lda, float *s, float *u, const LI *ldu,
             float *vt, const LI *ldvt, float *work, const LI *lwork, LI *iwork, LI *info, size_t ljobz);
void dgesdd_(const char *jobz, const LI *m, const LI *n, double *a, const LI *lda, double *s, double *u,
             const LI *ldu, double *vt, const LI *ldvt, double *work, const LI *lwork, LI *iwork, LI *info,
             size_t ljobz);
void cgesdd_(const char *jobz, const LI *m, const LI *n, void *a, const LI *lda, float *s, void *u, const LI *ldu,
             void *vt, const LI *ldvt, void *work, const LI *lwork, float *rwork, LI *iwork, LI *info, size_t ljobz);
void zgesdd_(const char *jobz, const LI *m, const LI *n, void *a, const LI *lda, double *s, void *u, const LI *ldu,
             void *vt, const LI *ldvt, void *work, const LI *lwork, double *rwork, LI *iwork, LI *info,
             size_t ljobz);
/* SVD, QR iteration (the fallback when gesdd does not converge) */
void sgesvd_(const char *jobu, const char *jobvt, const LI *m, const LI *n, float *a, const LI *lda, float *s,
             float *u, const LI *ldu, float *vt, const LI *ldvt, float *work, const LI *lwork, LI *info, size_t lu,
             size_t lvt);
void dgesvd_(const char *jobu, const char *jobvt, const LI *m, const LI *n, double *a, const LI *lda, double *s,
             double *u, const LI *ldu, double *vt, const LI *ldvt, double *work, const LI *lwork, LI *info,
             size_t lu, size_t lvt);
void cgesvd_(const char *jobu, const char *jobvt, const LI *m, const LI *n, void *a, const LI *lda, float *s,
             void *u, const LI *ldu, void *vt, const LI *ldvt, void *work, const LI *lwork, float *rwork, LI *info,
             size_t lu, size_t lvt);
void zgesvd_(const char *jobu, const char *jobvt, const LI *m, const LI *n, void *a, const LI *lda, double *s,
             void *u, const LI *ldu, void *vt, const LI *ldvt, void *work, const LI *lwork, double *rwork,
             LI *info, size_t lu, size_t lvt);

/* Symmetric / Hermitian eigenproblem, divide and conquer */
void ssyevd_(const char *jobz, const char *uplo, const LI *n, float *a, const LI *lda, float *w, float *work,
             const LI *lwork, LI *iwork, const LI *liwork, LI *info, size_t ljobz, size_t luplo);
void dsyevd_(const char *jobz, const char *uplo, const LI *n, double *a, const LI *lda, double *w, double *work,
             const LI *lwork, LI *iwork, const LI *liwork, LI *info, size_t ljobz, size_t luplo);
void cheevd_(const char *jobz, const char *uplo, const LI *n, void *a, const LI *lda, float *w, void *work,
             const LI *lwork, float *rwork, const LI *lrwork, LI *iwork, const LI *liwork, LI *info, size_t ljobz,
             size_t luplo);
void zheevd_(const char *jobz, const char *uplo, const LI *n, void *a, const LI *lda, double *w, void *work,
             const LI *lwork, double *rwork, const LI *lrwork, LI *iwork, const LI *liwork, LI *info,
             size_t ljobz, size_t luplo);

/* General eigenproblem */
void sgeev_(const char *jobvl, const char *jobvr, const LI *n, float *a, const LI *lda, float *wr, float *wi,
            float *vl, const LI *ldvl, float *vr, const LI *ldvr, float *work, const LI *lwork, LI *info,
            size_t ljobvl, size_t ljobvr);
void dgeev_(const char *jobvl, const char *jobvr, const LI *n, double *a, const LI *lda, double *wr, double *wi,
            double *vl, const LI *ldvl, double *vr, const LI *ldvr, double *work, const LI *lwork, LI *info,
            size_t ljobvl, size_t ljobvr);
void cgeev_(const char *jobvl, const char *jobvr, const LI *n, void *a, const LI *lda, void *w, void *vl,
            const LI *ldvl, void *vr, const LI *ldvr, void *work, const LI *lwork, float *rwork, LI *info,
            size_t ljobvl, size_t ljobvr);
void zgeev_(const char *jobvl, const char *jobvr, const LI *n, void *a, const LI *lda, void *w, void *vl,
            const LI *ldvl, void *vr, const LI *ldvr, void *work, const LI *lwork, double *rwork, LI *info,
            size_t ljobvl, size_t ljobvr);

#undef LI

/* src/cpu/la_small.c: the small-matrix path of GETRF and GESV (n <=
 * ND_LA_SMALL_N), threaded over the batch; writes info for every matrix. */
#include <stdbool.h>
#define ND_LA_SMALL_N 16
struct nd_la_call;
__attribute__((visibility("hidden"))) bool nd__la_small_applies(const struct nd_la_call *c);
__attribute__((visibility("hidden"))) void nd__la_small(const struct nd_la_call *c);
#endif
