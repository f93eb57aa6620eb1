/* nd_matmul / nd_dot / nd_gemm against a plain reference (tests/linalg_util.h). */
#include "linalg_util.h"

#define SHP(...) ((const int64_t[]){__VA_ARGS__})

/* a @ b for fresh operands of the given shapes and dtypes; checks the
 * result shape and values. */
static void run_case(nd_dtype ta, int an, const int64_t *as, nd_dtype tb, int bn, const int64_t *bs, int rn,
                     const int64_t *rs, nd_dtype rt, uint32_t seed)
{
    nd_array *a = lu_rand(ta, an, as, seed), *b = lu_rand(tb, bn, bs, seed + 7), *r = NULL;
    ND_OK_OR_FAIL(nd_matmul(&r, a, b));
    ck_assert_int_eq(nd_dtype_of(r), rt);
    ck_assert_int_eq(nd_ndim(r), rn);
    for (int i = 0; i < rn; i++) ck_assert_int_eq(nd_shape(r)[i], rs[i]);
    lu_verify(a, b, r);
    nd_release(a);
    nd_release(b);
    nd_release(r);
}

START_TEST(test_matmul_shapes)
{
    const nd_dtype t = ND_FLOAT64;
    run_case(t, 2, SHP(3, 4), t, 2, SHP(4, 5), 2, SHP(3, 5), t, 1);
    run_case(t, 1, SHP(4), t, 2, SHP(4, 5), 1, SHP(5), t, 2);
    run_case(t, 2, SHP(3, 4), t, 1, SHP(4), 1, SHP(3), t, 3);
    run_case(t, 1, SHP(4), t, 1, SHP(4), 0, NULL, t, 4);
    run_case(t, 3, SHP(2, 3, 4), t, 2, SHP(4, 5), 3, SHP(2, 3, 5), t, 5);
    run_case(t, 2, SHP(3, 4), t, 3, SHP(2, 4, 5), 3, SHP(2, 3, 5), t, 6);
    run_case(t, 1, SHP(4), t, 3, SHP(2, 4, 5), 2, SHP(2, 5), t, 7);
    run_case(t, 3, SHP(2, 3, 4), t, 1, SHP(4), 2, SHP(2, 3), t, 8);
    run_case(t, 4, SHP(2, 1, 3, 4), t, 3, SHP(5, 4, 2), 4, SHP(2, 5, 3, 2), t, 9);
    run_case(t, 3, SHP(1, 3, 4), t, 4, SHP(3, 2, 4, 2), 4, SHP(3, 2, 3, 2), t, 10);
    run_case(t, 5, SHP(2, 1, 3, 1, 2), t, 4, SHP(4, 1, 2, 3), 5, SHP(2, 4, 3, 1, 3), t, 11);
    run_case(t, 4, SHP(2, 3, 1, 4), t, 4, SHP(1, 3, 4, 1), 4, SHP(2, 3, 1, 1), t, 12);
    /* zero-size: empty results and K == 0 (zeros) */
    run_case(t, 2, SHP(0, 3), t, 2, SHP(3, 2), 2, SHP(0, 2), t, 13);
    run_case(t, 2, SHP(2, 3), t, 2, SHP(3, 0), 2, SHP(2, 0), t, 14);
    run_case(t, 3, SHP(0, 2, 3), t, 2, SHP(3, 4), 3, SHP(0, 2, 4), t, 15);
    run_case(t, 1, SHP(0), t, 1, SHP(0), 0, NULL, t, 16);
    run_case(ND_INT32, 3, SHP(2, 2, 0), ND_INT32, 2, SHP(0, 3), 3, SHP(2, 2, 3), ND_INT32, 17);

    /* K == 0 writes zeros into a poisoned out */
    nd_array *a = lu_rand(t, 2, SHP(2, 0), 1), *b = lu_rand(t, 2, SHP(0, 3), 2), *o = NULL;
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT32, 2, SHP(2, 3), nd_scalar_float(NAN), nd_cpu()));
    ND_OK_OR_FAIL(nd_matmul(&o, a, b));
    float got[6];
    ND_OK_OR_FAIL(nd_copy_to_host(got, o, sizeof got));
    for (int i = 0; i < 6; i++) ck_assert(got[i] == 0.0f);
    nd_release(a);
    nd_release(b);
    nd_release(o);
}
END_TEST

