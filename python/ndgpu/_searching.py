"""Searching, sorting and set functions."""
from ctypes import byref, c_int, c_void_p

from . import _dtypes as _dt
from ._array import Array, _axes_arg, binop, call, to_array_like, wrap
from ._interop import retry
from ._lib import C, REDUCE, ND_AXIS_NONE, check, intarray
from ._lib import BINARY, UNARY

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where", "argsort", "sort",
           "unique_all", "unique_counts", "unique_inverse", "unique_values"]

_pybool = bool


def _arg(op, x, axis, keepdims):
    if axis is None:
        return call(C.nd_reduce, REDUCE[op], x._h, -1, None, _pybool(keepdims))
    return call(C.nd_reduce, REDUCE[op], x._h, 1, intarray([axis]), _pybool(keepdims))


def argmax(x, /, *, axis=None, keepdims=False):
    try:
        return _arg("argmax", x, axis, keepdims)
    except (AttributeError, TypeError) as e:
        return retry(argmax, e, (x,), {"axis": axis, "keepdims": keepdims})


def argmin(x, /, *, axis=None, keepdims=False):
    try:
        return _arg("argmin", x, axis, keepdims)
    except (AttributeError, TypeError) as e:
        return retry(argmin, e, (x,), {"axis": axis, "keepdims": keepdims})


def count_nonzero(x, /, *, axis=None, keepdims=False):
    try:
        naxes, ax = _axes_arg(axis, x.ndim)
        return call(C.nd_count_nonzero, x._h, naxes, ax, _pybool(keepdims))
    except (AttributeError, TypeError) as e:
        return retry(count_nonzero, e, (x,), {"axis": axis, "keepdims": keepdims})


def nonzero(x, /):
    try:
        nd = x.ndim
        if nd == 0:
            raise ValueError("nonzero of a 0-d array is not allowed")
        outs = (c_void_p * nd)()
        n = c_int()
        check(C.nd_nonzero(outs, nd, byref(n), x._h))
        return tuple(wrap(outs[i]) for i in range(n.value))
    except (AttributeError, TypeError) as e:
        return retry(nonzero, e, (x,))


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    try:
        if side not in ("left", "right"):
            raise ValueError("side must be 'left' or 'right'")
        a = x1 if sorter is None else call(C.nd_take, x1._h, sorter._h, ND_AXIS_NONE, 0)
        v = x2 if isinstance(x2, Array) else to_array_like(x2, a)
        return call(C.nd_searchsorted, a._h, v._h, 1 if side == "right" else 0)
    except (AttributeError, TypeError) as e:
        return retry(searchsorted, e, (x1, x2), {"side": side, "sorter": sorter})


def where(condition, x1, x2, /):
    try:
        a1, a2 = x1, x2
        if not isinstance(a1, Array) and not isinstance(a2, Array):
            from ._creation import asarray
            a1 = asarray(a1, device=condition.device)
            a2 = to_array_like(a2, a1)
        elif not isinstance(a1, Array):
            a1 = to_array_like(a1, a2)
        elif not isinstance(a2, Array):
            a2 = to_array_like(a2, a1)
        return call(C.nd_where, condition._h, a1._h, a2._h)
    except (AttributeError, TypeError) as e:
        return retry(where, e, (condition, x1, x2))


def _sort(fn, x, axis, descending, stable):
    flags = 1 | (2 if descending else 0)
    return call(fn, x._h, axis, flags)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    try:
        return _sort(C.nd_sort, x, axis, descending, stable)
    except (AttributeError, TypeError) as e:
        return retry(sort, e, (x,), {"axis": axis, "descending": descending, "stable": stable})


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    try:
        return _sort(C.nd_argsort, x, axis, descending, stable)
    except (AttributeError, TypeError) as e:
        return retry(argsort, e, (x,), {"axis": axis, "descending": descending, "stable": stable})


# ---- sets: the library treats all NaNs as one value (NumPy 2's equal_nan);
# the standard wants every NaN distinct, so NaNs are handled here.

def _has_nan(x):
    if x.dtype.kind not in "fc":
        return False
    m = call(C.nd_unary, UNARY["isnan"], x._h)
    return _pybool(call(C.nd_reduce, REDUCE["any"], m._h, -1, None, False))


def _unique(x, want_idx, want_inv, want_cnt):
    outs = [c_void_p() for _ in range(4)]
    check(C.nd_unique(byref(outs[0]), byref(outs[1]) if want_idx else None,
                      byref(outs[2]) if want_inv else None, byref(outs[3]) if want_cnt else None, x._h))
    return [wrap(o.value) if o.value else None for o in outs]


