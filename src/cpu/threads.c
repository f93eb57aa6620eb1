/* CPU threading: the thread count, a parallel-for with a size threshold
 * (no thread wake-up for small arrays) and the nd_iter runner.
 *
 * The parallel-for runs on a persistent pool of nd__num_threads() - 1
 * worker threads plus the calling thread (no OpenMP team per call):
 *
 *  - a job is [0, n) cut into chunks whose number depends on n, the cost
 *    and the thread count; threads claim chunks one at a time from one
 *    atomic word, so whoever is running does the work. A worker that the
 *    scheduler has not woken yet (a loaded machine) costs nothing: the
 *    caller takes its chunks instead of waiting a scheduler tick for it;
 *  - idle workers spin briefly on the job counter (back-to-back calls find
 *    them awake), then sleep on a futex; the caller wakes them with one
 *    system call only when some sleep;
 *  - the caller waits (short spin, then futex) only for chunks that a
 *    worker has already claimed;
 *  - one job at a time: a call made while the pool is busy (another user
 *    thread, or a nested call from inside a body) runs inline.
 *
 * Bodies see contiguous ranges [begin, end); which thread runs which
 * range varies from call to call, so callers that need deterministic
 * results (the reductions) make their work units and their combination
 * order depend on the shape only - they already must for any thread
 * count.
 *
 * The claim word packs (generation, number of chunks, next chunk): a
 * claim that returns an index below the chunk count owns that chunk of
 * the job that the generation names, and that job cannot finish (nor its
 * description be overwritten) before the chunk is reported done. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() __asm__ __volatile__("" ::: "memory")
#endif

#include "cpu/cpu.h"

#include "cpu/blas.h"

/* Work below this many element-costs runs on the calling thread. */
#define ND_PARALLEL_THRESHOLD (1 << 15)
/* Chunks per participating thread (load balance on a noisy machine). */
#define CHUNKS_PER_THREAD 4
/* Polls (with a pause, ~60 ns on this AMD VM) before an idle worker /
 * a waiting caller sleeps: ~120 us / ~30 us. Short, so that spinning
 * threads do not steal the cores of a loaded machine for long. While a
 * LAPACK routine runs (nd__pool_linger_begin/end) an idle worker goes on
 * polling past that instead of sleeping, as OpenBLAS's own threads would
 * (they spin a tenth of a second after each call), yielding its core
 * every 256 polls: LAPACK alternates serial stretches longer than the
 * spin (the panel of a bidiagonal or tridiagonal reduction, the merges of
 * divide and conquer) with parallel BLAS calls that run on the pool (the
 * OpenBLAS callback below), and each futex wake cost tens of microseconds
 * on the VM. svd of 1024 x 1024 made about 1200 futex calls, 220 with the
 * linger. Measured on the 2-core AMD EPYC, float64 1024 x 1024, five
 * interleaved runs of bench_linalg: svd 338-341 ms (sleeping: 353-379;
 * a sched_yield at every poll: 347-361, the scheduler's cost), eigh
 * 114-117 (120-130), qr 73-76 (77-78). */
#define WORKER_SPIN 2000
#define CALLER_SPIN 500
#define MAX_WORKERS 255

static atomic_int nd_threads; /* 0 = not yet decided */

