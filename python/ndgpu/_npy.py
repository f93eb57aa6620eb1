"""save and load: .npy files (NumPy's format), written and parsed by the C
library (nd_save_npy, nd_load_npy, nd_load_npy_buffer).

An extension of the standard, named and used as NumPy's np.save/np.load:

    xp.save("x.npy", x)          # byte-identical to np.save's file of the same array
    y = xp.load("x.npy")         # np.save's files: any byte order, C or Fortran order

bfloat16 is saved as '<V2' (what np.save writes for ml_dtypes.bfloat16);
object (pickle) files are refused with OSError.
"""
import os
import shutil
import tempfile

from ._array import Array, as_device, call
from ._lib import C, check

__all__ = ["save", "load"]


def _is_path(file):
    return isinstance(file, (str, bytes, os.PathLike))


def save(file, arr, /):
    """Write arr (any layout, any device) to a .npy file in C order.

    file: a path (str, bytes or os.PathLike; '.npy' is appended when the
    name lacks it, as np.save does) or a binary file object, written at
    its current position (so several arrays can follow one another)."""
    if not isinstance(arr, Array):
        raise TypeError(f"save: expected an ndgpu.Array, got {type(arr).__name__}")
    if _is_path(file):
        path = os.fsencode(file)
        if not path.endswith(b".npy"):
            path += b".npy"
        check(C.nd_save_npy(path, arr._h))
        return
    if not hasattr(file, "write"):
        raise TypeError(f"save: file must be a path or a binary file object, not {type(file).__name__}")
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "array.npy")
        check(C.nd_save_npy(os.fsencode(p), arr._h))
        with open(p, "rb") as f:
            shutil.copyfileobj(f, file)


def load(file, /, *, device=None):
    """The array of a .npy file, on device (default: the default device).

    file: a path, or a binary file object read from its current position;
    a seekable one is left just after the array, as np.load leaves it."""
    dev = as_device(device)._nd
    if _is_path(file):
        return call(C.nd_load_npy, os.fsencode(file), dev)
    if not hasattr(file, "read"):
        raise TypeError(f"load: file must be a path or a binary file object, not {type(file).__name__}")
    seekable = getattr(file, "seekable", None)
    start = file.tell() if seekable is not None and seekable() else None
    data = file.read()
    if not isinstance(data, bytes):
        raise TypeError("load: the file object must be opened in binary mode")
    a = call(C.nd_load_npy_buffer, data, len(data), dev)
    if start is not None:
        # magic (6 bytes), version (2), header length (2 bytes in 1.0, 4 in 2.0/3.0), header, data
        n = 2 if data[6] == 1 else 4
        end = 8 + n + int.from_bytes(data[8:8 + n], "little") + C.nd_nbytes(a._h)
        file.seek(start + end)
    return a
