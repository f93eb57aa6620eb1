/* The array object: creation from host data, copies, layouts through
 * views, overlap, transfers, devices, library info, iteration
 * simplification, and bad input for these functions. */
#include <stdlib.h>

#include "core/internal.h"
#include "test_util.h"

static nd_array *iota_f64(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    double *v = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) v[i] = (double)i + 1.0;
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, v, ND_FLOAT64, ndim, shape, nd_cpu()));
    free(v);
    return a;
}

/* nd_set_error: what extension libraries (libndgpu_mpi) report through. */
START_TEST(set_error_formats_like_the_library)
{
    ck_assert_int_eq(nd_set_error(ND_ERR_SHAPE, "nd_allreduce", "rank %d has shape %s", 1, "(3,)"), ND_ERR_SHAPE);
    ck_assert_str_eq(nd_last_error(), "nd_allreduce: rank 1 has shape (3,)");
    ck_assert_int_eq(nd_set_error(ND_ERR_INVALID, NULL, "x"), ND_ERR_INVALID);
    ck_assert_str_eq(nd_last_error(), "libndgpu: x");
}
END_TEST

START_TEST(from_host_roundtrip_all_dtypes)
{
    unsigned char src[6 * 16], dst[6 * 16]; /* complex128: 16 bytes */
    for (size_t i = 0; i < sizeof src; i++) src[i] = (unsigned char)(i * 37 + 11);
    int64_t shape[2] = {2, 3};
    for (int t = 0; t < ND_NUM_DTYPES; t++) {
        nd_array *a = NULL;
        size_t nb = 6 * nd_dtype_size((nd_dtype)t);
        ND_OK_OR_FAIL(nd_from_host(&a, src, (nd_dtype)t, 2, shape, nd_cpu()));
        ck_assert_int_eq(nd_ndim(a), 2);
        ck_assert_int_eq(nd_shape(a)[0], 2);
        ck_assert_int_eq(nd_shape(a)[1], 3);
        ck_assert_int_eq(nd_strides(a)[0], 3);
        ck_assert_int_eq(nd_strides(a)[1], 1);
        ck_assert_int_eq(nd_size(a), 6);
        ck_assert_uint_eq(nd_nbytes(a), nb);
        ck_assert_int_eq(nd_dtype_of(a), t);
        ck_assert_int_eq(nd_device_of(a).type, ND_DEVICE_CPU);
        ck_assert(nd_is_contiguous(a));
        ck_assert(!nd_is_pinned(a));
        ck_assert_ptr_nonnull(nd_data(a));
        memset(dst, 0xAB, sizeof dst);
        ND_OK_OR_FAIL(nd_copy_to_host(dst, a, nb));
        ck_assert(memcmp(src, dst, nb) == 0);
        nd_release(a);
    }
}
END_TEST

START_TEST(zero_d_and_zero_size)
{
    double x = 4.5, y = 0;
    nd_array *s = NULL, *z = NULL, *c = NULL;
    ND_OK_OR_FAIL(nd_from_host(&s, &x, ND_FLOAT64, 0, NULL, nd_cpu()));
    ck_assert_int_eq(nd_ndim(s), 0);
    ck_assert_int_eq(nd_size(s), 1);
    ND_OK_OR_FAIL(nd_copy_to_host(&y, s, 8));
    ck_assert(y == 4.5);
    int64_t shape[3] = {2, 0, 5};
    ND_OK_OR_FAIL(nd_from_host(&z, NULL, ND_INT32, 3, shape, nd_cpu()));
    ck_assert_int_eq(nd_size(z), 0);
    ck_assert_uint_eq(nd_nbytes(z), 0);
    ND_OK_OR_FAIL(nd_copy_to_host(NULL, z, 0));
    ND_OK_OR_FAIL(nd_astype(&c, z, ND_FLOAT16));
    ck_assert_int_eq(nd_size(c), 0);
    ck_assert_int_eq(nd_shape(c)[2], 5);
    nd_release(s);
    nd_release(z);
    nd_release(c);
}
END_TEST