static int default_threads(void)
{
    const char *env = getenv("ND_NUM_THREADS");
    if (env) {
        int n = atoi(env);
        if (n > 0) return n;
    }
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int c = CPU_COUNT(&set);
        if (c > 0) return c;
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Whether the thread count was chosen (ND_NUM_THREADS, nd_set_num_threads
 * with n > 0) and what OpenBLAS was last told (0: never, its own default). */
static atomic_bool nd_threads_chosen;
static atomic_int nd_blas_threads;

void nd__blas_threads_sync(void)
{
    int n = nd__num_threads();
    bool chosen = atomic_load_explicit(&nd_threads_chosen, memory_order_relaxed);
    int applied = atomic_load_explicit(&nd_blas_threads, memory_order_relaxed);
    if ((chosen || applied) && n != applied) {
        nd__blas_set_threads(n);
        atomic_store_explicit(&nd_blas_threads, n, memory_order_relaxed);
    }
}

/* OpenBLAS on one thread for a while: nested sections are counted, the
 * last one restores the count it found. A concurrent BLAS call of another
 * user thread may run single-threaded meanwhile (correct, just slower). */
static pthread_mutex_t blas_single_mu = PTHREAD_MUTEX_INITIALIZER;
static int blas_single_depth, blas_single_saved;

void nd__blas_single_begin(void)
{
    pthread_mutex_lock(&blas_single_mu);
    if (blas_single_depth++ == 0) {
        blas_single_saved = nd__blas_get_threads();
        if (blas_single_saved != 1) nd__blas_set_threads(1);
    }
    pthread_mutex_unlock(&blas_single_mu);
}

void nd__blas_single_end(void)
{
    pthread_mutex_lock(&blas_single_mu);
    if (--blas_single_depth == 0 && blas_single_saved != 1) nd__blas_set_threads(blas_single_saved);
    pthread_mutex_unlock(&blas_single_mu);
}

int nd__num_threads(void)
{
    int n = atomic_load_explicit(&nd_threads, memory_order_relaxed);
    if (n == 0) {
        n = default_threads();
        const char *env = getenv("ND_NUM_THREADS");
        if (env && atoi(env) > 0) atomic_store_explicit(&nd_threads_chosen, true, memory_order_relaxed);
        atomic_store_explicit(&nd_threads, n, memory_order_relaxed);
    }
    return n;
}

nd_status nd_set_num_threads(int n)
{
    if (n < 0) return nd__err(ND_ERR_INVALID, "nd_set_num_threads", "n = %d is negative", n);
    atomic_store_explicit(&nd_threads, n == 0 ? default_threads() : n, memory_order_relaxed);
    const char *env = getenv("ND_NUM_THREADS");
    atomic_store_explicit(&nd_threads_chosen, n > 0 || (env && atoi(env) > 0), memory_order_relaxed);
    return ND_OK;
}

int nd_get_num_threads(void) { return nd__num_threads(); }

/* ------------------------------------------------------------------ */
/* futex                                                               */
/* ------------------------------------------------------------------ */
static void futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
#ifdef __linux__
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
#else
    (void)addr, (void)val;
    sched_yield();
#endif
}

static void futex_wake(_Atomic uint32_t *addr, int n)
{
#ifdef __linux__
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
#else
    (void)addr, (void)n;
#endif
}

/* ------------------------------------------------------------------ */
/* The pool                                                            */
/* ------------------------------------------------------------------ */
#define GEN_SHIFT 40
#define NCH_SHIFT 24
#define IDX_MASK ((UINT64_C(1) << NCH_SHIFT) - 1)
#define NCH_MAX 0xffff

static struct {
    _Alignas(64) _Atomic uint64_t claim; /* gen | nchunks | next chunk */
    _Alignas(64) _Atomic uint32_t done;  /* chunks finished (futex of the caller) */
    atomic_int caller_waiting;
    _Alignas(64) _Atomic uint32_t wake;  /* bumped per job (futex of the workers) */
    atomic_int sleepers;
    atomic_int linger;                   /* > 0: idle workers poll instead of sleeping */
    atomic_int maxw;                     /* workers that may join the job */
    atomic_int stop;
    _Alignas(64) atomic_int busy;        /* one job at a time */
    /* the job: written by the caller before the claim word is published */
    nd_range_fn body;
    void *ctx;
    int64_t n, nchunks;
    uint64_t gen;
    bool gang; /* nd__parallel_gang: one chunk per thread, all at once */
    /* workers */
    int nworkers;
    pid_t pid; /* process that started them (a forked child has none) */
    pthread_t th[MAX_WORKERS];
    uint32_t wake0[MAX_WORKERS]; /* P.wake when each was started */
} P;

void nd__pool_linger_begin(void) { atomic_fetch_add(&P.linger, 1); }

void nd__pool_linger_end(void) { atomic_fetch_sub(&P.linger, 1); }

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* Run claimed chunks until none are left; returns once the word runs dry. */
static void run_chunks(bool worker)
{
    for (;;) {
        uint64_t old = atomic_fetch_add_explicit(&P.claim, 1, memory_order_acq_rel);
        uint64_t nch = (old >> NCH_SHIFT) & NCH_MAX, idx = old & IDX_MASK;
        if (idx >= nch) return;
        const bool gang = P.gang; /* the claimed job's: it cannot end before this chunk does */
        int64_t n = P.n, c = (int64_t)idx, C = (int64_t)nch;
        int64_t b = n * c / C, e = n * (c + 1) / C;
        if (e > b) P.body(P.ctx, b, e);
        uint32_t d = atomic_fetch_add(&P.done, 1) + 1; /* seq_cst: pairs with caller_waiting */
        if (worker && d == (uint32_t)nch && atomic_load(&P.caller_waiting)) futex_wake(&P.done, 1);
        if (gang) return; /* a gang member runs one member's part, never two */
    }
}

