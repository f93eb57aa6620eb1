/* bench_sparse - sparse matrices through the public API (scipy.sparse is
 * the twin in benchmarks/bench_worker.py):
 *   spmv/float64/laplace2d-1000/csr: y = A x, A the 5-point Laplacian of a
 *     1000 x 1000 grid (1e6 rows, 4,996,000 entries);
 *   spmv/float64/powerlaw-1000000/csr: the same for a random matrix whose
 *     row lengths follow a power law (Pareto, alpha 2: floor(1 / (1 - u)),
 *     capped at 1000; ~8.5e6 entries);
 *   spmm16/float64/laplace2d-1000/csr: Y = A X, X (1e6, 16);
 *   spgemm/float64/laplace2d-1000/csr: A @ A;
 *   todense, fromdense/float64/powerlaw-4000: CSR <-> dense (4000 x 4000);
 *   coo_tocsr/float64/powerlaw-1000000: the triplets to canonical CSR;
 *   triad/float64/16000000/raw: the STREAM triad of bench_common, the
 *     bandwidth ceiling the SpMV/SpMM cases report a fraction of
 *     ("fraction_of_triad"). Their bytes are the least a product must move
 *     (docs/sparse.md): values and column indices (12 bytes an entry with
 *     int32 indices), the row pointers (4 bytes a row), x read once and y
 *     written once (8 bytes an element each).
 * The matrices are built from bench_common's counter generator (the worker
 * rebuilds them bit for bit); x and X are bench inputs. Each case is
 * checked once against plain C loops over the triplets (SpGEMM through
 * (A A) x = A (A x)), then timed. */
#include "bench_common.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

enum { K_SPMV, K_SPMM, K_SPGEMM, K_TODENSE, K_FROMDENSE, K_COO, NK };
static const char *const names[NK] = {"spmv", "spmm16", "spgemm", "todense", "fromdense", "coo_tocsr"};

/* triplets of a matrix on the host */
typedef struct trip {
    int64_t n, nnz;
    int64_t *r, *c;
    double *v;
} trip;

static void trip_free(trip *t)
{
    free(t->r), free(t->c), free(t->v);
}

/* the 5-point Laplacian of an m x m grid, rows in order */
static int laplace(trip *t, int64_t m)
{
    int64_t n = m * m, k = 0;
    t->n = n;
    t->r = malloc((size_t)n * 5 * sizeof(int64_t));
    t->c = malloc((size_t)n * 5 * sizeof(int64_t));
    t->v = malloc((size_t)n * 5 * sizeof(double));
    if (!t->r || !t->c || !t->v) return ND_ERR_NOMEM;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) {
            int64_t p = i * m + j;
            if (i > 0) t->r[k] = p, t->c[k] = p - m, t->v[k++] = -1;
            if (j > 0) t->r[k] = p, t->c[k] = p - 1, t->v[k++] = -1;
            t->r[k] = p, t->c[k] = p, t->v[k++] = 4;
            if (j + 1 < m) t->r[k] = p, t->c[k] = p + 1, t->v[k++] = -1;
            if (i + 1 < m) t->r[k] = p, t->c[k] = p + m, t->v[k++] = -1;
        }
    t->nnz = k;
    return ND_OK;
}

/* row i has min(cap, floor(1 / (1 - u(seed, i)))) entries at columns
 * floor(n u(seed + 1, p)) with values 2 u(seed + 2, p) - 1 (p the entry's
 * running number); duplicates possible */
