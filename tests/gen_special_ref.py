#!/usr/bin/env python3
"""Reference tables for the special functions and activations of the op
table (tests/test_special.c): inputs across each function's whole range
and the exact values from mpmath (50 digits), correctly rounded to float64
and to float32 (the float32 table's inputs are float32 values).

  python3 tests/gen_special_ref.py > tests/data/special_ref.h

The output is committed; the tests never need Python. With --check EXE,
runs EXE (a program that reads "fn dtype x [y]" lines and prints %a
results) instead and prints the worst ulp per function and dtype.
"""
import math
import random
import struct
import sys

import mpmath as mp

mp.mp.dps = 50
SQRT2 = mp.sqrt(2)


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def erfc(x):
    """mpmath's erfc, which overflows for huge x: erfc(x) = 0 or 2 to any
    double there"""
    if abs(x) > 1e6:
        return mp.mpf(0) if x > 0 else mp.mpf(2)
    return mp.erfc(x)


def erfcx(x):
    if x > 1e6:  # the asymptotic series, to 1e-30
        u = 1 / (x * x)
        return (1 - u / 2 + 3 * u * u / 4) / (x * mp.sqrt(mp.pi))
    return mp.exp(x * x) * mp.erfc(x)


def ncdf(x):
    return erfc(-x / SQRT2) / 2


def log_ndtr(x):
    if x < -1e6:  # the asymptotic series
        u = 1 / (x * x)
        return -x * x / 2 - mp.log(-x) - mp.log(2 * mp.pi) / 2 + mp.log(1 - u + 3 * u * u)
    if x > 0:
        return mp.log1p(-ncdf(-x))
    return mp.log(ncdf(x))


def solve(f, target, x0):
    """x with f(x) = target near x0 (log scale of both sides)"""
    return mp.findroot(lambda x: mp.log(f(x)) - mp.log(target), mp.mpf(x0), tol=mp.mpf(10) ** -45)


def erfcinv(q):
    if q == 0:
        return mp.inf
    if q == 2:
        return -mp.inf
    if q < 0.5:
        x0 = math.sqrt(max(-math.log(float(q)) - 1.0, 0.05))
        return solve(mp.erfc, q, x0)
    if q > 1.5:
        return -erfcinv(2 - q)
    return mp.erfinv(1 - q)


def erfinv(y):
    if abs(y) == 1:
        return mp.inf if y > 0 else -mp.inf
    if abs(y) > mp.mpf(0.5):
        x = erfcinv(1 - abs(y))
        return x if y > 0 else -x
    return mp.erfinv(y)


def softplus(x):
    return mp.log1p(mp.exp(x)) if x < 0 else x + mp.log1p(mp.exp(-x))


SELU_A = mp.mpf("1.6732632423543772848170429916717")
SELU_S = mp.mpf("1.0507009873554804934193349852946")

# name: (mpmath function, input generator key)
UNARY = {
    "erf": (mp.erf, "wide"),
    "erfc": (erfc, "wide"),
    "erfinv": (erfinv, "pm1"),
    "erfcinv": (erfcinv, "zero2"),
    "erfcx": (erfcx, "erfcx"),
    "ndtr": (ncdf, "wide40"),
    "ndtri": (lambda p: -SQRT2 * erfcinv(2 * p), "unit"),
    "log_ndtr": (log_ndtr, "wide"),
    "logit": (lambda p: mp.log(p / (1 - p)), "unit"),
    "log_expit": (lambda x: -softplus(-x), "wide"),
    "softplus": (softplus, "wide"),
    "entr": (lambda x: -x * mp.log(x), "pos"),
    "sinc": (lambda x: mp.sinpi(x) / (mp.pi * x), "sinc"),
    "gelu": (lambda x: x * ncdf(x), "wide40"),
    # 0.5 x (1 + tanh(u)) = x sigmoid(2u): the same function without the
    # cancellation (1 + tanh(u) for u < -60 needs more than 50 digits)
    "gelu_tanh": (lambda x: x / (1 + mp.exp(-2 * mp.sqrt(2 / mp.pi) * (x + mp.mpf("0.044715") * x ** 3))), "wide40"),
    "silu": (lambda x: x / (1 + mp.exp(-x)), "wide"),
    "mish": (lambda x: x * mp.tanh(softplus(x)), "wide"),
    "relu6": (lambda x: min(max(x, 0), 6), "small"),
    "hardswish": (lambda x: x * min(max(x + 3, 0), 6) / 6, "small"),
    "selu": (lambda x: SELU_S * x if x > 0 else SELU_S * SELU_A * mp.expm1(x), "wide"),
}
BINARY = {
    "xlogy": (lambda x, y: x * mp.log(y), "xlogy"),
    "xlog1py": (lambda x, y: x * mp.log1p(y), "xlog1py"),
    "leaky_relu": (lambda x, s: x if x > 0 else s * x, "slope"),
    "elu": (lambda x, a: x if x > 0 else a * mp.expm1(x), "slope"),
}


