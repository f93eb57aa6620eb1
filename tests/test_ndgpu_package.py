#!/usr/bin/env python3
"""The ndgpu package (python/) beyond the conformance suite: DLPack with
NumPy both ways (shared memory, no copy), .npy save/load, weak Python
scalars, devices and their errors, the standard's choices where NumPy
differs (var with N - correction <= 0, clip's dtype), and exceptions for
bad input.

    NDGPU_LIBRARY=build/libndgpu.so PYTHONPATH=python python3 tests/test_ndgpu_package.py

Run by `make array-api-test` (mk/array_api.mk) before the suite; with
ND_DEVICE=cuda:0 the arrays are made on the emulated device and the NumPy
exchanges go through the host. Exits 1 on a failure; SKIPPED without NumPy.
"""
import math
import os
import sys

try:
    import numpy as np
except ImportError:
    print("python-package-test: SKIPPED (NumPy not importable)")
    sys.exit(0)
import ndgpu as xp

FAILS = []
COUNT = [0]


def check(ok, what):
    COUNT[0] += 1
    if not ok:
        FAILS.append(what)


def raises(exc, f):
    try:
        f()
    except exc:
        return True
    except Exception as e:  # noqa: BLE001 - the wrong exception is a failure
        FAILS.append("raised %s (%s), not %s" % (type(e).__name__, e, exc))
        return True
    return False


dev = xp.asarray([1]).device
on_cpu = str(dev) == "cpu" or getattr(dev, "name", "") == "cpu" or "cpu" in repr(dev)

# values and weak scalars
x = xp.reshape(xp.arange(12, dtype=xp.float32), (3, 4))
y = x * 2 + 1
check(y.dtype == xp.float32, "float32 * python int stays float32: %s" % y.dtype)
check(float(xp.sum(y)) == 2 * 66 + 12, "sum(x * 2 + 1) = %r" % float(xp.sum(y)))
check((xp.asarray([1, 2], dtype=xp.int8) + 100).dtype == xp.int8, "int8 + python int stays int8")
check(raises(ValueError, lambda: xp.asarray([1, 2], dtype=xp.int8) + 1000), "int8 + 1000 (out of range) raises")
h = (xp.asarray([1.5], dtype=xp.float16) + 1.0)
check(h.dtype == xp.float16, "float16 + python float stays float16: %s" % h.dtype)

# DLPack with NumPy (host arrays only: NumPy cannot import device memory)
cx = x if on_cpu else x.to_device("cpu")
a = np.from_dlpack(cx)
check(a.shape == (3, 4) and a.dtype == np.float32 and a.sum() == 66, "np.from_dlpack: %r" % (a,))
src = np.arange(6.0).reshape(2, 3)
b = xp.from_dlpack(src)
check(b.shape == (2, 3) and b.dtype == xp.float64 and float(xp.sum(b)) == 15.0, "xp.from_dlpack(numpy)")
src[0, 0] = 100.0  # shared memory: no copy either way
check(float(xp.sum(b)) == 115.0, "from_dlpack shares NumPy's memory: sum %r" % float(xp.sum(b)))
t = np.asarray(xp.from_dlpack(np.ascontiguousarray(src.T)))
check(np.array_equal(t, src.T), "transposed DLPack round trip")

# __dlpack__ on a device array: stream=None means the legacy default stream
# (the DLPack standard), so the data must be made ready as for any consumer
# stream; only stream=-1 asks for no synchronisation
if not on_cpu:
    from ndgpu import _lib

    syncs = []
    real_sync = _lib.C.nd_synchronize

    def counting_sync(d):
        syncs.append(d)
        return real_sync(d)

    _lib.C.nd_synchronize = counting_sync
    try:
        for kw, want in (({}, 1), ({"stream": None}, 1), ({"stream": 1}, 1), ({"stream": -1}, 0)):
            del syncs[:]
            cap = x.__dlpack__(**kw)
            check(len(syncs) == want, "__dlpack__(%s) synchronised %d times, want %d" % (kw, len(syncs), want))
            del cap
    finally:
        _lib.C.nd_synchronize = real_sync

# the standard where NumPy differs
v = xp.var(xp.asarray([1.0, 2.0]), correction=2)
check(math.isnan(float(v)), "var with N - correction <= 0 is NaN (the standard): %r" % float(v))
c = xp.clip(xp.asarray([1, 5, 9], dtype=xp.int16), 2, 8)
check(c.dtype == xp.int16 and [int(c[i]) for i in range(3)] == [2, 5, 8], "clip keeps x's dtype")

# linalg and fft through the package agree with NumPy
m = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])
xm = xp.asarray(m) if on_cpu else xp.asarray(m, device=dev)
inv = np.from_dlpack(xp.linalg.inv(xm).to_device("cpu") if not on_cpu else xp.linalg.inv(xm))
check(np.allclose(inv, np.linalg.inv(m), rtol=1e-13, atol=1e-14), "linalg.inv vs NumPy")
w = np.from_dlpack(xp.linalg.eigvalsh(xm).to_device("cpu") if not on_cpu else xp.linalg.eigvalsh(xm))
check(np.allclose(w, np.linalg.eigvalsh(m), rtol=1e-13), "linalg.eigvalsh vs NumPy")
f = xp.fft.rfft(xm, axis=-1)
fh = np.from_dlpack(f.to_device("cpu") if not on_cpu else f)
check(np.allclose(fh, np.fft.rfft(m, axis=-1), rtol=1e-13, atol=1e-13), "fft.rfft vs NumPy")

