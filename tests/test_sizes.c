/* Result shapes whose element or byte count passes 2^63, built from valid
 * extents and small or stride-0 (broadcast) inputs, for every op family on
 * every device: each must fail with ND_ERR_INVALID ("array is too big", as
 * nd_empty and NumPy answer the same shape) or ND_ERR_NOMEM, leave its
 * outputs untouched, and never return an array whose size wrapped.
 *
 * Each case is written once over a scale: with big = 0 its extents are small
 * and the call must succeed with the expected element count (so a case that
 * fails for an unrelated reason, a wrong argument, cannot pass vacuously);
 * with big = 1 the same call gets the huge extents. */
#include "test_util.h"
#include "creation_util.h"

#define P2(p) (INT64_C(1) << (p))
/* The huge extent 2^p, or a small one (2 + p % 3) for the sanity run. */
#define E(p) (big ? P2(p) : (int64_t)(2 + (p) % 3))

/* A stride-0 view of the given shape over one element of value 3. */
static nd_array *bview(nd_device d, nd_dtype t, int ndim, const int64_t *shape)
{
    int64_t ones[ND_MAX_DIMS];
    for (int i = 0; i < ndim; i++) ones[i] = 1;
    nd_array *one = NULL, *v = NULL;
    ND_OK_OR_FAIL(nd_full(&one, t, ndim, ones, nd_scalar_int(3), d));
    ND_OK_OR_FAIL(nd_broadcast_to(&v, one, ndim, shape));
    nd_release(one);
    return v;
}
#define BV(t, ...) bview(d, t, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__})

/* A small dense array with nonzero values (3, 4, 5, ...). */
static nd_array *dense(nd_device d, nd_dtype t, int ndim, const int64_t *shape)
{
    nd_array *a = NULL, *r = NULL;
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    bool cpx = t == ND_COMPLEX64 || t == ND_COMPLEX128;
    ND_OK_OR_FAIL(nd_arange(&a, cpx ? ND_FLOAT64 : t, 3, 3 + (double)n, 1, d));
    if (cpx) {
        nd_array *c = NULL;
        ND_OK_OR_FAIL(nd_astype(&c, a, t));
        nd_release(a);
        a = c;
    }
    ND_OK_OR_FAIL(nd_reshape(&r, a, ndim, shape));
    nd_release(a);
    return r;
}
#define DN(t, ...) dense(d, t, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__})

/* A case: builds its inputs on d at the given scale, calls the op with
 * o[0..] (all NULL on entry), releases its inputs, returns the status.
 * *want is the element count of o[0] expected at the small scale (it is
 * not computed at the big one, where the product may not fit in int64). */
typedef nd_status (*size_case)(nd_device d, int big, nd_array **o, int64_t *want);

#define REL(...)                                                              \
    do {                                                                      \
        nd_array *rel_[] = {__VA_ARGS__};                                     \
        for (size_t i_ = 0; i_ < sizeof rel_ / sizeof rel_[0]; i_++) nd_release(rel_[i_]); \
    } while (0)

