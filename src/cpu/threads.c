/* CPU threading: the thread count, a parallel-for with a size threshold
 * (no thread start-up for small arrays) and the nd_iter runner. */
#include <omp.h>
#include <stdlib.h>

#include "cpu/cpu.h"

/* Work below this many element-costs runs on the calling thread. */
#define ND_PARALLEL_THRESHOLD (1 << 15)

static atomic_int nd_threads; /* 0 = not yet decided */

static int default_threads(void)
{
    const char *env = getenv("ND_NUM_THREADS");
    if (env) {
        int n = atoi(env);
        if (n > 0) return n;
    }
    int n = omp_get_num_procs();
    return n > 0 ? n : 1;
}

int nd__num_threads(void)
{
    int n = atomic_load_explicit(&nd_threads, memory_order_relaxed);
    if (n == 0) {
        n = default_threads();
        atomic_store_explicit(&nd_threads, n, memory_order_relaxed);
    }
    return n;
}

nd_status nd_set_num_threads(int n)
{
    if (n < 0) return nd__err(ND_ERR_INVALID, "nd_set_num_threads", "n = %d is negative", n);
    atomic_store_explicit(&nd_threads, n == 0 ? default_threads() : n, memory_order_relaxed);
    return ND_OK;
}

int nd_get_num_threads(void) { return nd__num_threads(); }

void nd__parallel_for(int64_t n, int64_t cost, nd_range_fn body, void *ctx)
{
    int nt = nd__num_threads();
    if (cost < 1) cost = 1;
    int64_t work;
    if (__builtin_mul_overflow(n, cost, &work)) work = INT64_MAX;
    if (nt <= 1 || work < ND_PARALLEL_THRESHOLD || n < 2) {
        if (n > 0) body(ctx, 0, n);
        return;
    }
    int64_t maxt = work / (ND_PARALLEL_THRESHOLD / 2);
    if (maxt < nt) nt = (int)(maxt < 2 ? 2 : maxt);
    if (nt > n) nt = (int)n;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int64_t b = n * t / T, e = n * (t + 1) / T;
        if (e > b) body(ctx, b, e);
    }
}

typedef struct {
    const nd_iter *it;
    nd_loop_fn loop;
    const void *ctx;
} iter_job;

/* Run elements [begin, end) of the flattened iteration space. */
static void iter_range(void *p, int64_t begin, int64_t end)
{
    const iter_job *job = p;
    const nd_iter *it = job->it;
    int nd = it->ndim, nops = it->nops;
    int64_t inner = it->shape[nd - 1];
    int64_t idx[ND_MAX_DIMS];
    char *ptr[ND_ITER_MAX_OPS];
    int64_t steps[ND_ITER_MAX_OPS];
    /* unravel begin */
    int64_t rem = begin;
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = rem % it->shape[d];
        rem /= it->shape[d];
    }
    for (int k = 0; k < nops; k++) {
        ptr[k] = it->data[k];
        for (int d = 0; d < nd; d++) ptr[k] += idx[d] * it->strides[k][d];
        steps[k] = it->strides[k][nd - 1];
    }
    int64_t pos = begin;
    while (pos < end) {
        int64_t cnt = inner - idx[nd - 1];
        if (cnt > end - pos) cnt = end - pos;
        char *args[ND_ITER_MAX_OPS]; /* a copy: loops may advance their args */
        for (int k = 0; k < nops; k++) args[k] = ptr[k];
        job->loop(args, steps, cnt, job->ctx);
        pos += cnt;
        if (pos >= end) break;
        /* advance to the start of the next row */
        for (int k = 0; k < nops; k++) ptr[k] += cnt * steps[k];
        idx[nd - 1] += cnt;
        for (int d = nd - 1; d > 0 && idx[d] == it->shape[d]; d--) {
            for (int k = 0; k < nops; k++) ptr[k] += it->strides[k][d - 1] - it->shape[d] * it->strides[k][d];
            idx[d] = 0;
            idx[d - 1]++;
        }
    }
}

void nd__iter_run(const nd_iter *it, nd_loop_fn loop, const void *ctx, int64_t cost)
{
    if (it->size == 0) return;
    iter_job job = {it, loop, ctx};
    nd__parallel_for(it->size, cost, iter_range, &job);
}
