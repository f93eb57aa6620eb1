/* The CPU loops of the sparse slot for one (index type IT, value type VT)
 * pair, named with suffix S; included by src/cpu/sparse.c once per pair
 * (contract: src/shared/sparse_slots.h). Each op is split into row ranges
 * that sp_rows (sparse.c) balances by stored entries. */
#define SPC(a, b) a##_##b
#define SPX(a, b) SPC(a, b)
#define F(name) SPX(name, S)

/* ---- SpMV / SpMM: y = a @ x ---- */
static void F(spmm_rows)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap, *ai = c->ai;
    const VT *ad = c->ad, *x = c->x;
    VT *y = c->y;
    int64_t k = c->k;
    if (k == 1) {
        for (int64_t r = r0; r < r1; r++) {
            VT s0 = 0, s1 = 0;
            int64_t p = ap[r], e = ap[r + 1];
            for (; p + 1 < e; p += 2) {
                s0 += ad[p] * x[ai[p]];
                s1 += ad[p + 1] * x[ai[p + 1]];
            }
            if (p < e) s0 += ad[p] * x[ai[p]];
            y[r] = s0 + s1;
        }
        return;
    }
    /* blocks of 8 columns accumulated in registers, written once */
    for (int64_t r = r0; r < r1; r++) {
        VT *yr = y + r * k;
        int64_t j0 = 0;
        for (; j0 + 8 <= k; j0 += 8) {
            VT acc[8] = {0};
            for (int64_t p = ap[r]; p < ap[r + 1]; p++) {
                VT v = ad[p];
                const VT *xr = x + (int64_t)ai[p] * k + j0;
                for (int j = 0; j < 8; j++) acc[j] += v * xr[j];
            }
            for (int j = 0; j < 8; j++) yr[j0 + j] = acc[j];
        }
        if (j0 < k) {
            for (int64_t j = j0; j < k; j++) yr[j] = 0;
            for (int64_t p = ap[r]; p < ap[r + 1]; p++) {
                VT v = ad[p];
                const VT *xr = x + (int64_t)ai[p] * k;
                for (int64_t j = j0; j < k; j++) yr[j] += v * xr[j];
            }
        }
    }
}

/* ---- to dense ---- */
static void F(todense_rows)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap, *ai = c->ai;
    const VT *ad = c->ad;
    VT *y = c->y;
    int64_t n = c->cols;
    for (int64_t r = r0; r < r1; r++) {
        VT *yr = y + r * n;
        for (int64_t j = 0; j < n; j++) yr[j] = 0;
        for (int64_t p = ap[r]; p < ap[r + 1]; p++) yr[ai[p]] += ad[p];
    }
}

/* ---- from dense: count, then fill ---- */
static void F(fromdense_count)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const VT *x = c->x;
    IT *cp = c->cp;
    int64_t n = c->cols;
    for (int64_t r = r0; r < r1; r++) {
        const VT *xr = x + r * n;
        int64_t cnt = 0;
        for (int64_t j = 0; j < n; j++) cnt += xr[j] != 0;
        cp[r + 1] = (IT)cnt;
    }
}
static void F(fromdense_fill)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const VT *x = c->x;
    const IT *cp = c->cp;
    IT *ci = c->ci;
    VT *cd = c->cd;
    int64_t n = c->cols;
    for (int64_t r = r0; r < r1; r++) {
        const VT *xr = x + r * n;
        int64_t q = cp[r];
        for (int64_t j = 0; j < n; j++)
            if (xr[j] != 0) {
                ci[q] = (IT)j;
                cd[q++] = xr[j];
            }
    }
}

/* ---- canonical forms: per row into the row's own span of a scratch
 *      copy, then the counts ---- */
