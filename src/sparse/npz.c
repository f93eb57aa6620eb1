/* scipy.sparse's .npz files: nd_sparse_save_npz writes what
 * scipy.sparse.save_npz(file, m) writes (a zip of .npy members: indices,
 * indptr or row, col; format; shape; data; _is_array; DEFLATE members by
 * zlib, src/sparse/inflate.c), nd_sparse_save_npz_stored what it writes
 * with compressed=False (stored members), and nd_sparse_load_npz reads
 * both. The reader checks every offset
 * and size against the file, the CRC-32 of every member it uses, the .npy
 * headers (nd_load_npy_buffer's parser), and then the matrix itself as
 * nd_sparse_compressed / nd_sparse_coo do. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "io/npy.h"
#include "sparse/npz.h"
#include "sparse/sparse_impl.h"

static uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const unsigned char *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* ------------------------------------------------------------------ */
/* reading                                                             */
/* ------------------------------------------------------------------ */
enum { M_FORMAT, M_SHAPE, M_DATA, M_INDICES, M_INDPTR, M_ROW, M_COL, M_N };
static const char *const MEMBER[M_N] = {"format.npy", "shape.npy", "data.npy", "indices.npy",
                                        "indptr.npy", "row.npy", "col.npy"};

typedef struct member {
    bool found;
    unsigned char *bytes; /* the uncompressed member (nd__malloc'ed) */
    size_t size;
} member;

static nd_status bad(const char *fn, const char *what)
{
    return nd__err(ND_ERR_IO, fn, "not a valid .npz file: %s", what);
}

/* the member at central directory entry e (bounds-checked) */
static nd_status read_member(const char *fn, const unsigned char *z, size_t zn, uint32_t method, uint64_t csize,
                             uint64_t usize, uint64_t off, uint32_t crc, const char *name, member *m)
{
    if (off > zn || zn - off < 30 || rd32(z + off) != 0x04034b50u) return bad(fn, "a local header is missing");
    uint64_t start = off + 30 + rd16(z + off + 26) + rd16(z + off + 28);
    if (start > zn || csize > zn - start) return bad(fn, "a member runs past the end of the file");
    if (method != 0 && method != 8)
        return nd__err(ND_ERR_UNSUPPORTED, fn, "member '%s' uses compression method %u (only stored and deflate)",
                       name, method);
    if (method == 0 && csize != usize) return bad(fn, "a stored member's sizes differ");
    /* DEFLATE expands at most about 1032:1: refuse sizes no stream of csize bytes can produce */
    if (method == 8 && usize / 1032 > csize + 1) return bad(fn, "a member's size is impossible for its data");
    m->bytes = nd__malloc((size_t)usize + 1);
    if (!m->bytes) return nd__err(ND_ERR_NOMEM, fn, "out of host memory for a %llu-byte member", (unsigned long long)usize);
    m->size = (size_t)usize;
    if (method == 0) memcpy(m->bytes, z + start, (size_t)usize);
    else if (!nd__npz_inflate(m->bytes, (size_t)usize, z + start, (size_t)csize))
        return nd__err(ND_ERR_IO, fn, "member '%s' is not a valid DEFLATE stream", name);
    if (nd__npz_crc32(m->bytes, m->size) != crc)
        return nd__err(ND_ERR_IO, fn, "member '%s' fails its CRC-32 check (the file is corrupt)", name);
    m->found = true;
    return ND_OK;
}

