/* scaling.c - where do more processes stop paying? The Amdahl table of
 * data parallelism: for growing layer sizes, the time of one training step
 * with 1 process against the same step spread over all processes, split
 * into compute and communication.
 *
 *   mpirun -np 2 build/examples/mpi/scaling [options]
 *     --min-hidden H   smallest hidden size (default 8)
 *     --max-hidden H   largest hidden size (default 2048); sizes double
 *     --batch B        global batch (rows per step over all ranks, default 512)
 *     --reps R         timed repetitions per size and column (default 5;
 *                      the median is reported, after one untimed warm-up)
 *     --threads N      CPU threads per process (default 1, see below)
 *     --device D       cpu | cuda (default nd_comm_device(comm))
 *
 * The step: a 2-layer MLP, square hidden size H, float32,
 *     h = relu(x W1)   y = h W2   loss = sum((y - t)^2) / (2 B)
 *     dy = (y - t) / B   dW2 = h^T dy   dh = (dy W2^T) * (h > 0)   dW1 = x^T dh
 * (2 forward + 3 backward matmuls, ~10 B H^2 flops), then the gradient
 * [dW1; dW2] (one (2H, H) buffer, as DDP packs gradients into buckets) is
 * summed over the ranks with one nd_allreduce. The weights are not updated
 * (the optimizer step is elementwise, the same on every rank, and would
 * only blur the comparison).
 *
 *  - "1 proc": rank 0 runs the whole batch alone; there is nothing to
 *    reduce. The other ranks wait meanwhile WITHOUT spinning (MPI_Ibarrier
 *    polled with MPI_Test and a 1 ms nanosleep): Open MPI's blocking waits
 *    busy-poll and would take the core rank 0's BLAS might want.
 *  - "N proc": every rank runs B / N rows, then the allreduce. Each rank
 *    times its compute (on a GPU after nd_synchronize) and its allreduce;
 *    per repetition the step takes as long as the slowest rank (max over
 *    ranks); the repetition with the median step time gives the split
 *    compute + comm (comm includes waiting for a slower rank).
 *  - One core per process: nd_set_num_threads(1) by default (it sets
 *    OpenBLAS's threads too, which the matmuls run on), so 1 process =
 *    1 core and 2 processes = 2 cores: the comparison is of cores, not of
 *    idle threads. --threads N sets N.
 *
 * What it shows: the compute of a step shrinks by about N, the allreduce
 * of the 2 H^2 gradient does not shrink at all. Both grow with H^2 (compute
 * ~ 10 (B / N) H^2 flops, communication ~ 8 H^2 bytes), so for large layers
 * their ratio is set by the rows per rank and the link's bandwidth; small
 * layers are dominated by fixed costs that do not shrink with N: the
 * latency of the collective (and its argument check) and the per-call
 * overhead of each op. Below some H more processes can be slower; the
 * program says where (on one host the link is shared memory, fast: with a
 * large batch 2 processes may pay at every size; a smaller --batch moves
 * the crossover up).
 *
 * Checks (exit status 1 when one fails): the smallest size's 1-process
 * gradient against a double-precision reference computed here, and at
 * every size the allreduced N-process gradient against the 1-process one
 * (float32 sums in another order: relative 1e-4 of the largest entry).
 * Prints one line "JSON {...}" per size for scripts
 * (benchmarks/mpi/run.sh).
 */
// expect: scaling: done
// args: --max-hidden 256 --reps 3
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <ndgpu.h>
#include <ndgpu_mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_SIZES = 32, MAX_REPS = 1000 };

static int g_rank;

/* An example, not a library: any failure ends the job (mpirun then stops
 * every rank, instead of leaving the others waiting in a collective). */
