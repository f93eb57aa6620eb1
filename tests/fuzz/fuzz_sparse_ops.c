/* libFuzzer target for the sparse API on hostile matrices: construction
 * from parts nobody checked (COO triplets, CSR/CSC parts with indptr and
 * indices of either index dtype, shapes from a table of hostile extents:
 * 0, 1, 2^31, 2^62, INT64_MAX, negatives), then conversions, transposes,
 * the in-place canonical forms, products with dense and sparse operands,
 * elementwise and scalar ops, sums, diagonals, row slices and gathers, and
 * the iterative solvers (any matrix, any tolerance, a bounded maxiter).
 * Each step's first byte may arm an allocation failure for that step (the
 * k-th allocation from there fails once: nd__alloc_fail_after; disarmed
 * before the checks), so that the operations' failure paths run too.
 *
 *   make fuzz FUZZ_SECONDS=60     (mk/fuzz.mk; clang, ASan + UBSan)
 *
 * The input is a little program over a stack of at most four matrices;
 * the CPU allocator is capped at 16 MiB, so a result that can exist but
 * is large (a dense form or the row pointers of 2^62 rows) fails with
 * ND_ERR_NOMEM at once.
 *
 * Properties checked after every call:
 *  - no crash, no sanitizer report (UBSan catches signed overflow), no leak;
 *  - on failure the out-pointer is still NULL (or the matrix changed in
 *    place is still valid), the status is a known code and nd_last_error()
 *    names an nd_ function;
 *  - every matrix on the stack is valid: non-negative shape and nnz, parts
 *    of the sizes its format needs, row pointers from 0 to nnz never
 *    decreasing, every index in range;
 *  - a product with a dense operand, where the matrix's dense form fits,
 *    agrees with nd_matmul of that dense form (float32/float64: within a
 *    few ulps of the terms' magnitudes, NaN where it has NaN). */
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h" /* nd__alloc_fail_after: the failure paths too */
#include "fuzz_reader.h"
#include "ndgpu.h"

#define CAP 4
#define MAXN 64 /* the most stored entries a constructor is given */


/* An extent, index, offset or step: mostly small, sometimes hostile. */
static int64_t ext(reader *r)
{
    static const int64_t tbl[] = {0, 1, 2, 3, 4, 5, 7, 8, -1, -2, -3, 6,
                                  INT64_C(1) << 31, (INT64_C(1) << 31) - 1, INT64_C(1) << 32, INT64_C(1) << 62,
                                  INT64_MAX, INT64_MIN, INT64_MAX / 3, 100000};
    unsigned c = u8(r);
    if (c == 0xff) return raw64(r);
    return tbl[c % (sizeof tbl / sizeof tbl[0])];
}

static const nd_dtype VALUE_DTYPES[] = {ND_FLOAT64, ND_FLOAT32, ND_COMPLEX128, ND_COMPLEX64,
                                        ND_FLOAT16, ND_BFLOAT16, ND_INT32,     ND_BOOL};
static const double VALUES[] = {1, 2, -1, 0, 3, 0.5, -2, 4};

static nd_dtype vdtype(reader *r) { return VALUE_DTYPES[u8(r) % 8]; }
static nd_dtype idtype(reader *r) { return (u8(r) & 1) ? ND_INT64 : ND_INT32; }

static void check_failure(nd_status st)
{
    if (st < ND_ERR_INVALID || st > ND_ERR_INTERNAL + 16) __builtin_trap();
    if (strncmp(nd_last_error(), "nd_", 3) != 0) __builtin_trap();
}

/* A 1-D array of n values from the input, of dtype t: indices from the
 * table of extents (int64, narrowed by nd_astype for int32: wrapping), or
 * values from VALUES (NULL where t cannot hold them). */
static nd_array *vec(reader *r, nd_dtype t, int64_t n, bool index)
{
    double h[MAXN];
    int64_t hi[MAXN];
    for (int64_t i = 0; i < n; i++) {
        if (index) hi[i] = ext(r);
        else h[i] = VALUES[u8(r) % 8];
    }
    nd_array *d = NULL, *o = NULL;
    if (nd_from_host(&d, index ? (const void *)hi : (const void *)h, index ? ND_INT64 : ND_FLOAT64, 1, &n, nd_cpu()) !=
        ND_OK)
        return NULL; /* an injected failure */
    nd_status st = nd_astype(&o, d, t);
    nd_release(d);
    return st == ND_OK ? o : NULL;
}

