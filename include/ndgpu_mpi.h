/*
 * libndgpu_mpi - collectives over libndgpu arrays, across processes and
 * hosts: MPI for processes and CPU arrays, NCCL for GPU arrays.
 *
 * A separate header and library (-lndgpu_mpi -lndgpu, built when mpicc is
 * found), so the core library keeps no MPI dependency. docs/distributed.md
 * is the guide; the conventions are libndgpu's:
 *
 *  - Every function returns nd_status; on failure nd_last_error() names the
 *    function and the problem. MPI and NCCL failures are ND_ERR_BACKEND
 *    with the library's own error string.
 *  - Collectives are collective: every rank of the communicator calls the
 *    same function in the same order. Before moving data, each collective
 *    exchanges a small signature of its arguments (collective, op, root,
 *    dtype, shape, device, and whether the arguments were valid on that
 *    rank). A mismatch therefore gives the SAME error on every rank, naming
 *    the ranks that differ (ND_ERR_SHAPE, ND_ERR_DTYPE, ND_ERR_INVALID), and
 *    a bad argument on one rank fails the call on all of them instead of
 *    leaving the others waiting. The check costs one small allgather
 *    (microseconds; nd_comm_set_checks(comm, false) turns it off, after
 *    which a mismatch is undefined behaviour, as in raw MPI; without the
 *    check the ranks also cannot agree on NCCL or staging, so their arrays
 *    must then be on the same kind of device with NCCL alike everywhere).
 *    What cannot be detected: a rank that never makes the call (it crashed,
 *    or it is in a different collective of another communicator). MPI then
 *    waits; Open MPI's mpirun ends the whole job when one process dies, and
 *    `mpirun --timeout S` bounds a hang.
 *  - Arrays of any layout: contiguous CPU arrays are communicated in place;
 *    others (transposed, sliced with steps) are packed into a C-ordered
 *    buffer and written back.
 *  - Every dtype. float16 and bfloat16 reduce through user-defined MPI
 *    operations: each pairwise step is computed in float32 and rounded to the
 *    dtype (as NCCL does). max/min propagate NaN for every float dtype (as
 *    np.maximum / np.minimum; MPI's built-in MPI_MAX does not). bool: sum and
 *    max are logical or, prod and min logical and (NumPy's add/multiply on
 *    bool). ND_COMM_AVG is the sum divided by the number of ranks, for float
 *    and complex dtypes only (ND_ERR_DTYPE otherwise). Integer sums wrap.
 *    complex64/complex128: sum, prod (the complex product) and avg as MPI's
 *    MPI_C_FLOAT_COMPLEX / MPI_C_DOUBLE_COMPLEX; max/min refuse complex
 *    (ND_ERR_DTYPE: no order); NCCL has no complex type, so complex GPU
 *    arrays are staged through host memory.
 *  - GPU arrays (ND_DEVICE_CUDA): through NCCL when libnccl.so.2 can be
 *    loaded at run time and every rank's array is on a GPU (the NCCL
 *    communicator is created on first use from a unique id broadcast over
 *    MPI, one per communicator and device); the collective is queued on the
 *    array's current stream (nd_get_stream) and the call returns once it is
 *    queued, as every GPU op of the library does. Otherwise (no NCCL, a CPU
 *    build, the emulated GPU, ND_COMM_NCCL=0 in the environment) GPU arrays
 *    are staged through pinned host memory and MPI: correct, slower.
 *    nd_send/nd_recv are always staged. One process per GPU:
 *    nd_comm_device() picks cuda:(local rank % GPUs).
 *
 * Thread safety: one communicator is used by one thread at a time (MPI
 * initialised with MPI_THREAD_SERIALIZED or more lets different threads
 * use different communicators).
 */
#ifndef NDGPU_MPI_H
#define NDGPU_MPI_H

#include <mpi.h>

