/* GPU collectives through NCCL, loaded at run time.
 *
 * Compiled in (ND_MPI_NCCL, mk/mpi.mk) in real CUDA builds whose toolkit
 * has nccl.h; the library itself (libnccl.so.2) is opened with dlopen on
 * first use, so a machine without NCCL still runs libndgpu_mpi (GPU arrays
 * are then staged through pinned host memory and MPI). ND_COMM_NCCL=0 in
 * the environment forces the staged path.
 *
 * One NCCL communicator per nd_comm, created on the first NCCL collective
 * from a unique id that rank 0 makes and MPI broadcasts (the NCCL docs'
 * recipe), on the device of that collective's array. The argument check
 * (comm.c) makes the choice collective: a rank whose array is on another
 * device than the one its NCCL communicator was made for, or whose dtype
 * NCCL lacks (int16, uint16), votes for the staged path, and every rank
 * follows.
 *
 * Calls are queued on the array's current stream (nd_get_stream) and
 * return without waiting, as every GPU op of libndgpu does. NCCL has no
 * int16/uint16/bool: bool travels as uint8 with max (or) / min (and).
 *
 * Failures that happen later (a peer that died, a network error) are
 * NCCL's asynchronous errors: the communicator is made non-blocking where
 * NCCL has that (2.14 and later), and every wait for it (its creation, a
 * call NCCL is still enqueueing, ncclCommFinalize at nd_comm_destroy)
 * polls ncclCommGetAsyncError instead of blocking inside NCCL; nd_test
 * and nd_wait of an NCCL request check it too. An error (or, with
 * ND_COMM_TIMEOUT=seconds in the environment, a wait that lasts longer)
 * aborts the communicator (ncclCommAbort, which also ends its queued
 * kernels) and is reported as ND_ERR_BACKEND; later NCCL collectives on
 * that nd_comm fail at once. nd_comm_destroy flushes the communicator
 * with ncclCommFinalize before ncclCommDestroy, as NCCL asks. */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

#ifndef ND_MPI_NCCL

bool ndm_nccl_usable(nd_device dev, nd_dtype t)
{
    (void)dev, (void)t;
    return false;
}
nd_status ndm_nccl_get(nd_comm *comm, nd_device dev, ndm_nccl **out, const char *fn)
{
    (void)comm, (void)dev, (void)out;
    return nd_set_error(ND_ERR_UNSUPPORTED, fn, "NCCL is not compiled in");
}
void ndm_nccl_destroy(ndm_nccl *n) { (void)n; }
nd_status ndm_nccl_check(ndm_nccl *n, const char *fn)
{
    (void)n, (void)fn;
    return ND_OK;
}
nd_status ndm_nccl_run(ndm_nccl *n, int kind, const void *send, void *recv, size_t count, nd_dtype t, nd_comm_op op,
                       int root, int size, nd_stream *stream, const char *fn)
{
    (void)n, (void)kind, (void)send, (void)recv, (void)count, (void)t, (void)op, (void)root, (void)size, (void)stream;
    return nd_set_error(ND_ERR_UNSUPPORTED, fn, "NCCL is not compiled in");
}

#else

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>
#include <pthread.h>
#include <time.h>

/* Non-blocking communicators and ncclCommFinalize: NCCL 2.14 and later. */
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 14, 0)
#define NDM_NCCL_NONBLOCKING 1
#else
#define NDM_NCCL_NONBLOCKING 0
#endif

struct ndm_nccl {
    ncclComm_t comm;
    int device;
    bool nonblocking; /* calls may return ncclInProgress: poll the state */
    bool broken;      /* aborted after an error: no call reaches NCCL again */
};

static struct {
    pthread_once_t once;
    bool ok;
    ncclResult_t (*get_unique_id)(ncclUniqueId *);
    ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
    ncclResult_t (*comm_destroy)(ncclComm_t);
    const char *(*error_string)(ncclResult_t);
    ncclResult_t (*all_reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*broadcast)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*all_gather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*reduce_scatter)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*group_start)(void);
    ncclResult_t (*group_end)(void);
    /* optional (NULL when the loaded NCCL lacks them) */
    ncclResult_t (*get_async_error)(ncclComm_t, ncclResult_t *);
    ncclResult_t (*comm_abort)(ncclComm_t);
