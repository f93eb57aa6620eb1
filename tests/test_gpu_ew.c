/* The CUDA elementwise kernels (src/cuda/kernels_elementwise.cu and the
 * generated parts).
 *
 * CPU side (always run): the ND_HOSTDEV index logic the kernels use
 * (src/cuda/ew_index.h): 32/64-bit byte offsets against an odometer
 * reference on odd shapes with negative and zero strides, the choice of
 * 32-bit indexing, the split of a flat range into head / aligned vector
 * body / tail for every alignment, the choice of path, and a host emulation
 * of the kernels' grid-stride loops (every element written exactly once,
 * vector accesses aligned, results equal to the CPU backend's).
 *
 * GPU side (only with a GPU): what the elementwise harness
 * (tests/test_elementwise_harness.c: every op x dtype x 22 layouts) lacks:
 * ~3e7-element arrays (multi-block grid-stride loops, vector paths with odd
 * offsets), a strided operand spanning more than 2^31 bytes (64-bit path),
 * views offset by 1..3 elements on every dtype, where on every dtype,
 * the integer power error path, and sentinels after every output. */
#include <stdio.h>

#include "cuda/ew_index.h"
#include "shared/ops_math.h"
#include "test_util.h"
#ifdef ND_WITH_CUDA
#include "cuda/cuda_backend.h"
#endif

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

/* The reference: walk a C-order odometer over k's shape (no division) and
 * compare the byte offsets of every flat index with both implementations. */
static void check_offsets(const nd_kiter *k)
{
    int64_t idx[ND_MAX_DIMS] = {0};
    bool fits = nd_kiter_fits32(k);
    for (int64_t i = 0; i < k->n; i++) {
        int64_t ref[ND_ITER_MAX_OPS], o64[ND_ITER_MAX_OPS];
        int32_t o32[ND_ITER_MAX_OPS];
        for (int o = 0; o < k->nops; o++) {
            ref[o] = 0;
            for (int d = 0; d < k->ndim; d++) ref[o] += idx[d] * k->st[o][d];
        }
        nd_kiter_offsets64_n(k, k->nops, i, o64);
        for (int o = 0; o < k->nops; o++)
            ck_assert_msg(o64[o] == ref[o], "64-bit offset of op %d at %lld: %lld != %lld", o, (long long)i,
                          (long long)o64[o], (long long)ref[o]);
        if (fits) {
            nd_kiter_offsets32_n(k, k->nops, (uint32_t)i, o32);
            for (int o = 0; o < k->nops; o++)
                ck_assert_msg(o32[o] == ref[o], "32-bit offset of op %d at %lld: %d != %lld", o, (long long)i, o32[o],
                              (long long)ref[o]);
        }
        for (int d = k->ndim - 1; d >= 0; d--) { /* odometer step */
            if (++idx[d] < k->shape[d]) break;
            idx[d] = 0;
        }
    }
}

static nd_kiter make_kiter(int ndim, const int64_t *shape, int nops, const int64_t st[][ND_MAX_DIMS])
{
    nd_kiter k;
    memset(&k, 0, sizeof k);
    k.ndim = ndim;
    k.nops = nops;
    k.n = 1;
    for (int d = 0; d < ndim; d++) {
        k.shape[d] = shape[d];
        k.n *= shape[d];
        for (int o = 0; o < nops; o++) k.st[o][d] = st[o][d];
    }
    return k;
}

/* ------------------------------------------------------------------ */
/* CPU: offsets and 32-bit choice                                      */
/* ------------------------------------------------------------------ */
START_TEST(offsets_match_reference_on_odd_shapes)
{
    for (int trial = 0; trial < 300; trial++) {
        int ndim = (int)rnd_in(1, 5), nops = (int)rnd_in(1, ND_ITER_MAX_OPS);
        int64_t shape[ND_MAX_DIMS], st[ND_ITER_MAX_OPS][ND_MAX_DIMS];
        for (int d = 0; d < ndim; d++) {
            shape[d] = rnd_in(1, 7);
            for (int o = 0; o < nops; o++) st[o][d] = rnd() % 4 == 0 ? 0 : rnd_in(-97, 97);
        }
        nd_kiter k = make_kiter(ndim, shape, nops, st);
        ck_assert(nd_kiter_fits32(&k));
        check_offsets(&k);
    }
    /* byte offsets far beyond 32 bits (64-bit path only) */
    const int64_t shape[3] = {7, 5, 3};
    const int64_t st[2][ND_MAX_DIMS] = {{-3000000000LL, 1000000007LL, 8}, {0, -4000000000LL, 2000000000LL}};
    nd_kiter k = make_kiter(3, shape, 2, st);
    ck_assert(!nd_kiter_fits32(&k));
    check_offsets(&k);
}
END_TEST

