"""Manipulation, indexing and linear algebra functions of the main namespace."""
import operator
from ctypes import byref, c_int64, c_void_p

from . import _dtypes as _dt
from ._array import Array, _axes_arg, call, wrap
from ._interop import retry
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
    try:
        n, hs = _handles(arrays)
        if n == 0:
            return []
        outs = (c_void_p * n)()
        check(C.nd_broadcast_arrays(outs, n, hs))
        return [wrap(outs[i]) for i in range(n)]
    except (AttributeError, TypeError) as e:
        return retry(broadcast_arrays, e, arrays)


def broadcast_to(x, /, shape):
    try:
        sh = tuple(operator.index(s) for s in shape)
        return call(C.nd_broadcast_to, x._h, len(sh), i64array(sh))
    except (AttributeError, TypeError) as e:
        return retry(broadcast_to, e, (x, shape))


def concat(arrays, /, *, axis=0):
    try:
        arrs = list(arrays)
        ax = axis
        if ax is None:
            arrs = [reshape(a, (-1,)) for a in arrs]
            ax = 0
        n, hs = _handles(arrs)
        return call(C.nd_concatenate, n, hs, ax)
    except (AttributeError, TypeError) as e:
        return retry(concat, e, (arrays,), {"axis": axis})


def stack(arrays, /, *, axis=0):
    try:
        n, hs = _handles(arrays)
        return call(C.nd_stack, n, hs, axis)
    except (AttributeError, TypeError) as e:
        return retry(stack, e, (arrays,), {"axis": axis})


def expand_dims(x, /, axis=0):
    try:
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
    except (AttributeError, TypeError) as e:
        return retry(expand_dims, e, (x, axis))


def flip(x, /, *, axis=None):
    try:
        naxes, ax = _axes_arg(axis, x.ndim)
        return call(C.nd_flip, x._h, naxes, ax)
    except (AttributeError, TypeError) as e:
        return retry(flip, e, (x,), {"axis": axis})


def _tuple(v):
    return (v,) if isinstance(v, int) else tuple(v)


def moveaxis(x, source, destination, /):
    try:
        s, d = _tuple(source), _tuple(destination)
        if len(s) != len(d):
            raise ValueError("moveaxis: source and destination must have the same number of axes")
        return call(C.nd_moveaxis, x._h, len(s), intarray(s), intarray(d))
    except (AttributeError, TypeError) as e:
        return retry(moveaxis, e, (x, source, destination))


def permute_dims(x, /, axes):
    try:
        ax = tuple(axes)
        if len(ax) != x.ndim or sorted(a % x.ndim if x.ndim else a for a in ax) != list(range(x.ndim)):
            raise ValueError(f"permute_dims: {ax} is not a permutation of the {x.ndim} axes")
        return call(C.nd_transpose, x._h, intarray(ax))
    except (AttributeError, TypeError) as e:
        return retry(permute_dims, e, (x, axes))


def repeat(x, repeats, /, *, axis=None):
    try:
        ax = ND_AXIS_NONE if axis is None else axis
        if isinstance(repeats, Array):
            return call(C.nd_repeat_array, x._h, repeats._h, ax)
        return call(C.nd_repeat, x._h, operator.index(repeats), ax)
    except (AttributeError, TypeError) as e:
        return retry(repeat, e, (x, repeats), {"axis": axis})


def reshape(x, /, shape, *, copy=None):
    try:
        sh = tuple(operator.index(s) for s in shape)
        r = call(C.nd_reshape, x._h, len(sh), i64array(sh))
        if copy:
            if C.nd_data(r._h) == C.nd_data(x._h):
                r = call(C.nd_copy, r._h)
        elif copy is False and r.size > 0 and C.nd_data(r._h) != C.nd_data(x._h):
            raise ValueError("reshape: copy=False but the new shape needs a copy")
        return r
    except (AttributeError, TypeError) as e:
        return retry(reshape, e, (x, shape), {"copy": copy})


def roll(x, /, shift, *, axis=None):
    try:
        sh = _tuple(shift)
        if axis is None:
            if len(sh) != 1:
                raise ValueError("roll: one shift for the flattened array")
            return call(C.nd_roll, x._h, 1, i64array(sh), 0, None)
        ax = _tuple(axis)
        return call(C.nd_roll, x._h, len(sh), i64array(sh), len(ax), intarray(ax))
    except (AttributeError, TypeError) as e:
        return retry(roll, e, (x, shift), {"axis": axis})


def squeeze(x, /, axis):
    try:
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
    except (AttributeError, TypeError) as e:
        return retry(squeeze, e, (x, axis))


def tile(x, repetitions, /):
    try:
        reps = tuple(repetitions)
        return call(C.nd_tile, x._h, len(reps), i64array(reps))
    except (AttributeError, TypeError) as e:
        return retry(tile, e, (x, repetitions))


def unstack(x, /, *, axis=0):
    try:
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
    except (AttributeError, TypeError) as e:
        return retry(unstack, e, (x,), {"axis": axis})


def take(x, indices, /, *, axis=None):
    try:
        ax = axis
        if ax is None:
            if x.ndim > 1:
                raise ValueError("take: axis is required for arrays of more than one dimension")
            ax = ND_AXIS_NONE if x.ndim != 1 else 0
        return call(C.nd_take, x._h, indices._h, ax, 0, exc=IndexError)
    except (AttributeError, TypeError) as e:
        return retry(take, e, (x, indices), {"axis": axis})


def take_along_axis(x, indices, /, *, axis=-1):
    try:
        return call(C.nd_take_along_axis, x._h, indices._h, axis, exc=IndexError)
    except (AttributeError, TypeError) as e:
        return retry(take_along_axis, e, (x, indices), {"axis": axis})


def matmul(x1, x2, /):
    try:
        return call(C.nd_matmul, x1._h, x2._h)
    except (AttributeError, TypeError) as e:
        return retry(matmul, e, (x1, x2))


def matrix_transpose(x, /):
    try:
        if x.ndim < 2:
            raise ValueError("matrix_transpose requires at least 2 dimensions")
        return call(C.nd_swapaxes, x._h, -2, -1)
    except (AttributeError, TypeError) as e:
        return retry(matrix_transpose, e, (x,))


def tensordot(x1, x2, /, *, axes=2):
    try:
        if isinstance(axes, int):
            if axes < 0:
                raise ValueError("tensordot: axes must be non-negative")
            return call(C.nd_tensordot, x1._h, x2._h, axes, None, None)
        a, b = axes
        a, b = _tuple(a), _tuple(b)
        if len(a) != len(b):
            raise ValueError("tensordot: axes lists of different lengths")
        return call(C.nd_tensordot, x1._h, x2._h, len(a), intarray(a), intarray(b))
    except (AttributeError, TypeError) as e:
        return retry(tensordot, e, (x1, x2), {"axes": axes})


def vecdot(x1, x2, /, *, axis=-1):
    try:
        return call(C.nd_linalg_vecdot, x1._h, x2._h, axis)
    except (AttributeError, TypeError) as e:
        return retry(vecdot, e, (x1, x2), {"axis": axis})


def astype(x, dtype, /, *, copy=True, device=None):
    try:
        d = _dt.as_dtype(dtype)
        y = x if device is None else x.to_device(device)
        if d is y.dtype and not copy:
            return y
        return call(C.nd_astype, y._h, d.code)
    except (AttributeError, TypeError) as e:
        return retry(astype, e, (x, dtype), {"copy": copy, "device": device})
