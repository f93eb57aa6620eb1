/* Reductions: every op x dtype x axes x keepdims x layout against a
 * double-precision reference loop; NaN rules, ddof, accuracy, empty
 * arrays, the out rule and bad input (the last ones in
 * tests/test_reduce_edge.c). */
#include <float.h>
#include <stdio.h>

#include "shared/half.h"
#include "test_reduce.h"

/* ------------------------------------------------------------------ */
/* Host helpers                                                        */
/* ------------------------------------------------------------------ */
void rt_put(void *base, nd_dtype t, int64_t i, double v)
{
    switch (t) {
    case ND_BOOL: ((uint8_t *)base)[i] = v != 0; break;
    case ND_INT8: ((int8_t *)base)[i] = (int8_t)v; break;
    case ND_INT16: ((int16_t *)base)[i] = (int16_t)v; break;
    case ND_INT32: ((int32_t *)base)[i] = (int32_t)v; break;
    case ND_INT64: ((int64_t *)base)[i] = (int64_t)v; break;
    case ND_UINT8: ((uint8_t *)base)[i] = (uint8_t)v; break;
    case ND_UINT16: ((uint16_t *)base)[i] = (uint16_t)v; break;
    case ND_UINT32: ((uint32_t *)base)[i] = (uint32_t)v; break;
    case ND_UINT64: ((uint64_t *)base)[i] = (uint64_t)v; break;
    case ND_FLOAT16: ((uint16_t *)base)[i] = nd_float_to_half((float)v); break;
    case ND_BFLOAT16: ((uint16_t *)base)[i] = nd_float_to_bf16((float)v); break;
    case ND_FLOAT32: ((float *)base)[i] = (float)v; break;
    default: ((double *)base)[i] = v; break;
    }
}

double rt_get(const void *base, nd_dtype t, int64_t i)
{
    switch (t) {
    case ND_BOOL: return ((const uint8_t *)base)[i];
    case ND_INT8: return ((const int8_t *)base)[i];
    case ND_INT16: return ((const int16_t *)base)[i];
    case ND_INT32: return ((const int32_t *)base)[i];
    case ND_INT64: return (double)((const int64_t *)base)[i];
    case ND_UINT8: return ((const uint8_t *)base)[i];
    case ND_UINT16: return ((const uint16_t *)base)[i];
    case ND_UINT32: return ((const uint32_t *)base)[i];
    case ND_UINT64: return (double)((const uint64_t *)base)[i];
    case ND_FLOAT16: return nd_half_to_float(((const uint16_t *)base)[i]);
    case ND_BFLOAT16: return nd_bf16_to_float(((const uint16_t *)base)[i]);
    case ND_FLOAT32: return ((const float *)base)[i];
    default: return ((const double *)base)[i];
    }
}

double rt_quant(nd_dtype t, double v)
{
    unsigned char b[16];
    rt_put(b, t, 0, v);
    return rt_get(b, t, 0);
}

nd_array *rt_array(nd_dtype t, int ndim, const int64_t *shape, const double *vals)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    size_t isz = nd_dtype_size(t);
    void *buf = calloc((size_t)(n ? n : 1), isz);
    for (int64_t i = 0; i < n; i++) rt_put(buf, t, i, vals[i]);
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, buf, t, ndim, shape, nd_cpu()));
    free(buf);
    return a;
}

double *rt_fetch(const nd_array *a)
{
    int64_t n = nd_size(a);
    nd_dtype t = nd_dtype_of(a);
    void *buf = malloc(nd_nbytes(a) + 8);
    ND_OK_OR_FAIL(nd_copy_to_host(buf, a, nd_nbytes(a)));
    double *v = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++) v[i] = rt_get(buf, t, i);
    free(buf);
    return v;
}

bool rt_close(double got, double want, double tol)
{
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    double scale = fabs(want) > 1 ? fabs(want) : 1;
    return fabs(got - want) <= tol * scale;
}

double rt_tol(nd_dtype t)
{
    switch (t) {
    case ND_FLOAT16: return 2e-3;
    case ND_BFLOAT16: return 1.6e-2;
    case ND_FLOAT32: return 1e-5;
    case ND_FLOAT64: return 1e-12;
    default: return 0;
    }
}

/* NumPy 2.4: np.<op>(np.ones(3, dtype)).dtype for every dtype (bfloat16
 * follows float16, as in ml_dtypes). */
