/*
 * The profiler's recording side: sessions, per-thread event buffers, the
 * scopes every public op opens (src/core/prof.h), user ranges (and their NVTX
 * twins through the backend descriptor), device timing with events read
 * at stop, memory events, ND_PROFILE, and the public report functions,
 * which hand the last finished session to the writers of src/prof/ (the
 * table, the key averages, the Chrome trace, the JSON summary: pure
 * functions of a session, below this file).
 *
 * Recording. Each thread owns a buffer (a stack of open frames, its
 * records in chunks of stable addresses, arenas for shapes and range
 * names, a pool of device events per device). An event's record is
 * reserved when its scope opens, so a thread's records are in start
 * order and a child knows its parent's index; it is completed when the
 * scope closes. The buffer's mutex is taken by its own thread at open and
 * close (uncontended: ~20 ns) and by start/stop, which reset and read
 * every buffer; no lock is shared between threads while ops run, except
 * the atomic event count that bounds the session (cfg.max_events, about
 * 200 bytes an event; events past it are counted as dropped).
 *
 * Sessions. nd_profiler_start clears every buffer (frames still open
 * from before are forgotten: their closes find no frame and do nothing),
 * records a base event on each CUDA device and raises nd__prof_on.
 * nd_profiler_stop lowers it, closes what is still open at the stop time
 * (ranges counted as unclosed), waits for the devices that were timed,
 * turns the device events into times (base-relative, mapped onto the host
 * clock at the base), merges the threads' records by start time into one
 * array of nd_profiler_event, and computes self times. Buffers of threads
 * that exited are kept until their records have been read, then reused.
 *
 * Device time of an op = elapsed time between an event recorded on the
 * op's device and current stream when its scope opens and one when it
 * closes; a range's device time is measured the same way on the default
 * device when that is a GPU. Self device time = its time less its
 * children's on the same device.
 */
#include "core/prof.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

atomic_int nd__prof_on;
atomic_int nd__prof_mem_on;

#define MAX_DEPTH 128     /* frames (ops and ranges) open at once on one thread */
#define MAX_RANGES 64     /* user ranges open at once on one thread (nd_range_push's limit) */
#define MAX_DEV 16        /* CUDA devices timed */
#define CHUNK_SHIFT 12    /* records per chunk: 4096 */
#define CHUNK (1 << CHUNK_SHIFT)
#define ARENA_BYTES 65536 /* shape / name arena block */

typedef struct rec {
    nd_profiler_event e;
    void *ev0, *ev1; /* device events (NULL: no device time) */
    void *stream;    /* the stream handle the events were recorded on */
    bool open;       /* reserved, not closed yet */
} rec;

typedef struct frame {
    int64_t rec;      /* index of its record in the thread's records */
    int64_t t0, child_ns, mem_self, bytes_in;
    nd_array **out;
    bool bytes_set, is_range;
    int range_level; /* ranges: the range depth it was pushed at */
} frame;

typedef struct arena_block {
    struct arena_block *next;
    size_t used;
    char data[ARENA_BYTES];
} arena_block;

typedef struct prof_thread {
    pthread_mutex_t lock;
    struct prof_thread *next; /* the global list */
    long os_tid;
    bool exited;              /* its thread is gone; reusable once read */
    int index;                /* this session's thread index, -1: nothing recorded yet */
    frame stack[MAX_DEPTH];
    int depth;
    rec **chunks;
    int64_t nchunks, n;       /* records of this session */
    arena_block *arena;       /* shapes and range names of this session */
    void **evpool[MAX_DEV];   /* device events, reused across sessions */
    int evcap[MAX_DEV], evused[MAX_DEV];
} prof_thread;

/* Session state: written by start/stop under g_lock, read by recorders
 * under their buffer's lock (start/stop take every buffer's lock). */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static prof_thread *g_threads;
static atomic_bool g_running; /* read by recorders under their buffer's lock */
static nd_profiler_config g_cfg;
static int64_t g_t0, g_t0_unix;
static atomic_long g_nevents, g_dropped;
static atomic_int g_nthreads;
static int64_t g_unclosed;
/* The base event of each CUDA device: recorded at the session's first
 * device event there (never at start, so that a session started before
 * main by ND_PROFILE does not initialise CUDA in a process that may fork
 * before using it), under g_base_mu. */
static pthread_mutex_t g_base_mu = PTHREAD_MUTEX_INITIALIZER;
static void *g_base[MAX_DEV];     /* base event per CUDA device, kept across sessions */
static bool g_base_set[MAX_DEV];  /* recorded in this session */
static int64_t g_base_host[MAX_DEV];
static int g_ncuda;
static atomic_long g_in_use[1 + MAX_DEV]; /* array bytes per device seen by memory events: [0] cpu */
/* The finished session. */
static bool g_have_result;
static nd_prof_result g_res;
static long *g_tids;

