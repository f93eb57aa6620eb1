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

# ---- NumPy interop: np.asarray(x) (__array__), NumPy operands, NumPy
# ufuncs (__array_ufunc__), NumPy indices and arguments, DType.dtype
import importlib as _importlib


def _np_of(a):
    """a's values in NumPy, read through DLPack (not through __array__)."""
    return np.from_dlpack(a.to_device("cpu"))


def _is_nd(r, dt=None):
    return isinstance(r, xp.Array) and r.device == dev and (dt is None or r.dtype == dt)


def _val(f):
    """f() or, when it raises, a string saying what (a failed check, not a crash)."""
    try:
        return f()
    except Exception as e:  # noqa: BLE001
        return "raised %s: %s" % (type(e).__name__, e)


def _list(r):
    return _np_of(r).tolist() if isinstance(r, xp.Array) else r


base = np.arange(12.0).reshape(3, 4)
xa = xp.asarray(base, device=dev)
if on_cpu:
    v = np.asarray(xa)
    check(isinstance(v, np.ndarray) and v.dtype == np.float64 and np.array_equal(v, base), "np.asarray(x): a float64 ndarray")
    v[0, 0] = 100.0
    check(float(xa[0, 0]) == 100.0, "np.asarray(x) is a view: a write through it shows in x")
    xa[1, 1] = -5.0
    check(v[1, 1] == -5.0, "np.asarray(x) is a view: a write to x shows in it")
    tmp = xp.asarray([1.5, 2.5], device=dev)
    tv = np.asarray(tmp)
    del tmp
    import gc as _gc
    _gc.collect()
    check(tv.tolist() == [1.5, 2.5], "the view keeps the ndgpu array alive")
    sv = xa[::2, ::-1]
    snp = np.asarray(sv)
    check(np.array_equal(snp, np.asarray(xa)[::2, ::-1]) and snp.strides == (64, -8),
          "a strided view with a negative stride: %s strides %s" % (snp.tolist(), snp.strides))
    check(np.shares_memory(snp, np.asarray(xa)), "the strided view shares x's memory")
    bv = np.asarray(xp.broadcast_to(xp.asarray([1.0, 2.0], device=dev), (3, 2)))
    check(not bv.flags.writeable and bv.tolist() == [[1.0, 2.0]] * 3, "a broadcast view is read-only in NumPy")
    ro = np.arange(4.0)
    ro.flags.writeable = False
    check(not np.asarray(xp.asarray(ro)).flags.writeable, "a read-only import stays read-only when viewed back")
    c = np.asarray(xa, copy=True)
    c[0, 0] = -1.0
    check(float(xa[0, 0]) != -1.0, "copy=True copies")
    check(raises(ValueError, lambda: np.asarray(xa, dtype=np.float32, copy=False)), "copy=False with a dtype change")
    f32 = np.asarray(xa, dtype=np.float32)
    check(f32.dtype == np.float32 and np.array_equal(f32, np.asarray(xa).astype(np.float32)), "dtype= converts")
    check(np.asarray(xa, copy=False).base is not None, "copy=False gives the view")
    for d_ in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
               "float32", "float64", "complex64", "complex128"):
        src = (np.arange(6) % 3).astype(d_).reshape(2, 3)
        got = np.asarray(xp.asarray(src))
        check(got.dtype == src.dtype and np.array_equal(got, src), "np.asarray of an ndgpu %s array" % d_)
    check(np.asarray(xp.asarray(2.5)).shape == () and float(np.asarray(xp.asarray(2.5))) == 2.5, "0-d array")
    check(np.asarray(xp.zeros((0, 3))).shape == (0, 3), "empty array")
    bf = xp.asarray([1.5, -2.0, 3.0], dtype=xp.bfloat16)
    try:
        import ml_dtypes as _mld
        b_np = np.asarray(bf)
        check(b_np.dtype == _mld.bfloat16 and b_np.astype(np.float32).tolist() == [1.5, -2.0, 3.0],
              "bfloat16 as ml_dtypes.bfloat16")
    except ImportError:
        pass
    _saved = sys.modules.get("ml_dtypes")
    sys.modules["ml_dtypes"] = None  # as if ml_dtypes were not installed
    try:
        b32 = np.asarray(bf)
        check(b32.dtype == np.float32 and b32.tolist() == [1.5, -2.0, 3.0], "bfloat16 without ml_dtypes: float32")
        check(raises(ValueError, lambda: np.asarray(bf, copy=False)), "bfloat16 without ml_dtypes: copy=False")
    finally:
        if _saved is None:
            del sys.modules["ml_dtypes"]
        else:
            sys.modules["ml_dtypes"] = _saved
