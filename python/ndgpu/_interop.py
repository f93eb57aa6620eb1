"""NumPy interop: NumPy arrays and scalars as operands, indices and
arguments, and ndgpu arrays handed to NumPy (__array__, __array_ufunc__).

What converts, and why:

* ndgpu -> NumPy (Array.__array__, NumPy 2's protocol): a CPU array is
  viewed, not copied: the NumPy array shares the ndgpu array's memory
  (any strides, negative ones included) and keeps it alive; it is read-only
  when the ndgpu array cannot be written (a broadcast view, a read-only
  import). A GPU array is not converted implicitly (TypeError, as CuPy
  does): a silent device-to-host copy in np.asarray(x) hides the cost of
  every NumPy call on a GPU array; asking for a copy (np.array(x),
  np.asarray(x, copy=True)) copies to the host.
* NumPy -> ndgpu (as_operand, from_numpy): a NumPy array keeps its dtype
  and is shared without a copy when the target is the CPU (DLPack), copied
  to a GPU; a NumPy scalar is a 0-d array of its own dtype (NEP 50:
  np.float32(1) is a float32 operand), except np.float64 and np.complex128,
  which are subclasses of Python's float and complex and so are weak
  Python scalars everywhere (as in array-api-strict and PyTorch).
* NumPy ufuncs on ndgpu arrays (Array.__array_ufunc__): the ufuncs the
  library has run in ndgpu on the arrays' device and give ndgpu arrays;
  the others run in NumPy on zero-copy views when the arrays are on the
  CPU (see array_ufunc) and give ndgpu arrays; on a GPU they are refused.
* NumPy arrays as arguments of the namespace's functions: converted
  (retry), on the device of the other Array arguments, else the default
  device. The functions catch the failure of their normal path and call
  retry from the except clause, so an Array argument costs nothing more
  (Python's try blocks are free until something raises).

NumPy is never imported here: a NumPy object can only exist once the user
has imported NumPy, so sys.modules tells whether to look for one.
"""
import sys
from ctypes import byref, c_void_p

from . import _dtypes as _dt
from ._array import _HOST, CPU, Array, call, default_device, nd_full
from ._lib import C, check, i64array

_SCALARS = (bool, int, float, complex)
_LITTLE = sys.byteorder == "little"
_E = "<" if _LITTLE else ">"

# ndgpu dtype -> NumPy's typestr (__array_interface__); bfloat16: raw 16-bit
# words, viewed as ml_dtypes.bfloat16 afterwards
_TYPESTR = {_dt.bool: "|b1", _dt.int8: "|i1", _dt.int16: _E + "i2", _dt.int32: _E + "i4", _dt.int64: _E + "i8",
            _dt.uint8: "|u1", _dt.uint16: _E + "u2", _dt.uint32: _E + "u4", _dt.uint64: _E + "u8",
            _dt.float16: _E + "f2", _dt.bfloat16: _E + "u2", _dt.float32: _E + "f4", _dt.float64: _E + "f8",
            _dt.complex64: _E + "c8", _dt.complex128: _E + "c16"}


def numpy():
    """The NumPy module when it has been imported, else None."""
    return sys.modules.get("numpy")


def _bfloat16():
    """ml_dtypes.bfloat16 (NumPy's bfloat16 dtype) when importable, else None."""
    try:
        import ml_dtypes
    except ImportError:
        return None
    return ml_dtypes.bfloat16


