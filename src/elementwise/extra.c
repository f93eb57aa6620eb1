/*
 * Elementwise functions beyond the op table, composed in the
 * core from op-table ops, casts, where and reductions, so that they run on
 * every backend with the table's NumPy-exact bodies: divmod, modf, frexp,
 * round with decimals, isclose / allclose / array_equal, and the
 * conjugate-ready aliases (conj, real, imag, radians, degrees), SciPy's
 * names gammaln and psi.
 *
 * Every function computes into fresh temporaries and hands the result(s)
 * over only at the end (nd__out_deliver), so that on failure nothing is written and
 * *out stays untouched; two-output functions check both outs before either
 * is written.
 */
#include "elementwise/elementwise.h"
#include "core/prof.h"

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */
/* Release a temporary (NULL is fine) and clear the pointer. */
static void drop(nd_array **a)
{
    nd_release(*a);
    *a = NULL;
}

/* Whether the caller's *out (when given) may receive res. */
static nd_status check_out(const char *func, nd_array *const *out, const nd_array *res)
{
    if (*out == NULL) return ND_OK;
    return nd__out_check(func, *out, res->dtype, res->ndim, res->shape, res->device);
}

static nd_status scalar_op(const char *func, nd_array **out, nd_binary_op op, const nd_array *a, nd_scalar s,
                           bool left)
{
    return nd__ew_scalar(func, out, op, a, s, left);
}

/* ------------------------------------------------------------------ */
/* Aliases                                                             */
/* ------------------------------------------------------------------ */
nd_status nd_radians(nd_array **out, const nd_array *a) 
{
    ND_PROF_OP("radians", out, a);
    return nd__ew_unary_op("nd_radians", out, ND_UNARY_DEG2RAD, a);
}
nd_status nd_degrees(nd_array **out, const nd_array *a) 
{
    ND_PROF_OP("degrees", out, a);
    return nd__ew_unary_op("nd_degrees", out, ND_UNARY_RAD2DEG, a);
}
nd_status nd_conj(nd_array **out, const nd_array *a) 
{
    ND_PROF_OP("conj", out, a);
    return nd__ew_unary_op("nd_conj", out, ND_UNARY_CONJUGATE, a);
}
nd_status nd_gammaln(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("gammaln", out, a);
    return nd__ew_unary_op("nd_gammaln", out, ND_UNARY_LGAMMA, a);
}
nd_status nd_psi(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("psi", out, a);
    return nd__ew_unary_op("nd_psi", out, ND_UNARY_DIGAMMA, a);
}

nd_status nd_real(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("real", out, a);
    const char *func = "nd_real";
    ND_CHECK_PTR(func, out, "out");
    ND_CHECK_PTR(func, a, "a");
    nd_array *v = NULL;
    /* complex: a view of the real parts (NumPy's .real, writable) */
    nd_status st = nd__is_complex(a->dtype) ? nd__cpx_part(&v, a, 0)
                                            : nd__view(&v, a, a->dtype, a->ndim, a->shape, a->strides, a->offset);
    if (st) return nd__err_prefix(st, func);
    if (*out == NULL) ND_PROF_BYTES(0); /* a view; a given out receives a copy */
    return nd__out_deliver(func, out, &v, v->dtype, 0);
}

nd_status nd_imag(nd_array **out, const nd_array *a)
{
    ND_PROF_OP("imag", out, a);
    const char *func = "nd_imag";
    ND_CHECK_PTR(func, out, "out");
    ND_CHECK_PTR(func, a, "a");
    nd_array *z = NULL;
    if (nd__is_complex(a->dtype)) { /* a view of the imaginary parts (NumPy's .imag) */
        nd_status st = nd__cpx_part(&z, a, 1);
        if (st) return nd__err_prefix(st, func);
        return nd__out_deliver(func, out, &z, z->dtype, 0);
    }
    nd_status st = nd_zeros(&z, a->dtype, a->ndim, a->shape, a->device);
    if (st) return nd__err_prefix(st, func);
    return nd__out_deliver(func, out, &z, z->dtype, 0);
}

