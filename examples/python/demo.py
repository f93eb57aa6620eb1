"""NumPy <-> libndgpu without copies (DLPack) and through .npy files.

    make lib && python3 examples/python/demo.py

Every step checks its result; the script exits non-zero on the first
mismatch (tests/test_python.sh runs it).
"""
import gc
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ndgpu  # noqa: E402

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
    """ndgpu array of np.arange(n).astype(dt) (bfloat16 through nd_arange)."""
    if dt == "bfloat16":
        return ndgpu.arange(n, dt)
    return ndgpu.from_bytes(np.arange(n).astype(dt).tobytes(), dt, (n,))


# 1. libndgpu -> NumPy: zero copy, shared memory, ownership
a = ndgpu.arange(12, "float32").reshape(3, 4)
x = np.from_dlpack(a)
check(x.dtype == np.float32 and x.shape == (3, 4), "np.from_dlpack gives a float32 (3, 4) array")
check(np.array_equal(x, np.arange(12, dtype=np.float32).reshape(3, 4)), "values match np.arange")
check(x.ctypes.data == a.data_ptr, "NumPy's array points at libndgpu's memory (no copy)")
x[1, 2] = 100.0  # write through NumPy ...
check(np.frombuffer(a.tobytes(), np.float32)[6] == 100.0, "a NumPy write is seen by libndgpu")
a.write_bytes(np.full(12, 7.5, np.float32).tobytes())  # ... and through libndgpu
check(np.all(x == 7.5), "a libndgpu write is seen by NumPy")
del a
gc.collect()
check(np.all(x == 7.5), "the NumPy array keeps the memory alive after the ndgpu.Array is gone")
del x

# transposed views keep their strides
t = ndgpu.arange(6, "int64").reshape(2, 3).T
xt = np.from_dlpack(t)
check(xt.shape == (3, 2) and xt.strides == (8, 24), "a transposed view crosses with its strides")
check(np.array_equal(xt, np.arange(6).reshape(2, 3).T), "transposed values")

# every dtype NumPy has (bfloat16: NumPy has none and refuses kDLBfloat)
for dt in ndgpu.DTYPES:
    src = make(5, dt)
    if dt == "bfloat16":
        try:
            np.from_dlpack(src)
            check(False, "NumPy refuses bfloat16")
        except (BufferError, TypeError, ValueError, RuntimeError):
            check(True, "NumPy refuses a bfloat16 tensor (it has no bfloat16)")
        continue
    got = np.from_dlpack(src)
    check(got.dtype == np.dtype(dt) and np.array_equal(got, np.arange(5).astype(dt)), f"dtype {dt} crosses")

# the legacy (pre-1.0) protocol
y = np.from_dlpack(LegacyOnly(ndgpu.arange(4, "uint16")))
check(np.array_equal(y, [0, 1, 2, 3]) and y.dtype == np.uint16, "legacy 'dltensor' capsules work")
# an unconsumed capsule frees its tensor when collected
cap = ndgpu.arange(3, "int8").__dlpack__(max_version=(1, 0))
n_before = len(ndgpu._exported)
del cap
ndgpu.collect()
check(len(ndgpu._exported) == 0 and n_before >= 1, "an unconsumed capsule's tensor is released by ndgpu.collect()")

# 2. NumPy -> libndgpu: zero copy, computing in place on NumPy's memory
n = np.arange(6, dtype=np.float64).reshape(2, 3)
b = ndgpu.from_dlpack(n)
check(b.shape == (2, 3) and b.dtype == "float64", "ndgpu.from_dlpack imports a NumPy array")
check(b.data_ptr == n.ctypes.data, "libndgpu's array points at NumPy's memory (no copy)")
b.iadd(b)  # b += b in libndgpu
check(np.array_equal(n, 2 * np.arange(6).reshape(2, 3)), "nd_add in place doubles the NumPy array")
n[0, 0] = -1.0
check(np.frombuffer(b.tobytes(), np.float64)[0] == -1.0, "a NumPy write is seen by the imported array")
nt = ndgpu.from_dlpack(n.T)
check(nt.shape == (3, 2) and nt.strides == (1, 3), "a transposed NumPy view imports with element strides")
check(np.array_equal(np.frombuffer(nt.tobytes(), np.float64).reshape(3, 2), n.T), "transposed values")
del n
gc.collect()
check(np.frombuffer(b.tobytes(), np.float64)[5] == 10.0, "the imported array keeps NumPy's memory alive")
del b, nt
gc.collect()

# 3. .npy files both ways
with tempfile.TemporaryDirectory() as d:
    p = os.path.join(d, "ours.npy")
    for dt in ndgpu.DTYPES:
        arr = make(6, dt).reshape(2, 3)
        arr.T.save(p)  # a non-contiguous array
        got = np.load(p)
        if dt == "bfloat16":
            check(got.dtype == np.dtype("V2") and got.shape == (3, 2), "bfloat16 saves as '<V2' (ml_dtypes' layout)")
            bits = got.view("<u2").astype("<u4") << 16
            check(np.array_equal(bits.view("<f4"), np.arange(6, dtype=np.float32).reshape(2, 3).T),
                  "bfloat16 bits read back as float32 through NumPy")
        else:
            check(got.dtype == np.dtype(dt) and np.array_equal(got, np.arange(6).astype(dt).reshape(2, 3).T),
                  f"np.load reads libndgpu's {dt} file")
        with open(p, "rb") as f:
            ours = f.read()
        if dt != "bfloat16":
            q = os.path.join(d, "numpy.npy")
            np.save(q, np.ascontiguousarray(np.arange(6).astype(dt).reshape(2, 3).T))
            with open(q, "rb") as f:
                check(f.read() == ours, f"libndgpu's {dt} file is byte-identical to np.save's")
    q = os.path.join(d, "numpy.npy")
    for src in [np.arange(24, dtype=">f8").reshape(2, 3, 4), np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3)),
                np.float16(1.5) * np.ones(()), np.zeros((0, 4), np.uint32)]:
        np.save(q, src)
        back = np.frombuffer(ndgpu.load(q).tobytes(), src.dtype.newbyteorder("=")).reshape(src.shape)
        check(np.array_equal(back, src), f"libndgpu loads np.save's {src.dtype.str} {src.shape} "
                                         f"{'C' if src.flags.c_contiguous else 'Fortran'}-order file")
    with open(q, "wb") as f:
        np.save(f, np.array([object()], dtype=object), allow_pickle=True)
    try:
        ndgpu.load(q)
        check(False, "object arrays are refused")
    except ndgpu.NdError as e:
        check(e.status == "ND_ERR_IO" and "pickle" in str(e), "an object (pickle) file is refused with ND_ERR_IO")

print(f"python demo: {checks} checks passed")
