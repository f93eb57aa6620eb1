/* The .npy header parser: a strict, bounds-checked reader of the magic
 * string, version, header length and the Python dict literal NumPy writes.
 * It treats its input as hostile (it is the fuzz target's core): it never
 * reads outside the bytes it is given, never allocates, and reports the
 * first defect it finds through nd__err naming the calling function. */
#include <string.h>

#include "core/internal.h"
#include "io/npy.h"

/* A cursor over the header text. */
typedef struct {
    const char *p, *end;
    const char *fn;
} cursor;

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static bool eat(cursor *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

/* Describe the text at the cursor for messages ("'xyz'" or "the end"). */
static const char *where(const cursor *c, char *buf, size_t cap)
{
    if (c->p >= c->end) return "the end of the header";
    size_t n = 0;
    buf[n++] = '\'';
    for (const char *q = c->p; q < c->end && n + 2 < cap && q < c->p + 12; q++)
        buf[n++] = (*q >= 0x20 && *q < 0x7f) ? *q : '?';
    buf[n++] = '\'';
    buf[n] = '\0';
    return buf;
}

static nd_status syntax(const cursor *c, const char *what)
{
    char b[32];
    return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: expected %s at %s", what, where(c, b, sizeof b));
}

/* A Python string literal '...' or "..." without escapes, at most cap-1
 * characters; stored NUL-terminated in dst. */
static nd_status parse_string(cursor *c, char *dst, size_t cap, const char *what)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return syntax(c, what);
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        char ch = *c->p;
        if (ch == '\\') return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: escape sequences in %s are not supported", what);
        if (ch == '\n' || ch == '\r') return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: unterminated string in %s", what);
        if (n + 1 >= cap) return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: %s is too long (over %zu characters)", what, cap - 1);
        dst[n++] = ch;
        c->p++;
    }
    if (c->p >= c->end) return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: unterminated string in %s", what);
    c->p++; /* closing quote */
    dst[n] = '\0';
    return ND_OK;
}

static bool is_ident(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

static nd_status parse_bool(cursor *c, bool *v)
{
    skip_ws(c);
    size_t left = (size_t)(c->end - c->p);
    if (left >= 4 && memcmp(c->p, "True", 4) == 0 && (left == 4 || !is_ident(c->p[4]))) {
        c->p += 4;
        *v = true;
        return ND_OK;
    }
    if (left >= 5 && memcmp(c->p, "False", 5) == 0 && (left == 5 || !is_ident(c->p[5]))) {
        c->p += 5;
        *v = false;
        return ND_OK;
    }
    char b[32];
    return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: 'fortran_order' must be True or False, found %s",
                   where(c, b, sizeof b));
}

/* A non-negative decimal integer (Python 2 files may end it with 'L'). */
static nd_status parse_extent(cursor *c, int64_t *v, bool allow_long, int axis)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == '-')
        return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: negative extent in 'shape' (axis %d)", axis);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9') return syntax(c, "an integer extent in 'shape'");
    const char *start = c->p;
    int64_t x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        if (__builtin_mul_overflow(x, (int64_t)10, &x) || __builtin_add_overflow(x, (int64_t)(*c->p - '0'), &x))
            return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: extent of axis %d overflows a 64-bit integer", axis);
        c->p++;
    }
    if (c->p - start > 1 && *start == '0' && x != 0)
        return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: extent of axis %d has leading zeros", axis);
    if (allow_long && c->p < c->end && *c->p == 'L') c->p++;
    if (c->p < c->end && (is_ident(*c->p) || *c->p == '.'))
        return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: extent of axis %d is not a decimal integer", axis);
    *v = x;
    return ND_OK;
}

