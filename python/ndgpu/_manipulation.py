"""Manipulation, indexing and linear algebra functions of the main namespace."""
import operator
from ctypes import byref, c_int64, c_void_p

from . import _dtypes as _dt
from ._array import Array, _axes_arg, call, wrap
from ._lib import C, ND_AXIS_NONE, check, i64array, intarray

__all__ = ["broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis", "permute_dims",
           "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack", "take", "take_along_axis",
           "matmul", "matrix_transpose", "tensordot", "vecdot", "astype"]


def _handles(arrays):
    arrays = list(arrays)
    for a in arrays:
        if not isinstance(a, Array):
            raise TypeError("expected arrays")
    return len(arrays), (c_void_p * max(len(arrays), 1))(*[a._h for a in arrays])


def broadcast_arrays(*arrays):
    n, hs = _handles(arrays)
    if n == 0:
        return []
    outs = (c_void_p * n)()
    check(C.nd_broadcast_arrays(outs, n, hs))
    return [wrap(outs[i]) for i in range(n)]


def broadcast_to(x, /, shape):
    sh = tuple(operator.index(s) for s in shape)
    return call(C.nd_broadcast_to, x._h, len(sh), i64array(sh))


def concat(arrays, /, *, axis=0):
    arrays = list(arrays)
    if axis is None:
        arrays = [reshape(a, (-1,)) for a in arrays]
        axis = 0
    n, hs = _handles(arrays)
    return call(C.nd_concatenate, n, hs, axis)


def stack(arrays, /, *, axis=0):
    n, hs = _handles(arrays)
    return call(C.nd_stack, n, hs, axis)


def expand_dims(x, /, axis=0):
    if isinstance(axis, tuple):
        nd = x.ndim + len(axis)
        norm = sorted(a % nd if -nd <= a < nd else a for a in axis)
        for a in norm:
            if not 0 <= a < nd:
                raise IndexError(f"axis {a} is out of bounds for the result's {nd} dimensions")
        if len(set(norm)) != len(norm):
            raise ValueError("repeated axis")
        r = x
        for a in norm:
            r = call(C.nd_expand_dims, r._h, a)
        return r
    nd = x.ndim
    if not -nd - 1 <= axis <= nd:
        raise IndexError(f"axis {axis} is out of bounds for array of dimension {nd}")
    return call(C.nd_expand_dims, x._h, axis)


def flip(x, /, *, axis=None):
    naxes, ax = _axes_arg(axis, x.ndim)
    return call(C.nd_flip, x._h, naxes, ax)


def _tuple(v):
    return (v,) if isinstance(v, int) else tuple(v)


def moveaxis(x, source, destination, /):
    s, d = _tuple(source), _tuple(destination)
    if len(s) != len(d):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    return call(C.nd_moveaxis, x._h, len(s), intarray(s), intarray(d))


def permute_dims(x, /, axes):
    axes = tuple(axes)
    if len(axes) != x.ndim or sorted(a % x.ndim if x.ndim else a for a in axes) != list(range(x.ndim)):
        raise ValueError(f"permute_dims: {axes} is not a permutation of the {x.ndim} axes")
    return call(C.nd_transpose, x._h, intarray(axes))


def repeat(x, repeats, /, *, axis=None):
    ax = ND_AXIS_NONE if axis is None else axis
    if isinstance(repeats, Array):
        return call(C.nd_repeat_array, x._h, repeats._h, ax)
    return call(C.nd_repeat, x._h, operator.index(repeats), ax)


def reshape(x, /, shape, *, copy=None):
    sh = tuple(operator.index(s) for s in shape)
    r = call(C.nd_reshape, x._h, len(sh), i64array(sh))
    if copy:
        if C.nd_data(r._h) == C.nd_data(x._h):
            r = call(C.nd_copy, r._h)
    elif copy is False and r.size > 0 and C.nd_data(r._h) != C.nd_data(x._h):
        raise ValueError("reshape: copy=False but the new shape needs a copy")
    return r


def roll(x, /, shift, *, axis=None):
    sh = _tuple(shift)
    if axis is None:
        if len(sh) != 1:
            raise ValueError("roll: one shift for the flattened array")
        return call(C.nd_roll, x._h, 1, i64array(sh), 0, None)
    ax = _tuple(axis)
    return call(C.nd_roll, x._h, len(sh), i64array(sh), len(ax), intarray(ax))


def squeeze(x, /, axis):
    ax = _tuple(axis)
    sh = x.shape
    nd = len(sh)
    for a in ax:
        if not -nd <= a < nd:
            raise ValueError(f"axis {a} is out of bounds for array of dimension {nd}")
        if sh[a] != 1:
            raise ValueError(f"squeeze: axis {a} has extent {sh[a]}, not 1")
    if len(set(a % nd for a in ax)) != len(ax):
        raise ValueError("squeeze: repeated axis")
    return call(C.nd_squeeze, x._h, len(ax), intarray(ax))


def tile(x, repetitions, /):
    reps = tuple(repetitions)
    return call(C.nd_tile, x._h, len(reps), i64array(reps))


def unstack(x, /, *, axis=0):
    nd = x.ndim
    if nd == 0:
        raise ValueError("unstack of a 0-d array")
    if not -nd <= axis < nd:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {nd}")
    n = x.shape[axis]
    outs = (c_void_p * max(n, 1))()
    cnt = c_int64()
    check(C.nd_unstack(outs, n, byref(cnt), x._h, axis))
    return tuple(wrap(outs[i]) for i in range(cnt.value))


def take(x, indices, /, *, axis=None):
    if axis is None:
        if x.ndim > 1:
            raise ValueError("take: axis is required for arrays of more than one dimension")
        axis = ND_AXIS_NONE if x.ndim != 1 else 0
    return call(C.nd_take, x._h, indices._h, axis, 0, exc=IndexError)


def take_along_axis(x, indices, /, *, axis=-1):
    return call(C.nd_take_along_axis, x._h, indices._h, axis, exc=IndexError)


def matmul(x1, x2, /):
    return call(C.nd_matmul, x1._h, x2._h)


def matrix_transpose(x, /):
    if x.ndim < 2:
        raise ValueError("matrix_transpose requires at least 2 dimensions")
    return call(C.nd_swapaxes, x._h, -2, -1)


def tensordot(x1, x2, /, *, axes=2):
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError("tensordot: axes must be non-negative")
        return call(C.nd_tensordot, x1._h, x2._h, axes, None, None)
    a, b = axes
    a, b = _tuple(a), _tuple(b)
    if len(a) != len(b):
        raise ValueError("tensordot: axes lists of different lengths")
    return call(C.nd_tensordot, x1._h, x2._h, len(a), intarray(a), intarray(b))


def vecdot(x1, x2, /, *, axis=-1):
    return call(C.nd_linalg_vecdot, x1._h, x2._h, axis)


def astype(x, dtype, /, *, copy=True, device=None):
    d = _dt.as_dtype(dtype)
    if device is not None:
        x = x.to_device(device)
    if d is x.dtype and not copy:
        return x
    return call(C.nd_astype, x._h, d.code)
