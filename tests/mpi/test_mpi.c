/* The collectives of libndgpu_mpi (include/ndgpu_mpi.h), run by every rank
 * under mpirun (make mpi-test: tests/mpi/run.sh, 2 ranks in CI; any number
 * works). Every collective x dtype x layout x root (x op) on every device
 * this process has (the CPU; cuda:0 when there is a GPU, the emulated one
 * included), against a reference computed on this rank from every rank's
 * inputs (each rank's input is a known function of its rank); mismatched
 * and bad arguments give the same clean error on every rank; a failed call
 * leaves the communicator usable. */
#include "mpi_test_util.h"

nd_comm *g_comm;
int g_rank, g_size;
int g_ndev;
nd_device g_devs[2];
int mt_bad;
char mt_first[1024];

/* test_util.h's contract for helpers that ask (not used by these tests). */
int nd_test_gpu_count(void) { return nd_cuda_device_count(); }

/* Shapes every collective runs on: 2-D (layouts apply), 1-D, 0-d, zero-size. */
typedef struct {
    int ndim;
    int64_t shape[3];
} shp;
static const shp g_shapes[] = {{2, {6, 5}}, {1, {7}}, {0, {0}}, {2, {0, 3}}, {3, {2, 3, 2}}};
#define NSHAPES ((int)(sizeof g_shapes / sizeof g_shapes[0]))

static int64_t shp_size(const shp *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->ndim; i++) n *= s->shape[i];
    return n;
}

/* rank r's input values for n elements */
static double *vals_of(int r, int64_t n, nd_dtype t, int64_t offset)
{
    double *v = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) v[i] = mt_val(r, i + offset, t);
    return v;
}

/* a op b in dtype t's arithmetic (one rounding, as the library's ops) */
static double ref_op(nd_comm_op op, nd_dtype t, double a, double b)
{
    if (t == ND_BOOL) return (op == ND_COMM_PROD || op == ND_COMM_MIN) ? (a && b) : (a || b);
    switch (op) {
    case ND_COMM_SUM:
    case ND_COMM_AVG: return cv_round(t, a + b);
    case ND_COMM_PROD: return cv_round(t, a * b);
    case ND_COMM_MAX: return (isnan(a) || isnan(b)) ? NAN : (a > b ? a : b);
    default: return (isnan(a) || isnan(b)) ? NAN : (a < b ? a : b);
    }
}

/* element i of the reduction over all ranks */
static double ref_reduce(nd_comm_op op, nd_dtype t, int64_t i)
{
    double acc = cv_round(t, mt_val(0, i, t));
    for (int r = 1; r < g_size; r++) acc = ref_op(op, t, acc, cv_round(t, mt_val(r, i, t)));
    if (op == ND_COMM_AVG) acc = cv_round(t, acc / g_size);
    return acc;
}

static const nd_comm_op g_ops[] = {ND_COMM_SUM, ND_COMM_PROD, ND_COMM_MAX, ND_COMM_MIN, ND_COMM_AVG};
static const char *const g_op_names[] = {"sum", "prod", "max", "min", "avg"};

static const char *dev_name(nd_device d) { return d.type == ND_DEVICE_CPU ? "cpu" : "cuda:0"; }

/* ------------------------------------------------------------------ */
START_TEST(communicator_facts)
{
    mt_begin();
    MT_TRUE(nd_comm_rank(g_comm) == g_rank, "rank %d vs MPI's %d", nd_comm_rank(g_comm), g_rank);
    MT_TRUE(nd_comm_size(g_comm) == g_size, "size %d vs MPI's %d", nd_comm_size(g_comm), g_size);
    int lr = nd_comm_local_rank(g_comm), ls = nd_comm_local_size(g_comm);
    MT_TRUE(ls >= 1 && ls <= g_size && lr >= 0 && lr < ls, "local rank %d of %d", lr, ls);
    MT_TRUE(nd_comm_tag_max(g_comm) >= 32767, "tag max %d below MPI's minimum", nd_comm_tag_max(g_comm));
    MT_TRUE(nd_comm_mpi(g_comm) != MPI_COMM_NULL && nd_comm_mpi(g_comm) != MPI_COMM_WORLD, "the communicator is not a duplicate");
    MT_TRUE(strcmp(nd_comm_transport(g_comm, nd_cpu()), "mpi") == 0, "CPU transport %s", nd_comm_transport(g_comm, nd_cpu()));
    const char *gt = nd_comm_transport(g_comm, nd_cuda(0));
    MT_TRUE(strcmp(gt, "nccl") == 0 || strcmp(gt, "staged") == 0, "GPU transport %s", gt);
    nd_device d = nd_comm_device(g_comm);
    if (nd_default_device().type == ND_DEVICE_CPU || nd_cuda_device_count() == 0)
        MT_TRUE(d.type == ND_DEVICE_CPU, "nd_comm_device is not the CPU without a GPU");
    else
        MT_TRUE(d.type == ND_DEVICE_CUDA && d.id == lr % nd_cuda_device_count(), "nd_comm_device cuda:%d", d.id);
    MT_TRUE(nd_comm_rank(NULL) == -1 && nd_comm_size(NULL) == -1, "NULL communicator");
    MT_ERR(nd_comm_create(NULL, MPI_COMM_WORLD), ND_ERR_INVALID, "'comm' is NULL");
    nd_comm *c = NULL;
    MT_ERR(nd_comm_create(&c, MPI_COMM_NULL), ND_ERR_INVALID, "MPI_COMM_NULL");
    MT_OK(nd_comm_destroy(NULL));
    /* a second communicator over a split: collectives stay apart */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &half);
    MT_OK(nd_comm_create(&c, half));
    if (c) {
        int64_t one = 1;
        nd_array *x = NULL;
        MT_OK(nd_full(&x, ND_INT32, 1, &one, nd_scalar_int(1), nd_cpu()));
        MT_OK(nd_allreduce(c, x, ND_COMM_SUM));
        double want = (g_size + 1 - g_rank % 2) / 2;
        mt_expect(x, &want, 1, 0, "allreduce over the split communicator");
        nd_release(x);
        MT_OK(nd_comm_destroy(c));
    }
    MPI_Comm_free(&half);
    mt_end();
}
END_TEST

