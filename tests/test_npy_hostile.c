/* .npy hostile input: every header field, the length fields, truncation
 * and mutation, and regressions for bugs known in other readers:
 *  - cnpy: header_len read past the end of the buffer; header_len
 *    underflow (0); headers assumed shorter than 256 bytes;
 *  - libnpy: a version-2 header length allocated unchecked (4 GiB);
 *    shape product overflow. */
#include <stdio.h>
#include <stdlib.h>

#include "npy_test.h"

#define DATA_BYTES 64

/* magic + version + length field + text + DATA_BYTES of data. The length
 * field is the text's length unless hlen >= 0. pad: append NumPy's
 * padding and final '\n' to the text. Returns the total size. */
static size_t build(unsigned char *buf, size_t cap, int major, int minor, const char *text, size_t tlen, long long hlen,
                    bool pad)
{
    size_t prefix = major == 1 ? 10 : 12, n = tlen;
    ck_assert_uint_le(prefix + tlen + 64 + DATA_BYTES, cap);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = (unsigned char)minor;
    memcpy(buf + prefix, text, tlen);
    if (pad) {
        while ((prefix + n + 1) % 64) buf[prefix + n++] = ' ';
        buf[prefix + n++] = '\n';
    }
    unsigned long long h = hlen >= 0 ? (unsigned long long)hlen : n;
    buf[8] = (unsigned char)(h & 0xff);
    buf[9] = (unsigned char)((h >> 8) & 0xff);
    if (major != 1) {
        buf[10] = (unsigned char)((h >> 16) & 0xff);
        buf[11] = (unsigned char)((h >> 24) & 0xff);
    }
    for (size_t i = 0; i < DATA_BYTES; i++) buf[prefix + n + i] = (unsigned char)(i * 13 + 1);
    return prefix + n + DATA_BYTES;
}

static nd_status load(const unsigned char *buf, size_t n, nd_array **a) { return nd_load_npy_buffer(a, buf, n, nd_cpu()); }

#define D(descr) "{'descr': " descr ", 'fortran_order': False, 'shape': (3,), }"
#define S(shape) "{'descr': '<f4', 'fortran_order': False, 'shape': " shape ", }"

typedef struct {
    int major;
    const char *dict;
    nd_status st;
    const char *needle;
} hcase;

