/* bench_matmul - nd_matmul for float32/float64 square matrices n = 64,
 * 256, 1024, 2048, 4096 (--quick: up to 1024), a transposed operand
 * (a.T @ b), and batches 1000 x (16x16) and 100 x (128x128). On the CPU
 * the raw cblas_sgemm/dgemm on the same data is timed in the same run as
 * the ceiling (ratio_to_raw in the JSON; a loop of gemm calls for the
 * batches). Every result is checked once with Freivalds' test in double
 * precision (C x against A (B x) for a random x). */
#include "bench_common.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K_SQUARE, K_TRANS_A, K_BATCH };
static const char *const kind_layout[] = {"contig", "aT", "batched"};

typedef struct mm_call {
    nd_array *a, *b, *out;
} mm_call;

static int mm_run(void *p)
{
    mm_call *c = p;
    return nd_matmul(&c->out, c->a, c->b);
}

typedef struct raw_call {
    nd_dtype t;
    bool trans_a;
    int batch, n;
    const void *a, *b;
    void *c;
} raw_call;

static int raw_run(void *p)
{
    raw_call *r = p;
    int n = r->n;
    size_t mat = (size_t)n * (size_t)n;
    CBLAS_TRANSPOSE ta = r->trans_a ? CblasTrans : CblasNoTrans;
    for (int i = 0; i < r->batch; i++) {
        if (r->t == ND_FLOAT32)
            cblas_sgemm(CblasRowMajor, ta, CblasNoTrans, n, n, n, 1.0f, (const float *)r->a + i * mat, n,
                        (const float *)r->b + i * mat, n, 0.0f, (float *)r->c + i * mat, n);
        else
            cblas_dgemm(CblasRowMajor, ta, CblasNoTrans, n, n, n, 1.0, (const double *)r->a + i * mat, n,
                        (const double *)r->b + i * mat, n, 0.0, (double *)r->c + i * mat, n);
    }
    return 0;
}

/* Freivalds: for each batch item, y = B x, z = op(A) y, w = C x; the
 * largest |w - z| must be within tol * (sum |op(A)| |B| |x|) row-wise.
 * a_host/b_host are the base (stored) matrices; trans_a reads A^T. */
static bool freivalds(bench_record *r, const double *a, const double *b, const double *c, int batch, int n,
                      bool trans_a, double rtol)
{
    double *x = malloc(3 * (size_t)n * sizeof(double) + 1), *bound = malloc((size_t)n * sizeof(double) + 1);
    if (!x || !bound) {
        free(x), free(bound);
        r->status = BS_ERROR;
        snprintf(r->message, sizeof r->message, "out of host memory for the check");
        return false;
    }
    double *y = x + n, *w = x + 2 * n;
    size_t mat = (size_t)n * (size_t)n;
    bool ok = true;
    for (int bi = 0; bi < batch && ok; bi++) {
        const double *A = a + bi * mat, *B = b + bi * mat, *C = c + bi * mat;
        for (int k = 0; k < n; k++) x[k] = 0.25 + bench_u01(99, (uint64_t)(bi * n + k));
        for (int i = 0; i < n; i++) { /* y = B x, bound = |B| |x| */
            double s = 0, t = 0;
            for (int k = 0; k < n; k++) s += B[(size_t)i * n + k] * x[k], t += fabs(B[(size_t)i * n + k] * x[k]);
            y[i] = s, bound[i] = t;
        }
        for (int i = 0; i < n && ok; i++) {
            double z = 0, zb = 0, cw = 0;
            for (int k = 0; k < n; k++) {
                double aik = trans_a ? A[(size_t)k * n + i] : A[(size_t)i * n + k];
                z += aik * y[k];
                zb += fabs(aik) * bound[k];
                cw += C[(size_t)i * n + k] * x[k];
            }
            w[i] = cw;
            if (!(fabs(cw - z) <= rtol * zb)) {
                ok = false;
                r->status = BS_WRONG;
                snprintf(r->message, sizeof r->message,
                         "Freivalds check failed: batch %d row %d: (C x) = %.17g but A (B x) = %.17g", bi, i, cw, z);
            }
        }
    }
    free(x), free(bound);
    return ok;
}

