#!/usr/bin/env python3
"""ndgpu._core, the compiled hot path of the package, against the ctypes
path it replaces: every operator (forward, reflected, in place, the
comparisons, unary) on arrays of many dtypes and shapes with arrays, Python
scalars (and their subclasses) and foreign objects, the namespace's
binop/unop for every op of the table, and basic indexing: the same result
(dtype, shape, values) or the same exception (class and message). Then
what the C type itself owes: _h, wrap, weak references, no __dict__, no
leaked references (the library's bytes in use, the type's refcount), and
the GIL released during long ops.

    NDGPU_LIBRARY=build/libndgpu.so PYTHONPATH=python python3 tests/test_python_ext.py

Run by tests/test_python.sh (make python-test) after make python-ext.
SKIPPED (exit 0) when the module is not in use, unless NDGPU_REQUIRE_EXT=1
(test_python.sh sets it when the module was built): then that is a failure.
"""
import copy
import gc
import math
import os
import pickle
import subprocess
import sys
import threading
import time
import weakref

import ndgpu as xp
from ndgpu import _array as A
from ndgpu import _indexing
from ndgpu._lib import BINARY, UNARY, C, NdDevice

if A._core is None:
    if os.environ.get("NDGPU_REQUIRE_EXT") == "1":
        print("python-ext-test: FAILED: ndgpu._core is not in use (%s)" % A.ext_error)
        sys.exit(1)
    print("python-ext-test: SKIPPED (ndgpu._core not in use: %s)" % A.ext_error)
    sys.exit(0)
core = A._core

FAILS = []
COUNT = [0]


def check(ok, what):
    COUNT[0] += 1
    if not ok:
        FAILS.append(what)


def outcome(f):
    """('ok', dtype, shape, values) or (exception class name, message) or ('NotImplemented',)."""
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - compared, not swallowed
        return (type(e).__name__, str(e))
    if r is NotImplemented:
        return ("NotImplemented",)
    vals = r.tolist()
    key = repr(vals)  # NaN == NaN as text; -0.0 and 0.0 differ
    return ("ok", r.dtype.name, r.shape, key)


dev = xp.asarray([1]).device
DTYPES = [xp.bool, xp.int8, xp.uint8, xp.int16, xp.int32, xp.int64, xp.uint64, xp.float16, xp.float32, xp.float64,
          xp.complex64, xp.complex128]


def make(dtype, shape, seed):
    n = math.prod(shape)
    vals = [((i * 7 + seed * 3) % 11) - 4 for i in range(n)]
    if dtype == xp.bool:
        vals = [v > 0 for v in vals]
    elif dtype in (xp.uint8, xp.uint64):
        vals = [abs(v) for v in vals]
    elif dtype.kind == "f":
        vals = [v / 2 for v in vals]
        if n >= 3:
            vals[2] = float("nan")
    elif dtype.kind == "c":
        vals = [complex(v / 2, 1 - v) for v in vals]
    a = xp.asarray(vals if shape else vals[0], dtype=dtype, device=dev)
    return xp.reshape(a, shape)


class F(float):
    pass


class I(int):  # noqa: E742
    pass


class Foreign:
    pass


ARRAYS = [make(d, s, i) for i, (d, s) in enumerate([(d, s) for d in DTYPES for s in ((), (3,), (2, 3))])]
SCALARS = [True, False, 0, 3, -2, 200, 2 ** 40, 2 ** 63, -(2 ** 63) - 1, 1.5, -0.0, float("nan"), float("inf"),
           1 + 2j, F(2.5), I(3), Foreign(), "a", None]

BIN_DUNDERS = [("add", "add"), ("sub", "subtract"), ("mul", "multiply"), ("truediv", "divide"), ("mod", "remainder"),
               ("pow", "power"), ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
               ("lshift", "left_shift"), ("rshift", "right_shift")]
CMP_DUNDERS = [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"), ("gt", "greater"),
               ("ge", "greater_equal")]