else:
    err = None
    try:
        np.asarray(xa)
    except TypeError as e:
        err = str(e)
    check(err is not None and "to_device('cpu')" in err and "from_dlpack" in err,
          "np.asarray of a GPU array refuses with a TypeError saying how: %s" % err)
    check(raises(TypeError, lambda: np.asarray(xa, copy=False)), "copy=False of a GPU array refuses")
    check(np.array_equal(np.array(xa), base), "np.array(x) (a copy) of a GPU array copies to the host")
    check(np.array_equal(np.asarray(xa, copy=True, dtype=np.float32), base.astype(np.float32)),
          "np.asarray(x, copy=True, dtype=) of a GPU array")
    check(raises(TypeError, lambda: np.add.reduce(xa)), "a NumPy-only ufunc method on a GPU array refuses")
    check(raises(TypeError, lambda: np.frexp(xa)), "a ufunc the library lacks refuses on a GPU array")

# NumPy operands: never object arrays; results on x's device
n_ = np.full((3, 4), 2.0)
for what, f in (("x + np", lambda: xa + n_), ("np + x", lambda: n_ + xa), ("x * np", lambda: xa * n_),
                ("np - x", lambda: n_ - xa), ("x < np", lambda: xa < n_), ("xp.add(x, np)", lambda: xp.add(xa, n_)),
                ("xp.add(np, x)", lambda: xp.add(n_, xa)), ("np.add(x, np)", lambda: np.add(xa, n_)),
                ("x @ np", lambda: xa @ n_.T), ("np @ x", lambda: n_.T @ xa)):
    r = f()
    ref = {"x + np": _np_of(xa) + n_, "np + x": n_ + _np_of(xa), "x * np": _np_of(xa) * n_,
           "np - x": n_ - _np_of(xa), "x < np": _np_of(xa) < n_, "xp.add(x, np)": _np_of(xa) + n_,
           "xp.add(np, x)": n_ + _np_of(xa), "np.add(x, np)": _np_of(xa) + n_, "x @ np": _np_of(xa) @ n_.T,
           "np @ x": n_.T @ _np_of(xa)}[what]
    check(_is_nd(r) and np.array_equal(_np_of(r), ref), "%s gives an ndgpu array equal to NumPy's" % what)
i8 = xp.asarray([1, 2, 3], dtype=xp.int8, device=dev)
f32a = xp.asarray([1.0, 2.0], dtype=xp.float32, device=dev)
check(_is_nd(i8 + np.int64(2), xp.int64), "int8 + np.int64 scalar: int64 (NEP 50: NumPy scalars are typed)")
check(_is_nd(np.int64(2) + i8, xp.int64), "np.int64 scalar + int8: int64")
check(_is_nd(i8 + np.int8(2), xp.int8), "int8 + np.int8 scalar: int8")
check(_is_nd(f32a * np.float32(3), xp.float32) and _np_of(f32a * np.float32(3)).tolist() == [3.0, 6.0], "float32 * np.float32")
check(_is_nd(f32a + np.float64(1), xp.float32), "float32 + np.float64 (a Python float): float32, weak")
check(_is_nd(xp.asarray([True, False], device=dev) & np.bool_(True), xp.bool), "bool & np.bool_")
check(_is_nd(xp.add(i8, np.int16(1)), xp.int16), "xp.add(int8, np.int16 scalar): int16")
check(_is_nd(f32a + np.ones(2, dtype=np.float64), xp.float64), "float32 + a float64 NumPy array: float64")
acc = xp.asarray([1.0, 2.0, 3.0], device=dev)
acc += np.array([10.0, 20.0, 30.0])
check(_is_nd(acc) and _np_of(acc).tolist() == [11.0, 22.0, 33.0], "x += np_array")
check(raises(TypeError, lambda: xa + np.array(["a"] * 4)), "x + a NumPy str array: TypeError")
check(raises(TypeError, lambda: xp.add(xa, np.array([None] * 4))), "xp.add(x, NumPy object array): TypeError")

