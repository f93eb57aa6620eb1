"""The array object: a thin owner of one nd_array* reference.

Shape and dtype are read from the library on first use and cached, so
that x + y costs one call of nd_binary plus the nd_release when the result
goes: in C through ndgpu._core (its ArrayBase is Array's base) where the
module is built, else through ctypes and __del__ (the code below).
"""
import ctypes
import os
import struct
import sys
from ctypes import byref, c_void_p

from . import _dtypes as _dt
from . import _lib
from ._lib import C, BINARY, UNARY, NdDevice, check, error, i64array, scalar, intarray


def _load_core():
    """The compiled hot path (ndgpu._core, _core.c), bound to the library
    loaded above; None where it is not built or NDGPU_NO_EXT is set (then
    the ctypes code below runs: same results, errors and messages)."""
    global ext_error
    if os.environ.get("NDGPU_NO_EXT", "") not in ("", "0"):
        ext_error = "NDGPU_NO_EXT is set"
        return None
    try:
        from . import _core
        _core._init(_lib.lib._handle, _lib)
    except ImportError as e:
        import importlib.util
        if importlib.util.find_spec(__package__ + "._core") is None:
            ext_error = "ndgpu._core is not built (make python-ext; pip builds it where a C compiler is found)"
        else:
            ext_error = f"ndgpu._core does not load: {e}"
        return None
    return _core


ext_error = None  # why the extension is not in use (None when it is)
_core = _load_core()

_binary = C.nd_binary
_binary_scalar = C.nd_binary_scalar
_scalar_binary = C.nd_scalar_binary
_unary = C.nd_unary
_release = C.nd_release
_BY_CODE = _dt.BY_CODE
_SCALARS = (bool, int, float, complex)
_EXACT_SCALARS = frozenset(_SCALARS)

# --------------------------------------------------------------------------
# devices


# nd_device_type of the host (the CPU): the one device named without an id
_HOST = 0


class Device:
    """A device: `cpu` or `cuda:N` (compares by value; str() gives the name
    the library gives it, nd_device_str; the host without its id, as in
    PyTorch)."""
    __slots__ = ("type", "id")

    def __init__(self, type, id=0):
        self.type = type  # nd_device_type
        self.id = id

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = as_device(other)
            except ValueError:
                return False
        return isinstance(other, Device) and self.type == other.type and self.id == other.id

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.type, self.id))

    def __str__(self):
        buf = ctypes.create_string_buffer(32)
        s = C.nd_device_str(NdDevice(self.type, self.id), buf, 32).decode()
        return s[:-2] if self.type == _HOST and s.endswith(":0") else s

    def __repr__(self):
        return f"Device('{self}')"

    @property
    def _nd(self):
        return NdDevice(self.type, self.id)


CPU = Device(_HOST, 0)


def default_device():
    d = C.nd_default_device()
    return Device(d.type, d.id)


def as_device(device):
    """None -> the library's default device; a Device, or a name the
    library reads (nd_device_parse: 'cpu', 'cuda', 'cuda:N')."""
    if device is None:
        return default_device()
    if isinstance(device, Device):
        return device
    if isinstance(device, str):
        d = NdDevice()
        if C.nd_device_parse(byref(d), device.strip().lower().encode()) != 0:
            raise ValueError(f"unknown device {device!r} (expected a name such as 'cpu', 'cuda' or 'cuda:1')")
        return CPU if d.type == _HOST and d.id == 0 else Device(d.type, d.id)
    raise ValueError(f"unknown device {device!r}")


# --------------------------------------------------------------------------
# helpers


def _new(h):
    a = _Array_new(Array)
    a._h = h
    return a


def wrap(h):
    """An Array owning the reference h (a Python int, a handle)."""
    a = _Array_new(Array)
    a._h = h
    return a


def _unpickle(raw, shape, code, device):
    """A pickled Array: its bytes back on its device, or on the CPU in a
    process where that device is not usable (a worker without the GPU)."""
    dev = NdDevice()
    sh = i64array(shape)
    if C.nd_device_parse(byref(dev), device.encode()) == 0:
        o = c_void_p()
        if C.nd_from_host(byref(o), raw, code, len(shape), sh, dev) == 0:
            return wrap(o.value)
    return call(C.nd_from_host, raw, code, len(shape), sh, NdDevice(_HOST, 0))