START_TEST(allreduce_every_dtype_layout_op)
{
    mt_begin();
    for (int di = 0; di < g_ndev; di++)
        for (int ti = 0; ti < NT_NREAL; ti++)
            for (int si = 0; si < NSHAPES; si++)
                for (int L = 0; L < L_COUNT; L++)
                    for (int oi = 0; oi < 5; oi++) {
                        nd_dtype t = mt_dtypes[ti];
                        const shp *s = &g_shapes[si];
                        if (g_ops[oi] == ND_COMM_AVG && !mt_is_float(t)) continue;
                        if (L != L_CONTIG && s->ndim == 0) continue;
                        int64_t n = shp_size(s);
                        double *in = vals_of(g_rank, n, t, 0), *want = malloc(sizeof(double) * (size_t)(n + 1));
                        for (int64_t i = 0; i < n; i++) want[i] = ref_reduce(g_ops[oi], t, i);
                        nd_array *a = mt_make(t, L, s->ndim, s->shape, g_devs[di], in);
                        char what[160];
                        snprintf(what, sizeof what, "allreduce %s %s %s ndim %d on %s", g_op_names[oi], nd_dtype_name(t),
                                 mt_layout_name[L], s->ndim, dev_name(g_devs[di]));
                        if (a) {
                            nd_status st = nd_allreduce(g_comm, a, g_ops[oi]);
                            if (st) MT_FAIL("%s: %s", what, nd_last_error());
                            else mt_expect(a, want, n, mt_tol(t, g_size), what);
                        }
                        nd_release(a);
                        free(in), free(want);
                    }
    mt_end();
}
END_TEST

START_TEST(broadcast_every_dtype_layout_root)
{
    mt_begin();
    for (int di = 0; di < g_ndev; di++)
        for (int ti = 0; ti < NT_NREAL; ti++)
            for (int si = 0; si < NSHAPES; si++)
                for (int L = 0; L < L_COUNT; L++)
                    for (int root = 0; root < g_size; root++) {
                        nd_dtype t = mt_dtypes[ti];
                        const shp *s = &g_shapes[si];
                        if (L != L_CONTIG && s->ndim == 0) continue;
                        int64_t n = shp_size(s);
                        double *in = vals_of(g_rank, n, t, 0), *want = vals_of(root, n, t, 0);
                        for (int64_t i = 0; i < n; i++) want[i] = cv_round(t, want[i]);
                        nd_array *a = mt_make(t, L, s->ndim, s->shape, g_devs[di], in);
                        char what[160];
                        snprintf(what, sizeof what, "broadcast root %d %s %s ndim %d on %s", root, nd_dtype_name(t),
                                 mt_layout_name[L], s->ndim, dev_name(g_devs[di]));
                        if (a) {
                            nd_status st = nd_broadcast(g_comm, a, root);
                            if (st) MT_FAIL("%s: %s", what, nd_last_error());
                            else mt_expect(a, want, n, 0, what);
                        }
                        nd_release(a);
                        free(in), free(want);
                    }
    mt_end();
}
END_TEST

START_TEST(allgather_concatenates_in_rank_order)
{
    mt_begin();
    for (int di = 0; di < g_ndev; di++)
        for (int ti = 0; ti < NT_NREAL; ti++)
            for (int si = 0; si < NSHAPES; si++)
                for (int L = 0; L < L_COUNT; L++)
                    for (int given = 0; given < 2; given++) {
                        nd_dtype t = mt_dtypes[ti];
                        const shp *s = &g_shapes[si];
                        if (L != L_CONTIG && s->ndim == 0) continue;
                        int64_t n = shp_size(s);
                        double *in = vals_of(g_rank, n, t, 0), *want = malloc(sizeof(double) * (size_t)(n * g_size + 1));
                        for (int r = 0; r < g_size; r++)
                            for (int64_t i = 0; i < n; i++) want[r * n + i] = cv_round(t, mt_val(r, i, t));
                        nd_array *a = mt_make(t, L, s->ndim, s->shape, g_devs[di], in), *out = NULL;
                        int64_t os[3] = {s->shape[0] * g_size, s->shape[1], s->shape[2]};
                        int ond = s->ndim ? s->ndim : 1;
                        if (s->ndim == 0) os[0] = g_size;
                        if (given) { /* a strided (transposed) out given by the caller */
                            double *poison = malloc(sizeof(double) * (size_t)(n * g_size + 1));
                            for (int64_t i = 0; i < n * g_size; i++) poison[i] = 1;
                            out = mt_make(t, ond >= 2 ? L_TRANSPOSED : L_CONTIG, ond, os, g_devs[di], poison);
                            free(poison);
                        }
                        char what[160];
                        snprintf(what, sizeof what, "allgather %s %s ndim %d on %s (out %s)", nd_dtype_name(t),
                                 mt_layout_name[L], s->ndim, dev_name(g_devs[di]), given ? "given" : "allocated");
                        if (a && (out || !given)) {
                            nd_array *o = out;
                            nd_status st = nd_allgather(g_comm, &o, a);
                            if (st) MT_FAIL("%s: %s", what, nd_last_error());
                            else {
                                MT_TRUE(nd_ndim(o) == ond && nd_shape(o)[0] == os[0], "%s: out shape", what);
                                MT_TRUE(!given || o == out, "%s: out replaced", what);
                                mt_expect(o, want, n * g_size, 0, what);
                            }
                            if (!given) nd_release(o);
                        }
                        nd_release(a), nd_release(out);
                        free(in), free(want);
                    }
    mt_end();
}
END_TEST

