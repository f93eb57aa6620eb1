// model_parallel.c - tensor (Megatron-style) model parallelism for a two-layer MLP with libndgpu_mpi.
// expect: model_parallel: OK
// args: --steps 10
//
//   mpirun -np 2 build/examples/mpi/model_parallel [--device cpu|cuda]
//                                                  [--steps N] [--hidden H]
//   (any number of processes P that divides H, -np 1 included; H = 64)
//
// MODEL PARALLELISM. Data parallelism (data_parallel.c) copies the model and
// splits the data; tensor parallelism splits the MODEL: each rank holds a
// slice of every weight matrix, so a model too big for one device fits on
// P of them. For the MLP  Y = relu(X W1) W2  (X [B, D], W1 [D, H], W2 [H, C])
// Megatron-LM splits the hidden dimension H:
//
//   W1 by COLUMNS: rank r holds W1_r = W1[:, r H/P : (r+1) H/P]   [D, H/P]
//   W2 by ROWS:    rank r holds W2_r = W2[r H/P : (r+1) H/P, :]   [H/P, C]
//
// Column r of X W1 needs only column r of W1, and relu acts elementwise, so
// rank r computes its own hidden units A_r = relu(X W1_r) with no
// communication. The second product is a sum over the hidden units,
//   Y = A W2 = A_0 W2_0 + A_1 W2_1 + ... + A_{P-1} W2_{P-1},
// so each rank computes a partial Y_r = A_r W2_r [B, C] and ONE
// nd_allreduce(SUM) per forward pass gives the full Y on every rank. (A bias
// on the output would be added once, after the allreduce; this MLP has none.)
//
// The backward pass needs no communication at all: the loss gradient dY is
// computed from the full Y, so it is replicated, and (X being the input, it
// needs no gradient)
//   dW2_r = A_r^T dY              [H/P, C]  the rows of dW2 this rank owns
//   dA_r  = dY W2_r^T             [B, H/P]  the gradient of my hidden units
//   dW1_r = X^T (dA_r * [X W1_r > 0])  [D, H/P]  relu's derivative is a mask
// (In a deeper network the gradient of X, a sum over ranks, would need the
// matching allreduce in the backward pass.)
//
// Loss: mean squared error against a synthetic target (a random "teacher"
// MLP of the same shape), L = mean((Y - T)^2), dY = 2 (Y - T) / (B C).
// The program checks itself: rank 0 trains the unsplit model (the full W1
// and W2 from the same seed, so the shards are exact slices of it) for the
// same steps without communication; the shards are then gathered
// (nd_allgather concatenates along axis 0: W2's row shards directly, W1's
// column shards through their transposes, giving W1^T) and must equal the
// unsplit weights within 1e-4 (relative), and the loss must have decreased.
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
            fprintf(stderr, "model_parallel: rank %d: %s:%d: %s failed: %s: %s\n", g_rank, __FILE__, \
                    __LINE__, #call, nd_status_name(st_), nd_last_error());                           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                             \
        }                                                                                             \
    } while (0)

/* A two-layer MLP (or this rank's slice of one) and its temporaries, which
 * are allocated on the first step and then reused (the out rule: an
 * existing *out is written into). */
typedef struct mlp {
    nd_array *W1, *W2;                   /* [D, h] and [h, C]; h = H/P for a shard, H unsplit */
    nd_array *Z, *A, *Y, *E, *sq, *mask; /* forward: X W1, relu, output, error, error^2 */
    nd_array *dA, *dW1, *dW2, *loss;     /* backward */
} mlp;

static void mlp_release(mlp *m)
{
    nd_array **all[] = {&m->W1, &m->W2, &m->Z,  &m->A,   &m->Y,   &m->E,
                        &m->sq, &m->mask, &m->dA, &m->dW1, &m->dW2, &m->loss};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        nd_release(*all[i]);
        *all[i] = NULL;
    }
}