/* ---- elementwise ---------------------------------------------------- */
static nd_status c_add_int8(nd_device d, int big, nd_array **o, int64_t *want)
{ /* (4,1) + (1,2^62) int8: 2^64 elements */
    nd_array *a = DN(ND_INT8, 4, 1), *b = BV(ND_INT8, 1, E(62));
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_binary(o, ND_BINARY_ADD, a, b);
    REL(a, b);
    return st;
}
static nd_status c_add_f32(nd_device d, int big, nd_array **o, int64_t *want)
{ /* (4,1) + (1,2^60) float32: 2^62 elements, 2^64 bytes */
    nd_array *a = DN(ND_FLOAT32, 4, 1), *b = BV(ND_FLOAT32, 1, E(60));
    *want = big ? -1 : 4 * E(60);
    nd_status st = nd_binary(o, ND_BINARY_ADD, a, b);
    REL(a, b);
    return st;
}
static nd_status c_exp_int8(nd_device d, int big, nd_array **o, int64_t *want)
{ /* exp of 2^62 int8 is float16: 2^63 bytes */
    nd_array *a = BV(ND_INT8, E(62));
    *want = big ? -1 : E(62);
    nd_status st = nd_unary(o, ND_UNARY_EXP, a);
    REL(a);
    return st;
}
static nd_status c_mul_scalar(nd_device d, int big, nd_array **o, int64_t *want)
{ /* int8 * 1.5 is float64 (NEP 50): 2^62 * 8 bytes */
    nd_array *a = BV(ND_INT8, E(62));
    *want = big ? -1 : E(62);
    nd_status st = nd_binary_scalar(o, ND_BINARY_MULTIPLY, a, nd_scalar_float(1.5));
    REL(a);
    return st;
}
static nd_status c_where(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *c = BV(ND_BOOL, 4, 1), *x = BV(ND_INT8, 1, E(62)), *y = DN(ND_INT8, 1);
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_where(o, c, x, y);
    REL(c, x, y);
    return st;
}
static nd_status c_clip(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_INT8, 4, 1), *lo = BV(ND_INT8, 1, E(62));
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_clip(o, a, lo, NULL);
    REL(a, lo);
    return st;
}
static nd_status c_divmod(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_INT8, 4, 1), *b = BV(ND_INT8, 1, E(62));
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_divmod(&o[0], &o[1], a, b);
    REL(a, b);
    return st;
}
static nd_status c_frexp(nd_device d, int big, nd_array **o, int64_t *want)
{ /* the mantissa fits (2^62 bytes of float16), the int32 exponent does not */
    nd_array *a = BV(ND_FLOAT16, E(61));
    *want = big ? -1 : E(61);
    nd_status st = nd_frexp(&o[0], &o[1], a);
    REL(a);
    return st;
}
static nd_status c_isclose(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_FLOAT32, 4, 1), *b = BV(ND_FLOAT32, 1, E(60));
    *want = big ? -1 : 4 * E(60);
    nd_status st = nd_isclose(o, a, b, 1e-5, 1e-8, false);
    REL(a, b);
    return st;
}
static nd_status c_astype(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_INT8, E(62));
    *want = big ? -1 : E(62);
    nd_status st = nd_astype(o, a, ND_FLOAT64);
    REL(a);
    return st;
}

/* ---- creation and random -------------------------------------------- */
static nd_status c_eye(nd_device d, int big, nd_array **o, int64_t *want)
{
    *want = big ? -1 : E(32) * E(32);
    return nd_eye(o, ND_INT8, E(32), E(32), 0, d);
}
static nd_status c_full(nd_device d, int big, nd_array **o, int64_t *want)
{
    *want = big ? -1 : E(32) * E(32);
    return nd_full(o, ND_INT8, 2, (const int64_t[]){E(32), E(32)}, nd_scalar_int(1), d);
}
static nd_status c_fftfreq(nd_device d, int big, nd_array **o, int64_t *want)
{
    *want = big ? -1 : E(61);
    return nd_fftfreq(o, E(61), 1.0, ND_FLOAT64, d);
}
static nd_status c_random_normal(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_rng *rng = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&rng, 7));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_random_normal(o, rng, ND_FLOAT32, 2, (const int64_t[]){E(32), E(32)}, 0, 1, d);
    nd_rng_destroy(rng);
    return st;
}
static nd_status c_random_integers(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_rng *rng = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&rng, 7));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_random_integers(o, rng, ND_INT8, 2, (const int64_t[]){E(32), E(32)}, 0, 5, d);
    nd_rng_destroy(rng);
    return st;
}
static nd_status c_permutation(nd_device d, int big, nd_array **o, int64_t *want)
{ /* int64 result: 2^61 * 8 = 2^64 bytes */
    nd_rng *rng = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&rng, 7));
    *want = big ? -1 : E(61);
    nd_status st = nd_random_permutation(o, rng, E(61), d);
    nd_rng_destroy(rng);
    return st;
}
static nd_status c_random_choice(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_rng *rng = NULL;
    ND_OK_OR_FAIL(nd_rng_create(&rng, 7));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_random_choice(o, rng, NULL, 5, 2, (const int64_t[]){E(32), E(32)}, true, NULL, d);
    nd_rng_destroy(rng);
    return st;
}

