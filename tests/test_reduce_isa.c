/* max/min/argmax/argmin on every CPU path (src/cpu/reduce_minmax.c).
 *
 * The path is fixed at load, so the loops of each path this CPU has are
 * called directly here (nd__rk_minmax_ops), in one process, against a
 * plain scalar reference: the index of the first NaN, else of the first
 * extreme; max/min must return that very element (its bits: NaN payload,
 * sign of a zero). Lengths around every vector width, 4-vector step and
 * argmax block; NaN first, last, in the middle and in the scalar tail;
 * ties, signed zeros, infinities, all-NaN, sorted data; misaligned
 * starts. The rows loops likewise (one row a pass and four, row_acc4),
 * with their combiner. Through the public API (on the path in use; `make
 * test-isa` reruns the reduce suite on each lower one): max is bitwise
 * the element argmax picks, for every float dtype, C-contiguous and
 * transposed, both axes, across work units and for any thread count. */
#include "cpu/isa.h"
#include "cpu/reduce.h"
#include "test_reduce.h"

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}

/* ------------------------------------------------------------------ */
/* Data and the reference, per accumulator type                        */
/* ------------------------------------------------------------------ */
enum { NPAT = 11 };

static float nan_f32(uint32_t payload, int neg)
{
    uint32_t b = 0x7fc00000u | (payload & 0x3fffffu) | (neg ? 0x80000000u : 0);
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static double nan_f64(uint64_t payload, int neg)
{
    uint64_t b = 0x7ff8000000000000ull | (payload & 0x7ffffffffffffull) | (neg ? 0x8000000000000000ull : 0);
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* Pattern pat of n values, as doubles (floats) or uint64 bits (ints). */
static double fpat(int pat, int64_t i, int64_t n, uint64_t *s)
{
    static const double ties[6] = {-2, -1, -0.0, 0.0, 1, 2};
    static const double npos[4] = {-3, -1, -0.0, 0.0}, nneg[4] = {0.0, -0.0, 1, 3};
    uint64_t r = lcg(s);
    switch (pat) {
    case 0: return (double)(int64_t)(r % 16001) / 8.0 - 1000.0; /* random, some ties */
    case 1: return ties[r % 6];
    case 2: return (r & 1) ? -0.0 : 0.0;
    case 3: return npos[r % 4]; /* max is a zero */
    case 4: return nneg[r % 4]; /* min is a zero */
    case 5: return (double)i;
    case 6: return (double)(n - i);
    case 7: return r % 7 == 0 ? ((r >> 8) & 1 ? INFINITY : -INFINITY) : (double)(r % 100) - 50;
    case 8: return -INFINITY;
    case 9: return INFINITY;
    default: return (double)(r % 3) - 1; /* 10: heavy ties */
    }
}

#define TEST_FLOAT_TYPE(ck, T, NANF)                                                                \
    static void fill_##ck(T *p, int64_t n, int pat, uint64_t seed)                                  \
    {                                                                                               \
        uint64_t s = seed;                                                                          \
        for (int64_t i = 0; i < n; i++) p[i] = (T)fpat(pat, i, n, &s);                              \
    }                                                                                               \
    static int64_t ref_##ck(const T *p, int64_t n, int is_max)                                      \
    {                                                                                               \
        for (int64_t i = 0; i < n; i++)                                                             \
            if (isnan(p[i])) return i;                                                              \
        int64_t b = 0;                                                                              \
        for (int64_t i = 1; i < n; i++)                                                             \
            if (is_max ? p[i] > p[b] : p[i] < p[b]) b = i;                                          \
        return b;                                                                                   \
    }                                                                                               \
    static T mknan_##ck(uint64_t payload) { return NANF(payload + 1, (int)(payload & 1)); }
TEST_FLOAT_TYPE(f32, float, nan_f32)
TEST_FLOAT_TYPE(f64, double, nan_f64)

#define TEST_INT_TYPE(ck, T, LO, HI)                                                                \
    static void fill_##ck(T *p, int64_t n, int pat, uint64_t seed)                                  \
    {                                                                                               \
        uint64_t s = seed;                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                           \
            uint64_t r = lcg(&s) * 0x9e3779b97f4a7c15ull;                                           \
            switch (pat % 5) {                                                                      \
            case 0: p[i] = (T)r; break;                                                             \
            case 1: p[i] = (T)(r % 3); break;                                                       \
            case 2: p[i] = (T)i; break;                                                             \
            case 3: p[i] = (T)(n - i); break;                                                       \
            default: p[i] = r % 5 == 0 ? (T)LO : r % 5 == 1 ? (T)HI : (T)(r % 1000); break;         \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
    static int64_t ref_##ck(const T *p, int64_t n, int is_max)                                      \
    {                                                                                               \
        int64_t b = 0;                                                                              \
        for (int64_t i = 1; i < n; i++)                                                             \
            if (is_max ? p[i] > p[b] : p[i] < p[b]) b = i;                                          \
        return b;                                                                                   \
    }
TEST_INT_TYPE(i64, int64_t, INT64_MIN, INT64_MAX)
TEST_INT_TYPE(u64, uint64_t, 0, UINT64_MAX)

/* ------------------------------------------------------------------ */
/* Leaves                                                              */
/* ------------------------------------------------------------------ */
static const int64_t LENS[] = {1,   2,   3,   4,   5,   7,   8,   9,   12,  15,  16,  17,  23,  31,  32,  33,
                               47,  63,  64,  65,  79,  80,  81,  127, 128, 129, 255, 256, 257, 511, 512, 513,
                               527, 1023, 1024, 1025, 1100, 1536, 2047, 4099};
#define NLENS ((int)(sizeof LENS / sizeof LENS[0]))
#define MAXN 4100

typedef struct {
    nd_cpu_isa isa;
    nd_racc acc;
    int64_t n, off;
    int pat, nanpos;
} leaf_case;

static void describe(char *buf, size_t sz, const leaf_case *c, nd_rcls cls)
{
    snprintf(buf, sz, "%s acc %d cls %d n %lld off %lld pattern %d NaN at %d", nd__cpu_isa_name(c->isa), (int)c->acc,
             (int)cls, (long long)c->n, (long long)c->off, c->pat, c->nanpos);
}

/* One leaf call of each class on p[0, n) against the reference. */
#define CHECK_LEAVES(ck, T, FLD)                                                                    \
    static void check_leaves_##ck(const leaf_case *c, const T *p)                                   \
    {                                                                                               \
        for (nd_rcls cls = ND_RCLS_MAX; cls <= ND_RCLS_ARGMIN; cls++) {                             \
            const rk_ops *ops = nd__rk_minmax_ops(c->isa, cls, c->acc);                             \
            ck_assert_ptr_nonnull(ops);                                                             \
            const int is_max = cls == ND_RCLS_MAX || cls == ND_RCLS_ARGMAX;                         \
            const int64_t want = ref_##ck(p, c->n, is_max);                                         \
            rk_val zero;                                                                            \
            memset(&zero, 0, sizeof zero);                                                          \
            rk_part got = ops->leaf(p, c->n, 1000, zero);                                           \
            char what[160];                                                                         \
            if ((cls == ND_RCLS_ARGMAX || cls == ND_RCLS_ARGMIN) && got.idx != 1000 + want) {       \
                describe(what, sizeof what, c, cls);                                                \
                ck_abort_msg("%s: index %lld, want %lld", what, (long long)(got.idx - 1000), (long long)want); \
            }                                                                                       \
            if (memcmp(&got.v.FLD, &p[want], sizeof(T)) != 0) {                                     \
                describe(what, sizeof what, c, cls);                                                \
                ck_abort_msg("%s: value %.17g is not element %lld (%.17g)", what, (double)got.v.FLD, \
                             (long long)want, (double)p[want]);                                     \
            }                                                                                       \
        }                                                                                           \
    }
CHECK_LEAVES(f32, float, f)
CHECK_LEAVES(f64, double, d)
CHECK_LEAVES(i64, int64_t, i)
CHECK_LEAVES(u64, uint64_t, u)

/* NaN positions for length n: the ends, around every vector width and
 * 4-vector step, the middle, the argmax blocks' edges, the scalar tails. */
static int nan_positions(int64_t n, int64_t *pos)
{
    static const int64_t fixed[] = {0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 63, 64, 65, 127, 511, 512, 513};
    int k = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (fixed[i] < n) pos[k++] = fixed[i];
    const int64_t ends[] = {n / 2, n - 1, n - 2, n - n % 4, n - n % 8, n - n % 16, n - n % 64 - 1};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        if (ends[i] >= 0 && ends[i] < n) pos[k++] = ends[i];
    return k;
}

#define RUN_FLOAT_LEAVES(ck, T)                                                                     \
    static void run_leaves_##ck(nd_cpu_isa isa, nd_racc acc)                                        \
    {                                                                                               \
        T *buf = malloc(sizeof(T) * (MAXN + 1));                                                    \
        for (int li = 0; li < NLENS; li++)                                                          \
            for (int64_t off = 0; off < 2; off++) {                                                 \
                leaf_case c = {isa, acc, LENS[li], off, 0, -1};                                     \
                T *p = buf + off;                                                                   \
                for (c.pat = 0; c.pat < NPAT; c.pat++) {                                            \
                    c.nanpos = -1;                                                                  \
                    fill_##ck(p, c.n, c.pat, (uint64_t)(li * 131 + c.pat));                         \
                    check_leaves_##ck(&c, p);                                                       \
                }                                                                                   \
                /* one NaN, then two (the first must win), on random and tie data */                \
                int64_t pos[32];                                                                    \
                int np = nan_positions(c.n, pos);                                                   \
                for (int k = 0; k < np; k++)                                                        \
                    for (c.pat = 0; c.pat < 3; c.pat += 2) {                                        \
                        fill_##ck(p, c.n, c.pat, (uint64_t)(li * 7 + k));                           \
                        c.nanpos = (int)pos[k];                                                     \
                        p[pos[k]] = mknan_##ck((uint64_t)k);                                        \
                        check_leaves_##ck(&c, p);                                                   \
                        for (int64_t j = pos[k] + 1; j < c.n; j += 5) p[j] = mknan_##ck((uint64_t)(k + j + 1)); \
                        check_leaves_##ck(&c, p);                                                   \
                    }                                                                               \
                /* all NaN, each its own payload */                                                 \
                for (int64_t j = 0; j < c.n; j++) p[j] = mknan_##ck((uint64_t)j);                   \
                c.nanpos = 0;                                                                       \
                check_leaves_##ck(&c, p);                                                           \
            }                                                                                       \
        free(buf);                                                                                  \
    }
RUN_FLOAT_LEAVES(f32, float)
RUN_FLOAT_LEAVES(f64, double)

#define RUN_INT_LEAVES(ck, T)                                                                       \
    static void run_leaves_##ck(nd_cpu_isa isa, nd_racc acc)                                        \
    {                                                                                               \
        T *buf = malloc(sizeof(T) * (MAXN + 1));                                                    \
        for (int li = 0; li < NLENS; li++)                                                          \
            for (int64_t off = 0; off < 2; off++)                                                   \
                for (int pat = 0; pat < 5; pat++) {                                                 \
                    leaf_case c = {isa, acc, LENS[li], off, pat, -1};                               \
                    fill_##ck(buf + off, c.n, pat, (uint64_t)(li * 17 + pat));                      \
                    check_leaves_##ck(&c, buf + off);                                               \
                }                                                                                   \
        free(buf);                                                                                  \
    }
RUN_INT_LEAVES(i64, int64_t)
RUN_INT_LEAVES(u64, uint64_t)

START_TEST(test_isa_leaves)
{
    for (int isa = ND_ISA_BASELINE; isa <= (int)nd__cpu_isa_detected(); isa++) {
        run_leaves_f32((nd_cpu_isa)isa, ND_RACC_F32);
        run_leaves_f64((nd_cpu_isa)isa, ND_RACC_F64);
        run_leaves_i64((nd_cpu_isa)isa, ND_RACC_I64);
        run_leaves_u64((nd_cpu_isa)isa, ND_RACC_U64);
    }
    /* only the classes of this file */
    ck_assert_ptr_null(nd__rk_minmax_ops(ND_ISA_BASELINE, ND_RCLS_SUM, ND_RACC_F32));
    ck_assert_ptr_null(nd__rk_minmax_ops(ND_ISA_N, ND_RCLS_MAX, ND_RACC_F32));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Rows loops                                                          */
/* ------------------------------------------------------------------ */
enum { RROWS = 19, RW = 70 };

/* acc/idx of rows [r0, r1) of the R x w matrix m (row stride RW) */
#define ROWS_RUN(ck, T)                                                                             \
    static void rows_run_##ck(const rk_ops *ops, const T *m, int64_t w, int64_t r0, int64_t r1, T *acc, int64_t *idx, \
                              int use4)                                                             \
    {                                                                                               \
        ops->row_first(acc, idx, m + r0 * RW, w, r0, NULL);                                         \
        int64_t r = r0 + 1;                                                                         \
        for (; use4 && r + 4 <= r1; r += 4) {                                                       \
            const void *q[4] = {m + r * RW, m + (r + 1) * RW, m + (r + 2) * RW, m + (r + 3) * RW};  \
            ops->row_acc4(acc, idx, q, w, r);                                                       \
        }                                                                                           \
        for (; r < r1; r++) ops->row_acc(acc, idx, m + r * RW, w, r, NULL);                         \
    }                                                                                               \
    static void check_rows_##ck(nd_cpu_isa isa, nd_racc acc, const T *m, int64_t w, int64_t R, int pat) \
    {                                                                                               \
        T a[RW], a2[RW], col[RROWS];                                                                \
        int64_t ix[RW], ix2[RW];                                                                    \
        for (nd_rcls cls = ND_RCLS_MAX; cls <= ND_RCLS_ARGMIN; cls++) {                             \
            const rk_ops *ops = nd__rk_minmax_ops(isa, cls, acc);                                   \
            const int is_arg = cls == ND_RCLS_ARGMAX || cls == ND_RCLS_ARGMIN;                      \
            const int is_max = cls == ND_RCLS_MAX || cls == ND_RCLS_ARGMAX;                         \
            ck_assert_ptr_nonnull(ops->row_acc4);                                                   \
            for (int64_t h = 0; h < 2 * R; h += R / 3 + 1) { /* h % R > 0: rows [h, R) combined in */ \
                const int use4 = h >= R; /* then four rows a pass */                                \
                const int64_t hh = h % R;                                                           \
                rows_run_##ck(ops, m, w, 0, hh ? hh : R, a, is_arg ? ix : NULL, use4);              \
                if (hh) {                                                                           \
                    rows_run_##ck(ops, m, w, hh, R, a2, is_arg ? ix2 : NULL, use4);                 \
                    ops->row_comb(a, is_arg ? ix : NULL, a2, is_arg ? ix2 : NULL, w);               \
                }                                                                                   \
                for (int64_t j = 0; j < w; j++) {                                                   \
                    for (int64_t r = 0; r < R; r++) col[r] = m[r * RW + j];                         \
                    int64_t want = ref_##ck(col, R, is_max);                                        \
                    ck_assert_msg(!is_arg || ix[j] == want, "%s acc %d cls %d rows %lld w %lld split %lld pattern %d " \
                                  "column %lld: index %lld, want %lld", nd__cpu_isa_name(isa), (int)acc, (int)cls, \
                                  (long long)R, (long long)w, (long long)h, pat, (long long)j, (long long)ix[j], \
                                  (long long)want);                                                 \
                    ck_assert_msg(memcmp(&a[j], &col[want], sizeof(T)) == 0,                        \
                                  "%s acc %d cls %d rows %lld w %lld split %lld pattern %d column %lld: value " \
                                  "%.17g, want element %lld (%.17g)", nd__cpu_isa_name(isa), (int)acc, (int)cls, \
                                  (long long)R, (long long)w, (long long)h, pat, (long long)j, (double)a[j], \
                                  (long long)want, (double)col[want]);                              \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
    }                                                                                               \
    static void run_rows_##ck(nd_cpu_isa isa, nd_racc acc, int is_float)                            \
    {                                                                                               \
        static const int64_t ws[] = {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 70};              \
        static const int64_t rs[] = {1, 2, 5, 17, 19};                                              \
        T *m = malloc(sizeof(T) * RROWS * RW);                                                      \
        for (size_t wi = 0; wi < sizeof ws / sizeof ws[0]; wi++)                                    \
            for (size_t ri = 0; ri < sizeof rs / sizeof rs[0]; ri++)                                \
                for (int pat = 0; pat < (is_float ? NPAT + 2 : 5); pat++) {                         \
                    fill_##ck(m, RROWS * RW, pat < NPAT ? pat : 1, (uint64_t)(wi * 31 + ri * 7 + (size_t)pat)); \
                    if (pat >= NPAT) { /* NaNs (payloads differ) in some columns, some rows */      \
                        uint64_t s = (uint64_t)pat;                                                 \
                        for (int k = 0; k < RROWS * RW / 9; k++) {                                  \
                            int64_t e = (int64_t)(lcg(&s) % (RROWS * RW));                          \
                            m[e] = is_float ? fnan_##ck((uint64_t)k) : m[e];                        \
                        }                                                                           \
                    }                                                                               \
                    check_rows_##ck(isa, acc, m, ws[wi], rs[ri], pat);                              \
                }                                                                                   \
        free(m);                                                                                    \
    }
/* NaN makers usable in the generic body (ints never call theirs) */
static float fnan_f32(uint64_t k) { return mknan_f32(k); }
static double fnan_f64(uint64_t k) { return mknan_f64(k); }
static int64_t fnan_i64(uint64_t k) { return (int64_t)k; }
static uint64_t fnan_u64(uint64_t k) { return k; }
ROWS_RUN(f32, float)
ROWS_RUN(f64, double)
ROWS_RUN(i64, int64_t)
ROWS_RUN(u64, uint64_t)

START_TEST(test_isa_rows)
{
    for (int isa = ND_ISA_BASELINE; isa <= (int)nd__cpu_isa_detected(); isa++) {
        run_rows_f32((nd_cpu_isa)isa, ND_RACC_F32, 1);
        run_rows_f64((nd_cpu_isa)isa, ND_RACC_F64, 1);
        run_rows_i64((nd_cpu_isa)isa, ND_RACC_I64, 0);
        run_rows_u64((nd_cpu_isa)isa, ND_RACC_U64, 0);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Through the API: max is the element argmax picks                    */
/* ------------------------------------------------------------------ */
/* Element codes: 0..5 the values below, 6 + k a NaN with payload k. */
static const double CODEV[6] = {-2, -1, -0.0, 0.0, 1, 2};

static void put_code(void *base, nd_dtype t, int64_t i, int code)
{
    static const uint16_t h16[6] = {0xC000, 0xBC00, 0x8000, 0x0000, 0x3C00, 0x4000};
    static const uint16_t b16[6] = {0xC000, 0xBF80, 0x8000, 0x0000, 0x3F80, 0x4000};
    unsigned k = code >= 6 ? (unsigned)(code - 6) : 0;
    switch (t) {
    case ND_FLOAT32: ((float *)base)[i] = code < 6 ? (float)CODEV[code] : nan_f32(k + 1, (int)(k & 1)); break;
    case ND_FLOAT64: ((double *)base)[i] = code < 6 ? CODEV[code] : nan_f64(k + 1, (int)(k & 1)); break;
    case ND_FLOAT16: ((uint16_t *)base)[i] = code < 6 ? h16[code] : (uint16_t)(0x7E00u | ((k + 1) & 0x1ffu) | (k & 1 ? 0x8000u : 0)); break;
    default: ((uint16_t *)base)[i] = code < 6 ? b16[code] : (uint16_t)(0x7FC0u | ((k + 1) & 0x3fu) | (k & 1 ? 0x8000u : 0)); break;
    }
}

/* the reference over codes c[k * stride], k < n */
static int64_t ref_codes(const int *c, int64_t n, int64_t stride, int is_max)
{
    for (int64_t k = 0; k < n; k++)
        if (c[k * stride] >= 6) return k;
    int64_t b = 0;
    for (int64_t k = 1; k < n; k++) {
        double x = CODEV[c[k * stride]], y = CODEV[c[b * stride]];
        if (is_max ? x > y : x < y) b = k;
    }
    return b;
}

static bool is_nan_bits(const void *p, nd_dtype t)
{
    switch (t) {
    case ND_FLOAT32: return isnan(*(const float *)p);
    case ND_FLOAT64: return isnan(*(const double *)p);
    case ND_FLOAT16: return ((*(const uint16_t *)p) & 0x7c00) == 0x7c00 && ((*(const uint16_t *)p) & 0x3ff);
    default: return ((*(const uint16_t *)p) & 0x7f80) == 0x7f80 && ((*(const uint16_t *)p) & 0x7f);
    }
}

static int gen_code(int pat, uint64_t *s)
{
    static const int npos[4] = {0, 1, 2, 3}, zeros[2] = {2, 3};
    uint64_t r = lcg(s);
    switch (pat) {
    case 0: return zeros[r % 2];
    case 1: return (int)(r % 6);
    case 2: return r % 61 == 0 ? 6 + (int)((r >> 8) % 200) : (int)(r % 6);
    default: return npos[r % 4];
    }
}

/* Check output o of op (values: dtype t; arg: int64) against the element
 * at logical index want (src: that element). float16/bfloat16 NaNs go
 * through float32 and back: NaN-ness only. */
static void check_out(nd_reduce_op op, nd_dtype t, const char *out, int64_t o, const char *src, int64_t want,
                      int64_t want_flat, const char *what)
{
    size_t sz = nd_dtype_size(t);
    if (op == ND_REDUCE_ARGMAX || op == ND_REDUCE_ARGMIN) {
        int64_t got;
        memcpy(&got, out + (size_t)o * 8, 8);
        ck_assert_msg(got == want, "%s output %lld: index %lld, want %lld", what, (long long)o, (long long)got,
                      (long long)want);
        return;
    }
    const char *g = out + (size_t)o * sz, *w = src + (size_t)want_flat * sz;
    bool ok = memcmp(g, w, sz) == 0 || (sz == 2 && is_nan_bits(g, t) && is_nan_bits(w, t));
    ck_assert_msg(ok, "%s output %lld: not the bits of element %lld", what, (long long)o, (long long)want);
}

START_TEST(test_isa_api_rule)
{
    static const nd_dtype dts[4] = {ND_FLOAT32, ND_FLOAT64, ND_FLOAT16, ND_BFLOAT16};
    static const nd_reduce_op ops[4] = {ND_REDUCE_MAX, ND_REDUCE_MIN, ND_REDUCE_ARGMAX, ND_REDUCE_ARGMIN};
    enum { R = 37, C = 301 };
    int *code = malloc(sizeof(int) * R * C); /* logical C order */
    char *phys = malloc(8 * R * C), *src = malloc(8 * R * C), *res = malloc(8 * R * C);
    for (int d = 0; d < 4; d++)
        for (int pat = 0; pat < 4; pat++)
            for (int layout = 0; layout < 2; layout++) {
                uint64_t s = (uint64_t)(d * 10 + pat + 1);
                for (int64_t i = 0; i < R * C; i++) code[i] = gen_code(pat, &s);
                for (int64_t i = 0; i < R; i++)
                    for (int64_t j = 0; j < C; j++) {
                        put_code(src, dts[d], i * C + j, code[i * C + j]);
                        put_code(phys, dts[d], layout ? j * R + i : i * C + j, code[i * C + j]);
                    }
                nd_array *p = NULL, *a = NULL;
                int64_t shp[2] = {layout ? C : R, layout ? R : C};
                ND_OK_OR_FAIL(nd_from_host(&p, phys, dts[d], 2, shp, nd_cpu()));
                if (layout) ND_OK_OR_FAIL(nd_transpose(&a, p, NULL));
                else a = nd_retain(p);
                for (int o = 0; o < 4; o++)
                    for (int ax = -1; ax < 2; ax++) {
                        if (ax < 0 && layout) continue; /* order-free ops walk memory order there */
                        nd_array *r = NULL;
                        ND_OK_OR_FAIL(nd_reduce(&r, ops[o], a, ax < 0 ? 0 : 1, ax < 0 ? NULL : &ax, false));
                        ND_OK_OR_FAIL(nd_copy_to_host(res, r, nd_nbytes(r)));
                        char what[96];
                        snprintf(what, sizeof what, "%s %s pattern %d layout %d axis %d", nd_reduce_op_name(ops[o]),
                                 nd_dtype_name(dts[d]), pat, layout, ax);
                        const int is_max = ops[o] == ND_REDUCE_MAX || ops[o] == ND_REDUCE_ARGMAX;
                        if (ax < 0) {
                            int64_t w = ref_codes(code, R * C, 1, is_max);
                            check_out(ops[o], dts[d], res, 0, src, w, w, what);
                        } else if (ax == 0) {
                            for (int64_t j = 0; j < C; j++) {
                                int64_t w = ref_codes(code + j, R, C, is_max);
                                check_out(ops[o], dts[d], res, j, src, w, w * C + j, what);
                            }
                        } else {
                            for (int64_t i = 0; i < R; i++) {
                                int64_t w = ref_codes(code + i * C, C, 1, is_max);
                                check_out(ops[o], dts[d], res, i, src, w, i * C + w, what);
                            }
                        }
                        nd_release(r);
                    }
                nd_release(a);
                nd_release(p);
            }
    free(code);
    free(phys);
    free(src);
    free(res);
}
END_TEST

/* Long runs cut into work units and threads: the first NaN, the first
 * zero extreme, wherever the unit boundaries fall, for any thread count. */
START_TEST(test_isa_api_units)
{
    enum { N = 300007 };
    static const int threads[] = {1, 2, 3, 7};
    static const nd_reduce_op ops[4] = {ND_REDUCE_MAX, ND_REDUCE_MIN, ND_REDUCE_ARGMAX, ND_REDUCE_ARGMIN};
    int *code = malloc(sizeof(int) * N);
    char *src = malloc(8 * N);
    for (int d = 0; d < 2; d++) {
        nd_dtype t = d ? ND_FLOAT64 : ND_FLOAT32;
        for (int pat = 0; pat < 4; pat++) {
            uint64_t s = (uint64_t)pat + 99;
            for (int64_t i = 0; i < N; i++) code[i] = gen_code(pat == 2 ? 1 : pat, &s);
            if (pat == 2) { /* NaNs only late, in two units */
                code[200001] = 6 + 5;
                code[250000] = 6 + 6;
                code[N - 1] = 6 + 7;
            }
            if (pat == 0) /* the first zero, -0, at the end of the first unit; zeros of both signs later */
                for (int64_t i = 0; i <= 65535; i++) code[i] = i < 65535 ? 1 : 2;
            for (int64_t i = 0; i < N; i++) put_code(src, t, i, code[i]);
            nd_array *a = NULL;
            int64_t n = N;
            ND_OK_OR_FAIL(nd_from_host(&a, src, t, 1, &n, nd_cpu()));
            for (size_t th = 0; th < sizeof threads / sizeof threads[0]; th++) {
                ND_OK_OR_FAIL(nd_set_num_threads(threads[th]));
                for (int o = 0; o < 4; o++) {
                    nd_array *r = NULL;
                    char res[8], what[96];
                    ND_OK_OR_FAIL(nd_reduce(&r, ops[o], a, 0, NULL, false));
                    ND_OK_OR_FAIL(nd_copy_to_host(res, r, nd_nbytes(r)));
                    snprintf(what, sizeof what, "%s %s pattern %d threads %d", nd_reduce_op_name(ops[o]),
                             nd_dtype_name(t), pat, threads[th]);
                    int64_t w = ref_codes(code, N, 1, ops[o] == ND_REDUCE_MAX || ops[o] == ND_REDUCE_ARGMAX);
                    check_out(ops[o], t, res, 0, src, w, w, what);
                    nd_release(r);
                }
            }
            nd_release(a);
        }
    }
    ND_OK_OR_FAIL(nd_set_num_threads(0));
    free(code);
    free(src);
}
END_TEST

TCase *tcase_reduce_isa(void)
{
    TCase *tc = tcase_create("isa");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_isa_leaves);
    tcase_add_test(tc, test_isa_rows);
    tcase_add_test(tc, test_isa_api_rule);
    tcase_add_test(tc, test_isa_api_units);
    return tc;
}
