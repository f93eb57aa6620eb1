"""What the NumPy comparison tests (tests/test_*_numpy.py) share: the NumPy 2
gate and the moves between NumPy arrays and libndgpu arrays.

The tests call the C functions themselves (their results are compared with
NumPy's), through the package's loader python/ndgpu/_lib.py: its library
handle and declared signatures (C.nd_*), NdDevice, NdNormOrd and the dtype
order (DT). This checkout's python/ goes first on sys.path, so the package
tested is the one beside the tests; the library is the package's choice
($NDGPU_LIBRARY, else the checkout's build/).

    from numpy_compare import gate, C, NdDevice, DT, to_nd, from_nd
"""
import os
import sys
from ctypes import byref, c_void_p

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from ndgpu._dtypes import BY_CODE  # noqa: E402
from ndgpu._lib import C, NdDevice, NdNormOrd, i64array, intarray  # noqa: E402,F401

# dtype names in nd_dtype order (include/ndgpu.h)
DT = [d.name for d in BY_CODE]


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


def status_text(st):
    """'ND_ERR_...: nd_last_error()' for the status st."""
    return "%s: %s" % (C.nd_status_name(st).decode(), C.nd_last_error().decode())


def to_nd(x, dev):
    """A new libndgpu array (a c_void_p handle) on dev with the contents of the NumPy array x."""
    import numpy
    x = numpy.ascontiguousarray(x)
    out = c_void_p()
    st = C.nd_from_host(byref(out), x.ctypes.data, DT.index(x.dtype.name), x.ndim, i64array(x.shape), dev)
    if st != 0:
        raise RuntimeError("nd_from_host: " + status_text(st))
    return out


def from_nd(a, release=True):
    """The libndgpu array a as a new NumPy array (a released unless told)."""
    import numpy
    nd = C.nd_ndim(a)
    shape = tuple(C.nd_shape(a)[i] for i in range(nd))
    res = numpy.empty(shape, numpy.dtype(DT[C.nd_dtype_of(a)]))
    st = C.nd_copy_to_host(res.ctypes.data, a, C.nd_nbytes(a))
    if st != 0:
        raise RuntimeError("nd_copy_to_host: " + status_text(st))
    if release:
        C.nd_release(a)
    return res