/* Every stored index of part p in [0, lim). */
static void check_indices(const nd_array *p, int64_t lim)
{
    int64_t n = nd_size(p);
    int64_t *h = malloc((size_t)(n ? n : 1) * sizeof *h);
    nd_array *c = NULL;
    if (!h || nd_astype(&c, p, ND_INT64) != ND_OK || nd_copy_to_host(h, c, (size_t)n * 8) != ND_OK) __builtin_trap();
    for (int64_t i = 0; i < n; i++)
        if (h[i] < 0 || h[i] >= lim) __builtin_trap();
    nd_release(c);
    free(h);
}

static void check_matrix(const nd_sparse *s)
{
    const int64_t rows = nd_sparse_rows(s), cols = nd_sparse_cols(s), nnz = nd_sparse_nnz(s);
    if (rows < 0 || cols < 0 || nnz < 0) __builtin_trap();
    if (nnz > (int64_t)1 << 21) return; /* capped memory keeps this unreachable; a guard for the copies */
    nd_array *d = NULL;
    if (nd_sparse_part_get(&d, s, ND_SPARSE_DATA) != ND_OK || nd_size(d) != nnz) __builtin_trap();
    nd_release(d);
    nd_sparse_format f = nd_sparse_format_of(s);
    if (f == ND_SPARSE_COO) {
        nd_array *rw = NULL, *cl = NULL;
        if (nd_sparse_part_get(&rw, s, ND_SPARSE_ROW) != ND_OK || nd_sparse_part_get(&cl, s, ND_SPARSE_COL) != ND_OK)
            __builtin_trap();
        if (nd_size(rw) != nnz || nd_size(cl) != nnz) __builtin_trap();
        check_indices(rw, rows);
        check_indices(cl, cols);
        nd_release(rw), nd_release(cl);
        return;
    }
    const int64_t major = f == ND_SPARSE_CSR ? rows : cols, minor = f == ND_SPARSE_CSR ? cols : rows;
    nd_array *ip = NULL, *ix = NULL;
    if (nd_sparse_part_get(&ip, s, ND_SPARSE_INDPTR) != ND_OK || nd_sparse_part_get(&ix, s, ND_SPARSE_INDICES) != ND_OK)
        __builtin_trap();
    if (nd_size(ip) != major + 1 || nd_size(ix) != nnz) __builtin_trap();
    if (major < (int64_t)1 << 21) {
        int64_t *h = malloc((size_t)(major + 1) * sizeof *h);
        nd_array *c = NULL;
        if (!h || nd_astype(&c, ip, ND_INT64) != ND_OK || nd_copy_to_host(h, c, (size_t)(major + 1) * 8) != ND_OK)
            __builtin_trap();
        if (h[0] != 0 || h[major] != nnz) __builtin_trap();
        for (int64_t i = 0; i < major; i++)
            if (h[i + 1] < h[i]) __builtin_trap();
        nd_release(c);
        free(h);
    }
    check_indices(ix, minor);
    nd_release(ip), nd_release(ix);
}

static nd_sparse *stk[CAP];
static int top;

static void push(nd_sparse *s)
{
    check_matrix(s);
    if (top == CAP) {
        nd_sparse_release(stk[0]);
        memmove(stk, stk + 1, (CAP - 1) * sizeof stk[0]);
        top--;
    }
    stk[top++] = s;
}

static nd_sparse *peek(int k) { return top > k ? stk[top - 1 - k] : NULL; }

/* A sparse result: pushed on success, checked on failure. */
static void result(nd_status st, nd_sparse *out)
{
    nd__alloc_fault_reset(); /* the checks' own calls must not fail */
    if (st == ND_OK) {
        if (!out) __builtin_trap();
        push(out);
    } else {
        if (out) __builtin_trap();
        check_failure(st);
    }
}