/* ---- indexing, sorting, scans, reductions --------------------------- */
static nd_status c_take(nd_device d, int big, nd_array **o, int64_t *want)
{ /* float32 (4,5) taken along axis 1 by 2^62 indices */
    nd_array *a = DN(ND_FLOAT32, 4, 5), *ix = BV(ND_INT8, E(62));
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_take(o, a, ix, 1, ND_TAKE_WRAP);
    REL(a, ix);
    return st;
}
static nd_status c_take_along_axis(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_FLOAT32, 1, 5), *ix = BV(ND_INT8, E(62), 1);
    *want = big ? -1 : E(62);
    nd_status st = nd_take_along_axis(o, a, ix, 1);
    REL(a, ix);
    return st;
}
static nd_status c_argsort(nd_device d, int big, nd_array **o, int64_t *want)
{ /* int64 indices of 2^61 elements: 2^64 bytes */
    nd_array *a = BV(ND_INT8, E(61));
    *want = big ? -1 : E(61);
    nd_status st = nd_argsort(o, a, -1, ND_SORT_STABLE);
    REL(a);
    return st;
}
static nd_status c_argpartition(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_INT8, E(61));
    *want = big ? -1 : E(61);
    nd_status st = nd_argpartition(o, a, 0, -1);
    REL(a);
    return st;
}
static nd_status c_searchsorted(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *s = DN(ND_INT8, 4), *v = BV(ND_INT8, E(61));
    *want = big ? -1 : E(61);
    nd_status st = nd_searchsorted(o, s, v, ND_SIDE_LEFT);
    REL(s, v);
    return st;
}
static nd_status c_cumsum(nd_device d, int big, nd_array **o, int64_t *want)
{ /* bool cumsum is int64: 2^61 * 8 bytes */
    nd_array *a = BV(ND_BOOL, E(61));
    *want = big ? -1 : E(61);
    nd_status st = nd_cumsum(o, a, 0);
    REL(a);
    return st;
}
static nd_status c_sum_axis(nd_device d, int big, nd_array **o, int64_t *want)
{ /* int8 summed over axis 0 is int64: (2^61,) * 8 bytes */
    nd_array *a = BV(ND_INT8, 2, E(61));
    *want = big ? -1 : E(61);
    nd_status st = nd_reduce(o, ND_REDUCE_SUM, a, 1, (const int[]){0}, false);
    REL(a);
    return st;
}

/* ---- manipulation --------------------------------------------------- */
static nd_status c_broadcast_arrays(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_INT8, 4, 1), *b = BV(ND_INT8, 1, E(62));
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_broadcast_arrays(o, 2, (const nd_array *const[]){a, b});
    REL(a, b);
    return st;
}
static nd_status c_broadcast_to(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_INT8, 4, 1);
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_broadcast_to(o, a, 2, (const int64_t[]){4, E(62)});
    REL(a);
    return st;
}
static nd_status c_concatenate(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_INT8, E(62)), *b = BV(ND_INT8, E(62));
    *want = big ? -1 : 2 * E(62);
    nd_status st = nd_concatenate(o, 2, (const nd_array *const[]){a, b}, 0);
    REL(a, b);
    return st;
}
static nd_status c_stack(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_INT8, E(62));
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_stack(o, 4, (const nd_array *const[]){a, a, a, a}, 0);
    REL(a);
    return st;
}
static nd_status c_tile(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_INT8, E(62));
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_tile(o, a, 1, (const int64_t[]){4});
    REL(a);
    return st;
}
static nd_status c_repeat(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_INT8, E(62));
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_repeat(o, a, 4, 0);
    REL(a);
    return st;
}
static nd_status c_pad(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_INT8, E(62));
    *want = big ? -1 : E(62) + 2 * E(62);
    nd_status st = nd_pad(o, a, 1, (const int64_t[]){E(62), E(62)}, ND_PAD_CONSTANT, nd_scalar_int(0));
    REL(a);
    return st;
}
static nd_status c_diag(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_INT8, E(32));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_diag(o, a, 0);
    REL(a);
    return st;
}
static nd_status c_meshgrid(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_INT8, E(32)), *b = BV(ND_INT8, E(32));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_meshgrid(o, 2, (const nd_array *const[]){a, b}, ND_MESHGRID_IJ, true);
    REL(a, b);
    return st;
}
static nd_status c_outer(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_INT8, E(32)), *b = BV(ND_INT8, E(32));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_outer(o, a, b);
    REL(a, b);
    return st;
}
static nd_status c_kron(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_INT8, E(32)), *b = BV(ND_INT8, E(32));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_kron(o, a, b);
    REL(a, b);
    return st;
}
static nd_status c_tensordot(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_FLOAT32, E(32), 1), *b = BV(ND_FLOAT32, 1, E(32));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_tensordot(o, a, b, 1, NULL, NULL);
    REL(a, b);
    return st;
}
static nd_status c_einsum(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_FLOAT32, E(32)), *b = BV(ND_FLOAT32, E(32));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_einsum(o, "i,j->ij", 2, (const nd_array *const[]){a, b});
    REL(a, b);
    return st;
}

