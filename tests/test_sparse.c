/* Sparse matrices (src/sparse, src/cpu/sparse.c): construction and
 * validation, conversions, canonical forms, and every operation, for
 * float32, float64, complex64 and complex128 values with int32 and int64
 * indices, against dense references computed here in double complex.
 *
 * Values are small dyadic numbers (k/4, |k| <= 8, real and imaginary
 * parts), so every sum and product the tests form is exact in float32:
 * results are compared exactly. Matrices carry unsorted and duplicate
 * indices (and explicit zeros) where the operation allows them, as
 * scipy.sparse does; the behaviours scipy defines (duplicates summed by
 * tocsr with zero sums kept, binops dropping zeros, multiply by a dense
 * array keeping the structure) are asserted on the stored entries.
 * Every case runs on the suite's device, ND_DEVICE's (cuda:0 under make
 * emu-test: the CUDA backend's kernels and the cuSPARSE stand-in), else the
 * CPU; where a GPU is present, the test `device` also compares the two
 * devices' results bit for bit (exact data: equal bits). */
#include <complex.h>

#include "cpu/cpu.h" /* nd__sp_stream_min */
#include "test_util.h"

typedef double complex cplx;

static const nd_dtype VT[4] = {ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128};
static const nd_dtype IT[2] = {ND_INT32, ND_INT64};
static const nd_device CPU = {ND_DEVICE_CPU, 0};
/* the device the cases compute on */
static nd_device DEV(void) { return nd_default_device(); }

static uint64_t g_rs = 0x243f6a8885a308d3ull;
static uint64_t rnd(void)
{
    g_rs ^= g_rs << 13, g_rs ^= g_rs >> 7, g_rs ^= g_rs << 17;
    return g_rs;
}
static bool is_cpx(nd_dtype t) { return t == ND_COMPLEX64 || t == ND_COMPLEX128; }
/* a nonzero dyadic value (imaginary part for complex dtypes) */
static cplx rval(nd_dtype t)
{
    double re = (double)((int)(rnd() % 16) - 8) / 4, im = 0;
    if (re == 0) re = 1.25;
    if (is_cpx(t)) im = (double)((int)(rnd() % 9) - 4) / 4;
    return re + im * I;
}

/* n values of dtype t from v into a new array on the suite's device */
static nd_array *arr_vals(nd_dtype t, int64_t n, const cplx *v)
{
    size_t isz = nd_dtype_size(t);
    unsigned char *buf = calloc((size_t)n + 1, isz);
    for (int64_t i = 0; i < n; i++) {
        if (t == ND_FLOAT32) ((float *)buf)[i] = (float)creal(v[i]);
        if (t == ND_FLOAT64) ((double *)buf)[i] = creal(v[i]);
        if (t == ND_COMPLEX64) ((float *)buf)[2 * i] = (float)creal(v[i]), ((float *)buf)[2 * i + 1] = (float)cimag(v[i]);
        if (t == ND_COMPLEX128) ((double *)buf)[2 * i] = creal(v[i]), ((double *)buf)[2 * i + 1] = cimag(v[i]);
        if (t == ND_INT32) ((int32_t *)buf)[i] = (int32_t)creal(v[i]);
        if (t == ND_INT64) ((int64_t *)buf)[i] = (int64_t)creal(v[i]);
    }
    nd_array *a = NULL;
    ND_OK_OR_FAIL(nd_from_host(&a, buf, t, 1, &n, DEV()));
    free(buf);
    return a;
}
static nd_array *arr_idx(nd_dtype t, int64_t n, const int64_t *v)
{
    cplx *c = calloc((size_t)n + 1, sizeof *c);
    for (int64_t i = 0; i < n; i++) c[i] = (double)v[i];
    nd_array *a = arr_vals(t, n, c);
    free(c);
    return a;
}
/* the elements of a (any supported dtype) as cplx; returns the count */
static int64_t read_arr(const nd_array *a, cplx **out)
{
    nd_array *h = NULL, *c = NULL;
    ND_OK_OR_FAIL(nd_to_device(&h, a, CPU));
    ND_OK_OR_FAIL(nd_astype(&c, h, ND_COMPLEX128));
    int64_t n = nd_size(c);
    double *d = malloc((size_t)n * 16 + 16);
    ND_OK_OR_FAIL(nd_copy_to_host(d, c, (size_t)n * 16));
    cplx *v = malloc((size_t)n * sizeof *v + 16);
    for (int64_t i = 0; i < n; i++) v[i] = d[2 * i] + d[2 * i + 1] * I;
    free(d);
    nd_release(h);
    nd_release(c);
    *out = v;
    return n;
}
static void expect_dense(const nd_array *d, const cplx *ref, int64_t rows, int64_t cols, const char *what)
{
    ck_assert_int_eq(nd_ndim(d), 2);
    ck_assert_int_eq(nd_shape(d)[0], rows);
    ck_assert_int_eq(nd_shape(d)[1], cols);
    cplx *v;
    read_arr(d, &v);
    for (int64_t i = 0; i < rows * cols; i++)
        if (v[i] != ref[i]) /* (Check logs every assertion: assert only on a mismatch) */
            ck_assert_msg(false, "%s: element (%lld,%lld) is %g%+gi, want %g%+gi", what, (long long)(i / cols),
                      (long long)(i % cols), creal(v[i]), cimag(v[i]), creal(ref[i]), cimag(ref[i]));
    free(v);
}
static void expect_sparse(const nd_sparse *s, const cplx *ref, int64_t rows, int64_t cols, const char *what)
{
    ck_assert_int_eq(nd_sparse_rows(s), rows);
    ck_assert_int_eq(nd_sparse_cols(s), cols);
    nd_array *d = NULL;
    ND_OK_OR_FAIL(nd_sparse_to_dense(&d, s));
    expect_dense(d, ref, rows, cols, what);
    nd_release(d);
}

/* A random CSR matrix (rows x cols) in raw arrays, with unsorted and
 * duplicate indices when messy, and its dense sum in ref. */
typedef struct raw {
    int64_t rows, cols, nnz;
    int64_t *indptr, *indices;
    cplx *data, *ref;
} raw;
static raw gen(nd_dtype t, int64_t rows, int64_t cols, int per_row, bool messy)
{
    raw r = {.rows = rows, .cols = cols};
    r.indptr = calloc((size_t)rows + 1, sizeof(int64_t));
    r.indices = calloc((size_t)(rows * per_row) + 1, sizeof(int64_t));
    r.data = calloc((size_t)(rows * per_row) + 1, sizeof(cplx));
    r.ref = calloc((size_t)(rows * cols) + 1, sizeof(cplx));
    for (int64_t i = 0; i < rows; i++) {
        int n = cols ? (int)(rnd() % (uint64_t)(per_row + 1)) : 0;
        int64_t b = r.nnz;
        for (int k = 0; k < n; k++) {
            int64_t j;
            for (;;) { /* distinct columns unless messy */
                j = (int64_t)(rnd() % (uint64_t)cols);
                bool dup = false;
                for (int64_t p = b; p < r.nnz; p++) dup |= r.indices[p] == j;
                if (!dup || messy || n > cols) break;
            }
            r.indices[r.nnz] = j;
            r.data[r.nnz] = rval(t);
            r.ref[i * cols + j] += r.data[r.nnz];
            r.nnz++;
        }
        if (!messy) /* sort the row */
            for (int64_t p = b + 1; p < r.nnz; p++)
                for (int64_t q = p; q > b && r.indices[q - 1] > r.indices[q]; q--) {
                    int64_t tj = r.indices[q];
                    r.indices[q] = r.indices[q - 1];
                    r.indices[q - 1] = tj;
                    cplx tv = r.data[q];
                    r.data[q] = r.data[q - 1];
                    r.data[q - 1] = tv;
                }
        r.indptr[i + 1] = r.nnz;
    }
    return r;
}
static void raw_free(raw *r)
{
    free(r->indptr);
    free(r->indices);
    free(r->data);
    free(r->ref);
}
static nd_sparse *mk(const raw *r, nd_dtype t, nd_dtype it)
{
    nd_array *d = arr_vals(t, r->nnz, r->data), *i = arr_idx(it, r->nnz, r->indices),
             *p = arr_idx(it, r->rows + 1, r->indptr);
    nd_sparse *s = NULL;
    ND_OK_OR_FAIL(nd_sparse_compressed(&s, ND_SPARSE_CSR, d, i, p, r->rows, r->cols));
    nd_release(d);
    nd_release(i);
    nd_release(p);
    return s;
}
static cplx *transposed(const cplx *ref, int64_t rows, int64_t cols)
{
    cplx *t = calloc((size_t)(rows * cols) + 1, sizeof *t);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) t[j * rows + i] = ref[i * cols + j];
    return t;
}
static bool canonical(const nd_sparse *s)
{
    bool c = false;
    ND_OK_OR_FAIL(nd_sparse_has_canonical_format(s, &c));
    return c;
}
/* the stored values, count in *n */
static cplx *stored(const nd_sparse *s, int64_t *n)
{
    nd_array *d = NULL;
    ND_OK_OR_FAIL(nd_sparse_part_get(&d, s, ND_SPARSE_DATA));
    cplx *v;
    *n = read_arr(d, &v);
    nd_release(d);
    return v;
}