/* Every dtype, on a tiny (own kernel), a batched and a BLAS-sized case. */
START_TEST(test_matmul_dtypes)
{
    const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64, ND_FLOAT16, ND_BFLOAT16, ND_INT8, ND_INT16, ND_INT32,
                           ND_INT64, ND_UINT8, ND_UINT16, ND_UINT32, ND_UINT64, ND_BOOL};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        nd_dtype t = ts[i];
        run_case(t, 2, SHP(3, 7), t, 2, SHP(7, 4), 2, SHP(3, 4), t, 20 + (uint32_t)i);
        run_case(t, 3, SHP(6, 5, 9), t, 3, SHP(6, 9, 3), 3, SHP(6, 5, 3), t, 40 + (uint32_t)i);
        run_case(t, 2, SHP(37, 45), t, 2, SHP(45, 29), 2, SHP(37, 29), t, 60 + (uint32_t)i);
        run_case(t, 1, SHP(300), t, 2, SHP(300, 2), 1, SHP(2), t, 80 + (uint32_t)i);
    }
}
END_TEST

START_TEST(test_matmul_wrap_exact)
{
    /* int8: 100 * 100 * 3 = 30000 wraps to 30000 - 117 * 256 = 48 */
    const double av[] = {100, 100, 100}, bv[] = {100, 100, 100};
    nd_array *a = lu_make(ND_INT8, 1, SHP(3), av), *b = lu_make(ND_INT8, 1, SHP(3), bv), *r = NULL;
    ND_OK_OR_FAIL(nd_matmul(&r, a, b));
    ck_assert_int_eq(nd_ndim(r), 0);
    int8_t v;
    ND_OK_OR_FAIL(nd_copy_to_host(&v, r, 1));
    ck_assert_int_eq(v, 48);
    nd_release(a);
    nd_release(b);
    nd_release(r);
    /* uint8 wraps too (NumPy: 200 * 200 = 40000 -> 64) */
    const double cv[] = {200};
    a = lu_make(ND_UINT8, 2, SHP(1, 1), cv);
    r = NULL;
    ND_OK_OR_FAIL(nd_matmul(&r, a, a));
    uint8_t u;
    ND_OK_OR_FAIL(nd_copy_to_host(&u, r, 1));
    ck_assert_int_eq(u, 64);
    nd_release(a);
    nd_release(r);
    /* bool is or-of-ands: [[1,0],[1,1]] @ [[0,1],[1,0]] = [[0,1],[1,1]] */
    const double p[] = {1, 0, 1, 1}, q[] = {0, 1, 1, 0};
    a = lu_make(ND_BOOL, 2, SHP(2, 2), p);
    b = lu_make(ND_BOOL, 2, SHP(2, 2), q);
    r = NULL;
    ND_OK_OR_FAIL(nd_matmul(&r, a, b));
    ck_assert_int_eq(nd_dtype_of(r), ND_BOOL);
    uint8_t bb[4];
    ND_OK_OR_FAIL(nd_copy_to_host(bb, r, 4));
    ck_assert(bb[0] == 0 && bb[1] == 1 && bb[2] == 1 && bb[3] == 1);
    nd_release(a);
    nd_release(b);
    nd_release(r);
}
END_TEST

