/* The portability macros of every file: ND_HOSTDEV marks scalar code
 * shared by the C compiler and nvcc (the CPU loops and the CUDA kernels
 * call the same function body); ND_INTERNAL keeps a library function out
 * of the exported ABI; ND_LIKELY/ND_UNLIKELY are branch hints. */
#ifndef ND_HOSTDEV_H
#define ND_HOSTDEV_H
#if defined(__CUDACC__)
#define ND_HOSTDEV __host__ __device__
#else
#define ND_HOSTDEV
#endif

#define ND_INTERNAL __attribute__((visibility("hidden")))

#ifndef ND_LIKELY
#define ND_LIKELY(x) __builtin_expect(!!(x), 1)
#define ND_UNLIKELY(x) __builtin_expect(!!(x), 0)
#endif
#endif