/* A transposed view of a (2,3) array read back in C order. */
START_TEST(strided_views_copy_in_c_order)
{
    int64_t shape[2] = {2, 3};
    nd_array *a = iota_f64(2, shape); /* [[1,2,3],[4,5,6]] */
    int64_t tshape[2] = {3, 2}, tstrides[2] = {1, 3};
    nd_array *t = NULL, *c = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd__view(&t, a, ND_FLOAT64, 2, tshape, tstrides, 0));
    ck_assert(!nd_is_contiguous(t));
    double out[6];
    ND_OK_OR_FAIL(nd_copy_to_host(out, t, sizeof out));
    const double want[6] = {1, 4, 2, 5, 3, 6};
    for (int i = 0; i < 6; i++) ck_assert(out[i] == want[i]);
    /* reversed row with a negative stride: a[1, ::-1] = [6,5,4] */
    int64_t rshape[1] = {3}, rstrides[1] = {-1};
    ND_OK_OR_FAIL(nd__view(&r, a, ND_FLOAT64, 1, rshape, rstrides, 5 * 8));
    ND_OK_OR_FAIL(nd_copy_to_host(out, r, 3 * 8));
    ck_assert(out[0] == 6 && out[1] == 5 && out[2] == 4);
    /* nd_contiguous: a copy for t, the same array for a */
    ND_OK_OR_FAIL(nd_contiguous(&c, t));
    ck_assert(nd_is_contiguous(c));
    ck_assert_ptr_ne(nd_data(c), nd_data(a));
    ND_OK_OR_FAIL(nd_copy_to_host(out, c, sizeof out));
    for (int i = 0; i < 6; i++) ck_assert(out[i] == want[i]);
    nd_array *same = NULL;
    ND_OK_OR_FAIL(nd_contiguous(&same, a));
    ck_assert_ptr_eq(same, a);
    nd_release(same);
    /* views keep the buffer alive */
    nd_release(a);
    ND_OK_OR_FAIL(nd_copy_to_host(out, t, sizeof out));
    ck_assert(out[1] == 4);
    /* writing through a strided view */
    const double w[3] = {-1, -2, -3};
    ND_OK_OR_FAIL(nd_copy_from_host(r, w, sizeof w));
    ND_OK_OR_FAIL(nd_copy_to_host(out, t, sizeof out));
    ck_assert(out[1] == -3 && out[3] == -2 && out[5] == -1);
    nd_release(t);
    nd_release(r);
    nd_release(c);
}
END_TEST

START_TEST(copy_and_copyto)
{
    int64_t shape[2] = {4, 3};
    nd_array *a = iota_f64(2, shape), *b = NULL, *row = NULL, *o = NULL;
    ND_OK_OR_FAIL(nd_copy(&b, a));
    ck_assert_ptr_ne(nd_data(a), nd_data(b));
    double out[12];
    ND_OK_OR_FAIL(nd_copy_to_host(out, b, sizeof out));
    for (int i = 0; i < 12; i++) ck_assert(out[i] == i + 1);
    /* copyto with broadcasting and a same_kind cast into float32 */
    int64_t rs[1] = {3};
    const double rv[3] = {7, 8, 9};
    ND_OK_OR_FAIL(nd_from_host(&row, rv, ND_FLOAT64, 1, rs, nd_cpu()));
    ND_OK_OR_FAIL(nd_empty(&o, ND_FLOAT32, 2, shape, nd_cpu()));
    nd_array *o_before = o;
    ND_OK_OR_FAIL(nd_copy(&o, row));
    ck_assert_ptr_eq(o, o_before);
    float of[12];
    ND_OK_OR_FAIL(nd_copy_to_host(of, o, sizeof of));
    for (int i = 0; i < 12; i++) ck_assert(of[i] == (float)rv[i % 3]);
    /* same_kind refuses float -> int */
    nd_array *oi = NULL;
    ND_OK_OR_FAIL(nd_empty(&oi, ND_INT32, 2, shape, nd_cpu()));
    ND_EXPECT_ERR(nd_copy(&oi, a), ND_ERR_DTYPE, "same_kind");
    /* shape that does not broadcast into out */
    ND_EXPECT_ERR(nd_copy(&row, a), ND_ERR_SHAPE, "nd_copy");
    nd_release(a);
    nd_release(b);
    nd_release(row);
    nd_release(o);
    nd_release(oi);
}
END_TEST