def logspace(lo, hi, n, rng):
    return [math.exp(rng.uniform(math.log(lo), math.log(hi))) for _ in range(n)]


def inputs(kind, rng, single):
    big = 3e38 if single else 1e300
    tiny = 1e-44 if single else 1e-320
    xs = []
    if kind in ("wide", "wide40", "small"):
        lim = {"wide": 40.0, "wide40": 40.0, "small": 8.0}[kind]
        xs += [rng.uniform(-lim, lim) for _ in range(160)]
        xs += [rng.uniform(-2, 2) for _ in range(80)]
        m = logspace(tiny, big, 60, rng)
        xs += m + [-v for v in m]
        if kind == "small":
            xs += [-3.0, 3.0, 6.0, -2.9999, 2.9999, 5.99999]
    elif kind == "erfcx":
        xs += [rng.uniform(-26, 30) for _ in range(200)]
        m = logspace(tiny, big, 80, rng)
        xs += m + [-v for v in m if v < 26]
    elif kind == "pos":
        xs += [rng.uniform(0, 3) for _ in range(120)] + logspace(tiny, big, 120, rng)
        xs += [1.0, 0.5, 2.0]
    elif kind == "sinc":
        xs += [rng.uniform(-10, 10) for _ in range(120)]
        xs += [n + d for n in range(-6, 7) for d in (1e-9, -1e-7, 1e-3, 0.5)]
        m = logspace(tiny, 1e15 if not single else 1e7, 80, rng)
        xs += m + [-v for v in m]
    elif kind == "pm1":
        xs += [rng.uniform(-1, 1) for _ in range(160)]
        d = logspace(1e-16 if not single else 1e-7, 0.5, 60, rng)
        xs += [1 - v for v in d] + [v - 1 for v in d]
        m = logspace(tiny, 0.5, 60, rng)
        xs += m + [-v for v in m]
    elif kind == "zero2":
        xs += [rng.uniform(0, 2) for _ in range(160)]
        xs += logspace(tiny, 0.5, 100, rng)
        d = logspace(1e-16 if not single else 1e-7, 0.5, 40, rng)
        xs += [2 - v for v in d] + [1 - v for v in d] + [1 + v for v in d]
    elif kind == "unit":
        xs += [rng.uniform(0, 1) for _ in range(160)]
        xs += logspace(tiny, 0.5, 100, rng)
        d = logspace(1e-16 if not single else 1e-7, 0.5, 60, rng)
        xs += [1 - v for v in d] + [0.5 + v / 4 for v in d] + [0.5 - v / 4 for v in d]
    out = []
    for v in xs:
        v = f32(v) if single else float(v)
        if math.isfinite(v):
            out.append(v)
    return out