#if NDM_NCCL_NONBLOCKING
    ncclResult_t (*comm_finalize)(ncclComm_t);
    ncclResult_t (*comm_init_rank_config)(ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *);
#endif
} L = {.once = PTHREAD_ONCE_INIT};

static void load(void)
{
    const char *e = getenv("ND_COMM_NCCL");
    if (e && strcmp(e, "0") == 0) return;
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
#ifdef ND_MPI_NCCL_LIB
    /* where the build found NCCL (a pip wheel's folder is not on the
     * loader's path) */
    if (!h) h = dlopen(ND_MPI_NCCL_LIB, RTLD_NOW | RTLD_LOCAL);
#endif
    if (!h) return;
    /* POSIX: a void * from dlsym converts to a function pointer */
#define SYM(field, name) (*(void **)&L.field = dlsym(h, name)) != NULL
    L.ok = SYM(get_unique_id, "ncclGetUniqueId") && SYM(comm_init_rank, "ncclCommInitRank") &&
           SYM(comm_destroy, "ncclCommDestroy") && SYM(error_string, "ncclGetErrorString") &&
           SYM(all_reduce, "ncclAllReduce") && SYM(broadcast, "ncclBroadcast") && SYM(all_gather, "ncclAllGather") &&
           SYM(reduce_scatter, "ncclReduceScatter") && SYM(send, "ncclSend") && SYM(recv, "ncclRecv") &&
           SYM(group_start, "ncclGroupStart") && SYM(group_end, "ncclGroupEnd");
    (void)(SYM(get_async_error, "ncclCommGetAsyncError"));
    (void)(SYM(comm_abort, "ncclCommAbort"));
#if NDM_NCCL_NONBLOCKING
    (void)(SYM(comm_finalize, "ncclCommFinalize"));
    (void)(SYM(comm_init_rank_config, "ncclCommInitRankConfig"));
    if (!L.get_async_error || !L.comm_abort) L.comm_init_rank_config = NULL; /* non-blocking needs both */
#endif
#undef SYM
}

static bool nccl_type(nd_dtype t, ncclDataType_t *out)
{
    switch (t) {
    case ND_BOOL:
    case ND_UINT8: *out = ncclUint8; return true;
    case ND_INT8: *out = ncclInt8; return true;
    case ND_INT32: *out = ncclInt32; return true;
    case ND_UINT32: *out = ncclUint32; return true;
    case ND_INT64: *out = ncclInt64; return true;
    case ND_UINT64: *out = ncclUint64; return true;
    case ND_FLOAT16: *out = ncclFloat16; return true;
    case ND_BFLOAT16: *out = ncclBfloat16; return true;
    case ND_FLOAT32: *out = ncclFloat32; return true;
    case ND_FLOAT64: *out = ncclFloat64; return true;
    default: return false; /* int16, uint16 */
    }
}

static ncclRedOp_t nccl_op(nd_comm_op op, nd_dtype t)
{
    if (t == ND_BOOL) return (op == ND_COMM_PROD || op == ND_COMM_MIN) ? ncclMin : ncclMax;
    switch (op) {
    case ND_COMM_SUM: return ncclSum;
    case ND_COMM_PROD: return ncclProd;
    case ND_COMM_MAX: return ncclMax;
    case ND_COMM_MIN: return ncclMin;
    default: return ncclAvg;
    }
}

bool ndm_nccl_usable(nd_device dev, nd_dtype t)
{
    ncclDataType_t dt;
    if (dev.type != ND_DEVICE_CUDA || !nccl_type(t, &dt)) return false;
    pthread_once(&L.once, load);
    return L.ok;
}

static nd_status nccl_fail(const char *fn, const char *call, ncclResult_t rc)
{
    return nd_set_error(ND_ERR_BACKEND, fn, "%s failed: %s", call, L.error_string ? L.error_string(rc) : "?");
}

static bool in_progress(ncclResult_t rc)
{
#if NDM_NCCL_NONBLOCKING
    return rc == ncclInProgress;
#else
    (void)rc;
    return false;
#endif
}

