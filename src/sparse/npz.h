/* .npz files of sparse matrices (src/sparse/npz.c) and the DEFLATE and
 * CRC-32 of their members (src/sparse/inflate.c, through zlib). */
#ifndef ND_SPARSE_NPZ_H
#define ND_SPARSE_NPZ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* Decompress the raw DEFLATE stream src into exactly dstlen bytes at dst;
 * false when the stream is malformed, ends early, or does not produce
 * exactly dstlen bytes. */
ND_INTERNAL bool nd__npz_inflate(unsigned char *dst, size_t dstlen, const unsigned char *src, size_t srclen);
/* Compress srclen bytes at src into a raw DEFLATE stream (zlib's default
 * level, as Python's zipfile writes ZIP_DEFLATED members): *dst
 * (nd__malloc'ed, *dstlen bytes); 0, or -1 out of memory, -2 a zlib
 * failure. */
ND_INTERNAL int nd__npz_deflate(unsigned char **dst, size_t *dstlen, const unsigned char *src, size_t srclen);
/* The zip CRC-32 of n bytes. */
ND_INTERNAL uint32_t nd__npz_crc32(const unsigned char *p, size_t n);
#endif