static void fill_record(bench_record *r, const bench_case *c, const char *op)
{
    int n = (int)c->p[0], batch = (int)c->p[1];
    snprintf(r->op, sizeof r->op, "%s", op);
    snprintf(r->layout, sizeof r->layout, "%s", kind_layout[c->kind]);
    if (c->kind == K_BATCH) snprintf(r->shape, sizeof r->shape, "%dx%dx%d", batch, n, n);
    else snprintf(r->shape, sizeof r->shape, "%dx%d", n, n);
    r->flops = 2.0 * batch * (double)n * n * n;
}

static void run_case(const bench_case *c)
{
    int n = (int)c->p[0], batch = (int)c->p[1];
    bench_record r;
    bench_record_init(&r, "matmul", c);
    fill_record(&r, c, "matmul");
    snprintf(r.call, sizeof r.call, "{\"fn\": \"matmul\"}");
    r.ninputs = 2;
    for (int k = 0; k < 2; k++) {
        bench_input *in = &r.inputs[k];
        in->dtype = c->dtype, in->seed = (uint64_t)(21 + k), in->lo = 0.5, in->hi = 1.5;
        if (c->kind == K_BATCH) in->ndim = 3, in->shape[0] = batch, in->shape[1] = n, in->shape[2] = n;
        else in->ndim = 2, in->shape[0] = n, in->shape[1] = n;
        if (k == 0 && c->kind == K_TRANS_A) in->view = BV_T;
    }
    mm_call call = {0};
    double *host[2] = {NULL, NULL}, *got = NULL;
    int s = ND_OK;
    for (int k = 0; k < 2 && s == ND_OK; k++) {
        s = bench_input_make(&r.inputs[k], c->dev, k ? &call.b : &call.a, &host[k]);
        if (s != ND_OK) bench_fail_nd(&r, "creating the inputs", s);
    }
    if (s == ND_OK && (s = mm_run(&call)) != ND_OK) bench_fail_nd(&r, "nd_matmul", s);
    double rtol = c->dtype == ND_FLOAT32 ? 1e-5 : 1e-13;
    if (s == ND_OK && (got = bench_fetch(call.out, &r))) {
        if (nd_size(call.out) != (int64_t)batch * n * n) {
            r.status = BS_WRONG;
            snprintf(r.message, sizeof r.message, "result has %lld elements", (long long)nd_size(call.out));
        } else if (freivalds(&r, host[0], host[1], got, batch, n, c->kind == K_TRANS_A, rtol)) {
            bench_checksum(got, nd_size(call.out), r.checksum);
            r.has_checksum = true;
        }
    }
    free(got);
    if (r.status == BS_OK && (s = bench_measure(mm_run, &call, c->dev, &r.st)) != ND_OK)
        bench_fail_nd(&r, "nd_matmul", s);

    /* The raw BLAS ceiling on the same data (CPU only). */
    bench_record raw;
    bool have_raw = c->dev.type == ND_DEVICE_CPU;
    if (have_raw) {
        bench_record_init(&raw, "matmul", c);
        fill_record(&raw, c, c->dtype == ND_FLOAT32 ? "cblas_sgemm" : "cblas_dgemm");
        snprintf(raw.note, sizeof raw.note, "(ceiling)");
        size_t es = nd_dtype_size(c->dtype), total = (size_t)batch * n * n;
        void *ha = malloc(total * es + 1), *hb = malloc(total * es + 1), *hc = malloc(total * es + 1);
        double *dc = malloc(total * sizeof(double) + 1);
        if (!ha || !hb || !hc || !dc) {
            raw.status = BS_ERROR;
            snprintf(raw.message, sizeof raw.message, "out of host memory");
        } else {
            for (size_t i = 0; i < total; i++) {
                if (c->dtype == ND_FLOAT32) ((float *)ha)[i] = (float)host[0][i], ((float *)hb)[i] = (float)host[1][i];
                else ((double *)ha)[i] = host[0][i], ((double *)hb)[i] = host[1][i];
            }
            raw_call rc = {c->dtype, c->kind == K_TRANS_A, batch, n, ha, hb, hc};
            raw_run(&rc);
            for (size_t i = 0; i < total; i++)
                dc[i] = c->dtype == ND_FLOAT32 ? (double)((float *)hc)[i] : ((double *)hc)[i];
            if (freivalds(&raw, host[0], host[1], dc, batch, n, rc.trans_a, rtol)) {
                bench_checksum(dc, (int64_t)total, raw.checksum);
                raw.has_checksum = true;
                bench_measure(raw_run, &rc, c->dev, &raw.st);
            }
        }
        free(ha), free(hb), free(hc), free(dc);
        if (raw.status == BS_OK && r.status == BS_OK && r.st.median > 0) {
            double ratio = raw.st.median / r.st.median;
            snprintf(r.extra, sizeof r.extra, "\"ratio_to_raw\": %.6g, \"raw_median_s\": %.6g", ratio,
                     raw.st.median);
            snprintf(r.note, sizeof r.note, "(%.2fx raw BLAS)", ratio);
        }
        snprintf(raw.extra, sizeof raw.extra, "\"ceiling\": true");
    }
    bench_emit(&r);
    if (have_raw) bench_emit(&raw);
    free(host[0]), free(host[1]);
    nd_release(call.a), nd_release(call.b), nd_release(call.out);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_matmul",
               "nd_matmul float32/float64: n x n for n = 64, 256, 1024, 2048, 4096 (--quick: up to 1024),\n"
               "a.T @ b, batches 1000 x (16x16) and 100 x (128x128); raw cblas_?gemm as the CPU ceiling.");
    const nd_dtype dtypes[2] = {ND_FLOAT32, ND_FLOAT64};
    static const int sizes[] = {64, 256, 1024, 2048, 4096};
    int max_n = g_opt.quick ? 1024 : 4096;
    for (int d = 0; d < bench_num_devices(); d++) {
        nd_device dev = bench_device(d);
        for (int t = 0; t < 2; t++) {
            bench_case c = {.dtype = dtypes[t], .dev = dev};
            const char *tn = nd_dtype_name(dtypes[t]), *dn = bench_dev_name(dev);
            for (int i = 0; i < 5; i++) {
                if (sizes[i] > max_n) continue;
                c.kind = K_SQUARE, c.p[0] = sizes[i], c.p[1] = 1;
                snprintf(c.key, sizeof c.key, "matmul/%s/%dx%d/contig/%s", tn, sizes[i], sizes[i], dn);
                bench_add_case(&c);
            }
            c.kind = K_TRANS_A, c.p[0] = g_opt.quick ? 1024 : 2048, c.p[1] = 1;
            snprintf(c.key, sizeof c.key, "matmul/%s/%dx%d/aT/%s", tn, (int)c.p[0], (int)c.p[0], dn);
            bench_add_case(&c);
            static const int bn[2][2] = {{1000, 16}, {100, 128}};
            for (int i = 0; i < 2; i++) {
                c.kind = K_BATCH, c.p[0] = bn[i][1], c.p[1] = bn[i][0];
                snprintf(c.key, sizeof c.key, "matmul/%s/%dx%dx%d/batched/%s", tn, bn[i][0], bn[i][1], bn[i][1], dn);
                bench_add_case(&c);
            }
        }
    }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_progress(i, bench_get_case(i));
        run_case(bench_get_case(i));
    }
    return bench_finish();
}
