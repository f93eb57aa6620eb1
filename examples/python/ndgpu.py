"""A small ctypes wrapper of libndgpu: arrays, .npy files and DLPack.

    import numpy as np, ndgpu
    a = ndgpu.arange(12, "float32").reshape(3, 4)
    x = np.from_dlpack(a)            # zero-copy: x shares a's memory
    b = ndgpu.from_dlpack(x)         # zero-copy back into libndgpu

The library is build/libndgpu.so of this repository (`make lib`), or the
file named by the environment variable NDGPU_LIB.

DLPack: Array implements __dlpack__ / __dlpack_device__ (the Python array
API protocol), so numpy.from_dlpack (and torch, cupy, jax ...) can consume
it. __dlpack__(max_version=(1, x)) returns a capsule "dltensor_versioned"
(DLManagedTensorVersioned), otherwise a legacy "dltensor". An unconsumed
capsule's tensor is released by ndgpu.collect() (run at every export and
import and at exit, see below); a consumer renames the capsule
"used_dltensor[_versioned]" and owns the tensor. ndgpu.from_dlpack
does exactly that with another library's capsule. Only CPU arrays are
handled here (stream=None).
"""
import atexit
import ctypes
import os
import sys
from ctypes import (CFUNCTYPE, POINTER, Structure, byref, c_char_p, c_double, c_int, c_int32, c_int64, c_size_t,
                    c_uint8, c_uint16, c_uint32, c_uint64, c_void_p, py_object)

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))
_LIB_PATH = os.environ.get("NDGPU_LIB") or os.path.join(_ROOT, "build", "libndgpu.so")
lib = ctypes.CDLL(_LIB_PATH)

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64"]

kDLCPU = 1
kDLCUDA = 2


class NdError(RuntimeError):
    """A libndgpu call failed; .status is the nd_status name."""

    def __init__(self, status, message):
        super().__init__(f"{status}: {message}")
        self.status = status


class NdDevice(Structure):
    _fields_ = [("type", c_int), ("id", c_int)]


CPU = NdDevice(0, 0)


# --- DLPack 1.x structs (dlpack.h) ------------------------------------
class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32), ("dtype", DLDataType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLManagedTensor(Structure):
    pass


DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p),
                            ("deleter", CFUNCTYPE(None, POINTER(DLManagedTensor)))]


class DLPackVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensorVersioned(Structure):
    pass


DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", c_void_p),
                                     ("deleter", CFUNCTYPE(None, POINTER(DLManagedTensorVersioned))),
                                     ("flags", c_uint64), ("dl_tensor", DLTensor)]

DLPACK_FLAG_BITMASK_READ_ONLY = 1


# --- the C API --------------------------------------------------------
def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_status_name = _fn("nd_status_name", c_char_p, c_int)
_last_error = _fn("nd_last_error", c_char_p)
_release = _fn("nd_release", None, c_void_p)
_arange = _fn("nd_arange", c_int, POINTER(c_void_p), c_int, c_double, c_double, c_double, NdDevice)
_from_host = _fn("nd_from_host", c_int, POINTER(c_void_p), c_void_p, c_int, c_int, POINTER(c_int64), NdDevice)
_reshape = _fn("nd_reshape", c_int, POINTER(c_void_p), c_void_p, c_int, POINTER(c_int64))
_transpose = _fn("nd_transpose", c_int, POINTER(c_void_p), c_void_p, c_void_p)
_copy = _fn("nd_copy", c_int, POINTER(c_void_p), c_void_p)
_add = _fn("nd_add", c_int, POINTER(c_void_p), c_void_p, c_void_p)
_ndim = _fn("nd_ndim", c_int, c_void_p)
_shape = _fn("nd_shape", POINTER(c_int64), c_void_p)
_strides = _fn("nd_strides", POINTER(c_int64), c_void_p)
_dtype_of = _fn("nd_dtype_of", c_int, c_void_p)
_data = _fn("nd_data", c_void_p, c_void_p)
_nbytes = _fn("nd_nbytes", c_size_t, c_void_p)
_copy_to_host = _fn("nd_copy_to_host", c_int, c_void_p, c_void_p, c_size_t)
_copy_from_host = _fn("nd_copy_from_host", c_int, c_void_p, c_void_p, c_size_t)
_save_npy = _fn("nd_save_npy", c_int, c_char_p, c_void_p)
_load_npy = _fn("nd_load_npy", c_int, POINTER(c_void_p), c_char_p, NdDevice)
_to_dlpack = _fn("nd_to_dlpack", c_int, POINTER(POINTER(DLManagedTensorVersioned)), c_void_p)
_to_dlpack_legacy = _fn("nd_to_dlpack_legacy", c_int, POINTER(POINTER(DLManagedTensor)), c_void_p)
_from_dlpack = _fn("nd_from_dlpack", c_int, POINTER(c_void_p), c_void_p)
_from_dlpack_legacy = _fn("nd_from_dlpack_legacy", c_int, POINTER(c_void_p), c_void_p)


