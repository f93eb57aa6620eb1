"""The ctypes prelude shared by the NumPy comparison tests
(tests/test_*_numpy.py): the NumPy 2 gate, libndgpu.so (NDGPU_LIB or
build/libndgpu.so), the dtype names in nd_dtype order, nd_device, the
signatures of the core functions every test uses, and the host <-> array
moves.

    from nd_ctypes import np, lib, DT, Dev, A, P64, to_nd, from_nd, gate
"""
import ctypes
import os
import sys
from ctypes import POINTER, Structure, c_char_p, c_int, c_int64, c_size_t, c_void_p


def gate(name):
    """Exit 0 with SKIPPED unless NumPy 2 is importable; returns numpy."""
    try:
        import numpy
    except ImportError:
        print("%s: SKIPPED (NumPy not importable)" % name)
        sys.exit(0)
    if int(numpy.__version__.split(".")[0]) < 2:
        print("%s: SKIPPED (NumPy %s: the rules are NumPy 2's)" % (name, numpy.__version__))
        sys.exit(0)
    return numpy


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
lib = ctypes.CDLL(os.environ.get("NDGPU_LIB") or os.path.join(ROOT, "build", "libndgpu.so"))

# nd_dtype order (include/ndgpu/core.h)
DT = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16",
      "float32", "float64", "complex64", "complex128"]


class Dev(Structure):
    _fields_ = [("type", c_int), ("id", c_int)]


A = POINTER(c_void_p)
P64 = POINTER(c_int64)
lib.nd_last_error.restype = c_char_p
lib.nd_status_name.restype = c_char_p
lib.nd_status_name.argtypes = [c_int]
lib.nd_release.argtypes = [c_void_p]
lib.nd_release.restype = None
lib.nd_ndim.argtypes = [c_void_p]
lib.nd_shape.argtypes = [c_void_p]
lib.nd_shape.restype = P64
lib.nd_dtype_of.argtypes = [c_void_p]
lib.nd_nbytes.argtypes = [c_void_p]
lib.nd_nbytes.restype = c_size_t
lib.nd_cuda_device_count.restype = c_int
lib.nd_from_host.argtypes = [A, c_void_p, c_int, c_int, P64, Dev]
lib.nd_copy_to_host.argtypes = [c_void_p, c_void_p, c_size_t]


def status_text(st):
    return "%s: %s" % (lib.nd_status_name(st).decode(), lib.nd_last_error().decode())


def to_nd(x, dev):
    """A new libndgpu array on dev with the contents of the NumPy array x."""
    import numpy
    x = numpy.ascontiguousarray(x)
    out = c_void_p()
    shape = (c_int64 * max(1, x.ndim))(*x.shape)
    st = lib.nd_from_host(ctypes.byref(out), x.ctypes.data, DT.index(x.dtype.name), x.ndim, shape, dev)
    if st != 0:
        raise RuntimeError("nd_from_host: " + status_text(st))
    return out


def from_nd(a, release=True):
    """The libndgpu array a as a new NumPy array (a released unless told)."""
    import numpy
    nd = lib.nd_ndim(a)
    shape = tuple(lib.nd_shape(a)[i] for i in range(nd))
    res = numpy.empty(shape, numpy.dtype(DT[lib.nd_dtype_of(a)]))
    st = lib.nd_copy_to_host(res.ctypes.data, a, lib.nd_nbytes(a))
    if st != 0:
        raise RuntimeError("nd_copy_to_host: " + status_text(st))
    if release:
        lib.nd_release(a)
    return res