static void *worker_main(void *arg)
{
    int id = (int)(intptr_t)arg;
    /* the job count when it was started, not when it first runs: a job
     * published in between is one it must see (a gang waits for it) */
    uint32_t seen = P.wake0[id];
    for (;;) {
        uint32_t w;
        int spins = 0;
        unsigned polls = 0;
        while ((w = atomic_load_explicit(&P.wake, memory_order_acquire)) == seen) {
            if (atomic_load_explicit(&P.stop, memory_order_relaxed)) return NULL;
            if (++spins < WORKER_SPIN) {
                cpu_relax();
                continue;
            }
            if (atomic_load_explicit(&P.linger, memory_order_relaxed) > 0) {
                if ((++polls & 255u) == 0) sched_yield(); /* now and then: a loaded machine's other threads */
                else cpu_relax();
                continue;
            }
            atomic_fetch_add(&P.sleepers, 1);
            if (atomic_load(&P.wake) == seen && !atomic_load(&P.stop)) futex_wait(&P.wake, seen);
            atomic_fetch_sub(&P.sleepers, 1);
            spins = WORKER_SPIN; /* woken: check, and sleep again if spurious */
        }
        seen = w;
        if (atomic_load_explicit(&P.stop, memory_order_relaxed)) return NULL;
        if (id < atomic_load_explicit(&P.maxw, memory_order_relaxed)) run_chunks(true);
    }
}

/* The exit handler. It takes the pool as a job would (the busy flag) and
 * never gives it back, so that nothing starts workers (pool_grow runs only
 * under the flag) while they are joined, and parallel ops that other
 * threads still run during the exit go inline. When a job holds the pool
 * (another thread is inside a parallel op while the process exits, or
 * exit was called from a body) the workers are left alone: joining them
 * could wait for that op forever, and the process's end stops them. */
static void pool_stop(void)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&P.busy, &expected, 1)) return;
    if (P.nworkers == 0 || P.pid != getpid()) return;
    atomic_store(&P.stop, 1);
    atomic_fetch_add(&P.wake, 1);
    futex_wake(&P.wake, MAX_WORKERS);
    for (int i = 0; i < P.nworkers; i++) pthread_join(P.th[i], NULL);
    P.nworkers = 0;
}

/* In a forked child the workers do not exist: start afresh. */
static void pool_after_fork(void)
{
    P.nworkers = 0;
    atomic_store(&P.linger, 0); /* the other threads' routines do not go on in the child */
    atomic_store(&P.busy, 0);
    atomic_store(&P.sleepers, 0);
    atomic_store(&P.caller_waiting, 0);
    atomic_store(&P.stop, 0);
}

static void pool_init_once(void)
{
    pthread_atfork(NULL, NULL, pool_after_fork);
    atexit(pool_stop);
}

/* Make sure want workers exist (called with the pool held); returns how
 * many there are. */
static int pool_grow(int want)
{
    if (want > MAX_WORKERS) want = MAX_WORKERS;
    if (P.nworkers >= want) return P.nworkers;
    pthread_once(&pool_once, pool_init_once);
    if (P.nworkers == 0) P.pid = getpid();
    pthread_attr_t attr;
    bool attr_ok = pthread_attr_init(&attr) == 0;
    if (attr_ok) pthread_attr_setstacksize(&attr, (size_t)8 << 20);
    while (P.nworkers < want) {
        P.wake0[P.nworkers] = atomic_load(&P.wake);
        if (pthread_create(&P.th[P.nworkers], attr_ok ? &attr : NULL, worker_main, (void *)(intptr_t)P.nworkers) != 0)
            break;
        P.nworkers++;
    }
    if (attr_ok) pthread_attr_destroy(&attr);
    return P.nworkers;
}

/* Publish a job of nch chunks over [0, n) to the caller and maxw workers
 * (the pool held, enough workers started), run the caller's share, wait
 * for the workers' and give the pool back. A gang job gives each thread
 * one chunk (nch = maxw + 1): all of them run at once. */
