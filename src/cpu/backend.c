/* The CPU backend: host memory, its accounting and the descriptor. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu/cpu.h"
#include "cpu/index.h" /* gather, scatter, compaction */
#include "shared/philox.h"
#include "cpu/scan.h" /* the scan entry point */
#include "cpu/sort_cpu.h"
#include "cpu/mixed.h" /* softmax, cross-entropy, loss scaling */

/* Accounting of host memory held by CPU arrays. */
static atomic_size_t g_in_use, g_peak, g_limit;
static atomic_ullong g_allocs, g_fresh;

/* The cache of large blocks. glibc's allocator keeps and reuses small and
 * medium blocks itself, but gives every block of 32 MiB and more (and, at
 * first, of 128 KiB and more) straight back to the kernel, and a fresh
 * mapping costs a page fault and the kernel's zeroing of every page: about
 * one more pass over the memory for an op that allocates its result (c =
 * a * b of 1.6e7 float32, AMD Zen 4: 10 ms with 33 page faults a call,
 * 4.4-5 ms from a kept block).
 * So blocks of BIG_BLOCK bytes and more (2 MiB aligned, huge pages) are
 * kept when their array goes and handed to the next allocation of the
 * same rounded size, as CuPy's and PyTorch's device pools do, whole (never
 * split: a host request is served by glibc or by an exact match).
 * Blocks of MID_BLOCK (1 MiB) up to BIG_BLOCK are kept too, rounded to
 * 64 KiB (at most 6% more): glibc serves them from its heap once its mmap
 * threshold has risen, but freeing a chunk that large makes it merge every
 * small free chunk it holds first (malloc_consolidate: 40% of the time of
 * an nd_empty + nd_release of 1e6 float32 on an AMD EPYC Zen 5, 297-327 ns
 * a pair; 159-167 ns from a kept block).
 *
 * Bounded: at most CACHE_SLOTS blocks and g_cache_cap bytes (1/16 of the
 * physical memory, at most 4 GiB), the least recently kept block goes
 * first; nd_memory_release_cached(nd_cpu()) returns them all; with a limit
 * set (nd_memory_set_limit) the cache never makes in use + cached exceed
 * it (it is emptied before an allocation would fail). Off with ND_POOL=0
 * and under AddressSanitizer (as the device pools), so that valgrind and
 * the sanitizers see every allocation and every use after free, and by
 * nd_memory_set_pool(nd_cpu(), ND_POOL_KIND_NONE). A kept block is not
 * counted live (nd__alloc_live) and taking one passes the allocation
 * fault gate, so the tests' fault walks and leak counts see the same
 * allocations with the cache on and off. */
#define HUGE_PAGE ((size_t)2 << 20)
#define BIG_BLOCK (2 * HUGE_PAGE)
#define MID_BLOCK ((size_t)1 << 20)
#define MID_ROUND ((size_t)64 << 10)
#define CACHE_SLOTS 16
typedef struct {
    void *p;
    size_t size;    /* the rounded size (block_size) */
    uint64_t stamp; /* when it was kept: the smallest goes first */
} cpu_kept;
static struct {
    pthread_mutex_t mu;
    cpu_kept slot[CACHE_SLOTS];
    int n;
    size_t bytes; /* the sum of the kept sizes */
    uint64_t clock;
} g_cache = {.mu = PTHREAD_MUTEX_INITIALIZER};
static atomic_size_t g_cached;   /* g_cache.bytes, for lock-free readers */
static atomic_int g_cache_state; /* 0: not set up; 1: on; 2: off */
static size_t g_cache_cap;

#ifdef __SANITIZE_ADDRESS__
#define CACHE_BUILD_ON 0
#else
#define CACHE_BUILD_ON 1
#endif

static pthread_once_t g_cache_once = PTHREAD_ONCE_INIT;

static void cache_init(void)
{
    const char *env = getenv("ND_POOL");
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    size_t cap = pages > 0 && psz > 0 ? (size_t)pages / 16 * (size_t)psz : (size_t)256 << 20;
    g_cache_cap = cap < ((size_t)4 << 30) ? cap : ((size_t)4 << 30);
    atomic_store(&g_cache_state, CACHE_BUILD_ON && !(env && strcmp(env, "0") == 0) ? 1 : 2);
}

