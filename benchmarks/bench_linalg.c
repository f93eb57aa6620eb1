/* bench_linalg - numpy.linalg through the public API, against
 * NumPy (and CuPy on a GPU) in the same run (bench_worker.py, fn "linalg"):
 *   solve     2048x2048 float64, b 2048x16      goal >= 1.0x NumPy
 *   svd       1024x1024 float64, full_matrices=False (U, S, Vh)  goal >= 1.0x
 *   eigh      1024x1024 float64 (w and v)       goal >= 1.0x
 *   inv       10,000 batched 4x4 float32         goal >= 3x
 *   solve     10,000 batched 4x4 float32, b 10,000x4x1: informative (the
 *             GPU's batched LU; key solve/float32/10000x4x4/batched)
 *   inv       1024x1024 float64: informative (one large LU and its solve)
 *   det 512, cholesky 1024, qr 1024 (reduced), norm ('fro') of 4096x4096
 *   float32, multi_dot of 4 float64 matrices (A 512x64, B 64x512, C[:, :32]
 *   512x32, B[:32, :] 32x512: three inputs, as bench_record holds at most
 *   BENCH_MAX_INPUTS = 3): informative, no goal.
 * Inputs: the shared uniform generator (values in [0.5, 1.5)), made
 * well-conditioned the same way on both sides (bench_worker.py applies the
 * same float64/float32 operations, so the matrices are equal bit for bit):
 *   solve, inv:     A + n I
 *   det:            A / n + I  (a finite determinant)
 *   eigh:           (A + A^T) / 2
 *   cholesky:       (A + A^T) / 2 + n I  (positive definite)
 * Checksums are over results that are unique (the decompositions' vectors
 * are not: signs and phases differ between libraries): x of solve, S of
 * svd, w of eigh, the inverses, det, L of cholesky, |R| of qr, the norm,
 * the product. Every case is checked once on the host: residuals, traces,
 * Frobenius norms (sum S^2 = |A|_F^2, |R|_F = |A|_F), sampled products. */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { L_SOLVE, L_SVD, L_EIGH, L_INV, L_DET, L_CHOL, L_QR, L_NORM, L_MDOT, L_SOLVEB, L_INVM, NOPS };
/* L_SOLVEB: the batched solve, "solve" on both sides; L_INVM: inv of one
 * large matrix, "inv" on both sides */
static const char *const op_names[NOPS] = {"solve", "svd", "eigh", "inv",       "det",   "cholesky",
                                           "qr",    "norm", "multi_dot", "solve", "inv"};
/* the transform applied to input 0 (bench_worker.py: "prep") */
enum { P_NONE, P_DIAG, P_DET, P_SYM, P_SPD };
static const char *const prep_names[] = {"none", "diag", "det", "sym", "spd"};

typedef struct la_call {
    int op;
    nd_array *in[4];
    nd_array *o1, *o2, *o3;
} la_call;

static void rel(la_call *c)
{
    nd_release(c->o1), nd_release(c->o2), nd_release(c->o3);
    c->o1 = c->o2 = c->o3 = NULL;
}

static int la_run(void *p)
{
    la_call *c = p;
    rel(c);
    switch (c->op) {
    case L_SOLVE: case L_SOLVEB: return nd_linalg_solve(&c->o1, c->in[0], c->in[1]);
    case L_SVD: return nd_linalg_svd(&c->o1, &c->o2, &c->o3, c->in[0], false);
    case L_EIGH: return nd_linalg_eigh(&c->o1, &c->o2, c->in[0], 'L');
    case L_INV: case L_INVM: return nd_linalg_inv(&c->o1, c->in[0]);
    case L_DET: return nd_linalg_det(&c->o1, c->in[0]);
    case L_CHOL: return nd_linalg_cholesky(&c->o1, c->in[0], false);
    case L_QR: return nd_linalg_qr(&c->o2, &c->o1, c->in[0], ND_QR_REDUCED);
    case L_NORM: return nd_linalg_norm(&c->o1, c->in[0], nd_norm_named(ND_NORM_DEFAULT), -1, NULL, false);
    default: return nd_linalg_multi_dot(&c->o1, 4, (const nd_array *const *)c->in);
    }
}