/* A Python tuple of extents: (), (n,), (n, m), (n, m,) ... */
static nd_status parse_shape(cursor *c, npy_header *h, bool allow_long)
{
    if (!eat(c, '(')) {
        skip_ws(c);
        if (c->p < c->end && *c->p == '[')
            return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: 'shape' must be a tuple, not a list");
        return syntax(c, "'(' opening the 'shape' tuple");
    }
    int n = 0;
    if (eat(c, ')')) {
        h->ndim = 0;
        return ND_OK;
    }
    for (;;) {
        if (n >= ND_MAX_DIMS)
            return nd__err(ND_ERR_IO, c->fn, "'shape' has more than %d dimensions (libndgpu's maximum)", ND_MAX_DIMS);
        nd_status st = parse_extent(c, &h->shape[n], allow_long, n);
        if (st) return st;
        n++;
        if (eat(c, ',')) {
            if (eat(c, ')')) break;
            continue;
        }
        if (eat(c, ')')) {
            /* (n) is an int in Python, not a tuple */
            if (n == 1) return nd__err(ND_ERR_IO, c->fn, "malformed .npy header: 'shape' (n) lacks the trailing comma of a 1-tuple");
            break;
        }
        return syntax(c, "',' or ')' in 'shape'");
    }
    h->ndim = n;
    return ND_OK;
}

/* Map a descr string to a dtype and byte order. */
static nd_status parse_descr(const char *fn, const char *s, npy_header *h)
{
    const char *d = s;
    char order = '|';
    if (*d == '<' || *d == '>' || *d == '|' || *d == '=') order = *d++;
    char kind = *d;
    if (kind == '\0') return nd__err(ND_ERR_IO, fn, "invalid 'descr' '%s': no type code", s);
    d++;
    if (kind == 'O')
        return nd__err(ND_ERR_IO, fn, "'descr' '%s' is an object (pickle) array, which libndgpu never loads", s);
    int64_t size = 0;
    const char *digits = d;
    while (*d >= '0' && *d <= '9' && size < 100000) size = size * 10 + (*d++ - '0');
    bool well_formed = *d == '\0' && d > digits && size > 0;
    if (well_formed) {
        nd_dtype t = ND_NUM_DTYPES; /* the dtype table's (type letter, size) */
#define DT_FROM_NPY(A_, E_, sfx_, name_, size_, kind_, npy_, ...) \
        if (t == ND_NUM_DTYPES && kind == (npy_) && size == (size_)) t = E_;
        ND_DTYPE_TABLE(DT_FROM_NPY, _)
#undef DT_FROM_NPY
        if (t != ND_NUM_DTYPES) {
            h->dtype = t;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            h->swap = order == '<' && size > 1;
#else
            h->swap = order == '>' && size > 1;
#endif
            if (t == ND_BFLOAT16) h->swap = false; /* void has no byte order: little-endian bits */
            return ND_OK;
        }
        if (strchr("biufcVSUMm", kind))
            return nd__err(ND_ERR_DTYPE, fn, "'descr' '%s' is a dtype libndgpu does not support", s);
    }
    return nd__err(ND_ERR_IO, fn, "invalid 'descr' '%s'", s);
}

enum { KEY_DESCR = 1, KEY_FORTRAN = 2, KEY_SHAPE = 4 };

