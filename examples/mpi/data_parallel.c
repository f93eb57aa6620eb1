// data_parallel.c - data-parallel logistic regression with libndgpu_mpi.
// expect: data_parallel: OK
// args: --steps 40
//
//   mpirun -np 2 build/examples/mpi/data_parallel [--device cpu|cuda]
//                                                 [--steps N] [--samples N]
//   (any number of processes works, -np 1 included)
//
// DATA PARALLELISM. Every rank holds a full copy of the model but only a
// shard of the data: rank r of P owns rows [r N / P, (r + 1) N / P). A
// training step is
//
//   1. local:   g_r = sum over my rows of dloss/dw          (no communication)
//   2. global:  g   = g_0 + g_1 + ... + g_{P-1}            (nd_allreduce SUM)
//   3. local:   w  -= lr * g / N                           (same on every rank)
//
// After step 2 every rank holds the gradient of the WHOLE data set, so every
// rank applies the same update to the same weights: the replicas never
// drift apart, and the result is the single-process full-batch training up
// to the order of the float32 additions. Summing (not averaging) the shards'
// gradients and dividing by the global N makes uneven shards exact
// (ND_COMM_AVG of per-shard means is the same only when the shards are
// equal). The program checks all of that itself:
//   - rank 0 repeats the training alone on the full data (no communication)
//     and compares the final weights: max |w - w_ref| <= 1e-4 (relative);
//   - the loss decreased;
//   - every rank's weights are bit-identical to rank 0's (nd_broadcast of
//     rank 0's weights, then an exact comparison on each rank);
// and the verdict is agreed with an allreduce MIN, so that every rank exits
// 0 on success and 1 on failure.
//
// Data: N samples x D features, X ~ N(0, 1), y = [X w* + 0.3 + noise > 0],
// drawn with the library's Philox generator directly on the device: every
// rank and every device sees the same numbers, so each rank can generate
// the full set and keep its rows. A column of ones is appended to X, so the
// bias is the last weight and one gradient array (one allreduce) per step
// carries everything.
// Model: p = sigmoid(X w), loss = mean(softplus(X w) - y X w) (the log loss
// written without log(0)); its gradient is X^T (p - y) / N.
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ndgpu.h"
#include "ndgpu_mpi.h"

static int g_rank; /* this process's rank, for messages */

/* Every nd_status is checked: on failure, say where and why, and end the
 * whole job (the other ranks would otherwise wait in the next collective). */