# the Python operators of the ctypes path, called on the same objects
py_ops = {}
for name, op in BIN_DUNDERS:
    py_ops["__%s__" % name] = A._make_binary("__%s__" % name, op)
    py_ops["__r%s__" % name] = A._make_binary("__r%s__" % name, op, reflected=True)
    py_ops["__i%s__" % name] = A._make_binary("__i%s__" % name, op, inplace=True)
for name, op in CMP_DUNDERS:
    py_ops["__%s__" % name] = A._make_binary("__%s__" % name, op)

# 1. the operators: C (the slots, through Array's slot wrappers) vs Python
ndiff = 0
for x in ARRAYS:
    others = [a for a in ARRAYS if a.shape in ((), x.shape) or a.shape == (3,)][::3] + SCALARS
    for other in others:
        for dunder, pyf in py_ops.items():
            cf = getattr(xp.Array, dunder)
            if dunder.startswith("__i"):
                a1, a2 = copy.copy(x), copy.copy(x)
                c = outcome(lambda: cf(a1, other))
                p = outcome(lambda: pyf(a2, other))
            else:
                c = outcome(lambda: cf(x, other))
                p = outcome(lambda: pyf(x, other))
            if c != p:
                ndiff += 1
                if ndiff <= 10:
                    FAILS.append("%s(%s %s, %r): C %r, ctypes %r" % (dunder, x.dtype, x.shape, other, c, p))
            COUNT[0] += 1
check(ndiff == 0, "%d operator results differ between the C and ctypes paths" % ndiff)

# foreign operands through as_operand (the one door for them, looked up at
# each call by both paths): here a stand-in type that converts to an Array
class Wrapped:
    def __init__(self, vals):
        self.vals = vals


def stand_in(other, like):
    return xp.asarray(other.vals, device=like.device) if isinstance(other, Wrapped) else None


saved = A.as_operand
A.as_operand = stand_in
try:
    for x in ARRAYS[::4]:
        for other in (Wrapped([1, 2, 3]), Wrapped(2.5), Wrapped([[True], [False]]), F(1.5), Foreign()):
            for dunder, pyf in py_ops.items():
                a1, a2 = copy.copy(x), copy.copy(x)
                c = outcome(lambda: getattr(xp.Array, dunder)(a1, other))
                p = outcome(lambda: pyf(a2, other))
                check(c == p, "as_operand: %s(%s %s, %r): C %r, ctypes %r" % (dunder, x.dtype, x.shape, other, c, p))
    w3 = make(xp.float32, (3,), 2)
    r1, r2 = outcome(lambda: Wrapped([1.0]) - w3), outcome(lambda: py_ops["__rsub__"](w3, Wrapped([1.0])))
    check(r1 == r2 and r1[0] == "ok", "Wrapped - x, reflected through as_operand: C %r, ctypes %r" % (r1, r2))
finally:
    A.as_operand = saved

# unary operators
for x in ARRAYS:
    for dunder, py in (("__neg__", lambda a: A.unop(UNARY["negative"], a)),
                       ("__pos__", lambda a: A.unop(UNARY["positive"], a)),
                       ("__abs__", lambda a: A.unop(UNARY["abs"], a)),
                       ("__invert__", lambda a: A.unop(UNARY["logical_not" if a.dtype == xp.bool else "bitwise_not"],
                                                       a))):
        c = outcome(lambda: getattr(xp.Array, dunder)(x))
        p = outcome(lambda: py(x))
        check(c == p, "%s(%s %s): C %r, ctypes %r" % (dunder, x.dtype, x.shape, c, p))

# the syntax reaches the C slots (no Python method in front of them: what the
# type has under these names are the wrappers of its C slots)
for dunder in list(py_ops) + ["__neg__", "__pos__", "__abs__", "__invert__", "__getitem__"]:
    check(type(vars(xp.Array).get(dunder)).__name__ in ("wrapper_descriptor", "NoneType"),
          "Array defines %s in Python (the C slot would be bypassed)" % dunder)
x3 = make(xp.float32, (3,), 1)
check(outcome(lambda: 2 - x3) == outcome(lambda: py_ops["__rsub__"](x3, 2)), "2 - x: the reflected C path")
check(outcome(lambda: x3 < 1) == outcome(lambda: py_ops["__lt__"](x3, 1)), "x < 1")
check(outcome(lambda: 1 < x3) == outcome(lambda: py_ops["__gt__"](x3, 1)), "1 < x is x > 1")
try:
    pow(x3, 2, 3)
    check(False, "pow(x, 2, 3) raises TypeError")
