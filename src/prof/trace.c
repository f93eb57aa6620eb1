/*
 * The profiler's files: the Chrome trace-event JSON (opens in Perfetto,
 * ui.perfetto.dev, and chrome://tracing) and the JSON summary.
 *
 * Trace layout: pid 0 is the host (one tid per profiled thread, named
 * "host thread N (tid OSID)"); each CUDA device that has device time or
 * memory events is pid 1 + its id ("cuda:0"), one tid per stream
 * ("stream 0 (default)", "stream 1", ...). Ops, ranges and transfers are
 * complete events ("ph":"X", cat "op" / "range" / "transfer") on their host
 * thread, so they nest as they ran; the device interval of an op is an X
 * event on its device's stream row (cat "device_op" / "device_transfer";
 * a range's device interval, when it has one, is "device_range")
 * with a flow arrow from the host op that queued it (for the innermost op
 * with device time). Transfers carry cname "yellow" on both rows, so they
 * stand out from kernels. Memory events are counters ("ph":"C",
 * "memory cpu:0" on the host process, "memory cuda:N" on the device's)
 * plus an instant event on the thread that allocated or freed.
 * Timestamps are microseconds with 3 decimals (nanoseconds, exactly).
 */
#include "prof/report.h"

#include <inttypes.h>
#include <string.h>

static const char *const cname_transfer = "yellow";

static void meta(nd_sb *b, const char *what, int pid, int tid, const char *name, bool *first)
{
    nd__sb_printf(b, "%s\n{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": ", *first ? "" : ",",
                  what, pid, tid);
    nd__sb_json_str(b, name);
    nd__sb_puts(b, "}}");
    *first = false;
}

static void sort_meta(nd_sb *b, int pid, int index, bool *first)
{
    nd__sb_printf(b, "%s\n{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": %d, \"tid\": 0, \"args\": {\"sort_index\": %d}}",
                  *first ? "" : ",", pid, index);
    *first = false;
}

static void stats_config(nd_sb *b, const nd_prof_result *r)
{
    const nd_profiler_stats *s = &r->stats;
    const nd_profiler_config *c = &r->cfg;
    nd__sb_printf(b,
                  "\"stats\": {\"events\": %" PRId64 ", \"dropped\": %" PRId64 ", \"threads\": %d, \"unclosed_ranges\": %" PRId64
                  ", \"duration_ns\": %" PRId64 "}, ",
                  s->events, s->dropped, s->threads, s->unclosed_ranges, s->duration_ns);
    nd__sb_printf(b,
                  "\"config\": {\"record_shapes\": %s, \"profile_memory\": %s, \"cpu\": %s, \"cuda\": %s, \"max_events\": %" PRId64 "}",
                  c->record_shapes ? "true" : "false", c->profile_memory ? "true" : "false", c->cpu ? "true" : "false",
                  c->cuda ? "true" : "false", c->max_events);
}

/* Rate as a JSON number: v per ns, scaled (GB/s = bytes/ns; GFLOP/s = flops/ns). */
static void rate(nd_sb *b, const char *key, int64_t v, int64_t ns)
{
    if (ns > 0) nd__sb_printf(b, ", \"%s\": %.3f", key, (double)v / (double)ns);
}

/* A device whose events time work on the device (the registry's timed
 * devices) gets a process of its own, pid 1 + its id, one track per
 * stream. The registry has one such type; a second would share the pids. */
static bool timed_dev(nd_device d)
{
    return (unsigned)d.type < (unsigned)ND_NUM_DEVICE_TYPES && nd__registry[d.type].timed;
}

static nd_device_type timed_type(void)
{
    for (int t = 0; t < ND_NUM_DEVICE_TYPES; t++)
        if (nd__registry[t].timed) return (nd_device_type)t;
    return ND_DEVICE_CPU;
}