def is_numpy(x):
    """Whether x is a NumPy array or a NumPy scalar."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, (np.ndarray, np.generic))


# --------------------------------------------------------------------------
# ndgpu -> NumPy

class _View:
    """The owner NumPy sees behind a view of an ndgpu array (its base): the
    array interface of the memory, and a reference to the Array that
    keeps the memory alive while the view lives."""
    __slots__ = ("__array_interface__", "array")

    def __init__(self, a, iface):
        self.array = a
        self.__array_interface__ = iface


def _np_view(a, np):
    """A NumPy array sharing the memory of the CPU Array a."""
    d = a.dtype
    shape = a.shape
    h = a._h
    n = len(shape)
    size = C.nd_size(h)
    if size == 0:
        r = np.empty(shape, dtype=_TYPESTR[d])
    else:
        st = C.nd_strides(h)
        isz = d.itemsize
        strides = tuple(st[i] * isz for i in range(n))
        iface = {"version": 3, "shape": shape, "typestr": _TYPESTR[d], "strides": strides,
                 "data": (C.nd_data(h), not C.nd_is_writable(h))}
        r = np.asarray(_View(a, iface))
    if d is _dt.bfloat16:
        r = r.view(_bfloat16())
    return r


def to_numpy(a, dtype=None, copy=None):
    """Array.__array__: a NumPy array of a (see the module's docstring)."""
    import numpy as np
    want = None if dtype is None else np.dtype(dtype)
    if C.nd_device_of(a._h).type != _HOST:
        if copy is not True:
            raise TypeError(
                f"an ndgpu array on {a.device} is not converted to a NumPy array implicitly (that would copy it "
                "to the host behind your back): copy it explicitly with x.to_device('cpu') or "
                "np.from_dlpack(x, device='cpu'), or ask NumPy for a copy (np.array(x), "
                "np.asarray(x, copy=True))")
        a = call(C.nd_to_device, a._h, CPU._nd)  # a private copy: the view below owns it
        copy = None  # copied once: a dtype conversion below may copy again, nothing else does
    if a.dtype is _dt.bfloat16 and _bfloat16() is None:
        # NumPy has no bfloat16 without ml_dtypes: float32 holds every value
        if copy is False:
            raise ValueError("a bfloat16 array converts to NumPy only through a copy (to float32) when "
                             "ml_dtypes is not installed")
        r = _np_view(call(C.nd_astype, a._h, _dt.float32.code), np)
        return r if want is None or want == r.dtype else r.astype(want)
    r = _np_view(a, np)
    if want is not None and want != r.dtype:
        if copy is False:
            raise ValueError(f"converting an ndgpu {a.dtype.name} array to NumPy's {want} needs a copy "
                             "(copy=False)")
        return r.astype(want)
    if copy:
        return r.copy(order="K")
    return r


# --------------------------------------------------------------------------
# NumPy -> ndgpu

def _nd_dtype(npdtype):
    """The ndgpu dtype of a NumPy dtype, or None."""
    d = _dt.BY_NAME.get(npdtype.name)
    if d is None or (d is _dt.bfloat16) != (npdtype.kind == "V"):
        return None  # e.g. a structured 'V' dtype that is not bfloat16
    return d


def from_numpy(a, device):
    """The NumPy array or scalar a as an Array on device (a Device): shared
    (DLPack, no copy) on the CPU where NumPy can export it, else copied.
    TypeError for a dtype the library does not have."""
    np = sys.modules["numpy"]
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    d = _nd_dtype(a.dtype)
    if d is None:
        raise TypeError(f"ndgpu has no dtype for NumPy's {a.dtype} (the library's dtypes: bool, int8..int64, "
                        "uint8..uint64, float16, bfloat16, float32, float64, complex64, complex128)")
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if device.type == _HOST and d is not _dt.bfloat16 and a.size:
        from ._dlpack import from_dlpack
        try:
            return from_dlpack(a)
        except (BufferError, TypeError, ValueError):
            pass  # e.g. strides that are not a whole number of elements: copied below
    c = np.ascontiguousarray(a)
    return call(C.nd_from_host, c.ctypes.data if c.size else None, d.code, c.ndim, i64array(c.shape), device._nd)


def scalar_operand(x, device):
    """The NumPy scalar x (not a Python scalar subclass) as a typed 0-d array."""
    np = sys.modules["numpy"]
    d = _nd_dtype(x.dtype)
    if d is None:
        raise TypeError(f"ndgpu has no dtype for NumPy's {x.dtype}")
    if d is _dt.bfloat16:
        return from_numpy(np.asarray(x), device)
    if isinstance(x, np.integer) and d.kind == "u" and x > (1 << 63) - 1:
        return from_numpy(np.asarray(x), device)  # beyond the int64 of a weak scalar: copied as it is
    return nd_full((), x.item(), d, device)


def operand(x, like):
    """as_operand's work: x (neither an Array nor a Python scalar) as an
    Array on like's device (like: an Array, or None for the default device),
    or None when x is not a NumPy array or scalar of a dtype ndgpu has."""
    np = sys.modules.get("numpy")
    if np is None or isinstance(x, _SCALARS):
        # np.float64, np.complex128 (and any other subclass of Python's
        # scalar types): declined, so that every caller takes them as the
        # weak Python scalars they are
        return None
    dev = default_device() if like is None else like.device
    if isinstance(x, np.ndarray):
        if _nd_dtype(x.dtype) is None:
            return None
        return from_numpy(x, dev)
    if isinstance(x, np.generic):
        if _nd_dtype(x.dtype) is None:
            return None
        return scalar_operand(x, dev)
    return None


def operand_error(x1, x2):
    """The TypeError of an elementwise function whose operands do not convert."""
    for x in (x1, x2):
        if not isinstance(x, (Array,) + _SCALARS):
            if is_numpy(x):
                return TypeError(f"ndgpu has no dtype for NumPy's {x.dtype}")
            return TypeError(f"unsupported operand type {_tname(x)}: expected an ndgpu.Array, a Python scalar or "
                             "a NumPy array or scalar (convert other arrays with ndgpu.asarray)")
    return TypeError("at least one argument must be an array")


def _tname(x):
    t = type(x)
    m = t.__module__
    return t.__qualname__ if m == "builtins" else f"{m.split('.')[0]}.{t.__qualname__}"


# --------------------------------------------------------------------------
# NumPy arrays as arguments of the namespace's functions

def _find_device(args):
    for a in args:
        if isinstance(a, Array):
            return a.device
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Array):
                    return b.device
    return None


