/*
 * libndgpu: the op-level profiler - start/stop, user ranges, events,
 * key-averages tables, Chrome trace and JSON export.
 * Included by <ndgpu.h>; usable alone (it includes ndgpu/core.h).
 */
#ifndef NDGPU_PROFILER_H
#define NDGPU_PROFILER_H

#include <stdio.h> /* FILE, for nd_profiler_print_table */

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Profiler                                                            */
/* ------------------------------------------------------------------ */
/*
 * An op-level profiler in the manner of torch.profiler. While it runs,
 * every public operation records an event: its name (the op-table name,
 * "add", "sum", "matmul", or the function's name without "nd_": "take",
 * "sort", "zeros"; transfers are "copy_h2d", "copy_d2h", "copy_d2d" or
 * "copy_h2h" with the bytes copied), its device and stream, the calling
 * thread, host wall time (total and self: total less the ops it called),
 * device time on a GPU, the input dtypes (and shapes when asked), the
 * bytes it read and wrote, FLOPs for matmul/gemm/dot, and the memory it
 * allocated and freed (when asked). Operations called by operations nest
 * (nd_unique -> sort -> ...), as aten ops do in PyTorch.
 *
 * Device time is the interval between two events recorded on the op's
 * stream when it starts and ends on the host: it includes every kernel
 * and copy the op queued and any idle gap of the stream inside it. The
 * events are read when the profiler stops (never a synchronisation per
 * op). CPU ops have no device time (-1).
 *
 * Recording is per thread (no lock is shared between threads while ops
 * run) and bounded: after cfg->max_events events the rest are counted as
 * dropped (nd_profiler_stats.dropped) and the profile goes on.
 *
 * ND_PROFILE=trace.json in the environment profiles a whole program
 * without changing it: the profiler starts when the library loads (all
 * recording on: shapes and memory) and the Chrome trace is written to
 * that path at exit; ND_PROFILE_TABLE=path (or "-" for stderr) also
 * writes the key-averages table there.
 *
 * Results stay readable after nd_profiler_stop until the next
 * nd_profiler_start; names and strings they give point into the
 * profiler's storage and are valid until then.
 */
/** What the profiler records (nd_profiler_config_init gives the defaults). */
typedef struct nd_profiler_config {
    bool record_shapes;  /* input shapes of every op (default false; PyTorch's record_shapes) */
    bool profile_memory; /* allocation and free events (default false; profile_memory) */
    bool cpu;            /* ops on the CPU (default true) */
    bool cuda;           /* ops on CUDA devices, with device time (default true) */
    int64_t max_events;  /* bound on the events kept, all threads together (default 1<<19) */
} nd_profiler_config;
/** Fill *cfg with the defaults (shapes and memory off, every device, 1<<19 events). */
ND_API void nd_profiler_config_init(nd_profiler_config *cfg);
/** Start profiling (cfg NULL = defaults), discarding the last profile's
 *  results. ND_ERR_INVALID when one is already running or max_events < 1. */
ND_API nd_status nd_profiler_start(const nd_profiler_config *cfg);
/** Stop the running profile: reads the device timings (waits for the
 *  profiled devices), closes ranges still open (counted in
 *  nd_profiler_stats.unclosed_ranges) and keeps the results.
 *  ND_ERR_INVALID when no profile is running; ND_ERR_NOMEM when the event
 *  list cannot be allocated (the profile still ends, with no events). */
ND_API nd_status nd_profiler_stop(void);
/** Whether the profiler is running. */
ND_API bool nd_profiler_is_running(void);

/** Open a user range on this thread (PyTorch's record_function): it
 *  appears as an event, nests, and in CUDA builds is also an NVTX range
 *  (Nsight Systems shows it). Works, and balances, with or without a
 *  running profile. ND_ERR_INVALID for a NULL name or more than 64
 *  ranges open on this thread. */
ND_API nd_status nd_range_push(const char *name);
/** Close this thread's innermost range. ND_ERR_INVALID (not a crash)
 *  when none is open. */
ND_API nd_status nd_range_pop(void);

/** What an event is. */
typedef enum {
    ND_PROFILER_OP = 0,   /* a public operation */
    ND_PROFILER_RANGE,    /* a user range (nd_range_push/pop) */
    ND_PROFILER_TRANSFER, /* a copy between host and device or between devices */
    ND_PROFILER_MEMORY    /* an allocation (bytes > 0) or free (bytes < 0) of an array buffer */
} nd_profiler_event_kind;

