/*
 * bench_common.h - shared machinery of the libndgpu benchmark binaries.
 *
 * Every binary: builds a list of cases (filtered by --filter and --device),
 * then for each case creates random inputs (a counter-based generator that
 * benchmarks/compare.py reproduces bit for bit in NumPy), runs the op once,
 * checks the result against a plain C reference, times it (warm-up, then
 * samples until --min-time is reached; median, min, max per call) and
 * emits one table row on stdout and one JSON object per line in --json FILE.
 *
 * Only the public API (include/ndgpu.h) and src/cpu/blas.h (the BLAS the
 * build chose, for the raw baselines and its identity) are used.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <ndgpu.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BENCH_MAX_INPUTS 3
#define BENCH_DEV_CPU 1
#define BENCH_DEV_CUDA 2

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */
typedef struct bench_opts {
    const char *prog;
    bool quick;
    int devices;          /* BENCH_DEV_* mask, after removing absent GPUs */
    bool cuda_requested;  /* --device cuda|all asked for the GPU */
    const char *json_path;
    const char *filter;   /* substring of the case key, NULL = all */
    int threads;          /* CPU threads for libndgpu and raw BLAS */
    double min_time;      /* seconds of samples per case */
    bool list;            /* --list: print the case keys and exit */
    bool assume_gpu;      /* --assume-gpu (with --list): list the cuda:0 cases even
                           * without a GPU (a dry run of a GPU machine's plan) */
    bool no_verify;       /* --no-verify: time only, no reference check or checksum */
} bench_opts;

extern bench_opts g_opt;

/* Parse the common options. usage_extra is printed after the common help.
 * Exits (0 for --help, 2 for bad options). */
void bench_init(int argc, char **argv, const char *name, const char *summary);
/* Finish: close JSON, print the summary, return the exit code (1 when a
 * result check failed or an op returned an error). */
int bench_finish(void);
/* Whether each case's result is checked against its reference and
 * checksummed before it is timed (the default). compare.py verifies every
 * case in its first round and times only (--no-verify) in the later ones:
 * the reference of a 4096x4096 case costs several times its timing. */
bool bench_verify(void);

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */
typedef struct bench_case {
    char key[192];        /* "op/dtype/shape/layout/device" (filter target) */
    int kind;             /* meaning defined by the binary */
    int op;
    nd_dtype dtype;
    int layout;
    int64_t p[6];         /* sizes etc., meaning defined by the binary */
    nd_device dev;
} bench_case;

/* Append c (its key must be filled) when it passes the filter. */
void bench_add_case(const bench_case *c);
int bench_num_cases(void);
bench_case *bench_get_case(int i);
/* Number of devices selected and the i-th. */
int bench_num_devices(void);
nd_device bench_device(int i);
const char *bench_dev_name(nd_device d); /* "cpu" / "cuda:0" (static) */
/* Progress line on stderr: "[name] case i/N key". */
void bench_progress(int i, const bench_case *c);

/* ------------------------------------------------------------------ */
/* Inputs: reproducible random arrays                                  */
/* ------------------------------------------------------------------ */
typedef enum bench_view {
    BV_NONE = 0, /* the base array itself */
    BV_T,        /* transpose (all axes reversed) */
    BV_STEP2,    /* every 2nd element along the last axis */
} bench_view;

typedef struct bench_input {
    nd_dtype dtype;       /* ND_BOOL: value = u < 0.5 */
    int ndim;
    int64_t shape[4];     /* of the base array */
    bench_view view;
    uint64_t seed;
    double lo, hi;        /* value = lo + (hi - lo) * u, u in [0, 1) */
} bench_input;

/* u in [0,1) from (seed, i): splitmix64 of (seed + i + 1) * golden. */
double bench_u01(uint64_t seed, uint64_t i);
/* The value of base element flat (as stored, i.e. rounded to dtype). */
double bench_input_base_value(const bench_input *in, int64_t flat);
/* Shape of the view; returns its rank. */
int bench_input_view_shape(const bench_input *in, int64_t *shape);
/* Number of elements of the base array and of the view. */
int64_t bench_input_base_size(const bench_input *in);
int64_t bench_input_view_size(const bench_input *in);
/* Coefficients such that the view, broadcast (NumPy rules) to an output
 * of rank out_ndim, holds at output index idx the base element
 * sum_k coef[k] * idx[k]. */
