/* Unit tests (CPU, always run) of the CUDA reductions' shared ND_HOSTDEV
 * code: the operators (src/cuda/reduce_states.h over the shared semantics of
 * src/shared/reduce_ops.h) and the geometry and work
 * partition (src/cuda/reduce_plan.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda/reduce_plan.h"
#include "gpu_reduce_util.h"

/* The GPU's sum families accumulate as src/shared/reduce_ops.h says: float32
 * terms in float (3e38 + 3e38 overflows, as NumPy), float64 in double,
 * integer means in double; a sum of -0.0 is +0.0. */
START_TEST(sums_accumulate_in_the_shared_type)
{
    float f = nd_r_sum_f32_init();
    nd_r_sum_f32_fold(&f, 3e38f, 0, 0);
    nd_r_sum_f32_fold(&f, 3e38f, 1, 0);
    nd_r_sum_f32_fold(&f, -3e38f, 2, 0);
    ck_assert(isinf(f) && f > 0);
    f = nd_r_sum_f32_init();
    nd_r_sum_f32_fold(&f, 1.0f, 0, 0);
    nd_r_sum_f32_fold(&f, 0x1p-25f, 1, 0); /* below float32's half ulp of 1: lost */
    ck_assert(f == 1.0f);
    double d = nd_r_sum_f64_init();
    nd_r_sum_f64_fold(&d, 1.0, 0, 0);
    nd_r_sum_f64_fold(&d, 0x1p-30, 1, 0);
    ck_assert(d == 1.0 + 0x1p-30);
    nd_r_sum_f64_merge(&d, 1e300);
    ck_assert(d == 1e300);
    double m = nd_r_fsum_i64_init();
    nd_r_fsum_i64_fold(&m, INT64_MAX, 0, 0); /* converted first, then added in double */
    nd_r_fsum_i64_fold(&m, INT64_MAX, 1, 0);
    ck_assert(m == 2.0 * 0x1p63);
    f = nd_r_sum_f32_init();
    nd_r_sum_f32_fold(&f, -0.0f, 0, 0);
    nd_r_sum_f32_fold(&f, -0.0f, 1, 0);
    ck_assert(f == 0.0f && !signbit(f));
    /* squared deviations of float32 terms in float, the centre rounded to float */
    float q = nd_r_sqdev_f32_init();
    nd_r_sqdev_f32_fold(&q, 3.0f, 0, 1.0);
    nd_r_sqdev_f32_fold(&q, -1.0f, 1, 1.0);
    ck_assert(q == 8.0f);
    /* finishing in the accumulator type: mean of a float32 sum in float32 */
    ck_assert(nd_rop_finish_f32(1.0f, ND_REDUCE_MEAN, 3.0, 0.0) == 1.0f / 3.0f);
    ck_assert(nd_rop_den(4.0, 1.5) == 2.5 && nd_rop_den(4.0, 5.0) == 0.0 && isnan(nd_rop_den(4.0, NAN)));
}
END_TEST

START_TEST(max_min_nan_rules_and_int_wrap)
{
    float m = nd_r_max_f32_init();
    nd_r_max_f32_fold(&m, 1.0f, 0, 0);
    nd_r_max_f32_fold(&m, NAN, 1, 0);
    nd_r_max_f32_fold(&m, 3.0f, 2, 0);
    ck_assert(isnan(m));
    float l = 5.0f;
    nd_r_max_f32_merge(&l, NAN);
    ck_assert(isnan(l));
    l = NAN;
    nd_r_max_f32_merge(&l, 7.0f);
    ck_assert(isnan(l));
    double d = nd_r_min_f64_init();
    nd_r_min_f64_fold(&d, -INFINITY, 0, 0);
    nd_r_min_f64_fold(&d, 2.0, 1, 0);
    ck_assert(d == -INFINITY);
    nd_r_min_f64_merge(&d, NAN);
    ck_assert(isnan(d));
    /* identities are neutral */
    float mx = nd_r_max_f32_init();
    nd_r_max_f32_merge(&mx, -INFINITY);
    ck_assert(mx == -INFINITY);
    int64_t im = nd_r_max_i64_init();
    nd_r_max_i64_fold(&im, INT64_MIN, 0, 0);
    ck_assert(im == INT64_MIN);
    uint64_t um = nd_r_min_u64_init();
    nd_r_min_u64_fold(&um, UINT64_MAX, 0, 0);
    ck_assert(um == UINT64_MAX);
    /* wrapping integer sums and products (int64 bits in uint64) */
    uint64_t s = nd_r_sum_i64_init();
    nd_r_sum_i64_fold(&s, INT64_MAX, 0, 0);
    nd_r_sum_i64_fold(&s, 1, 1, 0);
    ck_assert(s == (uint64_t)INT64_MIN);
    nd_r_sum_i64_fold(&s, -1, 2, 0);
    ck_assert(s == (uint64_t)INT64_MAX);
    uint64_t p = nd_r_prod_i64_init();
    nd_r_prod_i64_fold(&p, -3, 0, 0);
    nd_r_prod_i64_fold(&p, 5, 1, 0);
    ck_assert((int64_t)p == -15);
    nd_r_prod_i64_fold(&p, INT64_MIN, 2, 0);
    ck_assert(p == (uint64_t)INT64_MIN); /* -15 * 2^63 wraps to 2^63 */
    /* any / all test x != 0, NaN is true */
    unsigned an = nd_r_any_f32_init(), al = nd_r_all_f32_init();
    nd_r_any_f32_fold(&an, NAN, 0, 0);
    nd_r_all_f32_fold(&al, NAN, 0, 0);
    ck_assert(an == 1 && al == 1);
    nd_r_all_f32_fold(&al, -0.0f, 1, 0);
    ck_assert(al == 0);
}
END_TEST