START_TEST(test_matmul_promotion)
{
    run_case(ND_INT32, 2, SHP(3, 4), ND_FLOAT32, 2, SHP(4, 2), 2, SHP(3, 2), ND_FLOAT64, 1);
    run_case(ND_INT8, 2, SHP(3, 4), ND_UINT8, 2, SHP(4, 2), 2, SHP(3, 2), ND_INT16, 2);
    run_case(ND_BOOL, 2, SHP(3, 4), ND_INT8, 2, SHP(4, 2), 2, SHP(3, 2), ND_INT8, 3);
    run_case(ND_FLOAT16, 2, SHP(3, 4), ND_BFLOAT16, 2, SHP(4, 2), 2, SHP(3, 2), ND_FLOAT32, 4);
    run_case(ND_FLOAT16, 3, SHP(2, 3, 40), ND_FLOAT32, 2, SHP(40, 50), 3, SHP(2, 3, 50), ND_FLOAT32, 5);
    run_case(ND_UINT64, 2, SHP(2, 3), ND_INT64, 2, SHP(3, 2), 2, SHP(2, 2), ND_FLOAT64, 6);
}
END_TEST

/* Layouts: transposed, negative-step and strided slices, broadcast views,
 * on the own kernel (small, ints) and on BLAS (large floats). */
static nd_array *transposed(const nd_array *a)
{
    nd_array *t = NULL;
    ND_OK_OR_FAIL(nd_transpose(&t, a, NULL));
    return t;
}

static nd_array *sliced(const nd_array *a, int n, const nd_range *r)
{
    nd_array *t = NULL;
    ND_OK_OR_FAIL(nd_slice(&t, a, n, r));
    return t;
}

static void layout_case(nd_dtype t, int64_t M, int64_t K, int64_t N)
{
    nd_array *a0 = lu_rand(t, 2, SHP(K, M), 3), *b0 = lu_rand(t, 2, SHP(N, K), 4);
    nd_array *at = transposed(a0), *bt = transposed(b0); /* (M,K), (K,N), unit row stride */
    nd_array *big = lu_rand(t, 2, SHP(2 * M + 1, 2 * K + 1), 5);
    const nd_range rr[2] = {{ND_NONE, ND_NONE, -2}, {ND_NONE, ND_NONE, -2}};
    nd_array *an = sliced(big, 2, rr); /* (M+1, K+1) with negative strides */
    const nd_range r2[2] = {{0, M, 1}, {0, K, 1}};
    nd_array *ans = sliced(an, 2, r2); /* (M, K), strides (-2*(2K+1), -2) */
    nd_array *bc = lu_rand(t, 2, SHP(K, N), 6);
    nd_array *ops_a[] = {at, ans}, *ops_b[] = {bt, bc};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            nd_array *r = NULL;
            ND_OK_OR_FAIL(nd_matmul(&r, ops_a[i], ops_b[j]));
            lu_verify(ops_a[i], ops_b[j], r);
            nd_release(r);
        }
    /* a broadcast row block: (3, M, K) with batch stride 0 */
    nd_array *ab = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_broadcast_to(&ab, at, 3, SHP(3, M, K)));
    ND_OK_OR_FAIL(nd_matmul(&r, ab, bt));
    lu_verify(ab, bt, r);
    nd_release(r);
    /* a column view of stride 0 (broadcast along columns) */
    nd_array *col = lu_rand(t, 2, SHP(M, 1), 7), *cb = NULL;
    ND_OK_OR_FAIL(nd_broadcast_to(&cb, col, 2, SHP(M, K)));
    r = NULL;
    ND_OK_OR_FAIL(nd_matmul(&r, cb, bc));
    lu_verify(cb, bc, r);
    nd_release(r);
    nd_array *all[] = {a0, b0, at, bt, big, an, ans, bc, ab, col, cb};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
}

START_TEST(test_matmul_layouts)
{
    const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64, ND_FLOAT16, ND_BFLOAT16, ND_INT32, ND_INT8, ND_BOOL};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        layout_case(ts[i], 3, 4, 5);
        layout_case(ts[i], 33, 41, 37);
    }
}
END_TEST