def _check(status):
    if status != 0:
        raise NdError(_status_name(status).decode(), _last_error().decode())


# --- PyCapsule through the C API (arguments as raw pointers so that the
# capsule destructor never creates a reference to a dying object) ------
_py = ctypes.PyDLL(None)
_capsule_new = _py.PyCapsule_New
_capsule_new.restype = py_object
_capsule_new.argtypes = [c_void_p, c_char_p, c_void_p]
_capsule_is_valid = _py.PyCapsule_IsValid
_capsule_is_valid.restype = c_int
_capsule_is_valid.argtypes = [c_void_p, c_char_p]
_capsule_get_pointer = _py.PyCapsule_GetPointer
_capsule_get_pointer.restype = c_void_p
_capsule_get_pointer.argtypes = [c_void_p, c_char_p]
_capsule_set_name = _py.PyCapsule_SetName
_capsule_set_name.restype = c_int
_capsule_set_name.argtypes = [c_void_p, c_char_p]

# capsule names must outlive the capsules: module-level constants
_NAME_V = ctypes.create_string_buffer(b"dltensor_versioned")
_NAME_L = ctypes.create_string_buffer(b"dltensor")
_USED_V = ctypes.create_string_buffer(b"used_dltensor_versioned")
_USED_L = ctypes.create_string_buffer(b"used_dltensor")


# Capsule lifetime. A producer's capsule must call the tensor's deleter
# when it is collected unconsumed. A destructor written in Python (a ctypes
# callback) is unsafe: a consumer that refuses a tensor (e.g. NumPy and
# bfloat16) drops the capsule while its own exception is pending, and no
# Python code may run then. So the capsules carry no destructor; the module
# keeps a strong reference to each one and sweeps them at safe points (every
# export and import, ndgpu.collect(), and at exit): a capsule only the
# module still references was either consumed (renamed "used_...": the
# consumer owns the tensor) or abandoned (its deleter is called here).
_exported = []


def collect():
    """Release the tensors of abandoned, unconsumed capsules."""
    keep = []
    while _exported:
        cap = _exported.pop()
        if sys.getrefcount(cap) > 2:  # cap itself and getrefcount's argument
            keep.append(cap)
            continue
        p = _as_ptr(cap)
        if _capsule_is_valid(p, _NAME_V):
            m = ctypes.cast(_capsule_get_pointer(p, _NAME_V), POINTER(DLManagedTensorVersioned))
            if m.contents.deleter:
                m.contents.deleter(m)
        elif _capsule_is_valid(p, _NAME_L):
            m = ctypes.cast(_capsule_get_pointer(p, _NAME_L), POINTER(DLManagedTensor))
            if m.contents.deleter:
                m.contents.deleter(m)
        del cap
    _exported.extend(keep)


atexit.register(collect)


def _new_capsule(ptr, name):
    collect()
    cap = _capsule_new(ptr, name, None)
    _exported.append(cap)
    return cap


def _as_ptr(obj):
    return c_void_p(id(obj))  # a PyObject* for the capsule API (borrowed)


