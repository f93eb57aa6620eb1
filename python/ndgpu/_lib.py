"""Loading libndgpu and declaring the C signatures (ctypes).

Why ctypes (measured with a 1-element float32 nd_add + nd_release from
Python 3.11 on the development machine, where NumPy's own a + b takes
0.36 us; best of 7 loops of 200,000 calls):

    C alone (nd_add + nd_release, a C loop)        0.39 us
    ctypes, argtypes declared                       1.66 us
    cffi 2.0 ABI mode (ffi.dlopen)                  1.52 us
    ctypes empty call (nd_release(NULL))            0.25 us
    cffi ABI empty call                             0.40 us

cffi's ABI mode saves ~0.15 us on a call that passes pointers and costs
~0.15 us more on an empty call (x + y makes one of each: nd_binary, and
nd_release in __del__); its API mode would need a C compiler at install
time. So the package uses ctypes from the standard library: no
dependency, nothing to compile, the same speed. x + y through the
package measures 1.6 us (benchmarks/bench_python_overhead.py): one
foreign call, the result object, and the release in __del__; shape and
dtype are read lazily (see _array.py).

Since then the operators, binop/unop and basic indexing have a compiled
path (ndgpu._core, _core.c: x + y in ~0.2 us) that takes its functions
from the library loaded here; this ctypes layer remains the rest of the
package and the fallback where the module is not built (NDGPU_NO_EXT=1).

The library is found as: $NDGPU_LIBRARY, else the copy installed inside
the package (pip install ./python, make wheel: ndgpu/libndgpu.so), else the
repository's build directories (build/, build-cpu/, relative to this
package in a checkout), else the installed prefix
(ctypes.util.find_library('ndgpu')). A library linked against
scipy-openblas32's libscipy_openblas.so finds it through its rpath; where
that rpath does not hold (an installed package, another environment) the
copy of the scipy_openblas32 module installed beside the package is loaded
first.

This module is the one place that loads libndgpu and declares its C
signatures: the NumPy comparison tests (tests/test_*_numpy.py) call the C
functions through `C` too, so a few entries of _SIGS (nd_linalg_eig,
nd_linalg_lstsq, nd_linalg_cond, the 2-D FFTs) are there for them.
"""
import ctypes
import ctypes.util
import os
import struct
from ctypes import (POINTER, Structure, byref, c_bool, c_char, c_char_p, c_double, c_int, c_int64, c_size_t,
                    c_uint64, c_void_p)

__all__ = ["lib", "check", "NdDevice", "NdScalar", "byref", "c_void_p", "library_path"]


