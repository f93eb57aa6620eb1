#!/usr/bin/env python3
"""repr(), str() and format() of ndgpu arrays against NumPy's own for the
same data (python/ndgpu/_format.py).

    NDGPU_LIBRARY=build/libndgpu.so python3 tests/test_ndgpu_repr.py

The arrays are made on the library's default device (ND_DEVICE=cuda:0 puts
them on the GPU; repr then ends with device='cuda:0'). Compared, as text:

  - repr(x) with NumPy's repr(a) ('array(' -> 'Array(', the device added as
    NumPy adds shape= and dtype=) and str(x) with str(a), for every dtype,
    0-d, empty, 1-d to 5-d, sizes around the threshold (999, 1000, 1001,
    2000, (40, 40), (6, 6, 6, 6, 6)), special values, long rows that wrap,
    strided views, and hundreds of random arrays from fixed seeds;
  - the digit generator alone (Dragon4) with np.format_float_positional /
    np.format_float_scientific: every float16, random float32 and float64,
    all the option sets arrayprint uses;
  - bfloat16, which NumPy lacks: every one of its values against a
    brute-force definition of the shortest round-trip digits (the same
    definition first checked equal to NumPy on every float16); arrays of
    values whose digits are the same in bfloat16 and float32 against
    NumPy's float32 layout; random arrays read back through ml_dtypes'
    bfloat16 (when importable) to the elements NumPy would show;
  - that printing a summarised array copies to the host only the elements
    it shows (the bytes through nd_copy_to_host, counted);
  - format(x, spec).

Prints SKIPPED and exits 0 without NumPy >= 2.3 (whose print rules are
ported); exits 1 on a difference. Part of `make test` (mk/python_repr.mk).
"""
import math
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
try:
    import numpy as np
except ImportError:
    print("python-repr-test: SKIPPED (NumPy not importable)")
    sys.exit(0)
if tuple(int(p) for p in np.__version__.split(".")[:2]) < (2, 3):
    print("python-repr-test: SKIPPED (NumPy %s: the print rules are NumPy 2.3's)" % np.__version__)
    sys.exit(0)
try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

import ndgpu as xp  # noqa: E402
from ndgpu import _format as F  # noqa: E402
from ndgpu._array import call  # noqa: E402
from ndgpu._lib import C, i64array  # noqa: E402

FAILS = []
COUNT = {"cases": 0, "dragon4": 0, "bf16": 0}
DEV = xp.asarray([1]).device
ON_HOST = DEV == "cpu"


def check(ok, what):
    if not ok:
        FAILS.append(what)


def to_nd(a):
    """The NumPy (or ml_dtypes) array a as an ndgpu array on DEV."""
    a = np.asarray(a)
    code = getattr(xp, a.dtype.name).code
    return call(C.nd_from_host, a.tobytes(), code, a.ndim, i64array(a.shape), DEV._nd)


def expected_repr(a, dtype_name=None, device=None):
    """NumPy's repr of a (numpy/_core/arrayprint.py, _array_repr_implementation)
    with 'Array(' and a device entry beside shape= and dtype= (dtype_name:
    the dtype label to show, for bfloat16 compared through float32)."""
    prefix = "Array("
    lst = np.array2string(a, separator=", ", prefix=prefix, suffix=")")
    name = dtype_name or a.dtype.name
    extras = []
    if (a.size == 0 and a.shape != (0,)) or a.size > 1000:
        extras.append("shape=%s" % (a.shape,))
    if name not in ("int64", "float64", "complex128", "bool") or a.size == 0:
        extras.append("dtype=%s" % name)
    if device is not None:
        extras.append("device='%s'" % device)
    if not extras:
        return prefix + lst + ")"
    arr = prefix + lst + ","
    extra = ", ".join(extras) + ")"
    last = len(arr) - (arr.rfind("\n") + 1)
    return arr + ("\n" + " " * len(prefix) if last + len(extra) + 1 > 75 else " ") + extra


