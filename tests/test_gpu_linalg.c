/* Matrix products of the CUDA backend (src/cuda/blas.cu,
 * src/cuda/kernels_matmul_int.cu).
 *
 * CPU part (always runs): the row-major -> column-major cuBLAS plan of
 * src/cuda/blas_plan.h is built for every small shape x operand layout
 * (contiguous, transposed view, padded rows, strided columns, reversed
 * rows, broadcast and reversed batches) and EXECUTED with a naive
 * column-major GEMM that checks cuBLAS's argument rules (ld >= max(1,
 * rows)), including the packing into temporaries; the result must equal
 * nd_matmul / nd_gemm on the CPU exactly (small integers in float64) and
 * nothing outside the output view may be written. The integer kernel's
 * phases (src/cuda/matmul_int.h) are replayed for every thread of every
 * block, barrier by barrier, with the natural and with deliberately small
 * grids, and must be bit-identical to the CPU backend.
 *
 * GPU part (only with a GPU): every dtype x layouts x shapes against the
 * CPU backend, gemm alpha/beta, TF32 on/off, stream binding, four threads.
 */
#include <pthread.h>
#include <stdio.h>

#include "cuda/blas_plan.h"
#include "cuda/matmul_int.h"
#include "core/internal.h"
#include "linalg_util.h"

/* ------------------------------------------------------------------ */
/* Operand layouts (element geometry of an (nb, rows, cols) operand)    */
/* ------------------------------------------------------------------ */
enum { L_CONTIG, L_TRANS, L_LD, L_TRANS_LD, L_COLSTEP, L_NEGROW, L_BCAST, L_NEGBATCH, L_NUM };
static const char *const lay_name[L_NUM] = {"contig", "trans", "ld", "trans_ld", "colstep", "negrow", "bcast", "negbatch"};

/* Strides (elements) and offset of element (0,0,0) for layout l; returns
 * the number of elements of the base buffer. */
static int64_t lay_geom(int l, int64_t nb, int64_t r, int64_t c, int64_t st[3], int64_t *off)
{
    int64_t mat = r * c;
    *off = 0;
    switch (l) {
    case L_TRANS: st[1] = 1, st[2] = r; break;
    case L_LD: st[1] = c + 3, st[2] = 1, mat = r * (c + 3); break;
    case L_TRANS_LD: st[1] = 1, st[2] = r + 2, mat = c * (r + 2); break;
    case L_COLSTEP: st[1] = 2 * c, st[2] = 2, mat = 2 * r * c; break;
    case L_NEGROW: st[1] = -c, st[2] = 1, *off = (r - 1) * c; break;
    default: st[1] = c, st[2] = 1; break; /* contig, bcast, negbatch */
    }
    st[0] = mat;
    if (l == L_BCAST) {
        st[0] = 0;
        return mat;
    }
    if (l == L_NEGBATCH) st[0] = -mat, *off += (nb - 1) * mat;
    return nb * mat;
}

/* Whether the plan must copy an operand of layout l (rows x cols). */
static int lay_needs_copy(int l, int64_t r, int64_t c)
{
    return (l == L_COLSTEP && r > 1 && c > 1) || (l == L_NEGROW && r > 1);
}

/* A CPU float64 (or dtype t) view with layout l over a fresh base array
 * filled with small integers (seeded); *basep gets the base. */
static nd_array *lay_view(nd_dtype t, int l, int64_t nb, int64_t r, int64_t c, uint32_t seed, nd_array **basep)
{
    int64_t st[3], off;
    int64_t n = lay_geom(l, nb, r, c, st, &off);
    *basep = lu_rand(t, 1, &n, seed);
    if (t == ND_FLOAT64) { /* small integers: every product below is exact */
        double *d = nd_data(*basep);
        for (int64_t i = 0; i < n; i++) d[i] = (double)((int64_t)(i * 7 + seed * 3) % 11 - 5);
    }
    nd_array *v = NULL;
    const int64_t shape[3] = {nb, r, c};
    ND_OK_OR_FAIL(nd__view(&v, *basep, t, 3, shape, st, off * (int64_t)nd__itemsize(t)));
    return v;
}

/* ------------------------------------------------------------------ */
/* Executing a plan on the host                                        */
/* ------------------------------------------------------------------ */
/* Column-major GEMM with cuBLAS's semantics and argument checks. */
static void cm_gemm(int o0, int o1, int64_t m, int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                    const double *B, int64_t ldb, double beta, double *C, int64_t ldc)
{
    ck_assert(m >= 1 && n >= 1 && k >= 1);
    ck_assert_msg(lda >= 1 && lda >= (o0 ? k : m), "lda %lld (op %d, m %lld, k %lld)", (long long)lda, o0,
                  (long long)m, (long long)k);
    ck_assert_msg(ldb >= 1 && ldb >= (o1 ? n : k), "ldb %lld (op %d, k %lld, n %lld)", (long long)ldb, o1,
                  (long long)k, (long long)n);
    ck_assert_msg(ldc >= 1 && ldc >= m, "ldc %lld < m %lld", (long long)ldc, (long long)m);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double s = 0;
            for (int64_t l = 0; l < k; l++) {
                double a = o0 ? A[l + i * lda] : A[i + l * lda];
                double b = o1 ? B[j + l * ldb] : B[l + j * ldb];
                s += a * b;
            }
            double *c = &C[i + j * ldc];
            *c = beta == 0.0 ? alpha * s : alpha * s + beta * *c;
        }
}

/* What run_gemm in src/cuda/blas.cu does, with host memory: pack, call
 * (per batch element, through the same strides or pointers), unpack. */