# NumPy's ufuncs
for uf, ref in ((np.exp, np.exp), (np.sqrt, np.sqrt), (np.negative, np.negative), (np.absolute, np.absolute)):
    # (x holds a negative number on the CPU: sqrt gives a NaN there, as NumPy's)
    r = uf(xa)
    with np.errstate(invalid="ignore"):
        want = ref(_np_of(xa))
    check(_is_nd(r) and np.allclose(_np_of(r), want, equal_nan=True), "np.%s(x) runs in ndgpu" % uf.__name__)
r = np.maximum(xa, n_)
check(_is_nd(r) and np.array_equal(_np_of(r), np.maximum(_np_of(xa), n_)), "np.maximum(x, np_array)")
o_ = xp.zeros((3, 4), device=dev)
r = np.add(xa, 1.0, out=o_)
check(r is o_ and np.array_equal(_np_of(o_), _np_of(xa) + 1.0), "np.add(x, 1, out=ndgpu array) writes in place")
if on_cpu:
    m_, e_ = np.frexp(xa)
    check(_is_nd(m_) and _is_nd(e_) and np.array_equal(_np_of(m_), np.frexp(_np_of(xa))[0]),
          "np.frexp(x) (NumPy's, on views): a tuple of ndgpu arrays")
    r = np.add.reduce(xa, axis=0)
    check(_is_nd(r) and np.array_equal(_np_of(r), _np_of(xa).sum(axis=0)), "np.add.reduce(x, axis=0)")
    r = np.add.accumulate(xa, axis=1)
    check(_is_nd(r) and np.array_equal(_np_of(r), np.cumsum(_np_of(xa), axis=1)), "np.add.accumulate")
    at = xp.zeros(4, device=dev)
    np.add.at(at, np.array([0, 0, 3]), 1.0)
    check(_np_of(at).tolist() == [2.0, 0.0, 0.0, 1.0], "np.add.at(x, ...) updates x in place")
    r = np.add(xa, 1.0, dtype=np.float32)
    check(_is_nd(r, xp.float32), "np.add(x, 1, dtype=float32): NumPy's keyword honoured")
    nn_ = np.zeros(4)
    nn_ += xp.ones(4)
    check(isinstance(nn_, np.ndarray) and nn_.tolist() == [1.0] * 4, "np_array += x stays a NumPy array")
    fl = np.logical_and(xp.asarray([0.0, 1.0, 2.0]), xp.asarray([1.0, 1.0, 0.0]))
    check(_is_nd(fl, xp.bool) and _np_of(fl).tolist() == [False, True, False],
          "np.logical_and of floats (refused by the library, NumPy's on the CPU)")

# NumPy indices
x1 = xp.asarray([10.0, 11.0, 12.0, 13.0], device=dev)
for what, key, ref in (("np int array", np.array([0, 2]), [10.0, 12.0]), ("np uint8 array", np.array([3, 1], np.uint8), [13.0, 11.0]),
                       ("np bool mask", np.array([True, False, False, True]), [10.0, 13.0]),
                       ("np negative ints", np.array([-1, -4]), [13.0, 10.0])):
    r = _val(lambda: x1[key])
    check(_is_nd(r) and _list(r) == ref, "x[%s] = %s" % (what, _list(r)))
check(_list(_val(lambda: x1[np.int64(2)])) == 12.0 and _list(_val(lambda: x1[np.int32(-1)])) == 13.0,
      "x[np.int64(2)], x[np.int32(-1)]")
check(_list(_val(lambda: xa[np.int64(1), np.array([0, 3])])) == _np_of(xa)[1, [0, 3]].tolist(), "x[np.int64, np array]")
check(_list(_val(lambda: xa[:, np.array([3, 0])])) == _np_of(xa)[:, [3, 0]].tolist(), "x[:, np array]")
check(raises(IndexError, lambda: x1[np.array([0.5])]), "a float NumPy array index raises IndexError")
check(raises(IndexError, lambda: x1[np.array([7])]), "an out-of-range NumPy index raises IndexError")
w_ = xp.zeros(4, device=dev)