except TypeError:
    check(True, "")
y3 = copy.copy(x3)
y3 += 1
check(outcome(lambda: y3) == outcome(lambda: x3 + 1), "x += 1 writes into x")
z3 = y3
z3 *= 2
check(z3 is y3, "x *= 2 keeps the object")

# 2. binop / unop for every op of the table
ndiff = 0
sample = ARRAYS[::2]
for name, op in BINARY.items():
    for x in sample:
        for other in [ARRAYS[(op + 5) % len(ARRAYS)], x, 2, 1.5, True, 1j, F(0.5), Foreign()]:
            for a, b in ((x, other), (other, x)):
                c = outcome(lambda: core.binop(op, a, b))
                p = outcome(lambda: A.binop(op, a, b))
                if c != p:
                    ndiff += 1
                    if ndiff <= 10:
                        FAILS.append("binop %s(%r, %r): C %r, ctypes %r" % (name, a, b, c, p))
                COUNT[0] += 1
check(ndiff == 0, "%d binop results differ" % ndiff)
check(outcome(lambda: core.binop(0, 1, 2)) == outcome(lambda: A.binop(0, 1, 2)), "binop of two scalars")
for name, op in UNARY.items():
    for x in sample + [3, None]:
        c = outcome(lambda: core.unop(op, x))
        p = outcome(lambda: A.unop(op, x))
        check(c == p, "unop %s(%r): C %r, ctypes %r" % (name, x, c, p))
check(xp.add(x3, x3).dtype == xp.float32 and xp.add is not None, "xp.add runs")

# reduce_all: the whole-array reductions of sum, max, ... (axis=None, no
# dtype) against the Python path with every axis named (nd_reduce alike)
from ndgpu._lib import REDUCE  # noqa: E402
ndiff = 0
for name in ("sum", "prod", "mean", "max", "min", "all", "any"):
    fn = getattr(xp, name)
    for x in sample:
        for kd in (False, True):
            c = outcome(lambda: core.reduce_all(REDUCE[name], x, kd))
            p = outcome(lambda: fn(x, axis=tuple(range(x.ndim)), keepdims=kd) if x.ndim else fn(x, keepdims=kd))
            f = outcome(lambda: fn(x, keepdims=kd))
            if c != p or f != c:
                ndiff += 1
                if ndiff <= 10:
                    FAILS.append("%s(%r, keepdims=%s): reduce_all %r, axes named %r, xp.%s %r" % (name, x, kd, c, p, name, f))
            COUNT[0] += 1
check(ndiff == 0, "%d whole-array reductions differ" % ndiff)
check(core.reduce_all(REDUCE["sum"], [1.0], False) is None, "reduce_all of a non-Array gives None")

# 3. basic indexing: the C path vs _indexing.getitem
import random  # noqa: E402

rng = random.Random(7)


def rand_item():
    r = rng.random()
    if r < 0.3:
        return rng.randint(-6, 6)
    if r < 0.7:
        def bound():
            return rng.choice([None, rng.randint(-7, 7)])
        return slice(bound(), bound(), rng.choice([None, 1, 2, -1, -3, 0]))
    if r < 0.8:
        return None
    if r < 0.9:
        return Ellipsis
    return rng.choice([True, 1.5, "a", I(1)])


ndiff = 0
for shape in ((), (5,), (4, 3), (2, 3, 4), (0, 3)):
    x = xp.reshape(xp.arange(math.prod(shape), dtype=xp.int32, device=dev), shape)
    for _ in range(1500):
        key = tuple(rand_item() for _ in range(rng.randint(0, 4)))
        if len(key) == 1 and rng.random() < 0.5:
            key = key[0]
        c = outcome(lambda: x[key])
        p = outcome(lambda: _indexing.getitem(x, key))
        if c != p:
            ndiff += 1
            if ndiff <= 10:
                FAILS.append("x%s[%r]: C %r, Python %r" % (shape, key, c, p))
        COUNT[0] += 1
