/* The profiler's recording side (STUB: the lead is writing it; the real file replaces this). */
#include "prof.h"

atomic_int nd__prof_on;
atomic_int nd__prof_mem_on;

void nd__prof_begin(nd_prof_scope *s, const char *name, nd_array **out, int n, const nd_array *const *ins,
                    const nd_device *dev)
{
    (void)s; (void)name; (void)out; (void)n; (void)ins; (void)dev;
}
void nd__prof_end(nd_prof_scope *s) { s->frame = 0; }
void nd__prof_set(nd_prof_scope *s, int what, int64_t v) { (void)s; (void)what; (void)v; }
void nd__prof_transfer(nd_prof_scope *s, const char *name, int64_t bytes, nd_device dev)
{
    (void)s; (void)name; (void)bytes; (void)dev;
}
void nd__prof_device(nd_prof_scope *s, nd_device dev) { (void)s; (void)dev; }
void nd__prof_mem(nd_device dev, int64_t delta) { (void)dev; (void)delta; }
const nd_prof_result *nd__prof_last(void) { return NULL; }
void nd_profiler_config_init(nd_profiler_config *cfg)
{
    if (!cfg) return;
    *cfg = (nd_profiler_config){.cpu = true, .cuda = true, .max_events = 1 << 20};
}
nd_status nd_profiler_start(const nd_profiler_config *cfg) { (void)cfg; return ND_ERR_UNSUPPORTED; }
nd_status nd_profiler_stop(void) { return ND_ERR_INVALID; }
bool nd_profiler_is_running(void) { return false; }
nd_status nd_range_push(const char *name) { (void)name; return ND_OK; }
nd_status nd_range_pop(void) { return ND_OK; }
nd_status nd_profiler_events(const nd_profiler_event **events, size_t *n) { (void)events; (void)n; return ND_ERR_INVALID; }
nd_status nd_profiler_get_stats(nd_profiler_stats *s) { (void)s; return ND_ERR_INVALID; }
