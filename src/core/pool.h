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
 *  - stream safety (PyTorch's record_stream, CuPy's pinned pool): a block
 *    that work on OTHER streams may still use - streams named at free time
 *    (nd__pool_free_after) or recorded on the block while it was live
 *    (nd__pool_record_stream) - is "pending" after its free: the upstream
 *    records an event on each of those streams that still has work queued,
 *    and the block joins the free lists only when all of them completed.
 *    Pending blocks are polled (never waited for) when the free lists
 *    cannot serve a request, and waited for only before the pool would
 *    otherwise fail (out of memory, limit) and in release_cached;
 *  - when the upstream fails, or the limit would be exceeded, the cache of
 *    wholly free segments is released and the request retried once;
 *  - thread-safe (one mutex per pool).
 */
#ifndef ND_POOL_H
#define ND_POOL_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif
/* A stream whose work may use a block: its handle and its device (the
 * pinned pool serves every device, and a device block can be read by a
 * peer copy on another device's stream). */
typedef struct nd_pool_use {
    uintptr_t stream;
    int dev;
} nd_pool_use;

typedef struct nd_pool_upstream {
    /* Returns 0 and sets *p, or nonzero when out of memory. */
    int (*alloc)(void *ctx, size_t nbytes, void **p);
    /* In a non-caching pool free() is called while work may still use p:
     * it must wait for the device itself (cudaFree and cudaFreeHost do). */
    void (*free)(void *ctx, void *p);
    void *ctx;
    /* Stream safety; all NULL where only the host uses the memory (then a
     * freed block is reusable at once).
     *  fence: an event that completes once the work queued on use.stream so
     *         far has, or NULL when nothing is left to wait for (the stream is
     *         idle or gone); where no event can be recorded it waits for the
     *         stream itself and returns NULL;
     *  done:  whether ev has completed (never blocks);
     *  wait:  block until ev has completed;
     *  drop:  the pool no longer needs ev (dev: that of the fenced stream). */
    void *(*fence)(void *ctx, nd_pool_use use);
    bool (*done)(void *ctx, void *ev);
    void (*wait)(void *ctx, void *ev);
    void (*drop)(void *ctx, void *ev, int dev);
    /* Device memory: allocations are made on a stream of device `dev`, and
     * the block's own stream needs no fence (a later allocation on it is
     * ordered after its earlier work). false for pinned host memory, which
     * the host reuses at once: every stream that used a block is fenced. */
    bool stream_ordered;
    int dev;
    /* OPTIONAL, a stream-ordered upstream (CUDA's cudaMallocAsync pools;
     * all four or none, only in a pool made with caching == false): the
     * upstream caches and reuses memory itself, in stream order, and the
     * pool keeps the books (in use, peak, limit, counts) and the streams a
     * block was used on.
     *  alloc_on: as alloc, ordered on stream (the allocating stream);
     *            *grew: whether the upstream took memory from the system for
     *            it (else it reused its own cache; device_allocs counts these);
     *  free_on:  give p back in the order of stream (the block's own), after
     *            the work queued so far on waits[0..n) (the other streams that
     *            may still use it: the upstream makes stream wait for them,
     *            the host never waits);
     *  held:     bytes the upstream holds now, its cache included;
     *  trim:     return the upstream's cache to the system. */
    int (*alloc_on)(void *ctx, size_t nbytes, uintptr_t stream, void **p, bool *grew);
    void (*free_on)(void *ctx, void *p, uintptr_t stream, const nd_pool_use *waits, int n);
    size_t (*held)(void *ctx);
    void (*trim)(void *ctx);
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
    size_t pending;         /* bytes freed but waiting for other streams (part of cached) */
} nd_pool_stats;

typedef struct nd_pool nd_pool;

ND_INTERNAL nd_pool *nd__pool_create(nd_pool_upstream up);
/* caching == false: the pool only keeps the books - every allocation is
 * its own upstream allocation of exactly the requested size, returned to
 * the upstream on free (ND_POOL=0, for compute-sanitizer and valgrind; and
 * over a stream-ordered upstream, ND_POOL=async: sizes rounded to 512 B as
 * in the caching pool, returned with free_on). */
ND_INTERNAL nd_pool *nd__pool_create_ex(nd_pool_upstream up, bool caching);
/* Return every segment to the upstream (blocks still in use included). */
ND_INTERNAL void nd__pool_destroy(nd_pool *p);
/* ND_OK, or ND_ERR_NOMEM with a message naming func and the figures
 * (requested, in use, cached, limit). nbytes == 0 gives a valid unique
 * pointer of a 512-byte block. */
ND_INTERNAL nd_status nd__pool_alloc(nd_pool *p, size_t nbytes, uintptr_t stream, void **ptr, const char *func);
/* Give ptr (from nd__pool_alloc) back to the cache; unknown pointers are ignored and reported false. */
ND_INTERNAL bool nd__pool_free(nd_pool *p, void *ptr);
/* nd__pool_free, where work queued on uses[0..n) may still use the block
 * besides the streams recorded on it: it is reused only after that work. */
ND_INTERNAL bool nd__pool_free_after(nd_pool *p, void *ptr, const nd_pool_use *uses, int n);
/* Work queued on use.stream uses the live block at ptr (the pointer
 * nd__pool_alloc gave): when freed, the block waits for that work.
 * Unknown pointers are ignored (memory from elsewhere). */
ND_INTERNAL void nd__pool_record_stream(nd_pool *p, void *ptr, nd_pool_use use);
/* Return wholly free segments to the upstream (waits for pending blocks
 * first: the caller has normally synchronised the device already). */
ND_INTERNAL void nd__pool_release_cached(nd_pool *p);
ND_INTERNAL void nd__pool_get_stats(nd_pool *p, nd_pool_stats *s);
/* 0 = no limit. Does not free anything in use. */
ND_INTERNAL void nd__pool_set_limit(nd_pool *p, size_t limit);
ND_INTERNAL void nd__pool_reset_peak(nd_pool *p);

#ifdef __cplusplus
}
#endif
#endif
