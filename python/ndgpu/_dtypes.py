"""dtypes, promotion, iinfo/finfo/can_cast/result_type/isdtype."""
from ._lib import C, check
from ctypes import c_int, byref

__all__ = ["DType", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
           "bfloat16", "float32", "float64", "complex64", "complex128", "iinfo", "finfo", "can_cast",
           "result_type", "isdtype"]

_pybool = bool


class DType:
    """An array dtype (compares equal only to itself; hashable)."""
    __slots__ = ("name", "code", "itemsize", "kind", "fmt")

    def __init__(self, name, code, itemsize, kind, fmt):
        self.name = name
        self.code = code
        self.itemsize = itemsize
        self.kind = kind  # 'b' bool, 'i' signed, 'u' unsigned, 'f' real float, 'c' complex
        self.fmt = fmt  # struct format of one element ('' for bfloat16: read through float32)

    @property
    def dtype(self):
        """NumPy's dtype of the same name (ml_dtypes.bfloat16 for bfloat16).

        `kind`, `itemsize` and `name` read as NumPy's do, so NumPy-style
        code takes an ndgpu dtype for a NumPy one: scikit-learn's RidgeCV,
        fitted on ndgpu arrays with array API dispatch off, sees
        X.dtype.kind == "f", keeps X.dtype and casts its NumPy results to it
        (np.astype(coef, X.dtype)). NumPy interprets any object with a
        `dtype` attribute through that attribute, so with this property
        np.dtype(ndgpu.float32), a.astype(ndgpu.float32) and
        np.zeros(3, dtype=ndgpu.float32) work as with NumPy's own dtypes.
        AttributeError without NumPy (or without ml_dtypes for bfloat16)."""
        try:
            import numpy as np
            if self is bfloat16:
                import ml_dtypes
                return np.dtype(ml_dtypes.bfloat16)
            return np.dtype(self.name)
        except ImportError as e:
            raise AttributeError(f"{self!r}.dtype needs {e.name}") from None

    def __repr__(self):
        return f"ndgpu.{self.name}"

    __str__ = __repr__

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __hash__(self):
        return hash(("ndgpu.dtype", self.code))

    def __reduce__(self):
        return self.name


bool = DType("bool", 0, 1, "b", "?")
int8 = DType("int8", 1, 1, "i", "b")
int16 = DType("int16", 2, 2, "i", "h")
int32 = DType("int32", 3, 4, "i", "i")
int64 = DType("int64", 4, 8, "i", "q")
uint8 = DType("uint8", 5, 1, "u", "B")
uint16 = DType("uint16", 6, 2, "u", "H")
uint32 = DType("uint32", 7, 4, "u", "I")
uint64 = DType("uint64", 8, 8, "u", "Q")
float16 = DType("float16", 9, 2, "f", "e")
bfloat16 = DType("bfloat16", 10, 2, "f", "")
float32 = DType("float32", 11, 4, "f", "f")
float64 = DType("float64", 12, 8, "f", "d")
complex64 = DType("complex64", 13, 8, "c", "ff")
complex128 = DType("complex128", 14, 16, "c", "dd")

BY_CODE = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64,
           complex64, complex128)
BY_NAME = {d.name: d for d in BY_CODE}
# the dtypes of the array API standard (float16/bfloat16 are extensions)
STANDARD = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, complex64, complex128)
REAL_OF = {complex64: float32, complex128: float64}
COMPLEX_OF = {float32: complex64, float64: complex128, float16: complex64, bfloat16: complex64}

_INT_RANGE = {int8: (-2**7, 2**7 - 1), int16: (-2**15, 2**15 - 1), int32: (-2**31, 2**31 - 1),
              int64: (-2**63, 2**63 - 1), uint8: (0, 2**8 - 1), uint16: (0, 2**16 - 1), uint32: (0, 2**32 - 1),
              uint64: (0, 2**64 - 1)}


def as_dtype(d):
    if isinstance(d, DType):
        return d
    if isinstance(d, str) and d in BY_NAME:
        return BY_NAME[d]
    name = getattr(d, "name", None)  # e.g. a NumPy dtype
    if isinstance(name, str) and name in BY_NAME:
        return BY_NAME[name]
    raise TypeError(f"not a dtype: {d!r}")


def _promote(a, b):
    if a is b:
        return a
    out = c_int()
    check(C.nd_result_type(byref(out), a.code, b.code))
    return BY_CODE[out.value]


_PROMO = {}
for _a in BY_CODE:
    for _b in BY_CODE:
        _PROMO[(_a, _b)] = _promote(_a, _b)


def promote(a, b):
    return _PROMO[(a, b)]


