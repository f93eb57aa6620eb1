/* Raw DEFLATE decompression (RFC 1951) for the members of compressed .npz
 * files (scipy.sparse.save_npz's default): stored, fixed and dynamic
 * Huffman blocks, decoded canonically as zlib's puff.c does. Every read is
 * bounds-checked; a malformed stream is an error, never a read or write
 * outside the buffers. */
#include <string.h>

#include "sparse/npz.h"

#define INF_MAXBITS 15
#define INF_MAXLCODES 286
#define INF_MAXDCODES 30
#define INF_FIXLCODES 288

typedef struct inf {
    const unsigned char *in;
    size_t inlen, incnt;
    unsigned char *out;
    size_t outlen, outcnt;
    uint32_t bitbuf;
    int bitcnt;
    int err;
} inf;

typedef struct huff {
    short count[INF_MAXBITS + 1];
    short symbol[INF_FIXLCODES];
} huff;

static int bits(inf *s, int need)
{
    uint32_t val = s->bitbuf;
    while (s->bitcnt < need) {
        if (s->incnt == s->inlen) {
            s->err = 1;
            return 0;
        }
        val |= (uint32_t)s->in[s->incnt++] << s->bitcnt;
        s->bitcnt += 8;
    }
    s->bitbuf = val >> need;
    s->bitcnt -= need;
    return (int)(val & ((1u << need) - 1));
}

static int stored(inf *s)
{
    s->bitbuf = 0;
    s->bitcnt = 0;
    if (s->incnt + 4 > s->inlen) return -1;
    unsigned len = s->in[s->incnt] | (unsigned)s->in[s->incnt + 1] << 8;
    unsigned nlen = s->in[s->incnt + 2] | (unsigned)s->in[s->incnt + 3] << 8;
    s->incnt += 4;
    if (len != (~nlen & 0xffff)) return -2;
    if (s->incnt + len > s->inlen) return -1;
    if (s->outcnt + len > s->outlen) return -3;
    memcpy(s->out + s->outcnt, s->in + s->incnt, len);
    s->outcnt += len;
    s->incnt += len;
    return 0;
}

static int decode(inf *s, const huff *h)
{
    int code = 0, first = 0, index = 0;
    for (int len = 1; len <= INF_MAXBITS; len++) {
        code |= bits(s, 1);
        if (s->err) return -10;
        int count = h->count[len];
        if (code - count < first) return h->symbol[index + (code - first)];
        index += count;
        first += count;
        first <<= 1;
        code <<= 1;
    }
    return -10;
}

/* 0: complete, > 0: incomplete (allowed only for a single code), < 0: over-subscribed */
static int construct(huff *h, const short *length, int n)
{
    short offs[INF_MAXBITS + 1];
    for (int len = 0; len <= INF_MAXBITS; len++) h->count[len] = 0;
    for (int sym = 0; sym < n; sym++) h->count[length[sym]]++;
    if (h->count[0] == n) return 0;
    int left = 1;
    for (int len = 1; len <= INF_MAXBITS; len++) {
        left <<= 1;
        left -= h->count[len];
        if (left < 0) return left;
    }
    offs[1] = 0;
    for (int len = 1; len < INF_MAXBITS; len++) offs[len + 1] = (short)(offs[len] + h->count[len]);
    for (int sym = 0; sym < n; sym++)
        if (length[sym] != 0) h->symbol[offs[length[sym]]++] = (short)sym;
    return left;
}

static int codes(inf *s, const huff *lencode, const huff *distcode)
{
    static const short lbase[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                    35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const short lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    static const short dbase[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129,
                                    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
    static const short dext[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
    int symbol;
    do {
        symbol = decode(s, lencode);
        if (symbol < 0) return symbol;
        if (symbol < 256) {
            if (s->outcnt == s->outlen) return -3;
            s->out[s->outcnt++] = (unsigned char)symbol;
        } else if (symbol > 256) {
            symbol -= 257;
            if (symbol >= 29) return -10;
            size_t len = (size_t)(lbase[symbol] + bits(s, lext[symbol]));
            int d = decode(s, distcode);
            if (d < 0) return d;
            if (d >= 30) return -10;
            size_t dist = (size_t)(dbase[d] + bits(s, dext[d]));
            if (s->err) return -10;
            if (dist > s->outcnt) return -11;
            if (s->outcnt + len > s->outlen) return -3;
            for (; len; len--, s->outcnt++) s->out[s->outcnt] = s->out[s->outcnt - dist];
        }
    } while (symbol != 256);
    return 0;
}

static int fixed(inf *s)
{
    huff lencode, distcode;
    short lengths[INF_FIXLCODES];
    int sym = 0;
    for (; sym < 144; sym++) lengths[sym] = 8;
    for (; sym < 256; sym++) lengths[sym] = 9;
    for (; sym < 280; sym++) lengths[sym] = 7;
    for (; sym < INF_FIXLCODES; sym++) lengths[sym] = 8;
    construct(&lencode, lengths, INF_FIXLCODES);
    for (sym = 0; sym < INF_MAXDCODES; sym++) lengths[sym] = 5;
    construct(&distcode, lengths, INF_MAXDCODES);
    return codes(s, &lencode, &distcode);
}

static int dynamic(inf *s)
{
    static const short order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    short lengths[INF_MAXLCODES + INF_MAXDCODES];
    huff lencode, distcode;
    int nlen = bits(s, 5) + 257, ndist = bits(s, 5) + 1, ncode = bits(s, 4) + 4;
    if (s->err) return -10;
    if (nlen > INF_MAXLCODES || ndist > INF_MAXDCODES) return -3;
    int index = 0;
    for (; index < ncode; index++) lengths[order[index]] = (short)bits(s, 3);
    for (; index < 19; index++) lengths[order[index]] = 0;
    if (s->err) return -10;
    if (construct(&lencode, lengths, 19) != 0) return -4;
    index = 0;
    while (index < nlen + ndist) {
        int symbol = decode(s, &lencode);
        if (symbol < 0) return symbol;
        if (symbol < 16) {
            lengths[index++] = (short)symbol;
        } else {
            int len = 0, rep;
            if (symbol == 16) {
                if (index == 0) return -5;
                len = lengths[index - 1];
                rep = 3 + bits(s, 2);
            } else if (symbol == 17) {
                rep = 3 + bits(s, 3);
            } else {
                rep = 11 + bits(s, 7);
            }
            if (s->err) return -10;
            if (index + rep > nlen + ndist) return -6;
            while (rep--) lengths[index++] = (short)len;
        }
    }
    if (lengths[256] == 0) return -9;
    int err = construct(&lencode, lengths, nlen);
    if (err && (err < 0 || nlen != lencode.count[0] + lencode.count[1])) return -7;
    err = construct(&distcode, lengths + nlen, ndist);
    if (err && (err < 0 || ndist != distcode.count[0] + distcode.count[1])) return -8;
    return codes(s, &lencode, &distcode);
}

bool nd__npz_inflate(unsigned char *dst, size_t dstlen, const unsigned char *src, size_t srclen)
{
    inf s = {.in = src, .inlen = srclen, .out = dst, .outlen = dstlen};
    int last, err;
    do {
        last = bits(&s, 1);
        int type = bits(&s, 2);
        if (s.err) return false;
        err = type == 0 ? stored(&s) : type == 1 ? fixed(&s) : type == 2 ? dynamic(&s) : -1;
        if (err != 0 || s.err) return false;
    } while (!last);
    return s.outcnt == dstlen;
}