START_TEST(reduce_scatter_gives_each_rank_its_block)
{
    mt_begin();
    const nd_comm_op ops[] = {ND_COMM_SUM, ND_COMM_MAX, ND_COMM_PROD, ND_COMM_AVG};
    for (int di = 0; di < g_ndev; di++)
        for (int ti = 0; ti < NT_NREAL; ti++)
            for (int L = 0; L < L_COUNT; L++)
                for (int oi = 0; oi < 4; oi++) {
                    nd_dtype t = mt_dtypes[ti];
                    if (ops[oi] == ND_COMM_AVG && !mt_is_float(t)) continue;
                    int64_t shape[2] = {3 * g_size, 4}, blk = 12, n = blk * g_size;
                    double *in = vals_of(g_rank, n, t, 0), *want = malloc(sizeof(double) * (size_t)blk);
                    for (int64_t i = 0; i < blk; i++) want[i] = ref_reduce(ops[oi], t, g_rank * blk + i);
                    nd_array *a = mt_make(t, L, 2, shape, g_devs[di], in), *out = NULL;
                    char what[160];
                    snprintf(what, sizeof what, "reduce_scatter %s %s %s on %s", g_op_names[ops[oi]], nd_dtype_name(t),
                             mt_layout_name[L], dev_name(g_devs[di]));
                    if (a) {
                        nd_status st = nd_reduce_scatter(g_comm, &out, a, ops[oi]);
                        if (st) MT_FAIL("%s: %s", what, nd_last_error());
                        else {
                            MT_TRUE(nd_ndim(out) == 2 && nd_shape(out)[0] == 3 && nd_shape(out)[1] == 4, "%s: shape", what);
                            mt_expect(out, want, blk, mt_tol(t, g_size), what);
                        }
                    }
                    nd_release(a), nd_release(out);
                    free(in), free(want);
                }
    mt_end();
}
END_TEST

START_TEST(alltoall_exchanges_blocks)
{
    mt_begin();
    for (int di = 0; di < g_ndev; di++)
        for (int ti = 0; ti < NT_NREAL; ti++)
            for (int L = 0; L < L_COUNT; L++) {
                nd_dtype t = mt_dtypes[ti];
                int64_t shape[2] = {2 * g_size, 3}, blk = 6, n = blk * g_size;
                double *in = vals_of(g_rank, n, t, 0), *want = malloc(sizeof(double) * (size_t)n);
                /* block i of out = block g_rank of rank i's input */
                for (int i = 0; i < g_size; i++)
                    for (int64_t k = 0; k < blk; k++) want[i * blk + k] = cv_round(t, mt_val(i, g_rank * blk + k, t));
                nd_array *a = mt_make(t, L, 2, shape, g_devs[di], in), *out = NULL;
                char what[160];
                snprintf(what, sizeof what, "alltoall %s %s on %s", nd_dtype_name(t), mt_layout_name[L], dev_name(g_devs[di]));
                if (a) {
                    nd_status st = nd_alltoall(g_comm, &out, a);
                    if (st) MT_FAIL("%s: %s", what, nd_last_error());
                    else mt_expect(out, want, n, 0, what);
                }
                nd_release(a), nd_release(out);
                free(in), free(want);
            }
    mt_end();
}
END_TEST

START_TEST(send_recv_ring_every_dtype_layout)
{
    mt_begin();
    int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
    for (int di = 0; di < g_ndev; di++)
        for (int ti = 0; ti < NT_NREAL; ti++)
            for (int si = 0; si < NSHAPES; si++)
                for (int L = 0; L < L_COUNT; L++) {
                    nd_dtype t = mt_dtypes[ti];
                    const shp *s = &g_shapes[si];
                    if (L != L_CONTIG && s->ndim == 0) continue;
                    int64_t n = shp_size(s);
                    double *in = vals_of(g_rank, n, t, 0), *want = vals_of(prev, n, t, 0), *zero = calloc((size_t)n + 1, sizeof(double));
                    for (int64_t i = 0; i < n; i++) want[i] = cv_round(t, want[i]);
                    nd_array *a = mt_make(t, L, s->ndim, s->shape, g_devs[di], in);
                    nd_array *b = mt_make(t, (L + 1) % L_COUNT, s->ndim, s->shape, g_devs[di], zero);
                    char what[160];
                    snprintf(what, sizeof what, "isend/irecv ring %s %s ndim %d on %s", nd_dtype_name(t), mt_layout_name[L],
                             s->ndim, dev_name(g_devs[di]));
                    if (a && b) {
                        nd_request *rs = NULL, *rr = NULL;
                        MT_OK(nd_irecv(g_comm, b, prev, 7, &rr));
                        MT_OK(nd_isend(g_comm, a, next, 7, &rs));
                        MT_OK(nd_wait(rs));
                        nd_status st = nd_wait(rr);
                        if (st) MT_FAIL("%s: %s", what, nd_last_error());
                        else mt_expect(b, want, n, 0, what);
                    }
                    /* blocking pairs: even ranks send first */
                    if (a && b && g_size >= 2 && !(g_size % 2 == 1 && g_rank == g_size - 1)) {
                        int peer = g_rank % 2 == 0 ? g_rank + 1 : g_rank - 1;
                        if (peer < g_size) {
                            double *pw = vals_of(peer, n, t, 0);
                            for (int64_t i = 0; i < n; i++) pw[i] = cv_round(t, pw[i]);
                            if (g_rank % 2 == 0) {
                                MT_OK(nd_send(g_comm, a, peer, 3));
                                MT_OK(nd_recv(g_comm, b, peer, 3));
                            } else {
                                MT_OK(nd_recv(g_comm, b, peer, 3));
                                MT_OK(nd_send(g_comm, a, peer, 3));
                            }
                            snprintf(what, sizeof what, "send/recv %s %s ndim %d on %s", nd_dtype_name(t),
                                     mt_layout_name[L], s->ndim, dev_name(g_devs[di]));
                            mt_expect(b, pw, n, 0, what);
                            free(pw);
                        }
                    }
                    nd_release(a), nd_release(b);
                    free(in), free(want), free(zero);
                }
    mt_end();
}
END_TEST

