/*
 * The emulated GPU's CUDA runtime API (make emu-test): the subset of
 * <cuda_runtime.h> that libndgpu, its benchmarks and its tests call, with
 * CUDA's names, types and enum values, implemented over HIP-CPU
 * (../shared/hip-cpu) in tests/emu/cuda_runtime_emu.cpp. Emulation builds put
 * tests/emu first on the include path (and the CUDA toolkit's include
 * directory not at all), so `#include <cuda_runtime.h>` finds this file from C
 * and from C++. Never part of a library users build.
 *
 * Semantics follow the CUDA runtime where the library relies on them:
 *  - one device (cuda:0); cudaSetDevice(1) is cudaErrorInvalidDevice;
 *  - kernels, memsets, async copies and event records are queued on their
 *    stream and run asynchronously, in order per stream (HIP-CPU streams);
 *    streams made with cudaStreamNonBlocking are NOT ordered with the
 *    default stream (as on a GPU), so a missing cudaStreamWaitEvent shows;
 *  - the default stream (NULL) is ordered after nothing else either: the
 *    legacy default stream's implicit synchronisation with blocking streams
 *    is not modelled (the library makes only non-blocking streams);
 *  - device memory is host memory (so ASan sees every device access);
 *    cudaMemcpy with cudaMemcpyDeviceToHost etc. checks that the pointers
 *    are of the kind named (cudaErrorInvalidValue otherwise);
 *  - using a destroyed stream or event is cudaErrorInvalidResourceHandle;
 *  - a launch that breaks a real GPU's limits is cudaErrorInvalidConfiguration
 *    (the check is in src/cuda/cuda_seam.h, on every build);
 *  - cudaEventElapsedTime measures host wall time between the two records.
 */
#ifndef ND_EMU_CUDA_RUNTIME_H
#define ND_EMU_CUDA_RUNTIME_H
#include <stddef.h>
#include <stdint.h>

#define CUDART_VERSION 13000
#define ND_CUDA_EMU_RUNTIME 1

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorCudartUnloading = 4,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInsufficientDriver = 35,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidKernelImage = 200,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorSymbolNotFound = 500,
    cudaErrorNotReady = 600,
    cudaErrorLaunchFailure = 719,
    cudaErrorUnknown = 999
} cudaError_t;

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
} cudaMemcpyKind;

typedef enum cudaMemoryType {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3
} cudaMemoryType;

typedef enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76
} cudaDeviceAttr;

#define cudaStreamDefault 0x00u
#define cudaStreamNonBlocking 0x01u
#define cudaEventDefault 0x00u
#define cudaEventBlockingSync 0x01u
#define cudaEventDisableTiming 0x02u
#define cudaHostAllocDefault 0x00u
#define cudaHostAllocPortable 0x01u
#define cudaHostAllocMapped 0x02u
#define cudaHostAllocWriteCombined 0x04u

typedef struct nd_emu_stream *cudaStream_t;
typedef struct nd_emu_event *cudaEvent_t;
/* Library management (run-time compiled kernels: tests/emu/rtc_library_emu.cpp) */
typedef struct nd_emu_library *cudaLibrary_t;
typedef struct nd_emu_kernel *cudaKernel_t;
enum cudaJitOption { cudaJitMaxRegisters = 0 };
enum cudaLibraryOption { cudaLibraryHostUniversalFunctionAndDataTable = 0 };

typedef struct cudaPointerAttributes {
    enum cudaMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
} cudaPointerAttributes;

typedef struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    size_t sharedMemPerBlockOptin;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int major;
    int minor;
    int multiProcessorCount;
    int l2CacheSize;
    int memoryBusWidth;
    int concurrentKernels;
    int asyncEngineCount;
    int unifiedAddressing;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
} cudaDeviceProp;

const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *dev);
cudaError_t cudaSetDevice(int dev);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int dev);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int dev);
cudaError_t cudaDeviceCanAccessPeer(int *can, int dev, int peer);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaRuntimeGetVersion(int *v);
cudaError_t cudaDriverGetVersion(int *v);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);

cudaError_t cudaMalloc(void **ptr, size_t n);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaHostAlloc(void **ptr, size_t n, unsigned flags);
cudaError_t cudaMallocHost(void **ptr, size_t n);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attr, const void *ptr);

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind kind, cudaStream_t s);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev, size_t n, cudaStream_t s);
cudaError_t cudaMemset(void *dst, int value, size_t n);
cudaError_t cudaMemsetAsync(void *dst, int value, size_t n, cudaStream_t s);

cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamQuery(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags);

cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

/* The image is what the NVRTC stand-in (tests/emu/nvrtc_emu.cpp) makes: a
 * shared object of the kernels compiled for the host behind a small header;
 * loading it dlopens it. The options are ignored. cudaLaunchKernel (C++
 * only: it takes dim3) is declared in tests/emu/emu_device.h. */
cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code, enum cudaJitOption *jitOptions,
                                void **jitOptionsValues, unsigned numJitOptions,
                                enum cudaLibraryOption *libraryOptions, void **libraryOptionValues,
                                unsigned numLibraryOptions);
cudaError_t cudaLibraryUnload(cudaLibrary_t library);
cudaError_t cudaLibraryGetKernel(cudaKernel_t *kernel, cudaLibrary_t library, const char *name);

/* ---- emulation-only hooks (no CUDA twin; used by the seam and the tests) ---- */
/* Queue fn(arg) on stream s as a one-thread "kernel" (the cuBLAS stand-in
 * runs its products this way, so they are asynchronous and stream-ordered). */
cudaError_t nd_emu_enqueue(cudaStream_t s, void (*fn)(void *), void *arg);
/* Whether s is the default stream or a live stream (not destroyed). */
int nd_emu_stream_valid(cudaStream_t s);
/* Whether p lies in a live device allocation of at least n bytes from p. */
int nd_emu_is_device_range(const void *p, size_t n);
/* Make the next cudaGetLastError() return e (a launch the seam refused). */
void nd_emu_set_last_error(cudaError_t e);
/* The calling thread's next cuBLAS product (cublasGemm*Ex) fails with
 * cublasStatus_t status and leaves runtime_error as the thread's last
 * error, as cuBLAS does when a CUDA call inside it fails. */
void nd_emu_cublas_fail_next(int status, cudaError_t runtime_error);
/* A device fault (a kernel or a stand-in found what a GPU would turn into a
 * fault or a race): printed on stderr, and every later call fails with
 * cudaErrorLaunchFailure, as after a fault on a GPU. */
void nd_emu_device_fault(const char *what);
/* The checks every entry point of the runtime starts with (a fault before,
 * a fork, exit): cudaSuccess or the error, left as the last error. */
cudaError_t nd_emu_enter(void);

#ifdef __cplusplus
}
#endif
#endif
