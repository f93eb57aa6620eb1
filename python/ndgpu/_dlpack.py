"""DLPack: Array.__dlpack__ (producer) and from_dlpack (consumer)."""
import ctypes
import sys
from ctypes import byref, c_char_p, c_int, c_void_p, py_object

from ._lib import C, check

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

_NAME_V = ctypes.create_string_buffer(b"dltensor_versioned")
_NAME_L = ctypes.create_string_buffer(b"dltensor")
_USED_V = ctypes.create_string_buffer(b"used_dltensor_versioned")
_USED_L = ctypes.create_string_buffer(b"used_dltensor")

# offsets of `deleter` in the managed tensors (dlpack.h 1.1):
# DLManagedTensorVersioned {DLPackVersion version (8); void *manager_ctx; deleter; ...}
# DLManagedTensor {DLTensor dl_tensor (48); void *manager_ctx; deleter}
_DELETER = ctypes.CFUNCTYPE(None, c_void_p)
_OFF_V = 16
_OFF_L = 56

# Capsule lifetime: the capsules carry no destructor (a destructor written
# in Python, a ctypes callback, may run while a consumer's exception is
# pending, e.g. NumPy refusing bfloat16, and no Python code may run then);
# the module keeps a reference to each exported capsule and sweeps them at
# every export/import and at exit: one only the module still holds was
# consumed (renamed "used_...": the consumer owns the tensor) or abandoned
# (its deleter is called here).
_exported = []


def collect():
    """Release the tensors of abandoned, unconsumed capsules."""
    keep = []
    while _exported:
        cap = _exported.pop()
        if sys.getrefcount(cap) > 2:
            keep.append(cap)
            continue
        p = c_void_p(id(cap))
        for name, off in ((_NAME_V, _OFF_V), (_NAME_L, _OFF_L)):
            if _capsule_is_valid(p, name):
                m = _capsule_get_pointer(p, name)
                fp = c_void_p.from_address(m + off).value
                if fp:
                    _DELETER(fp)(m)
                break
        del cap
    _exported.extend(keep)


import atexit  # noqa: E402

atexit.register(collect)


def export(a, *, stream=None, max_version=None, dl_device=None, copy=None):
    from ._array import _HOST, call
    collect()
    dev = C.nd_device_of(a._h)
    if dl_device is not None:
        want = tuple(dl_device)
        if want != a.__dlpack_device__():
            if want[0] == 1 and copy is not False:  # to the CPU: a copy
                from ._array import CPU
                a = call(C.nd_to_device, a._h, CPU._nd)
                copy = False
            else:
                raise BufferError(f"cannot export to DLPack device {want} without a copy")
    if dev.type != _HOST and stream != -1:
        # the consumer's stream (None: the legacy default stream, as the
        # DLPack standard reads it; -1 alone asks for no synchronisation):
        # make the data ready by synchronising the device
        check(C.nd_synchronize(dev))
    if copy:
        a = call(C.nd_copy, a._h)
    if max_version is not None and tuple(max_version)[0] >= 1:
        m = c_void_p()
        check(C.nd_to_dlpack(byref(m), a._h))
        cap = _capsule_new(m, _NAME_V, None)
    else:
        m = c_void_p()
        check(C.nd_to_dlpack_legacy(byref(m), a._h))
        cap = _capsule_new(m, _NAME_L, None)
    _exported.append(cap)
    return cap


def from_dlpack(x, /, *, device=None, copy=None):
    from ._array import _HOST, Array, call, wrap, as_device
    collect()
    if isinstance(x, Array) and device is None:
        return call(C.nd_copy, x._h) if copy else x
    kw = {"max_version": (1, 1)}
    if copy is not None:
        kw["copy"] = copy
    if device is not None:
        d = as_device(device)
        if d.type == _HOST:
            kw["dl_device"] = (1, 0)  # kDLCPU
    try:
        cap = x.__dlpack__(**kw)
    except TypeError:  # a producer before DLPack 1.0's keywords
        if copy is True or (device is not None and "dl_device" in kw):
            raise
        cap = x.__dlpack__()
    p = c_void_p(id(cap))
    o = c_void_p()
    if _capsule_is_valid(p, _NAME_V):
        check(C.nd_from_dlpack(byref(o), _capsule_get_pointer(p, _NAME_V)), BufferError)
        _capsule_set_name(p, _USED_V)
    elif _capsule_is_valid(p, _NAME_L):
        check(C.nd_from_dlpack_legacy(byref(o), _capsule_get_pointer(p, _NAME_L)), BufferError)
        _capsule_set_name(p, _USED_L)
    else:
        raise BufferError("__dlpack__ did not return a DLPack capsule")
    r = wrap(o.value)
    if device is not None:
        r = r.to_device(device)
    if copy:
        r = call(C.nd_copy, r._h)
    return r
