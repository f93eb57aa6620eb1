"""NumPy <-> libndgpu without copies (DLPack) and through .npy files, with
the Python package ndgpu (python/ndgpu).

    make lib && python3 examples/python/demo.py

The package is taken from this checkout's python/ (or, outside one, from
wherever it is installed: pip install ./python); it loads $NDGPU_LIBRARY,
else the checkout's build/libndgpu.so. Every step checks its result; the
script exits non-zero on the first mismatch (tests/test_python.sh runs it).
"""
import gc
import io
import os
import sys
import tempfile
import weakref

import numpy as np

_PY = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python")
if os.path.isdir(os.path.join(_PY, "ndgpu")):
    sys.path.insert(0, _PY)
import ndgpu as xp  # noqa: E402

# every dtype of libndgpu (float16 and bfloat16 are the package's extensions)
DTYPES = [xp.bool, xp.int8, xp.int16, xp.int32, xp.int64, xp.uint8, xp.uint16, xp.uint32, xp.uint64, xp.float16,
          xp.bfloat16, xp.float32, xp.float64, xp.complex64, xp.complex128]

checks = 0


def check(cond, what):
    global checks
    if not cond:
        print(f"FAILED: {what}")
        sys.exit(1)
    checks += 1
    print(f"ok  {what}")


