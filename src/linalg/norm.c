/* numpy.linalg norms: nd_linalg_norm, nd_linalg_vector_norm,
 * nd_linalg_matrix_norm, and nd_linalg_matrix_power (the products:
 * src/linalg/products.c).
 *
 * Backend-neutral: every function is a composition of public ops (abs,
 * square, power, sum/max/min, matmul/dot, views, concatenate) and of the
 * decompositions nd_linalg_svdvals / nd_linalg_inv, so they run on every
 * device those run on. Each public function opens one profiler scope
 * ("linalg_norm", ..., "linalg_matrix_power") and calls only static cores and other
 * public ops (which nest under it), never another function of this file.
 *
 * NumPy 2 semantics (numpy/linalg/_linalg.py), with these decisions:
 *  - Result dtypes of the norms: float64 for bool and integers, the real
 *    dtype of the precision for complex (complex64 -> float32), float16
 *    and bfloat16 keep their dtype (NumPy gives float16 for float16), every
 *    other float its own. The work precision is float32 for half inputs
 *    (NumPy computes in float16 and overflows to inf above ~256 for the
 *    2-norm: norm(float16 [300, 400]) is inf there, 500 here), float64 for
 *    bool/integers.
 *  - The 2-norm (vector ord 2, matrix 'fro', ord None) and general p-norms
 *    of float32 / complex64 / half data are accumulated in float64 (|x| is
 *    cast to float64, then squared or raised to p, summed, rooted and
 *    rounded once to the result dtype): no needless overflow or underflow
 *    for any finite float32 data, where NumPy's float32 sqrt(x.dot(x))
 *    overflows for |x| > ~1.8e19 and flushes below ~1e-19. The cost is a
 *    float64 temporary of the array. The common case, the 2-norm over
 *    every axis of contiguous data (ord None, 'fro' of a matrix), is
 *    NumPy's sqrt(dot(x, x)) in the input precision (sumsq_dot: one read of
 *    memory), kept when the sum is finite and clear of underflow; when it
 *    is not, chunks of 2^20 elements (complex: parts) are cast into one
 *    cached float64 buffer, squared and summed (sumsq_flat), so such data
 *    still gets the float64 answer.
 *    Axis-wise float64 / complex128 norms compute as
 *    NumPy does (sqrt(sum(|x|^2)), no scaling). Complex magnitudes are
 *    nd_abs (hypot) before squaring.
 *  - ord inf / matrix ords 1 and inf on an empty reduction give 0 (NumPy's
 *    initial=0); ord -inf / matrix -1, -inf and -2 on an empty reduction
 *    with a non-empty result fail as NumPy does (ND_ERR_INVALID "zero-size
 *    array to reduction operation minimum which has no identity"). The
 *    2-norm, 1-norm, 0-"norm" and 'nuc' of empty data are 0; p < 0 of
 *    empty data is inf (0 ** (1/p)), as NumPy.
 *  - Matrix ords 2, -2 and 'nuc' are max / min / sum of nd_linalg_svdvals
 *    over the two axes moved last (NumPy's _multi_svd_norm); an empty
 *    matrix (M or N = 0) never reaches the SVD.
 *  - Errors: ND_ERR_INVALID "Invalid norm order 'fro' for vectors",
 *    "Invalid norm order for matrices.", "Duplicate axes given." (norm with
 *    two axes), "repeated axis" (vector_norm), "Improper number of
 *    dimensions to norm." (0 or more than 2 axes given to norm; with axes
 *    NULL and a non-default ord on an array that is not 1-D or 2-D it is
 *    ND_ERR_SHAPE, the array's fault); axes out of range ND_ERR_SHAPE
 *    ("axis 3 is out of bounds for array of dimension 2"). axes == NULL
 *    means axis=None whatever naxes says (as nd_reduce).
 *  - matrix_power: NumPy's exact multiplication order (n = 1, 2, 3
 *    short-cuts, then binary powering from the low bit), so results match
 *    NumPy's bit for bit where matmul does; n = 0 the identity in a's
 *    dtype (batched); n < 0 powers nd_linalg_inv(a) (float64 for integers,
 *    as NumPy); n = 1 a copy of a (NumPy returns a itself). ND_ERR_SHAPE
 *    for fewer than 2 dimensions or non-square matrices (NumPy's
 *    LinAlgError messages).
 *  - multi_dot: two arrays are exactly nd_dot (NumPy); three use NumPy's
 *    _multi_dot_three rule, more the matrix-chain dynamic programme
 *    (costs in double, ties to the first split, as NumPy); the first array
 *    may be 1-D (a row), the last 1-D (a column), the others must be 2-D.
 *  - cross is the array API's linalg.cross: axis is taken in each operand
 *    (negative axes count from each one's end, as np.cross), extent 3 in
 *    both, the other axes broadcast, the result's vector axis at `axis` of
 *    the result; bool x bool is ND_ERR_DTYPE (NumPy's boolean subtract).
 *  - vecdot: sum(conj(a) * b) along axis (each operand's own axis, as the
 *    gufunc's axes=), in nd_result_type(a, b) (integers wrap as NumPy's,
 *    bool is any(a & b)).
 *  - kron: np.kron, including 0-d operands (a plain multiply) and
 *    different ndims (the shorter shape padded with leading 1s); only axes
 *    where neither extent is 1 takes an extra axis in the interleaved
 *    product, so any ndim up to ND_MAX_DIMS works unless more than
 *    ND_MAX_DIMS axes would be needed (ND_ERR_UNSUPPORTED, said so).
 *
 * Results follow the out-pointer rule: a fresh C-contiguous array, or the
 * result cast (same_kind) into the caller's *out, checked before anything
 * is computed where the result's dtype and shape are known up front. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/out.h"
#include "core/prof.h"
#include "linalg/la.h"

/* ------------------------------------------------------------------ */
/* helpers                                                             */
/* ------------------------------------------------------------------ */

