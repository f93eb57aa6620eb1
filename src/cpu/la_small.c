/* The CPU la slot's small-matrix path: GETRF and GESV of
 * batches of n x n matrices with n <= ND_LA_SMALL_N, threaded over the
 * batch with nd__parallel_for.
 *
 * Why our own kernel: per-matrix LAPACK calls cost ~0.3-1 us of overhead
 * (argument checks, OpenBLAS's thread/buffer bookkeeping, getrs's separate
 * laswp + 2 trsm calls) for ~100 flops of work, so np.linalg.inv of 10,000
 * 4x4 matrices is call-overhead bound. Here one inlined loop nest per
 * matrix, specialised by the compiler for n = 1..8 (the switch in
 * small_lu_batch passes n as a constant), does the whole job.
 *
 * Semantics follow LAPACK's ?getf2 / ?getrs exactly where it matters:
 *  - partial pivoting with LAPACK's pivot choice: the first index of the
 *    largest |x| (real) or |re| + |im| (complex: i?amax's cabs1); a NaN
 *    never wins a comparison (as in idamax);
 *  - rows are swapped across the whole matrix; ipiv is 1-based;
 *  - an exactly zero pivot sets info = j (1-based, the first one) and the
 *    column is left unscaled, the factorisation continues (getf2);
 *  - the column below the pivot is multiplied by the reciprocal of the
 *    pivot when |pivot| >= the safe minimum, else divided (getf2);
 *  - GESV: when info > 0 b is left as it was (dgesv calls getrs only on
 *    success); the solve is laswp, unit lower then upper substitution
 *    (the upper one multiplies by the reciprocal of the diagonal, as
 *    OpenBLAS's trsm kernels do).
 * The arithmetic is in the dtype's own precision (no widening), so the
 * results are within a few ulps of LAPACK's (right-looking rank-1 updates
 * here, OpenBLAS's getf2 is left-looking: the rounding order differs). */
#include <float.h>
#include <math.h>

#include "cpu/cpu.h"
#include "cpu/lapack.h"
#include "shared/la_slots.h"

