/* The CPU thread pool (src/cpu/threads.c) at process exit. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
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

Suite *suite_threads(void)
{
    Suite *s = suite_create("threads");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, exit_while_a_parallel_op_runs);
    tcase_add_test(tc, thread_count_reaches_openblas);
    suite_add_tcase(s, tc);
    return s;
}