/* a[1:] = a[:-1] must behave as if the source were read first (NumPy). */
START_TEST(overlapping_copy)
{
    int64_t n[1] = {8};
    nd_array *a = iota_f64(1, n), *lo = NULL, *hi = NULL;
    int64_t s7[1] = {7}, st[1] = {1};
    ND_OK_OR_FAIL(nd__view(&lo, a, ND_FLOAT64, 1, s7, st, 0));
    ND_OK_OR_FAIL(nd__view(&hi, a, ND_FLOAT64, 1, s7, st, 8));
    ck_assert(nd__may_overlap(lo, hi));
    ck_assert(!nd__same_view(lo, hi));
    ND_OK_OR_FAIL(nd_copy(&hi, lo));
    double out[8];
    ND_OK_OR_FAIL(nd_copy_to_host(out, a, sizeof out));
    const double want[8] = {1, 1, 2, 3, 4, 5, 6, 7};
    for (int i = 0; i < 8; i++) ck_assert_msg(out[i] == want[i], "out[%d] = %g", i, out[i]);
    nd_release(a);
    nd_release(lo);
    nd_release(hi);
}
END_TEST

START_TEST(astype_into_out_and_to_device)
{
    int64_t shape[1] = {5};
    nd_array *a = iota_f64(1, shape), *b = NULL, *c = NULL, *d = NULL;
    ND_OK_OR_FAIL(nd_empty(&b, ND_INT16, 1, shape, nd_cpu()));
    ND_OK_OR_FAIL(nd_astype(&b, a, ND_INT16)); /* unsafe cast allowed by astype */
    int16_t v[5];
    ND_OK_OR_FAIL(nd_copy_to_host(v, b, sizeof v));
    for (int i = 0; i < 5; i++) ck_assert_int_eq(v[i], i + 1);
    ND_EXPECT_ERR(nd_astype(&b, a, ND_INT32), ND_ERR_DTYPE, "int16");
    ND_OK_OR_FAIL(nd_to_device(&c, a, nd_cpu()));
    ck_assert_ptr_ne(nd_data(c), nd_data(a));
    double w[5];
    ND_OK_OR_FAIL(nd_copy_to_host(w, c, sizeof w));
    ck_assert(w[4] == 5.0);
    /* to_device into an existing out of another same_kind dtype */
    ND_OK_OR_FAIL(nd_empty(&d, ND_FLOAT32, 1, shape, nd_cpu()));
    ND_OK_OR_FAIL(nd_to_device(&d, a, nd_cpu()));
    float f[5];
    ND_OK_OR_FAIL(nd_copy_to_host(f, d, sizeof f));
    ck_assert(f[2] == 3.0f);
    nd_release(a);
    nd_release(b);
    nd_release(c);
    nd_release(d);
}
END_TEST

START_TEST(cuda_without_gpu)
{
    ck_assert_int_eq(nd_cuda_device_count(), 0);
    int64_t shape[1] = {4};
    nd_array *a = NULL, *h = iota_f64(1, shape);
#ifdef ND_WITH_CUDA
    const nd_status want = ND_ERR_DEVICE;
    const char *needle = "no usable GPU";
#else
    const nd_status want = ND_ERR_UNSUPPORTED;
    const char *needle = "without CUDA";
#endif
    ND_EXPECT_ERR(nd_empty(&a, ND_FLOAT32, 1, shape, nd_cuda(0)), want, needle);
    ck_assert_ptr_null(a);
    ND_EXPECT_ERR(nd_to_device(&a, h, nd_cuda(0)), want, "nd_to_device");
    ck_assert_ptr_null(a);
    ND_EXPECT_ERR(nd_from_host(&a, NULL, ND_FLOAT32, 0, NULL, nd_cuda(1)), want, "cuda:1");
    nd_device_info info;
    ck_assert_int_ne(nd_device_get_info(&info, nd_cuda(0)), ND_OK);
    ck_assert_int_ne(nd_synchronize(nd_cuda(0)), ND_OK);
    nd_device cpu1 = {ND_DEVICE_CPU, 1};
    ND_EXPECT_ERR(nd_empty(&a, ND_FLOAT32, 1, shape, cpu1), ND_ERR_DEVICE, "cpu");
    nd_release(h);
}
END_TEST

