/* Helpers of the linear-algebra suite: host conversions for every dtype,
 * deterministic test data, and a plain reference matmul (double for
 * floats, wrapping uint64 for integers) with NumPy's broadcasting. */
#ifndef ND_LINALG_UTIL_H
#define ND_LINALG_UTIL_H

#include "shared/half.h"
#include "test_util.h"

static inline size_t lu_isz(nd_dtype t) { return nd_dtype_size(t); }
static inline int lu_is_float(nd_dtype t) { return t >= ND_FLOAT16; }

/* Store v (a double; integers wrap through int64) as one element of t. */
static inline void lu_store(void *p, nd_dtype t, double v)
{
    int64_t i = lu_is_float(t) || t == ND_BOOL ? 0 : (int64_t)v;
    uint64_t u = (uint64_t)i;
    switch (t) {
    case ND_BOOL: { uint8_t b = v != 0; memcpy(p, &b, 1); break; }
    case ND_INT8: case ND_UINT8: { uint8_t x = (uint8_t)u; memcpy(p, &x, 1); break; }
    case ND_INT16: case ND_UINT16: { uint16_t x = (uint16_t)u; memcpy(p, &x, 2); break; }
    case ND_INT32: case ND_UINT32: { uint32_t x = (uint32_t)u; memcpy(p, &x, 4); break; }
    case ND_INT64: case ND_UINT64: memcpy(p, &u, 8); break;
    case ND_FLOAT16: { uint16_t h = nd_float_to_half((float)v); memcpy(p, &h, 2); break; }
    case ND_BFLOAT16: { uint16_t h = nd_float_to_bf16((float)v); memcpy(p, &h, 2); break; }
    case ND_FLOAT32: { float f = (float)v; memcpy(p, &f, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* Raw element as an int64 bit pattern (sign/zero-extended) for ints. */
static inline int64_t lu_load_i(const void *p, nd_dtype t)
{
    switch (t) {
    case ND_BOOL: case ND_UINT8: { uint8_t x; memcpy(&x, p, 1); return x; }
    case ND_INT8: { int8_t x; memcpy(&x, p, 1); return x; }
    case ND_INT16: { int16_t x; memcpy(&x, p, 2); return x; }
    case ND_UINT16: { uint16_t x; memcpy(&x, p, 2); return x; }
    case ND_INT32: { int32_t x; memcpy(&x, p, 4); return x; }
    case ND_UINT32: { uint32_t x; memcpy(&x, p, 4); return x; }
    case ND_INT64: case ND_UINT64: { int64_t x; memcpy(&x, p, 8); return x; }
    default: return 0; /* floats: not used */
    }
}

static inline double lu_load(const void *p, nd_dtype t)
{
    switch (t) {
    case ND_FLOAT16: { uint16_t h; memcpy(&h, p, 2); return nd_half_to_float(h); }
    case ND_BFLOAT16: { uint16_t h; memcpy(&h, p, 2); return nd_bf16_to_float(h); }
    case ND_FLOAT32: { float f; memcpy(&f, p, 4); return f; }
    case ND_FLOAT64: { double d; memcpy(&d, p, 8); return d; }
    case ND_UINT64: { uint64_t x; memcpy(&x, p, 8); return (double)x; }
    default: return (double)lu_load_i(p, t);
    }
}

/* Deterministic data: floats in [-4, 4] with fractions, ints in a range
 * that makes products wrap for narrow dtypes, bools about half true. */
static inline void lu_fill(double *v, int64_t n, nd_dtype t, uint32_t seed)
{
    uint32_t s = seed * 2654435761u + 12345u;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        uint32_t r = s >> 8;
        switch (t) {
        case ND_BOOL: v[i] = (r >> 3) & 1; break;
        case ND_INT8: v[i] = (double)((int)(r % 201) - 100); break;
        case ND_UINT8: v[i] = (double)(r % 256); break;
        case ND_INT16: v[i] = (double)((int)(r % 60001) - 30000); break;
        case ND_UINT16: v[i] = (double)(r % 65536); break;
        case ND_INT32: v[i] = (double)((int64_t)(r % 4000001) - 2000000); break;
        case ND_UINT32: v[i] = (double)(r % 4000000000u); break;
        case ND_INT64: case ND_UINT64: v[i] = (double)((int64_t)r * 1000003 - ((int64_t)1 << 33)); break;
        case ND_BFLOAT16: v[i] = (double)((int)(r % 33) - 16) / 8.0; break;
        default: v[i] = (double)((int)(r % 8001) - 4000) / 1000.0; break;
        }
    }
}

static inline int64_t lu_size(int nd, const int64_t *s)
{
    int64_t n = 1;
    for (int i = 0; i < nd; i++) n *= s[i];
    return n;
}

/* New CPU array of t holding v (C order). */
static inline nd_array *lu_make(nd_dtype t, int nd, const int64_t *shape, const double *v)
{
    int64_t n = lu_size(nd, shape);
    char *buf = malloc((size_t)(n > 0 ? n : 1) * lu_isz(t));
    for (int64_t i = 0; i < n; i++) lu_store(buf + i * (int64_t)lu_isz(t), t, v[i]);
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, buf, t, nd, shape, nd_cpu()));
    free(buf);
    return a;
}

/* New CPU array of t with deterministic data. */
static inline nd_array *lu_rand(nd_dtype t, int nd, const int64_t *shape, uint32_t seed)
{
    int64_t n = lu_size(nd, shape);
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    lu_fill(v, n, t, seed);
    nd_array *a = lu_make(t, nd, shape, v);
    free(v);
    return a;
}

/* C-order contents of a, as raw bytes (caller frees). */
static inline char *lu_bytes(const nd_array *a)
{
    size_t nb = nd_nbytes(a);
    char *buf = malloc(nb ? nb : 1);
    ND_OK_OR_FAIL(nd_copy_to_host(buf, a, nb));
    return buf;
}

/* The reference: batch plan of NumPy matmul over C-order operands. */
typedef struct {
    int64_t M, N, K, nb;
    int64_t arow, brow, bcol; /* C-order element strides (acol = 1) */
    int64_t *aoff, *boff;     /* per batch element */
} lu_plan;

static inline void lu_plan_init(lu_plan *p, int an, const int64_t *as, int bn, const int64_t *bs)
{
    int64_t ash[ND_MAX_DIMS + 1], bsh[ND_MAX_DIMS + 1];
    int pan = an, pbn = bn;
    if (an == 1) { ash[0] = 1; ash[1] = as[0]; pan = 2; } else memcpy(ash, as, (size_t)an * 8);
    if (bn == 1) { bsh[0] = bs[0]; bsh[1] = 1; pbn = 2; } else memcpy(bsh, bs, (size_t)bn * 8);
    p->M = ash[pan - 2], p->K = ash[pan - 1], p->N = bsh[pbn - 1];
    p->arow = p->K, p->brow = p->N, p->bcol = 1;
    int abd = pan - 2, bbd = pbn - 2, nbd = abd > bbd ? abd : bbd;
    int64_t bshape[ND_MAX_DIMS], ast[ND_MAX_DIMS], bst[ND_MAX_DIMS];
    int64_t sa = p->M * p->K, sb = p->K * p->N;
    for (int d = nbd - 1; d >= 0; d--) {
        int ia = d - (nbd - abd), ib = d - (nbd - bbd);
        int64_t da = ia >= 0 ? ash[ia] : 1, db = ib >= 0 ? bsh[ib] : 1;
        bshape[d] = da == 1 ? db : da;
        ast[d] = da == 1 ? 0 : sa;
        bst[d] = db == 1 ? 0 : sb;
        sa *= da, sb *= db;
    }
    p->nb = lu_size(nbd, bshape);
    p->aoff = malloc((size_t)(p->nb > 0 ? p->nb : 1) * 8);
    p->boff = malloc((size_t)(p->nb > 0 ? p->nb : 1) * 8);
    for (int64_t i = 0; i < p->nb; i++) {
        int64_t rem = i, oa = 0, ob = 0;
        for (int d = nbd - 1; d >= 0; d--) {
            int64_t x = rem % bshape[d];
            rem /= bshape[d];
            oa += x * ast[d], ob += x * bst[d];
        }
        p->aoff[i] = oa, p->boff[i] = ob;
    }
}

static inline void lu_plan_free(lu_plan *p)
{
    free(p->aoff);
    free(p->boff);
}

/* Check the C-order result bytes r (dtype rt) of a @ b, given the C-order
 * bytes of the operands (dtypes ta, tb). Floats: relative to sum |a||b|
 * with tolerance tol; integers: exact with wrapping in rt; bool: or/and. */
static inline void lu_check(const lu_plan *p, const char *A, nd_dtype ta, const char *B, nd_dtype tb, const char *R,
                            nd_dtype rt, double tol)
{
    size_t isa = lu_isz(ta), isb = lu_isz(tb), isr = lu_isz(rt);
    for (int64_t bi = 0; bi < p->nb; bi++)
        for (int64_t i = 0; i < p->M; i++)
            for (int64_t j = 0; j < p->N; j++) {
                double s = 0, sabs = 0;
                uint64_t u = 0;
                for (int64_t k = 0; k < p->K; k++) {
                    const char *pa = A + (p->aoff[bi] + i * p->arow + k) * (int64_t)isa;
                    const char *pb = B + (p->boff[bi] + k * p->brow + j * p->bcol) * (int64_t)isb;
                    double x = lu_load(pa, ta), y = lu_load(pb, tb);
                    s += x * y, sabs += fabs(x * y);
                    if (!lu_is_float(rt)) u += (uint64_t)lu_load_i(pa, ta) * (uint64_t)lu_load_i(pb, tb);
                }
                int64_t ri = (bi * p->M + i) * p->N + j;
                const char *pr = R + ri * (int64_t)isr;
                if (rt == ND_BOOL) {
                    ck_assert_msg(lu_load_i(pr, rt) == (s != 0), "bool [%lld]: got %lld", (long long)ri,
                                  (long long)lu_load_i(pr, rt));
                } else if (!lu_is_float(rt)) {
                    char want[8];
                    lu_store(want, rt, 0); /* zero the bytes, then place u's low bytes */
                    memcpy(want, &u, isr);
                    ck_assert_msg(memcmp(pr, want, isr) == 0, "%s [%lld]: got %lld want %lld", nd_dtype_name(rt),
                                  (long long)ri, (long long)lu_load_i(pr, rt), (long long)lu_load_i(want, rt));
                } else {
                    double got = lu_load(pr, rt);
                    ck_assert_msg(fabs(got - s) <= tol * sabs + 1e-300, "%s [%lld]: got %.9g want %.9g",
                                  nd_dtype_name(rt), (long long)ri, got, s);
                }
            }
}

/* Tolerance for results of dtype t. */
static inline double lu_tol(nd_dtype t)
{
    switch (t) {
    case ND_FLOAT16: return 2e-3;
    case ND_BFLOAT16: return 1.6e-2;
    case ND_FLOAT32: return 2e-6;
    default: return 1e-13;
    }
}

/* Compute a @ b with nd_matmul (or nd_dot when use_dot) into a fresh
 * array and verify shape, dtype and values against the reference. */
static inline void lu_verify(const nd_array *a, const nd_array *b, const nd_array *r)
{
    char *A = lu_bytes(a), *B = lu_bytes(b), *R = lu_bytes(r);
    lu_plan p;
    lu_plan_init(&p, nd_ndim(a), nd_shape(a), nd_ndim(b), nd_shape(b));
    ck_assert_int_eq(nd_size(r), p.nb * p.M * p.N);
    lu_check(&p, A, nd_dtype_of(a), B, nd_dtype_of(b), R, nd_dtype_of(r), lu_tol(nd_dtype_of(r)));
    lu_plan_free(&p);
    free(A);
    free(B);
    free(R);
}

#endif
