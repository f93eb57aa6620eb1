"""Elementwise functions: thin wrappers of the library's op table."""
from . import _dtypes as _dt
from ._array import Array, binop, call, unop, to_array_like, fast_binop, fast_unop
from ctypes import byref, c_void_p

from ._lib import BINARY, UNARY, C, check, scalar
from ._interop import retry


def _not_array(fn, x, *rest, **kw):
    """fn called with x that is not an Array: again with NumPy arrays
    converted, else a TypeError naming x (_interop.retry)."""
    return retry(fn, TypeError(f"{fn.__name__}: expected an array, got {type(x).__name__}"), (x,) + rest, kw)

# array API name -> the library's op name
_UNARY = {
    "abs": "abs", "acos": "arccos", "acosh": "arccosh", "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan",
    "atanh": "arctanh", "bitwise_invert": "bitwise_not", "ceil": "ceil", "conj": "conjugate", "cos": "cos",
    "cosh": "cosh", "exp": "exp", "expm1": "expm1", "floor": "floor", "isfinite": "isfinite", "isinf": "isinf",
    "isnan": "isnan", "log": "log", "log1p": "log1p", "log2": "log2", "log10": "log10",
    "logical_not": "logical_not", "negative": "negative", "positive": "positive", "reciprocal": "reciprocal",
    "sign": "sign", "signbit": "signbit", "sin": "sin", "sinh": "sinh", "square": "square", "sqrt": "sqrt",
    "tan": "tan", "tanh": "tanh", "trunc": "trunc",
}
_BINARY = {
    "add": "add", "atan2": "arctan2", "bitwise_and": "bitwise_and", "bitwise_left_shift": "left_shift",
    "bitwise_or": "bitwise_or", "bitwise_right_shift": "right_shift", "bitwise_xor": "bitwise_xor",
    "copysign": "copysign", "divide": "divide", "equal": "equal", "floor_divide": "floor_divide",
    "greater": "greater", "greater_equal": "greater_equal", "hypot": "hypot", "less": "less",
    "less_equal": "less_equal", "logaddexp": "logaddexp", "logical_and": "logical_and", "logical_or": "logical_or",
    "logical_xor": "logical_xor", "maximum": "maximum", "minimum": "minimum", "multiply": "multiply",
    "nextafter": "nextafter", "not_equal": "not_equal", "pow": "power", "remainder": "remainder",
    "subtract": "subtract",
}

__all__ = sorted(list(_UNARY) + list(_BINARY) + ["clip", "imag", "real", "round"])

# the functions call the compiled binop/unop where ndgpu._core is built
# (the Python binop/unop otherwise, and for what the C paths do not take)
_ns = {"unop": fast_unop, "binop": fast_binop}
for _name, _c in _UNARY.items():
    exec(f"def {_name}(x, /):\n    return unop({UNARY[_c]}, x)\n", _ns)
    globals()[_name] = _ns[_name]
    _ns[_name].__module__ = __name__
    _ns[_name].__doc__ = f"The array API's {_name} (the library's {_c})."
for _name, _c in _BINARY.items():
    exec(f"def {_name}(x1, x2, /):\n    return binop({BINARY[_c]}, x1, x2)\n", _ns)
    globals()[_name] = _ns[_name]
    _ns[_name].__module__ = __name__
    _ns[_name].__doc__ = f"The array API's {_name} (the library's {_c})."


_expm1_lib = expm1  # noqa: F821 (defined by the exec above)


def expm1(x, /):
    if not isinstance(x, Array):
        return _not_array(expm1, x)
    r = _expm1_lib(x)
    if x.dtype.kind == "c":
        # the library computes complex expm1 as NumPy does (no C99-style
        # special cases); the standard's special cases for non-finite and
        # zero inputs are those of exp(x) - 1
        fin = unop(UNARY["isfinite"], x)
        nz = binop(BINARY["not_equal"], x, 0)
        ok = binop(BINARY["logical_and"], fin, nz)
        alt = binop(BINARY["subtract"], unop(UNARY["exp"], x), 1)
        r = call(C.nd_where, ok._h, r._h, alt._h)
    return r


_tanh_lib = tanh  # noqa: F821 (defined by the exec above)


def tanh(x, /):
    if not isinstance(x, Array):
        return _not_array(tanh, x)
    r = _tanh_lib(x)
    if x.dtype.kind == "c":
        # the standard: tanh(+inf + yj) = 1 + 0j for finite y > 0 (and by
        # symmetry the imaginary part is a zero with y's sign); the library
        # (as NumPy and C99's "sign unspecified") gives 0 * sin(2y)
        re = call(C.nd_real, x._h)
        im = call(C.nd_imag, x._h)
        mask = binop(BINARY["logical_and"], unop(UNARY["isinf"], re), unop(UNARY["isfinite"], im))
        if call(C.nd_reduce, 7, mask._h, -1, None, False):  # any
            zero = binop(BINARY["copysign"], call(C.nd_zeros_like, im._h), im)
            rim = call(C.nd_imag, r._h)
            new = call(C.nd_where, mask._h, zero._h, rim._h)
            o = c_void_p(rim._h)
            check(C.nd_copy(byref(o), new._h))
    return r