/* A dense result: checked and released. */
static void dense_result(nd_status st, nd_array *out)
{
    nd__alloc_fault_reset();
    if (st == ND_OK) {
        if (!out || nd_size(out) < 0) __builtin_trap();
        nd_release(out);
    } else {
        if (out) __builtin_trap();
        check_failure(st);
    }
}

/* s @ b against nd_matmul of s's dense form, where that fits. */
static void matmul_step(reader *r, const nd_sparse *s)
{
    const int64_t cols = nd_sparse_cols(s), rows = nd_sparse_rows(s);
    if (cols > 64 || rows > 64) return;
    const int two = u8(r) & 1;
    const int64_t shape[2] = {cols, 1 + (int64_t)(u8(r) % 3)};
    nd_array *b = NULL, *o = NULL;
    if (nd_full(&b, nd_sparse_dtype(s), 1 + two, shape, nd_scalar_float(VALUES[u8(r) % 8]), nd_cpu()) != ND_OK)
        return; /* a dtype nd_full does not take */
    nd_status st = nd_sparse_matmul(&o, s, b);
    nd__alloc_fault_reset();
    if (st != ND_OK) {
        if (o) __builtin_trap();
        check_failure(st);
    } else {
        nd_array *d = NULL, *ref = NULL;
        if (nd_sparse_to_dense(&d, s) == ND_OK && nd_matmul(&ref, d, b) == ND_OK &&
            (nd_dtype_of(ref) == ND_FLOAT64 || nd_dtype_of(ref) == ND_FLOAT32)) {
            if (nd_nbytes(ref) != nd_nbytes(o) || nd_dtype_of(ref) != nd_dtype_of(o)) __builtin_trap();
            /* as float64; the sums' orders differ (scalar ops may have made
             * the values inexact): within a few ulps of the dtype times the
             * sum of the terms' magnitudes, |A| @ |b| (a result that cancels
             * is small while its rounding errors are not) */
            nd_array *x64 = NULL, *y64 = NULL, *ad = NULL, *ab = NULL, *mg = NULL, *m64 = NULL;
            const int64_t n = nd_size(o);
            double *x = malloc((size_t)(n + 1) * 8), *y = malloc((size_t)(n + 1) * 8), *m = malloc((size_t)(n + 1) * 8);
            if (!x || !y || !m || nd_astype(&x64, o, ND_FLOAT64) != ND_OK || nd_astype(&y64, ref, ND_FLOAT64) != ND_OK ||
                nd_unary(&ad, ND_UNARY_ABS, d) != ND_OK || nd_unary(&ab, ND_UNARY_ABS, b) != ND_OK ||
                nd_matmul(&mg, ad, ab) != ND_OK || nd_astype(&m64, mg, ND_FLOAT64) != ND_OK ||
                nd_copy_to_host(x, x64, (size_t)n * 8) != ND_OK || nd_copy_to_host(y, y64, (size_t)n * 8) != ND_OK ||
                nd_copy_to_host(m, m64, (size_t)n * 8) != ND_OK)
                __builtin_trap();
            const double eps = (nd_dtype_of(o) == ND_FLOAT64 ? 0x1p-52 : 0x1p-23) * 4.0 * (double)(cols + 1);
            for (int64_t i = 0; i < n; i++) {
                if (x[i] != x[i] || y[i] != y[i]) { /* NaN on one side only: a wrong product */
                    if ((x[i] != x[i]) != (y[i] != y[i])) __builtin_trap();
                    continue;
                }
                if (x[i] == y[i] || !(m[i] <= 1e300)) continue; /* equal, or terms that overflow */
                if (!(fabs(x[i] - y[i]) <= eps * m[i] + 1e-300)) __builtin_trap();
            }
            free(x), free(y), free(m);
            nd_release(x64), nd_release(y64), nd_release(ad), nd_release(ab), nd_release(mg), nd_release(m64);
        }
        nd_release(d), nd_release(ref), nd_release(o);
    }
    nd_release(b);
}