static void F(canon_rows)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap, *ai = c->ai;
    const VT *ad = c->ad;
    IT *ti = c->ti, *cp = c->cp;
    VT *td = c->td;
    sp_pair *w = NULL;
    int64_t wcap = 0;
    for (int64_t r = r0; r < r1; r++) {
        int64_t b = ap[r], e = ap[r + 1], len = e - b;
        if (c->flags & ND_SP_SORT) {
            bool sorted = true;
            for (int64_t p = b + 1; p < e && sorted; p++) sorted = ai[p - 1] <= ai[p];
            if (sorted) {
                if (ti != ai) {
                    memcpy(ti + b, ai + b, (size_t)len * sizeof(IT));
                    memcpy(td + b, ad + b, (size_t)len * sizeof(VT));
                }
            } else {
                if (len > wcap) {
                    nd__free(w);
                    wcap = len < 64 ? 64 : len;
                    w = nd__malloc((size_t)wcap * 2 * sizeof(sp_pair));
                    if (!w) {
                        atomic_store(&c->nomem, 1);
                        return;
                    }
                }
                /* the values through the scratch half, so that ti/td may be ai/ad */
                VT *vb = (VT *)(void *)(w + wcap);
                if ((uint64_t)c->cols <= UINT32_MAX && (uint64_t)len <= UINT32_MAX) {
                    /* column and position in one key: a plain sort is stable */
                    uint64_t *u = (uint64_t *)(void *)w;
                    for (int64_t p = 0; p < len; p++) u[p] = (uint64_t)ai[b + p] << 32 | (uint64_t)p;
                    if (len <= 16 || !nd__cpu_sort_u64_simd(u, len)) sp_sort_u64(u, len, 64);
                    for (int64_t p = 0; p < len; p++) vb[p] = ad[b + (int64_t)(u[p] & UINT32_MAX)];
                    for (int64_t p = 0; p < len; p++) {
                        ti[b + p] = (IT)(u[p] >> 32);
                        td[b + p] = vb[p];
                    }
                } else {
                    for (int64_t p = 0; p < len; p++) w[p] = (sp_pair){(int64_t)ai[b + p], p};
                    sp_sort_pairs(w, w + wcap, len);
                    for (int64_t p = 0; p < len; p++) vb[p] = ad[b + w[p].pos];
                    for (int64_t p = 0; p < len; p++) {
                        ti[b + p] = (IT)w[p].key;
                        td[b + p] = vb[p];
                    }
                }
            }
        } else if (ti != ai) {
            memcpy(ti + b, ai + b, (size_t)len * sizeof(IT));
            memcpy(td + b, ad + b, (size_t)len * sizeof(VT));
        }
        int64_t q = b;
        for (int64_t p = b; p < e;) {
            IT j = ti[p];
            VT v = td[p++];
            if (c->flags & ND_SP_SUM)
                while (p < e && ti[p] == j) v += td[p++];
            if ((c->flags & ND_SP_DROP_ZEROS) && v == 0) continue;
            ti[q] = j;
            td[q++] = v;
        }
        cp[r + 1] = (IT)(q - b);
    }
    nd__free(w);
}
/* move row r's kept entries from its scratch span to its place in c */
static void F(compact_rows)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap, *cp = c->cp, *ti = c->ti;
    const VT *td = c->td;
    IT *ci = c->ci;
    VT *cd = c->cd;
    for (int64_t r = r0; r < r1; r++) {
        int64_t n = cp[r + 1] - cp[r];
        memcpy(ci + cp[r], ti + ap[r], (size_t)n * sizeof(IT));
        memcpy(cd + cp[r], td + ap[r], (size_t)n * sizeof(VT));
    }
}

/* ---- COO to CSR: a stable counting sort of the entries by the key
 *      c->row (c->nkeys values) in c->nch chunks of the entries
 *      (per-chunk histograms in c->hist, chunk t at c->hist + t * nkeys;
 *      sparse.c turns them into each chunk's first slot for every key),
 *      moving c->ai and c->ad to c->ti and c->td and, with c->tk, the key
 *      itself to c->tk ---- */