/* ------------------------------------------------------------------ */
START_TEST(construct_convert)
{
    for (int vi = 0; vi < 4; vi++)
        for (int ii = 0; ii < 2; ii++) {
            nd_dtype t = VT[vi], it = IT[ii];
            raw r = gen(t, 23, 17, 6, true);
            nd_sparse *s = mk(&r, t, it);
            ck_assert_int_eq(nd_sparse_nnz(s), r.nnz);
            ck_assert_int_eq(nd_sparse_index_dtype(s), it);
            ck_assert_int_eq(nd_sparse_dtype(s), t);
            ck_assert(!canonical(s));
            expect_sparse(s, r.ref, 23, 17, "csr with duplicates");
            /* every conversion, and back */
            for (int f = 0; f < 3; f++) {
                nd_sparse *c = NULL, *back = NULL;
                ND_OK_OR_FAIL(nd_sparse_convert(&c, s, (nd_sparse_format)f));
                ck_assert_int_eq(nd_sparse_format_of(c), f);
                expect_sparse(c, r.ref, 23, 17, "converted");
                for (int g = 0; g < 3; g++) {
                    ND_OK_OR_FAIL(nd_sparse_convert(&back, c, (nd_sparse_format)g));
                    expect_sparse(back, r.ref, 23, 17, "converted twice");
                    nd_sparse_release(back);
                    back = NULL;
                }
                nd_sparse_release(c);
            }
            /* transpose */
            cplx *rt = transposed(r.ref, 23, 17);
            nd_sparse *tr = NULL, *tc = NULL;
            ND_OK_OR_FAIL(nd_sparse_transpose(&tr, s));
            ck_assert_int_eq(nd_sparse_format_of(tr), ND_SPARSE_CSC);
            expect_sparse(tr, rt, 17, 23, "transpose");
            ND_OK_OR_FAIL(nd_sparse_convert(&tc, s, ND_SPARSE_COO));
            nd_sparse_release(tr);
            tr = NULL;
            ND_OK_OR_FAIL(nd_sparse_transpose(&tr, tc));
            expect_sparse(tr, rt, 17, 23, "coo transpose");
            nd_sparse_release(tr);
            nd_sparse_release(tc);
            /* from dense, every format */
            nd_array *dense = NULL;
            ND_OK_OR_FAIL(nd_sparse_to_dense(&dense, s));
            int64_t nz = 0;
            for (int64_t i = 0; i < 23 * 17; i++) nz += r.ref[i] != 0;
            for (int f = 0; f < 3; f++) {
                nd_sparse *c = NULL;
                ND_OK_OR_FAIL(nd_sparse_from_dense(&c, dense, (nd_sparse_format)f));
                ck_assert_int_eq(nd_sparse_nnz(c), nz);
                ck_assert(canonical(c));
                expect_sparse(c, r.ref, 23, 17, "from dense");
                nd_sparse_release(c);
            }
            /* a transposed (strided) dense input */
            nd_array *dt = NULL;
            ND_OK_OR_FAIL(nd_transpose(&dt, dense, NULL));
            nd_sparse *c = NULL;
            ND_OK_OR_FAIL(nd_sparse_from_dense(&c, dt, ND_SPARSE_CSR));
            expect_sparse(c, rt, 17, 23, "from a transposed view");
            nd_sparse_release(c);
            nd_release(dt);
            nd_release(dense);
            free(rt);
            nd_sparse_release(s);
            raw_free(&r);
        }
}
END_TEST

START_TEST(triplets_and_canonical)
{
    for (int vi = 0; vi < 4; vi++) {
        nd_dtype t = VT[vi];
        /* scipy: coo((data, (row, col))).tocsr() sums duplicates and keeps a zero sum */
        const int64_t row[6] = {2, 0, 0, 2, 1, 0}, col[6] = {1, 3, 1, 1, 0, 3};
        const cplx val[6] = {1.5, 2, -0.25, -1.5, 4, 0.5};
        nd_array *d = arr_vals(t, 6, val), *r = arr_idx(ND_INT64, 6, row), *c = arr_idx(ND_INT32, 6, col);
        cplx ref[12] = {0};
        for (int p = 0; p < 6; p++) ref[row[p] * 4 + col[p]] += val[p];
        for (int f = 0; f < 3; f++) {
            nd_sparse *s = NULL;
            ND_OK_OR_FAIL(nd_sparse_from_triplets(&s, (nd_sparse_format)f, d, r, c, 3, 4));
            ck_assert_int_eq(nd_sparse_nnz(s), 4); /* (0,1) (0,3) (1,0) (2,1)=0 kept */
            int64_t nv = 0, zeros = 0;
            cplx *sv = stored(s, &nv);
            for (int64_t q = 0; q < nv; q++) zeros += sv[q] == 0;
            ck_assert_int_eq(zeros, 1);
            free(sv);
            ck_assert(canonical(s));
            ck_assert_int_eq(nd_sparse_index_dtype(s), ND_INT32);
            expect_sparse(s, ref, 3, 4, "triplets");
            ND_OK_OR_FAIL(nd_sparse_eliminate_zeros(s));
            ck_assert_int_eq(nd_sparse_nnz(s), 3);
            ck_assert(canonical(s));
            expect_sparse(s, ref, 3, 4, "zeros eliminated");
            nd_sparse_release(s);
        }
        /* the raw COO keeps its entries; sum_duplicates sorts by row, then column */
        nd_sparse *coo = NULL;
        ND_OK_OR_FAIL(nd_sparse_coo(&coo, d, r, c, 3, 4));
        ck_assert_int_eq(nd_sparse_nnz(coo), 6);
        ck_assert(!canonical(coo));
        expect_sparse(coo, ref, 3, 4, "coo");
        ND_OK_OR_FAIL(nd_sparse_sum_duplicates(coo));
        ck_assert_int_eq(nd_sparse_nnz(coo), 4);
        ck_assert(canonical(coo));
        nd_array *rr = NULL, *cc = NULL;
        ND_OK_OR_FAIL(nd_sparse_part_get(&rr, coo, ND_SPARSE_ROW));
        ND_OK_OR_FAIL(nd_sparse_part_get(&cc, coo, ND_SPARSE_COL));
        cplx *rv, *cv;
        read_arr(rr, &rv);
        read_arr(cc, &cv);
        const int64_t wr[4] = {0, 0, 1, 2}, wc[4] = {1, 3, 0, 1};
        for (int p = 0; p < 4; p++) ck_assert(creal(rv[p]) == wr[p] && creal(cv[p]) == wc[p]);
        free(rv);
        free(cv);
        nd_release(rr);
        nd_release(cc);
        nd_sparse_release(coo);
        nd_release(d);
        nd_release(r);
        nd_release(c);
    }
    /* sort_indices keeps duplicates; sum_duplicates keeps a zero sum (scipy) */
    /* short rows (insertion sort) and long ones (merged runs) */
    const int64_t geo[2][3] = {{31, 9, 12}, {6, 500, 300}};
    for (int ii = 0; ii < 4; ii++) {
        const int64_t R = geo[ii / 2][0], C = geo[ii / 2][1];
        raw w = gen(ND_FLOAT64, R, C, (int)geo[ii / 2][2], true);
        nd_sparse *s = mk(&w, ND_FLOAT64, IT[ii % 2]);
        ND_OK_OR_FAIL(nd_sparse_sort_indices(s));
        ck_assert_int_eq(nd_sparse_nnz(s), w.nnz);
        nd_array *ip = NULL, *ix = NULL;
        ND_OK_OR_FAIL(nd_sparse_part_get(&ip, s, ND_SPARSE_INDPTR));
        ND_OK_OR_FAIL(nd_sparse_part_get(&ix, s, ND_SPARSE_INDICES));
        cplx *pv, *iv;
        read_arr(ip, &pv);
        read_arr(ix, &iv);
        int64_t dups = 0;
        for (int64_t i = 0; i < R; i++)
            for (int64_t p = (int64_t)creal(pv[i]) + 1; p < (int64_t)creal(pv[i + 1]); p++) {
                ck_assert(creal(iv[p - 1]) <= creal(iv[p]));
                dups += creal(iv[p - 1]) == creal(iv[p]);
            }
        ck_assert(dups > 0);
        free(pv);
        free(iv);
        nd_release(ip);
        nd_release(ix);
        expect_sparse(s, w.ref, R, C, "sorted");
        ND_OK_OR_FAIL(nd_sparse_sum_duplicates(s));
        ck_assert_int_eq(nd_sparse_nnz(s), w.nnz - dups);
        ck_assert(canonical(s));
        expect_sparse(s, w.ref, R, C, "duplicates summed");
        nd_sparse_release(s);
        raw_free(&w);
    }
}
END_TEST

START_TEST(products)
{
    for (int vi = 0; vi < 4; vi++)
        for (int ii = 0; ii < 2; ii++) {
            nd_dtype t = VT[vi], it = IT[ii];
            raw ra = gen(t, 29, 21, 7, true), rb = gen(t, 21, 13, 5, true);
            nd_sparse *a = mk(&ra, t, it), *b = mk(&rb, t, it);
            cplx *ref = calloc(29 * 16, sizeof *ref), *x = calloc(21 * 16, sizeof *x);
            for (int64_t i = 0; i < 21 * 16; i++) x[i] = rval(t);
            for (int f = 0; f < 3; f++) {
                nd_sparse *af = NULL;
                ND_OK_OR_FAIL(nd_sparse_convert(&af, a, (nd_sparse_format)f));
                for (int kk = 0; kk < 3; kk++) {
                    int64_t k = kk == 0 ? 1 : kk == 1 ? 16 : 11; /* 11: a block of 8 and a rest */
                    for (int64_t i = 0; i < 29; i++)
                        for (int64_t j = 0; j < k; j++) {
                            cplx s = 0;
                            for (int64_t q = 0; q < 21; q++) s += ra.ref[i * 21 + q] * x[q * k + j];
                            ref[i * k + j] = s;
                        }
                    nd_array *xa = arr_vals(t, 21 * k, x), *xv = NULL, *y = NULL;
                    int64_t xs[2] = {21, k};
                    ND_OK_OR_FAIL(nd_reshape(&xv, xa, kk ? 2 : 1, xs));
                    ND_OK_OR_FAIL(nd_sparse_matmul(&y, af, xv));
                    ck_assert_int_eq(nd_ndim(y), kk ? 2 : 1);
                    nd_array *y2 = NULL;
                    int64_t ys[2] = {29, k};
                    ND_OK_OR_FAIL(nd_reshape(&y2, y, 2, ys));
                    expect_dense(y2, ref, 29, k, kk ? "SpMM" : "SpMV");
                    nd_release(xa);
                    nd_release(xv);
                    nd_release(y);
                    nd_release(y2);
                }
                /* SpGEMM */
                cplx *rc = calloc(29 * 13, sizeof *rc);
                for (int64_t i = 0; i < 29; i++)
                    for (int64_t j = 0; j < 13; j++)
                        for (int64_t q = 0; q < 21; q++) rc[i * 13 + j] += ra.ref[i * 21 + q] * rb.ref[q * 13 + j];
                nd_sparse *c = NULL;
                ND_OK_OR_FAIL(nd_sparse_spgemm(&c, af, b));
                ck_assert(canonical(c));
                int64_t nzc = 0, nst = 0;
                for (int64_t i = 0; i < 29 * 13; i++) nzc += rc[i] != 0;
                free(stored(c, &nst));
                ck_assert_int_eq(nst, nzc); /* exact sums: cancelled ones are not stored */
                ck_assert_int_eq(nd_sparse_format_of(c), ND_SPARSE_CSR);
                expect_sparse(c, rc, 29, 13, "SpGEMM");
                nd_sparse_release(c);
                free(rc);
                nd_sparse_release(af);
            }
            free(ref);
            free(x);
            nd_sparse_release(a);
            nd_sparse_release(b);
            raw_free(&ra);
            raw_free(&rb);
        }
}
END_TEST

