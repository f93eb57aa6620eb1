/*
 * The emulated GPU's cuSOLVER (make emu-test): the subset of <cusolverDn.h>
 * that libndgpu calls (src/cuda/solver.cu), with cuSOLVER's names, types,
 * signatures and enum values (checked against the CUDA 13 toolkit's
 * cusolverDn.h and cusolver_common.h, cuSOLVER 12.0), implemented over the
 * Fortran LAPACK routines OpenBLAS exports in tests/emu/cusolver_emu.cpp.
 * Emulation builds put tests/emu first on the include path, so
 * `#include <cusolverDn.h>` finds this file. Never part of a library users
 * build.
 *
 * What is emulated (details in cusolver_emu.cpp):
 *  - handles (cusolverDnCreate/Destroy/SetStream/GetStream), the 64-bit
 *    API's parameter objects, the Jacobi (gesvdj/syevj) parameter objects
 *    with their defaults;
 *  - the legacy dense API for S, D, C, Z: getrf, getrs, potrf,
 *    potrfBatched, geqrf, orgqr/ungqr, gesvd (m >= n only, as cuSOLVER),
 *    gesvdjBatched (m, n <= 32; V, not V^H, as cuSOLVER), syevd/heevd,
 *    syevjBatched/heevjBatched (n <= 32), each with its _bufferSize, and
 *    the 64-bit cusolverDnXgeev (+ _bufferSize; device and host
 *    workspaces; real A: W complex or 2n reals, VR real in LAPACK's packed
 *    form);
 *  - queued on the handle's stream (asynchronous, stream-ordered, like the
 *    kernels cuSOLVER launches): devInfo and every output are written when
 *    the work runs, so a caller that reads them without waiting shows;
 *  - cuSOLVER's argument checks (CUSOLVER_STATUS_INVALID_VALUE) and two
 *    debugging aids: operands, workspaces and devInfo must lie in device
 *    memory, and a workspace smaller than the _bufferSize answer is
 *    CUSOLVER_STATUS_INVALID_VALUE.
 */
#ifndef ND_EMU_CUSOLVERDN_H
#define ND_EMU_CUSOLVERDN_H
#include <stddef.h>
#include <stdint.h>

#include "cuComplex.h"
#include "cublas_v2.h"    /* cublasFillMode_t, cublasOperation_t, cudaDataType (the real header: cublas_api.h) */
#include "cuda_runtime.h" /* cudaStream_t */

#define CUSOLVER_VER_MAJOR 12
#define CUSOLVER_VER_MINOR 0
#define CUSOLVER_VER_PATCH 4
#define CUSOLVER_VER_BUILD 66
#define CUSOLVER_VERSION (CUSOLVER_VER_MAJOR * 1000 + CUSOLVER_VER_MINOR * 100 + CUSOLVER_VER_PATCH)
#define ND_CUSOLVER_EMU 1

#ifdef __cplusplus
extern "C" {
#endif

/* ---- cusolver_common.h ---- */
typedef enum {
    CUSOLVER_STATUS_SUCCESS = 0,
    CUSOLVER_STATUS_NOT_INITIALIZED = 1,
    CUSOLVER_STATUS_ALLOC_FAILED = 2,
    CUSOLVER_STATUS_INVALID_VALUE = 3,
    CUSOLVER_STATUS_ARCH_MISMATCH = 4,
    CUSOLVER_STATUS_MAPPING_ERROR = 5,
    CUSOLVER_STATUS_EXECUTION_FAILED = 6,
    CUSOLVER_STATUS_INTERNAL_ERROR = 7,
    CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
    CUSOLVER_STATUS_NOT_SUPPORTED = 9,
    CUSOLVER_STATUS_ZERO_PIVOT = 10,
    CUSOLVER_STATUS_INVALID_LICENSE = 11,
    CUSOLVER_STATUS_INVALID_WORKSPACE = 31
} cusolverStatus_t;

typedef enum { CUSOLVER_EIG_MODE_NOVECTOR = 0, CUSOLVER_EIG_MODE_VECTOR = 1 } cusolverEigMode_t;

/* ---- cusolverDn.h ---- */
struct cusolverDnContext;
typedef struct cusolverDnContext *cusolverDnHandle_t;
struct cusolverDnParams;
typedef struct cusolverDnParams *cusolverDnParams_t;
struct syevjInfo;
typedef struct syevjInfo *syevjInfo_t;
struct gesvdjInfo;
typedef struct gesvdjInfo *gesvdjInfo_t;

cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle);
cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle);
cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId);
cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t handle, cudaStream_t *streamId);
cusolverStatus_t cusolverDnCreateParams(cusolverDnParams_t *params);
cusolverStatus_t cusolverDnDestroyParams(cusolverDnParams_t params);
cusolverStatus_t cusolverDnCreateSyevjInfo(syevjInfo_t *info);
cusolverStatus_t cusolverDnDestroySyevjInfo(syevjInfo_t info);
cusolverStatus_t cusolverDnCreateGesvdjInfo(gesvdjInfo_t *info);
cusolverStatus_t cusolverDnDestroyGesvdjInfo(gesvdjInfo_t info);