/* Reference first occurrence (the first NaN wins) */
static int64_t ref_arg(const float *x, int n, bool mx)
{
    int64_t b = 0;
    for (int i = 1; i < n; i++) {
        if (isnan(x[b])) break;
        if (isnan(x[i]) || (mx ? x[i] > x[b] : x[i] < x[b])) b = i;
    }
    return b;
}

/* The pair merge gives the first occurrence for any cut of the indices
 * into interleaved partials merged in any order. */
START_TEST(arg_pairs_any_order)
{
    uint64_t h = 12345;
    float x[64];
    int64_t bad = 0;
    for (int rep = 0; rep < 20000; rep++) {
        int n = 1 + (int)(h % 64);
        for (int i = 0; i < n; i++) {
            h = h * 6364136223846793005ull + 1442695040888963407ull;
            int r = (int)(h >> 60);
            x[i] = r == 0 ? NAN : (float)(r % 4); /* many ties */
        }
        for (int mx = 0; mx < 2; mx++) {
            int G = 1 + (int)((h >> 20) % 9);
            nd_rarg_f32 part[9];
            for (int t = 0; t < G; t++) {
                part[t] = nd_r_argmax_f32_init();
                for (int j = t; j < n; j += G) {
                    if (mx) nd_r_argmax_f32_fold(&part[t], x[j], j, 0);
                    else nd_r_argmin_f32_fold(&part[t], x[j], j, 0);
                }
            }
            /* merge in a random order */
            int perm[9];
            for (int t = 0; t < G; t++) perm[t] = t;
            for (int t = G - 1; t > 0; t--) {
                int q = (int)((h >> (t * 3)) % (uint64_t)(t + 1)), tmp = perm[t];
                perm[t] = perm[q];
                perm[q] = tmp;
            }
            nd_rarg_f32 v = part[perm[0]];
            for (int t = 1; t < G; t++) {
                nd_rarg_f32 r = part[perm[t]];
                if (mx) nd_r_argmax_f32_merge(&v, r);
                else nd_r_argmin_f32_merge(&v, r);
            }
            bad += v.i != ref_arg(x, n, mx);
            /* commutativity of each pair */
            for (int t = 1; t < G; t++) {
                nd_rarg_f32 p1 = nd_rarg_f32_pick(part[0], part[t], mx), p2 = nd_rarg_f32_pick(part[t], part[0], mx);
                bad += p1.i != p2.i;
            }
        }
        h ^= h >> 17;
    }
    ck_assert_int_eq(bad, 0);
    /* integer ties: first index */
    nd_rarg_u64 u = nd_r_argmax_u64_init(), w = nd_r_argmax_u64_init();
    nd_r_argmax_u64_fold(&u, 7, 10, 0);
    nd_r_argmax_u64_fold(&w, 7, 3, 0);
    nd_r_argmax_u64_merge(&u, w);
    ck_assert_int_eq(u.i, 3);
    nd_r_argmax_u64_merge(&u, nd_r_argmax_u64_init()); /* empty partial */
    ck_assert_int_eq(u.i, 3);
}
END_TEST