/* float16 and bfloat16 values (stored as such; SpMV/SpMM in float32 by
 * the CPU's loops and by cuSPARSE's CUDA_R_16F/16BF with CUDA_R_32F
 * compute; every other op on float32 copies, rounded once): the same
 * cases on every device, against float64 references. Values are k/4
 * (|k| <= 8), exact in both dtypes; what moves or sums few of them stays
 * exact (compared exactly), products and long sums are compared within
 * one rounding of the dtype (2^-11 float16, 2^-8 bfloat16, relative). */
static nd_array *arr_half(nd_dtype t, int64_t n, const cplx *v)
{
    nd_array *d = arr_vals(ND_FLOAT64, n, v), *h = NULL;
    ND_OK_OR_FAIL(nd_astype(&h, d, t));
    nd_release(d);
    return h;
}
static void expect_near(const cplx *got, const cplx *ref, int64_t n, double rel, const char *what)
{
    for (int64_t i = 0; i < n; i++)
        if (fabs(creal(got[i]) - creal(ref[i])) > rel * fabs(creal(ref[i])))
            ck_assert_msg(false, "%s: element %lld is %.17g, want %.17g", what, (long long)i, creal(got[i]),
                          creal(ref[i]));
}
START_TEST(half_values)
{
    const nd_dtype HT[2] = {ND_FLOAT16, ND_BFLOAT16};
    for (int hi = 0; hi < 2; hi++)
        for (int ii = 0; ii < 2; ii++) {
            nd_dtype t = HT[hi], it = IT[ii];
            double rel = t == ND_FLOAT16 ? 0x1p-11 : 0x1p-8;
            raw r = gen(ND_FLOAT64, 29, 21, 7, true);
            nd_array *d = arr_half(t, r.nnz, r.data), *ix = arr_idx(it, r.nnz, r.indices),
                     *ip = arr_idx(it, 30, r.indptr);
            nd_sparse *a = NULL;
            ND_OK_OR_FAIL(nd_sparse_compressed(&a, ND_SPARSE_CSR, d, ix, ip, 29, 21));
            ck_assert_int_eq(nd_sparse_dtype(a), t);
            expect_sparse(a, r.ref, 29, 21, "half: to dense");
            /* conversions, canonical forms, transpose, transfers: exact */
            for (int f = 0; f < 3; f++) {
                nd_sparse *c = NULL, *back = NULL;
                ND_OK_OR_FAIL(nd_sparse_convert(&c, a, (nd_sparse_format)f));
                ck_assert_int_eq(nd_sparse_dtype(c), t);
                expect_sparse(c, r.ref, 29, 21, "half: converted");
                ND_OK_OR_FAIL(nd_sparse_sum_duplicates(c));
                ck_assert(canonical(c));
                expect_sparse(c, r.ref, 29, 21, "half: duplicates summed");
                ND_OK_OR_FAIL(nd_sparse_to_device(&back, c, CPU));
                expect_sparse(back, r.ref, 29, 21, "half: on the CPU");
                nd_sparse_release(c);
                nd_sparse_release(back);
            }
            nd_array *dense = NULL;
            nd_sparse *fd = NULL, *tr = NULL;
            ND_OK_OR_FAIL(nd_sparse_to_dense(&dense, a));
            ck_assert_int_eq(nd_dtype_of(dense), t);
            ND_OK_OR_FAIL(nd_sparse_from_dense(&fd, dense, ND_SPARSE_CSC));
            ck_assert_int_eq(nd_sparse_dtype(fd), t);
            expect_sparse(fd, r.ref, 29, 21, "half: from dense");
            ND_OK_OR_FAIL(nd_sparse_transpose(&tr, fd));
            cplx *rt = transposed(r.ref, 29, 21);
            expect_sparse(tr, rt, 21, 29, "half: transposed");
            free(rt);
            /* SpMV, SpMM (16 columns, and 11: a block of 8 and a rest) */
            cplx *x = calloc(21 * 16, sizeof *x), *ref = calloc(29 * 16, sizeof *ref), *got;
            for (int64_t i = 0; i < 21 * 16; i++) x[i] = rval(ND_FLOAT64);
            for (int kk = 0; kk < 3; kk++) {
                int64_t k = kk == 0 ? 1 : kk == 1 ? 16 : 11;
                for (int64_t i = 0; i < 29; i++)
                    for (int64_t j = 0; j < k; j++) {
                        ref[i * k + j] = 0;
                        for (int64_t q = 0; q < 21; q++) ref[i * k + j] += r.ref[i * 21 + q] * x[q * k + j];
                    }
                nd_array *xa = arr_half(t, 21 * k, x), *xv = NULL, *y = NULL;
                int64_t xs[2] = {21, k};
                ND_OK_OR_FAIL(nd_reshape(&xv, xa, kk ? 2 : 1, xs));
                for (int f = 0; f < 3; f++) { /* CSR, CSC (the CSR of the transpose), COO */
                    nd_sparse *af = NULL;
                    ND_OK_OR_FAIL(nd_sparse_convert(&af, a, (nd_sparse_format)f));
                    ND_OK_OR_FAIL(nd_sparse_matmul(&y, af, xv));
                    ck_assert_int_eq(nd_dtype_of(y), t);
                    ck_assert_int_eq(read_arr(y, &got), 29 * k);
                    expect_near(got, ref, 29 * k, rel, kk ? "half: SpMM" : "half: SpMV");
                    free(got);
                    nd_release(y);
                    y = NULL;
                    nd_sparse_release(af);
                }
                nd_release(xa);
                nd_release(xv);
            }
            /* sums (float32, rounded once), diagonal, SpGEMM, add, multiply by a dense row */
            cplx rs[29] = {0}, cs[21] = {0}, all = 0;
            for (int64_t i = 0; i < 29; i++)
                for (int64_t j = 0; j < 21; j++) rs[i] += r.ref[i * 21 + j], cs[j] += r.ref[i * 21 + j], all += r.ref[i * 21 + j];
            nd_array *sm = NULL;
            ND_OK_OR_FAIL(nd_sparse_sum(&sm, a, 1));
            ck_assert_int_eq(nd_dtype_of(sm), t);
            read_arr(sm, &got);
            expect_near(got, rs, 29, 0, "half: row sums");
            free(got);
            nd_release(sm);
            sm = NULL;
            ND_OK_OR_FAIL(nd_sparse_sum(&sm, a, 0));
            read_arr(sm, &got);
            expect_near(got, cs, 21, 0, "half: column sums");
            free(got);
            nd_release(sm);
            sm = NULL;
            ND_OK_OR_FAIL(nd_sparse_sum(&sm, a, ND_AXIS_NONE));
            ck_assert_int_eq(nd_ndim(sm), 0);
            read_arr(sm, &got);
            expect_near(got, &all, 1, rel, "half: sum");
            free(got);
            nd_release(sm);
            nd_sparse *g = NULL, *s2 = NULL, *md = NULL;
            ND_OK_OR_FAIL(nd_sparse_spgemm(&g, a, tr));
            ck_assert_int_eq(nd_sparse_dtype(g), t);
            cplx *rg = calloc(29 * 29, sizeof *rg);
            for (int64_t i = 0; i < 29; i++)
                for (int64_t j = 0; j < 29; j++)
                    for (int64_t q = 0; q < 21; q++) rg[i * 29 + j] += r.ref[i * 21 + q] * r.ref[j * 21 + q];
            nd_array *gd = NULL;
            ND_OK_OR_FAIL(nd_sparse_to_dense(&gd, g));
            read_arr(gd, &got);
            expect_near(got, rg, 29 * 29, rel, "half: SpGEMM");
            free(got);
            free(rg);
            nd_release(gd);
            ND_OK_OR_FAIL(nd_sparse_add(&s2, a, a));
            cplx *r2 = calloc(29 * 21, sizeof *r2);
            for (int64_t i = 0; i < 29 * 21; i++) r2[i] = 2 * r.ref[i];
            expect_sparse(s2, r2, 29, 21, "half: a + a");
            nd_array *row = arr_half(t, 21, x);
            ND_OK_OR_FAIL(nd_sparse_multiply_dense(&md, a, row));
            ck_assert_int_eq(nd_sparse_dtype(md), t);
            for (int64_t i = 0; i < 29 * 21; i++) r2[i] = r.ref[i] * x[i % 21];
            nd_array *mdd = NULL;
            ND_OK_OR_FAIL(nd_sparse_to_dense(&mdd, md));
            read_arr(mdd, &got);
            expect_near(got, r2, 29 * 21, rel, "half: multiply by a dense row");
            free(got);
            free(r2);
            nd_release(mdd);
            nd_release(row);
            /* diagonal, row slices and gathers, canonical forms in place: exact */
            nd_array *dg = NULL, *sel = NULL;
            ND_OK_OR_FAIL(nd_sparse_diagonal(&dg, a, 1));
            ck_assert_int_eq(nd_dtype_of(dg), t);
            cplx rd[20];
            for (int64_t i = 0; i < 20; i++) rd[i] = r.ref[i * 21 + i + 1];
            read_arr(dg, &got);
            expect_near(got, rd, 20, 0, "half: diagonal 1");
            free(got);
            nd_release(dg);
            nd_sparse *sl = NULL, *tk = NULL, *cp = NULL;
            ND_OK_OR_FAIL(nd_sparse_slice_rows(&sl, a, 27, 2, -5)); /* rows 27, 22, 17, 12, 7 */
            cplx *rsl = calloc(5 * 21, sizeof *rsl);
            for (int64_t i = 0; i < 5; i++) memcpy(rsl + i * 21, r.ref + (27 - 5 * i) * 21, 21 * sizeof(cplx));
            expect_sparse(sl, rsl, 5, 21, "half: row slice");
            const int64_t pick[4] = {3, 3, 0, 28};
            sel = arr_idx(ND_INT64, 4, pick);
            ND_OK_OR_FAIL(nd_sparse_take(&tk, a, sel, 0));
            for (int64_t i = 0; i < 4; i++) memcpy(rsl + i * 21, r.ref + pick[i] * 21, 21 * sizeof(cplx));
            expect_sparse(tk, rsl, 4, 21, "half: rows taken");
            free(rsl);
            ND_OK_OR_FAIL(nd_sparse_convert(&cp, a, ND_SPARSE_CSR));
            ND_OK_OR_FAIL(nd_sparse_sort_indices(cp));
            ND_OK_OR_FAIL(nd_sparse_eliminate_zeros(cp));
            ck_assert_int_eq(nd_sparse_dtype(cp), t);
            expect_sparse(cp, r.ref, 29, 21, "half: sorted, zeros eliminated");
            nd_sparse_release(sl), nd_sparse_release(tk), nd_sparse_release(cp);
            nd_release(sel);
            /* b of another dtype: refused, out untouched */
            nd_array *bf = arr_vals(ND_FLOAT32, 21, x), *yo = (nd_array *)0x1;
            ND_EXPECT_ERR(nd_sparse_matmul(&yo, a, bf), ND_ERR_DTYPE,
                          t == ND_FLOAT16 ? "'b' is float32 but the matrix holds float16"
                                          : "'b' is float32 but the matrix holds bfloat16");
            ck_assert_ptr_eq(yo, (nd_array *)0x1);
            nd_release(bf);
            /* the solvers take float32/float64 only */
            nd_array *b = arr_half(t, 21, x), *sol = (nd_array *)0x1;
            nd_sparse *sq = NULL;
            ND_OK_OR_FAIL(nd_sparse_spgemm(&sq, tr, a));
            ND_EXPECT_ERR(nd_sparse_cg(&sol, sq, b, NULL, 1e-3, 0, 10, NULL), ND_ERR_DTYPE, "float16");
            ck_assert_ptr_eq(sol, (nd_array *)0x1);
            nd_release(b);
            nd_sparse_release(sq);
            nd_sparse_release(g), nd_sparse_release(s2), nd_sparse_release(md);
            free(x), free(ref);
            nd_release(dense);
            nd_sparse_release(fd), nd_sparse_release(tr), nd_sparse_release(a);
            nd_release(d), nd_release(ix), nd_release(ip);
            raw_free(&r);
        }
}
END_TEST