/* walk the central directory, reading the members we know */
static nd_status read_zip(const char *fn, const unsigned char *z, size_t zn, member *mem)
{
    if (zn < 22) return bad(fn, "too short for a zip archive");
    size_t eocd = 0;
    bool found = false;
    size_t lo = zn > 22 + 65535 ? zn - 22 - 65535 : 0;
    for (size_t p = zn - 22 + 1; p-- > lo;)
        if (rd32(z + p) == 0x06054b50u) {
            eocd = p;
            found = true;
            break;
        }
    if (!found) return bad(fn, "no zip end-of-central-directory record");
    uint64_t entries = rd16(z + eocd + 10), cdsize = rd32(z + eocd + 12), cdoff = rd32(z + eocd + 16);
    if ((entries == 0xffff || cdsize == 0xffffffffu || cdoff == 0xffffffffu) && eocd >= 20 &&
        rd32(z + eocd - 20) == 0x07064b50u) { /* zip64 */
        uint64_t z64 = rd64(z + eocd - 20 + 8);
        if (z64 > zn || zn - z64 < 56 || rd32(z + z64) != 0x06064b50u) return bad(fn, "a broken zip64 record");
        entries = rd64(z + z64 + 32);
        cdsize = rd64(z + z64 + 40);
        cdoff = rd64(z + z64 + 48);
    }
    if (cdoff > zn || cdsize > zn - cdoff) return bad(fn, "the central directory runs past the end of the file");
    uint64_t p = cdoff, end = cdoff + cdsize;
    for (uint64_t e = 0; e < entries; e++) {
        if (end - p < 46 || rd32(z + p) != 0x02014b50u) return bad(fn, "a broken central directory entry");
        uint32_t method = rd16(z + p + 10), crc = rd32(z + p + 16);
        uint64_t csize = rd32(z + p + 20), usize = rd32(z + p + 24), off = rd32(z + p + 42);
        uint32_t nlen = rd16(z + p + 28), xlen = rd16(z + p + 30), clen = rd16(z + p + 32);
        if (end - p - 46 < (uint64_t)nlen + xlen + clen) return bad(fn, "a central directory entry runs past its end");
        const unsigned char *name = z + p + 46, *x = name + nlen;
        /* zip64 extra field: the 0xffffffff fields, in this order */
        for (uint32_t q = 0; q + 4 <= xlen;) {
            uint32_t id = rd16(x + q), len = rd16(x + q + 2);
            if (q + 4 + len > xlen) break;
            if (id == 1) {
                const unsigned char *v = x + q + 4, *ve = v + len;
                if (usize == 0xffffffffu && v + 8 <= ve) usize = rd64(v), v += 8;
                if (csize == 0xffffffffu && v + 8 <= ve) csize = rd64(v), v += 8;
                if (off == 0xffffffffu && v + 8 <= ve) off = rd64(v);
            }
            q += 4 + len;
        }
        for (int k = 0; k < M_N; k++)
            if (strlen(MEMBER[k]) == nlen && memcmp(name, MEMBER[k], nlen) == 0) {
                if (mem[k].found) return bad(fn, "a member appears twice");
                nd_status st = read_member(fn, z, zn, method, csize, usize, off, crc, MEMBER[k], &mem[k]);
                if (st) return st;
            }
        p += 46 + (uint64_t)nlen + xlen + clen;
    }
    return ND_OK;
}

/* the text of the 0-d '|S<n>' format member */
static nd_status read_format(const char *fn, const member *m, char *fmt, size_t cap)
{
    npy_header h;
    if (m->size < 10 || memcmp(m->bytes, "\x93NUMPY", 6) != 0) return bad(fn, "format.npy is not a .npy member");
    size_t hlen = m->bytes[6] == 1 ? 10 + rd16(m->bytes + 8) : m->size >= 12 ? 12 + (size_t)rd32(m->bytes + 8) : SIZE_MAX;
    (void)h;
    if (hlen > m->size) return bad(fn, "format.npy's header runs past the member");
    const char *d = memchr(m->bytes, 'S', hlen);
    size_t n = m->size - hlen;
    if (!d || n == 0 || n >= cap || (const unsigned char *)d < m->bytes + 10 ||
        (d[-1] != '|' && d[-1] != '<' && d[-1] != '>'))
        return bad(fn, "format.npy does not hold a byte string");
    memcpy(fmt, m->bytes + hlen, n);
    fmt[n] = 0;
    return ND_OK;
}

static nd_status member_array(const char *fn, const member *m, const char *name, nd_array **a)
{
    if (!m->found) return nd__err(ND_ERR_IO, fn, "not a valid .npz file: member '%s' is missing", name);
    nd_status st = nd_load_npy_buffer(a, m->bytes, m->size, nd_cpu());
    if (st) return nd__err(st, fn, "member '%s': %s", name, nd_last_error());
    return ND_OK;
}