static const hcase cases[] = {
    /* accepted spellings */
    {1, D("'<f4'"), ND_OK, NULL},
    {2, D("'<f4'"), ND_OK, NULL},
    {3, D("'<f4'"), ND_OK, NULL},
    {1, "{'shape': (3,), 'fortran_order': False, 'descr': '<f4'}", ND_OK, NULL},
    {1, "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3,)}", ND_OK, NULL},
    {1, "{'descr':'<f4','fortran_order':False,'shape':(3L,)}", ND_OK, NULL},
    {1, "{\n 'descr' : '<f4' ,\t'fortran_order' : True , 'shape' : ( 3 , ) ,\r\n}", ND_OK, NULL},
    {1, D("'=f4'"), ND_OK, NULL},
    {1, D("'f4'"), ND_OK, NULL},
    {1, D("'|i4'"), ND_OK, NULL},
    {1, S("(0, 00, 5)"), ND_OK, NULL},
    /* the dict */
    {1, "['descr']", ND_ERR_IO, "expected '{'"},
    {1, "{}", ND_ERR_IO, "'descr' is missing"},
    {1, "{'descr': '<f4', 'fortran_order': False}", ND_ERR_IO, "'shape' is missing"},
    {1, "{'descr': '<f4', 'shape': (3,)}", ND_ERR_IO, "'fortran_order' is missing"},
    {1, "{'fortran_order': False, 'shape': (3,)}", ND_ERR_IO, "'descr' is missing"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1}", ND_ERR_IO, "unknown key 'extra'"},
    {1, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", ND_ERR_IO, "duplicate key 'descr'"},
    {1, "{'descr': '<f4' 'fortran_order': False, 'shape': (3,)}", ND_ERR_IO, "',' or '}'"},
    {1, "{'descr' '<f4', 'fortran_order': False, 'shape': (3,)}", ND_ERR_IO, "':'"},
    {1, "{descr: '<f4', 'fortran_order': False, 'shape': (3,)}", ND_ERR_IO, "a dict key"},
    {1, "{, 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", ND_ERR_IO, "a dict key"},
    {1, D("'<f4'") " x", ND_ERR_IO, "unexpected text after the dict"},
    {1, D("'<f4'") "}", ND_ERR_IO, "unexpected text after the dict"},
    {1, "{'descr': '<f4\n', 'fortran_order': False, 'shape': (3,)}", ND_ERR_IO, "unterminated string"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'abc", ND_ERR_IO, "too long"},
    {1, "{'des\\x63r': '<f4', 'fortran_order': False, 'shape': (3,)}", ND_ERR_IO, "escape"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa': 1}", ND_ERR_IO,
     "too long"},
    {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'b\xff': 1}", ND_ERR_IO, "non-ASCII byte 0xff"},
    /* descr */
    {1, D("'|O'"), ND_ERR_IO, "object (pickle)"},
    {1, D("'O'"), ND_ERR_IO, "object (pickle)"},
    {1, D("'<c4'"), ND_ERR_DTYPE, "'<c4'"}, /* complex32: NumPy has none either */
    {1, D("'<U5'"), ND_ERR_DTYPE, "does not support"},
    {1, D("'<M8'"), ND_ERR_DTYPE, "does not support"},
    {1, D("'<f3'"), ND_ERR_DTYPE, "does not support"},
    {1, D("'|V3'"), ND_ERR_DTYPE, "does not support"},
    {1, D("[('a', '<f4')]"), ND_ERR_DTYPE, "structured"},
    {1, D("'xyz'"), ND_ERR_IO, "invalid 'descr' 'xyz'"},
    {1, D("'<f'"), ND_ERR_IO, "invalid 'descr' '<f'"},
    {1, D("'<f4x'"), ND_ERR_IO, "invalid 'descr'"},
    {1, D("'<f0'"), ND_ERR_IO, "invalid 'descr'"},
    {1, D("'<f99999999999999999999'"), ND_ERR_IO, "invalid 'descr'"},
    {1, D("''"), ND_ERR_IO, "no type code"},
    {1, D("<f4"), ND_ERR_IO, "'descr'"},
    {1, D("'<f4xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'"), ND_ERR_IO, "too long"},
    /* fortran_order */
    {1, "{'descr': '<f4', 'fortran_order': 1, 'shape': (3,)}", ND_ERR_IO, "True or False"},
    {1, "{'descr': '<f4', 'fortran_order': Truex, 'shape': (3,)}", ND_ERR_IO, "True or False"},
    {1, "{'descr': '<f4', 'fortran_order': 'False', 'shape': (3,)}", ND_ERR_IO, "True or False"},
    /* shape */
    {1, S("[3]"), ND_ERR_IO, "tuple, not a list"},
    {1, S("3"), ND_ERR_IO, "'('"},
    {1, S("(3)"), ND_ERR_IO, "trailing comma"},
    {1, S("(-1,)"), ND_ERR_IO, "negative extent"},
    {1, S("(03,)"), ND_ERR_IO, "leading zeros"},
    {1, S("(3.0,)"), ND_ERR_IO, "not a decimal integer"},
    {1, S("(3e2,)"), ND_ERR_IO, "not a decimal integer"},
    {1, S("(0x3,)"), ND_ERR_IO, "not a decimal integer"},
    {3, S("(3L,)"), ND_ERR_IO, "not a decimal integer"},
    {1, S("(,)"), ND_ERR_IO, "integer extent"},
    {1, S("(3,,)"), ND_ERR_IO, "integer extent"},
    {1, S("(3 4)"), ND_ERR_IO, "',' or ')'"},
    {1, S("(3,"), ND_ERR_IO, "integer extent"},
    {1, S("(+3,)"), ND_ERR_IO, "integer extent"},
    {1, S("(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)"), ND_ERR_IO, "more than 32 dimensions"},
    {1, S("(99999999999999999999,)"), ND_ERR_IO, "overflows a 64-bit integer"},
    {1, S("(9223372036854775808,)"), ND_ERR_IO, "overflows a 64-bit integer"},
    /* libnpy: shape product overflow */
    {1, S("(4294967296, 4294967296)"), ND_ERR_IO, "product of the extents overflows"},
    {1, S("(3037000500, 3037000500, 0)"), ND_ERR_IO, "product of the extents overflows"},
    {1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1152921504606846976,), }", ND_ERR_IO, "byte count overflows"},
    /* sizes against the data */
    {1, S("(1000000,)"), ND_ERR_IO, "data needs 4000000 bytes, but only 64"},
    {1, S("(17,)"), ND_ERR_IO, "data needs 68 bytes"},
    {1, S("(16,)"), ND_OK, NULL},
    {1, S("(2305843009213693951,)"), ND_ERR_IO, "truncated"},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

START_TEST(header_cases)
{
    const hcase *c = &cases[_i];
    unsigned char buf[1024];
    size_t n = build(buf, sizeof buf, c->major, 0, c->dict, strlen(c->dict), -1, true);
    nd_array *a = NULL;
    nd_status st = load(buf, n, &a);
    ck_assert_msg(st == c->st, "case %d %s: got %s (%s), want %s", _i, c->dict, nd_status_name(st), nd_last_error(),
                  nd_status_name(c->st));
    if (c->st == ND_OK) {
        ck_assert_ptr_nonnull(a);
        ck_assert_int_eq(nd_dtype_of(a), strstr(c->dict, "i4") ? ND_INT32 : ND_FLOAT32);
        nd_release(a);
    } else {
        ck_assert_ptr_null(a);
        ck_assert_msg(strstr(nd_last_error(), c->needle) != NULL, "case %d: message '%s' lacks '%s'", _i, nd_last_error(),
                      c->needle);
        ck_assert_msg(strstr(nd_last_error(), "nd_load_npy_buffer") != NULL, "message names the function");
    }
}
END_TEST

START_TEST(prefix_and_length_fields)
{
    static const char *ok = D("'<f4'");
    unsigned char buf[12000 + 256];
    nd_array *a = NULL;
    ND_EXPECT_ERR(load((const unsigned char *)"\x93NUMP", 5, &a), ND_ERR_IO, "too short");
    size_t n = build(buf, sizeof buf, 1, 0, ok, strlen(ok), -1, true);
    buf[1] = 'X';
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "bad magic");
    n = build(buf, sizeof buf, 4, 0, ok, strlen(ok), -1, true);
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "version 4.0");
    n = build(buf, sizeof buf, 1, 1, ok, strlen(ok), -1, true);
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "version 1.1");
    n = build(buf, sizeof buf, 0, 0, ok, strlen(ok), -1, true);
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "version 0.0");
    /* a version-2 prefix needs 12 bytes */
    n = build(buf, sizeof buf, 2, 0, ok, strlen(ok), -1, true);
    ND_EXPECT_ERR(load(buf, 11, &a), ND_ERR_IO, "inside the header length");
    /* cnpy: header_len larger than the buffer (out-of-bounds read) */
    n = build(buf, sizeof buf, 1, 0, ok, strlen(ok), 5000, true);
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "runs past the end");
    /* cnpy: header_len 0 (underflow of header_len - 1) */
    n = build(buf, sizeof buf, 1, 0, "", 0, 0, false);
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "does not end with a newline");
    n = build(buf, sizeof buf, 1, 0, "\n", 1, -1, false);
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "expected '{'");
    /* no final newline */
    n = build(buf, sizeof buf, 1, 0, ok, strlen(ok), -1, false);
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "does not end with a newline");
    /* a NUL inside the header */
    n = build(buf, sizeof buf, 1, 0, ok, strlen(ok), -1, true);
    buf[10 + strlen(ok) + 1] = '\0';
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "NUL byte");
    /* the 10,000-byte cap, checked before anything is read or allocated */
    n = build(buf, sizeof buf, 1, 0, ok, strlen(ok), 65535, true);
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "header length 65535 exceeds the limit of 10000");
    /* libnpy: a version-2 length of 4 GiB is refused, not allocated */
    n = build(buf, sizeof buf, 2, 0, ok, strlen(ok), 0xFFFFFFFFLL, true);
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "header length 4294967295 exceeds");
    /* exactly 10,000 bytes is fine, 10,001 is not */
    char *big = malloc(10002);
    memcpy(big, ok, strlen(ok));
    memset(big + strlen(ok), ' ', 10001 - strlen(ok));
    big[9999] = '\n';
    n = build(buf, sizeof buf, 2, 0, big, 10000, -1, false);
    ND_OK_OR_FAIL(load(buf, n, &a));
    ck_assert_int_eq(nd_size(a), 3);
    nd_release(a);
    a = NULL;
    big[9999] = ' ';
    big[10000] = '\n';
    n = build(buf, sizeof buf, 2, 0, big, 10001, -1, false);
    ND_EXPECT_ERR(load(buf, n, &a), ND_ERR_IO, "header length 10001 exceeds");
    /* cnpy: headers over 256 bytes are fine (here 1,024) */
    big[1013] = '\n';
    n = build(buf, sizeof buf, 1, 0, big, 1014, -1, false);
    ck_assert_uint_eq((n - DATA_BYTES) % 64, 0);
    ND_OK_OR_FAIL(load(buf, n, &a));
    float v[3];
    ND_OK_OR_FAIL(nd_copy_to_host(v, a, sizeof v));
    ck_assert(memcmp(v, buf + 1024, sizeof v) == 0);
    nd_release(a);
    free(big);
}
END_TEST