#define B ND_BOOL
#define I64 ND_INT64
#define U64 ND_UINT64
#define F16 ND_FLOAT16
#define BF ND_BFLOAT16
#define F32 ND_FLOAT32
#define F64 ND_FLOAT64
const nd_dtype rt_expected_dtype[ND_NUM_REDUCE_OPS][ND_NUM_DTYPES] = {
    /*            bool  i8   i16  i32  i64  u8   u16  u32  u64  f16  bf16 f32  f64 */
    [ND_REDUCE_SUM] = {I64, I64, I64, I64, I64, U64, U64, U64, U64, F16, BF, F32, F64},
    [ND_REDUCE_PROD] = {I64, I64, I64, I64, I64, U64, U64, U64, U64, F16, BF, F32, F64},
    [ND_REDUCE_MEAN] = {F64, F64, F64, F64, F64, F64, F64, F64, F64, F16, BF, F32, F64},
    [ND_REDUCE_MAX] = {B, ND_INT8, ND_INT16, ND_INT32, I64, ND_UINT8, ND_UINT16, ND_UINT32, U64, F16, BF, F32, F64},
    [ND_REDUCE_MIN] = {B, ND_INT8, ND_INT16, ND_INT32, I64, ND_UINT8, ND_UINT16, ND_UINT32, U64, F16, BF, F32, F64},
    [ND_REDUCE_ARGMAX] = {I64, I64, I64, I64, I64, I64, I64, I64, I64, I64, I64, I64, I64},
    [ND_REDUCE_ARGMIN] = {I64, I64, I64, I64, I64, I64, I64, I64, I64, I64, I64, I64, I64},
    [ND_REDUCE_ANY] = {B, B, B, B, B, B, B, B, B, B, B, B, B},
    [ND_REDUCE_ALL] = {B, B, B, B, B, B, B, B, B, B, B, B, B},
    [ND_REDUCE_VAR] = {F64, F64, F64, F64, F64, F64, F64, F64, F64, F16, BF, F32, F64},
    [ND_REDUCE_STD] = {F64, F64, F64, F64, F64, F64, F64, F64, F64, F16, BF, F32, F64},
};
#undef B
#undef I64
#undef U64
#undef F16
#undef BF
#undef F32
#undef F64

/* ------------------------------------------------------------------ */
/* Reference                                                           */
/* ------------------------------------------------------------------ */
static double ref_block(nd_reduce_op op, nd_dtype rdt, const double *v, int64_t n, double ddof)
{
    long double s = 0, p = 1, m; /* long double: exact enough for n ~ 1e6 */
    int64_t bi = 0;
    if ((op == ND_REDUCE_SUM || op == ND_REDUCE_PROD) && (rdt == ND_INT64 || rdt == ND_UINT64)) {
        uint64_t u = op == ND_REDUCE_PROD; /* integers wrap around */
        for (int64_t i = 0; i < n; i++) {
            uint64_t x = v[i] < 0 ? (uint64_t)(int64_t)v[i] : (uint64_t)v[i];
            u = op == ND_REDUCE_SUM ? u + x : u * x;
        }
        return rdt == ND_INT64 ? (double)(int64_t)u : (double)u;
    }
    switch (op) {
    case ND_REDUCE_SUM:
        for (int64_t i = 0; i < n; i++) s += v[i];
        return (double)s;
    case ND_REDUCE_PROD:
        for (int64_t i = 0; i < n; i++) p *= v[i];
        return (double)p;
    case ND_REDUCE_MEAN:
        for (int64_t i = 0; i < n; i++) s += v[i];
        return (double)(s / (long double)n);
    case ND_REDUCE_VAR:
    case ND_REDUCE_STD: {
        for (int64_t i = 0; i < n; i++) s += v[i];
        m = s / (long double)n;
        long double q = 0;
        for (int64_t i = 0; i < n; i++) q += (v[i] - m) * (v[i] - m);
        long double den = (long double)n - (long double)ddof;
        q /= den > 0 ? den : 0;
        return op == ND_REDUCE_STD ? sqrt((double)q) : (double)q;
    }
    case ND_REDUCE_MAX:
    case ND_REDUCE_MIN:
        m = v[0];
        for (int64_t i = 0; i < n; i++) {
            if (isnan(v[i])) return NAN;
            if (op == ND_REDUCE_MAX ? v[i] > m : v[i] < m) m = v[i];
        }
        return (double)m;
    case ND_REDUCE_ARGMAX:
    case ND_REDUCE_ARGMIN:
        for (int64_t i = 0; i < n; i++) {
            if (isnan(v[i])) return (double)i;
            if (op == ND_REDUCE_ARGMAX ? v[i] > v[bi] : v[i] < v[bi]) bi = i;
        }
        return (double)bi;
    case ND_REDUCE_ANY:
        for (int64_t i = 0; i < n; i++)
            if (v[i] != 0) return 1;
        return 0;
    default: /* all */
        for (int64_t i = 0; i < n; i++)
            if (v[i] == 0) return 0;
        return 1;
    }
}