def _set():
    w_[np.array([1, 3])] = 5.0
    w_[np.array([True, False, False, False])] = np.float64(2.0)
    w_[np.int64(2)] = np.float32(7.0)


_val(_set)
check(_np_of(w_).tolist() == [2.0, 5.0, 7.0, 5.0], "setitem with NumPy indices and values: %s" % _np_of(w_).tolist())

# NumPy arrays as the namespace's arguments: converted beside the arrays
nv = np.array([3.0, 1.0, 2.0])
for what, f, ref in (("sum", lambda: xp.sum(nv), 6.0), ("sort", lambda: xp.sort(nv), [1.0, 2.0, 3.0]),
                     ("concat", lambda: xp.concat([x1, nv]), [10.0, 11.0, 12.0, 13.0, 3.0, 1.0, 2.0]),
                     ("where", lambda: xp.where(nv > 1.5, x1[:3], nv), [10.0, 1.0, 12.0]),
                     ("take", lambda: xp.take(x1, np.array([3, 0])), [13.0, 10.0]),
                     ("stack", lambda: xp.stack([nv, x1[:3]]), [[3.0, 1.0, 2.0], [10.0, 11.0, 12.0]]),
                     ("matmul", lambda: xp.matmul(x1[:3], nv), 65.0), ("linalg.vector_norm", lambda: xp.linalg.vector_norm(nv), float(np.linalg.norm(nv))),
                     ("fft.fft", lambda: xp.real(xp.fft.fft(nv))[0], 6.0), ("zeros_like", lambda: xp.zeros_like(nv), [0.0] * 3),
                     ("astype", lambda: xp.astype(nv, xp.int32), [3, 1, 2]), ("max(axis=np.int64)", lambda: xp.max(xp.reshape(x1, (2, 2)), axis=np.int64(1)), [11.0, 13.0]),
                     ("real", lambda: xp.real(nv + 1j), [3.0, 1.0, 2.0]), ("imag", lambda: xp.imag(nv * 1j), [3.0, 1.0, 2.0]),
                     ("round", lambda: xp.round(nv + 0.4), [3.0, 1.0, 2.0]),
                     ("tanh(complex)", lambda: xp.real(xp.tanh(np.zeros(2, complex))), [0.0, 0.0]),
                     ("expm1(complex)", lambda: xp.real(xp.expm1(np.zeros(2, complex))), [0.0, 0.0]),
                     ("clip", lambda: xp.clip(nv, 1.5, 2.5), [2.5, 1.5, 2.0]),
                     ("clip(bounds)", lambda: xp.clip(x1[:3], np.array(10.5), np.float64(11.5)), [10.5, 11.0, 11.5]),
                     ("floor_divide", lambda: xp.floor_divide(x1[:3], np.array([4.0, 4.0, 4.0])), [2.0, 2.0, 3.0])):
    try:
        r = f()
        ok = _is_nd(r) and _np_of(r).tolist() == ref
    except Exception as e:  # noqa: BLE001
        ok, r = False, "%s: %s" % (type(e).__name__, e)
    check(ok, "xp.%s with NumPy arguments: %s" % (what, r))
for what, f in (("matmul(x, list)", lambda: xp.matmul(x1, [1.0, 2.0, 3.0, 4.0])), ("exp(list)", lambda: xp.exp([1.0])),
                ("sum(list)", lambda: xp.sum([1.0])), ("linalg.inv(list)", lambda: xp.linalg.inv([[1.0]])),
                ("concat([x, list])", lambda: xp.concat([x1, [1.0]])), ("real(list)", lambda: xp.real([1.0])),
                ("clip(list)", lambda: xp.clip([1.0], 0, 1)), ("round(list)", lambda: xp.round([1.0]))):
    msg = None
    try:
        f()
    except TypeError as e:
        msg = str(e)
    except Exception as e:  # noqa: BLE001
        msg = "wrong exception %s: %s" % (type(e).__name__, e)
    check(msg is not None and "_h" not in msg and "wrong exception" not in msg,
          "xp.%s raises a TypeError naming the type (not AttributeError: _h): %s" % (what, msg))