/* LU */
cusolverStatus_t cusolverDnSgetrf_bufferSize(cusolverDnHandle_t handle, int m, int n, float *A, int lda, int *Lwork);
cusolverStatus_t cusolverDnDgetrf_bufferSize(cusolverDnHandle_t handle, int m, int n, double *A, int lda, int *Lwork);
cusolverStatus_t cusolverDnCgetrf_bufferSize(cusolverDnHandle_t handle, int m, int n, cuComplex *A, int lda,
                                             int *Lwork);
cusolverStatus_t cusolverDnZgetrf_bufferSize(cusolverDnHandle_t handle, int m, int n, cuDoubleComplex *A, int lda,
                                             int *Lwork);
cusolverStatus_t cusolverDnSgetrf(cusolverDnHandle_t handle, int m, int n, float *A, int lda, float *Workspace,
                                  int *devIpiv, int *devInfo);
cusolverStatus_t cusolverDnDgetrf(cusolverDnHandle_t handle, int m, int n, double *A, int lda, double *Workspace,
                                  int *devIpiv, int *devInfo);
cusolverStatus_t cusolverDnCgetrf(cusolverDnHandle_t handle, int m, int n, cuComplex *A, int lda,
                                  cuComplex *Workspace, int *devIpiv, int *devInfo);
cusolverStatus_t cusolverDnZgetrf(cusolverDnHandle_t handle, int m, int n, cuDoubleComplex *A, int lda,
                                  cuDoubleComplex *Workspace, int *devIpiv, int *devInfo);
cusolverStatus_t cusolverDnSgetrs(cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs,
                                  const float *A, int lda, const int *devIpiv, float *B, int ldb, int *devInfo);
cusolverStatus_t cusolverDnDgetrs(cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs,
                                  const double *A, int lda, const int *devIpiv, double *B, int ldb, int *devInfo);
cusolverStatus_t cusolverDnCgetrs(cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs,
                                  const cuComplex *A, int lda, const int *devIpiv, cuComplex *B, int ldb,
                                  int *devInfo);
cusolverStatus_t cusolverDnZgetrs(cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs,
                                  const cuDoubleComplex *A, int lda, const int *devIpiv, cuDoubleComplex *B, int ldb,
                                  int *devInfo);

/* Cholesky */
cusolverStatus_t cusolverDnSpotrf_bufferSize(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, float *A,
                                             int lda, int *Lwork);
cusolverStatus_t cusolverDnDpotrf_bufferSize(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double *A,
                                             int lda, int *Lwork);
cusolverStatus_t cusolverDnCpotrf_bufferSize(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, cuComplex *A,
                                             int lda, int *Lwork);
cusolverStatus_t cusolverDnZpotrf_bufferSize(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n,
                                             cuDoubleComplex *A, int lda, int *Lwork);
cusolverStatus_t cusolverDnSpotrf(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, float *A, int lda,
                                  float *Workspace, int Lwork, int *devInfo);
cusolverStatus_t cusolverDnDpotrf(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double *A, int lda,
                                  double *Workspace, int Lwork, int *devInfo);
cusolverStatus_t cusolverDnCpotrf(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, cuComplex *A, int lda,
                                  cuComplex *Workspace, int Lwork, int *devInfo);
