/* .npz files of sparse matrices (src/sparse/npz.c) and the DEFLATE decoder
 * their compressed members need (src/sparse/inflate.c). */
#ifndef ND_SPARSE_NPZ_H
#define ND_SPARSE_NPZ_H
#include <stdbool.h>
#include <stddef.h>

#include "core/internal.h"

/* Decompress the raw DEFLATE stream src into exactly dstlen bytes at dst;
 * false when the stream is malformed, ends early, or does not produce
 * exactly dstlen bytes. */
ND_INTERNAL bool nd__npz_inflate(unsigned char *dst, size_t dstlen, const unsigned char *src, size_t srclen);
#endif