def pairs(kind, rng, single):
    ps = []
    if kind == "xlogy":
        ps += [(rng.uniform(-10, 10), math.exp(rng.uniform(-50, 50))) for _ in range(200)]
        ps += [(rng.uniform(-3, 3), rng.uniform(0.5, 2)) for _ in range(60)]
    elif kind == "xlog1py":
        ps += [(rng.uniform(-10, 10), math.exp(rng.uniform(-50, 50)) - 1 + 1e-300) for _ in range(120)]
        ps += [(rng.uniform(-10, 10), math.exp(rng.uniform(-40, 0)) * rng.choice((-1, 1)) * 0.9) for _ in range(140)]
    elif kind == "slope":
        ps += [(rng.uniform(-30, 30), rng.uniform(0, 3)) for _ in range(200)]
        ps += [(-math.exp(rng.uniform(-40, 3)), rng.uniform(0.01, 2)) for _ in range(60)]
    out = []
    for a, b in ps:
        a, b = (f32(a), f32(b)) if single else (float(a), float(b))
        out.append((a, b))
    return out


def rnd(v, single):
    """mpf -> nearest float64 or float32 (as a Python float); handles inf."""
    if mp.isinf(v):
        return float(v)
    d = float(v)  # round to nearest double
    if single and abs(v) >= mp.mpf(2) ** 128 * (1 - mp.mpf(2) ** -25):
        return math.copysign(math.inf, d)
    if single:
        # round the exact value to float32: via the double, then fix ties by
        # comparing with the exact value
        f = f32(d)
        if math.isfinite(f) and f != 0:
            lo = f
            # neighbours
            up = struct.unpack("<f", struct.pack("<I", struct.unpack("<I", struct.pack("<f", f))[0] + 1))[0]
            dn = struct.unpack("<f", struct.pack("<I", struct.unpack("<I", struct.pack("<f", f))[0] - 1))[0]
            best = min((abs(mp.mpf(c) - v), c) for c in (lo, up, dn) if math.isfinite(c))
            f = best[1]
        return f
    return d


def table(single):
    rng = random.Random(20261207 + single)
    rows = []
    for name, (fn, kind) in UNARY.items():
        for x in inputs(kind, rng, single):
            v = fn(mp.mpf(x))
            rows.append((name, x, 0.0, rnd(v, single)))
    for name, (fn, kind) in BINARY.items():
        for a, b in pairs(kind, rng, single):
            v = fn(mp.mpf(a), mp.mpf(b))
            rows.append((name, a, b, rnd(v, single)))
    return rows


def emit():
    print("/* generated by tests/gen_special_ref.py (mpmath %s, 50 digits): do not edit */" % mp.__version__)
    print("/* {op name, x, y (binary ops), exact value correctly rounded} */")
    for single, tag in ((False, "F64"), (True, "F32")):
        rows = table(single)
        print("#define ND_SPECIAL_REF_%s(X) \\" % tag)
        for name, a, b, v in rows:
            print("    X(%s, %s, %s, %s) \\" % (name, a.hex(), b.hex(), v.hex() if math.isfinite(v) else ("INFINITY" if v > 0 else "-INFINITY")))
        print("    /* end */")


def ulp(v, single):
    if single:
        v = abs(f32(v))
        if v == 0 or v < 2 ** -126:
            return 2.0 ** -149
        return 2.0 ** (math.frexp(v)[1] - 24)
    v = abs(v)
    if v == 0 or v < 2 ** -1022:
        return 2.0 ** -1074
    return 2.0 ** (math.frexp(v)[1] - 53)


def check(exe):
    import subprocess
    for single in (False, True):
        rows = table(single)
        inp = "".join("%s %s %s %s\n" % (n, "f32" if single else "f64", a.hex(), b.hex()) for n, a, b, _ in rows)
        out = subprocess.run([exe], input=inp, capture_output=True, text=True, check=True).stdout.split()
        worst = {}
        for (n, a, b, v), g in zip(rows, out):
            g = float.fromhex(g)
            if math.isinf(v) or math.isnan(g) or math.isinf(g):
                e = 0.0 if g == v else float("inf")
            else:
                e = abs(g - v) / ulp(v, single)
            if e > worst.get(n, (-1,))[0]:
                worst[n] = (e, a, b)
        for n, (e, a, b) in worst.items():
            print("%-4s %-11s %8.2f  at %r %r" % ("f32" if single else "f64", n, e, a, b))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--check":
        check(sys.argv[2])
    else:
        emit()