class iinfo_object:
    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, bits, mx, mn, dtype):
        self.bits, self.max, self.min, self.dtype = bits, mx, mn, dtype

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype.name})"


class finfo_object:
    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")

    def __init__(self, bits, eps, mx, mn, sn, dtype):
        self.bits, self.eps, self.max, self.min, self.smallest_normal, self.dtype = bits, eps, mx, mn, sn, dtype

    def __repr__(self):
        return (f"finfo(resolution={self.eps}, min={self.min}, max={self.max}, "
                f"dtype={self.dtype.name})")


_FINFO = {
    float16: (16, 2.0**-10, 65504.0, 2.0**-14),
    bfloat16: (16, 2.0**-7, 3.3895313892515355e38, 2.0**-126),
    float32: (32, 2.0**-23, 3.4028234663852886e38, 2.0**-126),
    float64: (64, 2.220446049250313e-16, 1.7976931348623157e308, 2.2250738585072014e-308),
}


def _dtype_of_arg(x):
    if isinstance(x, DType):
        return x
    d = getattr(x, "dtype", None)
    if isinstance(d, DType):
        return d
    return as_dtype(x)


def iinfo(type, /):
    d = _dtype_of_arg(type)
    if d not in _INT_RANGE:
        raise TypeError(f"iinfo: {d} is not an integer dtype")
    mn, mx = _INT_RANGE[d]
    return iinfo_object(d.itemsize * 8, mx, mn, d)


def finfo(type, /):
    d = _dtype_of_arg(type)
    if d.kind == "c":
        r = REAL_OF[d]
        bits, eps, mx, sn = _FINFO[r]
        return finfo_object(bits, eps, mx, -mx, sn, r)  # NumPy's: the real part's figures
    if d.kind != "f":
        raise TypeError(f"finfo: {d} is not a floating-point dtype")
    bits, eps, mx, sn = _FINFO[d]
    return finfo_object(bits, eps, mx, -mx, sn, d)


def can_cast(from_, to, /):
    """Whether from_ can be cast to `to` under the promotion rules
    (result_type(from_, to) == to; cross-kind as NumPy's "safe" casting)."""
    f = _dtype_of_arg(from_)
    t = as_dtype(to)
    if f is t:
        return True
    if f.kind == "b":
        return True  # NumPy's safe casting (the standard leaves cross-kind casts open)
    if t.kind == "b":
        return False
    return _PROMO[(f, t)] is t


_KINDS = {
    "bool": lambda d: d.kind == "b",
    "signed integer": lambda d: d.kind == "i",
    "unsigned integer": lambda d: d.kind == "u",
    "integral": lambda d: d.kind in "iu",
    "real floating": lambda d: d.kind == "f",
    "complex floating": lambda d: d.kind == "c",
    "numeric": lambda d: d.kind in "iufc",
}


def isdtype(dtype, kind):
    if not isinstance(dtype, DType):
        raise TypeError(f"isdtype: {dtype!r} is not a dtype")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, DType):
        return dtype is kind
    if isinstance(kind, str):
        try:
            return _KINDS[kind](dtype)
        except KeyError:
            raise ValueError(f"isdtype: unknown kind {kind!r}") from None
    raise TypeError(f"isdtype: kind must be a dtype, a string or a tuple, not {kind!r}")


def result_type(*arrays_and_dtypes):
    """The array API's promotion of arrays and dtypes; Python scalars are weak
    (2024.12): they take the kind of the other operands."""
    dts = []
    scalars = []
    for x in arrays_and_dtypes:
        if isinstance(x, DType):
            dts.append(x)
        elif isinstance(x, (_pybool, int, float, complex)):
            scalars.append(x)
        else:
            d = getattr(x, "dtype", None)
            if isinstance(d, DType):
                dts.append(d)
            else:
                dts.append(as_dtype(x))
    if not dts:
        if not scalars:
            raise ValueError("result_type: at least one array or dtype is required")
        raise ValueError("result_type: at least one array or dtype is required (only Python scalars given)")
    r = dts[0]
    for d in dts[1:]:
        r = _PROMO[(r, d)]
    for s in scalars:
        r = scalar_result(r, s)
    return r


def scalar_result(d, s):
    """dtype of (array of dtype d) op (Python scalar s) under the weak rules."""
    t = type(s)
    if t is _pybool or isinstance(s, _pybool):
        return d
    if isinstance(s, int):
        return int64 if d.kind == "b" else d
    if isinstance(s, float):
        return d if d.kind in "fc" else float64
    if isinstance(s, complex):
        if d.kind == "c":
            return d
        if d is float32 or d is float16 or d is bfloat16:
            return complex64
        return complex128
    raise TypeError(f"unsupported scalar {s!r}")