START_TEST(fits32_boundaries)
{
    const int64_t big = INT32_MAX;
    int64_t shape[2] = {2, 1};
    int64_t st[1][ND_MAX_DIMS] = {{big, 1}};
    nd_kiter k = make_kiter(2, shape, 1, st);
    ck_assert(nd_kiter_fits32(&k)); /* (2-1) * INT32_MAX */
    k.st[0][0] = big + 1;
    ck_assert(!nd_kiter_fits32(&k));
    k.st[0][0] = -big; /* negative strides count by magnitude */
    ck_assert(nd_kiter_fits32(&k));
    k.st[0][0] = -big - 1;
    ck_assert(!nd_kiter_fits32(&k));
    /* two axes that each fit but not together */
    int64_t shape2[2] = {3, 3};
    int64_t st2[1][ND_MAX_DIMS] = {{big / 3, -(big / 3)}}; /* 4 * (big / 3) > big */
    k = make_kiter(2, shape2, 1, st2);
    ck_assert(!nd_kiter_fits32(&k));
    k.st[0][1] = 1;
    ck_assert(nd_kiter_fits32(&k));
    check_offsets(&k);
    /* stride 0 on a huge axis (a broadcast) costs nothing; n itself must fit */
    int64_t shape3[1] = {big};
    int64_t st3[2][ND_MAX_DIMS] = {{1}, {0}};
    k = make_kiter(1, shape3, 2, st3);
    ck_assert(nd_kiter_fits32(&k));
    k.shape[0] = k.n = big + 1;
    ck_assert(!nd_kiter_fits32(&k));
    k.shape[0] = k.n = big + 1;
    k.st[0][0] = 0;
    ck_assert(!nd_kiter_fits32(&k));
}
END_TEST

/* ------------------------------------------------------------------ */
/* CPU: offsets over real iterations (nd__iter_init on views)          */
/* ------------------------------------------------------------------ */
/* Byte offset of multi-index m in a (relative to element 0). */
static int64_t elem_off(const nd_array *a, const int64_t *m)
{
    int64_t off = 0;
    for (int d = 0; d < nd_ndim(a); d++) off += m[d] * nd_strides(a)[d];
    return off * (int64_t)nd__itemsize(nd_dtype_of(a));
}

/* Every flat index of the iteration over ops (all of one shape) maps to a
 * distinct output element, and to the input elements at the same
 * multi-index; both with the 64-bit and (when it fits) 32-bit offsets,
 * walked as the kernels' grid-stride loops with a small grid. */
static void check_iteration(int nops, const nd_array *const *ops)
{
    nd_iter it;
    nd__iter_init(&it, nops, ops);
    nd_kiter k;
    nd_kiter_from_iter(&k, &it);
    const nd_array *o = ops[0];
    int64_t n = nd_size(o), nd = nd_ndim(o);
    ck_assert_int_eq(k.n, n);
    int64_t (*want)[ND_ITER_MAX_OPS] = malloc((size_t)n * sizeof *want);
    int *seen = calloc((size_t)n, sizeof *seen);
    int64_t m[ND_MAX_DIMS] = {0};
    for (int64_t e = 0; e < n; e++) { /* reference: C order over the logical shape */
        for (int q = 0; q < nops; q++) want[e][q] = elem_off(ops[q], m);
        for (int64_t d = nd - 1; d >= 0; d--) {
            if (++m[d] < nd_shape(o)[d]) break;
            m[d] = 0;
        }
    }
    for (int bits = 32; bits <= 64; bits += 32) {
        if (bits == 32 && !nd_kiter_fits32(&k)) continue;
        memset(seen, 0, (size_t)n * sizeof *seen);
        const int64_t grid = 2, nth = grid * ND_EW_BLOCK;
        for (int64_t tid = 0; tid < nth; tid++)
            for (int64_t i = tid; i < n; i += nth) {
                int64_t off[ND_ITER_MAX_OPS];
                if (bits == 32) {
                    int32_t o32[ND_ITER_MAX_OPS];
                    nd_kiter_offsets32_n(&k, nops, (uint32_t)i, o32);
                    for (int q = 0; q < nops; q++) off[q] = o32[q];
                } else {
                    nd_kiter_offsets64_n(&k, nops, i, off);
                }
                int64_t e = 0;
                while (e < n && want[e][0] != off[0]) e++;
                ck_assert_msg(e < n, "output offset %lld is outside the output", (long long)off[0]);
                seen[e]++;
                for (int q = 1; q < nops; q++) ck_assert_int_eq(off[q], want[e][q]);
            }
        for (int64_t e = 0; e < n; e++) ck_assert_msg(seen[e] == 1, "element %lld written %d times", (long long)e, seen[e]);
    }
    free(want);
    free(seen);
}

