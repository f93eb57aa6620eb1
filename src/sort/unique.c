/* nd_unique: NumPy's unique_all (np.unique with return_index,
 * return_inverse and return_counts; NumPy 2's equal_nan=True), composed
 * from the sorting, indexing and scan primitives so that it runs on every
 * backend without code of its own:
 *   perm    = argsort(flat, stable)        sorted = flat[perm]
 *   flags   = [true] + (sorted[1:] != sorted[:-1]), NaN == NaN
 *   first   = flatnonzero(flags)           values  = sorted[first]
 *   indices = perm[first] (the stable sort puts the first occurrence of
 *             each value first in its run)
 *   counts  = diff(first + [n])
 *   inverse[perm[i]] = cumsum(flags)[i] - 1, in a's shape (NumPy 2). */
#include <string.h>

#include "core/internal.h"
#include "core/out.h"
#include "core/prof.h"

nd_status nd_unique(nd_array **values, nd_array **indices, nd_array **inverse, nd_array **counts, const nd_array *a)
{
    if (nd__no_complex("nd_unique", a, "a")) return ND_ERR_DTYPE; /* no complex loops yet */
    ND_PROF_OP("unique", values, a);
    static const char *const F = "nd_unique";
    ND_CHECK_PTR(F, a, "a");
    if (!values && !indices && !inverse && !counts)
        return nd__err(ND_ERR_INVALID, F, "no output requested (values, indices, inverse and counts are all NULL)");
    const int64_t n = a->size;
    nd_array *flat = NULL, *perm = NULL, *sorted = NULL, *flags = NULL, *first = NULL, *vals = NULL, *idx = NULL,
             *cnt = NULL, *inv = NULL, *ids = NULL, *inv_flat = NULL, *nn = NULL;
    nd_array *t1 = NULL, *t2 = NULL, *t3 = NULL, *head = NULL, *lo = NULL, *hi = NULL;
    nd_status st = nd_reshape(&flat, a, 1, &n);
    if (st == ND_OK) st = nd_argsort(&perm, flat, 0, ND_SORT_STABLE);
    if (st == ND_OK) st = nd_take(&sorted, flat, perm, 0, ND_TAKE_RAISE);
    /* flags */
    if (st == ND_OK && n > 0) {
        nd_range rlo = {0, n - 1, 1}, rhi = {1, n, 1};
        const int64_t one = 1;
        st = nd_slice(&lo, sorted, 1, &rlo);
        if (st == ND_OK) st = nd_slice(&hi, sorted, 1, &rhi);
        if (st == ND_OK) st = nd_not_equal(&t1, hi, lo);
        if (st == ND_OK && nd__is_float(a->dtype)) {
            /* NaN == NaN (equal_nan): a new run starts unless both are NaN */
            if (st == ND_OK) st = nd_isnan(&t2, hi);
            if (st == ND_OK) st = nd_isnan(&t3, lo);
            if (st == ND_OK) st = nd_logical_and(&t2, t2, t3);
            if (st == ND_OK) st = nd_logical_not(&t2, t2);
            if (st == ND_OK) st = nd_logical_and(&t1, t1, t2);
        }
        if (st == ND_OK) st = nd_full(&head, ND_BOOL, 1, &one, nd_scalar_bool(true), a->device);
        const nd_array *parts[2] = {head, t1};
        if (st == ND_OK) st = nd_concatenate(&flags, 2, parts, 0);
    } else if (st == ND_OK) {
        st = nd_zeros(&flags, ND_BOOL, 1, &n, a->device);
    }
    if (st == ND_OK) st = nd_flatnonzero(&first, flags);
    if (st == ND_OK && values) st = nd_take(&vals, sorted, first, 0, ND_TAKE_RAISE);
    if (st == ND_OK && indices) st = nd_take(&idx, perm, first, 0, ND_TAKE_RAISE);
    if (st == ND_OK && counts) {
        const int64_t one = 1;
        st = nd_full(&nn, ND_INT64, 1, &one, nd_scalar_int(n), a->device);
        if (st == ND_OK) st = nd_diff(&cnt, first, 1, 0, NULL, nn);
    }
    if (st == ND_OK && inverse) {
        st = nd_cumsum(&ids, flags, 0); /* int64 */
        if (st == ND_OK) st = nd_binary_scalar(&ids, ND_BINARY_SUBTRACT, ids, nd_scalar_int(1));
        if (st == ND_OK) st = nd_empty(&inv_flat, ND_INT64, 1, &n, a->device);
        if (st == ND_OK && n > 0) st = nd_put(inv_flat, perm, ids, ND_TAKE_RAISE);
        if (st == ND_OK) st = nd_reshape(&inv, inv_flat, a->ndim, a->shape);
    }
    /* hand the results over only when everything succeeded and every given
     * output takes its result (checked before any is written) */
    nd_array **outs[4] = {values, indices, inverse, counts};
    nd_array **res[4] = {&vals, &idx, &inv, &cnt};
    for (int k = 0; k < 4 && st == ND_OK; k++)
        if (outs[k] && *outs[k])
            st = nd__out_check(F, *outs[k], (*res[k])->dtype, (*res[k])->ndim, (*res[k])->shape, (*res[k])->device);
    if (st == ND_OK) {
        for (int k = 0; k < 4 && st == ND_OK; k++)
            if (outs[k]) st = nd__out_deliver(F, outs[k], res[k], (*res[k])->dtype, 0);
    } else if (!strstr(nd_last_error(), F)) { /* an inner call's message, prefixed */
        nd__err_prefix(st, F);
    }
    nd_array *all[] = {flat, perm, sorted, flags, first, vals, idx, cnt, inv, ids, inv_flat, nn, t1, t2, t3, head, lo, hi};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) nd_release(all[i]);
    return st;
}
