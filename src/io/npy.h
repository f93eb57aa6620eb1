/* Internal interface of the .npy reader/writer (src/io/npy.c, src/io/npy_parse.c). */
#ifndef ND_NPY_H
#define ND_NPY_H
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* NumPy's max_header_size: longer headers are refused before parsing. */
#define ND_NPY_MAX_HEADER 10000

typedef struct npy_header {
    int version;          /* 1, 2 or 3 */
    nd_dtype dtype;
    bool swap;            /* data is in the other byte order */
    bool fortran_order;
    int ndim;
    int64_t shape[ND_MAX_DIMS];
    int64_t size;         /* elements */
    uint64_t nbytes;      /* size * itemsize, overflow-checked */
    size_t data_offset;   /* first byte of the data */
} npy_header;

/* Parse and validate the magic string, version, header length and header
 * dict in buf[0, avail). Never reads outside it. func names the caller. */
ND_INTERNAL nd_status nd__npy_parse_header(const char *func, const unsigned char *buf, size_t avail, npy_header *h);

/* The .npy 1.0 header NumPy writes for a (src/io/npy.c; also the members
 * of .npz files): its length, 0 when it does not fit cap. */
ND_INTERNAL size_t nd__npy_format_header(char *buf, size_t cap, const nd_array *a);
#endif