static nd_array *cpu_arange(nd_dtype t, int ndim, const int64_t *shape)
{
    nd_array *a = NULL, *b = NULL;
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    ND_OK_OR_FAIL(nd_arange(&a, t, 0, (double)n, 1, nd_cpu()));
    ND_OK_OR_FAIL(nd_reshape(&b, a, ndim, shape));
    nd_release(a);
    return b;
}

START_TEST(offsets_over_views_visit_every_element_once)
{
    const int64_t s3[3] = {5, 7, 3}, s2[2] = {7, 5};
    nd_array *o = cpu_arange(ND_FLOAT32, 3, s3), *a = cpu_arange(ND_INT16, 3, s3);
    nd_array *ot = NULL, *ar = NULL, *ab = NULL, *row = cpu_arange(ND_FLOAT64, 1, s3 + 2), *big = cpu_arange(ND_INT8, 2, s2);
    nd_array *bs = NULL, *bt = NULL, *bsl = NULL;
    int perm[3] = {2, 0, 1};
    ND_OK_OR_FAIL(nd_transpose(&ot, o, perm)); /* (3,5,7) with strides (1,21,3) */
    nd_range rev[3] = {{ND_NONE, ND_NONE, -1}, {ND_NONE, ND_NONE, -2}, ND_ALL};
    ND_OK_OR_FAIL(nd_slice(&ar, a, 3, rev)); /* (5,4,3) reversed, step -2 */
    const int64_t bshape[3] = {5, 4, 3};
    ND_OK_OR_FAIL(nd_broadcast_to(&ab, row, 3, bshape)); /* zero strides */
    nd_array *oc = cpu_arange(ND_UINT8, 3, bshape);
    const nd_array *ops1[3] = {oc, ar, ab};
    check_iteration(3, ops1);
    nd_array *a3 = NULL;
    ND_OK_OR_FAIL(nd_transpose(&a3, a, perm));
    const nd_array *ops2[2] = {ot, a3}; /* both transposed the same way: merges */
    check_iteration(2, ops2);
    nd_range sl[2] = {{1, 7, 2}, {ND_NONE, ND_NONE, -1}};
    ND_OK_OR_FAIL(nd_slice(&bsl, big, 2, sl)); /* (3,5), strides (10,-1) */
    ND_OK_OR_FAIL(nd_transpose(&bt, bsl, NULL)); /* (5,3), strides (-1,10) */
    const int64_t s35[2] = {3, 5}, s53[2] = {5, 3};
    bs = cpu_arange(ND_INT64, 2, s35);
    const nd_array *ops3[4] = {bs, bsl, bsl, bsl};
    check_iteration(4, ops3);
    nd_release(bs);
    bs = cpu_arange(ND_INT64, 2, s53);
    const nd_array *ops4[2] = {bs, bt}; /* output contiguous, input transposed with a negative stride */
    check_iteration(2, ops4);
    nd_release(bs);
    nd_release(bt);
    nd_release(bsl);
    nd_release(big);
    nd_release(a3);
    nd_release(oc);
    nd_release(ab);
    nd_release(row);
    nd_release(ar);
    nd_release(ot);
    nd_release(a);
    nd_release(o);
}
END_TEST