# .npy files: save/load as np.save/np.load (onto the default device; any device saves)
import tempfile  # noqa: E402

with tempfile.TemporaryDirectory() as d:
    xp.save(os.path.join(d, "x"), x)  # '.npy' appended, as np.save does
    ld = xp.load(os.path.join(d, "x.npy"))
    check(ld.device == dev and ld.dtype == xp.float32 and ld.shape == (3, 4) and bool(xp.all(ld == x)),
          "save/load round trip on %s" % dev)
    check(np.array_equal(np.load(os.path.join(d, "x.npy")), np.arange(12, dtype=np.float32).reshape(3, 4)),
          "np.load reads xp.save's file")
    check(xp.load(os.path.join(d, "x.npy"), device="cpu").device == "cpu", "load(device='cpu')")
    check(raises(TypeError, lambda: xp.save(os.path.join(d, "y.npy"), np.zeros(2))), "save of a non-ndgpu array")
    check(raises(OSError, lambda: xp.load(os.path.join(d, "missing.npy"))), "load of a missing file raises OSError")

# fused expressions: the bits and dtype of the same chain of ops
e = xp.evaluate("0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x * x * x)))", x=x)
chain = 0.5 * x * (1 + xp.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
check(e.dtype == xp.float32 and bool(xp.all(e == chain)), "evaluate(gelu) == the same chain of ops")
check(float(xp.evaluate("sum(x * 2 + 1)", x=x)) == 2 * 66 + 12, "evaluate(sum(...))")
check(raises(ValueError, lambda: xp.evaluate("x + d", x=x)), "evaluate with an unknown name raises ValueError")

# copy, deepcopy and pickle: the data, never the C handle (two owners of one
# reference would free it twice)
import copy as _copy
import operator as _operator
import pickle as _pickle
import subprocess as _subprocess

c0 = xp.asarray([[1.5, -2.0], [3.25, 4.0]], dtype=xp.float32, device=dev)
for name, cp in (("copy.copy", _copy.copy(c0)), ("copy.deepcopy", _copy.deepcopy(c0))):
    check(cp is not c0 and cp.dtype == c0.dtype and cp.shape == c0.shape and cp.device == c0.device
          and bool(xp.all(cp == c0)), name + " gives an equal array")
    c1 = xp.asarray(c0, copy=True)
    del c1  # releasing one must leave the other whole
    check(float(xp.sum(cp)) == 6.75, name + ": the copy lives on")
lst = _copy.deepcopy([c0, {"k": c0}])
check(lst[0] is lst[1]["k"] and bool(xp.all(lst[0] == c0)), "deepcopy keeps one copy per object (memo)")
for a in (c0, xp.asarray(3.0, device=dev), xp.zeros((0, 3), dtype=xp.int16, device=dev),
          xp.asarray([1 + 2j, -3j], dtype=xp.complex64, device=dev),
          xp.asarray([0.1, 65504.0], dtype=xp.float16, device=dev), xp.asarray([True, False], device=dev)):
    b = _pickle.loads(_pickle.dumps(a))
    check(b.dtype == a.dtype and b.shape == a.shape and b.device == a.device and bool(xp.all(b == a)),
          "pickle round trip of %s %s" % (a.dtype, a.shape))
    del b
# in another process: a fresh interpreter unpickles and computes
prog = ("import pickle, sys, ndgpu; a = pickle.loads(sys.stdin.buffer.read()); "
        "sys.stdout.buffer.write(pickle.dumps((float(ndgpu.sum(a)), a * 2)))")
r = _subprocess.run([sys.executable, "-c", prog], input=_pickle.dumps(c0), capture_output=True, env=os.environ)
if r.returncode != 0:
    check(False, "unpickling in another process failed: " + r.stderr.decode()[-400:])
else:
    total, twice = _pickle.loads(r.stdout)
    check(total == 6.75 and bool(xp.all(twice == c0 * 2)), "another process unpickles, computes, pickles back")
# a multiprocessing worker (fork): a GPU array comes back on the CPU there when
# the child cannot use the parent's device, and the result returns whole
import multiprocessing as _mp
with _mp.get_context("fork").Pool(1) as pool:
    neg = pool.apply(_operator.neg, (c0,))
check(bool(xp.all(xp.asarray(neg, device=dev) == -c0)), "a multiprocessing worker computes on a pickled array")

# bad input raises, never crashes
check(raises(ValueError, lambda: xp.reshape(x, (5, 5))), "reshape to a wrong size raises ValueError")
check(raises(IndexError, lambda: x[7]), "an index out of range raises IndexError")
check(raises(TypeError, lambda: xp.bitwise_and(x, x)), "bitwise_and of floats raises TypeError")
check(raises(ValueError, lambda: xp.linalg.inv(xp.zeros((2, 2), device=dev))), "inv of a singular matrix raises")
# an absent GPU: ValueError; a CPU-only build: NotImplementedError (ND_ERR_UNSUPPORTED, "CUDA not compiled in")
check(raises((ValueError, NotImplementedError), lambda: xp.asarray([1.0], device="cuda:99")), "an absent device raises")

where = "cpu" if on_cpu else str(dev)
if FAILS:
    for f_ in FAILS:
        print("python-package-test: FAILED: " + f_)
    sys.exit(1)
print("python-package-test: %d checks on %s, 0 failures (ND_DEVICE=%s)" % (COUNT[0], where, os.environ.get("ND_DEVICE", "")))