/* ------------------------------------------------------------------ */
/* Real kernels                                                        */
/* ------------------------------------------------------------------ */
#define REAL_KERNELS(T, SUF, ABS, SFMIN, FMA)                                                         \
    static inline __attribute__((always_inline)) int lu_##SUF(int n, T *a, int32_t *ipiv)            \
    {                                                                                                 \
        int info = 0;                                                                                 \
        for (int j = 0; j < n; j++) {                                                                 \
            T *b = a + (size_t)j * n;                                                                 \
            for (int i = 0; i < j; i++) { /* the earlier pivots, on column j */                       \
                int p = ipiv[i] - 1;                                                                  \
                if (p != i) {                                                                         \
                    T t = b[i];                                                                       \
                    b[i] = b[p];                                                                      \
                    b[p] = t;                                                                         \
                }                                                                                     \
            }                                                                                         \
            for (int i = 1; i < j; i++) { /* U(0:j, j): unit lower solve, dots as OpenBLAS's */     \
                T t1 = 0, t2 = 0;                                                                     \
                int k = 0;                                                                            \
                for (; k + 4 <= i; k += 4) {                                                          \
                    T m1 = a[(size_t)k * n + i] * b[k], m2 = a[(size_t)(k + 1) * n + i] * b[k + 1];   \
                    T m3 = a[(size_t)(k + 2) * n + i] * b[k + 2], m4 = a[(size_t)(k + 3) * n + i] * b[k + 3]; \
                    t1 += m1 + m3;                                                                    \
                    t2 += m2 + m4;                                                                    \
                }                                                                                     \
                for (; k < i; k++) t1 += a[(size_t)k * n + i] * b[k];                                 \
                b[i] -= t1 + t2;                                                                      \
            }                                                                                         \
            for (int i = j; i < n; i++) { /* the rest of column j (gemv) */                           \
                T t = 0;                                                                              \
                for (int k = 0; k < j; k++) t = FMA(a[(size_t)k * n + i], b[k], t);                  \
                b[i] -= t;                                                                            \
            }                                                                                         \
            int p = j;                                                                                \
            T best = ABS(b[j]);                                                                       \
            for (int i = j + 1; i < n; i++) {                                                         \
                T v = ABS(b[i]);                                                                      \
                if (v > best) best = v, p = i;                                                        \
            }                                                                                         \
            ipiv[j] = p + 1;                                                                          \
            if (b[p] != 0) {                                                                          \
                if (p != j)                                                                           \
                    for (int c = 0; c <= j; c++) {                                                    \
                        T t = a[(size_t)c * n + j];                                                   \
                        a[(size_t)c * n + j] = a[(size_t)c * n + p];                                  \
                        a[(size_t)c * n + p] = t;                                                     \
                    }                                                                                 \
                const T piv = b[j];                                                                   \
                if (ABS(piv) >= SFMIN) {                                                              \
                    const T r = (T)1 / piv;                                                           \
                    for (int i = j + 1; i < n; i++) b[i] *= r;                                        \
                } else {                                                                              \
                    for (int i = j + 1; i < n; i++) b[i] /= piv;                                      \
                }                                                                                     \
            } else if (info == 0) {                                                                   \
                info = j + 1;                                                                         \
            }                                                                                         \
        }                                                                                             \
        return info;                                                                                  \
    }                                                                                                 \
    static inline __attribute__((always_inline)) void rs_##SUF(int n, int nrhs, const T *a,           \
                                                               const int32_t *ipiv, T *b)             \
    {                                                                                                 \
        T rd[ND_LA_SMALL_N];                                                                          \
        for (int k = 0; k < n; k++) rd[k] = (T)1 / a[(size_t)k * n + k];                              \
        for (int j = 0; j < nrhs; j++) {                                                              \
            T *x = b + (size_t)j * n;                                                                 \
            for (int k = 0; k < n; k++) {                                                             \
                int p = ipiv[k] - 1;                                                                  \
                if (p != k) {                                                                         \
                    T t = x[k];                                                                       \
                    x[k] = x[p];                                                                      \
                    x[p] = t;                                                                         \
                }                                                                                     \
            }                                                                                         \
            for (int k = 0; k < n; k++) {                                                             \
                const T t = x[k];                                                                     \
                const T *ck = a + (size_t)k * n;                                                      \
                for (int i = k + 1; i < n; i++) x[i] -= t * ck[i];                                    \
            }                                                                                         \
            for (int k = n - 1; k >= 0; k--) {                                                        \
                const T t = x[k] *= rd[k];                                                            \
                const T *ck = a + (size_t)k * n;                                                      \
                for (int i = 0; i < k; i++) x[i] -= t * ck[i];                                        \
            }                                                                                         \
        }                                                                                             \
    }

REAL_KERNELS(float, s, fabsf, FLT_MIN, fmaf)
REAL_KERNELS(double, d, fabs, DBL_MIN, fma)