static void exec_plan(const nd_bp_plan *p, double *const base[3], const nd_bp_view v[3], double alpha, double beta)
{
    double *tmp[3] = {NULL, NULL, NULL}, *use[3], *x[3];
    for (int u = 0; u < 3; u++) {
        double *src = base[u] + p->off[u];
        use[u] = src;
        if (!p->copy[u]) continue;
        int64_t rows = p->rows[u], cols = p->cols[u], nm = p->copy_nb[u], n = nm * rows * cols;
        tmp[u] = malloc((size_t)n * sizeof(double));
        for (int64_t i = 0; i < n; i++) tmp[u][i] = NAN;
        use[u] = tmp[u];
        if (u == ND_BP_C && beta == 0.0) continue;
        nd_bp_view packed = {rows * cols, cols, 1}, sv = v[u];
        if (nm == 1) sv.bs = 0;
        for (int64_t i = 0; i < n; i++)
            tmp[u][nd_bp_strided_offset(i, rows, cols, packed)] = src[nd_bp_strided_offset(i, rows, cols, sv)];
    }
    for (int i = 0; i < 3; i++) x[i] = use[nd_bp_user(p, i)];
    /* strided batches must not have negative strides; pointer arrays only when needed */
    int neg = p->bs[0] < 0 || p->bs[1] < 0 || p->bs[2] < 0;
    ck_assert_int_eq(p->ptr_arrays, p->nb > 1 && neg);
    if (p->nb == 1) ck_assert(p->bs[0] == 0 && p->bs[1] == 0 && p->bs[2] == 0);
    for (int64_t b = 0; b < p->nb; b++)
        cm_gemm(p->op[0], p->op[1], p->m, p->n, p->k, alpha, x[0] + b * p->bs[0], p->ld[0], x[1] + b * p->bs[1],
                p->ld[1], beta, x[2] + b * p->bs[2], p->ld[2]);
    if (p->copy[ND_BP_C]) {
        int64_t rows = p->rows[ND_BP_C], cols = p->cols[ND_BP_C], nm = p->copy_nb[ND_BP_C], n = nm * rows * cols;
        nd_bp_view packed = {rows * cols, cols, 1}, dv = v[ND_BP_C];
        if (nm == 1) dv.bs = 0;
        double *dst = base[ND_BP_C] + p->off[ND_BP_C];
        for (int64_t i = 0; i < n; i++)
            dst[nd_bp_strided_offset(i, rows, cols, dv)] = tmp[ND_BP_C][nd_bp_strided_offset(i, rows, cols, packed)];
    }
    for (int u = 0; u < 3; u++) free(tmp[u]);
}

static nd_bp_view view3(const nd_array *x)
{
    nd_bp_view v = {nd_strides(x)[0], nd_strides(x)[1], nd_strides(x)[2]};
    return v;
}

/* Compare the (any-layout) view got with the contiguous want exactly, and
 * check that every element of base outside the view still holds sent. */
static void expect_view(const nd_array *got, const nd_array *want, const nd_array *base, double sent, const char *what)
{
    int64_t n = nd_size(got);
    double *g = malloc((size_t)(n ? n : 1) * 8), *w = malloc((size_t)(n ? n : 1) * 8);
    ND_OK_OR_FAIL(nd_copy_to_host(g, got, (size_t)n * 8));
    ND_OK_OR_FAIL(nd_copy_to_host(w, want, (size_t)n * 8));
    for (int64_t i = 0; i < n; i++) ck_assert_msg(g[i] == w[i], "%s: [%lld] got %g want %g", what, (long long)i, g[i], w[i]);
    /* sentinels */
    int64_t bn = nd_size(base);
    char *mark = calloc((size_t)bn, 1);
    const double *bd = nd_data(base), *v0 = nd_data(got);
    const int64_t *sh = nd_shape(got), *st = nd_strides(got);
    for (int64_t b = 0; b < sh[0]; b++)
        for (int64_t i = 0; i < sh[1]; i++)
            for (int64_t j = 0; j < sh[2]; j++) mark[(v0 - bd) + b * st[0] + i * st[1] + j * st[2]] = 1;
    for (int64_t i = 0; i < bn; i++)
        if (!mark[i]) ck_assert_msg(bd[i] == sent, "%s: element %lld outside the output was written", what, (long long)i);
    free(mark);
    free(g);
    free(w);
}

/* ------------------------------------------------------------------ */
/* CPU tests of the plan                                               */
/* ------------------------------------------------------------------ */
START_TEST(plan_layout_rules)
{
    int64_t ld;
    ck_assert_int_eq(nd_mm_layout(1, 1, 0, 0, INT64_MAX, &ld), ND_BP_ROW); ck_assert_int_eq(ld, 1);
    ck_assert_int_eq(nd_mm_layout(1, 7, 99, 1, INT64_MAX, &ld), ND_BP_ROW); ck_assert_int_eq(ld, 7); /* a row: rs ignored */
    ck_assert_int_eq(nd_mm_layout(1, 7, -3, 5, INT64_MAX, &ld), ND_BP_COL); ck_assert_int_eq(ld, 5); /* a strided row */
    ck_assert_int_eq(nd_mm_layout(7, 1, 4, 0, INT64_MAX, &ld), ND_BP_ROW); ck_assert_int_eq(ld, 4);  /* a column: cs ignored */
    ck_assert_int_eq(nd_mm_layout(7, 1, 1, -2, INT64_MAX, &ld), ND_BP_ROW); ck_assert_int_eq(ld, 1); /* ld 1 >= cols */
    ck_assert_int_eq(nd_mm_layout(7, 1, -1, 1, INT64_MAX, &ld), ND_BP_COPY); /* reversed column */
    ck_assert_int_eq(nd_mm_layout(3, 4, 4, 1, INT64_MAX, &ld), ND_BP_ROW); ck_assert_int_eq(ld, 4);
    ck_assert_int_eq(nd_mm_layout(3, 4, 1, 3, INT64_MAX, &ld), ND_BP_COL); ck_assert_int_eq(ld, 3);
    ck_assert_int_eq(nd_mm_layout(3, 4, 3, 1, INT64_MAX, &ld), ND_BP_COPY);  /* ld < cols: rows overlap */
    ck_assert_int_eq(nd_mm_layout(3, 4, 1, 2, INT64_MAX, &ld), ND_BP_COPY);  /* ld < rows */
    ck_assert_int_eq(nd_mm_layout(3, 4, 0, 1, INT64_MAX, &ld), ND_BP_COPY);  /* broadcast rows */
    ck_assert_int_eq(nd_mm_layout(3, 4, 8, 2, INT64_MAX, &ld), ND_BP_COPY);  /* no unit stride */
    /* the BLAS's integer limit on ld (the CPU's CBLAS takes int) */
    ck_assert_int_eq(nd_mm_layout(3, 4, (int64_t)1 << 31, 1, INT32_MAX, &ld), ND_MM_COPY);
    ck_assert_int_eq(nd_mm_layout(3, 4, (int64_t)1 << 31, 1, INT64_MAX, &ld), ND_MM_ROW);
    ck_assert_int_eq(nd_mm_layout(4, 3, 1, (int64_t)1 << 31, INT32_MAX, &ld), ND_MM_COPY);
    /* pack offsets: (2, 3, 4) block, strided view */
    nd_bp_view v = {100, 10, -1};
    ck_assert_int_eq(nd_bp_strided_offset(0, 3, 4, v), 0);
    ck_assert_int_eq(nd_bp_strided_offset(5, 3, 4, v), 10 - 1);
    ck_assert_int_eq(nd_bp_strided_offset(23, 3, 4, v), 100 + 20 - 3);
    ck_assert(nd_bp_scale(NAN, 0.0) == 0.0 && nd_bp_scale(3.0, -0.5) == -1.5);
}
END_TEST