class Array:
    """A libndgpu array (owns one reference to an nd_array)."""

    def __init__(self, handle):
        self._h = handle  # c_void_p

    def __del__(self):
        if getattr(self, "_h", None):
            _release(self._h)
            self._h = None

    @property
    def handle(self):
        return self._h

    @property
    def ndim(self):
        return _ndim(self._h)

    @property
    def shape(self):
        s = _shape(self._h)
        return tuple(s[i] for i in range(self.ndim))

    @property
    def strides(self):
        """Strides in elements."""
        s = _strides(self._h)
        return tuple(s[i] for i in range(self.ndim))

    @property
    def dtype(self):
        return DTYPES[_dtype_of(self._h)]

    @property
    def data_ptr(self):
        return _data(self._h)

    def tobytes(self):
        """The elements in C order."""
        n = _nbytes(self._h)
        buf = ctypes.create_string_buffer(max(n, 1))
        _check(_copy_to_host(buf, self._h, n))
        return buf.raw[:n]

    def write_bytes(self, data):
        """Overwrite the elements with C-ordered bytes (in place)."""
        _check(_copy_from_host(self._h, data, len(data)))

    def reshape(self, *shape):
        arr = (c_int64 * len(shape))(*shape)
        out = c_void_p()
        _check(_reshape(byref(out), self._h, len(shape), arr))
        return Array(out)

    @property
    def T(self):
        out = c_void_p()
        _check(_transpose(byref(out), self._h, None))
        return Array(out)

    def iadd(self, other):
        """self += other, in place (libndgpu's exact aliasing)."""
        out = c_void_p(self._h.value)
        _check(_add(byref(out), self._h, other._h))
        return self

    def save(self, path):
        _check(_save_npy(os.fsencode(path), self._h))

    # --- DLPack producer ------------------------------------------------
    def __dlpack_device__(self):
        return (kDLCPU, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if stream is not None:
            raise BufferError("ndgpu.py exports CPU arrays only: stream must be None")
        if dl_device is not None and tuple(dl_device) != (kDLCPU, 0):
            raise BufferError(f"cannot export to device {dl_device}")
        src = self
        if copy:
            out = c_void_p()
            _check(_copy(byref(out), self._h))
            src = Array(out)
        if max_version is not None and max_version[0] >= 1:
            m = POINTER(DLManagedTensorVersioned)()
            _check(_to_dlpack(byref(m), src._h))
            return _new_capsule(ctypes.cast(m, c_void_p), _NAME_V)
        m = POINTER(DLManagedTensor)()
        _check(_to_dlpack_legacy(byref(m), src._h))
        return _new_capsule(ctypes.cast(m, c_void_p), _NAME_L)

    def __repr__(self):
        return f"ndgpu.Array(shape={self.shape}, dtype={self.dtype})"


def arange(n, dtype="float64"):
    out = c_void_p()
    _check(_arange(byref(out), DTYPES.index(dtype), 0.0, float(n), 1.0, CPU))
    return Array(out)


def from_bytes(data, dtype, shape):
    arr = (c_int64 * len(shape))(*shape)
    out = c_void_p()
    _check(_from_host(byref(out), data, DTYPES.index(dtype), len(shape), arr, CPU))
    return Array(out)


def load(path):
    out = c_void_p()
    _check(_load_npy(byref(out), os.fsencode(path), CPU))
    return Array(out)


def from_dlpack(obj):
    """Import any __dlpack__ producer (e.g. a NumPy array) without a copy."""
    collect()
    try:
        cap = obj.__dlpack__(max_version=(1, 1))
    except TypeError:  # a producer without the max_version keyword
        cap = obj.__dlpack__()
    p = _as_ptr(cap)
    out = c_void_p()
    if _capsule_is_valid(p, _NAME_V):
        _check(_from_dlpack(byref(out), _capsule_get_pointer(p, _NAME_V)))
        _capsule_set_name(p, _USED_V)  # libndgpu owns the tensor now
    elif _capsule_is_valid(p, _NAME_L):
        _check(_from_dlpack_legacy(byref(out), _capsule_get_pointer(p, _NAME_L)))
        _capsule_set_name(p, _USED_L)
    else:
        raise BufferError("__dlpack__ did not return a DLPack capsule")
    return Array(out)
