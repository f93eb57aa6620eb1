/* .npy files: NumPy-written golden files (tests/data, made by
 * tests/data/make_golden.py) load bit-exactly, files libndgpu writes are
 * byte-identical to NumPy's, every dtype and layout round-trips, devices,
 * the out rule and file-system errors. Hostile input: test_npy_hostile.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy_test.h"

const char *npy_data_path(const char *name)
{
    static char buf[1024];
    const char *dir = getenv("ND_TEST_DATA");
    snprintf(buf, sizeof buf, "%s/%s", dir && *dir ? dir : "tests/data", name);
    return buf;
}

unsigned char *npy_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return b;
}

void npy_tmp_path(char *buf, size_t cap)
{
    snprintf(buf, cap, "/tmp/ndgpu_npy_XXXXXX");
    int fd = mkstemp(buf);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

/* ------------------------------------------------------------------ */
/* Golden files                                                        */
/* ------------------------------------------------------------------ */
static const float g_f4_1d[] = {-2.0f, -0.5f, 1.0f, 2.5f, 4.0f};
static const double g_f8_2x3[] = {1.5, -2.25, 3e10, NAN, INFINITY, -0.0};
static const uint16_t g_f2[] = {0x3c00, 0xc100, 0x7bff, 0x0001, 0x7c00, 0x7e00};
static const float g_f4_be[] = {1.0f, -2.5f, 3.25f, 1e-3f};
static const int64_t g_i8_be[] = {1, -2, (INT64_C(1) << 62) + 3, INT64_MIN};
static const uint16_t g_u2_be[] = {1, 0x1234, 0xffff};
static const uint16_t g_f2_be[] = {0x3c00, 0xb800, 0x63d0};
static const int32_t g_fortran_i4[] = {-3, 4, 11, 18, 25, 32};
static const double g_f8_scalar[] = {3.25};
static const int16_t g_i2_scalar[] = {-7};
static const uint8_t g_bool[] = {1, 0, 1, 1, 0};
static const uint64_t g_u8[] = {0, 1, UINT64_MAX, UINT64_C(1) << 63};
static const int8_t g_i1[] = {-128, 127, 0, 5};
static const uint8_t g_u1[] = {0, 255, 7, 128};
static const int16_t g_i2[] = {-32768, 32767, -1};
static const int32_t g_i4[] = {INT32_MIN, INT32_MAX, 42};
static const uint32_t g_u4[] = {0, UINT32_MAX, 123456789};
static const int64_t g_i8_long[] = {0, INT64_C(1000000000000), INT64_C(2000000000000)};
static const int32_t g_v_i4[] = {1, 2, 3, 4, 5, 6};
static const uint8_t g_ndim31[] = {0, 1, 2};
static const uint16_t g_bf16[] = {0x3fc0, 0xc000, 0x4049, 0x7f80}; /* 1.5, -2, 3.140625, inf */
static double g_f8_3d[24];

typedef struct {
    const char *file;
    nd_dtype dtype;
    int ndim;
    int64_t shape[ND_MAX_DIMS];
    const void *expect;
    const char *canon; /* the file libndgpu's save must equal ("" = itself, NULL = none) */
} golden;

static const golden goldens[] = {
    {"f4_1d.npy", ND_FLOAT32, 1, {5}, g_f4_1d, ""},
    {"f8_2x3.npy", ND_FLOAT64, 2, {2, 3}, g_f8_2x3, ""},
    {"f2.npy", ND_FLOAT16, 1, {6}, g_f2, ""},
    {"f4_be.npy", ND_FLOAT32, 2, {2, 2}, g_f4_be, "f4_be_canon.npy"},
    {"i8_be.npy", ND_INT64, 1, {4}, g_i8_be, "i8_be_canon.npy"},
    {"u2_be.npy", ND_UINT16, 1, {3}, g_u2_be, "u2_be_canon.npy"},
    {"f2_be.npy", ND_FLOAT16, 1, {3}, g_f2_be, NULL},
    {"fortran_2x3_i4.npy", ND_INT32, 2, {2, 3}, g_fortran_i4, "fortran_2x3_i4_canon.npy"},
    {"fortran_2x3x4_f8.npy", ND_FLOAT64, 3, {2, 3, 4}, g_f8_3d, "fortran_2x3x4_f8_canon.npy"},
    {"scalar_f8.npy", ND_FLOAT64, 0, {0}, g_f8_scalar, ""},
    {"scalar_i2.npy", ND_INT16, 0, {0}, g_i2_scalar, ""},
    {"zero_size_0x3_f4.npy", ND_FLOAT32, 2, {0, 3}, NULL, ""},
    {"zero_size_5x0_i8.npy", ND_INT64, 2, {5, 0}, NULL, ""},
    {"bool.npy", ND_BOOL, 1, {5}, g_bool, ""},
    {"u8.npy", ND_UINT64, 1, {4}, g_u8, ""},
    {"i1.npy", ND_INT8, 1, {4}, g_i1, ""},
    {"u1.npy", ND_UINT8, 1, {4}, g_u1, ""},
    {"i2.npy", ND_INT16, 1, {3}, g_i2, ""},
    {"i4.npy", ND_INT32, 1, {3}, g_i4, ""},
    {"u4.npy", ND_UINT32, 1, {3}, g_u4, ""},
    {"i8_long.npy", ND_INT64, 2, {1, 3}, g_i8_long, ""},
    {"v1_i4.npy", ND_INT32, 2, {2, 3}, g_v_i4, ""},
    {"v2_i4.npy", ND_INT32, 2, {2, 3}, g_v_i4, "v1_i4.npy"},
    {"v3_i4.npy", ND_INT32, 2, {2, 3}, g_v_i4, "v1_i4.npy"},
    {"bf16.npy", ND_BFLOAT16, 1, {4}, g_bf16, ""},
    {"ndim31_u1.npy", ND_UINT8, 31, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3},
     g_ndim31, ""},
};
#define NGOLDEN ((int)(sizeof goldens / sizeof goldens[0]))