/* Devices by name, as users write them: the registry's names. */
START_TEST(device_names)
{
    char buf[32];
    ck_assert_str_eq(nd_device_str(nd_cpu(), buf, sizeof buf), "cpu:0");
    ck_assert_str_eq(nd_device_str(nd_cuda(3), buf, sizeof buf), "cuda:3");
    ck_assert_str_eq(nd_device_str((nd_device){(nd_device_type)7, 0}, buf, sizeof buf), "device-type-7:0");
    ck_assert_str_eq(nd_device_str(nd_cuda(12), buf, 4), "cud"); /* truncated, terminated */
    nd_device d = {(nd_device_type)5, 9};
    ND_OK_OR_FAIL(nd_device_parse(&d, "cuda:2"));
    ck_assert(d.type == ND_DEVICE_CUDA && d.id == 2);
    ND_OK_OR_FAIL(nd_device_parse(&d, "cpu"));
    ck_assert(d.type == ND_DEVICE_CPU && d.id == 0);
    ND_OK_OR_FAIL(nd_device_parse(&d, "cuda"));
    ck_assert(d.type == ND_DEVICE_CUDA && d.id == 0);
    const char *bad[] = {"", "gpu", "cuda:", "cuda:-1", "cuda:1x", "cudax", ":1", "cuda:99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        d = nd_cpu();
        ND_EXPECT_ERR(nd_device_parse(&d, bad[i]), ND_ERR_INVALID, "nd_device_parse");
        ck_assert(d.type == ND_DEVICE_CPU && d.id == 0); /* untouched */
    }
    /* the usable devices, the host first */
    int n = nd_devices(NULL, 0);
    ck_assert_int_eq(n, 1 + nd_cuda_device_count());
    nd_device all[8], poison = {(nd_device_type)77, 77};
    for (int i = 0; i < 8; i++) all[i] = poison;
    ck_assert_int_eq(nd_devices(all, 1), n); /* writes one, counts all */
    ck_assert(all[0].type == ND_DEVICE_CPU && all[0].id == 0);
    ck_assert(all[1].type == poison.type && all[1].id == poison.id);
    if (n <= 8) {
        ck_assert_int_eq(nd_devices(all, 8), n);
        for (int i = 1; i < n; i++) ck_assert(all[i].type == ND_DEVICE_CUDA && all[i].id == i - 1);
    }
    ND_EXPECT_ERR(nd_device_parse(NULL, "cpu"), ND_ERR_INVALID, "dev");
    ND_EXPECT_ERR(nd_device_parse(&d, NULL), ND_ERR_INVALID, "s");
    /* every name the library writes reads back */
    for (int t = 0; t < 2; t++)
        for (int id = 0; id < 3; id++) {
            nd_device w = {(nd_device_type)t, id}, r;
            ND_OK_OR_FAIL(nd_device_parse(&r, nd_device_str(w, buf, sizeof buf)));
            ck_assert(r.type == w.type && r.id == w.id);
        }
}
END_TEST

