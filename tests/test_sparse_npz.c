/* .npz files of sparse matrices (src/sparse/npz.c, src/sparse/inflate.c):
 * files written by scipy.sparse.save_npz (tests/data/sparse, made by
 * tests/gen_sparse_npz.py: deflated and stored members, csr/csc/coo,
 * float16/float32/float64/complex128, int32/int64 indices, unsorted indices
 * with a duplicate) load to exactly the dense matrices scipy saved beside them;
 * files written here, deflated (zlib) and stored, load back equal
 * (scipy.sparse.load_npz reads both: checked when the writer was made);
 * every truncation and every single-byte
 * corruption of a file gives a clear status and leaks nothing (ASan).
 * Files load to the CPU; the loaded matrices then move to the suite's device
 * (ND_DEVICE, cuda:0 under make emu-test), which densifies and saves them. */
#include <unistd.h>

#include "test_util.h"

static const char *data_path(char *buf, size_t cap, const char *name)
{
    const char *dir = getenv("ND_TEST_DATA");
    int n = snprintf(buf, cap, "%s/sparse/%s", dir && *dir ? dir : "tests/data", name);
    ck_assert(n > 0 && (size_t)n < cap);
    return buf;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    ck_assert(fread(b, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* the bytes of a (any dtype) equal those of b */
static void expect_same(const nd_array *a, const nd_array *b, const char *what)
{
    ck_assert_int_eq(nd_dtype_of(a), nd_dtype_of(b));
    ck_assert_int_eq(nd_size(a), nd_size(b));
    size_t n = nd_nbytes(a);
    unsigned char *x = malloc(n + 1), *y = malloc(n + 1);
    ND_OK_OR_FAIL(nd_copy_to_host(x, a, n));
    ND_OK_OR_FAIL(nd_copy_to_host(y, b, n));
    if (memcmp(x, y, n) != 0) ck_assert_msg(false, "%s: values differ", what);
    free(x);
    free(y);
}

START_TEST(scipy_files)
{
    static const struct {
        const char *name;
        nd_sparse_format fmt;
        nd_dtype vt, it;
        bool canonical;
    } F[] = {
        {"csr_f64_z", ND_SPARSE_CSR, ND_FLOAT64, ND_INT32, true},
        {"csc_f32_i64", ND_SPARSE_CSC, ND_FLOAT32, ND_INT64, true},
        {"coo_c128_z", ND_SPARSE_COO, ND_COMPLEX128, ND_INT32, true},
        {"csr_unsorted", ND_SPARSE_CSR, ND_FLOAT64, ND_INT64, false},
        {"csr_f16_z", ND_SPARSE_CSR, ND_FLOAT16, ND_INT32, true},
    };
    char p[1024], q[128];
    for (size_t i = 0; i < sizeof F / sizeof *F; i++) {
        nd_sparse *s = NULL, *back = NULL;
        nd_array *want = NULL, *got = NULL, *got2 = NULL;
        snprintf(q, sizeof q, "%s.npz", F[i].name);
        ND_OK_OR_FAIL(nd_sparse_load_npz(&s, data_path(p, sizeof p, q)));
        if (nd_default_device().type != ND_DEVICE_CPU) {
            nd_sparse *d = NULL;
            ND_OK_OR_FAIL(nd_sparse_to_device(&d, s, nd_default_device()));
            nd_sparse_release(s);
            s = d;
        }
        ck_assert_int_eq(nd_sparse_format_of(s), F[i].fmt);
        ck_assert_int_eq(nd_sparse_dtype(s), F[i].vt);
        ck_assert_int_eq(nd_sparse_index_dtype(s), F[i].it);
        bool c = !F[i].canonical;
        ND_OK_OR_FAIL(nd_sparse_has_canonical_format(s, &c));
        if (F[i].fmt != ND_SPARSE_COO) ck_assert(c == F[i].canonical);
        snprintf(q, sizeof q, "%s_dense.npy", F[i].name);
        ND_OK_OR_FAIL(nd_load_npy(&want, data_path(p, sizeof p, q), nd_cpu()));
        ND_OK_OR_FAIL(nd_sparse_to_dense(&got, s));
        expect_same(got, want, F[i].name);
        /* written here (deflated, scipy's default, and stored), read back */
        for (int stored = 0; stored < 2; stored++) {
            char tmp[] = "/tmp/nd_sparse_npz_XXXXXX";
            int fd = mkstemp(tmp);
            ck_assert(fd >= 0);
            close(fd);
            if (stored) ND_OK_OR_FAIL(nd_sparse_save_npz_stored(tmp, s));
            else ND_OK_OR_FAIL(nd_sparse_save_npz(tmp, s));
            size_t fn_;
            unsigned char *fb = slurp(tmp, &fn_);
            ck_assert(fn_ > 30 && fb[8] == (stored ? 0 : 8)); /* the first member's method */
            free(fb);
            nd_sparse_release(back);
            nd_release(got2);
            back = NULL;
            got2 = NULL;
            ND_OK_OR_FAIL(nd_sparse_load_npz(&back, tmp));
            unlink(tmp);
            ck_assert_int_eq(nd_sparse_format_of(back), F[i].fmt);
            ck_assert_int_eq(nd_sparse_nnz(back), nd_sparse_nnz(s));
            ND_OK_OR_FAIL(nd_sparse_to_dense(&got2, back));
            expect_same(got2, want, stored ? "written stored and read back" : "written deflated and read back");
        }
        nd_sparse_release(s);
        nd_sparse_release(back);
        nd_release(want);
        nd_release(got);
        nd_release(got2);
    }
}
END_TEST

START_TEST(bad_files)
{
    char p[1024];
    nd_sparse *s = (nd_sparse *)0x1;
    ND_EXPECT_ERR(nd_sparse_load_npz(&s, data_path(p, sizeof p, "csr_int64.npz")), ND_ERR_DTYPE, "'data' is int64");
    ND_EXPECT_ERR(nd_sparse_load_npz(&s, "/nonexistent/x.npz"), ND_ERR_IO, "cannot open");
    ND_EXPECT_ERR(nd_sparse_load_npz(&s, NULL), ND_ERR_INVALID, "'path' is NULL");
    ND_EXPECT_ERR(nd_sparse_load_npz_buffer(&s, "PK", 2), ND_ERR_IO, "too short");
    ND_EXPECT_ERR(nd_sparse_load_npz(&s, data_path(p, sizeof p, "csr_f64_z_dense.npy")), ND_ERR_IO,
                  "no zip end-of-central-directory");
    ND_EXPECT_ERR(nd_sparse_save_npz("/nonexistent/dir/x.npz", NULL), ND_ERR_INVALID, "'s' is NULL");
    /* bfloat16 has no NumPy dtype: a file of 2-byte void values ('|V2') is
     * refused, and so is saving bfloat16 values (no file left behind) */
    ND_EXPECT_ERR(nd_sparse_load_npz(&s, data_path(p, sizeof p, "csr_bf16_void.npz")), ND_ERR_UNSUPPORTED,
                  "'data' holds bfloat16 values");
    {
        nd_sparse *h = NULL, *b = NULL;
        nd_array *d = NULL, *i = NULL, *ip = NULL, *db = NULL;
        ND_OK_OR_FAIL(nd_sparse_load_npz(&h, data_path(p, sizeof p, "csr_f16_z.npz")));
        ND_OK_OR_FAIL(nd_sparse_part_get(&d, h, ND_SPARSE_DATA));
        ND_OK_OR_FAIL(nd_sparse_part_get(&i, h, ND_SPARSE_INDICES));
        ND_OK_OR_FAIL(nd_sparse_part_get(&ip, h, ND_SPARSE_INDPTR));
        ND_OK_OR_FAIL(nd_astype(&db, d, ND_BFLOAT16));
        ND_OK_OR_FAIL(nd_sparse_compressed(&b, ND_SPARSE_CSR, db, i, ip, nd_sparse_rows(h), nd_sparse_cols(h)));
        char tmp[] = "/tmp/nd_sparse_bf16_XXXXXX";
        int fd = mkstemp(tmp);
        ck_assert(fd >= 0);
        close(fd);
        unlink(tmp);
        ND_EXPECT_ERR(nd_sparse_save_npz(tmp, b), ND_ERR_UNSUPPORTED, "bfloat16 values have no NumPy dtype");
        ND_EXPECT_ERR(nd_sparse_save_npz_stored(tmp, b), ND_ERR_UNSUPPORTED, "cast the values to float32");
        ck_assert(access(tmp, F_OK) != 0);
        nd_release(d), nd_release(i), nd_release(ip), nd_release(db);
        nd_sparse_release(h), nd_sparse_release(b);
    }
    /* every truncation and every single-byte change of two files (stored,
     * deflated): a status, never a crash or a leak; a changed byte in a
     * member's bytes is caught by its CRC-32 */
    const char *names[2] = {"csr_unsorted.npz", "coo_c128_z.npz"};
    for (int f = 0; f < 2; f++) {
        size_t n;
        unsigned char *b = slurp(data_path(p, sizeof p, names[f]), &n);
        int ok = 0;
        for (size_t len = 0; len < n; len++) {
            nd_sparse *t = NULL;
            if (nd_sparse_load_npz_buffer(&t, b, len) == ND_OK) ok++;
            nd_sparse_release(t);
        }
        for (size_t i = 0; i < n; i++) {
            unsigned char keep = b[i];
            b[i] ^= 0x5a;
            nd_sparse *t = NULL;
            nd_status st = nd_sparse_load_npz_buffer(&t, b, n);
            if (st == ND_OK) ok++;
            nd_sparse_release(t);
            b[i] = keep;
        }
        /* some bytes matter to nobody (the zip headers' times, versions,
         * attributes): those loads succeed; a load that succeeds gives a
         * valid matrix (validated on the way in) */
        ck_assert_int_lt(ok, (int)n);
        free(b);
    }
    ck_assert_ptr_eq(s, (nd_sparse *)0x1);
}
END_TEST

Suite *suite_sparse_npz(void)
{
    Suite *s = suite_create("sparse_npz");
    TCase *tc = tcase_create("npz");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, scipy_files);
    tcase_add_test(tc, bad_files);
    suite_add_tcase(s, tc);
    return s;
}
