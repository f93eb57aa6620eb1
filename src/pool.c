/* The caching allocator (see pool.h for the rules). */
#include "pool.h"

#include <stdlib.h>
#include <string.h>

#define POOL_ROUND 512u
#define SMALL_REQUEST ((size_t)1 << 20)
#define SMALL_SEGMENT ((size_t)2 << 20)
#define NBINS 64

typedef struct segment segment;
typedef struct block {
    char *ptr;
    size_t size;
    bool free;
    uintptr_t stream;
    struct block *prev, *next;   /* address-order neighbours within the segment */
    struct block *fprev, *fnext; /* free-bin links */
    struct block *hnext;         /* in-use hash chain */
    segment *seg;
} block;

struct segment {
    char *base;
    size_t size;
    block *first;
    segment *prev, *next;
};

struct nd_pool {
    pthread_mutex_t mu;
    nd_pool_upstream up;
    bool caching;
    block *bins[NBINS];
    block **table; /* in-use blocks by pointer */
    size_t table_cap, table_count;
    segment *segments;
    size_t limit, in_use, peak, reserved, nsegments;
    uint64_t n_upstream, n_allocs;
};

static int bin_of(size_t size) { return 63 - __builtin_clzll((unsigned long long)size); }

static size_t hash_ptr(const void *p, size_t cap) { return (size_t)(((uintptr_t)p >> 9) * 0x9E3779B97F4A7C15ull) & (cap - 1); }

static void bin_insert(nd_pool *p, block *b)
{
    int i = bin_of(b->size);
    b->fprev = NULL;
    b->fnext = p->bins[i];
    if (p->bins[i]) p->bins[i]->fprev = b;
    p->bins[i] = b;
    b->free = true;
}

static void bin_remove(nd_pool *p, block *b)
{
    int i = bin_of(b->size);
    if (b->fprev) b->fprev->fnext = b->fnext;
    else p->bins[i] = b->fnext;
    if (b->fnext) b->fnext->fprev = b->fprev;
    b->fprev = b->fnext = NULL;
    b->free = false;
}

static bool table_grow(nd_pool *p)
{
    size_t cap = p->table_cap ? p->table_cap * 2 : 1024;
    block **t = calloc(cap, sizeof *t);
    if (!t) return false;
    for (size_t i = 0; i < p->table_cap; i++) {
        block *b = p->table[i];
        while (b) {
            block *n = b->hnext;
            size_t h = hash_ptr(b->ptr, cap);
            b->hnext = t[h];
            t[h] = b;
            b = n;
        }
    }
    free(p->table);
    p->table = t;
    p->table_cap = cap;
    return true;
}

static void table_put(nd_pool *p, block *b)
{
    size_t h = hash_ptr(b->ptr, p->table_cap);
    b->hnext = p->table[h];
    p->table[h] = b;
    p->table_count++;
}

static block *table_take(nd_pool *p, void *ptr)
{
    if (!p->table_cap) return NULL;
    block **pp = &p->table[hash_ptr(ptr, p->table_cap)];
    while (*pp) {
        if ((*pp)->ptr == ptr) {
            block *b = *pp;
            *pp = b->hnext;
            b->hnext = NULL;
            p->table_count--;
            return b;
        }
        pp = &(*pp)->hnext;
    }
    return NULL;
}

nd_pool *nd__pool_create(nd_pool_upstream up) { return nd__pool_create_ex(up, true); }

nd_pool *nd__pool_create_ex(nd_pool_upstream up, bool caching)
{
    nd_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        return NULL;
    }
    p->up = up;
    p->caching = caching;
    if (!table_grow(p)) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    return p;
}

static void segment_free(nd_pool *p, segment *s)
{
    block *b = s->first;
    while (b) {
        block *n = b->next;
        if (b->free) bin_remove(p, b);
        free(b);
        b = n;
    }
    if (s->prev) s->prev->next = s->next;
    else p->segments = s->next;
    if (s->next) s->next->prev = s->prev;
    p->up.free(p->up.ctx, s->base);
    p->reserved -= s->size;
    p->nsegments--;
    free(s);
}