START_TEST(devices_and_library)
{
    const char *env0 = getenv("ND_DEVICE");
    char saved[64] = "";
    if (env0) snprintf(saved, sizeof saved, "%s", env0);
    unsetenv("ND_DEVICE");
    nd_device d = nd_default_device();
    /* cuda:0 when a GPU is usable (the emulated one too), else the CPU */
    ck_assert_int_eq(d.type, nd_test_gpu_count() > 0 ? ND_DEVICE_CUDA : ND_DEVICE_CPU);
    setenv("ND_DEVICE", "cuda:3", 1);
    ck_assert_int_eq(nd_default_device().type, ND_DEVICE_CPU); /* an unusable override falls back to the CPU */
    setenv("ND_DEVICE", "cpu", 1);
    ck_assert_int_eq(nd_default_device().type, ND_DEVICE_CPU);
    setenv("ND_DEVICE", "cpu:0", 1);
    ck_assert_int_eq(nd_default_device().type, ND_DEVICE_CPU);
    setenv("ND_DEVICE", "tpu:0", 1); /* an unknown name falls back to the CPU, and sets no error */
    nd_set_error(ND_ERR_SHAPE, "earlier", "kept");
    ck_assert_int_eq(nd_default_device().type, ND_DEVICE_CPU);
    ck_assert_ptr_nonnull(strstr(nd_last_error(), "kept"));
    if (nd_test_gpu_count() > 0) {
        setenv("ND_DEVICE", "cuda", 1);
        d = nd_default_device();
        ck_assert(d.type == ND_DEVICE_CUDA && d.id == 0);
    }
    if (env0) setenv("ND_DEVICE", saved, 1);
    else unsetenv("ND_DEVICE");
    nd_device_info info;
    ND_OK_OR_FAIL(nd_device_get_info(&info, nd_cpu()));
    ck_assert(info.multiprocessors >= 1);
    ck_assert(info.total_memory > 0);
    ck_assert(strlen(info.name) > 0);
    ND_EXPECT_ERR(nd_device_get_info(NULL, nd_cpu()), ND_ERR_INVALID, "info");
    ND_OK_OR_FAIL(nd_synchronize(nd_cpu()));
    ck_assert_str_eq(nd_version(), "0.1.0");
    ck_assert_ptr_nonnull(strstr(nd_build_info(), "OpenBLAS"));
    int n0 = nd_get_num_threads();
    ck_assert(n0 >= 1);
    ND_OK_OR_FAIL(nd_set_num_threads(1));
    ck_assert_int_eq(nd_get_num_threads(), 1);
    ND_EXPECT_ERR(nd_set_num_threads(-2), ND_ERR_INVALID, "nd_set_num_threads");
    ND_OK_OR_FAIL(nd_set_num_threads(0));
    ck_assert(nd_get_num_threads() >= 1);
    ND_OK_OR_FAIL(nd_set_num_threads(n0));
}
END_TEST

START_TEST(iteration_coalescing)
{
    int64_t shape[3] = {4, 5, 6};
    nd_array *a = iota_f64(3, shape), *b = NULL, *t = NULL;
    ND_OK_OR_FAIL(nd_empty(&b, ND_FLOAT64, 3, shape, nd_cpu()));
    const nd_array *ops[2] = {b, a};
    nd_iter it;
    nd__iter_init(&it, 2, ops);
    ck_assert_int_eq(it.ndim, 1); /* fully contiguous: one axis */
    ck_assert_int_eq(it.shape[0], 120);
    ck_assert(nd__iter_is_flat(&it));
    /* a broadcast row: (4,5,6) <- (6,) merges the two outer axes only */
    int64_t rs[1] = {6};
    nd_array *row = iota_f64(1, rs), *brow = NULL;
    ND_OK_OR_FAIL(nd__broadcast_view(&brow, row, 3, shape));
    const nd_array *ops2[2] = {b, brow};
    nd__iter_init(&it, 2, ops2);
    ck_assert_int_eq(it.ndim, 2);
    ck_assert_int_eq(it.shape[0], 20);
    ck_assert_int_eq(it.shape[1], 6);
    ck_assert_int_eq(it.strides[1][0], 0);
    /* a transposed output: axes are ordered by the output's strides */
    int64_t ts[2] = {6, 20}, tst[2] = {1, 6};
    ND_OK_OR_FAIL(nd__view(&t, a, ND_FLOAT64, 2, ts, tst, 0));
    const nd_array *ops3[1] = {t};
    nd__iter_init(&it, 1, ops3);
    ck_assert_int_eq(it.ndim, 1);
    ck_assert_int_eq(it.strides[0][0], 8);
    /* a 0-d iteration is one element */
    nd_array *s = NULL;
    ND_OK_OR_FAIL(nd_empty(&s, ND_INT8, 0, NULL, nd_cpu()));
    const nd_array *ops4[1] = {s};
    nd__iter_init(&it, 1, ops4);
    ck_assert_int_eq(it.ndim, 1);
    ck_assert_int_eq(it.shape[0], 1);
    nd_release(a);
    nd_release(b);
    nd_release(t);
    nd_release(row);
    nd_release(brow);
    nd_release(s);
}
END_TEST

