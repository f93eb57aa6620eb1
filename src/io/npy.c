/* .npy files: nd_save_npy, nd_load_npy, nd_load_npy_buffer. The header
 * parser lives in src/io/npy_parse.c; this file builds arrays from validated
 * headers and writes NumPy-identical files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "io/npy.h"
#include "core/prof.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NPY_NATIVE_CHAR ">"
#else
#define NPY_NATIVE_CHAR "<"
#endif

/* ------------------------------------------------------------------ */
/* Loading                                                             */
/* ------------------------------------------------------------------ */

/* Where the array data comes from: a memory buffer or an open file. */
typedef struct {
    const unsigned char *mem; /* NULL for a file */
    FILE *file;
    const char *path;
} npy_source;

static void byteswap(void *data, int64_t n, size_t itemsize)
{
    unsigned char *p = data;
    for (int64_t i = 0; i < n; i++, p += itemsize) {
        if (itemsize == 2) {
            uint16_t v;
            memcpy(&v, p, 2);
            v = __builtin_bswap16(v);
            memcpy(p, &v, 2);
        } else if (itemsize == 4) {
            uint32_t v;
            memcpy(&v, p, 4);
            v = __builtin_bswap32(v);
            memcpy(p, &v, 4);
        } else if (itemsize == 8) {
            uint64_t v;
            memcpy(&v, p, 8);
            v = __builtin_bswap64(v);
            memcpy(p, &v, 8);
        }
    }
}

/* Read the h->nbytes data bytes into dst (the caller checked that the
 * source holds them). */
static nd_status read_data(const char *fn, const npy_source *src, const npy_header *h, void *dst)
{
    if (h->nbytes == 0) return ND_OK;
    if (src->mem) {
        memcpy(dst, src->mem + h->data_offset, (size_t)h->nbytes);
        return ND_OK;
    }
    if (fseeko(src->file, (off_t)h->data_offset, SEEK_SET) != 0)
        return nd__err(ND_ERR_IO, fn, "cannot seek in '%s': %s", src->path, strerror(errno));
    size_t got = fread(dst, 1, (size_t)h->nbytes, src->file);
    if (got != h->nbytes) {
        if (ferror(src->file)) return nd__err(ND_ERR_IO, fn, "cannot read '%s': %s", src->path, strerror(errno));
        return nd__err(ND_ERR_IO, fn, "truncated .npy file '%s': the data needs %llu bytes, but only %zu could be read",
                       src->path, (unsigned long long)h->nbytes, got);
    }
    return ND_OK;
}

/* Build the host array described by h from src (after every check). */
static nd_status build_host_array(const char *fn, const npy_header *h, const npy_source *src, nd_array **out)
{
    nd_array *raw = NULL, *view = NULL, *res = NULL;
    size_t isz = nd__itemsize(h->dtype);
    bool fortran = h->fortran_order && h->ndim > 1;
    nd_status st = nd__alloc(&raw, h->dtype, fortran ? 1 : h->ndim, fortran ? &h->size : h->shape, nd_cpu());
    if (st) return nd__err_prefix(st, fn);
    st = read_data(fn, src, h, nd__ptr(raw));
    if (st) goto fail;
    /* a complex element is two floats, each swapped on its own ('>c16') */
    if (h->swap) {
        const bool cpx = nd__is_complex(h->dtype);
        byteswap(nd__ptr(raw), cpx ? 2 * h->size : h->size, cpx ? isz / 2 : isz);
    }
    if (h->dtype == ND_BOOL) {
        unsigned char *b = (unsigned char *)nd__ptr(raw);
        for (int64_t i = 0; i < h->size; i++) b[i] = b[i] != 0;
    }
    if (!fortran) {
        *out = raw;
        return ND_OK;
    }
    /* Fortran order: the file holds the array with the first axis varying
     * fastest; view it with those strides and copy into C order. */
    int64_t fstrides[ND_MAX_DIMS], s = 1;
    for (int i = 0; i < h->ndim; i++) {
        fstrides[i] = s;
        s *= h->shape[i] > 0 ? h->shape[i] : 1;
    }
    st = nd__view(&view, raw, h->dtype, h->ndim, h->shape, fstrides, 0);
    if (st) goto fail;
    st = nd__alloc(&res, h->dtype, h->ndim, h->shape, nd_cpu());
    if (st) goto fail;
    st = nd__copy_into(res, view);
    if (st) goto fail;
    nd_release(view);
    nd_release(raw);
    *out = res;
    return ND_OK;
fail:
    nd_release(res);
    nd_release(view);
    nd_release(raw);
    return nd__err_prefix(st, fn);
}