/* Replace *x (owned) by f(*x); on failure *x is released and NULL. */
typedef nd_status (*unary_fn)(nd_array **, const nd_array *);
static nd_status step1(nd_array **x, unary_fn f)
{
    nd_array *r = NULL;
    nd_status st = f(&r, *x);
    nd_release(*x);
    *x = st ? NULL : r;
    return st;
}

static nd_status step_cast(nd_array **x, nd_dtype t)
{
    if ((*x)->dtype == t) return ND_OK;
    nd_array *r = NULL;
    nd_status st = nd__as_dtype(&r, *x, t);
    nd_release(*x);
    *x = st ? NULL : r;
    return st;
}

static nd_status step_reduce(nd_array **x, nd_reduce_op op, int naxes, const int *axes, bool keepdims)
{
    nd_array *r = NULL;
    nd_status st = nd_reduce(&r, op, *x, naxes, axes, keepdims);
    nd_release(*x);
    *x = st ? NULL : r;
    return st;
}

static nd_status step_pow(nd_array **x, double p)
{
    nd_array *r = NULL;
    nd_status st = nd_binary_scalar(&r, ND_BINARY_POWER, *x, nd_scalar_float(p));
    nd_release(*x);
    *x = st ? NULL : r;
    return st;
}

/* The dtype a norm computes in, and the dtype it gives. */
static nd_dtype work_dtype(nd_dtype t)
{
    if (nd__storage_only(t)) return nd__compute_dtype(t);
    if (nd__is_float(t) || nd__is_complex(t)) return t;
    return ND_FLOAT64;
}
static nd_dtype result_dtype(nd_dtype t)
{
    if (nd__storage_only(t)) return t;
    if (nd__is_complex(t)) return nd__real_of(t);
    if (nd__is_float(t)) return t;
    return ND_FLOAT64;
}

/* Shape of a reduction of x over the marked axes. */
static int reduced_shape(const nd_array *x, const bool *red, bool keepdims, int64_t *shape, int64_t *extent,
                         int64_t *rsize)
{
    int n = 0;
    int64_t e = 1, s = 1;
    for (int i = 0; i < x->ndim; i++) {
        if (red[i]) {
            e *= x->shape[i];
            if (keepdims) shape[n++] = 1;
        } else {
            shape[n++] = x->shape[i];
            s *= x->shape[i];
        }
    }
    *extent = e;
    *rsize = s;
    return n;
}

static nd_status no_identity(const char *fn)
{
    return nd__err(ND_ERR_INVALID, fn, "zero-size array to reduction operation minimum which has no identity");
}

