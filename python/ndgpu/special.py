"""Special functions and activations (scipy.special's names and meaning;
beyond the array API): thin wrappers of the library's op table, any
device, broadcasting like the other elementwise functions. Real floats;
integer and bool inputs become floats (bool/int8/uint8 -> float16, 16-bit
-> float32, wider -> float64). docs/special.md gives their special values
and accuracy.

    erf erfc erfinv erfcinv erfcx ndtr ndtri log_ndtr logit expit
    log_expit softplus entr sinc xlogy xlog1py
    gelu gelu_tanh silu mish relu6 hardswish selu leaky_relu elu

and the gamma, zeta and Bessel family (_special_gamma.py):

    gamma gammaln lgamma digamma psi polygamma beta betaln gammainc
    gammaincc zeta i0 i0e i1 i1e j0 j1 y0 y1
"""
from ._array import fast_binop, fast_unop
from ._lib import BINARY, UNARY
from ._special_gamma import *  # noqa: F401,F403
from ._special_gamma import __all__ as _gamma_all

_UNARY = ["erf", "erfc", "erfinv", "erfcinv", "erfcx", "ndtr", "ndtri", "log_ndtr", "logit", "log_expit",
          "softplus", "entr", "sinc", "gelu", "gelu_tanh", "silu", "mish", "relu6", "hardswish", "selu"]
_BINARY = {"xlogy": "x, y", "xlog1py": "x, y", "leaky_relu": "x, negative_slope=0.01", "elu": "x, alpha=1.0"}

__all__ = sorted(_UNARY + list(_BINARY) + ["expit"] + list(_gamma_all))

_ns = {"unop": fast_unop, "binop": fast_binop}
for _name in _UNARY:
    exec(f"def {_name}(x, /):\n    return unop({UNARY[_name]}, x)\n", _ns)
    globals()[_name] = _ns[_name]
    _ns[_name].__module__ = __name__
    _ns[_name].__doc__ = f"scipy.special's / PyTorch's {_name} (the library's op {_name}, docs/special.md)."
for _name, _params in _BINARY.items():
    _second = _params.split(", ")[1].split("=")[0]
    exec(f"def {_name}({_params}):\n    return binop({BINARY[_name]}, x, {_second})\n", _ns)
    globals()[_name] = _ns[_name]
    _ns[_name].__module__ = __name__
    _ns[_name].__doc__ = (f"{_name}({_params}) (the library's binary op {_name}; the second operand may be "
                          f"an array or a Python scalar, weak as in NEP 50)")


def expit(x, /):
    """scipy.special.expit: 1 / (1 + exp(-x)) (the library's op sigmoid)."""
    return fast_unop(UNARY["sigmoid"], x)
