/* dtypes: the NEP 50 promotion table, same_kind casting, weak scalars,
 * and casting edge cases, all against values produced by NumPy 2.4. */
#include "shared/half.h"
#include "core/internal.h"
#include "test_util.h"

/* NumPy's 12 dtypes in this order (no bfloat16 in NumPy). */
static const nd_dtype np_order[12] = {ND_BOOL, ND_INT8, ND_INT16, ND_INT32, ND_INT64, ND_UINT8,
                                      ND_UINT16, ND_UINT32, ND_UINT64, ND_FLOAT16, ND_FLOAT32, ND_FLOAT64};

/* generated with NumPy 2.4.6: np.result_type(a, b) */
static const nd_dtype numpy_promote[12][12] = {
    {ND_BOOL, ND_INT8, ND_INT16, ND_INT32, ND_INT64, ND_UINT8, ND_UINT16, ND_UINT32, ND_UINT64, ND_FLOAT16, ND_FLOAT32, ND_FLOAT64},
    {ND_INT8, ND_INT8, ND_INT16, ND_INT32, ND_INT64, ND_INT16, ND_INT32, ND_INT64, ND_FLOAT64, ND_FLOAT16, ND_FLOAT32, ND_FLOAT64},
    {ND_INT16, ND_INT16, ND_INT16, ND_INT32, ND_INT64, ND_INT16, ND_INT32, ND_INT64, ND_FLOAT64, ND_FLOAT32, ND_FLOAT32, ND_FLOAT64},
    {ND_INT32, ND_INT32, ND_INT32, ND_INT32, ND_INT64, ND_INT32, ND_INT32, ND_INT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64},
    {ND_INT64, ND_INT64, ND_INT64, ND_INT64, ND_INT64, ND_INT64, ND_INT64, ND_INT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64},
    {ND_UINT8, ND_INT16, ND_INT16, ND_INT32, ND_INT64, ND_UINT8, ND_UINT16, ND_UINT32, ND_UINT64, ND_FLOAT16, ND_FLOAT32, ND_FLOAT64},
    {ND_UINT16, ND_INT32, ND_INT32, ND_INT32, ND_INT64, ND_UINT16, ND_UINT16, ND_UINT32, ND_UINT64, ND_FLOAT32, ND_FLOAT32, ND_FLOAT64},
    {ND_UINT32, ND_INT64, ND_INT64, ND_INT64, ND_INT64, ND_UINT32, ND_UINT32, ND_UINT32, ND_UINT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64},
    {ND_UINT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_UINT64, ND_UINT64, ND_UINT64, ND_UINT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64},
    {ND_FLOAT16, ND_FLOAT16, ND_FLOAT32, ND_FLOAT64, ND_FLOAT64, ND_FLOAT16, ND_FLOAT32, ND_FLOAT64, ND_FLOAT64, ND_FLOAT16, ND_FLOAT32, ND_FLOAT64},
    {ND_FLOAT32, ND_FLOAT32, ND_FLOAT32, ND_FLOAT64, ND_FLOAT64, ND_FLOAT32, ND_FLOAT32, ND_FLOAT64, ND_FLOAT64, ND_FLOAT32, ND_FLOAT32, ND_FLOAT64},
    {ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64, ND_FLOAT64},
};
/* np.can_cast(a, b, "same_kind") */
static const bool numpy_same_kind[12][12] = {
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},
    {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1}, {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},
    {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1}, {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1},
};

START_TEST(promotion_table_matches_numpy)
{
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            nd_dtype r = ND_NUM_DTYPES;
            ND_OK_OR_FAIL(nd_result_type(&r, np_order[i], np_order[j]));
            ck_assert_msg(r == numpy_promote[i][j], "%s + %s -> %s, NumPy says %s", nd_dtype_name(np_order[i]),
                          nd_dtype_name(np_order[j]), nd_dtype_name(r), nd_dtype_name(numpy_promote[i][j]));
            ck_assert_msg(nd_can_cast_same_kind(np_order[i], np_order[j]) == numpy_same_kind[i][j],
                          "same_kind %s -> %s", nd_dtype_name(np_order[i]), nd_dtype_name(np_order[j]));
        }
}
END_TEST