cusolverStatus_t cusolverDnZpotrf(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, cuDoubleComplex *A,
                                  int lda, cuDoubleComplex *Workspace, int Lwork, int *devInfo);
cusolverStatus_t cusolverDnSpotrfBatched(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, float *Aarray[],
                                         int lda, int *infoArray, int batchSize);
cusolverStatus_t cusolverDnDpotrfBatched(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double *Aarray[],
                                         int lda, int *infoArray, int batchSize);
cusolverStatus_t cusolverDnCpotrfBatched(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n,
                                         cuComplex *Aarray[], int lda, int *infoArray, int batchSize);
cusolverStatus_t cusolverDnZpotrfBatched(cusolverDnHandle_t handle, cublasFillMode_t uplo, int n,
                                         cuDoubleComplex *Aarray[], int lda, int *infoArray, int batchSize);

/* QR */
cusolverStatus_t cusolverDnSgeqrf_bufferSize(cusolverDnHandle_t handle, int m, int n, float *A, int lda, int *lwork);
cusolverStatus_t cusolverDnDgeqrf_bufferSize(cusolverDnHandle_t handle, int m, int n, double *A, int lda,
                                             int *lwork);
cusolverStatus_t cusolverDnCgeqrf_bufferSize(cusolverDnHandle_t handle, int m, int n, cuComplex *A, int lda,
                                             int *lwork);
cusolverStatus_t cusolverDnZgeqrf_bufferSize(cusolverDnHandle_t handle, int m, int n, cuDoubleComplex *A, int lda,
                                             int *lwork);
cusolverStatus_t cusolverDnSgeqrf(cusolverDnHandle_t handle, int m, int n, float *A, int lda, float *TAU,
                                  float *Workspace, int Lwork, int *devInfo);
cusolverStatus_t cusolverDnDgeqrf(cusolverDnHandle_t handle, int m, int n, double *A, int lda, double *TAU,
                                  double *Workspace, int Lwork, int *devInfo);
cusolverStatus_t cusolverDnCgeqrf(cusolverDnHandle_t handle, int m, int n, cuComplex *A, int lda, cuComplex *TAU,
                                  cuComplex *Workspace, int Lwork, int *devInfo);
cusolverStatus_t cusolverDnZgeqrf(cusolverDnHandle_t handle, int m, int n, cuDoubleComplex *A, int lda,
                                  cuDoubleComplex *TAU, cuDoubleComplex *Workspace, int Lwork, int *devInfo);
cusolverStatus_t cusolverDnSorgqr_bufferSize(cusolverDnHandle_t handle, int m, int n, int k, const float *A, int lda,
                                             const float *tau, int *lwork);
cusolverStatus_t cusolverDnDorgqr_bufferSize(cusolverDnHandle_t handle, int m, int n, int k, const double *A,
                                             int lda, const double *tau, int *lwork);
cusolverStatus_t cusolverDnCungqr_bufferSize(cusolverDnHandle_t handle, int m, int n, int k, const cuComplex *A,
                                             int lda, const cuComplex *tau, int *lwork);
cusolverStatus_t cusolverDnZungqr_bufferSize(cusolverDnHandle_t handle, int m, int n, int k,
                                             const cuDoubleComplex *A, int lda, const cuDoubleComplex *tau,
                                             int *lwork);
cusolverStatus_t cusolverDnSorgqr(cusolverDnHandle_t handle, int m, int n, int k, float *A, int lda,
                                  const float *tau, float *work, int lwork, int *info);
cusolverStatus_t cusolverDnDorgqr(cusolverDnHandle_t handle, int m, int n, int k, double *A, int lda,
                                  const double *tau, double *work, int lwork, int *info);
cusolverStatus_t cusolverDnCungqr(cusolverDnHandle_t handle, int m, int n, int k, cuComplex *A, int lda,
                                  const cuComplex *tau, cuComplex *work, int lwork, int *info);
cusolverStatus_t cusolverDnZungqr(cusolverDnHandle_t handle, int m, int n, int k, cuDoubleComplex *A, int lda,
                                  const cuDoubleComplex *tau, cuDoubleComplex *work, int lwork, int *info);