static bool cache_on(void)
{
    int s = atomic_load_explicit(&g_cache_state, memory_order_acquire);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&g_cache_once, cache_init);
        s = atomic_load(&g_cache_state);
    }
    return s == 1;
}

/* The size a block of n (64-byte rounded) bytes has: HUGE_PAGE multiples
 * from BIG_BLOCK on, MID_ROUND multiples from MID_BLOCK on (kept blocks
 * both), else n itself. */
static size_t block_size(size_t n)
{
    if (n >= BIG_BLOCK) return (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    if (n >= MID_BLOCK) return (n + MID_ROUND - 1) & ~(MID_ROUND - 1);
    return n;
}

/* A kept block of exactly size bytes, or NULL. */
static void *cache_take(size_t size)
{
    void *p = NULL;
    pthread_mutex_lock(&g_cache.mu);
    int best = -1;
    for (int i = 0; i < g_cache.n; i++) /* the most recently kept: its pages are the likeliest in the caches */
        if (g_cache.slot[i].size == size && (best < 0 || g_cache.slot[i].stamp > g_cache.slot[best].stamp)) best = i;
    if (best >= 0) {
        p = g_cache.slot[best].p;
        g_cache.bytes -= size;
        g_cache.slot[best] = g_cache.slot[--g_cache.n];
        atomic_store(&g_cached, g_cache.bytes);
    }
    pthread_mutex_unlock(&g_cache.mu);
    return p;
}

/* Free what the cache gave up (counted live again, then through the door). */
static void cache_drop(cpu_kept *gone, int n)
{
    for (int i = 0; i < n; i++) {
        nd__alloc_live_add(1);
        nd__free(gone[i].p);
    }
}

/* Keep p (size bytes) unless it does not fit: room is made by giving up
 * the oldest blocks, within g_cache_cap and, with a limit set, within
 * limit - in_use. Returns whether p was kept. */
static bool cache_keep(void *p, size_t size)
{
    size_t limit = atomic_load(&g_limit), in_use = atomic_load(&g_in_use);
    size_t room = g_cache_cap;
    if (limit) room = limit > in_use ? (limit - in_use < room ? limit - in_use : room) : 0;
    if (size > room) return false;
    cpu_kept gone[CACHE_SLOTS];
    int ngone = 0;
    pthread_mutex_lock(&g_cache.mu);
    while (g_cache.n > 0 && (g_cache.n == CACHE_SLOTS || g_cache.bytes + size > room)) {
        int old = 0;
        for (int i = 1; i < g_cache.n; i++)
            if (g_cache.slot[i].stamp < g_cache.slot[old].stamp) old = i;
        gone[ngone++] = g_cache.slot[old];
        g_cache.bytes -= g_cache.slot[old].size;
        g_cache.slot[old] = g_cache.slot[--g_cache.n];
    }
    g_cache.slot[g_cache.n++] = (cpu_kept){p, size, ++g_cache.clock};
    g_cache.bytes += size;
    atomic_store(&g_cached, g_cache.bytes);
    pthread_mutex_unlock(&g_cache.mu);
    nd__alloc_live_add(-1);
    cache_drop(gone, ngone);
    return true;
}

/* Give every kept block back to the system. */
static void cache_release(void)
{
    cpu_kept gone[CACHE_SLOTS];
    pthread_mutex_lock(&g_cache.mu);
    int n = g_cache.n;
    memcpy(gone, g_cache.slot, (size_t)n * sizeof gone[0]);
    g_cache.n = 0;
    g_cache.bytes = 0;
    atomic_store(&g_cached, 0);
    pthread_mutex_unlock(&g_cache.mu);
    cache_drop(gone, n);
}

/* The largest kept block (0: none). */
static size_t cache_largest(void)
{
    size_t m = 0;
    pthread_mutex_lock(&g_cache.mu);
    for (int i = 0; i < g_cache.n; i++)
        if (g_cache.slot[i].size > m) m = g_cache.slot[i].size;
    pthread_mutex_unlock(&g_cache.mu);
    return m;
}

/* A snapshot reads in_use, then peak, and reports max(peak, in_use): the
 * counters are separate atomics, and between the two loads (or while an
 * allocation has raised in_use but not yet peak, or while another thread
 * resets the peak) the stored peak may trail in_use; in_use itself is a
 * value the high-water mark has reached, so the max is exact, and every
 * snapshot has peak_in_use >= in_use (8083 of 200000 snapshots
 * had it below before). */
static nd_status cpu_memory_stats(nd_memory_stats *s, int id)
{
    (void)id;
    memset(s, 0, sizeof *s);
    s->in_use = atomic_load(&g_in_use);
    size_t peak = atomic_load(&g_peak);
    s->peak_in_use = peak > s->in_use ? peak : s->in_use;
    s->cached = atomic_load(&g_cached);
    s->reserved = s->in_use + s->cached;
    s->limit = atomic_load(&g_limit);
    s->largest_free_block = s->cached ? cache_largest() : 0;
    s->allocs = atomic_load(&g_allocs);
    s->device_allocs = atomic_load(&g_fresh);
    s->pooled = cache_on();
    s->kind = s->pooled ? ND_POOL_KIND_CACHING : ND_POOL_KIND_NONE;
    return ND_OK;
}
static nd_status cpu_memory_set_limit(int id, size_t bytes)
{
    (void)id;
    atomic_store(&g_limit, bytes);
    if (bytes && atomic_load(&g_in_use) + atomic_load(&g_cached) > bytes) cache_release();
    return ND_OK;
}
/* Store the current in_use, then raise the peak to in_use once more: an
 * allocation that raised in_use after our first load and its peak before
 * our store would otherwise leave the stored peak below in_use for good. */
static nd_status cpu_memory_reset_peak(int id)
{
    (void)id;
    atomic_store(&g_peak, atomic_load(&g_in_use));
    size_t now = atomic_load(&g_in_use), peak = atomic_load(&g_peak);
    while (now > peak && !atomic_compare_exchange_weak(&g_peak, &peak, now)) {
    }
    return ND_OK;
}

static nd_status cpu_memory_release_cached(int id)
{
    (void)id;
    cache_release();
    return ND_OK;
}

/* ND_POOL_KIND_CACHING: large blocks are kept (the default);
 * ND_POOL_KIND_NONE: every array is its own allocation, the cache is
 * emptied. Any time, with arrays alive or not: both take their blocks from
 * the same system allocator. */
static nd_status cpu_memory_set_pool(int id, int kind)
{
    (void)id;
    if (kind == ND_POOL_KIND_ASYNC)
        return nd__err(ND_ERR_UNSUPPORTED, "nd_memory_set_pool",
                       "cpu:0 has no stream-ordered pool (its allocators: ND_POOL_KIND_CACHING, ND_POOL_KIND_NONE)");
    pthread_once(&g_cache_once, cache_init); /* first, so that the choice below stays */
    atomic_store(&g_cache_state, kind == ND_POOL_KIND_CACHING ? 1 : 2);
    if (kind == ND_POOL_KIND_NONE) cache_release();
    return ND_OK;
}

/* 64-byte aligned so vector loops and BLAS see aligned rows. */
static nd_status cpu_alloc(nd_device dev, size_t nbytes, void **ptr)
{
    (void)dev;
    size_t n = (nbytes + 63) & ~(size_t)63;
    if (n < nbytes || n > SIZE_MAX - HUGE_PAGE)
        return nd__err(ND_ERR_NOMEM, "nd_alloc", "cannot allocate %zu bytes", nbytes);
    size_t limit = atomic_load(&g_limit);
    size_t now = atomic_fetch_add(&g_in_use, nbytes) + nbytes;
    if (limit && now > limit) {
        atomic_fetch_sub(&g_in_use, nbytes);
        return nd__err(ND_ERR_NOMEM, "nd_alloc", "out of memory allocating %zu bytes (in use %zu, cached %zu, limit %zu bytes)",
                       nbytes, now - nbytes, atomic_load(&g_cached), limit);
    }
    /* the cache gives up what the limit no longer leaves room for */
    if (limit && now + atomic_load(&g_cached) > limit) cache_release();
    /* Large arrays: 2 MiB aligned and marked for transparent huge pages (as
     * NumPy does), so first touches fault 2 MiB at a time, not 4 KiB. */
    const size_t bn = block_size(n);
    void *p = NULL;
    if (bn >= MID_BLOCK) {
        if (cache_on() && (p = cache_take(bn)) != NULL) {
            nd__alloc_live_add(1); /* live again */
            if (nd__alloc_inject()) { /* the fault gate, as a fresh block would pass it */
                if (!cache_keep(p, bn)) nd__free(p);
                p = NULL;
            }
        } else if (bn >= BIG_BLOCK && (p = nd__aligned_alloc(HUGE_PAGE, bn)) != NULL) {
            madvise(p, bn, MADV_HUGEPAGE);
            atomic_fetch_add(&g_fresh, 1);
        } else if (bn < BIG_BLOCK && (p = nd__aligned_alloc(64, bn)) != NULL) {
            atomic_fetch_add(&g_fresh, 1);
        }
    } else if ((p = nd__aligned_alloc(64, n ? n : 64)) != NULL) {
        atomic_fetch_add(&g_fresh, 1);
    }
    if (!p) {
        atomic_fetch_sub(&g_in_use, nbytes);
        return nd__err(ND_ERR_NOMEM, "nd_alloc", "out of host memory allocating %zu bytes (in use %zu)", nbytes,
                       now - nbytes);
    }
    size_t peak = atomic_load(&g_peak);
    while (now > peak && !atomic_compare_exchange_weak(&g_peak, &peak, now)) {
    }
    atomic_fetch_add(&g_allocs, 1);
    *ptr = p;
    return ND_OK;
}

static void cpu_free(nd_device dev, void *ptr, size_t nbytes)
{
    (void)dev;
    atomic_fetch_sub(&g_in_use, nbytes);
    const size_t bn = block_size((nbytes + 63) & ~(size_t)63);
    if (ptr && bn >= MID_BLOCK && cache_on() && cache_keep(ptr, bn)) return;
    nd__free(ptr);
}

static nd_status cpu_memcpy(nd_device dev, void *dst, const void *src, size_t nbytes)
{
    (void)dev;
    if (nbytes) memmove(dst, src, nbytes);
    return ND_OK;
}

static nd_status cpu_synchronize(nd_device dev)
{
    (void)dev;
    return ND_OK;
}

static bool cpu_supports(nd_kernel_kind kind, int op, nd_dtype t)
{
    if (!nd__dtype_valid(t)) return false;
    switch (kind) {
    case ND_KERNEL_UNARY:
    case ND_KERNEL_BINARY: return nd__cpu_ew_supports(kind, op, t);
    case ND_KERNEL_WHERE: return op == 0;
    case ND_KERNEL_REDUCE: return (unsigned)op < (unsigned)ND_NUM_REDUCE_OPS;
    case ND_KERNEL_MATMUL: return op == 0;
    case ND_KERNEL_GEMM: return op == 0 && (nd__is_float(t) || nd__is_complex(t));
    case ND_KERNEL_RANDOM:
        return ((op == ND_RANDOM_UNIFORM || op == ND_RANDOM_NORMAL) && nd__is_float(t)) ||
               (op == ND_RANDOM_INTEGERS && !nd__is_float(t));
    case ND_KERNEL_CAST: return nd__dtype_valid((nd_dtype)op);

    /* indexing and selection (src/index*.c) */
    case ND_KERNEL_GATHER:
    case ND_KERNEL_SCATTER:
    case ND_KERNEL_COMPRESS: return nd__cpu_ix_supports(kind, op, t);

    /* sorting, searching, sets (src/sort*.c) */
    case ND_KERNEL_SORT:
    case ND_KERNEL_SEARCHSORTED: return op == 0; /* src/cpu/sort.c: every dtype */

    /* scans and nan-aware reductions (src/scan*.c) */
    case ND_KERNEL_SCAN: return nd__sc_scan_dtype_ok(op, t); /* sc_scan.c */
    default: return false;
    }
}

static int cpu_device_count(void) { return 1; }

/* The CPU backend's descriptor (see src/core/backend.h for every slot). */
const nd_backend nd__cpu_backend = {
    .abi_version = ND_BACKEND_ABI_VERSION,
    .name = "cpu",
    /* device part (src/cpu/device.c, the accounting above) */
    .device_count = cpu_device_count,          /* cpu:0 only */
    .unavailable_reason = NULL,                /* always available */
    .check_device = nd__cpu_check_device,      /* id 0 */
    .device_info = nd__cpu_device_info,        /* /proc/cpuinfo, sysconf */
    .build_info = nd__cpu_build_info,          /* BLAS core, threads */
    .memory_stats = cpu_memory_stats,          /* the accounting above */
    .memory_release_cached = cpu_memory_release_cached, /* the kept large blocks */
    .memory_set_limit = cpu_memory_set_limit,  /* checked by cpu_alloc */
    .memory_reset_peak = cpu_memory_reset_peak,
    .memory_set_pool = cpu_memory_set_pool,    /* the large-block cache on or off */
    .stream_create = NULL,                     /* synchronous: host-side streams */
    .stream_destroy = NULL,
    .stream_synchronize = NULL,
    .event_create = NULL,                      /* host-clock events */
    .event_record = NULL,
    .event_synchronize = NULL,
    .event_elapsed = NULL,
    .event_destroy = NULL,
    .pinned_upstream = NULL,                   /* cannot page-lock memory */
    .copy_async = NULL,                        /* the core copies synchronously */
    .synchronize = cpu_synchronize,            /* nothing to wait for */
    .range_push = NULL,                        /* no vendor tracing tool */
    .range_pop = NULL,
    /* compute part */
    .alloc = cpu_alloc,                        /* aligned_alloc, accounted */
    .free = cpu_free,
    .memcpy_h2d = cpu_memcpy,                  /* memmove: host to host */
    .memcpy_d2h = cpu_memcpy,
    .memcpy_d2d = cpu_memcpy,
    .cast = nd__cpu_cast,                      /* src/cpu/cast.c */
    .fill = nd__cpu_fill,                      /* src/cpu/cast.c */
    .unary = nd__cpu_unary,                    /* src/cpu/elementwise.c */
    .binary = nd__cpu_binary,                  /* src/cpu/elementwise.c */
    .where = nd__cpu_where,                    /* src/cpu/elementwise.c */
    .reduce = nd__cpu_reduce,                  /* src/cpu/reduce.c */
    .matmul = nd__cpu_matmul,                  /* src/cpu/matmul.c */
    .gemm = nd__cpu_gemm,                      /* src/cpu/matmul.c (OpenBLAS) */
    .random = nd__cpu_random,                  /* src/cpu/random.c */
    .supports = cpu_supports,                  /* above */
    .unary_flat = nd__cpu_unary_flat,          /* src/cpu/elementwise.c: the direct path */
    .binary_flat = nd__cpu_binary_flat,

    /* indexing and selection (src/index*.c) */
    .gather = nd__cpu_gather,
    .scatter = nd__cpu_scatter,
    .compress = nd__cpu_compress,
    .mask_count = nd__cpu_mask_count,

    /* sorting, searching, sets (src/sort*.c) */
    .sort_rows = nd__cpu_sort_rows,            /* src/cpu/sort.c: LSD radix on sort keys */
    .topk_rows = nd__cpu_topk_rows,            /* src/cpu/sort.c: per-row selection */
    .searchsorted = nd__cpu_searchsorted,      /* src/cpu/sort.c: binary search on keys */

    /* scans and nan-aware reductions (src/scan*.c) */
    .scan = nd__cpu_scan, /* scan.c: threaded two-pass / row / column scans */

    /* softmax family, cross-entropy, loss scaling */
    .softmax = nd__cpu_softmax,             /* softmax.c */
    .cross_entropy = nd__cpu_cross_entropy, /* softmax.c */
    .amp_unscale = nd__cpu_amp_unscale,     /* amp.c */

    /* the FFT */
    .fft = nd__cpu_fft, /* fft.c over the engine of fft_core.h */

    /* linear algebra */
    .la = nd__cpu_la, /* lapack.c over OpenBLAS's LAPACK, la_small.c for small LU/solve */
    .sparse = nd__cpu_sparse, /* sparse.c: threaded CSR loops, rows balanced by entries */
    .kernel_ew = nd__cpu_kernel_ew, /* kjit.c: the system C compiler, dlopen */

    /* fused expressions */
    .expr = nd__cpu_expr, /* expr.c: blocks through the elementwise loops */
};