/* COO -> CSR/CSC of 70,000 triplets in no order, rows of ~1,750 entries
 * (the SIMD sort of a row, or the quicksort on the baseline CPU path;
 * chunks of the entries counted on several threads), with many duplicates
 * (300 columns: the summed rows copied to new arrays) and with few (2e5
 * columns: the rows moved down in place); against a reference made here
 * by sorting the triplets. */
static int64_t g_trip_cols;
static const int64_t *g_trip_r, *g_trip_c;
static int trip_cmp(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    int64_t ka = g_trip_r[a] * g_trip_cols + g_trip_c[a], kb = g_trip_r[b] * g_trip_cols + g_trip_c[b];
    return ka != kb ? (ka > kb) - (ka < kb) : (a > b) - (a < b);
}
START_TEST(triplets_long_rows)
{
    const int64_t n = 70000, rows = 40;
    int64_t *r = malloc(n * sizeof *r), *c = malloc(n * sizeof *c), *ord = malloc(n * sizeof *ord);
    cplx *v = malloc(n * sizeof *v), *sum = malloc(n * sizeof *sum);
    int64_t *ri = malloc(n * sizeof *ri), *ci = malloc(n * sizeof *ci);
    int saved = nd_get_num_threads();
    ND_OK_OR_FAIL(nd_set_num_threads(3));
    for (int few = 0; few < 2; few++)
        for (int vi = 0; vi < 4; vi += 3) {
            nd_dtype t = VT[vi];
            int64_t cols = few ? 200000 : 300;
            for (int64_t p = 0; p < n; p++) {
                r[p] = (int64_t)(rnd() % rows), c[p] = (int64_t)(rnd() % (uint64_t)cols), v[p] = rval(t);
                ord[p] = p;
            }
            g_trip_cols = cols, g_trip_r = r, g_trip_c = c;
            qsort(ord, (size_t)n, sizeof *ord, trip_cmp);
            int64_t m = 0; /* the canonical entries: (ri, ci, sum) */
            for (int64_t q = 0; q < n; q++) {
                int64_t p = ord[q];
                if (m && ri[m - 1] == r[p] && ci[m - 1] == c[p]) sum[m - 1] += v[p];
                else ri[m] = r[p], ci[m] = c[p], sum[m++] = v[p];
            }
            nd_array *d = arr_vals(t, n, v), *ra = arr_idx(ND_INT64, n, r), *ca = arr_idx(ND_INT64, n, c);
            for (int f = 0; f < 2; f++) { /* CSR, and CSC of the transpose's triplets */
                nd_sparse *s = NULL;
                ND_OK_OR_FAIL(nd_sparse_from_triplets(&s, f ? ND_SPARSE_CSC : ND_SPARSE_CSR, d, f ? ca : ra,
                                                      f ? ra : ca, f ? cols : rows, f ? rows : cols));
                ck_assert(canonical(s));
                ck_assert_int_eq(nd_sparse_nnz(s), m);
                nd_array *ix = NULL, *ip = NULL;
                ND_OK_OR_FAIL(nd_sparse_part_get(&ix, s, ND_SPARSE_INDICES));
                ND_OK_OR_FAIL(nd_sparse_part_get(&ip, s, ND_SPARSE_INDPTR));
                cplx *gi, *gp, *gv;
                int64_t nst = 0;
                read_arr(ix, &gi);
                read_arr(ip, &gp);
                gv = stored(s, &nst);
                ck_assert_int_eq(nst, m);
                for (int64_t q = 0, row = 0; q < m; q++) {
                    while (creal(gp[row + 1]) <= (double)q) row++;
                    if (row != ri[q] || creal(gi[q]) != (double)ci[q] || gv[q] != sum[q])
                        ck_assert_msg(false, "%s %s few=%d: entry %lld is (%lld, %g) = %g, want (%lld, %lld) = %g",
                                      nd_dtype_name(t), f ? "csc" : "csr", few, (long long)q, (long long)row,
                                      creal(gi[q]), creal(gv[q]), (long long)ri[q], (long long)ci[q], creal(sum[q]));
                }
                free(gi), free(gp), free(gv);
                nd_release(ix), nd_release(ip);
                nd_sparse_release(s);
            }
            nd_release(d), nd_release(ra), nd_release(ca);
        }
    ND_OK_OR_FAIL(nd_set_num_threads(saved));
    free(r), free(c), free(ord), free(v), free(sum), free(ri), free(ci);
}
END_TEST

/* SpMV on matrices whose rows vary in length (0 to 40 entries: the
 * vectorised path of the AVX-512 CPU, rows longer than its 8 or 16 lanes
 * included), rows of 0 to 8 with some of 9 to 12 and two of 1500 (many
 * times the lanes, among short rows), and rows that all hold 5 entries
 * (the scalar loop), float32 and float64, both index dtypes: exact data,
 * exact results. */
START_TEST(spmv_rows)
{
    for (int vi = 0; vi < 2; vi++)
        for (int ii = 0; ii < 2; ii++)
            for (int kind = 0; kind < 3; kind++) {
                nd_dtype t = VT[vi], it = IT[ii];
                const bool regular = kind == 1;
                raw r = gen(t, 300, 200, kind == 2 ? 1500 : 40, true);
                if (kind == 2) { /* 0 to 8 entries a row, 9 to 12 every 37th, rows 50 and 201: 1500 */
                    memset(r.ref, 0, 300 * 200 * sizeof(cplx));
                    r.nnz = 0;
                    for (int64_t i = 0; i < 300; i++) {
                        int n = i == 50 || i == 201 ? 1500 : i % 37 == 0 ? 9 + (int)(rnd() % 4) : (int)(rnd() % 9);
                        for (int q = 0; q < n; q++, r.nnz++) {
                            r.indices[r.nnz] = (int64_t)(rnd() % 200);
                            r.data[r.nnz] = rval(t);
                            r.ref[i * 200 + r.indices[r.nnz]] += r.data[r.nnz];
                        }
                        r.indptr[i + 1] = r.nnz;
                    }
                }
                if (regular) { /* five entries a row */
                    memset(r.ref, 0, 300 * 200 * sizeof(cplx));
                    r.nnz = 0;
                    for (int64_t i = 0; i < 300; i++) {
                        for (int q = 0; q < 5; q++, r.nnz++) {
                            r.indices[r.nnz] = (i * 7 + q * 41) % 200;
                            r.data[r.nnz] = rval(t);
                            r.ref[i * 200 + r.indices[r.nnz]] += r.data[r.nnz];
                        }
                        r.indptr[i + 1] = r.nnz;
                    }
                }
                nd_sparse *a = mk(&r, t, it);
                cplx *x = calloc(200, sizeof *x), *ref = calloc(300, sizeof *ref), *got;
                for (int64_t j = 0; j < 200; j++) x[j] = rval(t);
                for (int64_t i = 0; i < 300; i++)
                    for (int64_t j = 0; j < 200; j++) ref[i] += r.ref[i * 200 + j] * x[j];
                nd_array *xa = arr_vals(t, 200, x), *y = NULL;
                ND_OK_OR_FAIL(nd_sparse_matmul(&y, a, xa));
                ck_assert_int_eq(read_arr(y, &got), 300);
                for (int64_t i = 0; i < 300; i++)
                    if (got[i] != ref[i])
                        ck_assert_msg(false, "%s/%s %s rows: y[%lld] is %g, want %g", nd_dtype_name(t),
                                      nd_dtype_name(it), regular ? "regular" : kind ? "long" : "varying", (long long)i,
                                      creal(got[i]), creal(ref[i]));
                free(got);
                free(x);
                free(ref);
                nd_release(xa);
                nd_release(y);
                nd_sparse_release(a);
                raw_free(&r);
            }
}
END_TEST

/* SpMV writing y by streaming stores, the path of products that move
 * 32 MiB and more, taken here on small ones (nd__sp_stream_min(0)) and on
 * one thread, so that one part holds whole 4096-byte blocks of y (5 of
 * float64, 2 of float32) and a partial last one: regular rows (the scalar
 * loop) and rows of 0 to 9 entries with a few of 40 (the vector loop),
 * into a fresh y and into an out view that starts 3 elements into a
 * poisoned array (rows before y's first 64-byte boundary); then again on
 * the default threads. */