#define CK(call)                                                                                  \
    do {                                                                                          \
        nd_status st_ = (call);                                                                   \
        if (st_ != ND_OK) {                                                                       \
            fprintf(stderr, "scaling: rank %d: %s failed: %s\n", g_rank, #call, nd_last_error()); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                         \
        }                                                                                         \
    } while (0)

typedef struct {
    int64_t min_hidden, max_hidden, batch;
    int reps, threads;
    const char *device;
} options;

typedef struct {
    int64_t rows, H;
    nd_device dev;
    nd_array *x, *t;      /* this rank's rows (views of the global batch) */
    nd_array *W1, *W2;    /* (H, H) */
    nd_array *h, *y, *dh; /* activations (rows, H) */
    nd_array *mask;       /* h > 0, bool */
    nd_array *G;          /* (2H, H): [dW1; dW2] */
    nd_array *dW1, *dW2;  /* views of G */
    double inv_batch;     /* 1 / global batch */
} layer;

static void usage(void)
{
    fprintf(stderr, "usage: scaling [--min-hidden H] [--max-hidden H] [--batch B] [--reps R] [--threads N] "
                    "[--device cpu|cuda]\n");
}

static int parse(options *o, int argc, char **argv)
{
    o->min_hidden = 8, o->max_hidden = 2048, o->batch = 512, o->reps = 5, o->threads = 0, o->device = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
        if (!v) return -1;
        if (!strcmp(a, "--min-hidden")) o->min_hidden = atoll(v);
        else if (!strcmp(a, "--max-hidden")) o->max_hidden = atoll(v);
        else if (!strcmp(a, "--batch")) o->batch = atoll(v);
        else if (!strcmp(a, "--reps")) o->reps = atoi(v);
        else if (!strcmp(a, "--threads")) o->threads = atoi(v);
        else if (!strcmp(a, "--device")) o->device = v;
        else return -1;
        i++;
    }
    if (o->min_hidden < 1 || o->max_hidden < o->min_hidden || o->batch < 1 || o->reps < 1 || o->reps > MAX_REPS ||
        o->threads < 0 || (o->device && strcmp(o->device, "cpu") && strcmp(o->device, "cuda")))
        return -1;
    return 0;
}

static const char *devname(nd_device d)
{
    static char buf[2][32];
    static int k;
    k ^= 1;
    snprintf(buf[k], sizeof buf[k], "%s:%d", d.type == ND_DEVICE_CUDA ? "cuda" : "cpu", d.id);
    return buf[k];
}

/* Wait for the other ranks without occupying a core. */
static void idle_barrier(MPI_Comm c)
{
    MPI_Request r;
    int done = 0;
    MPI_Ibarrier(c, &r);
    const struct timespec ms = {0, 1000000};
    for (;;) {
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (done) break;
        nanosleep(&ms, NULL);
    }
}

static void sync_dev(nd_device d)
{
    if (d.type == ND_DEVICE_CUDA) CK(nd_synchronize(d));
}

/* The global batch and the weights, the same on every rank (same seeds),
 * on dev; this rank keeps rows [r0, r1). */
static void layer_init(layer *L, int64_t H, int64_t batch, int64_t r0, int64_t r1, nd_device dev)
{
    memset(L, 0, sizeof *L);
    L->H = H, L->rows = r1 - r0, L->dev = dev, L->inv_batch = 1.0 / (double)batch;
    nd_rng *rng = NULL;
    nd_array *X = NULL, *T = NULL, *Xc = NULL, *Tc = NULL, *W1c = NULL, *W2c = NULL;
    CK(nd_rng_create(&rng, 1000 + (uint64_t)H));
    /* generated on the CPU (the same numbers on every device), then moved */
    CK(nd_random_normal(&Xc, rng, ND_FLOAT32, 2, (int64_t[]){batch, H}, 0.0, 1.0, nd_cpu()));
    CK(nd_random_normal(&Tc, rng, ND_FLOAT32, 2, (int64_t[]){batch, H}, 0.0, 1.0, nd_cpu()));
    CK(nd_random_normal(&W1c, rng, ND_FLOAT32, 2, (int64_t[]){H, H}, 0.0, 1.0 / sqrt((double)H), nd_cpu()));
    CK(nd_random_normal(&W2c, rng, ND_FLOAT32, 2, (int64_t[]){H, H}, 0.0, 1.0 / sqrt((double)H), nd_cpu()));
    CK(nd_to_device(&X, Xc, dev));
    CK(nd_to_device(&T, Tc, dev));
    CK(nd_to_device(&L->W1, W1c, dev));
    CK(nd_to_device(&L->W2, W2c, dev));
    nd_range rows = {r0, r1, 1};
    CK(nd_slice(&L->x, X, 1, &rows));
    CK(nd_slice(&L->t, T, 1, &rows));
    CK(nd_empty(&L->h, ND_FLOAT32, 2, (int64_t[]){L->rows, H}, dev));
    CK(nd_empty(&L->y, ND_FLOAT32, 2, (int64_t[]){L->rows, H}, dev));
    CK(nd_empty(&L->dh, ND_FLOAT32, 2, (int64_t[]){L->rows, H}, dev));
    CK(nd_empty(&L->mask, ND_BOOL, 2, (int64_t[]){L->rows, H}, dev));
    CK(nd_zeros(&L->G, ND_FLOAT32, 2, (int64_t[]){2 * H, H}, dev));
    nd_range top = {0, H, 1}, bottom = {H, 2 * H, 1};
    CK(nd_slice(&L->dW1, L->G, 1, &top));
    CK(nd_slice(&L->dW2, L->G, 1, &bottom));
    nd_release(X), nd_release(T), nd_release(Xc), nd_release(Tc), nd_release(W1c), nd_release(W2c);
    nd_rng_destroy(rng);
}