START_TEST(promotion_bfloat16)
{
    /* bfloat16 holds 8-bit ints exactly; otherwise as float16 (ml_dtypes/JAX) */
    static const struct { nd_dtype other, want; } cases[] = {
        {ND_BOOL, ND_BFLOAT16},   {ND_INT8, ND_BFLOAT16},   {ND_UINT8, ND_BFLOAT16}, {ND_INT16, ND_FLOAT32},
        {ND_UINT16, ND_FLOAT32},  {ND_INT32, ND_FLOAT64},   {ND_UINT64, ND_FLOAT64}, {ND_FLOAT16, ND_FLOAT32},
        {ND_BFLOAT16, ND_BFLOAT16}, {ND_FLOAT32, ND_FLOAT32}, {ND_FLOAT64, ND_FLOAT64},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nd_dtype r1, r2;
        ND_OK_OR_FAIL(nd_result_type(&r1, ND_BFLOAT16, cases[i].other));
        ND_OK_OR_FAIL(nd_result_type(&r2, cases[i].other, ND_BFLOAT16));
        ck_assert_msg(r1 == cases[i].want && r2 == cases[i].want, "bfloat16 + %s -> %s",
                      nd_dtype_name(cases[i].other), nd_dtype_name(r1));
    }
    ck_assert(nd_can_cast_same_kind(ND_BFLOAT16, ND_FLOAT16));
    ck_assert(!nd_can_cast_same_kind(ND_BFLOAT16, ND_INT64));
    ck_assert(nd_can_cast_same_kind(ND_INT64, ND_BFLOAT16));
}
END_TEST

START_TEST(weak_scalars)
{
    ck_assert_int_eq(nd__promote_weak(ND_INT8, ND_SCALAR_INT), ND_INT8);
    ck_assert_int_eq(nd__promote_weak(ND_UINT16, ND_SCALAR_INT), ND_UINT16);
    ck_assert_int_eq(nd__promote_weak(ND_BOOL, ND_SCALAR_INT), ND_INT64);
    ck_assert_int_eq(nd__promote_weak(ND_BOOL, ND_SCALAR_FLOAT), ND_FLOAT64);
    ck_assert_int_eq(nd__promote_weak(ND_INT8, ND_SCALAR_FLOAT), ND_FLOAT64);
    ck_assert_int_eq(nd__promote_weak(ND_FLOAT32, ND_SCALAR_FLOAT), ND_FLOAT32);
    ck_assert_int_eq(nd__promote_weak(ND_FLOAT16, ND_SCALAR_INT), ND_FLOAT16);
    ck_assert_int_eq(nd__promote_weak(ND_UINT8, ND_SCALAR_BOOL), ND_UINT8);
    ck_assert(nd__scalar_fits(nd_scalar_int(127), ND_INT8));
    ck_assert(!nd__scalar_fits(nd_scalar_int(128), ND_INT8));
    ck_assert(!nd__scalar_fits(nd_scalar_int(-1), ND_UINT8));
    ck_assert(!nd__scalar_fits(nd_scalar_int(-1), ND_UINT64));
    ck_assert(nd__scalar_fits(nd_scalar_int(INT64_MIN), ND_INT64));
    ck_assert(nd__scalar_fits(nd_scalar_int(65535), ND_UINT16));
    ck_assert(!nd__scalar_fits(nd_scalar_int(65536), ND_UINT16));
}
END_TEST