START_TEST(test_matmul_batch_layouts)
{
    /* batch dims that cannot be merged: a transposed (4,3,K,M)->(3,4,M,K) */
    const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64, ND_INT16};
    for (size_t i = 0; i < 3; i++) {
        nd_dtype t = ts[i];
        nd_array *a0 = lu_rand(t, 4, SHP(4, 3, 6, 5), 11), *a = NULL, *b = lu_rand(t, 3, SHP(4, 6, 7), 12);
        ND_OK_OR_FAIL(nd_transpose(&a, a0, (const int[]){1, 0, 3, 2})); /* (3,4,5,6) */
        nd_array *r = NULL;
        ND_OK_OR_FAIL(nd_matmul(&r, a, b));
        ck_assert_int_eq(nd_ndim(r), 4);
        ck_assert_int_eq(nd_shape(r)[0], 3);
        ck_assert_int_eq(nd_shape(r)[3], 7);
        lu_verify(a, b, r);
        nd_release(r);
        /* BLAS-sized matrices in a non-mergeable batch */
        nd_array *c0 = lu_rand(t, 4, SHP(2, 3, 40, 50), 13), *c = NULL, *d = lu_rand(t, 2, SHP(40, 30), 14);
        ND_OK_OR_FAIL(nd_transpose(&c, c0, (const int[]){1, 0, 3, 2})); /* (3,2,50,40) */
        r = NULL;
        ND_OK_OR_FAIL(nd_matmul(&r, c, d));
        lu_verify(c, d, r);
        nd_release(r);
        nd_array *all[] = {a0, a, b, c0, c, d};
        for (size_t k = 0; k < 6; k++) nd_release(all[k]);
    }
    /* many tiny matrices: 1000 x (16x16 @ 16x16), the batch-parallel kernel */
    nd_array *a = lu_rand(ND_FLOAT32, 3, SHP(1000, 16, 16), 15), *b = lu_rand(ND_FLOAT32, 3, SHP(1000, 16, 16), 16);
    nd_array *r = NULL;
    ND_OK_OR_FAIL(nd_matmul(&r, a, b));
    lu_verify(a, b, r);
    nd_release(a);
    nd_release(b);
    nd_release(r);
}
END_TEST

START_TEST(test_matmul_out)
{
    nd_array *a = lu_rand(ND_FLOAT32, 2, SHP(35, 40), 1), *b = lu_rand(ND_FLOAT32, 2, SHP(40, 30), 2);
    nd_array *ref = NULL;
    ND_OK_OR_FAIL(nd_matmul(&ref, a, b));
    float *want = (float *)lu_bytes(ref);
    /* out of the result dtype, poisoned */
    nd_array *o = NULL, *keep;
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT32, 2, SHP(35, 30), nd_scalar_float(NAN), nd_cpu()));
    keep = o;
    ND_OK_OR_FAIL(nd_matmul(&o, a, b));
    ck_assert_ptr_eq(o, keep);
    float *got = (float *)lu_bytes(o);
    ck_assert(memcmp(got, want, 35 * 30 * 4) == 0);
    free(got);
    nd_release(o);
    /* out of another dtype (float64) */
    o = NULL;
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT64, 2, SHP(35, 30), nd_scalar_float(NAN), nd_cpu()));
    ND_OK_OR_FAIL(nd_matmul(&o, a, b));
    double *gd = (double *)lu_bytes(o);
    for (int i = 0; i < 35 * 30; i++) ck_assert(gd[i] == (double)want[i]);
    free(gd);
    nd_release(o);
    /* a transposed out (unit row stride: C^T = B^T A^T) and a strided one */
    nd_array *ob = NULL, *ot = NULL;
    ND_OK_OR_FAIL(nd_full(&ob, ND_FLOAT32, 2, SHP(30, 35), nd_scalar_float(NAN), nd_cpu()));
    ND_OK_OR_FAIL(nd_transpose(&ot, ob, NULL));
    ND_OK_OR_FAIL(nd_matmul(&ot, a, b));
    got = (float *)lu_bytes(ot);
    for (int i = 0; i < 35 * 30; i++) ck_assert_msg(fabsf(got[i] - want[i]) <= 1e-4f * (1 + fabsf(want[i])), "%d", i);
    free(got);
    nd_release(ot);
    nd_release(ob);
    ob = NULL;
    nd_array *os = NULL;
    ND_OK_OR_FAIL(nd_full(&ob, ND_FLOAT32, 2, SHP(70, 60), nd_scalar_float(NAN), nd_cpu()));
    const nd_range st[2] = {{ND_NONE, ND_NONE, 2}, {ND_NONE, ND_NONE, -2}};
    ND_OK_OR_FAIL(nd_slice(&os, ob, 2, st));
    ND_OK_OR_FAIL(nd_matmul(&os, a, b));
    got = (float *)lu_bytes(os);
    for (int i = 0; i < 35 * 30; i++) ck_assert_msg(fabsf(got[i] - want[i]) <= 1e-4f * (1 + fabsf(want[i])), "%d", i);
    free(got);
    nd_release(os);
    nd_release(ob);
    free(want);
    nd_release(ref);
    nd_release(a);
    nd_release(b);
}
END_TEST