/* ---- linear algebra ------------------------------------------------- */
static nd_status c_matmul(nd_device d, int big, nd_array **o, int64_t *want)
{ /* (2^32,1) @ (1,2^32) */
    nd_array *a = BV(ND_FLOAT32, E(32), 1), *b = BV(ND_FLOAT32, 1, E(32));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_matmul(o, a, b);
    REL(a, b);
    return st;
}
static nd_status c_matmul_batch(nd_device d, int big, nd_array **o, int64_t *want)
{ /* batch dimensions (2^32,1) and (1,2^32) broadcast to (2^32,2^32) */
    nd_array *a = BV(ND_FLOAT32, E(32), 1, 2, 2), *b = BV(ND_FLOAT32, 1, E(32), 2, 2);
    *want = big ? -1 : E(32) * E(32) * 4;
    nd_status st = nd_matmul(o, a, b);
    REL(a, b);
    return st;
}
static nd_status c_dot(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_FLOAT32, E(32), 1), *b = BV(ND_FLOAT32, 1, E(32));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_dot(o, a, b);
    REL(a, b);
    return st;
}
static nd_status c_multi_dot(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = BV(ND_FLOAT64, E(32), 1), *b = DN(ND_FLOAT64, 1, 1), *c = BV(ND_FLOAT64, 1, E(32));
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_linalg_multi_dot(o, 3, (const nd_array *const[]){a, b, c});
    REL(a, b, c);
    return st;
}
static nd_status c_vecdot(nd_device d, int big, nd_array **o, int64_t *want)
{ /* (32,1,3) . (1,2^58,3) float32 over the last axis: (32,2^58), 2^63 elements */
    nd_array *a = DN(ND_FLOAT32, 32, 1, 3), *b = BV(ND_FLOAT32, 1, E(58), 3);
    *want = big ? -1 : 32 * E(58);
    nd_status st = nd_linalg_vecdot(o, a, b, -1);
    REL(a, b);
    return st;
}
static nd_status c_cross(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_INT8, 4, 1, 3), *b = BV(ND_INT8, 1, E(61), 3);
    *want = big ? -1 : 4 * E(61) * 3;
    nd_status st = nd_linalg_cross(o, a, b, -1);
    REL(a, b);
    return st;
}
/* The dense nonsingular 2x2 [[3,4],[5,6]] broadcast to (batch..., 2, 2). */
static nd_array *bmat(nd_device d, nd_dtype t, int ndim, const int64_t *shape)
{
    nd_array *m = dense(d, t, 2, (const int64_t[]){2, 2}), *v = NULL;
    ND_OK_OR_FAIL(nd_broadcast_to(&v, m, ndim, shape));
    nd_release(m);
    return v;
}
#define BM(t, ...) bmat(d, t, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), (const int64_t[]){__VA_ARGS__})