START_TEST(spmv_stream)
{
    const int64_t rows = 3001, cols = 50;
    const int threads0 = nd_get_num_threads();
    nd__sp_stream_min(0);
    for (int pass = 0; pass < 2; pass++) {
        ND_OK_OR_FAIL(nd_set_num_threads(pass == 0 ? 1 : threads0));
        for (int vi = 0; vi < 2; vi++)
            for (int ii = 0; ii < 2; ii++)
                for (int regular = 0; regular < 2; regular++)
                    for (int off = 0; off <= 3; off += 3) {
                        nd_dtype t = VT[vi], it = IT[ii];
                        raw r = {.rows = rows, .cols = cols};
                        r.indptr = calloc((size_t)rows + 1, sizeof(int64_t));
                        r.indices = calloc((size_t)rows * 40, sizeof(int64_t));
                        r.data = calloc((size_t)rows * 40, sizeof(cplx));
                        for (int64_t i = 0; i < rows; i++) {
                            int n = regular ? 5 : i % 101 == 0 ? 40 : (int)(rnd() % 10);
                            for (int q = 0; q < n; q++, r.nnz++) {
                                r.indices[r.nnz] = regular ? (i * 7 + q * 9) % cols : q + (int64_t)(rnd() % 10);
                                r.data[r.nnz] = rval(t);
                            }
                            r.indptr[i + 1] = r.nnz;
                        }
                        nd_sparse *a = mk(&r, t, it);
                        cplx *x = calloc((size_t)cols, sizeof *x), *got;
                        for (int64_t j = 0; j < cols; j++) x[j] = rval(t);
                        nd_array *xa = arr_vals(t, cols, x), *y = NULL, *big = NULL;
                        const int64_t nbig = rows + 8;
                        if (off) {
                            ND_OK_OR_FAIL(nd_full(&big, t, 1, &nbig, nd_scalar_float(-99.0), DEV()));
                            nd_range rg = {off, off + rows, 1};
                            ND_OK_OR_FAIL(nd_slice(&y, big, 1, &rg));
                        }
                        ND_OK_OR_FAIL(nd_sparse_matmul(&y, a, xa));
                        ck_assert_int_eq(read_arr(y, &got), rows);
                        for (int64_t i = 0; i < rows; i++) {
                            cplx want = 0; /* exact: quarters times quarters, at most 40 terms */
                            for (int64_t p = r.indptr[i]; p < r.indptr[i + 1]; p++) want += r.data[p] * x[r.indices[p]];
                            if (got[i] != want)
                                ck_assert_msg(false, "%s/%s %s rows, %d threads, y at +%d: y[%lld] is %g, want %g",
                                              nd_dtype_name(t), nd_dtype_name(it), regular ? "regular" : "varying",
                                              nd_get_num_threads(), off, (long long)i, creal(got[i]), creal(want));
                        }
                        free(got);
                        if (off) { /* nothing written outside the view */
                            ck_assert_int_eq(read_arr(big, &got), nbig);
                            for (int64_t i = 0; i < nbig; i++)
                                if (i < off || i >= off + rows) ck_assert_msg(got[i] == -99.0, "big[%lld] written", (long long)i);
                            free(got);
                        }
                        free(x);
                        nd_release(xa);
                        nd_release(y);
                        nd_release(big);
                        nd_sparse_release(a);
                        raw_free(&r);
                    }
    }
    nd__sp_stream_min(-1);
    ND_OK_OR_FAIL(nd_set_num_threads(threads0));
}
END_TEST

START_TEST(elementwise)
{
    for (int vi = 0; vi < 4; vi++)
        for (int ii = 0; ii < 2; ii++) {
            nd_dtype t = VT[vi], it = IT[ii];
            raw ra = gen(t, 19, 14, 8, true), rb = gen(t, 19, 14, 8, true);
            nd_sparse *a = mk(&ra, t, it), *b = mk(&rb, t, it);
            cplx *ref = calloc(19 * 14, sizeof *ref);
            for (int op = 0; op < 4; op++) {
                int64_t nz = 0;
                for (int64_t i = 0; i < 19 * 14; i++) {
                    cplx x = ra.ref[i], y = op == 3 ? ra.ref[i] : rb.ref[i];
                    ref[i] = op == 0 ? x + y : op == 1 ? x - y : x * y;
                    nz += ref[i] != 0;
                }
                nd_sparse *c = NULL, *bb = NULL;
                ND_OK_OR_FAIL(nd_sparse_convert(&bb, b, ND_SPARSE_CSC));
                if (op == 0) ND_OK_OR_FAIL(nd_sparse_add(&c, a, bb));
                if (op == 1) ND_OK_OR_FAIL(nd_sparse_subtract(&c, a, bb));
                if (op == 2) ND_OK_OR_FAIL(nd_sparse_multiply(&c, a, bb));
                if (op == 3) ND_OK_OR_FAIL(nd_sparse_subtract(&c, a, a)); /* all cancel: nothing stored */
                if (op == 3) ck_assert_int_eq(nd_sparse_nnz(c), 0);
                else ck_assert_int_eq(nd_sparse_nnz(c), nz); /* zeros dropped, as scipy's binops */
                ck_assert(canonical(c));
                expect_sparse(c, op == 3 ? (cplx[19 * 14]){0} : ref, 19, 14, "binop");
                nd_sparse_release(c);
                nd_sparse_release(bb);
            }
            /* multiply by broadcast dense arrays: 0-d, (cols,), (rows, 1), (rows, cols) */
            const int nds[4] = {0, 1, 2, 2};
            const int64_t shp[4][2] = {{0, 0}, {14, 0}, {19, 1}, {19, 14}};
            for (int k = 0; k < 4; k++) {
                int64_t n = k == 0 ? 1 : k == 1 ? 14 : k == 2 ? 19 : 19 * 14;
                cplx *dv = calloc((size_t)n, sizeof *dv);
                for (int64_t i = 0; i < n; i++) dv[i] = (i % 5 == 0) ? 0 : rval(t);
                nd_array *flat = arr_vals(t, n, dv), *dd = NULL;
                ND_OK_OR_FAIL(nd_reshape(&dd, flat, nds[k], shp[k]));
                for (int64_t i = 0; i < 19; i++)
                    for (int64_t j = 0; j < 14; j++)
                        ref[i * 14 + j] = ra.ref[i * 14 + j] * dv[k == 0 ? 0 : k == 1 ? j : k == 2 ? i : i * 14 + j];
                nd_sparse *c = NULL;
                ND_OK_OR_FAIL(nd_sparse_multiply_dense(&c, a, dd));
                ck_assert_int_eq(nd_sparse_nnz(c), ra.nnz); /* structure kept */
                expect_sparse(c, ref, 19, 14, "multiply dense");
                nd_sparse_release(c);
                /* a COO a (its duplicates summed by the CSR form): the
                 * result's parts agree with its nnz */
                nd_sparse *co = NULL;
                nd_array *pi = NULL, *pd = NULL;
                ND_OK_OR_FAIL(nd_sparse_convert(&co, a, ND_SPARSE_COO));
                c = NULL;
                ND_OK_OR_FAIL(nd_sparse_multiply_dense(&c, co, dd));
                ND_OK_OR_FAIL(nd_sparse_part_get(&pi, c, ND_SPARSE_INDICES));
                ND_OK_OR_FAIL(nd_sparse_part_get(&pd, c, ND_SPARSE_DATA));
                ck_assert_int_eq(nd_size(pi), nd_sparse_nnz(c));
                ck_assert_int_eq(nd_size(pd), nd_sparse_nnz(c));
                expect_sparse(c, ref, 19, 14, "multiply dense (COO)");
                nd_release(pi), nd_release(pd);
                nd_sparse_release(c), nd_sparse_release(co);
                nd_release(flat);
                nd_release(dd);
                free(dv);
            }
            /* value maps */
            nd_sparse *c = NULL;
            ND_OK_OR_FAIL(nd_sparse_unary(&c, ND_UNARY_NEG, a));
            for (int64_t i = 0; i < 19 * 14; i++) ref[i] = -ra.ref[i];
            expect_sparse(c, ref, 19, 14, "negative");
            nd_sparse_release(c);
            c = NULL;
            ND_OK_OR_FAIL(nd_sparse_binary_scalar(&c, ND_BINARY_MULTIPLY, a, nd_scalar_float(2.5)));
            for (int64_t i = 0; i < 19 * 14; i++) ref[i] = ra.ref[i] * 2.5;
            expect_sparse(c, ref, 19, 14, "times 2.5");
            nd_sparse_release(c);
            c = (nd_sparse *)0x1;
            ND_EXPECT_ERR(nd_sparse_unary(&c, ND_UNARY_COS, a), ND_ERR_INVALID, "does not map 0 to 0");
            ND_EXPECT_ERR(nd_sparse_binary_scalar(&c, ND_BINARY_ADD, a, nd_scalar_float(1)), ND_ERR_INVALID,
                          "nd_sparse_binary_scalar: add does not map 0 to 0");
            ck_assert_ptr_eq(c, (nd_sparse *)0x1);
            free(ref);
            nd_sparse_release(a);
            nd_sparse_release(b);
            raw_free(&ra);
            raw_free(&rb);
        }
}
END_TEST