START_TEST(nonblocking_overlap_and_test)
{
    mt_begin();
    for (int di = 0; di < g_ndev; di++) {
        nd_device dev = g_devs[di];
        int64_t n = 1000, shape[1] = {1000};
        double *x0 = vals_of(g_rank, n, ND_FLOAT32, 0), *x1 = vals_of(g_rank, n, ND_FLOAT64, 5);
        double *w0 = malloc(sizeof(double) * (size_t)n), *w1 = malloc(sizeof(double) * (size_t)n);
        for (int64_t i = 0; i < n; i++) {
            w0[i] = ref_reduce(ND_COMM_SUM, ND_FLOAT32, i);
            w1[i] = ref_reduce(ND_COMM_MAX, ND_FLOAT64, i + 5);
        }
        nd_array *a = mt_make(ND_FLOAT32, L_CONTIG, 1, shape, dev, x0);
        nd_array *b = mt_make(ND_FLOAT64, L_STRIDED, 1, shape, dev, x1), *g = NULL;
        double *x2 = vals_of(g_rank, n, ND_INT32, 0), *w2 = malloc(sizeof(double) * (size_t)(n * g_size));
        for (int r = 0; r < g_size; r++)
            for (int64_t i = 0; i < n; i++) w2[r * n + i] = mt_val(r, i, ND_INT32);
        nd_array *c = mt_make(ND_INT32, L_STRIDED, 1, shape, dev, x2);
        nd_request *r0 = NULL, *r1 = NULL, *r2 = NULL, *r3 = NULL;
        /* two reductions and a gather in flight at once, then a barrier */
        MT_OK(nd_iallreduce(g_comm, a, ND_COMM_SUM, &r0));
        MT_OK(nd_iallreduce(g_comm, b, ND_COMM_MAX, &r1));
        MT_OK(nd_iallgather(g_comm, &g, c, &r2));
        MT_TRUE(g != NULL, "iallgather did not allocate out at the start");
        MT_OK(nd_ibarrier(g_comm, &r3));
        bool done = false;
        for (int spin = 0; spin < 1000000 && !done; spin++) MT_OK(nd_test(r0, &done));
        MT_TRUE(done, "nd_test never saw the allreduce finish");
        MT_OK(nd_wait(r0));
        MT_OK(nd_wait(r1));
        MT_OK(nd_wait(r2));
        MT_OK(nd_wait(r3));
        mt_expect(a, w0, n, mt_tol(ND_FLOAT32, g_size), "iallreduce sum float32");
        mt_expect(b, w1, n, 0, "iallreduce max float64 (strided)");
        mt_expect(g, w2, n * g_size, 0, "iallgather int32 (strided)");
        nd_release(a), nd_release(b), nd_release(c), nd_release(g);
        free(x2), free(w2);
        MT_OK(nd_wait(NULL));
        bool d2;
        MT_ERR(nd_test(NULL, &d2), ND_ERR_INVALID, "'req' is NULL");
        free(x0), free(x1), free(w0), free(w1);
    }
    mt_end();
}
END_TEST

/* NumPy's maximum/minimum propagate NaN; so do the collectives. */
/* complex64/complex128: allreduce sum/prod/avg with both parts
 * non-zero (prod is the complex product, not the product of the parts),
 * broadcast, allgather and send/recv carrying both parts, max/min refused
 * on every rank; every value is exact in float (small dyadic parts), so
 * the results compare exactly. */
static void cx_vals(int r, int n, double *re, double *im)
{
    for (int k = 0; k < n; k++) re[k] = 0.5 * (r + 1) + 0.25 * k, im[k] = 0.25 * k - 0.5 * r - 0.25;
}

static nd_array *cx_arr(nd_dtype t, int n, const double *re, const double *im, nd_device dev)
{
    unsigned char buf[16 * 8];
    for (int k = 0; k < n; k++) {
        if (t == ND_COMPLEX64) {
            float v[2] = {(float)re[k], (float)im[k]};
            memcpy(buf + 8 * k, v, 8);
        } else {
            double v[2] = {re[k], im[k]};
            memcpy(buf + 16 * k, v, 16);
        }
    }
    nd_array *a = NULL;
    const int64_t sh = n;
    MT_OK(nd_from_host(&a, buf, t, 1, &sh, dev));
    return a;
}