def call(fn, *args, exc=None):
    """fn(&out, *args) -> a new Array."""
    o = c_void_p()
    st = fn(byref(o), *args)
    if st:
        raise error(st, exc)
    return _new(o.value)


def nd_full(shape, value, dtype, device):
    sh = i64array(shape)
    return call(C.nd_full, dtype.code, len(shape), sh, scalar(value), device._nd)


def host_bytes(a):
    n = C.nd_nbytes(a._h)
    buf = ctypes.create_string_buffer(max(n, 1))
    check(C.nd_copy_to_host(buf, a._h, n))
    return buf.raw[:n]


def _bf16_to_floats(raw):
    n = len(raw) // 2
    u16 = struct.unpack(f"<{n}H", raw)
    return list(struct.unpack(f"<{n}f", struct.pack(f"<{n}I", *[u << 16 for u in u16])))


def flat_values(a):
    """The elements of a in C order as Python scalars."""
    d = a.dtype
    raw = host_bytes(a)
    if d is _dt.bfloat16:
        return _bf16_to_floats(raw)
    n = len(raw) // d.itemsize
    if d.kind == "c":
        v = struct.unpack(f"<{2 * n}{d.fmt[0]}", raw)
        return [complex(v[2 * i], v[2 * i + 1]) for i in range(n)]
    return list(struct.unpack(f"<{n}{d.fmt}", raw))


def _nest(flat, shape):
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return flat
    step = 1
    for s in shape[1:]:
        step *= s
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def item(a):
    """The one element of a size-1 array as a Python scalar."""
    d = a.dtype
    n = d.itemsize
    buf = ctypes.create_string_buffer(n)
    st = C.nd_copy_to_host(buf, a._h, n)
    if st:
        if C.nd_size(a._h) != 1:
            raise ValueError(f"only size-1 arrays can be converted to Python scalars (shape {a.shape})")
        raise error(st)
    raw = buf.raw
    if d is _dt.bfloat16:
        return _bf16_to_floats(raw)[0]
    if d.kind == "c":
        v = struct.unpack("<" + d.fmt, raw)
        return complex(v[0], v[1])
    return struct.unpack("<" + d.fmt, raw)[0]


def to_array_like(x, other):
    """Python scalar x as a 0-d array of other's dtype (weak scalar rules) and device."""
    if isinstance(x, Array):
        return x
    if isinstance(x, _SCALARS):
        d = _dt.scalar_result(other.dtype, x)
        return nd_full((), x, d, other.device)
    a = as_operand(x, other)  # a NumPy array or scalar
    if a is not None:
        return a
    raise TypeError(f"expected an array or a Python scalar, got {type(x).__name__}")


def as_operand(x, like):
    """x, which is neither an Array nor a Python scalar, as an Array operand
    beside the Array `like` (on its device; like=None: the default device),
    or None when x is not something the package converts (the operators then
    return NotImplemented and the functions raise TypeError). The operators'
    and binop's one door for foreign operands: NumPy arrays (their dtype,
    shared without a copy on the CPU) and NumPy scalars (typed 0-d arrays,
    NEP 50). Instances of Python's scalar types (np.float64 and
    np.complex128 among them) are declined: the caller takes them as weak
    Python scalars. See _interop.py."""
    from ._interop import operand
    return operand(x, like)


def binop(op, x1, x2):
    """op(x1, x2) for arrays and Python scalars (functions: TypeError for others)."""
    o = c_void_p()
    t1 = type(x1) is Array or isinstance(x1, Array)
    t2 = type(x2) is Array or isinstance(x2, Array)
    if t1 and t2:
        st = _binary(byref(o), op, x1._h, x2._h)
    elif t1 and isinstance(x2, _SCALARS):
        st = _binary_scalar(byref(o), op, x1._h, scalar(x2))
    elif t2 and isinstance(x1, _SCALARS):
        st = _scalar_binary(byref(o), op, scalar(x1), x2._h)
    else:
        return _binop_foreign(op, x1, x2, t1, t2)
    if st:
        raise error(st)
    return _new(o.value)