#define PL_SEED 41
#define PL_CAP 1000
static int powerlaw(trip *t, int64_t n)
{
    int64_t nnz = 0;
    int64_t *deg = malloc((size_t)n * sizeof(int64_t));
    if (!deg) return ND_ERR_NOMEM;
    for (int64_t i = 0; i < n; i++) {
        double d = floor(1.0 / (1.0 - bench_u01(PL_SEED, (uint64_t)i)));
        deg[i] = d > PL_CAP ? PL_CAP : (int64_t)d;
        nnz += deg[i];
    }
    t->n = n, t->nnz = nnz;
    t->r = malloc((size_t)nnz * sizeof(int64_t));
    t->c = malloc((size_t)nnz * sizeof(int64_t));
    t->v = malloc((size_t)nnz * sizeof(double));
    if (!t->r || !t->c || !t->v) {
        free(deg);
        return ND_ERR_NOMEM;
    }
    int64_t p = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t q = 0; q < deg[i]; q++, p++) {
            t->r[p] = i;
            t->c[p] = (int64_t)floor((double)n * bench_u01(PL_SEED + 1, (uint64_t)p));
            t->v[p] = 2 * bench_u01(PL_SEED + 2, (uint64_t)p) - 1;
        }
    free(deg);
    return ND_OK;
}

/* y = A x over the triplets (k columns) */
static void trip_mv(const trip *t, const double *x, double *y, int64_t k)
{
    memset(y, 0, (size_t)(t->n * k) * sizeof(double));
    for (int64_t p = 0; p < t->nnz; p++)
        for (int64_t j = 0; j < k; j++) y[t->r[p] * k + j] += t->v[p] * x[t->c[p] * k + j];
}

static int trip_upload(const trip *t, nd_device dev, nd_array **d, nd_array **r, nd_array **c)
{
    int s = nd_from_host(d, t->v, ND_FLOAT64, 1, &t->nnz, dev);
    if (!s) s = nd_from_host(r, t->r, ND_INT64, 1, &t->nnz, dev);
    if (!s) s = nd_from_host(c, t->c, ND_INT64, 1, &t->nnz, dev);
    return s;
}

typedef struct sp_call {
    int kind;
    nd_sparse *a, *res;
    nd_array *x, *out, *dense, *d, *r, *c;
    int64_t n;
} sp_call;

static int sp_run(void *p)
{
    sp_call *c = p;
    switch (c->kind) {
    case K_SPMV:
    case K_SPMM: return nd_sparse_matmul(&c->out, c->a, c->x);
    case K_TODENSE: return nd_sparse_to_dense(&c->out, c->a);
    default: break;
    }
    nd_sparse_release(c->res);
    c->res = NULL;
    if (c->kind == K_SPGEMM) return nd_sparse_spgemm(&c->res, c->a, c->a);
    if (c->kind == K_FROMDENSE) return nd_sparse_from_dense(&c->res, c->dense, ND_SPARSE_CSR);
    return nd_sparse_from_triplets(&c->res, ND_SPARSE_CSR, c->d, c->r, c->c, c->n, c->n);
}

/* The gather ceiling of an SpMV: the sum over every stored entry of
 * v[p] x[c[p]], the same column sequence with no row structure (no row
 * pointers, no per-row sums, no y), the entries split evenly over the
 * threads; the faster of a scalar loop (four sums) and, where the CPU has
 * AVX-512, full 8-wide gathers. Random columns (the power-law matrix) make
 * an SpMV bound by how fast the core fetches x's lines from the caches,
 * which no count of DRAM bytes sees: this is what such a product could
 * reach on this machine ("fraction_of_gather" = its time / the case's). */
typedef struct ga_call {
    const void *ci; /* column indices, int32 or int64 */
    bool i64, vec;
    const double *v, *x;
    int64_t nnz;
    double sum;
} ga_call;

static double ga_scalar(const ga_call *g, int64_t p0, int64_t p1)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t p = p0;
    if (g->i64) {
        const int64_t *c = g->ci;
        for (; p + 4 <= p1; p += 4) {
            s0 += g->v[p] * g->x[c[p]], s1 += g->v[p + 1] * g->x[c[p + 1]];
            s2 += g->v[p + 2] * g->x[c[p + 2]], s3 += g->v[p + 3] * g->x[c[p + 3]];
        }
        for (; p < p1; p++) s0 += g->v[p] * g->x[c[p]];
    } else {
        const int32_t *c = g->ci;
        for (; p + 4 <= p1; p += 4) {
            s0 += g->v[p] * g->x[c[p]], s1 += g->v[p + 1] * g->x[c[p + 1]];
            s2 += g->v[p + 2] * g->x[c[p + 2]], s3 += g->v[p + 3] * g->x[c[p + 3]];
        }
        for (; p < p1; p++) s0 += g->v[p] * g->x[c[p]];
    }
    return (s0 + s1) + (s2 + s3);
}

