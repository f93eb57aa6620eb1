/* The library's one allocator door (SQLite's and Lua's habit).
 *
 * Every host allocation of the library (array buffers of the CPU backend,
 * headers, pool bookkeeping, scratch, .npy and DLPack structures) goes
 * through nd__malloc & co below, never through malloc/free directly; every
 * device or pinned allocation from a vendor API (cudaMalloc, cudaHostAlloc)
 * first asks nd__alloc_inject() and fails as the vendor call would when it
 * says so. That one gate lets the tests fail the N-th allocation from now
 * (nd__alloc_fail_after) and so walk every failure path of a workload; the
 * live count (nd__alloc_live) shows that each path released what it took.
 *
 * Cost when no failure is armed: one relaxed atomic load per allocation and
 * one atomic add per allocation and free (the live count).
 *
 * What is not behind the door: allocations made by other libraries on our
 * behalf (OpenBLAS, cuBLAS, the CUDA runtime, pthread_create's stacks) and
 * the C++ containers of src/cuda/stream.cu (they report std::bad_alloc as
 * ND_ERR_NOMEM where they are used). */
#ifndef ND_ALLOC_H
#define ND_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ND_ALLOC_API __attribute__((visibility("hidden")))

/* malloc, calloc, realloc and free with the fault gate and the live count.
 * nd__realloc leaves p untouched when it fails (as realloc does);
 * nd__free(NULL) does nothing. */
ND_ALLOC_API void *nd__malloc(size_t nbytes);
ND_ALLOC_API void *nd__calloc(size_t count, size_t size);
ND_ALLOC_API void *nd__realloc(void *p, size_t nbytes);
ND_ALLOC_API void nd__free(void *p);
/* align a power of two; nbytes is rounded up to a multiple of align
 * (aligned_alloc's rule), 0 to align. Freed with nd__free. */
ND_ALLOC_API void *nd__aligned_alloc(size_t align, size_t nbytes);

/* The gate for allocations that do not come from the C allocator (device
 * and pinned memory): true when this allocation must fail (an injected
 * fault). A caller that then allocates successfully counts it with
 * nd__alloc_live_add(1), and its release with nd__alloc_live_add(-1). */
ND_ALLOC_API bool nd__alloc_inject(void);
ND_ALLOC_API void nd__alloc_live_add(long delta);

/* Test hooks. nd__alloc_fail_after(n), n >= 1: the n-th allocation from now
 * (1 = the next one), counted over all threads, fails once; n <= 0 disarms.
 * nd__alloc_fault_reset() disarms and returns whether an armed failure was
 * injected since nd__alloc_fail_after. nd__alloc_live() is the number of
 * allocations through the door not yet released. */
ND_ALLOC_API void nd__alloc_fail_after(long n);
ND_ALLOC_API bool nd__alloc_fault_reset(void);
ND_ALLOC_API long nd__alloc_live(void);

#ifdef __cplusplus
}
#endif

#endif
