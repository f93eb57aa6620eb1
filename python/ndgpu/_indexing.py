"""x[key] and x[key] = value: basic slicing (views), integer arrays, boolean masks."""
import math
import operator
from ctypes import Structure, byref, c_int, c_int64, c_void_p

from . import _dtypes as _dt
from . import _lib
from ._array import Array, call, nd_full
from ._interop import numpy_key
from ._lib import C, NdRange, ND_NONE, BINARY, check, i64array

_pybool = bool


class _Item(Structure):
    """nd_index_item: one item of nd_basic_index (include/ndgpu/manip.h)."""
    _fields_ = [("kind", c_int), ("start", c_int64), ("stop", c_int64), ("step", c_int64)]


_INDEX_INT, _INDEX_SLICE, _INDEX_NEWAXIS = 0, 1, 2  # nd_index_kind
_basic_index = _lib.lib.nd_basic_index
_basic_index.restype = c_int
_basic_index.argtypes = [_lib.O, _lib.H, c_int, c_void_p]


def _idx(v):
    if v is None:
        return ND_NONE
    return operator.index(v)


def _expand(key, ndim):
    """key -> list of per-item entries with the Ellipsis expanded."""
    if not isinstance(key, tuple):
        key = (key,)
    n_ell = 0
    n_real = 0
    for k in key:
        if k is Ellipsis:
            n_ell += 1
        elif k is not None:
            if isinstance(k, Array) and k.dtype is _dt.bool:
                n_real += k.ndim
            else:
                n_real += 1
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_real > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but {n_real} were indexed")
    out = []
    for k in key:
        if k is Ellipsis:
            out.extend([slice(None)] * (ndim - n_real))
        else:
            out.append(k)
    if not n_ell:
        out.extend([slice(None)] * (ndim - n_real))
    return out


def _items(x, items):
    """The items of a basic index (Ellipsis expanded) checked, with the
    messages of the errors: [(nd_index_kind, start, stop, step)], the shape
    of the result, and whether it differs from that of the slices alone (an
    int drops an axis or a None adds one)."""
    shape = x.shape
    out = []
    final = []
    axis = 0
    need_reshape = False
    for k in items:
        if k is None:
            out.append((_INDEX_NEWAXIS, 0, 0, 0))
            final.append(1)
            need_reshape = True
            continue
        n = shape[axis]
        if isinstance(k, slice):
            start, stop, step = _idx(k.start), _idx(k.stop), (1 if k.step is None else operator.index(k.step))
            if step == 0:
                raise IndexError("slice step cannot be zero")
            out.append((_INDEX_SLICE, start, stop, step))
            final.append(len(range(*k.indices(n))))
        else:
            if isinstance(k, _pybool):
                raise IndexError("a Python bool is not a valid index")
            try:
                i = operator.index(k)
            except TypeError:
                raise IndexError(f"invalid index {k!r}") from None
            if i < -n or i >= n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            out.append((_INDEX_INT, i, 0, 0))
            need_reshape = True
        axis += 1
    return out, tuple(final), need_reshape


def _basic(x, items):
    """Basic indexing: (view with integer axes kept as extent 1, final shape,
    whether the two shapes differ), for x[key] = v and the slices beside
    integer arrays."""
    its, final, need_reshape = _items(x, items)
    ranges = [(s, e, st) if k == _INDEX_SLICE else (s % x.shape[i], s % x.shape[i] + 1, 1)
              for i, (k, s, e, st) in enumerate(t for t in its if t[0] != _INDEX_NEWAXIS)]
    rr = (NdRange * max(len(ranges), 1))(*[NdRange(*r) for r in ranges])
    v = call(C.nd_slice, x._h, len(ranges), rr, exc=IndexError)
    return v, final, need_reshape


def _basic_view(x, items):
    """x[items] for a basic index: one nd_basic_index call (the view itself,
    0-d where every axis gets an int)."""
    its, _, _ = _items(x, items)
    arr = (_Item * max(len(its), 1))(*[_Item(*t) for t in its])
    return call(_basic_index, x._h, len(its), arr, exc=IndexError)


def _reshape(v, shape):
    return call(C.nd_reshape, v._h, len(shape), i64array(shape))


