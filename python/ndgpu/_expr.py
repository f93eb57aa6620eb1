"""ndgpu.evaluate: a fused elementwise expression (nd_expr_eval, docs/expr.md)."""
import ctypes

from ._array import Array, call
from ._lib import C

__all__ = ["evaluate"]


def evaluate(expr, /, **arrays):
    """The value of expr over the named arrays, in one pass over memory:
    ndgpu.evaluate("a * b + exp(c)", a=a, b=b, c=c). The language is
    Python's expression syntax (operators, literals as weak scalars, the
    library's op names, where, casts by dtype name, an outer sum/mean/...);
    the result has the bits and dtype of the same chain of ndgpu ops."""
    for k, v in arrays.items():
        if not isinstance(v, Array):
            raise TypeError("evaluate: %s must be an ndgpu array, not %s (write numbers into the expression)"
                            % (k, type(v).__name__))
    n = len(arrays)
    names = (ctypes.c_char_p * max(n, 1))(*[k.encode() for k in arrays])
    handles = (ctypes.c_void_p * max(n, 1))(*[v._h for v in arrays.values()])
    return call(C.nd_expr_eval, expr.encode(), n, names, handles)