static nd_status c_solve(nd_device d, int big, nd_array **o, int64_t *want)
{ /* batch dims (2^31,1) and (1,2^31) of 2x2 systems */
    nd_array *a = BM(ND_FLOAT64, E(31), 1, 2, 2), *b = BV(ND_FLOAT64, 1, E(31), 2, 1);
    *want = big ? -1 : E(31) * E(31) * 2;
    nd_status st = nd_linalg_solve(o, a, b);
    REL(a, b);
    return st;
}
static nd_status c_inv(nd_device d, int big, nd_array **o, int64_t *want)
{ /* int8 (2^60,2,2) inverts to float64: 2^62 * 8 bytes */
    nd_array *a = BM(ND_INT8, E(60), 2, 2);
    *want = big ? -1 : E(60) * 4;
    nd_status st = nd_linalg_inv(o, a);
    REL(a);
    return st;
}
static nd_status c_eig(nd_device d, int big, nd_array **o, int64_t *want)
{ /* complex128 eigenvalues of (2^60,2,2) int8 */
    nd_array *a = BM(ND_INT8, E(60), 2, 2);
    *want = big ? -1 : E(60) * 2;
    nd_status st = nd_linalg_eig(&o[0], &o[1], a);
    REL(a);
    return st;
}

/* ---- FFT ------------------------------------------------------------ */
static nd_status c_fft(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_COMPLEX128, 4, 3);
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_fft(o, a, E(62), -1, ND_FFT_BACKWARD);
    REL(a);
    return st;
}
static nd_status c_ifft(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_COMPLEX64, 4, 3);
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_ifft(o, a, E(62), -1, ND_FFT_BACKWARD);
    REL(a);
    return st;
}
static nd_status c_rfft(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_FLOAT64, 4, 3);
    *want = big ? -1 : 4 * (E(62) / 2 + 1);
    nd_status st = nd_rfft(o, a, E(62), -1, ND_FFT_BACKWARD);
    REL(a);
    return st;
}
static nd_status c_irfft(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_COMPLEX128, 4, 3);
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_irfft(o, a, E(62), -1, ND_FFT_BACKWARD);
    REL(a);
    return st;
}
static nd_status c_hfft(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_COMPLEX128, 4, 3);
    *want = big ? -1 : 4 * E(62);
    nd_status st = nd_hfft(o, a, E(62), -1, ND_FFT_BACKWARD);
    REL(a);
    return st;
}
static nd_status c_ihfft(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_FLOAT64, 4, 3);
    *want = big ? -1 : 4 * (E(62) / 2 + 1);
    nd_status st = nd_ihfft(o, a, E(62), -1, ND_FFT_BACKWARD);
    REL(a);
    return st;
}
static nd_status c_fftn(nd_device d, int big, nd_array **o, int64_t *want)
{
    nd_array *a = DN(ND_COMPLEX128, 4, 3);
    *want = big ? -1 : E(32) * E(32);
    nd_status st = nd_fftn(o, a, 2, (const int64_t[]){E(32), E(32)}, (const int[]){0, 1}, ND_FFT_BACKWARD);
    REL(a);
    return st;
}

/* ---- transfers -------------------------------------------------------- */
static nd_status c_to_device(nd_device d, int big, nd_array **o, int64_t *want)
{ /* a valid 2^62-byte view: the answer is ND_ERR_NOMEM, promptly */
    nd_array *a = BV(ND_INT8, E(62));
    *want = big ? -1 : E(62);
    nd_status st = nd_to_device(o, a, d);
    REL(a);
    return st;
}