/* Big strided casts go through the threaded iterator: compare with a
 * plain loop. */
START_TEST(parallel_strided_cast)
{
    int64_t shape[2] = {300, 401};
    nd_array *a = iota_f64(2, shape), *t = NULL, *o = NULL;
    int64_t ts[2] = {401, 300}, tst[2] = {1, 401};
    ND_OK_OR_FAIL(nd__view(&t, a, ND_FLOAT64, 2, ts, tst, 0));
    ND_OK_OR_FAIL(nd_astype(&o, t, ND_FLOAT32));
    float *out = malloc(sizeof(float) * 300 * 401);
    ND_OK_OR_FAIL(nd_copy_to_host(out, o, sizeof(float) * 300 * 401));
    for (int64_t i = 0; i < 401; i++)
        for (int64_t j = 0; j < 300; j++) ck_assert(out[i * 300 + j] == (float)(j * 401 + i + 1));
    free(out);
    nd_release(a);
    nd_release(t);
    nd_release(o);
}
END_TEST

/* Transposed copies and casts take the cache-blocked path (tiles of 32,
 * in-register transposes for 4- and 8-byte copies, the strided loops for
 * other sizes and casts): sizes that are not multiples of the tile, batch
 * axes, negative strides and several dtypes, checked element by element. */
static double tv(int64_t i, int64_t j, int64_t k, int64_t d1, int64_t d2) { return (double)(((i * d1 + j) * d2 + k) % 251 + 1); }

