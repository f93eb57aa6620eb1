"""Statistical functions (and all/any/diff, the utility functions)."""
import math
from ctypes import c_void_p

from . import _dtypes as _dt
from ._array import Array, _axes_arg, call, fast_reduce_all, nd_full
from ._interop import retry
from ._lib import C, REDUCE

__all__ = ["max", "mean", "min", "prod", "std", "sum", "var", "cumulative_sum", "cumulative_prod", "all", "any",
           "diff"]


def _check_array(x):
    if not isinstance(x, Array):
        raise TypeError(f"expected an array, got {type(x).__name__}")


def _reduce(op, x, axis, keepdims, dtype=None):
    if axis is None and dtype is None and fast_reduce_all is not None:
        r = fast_reduce_all(REDUCE[op], x, keepdims)  # None: x is not an Array
        if r is not None:
            return r
    _check_array(x)
    naxes, ax = _axes_arg(axis, x.ndim)
    if dtype is None:
        return call(C.nd_reduce, REDUCE[op], x._h, naxes, ax, bool(keepdims))
    d = _dt.as_dtype(dtype)
    return call(C.nd_reduce_dtype, REDUCE[op], x._h, naxes, ax, bool(keepdims), d.code)


def max(x, /, *, axis=None, keepdims=False):
    try:
        return _reduce("max", x, axis, keepdims)
    except (AttributeError, TypeError) as e:
        return retry(max, e, (x,), {"axis": axis, "keepdims": keepdims})


def min(x, /, *, axis=None, keepdims=False):
    try:
        return _reduce("min", x, axis, keepdims)
    except (AttributeError, TypeError) as e:
        return retry(min, e, (x,), {"axis": axis, "keepdims": keepdims})


def mean(x, /, *, axis=None, keepdims=False):
    try:
        return _reduce("mean", x, axis, keepdims)
    except (AttributeError, TypeError) as e:
        return retry(mean, e, (x,), {"axis": axis, "keepdims": keepdims})


def _sum_dtype(x, dtype):
    return None if dtype is None or _dt.as_dtype(dtype) is None else dtype


def sum(x, /, *, axis=None, dtype=None, keepdims=False):
    try:
        return _reduce("sum", x, axis, keepdims, dtype)
    except (AttributeError, TypeError) as e:
        return retry(sum, e, (x,), {"axis": axis, "dtype": dtype, "keepdims": keepdims})


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    try:
        return _reduce("prod", x, axis, keepdims, dtype)
    except (AttributeError, TypeError) as e:
        return retry(prod, e, (x,), {"axis": axis, "dtype": dtype, "keepdims": keepdims})


def _count(x, axis):
    sh = x.shape
    if axis is None:
        return math.prod(sh)
    if isinstance(axis, int):
        axis = (axis,)
    return math.prod(sh[a] for a in axis)


def _var(op, x, axis, correction, keepdims):
    _check_array(x)
    naxes, ax = _axes_arg(axis, x.ndim)
    r = call(C.nd_reduce_ddof, REDUCE[op], x._h, naxes, ax, bool(keepdims), float(correction))
    if _count(x, axis) - correction <= 0:
        # the standard: N - correction <= 0 gives NaN (NumPy and the library: inf)
        r = nd_full(r.shape, float("nan"), r.dtype, r.device)
    return r


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    try:
        return _var("var", x, axis, correction, keepdims)
    except (AttributeError, TypeError) as e:
        return retry(var, e, (x,), {"axis": axis, "correction": correction, "keepdims": keepdims})


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    try:
        return _var("std", x, axis, correction, keepdims)
    except (AttributeError, TypeError) as e:
        return retry(std, e, (x,), {"axis": axis, "correction": correction, "keepdims": keepdims})


def all(x, /, *, axis=None, keepdims=False):
    try:
        return _reduce("all", x, axis, keepdims)
    except (AttributeError, TypeError) as e:
        return retry(all, e, (x,), {"axis": axis, "keepdims": keepdims})


def any(x, /, *, axis=None, keepdims=False):
    try:
        return _reduce("any", x, axis, keepdims)
    except (AttributeError, TypeError) as e:
        return retry(any, e, (x,), {"axis": axis, "keepdims": keepdims})


def _cumulative(fn, fn_dtype, ident, x, axis, dtype, include_initial):
    _check_array(x)
    nd = x.ndim
    if axis is None:
        if nd > 1:
            raise ValueError("axis must be given for an array of more than one dimension")
        axis = 0
    if nd == 0:
        raise ValueError("cumulative functions need an array of at least one dimension")
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    axis %= nd
    if dtype is None:
        r = call(fn, x._h, axis)
    else:
        r = call(fn_dtype, x._h, axis, _dt.as_dtype(dtype).code)
    if include_initial:
        sh = list(r.shape)
        sh[axis] = 1
        init = nd_full(tuple(sh), ident, r.dtype, r.device)
        arrs = (c_void_p * 2)(init._h, r._h)
        r = call(C.nd_concatenate, 2, arrs, axis)
    return r


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    try:
        return _cumulative(C.nd_cumsum, C.nd_cumsum_dtype, 0, x, axis, dtype, include_initial)
    except (AttributeError, TypeError) as e:
        return retry(cumulative_sum, e, (x,), {"axis": axis, "dtype": dtype, "include_initial": include_initial})


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    try:
        return _cumulative(C.nd_cumprod, C.nd_cumprod_dtype, 1, x, axis, dtype, include_initial)
    except (AttributeError, TypeError) as e:
        return retry(cumulative_prod, e, (x,), {"axis": axis, "dtype": dtype, "include_initial": include_initial})


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    try:
        _check_array(x)
        return call(C.nd_diff, x._h, n, axis, None if prepend is None else prepend._h,
                    None if append is None else append._h)
    except (AttributeError, TypeError) as e:
        return retry(diff, e, (x,), {"axis": axis, "n": n, "prepend": prepend, "append": append})
