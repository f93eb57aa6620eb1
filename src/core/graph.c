/* Graphs: capture the operations a thread issues on one device, replay
 * them (include/ndgpu/runtime.h has the contract).
 *
 * While a thread captures device D, nd__backend(D) gives that thread a
 * capture descriptor instead of D's own: a copy of D's descriptor in which
 *  - the slots a graph cannot replay refuse (ND_ERR_UNSUPPORTED) and break
 *    the capture: host reads and writes, random numbers, factorisations,
 *    the ops that report a flag to the host, synchronisation. The list is
 *    the same for every device, so one program behaves alike everywhere;
 *  - on a device with native graphs (CUDA: the backend's graph slots, stream
 *    capture) every other slot is D's own: the device records what they
 *    queue;
 *  - on a device without them (the CPU) the compute slots RECORD their call
 *    (the slot, its scalars and copies of its array headers) instead of
 *    running it, and nd_graph_launch calls D's own slots with the recorded
 *    arguments: the resolved loops run again with no checks, dispatch or
 *    allocation. Arrays allocated by the capturing thread on D join the
 *    capture's memory (nd_buffer.gmem): released during the capture or
 *    after it, their memory stays with the graph until it is destroyed.
 *    The optional slots whose absence the core handles (topk_rows, expr)
 *    are NULL in the capture descriptor, so their ops are recorded as the
 *    plain ops the core then issues.
 * The check on the hot path is one relaxed load of nd__captures_active
 * (src/core/backend.h). */
#include <pthread.h>
#include <string.h>

#include "core/internal.h"

int nd__captures_active;

/* ------------------------------------------------------------------ */
/* Recorded operations                                                 */
/* ------------------------------------------------------------------ */
typedef enum {
    REC_D2D, REC_CAST, REC_FILL, REC_UNARY, REC_BINARY, REC_WHERE, REC_REDUCE, REC_MATMUL, REC_GEMM,
    REC_UNARY_FLAT, REC_BINARY_FLAT, REC_GATHER, REC_SCATTER, REC_COMPRESS, REC_SORT, REC_SEARCHSORTED,
    REC_SCAN, REC_SOFTMAX, REC_FFT
} rec_kind;

/* A copy of an array header with its buffer record: the slot sees the
 * geometry and data pointer the op saw (the memory itself stays alive: the
 * graph's own, or the caller's by the contract). */
typedef struct hcopy {
    nd_array a;
    nd_buffer b;
} hcopy;

typedef struct rec {
    rec_kind kind;
    int i0, i1, i2;
    bool b0, b1;
    double d0, d1;
    int64_t l0, l1, l2;
    nd_dtype t;
    nd_array *a[4]; /* header copies (NULL where the slot got NULL) */
    void *p[3];     /* raw pointers of the flat loops and the device copy */
    size_t nbytes;
    unsigned char value[16];
} rec;

/* The memory made during a recorded capture (see nd_buffer.gmem). */
typedef struct kept {
    void *ptr;
    size_t nbytes;
    nd_device dev;
    bool managed;
} kept;
struct nd_graph_mem {
    pthread_mutex_t mu;
    long refs;        /* the graph, and each adopted buffer not yet released */
    bool graph_alive; /* while true, released buffers are kept */
    kept *k;
    size_t nk, capk;
};

struct nd_graph {
    nd_device dev;
    const nd_backend *real; /* the device's own descriptor */
    void *exec;             /* native graphs: the backend's */
    int64_t nodes;
    rec *recs; /* recorded graphs */
    int64_t nrec, caprec;
    struct nd_graph_mem *mem;
};

typedef struct nd_capture {
    nd_device dev;
    nd_stream *prev; /* the thread's current stream of dev before the capture */
    nd_backend be;   /* the capture descriptor */
    nd_graph *g;
    void *bstate; /* native graphs: the backend's capture */
    bool recorded;
    nd_status failed; /* the first refusal */
    char why[512];
} nd_capture;

static _Thread_local nd_capture *tl_cap;

const nd_backend *nd__capture_backend(nd_device dev)
{
    nd_capture *c = tl_cap;
    if (c && c->dev.type == dev.type && c->dev.id == dev.id) return &c->be;
    return nd__registry[dev.type].be;
}

/* The capture c is broken by the failure st (its message is the thread's
 * last error): the first one is kept for nd_graph_end. Returns st. */