static void F(coo_hist)(void *ctx, int64_t t0, int64_t t1)
{
    sp_ctx *c = ctx;
    const IT *row = c->row;
    for (int64_t t = t0; t < t1; t++) {
        int64_t *h = c->hist + t * c->nkeys;
        memset(h, 0, (size_t)c->nkeys * sizeof *h);
        for (int64_t p = c->nnz * t / c->nch, e = c->nnz * (t + 1) / c->nch; p < e; p++) h[row[p]]++;
    }
}
static void F(coo_place)(void *ctx, int64_t t0, int64_t t1)
{
    sp_ctx *c = ctx;
    const IT *row = c->row, *ai = c->ai;
    const VT *ad = c->ad;
    IT *ti = c->ti, *tk = c->tk;
    VT *td = c->td;
    for (int64_t t = t0; t < t1; t++) {
        int64_t *h = c->hist + t * c->nkeys;
        for (int64_t p = c->nnz * t / c->nch, e = c->nnz * (t + 1) / c->nch; p < e; p++) {
            int64_t q = h[row[p]]++;
            ti[q] = ai[p];
            td[q] = ad[p];
            if (tk) tk[q] = row[p];
        }
    }
}

/* ---- transpose (CSR of a^T): a counting sort by column ---- */
static void F(transpose)(sp_ctx *c)
{
    const IT *ap = c->ap, *ai = c->ai;
    const VT *ad = c->ad;
    IT *cp = c->cp, *ci = c->ci;
    VT *cd = c->cd;
    int64_t m = c->rows, n = c->cols;
    for (int64_t j = 0; j <= n; j++) cp[j] = 0;
    int64_t nnz = ap[m];
    for (int64_t p = 0; p < nnz; p++) cp[ai[p] + 1]++;
    for (int64_t j = 0; j < n; j++) cp[j + 1] += cp[j];
    for (int64_t r = 0; r < m; r++)
        for (int64_t p = ap[r]; p < ap[r + 1]; p++) {
            int64_t q = cp[ai[p]]++;
            ci[q] = (IT)r;
            cd[q] = ad[p];
        }
    for (int64_t j = n; j > 0; j--) cp[j] = cp[j - 1];
    cp[0] = 0;
}

/* ---- SpGEMM, Gustavson: pass 1 counts each row's columns with a marker
 *      per part, pass 2 accumulates into a dense row and writes it
 *      sorted ---- */
static void F(spgemm_count)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap, *ai = c->ai, *bp = c->bp, *bi = c->bi;
    IT *cp = c->cp;
    int64_t *mark = sp_work(c->cols, sizeof(int64_t));
    if (!mark) {
        atomic_store(&c->nomem, 1);
        return;
    }
    for (int64_t j = 0; j < c->cols; j++) mark[j] = -1;
    for (int64_t r = r0; r < r1; r++) {
        int64_t cnt = 0;
        for (int64_t p = ap[r]; p < ap[r + 1]; p++) {
            int64_t kk = ai[p];
            for (int64_t q = bp[kk]; q < bp[kk + 1]; q++) {
                int64_t j = bi[q];
                if (mark[j] != r) {
                    mark[j] = r;
                    cnt++;
                }
            }
        }
        cp[r + 1] = (IT)cnt;
    }
    nd__free(mark);
}
static void F(spgemm_fill)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap, *ai = c->ai, *bp = c->bp, *bi = c->bi, *cp = c->cp;
    const VT *ad = c->ad, *bd = c->bd;
    IT *ci = c->ci;
    VT *cd = c->cd;
    int64_t n = c->cols;
    int64_t *mark = sp_work(n, sizeof(int64_t));
    VT *acc = mark ? sp_work(n, sizeof(VT)) : NULL;
    if (!mark || !acc) {
        nd__free(mark);
        atomic_store(&c->nomem, 1);
        return;
    }
    for (int64_t j = 0; j < n; j++) mark[j] = -1;
    for (int64_t r = r0; r < r1; r++) {
        int64_t q0 = cp[r], q = q0;
        for (int64_t p = ap[r]; p < ap[r + 1]; p++) {
            int64_t kk = ai[p];
            VT v = ad[p];
            for (int64_t t = bp[kk]; t < bp[kk + 1]; t++) {
                int64_t j = bi[t];
                if (mark[j] != r) {
                    mark[j] = r;
                    acc[j] = v * bd[t];
                    ci[q++] = (IT)j;
                } else {
                    acc[j] += v * bd[t];
                }
            }
        }
        SORT_IDX(ci + q0, q - q0);
        for (int64_t t = q0; t < q; t++) cd[t] = acc[ci[t]];
    }
    nd__free(mark);
    nd__free(acc);
}

