/*
 * Shared by the profiler's reports (src/prof/report.c: key averages and the
 * table; src/prof/trace.c: the Chrome trace and the JSON summary): one
 * string builder, which either grows in memory (the table) or streams to a
 * FILE in chunks (the trace files, which may hold a million events), JSON
 * string escaping, and the key averages as a heap array.
 */
#ifndef ND_PROF_REPORT_H
#define ND_PROF_REPORT_H
#include "core/prof.h"

typedef struct nd_sb {
    char *p;
    size_t len, cap;
    FILE *f;   /* non-NULL: flushed to f whenever it holds 64 KiB */
    bool oom;  /* an allocation failed: the text is incomplete */
    bool io;   /* writing to f failed (errno kept in err) */
    int err;
} nd_sb;

ND_INTERNAL void nd__sb_put(nd_sb *b, const char *s, size_t n);
ND_INTERNAL void nd__sb_puts(nd_sb *b, const char *s);
ND_INTERNAL void nd__sb_printf(nd_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string with its quotes: '"' '\\' and control characters
 * escaped, valid UTF-8 kept, invalid bytes written as U+FFFD. NULL: null. */
ND_INTERNAL void nd__sb_json_str(nd_sb *b, const char *s);
/* ns as microseconds with 3 decimals, exactly ("1234.567"). */
ND_INTERNAL void nd__sb_us(nd_sb *b, int64_t ns);
/* Write what is buffered to b->f (no-op in memory). */
ND_INTERNAL void nd__sb_flush(nd_sb *b);
ND_INTERNAL void nd__sb_free(nd_sb *b);

/* The options, checked (NULL = defaults); func names the public function. */
ND_INTERNAL nd_status nd__prof_opts(const char *func, const nd_profiler_table_options *opt,
                                    nd_profiler_table_options *o);
/* Every key-averages row of r grouped and sorted as opt says (checked by
 * nd__prof_opts into *o; no row limit applied), in a heap array (*rows,
 * freed with nd__free; NULL when *n == 0). */
ND_INTERNAL nd_status nd__prof_rows(const char *func, const nd_prof_result *r, const nd_profiler_table_options *opt,
                                    nd_profiler_table_options *o, nd_profiler_row **rows, size_t *n);
/* Text of a device ("cpu:0", "cuda:1") into buf. */
ND_INTERNAL const char *nd__prof_devname(char buf[24], nd_device d);
ND_INTERNAL const char *nd__prof_kind_name(nd_profiler_event_kind k);
ND_INTERNAL const char *nd__prof_sort_name(nd_profiler_sort s);
/* Open path for writing / finish it: ND_ERR_IO naming path and strerror;
 * on failure the partial file is removed. */
ND_INTERNAL nd_status nd__prof_open(const char *func, const char *path, nd_sb *b);
ND_INTERNAL nd_status nd__prof_close(const char *func, const char *path, nd_sb *b);

#endif /* ND_PROF_REPORT_H */