#define CASES(X)                                                                                               \
    X(add_int8, 1, nd_binary) X(add_f32, 1, nd_binary) X(exp_int8, 1, nd_unary) X(mul_scalar, 1, nd_binary_scalar) X(where, 1, nd_where) X(clip, 1, nd_clip) X(divmod, 2, nd_divmod)           \
    X(frexp, 2, nd_frexp) X(isclose, 1, nd_isclose) X(astype, 1, nd_astype) X(eye, 1, nd_eye) X(full, 1, nd_full) X(fftfreq, 1, nd_fftfreq) X(random_normal, 1, nd_random_normal)              \
    X(random_integers, 1, nd_random_integers) X(permutation, 1, nd_random_permutation) X(random_choice, 1, nd_random_choice) X(take, 1, nd_take) X(take_along_axis, 1, nd_take_along_axis) X(argsort, 1, nd_argsort) \
    X(argpartition, 1, nd_argpartition) X(searchsorted, 1, nd_searchsorted) X(cumsum, 1, nd_cumsum) X(sum_axis, 1, nd_reduce) X(broadcast_arrays, 2, nd_broadcast_arrays)                    \
    X(broadcast_to, 1, nd_broadcast_to) X(concatenate, 1, nd_concatenate) X(stack, 1, nd_stack) X(tile, 1, nd_tile) X(repeat, 1, nd_repeat) X(pad, 1, nd_pad) X(diag, 1, nd_diag)              \
    X(meshgrid, 2, nd_meshgrid) X(outer, 1, nd_outer) X(kron, 1, nd_kron) X(tensordot, 1, nd_tensordot) X(einsum, 1, nd_einsum) X(matmul, 1, nd_matmul) X(matmul_batch, 1, nd_matmul)         \
    X(dot, 1, nd_dot) X(multi_dot, 1, nd_linalg_multi_dot) X(vecdot, 1, nd_linalg_vecdot) X(cross, 1, nd_linalg_cross) X(solve, 1, nd_linalg_solve) X(inv, 1, nd_linalg_inv) X(eig, 2, nd_linalg_eig) X(fft, 1, nd_fft) X(ifft, 1, nd_ifft)    \
    X(rfft, 1, nd_rfft) X(irfft, 1, nd_irfft) X(hfft, 1, nd_hfft) X(ihfft, 1, nd_ihfft) X(fftn, 1, nd_fftn) X(to_device, 1, nd_to_device)

static const struct {
    const char *name;
    size_case fn;
    int nout;
    const char *func; /* the public function the message must name first */
} cases[] = {
#define X(n, k, f) {#n, c_##n, k, #f},
    CASES(X)
#undef X
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static void run_case(int i, nd_device d, int big)
{
    nd_array *o[2] = {NULL, NULL};
    int64_t want = -1;
    /* Results that can exist but not here (2^62 bytes) must fail promptly
     * with ND_ERR_NOMEM: a 1 GiB cap on the device allocator answers before
     * the system allocator is asked (sanitizers abort on such requests). */
    if (big) ND_OK_OR_FAIL(nd_memory_set_limit(d, (size_t)1 << 30));
    nd_status st = cases[i].fn(d, big, o, &want);
    if (big) ND_OK_OR_FAIL(nd_memory_set_limit(d, 0));
    const char *dn = d.type == ND_DEVICE_CPU ? "cpu" : "cuda:0";
    if (!big) {
        ck_assert_msg(st == ND_OK, "%s on %s at the small scale: %s: %s", cases[i].name, dn, nd_status_name(st),
                      nd_last_error());
        ck_assert_msg(nd_size(o[0]) == want, "%s on %s: size %lld, want %lld", cases[i].name, dn,
                      (long long)nd_size(o[0]), (long long)want);
        REL(o[0], o[1]);
        return;
    }
    if (st == ND_OK) {
        long long sz = (long long)nd_size(o[0]);
        REL(o[0], o[1]);
        ck_abort_msg("%s on %s: ND_OK for a result that cannot exist (size %lld)", cases[i].name, dn, sz);
    }
    ck_assert_msg(st == ND_ERR_INVALID || st == ND_ERR_NOMEM, "%s on %s: %s (want ND_ERR_INVALID or ND_ERR_NOMEM): %s",
                  cases[i].name, dn, nd_status_name(st), nd_last_error());
    for (int k = 0; k < 2; k++) ck_assert_msg(o[k] == NULL, "%s on %s: output %d touched on failure", cases[i].name, dn, k);
    const char *msg = nd_last_error();
    if (getenv("ND_SIZES_VERBOSE")) fprintf(stderr, "%s %s: %s\n", cases[i].name, nd_status_name(st), msg);
    ck_assert_msg(strstr(msg, st == ND_ERR_INVALID ? "too big" : "memory") != NULL, "%s on %s: message '%s'",
                  cases[i].name, dn, msg);
    size_t fl = strlen(cases[i].func);
    ck_assert_msg(strncmp(msg, cases[i].func, fl) == 0 && msg[fl] == ':', "%s on %s: the message '%s' does not start with %s",
                  cases[i].name, dn, msg, cases[i].func);
}

/* One loop index = one case (Check reports which one failed). */
START_TEST(test_size_small)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int k = 0; k < nd; k++) run_case(_i, devs[k], 0);
}
END_TEST