#include "ndgpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A communicator: a private duplicate of an MPI communicator (the
 *  library's messages never match the application's), plus the NCCL
 *  communicators created on first use of each GPU. */
typedef struct nd_comm nd_comm;
/** An operation started by a non-blocking call; nd_wait() completes and
 *  frees it. */
typedef struct nd_request nd_request;

/** Reduction operations. */
typedef enum nd_comm_op {
    ND_COMM_SUM = 0,
    ND_COMM_PROD = 1,
    ND_COMM_MAX = 2,
    ND_COMM_MIN = 3,
    ND_COMM_AVG = 4 /* sum / size; float dtypes only */
} nd_comm_op;

/** New communicator over the ranks of mpi_comm (collective over it; MPI must
 *  be initialised). The library duplicates mpi_comm and sets MPI_ERRORS_RETURN
 *  on its duplicate. ND_ERR_INVALID for NULL or MPI_COMM_NULL. */
ND_API nd_status nd_comm_create(nd_comm **comm, MPI_Comm mpi_comm);
/** Free a communicator (collective; NULL is fine). Call before
 *  MPI_Finalize. */
ND_API nd_status nd_comm_destroy(nd_comm *comm);
/** This process's rank in comm (-1 for NULL). */
ND_API int nd_comm_rank(const nd_comm *comm);
/** The number of ranks of comm (-1 for NULL). */
ND_API int nd_comm_size(const nd_comm *comm);
/** This process's rank among the ranks on its host (MPI_COMM_TYPE_SHARED;
 *  -1 for NULL). */
ND_API int nd_comm_local_rank(const nd_comm *comm);
/** The number of comm's ranks on this host (-1 for NULL). */
ND_API int nd_comm_local_size(const nd_comm *comm);
/** The device this rank should use: cuda:(local rank % nd_cuda_device_count())
 *  when nd_default_device() is a GPU (ND_DEVICE=cpu keeps every rank on the
 *  CPU), else the CPU. */
ND_API nd_device nd_comm_device(const nd_comm *comm);
/** The library's duplicate of the MPI communicator (MPI_COMM_NULL for NULL). */
ND_API MPI_Comm nd_comm_mpi(const nd_comm *comm);
/** How arrays on dev travel: "mpi" (CPU arrays), "nccl" (GPU arrays with
 *  NCCL loaded), "staged" (GPU arrays through pinned host memory). Never
 *  NULL. */
ND_API const char *nd_comm_transport(const nd_comm *comm, nd_device dev);
/** Turn the cross-rank argument check on (the default) or off. Not
 *  collective, but every rank must use the same setting. */
ND_API nd_status nd_comm_set_checks(nd_comm *comm, bool on);

/* ------------------------------------------------------------------ */
/* Blocking collectives                                                */
/* ------------------------------------------------------------------ */
/** In place: a = op over ranks of a. Shape and dtype equal on every rank. */
ND_API nd_status nd_allreduce(nd_comm *comm, nd_array *a, nd_comm_op op);
/** In place: a = root's a. Shape and dtype equal on every rank. */
ND_API nd_status nd_broadcast(nd_comm *comm, nd_array *a, int root);
/** out = the ranks' a concatenated along axis 0, in rank order (PyTorch's
 *  all_gather_into_tensor): out.shape[0] = size * a.shape[0]; a 0-d a gives
 *  a 1-d out of size elements. Out rule as everywhere (*out NULL:
 *  allocated on a's device; else written into, exact dtype). */
ND_API nd_status nd_allgather(nd_comm *comm, nd_array **out, const nd_array *a);
/** a.shape[0] must be a multiple of size (ND_ERR_SHAPE): rank r's out is
 *  block r of op over ranks of a, blocks taken along axis 0
 *  (out.shape[0] = a.shape[0] / size; PyTorch's reduce_scatter_tensor). */