/* SVD: QR iteration (m >= n) */
cusolverStatus_t cusolverDnSgesvd_bufferSize(cusolverDnHandle_t handle, int m, int n, int *lwork);
cusolverStatus_t cusolverDnDgesvd_bufferSize(cusolverDnHandle_t handle, int m, int n, int *lwork);
cusolverStatus_t cusolverDnCgesvd_bufferSize(cusolverDnHandle_t handle, int m, int n, int *lwork);
cusolverStatus_t cusolverDnZgesvd_bufferSize(cusolverDnHandle_t handle, int m, int n, int *lwork);
cusolverStatus_t cusolverDnSgesvd(cusolverDnHandle_t handle, signed char jobu, signed char jobvt, int m, int n,
                                  float *A, int lda, float *S, float *U, int ldu, float *VT, int ldvt, float *work,
                                  int lwork, float *rwork, int *info);
cusolverStatus_t cusolverDnDgesvd(cusolverDnHandle_t handle, signed char jobu, signed char jobvt, int m, int n,
                                  double *A, int lda, double *S, double *U, int ldu, double *VT, int ldvt,
                                  double *work, int lwork, double *rwork, int *info);
cusolverStatus_t cusolverDnCgesvd(cusolverDnHandle_t handle, signed char jobu, signed char jobvt, int m, int n,
                                  cuComplex *A, int lda, float *S, cuComplex *U, int ldu, cuComplex *VT, int ldvt,
                                  cuComplex *work, int lwork, float *rwork, int *info);
cusolverStatus_t cusolverDnZgesvd(cusolverDnHandle_t handle, signed char jobu, signed char jobvt, int m, int n,
                                  cuDoubleComplex *A, int lda, double *S, cuDoubleComplex *U, int ldu,
                                  cuDoubleComplex *VT, int ldvt, cuDoubleComplex *work, int lwork, double *rwork,
                                  int *info);

/* SVD: Jacobi, batches of small matrices (m, n <= 32) */
cusolverStatus_t cusolverDnSgesvdjBatched_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n,
                                                     const float *A, int lda, const float *S, const float *U,
                                                     int ldu, const float *V, int ldv, int *lwork,
                                                     gesvdjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnDgesvdjBatched_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n,
                                                     const double *A, int lda, const double *S, const double *U,
                                                     int ldu, const double *V, int ldv, int *lwork,
                                                     gesvdjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnCgesvdjBatched_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n,
                                                     const cuComplex *A, int lda, const float *S,
                                                     const cuComplex *U, int ldu, const cuComplex *V, int ldv,
                                                     int *lwork, gesvdjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnZgesvdjBatched_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n,
                                                     const cuDoubleComplex *A, int lda, const double *S,
                                                     const cuDoubleComplex *U, int ldu, const cuDoubleComplex *V,
                                                     int ldv, int *lwork, gesvdjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnSgesvdjBatched(cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n, float *A,
                                          int lda, float *S, float *U, int ldu, float *V, int ldv, float *work,
                                          int lwork, int *info, gesvdjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnDgesvdjBatched(cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n, double *A,
                                          int lda, double *S, double *U, int ldu, double *V, int ldv, double *work,
                                          int lwork, int *info, gesvdjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnCgesvdjBatched(cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n,
                                          cuComplex *A, int lda, float *S, cuComplex *U, int ldu, cuComplex *V,
                                          int ldv, cuComplex *work, int lwork, int *info, gesvdjInfo_t params,
                                          int batchSize);
cusolverStatus_t cusolverDnZgesvdjBatched(cusolverDnHandle_t handle, cusolverEigMode_t jobz, int m, int n,
                                          cuDoubleComplex *A, int lda, double *S, cuDoubleComplex *U, int ldu,
                                          cuDoubleComplex *V, int ldv, cuDoubleComplex *work, int lwork, int *info,
                                          gesvdjInfo_t params, int batchSize);

/* Hermitian eigenproblem: divide and conquer */
cusolverStatus_t cusolverDnSsyevd_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz,
                                             cublasFillMode_t uplo, int n, const float *A, int lda, const float *W,
                                             int *lwork);
cusolverStatus_t cusolverDnDsyevd_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz,
                                             cublasFillMode_t uplo, int n, const double *A, int lda,
                                             const double *W, int *lwork);