START_TEST(stores_and_scaling)
{
    double bufd[2];
    unsigned char *buf = (unsigned char *)bufd;
    nd_rstore_f64(buf, ND_FLOAT16, 0, 1.5);
    ck_assert_int_eq(((uint16_t *)buf)[0], 0x3E00);
    nd_rstore_f64(buf, ND_BFLOAT16, 0, -2.0);
    ck_assert_int_eq(((uint16_t *)buf)[0], 0xC000);
    nd_rstore_f64(buf, ND_FLOAT32, 1, 0.1);
    ck_assert(((float *)buf)[1] == 0.1f);
    nd_rstore_f64(buf, ND_FLOAT64, 1, 0.1);
    ck_assert(((double *)buf)[1] == 0.1);
    nd_rstore_u64(buf, ND_INT8, 3, (uint64_t)-5);
    ck_assert_int_eq(((int8_t *)buf)[3], -5);
    nd_rstore_u64(buf, ND_UINT16, 2, 0x12345);
    ck_assert_int_eq(((uint16_t *)buf)[2], 0x2345);
    nd_rstore_u64(buf, ND_BOOL, 5, 256);
    ck_assert_int_eq(buf[5], 1);
    ck_assert(isnan(nd_rop_finish_f64(0.0, ND_REDUCE_VAR, 0.0, 0.0))); /* empty var: 0 / 0 */
    ck_assert(isinf(nd_rop_finish_f64(2.0, ND_REDUCE_VAR, 0.0, 0.0)));  /* n <= ddof: S / 0 */
    ck_assert(nd_rop_finish_f64(16.0, ND_REDUCE_STD, 0.0, 4.0) == 2.0);
    ck_assert(isnan(nd_rop_finish_f64(0.0, ND_REDUCE_MEAN, 0.0, 0.0)));
    ck_assert(nd_rop_finish_f64(3.0, ND_REDUCE_SUM, 0.0, 0.0) == 3.0);
    ck_assert(nd_rop_finish_f32(8.4f, ND_REDUCE_STD, 0.0, 1.0) == sqrtf(8.4f));
    ck_assert_int_eq(nd_r_class(ND_REDUCE_MEAN, ND_INT8), NDR_FSUM);
    ck_assert_int_eq(nd_r_class(ND_REDUCE_VAR, ND_FLOAT16), NDR_SUM);
    ck_assert_int_eq(nd_r_ckind(ND_BOOL), NDR_CU64);
    ck_assert_int_eq(nd_r_ckind(ND_BFLOAT16), NDR_CF32);
    ck_assert_int_eq(nd_r_kernel_dtype(ND_BOOL, NDR_MAX), ND_UINT8);
    ck_assert_int_eq(nd_r_kernel_dtype(ND_INT16, NDR_ANY), ND_UINT16);
    ck_assert_int_eq(nd_r_kernel_dtype(ND_INT64, NDR_ALL), ND_UINT64);
    ck_assert_int_eq(nd_r_kernel_dtype(ND_INT64, NDR_SUM), ND_INT64);
    ck_assert_int_eq(nd_r_kernel_dtype(ND_FLOAT16, NDR_ANY), ND_FLOAT16);
}
END_TEST

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* nd_rk_geometry + nd_rk_koff/roff address the same elements as the view:
 * per output the same set (order-free ops), or the same sequence in C
 * order (arg ops). */
/* Views no product of whose strides fits int64 (an empty DLPack tensor
 * may carry any strides; a non-empty one with an extent-2 axis of stride
 * 2^62 bytes passes the import's span check): the geometry forms no
 * overflowing product (UBSan in emu-asan and the shape fuzzer watch it),
 * an empty view's strides count as 0, and nothing merges wrongly. */
START_TEST(geometry_huge_strides_do_not_overflow)
{
    const int64_t big = (int64_t)1 << 62;
    static const int64_t shapes[3][2] = {{0, 2}, {2, 0}, {2, 2}};
    for (int q = 0; q < 3; q++)
        for (int keep = 0; keep < 2; keep++)
            for (int naxes = 1; naxes <= 2; naxes++) {
                const int64_t st[2] = {q == 2 ? 1 : INT64_MAX / 2, big};
                nd_rgeom g;
                nd_rgeom_make(&g, 2, shapes[q], st, 1, naxes, keep != 0);
                const bool empty = shapes[q][0] == 0 || shapes[q][1] == 0;
                for (int d = 0; d < g.nk; d++) ck_assert(!empty || g.kstr[d] == 0);
                for (int d = 0; d < g.nr; d++) ck_assert(!empty || g.rstr[d] == 0);
                ck_assert_int_eq(g.nout * g.nred, shapes[q][0] * shapes[q][1]);
                if (!empty) { /* stride 1 over 2, stride 2^62 over 2: nothing to merge */
                    ck_assert_int_eq(g.nk + g.nr, 2);
                    ck_assert_int_eq(g.base, 0);
                }
            }
    int64_t sh[2] = {2, 2}, str[2] = {big, big};
    ck_assert_int_eq(nd__merge_axes(2, sh, str), 2); /* big * 2 overflows: no merge */
}
END_TEST

