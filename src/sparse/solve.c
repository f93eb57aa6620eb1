/* Iterative solvers on sparse matrices: conjugate gradients and BiCGSTAB
 * (scipy.sparse.linalg.cg and .bicgstab, with scipy's stopping rule
 * ||r|| <= max(rtol ||b||, atol)). Written with the library's own
 * operations (nd_sparse_matmul for the products, nd_dot and the
 * elementwise ops for the vectors, in place on preallocated vectors), so
 * they run on whatever device holds the matrix; each iteration reads two
 * or three scalars back to the host. */
#include <math.h>

#include "core/out.h"
#include "sparse/sparse_impl.h"

typedef struct sv {
    nd_array *t; /* scratch vector */
    nd_array *d; /* 0-d scratch for dots */
} sv;

/* *r = a . b */
static nd_status dotv(sv *w, const nd_array *a, const nd_array *b, double *r)
{
    nd_status st = nd_dot(&w->d, a, b);
    if (st) return st;
    double h[2] = {0};
    if ((st = nd_copy_to_host(h, w->d, nd_nbytes(w->d)))) return st;
    *r = nd__load_f64(h, w->d->dtype);
    return ND_OK;
}
/* y += alpha x */
static nd_status axpy(sv *w, nd_array *y, double alpha, const nd_array *x)
{
    nd_status st = nd_binary_scalar(&w->t, ND_BINARY_MULTIPLY, x, nd_scalar_float(alpha));
    if (!st) st = nd_add(&y, y, w->t);
    return st;
}
/* y = x + beta y */
static nd_status xpby(sv *w, nd_array *y, const nd_array *x, double beta)
{
    nd_status st = nd_binary_scalar(&y, ND_BINARY_MULTIPLY, y, nd_scalar_float(beta));
    if (!st) st = nd_add(&y, y, x);
    (void)w;
    return st;
}

static nd_status solve_check(const char *fn, nd_array **out, const nd_sparse *a, const nd_array *b,
                             const nd_array *x0)
{
    ND_CHECK_PTR(fn, out, "out");
    nd_status st = nd__sp_check(fn, a, "a");
    if (st) return st;
    ND_CHECK_PTR(fn, b, "b");
    if (a->rows != a->cols)
        return nd__err(ND_ERR_SHAPE, fn, "the matrix is (%lld,%lld); it must be square", (long long)a->rows,
                       (long long)a->cols);
    if (b->ndim != 1 || b->shape[0] != a->rows)
        return nd__err(ND_ERR_SHAPE, fn, "'b' must have shape (%lld,)", (long long)a->rows);
    if (a->data->dtype != ND_FLOAT32 && a->data->dtype != ND_FLOAT64)
        return nd__err(ND_ERR_DTYPE, fn, "the matrix holds %s; the solvers take float32 or float64",
                       nd_dtype_name(a->data->dtype));
    if (b->dtype != a->data->dtype)
        return nd__err(ND_ERR_DTYPE, fn, "'b' is %s but the matrix holds %s", nd_dtype_name(b->dtype),
                       nd_dtype_name(a->data->dtype));
    if (!nd__same_device(b->device, a->data->device)) {
        char x[32], y[32];
        return nd__err(ND_ERR_DEVICE, fn, "'a' is on %s but 'b' is on %s",
                       nd__device_name(a->data->device, x, sizeof x), nd__device_name(b->device, y, sizeof y));
    }
    if (x0 && (x0->ndim != 1 || x0->shape[0] != a->rows || x0->dtype != b->dtype ||
               !nd__same_device(x0->device, b->device)))
        return nd__err(ND_ERR_SHAPE, fn, "'x0' must be like 'b': (%lld,) %s on b's device", (long long)a->rows,
                       nd_dtype_name(b->dtype));
    if (*out && (st = nd__out_check(fn, *out, b->dtype, 1, b->shape, b->device))) return st;
    return ND_OK;
}

/* x = x0 or zeros; r = b - a x; *bnorm = ||b|| */
static nd_status solve_start(sv *w, const nd_sparse *a, const nd_array *b, const nd_array *x0, nd_array **x,
                             nd_array **r, double *bnorm)
{
    nd_status st = x0 ? nd__copy_new(x, x0, b->dtype) : nd_zeros(x, b->dtype, 1, b->shape, b->device);
    if (!st) st = nd_sparse_matmul(r, a, *x);
    if (!st) st = nd_subtract(r, b, *r);
    double bb = 0;
    if (!st) st = dotv(w, b, b, &bb);
    *bnorm = sqrt(bb);
    return st;
}

static nd_status solve_end(const char *fn, nd_status st, nd_array **out, nd_array **x, nd_sparse_solve_info *info,
                           int64_t it, double res, bool conv, sv *w, nd_array **tmps, int ntmps)
{
    for (int i = 0; i < ntmps; i++) nd_release(tmps[i]);
    nd_release(w->t);
    nd_release(w->d);
    if (st) {
        nd_release(*x);
        return nd__err_prefix(st, fn);
    }
    st = nd__out_deliver(fn, out, x, (*x)->dtype, 0);
    if (!st && info) *info = (nd_sparse_solve_info){.iterations = it, .residual = res, .converged = conv};
    return st;
}