/* ------------------------------------------------------------------ */
/* CPU: the flat split and the path                                    */
/* ------------------------------------------------------------------ */
START_TEST(split_covers_every_alignment)
{
    /* (out itemsize, in itemsize) pairs of the kernels: same, bool out */
    const size_t pairs[][2] = {{1, 1}, {2, 2}, {4, 4}, {8, 8}, {1, 2}, {1, 4}, {1, 8}};
    for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        size_t so = pairs[pi][0], si = pairs[pi][1];
        int vec = (int)(16 / si);
        for (int mo = 0; mo < vec; mo++)
            for (int ma = 0; ma < vec; ma++)
                for (int mb = 0; mb < vec; mb++)
                    for (int64_t n = 0; n <= 3 * vec + 3; n++)
                        for (unsigned bcast = 0; bcast < 8; bcast += 2) {
                            char *data[3] = {(char *)(uintptr_t)(4096 + mo * so), (char *)(uintptr_t)(8192 + ma * si),
                                             (char *)(uintptr_t)(65536 + mb * si)};
                            size_t isz[3] = {so, si, si};
                            nd_ew_split s = nd_ew_split_of(n, vec, 3, data, isz, bcast);
                            ck_assert(s.head >= 0 && s.head < vec && s.nvec >= 0);
                            ck_assert_int_eq(s.nrem, n - s.nvec * vec);
                            ck_assert(s.head + s.nvec * vec <= n);
                            bool same = (bcast & 2 || ma == mo) && (bcast & 4 || mb == mo);
                            int64_t head = mo == 0 ? 0 : vec - mo;
                            if (same && n - head >= vec) {
                                ck_assert_int_eq(s.head, head);
                                ck_assert_int_eq(s.nvec, (n - head) / vec);
                            } else {
                                ck_assert_int_eq(s.nvec, 0);
                                ck_assert_int_eq(s.head, 0);
                            }
                            for (int k = 0; k < 3 && s.nvec; k++) /* the body starts aligned */
                                if (!((bcast >> k) & 1))
                                    ck_assert_uint_eq(((uintptr_t)data[k] + (uintptr_t)s.head * isz[k]) % (vec * isz[k]), 0);
                        }
    }
    /* a pointer that is not itemsize-aligned never takes vectors */
    char *data[2] = {(char *)(uintptr_t)4096, (char *)(uintptr_t)8193};
    size_t isz[2] = {4, 4};
    ck_assert_int_eq(nd_ew_split_of(1000, 4, 2, data, isz, 0).nvec, 0);
}
END_TEST

static nd_iter fake_iter(int nops, int ndim, const int64_t *shape, const int64_t st[][ND_MAX_DIMS], const size_t *isz)
{
    nd_iter it;
    memset(&it, 0, sizeof it);
    it.nops = nops;
    it.ndim = ndim;
    it.size = 1;
    for (int d = 0; d < ndim; d++) {
        it.shape[d] = shape[d];
        it.size *= shape[d];
    }
    for (int k = 0; k < nops; k++) {
        it.itemsize[k] = isz[k];
        it.data[k] = (char *)(uintptr_t)((1u << 20) * (unsigned)(k + 1));
        for (int d = 0; d < ndim; d++) it.strides[k][d] = st[k][d];
    }
    return it;
}