START_TEST(geometry_addresses_the_view)
{
    const int64_t shape[4] = {3, 5, 4, 6};
    for (int layout = 0; layout < GR_NUM_LAYOUTS; layout++)
        for (int naxes = 0; naxes <= 4; naxes++)
            for (int keep = 0; keep < 2; keep++) {
                nd_array *a = gr_make(layout, ND_INT16, GR_RANDOM, 1u, 4, shape, nd_cpu());
                const int64_t *sh = nd_shape(a), *st = nd_strides(a);
                nd_rk k;
                memset(&k, 0, sizeof k);
                nd_rk_geometry(&k, 4, sh, st, 2, naxes, keep);
                int nk0 = 4 - naxes;
                int64_t nout = 1, nred = 1;
                for (int d = 0; d < nk0; d++) nout *= sh[d];
                for (int d = nk0; d < 4; d++) nred *= sh[d];
                ck_assert_int_eq(k.g.nout, nout);
                ck_assert_int_eq(k.g.nred, nred);
                int64_t *want = malloc(sizeof(int64_t) * (size_t)nred), *got = malloc(sizeof(int64_t) * (size_t)nred);
                for (int64_t o = 0; o < nout; o++) {
                    for (int64_t j = 0; j < nred; j++) {
                        int64_t idx = o * nred + j, off = 0; /* C order over (kept, reduced) */
                        for (int d = 3; d >= 0; d--) {
                            off += (idx % sh[d]) * st[d] * 2;
                            idx /= sh[d];
                        }
                        want[j] = off;
                        got[j] = k.g.base + nd_rk_koff(&k, o) + nd_rk_roff(&k, j);
                    }
                    if (!keep) {
                        qsort(want, (size_t)nred, sizeof *want, cmp_i64);
                        qsort(got, (size_t)nred, sizeof *got, cmp_i64);
                    }
                    ck_assert_msg(memcmp(want, got, sizeof(int64_t) * (size_t)nred) == 0,
                                  "%s naxes %d keep %d output %lld", gr_layout_names[layout], naxes, keep, (long long)o);
                }
                if (layout == GR_CONTIG && naxes >= 1) ck_assert_int_eq(k.g.nr, 1); /* merged */
                free(want);
                free(got);
                nd_release(a);
            }
    /* 64-bit index splitting equals 32-bit where both apply */
    const int64_t s3[3] = {70000, 70000, 9}, st3[3] = {630000 * 8, 72, 8};
    for (int64_t i = 0; i < 4000000000LL; i += 999999937LL)
        ck_assert_int_eq(nd_rk_off(i, 3, s3, st3, 1), nd_rk_off(i, 3, s3, st3, 0));
    ck_assert_int_eq(nd_rk_off(44100000000LL - 1, 3, s3, st3, 0), (69999LL * 630000 + 69999 * 9 + 8) * 8);
}
END_TEST

/* Every (output, element) is visited exactly once by the loops of the
 * kernels, for both paths, chunked or not; the partition's counts agree. */