static void pool_run(nd_range_fn body, void *ctx, int64_t n, int64_t nch, int maxw, bool gang)
{
    P.body = body;
    P.ctx = ctx;
    P.n = n;
    P.nchunks = nch;
    P.gang = gang;
    P.gen = (P.gen + 1) & ((UINT64_C(1) << (64 - GEN_SHIFT)) - 1);
    atomic_store(&P.done, 0);
    atomic_store(&P.maxw, maxw);
    atomic_store_explicit(&P.claim, (P.gen << GEN_SHIFT) | ((uint64_t)nch << NCH_SHIFT), memory_order_release);
    atomic_fetch_add(&P.wake, 1);
    if (atomic_load(&P.sleepers) > 0) futex_wake(&P.wake, MAX_WORKERS);

    run_chunks(false);

    /* wait for chunks that workers claimed */
    uint32_t d;
    int spins = 0;
    while ((d = atomic_load(&P.done)) != (uint32_t)nch) {
        if (++spins < CALLER_SPIN) {
            cpu_relax();
            continue;
        }
        atomic_store(&P.caller_waiting, 1);
        d = atomic_load(&P.done);
        if (d != (uint32_t)nch) futex_wait(&P.done, d);
        atomic_store(&P.caller_waiting, 0);
    }
    atomic_store_explicit(&P.busy, 0, memory_order_release);
}

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
    int expected = 0;
    if (!atomic_compare_exchange_strong(&P.busy, &expected, 1)) { /* nested, or another thread's job */
        body(ctx, 0, n);
        return;
    }
    int64_t maxt = work / (ND_PARALLEL_THRESHOLD / 2);
    if (maxt < nt) nt = (int)(maxt < 2 ? 2 : maxt);
    if (nt > n) nt = (int)n;
    int nw = pool_grow(nt - 1);
    if (nw < nt - 1) nt = nw + 1;
    if (nt <= 1) {
        atomic_store(&P.busy, 0);
        body(ctx, 0, n);
        return;
    }
    int64_t nch = (int64_t)nt * CHUNKS_PER_THREAD;
    if (nch > work / (ND_PARALLEL_THRESHOLD / 4)) nch = work / (ND_PARALLEL_THRESHOLD / 4);
    if (nch < nt) nch = nt;
    if (nch > n) nch = n;
    if (nch > NCH_MAX) nch = NCH_MAX;

    pool_run(body, ctx, n, nch, nt - 1, false);
}

/* ------------------------------------------------------------------ */
/* Gangs                                                               */
/* ------------------------------------------------------------------ */
typedef struct {
    nd_gang_fn fn;
    void *ctx;
} gang_job;

static void gang_range(void *p, int64_t begin, int64_t end)
{
    const gang_job *g = p;
    for (int64_t i = begin; i < end; i++) g->fn(g->ctx, (int)i);
}

typedef struct {
    const gang_job *g;
    int i;
} gang_thread_arg;

static void *gang_thread(void *p)
{
    const gang_thread_arg *a = p;
    a->g->fn(a->g->ctx, a->i);
    return NULL;
}

