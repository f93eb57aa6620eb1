/*
 * The emulated GPU's cuBLAS (make emu-test): the subset of <cublas_v2.h> that
 * libndgpu calls, with cuBLAS's names, types and enum values (checked against
 * the CUDA 13 toolkit's cublas_api.h and library_types.h), implemented over
 * OpenBLAS's CBLAS in tests/emu/cublas_emu.cpp. Emulation builds put
 * tests/emu first on the include path, so `#include <cublas_v2.h>` finds this
 * file. Never part of a library users build.
 *
 * What is emulated (details in cublas_emu.cpp):
 *  - GEMMs (cublasGemmEx, cublasGemmStridedBatchedEx, cublasGemmBatchedEx
 *    and their _64 forms) in column-major order with real op flags, leading
 *    dimensions and batch strides, queued on the handle's stream (so they
 *    run asynchronously and stream-ordered, like kernels);
 *  - the batched LU and QR (cublas<t>getrfBatched, getrsBatched,
 *    geqrfBatched) over LAPACK (tests/emu/cublas_batched_emu.cpp);
 *  - cuBLAS's documented argument checks and status codes; operands must lie
 *    in device memory (cudaMalloc'd), as a real GPU would fault otherwise;
 *  - type combinations (A, B and C of one type): R_32F with COMPUTE_32F[_PEDANTIC]
 *    or COMPUTE_32F_FAST_TF32 (inputs rounded to TF32), R_64F with
 *    COMPUTE_64F[_PEDANTIC], R_16F and R_16BF with COMPUTE_32F[_PEDANTIC]
 *    (float accumulation, one rounding of alpha*AB + beta*C to the output
 *    type), C_32F with COMPUTE_32F[_PEDANTIC] (cgemm: alpha and beta are
 *    cuComplex), C_64F with COMPUTE_64F[_PEDANTIC] (zgemm: cuDoubleComplex).
 *    Anything else is CUBLAS_STATUS_NOT_SUPPORTED.
 * Only host pointer mode exists: alpha and beta are host pointers read at
 * call time. As the toolkit's header does, this one includes <cuComplex.h>
 * (tests/emu/cuComplex.h).
 */
#ifndef ND_EMU_CUBLAS_V2_H
#define ND_EMU_CUBLAS_V2_H
#include <stddef.h>
#include <stdint.h>

#include "cuComplex.h"    /* cuComplex, cuDoubleComplex (the toolkit's cublas_api.h includes it) */
#include "cuda_runtime.h" /* the emulated runtime: cudaStream_t */

#define CUBLAS_VER_MAJOR 13
#define CUBLAS_VER_MINOR 1
#define CUBLAS_VER_PATCH 0
#define CUBLAS_VER_BUILD 3
#define CUBLAS_VERSION (CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH)
#define ND_CUBLAS_EMU 1