START_TEST(test_matmul_out_alias)
{
    /* out is an input: a = a @ b must equal the product of the old a */
    const nd_dtype ts[] = {ND_FLOAT64, ND_INT32};
    for (int i = 0; i < 2; i++) {
        nd_array *a = lu_rand(ts[i], 2, SHP(6, 6), 3), *b = lu_rand(ts[i], 2, SHP(6, 6), 4);
        nd_array *a_copy = NULL, *o = a;
        ND_OK_OR_FAIL(nd_copy(&a_copy, a));
        ND_OK_OR_FAIL(nd_matmul(&o, a, b));
        lu_verify(a_copy, b, a);
        o = b; /* b = a @ b, b aliased as the second operand */
        nd_array *b_copy = NULL;
        ND_OK_OR_FAIL(nd_copy(&b_copy, b));
        ND_OK_OR_FAIL(nd_matmul(&o, a, b));
        char *bytes_b = lu_bytes(b);
        nd_array *r = NULL;
        ND_OK_OR_FAIL(nd_matmul(&r, a, b_copy));
        char *bytes_r = lu_bytes(r);
        ck_assert(memcmp(bytes_b, bytes_r, nd_nbytes(r)) == 0);
        free(bytes_b);
        free(bytes_r);
        nd_release(r);
        nd_release(a);
        nd_release(b);
        nd_release(a_copy);
        nd_release(b_copy);
    }
}
END_TEST