/* Forward pass and loss; with comm, m is a shard and the partial outputs
 * are summed over the ranks (the only communication). Returns the loss. */
static double forward(nd_comm *comm, mlp *m, const nd_array *X, const nd_array *T)
{
    CHECK(nd_matmul(&m->Z, X, m->W1));                    /* Z_r = X W1_r      [B, h] */
    CHECK(nd_relu(&m->A, m->Z));                          /* A_r = relu(Z_r) */
    CHECK(nd_matmul(&m->Y, m->A, m->W2));                 /* Y_r = A_r W2_r    [B, C], partial */
    if (comm) CHECK(nd_allreduce(comm, m->Y, ND_COMM_SUM)); /* Y = sum_r Y_r, on every rank */
    CHECK(nd_subtract(&m->E, m->Y, T));                   /* E = Y - T */
    CHECK(nd_square(&m->sq, m->E));                       /* E^2 */
    CHECK(nd_reduce_dtype(&m->loss, ND_REDUCE_MEAN, m->sq, 0, NULL, false, ND_FLOAT64));
    double loss;
    CHECK(nd_copy_to_host(&loss, m->loss, sizeof loss));
    return loss;
}

/* One SGD step (after forward): the hand-written backward pass, entirely
 * local to the shard. */
static void backward_step(mlp *m, const nd_array *X, double lr)
{
    const int64_t *ys = nd_shape(m->Y);
    const double scale = 2.0 / (double)(ys[0] * ys[1]);
    CHECK(nd_binary_scalar(&m->E, ND_BINARY_MULTIPLY, m->E, nd_scalar_float(scale))); /* dY = 2 E / (B C) */
    CHECK(nd_gemm(&m->dW2, true, false, 1.0, m->A, m->E, 0.0));   /* dW2_r = A_r^T dY   [h, C] */
    CHECK(nd_gemm(&m->dA, false, true, 1.0, m->E, m->W2, 0.0));   /* dA_r = dY W2_r^T   [B, h] */
    CHECK(nd_binary_scalar(&m->mask, ND_BINARY_GREATER, m->Z, nd_scalar_float(0.0))); /* relu' (bool) */
    CHECK(nd_multiply(&m->dA, m->dA, m->mask));                   /* dZ_r = dA_r * [Z_r > 0] */
    CHECK(nd_gemm(&m->dW1, true, false, 1.0, X, m->dA, 0.0));     /* dW1_r = X^T dZ_r   [D, h] */
    CHECK(nd_binary_scalar(&m->dW1, ND_BINARY_MULTIPLY, m->dW1, nd_scalar_float(lr)));
    CHECK(nd_binary_scalar(&m->dW2, ND_BINARY_MULTIPLY, m->dW2, nd_scalar_float(lr)));
    CHECK(nd_subtract(&m->W1, m->W1, m->dW1));                    /* W -= lr dW */
    CHECK(nd_subtract(&m->W2, m->W2, m->dW2));
}

/* steps of SGD; *loss0 = the loss before, returns the loss after. */
static double train(nd_comm *comm, mlp *m, const nd_array *X, const nd_array *T, int steps, double lr,
                    double *loss0, int verbose)
{
    for (int s = 0; s < steps; s++) {
        double loss = forward(comm, m, X, T);
        if (s == 0) *loss0 = loss;
        if (verbose && (s % 5 == 0)) printf("  step %3d  loss %.6f\n", s, loss);
        backward_step(m, X, lr);
    }
    return forward(comm, m, X, T);
}