nd_status nd_sparse_load_npz_buffer(nd_sparse **out, const void *data, size_t size)
{
    static const char *fn = "nd_sparse_load_npz";
    ND_CHECK_PTR(fn, out, "out");
    if (!data && size) return nd__err(ND_ERR_INVALID, fn, "argument 'data' is NULL");
    member mem[M_N] = {{0}};
    nd_array *shape = NULL, *d = NULL, *i = NULL, *p = NULL;
    char fmt[16];
    nd_status st = read_zip(fn, data, size, mem);
    if (!st && !mem[M_FORMAT].found) st = nd__err(ND_ERR_IO, fn, "the file holds no sparse matrix (no 'format' member)");
    if (!st) st = read_format(fn, &mem[M_FORMAT], fmt, sizeof fmt);
    bool csr = !st && strcmp(fmt, "csr") == 0, csc = !st && strcmp(fmt, "csc") == 0, coo = !st && strcmp(fmt, "coo") == 0;
    if (!st && !csr && !csc && !coo)
        st = nd__err(ND_ERR_UNSUPPORTED, fn, "format '%s' is not supported (csr, csc and coo are)", fmt);
    if (!st) st = member_array(fn, &mem[M_SHAPE], "shape", &shape);
    int64_t sh[2] = {0, 0};
    if (!st) {
        if (shape->ndim != 1 || shape->size != 2 || !nd__is_integer(shape->dtype)) {
            st = nd__err(ND_ERR_IO, fn, "not a valid .npz file: 'shape' is not two integers");
        } else {
            nd_array *s64 = NULL;
            if (!(st = nd_astype(&s64, shape, ND_INT64))) st = nd_copy_to_host(sh, s64, sizeof sh);
            nd_release(s64);
        }
    }
    if (!st) st = member_array(fn, &mem[M_DATA], "data", &d);
    if (!st && d->dtype == ND_BFLOAT16) /* '<V2': raw 2-byte records, as np.save writes ml_dtypes.bfloat16 */
        st = nd__err(ND_ERR_UNSUPPORTED, fn, "'data' holds bfloat16 values, which have no NumPy dtype: scipy.sparse "
                     "cannot hold them, and the .npz layout does not either");
    if (!st) st = member_array(fn, &mem[coo ? M_ROW : M_INDICES], coo ? "row" : "indices", &i);
    if (!st) st = member_array(fn, &mem[coo ? M_COL : M_INDPTR], coo ? "col" : "indptr", &p);
    if (!st) {
        st = coo ? nd_sparse_coo(out, d, i, p, sh[0], sh[1])
                 : nd_sparse_compressed(out, csr ? ND_SPARSE_CSR : ND_SPARSE_CSC, d, i, p, sh[0], sh[1]);
        if (st) st = nd__err_prefix(st, fn);
    }
    for (int k = 0; k < M_N; k++) nd__free(mem[k].bytes);
    nd_release(shape);
    nd_release(d);
    nd_release(i);
    nd_release(p);
    return st;
}

nd_status nd_sparse_load_npz(nd_sparse **out, const char *path)
{
    static const char *fn = "nd_sparse_load_npz";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, path, "path");
    FILE *f = fopen(path, "rb");
    if (!f) return nd__err(ND_ERR_IO, fn, "cannot open '%s': %s", path, strerror(errno));
    unsigned char *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    nd_status st = ND_OK;
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) st = nd__err(ND_ERR_IO, fn, "cannot read '%s': %s", path, strerror(errno));
    else if (!(buf = nd__malloc((size_t)n + 1)))
        st = nd__err(ND_ERR_NOMEM, fn, "out of host memory for the %ld bytes of '%s'", n, path);
    else if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        st = nd__err(ND_ERR_IO, fn, "cannot read '%s': %s", path, strerror(errno));
    fclose(f);
    if (!st) st = nd_sparse_load_npz_buffer(out, buf, (size_t)n);
    nd__free(buf);
    return st;
}