/* Every small shape x layout of A, B, C x batch: plan, execute, compare. */
START_TEST(plan_matmul_exhaustive)
{
    static const int64_t dims[3] = {1, 2, 5};
    static const int clay[] = {L_CONTIG, L_TRANS, L_LD, L_TRANS_LD, L_COLSTEP, L_NEGROW, L_NEGBATCH};
    const double sent = -1234.5;
    int cases = 0, copies = 0, ptrs = 0;
    for (int nbi = 0; nbi < 2; nbi++) {
        int64_t nb = nbi ? 3 : 1;
        for (int mi = 0; mi < 27; mi++) {
            int64_t M = dims[mi % 3], N = dims[mi / 3 % 3], K = dims[mi / 9];
            for (int la = 0; la < L_NUM; la++)
                for (int lb = 0; lb < L_NUM; lb++)
                    for (size_t ci = 0; ci < sizeof clay / sizeof *clay; ci++) {
                        int lc = clay[ci];
                        if (nb == 1 && (la >= L_BCAST || lb >= L_BCAST || lc >= L_BCAST)) continue;
                        nd_array *ba, *bb, *bc, *ref = NULL;
                        nd_array *a = lay_view(ND_FLOAT64, la, nb, M, K, 1 + mi, &ba);
                        nd_array *b = lay_view(ND_FLOAT64, lb, nb, K, N, 2 + mi, &bb);
                        nd_array *c = lay_view(ND_FLOAT64, lc, nb, M, N, 3, &bc);
                        double *cd = nd_data(bc);
                        for (int64_t i = 0; i < nd_size(bc); i++) cd[i] = sent;
                        ND_OK_OR_FAIL(nd_matmul(&ref, a, b));
                        nd_bp_view v[3] = {view3(a), view3(b), view3(c)};
                        nd_bp_plan p;
                        nd_bp_plan_make(&p, nb, M, N, K, v);
                        ck_assert_int_eq(p.copy[ND_BP_A], lay_needs_copy(la, M, K));
                        ck_assert_int_eq(p.copy[ND_BP_B], lay_needs_copy(lb, K, N));
                        ck_assert_int_eq(p.copy[ND_BP_C], lay_needs_copy(lc, M, N));
                        /* a broadcast input is packed once */
                        if (p.copy[ND_BP_A]) ck_assert_int_eq(p.copy_nb[ND_BP_A], la == L_BCAST ? 1 : nb);
                        double *base[3] = {nd_data(a), nd_data(b), nd_data(c)};
                        exec_plan(&p, base, v, 1.0, 0.0);
                        char what[160];
                        snprintf(what, sizeof what, "nb %lld M %lld N %lld K %lld a %s b %s c %s", (long long)nb,
                                 (long long)M, (long long)N, (long long)K, lay_name[la], lay_name[lb], lay_name[lc]);
                        expect_view(c, ref, bc, sent, what);
                        cases++, copies += p.copy[0] + p.copy[1] + p.copy[2], ptrs += p.ptr_arrays;
                        nd_release(a), nd_release(b), nd_release(c), nd_release(ref);
                        nd_release(ba), nd_release(bb), nd_release(bc);
                    }
        }
    }
    ck_assert(copies > 0 && ptrs > 0);
    printf("gpu_linalg: %d matmul plans executed on the host (%d packed operands, %d pointer-array batches)\n", cases,
           copies, ptrs);
}
END_TEST

/* An output whose batch stride is 0: only the last product is computed. */
START_TEST(plan_output_broadcast_batch)
{
    nd_bp_view v[3] = {{6, 3, 1}, {0, 2, 1}, {0, 2, 1}};
    nd_bp_plan p;
    nd_bp_plan_make(&p, 4, 2, 2, 3, v);
    ck_assert_int_eq(p.nb, 1);
    ck_assert_int_eq(p.off[ND_BP_A], 18);
    ck_assert_int_eq(p.off[ND_BP_B], 0);
    ck_assert_int_eq(p.swap, 1);
    ck_assert(!p.copy[0] && !p.copy[1] && !p.copy[2] && !p.ptr_arrays);
    /* the standard row-major product: C^T = B^T A^T, op N both, no copies */
    nd_bp_view w[3] = {{0, 65, 1}, {0, 33, 1}, {0, 33, 1}};
    nd_bp_plan_make(&p, 1, 17, 33, 65, w);
    ck_assert(p.swap && p.op[0] == 0 && p.op[1] == 0 && p.m == 33 && p.n == 17 && p.k == 65);
    ck_assert(p.ld[0] == 33 && p.ld[1] == 65 && p.ld[2] == 33);
    /* batched 1000 x 16x16: one strided-batched call */
    nd_bp_view z[3] = {{256, 16, 1}, {256, 16, 1}, {256, 16, 1}};
    nd_bp_plan_make(&p, 1000, 16, 16, 16, z);
    ck_assert(p.nb == 1000 && !p.ptr_arrays && p.bs[0] == 256 && p.bs[1] == 256 && p.bs[2] == 256);
}
END_TEST