static void layer_free(layer *L)
{
    nd_array *all[] = {L->x, L->t, L->W1, L->W2, L->h, L->y, L->dh, L->mask, L->G, L->dW1, L->dW2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
    memset(L, 0, sizeof *L);
}

/* Forward and backward of this rank's rows: G = this rank's share of the
 * global gradient (scaled by 1 / global batch, so the sum over ranks is
 * the full-batch gradient). Every op writes into an existing array. */
static void compute_step(layer *L)
{
    CK(nd_gemm(&L->h, false, false, 1.0, L->x, L->W1, 0.0));               /* h = x W1 */
    CK(nd_relu(&L->h, L->h));                                               /* in place */
    CK(nd_gemm(&L->y, false, false, 1.0, L->h, L->W2, 0.0));               /* y = h W2 */
    CK(nd_subtract(&L->y, L->y, L->t));                                     /* y - t */
    CK(nd_binary_scalar(&L->y, ND_BINARY_MULTIPLY, L->y, nd_scalar_float(L->inv_batch))); /* dy */
    CK(nd_gemm(&L->dW2, true, false, 1.0, L->h, L->y, 0.0));               /* dW2 = h^T dy */
    CK(nd_gemm(&L->dh, false, true, 1.0, L->y, L->W2, 0.0));               /* dy W2^T */
    CK(nd_binary_scalar(&L->mask, ND_BINARY_GREATER, L->h, nd_scalar_float(0.0)));
    CK(nd_multiply(&L->dh, L->dh, L->mask));                                /* relu' */
    CK(nd_gemm(&L->dW1, true, false, 1.0, L->x, L->dh, 0.0));              /* dW1 = x^T dh */
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[MAX_REPS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static float *to_host(const nd_array *a)
{
    float *p = malloc(nd_nbytes(a));
    if (!p) {
        fprintf(stderr, "scaling: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CK(nd_copy_to_host(p, a, nd_nbytes(a)));
    return p;
}

/* max |a - b| / max |b|, over n entries */
static double rel_diff(const float *a, const float *b, int64_t n, double *maxabs)
{
    double d = 0, m = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs((double)a[i] - (double)b[i]);
        if (e > d || isnan(e)) d = isnan(e) ? INFINITY : e;
        if (fabs((double)b[i]) > m) m = fabs((double)b[i]);
    }
    if (maxabs) *maxabs = m;
    return m > 0 ? d / m : d;
}

/* The full-batch gradient in double precision from L's (full-batch) inputs,
 * compared with L->G. The relu mask is the library's own h > 0 (an entry
 * within rounding of 0 could flip otherwise; its h is ~0 either way). */
static double reference_check(const layer *L)
{
    int64_t B = L->rows, H = L->H;
    float *x = to_host(L->x), *t = to_host(L->t), *W1 = to_host(L->W1), *W2 = to_host(L->W2);
    float *hl = to_host(L->h), *G = to_host(L->G);
    double *h = calloc((size_t)(B * H), sizeof *h), *dy = calloc((size_t)(B * H), sizeof *dy);
    double *dh = calloc((size_t)(B * H), sizeof *dh);
    float *Gr = calloc((size_t)(2 * H * H), sizeof *Gr);
    if (!h || !dy || !dh || !Gr) {
        fprintf(stderr, "scaling: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int64_t i = 0; i < B; i++)
        for (int64_t j = 0; j < H; j++) {
            double s = 0;
            for (int64_t k = 0; k < H; k++) s += (double)x[i * H + k] * W1[k * H + j];
            h[i * H + j] = hl[i * H + j] > 0 ? s : 0.0;
        }
    for (int64_t i = 0; i < B; i++)
        for (int64_t j = 0; j < H; j++) {
            double s = 0;
            for (int64_t k = 0; k < H; k++) s += h[i * H + k] * W2[k * H + j];
            dy[i * H + j] = (s - t[i * H + j]) * L->inv_batch;
        }
    for (int64_t i = 0; i < B; i++)
        for (int64_t j = 0; j < H; j++) {
            double s = 0;
            for (int64_t k = 0; k < H; k++) s += dy[i * H + k] * W2[j * H + k];
            dh[i * H + j] = hl[i * H + j] > 0 ? s : 0.0;
        }
    for (int64_t a = 0; a < H; a++)
        for (int64_t b = 0; b < H; b++) {
            double s1 = 0, s2 = 0;
            for (int64_t i = 0; i < B; i++) {
                s1 += (double)x[i * H + a] * dh[i * H + b];
                s2 += h[i * H + a] * dy[i * H + b];
            }
            Gr[a * H + b] = (float)s1;
            Gr[(H + a) * H + b] = (float)s2;
        }
    double r = rel_diff(G, Gr, 2 * H * H, NULL);
    free(x), free(t), free(W1), free(W2), free(hl), free(G), free(h), free(dy), free(dh), free(Gr);
    return r;
}

typedef struct {
    int64_t H;
    double t1, tn, compute, comm, speedup, check; /* ms; check: relative difference */
} row;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    options o;
    int pr = parse(&o, argc, argv);
    if (pr) {
        if (g_rank == 0) usage();
        MPI_Finalize();
        return pr > 0 ? 0 : 2;
    }

    /* one core per process unless told otherwise */
    int threads = o.threads ? o.threads : 1;
    CK(nd_set_num_threads(threads)); /* libndgpu's threads and OpenBLAS's */

    nd_comm *comm = NULL;
    CK(nd_comm_create(&comm, MPI_COMM_WORLD));
    int rank = nd_comm_rank(comm), size = nd_comm_size(comm);
    MPI_Comm world = MPI_COMM_WORLD; /* our own barriers; the library keeps its duplicate */

    nd_device dev = nd_comm_device(comm);
    if (o.device && !strcmp(o.device, "cpu")) dev = nd_cpu();
    else if (o.device && !strcmp(o.device, "cuda") && dev.type != ND_DEVICE_CUDA) {
        int n = nd_cuda_device_count();
        if (n > 0) dev = nd_cuda(nd_comm_local_rank(comm) % n);
        else if (rank == 0) printf("scaling: --device cuda but no usable GPU (%s): running on the CPU\n", nd_build_info());
    }
    if (o.batch < size) {
        if (rank == 0) fprintf(stderr, "scaling: --batch %lld is smaller than %d processes\n", (long long)o.batch, size);
        nd_comm_destroy(comm);
        MPI_Finalize();
        return 2;
    }

    if (rank == 0) {
        printf("scaling: data-parallel training step of a 2-layer MLP (relu, square hidden size H), float32,\n"
               "scaling: global batch %lld rows, on %s (rank 0; each rank uses its own device), transport %s\n",
               (long long)o.batch, devname(dev), nd_comm_transport(comm, dev));
        if (dev.type == ND_DEVICE_CPU)
            printf("scaling: %d thread(s) per process (libndgpu and OpenBLAS: %d)%s\n", threads, nd_get_num_threads(),
                   o.threads ? " (--threads)"
                             : ": 1 process = 1 core, 2 processes = 2 cores (--threads N changes it)");
        printf("scaling: medians of %d repetitions after a warm-up; step = 5 matmuls (x W1, h W2, h^T dy, dy W2^T, "
               "x^T dh) + allreduce of the 2 H^2 gradient\n",
               o.reps);
        if (size == 1) printf("scaling: 1 process: only the 1-process column, no comparison (run under mpirun -np 2)\n");
        fflush(stdout);
    }

    row rows[MAX_SIZES];
    int nrows = 0, failed = 0;
    double t1s[MAX_REPS], loc[2 * MAX_REPS], mx[2 * MAX_REPS];
    for (int64_t H = o.min_hidden; H <= o.max_hidden && nrows < MAX_SIZES; H *= 2) {
        row *R = &rows[nrows++];
        memset(R, 0, sizeof *R);
        R->H = H;
        float *G1 = NULL;

        /* 1 process: rank 0 does the whole batch, the others sleep */
        if (rank == 0) {
            layer L;
            layer_init(&L, H, o.batch, 0, o.batch, dev);
            compute_step(&L); /* warm-up */
            sync_dev(dev);
            for (int r = 0; r < o.reps; r++) {
                double t0 = MPI_Wtime();
                compute_step(&L);
                sync_dev(dev);
                t1s[r] = MPI_Wtime() - t0;
            }
            R->t1 = 1e3 * median(t1s, o.reps);
            if (size > 1) G1 = to_host(L.G);
            if (nrows == 1) {
                double d = reference_check(&L);
                printf("scaling: check: H=%lld full-batch gradient vs a float64 reference: relative error %.2e (%s)\n",
                       (long long)H, d, d <= 1e-4 ? "ok" : "WRONG");
                if (!(d <= 1e-4)) failed = 1;
            }
            layer_free(&L);
        }
        idle_barrier(world);

        /* N processes: B / N rows each, then the allreduce of the gradient */
        if (size > 1) {
            int64_t r0 = o.batch * rank / size, r1 = o.batch * (rank + 1) / size;
            layer L;
            layer_init(&L, H, o.batch, r0, r1, dev);
            compute_step(&L); /* warm-up, also of the communicator's first use */
            CK(nd_allreduce(comm, L.G, ND_COMM_SUM));
            sync_dev(dev);
            for (int r = 0; r < o.reps; r++) {
                MPI_Barrier(world);
                double t0 = MPI_Wtime();
                compute_step(&L);
                sync_dev(dev);
                double t1 = MPI_Wtime();
                CK(nd_allreduce(comm, L.G, ND_COMM_SUM));
                sync_dev(dev);
                double t2 = MPI_Wtime();
                loc[2 * r] = t1 - t0;     /* compute */
                loc[2 * r + 1] = t2 - t0; /* step */
            }
            MPI_Reduce(loc, mx, 2 * o.reps, MPI_DOUBLE, MPI_MAX, 0, world);
            /* the gradient: the sum over ranks must be the 1-process one */
            if (rank == 0) {
                double steps[MAX_REPS];
                for (int r = 0; r < o.reps; r++) steps[r] = mx[2 * r + 1];
                double med = median(steps, o.reps);
                int best = 0;
                for (int r = 1; r < o.reps; r++)
                    if (fabs(steps[r] - med) < fabs(steps[best] - med)) best = r;
                /* the median repetition (the one nearest it for an even count) */
                R->tn = 1e3 * steps[best];
                R->compute = 1e3 * mx[2 * best];
                R->comm = R->tn - R->compute; /* >= 0: each rank's step includes its compute */
                R->speedup = R->t1 / R->tn;
                float *Gn = to_host(L.G);
                R->check = rel_diff(Gn, G1, 2 * H * H, NULL);
                free(Gn);
                if (!(R->check <= 1e-4)) {
                    printf("scaling: WRONG: H=%lld: the allreduced gradient differs from the 1-process one by %.2e "
                           "(relative)\n",
                           (long long)H, R->check);
                    failed = 1;
                }
            }
            layer_free(&L);
        }
        free(G1);
        if (rank == 0) {
            if (size > 1)
                printf("scaling: H=%-5lld 1 proc %9.3f ms   %d procs %9.3f ms (compute %8.3f + comm %8.3f)   %.2fx\n",
                       (long long)H, R->t1, size, R->tn, R->compute, R->comm, R->speedup);
            else
                printf("scaling: H=%-5lld 1 proc %9.3f ms\n", (long long)H, R->t1);
            fflush(stdout);
        }
    }

    if (rank == 0) {
        printf("\n%6s %10s %14s", "H", "params", "1 proc ms/step");
        if (size > 1) printf("   %2d procs ms/step = compute +    comm   speedup   check", size);
        printf("\n");
        for (int i = 0; i < nrows; i++) {
            const row *R = &rows[i];
            printf("%6lld %10lld %14.3f", (long long)R->H, (long long)(2 * R->H * R->H), R->t1);
            if (size > 1)
                printf("   %16.3f = %7.3f + %7.3f   %6.2fx   %.1e", R->tn, R->compute, R->comm, R->speedup, R->check);
            printf("\n");
        }
        printf("\n");
        if (size > 1) {
            int nfast = 0, last_slow = -1;
            for (int i = 0; i < nrows; i++) {
                if (rows[i].speedup > 1.0) nfast++;
                else last_slow = i;
            }
            if (nfast == nrows) printf("scaling: %d processes are faster at every size measured\n", size);
            else if (nfast == 0) printf("scaling: %d processes are slower at every size measured\n", size);
            else {
                /* from_i: the first size from which every larger one is faster */
                int from_i = last_slow + 1, below_fast = 0;
                for (int i = 0; i < last_slow; i++) below_fast += rows[i].speedup > 1.0;
                if (from_i == nrows) printf("scaling: %d processes are slower at the largest size measured (H=%lld)",
                                            size, (long long)rows[last_slow].H);
                else if (!below_fast)
                    printf("scaling: %d processes are slower below H=%lld (faster from H=%lld up)", size,
                           (long long)rows[from_i].H, (long long)rows[from_i].H);
                else
                    printf("scaling: %d processes are faster from H=%lld up", size, (long long)rows[from_i].H);
                if (below_fast || from_i == nrows) {
                    printf("; %s (within noise where the speedup is near 1): slower at H=",
                           from_i < nrows ? "below that mixed" : "mixed");
                    for (int i = 0, k = 0; i < from_i && i < nrows; i++)
                        if (!(rows[i].speedup > 1.0)) printf("%s%lld", k++ ? "," : "", (long long)rows[i].H);
                    printf(", faster at H=");
                    for (int i = 0, k = 0; i < from_i && i < nrows; i++)
                        if (rows[i].speedup > 1.0) printf("%s%lld", k++ ? "," : "", (long long)rows[i].H);
                }
                printf("\n");
            }
            printf("scaling: with %d processes the compute ideally shrinks by that factor, the allreduce of the "
                   "2 H^2 gradient not at all; speedup = 1-proc / (compute + comm)\n",
                   size);
        }
        for (int i = 0; i < nrows; i++) {
            const row *R = &rows[i];
            printf("JSON {\"bench\": \"mpi_scaling\", \"hidden\": %lld, \"params\": %lld, \"batch\": %lld, "
                   "\"procs\": %d, \"threads\": %d, \"device\": \"%s\", \"transport\": \"%s\", \"reps\": %d, "
                   "\"t1_ms\": %.6g",
                   (long long)R->H, (long long)(2 * R->H * R->H), (long long)o.batch, size, threads, devname(dev),
                   nd_comm_transport(comm, dev), o.reps, R->t1);
            if (size > 1)
                printf(", \"tn_ms\": %.6g, \"compute_ms\": %.6g, \"comm_ms\": %.6g, \"speedup\": %.6g, "
                       "\"grad_rel_diff\": %.3g}\n",
                       R->tn, R->compute, R->comm, R->speedup, R->check);
            else printf(", \"tn_ms\": null, \"compute_ms\": null, \"comm_ms\": null, \"speedup\": null}\n");
        }
    }

    MPI_Bcast(&failed, 1, MPI_INT, 0, world);
    CK(nd_comm_destroy(comm));
    if (rank == 0) printf(failed ? "scaling: FAILED\n" : "scaling: done\n");
    MPI_Finalize();
    return failed ? 1 : 0;
}
