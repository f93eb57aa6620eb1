"""__array_namespace_info__: devices, default dtypes, capabilities."""
from . import _dtypes as _dt
from ._array import CPU, Device, default_device as _default_device
from ._lib import C, NdDevice


class Info:
    """The inspection object of the array API (2023.12)."""
    __module__ = "ndgpu"

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 32}

    def default_device(self):
        return _default_device()

    def devices(self):
        n = C.nd_devices(None, 0)
        arr = (NdDevice * n)()
        C.nd_devices(arr, n)
        return [CPU if d.type == CPU.type and d.id == 0 else Device(d.type, d.id) for d in arr]

    def default_dtypes(self, *, device=None):
        return {"real floating": _dt.float64, "complex floating": _dt.complex128, "integral": _dt.int64,
                "indexing": _dt.int64}

    def dtypes(self, *, device=None, kind=None):
        ds = _dt.STANDARD
        if kind is None:
            return {d.name: d for d in ds}
        return {d.name: d for d in ds if _dt.isdtype(d, kind)}


def __array_namespace_info__():
    return Info()