START_TEST(names_and_sizes)
{
    ck_assert_str_eq(nd_dtype_name(ND_BFLOAT16), "bfloat16");
    ck_assert_str_eq(nd_dtype_name(ND_UINT32), "uint32");
    ck_assert_str_eq(nd_dtype_name((nd_dtype)99), "invalid");
    ck_assert_uint_eq(nd_dtype_size(ND_FLOAT16), 2);
    ck_assert_uint_eq(nd_dtype_size(ND_INT64), 8);
    ck_assert_uint_eq(nd_dtype_size(ND_BOOL), 1);
    ck_assert_uint_eq(nd_dtype_size((nd_dtype)-1), 0);
    nd_dtype r = ND_INT8;
    ND_EXPECT_ERR(nd_result_type(&r, (nd_dtype)99, ND_INT8), ND_ERR_INVALID, "'a'");
    ND_EXPECT_ERR(nd_result_type(&r, ND_INT8, (nd_dtype)-3), ND_ERR_INVALID, "'b'");
    ck_assert_int_eq(r, ND_INT8);
    ND_EXPECT_ERR(nd_result_type(NULL, ND_INT8, ND_INT8), ND_ERR_INVALID, "out");
    ck_assert(!nd_can_cast_same_kind((nd_dtype)40, ND_INT8));
    ck_assert_str_eq(nd_status_name(ND_ERR_SHAPE), "ND_ERR_SHAPE");
    ck_assert_str_eq(nd_status_name(ND_OK), "ND_OK");
    ck_assert_str_eq(nd_status_name((nd_status)77), "ND_ERR_UNKNOWN");
}
END_TEST

/* The hand-written inner list ND_DTYPE_PAIRS (src/shared/dtype_table.h) is the
 * table's order, and the table's facts agree with the typed helpers. */
START_TEST(dtype_table_and_pair_list_agree)
{
#define TBL_SFX(A, E, sfx, ...) #sfx,
#define PAIR_SFX(S, sfx) #sfx,
    static const char *const table[] = {ND_DTYPE_TABLE(TBL_SFX, _)};
    static const char *const pairs[] = {ND_DTYPE_PAIRS(PAIR_SFX, _)};
#undef TBL_SFX
#undef PAIR_SFX
    ck_assert_uint_eq(sizeof table / sizeof *table, ND_NUM_DTYPES);
    ck_assert_uint_eq(sizeof pairs / sizeof *pairs, ND_NUM_DTYPES);
    for (int t = 0; t < ND_NUM_DTYPES; t++) ck_assert_str_eq(table[t], pairs[t]);
    /* limits: every integer dtype's range edges, one past them refused */
    ck_assert(nd__scalar_fits(nd_scalar_int(-128), ND_INT8));
    ck_assert(!nd__scalar_fits(nd_scalar_int(-129), ND_INT8));
    ck_assert(nd__scalar_fits(nd_scalar_int(4294967295LL), ND_UINT32));
    ck_assert(!nd__scalar_fits(nd_scalar_int(4294967296LL), ND_UINT32));
    ck_assert(!nd__scalar_fits(nd_scalar_int(-1), ND_UINT64));
    ck_assert(nd__scalar_fits(nd_scalar_int(INT64_MAX), ND_UINT64));
    ck_assert(nd__scalar_fits(nd_scalar_int(-1), ND_FLOAT16));
    ck_assert(nd__dtype_max(ND_FLOAT16) == 65504.0);
    ck_assert(nd__dtype_max(ND_FLOAT32) == (double)3.4028234663852886e38f);
    ck_assert(nd__dtype_max(ND_INT32) == 0.0);
    /* nd__load_f64 reads every dtype (bits of 3 in each storage type) */
    for (int t = 0; t < ND_NUM_DTYPES; t++) {
        nd_array *a = NULL;
        int64_t n = 1;
        ND_OK_OR_FAIL(nd_full(&a, (nd_dtype)t, 1, &n, nd_scalar_int(t == ND_BOOL ? 1 : 3), nd_cpu()));
        ck_assert_msg(nd__load_f64(nd_data(a), (nd_dtype)t) == (t == ND_BOOL ? 1.0 : 3.0), "%s", nd_dtype_name((nd_dtype)t));
        nd_release(a);
    }
}
END_TEST

/* Cast a float64 vector to dtype through nd_astype and read it back. */
static void cast_f64(const double *src, int64_t n, nd_dtype to, void *dst)
{
    nd_array *a = NULL, *b = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, src, ND_FLOAT64, 1, &n, nd_cpu()));
    ND_OK_OR_FAIL(nd_astype(&b, a, to));
    ck_assert_int_eq(nd_dtype_of(b), to);
    ND_OK_OR_FAIL(nd_copy_to_host(dst, b, (size_t)n * nd_dtype_size(to)));
    nd_release(a);
    nd_release(b);
}

