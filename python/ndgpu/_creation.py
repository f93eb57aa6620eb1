"""Creation functions."""
import operator
import struct
from ctypes import c_void_p

from . import _dtypes as _dt
from ._array import Array, as_device, call, item, nd_full, wrap
from ._interop import is_numpy, retry
from ._dlpack import from_dlpack
from ._lib import C, check, i64array, scalar

__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace",
           "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like"]

_pybool = bool
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


def _dtype(dtype):
    return None if dtype is None else _dt.as_dtype(dtype)


def _shape(shape):
    if isinstance(shape, int) or hasattr(shape, "__index__") and not isinstance(shape, (tuple, list)):
        return (operator.index(shape),)
    return tuple(operator.index(s) for s in shape)


def _flatten(obj, shape, out, depth):
    """Append obj's leaves to out, recording the extents in shape."""
    if isinstance(obj, Array):
        sh = obj.shape
        vals = obj.tolist() if sh else item(obj)
        obj = vals
    if isinstance(obj, (list, tuple)):
        n = len(obj)
        if depth == len(shape):
            shape.append(n)
        elif shape[depth] != n or depth > len(shape):
            raise ValueError("asarray: the nested sequence is ragged (inhomogeneous shape)")
        for e in obj:
            _flatten(e, shape, out, depth + 1)
        if n == 0 and depth + 1 < len(shape):
            raise ValueError("asarray: the nested sequence is ragged (inhomogeneous shape)")
        return
    if depth != len(shape):
        raise ValueError("asarray: the nested sequence is ragged (inhomogeneous shape)")
    if isinstance(obj, (_pybool, int, float, complex)):
        out.append(obj)
        return
    if hasattr(obj, "__index__"):
        out.append(operator.index(obj))
        return
    if hasattr(obj, "__float__") and not isinstance(obj, str):
        out.append(float(obj))
        return
    raise TypeError(f"asarray: cannot convert {type(obj).__name__} to an array element")


def _natural(vals):
    kind = "b"
    for v in vals:
        t = type(v)
        if t is complex:
            return _dt.complex128
        if t is float:
            kind = "f"
        elif t is int and kind == "b":
            kind = "i"
    return {"b": _dt.bool, "i": _dt.int64, "f": _dt.float64}[kind] if vals else _dt.float64


def _pack(vals, shape, dtype, device):
    """A new array of dtype from the flat Python values."""
    nat = _natural(vals)
    target = dtype or nat
    if not vals:
        return call(C.nd_empty, target.code, len(shape), i64array(shape), device._nd)
    if target.kind in "iu" and nat.kind in "bi":
        lo, hi = _dt._INT_RANGE[target]
        for v in vals:
            if not lo <= v <= hi:
                raise OverflowError(f"Python int {v} out of bounds for {target.name}")
        raw = struct.pack(f"<{len(vals)}{target.fmt}", *vals)
        src = target
    elif target is _dt.bool and nat is _dt.bool:
        raw = struct.pack(f"<{len(vals)}?", *vals)
        src = target
    elif nat.kind == "c" or target.kind == "c":
        flat = []
        for v in vals:
            v = complex(v)
            flat.append(v.real)
            flat.append(v.imag)
        raw = struct.pack(f"<{len(flat)}d", *flat)
        src = _dt.complex128
    elif nat.kind in "bi" and target is not None and target.kind == "b":
        raw = struct.pack(f"<{len(vals)}?", *[bool(v) for v in vals])
        src = _dt.bool
    elif nat.kind in "bi" and dtype is None:
        for v in vals:
            if not _I64_MIN <= v <= _I64_MAX:
                raise OverflowError(f"Python int {v} too large to convert to int64")
        raw = struct.pack(f"<{len(vals)}q", *vals)
        src = _dt.int64
    else:
        raw = struct.pack(f"<{len(vals)}d", *[float(v) for v in vals])
        src = _dt.float64
    a = call(C.nd_from_host, raw, src.code, len(shape), i64array(shape), device._nd)
    if src is not target:
        a = call(C.nd_astype, a._h, target.code)
    return a