nd_status nd_sparse_cg(nd_array **out, const nd_sparse *a, const nd_array *b, const nd_array *x0, double rtol,
                       double atol, int64_t maxiter, nd_sparse_solve_info *info)
{
    static const char *fn = "nd_sparse_cg";
    nd_status st = solve_check(fn, out, a, b, x0);
    if (st) return st;
    if (maxiter <= 0) maxiter = 10 * a->rows;
    sv w = {0};
    nd_array *x = NULL, *r = NULL, *p = NULL, *q = NULL;
    double bnorm = 0, rr = 0, res = 0;
    int64_t it = 0;
    bool conv = false;
    if ((st = solve_start(&w, a, b, x0, &x, &r, &bnorm)) || (st = dotv(&w, r, r, &rr)) || (st = nd_copy(&p, r)))
        goto done;
    double tol = fmax(rtol * bnorm, atol);
    res = sqrt(rr);
    while (!(conv = res <= tol) && it < maxiter) {
        double pq = 0;
        if ((st = nd_sparse_matmul(&q, a, p)) || (st = dotv(&w, p, q, &pq))) goto done;
        if (pq == 0) break; /* breakdown: p in the null space */
        double alpha = rr / pq, rr2 = 0;
        if ((st = axpy(&w, x, alpha, p)) || (st = axpy(&w, r, -alpha, q)) || (st = dotv(&w, r, r, &rr2))) goto done;
        it++;
        res = sqrt(rr2);
        if ((st = xpby(&w, p, r, rr2 / rr))) goto done;
        rr = rr2;
    }
done:;
    nd_array *tmps[3] = {r, p, q};
    return solve_end(fn, st, out, &x, info, it, res, conv, &w, tmps, 3);
}

nd_status nd_sparse_bicgstab(nd_array **out, const nd_sparse *a, const nd_array *b, const nd_array *x0, double rtol,
                             double atol, int64_t maxiter, nd_sparse_solve_info *info)
{
    static const char *fn = "nd_sparse_bicgstab";
    nd_status st = solve_check(fn, out, a, b, x0);
    if (st) return st;
    if (maxiter <= 0) maxiter = 10 * a->rows;
    sv w = {0};
    nd_array *x = NULL, *r = NULL, *rh = NULL, *p = NULL, *v = NULL, *s = NULL, *t = NULL;
    double bnorm = 0, res = 0, rho = 1, alpha = 1, omega = 1;
    int64_t it = 0;
    bool conv = false;
    if ((st = solve_start(&w, a, b, x0, &x, &r, &bnorm)) || (st = nd_copy(&rh, r)) ||
        (st = nd_zeros(&p, b->dtype, 1, b->shape, b->device)) || (st = nd_zeros(&v, b->dtype, 1, b->shape, b->device)))
        goto done;
    double tol = fmax(rtol * bnorm, atol), rr = 0;
    if ((st = dotv(&w, r, r, &rr))) goto done;
    res = sqrt(rr);
    while (!(conv = res <= tol) && it < maxiter) {
        double rho2 = 0, rv = 0, ts = 0, tt = 0;
        if ((st = dotv(&w, rh, r, &rho2))) goto done;
        if (rho2 == 0 || omega == 0) break; /* breakdown */
        double beta = (rho2 / rho) * (alpha / omega);
        rho = rho2;
        /* p = r + beta (p - omega v) */
        if ((st = axpy(&w, p, -omega, v)) || (st = xpby(&w, p, r, beta))) goto done;
        if ((st = nd_sparse_matmul(&v, a, p)) || (st = dotv(&w, rh, v, &rv))) goto done;
        if (rv == 0) break;
        alpha = rho / rv;
        /* s = r - alpha v */
        if ((st = nd_copy(&s, r)) || (st = axpy(&w, s, -alpha, v)) || (st = axpy(&w, x, alpha, p))) goto done;
        it++;
        double ss = 0;
        if ((st = dotv(&w, s, s, &ss))) goto done;
        if (sqrt(ss) <= tol) {
            res = sqrt(ss);
            conv = true;
            break;
        }
        if ((st = nd_sparse_matmul(&t, a, s)) || (st = dotv(&w, t, s, &ts)) || (st = dotv(&w, t, t, &tt))) goto done;
        omega = tt == 0 ? 0 : ts / tt;
        /* x += omega s; r = s - omega t */
        if ((st = axpy(&w, x, omega, s)) || (st = nd_copy(&r, s)) || (st = axpy(&w, r, -omega, t)) ||
            (st = dotv(&w, r, r, &rr)))
            goto done;
        res = sqrt(rr);
    }
done:;
    nd_array *tmps[6] = {r, rh, p, v, s, t};
    return solve_end(fn, st, out, &x, info, it, res, conv, &w, tmps, 6);
}
