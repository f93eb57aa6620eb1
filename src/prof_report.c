/* The profiler's reports (STUB: the report helper writes them). */
#include "prof.h"

void nd__prof_report_reset(void) {}
nd_status nd_profiler_key_averages(nd_profiler_row *rows, size_t cap, size_t *nrows, const nd_profiler_table_options *opt)
{ (void)rows; (void)cap; (void)nrows; (void)opt; return ND_ERR_UNSUPPORTED; }
nd_status nd_profiler_print_table(FILE *f, const nd_profiler_table_options *opt) { (void)f; (void)opt; return ND_ERR_UNSUPPORTED; }
nd_status nd_profiler_table(char *buf, size_t size, size_t *needed, const nd_profiler_table_options *opt)
{ (void)buf; (void)size; (void)needed; (void)opt; return ND_ERR_UNSUPPORTED; }
nd_status nd_profiler_export_chrome_trace(const char *path) { (void)path; return ND_ERR_UNSUPPORTED; }
nd_status nd_profiler_export_json(const char *path, const nd_profiler_table_options *opt) { (void)path; (void)opt; return ND_ERR_UNSUPPORTED; }
