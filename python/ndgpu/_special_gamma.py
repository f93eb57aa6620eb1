"""scipy.special's gamma, zeta and Bessel functions on ndgpu arrays (the
library's op table: the same code on the CPU and the GPU; float32 and
float64 results, integers and bool as NumPy's float ufuncs promote them)."""
from ._array import fast_binop, fast_unop
from ._lib import BINARY, UNARY

# scipy.special name -> the library's op name
_UNARY = {"gamma": "gamma", "gammaln": "lgamma", "lgamma": "lgamma", "digamma": "digamma", "psi": "digamma",
          "i0": "i0", "i0e": "i0e", "i1": "i1", "i1e": "i1e", "j0": "j0", "j1": "j1", "y0": "y0", "y1": "y1"}
_BINARY = {"polygamma": "polygamma", "beta": "beta", "betaln": "betaln", "gammainc": "gammainc",
           "gammaincc": "gammaincc", "zeta": "zeta"}

__all__ = sorted(list(_UNARY) + list(_BINARY))

_ns = {"unop": fast_unop, "binop": fast_binop}
for _name, _c in _UNARY.items():
    exec(f"def {_name}(x, /):\n    return unop({UNARY[_c]}, x)\n", _ns)
    globals()[_name] = _ns[_name]
    _ns[_name].__module__ = "ndgpu.special"
    _ns[_name].__doc__ = f"scipy.special.{_name} (the library's {_c})."
for _name, _c in _BINARY.items():
    exec(f"def {_name}(x1, x2, /):\n    return binop({BINARY[_c]}, x1, x2)\n", _ns)
    globals()[_name] = _ns[_name]
    _ns[_name].__module__ = "ndgpu.special"
    _ns[_name].__doc__ = f"scipy.special.{_name} (the library's {_c})."