START_TEST(blocked_transposed_copies)
{
    static const int64_t shapes[][3] = {{1, 64, 64}, {1, 65, 97}, {1, 33, 1000}, {1, 1000, 17}, {3, 70, 90}, {2, 128, 256}};
    const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64, ND_INT16, ND_UINT8, ND_INT32, ND_INT64};
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
        int64_t d0 = shapes[si][0], d1 = shapes[si][1], d2 = shapes[si][2], n = d0 * d1 * d2;
        double *v = malloc(sizeof(double) * (size_t)n), *got = malloc(sizeof(double) * (size_t)n);
        for (int64_t i = 0; i < d0; i++)
            for (int64_t j = 0; j < d1; j++)
                for (int64_t k = 0; k < d2; k++) v[(i * d1 + j) * d2 + k] = tv(i, j, k, d1, d2);
        nd_array *base = NULL;
        ND_OK_OR_FAIL(nd_from_host(&base, v, ND_FLOAT64, 3, shapes[si], nd_cpu()));
        for (size_t ti = 0; ti < sizeof ts / sizeof ts[0]; ti++) {
            nd_array *b = NULL, *t = NULL, *c = NULL, *cf = NULL, *rev = NULL, *c2 = NULL, *cast = NULL;
            ND_OK_OR_FAIL(nd_astype(&b, base, ts[ti]));
            ND_OK_OR_FAIL(nd_transpose(&t, b, (const int[]){0, 2, 1})); /* t[i][k][j] = v(i, j, k) */
            ND_OK_OR_FAIL(nd_contiguous(&c, t));
            ND_OK_OR_FAIL(nd_astype(&cf, c, ND_FLOAT64));
            ND_OK_OR_FAIL(nd_copy_to_host(got, cf, sizeof(double) * (size_t)n));
            int64_t bad = 0;
            for (int64_t i = 0; i < d0; i++)
                for (int64_t k = 0; k < d2; k++)
                    for (int64_t j = 0; j < d1; j++) bad += got[(i * d2 + k) * d1 + j] != tv(i, j, k, d1, d2);
            ck_assert_msg(bad == 0, "%s transposed copy of (%lld,%lld,%lld): %lld elements wrong", nd_dtype_name(ts[ti]),
                          (long long)d0, (long long)d1, (long long)d2, (long long)bad);
            /* reversed along the output's inner axis: a negative source stride */
            const nd_range r[3] = {ND_ALL, ND_ALL, {ND_NONE, ND_NONE, -1}};
            ND_OK_OR_FAIL(nd_slice(&rev, t, 3, r));
            ND_OK_OR_FAIL(nd_contiguous(&c2, rev));
            /* and a cast of the transposed view (the strided cast loop per tile row) */
            ND_OK_OR_FAIL(nd_astype(&cast, rev, ND_FLOAT64));
            ND_OK_OR_FAIL(nd_copy_to_host(got, cast, sizeof(double) * (size_t)n));
            for (int64_t i = 0; i < d0; i++)
                for (int64_t k = 0; k < d2; k++)
                    for (int64_t j = 0; j < d1; j++) bad += got[(i * d2 + k) * d1 + j] != tv(i, d1 - 1 - j, k, d1, d2);
            ck_assert_msg(bad == 0, "%s reversed transposed cast: %lld elements wrong", nd_dtype_name(ts[ti]), (long long)bad);
            nd_release(cf);
            cf = NULL;
            ND_OK_OR_FAIL(nd_astype(&cf, c2, ND_FLOAT64));
            ND_OK_OR_FAIL(nd_copy_to_host(got, cf, sizeof(double) * (size_t)n));
            for (int64_t i = 0; i < d0; i++)
                for (int64_t k = 0; k < d2; k++)
                    for (int64_t j = 0; j < d1; j++) bad += got[(i * d2 + k) * d1 + j] != tv(i, d1 - 1 - j, k, d1, d2);
            ck_assert_msg(bad == 0, "%s reversed transposed copy: %lld elements wrong", nd_dtype_name(ts[ti]), (long long)bad);
            nd_array *all[] = {b, t, c, cf, rev, c2, cast};
            for (size_t q = 0; q < sizeof all / sizeof all[0]; q++) nd_release(all[q]);
        }
        nd_release(base);
        free(v);
        free(got);
    }
}
END_TEST