/* After an error: abort the communicator (its queued kernels end too). */
static void nccl_abort(ndm_nccl *n)
{
    if (n->broken) return;
    n->broken = true;
    if (L.comm_abort) (void)L.comm_abort(n->comm);
}

/* Seconds a wait may last (ND_COMM_TIMEOUT; 0: no limit). */
static double wait_limit(void)
{
    const char *e = getenv("ND_COMM_TIMEOUT");
    double v = e ? strtod(e, NULL) : 0.0;
    return v > 0 ? v : 0.0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The communicator's asynchronous state: ncclSuccess, ncclInProgress, or
 * the error that broke it. */
static ncclResult_t async_state(ndm_nccl *n)
{
    ncclResult_t st = ncclSuccess;
    if (!L.get_async_error) return ncclSuccess;
    ncclResult_t rc = L.get_async_error(n->comm, &st);
    return rc != ncclSuccess ? rc : st;
}

/* rc, what `call` returned: on a non-blocking communicator an operation
 * NCCL is still carrying out (ncclInProgress) is waited for by polling its
 * state, so that an asynchronous error (or the ND_COMM_TIMEOUT limit) ends
 * the wait instead of hanging in NCCL. Any error aborts the communicator. */
static nd_status nccl_settle(ndm_nccl *n, ncclResult_t rc, const char *fn, const char *call)
{
    if (rc == ncclSuccess && !n->nonblocking) return ND_OK;
    if (rc != ncclSuccess && !in_progress(rc)) {
        nccl_abort(n);
        return nccl_fail(fn, call, rc);
    }
    const double limit = wait_limit(), t0 = limit > 0 ? now_s() : 0.0;
    long nap_ns = 1000;
    for (;;) {
        ncclResult_t st = async_state(n);
        if (st == ncclSuccess) return ND_OK;
        if (!in_progress(st)) {
            nccl_abort(n);
            return nccl_fail(fn, call, st);
        }
        if (limit > 0 && now_s() - t0 > limit) {
            nccl_abort(n);
            return nd_set_error(ND_ERR_BACKEND, fn, "%s: no progress in %g s (ND_COMM_TIMEOUT): the communicator is aborted",
                                call, limit);
        }
        struct timespec d = {0, nap_ns};
        nanosleep(&d, NULL);
        if (nap_ns < 1000000) nap_ns *= 2;
    }
}

nd_status ndm_nccl_check(ndm_nccl *n, const char *fn)
{
    if (!n) return ND_OK;
    if (n->broken) return nd_set_error(ND_ERR_BACKEND, fn, "the NCCL communicator was aborted after an error");
    ncclResult_t st = async_state(n);
    if (st == ncclSuccess || in_progress(st)) return ND_OK;
    nccl_abort(n);
    return nccl_fail(fn, "NCCL (asynchronous error)", st);
}

nd_status ndm_nccl_get(nd_comm *c, nd_device dev, ndm_nccl **out, const char *fn)
{
    if (c->nccl) {
        *out = c->nccl;
        return ND_OK;
    }
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    ncclResult_t nr = ncclSuccess;
    if (c->rank == 0) nr = L.get_unique_id(&id);
    /* every rank learns whether rank 0 got an id (else all fail alike) */
    int ok = nr == ncclSuccess;
    int rc = MPI_Bcast(&ok, 1, MPI_INT, 0, c->mc);
    if (rc == MPI_SUCCESS && ok) rc = MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, c->mc);
    if (rc != MPI_SUCCESS) {
        char b[MPI_MAX_ERROR_STRING + 32];
        return nd_set_error(ND_ERR_BACKEND, fn, "MPI_Bcast of the NCCL id failed: %s", ndm_mpi_error(rc, b, sizeof b));
    }
    if (!ok) return c->rank == 0 ? nccl_fail(fn, "ncclGetUniqueId", nr)
                                 : nd_set_error(ND_ERR_BACKEND, fn, "rank 0 could not create the NCCL id");
    ndm_nccl *n = calloc(1, sizeof *n);
    if (!n) return nd_set_error(ND_ERR_NOMEM, fn, "out of host memory");
    int prev = 0;
    cudaGetDevice(&prev);
    cudaError_t ce = cudaSetDevice(dev.id);
    if (ce != cudaSuccess) {
        free(n);
        return nd_set_error(ND_ERR_DEVICE, fn, "cudaSetDevice(%d) failed: %s", dev.id, cudaGetErrorString(ce));
    }
    const char *call = "ncclCommInitRank";
#if NDM_NCCL_NONBLOCKING
    if (L.comm_init_rank_config) {
        ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
        cfg.blocking = 0;
        call = "ncclCommInitRankConfig";
        n->nonblocking = true;
        nr = L.comm_init_rank_config(&n->comm, c->size, id, c->rank, &cfg);
    } else
#endif
        nr = L.comm_init_rank(&n->comm, c->size, id, c->rank);
    nd_status st = nccl_settle(n, nr, fn, call); /* a failure aborts what was made */
    cudaSetDevice(prev);
    if (st) {
        free(n);
        return st;
    }
    n->device = dev.id;
    c->nccl = n;
    c->nccl_device = dev.id;
    *out = n;
    return ND_OK;
}