/* gemm: transposes, alpha/beta (beta == 0 must ignore NaN in C). */
START_TEST(plan_gemm_exhaustive)
{
    static const int64_t dims[3] = {1, 2, 5};
    static const int lays[4] = {L_CONTIG, L_TRANS, L_LD, L_COLSTEP};
    static const double ab[3][2] = {{1.0, 0.0}, {2.0, -0.5}, {-1.0, 1.0}};
    int cases = 0;
    for (int mi = 0; mi < 27; mi++) {
        int64_t M = dims[mi % 3], N = dims[mi / 3 % 3], K = dims[mi / 9];
        for (int tt = 0; tt < 4; tt++) {
            bool ta = tt & 1, tb = tt >> 1;
            for (int la = 0; la < 4; la++)
                for (int lb = 0; lb < 4; lb++)
                    for (int lc = 0; lc < 4; lc++)
                        for (int s = 0; s < 3; s++) {
                            nd_array *ba, *bb, *bc;
                            nd_array *a3 = lay_view(ND_FLOAT64, lays[la], 1, ta ? K : M, ta ? M : K, 5 + mi, &ba);
                            nd_array *b3 = lay_view(ND_FLOAT64, lays[lb], 1, tb ? N : K, tb ? K : N, 6 + mi, &bb);
                            nd_array *c3 = lay_view(ND_FLOAT64, lays[lc], 1, M, N, 7 + mi, &bc);
                            nd_array *a = NULL, *b = NULL, *c = NULL, *ref = NULL;
                            const int64_t ash[2] = {ta ? K : M, ta ? M : K}, bsh[2] = {tb ? N : K, tb ? K : N},
                                          csh[2] = {M, N};
                            ND_OK_OR_FAIL(nd__view(&a, a3, ND_FLOAT64, 2, ash, nd_strides(a3) + 1, a3->offset));
                            ND_OK_OR_FAIL(nd__view(&b, b3, ND_FLOAT64, 2, bsh, nd_strides(b3) + 1, b3->offset));
                            ND_OK_OR_FAIL(nd__view(&c, c3, ND_FLOAT64, 2, csh, nd_strides(c3) + 1, c3->offset));
                            double alpha = ab[s][0], beta = ab[s][1];
                            if (beta == 0.0) { /* NaN in C must not propagate */
                                double *cd = nd_data(c);
                                cd[0] = NAN;
                            }
                            ND_OK_OR_FAIL(nd_contiguous(&ref, c));
                            if (nd_data(ref) == nd_data(c)) { /* contiguous c: copy it */
                                nd_release(ref);
                                ref = NULL;
                                ND_OK_OR_FAIL(nd_copy(&ref, c));
                            }
                            ND_OK_OR_FAIL(nd_gemm(&ref, ta, tb, alpha, a, b, beta));
                            /* sentinels around c's view */
                            double *cd = nd_data(bc);
                            const double sent = -999.25;
                            int64_t n = nd_size(bc);
                            char *in = calloc((size_t)n, 1);
                            for (int64_t i = 0; i < M; i++)
                                for (int64_t j = 0; j < N; j++)
                                    in[((double *)nd_data(c) - cd) + i * nd_strides(c)[0] + j * nd_strides(c)[1]] = 1;
                            for (int64_t i = 0; i < n; i++)
                                if (!in[i]) cd[i] = sent;
                            free(in);
                            const int64_t *sa = nd_strides(a), *sb = nd_strides(b), *sc = nd_strides(c);
                            nd_bp_view v[3] = {{0, sa[ta ? 1 : 0], sa[ta ? 0 : 1]},
                                               {0, sb[tb ? 1 : 0], sb[tb ? 0 : 1]},
                                               {0, sc[0], sc[1]}};
                            nd_bp_plan p;
                            nd_bp_plan_make(&p, 1, M, N, K, v);
                            double *base[3] = {nd_data(a), nd_data(b), nd_data(c)};
                            exec_plan(&p, base, v, alpha, beta);
                            nd_array *c3v = NULL;
                            const int64_t c3s[3] = {1, M, N}, c3st[3] = {0, sc[0], sc[1]};
                            ND_OK_OR_FAIL(nd__view(&c3v, c, ND_FLOAT64, 3, c3s, c3st, c->offset));
                            char what[160];
                            snprintf(what, sizeof what, "gemm M %lld N %lld K %lld ta %d tb %d a %s b %s c %s ab %d",
                                     (long long)M, (long long)N, (long long)K, ta, tb, lay_name[lays[la]],
                                     lay_name[lays[lb]], lay_name[lays[lc]], s);
                            expect_view(c3v, ref, bc, sent, what);
                            cases++;
                            nd_release(c3v), nd_release(a), nd_release(b), nd_release(c), nd_release(ref);
                            nd_release(a3), nd_release(b3), nd_release(c3), nd_release(ba), nd_release(bb),
                                nd_release(bc);
                        }
        }
    }
    printf("gpu_linalg: %d gemm plans executed on the host\n", cases);
}
END_TEST

/* ------------------------------------------------------------------ */
/* CPU replay of the integer kernel                                    */
/* ------------------------------------------------------------------ */
#define ND_TEST_POISON_ACC 0x5bd1e995u

/* Replays mmi_kernel_SUF for grid g: every block, every thread, phase by
 * phase, with the shared tiles poisoned before each staging phase to
 * prove that staging writes every element the MAC phase reads. */
#define EMULATE(SUF, ACC)                                                                                       \
    static void emulate_##SUF(const nd_mmi_args *g, const unsigned grid[3])                                     \
    {                                                                                                           \
        static ACC As[ND_MMI_TK][ND_MMI_TM + 1], Bs[ND_MMI_TK][ND_MMI_TN + 1];                                  \
        static ACC acc[ND_MMI_THREADS][2][2];                                                                   \
        const int64_t tiles_m = nd_mmi_tiles(g->M, ND_MMI_TM), tiles_n = nd_mmi_tiles(g->N, ND_MMI_TN);         \
        for (unsigned bz = 0; bz < grid[2]; bz++)                                                               \
            for (unsigned by = 0; by < grid[1]; by++)                                                           \
                for (unsigned bx = 0; bx < grid[0]; bx++)                                                       \
                    for (int64_t bi = bz; bi < g->nb; bi += grid[2])                                            \
                        for (int64_t tm = by; tm < tiles_m; tm += grid[1])                                      \
                            for (int64_t tn = bx; tn < tiles_n; tn += grid[0]) {                                \
                                int64_t row0 = tm * ND_MMI_TM, col0 = tn * ND_MMI_TN;                           \
                                memset(acc, 0, sizeof acc);                                                     \
                                for (int64_t k0 = 0; k0 < g->K; k0 += ND_MMI_TK) {                              \
                                    for (int kk = 0; kk < ND_MMI_TK; kk++) {                                    \
                                        for (int r = 0; r < ND_MMI_TM; r++) As[kk][r] = (ACC)ND_TEST_POISON_ACC; \
                                        for (int c = 0; c < ND_MMI_TN; c++) Bs[kk][c] = (ACC)ND_TEST_POISON_ACC; \
                                    }                                                                           \
                                    for (int t = 0; t < ND_MMI_THREADS; t++)                                    \
                                        nd_mmi_stage_##SUF(g, t, bi, row0, col0, k0, As, Bs);                   \
                                    for (int kk = 0; kk < ND_MMI_TK; kk++) {                                    \
                                        for (int r = 0; r < ND_MMI_TM; r++)                                     \
                                            ck_assert(As[kk][r] != (ACC)ND_TEST_POISON_ACC);                   \
                                        for (int c = 0; c < ND_MMI_TN; c++)                                     \
                                            ck_assert(Bs[kk][c] != (ACC)ND_TEST_POISON_ACC);                   \
                                    }                                                                           \
                                    for (int t = 0; t < ND_MMI_THREADS; t++)                                    \
                                        nd_mmi_mac_##SUF(t, As, Bs, acc[t], nd_mmi_is_bool(g->code));            \
                                }                                                                               \
                                for (int t = 0; t < ND_MMI_THREADS; t++)                                        \
                                    nd_mmi_write_##SUF(g, t, bi, row0, col0, acc[t]);                           \
                            }                                                                                   \
    }