static nd_status capture_fail(nd_capture *c, nd_status st)
{
    if (c && !c->failed) {
        c->failed = st;
        snprintf(c->why, sizeof c->why, "%s", nd_last_error());
    }
    return st;
}

/* Break the capture with a refusal and answer it. */
static nd_status refuse(const char *what, const char *why)
{
    return capture_fail(tl_cap, nd__err(ND_ERR_UNSUPPORTED, what, "cannot be captured in a graph (%s)", why));
}

nd_status nd__capture_refuse_slow(const char *fn, nd_device dev, const char *what, const char *why)
{
    nd_capture *c = tl_cap;
    if (!c || c->dev.type != dev.type || c->dev.id != dev.id) return ND_OK;
    return capture_fail(c, nd__err(ND_ERR_UNSUPPORTED, fn, "%s cannot be captured in a graph (%s)", what, why));
}

/* ---- the slots that refuse ---- */
static nd_status no_h2d(nd_device d, void *dst, const void *src, size_t n)
{
    (void)d, (void)dst, (void)src, (void)n;
    return refuse("a copy from host memory", "copy new inputs into the graph's arrays before nd_graph_launch");
}
static nd_status no_d2h(nd_device d, void *dst, const void *src, size_t n)
{
    (void)d, (void)dst, (void)src, (void)n;
    return refuse("reading device data on the host",
                  "a capture runs nothing; read results after nd_graph_launch (this includes the ops that size or "
                  "check a result by its data)");
}
static nd_status no_random(nd_array *out, int dist, const struct nd_philox_call *call)
{
    (void)out, (void)dist, (void)call;
    return refuse("random numbers", "every launch would repeat the same numbers");
}
static nd_status no_mask_count(const nd_array *mask, int64_t *count)
{
    (void)mask, (void)count;
    return refuse("an operation whose result size depends on the data (nonzero, boolean masks)",
                  "the size is read on the host");
}
static nd_status no_la(struct nd_la_call *call)
{
    (void)call;
    return refuse("linear algebra factorisations", "they report their status to the host");
}
static nd_status no_cross_entropy(nd_array *loss, const nd_array *logits, const nd_array *labels, int64_t outer,
                                  int64_t C, int64_t inner, int64_t ignore_index, bool *bad, int64_t *bad_label)
{
    (void)loss, (void)logits, (void)labels, (void)outer, (void)C, (void)inner, (void)ignore_index, (void)bad,
        (void)bad_label;
    return refuse("cross-entropy", "its label check reports to the host");
}
static nd_status no_amp_unscale(nd_array *const *xs, int n, double inv_scale, bool *found)
{
    (void)xs, (void)n, (void)inv_scale, (void)found;
    return refuse("loss-scale unscaling", "its inf/NaN flag goes to the host");
}
static nd_status no_kernel_ew(struct nd_k_call *call)
{
    (void)call;
    return refuse("a user kernel compiled from C", "the CPU does not record these yet");
}
static nd_status no_synchronize(nd_device dev)
{
    (void)dev;
    return refuse("synchronisation", "a capture queues work and runs none; synchronise after nd_graph_launch");
}
static nd_status no_stream_synchronize(void *handle, int id)
{
    (void)handle, (void)id;
    return no_synchronize(nd_cpu());
}

/* ---- the slots that record (devices without native graphs) ---- */
static rec *rec_new(rec_kind kind)
{
    nd_capture *c = tl_cap;
    nd_graph *g = c->g;
    if (g->nrec == g->caprec) {
        int64_t cap = g->caprec ? g->caprec * 2 : 32;
        rec *r = nd__realloc(g->recs, sizeof *r * (size_t)cap);
        if (!r) return NULL;
        g->recs = r;
        g->caprec = cap;
    }
    rec *r = &g->recs[g->nrec];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    return r;
}

static nd_array *hdr(const nd_array *a)
{
    if (!a) return NULL;
    hcopy *h = nd__malloc(sizeof *h);
    if (!h) return NULL;
    memcpy(&h->a, a, sizeof h->a);
    memcpy(&h->b, a->buf, sizeof h->b);
    h->a.buf = &h->b;
    h->b.release = NULL;
    h->b.owns = false;
    h->b.gmem = NULL;
    return &h->a;
}

static void rec_free(rec *r)
{
    for (int i = 0; i < 4; i++) nd__free(r->a[i]); /* the hcopy starts with its array */
}