START_TEST(test_matmul_errors)
{
    nd_array *a = lu_rand(ND_FLOAT32, 2, SHP(3, 3), 1), *b = lu_rand(ND_FLOAT32, 2, SHP(4, 2), 2), *r = NULL;
    nd_array *s = NULL, *v = lu_rand(ND_FLOAT32, 1, SHP(4), 3);
    ND_OK_OR_FAIL(nd_full(&s, ND_FLOAT32, 0, NULL, nd_scalar_float(2), nd_cpu()));
    ND_EXPECT_ERR(nd_matmul(NULL, a, b), ND_ERR_INVALID, "nd_matmul: argument 'out' is NULL");
    ND_EXPECT_ERR(nd_matmul(&r, NULL, b), ND_ERR_INVALID, "argument 'a' is NULL");
    ND_EXPECT_ERR(nd_matmul(&r, a, NULL), ND_ERR_INVALID, "argument 'b' is NULL");
    ND_EXPECT_ERR(nd_matmul(&r, a, b), ND_ERR_SHAPE,
                  "nd_matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                  "(n?,k),(k,m?)->(n?,m?) (size 4 is different from 3)");
    ND_EXPECT_ERR(nd_matmul(&r, v, a), ND_ERR_SHAPE, "(size 3 is different from 4)");
    ND_EXPECT_ERR(nd_matmul(&r, s, a), ND_ERR_SHAPE, "Input operand 0 does not have enough dimensions (has 0");
    ND_EXPECT_ERR(nd_matmul(&r, a, s), ND_ERR_SHAPE, "Input operand 1 does not have enough dimensions");
    ck_assert_ptr_null(r);
    nd_array *x = lu_rand(ND_FLOAT32, 3, SHP(2, 3, 4), 4), *y = lu_rand(ND_FLOAT32, 3, SHP(3, 4, 5), 5);
    ND_EXPECT_ERR(nd_matmul(&r, x, y), ND_ERR_SHAPE, "nd_matmul: shapes (2,) and (3,) do not broadcast");
    ck_assert_ptr_null(r);
    /* bad out: wrong shape, unsafe dtype; untouched */
    nd_array *o = NULL, *keep;
    ND_OK_OR_FAIL(nd_full(&o, ND_FLOAT32, 2, SHP(3, 4), nd_scalar_float(7), nd_cpu()));
    keep = o;
    nd_array *sq = lu_rand(ND_FLOAT32, 2, SHP(3, 3), 6);
    ND_EXPECT_ERR(nd_matmul(&o, a, sq), ND_ERR_SHAPE, "'out' has shape (3,4), but the result has shape (3,3)");
    ck_assert_ptr_eq(o, keep);
    nd_release(o);
    o = NULL;
    ND_OK_OR_FAIL(nd_full(&o, ND_INT32, 2, SHP(3, 3), nd_scalar_int(7), nd_cpu()));
    ND_EXPECT_ERR(nd_matmul(&o, a, sq), ND_ERR_DTYPE, "cannot cast the result from float32 to 'out' dtype int32");
    int32_t iv[9];
    ND_OK_OR_FAIL(nd_copy_to_host(iv, o, sizeof iv));
    for (int i = 0; i < 9; i++) ck_assert_int_eq(iv[i], 7);
    nd_array *all[] = {a, b, s, v, x, y, o, sq};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nd_release(all[i]);
}
END_TEST

/* Small float matrices take the own register-blocked kernel (on AVX2+FMA
 * machines): odd sizes exercise the masked edges and the 4-row blocks,
 * transposed operands the packing, and the result must not depend on the
 * thread count. */
START_TEST(test_matmul_small_kernel)
{
    static const int64_t dims[][3] = {{1, 1, 1},   {1, 9, 3},   {3, 5, 7},   {4, 8, 16},  {5, 17, 9},
                                      {16, 16, 16}, {13, 33, 31}, {64, 8, 64}, {33, 64, 15}, {7, 1, 64}};
    const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64};
    int nt0 = nd_get_num_threads();
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++) {
            nd_dtype t = ts[ti];
            int64_t M = dims[di][0], N = dims[di][1], K = dims[di][2];
            uint32_t seed = (uint32_t)(100 + 10 * di + ti);
            nd_array *a = lu_rand(t, 3, SHP(37, M, K), seed), *b = lu_rand(t, 3, SHP(37, K, N), seed + 1);
            nd_array *r = NULL, *r1 = NULL;
            ND_OK_OR_FAIL(nd_matmul(&r, a, b));
            lu_verify(a, b, r);
            ND_OK_OR_FAIL(nd_set_num_threads(1));
            ND_OK_OR_FAIL(nd_matmul(&r1, a, b));
            ND_OK_OR_FAIL(nd_set_num_threads(nt0));
            ck_assert_msg(memcmp(nd_data(r), nd_data(r1), (size_t)nd_nbytes(r)) == 0,
                          "small matmul %lldx%lldx%lld differs between thread counts", (long long)M, (long long)N,
                          (long long)K);
            /* transposed operands (B columns not unit-stride) and a 2-D B broadcast over the batch */
            nd_array *at0 = lu_rand(t, 3, SHP(37, K, M), seed + 2), *at = NULL, *bt0 = lu_rand(t, 2, SHP(N, K), seed + 3),
                     *bt = NULL, *r2 = NULL;
            ND_OK_OR_FAIL(nd_transpose(&at, at0, (const int[]){0, 2, 1}));
            ND_OK_OR_FAIL(nd_transpose(&bt, bt0, NULL));
            ND_OK_OR_FAIL(nd_matmul(&r2, at, bt));
            lu_verify(at, bt, r2);
            /* into a transposed out (C columns not unit-stride) */
            nd_array *o0 = NULL, *o = NULL;
            ND_OK_OR_FAIL(nd_zeros(&o0, t, 3, SHP(37, N, M), nd_cpu()));
            ND_OK_OR_FAIL(nd_transpose(&o, o0, (const int[]){0, 2, 1}));
            ND_OK_OR_FAIL(nd_matmul(&o, a, b));
            lu_verify(a, b, o);
            nd_array *all[] = {a, b, r, r1, at0, at, bt0, bt, r2, o0, o};
            for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) nd_release(all[k]);
        }
}
END_TEST