nd_status nd__npy_parse_header(const char *fn, const unsigned char *buf, size_t avail, npy_header *h)
{
    memset(h, 0, sizeof *h);
    if (avail < 10)
        return nd__err(ND_ERR_IO, fn, "not a .npy file: %zu bytes is too short for the magic string and header length", avail);
    if (memcmp(buf, "\x93NUMPY", 6) != 0) return nd__err(ND_ERR_IO, fn, "not a .npy file: bad magic string");
    int major = buf[6], minor = buf[7];
    if (major < 1 || major > 3 || minor != 0)
        return nd__err(ND_ERR_IO, fn, "unsupported .npy format version %d.%d (1.0, 2.0 and 3.0 are known)", major, minor);
    size_t prefix = major == 1 ? 10 : 12;
    if (avail < prefix) return nd__err(ND_ERR_IO, fn, "truncated .npy file: %zu bytes end inside the header length", avail);
    uint64_t hlen = major == 1 ? (uint64_t)buf[8] | (uint64_t)buf[9] << 8
                               : (uint64_t)buf[8] | (uint64_t)buf[9] << 8 | (uint64_t)buf[10] << 16 | (uint64_t)buf[11] << 24;
    if (hlen > ND_NPY_MAX_HEADER)
        return nd__err(ND_ERR_IO, fn, "header length %llu exceeds the limit of %d bytes", (unsigned long long)hlen,
                       ND_NPY_MAX_HEADER);
    if (hlen > avail - prefix)
        return nd__err(ND_ERR_IO, fn, "truncated .npy file: the header of %llu bytes runs past the end (%zu bytes)",
                       (unsigned long long)hlen, avail);
    h->version = major;
    h->data_offset = prefix + (size_t)hlen;
    const char *text = (const char *)buf + prefix;
    size_t tlen = (size_t)hlen;

    if (tlen == 0 || text[tlen - 1] != '\n')
        return nd__err(ND_ERR_IO, fn, "malformed .npy header: it does not end with a newline");
    for (size_t i = 0; i < tlen; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == 0) return nd__err(ND_ERR_IO, fn, "malformed .npy header: NUL byte at offset %zu", i);
        /* v1/v2 headers are latin-1, v3 UTF-8; the dict NumPy writes is
         * plain ASCII, and anything else can only sit inside a string
         * that must then match a known key or descr, so reject it here. */
        if (ch >= 0x80)
            return nd__err(ND_ERR_IO, fn, "malformed .npy header: non-ASCII byte 0x%02x at offset %zu", ch, i);
    }

    cursor c = {text, text + tlen, fn};
    if (!eat(&c, '{')) return syntax(&c, "'{' opening the header dict");
    unsigned seen = 0;
    bool first = true;
    for (;;) {
        if (eat(&c, '}')) break;
        if (!first && !eat(&c, ',')) return syntax(&c, "',' or '}' in the header dict");
        if (!first && eat(&c, '}')) break;
        first = false;
        char key[32];
        nd_status st = parse_string(&c, key, sizeof key, "a dict key");
        if (st) return st;
        if (!eat(&c, ':')) return syntax(&c, "':' after a dict key");
        unsigned k = strcmp(key, "descr") == 0 ? KEY_DESCR
                   : strcmp(key, "fortran_order") == 0 ? KEY_FORTRAN
                   : strcmp(key, "shape") == 0 ? KEY_SHAPE : 0;
        if (!k) return nd__err(ND_ERR_IO, fn, "malformed .npy header: unknown key '%s'", key);
        if (seen & k) return nd__err(ND_ERR_IO, fn, "malformed .npy header: duplicate key '%s'", key);
        seen |= k;
        if (k == KEY_DESCR) {
            skip_ws(&c);
            if (c.p < c.end && (*c.p == '[' || *c.p == '{'))
                return nd__err(ND_ERR_DTYPE, fn, "structured dtypes (a list or dict 'descr') are not supported");
            char descr[32];
            st = parse_string(&c, descr, sizeof descr, "'descr'");
            if (st) return st;
            st = parse_descr(fn, descr, h);
        } else if (k == KEY_FORTRAN) {
            st = parse_bool(&c, &h->fortran_order);
        } else {
            st = parse_shape(&c, h, major <= 2);
        }
        if (st) return st;
    }
    /* padding: only spaces/newlines up to the final '\n' */
    for (const char *q = c.p; q < c.end; q++)
        if (*q != ' ' && *q != '\n' && *q != '\t' && *q != '\r')
            return nd__err(ND_ERR_IO, fn, "malformed .npy header: unexpected text after the dict");
    if (!(seen & KEY_DESCR)) return nd__err(ND_ERR_IO, fn, "malformed .npy header: the key 'descr' is missing");
    if (!(seen & KEY_FORTRAN)) return nd__err(ND_ERR_IO, fn, "malformed .npy header: the key 'fortran_order' is missing");
    if (!(seen & KEY_SHAPE)) return nd__err(ND_ERR_IO, fn, "malformed .npy header: the key 'shape' is missing");

    /* sizes, overflow-checked over the non-zero extents (as nd__check_shape) */
    int64_t n = 1;
    bool zero = false;
    for (int i = 0; i < h->ndim; i++) {
        if (h->shape[i] == 0) {
            zero = true;
            continue;
        }
        if (__builtin_mul_overflow(n, h->shape[i], &n))
            return nd__err(ND_ERR_IO, fn, "'shape' is too big: the product of the extents overflows");
    }
    int64_t bytes;
    if (__builtin_mul_overflow(n, (int64_t)nd__itemsize(h->dtype), &bytes))
        return nd__err(ND_ERR_IO, fn, "'shape' is too big: the byte count overflows");
    h->size = zero ? 0 : n;
    h->nbytes = zero ? 0 : (uint64_t)bytes;
    return ND_OK;
}