def show(s, n=600):
    return s if len(s) <= n else s[:n] + "...<%d chars>" % len(s)


def compare(a, what, x=None, dtype_name=None, np_str=None):
    """repr and str of the ndgpu array for a (x: made from a unless given)
    against NumPy's for a."""
    if x is None:
        x = to_nd(a)
    COUNT["cases"] += 1
    if dtype_name is None:
        # the assembly above is NumPy's own: the same text on the host
        mine = expected_repr(a)
        check(mine == repr(a).replace("array(", "Array(", 1),
              "%s: test's repr assembly differs from NumPy's:\n%s\n%s" % (what, mine, repr(a)))
    want = expected_repr(a, dtype_name, None if ON_HOST else DEV)
    got = repr(x)
    check(got == want, "%s: repr\n  got:  %s\n  want: %s" % (what, show(got), show(want)))
    want = str(a) if np_str is None else np_str
    got = str(x)
    check(got == want, "%s: str\n  got:  %s\n  want: %s" % (what, show(got), show(want)))


# --------------------------------------------------------------------------
# the digit generator alone

def dragon4_checks():
    pos_opts = [dict(), dict(precision=8), dict(precision=8, trim="."), dict(precision=3, unique=False),
                dict(precision=8, min_digits=5), dict(trim="-"), dict(trim="0", sign=True),
                dict(precision=8, trim=".", pad_left=4, pad_right=6), dict(precision=2, fractional=False)]
    sci_opts = [dict(), dict(precision=8, trim="."), dict(precision=4), dict(precision=3, unique=False),
                dict(precision=6, min_digits=6), dict(trim="-", exp_digits=3), dict(pad_left=3, sign=True)]
    kinds = {np.float16: F.FLOAT16, np.float32: F.FLOAT32, np.float64: F.FLOAT64}

    def run(vals, kind, popts, sopts):
        for v in vals:
            fv = float(v)
            for o in popts:
                COUNT["dragon4"] += 1
                want, got = np.format_float_positional(v, **o), F.positional(fv, kind, **o)
                check(got == want, "positional(%r, %s, %s) = %r, NumPy %r" % (fv, kind.name, o, got, want))
            for o in sopts:
                COUNT["dragon4"] += 1
                want, got = np.format_float_scientific(v, **o), F.scientific(fv, kind, **o)
                check(got == want, "scientific(%r, %s, %s) = %r, NumPy %r" % (fv, kind.name, o, got, want))

    every16 = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    run(every16, F.FLOAT16, pos_opts[:2], sci_opts[:2])  # every float16, inf and nan included
    rng = np.random.default_rng(4)
    run(rng.choice(every16, 1500), F.FLOAT16, pos_opts, sci_opts)
    for dt, ut, kind in ((np.float32, np.uint32, F.FLOAT32), (np.float64, np.uint64, F.FLOAT64)):
        bits = rng.integers(0, np.iinfo(ut).max, 1500, dtype=ut, endpoint=True).view(dt)
        near = (rng.standard_normal(600) * 10.0 ** rng.integers(-6, 9, 600)).astype(dt)
        short = (rng.integers(-10 ** 6, 10 ** 6, 600) / 10.0 ** rng.integers(0, 7, 600)).astype(dt)
        edge = np.array([np.finfo(dt).max, np.finfo(dt).tiny, np.finfo(dt).smallest_subnormal, 0.0, -0.0, 1e-4,
                         0.1, 1 / 3, 2 / 3, 9.5, 0.5, 1e8, 1e16, 123456789.0], dtype=dt)
        run(np.concatenate([bits, near, short, edge]), kind, pos_opts, sci_opts)
        scalars(np.concatenate([bits, near, short, edge]))
    scalars(every16)
    # complex scalars: the real part dropped when it is +0, nan/inf spelled out
    parts = np.array([0.0, -0.0, 1.0, -2.5, 1e-5, 1e20, 0.1, np.nan, np.inf, -np.inf, 123456.7, 3e-300])
    for dt in (np.complex64, np.complex128):
        scalars(np.array([complex(r, i) for r in parts for i in parts]).astype(dt))