def _is_adv(k):
    return isinstance(k, (Array, list))


def _asidx(k, device):
    if isinstance(k, Array):
        return k
    from ._creation import asarray
    return asarray(k, device=device)


def _adv_flat(x, items):
    """Integer-array indexing: (x reshaped so the indexed axes are one leading
    axis, flat int64 index array, broadcast index shape, rest shape,
    position of the result axes)."""
    from ._manipulation import broadcast_arrays, moveaxis
    # slices on the other axes first (a view); ints become 0-d index arrays
    basic = []
    adv = []  # (axis, index array)
    axis = 0
    for k in items:
        if k is None:
            raise IndexError("None (newaxis) cannot be combined with integer array indices")
        if isinstance(k, slice):
            basic.append(k)
        elif _is_adv(k) or hasattr(k, "__index__"):
            arr = _asidx(k, x.device) if _is_adv(k) else None
            if arr is not None and arr.dtype.kind not in "iu":
                raise IndexError("index arrays must be of an integer dtype")
            adv.append((axis, arr if arr is not None else operator.index(k)))
            basic.append(slice(None))
        else:
            raise IndexError(f"invalid index {k!r}")
        axis += 1
    v, _, _ = _basic(x, basic)
    vs = v.shape
    axes = [a for a, _ in adv]
    # index arrays: normalise negatives, check bounds
    idx = []
    for a, k in adv:
        n = vs[a]
        if isinstance(k, int):
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {a} with size {n}")
            k = nd_full((), k % n if n else k, _dt.int64, x.device)
        else:
            k = call(C.nd_astype, k._h, _dt.int64.code)
            if k.size:
                lo = int(call(C.nd_reduce, 4, k._h, -1, None, False))  # min
                hi = int(call(C.nd_reduce, 3, k._h, -1, None, False))  # max
                if lo < -n or hi >= n:
                    bad = hi if hi >= n else lo
                    raise IndexError(f"index {bad} is out of bounds for axis {a} with size {n}")
                if lo < 0:
                    neg = call(C.nd_binary_scalar, BINARY["less"], k._h, _sc(0))
                    add = call(C.nd_binary_scalar, BINARY["multiply"], neg._h, _sc(n))
                    k = call(C.nd_binary, BINARY["add"], k._h, add._h)
        idx.append(k)
    bidx = broadcast_arrays(*idx) if len(idx) > 1 else idx
    bshape = bidx[0].shape
    # move the indexed axes to the front, flatten them into one
    front = moveaxis(v, tuple(axes), tuple(range(len(axes)))) if axes != list(range(len(axes))) else v
    lead = [vs[a] for a in axes]
    rest = tuple(s for i, s in enumerate(vs) if i not in axes)
    flat = None
    mult = 1
    for k, n in zip(reversed(bidx), reversed(lead)):
        term = k if mult == 1 else call(C.nd_binary_scalar, BINARY["multiply"], k._h, _sc(mult))
        flat = term if flat is None else call(C.nd_binary, BINARY["add"], flat._h, term._h)
        mult *= n
    xr = _reshape(front, (math.prod(lead),) + rest)
    adjacent = axes == list(range(axes[0], axes[0] + len(axes)))
    pos = axes[0] if adjacent else 0
    return xr, flat, bshape, rest, pos


def _sc(v):
    from ._lib import scalar
    return scalar(v)


def _zero_mask(x, mask):
    """The standard lets a mask extent be 0 where x's is not (it selects
    nothing): True when that is the case (IndexError for other mismatches)."""
    ms, xs = mask.shape, x.shape
    if len(ms) > len(xs):
        raise IndexError(f"too many indices: a {len(ms)}-d boolean index into a {len(xs)}-d array")
    zero = False
    for i, (m, n) in enumerate(zip(ms, xs)):
        if m != n:
            if m != 0:
                raise IndexError(f"boolean index did not match indexed array along axis {i}; size of axis is "
                                 f"{n} but size of corresponding boolean axis is {m}")
            zero = True
    return zero


def _mask_select(x, mask):
    if _zero_mask(x, mask):
        from ._creation import empty
        return empty((0,) + x.shape[mask.ndim:], dtype=x.dtype, device=x.device)
    return call(C.nd_mask_select, x._h, mask._h, exc=IndexError)