EMULATE(u32, uint32_t)
EMULATE(u64, uint64_t)

START_TEST(int_kernel_replay)
{
    static const nd_dtype ts[] = {ND_BOOL, ND_INT8, ND_INT16, ND_INT32, ND_INT64,
                                  ND_UINT8, ND_UINT16, ND_UINT32, ND_UINT64};
    /* nb, M, K, N */
    static const int64_t shapes[][4] = {{1, 1, 1, 1}, {2, 33, 17, 35}, {1, 5, 40, 3}, {3, 1, 16, 64}, {1, 70, 2, 1}};
    static const int lays[][2] = {{L_CONTIG, L_CONTIG}, {L_TRANS, L_COLSTEP}, {L_NEGROW, L_NEGBATCH}, {L_BCAST, L_LD}};
    int cases = 0;
    for (size_t ti = 0; ti < sizeof ts / sizeof *ts; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
            for (size_t li = 0; li < sizeof lays / sizeof *lays; li++) {
                nd_dtype t = ts[ti];
                int64_t nb = shapes[si][0], M = shapes[si][1], K = shapes[si][2], N = shapes[si][3];
                int la = lays[li][0], lb = lays[li][1];
                if (nb == 1 && (la >= L_BCAST || lb >= L_BCAST)) continue;
                nd_array *ba, *bb, *ref = NULL;
                nd_array *a = lay_view(t, la, nb, M, K, 11 + (uint32_t)si, &ba);
                nd_array *b = lay_view(t, lb, nb, K, N, 12 + (uint32_t)si, &bb);
                ND_OK_OR_FAIL(nd_matmul(&ref, a, b));
                size_t is = nd__itemsize(t), nbytes = (size_t)(nb * M * N) * is;
                char *out = malloc(nbytes);
                nd_mmi_args g;
                g.a = nd_data(a), g.b = nd_data(b), g.c = out;
                g.nb = nb, g.M = M, g.N = N, g.K = K;
                for (int d = 0; d < 3; d++) {
                    g.as[d] = nd_strides(a)[d] * (int64_t)is, g.bs[d] = nd_strides(b)[d] * (int64_t)is;
                }
                g.cs[0] = M * N * (int64_t)is, g.cs[1] = N * (int64_t)is, g.cs[2] = (int64_t)is;
                g.code = nd_mmi_code(t);
                unsigned natural[3], small[3] = {1, 1, 1}, odd[3] = {2, 1, 2};
                nd_mmi_grid(&g, natural);
                ck_assert(natural[0] >= 1 && natural[1] >= 1 && natural[2] >= 1);
                const unsigned *grids[3] = {natural, small, odd};
                for (int gi = 0; gi < 3; gi++) {
                    memset(out, 0xA5, nbytes);
                    if (is == 8) emulate_u64(&g, grids[gi]);
                    else emulate_u32(&g, grids[gi]);
                    ck_assert_msg(memcmp(out, nd_data(ref), nbytes) == 0, "%s nb %lld M %lld K %lld N %lld %s@%s grid %d",
                                  nd_dtype_name(t), (long long)nb, (long long)M, (long long)K, (long long)N,
                                  lay_name[la], lay_name[lb], gi);
                }
                cases++;
                free(out);
                nd_release(a), nd_release(b), nd_release(ba), nd_release(bb), nd_release(ref);
            }
    ck_assert_int_eq(nd_mmi_code(ND_BOOL) & 15, 1);
    ck_assert_int_eq(nd_mmi_code(ND_INT16), 2 | ND_MMI_SIGNED);
    ck_assert_int_eq(nd_mmi_code(ND_UINT64), 8);
    /* the grid caps */
    nd_mmi_args g;
    memset(&g, 0, sizeof g);
    g.M = (int64_t)1 << 40, g.N = 1, g.nb = 100000;
    unsigned grid[3];
    nd_mmi_grid(&g, grid);
    ck_assert(grid[0] == 1 && grid[1] == ND_MMI_GRID_MAX && grid[2] == ND_MMI_GRID_MAX);
    printf("gpu_linalg: integer kernel replayed on %d cases x 3 grids\n", cases);
}
END_TEST

/* ------------------------------------------------------------------ */
/* GPU tests                                                           */
/* ------------------------------------------------------------------ */
/* Built with -DND_TEST_GPU_LINALG_DRY_RUN, the GPU tests run with the CPU
 * as their device: a check of the tests themselves where there is no GPU
 * (only the TF32 precision-ratio assertion is skipped: the CPU has no TF32). */
#ifdef ND_TEST_GPU_LINALG_DRY_RUN
static nd_device gpu(void) { return nd_cpu(); }
#define DRY_RUN 1
#else
static nd_device gpu(void) { return nd_cuda(0); }
#define DRY_RUN 0
#endif

/* The same (nb, rows, cols) view (nb == 0: 2-D) of layout l on the CPU and
 * on the GPU, over random data of dtype t (never all zero). With poison,
 * the base is filled with the poison value instead (for outputs). */
static void gpu_pair(nd_dtype t, int l, int64_t nb, int64_t r, int64_t c, uint32_t seed, const nd_scalar *poison,
                     nd_array **cpu, nd_array **dev, nd_array **dev_base)
{
    int64_t st[3], off;
    int64_t n = lay_geom(l, nb ? nb : 1, r, c, st, &off);
    nd_array *hb = NULL, *db = NULL;
    if (poison) {
        ND_OK_OR_FAIL(nd_full(&hb, t, 1, &n, *poison, nd_cpu()));
    } else {
        hb = lu_rand(t, 1, &n, seed);
    }
    ND_OK_OR_FAIL(nd_to_device(&db, hb, gpu()));
    const int64_t shape[3] = {nb, r, c};
    int nd = nb ? 3 : 2;
    const int64_t *sh = nb ? shape : shape + 1, *sst = nb ? st : st + 1;
    int64_t boff = off * (int64_t)nd__itemsize(t);
    *cpu = *dev = NULL;
    ND_OK_OR_FAIL(nd__view(cpu, hb, t, nd, sh, sst, boff));
    ND_OK_OR_FAIL(nd__view(dev, db, t, nd, sh, sst, boff));
    nd_release(hb);
    if (dev_base) *dev_base = db;
    else nd_release(db);
}

/* Tolerance relative to sum |a||b| for results of dtype t with K terms. */
static double gpu_tol(nd_dtype t, int64_t K)
{
    double u = t == ND_FLOAT64 ? 0x1p-53 : 0x1p-24;
    return lu_tol(t) + 2.0 * (double)K * u;
}

/* Elements of the device base outside the view v must still hold the
 * poison bytes. */
static void expect_untouched(const nd_array *dbase, const nd_array *v, nd_scalar poison, const char *what)
{
    nd_dtype t = nd_dtype_of(dbase);
    size_t is = nd__itemsize(t);
    int64_t n = nd_size(dbase);
    char *h = lu_bytes(dbase), *mark = calloc((size_t)n, 1), pz[8];
    nd__scalar_store(pz, t, poison);
    int64_t e0 = (int64_t)((char *)nd_data(v) - (char *)nd_data(dbase)) / (int64_t)is;
    int nd = nd_ndim(v);
    const int64_t *sh = nd_shape(v), *st = nd_strides(v);
    int64_t nb = nd == 3 ? sh[0] : 1, bs = nd == 3 ? st[0] : 0;
    for (int64_t b = 0; b < nb; b++)
        for (int64_t i = 0; i < sh[nd - 2]; i++)
            for (int64_t j = 0; j < sh[nd - 1]; j++) mark[e0 + b * bs + i * st[nd - 2] + j * st[nd - 1]] = 1;
    for (int64_t i = 0; i < n; i++)
        if (!mark[i]) ck_assert_msg(memcmp(h + i * (int64_t)is, pz, is) == 0, "%s: element %lld outside the output written",
                                    what, (long long)i);
    free(h);
    free(mark);
}

/* Every dtype x shapes x layouts: the GPU result (into a poisoned output
 * view) against the reference and, bit for bit for integers, the CPU. */
START_TEST(gpu_matmul_every_dtype)
{
    /* nb (0: 2-D), M, K, N, layouts of a, b, out */
    static const int64_t cs[][7] = {
        {0, 1, 1, 1, L_CONTIG, L_CONTIG, L_CONTIG},        {0, 1, 7, 5, L_CONTIG, L_CONTIG, L_CONTIG},
        {0, 5, 7, 1, L_CONTIG, L_TRANS, L_CONTIG},         {0, 17, 33, 65, L_CONTIG, L_CONTIG, L_CONTIG},
        {0, 17, 33, 65, L_TRANS, L_CONTIG, L_LD},          {0, 17, 33, 65, L_CONTIG, L_TRANS, L_TRANS},
        {0, 17, 33, 65, L_LD, L_NEGROW, L_COLSTEP},        {0, 17, 33, 65, L_COLSTEP, L_TRANS_LD, L_TRANS_LD},
        {0, 256, 256, 256, L_CONTIG, L_CONTIG, L_CONTIG},  {1000, 16, 16, 16, L_CONTIG, L_CONTIG, L_CONTIG},
        {1000, 16, 16, 16, L_TRANS, L_TRANS, L_TRANS},     {5, 17, 33, 65, L_NEGBATCH, L_CONTIG, L_NEGBATCH},
        {5, 17, 33, 65, L_BCAST, L_CONTIG, L_CONTIG},      {5, 17, 33, 65, L_CONTIG, L_BCAST, L_COLSTEP},
        {0, 3, 0, 4, L_CONTIG, L_CONTIG, L_CONTIG},        {4, 2, 0, 3, L_CONTIG, L_CONTIG, L_TRANS},
    };
    int ncases = 0;
    bool tf32 = nd_get_matmul_tf32();
    nd_set_matmul_tf32(false); /* exact float32, whatever ND_MATMUL_TF32 says */
    for (int ti = 0; ti < NT_NREAL; ti++) {
        nd_dtype t = (nd_dtype)ti;
        nd_scalar poison = nd__is_float(t) ? nd_scalar_float(NAN) : nd_scalar_int(0x5A);
        for (size_t ci = 0; ci < sizeof cs / sizeof *cs; ci++) {
            int64_t nb = cs[ci][0], M = cs[ci][1], K = cs[ci][2], N = cs[ci][3];
            nd_array *ah, *ad, *bh, *bd, *od, *obase, *rc = NULL, *unused;
            gpu_pair(t, (int)cs[ci][4], nb, M, K, 100 + (uint32_t)ci, NULL, &ah, &ad, NULL);
            gpu_pair(t, (int)cs[ci][5], nb, K, N, 200 + (uint32_t)ci, NULL, &bh, &bd, NULL);
            gpu_pair(t, (int)cs[ci][6], nb, M, N, 0, &poison, &unused, &od, &obase);
            nd_release(unused);
            if (cs[ci][4] == L_BCAST || cs[ci][5] == L_BCAST) ck_assert(nd_strides(cs[ci][4] == L_BCAST ? ad : bd)[0] == 0);
            nd_array *o = od;
            ND_OK_OR_FAIL(nd_matmul(&o, ad, bd));
            ck_assert_ptr_eq(o, od);
            char what[128];
            snprintf(what, sizeof what, "%s case %zu", nd_dtype_name(t), ci);
            expect_untouched(obase, od, poison, what);
            char *A = lu_bytes(ah), *B = lu_bytes(bh), *R = lu_bytes(od);
            lu_plan p;
            lu_plan_init(&p, nd_ndim(ah), nd_shape(ah), nd_ndim(bh), nd_shape(bh));
            lu_check(&p, A, t, B, t, R, t, gpu_tol(t, K));
            if (!nd__is_float(t)) {
                ND_OK_OR_FAIL(nd_matmul(&rc, ah, bh));
                char *C = lu_bytes(rc);
                ck_assert_msg(memcmp(C, R, nd_nbytes(rc)) == 0, "%s: GPU differs from the CPU", what);
                free(C);
            }
            lu_plan_free(&p);
            free(A), free(B), free(R);
            nd_release(ah), nd_release(ad), nd_release(bh), nd_release(bd), nd_release(od), nd_release(obase);
            nd_release(rc);
            ncases++;
        }
    }
    /* a fresh result of a batched product, and nd_dot */
    nd_array *ah, *ad, *bh, *bd, *r = NULL, *d = NULL;
    gpu_pair(ND_FLOAT32, L_CONTIG, 1000, 16, 16, 7, NULL, &ah, &ad, NULL);
    gpu_pair(ND_FLOAT32, L_CONTIG, 1000, 16, 16, 8, NULL, &bh, &bd, NULL);
    ND_OK_OR_FAIL(nd_matmul(&r, ad, bd));
    ck_assert(nd_device_of(r).type == gpu().type);
    lu_verify(ah, bh, r);
    nd_array *a2 = NULL, *b2 = NULL;
    const int64_t s2[2] = {64, 48}, s3[2] = {48, 40};
    a2 = lu_rand(ND_FLOAT64, 2, s2, 3), b2 = lu_rand(ND_FLOAT64, 2, s3, 4);
    nd_array *a2d = NULL, *b2d = NULL;
    ND_OK_OR_FAIL(nd_to_device(&a2d, a2, gpu()));
    ND_OK_OR_FAIL(nd_to_device(&b2d, b2, gpu()));
    ND_OK_OR_FAIL(nd_dot(&d, a2d, b2d));
    lu_verify(a2, b2, d);
    nd_release(ah), nd_release(ad), nd_release(bh), nd_release(bd), nd_release(r), nd_release(d);
    nd_release(a2), nd_release(b2), nd_release(a2d), nd_release(b2d);
    nd_set_matmul_tf32(tf32);
    printf("gpu_linalg: %d GPU matmul cases checked\n", ncases);
}
END_TEST

static double max_abs(const nd_array *x)
{
    char *h = lu_bytes(x);
    double m = 0;
    for (int64_t i = 0; i < nd_size(x); i++) {
        double v = fabs(lu_load(h + i * (int64_t)nd__itemsize(nd_dtype_of(x)), nd_dtype_of(x)));
        if (v > m || v != v) m = v;
    }
    free(h);
    return m;
}

/* gemm: transposes x alpha/beta x dtypes against the CPU's nd_gemm. */
START_TEST(gpu_gemm_alpha_beta)
{
    static const nd_dtype ts[] = {ND_FLOAT16, ND_BFLOAT16, ND_FLOAT32, ND_FLOAT64};
    static const int64_t shapes[][3] = {{17, 33, 65}, {1, 1, 1}, {64, 1, 32}, {5, 0, 7}}; /* M, K, N */
    static const double ab[][2] = {{1.0, 0.0}, {1.5, -0.5}, {0.0, 2.0}, {-2.0, 1.0}};
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t si = 0; si < 4; si++)
            for (int tt = 0; tt < 4; tt++)
                for (size_t k = 0; k < 4; k++) {
                    nd_dtype t = ts[ti];
                    bool ta = tt & 1, tb = tt >> 1;
                    int64_t M = shapes[si][0], K = shapes[si][1], N = shapes[si][2];
                    double alpha = ab[k][0], beta = ab[k][1];
                    nd_array *ah, *ad, *bh, *bd, *ch, *cd;
                    gpu_pair(t, L_CONTIG, 0, ta ? K : M, ta ? M : K, 300 + (uint32_t)si, NULL, &ah, &ad, NULL);
                    gpu_pair(t, tt == 3 ? L_TRANS : L_CONTIG, 0, tb ? N : K, tb ? K : N, 400, NULL, &bh, &bd, NULL);
                    gpu_pair(t, k == 1 ? L_TRANS : L_CONTIG, 0, M, N, 500, NULL, &ch, &cd, NULL);
                    if (alpha == 0.0 && nd_size(ad) > 0) { /* a must not be read: make it all NaN */
                        nd_release(ad);
                        ad = NULL;
                        ND_OK_OR_FAIL(nd_full(&ad, t, 2, nd_shape(ah), nd_scalar_float(NAN), gpu()));
                    }
                    double c0 = max_abs(ch), sa = max_abs(ah), sb = max_abs(bh);
                    if (beta == 0.0) { /* NaN-poisoned c: must not propagate */
                        nd_release(cd);
                        cd = NULL;
                        ND_OK_OR_FAIL(nd_full(&cd, t, 2, nd_shape(ch), nd_scalar_float(NAN), gpu()));
                        c0 = 0;
                    }
                    nd_array *hc = NULL;
                    ND_OK_OR_FAIL(nd_copy(&hc, ch));
                    ND_OK_OR_FAIL(nd_gemm(&hc, ta, tb, alpha, ah, bh, beta));
                    nd_array *c = cd;
                    ND_OK_OR_FAIL(nd_gemm(&c, ta, tb, alpha, ad, bd, beta));
                    char *G = lu_bytes(cd), *W = lu_bytes(hc);
                    double scale = fabs(alpha) * (double)K * sa * sb + fabs(beta) * c0, tol = gpu_tol(t, K) * scale;
                    size_t is = nd__itemsize(t);
                    for (int64_t i = 0; i < M * N; i++) {
                        double g = lu_load(G + i * (int64_t)is, t), w = lu_load(W + i * (int64_t)is, t);
                        if (alpha == 0.0 || K == 0) tol = 0; /* beta * c, rounded once, as the CPU does */
                        ck_assert_msg(fabs(g - w) <= tol, "gemm %s M %lld K %lld N %lld ta %d tb %d alpha %g beta %g [%lld]: got %g want %g",
                                      nd_dtype_name(t), (long long)M, (long long)K, (long long)N, ta, tb, alpha, beta,
                                      (long long)i, g, w);
                    }
                    free(G), free(W);
                    nd_release(ah), nd_release(ad), nd_release(bh), nd_release(bd), nd_release(ch), nd_release(cd);
                    nd_release(hc);
                }
}
END_TEST