/* ------------------------------------------------------------------ */
/* Complex kernels (interleaved re, im)                                */
/* ------------------------------------------------------------------ */
/* 1 / (re + i im) by Smith's method (OpenBLAS's zgetf2 does the same). */
#define CPX_KERNELS(T, SUF, ABS, SFMIN)                                                               \
    static inline void recip_##SUF(T re, T im, T *rr, T *ri)                                          \
    {                                                                                                 \
        if (ABS(re) >= ABS(im)) {                                                                     \
            T q = im / re, d = (T)1 / (re * ((T)1 + q * q));                                          \
            *rr = d, *ri = -q * d;                                                                    \
        } else {                                                                                      \
            T q = re / im, d = (T)1 / (im * ((T)1 + q * q));                                          \
            *rr = q * d, *ri = -d;                                                                    \
        }                                                                                             \
    }                                                                                                 \
    /* x / (re + i im), Smith */                                                                      \
    static inline void div_##SUF(T *x, T re, T im)                                                    \
    {                                                                                                 \
        T xr = x[0], xi = x[1];                                                                       \
        if (ABS(re) >= ABS(im)) {                                                                     \
            T q = im / re, d = re + im * q;                                                           \
            x[0] = (xr + xi * q) / d, x[1] = (xi - xr * q) / d;                                       \
        } else {                                                                                      \
            T q = re / im, d = im + re * q;                                                           \
            x[0] = (xr * q + xi) / d, x[1] = (xi * q - xr) / d;                                       \
        }                                                                                             \
    }                                                                                                 \
    static inline __attribute__((always_inline)) int lu_##SUF(int n, T *a, int32_t *ipiv)            \
    {                                                                                                 \
        int info = 0;                                                                                 \
        for (int j = 0; j < n; j++) {                                                                 \
            T *b = a + (size_t)2 * j * n;                                                             \
            for (int i = 0; i < j; i++) { /* the earlier pivots, on column j */                       \
                int p = ipiv[i] - 1;                                                                  \
                if (p != i) {                                                                         \
                    T t0 = b[2 * i], t1 = b[2 * i + 1];                                               \
                    b[2 * i] = b[2 * p], b[2 * i + 1] = b[2 * p + 1], b[2 * p] = t0, b[2 * p + 1] = t1; \
                }                                                                                     \
            }                                                                                         \
            for (int i = 0; i < j; i++) { /* U(0:j, j): unit lower solve (trsv, by columns) */        \
                const T xr = b[2 * i], xi = b[2 * i + 1];                                             \
                const T *l = a + (size_t)2 * i * n;                                                   \
                for (int k = i + 1; k < j; k++) {                                                     \
                    b[2 * k] -= l[2 * k] * xr - l[2 * k + 1] * xi;                                    \
                    b[2 * k + 1] -= l[2 * k] * xi + l[2 * k + 1] * xr;                                \
                }                                                                                     \
            }                                                                                         \
            for (int i = j; i < n; i++) { /* the rest of column j (gemv) */                           \
                T tr = 0, ti = 0;                                                                     \
                for (int k = 0; k < j; k++) {                                                         \
                    const T lr = a[(size_t)2 * ((size_t)k * n + i)], li = a[(size_t)2 * ((size_t)k * n + i) + 1]; \
                    tr += lr * b[2 * k] - li * b[2 * k + 1];                                          \
                    ti += lr * b[2 * k + 1] + li * b[2 * k];                                          \
                }                                                                                     \
                b[2 * i] -= tr, b[2 * i + 1] -= ti;                                                   \
            }                                                                                         \
            int p = j;                                                                                \
            T best = ABS(b[2 * j]) + ABS(b[2 * j + 1]);                                               \
            for (int i = j + 1; i < n; i++) {                                                         \
                T v = ABS(b[2 * i]) + ABS(b[2 * i + 1]);                                              \
                if (v > best) best = v, p = i;                                                        \
            }                                                                                         \
            ipiv[j] = p + 1;                                                                          \
            if (b[2 * p] != 0 || b[2 * p + 1] != 0) {                                                 \
                if (p != j)                                                                           \
                    for (int c = 0; c <= j; c++) {                                                    \
                        T *r1 = a + (size_t)2 * ((size_t)c * n + j), *r2 = a + (size_t)2 * ((size_t)c * n + p); \
                        T t0 = r1[0], t1 = r1[1];                                                     \
                        r1[0] = r2[0], r1[1] = r2[1], r2[0] = t0, r2[1] = t1;                         \
                    }                                                                                 \
                const T pr = b[2 * j], pi = b[2 * j + 1];                                             \
                if (ABS(pr) >= SFMIN || ABS(pi) >= SFMIN) {                                           \
                    T rr, ri;                                                                         \
                    recip_##SUF(pr, pi, &rr, &ri);                                                    \
                    for (int i = j + 1; i < n; i++) {                                                 \
                        T xr = b[2 * i], xi = b[2 * i + 1];                                           \
                        b[2 * i] = xr * rr - xi * ri, b[2 * i + 1] = xr * ri + xi * rr;               \
                    }                                                                                 \
                } else {                                                                              \
                    for (int i = j + 1; i < n; i++) div_##SUF(b + 2 * i, pr, pi);                     \
                }                                                                                     \
            } else if (info == 0) {                                                                   \
                info = j + 1;                                                                         \
            }                                                                                         \
        }                                                                                             \
        return info;                                                                                  \
    }                                                                                                 \
    static inline __attribute__((always_inline)) void rs_##SUF(int n, int nrhs, const T *a,           \
                                                               const int32_t *ipiv, T *b)             \
    {                                                                                                 \
        T rd[2 * ND_LA_SMALL_N];                                                                      \
        for (int k = 0; k < n; k++)                                                                   \
            recip_##SUF(a[2 * ((size_t)k * n + k)], a[2 * ((size_t)k * n + k) + 1], rd + 2 * k, rd + 2 * k + 1); \
        for (int j = 0; j < nrhs; j++) {                                                              \
            T *x = b + (size_t)2 * j * n;                                                             \
            for (int k = 0; k < n; k++) {                                                             \
                int p = ipiv[k] - 1;                                                                  \
                if (p != k) {                                                                         \
                    T t0 = x[2 * k], t1 = x[2 * k + 1];                                               \
                    x[2 * k] = x[2 * p], x[2 * k + 1] = x[2 * p + 1], x[2 * p] = t0, x[2 * p + 1] = t1; \
                }                                                                                     \
            }                                                                                         \
            for (int k = 0; k < n; k++) {                                                             \
                const T tr = x[2 * k], ti = x[2 * k + 1];                                             \
                const T *ck = a + (size_t)2 * k * n;                                                  \
                for (int i = k + 1; i < n; i++) {                                                     \
                    x[2 * i] -= tr * ck[2 * i] - ti * ck[2 * i + 1];                                  \
                    x[2 * i + 1] -= tr * ck[2 * i + 1] + ti * ck[2 * i];                              \
                }                                                                                     \
            }                                                                                         \
            for (int k = n - 1; k >= 0; k--) {                                                        \
                T xr = x[2 * k], xi = x[2 * k + 1];                                                   \
                const T tr = xr * rd[2 * k] - xi * rd[2 * k + 1];                                     \
                const T ti = xr * rd[2 * k + 1] + xi * rd[2 * k];                                     \
                x[2 * k] = tr, x[2 * k + 1] = ti;                                                     \
                const T *ck = a + (size_t)2 * k * n;                                                  \
                for (int i = 0; i < k; i++) {                                                         \
                    x[2 * i] -= tr * ck[2 * i] - ti * ck[2 * i + 1];                                  \
                    x[2 * i + 1] -= tr * ck[2 * i + 1] + ti * ck[2 * i];                              \
                }                                                                                     \
            }                                                                                         \
        }                                                                                             \
    }