#if defined(__x86_64__)
#include <immintrin.h>
__attribute__((target("avx512f"))) static double ga_avx512(const ga_call *g, int64_t p0, int64_t p1)
{
    __m512d a0 = _mm512_setzero_pd(), a1 = a0;
    int64_t p = p0;
    if (g->i64) {
        const int64_t *c = g->ci;
        for (; p + 16 <= p1; p += 16) {
            a0 = _mm512_fmadd_pd(_mm512_loadu_pd(g->v + p), _mm512_i64gather_pd(_mm512_loadu_si512(c + p), g->x, 8), a0);
            a1 = _mm512_fmadd_pd(_mm512_loadu_pd(g->v + p + 8),
                                 _mm512_i64gather_pd(_mm512_loadu_si512(c + p + 8), g->x, 8), a1);
        }
    } else {
        const int32_t *c = g->ci;
        for (; p + 16 <= p1; p += 16) {
            __m512i i = _mm512_loadu_si512(c + p);
            a0 = _mm512_fmadd_pd(_mm512_loadu_pd(g->v + p), _mm512_i32gather_pd(_mm512_castsi512_si256(i), g->x, 8), a0);
            a1 = _mm512_fmadd_pd(_mm512_loadu_pd(g->v + p + 8),
                                 _mm512_i32gather_pd(_mm512_extracti64x4_epi64(i, 1), g->x, 8), a1);
        }
    }
    return _mm512_reduce_add_pd(_mm512_add_pd(a0, a1)) + ga_scalar(g, p, p1);
}
#endif

static int ga_run(void *p)
{
    ga_call *g = p;
    double sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
        int nt = omp_get_num_threads(), t = omp_get_thread_num();
        int64_t p0 = g->nnz * t / nt, p1 = g->nnz * (t + 1) / nt;
#if defined(__x86_64__)
        if (g->vec) sum += ga_avx512(g, p0, p1);
        else
#endif
            sum += ga_scalar(g, p0, p1);
    }
    g->sum = sum;
    return 0;
}

/* Time the gather ceiling of matrix a with x (host arrays) and note it on
 * r: the faster of the two loops, each checked against the scalar sum. */
static void note_gather_ceiling(bench_record *r, const nd_sparse *a, const nd_array *x)
{
    nd_array *ci = NULL, *v = NULL;
    if (r->status != BS_OK || nd_sparse_part_get(&ci, a, ND_SPARSE_INDICES) || nd_sparse_part_get(&v, a, ND_SPARSE_DATA)) {
        nd_release(ci);
        return;
    }
    ga_call g = {.ci = nd_data(ci), .i64 = nd_dtype_of(ci) == ND_INT64, .v = nd_data(v), .x = nd_data(x),
                 .nnz = nd_size(v)};
    double best = 0;
    for (int vec = 0; vec < 2; vec++) {
#if defined(__x86_64__)
        if (vec && !__builtin_cpu_supports("avx512f")) break;
#else
        if (vec) break;
#endif
        g.vec = vec;
        bench_stats st;
        memset(&st, 0, sizeof st);
        if (bench_measure(ga_run, &g, nd_cpu(), &st) == 0 && st.median > 0 && (best == 0 || st.median < best))
            best = st.median;
    }
    if (best > 0 && r->st.median > 0) {
        bench_extra_append(r, "\"gather_ceiling_s\": %.6g, \"fraction_of_gather\": %.4g", best, best / r->st.median);
        size_t len = strlen(r->note);
        snprintf(r->note + len, sizeof r->note - len, " (%.0f%% of gather)", 100 * best / r->st.median);
    }
    nd_release(ci), nd_release(v);
}

