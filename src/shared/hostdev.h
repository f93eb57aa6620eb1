/* ND_HOSTDEV marks scalar code shared by the C compiler and nvcc: the CPU
 * loops and the CUDA kernels call the same function body. */
#ifndef ND_HOSTDEV_H
#define ND_HOSTDEV_H
#if defined(__CUDACC__)
#define ND_HOSTDEV __host__ __device__
#else
#define ND_HOSTDEV
#endif
#endif