void nd__parallel_gang(int n, nd_gang_fn fn, void *ctx)
{
    if (n <= 0) return;
    gang_job g = {fn, ctx};
    if (n == 1) {
        fn(ctx, 0);
        return;
    }
    int expected = 0;
    if (n <= NCH_MAX && atomic_compare_exchange_strong(&P.busy, &expected, 1)) {
        if (pool_grow(n - 1) >= n - 1) { /* the caller and n - 1 workers, one member each */
            pool_run(gang_range, &g, n, n, n - 1, true);
            return;
        }
        atomic_store(&P.busy, 0);
    }
    /* the pool is busy (another thread's job, or a nested call) or short of
     * workers: members of their own, started for this gang (on the stack:
     * no allocation that could fail; OpenBLAS's gangs are at most its
     * MAX_THREADS, 64 in scipy-openblas32) */
    enum { LOCAL = MAX_WORKERS + 1 };
    pthread_t th[LOCAL];
    gang_thread_arg arg[LOCAL];
    bool started[LOCAL] = {false};
    for (int i = 1; i < n && i < LOCAL; i++) {
        arg[i] = (gang_thread_arg){&g, i};
        started[i] = pthread_create(&th[i], NULL, gang_thread, &arg[i]) == 0;
    }
    fn(ctx, 0);
    for (int i = 1; i < n; i++) {
        if (i < LOCAL && started[i]) pthread_join(th[i], NULL);
        else fn(ctx, i); /* no thread could be started: inline, the last resort */
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

/* ------------------------------------------------------------------ */
/* OpenBLAS's threads are ours                                          */
/* ------------------------------------------------------------------ */
/* OpenBLAS keeps worker threads of its own, which after each threaded
 * call spin (yielding) for about 2^28 cycles, a tenth of a second, before
 * they sleep. On a machine with as many cores as threads, a parallel op of
 * ours right after a BLAS call (the usual order in a training step:
 * matmul, then elementwise) shared its cores with them and ran at half
 * speed: 1000 products of 16x16 took 150 us instead of 60 on 2 cores.
 * OpenBLAS >= 0.3.27 runs its parallel sections through a callback
 * instead when one is set: ours runs them as a gang on the pool, so one
 * set of threads serves both and OpenBLAS's own never wake. Its members
 * use OpenBLAS's per-thread buffers by member index, so two gangs (two
 * user threads calling BLAS at once) take turns. The distribution's
 * OpenBLAS 0.3.21 and BLIS have no such callback and keep their threads.
 *
 * OpenBLAS starts its own threads when it loads anyway (before any
 * callback can be set), and they spin until their time-out finds their
 * queue word empty. A member of a gang marks the queue word of the thread
 * whose index it is given as busy while it runs, as a thread of OpenBLAS's
 * own would: given index 0, a member kept OpenBLAS's idle thread 0
 * spinning through back-to-back products, on a core our pool needed (seen
 * on a 2-core AMD EPYC: dgemm 1024 at 50 ms instead of 25 in about half
 * of the processes, whichever won the race at load). So members get the
 * indexes after those of OpenBLAS's own threads (whose count is the most
 * threads OpenBLAS was ever set to use, less the caller); the index
 * selects the member's buffers, nothing else. */
#if ND_BLAS_ON_POOL
typedef void (*nd_ob_dojob)(int member, void *jobdata, int dojob_data);
typedef struct {
    nd_ob_dojob dojob;
    char *data;
    size_t elsize;
    int dojob_data;
    int first; /* the members' thread indexes are first, first + 1, ... */
} ob_gang;

static pthread_mutex_t ob_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_long ob_gangs;
/* OpenBLAS's own threads: the most threads it was set to use (at load, or
 * since), less the caller; and the size of its per-thread tables
 * (MAX_THREADS of its configuration) */
static int ob_servers, ob_max_threads = 64;

static void ob_member(void *p, int i)
{
    const ob_gang *g = p;
    g->dojob(g->first + i, g->data + (size_t)i * g->elsize, g->dojob_data);
}

static void ob_threads(int sync, nd_ob_dojob dojob, int numjobs, size_t elsize, void *jobdata, int dojob_data)
{
    (void)sync; /* OpenBLAS always waits for its jobs (sync = 1); so do we */
    ob_gang g = {dojob, jobdata, elsize, dojob_data, 0};
    pthread_mutex_lock(&ob_lock);
    int now = openblas_get_num_threads() - 1;
    if (now > ob_servers) ob_servers = now;
    g.first = ob_servers;
    if (g.first + numjobs > ob_max_threads) g.first = numjobs < ob_max_threads ? ob_max_threads - numjobs : 0;
    atomic_fetch_add_explicit(&ob_gangs, 1, memory_order_relaxed);
    nd__parallel_gang(numjobs, ob_member, &g);
    pthread_mutex_unlock(&ob_lock);
}

static void ob_after_fork(void) { pthread_mutex_init(&ob_lock, NULL); }

/* Before any BLAS call of the library (OpenBLAS asks for the callback to be
 * set before its first threaded call). */
__attribute__((constructor)) static void ob_threads_install(void)
{
    ob_servers = openblas_get_num_threads() - 1;
    const char *cfg = openblas_get_config(), *m = cfg ? strstr(cfg, "MAX_THREADS=") : NULL;
    if (m && atoi(m + 12) > 0) ob_max_threads = atoi(m + 12);
    pthread_atfork(NULL, NULL, ob_after_fork);
    scipy_openblas_set_threads_callback_function(ob_threads);
}

long nd__blas_gangs(void) { return atomic_load_explicit(&ob_gangs, memory_order_relaxed); }
#else
long nd__blas_gangs(void) { return -1; }
#endif