/* checksum of the stored values of a canonical matrix */
static int sp_checksum(bench_record *r, const nd_sparse *s)
{
    nd_array *d = NULL;
    int st = nd_sparse_part_get(&d, s, ND_SPARSE_DATA);
    if (st) return st;
    double *h = bench_fetch(d, r);
    if (h) {
        bench_checksum(h, nd_size(d), r->checksum);
        r->has_checksum = true;
    }
    free(h);
    nd_release(d);
    return ND_OK;
}

static void run_case(const bench_case *c)
{
    bench_record r;
    bench_record_init(&r, "sparse", c);
    int k = c->kind;
    bool lap = k == K_SPMV ? c->p[0] == 0 : (k == K_SPMM || k == K_SPGEMM);
    int64_t size = lap ? 1000 : (k == K_TODENSE || k == K_FROMDENSE) ? 4000 : 1000000;
    snprintf(r.op, sizeof r.op, "%s", names[k]);
    snprintf(r.dtype, sizeof r.dtype, "float64");
    snprintf(r.shape, sizeof r.shape, "%s-%lld", lap ? "laplace2d" : "powerlaw", (long long)size);
    snprintf(r.layout, sizeof r.layout, "csr");
    snprintf(r.call, sizeof r.call, "{\"fn\": \"sp_%s\", \"matrix\": \"%s\", \"size\": %lld, \"seed\": %d, \"cap\": %d}",
             names[k], lap ? "laplace2d" : "powerlaw", (long long)size, PL_SEED, PL_CAP);
    trip t = {0};
    sp_call call = {.kind = k};
    double *hx = NULL, *got = NULL, *ref = NULL, *tmp = NULL;
    int s = lap ? laplace(&t, size) : powerlaw(&t, size);
    call.n = t.n;
    int64_t kc = k == K_SPMM ? 16 : 1;
    if (!s) s = trip_upload(&t, c->dev, &call.d, &call.r, &call.c);
    if (!s && k != K_COO) s = nd_sparse_from_triplets(&call.a, ND_SPARSE_CSR, call.d, call.r, call.c, t.n, t.n);
    if (!s && (k == K_SPMV || k == K_SPMM || k == K_SPGEMM)) {
        bench_input *in = &r.inputs[0];
        r.ninputs = 1;
        in->dtype = ND_FLOAT64, in->ndim = kc == 1 ? 1 : 2, in->shape[0] = t.n, in->shape[1] = kc;
        in->seed = 42, in->lo = -1, in->hi = 1;
        s = bench_input_make(in, c->dev, &call.x, &hx);
    }
    if (!s && k == K_FROMDENSE) s = nd_sparse_to_dense(&call.dense, call.a);
    if (s) bench_fail_nd(&r, "creating the inputs", s);
    if (!s && (s = sp_run(&call))) bench_fail_nd(&r, names[k], s);
    int64_t nout = t.n * kc;
    if (!s) {
        ref = malloc((size_t)(k == K_TODENSE ? t.n * t.n : nout) * sizeof(double));
        tmp = malloc((size_t)nout * sizeof(double));
        if (k == K_SPMV || k == K_SPMM) {
            trip_mv(&t, hx, ref, kc);
            if ((got = bench_fetch(call.out, &r)) && bench_check_close(&r, got, ref, nout, 1e-12, 1e-12)) {
                bench_checksum(got, nout, r.checksum);
                r.has_checksum = true;
            }
            r.bytes = (double)t.nnz * 12 + (double)(t.n + 1) * 4 + (double)nout * 16;
            r.flops = 2.0 * (double)t.nnz * (double)kc;
        } else if (k == K_TODENSE) {
            memset(ref, 0, (size_t)(t.n * t.n) * sizeof(double));
            for (int64_t p = 0; p < t.nnz; p++) ref[t.r[p] * t.n + t.c[p]] += t.v[p];
            if ((got = bench_fetch(call.out, &r)) && bench_check_close(&r, got, ref, t.n * t.n, 0, 0)) {
                bench_checksum(got, t.n * t.n, r.checksum);
                r.has_checksum = true;
            }
            r.bytes = (double)t.n * (double)t.n * 8;
        } else {
            /* a sparse result: (result) x against the reference product */
            nd_array *y = NULL, *xx = call.x;
            if (!xx) {
                double *ones = malloc((size_t)t.n * sizeof(double));
                for (int64_t i = 0; i < t.n; i++) ones[i] = 1.0 + (double)(i % 7);
                s = nd_from_host(&xx, ones, ND_FLOAT64, 1, &t.n, c->dev);
                hx = ones;
            }
            if (!s) s = nd_sparse_matmul(&y, call.res, xx);
            if (k == K_SPGEMM) {
                trip_mv(&t, hx, tmp, 1);
                trip_mv(&t, tmp, ref, 1);
            } else {
                trip_mv(&t, hx, ref, 1);
            }
            if (s) bench_fail_nd(&r, "checking", s);
            else if ((got = bench_fetch(y, &r)) && bench_check_close(&r, got, ref, t.n, 1e-12, 1e-12))
                s = sp_checksum(&r, call.res);
            r.bytes = k == K_FROMDENSE ? (double)t.n * (double)t.n * 8 : (double)t.nnz * 24 * 2;
            if (xx != call.x) nd_release(xx);
            nd_release(y);
        }
    }
    free(hx), free(got), free(ref), free(tmp);
    snprintf(r.note, sizeof r.note, "%lld entries", (long long)t.nnz);
    if (r.status == BS_OK) {
        s = bench_measure(sp_run, &call, c->dev, &r.st);
        if (s != ND_OK) bench_fail_nd(&r, names[k], s);
    }
    if (k == K_SPMV || k == K_SPMM) bench_note_triad_fraction_adjacent(&r, c->dev, "sparse");
    if (k == K_SPMV && !lap && c->dev.type == ND_DEVICE_CPU) note_gather_ceiling(&r, call.a, call.x);
    bench_emit(&r);
    trip_free(&t);
    nd_sparse_release(call.a), nd_sparse_release(call.res);
    nd_release(call.x), nd_release(call.out), nd_release(call.dense);
    nd_release(call.d), nd_release(call.r), nd_release(call.c);
}

