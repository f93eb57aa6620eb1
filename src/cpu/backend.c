/* The CPU backend: host memory and the function table. */
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "cpu/cpu.h"
#include "philox.h"

/* Accounting of host memory held by CPU arrays (no caching: glibc's
 * allocator already caches small blocks; big ones go back to the system). */
static atomic_size_t g_in_use, g_peak, g_limit;
static atomic_ullong g_allocs;

void nd__cpu_memory_stats(nd_memory_stats *s)
{
    memset(s, 0, sizeof *s);
    s->in_use = atomic_load(&g_in_use);
    s->peak_in_use = atomic_load(&g_peak);
    s->reserved = s->in_use;
    s->limit = atomic_load(&g_limit);
    s->device_allocs = s->allocs = atomic_load(&g_allocs);
    s->pooled = false;
}
void nd__cpu_memory_set_limit(size_t bytes) { atomic_store(&g_limit, bytes); }
void nd__cpu_memory_reset_peak(void) { atomic_store(&g_peak, atomic_load(&g_in_use)); }

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
    case ND_KERNEL_GEMM: return op == 0 && nd__is_float(t);
    case ND_KERNEL_RANDOM: return (op == ND_RANDOM_UNIFORM || op == ND_RANDOM_NORMAL) && nd__is_float(t);
    case ND_KERNEL_CAST: return nd__dtype_valid((nd_dtype)op);
    default: return false;
    }
}

const nd_backend nd__cpu_backend = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .free = cpu_free,
    .memcpy_h2d = cpu_memcpy,
    .memcpy_d2h = cpu_memcpy,
    .memcpy_d2d = cpu_memcpy,
    .cast = nd__cpu_cast,
    .fill = nd__cpu_fill,
    .unary = nd__cpu_unary,
    .binary = nd__cpu_binary,
    .where = nd__cpu_where,
    .reduce = nd__cpu_reduce,
    .matmul = nd__cpu_matmul,
    .gemm = nd__cpu_gemm,
    .random = nd__cpu_random,
    .synchronize = cpu_synchronize,
    .supports = cpu_supports,
};
