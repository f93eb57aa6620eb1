/* The CPU backend: host memory, its accounting and the descriptor. */
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/index.h" /* gather, scatter, compaction */
#include "shared/philox.h"
#include "cpu/scan.h" /* the scan entry point */
#include "cpu/sort_cpu.h"
#include "cpu/mixed.h" /* softmax, cross-entropy, loss scaling */

/* Accounting of host memory held by CPU arrays (no caching: glibc's
 * allocator already caches small blocks; big ones go back to the system). */
static atomic_size_t g_in_use, g_peak, g_limit;
static atomic_ullong g_allocs;

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
    s->reserved = s->in_use;
    s->limit = atomic_load(&g_limit);
    s->device_allocs = s->allocs = atomic_load(&g_allocs);
    s->pooled = false;
    return ND_OK;
}
static nd_status cpu_memory_set_limit(int id, size_t bytes)
{
    (void)id;
    atomic_store(&g_limit, bytes);
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

/* 64-byte aligned so vector loops and BLAS see aligned rows. */
static nd_status cpu_alloc(nd_device dev, size_t nbytes, void **ptr)
{
    (void)dev;
    size_t n = (nbytes + 63) & ~(size_t)63;
    if (n < nbytes) return nd__err(ND_ERR_NOMEM, "nd_alloc", "cannot allocate %zu bytes", nbytes);
    size_t limit = atomic_load(&g_limit);
    size_t now = atomic_fetch_add(&g_in_use, nbytes) + nbytes;
    if (limit && now > limit) {
        atomic_fetch_sub(&g_in_use, nbytes);
        return nd__err(ND_ERR_NOMEM, "nd_alloc", "out of memory allocating %zu bytes (in use %zu, cached 0, limit %zu bytes)",
                       nbytes, now - nbytes, limit);
    }
    /* Large arrays: 2 MiB aligned and marked for transparent huge pages (as
     * NumPy does), so first touches fault 2 MiB at a time, not 4 KiB. */
    const size_t huge = (size_t)2 << 20;
    void *p;
    if (n >= 2 * huge) {
        size_t hn = (n + huge - 1) & ~(huge - 1);
        p = nd__aligned_alloc(huge, hn);
        if (p) madvise(p, hn, MADV_HUGEPAGE);
    } else {
        p = nd__aligned_alloc(64, n ? n : 64);
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
    .memory_release_cached = NULL,             /* nothing is cached */
    .memory_set_limit = cpu_memory_set_limit,  /* checked by cpu_alloc */
    .memory_reset_peak = cpu_memory_reset_peak,
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