/* max |a - b| and max |b| over all elements (any layouts). */
static void max_abs_diff(double *diff, double *scale, const nd_array *a, const nd_array *b)
{
    nd_array *d = NULL, *mx = NULL;
    CHECK(nd_subtract(&d, a, b));
    CHECK(nd_abs(&d, d));
    CHECK(nd_max(&mx, d, 0, NULL, false));
    float v;
    CHECK(nd_copy_to_host(&v, mx, sizeof v));
    *diff = v;
    nd_release(d), d = NULL;
    CHECK(nd_abs(&d, b));
    CHECK(nd_max(&mx, d, 0, NULL, false));
    CHECK(nd_copy_to_host(&v, mx, sizeof v));
    *scale = v;
    nd_release(d), nd_release(mx);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);

    int steps = 20, hidden = 64;
    const int64_t B = 256, D = 32, C = 8;
    const double lr = 0.1;
    const char *devarg = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            devarg = argv[++i];
        } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            steps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--hidden") == 0 && i + 1 < argc) {
            hidden = atoi(argv[++i]);
        } else {
            devarg = "?";
            break;
        }
    }
    if (steps < 1 || hidden < 1 || (devarg && strcmp(devarg, "cpu") != 0 && strncmp(devarg, "cuda", 4) != 0)) {
        if (g_rank == 0)
            fprintf(stderr, "usage: model_parallel [--device cpu|cuda] [--steps N >= 1] [--hidden H >= 1]\n");
        MPI_Finalize();
        return 2;
    }

    nd_comm *comm = NULL;
    CHECK(nd_comm_create(&comm, MPI_COMM_WORLD));
    const int rank = nd_comm_rank(comm), size = nd_comm_size(comm);
    const int64_t H = hidden, h = H / size; /* h: this rank's hidden units */
    if (H % size != 0) {
        if (rank == 0)
            fprintf(stderr, "model_parallel: --hidden %lld is not divisible by the %d ranks\n", (long long)H, size);
        CHECK(nd_comm_destroy(comm));
        MPI_Finalize();
        return 2;
    }

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
        printf("model_parallel: %d ranks, MLP %lld -> %lld -> %lld, batch %lld, %lld hidden units per rank, "
               "%d steps, lr %g, %s:%d\n",
               size, (long long)D, (long long)H, (long long)C, (long long)B, (long long)h, steps, lr,
               dev.type == ND_DEVICE_CUDA ? "cuda" : "cpu", dev.id);

    /* Data, the teacher that makes the target, and the initial model: the
     * same seed on every rank, generated directly on the device. */
    nd_rng *rng = NULL;
    nd_array *X = NULL, *U1 = NULL, *U2 = NULL, *W1 = NULL, *W2 = NULL, *T = NULL, *view = NULL;
    CHECK(nd_rng_create(&rng, 42));
    CHECK(nd_random_normal(&X, rng, ND_FLOAT32, 2, (int64_t[]){B, D}, 0.0, 1.0, dev));
    CHECK(nd_random_normal(&U1, rng, ND_FLOAT32, 2, (int64_t[]){D, H}, 0.0, 1.0 / sqrt((double)D), dev));
    CHECK(nd_random_normal(&U2, rng, ND_FLOAT32, 2, (int64_t[]){H, C}, 0.0, 1.0 / sqrt((double)H), dev));
    CHECK(nd_random_normal(&W1, rng, ND_FLOAT32, 2, (int64_t[]){D, H}, 0.0, 1.0 / sqrt((double)D), dev));
    CHECK(nd_random_normal(&W2, rng, ND_FLOAT32, 2, (int64_t[]){H, C}, 0.0, 1.0 / sqrt((double)H), dev));
    nd_rng_destroy(rng);
    CHECK(nd_matmul(&view, X, U1)); /* T = relu(X U1) U2 */
    CHECK(nd_relu(&view, view));
    CHECK(nd_matmul(&T, view, U2));
    nd_release(view), view = NULL;

    /* This rank's shard: W1's columns and W2's rows [r h, (r + 1) h),
     * copied out of the full matrices (so they are exact slices of them). */
    mlp shard = {0};
    const nd_range cols[2] = {ND_ALL, {rank * h, (rank + 1) * h, 1}};
    CHECK(nd_slice(&view, W1, 2, cols));
    CHECK(nd_copy(&shard.W1, view)); /* [D, h], C-contiguous */
    nd_release(view), view = NULL;
    const nd_range rows = {rank * h, (rank + 1) * h, 1};
    CHECK(nd_slice(&view, W2, 1, &rows));
    CHECK(nd_copy(&shard.W2, view)); /* [h, C] */
    nd_release(view), view = NULL;

    double loss0, t0 = MPI_Wtime();
    const double loss1 = train(comm, &shard, X, T, steps, lr, &loss0, rank == 0);
    CHECK(nd_synchronize(dev));
    const double seconds = MPI_Wtime() - t0;
    int ok = loss1 < 0.9 * loss0;
    if (rank == 0)
        printf("  tensor parallel: loss %.6f -> %.6f (%s) in %.3f s\n", loss0, loss1,
               ok ? "decreased" : "DID NOT DECREASE", seconds);

    /* Reassemble the full weights on every rank: W2's row shards stack
     * along axis 0 as they are; W1's column shards are rows of W1^T. */
    nd_array *W2_all = NULL, *W1T_all = NULL, *W1T_shard = NULL;
    CHECK(nd_allgather(comm, &W2_all, shard.W2));       /* [H, C] */
    CHECK(nd_transpose(&W1T_shard, shard.W1, NULL));    /* [h, D], a strided view */
    CHECK(nd_allgather(comm, &W1T_all, W1T_shard));     /* [H, D] = W1^T */

    /* Rank 0: the unsplit model, the same steps, no communication. */
    if (rank == 0) {
        mlp full = {0};
        double ref0, d1, s1, d2, s2;
        nd_array *W1T_ref = NULL;
        CHECK(nd_copy(&full.W1, W1)); /* copies: train updates them in place */
        CHECK(nd_copy(&full.W2, W2));
        const double ref1 = train(NULL, &full, X, T, steps, lr, &ref0, 0);
        CHECK(nd_transpose(&W1T_ref, full.W1, NULL));
        max_abs_diff(&d1, &s1, W1T_all, W1T_ref);
        max_abs_diff(&d2, &s2, W2_all, full.W2);
        const int agree = d1 <= 1e-4 * fmax(1.0, s1) && d2 <= 1e-4 * fmax(1.0, s2) &&
                          fabs(loss1 - ref1) <= 1e-4 * fmax(1.0, ref1) && fabs(loss0 - ref0) <= 1e-4 * fmax(1.0, ref0);
        printf("  unsplit model:   loss %.6f -> %.6f\n", ref0, ref1);
        printf("  gathered shards vs unsplit: max |dW1| = %.3g (max |W1| %.3g), max |dW2| = %.3g (max |W2| %.3g): "
               "%s\n", d1, s1, d2, s2, agree ? "agree" : "MISMATCH");
        ok = ok && agree;
        nd_release(W1T_ref);
        mlp_release(&full);
    }

    /* One verdict for all: the minimum of every rank's ok flag. */
    nd_array *flag = NULL;
    int32_t okv = ok;
    CHECK(nd_from_host(&flag, &okv, ND_INT32, 0, NULL, nd_cpu()));
    CHECK(nd_allreduce(comm, flag, ND_COMM_MIN));
    CHECK(nd_copy_to_host(&okv, flag, sizeof okv));
    if (rank == 0) {
        if (okv) printf("model_parallel: OK (%d ranks: the sharded MLP trains exactly as the unsplit one)\n", size);
        else printf("model_parallel: FAILED\n");
    }

    mlp_release(&shard);
    nd_release(X), nd_release(U1), nd_release(U2), nd_release(W1), nd_release(W2), nd_release(T);
    nd_release(W2_all), nd_release(W1T_all), nd_release(W1T_shard), nd_release(flag);
    CHECK(nd_comm_destroy(comm));
    MPI_Finalize();
    return okv ? 0 : 1;
}