static void coverage(int64_t rows, int64_t cols, int axis)
{
    nd_rk k;
    memset(&k, 0, sizeof k);
    /* reduce `axis`: the view the core passes has it last */
    int64_t vs[2] = {axis ? rows : cols, axis ? cols : rows}, vst[2] = {axis ? cols : 1, axis ? 1 : cols};
    nd_rk_geometry(&k, 2, vs, vst, 4, 1, 0);
    nd_rk_partition(&k);
    ck_assert(k.nchunk >= 1 && (k.nchunk - 1) * k.L < (k.g.nred ? k.g.nred : 1) && k.nchunk * k.L >= k.g.nred);
    ck_assert(nd_rk_grid(k.items) >= 1 && nd_rk_grid(k.items) <= NDR_MAX_GRID);
    unsigned char *seen = calloc((size_t)(k.g.nout * k.g.nred) + 1, 1);
    int64_t parts = 0;
    for (int64_t item = 0; item < k.items; item++) {
        int64_t o, kc, jb, je, line, c0;
        if (k.path == NDR_INNER) {
            for (int g = 0; g < (k.G == 32 ? NDR_WARPS : 1); g++) {
                nd_rk_inner_item(&k, item, g, &o, &kc);
                if (o >= k.g.nout) continue;
                nd_rk_chunk(&k, kc, &jb, &je);
                parts++;
                for (int t = 0; t < k.G; t++)
                    for (int64_t j = jb + t; j < je; j += k.G) seen[o * k.g.nred + j]++;
            }
        } else {
            nd_rk_outer_item(&k, item, &kc, &line, &c0);
            for (int tx = 0; tx < 32; tx++) {
                if (c0 + tx >= k.nK) continue;
                o = line * k.nK + c0 + tx;
                nd_rk_chunk(&k, kc, &jb, &je);
                parts++;
                for (int ty = 0; ty < NDR_OROWS; ty++)
                    for (int64_t j = jb + ty; j < je; j += NDR_OROWS) seen[o * k.g.nred + j]++;
            }
        }
    }
    ck_assert_int_eq(parts, k.g.nout * k.nchunk); /* one state per (output, chunk) */
    int64_t bad = 0, first = -1; /* one check at the end: ck_assert per element is slow */
    for (int64_t i = 0; i < k.g.nout * k.g.nred; i++)
        if (seen[i] != 1 && bad++ == 0) first = i;
    ck_assert_msg(bad == 0, "(%lld, %lld) axis %d: %lld elements not seen once, the first %lld seen %d times",
                  (long long)rows, (long long)cols, axis, (long long)bad, (long long)first, first >= 0 ? seen[first] : 1);
    free(seen);
}

START_TEST(partition_covers_every_element_once)
{
    static const int64_t shapes[][2] = {{1, 1},      {1, 31},   {33, 1},      {7, 1025},   {1025, 3}, {3, 1025},
                                        {1, 2600000}, {2, 1000001}, {100000, 3}, {3000, 3000}, {4097, 40}, {5, 8},
                                        {9, 5},      {1, 4097},  {64, 262144}, {0, 4}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int axis = 0; axis < 2; axis++) coverage(shapes[i][0], shapes[i][1], axis);
    /* the partition's choices on a few shapes */
    nd_rk k;
    int64_t s[2] = {16384, 16384}, st[2] = {16384, 1}, stT[2] = {1, 16384};
    nd_rk_geometry(&k, 2, s, st, 4, 1, 0); /* sum over axis 1 */
    nd_rk_partition(&k);
    ck_assert(k.path == NDR_INNER && k.G == NDR_BLOCK && k.nchunk == 1);
    nd_rk_geometry(&k, 2, s, stT, 4, 1, 0); /* sum over axis 0: the view is transposed */
    nd_rk_partition(&k);
    ck_assert(k.path == NDR_OUTER && k.nchunk == 4 && k.cG == 1);
    int64_t all = 256000000, one = 1;
    nd_rk_geometry(&k, 1, &all, &one, 4, 1, 0);
    nd_rk_partition(&k);
    ck_assert(k.path == NDR_INNER && k.nchunk >= NDR_TARGET / 2 && k.nchunk <= NDR_TARGET && k.cG == NDR_BLOCK);
    ck_assert_int_eq(k.L % (4 * NDR_BLOCK), 0);
    int64_t z[2] = {5, 0}, zs[2] = {0, 1};
    nd_rk_geometry(&k, 2, z, zs, 4, 1, 0); /* empty reductions: warps fold nothing */
    nd_rk_partition(&k);
    ck_assert(k.path == NDR_INNER && k.g.nred == 0 && k.nchunk == 1 && k.items == 1);
}
END_TEST

TCase *tcase_gpu_reduce_units(void)
{
    TCase *tc = tcase_create("units");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, sums_accumulate_in_the_shared_type);
    tcase_add_test(tc, max_min_nan_rules_and_int_wrap);
    tcase_add_test(tc, arg_pairs_any_order);
    tcase_add_test(tc, stores_and_scaling);
    tcase_add_test(tc, geometry_addresses_the_view);
    tcase_add_test(tc, geometry_huge_strides_do_not_overflow);
    tcase_add_test(tc, partition_covers_every_element_once);
    return tc;
}