START_TEST(cast_float_to_int_numpy_values)
{
    /* np.array([300.7, -1.5, -129.9, 2.0**63, 1.8e19]).astype(...) */
    const double src[5] = {300.7, -1.5, -129.9, 9223372036854775808.0, 1.8e19};
    int8_t i8[5];
    uint8_t u8[5];
    uint16_t u16[5];
    int64_t i64[5];
    uint64_t u64[5];
    cast_f64(src, 3, ND_INT8, i8);
    ck_assert(i8[0] == 44 && i8[1] == -1 && i8[2] == 127);
    cast_f64(src, 3, ND_UINT8, u8);
    ck_assert(u8[0] == 44 && u8[1] == 255 && u8[2] == 127);
    cast_f64(src, 3, ND_UINT16, u16);
    ck_assert(u16[0] == 300 && u16[1] == 65535 && u16[2] == 65407);
    cast_f64(src, 5, ND_INT64, i64);
    ck_assert(i64[0] == 300 && i64[1] == -1 && i64[2] == -129 && i64[3] == INT64_MIN && i64[4] == INT64_MIN);
    cast_f64(src, 5, ND_UINT64, u64);
    ck_assert(u64[0] == 300 && u64[1] == UINT64_MAX && u64[2] == 18446744073709551487ull);
    ck_assert(u64[3] == 9223372036854775808ull && u64[4] == 18000000000000000000ull);
    /* non-finite to int: defined values (x86 "integer indefinite"), no UB */
    const double bad[3] = {NAN, INFINITY, -1e20};
    int32_t i32[3];
    cast_f64(bad, 3, ND_INT32, i32);
    ck_assert(i32[0] == INT32_MIN && i32[1] == INT32_MIN && i32[2] == INT32_MIN);
    cast_f64(bad, 3, ND_INT8, i8);
    ck_assert(i8[0] == 0 && i8[1] == 0 && i8[2] == 0);
    uint8_t b[3];
    cast_f64(bad, 3, ND_BOOL, b);
    ck_assert(b[0] == 1 && b[1] == 1 && b[2] == 1);
}
END_TEST

START_TEST(cast_to_half_rounding)
{
    /* np.array([...]).astype(np.float16) */
    const double src[9] = {2049.0, 2051.0, 65519.0, 65520.0, 6e-8, 3e-8, 2.98e-8, -0.0, 1.0 + 0x1p-11 + 0x1p-40};
    uint16_t h[9];
    cast_f64(src, 9, ND_FLOAT16, h);
    ck_assert_uint_eq(h[0], 0x6800); /* 2048: tie to even */
    ck_assert_uint_eq(h[1], 0x6802); /* 2052 */
    ck_assert_uint_eq(h[2], 0x7bff); /* 65504 */
    ck_assert_uint_eq(h[3], 0x7c00); /* inf */
    ck_assert_uint_eq(h[4], 0x0001); /* smallest subnormal */
    ck_assert_uint_eq(h[5], 0x0001);
    ck_assert_uint_eq(h[6], 0x0000);
    ck_assert_uint_eq(h[7], 0x8000);
    ck_assert_uint_eq(h[8], 0x3c01); /* no double rounding through float32 */
    /* bfloat16: 1 + 2^-8 + 2^-30 rounds up (through float32 it would tie to 1.0) */
    const double bsrc[4] = {1.0 + 0x1p-8 + 0x1p-30, 1.0 + 0x1p-8, 3.0e38, NAN};
    uint16_t bf[4];
    cast_f64(bsrc, 4, ND_BFLOAT16, bf);
    ck_assert_uint_eq(bf[0], 0x3f81);
    ck_assert_uint_eq(bf[1], 0x3f80);
    ck_assert_uint_eq(bf[2], 0x7f62);
    ck_assert((bf[3] & 0x7f80) == 0x7f80 && (bf[3] & 0x7f) != 0);
    /* every float16 round-trips through float32 and back */
    for (uint32_t u = 0; u < 0x10000; u++) {
        float f = nd_half_to_float((uint16_t)u);
        uint16_t back = nd_float_to_half(f);
        if ((u & 0x7c00) == 0x7c00 && (u & 0x3ff)) ck_assert((back & 0x7c00) == 0x7c00 && (back & 0x3ff));
        else ck_assert_uint_eq(back, u);
    }
}
END_TEST