def _find_library():
    env = os.environ.get("NDGPU_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    p = os.path.join(here, "libndgpu.so")  # the copy an installed package carries
    if os.path.exists(p):
        return p
    root = os.path.dirname(os.path.dirname(here))  # python/ndgpu -> repository root
    for d in ("build", "build-cpu"):
        p = os.path.join(root, d, "libndgpu.so")
        if os.path.exists(p):
            return p
    p = ctypes.util.find_library("ndgpu")
    if p:
        return p
    for name in ("libndgpu.so.0", "libndgpu.so"):  # the dynamic loader's own search (LD_LIBRARY_PATH, rpath)
        try:
            ctypes.CDLL(name)
            return name
        except OSError:
            pass
    raise OSError("libndgpu.so not found: build it (make lib), install it (make install), "
                  "or set NDGPU_LIBRARY to its path")


def _load(path):
    """ctypes.CDLL(path); where the library's dependency libscipy_openblas.so
    is not found (its rpath points into another environment), that library
    from the scipy_openblas32 module first, then again: the dynamic loader
    takes an already loaded library for a dependency of the same name."""
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        if "libscipy_openblas" not in str(e):
            raise
        try:
            import scipy_openblas32
        except ImportError:
            raise OSError(f"{e} (libndgpu is linked against scipy-openblas32: pip install scipy-openblas32)") from None
        ctypes.CDLL(os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas.so"))
        return ctypes.CDLL(path)


library_path = _find_library()
lib = _load(library_path)


class NdDevice(Structure):
    _fields_ = [("type", c_int), ("id", c_int)]


class NdScalar(Structure):
    """nd_scalar: {kind; union {bool; int64; double; double[2]}}. The union is
    declared as two raw 64-bit words (a struct of 24 bytes is passed in
    memory, so field types do not matter for the ABI, and ctypes has no
    trouble with unions passed by value this way)."""
    _fields_ = [("kind", c_int), ("w0", c_uint64), ("w1", c_uint64)]


_pack_d = struct.Struct("<d").pack
_unpack_Q = struct.Struct("<Q").unpack
_M64 = (1 << 64) - 1


def _fbits(f):
    return _unpack_Q(_pack_d(f))[0]


def scalar(v):
    """A weak nd_scalar from a Python bool/int/float/complex."""
    t = type(v)
    if t is float:
        return NdScalar(3, _unpack_Q(_pack_d(v))[0], 0)
    if t is int:
        if not -(1 << 63) <= v < (1 << 63):
            raise OverflowError(f"Python int {v} out of bounds for int64")
        return NdScalar(2, v & _M64, 0)
    if t is bool:
        return NdScalar(1, 1 if v else 0, 0)
    if t is complex:
        return NdScalar(4, _fbits(v.real), _fbits(v.imag))
    if v is None:
        return NdScalar(0, 0, 0)
    else:
        # subclasses (numpy scalars are not accepted here)
        if isinstance(v, bool):
            return scalar(bool(v))
        if isinstance(v, int):
            return scalar(int(v))
        if isinstance(v, float):
            return scalar(float(v))
        if isinstance(v, complex):
            return scalar(complex(v))
        raise TypeError(f"not a Python scalar: {v!r}")


SCALAR_NONE = NdScalar()

H = c_void_p  # an nd_array* handle (a Python int in the wrapper)
O = POINTER(c_void_p)  # an out-pointer: byref(c_void_p())
I64P = POINTER(c_int64)
IP = POINTER(c_int)
_CODES = {"h": H, "o": O, "i": c_int, "l": c_int64, "d": c_double, "D": NdDevice, "S": NdScalar, "b": c_bool,
          "p": c_void_p, "L": I64P, "I": IP, "z": c_size_t, "s": c_char_p, "c": c_char, "u": c_uint64,
          "B": POINTER(c_bool), "N": POINTER(c_int), "E": POINTER(NdDevice)}

# name: return code (i = nd_status, others as _CODES, - = void) then argument codes
_SIGS = """
nd_status_name s i
nd_last_error s
nd_unary_op_name s i
nd_binary_op_name s i
nd_version s
nd_build_info s
nd_release - h
nd_retain h h
nd_result_type i N i i
nd_can_cast_same_kind b i i
nd_default_device D
nd_device_str s D p z
nd_device_parse i E s
nd_dlpack_device i h N N
nd_cuda_device_count i
nd_devices i E i
nd_synchronize i D
nd_empty i o i i L D
nd_zeros i o i i L D
nd_ones i o i i L D
nd_full i o i i L S D
nd_arange i o i d d d D
nd_arange_scalar i o i S S S D
nd_linspace i o i d d l b D
nd_eye i o i l l l D
nd_from_host i o p i i L D
nd_empty_like i o h
nd_zeros_like i o h
nd_ones_like i o h
nd_copy i o h
nd_astype i o h i
nd_copy_to_host i p h z
nd_copy_from_host i h p z
nd_to_device i o h D
nd_ndim i h
nd_shape L h
nd_strides L h
nd_size l h
nd_nbytes z h
nd_dtype_of i h
nd_device_of D h
nd_data p h
nd_is_contiguous b h
nd_is_writable b h
nd_is_pinned b h
nd_swapaxes i o h i i
nd_reshape i o h i L
nd_transpose i o h I
nd_slice i o h i p
nd_squeeze i o h i I
nd_expand_dims i o h i
nd_broadcast_to i o h i L
nd_contiguous i o h
nd_concatenate i o i p i
nd_stack i o i p i
nd_unary i o i h
nd_binary i o i h h
nd_binary_scalar i o i h S
nd_scalar_binary i o i S h
nd_where i o h h h
nd_expr_eval i o s i p p
nd_clip i o h h h
nd_clip_scalar i o h S S
nd_reduce i o i h i I b
nd_reduce_ddof i o i h i I b d
nd_reduce_dtype i o i h i I b i
nd_matmul i o h h
nd_take i o h h i i
nd_take_along_axis i o h h i
nd_put i h h h i
nd_nonzero i p i N h
nd_count_nonzero i o h i I b
nd_mask_select i o h h
nd_mask_assign i h h h
nd_sort i o h i i
nd_argsort i o h i i
nd_searchsorted i o h h i
nd_unique i o o o o h
nd_cumsum i o h i
nd_cumprod i o h i
nd_cumsum_dtype i o h i i
nd_cumprod_dtype i o h i i
nd_diff i o h i i h h
nd_flip i o h i I
nd_moveaxis i o h i I I
nd_diagonal i o h l i i
nd_broadcast_arrays i p i p
nd_unstack i p l L h i
nd_roll i o h i L i I
nd_tile i o h i L
nd_repeat i o h l i
nd_repeat_array i o h h i
nd_tril i o h l
nd_triu i o h l
nd_trace i o h l i i
nd_meshgrid i p i p i b
nd_outer i o h h
nd_tensordot i o h h i I I
nd_round i o h i
nd_real i o h
nd_imag i o h
nd_isclose i o h h d d b
nd_linalg_solve i o h h
nd_linalg_inv i o h
nd_linalg_det i o h
nd_linalg_slogdet i o o h
nd_linalg_cholesky i o h b
nd_linalg_qr i o o h i
nd_linalg_svd i o o o h b
nd_linalg_svdvals i o h
nd_linalg_eigh i o o h c
nd_linalg_eigvalsh i o h c
nd_linalg_eig i o o h
nd_linalg_eigvals i o h
nd_linalg_lstsq i o o L o h h d
nd_linalg_pinv i o h d b
nd_linalg_matrix_rank i o h d b
nd_linalg_vector_norm i o h d i I b
nd_linalg_matrix_power i o h l
nd_linalg_cross i o h h i
nd_linalg_vecdot i o h h i
nd_fft i o h l i i
nd_ifft i o h l i i
nd_rfft i o h l i i
nd_irfft i o h l i i
nd_hfft i o h l i i
nd_ihfft i o h l i i
nd_fftn i o h i L I i
nd_ifftn i o h i L I i
nd_rfftn i o h i L I i
nd_irfftn i o h i L I i
nd_fft2 i o h L I i
nd_ifft2 i o h L I i
nd_rfft2 i o h L I i
nd_irfft2 i o h L I i
nd_fftfreq i o l d i D
nd_rfftfreq i o l d i D
nd_fftshift i o h i I
nd_ifftshift i o h i I
nd_to_dlpack i p h
nd_to_dlpack_legacy i p h
nd_from_dlpack i o p
nd_from_dlpack_legacy i o p
nd_save_npy i s h
nd_load_npy i o s D
nd_load_npy_buffer i o p z D
"""


class _NS:
    pass


C = _NS()  # C.nd_add etc.
missing = []
for _line in _SIGS.strip().splitlines():
    _parts = _line.split()
    _name, _ret, _args = _parts[0], _parts[1], _parts[2:]
    try:
        _f = getattr(lib, _name)
    except AttributeError:
        missing.append(_name)
        continue
    _f.restype = None if _ret == "-" else (c_int if _ret == "i" else _CODES[_ret])
    _f.argtypes = [_CODES[a] for a in _args]
    setattr(C, _name, _f)

# the matrix-norm functions take an nd_norm_ord by value: {int kind; double p}
class NdNormOrd(Structure):
    _fields_ = [("kind", c_int), ("p", c_double)]


for _name, _args in (("nd_linalg_matrix_norm", [O, H, NdNormOrd, c_bool]), ("nd_linalg_cond", [O, H, NdNormOrd])):
    try:
        _f = getattr(lib, _name)
        _f.restype = c_int
        _f.argtypes = _args
        setattr(C, _name, _f)
    except AttributeError:
        missing.append(_name)

# the named elementwise wrappers: enums from the header's X-macro order
UNARY_OPS = ("negative positive abs sign sqrt cbrt square reciprocal exp exp2 expm1 log log2 log10 log1p sin cos "
             "tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh sigmoid relu floor ceil trunc rint "
             "logical_not bitwise_not isnan isinf isfinite signbit deg2rad rad2deg spacing conjugate "
             "erf erfc erfinv erfcinv erfcx ndtr ndtri log_ndtr logit log_expit softplus entr sinc gelu gelu_tanh "
             "silu mish relu6 hardswish selu gamma lgamma digamma i0 i0e i1 i1e j0 j1 y0 y1").split()
BINARY_OPS = ("add subtract multiply divide floor_divide remainder power maximum minimum fmax fmin arctan2 hypot "
              "copysign equal not_equal less less_equal greater greater_equal logical_and logical_or logical_xor "
              "bitwise_and bitwise_or bitwise_xor left_shift right_shift fmod logaddexp logaddexp2 gcd lcm "
              "heaviside nextafter float_power ldexp xlogy xlog1py leaky_relu elu polygamma beta betaln "
              "gammainc gammaincc zeta").split()
UNARY = {n: i for i, n in enumerate(UNARY_OPS)}
BINARY = {n: i for i, n in enumerate(BINARY_OPS)}
for _i, _n in enumerate(UNARY_OPS):  # cross-check with the library's own names
    if (C.nd_unary_op_name(_i) or b"").decode() != _n:
        raise ImportError(f"libndgpu's unary op {_i} is {C.nd_unary_op_name(_i)!r}, the package expects {_n!r}")
for _i, _n in enumerate(BINARY_OPS):
    if (C.nd_binary_op_name(_i) or b"").decode() != _n:
        raise ImportError(f"libndgpu's binary op {_i} is {C.nd_binary_op_name(_i)!r}, the package expects {_n!r}")

REDUCE = {n: i for i, n in enumerate("sum prod mean max min argmax argmin any all var std".split())}

ND_AXIS_NONE = -2147483648
ND_NONE = -(1 << 63)


class NdRange(Structure):
    _fields_ = [("start", c_int64), ("stop", c_int64), ("step", c_int64)]


# nd_status -> Python exception (the array API's expectations: shape and
# value problems ValueError, dtype problems TypeError)
_EXC = {1: ValueError, 2: ValueError, 3: TypeError, 4: ValueError, 5: MemoryError, 6: RuntimeError,
        7: OSError, 8: NotImplementedError, 9: RuntimeError}


def error(status, exc=None):
    msg = (C.nd_last_error() or b"").decode(errors="replace")
    name = (C.nd_status_name(status) or b"").decode()
    return (exc or _EXC.get(status, RuntimeError))(f"{msg} [{name}]")


def check(status, exc=None):
    if status:
        raise error(status, exc)


def i64array(seq):
    n = len(seq)
    return (c_int64 * max(n, 1))(*seq)


def intarray(seq):
    n = len(seq)
    return (c_int * max(n, 1))(*seq)
