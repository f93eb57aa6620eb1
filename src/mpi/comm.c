/* libndgpu_mpi: the communicator and every collective (include/ndgpu_mpi.h).
 *
 * Every operation is a request: a start (validate locally, exchange the
 * argument signature, stage the data, post the non-blocking MPI call or
 * queue the NCCL call) and nd_wait (complete, check a receive's header,
 * divide for the average, write packed data back, free). The blocking
 * forms are start + wait.
 *
 * Staging. A contiguous CPU array is communicated in place. Any other
 * operand is packed into a C-ordered buffer first (nd_copy_to_host, which
 * handles every layout and device) and written back by nd_wait
 * (nd_copy_from_host): a plain CPU array (nd_empty, so it goes through
 * libndgpu's allocator and memory statistics) for a strided CPU array,
 * page-locked host memory (nd_empty_pinned) for a GPU array on the MPI path.
 * On the NCCL path a strided GPU array is packed on the device (nd_contiguous)
 * and written back with nd_copy, both on the current stream.
 *
 * Host memory: data buffers are libndgpu arrays; the few bookkeeping
 * structs (nd_comm, nd_request) use malloc (this is a separate library on
 * libndgpu's public API; tests/test_alloc_door.sh leaves src/mpi out).
 *
 * Counts. MPI counts are int. Allreduce, broadcast and point-to-point
 * split larger arrays into chunks of 2^30 elements (one request each);
 * allgather, reduce_scatter and alltoall need a per-rank block of at most
 * INT_MAX elements (ND_ERR_UNSUPPORTED beyond). */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

#define CHUNK ((int64_t)1 << 30)
#define MSG_LEN 512

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */
static nd_status mpi_fail(const char *fn, const char *call, int rc)
{
    char b[MPI_MAX_ERROR_STRING + 32];
    return nd_set_error(ND_ERR_BACKEND, fn, "%s failed: %s", call, ndm_mpi_error(rc, b, sizeof b));
}

static const char *kind_fn(int64_t k)
{
    switch (k) {
    case NDM_ALLREDUCE: return "nd_allreduce";
    case NDM_BROADCAST: return "nd_broadcast";
    case NDM_ALLGATHER: return "nd_allgather";
    case NDM_REDUCE_SCATTER: return "nd_reduce_scatter";
    case NDM_ALLTOALL: return "nd_alltoall";
    case NDM_BARRIER: return "nd_barrier";
    case NDM_SEND: return "nd_send";
    case NDM_RECV: return "nd_recv";
    default: return "?";
    }
}

/* "(3,4)" as the core's nd__fmt_shape writes it (that one is internal to
 * libndgpu.so, which this library reaches through its public API only). */
static char *fmt_shape(char *buf, size_t cap, int64_t ndim, const int64_t *shape)
{
    size_t n = (size_t)snprintf(buf, cap, "(");
    for (int64_t i = 0; i < ndim && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? "," : "", (long long)shape[i]);
    if (n < cap) snprintf(buf + n, cap - n, ndim == 1 ? ",)" : ")");
    return buf;
}

/* ------------------------------------------------------------------ */
/* The communicator                                                    */
/* ------------------------------------------------------------------ */
nd_status nd_comm_create(nd_comm **comm, MPI_Comm mpi_comm)
{
    static const char *fn = "nd_comm_create";
    if (!comm) return nd_set_error(ND_ERR_INVALID, fn, "'comm' is NULL");
    if (mpi_comm == MPI_COMM_NULL) return nd_set_error(ND_ERR_INVALID, fn, "'mpi_comm' is MPI_COMM_NULL");
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) return nd_set_error(ND_ERR_INVALID, fn, "MPI is not initialised (call MPI_Init first)");
    nd_comm *c = calloc(1, sizeof *c);
    if (!c) return nd_set_error(ND_ERR_NOMEM, fn, "out of host memory");
    int rc = MPI_Comm_dup(mpi_comm, &c->mc);
    if (rc != MPI_SUCCESS) {
        free(c);
        return mpi_fail(fn, "MPI_Comm_dup", rc);
    }
    MPI_Comm_set_errhandler(c->mc, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c->mc, &c->rank);
    MPI_Comm_size(c->mc, &c->size);
    MPI_Comm local;
    rc = MPI_Comm_split_type(c->mc, MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &local);
    if (rc == MPI_SUCCESS) {
        MPI_Comm_rank(local, &c->local_rank);
        MPI_Comm_size(local, &c->local_size);
        MPI_Comm_free(&local);
    } else {
        c->local_rank = c->rank, c->local_size = c->size;
    }
    int *ub = NULL, flag = 0;
    MPI_Comm_get_attr(c->mc, MPI_TAG_UB, &ub, &flag);
    c->tag_max = flag && ub ? *ub : 32767;
    c->checks = true;
    c->nccl_device = -1;
    nd_status st = ndm_types_acquire();
    if (st) {
        MPI_Comm_free(&c->mc);
        free(c);
        return st;
    }
    *comm = c;
    return ND_OK;
}

nd_status nd_comm_destroy(nd_comm *c)
{
    if (!c) return ND_OK;
    ndm_nccl_destroy(c->nccl);
    int rc = MPI_Comm_free(&c->mc);
    ndm_types_release();
    free(c);
    return rc == MPI_SUCCESS ? ND_OK : mpi_fail("nd_comm_destroy", "MPI_Comm_free", rc);
}

int nd_comm_rank(const nd_comm *c) { return c ? c->rank : -1; }
int nd_comm_size(const nd_comm *c) { return c ? c->size : -1; }
int nd_comm_local_rank(const nd_comm *c) { return c ? c->local_rank : -1; }
int nd_comm_local_size(const nd_comm *c) { return c ? c->local_size : -1; }
MPI_Comm nd_comm_mpi(const nd_comm *c) { return c ? c->mc : MPI_COMM_NULL; }
int nd_comm_tag_max(const nd_comm *c) { return c ? c->tag_max : -1; }