/* max (initial 0, as NumPy's norms) or min (no identity) of x over the
 * axes (axes NULL: all); x is owned and consumed. */
static nd_status extreme(const char *fn, nd_array **x, bool is_max, int naxes, const int *axes, bool keepdims)
{
    bool red[ND_MAX_DIMS] = {false};
    for (int i = 0; i < (*x)->ndim; i++) red[i] = axes == NULL;
    for (int i = 0; axes && i < naxes; i++) red[axes[i]] = true;
    int64_t shape[ND_MAX_DIMS], ext, rsize;
    int n = reduced_shape(*x, red, keepdims, shape, &ext, &rsize);
    if (ext > 0) return step_reduce(x, is_max ? ND_REDUCE_MAX : ND_REDUCE_MIN, naxes, axes, keepdims);
    nd_dtype t = (*x)->dtype;
    nd_device dev = (*x)->device;
    nd_release(*x);
    *x = NULL;
    if (!is_max && rsize > 0) return no_identity(fn);
    return nd_zeros(x, t, n, shape, dev);
}

/* ------------------------------------------------------------------ */
/* vector norms                                                        */
/* ------------------------------------------------------------------ */

/* sum(|x|^2) over the whole of a contiguous float32/float64/complex x, in
 * float64, as a 0-d float64: the elements (complex: the parts) in chunks of
 * ND_NORM_CHUNK, each cast into a float64 buffer that stays in cache,
 * squared in place and summed into the accumulator. Three cheap passes
 * over cached data instead of float64 temporaries of the whole array; no
 * host read (asynchronous on a GPU). */
#define ND_NORM_CHUNK ((int64_t)1 << 20)
static nd_status sumsq_flat(nd_array **res, const nd_array *x)
{
    nd_dtype pt = nd__real_of(x->dtype);
    int64_t n = x->size * (nd__is_complex(x->dtype) ? 2 : 1), one = 1, ch = n < ND_NORM_CHUNK ? n : ND_NORM_CHUNK;
    nd_array *v = NULL, *buf = NULL, *acc = NULL;
    nd_status st = nd__view(&v, x, pt, 1, &n, &one, x->offset);
    if (!st) st = nd__alloc(&buf, ND_FLOAT64, 1, &ch, x->device);
    if (!st) st = nd_zeros(&acc, ND_FLOAT64, 0, NULL, x->device);
    for (int64_t off = 0; !st && off < n; off += ch) {
        int64_t len = n - off < ch ? n - off : ch;
        nd_array *piece = NULL, *b = NULL, *part = NULL;
        nd_range rg = {off, off + len, 1}, rb = {0, len, 1};
        st = nd_slice(&piece, v, 1, &rg);
        if (!st) st = len == ch ? (b = nd_retain(buf), ND_OK) : nd_slice(&b, buf, 1, &rb);
        if (!st) st = nd__copy_into(b, piece);
        if (!st) st = nd_square(&b, b);
        if (!st) st = nd_sum(&part, b, 0, NULL, false);
        if (!st) st = nd_add(&acc, acc, part);
        nd_release(piece);
        nd_release(b);
        nd_release(part);
    }
    nd_release(v);
    nd_release(buf);
    if (st) {
        nd_release(acc);
        return st;
    }
    *res = acc;
    return ND_OK;
}

/* sum(|x|^2) over the whole of a contiguous float32/float64/complex x as
 * NumPy computes it, one dot (nd_dot) of the flat parts with themselves in
 * the input precision (the memory is read once: 1.4-2.1 ms for 4096^2
 * float32, where sumsq_flat takes 17-25 ms), as a 0-d array of x's real dtype. The
 * sum is read back (one wait on a GPU) and kept only when it is finite and
 * large enough that no square was flushed or rounded as a subnormal in a
 * way that matters (s >= n * min_normal / eps); otherwise
 * ND_ERR_UNSUPPORTED without a message, and the caller takes sumsq_flat's
 * float64 path (no overflow or underflow for float32 data). */
