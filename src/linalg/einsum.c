/* nd_einsum: NumPy's subscripts string (explicit 'ij,jk->ik' and implicit
 * 'ij,jk' output, '...' broadcasting, repeated labels in one operand =
 * a diagonal, size-1 extents broadcasting across operands), parsed as
 * NumPy's C parser does (numpy/_core/src/multiarray/einsum.c.src, with its
 * error messages), then planned as opt_einsum does:
 *  1. each operand: repeated labels become one strided axis (a diagonal
 *     view), the operand is cast to the result dtype (the promotion of all
 *     operand dtypes, as NumPy), size-1 axes are broadcast (stride 0);
 *  2. labels that occur in one operand only and not in the output are
 *     summed first (nd_sum; cast back to the result dtype, which keeps
 *     integer wrap-around and bool or-of-ands exact);
 *  3. operands are contracted pairwise, greedily (opt_einsum's 'greedy'
 *     in its simplest form: the pair whose result is smallest first, the
 *     leftmost pair on ties): shared labels still
 *     needed are batch axes, shared labels no longer needed are summed:
 *     transpose + reshape to (batch, M, K) @ (batch, K, N) through
 *     nd_matmul, or an nd_multiply of broadcast views when nothing is
 *     summed (an outer / elementwise product);
 *  4. the last term is transposed to the output order.
 * Everything is views, casts, nd_sum, nd_multiply and nd_matmul: every
 * backend. */
#include <ctype.h>
#include <string.h>

#include "manip/manip.h"
#include "core/prof.h"

#define NLET 52                         /* 'A'..'Z' -> 0..25, 'a'..'z' -> 26..51 (ASCII order) */
#define NLAB (NLET + ND_MAX_DIMS)       /* then one label per broadcast (ellipsis) dimension */
#define MAXOPS 64

typedef struct {
    nd_array *a;  /* owned */
    int n;        /* ndim of a == number of labels */
    int lab[ND_MAX_DIMS];
    bool mine;    /* a is an intermediate (not a view of an operand) */
} term;

static int code_of(int c) { return c >= 'a' ? 26 + (c - 'a') : c - 'A'; }
static char char_of(int l) { return l < 26 ? (char)('A' + l) : l < NLET ? (char)('a' + l - 26) : '.'; }

static const char *fn = "nd_einsum";

/* NumPy's parse_operand_subscripts: labels of operand iop (ellipsis
 * position in *ell, -1 if none), count of labels in *nlab. */
static nd_status parse_operand(const char *s, int len, int ndim, int iop, int *labs, int *nlab, int *ell)
{
    int idim = 0;
    *ell = -1;
    for (int i = 0; i < len; i++) {
        int c = (unsigned char)s[i];
        if (c > 0 && c < 128 && isalpha(c)) {
            if (idim >= ndim)
                return nd__err(ND_ERR_INVALID, fn, "einstein sum subscripts string contains too many subscripts for operand %d", iop);
            labs[idim++] = code_of(c);
        } else if (c == '.') {
            if (*ell != -1 || i + 2 >= len || s[++i] != '.' || s[++i] != '.')
                return nd__err(ND_ERR_INVALID, fn,
                               "einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in operand %d", iop);
            *ell = idim;
        } else if (c != ' ') {
            return nd__err(ND_ERR_INVALID, fn,
                           "invalid subscript '%c' in einstein sum subscripts string, subscripts must be letters", (char)c);
        }
    }
    if (*ell == -1 && idim != ndim)
        return nd__err(ND_ERR_INVALID, fn,
                       "operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to "
                       "broadcast the extra dimensions.");
    *nlab = idim;
    return ND_OK;
}

static void release_terms(term *t, int n)
{
    for (int i = 0; i < n; i++) nd_release(t[i].a), t[i].a = NULL;
}

/* t's array replaced by r (consumed) */
static void replace(term *t, nd_array *r)
{
    nd_release(t->a);
    t->a = r;
    t->mine = true;
}