/* Max |got - exact| / sum|a||b| of a float32 product of (M,K) @ (K,N). */
static double f32_rel_err(int64_t M, int64_t K, int64_t N)
{
    const int64_t sa[2] = {M, K}, sb[2] = {K, N};
    nd_array *ah = lu_rand(ND_FLOAT32, 2, sa, 21), *bh = lu_rand(ND_FLOAT32, 2, sb, 22), *ad = NULL, *bd = NULL, *r = NULL;
    ND_OK_OR_FAIL(nd_to_device(&ad, ah, gpu()));
    ND_OK_OR_FAIL(nd_to_device(&bd, bh, gpu()));
    ND_OK_OR_FAIL(nd_matmul(&r, ad, bd));
    float *A = (float *)lu_bytes(ah), *B = (float *)lu_bytes(bh), *R = (float *)lu_bytes(r);
    double worst = 0;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = 0, sabs = 0;
            for (int64_t k = 0; k < K; k++) s += (double)A[i * K + k] * B[k * N + j], sabs += fabs((double)A[i * K + k] * B[k * N + j]);
            double e = fabs(R[i * N + j] - s) / sabs;
            if (e > worst || e != e) worst = e;
        }
    free(A), free(B), free(R);
    nd_release(ah), nd_release(bh), nd_release(ad), nd_release(bd), nd_release(r);
    return worst;
}