def scalars(vals):
    """str() of 0-d arrays: the str of NumPy's scalars (positional for
    1e-4 <= |v| < 1e3, 1e6, 1e16 by dtype; all the unique digits)."""
    d = getattr(xp, vals.dtype.name)
    for v in vals:
        COUNT["dragon4"] += 1
        got, want = F.scalar_str(v.item(), d), str(v)
        check(got == want, "str of a 0-d %s %r: %r, NumPy %r" % (d.name, v.item(), got, want))


# --------------------------------------------------------------------------
# bfloat16: a brute-force definition of the shortest round-trip digits


def shortest_digits(v, p, emin):
    """(digits, power of ten of the first) of the shortest decimal that reads
    back as v > 0 (finite) in the binary format with p significand bits and
    minimum normal exponent emin; among equally short ones the nearest to v
    (a tie: the even last digit). Rounding back is round-half-even: the
    bounds, half the gaps to the neighbours, belong to v when its
    significand is even. By definition, with exact fractions."""
    m, e = math.frexp(v)
    if e - 1 >= emin:
        ulp_exp, pow2 = e - p, m == 0.5 and e - 1 != emin
    else:
        ulp_exp, pow2 = emin - p + 1, False
    ulp = Fraction(2) ** ulp_exp
    V = Fraction(v)
    even = (V / ulp).numerator % 2 == 0
    lo, hi = V - (ulp / 4 if pow2 else ulp / 2), V + ulp / 2
    E = math.floor(math.log10(v))
    while Fraction(10) ** E > V:
        E -= 1
    while Fraction(10) ** (E + 1) <= V:
        E += 1
    n = 1
    while True:
        u = Fraction(10) ** (E - n + 1)
        q = math.floor(V / u)
        a, b = q * u, (q + 1) * u
        ina = lo < a or (even and lo == a)
        inb = b < hi or (even and b == hi)
        if ina and inb:
            da, db = V - a, b - V
            c = q if (da < db or (da == db and q % 2 == 0)) else q + 1
        elif ina or inb:
            c = q if ina else q + 1
        else:
            n += 1
            continue
        s = str(c)
        return s.rstrip("0"), E + len(s) - n


def digits_of(sci):
    """(digits, exponent) of a unique scientific string '1.2345e-05'."""
    mant, _, ex = sci.partition("e")
    d = mant.lstrip("-+").replace(".", "").rstrip("0") or "0"
    return d, int(ex)