START_TEST(bad_input)
{
    nd_array *a = NULL;
    int64_t shape[2] = {2, 3}, neg[2] = {2, -1}, huge[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
    double buf[6] = {1, 2, 3, 4, 5, 6};
    ND_EXPECT_ERR(nd_empty(NULL, ND_FLOAT32, 2, shape, nd_cpu()), ND_ERR_INVALID, "'out'");
    ND_EXPECT_ERR(nd_empty(&a, ND_FLOAT32, 2, NULL, nd_cpu()), ND_ERR_INVALID, "'shape'");
    ND_EXPECT_ERR(nd_empty(&a, ND_FLOAT32, -1, shape, nd_cpu()), ND_ERR_INVALID, "ndim");
    ND_EXPECT_ERR(nd_empty(&a, ND_FLOAT32, ND_MAX_DIMS + 1, shape, nd_cpu()), ND_ERR_INVALID, "ndim");
    ND_EXPECT_ERR(nd_empty(&a, ND_FLOAT32, 2, neg, nd_cpu()), ND_ERR_INVALID, "negative");
    ND_EXPECT_ERR(nd_empty(&a, ND_FLOAT32, 2, huge, nd_cpu()), ND_ERR_INVALID, "too big");
    ND_EXPECT_ERR(nd_empty(&a, (nd_dtype)42, 2, shape, nd_cpu()), ND_ERR_INVALID, "dtype");
    nd_device bad = {(nd_device_type)7, 0};
    ND_EXPECT_ERR(nd_empty(&a, ND_FLOAT32, 2, shape, bad), ND_ERR_INVALID, "device type");
    ND_EXPECT_ERR(nd_from_host(&a, NULL, ND_FLOAT64, 2, shape, nd_cpu()), ND_ERR_INVALID, "'data'");
    ND_EXPECT_ERR(nd_from_host(NULL, buf, ND_FLOAT64, 2, shape, nd_cpu()), ND_ERR_INVALID, "'out'");
    ck_assert_ptr_null(a);
    ND_OK_OR_FAIL(nd_from_host(&a, buf, ND_FLOAT64, 2, shape, nd_cpu()));
    double out[6];
    ND_EXPECT_ERR(nd_copy_to_host(out, a, 8), ND_ERR_INVALID, "nbytes");
    ND_EXPECT_ERR(nd_copy_to_host(NULL, a, 48), ND_ERR_INVALID, "'dst'");
    ND_EXPECT_ERR(nd_copy_to_host(out, NULL, 48), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_copy_from_host(a, out, 47), ND_ERR_INVALID, "nbytes");
    ND_EXPECT_ERR(nd_copy_from_host(a, NULL, 48), ND_ERR_INVALID, "'src'");
    ND_EXPECT_ERR(nd_copy_from_host(NULL, out, 48), ND_ERR_INVALID, "'a'");
    nd_array *b = NULL;
    ND_EXPECT_ERR(nd_copy(&b, NULL), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_copy(NULL, a), ND_ERR_INVALID, "'out'");
    ND_EXPECT_ERR(nd_astype(&b, a, ND_NUM_DTYPES), ND_ERR_INVALID, "dtype");
    ND_EXPECT_ERR(nd_astype(&b, NULL, ND_INT8), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_to_device(&b, NULL, nd_cpu()), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_contiguous(&b, NULL), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_contiguous(NULL, a), ND_ERR_INVALID, "'out'");
    ck_assert_ptr_null(b);
    /* wrong out shape */
    int64_t other[1] = {6};
    ND_OK_OR_FAIL(nd_empty(&b, ND_FLOAT64, 1, other, nd_cpu()));
    nd_array *b0 = b;
    ND_EXPECT_ERR(nd_contiguous(&b, a), ND_ERR_SHAPE, "(6,)");
    ND_EXPECT_ERR(nd_to_device(&b, a, nd_cpu()), ND_ERR_SHAPE, "(2,3)");
    ck_assert_ptr_eq(b, b0);
    /* inspection of NULL */
    ck_assert_int_eq(nd_ndim(NULL), 0);
    ck_assert_ptr_null(nd_shape(NULL));
    ck_assert_ptr_null(nd_data(NULL));
    ck_assert_int_eq(nd_size(NULL), 0);
    ck_assert(!nd_is_contiguous(NULL));
    nd_release(NULL);
    ck_assert_ptr_eq(nd_retain(NULL), NULL);
    nd_release(a);
    nd_release(b);
}
END_TEST

Suite *suite_core(void)
{
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, set_error_formats_like_the_library);
    tcase_add_test(tc, device_names);
    tcase_add_test(tc, from_host_roundtrip_all_dtypes);
    tcase_add_test(tc, zero_d_and_zero_size);
    tcase_add_test(tc, strided_views_copy_in_c_order);
    tcase_add_test(tc, copy_and_copyto);
    tcase_add_test(tc, overlapping_copy);
    tcase_add_test(tc, astype_into_out_and_to_device);
    if (nd_test_gpu_count() == 0) tcase_add_test(tc, cuda_without_gpu);
    tcase_add_test(tc, devices_and_library);
    tcase_add_test(tc, iteration_coalescing);
    tcase_add_test(tc, parallel_strided_cast);
    tcase_add_test(tc, blocked_transposed_copies);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    return s;
}
