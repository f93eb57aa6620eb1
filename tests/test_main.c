/* The one Check runner: every suite of the project, one summary line. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

/* See test_util.h: the parent process never initialises CUDA. */
int nd_test_gpu_count(void)
{
    static int count = -1;
    if (count >= 0) return count;
    const char *fk = getenv("CK_FORK");
    if (fk && strcmp(fk, "no") == 0) return count = nd_cuda_device_count();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int n = nd_cuda_device_count();
        _exit(n > 100 ? 100 : n);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        fprintf(stderr, "test runner: the CUDA device probe failed; GPU tests are not added\n");
        return count = 0;
    }
    return count = WEXITSTATUS(status);
}

typedef Suite *(*suite_fn)(void);

/* The suites, in the order they run, by family. Each is declared weak: a
 * missing suite is reported, never counted as passed. */
/* the base, the devices and the checks across families */
#define SUITES_BASE(X) X(core) X(dtype) X(creation) X(views) X(elementwise) X(reduce) X(linalg) X(random) X(npy) X(dlpack) X(pool) X(runtime) X(gpu) X(gpu_ew) X(gpu_reduce) X(gpu_linalg) X(gpu_random) X(gpu_warp) X(gpu_streams) X(gpu_memory) X(graph) X(coverage) X(vmath) X(out) X(findings) X(doors) X(faults) X(threads) X(unique) X(fft_core) X(complex)
/* indexing */
#define SUITES_INDEX(X) X(index) X(index_mask)
/* sorting, searching, order statistics */
#define SUITES_SORT(X) X(sort) X(sort_stats)
/* scans and nan-reductions */
#define SUITES_SCAN(X) X(scan) X(reduce_nan)
/* manipulation, einsum */
#define SUITES_MANIP(X) X(manip) X(einsum)
/* the profiler: the recorder, the hooks in every op, the reports */
#define SUITES_PROF(X) X(profiler) X(profiler_ops) X(profiler_report)
/* mixed precision: softmax and cross-entropy, loss scaling, half matmul */
#define SUITES_MIXED(X) X(softmax) X(amp) X(matmul_half)
/* the FFT */
#define SUITES_FFT(X) X(fft)
/* complex numbers: the math bodies, matmul, reductions, elementwise */
#define SUITES_COMPLEX(X) X(ops_cpx) X(matmul_cpx) X(reduce_cpx) X(complex_ew)
/* linear algebra: the la slot of every compiled-in backend, the decompositions, norms and products */
#define SUITES_LINALG(X) X(la_slot) X(linalg_decomp) X(linalg_norm)
/* result shapes whose size passes 2^63, every op family */
#define SUITES_SZ(X) X(sizes)
/* run-time compiled kernels: elementwise from a C body, raw CUDA source */
#define SUITES_KERNEL(X) X(kernel) X(kernel_raw)
/* fused expressions (nd_expr_eval) */
#define SUITES_EXPR(X) X(expr)
/* the out rule's core cases for every public function with an out-pointer (tools/out_api.py) */
#define SUITES_OUTAPI(X) X(out_api)
/* the random distributions beyond uniform and normal (src/shared/philox_dist.h) */
#define SUITES_RANDOM(X) X(random_dist)
/* the special functions and activations (tests/test_special.c, tests/test_special_gamma.c) */
#define SUITES_SPECIAL(X) X(special) X(special_gamma)

/* sparse matrices (src/sparse, src/cpu/sparse.c) */
#define SUITES_SPARSE(X) X(sparse) X(sparse_npz)

#define SUITES(X) SUITES_BASE(X) SUITES_INDEX(X) SUITES_SORT(X) SUITES_SCAN(X) SUITES_MANIP(X) SUITES_PROF(X) \
    SUITES_MIXED(X) SUITES_FFT(X) SUITES_COMPLEX(X) SUITES_LINALG(X) SUITES_SZ(X) SUITES_OUTAPI(X) SUITES_KERNEL(X) \
    SUITES_EXPR(X) SUITES_SPECIAL(X) SUITES_RANDOM(X) SUITES_SPARSE(X)
#define X(n) __attribute__((weak)) Suite *suite_##n(void);
SUITES(X)
#undef X

int main(void)
{
    SRunner *sr = srunner_create(NULL);
    int missing = 0;
#define X(n)                                                            \
    if (suite_##n) srunner_add_suite(sr, suite_##n());                  \
    else { fprintf(stderr, "suite '%s' is MISSING\n", #n); missing++; }
    SUITES(X)
#undef X
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return (failed == 0 && missing == 0) ? 0 : 1;
}