/* Copy the operands into r and commit it; ND_ERR_NOMEM breaks the capture. */
static nd_status rec_commit(rec *r, const nd_array *a0, const nd_array *a1, const nd_array *a2, const nd_array *a3)
{
    const nd_array *in[4] = {a0, a1, a2, a3};
    bool ok = r != NULL;
    for (int i = 0; i < 4 && ok; i++)
        if (in[i] && !(r->a[i] = hdr(in[i]))) ok = false;
    if (!ok) {
        if (r) rec_free(r);
        return capture_fail(tl_cap, nd__err(ND_ERR_NOMEM, "nd_graph", "out of host memory recording an operation"));
    }
    tl_cap->g->nrec++;
    return ND_OK;
}

static nd_status r_d2d(nd_device dev, void *dst, const void *src, size_t n)
{
    (void)dev;
    rec *r = rec_new(REC_D2D);
    if (r) r->p[0] = dst, r->p[1] = (void *)src, r->nbytes = n;
    return rec_commit(r, NULL, NULL, NULL, NULL);
}
static nd_status r_cast(nd_array *dst, const nd_array *src)
{
    return rec_commit(rec_new(REC_CAST), dst, src, NULL, NULL);
}
static nd_status r_fill(nd_array *dst, const void *value)
{
    rec *r = rec_new(REC_FILL);
    if (r) memcpy(r->value, value, nd__itemsize(dst->dtype));
    return rec_commit(r, dst, NULL, NULL, NULL);
}
static nd_status r_unary(nd_unary_op op, nd_array *out, const nd_array *a)
{
    rec *r = rec_new(REC_UNARY);
    if (r) r->i0 = (int)op;
    return rec_commit(r, out, a, NULL, NULL);
}
static nd_status r_binary(nd_binary_op op, nd_array *out, const nd_array *a, const nd_array *b)
{
    rec *r = rec_new(REC_BINARY);
    if (r) r->i0 = (int)op;
    return rec_commit(r, out, a, b, NULL);
}
static nd_status r_where(nd_array *out, const nd_array *cond, const nd_array *x, const nd_array *y)
{
    return rec_commit(rec_new(REC_WHERE), out, cond, x, y);
}
static nd_status r_reduce(nd_reduce_op op, nd_array *out, const nd_array *a, int naxes, double ddof)
{
    rec *r = rec_new(REC_REDUCE);
    if (r) r->i0 = (int)op, r->i1 = naxes, r->d0 = ddof;
    return rec_commit(r, out, a, NULL, NULL);
}
static nd_status r_matmul(nd_array *out, const nd_array *a, const nd_array *b)
{
    return rec_commit(rec_new(REC_MATMUL), out, a, b, NULL);
}
static nd_status r_gemm(nd_array *c, bool ta, bool tb, double alpha, const nd_array *a, const nd_array *b, double beta)
{
    rec *r = rec_new(REC_GEMM);
    if (r) r->b0 = ta, r->b1 = tb, r->d0 = alpha, r->d1 = beta;
    return rec_commit(r, c, a, b, NULL);
}
/* The flat loops cannot fail and return nothing: a recording that fails
 * (no host memory) breaks the capture, which nd_graph_end reports. */