/* Batches of medium matrices (64^3 < M*N*K <= 256^3, at least two a
 * thread) run over the library's threads with OpenBLAS on one thread:
 * every dtype BLAS takes, odd sizes, a transposed operand, a broadcast B. */
START_TEST(test_matmul_medium_batch)
{
    const nd_dtype ts[] = {ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128};
    int nt0 = nd_get_num_threads();
    ND_OK_OR_FAIL(nd_set_num_threads(2));
    for (size_t ti = 0; ti < 4; ti++) {
        nd_dtype t = ts[ti];
        run_case(t, 3, SHP(9, 70, 65), t, 3, SHP(9, 65, 81), 3, SHP(9, 70, 81), t, (uint32_t)(200 + ti));
        run_case(t, 3, SHP(5, 97, 128), t, 2, SHP(128, 33), 3, SHP(5, 97, 33), t, (uint32_t)(210 + ti));
        nd_array *a0 = lu_rand(t, 3, SHP(6, 90, 80), (uint32_t)(220 + ti)), *b = lu_rand(t, 3, SHP(6, 90, 75), 230);
        nd_array *a = NULL, *r = NULL;
        ND_OK_OR_FAIL(nd_transpose(&a, a0, (const int[]){0, 2, 1}));
        ND_OK_OR_FAIL(nd_matmul(&r, a, b));
        lu_verify(a, b, r);
        nd_release(a0), nd_release(a), nd_release(b), nd_release(r);
    }
    ND_OK_OR_FAIL(nd_set_num_threads(nt0));
}
END_TEST

void linalg_add_dot_gemm(Suite *s); /* tests/test_linalg_gemm.c */
void linalg_add_small(Suite *s);    /* tests/test_linalg_small.c */

Suite *suite_linalg(void)
{
    Suite *s = suite_create("linalg");
    TCase *tc = tcase_create("matmul");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_matmul_shapes);
    tcase_add_test(tc, test_matmul_dtypes);
    tcase_add_test(tc, test_matmul_wrap_exact);
    tcase_add_test(tc, test_matmul_promotion);
    tcase_add_test(tc, test_matmul_layouts);
    tcase_add_test(tc, test_matmul_batch_layouts);
    tcase_add_test(tc, test_matmul_small_kernel);
    tcase_add_test(tc, test_matmul_medium_batch);
    tcase_add_test(tc, test_matmul_out);
    tcase_add_test(tc, test_matmul_out_alias);
    tcase_add_test(tc, test_matmul_errors);
    suite_add_tcase(s, tc);
    linalg_add_dot_gemm(s);
    linalg_add_small(s);
    return s;
}
