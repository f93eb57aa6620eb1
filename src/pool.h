/* A caching allocator in the manner of CuPy's and PyTorch's, written in
 * plain C over an "upstream" allocator so that it is tested on the CPU
 * (upstream = malloc) and used for GPU memory (upstream = cudaMalloc) and
 * pinned host memory (upstream = cudaHostAlloc).
 *
 *  - requests are rounded up to 512 bytes;
 *  - small requests (<= 1 MiB) are carved from 2 MiB segments, larger ones
 *    get a segment of their own size (rounded to 512 B), and every
 *    segment's free space can be split and merged again;
 *  - best fit: the smallest free block that is large enough, over blocks
 *    freed on the same stream (a block freed on stream S may still be in
 *    use by work queued on S, so it is only handed out again to an
 *    allocation on S; nd__pool_release_cached() is the point where every
 *    stream has been synchronised by the caller);
 *  - when the upstream fails, or the limit would be exceeded, the cache of
 *    wholly free segments is released and the request retried once;
 *  - thread-safe (one mutex per pool).
 */
#ifndef ND_POOL_H
#define ND_POOL_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif
typedef struct nd_pool_upstream {
    /* Returns 0 and sets *p, or nonzero when out of memory. */
    int (*alloc)(void *ctx, size_t nbytes, void **p);
    void (*free)(void *ctx, void *p);
    void *ctx;
} nd_pool_upstream;

typedef struct nd_pool_stats {
    size_t in_use;          /* bytes handed out (rounded sizes) */
    size_t peak_in_use;     /* high-water mark of in_use since the last reset */
    size_t cached;          /* bytes held from the upstream but free */
    size_t reserved;        /* in_use + cached: everything held from upstream */
    size_t limit;           /* 0 = no limit */
    size_t largest_free;    /* largest free block (fragmentation) */
    uint64_t n_upstream_allocs; /* upstream allocations made so far */
    uint64_t n_allocs;      /* allocations served */
    size_t n_segments;      /* segments currently held */
} nd_pool_stats;

typedef struct nd_pool nd_pool;

ND_INTERNAL nd_pool *nd__pool_create(nd_pool_upstream up);
/* caching == false: the pool only keeps the books - every allocation is
 * its own upstream allocation of exactly the requested size, returned to
 * the upstream on free (ND_POOL=0, for compute-sanitizer and valgrind). */
ND_INTERNAL nd_pool *nd__pool_create_ex(nd_pool_upstream up, bool caching);
/* Return every segment to the upstream (blocks still in use included). */
ND_INTERNAL void nd__pool_destroy(nd_pool *p);
/* ND_OK, or ND_ERR_NOMEM with a message naming func and the figures
 * (requested, in use, cached, limit). nbytes == 0 gives a valid unique
 * pointer of a 512-byte block. */
ND_INTERNAL nd_status nd__pool_alloc(nd_pool *p, size_t nbytes, uintptr_t stream, void **ptr, const char *func);
/* Give ptr (from nd__pool_alloc) back to the cache; unknown pointers are ignored and reported false. */
ND_INTERNAL bool nd__pool_free(nd_pool *p, void *ptr);
/* Return wholly free segments to the upstream. */
ND_INTERNAL void nd__pool_release_cached(nd_pool *p);
ND_INTERNAL void nd__pool_get_stats(nd_pool *p, nd_pool_stats *s);
/* 0 = no limit. Does not free anything in use. */
ND_INTERNAL void nd__pool_set_limit(nd_pool *p, size_t limit);
ND_INTERNAL void nd__pool_reset_peak(nd_pool *p);
#ifdef __cplusplus
}
#endif
#endif