check(ndiff == 0, "%d indexing results differ" % ndiff)
# beyond int64 the C path clamps as Python's slices do
x5 = xp.arange(5, device=dev)
check(x5[:-(2 ** 63)].shape == (0,) and x5[10 ** 30:].shape == (0,) and x5[::-(10 ** 30)].tolist() == [4],
      "slice bounds beyond int64 clamp as Python's")
check(x5[2:4]._h != x5._h, "a slice is a new array")

# 4. the object: _h, wrap, weak references, slots
a = xp.ones((2,), device=dev)
h = a._h
check(isinstance(h, int) and h != 0, "_h is an int")
b = A.wrap(C.nd_retain(h))
check(b._h == h and bool(xp.all(b == a)), "wrap(h) owns a new reference to the same array")
del b
check(bool(xp.all(a == 1)), "releasing the wrapper keeps the array")
for bad, exc in (("x", TypeError), (1.5, TypeError)):
    try:
        a._h = bad
        check(False, "_h = %r raises %s" % (bad, exc.__name__))
    except exc:
        check(a._h == h, "_h unchanged after a bad assignment")
try:
    del a._h
    check(False, "del x._h raises AttributeError")
except AttributeError:
    check(a._h == h, "")
e = A._Array_new(xp.Array)
check(e._h is None, "a new object holds no reference (_h None)")
e._h = C.nd_retain(h)
check(e.shape == (2,), "x._h = h on a new object")
e._h, h2 = None, e._h
C.nd_release(h2)
r = weakref.ref(a)
check(r() is a, "weak references")
check(not hasattr(a, "__dict__"), "no __dict__ (slots)")
try:
    xp.Array()
    check(False, "Array() raises TypeError")
except TypeError:
    check(True, "")
c = pickle.loads(pickle.dumps(a))
check(c._h != a._h and bool(xp.all(c == a)), "pickling copies")
check(xp.Array is core.ArrayBase and type(a) is xp.Array and xp.Array.__name__ == "Array",
      "Array is ArrayBase, completed with the Python methods")
check(not gc.is_tracked(a), "an Array is not tracked by the cycle collector")


# 5. no leaks: the library's bytes in use and the type's references return
def in_use():
    import ctypes

    class Stats(ctypes.Structure):
        _fields_ = [("in_use", ctypes.c_size_t), ("peak", ctypes.c_size_t), ("cached", ctypes.c_size_t),
                    ("reserved", ctypes.c_size_t), ("limit", ctypes.c_size_t), ("largest", ctypes.c_size_t),
                    ("device_allocs", ctypes.c_uint64), ("allocs", ctypes.c_uint64), ("pooled", ctypes.c_bool),
                    ("kind", ctypes.c_int)]
    s = Stats()
    d = C.nd_default_device()
    A._lib.lib.nd_memory_get_stats(ctypes.byref(s), NdDevice(d.type, d.id))
    return s.in_use


x = xp.ones((1000,), dtype=xp.float32, device=dev)
y = xp.ones((1000,), dtype=xp.float32, device=dev)
s = xp.ones((3,), dtype=xp.float32, device=dev)
gc.collect()
base_mem, base_ref = in_use(), sys.getrefcount(xp.Array)
for _ in range(2000):
    x + y
    x * 2.0
    3 - x
    -x
    x == y
    x[1:5]
    x[3]
    xp.exp(x)
    xp.add(x, 1)
    z = copy.copy(x)
    z += y
    try:
        x + s  # a failing op: nothing is made
    except ValueError:
        pass
    try:
        x + "a"
    except TypeError:
        pass
del z
gc.collect()
check(in_use() == base_mem, "bytes in use after 2000 rounds of ops: %d, before %d" % (in_use(), base_mem))
check(sys.getrefcount(xp.Array) == base_ref, "refcount of Array: %d, before %d" % (sys.getrefcount(xp.Array),
                                                                                 base_ref))