START_TEST(reductions_and_selection)
{
    for (int vi = 0; vi < 4; vi++)
        for (int ii = 0; ii < 2; ii++) {
            nd_dtype t = VT[vi], it = IT[ii];
            raw ra = gen(t, 17, 11, 6, true);
            nd_sparse *a0 = mk(&ra, t, it);
            for (int f = 0; f < 3; f++) {
                nd_sparse *a = NULL;
                ND_OK_OR_FAIL(nd_sparse_convert(&a, a0, (nd_sparse_format)f));
                /* sums */
                cplx rs[17] = {0}, cs[11] = {0}, tot = 0;
                for (int64_t i = 0; i < 17; i++)
                    for (int64_t j = 0; j < 11; j++) {
                        rs[i] += ra.ref[i * 11 + j];
                        cs[j] += ra.ref[i * 11 + j];
                        tot += ra.ref[i * 11 + j];
                    }
                nd_array *s = NULL;
                ND_OK_OR_FAIL(nd_sparse_sum(&s, a, 1));
                ck_assert_int_eq(nd_dtype_of(s), t);
                nd_array *s2 = NULL;
                int64_t sh[2] = {17, 1};
                ND_OK_OR_FAIL(nd_reshape(&s2, s, 2, sh));
                expect_dense(s2, rs, 17, 1, "row sums");
                nd_release(s);
                nd_release(s2);
                s = s2 = NULL;
                ND_OK_OR_FAIL(nd_sparse_sum(&s, a, -2));
                sh[0] = 1, sh[1] = 11;
                ND_OK_OR_FAIL(nd_reshape(&s2, s, 2, sh));
                expect_dense(s2, cs, 1, 11, "column sums");
                nd_release(s);
                nd_release(s2);
                s = s2 = NULL;
                ND_OK_OR_FAIL(nd_sparse_sum(&s, a, ND_AXIS_NONE));
                ck_assert_int_eq(nd_ndim(s), 0);
                sh[0] = sh[1] = 1;
                ND_OK_OR_FAIL(nd_reshape(&s2, s, 2, sh));
                expect_dense(s2, &tot, 1, 1, "total");
                nd_release(s);
                nd_release(s2);
                /* diagonals */
                for (int64_t k = -18; k <= 12; k += 3) {
                    cplx dg[17] = {0};
                    int64_t len = 0;
                    for (int64_t i = 0; i < 17; i++)
                        if (i + k >= 0 && i + k < 11) dg[len++] = ra.ref[i * 11 + i + k];
                    nd_array *d = NULL, *d2 = NULL;
                    ND_OK_OR_FAIL(nd_sparse_diagonal(&d, a, k));
                    ck_assert_int_eq(nd_size(d), len);
                    int64_t dsh[2] = {1, len};
                    ND_OK_OR_FAIL(nd_reshape(&d2, d, 2, dsh));
                    expect_dense(d2, dg, 1, len, "diagonal");
                    nd_release(d);
                    nd_release(d2);
                }
                /* row slices, Python's rules */
                const int64_t sl[6][3] = {{0, 17, 1}, {2, 15, 3}, {-1, -18, -1}, {16, 0, -4}, {5, 5, 1}, {-100, 100, 2}};
                for (int q = 0; q < 6; q++) {
                    cplx ref[17 * 11];
                    int64_t n = 0;
                    int64_t st = sl[q][0], sp = sl[q][1], step = sl[q][2];
                    if (st < 0) st = st + 17 < 0 ? (step < 0 ? -1 : 0) : st + 17;
                    else if (st >= 17) st = step < 0 ? 16 : 17;
                    if (sp < 0) sp = sp + 17 < 0 ? (step < 0 ? -1 : 0) : sp + 17;
                    else if (sp >= 17) sp = step < 0 ? 16 : 17;
                    for (int64_t i = st; step > 0 ? i < sp : i > sp; i += step, n++)
                        memcpy(ref + n * 11, ra.ref + i * 11, 11 * sizeof(cplx));
                    nd_sparse *r = NULL;
                    ND_OK_OR_FAIL(nd_sparse_slice_rows(&r, a, sl[q][0], sl[q][1], sl[q][2]));
                    expect_sparse(r, ref, n, 11, "row slice");
                    nd_sparse_release(r);
                }
                /* gathers of rows and columns, negative and repeated indices */
                const int64_t ri[5] = {3, -1, 3, 0, 16}, ci[4] = {10, -11, 4, 4};
                nd_array *ria = arr_idx(ND_INT64, 5, ri), *cia = arr_idx(ND_INT32, 4, ci);
                cplx rref[5 * 11], cref[17 * 4];
                for (int p = 0; p < 5; p++)
                    memcpy(rref + p * 11, ra.ref + (ri[p] < 0 ? ri[p] + 17 : ri[p]) * 11, 11 * sizeof(cplx));
                for (int64_t i = 0; i < 17; i++)
                    for (int p = 0; p < 4; p++) cref[i * 4 + p] = ra.ref[i * 11 + (ci[p] < 0 ? ci[p] + 11 : ci[p])];
                nd_sparse *g = NULL;
                ND_OK_OR_FAIL(nd_sparse_take(&g, a, ria, 0));
                expect_sparse(g, rref, 5, 11, "rows gathered");
                nd_sparse_release(g);
                g = NULL;
                ND_OK_OR_FAIL(nd_sparse_take(&g, a, cia, 1));
                expect_sparse(g, cref, 17, 4, "columns gathered");
                nd_sparse_release(g);
                nd_release(ria);
                nd_release(cia);
                nd_sparse_release(a);
            }
            nd_sparse_release(a0);
            raw_free(&ra);
        }
}
END_TEST

/* ------------------------------------------------------------------ */
START_TEST(bad_input)
{
    const int64_t ip[4] = {0, 2, 2, 3}, ix[3] = {1, 0, 2};
    const cplx v[3] = {1, 2, 3};
    nd_array *d = arr_vals(ND_FLOAT64, 3, v), *i = arr_idx(ND_INT32, 3, ix), *p = arr_idx(ND_INT32, 4, ip);
    nd_sparse *s = (nd_sparse *)0x1;
    ND_EXPECT_ERR(nd_sparse_compressed(&s, ND_SPARSE_CSR, NULL, i, p, 3, 3), ND_ERR_INVALID, "'data' is NULL");
    ND_EXPECT_ERR(nd_sparse_compressed(&s, ND_SPARSE_COO, d, i, p, 3, 3), ND_ERR_INVALID, "format 2");
    ND_EXPECT_ERR(nd_sparse_compressed(&s, ND_SPARSE_CSR, d, i, p, 4, 3), ND_ERR_SHAPE, "indptr has 4 entries");
    ND_EXPECT_ERR(nd_sparse_compressed(&s, ND_SPARSE_CSR, d, i, p, 3, 2), ND_ERR_INVALID,
                  "indices[2] = 2 is out of range [0, 2)");
    ND_EXPECT_ERR(nd_sparse_compressed(&s, ND_SPARSE_CSR, d, i, p, -3, 3), ND_ERR_SHAPE, "negative");
    nd_array *p64 = arr_idx(ND_INT64, 4, ip);
    ND_EXPECT_ERR(nd_sparse_compressed(&s, ND_SPARSE_CSR, d, i, p64, 3, 3), ND_ERR_DTYPE, "both be int32");
    ND_EXPECT_ERR(nd_sparse_compressed(&s, ND_SPARSE_CSC, d, p64, p64, 3, INT64_MAX), ND_ERR_INVALID, "too big");
    const int64_t bad1[4] = {1, 2, 2, 3}, bad2[4] = {0, 2, 1, 3}, bad3[4] = {0, 2, 2, 2};
    nd_array *b1 = arr_idx(ND_INT32, 4, bad1), *b2 = arr_idx(ND_INT32, 4, bad2), *b3 = arr_idx(ND_INT32, 4, bad3);
    ND_EXPECT_ERR(nd_sparse_compressed(&s, ND_SPARSE_CSR, d, i, b1, 3, 3), ND_ERR_INVALID, "indptr[0] is 1");
    ND_EXPECT_ERR(nd_sparse_compressed(&s, ND_SPARSE_CSR, d, i, b2, 3, 3), ND_ERR_INVALID, "indptr decreases at 2");
    ND_EXPECT_ERR(nd_sparse_compressed(&s, ND_SPARSE_CSR, d, i, b3, 3, 3), ND_ERR_INVALID,
                  "indptr[3] is 2 but there are 3 entries");
    nd_array *di = arr_idx(ND_INT32, 3, ix);
    ND_EXPECT_ERR(nd_sparse_compressed(&s, ND_SPARSE_CSR, di, i, p, 3, 3), ND_ERR_DTYPE, "'data' is int32");
    ck_assert_ptr_eq(s, (nd_sparse *)0x1);
    /* COO */
    const int64_t rr[3] = {0, 3, 1}, neg[3] = {0, -1, 1};
    nd_array *r = arr_idx(ND_INT64, 3, rr), *rn = arr_idx(ND_INT64, 3, neg);
    ND_EXPECT_ERR(nd_sparse_coo(&s, d, r, i, 3, 3), ND_ERR_INVALID, "row[1] = 3 is out of range [0, 3)");
    ND_EXPECT_ERR(nd_sparse_from_triplets(&s, ND_SPARSE_CSR, d, i, rn, 3, 3), ND_ERR_INVALID, "col[1] = -1");
    ND_EXPECT_ERR(nd_sparse_coo(&s, d, p, i, 3, 3), ND_ERR_SHAPE, "must agree");
    ck_assert_ptr_eq(s, (nd_sparse *)0x1);
    /* operations */
    s = NULL;
    ND_OK_OR_FAIL(nd_sparse_compressed(&s, ND_SPARSE_CSR, d, i, p, 3, 3));
    nd_array *x = arr_vals(ND_FLOAT64, 3, v), *x4 = NULL, *xf = arr_vals(ND_FLOAT32, 3, v), *y = (nd_array *)0x1;
    ND_OK_OR_FAIL(nd_zeros(&x4, ND_FLOAT64, 1, (int64_t[]){4}, DEV()));
    ND_EXPECT_ERR(nd_sparse_matmul(&y, s, x4), ND_ERR_SHAPE, "not aligned");
    ND_EXPECT_ERR(nd_sparse_matmul(&y, s, xf), ND_ERR_DTYPE, "'b' is float32");
    ND_EXPECT_ERR(nd_sparse_matmul(&y, NULL, x), ND_ERR_INVALID, "'a' is NULL");
    ck_assert_ptr_eq(y, (nd_array *)0x1);
    /* a given out of the wrong shape is refused before anything runs */
    ND_EXPECT_ERR(nd_sparse_matmul(&x4, s, x), ND_ERR_SHAPE, "nd_sparse_matmul");
    nd_sparse *t = NULL, *o = (nd_sparse *)0x1;
    const int64_t ip2[3] = {0, 1, 1}, ix2[1] = {0};
    nd_array *d2 = arr_vals(ND_FLOAT64, 1, v), *i2 = arr_idx(ND_INT32, 1, ix2), *p2 = arr_idx(ND_INT32, 3, ip2);
    ND_OK_OR_FAIL(nd_sparse_compressed(&t, ND_SPARSE_CSR, d2, i2, p2, 2, 3));
    ND_EXPECT_ERR(nd_sparse_add(&o, s, t), ND_ERR_SHAPE, "shapes (3,3) and (2,3) differ");
    ND_EXPECT_ERR(nd_sparse_spgemm(&o, s, t), ND_ERR_SHAPE, "not aligned");
    ND_EXPECT_ERR(nd_sparse_take(&o, s, r, 0), ND_ERR_INVALID, "index 3 is out of bounds for axis 0 with size 3");
    ND_EXPECT_ERR(nd_sparse_slice_rows(&o, s, 0, 3, 0), ND_ERR_INVALID, "step cannot be zero");
    ND_EXPECT_ERR(nd_sparse_sum((nd_array **)&y, s, 2), ND_ERR_INVALID, "axis 2");
    ND_EXPECT_ERR(nd_sparse_multiply_dense(&o, s, x4), ND_ERR_SHAPE, "broadcast");
    ND_EXPECT_ERR(nd_sparse_part_get((nd_array **)&y, s, ND_SPARSE_ROW), ND_ERR_INVALID, "no part");
    ck_assert_ptr_eq(o, (nd_sparse *)0x1);
    ck_assert_ptr_eq(y, (nd_array *)0x1);
    /* a COO matrix of 2^62 rows holds three entries; slicing all its rows
     * needs 2^62 (2^61) row indices, whose byte count wraps in size_t:
     * refused, nothing allocated on a wrapped size */
    const int64_t r3[3] = {0, 1, 2}, c3[3] = {1, 0, 2};
    nd_array *r64 = arr_idx(ND_INT64, 3, r3), *c64 = arr_idx(ND_INT64, 3, c3);
    nd_sparse *huge = NULL;
    ND_OK_OR_FAIL(nd_sparse_coo(&huge, d, r64, c64, INT64_C(1) << 62, 3));
    ND_EXPECT_ERR(nd_sparse_slice_rows(&o, huge, 0, INT64_MAX, 1), ND_ERR_INVALID, "nd_sparse_slice_rows");
    ND_EXPECT_ERR(nd_sparse_slice_rows(&o, huge, 0, INT64_MAX, 2), ND_ERR_INVALID, "nd_sparse_slice_rows");
    ck_assert_ptr_eq(o, (nd_sparse *)0x1);
    /* s (3 x 3) times a 3 x 2^62 matrix: each row's dense accumulator
     * would hold 2^62 columns (2^65 bytes, a count that wraps) */
    nd_sparse *wide = NULL;
    ND_OK_OR_FAIL(nd_sparse_coo(&wide, d, r64, c64, 3, INT64_C(1) << 62));
    /* (cuSPARSE's SpGEMM refuses the shape first: 32-bit indices) */
    nd_status wst = nd_sparse_spgemm(&o, s, wide);
    ck_assert_msg(wst == (DEV().type == ND_DEVICE_CPU ? ND_ERR_NOMEM : ND_ERR_UNSUPPORTED), "%s: %s",
                  nd_status_name(wst), nd_last_error());
    ck_assert_msg(strstr(nd_last_error(), "nd_sparse_spgemm") != NULL, "%s", nd_last_error());
    ck_assert_ptr_eq(o, (nd_sparse *)0x1);
    nd_sparse_release(wide);
    nd_sparse_release(huge);
    /* INT64_MAX rows: no row pointers (INT64_MAX + 1 entries) can exist */
    huge = NULL;
    ND_OK_OR_FAIL(nd_sparse_coo(&huge, d, r64, c64, INT64_MAX, 3));
    ND_EXPECT_ERR(nd_sparse_convert(&o, huge, ND_SPARSE_CSR), ND_ERR_INVALID, "too big");
    ND_EXPECT_ERR(nd_sparse_convert(&o, huge, ND_SPARSE_CSC), ND_ERR_INVALID, "too big");
    ND_EXPECT_ERR(nd_sparse_slice_rows(&o, huge, 0, 2, 1), ND_ERR_INVALID, "too big");
    ck_assert_ptr_eq(o, (nd_sparse *)0x1);
    nd_sparse_release(huge);
    nd_release(r64), nd_release(c64);
    nd_sparse_release(s);
    nd_sparse_release(t);
    nd_array *all[] = {d, i, p, p64, b1, b2, b3, di, r, rn, x, x4, xf, d2, i2, p2};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) nd_release(all[k]);
}
END_TEST