/* Cast t to dtype R when it differs. */
static nd_status to_dtype(term *t, nd_dtype R)
{
    if (t->a->dtype == R) return ND_OK;
    nd_array *c = NULL;
    nd_status st = nd__as_dtype(&c, t->a, R);
    if (!st) replace(t, c);
    return st;
}

/* Sum t over the labels flagged in drop. */
static nd_status sum_labels(term *t, const bool *drop, nd_dtype R)
{
    int axes[ND_MAX_DIMS], na = 0, keep[ND_MAX_DIMS], nk = 0;
    for (int i = 0; i < t->n; i++) {
        if (drop[t->lab[i]]) axes[na++] = i;
        else keep[nk++] = t->lab[i];
    }
    if (na == 0) return ND_OK;
    nd_array *r = NULL;
    nd_status st = nd_sum(&r, t->a, na, axes, false);
    if (st) return st;
    replace(t, r);
    memcpy(t->lab, keep, sizeof(int) * (size_t)nk);
    t->n = nk;
    return to_dtype(t, R);
}

/* The view of t with its axes in the order of labels ord[0..n) (each a
 * label of t) followed by `ones` extent-1 axes inserted at position pos. */
static nd_status arrange(nd_array **out, const term *t, int n, const int *ord, int pos, int ones)
{
    int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS];
    int k = 0;
    if (n + ones > ND_MAX_DIMS)
        return nd__err(ND_ERR_UNSUPPORTED, fn, "an intermediate would have %d dimensions (at most %d)", n + ones, ND_MAX_DIMS);
    for (int i = 0; i <= n; i++) {
        if (i == pos)
            for (int j = 0; j < ones; j++) shape[k] = 1, strides[k++] = 0;
        if (i == n) break;
        int ax = 0;
        while (t->lab[ax] != ord[i]) ax++;
        shape[k] = t->a->shape[ax];
        strides[k++] = t->a->strides[ax];
    }
    return mp__view(out, t->a, k, shape, strides, t->a->offset);
}

static int64_t prod_ext(const term *t, int n, const int *labs)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++) {
        int ax = 0;
        while (t->lab[ax] != labs[i]) ax++;
        p *= t->a->shape[ax];
    }
    return p;
}

/* A <- contract(A, B): shared labels still needed are batch axes, shared
 * ones no longer needed are summed. */