def retry(fn, exc, args, kwargs=None):
    """fn(*args, **kwargs) raised exc: call it again with its NumPy arrays
    converted (to Arrays on the device of its Array arguments, else the
    default device; in lists and tuples too) and its NumPy scalars read as
    Python scalars. Where there is nothing to convert: a TypeError naming
    an argument that is not an Array when exc says an array was expected
    (an AttributeError on `_h`), else exc itself."""
    kwargs = kwargs or {}
    np = sys.modules.get("numpy")
    found = [False]
    dev = [None]

    def conv(v, top):
        if isinstance(v, np.ndarray):
            if dev[0] is None:
                dev[0] = _find_device(list(args) + list(kwargs.values())) or default_device()
            found[0] = True
            return from_numpy(v, dev[0])
        if isinstance(v, np.generic) and not isinstance(v, _SCALARS):
            found[0] = True
            return v.item()
        if top and isinstance(v, (list, tuple)):
            return type(v)(conv(e, False) for e in v)
        return v

    if np is not None:
        args2 = tuple(conv(a, True) for a in args)
        kwargs2 = {k: conv(v, True) for k, v in kwargs.items()}
        if found[0]:
            return fn(*args2, **kwargs2)
    if isinstance(exc, AttributeError) and "'_h'" in str(exc):
        bad = _not_an_array(list(args) + list(kwargs.values()))
        if bad is not None:
            raise TypeError(f"{fn.__name__.lstrip('_')}: expected an ndgpu.Array, got {_tname(bad)} "
                            "(convert it with ndgpu.asarray)") from None
    raise exc


def _not_an_array(vals):
    """The argument that stood where an Array was expected: an object that
    is no scalar, string, dtype or device; else a list or tuple without
    Arrays (a nested sequence); else a non-Array inside a list of Arrays."""
    from ._dtypes import DType
    from ._array import Device
    plain = _SCALARS + (str, DType, Device, slice, type(None))
    for a in vals:
        if not isinstance(a, (Array, list, tuple) + plain):
            return a
    for a in vals:
        if isinstance(a, list) and not any(isinstance(b, Array) for b in a):
            return a
    for a in vals:
        if isinstance(a, (list, tuple)) and any(isinstance(b, Array) for b in a):
            for b in a:
                if not isinstance(b, Array):
                    return b
    return None


def numpy_key(key, device):
    """An index key with its NumPy arrays converted to Arrays on device and
    its NumPy scalars to Python scalars (integers, bools), or None when the
    key has no NumPy part."""
    np = sys.modules.get("numpy")
    if np is None:
        return None
    found = False

    def conv(k):
        nonlocal found
        if isinstance(k, np.ndarray):
            found = True
            if k.dtype.kind not in "biu":
                raise IndexError(f"NumPy arrays used as indices must be of integer or boolean type, not {k.dtype}")
            return from_numpy(k, device)
        if isinstance(k, np.generic):
            found = True
            if isinstance(k, np.bool_):
                return nd_full((), bool(k), _dt.bool, device)  # a 0-d mask, as NumPy reads np.True_
            if isinstance(k, np.integer):
                return int(k)
            raise IndexError(f"only integers, slices, ellipsis, None and integer or boolean arrays are valid "
                             f"indices, not NumPy's {k.dtype}")
        return k

    if isinstance(key, tuple):
        k2 = tuple(conv(k) for k in key)
    else:
        k2 = conv(key)
    return k2 if found else None


# --------------------------------------------------------------------------
# NumPy's ufuncs on ndgpu arrays

_NATIVE = None


def _native_table():
    """NumPy ufunc name -> ('u' or 'b', the library's op code), for the
    ufuncs the library has under NumPy's name and meaning."""
    global _NATIVE
    if _NATIVE is None:
        from ._lib import BINARY, UNARY
        from .special import __all__ as special  # scipy.special's and the activations: not NumPy ufuncs
        t = {n: ("u", i) for n, i in UNARY.items() if n not in ("sigmoid", "relu") and n not in special}
        t["absolute"] = t.pop("abs")
        t["invert"] = t.pop("bitwise_not")
        t.update({n: ("b", i) for n, i in BINARY.items() if n not in special})
        t["matmul"] = ("m", None)  # a ufunc in NumPy 2: x @ np_array reaches it through np_array.__rmatmul__
        _NATIVE = t
    return _NATIVE


