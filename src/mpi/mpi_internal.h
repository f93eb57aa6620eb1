/* libndgpu_mpi internals (include/ndgpu_mpi.h is the contract).
 *
 * comm.c   the communicator, the cross-rank argument check, staging
 *          (packing, pinned host buffers), every collective and p2p call
 *          as a request that nd_wait completes
 * ops.c    nd_dtype -> MPI datatype and MPI_Op (user-defined ops for
 *          float16/bfloat16 and NaN-propagating max/min), the average
 * nccl.c   NCCL loaded at run time (dlopen), one NCCL communicator per
 *          nd_comm, the GPU collectives on the array's current stream
 *
 * Only libndgpu's public API is used: this library could live outside the
 * repository (it includes src/shared/half.h for the conversions, header-only). */
#ifndef NDGPU_MPI_INTERNAL_H
#define NDGPU_MPI_INTERNAL_H

#include "ndgpu_mpi.h"

#if defined(__GNUC__)
#define NDM_INTERNAL __attribute__((visibility("hidden")))
#else
#define NDM_INTERNAL
#endif

/* ---- ops.c ---- */
/* Create (first caller) / free (last caller) the float16 and bfloat16 MPI
 * datatypes and the user-defined ops; called by nd_comm_create/destroy. */
NDM_INTERNAL nd_status ndm_types_acquire(void);
NDM_INTERNAL void ndm_types_release(void);
/* The MPI datatype of t's elements (never MPI_DATATYPE_NULL for a valid t). */
NDM_INTERNAL MPI_Datatype ndm_mpi_type(nd_dtype t);
/* The MPI_Op for op on t (sum for ND_COMM_AVG: the caller divides). */
NDM_INTERNAL MPI_Op ndm_mpi_op(nd_comm_op op, nd_dtype t);
NDM_INTERNAL bool ndm_is_float(nd_dtype t);
/* buf[0..n) /= divisor in t's precision (float dtypes). */
NDM_INTERNAL void ndm_divide(void *buf, size_t n, nd_dtype t, int divisor);
NDM_INTERNAL const char *ndm_op_name(nd_comm_op op);
/* "MPI_ERR_TRUNCATE: message truncated" for an MPI error code. */
NDM_INTERNAL const char *ndm_mpi_error(int rc, char *buf, size_t cap);

/* ---- nccl.c ---- */
typedef struct ndm_nccl ndm_nccl;
/* Whether NCCL can carry arrays of dtype t on dev in this process: a real
 * CUDA build with nccl.h, libnccl.so.2 loadable, ND_COMM_NCCL not "0", a
 * CUDA device, a dtype NCCL has. No communication. */
NDM_INTERNAL bool ndm_nccl_usable(nd_device dev, nd_dtype t);
/* The NCCL communicator of comm on dev, created on first use (collective:
 * every rank calls it at the same point, as the argument check ensures). */
NDM_INTERNAL nd_status ndm_nccl_get(nd_comm *comm, nd_device dev, ndm_nccl **out, const char *fn);
NDM_INTERNAL void ndm_nccl_destroy(ndm_nccl *n);
/* ND_OK, or the asynchronous error that broke n (which is then aborted);
 * n may be NULL. Never blocks. */
NDM_INTERNAL nd_status ndm_nccl_check(ndm_nccl *n, const char *fn);
/* Collective kinds for ndm_nccl_run (the same numbering as comm.c's). */
NDM_INTERNAL nd_status ndm_nccl_run(ndm_nccl *n, int kind, const void *send, void *recv, size_t count, nd_dtype t,
                                    nd_comm_op op, int root, int size, nd_stream *stream, const char *fn);

/* ---- comm.c ---- */
struct nd_comm {
    MPI_Comm mc;
    int rank, size, local_rank, local_size;
    int tag_max;
    bool checks;
    ndm_nccl *nccl;   /* NULL until the first NCCL collective */
    int nccl_device;  /* the CUDA device nccl was created on */
};

enum ndm_kind {
    NDM_ALLREDUCE = 1,
    NDM_BROADCAST,
    NDM_ALLGATHER,
    NDM_REDUCE_SCATTER,
    NDM_ALLTOALL,
    NDM_BARRIER,
    NDM_SEND,
    NDM_RECV
};

#endif