static _Thread_local prof_thread *tls_t;
static _Thread_local int tls_ranges; /* user ranges open on this thread (always counted) */
static pthread_key_t g_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void thread_gone(void *p)
{
    prof_thread *t = p;
    pthread_mutex_lock(&t->lock);
    t->exited = true;
    pthread_mutex_unlock(&t->lock);
}
static void make_key(void) { (void)pthread_key_create(&g_key, thread_gone); }

/* This thread's buffer (NULL when it cannot be made: the event is lost). */
static prof_thread *self_thread(void)
{
    if (ND_LIKELY(tls_t != NULL)) return tls_t;
    pthread_once(&g_key_once, make_key);
    prof_thread *t = NULL;
    pthread_mutex_lock(&g_lock);
    for (prof_thread *p = g_threads; p; p = p->next) {
        pthread_mutex_lock(&p->lock);
        bool free_now = p->exited && p->index < 0; /* gone and nothing of this session to read */
        if (free_now) p->exited = false;
        pthread_mutex_unlock(&p->lock);
        if (free_now) {
            t = p;
            break;
        }
    }
    if (!t) {
        t = nd__calloc(1, sizeof *t);
        if (t) {
            pthread_mutex_init(&t->lock, NULL);
            t->index = -1;
            t->next = g_threads;
            g_threads = t;
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (!t) return NULL;
    t->os_tid = (long)syscall(SYS_gettid);
    tls_t = t;
    pthread_setspecific(g_key, t);
    return t;
}

static rec *rec_at(prof_thread *t, int64_t i) { return &t->chunks[i >> CHUNK_SHIFT][i & (CHUNK - 1)]; }

/* Reserve a record (NULL when the session is full or memory is short). */
static rec *rec_new(prof_thread *t, int64_t *idx)
{
    if (atomic_fetch_add_explicit(&g_nevents, 1, memory_order_relaxed) >= g_cfg.max_events) {
        atomic_fetch_sub_explicit(&g_nevents, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&g_dropped, 1, memory_order_relaxed);
        return NULL;
    }
    if (t->n == t->nchunks * CHUNK) {
        rec **c = nd__realloc(t->chunks, (size_t)(t->nchunks + 1) * sizeof *c);
        rec *blk = c ? nd__malloc(CHUNK * sizeof *blk) : NULL;
        if (c) t->chunks = c;
        if (!blk) {
            atomic_fetch_sub_explicit(&g_nevents, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&g_dropped, 1, memory_order_relaxed);
            return NULL;
        }
        t->chunks[t->nchunks++] = blk;
    }
    if (t->index < 0) t->index = atomic_fetch_add(&g_nthreads, 1);
    *idx = t->n++;
    rec *r = rec_at(t, *idx);
    memset(r, 0, sizeof *r);
    r->e.thread = t->index;
    r->e.parent = -1;
    r->e.device_start_ns = r->e.device_ns = r->e.device_self_ns = -1;
    r->e.out_dtype = -1;
    r->e.device = nd_cpu();
    return r;
}

static void *arena_get(prof_thread *t, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    if (n > ARENA_BYTES) return NULL;
    if (!t->arena || t->arena->used + n > ARENA_BYTES) {
        arena_block *b = nd__malloc(sizeof *b);
        if (!b) return NULL;
        b->next = t->arena;
        b->used = 0;
        t->arena = b;
    }
    void *p = t->arena->data + t->arena->used;
    t->arena->used += n;
    return p;
}

static int dev_slot(nd_device d) { return d.type == ND_DEVICE_CPU ? 0 : (d.id >= 0 && d.id < MAX_DEV ? 1 + d.id : -1); }

static bool device_wanted(nd_device d) { return d.type == ND_DEVICE_CPU ? g_cfg.cpu : g_cfg.cuda; }

/* Whether dev's base event of this session is recorded: the first call
 * for a device records it on stream, just before that stream's first
 * timed event. */
static bool base_ready(const nd_backend *be, int id, void *stream)
{
    pthread_mutex_lock(&g_base_mu);
    if (!g_base_set[id]) {
        if (!g_base[id] && be->event_create(&g_base[id], id) != ND_OK) g_base[id] = NULL;
        if (g_base[id] && be->event_record(g_base[id], stream, id) == ND_OK) {
            g_base_host[id] = now_ns();
            g_base_set[id] = true;
            if (id + 1 > g_ncuda) g_ncuda = id + 1;
        }
        nd__clear_error();
    }
    bool ok = g_base_set[id];
    pthread_mutex_unlock(&g_base_mu);
    return ok;
}

/* Record a device event on dev's current stream for r (start or end). */
static void *device_event(prof_thread *t, nd_device dev, void *stream)
{
    if (dev.type == ND_DEVICE_CPU || dev.id < 0 || dev.id >= MAX_DEV) return NULL;
    const nd_backend *be = nd__backend(dev);
    if (!be || !be->event_record || !be->event_create) return NULL;
    int id = dev.id;
    if (!base_ready(be, id, stream)) return NULL;
    if (t->evused[id] == t->evcap[id]) {
        int cap = t->evcap[id] ? 2 * t->evcap[id] : 16;
        void **p = nd__realloc(t->evpool[id], (size_t)cap * sizeof *p);
        if (!p) return NULL;
        t->evpool[id] = p;
        for (int i = t->evcap[id]; i < cap; i++) p[i] = NULL;
        t->evcap[id] = cap;
    }
    void **slot = &t->evpool[id][t->evused[id]];
    if (!*slot && be->event_create(slot, id) != ND_OK) {
        *slot = NULL;
        nd__clear_error();
        return NULL;
    }
    if (be->event_record(*slot, stream, id) != ND_OK) {
        nd__clear_error();
        return NULL;
    }
    t->evused[id]++;
    return *slot;
}

static void rec_time_device(prof_thread *t, rec *r, nd_device dev)
{
    if (r->ev0 || dev.type == ND_DEVICE_CPU) return;
    r->stream = nd__current_stream(dev);
    r->ev0 = device_event(t, dev, r->stream);
}

/* Open a frame on t for record r (t locked). */
static int push_frame(prof_thread *t, int64_t idx, nd_array **out, int64_t bytes_in, bool is_range)
{
    frame *f = &t->stack[t->depth];
    *f = (frame){.rec = idx, .out = out, .bytes_in = bytes_in, .is_range = is_range, .range_level = tls_ranges};
    rec *r = rec_at(t, idx);
    r->open = true;
    r->e.depth = t->depth;
    r->e.parent = t->depth ? t->stack[t->depth - 1].rec : -1; /* thread-local index; global at stop */
    return ++t->depth;
}

void nd__prof_begin(nd_prof_scope *s, const char *name, nd_array **out, int n, const nd_array *const *ins,
                    const nd_device *dev)
{
    prof_thread *t = self_thread();
    if (!t) return;
    pthread_mutex_lock(&t->lock);
    nd_device d = dev ? *dev : nd_cpu();
    bool known = dev != NULL;
    for (int i = 0; !dev && i < n; i++)
        if (ins[i]) {
            d = ins[i]->device;
            known = true;
            break;
        }
    int64_t idx;
    rec *r;
    if (!g_running || (known && !device_wanted(d)) || t->depth == MAX_DEPTH || !(r = rec_new(t, &idx))) {
        if (g_running && t->depth == MAX_DEPTH) atomic_fetch_add(&g_dropped, 1);
        pthread_mutex_unlock(&t->lock);
        return;
    }
    r->e.name = name ? name : "?";
    r->e.kind = ND_PROFILER_OP;
    r->e.device = d;
    int64_t bytes_in = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        const nd_array *a = ins[i];
        if (!a) continue;
        bytes_in += a->size * (int64_t)nd__itemsize(a->dtype);
        if (k == ND_PROFILER_MAX_INPUTS) continue;
        r->e.dtypes[k] = a->dtype;
        if (g_cfg.record_shapes) {
            int64_t *sh = a->ndim ? arena_get(t, (size_t)a->ndim * sizeof *sh) : NULL;
            if (sh || !a->ndim) {
                if (sh) memcpy(sh, a->shape, (size_t)a->ndim * sizeof *sh);
                r->e.ndims[k] = a->ndim;
                r->e.shapes[k] = sh;
            }
        }
        k++;
    }
    r->e.ninputs = k;
    s->frame = push_frame(t, idx, out, bytes_in, false);
    rec_time_device(t, r, d);
    t->stack[t->depth - 1].t0 = now_ns();
    pthread_mutex_unlock(&t->lock);
}

/* Close frame fi of t at time t1 (t locked); fi must be the top frame.
 * own: the closing thread is t's (stop closes other threads' frames
 * without reading their out-pointers or recording device events). */
static void close_frame(prof_thread *t, int fi, int64_t t1, bool own)
{
    frame *f = &t->stack[fi];
    rec *r = rec_at(t, f->rec);
    r->e.host_start_ns = f->t0 - g_t0;
    r->e.host_ns = t1 - f->t0;
    r->e.host_self_ns = r->e.host_ns - f->child_ns;
    if (r->e.host_self_ns < 0) r->e.host_self_ns = 0;
    if (fi > 0) t->stack[fi - 1].child_ns += r->e.host_ns;
    r->e.mem_self_bytes = f->mem_self;
    int64_t out_bytes = 0;
    if (own && f->out && *f->out) {
        const nd_array *o = *f->out;
        r->e.out_dtype = (int)o->dtype;
        out_bytes = o->size * (int64_t)nd__itemsize(o->dtype);
    }
    if (!f->bytes_set && !f->is_range) r->e.bytes = f->bytes_in + out_bytes;
    if (r->ev0 && own) r->ev1 = device_event(t, r->e.device, r->stream);
    if (!r->ev1) r->ev0 = NULL;
    r->open = false;
    t->depth = fi;
}

void nd__prof_end(nd_prof_scope *s)
{
    int64_t t1 = now_ns();
    prof_thread *t = tls_t;
    int fi = s->frame - 1;
    s->frame = 0;
    if (!t) return;
    pthread_mutex_lock(&t->lock);
    /* a frame of an earlier session (start or stop reset the stack) is gone */
    if (g_running && fi < t->depth && !t->stack[fi].is_range) {
        while (t->depth - 1 > fi) close_frame(t, t->depth - 1, t1, true); /* never: scopes close in order */
        close_frame(t, fi, t1, true);
    }
    pthread_mutex_unlock(&t->lock);
}

/* The open frame of scope s with its thread's lock held (*tp, unlock it),
 * or NULL (nothing held) when the scope records nothing any more. */
static frame *scope_lock(nd_prof_scope *s, prof_thread **tp, rec **rp)
{
    prof_thread *t = tls_t;
    if (!t) return NULL;
    pthread_mutex_lock(&t->lock);
    int fi = s->frame - 1;
    if (!g_running || fi >= t->depth) {
        pthread_mutex_unlock(&t->lock);
        return NULL;
    }
    *tp = t;
    *rp = rec_at(t, t->stack[fi].rec);
    return &t->stack[fi];
}

/* r runs on dev (t locked): restart its device timing there. */
static void set_device(prof_thread *t, rec *r, nd_device dev)
{
    if (nd__same_device(r->e.device, dev)) return;
    r->e.device = dev;
    r->ev0 = NULL;
    rec_time_device(t, r, dev);
}

void nd__prof_set(nd_prof_scope *s, int what, int64_t v)
{
    prof_thread *t;
    rec *r;
    frame *f = scope_lock(s, &t, &r);
    if (!f) return;
    if (what == ND_PROF_SET_BYTES) {
        r->e.bytes = v;
        f->bytes_set = true;
    } else {
        r->e.flops = v;
    }
    pthread_mutex_unlock(&t->lock);
}

void nd__prof_device(nd_prof_scope *s, nd_device dev)
{
    prof_thread *t;
    rec *r;
    if (!scope_lock(s, &t, &r)) return;
    set_device(t, r, dev);
    pthread_mutex_unlock(&t->lock);
}

void nd__prof_transfer(nd_prof_scope *s, const char *name, int64_t bytes, nd_device dev)
{
    prof_thread *t;
    rec *r;
    frame *f = scope_lock(s, &t, &r);
    if (!f) return;
    set_device(t, r, dev);
    r->e.kind = ND_PROFILER_TRANSFER;
    r->e.name = name;
    r->e.bytes = bytes;
    f->bytes_set = true;
    pthread_mutex_unlock(&t->lock);
}

void nd__prof_mem(nd_device dev, int64_t delta)
{
    int slot = dev_slot(dev);
    if (slot < 0) return;
    prof_thread *t = self_thread();
    if (!t) return;
    pthread_mutex_lock(&t->lock);
    int64_t idx;
    rec *r;
    if (g_running && g_cfg.profile_memory && device_wanted(dev) && (r = rec_new(t, &idx))) {
        int64_t in_use = atomic_fetch_add(&g_in_use[slot], delta) + delta;
        r->e.name = delta >= 0 ? "alloc" : "free";
        r->e.kind = ND_PROFILER_MEMORY;
        r->e.device = dev;
        r->e.depth = t->depth;
        r->e.parent = t->depth ? t->stack[t->depth - 1].rec : -1;
        r->e.host_start_ns = now_ns() - g_t0;
        r->e.bytes = delta;
        r->e.mem_in_use = in_use;
        if (t->depth) t->stack[t->depth - 1].mem_self += delta;
    }
    pthread_mutex_unlock(&t->lock);
}

/* ------------------------------------------------------------------ */
/* Ranges                                                              */
/* ------------------------------------------------------------------ */
static void nvtx_each(const char *name)
{
    for (int ty = 0; ty < ND_NUM_DEVICE_TYPES; ty++) {
        const nd_backend *be = nd__backend((nd_device){(nd_device_type)ty, 0});
        if (!be) continue;
        if (name && be->range_push) be->range_push(name);
        if (!name && be->range_pop) be->range_pop();
    }
}

nd_status nd_range_push(const char *name)
{
    static const char *fn = "nd_range_push";
    ND_CHECK_PTR(fn, name, "name");
    if (tls_ranges == MAX_RANGES)
        return nd__err(ND_ERR_INVALID, fn, "%d ranges are open on this thread already (the limit)", MAX_RANGES);
    tls_ranges++;
    nvtx_each(name);
    if (!nd__prof_running()) return ND_OK;
    prof_thread *t = self_thread();
    if (!t) return ND_OK;
    pthread_mutex_lock(&t->lock);
    int64_t idx;
    rec *r;
    if (g_running && t->depth < MAX_DEPTH && (r = rec_new(t, &idx))) {
        size_t len = strlen(name);
        char *copy = arena_get(t, len < 255 ? len + 1 : 256);
        if (copy) {
            size_t m = len < 255 ? len : 255;
            memcpy(copy, name, m);
            copy[m] = '\0';
        }
        r->e.name = copy ? copy : "range";
        r->e.kind = ND_PROFILER_RANGE;
        nd_device d = nd_default_device();
        r->e.device = g_cfg.cuda ? d : nd_cpu();
        push_frame(t, idx, NULL, 0, true);
        t->stack[t->depth - 1].range_level = tls_ranges;
        if (g_cfg.cuda) rec_time_device(t, r, d);
        t->stack[t->depth - 1].t0 = now_ns();
    } else if (g_running && t->depth == MAX_DEPTH) {
        atomic_fetch_add(&g_dropped, 1);
    }
    pthread_mutex_unlock(&t->lock);
    return ND_OK;
}

nd_status nd_range_pop(void)
{
    int64_t t1 = now_ns();
    if (tls_ranges == 0) return nd__err(ND_ERR_INVALID, "nd_range_pop", "no range is open on this thread");
    prof_thread *t = tls_t;
    if (t) {
        pthread_mutex_lock(&t->lock);
        if (g_running && t->depth > 0) {
            frame *f = &t->stack[t->depth - 1];
            if (f->is_range && f->range_level == tls_ranges) close_frame(t, t->depth - 1, t1, true);
        }
        pthread_mutex_unlock(&t->lock);
    }
    tls_ranges--;
    nvtx_each(NULL);
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Sessions                                                            */
/* ------------------------------------------------------------------ */
void nd_profiler_config_init(nd_profiler_config *cfg)
{
    if (cfg) *cfg = (nd_profiler_config){.cpu = true, .cuda = true, .max_events = 1 << 19};
}

static void arena_free(arena_block *b)
{
    while (b) {
        arena_block *n = b->next;
        nd__free(b);
        b = n;
    }
}

static void result_free(void)
{
    nd__free(g_res.ev);
    nd__free(g_tids);
    g_res = (nd_prof_result){0};
    g_tids = NULL;
    g_have_result = false;
}

/* query_devices false: touch no GPU runtime (the session ND_PROFILE
 * starts before main); device memory counters then start at 0. */
nd_status nd__prof_start(const nd_profiler_config *cfg, bool query_devices)
{
    static const char *fn = "nd_profiler_start";
    nd_profiler_config c;
    nd_profiler_config_init(&c);
    if (cfg) c = *cfg;
    if (c.max_events < 1)
        return nd__err(ND_ERR_INVALID, fn, "max_events must be at least 1 (got %lld)", (long long)c.max_events);
    pthread_mutex_lock(&g_lock);
    if (g_running) {
        pthread_mutex_unlock(&g_lock);
        return nd__err(ND_ERR_INVALID, fn, "a profiling session is already running");
    }
    result_free();
    /* base events: recorded at each device's first timed event (base_ready) */
    pthread_mutex_lock(&g_base_mu);
    g_ncuda = 0;
    for (int id = 0; id < MAX_DEV; id++) g_base_set[id] = false;
    pthread_mutex_unlock(&g_base_mu);
    for (prof_thread *t = g_threads; t; t = t->next) {
        pthread_mutex_lock(&t->lock);
        t->depth = 0;
        t->n = 0;
        t->index = -1;
        arena_free(t->arena);
        t->arena = NULL;
        for (int i = 0; i < MAX_DEV; i++) t->evused[i] = 0;
        pthread_mutex_unlock(&t->lock);
    }
    g_cfg = c;
    atomic_store(&g_nevents, 0);
    atomic_store(&g_dropped, 0);
    atomic_store(&g_nthreads, 0);
    for (int i = 0; i <= MAX_DEV; i++) atomic_store(&g_in_use[i], 0);
    /* memory counters start from what the allocators hold now */
    for (int ty = 0; ty < ND_NUM_DEVICE_TYPES; ty++) {
        const nd_backend *be = nd__backend((nd_device){(nd_device_type)ty, 0});
        if (!be || (ty != ND_DEVICE_CPU && !query_devices)) continue;
        int n = ty == ND_DEVICE_CPU ? 1 : be->device_count();
        for (int id = 0; id < n && id < MAX_DEV; id++) {
            nd_memory_stats ms;
            nd_device d = {(nd_device_type)ty, id};
            if (be->memory_stats(&ms, id) == ND_OK) atomic_store(&g_in_use[dev_slot(d)], (long)ms.in_use);
        }
    }
    nd__clear_error();
    g_unclosed = 0;
    g_t0 = now_ns();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    g_t0_unix = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    atomic_store(&g_running, true);
    atomic_store(&nd__prof_mem_on, c.profile_memory ? 1 : 0);
    atomic_store(&nd__prof_on, 1);
    pthread_mutex_unlock(&g_lock);
    return ND_OK;
}

nd_status nd_profiler_start(const nd_profiler_config *cfg) { return nd__prof_start(cfg, true); }

bool nd_profiler_is_running(void) { return nd__prof_running(); }

typedef struct order {
    int64_t start;
    int depth, thread;
    int64_t local;
    prof_thread *t;
} order;

static int order_cmp(const void *x, const void *y)
{
    const order *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    return a->local < b->local ? -1 : a->local > b->local;
}

/* Device time of r (both events recorded) in ns relative to the session, or -1. */
static void device_times(rec *r)
{
    nd_device d = r->e.device;
    if (!r->ev0 || !r->ev1 || d.id < 0 || d.id >= MAX_DEV || !g_base_set[d.id]) return;
    const nd_backend *be = nd__backend(d);
    float from_base = 0, dur = 0;
    if (be->event_elapsed(&from_base, g_base[d.id], r->ev0, d.id) != ND_OK ||
        be->event_elapsed(&dur, r->ev0, r->ev1, d.id) != ND_OK) {
        nd__clear_error();
        return;
    }
    int64_t start = g_base_host[d.id] - g_t0 + (int64_t)((double)from_base * 1e6);
    r->e.device_start_ns = start < 0 ? 0 : start;
    r->e.device_ns = dur < 0 ? 0 : (int64_t)((double)dur * 1e6);
    r->e.device_self_ns = r->e.device_ns;
}

nd_status nd_profiler_stop(void)
{
    static const char *fn = "nd_profiler_stop";
    pthread_mutex_lock(&g_lock);
    if (!g_running) {
        pthread_mutex_unlock(&g_lock);
        return nd__err(ND_ERR_INVALID, fn, "no profiling session is running");
    }
    atomic_store(&nd__prof_on, 0);
    atomic_store(&nd__prof_mem_on, 0);
    /* before the buffers are read: a recorder that takes its lock after
     * stop has read its buffer sees false (the mutex orders them) */
    atomic_store(&g_running, false);
    int64_t t1 = now_ns();
    size_t total = 0;
    int nthreads = atomic_load(&g_nthreads);
    g_tids = nd__calloc((size_t)(nthreads ? nthreads : 1), sizeof *g_tids);
    for (prof_thread *t = g_threads; t; t = t->next) {
        pthread_mutex_lock(&t->lock);
        while (t->depth > 0) {
            if (t->stack[t->depth - 1].is_range) g_unclosed++;
            close_frame(t, t->depth - 1, t1, t == tls_t);
        }
        total += (size_t)t->n;
        if (g_tids && t->index >= 0 && t->index < nthreads) g_tids[t->index] = t->os_tid;
        pthread_mutex_unlock(&t->lock);
    }
    /* wait for the timed devices, then read their events */
    for (int id = 0; id < g_ncuda; id++) {
        if (!g_base_set[id]) continue;
        for (int ty = 1; ty < ND_NUM_DEVICE_TYPES; ty++) {
            nd_device d = {(nd_device_type)ty, id};
            /* the device's own slot, also while this thread captures a graph */
            const nd_backend *be = nd__registry[ty].be;
            if (be && be->event_create) (void)be->synchronize(d);
        }
    }
    nd__clear_error();
    order *ord = nd__malloc((total ? total : 1) * sizeof *ord);
    nd_profiler_event *ev = nd__malloc((total ? total : 1) * sizeof *ev);
    int64_t **gidx = nd__calloc((size_t)(nthreads ? nthreads : 1), sizeof *gidx);
    nd_status st = ND_OK;
    if (!ord || !ev || !g_tids || !gidx) {
        st = nd__err(ND_ERR_NOMEM, fn, "out of host memory for %zu profiler events", total);
        total = 0;
    }
    size_t k = 0;
    for (prof_thread *t = g_threads; t && st == ND_OK; t = t->next) {
        if (t->index < 0 || t->index >= nthreads) continue;
        gidx[t->index] = nd__malloc((size_t)(t->n ? t->n : 1) * sizeof(int64_t));
        if (!gidx[t->index]) {
            st = nd__err(ND_ERR_NOMEM, fn, "out of host memory for %zu profiler events", total);
            break;
        }
        for (int64_t i = 0; i < t->n; i++) {
            rec *r = rec_at(t, i);
            device_times(r);
            ord[k++] = (order){r->e.host_start_ns, r->e.depth, t->index, i, t};
        }
    }
    if (st) k = 0;
    if (k > 1) qsort(ord, k, sizeof *ord, order_cmp); /* ord may be NULL when k == 0 */
    for (size_t i = 0; i < k; i++) gidx[ord[i].thread][ord[i].local] = (int64_t)i;
    for (size_t i = 0; i < k; i++) {
        rec *r = rec_at(ord[i].t, ord[i].local);
        ev[i] = r->e;
        if (ev[i].parent >= 0) ev[i].parent = gidx[ord[i].thread][ev[i].parent];
    }
    /* streams numbered per device in order of appearance; device self times */
    enum { MAX_STREAMS = 64 };
    void *seen[MAX_DEV][MAX_STREAMS];
    int nseen[MAX_DEV] = {0};
    for (size_t i = 0; i < k; i++) {
        rec *r = rec_at(ord[i].t, ord[i].local);
        ev[i].stream = 0;
        int id = ev[i].device.id;
        if (r->stream && ev[i].device.type != ND_DEVICE_CPU && id >= 0 && id < MAX_DEV) {
            int j = 0;
            while (j < nseen[id] && seen[id][j] != r->stream) j++;
            if (j == nseen[id] && j < MAX_STREAMS) seen[id][nseen[id]++] = r->stream;
            ev[i].stream = j + 1; /* streams past the 64th share one number */
        }
        int64_t p = ev[i].parent;
        if (ev[i].device_ns >= 0 && p >= 0 && ev[p].device_self_ns >= 0 && nd__same_device(ev[p].device, ev[i].device)) {
            ev[p].device_self_ns -= ev[i].device_ns;
            if (ev[p].device_self_ns < 0) ev[p].device_self_ns = 0;
        }
    }
    for (int i = 0; gidx && i < nthreads; i++) nd__free(gidx[i]);
    nd__free(gidx);
    nd__free(ord);
    g_res.ev = ev;
    g_res.n = k;
    g_res.stats = (nd_profiler_stats){.events = (int64_t)k, .dropped = atomic_load(&g_dropped), .threads = nthreads,
                                      .unclosed_ranges = g_unclosed, .duration_ns = t1 - g_t0};
    g_res.cfg = g_cfg;
    g_res.start_unix_ns = g_t0_unix;
    g_res.nthreads = nthreads;
    g_res.thread_os_id = g_tids;
    static uint64_t serial;
    g_res.serial = ++serial;
    g_have_result = true;
    pthread_mutex_unlock(&g_lock);
    return st;
}

const nd_prof_result *nd__prof_last(void)
{
    pthread_mutex_lock(&g_lock);
    const nd_prof_result *r = g_have_result && !g_running ? &g_res : NULL;
    pthread_mutex_unlock(&g_lock);
    return r;
}

nd_status nd_profiler_events(const nd_profiler_event **events, size_t *n)
{
    static const char *fn = "nd_profiler_events";
    ND_CHECK_PTR(fn, events, "events");
    ND_CHECK_PTR(fn, n, "n");
    const nd_prof_result *r = nd__prof_last();
    if (!r)
        return nd__err(ND_ERR_INVALID, fn, nd__prof_running() ? "the session is still running: call nd_profiler_stop first"
                                                              : "no profiling session has finished");
    *events = r->ev;
    *n = r->n;
    return ND_OK;
}

nd_status nd_profiler_get_stats(nd_profiler_stats *s)
{
    static const char *fn = "nd_profiler_get_stats";
    ND_CHECK_PTR(fn, s, "stats");
    pthread_mutex_lock(&g_lock);
    nd_status st = ND_OK;
    if (g_running) {
        *s = (nd_profiler_stats){.events = atomic_load(&g_nevents), .dropped = atomic_load(&g_dropped),
                                 .threads = atomic_load(&g_nthreads), .duration_ns = now_ns() - g_t0};
    } else if (g_have_result) {
        *s = g_res.stats;
    } else {
        st = nd__err(ND_ERR_INVALID, fn, "no profiling session has run");
    }
    pthread_mutex_unlock(&g_lock);
    return st;
}

/* ------------------------------------------------------------------ */
/* The reports of the last session (the writers, pure functions of a  */
/* finished session: src/prof/)                                        */
/* ------------------------------------------------------------------ */
nd_status nd__prof_need_last(const char *func, const nd_prof_result **r)
{
    *r = nd__prof_last();
    if (*r) return ND_OK;
    return nd__err(ND_ERR_INVALID, func, "%s",
                   nd_profiler_is_running() ? "a profiling session is running: call nd_profiler_stop first"
                                            : "no profiling session has finished (nd_profiler_start, then nd_profiler_stop)");
}

nd_status nd_profiler_key_averages(nd_profiler_row *rows, size_t cap, size_t *nrows, const nd_profiler_table_options *opt)
{
    const char *func = "nd_profiler_key_averages";
    ND_CHECK_PTR(func, nrows, "nrows");
    const nd_prof_result *r;
    nd_status st = nd__prof_need_last(func, &r);
    return st != ND_OK ? st : nd__prof_writers.key_averages(r, rows, cap, nrows, opt);
}

nd_status nd_profiler_table(char *buf, size_t size, size_t *needed, const nd_profiler_table_options *opt)
{
    const nd_prof_result *r;
    nd_status st = nd__prof_need_last("nd_profiler_table", &r);
    return st != ND_OK ? st : nd__prof_writers.table(r, buf, size, needed, opt);
}

nd_status nd_profiler_print_table(FILE *f, const nd_profiler_table_options *opt)
{
    const nd_prof_result *r;
    nd_status st = nd__prof_need_last("nd_profiler_print_table", &r);
    return st != ND_OK ? st : nd__prof_writers.print_table(r, f, opt);
}

nd_status nd_profiler_export_chrome_trace(const char *path)
{
    const char *func = "nd_profiler_export_chrome_trace";
    ND_CHECK_PTR(func, path, "path");
    const nd_prof_result *r;
    nd_status st = nd__prof_need_last(func, &r);
    return st != ND_OK ? st : nd__prof_writers.chrome_trace(r, path);
}

nd_status nd_profiler_export_json(const char *path, const nd_profiler_table_options *opt)
{
    const char *func = "nd_profiler_export_json";
    ND_CHECK_PTR(func, path, "path");
    const nd_prof_result *r;
    nd_status st = nd__prof_need_last(func, &r);
    return st != ND_OK ? st : nd__prof_writers.json(r, path, opt);
}

/* ------------------------------------------------------------------ */
/* ND_PROFILE=trace.json: a whole program, written at exit             */
/* ------------------------------------------------------------------ */
static void env_profile_finish(void)
{
    static atomic_int done;
    if (atomic_exchange(&done, 1)) return;
    const char *path = getenv("ND_PROFILE");
    if (nd_profiler_is_running()) (void)nd_profiler_stop();
    if (path && *path && nd_profiler_export_chrome_trace(path) != ND_OK)
        fprintf(stderr, "libndgpu: ND_PROFILE: %s\n", nd_last_error());
    const char *tab = getenv("ND_PROFILE_TABLE");
    if (tab && *tab) {
        FILE *f = strcmp(tab, "-") == 0 ? stderr : fopen(tab, "w");
        nd_profiler_table_options o = {.sort_by = ND_PROFILER_SORT_HOST_TOTAL, .row_limit = 30};
        if (!f || nd_profiler_print_table(f, &o) != ND_OK)
            fprintf(stderr, "libndgpu: ND_PROFILE_TABLE: %s\n", f ? nd_last_error() : "cannot open the file");
        if (f && f != stderr) fclose(f);
    }
}

__attribute__((constructor)) static void env_profile_start(void)
{
    const char *path = getenv("ND_PROFILE");
    if (!path || !*path) return;
    nd_profiler_config c;
    nd_profiler_config_init(&c);
    c.record_shapes = c.profile_memory = true;
    /* touches no GPU runtime: a process that forks before its first GPU
     * call (a test runner) keeps a usable GPU in its children */
    if (nd__prof_start(&c, false) == ND_OK) atexit(env_profile_finish);
}