static nd_status contract(term *A, term *B, const bool *needed, nd_dtype R)
{
    bool inA[NLAB] = {false}, inB[NLAB] = {false};
    for (int i = 0; i < A->n; i++) inA[A->lab[i]] = true;
    for (int i = 0; i < B->n; i++) inB[B->lab[i]] = true;
    int bat[ND_MAX_DIMS], con[ND_MAX_DIMS], ao[ND_MAX_DIMS], bo[ND_MAX_DIMS], nbat = 0, ncon = 0, nao = 0, nbo = 0;
    for (int i = 0; i < A->n; i++) {
        int l = A->lab[i];
        if (inB[l] && needed[l]) bat[nbat++] = l;
        else if (inB[l]) con[ncon++] = l;
        else ao[nao++] = l;
    }
    for (int i = 0; i < B->n; i++)
        if (!inA[B->lab[i]]) bo[nbo++] = B->lab[i];
    int ord[ND_MAX_DIMS], lab[ND_MAX_DIMS], nl = 0;
    for (int i = 0; i < nbat; i++) lab[nl++] = bat[i];
    for (int i = 0; i < nao; i++) lab[nl++] = ao[i];
    for (int i = 0; i < nbo; i++) lab[nl++] = bo[i];
    if (nl > ND_MAX_DIMS)
        return nd__err(ND_ERR_UNSUPPORTED, fn, "an intermediate would have %d dimensions (at most %d)", nl, ND_MAX_DIMS);
    nd_array *va = NULL, *vb = NULL, *r = NULL;
    nd_status st;
    if (ncon == 0) {
        /* (batch, ao, 1...) * (batch, 1..., bo) */
        memcpy(ord, bat, sizeof(int) * (size_t)nbat);
        memcpy(ord + nbat, ao, sizeof(int) * (size_t)nao);
        st = arrange(&va, A, nbat + nao, ord, nbat + nao, nbo);
        memcpy(ord + nbat, bo, sizeof(int) * (size_t)nbo);
        if (!st) st = arrange(&vb, B, nbat + nbo, ord, nbat, nao);
        if (!st) st = nd_multiply(&r, va, vb);
    } else {
        int64_t Bt = prod_ext(A, nbat, bat), M = prod_ext(A, nao, ao), K = prod_ext(A, ncon, con), N = prod_ext(B, nbo, bo);
        nd_array *ta = NULL, *tb = NULL, *m = NULL;
        memcpy(ord, bat, sizeof(int) * (size_t)nbat);
        memcpy(ord + nbat, ao, sizeof(int) * (size_t)nao);
        memcpy(ord + nbat + nao, con, sizeof(int) * (size_t)ncon);
        st = arrange(&ta, A, nbat + nao + ncon, ord, 0, 0);
        memcpy(ord + nbat, con, sizeof(int) * (size_t)ncon);
        memcpy(ord + nbat + ncon, bo, sizeof(int) * (size_t)nbo);
        if (!st) st = arrange(&tb, B, nbat + ncon + nbo, ord, 0, 0);
        if (!st) st = nd_reshape(&va, ta, 3, (const int64_t[]){Bt, M, K});
        if (!st) st = nd_reshape(&vb, tb, 3, (const int64_t[]){Bt, K, N});
        if (!st) st = nd_matmul(&m, va, vb);
        if (!st) {
            int64_t shape[ND_MAX_DIMS];
            for (int i = 0; i < nl; i++) {
                const term *src = i < nbat + nao ? A : B;
                int ax = 0;
                while (src->lab[ax] != lab[i]) ax++;
                shape[i] = src->a->shape[ax];
            }
            st = nd_reshape(&r, m, nl, shape);
        }
        nd_release(ta);
        nd_release(tb);
        nd_release(m);
    }
    nd_release(va);
    nd_release(vb);
    if (st) return st;
    replace(A, r);
    memcpy(A->lab, lab, sizeof(int) * (size_t)nl);
    A->n = nl;
    return to_dtype(A, R);
}

/* The equation of a call: every operand's axes as labels, the output's
 * labels and every label's extent. */
typedef struct {
    int n;                          /* operands */
    int labs[MAXOPS][ND_MAX_DIMS];  /* per operand, per axis: label (broadcast dims filled in) */
    int nlab[MAXOPS], ell[MAXOPS];  /* letters per operand; axis of its ellipsis (-1: none) */
    int count[NLAB], nbcast;        /* axes per label over all operands; broadcast dims */
    int olab[ND_MAX_DIMS + NLAB], no; /* the output's labels */
    int64_t ext[NLAB];              /* extent per label (-1: unused) */
} equation;

static nd_status check_operands(int n, const nd_array *const *operands)
{
    if (n < 1) return nd__err(ND_ERR_INVALID, fn, "No input operands");
    if (n > MAXOPS) return nd__err(ND_ERR_INVALID, fn, "too many operands (%d; at most %d)", n, MAXOPS);
    ND_CHECK_PTR(fn, operands, "operands");
    for (int i = 0; i < n; i++) {
        if (!operands[i]) return nd__err(ND_ERR_INVALID, fn, "operands[%d] is NULL", i);
        if (!nd__same_device(operands[i]->device, operands[0]->device)) {
            char d1[32], d2[32];
            return nd__err(ND_ERR_DEVICE, fn, "operands are on different devices (%s and %s)",
                           nd__device_name(operands[0]->device, d1, sizeof d1),
                           nd__device_name(operands[i]->device, d2, sizeof d2));
        }
    }
    return ND_OK;
}

/* The inputs' subscripts (up to "->" or the end, *rest), each operand's
 * axes as labels: the letters before the ellipsis, its broadcast dims
 * (right-aligned onto the nbcast global ones), the letters after it. */