static void args(nd_sb *b, const nd_prof_result *r, const nd_profiler_event *e, bool host)
{
    char dn[24];
    if (e->kind == ND_PROFILER_RANGE) {
        nd__sb_printf(b, ", \"args\": {\"depth\": %d}", e->depth);
        return;
    }
    nd__sb_puts(b, ", \"args\": {\"device\": ");
    nd__sb_json_str(b, nd__prof_devname(dn, e->device));
    if (timed_dev(e->device)) nd__sb_printf(b, ", \"stream\": %d", e->stream);
    int n = e->ninputs < 0 ? 0 : e->ninputs > ND_PROFILER_MAX_INPUTS ? ND_PROFILER_MAX_INPUTS : e->ninputs;
    nd__sb_puts(b, ", \"dtypes\": [");
    for (int i = 0; i < n; i++) nd__sb_printf(b, "%s\"%s\"", i ? ", " : "", nd_dtype_name(e->dtypes[i]));
    nd__sb_puts(b, "]");
    if ((int)e->out_dtype >= 0) nd__sb_printf(b, ", \"output dtype\": \"%s\"", nd_dtype_name(e->out_dtype));
    if (r->cfg.record_shapes) {
        nd__sb_puts(b, ", \"input shapes\": [");
        for (int i = 0; i < n; i++) {
            nd__sb_puts(b, i ? ", [" : "[");
            for (int d = 0; e->shapes[i] && d < e->ndims[i]; d++)
                nd__sb_printf(b, "%s%" PRId64, d ? ", " : "", e->shapes[i][d]);
            nd__sb_puts(b, "]");
        }
        nd__sb_puts(b, "]");
    }
    nd__sb_printf(b, ", \"bytes\": %" PRId64, e->bytes);
    if (e->flops) nd__sb_printf(b, ", \"flops\": %" PRId64, e->flops);
    int64_t t = host || e->device_ns < 0 ? e->host_ns : e->device_ns;
    if (e->kind == ND_PROFILER_TRANSFER) rate(b, "GB/s", e->bytes, e->device_ns > 0 ? e->device_ns : e->host_ns);
    if (e->flops) rate(b, "GFLOP/s", e->flops, e->device_ns > 0 ? e->device_ns : t);
    if (r->cfg.profile_memory) nd__sb_printf(b, ", \"self memory\": %" PRId64, e->mem_self_bytes);
    if (host && e->device_ns >= 0) {
        nd__sb_puts(b, ", \"device time (us)\": ");
        nd__sb_us(b, e->device_ns);
    }
    nd__sb_puts(b, "}");
}

static void x_event(nd_sb *b, const nd_prof_result *r, const nd_profiler_event *e, bool host)
{
    static const char *const cat_host[] = {"op", "range", "transfer", "memory"};
    static const char *const cat_dev[] = {"device_op", "device_range", "device_transfer", "memory"};
    const char *cat = host ? cat_host[e->kind] : cat_dev[e->kind];
    nd__sb_puts(b, ",\n{\"name\": ");
    nd__sb_json_str(b, e->name ? e->name : "(unnamed)");
    nd__sb_printf(b, ", \"cat\": \"%s\", \"ph\": \"X\", \"ts\": ", cat);
    nd__sb_us(b, host ? e->host_start_ns : e->device_start_ns);
    nd__sb_puts(b, ", \"dur\": ");
    nd__sb_us(b, host ? e->host_ns : e->device_ns);
    nd__sb_printf(b, ", \"pid\": %d, \"tid\": %d", host ? 0 : 1 + e->device.id, host ? e->thread : e->stream);
    if (e->kind == ND_PROFILER_TRANSFER) nd__sb_printf(b, ", \"cname\": \"%s\"", cname_transfer);
    args(b, r, e, host);
    nd__sb_puts(b, "}");
}

static bool on_device(const nd_profiler_event *e)
{
    return e->kind != ND_PROFILER_MEMORY && e->device_ns >= 0 && timed_dev(e->device) && e->device.id >= 0;
}

