/*
 * The emulated GPU's NVRTC (make emu-test): the subset of <nvrtc.h> that
 * src/cuda/rtc.cu calls, with NVRTC's names and values, implemented in
 * tests/emu/nvrtc_emu.cpp. The "compiler" turns the CUDA source into a
 * shared object for the host (the system C++ compiler behind a small CUDA
 * header, tests/emu/nvrtc_emu.cpp), which tests/emu/rtc_library_emu.cpp
 * loads and runs on the emulated device. Never part of a library users
 * build.
 */
#ifndef ND_EMU_NVRTC_H
#define ND_EMU_NVRTC_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    NVRTC_SUCCESS = 0,
    NVRTC_ERROR_OUT_OF_MEMORY = 1,
    NVRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
    NVRTC_ERROR_INVALID_INPUT = 3,
    NVRTC_ERROR_INVALID_PROGRAM = 4,
    NVRTC_ERROR_INVALID_OPTION = 5,
    NVRTC_ERROR_COMPILATION = 6,
    NVRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7,
    NVRTC_ERROR_INTERNAL_ERROR = 11
} nvrtcResult;

typedef struct _nvrtcProgram *nvrtcProgram;

const char *nvrtcGetErrorString(nvrtcResult result);
nvrtcResult nvrtcVersion(int *major, int *minor);
nvrtcResult nvrtcGetNumSupportedArchs(int *numArchs);
nvrtcResult nvrtcGetSupportedArchs(int *supportedArchs);
nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int numHeaders,
                               const char *const *headers, const char *const *includeNames);
nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog);
nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char *const *options);
nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, size_t *ptxSizeRet);
nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx);
nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet);
nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin);
nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *logSizeRet);
nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log);

/* The image's header (emulation only): magic, version, flags, the shared
 * object's length; the shared object follows. */
#define ND_EMU_RTC_MAGIC "NDRTCEMU"
#define ND_EMU_RTC_SYNC 1u /* the source uses __syncthreads: its blocks run as fibers */
typedef struct nd_emu_rtc_header {
    char magic[8];
    unsigned version;
    unsigned flags;
    unsigned long long length;
} nd_emu_rtc_header;

#ifdef __cplusplus
}
#endif
#endif