/* Reference over logical values L (C order of shape). mask[d]: reduced.
 * Returns the outputs in C order of the kept axes; *nout their count. */
double *rt_reference(nd_reduce_op op, nd_dtype rdt, int ndim, const int64_t *shape, const double *L, const bool *mask,
                     double ddof, int64_t *nout)
{
    int64_t no = 1, nr = 1;
    for (int d = 0; d < ndim; d++) {
        if (mask[d]) nr *= shape[d];
        else no *= shape[d];
    }
    double *res = malloc(sizeof(double) * (size_t)(no + 1));
    double *blk = malloc(sizeof(double) * (size_t)(nr + 1));
    int64_t idx[ND_MAX_DIMS];
    for (int64_t o = 0; o < no; o++) {
        for (int64_t r = 0; r < nr; r++) {
            /* unravel o over kept axes and r over reduced axes */
            int64_t oo = o, rr = r;
            for (int d = ndim - 1; d >= 0; d--) {
                if (mask[d]) {
                    idx[d] = rr % shape[d];
                    rr /= shape[d];
                } else {
                    idx[d] = oo % shape[d];
                    oo /= shape[d];
                }
            }
            int64_t flat = 0;
            for (int d = 0; d < ndim; d++) flat = flat * shape[d] + idx[d];
            blk[r] = L[flat];
        }
        res[o] = ref_block(op, rdt, blk, nr, ddof);
    }
    free(blk);
    *nout = no;
    return res;
}

/* ------------------------------------------------------------------ */
/* Layouts                                                             */
/* ------------------------------------------------------------------ */
const char *const rt_layout_names[RT_NUM_LAYOUTS] = {"contiguous", "transposed", "negstep", "broadcast"};

/* Input values: small, exact in every dtype (1/8 steps for floats). */
double rt_gen(nd_reduce_op op, nd_dtype t, int64_t i)
{
    uint64_t h = (uint64_t)i * 2654435761u + 12345u;
    h ^= h >> 13;
    if (op == ND_REDUCE_PROD) { /* few factors of 2 (integer products wrap anyway) */
        if (t == ND_BOOL) return (h % 7) != 0;
        bool big = i < 400 && h % 16 == 0, neg = h % 4 == 2;
        if (t >= ND_FLOAT16) return big ? 2 : neg ? -1 : 1;
        if (t >= ND_UINT8) return big ? 2 : 1;
        return big ? 2 : neg ? -1 : 1;
    }
    if (t == ND_BOOL) return (h % 3) != 0;
    if (t >= ND_FLOAT16) return (double)(h % 101) / 8.0 - 6.0;
    if (t >= ND_UINT8) return (double)(h % 11);
    return (double)(h % 11) - 5.0;
}

