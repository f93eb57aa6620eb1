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
 * int16/uint16/bool: bool travels as uint8 with max (or) / min (and). */
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

struct ndm_nccl {
    ncclComm_t comm;
    int device;
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
} L = {.once = PTHREAD_ONCE_INIT};

static void load(void)
{
    const char *e = getenv("ND_COMM_NCCL");
    if (e && strcmp(e, "0") == 0) return;
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    /* POSIX: a void * from dlsym converts to a function pointer */
#define SYM(field, name) (*(void **)&L.field = dlsym(h, name)) != NULL
    L.ok = SYM(get_unique_id, "ncclGetUniqueId") && SYM(comm_init_rank, "ncclCommInitRank") &&
           SYM(comm_destroy, "ncclCommDestroy") && SYM(error_string, "ncclGetErrorString") &&
           SYM(all_reduce, "ncclAllReduce") && SYM(broadcast, "ncclBroadcast") && SYM(all_gather, "ncclAllGather") &&
           SYM(reduce_scatter, "ncclReduceScatter") && SYM(send, "ncclSend") && SYM(recv, "ncclRecv") &&
           SYM(group_start, "ncclGroupStart") && SYM(group_end, "ncclGroupEnd");
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
    nr = L.comm_init_rank(&n->comm, c->size, id, c->rank);
    cudaSetDevice(prev);
    if (nr != ncclSuccess) {
        free(n);
        return nccl_fail(fn, "ncclCommInitRank", nr);
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
    L.comm_destroy(n->comm);
    free(n);
}

nd_status ndm_nccl_run(ndm_nccl *n, int kind, const void *send, void *recv, size_t count, nd_dtype t, nd_comm_op op,
                       int root, int size, nd_stream *stream, const char *fn)
{
    ncclDataType_t dt = ncclUint8;
    if (!nccl_type(t, &dt)) return nd_set_error(ND_ERR_INTERNAL, fn, "NCCL has no %s (the argument check lets this not happen)", nd_dtype_name(t));
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
    if (prev != n->device) cudaSetDevice(prev);
    return nr == ncclSuccess ? ND_OK : nccl_fail(fn, call, nr);
}

#endif