static void cx_check(const nd_array *a, nd_dtype t, int n, const double *re, const double *im, const char *what)
{
    unsigned char buf[16 * 32];
    if (!a || nd_size(a) != n) {
        MT_FAIL("%s: no result or %lld elements, want %d", what, a ? (long long)nd_size(a) : -1LL, n);
        return;
    }
    MT_OK(nd_copy_to_host(buf, a, nd_nbytes(a)));
    for (int k = 0; k < n; k++) {
        double gr, gi;
        if (t == ND_COMPLEX64) {
            float v[2];
            memcpy(v, buf + 8 * k, 8);
            gr = v[0], gi = v[1];
        } else {
            double v[2];
            memcpy(v, buf + 16 * k, 16);
            gr = v[0], gi = v[1];
        }
        const double wr = t == ND_COMPLEX64 ? (double)(float)re[k] : re[k];
        const double wi = t == ND_COMPLEX64 ? (double)(float)im[k] : im[k];
        if (gr != wr || gi != wi) {
            MT_FAIL("%s element %d: (%g, %g), want (%g, %g)", what, k, gr, gi, wr, wi);
            return;
        }
    }
}

START_TEST(complex_collectives)
{
    mt_begin();
    enum { N = 5 };
    for (int di = 0; di < g_ndev; di++)
        for (nd_dtype t = ND_COMPLEX64; t <= ND_COMPLEX128; t++) {
            double re[N], im[N], wr[N], wi[N];
            char what[96];
            /* sum, avg, prod over the ranks */
            for (int op = 0; op < 3; op++) {
                const nd_comm_op cop = op == 0 ? ND_COMM_SUM : op == 1 ? ND_COMM_AVG : ND_COMM_PROD;
                for (int k = 0; k < N; k++) wr[k] = op == 2 ? 1 : 0, wi[k] = 0;
                for (int r = 0; r < g_size; r++) {
                    cx_vals(r, N, re, im);
                    for (int k = 0; k < N; k++) {
                        if (op == 2) {
                            const double pr = wr[k] * re[k] - wi[k] * im[k], pi = wr[k] * im[k] + wi[k] * re[k];
                            wr[k] = pr, wi[k] = pi;
                        } else {
                            wr[k] += re[k], wi[k] += im[k];
                        }
                    }
                }
                if (op == 1)
                    for (int k = 0; k < N; k++) wr[k] /= g_size, wi[k] /= g_size;
                cx_vals(g_rank, N, re, im);
                nd_array *a = cx_arr(t, N, re, im, g_devs[di]);
                snprintf(what, sizeof what, "allreduce %s %s on %s", op == 0 ? "sum" : op == 1 ? "avg" : "prod",
                         nd_dtype_name(t), dev_name(g_devs[di]));
                if (a) {
                    nd_status st = nd_allreduce(g_comm, a, cop);
                    if (st) MT_FAIL("%s: %s", what, nd_last_error());
                    else cx_check(a, t, N, wr, wi, what);
                }
                nd_release(a);
            }
            /* max/min: no order of complex numbers (refused on every rank) */
            cx_vals(g_rank, N, re, im);
            nd_array *a = cx_arr(t, N, re, im, g_devs[di]);
            MT_ERR(nd_allreduce(g_comm, a, ND_COMM_MAX), ND_ERR_DTYPE, "complex");
            /* broadcast from the last rank */
            MT_OK(nd_broadcast(g_comm, a, g_size - 1));
            cx_vals(g_size - 1, N, wr, wi);
            snprintf(what, sizeof what, "broadcast %s on %s", nd_dtype_name(t), dev_name(g_devs[di]));
            cx_check(a, t, N, wr, wi, what);
            nd_release(a);
            /* allgather: rank order */
            cx_vals(g_rank, N, re, im);
            a = cx_arr(t, N, re, im, g_devs[di]);
            nd_array *g = NULL;
            MT_OK(nd_allgather(g_comm, &g, a));
            double gr[N * 8], gi[N * 8];
            for (int r = 0; r < g_size && r < 8; r++) cx_vals(r, N, gr + N * r, gi + N * r);
            snprintf(what, sizeof what, "allgather %s on %s", nd_dtype_name(t), dev_name(g_devs[di]));
            if (g_size <= 8) cx_check(g, t, N * g_size, gr, gi, what);
            nd_release(g), nd_release(a);
        }
    mt_end();
}
END_TEST

START_TEST(max_min_propagate_nan)
{
    mt_begin();
    const nd_dtype ft[] = {ND_FLOAT16, ND_BFLOAT16, ND_FLOAT32, ND_FLOAT64};
    for (int di = 0; di < g_ndev; di++)
        for (int k = 0; k < 4; k++)
            for (int op = ND_COMM_MAX; op <= ND_COMM_MIN; op++) {
                int64_t n = 4;
                double in[4] = {1.0 + g_rank, -2.0, 3.0, 0.5};
                if (g_rank == g_size - 1) in[0] = NAN, in[2] = NAN;
                double want[4] = {NAN, -2.0, NAN, 0.5};
                nd_array *a = mt_make(ft[k], L_CONTIG, 1, &n, g_devs[di], in);
                if (a) MT_OK(nd_allreduce(g_comm, a, (nd_comm_op)op));
                char what[96];
                snprintf(what, sizeof what, "%s NaN %s on %s", op == ND_COMM_MAX ? "max" : "min", nd_dtype_name(ft[k]),
                         dev_name(g_devs[di]));
                mt_expect(a, want, n, 0, what);
                nd_release(a);
            }
    mt_end();
}
END_TEST

/* float16/bfloat16 reductions (vectorised with F16C/AVX2 where the CPU has
 * them, scalar elsewhere and in the tail) give exactly the scalar formula:
 * the float32 op of the two operands rounded once, over random bit
 * patterns (NaN excluded: payloads may differ), 4099 elements (a tail). */
static uint16_t hbits(int r, int64_t i, bool bf)
{
    uint32_t h = (uint32_t)(i * 2654435761u) ^ (uint32_t)(r * 40503u + 17u);
    h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
    uint16_t b = (uint16_t)h;
    bool nan = bf ? ((b & 0x7f80u) == 0x7f80u && (b & 0x7fu)) : ((b & 0x7c00u) == 0x7c00u && (b & 0x3ffu));
    return nan ? (uint16_t)(b & 0x83ffu) : b;
}