nd_status nd_angle(nd_array **out, const nd_array *a, bool deg)
{
    ND_PROF_OP("angle", out, a);
    const char *func = "nd_angle";
    ND_CHECK_PTR(func, out, "out");
    ND_CHECK_PTR(func, a, "a");
    nd_array *re = NULL, *im = NULL, *r = NULL, *x = NULL;
    nd_status st;
    if (nd__is_complex(a->dtype)) {
        if ((st = nd__cpx_part(&re, a, 0)) || (st = nd__cpx_part(&im, a, 1))) goto done;
    } else {
        /* np.angle of a real x is arctan2(0, x), whose float dtype is
         * arctan2's (int8/uint8 -> float16, 16-bit -> float32, wider ->
         * float64); bool gives float64 (the Python 0 makes it int64 first) */
        nd_dtype ft = nd__is_float(a->dtype) ? a->dtype : a->dtype == ND_BOOL ? ND_FLOAT64 : nd__float_for(a->dtype);
        if ((st = nd__as_dtype(&re, a, ft)) || (st = nd_zeros(&im, ft, a->ndim, a->shape, a->device))) goto done;
    }
    if ((st = nd_arctan2(deg ? &x : &r, im, re))) goto done;
    if (deg && (st = nd_rad2deg(&r, x))) goto done;
    st = nd__out_deliver(func, out, &r, r->dtype, 0);
done:
    if (st && st != ND_ERR_NOMEM) st = nd__err_prefix(st, func);
    nd_release(re), nd_release(im), nd_release(r), nd_release(x);
    return st;
}

/* ------------------------------------------------------------------ */
/* divmod, modf, frexp                                                 */
/* ------------------------------------------------------------------ */
nd_status nd_divmod(nd_array **q, nd_array **r, const nd_array *a, const nd_array *b)
{
    ND_PROF_OP("divmod", q, a, b);
    const char *func = "nd_divmod";
    ND_CHECK_PTR(func, q, "q");
    ND_CHECK_PTR(func, r, "r");
    if (q == r) return nd__err(ND_ERR_INVALID, func, "'q' and 'r' are the same out-pointer");
    nd_array *tq = NULL, *tr = NULL;
    nd_status st = nd__ew_binary_op(func, &tq, ND_BINARY_FLOOR_DIVIDE, a, b);
    if (st == ND_OK) st = nd__ew_binary_op(func, &tr, ND_BINARY_REMAINDER, a, b);
    if (st == ND_OK) st = check_out(func, q, tq);
    if (st == ND_OK) st = check_out(func, r, tr);
    if (st == ND_OK) st = nd__out_deliver(func, q, &tq, tq->dtype, 0);
    if (st == ND_OK) st = nd__out_deliver(func, r, &tr, tr->dtype, 0);
    nd_release(tq);
    nd_release(tr);
    return st;
}

/* a cast to the float dtype NumPy's float ufuncs loop in (its own dtype
 * for floats, nd__float_for for bool and integers). */
static nd_status as_float(const char *func, const nd_array *a, nd_array **x)
{
    ND_CHECK_PTR(func, a, "a");
    if (!nd__dtype_valid(a->dtype)) return nd__err(ND_ERR_DTYPE, func, "invalid dtype %d", (int)a->dtype);
    nd_status st = nd__as_dtype(x, a, nd__float_for(a->dtype));
    return st ? nd__err_prefix(st, func) : ND_OK;
}