nd_array *rt_make(int layout, nd_dtype t, int ndim, const int64_t *shape, double (*gen)(int64_t, void *), void *gctx,
                  double *L)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    int64_t ph[ND_MAX_DIMS];
    nd_array *p = NULL, *v = NULL;
    if (layout == RT_CONTIG || ndim == 0) {
        for (int64_t i = 0; i < n; i++) L[i] = rt_quant(t, gen(i, gctx));
        return rt_array(t, ndim, shape, L);
    }
    if (layout == RT_BROADCAST) { /* axis 0 has stride 0 */
        memcpy(ph, shape, sizeof(int64_t) * (size_t)ndim);
        ph[0] = 1;
        int64_t m = shape[0] ? n / shape[0] : 0;
        double *P = malloc(sizeof(double) * (size_t)(m + 1));
        for (int64_t i = 0; i < m; i++) P[i] = rt_quant(t, gen(i, gctx));
        for (int64_t i = 0; i < n; i++) L[i] = P[i % m];
        p = rt_array(t, ndim, ph, P);
        ND_OK_OR_FAIL(nd_broadcast_to(&v, p, ndim, shape));
        free(P);
        nd_release(p);
        return v;
    }
    for (int64_t i = 0; i < n; i++) L[i] = rt_quant(t, gen(i, gctx));
    int64_t pn = layout == RT_NEGSTEP ? 2 * n : n;
    double *P = malloc(sizeof(double) * (size_t)(pn + 1));
    for (int64_t i = 0; i < pn; i++) P[i] = 99; /* poison: read only if the view is wrong */
    int64_t idx[ND_MAX_DIMS];
    for (int d = 0; d < ndim; d++) ph[d] = layout == RT_TRANSPOSED ? shape[ndim - 1 - d] : shape[d];
    if (layout == RT_NEGSTEP) ph[ndim - 1] *= 2;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i;
        for (int d = ndim - 1; d >= 0; d--) {
            idx[d] = r % shape[d];
            r /= shape[d];
        }
        int64_t pi[ND_MAX_DIMS];
        for (int d = 0; d < ndim; d++) {
            if (layout == RT_TRANSPOSED) pi[ndim - 1 - d] = idx[d];
            else pi[d] = idx[d];
        }
        if (layout == RT_NEGSTEP) {
            if (ndim >= 2) pi[0] = shape[0] - 1 - idx[0];
            pi[ndim - 1] = 2 * shape[ndim - 1] - 1 - 2 * idx[ndim - 1];
        }
        int64_t f = 0;
        for (int d = 0; d < ndim; d++) f = f * ph[d] + pi[d];
        P[f] = L[i];
    }
    p = rt_array(t, ndim, ph, P);
    free(P);
    if (layout == RT_TRANSPOSED) {
        ND_OK_OR_FAIL(nd_transpose(&v, p, NULL));
    } else {
        nd_range rg[ND_MAX_DIMS];
        for (int d = 0; d < ndim; d++) rg[d] = ND_ALL;
        if (ndim >= 2) rg[0].step = -1;
        rg[ndim - 1].step = -2;
        ND_OK_OR_FAIL(nd_slice(&v, p, ndim, rg));
    }
    nd_release(p);
    for (int d = 0; d < ndim; d++) ck_assert_int_eq(nd_shape(v)[d], shape[d]);
    return v;
}

/* ------------------------------------------------------------------ */
/* One case                                                            */
/* ------------------------------------------------------------------ */
typedef struct {
    nd_reduce_op op;
    nd_dtype t;
} gen_ctx;

static double gen_default(int64_t i, void *ctx)
{
    const gen_ctx *g = ctx;
    return rt_gen(g->op, g->t, i);
}

/* entry: 0 nd_reduce / nd_reduce_ddof, 1 the named wrapper. */
static nd_status call_reduce(int entry, nd_array **out, nd_reduce_op op, const nd_array *a, int naxes, const int *axes,
                             bool keepdims, double ddof)
{
    if (ddof != 0) return nd_reduce_ddof(out, op, a, naxes, axes, keepdims, ddof);
    if (entry == 0) return nd_reduce(out, op, a, naxes, axes, keepdims);
    switch (op) {
#define X(E, n) \
    case ND_REDUCE_##E: return nd_##n(out, a, naxes, axes, keepdims);
        ND_REDUCE_OPS(X)
#undef X
    default: return nd_reduce(out, op, a, naxes, axes, keepdims);
    }
}

int64_t rt_ncases;

void rt_case(nd_reduce_op op, nd_dtype t, int layout, int ndim, const int64_t *shape, int naxes, const int *axes,
             bool keepdims, double ddof, bool use_out)
{
    gen_ctx g = {op, t};
    rt_case_gen(op, t, layout, ndim, shape, naxes, axes, keepdims, ddof, use_out, gen_default, &g);
}