/* The threaded paths (rows split by entries): a matrix large enough to be
 * split gives the same bits as the one-thread run, whose loops the tests
 * above check against dense references. */
static void run_all(nd_sparse *a, nd_array *x, nd_array *x16, cplx **out, int64_t *n)
{
    nd_array *y = NULL, *y16 = NULL, *dd = NULL;
    nd_sparse *c = NULL, *t = NULL, *s2 = NULL, *cs = NULL;
    ND_OK_OR_FAIL(nd_sparse_matmul(&y, a, x));
    ND_OK_OR_FAIL(nd_sparse_matmul(&y16, a, x16));
    ND_OK_OR_FAIL(nd_sparse_spgemm(&c, a, a));
    ND_OK_OR_FAIL(nd_sparse_convert(&t, a, ND_SPARSE_CSC));
    ND_OK_OR_FAIL(nd_sparse_add(&s2, a, t));
    ND_OK_OR_FAIL(nd_sparse_convert(&cs, c, ND_SPARSE_CSR));
    ND_OK_OR_FAIL(nd_sparse_sum_duplicates(cs));
    ND_OK_OR_FAIL(nd_sparse_sum(&dd, s2, 0));
    cplx *v[5];
    int64_t k[5];
    k[0] = read_arr(y, &v[0]);
    k[1] = read_arr(y16, &v[1]);
    k[2] = read_arr(dd, &v[2]);
    k[3] = 0;
    v[3] = stored(c, &k[3]);
    v[4] = stored(s2, &k[4]);
    *n = k[0] + k[1] + k[2] + k[3] + k[4];
    *out = malloc((size_t)*n * sizeof(cplx));
    int64_t o = 0;
    for (int i = 0; i < 5; i++) {
        memcpy(*out + o, v[i], (size_t)k[i] * sizeof(cplx));
        o += k[i];
        free(v[i]);
    }
    nd_release(y);
    nd_release(y16);
    nd_release(dd);
    nd_sparse_release(c);
    nd_sparse_release(t);
    nd_sparse_release(s2);
    nd_sparse_release(cs);
}
START_TEST(threads)
{
    int64_t n = nd_test_large() ? 20000 : 3000;
    int saved = nd_get_num_threads();
    for (int ii = 0; ii < 2; ii++) {
        raw r = {.rows = n, .cols = n};
        /* a skewed pattern: every 97th row long, others short, duplicates */
        int64_t cap = n * 12 + n / 97 * 400 + 1;
        r.indptr = calloc((size_t)n + 1, sizeof(int64_t));
        r.indices = calloc((size_t)cap, sizeof(int64_t));
        r.data = calloc((size_t)cap, sizeof(cplx));
        for (int64_t i = 0; i < n; i++) {
            int len = i % 97 == 0 ? 400 : (int)(rnd() % 12);
            for (int q = 0; q < len; q++) {
                r.indices[r.nnz] = (int64_t)(rnd() % (uint64_t)n);
                r.data[r.nnz++] = rval(ND_FLOAT64);
            }
            r.indptr[i + 1] = r.nnz;
        }
        nd_sparse *a = mk(&r, ND_FLOAT64, IT[ii]);
        cplx *xv = malloc((size_t)n * 16 * sizeof(cplx));
        for (int64_t i = 0; i < n * 16; i++) xv[i] = rval(ND_FLOAT64);
        nd_array *x = arr_vals(ND_FLOAT64, n, xv), *xf = arr_vals(ND_FLOAT64, n * 16, xv), *x16 = NULL;
        ND_OK_OR_FAIL(nd_reshape(&x16, xf, 2, (int64_t[]){n, 16}));
        cplx *one, *many;
        int64_t n1, n2;
        ND_OK_OR_FAIL(nd_set_num_threads(1));
        run_all(a, x, x16, &one, &n1);
        ND_OK_OR_FAIL(nd_set_num_threads(4));
        run_all(a, x, x16, &many, &n2);
        ND_OK_OR_FAIL(nd_set_num_threads(saved));
        ck_assert_int_eq(n1, n2);
        for (int64_t i = 0; i < n1; i++)
            if (one[i] != many[i]) ck_assert_msg(false, "value %lld differs with threads", (long long)i);
        free(one);
        free(many);
        free(xv);
        nd_release(x);
        nd_release(xf);
        nd_release(x16);
        nd_sparse_release(a);
        free(r.indptr);
        free(r.indices);
        free(r.data);
    }
}
END_TEST

/* The 5-point Laplacian of an m x m grid (Dirichlet), n = m*m, from
 * triplets. */
static nd_sparse *poisson(int64_t m, nd_dtype t)
{
    int64_t n = m * m, k = 0;
    int64_t *r = malloc((size_t)n * 5 * sizeof(int64_t)), *c = malloc((size_t)n * 5 * sizeof(int64_t));
    cplx *v = malloc((size_t)n * 5 * sizeof(cplx));
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) {
            int64_t p = i * m + j;
            r[k] = p, c[k] = p, v[k++] = 4;
            if (i > 0) r[k] = p, c[k] = p - m, v[k++] = -1;
            if (i + 1 < m) r[k] = p, c[k] = p + m, v[k++] = -1;
            if (j > 0) r[k] = p, c[k] = p - 1, v[k++] = -1;
            if (j + 1 < m) r[k] = p, c[k] = p + 1, v[k++] = -1;
        }
    nd_array *d = arr_vals(t, k, v), *ra = arr_idx(ND_INT64, k, r), *ca = arr_idx(ND_INT64, k, c);
    nd_sparse *s = NULL;
    ND_OK_OR_FAIL(nd_sparse_from_triplets(&s, ND_SPARSE_CSR, d, ra, ca, n, n));
    nd_release(d);
    nd_release(ra);
    nd_release(ca);
    free(r);
    free(c);
    free(v);
    return s;
}
START_TEST(solvers)
{
    for (int ti = 0; ti < 2; ti++) {
        nd_dtype t = ti ? ND_FLOAT64 : ND_FLOAT32;
        int64_t m = 24, n = m * m;
        nd_sparse *a = poisson(m, t);
        ck_assert_int_eq(nd_sparse_nnz(a), 5 * n - 4 * m);
        cplx *xt = malloc((size_t)n * sizeof(cplx));
        for (int64_t i = 0; i < n; i++) xt[i] = rval(ND_FLOAT64);
        nd_array *xa = arr_vals(t, n, xt), *b = NULL;
        ND_OK_OR_FAIL(nd_sparse_matmul(&b, a, xa));
        double rtol = ti ? 1e-10 : 1e-5;
        for (int method = 0; method < 2; method++) {
            nd_array *x = NULL;
            nd_sparse_solve_info info = {0};
            if (method == 0) ND_OK_OR_FAIL(nd_sparse_cg(&x, a, b, NULL, rtol, 0, 0, &info));
            else ND_OK_OR_FAIL(nd_sparse_bicgstab(&x, a, b, NULL, rtol, 0, 0, &info));
            ck_assert_msg(info.converged, "%s did not converge (%lld iterations, residual %g)",
                          method ? "bicgstab" : "cg", (long long)info.iterations, info.residual);
            ck_assert(info.iterations > 5 && info.iterations < n);
            cplx *xv;
            read_arr(x, &xv);
            double e = 0, nx = 0;
            for (int64_t i = 0; i < n; i++) {
                e += creal((xv[i] - xt[i]) * conj(xv[i] - xt[i]));
                nx += creal(xt[i] * conj(xt[i]));
            }
            /* cond(A) ~ 4 m^2 / pi^2 bounds the error by cond * rtol */
            double bound = 300.0 * rtol * (ti ? 1 : 10);
            ck_assert_msg(sqrt(e / nx) < bound, "%s: relative error %g > %g", method ? "bicgstab" : "cg",
                          sqrt(e / nx), bound);
            /* warm start from the answer: converged at once */
            nd_array *x2 = NULL;
            if (method == 0) ND_OK_OR_FAIL(nd_sparse_cg(&x2, a, b, x, rtol, 0, 0, &info));
            else ND_OK_OR_FAIL(nd_sparse_bicgstab(&x2, a, b, x, rtol, 0, 0, &info));
            ck_assert(info.converged);
            ck_assert_int_le(info.iterations, 1);
            /* maxiter 2: not converged, not an error */
            nd_release(x2);
            x2 = NULL;
            ND_OK_OR_FAIL(nd_sparse_cg(&x2, a, b, NULL, rtol, 0, 2, &info));
            ck_assert(!info.converged);
            ck_assert_int_eq(info.iterations, 2);
            nd_release(x2);
            nd_release(x);
            free(xv);
        }
        nd_array *o = (nd_array *)0x1, *b3 = NULL;
        ND_OK_OR_FAIL(nd_zeros(&b3, t, 1, (int64_t[]){3}, DEV()));
        ND_EXPECT_ERR(nd_sparse_cg(&o, a, b3, NULL, 1e-5, 0, 0, NULL), ND_ERR_SHAPE, "'b' must have shape (576,)");
        ck_assert_ptr_eq(o, (nd_array *)0x1);
        nd_release(b3);
        nd_release(xa);
        nd_release(b);
        free(xt);
        nd_sparse_release(a);
    }
}
END_TEST