START_TEST(path_choice)
{
    nd_ew_plan p;
    const size_t isz[3] = {4, 4, 4};
    int64_t n1[1] = {1000};
    int64_t flat[3][ND_MAX_DIMS] = {{4}, {4}, {4}};
    nd_iter it = fake_iter(3, 1, n1, flat, isz);
    nd_ew_plan_of(&p, &it, 4, ND_EW_MAX_GRID);
    ck_assert_int_eq(p.path, ND_EW_FLAT);
    ck_assert_uint_eq(p.bcast, 0);
    ck_assert_int_eq(p.sp.nvec, 250);
    ck_assert_uint_eq(p.grid, 1);
    int64_t bc[3][ND_MAX_DIMS] = {{4}, {4}, {0}}; /* a broadcast scalar */
    it = fake_iter(3, 1, n1, bc, isz);
    nd_ew_plan_of(&p, &it, 4, ND_EW_MAX_GRID);
    ck_assert_int_eq(p.path, ND_EW_FLAT);
    ck_assert_uint_eq(p.bcast, 4u);
    int64_t neg[3][ND_MAX_DIMS] = {{4}, {-4}, {4}}; /* reversed input */
    it = fake_iter(3, 1, n1, neg, isz);
    nd_ew_plan_of(&p, &it, 4, ND_EW_MAX_GRID);
    ck_assert_int_eq(p.path, ND_EW_S32);
    int64_t outbc[3][ND_MAX_DIMS] = {{0}, {4}, {4}}; /* never flat on a stride-0 output */
    it = fake_iter(3, 1, n1, outbc, isz);
    nd_ew_plan_of(&p, &it, 4, ND_EW_MAX_GRID);
    ck_assert_int_eq(p.path, ND_EW_S32);
    int64_t s2[2] = {1000, 3};
    int64_t tr[3][ND_MAX_DIMS] = {{12, 4}, {4, 4000}, {0, 4}};
    it = fake_iter(3, 2, s2, tr, isz);
    nd_ew_plan_of(&p, &it, 4, ND_EW_MAX_GRID);
    ck_assert_int_eq(p.path, ND_EW_S32);
    ck_assert_int_eq(p.work, 3000);
    ck_assert_uint_eq(p.grid, 12);
    int64_t huge[3][ND_MAX_DIMS] = {{12, 4}, {4, 1LL << 30}, {0, 4}}; /* input spans 2^31 bytes */
    it = fake_iter(3, 2, s2, huge, isz);
    nd_ew_plan_of(&p, &it, 4, ND_EW_MAX_GRID);
    ck_assert_int_eq(p.path, ND_EW_S64);
    int64_t nbig[1] = {3000000000LL}; /* flat with n > 2^31: the flat path has 64-bit indices */
    it = fake_iter(3, 1, nbig, flat, isz);
    nd_ew_plan_of(&p, &it, 4, ND_EW_MAX_GRID);
    ck_assert_int_eq(p.path, ND_EW_FLAT);
    ck_assert_uint_eq(p.grid, ND_EW_MAX_GRID);
    ck_assert_int_eq(p.work, 750000000LL);
    /* the vector width is 16 bytes of the widest operand */
    const size_t isz2[2] = {1, 8};
    it = fake_iter(2, 1, n1, flat, isz2);
    ck_assert_int_eq(nd_ew_vec_width(&it), 2);
}
END_TEST

/* ------------------------------------------------------------------ */
/* CPU: host emulation of the kernels' loops                          */
/* ------------------------------------------------------------------ */
typedef void (*emu_elem)(char *o, const char *a, const char *b);
static void emu_add_f32(char *o, const char *a, const char *b)
{
    float x, y, r;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    r = nd_op_add_f32(x, y);
    memcpy(o, &r, 4);
}
static void emu_less_f64(char *o, const char *a, const char *b)
{
    double x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    *(uint8_t *)o = ND_ST_BOOL(nd_op_less_f64(x, y));
}
static void emu_mul_f16(char *o, const char *a, const char *b)
{
    uint16_t x, y, r;
    memcpy(&x, a, 2);
    memcpy(&y, b, 2);
    r = ND_ST_F16(nd_op_multiply_f32(ND_LD_F16(x), ND_LD_F16(y)));
    memcpy(o, &r, 2);
}

/* Run one binary "kernel" on the host exactly as nd_ew_kernel walks it
 * (grid blocks of ND_EW_BLOCK threads), counting writes per output
 * element and checking that every vector access is aligned. */