check("ndgpu.asarray" in str(_importlib.import_module("ndgpu._interop").operand_error(x1, [1])),
      "the operand error says how to convert")

# asarray of what DLPack does not carry: byte-swapped, bfloat16, odd strides
r = _val(lambda: xp.asarray(np.arange(4, dtype=">f8"), device=dev))
check(_is_nd(r, xp.float64) and _list(r) == [0.0, 1.0, 2.0, 3.0], "asarray of a big-endian NumPy array: %s" % _list(r))
rec = np.zeros(3, dtype=[("a", "<f8"), ("b", "<i4")])
rec["a"] = [1.0, 2.0, 3.0]
r = _val(lambda: xp.asarray(rec["a"], device=dev))
check(_is_nd(r, xp.float64) and _list(r) == [1.0, 2.0, 3.0], "asarray of a field of a record array (12-byte strides)")
try:
    import ml_dtypes as _mld2
    r = _val(lambda: xp.asarray(np.array([1.5, -2.0], dtype=_mld2.bfloat16), device=dev))
    check(_is_nd(r, xp.bfloat16) and _list(xp.astype(r, xp.float32)) == [1.5, -2.0], "asarray of an ml_dtypes.bfloat16 array")
except ImportError:
    pass

# DType.dtype: NumPy reads ndgpu dtypes
check(np.dtype(xp.float32) == np.float32 and np.zeros(2, dtype=xp.int16).dtype == np.int16,
      "np.dtype(ndgpu.float32), np.zeros(dtype=ndgpu.int16)")
check(np.arange(3).astype(xp.float32).dtype == np.float32, "ndarray.astype(ndgpu.float32)")
check(xp.float64.kind == "f" and xp.int8.kind == "i" and xp.uint8.kind == "u" and xp.bool.kind == "b"
      and xp.complex64.kind == "c", "DType.kind reads as NumPy's")

# ndgpu.special: scipy.special's functions and the activations (the library's op table)
try:
    import scipy.special as _sc
except ImportError:
    _sc = None
_xs = np.array([-3.5, -1.0, -0.25, 0.0, 0.5, 2.0, 7.0])
_xv = xp.asarray(_xs, device=dev)
if _sc is not None:
    for _n in ("erf", "erfc", "erfcx", "ndtr", "log_ndtr", "expit", "log_expit", "entr"):
        _got = np.asarray(xp.asarray(getattr(xp.special, _n)(_xv), device="cpu") if not on_cpu else getattr(xp.special, _n)(_xv))
        _want = getattr(_sc, _n)(_xs)
        check(np.allclose(_got, _want, rtol=1e-14, atol=0, equal_nan=True), "special.%s: %s vs scipy %s" % (_n, _got, _want))
    _p = xp.asarray(np.array([0.001, 0.3, 0.5, 0.9]), device=dev)
    for _n in ("ndtri", "logit"):
        _got = np.asarray(getattr(xp.special, _n)(_p) if on_cpu else xp.asarray(getattr(xp.special, _n)(_p), device="cpu"))
        check(np.allclose(_got, getattr(_sc, _n)(np.array([0.001, 0.3, 0.5, 0.9])), rtol=1e-14), "special.%s" % _n)
_r = xp.special.leaky_relu(xp.asarray(np.array([-2.0, 3.0], dtype=np.float32), device=dev), 0.5)
check(_r.dtype == xp.float32 and _list(_r) == [-1.0, 3.0], "special.leaky_relu with a weak slope keeps float32: %s" % _list(_r))
_r = xp.special.gelu(xp.asarray(np.array([0.0, 1.0]), device=dev))
check(abs(_list(_r)[1] - 0.8413447460685429) < 1e-15, "special.gelu(1) = ndtr(1): %s" % _list(_r))
check(xp.special.expit(_xv).dtype == xp.float64 and {"elu", "expit", "gammaln", "zeta"} <= set(xp.special.__all__), "special.expit, __all__")
_r = xp.special.xlogy(xp.asarray(np.array([0.0, 2.0]), device=dev), xp.asarray(np.array([0.0, 1.0]), device=dev))
check(_list(_r) == [0.0, 0.0], "special.xlogy(0, 0) = 0 (SciPy): %s" % _list(_r))