CPX_KERNELS(float, c, fabsf, FLT_MIN)
CPX_KERNELS(double, z, fabs, DBL_MIN)

/* ------------------------------------------------------------------ */
/* The batch                                                           */
/* ------------------------------------------------------------------ */
typedef struct {
    nd_dtype t;
    int op, n, nrhs;
    char *a, *b;
    int32_t *ipiv; /* GETRF: the caller's (batch, n); GESV: NULL */
    int32_t *info;
    size_t asz, bsz; /* bytes per matrix of a and b */
} small_job;

/* One matrix i of the batch, n a compile-time constant in the callers. */
#define SMALL_ONE(SUF, T, N)                                                                          \
    do {                                                                                              \
        int32_t pv[ND_LA_SMALL_N];                                                                    \
        int32_t *ip = j->ipiv ? j->ipiv + (size_t)i * (size_t)(N) : pv;                               \
        T *a = (T *)(j->a + (size_t)i * j->asz);                                                      \
        int inf = lu_##SUF((N), a, ip);                                                               \
        if (j->op == ND_LA_GESV && inf == 0) rs_##SUF((N), j->nrhs, a, ip, (T *)(j->b + (size_t)i * j->bsz)); \
        j->info[i] = inf;                                                                             \
    } while (0)

#define SMALL_BODY(SUF, T, NAME, ATTR)                                                                \
    static ATTR void NAME(void *ctx, int64_t b, int64_t e)                                            \
    {                                                                                                 \
        const small_job *j = ctx;                                                                     \
        switch (j->n) {                                                                               \
        case 1: for (int64_t i = b; i < e; i++) SMALL_ONE(SUF, T, 1); break;                          \
        case 2: for (int64_t i = b; i < e; i++) SMALL_ONE(SUF, T, 2); break;                          \
        case 3: for (int64_t i = b; i < e; i++) SMALL_ONE(SUF, T, 3); break;                          \
        case 4: for (int64_t i = b; i < e; i++) SMALL_ONE(SUF, T, 4); break;                          \
        case 5: for (int64_t i = b; i < e; i++) SMALL_ONE(SUF, T, 5); break;                          \
        case 6: for (int64_t i = b; i < e; i++) SMALL_ONE(SUF, T, 6); break;                          \
        case 7: for (int64_t i = b; i < e; i++) SMALL_ONE(SUF, T, 7); break;                          \
        case 8: for (int64_t i = b; i < e; i++) SMALL_ONE(SUF, T, 8); break;                          \
        default: for (int64_t i = b; i < e; i++) SMALL_ONE(SUF, T, j->n); break;                      \
        }                                                                                             \
    }