START_TEST(gpu_tf32_switch)
{
    bool was = nd_get_matmul_tf32();
    nd_set_matmul_tf32(false);
    double off = f32_rel_err(256, 512, 256);
    nd_set_matmul_tf32(true);
    double on = f32_rel_err(256, 512, 256);
    nd_set_matmul_tf32(was);
    printf("gpu_linalg: float32 matmul relative error: exact %.3g, TF32 %.3g\n", off, on);
    ck_assert_msg(off <= gpu_tol(ND_FLOAT32, 512), "exact float32: error %g", off);
    ck_assert_msg(on <= 1e-2, "TF32: error %g", on);
    if (!DRY_RUN) ck_assert_msg(on > 10 * off, "TF32 on (%g) is not less precise than off (%g): switch not applied", on, off);
}
END_TEST

/* A matmul on a user stream is ordered before an async copy on it. */
START_TEST(gpu_stream_binding)
{
    nd_stream *s = NULL;
    ND_OK_OR_FAIL(nd_stream_create(&s, gpu()));
    const int64_t sa[2] = {512, 512};
    nd_array *ah = lu_rand(ND_FLOAT32, 2, sa, 31), *bh = lu_rand(ND_FLOAT32, 2, sa, 32), *ad = NULL, *bd = NULL;
    ND_OK_OR_FAIL(nd_to_device(&ad, ah, gpu()));
    ND_OK_OR_FAIL(nd_to_device(&bd, bh, gpu()));
    ND_OK_OR_FAIL(nd_synchronize(gpu()));
    ND_OK_OR_FAIL(nd_set_stream(s));
    nd_array *r = NULL, *host = NULL;
    ND_OK_OR_FAIL(nd_full(&r, ND_FLOAT32, 2, sa, nd_scalar_float(NAN), gpu()));
    ND_OK_OR_FAIL(nd_empty_pinned(&host, ND_FLOAT32, 2, sa));
    for (int rep = 0; rep < 3; rep++) ND_OK_OR_FAIL(nd_matmul(&r, ad, bd));
    ND_OK_OR_FAIL(nd_copy_async(host, r, s));
    ND_OK_OR_FAIL(nd_stream_synchronize(s));
    ND_OK_OR_FAIL(nd_set_stream(NULL));
    lu_verify(ah, bh, host);
    nd_release(r), nd_release(host), nd_release(ah), nd_release(bh), nd_release(ad), nd_release(bd);
    ND_OK_OR_FAIL(nd_stream_destroy(s));
}
END_TEST