/* ------------------------------------------------------------------ */
/* writing                                                             */
/* ------------------------------------------------------------------ */
typedef struct zw {
    FILE *f;
    uint64_t off;
    unsigned char cd[8 * 128];
    size_t cdn;
    int count;
    bool ok, deflate; /* deflate: DEFLATE members (method 8), else stored (0) */
    bool nomem, zfail; /* a member failed: out of memory, zlib */
} zw;

static void wr16(unsigned char *p, uint32_t v) { p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8); }
static void wr32(unsigned char *p, uint32_t v) { wr16(p, v & 0xffff), wr16(p + 2, v >> 16); }

/* one member: header bytes then data bytes, stored or deflated */
static void zw_member(zw *w, const char *name, const void *h, size_t hn, const void *d, size_t dn)
{
    size_t nlen = strlen(name), size = hn + dn;
    unsigned char *tmp = nd__malloc(size + 1), *body = NULL;
    if (!tmp) {
        w->ok = false;
        w->nomem = true;
        return;
    }
    memcpy(tmp, h, hn);
    if (dn) memcpy(tmp + hn, d, dn);
    uint32_t crc = nd__npz_crc32(tmp, size);
    size_t csize = size;
    if (w->deflate) {
        int r = nd__npz_deflate(&body, &csize, tmp, size);
        if (r) {
            nd__free(tmp);
            w->ok = false;
            w->nomem = r == -1;
            w->zfail = r != -1;
            return;
        }
    }
    const unsigned char *out = body ? body : tmp;
    unsigned char lh[30] = {0};
    wr32(lh, 0x04034b50u);
    wr16(lh + 4, 20);
    wr16(lh + 8, w->deflate ? 8 : 0);
    wr16(lh + 10, 0x0000);        /* time 00:00 */
    wr16(lh + 12, (0 << 9) | (1 << 5) | 1); /* date 1980-01-01, as zipfile for a fixed timestamp */
    wr32(lh + 14, crc);
    wr32(lh + 18, (uint32_t)csize);
    wr32(lh + 22, (uint32_t)size);
    wr16(lh + 26, (uint32_t)nlen);
    if (w->ok)
        w->ok = fwrite(lh, 1, 30, w->f) == 30 && fwrite(name, 1, nlen, w->f) == nlen &&
                fwrite(out, 1, csize, w->f) == csize;
    nd__free(tmp);
    nd__free(body);
    unsigned char *c = w->cd + w->cdn;
    memset(c, 0, 46);
    wr32(c, 0x02014b50u);
    wr16(c + 4, 20);
    wr16(c + 6, 20);
    memcpy(c + 10, lh + 8, 2 + 2 + 2 + 4 + 4 + 4);
    wr16(c + 28, (uint32_t)nlen);
    wr32(c + 38, 0600u << 16);
    wr32(c + 42, (uint32_t)w->off);
    memcpy(c + 46, name, nlen);
    w->cdn += 46 + nlen;
    w->off += 30 + nlen + csize;
    w->count++;
}