SMALL_BODY(s, float, body_s, )
SMALL_BODY(d, double, body_d, )
SMALL_BODY(c, float, body_c, )
SMALL_BODY(z, double, body_z, )
/* with hardware FMA (the bits are the same: fma() is exact either way) */
SMALL_BODY(s, float, body_s_avx2, ND_ISA_TARGET_AVX2)
SMALL_BODY(d, double, body_d_avx2, ND_ISA_TARGET_AVX2)

bool nd__la_small_applies(const nd_la_call *c)
{
    return (c->op == ND_LA_GETRF || c->op == ND_LA_GESV) && c->n <= ND_LA_SMALL_N && c->m == c->n;
}

void nd__la_small(const nd_la_call *c)
{
    small_job j;
    j.t = c->a->dtype;
    j.op = c->op;
    j.n = (int)c->n;
    j.nrhs = c->op == ND_LA_GESV ? (int)c->nrhs : 0;
    j.a = nd__ptr(c->a);
    j.b = c->op == ND_LA_GESV ? nd__ptr(c->b) : NULL;
    j.ipiv = c->op == ND_LA_GETRF ? (int32_t *)nd__ptr(c->ipiv) : NULL;
    j.info = c->info;
    const size_t isz = nd__itemsize(j.t);
    j.asz = (size_t)(j.n * j.n) * isz;
    j.bsz = (size_t)j.n * (size_t)j.nrhs * isz;
    const int64_t cpx = j.t == ND_COMPLEX64 || j.t == ND_COMPLEX128 ? 4 : 1;
    const int64_t cost = cpx * (int64_t)j.n * j.n * (j.n + 2 * j.nrhs) / 2 + 8;
    const bool fma = nd__cpu_isa() >= ND_ISA_AVX2;
    nd_range_fn fn = j.t == ND_FLOAT32   ? (fma ? body_s_avx2 : body_s)
                     : j.t == ND_FLOAT64 ? (fma ? body_d_avx2 : body_d)
                     : j.t == ND_COMPLEX64 ? body_c
                                           : body_z;
    nd__parallel_for(c->batch, cost, fn, &j);
}
