// Solve the 2-D Poisson problem -lap(u) = f on the unit square (Dirichlet
// boundary, the 5-point Laplacian on an m x m grid) with conjugate
// gradients and BiCGSTAB on nd_sparse matrices, on the CPU and, where a
// device has sparse kernels, on the GPU. The right-hand side comes from a
// known solution, so the example checks the error it reaches.
//
// usage: sparse_cg [m]   (default 64)
// expect: sparse_cg: ok
#include <math.h>
#include <ndgpu.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        nd_status st_ = (call);                                                       \
        if (st_ != ND_OK) {                                                           \
            fprintf(stderr, "%s: %s: %s\n", #call, nd_status_name(st_), nd_last_error()); \
            return 1;                                                                 \
        }                                                                             \
    } while (0)

// The Laplacian (times h^2) from triplets.
static nd_status poisson(nd_sparse **A, int64_t m, nd_device dev)
{
    int64_t n = m * m, k = 0;
    int64_t *r = malloc(sizeof(int64_t) * 5 * n), *c = malloc(sizeof(int64_t) * 5 * n);
    double *v = malloc(sizeof(double) * 5 * n);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) {
            int64_t p = i * m + j;
            r[k] = p, c[k] = p, v[k++] = 4;
            if (i > 0) r[k] = p, c[k] = p - m, v[k++] = -1;
            if (i + 1 < m) r[k] = p, c[k] = p + m, v[k++] = -1;
            if (j > 0) r[k] = p, c[k] = p - 1, v[k++] = -1;
            if (j + 1 < m) r[k] = p, c[k] = p + 1, v[k++] = -1;
        }
    nd_array *vals = NULL, *rows = NULL, *cols = NULL;
    nd_sparse *host = NULL;
    nd_status st = nd_from_host(&vals, v, ND_FLOAT64, 1, &k, nd_cpu());
    if (!st) st = nd_from_host(&rows, r, ND_INT64, 1, &k, nd_cpu());
    if (!st) st = nd_from_host(&cols, c, ND_INT64, 1, &k, nd_cpu());
    if (!st) st = nd_sparse_from_triplets(&host, ND_SPARSE_CSR, vals, rows, cols, n, n);
    if (!st) st = nd_sparse_to_device(A, host, dev);
    nd_release(vals), nd_release(rows), nd_release(cols);
    nd_sparse_release(host);
    free(r), free(c), free(v);
    return st;
}

static int solve_on(nd_device dev, int64_t m, int *ran)
{
    int64_t n = m * m;
    double *u = malloc(sizeof(double) * n), *got = malloc(sizeof(double) * n);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) {
            double x = (double)(i + 1) / (double)(m + 1), y = (double)(j + 1) / (double)(m + 1);
            u[i * m + j] = x * (1 - x) * y * (1 - y) * exp(x + 2 * y); // not an eigenvector
        }
    nd_sparse *A = NULL;
    nd_array *ut = NULL, *b = NULL, *x = NULL;
    CHECK(poisson(&A, m, dev));
    CHECK(nd_from_host(&ut, u, ND_FLOAT64, 1, &n, dev));
    nd_status st = nd_sparse_matmul(&b, A, ut);
    if (st == ND_ERR_UNSUPPORTED) { // a device without sparse kernels
        printf("%s: %s\n", dev.type == ND_DEVICE_CPU ? "cpu" : "cuda:0", nd_last_error());
        nd_sparse_release(A), nd_release(ut);
        free(u), free(got);
        return 0;
    }
    CHECK(st);
    for (int method = 0; method < 2; method++) {
        nd_sparse_solve_info info;
        if (method == 0) CHECK(nd_sparse_cg(&x, A, b, NULL, 1e-10, 0, 0, &info));
        else CHECK(nd_sparse_bicgstab(&x, A, b, NULL, 1e-10, 0, 0, &info));
        CHECK(nd_copy_to_host(got, x, sizeof(double) * n));
        double err = 0;
        for (int64_t i = 0; i < n; i++) err = fmax(err, fabs(got[i] - u[i]));
        printf("%-6s %-8s n=%lld: %lld iterations, residual %.2e, max error %.2e%s\n",
               dev.type == ND_DEVICE_CPU ? "cpu" : "cuda:0", method ? "bicgstab" : "cg", (long long)n,
               (long long)info.iterations, info.residual, err, info.converged ? "" : " (not converged)");
        if (!info.converged || err > 1e-6) return 1;
        nd_release(x);
        x = NULL;
    }
    (*ran)++;
    nd_sparse_release(A), nd_release(ut), nd_release(b);
    free(u), free(got);
    return 0;
}

int main(int argc, char **argv)
{
    int64_t m = argc > 1 ? atoll(argv[1]) : 64;
    if (m < 2 || m > 4096) {
        fprintf(stderr, "usage: sparse_cg [m], 2 <= m <= 4096\n");
        return 2;
    }
    int ran = 0;
    if (solve_on(nd_cpu(), m, &ran)) return 1;
    if (nd_cuda_device_count() > 0 && solve_on(nd_cuda(0), m, &ran)) return 1;
    printf("sparse_cg: ok (%d device%s solved)\n", ran, ran == 1 ? "" : "s");
    return 0;
}
