/* The CPU backend: host memory and the function table. */
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"

/* 64-byte aligned so vector loops and BLAS see aligned rows. */
static nd_status cpu_alloc(nd_device dev, size_t nbytes, void **ptr)
{
    (void)dev;
    size_t n = (nbytes + 63) & ~(size_t)63;
    if (n < nbytes) return nd__err(ND_ERR_NOMEM, "nd_alloc", "cannot allocate %zu bytes", nbytes);
    void *p = aligned_alloc(64, n ? n : 64);
    if (!p) return nd__err(ND_ERR_NOMEM, "nd_alloc", "out of host memory allocating %zu bytes", nbytes);
    *ptr = p;
    return ND_OK;
}

static void cpu_free(nd_device dev, void *ptr)
{
    (void)dev;
    free(ptr);
}

static nd_status cpu_memcpy(nd_device dev, void *dst, const void *src, size_t nbytes)
{
    (void)dev;
    if (nbytes) memmove(dst, src, nbytes);
    return ND_OK;
}

static nd_status cpu_synchronize(nd_device dev)
{
    (void)dev;
    return ND_OK;
}

const nd_backend nd__cpu_backend = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .free = cpu_free,
    .memcpy_h2d = cpu_memcpy,
    .memcpy_d2h = cpu_memcpy,
    .memcpy_d2d = cpu_memcpy,
    .cast = nd__cpu_cast,
    .fill = nd__cpu_fill,
    .unary = nd__cpu_unary,
    .binary = nd__cpu_binary,
    .where = nd__cpu_where,
    .reduce = nd__cpu_reduce,
    .matmul = nd__cpu_matmul,
    .gemm = nd__cpu_gemm,
    .random = nd__cpu_random,
    .synchronize = cpu_synchronize,
};