static nd_status sumsq_dot(nd_array **res, const nd_array *x)
{
    nd_dtype pt = nd__real_of(x->dtype);
    int64_t n = x->size * (nd__is_complex(x->dtype) ? 2 : 1), one = 1;
    nd_array *v = NULL, *d = NULL;
    nd_status st = nd__view(&v, x, pt, 1, &n, &one, x->offset);
    if (!st) st = nd_dot(&d, v, v);
    nd_release(v);
    if (st) return st;
    double s;
    if (pt == ND_FLOAT32) {
        float f = 0;
        st = nd_copy_to_host(&f, d, sizeof f);
        s = f;
    } else {
        st = nd_copy_to_host(&s, d, sizeof s);
    }
    const double floor = (double)n * (pt == ND_FLOAT32 ? (double)FLT_MIN / FLT_EPSILON : DBL_MIN / DBL_EPSILON);
    if (st || !isfinite(s) || s < floor) {
        nd_release(d);
        return st ? st : ND_ERR_UNSUPPORTED;
    }
    *res = d;
    return ND_OK;
}

/* The p-norm of x (any dtype) over axes (normalized, distinct; NULL: all)
 * into *res, in the real work precision (float32 or float64). */
static nd_status vec_core(const char *fn, nd_array **res, const nd_array *a, double p, int naxes, const int *axes,
                          bool keepdims)
{
    nd_dtype wt = work_dtype(a->dtype);
    nd_dtype rt = nd__real_of(wt);
    nd_array *x = NULL;
    nd_status st;
    if (p == 0) { /* the number of nonzeros, in the real dtype */
        if ((st = nd_binary_scalar(&x, ND_BINARY_NOT_EQUAL, a, nd_scalar_int(0)))) return st;
        if ((st = step_reduce(&x, ND_REDUCE_SUM, naxes, axes, keepdims))) return st;
        if ((st = step_cast(&x, rt))) return st;
        *res = x;
        return ND_OK;
    }
    /* |x| in the work precision */
    if ((st = nd__as_dtype(&x, a, wt))) return st;
    bool all = axes == NULL || naxes == x->ndim;
    if (p == 2 && all && x->size > 0 && nd_is_contiguous(x)) {
        nd_array *r = NULL;
        st = sumsq_dot(&r, x);
        if (st == ND_ERR_UNSUPPORTED) st = sumsq_flat(&r, x); /* out of the dot's safe range */
        nd_release(x);
        if (st) return st;
        if ((st = step1(&r, nd_sqrt)) || (st = step_cast(&r, rt))) return st;
        if (keepdims) {
            int64_t ones[ND_MAX_DIMS];
            for (int i = 0; i < a->ndim; i++) ones[i] = 1;
            nd_array *k = NULL;
            st = nd_reshape(&k, r, a->ndim, ones);
            nd_release(r);
            if (st) return st;
            r = k;
        }
        *res = r;
        return ND_OK;
    }
    if ((nd__is_complex(wt) || p != 2) && (st = step1(&x, nd_abs))) return st;
    if (p == INFINITY || p == -INFINITY) {
        if ((st = extreme(fn, &x, p > 0, naxes, axes, keepdims))) return st;
    } else if (p == 1) {
        if ((st = step_reduce(&x, ND_REDUCE_SUM, naxes, axes, keepdims))) return st;
    } else {
        /* 2-norm and general p: float64 accumulation for float32 precision */
        if (rt == ND_FLOAT32 && (st = step_cast(&x, ND_FLOAT64))) return st;
        if (p == 2) {
            if ((st = step1(&x, nd_square))) return st;
        } else if ((st = step_pow(&x, p))) {
            return st;
        }
        if ((st = step_reduce(&x, ND_REDUCE_SUM, naxes, axes, keepdims))) return st;
        if (p == 2) {
            if ((st = step1(&x, nd_sqrt))) return st;
        } else if ((st = step_pow(&x, 1.0 / p))) {
            return st;
        }
        if ((st = step_cast(&x, rt))) return st;
    }
    *res = x;
    return ND_OK;
}