static void init_expect(void)
{
    for (int i = 0; i < 24; i++) g_f8_3d[i] = (i - 5) / 4.0;
}

static void check_golden_array(const golden *g, const nd_array *a)
{
    ck_assert_msg(nd_dtype_of(a) == g->dtype, "%s: dtype %s", g->file, nd_dtype_name(nd_dtype_of(a)));
    ck_assert_int_eq(nd_ndim(a), g->ndim);
    int64_t n = 1;
    for (int i = 0; i < g->ndim; i++) {
        ck_assert_int_eq(nd_shape(a)[i], g->shape[i]);
        n *= g->shape[i];
    }
    ck_assert(nd_is_contiguous(a));
    size_t nb = (size_t)n * nd_dtype_size(g->dtype);
    ck_assert_uint_eq(nd_nbytes(a), nb);
    if (nb == 0) return;
    unsigned char *got = malloc(nb);
    memset(got, 0xA5, nb);
    ND_OK_OR_FAIL(nd_copy_to_host(got, a, nb));
    ck_assert_msg(memcmp(got, g->expect, nb) == 0, "%s: data differs", g->file);
    free(got);
}

START_TEST(golden_load_bit_exact)
{
    init_expect();
    const golden *g = &goldens[_i];
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_load_npy(&a, npy_data_path(g->file), nd_cpu()));
    check_golden_array(g, a);
    nd_release(a);
    /* the memory parser gives the same */
    size_t size;
    unsigned char *bytes = npy_read_file(npy_data_path(g->file), &size);
    a = NULL;
    ND_OK_OR_FAIL(nd_load_npy_buffer(&a, bytes, size, nd_cpu()));
    check_golden_array(g, a);
    nd_release(a);
    free(bytes);
}
END_TEST