def bfloat16_checks():
    # the definition against NumPy's Dragon4 on every positive float16
    f16 = np.arange(1, 0x7C00, dtype=np.uint16).view(np.float16)
    bad = 0
    for v in f16:
        want = digits_of(np.format_float_scientific(v))
        got = shortest_digits(float(v), 11, -14)
        if got != want:
            bad += 1
            if bad < 5:
                FAILS.append("the shortest-digits definition differs from NumPy for float16 %r: %s, %s"
                             % (float(v), got, want))
    COUNT["bf16"] += len(f16)
    # every positive finite bfloat16 (the sign does not change the digits)
    bits = np.arange(1, 0x7F80, dtype=np.uint32) << 16
    vals = bits.view(np.float32).astype(np.float64).tolist()
    refs = {}
    for v in vals:
        want = shortest_digits(v, 8, -126)
        refs[v] = want
        got = digits_of(F.scientific(v, F.BFLOAT16))
        COUNT["bf16"] += 1
        check(got == want, "bfloat16 %r: digits %s, the shortest round trip is %s" % (v, got, want))
        if ml_dtypes is not None:
            d, ex = want
            back = np.float64(float("%s.%se%d" % (d[0], d[1:], ex))).astype(ml_dtypes.bfloat16)
            check(float(back) == v, "bfloat16 %r: %se%d does not read back (%r)" % (v, d, ex, float(back)))
    # the 0-d str (a scalar's: positional for 1e-4 <= |v| < 1e2) and the
    # exponent cutoff of arrays (10**2), spelled out
    for v, s in ((0.1, "0.1"), (1.0, "1.0"), (-2.5, "-2.5"), (99.5, "99.5"), (100.0, "1e+02"), (3e-5, "3e-05"),
                 (float("nan"), "nan"), (-math.inf, "-inf"), (-0.0, "-0.0"), (1 / 3, "0.334")):
        x = xp.astype(xp.asarray(v, dtype=xp.float32, device=DEV), xp.bfloat16)
        check(str(x) == s, "str of bfloat16 %r: %r, not %r" % (v, str(x), s))
    suffix = "" if ON_HOST else ", device='%s'" % DEV
    for vals_, r in (([1.0, 99.0], "Array([ 1., 99.], dtype=bfloat16%s)"),
                     ([1.0, 100.0], "Array([1.e+00, 1.e+02], dtype=bfloat16%s)"),
                     ([0.1, 0.2, 0.3], "Array([0.1, 0.2, 0.3], dtype=bfloat16%s)")):
        x = xp.astype(xp.asarray(vals_, dtype=xp.float32, device=DEV), xp.bfloat16)
        check(repr(x) == r % suffix, "repr of bfloat16 %s: %r, not %r" % (vals_, repr(x), r % suffix))
    return refs