nd_status nd_modf(nd_array **frac, nd_array **intpart, const nd_array *a)
{
    ND_PROF_OP("modf", frac, a);
    const char *func = "nd_modf";
    ND_CHECK_PTR(func, frac, "frac");
    ND_CHECK_PTR(func, intpart, "intpart");
    if (frac == intpart) return nd__err(ND_ERR_INVALID, func, "'frac' and 'intpart' are the same out-pointer");
    nd_array *x = NULL, *ip = NULL, *fr = NULL, *inf = NULL, *z = NULL, *res = NULL;
    nd_status st = as_float(func, a, &x);
    /* C's modf: intpart = trunc(x); frac = fmod(x, 1) (exact, signed like
     * x: -0 for negative integers), +-0 for +-inf */
    if (st == ND_OK) st = nd__ew_unary_op(func, &ip, ND_UNARY_TRUNC, x);
    if (st == ND_OK) st = scalar_op(func, &fr, ND_BINARY_FMOD, x, nd_scalar_float(1.0), false);
    if (st == ND_OK) st = nd__ew_unary_op(func, &inf, ND_UNARY_ISINF, x);
    if (st == ND_OK) st = scalar_op(func, &z, ND_BINARY_COPYSIGN, x, nd_scalar_float(0.0), true);
    if (st == ND_OK && (st = nd_where(&res, inf, z, fr))) st = nd__err_prefix(st, func);
    if (st == ND_OK) st = check_out(func, frac, res);
    if (st == ND_OK) st = check_out(func, intpart, ip);
    if (st == ND_OK) st = nd__out_deliver(func, frac, &res, res->dtype, 0);
    if (st == ND_OK) st = nd__out_deliver(func, intpart, &ip, ip->dtype, 0);
    nd_release(x);
    nd_release(ip);
    nd_release(fr);
    nd_release(inf);
    nd_release(z);
    nd_release(res);
    return st;
}

