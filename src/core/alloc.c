/* The one allocator door (src/core/alloc.h). */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/alloc.h"

/* 0: no failure armed; k > 0: the k-th allocation from now fails. */
static atomic_long g_countdown;
static atomic_bool g_fired;
static atomic_long g_live;

bool nd__alloc_inject(void)
{
    long c = atomic_load_explicit(&g_countdown, memory_order_relaxed);
    while (__builtin_expect(c > 0, 0)) {
        /* one thread takes each step of the countdown; the one that takes
         * it from 1 to 0 is the injected failure */
        if (atomic_compare_exchange_weak(&g_countdown, &c, c - 1)) {
            if (c != 1) return false;
            atomic_store(&g_fired, true);
            return true;
        }
    }
    return false;
}

void nd__alloc_live_add(long delta) { atomic_fetch_add_explicit(&g_live, delta, memory_order_relaxed); }

void nd__alloc_fail_after(long n)
{
    atomic_store(&g_fired, false);
    atomic_store(&g_countdown, n > 0 ? n : 0);
}

bool nd__alloc_fault_reset(void)
{
    atomic_store(&g_countdown, 0);
    return atomic_exchange(&g_fired, false);
}

long nd__alloc_live(void) { return atomic_load(&g_live); }

static void *counted(void *p)
{
    if (p) nd__alloc_live_add(1);
    return p;
}

void *nd__malloc(size_t nbytes) { return nd__alloc_inject() ? NULL : counted(malloc(nbytes)); }

void *nd__calloc(size_t count, size_t size) { return nd__alloc_inject() ? NULL : counted(calloc(count, size)); }

void *nd__realloc(void *p, size_t nbytes)
{
    if (!p) return nd__malloc(nbytes);
    if (nd__alloc_inject()) return NULL;
    return realloc(p, nbytes ? nbytes : 1); /* p stays counted, moved or not */
}

void nd__free(void *p)
{
    if (!p) return;
    nd__alloc_live_add(-1);
    free(p);
}

void *nd__aligned_alloc(size_t align, size_t nbytes)
{
    size_t n = nbytes ? (nbytes + align - 1) & ~(align - 1) : align;
    if (n < nbytes) return NULL; /* the rounding overflowed */
    return nd__alloc_inject() ? NULL : counted(aligned_alloc(align, n));
}
