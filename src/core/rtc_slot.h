/* The contract of the run-time compilation slots of the backend interface
 * (src/core/backend.h: rtc_compile, rtc_kernel, rtc_launch), filled by the
 * CUDA backend (src/cuda/rtc.cu: NVRTC, the runtime's library management)
 * and left NULL by the CPU's. The raw-kernel family (src/kernel/raw.c,
 * nd_raw_module_* / nd_raw_kernel_*) calls them; so may any family that
 * generates CUDA source.
 *
 *   rtc_compile(&mod, dev, src, &origin, fn)
 *     The program src (source text, NVRTC options) compiled for the
 *     architecture of device dev (an index of the backend's devices,
 *     already validated): *mod is a handle the backend owns and keeps for
 *     the life of the process (never released: a second compile of the
 *     same program on the same device returns the same handle). Cached in
 *     memory and on disk (src/core/kcache.h), keyed by the text, the
 *     options, the architecture and the compiler's version; *origin says
 *     where it came from (ND_RTC_*), for tests and the curious.
 *     Errors: ND_ERR_INVALID for a compile error (the message carries the
 *     compiler's log, truncated to fit nd_last_error), ND_ERR_UNSUPPORTED
 *     when no compiler is found (the message names it), ND_ERR_BACKEND when
 *     the runtime refuses the image; each message names fn.
 *   rtc_kernel(&kern, mod, name, fn)
 *     The __global__ function `name` (an extern "C" name, or a lowered
 *     name) of mod: a handle valid as long as mod. ND_ERR_INVALID when mod
 *     has no such function.
 *   rtc_launch(kern, dev, grid, block, shmem, args, fn)
 *     Queue kern on the calling thread's current stream of device dev
 *     (nd__current_stream) with grid/block extents (x, y, z), shmem bytes
 *     of dynamic shared memory and args[i] pointing at the i-th
 *     parameter's value (cudaLaunchKernel's convention: the values are
 *     copied before the call returns). A geometry outside a GPU's limits
 *     (src/cuda/cuda_seam.h: nd_launch_ok) is ND_ERR_INVALID with the
 *     figures; a refused launch ND_ERR_BACKEND. Returns without waiting. */
#ifndef ND_RTC_SLOT_H
#define ND_RTC_SLOT_H
#include <stddef.h>

/* A program to compile: the source text and the compiler options. */
typedef struct nd_rtc_source {
    const char *text;             /* NUL-terminated CUDA C++ source */
    const char *name;             /* the program's name in the compiler's messages ("kernel.cu") */
    const char *const *options;   /* NVRTC options added after the backend's own */
    int noptions;
} nd_rtc_source;

/* Where rtc_compile found its image. */
enum { ND_RTC_COMPILED = 0, ND_RTC_FROM_MEMORY = 1, ND_RTC_FROM_DISK = 2 };

typedef struct nd_rtc_module nd_rtc_module; /* the backend's compiled program on one device */
#endif