nd_status nd_frexp(nd_array **mantissa, nd_array **exponent, const nd_array *a)
{
    ND_PROF_OP("frexp", mantissa, a);
    const char *func = "nd_frexp";
    ND_CHECK_PTR(func, mantissa, "mantissa");
    ND_CHECK_PTR(func, exponent, "exponent");
    if ((void *)mantissa == (void *)exponent)
        return nd__err(ND_ERR_INVALID, func, "'mantissa' and 'exponent' are the same out-pointer");
    enum { X, XD, L, FIN, L1, ZERO, E, E32, NE, M, AM, GE1, FIN2, HI, LT, NZ, LO, HI32, LO32, ADJ, E2, NE2, M2, NT };
    nd_array *t[NT] = {NULL};
    nd_status st = as_float(func, a, &t[X]);
    /* e0 = floor(log2|x|) + 1 in float64 (x exact there), 0 for 0, inf and
     * NaN; then one correction either way makes 0.5 <= |x| * 2^-e < 1
     * exact: every step (ldexp by an integer, compares) is exact. */
    if (st == ND_OK && (st = nd__as_dtype(&t[XD], t[X], ND_FLOAT64))) st = nd__err_prefix(st, func);
    if (st == ND_OK) st = nd__ew_unary_op(func, &t[L], ND_UNARY_ABS, t[XD]);
    if (st == ND_OK) st = nd__ew_unary_op(func, &t[L], ND_UNARY_LOG2, t[L]);
    if (st == ND_OK) st = nd__ew_unary_op(func, &t[L], ND_UNARY_FLOOR, t[L]);
    if (st == ND_OK) st = nd__ew_unary_op(func, &t[FIN], ND_UNARY_ISFINITE, t[L]);
    if (st == ND_OK) st = scalar_op(func, &t[L1], ND_BINARY_ADD, t[L], nd_scalar_float(1.0), false);
    if (st == ND_OK && (st = nd__scalar_array(&t[ZERO], nd_scalar_float(0.0), ND_FLOAT64, t[X]->device)))
        st = nd__err_prefix(st, func);
    if (st == ND_OK && (st = nd_where(&t[E], t[FIN], t[L1], t[ZERO]))) st = nd__err_prefix(st, func);
    if (st == ND_OK && (st = nd__as_dtype(&t[E32], t[E], ND_INT32))) st = nd__err_prefix(st, func);
    if (st == ND_OK) st = nd__ew_unary_op(func, &t[NE], ND_UNARY_NEG, t[E32]);
    if (st == ND_OK) st = nd__ew_binary_op(func, &t[M], ND_BINARY_LDEXP, t[X], t[NE]);
    if (st == ND_OK) st = nd__ew_unary_op(func, &t[AM], ND_UNARY_ABS, t[M]);
    if (st == ND_OK) st = scalar_op(func, &t[GE1], ND_BINARY_GREATER_EQUAL, t[AM], nd_scalar_float(1.0), false);
    if (st == ND_OK) st = nd__ew_unary_op(func, &t[FIN2], ND_UNARY_ISFINITE, t[AM]);
    if (st == ND_OK) st = nd__ew_binary_op(func, &t[HI], ND_BINARY_LOGICAL_AND, t[GE1], t[FIN2]);
    if (st == ND_OK) st = scalar_op(func, &t[LT], ND_BINARY_LESS, t[AM], nd_scalar_float(0.5), false);
    if (st == ND_OK) st = scalar_op(func, &t[NZ], ND_BINARY_NOT_EQUAL, t[AM], nd_scalar_float(0.0), false);
    if (st == ND_OK) st = nd__ew_binary_op(func, &t[LO], ND_BINARY_LOGICAL_AND, t[LT], t[NZ]);
    if (st == ND_OK && (st = nd__as_dtype(&t[HI32], t[HI], ND_INT32))) st = nd__err_prefix(st, func);
    if (st == ND_OK && (st = nd__as_dtype(&t[LO32], t[LO], ND_INT32))) st = nd__err_prefix(st, func);
    if (st == ND_OK) st = nd__ew_binary_op(func, &t[ADJ], ND_BINARY_SUBTRACT, t[HI32], t[LO32]);
    if (st == ND_OK) st = nd__ew_binary_op(func, &t[E2], ND_BINARY_ADD, t[E32], t[ADJ]);
    if (st == ND_OK) st = nd__ew_unary_op(func, &t[NE2], ND_UNARY_NEG, t[E2]);
    if (st == ND_OK) st = nd__ew_binary_op(func, &t[M2], ND_BINARY_LDEXP, t[X], t[NE2]);
    if (st == ND_OK) st = check_out(func, mantissa, t[M2]);
    if (st == ND_OK) st = check_out(func, exponent, t[E2]);
    if (st == ND_OK) st = nd__out_deliver(func, mantissa, &t[M2], t[M2]->dtype, 0);
    if (st == ND_OK) st = nd__out_deliver(func, exponent, &t[E2], t[E2]->dtype, 0);
    for (int k = 0; k < NT; k++) nd_release(t[k]);
    return st;
}

/* ------------------------------------------------------------------ */
/* round                                                               */
/* ------------------------------------------------------------------ */
/* NumPy's power_of_ten (multiarray/calculation.c), which np.round uses;
 * stops multiplying once the factor is inf. */
static double power_of_ten(int n)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    if (n < 9) return p10[n];
    double r = 1e9;
    while (n-- > 9 && r <= 1.7976931348623157e308) r *= 10.;
    return r;
}