static nd_status parse_inputs(equation *q, const char *subscripts, const nd_array *const *operands, const char **rest)
{
    const int n = q->n;
    const char *s = subscripts;
    for (int i = 0; i < n; i++) {
        int len = (int)strcspn(s, ",-");
        if (i == n - 1 && s[len] == ',')
            return nd__err(ND_ERR_INVALID, fn, "more operands provided to einstein sum function than specified in the subscripts string");
        if (i < n - 1 && s[len] != ',')
            return nd__err(ND_ERR_INVALID, fn, "fewer operands provided to einstein sum function than specified in the subscripts string");
        nd_status st = parse_operand(s, len, operands[i]->ndim, i, q->labs[i], &q->nlab[i], &q->ell[i]);
        if (st) return st;
        int nb = operands[i]->ndim - q->nlab[i];
        if (nb > q->nbcast) q->nbcast = nb;
        s += len;
        if (i < n - 1) s++;
    }
    for (int i = 0; i < n; i++) {
        int nd = operands[i]->ndim, nb = nd - q->nlab[i], e = q->ell[i] < 0 ? q->nlab[i] : q->ell[i];
        int tmp[ND_MAX_DIMS];
        for (int d = 0, j = 0; d < nd; d++) {
            if (d < e) tmp[d] = q->labs[i][j++];
            else if (d < e + nb) tmp[d] = NLET + q->nbcast - nb + (d - e);
            else tmp[d] = q->labs[i][j++];
        }
        memcpy(q->labs[i], tmp, sizeof(int) * (size_t)nd);
        for (int d = 0; d < nd; d++) q->count[tmp[d]]++;
    }
    *rest = s;
    return ND_OK;
}

/* The output's labels: "->" and its subscripts, or (s empty) NumPy's
 * implicit output: the broadcast dims, then the letters used once, in
 * alphabetical order. */
static nd_status parse_output(equation *q, const char *s)
{
    if (*s == '\0') {
        for (int b = 0; b < q->nbcast; b++) q->olab[q->no++] = NLET + b;
        for (int l = 0; l < NLET; l++)
            if (q->count[l] == 1) q->olab[q->no++] = l;
    } else {
        if (s[0] != '-' || s[1] != '>')
            return nd__err(ND_ERR_INVALID, fn, "einstein sum subscript string does not contain proper '->' output specified");
        s += 2;
        int len = (int)strlen(s), oell = -1;
        for (int i = 0; i < len; i++) {
            int c = (unsigned char)s[i];
            if (c > 0 && c < 128 && isalpha(c)) {
                int l = code_of(c);
                if (memchr(s + i + 1, c, (size_t)(len - i - 1)) != NULL)
                    return nd__err(ND_ERR_INVALID, fn, "einstein sum subscripts string includes output subscript '%c' multiple times", (char)c);
                if (q->count[l] == 0)
                    return nd__err(ND_ERR_INVALID, fn,
                                   "einstein sum subscripts string included output subscript '%c' which never appeared in an input", (char)c);
                q->olab[q->no++] = l;
            } else if (c == '.') {
                if (oell != -1 || i + 2 >= len || s[++i] != '.' || s[++i] != '.')
                    return nd__err(ND_ERR_INVALID, fn,
                                   "einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') in the output");
                oell = q->no;
                for (int b = 0; b < q->nbcast; b++) q->olab[q->no++] = NLET + b;
            } else if (c != ' ') {
                return nd__err(ND_ERR_INVALID, fn,
                               "invalid subscript '%c' in einstein sum subscripts string, subscripts must be letters", (char)c);
            }
        }
        if (oell == -1 && q->nbcast > 0)
            return nd__err(ND_ERR_INVALID, fn,
                           "output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to "
                           "broadcast the extra dimensions.");
    }
    if (q->no > ND_MAX_DIMS)
        return nd__err(ND_ERR_INVALID, fn, "einstein sum subscripts string contains too many subscripts in the output");
    return ND_OK;
}