#define ND_PROFILER_MAX_INPUTS 4
/** One recorded event (nd_profiler_events). Times in nanoseconds from the profile's start. */
typedef struct nd_profiler_event {
    const char *name;
    nd_profiler_event_kind kind;
    int thread;      /* 0, 1, ... in the order threads first recorded */
    int depth;       /* nesting depth on its thread (0: called by the user) */
    int64_t parent;  /* index of the enclosing op or range in the event array, -1 none */
    nd_device device;
    int stream;      /* 0: the device's default stream; k: the k-th other stream seen on it */
    int64_t host_start_ns, host_ns, host_self_ns;
    int64_t device_start_ns, device_ns, device_self_ns; /* -1: no device time */
    int64_t bytes;   /* read + written (inputs and output); transfers: bytes copied; memory: +allocated / -freed */
    int64_t flops;   /* matmul, gemm, dot: 2*m*n*k per product; else 0 */
    int64_t mem_self_bytes;  /* allocated less freed by the op itself (profile_memory) */
    int64_t mem_in_use;      /* memory events: bytes of live array buffers on the device after it */
    int ninputs;             /* arrays recorded (at most ND_PROFILER_MAX_INPUTS) */
    nd_dtype dtypes[ND_PROFILER_MAX_INPUTS];
    int ndims[ND_PROFILER_MAX_INPUTS];                /* record_shapes; else 0 */
    const int64_t *shapes[ND_PROFILER_MAX_INPUTS];    /* record_shapes; else NULL */
    int out_dtype;           /* the result's nd_dtype; -1 when the op gave no array */
} nd_profiler_event;
/** The last profile's events, ordered by host start time (ties: the
 *  outer event first). ND_ERR_INVALID while the profiler runs or before
 *  the first one. */
ND_API nd_status nd_profiler_events(const nd_profiler_event **events, size_t *n);

/** Counts of the last (or running) profile. */
typedef struct nd_profiler_stats {
    int64_t events;          /* kept */
    int64_t dropped;         /* not kept: over max_events */
    int threads;             /* threads that recorded */
    int64_t unclosed_ranges; /* ranges still open at stop (closed there) */
    int64_t duration_ns;     /* start to stop */
} nd_profiler_stats;
/** Fill *s. ND_ERR_INVALID for NULL or before the first profile. */
ND_API nd_status nd_profiler_get_stats(nd_profiler_stats *s);

/** Key-averages columns to sort by (descending; NAME ascending). */
typedef enum {
    ND_PROFILER_SORT_HOST_TOTAL = 0,
    ND_PROFILER_SORT_HOST_SELF,
    ND_PROFILER_SORT_HOST_AVG,
    ND_PROFILER_SORT_DEVICE_TOTAL,
    ND_PROFILER_SORT_DEVICE_SELF,
    ND_PROFILER_SORT_DEVICE_AVG,
    ND_PROFILER_SORT_CALLS,
    ND_PROFILER_SORT_BYTES,
    ND_PROFILER_SORT_FLOPS,
    ND_PROFILER_SORT_MEMORY,
    ND_PROFILER_SORT_NAME,
    ND_PROFILER_SORT_COUNT_ /* number of columns, not a column */
} nd_profiler_sort;
/** How to build the key-averages table (zero-initialised = host total, all rows, by name). */
typedef struct nd_profiler_table_options {
    nd_profiler_sort sort_by;
    int row_limit;       /* 0: every row */
    bool group_by_shape; /* one row per (name, input shapes), as key_averages(group_by_input_shape=True) */
} nd_profiler_table_options;
/** One row of the key averages: the events of one name (and input shapes) added up. */
typedef struct nd_profiler_row {
    const char *name;
    const char *shapes;  /* "[[3, 4], [4]]" when grouped by shape, else "" */
    nd_profiler_event_kind kind;
    int64_t calls;
    int64_t host_total_ns, host_self_ns;
    int64_t device_total_ns, device_self_ns; /* -1: no device time */
    int64_t bytes, flops, mem_self_bytes;
} nd_profiler_row;
/** The key averages of the last profile, sorted and limited as opt says
 *  (NULL: defaults) into rows[0..cap) ; *nrows = how many there are (may
 *  exceed cap: call again with more room). Memory events are not rows.
 *  ND_ERR_INVALID for a bad sort column, a negative row_limit, a NULL
 *  nrows, while the profiler runs or before the first one. */
ND_API nd_status nd_profiler_key_averages(nd_profiler_row *rows, size_t cap, size_t *nrows,
                                          const nd_profiler_table_options *opt);
/** Write the key-averages table (PyTorch's key_averages().table()) to f.
 *  Errors as nd_profiler_key_averages; ND_ERR_IO when writing or flushing
 *  f fails (an unbuffered stream included). */
ND_API nd_status nd_profiler_print_table(FILE *f, const nd_profiler_table_options *opt);
/** The same table into buf (size bytes, always NUL-terminated when size
 *  > 0, as snprintf); *needed (optional) = the length it has, so a
 *  second call with needed + 1 bytes gets it whole. */
ND_API nd_status nd_profiler_table(char *buf, size_t size, size_t *needed, const nd_profiler_table_options *opt);
/** Write the last profile as a Chrome trace-event JSON file (opens in
 *  Perfetto, ui.perfetto.dev, and chrome://tracing): one row per host
 *  thread and per device stream, ops and ranges nested, transfers in
 *  their own category and colour, a memory counter per device.
 *  ND_ERR_IO when the file cannot be written (open, write, flush or
 *  close); a partial regular file is removed, a device or FIFO named as
 *  path (/dev/full) is left as it is. */
ND_API nd_status nd_profiler_export_chrome_trace(const char *path);
/** Write the last profile's key averages and stats as one JSON object
 *  (machine-readable summary). ND_ERR_IO as above. */
ND_API nd_status nd_profiler_export_json(const char *path, const nd_profiler_table_options *opt);

#ifdef __cplusplus
}
#endif
#endif /* NDGPU_PROFILER_H */