_BUF_FMT = {"?": _dt.bool, "b": _dt.int8, "h": _dt.int16, "i": _dt.int32, "l": _dt.int64, "q": _dt.int64,
            "B": _dt.uint8, "H": _dt.uint16, "I": _dt.uint32, "L": _dt.uint64, "Q": _dt.uint64, "e": _dt.float16,
            "f": _dt.float32, "d": _dt.float64, "Zf": _dt.complex64, "Zd": _dt.complex128}


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    dtype = _dtype(dtype)
    if isinstance(obj, Array):
        r = obj
        copied = False
        if device is not None:
            dev = as_device(device)
            if dev != r.device:
                if copy is False:
                    raise ValueError("asarray: copy=False but the array is on another device")
                r = r.to_device(dev)
                copied = True
        if dtype is not None and dtype is not r.dtype:
            if copy is False:
                raise ValueError("asarray: copy=False but a dtype conversion is needed")
            return call(C.nd_astype, r._h, dtype.code)
        if copy and not copied:
            r = call(C.nd_copy, r._h)
        return r
    dev = as_device(device)
    t = type(obj)
    if t is bool or t is int or t is float or t is complex:
        if copy is False:
            raise ValueError("asarray: copy=False is impossible for a Python scalar")
        if dtype is None:
            if t is int and not _I64_MIN <= obj <= _I64_MAX:
                raise OverflowError(f"Python int {obj} too large to convert to int64")
            dtype = {bool: _dt.bool, int: _dt.int64, float: _dt.float64, complex: _dt.complex128}[t]
        if t is int and not _I64_MIN <= obj <= _I64_MAX:
            return _pack([obj], (), dtype, dev)
        if t is complex and dtype.kind != "c":
            raise TypeError("asarray: a complex value needs a complex dtype")
        return nd_full((), obj, dtype, dev)
    if not isinstance(obj, (list, tuple)) and hasattr(obj, "__dlpack__"):
        try:
            r = from_dlpack(obj, device=device, copy=copy)
        except (BufferError, TypeError, ValueError):
            r = None
        if r is not None:
            if dtype is not None and dtype is not r.dtype:
                if copy is False:
                    raise ValueError("asarray: copy=False but a dtype conversion is needed")
                r = call(C.nd_astype, r._h, dtype.code)
            return r
    if not isinstance(obj, (list, tuple)) and is_numpy(obj) and getattr(obj, "ndim", 0):
        # what DLPack does not carry: ml_dtypes.bfloat16, a byte-swapped
        # dtype, strides that are not whole elements (copied)
        if copy is False:
            raise ValueError(f"asarray: copy=False but NumPy's {obj.dtype} array cannot be shared")
        from ._interop import from_numpy
        r = from_numpy(obj, dev)
        if dtype is not None and dtype is not r.dtype:
            r = call(C.nd_astype, r._h, dtype.code)
        elif copy and C.nd_data(r._h) == obj.ctypes.data:
            r = call(C.nd_copy, r._h)
        return r
    if not isinstance(obj, (list, tuple)):
        try:
            mv = memoryview(obj)
        except TypeError:
            mv = None
        if mv is not None:
            if copy is False:
                raise ValueError("asarray: copy=False is not supported for buffer-protocol objects")
            fmt = mv.format.lstrip("@=<")
            src = _BUF_FMT.get(fmt)
            if src is None:
                raise TypeError(f"asarray: unsupported buffer format {mv.format!r}")
            raw = mv.tobytes()
            shape = tuple(mv.shape)
            a = call(C.nd_from_host, raw, src.code, len(shape), i64array(shape), dev._nd)
            if dtype is not None and dtype is not src:
                a = call(C.nd_astype, a._h, dtype.code)
            return a
        if hasattr(obj, "__index__"):
            return asarray(operator.index(obj), dtype=dtype, device=device, copy=copy)
        if hasattr(obj, "__float__") and not isinstance(obj, str):
            return asarray(float(obj), dtype=dtype, device=device, copy=copy)
    if copy is False:
        raise ValueError("asarray: copy=False is impossible for a Python sequence")
    shape = []
    vals = []
    _flatten(obj, shape, vals, 0)
    return _pack(vals, tuple(shape), dtype, dev)


def _creator(fn, shape, dtype, device):
    sh = _shape(shape)
    d = _dtype(dtype) or _dt.float64
    return call(fn, d.code, len(sh), i64array(sh), as_device(device)._nd)


def empty(shape, *, dtype=None, device=None):
    return _creator(C.nd_empty, shape, dtype, device)


def zeros(shape, *, dtype=None, device=None):
    return _creator(C.nd_zeros, shape, dtype, device)


def ones(shape, *, dtype=None, device=None):
    return _creator(C.nd_ones, shape, dtype, device)


def _like(fn, x, dtype, device):
    if not isinstance(x, Array):
        raise TypeError("expected an array")
    return _creator(fn, x.shape, dtype or x.dtype, device if device is not None else x.device)


def empty_like(x, /, *, dtype=None, device=None):
    try:
        return _like(C.nd_empty, x, dtype, device)
    except (AttributeError, TypeError) as e:
        return retry(empty_like, e, (x,), {"dtype": dtype, "device": device})


def zeros_like(x, /, *, dtype=None, device=None):
    try:
        return _like(C.nd_zeros, x, dtype, device)
    except (AttributeError, TypeError) as e:
        return retry(zeros_like, e, (x,), {"dtype": dtype, "device": device})


def ones_like(x, /, *, dtype=None, device=None):
    try:
        return _like(C.nd_ones, x, dtype, device)
    except (AttributeError, TypeError) as e:
        return retry(ones_like, e, (x,), {"dtype": dtype, "device": device})