/* ---- a op b of two canonical matrices, zeros dropped ---- */
static inline VT F(binop_val)(const sp_ctx *c, int side, VT x, VT y)
{
    if (c->flags & ND_SP_MUL) return x * y;
    if (side == 1) return (VT)(c->alpha * x);
    if (side == 2) return (VT)(c->beta * y);
    return (VT)(c->alpha * x) + (VT)(c->beta * y);
}
static void F(binop_rows)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap, *ai = c->ai, *bp = c->bp, *bi = c->bi;
    const VT *ad = c->ad, *bd = c->bd;
    IT *cp = c->cp, *ci = c->ci;
    VT *cd = c->cd;
    bool mul = c->flags & ND_SP_MUL, fill = c->ci != NULL;
    for (int64_t r = r0; r < r1; r++) {
        int64_t p = ap[r], pe = ap[r + 1], q = bp[r], qe = bp[r + 1];
        int64_t o = fill ? (int64_t)cp[r] : 0;
        while (p < pe || q < qe) {
            int64_t j;
            VT v;
            if (q >= qe || (p < pe && ai[p] < bi[q])) {
                j = ai[p];
                v = mul ? (VT)0 : F(binop_val)(c, 1, ad[p], 0);
                p++;
            } else if (p >= pe || bi[q] < ai[p]) {
                j = bi[q];
                v = mul ? (VT)0 : F(binop_val)(c, 2, 0, bd[q]);
                q++;
            } else {
                j = ai[p];
                v = F(binop_val)(c, 0, ad[p], bd[q]);
                p++;
                q++;
            }
            if (v == 0) continue;
            if (fill) {
                ci[o] = (IT)j;
                cd[o] = v;
            }
            o++;
        }
        if (!fill) cp[r + 1] = (IT)o;
    }
}

/* ---- multiply by a (broadcast) dense matrix: values only ---- */
static void F(muldense_rows)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap, *ai = c->ai;
    const VT *ad = c->ad, *x = c->x;
    VT *y = c->y;
    for (int64_t r = r0; r < r1; r++)
        for (int64_t p = ap[r]; p < ap[r + 1]; p++) y[p] = ad[p] * x[r * c->xs0 + (int64_t)ai[p] * c->xs1];
}

/* ---- row sums, diagonal ---- */
static void F(rowsums_rows)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap;
    const VT *ad = c->ad;
    VT *y = c->y;
    for (int64_t r = r0; r < r1; r++) {
        VT s = 0;
        for (int64_t p = ap[r]; p < ap[r + 1]; p++) s += ad[p];
        y[r] = s;
    }
}
static void F(diag_rows)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap, *ai = c->ai;
    const VT *ad = c->ad;
    VT *y = c->y;
    int64_t k = c->k, i0 = k < 0 ? -k : 0;
    for (int64_t r = r0; r < r1; r++) {
        if (r < i0 || r - i0 >= c->len) continue;
        VT s = 0;
        for (int64_t p = ap[r]; p < ap[r + 1]; p++)
            if ((int64_t)ai[p] == r + k) s += ad[p];
        y[r - i0] = s;
    }
}

/* ---- row gather ---- */
static void F(gather_count)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap;
    const int64_t *sel = c->x;
    IT *cp = c->cp;
    for (int64_t r = r0; r < r1; r++) cp[r + 1] = (IT)(ap[sel[r] + 1] - ap[sel[r]]);
}
static void F(gather_fill)(sp_ctx *c, int64_t r0, int64_t r1)
{
    const IT *ap = c->ap, *ai = c->ai, *cp = c->cp;
    const VT *ad = c->ad;
    const int64_t *sel = c->x;
    IT *ci = c->ci;
    VT *cd = c->cd;
    for (int64_t r = r0; r < r1; r++) {
        int64_t s = sel[r], n = ap[s + 1] - ap[s];
        memcpy(ci + cp[r], ai + ap[s], (size_t)n * sizeof(IT));
        memcpy(cd + cp[r], ad + ap[s], (size_t)n * sizeof(VT));
    }
}

#undef F
#undef SPX
#undef SPC