_floor_divide_lib = floor_divide  # noqa: F821 (defined by the exec above)


def floor_divide(x1, x2, /):
    r = _floor_divide_lib(x1, x2)
    if r.dtype.kind == "f":
        # the standard (2024.12): floor_divide(+-inf, finite) is +-inf and
        # floor_divide(finite, +-inf) a signed zero, i.e. x1 / x2 there; the
        # library follows NumPy/Python (NaN and -1.0 or 0.0)
        a1 = x1 if isinstance(x1, Array) else to_array_like(x1, x2)
        a2 = x2 if isinstance(x2, Array) else to_array_like(x2, x1)
        i1 = unop(UNARY["isinf"], a1)
        i2 = unop(UNARY["isinf"], a2)
        f1 = unop(UNARY["isfinite"], a1)
        f2 = unop(UNARY["isfinite"], a2)
        c1 = binop(BINARY["logical_and"], i1, binop(BINARY["logical_and"], f2, binop(BINARY["not_equal"], a2, 0)))
        c2 = binop(BINARY["logical_and"], i2, binop(BINARY["logical_and"], f1, binop(BINARY["not_equal"], a1, 0)))
        c = binop(BINARY["logical_or"], c1, c2)
        if call(C.nd_reduce, 7, c._h, -1, None, False):
            q = binop(BINARY["divide"], a1, a2)
            r2 = call(C.nd_where, c._h, q._h, r._h)
            if r2.dtype is not r.dtype:
                r2 = call(C.nd_astype, r2._h, r.dtype.code)
            r = r2
    return r


def real(x, /):
    if not isinstance(x, Array):
        return _not_array(real, x)
    return call(C.nd_real, x._h)


def imag(x, /):
    if not isinstance(x, Array):
        return _not_array(imag, x)
    return call(C.nd_imag, x._h)


def round(x, /):
    if not isinstance(x, Array):
        return _not_array(round, x)
    if x.dtype.kind == "c":
        xr = call(C.nd_real, x._h)  # keep the views alive across the calls
        xi = call(C.nd_imag, x._h)
        re = call(C.nd_round, xr._h, 0)
        im = call(C.nd_round, xi._h, 0)
        r = binop(BINARY["add"], re, binop(BINARY["multiply"], im, 1j))
        return r if r.dtype is x.dtype else call(C.nd_astype, r._h, x.dtype.code)
    return call(C.nd_round, x._h, 0)


def clip(x, /, min=None, max=None):
    if not isinstance(x, Array):
        return _not_array(clip, x, min=min, max=max)
    if min is None and max is None:
        return call(C.nd_copy, x._h)
    # NumPy bounds (arrays, typed scalars) as arrays beside x
    if min is not None and not isinstance(min, (Array, bool, int, float, complex)):
        min = to_array_like(min, x)
    if max is not None and not isinstance(max, (Array, bool, int, float, complex)):
        max = to_array_like(max, x)
    d = x.dtype
    if not isinstance(min, Array) and not isinstance(max, Array):
        lo = scalar(min) if min is not None else scalar(None)
        hi = scalar(max) if max is not None else scalar(None)
        if d.kind in "iu":
            # an integer x keeps its dtype: bounds beyond its range clip nothing
            info = _dt.iinfo(d)
            if min is not None and isinstance(min, int) and not isinstance(min, bool):
                lo = scalar(None) if min < info.min else scalar(min if min <= info.max else info.max)
                if min > info.max:
                    lo = scalar(info.max)
            if max is not None and isinstance(max, int) and not isinstance(max, bool):
                hi = scalar(None) if max > info.max else scalar(max if max >= info.min else info.min)
        r = call(C.nd_clip_scalar, x._h, lo, hi)
    else:
        # maximum/minimum (nd_clip composes the same; done here because
        # nd_clip mis-broadcasts a bound with more dimensions than x)
        r = x
        if min is not None:
            r = binop(BINARY["maximum"], r, to_array_like(min, x))
        if max is not None:
            r = binop(BINARY["minimum"], r, to_array_like(max, x))
        if r is x:
            r = call(C.nd_copy, x._h)
    if r.dtype is not d:
        r = call(C.nd_astype, r._h, d.code)
    return r
