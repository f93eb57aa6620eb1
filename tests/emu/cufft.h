/*
 * The emulated GPU's cuFFT (make emu-test): the subset of <cufft.h> that
 * libndgpu calls, with cuFFT's names, types and enum values (checked against
 * the CUDA 13 toolkit's cufft.h, cuFFT 12.0), implemented over the CPU FFT
 * engine (src/cpu/fft_core.h) in tests/emu/cufft_emu.cpp. Emulation builds
 * put tests/emu first on the include path, so `#include <cufft.h>` finds this
 * file. Never part of a library users build.
 *
 * What is emulated (details in cufft_emu.cpp):
 *  - plans of rank 1 from cufftPlanMany, basic or advanced layout (strides,
 *    distances, batch), for the six types C2C, Z2Z, R2C, D2Z, C2R, Z2D;
 *  - cufftSetStream, and the six cufftExec* functions, queued on the plan's
 *    stream (asynchronous and stream-ordered, like the kernels cuFFT
 *    launches); unnormalised, CUFFT_FORWARD = -1 / CUFFT_INVERSE = +1 as the
 *    sign of the exponent;
 *  - cuFFT's documented argument checks and result codes, and two debugging
 *    aids: data must lie in device memory, and an out-of-place C2R/Z2D
 *    overwrites its input (the documentation warns that it may): the
 *    stand-in fills it with NaN, so a caller that relies on it shows;
 *  - cufftDestroy, cufftGetVersion.
 * Ranks 2 and 3 are CUFFT_NOT_IMPLEMENTED here (the library plans rank 1
 * only), and so are in-place real transforms.
 */
#ifndef ND_EMU_CUFFT_H
#define ND_EMU_CUFFT_H
#include <stddef.h>

#include "cuda_runtime.h" /* the emulated runtime: cudaStream_t */

#define CUFFT_VER_MAJOR 12
#define CUFFT_VER_MINOR 0
#define CUFFT_VER_PATCH 0
#define CUFFT_VER_BUILD 61
#define CUFFT_VERSION 12000
#define ND_CUFFT_EMU 1

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cufftResult_t {
    CUFFT_SUCCESS = 0x0,
    CUFFT_INVALID_PLAN = 0x1,
    CUFFT_ALLOC_FAILED = 0x2,
    CUFFT_INVALID_TYPE = 0x3,
    CUFFT_INVALID_VALUE = 0x4,
    CUFFT_INTERNAL_ERROR = 0x5,
    CUFFT_EXEC_FAILED = 0x6,
    CUFFT_SETUP_FAILED = 0x7,
    CUFFT_INVALID_SIZE = 0x8,
    CUFFT_UNALIGNED_DATA = 0x9,
    CUFFT_INVALID_DEVICE = 0xB,
    CUFFT_NO_WORKSPACE = 0xD,
    CUFFT_NOT_IMPLEMENTED = 0xE,
    CUFFT_NOT_SUPPORTED = 0x10,
    CUFFT_MISSING_DEPENDENCY = 0x11,
    CUFFT_NVRTC_FAILURE = 0x12,
    CUFFT_NVJITLINK_FAILURE = 0x13,
    CUFFT_NVSHMEM_FAILURE = 0x14
} cufftResult;

typedef float cufftReal;
typedef double cufftDoubleReal;
/* cuComplex / cuDoubleComplex are float2 / double2: (x, y) = (re, im) */
typedef struct __attribute__((aligned(8))) nd_emu_cufftComplex {
    float x, y;
} cufftComplex;
typedef struct __attribute__((aligned(16))) nd_emu_cufftDoubleComplex {
    double x, y;
} cufftDoubleComplex;

#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1

typedef enum cufftType_t {
    CUFFT_R2C = 0x2a,
    CUFFT_C2R = 0x2c,
    CUFFT_C2C = 0x29,
    CUFFT_D2Z = 0x6a,
    CUFFT_Z2D = 0x6c,
    CUFFT_Z2Z = 0x69
} cufftType;

typedef int cufftHandle;
#define CUFFT_PLAN_NULL -1

cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                          int ostride, int odist, cufftType type, int batch);
cufftResult cufftCreate(cufftHandle *plan);
cufftResult cufftSetAutoAllocation(cufftHandle plan, int autoAllocate);
cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                              int ostride, int odist, cufftType type, int batch, size_t *workSize);
cufftResult cufftSetWorkArea(cufftHandle plan, void *workArea);
cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream);
cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction);
cufftResult cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata);
cufftResult cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata);
cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata, int direction);
cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata);
cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata);
cufftResult cufftDestroy(cufftHandle plan);
cufftResult cufftGetVersion(int *version);

#ifdef __cplusplus
}
#endif
#endif