nd_status nd_round(nd_array **out, const nd_array *a, int decimals)
{
    ND_PROF_OP("round", out, a);
    const char *func = "nd_round";
    ND_CHECK_PTR(func, out, "out");
    ND_CHECK_PTR(func, a, "a");
    if (!nd__dtype_valid(a->dtype)) return nd__err(ND_ERR_DTYPE, func, "invalid dtype %d", (int)a->dtype);
    nd_array *t = NULL, *u = NULL;
    nd_status st;
    if (a->dtype == ND_BOOL) {
        /* NumPy: rint for decimals 0 (float16), a casting error otherwise */
        if (decimals != 0)
            return nd__err(ND_ERR_DTYPE, func, "Cannot cast ufunc '%s' output from dtype('float64') to dtype('bool')",
                           decimals > 0 ? "multiply" : "divide");
        return nd__ew_unary_op(func, out, ND_UNARY_RINT, a);
    }
    if (nd__no_complex(func, a, "a")) return ND_ERR_DTYPE; /* no complex loops yet */
    bool isint = !nd__is_float(a->dtype);
    if (isint && decimals >= 0) {
        if ((st = nd_copy(&t, a))) return nd__err_prefix(st, func);
        return nd__out_deliver(func, out, &t, t->dtype, 0);
    }
    /* decimals >= 0: rint(a * f) / f, else rint(a / f) * f, f = 10^|d| a
     * weak float (in a's float dtype; integers compute in float64 and
     * are cast back, as NumPy does) */
    int n = decimals >= 0 ? decimals : (decimals < -INT32_MAX ? INT32_MAX : -decimals);
    nd_scalar f = nd_scalar_float(power_of_ten(n));
    st = scalar_op(func, &t, decimals >= 0 ? ND_BINARY_MULTIPLY : ND_BINARY_DIVIDE, a, f, false);
    if (st == ND_OK) st = nd__ew_unary_op(func, &t, ND_UNARY_RINT, t);
    if (st == ND_OK) st = scalar_op(func, &u, decimals >= 0 ? ND_BINARY_DIVIDE : ND_BINARY_MULTIPLY, t, f, false);
    drop(&t);
    if (st == ND_OK && isint && (st = nd__as_dtype(&t, u, a->dtype))) st = nd__err_prefix(st, func);
    if (st == ND_OK) st = nd__out_deliver(func, out, isint ? &t : &u, (isint ? t : u)->dtype, 0);
    nd_release(t);
    nd_release(u);
    return st;
}

/* ------------------------------------------------------------------ */
/* isclose, allclose, array_equal                                      */
/* ------------------------------------------------------------------ */
static nd_status isclose_impl(const char *func, nd_array **out, const nd_array *a, const nd_array *b, double rtol,
                              double atol, bool equal_nan)
{
    ND_CHECK_PTR(func, out, "out");
    ND_CHECK_PTR(func, a, "a");
    ND_CHECK_PTR(func, b, "b");
    if (!nd__dtype_valid(a->dtype) || !nd__dtype_valid(b->dtype))
        return nd__err(ND_ERR_DTYPE, func, "invalid dtype");
    enum { Y, D, AY, TOL, LE, FIN, R1, EQ, R2, NA, NB, NN, NT };
    nd_array *t[NT] = {NULL};
    /* NumPy 2.4: y = b as result_type(b, 1.0); result = (|a - y| <= atol +
     * rtol * |y|) & isfinite(y) | (a == y), | isnan(a) & isnan(y) */
    nd_status st = nd__as_dtype(&t[Y], b, nd__promote_weak(b->dtype, ND_SCALAR_FLOAT));
    if (st) return nd__err_prefix(st, func);
    if ((st = nd__ew_binary_op(func, &t[D], ND_BINARY_SUBTRACT, a, t[Y]))) goto done;
    if ((st = nd__ew_unary_op(func, &t[D], ND_UNARY_ABS, t[D]))) goto done;
    if ((st = nd__ew_unary_op(func, &t[AY], ND_UNARY_ABS, t[Y]))) goto done;
    if ((st = scalar_op(func, &t[TOL], ND_BINARY_MULTIPLY, t[AY], nd_scalar_float(rtol), true))) goto done;
    if ((st = scalar_op(func, &t[TOL], ND_BINARY_ADD, t[TOL], nd_scalar_float(atol), true))) goto done;
    if ((st = nd__ew_binary_op(func, &t[LE], ND_BINARY_LESS_EQUAL, t[D], t[TOL]))) goto done;
    if ((st = nd__ew_unary_op(func, &t[FIN], ND_UNARY_ISFINITE, t[Y]))) goto done;
    if ((st = nd__ew_binary_op(func, &t[R1], ND_BINARY_LOGICAL_AND, t[LE], t[FIN]))) goto done;
    if ((st = nd__ew_binary_op(func, &t[EQ], ND_BINARY_EQUAL, a, t[Y]))) goto done;
    if (!equal_nan) {
        st = nd__ew_binary_op(func, out, ND_BINARY_LOGICAL_OR, t[R1], t[EQ]);
        goto done;
    }
    if ((st = nd__ew_binary_op(func, &t[R2], ND_BINARY_LOGICAL_OR, t[R1], t[EQ]))) goto done;
    if ((st = nd__ew_unary_op(func, &t[NA], ND_UNARY_ISNAN, a))) goto done;
    if ((st = nd__ew_unary_op(func, &t[NB], ND_UNARY_ISNAN, t[Y]))) goto done;
    if ((st = nd__ew_binary_op(func, &t[NN], ND_BINARY_LOGICAL_AND, t[NA], t[NB]))) goto done;
    st = nd__ew_binary_op(func, out, ND_BINARY_LOGICAL_OR, t[R2], t[NN]);
done:
    for (int k = 0; k < NT; k++) nd_release(t[k]);
    return st;
}