void bench_input_coefs(const bench_input *in, int out_ndim, int64_t *coef);
/* Create the base array on dev and return the view (*view, a new
 * reference). When host is not NULL, *host receives the base values as
 * doubles (malloc'ed, the caller frees). Returns an nd_status; on failure
 * the message is in nd_last_error() (or ND_ERR_NOMEM for host memory). */
int bench_input_make(const bench_input *in, nd_device dev, nd_array **view, double **host);

/* ------------------------------------------------------------------ */
/* Timing                                                              */
/* ------------------------------------------------------------------ */
typedef struct bench_stats {
    double median, min, max; /* seconds per call */
    long calls;              /* timed calls */
    long samples;            /* samples (each of `calls / samples` calls) */
} bench_stats;

double bench_now(void);
/* fn(arg) runs the op once and returns an nd_status (ND_OK = 0). dev is
 * synchronised after each sample (a GPU does the work, not just the
 * launch). Returns the first non-OK status, or ND_OK. */
typedef int (*bench_fn)(void *arg);
int bench_measure(bench_fn fn, void *arg, nd_device dev, bench_stats *st);

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */
typedef enum bench_status { BS_OK = 0, BS_WRONG, BS_ERROR, BS_SKIPPED } bench_status;

typedef struct bench_record {
    const char *bench;       /* "elementwise", ... */
    char op[48];
    char dtype[32];
    char shape[64];
    char layout[32];
    char device[16];
    double bytes;            /* bytes moved per call (0: n/a) */
    double flops;            /* flops per call (0: n/a) */
    bench_stats st;
    bench_status status;
    char message[512];
    bool has_checksum;
    double checksum[2];      /* sum(x), sum(x * (1 + i % 7)) in C order */
    int ninputs;
    bench_input inputs[BENCH_MAX_INPUTS];
    char call[256];          /* JSON object text: how compare.py runs it */
    char extra[256];         /* extra JSON members ("\"k\": v, ...") or "" */
    char note[64];           /* free text shown in the table */
} bench_record;

/* Fill the common fields (bench, device) and zero the rest. */
void bench_record_init(bench_record *r, const char *bench, const bench_case *c);
/* Print the table row and write the JSON line. */
void bench_emit(const bench_record *r);
/* Mark r as failed with the library's last error. */
void bench_fail_nd(bench_record *r, const char *what, nd_status s);
/* Checksums of n doubles (C order). */
void bench_checksum(const double *x, int64_t n, double out[2]);
/* Copy a (any device, any dtype) to the host as doubles (malloc'ed;
 * NULL on failure with r marked failed); complex as (re, im) pairs in C
 * order (2 * size values). */
double *bench_fetch(const nd_array *a, bench_record *r);
/* Shape text "4096x4096" / "()" */
void bench_fmt_shape(char *buf, size_t cap, int ndim, const int64_t *shape);

/* Compare got[i] with ref[i] within |got - ref| <= atol + rtol * |ref|
 * (NaN equal to NaN). On failure r is marked BS_WRONG with the first bad
 * index. Returns true when all match. */
bool bench_check_close(bench_record *r, const double *got, const double *ref, int64_t n, double rtol, double atol);

/* Half precision bits -> double (for checking float16 results). */
double bench_half_to_double(uint16_t h);
/* v rounded to float16 / bfloat16 (nearest even; v in the normal range of
 * the type), as a double, and the bits of such an exactly representable
 * value. bench_worker.py rounds the same way (frexp/rint/ldexp). */
double bench_round_half(double v);
double bench_round_bf16(double v);
uint16_t bench_half_bits(double v);
uint16_t bench_bf16_bits(double v);