typedef struct {
    nd_array *a, *b; /* device operands */
    nd_array *want;  /* CPU float64 reference */
    int id, failures;
} thread_job;

static void *thread_body(void *arg)
{
    thread_job *j = arg;
    nd_stream *s = NULL;
    if (j->id % 2 && nd_stream_create(&s, gpu()) == ND_OK) nd_set_stream(s); /* half on own streams */
    for (int rep = 0; rep < 20; rep++) {
        nd_array *r = NULL, *r64 = NULL;
        if (nd_matmul(&r, j->a, j->b) != ND_OK || nd_astype(&r64, r, ND_FLOAT64) != ND_OK) {
            j->failures++;
        } else {
            int64_t n = nd_size(r64);
            double *g = malloc((size_t)n * 8), *w = nd_data(j->want);
            if (nd_copy_to_host(g, r64, (size_t)n * 8) != ND_OK) j->failures++;
            else
                for (int64_t i = 0; i < n; i++)
                    if (!(fabs(g[i] - w[i]) <= 1e-3 * (1 + fabs(w[i])))) {
                        j->failures++;
                        break;
                    }
            free(g);
        }
        nd_release(r), nd_release(r64);
    }
    if (s) nd_set_stream(NULL), nd_stream_destroy(s);
    return NULL;
}

/* Four threads, each with its own cuBLAS handle, at the same time. */
START_TEST(gpu_handles_four_threads)
{
    thread_job jobs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        const int64_t sa[2] = {96 + 8 * i, 80}, sb[2] = {80, 72};
        nd_array *ah = lu_rand(ND_FLOAT32, 2, sa, 40 + (uint32_t)i), *bh = lu_rand(ND_FLOAT32, 2, sb, 50 + (uint32_t)i);
        nd_array *a64 = NULL, *b64 = NULL;
        jobs[i].a = jobs[i].b = jobs[i].want = NULL;
        ND_OK_OR_FAIL(nd_to_device(&jobs[i].a, ah, gpu()));
        ND_OK_OR_FAIL(nd_to_device(&jobs[i].b, bh, gpu()));
        ND_OK_OR_FAIL(nd_astype(&a64, ah, ND_FLOAT64));
        ND_OK_OR_FAIL(nd_astype(&b64, bh, ND_FLOAT64));
        ND_OK_OR_FAIL(nd_matmul(&jobs[i].want, a64, b64));
        jobs[i].id = i, jobs[i].failures = 0;
        nd_release(ah), nd_release(bh), nd_release(a64), nd_release(b64);
    }
    for (int i = 0; i < 4; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, thread_body, &jobs[i]), 0);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 4; i++) {
        ck_assert_msg(jobs[i].failures == 0, "thread %d: %d failures (%s)", i, jobs[i].failures, nd_last_error());
        nd_release(jobs[i].a), nd_release(jobs[i].b), nd_release(jobs[i].want);
    }
}
END_TEST

static void gpu_linalg_add_device_tests(Suite *s)
{
    TCase *tc = tcase_create("gpu");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, gpu_matmul_every_dtype);
    tcase_add_test(tc, gpu_gemm_alpha_beta);
    tcase_add_test(tc, gpu_tf32_switch);
    tcase_add_test(tc, gpu_stream_binding);
    tcase_add_test(tc, gpu_handles_four_threads);
    suite_add_tcase(s, tc);
}

Suite *suite_gpu_linalg(void)
{
    Suite *s = suite_create("gpu_linalg");
    TCase *tc = tcase_create("plan_on_cpu");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, plan_layout_rules);
    tcase_add_test(tc, plan_matmul_exhaustive);
    tcase_add_test(tc, plan_output_broadcast_batch);
    tcase_add_test(tc, plan_gemm_exhaustive);
    tcase_add_test(tc, int_kernel_replay);
    suite_add_tcase(s, tc);
    if (nd_test_gpu_count() == 0 && !DRY_RUN) {
        printf("gpu_linalg suite: GPU tests SKIPPED (no GPU)\n");
        return s;
    }
    gpu_linalg_add_device_tests(s);
    return s;
}