START_TEST(half_ops_match_the_scalar_formula)
{
    mt_begin();
    if (g_size != 2) { /* with more ranks the rounding order is MPI's */
        mt_end();
        return;
    }
    int64_t n = 4099;
    uint16_t *mine = malloc(2 * (size_t)n), *got = malloc(2 * (size_t)n);
    for (int bf = 0; bf < 2; bf++)
        for (int op = ND_COMM_SUM; op <= ND_COMM_MIN; op++) {
            nd_dtype t = bf ? ND_BFLOAT16 : ND_FLOAT16;
            for (int64_t i = 0; i < n; i++) mine[i] = hbits(g_rank, i, bf);
            nd_array *a = NULL;
            MT_OK(nd_from_host(&a, mine, t, 1, &n, nd_cpu()));
            MT_OK(nd_allreduce(g_comm, a, (nd_comm_op)op));
            MT_OK(nd_copy_to_host(got, a, 2 * (size_t)n));
            int bad = 0;
            for (int64_t i = 0; i < n && bad == 0; i++) {
                uint16_t x = hbits(0, i, bf), y = hbits(1, i, bf);
                float fx = bf ? nd_bf16_to_float(x) : nd_half_to_float(x), fy = bf ? nd_bf16_to_float(y) : nd_half_to_float(y);
                float w = op == ND_COMM_SUM ? fx + fy : op == ND_COMM_PROD ? fx * fy : op == ND_COMM_MAX ? (fx > fy ? fx : fy) : (fx < fy ? fx : fy);
                uint16_t wb = bf ? nd_float_to_bf16(w) : nd_float_to_half(w);
                float g = bf ? nd_bf16_to_float(got[i]) : nd_half_to_float(got[i]);
                bool same = got[i] == wb || (isnan(g) && isnan(w)) || (g == 0 && w == 0 && (op == ND_COMM_MAX || op == ND_COMM_MIN));
                if (!same) {
                    MT_FAIL("%s %s element %lld: %g op %g gave 0x%04x, want 0x%04x", nd_dtype_name(t), g_op_names[op],
                            (long long)i, fx, fy, got[i], wb);
                    bad = 1;
                }
            }
            nd_release(a);
        }
    free(mine), free(got);
    mt_end();
}
END_TEST

/* Mismatched arguments give the same error on every rank, and the
 * communicator works afterwards. */
