/* The caching allocator (see pool.h for the rules). */
#include "core/pool.h"

#include <stdlib.h>
#include <string.h>

#define POOL_ROUND 512u
#define SMALL_REQUEST ((size_t)1 << 20)
#define SMALL_SEGMENT ((size_t)2 << 20)
#define NBINS 64

typedef struct segment segment;
typedef struct fence {
    void *ev;
    int dev; /* of the fenced stream */
} fence;
typedef struct block {
    char *ptr;
    size_t size;
    bool free;
    uintptr_t stream;
    bool pending;  /* freed, waiting for the events of other streams */
    struct block *prev, *next;   /* address-order neighbours within the segment */
    struct block *fprev, *fnext; /* free-bin links, or the pending list's */
    struct block *hnext;         /* in-use hash chain */
    segment *seg;
    nd_pool_use *uses; /* streams recorded on the live block (nd__pool_record_stream) */
    int nuses, cap_uses;
    fence *events; /* pending: the fences still to complete */
    int nevents, cap_events;
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
    block *pending_head, *pending_tail; /* oldest first */
    size_t limit, in_use, peak, reserved, nsegments, pending_bytes;
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

static void block_delete(block *b)
{
    nd__free(b->uses);
    nd__free(b->events);
    nd__free(b);
}

static void pending_push(nd_pool *p, block *b)
{
    b->pending = true;
    b->fnext = NULL;
    b->fprev = p->pending_tail;
    if (p->pending_tail) p->pending_tail->fnext = b;
    else p->pending_head = b;
    p->pending_tail = b;
    p->pending_bytes += b->size;
}

static void pending_remove(nd_pool *p, block *b)
{
    if (b->fprev) b->fprev->fnext = b->fnext;
    else p->pending_head = b->fnext;
    if (b->fnext) b->fnext->fprev = b->fprev;
    else p->pending_tail = b->fprev;
    b->fprev = b->fnext = NULL;
    b->pending = false;
    p->pending_bytes -= b->size;
}

static bool table_grow(nd_pool *p)
{
    size_t cap = p->table_cap ? p->table_cap * 2 : 1024;
    block **t = nd__calloc(cap, sizeof *t);
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
    nd__free(p->table);
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

static block *table_find(nd_pool *p, const void *ptr)
{
    if (!p->table_cap) return NULL;
    for (block *b = p->table[hash_ptr(ptr, p->table_cap)]; b; b = b->hnext)
        if (b->ptr == ptr) return b;
    return NULL;
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
    nd_pool *p = nd__calloc(1, sizeof *p);
    if (!p) return NULL;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        nd__free(p);
        return NULL;
    }
    p->up = up;
    p->caching = caching;
    if (!table_grow(p)) {
        pthread_mutex_destroy(&p->mu);
        nd__free(p);
        return NULL;
    }
    return p;
}

/* Drop segment s from the books; give its memory back to the upstream
 * unless the caller already did (a stream-ordered free). */
static void segment_drop(nd_pool *p, segment *s, bool give_back);
static void segment_free(nd_pool *p, segment *s) { segment_drop(p, s, true); }

static void segment_drop(nd_pool *p, segment *s, bool give_back)
{
    block *b = s->first;
    while (b) {
        block *n = b->next;
        if (b->free) bin_remove(p, b); /* never pending: only whole free segments, or after destroy drained them */
        block_delete(b);
        b = n;
    }
    if (s->prev) s->prev->next = s->next;
    else p->segments = s->next;
    if (s->next) s->next->prev = s->prev;
    if (give_back) p->up.free(p->up.ctx, s->base);
    p->reserved -= s->size;
    p->nsegments--;
    nd__free(s);
}

static void process_pending(nd_pool *p, bool wait);

void nd__pool_destroy(nd_pool *p)
{
    if (!p) return;
    process_pending(p, true); /* the upstream's events go back before the memory */
    while (p->segments) segment_free(p, p->segments);
    nd__free(p->table);
    pthread_mutex_destroy(&p->mu);
    nd__free(p);
}

static void release_cached_locked(nd_pool *p)
{
    if (p->up.trim) p->up.trim(p->up.ctx);
    segment *s = p->segments;
    while (s) {
        segment *n = s->next;
        if (s->first->free && s->first->next == NULL) segment_free(p, s);
        s = n;
    }
}

static void merge_into_prev(block *prev, block *b)
{
    prev->size += b->size;
    prev->next = b->next;
    if (b->next) b->next->prev = prev;
    block_delete(b);
}

/* A block no work uses any more joins the free blocks of its stream,
 * merged with free neighbours of the same stream. */
static void make_free(nd_pool *p, block *b)
{
    b->nuses = 0;
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
}

/* Pending blocks whose fences have all completed become free; with wait,
 * every pending block does (the caller is about to fail or to release the
 * cache). A block's events are checked newest first, so one query usually
 * tells that a block is still busy. */
static void process_pending(nd_pool *p, bool wait)
{
    block *b = p->pending_head;
    while (b) {
        block *next = b->fnext; /* never merged away: pending blocks are not free */
        while (b->nevents > 0) {
            fence f = b->events[b->nevents - 1];
            if (wait) p->up.wait(p->up.ctx, f.ev);
            else if (!p->up.done(p->up.ctx, f.ev)) break;
            p->up.drop(p->up.ctx, f.ev, f.dev);
            b->nevents--;
        }
        if (b->nevents == 0) {
            pending_remove(p, b);
            make_free(p, b);
        }
        b = next;
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

/* An allocation from the upstream; *grew: it took memory from the system. */
static int upstream_alloc(nd_pool *p, size_t n, uintptr_t stream, void **base, bool *grew)
{
    *grew = true;
    return p->up.alloc_on ? p->up.alloc_on(p->up.ctx, n, stream, base, grew) : p->up.alloc(p->up.ctx, n, base);
}

static block *new_segment(nd_pool *p, size_t size, uintptr_t stream)
{
    size_t segsize = (size <= SMALL_REQUEST && p->caching) ? SMALL_SEGMENT : size;
    if (p->limit && (p->reserved + segsize > p->limit)) {
        if (size <= SMALL_REQUEST && p->reserved + size <= p->limit) segsize = size; /* a tight segment still fits */
        else return NULL;
    }
    void *base = NULL;
    bool grew;
    if (upstream_alloc(p, segsize, stream, &base, &grew) != 0 || !base) return NULL;
    segment *s = nd__calloc(1, sizeof *s);
    block *b = nd__calloc(1, sizeof *b);
    if (!s || !b) {
        nd__free(s);
        nd__free(b);
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
    if (grew) p->n_upstream++;
    return b;
}

nd_status nd__pool_alloc(nd_pool *p, size_t nbytes, uintptr_t stream, void **ptr, const char *func)
{
    size_t size = nbytes ? (nbytes + POOL_ROUND - 1) & ~(size_t)(POOL_ROUND - 1) : POOL_ROUND;
    if (size < nbytes) return nd__err(ND_ERR_NOMEM, func, "cannot allocate %zu bytes", nbytes);
    if (!p->caching && !p->up.alloc_on) size = nbytes ? nbytes : 1; /* exact, so tools see overruns */
    pthread_mutex_lock(&p->mu);
    if (p->table_count * 2 >= p->table_cap && !table_grow(p)) {
        pthread_mutex_unlock(&p->mu);
        return nd__err(ND_ERR_NOMEM, func, "out of host memory for the pool's bookkeeping");
    }
    block *b = NULL;
    if (p->caching) {
        b = find_free(p, size, stream);
        if (!b && p->pending_head) { /* blocks whose other streams are done by now */
            process_pending(p, false);
            b = find_free(p, size, stream);
        }
    }
    if (!b) b = new_segment(p, size, stream);
    if (!b && p->pending_head) { /* rather wait for the other streams than fail */
        process_pending(p, true);
        b = find_free(p, size, stream);
    }
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
        block *r = nd__calloc(1, sizeof *r);
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

static bool same_use(nd_pool_use a, nd_pool_use b) { return a.stream == b.stream && a.dev == b.dev; }

/* Whether work on stream u needs a fence before block b is reused. */
static bool needs_fence(const nd_pool *p, const block *b, nd_pool_use u)
{
    return !(p->up.stream_ordered && u.stream == b->stream && u.dev == p->up.dev);
}

/* Room for one more use / event on b. */
static bool grow_uses(block *b)
{
    if (b->nuses < b->cap_uses) return true;
    int n = b->cap_uses ? b->cap_uses * 2 : 4;
    nd_pool_use *a = nd__realloc(b->uses, (size_t)n * sizeof *a);
    if (!a) return false;
    b->uses = a;
    b->cap_uses = n;
    return true;
}

static bool grow_events(block *b)
{
    if (b->nevents < b->cap_events) return true;
    int n = b->cap_events ? b->cap_events * 2 : 4;
    fence *a = nd__realloc(b->events, (size_t)n * sizeof *a);
    if (!a) return false;
    b->events = a;
    b->cap_events = n;
    return true;
}

/* Record a fence on every stream other than b's own that may still use b
 * (the recorded ones and uses[0..n)), each stream once. */
static void fence_block(nd_pool *p, block *b, const nd_pool_use *uses, int n)
{
    int total = b->nuses + n;
    for (int i = 0; i < total; i++) {
        nd_pool_use u = i < b->nuses ? b->uses[i] : uses[i - b->nuses];
        if (!needs_fence(p, b, u)) continue;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) seen = same_use(u, j < b->nuses ? b->uses[j] : uses[j - b->nuses]);
        if (seen) continue;
        void *ev = p->up.fence(p->up.ctx, u);
        if (!ev) continue; /* nothing queued there any more */
        if (!grow_events(b)) {
            p->up.wait(p->up.ctx, ev); /* no room to remember it: wait now */
            p->up.drop(p->up.ctx, ev, u.dev);
            continue;
        }
        b->events[b->nevents++] = (fence){ev, u.dev};
    }
    b->nuses = 0;
}

/* The free of a stream-ordered upstream: the streams other than b's own
 * that may use b (recorded on it, or uses[0..n)), each once, go with it. */
static void free_in_stream_order(nd_pool *p, block *b, const nd_pool_use *uses, int n)
{
    nd_pool_use local[16] = {{0, 0}};
    int total = b->nuses + n, k = 0;
    nd_pool_use *waits = total <= 16 ? local : nd__malloc(sizeof *waits * (size_t)total);
    for (int i = 0; i < total && waits; i++) {
        nd_pool_use u = i < b->nuses ? b->uses[i] : uses[i - b->nuses];
        if (!needs_fence(p, b, u)) continue;
        bool seen = false;
        for (int j = 0; j < k && !seen; j++) seen = same_use(u, waits[j]);
        if (!seen) waits[k++] = u;
    }
    if (!waits) { /* no room for the list: the upstream waits for every stream of the device */
        nd_pool_use all = {UINTPTR_MAX, p->up.dev};
        p->up.free_on(p->up.ctx, b->ptr, b->stream, &all, 1);
    } else {
        p->up.free_on(p->up.ctx, b->ptr, b->stream, waits, k);
    }
    if (waits != local) nd__free(waits);
    b->nuses = 0;
    segment *seg = b->seg;
    bin_insert(p, b); /* segment_drop expects the lone block free */
    segment_drop(p, seg, false);
}

bool nd__pool_free(nd_pool *p, void *ptr) { return nd__pool_free_after(p, ptr, NULL, 0); }

bool nd__pool_free_after(nd_pool *p, void *ptr, const nd_pool_use *uses, int n)
{
    if (!ptr) return true;
    pthread_mutex_lock(&p->mu);
    block *b = table_take(p, ptr);
    if (!b) {
        pthread_mutex_unlock(&p->mu);
        return false;
    }
    p->in_use -= b->size;
    if (p->up.free_on) { /* a stream-ordered upstream: it orders the free after every stream's use */
        free_in_stream_order(p, b, uses, n);
        pthread_mutex_unlock(&p->mu);
        return true;
    }
    if (!p->caching) { /* the upstream's free waits for the device (see pool.h) */
        bin_insert(p, b);
        segment_free(p, b->seg);
        pthread_mutex_unlock(&p->mu);
        return true;
    }
    bool fenced = p->up.fence && b->nuses > 0; /* recorded uses always need one */
    for (int i = 0; i < n && p->up.fence && !fenced; i++) fenced = needs_fence(p, b, uses[i]);
    if (fenced) {
        /* The fences are driver calls: made without the lock. b is in no
         * table or list meanwhile, and not free, so nobody else touches it
         * (neighbours never merge with a block that is not free). */
        pthread_mutex_unlock(&p->mu);
        fence_block(p, b, uses, n);
        pthread_mutex_lock(&p->mu);
    }
    if (b->nevents > 0) pending_push(p, b);
    else make_free(p, b);
    pthread_mutex_unlock(&p->mu);
    return true;
}

void nd__pool_record_stream(nd_pool *p, void *ptr, nd_pool_use use)
{
    /* without caching, free waits for the device, unless a stream-ordered upstream frees */
    if (!ptr || (!p->caching && !p->up.free_on) || (!p->up.fence && !p->up.free_on)) return;
    pthread_mutex_lock(&p->mu);
    block *b = table_find(p, ptr);
    if (b && needs_fence(p, b, use)) {
        bool seen = false;
        for (int i = 0; i < b->nuses && !seen; i++) seen = same_use(b->uses[i], use);
        if (!seen) {
            if (grow_uses(b)) {
                b->uses[b->nuses++] = use;
            } else { /* no room to remember the stream: wait for its work now */
                void *ev = p->up.fence(p->up.ctx, use);
                if (ev) {
                    p->up.wait(p->up.ctx, ev);
                    p->up.drop(p->up.ctx, ev, use.dev);
                }
            }
        }
    }
    pthread_mutex_unlock(&p->mu);
}

void nd__pool_release_cached(nd_pool *p)
{
    pthread_mutex_lock(&p->mu);
    /* the caller has synchronised the device: the pending blocks' events
     * have completed (waiting is a formality) */
    process_pending(p, true);
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
    if (p->up.held) { /* the upstream's own cache is part of what the pool holds */
        size_t held = p->up.held(p->up.ctx);
        if (held > s->reserved) s->reserved = held;
    }
    s->cached = s->reserved - p->in_use;
    s->limit = p->limit;
    s->n_upstream_allocs = p->n_upstream;
    s->n_allocs = p->n_allocs;
    s->n_segments = p->nsegments;
    s->pending = p->pending_bytes;
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