# ndgpu.random: NumPy's Generator on the Philox stream; the same bits on
# every device, parameters as scalars or broadcast arrays, NumPy's errors
_g = xp.random.default_rng(2024, device=dev)
_n = _g.normal(1.0, 2.0, size=(200000,))
_a = np.asarray(_n if on_cpu else xp.asarray(_n, device="cpu"))
check(_n.dtype == xp.float64 and _n.shape == (200000,) and abs(_a.mean() - 1.0) < 0.03 and abs(_a.std() - 2.0) < 0.03,
      "random.normal moments: %s %s" % (_a.mean(), _a.std()))
for _j, (_what, _f) in enumerate((("normal", lambda g: g.normal(1.0, 2.0, size=(2000,))),
                                  ("gamma", lambda g: g.gamma(0.7, 3.0, size=(1000,), dtype=xp.float32)),
                                  ("poisson array", lambda g: g.poisson([0.5, 30.0, 2000.0], size=(50, 3))),
                                  ("binomial", lambda g: g.binomial(1000, 0.4, size=(300,))),
                                  ("permutation", lambda g: g.permutation(40)))):
    _x, _y = _f(xp.random.default_rng(7 + _j, device=dev)), _f(xp.random.default_rng(7 + _j, device="cpu"))
    _xs = np.asarray(_x if on_cpu else xp.asarray(_x, device="cpu"))
    check(_xs.shape == np.asarray(_y).shape and np.array_equal(_xs, np.asarray(_y)), "random.%s: the device's draws equal the CPU's" % _what)
_k = _g.poisson(xp.asarray(np.array([1.0, 50.0]), device=dev), size=(4000, 2))
_ks = np.asarray(_k if on_cpu else xp.asarray(_k, device="cpu"))
check(_k.dtype == xp.int64 and _k.shape == (4000, 2) and abs(_ks[:, 0].mean() - 1.0) < 0.1 and abs(_ks[:, 1].mean() - 50.0) < 0.7,
      "random.poisson broadcast to size: %s" % (_ks.mean(axis=0),))
check(_g.random().shape == () and _g.integers(3, size=5, dtype=xp.int32).dtype == xp.int32, "random: size=None 0-d, dtype")
_i = np.asarray(xp.asarray(_g.integers(1, 6, size=2000, endpoint=True), device="cpu"))
check(_i.min() == 1 and _i.max() == 6, "random.integers endpoint=True reaches 6: %s %s" % (_i.min(), _i.max()))
_r1, _r2 = xp.random.default_rng(5), xp.random.default_rng(5)
_r1.offset = 100
_r2.exponential(size=200)
check(_r1.offset == 100 and _r2.offset == 200, "random: a distribution moves the offset by one sub-stream per value (%d)" % _r2.offset)
check(raises(ValueError, lambda: _g.gamma(-1.0)) and raises(ValueError, lambda: _g.binomial(5, 1.5))
      and raises(ValueError, lambda: _g.multivariate_normal([0.0, 0.0], [[1.0, 1.0], [1.0, 1.0]]))
      and raises(ValueError, lambda: xp.random.default_rng(-1)) and raises(TypeError, lambda: xp.random.default_rng(1.5))
      and raises(TypeError, lambda: _g.shuffle([1, 2])), "random: bad parameters raise NumPy's exceptions")
_m = _g.multinomial(20, [0.2, 0.3, 0.5], size=(7,))
check(_m.shape == (7, 3) and np.all(np.asarray(xp.asarray(xp.sum(_m, axis=1), device="cpu")) == 20), "random.multinomial rows sum to n")
_s = xp.arange(10, device=dev)
_g.shuffle(_s)
check(sorted(_list(_s)) == list(range(10)), "random.shuffle keeps the values")

where = "cpu" if on_cpu else str(dev)
if FAILS:
    for f_ in FAILS:
        print("python-package-test: FAILED: " + f_)
    sys.exit(1)
print("python-package-test: %d checks on %s, 0 failures (ND_DEVICE=%s)" % (COUNT[0], where, os.environ.get("ND_DEVICE", "")))