static void step(reader *r)
{
    nd_sparse *out = NULL, *a = peek(0), *b = peek(1);
    const unsigned f = u8(r);
    if (f & 0x80) nd__alloc_fail_after((long)(f & 0x3f) + 1);
    unsigned op = u8(r) % 21;
    nd_status st;
    switch (op) {
    case 0:
    case 1: { /* COO or canonical, from triplets */
        const int64_t n = (int64_t)(u8(r) % 9), rows = ext(r), cols = ext(r);
        const nd_dtype it = idtype(r), vt = vdtype(r);
        nd_array *d = vec(r, vt, n, false), *ri = vec(r, it, n, true), *ci = vec(r, it, n, true);
        if (d && ri && ci) {
            st = op == 0 ? nd_sparse_coo(&out, d, ri, ci, rows, cols)
                         : nd_sparse_from_triplets(&out, (nd_sparse_format)(u8(r) % 3), d, ri, ci, rows, cols);
            result(st, out);
        }
        nd_release(d), nd_release(ri), nd_release(ci);
        break;
    }
    case 2: { /* CSR/CSC from parts: the row pointers as given */
        const nd_sparse_format f = (u8(r) & 1) ? ND_SPARSE_CSC : ND_SPARSE_CSR;
        const int64_t major = (int64_t)(u8(r) % 7), minor = ext(r), n = (int64_t)(u8(r) % 9);
        const nd_dtype it = idtype(r), vt = vdtype(r);
        nd_array *d = vec(r, vt, n, false), *ix = vec(r, it, n, true), *ip = NULL;
        int64_t h[8];
        for (int64_t i = 0; i <= major; i++) h[i] = (u8(r) & 7) ? i * n / (major ? major : 1) : ext(r);
        const int64_t np = major + 1;
        nd_array *ipd = NULL;
        if (nd_from_host(&ipd, h, ND_INT64, 1, &np, nd_cpu()) != ND_OK || nd_astype(&ip, ipd, it) != ND_OK) ip = NULL;
        nd_release(ipd);
        const int64_t claimed = (u8(r) & 3) ? major : ext(r); /* sometimes an extent the row pointers lack */
        if (d && ix && ip) {
            st = nd_sparse_compressed(&out, f, d, ix, ip, f == ND_SPARSE_CSR ? claimed : minor,
                                      f == ND_SPARSE_CSR ? minor : claimed);
            result(st, out);
        }
        nd_release(d), nd_release(ix), nd_release(ip);
        break;
    }
    case 3: { /* from a small dense array with zeros */
        const int64_t shape[2] = {(int64_t)(u8(r) % 6), (int64_t)(u8(r) % 6)};
        nd_array *x = NULL, *z = NULL, *m = NULL;
        if (nd_arange(&x, vdtype(r), -3.0, -3.0 + (double)(shape[0] * shape[1]), 1.0, nd_cpu()) != ND_OK) break;
        if (nd_reshape(&z, x, 2, shape) == ND_OK) {
            st = nd_sparse_from_dense(&out, z, (nd_sparse_format)(u8(r) % 4));
            result(st, out);
        }
        nd_release(x), nd_release(z), nd_release(m);
        break;
    }
    case 4:
        if (a) result(nd_sparse_convert(&out, a, (nd_sparse_format)(u8(r) % 4)), out);
        break;
    case 5:
        if (a) result(nd_sparse_transpose(&out, a), out);
        break;
    case 6:
        if (a) {
            unsigned w = u8(r) % 3;
            st = w == 0 ? nd_sparse_sum_duplicates(a) : w == 1 ? nd_sparse_sort_indices(a) : nd_sparse_eliminate_zeros(a);
            nd__alloc_fault_reset();
            if (st != ND_OK) check_failure(st);
            check_matrix(a); /* valid whether or not the call succeeded */
            bool canon = false;
            if (nd_sparse_has_canonical_format(a, &canon) != ND_OK) __builtin_trap();
        }
        break;
    case 7:
        if (a) matmul_step(r, a);
        break;
    case 8:
        if (a && b && nd_sparse_nnz(a) <= 4096 && nd_sparse_nnz(b) <= 4096) result(nd_sparse_spgemm(&out, a, b), out);
        break;
    case 9:
        if (a && b) {
            unsigned w = u8(r) % 3;
            st = w == 0 ? nd_sparse_add(&out, a, b) : w == 1 ? nd_sparse_subtract(&out, a, b) : nd_sparse_multiply(&out, a, b);
            result(st, out);
        }
        break;
    case 10:
        if (a && nd_sparse_rows(a) <= 64 && nd_sparse_cols(a) <= 64) {
            const int64_t shapes[4][2] = {{0, 0}, {nd_sparse_cols(a), 0}, {nd_sparse_rows(a), 1},
                                          {nd_sparse_rows(a), nd_sparse_cols(a)}};
            unsigned w = u8(r) % 4;
            nd_array *d = NULL;
            const int nd = w == 0 ? 0 : w == 1 ? 1 : 2;
            const int64_t sh[2] = {shapes[w][0], w == 1 ? 0 : shapes[w][1]};
            if (nd_full(&d, nd_sparse_dtype(a), nd, sh, nd_scalar_float(VALUES[u8(r) % 8]), nd_cpu()) == ND_OK)
                result(nd_sparse_multiply_dense(&out, a, d), out);
            nd_release(d);
        }
        break;
    case 11:
        if (a) result(nd_sparse_unary(&out, (nd_unary_op)(u8(r) % ND_NUM_UNARY_OPS), a), out);
        break;
    case 12:
        if (a)
            result(nd_sparse_binary_scalar(&out, (nd_binary_op)(u8(r) % ND_NUM_BINARY_OPS), a,
                                           nd_scalar_float(VALUES[u8(r) % 8])),
                   out);
        break;
    case 13:
        if (a) {
            static const int axes[] = {0, 1, -1, -2, ND_AXIS_NONE, 2, -3};
            nd_array *o = NULL;
            dense_result(nd_sparse_sum(&o, a, axes[u8(r) % 7]), o);
        }
        break;
    case 14:
        if (a) {
            nd_array *o = NULL;
            dense_result(nd_sparse_diagonal(&o, a, ext(r)), o);
        }
        break;
    case 15:
        if (a) result(nd_sparse_slice_rows(&out, a, ext(r), ext(r), ext(r)), out);
        break;
    case 16:
        if (a) {
            const int64_t n = (int64_t)(u8(r) % 6);
            nd_array *idx = vec(r, idtype(r), n, true);
            if (idx) result(nd_sparse_take(&out, a, idx, (int)(u8(r) % 3)), out);
            nd_release(idx);
        }
        break;
    case 17:
        if (a) {
            nd_array *o = NULL;
            dense_result(nd_sparse_to_dense(&o, a), o);
        }
        break;
    case 18:
        if (a) result(nd_sparse_to_device(&out, a, nd_cpu()), out);
        break;
    case 19: /* the solvers on whatever the matrix is (singular, not square, NaN): a status, a bounded run */
        if (a && nd_sparse_rows(a) <= 64) {
            nd_array *rhs = NULL, *x = NULL;
            const int64_t n = nd_sparse_rows(a);
            if (nd_full(&rhs, nd_sparse_dtype(a), 1, &n, nd_scalar_float(VALUES[u8(r) % 8]), nd_cpu()) == ND_OK) {
                nd_sparse_solve_info info;
                const double rtols[4] = {1e-5, 0.0, -1.0, 1e300};
                const int64_t maxiter = (int64_t)(u8(r) % 40) - 4;
                st = (u8(r) & 1) ? nd_sparse_cg(&x, a, rhs, NULL, rtols[u8(r) % 4], 0.0, maxiter, &info)
                                 : nd_sparse_bicgstab(&x, a, rhs, NULL, rtols[u8(r) % 4], 0.0, maxiter, &info);
                nd__alloc_fault_reset();
                if (st == ND_OK) {
                    if (!x || nd_size(x) != n || info.iterations < 0) __builtin_trap();
                } else {
                    if (x) __builtin_trap();
                    check_failure(st);
                }
                nd_release(x);
            }
            nd_release(rhs);
        }
        break;
    default: /* drop the top */
        if (top) nd_sparse_release(stk[--top]);
        break;
    }
    nd__alloc_fault_reset();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int init;
    if (!init) {
        init = 1;
        nd_set_num_threads(1);
        if (nd_memory_set_limit(nd_cpu(), (size_t)16 << 20) != ND_OK) __builtin_trap();
    }
    reader r = {data, size};
    for (int i = 0; i < 16 && r.n; i++) step(&r);
    while (top) nd_sparse_release(stk[--top]);
    return 0;
}
