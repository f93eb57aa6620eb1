/*
 * The key-averages table in PyTorch's layout (torch.autograd.profiler_util
 * _build_table): a dashed rule, the header, a rule, the rows, a rule, then
 * "Self host time total: ..." lines. Columns are right-aligned, two spaces
 * apart, 12 wide at least; the name column is as wide as the longest name
 * plus 4, at most 55 (longer names are cut with "..."); the input-shapes
 * column at most 80. Times as PyTorch writes them (us / ms / s, 3 decimals).
 * One builder writes the text for both the FILE and the buffer variants.
 */
#include "prof/report.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

enum { COL_W = 12, NAME_MAX_W = 55, SHAPES_MAX_W = 80, CELL = 40 };

/* PyTorch's _format_time, from nanoseconds; "-": no device time. */
static void fmt_time(char *b, int64_t ns)
{
    if (ns < 0) {
        strcpy(b, "-");
        return;
    }
    double us = (double)ns / 1000.0;
    if (us >= 1e6) snprintf(b, CELL, "%.3fs", us / 1e6);
    else if (us >= 1e3) snprintf(b, CELL, "%.3fms", us / 1e3);
    else snprintf(b, CELL, "%.3fus", us);
}

static void fmt_share(char *b, int64_t part, int64_t total)
{
    if (part < 0) strcpy(b, "-");
    else if (total <= 0) strcpy(b, "NaN");
    else snprintf(b, CELL, "%.2f%%", 100.0 * (double)part / (double)total);
}

/* Bytes, human: "512 B", "1.50 KB", "1.20 MB", "3.00 GB" (powers of 1024). */
static void fmt_bytes(char *b, int64_t n)
{
    double a = n < 0 ? -(double)n : (double)n;
    if (a >= 1024.0 * 1024 * 1024) snprintf(b, CELL, "%.2f GB", (double)n / (1024.0 * 1024 * 1024));
    else if (a >= 1024.0 * 1024) snprintf(b, CELL, "%.2f MB", (double)n / (1024.0 * 1024));
    else if (a >= 1024.0) snprintf(b, CELL, "%.2f KB", (double)n / 1024.0);
    else snprintf(b, CELL, "%" PRId64 " B", n);
}