static void r_unary_flat(nd_unary_op op, nd_dtype t, void *out, const void *a, int64_t n)
{
    rec *r = rec_new(REC_UNARY_FLAT);
    if (r) r->i0 = (int)op, r->t = t, r->p[0] = out, r->p[1] = (void *)a, r->l0 = n;
    (void)rec_commit(r, NULL, NULL, NULL, NULL);
}
static void r_binary_flat(nd_binary_op op, nd_dtype t, void *out, const void *a, const void *b, int64_t n)
{
    rec *r = rec_new(REC_BINARY_FLAT);
    if (r) r->i0 = (int)op, r->t = t, r->p[0] = out, r->p[1] = (void *)a, r->p[2] = (void *)b, r->l0 = n;
    (void)rec_commit(r, NULL, NULL, NULL, NULL);
}
static nd_status r_gather(nd_array *out, const nd_array *a, const nd_array *idx, int axis, int mode)
{
    rec *r = rec_new(REC_GATHER);
    if (r) r->i0 = axis, r->i1 = mode;
    return rec_commit(r, out, a, idx, NULL);
}
static nd_status r_scatter(nd_array *a, const nd_array *idx, const nd_array *values, int axis, int mode, int op)
{
    rec *r = rec_new(REC_SCATTER);
    if (r) r->i0 = axis, r->i1 = mode, r->i2 = op;
    return rec_commit(r, a, idx, values, NULL);
}
static nd_status r_compress(nd_array *out, const nd_array *a, const nd_array *mask)
{
    return rec_commit(rec_new(REC_COMPRESS), out, a, mask, NULL);
}
static nd_status r_sort(nd_array *vals, nd_array *idx, const nd_array *a, bool descending)
{
    rec *r = rec_new(REC_SORT);
    if (r) r->b0 = descending;
    return rec_commit(r, vals, idx, a, NULL);
}
static nd_status r_searchsorted(nd_array *out, const nd_array *a, const nd_array *v, bool right)
{
    rec *r = rec_new(REC_SEARCHSORTED);
    if (r) r->b0 = right;
    return rec_commit(r, out, a, v, NULL);
}
static nd_status r_scan(int op, nd_array *out, const nd_array *a, int64_t outer, int64_t n, int64_t inner)
{
    rec *r = rec_new(REC_SCAN);
    if (r) r->i0 = op, r->l0 = outer, r->l1 = n, r->l2 = inner;
    return rec_commit(r, out, a, NULL, NULL);
}
static nd_status r_softmax(int mode, nd_array *out, const nd_array *x, int64_t outer, int64_t n, int64_t inner)
{
    rec *r = rec_new(REC_SOFTMAX);
    if (r) r->i0 = mode, r->l0 = outer, r->l1 = n, r->l2 = inner;
    return rec_commit(r, out, x, NULL, NULL);
}
static nd_status r_fft(nd_array *out, const nd_array *in, int axis, int64_t n, int kind, int sign, double scale)
{
    rec *r = rec_new(REC_FFT);
    if (r) r->i0 = axis, r->l0 = n, r->i1 = kind, r->i2 = sign, r->d0 = scale;
    return rec_commit(r, out, in, NULL, NULL);
}

/* One recorded operation, through the device's own slots. */
static nd_status replay(const nd_backend *be, const rec *r)
{
    nd_array *const *a = r->a;
    switch (r->kind) {
    case REC_D2D: return be->memcpy_d2d(a[0] ? a[0]->device : nd_cpu(), r->p[0], r->p[1], r->nbytes);
    case REC_CAST: return be->cast(a[0], a[1]);
    case REC_FILL: return be->fill(a[0], r->value);
    case REC_UNARY: return be->unary((nd_unary_op)r->i0, a[0], a[1]);
    case REC_BINARY: return be->binary((nd_binary_op)r->i0, a[0], a[1], a[2]);
    case REC_WHERE: return be->where(a[0], a[1], a[2], a[3]);
    case REC_REDUCE: return be->reduce((nd_reduce_op)r->i0, a[0], a[1], r->i1, r->d0);
    case REC_MATMUL: return be->matmul(a[0], a[1], a[2]);
    case REC_GEMM: return be->gemm(a[0], r->b0, r->b1, r->d0, a[1], a[2], r->d1);
    case REC_UNARY_FLAT: be->unary_flat((nd_unary_op)r->i0, r->t, r->p[0], r->p[1], r->l0); return ND_OK;
    case REC_BINARY_FLAT: be->binary_flat((nd_binary_op)r->i0, r->t, r->p[0], r->p[1], r->p[2], r->l0); return ND_OK;
    case REC_GATHER: return be->gather(a[0], a[1], a[2], r->i0, r->i1);
    case REC_SCATTER: return be->scatter(a[0], a[1], a[2], r->i0, r->i1, r->i2);
    case REC_COMPRESS: return be->compress(a[0], a[1], a[2]);
    case REC_SORT: return be->sort_rows(a[0], a[1], a[2], r->b0);
    case REC_SEARCHSORTED: return be->searchsorted(a[0], a[1], a[2], r->b0);
    case REC_SCAN: return be->scan(r->i0, a[0], a[1], r->l0, r->l1, r->l2);
    case REC_SOFTMAX: return be->softmax(r->i0, a[0], a[1], r->l0, r->l1, r->l2);
    case REC_FFT: return be->fft(a[0], a[1], r->i0, r->l0, r->i1, r->i2, r->d0);
    }
    return nd__err(ND_ERR_INTERNAL, "nd_graph_launch", "unknown recorded operation %d", (int)r->kind);
}