/* Every label's extent: a label repeated within an operand matches
 * exactly, across operands an extent of 1 broadcasts. */
static nd_status extents(equation *q, const nd_array *const *operands)
{
    for (int l = 0; l < NLAB; l++) q->ext[l] = -1;
    for (int i = 0; i < q->n; i++) {
        const nd_array *a = operands[i];
        for (int d = 0; d < a->ndim; d++)
            for (int e = 0; e < d; e++)
                if (q->labs[i][e] == q->labs[i][d] && a->shape[e] != a->shape[d])
                    return nd__err(ND_ERR_SHAPE, fn, "dimensions in operand %d for collapsing index '%c' don't match (%lld != %lld)",
                                   i, char_of(q->labs[i][d]), (long long)a->shape[e], (long long)a->shape[d]);
    }
    for (int i = 0; i < q->n; i++) {
        const nd_array *a = operands[i];
        for (int d = 0; d < a->ndim; d++) {
            int l = q->labs[i][d];
            int64_t x = a->shape[d];
            if (q->ext[l] < 0 || q->ext[l] == 1) q->ext[l] = x;
            else if (x != 1 && x != q->ext[l]) {
                char b1[400];
                return nd__err(ND_ERR_SHAPE, fn,
                               "operands could not be broadcast together with remapped shapes: label '%c' has extent %lld in "
                               "operand %d %s but %lld elsewhere",
                               char_of(l), (long long)x, i, nd__fmt_shape(b1, sizeof b1, a->ndim, a->shape), (long long)q->ext[l]);
            }
        }
    }
    return ND_OK;
}

/* The terms, one per operand: diagonals taken (a label repeated within
 * an operand), cast to R, broadcast to the labels' extents; then the
 * labels of one operand only that are not in the output summed away. */
static nd_status prepare_terms(term *T, const equation *q, const nd_array *const *operands, nd_dtype R)
{
    const int n = q->n;
    nd_status st = ND_OK;
    for (int i = 0; i < n && !st; i++) {
        const nd_array *a = operands[i];
        int64_t shape[ND_MAX_DIMS], strides[ND_MAX_DIMS];
        int k = 0;
        for (int d = 0; d < a->ndim; d++) {
            int e = 0;
            while (e < k && T[i].lab[e] != q->labs[i][d]) e++;
            if (e < k) {
                strides[e] += a->strides[d];
                continue;
            }
            T[i].lab[k] = q->labs[i][d];
            shape[k] = a->shape[d];
            strides[k++] = a->strides[d];
        }
        T[i].n = k;
        st = mp__view(&T[i].a, a, k, shape, strides, a->offset);
        if (!st) st = to_dtype(&T[i], R);
        if (!st) {
            bool bc = false;
            for (int d = 0; d < k; d++) {
                shape[d] = T[i].a->shape[d];
                strides[d] = T[i].a->strides[d];
                if (shape[d] == 1 && q->ext[T[i].lab[d]] != 1) shape[d] = q->ext[T[i].lab[d]], strides[d] = 0, bc = true;
            }
            nd_array *v = NULL;
            if (bc && !(st = mp__view(&v, T[i].a, k, shape, strides, T[i].a->offset))) {
                replace(&T[i], v);
                T[i].mine = false;
            }
        }
    }
    bool inout[NLAB] = {false};
    for (int i = 0; i < q->no; i++) inout[q->olab[i]] = true;
    for (int i = 0; i < n && !st; i++) {
        bool drop[NLAB] = {false};
        for (int d = 0; d < T[i].n; d++) {
            int l = T[i].lab[d];
            bool elsewhere = false;
            for (int j = 0; j < n && !elsewhere; j++)
                for (int e = 0; j != i && e < T[j].n && !elsewhere; e++) elsewhere = T[j].lab[e] == l;
            drop[l] = !inout[l] && !elsewhere;
        }
        st = sum_labels(&T[i], drop, R);
    }
    return st;
}

