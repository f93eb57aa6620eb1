#!/usr/bin/env python3
"""Per-call overhead of the Python array API package (python/ndgpu).

    PYTHONPATH=python NDGPU_LIBRARY=build/libndgpu.so python3 benchmarks/bench_python_overhead.py

Times x + y (and a few other calls) on 1-element float32 arrays, the C
library alone through the same ctypes call (nd_add + nd_release), and NumPy
(when installed) for reference; then x + y on 10^7 elements against the
C library's nd_add on the same arrays (the wrapper adds no copies). Each
figure is the best of several repeats of a timed loop, in microseconds
per call (milliseconds for the large arrays).
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import ndgpu as xp  # noqa: E402
from ndgpu._lib import C, BINARY  # noqa: E402
from ctypes import byref, c_void_p  # noqa: E402


def best(fn, n, repeat=7):
    r = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(n)
        r.append((time.perf_counter() - t) / n)
    return min(r)


def main():
    n = int(os.environ.get("BENCH_N", "200000"))
    dev = os.environ.get("BENCH_DEVICE", "cpu")
    x = xp.ones((1,), dtype=xp.float32, device=dev)
    y = xp.ones((1,), dtype=xp.float32, device=dev)

    def add(n):
        for _ in range(n):
            x + y

    def add_scalar(n):
        for _ in range(n):
            x + 1.0

    def func_add(n):
        f = xp.add
        for _ in range(n):
            f(x, y)

    def sum_(n):
        f = xp.sum
        for _ in range(n):
            f(x)

    def raw(n):
        a, b, fn, rel, op = x._h, y._h, C.nd_binary, C.nd_release, BINARY["add"]
        for _ in range(n):
            o = c_void_p()
            fn(byref(o), op, a, b)
            rel(o)

    rows = [("x + y (ndgpu, 1-element float32)", best(add, n)),
            ("x + 1.0 (weak scalar)", best(add_scalar, n)),
            ("xp.add(x, y)", best(func_add, n)),
            ("xp.sum(x)", best(sum_, n // 4)),
            ("nd_binary(add) + nd_release via ctypes (no wrapper)", best(raw, n))]
    try:
        import numpy as np
        a = np.ones(1, np.float32)
        b = np.ones(1, np.float32)

        def npadd(n):
            for _ in range(n):
                a + b
        rows.append(("NumPy a + b (reference)", best(npadd, n)))
    except ImportError:
        pass
    print(f"device {dev}, library {xp.library_path}")
    for name, t in rows:
        print(f"  {name:<52s} {t * 1e6:7.3f} us")

    big = int(os.environ.get("BENCH_BIG", "10000000"))
    X = xp.ones((big,), dtype=xp.float32, device=dev)
    Y = xp.ones((big,), dtype=xp.float32, device=dev)

    def bigadd(n):
        for _ in range(n):
            X + Y

    def bigraw(n):
        for _ in range(n):
            o = c_void_p()
            C.nd_binary(byref(o), BINARY["add"], X._h, Y._h)
            C.nd_release(o)
    tw, tc = best(bigadd, 5, 5), best(bigraw, 5, 5)
    print(f"  x + y, {big} float32: ndgpu {tw * 1e3:.3f} ms, nd_add alone {tc * 1e3:.3f} ms "
          f"(ratio {tw / tc:.3f})")


if __name__ == "__main__":
    main()