def getitem(x, key):
    try:
        if isinstance(key, Array) and key.dtype is _dt.bool:
            return _mask_select(x, key)
        items = _expand(key, x.ndim)
        if any(_is_adv(k) for k in items):
            masks = [k for k in items if isinstance(k, Array) and k.dtype is _dt.bool]
            if masks:
                if len(masks) == 1 and all(isinstance(k, slice) and k == slice(None) for k in items[1:]) \
                        and items[0] is masks[0]:
                    return _mask_select(x, masks[0])
                # mask after leading full slices: move them
                raise IndexError("a boolean array index must be the only index (the array API's rule)")
            from ._manipulation import moveaxis
            xr, flat, bshape, rest, pos = _adv_flat(x, items)
            r = call(C.nd_take, xr._h, flat._h, 0, 0, exc=IndexError)
            if pos and bshape:
                nb = len(bshape)
                r = moveaxis(r, tuple(range(nb)), tuple(range(pos, pos + nb)))
            return r
        return _basic_view(x, items)
    except (IndexError, TypeError):
        # NumPy arrays and scalars in the key (np.array([0, 2]), np.int64(1)):
        # converted here, after the normal path failed on them, so that keys
        # without them cost nothing more (a try block is free)
        k2 = numpy_key(key, x.device)
        if k2 is None:
            raise
    return getitem(x, k2)


def _value_array(x, value):
    if isinstance(value, Array):
        if value.dtype is not x.dtype:
            value = call(C.nd_astype, value._h, x.dtype.code)
        return value
    if isinstance(value, (_pybool, int, float, complex)):
        if isinstance(value, complex) and x.dtype.kind != "c":
            raise TypeError("cannot assign a complex value to a real array")
        if isinstance(value, float) and x.dtype.kind in "biu":
            raise TypeError("cannot assign a float value to an integer or bool array")
        return nd_full((), value, x.dtype, x.device)
    from ._creation import asarray
    return asarray(value, dtype=x.dtype, device=x.device)


def setitem(x, key, value):
    try:
        val = _value_array(x, value)
        if isinstance(key, Array) and key.dtype is _dt.bool:
            if not _zero_mask(x, key):
                check(C.nd_mask_assign(x._h, key._h, val._h))
            return
        items = _expand(key, x.ndim)
        if any(_is_adv(k) for k in items):
            masks = [k for k in items if isinstance(k, Array) and k.dtype is _dt.bool]
            if masks:
                if len(masks) == 1 and items[0] is masks[0] and \
                        all(isinstance(k, slice) and k == slice(None) for k in items[1:]):
                    if not _zero_mask(x, masks[0]):
                        check(C.nd_mask_assign(x._h, masks[0]._h, val._h))
                    return
                raise IndexError("a boolean array index must be the only index (the array API's rule)")
            axes = [i for i, k in enumerate(items) if not isinstance(k, slice)]
            if axes != list(range(len(axes))) or not all(k == slice(None) for k in items[len(axes):]):
                raise IndexError("x[...] = v with integer arrays: only leading indexed axes are supported")
            xr, flat, bshape, rest, pos = _adv_flat(x, items)
            m = math.prod(rest)
            from ._creation import arange
            from ._manipulation import broadcast_to, reshape
            f2 = reshape(flat, bshape + (1,))
            lin = call(C.nd_binary_scalar, BINARY["multiply"], f2._h, _sc(m))
            ar = arange(m, device=x.device)
            lin = call(C.nd_binary, BINARY["add"], lin._h, ar._h)
            vals = reshape(broadcast_to(val, bshape + rest), bshape + (m,))
            check(C.nd_put(x._h, lin._h, vals._h, 0))
            return
        v, final, need = _basic(x, items)
        if final != v.shape:
            from ._manipulation import broadcast_to
            val = broadcast_to(val, final)
            val = _reshape(val, v.shape)
        o = c_void_p(v._h)
        check(C.nd_copy(byref(o), val._h))
        return
    except (IndexError, TypeError):
        k2 = numpy_key(key, x.device)  # as in getitem (nothing is written before the key is read)
        if k2 is None:
            raise
    setitem(x, k2, value)