/* empty matrices and 0 extents */
START_TEST(empty)
{
    nd_array *z = NULL;
    ND_OK_OR_FAIL(nd_zeros(&z, ND_FLOAT64, 2, (int64_t[]){4, 0}, DEV()));
    nd_sparse *s = NULL, *t = NULL;
    ND_OK_OR_FAIL(nd_sparse_from_dense(&s, z, ND_SPARSE_CSR));
    ck_assert_int_eq(nd_sparse_nnz(s), 0);
    ND_OK_OR_FAIL(nd_sparse_transpose(&t, s));
    nd_sparse *c = NULL;
    ND_OK_OR_FAIL(nd_sparse_spgemm(&c, s, t));
    ck_assert_int_eq(nd_sparse_rows(c), 4);
    ck_assert_int_eq(nd_sparse_nnz(c), 0);
    nd_array *x = NULL, *y = NULL;
    ND_OK_OR_FAIL(nd_zeros(&x, ND_FLOAT64, 1, (int64_t[]){0}, DEV()));
    ND_OK_OR_FAIL(nd_sparse_matmul(&y, s, x));
    ck_assert_int_eq(nd_size(y), 4);
    cplx zero[4] = {0};
    nd_array *y2 = NULL;
    ND_OK_OR_FAIL(nd_reshape(&y2, y, 2, (int64_t[]){4, 1}));
    expect_dense(y2, zero, 4, 1, "empty product");
    nd_release(y2);
    /* scipy's csr_matmat stores no sum that cancels: [[1,1],[0,0]] @ [[1,0],[-1,0]] */
    const cplx va[4] = {1, 1, 0, 0}, vb[4] = {1, 0, -1, 0};
    nd_array *fa = arr_vals(ND_FLOAT64, 4, va), *fb = arr_vals(ND_FLOAT64, 4, vb), *da = NULL, *db = NULL;
    ND_OK_OR_FAIL(nd_reshape(&da, fa, 2, (int64_t[]){2, 2}));
    ND_OK_OR_FAIL(nd_reshape(&db, fb, 2, (int64_t[]){2, 2}));
    nd_sparse *sa = NULL, *sb = NULL, *sc = NULL;
    ND_OK_OR_FAIL(nd_sparse_from_dense(&sa, da, ND_SPARSE_CSR));
    ND_OK_OR_FAIL(nd_sparse_from_dense(&sb, db, ND_SPARSE_CSC));
    ND_OK_OR_FAIL(nd_sparse_spgemm(&sc, sa, sb));
    ck_assert_int_eq(nd_sparse_nnz(sc), 0);
    nd_sparse_release(sa);
    nd_sparse_release(sb);
    nd_sparse_release(sc);
    nd_release(fa);
    nd_release(fb);
    nd_release(da);
    nd_release(db);
    nd_release(z);
    nd_release(x);
    nd_release(y);
    nd_sparse_release(s);
    nd_sparse_release(t);
    nd_sparse_release(c);
}
END_TEST

/* both devices: every operation of run_all, and conversions, on cuda:0
 * give the CPU's bits (exact data), and the matrices travel both ways */
static void move(nd_sparse **s, nd_device dev)
{
    nd_sparse *m = NULL;
    ND_OK_OR_FAIL(nd_sparse_to_device(&m, *s, dev));
    ck_assert_int_eq(nd_sparse_device(m).type, dev.type);
    nd_sparse_release(*s);
    *s = m;
}
static void move_arr(nd_array **a, nd_device dev)
{
    nd_array *m = NULL;
    ND_OK_OR_FAIL(nd_to_device(&m, *a, dev));
    nd_release(*a);
    *a = m;
}
#ifdef ND_CUDA_EMU
void nd_emu_cusparse_fail_next(int status); /* tests/emu/cusparse.h */
/* cuSPARSE failures (injected into the stand-in) become statuses naming the
 * routine and the cuSPARSE status; nothing is written, and the next call
 * works */
static void cusparse_failures(void)
{
    raw ra = gen(ND_FLOAT64, 9, 9, 4, false);
    nd_sparse *a = mk(&ra, ND_FLOAT64, ND_INT32), *c = NULL;
    move(&a, nd_cuda(0));
    cplx xv[18];
    for (int i = 0; i < 18; i++) xv[i] = rval(ND_FLOAT64);
    nd_array *x = arr_vals(ND_FLOAT64, 9, xv), *xf = arr_vals(ND_FLOAT64, 18, xv), *x2 = NULL, *y = NULL;
    move_arr(&x, nd_cuda(0));
    move_arr(&xf, nd_cuda(0));
    ND_OK_OR_FAIL(nd_reshape(&x2, xf, 2, (int64_t[]){9, 2}));
    nd_emu_cusparse_fail_next(2 /* CUSPARSE_STATUS_ALLOC_FAILED */);
    ND_EXPECT_ERR(nd_sparse_matmul(&y, a, x), ND_ERR_NOMEM, "cusparseSpMV failed: CUSPARSE_STATUS_ALLOC_FAILED (2)");
    nd_emu_cusparse_fail_next(6 /* CUSPARSE_STATUS_EXECUTION_FAILED */);
    ND_EXPECT_ERR(nd_sparse_matmul(&y, a, x2), ND_ERR_BACKEND, "cusparseSpMM failed: CUSPARSE_STATUS_EXECUTION_FAILED");
    nd_emu_cusparse_fail_next(10 /* CUSPARSE_STATUS_NOT_SUPPORTED */);
    ND_EXPECT_ERR(nd_sparse_spgemm(&c, a, a), ND_ERR_UNSUPPORTED, "cusparseSpGEMM_workEstimation failed");
    ck_assert_ptr_null(y);
    ck_assert_ptr_null(c);
    ND_OK_OR_FAIL(nd_sparse_matmul(&y, a, x));
    ND_OK_OR_FAIL(nd_sparse_spgemm(&c, a, a));
    nd_release(x), nd_release(xf), nd_release(x2), nd_release(y);
    nd_sparse_release(a), nd_sparse_release(c);
    raw_free(&ra);
}
#endif
START_TEST(device)
{
    if (nd_cuda_device_count() < 1) return;
#ifdef ND_CUDA_EMU
    cusparse_failures();
#endif
    const nd_device devs[2] = {CPU, nd_cuda(0)};
    for (int vi = 0; vi < 4; vi++)
        for (int ii = 0; ii < 2; ii++) {
            nd_dtype t = VT[vi], it = IT[ii];
            raw ra = gen(t, 41, 41, 9, true);
            cplx *xv = malloc(41 * 16 * sizeof(cplx));
            for (int64_t i = 0; i < 41 * 16; i++) xv[i] = rval(t);
            cplx *res[2];
            int64_t n[2];
            for (int d = 0; d < 2; d++) {
                nd_sparse *a = mk(&ra, t, it), *coo = NULL, *back = NULL;
                nd_array *x = arr_vals(t, 41, xv), *xf = arr_vals(t, 41 * 16, xv), *x16 = NULL;
                move(&a, devs[d]);
                move_arr(&x, devs[d]);
                move_arr(&xf, devs[d]);
                ND_OK_OR_FAIL(nd_reshape(&x16, xf, 2, (int64_t[]){41, 16}));
                run_all(a, x, x16, &res[d], &n[d]);
                /* COO round trip on the device, back to the CPU */
                ND_OK_OR_FAIL(nd_sparse_convert(&coo, a, ND_SPARSE_COO));
                ND_OK_OR_FAIL(nd_sparse_sum_duplicates(coo));
                ND_OK_OR_FAIL(nd_sparse_to_device(&back, coo, CPU));
                expect_sparse(back, ra.ref, 41, 41, "COO round trip through the device");
                nd_sparse_release(a);
                nd_sparse_release(coo);
                nd_sparse_release(back);
                nd_release(x);
                nd_release(xf);
                nd_release(x16);
            }
            ck_assert_int_eq(n[0], n[1]);
            for (int64_t i = 0; i < n[0]; i++)
                if (res[0][i] != res[1][i])
                    ck_assert_msg(false, "value %lld: cpu %g%+gi, cuda:0 %g%+gi", (long long)i, creal(res[0][i]),
                                  cimag(res[0][i]), creal(res[1][i]), cimag(res[1][i]));
            free(res[0]);
            free(res[1]);
            free(xv);
            raw_free(&ra);
        }
}
END_TEST

Suite *suite_sparse(void)
{
    Suite *s = suite_create("sparse");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, construct_convert);
    tcase_add_test(tc, triplets_and_canonical);
    tcase_add_test(tc, products);
    tcase_add_test(tc, spmv_rows);
    tcase_add_test(tc, spmv_stream);
    tcase_add_test(tc, triplets_long_rows);
    tcase_add_test(tc, half_values);
    tcase_add_test(tc, elementwise);
    tcase_add_test(tc, reductions_and_selection);
    tcase_add_test(tc, bad_input);
    tcase_add_test(tc, empty);
    tcase_add_test(tc, threads);
    tcase_add_test(tc, solvers);
    tcase_add_test(tc, device);
    suite_add_tcase(s, tc);
    return s;
}