class LegacyOnly:
    """A producer that only speaks the pre-1.0 protocol (no max_version)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def make(n, dt):
    """The ndgpu array of np.arange(n).astype(dt), on the CPU (NumPy has no bfloat16: a cast in libndgpu)."""
    if dt == xp.bfloat16:
        return xp.astype(xp.arange(n, dtype=xp.float32, device="cpu"), dt)
    return xp.asarray(np.arange(n).astype(dt.name), device="cpu", copy=True)


def address(a):
    """Where the elements of a (anything with __dlpack__) are, as NumPy sees them."""
    return np.from_dlpack(a).ctypes.data


# 1. libndgpu -> NumPy: zero copy, shared memory, ownership
a = xp.reshape(xp.arange(12, dtype=xp.float32, device="cpu"), (3, 4))
x = np.from_dlpack(a)
check(x.dtype == np.float32 and x.shape == (3, 4), "np.from_dlpack gives a float32 (3, 4) array")
check(np.array_equal(x, np.arange(12, dtype=np.float32).reshape(3, 4)), "values match np.arange")
check(address(a) == x.ctypes.data, "two exports share one buffer: NumPy's array is libndgpu's memory (no copy)")
x[1, 2] = 100.0  # write through NumPy ...
check(float(a[1, 2]) == 100.0, "a NumPy write is seen by libndgpu")
a[...] = 7.5  # ... and through libndgpu
check(np.all(x == 7.5), "a libndgpu write is seen by NumPy")
del a
gc.collect()
check(np.all(x == 7.5), "the NumPy array keeps the memory alive after the ndgpu array is gone")
del x

# transposed views keep their strides
t = xp.reshape(xp.arange(6, dtype=xp.int64, device="cpu"), (2, 3)).T
xt = np.from_dlpack(t)
check(xt.shape == (3, 2) and xt.strides == (8, 24), "a transposed view crosses with its strides")
check(np.array_equal(xt, np.arange(6).reshape(2, 3).T), "transposed values")

# every dtype NumPy has (bfloat16: NumPy has none and refuses kDLBfloat)
for dt in DTYPES:
    src = make(5, dt)
    if dt == xp.bfloat16:
        try:
            np.from_dlpack(src)
            check(False, "NumPy refuses bfloat16")
        except (BufferError, TypeError, ValueError, RuntimeError):
            check(True, "NumPy refuses a bfloat16 tensor (it has no bfloat16)")
        continue
    got = np.from_dlpack(src)
    check(got.dtype == np.dtype(dt.name) and np.array_equal(got, np.arange(5).astype(dt.name)),
          f"dtype {dt.name} crosses")

# the legacy (pre-1.0) protocol
y = np.from_dlpack(LegacyOnly(xp.arange(4, dtype=xp.uint16, device="cpu")))
check(np.array_equal(y, [0, 1, 2, 3]) and y.dtype == np.uint16, "legacy 'dltensor' capsules work")
# an unconsumed capsule releases its tensor: here the tensor holds NumPy's
# array (imported), so the array dies with it, at the next exchange
owner = np.arange(3, dtype=np.int8)
alive = weakref.ref(owner)
imp = xp.from_dlpack(owner)
cap = imp.__dlpack__(max_version=(1, 0))
del owner, imp
gc.collect()
held = alive() is not None
del cap
np.from_dlpack(xp.zeros(1, device="cpu"))  # any export or import sweeps abandoned capsules
gc.collect()
check(held and alive() is None, "an unconsumed capsule's tensor is released (and with it NumPy's array)")

# 2. NumPy -> libndgpu: zero copy, computing in place on NumPy's memory
n = np.arange(6, dtype=np.float64).reshape(2, 3)
b = xp.from_dlpack(n)
check(b.shape == (2, 3) and b.dtype == xp.float64 and b.device == "cpu", "ndgpu.from_dlpack imports a NumPy array")
check(address(b) == n.ctypes.data, "libndgpu's array points at NumPy's memory (no copy)")
b += b  # in libndgpu, in place
check(np.array_equal(n, 2 * np.arange(6).reshape(2, 3)), "b += b in libndgpu doubles the NumPy array")
n[0, 0] = -1.0
check(float(b[0, 0]) == -1.0, "a NumPy write is seen by the imported array")
nt = xp.from_dlpack(n.T)
back = np.from_dlpack(nt)
check(nt.shape == (3, 2) and back.strides == (8, 24) and back.ctypes.data == n.ctypes.data,
      "a transposed NumPy view imports as a view with its strides")
check(nt.tolist() == n.T.tolist(), "transposed values")
del n, back
gc.collect()
check(float(b[1, 2]) == 10.0, "the imported array keeps NumPy's memory alive")
del b, nt
gc.collect()

# 3. .npy files both ways (ndgpu.save / ndgpu.load, as np.save / np.load)
with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "ours.npy")
    for dt in DTYPES:
        arr = xp.reshape(make(6, dt), (2, 3))
        xp.save(p, arr.T)  # a non-contiguous array
        got = np.load(p)
        if dt == xp.bfloat16:
            check(got.dtype == np.dtype("V2") and got.shape == (3, 2), "bfloat16 saves as '<V2' (ml_dtypes' layout)")
            bits = got.view("<u2").astype("<u4") << 16
            check(np.array_equal(bits.view("<f4"), np.arange(6, dtype=np.float32).reshape(2, 3).T),
                  "bfloat16 bits read back as float32 through NumPy")
        else:
            check(got.dtype == np.dtype(dt.name) and np.array_equal(got, np.arange(6).astype(dt.name).reshape(2, 3).T),
                  f"np.load reads libndgpu's {dt.name} file")
        with open(p, "rb") as f:
            ours = f.read()
        if dt != xp.bfloat16:
            q = os.path.join(d, "numpy.npy")
            np.save(q, np.ascontiguousarray(np.arange(6).astype(dt.name).reshape(2, 3).T))
            with open(q, "rb") as f:
                check(f.read() == ours, f"libndgpu's {dt.name} file is byte-identical to np.save's")
    q = os.path.join(d, "numpy.npy")
    for src in [np.arange(24, dtype=">f8").reshape(2, 3, 4), np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3)),
                np.float16(1.5) * np.ones(()), np.zeros((0, 4), np.uint32)]:
        np.save(q, src)
        back = np.from_dlpack(xp.load(q, device="cpu"))
        check(back.dtype == src.dtype.newbyteorder("=") and back.shape == src.shape and np.array_equal(back, src),
              f"libndgpu loads np.save's {src.dtype.str} {src.shape} "
              f"{'C' if src.flags.c_contiguous else 'Fortran'}-order file")
    # file objects: arrays one after another, as with np.save(f, ...) / np.load(f)
    f = io.BytesIO()
    xp.save(f, xp.reshape(make(6, xp.int32), (2, 3)))
    np.save(f, np.arange(4, dtype=np.float32))
    f.seek(0)
    first, second = np.load(f), xp.load(f, device="cpu")
    check(np.array_equal(first, np.arange(6, dtype=np.int32).reshape(2, 3)) and second.tolist() == [0.0, 1.0, 2.0, 3.0]
          and f.tell() == len(f.getvalue()), "file objects hold one array after another, both ways")
    with open(q, "wb") as f:
        np.save(f, np.array([object()], dtype=object), allow_pickle=True)
    try:
        xp.load(q)
        check(False, "object arrays are refused")
    except OSError as e:
        check("ND_ERR_IO" in str(e) and "pickle" in str(e), "an object (pickle) file is refused with ND_ERR_IO")

print(f"python demo: {checks} checks passed")