#define CHECK(call)                                                                                   \
    do {                                                                                              \
        nd_status st_ = (call);                                                                       \
        if (st_ != ND_OK) {                                                                           \
            fprintf(stderr, "data_parallel: rank %d: %s:%d: %s failed: %s: %s\n", g_rank, __FILE__,  \
                    __LINE__, #call, nd_status_name(st_), nd_last_error());                           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                             \
        }                                                                                             \
    } while (0)

/* The synthetic data set, full size, on dev: Xa (N, D + 1) with a last
 * column of ones, y (N, 1) float32 labels in {0, 1}. */
static void make_data(nd_array **Xa, nd_array **y, int64_t n, int64_t d, nd_device dev)
{
    nd_rng *rng = NULL;
    nd_array *X = NULL, *w_true = NULL, *noise = NULL, *logits = NULL, *pos = NULL, *ones = NULL;
    CHECK(nd_rng_create(&rng, 2024));
    CHECK(nd_random_normal(&X, rng, ND_FLOAT32, 2, (int64_t[]){n, d}, 0.0, 1.0, dev));
    CHECK(nd_random_normal(&w_true, rng, ND_FLOAT32, 2, (int64_t[]){d, 1}, 0.0, 1.0, dev));
    CHECK(nd_random_normal(&noise, rng, ND_FLOAT32, 2, (int64_t[]){n, 1}, 0.0, 0.5, dev));
    CHECK(nd_matmul(&logits, X, w_true));
    CHECK(nd_add(&logits, logits, noise));
    CHECK(nd_binary_scalar(&logits, ND_BINARY_ADD, logits, nd_scalar_float(0.3)));
    CHECK(nd_binary_scalar(&pos, ND_BINARY_GREATER, logits, nd_scalar_float(0.0))); /* bool */
    CHECK(nd_astype(y, pos, ND_FLOAT32));
    CHECK(nd_ones(&ones, ND_FLOAT32, 2, (int64_t[]){n, 1}, dev));
    CHECK(nd_concatenate(Xa, 2, (const nd_array *const[]){X, ones}, 1));
    nd_release(X), nd_release(w_true), nd_release(noise), nd_release(logits), nd_release(pos);
    nd_release(ones);
    nd_rng_destroy(rng);
}

/* Mean log loss over all n_total rows: this rank's rows give a partial sum,
 * the allreduce adds the other ranks' (comm NULL: X, y are all the data). */
static double global_loss(nd_comm *comm, const nd_array *X, const nd_array *y, const nd_array *w, int64_t n_total)
{
    nd_array *z = NULL, *sp = NULL, *yz = NULL, *sum = NULL;
    CHECK(nd_matmul(&z, X, w));                                                   /* z = X w */
    CHECK(nd_binary_scalar(&sp, ND_BINARY_LOGADDEXP, z, nd_scalar_float(0.0)));  /* softplus(z) */
    CHECK(nd_multiply(&yz, y, z));                                                /* y z */
    CHECK(nd_subtract(&sp, sp, yz));                                              /* per-row loss */
    CHECK(nd_reduce_dtype(&sum, ND_REDUCE_SUM, sp, 0, NULL, false, ND_FLOAT64)); /* 0-d float64 */
    if (comm) CHECK(nd_allreduce(comm, sum, ND_COMM_SUM));
    double s;
    CHECK(nd_copy_to_host(&s, sum, sizeof s));
    nd_release(z), nd_release(sp), nd_release(yz), nd_release(sum);
    return s / (double)n_total;
}

/* steps of full-batch gradient descent on w (in place). With comm, X and y
 * are this rank's shard and the gradient sums are allreduced; with comm
 * NULL, X and y are the whole data set and nothing is communicated. The
 * temporaries are allocated on the first step and then reused (the out
 * rule: an existing *out is written into). */
static void train(nd_comm *comm, nd_array *w, const nd_array *X, const nd_array *y, int64_t n_total, int steps,
                  double lr)
{
    nd_array *z = NULL, *p = NULL, *g = NULL;
    for (int s = 0; s < steps; s++) {
        CHECK(nd_matmul(&z, X, w));                         /* z = X w          (n, 1) */
        CHECK(nd_sigmoid(&p, z));                           /* p = sigmoid(z) */
        CHECK(nd_subtract(&p, p, y));                       /* dloss/dz = p - y */
        CHECK(nd_gemm(&g, true, false, 1.0, X, p, 0.0));    /* g = X^T (p - y)  (D + 1, 1): a SUM over rows */
        if (comm) CHECK(nd_allreduce(comm, g, ND_COMM_SUM)); /* ... over every rank's rows */
        CHECK(nd_binary_scalar(&g, ND_BINARY_MULTIPLY, g, nd_scalar_float(lr / (double)n_total)));
        CHECK(nd_subtract(&w, w, g));                       /* w -= lr * mean gradient */
    }
    nd_release(z), nd_release(p), nd_release(g);
}

/* max |a - b| and max |b| over all elements. */
static void max_abs_diff(double *diff, double *scale, const nd_array *a, const nd_array *b)
{
    nd_array *d = NULL, *m = NULL;
    float v;
    CHECK(nd_subtract(&d, a, b));
    CHECK(nd_abs(&d, d));
    CHECK(nd_max(&m, d, 0, NULL, false)); /* 0-d float32 */
    CHECK(nd_copy_to_host(&v, m, sizeof v));
    *diff = v;
    CHECK(nd_abs(&d, b));
    CHECK(nd_max(&m, d, 0, NULL, false));
    CHECK(nd_copy_to_host(&v, m, sizeof v));
    *scale = v;
    nd_release(d), nd_release(m);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);

    /* Every rank parses the same arguments, so every rank takes the same branch. */
    int steps = 100;
    int64_t n = 4096;
    const int64_t d = 16;
    const double lr = 0.5;
    const char *devarg = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            devarg = argv[++i];
        } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            steps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
            n = atoll(argv[++i]);
        } else {
            devarg = "?";
            break;
        }
    }
    if (steps < 1 || n < 1 || (devarg && strcmp(devarg, "cpu") != 0 && strncmp(devarg, "cuda", 4) != 0)) {
        if (g_rank == 0)
            fprintf(stderr, "usage: data_parallel [--device cpu|cuda] [--steps N >= 1] [--samples N >= 1]\n");
        MPI_Finalize();
        return 2;
    }

    nd_comm *comm = NULL;
    CHECK(nd_comm_create(&comm, MPI_COMM_WORLD));
    const int rank = nd_comm_rank(comm), size = nd_comm_size(comm);

    /* The device: nd_comm_device (one GPU per process when there are GPUs,
     * else the CPU) unless --device says otherwise. */
    nd_device dev = nd_comm_device(comm);
    if (devarg && strcmp(devarg, "cpu") == 0) {
        dev = nd_cpu();
    } else if (devarg) {
        int ngpu = nd_cuda_device_count();
        if (ngpu > 0) dev = nd_cuda(nd_comm_local_rank(comm) % ngpu);
        else {
            dev = nd_cpu();
            if (rank == 0) printf("--device cuda: no usable GPU, running on the CPU\n");
        }
    }
    if (rank == 0)
        printf("data_parallel: %d ranks, %lld samples x %lld features (+ bias), %d steps, lr %g, %s:%d, "
               "transport %s\n",
               size, (long long)n, (long long)d, steps, lr, dev.type == ND_DEVICE_CUDA ? "cuda" : "cpu", dev.id,
               nd_comm_transport(comm, dev));

    /* Every rank generates the whole data set (same seed, same numbers) and
     * keeps its rows as a view. */
    nd_array *X = NULL, *y = NULL, *Xs = NULL, *ys = NULL;
    make_data(&X, &y, n, d, dev);
    const int64_t lo = rank * n / size, hi = (rank + 1) * n / size;
    nd_range rows = {lo, hi, 1};
    CHECK(nd_slice(&Xs, X, 1, &rows));
    CHECK(nd_slice(&ys, y, 1, &rows));

    /* Shard sizes, gathered to every rank: a 0-d array per rank gives a
     * 1-d array of size entries. */
    nd_array *mine = NULL, *all = NULL;
    int64_t nrows = hi - lo;
    CHECK(nd_from_host(&mine, &nrows, ND_INT64, 0, NULL, nd_cpu()));
    CHECK(nd_allgather(comm, &all, mine));
    if (rank == 0) {
        int64_t *counts = malloc((size_t)size * sizeof *counts);
        if (!counts) MPI_Abort(MPI_COMM_WORLD, 1);
        CHECK(nd_copy_to_host(counts, all, (size_t)size * sizeof *counts));
        for (int r = 0; r < size; r++) printf("  rank %d: %lld rows\n", r, (long long)counts[r]);
        free(counts);
    }

    /* Data-parallel training from w = 0. */
    nd_array *w = NULL;
    CHECK(nd_zeros(&w, ND_FLOAT32, 2, (int64_t[]){d + 1, 1}, dev));
    const double loss0 = global_loss(comm, Xs, ys, w, n);
    double t0 = MPI_Wtime();
    train(comm, w, Xs, ys, n, steps, lr);
    CHECK(nd_synchronize(dev));
    double seconds = MPI_Wtime() - t0;
    const double loss1 = global_loss(comm, Xs, ys, w, n);
    int ok = loss1 < 0.8 * loss0;
    if (rank == 0)
        printf("  loss %.6f -> %.6f (%s) in %.3f s\n", loss0, loss1, ok ? "decreased" : "DID NOT DECREASE",
               seconds);

    /* The replicas must be identical: broadcast rank 0's weights and compare
     * exactly on every rank. */
    nd_array *w0 = NULL;
    bool same = false;
    CHECK(nd_copy(&w0, w));
    CHECK(nd_broadcast(comm, w0, 0));
    CHECK(nd_array_equal(&same, w, w0, false));
    if (!same) {
        printf("  rank %d: weights differ from rank 0's\n", rank);
        ok = 0;
    }

    /* Rank 0: the same training alone, on all rows, without communication. */
    if (rank == 0) {
        nd_array *w_ref = NULL;
        double diff, scale;
        CHECK(nd_zeros(&w_ref, ND_FLOAT32, 2, (int64_t[]){d + 1, 1}, dev));
        train(NULL, w_ref, X, y, n, steps, lr);
        const double loss_ref = global_loss(NULL, X, y, w_ref, n);
        max_abs_diff(&diff, &scale, w, w_ref);
        const int agree = diff <= 1e-4 * fmax(1.0, scale);
        printf("  single process: loss %.6f; max |w - w_single| = %.3g (max |w| %.3g): %s\n", loss_ref, diff, scale,
               agree ? "agrees" : "MISMATCH");
        ok = ok && agree;
        nd_release(w_ref);
    }

    /* One verdict for all: the minimum of every rank's ok flag. */
    nd_array *flag = NULL;
    int32_t okv = ok;
    CHECK(nd_from_host(&flag, &okv, ND_INT32, 0, NULL, nd_cpu()));
    CHECK(nd_allreduce(comm, flag, ND_COMM_MIN));
    CHECK(nd_copy_to_host(&okv, flag, sizeof okv));
    if (rank == 0) {
        if (okv) printf("data_parallel: OK (%d ranks: identical weights, equal to the single-process run)\n", size);
        else printf("data_parallel: FAILED\n");
    }

    nd_release(X), nd_release(y), nd_release(Xs), nd_release(ys), nd_release(mine), nd_release(all);
    nd_release(w), nd_release(w0), nd_release(flag);
    CHECK(nd_comm_destroy(comm));
    MPI_Finalize();
    return okv ? 0 : 1;
}