# 6. the GIL is released during long ops: a thread in the middle of one lets
# this thread run Python. Operands above the threshold, and small operands
# whose broadcast is large ((n, 1) + (1, n))
n = 4 * 1000 * 1000
X = xp.ones((n,), dtype=xp.float64, device=dev)
check(X.size >= core.NOGIL_MIN_SIZE, "the big operand is above the threshold")
col = xp.ones((4000, 1), dtype=xp.float64, device=dev)
row = xp.ones((1, 4000), dtype=xp.float64, device=dev)
check(col.size < core.NOGIL_MIN_SIZE, "the broadcast operands are below the threshold")


def releases_gil(step):
    state = {"done": False}
    started = threading.Event()

    def worker():
        started.set()
        t = time.perf_counter()
        while time.perf_counter() - t < 0.3:  # long enough to be seen from the other thread
            step()
        state["done"] = True

    old = sys.getswitchinterval()
    sys.setswitchinterval(5.0)  # no forced switches: this thread runs only when the worker lets go of the GIL
    try:
        th = threading.Thread(target=worker)
        th.start()
        started.wait()
        seen_running = not state["done"]
        th.join()
    finally:
        sys.setswitchinterval(old)
    return seen_running


# On the CPU the ops run inside the calls. A GPU (or the emulated one) runs
# them asynchronously: the calls return at once and the worker's loop would
# only queue work for the exit to drain, so there the check is left out.
if str(dev) == "cpu":
    check(releases_gil(lambda: X * 1.5 + X), "this thread ran while the worker was inside long ops (X * 1.5 + X)")
    check(releases_gil(lambda: col + row), "this thread ran while the worker was inside a large broadcast (col + row)")
    check(releases_gil(lambda: xp.exp(X)), "this thread ran while the worker was inside xp.exp(X)")

# 7. NDGPU_NO_EXT=1: the ctypes path; the C-level protocols of the object
# (NumPy reads an Array as a nested sequence through PySequence_Check) and
# its attributes are those of the ctypes path's class
PROTOCOLS = r"""
import ctypes, json, ndgpu, ndgpu._array as A
x = ndgpu.ones((2, 2))
api = ctypes.pythonapi
checks = {}
for name in ("PySequence_Check", "PyMapping_Check", "PyNumber_Check", "PyIndex_Check", "PyIter_Check"):
    fn = getattr(api, name)
    fn.argtypes, fn.restype = [ctypes.py_object], ctypes.c_int
    checks[name] = fn(x)
names = sorted(n for n in dir(ndgpu.Array) if n not in ("__del__", "__slots__", "__doc__", "_h", "__module__"))
print(json.dumps([A._core is None, ndgpu.Array is getattr(A._core, "ArrayBase", None),
                  float(ndgpu.sum(ndgpu.ones(3) + 1)), checks,
                  names, list(x[1])[0].shape]))
"""
import json  # noqa: E402

outs = []
for env in (dict(os.environ, NDGPU_NO_EXT="1"), dict(os.environ)):
    r = subprocess.run([sys.executable, "-c", PROTOCOLS], env=env, capture_output=True, text=True)
    outs.append(json.loads(r.stdout) if r.returncode == 0 else [r.stderr[-300:]])
noext, ext = outs
check(noext[:3] == [True, False, 6.0], "NDGPU_NO_EXT=1 runs the ctypes path: %r" % (noext[:3],))
check(ext[:3] == [False, True, 6.0], "the extension path: %r" % (ext[:3],))
check(len(noext) > 3 and len(ext) > 3 and noext[3] == ext[3],
      "C-level protocols: ctypes path %r, extension %r" % (noext[3:4], ext[3:4]))
missing = sorted(set(noext[4]) - set(ext[4])) if len(noext) > 4 and len(ext) > 4 else ["?"]
check(not missing, "attributes of the ctypes path's Array missing with the extension: %r" % missing)
check(len(ext) > 5 and ext[5] == noext[5] == [], "iteration")

if FAILS:
    for f_ in FAILS[:40]:
        print("python-ext-test: FAILED: " + f_)
    sys.exit(1)
print("python-ext-test: %d checks, 0 failures (ndgpu._core %s, limited API %s, device %s)"
      % (COUNT[0], os.path.basename(core.__file__), hex(core.LIMITED_API), dev))
