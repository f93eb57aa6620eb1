/* bench_allreduce.c - what nd_allreduce costs over raw MPI_Allreduce.
 *
 *   mpirun -np 2 build/benchmarks/mpi/bench_allreduce [--reps R] [--max-bytes N]
 *
 * For contiguous CPU float32 arrays of 4 KiB, 1 MiB, 16 MiB and 64 MiB, in
 * the same run and on the SAME buffer:
 *   raw           MPI_Allreduce(MPI_IN_PLACE, nd_data(a), n, MPI_FLOAT, MPI_SUM,
 *                 nd_comm_mpi(comm))   (the ceiling: the library's own
 *                 communicator, so both travel the same way)
 *   nd            nd_allreduce(comm, a, ND_COMM_SUM)   (the cross-rank argument
 *                 check on, the default)
 *   nd_nochecks   the same after nd_comm_set_checks(comm, false)
 * and, for information, nd_allreduce of 64 MiB float16 and bfloat16 (user-
 * defined MPI operations, float32 arithmetic per pairwise step), compared
 * with raw float32 of the same bytes.
 *
 * Method: each result is checked once first (every rank contributes
 * rank + 1; the sum must be size (size + 1) / 2 everywhere). For timing
 * the buffer holds zeros (sums stay zero: no overflow, no denormals).
 * Warm-ups, then repetitions in which the three variants are interleaved
 * (the order rotates every repetition, so drift and cache effects are
 * shared), each call preceded by an MPI_Barrier. Each rank times its call
 * with MPI_Wtime; a repetition's time is the maximum over the ranks.
 * Reported: the median (and min, max) over the repetitions; 20 for >= 16 MiB,
 * more for the small sizes.
 *
 * Output (rank 0): one JSON object per line starting with "{" (the first is
 * the environment, "type": "env"), a readable table on the other lines, and
 * the goal:
 *   goal allreduce 64MB float32: ratio X (>= 0.95: met|MISSED)
 * ratio_to_raw = raw median / nd median (1.0 = no overhead); gbps is the
 * algorithmic bandwidth, bytes / median / 1e9. Exit status 1 when a result
 * is wrong (a missed goal is reported, not an error).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <ndgpu.h>
#include <ndgpu_mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_common.h"

enum { MAX_REPS = 4000, NVAR = 3 };

static int g_rank;

#define CK(call)                                                                                         \
    do {                                                                                                 \
        nd_status st_ = (call);                                                                          \
        if (st_ != ND_OK) {                                                                              \
            fprintf(stderr, "bench_allreduce: rank %d: %s failed: %s\n", g_rank, #call, nd_last_error()); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
        }                                                                                                \
    } while (0)

#define CKMPI(call)                                                                              \
    do {                                                                                         \
        int e_ = (call);                                                                         \
        if (e_ != MPI_SUCCESS) {                                                                 \
            char m_[MPI_MAX_ERROR_STRING];                                                       \
            int l_ = 0;                                                                          \
            MPI_Error_string(e_, m_, &l_);                                                       \
            fprintf(stderr, "bench_allreduce: rank %d: %s failed: %s\n", g_rank, #call, m_);     \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                        \
        }                                                                                        \
    } while (0)

static const char *var_name[NVAR] = {"raw", "nd", "nd_nochecks"};

typedef struct {
    double median, min, max;
} stats;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static stats summarize(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    stats s = {n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v[0], v[n - 1]};
    return s;
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

static void write_env(nd_comm *comm, int size)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], cpu[256], path[96];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = 0;
    bench_cpu_model(cpu, sizeof cpu);
    snprintf(path, sizeof path, "%s", bench_cpu_path());
    printf("{\"type\": \"env\", \"bench\": \"mpi_allreduce\", \"version\": ");
    json_str(nd_version());
    printf(", \"build_info\": ");
    json_str(nd_build_info());
    printf(", \"cpu_path\": ");
    json_str(path);
    printf(", \"cpu_model\": ");
    json_str(cpu);
    printf(", \"mpi_library\": ");
    json_str(lib);
    printf(", \"procs\": %d, \"local_procs\": %d, \"nd_threads\": %d, \"transport_cpu\": ", size,
           nd_comm_local_size(comm), nd_get_num_threads());
    json_str(nd_comm_transport(comm, nd_cpu()));
    printf(", \"cuda_devices\": %d, \"devices\": [", nd_cuda_device_count());
    for (int i = 0; i < nd_cuda_device_count(); i++) {
        nd_device_info info;
        printf("%s{\"device\": \"cuda:%d\"", i ? ", " : "", i);
        if (nd_device_get_info(&info, nd_cuda(i)) == ND_OK) {
            printf(", \"name\": ");
            json_str(info.name);
        }
        printf("}");
    }
    printf("]}\n");
}

/* Check once: every rank contributes rank + 1 (exact in every dtype for a
 * few ranks); the result must be size (size + 1) / 2 everywhere. variant
 * 0 = raw MPI (float32 only). Returns the number of wrong entries on this
 * rank. */