def bfloat16_arrays(refs):
    if ml_dtypes is None:
        print("python-repr-test: bfloat16 arrays not compared (ml_dtypes not importable)")
        return
    bf = ml_dtypes.bfloat16
    # values whose shortest digits are their exact digits in both bfloat16
    # and float32: NumPy's float32 layout is then bfloat16's (below 10**2,
    # bfloat16's exponent cutoff)
    pool = []
    for k in range(1, 256):
        for j in range(0, 7):
            v = k / 2.0 ** j
            if v >= 100 or v in pool:
                continue
            d, ex = refs[v]
            if (d, ex) == digits_of(np.format_float_scientific(np.float32(v))) and \
                    Fraction(int(d)) * Fraction(10) ** (ex - len(d) + 1) == Fraction(v):
                pool.append(v)
    rng = np.random.default_rng(16)
    specials = [0.0, -0.0, math.nan, math.inf, -math.inf]
    shapes = [(), (1,), (5,), (30,), (3, 4), (2, 3, 4), (999,), (1001,), (40, 40), (2, 700), (3, 3, 3, 3)]
    compared = 0
    for i in range(120):
        shape = shapes[i % len(shapes)]
        n = int(np.prod(shape))
        a = rng.choice(pool, n) * rng.choice([-1.0, 1.0], n)
        if i % 3 == 0 and n:
            a[rng.integers(0, n, max(1, n // 10))] = rng.choice(specials, max(1, n // 10))
        a = a.reshape(shape).astype(np.float32)
        fin = np.abs(a[np.isfinite(a) & (a != 0)])
        if fin.size and 1000 < fin.max() / fin.min() <= 1004:
            continue  # hi / lo rounds to 1000 in bfloat16, not in float32
        compare(a, "bfloat16 %s (float32 layout)" % (shape,), x=to_nd(a.astype(bf)), dtype_name="bfloat16")
        compared += 1
    check(compared > 100, "bfloat16 layout cases compared: %d" % compared)
    # random bfloat16 arrays: each element printed reads back as the one NumPy
    # would show there (every bfloat16 prints with all its digits: at most 3
    # are needed, precision is 8)
    def edges(a, e=3):  # the elements NumPy shows of a summarised array
        for ax in range(a.ndim):
            n = a.shape[ax]
            if n > 2 * e:
                a = np.concatenate([a.take(range(e), ax), a.take(range(n - e, n), ax)], ax)
        return a

    for i in range(60):
        shape = shapes[i % len(shapes)]
        n = int(np.prod(shape))
        bits = rng.integers(0, 1 << 16, n, dtype=np.uint16)
        if i % 2:
            bits = (bits & 0x3FFF) | 0x3C00  # around 1
        a = bits.view(bf).reshape(shape)
        x = to_nd(a)
        with np.errstate(all="ignore"):
            shown = (edges(a) if a.size > 1000 else a).astype(np.float64).ravel()
        toks = [t for t in str(x).replace("[", " ").replace("]", " ").split() if t != "..."]
        COUNT["cases"] += 1
        ok = len(toks) == len(shown)
        if ok:
            back = np.array([float(t) for t in toks]).astype(bf).astype(np.float64)
            ok = bool(np.all((back == shown) | (np.isnan(back) & np.isnan(shown))))
        check(ok, "bfloat16 random %s: the printed elements do not read back as the shown ones:\n%s"
              % (shape, show(str(x))))


# --------------------------------------------------------------------------
# arrays


FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
ALL = [np.bool_] + INTS + FLOATS + COMPLEX


def float_values(rng, n, dt, style):
    with np.errstate(all="ignore"):
        if style == "normal":
            v = rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 3)
        elif style == "wide":
            v = rng.standard_normal(n) * 10.0 ** rng.uniform(-30, 30, n)
        elif style == "ints":
            v = rng.integers(-1000, 1000, n).astype(np.float64)
        elif style == "dyadic":
            v = rng.integers(-4000, 4000, n) / 2.0 ** rng.integers(0, 12)
        elif style == "decimal":
            v = np.round(rng.uniform(-100, 100, n), int(rng.integers(0, 6)))
        elif style == "special" and n:
            v = rng.standard_normal(n) * 10.0 ** rng.uniform(-2, 2)
            v[rng.integers(0, n, max(1, n // 5))] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0],
                                                                 max(1, n // 5))
        elif style == "special":
            v = np.zeros(0)
        elif style == "tiny":
            v = rng.uniform(0.5e-4, 1.5e-4, n) * rng.choice([-1, 1], n)
        elif style == "cutoff":  # around 10**precision: 1e3, 1e6, 1e8
            c = {np.float16: 1e3, np.float32: 1e6}.get(dt, 1e8)
            v = c * rng.uniform(0.9, 1.1, n)
        elif style == "ratio":  # max / min around 1000
            v = rng.choice([1.0, 999.0, 1000.0, 1001.0, 0.5, 500.0], n)
        else:  # bits
            nb = np.dtype(dt).itemsize * 8
            ut = {16: np.uint16, 32: np.uint32, 64: np.uint64}[nb]
            return rng.integers(0, np.iinfo(ut).max, n, dtype=ut, endpoint=True).view(dt)
        return v.astype(dt)


STYLES = ["normal", "wide", "ints", "dyadic", "decimal", "special", "tiny", "cutoff", "ratio", "bits"]


def values(rng, n, dt):
    if dt is np.bool_:
        return rng.random(n) < rng.uniform(0.1, 0.9)
    if dt in INTS:
        ii = np.iinfo(dt)
        if rng.random() < 0.5:
            return rng.integers(ii.min, ii.max, n, dtype=dt, endpoint=True)
        return rng.integers(max(ii.min, -200), min(ii.max, 200), n, dtype=dt, endpoint=True)
    if dt in COMPLEX:
        rt = np.float32 if dt is np.complex64 else np.float64
        re = float_values(rng, n, rt, STYLES[int(rng.integers(0, len(STYLES) - 1))])
        im = float_values(rng, n, rt, STYLES[int(rng.integers(0, len(STYLES) - 1))])
        out = np.empty(n, dt)
        out.real, out.imag = re, im
        return out
    return float_values(rng, n, dt, STYLES[int(rng.integers(0, len(STYLES)))])


def cplx(re, im, dt):
    """re + i im exactly (1j * inf would make a nan real part)."""
    rt = np.float32 if dt is np.complex64 else np.float64
    with np.errstate(all="ignore"):
        re, im = np.asarray(re, rt), np.asarray(im, rt)
    out = np.empty(re.shape, dt)
    out.real, out.imag = re, im
    return out


def fixed_cases():
    rng = np.random.default_rng(7)
    shapes = [(), (0,), (0, 3), (2, 0), (2, 0, 3), (1,), (7,), (3, 4), (2, 3, 4), (2, 2, 2, 3), (1, 1, 1, 1, 1),
              (999,), (1000,), (1001,), (2000,), (40, 40), (6, 6, 6, 6, 6), (2, 3000), (1001, 1), (1, 1001),
              (7, 7, 7, 7), (3, 400), (100,), (50, 2)]
    for dt in ALL:
        for shape in shapes:
            n = int(np.prod(shape))
            compare(values(rng, n, dt).reshape(shape), "%s %s" % (np.dtype(dt).name, shape))
    nan, inf = np.nan, np.inf
    specials = [[nan], [inf], [-inf], [nan, inf, -inf], [-0.0], [0.0, -0.0], [1e-5, 1.0], [1e8, 1.0], [1e16],
                [1e-300, 1e300], [5e-324], [1.0, 2.0, 3.0], [1.5, 2.0, 3.25], [1.0, nan, 1e10], [0.0],
                [0.1, 0.2, 0.3], [1 / 3, 2 / 3], [1e-4, 0.01], [9.999e-5, 0.01], [123456.789], [1e6, 1.0],
                [999.0, 1.0], [1000.0, 1.0], [1001.0, 1.0], [-1.5, nan, 2.25, -inf], [65504.0, 6e-8],
                [3.4e38, 1e-45], [np.finfo(np.float64).max, np.finfo(np.float64).tiny], [0.5, -0.0, inf]]
    for v in specials:
        for dt in FLOATS:
            with np.errstate(all="ignore"):
                a = np.array(v, dtype=dt)
            compare(a, "%s %r" % (np.dtype(dt).name, v))
            compare(a[:1].reshape(()), "%s 0-d %r" % (np.dtype(dt).name, v[0]))
        for dt in COMPLEX:
            a = cplx(v, v[::-1], dt)
            compare(a, "%s %r" % (np.dtype(dt).name, v))
            compare(a[:1].reshape(()), "%s 0-d %r" % (np.dtype(dt).name, a[0]))
    for z in (0j, 1j, -1j, 1 + 0j, complex(-0.0, 2), complex(0.0, -0.0), complex(nan, inf), complex(-inf, nan),
              complex(1e20, 1e-5), complex(0, 1e-5), complex(2.5, -1e7)):
        for dt in COMPLEX:
            compare(cplx(z.real, z.imag, dt), "%s 0-d %r" % (np.dtype(dt).name, z))
    for dt in INTS:
        ii = np.iinfo(dt)
        compare(np.array([ii.min, ii.max, 0], dt), "%s extremes" % np.dtype(dt).name)
        compare(np.array(ii.max, dt), "%s 0-d max" % np.dtype(dt).name)
        compare(np.array(ii.min, dt), "%s 0-d min" % np.dtype(dt).name)
        compare(np.arange(min(int(ii.max), 300) // 2 * 2, dtype=dt).reshape(-1, 2)[:, ::-1].copy(),
                "%s arange" % np.dtype(dt).name)
    compare(np.array([True, False]), "bool")
    compare(np.array(True), "bool 0-d")
    compare(np.array(False), "bool 0-d")
    compare(np.eye(5, dtype=bool), "bool eye")
    # long rows that wrap: widths from 1 to 20 characters
    compare(np.arange(100.0), "float64 arange(100)")
    compare(np.arange(200, dtype=np.int16) * 97, "int16 long row")
    compare(rng.standard_normal(60), "float64 long random row")
    compare((rng.standard_normal((3, 30)) * 1e5).astype(np.float32), "float32 long rows")
    compare(rng.standard_normal(40) + 1j * rng.standard_normal(40), "complex128 long row")
    compare((rng.standard_normal((2, 2, 25)) * 10.0 ** rng.uniform(-30, 30, (2, 2, 25))).astype(np.float64),
            "float64 3-d scientific long rows")
    compare(np.array([1e-10, 1.0, np.nan] * 20), "float64 scientific with nan, wrapping")
    compare(np.linspace(0, 1, 1000), "linspace 1000")
    compare(np.linspace(0, 1, 1001).astype(np.float32), "linspace 1001 float32")
    compare(np.arange(24).reshape(2, 3, 4), "arange 2x3x4")
    compare(np.arange(10 ** 4, dtype=np.uint64).reshape(10, 10, 10, 10) * 12345678901, "uint64 4-d summarised")
    compare(np.ones((3, 1000)), "ones 3x1000 (extras on a new line)")
    compare(np.full(1001, -7, np.int8), "int8 1001")


def view_cases():
    """Strided device views print as the NumPy views of the same data."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal((50, 60)).astype(np.float32)
    x = to_nd(a)
    compare(a[::2, 1:], "view [::2, 1:]", x=x[::2, 1:])
    compare(a[::-3], "view [::-3]", x=x[::-3])
    compare(a.T, "view .T", x=x.T)
    compare(a[10:13, 5:9], "view [10:13, 5:9]", x=x[10:13, 5:9])
    compare(a[7], "view [7]", x=x[7])
    compare(np.array(a[7, 8]), "view [7, 8] (0-d)", x=x[7, 8])
    b = np.arange(3 * 400 * 5, dtype=np.int32).reshape(3, 400, 5)
    y = to_nd(b)
    compare(b[:, ::3, ::-1], "view [:, ::3, ::-1]", x=y[:, ::3, ::-1])
    compare(np.transpose(b, (2, 0, 1)), "permute_dims (2, 0, 1)", x=xp.permute_dims(y, (2, 0, 1)))


def random_cases(count):
    rng = np.random.default_rng(2024)
    for i in range(count):
        dt = ALL[i % len(ALL)]
        ndim = int(rng.integers(0, 5))
        if rng.random() < 0.15:
            shape = tuple(int(s) for s in rng.choice([1, 2, 3, 7, 10, 50, 333, 1200], ndim))
            if np.prod(shape) > 5000:
                shape = shape[:1]
        else:
            shape = tuple(int(s) for s in rng.integers(1, 9 if ndim > 1 else 40, ndim))
        n = int(np.prod(shape))
        compare(values(rng, n, dt).reshape(shape), "random #%d %s %s" % (i, np.dtype(dt).name, shape))


# --------------------------------------------------------------------------
# what crosses to the host


def copy_checks():
    """Printing a summarised array copies only the elements shown: the
    bytes through nd_copy_to_host are counted."""
    real = C.nd_copy_to_host
    copied = []

    def counting(dst, h, n):
        copied.append(n)
        return real(dst, h, n)

    C.nd_copy_to_host = counting
    try:
        # (shape, dtype, elements shown): nothing is summarised along axes
        # of at most 6, so (2,) * 11 and (6,) * 5 print whole
        cases = [((10 ** 7,), xp.float32, 6), ((1000, 1000), xp.float64, 36), ((100, 100, 100), xp.int32, 216),
                 ((2, 3000), xp.int16, 12), ((4000, 3), xp.complex64, 18), ((2,) * 11, xp.bool, 2048),
                 ((6,) * 5, xp.uint8, 7776), ((10 ** 6,), xp.bfloat16, 6), ((999,), xp.float64, 999)]
        for shape, dt, shown in cases:
            n = int(np.prod(shape))
            x = xp.reshape(xp.astype(xp.arange(n, dtype=xp.int64, device=DEV), dt), shape)
            a = np.arange(n, dtype=np.int64).astype(np.dtype(dt.name) if dt is not xp.bfloat16 else np.float32)
            a = a.reshape(shape)
            for f in (repr, str):
                del copied[:]
                s = f(x)
                want = shown * dt.itemsize
                check(sum(copied) == want, "%s of %s %s copied %s bytes to the host, not %d"
                      % (f.__name__, dt.name, shape, copied, want))
                if dt is not xp.bfloat16 and f is str:
                    check(s == str(a), "str of %s %s:\n%s\n%s" % (dt.name, shape, show(s), show(str(a))))
        # data that cannot be read (a failing device): repr still says what
        # the array is, str raises
        C.nd_copy_to_host = lambda dst, h, n: 7  # ND_ERR_IO
        x = xp.reshape(xp.arange(12.0, device=DEV), (3, 4))
        r = repr(x)
        check(r.startswith("Array(<data not readable:") and "shape=(3, 4)" in r, "repr of unreadable data: %r" % r)
        try:
            str(x)
            FAILS.append("str of unreadable data did not raise")
        except Exception:  # noqa: BLE001 - the library's error, whichever class
            pass
    finally:
        C.nd_copy_to_host = real


# --------------------------------------------------------------------------
# format()


def format_checks():
    cases = [(np.float64(3.14159), [".3f", "10.2e", ">12", "g", "%"]), (np.float32(0.1), [".3f", ".10f", "e"]),
             (np.float16(2.5), [".2f"]), (np.int32(-42), ["d", "05d", "x", ">6", ",", ".1f"]),
             (np.uint8(200), ["b", "o"]), (np.bool_(True), ["", ">6", "d"]),
             (np.complex128(1 + 2j), [".2f", ">20"]), (np.complex64(0.5 - 1j), [".1f"])]
    for v, specs in cases:
        a = np.array(v)
        x = to_nd(a)
        for spec in specs:
            COUNT["cases"] += 1
            if spec:
                check(format(x, spec) == format(a, spec),
                      "format(%r 0-d, %r) = %r, NumPy %r" % (v, spec, format(x, spec), format(a, spec)))
        # an empty spec is str(x) (NumPy widens a float32 0-d to a Python float there)
        check(format(x, "") == str(x) == "%s" % x, "format(%r 0-d, '') = %r, str %r" % (v, format(x, ""), str(x)))
        check(f"{x}" == str(a), "f'{x}' for %r: %r, NumPy's str %r" % (v, f"{x}", str(a)))
    x = to_nd(np.array([1.5, 2.0]))
    check(f"{x}" == "[1.5 2. ]", "f'{x}' of a 1-d array: %r" % f"{x}")
    try:
        format(x, ".2f")
        FAILS.append("format(1-d array, '.2f') did not raise")
    except TypeError:
        pass


def main():
    n_random = int(os.environ.get("NDGPU_REPR_RANDOM", "400"))
    dragon4_checks()
    refs = bfloat16_checks()
    bfloat16_arrays(refs)
    fixed_cases()
    view_cases()
    random_cases(n_random)
    copy_checks()
    format_checks()
    if FAILS:
        for f in FAILS[:25]:
            print("FAIL:", f)
        print("python-repr-test: %d FAILED (of %d array cases, device %s)" % (len(FAILS), COUNT["cases"], DEV))
        sys.exit(1)
    print("python-repr-test: OK, %d arrays printed as NumPy prints them (repr and str, device %s); "
          "%d Dragon4 strings equal to NumPy's; %d bfloat16 values with the shortest round-trip digits"
          % (COUNT["cases"], DEV, COUNT["dragon4"], COUNT["bf16"]))


if __name__ == "__main__":
    main()