void ndm_nccl_destroy(ndm_nccl *n)
{
    if (!n) return;
    if (!n->broken) {
        int prev = 0;
        cudaGetDevice(&prev);
        if (prev != n->device) cudaSetDevice(n->device);
#if NDM_NCCL_NONBLOCKING
        /* flush what is queued, then destroy (NCCL's order); on a
         * non-blocking communicator the flush is polled */
        if (L.comm_finalize) (void)nccl_settle(n, L.comm_finalize(n->comm), "nd_comm_destroy", "ncclCommFinalize");
#endif
        if (!n->broken) (void)L.comm_destroy(n->comm); /* an aborted one is freed by ncclCommAbort */
        if (prev != n->device) cudaSetDevice(prev);
    }
    free(n);
}

nd_status ndm_nccl_run(ndm_nccl *n, int kind, const void *send, void *recv, size_t count, nd_dtype t, nd_comm_op op,
                       int root, int size, nd_stream *stream, const char *fn)
{
    ncclDataType_t dt = ncclUint8;
    if (!nccl_type(t, &dt)) return nd_set_error(ND_ERR_INTERNAL, fn, "NCCL has no %s (the argument check lets this not happen)", nd_dtype_name(t));
    if (n->broken) return nd_set_error(ND_ERR_BACKEND, fn, "the NCCL communicator was aborted after an error");
    cudaStream_t s = (cudaStream_t)nd_stream_native(stream);
    int prev = 0;
    cudaGetDevice(&prev);
    if (prev != n->device) cudaSetDevice(n->device);
    ncclResult_t nr = ncclSuccess;
    const char *call = "";
    size_t blk = size > 0 ? count / (size_t)size : 0, isz = nd_dtype_size(t);
    switch (kind) {
    case NDM_ALLREDUCE: call = "ncclAllReduce", nr = L.all_reduce(send, recv, count, dt, nccl_op(op, t), n->comm, s); break;
    case NDM_BROADCAST: call = "ncclBroadcast", nr = L.broadcast(send, recv, count, dt, root, n->comm, s); break;
    case NDM_ALLGATHER: call = "ncclAllGather", nr = L.all_gather(send, recv, count, dt, n->comm, s); break;
    case NDM_REDUCE_SCATTER:
        call = "ncclReduceScatter", nr = L.reduce_scatter(send, recv, blk, dt, nccl_op(op, t), n->comm, s);
        break;
    case NDM_ALLTOALL:
        call = "ncclSend/ncclRecv (alltoall)";
        nr = L.group_start();
        /* inside a group the calls only record (non-blocking: the group's
         * end carries the work, and may answer ncclInProgress) */
        for (int p = 0; p < size && nr == ncclSuccess; p++) {
            nr = L.send((const char *)send + (size_t)p * blk * isz, blk, dt, p, n->comm, s);
            if (nr == ncclSuccess) nr = L.recv((char *)recv + (size_t)p * blk * isz, blk, dt, p, n->comm, s);
        }
        {
            ncclResult_t ge = L.group_end();
            if (nr == ncclSuccess) nr = ge;
        }
        break;
    default: nr = ncclInvalidArgument; break;
    }
    nd_status st = nccl_settle(n, nr, fn, call);
    if (prev != n->device) cudaSetDevice(prev);
    return st;
}

#endif