static int64_t check_once(nd_comm *comm, nd_array *a, int variant)
{
    int rank = nd_comm_rank(comm), size = nd_comm_size(comm);
    int64_t n = nd_size(a);
    nd_array *f = NULL;
    CK(nd_full(&a, nd_dtype_of(a), nd_ndim(a), nd_shape(a), nd_scalar_float(rank + 1), nd_device_of(a)));
    if (variant == 0)
        CKMPI(MPI_Allreduce(MPI_IN_PLACE, nd_data(a), (int)n, MPI_FLOAT, MPI_SUM, nd_comm_mpi(comm)));
    else {
        if (variant == 2) CK(nd_comm_set_checks(comm, false));
        CK(nd_allreduce(comm, a, ND_COMM_SUM));
        if (variant == 2) CK(nd_comm_set_checks(comm, true));
    }
    CK(nd_astype(&f, a, ND_FLOAT32));
    float *h = malloc((size_t)n * sizeof *h);
    if (!h) {
        fprintf(stderr, "bench_allreduce: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CK(nd_copy_to_host(h, f, (size_t)n * sizeof *h));
    float want = (float)(size * (size + 1) / 2);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += h[i] != want;
    free(h);
    nd_release(f);
    CK(nd_full(&a, nd_dtype_of(a), nd_ndim(a), nd_shape(a), nd_scalar_float(0.0), nd_device_of(a)));
    return bad;
}

/* One timed call of variant v on a (the caller zeroed it). */
static double timed_call(nd_comm *comm, nd_array *a, int v)
{
    MPI_Comm c = nd_comm_mpi(comm);
    if (v == 2) CK(nd_comm_set_checks(comm, false));
    CKMPI(MPI_Barrier(c));
    double t0 = MPI_Wtime();
    if (v == 0) CKMPI(MPI_Allreduce(MPI_IN_PLACE, nd_data(a), (int)nd_size(a), MPI_FLOAT, MPI_SUM, c));
    else CK(nd_allreduce(comm, a, ND_COMM_SUM));
    double t = MPI_Wtime() - t0;
    if (v == 2) CK(nd_comm_set_checks(comm, true));
    return t;
}

/* Times of the variants in vars (nvars of them), interleaved; out[k] the
 * statistics of vars[k]. */
static void measure(nd_comm *comm, nd_array *a, const int *vars, int nvars, int warm, int reps, stats *out)
{
    static double loc[NVAR][MAX_REPS], mx[NVAR][MAX_REPS];
    for (int w = 0; w < warm; w++)
        for (int k = 0; k < nvars; k++) timed_call(comm, a, vars[k]);
    for (int r = 0; r < reps; r++)
        for (int j = 0; j < nvars; j++) {
            int k = (j + r) % nvars; /* rotating order */
            loc[k][r] = timed_call(comm, a, vars[k]);
        }
    for (int k = 0; k < nvars; k++) {
        CKMPI(MPI_Allreduce(loc[k], mx[k], reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        out[k] = summarize(mx[k], reps);
    }
}

static void emit(const char *op, const char *variant, const char *dtype, size_t bytes, int size, int reps,
                 stats s, double raw_median, const char *ratio_ref)
{
    printf("{\"bench\": \"mpi_allreduce\", \"op\": \"%s\", \"variant\": \"%s\", \"dtype\": \"%s\", \"bytes\": %zu, "
           "\"procs\": %d, \"device\": \"cpu:0\", \"checks\": %s, \"reps\": %d, \"median_s\": %.6e, \"min_s\": %.6e, "
           "\"max_s\": %.6e, \"gbps\": %.6g",
           op, variant, dtype, bytes, size, !strcmp(variant, "raw") ? "null" : !strcmp(variant, "nd") ? "true" : "false",
           reps, s.median, s.min, s.max, (double)bytes / s.median / 1e9);
    if (raw_median > 0) printf(", \"ratio_to_raw\": %.4f", raw_median / s.median);
    if (ratio_ref) printf(", \"ratio_ref\": \"%s\"", ratio_ref);
    printf("}\n");
}

static const char *size_label(size_t b)
{
    static char buf[32];
    if (b >= (1u << 20)) snprintf(buf, sizeof buf, "%zuMB", b >> 20);
    else snprintf(buf, sizeof buf, "%zuKB", b >> 10);
    return buf;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    int reps_big = 20;
    size_t max_bytes = (size_t)64 << 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps_big = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc) max_bytes = (size_t)atoll(argv[++i]);
        else {
            if (g_rank == 0) fprintf(stderr, "usage: bench_allreduce [--reps R] [--max-bytes N]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (reps_big < 1 || reps_big > MAX_REPS / 50) reps_big = 20;

    nd_comm *comm = NULL;
    CK(nd_comm_create(&comm, MPI_COMM_WORLD));
    int rank = nd_comm_rank(comm), size = nd_comm_size(comm);
    if (rank == 0) {
        write_env(comm, size);
        printf("bench_allreduce: %d processes, contiguous CPU arrays; median of the max over ranks per call; "
               "ratio = raw median / nd median\n",
               size);
        printf("%-8s %-9s %6s %12s %9s %12s %9s %7s %12s %9s %7s\n", "size", "dtype", "reps", "raw us", "raw GB/s",
               "nd us", "nd GB/s", "ratio", "nochk us", "GB/s", "ratio");
        fflush(stdout);
    }

    const size_t sizes[] = {4096, (size_t)1 << 20, (size_t)16 << 20, (size_t)64 << 20};
    int wrong = 0;
    double raw64 = 0, nd64 = 0, raw_largest = 0;
    size_t largest = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t bytes = sizes[si];
        if (bytes > max_bytes) break;
        int64_t n = (int64_t)(bytes / 4);
        nd_array *a = NULL;
        CK(nd_zeros(&a, ND_FLOAT32, 1, &n, nd_cpu()));
        int64_t bad = 0;
        for (int v = 0; v < NVAR; v++) bad += check_once(comm, a, v);
        int64_t allbad = 0;
        CKMPI(MPI_Allreduce(&bad, &allbad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
        if (allbad) {
            if (rank == 0) printf("bench_allreduce: WRONG: float32 %s: %lld wrong entries\n", size_label(bytes), (long long)allbad);
            wrong = 1;
            nd_release(a);
            continue;
        }
        int reps = bytes >= ((size_t)16 << 20) ? reps_big : bytes >= ((size_t)1 << 20) ? 5 * reps_big : 50 * reps_big;
        int warm = bytes >= ((size_t)16 << 20) ? 3 : 20;
        stats s[NVAR];
        const int vars[NVAR] = {0, 1, 2};
        measure(comm, a, vars, NVAR, warm, reps, s);
        if (rank == 0) {
            for (int v = 0; v < NVAR; v++)
                emit(v ? "nd_allreduce" : "MPI_Allreduce", var_name[v], "float32", bytes, size, reps, s[v],
                     s[0].median, NULL);
            printf("%-8s %-9s %6d %12.1f %9.2f %12.1f %9.2f %7.3f %12.1f %9.2f %7.3f\n", size_label(bytes), "float32",
                   reps, 1e6 * s[0].median, bytes / s[0].median / 1e9, 1e6 * s[1].median, bytes / s[1].median / 1e9,
                   s[0].median / s[1].median, 1e6 * s[2].median, bytes / s[2].median / 1e9, s[0].median / s[2].median);
            fflush(stdout);
        }
        if (bytes == ((size_t)64 << 20)) raw64 = s[0].median, nd64 = s[1].median;
        raw_largest = s[0].median, largest = bytes;
        nd_release(a);
    }

    /* float16 / bfloat16: user-defined MPI operations, for information */
    if (largest == ((size_t)64 << 20)) {
        const nd_dtype half[2] = {ND_FLOAT16, ND_BFLOAT16};
        for (int d = 0; d < 2; d++) {
            int64_t n = (int64_t)(largest / 2);
            nd_array *a = NULL;
            CK(nd_zeros(&a, half[d], 1, &n, nd_cpu()));
            int64_t bad = check_once(comm, a, 1) + check_once(comm, a, 2), allbad = 0;
            CKMPI(MPI_Allreduce(&bad, &allbad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD));
            if (allbad) {
                if (rank == 0)
                    printf("bench_allreduce: WRONG: %s 64MB: %lld wrong entries\n", nd_dtype_name(half[d]),
                           (long long)allbad);
                wrong = 1;
                nd_release(a);
                continue;
            }
            stats s[2];
            const int vars[2] = {1, 2};
            int reps = reps_big / 2 > 5 ? reps_big / 2 : 5;
            measure(comm, a, vars, 2, 2, reps, s);
            if (rank == 0) {
                emit("nd_allreduce", "nd", nd_dtype_name(half[d]), largest, size, reps, s[0], raw_largest,
                     "float32 MPI_Allreduce of the same bytes");
                emit("nd_allreduce", "nd_nochecks", nd_dtype_name(half[d]), largest, size, reps, s[1], raw_largest,
                     "float32 MPI_Allreduce of the same bytes");
                printf("%-8s %-9s %6d %12s %9s %12.1f %9.2f %7.3f %12.1f %9.2f %7.3f  (user-defined op; ratio vs "
                       "float32 raw, same bytes)\n",
                       size_label(largest), nd_dtype_name(half[d]), reps, "-", "-", 1e6 * s[0].median,
                       largest / s[0].median / 1e9, raw_largest / s[0].median, 1e6 * s[1].median,
                       largest / s[1].median / 1e9, raw_largest / s[1].median);
                fflush(stdout);
            }
            nd_release(a);
        }
    }

    if (rank == 0) {
        if (nd64 > 0) {
            double ratio = raw64 / nd64;
            printf("goal allreduce 64MB float32: ratio %.3f (>= 0.95: %s)%s\n", ratio, ratio >= 0.95 ? "met" : "MISSED",
                   size == 2 ? "" : " (the goal is stated for 2 processes)");
        } else printf("goal allreduce 64MB float32: not measured (--max-bytes below 64 MiB or a wrong result)\n");
        printf(wrong ? "bench_allreduce: FAILED (wrong results)\n" : "bench_allreduce: done\n");
    }
    CK(nd_comm_destroy(comm));
    MPI_Finalize();
    return wrong ? 1 : 0;
}