/* Saving what we loaded gives NumPy's file byte for byte. */
START_TEST(golden_save_byte_identical)
{
    const golden *g = &goldens[_i];
    if (g->canon == NULL) return;
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_load_npy(&a, npy_data_path(g->file), nd_cpu()));
    char tmp[64];
    npy_tmp_path(tmp, sizeof tmp);
    ND_OK_OR_FAIL(nd_save_npy(tmp, a));
    size_t n1, n2;
    unsigned char *ours = npy_read_file(tmp, &n1);
    unsigned char *theirs = npy_read_file(npy_data_path(g->canon[0] ? g->canon : g->file), &n2);
    ck_assert_msg(n1 == n2 && memcmp(ours, theirs, n1) == 0, "%s: saved file differs from NumPy's %s (%zu vs %zu bytes)",
                  g->file, g->canon[0] ? g->canon : g->file, n1, n2);
    free(ours);
    free(theirs);
    unlink(tmp);
    nd_release(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Round trips of every dtype and layout                               */
/* ------------------------------------------------------------------ */
enum { L_CONTIG, L_TRANSPOSED, L_STEPPED, L_NEGSTEP, L_BROADCAST, L_ZERO_D, L_ZERO_SIZE, L_NUM };
static const char *layout_names[L_NUM] = {"contiguous", "transposed", "stepped", "negative-step", "broadcast", "0-d", "zero-size"};

/* A view of the given layout over patterned data of dtype t. */
static nd_array *make_layout(nd_dtype t, int layout)
{
    unsigned char src[4 * 6 * 16]; /* the widest element: complex128 */
    for (size_t i = 0; i < sizeof src; i++) src[i] = (unsigned char)(i * 29 + 3);
    if (t == ND_BOOL)
        for (size_t i = 0; i < sizeof src; i++) src[i] &= 1;
    nd_array *base = NULL, *v = NULL;
    int64_t shape[2] = {4, 6};
    switch (layout) {
    case L_ZERO_D:
        ND_OK_OR_FAIL(nd_from_host(&v, src, t, 0, NULL, nd_cpu()));
        return v;
    case L_ZERO_SIZE: {
        int64_t z[3] = {2, 0, 3};
        ND_OK_OR_FAIL(nd_from_host(&v, NULL, t, 3, z, nd_cpu()));
        return v;
    }
    default: break;
    }
    ND_OK_OR_FAIL(nd_from_host(&base, src, t, 2, shape, nd_cpu()));
    if (layout == L_CONTIG) return base;
    if (layout == L_TRANSPOSED) {
        ND_OK_OR_FAIL(nd_transpose(&v, base, NULL));
    } else if (layout == L_STEPPED) {
        nd_range r[2] = {{0, 4, 2}, {1, 6, 2}};
        ND_OK_OR_FAIL(nd_slice(&v, base, 2, r));
    } else if (layout == L_NEGSTEP) {
        nd_range r[2] = {ND_ALL, {ND_NONE, ND_NONE, -1}};
        ND_OK_OR_FAIL(nd_slice(&v, base, 2, r));
    } else {
        nd_range r[2] = {{1, 2, 1}, ND_ALL};
        nd_array *row = NULL;
        ND_OK_OR_FAIL(nd_slice(&row, base, 2, r));
        int64_t bs[3] = {2, 3, 6};
        ND_OK_OR_FAIL(nd_broadcast_to(&v, row, 3, bs));
        nd_release(row);
    }
    nd_release(base);
    return v;
}

START_TEST(roundtrip_all_dtypes_layouts)
{
    nd_dtype t = (nd_dtype)(_i / L_NUM);
    int layout = _i % L_NUM;
    nd_array *v = make_layout(t, layout), *back = NULL;
    char tmp[64];
    npy_tmp_path(tmp, sizeof tmp);
    ND_OK_OR_FAIL(nd_save_npy(tmp, v));
    ND_OK_OR_FAIL(nd_load_npy(&back, tmp, nd_cpu()));
    ck_assert_msg(nd_dtype_of(back) == t, "%s %s: dtype", nd_dtype_name(t), layout_names[layout]);
    ck_assert_int_eq(nd_ndim(back), nd_ndim(v));
    for (int i = 0; i < nd_ndim(v); i++) ck_assert_int_eq(nd_shape(back)[i], nd_shape(v)[i]);
    size_t nb = nd_nbytes(v);
    ck_assert_uint_eq(nd_nbytes(back), nb);
    if (nb) {
        unsigned char *x = malloc(nb), *y = malloc(nb);
        memset(y, 0x5A, nb);
        ND_OK_OR_FAIL(nd_copy_to_host(x, v, nb));
        ND_OK_OR_FAIL(nd_copy_to_host(y, back, nb));
        ck_assert_msg(memcmp(x, y, nb) == 0, "%s %s: data differs", nd_dtype_name(t), layout_names[layout]);
        /* the file is header + C-ordered data: the data is its tail */
        size_t fsize;
        unsigned char *file = npy_read_file(tmp, &fsize);
        ck_assert(memcmp(file + fsize - nb, x, nb) == 0);
        ck_assert_uint_eq((fsize - nb) % 64, 0);
        free(file);
        free(x);
        free(y);
    }
    unlink(tmp);
    nd_release(back);
    nd_release(v);
}
END_TEST

/* The exact header text NumPy writes, for a few shapes. */
START_TEST(header_text_matches_numpy)
{
    static const struct {
        int ndim;
        int64_t shape[3];
        nd_dtype t;
        const char *text;
    } cases[] = {
        {1, {3}, ND_FLOAT32, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"},
        {2, {2, 3}, ND_UINT16, "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }"},
        {0, {0}, ND_BOOL, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }"},
        {3, {12345, 0, 7}, ND_INT8, "{'descr': '|i1', 'fortran_order': False, 'shape': (12345, 0, 7), }"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        nd_array *a = NULL;
        ND_OK_OR_FAIL(nd_zeros(&a, cases[k].t, cases[k].ndim, cases[k].shape, nd_cpu()));
        char tmp[64];
        npy_tmp_path(tmp, sizeof tmp);
        ND_OK_OR_FAIL(nd_save_npy(tmp, a));
        size_t n;
        unsigned char *f = npy_read_file(tmp, &n);
        size_t hl = (size_t)f[8] | (size_t)f[9] << 8, tl = strlen(cases[k].text);
        ck_assert(memcmp(f, "\x93NUMPY\x01\x00", 8) == 0);
        ck_assert_uint_eq((10 + hl) % 64, 0);
        ck_assert_uint_eq(n, 10 + hl + nd_nbytes(a));
        ck_assert_msg(memcmp(f + 10, cases[k].text, tl) == 0, "header '%.*s'", (int)tl, (const char *)f + 10);
        for (size_t i = 10 + tl; i < 10 + hl - 1; i++) ck_assert_int_eq(f[i], ' ');
        ck_assert_int_eq(f[10 + hl - 1], '\n');
        /* growth padding: at least 21 - len(str(shape[0])) spaces */
        if (cases[k].ndim > 0) {
            char d[32];
            int nd = snprintf(d, sizeof d, "%lld", (long long)cases[k].shape[0]);
            ck_assert_uint_ge(hl - 1 - tl, (size_t)(21 - nd));
        }
        free(f);
        unlink(tmp);
        nd_release(a);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Devices, the out rule, file errors, argument checks                 */
/* ------------------------------------------------------------------ */
START_TEST(cuda_device)
{
    nd_array *a = NULL;
    if (nd_cuda_device_count() == 0) {
        nd_array *r = NULL;
        nd_status st = nd_load_npy(&r, npy_data_path("f4_1d.npy"), nd_cuda(0));
        ck_assert_msg(st == ND_ERR_DEVICE || st == ND_ERR_UNSUPPORTED, "%s", nd_status_name(st));
        ck_assert_ptr_null(r);
        ck_assert(strstr(nd_last_error(), "nd_load_npy") != NULL);
        ck_assert(strstr(nd_last_error(), "cuda:0") != NULL);
        return;
    }
    /* a GPU: load onto it, save from it */
    ND_OK_OR_FAIL(nd_load_npy(&a, npy_data_path("f8_2x3.npy"), nd_cuda(0)));
    ck_assert_int_eq(nd_device_of(a).type, ND_DEVICE_CUDA);
    check_golden_array(&goldens[1], a);
    char tmp[64];
    npy_tmp_path(tmp, sizeof tmp);
    ND_OK_OR_FAIL(nd_save_npy(tmp, a));
    size_t n1, n2;
    unsigned char *x = npy_read_file(tmp, &n1), *y = npy_read_file(npy_data_path("f8_2x3.npy"), &n2);
    ck_assert(n1 == n2 && memcmp(x, y, n1) == 0);
    free(x);
    free(y);
    unlink(tmp);
    nd_release(a);
}
END_TEST

START_TEST(out_rule)
{
    int64_t shape[2] = {2, 3}, wrong[2] = {3, 2};
    nd_array *o = NULL, *w = NULL, *keep;
    ND_OK_OR_FAIL(nd_full(&o, ND_INT32, 2, shape, nd_scalar_int(99), nd_cpu()));
    keep = o;
    ND_OK_OR_FAIL(nd_load_npy(&o, npy_data_path("fortran_2x3_i4.npy"), nd_cpu()));
    ck_assert_ptr_eq(o, keep);
    int32_t got[6];
    ND_OK_OR_FAIL(nd_copy_to_host(got, o, sizeof got));
    ck_assert(memcmp(got, g_fortran_i4, sizeof got) == 0);
    /* same_kind cast into int64 is allowed */
    nd_array *o64 = NULL;
    ND_OK_OR_FAIL(nd_zeros(&o64, ND_INT64, 2, shape, nd_cpu()));
    ND_OK_OR_FAIL(nd_load_npy(&o64, npy_data_path("v1_i4.npy"), nd_cpu()));
    int64_t g64[6];
    ND_OK_OR_FAIL(nd_copy_to_host(g64, o64, sizeof g64));
    for (int i = 0; i < 6; i++) ck_assert_int_eq(g64[i], i + 1);
    /* wrong shape: ND_ERR_SHAPE and *out untouched */
    ND_OK_OR_FAIL(nd_zeros(&w, ND_INT32, 2, wrong, nd_cpu()));
    keep = w;
    ND_EXPECT_ERR(nd_load_npy(&w, npy_data_path("v1_i4.npy"), nd_cpu()), ND_ERR_SHAPE, "nd_load_npy");
    ck_assert_ptr_eq(w, keep);
    nd_release(o);
    nd_release(o64);
    nd_release(w);
}
END_TEST

START_TEST(file_errors)
{
    nd_array *a = NULL;
    ND_EXPECT_ERR(nd_load_npy(&a, "/nonexistent/dir/x.npy", nd_cpu()), ND_ERR_IO, "cannot open '/nonexistent/dir/x.npy'");
    ND_EXPECT_ERR(nd_load_npy(&a, "/tmp", nd_cpu()), ND_ERR_IO, "not a regular file");
    ck_assert_ptr_null(a);
    ND_OK_OR_FAIL(nd_load_npy(&a, npy_data_path("f8_2x3.npy"), nd_cpu()));
    ND_EXPECT_ERR(nd_save_npy("/nonexistent/dir/x.npy", a), ND_ERR_IO, "cannot create '/nonexistent/dir/x.npy'");
    /* a device that refuses writes: ND_ERR_IO, and the node stays (twice: a
     * removed node would come back as a regular file that takes the write) */
    struct stat sb;
    if (stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode)) {
        for (int k = 0; k < 2; k++) {
            ND_EXPECT_ERR(nd_save_npy("/dev/full", a), ND_ERR_IO, "cannot write '/dev/full'");
            ck_assert_msg(stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode), "/dev/full is no longer a device");
        }
    }
    /* a truncated file on disk */
    size_t n;
    unsigned char *b = npy_read_file(npy_data_path("f8_2x3.npy"), &n);
    char tmp[64];
    npy_tmp_path(tmp, sizeof tmp);
    FILE *f = fopen(tmp, "wb");
    fwrite(b, 1, n - 3, f);
    fclose(f);
    nd_array *t = NULL;
    ND_EXPECT_ERR(nd_load_npy(&t, tmp, nd_cpu()), ND_ERR_IO, "truncated");
    ck_assert_ptr_null(t);
    /* a file that ends inside the header */
    f = fopen(tmp, "wb");
    fwrite(b, 1, 40, f);
    fclose(f);
    ND_EXPECT_ERR(nd_load_npy(&t, tmp, nd_cpu()), ND_ERR_IO, "runs past the end");
    /* an empty file */
    f = fopen(tmp, "wb");
    fclose(f);
    ND_EXPECT_ERR(nd_load_npy(&t, tmp, nd_cpu()), ND_ERR_IO, "too short");
    ck_assert_ptr_null(t);
    unlink(tmp);
    free(b);
    nd_release(a);
}
END_TEST

START_TEST(bad_arguments)
{
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_load_npy(&a, npy_data_path("i1.npy"), nd_cpu()));
    ND_EXPECT_ERR(nd_load_npy(NULL, "x.npy", nd_cpu()), ND_ERR_INVALID, "'out'");
    nd_array *r = NULL;
    ND_EXPECT_ERR(nd_load_npy(&r, NULL, nd_cpu()), ND_ERR_INVALID, "'path'");
    ND_EXPECT_ERR(nd_save_npy(NULL, a), ND_ERR_INVALID, "'path'");
    ND_EXPECT_ERR(nd_save_npy("/tmp/x.npy", NULL), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_load_npy_buffer(NULL, "", 0, nd_cpu()), ND_ERR_INVALID, "'out'");
    ND_EXPECT_ERR(nd_load_npy_buffer(&r, NULL, 10, nd_cpu()), ND_ERR_INVALID, "'data'");
    ND_EXPECT_ERR(nd_load_npy_buffer(&r, NULL, 0, nd_cpu()), ND_ERR_IO, "too short");
    nd_device bad = {(nd_device_type)7, 0};
    ND_EXPECT_ERR(nd_load_npy(&r, npy_data_path("i1.npy"), bad), ND_ERR_INVALID, "device type");
    ck_assert_ptr_null(r);
    nd_release(a);
}
END_TEST

Suite *suite_npy(void)
{
    Suite *s = suite_create("npy");
    TCase *tc = tcase_create("golden");
    tcase_add_loop_test(tc, golden_load_bit_exact, 0, NGOLDEN);
    tcase_add_loop_test(tc, golden_save_byte_identical, 0, NGOLDEN);
    tcase_add_test(tc, header_text_matches_numpy);
    suite_add_tcase(s, tc);
    tc = tcase_create("roundtrip");
    tcase_add_loop_test(tc, roundtrip_all_dtypes_layouts, 0, ND_NUM_DTYPES * L_NUM);
    tcase_add_test(tc, cuda_device);
    tcase_add_test(tc, out_rule);
    tcase_add_test(tc, file_errors);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    npy_add_hostile_tests(s);
    return s;
}