/* ------------------------------------------------------------------ */
/* The memory of recorded captures                                     */
/* ------------------------------------------------------------------ */
static struct nd_graph_mem *mem_new(void)
{
    struct nd_graph_mem *m = nd__calloc(1, sizeof *m);
    if (!m) return NULL;
    if (pthread_mutex_init(&m->mu, NULL) != 0) {
        nd__free(m);
        return NULL;
    }
    m->refs = 1;
    m->graph_alive = true;
    return m;
}

static void mem_unref(struct nd_graph_mem *m)
{
    pthread_mutex_lock(&m->mu);
    long left = --m->refs;
    pthread_mutex_unlock(&m->mu);
    if (left) return;
    pthread_mutex_destroy(&m->mu);
    nd__free(m->k);
    nd__free(m);
}

/* Give back memory the graph no longer replays into. */
static void free_kept(const kept *k)
{
    const nd_backend *be = nd__registry[k->dev.type].be;
    if (k->managed) be->managed_free(k->dev.id, k->ptr);
    else be->free(k->dev, k->ptr, k->nbytes);
}

void nd__graph_mem_adopt(nd_buffer *b)
{
    nd_capture *c = tl_cap;
    if (!c || !c->recorded || c->dev.type != b->device.type || c->dev.id != b->device.id) return;
    struct nd_graph_mem *m = c->g->mem;
    pthread_mutex_lock(&m->mu);
    m->refs++;
    pthread_mutex_unlock(&m->mu);
    b->gmem = m;
}

bool nd__graph_mem_keep(nd_buffer *b)
{
    struct nd_graph_mem *m = b->gmem;
    b->gmem = NULL;
    pthread_mutex_lock(&m->mu);
    bool keep = m->graph_alive;
    if (keep) {
        if (m->nk == m->capk) {
            size_t cap = m->capk ? m->capk * 2 : 16;
            kept *k = nd__realloc(m->k, sizeof *k * cap);
            if (k) m->k = k, m->capk = cap;
        }
        /* no room to remember it: the memory leaks rather than being
         * reused while the graph still writes it */
        if (m->nk < m->capk) m->k[m->nk++] = (kept){b->ptr, b->nbytes, b->device, b->managed};
    }
    pthread_mutex_unlock(&m->mu);
    mem_unref(m);
    return keep;
}

/* The graph is gone: the memory it kept goes back, and buffers released
 * from now on free theirs at once. */
static void mem_close(struct nd_graph_mem *m)
{
    pthread_mutex_lock(&m->mu);
    m->graph_alive = false;
    kept *k = m->k;
    size_t n = m->nk;
    m->k = NULL;
    m->nk = m->capk = 0;
    pthread_mutex_unlock(&m->mu);
    for (size_t i = 0; i < n; i++) free_kept(&k[i]);
    nd__free(k);
    mem_unref(m);
}

/* ------------------------------------------------------------------ */
/* The public API                                                      */
/* ------------------------------------------------------------------ */
static void graph_free(nd_graph *g)
{
    if (!g) return;
    if (g->exec) g->real->graph_destroy(g->exec, g->dev.id);
    for (int64_t i = 0; i < g->nrec; i++) rec_free(&g->recs[i]);
    nd__free(g->recs);
    if (g->mem) mem_close(g->mem);
    nd__free(g);
}

/* The capture descriptor of device dev's descriptor be. */
static void capture_descriptor(nd_backend *c, const nd_backend *be, bool recorded)
{
    *c = *be;
    c->memcpy_h2d = no_h2d;
    c->memcpy_d2h = no_d2h;
    c->random = no_random;
    c->mask_count = no_mask_count;
    c->la = no_la;
    c->cross_entropy = no_cross_entropy;
    c->amp_unscale = no_amp_unscale;
    c->synchronize = no_synchronize;
    c->stream_synchronize = no_stream_synchronize;
    if (!recorded) return;
    c->memcpy_d2d = r_d2d;
    c->cast = r_cast;
    c->fill = r_fill;
    c->unary = r_unary;
    c->binary = r_binary;
    c->where = r_where;
    c->reduce = r_reduce;
    c->matmul = r_matmul;
    c->gemm = r_gemm;
    c->unary_flat = be->unary_flat ? r_unary_flat : NULL;
    c->binary_flat = be->binary_flat ? r_binary_flat : NULL;
    c->gather = r_gather;
    c->scatter = r_scatter;
    c->compress = r_compress;
    c->sort_rows = r_sort;
    c->topk_rows = NULL; /* the core sorts whole rows: recorded as such */
    c->searchsorted = r_searchsorted;
    c->scan = r_scan;
    c->softmax = r_softmax;
    c->fft = r_fft;
    if (be->kernel_ew) c->kernel_ew = no_kernel_ew;
    c->expr = NULL; /* the core evaluates op by op: recorded as such */
}