/* Which labels are still needed besides the pair (p, q): the output's
 * and those of every other live term. */
static void needed_labels(bool *need, const term *T, const equation *eq, int p, int q)
{
    for (int l = 0; l < NLAB; l++) need[l] = false;
    for (int i = 0; i < eq->no; i++) need[eq->olab[i]] = true;
    for (int o = 0; o < eq->n; o++)
        for (int e = 0; o != p && o != q && T[o].a && e < T[o].n; e++) need[T[o].lab[e]] = true;
}

/* Pairwise contraction, greedy: the pair whose result is smallest (ties:
 * the leftmost pair; with two terms simply the two), the result taking
 * the place of the first of them, until one term is left (T[0]). */
static nd_status contract_all(term *T, const equation *eq, nd_dtype R)
{
    const int n = eq->n;
    nd_status st = ND_OK;
    for (int alive = n; alive > 1 && !st; alive--) {
        int bp = 0, bq = 1;
        double best = -1;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n && T[p].a; q++) {
                if (!T[q].a) continue;
                bool need[NLAB], in[NLAB] = {false};
                needed_labels(need, T, eq, p, q);
                double size = 1;
                for (int e = 0; e < T[p].n; e++) in[T[p].lab[e]] = true;
                for (int e = 0; e < T[q].n; e++) in[T[q].lab[e]] = true;
                for (int l = 0; l < NLAB; l++)
                    if (in[l] && need[l]) size *= (double)(eq->ext[l] < 0 ? 1 : eq->ext[l]);
                if (best < 0 || size < best) best = size, bp = p, bq = q;
            }
        bool needed[NLAB];
        needed_labels(needed, T, eq, bp, bq);
        st = contract(&T[bp], &T[bq], needed, R);
        nd_release(T[bq].a), T[bq].a = NULL;
    }
    return st;
}

nd_status nd_einsum(nd_array **out, const char *subscripts, int n, const nd_array *const *operands)
{
    ND_PROF_OP_N("einsum", out, operands && n > 0 ? n : 0, operands);
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, subscripts, "subscripts");
    nd_status st = check_operands(n, operands);
    if (st) return st;
    equation *q = nd__calloc(1, sizeof *q);
    if (!q) return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    q->n = n;
    const char *rest = NULL;
    if (!(st = parse_inputs(q, subscripts, operands, &rest)) && !(st = parse_output(q, rest))) st = extents(q, operands);
    nd_dtype R = operands[0]->dtype;
    for (int i = 1; i < n && !st; i++)
        if ((st = nd_result_type(&R, R, operands[i]->dtype))) st = nd__err_prefix(st, fn);
    int64_t oshape[ND_MAX_DIMS];
    for (int i = 0; i < q->no && !st; i++) oshape[i] = q->ext[q->olab[i]] < 0 ? 1 : q->ext[q->olab[i]];
    if (!st && *out) st = nd__out_check(fn, *out, R, q->no, oshape, operands[0]->device);
    term *T = st ? NULL : nd__calloc((size_t)n, sizeof *T);
    if (!st && !T) st = nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    if (st) { /* the messages above name nd_einsum already */
        nd__free(q);
        return st;
    }
    st = prepare_terms(T, q, operands, R);
    if (!st) st = contract_all(T, q, R);
    /* T[0] is alive: a result takes the place of the lower index; the
     * output order last */
    nd_array *v = NULL;
    if (!st && T[0].n != q->no) st = nd__err(ND_ERR_INTERNAL, fn, "the last term has %d labels, the output %d", T[0].n, q->no);
    if (!st) st = arrange(&v, &T[0], q->no, q->olab, q->no, 0);
    /* a term that is not the library's own (a view of an operand) is copied */
    if (!st) st = nd__out_deliver(fn, out, &v, R, T[0].mine ? ND_OUT_CONTIGUOUS : ND_OUT_COPY);
    nd_release(v);
    release_terms(T, n);
    nd__free(T);
    nd__free(q);
    return st ? nd__err_prefix(st, fn) : ND_OK;
}