/* Hand the host array to the caller following the out rule and dev. */
static nd_status deliver(const char *fn, nd_array **out, nd_array *host, nd_device dev)
{
    if (*out == NULL && dev.type == ND_DEVICE_CPU) {
        *out = host;
        return ND_OK;
    }
    nd_status st = nd_to_device(out, host, dev);
    nd_release(host);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

static nd_status check_data_size(const char *fn, const npy_header *h, uint64_t total)
{
    uint64_t avail = total - h->data_offset; /* data_offset <= total: the parser checked */
    if (h->nbytes > avail)
        return nd__err(ND_ERR_IO, fn, "truncated .npy file: the data needs %llu bytes, but only %llu follow the header",
                       (unsigned long long)h->nbytes, (unsigned long long)avail);
    return ND_OK;
}

nd_status nd_load_npy_buffer(nd_array **out, const void *data, size_t size, nd_device dev)
{
    ND_PROF_OP_ON("load_npy_buffer", out, dev);
    static const char *fn = "nd_load_npy_buffer";
    ND_CHECK_PTR(fn, out, "out");
    if (data == NULL && size > 0) return nd__err(ND_ERR_INVALID, fn, "argument 'data' is NULL with size %zu", size);
    nd_status st = nd__check_device(fn, dev);
    if (st) return st;
    npy_header h;
    st = nd__npy_parse_header(fn, data ? (const unsigned char *)data : (const unsigned char *)"", size, &h);
    if (st) return st;
    st = check_data_size(fn, &h, size);
    if (st) return st;
    npy_source src = {(const unsigned char *)data, NULL, NULL};
    nd_array *host;
    st = build_host_array(fn, &h, &src, &host);
    if (st) return st;
    return deliver(fn, out, host, dev);
}

nd_status nd_load_npy(nd_array **out, const char *path, nd_device dev)
{
    ND_PROF_OP_ON("load_npy", out, dev);
    static const char *fn = "nd_load_npy";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, path, "path");
    nd_status st = nd__check_device(fn, dev);
    if (st) return st;
    FILE *f = fopen(path, "rb");
    if (!f) return nd__err(ND_ERR_IO, fn, "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0) {
        st = nd__err(ND_ERR_IO, fn, "cannot stat '%s': %s", path, strerror(errno));
        goto done;
    }
    if (!S_ISREG(sb.st_mode)) {
        st = nd__err(ND_ERR_IO, fn, "'%s' is not a regular file", path);
        goto done;
    }
    /* The header is at most 12 + ND_NPY_MAX_HEADER bytes: read that much
     * (or the whole file when shorter), parse, then read the data. */
    unsigned char head[12 + ND_NPY_MAX_HEADER];
    uint64_t total = (uint64_t)sb.st_size;
    size_t want = total < sizeof head ? (size_t)total : sizeof head;
    size_t got = fread(head, 1, want, f);
    if (got != want) {
        st = ferror(f) ? nd__err(ND_ERR_IO, fn, "cannot read '%s': %s", path, strerror(errno))
                       : nd__err(ND_ERR_IO, fn, "'%s' shrank while being read", path);
        goto done;
    }
    npy_header h;
    st = nd__npy_parse_header(fn, head, got, &h);
    if (st) goto done;
    st = check_data_size(fn, &h, total);
    if (st) goto done;
    npy_source src = {NULL, f, path};
    nd_array *host;
    st = build_host_array(fn, &h, &src, &host);
    if (st) goto done;
    fclose(f);
    return deliver(fn, out, host, dev);
done:
    fclose(f);
    return st;
}