START_TEST(test_size_wrap)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int k = 0; k < nd; k++) run_case(_i, devs[k], 1);
}
END_TEST

/* Views are arrays too: a view whose element or byte count overflows is
 * refused as nd_empty refuses the same shape, through every door that
 * makes one. */
START_TEST(test_size_views)
{
    nd_device devs[2];
    int nd = cv_devices(devs);
    for (int k = 0; k < nd; k++) {
        nd_device d = devs[k];
        nd_array *a = DN(ND_FLOAT32, 1), *v = NULL, *e = NULL;
        /* 2^62 float32: 2^64 bytes */
        ND_EXPECT_ERR(nd_broadcast_to(&v, a, 1, (const int64_t[]){P2(62)}), ND_ERR_INVALID, "too big");
        ck_assert_ptr_null(v);
        ND_EXPECT_ERR(nd_empty(&e, ND_FLOAT32, 1, (const int64_t[]){P2(62)}, d), ND_ERR_INVALID, "too big");
        /* the largest that fits: 2^60 float32 */
        ND_OK_OR_FAIL(nd_broadcast_to(&v, a, 1, (const int64_t[]){P2(60)}));
        ck_assert_int_eq(nd_size(v), P2(60));
        nd_array *r = NULL;
        ND_EXPECT_ERR(nd_reshape(&r, v, 2, (const int64_t[]){P2(30), P2(31)}), ND_ERR_SHAPE, "");
        ck_assert_ptr_null(r);
        /* an empty array reshaped to (0, 2^62, 2): the product is 0, the
         * shape still cannot exist (its nonzero extents overflow) */
        nd_array *z = NULL, *zr = NULL;
        ND_OK_OR_FAIL(nd_empty(&z, ND_INT8, 1, (const int64_t[]){0}, d));
        ND_EXPECT_ERR(nd_reshape(&zr, z, 3, (const int64_t[]){0, P2(62), 2}), ND_ERR_INVALID, "too big");
        ck_assert_ptr_null(zr);
        ND_OK_OR_FAIL(nd_reshape(&zr, z, 3, (const int64_t[]){0, P2(61), 2}));
        REL(z, zr);
        /* an empty array may have an axis of 2^63 - 1: the inverse real
         * transforms' default length 2 (m - 1) overflows there */
        nd_array *ze = NULL, *fo = NULL;
        ND_OK_OR_FAIL(nd_empty(&ze, ND_INT8, 2, (const int64_t[]){0, INT64_MAX}, d));
        ND_EXPECT_ERR(nd_irfft(&fo, ze, -1, 1, ND_FFT_BACKWARD), ND_ERR_INVALID, "too big");
        ND_EXPECT_ERR(nd_irfftn(&fo, ze, 1, NULL, (const int[]){1}, ND_FFT_BACKWARD), ND_ERR_INVALID, "too big");
        ck_assert_ptr_null(fo);
        REL(ze);
        nd_array *x = NULL;
        ND_OK_OR_FAIL(nd_expand_dims(&x, v, 0));
        ck_assert_int_eq(nd_size(x), P2(60));
        REL(a, v, x);
    }
}
END_TEST

Suite *suite_sizes(void);
Suite *suite_sizes(void)
{
    Suite *s = suite_create("sizes");
    TCase *tc = tcase_create("sizes");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_size_small, 0, NCASES);
    tcase_add_loop_test(tc, test_size_wrap, 0, NCASES);
    tcase_add_test(tc, test_size_views);
    suite_add_tcase(s, tc);
    return s;
}