/* Code points of s (its display width, near enough). */
static int width(const char *s)
{
    int w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

/* text right-aligned in w columns (cut to w - 3 code points + "..." when
 * longer; control characters shown as '?'), then two spaces. */
static void put_cell(nd_sb *b, const char *text, int w)
{
    int tw = width(text);
    int keep = tw > w ? w - 3 : tw;
    for (int i = tw > w ? 0 : w - tw; i > 0; i--) nd__sb_put(b, " ", 1);
    const char *p = text;
    for (int k = 0; *p;) {
        bool lead = ((unsigned char)*p & 0xc0) != 0x80;
        if (lead && k++ == keep) break;
        char c = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
        nd__sb_put(b, &c, 1);
        p++;
    }
    if (tw > w) nd__sb_puts(b, "...");
    nd__sb_puts(b, "  ");
}

enum {
    C_SELF_PCT, C_SELF, C_TOTAL_PCT, C_TOTAL, C_AVG,
    C_DSELF, C_DSELF_PCT, C_DTOTAL, C_DAVG,
    C_MEM, C_CALLS, C_BYTES, C_GFLOP, C_GFLOPS,
    C_N
};
static const char *const headers[C_N] = {
    "Self host %", "Self host", "Host total %", "Host total", "Host time avg",
    "Self device", "Self device %", "Device total", "Device time avg",
    "Self Mem", "# of Calls", "Bytes", "Total FLOPs", "GFLOP/s"}; /* FLOPs: "Total MFLOPs" ... as scaled */

/* PyTorch's auto_scale_flops: one unit for the column, from the largest count. */
static int flops_unit(int64_t max_flops)
{
    int u = 0;
    for (double v = (double)max_flops; v >= 1000.0 && u < 5; v /= 1000.0) u++;
    return u;
}

static void cells(char (*c)[CELL], const nd_profiler_row *r, int64_t self_total, int64_t dself_total, int unit)
{
    int64_t calls = r->calls > 0 ? r->calls : 1;
    fmt_share(c[C_SELF_PCT], r->host_self_ns, self_total);
    fmt_time(c[C_SELF], r->host_self_ns);
    fmt_share(c[C_TOTAL_PCT], r->host_total_ns, self_total);
    fmt_time(c[C_TOTAL], r->host_total_ns);
    fmt_time(c[C_AVG], r->host_total_ns / calls);
    fmt_time(c[C_DSELF], r->device_self_ns);
    fmt_share(c[C_DSELF_PCT], r->device_self_ns, dself_total);
    fmt_time(c[C_DTOTAL], r->device_total_ns);
    fmt_time(c[C_DAVG], r->device_total_ns < 0 ? -1 : r->device_total_ns / calls);
    fmt_bytes(c[C_MEM], r->mem_self_bytes);
    snprintf(c[C_CALLS], CELL, "%" PRId64, r->calls);
    fmt_bytes(c[C_BYTES], r->bytes);
    int64_t t = r->device_total_ns > 0 ? r->device_total_ns : r->host_total_ns;
    if (r->flops > 0) {
        snprintf(c[C_GFLOP], CELL, "%.3f", (double)r->flops / pow(1000.0, unit));
        if (t > 0) snprintf(c[C_GFLOPS], CELL, "%.2f", (double)r->flops / (double)t);
        else strcpy(c[C_GFLOPS], "-");
    } else {
        strcpy(c[C_GFLOP], "-");
        strcpy(c[C_GFLOPS], "-");
    }
}

static void rule(nd_sb *b, int name_w, const int *w, const bool *on, int shapes_w)
{
    char dash[128];
    memset(dash, '-', sizeof dash);
    nd__sb_put(b, dash, (size_t)name_w), nd__sb_puts(b, "  ");
    for (int k = 0; k < C_N; k++)
        if (on[k]) nd__sb_put(b, dash, (size_t)w[k]), nd__sb_puts(b, "  ");
    if (shapes_w) nd__sb_put(b, dash, (size_t)shapes_w), nd__sb_puts(b, "  ");
    nd__sb_puts(b, "\n");
}

/* The whole table into b (in memory). */
static nd_status build(const char *func, const nd_prof_result *r, const nd_profiler_table_options *opt, nd_sb *b)
{
    nd_profiler_table_options o;
    ND_CHECK_PTR(func, r, "result");
    nd_profiler_row *rows;
    size_t n;
    nd_status st = nd__prof_rows(func, r, opt, &o, &rows, &n);
    if (st != ND_OK) return st;
    int64_t self_total = 0, dself_total = 0;
    bool dev = false, flops = false;
    int64_t max_flops = 0;
    for (size_t i = 0; i < n; i++) {
        self_total += rows[i].host_self_ns;
        if (rows[i].device_total_ns >= 0) dev = true;
        if (rows[i].device_self_ns > 0) dself_total += rows[i].device_self_ns;
        if (rows[i].flops > 0) flops = true;
        if (rows[i].flops > max_flops) max_flops = rows[i].flops;
    }
    size_t shown = o.row_limit > 0 && n > (size_t)o.row_limit ? (size_t)o.row_limit : n;
    char (*c)[C_N][CELL] = shown ? (char (*)[C_N][CELL])nd__malloc(shown * sizeof *c) : NULL;
    if (shown && !c) {
        nd__free(rows);
        return nd__err(ND_ERR_NOMEM, func, "out of memory");
    }
    bool on[C_N];
    for (int k = 0; k < C_N; k++) on[k] = true;
    on[C_DSELF] = on[C_DSELF_PCT] = on[C_DTOTAL] = on[C_DAVG] = dev;
    on[C_MEM] = r->cfg.profile_memory;
    on[C_GFLOP] = on[C_GFLOPS] = flops;
    int unit = flops_unit(max_flops);
    const char *hdr[C_N];
    memcpy(hdr, headers, sizeof hdr);
    char flop_hdr[24];
    snprintf(flop_hdr, sizeof flop_hdr, "Total %sFLOPs", (const char *[]){"", "K", "M", "G", "T", "P"}[unit]);
    hdr[C_GFLOP] = flop_hdr;
    int w[C_N], name_w = 4, shapes_w = 0;
    for (int k = 0; k < C_N; k++) w[k] = (int)strlen(hdr[k]) > COL_W ? (int)strlen(hdr[k]) : COL_W;
    for (size_t i = 0; i < shown; i++) {
        cells(c[i], &rows[i], self_total, dself_total, unit);
        for (int k = 0; k < C_N; k++)
            if ((int)strlen(c[i][k]) > w[k]) w[k] = (int)strlen(c[i][k]);
        int nw = width(rows[i].name);
        if (nw > name_w) name_w = nw;
        if (o.group_by_shape && (int)strlen(rows[i].shapes) > shapes_w) shapes_w = (int)strlen(rows[i].shapes);
    }
    name_w = name_w + 4 > NAME_MAX_W ? NAME_MAX_W : name_w + 4;
    if (o.group_by_shape) shapes_w = shapes_w < 12 ? 16 : shapes_w + 4 > SHAPES_MAX_W ? SHAPES_MAX_W : shapes_w + 4;

    rule(b, name_w, w, on, shapes_w);
    put_cell(b, "Name", name_w);
    for (int k = 0; k < C_N; k++)
        if (on[k]) put_cell(b, hdr[k], w[k]);
    if (shapes_w) put_cell(b, "Input Shapes", shapes_w);
    nd__sb_puts(b, "\n");
    rule(b, name_w, w, on, shapes_w);
    for (size_t i = 0; i < shown; i++) {
        put_cell(b, rows[i].name, name_w);
        for (int k = 0; k < C_N; k++)
            if (on[k]) put_cell(b, c[i][k], w[k]);
        if (shapes_w) put_cell(b, rows[i].shapes, shapes_w);
        nd__sb_puts(b, "\n");
    }
    rule(b, name_w, w, on, shapes_w);
    char t[CELL];
    fmt_time(t, self_total);
    nd__sb_printf(b, "Self host time total: %s\n", t);
    if (dev) {
        fmt_time(t, dself_total);
        nd__sb_printf(b, "Self device time total: %s\n", t);
    }
    if (shown < n) nd__sb_printf(b, "(%zu of %zu rows shown: row_limit %d)\n", shown, n, o.row_limit);
    if (r->stats.dropped > 0)
        nd__sb_printf(b, "Events dropped: %" PRId64 " (over max_events = %" PRId64 "; the table counts the %" PRId64 " kept)\n",
                      r->stats.dropped, r->cfg.max_events, r->stats.events);
    if (r->stats.unclosed_ranges > 0)
        nd__sb_printf(b, "Ranges still open at stop: %" PRId64 " (closed there)\n", r->stats.unclosed_ranges);
    nd__free(c);
    nd__free(rows);
    if (b->oom) return nd__err(ND_ERR_NOMEM, func, "out of memory");
    return ND_OK;
}

static nd_status table(const char *func, const nd_prof_result *r, char *buf, size_t size, size_t *needed,
                       const nd_profiler_table_options *opt)
{
    if (size > 0) ND_CHECK_PTR(func, buf, "buf");
    nd_sb b = {0};
    nd_status st = build(func, r, opt, &b);
    if (st == ND_OK) {
        if (needed) *needed = b.len;
        if (size > 0) {
            size_t k = b.len < size - 1 ? b.len : size - 1;
            memcpy(buf, b.p, k);
            buf[k] = '\0';
        }
    }
    nd__sb_free(&b);
    return st;
}

static nd_status print_table(const char *func, const nd_prof_result *r, FILE *f, const nd_profiler_table_options *opt)
{
    ND_CHECK_PTR(func, f, "f");
    nd_sb b = {0};
    nd_status st = build(func, r, opt, &b);
    if (st == ND_OK && (fwrite(b.p, 1, b.len, f) != b.len || fflush(f) != 0))
        st = nd__err(ND_ERR_IO, func, "writing the table failed");
    nd__sb_free(&b);
    return st;
}

nd_status nd__prof_table(const nd_prof_result *r, char *buf, size_t size, size_t *needed,
                         const nd_profiler_table_options *opt)
{
    return table("nd_profiler_table", r, buf, size, needed, opt);
}

nd_status nd__prof_print_table(const nd_prof_result *r, FILE *f, const nd_profiler_table_options *opt)
{
    return print_table("nd_profiler_print_table", r, f, opt);
}