nd_device nd_comm_device(const nd_comm *c)
{
    nd_device d = nd_default_device();
    int n = nd_cuda_device_count();
    if (!c || d.type != ND_DEVICE_CUDA || n <= 0) return nd_cpu();
    return nd_cuda(c->local_rank % n);
}

const char *nd_comm_transport(const nd_comm *c, nd_device dev)
{
    (void)c;
    if (dev.type != ND_DEVICE_CUDA) return "mpi";
    return ndm_nccl_usable(dev, ND_FLOAT32) ? "nccl" : "staged";
}

nd_status nd_comm_set_checks(nd_comm *c, bool on)
{
    if (!c) return nd_set_error(ND_ERR_INVALID, "nd_comm_set_checks", "'comm' is NULL");
    c->checks = on;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* The cross-rank argument check                                       */
/* ------------------------------------------------------------------ */
enum { S_KIND, S_OP, S_ROOT, S_DTYPE, S_NDIM, S_DEV, S_STATUS, S_NCCL, S_SHAPE, SIG_LEN = S_SHAPE + ND_MAX_DIMS };

typedef struct {
    int64_t v[SIG_LEN];
    char msg[MSG_LEN]; /* this rank's error message when v[S_STATUS] != 0 */
} sig_t_;

static void sig_init(sig_t_ *s, int kind, const nd_array *a, nd_comm_op op, int root)
{
    memset(s, 0, sizeof *s);
    s->v[S_KIND] = kind;
    s->v[S_OP] = op;
    s->v[S_ROOT] = root;
    if (a) {
        s->v[S_DTYPE] = nd_dtype_of(a);
        s->v[S_NDIM] = nd_ndim(a);
        s->v[S_DEV] = nd_device_of(a).type;
        for (int i = 0; i < nd_ndim(a) && i < ND_MAX_DIMS; i++) s->v[S_SHAPE + i] = nd_shape(a)[i];
    }
}

static nd_status sig_fail(sig_t_ *s, nd_status st)
{
    s->v[S_STATUS] = st;
    snprintf(s->msg, sizeof s->msg, "%s", nd_last_error());
    return st;
}

/* First rank whose entries [lo, hi) differ from rank 0's, or -1. */
static int differs(const int64_t *all, int size, int lo, int hi)
{
    for (int r = 1; r < size; r++)
        for (int i = lo; i < hi; i++)
            if (all[(size_t)r * SIG_LEN + i] != all[i]) return r;
    return -1;
}

/* Exchange the signature; every rank returns the same verdict (a failing
 * rank keeps its own message). *nccl = every rank can use NCCL. */
static nd_status sig_check(nd_comm *c, const char *fn, sig_t_ *s, bool *nccl)
{
    if (!c->checks) {
        *nccl = s->v[S_NCCL] != 0;
        return s->v[S_STATUS] ? (nd_status)s->v[S_STATUS] : ND_OK;
    }
    int64_t *all = malloc(sizeof(int64_t) * SIG_LEN * (size_t)c->size);
    if (!all) return nd_set_error(ND_ERR_NOMEM, fn, "out of host memory");
    int rc = MPI_Allgather(s->v, SIG_LEN, MPI_INT64_T, all, SIG_LEN, MPI_INT64_T, c->mc);
    if (rc != MPI_SUCCESS) {
        free(all);
        return mpi_fail(fn, "MPI_Allgather (argument check)", rc);
    }
    nd_status st = ND_OK;
    int bad = -1;
    for (int r = 0; r < c->size && bad < 0; r++)
        if (all[(size_t)r * SIG_LEN + S_STATUS]) bad = r;
    if (bad >= 0) {
        /* some rank failed locally: everyone learns which and why */
        char *msgs = malloc((size_t)MSG_LEN * (size_t)c->size);
        st = (nd_status)all[(size_t)bad * SIG_LEN + S_STATUS];
        if (!msgs) {
            free(all);
            return nd_set_error(ND_ERR_NOMEM, fn, "out of host memory");
        }
        rc = MPI_Allgather(s->msg, MSG_LEN, MPI_CHAR, msgs, MSG_LEN, MPI_CHAR, c->mc);
        if (s->v[S_STATUS]) {
            st = (nd_status)s->v[S_STATUS]; /* our own message stays */
        } else if (rc != MPI_SUCCESS) {
            nd_set_error(st, fn, "rank %d failed (its message could not be fetched)", bad);
        } else {
            const char *m = msgs + (size_t)bad * MSG_LEN;
            size_t fl = strlen(fn);
            if (strncmp(m, fn, fl) == 0 && m[fl] == ':' && m[fl + 1] == ' ') m += fl + 2;
            nd_set_error(st, fn, "rank %d failed: %.*s", bad, MSG_LEN - 1, m);
        }
        free(msgs);
        free(all);
        return st;
    }
    char b0[400], b1[400];
    int r;
    if ((r = differs(all, c->size, S_KIND, S_KIND + 1)) >= 0) {
        st = nd_set_error(ND_ERR_INVALID, fn, "ranks called different operations: rank 0 %s, rank %d %s",
                          kind_fn(all[S_KIND]), r, kind_fn(all[(size_t)r * SIG_LEN + S_KIND]));
    } else if (s->v[S_KIND] != NDM_BARRIER) {
        if ((r = differs(all, c->size, S_DTYPE, S_DTYPE + 1)) >= 0) {
            st = nd_set_error(ND_ERR_DTYPE, fn, "dtypes differ across ranks: rank 0 %s, rank %d %s",
                              nd_dtype_name((nd_dtype)all[S_DTYPE]), r,
                              nd_dtype_name((nd_dtype)all[(size_t)r * SIG_LEN + S_DTYPE]));
        } else if ((r = differs(all, c->size, S_NDIM, S_NDIM + 1)) >= 0 ||
                   (r = differs(all, c->size, S_SHAPE, SIG_LEN)) >= 0) {
            const int64_t *o = all + (size_t)r * SIG_LEN;
            st = nd_set_error(ND_ERR_SHAPE, fn, "shapes differ across ranks: rank 0 %s, rank %d %s",
                              fmt_shape(b0, sizeof b0, all[S_NDIM], all + S_SHAPE), r,
                              fmt_shape(b1, sizeof b1, o[S_NDIM], o + S_SHAPE));
        } else if ((r = differs(all, c->size, S_OP, S_OP + 1)) >= 0) {
            st = nd_set_error(ND_ERR_INVALID, fn, "reduction ops differ across ranks: rank 0 %s, rank %d %s",
                              ndm_op_name((nd_comm_op)all[S_OP]), r,
                              ndm_op_name((nd_comm_op)all[(size_t)r * SIG_LEN + S_OP]));
        } else if ((r = differs(all, c->size, S_ROOT, S_ROOT + 1)) >= 0) {
            st = nd_set_error(ND_ERR_INVALID, fn, "roots differ across ranks: rank 0 root %lld, rank %d root %lld",
                              (long long)all[S_ROOT], r, (long long)all[(size_t)r * SIG_LEN + S_ROOT]);
        }
    }
    bool all_nccl = true;
    for (int q = 0; q < c->size; q++) all_nccl = all_nccl && all[(size_t)q * SIG_LEN + S_NCCL];
    *nccl = all_nccl;
    free(all);
    return st;
}

/* ------------------------------------------------------------------ */
/* Staging                                                             */
/* ------------------------------------------------------------------ */
enum { ST_NONE, ST_INPLACE, ST_HOST, ST_DEVICE };

typedef struct {
    nd_array *a;   /* the user's array (borrowed) */
    nd_array *tmp; /* ST_HOST: the host (or pinned) buffer; ST_DEVICE: the packed device copy */
    void *buf;     /* what MPI / NCCL reads and writes */
    size_t nbytes;
    int how;
} stage;

static char g_empty; /* the buffer of zero-size operands */

static nd_status stage_begin(stage *s, nd_array *a, bool read, bool nccl)
{
    memset(s, 0, sizeof *s);
    s->a = a;
    s->nbytes = nd_nbytes(a);
    nd_device dev = nd_device_of(a);
    if (s->nbytes == 0) {
        s->how = ST_INPLACE, s->buf = &g_empty;
        return ND_OK;
    }
    if ((nccl || dev.type == ND_DEVICE_CPU) && nd_is_contiguous(a)) {
        s->how = ST_INPLACE, s->buf = nd_data(a);
        return ND_OK;
    }
    nd_status st;
    if (nccl) {
        s->how = ST_DEVICE;
        st = read ? nd_contiguous(&s->tmp, a) : nd_empty(&s->tmp, nd_dtype_of(a), nd_ndim(a), nd_shape(a), dev);
    } else {
        int64_t n = (int64_t)s->nbytes;
        s->how = ST_HOST;
        st = dev.type == ND_DEVICE_CPU ? nd_empty(&s->tmp, ND_UINT8, 1, &n, nd_cpu())
                                       : nd_empty_pinned(&s->tmp, ND_UINT8, 1, &n);
        if (!st && read) st = nd_copy_to_host(nd_data(s->tmp), a, s->nbytes);
    }
    if (st) {
        nd_release(s->tmp);
        s->tmp = NULL, s->how = ST_NONE;
        return st;
    }
    s->buf = nd_data(s->tmp);
    return ND_OK;
}

/* Write the buffer back into the user's array (write) and free it. */
static nd_status stage_end(stage *s, bool write)
{
    nd_status st = ND_OK;
    if (write && s->how == ST_HOST) st = nd_copy_from_host(s->a, s->buf, s->nbytes);
    if (write && s->how == ST_DEVICE) {
        nd_array *dst = s->a;
        st = nd_copy(&dst, s->tmp);
    }
    nd_release(s->tmp);
    s->tmp = NULL, s->how = ST_NONE;
    return st;
}

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */
#define HDR_MAGIC 0x6e644d5049ll /* "ndMPI" */
enum { H_MAGIC, H_DTYPE, H_NDIM, H_SHAPE, HDR_LEN = H_SHAPE + ND_MAX_DIMS };

struct nd_request {
    nd_comm *comm;
    int kind;
    const char *fn;
    MPI_Request *mr;
    MPI_Status *sts;
    int nmr;
    bool done;    /* MPI requests completed (by nd_test) */
    int mpi_rc;   /* their completion code */
    stage in, out;
    bool write_in, write_out;
    bool avg;     /* divide the result by size at completion (MPI path) */
    bool nccl;
    nd_dtype dtype;
    int64_t hdr[HDR_LEN];  /* send: what goes out; recv: what arrives */
    int64_t want[HDR_LEN]; /* recv: this rank's array */
};

static nd_request *req_new(nd_comm *c, int kind, const char *fn, int nmr)
{
    nd_request *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->comm = c, r->kind = kind, r->fn = fn;
    if (nmr > 0) {
        r->mr = malloc(sizeof *r->mr * (size_t)nmr);
        r->sts = malloc(sizeof *r->sts * (size_t)nmr);
        if (!r->mr || !r->sts) {
            free(r->mr), free(r->sts), free(r);
            return NULL;
        }
        for (int i = 0; i < nmr; i++) r->mr[i] = MPI_REQUEST_NULL;
    }
    return r;
}

static void req_free(nd_request *r)
{
    stage_end(&r->in, false);
    stage_end(&r->out, false);
    free(r->mr);
    free(r->sts);
    free(r);
}

/* Cancel-free a request whose posting failed part way: wait for what was
 * posted (MPI has no safe cancel for collectives), then free. */
static nd_status req_abort(nd_request *r, nd_status st)
{
    if (r->nmr > 0) MPI_Waitall(r->nmr, r->mr, MPI_STATUSES_IGNORE);
    req_free(r);
    return st;
}

static int64_t nchunks(int64_t count) { return count <= 0 ? 1 : (count + CHUNK - 1) / CHUNK; }

/* ------------------------------------------------------------------ */
/* Collectives                                                         */
/* ------------------------------------------------------------------ */
static bool valid_op(nd_comm_op op) { return op >= ND_COMM_SUM && op <= ND_COMM_AVG; }

/* The arguments of a collective, checked the same on every rank (each
 * failure is recorded in the signature that sig_check compares), and the
 * shape of its result for the kinds with an output (*ondim, oshape). */
static nd_status coll_check(nd_comm *c, int kind, nd_array *a, nd_array **out, nd_comm_op op, int root, sig_t_ *s,
                            int64_t *oshape, int *ondim)
{
    const char *fn = kind_fn(kind);
    bool has_op = kind == NDM_ALLREDUCE || kind == NDM_REDUCE_SCATTER;
    bool has_out = kind == NDM_ALLGATHER || kind == NDM_REDUCE_SCATTER || kind == NDM_ALLTOALL;
    nd_status st = ND_OK;
    nd_dtype t = a ? nd_dtype_of(a) : ND_NUM_DTYPES;
    int64_t count = a ? nd_size(a) : 0;
    if (kind != NDM_BARRIER) {
        if (!a) st = sig_fail(s, nd_set_error(ND_ERR_INVALID, fn, "'a' is NULL"));
        else if (has_out && !out) st = sig_fail(s, nd_set_error(ND_ERR_INVALID, fn, "'out' is NULL"));
        else if (has_op && !valid_op(op)) st = sig_fail(s, nd_set_error(ND_ERR_INVALID, fn, "bad reduction op %d", (int)op));
        else if (has_op && op == ND_COMM_AVG && !ndm_is_float(t) && t != ND_COMPLEX64 && t != ND_COMPLEX128)
            st = sig_fail(s, nd_set_error(ND_ERR_DTYPE, fn, "avg needs a float or complex dtype, not %s (use sum)",
                                          nd_dtype_name(t)));
        else if (has_op && (op == ND_COMM_MAX || op == ND_COMM_MIN) && (t == ND_COMPLEX64 || t == ND_COMPLEX128))
            st = sig_fail(s, nd_set_error(ND_ERR_DTYPE, fn, "max/min of %s: complex numbers have no order",
                                          nd_dtype_name(t)));
        else if (kind == NDM_BROADCAST && (root < 0 || root >= c->size))
            st = sig_fail(s, nd_set_error(ND_ERR_INVALID, fn, "root %d is out of range for %d ranks", root, c->size));
        else if (!has_out && !nd_is_writable(a))
            st = sig_fail(s, nd_set_error(ND_ERR_INVALID, fn, "'a' is not writable (a broadcast view or a read-only import)"));
    }
    if (st || !has_out) return st;
    *ondim = nd_ndim(a);
    memcpy(oshape, nd_shape(a), sizeof(int64_t) * (size_t)*ondim);
    if (kind == NDM_ALLGATHER) {
        if (*ondim == 0) *ondim = 1, oshape[0] = c->size;
        else oshape[0] *= c->size;
    } else if (*ondim == 0 || oshape[0] % c->size != 0) {
        char b[400];
        st = sig_fail(s, nd_set_error(ND_ERR_SHAPE, fn, "axis 0 of 'a' %s must be a multiple of the %d ranks",
                                      fmt_shape(b, sizeof b, nd_ndim(a), nd_shape(a)), c->size));
    } else if (kind == NDM_REDUCE_SCATTER) {
        oshape[0] /= c->size;
    }
    int64_t block = kind == NDM_ALLGATHER ? count : count / (c->size ? c->size : 1);
    if (!st && block > INT_MAX)
        st = sig_fail(s, nd_set_error(ND_ERR_UNSUPPORTED, fn, "%lld elements per rank is more than MPI's int count",
                                      (long long)block));
    if (!st && *out) {
        nd_array *o = *out;
        bool same = nd_ndim(o) == *ondim;
        for (int i = 0; same && i < *ondim; i++) same = nd_shape(o)[i] == oshape[i];
        char b0[400], b1[400];
        if (!same)
            st = nd_set_error(ND_ERR_SHAPE, fn, "'out' has shape %s, but the result has shape %s",
                              fmt_shape(b0, sizeof b0, nd_ndim(o), nd_shape(o)), fmt_shape(b1, sizeof b1, *ondim, oshape));
        else if (nd_dtype_of(o) != t)
            st = nd_set_error(ND_ERR_DTYPE, fn, "'out' is %s, but 'a' is %s (collectives do not cast)",
                              nd_dtype_name(nd_dtype_of(o)), nd_dtype_name(t));
        else if (nd_device_of(o).type != nd_device_of(a).type || nd_device_of(o).id != nd_device_of(a).id)
            st = nd_set_error(ND_ERR_DEVICE, fn, "'out' and 'a' are on different devices");
        else if (!nd_is_writable(o))
            st = nd_set_error(ND_ERR_INVALID, fn, "'out' is not writable");
        if (st) sig_fail(s, st);
    }
    return st;
}

/* A barrier: posted (or, blocking, run) at once. */
static nd_status coll_barrier(nd_comm *c, const char *fn, nd_request **req, bool blocking)
{
    nd_request *r = req_new(c, NDM_BARRIER, fn, 1);
    if (!r) return nd_set_error(ND_ERR_NOMEM, fn, "out of host memory");
    int rc;
    if (blocking) {
        rc = MPI_Barrier(c->mc);
        r->done = true;
    } else {
        rc = MPI_Ibarrier(c->mc, &r->mr[0]);
        if (rc == MPI_SUCCESS) r->nmr = 1;
    }
    if (rc != MPI_SUCCESS) return req_abort(r, mpi_fail(fn, blocking ? "MPI_Barrier" : "MPI_Ibarrier", rc));
    *req = r;
    return ND_OK;
}

/* The MPI call(s) of a staged collective on r's buffers: allreduce and
 * broadcast in chunks of CHUNK elements (nreq requests), the others as
 * one call. Returns MPI's code; *call names the call that failed. */
static int coll_post_mpi(nd_comm *c, nd_request *r, int kind, int64_t count, int64_t nreq, nd_comm_op op, int root,
                         bool blocking, const char **call)
{
    nd_dtype t = r->dtype;
    bool has_op = kind == NDM_ALLREDUCE || kind == NDM_REDUCE_SCATTER;
    MPI_Datatype dt = ndm_mpi_type(t);
    MPI_Op mop = has_op ? ndm_mpi_op(op, t) : MPI_OP_NULL;
    size_t isz = nd_dtype_size(t);
    int rc = MPI_SUCCESS;
    int blk = (int)(count / c->size);
    switch (kind) {
    case NDM_ALLREDUCE:
    case NDM_BROADCAST:
        for (int64_t k = 0; k < nreq && rc == MPI_SUCCESS; k++) {
            int64_t off = k * CHUNK, cnt = count - off < CHUNK ? count - off : CHUNK;
            char *p = (char *)r->in.buf + (size_t)off * isz;
            if (kind == NDM_ALLREDUCE && blocking)
                *call = "MPI_Allreduce", rc = MPI_Allreduce(MPI_IN_PLACE, p, (int)cnt, dt, mop, c->mc);
            else if (kind == NDM_ALLREDUCE)
                *call = "MPI_Iallreduce", rc = MPI_Iallreduce(MPI_IN_PLACE, p, (int)cnt, dt, mop, c->mc, &r->mr[k]);
            else if (blocking)
                *call = "MPI_Bcast", rc = MPI_Bcast(p, (int)cnt, dt, root, c->mc);
            else
                *call = "MPI_Ibcast", rc = MPI_Ibcast(p, (int)cnt, dt, root, c->mc, &r->mr[k]);
            if (rc == MPI_SUCCESS && !blocking) r->nmr = (int)k + 1;
        }
        break;
    case NDM_ALLGATHER:
        *call = blocking ? "MPI_Allgather" : "MPI_Iallgather";
        rc = blocking ? MPI_Allgather(r->in.buf, (int)count, dt, r->out.buf, (int)count, dt, c->mc)
                      : MPI_Iallgather(r->in.buf, (int)count, dt, r->out.buf, (int)count, dt, c->mc, &r->mr[0]);
        break;
    case NDM_REDUCE_SCATTER:
        *call = blocking ? "MPI_Reduce_scatter_block" : "MPI_Ireduce_scatter_block";
        rc = blocking ? MPI_Reduce_scatter_block(r->in.buf, r->out.buf, blk, dt, mop, c->mc)
                      : MPI_Ireduce_scatter_block(r->in.buf, r->out.buf, blk, dt, mop, c->mc, &r->mr[0]);
        break;
    default:
        *call = blocking ? "MPI_Alltoall" : "MPI_Ialltoall";
        rc = blocking ? MPI_Alltoall(r->in.buf, blk, dt, r->out.buf, blk, dt, c->mc)
                      : MPI_Ialltoall(r->in.buf, blk, dt, r->out.buf, blk, dt, c->mc, &r->mr[0]);
        break;
    }
    if (kind != NDM_ALLREDUCE && kind != NDM_BROADCAST && rc == MPI_SUCCESS && !blocking) r->nmr = 1;
    if (blocking) r->done = true;
    return rc;
}

/* blocking: run the blocking MPI call now (the request only finishes the
 * staging in nd_wait). Open MPI's blocking collectives (coll/tuned) are up
 * to 2x faster than its non-blocking ones (coll/libnbc) on large buffers:
 * 64 MB allreduce with 2 processes 28-30 ms against 62 ms here. */
static nd_status coll_start(nd_comm *c, int kind, nd_array *a, nd_array **out, nd_comm_op op, int root,
                            nd_request **req, bool blocking)
{
    const char *fn = kind_fn(kind);
    if (!req) return nd_set_error(ND_ERR_INVALID, fn, "'req' is NULL");
    *req = NULL;
    if (!c) return nd_set_error(ND_ERR_INVALID, fn, "'comm' is NULL");
    bool has_op = kind == NDM_ALLREDUCE || kind == NDM_REDUCE_SCATTER;
    bool has_out = kind == NDM_ALLGATHER || kind == NDM_REDUCE_SCATTER || kind == NDM_ALLTOALL;
    sig_t_ s;
    sig_init(&s, kind, a, has_op ? op : 0, kind == NDM_BROADCAST ? root : 0);
    int64_t oshape[ND_MAX_DIMS];
    int ondim = 0;
    nd_dtype t = a ? nd_dtype_of(a) : ND_NUM_DTYPES;
    int64_t count = a ? nd_size(a) : 0;
    nd_status st = coll_check(c, kind, a, out, op, root, &s, oshape, &ondim);
    bool nccl = false;
    if (!st && kind != NDM_BARRIER) {
        nd_device dev = nd_device_of(a);
        s.v[S_NCCL] = ndm_nccl_usable(dev, t) && (!c->nccl || c->nccl_device == dev.id);
    }
    nd_status cs = sig_check(c, fn, &s, &nccl);
    if (st) return st;
    if (cs) return cs;
    if (kind == NDM_BARRIER) return coll_barrier(c, fn, req, blocking);
    nd_array *fresh = NULL;
    if (has_out && !*out) {
        st = nd_empty(&fresh, t, ondim, oshape, nd_device_of(a));
        if (st) return st;
    }
    nd_array *o = has_out ? (*out ? *out : fresh) : NULL;
    int64_t nreq = (kind == NDM_ALLREDUCE || kind == NDM_BROADCAST) ? nchunks(count) : 1;
    nd_request *r = req_new(c, kind, fn, nccl ? 0 : (int)nreq);
    if (!r) {
        nd_release(fresh);
        return nd_set_error(ND_ERR_NOMEM, fn, "out of host memory");
    }
    r->dtype = t;
    r->nccl = nccl;
    bool read_in = kind != NDM_BROADCAST || root == c->rank;
    st = stage_begin(&r->in, a, read_in, nccl);
    if (!st && o) st = stage_begin(&r->out, o, false, nccl);
    if (st) {
        req_free(r);
        nd_release(fresh);
        return st;
    }
    r->write_in = kind == NDM_ALLREDUCE || (kind == NDM_BROADCAST && root != c->rank);
    r->write_out = o != NULL;
    r->avg = has_op && op == ND_COMM_AVG;
    if (nccl) {
        ndm_nccl *n = NULL;
        nd_device dev = nd_device_of(a);
        st = ndm_nccl_get(c, dev, &n, fn);
        if (!st)
            st = ndm_nccl_run(n, kind, r->in.buf, o ? r->out.buf : r->in.buf, (size_t)count, t, op, root, c->size,
                              nd_get_stream(dev), fn);
        r->avg = false; /* ncclAvg */
        if (st) {
            req_free(r);
            nd_release(fresh);
            return st;
        }
    } else {
        const char *call = "";
        int rc = coll_post_mpi(c, r, kind, count, nreq, op, root, blocking, &call);
        if (rc != MPI_SUCCESS) {
            nd_release(fresh);
            return req_abort(r, mpi_fail(fn, call, rc));
        }
    }
    if (fresh) *out = fresh;
    *req = r;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Point to point                                                      */
/* ------------------------------------------------------------------ */
static void hdr_of(int64_t *h, const nd_array *a)
{
    memset(h, 0, sizeof(int64_t) * HDR_LEN);
    h[H_MAGIC] = HDR_MAGIC;
    h[H_DTYPE] = nd_dtype_of(a);
    h[H_NDIM] = nd_ndim(a);
    for (int i = 0; i < nd_ndim(a); i++) h[H_SHAPE + i] = nd_shape(a)[i];
}

static nd_status p2p_blocking(nd_request *r, int peer, int tag, int64_t count);

static nd_status p2p_start(nd_comm *c, int kind, nd_array *a, int peer, int tag, nd_request **req, bool blocking)
{
    const char *fn = kind_fn(kind);
    if (!req) return nd_set_error(ND_ERR_INVALID, fn, "'req' is NULL");
    *req = NULL;
    if (!c) return nd_set_error(ND_ERR_INVALID, fn, "'comm' is NULL");
    if (!a) return nd_set_error(ND_ERR_INVALID, fn, "'a' is NULL");
    if (peer < 0 || peer >= c->size)
        return nd_set_error(ND_ERR_INVALID, fn, "rank %d is out of range for %d ranks%s", peer, c->size,
                            peer == MPI_ANY_SOURCE ? " (MPI_ANY_SOURCE is not supported: name the sender)" : "");
    if (tag < 0 || tag > c->tag_max)
        return nd_set_error(ND_ERR_INVALID, fn, "tag %d is out of range [0, %d]", tag, c->tag_max);
    if (kind == NDM_RECV && !nd_is_writable(a))
        return nd_set_error(ND_ERR_INVALID, fn, "'a' is not writable (a broadcast view or a read-only import)");
    int64_t count = nd_size(a);
    int64_t nk = nchunks(count);
    nd_request *r = req_new(c, kind, fn, (int)nk + 1);
    if (!r) return nd_set_error(ND_ERR_NOMEM, fn, "out of host memory");
    r->dtype = nd_dtype_of(a);
    nd_status st = stage_begin(&r->in, a, kind == NDM_SEND, false);
    if (st) {
        req_free(r);
        return st;
    }
    r->write_in = kind == NDM_RECV;
    MPI_Datatype dt = ndm_mpi_type(r->dtype);
    size_t isz = nd_dtype_size(r->dtype);
    int rc;
    hdr_of(kind == NDM_SEND ? r->hdr : r->want, a);
    if (blocking) {
        st = p2p_blocking(r, peer, tag, count);
        if (st) {
            req_free(r);
            return st;
        }
        *req = r;
        return ND_OK;
    }
    if (kind == NDM_SEND) {
        rc = MPI_Isend(r->hdr, HDR_LEN, MPI_INT64_T, peer, tag, c->mc, &r->mr[0]);
    } else {
        hdr_of(r->want, a);
        rc = MPI_Irecv(r->hdr, HDR_LEN, MPI_INT64_T, peer, tag, c->mc, &r->mr[0]);
    }
    if (rc == MPI_SUCCESS) r->nmr = 1;
    for (int64_t k = 0; k < nk && rc == MPI_SUCCESS; k++) {
        int64_t off = k * CHUNK, cnt = count - off < CHUNK ? count - off : CHUNK;
        char *p = (char *)r->in.buf + (size_t)off * isz;
        rc = kind == NDM_SEND ? MPI_Isend(p, (int)cnt, dt, peer, tag, c->mc, &r->mr[k + 1])
                              : MPI_Irecv(p, (int)cnt, dt, peer, tag, c->mc, &r->mr[k + 1]);
        if (rc == MPI_SUCCESS) r->nmr = (int)k + 2;
    }
    if (rc != MPI_SUCCESS) return req_abort(r, mpi_fail(fn, kind == NDM_SEND ? "MPI_Isend" : "MPI_Irecv", rc));
    *req = r;
    return ND_OK;
}

/* A received header against this rank's array. */
static nd_status hdr_check(const nd_request *r)
{
    const int64_t *h = r->hdr, *w = r->want;
    char b0[400], b1[400];
    if (h[H_MAGIC] != HDR_MAGIC)
        return nd_set_error(ND_ERR_INVALID, r->fn, "the message is not from nd_send (same tag used by raw MPI?)");
    if (h[H_DTYPE] != w[H_DTYPE])
        return nd_set_error(ND_ERR_DTYPE, r->fn, "the sender sent %s, but 'a' is %s",
                            h[H_DTYPE] >= 0 && h[H_DTYPE] < ND_NUM_DTYPES ? nd_dtype_name((nd_dtype)h[H_DTYPE]) : "?",
                            nd_dtype_name((nd_dtype)w[H_DTYPE]));
    bool same = h[H_NDIM] == w[H_NDIM];
    for (int i = 0; same && i < ND_MAX_DIMS; i++) same = h[H_SHAPE + i] == w[H_SHAPE + i];
    if (!same)
        return nd_set_error(ND_ERR_SHAPE, r->fn, "the sender sent shape %s, but 'a' has shape %s",
                            fmt_shape(b0, sizeof b0, h[H_NDIM] >= 0 && h[H_NDIM] <= ND_MAX_DIMS ? h[H_NDIM] : 0, h + H_SHAPE),
                            fmt_shape(b1, sizeof b1, w[H_NDIM], w + H_SHAPE));
    return ND_OK;
}

/* The blocking transfer: MPI_Send / MPI_Recv, the header first. A receive
 * whose header does not match still takes the data message off the queue
 * (in the sender's dtype and size, into scratch), so the next receive of
 * that tag gets the next message, and then reports the mismatch. */
static nd_status p2p_blocking(nd_request *r, int peer, int tag, int64_t count)
{
    nd_comm *c = r->comm;
    MPI_Datatype dt = ndm_mpi_type(r->dtype);
    size_t isz = nd_dtype_size(r->dtype);
    int rc;
    if (r->kind == NDM_SEND) {
        rc = MPI_Send(r->hdr, HDR_LEN, MPI_INT64_T, peer, tag, c->mc);
        for (int64_t k = 0; k < nchunks(count) && rc == MPI_SUCCESS; k++) {
            int64_t off = k * CHUNK, cnt = count - off < CHUNK ? count - off : CHUNK;
            rc = MPI_Send((char *)r->in.buf + (size_t)off * isz, (int)cnt, dt, peer, tag, c->mc);
        }
        r->done = true;
        return rc == MPI_SUCCESS ? ND_OK : mpi_fail(r->fn, "MPI_Send", rc);
    }
    rc = MPI_Recv(r->hdr, HDR_LEN, MPI_INT64_T, peer, tag, c->mc, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return mpi_fail(r->fn, "MPI_Recv", rc);
    nd_status st = hdr_check(r);
    if (st) {
        const int64_t *h = r->hdr;
        bool sane = h[H_MAGIC] == HDR_MAGIC && h[H_DTYPE] >= 0 && h[H_DTYPE] < ND_NUM_DTYPES && h[H_NDIM] >= 0 &&
                    h[H_NDIM] <= ND_MAX_DIMS;
        int64_t n = 1;
        for (int i = 0; sane && i < h[H_NDIM]; i++) n *= h[H_SHAPE + i];
        if (sane) { /* drain the sender's data message(s) */
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", nd_last_error());
            nd_dtype st_t = (nd_dtype)h[H_DTYPE];
            int64_t cap = n < CHUNK ? n : CHUNK;
            nd_array *scratch = NULL;
            int64_t bytes = cap * (int64_t)nd_dtype_size(st_t);
            if (bytes < 1) bytes = 1;
            if (nd_empty(&scratch, ND_UINT8, 1, &bytes, nd_cpu()) == ND_OK) {
                for (int64_t k = 0; k < nchunks(n); k++) {
                    int64_t off = k * CHUNK, cnt = n - off < CHUNK ? n - off : CHUNK;
                    MPI_Recv(nd_data(scratch), (int)cnt, ndm_mpi_type(st_t), peer, tag, c->mc, MPI_STATUS_IGNORE);
                }
            }
            nd_release(scratch);
            /* the mismatch, not the drain, is the news (nd_empty may have reset the message) */
            size_t fl = strlen(r->fn);
            const char *m = strncmp(msg, r->fn, fl) == 0 && msg[fl] == ':' ? msg + fl + 2 : msg;
            nd_set_error(st, r->fn, "%s", m);
        }
        return st;
    }
    for (int64_t k = 0; k < nchunks(count) && rc == MPI_SUCCESS; k++) {
        int64_t off = k * CHUNK, cnt = count - off < CHUNK ? count - off : CHUNK;
        rc = MPI_Recv((char *)r->in.buf + (size_t)off * isz, (int)cnt, dt, peer, tag, c->mc, MPI_STATUS_IGNORE);
    }
    r->done = true;
    return rc == MPI_SUCCESS ? ND_OK : mpi_fail(r->fn, "MPI_Recv", rc);
}

/* ------------------------------------------------------------------ */
/* Completion                                                          */
/* ------------------------------------------------------------------ */
nd_status nd_test(nd_request *r, bool *done)
{
    if (!done) return nd_set_error(ND_ERR_INVALID, "nd_test", "'done' is NULL");
    if (!r) return nd_set_error(ND_ERR_INVALID, "nd_test", "'req' is NULL");
    if (!r->done && r->nmr > 0) {
        int flag = 0;
        int rc = MPI_Testall(r->nmr, r->mr, &flag, r->sts);
        if (rc != MPI_SUCCESS || flag) r->done = true, r->mpi_rc = rc;
    } else {
        r->done = true; /* NCCL: queued on the stream, ordered with every later op */
        if (r->nccl) {
            nd_status st = ndm_nccl_check(r->comm->nccl, "nd_test");
            if (st) return st;
        }
    }
    *done = r->done;
    return ND_OK;
}

nd_status nd_wait(nd_request *r)
{
    if (!r) return ND_OK;
    if (!r->done && r->nmr > 0) r->mpi_rc = MPI_Waitall(r->nmr, r->mr, r->sts);
    r->done = true;
    nd_status st = r->nccl ? ndm_nccl_check(r->comm->nccl, r->fn) : ND_OK;
    if (r->kind == NDM_RECV) {
        /* the header tells a mismatch apart from a transport error */
        bool hdr_ok = r->mpi_rc == MPI_SUCCESS || (r->mpi_rc == MPI_ERR_IN_STATUS && r->sts[0].MPI_ERROR == MPI_SUCCESS);
        if (hdr_ok) st = hdr_check(r);
    }
    if (!st && r->mpi_rc != MPI_SUCCESS) {
        int rc = r->mpi_rc;
        if (rc == MPI_ERR_IN_STATUS)
            for (int i = 0; i < r->nmr; i++)
                if (r->sts[i].MPI_ERROR != MPI_SUCCESS && r->sts[i].MPI_ERROR != MPI_ERR_PENDING) {
                    rc = r->sts[i].MPI_ERROR;
                    break;
                }
        st = mpi_fail(r->fn, "MPI_Waitall", rc);
    }
    if (!st && r->avg) {
        stage *s = r->kind == NDM_REDUCE_SCATTER ? &r->out : &r->in;
        ndm_divide(s->buf, s->nbytes / nd_dtype_size(r->dtype), r->dtype, r->comm->size);
    }
    if (!st && r->write_in) st = stage_end(&r->in, true);
    if (!st && r->write_out) st = stage_end(&r->out, true);
    req_free(r);
    return st;
}

/* ------------------------------------------------------------------ */
/* The public calls                                                    */
/* ------------------------------------------------------------------ */
nd_status nd_iallreduce(nd_comm *c, nd_array *a, nd_comm_op op, nd_request **req)
{
    return coll_start(c, NDM_ALLREDUCE, a, NULL, op, 0, req, false);
}
nd_status nd_ibroadcast(nd_comm *c, nd_array *a, int root, nd_request **req)
{
    return coll_start(c, NDM_BROADCAST, a, NULL, ND_COMM_SUM, root, req, false);
}
nd_status nd_iallgather(nd_comm *c, nd_array **out, const nd_array *a, nd_request **req)
{
    return coll_start(c, NDM_ALLGATHER, (nd_array *)a, out, ND_COMM_SUM, 0, req, false);
}
nd_status nd_ireduce_scatter(nd_comm *c, nd_array **out, const nd_array *a, nd_comm_op op, nd_request **req)
{
    return coll_start(c, NDM_REDUCE_SCATTER, (nd_array *)a, out, op, 0, req, false);
}
nd_status nd_ialltoall(nd_comm *c, nd_array **out, const nd_array *a, nd_request **req)
{
    return coll_start(c, NDM_ALLTOALL, (nd_array *)a, out, ND_COMM_SUM, 0, req, false);
}
nd_status nd_ibarrier(nd_comm *c, nd_request **req) { return coll_start(c, NDM_BARRIER, NULL, NULL, ND_COMM_SUM, 0, req, false); }
nd_status nd_isend(nd_comm *c, const nd_array *a, int dest, int tag, nd_request **req)
{
    return p2p_start(c, NDM_SEND, (nd_array *)a, dest, tag, req, false);
}
nd_status nd_irecv(nd_comm *c, nd_array *a, int src, int tag, nd_request **req)
{
    return p2p_start(c, NDM_RECV, a, src, tag, req, false);
}

/* Blocking = start + wait; a result allocated by the start is released
 * again when the wait fails (the out rule: on failure *out is untouched). */
static nd_status finish(nd_status st, nd_request **r, nd_array **out, bool fresh)
{
    if (st) return st;
    st = nd_wait(*r); /* *r read here: the start has run (argument order is unspecified) */
    if (st && fresh && out) {
        nd_release(*out);
        *out = NULL;
    }
    return st;
}

nd_status nd_allreduce(nd_comm *c, nd_array *a, nd_comm_op op)
{
    nd_request *r = NULL;
    return finish(coll_start(c, NDM_ALLREDUCE, a, NULL, op, 0, &r, true), &r, NULL, false);
}
nd_status nd_broadcast(nd_comm *c, nd_array *a, int root)
{
    nd_request *r = NULL;
    return finish(coll_start(c, NDM_BROADCAST, a, NULL, ND_COMM_SUM, root, &r, true), &r, NULL, false);
}
nd_status nd_allgather(nd_comm *c, nd_array **out, const nd_array *a)
{
    nd_request *r = NULL;
    bool fresh = out && !*out;
    return finish(coll_start(c, NDM_ALLGATHER, (nd_array *)a, out, ND_COMM_SUM, 0, &r, true), &r, out, fresh);
}
nd_status nd_reduce_scatter(nd_comm *c, nd_array **out, const nd_array *a, nd_comm_op op)
{
    nd_request *r = NULL;
    bool fresh = out && !*out;
    return finish(coll_start(c, NDM_REDUCE_SCATTER, (nd_array *)a, out, op, 0, &r, true), &r, out, fresh);
}
nd_status nd_alltoall(nd_comm *c, nd_array **out, const nd_array *a)
{
    nd_request *r = NULL;
    bool fresh = out && !*out;
    return finish(coll_start(c, NDM_ALLTOALL, (nd_array *)a, out, ND_COMM_SUM, 0, &r, true), &r, out, fresh);
}
nd_status nd_barrier(nd_comm *c)
{
    nd_request *r = NULL;
    return finish(coll_start(c, NDM_BARRIER, NULL, NULL, ND_COMM_SUM, 0, &r, true), &r, NULL, false);
}
nd_status nd_send(nd_comm *c, const nd_array *a, int dest, int tag)
{
    if (c && a && dest == c->rank)
        return nd_set_error(ND_ERR_INVALID, "nd_send", "a blocking send to this rank itself never completes (use nd_isend + nd_irecv)");
    nd_request *r = NULL;
    return finish(p2p_start(c, NDM_SEND, (nd_array *)a, dest, tag, &r, true), &r, NULL, false);
}
nd_status nd_recv(nd_comm *c, nd_array *a, int src, int tag)
{
    if (c && a && src == c->rank)
        return nd_set_error(ND_ERR_INVALID, "nd_recv", "a blocking receive from this rank itself never completes (use nd_isend + nd_irecv)");
    nd_request *r = NULL;
    return finish(p2p_start(c, NDM_RECV, a, src, tag, &r, true), &r, NULL, false);
}