void nd__pool_destroy(nd_pool *p)
{
    if (!p) return;
    while (p->segments) segment_free(p, p->segments);
    free(p->table);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static void release_cached_locked(nd_pool *p)
{
    segment *s = p->segments;
    while (s) {
        segment *n = s->next;
        if (s->first->free && s->first->next == NULL) segment_free(p, s);
        s = n;
    }
}

/* Best fit over the free blocks of this stream. */
static block *find_free(nd_pool *p, size_t size, uintptr_t stream)
{
    for (int i = bin_of(size); i < NBINS; i++) {
        block *best = NULL;
        for (block *b = p->bins[i]; b; b = b->fnext)
            if (b->size >= size && b->stream == stream && (!best || b->size < best->size)) best = b;
        if (best) return best;
    }
    return NULL;
}

static block *new_segment(nd_pool *p, size_t size, uintptr_t stream)
{
    size_t segsize = (size <= SMALL_REQUEST && p->caching) ? SMALL_SEGMENT : size;
    if (p->limit && (p->reserved + segsize > p->limit)) {
        if (size <= SMALL_REQUEST && p->reserved + size <= p->limit) segsize = size; /* a tight segment still fits */
        else return NULL;
    }
    void *base = NULL;
    if (p->up.alloc(p->up.ctx, segsize, &base) != 0 || !base) return NULL;
    segment *s = calloc(1, sizeof *s);
    block *b = calloc(1, sizeof *b);
    if (!s || !b) {
        free(s);
        free(b);
        p->up.free(p->up.ctx, base);
        return NULL;
    }
    s->base = base;
    s->size = segsize;
    s->first = b;
    s->next = p->segments;
    if (p->segments) p->segments->prev = s;
    p->segments = s;
    b->ptr = base;
    b->size = segsize;
    b->seg = s;
    b->stream = stream;
    bin_insert(p, b);
    p->reserved += segsize;
    p->nsegments++;
    p->n_upstream++;
    return b;
}

nd_status nd__pool_alloc(nd_pool *p, size_t nbytes, uintptr_t stream, void **ptr, const char *func)
{
    size_t size = nbytes ? (nbytes + POOL_ROUND - 1) & ~(size_t)(POOL_ROUND - 1) : POOL_ROUND;
    if (size < nbytes) return nd__err(ND_ERR_NOMEM, func, "cannot allocate %zu bytes", nbytes);
    if (!p->caching) size = nbytes ? nbytes : 1; /* exact, so tools see overruns */
    pthread_mutex_lock(&p->mu);
    if (p->table_count * 2 >= p->table_cap && !table_grow(p)) {
        pthread_mutex_unlock(&p->mu);
        return nd__err(ND_ERR_NOMEM, func, "out of host memory for the pool's bookkeeping");
    }
    block *b = p->caching ? find_free(p, size, stream) : NULL;
    if (!b) b = new_segment(p, size, stream);
    if (!b) { /* release the cache and retry once */
        release_cached_locked(p);
        b = new_segment(p, size, stream);
    }
    if (!b) {
        size_t in_use = p->in_use, cached = p->reserved - p->in_use, limit = p->limit;
        pthread_mutex_unlock(&p->mu);
        if (limit)
            return nd__err(ND_ERR_NOMEM, func,
                           "out of memory allocating %zu bytes (in use %zu, cached %zu, limit %zu bytes)", nbytes,
                           in_use, cached, limit);
        return nd__err(ND_ERR_NOMEM, func, "out of memory allocating %zu bytes (in use %zu, cached %zu, no limit)",
                       nbytes, in_use, cached);
    }
    bin_remove(p, b);
    if (p->caching && b->size - size >= POOL_ROUND) { /* split: the rest stays free */
        block *r = calloc(1, sizeof *r);
        if (r) {
            r->ptr = b->ptr + size;
            r->size = b->size - size;
            r->seg = b->seg;
            r->stream = b->stream;
            r->prev = b;
            r->next = b->next;
            if (b->next) b->next->prev = r;
            b->next = r;
            b->size = size;
            bin_insert(p, r);
        }
    }
    b->stream = stream;
    table_put(p, b);
    p->in_use += b->size;
    if (p->in_use > p->peak) p->peak = p->in_use;
    p->n_allocs++;
    *ptr = b->ptr;
    pthread_mutex_unlock(&p->mu);
    return ND_OK;
}

static void merge_into_prev(block *prev, block *b)
{
    prev->size += b->size;
    prev->next = b->next;
    if (b->next) b->next->prev = prev;
    free(b);
}

bool nd__pool_free(nd_pool *p, void *ptr)
{
    if (!ptr) return true;
    pthread_mutex_lock(&p->mu);
    block *b = table_take(p, ptr);
    if (!b) {
        pthread_mutex_unlock(&p->mu);
        return false;
    }
    p->in_use -= b->size;
    if (!p->caching) {
        bin_insert(p, b);
        segment_free(p, b->seg);
        pthread_mutex_unlock(&p->mu);
        return true;
    }
    if (b->next && b->next->free && b->next->stream == b->stream) {
        bin_remove(p, b->next);
        merge_into_prev(b, b->next);
    }
    if (b->prev && b->prev->free && b->prev->stream == b->stream) {
        block *prev = b->prev;
        bin_remove(p, prev);
        merge_into_prev(prev, b);
        b = prev;
    }
    bin_insert(p, b);
    pthread_mutex_unlock(&p->mu);
    return true;
}

void nd__pool_release_cached(nd_pool *p)
{
    pthread_mutex_lock(&p->mu);
    /* after a synchronisation every free block is reusable by any stream:
     * merge neighbours regardless of stream, then drop whole segments */
    for (segment *s = p->segments; s; s = s->next)
        for (block *b = s->first; b && b->next;) {
            if (b->free && b->next->free) {
                bin_remove(p, b);
                bin_remove(p, b->next);
                merge_into_prev(b, b->next);
                bin_insert(p, b);
            } else {
                b = b->next;
            }
        }
    release_cached_locked(p);
    pthread_mutex_unlock(&p->mu);
}

void nd__pool_get_stats(nd_pool *p, nd_pool_stats *s)
{
    pthread_mutex_lock(&p->mu);
    memset(s, 0, sizeof *s);
    s->in_use = p->in_use;
    s->peak_in_use = p->peak;
    s->reserved = p->reserved;
    s->cached = p->reserved - p->in_use;
    s->limit = p->limit;
    s->n_upstream_allocs = p->n_upstream;
    s->n_allocs = p->n_allocs;
    s->n_segments = p->nsegments;
    for (int i = NBINS - 1; i >= 0 && !s->largest_free; i--)
        for (block *b = p->bins[i]; b; b = b->fnext)
            if (b->size > s->largest_free) s->largest_free = b->size;
    pthread_mutex_unlock(&p->mu);
}

void nd__pool_set_limit(nd_pool *p, size_t limit)
{
    pthread_mutex_lock(&p->mu);
    p->limit = limit;
    pthread_mutex_unlock(&p->mu);
}

void nd__pool_reset_peak(nd_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->peak = p->in_use;
    pthread_mutex_unlock(&p->mu);
}