void rt_case_gen(nd_reduce_op op, nd_dtype t, int layout, int ndim, const int64_t *shape, int naxes, const int *axes,
                 bool keepdims, double ddof, bool use_out, double (*gen)(int64_t, void *), void *gctx)
{
    char what[256];
    snprintf(what, sizeof what, "%s %s %s ndim=%d naxes=%d%s keep=%d ddof=%g out=%d", nd_reduce_op_name(op),
             nd_dtype_name(t), rt_layout_names[layout], ndim, axes ? naxes : -1, axes ? "" : "(all)", keepdims,
             ddof, use_out);
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    double *L = malloc(sizeof(double) * (size_t)(n + 1));
    nd_array *a = rt_make(layout, t, ndim, shape, gen, gctx, L);

    bool mask[ND_MAX_DIMS] = {false};
    int64_t nred = 1;
    for (int d = 0; d < ndim; d++) mask[d] = axes == NULL;
    if (axes)
        for (int i = 0; i < naxes; i++) mask[axes[i] < 0 ? axes[i] + ndim : axes[i]] = true;
    for (int d = 0; d < ndim; d++)
        if (mask[d]) nred *= shape[d];
    bool is_arg = op == ND_REDUCE_ARGMAX || op == ND_REDUCE_ARGMIN;
    bool want_err = (is_arg && axes && naxes != 1) ||
                    (nred == 0 && (is_arg || op == ND_REDUCE_MAX || op == ND_REDUCE_MIN));

    /* result shape */
    int rnd = 0;
    int64_t rshape[ND_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        if (!mask[d]) rshape[rnd++] = shape[d];
        else if (keepdims) rshape[rnd++] = 1;
    }
    nd_dtype rdt = rt_expected_dtype[op][t];
    nd_array *out = NULL;
    if (use_out) /* poisoned: every element must be overwritten */
        ND_OK_OR_FAIL(nd_full(&out, rdt, rnd, rshape, nd_scalar_int(rdt == ND_BOOL ? 1 : 77), nd_cpu()));
    nd_array *given = out;
    nd_status st = call_reduce((int)(rt_ncases & 1), &out, op, a, naxes, axes, keepdims, ddof);
    rt_ncases++;
    if (want_err) {
        ck_assert_msg(st == ND_ERR_INVALID, "%s: want ND_ERR_INVALID, got %s", what, nd_status_name(st));
        ck_assert_msg(out == given, "%s: out changed on failure", what);
    } else {
        ck_assert_msg(st == ND_OK, "%s: %s %s", what, nd_status_name(st), nd_last_error());
        ck_assert_msg(!use_out || out == given, "%s: out replaced", what);
        ck_assert_msg(nd_dtype_of(out) == rdt, "%s: dtype %s, want %s", what, nd_dtype_name(nd_dtype_of(out)),
                      nd_dtype_name(rdt));
        ck_assert_msg(nd_ndim(out) == rnd, "%s: ndim %d want %d", what, nd_ndim(out), rnd);
        for (int d = 0; d < rnd; d++) ck_assert_msg(nd_shape(out)[d] == rshape[d], "%s: shape[%d]", what, d);
        int64_t nout;
        double *want = rt_reference(op, rdt, ndim, shape, L, mask, ddof, &nout);
        ck_assert_int_eq(nd_size(out), nout);
        double *got = rt_fetch(out);
        double tol = rt_tol(rdt);
        for (int64_t o = 0; o < nout; o++) {
            double w = rt_quant(rdt, want[o]);
            ck_assert_msg(rt_close(got[o], w, tol), "%s: out[%lld] = %.9g, want %.9g", what, (long long)o, got[o], w);
        }
        free(want);
        free(got);
    }
    nd_release(out);
    nd_release(a);
    free(L);
}

/* ------------------------------------------------------------------ */
/* The matrix                                                          */
/* ------------------------------------------------------------------ */
typedef struct {
    int naxes; /* -1: axes == NULL */
    int axes[3];
} axes_set;

static const axes_set AXES3[] = {
    {-1, {0}}, {1, {0}}, {1, {1}}, {1, {2}}, {1, {-1}}, {1, {-3}}, {2, {0, 2}}, {2, {2, -2}}, {2, {0, 1}}, {0, {0}},
    {3, {1, 0, 2}},
};

static void matrix_3d(nd_reduce_op op)
{
    static const int64_t shape[3] = {3, 4, 5};
    for (nd_dtype t = 0; t < (nd_dtype)NT_NREAL; t++)
        for (int layout = 0; layout < RT_NUM_LAYOUTS; layout++)
            for (size_t k = 0; k < sizeof AXES3 / sizeof AXES3[0]; k++)
                for (int keep = 0; keep < 2; keep++) {
                    const axes_set *s = &AXES3[k];
                    bool use_out = ((k + (size_t)layout + (size_t)keep) % 3) == 0;
                    rt_case(op, t, layout, 3, shape, s->naxes, s->naxes < 0 ? NULL : s->axes, keep, 0, use_out);
                }
}