START_TEST(bool_bytes_normalised)
{
    static const char *h = "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }";
    unsigned char buf[512];
    size_t n = build(buf, sizeof buf, 1, 0, h, strlen(h), -1, true);
    size_t off = n - DATA_BYTES;
    buf[off] = 0;
    buf[off + 1] = 2;
    buf[off + 2] = 255;
    buf[off + 3] = 1;
    nd_array *a = NULL;
    ND_OK_OR_FAIL(load(buf, n, &a));
    unsigned char got[4];
    ND_OK_OR_FAIL(nd_copy_to_host(got, a, 4));
    ck_assert_int_eq(got[0], 0);
    ck_assert_int_eq(got[1], 1);
    ck_assert_int_eq(got[2], 1);
    ck_assert_int_eq(got[3], 1);
    nd_release(a);
}
END_TEST

/* Every truncation of a valid file fails cleanly; no prefix loads. */
START_TEST(every_truncation_fails)
{
    static const char *files[] = {"f8_2x3.npy", "fortran_2x3x4_f8.npy", "v2_i4.npy", "scalar_i2.npy"};
    size_t n;
    unsigned char *b = npy_read_file(npy_data_path(files[_i]), &n);
    for (size_t len = 0; len < n; len++) {
        unsigned char *copy = malloc(len ? len : 1); /* exact size: ASan sees any over-read */
        memcpy(copy, b, len);
        nd_array *a = NULL;
        nd_status st = load(copy, len, &a);
        ck_assert_msg(st == ND_ERR_IO, "%s truncated to %zu bytes: %s", files[_i], len, nd_status_name(st));
        ck_assert_ptr_null(a);
        free(copy);
    }
    free(b);
}
END_TEST