/* ------------------------------------------------------------------ */
/* The GPU's memory bandwidth ceiling: a raw device-to-device copy      */
/* ------------------------------------------------------------------ */
/* cudaMemcpyAsync (cudaMemcpyDeviceToDevice) of BENCH_D2D_N float32
 * elements (1.024 GB) between two device arrays, timed like every case:
 * "d2d_copy/float32/256000000/raw/<dev>", bytes = 2 x 1.024 GB (read +
 * write). Large GPU cases report their GB/s as a fraction of it
 * ("fraction_of_copy" in the JSON, "(93% of D2D copy)" in the table), the
 * way bench_copy reports CPU copies against the STREAM triad. */
#define BENCH_D2D_N 256000000
#define BENCH_KIND_D2D 1000 /* bench_case.kind of the copy ceiling case */
/* Bytes (read + written) from which a cuda case gets fraction_of_copy:
 * arrays well beyond the L2 cache. */
#define BENCH_D2D_MIN_BYTES (256.0 * 1024 * 1024)
/* Append the copy ceiling case for dev (a CUDA device; nothing otherwise). */
void bench_add_d2d_case(nd_device dev);
/* Measure and emit it; remembers its GB/s for bench_note_copy_fraction. */
void bench_run_d2d_case(const bench_case *c, const char *bench);
/* For an ok, timed cuda record with bytes >= BENCH_D2D_MIN_BYTES: add
 * "fraction_of_copy" and "copy_gbps" to r->extra and a note. The ceiling
 * is measured here first when it has not run yet (e.g. --filter left it
 * out). */
void bench_note_copy_fraction(bench_record *r, nd_device dev, const char *bench);
/* ------------------------------------------------------------------ */
/* The CPU's memory bandwidth ceiling: STREAM-style loops in plain C     */
/* ------------------------------------------------------------------ */
/* triad a = b + 3 c and copy a = b over BENCH_STREAM_N float64 elements
 * (OpenMP, --threads, first touch by the same threads): "triad/float64/
 * 16000000/raw/cpu" (bytes 3 x 128 MB) and "stream_copy/...". CPU cases
 * report their GB/s as a fraction of the triad's ("fraction_of_triad"). */
#define BENCH_STREAM_N 16000000
#define BENCH_KIND_TRIAD 1001 /* bench_case.kind of the triad ceiling case */
/* Append the triad case for dev (the CPU; nothing otherwise). */
void bench_add_triad_case(nd_device dev);
/* Measure and emit the triad (triad) or the copy; the triad's GB/s is
 * remembered for bench_note_triad_fraction. */
void bench_run_stream_case(const bench_case *c, const char *bench, bool triad);
/* For an ok, timed CPU record: "fraction_of_triad" in r->extra and "(N%
 * of triad)" in the note; the triad is measured here first when it has
 * not run yet (e.g. --filter left it out). */
void bench_note_triad_fraction(bench_record *r, nd_device dev, const char *bench);
/* The same against a triad measured right after the case (not emitted; its
 * GB/s goes to "triad_gbps"), so that the two see the same machine: on a
 * shared host the triad of the run's start moved by a third between runs
 * (33-46 GB/s on a 2-vCPU AMD EPYC). For the cases with a bandwidth goal. */
void bench_note_triad_fraction_adjacent(bench_record *r, nd_device dev, const char *bench);
/* Append ", text" (or "text") to r->extra. */
void bench_extra_append(bench_record *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Environment as JSON (the first line of every JSON file). */
void bench_write_env(const char *bench);
/* The BLAS core that runs ("SkylakeX", "Haswell", "Prescott"; BLIS: "skx")
 * and the library ("OpenBLAS 0.3.34.481.3 (scipy-openblas32)"), from
 * src/cpu/blas.h, the library's own door to the BLAS the build chose. */
const char *bench_blas_core(void);
const char *bench_blas_library(void);
/* The CPU path that ran ("avx512", "avx2", "baseline"; from nd_build_info). */
const char *bench_cpu_path(void);
/* nd_build_info()'s "bfloat16 GEMM" field: the kernels bfloat16 products use. */
const char *bench_bf16_gemm(void);
/* The CPU model from /proc/cpuinfo ("unknown" without it). */
void bench_cpu_model(char *buf, size_t cap);

#endif /* BENCH_COMMON_H */