nd_status nd_graph_begin(nd_stream *stream)
{
    static const char *fn = "nd_graph_begin";
    ND_CHECK_PTR(fn, stream, "stream");
    if (tl_cap) return nd__err(ND_ERR_INVALID, fn, "this thread is capturing a graph already (nd_graph_end first)");
    const nd_device dev = nd_stream_device(stream);
    const nd_backend *be = nd__registry[dev.type].be;
    nd_capture *c = nd__calloc(1, sizeof *c);
    nd_graph *g = nd__calloc(1, sizeof *g);
    if (!c || !g) {
        nd__free(c), nd__free(g);
        return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    }
    c->dev = g->dev = dev;
    c->g = g;
    g->real = be;
    c->recorded = be->graph_begin == NULL;
    c->prev = nd_get_stream(dev);
    nd_status st = ND_OK;
    if (c->recorded) {
        if (!(g->mem = mem_new())) st = nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    } else {
        st = be->graph_begin(nd__stream_handle(stream), dev.id, &c->bstate);
    }
    if (st) {
        graph_free(g);
        nd__free(c);
        return st;
    }
    capture_descriptor(&c->be, be, c->recorded);
    nd__set_current_stream(dev, stream);
    tl_cap = c;
    __atomic_fetch_add(&nd__captures_active, 1, __ATOMIC_SEQ_CST);
    return ND_OK;
}

nd_status nd_graph_end(nd_graph **graph)
{
    static const char *fn = "nd_graph_end";
    ND_CHECK_PTR(fn, graph, "graph");
    nd_capture *c = tl_cap;
    if (!c) return nd__err(ND_ERR_INVALID, fn, "this thread is not capturing a graph (nd_graph_begin first)");
    tl_cap = NULL;
    __atomic_fetch_sub(&nd__captures_active, 1, __ATOMIC_SEQ_CST);
    nd__set_current_stream(c->dev, c->prev);
    nd_graph *g = c->g;
    nd_status st = ND_OK;
    if (!c->recorded) {
        st = g->real->graph_end(c->bstate, c->dev.id, &g->exec, &g->nodes);
    } else {
        g->nodes = g->nrec;
    }
    if (c->failed) { /* the first refusal is what the caller needs to see */
        st = nd__err(c->failed, fn, "%s", c->why);
    } else if (st) {
        st = nd__err_prefix(st, fn);
    }
    nd__free(c);
    if (st) {
        graph_free(g);
        return st;
    }
    *graph = g;
    return ND_OK;
}

nd_status nd_graph_launch(nd_graph *graph, nd_stream *stream)
{
    static const char *fn = "nd_graph_launch";
    ND_CHECK_PTR(fn, graph, "graph");
    const nd_device dev = graph->dev;
    if (stream && !nd__same_device(nd_stream_device(stream), dev)) {
        char d1[32], d2[32];
        return nd__err(ND_ERR_DEVICE, fn, "the graph was captured on %s, the stream belongs to %s",
                       nd__device_name(dev, d1, sizeof d1), nd__device_name(nd_stream_device(stream), d2, sizeof d2));
    }
    nd_status st = nd__capture_refuse(fn, dev, "launching a graph", "launch it after nd_graph_end");
    if (st) return st;
    if (graph->exec)
        return graph->real->graph_launch(graph->exec, stream ? nd__stream_handle(stream) : nd__current_stream(dev),
                                         dev.id);
    const nd_backend *be = graph->real;
    for (int64_t i = 0; i < graph->nrec; i++)
        if ((st = replay(be, &graph->recs[i]))) return nd__err_prefix(st, fn);
    return ND_OK;
}

int64_t nd_graph_size(const nd_graph *graph) { return graph ? graph->nodes : 0; }

nd_status nd_graph_destroy(nd_graph *graph)
{
    if (!graph) return ND_OK;
    nd_status st = nd__capture_refuse("nd_graph_destroy", graph->dev, "destroying a graph", "destroy it after nd_graph_end");
    if (st) return st;
    graph_free(graph); /* a native graph waits for its launches; the CPU's ran synchronously */
    return ND_OK;
}