START_TEST(mismatches_fail_on_every_rank)
{
    mt_begin();
    if (g_size < 2) {
        mt_end();
        return;
    }
    nd_array *a = NULL, *b = NULL, *o = NULL;
    int64_t s34[2] = {3, 4}, s43[2] = {4, 3};
    MT_OK(nd_ones(&a, ND_FLOAT32, 2, g_rank == 0 ? s34 : s43, nd_cpu()));
    MT_ERR(nd_allreduce(g_comm, a, ND_COMM_SUM), ND_ERR_SHAPE, "shapes differ across ranks: rank 0 (3,4), rank 1 (4,3)");
    MT_ERR(nd_broadcast(g_comm, a, 0), ND_ERR_SHAPE, "shapes differ");
    MT_ERR(nd_allgather(g_comm, &o, a), ND_ERR_SHAPE, "shapes differ");
    MT_TRUE(o == NULL, "out written on failure");
    nd_release(a), a = NULL;
    MT_OK(nd_ones(&a, g_rank == 0 ? ND_FLOAT32 : ND_INT32, 2, s34, nd_cpu()));
    MT_ERR(nd_allreduce(g_comm, a, ND_COMM_SUM), ND_ERR_DTYPE, "dtypes differ across ranks: rank 0 float32, rank 1 int32");
    nd_release(a), a = NULL;
    MT_OK(nd_ones(&a, ND_FLOAT32, 2, s34, nd_cpu()));
    MT_ERR(nd_allreduce(g_comm, a, g_rank == 0 ? ND_COMM_SUM : ND_COMM_MAX), ND_ERR_INVALID,
           "reduction ops differ across ranks: rank 0 sum, rank 1 max");
    MT_ERR(nd_broadcast(g_comm, a, g_rank == 0 ? 0 : 1), ND_ERR_INVALID, "roots differ across ranks");
    /* different operations at the same point */
    if (g_rank == 0) MT_ERR(nd_allreduce(g_comm, a, ND_COMM_SUM), ND_ERR_INVALID, "rank 0 nd_allreduce, rank 1 nd_broadcast");
    else MT_ERR(nd_broadcast(g_comm, a, 0), ND_ERR_INVALID, "rank 0 nd_allreduce, rank 1 nd_broadcast");
    if (g_rank == 0) MT_ERR(nd_barrier(g_comm), ND_ERR_INVALID, "ranks called different operations");
    else MT_ERR(nd_allreduce(g_comm, a, ND_COMM_SUM), ND_ERR_INVALID, "ranks called different operations");
    /* one rank's bad argument fails the call everywhere */
    if (g_rank == 1) MT_ERR(nd_allreduce(g_comm, NULL, ND_COMM_SUM), ND_ERR_INVALID, "'a' is NULL");
    else MT_ERR(nd_allreduce(g_comm, a, ND_COMM_SUM), ND_ERR_INVALID, "rank 1 failed: 'a' is NULL");
    if (g_rank == 1) MT_ERR(nd_broadcast(g_comm, a, 99), ND_ERR_INVALID, "root 99 is out of range");
    else MT_ERR(nd_broadcast(g_comm, a, 0), ND_ERR_INVALID, "rank 1 failed: root 99 is out of range");
    nd_array *bc = NULL;
    MT_OK(nd_broadcast_to(&bc, a, 3, (const int64_t[]){2, 3, 4}));
    nd_array *mine = g_rank == 1 ? bc : NULL;
    if (g_rank == 1) MT_ERR(nd_allreduce(g_comm, mine, ND_COMM_SUM), ND_ERR_INVALID, "not writable");
    else {
        nd_array *c3 = NULL;
        MT_OK(nd_ones(&c3, ND_FLOAT32, 3, (const int64_t[]){2, 3, 4}, nd_cpu()));
        MT_ERR(nd_allreduce(g_comm, c3, ND_COMM_SUM), ND_ERR_INVALID, "rank 1 failed: 'a' is not writable");
        nd_release(c3);
    }
    nd_release(bc);
    /* errors every rank sees alike */
    nd_array *ia = NULL;
    MT_OK(nd_ones(&ia, ND_INT64, 1, (const int64_t[]){5}, nd_cpu()));
    MT_ERR(nd_allreduce(g_comm, ia, ND_COMM_AVG), ND_ERR_DTYPE, "avg needs a float or complex dtype, not int64");
    MT_ERR(nd_allreduce(g_comm, ia, (nd_comm_op)17), ND_ERR_INVALID, "bad reduction op 17");
    int64_t odd[1] = {2 * g_size + 1};
    MT_OK(nd_ones(&b, ND_FLOAT32, 1, odd, nd_cpu()));
    MT_ERR(nd_reduce_scatter(g_comm, &o, b, ND_COMM_SUM), ND_ERR_SHAPE, "must be a multiple of the");
    MT_ERR(nd_alltoall(g_comm, &o, b), ND_ERR_SHAPE, "must be a multiple of the");
    nd_array *z0 = NULL;
    MT_OK(nd_zeros(&z0, ND_FLOAT32, 0, NULL, nd_cpu()));
    MT_ERR(nd_reduce_scatter(g_comm, &o, z0, ND_COMM_SUM), ND_ERR_SHAPE, "must be a multiple");
    nd_release(z0);
    /* a given out of the wrong shape / dtype */
    nd_array *wrong = NULL;
    MT_OK(nd_zeros(&wrong, ND_FLOAT32, 2, s34, nd_cpu()));
    MT_ERR(nd_allgather(g_comm, &wrong, a), ND_ERR_SHAPE, "'out' has shape (3,4), but the result has shape");
    nd_release(wrong), wrong = NULL;
    int64_t gs[2] = {3 * g_size, 4};
    MT_OK(nd_zeros(&wrong, ND_FLOAT64, 2, gs, nd_cpu()));
    MT_ERR(nd_allgather(g_comm, &wrong, a), ND_ERR_DTYPE, "'out' is float64, but 'a' is float32");
    nd_release(wrong);
    /* NULL communicator / request pointer: local errors, no communication */
    MT_ERR(nd_allreduce(NULL, a, ND_COMM_SUM), ND_ERR_INVALID, "'comm' is NULL");
    MT_ERR(nd_iallreduce(g_comm, a, ND_COMM_SUM, NULL), ND_ERR_INVALID, "'req' is NULL");
    /* and the communicator still works */
    MT_OK(nd_allreduce(g_comm, a, ND_COMM_SUM));
    double want[12];
    for (int i = 0; i < 12; i++) want[i] = g_size;
    mt_expect(a, want, 12, 0, "allreduce after the errors");
    nd_release(a), nd_release(b), nd_release(ia);
    mt_end();
}
END_TEST