static nd_status zw_array(zw *w, const char *fn, const char *name, const nd_array *a)
{
    char header[4096];
    size_t hn = nd__npy_format_header(header, sizeof header, a);
    if (hn == 0) return nd__err(ND_ERR_INTERNAL, fn, "the .npy header of '%s' does not fit its buffer", name);
    size_t nb = nd_nbytes(a);
    void *tmp = nd__malloc(nb + 1);
    if (!tmp) return nd__err(ND_ERR_NOMEM, fn, "out of host memory for %zu bytes", nb);
    nd_status st = nb ? nd_copy_to_host(tmp, a, nb) : ND_OK;
    if (!st) zw_member(w, name, header, hn, tmp, nb);
    nd__free(tmp);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

static nd_status save_npz(const char *fn, const char *path, const nd_sparse *s, bool deflate)
{
    ND_CHECK_PTR(fn, path, "path");
    nd_status st = nd__sp_check(fn, s, "s");
    if (st) return st;
    if (s->data->dtype == ND_BFLOAT16)
        return nd__err(ND_ERR_UNSUPPORTED, fn, "bfloat16 values have no NumPy dtype, so scipy.sparse.load_npz could "
                       "not read them; cast the values to float32 (or float16) first");
    static const char *const FMT[3] = {"csr", "csc", "coo"};
    bool coo = s->fmt == ND_SPARSE_COO;
    uint64_t total = nd_nbytes(s->data) + (coo ? nd_nbytes(s->row) + nd_nbytes(s->col)
                                               : nd_nbytes(s->indices) + nd_nbytes(s->indptr));
    if (total > 0xf0000000u)
        return nd__err(ND_ERR_UNSUPPORTED, fn, "a matrix of %llu bytes needs zip64, which the writer does not do",
                       (unsigned long long)total);
    nd_array *shape = NULL, *is_array = NULL;
    const int64_t sh[2] = {s->rows, s->cols}, two = 2;
    if ((st = nd_from_host(&shape, sh, ND_INT64, 1, &two, nd_cpu())) ||
        (st = nd__scalar_array(&is_array, nd_scalar_bool(true), ND_BOOL, nd_cpu()))) {
        nd_release(shape);
        return nd__err_prefix(st, fn);
    }
    zw w = {.ok = true, .deflate = deflate};
    if (!(w.f = fopen(path, "wb"))) {
        nd_release(shape);
        nd_release(is_array);
        return nd__err(ND_ERR_IO, fn, "cannot create '%s': %s", path, strerror(errno));
    }
    /* scipy's order: the index parts, format, shape, data, _is_array */
    st = zw_array(&w, fn, coo ? "row.npy" : "indices.npy", coo ? s->row : s->indices);
    if (!st) st = zw_array(&w, fn, coo ? "col.npy" : "indptr.npy", coo ? s->col : s->indptr);
    if (!st) {
        char h[128];
        const char *text = "{'descr': '|S3', 'fortran_order': False, 'shape': (), }";
        size_t n = strlen(text), hlen = n + 1, pad = 64 - ((10 + hlen) % 64), tot = 10 + hlen + pad;
        memcpy(h, "\x93NUMPY\x01\x00", 8);
        h[8] = (char)(hlen + pad), h[9] = 0;
        memcpy(h + 10, text, n);
        memset(h + 10 + n, ' ', pad);
        h[tot - 1] = '\n';
        zw_member(&w, "format.npy", h, tot, FMT[s->fmt], 3);
    }
    if (!st) st = zw_array(&w, fn, "shape.npy", shape);
    if (!st) st = zw_array(&w, fn, "data.npy", s->data);
    if (!st) st = zw_array(&w, fn, "_is_array.npy", is_array);
    if (!st) {
        unsigned char e[22] = {0};
        wr32(e, 0x06054b50u);
        wr16(e + 8, (uint32_t)w.count);
        wr16(e + 10, (uint32_t)w.count);
        wr32(e + 12, (uint32_t)w.cdn);
        wr32(e + 16, (uint32_t)w.off);
        if (w.ok) w.ok = fwrite(w.cd, 1, w.cdn, w.f) == w.cdn && fwrite(e, 1, 22, w.f) == 22;
    }
    int err = errno;
    if (fclose(w.f) != 0) w.ok = false;
    nd_release(shape);
    nd_release(is_array);
    if (!st && w.nomem) st = nd__err(ND_ERR_NOMEM, fn, "out of host memory for a member of '%s'", path);
    else if (!st && w.zfail) st = nd__err(ND_ERR_INTERNAL, fn, "zlib failed to compress a member of '%s'", path);
    if (!st && !w.ok) st = nd__err(ND_ERR_IO, fn, "cannot write '%s': %s", path, strerror(err ? err : EIO));
    if (st) nd__remove_failed_output(path);
    return st;
}

nd_status nd_sparse_save_npz(const char *path, const nd_sparse *s)
{
    return save_npz("nd_sparse_save_npz", path, s, true);
}

nd_status nd_sparse_save_npz_stored(const char *path, const nd_sparse *s)
{
    return save_npz("nd_sparse_save_npz_stored", path, s, false);
}