ND_API nd_status nd_reduce_scatter(nd_comm *comm, nd_array **out, const nd_array *a, nd_comm_op op);
/** a.shape[0] must be a multiple of size: block j of rank i's a (along
 *  axis 0) becomes block i of rank j's out; out has a's shape (PyTorch's
 *  all_to_all_single). */
ND_API nd_status nd_alltoall(nd_comm *comm, nd_array **out, const nd_array *a);
/** Wait until every rank has called it. */
ND_API nd_status nd_barrier(nd_comm *comm);

/* ------------------------------------------------------------------ */
/* Point to point                                                      */
/* ------------------------------------------------------------------ */
/** Send a to rank dest with tag (0 <= tag <= nd_comm_tag_max()). Each
 *  message carries a header (dtype, shape) that nd_recv checks: a receive
 *  whose array differs in dtype or shape fails with ND_ERR_DTYPE /
 *  ND_ERR_SHAPE on the receiving rank, naming both. The sending rank
 *  cannot learn of it without a round trip, which p2p MPI does not make;
 *  its call succeeds. */
ND_API nd_status nd_send(nd_comm *comm, const nd_array *a, int dest, int tag);
/** Receive into a from rank src (not MPI_ANY_SOURCE) with tag. */
ND_API nd_status nd_recv(nd_comm *comm, nd_array *a, int src, int tag);
/** The largest tag nd_send/nd_recv accept. */
ND_API int nd_comm_tag_max(const nd_comm *comm);

/* ------------------------------------------------------------------ */
/* Non-blocking forms                                                  */
/* ------------------------------------------------------------------ */
/* The same operations, started: *req is a new request, and the arrays must
 * stay alive and untouched (a not read or written, out not read) until
 * nd_wait(*req) returns. The argument check of a collective runs when it
 * starts (it synchronises with the other ranks on a few bytes; checks off
 * gives full overlap); data errors (a receive's header) are reported by
 * nd_wait. For the outputs of allgather / reduce_scatter / alltoall the out
 * rule applies at the start (*out is allocated then, filled by nd_wait).
 * On failure at the start, *req is NULL and nothing is in flight. */
/** nd_allreduce, started (see "Non-blocking forms"). */
ND_API nd_status nd_iallreduce(nd_comm *comm, nd_array *a, nd_comm_op op, nd_request **req);
/** nd_broadcast, started. */
ND_API nd_status nd_ibroadcast(nd_comm *comm, nd_array *a, int root, nd_request **req);
/** nd_allgather, started (*out allocated now, filled by nd_wait). */
ND_API nd_status nd_iallgather(nd_comm *comm, nd_array **out, const nd_array *a, nd_request **req);
/** nd_reduce_scatter, started. */
ND_API nd_status nd_ireduce_scatter(nd_comm *comm, nd_array **out, const nd_array *a, nd_comm_op op, nd_request **req);
/** nd_alltoall, started. */
ND_API nd_status nd_ialltoall(nd_comm *comm, nd_array **out, const nd_array *a, nd_request **req);
/** nd_barrier, started: nd_wait returns once every rank has started it. */
ND_API nd_status nd_ibarrier(nd_comm *comm, nd_request **req);
/** nd_send, started (a self-send is allowed with nd_irecv posted too). */
ND_API nd_status nd_isend(nd_comm *comm, const nd_array *a, int dest, int tag, nd_request **req);
/** nd_recv, started; nd_wait reports a header mismatch. */
ND_API nd_status nd_irecv(nd_comm *comm, nd_array *a, int src, int tag, nd_request **req);
/** Complete req (unpacking, averaging, copying back to the GPU as needed)
 *  and free it. Returns the operation's status. NULL is fine (ND_OK). */
ND_API nd_status nd_wait(nd_request *req);
/** *done = whether req's data movement has finished (nd_wait then returns
 *  without waiting). req stays valid: nd_wait it in any case. */
ND_API nd_status nd_test(nd_request *req, bool *done);

#ifdef __cplusplus
}
#endif

#endif /* NDGPU_MPI_H */