def _unique_nan(x, want_idx, want_inv, want_cnt):
    """unique with every NaN its own value (the standard's rule)."""
    from ._manipulation import concat, reshape
    from ._creation import arange, ones, full
    flat = reshape(x, (-1,))
    isn = call(C.nd_unary, UNARY["isnan"], flat._h)
    notn = call(C.nd_unary, UNARY["logical_not"], isn._h)
    good_pos = nonzero(notn)[0]
    nan_pos = nonzero(isn)[0]
    good = call(C.nd_take, flat._h, good_pos._h, 0, 0)
    v, idx, inv, cnt = _unique(good, want_idx, want_inv, want_cnt)
    nn = nan_pos.shape[0]
    nanvals = call(C.nd_take, flat._h, nan_pos._h, 0, 0)
    values = concat([v, nanvals])
    res = [values, None, None, None]
    if want_idx:
        res[1] = concat([call(C.nd_take, good_pos._h, idx._h, 0, 0), nan_pos])
    if want_cnt:
        res[3] = concat([cnt, ones((nn,), dtype=cnt.dtype, device=x.device)])
    if want_inv:
        nv = v.shape[0]
        inv_flat = full((flat.shape[0],), 0, dtype=_dt.int64, device=x.device)
        if good_pos.shape[0]:
            inv1 = reshape(inv, (-1,))
            check(C.nd_put(inv_flat._h, good_pos._h, inv1._h, 0))
        if nn:
            ids = arange(nv, nv + nn, device=x.device)
            check(C.nd_put(inv_flat._h, nan_pos._h, ids._h, 0))
        res[2] = reshape(inv_flat, x.shape)
    return res


def _unique_sorted(x, want_idx, want_inv, want_cnt):
    """unique by a stable (lexicographic for complex) sort in Python: for the
    dtypes nd_unique refuses (complex: a C API gap). NaNs stay distinct."""
    from ._manipulation import concat, reshape
    from ._creation import asarray, zeros
    flat = reshape(x, (-1,))
    n = flat.shape[0]
    dev = x.device
    if x.dtype.kind == "c":
        re = call(C.nd_real, flat._h)
        im = call(C.nd_imag, flat._h)
        p1 = argsort(im)
        rp = call(C.nd_take, re._h, p1._h, 0, 0)
        p2 = argsort(rp)
        p = call(C.nd_take, p1._h, p2._h, 0, 0)
    else:
        p = argsort(flat)
    s = call(C.nd_take, flat._h, p._h, 0, 0)
    if n:
        a = s[1:]
        b = s[:-1]
        neq = binop(BINARY["not_equal"], a, b)
        new = concat([asarray([True], device=dev), neq])
        if x.dtype.kind in "fc":
            new = binop(BINARY["logical_or"], new, call(C.nd_unary, UNARY["isnan"], s._h))
    else:
        new = zeros((0,), dtype=_dt.bool, device=dev)
    starts = nonzero(new)[0]
    values = call(C.nd_take, s._h, starts._h, 0, 0)
    res = [values, None, None, None]
    if want_idx:
        res[1] = call(C.nd_take, p._h, starts._h, 0, 0)
    if want_cnt:
        ends = concat([starts, asarray([n], dtype=_dt.int64, device=dev)])
        res[3] = call(C.nd_diff, ends._h, 1, 0, None, None)
    if want_inv:
        gid = call(C.nd_cumsum, new._h, 0)
        gid = binop(BINARY["subtract"], gid, 1)
        inv = zeros((n,), dtype=_dt.int64, device=dev)
        if n:
            check(C.nd_put(inv._h, p._h, gid._h, 0))
        res[2] = reshape(inv, x.shape)
    return res


def _uniq(x, i, v, c):
    if x.dtype.kind == "c":
        return _unique_sorted(x, i, v, c)
    if _has_nan(x):
        return _unique_nan(x, i, v, c)
    return _unique(x, i, v, c)


class UniqueAllResult(tuple):
    __slots__ = ()

    def __new__(cls, values, indices, inverse_indices, counts):
        return tuple.__new__(cls, (values, indices, inverse_indices, counts))

    values = property(lambda s: s[0])
    indices = property(lambda s: s[1])
    inverse_indices = property(lambda s: s[2])
    counts = property(lambda s: s[3])


class UniqueCountsResult(tuple):
    __slots__ = ()

    def __new__(cls, values, counts):
        return tuple.__new__(cls, (values, counts))

    values = property(lambda s: s[0])
    counts = property(lambda s: s[1])


class UniqueInverseResult(tuple):
    __slots__ = ()

    def __new__(cls, values, inverse_indices):
        return tuple.__new__(cls, (values, inverse_indices))

    values = property(lambda s: s[0])
    inverse_indices = property(lambda s: s[1])


def unique_all(x, /):
    try:
        v, i, inv, c = _uniq(x, True, True, True)
        return UniqueAllResult(v, i, inv, c)
    except (AttributeError, TypeError) as e:
        return retry(unique_all, e, (x,))


def unique_counts(x, /):
    try:
        v, _, _, c = _uniq(x, False, False, True)
        return UniqueCountsResult(v, c)
    except (AttributeError, TypeError) as e:
        return retry(unique_counts, e, (x,))


def unique_inverse(x, /):
    try:
        v, _, inv, _ = _uniq(x, False, True, False)
        return UniqueInverseResult(v, inv)
    except (AttributeError, TypeError) as e:
        return retry(unique_inverse, e, (x,))


def unique_values(x, /):
    try:
        return _uniq(x, False, False, False)[0]
    except (AttributeError, TypeError) as e:
        return retry(unique_values, e, (x,))