/* Normalize naxes axes of a into ax (distinct: dupmsg otherwise). */
static nd_status norm_axes(const char *fn, const nd_array *a, int naxes, const int *axes, int *ax, const char *dupmsg)
{
    for (int i = 0; i < naxes; i++) {
        nd_status st = nd__la_norm_axis(fn, axes[i], a->ndim, &ax[i]);
        if (st) return st;
        for (int j = 0; j < i; j++)
            if (ax[j] == ax[i]) return nd__err(ND_ERR_INVALID, fn, "%s", dupmsg);
    }
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* matrix norms                                                        */
/* ------------------------------------------------------------------ */

/* Is ord one of the matrix norms (fro and nuc included)? */
static bool matrix_ord_ok(nd_norm_ord ord)
{
    if (ord.kind != ND_NORM_P) return true;
    double p = ord.p;
    return p == 1 || p == -1 || p == 2 || p == -2 || p == INFINITY || p == -INFINITY;
}

static nd_status svd_norm(const char *fn, nd_array **res, const nd_array *a, int r, int c, int which,
                          bool keepdims)
{
    /* which: 0 max (2), 1 min (-2), 2 sum (nuc) */
    nd_dtype wt = work_dtype(a->dtype), rt = nd__real_of(wt);
    int64_t kshape[ND_MAX_DIMS], nshape[ND_MAX_DIMS];
    int nk = 0, nn = 0;
    int64_t rsize = 1;
    for (int i = 0; i < a->ndim; i++) {
        bool m = i == r || i == c;
        kshape[nk++] = m ? 1 : a->shape[i];
        if (!m) {
            nshape[nn++] = a->shape[i];
            rsize *= a->shape[i];
        }
    }
    int64_t k = a->shape[r] < a->shape[c] ? a->shape[r] : a->shape[c];
    nd_status st;
    if (k == 0 || rsize == 0) {
        if (which == 1 && rsize > 0) return no_identity(fn);
        return nd_zeros(res, rt, keepdims ? nk : nn, keepdims ? kshape : nshape, a->device);
    }
    nd_array *x = NULL, *y = NULL, *s = NULL;
    if ((st = nd__as_dtype(&x, a, wt))) return st;
    st = nd_moveaxis(&y, x, 2, (const int[]){r, c}, (const int[]){-2, -1});
    nd_release(x);
    if (st) return st;
    st = nd_linalg_svdvals(&s, y);
    nd_release(y);
    if (st) return st;
    const int last[1] = {-1};
    static const nd_reduce_op ops[3] = {ND_REDUCE_MAX, ND_REDUCE_MIN, ND_REDUCE_SUM};
    if ((st = step_reduce(&s, ops[which], 1, last, false))) return st;
    if (keepdims) {
        nd_array *v = NULL;
        st = nd_reshape(&v, s, nk, kshape);
        nd_release(s);
        if (st) return st;
        s = v;
    }
    if ((st = step_cast(&s, rt))) return st;
    *res = s;
    return ND_OK;
}

/* The matrix norm ord of a over rows r and columns c (normalized,
 * distinct, ord valid). */
static nd_status mat_core(const char *fn, nd_array **res, const nd_array *a, nd_norm_ord ord, int r, int c,
                          bool keepdims)
{
    if (ord.kind == ND_NORM_DEFAULT || ord.kind == ND_NORM_FRO) {
        int ax[2] = {r < c ? r : c, r < c ? c : r};
        return vec_core(fn, res, a, 2, 2, ax, keepdims);
    }
    if (ord.kind == ND_NORM_NUC) return svd_norm(fn, res, a, r, c, 2, keepdims);
    double p = ord.p;
    if (p == 2 || p == -2) return svd_norm(fn, res, a, r, c, p > 0 ? 0 : 1, keepdims);
    /* 1 / -1: sum over rows, then max/min over columns; inf / -inf: sum over
     * columns, then over rows. Axes kept throughout, squeezed at the end. */
    bool cols = p == 1 || p == -1;
    int sum_ax = cols ? r : c, ext_ax = cols ? c : r;
    nd_dtype wt = work_dtype(a->dtype);
    nd_array *x = NULL;
    nd_status st;
    if ((st = nd__as_dtype(&x, a, wt))) return st;
    if ((st = step1(&x, nd_abs))) return st;
    if ((st = step_reduce(&x, ND_REDUCE_SUM, 1, &sum_ax, true))) return st;
    if ((st = extreme(fn, &x, p > 0, 1, &ext_ax, true))) return st;
    if (!keepdims) {
        nd_array *v = NULL;
        st = nd_squeeze(&v, x, 2, (const int[]){r, c});
        nd_release(x);
        if (st) return st;
        x = v;
    }
    *res = x;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* public norms                                                        */
/* ------------------------------------------------------------------ */

static nd_status vector_ord(const char *fn, nd_norm_ord ord, double *p)
{
    switch (ord.kind) {
    case ND_NORM_DEFAULT: *p = 2; return ND_OK;
    case ND_NORM_P: *p = ord.p; return ND_OK;
    case ND_NORM_FRO: return nd__err(ND_ERR_INVALID, fn, "Invalid norm order 'fro' for vectors");
    case ND_NORM_NUC: return nd__err(ND_ERR_INVALID, fn, "Invalid norm order 'nuc' for vectors");
    }
    return nd__err(ND_ERR_INVALID, fn, "invalid norm kind %d", (int)ord.kind);
}

static nd_status matrix_ord(const char *fn, nd_norm_ord ord)
{
    if ((unsigned)ord.kind > (unsigned)ND_NORM_NUC) return nd__err(ND_ERR_INVALID, fn, "invalid norm kind %d", (int)ord.kind);
    if (!matrix_ord_ok(ord)) return nd__err(ND_ERR_INVALID, fn, "Invalid norm order for matrices.");
    return ND_OK;
}

nd_status nd_linalg_norm(nd_array **out, const nd_array *a, nd_norm_ord ord, int naxes, const int *axes,
                         bool keepdims)
{
    ND_PROF_OP("linalg_norm", out, a);
    static const char *fn = "nd_linalg_norm";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if ((unsigned)ord.kind > (unsigned)ND_NORM_NUC) return nd__err(ND_ERR_INVALID, fn, "invalid norm kind %d", (int)ord.kind);
    nd_array *r = NULL;
    nd_status st;
    int ax[2];
    double p;
    if (axes == NULL) {
        if (ord.kind == ND_NORM_DEFAULT) {
            st = vec_core(fn, &r, a, 2, -1, NULL, keepdims);
        } else if (a->ndim == 1) {
            if ((st = vector_ord(fn, ord, &p))) return st;
            ax[0] = 0;
            st = vec_core(fn, &r, a, p, 1, ax, keepdims);
        } else if (a->ndim == 2) {
            if ((st = matrix_ord(fn, ord))) return st;
            st = mat_core(fn, &r, a, ord, 0, 1, keepdims);
        } else {
            return nd__err(ND_ERR_SHAPE, fn, "Improper number of dimensions to norm.");
        }
    } else if (naxes == 1) {
        if ((st = nd__la_norm_axis(fn, axes[0], a->ndim, &ax[0]))) return st;
        if ((st = vector_ord(fn, ord, &p))) return st;
        st = vec_core(fn, &r, a, p, 1, ax, keepdims);
    } else if (naxes == 2) {
        if ((st = norm_axes(fn, a, 2, axes, ax, "Duplicate axes given."))) return st;
        if ((st = matrix_ord(fn, ord))) return st;
        st = mat_core(fn, &r, a, ord, ax[0], ax[1], keepdims);
    } else {
        return nd__err(ND_ERR_INVALID, fn, "Improper number of dimensions to norm.");
    }
    if (st) return nd__err_prefix(st, fn);
    return nd__out_deliver(fn, out, &r, result_dtype(a->dtype), ND_OUT_CONTIGUOUS | ND_OUT_ROUND);
}

nd_status nd_linalg_vector_norm(nd_array **out, const nd_array *a, double ord, int naxes, const int *axes,
                                bool keepdims)
{
    ND_PROF_OP("linalg_vector_norm", out, a);
    static const char *fn = "nd_linalg_vector_norm";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    nd_array *r = NULL;
    nd_status st;
    if (axes == NULL) {
        st = vec_core(fn, &r, a, ord, -1, NULL, keepdims);
    } else {
        if (naxes < 0 || naxes > a->ndim)
            return nd__err(ND_ERR_INVALID, fn, "naxes %d is invalid for an array of dimension %d", naxes, a->ndim);
        int ax[ND_MAX_DIMS];
        if ((st = norm_axes(fn, a, naxes, axes, ax, "repeated axis"))) return st;
        st = vec_core(fn, &r, a, ord, naxes, ax, keepdims);
    }
    if (st) return nd__err_prefix(st, fn);
    return nd__out_deliver(fn, out, &r, result_dtype(a->dtype), ND_OUT_CONTIGUOUS | ND_OUT_ROUND);
}

nd_status nd_linalg_matrix_norm(nd_array **out, const nd_array *a, nd_norm_ord ord, bool keepdims)
{
    ND_PROF_OP("linalg_matrix_norm", out, a);
    static const char *fn = "nd_linalg_matrix_norm";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    nd_status st;
    int ax[2];
    if ((st = norm_axes(fn, a, 2, (const int[]){-2, -1}, ax, "Duplicate axes given."))) return st;
    if ((st = matrix_ord(fn, ord))) return st;
    nd_array *r = NULL;
    if ((st = mat_core(fn, &r, a, ord, ax[0], ax[1], keepdims))) return nd__err_prefix(st, fn);
    return nd__out_deliver(fn, out, &r, result_dtype(a->dtype), ND_OUT_CONTIGUOUS | ND_OUT_ROUND);
}

/* ------------------------------------------------------------------ */
/* matrix_power                                                        */
/* ------------------------------------------------------------------ */

static nd_status mm(nd_array **res, const nd_array *x, const nd_array *y) { return nd_matmul(res, x, y); }

nd_status nd_linalg_matrix_power(nd_array **out, const nd_array *a, int64_t n)
{
    ND_PROF_OP("linalg_matrix_power", out, a);
    static const char *fn = "nd_linalg_matrix_power";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    if (a->ndim < 2)
        return nd__err(ND_ERR_SHAPE, fn, "%d-dimensional array given. Array must be at least two-dimensional",
                       a->ndim);
    int64_t m = a->shape[a->ndim - 1];
    if (a->shape[a->ndim - 2] != m) return nd__err(ND_ERR_SHAPE, fn, "Last 2 dimensions of the array must be square");
    nd_status st;
    nd_array *r = NULL;
    if (n == 0) { /* the identity in a's dtype, broadcast over the batch */
        nd_array *e = NULL, *b = NULL;
        if ((st = nd_eye(&e, a->dtype, m, m, 0, a->device))) return nd__err_prefix(st, fn);
        st = nd_broadcast_to(&b, e, a->ndim, a->shape);
        nd_release(e);
        if (!st) st = nd_copy(&r, b);
        nd_release(b);
        if (st) return nd__err_prefix(st, fn);
        return nd__out_deliver(fn, out, &r, r->dtype, ND_OUT_CONTIGUOUS);
    }
    nd_array *base = NULL;
    uint64_t k;
    if (n < 0) {
        if ((st = nd_linalg_inv(&base, a))) return nd__err_prefix(st, fn);
        k = (uint64_t)0 - (uint64_t)n;
    } else {
        base = nd_retain((nd_array *)a);
        k = (uint64_t)n;
    }
    if (k == 1) {
        if (base == a) st = nd_copy(&r, base);
        else r = nd_retain(base);
    } else if (k == 2) {
        st = mm(&r, base, base);
    } else if (k == 3) {
        nd_array *sq = NULL;
        if (!(st = mm(&sq, base, base))) st = mm(&r, sq, base);
        nd_release(sq);
    } else { /* NumPy's loop: z = a, a^2, a^4, ...; result *= z per set bit */
        nd_array *z = NULL;
        while (k > 0 && !st) {
            if (z == NULL) {
                z = nd_retain(base);
            } else {
                nd_array *z2 = NULL;
                st = mm(&z2, z, z);
                nd_release(z);
                z = z2;
                if (st) break;
            }
            uint64_t bit = k & 1;
            k >>= 1;
            if (bit) {
                if (r == NULL) {
                    r = nd_retain(z);
                } else {
                    nd_array *r2 = NULL;
                    st = mm(&r2, r, z);
                    nd_release(r);
                    r = st ? NULL : r2;
                }
            }
        }
        nd_release(z);
    }
    nd_release(base);
    if (st) {
        nd_release(r);
        return nd__err_prefix(st, fn);
    }
    return nd__out_deliver(fn, out, &r, r->dtype, ND_OUT_CONTIGUOUS);
}
