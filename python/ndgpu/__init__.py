"""ndgpu: the Python array API standard (2023.12; most of 2024.12) on libndgpu.

    import ndgpu as xp
    x = xp.reshape(xp.arange(6, dtype=xp.float32), (2, 3))
    y = xp.sum(x * 2 + 1, axis=0)
    z = xp.asarray([1, 2, 3], device="cuda:0")           # where the library has a GPU

Arrays live where libndgpu puts them (cpu, cuda:N); every function runs
on its arguments' device; mixing devices raises ValueError. DLPack
(__dlpack__/from_dlpack) shares memory with NumPy, PyTorch, CuPy, JAX;
save/load read and write NumPy's .npy files (extensions, as np.save/np.load).
"""
from ._lib import library_path
from ._dtypes import (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32,
                      float64, complex64, complex128, iinfo, finfo, can_cast, result_type, isdtype, DType)
from ._array import Array, Device, default_device as _default_device
from ._creation import (arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like, linspace, meshgrid,
                        ones, ones_like, tril, triu, zeros, zeros_like)
from ._elementwise import *  # noqa: F401,F403
from ._elementwise import __all__ as _ew_all
from ._statistical import (max, mean, min, prod, std, sum, var, cumulative_sum, cumulative_prod, all, any, diff)
from ._searching import (argmax, argmin, count_nonzero, nonzero, searchsorted, where, argsort, sort, unique_all,
                         unique_counts, unique_inverse, unique_values)
from ._manipulation import (broadcast_arrays, broadcast_to, concat, expand_dims, flip, moveaxis, permute_dims,
                            repeat, reshape, roll, squeeze, stack, tile, unstack, take, take_along_axis, matmul,
                            matrix_transpose, tensordot, vecdot, astype)
from ._info import __array_namespace_info__
from ._npy import load, save
from . import linalg, fft
from . import random  # numpy.random.Generator on the Philox stream; beyond the array API
from . import special  # scipy.special's functions and the activations; beyond the array API
from ._expr import evaluate  # fused expressions (docs/expr.md); beyond the array API

__array_api_version__ = "2023.12"
__version__ = "0.1.0"

e = 2.718281828459045
inf = float("inf")
nan = float("nan")
newaxis = None
pi = 3.141592653589793

__all__ = (["__array_api_version__", "__array_namespace_info__", "Array", "Device", "e", "inf", "nan", "newaxis",
            "pi", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
            "float64", "complex64", "complex128", "iinfo", "finfo", "can_cast", "result_type", "isdtype",
            "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace",
            "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
            "max", "mean", "min", "prod", "std", "sum", "var", "cumulative_sum", "cumulative_prod", "all", "any",
            "diff", "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where", "argsort", "sort",
            "unique_all", "unique_counts", "unique_inverse", "unique_values", "broadcast_arrays", "broadcast_to",
            "concat", "expand_dims", "flip", "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze",
            "stack", "tile", "unstack", "take", "take_along_axis", "matmul", "matrix_transpose", "tensordot",
            "vecdot", "astype", "linalg", "fft"] + list(_ew_all))