static int prep_of(int op)
{
    switch (op) {
    case L_SOLVE: case L_SOLVEB: case L_INV: case L_INVM: return P_DIAG;
    case L_DET: return P_DET;
    case L_EIGH: return P_SYM;
    case L_CHOL: return P_SPD;
    default: return P_NONE;
    }
}

/* In place on the host values of a batch of n x n matrices (row-major),
 * in the input's precision (float32 rounds each result, as NumPy does). */
static void prep(double *h, int64_t batch, int64_t n, int how, bool f32)
{
    for (int64_t b = 0; b < batch; b++) {
        double *m = h + b * n * n;
        if (how == P_SYM || how == P_SPD)
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = i + 1; j < n; j++) {
                    double s = (m[i * n + j] + m[j * n + i]) / 2;
                    m[i * n + j] = m[j * n + i] = s;
                }
        if (how == P_DET)
            for (int64_t i = 0; i < n * n; i++) m[i] /= (double)n;
        for (int64_t i = 0; i < n; i++) {
            double d = how == P_DIAG || how == P_SPD ? (double)n : how == P_DET ? 1.0 : 0.0;
            m[i * n + i] += d;
            if (f32) m[i * n + i] = (float)m[i * n + i];
        }
    }
}

static int make_in(bench_record *r, const bench_case *c, int k, int ndim, const int64_t *shape, int how,
                   nd_array **out, double **host)
{
    bench_input *in = &r->inputs[k];
    in->dtype = c->dtype;
    in->ndim = ndim;
    for (int i = 0; i < ndim; i++) in->shape[i] = shape[i];
    in->seed = (uint64_t)(101 + 10 * c->op + k);
    in->lo = 0.5, in->hi = 1.5;
    nd_array *base = NULL;
    int s = bench_input_make(in, c->dev, &base, host);
    if (s != ND_OK) {
        bench_fail_nd(r, "creating an input", s);
        return s;
    }
    if (how == P_NONE) {
        *out = base;
        return ND_OK;
    }
    nd_release(base);
    int64_t n = shape[ndim - 1], batch = bench_input_base_size(in) / (n * n);
    prep(*host, batch, n, how, c->dtype == ND_FLOAT32);
    int64_t cnt = batch * n * n;
    void *buf = malloc((size_t)cnt * 8 + 8);
    for (int64_t i = 0; i < cnt; i++) {
        if (c->dtype == ND_FLOAT32) ((float *)buf)[i] = (float)(*host)[i];
        else ((double *)buf)[i] = (*host)[i];
    }
    s = nd_from_host(out, buf, c->dtype, ndim, shape, c->dev);
    free(buf);
    if (s != ND_OK) bench_fail_nd(r, "nd_from_host", s);
    return s;
}

static void wrong(bench_record *r, const char *fmt, double got, double want)
{
    r->status = BS_WRONG;
    snprintf(r->message, sizeof r->message, fmt, got, want);
}

