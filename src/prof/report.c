/*
 * The profiler's key averages and its table (PyTorch's
 * prof.key_averages().table()), on a finished session (nd_prof_result).
 * The trace and the JSON summary: src/prof/trace.c. Recording: src/core/profiler.c.
 */
#include "prof/report.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The string builder                                                  */
/* ------------------------------------------------------------------ */
enum { SB_CHUNK = 1 << 16 };

static bool sb_room(nd_sb *b, size_t n)
{
    if (b->oom) return false;
    if (b->len + n + 1 <= b->cap) return true;
    if (b->f && b->len) {
        nd__sb_flush(b);
        if (b->len + n + 1 <= b->cap) return true;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = (char *)nd__realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void nd__sb_flush(nd_sb *b)
{
    if (!b->f || !b->len) return;
    if (!b->io && fwrite(b->p, 1, b->len, b->f) != b->len) {
        b->io = true;
        b->err = errno;
    }
    b->len = 0;
}

void nd__sb_put(nd_sb *b, const char *s, size_t n)
{
    if (!sb_room(b, n)) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    if (b->f && b->len >= SB_CHUNK) nd__sb_flush(b);
}

void nd__sb_puts(nd_sb *b, const char *s) { nd__sb_put(b, s, strlen(s)); }

void nd__sb_printf(nd_sb *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        nd__sb_put(b, small, (size_t)n);
        return;
    }
    if (!sb_room(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    if (b->f && b->len >= SB_CHUNK) nd__sb_flush(b);
}

void nd__sb_free(nd_sb *b)
{
    nd__free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

/* Length of the valid UTF-8 sequence at s (1..4), 0 when invalid. */
static int utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int n;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf) n = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef) n = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, min = 0x10000;
    else return 0;
    unsigned cp = c & (0x3f >> (n - 1));
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
}

void nd__sb_json_str(nd_sb *b, const char *s)
{
    if (!s) {
        nd__sb_puts(b, "null");
        return;
    }
    nd__sb_put(b, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        const unsigned char *run = p; /* bytes that go out as they are */
        while (*p >= 0x20 && *p != '"' && *p != '\\' && *p < 0x80) p++;
        if (p > run) nd__sb_put(b, (const char *)run, (size_t)(p - run));
        if (!*p) break;
        unsigned c = *p;
        if (c == '"') nd__sb_puts(b, "\\\""), p++;
        else if (c == '\\') nd__sb_puts(b, "\\\\"), p++;
        else if (c == '\n') nd__sb_puts(b, "\\n"), p++;
        else if (c == '\t') nd__sb_puts(b, "\\t"), p++;
        else if (c == '\r') nd__sb_puts(b, "\\r"), p++;
        else if (c < 0x20) nd__sb_printf(b, "\\u%04x", c), p++;
        else {
            int n = utf8_seq(p);
            if (n) nd__sb_put(b, (const char *)p, (size_t)n), p += n;
            else nd__sb_puts(b, "\\ufffd"), p++;
        }
    }
    nd__sb_put(b, "\"", 1);
}

void nd__sb_us(nd_sb *b, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    nd__sb_printf(b, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

/* ------------------------------------------------------------------ */
/* Small shared helpers                                                */
/* ------------------------------------------------------------------ */
const char *nd__prof_devname(char buf[24], nd_device d)
{
    char name[32];
    snprintf(buf, 24, "%s", nd__device_name(d, name, sizeof name));
    return buf;
}

const char *nd__prof_kind_name(nd_profiler_event_kind k)
{
    switch (k) {
    case ND_PROFILER_OP: return "op";
    case ND_PROFILER_RANGE: return "range";
    case ND_PROFILER_TRANSFER: return "transfer";
    case ND_PROFILER_MEMORY: return "memory";
    }
    return "unknown";
}

static const char *const sort_names[ND_PROFILER_SORT_COUNT_] = {
    "host_total", "host_self", "host_avg", "device_total", "device_self", "device_avg",
    "calls", "bytes", "flops", "memory", "name"};

const char *nd__prof_sort_name(nd_profiler_sort s)
{
    return (unsigned)s < (unsigned)ND_PROFILER_SORT_COUNT_ ? sort_names[s] : "invalid";
}

nd_status nd__prof_opts(const char *func, const nd_profiler_table_options *opt, nd_profiler_table_options *o)
{
    *o = opt ? *opt : (nd_profiler_table_options){0};
    if ((unsigned)o->sort_by >= (unsigned)ND_PROFILER_SORT_COUNT_)
        return nd__err(ND_ERR_INVALID, func,
                       "sort_by %d is not a column (ND_PROFILER_SORT_HOST_TOTAL .. ND_PROFILER_SORT_NAME: 0 .. %d)",
                       (int)o->sort_by, (int)ND_PROFILER_SORT_COUNT_ - 1);
    if (o->row_limit < 0)
        return nd__err(ND_ERR_INVALID, func, "row_limit %d is negative (0: every row)", o->row_limit);
    return ND_OK;
}

nd_status nd__prof_open(const char *func, const char *path, nd_sb *b)
{
    *b = (nd_sb){0};
    ND_CHECK_PTR(func, path, "path");
    b->f = fopen(path, "w");
    if (!b->f) return nd__err(ND_ERR_IO, func, "cannot open '%s' for writing: %s", path, strerror(errno));
    return ND_OK;
}

nd_status nd__prof_close(const char *func, const char *path, nd_sb *b)
{
    nd__sb_flush(b);
    bool oom = b->oom, io = b->io;
    int err = b->err;
    if (!io && fflush(b->f) != 0) io = true, err = errno;
    if (fclose(b->f) != 0 && !io) io = true, err = errno;
    b->f = NULL;
    nd__sb_free(b);
    if (!oom && !io) return ND_OK;
    nd__remove_failed_output(path);
    if (oom) return nd__err(ND_ERR_NOMEM, func, "out of memory while writing '%s'", path);
    return nd__err(ND_ERR_IO, func, "writing '%s' failed: %s", path, strerror(err ? err : EIO));
}

/* ------------------------------------------------------------------ */
/* Shape strings: interned per session                                 */
/* ------------------------------------------------------------------ */
static pthread_mutex_t g_intern_mu = PTHREAD_MUTEX_INITIALIZER;
static char **g_intern; /* open addressing, power-of-two size */
static size_t g_intern_cap, g_intern_n;
static uint64_t g_intern_serial; /* the session whose strings the table holds */

static uint64_t hash_str(const char *s, uint64_t h)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The stored copy of s (NULL when out of memory). Caller holds the lock. */
static const char *intern_locked(const char *s)
{
    if (2 * (g_intern_n + 1) > g_intern_cap) {
        size_t cap = g_intern_cap ? 2 * g_intern_cap : 64;
        char **t = (char **)nd__calloc(cap, sizeof *t);
        if (!t) return NULL;
        for (size_t i = 0; i < g_intern_cap; i++) {
            if (!g_intern[i]) continue;
            size_t j = hash_str(g_intern[i], 14695981039346656037ull) & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = g_intern[i];
        }
        nd__free(g_intern);
        g_intern = t;
        g_intern_cap = cap;
    }
    size_t j = hash_str(s, 14695981039346656037ull) & (g_intern_cap - 1);
    while (g_intern[j]) {
        if (strcmp(g_intern[j], s) == 0) return g_intern[j];
        j = (j + 1) & (g_intern_cap - 1);
    }
    size_t n = strlen(s) + 1;
    char *c = (char *)nd__malloc(n);
    if (!c) return NULL;
    memcpy(c, s, n);
    g_intern[j] = c;
    g_intern_n++;
    return c;
}

/* The strings of an older session are dropped when a report reads a newer
 * one: rows a caller holds stay valid until then (at least until the next
 * session stops). Caller holds the lock. */
static void intern_session_locked(uint64_t serial)
{
    if (serial == g_intern_serial) return;
    for (size_t i = 0; i < g_intern_cap; i++) nd__free(g_intern[i]);
    nd__free(g_intern);
    g_intern = NULL;
    g_intern_cap = g_intern_n = 0;
    g_intern_serial = serial;
}

void nd__prof_report_reset(void)
{
    pthread_mutex_lock(&g_intern_mu);
    intern_session_locked(g_intern_serial + 1);
    pthread_mutex_unlock(&g_intern_mu);
}

/* PyTorch's input-shapes text: "[[3, 4], [4]]", "[[]]" for one 0-d input, "[]" for none. */
static void shapes_text(char *buf, size_t cap, const nd_profiler_event *e)
{
    size_t k = 0;
#define PUT(...) do { int m_ = snprintf(buf + k, k < cap ? cap - k : 0, __VA_ARGS__); if (m_ > 0) k += (size_t)m_; } while (0)
    PUT("[");
    int n = e->ninputs < 0 ? 0 : e->ninputs > ND_PROFILER_MAX_INPUTS ? ND_PROFILER_MAX_INPUTS : e->ninputs;
    for (int i = 0; i < n; i++) {
        PUT("%s[", i ? ", " : "");
        for (int d = 0; e->shapes[i] && d < e->ndims[i]; d++) PUT("%s%" PRId64, d ? ", " : "", e->shapes[i][d]);
        PUT("]");
    }
    PUT("]");
#undef PUT
    if (k >= cap) buf[cap - 1] = '\0';
}

/* ------------------------------------------------------------------ */
/* Key averages                                                        */
/* ------------------------------------------------------------------ */
static int g_sort_col; /* read by row_cmp only, under g_sort_mu */
static pthread_mutex_t g_sort_mu = PTHREAD_MUTEX_INITIALIZER;

static double sort_key(const nd_profiler_row *r, int col)
{
    double c = r->calls > 0 ? (double)r->calls : 1.0;
    switch (col) {
    case ND_PROFILER_SORT_HOST_TOTAL: return (double)r->host_total_ns;
    case ND_PROFILER_SORT_HOST_SELF: return (double)r->host_self_ns;
    case ND_PROFILER_SORT_HOST_AVG: return (double)r->host_total_ns / c;
    case ND_PROFILER_SORT_DEVICE_TOTAL: return (double)r->device_total_ns;
    case ND_PROFILER_SORT_DEVICE_SELF: return (double)r->device_self_ns;
    case ND_PROFILER_SORT_DEVICE_AVG: return r->device_total_ns < 0 ? -1.0 : (double)r->device_total_ns / c;
    case ND_PROFILER_SORT_CALLS: return (double)r->calls;
    case ND_PROFILER_SORT_BYTES: return (double)r->bytes;
    case ND_PROFILER_SORT_FLOPS: return (double)r->flops;
    case ND_PROFILER_SORT_MEMORY: return (double)r->mem_self_bytes;
    default: return 0.0; /* NAME */
    }
}

static int row_cmp(const void *pa, const void *pb)
{
    const nd_profiler_row *a = (const nd_profiler_row *)pa, *b = (const nd_profiler_row *)pb;
    double ka = sort_key(a, g_sort_col), kb = sort_key(b, g_sort_col);
    if (ka != kb) return ka > kb ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    c = strcmp(a->shapes, b->shapes);
    if (c) return c;
    return (int)a->kind - (int)b->kind;
}

static uint64_t row_hash(const char *name, nd_profiler_event_kind kind, const char *shapes)
{
    uint64_t h = hash_str(name, 14695981039346656037ull ^ (uint64_t)kind);
    return (h ^ (uint64_t)(uintptr_t)shapes) * 1099511628211ull;
}

static const char *ev_name(const nd_profiler_event *e) { return e->name ? e->name : "(unnamed)"; }

nd_status nd__prof_rows(const char *func, const nd_prof_result *r, const nd_profiler_table_options *opt,
                        nd_profiler_table_options *o, nd_profiler_row **rows_out, size_t *n_out)
{
    *rows_out = NULL;
    *n_out = 0;
    nd_status ost = nd__prof_opts(func, opt, o);
    if (ost != ND_OK) return ost;
    size_t cap = 0, n = 0, hcap = 64;
    nd_profiler_row *rows = NULL;
    size_t *slot = (size_t *)nd__malloc(hcap * sizeof *slot); /* row index + 1, 0 = empty */
    if (!slot) return nd__err(ND_ERR_NOMEM, func, "out of memory");
    memset(slot, 0, hcap * sizeof *slot);
    nd_status st = ND_OK;
    char sbuf[2048];
    bool shapes = o->group_by_shape;
    if (shapes) {
        pthread_mutex_lock(&g_intern_mu);
        intern_session_locked(r->serial);
    }
    for (size_t i = 0; i < r->n; i++) {
        const nd_profiler_event *e = &r->ev[i];
        if (e->kind == ND_PROFILER_MEMORY) continue;
        const char *name = ev_name(e), *sh = "";
        if (shapes) {
            if (r->cfg.record_shapes) shapes_text(sbuf, sizeof sbuf, e);
            else strcpy(sbuf, "[]");
            sh = intern_locked(sbuf);
            if (!sh) { st = nd__err(ND_ERR_NOMEM, func, "out of memory"); goto done; }
        }
        size_t j = row_hash(name, e->kind, sh) & (hcap - 1);
        for (; slot[j]; j = (j + 1) & (hcap - 1)) {
            nd_profiler_row *w = &rows[slot[j] - 1];
            if (w->kind == e->kind && w->shapes == sh && strcmp(w->name, name) == 0) break;
        }
        nd_profiler_row *w;
        if (slot[j]) {
            w = &rows[slot[j] - 1];
        } else {
            if (n == cap) {
                size_t nc = cap ? 2 * cap : 32;
                nd_profiler_row *t = (nd_profiler_row *)nd__realloc(rows, nc * sizeof *rows);
                if (!t) { st = nd__err(ND_ERR_NOMEM, func, "out of memory"); goto done; }
                rows = t, cap = nc;
            }
            rows[n] = (nd_profiler_row){.name = name, .shapes = sh, .kind = e->kind,
                                        .device_total_ns = -1, .device_self_ns = -1};
            slot[j] = ++n;
            w = &rows[n - 1];
            if (2 * n > hcap) { /* grow and rehash */
                size_t nh = 2 * hcap;
                size_t *t = (size_t *)nd__calloc(nh, sizeof *t);
                if (!t) { st = nd__err(ND_ERR_NOMEM, func, "out of memory"); goto done; }
                for (size_t k = 0; k < n; k++) {
                    size_t q = row_hash(rows[k].name, rows[k].kind, rows[k].shapes) & (nh - 1);
                    while (t[q]) q = (q + 1) & (nh - 1);
                    t[q] = k + 1;
                }
                nd__free(slot);
                slot = t, hcap = nh;
            }
        }
        w->calls++;
        w->host_total_ns += e->host_ns;
        w->host_self_ns += e->host_self_ns;
        if (e->device_ns >= 0) {
            w->device_total_ns = (w->device_total_ns < 0 ? 0 : w->device_total_ns) + e->device_ns;
            w->device_self_ns = (w->device_self_ns < 0 ? 0 : w->device_self_ns) + (e->device_self_ns > 0 ? e->device_self_ns : 0);
        }
        w->bytes += e->bytes;
        w->flops += e->flops;
        w->mem_self_bytes += e->mem_self_bytes;
    }
done:
    if (shapes) pthread_mutex_unlock(&g_intern_mu);
    nd__free(slot);
    if (st != ND_OK) {
        nd__free(rows);
        return st;
    }
    if (n > 1) {
        pthread_mutex_lock(&g_sort_mu);
        g_sort_col = (int)o->sort_by;
        qsort(rows, n, sizeof *rows, row_cmp);
        pthread_mutex_unlock(&g_sort_mu);
    }
    *rows_out = rows;
    *n_out = n;
    return ND_OK;
}

static nd_status key_averages(const char *func, const nd_prof_result *r, nd_profiler_row *out, size_t cap,
                              size_t *nrows, const nd_profiler_table_options *opt)
{
    nd_profiler_table_options o;
    ND_CHECK_PTR(func, nrows, "nrows");
    ND_CHECK_PTR(func, r, "result");
    if (cap > 0) ND_CHECK_PTR(func, out, "rows");
    nd_profiler_row *rows;
    size_t n;
    nd_status st = nd__prof_rows(func, r, opt, &o, &rows, &n);
    if (st != ND_OK) return st;
    if (o.row_limit > 0 && n > (size_t)o.row_limit) n = (size_t)o.row_limit;
    if (n && cap) memcpy(out, rows, (n < cap ? n : cap) * sizeof *rows); /* out may be NULL when cap is 0 */
    nd__free(rows);
    *nrows = n;
    return ND_OK;
}

nd_status nd__prof_key_averages(const nd_prof_result *r, nd_profiler_row *rows, size_t cap, size_t *nrows,
                                const nd_profiler_table_options *opt)
{
    return key_averages("nd_profiler_key_averages", r, rows, cap, nrows, opt);
}