def _binop_foreign(op, x1, x2, t1, t2):
    """binop with an operand that is neither an Array nor a Python scalar:
    converted beside the Array operand (as_operand), or both on the default
    device when neither is an Array; TypeError when one does not convert."""
    if t1:
        y2 = as_operand(x2, x1)
        y1 = x1
    elif t2:
        y1 = as_operand(x1, x2)
        y2 = x2
    else:
        y1 = x1 if isinstance(x1, _SCALARS) else as_operand(x1, None)
        y2 = x2 if isinstance(x2, _SCALARS) else as_operand(x2, y1 if isinstance(y1, Array) else None)
        if not isinstance(y1, Array) and not isinstance(y2, Array) and y1 is not None and y2 is not None:
            raise TypeError("at least one argument must be an array")
    if y1 is None or y2 is None:
        from ._interop import operand_error
        raise operand_error(x1, x2)
    return binop(op, y1, y2)


def unop(op, x):
    if not isinstance(x, Array):
        y = as_operand(x, None)
        if y is None:
            raise TypeError(f"expected an ndgpu.Array, got {type(x).__name__} (convert it with ndgpu.asarray)")
        x = y
    o = c_void_p()
    st = _unary(byref(o), op, x._h)
    if st:
        raise error(st)
    return _new(o.value)


def _axes_arg(axis, ndim):
    """axis (None, int or tuple) -> (naxes, c array or None)."""
    if axis is None:
        return -1, None
    if isinstance(axis, int):
        axis = (axis,)
    axis = tuple(axis)
    for a in axis:
        if not -ndim <= a < ndim and not (ndim == 0 and a in (0, -1) and False):
            raise ValueError(f"axis {a} is out of bounds for array of dimension {ndim}")
    norm = [a % ndim if ndim else a for a in axis]
    if len(set(norm)) != len(norm):
        raise ValueError(f"repeated axis in {axis}")
    return len(axis), intarray(axis)


# --------------------------------------------------------------------------
# the array object

def _foreign(other, like):
    """An operand of the operators that is neither an Array nor an exact
    bool/int/float/complex: the Array as_operand gives, else a weak scalar
    (NdScalar) for a subclass of those types, else None (NotImplemented).
    ndgpu._core follows the same order."""
    a = as_operand(other, like)
    if a is not None:
        return a
    if isinstance(other, _SCALARS):
        return scalar(other)
    return None


def _self_foreign(o, opn, self, other):
    """self op other into o (a c_void_p: NULL, or self's handle for op=) for an
    operand that is neither an Array nor an exact Python scalar: the status,
    or None when other is no operand (the operators' NotImplemented)."""
    a = _foreign(other, self)
    if a is None:
        return None
    if isinstance(a, Array):
        return _binary(byref(o), opn, self._h, a._h)
    return _binary_scalar(byref(o), opn, self._h, a)


def _make_binary(name, op, reflected=False, inplace=False, kinds=None):
    """The operator `name` for the library's binary op `op` (the ctypes
    path; ndgpu._core implements the same in C)."""
    opn = BINARY[op]

    if inplace:
        def f(self, other):
            o = c_void_p(self._h)
            if isinstance(other, Array):
                st = _binary(byref(o), opn, self._h, other._h)
            elif type(other) in _EXACT_SCALARS:
                st = _binary_scalar(byref(o), opn, self._h, scalar(other))
            else:
                st = _self_foreign(o, opn, self, other)
                if st is None:
                    return NotImplemented
            if st:
                raise error(st)
            return self
    elif reflected:
        def f(self, other):
            o = c_void_p()
            if type(other) in _EXACT_SCALARS:
                st = _scalar_binary(byref(o), opn, scalar(other), self._h)
            elif isinstance(other, Array):
                st = _binary(byref(o), opn, other._h, self._h)
            else:
                a = _foreign(other, self)
                if a is None:
                    return NotImplemented
                if isinstance(a, Array):
                    st = _binary(byref(o), opn, a._h, self._h)
                else:
                    st = _scalar_binary(byref(o), opn, a, self._h)
            if st:
                raise error(st)
            a = _Array_new(Array)
            a._h = o.value
            return a
    else:
        def f(self, other):
            o = c_void_p()
            if type(other) is Array:
                st = _binary(byref(o), opn, self._h, other._h)
            elif type(other) in _EXACT_SCALARS:
                st = _binary_scalar(byref(o), opn, self._h, scalar(other))
            elif isinstance(other, Array):
                st = _binary(byref(o), opn, self._h, other._h)
            else:
                st = _self_foreign(o, opn, self, other)
                if st is None:
                    return NotImplemented
            if st:
                raise error(st)
            a = _Array_new(Array)
            a._h = o.value
            return a
    f.__name__ = name
    return f