static bool near(double g, double w, double tol) { return fabs(g - w) <= tol * (fabs(w) + 1e-300); }

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "linalg", c);
    const int op = c->op;
    snprintf(r.op, sizeof r.op, "%s", op_names[op]);
    const int64_t n = c->p[0];
    la_call call = {.op = op};
    double *h[4] = {NULL, NULL, NULL, NULL};
    int s = ND_OK;
    int64_t shape[3];
    const bool f32 = c->dtype == ND_FLOAT32;
    snprintf(r.layout, sizeof r.layout, "%s", "contig");
    if (op == L_MDOT) { /* A (512x64), B (64x512), C[:, :32] (512x32), B[:32, :] (32x512): 3 inputs */
        static const int64_t sh[3][2] = {{512, 64}, {64, 512}, {512, 64}};
        snprintf(r.shape, sizeof r.shape, "512x64x512x32x512");
        r.ninputs = 3;
        for (int k = 0; k < 3 && s == ND_OK; k++) s = make_in(&r, c, k, 2, sh[k], P_NONE, &call.in[k], &h[k]);
        if (s == ND_OK) {
            nd_array *cv = NULL, *dv = NULL;
            s = nd_slice(&cv, call.in[2], 2, (nd_range[]){ND_ALL, {0, 32, 1}});
            if (s == ND_OK) s = nd_slice(&dv, call.in[1], 1, (nd_range[]){{0, 32, 1}});
            nd_release(call.in[2]);
            call.in[2] = cv, call.in[3] = dv;
            if (s != ND_OK) bench_fail_nd(&r, "slicing the inputs", s);
        }
    } else if (op == L_INV || op == L_SOLVEB) {
        shape[0] = c->p[1], shape[1] = n, shape[2] = n;
        bench_fmt_shape(r.shape, sizeof r.shape, 3, shape);
        snprintf(r.layout, sizeof r.layout, "%s", "batched");
        r.ninputs = op == L_SOLVEB ? 2 : 1;
        s = make_in(&r, c, 0, 3, shape, P_DIAG, &call.in[0], &h[0]);
        if (s == ND_OK && op == L_SOLVEB) {
            int64_t bs[3] = {c->p[1], n, 1};
            s = make_in(&r, c, 1, 3, bs, P_NONE, &call.in[1], &h[1]);
        }
    } else {
        shape[0] = n, shape[1] = n;
        bench_fmt_shape(r.shape, sizeof r.shape, 2, shape);
        r.ninputs = op == L_SOLVE ? 2 : 1;
        s = make_in(&r, c, 0, 2, shape, prep_of(op), &call.in[0], &h[0]);
        if (s == ND_OK && op == L_SOLVE) {
            snprintf(r.layout, sizeof r.layout, "%s", "rhs16");
            int64_t bs[2] = {n, 16};
            s = make_in(&r, c, 1, 2, bs, P_NONE, &call.in[1], &h[1]);
        }
        if (op == L_NORM) snprintf(r.layout, sizeof r.layout, "%s", "fro");
    }
    snprintf(r.call, sizeof r.call, "{\"fn\": \"linalg\", \"op\": \"%s\", \"prep\": \"%s\"}", op_names[op],
             prep_names[prep_of(op)]);
    if (s == ND_OK) {
        s = la_run(&call);
        if (s != ND_OK) bench_fail_nd(&r, op_names[op], s);
    }
    /* the checked (and checksummed) result */
    double *got = NULL;
    nd_array *res = op == L_SVD ? call.o2 : op == L_EIGH ? call.o1 : call.o1;
    if (s == ND_OK && (got = bench_fetch(res, &r))) {
        const int64_t cnt = nd_size(res);
        const double eps = f32 ? 1e-4 : 1e-9;
        if (op == L_SOLVE) { /* residual of a few columns' rows */
            for (int64_t i = 0; i < n && r.status == BS_OK; i += 97)
                for (int64_t j = 0; j < 16; j += 5) {
                    long double acc = 0;
                    for (int64_t k = 0; k < n; k++) acc += (long double)h[0][i * n + k] * got[k * 16 + j];
                    if (!near((double)acc, h[1][i * 16 + j], 1e-10)) {
                        wrong(&r, "solve: row of a x is %.17g, want %.17g", (double)acc, h[1][i * 16 + j]);
                        break;
                    }
                }
        } else if (op == L_SVD || op == L_QR || op == L_NORM) { /* Frobenius norms agree */
            long double fa = 0, fr = 0;
            for (int64_t i = 0; i < n * n; i++) fa += (long double)h[0][i] * h[0][i];
            for (int64_t i = 0; i < cnt; i++) fr += (long double)got[i] * got[i];
            if (op == L_NORM) fr = (long double)got[0] * got[0];
            if (!near((double)fr, (double)fa, eps)) wrong(&r, "|result|_F^2 = %.17g, want |A|_F^2 = %.17g", (double)fr, (double)fa);
            if (op == L_SVD)
                for (int64_t i = 1; i < cnt; i++)
                    if (got[i] > got[i - 1]) {
                        wrong(&r, "singular values not descending: %.17g after %.17g", got[i], got[i - 1]);
                        break;
                    }
            if (op == L_QR)
                for (int64_t i = 0; i < cnt; i++) got[i] = fabs(got[i]); /* |R|: unique */
        } else if (op == L_EIGH) {
            long double tr = 0, sw = 0;
            for (int64_t i = 0; i < n; i++) tr += h[0][i * n + i], sw += got[i];
            if (!near((double)sw, (double)tr, 1e-9)) wrong(&r, "sum of eigenvalues %.17g, trace %.17g", (double)sw, (double)tr);
        } else if (op == L_SOLVEB) { /* a few matrices: A x = b */
            for (int64_t b = 0; b < c->p[1] && r.status == BS_OK; b += 997)
                for (int i = 0; i < n; i++) {
                    double acc = 0;
                    for (int k = 0; k < n; k++) acc += h[0][b * n * n + i * n + k] * got[b * n + k];
                    if (!near(acc, h[1][b * n + i], 1e-5)) {
                        wrong(&r, "batched solve: row of a x is %.9g, want %.9g", acc, h[1][b * n + i]);
                        break;
                    }
                }
        } else if (op == L_INV) { /* a few matrices: A A^-1 = I */
            for (int64_t b = 0; b < c->p[1] && r.status == BS_OK; b += 997)
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++) {
                        double acc = 0;
                        for (int k = 0; k < n; k++) acc += h[0][b * n * n + i * n + k] * got[b * n * n + k * n + j];
                        if (fabs(acc - (i == j)) > 1e-5) {
                            wrong(&r, "A inv(A) entry %.9g, want %.9g", acc, (double)(i == j));
                            i = j = (int)n;
                            break;
                        }
                    }
        } else if (op == L_INVM) { /* sampled entries of A A^-1 = I */
            for (int64_t i = 0; i < n && r.status == BS_OK; i += 97)
                for (int64_t j = 0; j < n; j += 89) {
                    long double acc = 0;
                    for (int64_t k = 0; k < n; k++) acc += (long double)h[0][i * n + k] * got[k * n + j];
                    if (fabsl(acc - (i == j)) > 1e-12) {
                        wrong(&r, "A inv(A) entry %.17g, want %.17g", (double)acc, (double)(i == j));
                        break;
                    }
                }
        } else if (op == L_DET) { /* LU with partial pivoting in long double */
            long double *m = malloc(sizeof(long double) * (size_t)(n * n)), det = 1;
            for (int64_t i = 0; i < n * n; i++) m[i] = h[0][i];
            for (int64_t k = 0; k < n; k++) {
                int64_t p = k;
                for (int64_t i = k + 1; i < n; i++)
                    if (fabsl(m[i * n + k]) > fabsl(m[p * n + k])) p = i;
                if (p != k) {
                    for (int64_t j = 0; j < n; j++) {
                        long double t = m[k * n + j];
                        m[k * n + j] = m[p * n + j];
                        m[p * n + j] = t;
                    }
                    det = -det;
                }
                det *= m[k * n + k];
                for (int64_t i = k + 1; i < n; i++) {
                    long double f = m[i * n + k] / m[k * n + k];
                    for (int64_t j = k; j < n; j++) m[i * n + j] -= f * m[k * n + j];
                }
            }
            free(m);
            if (!near(got[0], (double)det, 1e-9)) wrong(&r, "det %.17g, want %.17g", got[0], (double)det);
        } else if (op == L_CHOL) { /* sampled entries of L L^T */
            for (int64_t i = 0; i < n && r.status == BS_OK; i += 131)
                for (int64_t j = 0; j <= i; j += 37) {
                    long double acc = 0;
                    for (int64_t k = 0; k <= j; k++) acc += (long double)got[i * n + k] * got[j * n + k];
                    if (!near((double)acc, h[0][i * n + j], 1e-10)) {
                        wrong(&r, "(L L^T) entry %.17g, want %.17g", (double)acc, h[0][i * n + j]);
                        break;
                    }
                }
        } else if (op == L_MDOT) { /* sampled rows: ((a_i B) C) D in double */
            double *t1 = malloc(512 * 8), *t2 = malloc(512 * 8);
            for (int64_t i = 0; i < 512 && r.status == BS_OK; i += 61) {
                double v64[64], v32[32];
                for (int j = 0; j < 64; j++) v64[j] = h[0][i * 64 + j];
                for (int j = 0; j < 512; j++) {
                    t1[j] = 0;
                    for (int k = 0; k < 64; k++) t1[j] += v64[k] * h[1][k * 512 + j];
                }
                for (int j = 0; j < 32; j++) {
                    v32[j] = 0;
                    for (int k = 0; k < 512; k++) v32[j] += t1[k] * h[2][k * 64 + j];
                }
                for (int j = 0; j < 512; j++) {
                    t2[j] = 0;
                    for (int k = 0; k < 32; k++) t2[j] += v32[k] * h[1][k * 512 + j];
                    if (!near(got[i * 512 + j], t2[j], 1e-12)) {
                        wrong(&r, "multi_dot entry %.17g, want %.17g", got[i * 512 + j], t2[j]);
                        break;
                    }
                }
            }
            free(t1), free(t2);
        }
        if (r.status == BS_OK) {
            bench_checksum(got, cnt, r.checksum);
            r.has_checksum = true;
        }
        r.bytes = 0;
        for (int k = 0; k < 4; k++) r.bytes += call.in[k] ? (double)nd_nbytes(call.in[k]) : 0;
        if (op == L_NORM) r.bytes = (double)nd_nbytes(call.in[0]);
    }
    free(got);
    for (int k = 0; k < 4; k++) free(h[k]);
    if (r.status == BS_OK) {
        s = bench_measure(la_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, op_names[op], s);
    }
    bench_emit(&r);
    rel(&call);
    for (int k = 0; k < 4; k++) nd_release(call.in[k]);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_linalg",
               "numpy.linalg: solve 2048 (b 2048x16), svd 1024 (full_matrices=False), eigh 1024 (float64), batched\n"
               "inv and solve of 10,000 4x4 float32, inv 1024, det 512, cholesky 1024, qr 1024, norm of 4096x4096 float32,\n"
               "multi_dot of 4 matrices; inputs made well-conditioned the same way as the NumPy side.");
    for (int d = 0; d < bench_num_devices(); d++)
        for (int op = 0; op < NOPS; op++) {
            bench_case c = {.op = op, .dtype = ND_FLOAT64, .layout = 0, .dev = bench_device(d)};
            const char *shape = "", *layout = "contig";
            switch (op) {
            case L_SOLVE: c.p[0] = 2048, shape = "2048x2048", layout = "rhs16"; break;
            case L_SVD: case L_EIGH: case L_CHOL: case L_QR: c.p[0] = 1024, shape = "1024x1024"; break;
            case L_INV: case L_SOLVEB:
                c.p[0] = 4, c.p[1] = 10000, c.dtype = ND_FLOAT32, shape = "10000x4x4", layout = "batched";
                break;
            case L_DET: c.p[0] = 512, shape = "512x512"; break;
            case L_INVM: c.p[0] = 1024, shape = "1024x1024"; break;
            case L_NORM: c.p[0] = 4096, c.dtype = ND_FLOAT32, shape = "4096x4096", layout = "fro"; break;
            default: shape = "512x64x512x32x512"; break;
            }
            snprintf(c.key, sizeof c.key, "%s/%s/%s/%s/%s", op_names[op], nd_dtype_name(c.dtype), shape, layout,
                     bench_dev_name(c.dev));
            bench_add_case(&c);
        }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        run_case(c);
    }
    return bench_finish();
}
