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
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureIsolation = 905,
    cudaErrorStreamCaptureWrongThread = 908,
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
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrMemoryPoolsSupported = 115
} cudaDeviceAttr;

/* Managed memory and stream-ordered pools (CUDA 13's signatures). */
#define cudaMemAttachGlobal 0x01u
#define cudaMemAttachHost 0x02u
enum cudaMemLocationType {
    cudaMemLocationTypeInvalid = 0,
    cudaMemLocationTypeDevice = 1,
    cudaMemLocationTypeHost = 2
};
struct cudaMemLocation {
    enum cudaMemLocationType type;
    int id;
};
typedef enum cudaMemoryAdvise {
    cudaMemAdviseSetReadMostly = 1,
    cudaMemAdviseUnsetReadMostly = 2,
    cudaMemAdviseSetPreferredLocation = 3,
    cudaMemAdviseUnsetPreferredLocation = 4,
    cudaMemAdviseSetAccessedBy = 5,
    cudaMemAdviseUnsetAccessedBy = 6
} cudaMemoryAdvise;
enum cudaMemAllocationType { cudaMemAllocationTypeInvalid = 0, cudaMemAllocationTypePinned = 1 };
enum cudaMemAllocationHandleType { cudaMemHandleTypeNone = 0 };
struct cudaMemPoolProps {
    enum cudaMemAllocationType allocType;
    enum cudaMemAllocationHandleType handleTypes;
    struct cudaMemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
};
enum cudaMemPoolAttr {
    cudaMemPoolAttrReleaseThreshold = 0x4,
    cudaMemPoolAttrReservedMemCurrent = 0x5,
    cudaMemPoolAttrReservedMemHigh = 0x6,
    cudaMemPoolAttrUsedMemCurrent = 0x7,
    cudaMemPoolAttrUsedMemHigh = 0x8
};
typedef struct nd_emu_mempool *cudaMemPool_t;

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
/* Graphs (stream capture): see the functions below. */
typedef enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
} cudaStreamCaptureMode;
typedef enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
} cudaStreamCaptureStatus;
typedef struct nd_emu_graph *cudaGraph_t;
typedef struct nd_emu_graph_exec *cudaGraphExec_t;
typedef struct nd_emu_graph_node *cudaGraphNode_t;
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
/* Managed memory is host memory here as all device memory is; it counts as
 * device memory and as host memory in the copy-kind checks. Prefetch and
 * advice check their range (inside one managed allocation) and location
 * (cuda:0 or the host) and move nothing. */
cudaError_t cudaMallocManaged(void **ptr, size_t n, unsigned flags);
cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t n, struct cudaMemLocation loc, unsigned flags, cudaStream_t s);
cudaError_t cudaMemAdvise(const void *ptr, size_t n, enum cudaMemoryAdvise advice, struct cudaMemLocation loc);
/* Stream-ordered pools: an allocation is made at once; cudaFreeAsync
 * queues the free itself on its stream (so memory freed while another
 * stream still uses it, unordered, is a use after free that ASan reports);
 * the pool caches nothing (reserved == used; cudaMemPoolTrimTo has nothing
 * to do). */
cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const struct cudaMemPoolProps *props);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep);
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t n, cudaMemPool_t pool, cudaStream_t s);
cudaError_t cudaMallocAsync(void **ptr, size_t n, cudaStream_t s);
cudaError_t cudaFreeAsync(void *ptr, cudaStream_t s);

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

/* Stream capture and graphs. A capturing stream records what is queued on
 * it (kernels, copies, memsets, the library stand-ins' jobs, event records
 * and waits) instead of running it; cudaGraphLaunch queues the recorded
 * work again, in order, on the launch stream. As on a GPU:
 *  - the legacy default stream cannot capture; a stream captures once at a
 *    time, and the capture ends on the thread that began it;
 *  - while a thread captures (in global or thread-local mode, unless it
 *    exchanged its mode for relaxed: cudaThreadExchangeStreamCaptureMode),
 *    the calls that would synchronise or allocate (cudaMalloc, cudaFree,
 *    cudaHostAlloc, cudaFreeHost, cudaMallocManaged, cudaMemcpy, cudaMemset,
 *    cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize)
 *    fail with cudaErrorStreamCaptureUnsupported, and so do
 *    cudaStreamSynchronize and cudaStreamQuery of a capturing stream from
 *    any thread; each such failure invalidates the capture, and its
 *    cudaStreamEndCapture answers cudaErrorStreamCaptureInvalidated;
 *  - a capturing stream may wait only for events recorded in the same
 *    capture (cudaErrorStreamCaptureIsolation otherwise);
 *  - launching a graph on a capturing stream is not modelled
 *    (cudaErrorStreamCaptureUnsupported). */
cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *status);
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);

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
/* As nd_emu_enqueue, for a job that may run more than once (a graph
 * replays it): fn(arg) each time, drop(arg) once no graph or queue holds
 * the job any more. */
cudaError_t nd_emu_enqueue_owned(cudaStream_t s, void (*fn)(void *), void *arg, void (*drop)(void *));
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