int main(int argc, char **argv)
{
    bench_init(argc, argv, "bench_sparse",
               "SpMV, SpMM (16 columns), SpGEMM and conversions of CSR float64 matrices (scipy.sparse twins).");
    for (int d = 0; d < bench_num_devices(); d++) {
        nd_device dev = bench_device(d);
        if (dev.type != ND_DEVICE_CPU) continue; /* the CPU has the sparse kernels */
        bench_add_triad_case(dev);                 /* the ceiling of the SpMV bandwidth goal */
        for (int k = 0; k < NK; k++)
            for (int v = 0; v < (k == K_SPMV ? 2 : 1); v++) {
                bench_case c = {.op = k, .kind = k, .dtype = ND_FLOAT64, .dev = dev, .p = {v}};
                bool lap = k == K_SPMV ? v == 0 : (k == K_SPMM || k == K_SPGEMM);
                snprintf(c.key, sizeof c.key, "%s/float64/%s-%d/csr/%s", names[k], lap ? "laplace2d" : "powerlaw",
                         lap ? 1000 : (k == K_TODENSE || k == K_FROMDENSE) ? 4000 : 1000000, bench_dev_name(dev));
                bench_add_case(&c);
            }
    }
    for (int i = 0; i < bench_num_cases(); i++) {
        bench_case *c = bench_get_case(i);
        bench_progress(i, c);
        if (c->kind == BENCH_KIND_TRIAD) bench_run_stream_case(c, "sparse", true);
        else run_case(c);
    }
    return bench_finish();
}