static void emulate(const nd_ew_args *a, const size_t *isz, unsigned grid, emu_elem f, int *writes, char *obase)
{
    const nd_ew_plan *p = &a->plan;
    const int64_t nth = (int64_t)grid * ND_EW_BLOCK;
    const int N = p->vec;
    for (int64_t tid = 0; tid < nth; tid++) {
        if (p->path == ND_EW_FLAT) /* the vector body */
            for (int64_t v = tid; v < p->sp.nvec; v += nth) {
                int64_t i = nd_ew_vec_start(&p->sp, N, v);
                for (int k = 0; k < 3; k++)
                    if (!((p->bcast >> k) & 1))
                        ck_assert_uint_eq((uintptr_t)(a->data[k] + i * (int64_t)isz[k]) % ((uintptr_t)N * isz[k]), 0);
                for (int e = 0; e < N; e++) {
                    char *o = a->data[0] + (i + e) * (int64_t)isz[0];
                    f(o, a->data[1] + ((p->bcast & 2) ? 0 : (i + e) * (int64_t)isz[1]),
                      a->data[2] + ((p->bcast & 4) ? 0 : (i + e) * (int64_t)isz[2]));
                    writes[(o - obase) / (int64_t)isz[0]]++;
                }
            }
        /* element by element: flat head and tail, or the strided iteration */
        const int64_t count = p->path == ND_EW_FLAT ? p->sp.nrem : a->it.n;
        for (int64_t j = tid; j < count; j += nth) {
            int64_t off[3];
            if (p->path == ND_EW_FLAT) {
                int64_t i = nd_ew_rem_index(&p->sp, N, j);
                for (int k = 0; k < 3; k++) off[k] = ((p->bcast >> k) & 1) ? 0 : i * (int64_t)isz[k];
            } else if (p->path == ND_EW_S32) {
                int32_t o32[3];
                nd_kiter_offsets32_n(&a->it, 3, (uint32_t)j, o32);
                for (int k = 0; k < 3; k++) off[k] = o32[k];
            } else {
                nd_kiter_offsets64_n(&a->it, 3, j, off);
            }
            f(a->data[0] + off[0], a->data[1] + off[1], a->data[2] + off[2]);
            writes[(a->data[0] + off[0] - obase) / (int64_t)isz[0]]++;
        }
    }
}

/* o = op(a[sa:], b[sb:]) with out offset so, on CPU arrays; the emulated
 * kernel against the CPU backend, bit for bit, for several grids. */
static void emulate_case(nd_binary_op op, nd_dtype t, int64_t n, int so, int sa, int sb, bool bcast_b, bool strided,
                         emu_elem f)
{
    nd_dtype rt = op == ND_BINARY_LESS ? ND_BOOL : t;
    int64_t len = 2 * n + 8;
    nd_array *ba = cpu_arange(t, 1, &len), *bb = NULL, *bo = NULL;
    ND_OK_OR_FAIL(nd_empty(&bo, rt, 1, &len, nd_cpu()));
    nd_array *va = NULL, *vb = NULL, *vo = NULL, *ref = NULL;
    ND_OK_OR_FAIL(nd_binary_scalar(&bb, ND_BINARY_MULTIPLY, ba, nd_scalar_float(-0.75)));
    nd_array *tmp = NULL;
    ND_OK_OR_FAIL(nd_astype(&tmp, bb, t));
    nd_release(bb);
    bb = tmp;
    int64_t step = strided ? 2 : 1;
    nd_range ra = {sa, sa + n * step, step}, rb = {sb, bcast_b ? sb + 1 : sb + n, 1}, ro = {so, so + n, 1};
    ND_OK_OR_FAIL(nd_slice(&va, ba, 1, &ra));
    ND_OK_OR_FAIL(nd_slice(&vb, bb, 1, &rb));
    ND_OK_OR_FAIL(nd_slice(&vo, bo, 1, &ro));
    if (bcast_b) {
        nd_array *x = NULL;
        ND_OK_OR_FAIL(nd_broadcast_to(&x, vb, 1, &n));
        nd_release(vb);
        vb = x;
    }
    ND_OK_OR_FAIL(nd_binary(&ref, op, va, vb));
    const nd_array *ops[3] = {vo, va, vb};
    nd_iter it;
    nd__iter_init(&it, 3, ops);
    nd_ew_args args;
    nd_ew_args_of(&args, &it, nd_ew_vec_width(&it));
    ck_assert_int_eq(args.plan.path, (strided && n > 1) ? ND_EW_S32 : ND_EW_FLAT); /* one element is always flat */
    const size_t isz[3] = {nd__itemsize(rt), nd__itemsize(t), nd__itemsize(t)};
    int *writes = malloc((size_t)len * sizeof *writes);
    unsigned grids[3] = {1, 2, args.plan.grid};
    for (int g = 0; g < 3; g++) {
        memset(writes, 0, (size_t)len * sizeof *writes);
        memset(nd_data(bo), 0xA5, (size_t)len * isz[0]);
        emulate(&args, isz, grids[g], f, writes, nd_data(bo));
        for (int64_t e = 0; e < len; e++)
            ck_assert_msg(writes[e] == (e >= so && e < so + n ? 1 : 0), "element %lld written %d times (grid %u)",
                          (long long)e, writes[e], grids[g]);
        ck_assert(memcmp((char *)nd_data(bo) + so * isz[0], nd_data(ref), (size_t)n * isz[0]) == 0);
    }
    free(writes);
    nd_release(ref);
    nd_release(vo);
    nd_release(vb);
    nd_release(va);
    nd_release(bo);
    nd_release(bb);
    nd_release(ba);
}