class Array(object if _core is None else _core.ArrayBase):
    """An n-dimensional array of libndgpu (the array API's array object).

    With the extension, ndgpu._core.ArrayBase holds the reference (_h),
    releases it with the object and implements the operators in C; without
    it (not built, or NDGPU_NO_EXT=1) the ctypes code of this class does.
    The cached _shape and _dtype and the weak reference list are slots of
    ArrayBase where it is the base (this class adds none: its instances
    then stay outside the cycle collector), else of this class."""
    __slots__ = ("_shape", "_dtype", "__weakref__", "_h") if _core is None else ()

    def __init__(self, *args, **kwargs):
        raise TypeError("ndgpu.Array cannot be created directly: use ndgpu.asarray, ndgpu.zeros, ...")

    if _core is None:
        def __del__(self):
            try:
                h = self._h
            except AttributeError:
                return
            if h:
                _release(h)

    # ---- attributes
    @property
    def dtype(self):
        try:
            return self._dtype
        except AttributeError:
            d = self._dtype = _BY_CODE[C.nd_dtype_of(self._h)]
            return d

    @property
    def shape(self):
        try:
            return self._shape
        except AttributeError:
            h = self._h
            n = C.nd_ndim(h)
            p = C.nd_shape(h)
            s = self._shape = tuple(p[:n]) if n else ()
            return s

    @property
    def ndim(self):
        return C.nd_ndim(self._h)

    @property
    def size(self):
        return C.nd_size(self._h)

    @property
    def device(self):
        d = C.nd_device_of(self._h)
        return Device(d.type, d.id)

    @property
    def T(self):
        if self.ndim != 2:
            raise ValueError("x.T requires a 2-D array (use permute_dims or mT)")
        return call(C.nd_transpose, self._h, None)

    @property
    def mT(self):
        if self.ndim < 2:
            raise ValueError("x.mT requires an array of at least 2 dimensions")
        return call(C.nd_swapaxes, self._h, -2, -1)

    def to_device(self, device, /, *, stream=None):
        dev = as_device(device)
        if dev == self.device:
            return self
        return call(C.nd_to_device, self._h, dev._nd)

    def __array_namespace__(self, /, *, api_version=None):
        if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
            raise ValueError(f"unsupported api_version {api_version!r}")
        import ndgpu
        return ndgpu

    # ---- Python conversions
    def __bool__(self):
        if self.dtype.kind == "c":
            return bool(item(self))
        return bool(item(self))

    def __int__(self):
        v = item(self)
        if isinstance(v, complex):
            raise TypeError("int() of a complex array")
        return int(v)

    def __float__(self):
        v = item(self)
        if isinstance(v, complex):
            raise TypeError("float() of a complex array")
        return float(v)

    def __complex__(self):
        return complex(item(self))

    def __index__(self):
        if self.dtype.kind not in "iu":
            raise TypeError(f"only integer arrays can be used as an index (dtype {self.dtype})")
        return int(item(self))

    def __len__(self):
        s = self.shape
        if not s:
            raise TypeError("len() of a 0-d array")
        return s[0]

    def __iter__(self):
        s = self.shape
        if not s:
            raise TypeError("iteration over a 0-d array")
        for i in range(s[0]):
            yield self[i]

    def tolist(self):
        """The elements as (nested) Python lists (an extension)."""
        return _nest(flat_values(self), self.shape)

    # printing: NumPy's layout and digits (_format.py); a summarised array
    # copies only its edge items to the host
    def __repr__(self):
        from ._format import array_repr
        return array_repr(self)

    def __str__(self):
        from ._format import array_str
        return array_str(self)

    def __format__(self, spec):
        from ._format import array_format
        return array_format(self, spec)

    def __hash__(self):
        raise TypeError("unhashable type: 'ndgpu.Array'")

    # ---- copies and pickling
    # The object holds a reference to a C array (_h): copying the object's
    # slots would give two owners of one reference (a use after free when
    # either goes). copy.copy and copy.deepcopy copy the data, as NumPy's
    # do; pickling carries the data, dtype, shape and device, and
    # unpickling makes a new array, in another process too.
    def __copy__(self):
        return call(C.nd_copy, self._h)

    def __deepcopy__(self, memo):
        return call(C.nd_copy, self._h)

    def __reduce__(self):
        return (_unpickle, (host_bytes(self), self.shape, self.dtype.code, str(self.device)))

    # ---- NumPy
    # np.asarray(x) views a CPU array's memory (no copy); NumPy's ufuncs on
    # ndgpu arrays give ndgpu arrays (_interop.py says what runs where).
    # There is no __array_function__: NumPy's other functions (np.mean,
    # np.concatenate, ...) take ndgpu arrays through __array__ (a zero-copy
    # view on the CPU) and give NumPy results, as NumPy code (SciPy's and
    # scikit-learn's NumPy paths) expects; a partial __array_function__
    # would instead make every NumPy function ndgpu does not have raise.
    def __array__(self, dtype=None, copy=None):
        from ._interop import to_numpy
        return to_numpy(self, dtype, copy)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from ._interop import array_ufunc
        return array_ufunc(self, ufunc, method, inputs, kwargs)

    # ---- DLPack
    def __dlpack_device__(self):
        t, i = ctypes.c_int(), ctypes.c_int()
        check(C.nd_dlpack_device(self._h, byref(t), byref(i)))
        return (t.value, i.value)

    def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
        from ._dlpack import export
        return export(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    # ---- indexing (with the extension, ArrayBase takes int / slice / None /
    # Ellipsis keys in C and hands the others to _indexing.getitem)
    if _core is None:
        def __getitem__(self, key):
            from ._indexing import getitem
            return getitem(self, key)

    def __setitem__(self, key, value):
        from ._indexing import setitem
        setitem(self, key, value)

    # ---- operators (ndgpu._core.ArrayBase has them in C: the number and
    # comparison slots; defining them here would put Python in front)
    _ifloordiv_lib = _make_binary("__ifloordiv__", "floor_divide", inplace=True)
    if _core is None:
        __add__ = _make_binary("__add__", "add")
        __radd__ = _make_binary("__radd__", "add", reflected=True)
        __iadd__ = _make_binary("__iadd__", "add", inplace=True)
        __sub__ = _make_binary("__sub__", "subtract")
        __rsub__ = _make_binary("__rsub__", "subtract", reflected=True)
        __isub__ = _make_binary("__isub__", "subtract", inplace=True)
        __mul__ = _make_binary("__mul__", "multiply")
        __rmul__ = _make_binary("__rmul__", "multiply", reflected=True)
        __imul__ = _make_binary("__imul__", "multiply", inplace=True)
        __truediv__ = _make_binary("__truediv__", "divide")
        __rtruediv__ = _make_binary("__rtruediv__", "divide", reflected=True)
        __itruediv__ = _make_binary("__itruediv__", "divide", inplace=True)
        __mod__ = _make_binary("__mod__", "remainder")
        __rmod__ = _make_binary("__rmod__", "remainder", reflected=True)
        __imod__ = _make_binary("__imod__", "remainder", inplace=True)
        __pow__ = _make_binary("__pow__", "power")
        __rpow__ = _make_binary("__rpow__", "power", reflected=True)
        __ipow__ = _make_binary("__ipow__", "power", inplace=True)
        __and__ = _make_binary("__and__", "bitwise_and")
        __rand__ = _make_binary("__rand__", "bitwise_and", reflected=True)
        __iand__ = _make_binary("__iand__", "bitwise_and", inplace=True)
        __or__ = _make_binary("__or__", "bitwise_or")
        __ror__ = _make_binary("__ror__", "bitwise_or", reflected=True)
        __ior__ = _make_binary("__ior__", "bitwise_or", inplace=True)
        __xor__ = _make_binary("__xor__", "bitwise_xor")
        __rxor__ = _make_binary("__rxor__", "bitwise_xor", reflected=True)
        __ixor__ = _make_binary("__ixor__", "bitwise_xor", inplace=True)
        __lshift__ = _make_binary("__lshift__", "left_shift")
        __rlshift__ = _make_binary("__rlshift__", "left_shift", reflected=True)
        __ilshift__ = _make_binary("__ilshift__", "left_shift", inplace=True)
        __rshift__ = _make_binary("__rshift__", "right_shift")
        __rrshift__ = _make_binary("__rrshift__", "right_shift", reflected=True)
        __irshift__ = _make_binary("__irshift__", "right_shift", inplace=True)
        __eq__ = _make_binary("__eq__", "equal")
        __ne__ = _make_binary("__ne__", "not_equal")
        __lt__ = _make_binary("__lt__", "less")
        __le__ = _make_binary("__le__", "less_equal")
        __gt__ = _make_binary("__gt__", "greater")
        __ge__ = _make_binary("__ge__", "greater_equal")

    def __floordiv__(self, other):
        if not isinstance(other, (Array, bool, int, float, complex)):
            return NotImplemented
        from ._elementwise import floor_divide
        return floor_divide(self, other)

    def __rfloordiv__(self, other):
        if not isinstance(other, (Array, bool, int, float, complex)):
            return NotImplemented
        from ._elementwise import floor_divide
        return floor_divide(other, self)

    def __ifloordiv__(self, other):
        if not isinstance(other, (Array, bool, int, float, complex)):
            return NotImplemented
        if self.dtype.kind != "f":
            return self._ifloordiv_lib(other)
        from ._elementwise import floor_divide
        r = floor_divide(self, other)
        if r.shape != self.shape:
            raise ValueError(f"x //= y: the result shape {r.shape} is not x's {self.shape}")
        if r.dtype is not self.dtype:
            raise TypeError(f"x //= y: the result dtype {r.dtype} is not x's {self.dtype}")
        o = c_void_p(self._h)
        check(C.nd_copy(byref(o), r._h))
        return self

    def __matmul__(self, other):
        if not isinstance(other, Array):
            return NotImplemented
        return call(C.nd_matmul, self._h, other._h)

    def __rmatmul__(self, other):
        if not isinstance(other, Array):
            return NotImplemented
        return call(C.nd_matmul, other._h, self._h)

    def __imatmul__(self, other):
        if not isinstance(other, Array):
            return NotImplemented
        r = call(C.nd_matmul, self._h, other._h)
        if r.shape != self.shape:
            raise ValueError(f"x @= y: the result shape {r.shape} is not x's {self.shape}")
        o = c_void_p(self._h)
        check(C.nd_copy(byref(o), r._h))
        return self

    if _core is None:
        def __neg__(self):
            return unop(UNARY["negative"], self)

        def __pos__(self):
            return unop(UNARY["positive"], self)

        def __abs__(self):
            return unop(UNARY["abs"], self)

        def __invert__(self):
            if self.dtype is _dt.bool:
                return unop(UNARY["logical_not"], self)
            return unop(UNARY["bitwise_not"], self)


# The fast paths: new Arrays from handles, and the elementwise functions'
# binop/unop (Array/Array and Array/exact scalar in C, the rest through the
# Python binop/unop above).
# reduce_all(op, x, keepdims): a whole-array reduction in C, None for a
# non-Array x (the statistical functions' fast path; None without the module).
if _core is None:
    _Array_new = object.__new__
    fast_binop, fast_unop = binop, unop
    fast_reduce_all = None
else:
    # Array is ArrayBase itself, completed with the methods and properties of
    # the class above: a Python subclass would put every instance under the
    # cycle collector and its dealloc behind subtype_dealloc (a third of the
    # cost of x[0]); the instances of the C type are plain objects that
    # ndgpu._core recycles (a free list). They cannot form cycles: besides
    # the handle they hold a shape tuple of ints and a dtype.
    for _k, _v in vars(Array).items():
        if _k not in ("__slots__", "__dict__", "__weakref__"):
            setattr(_core.ArrayBase, _k, _v)
    _core.ArrayBase.__name__ = _core.ArrayBase.__qualname__ = Array.__name__
    Array = _core.ArrayBase
    _core._set_array_type(Array, sys.modules[__name__])
    _Array_new = _core.ArrayBase.__new__
    wrap = _new = _core.wrap
    fast_binop, fast_unop = _core.binop, _core.unop
    fast_reduce_all = _core.reduce_all