START_TEST(cast_int_wraps_and_bool)
{
    const int64_t src[6] = {-1, 255, 256, 70000, INT64_MIN, 3};
    int64_t n = 6;
    nd_array *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, src, ND_INT64, 1, &n, nd_cpu()));
    ND_OK_OR_FAIL(nd_astype(&b, a, ND_UINT8));
    uint8_t u8[6];
    ND_OK_OR_FAIL(nd_copy_to_host(u8, b, sizeof u8));
    ck_assert(u8[0] == 255 && u8[1] == 255 && u8[2] == 0 && u8[3] == 112 && u8[4] == 0 && u8[5] == 3);
    ND_OK_OR_FAIL(nd_astype(&c, a, ND_BOOL));
    uint8_t bl[6];
    ND_OK_OR_FAIL(nd_copy_to_host(bl, c, sizeof bl));
    for (int i = 0; i < 6; i++) ck_assert_uint_eq(bl[i], 1);
    ND_OK_OR_FAIL(nd_astype(&d, c, ND_FLOAT32));
    float f[6];
    ND_OK_OR_FAIL(nd_copy_to_host(f, d, sizeof f));
    for (int i = 0; i < 6; i++) ck_assert(f[i] == 1.0f);
    nd_release(a);
    nd_release(b);
    nd_release(c);
    nd_release(d);
}
END_TEST

/* Every dtype pair: values representable in both survive the cast. */
START_TEST(cast_all_pairs_exact_values)
{
    const double vals[8] = {0, 1, 2, 7, 100, 127, 3, 64};
    int64_t n = 8;
    for (int s = 0; s < ND_NUM_DTYPES; s++)
        for (int t = 0; t < ND_NUM_DTYPES; t++) {
            nd_array *a = NULL, *b = NULL, *src = NULL;
            ND_OK_OR_FAIL(nd_from_host(&src, vals, ND_FLOAT64, 1, &n, nd_cpu()));
            ND_OK_OR_FAIL(nd_astype(&a, src, (nd_dtype)s));
            ND_OK_OR_FAIL(nd_astype(&b, a, (nd_dtype)t));
            double back[8];
            nd_array *c = NULL;
            ND_OK_OR_FAIL(nd_astype(&c, b, ND_FLOAT64));
            ND_OK_OR_FAIL(nd_copy_to_host(back, c, sizeof back));
            for (int i = 0; i < 8; i++) {
                double want = (s == ND_BOOL || t == ND_BOOL) ? (vals[i] != 0) : vals[i];
                ck_assert_msg(back[i] == want, "%s -> %s: %g gives %g", nd_dtype_name((nd_dtype)s),
                              nd_dtype_name((nd_dtype)t), vals[i], back[i]);
            }
            nd_release(a);
            nd_release(b);
            nd_release(c);
            nd_release(src);
        }
}
END_TEST

Suite *suite_dtype(void)
{
    Suite *s = suite_create("dtype");
    TCase *tc = tcase_create("dtype");
    tcase_add_test(tc, promotion_table_matches_numpy);
    tcase_add_test(tc, promotion_bfloat16);
    tcase_add_test(tc, weak_scalars);
    tcase_add_test(tc, names_and_sizes);
    tcase_add_test(tc, dtype_table_and_pair_list_agree);
    tcase_add_test(tc, cast_float_to_int_numpy_values);
    tcase_add_test(tc, cast_to_half_rounding);
    tcase_add_test(tc, cast_int_wraps_and_bool);
    tcase_add_test(tc, cast_all_pairs_exact_values);
    suite_add_tcase(s, tc);
    return s;
}
