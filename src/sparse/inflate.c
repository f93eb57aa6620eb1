/* The DEFLATE side of .npz files through zlib: raw streams (no zlib or
 * gzip wrapper: windowBits -15), as zip members hold them, and CRC-32.
 * Sizes beyond zlib's 32-bit counters go through in chunks. */
#include <limits.h>
#include <string.h>
#include <zlib.h>

#include "sparse/npz.h"

#define NPZ_CHUNK ((size_t)UINT_MAX)

bool nd__npz_inflate(unsigned char *dst, size_t dstlen, const unsigned char *src, size_t srclen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK) return false;
    size_t in_left = srclen, out_left = dstlen;
    z.next_in = (Bytef *)src;
    z.next_out = dst;
    int r;
    for (;;) {
        if (z.avail_in == 0 && in_left) {
            z.avail_in = (uInt)(in_left < NPZ_CHUNK ? in_left : NPZ_CHUNK);
            in_left -= z.avail_in;
        }
        if (z.avail_out == 0 && out_left) {
            z.avail_out = (uInt)(out_left < NPZ_CHUNK ? out_left : NPZ_CHUNK);
            out_left -= z.avail_out;
        }
        r = inflate(&z, Z_NO_FLUSH);
        if (r == Z_OK) continue;
        /* no progress: go on only where a chunk is left to give */
        if (r == Z_BUF_ERROR && ((z.avail_in == 0 && in_left) || (z.avail_out == 0 && out_left))) continue;
        break; /* the stream's end, malformed data, input ended early, output full */
    }
    /* the whole stream, exactly dstlen bytes */
    bool ok = r == Z_STREAM_END && out_left == 0 && z.avail_out == 0;
    inflateEnd(&z);
    return ok;
}

int nd__npz_deflate(unsigned char **dst, size_t *dstlen, const unsigned char *src, size_t srclen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* zipfile's ZIP_DEFLATED: the default level, raw stream */
    int r = deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    if (r != Z_OK) return r == Z_MEM_ERROR ? -1 : -2;
    size_t cap = (size_t)deflateBound(&z, (uLong)srclen) + (srclen / NPZ_CHUNK + 1) * 16;
    unsigned char *out = nd__malloc(cap);
    if (!out) {
        deflateEnd(&z);
        return -1;
    }
    size_t in_left = srclen, out_left = cap;
    z.next_in = (Bytef *)src;
    z.next_out = out;
    for (;;) {
        if (z.avail_in == 0 && in_left) {
            z.avail_in = (uInt)(in_left < NPZ_CHUNK ? in_left : NPZ_CHUNK);
            in_left -= z.avail_in;
        }
        if (z.avail_out == 0 && out_left) {
            z.avail_out = (uInt)(out_left < NPZ_CHUNK ? out_left : NPZ_CHUNK);
            out_left -= z.avail_out;
        }
        r = deflate(&z, in_left || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
        if (r == Z_OK) continue;
        if (r == Z_BUF_ERROR && ((z.avail_in == 0 && in_left) || (z.avail_out == 0 && out_left))) continue;
        break;
    }
    size_t n = (size_t)(z.next_out - out);
    deflateEnd(&z);
    if (r != Z_STREAM_END) {
        nd__free(out);
        return -2;
    }
    *dst = out;
    *dstlen = n;
    return 0;
}

uint32_t nd__npz_crc32(const unsigned char *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    while (n) {
        uInt k = (uInt)(n < NPZ_CHUNK ? n : NPZ_CHUNK);
        c = crc32(c, p, k);
        p += k;
        n -= k;
    }
    return (uint32_t)c;
}