nd_status nd_isclose(nd_array **out, const nd_array *a, const nd_array *b, double rtol, double atol, bool equal_nan)
{
    ND_PROF_OP("isclose", out, a, b);
    return isclose_impl("nd_isclose", out, a, b, rtol, atol, equal_nan);
}

/* *result = all(m) for a bool array m (released). */
static nd_status all_to_host(const char *func, nd_array *m, bool *result)
{
    nd_array *r = NULL;
    nd_status st = nd_all(&r, m, 0, NULL, false);
    nd_release(m);
    if (st) return nd__err_prefix(st, func);
    uint8_t v = 0;
    st = nd_copy_to_host(&v, r, 1);
    nd_release(r);
    if (st) return nd__err_prefix(st, func);
    *result = v != 0;
    return ND_OK;
}

nd_status nd_allclose(bool *result, const nd_array *a, const nd_array *b, double rtol, double atol, bool equal_nan)
{
    ND_PROF_OP("allclose", NULL, a, b);
    const char *func = "nd_allclose";
    ND_CHECK_PTR(func, result, "result");
    nd_array *m = NULL;
    nd_status st = isclose_impl(func, &m, a, b, rtol, atol, equal_nan);
    if (st) return st;
    return all_to_host(func, m, result);
}

nd_status nd_array_equal(bool *result, const nd_array *a, const nd_array *b, bool equal_nan)
{
    ND_PROF_OP("array_equal", NULL, a, b);
    const char *func = "nd_array_equal";
    ND_CHECK_PTR(func, result, "result");
    ND_CHECK_PTR(func, a, "a");
    ND_CHECK_PTR(func, b, "b");
    nd_status st = nd__ew_same_device(func, a, "a", b, "b");
    if (st) return st;
    bool same = a->ndim == b->ndim;
    for (int i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
    if (!same) { /* NumPy: different shapes are simply not equal */
        *result = false;
        return ND_OK;
    }
    nd_array *eq = NULL, *na = NULL, *nb = NULL, *nn = NULL, *m = NULL;
    st = nd__ew_binary_op(func, &eq, ND_BINARY_EQUAL, a, b);
    if (st == ND_OK && equal_nan) {
        if ((st = nd__ew_unary_op(func, &na, ND_UNARY_ISNAN, a)) == ND_OK &&
            (st = nd__ew_unary_op(func, &nb, ND_UNARY_ISNAN, b)) == ND_OK &&
            (st = nd__ew_binary_op(func, &nn, ND_BINARY_LOGICAL_AND, na, nb)) == ND_OK)
            st = nd__ew_binary_op(func, &m, ND_BINARY_LOGICAL_OR, eq, nn);
    } else if (st == ND_OK) {
        m = eq;
        eq = NULL;
    }
    nd_release(eq);
    nd_release(na);
    nd_release(nb);
    nd_release(nn);
    if (st) {
        nd_release(m);
        return st;
    }
    return all_to_host(func, m, result);
}
