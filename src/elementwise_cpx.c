/* Complex elementwise pieces the op table does not hold (issue 17): the
 * complex elementwise ops themselves are native loops ('C' in the kinds
 * column of ND_UNARY_OPS / ND_BINARY_OPS, bodies in src/ops_cpx.h and
 * src/ops_cpx_math.h). What is here:
 *
 *   the part views  re(z), im(z): shape S, twice the strides, the imaginary
 *                   part one float further (NumPy's .real / .imag), used
 *                   by nd_real/nd_imag/nd_angle and the complex reductions;
 *   abs             |z| = hypot(re, im) into the real dtype (the one
 *                   complex op whose result dtype is not the loop's: one
 *                   pass of the real hypot loop over the part views,
 *                   which has hypot's overflow-free scaling and its
 *                   special values: inf if either part is inf, even with
 *                   a NaN in the other). */
#include "elementwise.h"
#include "out.h"

/* The parts of complex z: which = 0 real, 1 imaginary (a view of z). */
nd_status nd__cpx_part(nd_array **v, const nd_array *z, int which)
{
    int64_t st[ND_MAX_DIMS];
    for (int d = 0; d < z->ndim; d++) st[d] = 2 * z->strides[d];
    nd_dtype rt = nd__real_of(z->dtype);
    return nd__view(v, z, rt, z->ndim, z->shape, st, z->offset + (which ? (int64_t)nd__itemsize(rt) : 0));
}

nd_status nd__cpx_abs(const char *func, nd_array **out, const nd_array *a)
{
    const nd_dtype rt = nd__real_of(a->dtype);
    nd_out t;
    nd_status st = nd__out_begin(&t, func, out, rt, a->ndim, a->shape, a->device);
    if (st) return st;
    nd__out_keep_order(&t, 1, &a);
    nd_array *re = NULL, *im = NULL;
    if ((st = nd__out_target(&t, rt, ND_OUT_EXACT_DTYPE, 1, &a))) goto done;
    if ((st = nd__cpx_part(&re, a, 0)) || (st = nd__cpx_part(&im, a, 1))) goto done;
    nd_array *d = t.dst;
    if ((st = nd_binary(&d, ND_BINARY_HYPOT, re, im))) st = nd__err_prefix(st, func);
done:
    nd_release(re), nd_release(im);
    return nd__out_end(&t, st);
}