static nd_status trace(const char *func, const nd_prof_result *r, const char *path)
{
    ND_CHECK_PTR(func, r, "result");
    ND_CHECK_PTR(func, path, "path");
    /* Which devices and streams appear, which ops queue device work of their own. */
    int maxdev = -1, nthreads = r->nthreads > 0 ? r->nthreads : 0;
    for (size_t i = 0; i < r->n; i++) {
        const nd_profiler_event *e = &r->ev[i];
        if (e->thread + 1 > nthreads) nthreads = e->thread + 1;
        if (timed_dev(e->device) && e->device.id > maxdev && e->device.id < 4096) maxdev = e->device.id;
    }
    int *streams = (int *)nd__calloc((size_t)maxdev + 2, sizeof *streams); /* 1 + max stream; 0: no device time */
    bool *devmem = (bool *)nd__calloc((size_t)maxdev + 2, sizeof *devmem);
    unsigned char *inner = (unsigned char *)nd__calloc(r->n + 1, 1); /* 1: has device time, no child has */
    if (!streams || !devmem || !inner) {
        nd__free(streams), nd__free(devmem), nd__free(inner);
        return nd__err(ND_ERR_NOMEM, func, "out of memory");
    }
    for (size_t i = 0; i < r->n; i++) {
        const nd_profiler_event *e = &r->ev[i];
        if (!timed_dev(e->device) || e->device.id < 0 || e->device.id > maxdev) continue;
        if (e->kind == ND_PROFILER_MEMORY) devmem[e->device.id] = true;
        else if (on_device(e)) {
            if (e->stream + 1 > streams[e->device.id]) streams[e->device.id] = e->stream + 1;
            inner[i] = 1;
        }
    }
    for (size_t i = 0; i < r->n; i++) /* a parent with a device-timed child is not innermost */
        if (inner[i] && r->ev[i].parent >= 0 && (size_t)r->ev[i].parent < r->n) inner[r->ev[i].parent] = 0;

    nd_sb b;
    nd_status st = nd__prof_open(func, path, &b);
    if (st != ND_OK) {
        nd__free(streams), nd__free(devmem), nd__free(inner);
        return st;
    }
    nd__sb_puts(&b, "{\"traceEvents\": [");
    bool first = true;
    char name[96];
    meta(&b, "process_name", 0, 0, "host", &first);
    sort_meta(&b, 0, 0, &first);
    for (int t = 0; t < nthreads; t++) {
        if (r->thread_os_id && t < r->nthreads) snprintf(name, sizeof name, "host thread %d (tid %ld)", t, r->thread_os_id[t]);
        else snprintf(name, sizeof name, "host thread %d", t);
        meta(&b, "thread_name", 0, t, name, &first);
    }
    for (int d = 0; d <= maxdev; d++) {
        if (!streams[d] && !devmem[d]) continue;
        nd__device_name((nd_device){.type = timed_type(), .id = d}, name, sizeof name);
        meta(&b, "process_name", 1 + d, 0, name, &first);
        sort_meta(&b, 1 + d, 1 + d, &first);
        for (int s = 0; s < streams[d]; s++) {
            if (s == 0) snprintf(name, sizeof name, "stream 0 (default)");
            else snprintf(name, sizeof name, "stream %d", s);
            meta(&b, "thread_name", 1 + d, s, name, &first);
        }
    }
    int64_t flow = 0;
    for (size_t i = 0; i < r->n && !b.oom && !b.io; i++) {
        const nd_profiler_event *e = &r->ev[i];
        if (e->kind == ND_PROFILER_MEMORY) {
            char dn[24];
            nd__prof_devname(dn, e->device);
            int pid = timed_dev(e->device) && e->device.id >= 0 && e->device.id <= maxdev ? 1 + e->device.id : 0;
            nd__sb_printf(&b, ",\n{\"name\": \"memory %s\", \"ph\": \"C\", \"ts\": ", dn);
            nd__sb_us(&b, e->host_start_ns);
            nd__sb_printf(&b, ", \"pid\": %d, \"tid\": 0, \"args\": {\"bytes in use\": %" PRId64 "}}", pid, e->mem_in_use);
            nd__sb_printf(&b, ",\n{\"name\": \"%s\", \"cat\": \"memory\", \"ph\": \"i\", \"s\": \"t\", \"ts\": ",
                          e->bytes >= 0 ? "alloc" : "free");
            nd__sb_us(&b, e->host_start_ns);
            nd__sb_printf(&b, ", \"pid\": 0, \"tid\": %d, \"args\": {\"device\": \"%s\", \"bytes\": %" PRId64
                              ", \"bytes in use\": %" PRId64 "}}",
                          e->thread, dn, e->bytes, e->mem_in_use);
            continue;
        }
        x_event(&b, r, e, true);
        if (!on_device(e)) continue;
        x_event(&b, r, e, false);
        if (!inner[i]) continue;
        flow++;
        nd__sb_printf(&b, ",\n{\"name\": \"launch\", \"cat\": \"flow\", \"ph\": \"s\", \"id\": %" PRId64 ", \"ts\": ", flow);
        nd__sb_us(&b, e->host_start_ns);
        nd__sb_printf(&b, ", \"pid\": 0, \"tid\": %d}", e->thread);
        nd__sb_printf(&b, ",\n{\"name\": \"launch\", \"cat\": \"flow\", \"ph\": \"f\", \"bp\": \"e\", \"id\": %" PRId64 ", \"ts\": ", flow);
        nd__sb_us(&b, e->device_start_ns);
        nd__sb_printf(&b, ", \"pid\": %d, \"tid\": %d}", 1 + e->device.id, e->stream);
    }
    nd__sb_printf(&b, "\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": {\"libndgpu\": \"%s\", \"start_unix_ns\": %" PRId64 ", ",
                  nd_version(), r->start_unix_ns);
    stats_config(&b, r);
    nd__sb_puts(&b, "}}\n");
    nd__free(streams), nd__free(devmem), nd__free(inner);
    return nd__prof_close(func, path, &b);
}

static nd_status summary(const char *func, const nd_prof_result *r, const char *path, const nd_profiler_table_options *opt)
{
    ND_CHECK_PTR(func, r, "result");
    ND_CHECK_PTR(func, path, "path");
    nd_profiler_table_options o;
    nd_profiler_row *rows;
    size_t n;
    nd_status st = nd__prof_rows(func, r, opt, &o, &rows, &n);
    if (st != ND_OK) return st;
    if (o.row_limit > 0 && n > (size_t)o.row_limit) n = (size_t)o.row_limit;
    nd_sb b;
    st = nd__prof_open(func, path, &b);
    if (st != ND_OK) {
        nd__free(rows);
        return st;
    }
    nd__sb_printf(&b, "{\"libndgpu\": \"%s\", \"start_unix_ns\": %" PRId64 ",\n", nd_version(), r->start_unix_ns);
    stats_config(&b, r);
    nd__sb_printf(&b, ",\n\"sort_by\": \"%s\", \"row_limit\": %d, \"group_by_shape\": %s,\n\"rows\": [",
                  nd__prof_sort_name(o.sort_by), o.row_limit, o.group_by_shape ? "true" : "false");
    for (size_t i = 0; i < n; i++) {
        const nd_profiler_row *w = &rows[i];
        int64_t c = w->calls > 0 ? w->calls : 1;
        nd__sb_puts(&b, i ? ",\n{\"name\": " : "\n{\"name\": ");
        nd__sb_json_str(&b, w->name);
        nd__sb_puts(&b, ", \"shapes\": ");
        nd__sb_json_str(&b, w->shapes);
        nd__sb_printf(&b,
                      ", \"kind\": \"%s\", \"calls\": %" PRId64 ", \"host_total_ns\": %" PRId64 ", \"host_self_ns\": %" PRId64
                      ", \"host_avg_ns\": %" PRId64 ", \"device_total_ns\": %" PRId64 ", \"device_self_ns\": %" PRId64
                      ", \"device_avg_ns\": %" PRId64 ", \"bytes\": %" PRId64 ", \"flops\": %" PRId64
                      ", \"mem_self_bytes\": %" PRId64 "}",
                      nd__prof_kind_name(w->kind), w->calls, w->host_total_ns, w->host_self_ns, w->host_total_ns / c,
                      w->device_total_ns, w->device_self_ns, w->device_total_ns < 0 ? -1 : w->device_total_ns / c,
                      w->bytes, w->flops, w->mem_self_bytes);
    }
    nd__sb_puts(&b, "\n]}\n");
    nd__free(rows);
    return nd__prof_close(func, path, &b);
}

nd_status nd__prof_chrome_trace(const nd_prof_result *r, const char *path)
{
    return trace("nd_profiler_export_chrome_trace", r, path);
}

nd_status nd__prof_json(const nd_prof_result *r, const char *path, const nd_profiler_table_options *opt)
{
    return summary("nd_profiler_export_json", r, path, opt);
}
