/*
 * Searching: nd_searchsorted (nd_backend.searchsorted, a binary search on
 * the keys of src/shared/sort_keys.h) and nd_isin, composed from a sort of the
 * test elements, two searchsorted calls (an element is present when its
 * right insertion point is past its left one) and elementwise ops (NaN is
 * never equal to anything, so NaN elements are masked out).
 */
#include "core/internal.h"
#include "core/out.h"
#include "sort/sort.h"
#include "core/prof.h"

/* The searchsorted work on validated, promoted, contiguous arrays into a
 * fresh int64 array of v's shape. */
static nd_status search_core(const char *fn, nd_array **out, const nd_array *a, const nd_array *v, bool right)
{
    nd_array *r = NULL;
    nd_status st = nd__alloc(&r, ND_INT64, v->ndim, v->shape, v->device);
    if (!st && v->size > 0) st = nd__backend(v->device)->searchsorted(r, a, v, right);
    if (st) {
        nd_release(r);
        return nd__err_prefix(st, fn);
    }
    *out = r;
    return ND_OK;
}

/* x cast to dt, C-contiguous (a new reference). */
static nd_status contig_as(nd_array **out, const nd_array *x, nd_dtype dt)
{
    nd_array *c = NULL;
    nd_status st = nd__as_dtype(&c, x, dt);
    if (st) return st;
    st = nd_contiguous(out, c);
    nd_release(c);
    return st;
}

static nd_status same_dev(const char *fn, const nd_array *a, const nd_array *b, const char *na, const char *nb)
{
    if (nd__same_device(a->device, b->device)) return ND_OK;
    char d1[32], d2[32];
    return nd__err(ND_ERR_DEVICE, fn, "'%s' is on %s but '%s' is on %s", na, nd__device_name(a->device, d1, sizeof d1),
                   nb, nd__device_name(b->device, d2, sizeof d2));
}

nd_status nd_searchsorted(nd_array **out, const nd_array *a, const nd_array *v, nd_side side)
{
    if (nd__no_complex("nd_searchsorted", a, "a")) return ND_ERR_DTYPE; /* no complex loops yet */
    if (nd__no_complex("nd_searchsorted", v, "v")) return ND_ERR_DTYPE; /* no complex loops yet */
    ND_PROF_OP("searchsorted", out, a, v);
    static const char *fn = "nd_searchsorted";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, a, "a");
    ND_CHECK_PTR(fn, v, "v");
    if (side != ND_SIDE_LEFT && side != ND_SIDE_RIGHT)
        return nd__err(ND_ERR_INVALID, fn, "side must be ND_SIDE_LEFT or ND_SIDE_RIGHT (got %d)", (int)side);
    if (a->ndim != 1) return nd__err(ND_ERR_SHAPE, fn, "a must be 1-dimensional (got %d dimensions)", a->ndim);
    nd_status st = same_dev(fn, a, v, "a", "v");
    if (st) return st;
    nd_dtype dt;
    if ((st = nd_result_type(&dt, a->dtype, v->dtype))) return nd__err_prefix(st, fn);
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, ND_INT64, v->ndim, v->shape, v->device))) return st;
    nd_array *ac = NULL, *vc = NULL, *r = NULL;
    st = contig_as(&ac, a, dt);
    if (!st) st = contig_as(&vc, v, dt);
    if (st) st = nd__err_prefix(st, fn);
    if (!st) st = search_core(fn, &r, ac, vc, side == ND_SIDE_RIGHT);
    const nd_array *ins[2] = {a, v};
    if (!st) st = nd__out_target(&t, ND_INT64, 0, 2, ins);
    if (!st) st = nd__copy_into(t.dst, r);
    nd_release(ac);
    nd_release(vc);
    nd_release(r);
    return nd__out_end(&t, st);
}

nd_status nd_isin(nd_array **out, const nd_array *element, const nd_array *test_elements, bool invert)
{
    if (nd__no_complex("nd_isin", element, "element")) return ND_ERR_DTYPE; /* no complex loops yet */
    if (nd__no_complex("nd_isin", test_elements, "test_elements")) return ND_ERR_DTYPE; /* no complex loops yet */
    ND_PROF_OP("isin", out, element, test_elements);
    static const char *fn = "nd_isin";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, element, "element");
    ND_CHECK_PTR(fn, test_elements, "test_elements");
    nd_status st = same_dev(fn, element, test_elements, "element", "test_elements");
    if (st) return st;
    nd_dtype dt;
    if ((st = nd_result_type(&dt, element->dtype, test_elements->dtype))) return nd__err_prefix(st, fn);
    nd_out t;
    if ((st = nd__out_begin(&t, fn, out, ND_BOOL, element->ndim, element->shape, element->device))) return st;
    nd_array *tc = NULL, *flat = NULL, *sorted = NULL, *ec = NULL, *lo = NULL, *hi = NULL, *found = NULL, *tmp = NULL;
    int64_t nt = test_elements->size;
    st = contig_as(&tc, test_elements, dt);
    if (!st) st = nd_reshape(&flat, tc, 1, &nt);
    if (!st) st = nd__sort_axis(fn, &sorted, NULL, flat, 0, false);
    if (!st) st = contig_as(&ec, element, dt);
    if (!st) st = search_core(fn, &lo, sorted, ec, false);
    if (!st) st = search_core(fn, &hi, sorted, ec, true);
    if (!st) st = nd_binary(&found, invert ? ND_BINARY_LESS_EQUAL : ND_BINARY_GREATER, hi, lo);
    if (!st && nd__is_float(dt)) {
        /* NaN == NaN is false: a NaN element is never in test_elements */
        nd_array *ok = NULL;
        st = nd_binary(&ok, invert ? ND_BINARY_NOT_EQUAL : ND_BINARY_EQUAL, ec, ec);
        if (!st) st = nd_binary(&tmp, invert ? ND_BINARY_LOGICAL_OR : ND_BINARY_LOGICAL_AND, found, ok);
        nd_release(ok);
        if (!st) {
            nd_release(found);
            found = tmp;
            tmp = NULL;
        }
    }
    if (st) st = nd__err_prefix(st, fn);
    const nd_array *ins[2] = {element, test_elements};
    if (!st) st = nd__out_target(&t, ND_BOOL, 0, 2, ins);
    if (!st) st = nd__copy_into(t.dst, found);
    nd_release(tc);
    nd_release(flat);
    nd_release(sorted);
    nd_release(ec);
    nd_release(lo);
    nd_release(hi);
    nd_release(found);
    nd_release(tmp);
    return nd__out_end(&t, st);
}
