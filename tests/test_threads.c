/* The CPU thread pool (src/cpu/threads.c) at process exit. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu/blas.h"

#include "cpu/cpu.h"
#include "test_util.h"

static atomic_int g_inside;

/* Never returns: a parallel op that is still running when the process
 * exits. */
static void blocking_body(void *ctx, int64_t begin, int64_t end)
{
    (void)ctx, (void)begin, (void)end;
    atomic_fetch_add(&g_inside, 1);
    for (;;) pause();
}

static void noop_body(void *ctx, int64_t begin, int64_t end) { (void)ctx, (void)begin, (void)end; }

static void *job_thread(void *arg)
{
    (void)arg;
    nd__parallel_for(64, 1 << 20, blocking_body, NULL);
    return NULL;
}

/* Finding: process exit while another thread is inside a
 * parallel op. The pool's exit handler stopped and joined the workers
 * without holding the pool, racing with that thread's pool_grow (a data
 * race under ThreadSanitizer) and joining workers that were inside the
 * op's body - here forever. The handler now takes the pool first and, when
 * a job holds it, leaves the workers to the process's end. The child
 * exits while a worker (not only the calling thread) is inside the body;
 * it must exit normally. */
START_TEST(exit_while_a_parallel_op_runs)
{
    const char *fk = getenv("CK_FORK");
    if (fk && strcmp(fk, "no") == 0 && nd_test_gpu_count() > 0) {
        /* one process for the whole suite: the (emulated) GPU runtime's
         * threads exist, and their exit handlers in a forked child are not
         * what this tests */
        printf("threads: exit test SKIPPED (CK_FORK=no with a GPU runtime started)\n");
        return;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        nd_set_num_threads(4);
        /* start the workers: a worker started by a job's own pool_grow may
         * miss that job (the caller then runs its chunks) */
        nd__parallel_for(64, 1 << 20, noop_body, NULL);
        pthread_t t;
        if (pthread_create(&t, NULL, job_thread, NULL) != 0) _exit(3);
        while (atomic_load(&g_inside) < 2) usleep(1000);
        exit(0);
    }
    ck_assert_int_gt(pid, 0);
    int status = 0;
    pid_t w = 0;
    /* a hang, not a time, is what fails: the child exits at once or never */
    for (int i = 0; i < 6000 && (w = waitpid(pid, &status, WNOHANG)) == 0; i++) usleep(10000);
    if (w == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    ck_assert_msg(w == pid, "exit() hung: the pool's exit handler waits for a worker inside a parallel op");
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child ended with status %d", status);
}
END_TEST

/* A thread count the user chooses reaches OpenBLAS too (matmul), from the
 * next matmul on; nd_set_num_threads(0) gives OpenBLAS the default back. */
START_TEST(thread_count_reaches_openblas)
{
    int64_t n = 64;
    nd_array *a = NULL, *c = NULL;
    ND_OK_OR_FAIL(nd_ones(&a, ND_FLOAT64, 2, (const int64_t[]){n, n}, nd_cpu()));
    ND_OK_OR_FAIL(nd_set_num_threads(1));
    ND_OK_OR_FAIL(nd_matmul(&c, a, a));
    ck_assert_int_eq(nd__blas_get_threads(), 1);
    double *v = malloc(sizeof(double) * (size_t)(n * n));
    ND_OK_OR_FAIL(nd_copy_to_host(v, c, sizeof(double) * (size_t)(n * n)));
    for (int64_t i = 0; i < n * n; i++) ck_assert(v[i] == (double)n); /* one thread computes the same */
    free(v);
    nd_release(c), c = NULL;
    ND_OK_OR_FAIL(nd_set_num_threads(2));
    ND_OK_OR_FAIL(nd_matmul(&c, a, a));
    ck_assert_int_eq(nd__blas_get_threads(), 2);
    ND_OK_OR_FAIL(nd_set_num_threads(0));
    nd_release(c), c = NULL;
    ND_OK_OR_FAIL(nd_matmul(&c, a, a));
    ck_assert_int_eq(nd__blas_get_threads(), nd_get_num_threads());
    nd_release(a), nd_release(c);
}
END_TEST

/* A batch of medium matrices runs with OpenBLAS on one thread inside our
 * threads; OpenBLAS has the library's count again afterwards. */
START_TEST(medium_batch_restores_openblas_threads)
{
    nd_array *a = NULL, *c = NULL;
    ND_OK_OR_FAIL(nd_ones(&a, ND_FLOAT64, 3, (const int64_t[]){8, 100, 100}, nd_cpu()));
    ND_OK_OR_FAIL(nd_set_num_threads(2));
    ND_OK_OR_FAIL(nd_matmul(&c, a, a));
    ck_assert_int_eq(nd__blas_get_threads(), 2);
    double *v = malloc(sizeof(double) * 80000);
    ND_OK_OR_FAIL(nd_copy_to_host(v, c, sizeof(double) * 80000));
    for (int i = 0; i < 80000; i++) ck_assert(v[i] == 100.0);
    free(v);
    ND_OK_OR_FAIL(nd_set_num_threads(0));
    nd_release(a), nd_release(c);
}
END_TEST

/* A gang's members run at once: each waits (up to 20 s) until all have
 * arrived, which members run one after the other on fewer threads never
 * do. From the caller with the pool free (the pool's workers), and from
 * inside a parallel-for body (the pool busy: threads of their own). */
typedef struct {
    int n;
    atomic_int arrived, timed_out, ran;
} gang_meet;

static void meet_member(void *p, int member)
{
    gang_meet *m = p;
    (void)member;
    atomic_fetch_add(&m->arrived, 1);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (atomic_load(&m->arrived) < m->n) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 20) {
            atomic_store(&m->timed_out, 1);
            break;
        }
        sched_yield();
    }
    atomic_fetch_add(&m->ran, 1);
}