#ifdef __cplusplus
extern "C" {
#endif

/* ---- library_types.h (guarded: a later emulated cuFFT/cuSOLVER header may
 * define the same types under the same guard) ---- */
#ifndef ND_EMU_LIBRARY_TYPES
#define ND_EMU_LIBRARY_TYPES 1
typedef enum cudaDataType_t {
    CUDA_R_16F = 2,
    CUDA_C_16F = 6,
    CUDA_R_16BF = 14,
    CUDA_C_16BF = 15,
    CUDA_R_32F = 0,
    CUDA_C_32F = 4,
    CUDA_R_64F = 1,
    CUDA_C_64F = 5,
    CUDA_R_4I = 16,
    CUDA_C_4I = 17,
    CUDA_R_4U = 18,
    CUDA_C_4U = 19,
    CUDA_R_8I = 3,
    CUDA_C_8I = 7,
    CUDA_R_8U = 8,
    CUDA_C_8U = 9,
    CUDA_R_16I = 20,
    CUDA_C_16I = 21,
    CUDA_R_16U = 22,
    CUDA_C_16U = 23,
    CUDA_R_32I = 10,
    CUDA_C_32I = 11,
    CUDA_R_32U = 12,
    CUDA_C_32U = 13,
    CUDA_R_64I = 24,
    CUDA_C_64I = 25,
    CUDA_R_64U = 26,
    CUDA_C_64U = 27,
    CUDA_R_8F_E4M3 = 28,
    CUDA_R_8F_UE4M3 = CUDA_R_8F_E4M3,
    CUDA_R_8F_E5M2 = 29,
    CUDA_R_8F_UE8M0 = 30,
    CUDA_R_6F_E2M3 = 31,
    CUDA_R_6F_E3M2 = 32,
    CUDA_R_4F_E2M1 = 33
} cudaDataType;
typedef enum cudaDataType_t cudaDataType_t;
#endif

/* ---- cublas_api.h ---- */
typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;

typedef enum {
    CUBLAS_OP_N = 0,
    CUBLAS_OP_T = 1,
    CUBLAS_OP_C = 2,
    CUBLAS_OP_HERMITAN = 2, /* synonym of CUBLAS_OP_C */
    CUBLAS_OP_CONJG = 3     /* placeholder, not supported (INVALID_VALUE) */
} cublasOperation_t;

typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;

/* (cuBLAS itself takes it in its triangular routines, which the stand-in has
 * not; the cuSOLVER stand-in, tests/emu/cusolverDn.h, uses it as the real
 * cusolverDn.h does through cublas_api.h) */
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;

typedef enum {
    CUBLAS_GEMM_DFALT = -1,
    CUBLAS_GEMM_DEFAULT = -1,
    CUBLAS_GEMM_ALGO0 = 0,
    CUBLAS_GEMM_ALGO1 = 1,
    CUBLAS_GEMM_ALGO2 = 2,
    CUBLAS_GEMM_ALGO3 = 3,
    CUBLAS_GEMM_ALGO4 = 4,
    CUBLAS_GEMM_ALGO5 = 5,
    CUBLAS_GEMM_ALGO6 = 6,
    CUBLAS_GEMM_ALGO7 = 7,
    CUBLAS_GEMM_ALGO8 = 8,
    CUBLAS_GEMM_ALGO9 = 9,
    CUBLAS_GEMM_ALGO10 = 10,
    CUBLAS_GEMM_ALGO11 = 11,
    CUBLAS_GEMM_ALGO12 = 12,
    CUBLAS_GEMM_ALGO13 = 13,
    CUBLAS_GEMM_ALGO14 = 14,
    CUBLAS_GEMM_ALGO15 = 15,
    CUBLAS_GEMM_ALGO16 = 16,
    CUBLAS_GEMM_ALGO17 = 17,
    CUBLAS_GEMM_ALGO18 = 18,
    CUBLAS_GEMM_ALGO19 = 19,
    CUBLAS_GEMM_ALGO20 = 20,
    CUBLAS_GEMM_ALGO21 = 21,
    CUBLAS_GEMM_ALGO22 = 22,
    CUBLAS_GEMM_ALGO23 = 23,
    CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
    CUBLAS_GEMM_DFALT_TENSOR_OP = 99,
    CUBLAS_GEMM_ALGO0_TENSOR_OP = 100,
    CUBLAS_GEMM_ALGO1_TENSOR_OP = 101,
    CUBLAS_GEMM_ALGO2_TENSOR_OP = 102,
    CUBLAS_GEMM_ALGO3_TENSOR_OP = 103,
    CUBLAS_GEMM_ALGO4_TENSOR_OP = 104,
    CUBLAS_GEMM_ALGO5_TENSOR_OP = 105,
    CUBLAS_GEMM_ALGO6_TENSOR_OP = 106,
    CUBLAS_GEMM_ALGO7_TENSOR_OP = 107,
    CUBLAS_GEMM_ALGO8_TENSOR_OP = 108,
    CUBLAS_GEMM_ALGO9_TENSOR_OP = 109,
    CUBLAS_GEMM_ALGO10_TENSOR_OP = 110,
    CUBLAS_GEMM_ALGO11_TENSOR_OP = 111,
    CUBLAS_GEMM_ALGO12_TENSOR_OP = 112,
    CUBLAS_GEMM_ALGO13_TENSOR_OP = 113,
    CUBLAS_GEMM_ALGO14_TENSOR_OP = 114,
    CUBLAS_GEMM_ALGO15_TENSOR_OP = 115,
    CUBLAS_GEMM_AUTOTUNE = 999 /* not supported here (NOT_SUPPORTED) */
} cublasGemmAlgo_t;

typedef enum {
    CUBLAS_DEFAULT_MATH = 0,
    CUBLAS_TENSOR_OP_MATH = 1, /* deprecated */
    CUBLAS_PEDANTIC_MATH = 2,
    CUBLAS_TF32_TENSOR_OP_MATH = 3,
    CUBLAS_FP32_EMULATED_BF16X9_MATH = 4,
    CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH = 8,
    CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
} cublasMath_t;

typedef enum {
    CUBLAS_COMPUTE_16F = 64,
    CUBLAS_COMPUTE_16F_PEDANTIC = 65,
    CUBLAS_COMPUTE_32F = 68,
    CUBLAS_COMPUTE_32F_PEDANTIC = 69,
    CUBLAS_COMPUTE_32F_FAST_16F = 74,
    CUBLAS_COMPUTE_32F_FAST_16BF = 75,
    CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    CUBLAS_COMPUTE_32F_EMULATED_16BFX9 = 78,
    CUBLAS_COMPUTE_64F = 70,
    CUBLAS_COMPUTE_64F_PEDANTIC = 71,
    CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT = 79,
    CUBLAS_COMPUTE_32I = 72,
    CUBLAS_COMPUTE_32I_PEDANTIC = 73
} cublasComputeType_t;

struct cublasContext;
typedef struct cublasContext *cublasHandle_t;

/* ---- handles (cublasCreate_v2 etc. in the real header; plain names here) ---- */
cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t streamId);
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *streamId);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode);
cublasStatus_t cublasSetWorkspace(cublasHandle_t handle, void *workspace, size_t workspaceSizeInBytes);
const char *cublasGetStatusName(cublasStatus_t status);
const char *cublasGetStatusString(cublasStatus_t status);