/* ------------------------------------------------------------------ */
/* Saving                                                              */
/* ------------------------------------------------------------------ */
/* 'descr' as np.save writes it: "'|u1'" for one-byte types, else the
 * native byte order, the type letter and the size (dtype table; bfloat16
 * is '<V2', what np.save writes for ml_dtypes.bfloat16). */
static const char *descr_of(nd_dtype t, char *buf, size_t cap)
{
#define DT_NPY(A, E, sfx, name, size, kind, npy, ...) case E: letter = (npy); break;
    char letter = 0;
    switch (t) {
        ND_DTYPE_TABLE(DT_NPY, _)
    default: return NULL;
    }
#undef DT_NPY
    size_t size = nd__itemsize(t);
    snprintf(buf, cap, "'%s%c%zu'", size == 1 ? "|" : NPY_NATIVE_CHAR, letter, size);
    return buf;
}

/* The 1.0 header exactly as NumPy writes it (numpy/lib/format.py:
 * _write_array_header + _wrap_header). Returns its length. */
size_t nd__npy_format_header(char *buf, size_t cap, const nd_array *a)
{
    char text[2048], dbuf[16];
    size_t n = (size_t)snprintf(text, sizeof text, "{'descr': %s, 'fortran_order': False, 'shape': (", descr_of(a->dtype, dbuf, sizeof dbuf));
    for (int i = 0; i < a->ndim; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s%lld", i ? ", " : "", (long long)a->shape[i]);
    n += (size_t)snprintf(text + n, sizeof text - n, "%s), }", a->ndim == 1 ? "," : "");
    if (a->ndim > 0) {
        /* room to grow the first axis in place: 21 - len(repr(shape[0])) */
        char d[32];
        int digits = snprintf(d, sizeof d, "%lld", (long long)a->shape[0]);
        for (int i = digits; i < 21; i++) text[n++] = ' ';
    }
    size_t hlen = n + 1;
    size_t pad = 64 - ((10 + hlen) % 64);
    size_t total = 10 + hlen + pad;
    if (total > cap) return 0;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)((hlen + pad) & 0xff);
    buf[9] = (char)((hlen + pad) >> 8);
    memcpy(buf + 10, text, n);
    memset(buf + 10 + n, ' ', pad);
    buf[total - 1] = '\n';
    return total;
}

nd_status nd_save_npy(const char *path, const nd_array *a)
{
    ND_PROF_OP("save_npy", NULL, a);
    static const char *fn = "nd_save_npy";
    ND_CHECK_PTR(fn, path, "path");
    ND_CHECK_PTR(fn, a, "a");
    if (!nd__dtype_valid(a->dtype)) return nd__err(ND_ERR_INVALID, fn, "array 'a' has an invalid dtype %d", (int)a->dtype);
    char header[4096];
    size_t hsize = nd__npy_format_header(header, sizeof header, a);
    if (hsize == 0) return nd__err(ND_ERR_INTERNAL, fn, "the .npy header does not fit its buffer");

    size_t nbytes = nd_nbytes(a);
    const void *data = NULL;
    void *tmp = NULL;
    nd_status st;
    if (nbytes > 0) {
        if (a->device.type == ND_DEVICE_CPU && nd_is_contiguous(a)) {
            data = nd__ptr(a);
        } else {
            tmp = nd__malloc(nbytes);
            if (!tmp) return nd__err(ND_ERR_NOMEM, fn, "out of host memory for %zu bytes of array data", nbytes);
            st = nd_copy_to_host(tmp, a, nbytes);
            if (st) {
                nd__free(tmp);
                return nd__err_prefix(st, fn);
            }
            data = tmp;
        }
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        st = nd__err(ND_ERR_IO, fn, "cannot create '%s': %s", path, strerror(errno));
        nd__free(tmp);
        return st;
    }
    bool ok = fwrite(header, 1, hsize, f) == hsize && (nbytes == 0 || fwrite(data, 1, nbytes, f) == nbytes);
    int err = ok ? 0 : errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    nd__free(tmp);
    if (!ok) {
        nd__remove_failed_output(path);
        return nd__err(ND_ERR_IO, fn, "cannot write '%s': %s", path, strerror(err ? err : EIO));
    }
    return ND_OK;
}
