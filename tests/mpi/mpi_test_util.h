/* Helpers of the collective tests (tests/mpi/test_mpi.c), run by every
 * rank under mpirun (tests/mpi/run.sh).
 *
 * Check runs in-process (CK_NOFORK: MPI and fork do not mix). A failed
 * ck_assert leaves the test on that rank only, and the other ranks would
 * then wait in a collective the failed rank never makes; so the tests
 * record failures (MT_OK, MT_ERR, MT_TRUE) and keep going, and mt_end()
 * at the end of every test agrees on the verdict across ranks (one
 * MPI_Allreduce on MPI_COMM_WORLD) before asserting it: every rank fails
 * the same tests, in step. */
#ifndef ND_MPI_TEST_UTIL_H
#define ND_MPI_TEST_UTIL_H

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "creation_util.h"
#include "ndgpu_mpi.h"

extern nd_comm *g_comm;
extern int g_rank, g_size;
extern int g_ndev;
extern nd_device g_devs[2];

extern int mt_bad;
extern char mt_first[1024];

static inline void mt_record(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static inline void mt_record(const char *file, int line, const char *fmt, ...)
{
    if (mt_bad++ == 0) {
        int n = snprintf(mt_first, sizeof mt_first, "%s:%d: ", file, line);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(mt_first + n, sizeof mt_first - (size_t)n, fmt, ap);
        va_end(ap);
    }
}

#define MT_FAIL(...) mt_record(__FILE__, __LINE__, __VA_ARGS__)
#define MT_TRUE(cond, ...)                   \
    do {                                     \
        if (!(cond)) MT_FAIL(__VA_ARGS__);   \
    } while (0)
#define MT_OK(call)                                                                                    \
    do {                                                                                               \
        nd_status st_ = (call);                                                                        \
        if (st_ != ND_OK) MT_FAIL("%s -> %s: %s", #call, nd_status_name(st_), nd_last_error());        \
    } while (0)
#define MT_ERR(call, code, needle)                                                                     \
    do {                                                                                               \
        nd_status st_ = (call);                                                                        \
        if (st_ != (code))                                                                             \
            MT_FAIL("%s -> %s (want %s): %s", #call, nd_status_name(st_), nd_status_name(code),        \
                    nd_last_error());                                                                  \
        else if (!strstr(nd_last_error(), (needle)))                                                   \
            MT_FAIL("%s: message '%s' lacks '%s'", #call, nd_last_error(), (needle));                 \
    } while (0)

static inline void mt_begin(void)
{
    mt_bad = 0;
    mt_first[0] = '\0';
}

/* The verdict of this test on every rank (call at its end on every rank). */
#define mt_end()                                                                                       \
    do {                                                                                               \
        int mine_ = mt_bad, total_ = 0;                                                                \
        MPI_Allreduce(&mine_, &total_, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);                           \
        ck_assert_msg(total_ == 0, "rank %d: %d failures here, %d on all ranks; first here: %s", g_rank, \
                      mine_, total_, mine_ ? mt_first : "(none on this rank)");                       \
    } while (0)

#define mt_dtypes cv_all_dtypes

static inline bool mt_is_float(nd_dtype t)
{
    return t == ND_FLOAT16 || t == ND_BFLOAT16 || t == ND_FLOAT32 || t == ND_FLOAT64;
}

/* The value of element i of rank r's input: small, exactly representable
 * in every dtype, different on every rank and element, never all zero. */
static inline double mt_val(int r, int64_t i, nd_dtype t)
{
    if (t == ND_BOOL) return (i + r) % 3 != 0;
    if (mt_is_float(t)) return 0.25 * (double)((i * 3 + r * 5) % 13) - 1.5;
    return (double)(1 + (i + 2 * r) % 5);
}


/* Layouts of an operand: how the array with the logical shape is made. */
enum { L_CONTIG, L_TRANSPOSED, L_STRIDED, L_COUNT };
static const char *const mt_layout_name[L_COUNT] = {"contiguous", "transposed", "strided"};

/* An array of logical shape (ndim, shape) on dev in layout L (transposed:
 * a .T view of the reversed shape; strided: every other row of a taller
 * array), filled in C order with vals (host doubles). NULL on failure
 * (recorded). */
static inline nd_array *mt_make(nd_dtype t, int L, int ndim, const int64_t *shape, nd_device dev, const double *vals)
{
    nd_array *base = NULL, *v = NULL;
    int64_t bs[ND_MAX_DIMS];
    nd_status st;
    if (L == L_TRANSPOSED && ndim >= 2) {
        for (int i = 0; i < ndim; i++) bs[i] = shape[ndim - 1 - i];
        st = nd_empty(&base, t, ndim, bs, dev);
        if (!st) st = nd_transpose(&v, base, NULL);
    } else if (L == L_STRIDED && ndim >= 1) {
        memcpy(bs, shape, sizeof(int64_t) * (size_t)ndim);
        bs[0] = shape[0] * 2;
        st = nd_empty(&base, t, ndim, bs, dev);
        nd_range r0 = {0, bs[0], 2};
        if (!st) st = nd_slice(&v, base, 1, &r0);
    } else {
        st = nd_empty(&v, t, ndim, shape, dev);
    }
    nd_release(base);
    if (st) {
        MT_FAIL("making a %s %s array: %s", mt_layout_name[L], nd_dtype_name(t), nd_last_error());
        nd_release(v);
        return NULL;
    }
    int64_t n = nd_size(v);
    size_t isz = nd_dtype_size(t);
    unsigned char *raw = malloc((size_t)n * isz + 1);
    for (int64_t i = 0; i < n; i++) cv_elem_store(raw + (size_t)i * isz, t, vals[i]);
    st = nd_copy_from_host(v, raw, (size_t)n * isz);
    free(raw);
    if (st) {
        MT_FAIL("filling: %s", nd_last_error());
        nd_release(v);
        return NULL;
    }
    return v;
}

/* Compare a (any layout/device) with want[0..n) (doubles in the dtype's
 * precision); floats within tol relative, NaN equal to NaN. */
static inline void mt_expect(const nd_array *a, const double *want, int64_t n, double tol, const char *what)
{
    if (!a) return;
    if (nd_size(a) != n) {
        MT_FAIL("%s: %lld elements, want %lld", what, (long long)nd_size(a), (long long)n);
        return;
    }
    nd_dtype t = nd_dtype_of(a);
    size_t isz = nd_dtype_size(t);
    unsigned char *raw = malloc((size_t)n * isz + 1);
    nd_status st = nd_copy_to_host(raw, a, (size_t)n * isz);
    if (st) {
        MT_FAIL("%s: reading back: %s", what, nd_last_error());
        free(raw);
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        double g = cv_elem_f64(raw + (size_t)i * isz, t), w = want[i];
        bool ok = (isnan(w) && isnan(g)) || g == w || (mt_is_float(t) && fabs(g - w) <= tol * fmax(1.0, fabs(w)));
        if (!ok) {
            MT_FAIL("%s: element %lld is %.9g, want %.9g", what, (long long)i, g, w);
            break;
        }
    }
    free(raw);
}

/* Relative tolerance of a reduction over size ranks in dtype t. */
static inline double mt_tol(nd_dtype t, int size)
{
    double eps = t == ND_BFLOAT16 ? 0x1p-8 : t == ND_FLOAT16 ? 0x1p-11 : t == ND_FLOAT32 ? 0x1p-24 : 0x1p-53;
    return 2.0 * eps * (size > 1 ? size : 1);
}

#endif