/* ---- GEMM ---- */
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                            int k, const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t computeType, cublasGemmAlgo_t algo);

cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int64_t m,
                               int64_t n, int64_t k, const void *alpha, const void *A, cudaDataType Atype,
                               int64_t lda, const void *B, cudaDataType Btype, int64_t ldb, const void *beta, void *C,
                               cudaDataType Ctype, int64_t ldc, cublasComputeType_t computeType,
                               cublasGemmAlgo_t algo);

cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,
                                   int n, int k, const void *alpha, const void *const Aarray[], cudaDataType Atype,
                                   int lda, const void *const Barray[], cudaDataType Btype, int ldb,
                                   const void *beta, void *const Carray[], cudaDataType Ctype, int ldc,
                                   int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo);

cublasStatus_t cublasGemmBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                      int64_t m, int64_t n, int64_t k, const void *alpha,
                                      const void *const Aarray[], cudaDataType Atype, int64_t lda,
                                      const void *const Barray[], cudaDataType Btype, int64_t ldb, const void *beta,
                                      void *const Carray[], cudaDataType Ctype, int64_t ldc, int64_t batchCount,
                                      cublasComputeType_t computeType, cublasGemmAlgo_t algo);

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
                                          int m, int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long int strideA, const void *B, cudaDataType Btype, int ldb,
                                          long long int strideB, const void *beta, void *C, cudaDataType Ctype,
                                          int ldc, long long int strideC, int batchCount,
                                          cublasComputeType_t computeType, cublasGemmAlgo_t algo);

cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa,
                                             cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
                                             const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
                                             long long int strideA, const void *B, cudaDataType Btype, int64_t ldb,
                                             long long int strideB, const void *beta, void *C, cudaDataType Ctype,
                                             int64_t ldc, long long int strideC, int64_t batchCount,
                                             cublasComputeType_t computeType, cublasGemmAlgo_t algo);

/* ---- batched LU and QR (tests/emu/cublas_batched_emu.cpp) ---- */
#define ND__CUBLAS_BATCHED(P, T)                                                                                   \
    cublasStatus_t cublas##P##getrfBatched(cublasHandle_t handle, int n, T *const A[], int lda, int *P_,           \
                                           int *info, int batchSize);                                              \
    cublasStatus_t cublas##P##getrsBatched(cublasHandle_t handle, cublasOperation_t trans, int n, int nrhs,        \
                                           const T *const Aarray[], int lda, const int *devIpiv,                   \
                                           T *const Barray[], int ldb, int *info, int batchSize);                  \
    cublasStatus_t cublas##P##geqrfBatched(cublasHandle_t handle, int m, int n, T *const Aarray[], int lda,        \
                                           T *const TauArray[], int *info, int batchSize);
ND__CUBLAS_BATCHED(S, float)
ND__CUBLAS_BATCHED(D, double)
ND__CUBLAS_BATCHED(C, cuComplex)
ND__CUBLAS_BATCHED(Z, cuDoubleComplex)
#undef ND__CUBLAS_BATCHED

#ifdef __cplusplus
}
#endif
#endif