/* 2-D shapes that exercise the outer-axis (rows) path with several
 * tiles, and the inner path with long runs. */
static void matrix_2d(nd_reduce_op op)
{
    static const int64_t shapes[][2] = {{37, 300}, {300, 7}, {2, 1000}};
    static const axes_set sets[] = {{-1, {0}}, {1, {0}}, {1, {1}}};
    for (nd_dtype t = 0; t < (nd_dtype)NT_NREAL; t++)
        for (size_t s = 0; s < 3; s++)
            for (int layout = 0; layout < RT_NUM_LAYOUTS; layout++)
                for (size_t k = 0; k < 3; k++)
                    rt_case(op, t, layout, 2, shapes[s], sets[k].naxes, sets[k].naxes < 0 ? NULL : sets[k].axes,
                            false, 0, false);
}

/* 0-d, 1-D and zero-size arrays. */
static void matrix_small(nd_reduce_op op)
{
    static const int64_t s0[1] = {0}, s1[1] = {9}, sz[3] = {2, 0, 3};
    static const axes_set sets1[] = {{-1, {0}}, {1, {0}}, {1, {-1}}, {0, {0}}};
    for (nd_dtype t = 0; t < (nd_dtype)NT_NREAL; t++) {
        for (int keep = 0; keep < 2; keep++) {
            rt_case(op, t, RT_CONTIG, 0, s0, -1, NULL, keep, 0, keep);
            for (size_t k = 0; k < 4; k++) {
                const int *ax = sets1[k].naxes < 0 ? NULL : sets1[k].axes;
                for (int layout = 0; layout < RT_NUM_LAYOUTS; layout++)
                    rt_case(op, t, layout, 1, s1, sets1[k].naxes, ax, keep, 0, keep);
                rt_case(op, t, RT_CONTIG, 1, s0, sets1[k].naxes, ax, keep, 0, false);
            }
            for (size_t k = 0; k < sizeof AXES3 / sizeof AXES3[0]; k++)
                rt_case(op, t, RT_CONTIG, 3, sz, AXES3[k].naxes, AXES3[k].naxes < 0 ? NULL : AXES3[k].axes, keep, 0,
                        keep);
        }
    }
}

START_TEST(test_matrix)
{
    nd_reduce_op op = (nd_reduce_op)_i;
    matrix_3d(op);
    matrix_2d(op);
    matrix_small(op);
}
END_TEST

/* var/std with ddof: 1, n-1, n (0/0 or x/0), n + 1, negative, real. */
START_TEST(test_ddof)
{
    static const int64_t shape[3] = {3, 4, 5};
    static const double ddofs[] = {1, 2, 3, 4, 5, 6, 60, -1, 0.5, 1.5, 3.5, -0.5};
    static const axes_set sets[] = {{-1, {0}}, {1, {1}}, {1, {2}}, {2, {0, 2}}};
    for (int op = ND_REDUCE_VAR; op <= ND_REDUCE_STD; op++)
        for (nd_dtype t = 0; t < (nd_dtype)NT_NREAL; t++)
            for (size_t d = 0; d < sizeof ddofs / sizeof ddofs[0]; d++)
                for (size_t k = 0; k < 4; k++)
                    rt_case((nd_reduce_op)op, t, (int)(d % RT_NUM_LAYOUTS), 3, shape, sets[k].naxes,
                            sets[k].naxes < 0 ? NULL : sets[k].axes, d & 1, ddofs[d], false);
    /* ddof is ignored by the other ops */
    for (int op = 0; op < ND_REDUCE_VAR; op++)
        rt_case((nd_reduce_op)op, ND_FLOAT32, RT_CONTIG, 3, shape, 1, sets[1].axes, false, 3, false);
}
END_TEST

Suite *suite_reduce(void)
{
    Suite *s = suite_create("reduce");
    TCase *tc = tcase_create("matrix");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_matrix, 0, ND_NUM_REDUCE_OPS);
    tcase_add_test(tc, test_ddof);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, tcase_reduce_edge());
    suite_add_tcase(s, tcase_reduce_large());
    suite_add_tcase(s, tcase_reduce_isa());
    return s;
}