def _wrap_result(r, np):
    """A NumPy result as an Array on the CPU (shared); as it is when the
    library has no such dtype."""
    if isinstance(r, tuple):
        return tuple(_wrap_result(e, np) for e in r)
    if isinstance(r, (np.ndarray, np.generic)) and _nd_dtype(r.dtype) is not None:
        return from_numpy(r, CPU)
    return r


def array_ufunc(self, ufunc, method, inputs, kwargs):
    """Array.__array_ufunc__.

    The ufuncs the library has (np.add, np.exp, np.maximum, ... as plain
    calls, out= of ndgpu arrays allowed) run in ndgpu on the arrays'
    device, NumPy operands converted beside them. Everything else (ufuncs
    the library lacks, such as SciPy's special functions; the methods
    reduce/accumulate/outer/at; keywords such as dtype= or where=; a
    promotion the library refuses) runs in NumPy itself when the arrays are
    on the CPU: NumPy reads the ndgpu arrays through zero-copy views and
    writes out= arrays in place, so nothing is copied and the values are
    NumPy's own; the results come back as ndgpu arrays (shared). That
    serves users best: scipy.special.expit(x) or np.frexp(x) simply works,
    and gives what NumPy gives. On a GPU the same would silently copy the
    data to the host and back, so it is refused with a TypeError that says
    what to do, as the implicit conversion is (CuPy refuses it too).
    """
    np = sys.modules["numpy"]
    out = kwargs.get("out")
    outs = out if out is not None else ()
    dev = None
    for x in inputs + tuple(outs):
        if isinstance(x, Array):
            if dev is None:
                dev = x.device
        elif not isinstance(x, _SCALARS + (np.ndarray, np.generic)):
            return NotImplemented  # another library's array: let it decide
    if dev is None:
        dev = self.device
    name = ufunc.__name__
    spec = _native_table().get(name) if method == "__call__" else None
    native = (spec is not None and ufunc.nout == 1 and set(kwargs) <= {"out"} and len(inputs) == ufunc.nin
              and all(isinstance(o, Array) for o in outs)
              and (spec[0] != "m" or all(isinstance(x, (Array, np.ndarray)) for x in inputs)))
    if native:
        try:
            r = _native(spec, inputs, dev)
        except TypeError:
            if dev.type != _HOST:
                raise
            r = None  # e.g. a promotion NumPy makes and the library refuses: NumPy's own below
        if r is not None:
            if out is None:
                return r
            o = c_void_p(outs[0]._h)
            check(C.nd_copy(byref(o), r._h))
            return outs[0]
    if dev.type != _HOST:
        what = f"np.{name}" + ("" if method == "__call__" else "." + method)
        raise TypeError(f"{what} on an ndgpu array on {dev}: ndgpu has no such operation on that device and "
                        "does not copy the data to the host implicitly; use ndgpu's functions, or copy to the "
                        "host explicitly (x.to_device('cpu'))")
    args = tuple(to_numpy(x) if isinstance(x, Array) else x for x in inputs)
    if out is not None:
        npouts = []
        for o in outs:
            if isinstance(o, Array):
                v = to_numpy(o)
                if not v.flags.writeable:
                    raise ValueError("out= is a read-only ndgpu array (a broadcast view or a read-only import)")
                npouts.append(v)
            else:
                npouts.append(o)
        kwargs = dict(kwargs, out=tuple(npouts))
    r = getattr(ufunc, method)(*args, **kwargs)
    if method == "at":
        return None
    if out is not None:
        return outs[0] if len(outs) == 1 else tuple(outs)
    return _wrap_result(r, np)


def _native(spec, inputs, dev):
    from ._array import binop, unop
    conv = []
    for x in inputs:
        if isinstance(x, (Array,) + _SCALARS):
            conv.append(x)  # np.float64 / np.complex128 among them: Python floats and complexes (weak)
        else:
            np = sys.modules["numpy"]
            if _nd_dtype(x.dtype) is None:
                raise TypeError(f"ndgpu has no dtype for NumPy's {x.dtype}")
            conv.append(from_numpy(x, dev) if isinstance(x, np.ndarray) else scalar_operand(x, dev))
    kind, op = spec
    if kind == "u":
        return unop(op, conv[0])
    if kind == "m":
        from ._manipulation import matmul
        return matmul(conv[0], conv[1])
    return binop(op, conv[0], conv[1])