cusolverStatus_t cusolverDnCheevd_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz,
                                             cublasFillMode_t uplo, int n, const cuComplex *A, int lda,
                                             const float *W, int *lwork);
cusolverStatus_t cusolverDnZheevd_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz,
                                             cublasFillMode_t uplo, int n, const cuDoubleComplex *A, int lda,
                                             const double *W, int *lwork);
cusolverStatus_t cusolverDnSsyevd(cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
                                  float *A, int lda, float *W, float *work, int lwork, int *info);
cusolverStatus_t cusolverDnDsyevd(cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
                                  double *A, int lda, double *W, double *work, int lwork, int *info);
cusolverStatus_t cusolverDnCheevd(cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
                                  cuComplex *A, int lda, float *W, cuComplex *work, int lwork, int *info);
cusolverStatus_t cusolverDnZheevd(cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
                                  cuDoubleComplex *A, int lda, double *W, cuDoubleComplex *work, int lwork,
                                  int *info);

/* Hermitian eigenproblem: Jacobi, batches of small matrices (n <= 32) */
cusolverStatus_t cusolverDnSsyevjBatched_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz,
                                                    cublasFillMode_t uplo, int n, const float *A, int lda,
                                                    const float *W, int *lwork, syevjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnDsyevjBatched_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz,
                                                    cublasFillMode_t uplo, int n, const double *A, int lda,
                                                    const double *W, int *lwork, syevjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnCheevjBatched_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz,
                                                    cublasFillMode_t uplo, int n, const cuComplex *A, int lda,
                                                    const float *W, int *lwork, syevjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnZheevjBatched_bufferSize(cusolverDnHandle_t handle, cusolverEigMode_t jobz,
                                                    cublasFillMode_t uplo, int n, const cuDoubleComplex *A, int lda,
                                                    const double *W, int *lwork, syevjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnSsyevjBatched(cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo,
                                         int n, float *A, int lda, float *W, float *work, int lwork, int *info,
                                         syevjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnDsyevjBatched(cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo,
                                         int n, double *A, int lda, double *W, double *work, int lwork, int *info,
                                         syevjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnCheevjBatched(cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo,
                                         int n, cuComplex *A, int lda, float *W, cuComplex *work, int lwork,
                                         int *info, syevjInfo_t params, int batchSize);
cusolverStatus_t cusolverDnZheevjBatched(cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo,
                                         int n, cuDoubleComplex *A, int lda, double *W, cuDoubleComplex *work,
                                         int lwork, int *info, syevjInfo_t params, int batchSize);

/* General eigenproblem (64-bit API) */
cusolverStatus_t cusolverDnXgeev_bufferSize(cusolverDnHandle_t handle, cusolverDnParams_t params,
                                            cusolverEigMode_t jobvl, cusolverEigMode_t jobvr, int64_t n,
                                            cudaDataType dataTypeA, const void *A, int64_t lda,
                                            cudaDataType dataTypeW, const void *W, cudaDataType dataTypeVL,
                                            const void *VL, int64_t ldvl, cudaDataType dataTypeVR, const void *VR,
                                            int64_t ldvr, cudaDataType computeType, size_t *workspaceInBytesOnDevice,
                                            size_t *workspaceInBytesOnHost);
cusolverStatus_t cusolverDnXgeev(cusolverDnHandle_t handle, cusolverDnParams_t params, cusolverEigMode_t jobvl,
                                 cusolverEigMode_t jobvr, int64_t n, cudaDataType dataTypeA, void *A, int64_t lda,
                                 cudaDataType dataTypeW, void *W, cudaDataType dataTypeVL, void *VL, int64_t ldvl,
                                 cudaDataType dataTypeVR, void *VR, int64_t ldvr, cudaDataType computeType,
                                 void *bufferOnDevice, size_t workspaceInBytesOnDevice, void *bufferOnHost,
                                 size_t workspaceInBytesOnHost, int *info);

#ifdef __cplusplus
}
#endif
#endif