START_TEST(receive_checks_the_header)
{
    mt_begin();
    if (g_size < 2) {
        mt_end();
        return;
    }
    int64_t s34[2] = {3, 4}, s43[2] = {4, 3}, s22[2] = {2, 2}, s56[2] = {5, 6};
    nd_array *a = NULL, *r = NULL;
    MT_OK(nd_ones(&a, ND_FLOAT32, 2, s34, nd_cpu()));
    if (g_rank == 0) {
        MT_OK(nd_send(g_comm, a, 1, 11));                               /* shape mismatch, same bytes */
        MT_OK(nd_send(g_comm, a, 1, 11));                               /* dtype mismatch, same bytes */
        MT_OK(nd_send(g_comm, a, 1, 11));                               /* receiver smaller: truncated */
        MT_OK(nd_send(g_comm, a, 1, 11));                               /* receiver larger */
        MT_OK(nd_send(g_comm, a, 1, 11));                               /* a good one after all that */
        for (int k = 0; k < 3; k++) {                                   /* the non-blocking receiver's turn */
            nd_request *q = NULL;
            MT_OK(nd_isend(g_comm, a, 1, 12, &q));
            MT_OK(nd_wait(q));
        }
    } else if (g_rank == 1) {
        MT_OK(nd_zeros(&r, ND_FLOAT32, 2, s43, nd_cpu()));
        MT_ERR(nd_recv(g_comm, r, 0, 11), ND_ERR_SHAPE, "the sender sent shape (3,4), but 'a' has shape (4,3)");
        nd_release(r), r = NULL;
        MT_OK(nd_zeros(&r, ND_INT32, 2, s34, nd_cpu()));
        MT_ERR(nd_recv(g_comm, r, 0, 11), ND_ERR_DTYPE, "the sender sent float32, but 'a' is int32");
        nd_release(r), r = NULL;
        MT_OK(nd_zeros(&r, ND_FLOAT32, 2, s22, nd_cpu()));
        MT_ERR(nd_recv(g_comm, r, 0, 11), ND_ERR_SHAPE, "the sender sent shape (3,4), but 'a' has shape (2,2)");
        nd_release(r), r = NULL;
        MT_OK(nd_zeros(&r, ND_FLOAT32, 2, s56, nd_cpu()));
        MT_ERR(nd_recv(g_comm, r, 0, 11), ND_ERR_SHAPE, "the sender sent shape (3,4), but 'a' has shape (5,6)");
        nd_release(r), r = NULL;
        MT_OK(nd_zeros(&r, ND_FLOAT32, 2, s34, nd_cpu()));
        MT_OK(nd_recv(g_comm, r, 0, 11));
        double want[12];
        for (int i = 0; i < 12; i++) want[i] = 1;
        mt_expect(r, want, 12, 0, "the good message after the bad ones");
        nd_release(r), r = NULL;
        const int64_t *shapes[3] = {s43, s22, s56}; /* same bytes, fewer (truncated), more */
        const char *names[3] = {"(4,3)", "(2,2)", "(5,6)"};
        for (int k = 0; k < 3; k++) {
            nd_request *q = NULL;
            MT_OK(nd_zeros(&r, ND_FLOAT32, 2, shapes[k], nd_cpu()));
            MT_OK(nd_irecv(g_comm, r, 0, 12, &q));
            char needle[96];
            snprintf(needle, sizeof needle, "the sender sent shape (3,4), but 'a' has shape %s", names[k]);
            MT_ERR(nd_wait(q), ND_ERR_SHAPE, needle);
            nd_release(r), r = NULL;
        }
    }
    /* local argument errors */
    MT_ERR(nd_send(g_comm, a, g_size, 0), ND_ERR_INVALID, "out of range");
    MT_ERR(nd_recv(g_comm, a, MPI_ANY_SOURCE, 0), ND_ERR_INVALID, "MPI_ANY_SOURCE is not supported");
    MT_ERR(nd_send(g_comm, a, (g_rank + 1) % g_size, -1), ND_ERR_INVALID, "tag -1 is out of range");
    MT_ERR(nd_send(g_comm, a, g_rank, 0), ND_ERR_INVALID, "to this rank itself");
    MT_ERR(nd_send(g_comm, NULL, (g_rank + 1) % g_size, 0), ND_ERR_INVALID, "'a' is NULL");
    nd_release(a);
    mt_end();
}
END_TEST

START_TEST(checks_off_still_correct)
{
    mt_begin();
    MT_OK(nd_comm_set_checks(g_comm, false));
    for (int di = 0; di < g_ndev; di++) {
        int64_t n = 257;
        double *in = vals_of(g_rank, n, ND_BFLOAT16, 0), want[257];
        for (int64_t i = 0; i < n; i++) want[i] = ref_reduce(ND_COMM_AVG, ND_BFLOAT16, i);
        nd_array *a = mt_make(ND_BFLOAT16, L_STRIDED, 1, &n, g_devs[di], in);
        if (a) MT_OK(nd_allreduce(g_comm, a, ND_COMM_AVG));
        mt_expect(a, want, n, mt_tol(ND_BFLOAT16, g_size), "avg bfloat16 with checks off");
        nd_release(a);
        free(in);
    }
    MT_OK(nd_comm_set_checks(g_comm, true));
    MT_ERR(nd_comm_set_checks(NULL, true), ND_ERR_INVALID, "'comm' is NULL");
    mt_end();
}
END_TEST

static Suite *mpi_suite(void)
{
    Suite *s = suite_create("mpi");
    TCase *tc = tcase_create("collectives");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, communicator_facts);
    tcase_add_test(tc, allreduce_every_dtype_layout_op);
    tcase_add_test(tc, broadcast_every_dtype_layout_root);
    tcase_add_test(tc, allgather_concatenates_in_rank_order);
    tcase_add_test(tc, reduce_scatter_gives_each_rank_its_block);
    tcase_add_test(tc, alltoall_exchanges_blocks);
    tcase_add_test(tc, send_recv_ring_every_dtype_layout);
    tcase_add_test(tc, nonblocking_overlap_and_test);
    tcase_add_test(tc, max_min_propagate_nan);
    tcase_add_test(tc, complex_collectives);
    tcase_add_test(tc, half_ops_match_the_scalar_formula);
    tcase_add_test(tc, mismatches_fail_on_every_rank);
    tcase_add_test(tc, receive_checks_the_header);
    tcase_add_test(tc, checks_off_still_correct);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    if (nd_comm_create(&g_comm, MPI_COMM_WORLD) != ND_OK) {
        fprintf(stderr, "rank %d: nd_comm_create: %s\n", g_rank, nd_last_error());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    g_devs[g_ndev++] = nd_cpu();
    if (nd_cuda_device_count() > 0) g_devs[g_ndev++] = nd_cuda(0);
    /* every rank must agree on the device list (collectives run per device) */
    int mine = g_ndev, least = 0;
    MPI_Allreduce(&mine, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    g_ndev = least;
    if (g_rank == 0)
        printf("mpi tests: %d ranks, devices: cpu%s (GPU transport %s)\n", g_size, g_ndev > 1 ? ", cuda:0" : "",
               nd_comm_transport(g_comm, nd_cuda(0)));
    SRunner *sr = srunner_create(mpi_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, g_rank == 0 ? CK_NORMAL : CK_SILENT);
    int failed = srunner_ntests_failed(sr), run = srunner_ntests_run(sr);
    srunner_free(sr);
    int all_failed = 0;
    MPI_Allreduce(&failed, &all_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (failed && g_rank != 0) fprintf(stderr, "rank %d: %d of %d tests failed (see above)\n", g_rank, failed, run);
    nd_comm_destroy(g_comm);
    MPI_Finalize();
    return all_failed ? 1 : 0;
}