static void gang_check(int n)
{
    gang_meet m = {.n = n};
    nd__parallel_gang(n, meet_member, &m);
    ck_assert_msg(!atomic_load(&m.timed_out), "a gang of %d: its members did not run at once", n);
    ck_assert_int_eq(atomic_load(&m.ran), n);
}

static void gang_in_body(void *p, int64_t begin, int64_t end)
{
    (void)p;
    for (int64_t i = begin; i < end; i++)
        if (i == 0) gang_check(3);
}

START_TEST(gang_members_run_at_once)
{
    ND_OK_OR_FAIL(nd_set_num_threads(2));
    for (int n = 1; n <= 4; n++) gang_check(n); /* 3 and 4: more members than the thread count */
    nd__parallel_for(64, 1 << 20, gang_in_body, NULL);
    ND_OK_OR_FAIL(nd_set_num_threads(0));
}
END_TEST

/* Where OpenBLAS takes a threading callback, its parallel sections run as
 * gangs on the pool (src/cpu/threads.c), and a threaded GEMM through them
 * gives the exact integer result. */
START_TEST(openblas_runs_on_the_pool)
{
    const long before = nd__blas_gangs();
    if (before < 0) return; /* a BLAS with threads of its own */
    int64_t n = 512;
    nd_array *a = NULL, *c = NULL;
    ND_OK_OR_FAIL(nd_set_num_threads(2));
    ND_OK_OR_FAIL(nd_arange(&a, ND_FLOAT64, 0, (double)(n * n), 1, nd_cpu()));
    nd_array *a2 = NULL;
    ND_OK_OR_FAIL(nd_reshape(&a2, a, 2, (const int64_t[]){n, n}));
    nd_array *m = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&m, ND_BINARY_REMAINDER, a2, nd_scalar_float(7.0))); /* 0..6: exact sums */
    ND_OK_OR_FAIL(nd_matmul(&c, m, m));
    ck_assert_msg(nd__blas_gangs() > before, "a 512x512 GEMM on 2 threads ran no gang");
    double *x = malloc(sizeof(double) * (size_t)(n * n)), *y = malloc(sizeof(double) * (size_t)(n * n));
    ND_OK_OR_FAIL(nd_copy_to_host(x, m, sizeof(double) * (size_t)(n * n)));
    ND_OK_OR_FAIL(nd_copy_to_host(y, c, sizeof(double) * (size_t)(n * n)));
    for (int64_t i = 0; i < n; i += 37)
        for (int64_t j = 0; j < n; j += 41) {
            double e = 0;
            for (int64_t k = 0; k < n; k++) e += x[i * n + k] * x[k * n + j];
            ck_assert_msg(y[i * n + j] == e, "c[%lld, %lld] = %.17g, want %.17g", (long long)i, (long long)j,
                          y[i * n + j], e);
        }
    free(x), free(y);
    nd_release(a), nd_release(a2), nd_release(m), nd_release(c);
    ND_OK_OR_FAIL(nd_set_num_threads(0));
}
END_TEST

Suite *suite_threads(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, exit_while_a_parallel_op_runs);
    tcase_add_test(tc, thread_count_reaches_openblas);
    tcase_add_test(tc, medium_batch_restores_openblas_threads);
    tcase_add_test(tc, gang_members_run_at_once);
    tcase_add_test(tc, openblas_runs_on_the_pool);
    suite_add_tcase(s, tc);
    return s;
}