/* Every single-byte change of a header loads or fails cleanly (ASan and
 * UBSan watch); a loaded array never claims more data than the file. */
START_TEST(header_mutations)
{
    static const unsigned char values[] = {0, 1, '\n', ' ', '\'', '"', ',', ':', '(', ')', '{', '}', '-', '9', 'L', 0x7f, 0x80, 0xff};
    static const char *files[] = {"f8_2x3.npy", "fortran_2x3x4_f8.npy", "v3_i4.npy"};
    size_t n;
    unsigned char *b = npy_read_file(npy_data_path(files[_i]), &n);
    unsigned char *m = malloc(n);
    size_t hdr_end = n < 128 ? n : 128;
    for (size_t pos = 0; pos < hdr_end; pos++) {
        for (size_t k = 0; k < sizeof values; k++) {
            memcpy(m, b, n);
            m[pos] = values[k];
            nd_array *a = NULL;
            nd_status st = load(m, n, &a);
            if (st == ND_OK) {
                ck_assert_uint_le(nd_nbytes(a), n);
                nd_release(a);
            } else {
                ck_assert_msg(st == ND_ERR_IO || st == ND_ERR_DTYPE, "pos %zu value %u: %s", pos, values[k], nd_status_name(st));
                ck_assert_ptr_null(a);
                ck_assert(nd_last_error()[0] != '\0');
            }
        }
    }
    free(m);
    free(b);
}
END_TEST

void npy_add_hostile_tests(Suite *s)
{
    TCase *tc = tcase_create("hostile");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, header_cases, 0, NCASES);
    tcase_add_test(tc, prefix_and_length_fields);
    tcase_add_test(tc, bool_bytes_normalised);
    tcase_add_loop_test(tc, every_truncation_fails, 0, 4);
    tcase_add_loop_test(tc, header_mutations, 0, 3);
    suite_add_tcase(s, tc);
}
