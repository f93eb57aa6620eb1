/* The part views of complex arrays: re(z), im(z) have z's shape,
 * twice its strides, the imaginary part one float further (NumPy's .real /
 * .imag); nd_real/nd_imag/nd_angle, the complex reductions and scans use
 * them. The complex elementwise ops themselves are native loops ('C' or
 * 'a' in the kinds column of ND_UNARY_OPS / ND_BINARY_OPS, bodies in
 * src/shared/ops_cpx.h and src/shared/ops_cpx_math.h). */
#include "elementwise/elementwise.h"

/* The parts of complex z: which = 0 real, 1 imaginary (a view of z). */
nd_status nd__cpx_part(nd_array **v, const nd_array *z, int which)
{
    int64_t st[ND_MAX_DIMS];
    for (int d = 0; d < z->ndim; d++) st[d] = 2 * z->strides[d];
    nd_dtype rt = nd__real_of(z->dtype);
    return nd__view(v, z, rt, z->ndim, z->shape, st, z->offset + (which ? (int64_t)nd__itemsize(rt) : 0));
}