def _fill_dtype(v):
    if isinstance(v, _pybool):
        return _dt.bool
    if isinstance(v, int):
        return _dt.int64
    if isinstance(v, float):
        return _dt.float64
    if isinstance(v, complex):
        return _dt.complex128
    raise TypeError(f"fill_value must be a Python scalar, not {type(v).__name__}")


def full(shape, fill_value, *, dtype=None, device=None):
    try:
        if isinstance(fill_value, Array):
            fill_value = item(fill_value)
        d = _dtype(dtype) or _fill_dtype(fill_value)
        if isinstance(fill_value, complex) and d.kind != "c":
            raise TypeError("full: a complex fill_value needs a complex dtype")
        return nd_full(_shape(shape), fill_value, d, as_device(device))
    except (AttributeError, TypeError) as e:
        if dtype is None and is_numpy(fill_value) and fill_value.ndim == 0:
            # a NumPy scalar fills with its own dtype, as np.full does
            return full(shape, fill_value.item(), dtype=fill_value.dtype, device=device)
        return retry(full, e, (shape, fill_value), {"dtype": dtype, "device": device})


def full_like(x, /, fill_value, *, dtype=None, device=None):
    try:
        if isinstance(fill_value, Array):
            fill_value = item(fill_value)
        d = _dtype(dtype) or x.dtype
        if isinstance(fill_value, complex) and d.kind != "c":
            raise TypeError("full_like: a complex fill_value needs a complex dtype")
        return nd_full(x.shape, fill_value, d, as_device(device) if device is not None else x.device)
    except (AttributeError, TypeError) as e:
        return retry(full_like, e, (x, fill_value), {"dtype": dtype, "device": device})


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    try:
        if stop is None:
            start, stop = 0, start
        vals = (start, stop, step)
        d = _dtype(dtype)
        if d is None:
            d = _dt.int64 if all(isinstance(v, int) for v in vals) else _dt.float64
        if step == 0:
            raise ValueError("arange: step must not be 0")
        return call(C.nd_arange_scalar, d.code, scalar(start), scalar(stop), scalar(step), as_device(device)._nd)
    except (AttributeError, TypeError) as e:
        return retry(arange, e, (start, stop, step), {"dtype": dtype, "device": device})


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    try:
        d = _dtype(dtype)
        dev = as_device(device)
        num = operator.index(num)
        if num < 0:
            raise ValueError("linspace: num must be non-negative")
        if isinstance(start, complex) or isinstance(stop, complex) or (d is not None and d.kind == "c"):
            start, stop = complex(start), complex(stop)
            re = call(C.nd_linspace, _dt.float64.code, start.real, stop.real, num, _pybool(endpoint), dev._nd)
            im = call(C.nd_linspace, _dt.float64.code, start.imag, stop.imag, num, _pybool(endpoint), dev._nd)
            r = re + im * 1j
            d = d or _dt.complex128
            return r if d is _dt.complex128 else call(C.nd_astype, r._h, d.code)
        d = d or _dt.float64
        return call(C.nd_linspace, d.code, float(start), float(stop), num, _pybool(endpoint), dev._nd)
    except (AttributeError, TypeError) as e:
        return retry(linspace, e, (start, stop, num), {"dtype": dtype, "device": device, "endpoint": endpoint})


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    try:
        d = _dtype(dtype) or _dt.float64
        m = -1 if n_cols is None else n_cols
        k = _clamp(k)
        return call(C.nd_eye, d.code, n_rows, m, k, as_device(device)._nd)
    except (AttributeError, TypeError) as e:
        return retry(eye, e, (n_rows, n_cols), {"k": k, "dtype": dtype, "device": device})


def meshgrid(*arrays, indexing="xy"):
    try:
        if indexing not in ("xy", "ij"):
            raise ValueError("meshgrid: indexing must be 'xy' or 'ij'")
        n = len(arrays)
        if n == 0:
            return []
        ins = (c_void_p * n)(*[a._h for a in arrays])
        outs = (c_void_p * n)()
        check(C.nd_meshgrid(outs, n, ins, 1 if indexing == "ij" else 0, True))
        return [wrap(outs[i]) for i in range(n)]
    except (AttributeError, TypeError) as e:
        return retry(meshgrid, e, arrays, {"indexing": indexing})


def _clamp(k):
    """A diagonal offset for a C int64 (ctypes would wrap a larger one)."""
    k = operator.index(k)
    return max(min(k, 1 << 62), -(1 << 62))


def tril(x, /, *, k=0):
    try:
        return call(C.nd_tril, x._h, _clamp(k))
    except (AttributeError, TypeError) as e:
        return retry(tril, e, (x,), {"k": k})


def triu(x, /, *, k=0):
    try:
        return call(C.nd_triu, x._h, _clamp(k))
    except (AttributeError, TypeError) as e:
        return retry(triu, e, (x,), {"k": k})
