/* The sparse family's internals (src/sparse/): the matrix object and the
 * helpers its files share. The backend slot's contract is
 * src/shared/sparse_slots.h. */
#ifndef ND_SPARSE_IMPL_H
#define ND_SPARSE_IMPL_H
#include "core/internal.h"
#include "core/backend.h"
#include "shared/sparse_slots.h"

struct nd_sparse {
    nd_sparse_format fmt;
    int64_t rows, cols;
    nd_array *data;
    nd_array *indices, *indptr; /* CSR/CSC */
    nd_array *row, *col;        /* COO */
    bool canonical;             /* known to be canonical (false: unknown) */
};

/* A new matrix taking over the references given (NULL ones stay NULL). */
ND_INTERNAL nd_status nd__sp_new(nd_sparse **out, nd_sparse_format fmt, int64_t rows, int64_t cols, nd_array *data,
                                 nd_array *indices, nd_array *indptr, nd_array *row, nd_array *col, bool canonical);
/* The CSR form of a CSR matrix or the CSR form of the transpose of a CSC
 * one (borrowed references). */
ND_INTERNAL nd_sp_csr nd__sp_csr_form(const nd_sparse *s);
/* A CSR (fmt CSR) or CSC matrix from a slot result (references taken). */
ND_INTERNAL nd_status nd__sp_from_csr(nd_sparse **out, nd_sparse_format fmt, nd_sp_csr *c, bool canonical);
/* s as CSR (a new reference to s itself when it is CSR already). */
ND_INTERNAL nd_status nd__sp_as_csr(const char *fn, nd_sparse **out, const nd_sparse *s);
/* s as canonical CSR (sorted, duplicates summed). */
ND_INTERNAL nd_status nd__sp_as_canonical_csr(const char *fn, nd_sparse **out, const nd_sparse *s);
/* The device's sparse slot, or ND_ERR_UNSUPPORTED naming fn. */
ND_INTERNAL nd_status nd__sp_slot(const char *fn, nd_device dev, nd_status (**slot)(nd_sp_call *));
/* Run one slot call on dev, prefixing errors with fn. */
ND_INTERNAL nd_status nd__sp_run(const char *fn, nd_device dev, nd_sp_call *call);
/* ND_ERR_INVALID when s is NULL; the value dtype check. */
ND_INTERNAL nd_status nd__sp_check(const char *fn, const nd_sparse *s, const char *name);
/* A contiguous host copy or reference of a (for validation). */
ND_INTERNAL nd_status nd__sp_host(nd_array **h, const nd_array *a);
/* Element i of an int32/int64 array on the host. */
static inline int64_t nd__sp_idx(const nd_array *h, int64_t i)
{
    return h->dtype == ND_INT64 ? ((const int64_t *)nd__ptr(h))[i] : (int64_t)((const int32_t *)nd__ptr(h))[i];
}
/* scipy's index dtype for a matrix of this shape and size. */
static inline nd_dtype nd__sp_index_for(int64_t rows, int64_t cols, int64_t nnz)
{
    return rows <= INT32_MAX && cols <= INT32_MAX && nnz <= INT32_MAX ? ND_INT32 : ND_INT64;
}
#endif