START_TEST(grid_stride_emulation_writes_each_element_once)
{
    const int64_t ns[] = {1, 3, 15, 16, 17, 255, 256, 257, 1000, 4099};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int off = 0; off < 4; off++) {
            emulate_case(ND_BINARY_ADD, ND_FLOAT32, ns[i], off, off, off, false, false, emu_add_f32);
            emulate_case(ND_BINARY_ADD, ND_FLOAT32, ns[i], off, off + 1, off, false, false, emu_add_f32);
            emulate_case(ND_BINARY_ADD, ND_FLOAT32, ns[i], off, off, 0, true, false, emu_add_f32);
            emulate_case(ND_BINARY_LESS, ND_FLOAT64, ns[i], 2 * off, off, off, false, false, emu_less_f64);
            emulate_case(ND_BINARY_MULTIPLY, ND_FLOAT16, ns[i], off, off, off + 4, false, false, emu_mul_f16);
            emulate_case(ND_BINARY_MULTIPLY, ND_FLOAT16, ns[i], off, off, off, false, true, emu_mul_f16);
        }
}
END_TEST

#ifdef ND_WITH_CUDA
/* The CUDA elementwise kernels are exactly the CPU's (tests/test_coverage.c
 * checks the inclusion for every kernel kind; here equality). */
START_TEST(cuda_ew_kernels_are_exactly_the_cpus)
{
    const nd_backend *cpu = nd__backend(nd_cpu());
    int n = 0;
    for (int t = -1; t <= ND_NUM_DTYPES; t++) {
        for (int op = -1; op <= ND_NUM_UNARY_OPS; op++, n++)
            ck_assert_msg(cpu->supports(ND_KERNEL_UNARY, op, (nd_dtype)t) ==
                              nd__cuda_ew_supports(ND_KERNEL_UNARY, op, (nd_dtype)t),
                          "unary op %d dtype %d", op, t);
        for (int op = -1; op <= ND_NUM_BINARY_OPS; op++, n++)
            ck_assert_msg(cpu->supports(ND_KERNEL_BINARY, op, (nd_dtype)t) ==
                              nd__cuda_ew_supports(ND_KERNEL_BINARY, op, (nd_dtype)t),
                          "binary op %d dtype %d", op, t);
        for (int op = -1; op <= 1; op++)
            ck_assert_msg(cpu->supports(ND_KERNEL_WHERE, op, (nd_dtype)t) ==
                              nd__cuda_ew_supports(ND_KERNEL_WHERE, op, (nd_dtype)t),
                          "where op %d dtype %d", op, t);
    }
    ck_assert(!nd__cuda_ew_supports(ND_KERNEL_REDUCE, 0, ND_FLOAT32));
    ck_assert(n > 1000);
}
END_TEST
#endif

/* tests/test_gpu_ew_device.c: the GPU tests (none without a GPU) */
void gpu_ew_add_device_tests(Suite *s);

Suite *suite_gpu_ew(void)
{
    Suite *s = suite_create("gpu_ew");
    TCase *tc = tcase_create("index");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, offsets_match_reference_on_odd_shapes);
    tcase_add_test(tc, fits32_boundaries);
    tcase_add_test(tc, offsets_over_views_visit_every_element_once);
    tcase_add_test(tc, split_covers_every_alignment);
    tcase_add_test(tc, path_choice);
    tcase_add_test(tc, grid_stride_emulation_writes_each_element_once);
#ifdef ND_WITH_CUDA
    tcase_add_test(tc, cuda_ew_kernels_are_exactly_the_cpus);
#endif
    suite_add_tcase(s, tc);
    gpu_ew_add_device_tests(s);
    return s;
}
